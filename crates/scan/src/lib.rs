//! ndq-scan: a sparse, lazy JSON scanner for one line of NDJSON.
//!
//! A line is validated (UTF-8 and JSON syntax) and indexed in one pass into a flat *tape* of
//! nodes: one per key, value, object and array, each with its byte range and a link to the node
//! after its subtree. Looking a key up walks only the members of one object and jumps over
//! nested objects and arrays; values stay raw text until asked ([`Str::unescaped`],
//! [`Number::to_decimal`]). The [`Parser`] keeps its buffers from one line to the next, so the
//! steady state allocates nothing.
//!
//! Finding the bytes that matter inside strings (quotes, backslashes, control characters),
//! where long text is, is done by one of two feeders: a portable byte loop
//! ([`Scanner::Scalar`]) or AVX2 over 32-byte windows ([`Scanner::Avx2`]). Both drive the same
//! safe parser, which decides what the bytes mean and walks the few bytes between strings.
//!
//! Log lines come from a few templates, so the AVX2 scanner also remembers the *shapes* of
//! the lines it accepted (a line with the text inside its strings dropped and each run of
//! digits cut to one): once a line has nothing left to index (after
//! [`Parser::parse_until`]'s last wanted key, or for a `parse_until` of no keys), the rest of
//! it is valid if its shape is one of those and its strings and numbers pass a few checks
//! made 64 bytes at a time (escapes, control characters, leading zeros). Anything else is
//! validated by the parser as before. The results are the same either way; only the time
//! differs.
//!
//! The crate is also ndq's one JSON-text toolkit, so every reader of raw JSON text agrees with
//! the scanner: [`decode_escape`] (one escape, `None` exactly where the scanner rejects it),
//! [`unescape()`] (a string's value), [`decimal_parts`] (the fast path for plain decimals) and
//! [`parse_decimal`] (any number, exactly, as a Decimal).
//!
//! ```
//! use ndq_scan::{Decimal, Parser, Scanner, Value};
//!
//! let mut parser = Parser::new(Scanner::detect()); // one per worker, reused line after line
//! let doc = parser.parse(br#"{"Elapsed": 12.5, "Message": "a \"quoted\" word"}"#).unwrap();
//! let root = doc.root();
//! match root.get("Elapsed") {
//!     Some(Value::Number(n)) => assert_eq!(n.to_decimal(), Some(Decimal::new(125, 1))),
//!     other => panic!("{other:?}"),
//! }
//! match root.get("Message") {
//!     Some(Value::String(s)) => assert_eq!(s.unescaped(), r#"a "quoted" word"#),
//!     other => panic!("{other:?}"),
//! }
//! assert!(parser.parse(b"{\"a\":1,}").is_err());
//! ```
//!
//! # What is accepted
//!
//! Strict JSON (RFC 8259) with an object at the root, whitespace allowed around and between
//! tokens. Rejected: invalid UTF-8, leading zeros, `+1`, `.5`, `1.`, `NaN`, raw control
//! characters (below U+0020) in strings, unknown escapes, `\u` escapes that are lone UTF-16
//! surrogates (as serde_json does), trailing commas, anything but whitespace after the root
//! object, nesting deeper than [`DEPTH_LIMIT`] (serde_json's default limit), and lines of 4 GiB
//! or more.
//!
//! Deliberate leniencies compared with serde_json: none in what is *accepted*. The scanner
//! accepts numbers of any size (`1e400`), which serde_json with `arbitrary_precision` also
//! accepts; [`Number::to_decimal`] then answers `None` and [`Number::to_f64`] infinity.
//! Duplicate keys are kept; lookups see the first.
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

#[cfg(target_arch = "x86_64")]
mod avx2;
mod number;
mod resume;
mod scalar;
mod shape;
mod state;
mod unescape;

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

