//! The driver: reads the inputs, evaluates a compiled query over them in parallel, and writes
//! the results in input order.
//!
//! # API (also used by `ndq bench`, which calls [`run`] repeatedly on inputs opened once)
//!
//! ```text
//! let inputs = Inputs::open(&paths)?;              // every input opened (or named in an error)
//! let opts = RunOptions { threads: 2, ..RunOptions::default() };
//! let stats: Stats = run(&opts, &plan, &inputs, Format::Json, &mut io::sink())?;
//! ```
//! [`run`] writes results to `out` and returns [`Stats`]; it prints nothing itself (no warning,
//! no stats line): the caller reports `stats.malformed` / `stats.first_bad`. A `--strict` bad
//! line is an error ([`StrictError`]) after the output of the lines before it.
//!
//! `--follow` feeds the same evaluation block by block instead ([`live`]).
//!
//! # How a run goes
//!
//! ```text
//! for each input, in order:
//!     a run of small regular files (up to 1 MiB each, 16 MiB together) -> one batch: each
//!                      file read whole and evaluated by one pool task, outputs taken in
//!                      file order (Driver::small_files)
//!     a run of compressed files, threads > 1 -> up to `threads` files decompressed and
//!                      evaluated at once, each by its own reader and evaluator thread,
//!                      outputs queued per file and taken in file order (Driver::compressed)
//!     regular file  -> map it in windows of `opts.window` bytes, each cut after its last '\n'
//!                      (a longer line widens the window); unmapped when done (by a pool
//!                      worker, overlapping the next window's chunks), so resident memory
//!                      stays flat however large the file
//!     stream, stdin -> blocks of about a quarter of `opts.window` ending at a '\n', read
//!                      (and decompressed) ahead on a reader thread
//!     for each window or block:
//!         split it into line-aligned chunks (chunk::split)
//!         evaluate the chunks on the rayon pool (chunk::scan), each into its own ChunkOut
//!         in chunk order: count, number bad lines, write the output buffer / keep the table
//!                         rows / keep the accumulator; stop when `limit` rows are out
//!         the block's accumulators merged into the run's, together (in parallel, by
//!         partition of the groups: Accumulator::merge_all); for one file's windows or
//!         blocks with more than one worker, a merge of many groups waits for the next
//!         block and runs on the pool beside its chunks (rayon::join)
//! collecting queries: plan.finish(merged accumulator), then write the rows
//! ```
//! Memory is bounded by two windows (the one being read and the one being unmapped), the
//! chunk outputs, and (for `table` and aggregations) the rows kept until the end.
//!
//! With `limit N` and no `order by`, each chunk stops at N rows (N + M with `offset M`; the
//! first M rows in chunk order are left out when written), a chunk that reached its rows
//! tells the chunks after it to give up (they are not needed), and reading stops once N rows
//! are written. Line numbers are counted per chunk and summed in chunk order, so the first bad
//! line reported is the same with any number of threads and any chunk size.

pub mod chunk;
pub mod live;
pub mod prefilter;
pub mod progress;
pub mod step;
pub mod zones;

use std::fs::File;
use std::io::{self, Write};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use memmap2::{Mmap, MmapOptions};
use ndq_query::{Accumulator, Kind, Plan, Prefilter, TimeRange, Value};
use ndq_scan::Scanner;
use rayon::prelude::*;

pub use crate::input::Inputs;
use crate::input::{Blocks, Input, Source};
use crate::messages::{BadLine, BadLines, Position};
pub use crate::output::Format;
use crate::output::{RowWriter, chart};
use chunk::{ChunkOut, Limits, LineStep, TimeCheck};
use progress::Progress;
use zones::{FileZones, ZoneOptions};

/// How lines are evaluated: `--engine` of `ndq` (hidden) and of `ndq bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// ndq's lazy scanner: only the keys the query reads are indexed.
    Lazy,
    /// The baseline: each line parsed completely into a `serde_json::Value` (lines serde
    /// rejects count as malformed), the same plan evaluated on it.
    Serde,
}

impl Engine {
    /// `lazy` or `serde`.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Lazy => "lazy",
            Engine::Serde => "serde",
        }
    }
}

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The JSON scanner for [`Engine::Lazy`].
    pub scanner: Scanner,
    /// The evaluation engine.
    pub engine: Engine,
    /// The first bad line is an error.
    pub strict: bool,
    /// A progress bar may be shown on stderr (long runs only).
    pub progress: bool,
    /// How long a run goes before the progress bar appears ([`progress::SHOW_AFTER`]).
    pub progress_after: Duration,
    /// Colour on stderr (the progress bar), as decided for stderr by [`crate::config`].
    pub color: bool,
    /// Colour on stdout (json rows, `select *` lines, tables), as decided for stdout.
    pub color_stdout: bool,
    /// Bytes per chunk; `None` picks one from the window size and the threads.
    pub chunk_size: Option<usize>,
    /// Bytes per mapped window; a stream is read ahead in blocks of about a quarter of it.
    pub window: usize,
    /// Skip the lines that the query's literal prefilter rules out, and the rest of the
    /// lines its `where` rules out from the keys read first (see [`RunOptions::skips_lines`]).
    pub prefilter: bool,
    /// The size of `-o chart`.
    pub chart: crate::output::chart::Size,
    /// The terminal columns a table is fitted in (`None`: not a terminal, any width).
    pub table_width: Option<usize>,
    /// Zone maps of large files: where they are cached (`None`: none used or written).
    pub zones: Option<ZoneOptions>,
    /// Inflate a regular gzip file's members whole where it can be ([`crate::inflate`]);
    /// off (`NDQ_INFLATE=stream`): every gzip input is streamed.
    pub inflate_whole: bool,
}

impl RunOptions {
    /// Whether lines may be skipped without being validated (the literal prefilter, `where`
    /// decided before the rest of a line is read): asked for, never under `--strict`, where
    /// every line must be validated, and only by the lazy engine (the serde engine is the
    /// baseline that parses every line).
    pub fn skips_lines(&self) -> bool {
        self.prefilter && !self.strict && self.engine == Engine::Lazy
    }
}

/// Default bytes per mapped window (a stream's blocks are a quarter of it).
///
/// 64 MiB rather than 32: it made each of the three throughput queries
/// (`testdata/throughput.txt`) about 2-2.5% faster over the 1 GiB file in paired runs (128
/// and 256 MiB gained no more than 64; 16 MiB was 5% slower than 32). Why is not pinned
/// down: the CPU time stayed the same (the wall time fell), but neither a pipeline that kept
/// the workers busy across windows nor windows aligned to 2 MiB pages (a quarter fewer page
/// faults) gained anything. A mapped window's pages are the page cache's, so the price is
/// only in the resident set reported (see the README).
pub const WINDOW: usize = 64 << 20;

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            scanner: Scanner::detect(),
            engine: Engine::Lazy,
            strict: false,
            progress: false,
            progress_after: progress::SHOW_AFTER,
            color: false,
            color_stdout: false,
            chunk_size: None,
            window: WINDOW,
            prefilter: true,
            chart: crate::output::chart::Size::PIPE,
            table_width: None,
            zones: None,
            inflate_whole: true,
        }
    }
}

