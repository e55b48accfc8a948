//! ndq's sparse NDJSON scanner as an Apache DataFusion table: a [`TableProvider`] over files of
//! log lines (local paths, or URLs in the session's object stores), with a schema given by the
//! user or inferred from a sample ([`Inference`]), whose scan reads only the keys a query
//! needs.
//!
//! ```no_run
//! use std::sync::Arc;
//! use datafusion::arrow::datatypes::{DataType, Field, Schema};
//! use datafusion::prelude::SessionContext;
//! use ndq_datafusion::NdjsonTable;
//!
//! # async fn run() -> datafusion::common::Result<()> {
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("@l", DataType::Utf8, true),
//!     Field::new("Elapsed", DataType::Decimal128(18, 4), true),
//!     Field::new("Properties.User.Name", DataType::Utf8, true),
//! ]));
//! let ctx = SessionContext::new();
//! ctx.register_table("logs", Arc::new(NdjsonTable::try_new(["/var/log/app"], schema)?))?;
//! ctx.sql(r#"select "@l", count(*) from logs where "Elapsed" > 200 group by "@l""#)
//!     .await?
//!     .show()
//!     .await?;
//! # Ok(())
//! # }
//! ```
//!
//! The rules (types, nested paths, inference, object stores, malformed lines, filters) are in
//! the crate's README.
#![forbid(unsafe_code)]

#[cfg(feature = "ballista")]
pub mod ballista;
mod column;
mod infer;
mod lines;
mod source;
mod store;

pub use infer::Inference;
pub use source::NdjsonSource;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileGroup, FileScanConfigBuilder};
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::object_store::path::Path as ObjectPath;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::union::UnionExec;
use ndq_scan::KeySet;

use column::{Kind, Predicate};

/// Below this many bytes a range is not split further: a partition has at least this much
/// to read (or a whole small file).
const MIN_RANGE: u64 = 1 << 20;

/// A table of NDJSON log files read with ndq's scanner.
///
/// Each field of the schema is a column; its name is the path of the value in each line, keys
/// separated by `.` (`Properties.User.Name` reads `{"Properties":{"User":{"Name":…}}}`).
///
/// The files are local paths, read directly, or URLs (`s3://bucket/logs/`, `file:///…`) read
/// through the object stores of the session that runs the query.
#[derive(Debug)]
pub struct NdjsonTable {
    /// The local files, listed when the table is made.
    files: Vec<(PathBuf, u64)>,
    /// The inputs that are URLs, listed through the session's object stores at each scan.
    urls: Vec<String>,
    schema: SchemaRef,
    kinds: Vec<Kind>,
    names: Vec<String>,
}

