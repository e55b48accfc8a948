//! Rendering measured figures as a table (terminal), a Markdown table (README) or JSON
//! (scripts). Pure functions from [`CaseResult`]s to text: no clock and no I/O, so the layout
//! is tested with made-up figures.
//!
//! Table columns: `case | p90 (+/-) | tp (events) | tp (hits) | hits | tp (data) | query`.
//! When both engines ran (`--engine all`) each case has a `lazy` row then a `serde` row, an
//! `engine` column after `case`, and a `speed-up` column before `query`: serde's time over
//! lazy's at the percentile on the lazy row, `1.00x` on the serde (baseline) row. The query is
//! written on a case's first row only.
//!
//! JSON: one object per case and line, with every figure, all times in whole nanoseconds:
//! `{"case", "line", "query", "percentile", "runs", "warmup", "scanner", "threads",
//! "lazy": {...}, "serde": {...}, "speedup"}` where an engine's key is present only when it
//! ran, and `speedup` is `null` unless both did.

use std::fmt::Write as _;
use std::time::Duration;

use serde_json::json;
use unicode_width::UnicodeWidthStr;

use super::Engine;
use super::stats::{self, Figures};
use crate::output::cut;

/// What one case measured on each engine that ran.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// 1-based position among the cases.
    pub number: usize,
    /// Line of the cases file the query came from.
    pub line: usize,
    /// The query text.
    pub query: String,
    /// Figures per engine, lazy first.
    pub results: Vec<(Engine, Figures)>,
}

impl CaseResult {
    /// The figures of `engine`, if it ran.
    pub fn figures(&self, engine: Engine) -> Option<&Figures> {
        self.results
            .iter()
            .find(|(e, _)| *e == engine)
            .map(|(_, f)| f)
    }

    /// Serde's time over lazy's at the percentile, when both ran.
    pub fn speedup(&self) -> Option<f64> {
        stats::speedup(self.figures(Engine::Lazy)?, self.figures(Engine::Serde)?)
    }
}

/// The settings every case ran with (repeated in each JSON object).
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// Percentile reported, in (0, 100].
    pub percentile: f64,
    /// Timed runs per case and engine.
    pub runs: usize,
    /// Untimed warm-up runs per case and engine.
    pub warmup: usize,
    /// Scanner name (`avx2` or `scalar`).
    pub scanner: String,
    /// Worker threads.
    pub threads: usize,
    /// Whether the lazy engine skipped the lines the literal prefilter rules out
    /// (`NDQ_PREFILTER=off` turns it off; the serde baseline never skips).
    pub prefilter: bool,
    /// The inputs as named on the command line, and the cases file: the json report carries
    /// them (with ndq's version) so reports saved from two builds or two inputs say which.
    pub inputs: Vec<String>,
    pub cases: String,
}

