//! `ndq bench`: measure how fast ndq answers the queries of a cases file.
//!
//! ```text
//! ndq bench --cases testdata/cases.txt [--runs 10] [--warmup 1] [--percentile 90]
//!           [--engine lazy|serde|all] [--scanner auto|avx2|scalar] [-o table|json|md] INPUT...
//! ```
//!
//! Every query is compiled before anything runs (a bad one is reported with its line number,
//! exit 2). The inputs are opened (mapped) once and reused by every run. A first pass counts
//! the events, then each case runs `warmup + runs` times per engine through the same parallel
//! driver as `ndq` itself, its output formatted as JSON into a sink: formatting is counted,
//! terminal writes are not. The `serde` engine is the baseline: every line parsed completely
//! with `serde_json` into a `Value` and the same query run on it. The `lazy` engine skips the
//! lines its literal prefilter rules out, and the rest of the lines its `where` rules out from
//! the keys read first, as `ndq` does (`NDQ_PREFILTER=off` turns both off); they still count
//! as events, so both engines report the same events.
//!
//! Streams: the table (or JSON, Markdown) is the result and goes to stdout; the summary of
//! what was loaded, the one line per finished case and the progress bar (only when stderr is
//! a terminal) are diagnostics and go to stderr, so `-o json > figures.json` stays clean.
//!
//! Figures ([`stats`]): nearest-rank percentile of the run times, `+` = slowest − percentile,
//! `-` = percentile − fastest, throughputs per second at the percentile's time, decimal units.

mod cases;
mod exec;
mod measure;
mod report;
mod stats;

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Parser, ValueEnum};

use crate::cli::ScannerArg;
use crate::driver::Engine;
use crate::exit::{ExitCode, Failure};

use measure::{Progress, Schedule};
use report::Setup;

const AFTER_HELP: &str = "\
Each case runs WARMUP untimed and RUNS timed times (per engine, the engines interleaved).
The table goes to stdout; the summary and progress go to stderr.

Columns: pNN (+/-) is the run time at the percentile (nearest rank), + the slowest run minus
it, - it minus the fastest; tp (events), tp (hits), tp (data) are events, matched events and
input bytes per second at that time (K, M, G and KB, MB, GB are powers of 1000); hits is the
share of events that matched `where`; speed-up (--engine all) is serde's time over lazy's.
A case with a `limit` stops reading early: its events are the lines it went past, which for
the lazy engine include lines its prefilter skipped unread (malformed ones too), so its
counts are not compared between engines.

Comparing runs: the inputs are read from the page cache, and on Linux the size of its pages
moves every figure (run times by 11-24% on the generated logs). Where the kernel allows it
(transparent huge pages on `madvise` or `always`), a file ndq reads from disk is cached in
2 MiB pages; a file just written, or read by other programs, may be in smaller ones. To
compare builds or machines, drop the inputs from the cache first (`sync FILE && dd if=FILE
iflag=nocache count=0`): the first pass then reads them back in 2 MiB pages.

Environment: NDQ_PREFILTER=off makes the lazy engine parse and validate every line whole (the
literal prefilter and deciding `where` before the rest of a line are on by default, as in ndq
itself); NDQ_SCANNER=auto|scalar|avx2 pins the scanner when --scanner is not given.

Examples:
  ndq bench --cases testdata/cases.txt testdata/sample.ndjson
  ndq bench --engine all --runs 5 --cases testdata/cases.txt logs-1g.ndjson
  ndq bench -o json --cases testdata/cases.txt logs/ > figures.ndjson

Exit status: 0 ok, 1 runtime error, 2 usage error or a bad query in the cases file.";

/// Measure query speed: run each query of a cases file N times and report latency at a
/// percentile and throughput.
#[derive(Debug, Parser)]
#[command(
    name = "ndq bench",
    bin_name = "ndq bench",
    version,
    after_long_help = AFTER_HELP
)]
pub struct BenchArgs {
    /// File of queries, one per line (blank lines and `#` comments are skipped); `-` reads
    /// them from standard input.
    #[arg(long, value_name = "FILE")]
    cases: PathBuf,

    /// Timed runs per case and engine.
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,

    /// Untimed warm-up runs per case and engine, before the timed ones.
    #[arg(long, value_name = "N", default_value_t = 1)]
    warmup: u32,

