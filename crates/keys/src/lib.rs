//! ndq-keys: every property path of a set of NDJSON lines, with the JSON types seen at it,
//! how many lines have it, its distinct values and an example: what `ndq keys` lists, and
//! what a schema inference needs.
//!
//! - A [`Collector`] reads lines one at a time ([`Collector::line`]) with the lazy scanner
//!   (`ndq-scan`); a line that is not a JSON object is a [`Rejection`] and adds nothing.
//! - The statistics gathered are a [`Paths`]. Parts gathered apart (one per chunk or thread)
//!   fold into one with [`Paths::merge`] (or [`Collector::merge`]), later parts after
//!   earlier ones: the result is the same for any split of the input, as long as the parts
//!   are merged in input order (which decides the order of the paths and the examples).
//! - [`Paths::finish`] (or [`Collector::finish`]) gives one [`PathStats`] per path, in
//!   output order: depth first, each path right after its parent, siblings in the order first
//!   seen, an array's `[]` before an object's keys.
//!
//! What counts, for a path `P` (the query language's rules, so that `ndq keys` agrees with
//! `select count(P)`):
//! - a path not under an array (`a.b`) is in a line when the line's first `a` is an object
//!   with a `b` (the first one counts when a key repeats); the lines where it is not `null`
//!   are what `count(a.b)` counts;
//! - `a[]` is in a line when `a` is an array with at least one element, `a[].b` when some
//!   element of it is an object with a `b`; such a line counts once however many elements
//!   have it (for each type, once per line with an element of that type);
//! - distinct values are the scalar values that are not null (strings compared after
//!   unescaping, numbers by value as the query language holds them: `1.0` and `1` are one
//!   value, and so are `1e400` and `2e400`), counted exactly up to
//!   [`EXACT_LIMIT`] and estimated past it (HyperLogLog, standard error about 1.6%, the
//!   estimate kept above the limit and, for a path not under an array, at most its lines
//!   with a value); the example is the first of them, as its JSON text.
//!
//! Most lines take a fast walk: a line whose structure (its tokens' kinds and nesting and its
//! keys) was seen before adds what the first line of that structure added, recorded once,
//! plus its own values (`template.rs` has the details). [`Walk::Plain`] walks every line in full, the
//! reference the fast walk is tested against.
//!
//! ```
//! use ndq_keys::{Collector, JsonType};
//!
//! let mut keys = Collector::new();
//! keys.line(br#"{"level":"info","took":12,"tags":["a","b"]}"#)?;
//! keys.line(br#"{"level":"warn","took":null,"user":{"id":7}}"#)?;
//! assert!(keys.line(b"not json").is_err());
//! assert_eq!(keys.lines(), 2);
//!
//! let paths = keys.finish();
//! let names: Vec<&str> = paths.iter().map(|p| p.path.as_str()).collect();
//! assert_eq!(names, ["level", "took", "tags", "tags[]", "user", "user.id"]);
//! let took = &paths[1];
//! assert_eq!((took.lines, took.count(JsonType::Number), took.count(JsonType::Null)), (2, 1, 1));
//! assert_eq!(paths[0].distinct.map(|d| (d.count, d.exact)), Some((2, true)));
//! assert_eq!(paths[0].example.as_deref(), Some("\"info\""));
//! # Ok::<(), ndq_keys::Rejection>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod distinct;
mod glue;
mod paths;
mod template;

use std::fmt;

use ndq_scan::{Malformed, Parser, Scanner};

pub use distinct::EXACT_LIMIT;
pub use paths::{Paths, Step, is_identifier};
use template::Templates;

/// A JSON type, as [`PathStats::types`] counts them (in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JsonType {
    /// `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    /// Every type, in the order of [`PathStats::types`].
    pub const ALL: [JsonType; 6] = [
        JsonType::Null,
        JsonType::Boolean,
        JsonType::Number,
        JsonType::String,
        JsonType::Array,
        JsonType::Object,
    ];

    /// The type's name: `null`, `boolean`, `number`, `string`, `array`, `object`.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How many distinct values a path has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DistinctCount {
    /// The count (exact, or the estimate).
    pub count: u64,
    /// Whether `count` is exact (at most [`EXACT_LIMIT`] values were seen).
    pub exact: bool,
}

/// One property path and what was seen of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathStats {
    /// The path in the query language's syntax: `a.b`, `a[]`, `Headers['User-Agent']`.
    pub path: String,
    /// The same path as steps from the line's object.
    pub steps: Vec<Step>,
    /// Lines that have the path.
    pub lines: u64,
    /// Lines that have it with a value that is not `null` (under an array: some element
    /// not null): what the query language's `count(PATH)` counts.
    pub non_null: u64,
    /// Lines that have it with each type, indexed as [`JsonType::ALL`].
    pub types: [u64; 6],
    /// The distinct scalar values that are not null; `None` when there were none (a path
    /// only ever null, an array or an object).
    pub distinct: Option<DistinctCount>,
    /// The first scalar value that is not null, as its JSON text (a string with its quotes
    /// and escapes as written).
    pub example: Option<String>,
}

