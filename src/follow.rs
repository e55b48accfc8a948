//! `--follow` (`-f`): read files as they grow, like `tail -F`, with the query evaluated on
//! every block of new complete lines by the driver's own chunk evaluation
//! ([`crate::driver::live`]).
//!
//! Each file is polled every [`POLL`] (a `stat` of the open file and one of its name: an idle
//! file costs no measurable CPU): what was appended since the last look is read, its complete
//! lines are evaluated, and a partial last line is held until its newline comes (or the stop,
//! which reads it as it stands, as a run without `--follow` would). When the
//! name points at another file (renamed away and created again, as logrotate does), the rest of
//! the old file is read, then the new one from its start; a file cut shorter (`copytruncate`)
//! is read again from its start; a file that does not exist yet, or no longer, is waited for.
//! Several files are polled in the order given, each one's new lines evaluated as a block, so
//! rows come out in each file's order, and between files in the order they were seen.
//!
//! A query whose rows need every line (aggregation, `order by`, `distinct`) keeps a running
//! accumulator: on a terminal its rows so far are redrawn in place every `--every`; otherwise
//! they are written once, when ndq is stopped. SIGINT, SIGTERM, SIGHUP and SIGQUIT only raise a flag
//! (the loop looks at it between blocks and at least every [`POLL`]), so a stop always
//! finishes the result, restores the cursor, and exits 0; so does SIGTSTP (Ctrl-Z) on a live
//! table, which shows the cursor before ndq stops itself.

use std::borrow::Cow;
use std::fs::{File, Metadata};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{FileExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use ndq_query::{Kind, Plan};

use crate::config::Config;
use crate::driver::live::{self, Feed};
use crate::driver::{Format, RunOptions};
use crate::exit::Failure;
use crate::input::Codec;
use crate::messages;

/// `--follow`'s settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Follow {
    /// `--every`: how often a live table is redrawn.
    pub every: Duration,
    /// stdout is a terminal (a collecting query is redrawn in place).
    pub terminal: bool,
    /// `-o` was given (an explicit `-o table` of plain rows is refused, not replaced).
    pub format_given: bool,
}

/// `--every`'s default.
pub const EVERY: Duration = Duration::from_secs(1);

/// How often an idle file is looked at.
pub const POLL: Duration = Duration::from_millis(200);

/// The most bytes read (and evaluated as one block) at a time.
const BLOCK: usize = 16 << 20;

/// A duration as `--every` takes it: as the query language writes one, a number and a unit
/// (`500ms`, `2s`, `1.5m`, `1h`); more than zero.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let ns = ndq_query::parse_duration(text).ok_or_else(|| {
        format!(
            "'{text}': expected a number and a unit (ms, s, m, h, d or w), e.g. 500ms, 2s, 1.5m"
        )
    })?;
    if ns <= 0 {
        return Err(format!("'{text}': must be more than zero"));
    }
    Ok(Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX)))
}

