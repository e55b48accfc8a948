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

use aho_corasick::{AhoCorasick, MatchKind};
use memchr::memmem;
use ndq_query::{Prefilter, escape_starts};

/// The prefilter of a run, built once and shared by the workers.
#[derive(Debug)]
pub struct LineFilter<'p> {
    pre: &'p Prefilter,
    raw: Raw,
    /// For each raw pattern, in `raw`'s order, the atoms an occurrence of it may set: its
    /// own (comparisons of one key share its pattern), and those of every pattern that is a
    /// prefix of it, which occur wherever it does (see [`Raw::Many`]).
    atoms: Vec<Vec<usize>>,
}

/// How the raw literals are searched.
#[derive(Debug)]
enum Raw {
    /// No literal can be in raw bytes as itself (they all hold a quote, backslash or newline).
    None,
    /// One pattern.
    One(Box<memmem::Finder<'static>>),
    /// Several, searched leftmost-longest: the first start, so that a search from just after
    /// an occurrence meets every later one, and there the longest pattern. Every other
    /// pattern that starts there is a prefix of that one, so its atoms are checked too:
    /// a key's `Elapsed"` turned down by its value does not hide the literal `Elapsed`.
    Many(AhoCorasick),
}

impl<'p> LineFilter<'p> {
    /// The searchers for `pre`; `None` when they cannot be built (then there is no
    /// prefilter).
    pub fn new(pre: &'p Prefilter) -> Option<LineFilter<'p>> {
        let mut atoms: Vec<Vec<usize>> = Vec::new();
        let mut raw: Vec<&memmem::Finder<'static>> = Vec::new();
        for (i, finder) in pre.raw_patterns() {
            match raw.iter().position(|f| f.needle() == finder.needle()) {
                Some(p) => atoms[p].push(i),
                None => {
                    atoms.push(vec![i]);
                    raw.push(finder);
                }
            }
        }
        let atoms = raw
            .iter()
            .map(|f| {
                raw.iter()
                    .zip(&atoms)
                    .filter(|(g, _)| f.needle().starts_with(g.needle()))
                    .flat_map(|(_, a)| a.iter().copied())
                    .collect()
            })
            .collect();
        let raw = match raw.as_slice() {
            [] => Raw::None,
            [one] => Raw::One(Box::new((*one).clone())),
            many => Raw::Many(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(many.iter().map(|f| f.needle()))
                    .ok()?,
            ),
        };
        Some(LineFilter { pre, raw, atoms })
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

    /// The start of the first raw pattern occurrence at or after `from` that sets its
    /// atom's bit ([`Prefilter::raw_hit`]: a literal always, a key when its value may
    /// satisfy the comparison).
    fn find_raw(&self, mut from: usize) -> usize {
        let (data, none) = (self.data, self.data.len());
        let filter = self.filter;
        loop {
            let (at, pattern) = match &filter.raw {
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
            let atoms = filter.atoms.get(pattern).map_or(&[][..], Vec::as_slice);
            if atoms.iter().any(|&atom| filter.pre.raw_hit(atom, data, at)) {
                return at;
            }
            from = at + 1;
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
