//! The batcher: rows in byte form ([`crate::cell::encode_row`]) in, record batches out, with
//! the schema decided by the first rows.
//!
//! ```text
//! until the schema is decided:  keep each row's bytes, fold its cells into Kinds per column
//! decide (after `sample` rows, SAMPLE_BYTES of them, or at finish):
//!     types := Kinds::column_type per column; append the kept rows to the builders
//! then each row:                append its cells to the builders; a cell the column's type
//!                               cannot hold is an error (Error::Misfit), never a silent change
//! a batch is cut after BATCH_ROWS rows, or once the text in it passes BATCH_BYTES
//! ```
//! The rows that decide are the first ones in output order, so the schema is the same with
//! any number of threads or chunk size; a batch boundary changes nothing but where batches
//! are cut.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};

use crate::cell::{Cells, split_row};
use crate::column::{ColumnBuilder, ColumnType, Kinds};
use crate::{Error, ErrorKind};

/// Rows that decide the column types by default.
pub const SAMPLE_ROWS: usize = 65_536;
/// Bytes of rows (in byte form) after which the types are decided even with fewer rows.
pub const SAMPLE_BYTES: usize = 64 << 20;
/// Most rows in one batch.
pub const BATCH_ROWS: usize = 65_536;
/// Bytes of text in one column after which a batch is cut even with fewer rows (well
/// under the 2 GiB a `Utf8` array can address).
pub const BATCH_BYTES: usize = 64 << 20;

/// Builds record batches from rows in byte form.
#[derive(Debug)]
pub struct Batcher {
    names: Vec<String>,
    sample: usize,
    /// How many rows decided the types.
    decided_by: usize,
    /// Rows pushed so far.
    rows: u64,
    /// Before the schema is decided: the rows kept, and what their cells were.
    kept: Vec<u8>,
    kept_rows: usize,
    kinds: Vec<Kinds>,
    /// The type of a column whose rows hold no value to decide it (no rows, or only nulls),
    /// when it is known from the query (a count is a whole number); `None`: text.
    fallback: Vec<Option<ColumnType>>,
    /// After: the schema and one builder per column.
    schema: Option<SchemaRef>,
    types: Vec<ColumnType>,
    builders: Vec<ColumnBuilder>,
    batch_rows: usize,
    /// Rows per batch.
    batch_size: usize,
    ready: Vec<RecordBatch>,
}

impl Batcher {
    /// A batcher for rows with these column names; the first [`SAMPLE_ROWS`] rows decide
    /// the types.
    pub fn new(names: &[String]) -> Batcher {
        Batcher {
            names: names.to_vec(),
            sample: SAMPLE_ROWS,
            decided_by: 0,
            rows: 0,
            kept: Vec::new(),
            kept_rows: 0,
            kinds: vec![Kinds::default(); names.len()],
            fallback: vec![None; names.len()],
            schema: None,
            types: Vec::new(),
            builders: Vec::new(),
            batch_rows: 0,
            batch_size: BATCH_ROWS,
            ready: Vec::new(),
        }
    }

    /// Cut batches of `rows` rows (at most; [`BATCH_ROWS`] by default).
    pub fn with_batch_rows(mut self, rows: usize) -> Batcher {
        self.batch_size = rows.max(1);
        self
    }

    /// Let the first `rows` rows decide the types (`usize::MAX`: all of them, however many
    /// bytes they take, for rows that are all at hand anyway, as an aggregation's are).
    pub fn with_sample(mut self, rows: usize) -> Batcher {
        self.sample = rows.max(1);
        self
    }

    /// The types of the columns the query knows (`Some`), for when the rows decide nothing
    /// (an aggregation over no lines has no rows, yet its `count(*)` column is a whole
    /// number in every run). A column whose rows hold values is typed by them, as always.
    pub fn with_fallback(mut self, types: Vec<Option<ColumnType>>) -> Batcher {
        if types.len() == self.names.len() {
            self.fallback = types;
        }
        self
    }

    /// The schema, once decided.
    pub fn schema(&self) -> Option<&SchemaRef> {
        self.schema.as_ref()
    }

    /// Rows pushed so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Add one row (the bytes [`split_row`] gives). Batches that are complete are taken
    /// with [`Batcher::take_ready`].
    pub fn push(&mut self, row: &[u8]) -> Result<(), Error> {
        self.rows += 1;
        if self.schema.is_some() {
            return self.append(row, self.rows);
        }
        let mut cells = Cells::new(row);
        let mut n = 0;
        for (kinds, cell) in self.kinds.iter_mut().zip(cells.by_ref()) {
            kinds.add(&cell);
            n += 1;
        }
        if cells.corrupt || n != self.names.len() || cells.next().is_some() {
            return Err(Error::new(ErrorKind::Corrupt));
        }
        self.kept
            .extend_from_slice(&(row.len() as u32).to_le_bytes());
        self.kept.extend_from_slice(row);
        self.kept_rows += 1;
        let full = self.sample != usize::MAX && self.kept.len() >= SAMPLE_BYTES;
        if self.kept_rows >= self.sample || full {
            self.decide()?;
        }
        Ok(())
    }