/// Follow `config.inputs` with `plan` until stopped.
pub fn run(config: &Config, follow: &Follow, plan: &Plan) -> Result<(), Failure> {
    let why = refusals(&config.inputs);
    if !why.is_empty() {
        return Err(Failure::Usage(why));
    }
    let format = match (plan.kind(), config.format) {
        (Kind::Rows, Format::Table) if follow.format_given => {
            return Err(Failure::usage(
                "--follow writes rows as their lines arrive, and a table needs every row \
                 before it can size its columns: use -o json, csv, tsv or raw (or an \
                 aggregation, which is redrawn as a table)",
            ));
        }
        // On a terminal the default is a table; rows that stream are written as JSON.
        (Kind::Rows, Format::Table) => Format::Json,
        (_, format) => format,
    };
    let stop = Arc::new(AtomicBool::new(false));
    // A hang-up (the terminal or session closed) finishes the result as a stop does.
    // Ctrl-\ (SIGQUIT) too: its default would leave a live table's cursor hidden.
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
        signal_hook::consts::SIGQUIT,
    ] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .context("setting up the signal handlers")?;
    }
    // Each followed file stays open: as many descriptors as the system allows (see
    // `Inputs::open`).
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let mut tails = Vec::new();
    for (index, path) in config.inputs.iter().enumerate() {
        tails.push(Tail::open(index, config.inputs.len(), path)?);
    }
    let opts = RunOptions {
        threads: config.threads,
        scanner: config.scanner,
        engine: config.engine,
        strict: config.strict,
        prefilter: config.prefilter,
        progress: false,
        color: config.color_stderr,
        color_stdout: config.color_stdout,
        chart: config.chart,
        ..RunOptions::default()
    };
    let start = Instant::now();
    let collects = live::collects(plan, format);
    let live_table = collects && follow.terminal;
    // Ctrl-Z on a live table: the cursor is shown before ndq stops, and the table drawn anew
    // (below what the shell wrote) when it goes on.
    let suspend = Arc::new(AtomicBool::new(false));
    if live_table {
        signal_hook::flag::register(signal_hook::consts::SIGTSTP, Arc::clone(&suspend))
            .context("setting up the signal handlers")?;
    }
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(256 << 10, crate::Output(stdout.lock()));
    let result = live::live(&opts, plan, format, &mut out, |feed| {
        let mut screen = Screen::new(live_table);
        let mut next_draw = Instant::now();
        loop {
            let (read, said, done) = poll_all(&mut tails, feed, &stop)?;
            if said {
                // A message on stderr went below the frame: the next one starts after it.
                screen.lines = 0;
            }
            feed.out().flush()?;
            if done {
                break;
            }
            if stop.load(Ordering::Relaxed) {
                // What was written before the stop counts, unless the stop came while a
                // file was being caught up with (Ctrl-C on a long first read).
                if !tails.iter().any(|t| t.cut_short) {
                    poll_all(&mut tails, feed, &AtomicBool::new(false))?;
                    // A last line whose newline has not come is read as it stands, as
                    // the same query without --follow reads it.
                    for tail in tails.iter_mut() {
                        if !tail.feed_pending(feed)? {
                            break;
                        }
                    }
                }
                break;
            }
            if suspend.swap(false, Ordering::Relaxed) {
                screen.suspend(feed.out())?;
                signal_hook::low_level::raise(signal_hook::consts::SIGSTOP)
                    .context("stopping on Ctrl-Z")?;
                next_draw = Instant::now();
            }
            if live_table && Instant::now() >= next_draw {
                if feed.changed() || screen.first {
                    let size = Screen::size();
                    let mut frame = Vec::new();
                    // A table fitted to the screen as a table on a terminal is (its long
                    // text cut, its numbers whole); whatever still does not fit is cut.
                    feed.rows_so_far(&mut frame, Some(size.1 - 1))?;
                    screen.draw(feed.out(), &frame, size)?;
                }
                next_draw = after(Instant::now(), follow.every);
            }
            if !read && !follow.terminal && reader_gone() {
                // `ndq -f ... | head -3`: the reader has what it wanted and is gone; stop
                // now rather than at the next line written (which may be hours away).
                break;
            }
            if !read {
                std::thread::sleep(if live_table {
                    POLL.min(next_draw.saturating_duration_since(Instant::now()))
                        .max(Duration::from_millis(10))
                } else {
                    POLL
                });
            }
        }
        if collects {
            let mut rows = Vec::new();
            // As the same query without --follow writes them.
            feed.rows_so_far(&mut rows, config.table_width)?;
            screen.finish(feed.out(), &rows)?;
        }
        feed.out().flush()?;
        Ok(())
    });
    let flushed = out.flush();
    drop(out);
    let ((), mut stats) = result?;
    flushed.map_err(anyhow::Error::from)?;
    stats.elapsed = start.elapsed();
    for tail in tails.iter().filter(|t| t.cut_short) {
        crate::warning!(
            "stopped while {} was being read, {} bytes in: the results cover the lines \
             before that",
            tail.name,
            tail.pos
        );
    }
    if let Some(first) = &stats.first_bad {
        crate::warning!("{}", messages::bad_lines_summary(stats.malformed, first));
    }
    if config.stats {
        messages::message(format_args!("{}", stats.line()));
    }
    Ok(())
}