#[cfg(test)]
impl Setup {
    /// The settings the tests' reports are made with.
    pub(crate) fn example() -> Setup {
        Setup {
            percentile: 90.0,
            runs: 5,
            warmup: 1,
            scanner: "avx2".into(),
            threads: 2,
            prefilter: true,
            inputs: vec!["logs-1g.ndjson".into()],
            cases: "cases.txt".into(),
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Align {
    Left,
    Right,
}

/// The header, alignments and cells of the table, shared by the terminal and Markdown forms.
fn grid(
    setup: &Setup,
    cases: &[CaseResult],
    markdown: bool,
) -> (Vec<String>, Vec<Align>, Vec<Vec<String>>) {
    let both = cases.iter().any(|c| c.results.len() > 1);
    let mut header = vec!["case".to_string()];
    let mut align = vec![Align::Right];
    if both {
        header.push("engine".into());
        align.push(Align::Left);
    }
    for h in [
        format!("{} (+/-)", stats::percentile_label(setup.percentile)),
        "tp (events)".into(),
        "tp (hits)".into(),
        "hits".into(),
        "tp (data)".into(),
    ] {
        header.push(h);
        align.push(Align::Right);
    }
    if both {
        header.push("speed-up".into());
        align.push(Align::Right);
    }
    header.push("query".into());
    align.push(Align::Left);

    let mut rows = Vec::new();
    for case in cases {
        let speedup = case.speedup();
        for (i, (engine, f)) in case.results.iter().enumerate() {
            let mut row = vec![case.number.to_string()];
            if both {
                row.push(engine.name().to_string());
            }
            row.push(format!(
                "{} (+{}/-{})",
                stats::duration(f.at),
                stats::duration(f.plus()),
                stats::duration(f.minus())
            ));
            row.push(stats::rate(f.events_per_sec()));
            row.push(stats::rate(f.hits_per_sec()));
            row.push(stats::share(f.hit_share()));
            row.push(stats::data_rate(f.bytes_per_sec()));
            if both {
                row.push(match (engine, speedup) {
                    (Engine::Lazy, s) => stats::ratio(s),
                    (Engine::Serde, Some(_)) => stats::ratio(Some(1.0)),
                    (Engine::Serde, None) => "-".into(),
                });
            }
            // Tabs (and other control characters) as spaces, so the row stays one line of
            // known width.
            let query: String = case
                .query
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            row.push(match (i, markdown) {
                (0, false) => cut(&query, QUERY_WIDTH),
                (0, true) => markdown_code(&query),
                _ => String::new(),
            });
            rows.push(row);
        }
    }
    (header, align, rows)
}

/// Terminal columns of a query in the table (every row is as wide as the widest query):
/// past it, the query is cut with `…` (the json report has it whole).
const QUERY_WIDTH: usize = 200;

/// The aligned table for a terminal (also valid Markdown, without alignment colons).
pub fn table(setup: &Setup, cases: &[CaseResult]) -> String {
    let (header, align, rows) = grid(setup, cases, false);
    render_grid(&header, &align, &rows, false)
}

/// A Markdown table with right-aligned figures, the query as inline code.
pub fn markdown(setup: &Setup, cases: &[CaseResult]) -> String {
    let (header, align, rows) = grid(setup, cases, true);
    render_grid(&header, &align, &rows, true)
}

fn render_grid(header: &[String], align: &[Align], rows: &[Vec<String>], markdown: bool) -> String {
    // Terminal columns: a CJK character or an emoji takes two (as in `-o table`).
    let width = |s: &str| UnicodeWidthStr::width(s);
    let mut widths: Vec<usize> = header.iter().map(|h| width(h)).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    // Markdown needs at least three dashes per column in the rule.
    if markdown {
        for w in &mut widths {
            *w = (*w).max(3);
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[String]| {
        out.push('|');
        for ((cell, &w), &a) in cells.iter().zip(&widths).zip(align) {
            let pad = " ".repeat(w - width(cell));
            match a {
                Align::Left => out.push_str(&format!(" {cell}{pad} |")),
                Align::Right => out.push_str(&format!(" {pad}{cell} |")),
            }
        }
        out.push('\n');
    };
    line(&mut out, header);
    out.push('|');
    for (&w, &a) in widths.iter().zip(align) {
        let dashes = "-".repeat(w);
        match (markdown, a) {
            (true, Align::Right) => out.push_str(&format!("-{dashes}:|")),
            _ => out.push_str(&format!("-{dashes}-|")),
        }
    }
    out.push('\n');
    for row in rows {
        line(&mut out, row);
    }
    out
}

/// `text` as Markdown inline code inside a table cell: backticks long enough to hold any run
/// of backticks in it, and `|` escaped (GFM tables split cells on it even inside code).
fn markdown_code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", text.replace('|', "\\|"))
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn figures_json(f: &Figures) -> serde_json::Value {
    json!({
        "runs_ns": f.runs.iter().map(|&d| nanos(d)).collect::<Vec<_>>(),
        "p_ns": nanos(f.at),
        "plus_ns": nanos(f.plus()),
        "minus_ns": nanos(f.minus()),
        "min_ns": nanos(f.min),
        "max_ns": nanos(f.max),
        "median_ns": nanos(f.median),
        "mean_ns": nanos(f.mean()),
        "events": f.counts.events,
        "hits": f.counts.hits,
        "hit_share": f.hit_share(),
        "bytes": f.counts.bytes,
        "events_per_s": f.events_per_sec(),
        "hits_per_s": f.hits_per_sec(),
        "bytes_per_s": f.bytes_per_sec(),
    })
}

/// One JSON object per case, one per line.
pub fn json(setup: &Setup, cases: &[CaseResult]) -> String {
    let mut out = String::new();
    for case in cases {
        let mut obj = json!({
            "case": case.number,
            "line": case.line,
            "query": case.query,
            "percentile": setup.percentile,
            "runs": setup.runs,
            "warmup": setup.warmup,
            "scanner": setup.scanner,
            "threads": setup.threads,
            "prefilter": setup.prefilter,
            "inputs": setup.inputs,
            "cases_file": setup.cases,
            "version": env!("CARGO_PKG_VERSION"),
        });
        if let Some(map) = obj.as_object_mut() {
            for (engine, f) in &case.results {
                map.insert(engine.name().to_string(), figures_json(f));
            }
            map.insert("speedup".into(), json!(case.speedup()));
        }
        // Writing to a String cannot fail.
        let _ = writeln!(out, "{obj}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::stats::Counts;

    fn ms(v: &[u64]) -> Vec<Duration> {
        v.iter().map(|&m| Duration::from_millis(m)).collect()
    }

    const COUNTS: Counts = Counts {
        events: 1_000_000,
        hits: 250_000,
        bytes: 1_073_741_824,
    };

    fn figures(runs: &[u64], counts: Counts) -> Figures {
        Figures::new(ms(runs), 90.0, counts).expect("runs")
    }

    fn one_engine() -> Vec<CaseResult> {
        vec![
            CaseResult {
                number: 1,
                line: 3,
                query: "select Message from stream where Elapsed > 200".into(),
                results: vec![(Engine::Lazy, figures(&[500, 480, 520, 510, 490], COUNTS))],
            },
            CaseResult {
                number: 2,
                line: 5,
                query: "select sum(Elapsed), count(*) from stream".into(),
                results: vec![(
                    Engine::Lazy,
                    figures(
                        &[1000, 1010, 1020, 1030, 1040, 1050, 1060, 1070, 1200, 1500],
                        Counts {
                            hits: 1_000_000,
                            ..COUNTS
                        },
                    ),
                )],
            },
        ]
    }

    #[test]
    fn grid_columns_line_up_in_terminal_columns() {
        let header = vec!["case".to_string(), "query".to_string()];
        let rows = vec![
            vec!["1".to_string(), "where m = '日本'".to_string()],
            vec!["2".to_string(), "select x".to_string()],
        ];
        let text = render_grid(&header, &[Align::Right, Align::Left], &rows, false);
        let widths: Vec<usize> = text.lines().map(UnicodeWidthStr::width).collect();
        assert!(widths.iter().all(|&w| w == widths[0]), "{text}");
    }

    #[test]
    fn table_layout_one_engine() {
        let want = "\
| case |                p90 (+/-) | tp (events) | tp (hits) |  hits | tp (data) | query                                          |
|------|--------------------------|-------------|-----------|-------|-----------|------------------------------------------------|
|    1 |  520 ms (+0 ns/-40.0 ms) |     1.92M/s |    481K/s | 25.0% | 2.06 GB/s | select Message from stream where Elapsed > 200 |
|    2 | 1.20 s (+300 ms/-200 ms) |      833K/s |    833K/s |  100% |  895 MB/s | select sum(Elapsed), count(*) from stream      |
";
        assert_eq!(table(&Setup::example(), &one_engine()), want);
    }

    fn both_engines() -> Vec<CaseResult> {
        let hits = Counts {
            events: 2_000,
            hits: 20,
            bytes: 2_000_000,
        };
        vec![CaseResult {
            number: 1,
            line: 7,
            query: "select Message where match(Message, '/api/a|b')".into(),
            results: vec![
                (Engine::Lazy, figures(&[10, 12, 11], hits)),
                (Engine::Serde, figures(&[50, 49, 48], hits)),
            ],
        }]
    }

    #[test]
    fn table_layout_both_engines_has_speedup() {
        // lazy p90 = 12 ms, serde p90 = 50 ms: 50 / 12 = 4.17x. 2000 events in 12 ms are
        // 167K/s, 20 hits 1.67K/s, 2 MB 167 MB/s. The query shows on the first row only.
        let want = "\
| case | engine |                p90 (+/-) | tp (events) | tp (hits) |  hits | tp (data) | speed-up | query                                           |
|------|--------|--------------------------|-------------|-----------|-------|-----------|----------|-------------------------------------------------|
|    1 | lazy   | 12.0 ms (+0 ns/-2.00 ms) |      167K/s |   1.67K/s | 1.00% |  167 MB/s |    4.17x | select Message where match(Message, '/api/a|b') |
|    1 | serde  | 50.0 ms (+0 ns/-2.00 ms) |     40.0K/s |     400/s | 1.00% | 40.0 MB/s |    1.00x |                                                 |
";
        assert_eq!(table(&Setup::example(), &both_engines()), want);
    }

    #[test]
    fn a_long_query_is_cut_in_the_table_only() {
        let long = format!("select count(*) where a in ({})", "'x', ".repeat(100));
        assert_eq!(UnicodeWidthStr::width(cut(&long, 60).as_str()), 60);
        assert!(cut(&long, 60).ends_with('…'));
        assert_eq!(cut("select 1", 60), "select 1");
        // Wide characters count two columns, and none is split.
        assert_eq!(cut("ab日本語", 6), "ab日…");
    }

    #[test]
    fn markdown_aligns_right_and_quotes_the_query() {
        // A pipe inside the query is escaped so GFM keeps it in the cell.
        let want = "\
| case | engine |                p90 (+/-) | tp (events) | tp (hits) |  hits | tp (data) | speed-up | query                                              |
|-----:|--------|-------------------------:|------------:|----------:|------:|----------:|---------:|----------------------------------------------------|
|    1 | lazy   | 12.0 ms (+0 ns/-2.00 ms) |      167K/s |   1.67K/s | 1.00% |  167 MB/s |    4.17x | `select Message where match(Message, '/api/a\\|b')` |
|    1 | serde  | 50.0 ms (+0 ns/-2.00 ms) |     40.0K/s |     400/s | 1.00% | 40.0 MB/s |    1.00x |                                                    |
";
        assert_eq!(markdown(&Setup::example(), &both_engines()), want);
    }

    #[test]
    fn markdown_code_spans() {
        assert_eq!(markdown_code("a"), "`a`");
        assert_eq!(markdown_code("a | b"), "`a \\| b`");
        assert_eq!(markdown_code("x = '`'"), "``x = '`'``");
        assert_eq!(markdown_code("`x`"), "`` `x` ``");
    }

    #[test]
    fn json_has_every_figure() {
        let text = json(&Setup::example(), &both_engines());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "one object per case");
        let v: serde_json::Value = serde_json::from_str(lines[0]).expect("valid JSON");
        assert_eq!(v["case"], 1);
        assert_eq!(v["line"], 7);
        assert_eq!(
            v["query"],
            "select Message where match(Message, '/api/a|b')"
        );
        assert_eq!(v["percentile"].as_f64(), Some(90.0));
        assert_eq!(
            (v["runs"].as_u64(), v["warmup"].as_u64()),
            (Some(5), Some(1))
        );
        assert_eq!(
            (&v["scanner"], v["threads"].as_u64()),
            (&json!("avx2"), Some(2))
        );
        assert_eq!(v["prefilter"], json!(true));
        assert_eq!(v["inputs"], json!(["logs-1g.ndjson"]));
        assert_eq!(v["cases_file"], json!("cases.txt"));
        assert_eq!(v["version"], json!(env!("CARGO_PKG_VERSION")));
        let lazy = &v["lazy"];
        let runs: Vec<u64> = lazy["runs_ns"]
            .as_array()
            .expect("array")
            .iter()
            .filter_map(|n| n.as_u64())
            .collect();
        assert_eq!(
            runs,
            [10_000_000, 12_000_000, 11_000_000],
            "every run, in run order"
        );
        for (key, want) in [
            ("p_ns", 12_000_000),
            ("plus_ns", 0),
            ("minus_ns", 2_000_000),
            ("min_ns", 10_000_000),
            ("max_ns", 12_000_000),
            ("median_ns", 11_000_000),
            ("mean_ns", 11_000_000),
            ("events", 2_000),
            ("hits", 20),
            ("bytes", 2_000_000),
        ] {
            assert_eq!(lazy[key].as_u64(), Some(want), "lazy.{key}");
        }
        let close = |x: &serde_json::Value, want: f64| {
            let x = x.as_f64().expect("number");
            assert!((x - want).abs() <= want * 1e-9, "{x} vs {want}");
        };
        close(&lazy["hit_share"], 0.01);
        close(&lazy["events_per_s"], 2_000.0 / 0.012);
        close(&lazy["hits_per_s"], 20.0 / 0.012);
        close(&lazy["bytes_per_s"], 2_000_000.0 / 0.012);
        assert_eq!(v["serde"]["p_ns"].as_u64(), Some(50_000_000));
        close(&v["speedup"], 50.0 / 12.0);

        // One engine: no key for the other, speed-up null, one line per case.
        let text = json(&Setup::example(), &one_engine());
        let objs: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("valid JSON"))
            .collect();
        assert_eq!(objs.len(), 2);
        assert!(objs[0].get("serde").is_none());
        assert!(objs[0]["speedup"].is_null());
        assert_eq!(
            objs[1]["lazy"]["runs_ns"].as_array().map(Vec::len),
            Some(10)
        );
    }
}
