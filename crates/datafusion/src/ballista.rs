//! Codecs that carry an [`NdjsonTable`] and its scan, [`NdjsonExec`], between the processes of
//! a [Ballista](https://datafusion.apache.org/ballista/) cluster (feature `ballista`).
//!
//! A Ballista client sends its logical plan to the scheduler, which plans the query and sends
//! each stage's physical plan to the executors: both plans are protobuf, and a table or a scan
//! that DataFusion does not know travels as bytes made by the session's extension codecs.
//! [`NdjsonLogicalCodec`] encodes the table (its files, with their lengths, and its schema
//! comes with the plan); [`NdjsonPhysicalCodec`] encodes the scan (the table's schema, the
//! projection, the comparisons checked on each line, the limit, and each partition's byte
//! ranges). Everything else goes to Ballista's own codecs, which each of ours wraps.
//!
//! The client, the scheduler and every executor must use these codecs: [`with_codecs`] sets
//! them in a `SessionConfig` (for the client, and for a scheduler or executor started
//! in-process from a session state); a scheduler or executor program sets them in its
//! process config (`override_logical_codec`, `override_physical_codec`). Executors read the
//! files by the paths the table was given, so every executor must see them at those paths.
//!
//! In a Ballista session the table's scan is one partition, one task: Ballista 55's scheduler
//! gives each task its share of a stage's partitions only for the scans it knows
//! (DataFusion's own file scans), so each task would read every partition of the ndq scan.
//! The physical codec refuses a scan of several partitions (planned in a session without
//! Ballista's configuration), and the query fails. The stages after the scan
//! (aggregations, sorts, joins) run in as many partitions as the session asks, on all
//! executors.
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

use ballista_core::config::BallistaConfig;
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::common::{DataFusionError, Result, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::execution::{SessionState, SessionStateBuilder, TaskContext};
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
};
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

use crate::{FileRange, NdjsonExec, NdjsonTable, ScanSpec};

/// The first bytes of an encoded table: what tells it from the wrapped codec's bytes.
const TABLE_TAG: &[u8] = b"ndq.NdjsonTable/1\0";
/// The first bytes of an encoded scan.
const EXEC_TAG: &[u8] = b"ndq.NdjsonExec/1\0";

/// Whether `config` is a Ballista session's (it has Ballista's configuration), whose scans
/// must be one partition.
pub(crate) fn one_task_scans(config: &SessionConfig) -> bool {
    config
        .options()
        .extensions
        .get::<BallistaConfig>()
        .is_some()
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

/// The physical extension codec: encodes and decodes [`NdjsonExec`]s, and passes everything
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

/// An [`NdjsonExec`]: its [`ScanSpec`].
#[derive(Clone, PartialEq, Message)]
struct ScanProto {
    #[prost(message, optional, tag = "1")]
    table_schema: Option<protobuf::Schema>,
    #[prost(uint64, repeated, tag = "2")]
    projection: Vec<u64>,
    #[prost(message, repeated, tag = "3")]
    filters: Vec<protobuf::LogicalExprNode>,
    #[prost(uint64, optional, tag = "4")]
    limit: Option<u64>,
    #[prost(message, repeated, tag = "5")]
    partitions: Vec<PartitionProto>,
}

#[derive(Clone, PartialEq, Message)]
struct PartitionProto {
    #[prost(message, repeated, tag = "1")]
    ranges: Vec<RangeProto>,
}

#[derive(Clone, PartialEq, Message)]
struct RangeProto {
    #[prost(string, tag = "1")]
    path: String,
    #[prost(uint64, tag = "2")]
    start: u64,
    #[prost(uint64, tag = "3")]
    end: u64,
    /// The object store's URL, for an object; none for a local file.
    #[prost(string, optional, tag = "4")]
    store: Option<String>,
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
        let partitions = proto
            .partitions
            .into_iter()
            .map(|p| {
                p.ranges
                    .into_iter()
                    .map(|r| FileRange {
                        store: r.store.map(Arc::from),
                        path: Arc::new(PathBuf::from(r.path)),
                        start: r.start,
                        end: r.end,
                    })
                    .collect()
            })
            .collect();
        let spec = ScanSpec {
            table_schema,
            projection: proto
                .projection
                .into_iter()
                .map(to_usize)
                .collect::<Result<_>>()?,
            filters,
            limit: proto.limit.map(to_usize).transpose()?,
            partitions,
        };
        Ok(Arc::new(NdjsonExec::try_new(spec)?))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let Some(exec) = node.downcast_ref::<NdjsonExec>() else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        let spec = exec.spec();
        if spec.partitions.len() > 1 {
            return Err(DataFusionError::NotImplemented(format!(
                "an ndq scan of {} partitions cannot run on Ballista: its scheduler gives each \
                 task its share of a stage only for the scans it knows, and every task would \
                 read all the partitions of this one. Plan it in a Ballista session \
                 (`SessionConfig::new_with_ballista`), where the scan is one partition",
                spec.partitions.len()
            )));
        }
        let filters = spec
            .filters
            .iter()
            .map(|f| serialize_expr(f, &DefaultLogicalExtensionCodec {}).map_err(codec_error))
            .collect::<Result<_>>()?;
        let partitions = spec
            .partitions
            .iter()
            .map(|ranges| {
                let ranges = ranges
                    .iter()
                    .map(|r| {
                        Ok(RangeProto {
                            path: path_text(&r.path)?,
                            start: r.start,
                            end: r.end,
                            store: r.store.as_deref().map(str::to_owned),
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

    /// A table's files and schema come back from its encoding; so do a scan's projection,
    /// pushed-down filters, limit and byte ranges, and the decoded scan reads the same rows.
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
        // A Ballista session's: its scans are one partition, whatever its target partitions.
        let ballista = SessionConfig::new_with_ballista().with_target_partitions(3);
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
            let (a, b) = (
                plan.downcast_ref::<NdjsonExec>().unwrap().spec(),
                decoded.downcast_ref::<NdjsonExec>().unwrap().spec(),
            );
            assert_eq!(b.table_schema, a.table_schema);
            assert_eq!(b.projection, projection);
            // Both filters are pushed down, and come back.
            assert_eq!(a.filters, filters);
            assert_eq!(b.filters, filters);
            assert_eq!(b.limit, limit);
            assert_eq!(b.partitions, a.partitions);
            // One partition, though the session's target is 3.
            assert_eq!(b.partitions.len(), 1);

            let want = collect_partitioned(plan, ctx.task_ctx()).await.unwrap();
            let got = collect_partitioned(decoded, ctx.task_ctx()).await.unwrap();
            assert!(want.iter().flatten().any(|b| b.num_rows() > 0));
            assert_eq!(got, want);
        }
    }

    /// A scan cut into several partitions (planned outside a Ballista session) is refused,
    /// with the way out, rather than sent to a cluster where each task would read all of them.
    #[tokio::test]
    async fn scans_of_several_partitions_are_refused() {
        let logs = Logs::new("refused");
        let table = NdjsonTable::try_new([&logs.0], schema()).unwrap();
        let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(3));
        let plan = table.scan(&ctx.state(), None, &[], None).await.unwrap();
        assert_eq!(plan.properties().output_partitioning().partition_count(), 3);
        let err = NdjsonPhysicalCodec::default()
            .try_encode(plan, &mut Vec::new(), &DefaultPhysicalProtoConverter {})
            .unwrap_err();
        assert!(err.to_string().contains("new_with_ballista"), "{err}");
    }
}
