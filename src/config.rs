//! The resolved configuration of a run: [`crate::cli::Args`] plus everything probed from the
//! environment (whether stdout and stderr are terminals, `NO_COLOR`, `NDQ_SCANNER`,
//! `NDQ_PREFILTER`, the cache directory, the number of cores, the CPU's AVX2). All probing happens here, once; the
//! rest of the program takes a [`Config`] (or, for `ndq bench`, the probed [`Env`]).

use std::path::PathBuf;
use std::time::Duration;

use ndq_query::{TimeOptions, Zone, now_nanos};
use ndq_scan::Scanner;

use crate::cli::{Args, ColorChoice};
use crate::driver::Engine;
use crate::driver::progress::SHOW_AFTER;
use crate::driver::zones::{self, ZoneOptions};
use crate::output::{Format, chart};

/// What the environment looks like (separated out so tests can fake it).
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// stdout is a terminal.
    pub stdout_tty: bool,
    /// stderr is a terminal.
    pub stderr_tty: bool,
    /// `NO_COLOR` (set and non-empty turns colour off).
    pub no_color: Option<String>,
    /// `TERM`.
    pub term: Option<String>,
    /// `NDQ_SCANNER`.
    pub scanner: Option<String>,
    /// `NDQ_PREFILTER`.
    pub prefilter: Option<String>,
    /// `NDQ_INFLATE`.
    pub inflate: Option<String>,
    /// `NDQ_PROGRESS_DELAY_MS` (undocumented, for tests): how long a run goes before the
    /// progress bar appears, instead of [`crate::driver::progress::SHOW_AFTER`].
    pub progress_delay: Option<String>,
    /// `NDQ_NOW` (hidden, for tests): an RFC 3339 time that `now()` and the relative forms
    /// of `--since`/`--until` use instead of the clock.
    pub now: Option<String>,
    /// `NDQ_CACHE_DIR`: where zone maps are kept.
    pub cache_dir: Option<String>,
    /// `XDG_CACHE_HOME` (zone maps in its `ndq` directory when `NDQ_CACHE_DIR` is unset).
    pub xdg_cache: Option<String>,
    /// `HOME` (zone maps in `~/.cache/ndq` when neither is set).
    pub home: Option<String>,
    /// `NDQ_ZONE_BLOCK` and `NDQ_ZONE_MIN_SIZE` (undocumented, for tests): bytes per zone
    /// and the least size of a file with a zone map, instead of 1 MiB and 16 MiB.
    pub zone_block: Option<String>,
    pub zone_min_size: Option<String>,
    /// Cores available.
    pub cores: usize,
    /// `COLUMNS` and `LINES` (the size of `-o chart`).
    pub columns: Option<String>,
    /// See [`Env::columns`].
    pub lines: Option<String>,
    /// stdout's terminal size (rows, columns), when it is a terminal.
    pub terminal_size: Option<(u16, u16)>,
}

impl Env {
    /// The real environment.
    pub fn probe() -> Env {
        use std::io::IsTerminal as _;
        let var = |name| std::env::var(name).ok();
        Env {
            stdout_tty: std::io::stdout().is_terminal(),
            stderr_tty: std::io::stderr().is_terminal(),
            no_color: var("NO_COLOR"),
            term: var("TERM"),
            scanner: var("NDQ_SCANNER"),
            prefilter: var("NDQ_PREFILTER"),
            inflate: var("NDQ_INFLATE"),
            progress_delay: var("NDQ_PROGRESS_DELAY_MS"),
            now: var("NDQ_NOW"),
            cache_dir: var("NDQ_CACHE_DIR"),
            xdg_cache: var("XDG_CACHE_HOME"),
            home: var("HOME"),
            zone_block: var("NDQ_ZONE_BLOCK"),
            zone_min_size: var("NDQ_ZONE_MIN_SIZE"),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            columns: var("COLUMNS"),
            lines: var("LINES"),
            terminal_size: console::Term::stdout().size_checked(),
        }
    }
}

