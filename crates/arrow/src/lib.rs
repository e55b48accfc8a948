//! ndq-arrow: ndq's result rows as Arrow record batches with exact types, for `-o parquet`
//! and `-o arrow` (and for whatever else wants ndq's rows as Arrow).
//!
//! - [`Cell::of`] classifies one result value: null, boolean, an exact decimal (its digits
//!   and scale), a float (a number no `Decimal128` holds), a time (RFC 3339 text), text, or
//!   JSON (an array or object). [`encode_row`] writes a row of cells in a compact byte form,
//!   so the threads that evaluate lines can do that work and hand bytes on.
//! - [`Kinds`] folds the cells a column has seen into its [`ColumnType`]: the rule is in
//!   [`column`](mod@column)'s docs (one kind gives its type, two kinds give text).
//! - [`Batcher`] takes rows in byte form, lets the first rows decide the schema, and cuts
//!   record batches; a later value that its column's type cannot hold is an
//!   [`ErrorKind::Misfit`], never a silent change.
//!
//! ```
//! use ndq_arrow::{Batcher, encode_row};
//! use ndq_query::Value;
//!
//! let names = ["t".to_string(), "elapsed".to_string()];
//! let mut batcher = Batcher::new(&names);
//! let mut bytes = Vec::new();
//! encode_row(&[Value::RawString("2026-11-21T10:00:00Z".into()), Value::RawNumber("1.50".into())], &mut bytes);
//! encode_row(&[Value::Null, Value::RawNumber("-12.125".into())], &mut bytes);
//! let mut rest = &bytes[..];
//! while let Some((row, after)) = ndq_arrow::cell::split_row(rest) {
//!     batcher.push(row)?;
//!     rest = after;
//! }
//! let (schema, batches) = batcher.finish()?;
//! assert_eq!(schema.field(0).data_type().to_string(), "Timestamp(ns, \"UTC\")");
//! assert_eq!(schema.field(1).data_type().to_string(), "Decimal128(18, 3)");
//! assert_eq!(batches[0].num_rows(), 2);
//! # Ok::<(), ndq_arrow::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(not(test), warn(clippy::unwrap_used))]

pub mod batch;
pub mod cell;
pub mod column;

pub use batch::Batcher;
pub use cell::{Cell, encode_row};
pub use column::{ColumnType, Kinds};

/// Why rows could not become batches.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A value its column's type cannot hold exactly (text in a number column, a number
    /// with more decimals than the column's scale, ...).
    Misfit {
        /// The column's name.
        column: String,
        /// The row's number, from 1.
        row: u64,
        /// The value, for a person (`the value 1.5`, `the text "7"`).
        value: String,
        /// The column's type.
        column_type: ColumnType,
        /// How many rows decided the types.
        sample: usize,
    },
    /// Bytes that are not rows written by [`encode_row`] for these columns.
    Corrupt,
    /// Arrow refused a batch.
    Arrow(arrow_schema::ArrowError),
}

impl Error {
    fn new(kind: ErrorKind) -> Error {
        Error { kind }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ErrorKind::Misfit {
                column,
                row,
                value,
                column_type,
                sample,
            } => {
                write!(
                    f,
                    "row {row}, column '{column}': {value} does not fit the \
                     column's type {column_type}, which the first {sample} rows gave it \
                     (write tostring(...) to have the column as text)"
                )
            }
            ErrorKind::Corrupt => f.write_str("rows in a form the batcher does not read"),
            ErrorKind::Arrow(e) => write!(f, "building a record batch: {e}"),
        }
    }
}

impl std::error::Error for Error {}
