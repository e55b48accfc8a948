//! ndq-query: the query language of `docs/language.md` — lexer → parser → plan → eval — as a
//! library independent of files and threads (it splits work only inside one call, on the
//! caller's rayon pool: merging and finishing an aggregation's groups), so the CLI,
//! `ndq bench` and the tests share one engine.
//!
//! - [`Plan::compile`] parses and plans a query, or gives a [`QueryError`] whose `Display`
//!   quotes the query with a caret under the offending column.
//! - [`Plan::kind`] says how to drive it: [`Kind::Lines`] (write matching lines unchanged),
//!   [`Kind::Rows`] (one row per matching line, streamed; the CLI applies [`Plan::offset`]
//!   and [`Plan::limit`]), [`Kind::Collect`] (aggregation, `order by` or `select distinct`:
//!   fold lines into an [`Accumulator`], merge accumulators in input order (one by one, or
//!   several at once with [`Accumulator::merge_all`], whose groups are merged partition by
//!   partition on the caller's rayon pool), then [`Plan::finish`], which applies `having`,
//!   `offset` and `limit`).
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
//!   [`Prefilter::candidates`] finds the lines of a whole chunk that may match (exactly those
//!   [`Prefilter::may_match`], the per-line reference, keeps).
//! - Output values ([`Value`]) keep the input's text where they come from the input;
//!   computed numbers are exact decimals, see [`format_decimal`].
//!
//! # Reading order
//!
//! Each file refers only to files above it in this list (a test, `layering.rs`, checks that
//! no two files refer to each other, directly or in a loop):
//! `time` (instants, zones, RFC 3339; nothing of the crate), `error`, `lex`, `parse` (the
//! AST), `array` (where wildcards may stand, and the folds of array conditions) → `value`
//! (values, numbers, orders), `func`, `timefn` (time functions and arithmetic on values),
//! `fsum`, `dsum`, `doc` (the document trait) → `ir` (compiled expressions) → `prefilter`
//! (literals of `where`) → `candidates` (the prefilter over whole chunks) → `range` (the
//! time range of `where`, a line's leading time) → `plan` (the planner and [`Plan`]) → `eval`
//! (one expression over one document) → `distinct` (the rows of `select distinct`) → `groups`
//! (an aggregation's group tables, partitioned) → `agg` ([`Accumulator`]) → `worker`
//! ([`Worker`]); `columns` (what each output column is, for drawing) reads the plan only.
//!
//! # Choices where the language reference is silent
//!
//! - **Reserved words**: `select distinct from where group having order limit offset and or`
//!   never name a property where an expression is expected; write `['order']`. `not` neither:
//!   it starts a negation (`['not']` reads the property). Any word is fine after a `.`.
//! - **Clause order** is strict, as the language reference writes it: `limit` before `offset` (`offset 5
//!   limit 10` is an error; PostgreSQL takes both orders).
//! - **`having`** makes the query an aggregation when it holds an aggregate, as in SQL
//!   (`select 'many' having count(*) > 2` gives one row or none); `having` in a query that
//!   aggregates nothing is an error (`having needs an aggregation; did you mean where?`).
//!   A bare name in `having` that is a select alias reads that item, also inside an
//!   expression (`having n > 1 and n < 5`), before a group key or property of that name (as
//!   in `order by`); inside an aggregate's argument names are properties of the lines.
//! - **`select distinct`**: the rows are compared by the values of the select items with the
//!   key encoding of `group by` (numbers by value, `null` and absent alike, arrays and objects
//!   by canonical JSON); each distinct row is written from its first line (its text kept).
//!   `select distinct *` gives one line per distinct JSON object (key order, spacing and
//!   number spellings aside; the first of duplicate keys), the first such line written
//!   unchanged; `order by` may then name any property. With a select list, as in
//!   PostgreSQL, each `order by` key must be a select item (written the same, by alias or
//!   by position), else the query is an error pointing at it. An aggregate anywhere in a
//!   `select distinct` query (select, `having`, `order by`) is an error pointing at it;
//!   `group by` without aggregates is allowed (`select distinct a group by a, b`: the finished
//!   rows are made distinct after `having`, in their group order or `order by`).
//! - **`offset`** counts rows after `having`, `distinct` and `order by`; `offset` without
//!   `limit`, or past the last row, is fine (no rows). On rows streamed without `order by`
//!   the CLI stops reading after `offset + limit` rows.
//! - **Repeated column names**: the first column of a name keeps it; each later one gets the
//!   smallest `_2`, `_3`, ... that no column is called, as written (before or after it) or as
//!   given: `select a, a as a_2, a` gives `a`, `a_2`, `a_3`; `select a, a, a_2` gives `a`,
//!   `a_3`, `a_2`. Names compare case-sensitively (`a` and `A` are two). `order by` and
//!   `having` name aliases as written, not the suffixed names.
//! - **Comments**: `--` to the end of the line, as in SQL, so `select x -- why` is
//!   `select x`; a double minus needs a space or parentheses (`- -x`, `-(-x)`).
//! - **`in`** is `x = a or x = b ...`: true on a match, else null when any comparison was null
//!   (a null item, or an item of another type), else false.
//! - **Sort order across types** (order by, group order): numbers < strings < timestamps
//!   < durations < booleans < arrays < objects < null (`min`/`max` look only at numbers and strings, as
//!   the language reference says, so a number is below any string there); arrays and objects by their canonical JSON text,
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
//!   parentheses, `not`, unary `-`, calls, `case`, and each link of a `+ - * / %` chain. Chains of
//!   `and`/`or` become balanced trees (both are associative), so thousands of alternatives
//!   are fine.
//! - **`ilike`** matches when the case-folded texts match (upper-case then lower-case, so
//!   `ß`, `SS` and `ss` match, then `ß` as `ss`, so the capital `ẞ` matches them too), or
//!   when the texts match character by character, each character folded alone: whatever
//!   `like` matches, `ilike` matches, and `'ß' ilike '_'` and `'ß' ilike '__'` are both
//!   true.
//! - **`||`** binds as in PostgreSQL: tighter than comparisons, `like` and `in`, looser than
//!   `+ -` (`'a' || 1 + 2` is `'a3'`; `x || 'b' = 'ab'` compares the concatenation; `s like
//!   p || '%'` takes the concatenation as the pattern). Left-associative.
//! - **`case`, `when`, `then`, `else`, `end`** are reserved where an expression is expected
//!   (as in SQL): write `['end']` for such a property (`Properties.end` is fine).
//! - **`case x when null`** is a query error, as `x = null` is (it could never match);
//!   write `case when x is null then ...`. The chosen branch's value is returned as it is, so
//!   a number read from the input keeps its text, as with `coalesce`.
//! - **`concat`** of nothing but nulls is `''` (PostgreSQL's `concat`); `||` and `concat`
//!   write a number from the input as written (`1.50`, `15e-1`), a computed one exactly.
//! - **Text functions do not cast** (PostgreSQL would): a number where text is expected gives
//!   null (`substr(12345, 1, 2)`; write `substr(tostring(n), 1, 2)`), as `lower(5)` does.
//!   Positions, lengths and counts must be whole numbers (`2.0` is 2; `1.5`, `'2'` and numbers
//!   beyond a Decimal give null).
//! - **`strpos(s, '')`** is 1, as in PostgreSQL (also for `s = ''`). `left`/`right` with a
//!   negative count and `split_part` with `n < 1` give null (PostgreSQL counts from the other
//!   end; the language reference says null).
//! - **`trim`** removes characters with Unicode's `White_Space` property (space, tab, line
//!   breaks, no-break space, `U+3000`...); not the zero-width space or the byte-order mark,
//!   which are not white space.
//! - **`extract`** uses the `regex` crate's syntax, as `match` does; groups are named
//!   `(?P<name>...)` or `(?<name>...)`. Without a group argument it gives group 1 when the
//!   regex has any group (named or not), else the whole match. A literal group (number or
//!   name) that a literal regex does not have is a query error, and so is a literal group
//!   number that is negative or not whole; with a regex or group computed per line, a regex
//!   that does not compile or a group it lacks gives null.
//! - **`level`** matches the spellings in ASCII case (`WARN`, `Warn`), with nothing around
//!   them (`' warn'` is not a level; `İNFO` with a dotted capital I neither); a number must
//!   equal 10, 20, ... 60 (`40.0` and `4e1` do, `45` does not); the text `'40'` is not a level
//!   (pino writes numbers as numbers). The canonical names are spellings too, so
//!   `severity(level(x))` is `severity(x)`.
//! - **Time** ([`TimeOptions`], `time.rs`, `timefn.rs`):
//!   - A timestamp is held to the nanosecond, from year -9999 to 9999; a result outside
//!     that range is null. A duration is held in nanoseconds, at most 2^96 − 1 of them.
//!   - Duration units are lower case (`1H` is an error: `M` could be a month); a literal
//!     must be a whole number of nanoseconds (`1e-12s` is an error); a number may have a
//!     fraction or an exponent (`1.5h`, `1e3ms`). `5and` is an invalid duration, not `5 and`.
//!   - `datetime(n)` of a number drops a fraction finer than a nanosecond towards the past;
//!     `datetime(n, 's')` is accepted; unit names are lower case. A string of digits
//!     (`'1700000000'`) is not a time (null). jiff's Temporal grammar is what text may be
//!     beyond RFC 3339: `2026-11-21T10:00` (no seconds), `,` as the decimal mark,
//!     `-00:00`. A bracketed zone (`[Asia/Kolkata]`, RFC 9557) is the zone of a wall time
//!     without an offset (an unknown one gives null); beside an offset it is ignored.
//!   - Only comparisons read a string as a time: `'2026-11-21' + 1h` is null, as is a
//!     timestamp compared with a number. `=`/`in` compare instants, so
//!     `datetime(t) = '2026-11-21T11:00:00+01:00'` is true for `10:00:00Z`; `group by` and
//!     `count_distinct` of a timestamp are by instant; a text property stays text.
//!   - Arithmetic: only the pairs the language reference lists; `duration / duration`, `duration %`
//!     anything and `timestamp + timestamp` are null. `duration * number` and `/ number`
//!     round to the nanosecond, half away from zero; `/ 0` is null.
//!   - `time(x, d)` and `strftime(x, f)` read `x` as `datetime` does (text, a number of
//!     seconds, a timestamp); a duration that is not positive gives null. A duration that is
//!     a whole number of weeks counts weeks from Monday (1969-12-29), in UTC too; a whole
//!     number of days counts calendar days in the `--tz` zone (`2d` from 1970-01-01);
//!     anything else counts from the epoch in UTC whatever the zone. A day bucket starts at
//!     the day's first instant in the zone (midnight, or later when a DST change skips it).
//!   - `time(DURATION)` outside `group by` (in an aggregating `select`) is the same error
//!     as a property outside `group by`. `now()` is fixed when the query is planned.
//!   - `strftime` is jiff's (`%Y %m %d %H %M %S %f %z %Z %A %j %s`...), but for `%c`, `%x`
//!     and `%r`, written as C's default locale writes them; an invalid format gives null.
//!     `tostring` of a timestamp is its output form in the `--tz` zone.
//!   - `sum`, `avg` and `percentile` look only at numbers, as the language reference says: durations are
//!     passed over (`sum(tonumber(d))` adds their seconds); `min`/`max` take them.
//!   - A timestamp is written as a JSON string, a duration as a JSON number. With `--tz`
//!     (even `--tz UTC`) the offset is written as `+00:00`, without it as `Z`.
//!   - `--since`/`--until`: a date alone, or a time without an offset, is in the `--tz` zone
//!     (UTC by default), as `today` and `yesterday` are; `now`, `today`, `yesterday` are
//!     case-insensitive; a duration may be negative (`--until -1h` is an hour from now). The
//!     time property is read as `datetime` reads it, so a number counts as epoch seconds.
//! - **Conditional aggregates**: `filter (where C)` follows an aggregate's `)`; after any
//!   other function it is a query error (`filter` is not a reserved word elsewhere). Two
//!   aggregates that differ only in their filter are two aggregates; `count_if(C) filter
//!   (where D)` counts the lines where both are true. A filter never changes which lines
//!   `where` keeps: over no line the aggregate is that of nothing (`count` 0, `sum` null).
//!   An aggregate inside a filter (or `count_if`) is a query error. The column name is the
//!   whole text, filter included.
//! - **`x in PATH`**: `PATH` is a property path written without parentheses (a name that
//!   is not a keyword, literal or call, or a quoted key); `x in (Tags)` is the one-item
//!   list, `x = Tags`. An empty array gives false even when `x` is null; each element is
//!   compared with `x` as `=` compares (an array or an object by value). In an aggregating
//!   `select`, `PATH` must be a `group by` expression, like any property.
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
//!   another wildcard condition (a wildcard condition inside any other condition is a
//!   boolean like any other).
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
mod candidates;
mod columns;
mod distinct;
mod doc;
mod dsum;
mod error;
mod eval;
mod fsum;
mod func;
mod groups;
mod ir;
mod level;
mod lex;
mod memo;
mod parse;
mod plan;
mod prefilter;
mod range;
mod rem;
mod text;
mod time;
mod timefn;
mod value;
mod valueset;
mod worker;

#[cfg(test)]
mod difftest;
#[cfg(test)]
mod layering;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod time_tests;

pub use rust_decimal::Decimal;

pub use agg::Accumulator;
pub use candidates::Candidates;
pub use columns::{AggKind, ColumnRole};
pub use doc::{Doc, Scanned, View};
pub use error::{ErrorKind, QueryError};
pub use func::edit_distance;
pub use ndq_scan::{decode_escape, unescape as unescape_json_str};
pub use plan::{Kind, Plan, check_time_field};
pub use prefilter::{Atom, Formula, MAX_LITERALS, NumAtom, Prefilter};
pub use range::{MAX_TIME_TEXT, Stamp, TimeRange, TimeReader, leading_time};
pub use time::{BOUND_FORMS, TimeOptions, Zone, now_nanos, parse_bound, parse_duration};
pub use value::{Value, format_decimal};
pub use worker::Worker;
