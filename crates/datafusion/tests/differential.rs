//! The same SQL through the ndq table and through DataFusion's own NDJSON reader (the oracle)
//! gives the same rows, on the committed sample and on generated logs.

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema, TimeUnit};
use datafusion::catalog::TableProvider;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::object_store::memory::InMemory;
use datafusion::object_store::path::Path as ObjectPath;
use datafusion::object_store::{ObjectStoreExt, PutPayload};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::{JsonReadOptions, SessionConfig, SessionContext};
use ndq_datafusion::{Inference, NdjsonTable};

use common::{DECIMAL, QUERIES, TempDir, ndq_scan, run, sample, schema, sessions};

/// The sum of metric `name` over the plan's ndq scans; the plan must have one.
fn metric(plan: &Arc<dyn ExecutionPlan>, name: &str) -> usize {
    fn walk(plan: &Arc<dyn ExecutionPlan>, name: &str, scans: &mut usize) -> usize {
        let own = if ndq_scan(plan).is_some() {
            *scans += 1;
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
            .map(|c| walk(c, name, scans))
            .sum::<usize>()
    }
    let mut scans = 0;
    let sum = walk(plan, name, &mut scans);
    assert!(scans > 0, "no ndq scan in the plan");
    sum
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

/// The same files read through object stores, by URL (an in-memory store registered in the
/// session, and `file://`), give the same rows as the local paths: ranges cut mid-line, a file
/// without a final newline, a prefix read as a directory (its hidden objects and deeper
/// prefixes left out).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn object_store_urls_read_as_local_paths() {
    let dir = TempDir::new("store");
    let a = ndq_gen::generate(21, 3 << 18);
    let mut b = ndq_gen::generate(22, 3 << 17);
    assert_eq!(b.pop(), Some(b'\n'));
    std::fs::write(dir.0.join("a.ndjson"), &a).unwrap();
    std::fs::write(dir.0.join("b.ndjson"), &b).unwrap();
    // Left out of a directory and of a prefix alike.
    std::fs::write(dir.0.join(".hidden"), b"{\"@l\": \"Hidden\"}\n").unwrap();
    std::fs::create_dir(dir.0.join("sub")).unwrap();
    std::fs::write(dir.0.join("sub/c.ndjson"), &a).unwrap();

    let memory = Arc::new(InMemory::new());
    for (name, bytes) in [
        ("logs/a.ndjson", &a),
        ("logs/b.ndjson", &b),
        ("logs/.hidden", &b"{\"@l\": \"Hidden\"}\n".to_vec()),
        ("logs/sub/c.ndjson", &a),
        ("logs-other/d.ndjson", &a),
    ] {
        memory
            .put(&ObjectPath::from(name), PutPayload::from(bytes.clone()))
            .await
            .unwrap();
    }
    let session = |inputs: Vec<String>| {
        let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(5));
        let url = ObjectStoreUrl::parse("memory://").unwrap();
        ctx.register_object_store(url.as_ref(), Arc::clone(&memory) as _);
        let table = NdjsonTable::try_new(inputs, Arc::new(schema(DECIMAL))).unwrap();
        ctx.register_table("logs", Arc::new(table)).unwrap();
        ctx
    };
    let local = session(vec![dir.0.to_str().unwrap().to_owned()]);
    let urls = [
        vec![format!("file://{}/", dir.0.display())],
        vec![format!("file://{}", dir.0.display())],
        vec!["memory:///logs".to_owned()],
        vec!["memory:///logs/".to_owned()],
        vec![
            "memory:///logs/a.ndjson".to_owned(),
            "memory:///logs/b.ndjson".to_owned(),
        ],
        // A local path and a URL in one table.
        vec![
            dir.0.join("a.ndjson").to_str().unwrap().to_owned(),
            "memory:///logs/b.ndjson".to_owned(),
        ],
    ];
    let mut wants = Vec::new();
    for sql in QUERIES {
        let (want, _) = run(&local, sql).await;
        assert!(!want.is_empty(), "{sql}: no rows to compare");
        wants.push(want);
    }
    // Inference reads the same sample through a store, whole or cut inside a line.
    for inference in [Inference::new(), Inference::new().max_bytes(100_000)] {
        let state = session(Vec::new()).state();
        let local = inference.table(&state, [&dir.0]).await.unwrap();
        let remote = inference.table(&state, ["memory:///logs"]).await.unwrap();
        assert_eq!(local.schema(), remote.schema());
        assert!(local.schema().fields().len() > 20);
    }
    for inputs in urls {
        let ctx = session(inputs.clone());
        for (sql, want) in QUERIES.iter().zip(&wants) {
            let (got, plan) = run(&ctx, sql).await;
            assert_eq!(&got, want, "{sql} ({inputs:?})");
            assert_eq!(metric(&plan, "bad_lines"), 0, "{sql} ({inputs:?})");
        }
    }
}

/// A URL that names neither an object nor a prefix fails the query, naming the URL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_objects_are_errors() {
    let ctx = SessionContext::new();
    let url = ObjectStoreUrl::parse("memory://").unwrap();
    ctx.register_object_store(url.as_ref(), Arc::new(InMemory::new()));
    let table =
        NdjsonTable::try_new(["memory:///nothing/here"], Arc::new(schema(DECIMAL))).unwrap();
    ctx.register_table("logs", Arc::new(table)).unwrap();
    let Err(err) = ctx
        .sql("select count(*) from logs")
        .await
        .unwrap()
        .collect()
        .await
    else {
        panic!("a missing object read as a table");
    };
    assert!(err.to_string().contains("memory:///nothing/here"), "{err}");
}

