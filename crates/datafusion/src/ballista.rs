//! Codecs that carry an [`NdjsonTable`] and its scan (a `DataSourceExec` over a
//! `FileScanConfig` whose source is an [`NdjsonSource`]) between the processes of a
//! [Ballista](https://datafusion.apache.org/ballista/) cluster (feature `ballista`).
//!
//! A Ballista client sends its logical plan to the scheduler, which plans the query and sends
//! each stage's physical plan to the executors: both plans are protobuf, and a table or a scan
//! that DataFusion does not know travels as bytes made by the session's extension codecs.
//! [`NdjsonLogicalCodec`] encodes the table (its files, with their lengths, and its schema
//! comes with the plan); [`NdjsonPhysicalCodec`] encodes the scan (the table's schema, the
//! projection, the comparisons checked on each line, the limit, the object store's URL, and
//! each partition's files with their byte ranges). Everything else goes to Ballista's own
//! codecs, which each of ours wraps.
//!
//! The client, the scheduler and every executor must use these codecs: [`with_codecs`] sets
//! them in a `SessionConfig` (for the client, and for a scheduler or executor started
//! in-process from a session state); a scheduler or executor program sets them in its
//! process config (`override_logical_codec`, `override_physical_codec`). Executors read the
//! files by the paths the table was given, so every executor must see them at those paths.
//!
//! The scan is cut into the session's target partitions of byte ranges, as DataFusion's own
//! file scans are: the scheduler gives each task its share of them, so the scan is spread
//! over the executors, each line read once.
//!
//! ```no_run
//! use std::sync::Arc;
//! use ballista::prelude::{SessionConfigExt, SessionContextExt};
//! use datafusion::arrow::datatypes::{DataType, Field, Schema};
//! use datafusion::execution::SessionStateBuilder;
//! use datafusion::prelude::{SessionConfig, SessionContext};
//! use ndq_datafusion::NdjsonTable;
//!
//! # async fn run() -> datafusion::common::Result<()> {
//! let config = ndq_datafusion::ballista::with_codecs(SessionConfig::new_with_ballista());
//! let state = SessionStateBuilder::new()
//!     .with_config(config)
//!     .with_default_features()
//!     .build();
//! let ctx = SessionContext::remote_with_state("df://scheduler:50050", state).await?;
//! let schema = Arc::new(Schema::new(vec![Field::new("@l", DataType::Utf8, true)]));
//! ctx.register_table("logs", Arc::new(NdjsonTable::try_new(["/var/log/app"], schema)?))?;
//! ctx.sql(r#"select "@l", count(*) from logs group by "@l""#)
//!     .await?
//!     .show()
//!     .await?;
//! # Ok(())
//! # }
//! ```

use std::path::PathBuf;
use std::sync::Arc;

use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::common::{DataFusionError, Result, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileGroup, FileScanConfig, FileScanConfigBuilder};
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::execution::{SessionState, SessionStateBuilder, TaskContext};
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
};
use datafusion::object_store::path::Path as ObjectPath;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionConfig;
use datafusion_proto::logical_plan::from_proto::parse_expr;
use datafusion_proto::logical_plan::to_proto::serialize_expr;
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use datafusion_proto::protobuf;
use prost::Message;

use crate::{NdjsonSource, NdjsonTable, ScanSpec};

/// The first bytes of an encoded table: what tells it from the wrapped codec's bytes.
const TABLE_TAG: &[u8] = b"ndq.NdjsonTable/1\0";
/// The first bytes of an encoded scan.
const EXEC_TAG: &[u8] = b"ndq.NdjsonScan/2\0";

/// The `FileScanConfig` and [`NdjsonSource`] of `plan`, if it is an ndq scan: a
/// `DataSourceExec` over a `FileScanConfig` whose source is an [`NdjsonSource`].
pub(crate) fn ndq_scan_of(
    plan: &Arc<dyn ExecutionPlan>,
) -> Option<(&FileScanConfig, &NdjsonSource)> {
    let exec = plan.downcast_ref::<DataSourceExec>()?;
    let config = exec.data_source().downcast_ref::<FileScanConfig>()?;
    let source = config.file_source().downcast_ref::<NdjsonSource>()?;
    Some((config, source))
}