pub use number::{NotDecimal, decimal_parts, float_as_decimal, parse_decimal};
pub use rust_decimal::Decimal;
pub use state::DEPTH_LIMIT;
pub use state::Kind as TokenKind;
pub use unescape::{decode_escape, unescape};

use state::{Frame, Kind, Machine, Node};

/// Which character-search implementation scans lines. Chosen once per run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scanner {
    /// Portable byte-at-a-time search.
    Scalar,
    /// AVX2 over 32-byte blocks (only constructed when the CPU has AVX2).
    Avx2,
}

impl Scanner {
    /// The fastest implementation this CPU supports (AVX2 if detected, else scalar).
    pub fn detect() -> Scanner {
        Scanner::avx2().unwrap_or(Scanner::Scalar)
    }
    /// The portable implementation.
    pub fn scalar() -> Scanner {
        Scanner::Scalar
    }
    /// The AVX2 implementation, or `None` when the CPU lacks AVX2 (or BMI1/BMI2, which every
    /// AVX2 CPU we know of has).
    pub fn avx2() -> Option<Scanner> {
        Engine::avx2().map(|_| Scanner::Avx2)
    }
    /// `"auto"`, `"scalar"` or `"avx2"`; `None` for another name or avx2 on a CPU without it.
    pub fn from_name(name: &str) -> Option<Scanner> {
        match name {
            "auto" => Some(Scanner::detect()),
            "scalar" => Some(Scanner::Scalar),
            "avx2" => Scanner::avx2(),
            _ => None,
        }
    }
    /// `"scalar"` or `"avx2"`.
    pub fn name(self) -> &'static str {
        match self {
            Scanner::Scalar => "scalar",
            Scanner::Avx2 => "avx2",
        }
    }
}

/// The feeder a [`Parser`] really runs. `Avx2` holds a proof token that can only be made after
/// the CPU was found to have AVX2, BMI1 and BMI2, so `Scanner::Avx2` built by hand on another
/// CPU falls back to the scalar feeder instead of executing unsupported instructions.
#[derive(Clone, Copy, Debug)]
enum Engine {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2(avx2::Token),
}

impl Engine {
    fn avx2() -> Option<Engine> {
        #[cfg(target_arch = "x86_64")]
        {
            avx2::Token::new().map(Engine::Avx2)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }
    fn new(scanner: Scanner) -> Engine {
        match scanner {
            Scanner::Scalar => Engine::Scalar,
            Scanner::Avx2 => Engine::avx2().unwrap_or(Engine::Scalar),
        }
    }
    /// Run `machine` with this engine's feeder.
    fn scan(self, machine: &mut Machine<'_>) -> Result<(), Malformed> {
        match self {
            Engine::Scalar => scalar::scan(machine),
            #[cfg(target_arch = "x86_64")]
            Engine::Avx2(token) => avx2::scan(token, machine),
        }
    }
}

/// Why a line is not a JSON object, and where (byte offset into the line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    /// Byte offset of the first byte found wrong.
    pub offset: usize,
    /// What was wrong.
    pub reason: Reason,
}

impl Malformed {
    /// Built out of line so that the hot paths stay small.
    #[cold]
    #[inline(never)]
    pub(crate) fn new(offset: usize, reason: Reason) -> Malformed {
        Malformed { offset, reason }
    }
}

/// The kinds of malformed input.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Not valid UTF-8.
    InvalidUtf8,
    /// The root value is not an object (array, scalar, or nothing).
    NotAnObject,
    /// Bad syntax (unbalanced brackets, missing ':' or ',', bad literal or number, bad escape,
    /// control character in a string, unterminated string...).
    Syntax,
    /// Something after the root object other than whitespace.
    TrailingCharacters,
    /// Nesting deeper than the depth limit.
    TooDeep,
    /// The line is 4 GiB or longer (offsets are kept in 32 bits).
    TooLong,
}

