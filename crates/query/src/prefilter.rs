//! The literal prefilter: from a query's `where`, a boolean formula over *required literals*,
//! and the escape-aware test that decides from a line's raw bytes whether the line may satisfy
//! it. A line the test rules out cannot make `where` true, so the CLI skips it without parsing
//! it; results never change.
//!
//! # Derivation ([`derive()`])
//!
//! `where` keeps a line only when its condition is `true` (three-valued logic). Each condition
//! gives a necessary condition for being `true`, as a formula of literals "the decoded value of
//! some string of the line contains `L`":
//!
//! | condition (`p` a plain property path) | formula |
//! |---|---|
//! | `a and b` | `F(a) ∧ F(b)` |
//! | `a or b` | `F(a) ∨ F(b)` |
//! | `p = 'L'`, `'L' = p` (`==` too) | `L` |
//! | `p like 'a%b_c'` | `a ∧ b ∧ c` (the fragments between `%` and `_`; `like` has no escape character) |
//! | `contains(p, 'L')`, `startswith(p, 'L')`, `endswith(p, 'L')` | `L` |
//! | `p in ('a', 'b')`, every item a string literal | `a ∨ b` |
//! | `match(p, 're')` | `(P₁ ∨ … ∨ Pₙ) ∧ (S₁ ∨ … ∨ Sₘ)`: prefix and suffix literals of the regex |
//! | anything else: `not`, `<>`, `not like`, `not in`, `ilike`, numbers, `lower(p) = 'x'`, … | true |
//!
//! Each row holds because these operators are only `true` on a *string* value, and that value
//! then contains `L` (equality: it is `L`; `like`: every fragment is matched literally, in
//! characters; `match`: `regex_syntax`'s extractor guarantees that every match starts with one
//! of the prefix literals and ends with one of the suffix literals when the sequence is finite,
//! so the matched text, a substring of the value, contains both). The regex is parsed with the
//! same (default) flags as `regex::Regex::new` in the planner, so `(?i)` case variants,
//! Unicode-aware (`k` also gives the Kelvin sign `K`), are in the sequence. A sequence that
//! is infinite, empty, or holds an empty literal gives true; a long one is shortened by cutting
//! every literal (a piece of a required literal is required too). An empty literal anywhere
//! gives true. `ilike` gives true: its Unicode case folding (`ß` ~ `SS`) is not a byte search.
//! Simplification: `true ∧ X = X`, `true ∨ X = true`; a formula that is `true` means no
//! prefilter. At most [`MAX_LITERALS`] distinct literals (one bit each), else no prefilter.
//!
//! # Escape awareness ([`Prefilter::line_bits`])
//!
//! The formula speaks of *decoded* string values, but a line is searched as raw bytes, and JSON
//! may spell a character with an escape: `/api/customers` may be written `\/api\/customers`
//! or `\u002fapi...`. The argument that the test never rules out a line that holds `L`:
//!
//! Say a string's decoded value contains `L`. Each character of that occurrence was written in
//! the raw text either as itself (the same UTF-8 bytes) or as an escape. If none was an escape,
//! the occurrence's characters are consecutive raw bytes, so the raw line contains `L` itself.
//! Otherwise some character `c` of `L` came from an escape starting with a backslash: `\"`,
//! `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, or `\uXXXX` (a surrogate pair `\uD83D\uDE00` for a
//! character beyond U+FFFF). So the line may hold `L` only if its raw bytes contain `L`, or
//! contain a backslash whose escape decodes to a character of `L`.
//!
//! A literal holding `"`, a backslash or a newline is never in a line's raw bytes as itself
//! (a raw quote ends a string, a raw backslash starts an escape, a newline ends the line), so
//! only the escapes of its characters are looked for ([`Prefilter::raw_literals`] leaves it
//! out).
//!
//! [`Prefilter::escape_bits`] decodes the escape at one backslash and says which literals hold
//! its character. The escapes are found by walking the line's backslashes left to right, each
//! one taken as the start of an escape whose next byte belongs to it, so the walk goes on two
//! bytes later ([`escape_starts`]): in `"eve\\admin"` the second backslash is the escaped
//! character of the first, not an escape `\a`. From the start of a line this meets the start of
//! every escape of every string: outside strings JSON has no backslash, and inside a string every
//! scanner must pair a backslash with the byte after it to find the closing quote (the four hex
//! digits of `\u` hold no backslash, so a walk that lands among them meets the next escape
//! anyway). It may meet more (in a malformed line, a backslash outside a string), which only
//! makes a line a candidate: parsed, never wrongly skipped. Anything that is not a valid escape
//! (`\x`, a bad `\u`, a lone surrogate) is taken to decode to U+FFFD *or* to the character after
//! the backslash, which covers the scanner's decoder (U+FFFD) and any more lenient one.
//!
//! The formula is then evaluated per line over these facts ([`Prefilter::eval`]): bit `i` of
//! the line's bits is set when literal `i` may be in it.

