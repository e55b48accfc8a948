//! Chunks: line-aligned slices of a block, each evaluated on one rayon worker.
//!
//! [`split`] cuts a block into slices of about `target` bytes, each ending just after a `\n`
//! (the last may end at the end of the data). [`scan`] is the per-chunk line loop, the one
//! place that walks lines: it cuts at `\n`, drops a `\r` before it, skips blank lines, counts
//! every line (for `file:line` numbers), and hands each other line to a [`LineStep`], which
//! evaluates the query and appends its output to the chunk's [`ChunkOut`]. With a prefilter
//! ([`super::prefilter`]), the loop jumps from candidate line to candidate line: the lines in
//! between provably cannot pass `where`, so they are only counted (`line_count` for `file:line`
//! numbers, `skipped` for the statistics), never handed to the step, and never validated. A
//! chunk where the prefilter rules out too few lines scans its rest without it
//! ([`PREFILTER_CHECK`]).
//!
//! With a time range ([`TimeCheck`]), each line's leading time is read first
//! ([`ndq_query::TimeReader`]: its first member, when that is the time property), and a line
//! whose leading time is outside the range is counted as `skipped` and never handed to the
//! step: `where` cannot be true of it. Where the driver asks for zones ([`super::zones`]), the
//! same reading of each line feeds the zone of the block the line starts in; a line the step
//! finds malformed makes its zone unknown.

use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};

use ndq_query::{Accumulator, Prefilter, TimeRange, TimeReader, Value};

use super::zones::{self, Zone};
use crate::messages::Rejection;

/// Cut `data` into slices of about `target` bytes ending at line boundaries. Concatenated,
/// they are `data`; none is empty.
pub fn split(data: &[u8], target: usize) -> Vec<&[u8]> {
    let target = target.max(1);
    let mut chunks = Vec::with_capacity(data.len() / target + 1);
    let mut start = 0;
    while start < data.len() {
        let want = start + target;
        if want >= data.len() {
            chunks.push(&data[start..]);
            break;
        }
        // The chunk ends after the first '\n' at or after byte `want - 1`.
        match memchr::memchr(b'\n', &data[want - 1..]) {
            Some(i) => {
                let end = want + i;
                chunks.push(&data[start..end]);
                start = end;
            }
            None => {
                chunks.push(&data[start..]);
                break;
            }
        }
    }
    chunks
}

/// What one chunk produced.
#[derive(Debug, Default)]
pub struct ChunkOut {
    /// Formatted output (matching lines, or rows in a streaming format).
    pub buf: Vec<u8>,
    /// When rows are limited: the end offset in `buf` of each row.
    pub row_ends: Vec<usize>,
    /// When rows are limited: the counts as they stood just after each row's line, so that a
    /// chunk that went on past the rows the run still wanted can be counted as if it had
    /// stopped there ([`ChunkOut::stop_after`]).
    pub row_marks: Vec<Mark>,
    /// Rows for `-o table`, kept as values until every row is known.
    pub table: Vec<Vec<Value<'static>>>,
    /// The partial aggregate, for a collecting query.
    pub acc: Option<Accumulator>,
    /// Rows produced (lines written, rows formatted or kept).
    pub rows: u64,
    /// Lines that passed `where`.
    pub hits: u64,
    /// Non-blank lines handed to the step.
    pub lines: u64,
    /// Non-blank lines the prefilter or the time range ruled out (not handed to the step).
    pub skipped: u64,
    /// Every line of the chunk, blank ones too (complete unless the chunk stopped early).
    pub line_count: u64,
    /// Bytes of the chunk looked at (all of it unless it stopped early).
    pub bytes: u64,
    /// Lines that are not JSON objects.
    pub malformed: u64,
    /// The first of them: its 1-based line number within the chunk, and why.
    pub first_bad: Option<(u64, Rejection)>,
    /// A step's own partial result ([`super::Mode::Parts`]), folded in chunk order by
    /// [`LineStep::fold`].
    pub part: Option<Box<dyn Any + Send>>,
    /// The zones of the chunk's lines, when asked for ([`TimeCheck::index`]) and the chunk
    /// was read to its end.
    pub zones: Option<Vec<Zone>>,
}

