//! ndq's sparse NDJSON scanner as an Apache DataFusion table: a [`TableProvider`] over files of
//! log lines, with a schema given by the user, whose scan reads only the keys a query needs.
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
//! The rules (types, nested paths, malformed lines, filters) are in the crate's README.
#![forbid(unsafe_code)]

#[cfg(feature = "ballista")]
pub mod ballista;
mod column;
mod lines;

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
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
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
#[derive(Debug)]
pub struct NdjsonTable {
    files: Vec<(PathBuf, u64)>,
    schema: SchemaRef,
    kinds: Vec<Kind>,
    names: Vec<String>,
}

impl NdjsonTable {
    /// A table over `paths`: files, or directories whose regular files (not starting with `.`,
    /// not in subdirectories) are all read, in name order. Fails on a type the scan cannot
    /// produce, or a path that cannot be read.
    pub fn try_new<I, P>(paths: I, schema: SchemaRef) -> Result<NdjsonTable>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        kinds(&schema)?;
        let mut files = Vec::new();
        for path in paths {
            let path = path.as_ref();
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
        NdjsonTable::from_files(files, schema)
    }

    /// A table over `files` (path, length in bytes) as they were listed, without reading them.
    pub(crate) fn from_files(files: Vec<(PathBuf, u64)>, schema: SchemaRef) -> Result<NdjsonTable> {
        let kinds = kinds(&schema)?;
        let names = schema.fields().iter().map(|f| f.name().clone()).collect();
        Ok(NdjsonTable {
            files,
            schema,
            kinds,
            names,
        })
    }

    /// The files read, with their lengths, in order.
    #[cfg_attr(not(feature = "ballista"), allow(dead_code))]
    pub(crate) fn files(&self) -> &[(PathBuf, u64)] {
        &self.files
    }

    /// Cut the files into at most `n` partitions of about equal bytes, each a list of ranges.
    fn partitions(&self, n: usize) -> Vec<Vec<FileRange>> {
        let total: u64 = self.files.iter().map(|f| f.1).sum();
        let share = total.div_ceil(n.max(1) as u64).max(MIN_RANGE);
        let mut parts = vec![Vec::new()];
        let mut room = share;
        for (path, len) in &self.files {
            let path = Arc::new(path.clone());
            let mut at = 0;
            while at < *len {
                if room == 0 {
                    parts.push(Vec::new());
                    room = share;
                }
                let take = room.min(len - at);
                parts.last_mut().unwrap().push(FileRange {
                    path: Arc::clone(&path),
                    start: at,
                    end: at + take,
                });
                at += take;
                room -= take;
            }
        }
        parts
    }
}

/// Each column's kind; fails on a type the scan cannot produce.
fn kinds(schema: &SchemaRef) -> Result<Vec<Kind>> {
    schema.fields().iter().map(|f| Kind::of(f)).collect()
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
        let partitions = self.partitions(n);
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
    pub(crate) path: Arc<PathBuf>,
    pub(crate) start: u64,
    pub(crate) end: u64,
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
            lines: None,
            parser: Parser::new(Scanner::detect()),
            plan: Arc::clone(&self.plan),
            schema: Arc::clone(&self.schema),
            batch_size: context.session_config().batch_size(),
            left: self.plan.limit,
            metrics,
            values: Vec::new(),
        };
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            futures::stream::iter(reader),
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
    lines: Option<lines::Lines>,
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
    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
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
                    Some(r) => self.lines.insert(
                        lines::Lines::open(&r.path, r.start, r.end)
                            .map_err(|e| io_error(&r.path, e))?,
                    ),
                    None => break,
                },
            };
            let Some(line) = lines.next().map_err(DataFusionError::IoError)? else {
                self.lines = None;
                continue;
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

impl Iterator for PartitionReader {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let timer = self.metrics.baseline.elapsed_compute().clone();
        let _guard = timer.timer();
        let out = self.next_batch().transpose();
        if out.is_none() {
            self.metrics.baseline.done();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::{DataType, Field, Schema};

    /// The partitions cover every byte of every file once, in order, about equally.
    #[test]
    fn partitions_cover_the_files_once() {
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
        let mut table = NdjsonTable::try_new(Vec::<PathBuf>::new(), schema).unwrap();
        let sizes = [5 * MIN_RANGE + 7, 1, 3 * MIN_RANGE, 0, 2 * MIN_RANGE - 1];
        table.files = sizes
            .iter()
            .enumerate()
            .map(|(i, &len)| (PathBuf::from(format!("f{i}")), len))
            .collect();
        for n in [1, 2, 3, 8, 100] {
            let parts = table.partitions(n);
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