/// Everything a run needs to know.
#[derive(Clone, Debug)]
pub struct Config {
    /// The query text.
    pub query: String,
    /// The inputs as given (empty: standard input).
    pub inputs: Vec<PathBuf>,
    /// The output format.
    pub format: Format,
    /// Worker threads.
    pub threads: usize,
    /// The JSON scanner.
    pub scanner: Scanner,
    /// The evaluation engine.
    pub engine: Engine,
    /// `--strict`.
    pub strict: bool,
    /// Skip the lines the literal prefilter rules out (off with `--no-prefilter` or
    /// `NDQ_PREFILTER=off`; the driver also leaves it off under `--strict` and for the serde
    /// engine).
    pub prefilter: bool,
    /// Inflate a gzip file's members whole where it can be (off with `NDQ_INFLATE=stream`:
    /// every gzip input is streamed).
    pub inflate_whole: bool,
    /// `--stats`.
    pub stats: bool,
    /// Whether a progress bar may be shown (stderr is a terminal, `TERM` set and not dumb,
    /// and no `--no-progress`).
    pub progress: bool,
    /// How long a run goes before the progress bar appears.
    pub progress_after: Duration,
    /// Whether a run that matched nothing may add notes on why ([`crate::hint`]): stderr is
    /// a terminal, so a person reads it.
    pub hints: bool,
    /// Whether stdout is coloured (json rows, `select *` lines, tables): see [`color`].
    pub color_stdout: bool,
    /// Whether stderr is coloured (the progress bar, the warnings' prefix): see [`color`].
    pub color_stderr: bool,
    /// `--tz`, `--time-field`, `--since`, `--until`, and the time `now()` gives.
    pub time: TimeOptions,
    /// `--follow` (`None`: read the inputs once).
    pub follow: Option<crate::follow::Follow>,
    /// The size of `-o chart`.
    pub chart: chart::Size,
    /// The columns a table is fitted in: `COLUMNS`, else the terminal's; `None` when stdout
    /// is not a terminal.
    pub table_width: Option<usize>,
    /// Where zone maps are kept (`None`: `--no-cache`, or no cache directory is known).
    pub zones: Option<ZoneOptions>,
}

impl Config {
    /// Resolve `args` in `env`. The error is a usage error (exit 2).
    pub fn new(args: Args, env: &Env) -> Result<Config, String> {
        let format = match args.output {
            Some(format) => format,
            None if env.stdout_tty => Format::Table,
            None => Format::Json,
        };
        if format.binary() {
            binary_output(format, args.follow, env)?;
        }
        let scanner = chosen_scanner(args.scanner, env)?;
        let time = time_options(&args, env)?;
        // As indicatif decides for a terminal (console's `is_dumb`): no bar when `TERM` is
        // unset or dumb.
        let smart = env.term.as_deref().is_some_and(|t| t != "dumb") || cfg!(windows);
        let progress_after = match env.progress_delay.as_deref() {
            None | Some("") => SHOW_AFTER,
            Some(ms) => ms.parse().map(Duration::from_millis).map_err(|_| {
                format!("NDQ_PROGRESS_DELAY_MS: not a number of milliseconds: '{ms}'")
            })?,
        };
        let zones = if args.no_cache {
            None
        } else {
            zone_options(env)?
        };
        Ok(Config {
            zones,
            query: args.query.unwrap_or_default(),
            inputs: args.inputs,
            format,
            threads: args.threads.map_or(env.cores.max(1), |n| n as usize),
            scanner,
            engine: args.engine,
            strict: args.strict,
            prefilter: !args.no_prefilter && prefilter(env.prefilter.as_deref())?,
            inflate_whole: inflate_whole(env.inflate.as_deref())?,
            stats: args.stats,
            progress: env.stderr_tty && smart && !args.no_progress,
            progress_after,
            hints: env.stderr_tty,
            color_stdout: color(args.color, env.stdout_tty, env),
            color_stderr: color(args.color, env.stderr_tty, env),
            time,
            chart: chart::Size::choose(
                env.columns.as_deref(),
                env.lines.as_deref(),
                env.terminal_size.filter(|_| env.stdout_tty),
                args.follow,
            ),
            table_width: table_width(env),
            follow: args.follow.then(|| crate::follow::Follow {
                every: args.every.unwrap_or(crate::follow::EVERY),
                terminal: env.stdout_tty,
                format_given: args.output.is_some(),
            }),
        })
    }
}

/// The terminal columns a table on stdout is fitted in: `COLUMNS` when set to a number, else
/// the terminal's width; `None` when stdout is not a terminal (a pipe or a file gets every
/// value whole).
fn table_width(env: &Env) -> Option<usize> {
    if !env.stdout_tty {
        return None;
    }
    chart::size_var(env.columns.as_deref())
        .or_else(|| env.terminal_size.map(|(_, cols)| usize::from(cols)))
}