use std::fmt;

use memchr::memmem;
use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};

use crate::parse::{BinOp, Expr, ExprKind};

/// Most distinct literals a prefilter holds (one bit each in a `u64`).
pub const MAX_LITERALS: usize = 64;

/// Most literals taken from one prefix or suffix sequence of a regex; longer sequences are
/// shortened by cutting their literals.
const SEQ_BUDGET: usize = 16;

/// A formula over the literals of a [`Prefilter`] (never constant: a constant `true` means no
/// prefilter at all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Formula {
    /// Literal `i` may be in the line.
    Lit(usize),
    /// All of them.
    And(Vec<Formula>),
    /// At least one of them.
    Or(Vec<Formula>),
}

impl Formula {
    /// The formula's value when exactly the literals whose bits are set in `bits` may be in
    /// the line.
    pub fn eval(&self, bits: u64) -> bool {
        match self {
            Formula::Lit(i) => (bits >> i) & 1 == 1,
            Formula::And(all) => all.iter().all(|f| f.eval(bits)),
            Formula::Or(any) => any.iter().any(|f| f.eval(bits)),
        }
    }
}

/// What a line must contain (in some spelling) to possibly satisfy a query's `where`.
#[derive(Clone, Debug)]
pub struct Prefilter {
    literals: Vec<String>,
    formula: Formula,
    /// The formula is a disjunction of all the literals: any bit makes it true.
    any: bool,
    /// A searcher for each literal that can be in raw bytes as itself.
    finders: Vec<Option<memmem::Finder<'static>>>,
    /// For each ASCII character, the literals that contain it.
    ascii: [u64; 128],
    /// The same for the other characters of the literals.
    other: Vec<(char, u64)>,
    /// For each byte `b`: whether an escape `\b...` may decode to a character of some literal
    /// ([`Prefilter::escape_may_matter`]).
    escapes: [bool; 256],
}

impl Prefilter {
    /// The required literals; literal `i` is bit `i` of [`Prefilter::line_bits`].
    pub fn literals(&self) -> &[String] {
        &self.literals
    }