/// What a run saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Non-blank lines scanned (every line read that was not blank and not ruled out by the
    /// prefilter; with an early stop, only those actually looked at).
    pub lines: u64,
    /// Non-blank lines the prefilter or the time range (a line's leading time, a zone) ruled
    /// out: never parsed nor validated. `lines + skipped` is every non-blank line.
    pub skipped: u64,
    /// Lines that passed `where`.
    pub hits: u64,
    /// Lines that are not JSON objects.
    pub malformed: u64,
    /// Bytes of input scanned (decompressed; with an early stop, only what the chunks looked
    /// at).
    pub bytes: u64,
    /// Rows written.
    pub rows: u64,
    /// The first bad line: input name, 1-based line number, why.
    pub first_bad: Option<BadLine>,
    /// Wall time of the run.
    pub elapsed: Duration,
}

impl Stats {
    /// The `--stats` line (without the `ndq: ` prefix); the lines ruled out unread (by the
    /// prefilter or the time range) come last, when there are any.
    pub fn line(&self) -> String {
        let secs = self.elapsed.as_secs_f64();
        let rate = if secs > 0.0 {
            self.bytes as f64 / 1e6 / secs
        } else {
            0.0
        };
        let mut line = format!(
            "stats: {} lines scanned, {} hits, {} malformed, {} bytes, {:.3} s, {:.1} MB/s",
            self.lines, self.hits, self.malformed, self.bytes, secs, rate
        );
        if self.skipped > 0 {
            line.push_str(&format!(", {} lines ruled out unread", self.skipped));
        }
        line
    }
}

/// `--strict` and a line that is not a JSON object (exit status 1).
#[derive(Debug)]
pub struct StrictError(pub BadLine);

impl std::fmt::Display for StrictError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (--strict stops at the first bad line)", self.0)
    }
}

impl std::error::Error for StrictError {}

/// Run `plan` over `inputs`, writing the result to `out` in `format`.
pub fn run(
    opts: &RunOptions,
    plan: &Plan,
    inputs: &Inputs,
    format: Format,
    out: &mut dyn Write,
) -> anyhow::Result<Stats> {
    let kind = plan.kind();
    let mode = Mode::of(kind, format);
    let writer = RowWriter::new(format, plan.columns())
        .with_color(opts.color_stdout)
        .with_width(opts.table_width)
        .with_chart(chart::Spec::new(plan, opts.chart));
    let table_rows = mode == Mode::Table;
    let make = || step::PlanStep::new(plan, opts, &writer, table_rows);
    let filter = plan.prefilter().filter(|_| opts.skips_lines());
    let facts = QueryFacts {
        mode,
        limit: plan.limit(),
        offset: plan.offset(),
        filter,
        time: TimeFacts {
            range: plan.time_range().filter(|_| opts.skips_lines()),
            key: plan.time_key(),
        },
    };
    let mut header = Vec::new();
    if mode == Mode::Stream {
        writer.header(&mut header);
    }
    out.write_all(&header)?;
    let drove = drive(opts, &facts, &make, inputs, out)?;
    let mut tail = Vec::new();
    match mode {
        Mode::Collect => {
            let acc = drove.acc.unwrap_or_else(|| plan.accumulator());
            // The groups are finished partition by partition on the pool.
            pool(opts.threads.max(1))?
                .install(|| write_collected(plan, &writer, acc, &mut tail))?;
        }
        Mode::Table => writer.write_all(&drove.table, &mut tail),
        Mode::Lines | Mode::Stream | Mode::Parts => {}
    }
    let written = out.write_all(&tail).and_then(|()| out.flush());
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            Err(anyhow::Error::new(e).context(ReaderGone(drove.stats)))
        }
        written => written.map(|()| drove.stats).map_err(anyhow::Error::from),
    }
}

/// A collecting query's rows: `plan.finish(acc)`, written in `format` to `out`; rows a
/// chart cannot draw are a usage error ([`crate::exit::LateUsage`]), with nothing written.
fn write_collected(
    plan: &Plan,
    writer: &RowWriter,
    acc: Accumulator,
    out: &mut Vec<u8>,
) -> anyhow::Result<()> {
    let rows = plan.finish(acc);
    if plan.lines() {
        // `select * ... order by`: each row is a whole line, written unchanged.
        for value in rows.iter().flatten() {
            if let Value::RawJson(text) = value {
                writer.line(text.as_bytes(), out);
            }
        }
    } else {
        writer.measurable(&rows).map_err(crate::exit::LateUsage)?;
        writer.write_all(&rows, out);
    }
    Ok(())
}

/// How results come out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Matching lines, unchanged, as they come.
    Lines,
    /// Rows in a streaming format, as they come.
    Stream,
    /// Rows kept for `-o table`.
    Table,
    /// Aggregation or `order by`: accumulators merged, rows at the end.
    Collect,
    /// Each chunk's own partial result ([`ChunkOut::part`]) folded in chunk order by the
    /// step's [`LineStep::fold`] (`ndq keys`); `limit` counts the step's rows.
    Parts,
}

impl Mode {
    fn of(kind: Kind, format: Format) -> Mode {
        match kind {
            Kind::Lines => Mode::Lines,
            Kind::Rows if format.streams() => Mode::Stream,
            Kind::Rows => Mode::Table,
            Kind::Collect => Mode::Collect,
        }
    }

    /// Whether `limit` stops the reading early.
    fn stops_early(self) -> bool {
        self != Mode::Collect
    }
}

/// What the driver needs to know of the query besides its steps.
#[derive(Clone, Copy, Debug)]
pub struct QueryFacts<'f> {
    /// How results come out.
    pub mode: Mode,
    /// `limit N`.
    pub limit: Option<u64>,
    /// `offset M` (0: none): rows skipped before `limit` counts (a [`Mode::Collect`] plan
    /// applies it itself, in `Plan::finish`).
    pub offset: u64,
    /// The lines worth handing to the steps (`None`: all).
    pub filter: Option<&'f Prefilter>,
    /// The query's time range and time property.
    pub time: TimeFacts<'f>,
}

