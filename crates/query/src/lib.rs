//! ndq-query: the query language of `shared/QUERY.md` — lexer → parser → plan → eval — as a
//! library independent of files and threads, so the CLI, `ndq bench` and the tests share one
//! engine.
//!
//! - [`Plan::compile`] parses and plans a query, or gives a [`QueryError`] whose `Display`
//!   quotes the query with a caret under the offending column.
//! - [`Plan::kind`] says how to drive it: [`Kind::Lines`] (write matching lines unchanged),
//!   [`Kind::Rows`] (one row per matching line, streamed), [`Kind::Collect`] (aggregation or
//!   `order by`: fold lines into an [`Accumulator`], merge accumulators in input order, then
//!   [`Plan::finish`]).
//! - A [`Worker`] (one per thread) evaluates lines, generic over the document type ([`Doc`]):
//!   ndq_scan's lazy `Object`/`Value`, or `&serde_json::Value` for the baseline engine.
//! - [`Plan::key_set`] names the top-level keys the query reads, for
//!   `ndq_scan::Parser::parse_until`; [`Plan::root`] wraps the document scanned with it
//!   ([`Scanned`]) so each path's first key is taken where the scanner noted it
//!   (`ndq_scan::Document::wanted`), without walking the members and comparing keys.
//! - [`Plan::prefilter`] is the escape-aware literal prefilter of `where`: a formula of
//!   literals that every matching line must contain in some spelling, so the CLI can skip
//!   lines without parsing them. JSON may spell a character with an escape (`\/`, `\u0041`),
//!   so a line counts as holding literal `L` when its raw bytes contain `L` *or* an escape
//!   (found by walking the backslashes, each paired with the byte after it) that decodes to a
//!   character of `L`; see [`Prefilter`] for the derivation and the argument.
//! - Output values ([`Value`]) keep the input's text where they come from the input;
//!   computed numbers are exact decimals, see [`format_decimal`].
//!
//! # Reading order
//!
//! Each file refers only to files above it in this list (a test, `layering.rs`, checks that
//! no two files refer to each other, directly or in a loop):
//! `error`, `lex`, `parse` (the AST), `array` (where wildcards may stand, and the folds of
//! array conditions) → `value` (values, numbers, orders), `func`, `fsum`,
//! `dsum`, `doc` (the document trait) → `ir` (compiled expressions) → `prefilter` (literals
//! of `where`) → `plan` (the planner and [`Plan`]) → `eval` (one expression over one
//! document) → `agg` ([`Accumulator`]) → `worker` ([`Worker`]).
//!
//! # Choices where QUERY.md is silent
//!
//! - **Reserved words**: `select from where group order limit and or` never name a property
//!   where an expression is expected; write `['order']`. `not` neither: it starts a negation
//!   (`['not']` reads the property). Any word is fine after a `.`.
//! - **Comments**: `--` to the end of the line, as in SQL, so `select x -- why` is
//!   `select x`; a double minus needs a space or parentheses (`- -x`, `-(-x)`).
//! - **`in`** is `x = a or x = b ...`: true on a match, else null when any comparison was null
//!   (a null item, or an item of another type), else false.
//! - **Sort order across types** (order by, group order): numbers < strings <
//!   booleans < arrays < objects < null (`min`/`max` look only at numbers and strings, as
//!   QUERY.md says, so a number is below any string there); arrays and objects by their canonical JSON text,
//!   which is also how they group and count as distinct (`["a", "b"]` = `["a","b"]`,
//!   `[1]` = `[1.0]`, `{"k":1,"k":2}` = `{"k":1}`: numbers by value, the first of duplicate
//!   keys, keys in sorted order).
//!   `=`/`<` on arrays or objects is null.
//! - **Scale of computed numbers**: `+`/`-` keep the larger operand scale and `*` adds them
//!   (`1.50 * 2` is `3.00`, `1.5 * 0.0` is `0.00`); `sum` has the largest input scale (`1.50 + 1.50` is `3.00`);
//!   `/` and `avg` drop trailing zeros (`10 / 4` is `2.5`, `avg` of 1 and 2 is `1.5`) and
//!   round to 28 decimal places; `-0` prints as `0`. A result too large for a Decimal is
//!   computed in f64 ([`Value::Float`]).
//! - **Numbers beyond f64** (`1e400`, read from the input): held as an infinite f64, so they
//!   compare and sort above every finite number and print as written, but JSON has no
//!   infinity, so arithmetic, `sum` and `avg` that meet one give null, and all such numbers of
//!   one sign are equal (one group, one distinct value). A literal of that size in a query is
//!   the same infinity: it prints as null, `is null` is false, `tostring` gives `'inf'`. Finite numbers a Decimal cannot hold (40 digits) work as f64 throughout; one whose
//!   shortest spelling a Decimal holds (`1e-400` is 0, a 35-digit `1.5000…1` is 1.5) groups,
//!   counts as distinct and rounds as that Decimal, as `=` already compares it.
//! - **Sums are exact whatever the order of the lines and the split between threads**:
//!   Decimals are summed exactly (an integer sum wider than a Decimal's) and rounded once,
//!   to the largest scale of the addends or, past a Decimal's 28 or so digits, half to even
//!   to as many decimals as fit; numbers held as floats are summed exactly and rounded once
//!   (Shewchuk's partials, as Python's `math.fsum`).
//! - **Text from the input is kept**: a projected value, a `group by` key (the first line's
//!   text), `min`/`max`, `percentile` and `coalesce` results keep their raw text (`15e-1`
//!   stays `15e-1`); `tostring(1.50)` is `'1.50'`, of an array its JSON text, of null null.
//! - `tonumber` accepts surrounding whitespace, a leading `+`, `.5` and exponents.
//!   `round(n, d)` with negative `d` rounds to tens, hundreds...; `length` of an object
//!   counts distinct keys.
//! - `match` and `like` accept a non-literal pattern (compiled per line; a regex that does not
//!   compile then gives null). A literal regex that does not compile is a query error.
//! - `order by NAME` and `group by NAME` name a select alias before a property of that name.
//!   A whole number names a select column by position, as in SQL (`order by 2 desc`; `group
//!   by 1`); a position past the select list is a query error. `select * ...
//!   order by` gives [`Kind::Collect`] rows of one [`Value::RawJson`] each (see
//!   [`Plan::lines`]).
//! - Column names collapse whitespace everywhere in the item's text, string literals included.
//! - Expressions nest at most 64 levels (a query error beyond, never a stack overflow):
//!   parentheses, `not`, unary `-`, calls, and each link of a `+ - * / %` chain. Chains of
//!   `and`/`or` become balanced trees (both are associative), so thousands of alternatives
//!   are fine.
//! - **`ilike`** compares the case-folded texts (upper-case then lower-case, so `ß`, `SS` and
//!   `ss` match, then `ß` as `ss`, so the capital `ẞ` matches them too); `_` matches one
//!   character of the folded text, so `'ß' ilike '__'` is true and `'ß' ilike '_'` false
//!   (`like` is not folded: `'ß' like '_'` is true).
//! - **Conditional aggregates**: `filter (where C)` follows an aggregate's `)`; after any
//!   other function it is a query error (`filter` is not a reserved word elsewhere). Two
//!   aggregates that differ only in their filter are two aggregates; `count_if(C) filter
//!   (where D)` counts the lines where both are true. A filter never changes which lines
//!   `where` keeps: over no line the aggregate is that of nothing (`count` 0, `sum` null).
//!   An aggregate inside a filter (or `count_if`) is a query error. The column name is the
//!   whole text, filter included.
//! - **`x in PATH`**: `PATH` is a property path written without parentheses (a name that
//!   is not a keyword, literal or call, or a quoted key); `x in (Tags)` is the one-item
//!   list, `x = Tags`. An empty array gives false even when `x` is null; an element that is
//!   an array or an object compares as null. In an aggregating `select`, `PATH` must be a
//!   `group by` expression, like any property.
//! - **Where a wildcard may stand**: a wildcard path is a *side* of the condition: either
//!   side of a comparison, of `like`/`ilike`, the tested value or an item of `in (...)`,
//!   the operand of `is [not] null`. Arithmetic or a call around it (`Cart[?].Qty * 2 > 3`,
//!   `lower(Tags[?]) = 'x'`) is a query error, as is `x in Tags[?]` and a wildcard in
//!   `group by` or `select` by itself; `not`, `and` and `or` around the whole condition are
//!   fine. The negated forms test each element (`Tags[?] not like 'a%'`: some element does
//!   not match; `Tags[*] is not null`: no element is null).
//! - **Two wildcard paths in one condition** (`Tags[?] = Other[?]`) are a query error
//!   pointing at the second (which pairs would be meant is not clear); so is a second
//!   wildcard in one path (`Cart[?].Tags[*]`) and a wildcard condition inside a side of
//!   another.
//! - A wildcard condition reads each element through the rest of the path; an element
//!   without it is null there (`Cart[?].Qty is null` is true for an element with no
//!   `Qty`). In an aggregating `select` or `order by`, the condition must be a `group by`
//!   expression.
//! - The serde document (`--engine serde`) sees what serde_json keeps: the *last* of
//!   duplicate keys, strings already unescaped (written as computed strings), arrays and
//!   objects re-serialized. Everything else is the same engine.
//!
//! ```
//! use ndq_query::{Kind, Plan, Value};
//!
//! let plan = Plan::compile("select @l, count(*), sum(Elapsed) group by @l").unwrap();
//! assert_eq!(plan.kind(), Kind::Collect);
//! assert_eq!(plan.columns(), ["@l", "count(*)", "sum(Elapsed)"]);
//!
//! let lines = [
//!     r#"{"@l":"Error","Elapsed":0.1}"#,
//!     r#"{"@l":"Info","Elapsed":5}"#,
//!     r#"{"@l":"Error","Elapsed":0.2}"#,
//! ];
//! let docs: Vec<serde_json::Value> =
//!     lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
//!
//! // Two workers over two chunks, merged in input order.
//! let (mut first, mut second) = (plan.accumulator(), plan.accumulator());
//! let mut w = plan.worker();
//! w.accumulate(&docs[0], &mut first);
//! w.accumulate(&docs[1], &mut second);
//! w.accumulate(&docs[2], &mut second);
//! first.merge(second);
//!
//! let rows = plan.finish(first);
//! assert_eq!(rows[0][0], Value::String("Error".into()));
//! assert_eq!(rows[0][1], Value::Number(2.into()));
//! assert_eq!(ndq_query::format_decimal(match &rows[0][2] {
//!     Value::Number(d) => d,
//!     other => panic!("{other:?}"),
//! }), "0.3");
//!
//! let err = Plan::compile("select sume(Elapsed)").unwrap_err();
//! assert_eq!(err.message(), "unknown function 'sume' (did you mean 'sum'?)");
//! assert_eq!(err.column(), 8);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod agg;
mod array;
mod doc;
mod dsum;
mod error;
mod eval;
mod fsum;
mod func;
mod ir;
mod lex;
mod parse;
mod plan;
mod prefilter;
mod value;
mod worker;

#[cfg(test)]
mod difftest;
#[cfg(test)]
mod layering;
#[cfg(test)]
mod tests;

pub use rust_decimal::Decimal;

pub use agg::Accumulator;
pub use doc::{Doc, Scanned, Shape};
pub use error::{ErrorKind, QueryError};
pub use plan::{Kind, Plan};
pub use prefilter::{Atom, Formula, MAX_LITERALS, NumAtom, Prefilter, escape_starts};
pub use value::{Value, decode_escape, format_decimal, unescape_json_str};
pub use worker::Worker;
