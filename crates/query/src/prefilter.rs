//! The literal prefilter: from a query's `where`, a boolean formula over *required literals*
//! and *member facts*, and the escape-aware test that decides from a line's raw bytes whether
//! the line may satisfy it. A line the test rules out cannot make `where` true, so the CLI
//! skips it without parsing it; results never change.
//!
//! # Derivation ([`derive()`])
//!
//! `where` keeps a line only when its condition is `true` (three-valued logic). Each condition
//! gives a necessary condition for being `true`, as a formula of *atoms*: literals "the decoded
//! value of some string of the line contains `L`", and member facts "some member with key `K`,
//! at any depth, has a number value `v` with `v op N`":
//!
//! | condition (`p` a plain property path) | formula |
//! |---|---|
//! | `a and b` | `F(a) ∧ F(b)` |
//! | `a or b` | `F(a) ∨ F(b)` |
//! | `p = 'L'`, `'L' = p` (`==` too) | `L` |
//! | `p like 'a%b_c'` | `a ∧ b ∧ c` (the fragments between `%` and `_`; `like` has no escape character) |
//! | `contains(p, 'L')`, `startswith(p, 'L')`, `endswith(p, 'L')` | `L` |
//! | `p in ('a', 'b', 5)`, every item a string or a number constant | `a ∨ b ∨ K = 5` (for numbers, `p` must end in a key `K`, as below) |
//! | `'L' in p` (an array holding `L`) | `L` |
//! | `match(p, 're')` | `(P₁ ∨ … ∨ Pₙ) ∧ (S₁ ∨ … ∨ Sₘ)`: prefix and suffix literals of the regex |
//! | `q op N`, `N op q` (`q` a path ending in a key `K`; `N` a number constant that is an exact decimal; `op` one of `= <> < <= > >=`) | `K op N` (flipped for `N op q`) |
//! | the rows above with `p` a `[?]` path (`Tags[?] = 'L'`, `Cart[?].Qty > 3`; for numbers it must end in a key) | as for `p` |
//! | anything else: `not`, `<>` of strings, `not like`, `not in`, `ilike`, arithmetic, `lower(p) = 'x'`, `case`, `if`, `\|\|` and the text functions (`p \|\| 'b' = 'ab'`, `extract(p, re) = 'x'`), `level`, … | true |
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
//! `'L' in p` is true only when an element of the array is the string `L`. A `[?]` condition
//! is true only when it is true of one element's value, which the line holds as it holds a
//! property's (a member `K` of the element for `Cart[?].K`); a `[*]` condition gives true,
//! since an empty array makes it true whatever the line holds, and so do `count(*) filter
//! (where ...)` conditions, which never rule a line out.
//! A comparison of a path with a number is `true` only on a *number* value (a comparison with
//! another type is null), and the path's last key `K` then names a member of some object of
//! the line whose value is that number: the member fact holds.
//! Simplification: `true ∧ X = X`, `true ∨ X = true`; a formula that is `true` means no
//! prefilter. At most [`MAX_LITERALS`] distinct atoms (one bit each), else no prefilter.
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
//! only the escapes of its characters are looked for ([`Prefilter::raw_patterns`] leaves it
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
//! makes a line a candidate: parsed, never wrongly skipped. Escapes are decoded by the
//! scanner's [`ndq_scan::decode_escape`]. Anything that is not a valid escape (`\x`, a bad
//! `\u`, a lone surrogate) makes the scanner call the line malformed, so the line can never
//! pass `where`; it is still taken to decode to U+FFFD *or* to the character after the
//! backslash (what [`ndq_scan::unescape`] and more lenient readers make of it), so that ruling
//! lines out never depends on that verdict.
//!
//! A member fact `K op N` is looked for as the raw bytes `"K"` (a key without escapes, which
//! is why only keys without `"`, backslashes and control characters give one), blanks, `:`,
//! blanks, and a number, which is compared with `N` exactly as the engine compares it when it
//! is plain (`-?digits[.digits]`, at most 18 digits) and taken to satisfy it otherwise. In a
//! well-formed line a raw `"K"` followed by `:` is always a key (inside a string a quote is
//! escaped), so the member that makes the condition true is found, at whatever depth and
//! whichever occurrence. Its key may also be spelled with escapes: then an escape decodes to a
//! character of `K`, which sets the fact's bit as it sets a literal's.
//!
//! The formula is then evaluated per line over these facts ([`Prefilter::eval`]): bit `i` of
//! the line's bits is set when atom `i` may hold in it.