/// What the driver knows of the query's times.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeFacts<'f> {
    /// Lines (and zones) whose leading time is outside it are skipped unread; `None` when
    /// the query has none, or lines may not be skipped ([`RunOptions::skips_lines`]).
    pub range: Option<&'f TimeRange>,
    /// The key whose leading times zone maps record ([`Plan::time_key`]).
    pub key: Option<&'f str>,
}

/// What [`drive`] leaves for the end of the run.
#[derive(Debug, Default)]
pub struct Drove {
    /// Counts.
    pub stats: Stats,
    /// The merged accumulator (collecting queries).
    pub acc: Option<Accumulator>,
    /// The folded parts ([`Mode::Parts`]).
    pub part: Option<Box<dyn std::any::Any + Send>>,
    /// The rows kept for `-o table`.
    pub table: Vec<Vec<Value<'static>>>,
}

/// Read every input and evaluate it with steps from `make`, writing streamed output to `out`.
pub fn drive<S, F>(
    opts: &RunOptions,
    facts: &QueryFacts<'_>,
    make: &F,
    inputs: &Inputs,
    out: &mut dyn Write,
) -> anyhow::Result<Drove>
where
    S: LineStep + Send,
    F: Fn() -> S + Sync,
{
    let start = Instant::now();
    let pool = pool(opts.threads.max(1))?;
    let total = inputs.sizes_known().then(|| inputs.total_bytes());
    let allowed = opts.progress && total.is_none_or(|t| t >= 16 << 20);
    let steps: Vec<Mutex<Option<S>>> = (0..pool.current_num_threads())
        .map(|_| Mutex::new(None))
        .collect();
    let progress = Progress::new(allowed, opts.color, total, opts.progress_after);
    let mut d = Driver::new(opts, facts, make, &pool, out, &steps, progress);
    d.total = total;
    let list = &inputs.list;
    let mut index = 0;
    // `ndq keys --limit-lines` may evaluate again the chunk where the limit ends, which needs
    // the chunk's bytes: only the one-input-at-a-time path keeps them.
    let batches = !(facts.mode == Mode::Parts && facts.limit.is_some());
    while index < list.len() {
        // A run of small regular files is one batch of work.
        let mut end = index;
        let mut bytes = 0;
        while batches && end < list.len() && bytes < SMALL_BATCH {
            match (&list[end].source, list[end].len) {
                (Source::Mapped(_), Some(len)) if len <= SMALL_FILE => bytes += len,
                _ => break,
            }
            end += 1;
        }
        if batches && end == index && opts.threads > 1 {
            // A run of compressed files is decompressed several at once.
            while end < list.len()
                && matches!(list[end].source, Source::Stream { rewind: true, .. })
            {
                end += 1;
            }
            if end - index < 2 {
                end = index;
            }
        }
        let flow = if end > index && matches!(list[index].source, Source::Stream { .. }) {
            d.compressed(index, &list[index..end])
        } else if end > index {
            d.small_files(index, &list[index..end])
        } else {
            end = index + 1;
            d.input(index, &list[index])
        };
        match flow {
            Ok(Flow::Done) => break,
            Ok(Flow::More) => {}
            Err(e) if crate::exit::is_broken_pipe(&e) => {
                // The reader went away: what was read so far still has its bad lines.
                d.progress.finish();
                let stats = d.stats(start);
                return Err(e.context(ReaderGone(stats)));
            }
            Err(e) => return Err(e),
        }
        index = end;
    }
    d.progress.finish();
    let stats = d.stats(start);
    let mut drove = d.drove;
    drove.stats = stats;
    Ok(drove)
}

/// A file's end as its lines that end with a newline, and a last line without one (empty
/// when there is none).
fn unfinished_apart(data: &[u8]) -> (&[u8], &[u8]) {
    if data.ends_with(b"\n") {
        return (data, &data[data.len()..]);
    }
    data.split_at(memchr::memrchr(b'\n', data).map_or(0, |i| i + 1))
}

/// Whether a file's last line `tail`, without its newline, is still being written: it is not
/// a JSON document (whole, it would be read as any line), and the file, `len` bytes when its
/// reading began, grows past that within [`WRITING`] (`now` gives its length now). A logger
/// writes a line in pieces, so a run that reads a live log ends in the middle of one.
fn still_written(tail: &[u8], len: u64, now: impl Fn() -> Option<u64>) -> bool {
    let line = tail.trim_ascii();
    if line.is_empty()
        || ndq_scan::Parser::new(ndq_scan::Scanner::scalar())
            .parse(line)
            .is_ok()
    {
        return false;
    }
    let start = Instant::now();
    loop {
        if now().is_some_and(|n| n > len) {
            return true;
        }
        if start.elapsed() >= WRITING {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// How long a last line that is not JSON may wait for the rest of it (see
/// [`still_written`]): a file with such a last line that nobody writes costs this much.
const WRITING: Duration = Duration::from_millis(50);

/// Say that a file's last line, without its newline, was left out because the file grew
/// while it was read: the line was still being written.
fn being_written(name: &str) {
    crate::messages::note(format_args!(
        "{name}: its last line has no newline yet and the file grew while it was read: left \
         out as a line still being written"
    ));
}

/// The context of a write into a closed pipe (`ndq ... | head`): the counts of what was read
/// until then, for its warning about bad lines. The error's chain still has the
/// [`io::ErrorKind::BrokenPipe`] under it.
#[derive(Debug)]
pub struct ReaderGone(pub Stats);

impl std::fmt::Display for ReaderGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the reader of the output went away")
    }
}

/// The worker pool for `threads` threads, built once and kept for later runs with the same
/// count (`ndq bench` runs the driver many times).
fn pool(threads: usize) -> anyhow::Result<Arc<rayon::ThreadPool>> {
    static POOL: Mutex<Option<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(None);
    let mut slot = POOL.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((n, pool)) = slot.as_ref()
        && *n == threads
    {
        return Ok(pool.clone());
    }
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("ndq-worker-{i}"))
            .build()
            .context("starting the worker threads")?,
    );
    *slot = Some((threads, pool.clone()));
    Ok(pool)
}

/// Whether to go on reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    More,
    Done,
}

/// Up to this [`Accumulator::weight`] in a block's accumulators (groups, and the values of
/// their distinct counts and percentiles), [`Driver::merge_pending`] folds them on the
/// driver's thread: waking the pool for each block of a directory of small files cost a
/// quarter of the run (4,104 files of 256 KB, `count(*)`: 0.30 s against 0.23 s). A heavier
/// merge goes to the pool, beside the next block's chunks: folded here, one distinct count of
/// 378,000 paths kept the workers waiting for a fifth of the run.
const FEW_GROUPS: usize = 4096;