/// What DataFusion's own inference (`oracle`, from the same lines) says of a column, in the
/// table's terms: the flattened path of each leaf with the type the table's rules give it.
fn flatten(prefix: &str, fields: &Fields, out: &mut Vec<(String, Expect, DataType)>) {
    for f in fields {
        let name = format!("{prefix}{}", f.name());
        let expect = match f.data_type() {
            DataType::Struct(children) if !children.is_empty() => {
                flatten(&format!("{name}."), children, out);
                continue;
            }
            DataType::Int64 => Expect::Is(DataType::Int64),
            DataType::Boolean => Expect::Is(DataType::Boolean),
            DataType::Float64 => Expect::Number,
            DataType::Utf8 | DataType::Utf8View if name == "@t" => Expect::Is(DataType::Timestamp(
                TimeUnit::Nanosecond,
                Some("UTC".into()),
            )),
            _ => Expect::Is(DataType::Utf8View),
        };
        out.push((name, expect, f.data_type().clone()));
    }
}

#[derive(Debug)]
enum Expect {
    Is(DataType),
    /// A number with decimals: `Decimal128(38, _)` or `Float64`.
    Number,
}

/// On generated logs, the inferred schema has the columns and types DataFusion's own
/// inference implies, and queries over every column whose type both agree on give the
/// same rows as DataFusion's reader with its own inferred schema.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inferred_schema_agrees_with_datafusion_inference() {
    let dir = TempDir::new("infer");
    let path = dir.0.join("logs.ndjson");
    std::fs::write(&path, ndq_gen::generate(31, 3 << 20)).unwrap();
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(3));
    let table = NdjsonTable::infer(&ctx.state(), [&path]).await.unwrap();
    let ours = table.schema();
    ctx.register_table("logs", Arc::new(table)).unwrap();

    let oracle = SessionContext::new();
    let options = JsonReadOptions::default()
        .file_extension(".ndjson")
        .schema_infer_max_records(10_000);
    oracle
        .register_json("raw", path.to_str().unwrap(), options)
        .await
        .unwrap();
    let theirs = oracle
        .table("raw")
        .await
        .unwrap()
        .schema()
        .as_arrow()
        .clone();
    let mut want = Vec::new();
    flatten("", theirs.fields(), &mut want);
    let got: Vec<(String, DataType)> = ours
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let mut sorted_got: Vec<String> = got.iter().map(|c| c.0.clone()).collect();
    sorted_got.sort();
    let mut sorted_want: Vec<String> = want.iter().map(|c| c.0.clone()).collect();
    sorted_want.sort();
    assert_eq!(sorted_got, sorted_want);
    assert!(got.len() > 20, "{got:?}");

    // The oracle's columns under the table's names, for the columns both type alike.
    let mut select = Vec::new();
    let mut queries = Vec::new();
    for (name, expect, theirs) in &want {
        let (_, ty) = got.iter().find(|c| &c.0 == name).unwrap();
        let access = name
            .split('.')
            .enumerate()
            .fold(String::new(), |acc, (i, key)| match i {
                0 => format!("{key:?}"),
                _ => format!("get_field({acc}, '{key}')"),
            });
        let same = matches!(expect, Expect::Is(w) if w == ty);
        match (expect, ty) {
            _ if same => {}
            (Expect::Number, DataType::Decimal128(38, _) | DataType::Float64) => {
                // Comparisons agree; sums may not (exact against binary floating point).
                select.push(format!("{access} as {name:?}"));
                queries.push(format!(
                    "select count({name:?}), count(*) filter (where {name:?} > 100) from logs"
                ));
                continue;
            }
            (expect, got) => panic!("{name}: inferred {got}, DataFusion implies {expect:?}"),
        }
        if matches!(ty, DataType::Timestamp(..)) {
            continue;
        }
        select.push(format!("{access} as {name:?}"));
        if !matches!(theirs, DataType::Utf8 | DataType::Utf8View) && ty == &DataType::Utf8View {
            // Lists, read as JSON text here and as lists there.
            continue;
        }
        queries.push(format!(
            "select {name:?}, count(*) from logs group by {name:?}"
        ));
    }
    oracle
        .sql(&format!(
            "create view logs as select {} from raw",
            select.join(", ")
        ))
        .await
        .unwrap();
    assert!(queries.len() > 15, "{queries:?}");
    for sql in &queries {
        let (want, _) = run(&oracle, sql).await;
        let (got, plan) = run(&ctx, sql).await;
        assert!(!want.is_empty(), "{sql}: no rows to compare");
        let differ = got.iter().zip(&want).find(|(g, w)| g != w);
        assert!(
            got.len() == want.len() && differ.is_none(),
            "{sql}: {} rows, {} wanted; first difference {differ:?}",
            got.len(),
            want.len()
        );
        assert_eq!(metric(&plan, "mismatched_values"), 0, "{sql}");
    }
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