/// Look at every file in turn: whether any was read, any message said, and whether the query
/// wants no more.
fn poll_all(
    tails: &mut [Tail],
    feed: &mut dyn Feed,
    stop: &AtomicBool,
) -> anyhow::Result<(bool, bool, bool)> {
    let (mut read, mut said) = (false, false);
    for tail in tails {
        let polled = tail.poll(feed, stop)?;
        read |= polled.read;
        said |= polled.said;
        if polled.done {
            return Ok((read, said, true));
        }
    }
    Ok((read, said, false))
}

/// Why `--follow` cannot follow these inputs (usage errors), if it cannot.
fn refusals(inputs: &[PathBuf]) -> Vec<String> {
    if inputs.is_empty() || inputs.iter().any(|p| p.as_os_str() == "-") {
        return vec![
            "--follow needs file names: standard input is already read as it comes \
             (e.g. `tail -F app.log | ndq QUERY`)"
                .to_string(),
        ];
    }
    let mut why = Vec::new();
    for path in inputs {
        let name = messages::path_name(path);
        if Codec::of(path) != Codec::Plain {
            why.push(format!(
                "--follow {name}: a compressed file cannot be followed (it is not \
                 appended to line by line); read it without --follow"
            ));
        } else if path.is_dir() {
            why.push(format!(
                "--follow {name}: is a directory; name the files to follow"
            ));
        } else if path.exists() && !path.is_file() {
            why.push(format!(
                "--follow {name}: not a regular file (a pipe or a device is read as it \
                 comes without --follow: drop --follow)"
            ));
        }
    }
    why
}

/// What one look at a file did.
#[derive(Debug, Default)]
struct Polled {
    /// New bytes were read (look again at once rather than sleeping).
    read: bool,
    /// A message was written on stderr.
    said: bool,
    /// The query wants no more input (`limit` reached).
    done: bool,
}

/// One followed file.
#[derive(Debug)]
struct Tail {
    path: PathBuf,
    name: String,
    /// The input index bad lines are ordered by: the file's place among the files given, in
    /// its first content; each new start (rotation, truncation) takes the next round of
    /// indexes, so the first bad line reported is the first one read, and its line number
    /// counts from the start of that content.
    index: usize,
    /// How many files are followed.
    files: usize,
    /// The open file and its identity (device, inode).
    file: Option<(File, (u64, u64))>,
    /// Bytes of the open file read so far.
    pos: u64,
    /// The start of a line whose newline has not come yet.
    pending: Vec<u8>,
    /// The number of the next line of the open file.
    line: u64,
    /// What the name last pointed at, when that was reported (each state is said once).
    said: Option<String>,
    /// A stop came between two blocks of one read, with more of the file left.
    cut_short: bool,
    /// The last bytes read (up to [`SEEN`], ending at `pos`), to tell a file rewritten
    /// between two looks (truncated, then written past where it was read to) from one
    /// appended to.
    seen: Vec<u8>,
}

/// Bytes kept in [`Tail::seen`].
const SEEN: u64 = 64;