/// `-o parquet` and `-o arrow` write binary data: never to a terminal, and not with
/// `--follow` (a Parquet file is written whole, its footer last).
pub fn binary_output(format: Format, follow: bool, env: &Env) -> Result<(), String> {
    let flag = format.flag();
    if env.stdout_tty {
        return Err(format!(
            "{flag} writes binary data, not for a terminal: redirect standard output to a \
             file (> out.{}) or a pipe",
            if format == Format::Arrow {
                "arrow"
            } else {
                "parquet"
            }
        ));
    }
    if follow {
        return Err(format!("{flag} cannot be used with --follow"));
    }
    Ok(())
}

/// The time options: the zone first (`today` and dates are midnight in it), then `now`
/// (the clock, or `NDQ_NOW`), then the bounds.
fn time_options(args: &Args, env: &Env) -> Result<TimeOptions, String> {
    let zone = match &args.tz {
        Some(name) => Zone::named(name).map_err(|e| format!("--tz: {e}"))?,
        None => Zone::utc(),
    };
    let now = match env.now.as_deref() {
        Some(text) if !text.is_empty() => ndq_query::parse_bound(text, now_nanos(), &Zone::utc())
            .map_err(|e| format!("NDQ_NOW: {e}"))?,
        _ => now_nanos(),
    };
    let bound = |flag: &str, text: &Option<String>| -> Result<Option<i128>, String> {
        text.as_deref()
            .map(|t| ndq_query::parse_bound(t, now, &zone).map_err(|e| format!("{flag}: {e}")))
            .transpose()
    };
    Ok(TimeOptions {
        since: bound("--since", &args.since)?,
        until: bound("--until", &args.until)?,
        now: Some(now),
        time_field: match &args.time_field {
            Some(name) => {
                ndq_query::check_time_field(name).map_err(|e| format!("--time-field: {e}"))?;
                name.clone()
            }
            None => "@t".to_owned(),
        },
        zone,
    })
}

/// Where zone maps are kept: `NDQ_CACHE_DIR`, else `$XDG_CACHE_HOME/ndq` (an absolute
/// path, as the XDG spec asks), else `$HOME/.cache/ndq`; `None` when none is set.
fn zone_options(env: &Env) -> Result<Option<ZoneOptions>, String> {
    let set = |v: &Option<String>| v.as_deref().filter(|v| !v.is_empty()).map(PathBuf::from);
    let dir = set(&env.cache_dir)
        .or_else(|| {
            set(&env.xdg_cache)
                .filter(|p| p.is_absolute())
                .map(|p| p.join("ndq"))
        })
        .or_else(|| set(&env.home).map(|h| h.join(".cache").join("ndq")));
    let bytes = |name: &str, v: &Option<String>, default: u64| -> Result<u64, String> {
        match v.as_deref() {
            None | Some("") => Ok(default),
            Some(n) => n
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("{name}: not a positive number of bytes: '{n}'")),
        }
    };
    let block = bytes("NDQ_ZONE_BLOCK", &env.zone_block, zones::BLOCK)?;
    let min_size = bytes("NDQ_ZONE_MIN_SIZE", &env.zone_min_size, zones::MIN_SIZE)?;
    Ok(dir.map(|dir| ZoneOptions {
        dir,
        block,
        min_size,
    }))
}

/// Whether to colour a stream (`tty`: it is a terminal), one decision per stream: `--color
/// always` or `never` decide; `auto` colours a terminal unless `NO_COLOR` is set and
/// non-empty or `TERM` is `dumb`.
pub fn color(choice: ColorChoice, tty: bool, env: &Env) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            tty && env.no_color.as_deref().is_none_or(str::is_empty)
                && env.term.as_deref() != Some("dumb")
        }
    }
}

/// `NDQ_PREFILTER`: `on` (or unset, or empty) or `off`.
pub fn prefilter(value: Option<&str>) -> Result<bool, String> {
    match value {
        None | Some("" | "on") => Ok(true),
        Some("off") => Ok(false),
        Some(other) => Err(format!(
            "NDQ_PREFILTER: unknown value '{other}' (expected on or off)"
        )),
    }
}