    /// Decide the schema from the rows kept, and append them.
    fn decide(&mut self) -> Result<(), Error> {
        self.decided_by = self.kept_rows;
        self.types = self
            .kinds
            .iter()
            .zip(&self.fallback)
            .map(|(kinds, fallback)| match fallback {
                Some(ty) if !kinds.any() => *ty,
                _ => kinds.column_type(),
            })
            .collect();
        let fields: Vec<Field> = self
            .names
            .iter()
            .zip(&self.types)
            .map(|(name, ty)| Field::new(name, ty.data_type(), true))
            .collect();
        self.schema = Some(Arc::new(Schema::new(fields)));
        let rows = self.kept_rows.min(self.batch_size);
        self.builders = self
            .types
            .iter()
            .map(|&ty| ColumnBuilder::new(ty, rows))
            .collect();
        let kept = std::mem::take(&mut self.kept);
        let first = self.rows - self.kept_rows as u64;
        let mut rest = &kept[..];
        let mut number = first;
        while let Some((row, after)) = split_row(rest) {
            number += 1;
            self.append(row, number)?;
            rest = after;
        }
        self.kept_rows = 0;
        Ok(())
    }

    /// Append one row to the builders (`number`: its 1-based row number, for errors).
    fn append(&mut self, row: &[u8], number: u64) -> Result<(), Error> {
        let mut cells = Cells::new(row);
        let mut n = 0;
        for ((builder, cell), i) in self.builders.iter_mut().zip(cells.by_ref()).zip(0..) {
            if !builder.append(&cell) {
                return Err(Error::new(ErrorKind::Misfit {
                    column: self.names[i].clone(),
                    row: number,
                    value: cell.described(),
                    column_type: self.types[i],
                    sample: self.decided_by,
                }));
            }
            n += 1;
        }
        if cells.corrupt || n != self.names.len() || cells.next().is_some() {
            return Err(Error::new(ErrorKind::Corrupt));
        }
        self.batch_rows += 1;
        if self.batch_rows >= self.batch_size
            || self.builders.iter().any(|b| b.text_bytes() >= BATCH_BYTES)
        {
            self.cut()?;
        }
        Ok(())
    }

    /// The rows appended since the last cut as one batch, in `ready`.
    fn cut(&mut self) -> Result<(), Error> {
        let Some(schema) = &self.schema else {
            return Ok(());
        };
        if self.batch_rows == 0 {
            return Ok(());
        }
        let columns = self
            .builders
            .iter_mut()
            .map(ColumnBuilder::finish)
            .collect();
        let options = RecordBatchOptions::new().with_row_count(Some(self.batch_rows));
        let batch = RecordBatch::try_new_with_options(schema.clone(), columns, &options)
            .map_err(|e| Error::new(ErrorKind::Arrow(e)))?;
        self.batch_rows = 0;
        self.ready.push(batch);
        Ok(())
    }

    /// The batches completed so far, in order.
    pub fn take_ready(&mut self) -> Vec<RecordBatch> {
        std::mem::take(&mut self.ready)
    }