fn identity(meta: &Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

impl Tail {
    /// Open `path` if it exists (it is waited for otherwise, said once).
    fn open(index: usize, files: usize, path: &Path) -> anyhow::Result<Tail> {
        // Control characters in the name (which could drive the terminal) shown as `?`.
        let name = messages::path_name(path);
        let mut tail = Tail {
            path: path.to_path_buf(),
            name,
            index,
            files,
            file: None,
            pos: 0,
            pending: Vec::new(),
            line: 1,
            said: None,
            cut_short: false,
            seen: Vec::new(),
        };
        match File::open(path) {
            Ok(file) => {
                let meta = file.metadata().with_context(|| tail.name.clone())?;
                tail.file = Some((file, identity(&meta)));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                tail.say("does not exist yet; waiting for it");
            }
            Err(e) => return Err(anyhow::Error::new(e).context(tail.name.clone())),
        }
        Ok(tail)
    }

    /// The open file is read from its start, as new content.
    fn restart(&mut self) {
        self.pos = 0;
        self.line = 1;
        self.index += self.files;
        self.seen.clear();
    }

    /// Whether the bytes before `pos` are still the ones read there (checked only when
    /// bytes were kept: a file rewritten before its first line is read looks appended to).
    fn unchanged(&self, file: &File) -> bool {
        let mut now = [0; SEEN as usize];
        let now = &mut now[..self.seen.len()];
        let at = self.pos - self.seen.len() as u64;
        self.seen.is_empty() || (file.read_exact_at(now, at).is_ok() && *now == *self.seen)
    }

    /// The last bytes of `file` before `pos` (up to [`SEEN`]), for [`Tail::seen`]; none when
    /// it was cut shorter since (the next look sees it).
    fn last_bytes(file: &File, pos: u64) -> Vec<u8> {
        let k = pos.min(SEEN);
        let mut bytes = vec![0; k as usize];
        match file.read_exact_at(&mut bytes, pos - k) {
            Ok(()) => bytes,
            Err(_) => Vec::new(),
        }
    }

    /// Say `what` about this file on stderr, unless it was the last thing said about it.
    fn say(&mut self, what: &str) -> bool {
        if self.said.as_deref() == Some(what) {
            return false;
        }
        messages::message(format_args!("{}: {what}", self.name));
        self.said = Some(what.to_string());
        true
    }

    /// Read what is new, and look whether the name now points at another file.
    fn poll(&mut self, feed: &mut dyn Feed, stop: &AtomicBool) -> anyhow::Result<Polled> {
        let mut polled = Polled::default();
        if self.file.is_some() {
            self.read_new(feed, stop, &mut polled)?;
            if polled.done {
                return Ok(polled);
            }
        }
        let current = self.file.as_ref().map(|(_, id)| *id);
        match std::fs::metadata(&self.path) {
            Ok(meta) if meta.is_file() => {
                if current == Some(identity(&meta)) {
                    self.said = None;
                    return Ok(polled);
                }
                // Another file by that name: what the old one held is read; a last line
                // without its newline is complete now.
                if !self.feed_pending(feed)? {
                    polled.done = true;
                    return Ok(polled);
                }
                let file = match File::open(&self.path) {
                    Ok(file) => file,
                    // Gone again between the two looks: the next poll sees it.
                    Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(polled),
                    // Not readable (yet: logrotate creates the new file, then sets its owner
                    // and mode): waited for as a missing one is; the old one is still read.
                    Err(e) => {
                        let e = crate::exit::without_os_codes(&e.to_string());
                        polled.said |= self.say(&format!("cannot be opened ({e}); trying again"));
                        return Ok(polled);
                    }
                };
                let meta = file.metadata().with_context(|| self.name.clone())?;
                let what = if current.is_some() {
                    "replaced by a new file; reading it from its start"
                } else {
                    "appeared; reading it"
                };
                polled.said |= self.say(what);
                self.said = None;
                self.file = Some((file, identity(&meta)));
                if current.is_some() {
                    self.restart();
                }
                polled.read = true;
            }
            Ok(meta) if meta.is_dir() => {
                polled.said |= self.say("is now a directory; waiting for a file by that name");
            }
            Ok(_) => {
                polled.said |= self.say("is now not a regular file; waiting for one");
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let what = if current.is_some() {
                    "renamed or removed; waiting for a file by that name"
                } else {
                    "does not exist yet; waiting for it"
                };
                polled.said |= self.say(what);
            }
            Err(e) => {
                let what = format!("cannot be looked at ({e}); trying again");
                polled.said |= self.say(&what);
            }
        }
        Ok(polled)
    }

    /// Read the open file from `pos` to its end, evaluating its complete lines.
    fn read_new(
        &mut self,
        feed: &mut dyn Feed,
        stop: &AtomicBool,
        polled: &mut Polled,
    ) -> anyhow::Result<()> {
        let Some((file, _)) = &self.file else {
            return Ok(());
        };
        let len = file.metadata().with_context(|| self.name.clone())?.len();
        // Cut shorter than what was read, or cut and written again past it between two
        // looks (what was read is no longer there).
        if len < self.pos || !self.unchanged(file) {
            polled.said |= self.say("truncated; reading it from its start");
            self.said = None;
            self.restart();
            self.pending.clear();
        }
        let before = self.pos;
        let mut buf = Vec::new();
        let mut blocks = 0;
        while self.pos < len {
            if stop.load(Ordering::Relaxed) {
                self.cut_short = blocks > 0;
                break;
            }
            blocks += 1;
            let want = (len - self.pos).min(BLOCK as u64) as usize;
            // The held start of a line moves into `buf` without a copy (a line written in
            // many pieces would otherwise be copied once per piece).
            buf.clear();
            std::mem::swap(&mut buf, &mut self.pending);
            let have = buf.len();
            buf.resize(have + want, 0);
            let Some((file, _)) = &self.file else {
                return Ok(());
            };
            let n = file
                .read_at(&mut buf[have..], self.pos)
                .with_context(|| self.name.clone())?;
            buf.truncate(have + n);
            if n == 0 {
                // Shorter than it said: the next poll sees its new length.
                self.pending = std::mem::take(&mut buf);
                break;
            }
            polled.read = true;
            let fresh = self.pos == 0;
            self.pos += n as u64;
            let Some(cut) = memchr::memrchr(b'\n', &buf[have..]).map(|i| have + i + 1) else {
                self.pending = std::mem::take(&mut buf);
                continue;
            };
            self.pending = buf.split_off(cut);
            let data = if fresh {
                buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&buf)
            } else {
                &buf
            };
            if !self.feed(feed, data)? {
                polled.done = true;
                return Ok(());
            }
        }
        if self.pos != before
            && let Some((file, _)) = &self.file
        {
            self.seen = Self::last_bytes(file, self.pos);
        }
        Ok(())
    }

    /// Evaluate complete lines; `false` when the query wants no more.
    fn feed(&mut self, feed: &mut dyn Feed, data: &[u8]) -> anyhow::Result<bool> {
        feed.block(data, self.index, &self.name, &mut self.line)
    }

    /// Evaluate the held start of a line as a whole line (its file was replaced, or ndq is
    /// stopping); `false` when the query wants no more.
    fn feed_pending(&mut self, feed: &mut dyn Feed) -> anyhow::Result<bool> {
        if self.pending.is_empty() {
            return Ok(true);
        }
        let mut last = std::mem::take(&mut self.pending);
        last.push(b'\n');
        self.feed(feed, &last)
    }
}

