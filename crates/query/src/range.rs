//! The time range of a query: what `where` (with `--since`/`--until` in it) requires of the
//! time property, as bounds that a line's time can be checked against without parsing the
//! line ([`TimeRange`]), and the reader of a line's leading time ([`leading_time`]).
//!
//! # Derivation ([`derive()`])
//!
//! `where` keeps a line only when its condition is `true`. In a conjunction every part must be
//! `true`, so each part that compares the time property `K` (a top-level key) with a constant
//! bounds the line's time:
//!
//! | part (`c` a constant instant: `datetime('...')`, `now() - 1h`, `--since`'s bound) | bound |
//! |---|---|
//! | `datetime(K) op c`, `K op c`, `datetime(K) op 'text'` (`op` one of `= < <= > >=`) | the instant of `K` `op` `c` |
//! | `K op 'text'` | the text of `K` `op` `'text'`, by code point (a string comparison) |
//!
//! (flipped when the constant is on the left). Parts of other shapes, and bounds on other
//! keys than the first one bounded, are left out: dropping a necessary condition keeps the
//! rest necessary. Both kinds of bound hold for a line whose `K` is a string that
//! [`crate::time`]'s fixed RFC 3339 reader reads: `datetime` and a comparison of text with a
//! timestamp read such a string as that reader does, and a comparison of two strings compares
//! their code points, which is their UTF-8 bytes' order.
//!
//! # The leading time ([`leading_time`])
//!
//! Loggers write the time first: `{"@t":"2026-11-21T10:00:00.123Z",...`. A line whose first
//! member is `K` (spelled without escapes), with a string value without escapes or control
//! characters, of at most [`MAX_TIME_TEXT`] bytes, that the fixed reader reads, followed by
//! `,` or `}`, has that value as its `K`: the first occurrence of a key is the one the scanner
//! keeps. Any other line (time key elsewhere or escaped, another type, a malformed start) has no
//! leading time: it is never ruled out from its time alone, and makes its zone unknown.

use std::cmp::Ordering;

use crate::ir::Ex;
use crate::parse::{BinOp, Seg};
use crate::time::{TimeFn, fixed_instant, fixed_seconds, parse_fixed, parse_text};
use crate::timefn;
use crate::value::Val;

/// Longest time text a [`Stamp`] holds (longer values are not times any logger writes).
pub const MAX_TIME_TEXT: usize = 64;

/// A line's leading time: its text (the raw bytes between the quotes, which are also the
/// decoded value: there is no escape) and its instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp<'a> {
    /// The value's text.
    pub text: &'a [u8],
    /// Nanoseconds since the Unix epoch.
    pub instant: i128,
}

impl<'a> Stamp<'a> {
    /// `text` with its instant, when it is in the fixed RFC 3339 form a leading time is read
    /// in: `YYYY-MM-DD(T|t| )HH:MM:SS[.f+](Z|z|±HH:MM)`, a valid date and time (a leap
    /// second read as the second before it) at an instant from year -9999 to 9999. `None` for
    /// any other text (which `datetime` may still read).
    pub fn fixed(text: &'a [u8]) -> Option<Stamp<'a>> {
        Some(Stamp {
            text,
            instant: parse_fixed(text)?,
        })
    }
}

/// JSON's blanks (the newline ends a line, so it is not among them here).
fn blanks(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\r')) {
        i += 1;
    }
    i
}

/// The leading time of `line` under `key` (see the module docs); `key` must hold no `"`,
/// backslash or control character. The reference for [`TimeReader::read`].
pub fn leading_time<'a>(line: &'a [u8], key: &[u8]) -> Option<Stamp<'a>> {
    TimeReader::new(key).read(line)
}

/// Reads the leading times of line after line: the common spelling of the start of a line
/// (`{"KEY":"`) is recognised with one comparison, and the seconds of the last time read are
/// remembered, since neighbouring lines of a log mostly share them (only the fraction and the
/// offset are read again: `fixed_seconds` of the time module depends on the first 19 bytes
/// alone).
#[derive(Clone, Debug)]
pub struct TimeReader<'k> {
    key: &'k [u8],
    /// `{"KEY":"`, and its first up to 8 bytes as a number with the mask of its length.
    prefix: Vec<u8>,
    word: u64,
    mask: u64,
    /// The first 19 bytes of the last time read, and the seconds they name.
    last: [u8; 19],
    last_secs: Option<i64>,
}

