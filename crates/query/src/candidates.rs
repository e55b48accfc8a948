//! The prefilter over whole chunks: [`Prefilter::candidates`] finds the lines of a chunk that
//! may pass `where` without walking the others one by one. It keeps exactly the lines the
//! per-line reference ([`Prefilter::may_match`]) keeps, and is the one way the CLI uses a
//! prefilter: it hands a chunk in and gets candidate line ranges back.
//!
//! `prefilter.rs` says what a line must contain and why that is right even when JSON spells a
//! character with an escape (a line may hold literal `L` when its raw bytes contain `L` or a
//! backslash whose escape decodes to a character of `L`). This file finds those facts over a
//! whole chunk with SIMD substring searches and jumps over the lines in between:
//!
//! ```text
//! raw  = the next occurrence of any raw pattern at or after pos that sets its atom's bit
//!        (memmem for one pattern, aho-corasick for several; Prefilter::raw_hit)
//! esc  = the next escape at or after pos that decodes to a character of some literal
//!        (memchr for a backslash, decode the escape there; the byte after it belongs to it)
//! hit  = min(raw, esc); none: every line from pos on is ruled out
//! line = the line around hit                                      (memrchr / memchr '\n')
//! the line is a candidate when the formula needs any literal (a single literal, an `or` of
//! literals), else when the formula holds on the line's bits (Prefilter::line_bits);
//! otherwise go on from the next line
//! ```
//! Both positions are remembered and searched again only once `pos` has passed them, so each
//! byte of the chunk is looked at about once per search.
//!
//! A candidate is a superset of the lines that match: every occurrence and every escape lies
//! inside one line (no raw literal holds a newline; the walk over backslashes,
//! [`escape_starts`] over the chunk, reaches each line's first byte as the per-line walk
//! starts there), and an escape is decoded from the bytes at its backslash exactly as
//! [`Prefilter::escape_bits`] does per line.

use std::ops::Range;

use crate::prefilter::{Prefilter, Raw, escape_starts};

impl Prefilter {
    /// The lines of `chunk` (whole lines; the last may lack its newline) that may pass
    /// `where`, in order: each as the range of its bytes up to, not including, its newline (a
    /// `\r` before the newline is kept). Exactly the lines [`Prefilter::may_match`] keeps;
    /// the lines between are ruled out.
    ///
    /// ```
    /// let plan = ndq_query::Plan::compile("where match(Message, '/api/customers')").unwrap();
    /// let pre = plan.prefilter().unwrap();
    /// let chunk = b"{\"Message\":\"GET /api/orders\"}\n{\"Message\":\"GET \\/api\\/customers\"}\n";
    /// let second = chunk.iter().position(|&b| b == b'\n').unwrap() + 1;
    /// let lines: Vec<_> = pre.candidates(chunk).collect();
    /// assert_eq!(lines, [second..chunk.len() - 1]);
    /// assert!(pre.may_match(&chunk[second..]) && !pre.may_match(&chunk[..second - 1]));
    /// ```
    pub fn candidates<'d>(&'d self, chunk: &'d [u8]) -> Candidates<'d> {
        Candidates {
            pre: self,
            data: chunk,
            pos: 0,
            raw_at: None,
            esc_at: None,
        }
    }
}

/// The candidate lines of one chunk ([`Prefilter::candidates`]).
#[derive(Debug)]
pub struct Candidates<'d> {
    pre: &'d Prefilter,
    data: &'d [u8],
    /// Where the search goes on: the start of the line after the last candidate.
    pos: usize,
    /// The first raw pattern occurrence at or after the last position searched from that
    /// sets its atom's bit (`data.len()`: none); `None` before the first search.
    raw_at: Option<usize>,
    /// The same for the backslashes whose escape decodes to a character of some literal.
    esc_at: Option<usize>,
}

impl Iterator for Candidates<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let (start, end) = self.next_line(self.pos)?;
        self.pos = end + 1;
        Some(start..end)
    }
}

impl Candidates<'_> {
    /// The first candidate line at or after `pos` (a line start): its start and the position
    /// of its newline (or the chunk's end).
    fn next_line(&mut self, mut pos: usize) -> Option<(usize, usize)> {
        let data = self.data;
        let pre = self.pre;
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
            let end = memchr::memchr(b'\n', &data[hit..]).map_or(data.len(), |i| hit + i);
            if pre.any() {
                return Some((start, end));
            }
            let mut line = &data[start..end];
            if let [head @ .., b'\r'] = line {
                line = head;
            }
            if pre.eval(pre.line_bits(line)) {
                return Some((start, end));
            }
            pos = end + 1;
        }
    }

    /// The start of the first raw pattern occurrence at or after `from` that sets its
    /// atom's bit ([`Prefilter::raw_hit`]: a literal always, a key when its value may
    /// satisfy the comparison).
    fn find_raw(&self, mut from: usize) -> usize {
        let (data, none) = (self.data, self.data.len());
        let raw = &self.pre.raw;
        loop {
            let (at, pattern) = match &raw.searcher {
                Raw::None => return none,
                Raw::One(f) => match f.find(&data[from..]) {
                    Some(i) => (from + i, 0),
                    None => return none,
                },
                Raw::Many(ac) => {
                    let input = aho_corasick::Input::new(data).span(from..data.len());
                    match ac.find(input) {
                        Some(m) => (m.start(), m.pattern().as_usize()),
                        None => return none,
                    }
                }
            };
            let atoms = raw.atoms.get(pattern).map_or(&[][..], Vec::as_slice);
            if atoms.iter().any(|&atom| self.pre.raw_hit(atom, data, at)) {
                return at;
            }
            from = at + 1;
        }
    }

    /// The first escape at or after `from` (a line start, or just after an escape) that
    /// decodes to a character of some literal, found by [`escape_starts`]' walk.
    fn find_escape(&self, from: usize) -> usize {
        let data = self.data;
        let pre = self.pre;
        escape_starts(&data[from..])
            .map(|at| from + at)
            .find(|&at| {
                pre.escape_may_matter(data.get(at + 1).copied())
                    && pre.escape_bits(&data[at..]) != 0
            })
            .unwrap_or(data.len())
    }
}

#[cfg(test)]
mod tests;
