//! The scanner against its baselines, on one core, over generated logs (ndq-gen, ~1 KiB
//! events with stack traces, escapes and nested properties): per line,
//!
//! - `elapsed`: scan (and validate) the line and read `Elapsed` as a Decimal;
//! - `message`: scan the line and unescape `Message`.
//!
//! Baselines in the same group: `serde_json::Value`, serde_json into a borrowed struct,
//! simd-json (borrowed value; it needs a mutable copy of each line, which is part of its cost)
//! and sonic-rs's lazy `get`. ndq runs with the scalar and the AVX2 scanner, through `parse`,
//! through `parse_until` (the early exit the CLI uses) and, for `elapsed`, through
//! `parse_prefix`, which validates only the part of the line it reads, as sonic-rs `get` does
//! (the scanner's goal, at least sonic-rs's speed, is on `parse_until`, which validates the
//! whole line). The AVX2 scanner
//! validates the rest of a line by its shape when it has seen that shape before (see
//! `crates/scan/src/shape.rs`); `ndq_avx2_parse_until_walk` is `parse_until` without that,
//! the walk validating every line.
//!
//! Every bench's answer is checked against serde_json's once before timing.
//!
//! `cargo bench -p ndq-scan-bench` (NDQ_BENCH_MB=16 sets the data size in MiB). The
//! serde_json baselines are plain serde_json, without the `arbitrary_precision` feature the
//! rest of the workspace turns on (with it, a `Value` keeps every number as a heap String):
//! the bench refuses to run when a build unified the feature in (`cargo bench --workspace`).

use std::borrow::Cow;
use std::hint::black_box;
use std::str::FromStr;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use ndq_scan::{Decimal, KeySet, Parser, Scanner, Value};
use serde::Deserialize;
use simd_json::prelude::*;
use sonic_rs::JsonValueTrait;

fn lines() -> (Vec<u8>, Vec<std::ops::Range<usize>>) {
    let mib: usize = std::env::var("NDQ_BENCH_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    let data = ndq_gen::generate(20261122, mib << 20);
    let mut ranges = Vec::new();
    let mut start = 0;
    for (i, &b) in data.iter().enumerate() {
        if b == b'\n' {
            ranges.push(start..i);
            start = i + 1;
        }
    }
    (data, ranges)
}

#[derive(Deserialize)]
struct ElapsedOnly {
    #[serde(rename = "Elapsed")]
    elapsed: Option<serde_json::Number>,
}

#[derive(Deserialize)]
struct MessageOnly<'a> {
    #[serde(rename = "Message", borrow)]
    message: Option<Cow<'a, str>>,
}

/// How much of a line ndq validates before `Elapsed` is read.
#[derive(Clone, Copy)]
enum Scope {
    /// `parse`: all of it, every member indexed.
    Parse,
    /// `parse_until`: all of it, indexing only up to the wanted key (what the CLI does).
    Until,
    /// `parse_prefix`: only the part read, up to the wanted key's value, as sonic-rs `get`
    /// validates only what it reads. Not what the scanner's goal measures (it wants the whole
    /// line validated); here to show where the rest of the time goes.
    Prefix,
}

fn ndq_elapsed(parser: &mut Parser, line: &[u8], want: &KeySet, scope: Scope) -> Option<Decimal> {
    let doc = match scope {
        Scope::Parse => parser.parse(line),
        Scope::Until => parser.parse_until(line, want),
        Scope::Prefix => parser.parse_prefix(line, want),
    }
    .ok()?;
    match doc.root().get("Elapsed") {
        Some(Value::Number(n)) => n.to_decimal(),
        _ => None,
    }
}

fn ndq_message(parser: &mut Parser, line: &[u8], want: Option<&KeySet>) -> usize {
    let Ok(doc) = (match want {
        Some(w) => parser.parse_until(line, w),
        None => parser.parse(line),
    }) else {
        return 0;
    };
    match doc.root().get("Message") {
        Some(Value::String(s)) => s.unescaped().len(),
        _ => 0,
    }
}