/// A chunk's counts at one point of its lines ([`ChunkOut::row_marks`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mark {
    hits: u64,
    lines: u64,
    skipped: u64,
    line_count: u64,
    bytes: u64,
    malformed: u64,
}

impl ChunkOut {
    /// The counts so far.
    fn mark(&self, bytes: u64) -> Mark {
        Mark {
            hits: self.hits,
            lines: self.lines,
            skipped: self.skipped,
            line_count: self.line_count,
            bytes,
            malformed: self.malformed,
        }
    }

    /// This output cut to its first `rows` rows (fewer than it has; row ends kept): its counts
    /// and first bad line as if the chunk had stopped after the line of its last row kept, as
    /// it would have had the run wanted only that many. (The lines after it were read, but
    /// no run that stops there reads them: a bad one among them is not the run's.)
    pub fn stop_after(&mut self, rows: u64) {
        let Some(mark) = rows
            .checked_sub(1)
            .and_then(|r| self.row_marks.get(r as usize))
            .copied()
        else {
            return;
        };
        self.hits = mark.hits;
        self.lines = mark.lines;
        self.skipped = mark.skipped;
        self.line_count = mark.line_count;
        self.bytes = mark.bytes;
        self.malformed = mark.malformed;
        if self
            .first_bad
            .as_ref()
            .is_some_and(|(line, _)| *line > mark.line_count)
        {
            self.first_bad = None;
        }
        if let Some(&end) = self.row_ends.get(rows as usize - 1) {
            self.buf.truncate(end);
        }
        self.table.truncate(rows as usize);
        self.row_ends.truncate(rows as usize);
        self.row_marks.truncate(rows as usize);
        self.rows = rows;
        self.zones = None;
    }
}

/// What a chunk does with its lines' leading times ([`ndq_query::leading_time`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeCheck<'a> {
    /// Rule out a line whose leading time is outside the query's range, unread (only where
    /// lines may be skipped unvalidated, as with the prefilter).
    pub range: Option<&'a TimeRange>,
    /// Record the zones of the chunk's lines ([`super::zones`]).
    pub index: Option<Index<'a>>,
}

/// Where a chunk lies in its file, for its zones.
#[derive(Clone, Copy, Debug)]
pub struct Index<'a> {
    /// The chunk's offset in its file.
    pub base: u64,
    /// The time property's key.
    pub key: &'a [u8],
    /// Bytes per block.
    pub block: u64,
}

/// The query's work on one non-blank line.
pub trait LineStep {
    /// A fresh output for a chunk (with an empty accumulator when the query collects).
    fn begin(&self) -> ChunkOut {
        ChunkOut::default()
    }
    /// Evaluate `line` (no line terminator): on a match, count a hit and append the output to
    /// `out` (counting `rows`). `Err(why)` when the line is not a JSON object.
    fn step(&mut self, line: &[u8], out: &mut ChunkOut) -> Result<(), Rejection>;
    /// Fold one chunk's [`ChunkOut::part`] into the run's `total`, in chunk order (for
    /// [`super::Mode::Parts`]; other steps make no parts).
    fn fold(total: &mut Option<Box<dyn Any + Send>>, part: Box<dyn Any + Send>)
    where
        Self: Sized,
    {
        total.get_or_insert(part);
    }
}

/// When a chunk stops before its end.
#[derive(Debug)]
pub struct Limits<'a> {
    /// The rows wanted (`limit` without `order by`): the chunk keeps its row ends, and stops
    /// once it has produced this many, unless `strict`.
    pub rows: Option<u64>,
    /// Stop at the first bad line (`--strict`), and only there: every line is validated, so
    /// reaching `rows` does not stop the chunk (the rows past it are cut from the output).
    pub strict: bool,
    /// The lowest index of a chunk that has stopped for good (`usize::MAX`: none); chunks
    /// after it are not needed and give up.
    pub stop: &'a AtomicUsize,
    /// This chunk's index in its block.
    pub index: usize,
}