    /// The literals (with their numbers) that can be in a line's raw bytes as themselves:
    /// all but those holding `"`, a backslash or a newline, which are only ever written with
    /// escapes.
    pub fn raw_literals(&self) -> impl Iterator<Item = (usize, &str)> + '_ {
        self.literals
            .iter()
            .enumerate()
            .filter(|(_, l)| raw_searchable(l))
            .map(|(i, l)| (i, l.as_str()))
    }

    /// The formula over the literals.
    pub fn formula(&self) -> &Formula {
        &self.formula
    }

    /// Whether the formula is true as soon as any literal may be in the line (a single
    /// literal, or an `or` of literals): then a line needs no [`Prefilter::eval`] once one of
    /// its literals or escapes was found.
    pub fn any(&self) -> bool {
        self.any
    }

    /// The formula's value for a line with these bits.
    #[inline]
    pub fn eval(&self, bits: u64) -> bool {
        if self.any {
            bits != 0
        } else {
            self.formula.eval(bits)
        }
    }

    /// The literals that contain `c`.
    #[inline]
    pub fn char_bits(&self, c: char) -> u64 {
        match self.ascii.get(c as usize) {
            Some(bits) => *bits,
            None => self
                .other
                .iter()
                .find(|(o, _)| *o == c)
                .map_or(0, |(_, bits)| *bits),
        }
    }

    /// The literals holding the character that the escape at the start of `at` decodes to
    /// (`at[0]` is a backslash; `at` may run past the escape). Not a valid escape: the
    /// literals holding U+FFFD or the character after the backslash.
    #[inline]
    pub fn escape_bits(&self, at: &[u8]) -> u64 {
        const BAD: char = char::REPLACEMENT_CHARACTER;
        match (crate::value::decode_escape(at), at.get(1)) {
            (Some((c, _)), _) => self.char_bits(c),
            // A bad `\u` escape, or a newline or nothing after the backslash.
            (None, Some(b'u' | b'\n') | None) => self.char_bits(BAD),
            (None, Some(_)) => self.char_bits(BAD) | self.char_bits(first_char(&at[1..])),
        }
    }

    /// Whether the escape whose backslash is followed by `next` (`None`: nothing) may decode
    /// to a character of some literal; `false` proves that [`Prefilter::escape_bits`] of it
    /// is 0. It lets a search pass over the escapes that cannot matter (in logs, mostly `\n`,
    /// `\"` and `\\`) without decoding them.
    #[inline]
    pub fn escape_may_matter(&self, next: Option<u8>) -> bool {
        next.is_none_or(|b| self.escapes[usize::from(b)])
    }

    /// Bit `i` set: literal `i` may be in `line` (its raw bytes contain it, or an escape of
    /// one of its characters). The reference test; the CLI finds the same facts over whole
    /// chunks.
    pub fn line_bits(&self, line: &[u8]) -> u64 {
        let mut bits = 0;
        for (i, f) in self.finders.iter().enumerate() {
            if f.as_ref().is_some_and(|f| f.find(line).is_some()) {
                bits |= 1 << i;
            }
        }
        for at in escape_starts(line) {
            bits |= self.escape_bits(&line[at..]);
        }
        bits
    }

    /// Whether `line` may satisfy `where`; `false` proves it cannot.
    pub fn may_match(&self, line: &[u8]) -> bool {
        self.eval(self.line_bits(line))
    }

    fn new(literals: Vec<String>, formula: Formula) -> Prefilter {
        let any = match &formula {
            Formula::Lit(_) => true,
            Formula::Or(all) => all.iter().all(|f| matches!(f, Formula::Lit(_))),
            Formula::And(_) => false,
        };
        let finders = literals
            .iter()
            .map(|l| raw_searchable(l).then(|| memmem::Finder::new(l.as_bytes()).into_owned()))
            .collect();
        let mut ascii = [0u64; 128];
        let mut other: Vec<(char, u64)> = Vec::new();
        for (i, l) in literals.iter().enumerate() {
            for c in l.chars() {
                match ascii.get_mut(c as usize) {
                    Some(bits) => *bits |= 1 << i,
                    None => match other.iter_mut().find(|(o, _)| *o == c) {
                        Some((_, bits)) => *bits |= 1 << i,
                        None => other.push((c, 1 << i)),
                    },
                }
            }
        }
        let mut pre = Prefilter {
            literals,
            formula,
            any,
            finders,
            ascii,
            other,
            escapes: [true; 256],
        };
        // After the backslash, a `u` starts four hex digits and a byte of 0x80 or more a
        // longer character: those depend on more bytes and always may matter. Any other byte
        // is the whole escape as `escape_bits` reads it (a valid short escape, or an invalid
        // one read as the character itself).
        for b in 0..=127u8 {
            if b != b'u' {
                pre.escapes[usize::from(b)] = pre.escape_bits(&[b'\\', b]) != 0;
            }
        }
        pre
    }
}