/// Stop unless serde_json is the plain build: with `arbitrary_precision` (unified in from the
/// rest of the workspace), `1.50` reads back as written instead of as the f64 `1.5`, and the
/// `Value` baseline would be measured with every number stored as a String.
fn require_plain_serde_json() {
    let back = serde_json::from_str::<serde_json::Value>("1.50")
        .expect("a number")
        .to_string();
    assert_eq!(
        back, "1.5",
        "serde_json was built with `arbitrary_precision` (a command that also built ndq or \
         ndq-query unified it in): run this bench alone, `cargo bench -p ndq-scan-bench`"
    );
}

/// A named way of reading one line, giving a `T`.
type Engine<'a, T> = (String, Box<dyn FnMut(&[u8]) -> T + 'a>);

/// Calls its argument on every line of the data.
type EachLine<'a> = dyn Fn(&mut dyn FnMut(&[u8])) + 'a;

fn bench(c: &mut Criterion) {
    require_plain_serde_json();
    let (data, ranges) = lines();
    let total = data.len() as u64;
    let each = |f: &mut dyn FnMut(&[u8])| {
        for r in &ranges {
            f(&data[r.clone()]);
        }
    };
    let scanners: Vec<Scanner> = std::iter::once(Scanner::Scalar)
        .chain(Scanner::avx2())
        .collect();
    let elapsed_set = KeySet::new(["Elapsed"]);
    let message_set = KeySet::new(["Message"]);

    // --- Elapsed as a Decimal ---
    let mut engines: Vec<Engine<Option<Decimal>>> = vec![
        (
            "serde_json_value".into(),
            Box::new(|line| {
                let v: serde_json::Value = serde_json::from_slice(line).ok()?;
                // The number as serde_json holds it (an f64 or an integer) back to text: the
                // generator's values are short, so it gives the digits written.
                Decimal::from_str(&v.get("Elapsed")?.as_number()?.to_string()).ok()
            }),
        ),
        (
            "serde_json_struct".into(),
            Box::new(|line| {
                let v: ElapsedOnly = serde_json::from_slice(line).ok()?;
                Decimal::from_str(&v.elapsed?.to_string()).ok()
            }),
        ),
        (
            "sonic_rs_get".into(),
            Box::new(|line| {
                let v = sonic_rs::get_from_slice(line, ["Elapsed"]).ok()?;
                Decimal::from_str(v.as_raw_str()).ok()
            }),
        ),
    ];
    for &s in &scanners {
        for (scope, api) in [
            (Scope::Parse, "parse"),
            (Scope::Until, "parse_until"),
            (Scope::Prefix, "parse_prefix"),
        ] {
            let mut p = Parser::new(s);
            let want = &elapsed_set;
            engines.push((
                format!("ndq_{}_{api}", s.name()),
                Box::new(move |line| ndq_elapsed(&mut p, line, want, scope)),
            ));
        }
        if s == Scanner::Avx2 {
            // The rest of each line validated by the walk alone, not by line shapes.
            let mut p = Parser::new(s).without_shapes();
            let want = &elapsed_set;
            engines.push((
                "ndq_avx2_parse_until_walk".into(),
                Box::new(move |line| ndq_elapsed(&mut p, line, want, Scope::Until)),
            ));
        }
    }
    let mut group = group_over_lines(c, "elapsed", total);
    let answer = check_and_bench(
        &mut group,
        &mut engines,
        &each,
        ranges.len(),
        "Elapsed",
        Decimal::ZERO,
        |got, value| {
            if let Some(d) = value {
                got.0 += 1;
                got.1 += d;
            }
        },
    );
    // simd-json parses numbers to f64 (no exact text): checked on the f64 sum.
    let mut buf = Vec::new();
    let mut simd = |line: &[u8]| -> Option<f64> {
        buf.clear();
        buf.extend_from_slice(line);
        let v = simd_json::to_borrowed_value(&mut buf).ok()?;
        v.get("Elapsed")?.as_f64()
    };
    let mut sum = 0.0;
    each(&mut |line| sum += simd(line).unwrap_or(0.0));
    let want: f64 = answer.map_or(0.0, |a| a.1.to_string().parse().unwrap_or(0.0));
    assert!(
        (sum - want).abs() <= want.abs() * 1e-9,
        "simd-json {sum} vs {want}"
    );
    group.bench_function("simd_json_borrowed", |b| {
        b.iter(|| {
            each(&mut |line| {
                black_box(simd(black_box(line)));
            })
        })
    });
    group.finish();

    // --- Message unescaped ---
    let mut engines: Vec<Engine<usize>> = vec![
        (
            "serde_json_value".into(),
            Box::new(|line| {
                let v: serde_json::Value = serde_json::from_slice(line).unwrap_or_default();
                v.get("Message")
                    .and_then(|m| m.as_str())
                    .map_or(0, str::len)
            }),
        ),
        (
            "serde_json_struct".into(),
            Box::new(|line| {
                serde_json::from_slice::<MessageOnly>(line)
                    .ok()
                    .and_then(|v| v.message)
                    .map_or(0, |m| m.len())
            }),
        ),
        (
            "sonic_rs_get".into(),
            Box::new(|line| {
                sonic_rs::get_from_slice(line, ["Message"])
                    .ok()
                    .and_then(|v| v.as_str().map(str::len))
                    .unwrap_or(0)
            }),
        ),
        (
            "simd_json_borrowed".into(),
            Box::new({
                let mut buf = Vec::new();
                move |line| {
                    buf.clear();
                    buf.extend_from_slice(line);
                    simd_json::to_borrowed_value(&mut buf)
                        .ok()
                        .and_then(|v| v.get("Message").and_then(|m| m.as_str()).map(str::len))
                        .unwrap_or(0)
                }
            }),
        ),
    ];
    for &s in &scanners {
        let mut p = Parser::new(s);
        engines.push((
            format!("ndq_{}_parse", s.name()),
            Box::new(move |line| ndq_message(&mut p, line, None)),
        ));
        let mut p = Parser::new(s);
        let want = &message_set;
        engines.push((
            format!("ndq_{}_parse_until", s.name()),
            Box::new(move |line| ndq_message(&mut p, line, Some(want))),
        ));
    }
    let mut group = group_over_lines(c, "message", total);
    check_and_bench(
        &mut group,
        &mut engines,
        &each,
        ranges.len(),
        "Message",
        0,
        |got, n| {
            got.0 += usize::from(n > 0);
            got.1 += n;
        },
    );
    group.finish();
}