/// How often (in lines) a chunk looks whether an earlier chunk made it unnecessary.
const STOP_CHECK: u64 = 64;

/// How often (in lines handed to the step) a chunk looks whether its prefilter pays: when it
/// has ruled out fewer than one line in nine, the searches only add work to every line, so the
/// rest of the chunk is scanned without them (the result is the same either way).
const PREFILTER_CHECK: u64 = 256;

/// Run `step` over every line of `data` (with `filter`: over every line it does not rule
/// out; with `time.range`, over every line whose leading time it does not rule out).
pub fn scan<S: LineStep>(
    step: &mut S,
    data: &[u8],
    limits: &Limits<'_>,
    filter: Option<&Prefilter>,
    time: &TimeCheck<'_>,
) -> ChunkOut {
    let mut out = step.begin();
    if (limits.rows == Some(0) && !limits.strict)
        || limits.stop.load(Ordering::Relaxed) < limits.index
    {
        return out;
    }
    // Zones are built from every line: the candidate search, which jumps over lines, is off.
    let mut zones = time.index.map(|ix| zones::Builder::new(ix.base, ix.block));
    // The candidate lines, in order; the search goes on from just after the last one, which
    // is where `rest` starts whenever the search is on.
    let mut search = filter
        .filter(|_| zones.is_none())
        .map(|f| f.candidates(data));
    let mut rest = data;
    // The key of the leading times: a range's key is also the zones' key (`Plan::time_key`),
    // so each line's leading time is read once for both.
    let key = time
        .range
        .map(|r| r.key().as_bytes())
        .or(time.index.map(|ix| ix.key));
    debug_assert!(time.index.is_none_or(|ix| Some(ix.key) == key));
    let mut reader = key.map(TimeReader::new);
    while !rest.is_empty() {
        if search.is_some()
            && out.lines > 0
            && out.lines.is_multiple_of(PREFILTER_CHECK)
            && out.skipped * 8 < out.lines
        {
            search = None;
        }
        let (mut line, next) = match &mut search {
            Some(search) => {
                let at = data.len() - rest.len();
                let found = search.next();
                let start = found.as_ref().map_or(data.len(), |l| l.start);
                if start > at {
                    let (lines, filled) = count_lines(&data[at..start]);
                    out.line_count += lines;
                    out.skipped += filled;
                }
                let Some(l) = found else {
                    rest = &data[data.len()..];
                    break;
                };
                (
                    &data[l.start..l.end],
                    data.get(l.end + 1..).unwrap_or_default(),
                )
            }
            None => match memchr::memchr(b'\n', rest) {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, &rest[rest.len()..]),
            },
        };
        rest = next;
        out.line_count += 1;
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        let blank = is_blank(line);
        let stamp = match &mut reader {
            Some(r) if !blank => r.read(line),
            _ => None,
        };
        if let Some(z) = &mut zones {
            let at = line.as_ptr() as usize - data.as_ptr() as usize;
            z.line(at, blank, stamp);
        }
        if blank {
            continue;
        }
        if let (Some(range), Some(t)) = (time.range, &stamp)
            && range.rules_out(t)
        {
            out.skipped += 1;
            continue;
        }
        out.lines += 1;
        let rows_before = out.rows;
        if let Err(reason) = step.step(line, &mut out) {
            if let Some(z) = &mut zones {
                z.bad();
            }
            out.malformed += 1;
            if out.first_bad.is_none() {
                out.first_bad = Some((out.line_count, reason));
            }
            if limits.strict {
                limits.stop.fetch_min(limits.index, Ordering::Relaxed);
                break;
            }
        }
        if let Some(cap) = limits.rows {
            if out.rows > rows_before {
                out.row_ends.push(out.buf.len());
                let mark = out.mark((data.len() - rest.len()) as u64);
                out.row_marks.push(mark);
            }
            if out.rows >= cap && !limits.strict {
                limits.stop.fetch_min(limits.index, Ordering::Relaxed);
                break;
            }
        }
        if out.lines.is_multiple_of(STOP_CHECK)
            && limits.stop.load(Ordering::Relaxed) < limits.index
        {
            break;
        }
    }
    out.bytes = (data.len() - rest.len()) as u64;
    if let Some(z) = zones
        && rest.is_empty()
    {
        out.zones = Some(z.finish(data.len()));
    }
    out
}

