//! `ndq keys`: every property path of the input, with its types, how many lines have it,
//! its distinct values and an example, for a reader meeting a log for the first time.
//!
//! The statistics are the `ndq-keys` crate's; this module runs it through the query driver
//! (the same inputs, windows, chunks and bad-line accounting) in [`Mode::Parts`]: each
//! thread has a [`Collector`], which walks each chunk's lines into a [`Paths`] of the chunk's
//! own, and the parts are folded in chunk order, so the output is the same for any thread
//! count and chunk size. `--limit-lines N` is the driver's `limit`, counting every non-blank
//! line (bad ones too) as a row.
//!
//! Paths come depth first, each right after its parent, siblings in the order first seen in
//! the input (see [`ndq_keys::Paths::finish`]).

use std::io::Write;
use std::path::PathBuf;

use ndq_keys::{Collector, PathStats, Paths};
use ndq_query::Value;

use crate::cli::{ColorChoice, ScannerArg};
use crate::config::{self, Env};
use crate::driver::chunk::{ChunkOut, LineStep};
use crate::driver::{self, Inputs, Mode, QueryFacts, RunOptions, Stats};
use crate::exit::Failure;
use crate::messages::{self, Rejection};
use crate::output::{self, Format, chart};

/// List the property paths of the input, with types, counts, distinct values and examples.
///
/// Lists every path that occurs (`a.b` for a nested object, `a[]` for the elements of an
/// array, `Headers['User-Agent']` for a key a bare name cannot spell), with the JSON types
/// seen and in how many lines, the share of lines that have it, its distinct values (strings,
/// numbers by value and booleans: `1.5` and `1.50` are one; exact up to 10,000, then an
/// estimate shown as `~12.3K`) and the first of them seen. A line whose value at a path is
/// `null` has the path (as `has(PATH)` says); `non_null` (in every format but the table)
/// leaves those lines out, and is what `count(PATH)` counts; `distinct_exact` says whether
/// `distinct` is exact or an estimate. In a table the example is cut to 40 characters.
#[derive(Clone, Debug, clap::Args)]
pub struct KeysArgs {
    /// Files or directories to read; `-` or none for standard input.
    #[arg(value_name = "INPUT", value_parser = crate::cli::input_path())]
    pub inputs: Vec<PathBuf>,

    /// Output format [default: table on a terminal, json otherwise].
    #[arg(short = 'o', long = "output", value_enum, value_name = "FORMAT")]
    pub output: Option<Format>,

    /// Read only the first N lines (blank lines aside).
    #[arg(long, value_name = "N")]
    pub limit_lines: Option<u64>,

    /// Worker threads [default: all cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Make the first line that is not a JSON object an error (exit 1).
    #[arg(long)]
    pub strict: bool,

    /// Print one line of statistics on stderr after the run.
    #[arg(long)]
    pub stats: bool,

    /// Never show the progress bar.
    #[arg(long)]
    pub no_progress: bool,

    /// When to colour the output (the table's header, numbers and nulls; json rows) and the
    /// progress bar: auto (on a terminal, unless NO_COLOR is set or TERM is dumb), always or
    /// never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Pin the JSON scanner (for tests and benchmarks).
    #[arg(long, value_enum, value_name = "SCANNER", hide = true)]
    pub scanner: Option<ScannerArg>,

    /// Bytes per chunk (for tests of the parallel split).
    #[arg(long, value_name = "BYTES", hide = true)]
    pub chunk_size: Option<usize>,

    /// Taken only to be refused with a word on what to do instead (clap's own message
    /// suggested `-- -f`, or `--color`).
    #[arg(short = 'f', long, hide = true)]
    pub follow: bool,

    /// How lines are walked (for tests and measurements of the fast walk).
    #[arg(
        long,
        value_enum,
        value_name = "WALK",
        hide = true,
        default_value = "templates"
    )]
    pub walk: Walk,
}

/// `--walk`: how each line is walked into the paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Walk {
    // Plain comments rather than doc comments: clap would list those in `--help`.
    // By line templates where a line's structure was seen before (see the `ndq-keys` crate).
    Templates,
    // Every line by the plain walk (`Paths::line`), the reference.
    Plain,
}

