//! The literal prefilter over whole chunks: find the lines that may pass `where`
//! ([`ndq_query::Prefilter`]) without walking the others one by one.
//!
//! The query crate says what a line must contain and why that is right even when JSON spells
//! a character with an escape (a line may hold literal `L` when its raw bytes contain `L` or a
//! backslash whose escape decodes to a character of `L`). This module finds those facts over a
//! whole chunk with SIMD substring searches and jumps over the lines in between:
//!
//! ```text
//! raw  = the next occurrence of any raw literal at or after pos   (memmem for one literal,
//!                                                                  aho-corasick for several)
//! esc  = the next escape at or after pos that decodes to a character of some literal
//!        (memchr for a backslash, decode the escape there; the byte after it belongs to it)
//! hit  = min(raw, esc); none: every line from pos on is ruled out
//! line = the line around hit                                      (memrchr / memchr '\n')
//! the line is a candidate when the formula needs any literal (a single literal, an `or` of
//! literals), else when the formula holds on the line's bits (Prefilter::line_bits);
//! otherwise go on from the next line
//! ```
//! Both positions are remembered and searched again only once `pos` has passed them, so each
//! byte of the chunk is looked at about once per search. The lines jumped over are only
//! counted (newlines for `file:line` numbers, non-blank lines for the statistics).
//!
//! A candidate is a superset of the lines that match: every occurrence and every escape lies
//! inside one line (no raw literal holds a newline; the walk over backslashes,
//! [`ndq_query::escape_starts`] over the chunk, reaches each line's first byte as the per-line
//! walk starts there), and an escape is decoded from the bytes at its backslash exactly as
//! [`ndq_query::Prefilter::escape_bits`] does per line.

use aho_corasick::AhoCorasick;
use memchr::memmem;
use ndq_query::{Prefilter, escape_starts};

/// The prefilter of a run, built once and shared by the workers.
#[derive(Debug)]
pub struct LineFilter<'p> {
    pre: &'p Prefilter,
    raw: Raw,
}

/// How the raw literals are searched.
#[derive(Debug)]
enum Raw {
    /// No literal can be in raw bytes as itself (they all hold a quote, backslash or newline).
    None,
    /// One literal.
    One(Box<memmem::Finder<'static>>),
    /// Several: pattern `i` is `Prefilter::raw_literals()`' `i`-th.
    Many(AhoCorasick),
}

impl<'p> LineFilter<'p> {
    /// The searchers for `pre`; `None` when they cannot be built (then there is no
    /// prefilter).
    pub fn new(pre: &'p Prefilter) -> Option<LineFilter<'p>> {
        let raw: Vec<&str> = pre.raw_literals().map(|(_, l)| l).collect();
        let raw = match raw.as_slice() {
            [] => Raw::None,
            [one] => Raw::One(Box::new(memmem::Finder::new(one.as_bytes()).into_owned())),
            many => Raw::Many(AhoCorasick::new(many).ok()?),
        };
        Some(LineFilter { pre, raw })
    }

    /// A search over `data` (one chunk), from its start.
    pub fn search<'d>(&'d self, data: &'d [u8]) -> Search<'d> {
        Search {
            filter: self,
            data,
            raw_at: None,
            esc_at: None,
        }
    }
}

/// The candidate lines of one chunk, in order (positions asked for never go back).
pub struct Search<'d> {
    filter: &'d LineFilter<'d>,
    data: &'d [u8],
    /// The first raw literal occurrence at or after the last position asked for
    /// (`data.len()`: none); `None` before the first search.
    raw_at: Option<usize>,
    /// The same for the backslashes whose escape decodes to a character of some literal.
    esc_at: Option<usize>,
}

impl Search<'_> {
    /// The start of the first candidate line at or after `pos` (a line start, at least the
    /// last `pos` given), or `None` when no line from `pos` on may pass `where`.
    pub fn next_line(&mut self, mut pos: usize) -> Option<usize> {
        let data = self.data;
        loop {
            if pos >= data.len() {
                return None;
            }
            // A remembered position at or after `pos` is still the first one from `pos` on.
            let raw = match self.raw_at {
                Some(at) if at >= pos => at,
                _ => self.find_raw(pos),
            };
            let esc = match self.esc_at {
                Some(at) if at >= pos => at,
                _ => self.find_escape(pos),
            };
            (self.raw_at, self.esc_at) = (Some(raw), Some(esc));
            let hit = raw.min(esc);
            if hit >= data.len() {
                return None;
            }
            let start = memchr::memrchr(b'\n', &data[pos..hit]).map_or(pos, |i| pos + i + 1);
            let pre = self.filter.pre;
            if pre.any() {
                return Some(start);
            }
            let end = memchr::memchr(b'\n', &data[hit..]).map_or(data.len(), |i| hit + i);
            let mut line = &data[start..end];
            if let [head @ .., b'\r'] = line {
                line = head;
            }
            if pre.eval(pre.line_bits(line)) {
                return Some(start);
            }
            pos = end + 1;
        }
    }

    /// The start of the first raw literal occurrence at or after `from`.
    fn find_raw(&self, from: usize) -> usize {
        let (data, none) = (self.data, self.data.len());
        match &self.filter.raw {
            Raw::None => none,
            Raw::One(f) => f.find(&data[from..]).map_or(none, |i| from + i),
            Raw::Many(ac) => {
                let input = aho_corasick::Input::new(data).span(from..data.len());
                ac.find(input).map_or(none, |m| m.start())
            }
        }
    }

    /// The first escape at or after `from` (a line start, or just after an escape) that
    /// decodes to a character of some literal, found by [`ndq_query::escape_starts`]' walk.
    fn find_escape(&self, from: usize) -> usize {
        let data = self.data;
        let pre = self.filter.pre;
        escape_starts(&data[from..])
            .map(|at| from + at)
            .find(|&at| {
                pre.escape_may_matter(data.get(at + 1).copied())
                    && pre.escape_bits(&data[at..]) != 0
            })
            .unwrap_or(data.len())
    }
}

/// The lines of `region` (whole lines; the last may lack its newline): how many, and how
/// many of them are not blank.
pub fn count_lines(region: &[u8]) -> (u64, u64) {
    let (mut lines, mut filled) = (0u64, 0u64);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', region) {
        lines += 1;
        filled += u64::from(!super::chunk::is_blank(&region[start..end]));
        start = end + 1;
    }
    if start < region.len() {
        lines += 1;
        filled += u64::from(!super::chunk::is_blank(&region[start..]));
    }
    (lines, filled)
}

#[cfg(test)]
mod difftest;
#[cfg(test)]
mod tests;