/// The formula with its literals quoted: `"a" & ("b" | "c")`.
impl fmt::Display for Prefilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn show(p: &Prefilter, x: &Formula, top: bool, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let (parts, sep) = match x {
                Formula::Lit(i) => return write!(f, "{:?}", p.literals[*i]),
                Formula::And(parts) => (parts, " & "),
                Formula::Or(parts) => (parts, " | "),
            };
            if !top {
                f.write_str("(")?;
            }
            for (n, part) in parts.iter().enumerate() {
                if n > 0 {
                    f.write_str(sep)?;
                }
                show(p, part, false, f)?;
            }
            if !top {
                f.write_str(")")?;
            }
            Ok(())
        }
        show(self, &self.formula, true, f)
    }
}

/// The positions of the escapes of `line`: each backslash, walking left to right, starts an
/// escape and the byte after it belongs to that escape (see the module docs). It may run over
/// several lines: a backslash before a newline pairs with the newline, and the walk goes on at
/// the next line's first byte, where a walk of that line alone would start.
pub fn escape_starts(line: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + memchr::memchr(b'\\', line.get(from..)?)?;
        from = at + 2;
        Some(at)
    })
}

/// Whether `literal` can be in a line's raw bytes as itself (see [`Prefilter::raw_literals`]).
fn raw_searchable(literal: &str) -> bool {
    !literal.contains(['"', '\\', '\n'])
}

/// The first character of `bytes` (U+FFFD when they do not start with one).
fn first_char(bytes: &[u8]) -> char {
    let end = bytes.len().min(4);
    let head = &bytes[..end];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    valid.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// A requirement while deriving: literals still as text.
#[derive(Clone, Debug, PartialEq)]
enum Req {
    True,
    Lit(String),
    And(Vec<Req>),
    Or(Vec<Req>),
}

fn lit(s: &str) -> Req {
    if s.is_empty() {
        Req::True
    } else {
        Req::Lit(s.to_owned())
    }
}

/// `true ∧ X = X`; nested conjunctions flattened; duplicates dropped.
fn and(parts: impl IntoIterator<Item = Req>) -> Req {
    let mut all = Vec::new();
    for p in parts {
        match p {
            Req::True => {}
            Req::And(inner) => all.extend(inner),
            p => all.push(p),
        }
    }
    dedup(&mut all);
    match all.len() {
        0 => Req::True,
        1 => all.pop().unwrap_or(Req::True),
        _ => Req::And(all),
    }
}

/// `true ∨ X = true`; nested disjunctions flattened; duplicates dropped.
fn or(parts: impl IntoIterator<Item = Req>) -> Req {
    let mut any = Vec::new();
    for p in parts {
        match p {
            Req::True => return Req::True,
            Req::Or(inner) => any.extend(inner),
            p => any.push(p),
        }
    }
    dedup(&mut any);
    match any.len() {
        0 => Req::True,
        1 => any.pop().unwrap_or(Req::True),
        _ => Req::Or(any),
    }
}

fn dedup(parts: &mut Vec<Req>) {
    let mut seen: Vec<Req> = Vec::with_capacity(parts.len());
    parts.retain(|p| {
        let new = !seen.contains(p);
        if new {
            seen.push(p.clone());
        }
        new
    });
}

fn is_path(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Path(_))
}

fn string(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Str(s) => Some(s),
        _ => None,
    }
}

