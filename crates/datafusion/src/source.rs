//! The ndq scan as a DataFusion file source: [`NdjsonSource`], in a `FileScanConfig` under a
//! `DataSourceExec`, opens each byte range of a file (a `PartitionedFile`) and streams its
//! lines as record batches read with ndq's scanner.
//!
//! A range `[start, end)` reads the lines that start in it (the line that straddles `end` in
//! full), as DataFusion's own NDJSON opener does: so the ranges of a file, cut anywhere (by
//! the table, by DataFusion's repartitioning, or sliced per task by a Ballista scheduler),
//! read every line once.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{
    FileOpenFuture, FileOpener, FileScanConfig, FileSource,
};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::ObjectStore;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::projection::ProjectionExprs;
use datafusion::physical_plan::DisplayFormatType;
use datafusion::physical_plan::metrics::{Count, ExecutionPlanMetricsSet, MetricBuilder};
use futures::StreamExt;
use ndq_scan::{Parser, Scanner, Value};

use crate::column::{Builder, Typed, convert};
use crate::{Plan, ScanSpec, lines};

/// The rows of a batch when the session gives no batch size.
const BATCH: usize = 8192;

/// The file source of an [`NdjsonTable`](crate::NdjsonTable)'s scan: reads, of each line, the
/// keys of the projected columns and of the pushed-down comparisons, and leaves out the lines
/// a comparison rejects.
///
/// Metrics (of the `DataSourceExec`, beside DataFusion's own): `bad_lines` (malformed lines,
/// skipped), `mismatched_values` (values of another type than their column's, read as null)
/// and `filtered_lines` (lines left out by a pushed-down comparison).
#[derive(Clone, Debug)]
pub struct NdjsonSource {
    spec: ScanSpec,
    plan: Arc<Plan>,
    table_schema: TableSchema,
    /// The output columns, as DataFusion's projection of the table's schema.
    projection: ProjectionExprs,
    /// The output schema.
    schema: SchemaRef,
    batch_size: Option<usize>,
    metrics: ExecutionPlanMetricsSet,
}

impl NdjsonSource {
    /// The source `spec` describes; fails on a column type the scan cannot produce, a
    /// projection out of range, or a filter the scan cannot check.
    pub(crate) fn try_new(spec: ScanSpec) -> Result<NdjsonSource> {
        let plan = Plan::new(&spec)?;
        let schema = Arc::new(spec.table_schema.project(&spec.projection)?);
        let projection = ProjectionExprs::from_indices(&spec.projection, &spec.table_schema);
        Ok(NdjsonSource {
            table_schema: TableSchema::from(Arc::clone(&spec.table_schema)),
            spec,
            plan: Arc::new(plan),
            projection,
            schema,
            batch_size: None,
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }

    /// What this source is made of.
    pub(crate) fn spec(&self) -> &ScanSpec {
        &self.spec
    }
}

impl FileSource for NdjsonSource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let counter = |name| MetricBuilder::new(&self.metrics).counter(name, partition);
        Ok(Arc::new(NdjsonOpener {
            store: object_store,
            store_url: base_config.object_store_url.to_string(),
            plan: Arc::clone(&self.plan),
            schema: Arc::clone(&self.schema),
            batch_size: self.batch_size.unwrap_or(BATCH).max(1),
            metrics: FileMetrics {
                bad_lines: counter("bad_lines"),
                mismatched: counter("mismatched_values"),
                filtered: counter("filtered_lines"),
            },
        }))
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        let mut source = self.clone();
        source.batch_size = Some(batch_size);
        Arc::new(source)
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "ndq"
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        if let DisplayFormatType::TreeRender = t {
            return Ok(());
        }
        let keys: Vec<&str> = self.plan.keys.iter().collect();
        write!(
            f,
            ", keys={keys:?}, pushed_filters={}",
            self.plan.predicates.len()
        )
    }