struct Driver<'r, S, F> {
    /// The step type `make` returns.
    step: PhantomData<fn() -> S>,
    opts: &'r RunOptions,
    facts: &'r QueryFacts<'r>,
    make: &'r F,
    pool: &'r rayon::ThreadPool,
    out: &'r mut dyn Write,
    bad: BadLines,
    /// Rows still wanted (`offset` + `limit` without `order by`), skipped ones included.
    remaining: Option<u64>,
    /// Rows still to skip (`offset` without `order by`).
    skip: u64,
    drove: Drove,
    /// One step per pool thread, made on the thread's first chunk and kept for the whole run
    /// (the scanner's buffers and the line shapes it learned carry over from chunk to chunk
    /// and from window to window). Indexed by `rayon::current_thread_index()`; a thread runs
    /// one chunk at a time, so its lock is never contended.
    steps: &'r [Mutex<Option<S>>],
    progress: Progress,
    /// Input bytes of the inputs already finished (for the progress bar).
    done_before: u64,
    /// Input bytes in all, when every input's size is known.
    total: Option<u64>,
    /// Bytes read from the last input read as a stream (standard input has no length to
    /// add to `done_before`).
    streamed: u64,
    /// The zone map of the mapped file being read, when it has one.
    zones: Option<FileZones>,
    /// The accumulators of a block's chunks taken so far, in order, to be merged into
    /// `drove.acc` together ([`Driver::merge_pending`]).
    pending: Vec<Accumulator>,
    /// Whether a block's large merge waits for the next block, to run beside its chunks
    /// ([`Driver::block`]).
    overlap: bool,
}