/// The requirement of one condition (see the module docs for the table).
fn require(e: &Expr) -> Req {
    match &e.kind {
        ExprKind::Bin(BinOp::And, a, b) => and([require(a), require(b)]),
        ExprKind::Bin(BinOp::Or, a, b) => or([require(a), require(b)]),
        ExprKind::Bin(BinOp::Eq, a, b) => match (is_path(a), string(a), is_path(b), string(b)) {
            (true, _, _, Some(s)) | (_, Some(s), true, _) => lit(s),
            _ => Req::True,
        },
        ExprKind::Like {
            expr,
            pattern,
            negated: false,
            ci: false,
        } if is_path(expr) => match string(pattern) {
            Some(p) => and(p.split(['%', '_']).map(lit)),
            None => Req::True,
        },
        ExprKind::In {
            expr,
            list,
            negated: false,
        } if is_path(expr) => {
            let items: Option<Vec<&str>> = list.iter().map(string).collect();
            match items {
                Some(items) => or(items.into_iter().map(lit)),
                None => Req::True,
            }
        }
        ExprKind::Call { name, args, .. } => match (name.as_str(), args.as_slice()) {
            ("contains" | "startswith" | "endswith", [p, s]) if is_path(p) => {
                string(s).map_or(Req::True, lit)
            }
            ("match", [p, re]) if is_path(p) => string(re).map_or(Req::True, regex),
            _ => Req::True,
        },
        _ => Req::True,
    }
}

/// `match(p, re)`: the prefix literals and the suffix literals of `re`.
fn regex(re: &str) -> Req {
    // The planner compiles with `regex::Regex::new`, whose defaults are the parser's.
    let Ok(hir) = regex_syntax::ParserBuilder::new().build().parse(re) else {
        return Req::True;
    };
    let prefix = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
    let suffix = Extractor::new().kind(ExtractKind::Suffix).extract(&hir);
    and([from_seq(prefix, true), from_seq(suffix, false)])
}

/// One of the literals of a finite, non-empty sequence without empty literals; else true.
fn from_seq(mut seq: Seq, prefix: bool) -> Req {
    if !seq.is_finite() {
        return Req::True;
    }
    seq.sort();
    seq.dedup();
    while seq.len().is_some_and(|n| n > SEQ_BUDGET) {
        let Some(longest) = seq.max_literal_len().filter(|&n| n > 1) else {
            return Req::True;
        };
        // A piece of a literal every match contains is contained too.
        if prefix {
            seq.keep_first_bytes(longest - 1);
        } else {
            seq.keep_last_bytes(longest - 1);
        }
        seq.sort();
        seq.dedup();
    }
    let Some(lits) = seq.literals().filter(|l| !l.is_empty()) else {
        return Req::True;
    };
    let mut any = Vec::with_capacity(lits.len());
    for l in lits {
        match whole_chars(l.as_bytes()) {
            Some(s) if !s.is_empty() => any.push(lit(s)),
            _ => return Req::True,
        }
    }
    or(any)
}

/// `bytes` without a character cut in two at either end (cutting literals can split one);
/// `None` when the rest is not UTF-8.
fn whole_chars(bytes: &[u8]) -> Option<&str> {
    let start = bytes
        .iter()
        .position(|&b| b & 0xC0 != 0x80)
        .unwrap_or(bytes.len());
    let rest = &bytes[start..];
    match std::str::from_utf8(rest) {
        Ok(s) => Some(s),
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&rest[..e.valid_up_to()]).ok(),
        Err(_) => None,
    }
}

/// The prefilter of a `where` condition; `None` when it requires nothing (or too much to
/// track: more than [`MAX_LITERALS`] literals).
pub(crate) fn derive(filter: &Expr) -> Option<Prefilter> {
    let req = require(filter);
    let mut literals = Vec::new();
    let formula = index(req, &mut literals)?;
    (literals.len() <= MAX_LITERALS).then(|| Prefilter::new(literals, formula))
}

/// The formula of `req` with its literals numbered into `literals`; `None` for true.
fn index(req: Req, literals: &mut Vec<String>) -> Option<Formula> {
    Some(match req {
        Req::True => return None,
        Req::Lit(s) => Formula::Lit(match literals.iter().position(|l| *l == s) {
            Some(i) => i,
            None => {
                literals.push(s);
                literals.len() - 1
            }
        }),
        Req::And(parts) => Formula::And(
            parts
                .into_iter()
                .map(|p| index(p, literals))
                .collect::<Option<_>>()?,
        ),
        Req::Or(parts) => Formula::Or(
            parts
                .into_iter()
                .map(|p| index(p, literals))
                .collect::<Option<_>>()?,
        ),
    })
}

#[cfg(test)]
mod tests;
