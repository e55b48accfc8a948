//! ndq: fast queries over line-delimited JSON. `main` only dispatches: parse the arguments,
//! resolve the configuration, run, and turn the outcome into an exit status.
//!
//! `ndq bench ...` is handed to [`bench::main`], which has its own arguments.
#![deny(unsafe_code)]

mod bench;
#[cfg(feature = "arrow")]
mod binary;
mod cli;
mod config;
mod driver;
mod exit;
mod follow;
mod hint;
mod inflate;
mod input;
mod keys;
mod manual;
mod messages;
mod output;

use std::ffi::OsString;
use std::io::{self, Write};

use clap::Parser as _;

use exit::{ExitCode, Failure};

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "bench") {
        return bench::main(args[1..].to_vec());
    }
    // A command written after an option (`ndq --threads 1 bench --runs 3 ...`) is read as
    // the query, and its own options are then unknown.
    let misplaced = args
        .iter()
        .skip(2)
        .take_while(|a| *a != "--")
        .find_map(|a| COMMANDS.into_iter().find(|c| a == c));
    match cli::Args::try_parse_from(&args) {
        Ok(args) => ExitCode::of(run(args)),
        Err(e) => {
            let code = ExitCode::of_clap(&e);
            if let (true, Some(word)) = (e.use_stderr(), misplaced) {
                // As clap's own message: a stderr that cannot be written is no reason to panic.
                let _ = writeln!(io::stderr(), "{}", command_first(word));
            }
            code
        }
    }
}

/// The commands besides a query.
const COMMANDS: [&str; 4] = ["keys", "bench", "completions", "man"];

/// What to say when a command's name stands where the query goes.
fn command_first(word: &str) -> String {
    format!(
        "'{word}' is a command, not a query: write it first, before any option (ndq {word} ...)"
    )
}

/// Whether a query that does not parse is a file's name: one that exists, or one that ends
/// as a log's does (`app.log`, `logs/x.ndjson.gz`).
fn names_a_file(word: &str) -> bool {
    const ENDINGS: [&str; 6] = [".log", ".ndjson", ".jsonl", ".json", ".gz", ".zst"];
    !word.is_empty()
        && !word.contains(char::is_whitespace)
        && (std::path::Path::new(word).is_file() || ENDINGS.iter().any(|e| word.ends_with(e)))
}

/// Resolve, compile, open, run, report.
fn run(mut args: cli::Args) -> Result<(), Failure> {
    match args.command.take() {
        None => {}
        Some(cli::Command::Keys(keys)) => {
            let stdout = io::stdout();
            let mut out = Output(stdout.lock());
            return keys::main(keys, &config::Env::probe(), &mut out);
        }
        // Taken by `main` before the query's arguments are parsed; here only for a command
        // line that clap routed (the same arguments, so the same run).
        Some(cli::Command::Bench(bench)) => return bench::run(&bench),
        Some(cli::Command::Completions { shell }) => {
            return manual::completions(shell, &mut io::stdout().lock());
        }
        Some(cli::Command::Man) => return manual::man(&mut io::stdout().lock()),
    }
    let config = config::Config::new(args, &config::Env::probe()).map_err(Failure::usage)?;
    messages::set_color(config.color_stderr);
    let plan = ndq_query::Plan::compile_with(&config.query, &config.time).map_err(|e| {
        let mut message = e.to_string();
        // `ndq --color never keys app.log`: a command after an option is read as the query.
        let word = config.query.trim();
        if COMMANDS.contains(&word) {
            message.push('\n');
            message.push_str(&command_first(word));
        } else if names_a_file(word) {
            // `ndq app.log`: the query left out, the file read as one.
            message.push('\n');
            message.push_str(&format!(
                "'{}' is a file, not a query: the query comes first (ndq 'select ...' {0})",
                messages::sanitize(word)
            ));
        } else if let Some(fixed) = ndq_query::Plan::keyword_left_out(word, &config.time) {
            message.push('\n');
            message.push_str(&format!("did you mean: {fixed}"));
        }
        Failure::usage(message)
    })?;
    if config.format == output::Format::Chart {
        output::chart::check(&plan).map_err(Failure::usage)?;
    }
    if config.format.binary() && (plan.kind() == ndq_query::Kind::Lines || plan.lines()) {
        return Err(Failure::usage(format!(
            "{} needs columns: select the properties to write (select @t, @l, ...), not *",
            config.format.flag()
        )));
    }
    if let Some(follow) = &config.follow {
        return follow::run(&config, follow, &plan);
    }
    let inputs = driver::Inputs::open(&config.inputs)?;
    let opts = driver::RunOptions {
        threads: config.threads,
        scanner: config.scanner,
        engine: config.engine,
        strict: config.strict,
        prefilter: config.prefilter,
        progress: config.progress,
        progress_after: config.progress_after,
        color: config.color_stderr,
        color_stdout: config.color_stdout,
        chart: config.chart,
        table_width: config.table_width,
        zones: config.zones.clone(),
        inflate_whole: config.inflate_whole,
        ..driver::RunOptions::default()
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(256 << 10, Output(stdout.lock()));
    let result = match config.format {
        // Parquet and Arrow: the driver's rows typed and encoded on a thread of their own.
        #[cfg(feature = "arrow")]
        f if f.binary() => binary::run(&opts, &plan, &inputs, f, &mut out),
        f => driver::run(&opts, &plan, &inputs, f, &mut out),
    };
    let flushed = out.flush();
    drop(out);
    // A reader gone early (`| head`) ends the run quietly, but the bad lines read until then
    // are still said (stderr is still open).
    let (stats, failure) = match result {
        Ok(stats) => (stats, flushed.err().map(anyhow::Error::from)),
        Err(e) => match e.downcast_ref::<driver::ReaderGone>() {
            Some(gone) => (gone.0.clone(), Some(e)),
            None => return Err(e.into()),
        },
    };
    if let Some(first) = &stats.first_bad {
        warning!("{}", messages::bad_lines_summary(stats.malformed, first));
    }
    if config.stats {
        messages::message(format_args!("{}", stats.line()));
    }
    if let Some(e) = failure {
        return Err(e.into());
    }
    let filtered = plan.has_where() || plan.time_range().is_some();
    if config.hints && filtered && stats.hits == 0 && stats.lines + stats.skipped > 0 {
        let tests = plan.text_tests();
        for note in hint::notes(plan.key_names(), plan.time_key(), &tests, &inputs) {
            messages::note(format_args!("{note}"));
        }
    }
    Ok(())
}

/// Standard output, whose write errors say that they come from writing the results (the
/// error kind is kept, so a closed pipe is still recognised).
struct Output<W>(W);

impl<W: Write> Write for Output<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(writing)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(writing)
    }
}

fn writing(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("writing the results: {e}"))
}