/// Whether standard output is a pipe whose reading end was closed (one `poll` that waits for
/// nothing: a closed pipe reports an error; a file, a terminal or an open pipe nothing).
fn reader_gone() -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let stdout = io::stdout();
    let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    matches!(poll(&mut fds, Some(&now)), Ok(n) if n > 0)
        && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
}

/// `every` after `now`; an interval too long to add to the clock (`--every
/// 99999999999999h`) is as good as never: some 136 years.
fn after(now: Instant, every: Duration) -> Instant {
    now.checked_add(every)
        .unwrap_or(now + Duration::from_secs(u64::from(u32::MAX)))
}

/// Shows the cursor again (a live table hides it while it draws).
const SHOW_CURSOR: &[u8] = b"\x1b[?25h";

/// The live table on a terminal: each frame replaces the one before, the cursor hidden while
/// frames are drawn and shown again however the run ends.
#[derive(Debug)]
struct Screen {
    live: bool,
    /// No frame drawn yet.
    first: bool,
    /// Lines of the frame on screen (the cursor is on the line below it).
    lines: usize,
    /// The cursor is hidden.
    hidden: bool,
}

impl Screen {
    fn new(live: bool) -> Screen {
        Screen {
            live,
            first: true,
            lines: 0,
            hidden: false,
        }
    }

    /// Bytes that take the cursor to the start of the frame on screen and clear it.
    fn erase(&self, buf: &mut Vec<u8>) {
        if self.lines > 0 {
            buf.extend_from_slice(format!("\r\x1b[{}A\x1b[J", self.lines).as_bytes());
        } else {
            buf.extend_from_slice(b"\r\x1b[J");
        }
    }

    /// The terminal's size now: (rows, columns), at least 3 by 10.
    fn size() -> (usize, usize) {
        let (rows, cols) = console::Term::stdout().size();
        (usize::from(rows).max(3), usize::from(cols).max(10))
    }

