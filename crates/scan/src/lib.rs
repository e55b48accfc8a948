//! ndq-scan: a sparse, lazy JSON scanner for one line of NDJSON.
//!
//! API CONTRACT (skeleton written by the lead; the scanner owner fills in the bodies and
//! may add items, but keeps these names and meanings so ndq-query and the CLI can build on them).
//!
//! ```text
//! let scanner = Scanner::detect();            // once per run
//! let mut parser = Parser::new(scanner);      // one per worker, reused line after line
//! let doc = parser.parse(line)?;              // line: &[u8] without its '\n' / "\r\n"
//! let root: Object<'_> = doc.root();
//! match root.get("Elapsed") { Some(Value::Number(n)) => n.to_decimal(), .. }
//! ```
#![deny(missing_docs)]

use std::borrow::Cow;
use std::fmt;

pub use rust_decimal::Decimal;

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
    /// The AVX2 implementation, or `None` when the CPU lacks AVX2.
    pub fn avx2() -> Option<Scanner> {
        todo!()
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

/// Why a line is not a JSON object, and where (byte offset into the line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    /// Byte offset of the first byte found wrong.
    pub offset: usize,
    /// What was wrong.
    pub reason: Reason,
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
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!()
    }
}

impl std::error::Error for Malformed {}

/// A set of top-level keys: with [`Parser::parse_until`] the scanner stops indexing once it has
/// seen all of them (the rest of the line is still validated).
#[derive(Clone, Debug, Default)]
pub struct KeySet {
    _todo: (),
}

impl KeySet {
    /// The set of these keys (unescaped text).
    pub fn new<I: IntoIterator<Item = S>, S: AsRef<str>>(keys: I) -> KeySet {
        todo!()
    }
}

/// Reusable scanning state: one per worker; its buffers are kept from one line to the next.
#[derive(Debug)]
pub struct Parser {
    scanner: Scanner,
}

impl Parser {
    /// A parser that uses `scanner`.
    pub fn new(scanner: Scanner) -> Parser {
        Parser { scanner }
    }
    /// The scanner in use.
    pub fn scanner(&self) -> Scanner {
        self.scanner
    }
    /// Validate `line` (UTF-8 and JSON syntax) and index its structure. The root must be an
    /// object; whitespace around it is allowed. `line` excludes the line terminator.
    pub fn parse<'a>(&'a mut self, line: &'a [u8]) -> Result<Document<'a>, Malformed> {
        todo!()
    }
    /// Like [`Parser::parse`], but stops building the index once every key in `want` has been
    /// seen at the top level; the rest is validated only. Lookups of other top-level keys may
    /// then miss, so pass every top-level key the query reads.
    pub fn parse_until<'a>(
        &'a mut self,
        line: &'a [u8],
        want: &KeySet,
    ) -> Result<Document<'a>, Malformed> {
        todo!()
    }
}

/// One scanned line.
#[derive(Clone, Copy, Debug)]
pub struct Document<'a> {
    line: &'a str,
}

impl<'a> Document<'a> {
    /// The root object.
    pub fn root(&self) -> Object<'a> {
        todo!()
    }
    /// The whole line as text.
    pub fn text(&self) -> &'a str {
        self.line
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
        todo!()
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
    pub fn to_decimal(&self) -> Option<Decimal> {
        todo!()
    }
    /// The value as the nearest f64 (always defined for valid JSON numbers; may be infinite).
    pub fn to_f64(&self) -> f64 {
        todo!()
    }
}

/// A JSON string as written.
#[derive(Clone, Copy, Debug)]
pub struct Str<'a> {
    raw: &'a str,
    escaped: bool,
}

impl<'a> Str<'a> {
    /// The text between the quotes, escapes kept.
    pub fn raw(&self) -> &'a str {
        self.raw
    }
    /// Whether `raw` contains a backslash escape.
    pub fn has_escapes(&self) -> bool {
        self.escaped
    }
    /// The string's value: borrowed when there is nothing to unescape. Lone surrogate escapes
    /// become U+FFFD.
    pub fn unescaped(&self) -> Cow<'a, str> {
        todo!()
    }
}

/// A JSON object inside a scanned document.
#[derive(Clone, Copy, Debug)]
pub struct Object<'a> {
    _todo: &'a (),
}

impl<'a> Object<'a> {
    /// The value of the first member named `key` (compared after unescaping).
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        todo!()
    }
    /// Number of members (duplicates counted).
    pub fn len(&self) -> usize {
        todo!()
    }
    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The members in order (duplicates included).
    pub fn iter(&self) -> impl Iterator<Item = (Str<'a>, Value<'a>)> + 'a {
        std::iter::empty()
    }
    /// The object's exact JSON text.
    pub fn raw(&self) -> &'a str {
        todo!()
    }
}

/// A JSON array inside a scanned document.
#[derive(Clone, Copy, Debug)]
pub struct Array<'a> {
    _todo: &'a (),
}

impl<'a> Array<'a> {
    /// Element `i`, if present.
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        todo!()
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        todo!()
    }
    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = Value<'a>> + 'a {
        std::iter::empty()
    }
    /// The array's exact JSON text.
    pub fn raw(&self) -> &'a str {
        todo!()
    }
}