impl Reason {
    /// A short human description.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::InvalidUtf8 => "invalid UTF-8",
            Reason::NotAnObject => "the line is not a JSON object",
            Reason::Syntax => "invalid JSON syntax",
            Reason::TrailingCharacters => "characters after the end of the object",
            Reason::TooDeep => "nesting too deep",
            Reason::TooLong => "line too long (4 GiB or more)",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.offset)
    }
}

impl std::error::Error for Malformed {}

/// A set of top-level keys: with [`Parser::parse_until`] the scanner stops indexing once it has
/// seen all of them (the rest of the line is still validated).
#[derive(Clone, Debug, Default)]
pub struct KeySet {
    keys: Vec<String>,
    /// Each key's first 8 bytes (fewer: zero-filled), little-endian: most keys of a line that
    /// pass the length check are told apart by this one compare ([`KeySet::position_in`]).
    heads: Vec<u64>,
    /// Bit `min(n, 63)` is set when some key is `n` bytes long: most keys of a line are told
    /// apart from the wanted ones by their length alone.
    lengths: u64,
    /// Tells this set (and its clones) from every other one made in this process, so that
    /// [`Document::wanted`] answers only for the set the document was scanned with (0: the
    /// empty default set).
    id: u64,
}

impl KeySet {
    /// The set of these keys (unescaped text).
    pub fn new<I: IntoIterator<Item = S>, S: AsRef<str>>(keys: I) -> KeySet {
        static IDS: AtomicU64 = AtomicU64::new(1);
        let mut set = KeySet {
            id: IDS.fetch_add(1, Ordering::Relaxed),
            ..KeySet::default()
        };
        for key in keys {
            let key = key.as_ref();
            if !set.contains(key) {
                set.keys.push(key.to_owned());
                set.heads.push(head(key.as_bytes()));
                set.lengths |= length_bit(key.len());
            }
        }
        set
    }
    /// Whether `key` (unescaped text) is in the set.
    pub fn contains(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }
    /// Number of distinct keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }
    /// Whether the set is empty (then `parse_until` indexes no member at all).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
    /// The keys, in the order first given.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.keys.iter().map(String::as_str)
    }
    /// Whether a key whose raw text between the quotes is `len` bytes long may be in the set
    /// (an escaped key may be longer raw than its text: always maybe).
    #[inline(always)]
    pub(crate) fn may_hold(&self, len: usize, escaped: bool) -> bool {
        escaped || self.lengths & length_bit(len) != 0
    }
    /// The position of the key whose raw (possibly escaped) text between the quotes is `raw`.
    pub(crate) fn position(&self, raw: &[u8], escaped: bool) -> Option<usize> {
        if escaped {
            let raw = std::str::from_utf8(raw).ok()?;
            self.keys.iter().position(|k| unescape::eq(raw, k))
        } else {
            self.keys.iter().position(|k| k.as_bytes() == raw)
        }
    }
    /// [`KeySet::position`] of the unescaped key `line[start..end]`, its first 8 bytes
    /// compared as one word read from the line when the line has them (it always does after
    /// a key of 4 bytes or more: `":` and a value and `}` follow), so that a key of the wanted
    /// length that is not wanted costs one compare instead of a call to `memcmp`.
    #[inline]
    pub(crate) fn position_in(&self, line: &[u8], start: usize, end: usize) -> Option<usize> {
        let raw = line.get(start..end)?;
        let word = match line.get(start..start + 8) {
            Some(w) => u64::from_le_bytes(w.try_into().ok()?),
            None => return self.position(raw, false),
        };
        let len = raw.len();
        let word = if len >= 8 {
            word
        } else {
            word & ((1u64 << (8 * len)) - 1)
        };
        self.heads.iter().zip(&self.keys).position(|(&h, k)| {
            h == word && k.len() == len && k.as_bytes().get(8..) == raw.get(8..)
        })
    }
}

/// The first 8 bytes of `bytes` (fewer: zero-filled) as a little-endian word.
fn head(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    for (to, from) in word.iter_mut().zip(bytes) {
        *to = *from;
    }
    u64::from_le_bytes(word)
}

