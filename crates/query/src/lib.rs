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

mod agg;
mod doc;
mod error;
mod eval;
mod func;
mod lex;
mod parse;
mod plan;
mod value;

#[cfg(test)]
mod difftest;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

pub use rust_decimal::Decimal;

pub use agg::Accumulator;
pub use doc::{Doc, Shape};
pub use error::QueryError;
pub use eval::Worker;
pub use plan::Plan;
pub use value::{format_decimal, unescape_json_str};

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
        let own = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::RawNumber(n) => Value::RawNumber(own(n)),
            Value::Number(d) => Value::Number(d),
            Value::Float(f) => Value::Float(f),
            Value::RawString(s) => Value::RawString(own(s)),
            Value::String(s) => Value::String(own(s)),
            Value::RawJson(j) => Value::RawJson(own(j)),
        }
    }
}

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
