//! The command line as the user typed it (clap derive). Nothing here probes the environment;
//! [`crate::config`] turns [`Args`] into the resolved configuration.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use crate::driver::Engine;
use crate::output::Format;

const AFTER_LONG_HELP: &str = "\
Examples:
  ndq 'select count(*) where Elapsed > 200' logs/app.ndjson
  ndq 'select @l, count(*), avg(Elapsed) group by @l' logs/
  ndq 'where StatusCode >= 500 limit 10' app.ndjson.zst
  ndq -f 'select @l, count(*) group by @l' app.ndjson     (a live table until Ctrl-C)
  kubectl logs my-pod | ndq -o csv \"select @t, Message where @l = 'Error'\"
  n=$(ndq -o raw 'select count(*)' app.ndjson)

The query language (select, where, group by, order by, limit; like, in, is null, match();
count, sum, avg, min, max, percentile, count_distinct; times: datetime(), now(), time(5m),
strftime(), durations like 30m) is described, with examples, in docs/language.md in the
ndq repository.

Times: --since/--until keep the lines whose time property (@t, or --time-field) is in a
range: `ndq --since 1h 'select count(*)' app.ndjson`, `--since yesterday --until today`.
--tz Europe/Paris writes timestamps with that zone's offset and counts days in it.

Inputs: files in the order given; `-` or none for standard input; a directory for every
regular file below it (sorted; links to files followed, a broken link or a link to a
directory named in a warning); `.gz` and `.zst` files are decompressed.

Lines that are not JSON objects are skipped, counted, and reported once at the end with the
first FILE:LINE (`--strict` makes the first one an error). Blank lines, CRLF line ends and a
UTF-8 byte-order mark are fine.

A query whose `where` needs some text (`match(Message, '/api/customers')`, `@l = 'Error'`)
skips the lines that cannot contain it, in any JSON spelling, without parsing them; a line
that `where` rules out from the keys it reads is not read past them. Such lines are not
validated. `--strict` validates every line (and so skips none).

Environment: NDQ_SCANNER=auto|scalar|avx2 pins the JSON scanner (auto by default);
NDQ_PREFILTER=off turns both skips off (for comparisons; on by default);
NDQ_INFLATE=stream streams every .gz input instead of inflating its members whole
with libdeflate (for comparisons; whole by default, while the outputs of members over
256 MiB fit in a quarter of the memory);
--color auto (the default) colours stdout and stderr only where each is a terminal, and
not when NO_COLOR is set (non-empty) or TERM=dumb.

Exit status:
  0  success (also when the output pipe is closed early, as by `| head`)
  1  runtime error: an input missing or unreadable, a bad line under --strict, a write error
  2  usage error or a query error (the query is shown with a caret under the problem)";

