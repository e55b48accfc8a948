//! ndq: fast queries over line-delimited JSON. `main` only dispatches: parse the arguments,
//! resolve the configuration, run, and turn the outcome into an exit status.
//!
//! `ndq bench ...` is handed to [`bench::main`], which has its own arguments.
#![deny(unsafe_code)]

mod bench;
mod cli;
mod config;
mod driver;
mod input;
mod messages;
mod output;

use std::ffi::OsString;
use std::io::{self, Write};

use clap::Parser as _;

/// The exit status (DEVELOPERS.md): 0 ok, 1 runtime error, 2 usage or query error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExitCode {
    Ok = 0,
    Runtime = 1,
    Usage = 2,
}

impl std::process::Termination for ExitCode {
    fn report(self) -> std::process::ExitCode {
        std::process::ExitCode::from(self as u8)
    }
}

/// Why a run failed.
enum Failure {
    /// A usage or query error, already rendered.
    Usage(String),
    /// Anything else.
    Runtime(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Runtime(e)
    }
}

fn main() -> std::process::ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "bench") {
        return bench::main(args[1..].to_vec());
    }
    let args = match cli::Args::try_parse_from(args) {
        Ok(args) => args,
        Err(e) => {
            // --help and --version go to stdout (status 0), mistakes to stderr (status 2).
            let _ = e.print();
            let code = if e.use_stderr() {
                ExitCode::Usage
            } else {
                ExitCode::Ok
            };
            return std::process::Termination::report(code);
        }
    };
    let code = match run(args) {
        Ok(()) => ExitCode::Ok,
        Err(Failure::Usage(message)) => {
            eprintln!("{message}");
            ExitCode::Usage
        }
        Err(Failure::Runtime(e)) if is_broken_pipe(&e) => ExitCode::Ok,
        Err(Failure::Runtime(e)) => {
            error!("{}", messages::sanitize(&format!("{e:#}")));
            ExitCode::Runtime
        }
    };
    std::process::Termination::report(code)
}

/// Resolve, compile, open, run, report.
fn run(args: cli::Args) -> Result<(), Failure> {
    let config = config::Config::new(args, &config::Env::probe())
        .map_err(|m| Failure::Usage(format!("ndq: error: {m}")))?;
    let plan = ndq_query::Plan::compile_with(&config.query, &config.time)
        .map_err(|e| Failure::Usage(format!("ndq: error: {e}")))?;
    let inputs = driver::Inputs::open(&config.inputs)?;
    let opts = driver::RunOptions {
        threads: config.threads,
        scanner: config.scanner,
        engine: config.engine,
        strict: config.strict,
        prefilter: config.prefilter,
        progress: config.progress,
        color: config.color,
        ..driver::RunOptions::default()
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(256 << 10, Output(stdout.lock()));
    let result = driver::run(&opts, &plan, &inputs, config.format, &mut out);
    let flushed = out.flush();
    drop(out);
    let stats = result?;
    flushed.map_err(anyhow::Error::from)?;
    if let Some(first) = &stats.first_bad {
        warning!("{}", messages::bad_lines_summary(stats.malformed, first));
    }
    if config.stats {
        messages::message(format_args!("{}", stats.line()));
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

/// Whether the error comes from writing into a closed pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