impl<'k> TimeReader<'k> {
    /// A reader of the leading times under `key`.
    pub fn new(key: &'k [u8]) -> TimeReader<'k> {
        let prefix = [&b"{\""[..], key, b"\":\""].concat();
        let mut head = [0u8; 8];
        let n = prefix.len().min(8);
        head[..n].copy_from_slice(&prefix[..n]);
        TimeReader {
            key,
            word: u64::from_le_bytes(head),
            mask: if n == 8 {
                u64::MAX
            } else {
                (1u64 << (8 * n)) - 1
            },
            prefix,
            last: [0; 19],
            last_secs: None,
        }
    }

    /// Where the value of the first member starts (after its opening quote), when the line
    /// starts with the member `KEY` and a string.
    #[inline]
    fn value_start(&self, line: &[u8]) -> Option<usize> {
        if let Some(head) = line.first_chunk::<8>()
            && u64::from_le_bytes(*head) & self.mask == self.word
            && (self.prefix.len() <= 8 || line.starts_with(&self.prefix))
        {
            return Some(self.prefix.len());
        }
        let mut i = blanks(line, 0);
        if line.get(i) != Some(&b'{') {
            return None;
        }
        i = blanks(line, i + 1);
        if line.get(i) != Some(&b'"') {
            return None;
        }
        i += 1;
        let key = self.key;
        if line.get(i..i + key.len())? != key || line.get(i + key.len()) != Some(&b'"') {
            return None;
        }
        i = blanks(line, i + key.len() + 1);
        if line.get(i) != Some(&b':') {
            return None;
        }
        i = blanks(line, i + 1);
        (line.get(i) == Some(&b'"')).then_some(i + 1)
    }

    /// The leading time of `line` (see the module docs).
    #[inline]
    pub fn read<'a>(&mut self, line: &'a [u8]) -> Option<Stamp<'a>> {
        let start = self.value_start(line)?;
        let rest = line.get(start..line.len().min(start + MAX_TIME_TEXT + 1))?;
        // The first quote ends the string unless a backslash escapes it; neither a backslash
        // nor a control character is ever part of a text the fixed reader reads, so a text
        // holding one is turned down below, by that reader.
        let len = memchr::memchr(b'"', rest)?;
        let text = &rest[..len];
        let after = blanks(line, start + len + 1);
        if !matches!(line.get(after), Some(b',' | b'}')) {
            return None;
        }
        let head: [u8; 19] = *text.first_chunk::<19>()?;
        let secs = match self.last_secs {
            Some(secs) if head == self.last && text.len() >= 20 => secs,
            _ => {
                let secs = fixed_seconds(text)?;
                self.last = head;
                self.last_secs = Some(secs);
                secs
            }
        };
        Some(Stamp {
            text,
            instant: fixed_instant(secs, text)?,
        })
    }
}

/// Bounds on the time property that every line passing `where` meets (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeRange {
    key: String,
    /// Instants: the closed range `lo..=hi` (nanoseconds; empty when `lo > hi`).
    lo: i128,
    hi: i128,
    /// Text: at or after (`true`: inclusive) / before or at.
    text_lo: Option<(Vec<u8>, bool)>,
    text_hi: Option<(Vec<u8>, bool)>,
}

impl TimeRange {
    /// The time property's key (a top-level key, spelled without escapes in the lines it
    /// reads).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether a line whose leading time is `t` cannot pass `where`.
    #[inline]
    pub fn rules_out(&self, t: &Stamp<'_>) -> bool {
        self.outside(t.instant, t.instant, t.text, t.text)
    }

    /// Whether no line whose leading time lies in `lo..=hi` (instants) with its text in
    /// `text_lo..=text_hi` (byte order) can pass `where`: the range cannot meet a zone of
    /// such times.
    pub fn outside(&self, lo: i128, hi: i128, text_lo: &[u8], text_hi: &[u8]) -> bool {
        if self.lo > self.hi || hi < self.lo || lo > self.hi {
            return true;
        }
        if let Some((b, inclusive)) = &self.text_lo {
            match text_hi.cmp(b.as_slice()) {
                Ordering::Less => return true,
                Ordering::Equal if !inclusive => return true,
                _ => {}
            }
        }
        if let Some((b, inclusive)) = &self.text_hi {
            match text_lo.cmp(b.as_slice()) {
                Ordering::Greater => return true,
                Ordering::Equal if !inclusive => return true,
                _ => {}
            }
        }
        false
    }

    fn instant(&mut self, op: BinOp, c: i128) {
        match op {
            BinOp::Ge => self.lo = self.lo.max(c),
            BinOp::Gt => self.lo = self.lo.max(c.saturating_add(1)),
            BinOp::Le => self.hi = self.hi.min(c),
            BinOp::Lt => self.hi = self.hi.min(c.saturating_sub(1)),
            BinOp::Eq => {
                self.lo = self.lo.max(c);
                self.hi = self.hi.min(c);
            }
            _ => {}
        }
    }