/// The bit of [`KeySet::lengths`] for keys of `len` bytes.
#[inline(always)]
fn length_bit(len: usize) -> u64 {
    1 << len.min(63)
}

/// What a [`Parser::parse_prefix`] read: the line's length and where its rest begins if it
/// stopped early (`None`: it read and validated the whole line). The bytes read are kept
/// beside it ([`Parser`]'s `prefix`).
type Prefix = (usize, Option<(usize, resume::At)>);

/// Reusable scanning state: one per worker; its buffers are kept from one line to the next.
#[derive(Debug)]
pub struct Parser {
    scanner: Scanner,
    engine: Engine,
    nodes: Vec<Node>,
    stack: Vec<Frame>,
    /// For each key of the last scan's [`KeySet`] (when one of at most 64 keys was given):
    /// the tape index of its first top-level key node, or [`state::NOT_FOUND`]. Empty after a
    /// scan without one.
    found: Vec<u32>,
    /// The [`KeySet::id`] of that set (0 when `found` is empty).
    found_set: u64,
    /// After a [`Parser::parse_prefix`]: what it read.
    deferred: Option<Prefix>,
    /// And the bytes it read, so that [`Parser::finish`] goes on only with a line that
    /// starts with them (a reused buffer may hold another line of the same length).
    prefix: Vec<u8>,
    /// The shapes of the rests of lines validated so far (AVX2 only; see `shape.rs`).
    shapes: Option<Box<shape::Shapes>>,
}

