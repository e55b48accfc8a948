//! `-o arrow` and `-o parquet`: rows as Arrow record batches, written as an Arrow IPC stream
//! or a Parquet file.
//!
//! The driver stays as it is for every format: the chunks write each row in ndq-arrow's byte
//! form ([`ndq_arrow::encode_row`], on the worker threads, where the values are classified),
//! and the driver writes the chunk buffers in input order into a [`Sink`] instead of stdout.
//! The sink reads the rows back, lets an [`ndq_arrow::Batcher`] type them and cut batches,
//! and encodes each batch as it is cut: nothing but the rows that decide the types (and
//! Parquet's current row group) is held.
//!
//! ```text
//! run:   sink := Sink(format, columns, stdout); driver::run(.., &mut sink); sink.finish()
//! write: append bytes; for each whole row: batcher.push(row)
//!        for each batch cut: encoder (made with the batch's schema, the first time) .write
//! finish: batcher.finish (an empty result still gets a schema); the encoder's end
//! ```
//! The encoders want an owned `Write + Send`; they write into a [`Spool`] that the sink
//! empties into its real output after each call.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::SchemaRef;
use ndq_arrow::Batcher;
use ndq_arrow::cell::split_row;
use ndq_query::{Kind, Plan};
use parquet::arrow::ArrowWriter;

use super::Format;
use crate::driver::{Inputs, RunOptions, Stats};

/// Run `plan` over `inputs` and write its rows to `out` as `format` (`Parquet` or `Arrow`).
pub fn run(
    opts: &RunOptions,
    plan: &Plan,
    inputs: &Inputs,
    format: Format,
    out: &mut dyn Write,
) -> anyhow::Result<Stats> {
    let mut batcher = Batcher::new(plan.columns());
    if plan.kind() == Kind::Collect {
        // An aggregation's rows are all at hand when the first is written: all decide.
        batcher = batcher.with_sample(usize::MAX);
    }
    let mut sink = Sink {
        format,
        batcher,
        partial: Vec::new(),
        encoder: None,
        spool: Spool::default(),
        out,
    };
    let stats = crate::driver::run(opts, plan, inputs, format, &mut sink)?;
    sink.finish()?;
    Ok(stats)
}

/// Where the rows' bytes go: turns them into batches and the batches into the format.
struct Sink<'o> {
    format: Format,
    batcher: Batcher,
    /// The start of a row whose end has not been written yet.
    partial: Vec<u8>,
    encoder: Option<Encoder>,
    spool: Spool,
    out: &'o mut dyn Write,
}

enum Encoder {
    Ipc(Box<StreamWriter<Spool>>),
    Parquet(Box<ArrowWriter<Spool>>),
}

impl Sink<'_> {
    /// Push the whole rows at the start of `bytes`; gives how many bytes they took.
    fn rows(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while let Some((row, after)) = split_row(rest) {
            self.batcher.push(row).map_err(io::Error::other)?;
            rest = after;
        }
        Ok(bytes.len() - rest.len())
    }

    /// Encode the batches the batcher has cut.
    fn flush_batches(&mut self) -> io::Result<()> {
        for batch in self.batcher.take_ready() {
            self.encode(&batch)?;
        }
        Ok(())
    }

    fn encoder(&mut self, schema: &SchemaRef) -> io::Result<&mut Encoder> {
        if self.encoder.is_none() {
            let spool = self.spool.clone();
            self.encoder = Some(match self.format {
                Format::Parquet => {
                    Encoder::Parquet(Box::new(super::parquet::writer(spool, schema.clone())?))
                }
                _ => Encoder::Ipc(Box::new(
                    StreamWriter::try_new(spool, schema).map_err(io::Error::other)?,
                )),
            });
        }
        Ok(self.encoder.as_mut().expect("made above"))
    }

    fn encode(&mut self, batch: &RecordBatch) -> io::Result<()> {
        match self.encoder(batch.schema_ref())? {
            Encoder::Ipc(w) => w.write(batch).map_err(io::Error::other)?,
            Encoder::Parquet(w) => w.write(batch).map_err(io::Error::other)?,
        }
        self.spool.drain_into(self.out)
    }

    /// No more rows: the last batch and the format's end.
    fn finish(mut self) -> anyhow::Result<()> {
        if !self.partial.is_empty() {
            anyhow::bail!("the rows ended in the middle of a row");
        }
        let (schema, batches) = self.batcher.finish()?;
        self.encoder(&schema)?;
        for batch in &batches {
            self.encode(batch)?;
        }
        match self.encoder.take() {
            Some(Encoder::Ipc(mut w)) => w.finish()?,
            Some(Encoder::Parquet(w)) => {
                w.close()?;
            }
            None => {}
        }
        self.spool.drain_into(self.out)?;
        self.out.flush()?;
        Ok(())
    }
}

impl Write for Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.partial.is_empty() {
            let used = self.rows(buf)?;
            self.partial.extend_from_slice(&buf[used..]);
        } else {
            self.partial.extend_from_slice(buf);
            let partial = std::mem::take(&mut self.partial);
            let used = self.rows(&partial)?;
            self.partial = partial[used..].to_vec();
        }
        self.flush_batches()?;
        Ok(buf.len())
    }

    /// Rows are written as batches are cut, not on flush (a flush cannot cut a Parquet
    /// row group short without making the file worse for readers).
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Bytes the encoders write, taken by the sink after each call.
#[derive(Clone, Default)]
pub struct Spool(Arc<Mutex<Vec<u8>>>);

impl Spool {
    fn drain_into(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut bytes = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if !bytes.is_empty() {
            out.write_all(&bytes)?;
            bytes.clear();
        }
        Ok(())
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut bytes = self.0.lock().unwrap_or_else(|p| p.into_inner());
        bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndq_query::Value;

    /// Write `bytes` into a sink in pieces of `piece` bytes; the output.
    fn written(format: Format, columns: &[String], bytes: &[u8], piece: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut sink = Sink {
            format,
            batcher: Batcher::new(columns).with_batch_rows(3),
            partial: Vec::new(),
            encoder: None,
            spool: Spool::default(),
            out: &mut out,
        };
        for part in bytes.chunks(piece.max(1)) {
            sink.write_all(part).unwrap();
        }
        sink.finish().unwrap();
        out
    }

    /// However the driver's writes cut the rows' bytes, the file is the same.
    #[test]
    fn rows_cut_anywhere_give_the_same_output() {
        let columns = vec!["t".to_string(), "n".to_string(), "s".to_string()];
        let mut bytes = Vec::new();
        for i in 0..10 {
            let row = [
                Value::RawString(format!("2026-11-21T10:00:0{i}Z").into()),
                Value::RawNumber(format!("{i}.{i}").into()),
                Value::RawString(format!("x\\u00e9{i}").into()),
            ];
            ndq_arrow::encode_row(&row, &mut bytes);
        }
        for format in [Format::Parquet, Format::Arrow] {
            let whole = written(format, &columns, &bytes, bytes.len());
            assert!(!whole.is_empty());
            for piece in [1, 2, 5, 7, 13, 64] {
                assert!(
                    written(format, &columns, &bytes, piece) == whole,
                    "{format:?} {piece}"
                );
            }
        }
    }
}