/// The lines of `region` (whole lines; the last may lack its newline): how many, and how
/// many of them are not blank.
pub(super) fn count_lines(region: &[u8]) -> (u64, u64) {
    let (mut lines, mut filled) = (0u64, 0u64);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', region) {
        lines += 1;
        filled += u64::from(!is_blank(&region[start..end]));
        start = end + 1;
    }
    if start < region.len() {
        lines += 1;
        filled += u64::from(!is_blank(&region[start..]));
    }
    (lines, filled)
}

/// Blank: empty or only spaces and tabs (a `\r` before the `\n` is already gone).
pub(super) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| matches!(b, b' ' | b'\t' | b'\r'))
}

#[cfg(test)]
pub mod tests {
    use super::*;

    #[test]
    fn count_lines_counts_blank_ones_apart() {
        assert_eq!(count_lines(b""), (0, 0));
        assert_eq!(count_lines(b"{}\n"), (1, 1));
        assert_eq!(count_lines(b"{}"), (1, 1));
        assert_eq!(count_lines(b"\n\n"), (2, 0));
        assert_eq!(count_lines(b"{}\r\n \t\r\n\n{}\n{}"), (5, 3));
        assert_eq!(count_lines(b" x \n  "), (2, 1));
    }

    /// A fake query for the loop's tests: a line is bad unless it starts with `{`; it matches
    /// when it contains `hit`; the output is the line.
    #[derive(Debug, Default)]
    pub struct Fake;

    impl LineStep for Fake {
        fn step(&mut self, line: &[u8], out: &mut ChunkOut) -> Result<(), Rejection> {
            if !line.starts_with(b"{") {
                return Err(Rejection::Serde(format!(
                    "bad {}",
                    String::from_utf8_lossy(line)
                )));
            }
            if line.windows(3).any(|w| w == b"hit") {
                out.hits += 1;
                out.rows += 1;
                out.buf.extend_from_slice(line);
                out.buf.push(b'\n');
            }
            Ok(())
        }
    }

    fn scan_all(step: &mut Fake, data: &[u8], limits: &Limits<'_>) -> ChunkOut {
        scan(step, data, limits, None, &TimeCheck::default())
    }