impl Parser {
    /// A parser that uses `scanner`. (`Scanner::Avx2` on a CPU without AVX2 runs the scalar
    /// feeder; [`Parser::scanner`] then says `Scalar`.)
    pub fn new(scanner: Scanner) -> Parser {
        let engine = Engine::new(scanner);
        let scanner = match engine {
            Engine::Scalar => Scanner::Scalar,
            #[cfg(target_arch = "x86_64")]
            Engine::Avx2(_) => Scanner::Avx2,
        };
        let shapes = match scanner {
            Scanner::Scalar => None,
            Scanner::Avx2 => Some(Box::new(shape::Shapes::new())),
        };
        Parser {
            scanner,
            engine,
            nodes: Vec::new(),
            stack: Vec::new(),
            found: Vec::new(),
            found_set: 0,
            deferred: None,
            prefix: Vec::new(),
            shapes,
        }
    }
    /// The scanner in use.
    pub fn scanner(&self) -> Scanner {
        self.scanner
    }
    /// Turn off validation by line shapes (the AVX2 scanner's default): every line is then
    /// validated by the walk. The results are the same; for measuring and testing.
    #[doc(hidden)]
    pub fn without_shapes(mut self) -> Parser {
        self.shapes = None;
        self
    }
    /// How often the rest of a line was found valid by its shape, validated and its shape
    /// kept, or validated without a shape (see the crate's README): for measuring.
    #[doc(hidden)]
    pub fn shape_counts(&self) -> [u64; 3] {
        self.shapes.as_ref().map_or([0; 3], |s| s.counts)
    }
    /// Validate `line` (UTF-8 and JSON syntax) and index its structure. The root must be an
    /// object; whitespace around it is allowed. `line` excludes the line terminator.
    pub fn parse<'a>(&'a mut self, line: &'a [u8]) -> Result<Document<'a>, Malformed> {
        self.run(line, None, false)
    }
    /// Like [`Parser::parse`], but stops building the index once every key in `want` has been
    /// seen at the top level; the rest is validated only. Before that, a top-level member
    /// whose key is not in `want` (or repeats one already seen: the first occurrence wins) is
    /// left off the index too, unless its value is an object or array. So lookups of
    /// top-level keys not in `want` may miss: pass every top-level key the query reads.
    pub fn parse_until<'a>(
        &'a mut self,
        line: &'a [u8],
        want: &KeySet,
    ) -> Result<Document<'a>, Malformed> {
        self.run(line, Some(want), false)
    }
    /// Like [`Parser::parse_until`], but stops as soon as every key in `want` has been read at
    /// the top level, **without validating the rest of the line**. The values of those keys
    /// are complete and checked, so lookups of them answer as after `parse_until`; but the
    /// line is not yet known to be a well-formed object (nor the rest of it to be UTF-8), and
    /// `root().raw()` and `text()` cover only the part read. It lets a caller rule a line out
    /// from those values alone; [`Parser::finish`] then validates the rest when the line is
    /// kept. (When the keys are not all there, the whole line was read and validated
    /// already, and `finish` only hands the document back.)
    pub fn parse_prefix<'a>(
        &'a mut self,
        line: &'a [u8],
        want: &KeySet,
    ) -> Result<Document<'a>, Malformed> {
        self.run(line, Some(want), true)
    }
    /// After [`Parser::parse_prefix`] of this same line (the same bytes: the same slice, or a
    /// copy): validate the rest of it, and give the document that [`Parser::parse_until`]
    /// would have given, or its error (the same reason and offset), [`Document::wanted`]
    /// included. After anything else, `line` is parsed completely (and `wanted` cannot
    /// tell); that includes a buffer refilled with another line of the same length, which
    /// is told apart by the bytes `parse_prefix` read.
    pub fn finish<'a>(&'a mut self, line: &'a [u8]) -> Result<Document<'a>, Malformed> {
        let Some((len, at)) = self.deferred.take() else {
            return self.run(line, None, false);
        };
        if line.len() != len || line.get(..self.prefix.len()) != Some(self.prefix.as_slice()) {
            return self.run(line, None, false);
        }
        let text = validate_utf8(line)?;
        let Some(at) = at else {
            // The prefix was the whole line, validated and indexed: its document stands.
            return Ok(self.document(text));
        };
        let mut machine =
            Machine::resume(line, &mut self.nodes, &mut self.stack, &mut self.found, at)
                .shapes(self.shapes.as_deref_mut());
        self.engine.scan(&mut machine)?;
        Ok(self.document(text))
    }

    /// The document of the line just scanned (its tape checked first in tests, debug builds
    /// and with the `checked` feature).
    fn document<'a>(&'a self, text: &'a str) -> Document<'a> {
        #[cfg(any(test, debug_assertions, feature = "checked"))]
        state::check_tape(&self.nodes, text.len());
        Document {
            line: text,
            nodes: &self.nodes,
            found: &self.found,
            found_set: self.found_set,
        }
    }

    fn run<'a>(
        &'a mut self,
        line: &'a [u8],
        want: Option<&KeySet>,
        defer: bool,
    ) -> Result<Document<'a>, Malformed> {
        self.deferred = None;
        self.found_set = want.filter(|w| state::tracks(w)).map_or(0, |w| w.id);
        if line.len() >= u32::MAX as usize {
            return Err(Malformed::new(u32::MAX as usize, Reason::TooLong));
        }
        let mut machine = Machine::new(
            line,
            &mut self.nodes,
            &mut self.stack,
            &mut self.found,
            want,
        )
        .defer(defer)
        .shapes(self.shapes.as_deref_mut());
        if !defer {
            let text = validate_utf8(line)?;
            self.engine.scan(&mut machine)?;
            return Ok(self.document(text));
        }
        // A deferred scan checks the UTF-8 of only the part it read: the machine works on
        // bytes, so it runs first. A UTF-8 error in the part read still comes before any
        // syntax error, as in `parse_until`.
        let scanned = self.engine.scan(&mut machine);
        let deferred = machine.deferred;
        let read = match (scanned, deferred) {
            (Err(e), _) => {
                validate_utf8(line)?;
                return Err(e);
            }
            // The part read ends just after an ASCII byte, so on a character boundary.
            (Ok(()), Some((q, _))) => line.get(..q).unwrap_or(line),
            (Ok(()), None) => line,
        };
        let text = validate_utf8(read)?;
        self.prefix.clear();
        self.prefix.extend_from_slice(read);
        self.deferred = Some((line.len(), deferred));
        Ok(self.document(text))
    }
}