    /// Percentile of the run times to report, 0 < P <= 100.
    #[arg(long, value_name = "P", default_value_t = 90.0, value_parser = parse_percentile)]
    percentile: f64,

    /// Engine: ndq's lazy scanner, the serde_json baseline, or both (adds a speed-up column).
    #[arg(long, value_enum, default_value_t = Engines::Lazy)]
    engine: Engines,

    /// Pin the JSON scanner (avx2 on a CPU without AVX2 is an error) [default: NDQ_SCANNER
    /// when set, else auto].
    #[arg(long, value_enum)]
    scanner: Option<ScannerArg>,

    /// Worker threads [default: the number of CPUs].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,

    /// Result format: an aligned table, one JSON object per case (its figures with the inputs,
    /// the settings and ndq's version), or a Markdown table.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ReportFormat::Table)]
    output: ReportFormat,

    /// Files or directories to read, as `ndq` reads them (not standard input: every run reads
    /// the inputs again).
    #[arg(value_name = "INPUT", required = true, value_parser = crate::cli::input_path())]
    inputs: Vec<PathBuf>,
}

/// `ndq bench --engine`: which engines run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Engines {
    Lazy,
    Serde,
    All,
}

impl Engines {
    fn engines(self) -> &'static [Engine] {
        match self {
            Engines::Lazy => &[Engine::Lazy],
            Engines::Serde => &[Engine::Serde],
            Engines::All => &[Engine::Lazy, Engine::Serde],
        }
    }
}

/// `ndq bench -o`: how the figures are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    Table,
    Json,
    Md,
}

fn parse_percentile(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
        _ => Err("must be a number with 0 < P <= 100".into()),
    }
}

/// `ndq bench`: `args` is the command line after the program name, starting with `bench`.
pub fn main(args: Vec<OsString>) -> ExitCode {
    match BenchArgs::try_parse_from(args) {
        Ok(args) => ExitCode::of(run(&args)),
        Err(e) => ExitCode::of_clap(&e),
    }
}

pub fn run(args: &BenchArgs) -> Result<(), Failure> {
    // The same probe of the environment as the main command's (config.rs).
    let env = crate::config::Env::probe();
    let scanner = crate::config::chosen_scanner(args.scanner, &env).map_err(Failure::usage)?;
    let threads = match args.threads {
        Some(n) => n as usize,
        None => env.cores,
    };
    let prefilter = crate::config::prefilter(env.prefilter.as_deref()).map_err(Failure::usage)?;
    let inflate_whole =
        crate::config::inflate_whole(env.inflate.as_deref()).map_err(Failure::usage)?;

    let cases_name = args.cases.display().to_string();
    let bytes = if args.cases.as_os_str() == "-" {
        let mut bytes = Vec::new();
        io::stdin()
            .read_to_end(&mut bytes)
            .map(|_| bytes)
            .map_err(|e| anyhow::anyhow!("{cases_name} (standard input): {e}"))?
    } else {
        std::fs::read(&args.cases).map_err(|e| anyhow::anyhow!("{cases_name}: {e}"))?
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        Failure::usage(format!("{cases_name}:{line}: not valid UTF-8"))
    })?;
    let mut cases = cases::parse(&text);
    if cases.is_empty() {
        return Err(Failure::usage(format!("{cases_name}: no queries")));
    }
    let plans = cases::compile_all(&cases_name, &cases, |query| {
        ndq_query::Plan::compile(query).map_err(|e| {
            let time = ndq_query::TimeOptions::default();
            match ndq_query::Plan::keyword_left_out(query.trim(), &time) {
                Some(fixed) => format!("{e}\ndid you mean: {fixed}"),
                None => e.to_string(),
            }
        })
    })
    .map_err(Failure::Usage)?;
    // A run of a query with a `limit` may stop early: its counts are not compared.
    for (case, plan) in cases.iter_mut().zip(&plans) {
        case.limited = plan.early_stop();
    }

    let engines = args.engine.engines();
    let mut exec = exec::DriverExecutor::open(
        &args.inputs,
        plans,
        scanner,
        threads,
        prefilter,
        inflate_whole,
    )?;
    if let Some(name) = exec.unrepeatable() {
        return Err(Failure::usage(format!(
            "{name}: ndq bench reads its inputs once per run; standard input, pipes and \
             devices cannot be read again (save them to a file)"
        )));
    }
    let loaded = exec.analyze()?;
    let setup = Setup {
        percentile: args.percentile,
        runs: args.runs as usize,
        warmup: args.warmup as usize,
        scanner: scanner.name().to_string(),
        threads,
        prefilter,
        inputs: args
            .inputs
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        cases: cases_name.clone(),
    };
    let stderr_tty = env.stderr_tty;
    // Like every diagnostic, written if stderr takes it (a full disk is no reason to stop).
    let _ = write!(
        io::stderr(),
        "{}",
        summary(
            &args.inputs,
            &loaded,
            &cases_name,
            cases.len(),
            engines,
            &setup
        )
    );

    let schedule = Schedule {
        runs: setup.runs,
        warmup: setup.warmup,
        percentile: setup.percentile,
    };
    let mut progress = Progress::new(io::stderr(), stderr_tty);
    let results = measure::measure(&mut exec, &cases, engines, schedule, &mut progress)?;

    let text = match args.output {
        ReportFormat::Table => report::table(&setup, &results),
        ReportFormat::Json => report::json(&setup, &results),
        ReportFormat::Md => report::markdown(&setup, &results),
    };
    let mut stdout = io::stdout().lock();
    // A closed pipe (`| head`) is not an error (Failure::report).
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .context("writing the results")?;
    Ok(())
}