impl<'r, S, F> Driver<'r, S, F>
where
    S: LineStep + Send,
    F: Fn() -> S + Sync,
{
    /// The run's counts so far, its bad lines and time included.
    fn stats(&self, start: Instant) -> Stats {
        Stats {
            malformed: self.bad.count(),
            first_bad: self.bad.first(),
            elapsed: start.elapsed(),
            ..self.drove.stats.clone()
        }
    }

    /// A driver at the start of a run. Streamed rows (a query that stops early) turn
    /// `offset` and `limit` into the rows still to skip and still wanted.
    fn new(
        opts: &'r RunOptions,
        facts: &'r QueryFacts<'r>,
        make: &'r F,
        pool: &'r rayon::ThreadPool,
        out: &'r mut dyn Write,
        steps: &'r [Mutex<Option<S>>],
        progress: Progress,
    ) -> Self {
        let streamed = facts.mode.stops_early();
        Driver {
            step: PhantomData,
            opts,
            facts,
            make,
            pool,
            out,
            bad: BadLines::new(),
            remaining: match (streamed, facts.limit) {
                (false, _) => None,
                // The rows `offset` skips are produced first, then `limit` more.
                (true, Some(limit)) => Some(limit.saturating_add(facts.offset)),
                // Row ends are kept to skip the first rows; no stop comes in reach.
                (true, None) if facts.offset > 0 => Some(u64::MAX),
                (true, None) => None,
            },
            skip: if streamed { facts.offset } else { 0 },
            drove: Drove::default(),
            steps,
            progress,
            done_before: 0,
            total: None,
            streamed: 0,
            zones: None,
            pending: Vec::new(),
            overlap: false,
        }
    }

    fn input(&mut self, index: usize, input: &Input) -> anyhow::Result<Flow> {
        self.streamed = 0;
        // One input's blocks come one after another: with more than one worker, each block's
        // merge runs beside the next one's chunks, and the last one's here.
        self.overlap = self.opts.threads > 1;
        let flow = self.blocks_of(index, input);
        self.overlap = false;
        self.merge_pending();
        let flow = flow?;
        self.done_before += input.len.unwrap_or(self.streamed);
        self.progress.set(self.done_before);
        Ok(flow)
    }

    /// One input's blocks, mapped or streamed.
    fn blocks_of(&mut self, index: usize, input: &Input) -> anyhow::Result<Flow> {
        match &input.source {
            Source::Mapped(path) => {
                let file = File::open(path).with_context(|| input.name.clone())?;
                match self.mapped(index, input, &file) {
                    Err(Fallback) => self.stream(index, input),
                    Ok(flow) => flow,
                }
            }
            Source::Stdin | Source::Stream { .. } => self.stream(index, input),
        }
    }

    /// A regular file, mapped window by window. `Err(Fallback)` when it cannot be mapped at
    /// all (then it is read as a stream). With a zone map ([`zones`]), the stretches whose
    /// zones the query's time range cannot meet are skipped unread, and the zones of what is
    /// read are recorded.
    fn mapped(
        &mut self,
        index: usize,
        input: &Input,
        file: &File,
    ) -> Result<anyhow::Result<Flow>, Fallback> {
        let len = match file.metadata() {
            Ok(m) => m.len(),
            Err(e) => return Ok(Err(anyhow::Error::new(e).context(input.name.clone()))),
        };
        let facts = self.facts.time;
        self.zones = match (&self.opts.zones, facts.key) {
            (Some(opts), Some(key)) => {
                FileZones::open(opts, std::path::Path::new(&input.name), file, key)
            }
            _ => None,
        };
        let regions = match &self.zones {
            Some(z) => {
                // Zones are skipped only for a range on the zone map's key.
                let range = facts.range.filter(|r| r.key().as_bytes() == z.key());
                zones::regions(&z.kept, range, len)
            }
            None => vec![zones::Region {
                start: 0,
                end: len,
                skip: None,
            }],
        };
        let mut line = 1u64;
        for region in regions {
            if let Some((lines, filled)) = region.skip {
                line += lines;
                self.drove.stats.skipped += filled;
                self.progress.set(self.done_before + region.end);
                continue;
            }
            match self.windows(index, input, file, len, region.start..region.end, &mut line) {
                Ok(Ok(Flow::More)) => {}
                other => {
                    self.zones = None;
                    return other;
                }
            }
        }
        if let Some(z) = self.zones.take() {
            z.finish(file);
        }
        Ok(Ok(Flow::More))
    }

    /// The bytes `span` of a mapped file of `len` bytes (at line starts), window by window.
    fn windows(
        &mut self,
        index: usize,
        input: &Input,
        file: &File,
        len: u64,
        span: std::ops::Range<u64>,
        line: &mut u64,
    ) -> Result<anyhow::Result<Flow>, Fallback> {
        let window = self.opts.window.max(1) as u64;
        let mut start = span.start;
        while start < span.end {
            // A file cut short while it is read (logrotate's copytruncate) would make the
            // mapped pages past its new end fault (SIGBUS): look before each window, and stop
            // with an error naming the file instead. (A cut during a window's own scan is
            // caught by `map_window`'s handler, which cannot name it.) The first window comes
            // right after the length was read.
            let now = if start == 0 {
                len
            } else {
                match file.metadata() {
                    Ok(m) => m.len(),
                    Err(e) => return Ok(Err(anyhow::Error::new(e).context(input.name.clone()))),
                }
            };
            if now < len {
                return Ok(Err(anyhow::anyhow!(
                    "{}: the file shrank from {len} to {now} bytes while it was read \
                     (truncated, as by logrotate's copytruncate?)",
                    input.name
                )));
            }
            let mut want = window;
            let (map, cut) = loop {
                let end = span.end.min(start + want);
                let map = match map_window(file, start, (end - start) as usize) {
                    Ok(map) => map,
                    Err(_) if start == 0 => return Err(Fallback),
                    Err(e) => {
                        return Ok(Err(anyhow::Error::new(e).context(input.name.clone())));
                    }
                };
                if end == span.end {
                    let n = map.len();
                    break (map, n);
                }
                match memchr::memrchr(b'\n', &map) {
                    Some(i) => break (map, i + 1),
                    // A line longer than the window: widen it.
                    None => want = want.saturating_mul(2),
                }
            };
            let _ = map.advise(memmap2::Advice::Sequential);
            if start == 0
                && let Some(warning) = crate::input::misnamed(&input.name, &map)
            {
                self.progress.suspend(|| crate::warning!("{warning}"));
            }
            let data = &map[..cut];
            let data = if start == 0 { strip_bom(data) } else { data };
            let base = start + (cut - data.len()) as u64;
            // The file's last line without its newline: evaluated after the rest, unless the
            // file has grown by then (a line still being written, not a bad one).
            let (data, tail) = if start + cut as u64 == len {
                unfinished_apart(data)
            } else {
                (data, &data[data.len()..])
            };
            let mut flow = self.block(data, Some(base), index, &input.name, line);
            if !tail.is_empty() && matches!(flow, Ok(Flow::More)) {
                flow = if still_written(tail, len, || file.metadata().ok().map(|m| m.len())) {
                    self.progress.suspend(|| being_written(&input.name));
                    Ok(Flow::More)
                } else {
                    let at = base + data.len() as u64;
                    self.block(tail, Some(at), index, &input.name, line)
                };
            }
            // Unmapping tears down a page table entry per page. Done here, the workers would
            // wait for it; on the pool it overlaps the next window's chunks (so at most two
            // windows are mapped at once).
            self.pool.spawn(move || drop(map));
            start += cut as u64;
            self.progress.set(self.done_before + start);
            match flow {
                Ok(Flow::More) => {}
                other => return Ok(other),
            }
        }
        Ok(Ok(Flow::More))
    }

    /// Standard input or a stream file, block by block.
    fn stream(&mut self, index: usize, input: &Input) -> anyhow::Result<Flow> {
        // A quarter of a window (16 MiB) read ahead, while the workers have up to as much
        // again in hand: a stream's blocks are the process's own memory, where a mapped
        // window's pages are the page cache's, so they stay as small as before windows grew.
        let ahead = (self.opts.window / 4).max(1);
        let mut blocks = Blocks::start(input, ahead, self.opts.inflate_whole)
            .with_context(|| input.name.clone())?;
        let mut line = 1u64;
        let mut first = true;
        while let Some(block) = blocks.next_block() {
            let block = block.with_context(|| input.name.clone())?;
            let data = if first { strip_bom(&block) } else { &block };
            first = false;
            let flow = self.block(data, None, index, &input.name, &mut line)?;
            blocks.recycle(block);
            // A slow producer (`tail -f | ndq ...`) sees its results as they come; a fast
            // one gives large blocks, so this is rare.
            let w = &mut self.out;
            self.progress.suspend(|| w.flush())?;
            self.streamed = blocks.consumed.load(Ordering::Relaxed);
            self.progress.set(self.done_before + self.streamed);
            if flow == Flow::Done {
                return Ok(Flow::Done);
            }
        }
        Ok(Flow::More)
    }

    /// Evaluate one window or block (line-aligned); `line` is the number of its first line,
    /// advanced past it. `base`: the window's offset in its mapped file.
    fn block(
        &mut self,
        data: &[u8],
        base: Option<u64>,
        index: usize,
        name: &str,
        line: &mut u64,
    ) -> anyhow::Result<Flow> {
        let mut work = self.work();
        if let (Some(z), Some(base)) = (&self.zones, base)
            && z.records()
        {
            work.index = Some((base, z.key().to_vec(), z.block(), z.covered()));
        }
        let (chunks, outs) = if self.pending.is_empty() {
            work.block(data)
        } else {
            // The last block's merge, on the pool beside this block's chunks: the workers
            // that finish their share of either go on with the other, instead of waiting at
            // the end of each.
            let pending = std::mem::take(&mut self.pending);
            let ahead = self.ahead();
            let total = self.drove.acc.get_or_insert_with(Accumulator::default);
            total.expect_more(ahead);
            let (_, scanned) = self
                .pool
                .install(|| rayon::join(|| total.merge_all(pending), || work.block(data)));
            scanned
        };
        self.absorb(outs, Some(&chunks), index, name, line)
    }

    /// A run of small regular files (each at most [`SMALL_FILE`] bytes), evaluated as one
    /// stream of work: each file is read whole and evaluated by one pool task (in chunks of
    /// `--chunk-size` when one is set), so the workers go from file to file without waiting
    /// for each other; the outputs are then taken in file order. `first` is the index of
    /// `files[0]` among the inputs.
    fn small_files(&mut self, first: usize, files: &[Input]) -> anyhow::Result<Flow> {
        let stop = AtomicUsize::new(usize::MAX);
        let work = self.work();
        let target = self.opts.chunk_size.unwrap_or(usize::MAX);
        // Each file's chunk outputs, and what to say of it (compressed data under a plain name).
        // And whether its last line was left out, still being written.
        type Read = io::Result<(Vec<ChunkOut>, Option<String>, bool)>;
        let outs: Vec<Read> = self.pool.install(|| {
            files
                .par_iter()
                .enumerate()
                .map(|(i, input)| {
                    let mut outs = Vec::new();
                    if stop.load(Ordering::Relaxed) < i {
                        return Ok((outs, None, false));
                    }
                    let Source::Mapped(path) = &input.source else {
                        unreachable!("only regular files are read whole")
                    };
                    // Opened, read whole and closed: at most one small file open per worker.
                    let data = std::fs::read(path)?;
                    let warning = crate::input::misnamed(&input.name, &data);
                    let body = strip_bom(&data);
                    // A last line without its newline last, unless the file has grown by
                    // then (as for a mapped file).
                    let (body, tail) = unfinished_apart(body);
                    let mut stopped = false;
                    for c in chunk::split(body, target) {
                        outs.push(work.scan(c, i, &stop, None));
                        // A chunk of this file that stopped (its rows reached, a strict bad
                        // line) makes the rest of the file unnecessary too.
                        if stop.load(Ordering::Relaxed) <= i {
                            stopped = true;
                            break;
                        }
                    }
                    let mut left_out = false;
                    if !tail.is_empty() && !stopped {
                        let now = || std::fs::metadata(path).ok().map(|m| m.len());
                        left_out = still_written(tail, data.len() as u64, now);
                        if !left_out {
                            outs.push(work.scan(tail, i, &stop, None));
                        }
                    }
                    Ok((outs, warning, left_out))
                })
                .collect()
        });
        for (i, (input, outs)) in files.iter().zip(outs).enumerate() {
            let (outs, warning, left_out) = outs.with_context(|| input.name.clone())?;
            if let Some(warning) = warning {
                self.progress.suspend(|| crate::warning!("{warning}"));
            }
            if left_out {
                self.progress.suspend(|| being_written(&input.name));
            }
            let mut line = 1;
            let flow = self.absorb(outs, None, first + i, &input.name, &mut line)?;
            self.done_before += input.len.unwrap_or(0);
            if flow == Flow::Done {
                return Ok(Flow::Done);
            }
        }
        self.progress.set(self.done_before);
        Ok(Flow::More)
    }

    /// What a pool task needs to evaluate a chunk.
    fn work(&self) -> Work<'r, S, F> {
        Work {
            rows: self.remaining,
            strict: self.opts.strict,
            filter: self.facts.filter,
            make: self.make,
            steps: self.steps,
            pool: self.pool,
            threads: self.opts.threads.max(1),
            chunk_size: self.opts.chunk_size,
            range: self.facts.time.range,
            inflate_whole: self.opts.inflate_whole,
            index: None,
        }
    }

    /// A run of compressed files, several decompressed at once: `threads` evaluator threads
    /// each take the next file, decompress it on its reader thread ([`Blocks`]) and evaluate
    /// its blocks on the pool, queueing the chunk outputs; the outputs are taken here in file
    /// order. A file ahead of the one being taken stops once it has queued [`AHEAD_OUTPUT`]
    /// bytes of output (a collecting query queues one running aggregate per file).
    fn compressed(&mut self, first: usize, files: &[Input]) -> anyhow::Result<Flow> {
        let work = self.work();
        let ahead = (self.opts.window / 4).max(1);
        let collect = self.facts.mode == Mode::Collect;
        let queues: Vec<Queue> = files.iter().map(|_| Queue::default()).collect();
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..work.threads.min(files.len()) {
                scope.spawn(|| {
                    loop {
                        let j = next.fetch_add(1, Ordering::Relaxed);
                        let (Some(input), Some(queue)) = (files.get(j), queues.get(j)) else {
                            return;
                        };
                        if queue.lock().cancelled {
                            return;
                        }
                        let end = work.file(input, ahead, collect, queue);
                        let mut q = queue.lock();
                        q.end = Some(end);
                        queue.changed.notify_all();
                    }
                });
            }
            let flow = self.take_queues(first, files, &queues);
            for queue in &queues {
                queue.lock().cancelled = true;
                queue.changed.notify_all();
            }
            flow
        })
    }

    /// The driver's side of [`Driver::compressed`]: every file's outputs, in order.
    fn take_queues(
        &mut self,
        first: usize,
        files: &[Input],
        queues: &[Queue],
    ) -> anyhow::Result<Flow> {
        for (j, (input, queue)) in files.iter().zip(queues).enumerate() {
            let mut line = 1;
            loop {
                let (outs, end) = {
                    let mut q = queue.lock();
                    while q.outs.is_empty() && q.end.is_none() {
                        q = queue.changed.wait(q).unwrap_or_else(|p| p.into_inner());
                    }
                    q.bytes = 0;
                    let outs: Vec<ChunkOut> = q.outs.drain(..).collect();
                    queue.changed.notify_all();
                    (
                        outs,
                        if outs_empty_end(&q) {
                            q.end.take()
                        } else {
                            None
                        },
                    )
                };
                let flow = self.absorb(outs, None, first + j, &input.name, &mut line)?;
                if flow == Flow::Done {
                    return Ok(Flow::Done);
                }
                if let Some(end) = end {
                    end.with_context(|| input.name.clone())?;
                    break;
                }
            }
            self.done_before += input.len.unwrap_or(0);
            self.progress.set(self.done_before);
            let w = &mut self.out;
            self.progress.suspend(|| w.flush())?;
        }
        Ok(Flow::More)
    }

    /// Take the outputs of a window's or a block's chunks, in order; `line` is the number of
    /// the first chunk's first line, advanced past the last.
    fn absorb(
        &mut self,
        outs: Vec<ChunkOut>,
        chunks: Option<&[&[u8]]>,
        index: usize,
        name: &str,
        line: &mut u64,
    ) -> anyhow::Result<Flow> {
        let strict = self.opts.strict;
        for (k, mut out) in outs.into_iter().enumerate() {
            let data = chunks.and_then(|c| c.get(k).copied());
            if self.facts.mode == Mode::Parts
                && let (Some(data), Some(left)) = (data, self.remaining)
                && left < out.rows
            {
                // `limit` ends inside this chunk, whose part (and count of bad lines)
                // covers lines past it: its first `left` rows are evaluated again, for a
                // part and counts of their own.
                let stop = AtomicUsize::new(usize::MAX);
                let limits = Limits {
                    rows: Some(left),
                    strict: false,
                    stop: &stop,
                    index: 0,
                };
                out = chunk::scan(
                    &mut (self.make)(),
                    data,
                    &limits,
                    None,
                    &TimeCheck::default(),
                );
            }
            if self.facts.mode != Mode::Parts
                && !strict
                && let Some(left) = self.remaining
                && left <= out.rows
            {
                // `limit` ends inside this chunk, which read on past the last row wanted (to
                // rows of its own, or to its end): counted as if it had stopped there, so
                // that the lines counted (and the bad ones named) do not depend on where the
                // chunks were cut.
                out.stop_after(left);
            }
            if let Some(z) = &mut self.zones {
                z.add(out.zones.take());
            }
            let stats = &mut self.drove.stats;
            stats.lines += out.lines;
            stats.skipped += out.skipped;
            stats.hits += out.hits;
            stats.bytes += out.bytes;
            let bad = out.first_bad.take().map(|(local, reason)| BadLine {
                position: Position {
                    input: index,
                    line: *line + local - 1,
                },
                name: name.to_string(),
                reason,
            });
            *line += out.line_count;
            if let Some(bad) = &bad {
                self.bad.record(out.malformed, bad.clone());
            }
            let flow = self.emit(out)?;
            if let Some(bad) = bad
                && strict
            {
                return Err(StrictError(bad).into());
            }
            if flow == Flow::Done {
                self.merge_pending();
                return Ok(Flow::Done);
            }
        }
        let many = self.many_pending();
        if !(self.overlap && many) {
            self.fold_pending(many);
        }
        Ok(Flow::More)
    }

    /// The input still to come per input byte taken so far (0 when the sizes are not known):
    /// how much a merged table of groups may yet grow. What was taken is what the chunks so
    /// far covered, over every input, which is also what the pending accumulators hold.
    fn ahead(&self) -> f64 {
        let done = self.drove.stats.bytes;
        match self.total {
            Some(total) if done > 0 => total.saturating_sub(done) as f64 / done as f64,
            _ => 0.0,
        }
    }

    /// Whether the block's accumulators weigh more than [`FEW_GROUPS`] in all.
    fn many_pending(&self) -> bool {
        self.pending.iter().map(Accumulator::weight).sum::<usize>() > FEW_GROUPS
    }

    /// Merge the block's accumulators into the run's, in chunk order: an aggregation's
    /// groups partition by partition on the pool (`Accumulator::merge_all`), while the
    /// workers would otherwise wait for the next block; up to [`FEW_GROUPS`], one after
    /// another on this thread.
    fn merge_pending(&mut self) {
        self.fold_pending(self.many_pending());
    }

    /// [`Driver::merge_pending`], `many` being [`Driver::many_pending`] (weighed already).
    fn fold_pending(&mut self, many: bool) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        let ahead = self.ahead();
        let total = self.drove.acc.get_or_insert_with(Accumulator::default);
        total.expect_more(ahead);
        if !many {
            // A few groups (a plain count, or a block of small files): folded here, in
            // order; handing them to the pool would cost more than the fold.
            for acc in pending {
                total.merge(acc);
            }
        } else {
            self.pool.install(|| total.merge_all(pending));
        }
    }

    /// Take one chunk's output, in order.
    fn emit(&mut self, mut out: ChunkOut) -> anyhow::Result<Flow> {
        let mut rows = out.rows;
        if let Some(left) = self.remaining {
            rows = rows.min(left);
            self.remaining = Some(left - rows);
        }
        // The first `skip` of this chunk's rows are `offset`'s (row ends are kept whenever
        // there is an offset: `remaining` is set).
        let skip = self.skip.min(rows);
        self.skip -= skip;
        match self.facts.mode {
            Mode::Lines | Mode::Stream => {
                let start = if skip > 0 {
                    out.row_ends[skip as usize - 1]
                } else {
                    0
                };
                let end = if rows == 0 {
                    0
                } else if rows < out.rows {
                    out.row_ends[rows as usize - 1]
                } else {
                    out.buf.len()
                };
                if end > start {
                    let buf = &out.buf[start..end];
                    let w = &mut self.out;
                    self.progress.suspend(|| w.write_all(buf))?;
                }
            }
            Mode::Table => {
                out.table.truncate(rows as usize);
                out.table.drain(..skip as usize);
                self.drove.table.append(&mut out.table);
            }
            Mode::Parts => {
                // A chunk that `limit` ends inside was cut to its rows already (`absorb`).
                if let Some(part) = out.part.take() {
                    S::fold(&mut self.drove.part, part);
                }
            }
            Mode::Collect => {
                // Merged with the rest of the block's, in `absorb`.
                self.pending.extend(out.acc.take());
            }
        }
        self.drove.stats.rows += rows - skip;
        Ok(if self.remaining == Some(0) && !self.opts.strict {
            Flow::Done
        } else {
            Flow::More
        })
    }
}