/// `config` with the codecs of this module as its Ballista logical and physical extension
/// codecs, each wrapping Ballista's own.
pub fn with_codecs(config: SessionConfig) -> SessionConfig {
    config
        .with_ballista_logical_extension_codec(Arc::new(NdjsonLogicalCodec::default()))
        .with_ballista_physical_extension_codec(Arc::new(NdjsonPhysicalCodec::default()))
}

/// Starts a Ballista scheduler and `executors` executors (each running `vcores` tasks at once)
/// in this process, on loopback ports the system chooses, all with `state`'s configuration
/// and codecs (give it a config from [`with_codecs`]); returns the scheduler's URL, for
/// `SessionContext::remote_with_state`. They run as tasks of the current Tokio runtime and
/// stop with it. A way to try a cluster on one machine, and to test.
pub async fn start_local_cluster(
    state: &SessionState,
    executors: usize,
    vcores: usize,
) -> Result<String> {
    // Ballista's configuration, if the state lacks it: the scheduler plans with this state.
    let config = state.config().clone().upgrade_for_ballista();
    let state = &SessionStateBuilder::new_from_existing(state.clone())
        .with_config(config)
        .build();
    let addr = ballista_scheduler::standalone::new_standalone_scheduler_from_state(state)
        .await
        .map_err(ballista_error)?;
    let url = format!("http://localhost:{}", addr.port());
    let mut tries = 0;
    let scheduler = loop {
        match SchedulerGrpcClient::connect(url.clone()).await {
            Ok(client) => break client,
            // The server was spawned just now: give it a moment, then give up.
            Err(_) if tries < 50 => {
                tries += 1;
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(e) => return Err(ballista_error(e)),
        }
    };
    for _ in 0..executors {
        ballista_executor::new_standalone_executor_from_state(scheduler.clone(), vcores, state)
            .await
            .map_err(ballista_error)?;
    }
    Ok(format!("df://localhost:{}", addr.port()))
}

fn ballista_error(e: impl std::error::Error + Send + Sync + 'static) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// The logical extension codec: encodes and decodes [`NdjsonTable`]s, and passes everything
/// else to the codec it wraps (by default Ballista's).
#[derive(Debug)]
pub struct NdjsonLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
}

impl NdjsonLogicalCodec {
    /// A codec that passes what is not an ndq table to `inner`.
    pub fn new(inner: Arc<dyn LogicalExtensionCodec>) -> NdjsonLogicalCodec {
        NdjsonLogicalCodec { inner }
    }
}

impl Default for NdjsonLogicalCodec {
    /// Wrapping Ballista's logical codec.
    fn default() -> NdjsonLogicalCodec {
        NdjsonLogicalCodec::new(Arc::new(BallistaLogicalExtensionCodec::default()))
    }
}

/// The physical extension codec: encodes and decodes ndq scans, and passes everything
/// else (Ballista's shuffle stages among them) to the codec it wraps (by default Ballista's).
#[derive(Debug)]
pub struct NdjsonPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl NdjsonPhysicalCodec {
    /// A codec that passes what is not an ndq scan to `inner`.
    pub fn new(inner: Arc<dyn PhysicalExtensionCodec>) -> NdjsonPhysicalCodec {
        NdjsonPhysicalCodec { inner }
    }
}

impl Default for NdjsonPhysicalCodec {
    /// Wrapping Ballista's physical codec.
    fn default() -> NdjsonPhysicalCodec {
        NdjsonPhysicalCodec::new(Arc::new(BallistaPhysicalExtensionCodec::default()))
    }
}

/// An [`NdjsonTable`]: its local files and its URLs. (Its schema travels in the plan.)
#[derive(Clone, PartialEq, Message)]
struct TableProto {
    #[prost(message, repeated, tag = "1")]
    files: Vec<FileProto>,
    #[prost(string, repeated, tag = "2")]
    urls: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct FileProto {
    #[prost(string, tag = "1")]
    path: String,
    #[prost(uint64, tag = "2")]
    len: u64,
}

/// A `DataSourceExec` over a `FileScanConfig` whose source is an [`NdjsonSource`]: the
/// source's [`ScanSpec`], and the config's store, files (with their byte ranges), limit and
/// batch size.
#[derive(Clone, PartialEq, Message)]
struct ScanProto {
    #[prost(message, optional, tag = "1")]
    table_schema: Option<protobuf::Schema>,
    #[prost(uint64, repeated, tag = "2")]
    projection: Vec<u64>,
    #[prost(message, repeated, tag = "3")]
    filters: Vec<protobuf::LogicalExprNode>,
    /// The source's limit (each range's).
    #[prost(uint64, optional, tag = "4")]
    limit: Option<u64>,
    #[prost(message, repeated, tag = "5")]
    partitions: Vec<PartitionProto>,
    /// The object store's URL (`file:///` for local files).
    #[prost(string, tag = "6")]
    store: String,
    /// The scan's limit (all its ranges').
    #[prost(uint64, optional, tag = "7")]
    scan_limit: Option<u64>,
    #[prost(uint64, optional, tag = "8")]
    batch_size: Option<u64>,
}

/// A file group: one partition's ranges.
#[derive(Clone, PartialEq, Message)]
struct PartitionProto {
    #[prost(message, repeated, tag = "1")]
    ranges: Vec<RangeProto>,
}

#[derive(Clone, PartialEq, Message)]
struct RangeProto {
    /// The object's location in the store.
    #[prost(string, tag = "1")]
    path: String,
    /// The object's length.
    #[prost(uint64, tag = "2")]
    len: u64,
    /// The byte range, if not the whole object.
    #[prost(int64, optional, tag = "3")]
    start: Option<i64>,
    #[prost(int64, optional, tag = "4")]
    end: Option<i64>,
}

fn codec_error(what: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Internal(format!("ndq Ballista codec: {what}"))
}

/// A path as text: the codecs carry UTF-8 paths only.
fn path_text(path: &std::path::Path) -> Result<String> {
    path.to_str()
        .map(str::to_owned)
        .ok_or_else(|| codec_error(format!("path {} is not UTF-8", path.display())))
}

/// `tag` and then `message`, appended to `buf`.
fn encode_tagged(tag: &[u8], message: &impl Message, buf: &mut Vec<u8>) -> Result<()> {
    buf.extend_from_slice(tag);
    message.encode(buf).map_err(codec_error)
}

fn to_usize(v: u64) -> Result<usize> {
    usize::try_from(v).map_err(codec_error)
}

impl LogicalExtensionCodec for NdjsonLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let Some(body) = buf.strip_prefix(TABLE_TAG) else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let proto = TableProto::decode(body).map_err(codec_error)?;
        let files = proto
            .files
            .into_iter()
            .map(|f| (PathBuf::from(f.path), f.len))
            .collect();
        Ok(Arc::new(NdjsonTable::from_parts(
            files, proto.urls, schema,
        )?))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let Some(table) = node.downcast_ref::<NdjsonTable>() else {
            return self.inner.try_encode_table_provider(table_ref, node, buf);
        };
        let files = table
            .files()
            .iter()
            .map(|(path, len)| {
                Ok(FileProto {
                    path: path_text(path)?,
                    len: *len,
                })
            })
            .collect::<Result<_>>()?;
        let urls = table.urls().to_vec();
        encode_tagged(TABLE_TAG, &TableProto { files, urls }, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

impl PhysicalExtensionCodec for NdjsonPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(body) = buf.strip_prefix(EXEC_TAG) else {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        };
        let proto = ScanProto::decode(body).map_err(codec_error)?;
        let schema = proto
            .table_schema
            .as_ref()
            .ok_or_else(|| codec_error("scan without a schema"))?;
        let table_schema = Arc::new(Schema::try_from(schema).map_err(codec_error)?);
        // The filters are plain comparisons of a column with a literal: no extension codec.
        let filters = proto
            .filters
            .iter()
            .map(|f| parse_expr(f, ctx, &DefaultLogicalExtensionCodec {}).map_err(codec_error))
            .collect::<Result<_>>()?;
        let spec = ScanSpec {
            table_schema,
            projection: proto
                .projection
                .into_iter()
                .map(to_usize)
                .collect::<Result<_>>()?,
            filters,
            limit: proto.limit.map(to_usize).transpose()?,
        };
        let groups = proto
            .partitions
            .into_iter()
            .map(|p| {
                p.ranges
                    .into_iter()
                    .map(|r| {
                        let mut file = PartitionedFile::new("", r.len);
                        file.object_meta.location =
                            ObjectPath::parse(&r.path).map_err(codec_error)?;
                        if let (Some(start), Some(end)) = (r.start, r.end) {
                            file = file.with_range(start, end);
                        }
                        Ok(file)
                    })
                    .collect::<Result<Vec<_>>>()
                    .map(FileGroup::new)
            })
            .collect::<Result<Vec<_>>>()?;
        let source = Arc::new(NdjsonSource::try_new(spec)?);
        let config = FileScanConfigBuilder::new(ObjectStoreUrl::parse(&proto.store)?, source)
            .with_file_groups(groups)
            .with_limit(proto.scan_limit.map(to_usize).transpose()?)
            .with_batch_size(proto.batch_size.map(to_usize).transpose()?)
            .build();
        Ok(DataSourceExec::from_data_source(config))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let Some((config, source)) = ndq_scan_of(&node) else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        // What the message cannot carry is refused, not dropped.
        if config.file_compression_type.is_compressed()
            || !config.output_ordering.is_empty()
            || config.output_partitioning.is_some()
            || !config.table_partition_cols().is_empty()
        {
            return Err(DataFusionError::NotImplemented(format!(
                "ndq Ballista codec: an ndq scan with compression, an output ordering or \
                 partitioning, or partition columns (over {})",
                config.object_store_url
            )));
        }
        let spec = source.spec();
        let filters = spec
            .filters
            .iter()
            .map(|f| serialize_expr(f, &DefaultLogicalExtensionCodec {}).map_err(codec_error))
            .collect::<Result<_>>()?;
        let partitions = config
            .file_groups
            .iter()
            .map(|group| {
                let ranges = group
                    .iter()
                    .map(|f| {
                        if !f.partition_values.is_empty() {
                            return Err(codec_error("a file with partition values"));
                        }
                        Ok(RangeProto {
                            path: f.object_meta.location.as_ref().to_owned(),
                            len: f.object_meta.size,
                            start: f.range.as_ref().map(|r| r.start),
                            end: f.range.as_ref().map(|r| r.end),
                        })
                    })
                    .collect::<Result<_>>()?;
                Ok(PartitionProto { ranges })
            })
            .collect::<Result<_>>()?;
        let proto = ScanProto {
            table_schema: Some(
                protobuf::Schema::try_from(spec.table_schema.as_ref()).map_err(codec_error)?,
            ),
            projection: spec.projection.iter().map(|&i| i as u64).collect(),
            filters,
            limit: spec.limit.map(|l| l as u64),
            partitions,
            store: config.object_store_url.as_str().to_owned(),
            scan_limit: config.limit.map(|l| l as u64),
            batch_size: config.batch_size.map(|b| b as u64),
        };
        encode_tagged(EXEC_TAG, &proto, buf)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }

    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        self.inner.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> Result<()> {
        self.inner.try_encode_expr(node, buf, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::{DataType, Field, TimeUnit};
    use datafusion::common::ScalarValue;
    use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
    use datafusion::physical_plan::collect_partitioned;
    use datafusion::prelude::{SessionConfig, SessionContext, ident, lit};
    use datafusion_proto::physical_plan::DefaultPhysicalProtoConverter;

    /// Generated logs of about 3.5 MiB, removed on drop.
    struct Logs(PathBuf);

    impl Logs {
        fn new(name: &str) -> Logs {
            let file = format!("ndq-df-{name}-{}.ndjson", std::process::id());
            let path = std::env::temp_dir().join(file);
            std::fs::write(&path, ndq_gen::generate(7, 7 << 19)).unwrap();
            Logs(path)
        }
    }

    impl Drop for Logs {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new(
                "@t",
                DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
                true,
            ),
            Field::new("@l", DataType::Utf8, true),
            Field::new("Message", DataType::Utf8View, true),
            Field::new("StatusCode", DataType::Int64, true),
            Field::new("Elapsed", DataType::Decimal128(18, 4), true),
            Field::new("Properties.User.Name", DataType::Utf8, true),
        ]))
    }

    /// One file of a scan: its location, length and byte range.
    type ScanFile = (String, u64, Option<(i64, i64)>);

    /// The files of a scan, one list per file group.
    fn files_of(plan: &Arc<dyn ExecutionPlan>) -> Vec<Vec<ScanFile>> {
        let (config, _) = ndq_scan_of(plan).expect("an ndq scan");
        config
            .file_groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|f| {
                        (
                            f.object_meta.location.to_string(),
                            f.object_meta.size,
                            f.range.as_ref().map(|r| (r.start, r.end)),
                        )
                    })
                    .collect()
            })
            .collect()
    }

    /// A table's files and schema come back from its encoding; so do a scan's projection,
    /// pushed-down filters, limit, store and ranges, and the decoded scan reads the same rows.
    #[tokio::test]
    async fn table_and_scan_survive_the_codecs() {
        let logs = Logs::new("codec");
        let table = NdjsonTable::try_new([&logs.0], schema()).unwrap();
        let logical = NdjsonLogicalCodec::default();
        let mut buf = Vec::new();
        let name = TableReference::bare("logs");
        let provider: Arc<dyn TableProvider> = Arc::new(table);
        logical
            .try_encode_table_provider(&name, Arc::clone(&provider), &mut buf)
            .unwrap();
        // A Ballista session's: its scans are cut into its target partitions, as elsewhere.
        // Without work stealing, each partition reads its own ranges: comparable per partition.
        let ballista = SessionConfig::new_with_ballista()
            .with_target_partitions(3)
            .set_bool(
                "datafusion.execution.enable_file_stream_work_stealing",
                false,
            );
        let ctx = SessionContext::new_with_config(ballista);
        let decoded = logical
            .try_decode_table_provider(&buf, &name, schema(), &ctx.task_ctx())
            .unwrap();
        let table = provider.downcast_ref::<NdjsonTable>().unwrap();
        let back = decoded.downcast_ref::<NdjsonTable>().unwrap();
        assert_eq!(back.files(), table.files());
        assert_eq!(back.schema(), table.schema());

        let filters = [
            ident("Elapsed").gt(lit(ScalarValue::Decimal128(Some(1_000_000), 18, 4))),
            ident("@l").not_eq(lit("Debug")),
        ];
        // Projected: Message, StatusCode, Properties.User.Name; read for the filters too.
        let projection = vec![2, 3, 5];
        for limit in [None, Some(7)] {
            let plan = back
                .scan(&ctx.state(), Some(&projection), &filters, limit)
                .await
                .unwrap();
            let physical = NdjsonPhysicalCodec::default();
            let mut buf = Vec::new();
            let converter = DefaultPhysicalProtoConverter {};
            physical
                .try_encode(Arc::clone(&plan), &mut buf, &converter)
                .unwrap();
            let decoded = physical
                .try_decode(&buf, &[], &ctx.task_ctx(), &converter)
                .unwrap();
            let ((ca, a), (cb, b)) = (ndq_scan_of(&plan).unwrap(), ndq_scan_of(&decoded).unwrap());
            assert_eq!(b.spec(), a.spec());
            assert_eq!(b.spec().projection, projection);
            // Both filters are pushed down, and come back.
            assert_eq!(b.spec().filters, filters);
            assert_eq!(b.spec().limit, limit);
            assert_eq!(cb.limit, ca.limit);
            assert_eq!(cb.object_store_url, ca.object_store_url);
            assert_eq!(files_of(&decoded), files_of(&plan));
            // The session's 3 target partitions, each a byte range of the file.
            assert_eq!(files_of(&plan).len(), 3);

            let want = collect_partitioned(plan, ctx.task_ctx()).await.unwrap();
            let got = collect_partitioned(decoded, ctx.task_ctx()).await.unwrap();
            assert!(want.iter().flatten().any(|b| b.num_rows() > 0));
            assert_eq!(got, want);
        }
    }

    /// A scan the message cannot carry whole (here, of compressed files) is refused rather
    /// than sent without what it lacks.
    #[tokio::test]
    async fn scans_the_codec_cannot_carry_are_refused() {
        let logs = Logs::new("refused");
        let table = NdjsonTable::try_new([&logs.0], schema()).unwrap();
        let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(3));
        let plan = table.scan(&ctx.state(), None, &[], None).await.unwrap();
        let (config, _) = ndq_scan_of(&plan).unwrap();
        let compressed = FileScanConfigBuilder::from(config.clone())
            .with_file_compression_type(FileCompressionType::GZIP)
            .build();
        let plan: Arc<dyn ExecutionPlan> = DataSourceExec::from_data_source(compressed);
        let err = NdjsonPhysicalCodec::default()
            .try_encode(plan, &mut Vec::new(), &DefaultPhysicalProtoConverter {})
            .unwrap_err();
        assert!(err.to_string().contains("compression"), "{err}");
    }
}