    fn limits(stop: &AtomicUsize) -> Limits<'_> {
        Limits {
            rows: None,
            strict: false,
            stop,
            index: 0,
        }
    }

    #[test]
    fn prefilter_skips_lines_and_gives_up_where_it_rules_out_too_little() {
        let plan = ndq_query::Plan::compile("where contains(x, 'hit')").unwrap();
        let filter = plan.prefilter().unwrap();
        let stop = AtomicUsize::new(usize::MAX);
        let lines = |n: usize, text: &str| text.repeat(n).into_bytes();
        let run = |data: &[u8]| {
            scan(
                &mut Fake,
                data,
                &limits(&stop),
                Some(filter),
                &TimeCheck::default(),
            )
        };

        // Half the lines ruled out: the prefilter stays on to the end.
        let mixed = lines(300, "{hit}\n{no}\n");
        let out = run(&mixed);
        assert_eq!((out.lines, out.skipped, out.hits), (300, 300, 300));
        assert_eq!(out.line_count, 600);
        assert_eq!(out.buf, lines(300, "{hit}\n"));

        // Nothing ruled out in the first 256 lines: the rest is scanned without it.
        let dense = [lines(300, "{hit}\n"), lines(100, "{no}\n\n")].concat();
        let out = run(&dense);
        assert_eq!((out.lines, out.skipped, out.hits), (400, 0, 300));
        assert_eq!(out.line_count, 500);

        // Lines ruled out are not validated; line numbers still count them.
        let bad = b"{no}\nbad\n\n{hit}\nworse hit\n";
        let out = run(bad);
        assert_eq!((out.lines, out.skipped, out.malformed), (2, 2, 1));
        assert_eq!(out.line_count, 5);
        assert_eq!(
            out.first_bad,
            Some((5, Rejection::Serde("bad worse hit".to_string())))
        );
        assert_eq!(out.buf, b"{hit}\n");
    }

    #[test]
    fn split_at_line_boundaries_for_every_target() {
        let data = b"{a}\n{bb hit}\n\n{ccc}\r\n{d}";
        for target in 0..data.len() + 2 {
            let chunks = split(data, target);
            assert_eq!(chunks.concat(), data, "target {target}");
            assert!(chunks.iter().all(|c| !c.is_empty()));
            for c in &chunks[..chunks.len() - 1] {
                assert!(c.ends_with(b"\n"), "target {target}: {c:?}");
            }
        }
        assert!(split(b"", 4).is_empty());
        assert_eq!(split(b"a\nb\n", 1), [&b"a\n"[..], b"b\n"]);
    }

    #[test]
    fn lines_crlf_blank_and_last_line_without_newline() {
        let stop = AtomicUsize::new(usize::MAX);
        let data = b"{x hit}\r\n\n  \n{y}\n\r\n{z hit}";
        let out = scan_all(&mut Fake, data, &limits(&stop));
        assert_eq!(out.buf, b"{x hit}\n{z hit}\n");
        assert_eq!(
            (out.lines, out.line_count, out.hits, out.rows),
            (3, 6, 2, 2)
        );
        assert_eq!(out.malformed, 0);
    }

    #[test]
    fn bad_lines_counted_with_first_line_number() {
        let stop = AtomicUsize::new(usize::MAX);
        let data = b"{a}\n\nnope\n{hit}\n[1]\n";
        let out = scan_all(&mut Fake, data, &limits(&stop));
        assert_eq!(out.malformed, 2);
        assert_eq!(
            out.first_bad,
            Some((3, Rejection::Serde("bad nope".to_string())))
        );
        assert_eq!(out.buf, b"{hit}\n");
        assert_eq!(stop.load(Ordering::Relaxed), usize::MAX);

        let strict = Limits {
            strict: true,
            index: 4,
            ..limits(&stop)
        };
        let out = scan_all(&mut Fake, data, &strict);
        assert_eq!(out.malformed, 1);
        assert_eq!(out.lines, 2, "stops at the bad line");
        assert_eq!(stop.load(Ordering::Relaxed), 4);
    }

    #[test]
    fn row_cap_stops_and_records_row_ends() {
        let stop = AtomicUsize::new(usize::MAX);
        let data = b"{hit 1}\n{no}\n{hit 2}\n{hit 3}\n";
        let capped = Limits {
            rows: Some(2),
            index: 1,
            ..limits(&stop)
        };
        let out = scan_all(&mut Fake, data, &capped);
        assert_eq!(out.buf, b"{hit 1}\n{hit 2}\n");
        assert_eq!(out.row_ends, [8, 16]);
        assert_eq!(out.lines, 3);
        assert_eq!(out.bytes, 21, "up to the end of the second hit");
        assert_eq!(stop.load(Ordering::Relaxed), 1);

        // A later chunk gives up at once; an earlier one does not.
        let later = Limits {
            index: 2,
            ..limits(&stop)
        };
        assert_eq!(scan_all(&mut Fake, data, &later).lines, 0);
        let earlier = Limits {
            index: 0,
            ..limits(&stop)
        };
        assert_eq!(scan_all(&mut Fake, data, &earlier).lines, 4);
        let zero = Limits {
            rows: Some(0),
            ..limits(&stop)
        };
        assert_eq!(scan_all(&mut Fake, data, &zero).lines, 0);
    }
}
