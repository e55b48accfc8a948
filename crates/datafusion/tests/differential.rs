//! The same SQL through the ndq table and through DataFusion's own NDJSON reader (the oracle)
//! gives the same rows, on the committed sample and on generated logs.

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;
use ndq_datafusion::NdjsonTable;

use common::{DECIMAL, QUERIES, TempDir, run, sample, schema, sessions};

/// The sum of metric `name` over the plan's ndq scans.
fn metric(plan: &Arc<dyn ExecutionPlan>, name: &str) -> usize {
    let own = if plan.name() == "NdjsonExec" {
        plan.metrics()
            .unwrap()
            .sum_by_name(name)
            .unwrap()
            .as_usize()
    } else {
        0
    };
    own + plan
        .children()
        .iter()
        .map(|c| metric(c, name))
        .sum::<usize>()
}

async fn agree(paths: &[PathBuf], partitions: usize, elapsed: DataType, queries: &[&str]) {
    let (ndq, oracle) = sessions(paths, partitions, elapsed).await;
    for sql in queries {
        let (want, _) = run(&oracle, sql).await;
        let (got, plan) = run(&ndq, sql).await;
        assert!(!want.is_empty(), "{sql}: no rows to compare");
        assert_eq!(got, want, "{sql} ({partitions} partitions)");
        assert_eq!(metric(&plan, "bad_lines"), 0, "{sql}");
        assert_eq!(metric(&plan, "mismatched_values"), 0, "{sql}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sample_queries_match_datafusion_json() {
    for partitions in [1, 4] {
        agree(&[sample()], partitions, DECIMAL, QUERIES).await;
    }
}

/// `Elapsed` as Float64 (no sums: their last digits depend on the order of the additions).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn float_columns_match_datafusion_json() {
    let queries = [
        r#"select "Elapsed" from logs where "Elapsed" > 200.5"#,
        r#"select "@l", min("Elapsed"), max("Elapsed") from logs where "Elapsed" <= 1000 group by "@l""#,
    ];
    agree(&[sample()], 2, DataType::Float64, &queries).await;
}

/// Generated logs in two files of several MiB: split into byte ranges across partitions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_queries_match_datafusion_json_across_ranges() {
    let dir = TempDir::new("gen");
    let a = dir.0.join("a.ndjson");
    let b = dir.0.join("b.ndjson");
    std::fs::write(&a, ndq_gen::generate(11, 3 << 20)).unwrap();
    std::fs::write(&b, ndq_gen::generate(12, 3 << 19)).unwrap();
    agree(&[a, b], 5, DECIMAL, QUERIES).await;
}

/// A directory reads its files; malformed lines are skipped and counted in `bad_lines`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_lines_are_skipped_and_counted() {
    let dir = TempDir::new("bad");
    let clean = std::fs::read(sample()).unwrap();
    let bad: &[&[u8]] = &[
        b"{\"@l\":\"Error\",",
        b"not json",
        b"{\"Elapsed\": 1,}",
        b"[1, 2]",
        b"{\"Message\": \"\xff\"}",
    ];
    let mut dirty = Vec::new();
    let mut injected = 0;
    for (i, line) in clean.split_inclusive(|&c| c == b'\n').enumerate() {
        dirty.extend_from_slice(line);
        if i % 50 == 0 {
            dirty.extend_from_slice(bad[injected % bad.len()]);
            // A blank line is not malformed: it is skipped without a count.
            dirty.extend_from_slice(b"\n\n");
            injected += 1;
        }
    }
    std::fs::write(dir.0.join("logs.ndjson"), &dirty).unwrap();

    let (_, oracle) = sessions(&[sample()], 2, DECIMAL).await;
    let ndq = SessionContext::new();
    let table = NdjsonTable::try_new([&dir.0], Arc::new(schema(DECIMAL))).unwrap();
    ndq.register_table("logs", Arc::new(table)).unwrap();
    for sql in [
        r#"select count(*) from logs"#,
        r#"select "@l", sum("Elapsed") from logs group by "@l""#,
    ] {
        let (want, _) = run(&oracle, sql).await;
        let (got, plan) = run(&ndq, sql).await;
        assert_eq!(got, want, "{sql}");
        assert_eq!(metric(&plan, "bad_lines"), injected, "{sql}");
    }
}