impl PathStats {
    /// Lines that have the path with type `t`.
    pub fn count(&self, t: JsonType) -> u64 {
        self.types[t as usize]
    }

    /// The types seen, with their line counts, in the order of [`JsonType::ALL`].
    pub fn types_seen(&self) -> impl Iterator<Item = (JsonType, u64)> + '_ {
        JsonType::ALL
            .into_iter()
            .zip(self.types)
            .filter(|&(_, n)| n > 0)
    }
}

/// Why a line adds nothing: it is not a JSON object (the scanner's verdict).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    verdict: Malformed,
}

impl Rejection {
    /// The scanner's verdict: where in the line and what is wrong.
    pub fn verdict(&self) -> &Malformed {
        &self.verdict
    }

    /// The verdict, owned.
    pub fn into_verdict(self) -> Malformed {
        self.verdict
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.verdict.fmt(f)
    }
}

impl std::error::Error for Rejection {}

/// How lines are walked into the statistics; both give the same results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Walk {
    /// By line templates where a line's structure was seen before.
    #[default]
    Templates,
    /// Every line in full: the reference.
    Plain,
}

/// Reads lines into [`Paths`]: the scanner, the line templates and the statistics so far.
///
/// One per thread: it keeps its buffers and templates from line to line.
#[derive(Debug)]
pub struct Collector {
    parser: Parser,
    templates: Option<Templates>,
    paths: Paths,
}

impl Default for Collector {
    fn default() -> Collector {
        Collector::new()
    }
}

impl Collector {
    /// A collector with the fastest scanner of this CPU and the fast walk.
    pub fn new() -> Collector {
        Collector::with(Scanner::detect(), Walk::Templates)
    }

    /// A collector with a pinned scanner and walk (for tests and measurements).
    pub fn with(scanner: Scanner, walk: Walk) -> Collector {
        Collector {
            parser: Parser::new(scanner),
            templates: (walk == Walk::Templates).then(Templates::default),
            paths: Paths::default(),
        }
    }

    /// Add one line (no line terminator) to the collector's statistics.
    pub fn line(&mut self, line: &[u8]) -> Result<(), Rejection> {
        let mut paths = std::mem::take(&mut self.paths);
        let result = self.line_into(&mut paths, line);
        self.paths = paths;
        result
    }

    /// Add one line to `paths` instead (a part kept by the caller, e.g. one per chunk),
    /// with this collector's scanner and templates.
    pub fn line_into(&mut self, paths: &mut Paths, line: &[u8]) -> Result<(), Rejection> {
        let read = match &mut self.templates {
            Some(t) => t.read(&mut self.parser, paths, line),
            None => self.parser.parse(line).map(|doc| paths.line(doc.root())),
        };
        read.map_err(|verdict| Rejection { verdict })
    }

    /// Lines added so far (JSON objects).
    pub fn lines(&self) -> u64 {
        self.paths.lines()
    }

    /// The statistics so far, leaving the collector empty (its templates kept).
    pub fn take(&mut self) -> Paths {
        std::mem::take(&mut self.paths)
    }

    /// Fold in what `later` collected (from lines after this one's).
    pub fn merge(&mut self, later: Collector) {
        self.paths.merge(later.paths);
    }