/// The line as text, or where its UTF-8 goes wrong.
fn validate_utf8(line: &[u8]) -> Result<&str, Malformed> {
    match simdutf8::basic::from_utf8(line) {
        Ok(text) => Ok(text),
        Err(_) => Err(utf8_error(line)),
    }
}

#[cold]
#[inline(never)]
fn utf8_error(line: &[u8]) -> Malformed {
    let offset = match simdutf8::compat::from_utf8(line) {
        Ok(_) => 0,
        Err(e) => e.valid_up_to(),
    };
    Malformed::new(offset, Reason::InvalidUtf8)
}

/// One scanned line.
#[derive(Clone, Copy, Debug)]
pub struct Document<'a> {
    line: &'a str,
    nodes: &'a [Node],
    /// See [`Parser`]'s `found` and `found_set`.
    found: &'a [u32],
    found_set: u64,
}

impl<'a> Document<'a> {
    /// The root object.
    pub fn root(&self) -> Object<'a> {
        Object {
            at: At::new(self.line, self.nodes, 0),
        }
    }
    /// The whole line as text (after [`Parser::parse_prefix`] stopped early: the part read).
    pub fn text(&self) -> &'a str {
        self.line
    }
    /// The value of key `i` of `set` (in the order [`KeySet::iter`] gives), when this
    /// document was scanned with `set` ([`Parser::parse_until`], [`Parser::parse_prefix`] and
    /// the [`Parser::finish`] after it): what `root().get(key)` answers, found without walking
    /// the members or comparing keys, since the scanner noted where each wanted key first
    /// appeared. `None` when the document cannot tell: scanned without `set` (or a clone of
    /// it), with a set of more than 64 keys, or `i` out of range; then ask `root().get`.
    #[inline]
    pub fn wanted(&self, set: &KeySet, i: usize) -> Option<Option<Value<'a>>> {
        if set.id != self.found_set {
            return None;
        }
        let &node = self.found.get(i)?;
        if node == state::NOT_FOUND {
            return Some(None);
        }
        // The key's value node follows it.
        Some(Some(
            At::new(self.line, self.nodes, node as usize + 1).value(),
        ))
    }
    /// How many nodes (keys and values) were indexed: a measure of the work done, used to
    /// test that [`Parser::parse_until`] stops early.
    pub fn indexed(&self) -> usize {
        self.nodes.len()
    }
    /// The tape itself, for a caller that walks every node of a whole line (after
    /// [`Parser::parse`]) and wants its structure as data: one [`Token`] per key and per value
    /// in document order, the root object first. A key is followed by its value; a
    /// container's members or elements follow it up to its [`Token::next`].
    #[inline]
    pub fn tokens(&self) -> impl ExactSizeIterator<Item = Token> + 'a {
        self.nodes.iter().map(Token::of)
    }
    /// Token `i` of [`Document::tokens`], if there is one.
    #[inline]
    pub fn token(&self, i: usize) -> Option<Token> {
        self.nodes.get(i).map(Token::of)
    }
}

/// One node of a document's tape ([`Document::tokens`]): plain data about one key or value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What the node is.
    pub kind: TokenKind,
    /// Its JSON text is `text()[start..end]` (keys and strings with their quotes).
    pub start: u32,
    /// See `start`.
    pub end: u32,
    /// The index of the node after this one's subtree: `index + 1` for a key or a scalar,
    /// after the last member or element for a container.
    pub next: u32,
    /// For a key or a string: whether its text has a backslash escape.
    pub escaped: bool,
}

impl Token {
    #[inline]
    fn of(n: &Node) -> Token {
        Token {
            kind: n.kind,
            start: n.start,
            end: n.end,
            next: n.next,
            escaped: n.escaped,
        }
    }
}