/// What the first pass found in the inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Lines that are JSON objects.
    pub events: u64,
    /// Lines that are not (skipped by every run).
    pub malformed: u64,
    /// Bytes of input.
    pub bytes: u64,
}

/// The lines printed before running, flaretl-style: what was loaded and how it will run.
fn summary(
    inputs: &[PathBuf],
    loaded: &Loaded,
    cases_name: &str,
    cases: usize,
    engines: &[Engine],
    setup: &Setup,
) -> String {
    let names: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    let malformed = match loaded.malformed {
        0 => String::new(),
        1 => " (and 1 line that is not a JSON object, skipped)".to_string(),
        n => format!(
            " (and {} lines that are not JSON objects, skipped)",
            grouped(n)
        ),
    };
    let names_of: Vec<&str> = engines.iter().map(|e| e.name()).collect();
    let mut engine = vec![
        names_of.join(" and "),
        format!(
            "{} thread{}",
            setup.threads,
            if setup.threads == 1 { "" } else { "s" }
        ),
    ];
    // The scanner and the prefilter are the lazy engine's; the serde baseline uses neither.
    if engines.contains(&Engine::Lazy) {
        engine.insert(1, format!("scanner {}", setup.scanner));
        engine.push(format!(
            "prefilter {}",
            if setup.prefilter { "on" } else { "off" }
        ));
    }
    let warmup = match setup.warmup {
        0 => "no warm-up".to_string(),
        1 => "after 1 warm-up".to_string(),
        n => format!("after {n} warm-ups"),
    };
    format!(
        "ndq: bench: inputs      {}\n\
         ndq: bench: events      {}{malformed}\n\
         ndq: bench: value data  {} bytes ({})\n\
         ndq: bench: cases       {cases} from {cases_name}\n\
         ndq: bench: runs        {} per case and engine, {warmup}; {} (nearest rank)\n\
         ndq: bench: engine      {}\n",
        names.join(", "),
        grouped(loaded.events),
        grouped(loaded.bytes),
        stats::bytes(loaded.bytes),
        setup.runs,
        stats::percentile_label(setup.percentile),
        engine.join("; "),
    )
}