/// Run `ndq keys`, writing to `out`.
pub fn main(args: KeysArgs, env: &Env, out: &mut dyn Write) -> Result<(), Failure> {
    if args.follow {
        return Err(Failure::usage(
            "ndq keys reads its inputs once: --follow is for queries (ndq -f QUERY FILE); \
             for the keys of the start of a log, use --limit-lines N",
        ));
    }
    let format = match args.output {
        Some(f) => f,
        None if env.stdout_tty => Format::Table,
        None => Format::Json,
    };
    if format.binary() {
        config::binary_output(format, false, env).map_err(Failure::usage)?;
    }
    let scanner = config::chosen_scanner(args.scanner, env).map_err(Failure::usage)?;
    let smart = env.term.as_deref().is_some_and(|t| t != "dumb");
    let color_stdout = config::color(args.color, env.stdout_tty, env);
    let color_stderr = config::color(args.color, env.stderr_tty, env);
    messages::set_color(color_stderr);
    let opts = RunOptions {
        threads: args.threads.map_or(env.cores.max(1), |n| n as usize),
        scanner,
        // With --limit-lines, --strict is checked on the lines read, after the run: under
        // --strict the driver validates every line of the input, past any limit.
        strict: args.strict && args.limit_lines.is_none(),
        progress: env.stderr_tty && smart && !args.no_progress,
        color: color_stderr,
        chunk_size: args.chunk_size,
        ..RunOptions::default()
    };
    let inputs = Inputs::open(&args.inputs)?;
    let (paths, stats) = run(&opts, &inputs, args.limit_lines, args.walk)?;
    if args.strict
        && let Some(first) = &stats.first_bad
    {
        return Err(anyhow::Error::from(driver::StrictError(first.clone())).into());
    }
    let lines = paths.lines();
    let mut buf = Vec::new();
    let look = Look {
        color: color_stdout,
        chart: chart::Size::choose(
            env.columns.as_deref(),
            env.lines.as_deref(),
            env.terminal_size.filter(|_| env.stdout_tty),
            false,
        ),
    };
    write(lines, &paths.finish(), format, look, &mut buf)?;
    let written = out.write_all(&buf).and_then(|()| out.flush());
    // Said also when the reader went away early (`| head`): every line was read.
    if let Some(first) = &stats.first_bad {
        crate::warning!("{}", messages::bad_lines_summary(stats.malformed, first));
    }
    if args.stats {
        messages::message(format_args!("{}", stats.line()));
    }
    written.map_err(|e| anyhow::Error::from(e).into())
}

/// Walk every line of `inputs` (the first `limit` non-blank ones, if given), each the way
/// `walk` says.
pub fn run(
    opts: &RunOptions,
    inputs: &Inputs,
    limit: Option<u64>,
    walk: Walk,
) -> anyhow::Result<(Paths, Stats)> {
    let facts = QueryFacts {
        mode: Mode::Parts,
        limit,
        offset: 0,
        filter: None,
        time: Default::default(),
    };
    let walk = match walk {
        Walk::Templates => ndq_keys::Walk::Templates,
        Walk::Plain => ndq_keys::Walk::Plain,
    };
    let make = || KeysStep {
        collector: Collector::with(opts.scanner, walk),
    };
    let drove = driver::drive(opts, &facts, &make, inputs, &mut std::io::sink())?;
    let paths = drove
        .part
        .and_then(|p| p.downcast::<Paths>().ok())
        .map_or_else(Paths::default, |p| *p);
    Ok((paths, drove.stats))
}

/// The per-thread step: the collector (scanner and line templates), and the chunk's
/// [`Paths`] in [`ChunkOut::part`].
struct KeysStep {
    collector: Collector,
}

impl LineStep for KeysStep {
    fn begin(&self) -> ChunkOut {
        ChunkOut {
            part: Some(Box::new(Paths::default())),
            ..ChunkOut::default()
        }
    }

    fn step(&mut self, line: &[u8], out: &mut ChunkOut) -> Result<(), Rejection> {
        // Every non-blank line is a row, for `--limit-lines`.
        out.rows += 1;
        let Some(paths) = out.part.as_mut().and_then(|p| p.downcast_mut::<Paths>()) else {
            return Ok(());
        };
        self.collector
            .line_into(paths, line)
            .map_err(|r| Rejection::Scan(r.into_verdict()))?;
        out.hits += 1;
        Ok(())
    }

