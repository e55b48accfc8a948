//! `-o arrow` and `-o parquet`: rows as Arrow record batches, written as an Arrow IPC stream
//! or a Parquet file.
//!
//! The driver stays as it is for every format: the chunks write each row in ndq-arrow's byte
//! form ([`ndq_arrow::encode_row`], on the worker threads, where the values are classified),
//! and the driver writes the chunk buffers in input order into a [`Sink`] instead of stdout.
//! The sink hands the bytes to an encoder thread ([`Encoding`]), which reads the rows back,
//! lets an [`ndq_arrow::Batcher`] type them and cut batches, and encodes each batch as it is
//! cut, while the workers scan on: nothing but the rows that decide the types, Parquet's
//! current row group and a few chunk buffers in the channel is held.
//!
//! ```text
//! run:      spawn the encoder thread; driver::run(.., &mut sink); close the channel; join
//! sink:     write(bytes) -> send a copy to the encoder; write out what it has encoded
//! encoder:  for each whole row: batcher.push(row)
//!           for each batch cut: encoder (made with the batch's schema, the first time) .write
//! end:      batcher.finish (an empty result still gets a schema); the format's end
//! ```
//! The encoders want an owned `Write + Send`; they write into a [`Spool`] that the sink (on
//! the driver's thread, which owns stdout) empties into its real output. A failure of the
//! encoder (a value that does not fit its column) closes the channel, so the driver's next
//! write fails and the run stops; the encoder's error is the one reported.

mod writer;

use std::io::{self, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::SchemaRef;
use ndq_arrow::cell::split_row;
use ndq_arrow::{Batcher, ColumnType};
use ndq_query::{AggKind, ColumnRole, Kind, Plan};
use parquet::arrow::ArrowWriter;

use crate::driver::{Inputs, RunOptions, Stats};
use crate::output::Format;

/// Chunk buffers that may wait for the encoder.
const QUEUE: usize = 8;

/// Run `plan` over `inputs` and write its rows to `out` as `format` (`Parquet` or `Arrow`).
pub fn run(
    opts: &RunOptions,
    plan: &Plan,
    inputs: &Inputs,
    format: Format,
    out: &mut dyn Write,
) -> anyhow::Result<Stats> {
    // A count is a whole number even when no row says so (an aggregation over no lines).
    let known = plan
        .column_roles()
        .iter()
        .map(|role| match role {
            ColumnRole::Aggregate(AggKind::Count | AggKind::CountDistinct) => Some(ColumnType::Int),
            _ => None,
        })
        .collect();
    let mut batcher = Batcher::new(plan.columns()).with_fallback(known);
    if plan.kind() == Kind::Collect {
        // An aggregation's rows are all at hand when the first is written: all decide.
        batcher = batcher.with_sample(usize::MAX);
    }
    let spool = Spool::default();
    let encoding = Encoding::new(format, batcher, spool.clone());
    let (tx, rx) = sync_channel(QUEUE);
    std::thread::scope(|scope| {
        let encoder = std::thread::Builder::new()
            .name("ndq-encoder".into())
            .spawn_scoped(scope, move || encoding.run(rx))?;
        let mut sink = Sink {
            tx: Some(tx),
            spool: &spool,
            out,
        };
        let stats = crate::driver::run(opts, plan, inputs, format, &mut sink);
        let out = sink.out;
        drop(sink.tx);
        let encoded = encoder
            .join()
            .map_err(|_| anyhow::anyhow!("the encoder thread panicked"))?;
        encoded?;
        let stats = stats?;
        spool.drain_into(out)?;
        out.flush()?;
        Ok(stats)
    })
}

/// Rows in ndq-arrow's byte form, all at hand (so all decide the types), written to `out` as
/// `format` (`Parquet` or `Arrow`): for `ndq keys`, whose rows come at the end.
pub fn encode_all(
    format: Format,
    columns: &[String],
    rows: &[u8],
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let spool = Spool::default();
    let batcher = Batcher::new(columns).with_sample(usize::MAX);
    let mut encoding = Encoding::new(format, batcher, spool.clone());
    encoding.write(rows)?;
    encoding.finish()?;
    spool.drain_into(out)?;
    Ok(())
}

/// The driver's output: bytes go to the encoder thread, what it encoded to `out`.
struct Sink<'s, 'o> {
    tx: Option<SyncSender<Vec<u8>>>,
    spool: &'s Spool,
    out: &'o mut dyn Write,
}

impl Write for Sink<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let sent = self.tx.as_ref().map(|tx| tx.send(buf.to_vec()));
        if !matches!(sent, Some(Ok(()))) {
            // The encoder stopped; its error is reported when it is joined.
            return Err(io::Error::other("the encoder stopped"));
        }
        self.spool.drain_into(self.out)?;
        Ok(buf.len())
    }

    /// Rows are encoded as batches are cut, not on flush (a flush cannot cut a Parquet
    /// row group short without making the file worse for readers).
    fn flush(&mut self) -> io::Result<()> {
        self.spool.drain_into(self.out)?;
        self.out.flush()
    }
}

