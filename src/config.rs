//! The resolved configuration of a run: [`crate::cli::Args`] plus everything probed from the
//! environment (whether stdout and stderr are terminals, `NO_COLOR`, `NDQ_SCANNER`,
//! `NDQ_PREFILTER`, the number of cores, the CPU's AVX2). All probing happens here, once; the
//! rest of the program takes a [`Config`] (or, for `ndq bench`, the probed [`Env`]).

use std::path::PathBuf;
use std::time::Duration;

use ndq_scan::Scanner;

use crate::cli::Args;
use crate::driver::Engine;
use crate::driver::progress::SHOW_AFTER;
use crate::output::Format;

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
    /// `NDQ_PROGRESS_DELAY_MS` (undocumented, for tests): how long a run goes before the
    /// progress bar appears, instead of [`crate::driver::progress::SHOW_AFTER`].
    pub progress_delay: Option<String>,
    /// Cores available.
    pub cores: usize,
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
            progress_delay: var("NDQ_PROGRESS_DELAY_MS"),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
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
    /// `--stats`.
    pub stats: bool,
    /// Whether a progress bar may be shown (stderr is a terminal, `TERM` set and not dumb,
    /// and no `--no-progress`).
    pub progress: bool,
    /// How long a run goes before the progress bar appears.
    pub progress_after: Duration,
    /// Whether stderr may be coloured (terminal, `NO_COLOR` unset or empty, `TERM` not dumb).
    pub color: bool,
}

impl Config {
    /// Resolve `args` in `env`. The error is a usage error (exit 2).
    pub fn new(args: Args, env: &Env) -> Result<Config, String> {
        let format = match args.output {
            Some(format) => format,
            None if env.stdout_tty => Format::Table,
            None => Format::Json,
        };
        let scanner = match (args.scanner, env.scanner.as_deref()) {
            (Some(flag), _) => scanner(flag.name(), "--scanner")?,
            (None, Some(name)) if !name.is_empty() => scanner(name, "NDQ_SCANNER")?,
            (None, _) => Scanner::detect(),
        };
        let color = env.stderr_tty
            && env.no_color.as_deref().is_none_or(str::is_empty)
            && env.term.as_deref() != Some("dumb");
        // As indicatif decides for a terminal (console's `is_dumb`): no bar when `TERM` is
        // unset or dumb.
        let smart = env.term.as_deref().is_some_and(|t| t != "dumb") || cfg!(windows);
        let progress_after = match env.progress_delay.as_deref() {
            None | Some("") => SHOW_AFTER,
            Some(ms) => ms.parse().map(Duration::from_millis).map_err(|_| {
                format!("NDQ_PROGRESS_DELAY_MS: not a number of milliseconds: '{ms}'")
            })?,
        };
        Ok(Config {
            query: args.query.unwrap_or_default(),
            inputs: args.inputs,
            format,
            threads: args.threads.map_or(env.cores.max(1), |n| n as usize),
            scanner,
            engine: args.engine,
            strict: args.strict,
            prefilter: !args.no_prefilter && prefilter(env.prefilter.as_deref())?,
            stats: args.stats,
            progress: env.stderr_tty && smart && !args.no_progress,
            progress_after,
            color,
        })
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
    fn progress_and_color_need_a_terminal() {
        let c = config(&["q"], &env()).unwrap();
        assert!(!c.progress && !c.color);
        let tty = Env {
            stderr_tty: true,
            term: Some("xterm-256color".into()),
            ..env()
        };
        let c = config(&["q"], &tty).unwrap();
        assert!(c.progress && c.color);
        let unset = Env {
            term: None,
            ..tty.clone()
        };
        assert!(!config(&["q"], &unset).unwrap().progress, "TERM unset");
        assert!(!config(&["--no-progress", "q"], &tty).unwrap().progress);
        let no_color = Env {
            no_color: Some("1".into()),
            ..tty.clone()
        };
        assert!(!config(&["q"], &no_color).unwrap().color);
        let empty = Env {
            no_color: Some(String::new()),
            ..tty.clone()
        };
        assert!(config(&["q"], &empty).unwrap().color);
        let dumb = Env {
            term: Some("dumb".into()),
            ..tty
        };
        let c = config(&["q"], &dumb).unwrap();
        assert!(!c.color && !c.progress);
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