    fn text(&mut self, op: BinOp, c: &str) {
        let c = c.as_bytes();
        // The tighter of two bounds (`toward`: the side a tighter one lies on); at the same
        // text, the exclusive one.
        let tighten = |b: &mut Option<(Vec<u8>, bool)>, toward: Ordering, inclusive: bool| {
            let tighter = match b {
                None => true,
                Some((old, inc)) => match c.cmp(old.as_slice()) {
                    Ordering::Equal => *inc && !inclusive,
                    o => o == toward,
                },
            };
            if tighter {
                *b = Some((c.to_vec(), inclusive));
            }
        };
        let (lo, hi) = (Ordering::Greater, Ordering::Less);
        match op {
            BinOp::Ge => tighten(&mut self.text_lo, lo, true),
            BinOp::Gt => tighten(&mut self.text_lo, lo, false),
            BinOp::Le => tighten(&mut self.text_hi, hi, true),
            BinOp::Lt => tighten(&mut self.text_hi, hi, false),
            BinOp::Eq => {
                tighten(&mut self.text_lo, lo, true);
                tighten(&mut self.text_hi, hi, true);
            }
            _ => {}
        }
    }
}

/// How a comparison side reads the time property.
enum Side<'e> {
    /// `K`: text until it meets a timestamp.
    Raw(&'e str),
    /// `datetime(K)`.
    Instant(&'e str),
}

/// The single top-level key of a path expression.
fn top_key(e: &Ex) -> Option<&str> {
    match e {
        Ex::Path(p) => match &*p.segs {
            [Seg::Key(k)] => Some(k),
            _ => None,
        },
        _ => None,
    }
}

fn side(e: &Ex) -> Option<Side<'_>> {
    match e {
        Ex::Time(TimeFn::DateTime, a, None, _) => top_key(a).map(Side::Instant),
        _ => top_key(e).map(Side::Raw),
    }
}

/// The value of an expression made of constants, as far as a bound needs one: a constant, a
/// `datetime` of one, and timestamp arithmetic on them.
fn constant(e: &Ex) -> Option<Val<'static>> {
    match e {
        Ex::Const(v) => Some(v.clone()),
        Ex::Time(TimeFn::DateTime, a, None, _) => timefn::instant(&constant(a)?).map(Val::Time),
        Ex::Arith(op, a, b) => Some(timefn::arith(*op, &constant(a)?, &constant(b)?)),
        _ => None,
    }
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

/// Whether `key` is spelled in raw JSON as itself: not empty, no `"`, backslash or control
/// character.
pub(crate) fn plain_key(key: &str) -> bool {
    !key.is_empty() && !key.contains(|ch: char| ch == '"' || ch == '\\' || ch < ' ')
}

/// The time range of a compiled `where` (with `--since`/`--until` in it); `None` when it
/// bounds no time property.
pub(crate) fn derive(filter: &Ex) -> Option<TimeRange> {
    let mut range = None;
    collect(filter, &mut range);
    range
}

fn collect(e: &Ex, range: &mut Option<TimeRange>) {
    match e {
        Ex::And(a, b) => {
            collect(a, range);
            collect(b, range);
        }
        Ex::Cmp(op, a, b) => {
            if !matches!(
                op,
                BinOp::Eq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
            ) {
                return;
            }
            let Some((op, s, value)) = side(a)
                .zip(constant(b))
                .map(|(s, v)| (*op, s, v))
                .or_else(|| side(b).zip(constant(a)).map(|(s, v)| (flip(*op), s, v)))
            else {
                return;
            };
            let (Side::Raw(key) | Side::Instant(key)) = s;
            if !plain_key(key) {
                return;
            }
            let r = range.get_or_insert_with(|| TimeRange {
                key: key.to_owned(),
                lo: i128::MIN,
                hi: i128::MAX,
                text_lo: None,
                text_hi: None,
            });
            if r.key != key {
                return;
            }
            match (s, value) {
                (Side::Instant(_) | Side::Raw(_), Val::Time(t)) => r.instant(op, t),
                (Side::Instant(_), Val::Str(s, _)) => {
                    if let Some(t) = parse_text(&s) {
                        r.instant(op, t);
                    }
                }
                (Side::Raw(_), Val::Str(s, _)) => r.text(op, &s),
                // Anything else: left out (dropping a bound is always sound).
                _ => {}
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;