/// The file could not be mapped; read it as a stream instead.
struct Fallback;

/// What a pool task needs to evaluate one chunk (shared by the tasks of a block).
struct Work<'w, S, F> {
    rows: Option<u64>,
    strict: bool,
    filter: Option<&'w Prefilter>,
    make: &'w F,
    steps: &'w [Mutex<Option<S>>],
    pool: &'w rayon::ThreadPool,
    threads: usize,
    chunk_size: Option<usize>,
    /// Lines whose leading time is outside it are skipped.
    range: Option<&'w TimeRange>,
    /// [`RunOptions::inflate_whole`].
    inflate_whole: bool,
    /// Record zones: the block's offset in its file, the key, the block size, and where the
    /// zones kept from the cache end (chunks before it are not indexed again).
    index: Option<(u64, Vec<u8>, u64, u64)>,
}

/// Output bytes a compressed file evaluated ahead of its turn may queue before its
/// evaluator waits.
const AHEAD_OUTPUT: usize = 16 << 20;

/// One compressed file's chunk outputs, from its evaluator thread to the driver.
#[derive(Default)]
struct Queue {
    state: Mutex<Queued>,
    changed: std::sync::Condvar,
}

#[derive(Default)]
struct Queued {
    outs: std::collections::VecDeque<ChunkOut>,
    /// Output bytes in `outs`.
    bytes: usize,
    /// The file is done: read to its end, or stopped by an error (or early, when its rows
    /// or a strict bad line make the rest unnecessary).
    end: Option<io::Result<()>>,
    /// The driver needs no more.
    cancelled: bool,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queued> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Whether the driver has every output before the file's end.
fn outs_empty_end(q: &Queued) -> bool {
    q.outs.is_empty() && q.end.is_some()
}

/// `later`'s counts and aggregate added to `into` (a collecting query's outputs, which
/// carry no rows): as if the two chunks had been one.
fn fold(into: &mut ChunkOut, mut later: ChunkOut) {
    if into.first_bad.is_none()
        && let Some((line, why)) = later.first_bad.take()
    {
        into.first_bad = Some((into.line_count + line, why));
    }
    into.hits += later.hits;
    into.lines += later.lines;
    into.skipped += later.skipped;
    into.line_count += later.line_count;
    into.bytes += later.bytes;
    into.malformed += later.malformed;
    into.rows += later.rows;
    if let Some(acc) = later.acc.take() {
        match &mut into.acc {
            Some(total) => total.merge(acc),
            none => *none = Some(acc),
        }
    }
}

impl<S, F> Work<'_, S, F>
where
    S: LineStep + Send,
    F: Fn() -> S + Sync,
{
    /// Evaluate chunk `c`, number `index` of its block, with this thread's step; `base`: its
    /// offset in its file, when its zones are recorded.
    fn scan(&self, c: &[u8], index: usize, stop: &AtomicUsize, base: Option<u64>) -> ChunkOut {
        let limits = Limits {
            rows: self.rows,
            strict: self.strict,
            stop,
            index,
        };
        let thread = rayon::current_thread_index().unwrap_or(0);
        let mut slot = self.steps[thread % self.steps.len()]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let step = slot.get_or_insert_with(self.make);
        let time = TimeCheck {
            range: self.range,
            index: match (&self.index, base) {
                (Some((_, key, block, covered)), Some(base))
                    if base + c.len() as u64 > *covered =>
                {
                    Some(chunk::Index {
                        base,
                        key,
                        block: *block,
                    })
                }
                _ => None,
            },
        };
        let mut out = chunk::scan(step, c, &limits, self.filter, &time);
        if let Some(acc) = &mut out.acc {
            // Laid out for the merge while this thread's cache still holds it.
            acc.seal();
        }
        if time.index.is_none() && self.index.is_some() && base.is_some() {
            // Before the zones kept from the cache: nothing to add.
            out.zones = Some(Vec::new());
        }
        out
    }

    /// Evaluate one block on the pool, chunk by chunk.
    fn block<'d>(&self, data: &'d [u8]) -> (Vec<&'d [u8]>, Vec<ChunkOut>) {
        let target = self
            .chunk_size
            .unwrap_or_else(|| (data.len() / (self.threads * 8)).clamp(64 << 10, 1 << 20));
        let chunks = chunk::split(data, target);
        let stop = AtomicUsize::new(usize::MAX);
        let base = |c: &[u8]| {
            let (at, _, _, _) = self.index.as_ref()?;
            Some(at + (c.as_ptr() as usize - data.as_ptr() as usize) as u64)
        };
        let outs = self.pool.install(|| {
            chunks
                .par_iter()
                .enumerate()
                .map(|(i, c)| self.scan(c, i, &stop, base(c)))
                .collect()
        });
        (chunks, outs)
    }