/// A position in a document's tape: the line, the nodes and one node's index.
#[derive(Clone, Copy)]
struct At<'a> {
    line: &'a str,
    nodes: &'a [Node],
    index: usize,
}

impl fmt::Debug for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.raw())
    }
}

impl<'a> At<'a> {
    #[inline]
    fn new(line: &'a str, nodes: &'a [Node], index: usize) -> At<'a> {
        At { line, nodes, index }
    }
    #[inline]
    fn node(&self) -> Node {
        self.nodes.get(self.index).copied().unwrap_or(Node::EMPTY)
    }
    #[inline]
    fn raw(&self) -> &'a str {
        let n = self.node();
        self.line
            .get(n.start as usize..n.end as usize)
            .unwrap_or("")
    }
    /// The index after the subtree of this node.
    fn next(&self) -> usize {
        self.node().next as usize
    }
    fn at(&self, index: usize) -> At<'a> {
        At::new(self.line, self.nodes, index)
    }
    #[inline]
    fn value(&self) -> Value<'a> {
        let node = self.node();
        match node.kind {
            Kind::Null => Value::Null,
            Kind::True => Value::Bool(true),
            Kind::False => Value::Bool(false),
            Kind::Number => Value::Number(Number { raw: self.raw() }),
            Kind::String | Kind::Key => Value::String(self.string()),
            Kind::Array => Value::Array(Array { at: *self }),
            Kind::Object => Value::Object(Object { at: *self }),
        }
    }
    fn string(&self) -> Str<'a> {
        Str {
            quoted: self.raw(),
            escaped: self.node().escaped,
        }
    }
    /// Whether this key node's text equals `key` after unescaping.
    #[inline]
    fn key_is(&self, key: &str) -> bool {
        let n = self.node();
        // Between the quotes.
        let Some(raw) = self
            .line
            .get(n.start as usize + 1..(n.end as usize).saturating_sub(1))
        else {
            return false;
        };
        if n.escaped {
            unescape::eq(raw, key)
        } else {
            raw.as_bytes() == key.as_bytes()
        }
    }
}

/// A JSON value, decoded only as far as asked.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number, kept as its text.
    Number(Number<'a>),
    /// A string, kept as its raw (escaped) text.
    String(Str<'a>),
    /// An array.
    Array(Array<'a>),
    /// An object.
    Object(Object<'a>),
}

impl<'a> Value<'a> {
    /// The value's exact JSON text as in the input (strings with their quotes).
    pub fn raw(&self) -> &'a str {
        match self {
            Value::Null => "null",
            Value::Bool(true) => "true",
            Value::Bool(false) => "false",
            Value::Number(n) => n.raw,
            Value::String(s) => s.quoted,
            Value::Array(a) => a.raw(),
            Value::Object(o) => o.raw(),
        }
    }
}

/// A JSON number as written.
#[derive(Clone, Copy, Debug)]
pub struct Number<'a> {
    raw: &'a str,
}

impl<'a> Number<'a> {
    /// The number's text, e.g. `-1.50e3`.
    pub fn raw(&self) -> &'a str {
        self.raw
    }
    /// The exact value, or `None` when a Decimal cannot hold it (too many digits or out of range).
    ///
    /// The scale is the number of digits after the point minus the exponent (so `1.50` has scale
    /// 2, as `Decimal::from_str` gives), clamped to 0..=28. A number whose written scale is above
    /// 28 but whose value fits is still returned exactly, with trailing zeros dropped:
    /// `1.000000000000000000000000000000` (30 zeros) gives `1` with scale 28. `1e-29` and
    /// 30-significant-digit numbers give `None`.
    ///
    /// A plain number, `-?[0-9]+(\.[0-9]+)?` of at most 18 characters after the sign (what
    /// log numbers almost always are), is read as one `i64` mantissa ([`decimal_parts`]);
    /// only others take the general path, with the same answers.
    pub fn to_decimal(&self) -> Option<Decimal> {
        number::to_decimal(self.raw.as_bytes())
    }
    /// The value as the nearest f64 (always defined for valid JSON numbers; may be infinite).
    pub fn to_f64(&self) -> f64 {
        number::to_f64(self.raw)
    }
}