    /// Replace the frame with `text`, cut to the terminal's size `(rows, cols)` (each line to
    /// its width, the lines to its height, saying how many more there are), written in one
    /// piece.
    fn draw(
        &mut self,
        out: &mut dyn Write,
        text: &[u8],
        (rows, cols): (usize, usize),
    ) -> io::Result<()> {
        let text = String::from_utf8_lossy(text);
        let all: Vec<&str> = text.lines().collect();
        let room = rows - 1;
        let mut frame = Vec::new();
        if !self.hidden {
            frame.extend_from_slice(b"\x1b[?25l");
            self.hidden = true;
        }
        self.erase(&mut frame);
        let shown = if all.len() > room {
            room - 1
        } else {
            all.len()
        };
        for line in &all[..shown] {
            frame.extend_from_slice(fit(line, cols - 1).as_bytes());
            frame.push(b'\n');
        }
        let mut lines = shown;
        if shown < all.len() {
            let more = format!("... {} more lines", all.len() - shown);
            frame.extend_from_slice(fit(&more, cols - 1).as_bytes());
            frame.push(b'\n');
            lines += 1;
        }
        out.write_all(&frame)?;
        out.flush()?;
        self.lines = lines;
        self.first = false;
        Ok(())
    }

    /// Before ndq is suspended: the cursor shown, and the next frame drawn below whatever
    /// the shell writes meanwhile.
    fn suspend(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.hidden {
            out.write_all(SHOW_CURSOR)?;
            out.flush()?;
            self.hidden = false;
        }
        self.lines = 0;
        self.first = true;
        Ok(())
    }

    /// The final rows, whole, in place of the frame (or simply written, off a terminal), and
    /// the cursor shown again.
    fn finish(&mut self, out: &mut dyn Write, rows: &[u8]) -> io::Result<()> {
        let mut buf = Vec::new();
        if self.live {
            self.erase(&mut buf);
        }
        buf.extend_from_slice(rows);
        if self.hidden {
            buf.extend_from_slice(SHOW_CURSOR);
            self.hidden = false;
        }
        self.lines = 0;
        out.write_all(&buf)?;
        out.flush()
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        if self.hidden {
            // An error ended the run between frames: show the cursor again.
            let mut stdout = io::stdout();
            let _ = stdout.write_all(SHOW_CURSOR);
            let _ = stdout.flush();
        }
    }
}

/// `line` cut to `cols` terminal columns, a cut line ending in `…`. Colour sequences
/// (`ESC [ ... m`, from a coloured table or chart) take no room and are all kept, even past
/// the cut: a sequence is never cut in two, and a colour turned on before the cut is still
/// turned off.
fn fit(line: &str, cols: usize) -> Cow<'_, str> {
    use unicode_segmentation::UnicodeSegmentation as _;
    use unicode_width::UnicodeWidthStr as _;
    // The line as control sequences (no width) and runs of text between them.
    let mut pieces = Vec::new();
    let mut rest = line;
    while !rest.is_empty() {
        if let Some(sequence) = csi(rest) {
            pieces.push((true, sequence));
            rest = &rest[sequence.len()..];
            continue;
        }
        // Up to the next escape that starts a sequence (a lone escape is text).
        let mut end = rest.len();
        for (i, _) in rest.match_indices('\x1b').filter(|&(i, _)| i > 0) {
            if csi(&rest[i..]).is_some() {
                end = i;
                break;
            }
        }
        pieces.push((false, &rest[..end]));
        rest = &rest[end..];
    }
    let total: usize = pieces.iter().filter(|p| !p.0).map(|p| p.1.width()).sum();
    if total <= cols {
        return Cow::Borrowed(line);
    }
    // Room for the text before the `…`; the text is cut between grapheme clusters (a flag or
    // an accented letter whole or left out), as a table's cells are.
    let room = cols.saturating_sub(1);
    let mut width = 0;
    let mut kept = String::new();
    let mut cut = false;
    for (sequence, text) in pieces {
        if sequence {
            // Kept even after the cut: a colour started before it is ended.
            kept.push_str(text);
            continue;
        }
        for g in text.graphemes(true) {
            width += g.width();
            if !cut && width > room {
                cut = true;
                if cols > 0 {
                    kept.push('…');
                }
            }
            if !cut {
                kept.push_str(g);
            }
        }
    }
    Cow::Owned(kept)
}