    fn fold(
        total: &mut Option<Box<dyn std::any::Any + Send>>,
        part: Box<dyn std::any::Any + Send>,
    ) {
        let Ok(part) = part.downcast::<Paths>() else {
            return;
        };
        match total.as_mut().and_then(|t| t.downcast_mut::<Paths>()) {
            Some(t) => t.merge(*part),
            None => {
                let mut first = Paths::default();
                first.merge(*part);
                *total = Some(Box::new(first));
            }
        }
    }
}

/// How the output looks where it can: coloured or not, and the size of a chart.
#[derive(Clone, Copy, Debug)]
pub struct Look {
    /// Colour as query results are coloured.
    pub color: bool,
    /// The size of `-o chart`.
    pub chart: chart::Size,
}

/// Characters of an example shown in a table before it is cut with `…`.
const EXAMPLE_WIDTH: usize = 40;

/// Write the paths in `format`, looking as `look` says.
///
/// json: `{"path","types":{"string":294},"lines","non_null","share","distinct",
/// "distinct_exact","example"}` per path, `example` as JSON (parquet, arrow: the same
/// columns, `types` as JSON text); csv, tsv, raw: the same fields, `types` as
/// `string 294, null 3`; table: `share` as a percentage, `distinct` as `812` or `~12.3K`, the
/// example cut at 40 characters; chart: a bar of `lines` per path.
pub fn write(
    lines: u64,
    paths: &[PathStats],
    format: Format,
    look: Look,
    out: &mut Vec<u8>,
) -> anyhow::Result<()> {
    if format == Format::Chart {
        // A picture of one measure: how many lines have each path.
        let columns = ["path", "lines"].map(String::from);
        let rows: Vec<Vec<Value<'static>>> = paths
            .iter()
            .map(|n| {
                vec![
                    Value::String(n.path.clone().into()),
                    Value::RawNumber(n.lines.to_string().into()),
                ]
            })
            .collect();
        output::RowWriter::new(format, &columns)
            .with_color(look.color)
            .with_chart(chart::Spec::sized(look.chart))
            .write_all(&rows, out);
        return Ok(());
    }
    let table = format == Format::Table;
    let names: &[&str] = if table {
        &["path", "types", "lines", "share", "distinct", "example"]
    } else {
        &[
            "path",
            "types",
            "lines",
            "non_null",
            "share",
            "distinct",
            "distinct_exact",
            "example",
        ]
    };
    let columns: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let total = lines.max(1);
    let rows: Vec<Vec<Value<'static>>> = paths
        .iter()
        .map(|n| {
            let seen = || n.types_seen().map(|(t, c)| (c, t));
            let types = if format == Format::Json || format.binary() {
                let fields: Vec<String> = seen().map(|(c, t)| format!("\"{t}\":{c}")).collect();
                Value::RawJson(format!("{{{}}}", fields.join(",")).into())
            } else {
                let fields: Vec<String> = seen().map(|(c, t)| format!("{t} {c}")).collect();
                Value::String(fields.join(", ").into())
            };
            let mut row = vec![
                Value::String(n.path.clone().into()),
                types,
                Value::RawNumber(n.lines.to_string().into()),
            ];
            if table {
                row.push(Value::String(percent(n.lines, total).into()));
                row.push(match n.distinct {
                    None => Value::String("-".into()),
                    Some(d) if d.exact => Value::RawNumber(d.count.to_string().into()),
                    Some(d) => Value::String(format!("~{}", short(d.count)).into()),
                });
                row.push(match &n.example {
                    None => Value::String("".into()),
                    Some(e) => example_cell(e),
                });
            } else {
                row.push(Value::RawNumber(n.non_null.to_string().into()));
                row.push(Value::RawNumber(fraction(n.lines, total).into()));
                if let Some(d) = n.distinct {
                    row.push(Value::RawNumber(d.count.to_string().into()));
                    row.push(Value::Bool(d.exact));
                } else {
                    row.push(Value::Null);
                    row.push(Value::Null);
                }
                row.push(match &n.example {
                    None => Value::Null,
                    Some(e) if e == "true" || e == "false" => Value::Bool(e == "true"),
                    Some(e) if e.starts_with('"') => {
                        Value::RawString(e[1..e.len() - 1].to_string().into())
                    }
                    Some(e) => Value::RawNumber(e.to_string().into()),
                });
            }
            row
        })
        .collect();
    let writer = output::RowWriter::new(format, &columns)
        .with_color(look.color)
        .with_figures(&["share", "distinct"]);
    if !format.binary() {
        writer.write_all(&rows, out);
        return Ok(());
    }
    // Parquet and Arrow: the rows in ndq-arrow's byte form, then typed and encoded.
    let mut encoded = Vec::new();
    writer.write_all(&rows, &mut encoded);
    #[cfg(feature = "arrow")]
    crate::binary::encode_all(format, &columns, &encoded, out)?;
    Ok(())
}

