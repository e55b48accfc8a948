//! What the differential tests share: the logs' schema, the queries, the sessions over the
//! ndq table and over DataFusion's own NDJSON reader (the oracle), and rows as text.

// Each test file uses a part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema, TimeUnit};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::{JsonReadOptions, SessionConfig, SessionContext};
use ndq_datafusion::{NdjsonSource, NdjsonTable};

/// The file scan config of `plan` if it is an ndq scan (a `DataSourceExec` over a
/// `FileScanConfig` whose source is an `NdjsonSource`).
pub fn ndq_scan(plan: &Arc<dyn ExecutionPlan>) -> Option<&FileScanConfig> {
    let exec = plan.downcast_ref::<DataSourceExec>()?;
    let config = exec.data_source().downcast_ref::<FileScanConfig>()?;
    config.file_source().downcast_ref::<NdjsonSource>()?;
    Some(config)
}

/// The cases of `testdata/cases.txt` as SQL over `logs`, and a few more for the types, nested
/// paths and pushed-down filters. Orders are total where a limit cuts.
pub const QUERIES: &[&str] = &[
    r#"select "Message" from logs where "Elapsed" > 200"#,
    r#"select "Message" from logs where "Message" like '%/api/customers%'"#,
    r#"select sum("Elapsed"), count(*) from logs"#,
    r#"select "@l", count(*), avg("Elapsed") from logs group by "@l""#,
    r#"select "@t", "StatusCode", "Message" from logs where "StatusCode" >= 500 order by "@t", "Message" limit 10"#,
    r#"select "RequestPath", count(*) filter (where "StatusCode" >= 500) * 100 / count(*) as err from logs group by "RequestPath" order by err desc, "RequestPath" limit 10"#,
    r#"select count(*) from logs"#,
    r#"select "Properties.User.Name", count(*), max("Properties.User.Id") from logs group by "Properties.User.Name""#,
    r#"select count(*) from logs where "Properties.Sampled""#,
    r#"select "RequestMethod", count(*) from logs where "RequestMethod" = 'GET' or "StatusCode" < 300 group by "RequestMethod""#,
    r#"select "ThreadId", "Elapsed" from logs where "ThreadId" <= 4 and "Elapsed" < 100.5 and "@l" != 'Debug'"#,
    r#"select count(*), min("@t"), max("@t") from logs where "@t" >= '2026-11-21T00:00:01Z'"#,
    r#"select "MachineName", count(*) from logs where 200 < "Elapsed" group by "MachineName""#,
];

/// The columns of the logs; `Elapsed` is of type `elapsed`.
pub fn schema(elapsed: DataType) -> Schema {
    Schema::new(vec![
        Field::new(
            "@t",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            true,
        ),
        Field::new("@l", DataType::Utf8, true),
        Field::new("Message", DataType::Utf8View, true),
        Field::new("RequestMethod", DataType::Utf8, true),
        Field::new("RequestPath", DataType::Utf8, true),
        Field::new("StatusCode", DataType::Int64, true),
        Field::new("Elapsed", elapsed, true),
        Field::new("MachineName", DataType::Utf8, true),
        Field::new("ThreadId", DataType::Int64, true),
        Field::new("Properties.User.Name", DataType::Utf8, true),
        Field::new("Properties.User.Id", DataType::Int64, true),
        Field::new("Properties.Sampled", DataType::Boolean, true),
    ])
}

/// The oracle's schema: the same top-level columns, `Properties` as a struct.
pub fn oracle_schema(elapsed: DataType) -> Schema {
    let user = Fields::from(vec![
        Field::new("Name", DataType::Utf8, true),
        Field::new("Id", DataType::Int64, true),
    ]);
    let properties = Fields::from(vec![
        Field::new("User", DataType::Struct(user), true),
        Field::new("Sampled", DataType::Boolean, true),
    ]);
    let mut fields: Vec<Field> = schema(elapsed)
        .fields()
        .iter()
        .filter(|f| !f.name().contains('.'))
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("Properties", DataType::Struct(properties), true));
    Schema::new(fields)
}

/// `logs` through ndq, and `logs` through DataFusion's reader (a view over `raw…`), each in
/// its own session with `partitions` target partitions.
pub async fn sessions(
    paths: &[PathBuf],
    partitions: usize,
    elapsed: DataType,
) -> (SessionContext, SessionContext) {
    let config = || SessionConfig::new().with_target_partitions(partitions);
    let ndq = SessionContext::new_with_config(config());
    let table = NdjsonTable::try_new(paths, Arc::new(schema(elapsed.clone()))).unwrap();
    ndq.register_table("logs", Arc::new(table)).unwrap();

    let oracle = SessionContext::new_with_config(config());
    let raw_schema = oracle_schema(elapsed.clone());
    for (i, path) in paths.iter().enumerate() {
        let ext = path
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()));
        let options = JsonReadOptions::default()
            .schema(&raw_schema)
            .file_extension(ext.as_deref().unwrap_or(""));
        oracle
            .register_json(format!("raw{i}"), path.to_str().unwrap(), options)
            .await
            .unwrap();
    }
    let union = (0..paths.len())
        .map(|i| format!("select * from raw{i}"))
        .collect::<Vec<_>>()
        .join(" union all ");
    let top: Vec<String> = schema(elapsed)
        .fields()
        .iter()
        .filter(|f| !f.name().contains('.'))
        .map(|f| format!("{:?}", f.name()))
        .collect();
    oracle
        .sql(&format!(
            "create view logs as select {}, \
             get_field(get_field(\"Properties\", 'User'), 'Name') as \"Properties.User.Name\", \
             get_field(get_field(\"Properties\", 'User'), 'Id') as \"Properties.User.Id\", \
             get_field(\"Properties\", 'Sampled') as \"Properties.Sampled\" from ({union})",
            top.join(", ")
        ))
        .await
        .unwrap();
    (ndq, oracle)
}

/// Each row as text, sorted.
pub fn rows(batches: &[RecordBatch]) -> Vec<String> {
    let options = FormatOptions::default().with_null("NULL");
    let mut out = Vec::new();
    for batch in batches {
        let formatters: Vec<_> = batch
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
            .collect();
        for r in 0..batch.num_rows() {
            let cells: Vec<String> = formatters.iter().map(|f| f.value(r).to_string()).collect();
            out.push(cells.join(" | "));
        }
    }
    out.sort();
    out
}

pub async fn run(ctx: &SessionContext, sql: &str) -> (Vec<String>, Arc<dyn ExecutionPlan>) {
    let plan = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .create_physical_plan()
        .await
        .unwrap();
    let batches = collect(Arc::clone(&plan), ctx.task_ctx())
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    (rows(&batches), plan)
}

pub const DECIMAL: DataType = DataType::Decimal128(18, 4);

pub fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/sample.ndjson")
}

pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("ndq-df-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
