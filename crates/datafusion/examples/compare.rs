//! Time the same queries over a directory of NDJSON logs through the ndq table (read from the
//! local paths, and through the `file://` object store), and through DataFusion's own NDJSON
//! reader, in one session, alternating, and print the medians.
//!
//! `cargo run --release --manifest-path crates/datafusion/Cargo.toml --example compare -- DIR [RUNS]`
//!
//! Every file in DIR is read by all three (DataFusion's reader is given no file extension).
//! It also times inferring the directory's schema once.

use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use datafusion::arrow::util::display::array_value_to_string;
use datafusion::catalog::TableProvider;
use datafusion::common::Result;
use datafusion::prelude::{JsonReadOptions, SessionContext};
use ndq_datafusion::NdjsonTable;

const QUERIES: &[&str] = &[
    r#"select count(*) from {} where "Elapsed" > 200"#,
    r#"select sum("Elapsed") from {}"#,
];

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: compare DIR [RUNS]");
    let runs: usize = args.next().map_or(3, |r| r.parse().expect("RUNS"));
    let schema = Schema::new(vec![
        Field::new(
            "@t",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            true,
        ),
        Field::new("@l", DataType::Utf8, true),
        Field::new("Message", DataType::Utf8, true),
        Field::new("RequestPath", DataType::Utf8, true),
        Field::new("StatusCode", DataType::Int64, true),
        Field::new("Elapsed", DataType::Decimal128(18, 4), true),
        Field::new("MachineName", DataType::Utf8, true),
        Field::new("ThreadId", DataType::Int64, true),
    ]);
    let ctx = SessionContext::new();
    println!(
        "target partitions: {}",
        ctx.state().config().target_partitions()
    );
    ctx.register_table(
        "ndq",
        Arc::new(NdjsonTable::try_new([&dir], Arc::new(schema.clone()))?),
    )?;
    let dir = std::fs::canonicalize(&dir)?.display().to_string();
    let url = format!("file://{dir}/");
    ctx.register_table(
        "ndq_url",
        Arc::new(NdjsonTable::try_new([&url], Arc::new(schema.clone()))?),
    )?;
    let start = Instant::now();
    let inferred = NdjsonTable::infer(&ctx.state(), [&dir]).await?;
    println!(
        "schema inferred in {:.3}s: {} columns",
        start.elapsed().as_secs_f64(),
        inferred.schema().fields().len()
    );
    let options = JsonReadOptions::default()
        .schema(&schema)
        .file_extension("");
    ctx.register_json("json", &dir, options).await?;

    for q in QUERIES {
        let mut times = [Vec::new(), Vec::new(), Vec::new()];
        let mut answers = [String::new(), String::new(), String::new()];
        for _ in 0..runs {
            for (i, table) in ["ndq", "ndq_url", "json"].into_iter().enumerate() {
                let sql = q.replace("{}", table);
                let start = Instant::now();
                let batches = ctx.sql(&sql).await?.collect().await?;
                times[i].push(start.elapsed().as_secs_f64());
                let batch = batches.iter().find(|b| b.num_rows() > 0).expect("one row");
                answers[i] = array_value_to_string(batch.column(0), 0)?;
            }
        }
        assert_eq!(answers[0], answers[1], "{q}: the answers differ");
        assert_eq!(answers[0], answers[2], "{q}: the answers differ");
        let [ndq, url, json] = times.clone().map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        });
        println!("{}", q.replace("{}", "logs"));
        println!("  answer: {}", answers[0]);
        println!("  ndq  median {ndq:.3}s of {:?}", times_fmt(&times[0]));
        println!("  file:// median {url:.3}s of {:?}", times_fmt(&times[1]));
        println!("  json median {json:.3}s of {:?}", times_fmt(&times[2]));
        println!("  ratio json/ndq: {:.2}x", json / ndq);
        println!("  ratio file:///ndq: {:.2}x", url / ndq);
    }
    Ok(())
}

fn times_fmt(t: &[f64]) -> Vec<String> {
    t.iter().map(|s| format!("{s:.3}")).collect()
}