use std::fmt;

use aho_corasick::{AhoCorasick, MatchKind};
use memchr::arch::all::packedpair::HeuristicFrequencyRank;
use memchr::memmem;
use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};

use ndq_scan::decimal_parts;
use rust_decimal::Decimal;

use crate::parse::{BinOp, Expr, ExprKind, Seg};
use crate::value::{Num, cmp_parts, parse_number};

/// Most distinct atoms (literals and member facts) a prefilter holds (one bit each in a `u64`).
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

/// One fact the prefilter looks for in a line (atom `i` of [`Prefilter::atoms`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Atom {
    /// Some string of the line, decoded, may contain this text.
    Lit(String),
    /// Some member with this key, at any depth, may have a number value that satisfies the
    /// comparison.
    Num(NumAtom),
}

/// `key op k`, as a fact about a line's members (see [`Atom::Num`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NumAtom {
    key: String,
    op: BinOp,
    k: Decimal,
}

impl Atom {
    /// The text whose characters an escape may spell: the literal, or the key.
    pub fn text(&self) -> &str {
        match self {
            Atom::Lit(s) => s,
            Atom::Num(n) => &n.key,
        }
    }

    /// The searcher for the bytes that stand for the atom in a line's raw bytes, when there
    /// are any: the literal itself (unless it holds `"`, a backslash or a newline, which are
    /// only ever written with escapes), or the key and its closing quote (the opening quote
    /// is checked before an occurrence), searched by bytes that are rare in JSON.
    fn finder(&self) -> Option<memmem::Finder<'static>> {
        match self {
            Atom::Lit(s) => {
                raw_searchable(s).then(|| memmem::Finder::new(s.as_bytes()).into_owned())
            }
            Atom::Num(n) => Some(
                memmem::FinderBuilder::new()
                    .build_forward_with_ranker(JsonRank, format!("{}\"", n.key).as_bytes())
                    .into_owned(),
            ),
        }
    }
}