/// `1234567` as `1,234,567`.
pub(crate) fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn args_are_well_formed() {
        BenchArgs::command().debug_assert();
    }

    fn parse(args: &[&str]) -> Result<BenchArgs, clap::Error> {
        BenchArgs::try_parse_from(std::iter::once("bench").chain(args.iter().copied()))
    }

    #[test]
    fn defaults() {
        let a = parse(&["--cases", "c.txt", "a.ndjson", "dir"]).expect("valid");
        assert_eq!(a.cases, PathBuf::from("c.txt"));
        assert_eq!((a.runs, a.warmup, a.percentile), (10, 1, 90.0));
        assert_eq!(a.engine, Engines::Lazy);
        assert_eq!(a.scanner, None);
        assert_eq!(a.threads, None);
        assert_eq!(a.output, ReportFormat::Table);
        assert_eq!(a.inputs, [PathBuf::from("a.ndjson"), PathBuf::from("dir")]);
    }

    #[test]
    fn every_flag() {
        let a = parse(&[
            "--cases=c.txt",
            "--runs",
            "3",
            "--warmup",
            "0",
            "--percentile",
            "99.9",
            "--engine",
            "all",
            "--scanner",
            "scalar",
            "--threads",
            "2",
            "-o",
            "md",
            "x.ndjson",
        ])
        .expect("valid");
        assert_eq!((a.runs, a.warmup, a.percentile), (3, 0, 99.9));
        assert_eq!(a.engine.engines(), [Engine::Lazy, Engine::Serde]);
        assert_eq!(a.scanner, Some(ScannerArg::Scalar));
        assert_eq!(a.threads, Some(2));
        assert_eq!(a.output, ReportFormat::Md);
        let j = parse(&["--cases", "c", "--output", "json", "--engine", "serde", "x"]).expect("ok");
        assert_eq!(j.output, ReportFormat::Json);
        assert_eq!(j.engine.engines(), [Engine::Serde]);
    }

    #[test]
    fn bad_arguments_are_usage_errors() {
        for bad in [
            &["x"][..],                                  // no --cases
            &["--cases", "c"],                           // no input
            &["--cases", "c", "--runs", "0", "x"],       // no timed run
            &["--cases", "c", "--percentile", "0", "x"], // out of (0, 100]
            &["--cases", "c", "--percentile", "100.1", "x"],
            &["--cases", "c", "--percentile", "NaN", "x"],
            &["--cases", "c", "--engine", "fast", "x"],
            &["--cases", "c", "--scanner", "sse", "x"],
            &["--cases", "c", "--threads", "0", "x"],
            &["--cases", "c", "-o", "csv", "x"],
        ] {
            let err = parse(bad).expect_err(&format!("{bad:?} should fail"));
            assert!(err.use_stderr(), "{bad:?}");
            assert_eq!(err.exit_code(), 2, "{bad:?}");
        }
        assert_eq!(parse_percentile("100"), Ok(100.0));
        assert_eq!(parse_percentile("0.5"), Ok(0.5));
    }

    #[test]
    fn summary_lines() {
        let setup = Setup::example();
        let loaded = Loaded {
            events: 1_045_123,
            malformed: 0,
            bytes: 1_073_742_583,
        };
        let text = summary(
            &[PathBuf::from("logs-1g.ndjson")],
            &loaded,
            "testdata/cases.txt",
            5,
            &[Engine::Lazy, Engine::Serde],
            &setup,
        );
        assert_eq!(
            text,
            "ndq: bench: inputs      logs-1g.ndjson\n\
             ndq: bench: events      1,045,123\n\
             ndq: bench: value data  1,073,742,583 bytes (1.07 GB)\n\
             ndq: bench: cases       5 from testdata/cases.txt\n\
             ndq: bench: runs        5 per case and engine, after 1 warm-up; p90 (nearest rank)\n\
             ndq: bench: engine      lazy and serde; scanner avx2; 2 threads; prefilter on\n"
        );
        let one = Setup {
            warmup: 0,
            threads: 1,
            prefilter: false,
            ..setup.clone()
        };
        let text = summary(
            &[PathBuf::from("a"), PathBuf::from("b")],
            &Loaded {
                events: 7,
                malformed: 2,
                bytes: 999,
            },
            "c.txt",
            1,
            &[Engine::Lazy],
            &one,
        );
        assert_eq!(
            text,
            "ndq: bench: inputs      a, b\n\
             ndq: bench: events      7 (and 2 lines that are not JSON objects, skipped)\n\
             ndq: bench: value data  999 bytes (999 B)\n\
             ndq: bench: cases       1 from c.txt\n\
             ndq: bench: runs        5 per case and engine, no warm-up; p90 (nearest rank)\n\
             ndq: bench: engine      lazy; scanner avx2; 1 thread; prefilter off\n"
        );
        // The serde baseline alone uses neither the scanner nor the prefilter.
        let text = summary(
            &[PathBuf::from("a")],
            &loaded,
            "c.txt",
            1,
            &[Engine::Serde],
            &setup,
        );
        assert!(
            text.ends_with("ndq: bench: engine      serde; 2 threads\n"),
            "{text}"
        );
    }

    #[test]
    fn grouped_digits() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(12_345_678), "12,345,678");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }
}
