//! The real [`Executor`]: one run is one `driver::run` over inputs opened once, with the same
//! parallel driver, chunking and formatting as `ndq` itself. The output is formatted as JSON
//! (what `ndq` writes to a pipe) into `io::sink()`, so formatting is timed and terminal
//! writes are not. The clock is read just around the call.

use std::io;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use ndq_query::Plan;
use ndq_scan::Scanner;

use super::Engine;
use super::Loaded;
use super::measure::{Executor, Sample};
use super::stats::Counts;
use crate::driver;
use crate::input::Source;

/// Runs the compiled cases over the opened inputs.
pub struct DriverExecutor {
    inputs: driver::Inputs,
    plans: Vec<Plan>,
    lazy: driver::RunOptions,
    serde: driver::RunOptions,
    /// What [`DriverExecutor::analyze`] found, once it has run.
    loaded: Option<Loaded>,
}

impl DriverExecutor {
    /// Open (map) `paths` once for every run to come.
    pub fn open(
        paths: &[PathBuf],
        plans: Vec<Plan>,
        scanner: Scanner,
        threads: usize,
        prefilter: bool,
        inflate_whole: bool,
    ) -> anyhow::Result<DriverExecutor> {
        let inputs = driver::Inputs::open(paths)?;
        // No progress bar from the driver: bench draws its own, across runs.
        let lazy = driver::RunOptions {
            threads,
            scanner,
            engine: Engine::Lazy,
            strict: false,
            progress: false,
            color: false,
            prefilter,
            inflate_whole,
            ..driver::RunOptions::default()
        };
        let serde = driver::RunOptions {
            engine: Engine::Serde,
            ..lazy.clone()
        };
        Ok(DriverExecutor {
            inputs,
            plans,
            lazy,
            serde,
            loaded: None,
        })
    }

    /// The first input that cannot be read again from its start (standard input, a pipe), by
    /// name: every run reads the inputs anew.
    pub fn unrepeatable(&self) -> Option<&str> {
        self.inputs
            .list
            .iter()
            .find_map(|input| match input.source {
                Source::Stdin | Source::Stream { rewind: false, .. } => Some(input.name.as_str()),
                Source::Mapped(_) | Source::Stream { rewind: true, .. } => None,
            })
    }

    fn run_plan(&self, plan: &Plan, engine: Engine) -> anyhow::Result<driver::Stats> {
        let opts = match engine {
            Engine::Lazy => &self.lazy,
            Engine::Serde => &self.serde,
        };
        driver::run(
            opts,
            plan,
            &self.inputs,
            driver::Format::Json,
            &mut io::sink(),
        )
    }

    /// The first pass: count the events (and the lines that are not JSON objects) with
    /// `select count(*)` on the lazy engine. It also brings the files into the page cache.
    pub fn analyze(&mut self) -> anyhow::Result<Loaded> {
        let plan = Plan::compile("select count(*)").context("compiling the counting query")?;
        let stats = self.run_plan(&plan, Engine::Lazy)?;
        let loaded = Loaded {
            events: events(&stats),
            malformed: stats.malformed,
            // What the queries read: decompressed bytes for compressed inputs.
            bytes: stats.bytes,
        };
        self.loaded = Some(loaded);
        Ok(loaded)
    }
}

/// Lines that are JSON objects: every non-blank line read, parsed or ruled out by the
/// prefilter, minus the malformed ones. (A malformed line the prefilter ruled out, or whose
/// `where` was decided false before its bad part, is not known to be malformed, so it counts
/// as an event: exact only for a run that skips nothing, such as `analyze`'s.)
fn events(stats: &driver::Stats) -> u64 {
    (stats.lines + stats.skipped).saturating_sub(stats.malformed)
}

impl Executor for DriverExecutor {
    fn run(&mut self, index: usize, engine: Engine) -> anyhow::Result<Sample> {
        let plan = self
            .plans
            .get(index)
            .with_context(|| format!("no case {index}"))?;
        let start = Instant::now();
        let stats = self.run_plan(plan, engine)?;
        let elapsed = start.elapsed();
        // A lazy run that read the whole input saw analyze's events, whatever it skipped
        // unvalidated; a run that stopped early (a `limit`) counts what it read.
        let events = match self.loaded {
            Some(l) if engine == Engine::Lazy && stats.bytes == l.bytes => l.events,
            _ => events(&stats),
        };
        Ok(Sample {
            elapsed,
            counts: Counts {
                events,
                hits: stats.hits,
                bytes: stats.bytes,
            },
        })
    }
}