/// The control sequence (`ESC [`, parameters, a final byte from `@` to `~`) `text` starts
/// with, if it starts with a whole one.
fn csi(text: &str) -> Option<&str> {
    let body = text.strip_prefix("\x1b[")?;
    let end = body.find(|c: char| ('@'..='~').contains(&c))?;
    Some(&text[..2 + end + 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_a_unit() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1d"), Ok(Duration::from_secs(86_400)));
        for bad in ["", "1", "s", "1y", "1H", "-1s", " 1s", "1 s", "1m30s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert!(parse_duration("0s").unwrap_err().contains("more than zero"));
    }

    #[test]
    fn the_longest_interval_is_added_to_the_clock_without_overflow() {
        let now = Instant::now();
        let longest = parse_duration("100000w").unwrap();
        assert!(after(now, longest) > now + Duration::from_secs(100 * 365 * 86_400));
        // `--every` is at most u64::MAX nanoseconds, which the clock takes; past what it
        // takes, the interval is as good as never.
        assert!(now.checked_add(Duration::MAX).is_none());
        assert!(after(now, Duration::MAX) > now + Duration::from_secs(100 * 365 * 86_400));
        assert_eq!(after(now, EVERY), now + EVERY);
    }

    #[test]
    fn lines_are_cut_to_the_terminal_width_with_a_mark() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abcd", 4), "abcd");
        assert_eq!(fit("abc", 4), "abc");
        assert_eq!(fit("中文字", 5), "中文…");
        assert_eq!(fit("中文字", 4), "中…");
        assert_eq!(fit("abc", 0), "");
        // Grapheme clusters are kept whole or left out: a flag is two characters, an accented
        // letter here a letter and a combining mark.
        assert_eq!(fit("ab🇫🇷cd", 4), "ab…");
        assert_eq!(fit("ab🇫🇷cd", 5), "ab🇫🇷…");
        assert_eq!(fit("xe\u{301}e\u{301}yz", 3), "xe\u{301}…");
    }

    #[test]
    fn colour_takes_no_room_in_a_live_chart_line() {
        // The longest bar of a coloured chart fills the width with its value: all of it fits.
        let line = "big \x1b[36m██████\x1b[0m 1234";
        assert_eq!(fit(line, 15), line);
        // Cut inside a coloured run: the colour is still turned off, no sequence is cut.
        assert_eq!(fit(line, 7), "big \x1b[36m██…\x1b[0m");
        assert_eq!(fit("\x1b[2m│\x1b[0m", 0), "\x1b[2m\x1b[0m");
    }

    #[test]
    fn follow_settings_come_from_the_flags_and_stdout() {
        use clap::Parser as _;
        let config = |args: &[&str], tty: bool| {
            let args = crate::cli::Args::try_parse_from(args).unwrap();
            let env = crate::config::Env {
                stdout_tty: tty,
                cores: 2,
                ..Default::default()
            };
            Config::new(args, &env).unwrap().follow
        };
        assert_eq!(config(&["ndq", "q", "a"], true), None);
        assert_eq!(
            config(&["ndq", "-f", "q", "a"], true),
            Some(Follow {
                every: EVERY,
                terminal: true,
                format_given: false
            })
        );
        assert_eq!(
            config(
                &["ndq", "--follow", "--every", "500ms", "-o", "csv", "q", "a"],
                false
            ),
            Some(Follow {
                every: Duration::from_millis(500),
                terminal: false,
                format_given: true
            })
        );
    }

    #[test]
    fn follow_refuses_what_is_not_a_growing_file() {
        assert!(refusals(&[])[0].contains("standard input"));
        assert!(refusals(&["-".into()])[0].contains("standard input"));
        assert!(refusals(&["a.ndjson.gz".into()])[0].contains("compressed"));
        assert!(refusals(&["a.zst".into()])[0].contains("compressed"));
        let dir = tempfile::tempdir().unwrap();
        assert!(refusals(&[dir.path().into()])[0].contains("directory"));
        assert!(refusals(&[dir.path().join("later.ndjson")]).is_empty());
    }
}