    /// One [`PathStats`] per path, in output order.
    pub fn finish(self) -> Vec<PathStats> {
        self.paths.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: &[&str] = &[
        r#"{"a":1,"b":{"c":"x"},"t":["p","q"]}"#,
        r#"{"z":[1,2],"b":{"d":"\u00e9","c":"y"}}"#,
        "[1]",
        r#"{"a":"é","b":{"c":"x","d":"é"},"q":null}"#,
        r#"{"a":1,"b":{"c":"z"},"t":[]}"#,
        r#"{"q":3}"#,
    ];

    fn collect(walk: Walk, lines: &[&str]) -> Collector {
        let mut c = Collector::with(Scanner::scalar(), walk);
        for l in lines {
            let _ = c.line(l.as_bytes());
        }
        c
    }

    #[test]
    fn collectors_merged_in_order_equal_one_collector() {
        let whole = collect(Walk::Plain, LINES).finish();
        for walk in [Walk::Templates, Walk::Plain] {
            assert_eq!(collect(walk, LINES).finish(), whole);
            for cut in 0..=LINES.len() {
                let mut first = collect(walk, &LINES[..cut]);
                first.merge(collect(walk, &LINES[cut..]));
                assert_eq!(first.lines(), 5);
                assert_eq!(first.finish(), whole, "{walk:?}, cut at {cut}");
            }
        }
        let b_d = whole.iter().find(|p| p.path == "b.d");
        let b_d = b_d.map(|p| (p.distinct, p.example.as_deref(), p.steps.len()));
        let one = Some(DistinctCount {
            count: 1,
            exact: true,
        });
        assert_eq!(b_d, Some((one, Some(r#""\u00e9""#), 2)));
    }

    #[test]
    fn parts_taken_per_chunk_fold_into_the_whole() {
        let whole = collect(Walk::Plain, LINES).finish();
        let mut c = Collector::with(Scanner::detect(), Walk::Templates);
        let mut total = Paths::default();
        for chunk in LINES.chunks(2) {
            let mut part = Paths::default();
            for l in chunk {
                let _ = c.line_into(&mut part, l.as_bytes());
            }
            total.merge(part);
        }
        assert_eq!(c.lines(), 0);
        assert_eq!(total.lines(), 5);
        assert_eq!(total.finish(), whole);
    }

    #[test]
    fn both_walks_reject_the_same_lines_with_the_same_verdict() {
        // Long lines of one structure (so that the scanner's shapes are in play), each
        // spoilt in one way: a trailing comma, a bad escape, a control character, a leading
        // zero, a cut, bytes after the object, invalid UTF-8.
        let good = r#"{"@t":"2026-11-21T00:00:00.0090000Z","Message":"HTTP PUT /api/users responded 200","Elapsed":23.7408,"Ok":true,"Tags":["a","b"],"Parent":null}"#;
        let spoilt: Vec<Vec<u8>> = vec![
            good.replace("null}", "null,}").into_bytes(),
            good.replace("PUT", "P\\qT").into_bytes(),
            good.replace("PUT", "P\tT").into_bytes(),
            good.replace("23.7408", "023.7408").into_bytes(),
            good.as_bytes()[..good.len() - 20].to_vec(),
            format!("{good}x").into_bytes(),
            [good.as_bytes(), b"\xff"].concat(),
            [&good.as_bytes()[..80], b"\xc3", &good.as_bytes()[80..]].concat(),
        ];
        for scanner in [Scanner::scalar(), Scanner::detect()] {
            let mut fast = Collector::with(scanner, Walk::Templates);
            let mut plain = Collector::with(scanner, Walk::Plain);
            for bad in &spoilt {
                for _ in 0..3 {
                    assert_eq!(fast.line(good.as_bytes()), Ok(()));
                    assert_eq!(plain.line(good.as_bytes()), Ok(()));
                }
                let (f, p) = (fast.line(bad), plain.line(bad));
                assert!(p.is_err(), "{}", String::from_utf8_lossy(bad));
                assert_eq!(f, p, "{scanner:?}: {}", String::from_utf8_lossy(bad));
            }
            assert_eq!(fast.finish(), plain.finish());
        }
    }

    /// Lines of known glue spoilt one byte at a time (a byte replaced by one the grammar
    /// cares about, dropped, or doubled), among good lines: the fast walk, which validates
    /// a matched line itself, accepts and rejects exactly the lines the plain walk does,
    /// with the same verdicts, and gives the same statistics.
    #[test]
    fn spoilt_lines_of_known_glue_get_the_scanners_verdict() {
        const BYTES: &[u8] = b"\"\\\x00\x1f\x7f 0123456789.eE+-tfnul{}[],:x\xc3\xa9\xff";
        let data = ndq_gen::generate(5, 300_000);
        let good: Vec<&[u8]> = data
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for scanner in [Scanner::scalar(), Scanner::detect()] {
            let mut fast = Collector::with(scanner, Walk::Templates);
            let mut plain = Collector::with(scanner, Walk::Plain);
            let (mut rejected, mut accepted) = (0, 0);
            for round in 0..6000 {
                let line = good[round % good.len()];
                let mut bad = line.to_vec();
                let at = next(bad.len());
                match next(3) {
                    0 => bad[at] = BYTES[next(BYTES.len())],
                    1 => {
                        bad.remove(at);
                    }
                    _ => bad.insert(at, bad[at]),
                }
                for l in [line, &bad[..]] {
                    let (f, p) = (fast.line(l), plain.line(l));
                    assert_eq!(f, p, "{scanner:?}: {}", String::from_utf8_lossy(l));
                    if l == &bad[..] {
                        if p.is_err() {
                            rejected += 1;
                        } else {
                            accepted += 1;
                        }
                    }
                }
            }
            assert!(rejected > 1000 && accepted > 1000, "{rejected} {accepted}");
            assert_eq!(fast.finish(), plain.finish());
        }
    }

    #[test]
    fn a_line_that_is_not_an_object_is_rejected_and_adds_nothing() {
        let mut c = Collector::new();
        let err = c.line(b"{\"a\":1,}").err();
        assert_eq!(err.map(|e| e.verdict().offset), Some(7));
        assert!(c.line(b"[1,2]").is_err());
        assert_eq!(c.lines(), 0);
        assert!(c.take().finish().is_empty());
    }
}