impl NdjsonTable {
    /// A table over `paths`: files, or directories whose regular files (not starting with `.`,
    /// not in subdirectories) are all read, in name order. A path that starts with a scheme
    /// and `://` is a URL in one of the session's object stores, naming an object or else a
    /// prefix read as a directory; URLs are listed when a query is planned, local paths now.
    /// Fails on a type the scan cannot produce, or a local path that cannot be read.
    pub fn try_new<I, P>(paths: I, schema: SchemaRef) -> Result<NdjsonTable>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let mut files = Vec::new();
        let mut urls = Vec::new();
        for path in paths {
            let path = path.as_ref();
            if let Some(url) = path.to_str().filter(|p| store::is_url(p)) {
                urls.push(url.to_owned());
                continue;
            }
            let meta = std::fs::metadata(path).map_err(|e| io_error(path, e))?;
            if meta.is_dir() {
                let mut found = Vec::new();
                for entry in std::fs::read_dir(path).map_err(|e| io_error(path, e))? {
                    let entry = entry.map_err(|e| io_error(path, e))?;
                    let hidden = entry.file_name().to_string_lossy().starts_with('.');
                    let meta = std::fs::metadata(entry.path()).map_err(|e| io_error(path, e))?;
                    if meta.is_file() && !hidden {
                        found.push((entry.path(), meta.len()));
                    }
                }
                found.sort();
                files.extend(found);
            } else {
                files.push((path.to_path_buf(), meta.len()));
            }
        }
        NdjsonTable::from_parts(files, urls, schema)
    }

    /// A table over local `files` (path, length in bytes) as they were listed and `urls`,
    /// without reading them.
    pub(crate) fn from_parts(
        files: Vec<(PathBuf, u64)>,
        urls: Vec<String>,
        schema: SchemaRef,
    ) -> Result<NdjsonTable> {
        let mut table = NdjsonTable {
            files,
            urls,
            schema: Arc::new(datafusion::arrow::datatypes::Schema::empty()),
            kinds: Vec::new(),
            names: Vec::new(),
        };
        table.set_schema(schema)?;
        Ok(table)
    }

    /// The local files read, with their lengths, in order.
    #[cfg_attr(not(feature = "ballista"), allow(dead_code))]
    pub(crate) fn files(&self) -> &[(PathBuf, u64)] {
        &self.files
    }

    /// The inputs that are URLs, as given.
    #[cfg_attr(not(feature = "ballista"), allow(dead_code))]
    pub(crate) fn urls(&self) -> &[String] {
        &self.urls
    }

    /// A table over `paths` (as [`NdjsonTable::try_new`] takes them) whose schema is inferred
    /// from the first lines of its first files, by [`Inference::new`]'s rules (the crate's
    /// README lists them). URLs are read through the object stores of `state`
    /// (`SessionContext::state()`).
    pub async fn infer<I, P>(state: &dyn Session, paths: I) -> Result<NdjsonTable>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        Inference::new().table(state, paths).await
    }

    fn set_schema(&mut self, schema: SchemaRef) -> Result<()> {
        self.kinds = kinds(&schema)?;
        self.names = schema.fields().iter().map(|f| f.name().clone()).collect();
        self.schema = schema;
        Ok(())
    }

    /// Every file of the table with its length: the local ones, then the objects the URLs
    /// name in the session's stores.
    async fn list(&self, state: &dyn Session) -> Result<Vec<FileRange>> {
        let mut files: Vec<FileRange> = self
            .files
            .iter()
            .map(|(path, len)| FileRange {
                store: None,
                path: Arc::new(path.clone()),
                len: *len,
                start: 0,
                end: *len,
            })
            .collect();
        for url in &self.urls {
            for o in store::list(state, url).await? {
                files.push(FileRange {
                    store: Some(o.store.into()),
                    path: Arc::new(PathBuf::from(o.location)),
                    len: o.len,
                    start: 0,
                    end: o.len,
                });
            }
        }
        Ok(files)
    }
}

/// Each column's kind; fails on a type the scan cannot produce.
fn kinds(schema: &SchemaRef) -> Result<Vec<Kind>> {
    schema.fields().iter().map(|f| Kind::of(f)).collect()
}

/// Cut whole `files` (ranges from 0 to their lengths) into at most `n` partitions of about
/// equal bytes, each a list of ranges.
fn partitions(files: &[FileRange], n: usize) -> Vec<Vec<FileRange>> {
    let total: u64 = files.iter().map(|f| f.end).sum();
    let share = total.div_ceil(n.max(1) as u64).max(MIN_RANGE);
    let mut parts = vec![Vec::new()];
    let mut room = share;
    for file in files {
        let len = file.end;
        let mut at = 0;
        while at < len {
            if room == 0 {
                parts.push(Vec::new());
                room = share;
            }
            let take = room.min(len - at);
            if let Some(part) = parts.last_mut() {
                part.push(FileRange {
                    start: at,
                    end: at + take,
                    ..file.clone()
                });
            }
            at += take;
            room -= take;
        }
    }
    parts
}

fn to_i64(v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|e| DataFusionError::External(Box::new(e)))
}

fn io_error(path: &Path, e: std::io::Error) -> DataFusionError {
    DataFusionError::External(format!("{}: {e}", path.display()).into())
}

#[async_trait]
impl TableProvider for NdjsonTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(
                |f| match Predicate::from_expr(f, &self.names, &self.kinds) {
                    // DataFusion still applies the filter after the scan.
                    Some(_) => TableProviderFilterPushDown::Inexact,
                    None => TableProviderFilterPushDown::Unsupported,
                },
            )
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let projection: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..self.schema.fields().len()).collect(),
        };
        // The filters the scan checks itself; DataFusion applies all of them again.
        let pushed: Vec<Expr> = filters
            .iter()
            .filter(|f| Predicate::from_expr(f, &self.names, &self.kinds).is_some())
            .cloned()
            .collect();
        let spec = ScanSpec {
            table_schema: Arc::clone(&self.schema),
            projection,
            filters: pushed,
            limit,
        };
        let files = self.list(state).await?;
        scan_plan(spec, &files, state.config().target_partitions())
    }
}