impl NumAtom {
    /// Whether the bytes `after` a key's closing quote may start the member's value with a
    /// number that satisfies the comparison: blanks, `:`, blanks, then a number, all before
    /// the end of the line. A plain number (`-?digits[.digits]`, at most 18 digits) is
    /// compared exactly, as the engine compares it; any other number may satisfy it; anything
    /// that is not a number cannot (a comparison of a number with another type is null).
    fn holds(&self, after: &[u8]) -> bool {
        // JSON's blanks but the newline, which ends the line: `after` may run on into the
        // next lines of a chunk, and must be read as within the line.
        let blanks = |from: usize| {
            from + after
                .get(from..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\r'))
                .count()
        };
        let colon = blanks(0);
        if after.get(colon) != Some(&b':') {
            return false;
        }
        let start = blanks(colon + 1);
        let value = after.get(start..).unwrap_or_default();
        if !matches!(value.first(), Some(b'-' | b'0'..=b'9')) {
            return false;
        }
        let len = value
            .iter()
            .take_while(|&&b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .count();
        match decimal_parts(&value[..len]).and_then(|p| cmp_parts(p, &self.k)) {
            Some(o) => self.op.holds(o),
            None => true,
        }
    }
}

/// A guess of how common each byte is in JSON logs, for memmem's choice of the two bytes its
/// SIMD loop looks for. memchr's own guess comes from general text, where `"` is rare; here it
/// is the most common byte. Only the speed of a search depends on it.
struct JsonRank;

impl HeuristicFrequencyRank for JsonRank {
    fn rank(&self, b: u8) -> u8 {
        // Letters by their frequency in English text, most common first.
        const LETTERS: &[u8; 26] = b"etaoinshrdlcumwfgypbvkjxqz";
        match b {
            b'"' | b':' | b',' => 255,
            b'{' | b'}' | b'[' | b']' | b' ' => 250,
            b'0'..=b'9' => 245,
            b'/' | b'.' | b'-' => 235,
            b'a'..=b'z' => {
                let i = LETTERS.iter().position(|&l| l == b).unwrap_or(25);
                // 240 down to 190.
                240 - 2 * i as u8
            }
            b'A'..=b'Z' => 150,
            0x80.. => 100,
            _ => 120,
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Lit(s) => write!(f, "{s:?}"),
            Atom::Num(n) => {
                let op = match n.op {
                    BinOp::Eq => "=",
                    BinOp::Ne => "<>",
                    BinOp::Lt => "<",
                    BinOp::Le => "<=",
                    BinOp::Gt => ">",
                    _ => ">=",
                };
                write!(f, "{:?} {op} {}", n.key, n.k)
            }
        }
    }
}

/// What a line must contain (in some spelling) to possibly satisfy a query's `where`.
#[derive(Clone, Debug)]
pub struct Prefilter {
    atoms: Vec<Atom>,
    formula: Formula,
    /// The formula is a disjunction of all the atoms: any bit makes it true.
    any: bool,
    /// A searcher for each atom's raw bytes ([`Atom::finder`]), where it has them.
    finders: Vec<Option<memmem::Finder<'static>>>,
    /// For each ASCII character, the literals that contain it.
    ascii: [u64; 128],
    /// The same for the other characters of the literals.
    other: Vec<(char, u64)>,
    /// For each byte `b`: whether an escape `\b...` may decode to a character of some literal
    /// ([`Prefilter::escape_may_matter`]).
    escapes: [bool; 256],
    /// All the raw patterns in one searcher, for whole chunks (`candidates.rs`).
    pub(crate) raw: RawSearch,
}

/// The raw patterns of a prefilter ([`Prefilter::raw_patterns`]), distinct, searched together
/// over a chunk; built once with the prefilter and shared by every worker.
#[derive(Clone, Debug)]
pub(crate) struct RawSearch {
    pub(crate) searcher: Raw,
    /// For each pattern, in the searcher's order, the atoms an occurrence of it may set: its
    /// own (comparisons of one key share its pattern), and those of every pattern that is a
    /// prefix of it, which occur wherever it does (see [`Raw::Many`]).
    pub(crate) atoms: Vec<Vec<usize>>,
}

/// How the raw patterns are searched.
#[derive(Clone, Debug)]
pub(crate) enum Raw {
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

impl RawSearch {
    /// The searcher of `finders` (the atoms' raw patterns); `None` when it cannot be built.
    fn new(finders: &[Option<memmem::Finder<'static>>]) -> Option<RawSearch> {
        let mut atoms: Vec<Vec<usize>> = Vec::new();
        let mut raw: Vec<&memmem::Finder<'static>> = Vec::new();
        for (i, finder) in finders.iter().enumerate() {
            let Some(finder) = finder else { continue };
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
        let searcher = match raw.as_slice() {
            [] => Raw::None,
            [one] => Raw::One(Box::new((*one).clone())),
            many => Raw::Many(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(many.iter().map(|f| f.needle()))
                    .ok()?,
            ),
        };
        Some(RawSearch { searcher, atoms })
    }
}

impl Prefilter {
    /// The atoms; atom `i` is bit `i` of a line's facts ([`Prefilter::may_match`]).
    pub fn atoms(&self) -> &[Atom] {
        &self.atoms
    }

    /// The atoms (with their numbers) that have raw bytes to search for, and the searchers
    /// for those bytes: a literal (all but those holding `"`, a backslash or a newline, which
    /// are only ever written with escapes), or a key and its closing quote. An occurrence
    /// counts only when [`Prefilter::raw_hit`] says so.
    pub(crate) fn raw_patterns(
        &self,
    ) -> impl Iterator<Item = (usize, &memmem::Finder<'static>)> + '_ {
        self.finders
            .iter()
            .enumerate()
            .filter_map(|(i, f)| Some((i, f.as_ref()?)))
    }

    /// Whether the occurrence of atom `i`'s raw bytes at `at` in `hay` sets its bit: always
    /// for a literal; for a key, when it is between quotes and the member's value may satisfy
    /// the comparison.
    #[inline]
    pub(crate) fn raw_hit(&self, i: usize, hay: &[u8], at: usize) -> bool {
        let Some(Atom::Num(n)) = self.atoms.get(i) else {
            return true;
        };
        // The occurrence is the key and its closing quote.
        at.checked_sub(1).and_then(|q| hay.get(q)) == Some(&b'"')
            && n.holds(hay.get(at + n.key.len() + 1..).unwrap_or_default())
    }

    /// The formula over the literals.
    pub fn formula(&self) -> &Formula {
        &self.formula
    }

    /// Whether the formula is true as soon as any literal may be in the line (a single
    /// literal, or an `or` of literals): then a line needs no [`Prefilter::eval`] once one of
    /// its literals or escapes was found.
    pub(crate) fn any(&self) -> bool {
        self.any
    }

    /// The formula's value for a line with these bits.
    #[inline]
    pub(crate) fn eval(&self, bits: u64) -> bool {
        if self.any {
            bits != 0
        } else {
            self.formula.eval(bits)
        }
    }

    /// The literals that contain `c`.
    #[inline]
    pub(crate) fn char_bits(&self, c: char) -> u64 {
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
    pub(crate) fn escape_bits(&self, at: &[u8]) -> u64 {
        const BAD: char = char::REPLACEMENT_CHARACTER;
        match (ndq_scan::decode_escape(at), at.get(1)) {
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
    pub(crate) fn escape_may_matter(&self, next: Option<u8>) -> bool {
        next.is_none_or(|b| self.escapes[usize::from(b)])
    }

    /// Bit `i` set: literal `i` may be in `line` (its raw bytes contain it, or an escape of
    /// one of its characters). The reference test; [`Prefilter::candidates`] finds the same
    /// facts over whole chunks.
    pub(crate) fn line_bits(&self, line: &[u8]) -> u64 {
        let mut bits = 0;
        for (i, f) in self.raw_patterns() {
            // A literal's first occurrence decides; a key's each, until one holds.
            let hit = match self.atoms.get(i) {
                Some(Atom::Num(_)) => f.find_iter(line).any(|at| self.raw_hit(i, line, at)),
                _ => f.find(line).is_some(),
            };
            if hit {
                bits |= 1 << i;
            }
        }
        for at in escape_starts(line) {
            bits |= self.escape_bits(&line[at..]);
        }
        bits
    }

    /// Whether `line` may satisfy `where`; `false` proves it cannot. The per-line reference of
    /// [`Prefilter::candidates`], which keeps exactly the lines of a chunk this keeps.
    pub fn may_match(&self, line: &[u8]) -> bool {
        self.eval(self.line_bits(line))
    }

    /// `None` when the searcher of the raw patterns cannot be built (then no prefilter).
    fn new(atoms: Vec<Atom>, formula: Formula) -> Option<Prefilter> {
        let any = match &formula {
            Formula::Lit(_) => true,
            Formula::Or(all) => all.iter().all(|f| matches!(f, Formula::Lit(_))),
            Formula::And(_) => false,
        };
        let finders: Vec<_> = atoms.iter().map(Atom::finder).collect();
        let raw = RawSearch::new(&finders)?;
        let mut ascii = [0u64; 128];
        let mut other: Vec<(char, u64)> = Vec::new();
        for (i, a) in atoms.iter().enumerate() {
            for c in a.text().chars() {
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
            atoms,
            formula,
            any,
            finders,
            ascii,
            other,
            escapes: [true; 256],
            raw,
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
        Some(pre)
    }
}

/// The formula with its literals quoted: `"a" & ("b" | "c")`.
impl fmt::Display for Prefilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn show(p: &Prefilter, x: &Formula, top: bool, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let (parts, sep) = match x {
                Formula::Lit(i) => return write!(f, "{}", p.atoms[*i]),
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
pub(crate) fn escape_starts(line: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + memchr::memchr(b'\\', line.get(from..)?)?;
        from = at + 2;
        Some(at)
    })
}

/// Whether `literal` can be in a line's raw bytes as itself (see [`Prefilter::raw_patterns`]).
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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Req {
    True,
    Atom(Atom),
    And(Vec<Req>),
    Or(Vec<Req>),
}

fn lit(s: &str) -> Req {
    if s.is_empty() {
        Req::True
    } else {
        Req::Atom(Atom::Lit(s.to_owned()))
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

/// The first of equal parts kept, in order (in linear time: an `in` list may have thousands).
fn dedup(parts: &mut Vec<Req>) {
    let mut seen = std::collections::HashSet::with_capacity(parts.len());
    parts.retain(|p| seen.insert(p.clone()));
}

/// A property path, or a path with a `[?]` wildcard: a condition on it is true only when it
/// is true of a value the line holds (an element's). Not `[*]`, which an empty array makes
/// true without any element.
fn is_path(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Path(_) | ExprKind::Wild { every: false, .. }
    )
}

fn string(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Str(s) => Some(s),
        _ => None,
    }
}

/// A number constant that is an exact Decimal.
fn decimal(e: &Expr) -> Option<Decimal> {
    match &e.kind {
        ExprKind::Number(text) => match parse_number(text)? {
            Num::Dec(d) => Some(d),
            Num::Float(_) => None,
        },
        _ => None,
    }
}

/// The last key of a path that ends in a key, when the key can be in raw bytes as itself
/// (no `"`, backslash or control character, which are only ever written with escapes).
fn last_key(e: &Expr) -> Option<&str> {
    let segs = match &e.kind {
        ExprKind::Path(segs) => segs,
        // `Cart[?].Qty`: the key after the wildcard. (`Tags[?]` has none: an element is not
        // a member.)
        ExprKind::Wild {
            segs,
            at,
            every: false,
            ..
        } if *at < segs.len() => segs,
        _ => return None,
    };
    let escaped = |c: char| c == '"' || c == '\\' || c < ' ';
    match segs.last()? {
        Seg::Key(k) if !k.is_empty() && !k.contains(escaped) => Some(k),
        _ => None,
    }
}

/// `a op b` with a path ending in a key on one side and a number on the other.
fn number_cmp(op: BinOp, a: &Expr, b: &Expr) -> Req {
    let flipped = match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    };
    let (key, op, k) = match (last_key(a), decimal(b), decimal(a), last_key(b)) {
        (Some(key), Some(k), _, _) => (key, op, k),
        (_, _, Some(k), Some(key)) => (key, flipped, k),
        _ => return Req::True,
    };
    Req::Atom(Atom::Num(NumAtom {
        key: key.to_owned(),
        op,
        k,
    }))
}

/// The requirement of one condition (see the module docs for the table).
fn require(e: &Expr) -> Req {
    match &e.kind {
        ExprKind::Bin(BinOp::And, a, b) => and([require(a), require(b)]),
        ExprKind::Bin(BinOp::Or, a, b) => or([require(a), require(b)]),
        ExprKind::Bin(BinOp::Eq, a, b) => match (is_path(a), string(a), is_path(b), string(b)) {
            (true, _, _, Some(s)) | (_, Some(s), true, _) => lit(s),
            _ => number_cmp(BinOp::Eq, a, b),
        },
        ExprKind::Bin(op @ (BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge), a, b) => {
            number_cmp(*op, a, b)
        }
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
        } if is_path(expr) => or(list.iter().map(|item| match string(item) {
            Some(s) => lit(s),
            None => number_cmp(BinOp::Eq, expr, item),
        })),
        ExprKind::Member {
            expr,
            negated: false,
            ..
        } => string(expr).map_or(Req::True, lit),
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
    let mut atoms = Vec::new();
    let formula = index(req, &mut atoms, &mut Default::default())?;
    (atoms.len() <= MAX_LITERALS)
        .then(|| Prefilter::new(atoms, formula))
        .flatten()
}

/// The formula of `req` with its atoms numbered into `atoms` (`numbers`: each atom's number,
/// so that an atom met again gets it in constant time); `None` for true.
fn index(
    req: Req,
    atoms: &mut Vec<Atom>,
    numbers: &mut std::collections::HashMap<Atom, usize>,
) -> Option<Formula> {
    let mut all = |parts: Vec<Req>| -> Option<Vec<Formula>> {
        parts
            .into_iter()
            .map(|p| index(p, atoms, numbers))
            .collect()
    };
    Some(match req {
        Req::True => return None,
        Req::And(parts) => Formula::And(all(parts)?),
        Req::Or(parts) => Formula::Or(all(parts)?),
        Req::Atom(atom) => Formula::Lit(*numbers.entry(atom).or_insert_with_key(|atom| {
            atoms.push(atom.clone());
            atoms.len() - 1
        })),
    })
}

#[cfg(test)]
mod tests;