    /// Takes a projection of plain columns, kept under their names (the scan builds those
    /// columns only); anything else stays a projection after the scan.
    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let fields = self.spec.table_schema.fields();
        let mut columns = Vec::new();
        for p in projection.iter() {
            let Some(column) = p.expr.downcast_ref::<Column>() else {
                return Ok(None);
            };
            let Some(&i) = self.spec.projection.get(column.index()) else {
                return Ok(None);
            };
            if p.alias != *fields[i].name() || columns.contains(&i) {
                return Ok(None);
            }
            columns.push(i);
        }
        let spec = ScanSpec {
            projection: columns,
            ..self.spec.clone()
        };
        let mut source = NdjsonSource::try_new(spec)?;
        source.batch_size = self.batch_size;
        Ok(Some(Arc::new(source)))
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        for p in self.projection.iter() {
            if matches!(f(&p.expr)?, TreeNodeRecursion::Stop) {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    }
}

/// One partition's counters.
#[derive(Clone)]
struct FileMetrics {
    bad_lines: Count,
    mismatched: Count,
    filtered: Count,
}

/// Opens the byte ranges of one partition's files.
struct NdjsonOpener {
    store: Arc<dyn ObjectStore>,
    /// The store's URL, for messages.
    store_url: String,
    plan: Arc<Plan>,
    schema: SchemaRef,
    batch_size: usize,
    metrics: FileMetrics,
}

impl FileOpener for NdjsonOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let location = file.object_meta.location.clone();
        let name = format!("{}{location}", self.store_url);
        let (start, end) = match &file.range {
            None => (0, file.object_meta.size),
            Some(r) => match (u64::try_from(r.start), u64::try_from(r.end)) {
                (Ok(start), Ok(end)) => (start, end),
                _ => {
                    return Err(DataFusionError::Internal(format!(
                        "{name}: byte range {}..{}",
                        r.start, r.end
                    )));
                }
            },
        };
        let store = Arc::clone(&self.store);
        let mut reader = FileReader {
            name,
            lines: None,
            parser: Parser::new(Scanner::detect()),
            plan: Arc::clone(&self.plan),
            schema: Arc::clone(&self.schema),
            batch_size: self.batch_size,
            left: self.plan.limit,
            metrics: self.metrics.clone(),
            values: Vec::new(),
        };
        Ok(Box::pin(async move {
            // An empty range holds no line's start.
            if start < end {
                let lines = lines::Lines::open_object(store, location, start, end).await;
                reader.lines = Some(lines.map_err(|e| reader.error(e))?);
            }
            // One batch at a time; after an error, nothing more.
            let batches = futures::stream::unfold(Some(reader), |reader| async move {
                let mut reader = reader?;
                match reader.next_batch().await {
                    Ok(Some(batch)) => Some((Ok(batch), Some(reader))),
                    Ok(None) => None,
                    Err(e) => Some((Err(e), None)),
                }
            });
            Ok(batches.boxed())
        }))
    }
}

/// The scan of one byte range, a batch at a time.
struct FileReader {
    /// The file's URL, for messages.
    name: String,
    /// `None` once the range is read.
    lines: Option<lines::Lines>,
    parser: Parser,
    plan: Arc<Plan>,
    schema: SchemaRef,
    batch_size: usize,
    /// Rows still wanted, under a limit.
    left: Option<usize>,
    metrics: FileMetrics,
    /// The current line's values, one per column read.
    values: Vec<Option<Typed>>,
}

impl FileReader {
    /// An I/O error while reading the file, as the query's error.
    fn error(&self, e: std::io::Error) -> DataFusionError {
        DataFusionError::External(format!("{}: {e}", self.name).into())
    }

