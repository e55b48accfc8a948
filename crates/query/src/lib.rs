//! ndq-query: the query language of `shared/QUERY.md`: lexer → parser → plan → eval.
//!
//! API CONTRACT (skeleton written by the lead; the query owner fills in the bodies, may add
//! items and modules, but keeps these names and meanings so the CLI and `ndq bench` can build
//! on them).
//!
//! ```text
//! let plan = Plan::compile("select Message where Elapsed > 200")?;   // QueryError renders caret
//! // per rayon worker, per chunk:
//! let mut w = plan.worker();
//! let mut acc = plan.accumulator();
//! for each line: let doc = parser.parse_until(line, plan.key_set())?;
//!     match plan.kind() {
//!         Kind::Lines => if w.matches(doc.root()) { write the line unchanged }
//!         Kind::Rows  => if w.matches(..) { w.project(.., &mut row); format row }
//!         Kind::Collect => w.accumulate(.., seq, &mut acc),   // applies `where` itself
//!     }
//! // after the run, chunk accumulators merged in input order:
//! acc_first.merge(acc_second); let rows = plan.finish(acc_first);
//! ```
//! The document type is generic (`D: Doc<'a>`): ndq_scan's lazy `Object` and, for the
//! `--engine serde` baseline and differential tests, `&serde_json::Value`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::borrow::Cow;
use std::fmt;

pub use rust_decimal::Decimal;

/// One output value. Values taken from the input keep their exact JSON text.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// null (also an absent property).
    Null,
    /// A boolean.
    Bool(bool),
    /// A number from the input, as written (`1.50`).
    RawNumber(Cow<'a, str>),
    /// A computed number (written exactly, no exponent).
    Number(Decimal),
    /// A computed number outside Decimal's range.
    Float(f64),
    /// A string from the input: the raw text between the quotes, escapes kept.
    RawString(Cow<'a, str>),
    /// A computed (unescaped) string.
    String(Cow<'a, str>),
    /// An array or object from the input, as its exact JSON text.
    RawJson(Cow<'a, str>),
}

impl Value<'_> {
    /// The same value owning its text.
    pub fn into_owned(self) -> Value<'static> {
        todo!()
    }
}

/// A query that failed to parse or plan. `Display` renders the query, a caret under the
/// column and what was expected / found.
#[derive(Clone, Debug)]
pub struct QueryError {
    _todo: (),
}

impl QueryError {
    /// 1-based column (in characters) of the offending part.
    pub fn column(&self) -> usize {
        todo!()
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!()
    }
}

impl std::error::Error for QueryError {}

/// How the CLI drives a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `select *` or no select: each matching line is written unchanged.
    Lines,
    /// A projection without `order by`: each matching line gives one row, streamed in input order.
    Rows,
    /// Aggregation and/or `order by`: rows exist only after every line was accumulated.
    Collect,
}

/// A compiled query.
#[derive(Debug)]
pub struct Plan {
    _todo: (),
}

impl Plan {
    /// Parse and plan `query`.
    pub fn compile(query: &str) -> Result<Plan, QueryError> {
        todo!()
    }
    /// How to drive it.
    pub fn kind(&self) -> Kind {
        todo!()
    }
    /// Output column names, in select order (empty for [`Kind::Lines`]).
    pub fn columns(&self) -> &[String] {
        todo!()
    }
    /// `limit N`, if any.
    pub fn limit(&self) -> Option<u64> {
        todo!()
    }
    /// The top-level keys the query reads (for `Parser::parse_until`).
    pub fn key_set(&self) -> &ndq_scan::KeySet {
        todo!()
    }
    /// Per-worker evaluation state (scratch buffers; compiled regexes are shared).
    pub fn worker(&self) -> Worker<'_> {
        todo!()
    }
    /// An empty partial result for [`Kind::Collect`].
    pub fn accumulator(&self) -> Accumulator {
        todo!()
    }
    /// The final rows of a [`Kind::Collect`] query from the accumulators merged in input order:
    /// grouped, sorted, limited.
    pub fn finish(&self, acc: Accumulator) -> Vec<Vec<Value<'static>>> {
        todo!()
    }
}

/// Per-worker evaluator.
#[derive(Debug)]
pub struct Worker<'p> {
    _plan: &'p Plan,
}

/// Partial results of a [`Kind::Collect`] query over some lines; mergeable.
#[derive(Debug, Default)]
pub struct Accumulator {
    _todo: (),
}

impl Accumulator {
    /// Fold in `later`, which covers lines that come after all of `self`'s.
    pub fn merge(&mut self, later: Accumulator) {
        todo!()
    }
}