/// Fast queries over line-delimited JSON (NDJSON) logs.
///
/// Runs QUERY over the INPUT files (or standard input) and prints the result: one JSON object
/// per row when stdout is not a terminal, an aligned table when it is.
#[derive(Debug, Parser)]
#[command(
    name = "ndq",
    version,
    after_long_help = AFTER_LONG_HELP,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Args {
    /// The query, e.g. 'select Message where Elapsed > 200'.
    // (Required, but not there with a command.)
    #[arg(value_name = "QUERY", required = true)]
    pub query: Option<String>,

    /// Instead of a query: another command.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Files or directories to read; `-` or none for standard input.
    #[arg(value_name = "INPUT", value_parser = input_path())]
    pub inputs: Vec<PathBuf>,

    /// Output format [default: table on a terminal, json otherwise].
    ///
    /// json: one object per row, keys in select order; table: aligned columns; csv (RFC 4180)
    /// and tsv: with a header; raw: values alone, tab-separated, no header; parquet and arrow:
    /// typed columns, binary. `select *` writes matching lines unchanged in the text formats.
    /// chart: an aggregation drawn with block characters (bars per group, or a histogram over
    /// time() buckets), as wide and tall as COLUMNS and LINES, else the terminal, else 80x24.
    #[arg(short = 'o', long = "output", value_enum, value_name = "FORMAT")]
    pub output: Option<Format>,

    /// Worker threads [default: all cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,

    /// Make the first line that is not a JSON object an error (exit 1).
    ///
    /// Without it such lines are skipped and counted, with one warning at the end. With it
    /// every line is validated, so no line is skipped by the literal prefilter either.
    #[arg(long)]
    pub strict: bool,

    /// Print one line of statistics on stderr after the run.
    ///
    /// Lines scanned, hits (lines that passed `where`), malformed lines, bytes, seconds and
    /// MB/s; then, when there were any, the lines ruled out unread (by the prefilter or the time
    /// range).
    #[arg(long)]
    pub stats: bool,

    /// When to colour the output: json rows, `select *` lines and tables (csv, tsv and raw
    /// never are), and on stderr the progress bar and the `warning:` label.
    ///
    /// auto: on a terminal only (each of stdout and stderr decided for itself), and not when
    /// NO_COLOR is set to a non-empty value or TERM is dumb.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Never show the progress bar.
    ///
    /// It is shown only on a terminal (stderr) and only for runs long enough to matter.
    #[arg(long)]
    pub no_progress: bool,

    /// Keep reading the files as they grow, like `tail -F`, until stopped (Ctrl-C, SIGTERM,
    /// or the reader of a pipe gone, as after `| head`).
    ///
    /// Matching rows are written as their lines arrive. An aggregation (or `order by`) is
    /// redrawn in place on a terminal (see --every), and written once when ndq is stopped
    /// otherwise. A file renamed away and created again, or truncated, is read from its new
    /// start; a file that does not exist yet is waited for. Plain files only: not standard
    /// input, a directory, or a .gz/.zst file.
    #[arg(short = 'f', long)]
    pub follow: bool,

    /// With --follow on a terminal: how often an aggregation's table is redrawn, e.g. 500ms,
    /// 1.5s, 1m, 1h [default: 1s].
    #[arg(long, value_name = "DURATION", value_parser = crate::follow::parse_duration,
          requires = "follow")]
    pub every: Option<std::time::Duration>,

    /// Pin the JSON scanner (for tests, benchmarks and bug reports).
    #[arg(long, value_enum, value_name = "SCANNER", hide = true)]
    pub scanner: Option<ScannerArg>,

    /// Evaluation engine: the lazy scanner, or serde_json per line (the baseline).
    #[arg(long, value_enum, default_value_t = Engine::Lazy, hide = true)]
    pub engine: Engine,

    /// Parse every line, even those the literal prefilter rules out (for tests and
    /// comparisons; the same as NDQ_PREFILTER=off).
    #[arg(long, hide = true)]
    pub no_prefilter: bool,

    /// Time zone for output, strftime and day buckets: an IANA name or `local`
    ///
    /// Timestamps are written in RFC 3339 with this zone's offset (without --tz: in UTC,
    /// with `Z`); `strftime` formats in it; `time(ts, 1d)` and `time(ts, 1w)` count days
    /// from midnight in it (weeks from Monday); `today`, `yesterday` and dates in --since and
    /// --until are midnight in it.
    #[arg(long, value_name = "ZONE")]
    pub tz: Option<String>,

    /// The time property (default `@t`), as written in a query
    ///
    /// What `time(5m)` buckets and what --since and --until compare, read as datetime() reads
    /// it (RFC 3339 text, or a number of epoch seconds).
    #[arg(long, value_name = "NAME")]
    pub time_field: Option<String>,

    /// Keep only lines whose time property is at or after T
    ///
    /// T is an RFC 3339 time (2026-11-21T10:00:00Z) or date (2026-11-21), `now`, `today`,
    /// `yesterday`, or a duration meaning that long before now (30m, 2h, 2d). Lines without
    /// a readable time are left out.
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub since: Option<String>,

    /// Keep only lines whose time property is before T (the forms of --since)
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub until: Option<String>,

    /// Neither use nor write the zone maps of large files
    ///
    /// A run that reads the time property notes the range of times in each 1 MiB block of
    /// a file of 16 MiB or more, in $NDQ_CACHE_DIR (default $XDG_CACHE_HOME/ndq or
    /// ~/.cache/ndq); later runs with --since/--until (or a `where` that bounds the time)
    /// skip the blocks their range cannot meet. Answers are the same either way.
    #[arg(long)]
    pub no_cache: bool,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour where the stream is a terminal, NO_COLOR is unset or empty, and TERM is not dumb.
    Auto,
    /// Always colour, even in a pipe.
    Always,
    /// Never colour.
    Never,
}

/// The commands besides a query.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Keys(crate::keys::KeysArgs),
    Bench(crate::bench::BenchArgs),
    /// Print a shell completion script, e.g. `ndq completions bash > /etc/bash_completion.d/ndq`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `ndq man | man -l -`.
    Man,
}

/// `--scanner`: hidden for `ndq`, shown by `ndq bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScannerArg {
    // Plain comments rather than doc comments: clap would list those in `ndq bench --help`.
    // AVX2 when the CPU has it.
    Auto,
    // The AVX2 scanner (an error on a CPU without AVX2).
    Avx2,
    // The portable scanner.
    Scalar,
}

impl ScannerArg {
    /// The name `ndq_scan::Scanner::from_name` takes.
    pub fn name(self) -> &'static str {
        match self {
            ScannerArg::Auto => "auto",
            ScannerArg::Scalar => "scalar",
            ScannerArg::Avx2 => "avx2",
        }
    }
}