/// Rows' bytes in, the format's bytes out (into a [`Spool`]).
struct Encoding {
    format: Format,
    batcher: Batcher,
    /// The start of a row whose end has not been written yet.
    partial: Vec<u8>,
    encoder: Option<Encoder>,
    spool: Spool,
}

enum Encoder {
    Ipc(Box<StreamWriter<Spool>>),
    Parquet(Box<ArrowWriter<Spool>>),
}

impl Encoding {
    fn new(format: Format, batcher: Batcher, spool: Spool) -> Encoding {
        Encoding {
            format,
            batcher,
            partial: Vec::new(),
            encoder: None,
            spool,
        }
    }

    /// Encode what comes through `rx` until it closes, then end the format.
    fn run(mut self, rx: Receiver<Vec<u8>>) -> anyhow::Result<()> {
        for bytes in rx {
            self.write(&bytes)?;
        }
        self.finish()
    }

    /// Take more of the rows' bytes (cut anywhere).
    fn write(&mut self, buf: &[u8]) -> anyhow::Result<()> {
        if self.partial.is_empty() {
            let used = self.rows(buf)?;
            self.partial.extend_from_slice(&buf[used..]);
        } else {
            self.partial.extend_from_slice(buf);
            let mut partial = std::mem::take(&mut self.partial);
            let used = self.rows(&partial)?;
            partial.drain(..used);
            self.partial = partial;
        }
        for batch in self.batcher.take_ready() {
            self.encode(&batch)?;
        }
        Ok(())
    }

    /// Push the whole rows at the start of `bytes`; gives how many bytes they took.
    fn rows(&mut self, bytes: &[u8]) -> Result<usize, ndq_arrow::Error> {
        let mut rest = bytes;
        while let Some((row, after)) = split_row(rest) {
            self.batcher.push(row)?;
            rest = after;
        }
        Ok(bytes.len() - rest.len())
    }

    fn encoder(&mut self, schema: &SchemaRef) -> anyhow::Result<&mut Encoder> {
        let encoder = match self.encoder.take() {
            Some(encoder) => encoder,
            None if self.format == Format::Parquet => Encoder::Parquet(Box::new(writer::writer(
                self.spool.clone(),
                schema.clone(),
            )?)),
            None => Encoder::Ipc(Box::new(StreamWriter::try_new(self.spool.clone(), schema)?)),
        };
        Ok(self.encoder.insert(encoder))
    }

    fn encode(&mut self, batch: &RecordBatch) -> anyhow::Result<()> {
        match self.encoder(batch.schema_ref())? {
            Encoder::Ipc(w) => w.write(batch)?,
            Encoder::Parquet(w) => w.write(batch)?,
        }
        Ok(())
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
        Ok(())
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

    /// Give `bytes` to an encoding in pieces of `piece` bytes; the output.
    fn written(format: Format, columns: &[String], bytes: &[u8], piece: usize) -> Vec<u8> {
        let spool = Spool::default();
        let batcher = Batcher::new(columns).with_batch_rows(3);
        let mut encoding = Encoding::new(format, batcher, spool.clone());
        for part in bytes.chunks(piece.max(1)) {
            encoding.write(part).unwrap();
        }
        encoding.finish().unwrap();
        let mut out = Vec::new();
        spool.drain_into(&mut out).unwrap();
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