/// The scan of `files` by `spec`: a `DataSourceExec` over a `FileScanConfig` whose source is
/// an [`NdjsonSource`], its files cut into about `n` partitions of byte ranges (DataFusion's
/// own file scans, so that a Ballista scheduler gives each task its share of them). Files of
/// several object stores (local files are in `file:///`) make one such scan a store, in a
/// union.
pub(crate) fn scan_plan(
    spec: ScanSpec,
    files: &[FileRange],
    n: usize,
) -> Result<Arc<dyn ExecutionPlan>> {
    let source = Arc::new(NdjsonSource::try_new(spec)?);
    // The stores in the order their first file comes.
    let mut stores: Vec<Option<&Arc<str>>> = Vec::new();
    for f in files {
        if !stores.contains(&f.store.as_ref()) {
            stores.push(f.store.as_ref());
        }
    }
    if stores.is_empty() {
        stores.push(None);
    }
    let mut scans: Vec<Arc<dyn ExecutionPlan>> = Vec::new();
    for store in stores {
        let mine: Vec<FileRange> = files
            .iter()
            .filter(|f| f.store.as_ref() == store)
            .cloned()
            .collect();
        let url = match store {
            None => ObjectStoreUrl::local_filesystem(),
            Some(url) => ObjectStoreUrl::parse(url)?,
        };
        let groups = partitions(&mine, n)
            .into_iter()
            .map(|ranges| {
                ranges
                    .iter()
                    .map(FileRange::partitioned_file)
                    .collect::<Result<Vec<_>>>()
                    .map(FileGroup::new)
            })
            .collect::<Result<Vec<_>>>()?;
        let config = FileScanConfigBuilder::new(url, Arc::clone(&source) as _)
            .with_file_groups(groups)
            .with_limit(source.spec().limit)
            .build();
        scans.push(DataSourceExec::from_data_source(config));
    }
    UnionExec::try_new(scans)
}

/// What the ndq source of a scan is made of, in plain values: what the Ballista codecs carry
/// to an executor, which rebuilds the source from it (the files travel in the scan's
/// `FileScanConfig`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ScanSpec {
    /// The table's schema (all its columns).
    pub(crate) table_schema: SchemaRef,
    /// The output columns, as indices into `table_schema`.
    pub(crate) projection: Vec<usize>,
    /// The comparisons checked on each line (each one [`Predicate::from_expr`] accepts).
    pub(crate) filters: Vec<Expr>,
    pub(crate) limit: Option<usize>,
}

impl Plan {
    fn new(spec: &ScanSpec) -> Result<Plan> {
        let schema = &spec.table_schema;
        let kinds = kinds(schema)?;
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        if let Some(&bad) = spec.projection.iter().find(|&&i| i >= kinds.len()) {
            return Err(DataFusionError::Plan(format!(
                "ndq scan: projected column {bad} of {}",
                kinds.len()
            )));
        }
        let predicates = spec
            .filters
            .iter()
            .map(|f| {
                Predicate::from_expr(f, &names, &kinds).ok_or_else(|| {
                    DataFusionError::Plan(format!("ndq scan: cannot check filter {f}"))
                })
            })
            .collect::<Result<Vec<Predicate>>>()?;
        // The columns the scan converts: the projected ones, then those only a filter reads.
        let mut read = spec.projection.clone();
        for p in &predicates {
            if !read.contains(&p.column) {
                read.push(p.column);
            }
        }
        let paths: Vec<Vec<String>> = read
            .iter()
            .map(|&i| names[i].split('.').map(str::to_owned).collect())
            .collect();
        let keys = KeySet::new(paths.iter().map(|p| p[0].as_str()));
        let tops = paths
            .iter()
            .map(|p| keys.iter().position(|k| k == p[0]).unwrap())
            .collect();
        let predicates = predicates
            .into_iter()
            .map(|p| {
                let at = read.iter().position(|&c| c == p.column).unwrap();
                (at, p)
            })
            .collect();
        let columns = read
            .iter()
            .map(|&i| (Arc::clone(&schema.fields()[i]), kinds[i]))
            .collect();
        Ok(Plan {
            projected: spec.projection.len(),
            columns,
            paths,
            tops,
            keys,
            predicates,
            limit: spec.limit,
        })
    }
}