/// The parser of an INPUT: a path, an empty name refused as what it likely is (a shell
/// variable not set, as in `ndq QUERY "$LOG"`) rather than with clap's "none was supplied".
pub fn input_path() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser as _;
    clap::builder::OsStringValueParser::new().try_map(|name| {
        if name.is_empty() {
            Err("an empty name is no file (a shell variable not set?)")
        } else {
            Ok(PathBuf::from(name))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("ndq").chain(args.iter().copied()))
    }

    #[test]
    fn args_are_well_formed() {
        Args::command().debug_assert();
    }

    #[test]
    fn query_and_inputs() {
        let a = parse(&["select *", "a.ndjson", "-", "dir"]).unwrap();
        assert_eq!(a.query.as_deref(), Some("select *"));
        assert_eq!(
            a.inputs,
            [
                PathBuf::from("a.ndjson"),
                PathBuf::from("-"),
                PathBuf::from("dir")
            ]
        );
        let a = parse(&["select *"]).unwrap();
        assert!(a.inputs.is_empty());
        assert!(parse(&[]).is_err(), "the query is required");
    }

    #[test]
    fn flag_output() {
        assert_eq!(parse(&["q"]).unwrap().output, None);
        for (name, want) in [
            ("json", Format::Json),
            ("table", Format::Table),
            ("csv", Format::Csv),
            ("tsv", Format::Tsv),
            ("raw", Format::Raw),
            ("chart", Format::Chart),
        ] {
            assert_eq!(parse(&["-o", name, "q"]).unwrap().output, Some(want));
            assert_eq!(parse(&["q", "--output", name]).unwrap().output, Some(want));
        }
        let err = parse(&["-o", "xml", "q"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn flag_threads() {
        assert_eq!(parse(&["q"]).unwrap().threads, None);
        assert_eq!(parse(&["--threads", "3", "q"]).unwrap().threads, Some(3));
        assert!(parse(&["--threads", "0", "q"]).is_err());
        assert!(parse(&["--threads", "x", "q"]).is_err());
    }

    #[test]
    fn flag_switches() {
        let a = parse(&["q"]).unwrap();
        assert!(!a.strict && !a.stats && !a.no_progress);
        let a = parse(&["--strict", "--stats", "--no-progress", "q"]).unwrap();
        assert!(a.strict && a.stats && a.no_progress);
    }

    #[test]
    fn flag_color() {
        assert_eq!(parse(&["q"]).unwrap().color, ColorChoice::Auto);
        for (name, want) in [
            ("auto", ColorChoice::Auto),
            ("always", ColorChoice::Always),
            ("never", ColorChoice::Never),
        ] {
            assert_eq!(parse(&["--color", name, "q"]).unwrap().color, want);
            assert_eq!(
                parse(&[&format!("--color={name}"), "q"]).unwrap().color,
                want
            );
        }
        assert_eq!(parse(&["--color", "yes", "q"]).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn flag_scanner_and_engine_hidden() {
        assert_eq!(parse(&["q"]).unwrap().scanner, None);
        assert_eq!(
            parse(&["--scanner", "scalar", "q"]).unwrap().scanner,
            Some(ScannerArg::Scalar)
        );
        assert!(parse(&["--scanner", "sse", "q"]).is_err());
        assert_eq!(parse(&["q"]).unwrap().engine, Engine::Lazy);
        assert_eq!(
            parse(&["--engine", "serde", "q"]).unwrap().engine,
            Engine::Serde
        );
        assert!(!parse(&["q"]).unwrap().no_prefilter);
        assert!(parse(&["--no-prefilter", "q"]).unwrap().no_prefilter);
    }

    #[test]
    fn flags_time() {
        let a = parse(&["q"]).unwrap();
        assert_eq!(
            (a.tz, a.time_field, a.since, a.until),
            (None, None, None, None)
        );
        let a = parse(&[
            "--tz",
            "Europe/Paris",
            "--time-field",
            "ts",
            "--since",
            "30m",
            "--until",
            "-1h",
            "q",
        ])
        .unwrap();
        assert_eq!(a.tz.as_deref(), Some("Europe/Paris"));
        assert_eq!(a.time_field.as_deref(), Some("ts"));
        assert_eq!(a.since.as_deref(), Some("30m"));
        assert_eq!(a.until.as_deref(), Some("-1h"));
        let help = Args::command().render_long_help().to_string();
        assert!(!help.contains("--scanner") && !help.contains("--engine"));
        assert!(!help.contains("--no-prefilter") && help.contains("NDQ_PREFILTER=off"));
        assert!(help.contains("Exit status:"));
    }

    #[test]
    fn an_empty_input_name_is_refused_as_such() {
        let e = parse(&["q", "a.log", ""]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
        assert!(e.to_string().contains("a shell variable not set?"), "{e}");
        let a = parse(&["q", "-", "a.log"]).unwrap();
        assert_eq!(a.inputs, [PathBuf::from("-"), PathBuf::from("a.log")]);
    }
}