/// `NDQ_INFLATE`: `whole` (or unset, or empty) or `stream`.
pub fn inflate_whole(value: Option<&str>) -> Result<bool, String> {
    match value {
        None | Some("" | "whole") => Ok(true),
        Some("stream") => Ok(false),
        Some(other) => Err(format!(
            "NDQ_INFLATE: unknown value '{other}' (expected whole or stream)"
        )),
    }
}

/// The scanner `--scanner` names (`flag`), else `NDQ_SCANNER` when set, else the best this
/// CPU runs: the same choice for queries, `keys` and `bench`.
pub fn chosen_scanner(flag: Option<crate::cli::ScannerArg>, env: &Env) -> Result<Scanner, String> {
    match (flag, env.scanner.as_deref()) {
        (Some(flag), _) => scanner(flag.name(), "--scanner"),
        (None, Some(name)) if !name.is_empty() => scanner(name, "NDQ_SCANNER"),
        (None, _) => Ok(Scanner::detect()),
    }
}

/// The scanner named `name` (`auto`, `scalar`, `avx2`), given by `what` (`--scanner`,
/// `NDQ_SCANNER`); the error is a usage error naming it.
pub fn scanner(name: &str, what: &str) -> Result<Scanner, String> {
    match Scanner::from_name(name) {
        Some(s) => Ok(s),
        None if name == "avx2" => Err(format!(
            "{what} avx2: this CPU does not support AVX2 (with BMI1 and BMI2)"
        )),
        None => Err(format!(
            "{what}: unknown scanner '{name}' (expected auto, scalar or avx2)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn config(args: &[&str], env: &Env) -> Result<Config, String> {
        let args = Args::try_parse_from(std::iter::once("ndq").chain(args.iter().copied()))
            .expect("valid args");
        Config::new(args, env)
    }

    fn env() -> Env {
        Env {
            cores: 4,
            ..Env::default()
        }
    }

    #[test]
    fn binary_formats_refuse_a_terminal_and_follow() {
        let tty = Env {
            stdout_tty: true,
            ..env()
        };
        for (flag, name) in [("parquet", "-o parquet"), ("arrow", "-o arrow")] {
            let err = config(&["-o", flag, "q"], &tty).err().unwrap();
            assert!(
                err.starts_with(&format!("{name} writes binary data")),
                "{err}"
            );
            let err = config(&["-o", flag, "-f", "q", "x"], &env()).err().unwrap();
            assert_eq!(err, format!("{name} cannot be used with --follow"));
            assert!(config(&["-o", flag, "q"], &env()).unwrap().format.binary());
        }
    }

    #[test]
    fn time_flags_resolve_or_say_what_is_accepted() {
        let pinned = Env {
            now: Some("2026-11-21T10:05:00Z".into()),
            ..env()
        };
        let c = config(&["--since", "30m", "--until", "today", "q"], &pinned).unwrap();
        let at = |s: &str| ndq_query::parse_bound(s, 0, &Zone::utc()).unwrap();
        assert_eq!(c.time.since, Some(at("2026-11-21T09:35:00Z")));
        assert_eq!(c.time.until, Some(at("2026-11-21T00:00:00Z")));
        assert_eq!(c.time.now, Some(at("2026-11-21T10:05:00Z")));
        assert_eq!(c.time.time_field, "@t");
        let e = config(&["--since", "soon", "q"], &pinned).unwrap_err();
        assert!(
            e.starts_with("--since: invalid time 'soon': expected an RFC 3339 time"),
            "{e}"
        );
        for field in ["time", "Properties.When", "['event time']", "@timestamp"] {
            let c = config(&["--time-field", field, "q"], &pinned).unwrap();
            assert_eq!(c.time.time_field, field);
        }
        let e = config(&["--time-field", "event time", "q"], &pinned).unwrap_err();
        assert_eq!(
            e,
            "--time-field: 'event time' is not a property path as a query writes one (a key \
             with spaces or other characters is written ['event time'])"
        );
        for field in ["", "a[", "1abc"] {
            let e = config(&["--time-field", field, "q"], &pinned).unwrap_err();
            assert!(e.starts_with("--time-field: "), "{field}: {e}");
        }
        let e = config(&["--tz", "Mars/Olympus", "q"], &pinned).unwrap_err();
        assert!(
            e.starts_with("--tz: unknown time zone 'Mars/Olympus': expected an IANA zone name"),
            "{e}"
        );
        let bad_now = Env {
            now: Some("later".into()),
            ..env()
        };
        assert!(
            config(&["q"], &bad_now)
                .unwrap_err()
                .starts_with("NDQ_NOW: ")
        );
    }

    #[test]
    fn cache_dir_from_ndq_cache_dir_then_xdg_then_home() {
        let dir = |e: &Env, args: &[&str]| config(args, e).unwrap().zones.map(|z| z.dir);
        let home = Env {
            home: Some("/home/u".into()),
            ..env()
        };
        assert_eq!(
            dir(&home, &["q"]),
            Some(PathBuf::from("/home/u/.cache/ndq"))
        );
        let xdg = Env {
            xdg_cache: Some("/xdg".into()),
            ..home.clone()
        };
        assert_eq!(dir(&xdg, &["q"]), Some(PathBuf::from("/xdg/ndq")));
        let relative = Env {
            xdg_cache: Some("rel".into()),
            ..home.clone()
        };
        assert_eq!(
            dir(&relative, &["q"]),
            Some(PathBuf::from("/home/u/.cache/ndq"))
        );
        let moved = Env {
            cache_dir: Some("/tmp/c".into()),
            ..xdg.clone()
        };
        assert_eq!(dir(&moved, &["q"]), Some(PathBuf::from("/tmp/c")));
        assert_eq!(dir(&moved, &["--no-cache", "q"]), None);
        assert_eq!(dir(&env(), &["q"]), None);
        let z = config(&["q"], &moved).unwrap().zones.unwrap();
        assert_eq!((z.block, z.min_size), (zones::BLOCK, zones::MIN_SIZE));
        let bad = Env {
            zone_block: Some("0".into()),
            ..moved
        };
        assert!(
            config(&["q"], &bad)
                .unwrap_err()
                .starts_with("NDQ_ZONE_BLOCK")
        );
    }

    #[test]
    fn output_default_follows_stdout() {
        assert_eq!(config(&["q"], &env()).unwrap().format, Format::Json);
        let tty = Env {
            stdout_tty: true,
            ..env()
        };
        assert_eq!(config(&["q"], &tty).unwrap().format, Format::Table);
        assert_eq!(
            config(&["-o", "csv", "q"], &tty).unwrap().format,
            Format::Csv
        );
        assert_eq!(
            config(&["-o", "raw", "q"], &env()).unwrap().format,
            Format::Raw
        );
    }

    #[test]
    fn threads_default_to_cores() {
        assert_eq!(config(&["q"], &env()).unwrap().threads, 4);
        assert_eq!(config(&["--threads", "1", "q"], &env()).unwrap().threads, 1);
        let none = Env { cores: 0, ..env() };
        assert_eq!(config(&["q"], &none).unwrap().threads, 1);
    }

    #[test]
    fn scanner_flag_beats_env() {
        let scalar_env = Env {
            scanner: Some("scalar".into()),
            ..env()
        };
        assert_eq!(
            config(&["q"], &scalar_env).unwrap().scanner,
            Scanner::Scalar
        );
        assert_eq!(
            config(&["--scanner", "auto", "q"], &scalar_env)
                .unwrap()
                .scanner,
            Scanner::detect()
        );
        assert_eq!(config(&["q"], &env()).unwrap().scanner, Scanner::detect());
        let bad = Env {
            scanner: Some("sse9".into()),
            ..env()
        };
        let err = config(&["q"], &bad).unwrap_err();
        assert!(err.contains("NDQ_SCANNER") && err.contains("sse9"), "{err}");
        let empty = Env {
            scanner: Some(String::new()),
            ..env()
        };
        assert_eq!(config(&["q"], &empty).unwrap().scanner, Scanner::detect());
    }

    #[test]
    fn progress_needs_a_terminal() {
        let c = config(&["q"], &env()).unwrap();
        assert!(!c.progress);
        let tty = Env {
            stderr_tty: true,
            term: Some("xterm-256color".into()),
            ..env()
        };
        assert!(config(&["q"], &tty).unwrap().progress);
        let unset = Env {
            term: None,
            ..tty.clone()
        };
        assert!(!config(&["q"], &unset).unwrap().progress, "TERM unset");
        assert!(!config(&["--no-progress", "q"], &tty).unwrap().progress);
        let dumb = Env {
            term: Some("dumb".into()),
            ..tty
        };
        assert!(!config(&["q"], &dumb).unwrap().progress);
    }

    #[test]
    fn color_is_decided_per_stream() {
        let colors = |args: &[&str], env: &Env| {
            let c = config(args, env).unwrap();
            (c.color_stdout, c.color_stderr)
        };
        let pipes = env();
        assert_eq!(colors(&["q"], &pipes), (false, false));
        let out_tty = Env {
            stdout_tty: true,
            term: Some("xterm".into()),
            ..env()
        };
        assert_eq!(colors(&["q"], &out_tty), (true, false));
        let err_tty = Env {
            stderr_tty: true,
            term: Some("xterm".into()),
            ..env()
        };
        assert_eq!(colors(&["q"], &err_tty), (false, true));
        let both = Env {
            stdout_tty: true,
            ..err_tty.clone()
        };
        assert_eq!(colors(&["q"], &both), (true, true));
        // TERM unset is no reason to drop colour (only dumb is).
        let unset = Env {
            term: None,
            ..both.clone()
        };
        assert_eq!(colors(&["q"], &unset), (true, true));
        let dumb = Env {
            term: Some("dumb".into()),
            ..both.clone()
        };
        assert_eq!(colors(&["q"], &dumb), (false, false));
        let no_color = Env {
            no_color: Some("1".into()),
            ..both.clone()
        };
        assert_eq!(colors(&["q"], &no_color), (false, false));
        let empty = Env {
            no_color: Some(String::new()),
            ..both.clone()
        };
        assert_eq!(colors(&["q"], &empty), (true, true));
        assert_eq!(colors(&["--color", "never", "q"], &both), (false, false));
        assert_eq!(colors(&["--color", "always", "q"], &pipes), (true, true));
        assert_eq!(colors(&["--color", "always", "q"], &no_color), (true, true));
        assert_eq!(colors(&["--color", "always", "q"], &dumb), (true, true));
    }

    #[test]
    fn progress_delay_for_tests() {
        assert_eq!(config(&["q"], &env()).unwrap().progress_after, SHOW_AFTER);
        let with = |v: &str| Env {
            progress_delay: Some(v.into()),
            ..env()
        };
        assert_eq!(
            config(&["q"], &with("0")).unwrap().progress_after,
            Duration::ZERO
        );
        let err = config(&["q"], &with("soon")).unwrap_err();
        assert!(err.contains("NDQ_PROGRESS_DELAY_MS"), "{err}");
    }

    #[test]
    fn prefilter_on_unless_turned_off() {
        assert!(config(&["q"], &env()).unwrap().prefilter);
        assert!(!config(&["--no-prefilter", "q"], &env()).unwrap().prefilter);
        let with = |v: &str| Env {
            prefilter: Some(v.into()),
            ..env()
        };
        assert!(config(&["q"], &with("on")).unwrap().prefilter);
        assert!(config(&["q"], &with("")).unwrap().prefilter);
        assert!(!config(&["q"], &with("off")).unwrap().prefilter);
        assert!(
            !config(&["--no-prefilter", "q"], &with("on"))
                .unwrap()
                .prefilter
        );
        let err = config(&["q"], &with("maybe")).unwrap_err();
        assert!(
            err.contains("NDQ_PREFILTER") && err.contains("maybe"),
            "{err}"
        );
    }

    #[test]
    fn inflate_whole_unless_streamed() {
        assert!(config(&["q"], &env()).unwrap().inflate_whole);
        let with = |v: &str| Env {
            inflate: Some(v.into()),
            ..env()
        };
        assert!(config(&["q"], &with("whole")).unwrap().inflate_whole);
        assert!(!config(&["q"], &with("stream")).unwrap().inflate_whole);
        let err = config(&["q"], &with("fast")).unwrap_err();
        assert!(err.contains("NDQ_INFLATE") && err.contains("fast"), "{err}");
    }

    #[test]
    fn flags_carry_over() {
        let c = config(
            &["--strict", "--stats", "--engine", "serde", "q", "a"],
            &env(),
        )
        .unwrap();
        assert!(c.strict && c.stats);
        assert_eq!(c.engine, Engine::Serde);
        assert_eq!(c.query, "q");
        assert_eq!(c.inputs, [PathBuf::from("a")]);
    }
}