/// What every partition of a scan does to a line.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The first `projected` of `columns` are output; the rest are read for filters only.
    projected: usize,
    columns: Vec<(Arc<datafusion::arrow::datatypes::Field>, Kind)>,
    /// Each column's path of keys.
    paths: Vec<Vec<String>>,
    /// Each column's top-level key, as an index into `keys`.
    tops: Vec<usize>,
    keys: KeySet,
    /// (index into `columns`, the comparison)
    predicates: Vec<(usize, Predicate)>,
    limit: Option<usize>,
}

/// Lines of one file that start in `start..end`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FileRange {
    /// `None` for a local file; else the URL of the object store that holds it, as DataFusion
    /// writes an `ObjectStoreUrl` (`s3://bucket/`, `file:///`), found in the registry of the
    /// session that runs the scan.
    pub(crate) store: Option<Arc<str>>,
    /// The local file's path, or the object's location in its store.
    pub(crate) path: Arc<PathBuf>,
    /// The whole file's length.
    pub(crate) len: u64,
    pub(crate) start: u64,
    pub(crate) end: u64,
}

impl FileRange {
    /// The range as DataFusion's scans name it: an object in its store (a local file in
    /// `file:///`, by its absolute path), with the byte range.
    fn partitioned_file(&self) -> Result<PartitionedFile> {
        let location = match &self.store {
            None => {
                // Without `..` (not a part of an object's location).
                let path = std::fs::canonicalize(self.path.as_path())
                    .or_else(|_| std::path::absolute(self.path.as_path()))
                    .map_err(|e| self.error(e))?;
                ObjectPath::from_absolute_path(&path)
            }
            Some(_) => ObjectPath::parse(self.path.to_string_lossy()),
        }
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let mut file = PartitionedFile::new("", self.len);
        file.object_meta.location = location;
        file = file.with_range(to_i64(self.start)?, to_i64(self.end)?);
        Ok(file)
    }

    /// The file's name for messages: its path, or its URL.
    fn name(&self) -> String {
        match &self.store {
            None => self.path.display().to_string(),
            Some(store) => format!("{store}{}", self.path.display()),
        }
    }

    /// An I/O error while reading it, as the query's error.
    fn error(&self, e: std::io::Error) -> DataFusionError {
        DataFusionError::External(format!("{}: {e}", self.name()).into())
    }

    /// Its lines, through the store of `runtime` for an object.
    async fn open(&self, runtime: &RuntimeEnv) -> Result<lines::Lines> {
        let io = |e| self.error(e);
        match &self.store {
            None => lines::Lines::open(&self.path, self.start, self.end).map_err(io),
            Some(url) => {
                let store = store::store_of(runtime, url)?;
                let location = self.path.to_str().ok_or_else(|| {
                    DataFusionError::Internal(format!("object location {:?}", self.path))
                })?;
                let location = ObjectPath::parse(location)
                    .map_err(|e| DataFusionError::External(Box::new(e)))?;
                lines::Lines::open_object(store, location, self.start, self.end)
                    .await
                    .map_err(io)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The partitions cover every byte of every file once, in order, about equally.
    #[test]
    fn partitions_cover_the_files_once() {
        let sizes = [5 * MIN_RANGE + 7, 1, 3 * MIN_RANGE, 0, 2 * MIN_RANGE - 1];
        let files: Vec<FileRange> = sizes
            .iter()
            .enumerate()
            .map(|(i, &len)| FileRange {
                store: (i % 2 == 1).then(|| Arc::from("memory:///")),
                path: Arc::new(PathBuf::from(format!("f{i}"))),
                len,
                start: 0,
                end: len,
            })
            .collect();
        for n in [1, 2, 3, 8, 100] {
            let parts = partitions(&files, n);
            assert!(parts.len() <= n.max(1), "{n}: {} partitions", parts.len());
            let ranges: Vec<&FileRange> = parts.iter().flatten().collect();
            for (i, &len) in sizes.iter().enumerate() {
                let mine: Vec<_> = ranges
                    .iter()
                    .filter(|r| r.path.as_os_str() == format!("f{i}").as_str())
                    .collect();
                let mut at = 0;
                for r in &mine {
                    assert_eq!(r.start, at);
                    at = r.end;
                }
                assert_eq!(at, len);
            }
        }
    }
}