/// An example for a table: unescaped, cut at [`EXAMPLE_WIDTH`] characters.
fn example_cell(raw: &str) -> Value<'static> {
    let text = match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) => ndq_query::unescape_json_str(inner).into_owned(),
        None => raw.to_string(),
    };
    if text.chars().count() > EXAMPLE_WIDTH {
        let cut: String = text.chars().take(EXAMPLE_WIDTH - 1).collect();
        return Value::String(format!("{cut}…").into());
    }
    Value::String(text.into())
}

/// `part` of `whole` as a percentage: `100%`, `98.6%`, `0.1%`; `<0.1%` for a sliver.
fn percent(part: u64, whole: u64) -> String {
    if part == whole {
        return "100%".into();
    }
    let tenths = (part as u128 * 1000 / whole as u128) as u64;
    if tenths == 0 && part > 0 {
        return "<0.1%".into();
    }
    format!("{}.{}%", tenths / 10, tenths % 10)
}

/// `part / whole` to four decimals, trailing zeros dropped: `1`, `0.9864`, `0`; to as many
/// more (up to 18) for a share that is neither none nor all but would read as `0` or `1`:
/// three figures of it, or of what it lacks (`0.000005` for 2 lines of 400,000).
fn fraction(part: u64, whole: u64) -> String {
    let (part, whole) = (u128::from(part), u128::from(whole.max(1)));
    let some = part > 0 && part < whole;
    // part * 10^18 < 2^64 * 2^60: no overflow.
    let (n, unit, places) = (4..=18)
        .map(|d| {
            let unit = 10u128.pow(d);
            ((part * unit + whole / 2) / whole, unit, d)
        })
        .find(|&(n, unit, d)| {
            // Four decimals when they show it; else three figures of what it is, or lacks.
            !some || (d == 4 && n != 0 && n != unit) || (n >= 100 && unit - n >= 100)
        })
        .unwrap_or((0, 1, 4));
    let (int, frac) = (n / unit, n % unit);
    if frac == 0 {
        return int.to_string();
    }
    let digits = format!("{frac:0width$}", width = places as usize);
    format!("{int}.{}", digits.trim_end_matches('0'))
}

/// A large count in three significant figures: `12.3K`, `456K`, `1.20M`.
fn short(n: u64) -> String {
    let (value, unit) = match n {
        0..1_000 => return n.to_string(),
        1_000..1_000_000 => (n as f64 / 1e3, "K"),
        1_000_000..1_000_000_000 => (n as f64 / 1e6, "M"),
        _ => (n as f64 / 1e9, "G"),
    };
    let digits = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.digits$}{unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(percent(294, 294), "100%");
        assert_eq!(percent(290, 294), "98.6%");
        assert_eq!(percent(1, 100_000), "<0.1%");
        assert_eq!(percent(0, 5), "0.0%");
        assert_eq!(fraction(290, 294), "0.9864");
        assert_eq!(fraction(1, 2), "0.5");
        assert_eq!(fraction(3, 3), "1");
        assert_eq!(fraction(0, 3), "0");
        // A sliver, and all but a sliver, are not `0` and `1`.
        assert_eq!(fraction(2, 400_000), "0.000005");
        assert_eq!(fraction(399_998, 400_000), "0.999995");
        assert_eq!(fraction(1, 10u64.pow(19)), "0");
        assert_eq!(short(12_345), "12.3K");
        assert_eq!(short(456_789), "457K");
        assert_eq!(short(1_204_000), "1.20M");
        assert_eq!(short(999), "999");
    }

    #[test]
    fn long_examples_are_cut_in_tables() {
        let long = format!("\"{}\"", "é".repeat(50));
        match example_cell(&long) {
            Value::String(s) => {
                assert_eq!(s.chars().count(), EXAMPLE_WIDTH);
                assert!(s.ends_with('…'));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(example_cell(r#""a\tb""#), Value::String(s) if s == "a\tb"));
    }
}
