//! The Parquet writer of `-o parquet`: its properties, chosen for files other tools read
//! (DuckDB, Spark, pandas): snappy pages, row groups of 131,072 rows (DuckDB reads row
//! groups in parallel and skips them by their statistics; its own are 122,880 rows),
//! dictionary encoding where it pays (arrow-rs falls back to plain pages by itself), and
//! the Arrow schema kept in the metadata so Arrow readers get the same types back.

use std::io;

use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::Spool;

/// Rows per row group.
pub const ROW_GROUP_ROWS: usize = 1 << 17;

/// A Parquet writer of batches with `schema` into `spool`.
pub fn writer(spool: Spool, schema: SchemaRef) -> io::Result<ArrowWriter<Spool>> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_created_by(format!("ndq version {}", env!("CARGO_PKG_VERSION")))
        .build();
    ArrowWriter::try_new(spool, schema, Some(props)).map_err(io::Error::other)
}
