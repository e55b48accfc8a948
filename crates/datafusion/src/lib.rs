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
mod store;

pub use infer::Inference;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::object_store::path::Path as ObjectPath;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{
    BaselineMetrics, Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet,
};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    ReplaceChildrenOptions, SendableRecordBatchStream,
};
use ndq_scan::{KeySet, Parser, Scanner, Value};

use column::{Builder, Kind, Predicate, Typed, convert};

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
                start: 0,
                end: *len,
            })
            .collect();
        for url in &self.urls {
            for o in store::list(state, url).await? {
                files.push(FileRange {
                    store: Some(o.store.into()),
                    path: Arc::new(PathBuf::from(o.location)),
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
        let n = state.config().target_partitions();
        // A Ballista cluster runs the scan as one task: see `ballista::one_task_scans`.
        #[cfg(feature = "ballista")]
        let n = if ballista::one_task_scans(state.config()) {
            1
        } else {
            n
        };
        let files = self.list(state).await?;
        let partitions = partitions(&files, n);
        Ok(Arc::new(NdjsonExec::try_new(ScanSpec {
            table_schema: Arc::clone(&self.schema),
            projection,
            filters: pushed,
            limit,
            partitions,
        })?))
    }
}

/// Everything a scan is made of, in plain values: what the Ballista codecs carry to an
/// executor, which rebuilds the scan from it.
#[derive(Clone, Debug)]
pub(crate) struct ScanSpec {
    /// The table's schema (all its columns).
    pub(crate) table_schema: SchemaRef,
    /// The output columns, as indices into `table_schema`.
    pub(crate) projection: Vec<usize>,
    /// The comparisons checked on each line (each one [`Predicate::from_expr`] accepts).
    pub(crate) filters: Vec<Expr>,
    pub(crate) limit: Option<usize>,
    /// Each partition's byte ranges.
    pub(crate) partitions: Vec<Vec<FileRange>>,
}

impl Plan {
    fn new(spec: &ScanSpec) -> Result<Plan> {
        let schema = &spec.table_schema;
        let kinds = kinds(schema)?;
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        if let Some(&bad) = spec.projection.iter().find(|&&i| i >= kinds.len()) {
            return Err(DataFusionError::Plan(format!(
                "NdjsonExec: projected column {bad} of {}",
                kinds.len()
            )));
        }
        let predicates = spec
            .filters
            .iter()
            .map(|f| {
                Predicate::from_expr(f, &names, &kinds).ok_or_else(|| {
                    DataFusionError::Plan(format!("NdjsonExec: cannot check filter {f}"))
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

/// Lines of one file that start in `start..end`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FileRange {
    /// `None` for a local file; else the URL of the object store that holds it, as DataFusion
    /// writes an `ObjectStoreUrl` (`s3://bucket/`, `file:///`), found in the registry of the
    /// session that runs the scan.
    pub(crate) store: Option<Arc<str>>,
    /// The local file's path, or the object's location in its store.
    pub(crate) path: Arc<PathBuf>,
    pub(crate) start: u64,
    pub(crate) end: u64,
}

impl FileRange {
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

/// What every partition of a scan does to a line.
#[derive(Debug)]
struct Plan {
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

/// The scan of an [`NdjsonTable`]: each partition reads its byte ranges with ndq's scanner.
///
/// Metrics: `output_rows`, `bad_lines` (malformed lines, skipped), `mismatched_values` (values
/// of another type than their column's, read as null) and `filtered_lines` (lines left out by
/// a pushed-down comparison).
#[derive(Debug)]
pub struct NdjsonExec {
    spec: ScanSpec,
    schema: SchemaRef,
    plan: Arc<Plan>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl NdjsonExec {
    /// The scan `spec` describes; fails on a column type the scan cannot produce, a
    /// projection out of range, or a filter the scan cannot check.
    pub(crate) fn try_new(spec: ScanSpec) -> Result<NdjsonExec> {
        let plan = Plan::new(&spec)?;
        let schema = Arc::new(spec.table_schema.project(&spec.projection)?);
        let properties = PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(spec.partitions.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Ok(NdjsonExec {
            spec,
            schema,
            plan: Arc::new(plan),
            properties: Arc::new(properties),
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }

    /// What this scan is made of.
    #[cfg_attr(not(feature = "ballista"), allow(dead_code))]
    pub(crate) fn spec(&self) -> &ScanSpec {
        &self.spec
    }
}

impl DisplayAs for NdjsonExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        if let DisplayFormatType::TreeRender = t {
            return write!(f, "partitions={}", self.spec.partitions.len());
        }
        let ranges: usize = self.spec.partitions.iter().map(Vec::len).sum();
        let keys: Vec<&str> = self.plan.keys.iter().collect();
        write!(
            f,
            "NdjsonExec: partitions={}, ranges={ranges}, keys={keys:?}, pushed_filters={}",
            self.spec.partitions.len(),
            self.plan.predicates.len()
        )
    }
}

impl ExecutionPlan for NdjsonExec {
    fn name(&self) -> &'static str {
        "NdjsonExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn replace_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
        _options: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let ranges = self
            .spec
            .partitions
            .get(partition)
            .cloned()
            .ok_or_else(|| {
                DataFusionError::Internal(format!("NdjsonExec has no partition {partition}"))
            })?;
        let metrics = PartitionMetrics {
            baseline: BaselineMetrics::new(&self.metrics, partition),
            bad_lines: MetricBuilder::new(&self.metrics).counter("bad_lines", partition),
            mismatched: MetricBuilder::new(&self.metrics).counter("mismatched_values", partition),
            filtered: MetricBuilder::new(&self.metrics).counter("filtered_lines", partition),
        };
        let reader = PartitionReader {
            ranges: ranges.into_iter(),
            runtime: context.runtime_env(),
            lines: None,
            current: None,
            parser: Parser::new(Scanner::detect()),
            plan: Arc::clone(&self.plan),
            schema: Arc::clone(&self.schema),
            batch_size: context.session_config().batch_size(),
            left: self.plan.limit,
            metrics,
            values: Vec::new(),
        };
        // One batch at a time; after an error, nothing more.
        let batches = futures::stream::unfold(Some(reader), |reader| async move {
            let mut reader = reader?;
            match reader.next_batch().await {
                Ok(Some(batch)) => Some((Ok(batch), Some(reader))),
                Ok(None) => {
                    reader.metrics.baseline.done();
                    None
                }
                Err(e) => Some((Err(e), None)),
            }
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            batches,
        )))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}

struct PartitionMetrics {
    baseline: BaselineMetrics,
    bad_lines: Count,
    mismatched: Count,
    filtered: Count,
}

/// One partition's scan, a batch at a time.
struct PartitionReader {
    ranges: std::vec::IntoIter<FileRange>,
    /// The session's object stores.
    runtime: Arc<RuntimeEnv>,
    lines: Option<lines::Lines>,
    /// The range `lines` reads.
    current: Option<FileRange>,
    parser: Parser,
    plan: Arc<Plan>,
    schema: SchemaRef,
    batch_size: usize,
    /// Rows still wanted, under a limit.
    left: Option<usize>,
    metrics: PartitionMetrics,
    /// The current line's values, one per column read.
    values: Vec<Option<Typed>>,
}

impl PartitionReader {
    async fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        // `elapsed_compute` leaves out the reads (of a file, or from an object store).
        let time = self.metrics.baseline.elapsed_compute().clone();
        let mut timer = time.timer();
        let plan = Arc::clone(&self.plan);
        let want = match self.left {
            Some(0) => return Ok(None),
            Some(left) => left.min(self.batch_size),
            None => self.batch_size,
        };
        let mut builders: Vec<Builder> = plan.columns[..plan.projected]
            .iter()
            .map(|(f, k)| Builder::new(f, *k, want))
            .collect();
        let mut rows = 0;
        let (mut bad, mut mismatched, mut filtered) = (0, 0, 0);
        'lines: while rows < want {
            let lines = match &mut self.lines {
                Some(l) => l,
                None => match self.ranges.next() {
                    Some(r) => {
                        timer.stop();
                        let opened = r.open(&self.runtime).await?;
                        timer.restart();
                        self.current = Some(r);
                        self.lines.insert(opened)
                    }
                    None => break,
                },
            };
            let line = match lines.step() {
                lines::Step::Line(a, b) => lines.line(a, b),
                lines::Step::More => {
                    timer.stop();
                    let filled = lines.fill().await;
                    timer.restart();
                    if let Err(e) = filled {
                        return Err(match &self.current {
                            Some(r) => r.error(e),
                            None => DataFusionError::IoError(e),
                        });
                    }
                    continue;
                }
                lines::Step::End => {
                    self.lines = None;
                    continue;
                }
            };
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Ok(doc) = self.parser.parse_until(line, &plan.keys) else {
                bad += 1;
                continue;
            };
            self.values.clear();
            let root = doc.root();
            for (i, path) in plan.paths.iter().enumerate() {
                let top = match doc.wanted(&plan.keys, plan.tops[i]) {
                    Some(v) => v,
                    None => root.get(&path[0]),
                };
                let v = path[1..].iter().try_fold(top, |v, key| match v {
                    Some(Value::Object(o)) => Some(o.get(key)),
                    _ => None,
                });
                let typed = match v.flatten() {
                    None => None,
                    Some(v) => convert(plan.columns[i].1, v).unwrap_or_else(|()| {
                        mismatched += 1;
                        None
                    }),
                };
                self.values.push(typed);
            }
            for (at, p) in &plan.predicates {
                if !p.keeps(self.values[*at].as_ref()) {
                    filtered += 1;
                    continue 'lines;
                }
            }
            for (b, v) in builders.iter_mut().zip(self.values.drain(..)) {
                b.append(v);
            }
            rows += 1;
        }
        self.metrics.bad_lines.add(bad);
        self.metrics.mismatched.add(mismatched);
        self.metrics.filtered.add(filtered);
        if let Some(left) = &mut self.left {
            *left -= rows;
        }
        if rows == 0 {
            return Ok(None);
        }
        let arrays = builders
            .iter_mut()
            .map(Builder::finish)
            .collect::<Result<Vec<ArrayRef>>>()?;
        let batch = RecordBatch::try_new_with_options(
            Arc::clone(&self.schema),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        self.metrics.baseline.record_output(rows);
        Ok(Some(batch))
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