/// A group of benches that each run over all the lines (`total` bytes): few samples, as a
/// run is long.
fn group_over_lines<'c>(
    c: &'c mut Criterion,
    name: &str,
    total: u64,
) -> BenchmarkGroup<'c, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .throughput(Throughput::Bytes(total))
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group
}

/// Bench each engine in `group` over all the lines (`each` calls its argument on every one
/// of the `lines`), after checking its answer, the answer every engine must give: (lines
/// that had the property `key`, a sum), its results folded by `add` from `(0, zero)`, must be
/// the first engine's (serde_json's) and count more than half the lines. Returns that answer.
fn check_and_bench<T, S: Copy + PartialEq + std::fmt::Debug>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    engines: &mut [Engine<'_, T>],
    each: &EachLine,
    lines: usize,
    key: &str,
    zero: S,
    add: impl Fn(&mut (usize, S), T),
) -> Option<(usize, S)> {
    let mut answer = None;
    for (name, f) in engines {
        let mut got = (0, zero);
        each(&mut |line| add(&mut got, f(line)));
        let want = *answer.get_or_insert(got);
        assert_eq!(got, want, "{name} disagrees with serde_json");
        assert!(want.0 > lines / 2, "{key} on {} lines", want.0);
        group.bench_function(name.as_str(), |b| {
            b.iter(|| {
                each(&mut |line| {
                    black_box(f(black_box(line)));
                })
            })
        });
    }
    answer
}

criterion_group!(benches, bench);
criterion_main!(benches);