/// Only the keys a query reads are scanned for, and a pushed-down comparison leaves lines out
/// before their rows are built.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_reads_projected_keys_and_filters_lines() {
    let ctx = SessionContext::new();
    let table = NdjsonTable::try_new([sample()], Arc::new(schema(DECIMAL))).unwrap();
    ctx.register_table("logs", Arc::new(table)).unwrap();
    let sql = r#"select "Properties.User.Name" from logs where "Elapsed" > 200"#;
    let (_, plan) = run(&ctx, sql).await;
    let shown = datafusion::physical_plan::displayable(plan.as_ref())
        .indent(false)
        .to_string();
    assert!(
        shown.contains(r#"keys=["Elapsed", "Properties"], pushed_filters=1"#),
        "{shown}"
    );
    let filtered = metric(&plan, "filtered_lines");
    let (kept, _) = run(&ctx, r#"select count(*) from logs where "Elapsed" > 200"#).await;
    let (all, _) = run(&ctx, r#"select count(*) from logs"#).await;
    let kept: usize = kept[0].parse().unwrap();
    let all: usize = all[0].parse().unwrap();
    assert!(filtered > 0);
    assert_eq!(filtered, all - kept);
}

/// A type the scan cannot produce is refused when the table is made.
#[test]
fn unsupported_types_are_refused() {
    let schema = Schema::new(vec![Field::new("a", DataType::Int32, true)]);
    let err = NdjsonTable::try_new([sample()], Arc::new(schema)).unwrap_err();
    assert!(err.to_string().contains("Int32"), "{err}");
}

/// A value that its column's type cannot hold exactly is NULL, and counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_of_another_type_are_null_and_counted() {
    let dir = TempDir::new("types");
    let path = dir.0.join("t.ndjson");
    std::fs::write(
        &path,
        concat!(
            r#"{"n": 3, "d": 1.25, "b": true, "t": "2026-11-21T00:00:00.5+01:00", "s": 7}"#,
            "\n",
            r#"{"n": 3.0, "d": 1.2500, "b": false, "t": "2026-11-21T00:00:00Z", "s": {"a": [1]}}"#,
            "\n",
            r#"{"n": 1.5, "d": 1.255, "b": "yes", "t": "yesterday", "s": null}"#,
            "\n",
            r#"{"n": 99999999999999999999, "d": "1", "b": 1, "t": 5}"#,
            "\n",
        ),
    )
    .unwrap();
    let schema = Schema::new(vec![
        Field::new("n", DataType::Int64, true),
        Field::new("d", DataType::Decimal128(5, 2), true),
        Field::new("b", DataType::Boolean, true),
        Field::new(
            "t",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            true,
        ),
        Field::new("s", DataType::Utf8, true),
    ]);
    let ctx = SessionContext::new();
    let table = NdjsonTable::try_new([&path], Arc::new(schema)).unwrap();
    ctx.register_table("logs", Arc::new(table)).unwrap();
    let (got, plan) = run(&ctx, "select n, d, b, t, s from logs").await;
    assert_eq!(
        got,
        [
            "3 | 1.25 | false | 2026-11-21T00:00:00Z | {\"a\": [1]}",
            "3 | 1.25 | true | 2026-11-20T23:00:00.500Z | 7",
            "NULL | NULL | NULL | NULL | NULL",
            "NULL | NULL | NULL | NULL | NULL",
        ]
    );
    // Row 3: n, d, b, t; row 4: all but the missing s.
    assert_eq!(metric(&plan, "mismatched_values"), 8);
}
