//! The driver fed block by block, for `--follow`: the same chunk evaluation as a plain run
//! ([`Driver::block`]: chunks on the pool, outputs in order, accumulators merged), but the
//! blocks come from the caller as they are read, and a collecting query can show its rows so
//! far at any time.
//!
//! ```text
//! live(&opts, &plan, format, &mut out, |feed| {
//!     feed.block(new_complete_lines, input_index, name, &mut line)?;   // as often as needed
//!     feed.out().flush()?;
//!     let mut frame = Vec::new();
//!     feed.rows_so_far(&mut frame)?;     // a collecting query: its rows for what was fed
//!     Ok(())
//! })?
//! ```

use std::io::Write;
use std::sync::Mutex;

use ndq_query::Plan;

use super::chunk::LineStep;
use super::progress::Progress;
use super::{Driver, Flow, Mode, QueryFacts, RunOptions, Stats, pool, step, write_collected};
use crate::output::{Format, RowWriter, chart};

/// What the caller of [`live`] can do with the driver.
pub trait Feed {
    /// Evaluate one block of complete lines of input `index` (named `name`); `line` is the
    /// number of its first line, advanced past it. `Ok(false)` when the query wants no more
    /// (`limit` reached).
    fn block(
        &mut self,
        data: &[u8],
        index: usize,
        name: &str,
        line: &mut u64,
    ) -> anyhow::Result<bool>;
    /// Where streamed rows go (the `out` given to [`live`]).
    fn out(&mut self) -> &mut dyn Write;
    /// Whether rows were produced or merged since the last [`Feed::rows_so_far`].
    fn changed(&self) -> bool;
    /// A collecting query's rows over everything fed so far, formatted (the running
    /// accumulator is left as it is: a clone of it is finished). An error when the rows
    /// cannot be written in the format (a chart with no number to draw). A table is fitted
    /// in `width` terminal columns, as [`RowWriter::with_width`] fits one (`None`: whole).
    fn rows_so_far(&mut self, out: &mut Vec<u8>, width: Option<usize>) -> anyhow::Result<()>;
    /// Counts so far.
    fn stats(&self) -> Stats;
}

/// Whether `plan` in `format` collects its rows (aggregation, `order by`, `distinct`, or a
/// table of rows) rather than writing them as its lines arrive.
pub fn collects(plan: &Plan, format: Format) -> bool {
    matches!(Mode::of(plan.kind(), format), Mode::Collect | Mode::Table)
}

/// Run `body` with a [`Feed`] for `plan`; the header of a streaming format is written to
/// `out` first. Returns what `body` returned and the run's counts.
pub fn live<R>(
    opts: &RunOptions,
    plan: &Plan,
    format: Format,
    out: &mut dyn Write,
    body: impl FnOnce(&mut dyn Feed) -> anyhow::Result<R>,
) -> anyhow::Result<(R, Stats)> {
    let mode = Mode::of(plan.kind(), format);
    let writer = RowWriter::new(format, plan.columns())
        .with_color(opts.color_stdout)
        .with_chart(chart::Spec::new(plan, opts.chart));
    let make = || step::PlanStep::new(plan, opts, &writer, mode == Mode::Table);
    let filter = plan.prefilter().filter(|_| opts.skips_lines());
    let facts = QueryFacts {
        mode,
        limit: plan.limit(),
        offset: plan.offset(),
        filter,
        time: Default::default(),
    };
    if mode == Mode::Stream {
        let mut header = Vec::new();
        writer.header(&mut header);
        out.write_all(&header)?;
    }
    let pool = pool(opts.threads.max(1))?;
    let steps: Vec<Mutex<Option<_>>> = (0..pool.current_num_threads())
        .map(|_| Mutex::new(None))
        .collect();
    let progress = Progress::new(false, false, None, opts.progress_after);
    let driver = Driver::new(opts, &facts, &make, &pool, out, &steps, progress);
    let mut feed = Live {
        driver,
        plan,
        view: RowWriter::new(format, plan.columns())
            .with_color(opts.color_stdout)
            .with_chart(chart::Spec::new(plan, opts.chart)),
        shown: None,
    };
    let result = body(&mut feed)?;
    Ok((result, feed.stats()))
}

struct Live<'r, S, F> {
    driver: Driver<'r, S, F>,
    plan: &'r Plan,
    /// Writes the rows so far (the same format and colour as `writer`).
    view: RowWriter,
    /// Rows and hits when the rows were last shown.
    shown: Option<(u64, u64)>,
}

impl<S, F> Feed for Live<'_, S, F>
where
    S: LineStep + Send,
    F: Fn() -> S + Sync,
{
    fn block(
        &mut self,
        data: &[u8],
        index: usize,
        name: &str,
        line: &mut u64,
    ) -> anyhow::Result<bool> {
        Ok(self.driver.block(data, None, index, name, line)? == Flow::More)
    }

    fn out(&mut self) -> &mut dyn Write {
        self.driver.out
    }

    fn changed(&self) -> bool {
        let s = &self.driver.drove.stats;
        self.shown != Some((s.rows, s.hits))
    }

    fn rows_so_far(&mut self, out: &mut Vec<u8>, width: Option<usize>) -> anyhow::Result<()> {
        self.view.set_width(width);
        let drove = &self.driver.drove;
        self.shown = Some((drove.stats.rows, drove.stats.hits));
        match self.driver.facts.mode {
            Mode::Collect => {
                let acc = drove.acc.clone().unwrap_or_else(|| self.plan.accumulator());
                write_collected(self.plan, &self.view, acc, out)?;
            }
            Mode::Table => {
                self.view.write_all(&drove.table, out);
            }
            Mode::Lines | Mode::Stream | Mode::Parts => {}
        }
        Ok(())
    }

    fn stats(&self) -> Stats {
        let mut stats = self.driver.drove.stats.clone();
        stats.malformed = self.driver.bad.count();
        stats.first_bad = self.driver.bad.first();
        stats
    }
}