    /// An evaluator thread's work on one compressed file: its blocks evaluated and queued.
    fn file(&self, input: &Input, ahead: usize, collect: bool, queue: &Queue) -> io::Result<()> {
        let mut blocks = Blocks::start(input, ahead, self.inflate_whole)?;
        let mut first = true;
        let mut rows = 0;
        while let Some(block) = blocks.next_block() {
            let block = block?;
            let data = if first { strip_bom(&block) } else { &block };
            first = false;
            let (_, outs) = self.block(data);
            blocks.recycle(block);
            let bad = outs.iter().any(|o| o.first_bad.is_some());
            rows += outs.iter().map(|o| o.rows).sum::<u64>();
            let mut q = queue.lock();
            for out in outs {
                q.bytes += out.buf.len() + out.table.len() * 64;
                match q.outs.back_mut() {
                    Some(last) if collect => fold(last, out),
                    _ => q.outs.push_back(out),
                }
            }
            queue.changed.notify_all();
            if (bad && self.strict) || (!self.strict && self.rows.is_some_and(|cap| rows >= cap)) {
                return Ok(());
            }
            while q.bytes > AHEAD_OUTPUT && !q.cancelled {
                q = queue.changed.wait(q).unwrap_or_else(|p| p.into_inner());
            }
            if q.cancelled {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// Files up to this size are read whole and evaluated one per task, batched with their
/// neighbours ([`Driver::small_files`]); larger ones are mapped in windows and split into
/// chunks.
const SMALL_FILE: u64 = 1 << 20;

/// At most this many bytes of small files are read at once.
const SMALL_BATCH: u64 = 16 << 20;

/// Map `len` bytes of `file` from `offset`, read-only, with the huge-page advice.
///
/// The advice (Linux, transparent huge pages set to `madvise` or `always`) is for the page
/// cache more than for this map: when a fault finds the file not cached, the kernel reads it
/// in 2 MiB pages, and a later run over the cached file maps those with one fault and one
/// entry each instead of 512 (measured on the 1 GiB file: about 16,000 page faults and 0.1 s
/// of system time per run before, about 2,600 and 0.01 s after). A file already cached in
/// small pages (as a logger writing a few lines at a time leaves it) stays so; where the
/// kernel ignores the advice nothing changes either, so its error is not one.
#[allow(unsafe_code)]
pub(crate) fn map_window(file: &File, offset: u64, len: usize) -> io::Result<Mmap> {
    // SAFETY: a memory map is only sound while nobody changes the file under it. We map
    // read-only, never write through the map, and drop it (and every slice of it) once its
    // window's chunks are done, inside this run (at most two windows are mapped at once).
    // What we cannot rule out is another process truncating or rewriting the file while we
    // read: then reads see the new bytes, or the process gets SIGBUS past a truncated end.
    // That is the accepted trade of every mmap-based search tool (ripgrep makes the same
    // one): the speed and flat memory for large log files are worth it, and log files are
    // appended to, not truncated, in normal use. A regular gzip file is mapped whole by
    // `crate::inflate` while its members are inflated (its reader thread drops the map at
    // the file's end); standard input, pipes and zstd files are never mapped.
    let map = unsafe { MmapOptions::new().offset(offset).len(len).map(file) }?;
    // That SIGBUS would end ndq with status 135 and no word said. So, before the first map
    // is read, a handler takes its place: it says what happened and exits with 1, as for a
    // cut seen between windows. A fault comes from a read of a mapped file (nothing else in
    // ndq maps memory that a fault can hit), and there is no way to go on reading: the
    // pages are gone.
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            use std::io::IsTerminal as _;
            const CUT: &str = "ndq: error: an input file was cut short while it was read \
                               (truncated in place, as by logrotate's copytruncate?); the \
                               results are incomplete\n";
            // After a progress bar's line, on a new one.
            let newline = io::stderr().is_terminal();
            let on_fault = move || {
                let stderr = rustix::stdio::stderr();
                if newline {
                    let _ = rustix::io::write(stderr, b"\n");
                }
                let _ = rustix::io::write(stderr, CUT.as_bytes());
                signal_hook::low_level::exit(1);
            };
            // SAFETY: `register` wants a handler that is async-signal-safe: this one makes
            // `write(2)`s of static bytes and calls `_exit(2)`, all allowed in a
            // signal handler; it allocates nothing and takes no lock, and it never returns
            // (returning would run the faulting read again). The handler runs on the thread
            // whose read faulted.
            let _ =
                unsafe { signal_hook::low_level::register(signal_hook::consts::SIGBUS, on_fault) };
        });
    }
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    Ok(map)
}

/// `data` without a UTF-8 byte-order mark at its start.
fn strip_bom(data: &[u8]) -> &[u8] {
    data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data)
}

#[cfg(test)]
mod tests;