/// A JSON string as written.
#[derive(Clone, Copy, Debug)]
pub struct Str<'a> {
    /// The string with its quotes.
    quoted: &'a str,
    escaped: bool,
}

impl<'a> Str<'a> {
    /// The text between the quotes, escapes kept.
    pub fn raw(&self) -> &'a str {
        let end = self.quoted.len().saturating_sub(1);
        self.quoted.get(1..end).unwrap_or("")
    }
    /// Whether `raw` contains a backslash escape.
    pub fn has_escapes(&self) -> bool {
        self.escaped
    }
    /// The string's value: borrowed when there is nothing to unescape ([`unescape()`]; the
    /// scanner let only valid escapes through).
    pub fn unescaped(&self) -> Cow<'a, str> {
        if self.escaped {
            unescape::unescape(self.raw())
        } else {
            Cow::Borrowed(self.raw())
        }
    }
}

/// A JSON object inside a scanned document.
#[derive(Clone, Copy, Debug)]
pub struct Object<'a> {
    at: At<'a>,
}

impl<'a> Object<'a> {
    /// The value of the first member named `key` (compared after unescaping).
    ///
    /// Walks the members of this object only, jumping over nested values.
    #[inline]
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        let end = self.at.next();
        let mut i = self.at.index + 1;
        while i < end {
            let k = self.at.at(i);
            let v = self.at.at(i + 1);
            if k.key_is(key) {
                return Some(v.value());
            }
            // `max` keeps the walk finite even if a link were wrong (they never are).
            i = v.next().max(i + 2);
        }
        None
    }
    /// Number of members (duplicates counted).
    pub fn len(&self) -> usize {
        self.iter().count()
    }
    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.at.next() <= self.at.index + 1
    }
    /// The members in order (duplicates included).
    pub fn iter(&self) -> impl Iterator<Item = (Str<'a>, Value<'a>)> + 'a {
        let at = self.at;
        let end = at.next();
        let mut i = at.index + 1;
        std::iter::from_fn(move || {
            if i >= end {
                return None;
            }
            let k = at.at(i);
            let v = at.at(i + 1);
            i = v.next().max(i + 2);
            Some((k.string(), v.value()))
        })
    }
    /// Call `f` with each member in order (duplicates included), as [`Object::iter`] gives
    /// them, for walks over every member: no pair wrapped in an `Option` per member.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(Str<'a>, Value<'a>)) {
        let at = self.at;
        let end = at.next();
        let mut i = at.index + 1;
        while i < end {
            let v = at.at(i + 1);
            f(at.at(i).string(), v.value());
            i = v.next().max(i + 2);
        }
    }
    /// The object's exact JSON text.
    pub fn raw(&self) -> &'a str {
        self.at.raw()
    }
}

/// A JSON array inside a scanned document.
#[derive(Clone, Copy, Debug)]
pub struct Array<'a> {
    at: At<'a>,
}

impl<'a> Array<'a> {
    /// Element `i`, if present.
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        self.iter().nth(i)
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.iter().count()
    }
    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.at.next() <= self.at.index + 1
    }
    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = Value<'a>> + 'a {
        let at = self.at;
        let end = at.next();
        let mut i = at.index + 1;
        std::iter::from_fn(move || {
            if i >= end {
                return None;
            }
            let v = at.at(i);
            i = v.next().max(i + 1);
            Some(v.value())
        })
    }
    /// The array's exact JSON text.
    pub fn raw(&self) -> &'a str {
        self.at.raw()
    }
}

#[cfg(test)]
mod tests;