    async fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
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
            let Some(lines) = &mut self.lines else {
                break;
            };
            let line = match lines.step() {
                lines::Step::Line(a, b) => lines.line(a, b),
                lines::Step::More => {
                    if let Err(e) = lines.fill().await {
                        return Err(self.error(e));
                    }
                    continue;
                }
                lines::Step::End => {
                    self.lines = None;
                    break;
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
        Ok(Some(batch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::arrow::util::pretty::pretty_format_batches;
    use datafusion::datasource::physical_plan::{FileGroup, FileScanConfigBuilder};
    use datafusion::datasource::source::DataSourceExec;
    use datafusion::execution::object_store::ObjectStoreUrl;
    use datafusion::object_store::path::Path as ObjectPath;
    use datafusion::physical_plan::{ExecutionPlan, collect_partitioned};
    use datafusion::prelude::SessionContext;

    /// Lines of several lengths, a blank one, a malformed one, a `\r\n`, and a last line
    /// without its `\n`.
    const TEXT: &[u8] = b"{\"@l\":\"a\",\"n\":1}\n\n{\"@l\":\"bb\",\"n\":22}\r\n{oops\n\
        {\"n\":333}\n{\"@l\":\"dddd\"}\n{\"@l\":\"e\",\"n\":5}";

    /// A scan of the local file `path` whose partitions are the ranges `cuts` makes.
    fn scan(path: &std::path::Path, len: u64, cuts: &[u64]) -> Arc<dyn ExecutionPlan> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("@l", DataType::Utf8, true),
            Field::new("n", DataType::Int64, true),
        ]));
        let spec = ScanSpec {
            table_schema: schema,
            projection: vec![0, 1],
            filters: Vec::new(),
            limit: None,
        };
        let source = Arc::new(NdjsonSource::try_new(spec).unwrap());
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        bounds.push(len);
        let groups = bounds
            .windows(2)
            .map(|w| {
                let mut file = PartitionedFile::new("", len).with_range(w[0] as i64, w[1] as i64);
                file.object_meta.location = ObjectPath::from_absolute_path(path).unwrap();
                FileGroup::new(vec![file])
            })
            .collect();
        let config = FileScanConfigBuilder::new(ObjectStoreUrl::local_filesystem(), source)
            .with_file_groups(groups)
            .build();
        DataSourceExec::from_data_source(config)
    }

    /// The rows of every partition of `plan`, in partition order, as text.
    async fn rows(ctx: &SessionContext, plan: Arc<dyn ExecutionPlan>) -> Vec<String> {
        let parts = collect_partitioned(plan, ctx.task_ctx()).await.unwrap();
        let mut out = Vec::new();
        for batch in parts.iter().flatten() {
            let text = pretty_format_batches(std::slice::from_ref(batch))
                .unwrap()
                .to_string();
            // The rows, after the header's three lines, without the padding (which depends
            // on the batch).
            out.extend(
                text.lines()
                    .skip(3)
                    .filter(|l| l.starts_with('|'))
                    .map(|l| l.split_whitespace().collect::<String>()),
            );
        }
        // Partitions may take each other's ranges (DataFusion's work stealing): the order of
        // the rows is not the file's.
        out.sort();
        out
    }

    /// Cutting a file at every byte offset into two ranges, and into three at every offset
    /// and every short distance after it, gives each line once: the same rows as the whole
    /// file.
    #[tokio::test]
    async fn ranges_cut_at_every_offset_give_each_line_once() {
        let dir = std::env::temp_dir().join(format!("ndq-df-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = std::path::absolute(dir.join("f.ndjson")).unwrap();
        std::fs::write(&path, TEXT).unwrap();
        let len = TEXT.len() as u64;
        let ctx = SessionContext::new();
        let whole = rows(&ctx, scan(&path, len, &[])).await;
        assert_eq!(whole.len(), 5, "{whole:?}");
        for one in 0..=len {
            let got = rows(&ctx, scan(&path, len, &[one])).await;
            assert_eq!(got, whole, "cut at {one}");
            // A middle range of every length up to a little more than the longest line,
            // then one reaching the end: every way a range can sit among the lines.
            for two in (one..=len.min(one + 24)).chain([len]) {
                let got = rows(&ctx, scan(&path, len, &[one, two])).await;
                assert_eq!(got, whole, "cuts at {one}, {two}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
