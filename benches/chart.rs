//! `-o chart` drawing a long time series: 100,000 one-second buckets (about 28 hours, a
//! tenth of them missing) merged into a 120x30 terminal, from the rows `plan.finish` would
//! give (RFC 3339 bucket texts and counts). The baseline in the same group is `-o table`
//! over the same rows: what writing them instead of drawing them costs.
//!
//! The chart is checked once before timing: its title says the columns were merged, and its
//! top label is the largest merged count, computed here from the rows.
//!
//! `cargo bench --bench chart` (the log of results: `benches/chart-log.md`).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ndq_query::{Plan, Value, Zone};

// The output formats, compiled into the bench as they are into ndq (the binary has no
// library to link against).
#[allow(dead_code, unused_imports)]
#[path = "../src/output/mod.rs"]
mod output;

const BUCKETS: i64 = 100_000;
const QUERY: &str = "select time(1s), count(*) group by 1";
const START: i128 = 1_795_000_000_000_000_000;

/// The rows: every tenth second missing, counts that rise and fall with a spike.
fn rows() -> Vec<Vec<Value<'static>>> {
    let utc = Zone::utc();
    (0..BUCKETS)
        .filter(|s| s % 10 != 7)
        .map(|s| {
            let t = utc
                .strftime(START + i128::from(s) * 1_000_000_000, "%Y-%m-%dT%H:%M:%SZ")
                .expect("in range");
            let count = 10 + (s % 600) / 7 + if s == 61_234 { 5_000 } else { 0 };
            vec![
                Value::String(t.into()),
                Value::RawNumber(count.to_string().into()),
            ]
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let plan = Plan::compile(QUERY).expect("query");
    let rows = rows();
    let spec = output::chart::Spec::new(
        &plan,
        output::chart::Size::Fixed {
            width: 120,
            height: 30,
        },
    );
    let chart = output::chart::render(plan.columns(), &rows, &spec, false);
    let title = chart.lines().next().unwrap_or_default();
    assert!(title.contains("each column 15m, summed"), "{chart}");
    // 15-minute columns from a multiple of 15 minutes: the spike's column's sum is the
    // largest.
    let offset = (START / 1_000_000_000) % 900;
    let mut sums = std::collections::BTreeMap::new();
    for row in &rows {
        let (Value::String(t), Value::RawNumber(n)) = (&row[0], &row[1]) else {
            unreachable!()
        };
        let t = ndq_query::parse_bound(t, 0, &Zone::utc()).expect("time") / 1_000_000_000;
        let s = t - START / 1_000_000_000;
        *sums.entry((s + offset) / 900).or_insert(0i64) += n.parse::<i64>().expect("count");
    }
    let top = sums.values().max().expect("rows");
    assert!(
        chart
            .lines()
            .nth(1)
            .unwrap_or_default()
            .starts_with(&format!("{top} ┤")),
        "{top}\n{chart}"
    );

    let mut group = c.benchmark_group("chart_100k_buckets");
    group.throughput(Throughput::Elements(rows.len() as u64));
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("chart", |b| {
        b.iter(|| output::chart::render(plan.columns(), black_box(&rows), &spec, false))
    });
    group.bench_function("table_baseline", |b| {
        b.iter(|| output::table::render_within(plan.columns(), black_box(&rows), false, None, &[]))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