    /// No more rows: decide the schema if the rows were too few to, and cut the last
    /// batch. Gives the schema (for an empty result: every column `Utf8`) and the batches
    /// not yet taken.
    pub fn finish(&mut self) -> Result<(SchemaRef, Vec<RecordBatch>), Error> {
        if self.schema.is_none() {
            self.decide()?;
        }
        self.cut()?;
        let schema = self
            .schema
            .clone()
            .ok_or_else(|| Error::new(ErrorKind::Corrupt))?;
        Ok((schema, self.take_ready()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray as _;
    use arrow_array::types::{Decimal128Type, TimestampNanosecondType};
    use arrow_array::{Array as _, BooleanArray};
    use arrow_schema::DataType;
    use ndq_query::Value;
    use proptest::prelude::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("c{i}")).collect()
    }

    /// Push `rows` through a batcher and give the schema and all batches.
    fn run(
        batcher: Batcher,
        rows: &[Vec<Value<'_>>],
    ) -> Result<(SchemaRef, Vec<RecordBatch>), Error> {
        let mut batcher = batcher;
        let mut batches = Vec::new();
        for row in rows {
            let mut bytes = Vec::new();
            crate::encode_row(row, &mut bytes);
            let (row, _) = split_row(&bytes).unwrap();
            batcher.push(row)?;
            batches.extend(batcher.take_ready());
        }
        let (schema, last) = batcher.finish()?;
        batches.extend(last);
        Ok((schema, batches))
    }

    /// Every value of a batch list as text (`None` for null), column by column.
    fn texts(batches: &[RecordBatch]) -> Vec<Vec<Option<String>>> {
        let Some(first) = batches.first() else {
            return Vec::new();
        };
        (0..first.num_columns())
            .map(|c| {
                batches
                    .iter()
                    .flat_map(|b| {
                        let array = b.column(c);
                        (0..array.len())
                            .map(|i| {
                                array
                                    .is_valid(i)
                                    .then(|| arrow_cast_free_text(array.as_ref(), i))
                            })
                            .collect::<Vec<_>>()
                    })
                    .collect()
            })
            .collect()
    }

    /// A value's text without arrow-cast: numbers by their digits, text as is.
    fn arrow_cast_free_text(array: &dyn arrow_array::Array, i: usize) -> String {
        match array.data_type() {
            DataType::Utf8 => array.as_string::<i32>().value(i).to_string(),
            DataType::Boolean => {
                let b: &BooleanArray = array.as_boolean();
                b.value(i).to_string()
            }
            DataType::Int64 => array
                .as_primitive::<arrow_array::types::Int64Type>()
                .value(i)
                .to_string(),
            DataType::Decimal128(_, _) => {
                let d = array.as_primitive::<Decimal128Type>();
                d.value_as_string(i)
            }
            DataType::Float64 => array
                .as_primitive::<arrow_array::types::Float64Type>()
                .value(i)
                .to_string(),
            DataType::Timestamp(_, _) => array
                .as_primitive::<TimestampNanosecondType>()
                .value(i)
                .to_string(),
            other => format!("{other}"),
        }
    }

    #[test]
    fn first_rows_decide_then_misfit_is_an_error() {
        let rows = vec![
            vec![Value::RawNumber("1.5".into()), Value::RawString("x".into())],
            vec![Value::RawNumber("2".into()), Value::RawNumber("7".into())],
            vec![Value::RawNumber("2.25".into()), Value::Bool(true)],
        ];
        let batcher = Batcher::new(&names(2)).with_sample(2);
        let err = run(batcher, &rows).unwrap_err();
        assert_eq!(
            err.to_string(),
            "row 3, column 'c0': the value 2.25 does not fit the column's type \
             DECIMAL(18,1), which the first 2 rows gave it (write tostring(...) to have the \
             column as text)"
        );
        // Text takes any later value; with every row deciding, the scale is 2.
        let (schema, batches) = run(Batcher::new(&names(2)), &rows).unwrap();
        assert_eq!(schema.field(0).data_type(), &DataType::Decimal128(18, 2));
        assert_eq!(schema.field(1).data_type(), &DataType::Utf8);
        assert_eq!(
            texts(&batches),
            [
                vec![
                    Some("1.50".into()),
                    Some("2.00".into()),
                    Some("2.25".into())
                ],
                vec![Some("x".into()), Some("7".into()), Some("true".into())],
            ]
        );
    }

    #[test]
    fn empty_result_has_text_columns() {
        let (schema, batches) = run(Batcher::new(&names(2)), &[]).unwrap();
        assert!(batches.is_empty());
        assert!(
            schema
                .fields()
                .iter()
                .all(|f| f.data_type() == &DataType::Utf8)
        );
    }

    #[test]
    fn times_and_nulls() {
        let rows = vec![
            vec![Value::RawString("2026-11-21T10:00:00.5+01:00".into())],
            vec![Value::Null],
            vec![Value::String("2026-11-21T09:00:00Z".into())],
        ];
        let (schema, batches) = run(Batcher::new(&names(1)), &rows).unwrap();
        assert_eq!(
            schema.field(0).data_type(),
            &DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, Some("UTC".into()))
        );
        let got = batches[0]
            .column(0)
            .as_primitive::<TimestampNanosecondType>();
        let nanos = |t: &str| t.parse::<jiff::Timestamp>().unwrap().as_nanosecond() as i64;
        assert_eq!(got.value(0), nanos("2026-11-21T09:00:00.5Z"));
        assert!(got.is_null(1));
        assert_eq!(got.value(2), nanos("2026-11-21T09:00:00Z"));
    }

    fn value() -> impl Strategy<Value = Value<'static>> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-100_000i64..100_000, 0u32..4).prop_map(|(n, s)| {
                let d = ndq_query::Decimal::new(n, s);
                Value::RawNumber(ndq_query::format_decimal(&d).into())
            }),
            "[a-c]{0,3}".prop_map(|s| Value::RawString(s.into())),
            (0i64..2_000_000_000).prop_map(|s| Value::String(
                jiff::Timestamp::from_second(s).unwrap().to_string().into()
            )),
        ]
    }

    proptest! {
        /// Cutting the rows into batches anywhere changes only where batches are cut: the
        /// schema and every value are the same.
        #[test]
        fn batch_size_changes_nothing_but_the_cuts(
            rows in proptest::collection::vec(proptest::collection::vec(value(), 3), 0..40),
            size in 1usize..10,
        ) {
            let one = run(Batcher::new(&names(3)), &rows).unwrap();
            let cut = run(Batcher::new(&names(3)).with_batch_rows(size), &rows).unwrap();
            prop_assert_eq!(&one.0, &cut.0);
            prop_assert!(cut.1.iter().all(|b| b.num_rows() <= size));
            prop_assert_eq!(texts(&one.1), texts(&cut.1));
            let total: usize = cut.1.iter().map(RecordBatch::num_rows).sum();
            prop_assert_eq!(total, rows.len());
        }
    }
}
