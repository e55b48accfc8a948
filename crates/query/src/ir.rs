//! The intermediate representation between the planner and the evaluator: compiled
//! expressions ([`Ex`]), property paths ([`Path`]), patterns compiled once ([`Pattern`]) and
//! aggregates ([`AggSpec`]).
//!
//! The parser's AST (`parse.rs`) is what the user wrote; these types are what the planner
//! (`plan.rs`) checked and resolved: each path knows the slot of its first key in the plan's
//! key set, literal regexes and `like` patterns are compiled, and per-group expressions read
//! group keys and finished aggregates by index. The evaluator (`eval.rs`) and the
//! aggregation (`agg.rs`) walk them; nothing here evaluates.

use regex::Regex;
use rust_decimal::Decimal;

use crate::func::{AggFunc, Func, Like, TextFunc};
use crate::parse::{BinOp, Seg};
use crate::time::{TimeFn, Zone};
use crate::value::Val;

/// A property path, with the position of its first key in the plan's key set.
#[derive(Debug)]
pub(crate) struct Path {
    pub slot: usize,
    pub segs: Box<[Seg]>,
}

/// A compiled expression.
#[derive(Debug)]
pub(crate) enum Ex {
    Const(Val<'static>),
    Path(Path),
    /// Group key `i` (per-group context).
    Key(usize),
    /// Finished aggregate `i` (per-group context).
    Agg(usize),
    Neg(Box<Ex>),
    Not(Box<Ex>),
    And(Box<Ex>, Box<Ex>),
    Or(Box<Ex>, Box<Ex>),
    Cmp(BinOp, Box<Ex>, Box<Ex>),
    Arith(BinOp, Box<Ex>, Box<Ex>),
    Like {
        ex: Box<Ex>,
        pattern: Pattern<Like>,
        negated: bool,
        ci: bool,
    },
    In {
        ex: Box<Ex>,
        list: Vec<Ex>,
        negated: bool,
    },
    IsNull {
        ex: Box<Ex>,
        negated: bool,
    },
    Has(Path),
    /// `x [not] in PATH`: whether the array `array` evaluates to holds `x` (see `array.rs`).
    Member {
        ex: Box<Ex>,
        array: Box<Ex>,
        negated: bool,
    },
    /// A condition on a wildcard path (`Tags[?] = 'a'`), see [`Quant`].
    Quant(Box<Quant>),
    /// The wildcard side of a [`Quant`]'s test: the current element's value.
    Elem,
    Match(Box<Ex>, Pattern<Regex>),
    Coalesce(Vec<Ex>),
    Call(Func, Box<Ex>, Option<Box<Ex>>),
    /// `case` and `if`.
    Case(Box<Case>),
    /// `||` and the text functions (`text.rs`).
    Text(TextFunc, Vec<Ex>),
    /// `extract(s, 'regex' [, group])`.
    Extract(Box<Extract>),
    /// A time function (`timefn.rs`) of one or two arguments, in the plan's zone.
    Time(TimeFn, Box<Ex>, Option<Box<Ex>>, Zone),
}

impl Ex {
    /// Whether the expression reads nothing but finished aggregates and constants (no group
    /// key, no path): in a group's context, its value is known before the group's keys are
    /// decoded. Anything not listed here counts as reading more.
    pub(crate) fn of_aggregates_only(&self) -> bool {
        let all = |list: &[Ex]| list.iter().all(Ex::of_aggregates_only);
        match self {
            Ex::Const(_) | Ex::Agg(_) => true,
            Ex::Neg(a) | Ex::Not(a) | Ex::IsNull { ex: a, .. } => a.of_aggregates_only(),
            Ex::And(a, b) | Ex::Or(a, b) | Ex::Cmp(_, a, b) | Ex::Arith(_, a, b) => {
                a.of_aggregates_only() && b.of_aggregates_only()
            }
            Ex::In { ex, list, .. } => ex.of_aggregates_only() && all(list),
            Ex::Coalesce(list) | Ex::Text(_, list) => all(list),
            Ex::Call(_, a, b) | Ex::Time(_, a, b, _) => {
                a.of_aggregates_only() && b.as_deref().is_none_or(Ex::of_aggregates_only)
            }
            Ex::Case(c) => {
                c.subject.as_ref().is_none_or(Ex::of_aggregates_only)
                    && c.arms
                        .iter()
                        .all(|(when, then)| when.of_aggregates_only() && then.of_aggregates_only())
                    && c.default.as_ref().is_none_or(Ex::of_aggregates_only)
            }
            _ => false,
        }
    }
}

/// A condition with one wildcard path as a side: `test` is the condition with that side
/// read as [`Ex::Elem`], evaluated for each element of the array at `array`, each element
/// followed by `rest` (`Cart[?].Qty`: `array` `Cart`, `rest` `.Qty`). With `every` (`[*]`)
/// true when `test` is true for every element (an empty array too), else (`[?]`) when it is
/// for some; a value that is not an array gives false.
#[derive(Debug)]
pub(crate) struct Quant {
    pub array: Path,
    pub rest: Box<[Seg]>,
    pub every: bool,
    pub test: Ex,
}

/// A pattern compiled once when it is a literal, else evaluated per line.
#[derive(Debug)]
pub(crate) enum Pattern<T> {
    Fixed(T),
    Dynamic(Box<Ex>),
}

/// A planned `case` (and `if`, planned as `case when C then A else B end`). A `when` arm is
/// taken only when its condition is `true` (with a subject: when `X = A` is `true`); arms are
/// tried in order; no arm taken and no `else` gives `null`.
#[derive(Debug)]
pub(crate) struct Case {
    /// `X` of `case X when A ...`; `None` for `case when C ...`.
    pub subject: Option<Ex>,
    /// `(C or A, V)` of each `when ... then ...`, in order.
    pub arms: Vec<(Ex, Ex)>,
    pub default: Option<Ex>,
}

/// Which capture group `extract` gives.
#[derive(Debug)]
pub(crate) enum Group {
    /// Group 1 when the regex has a group, else the whole match (no group argument).
    Default,
    /// A group by number (0: the whole match).
    Number(usize),
    /// A group by name (only for a regex that is not a literal; a literal's names were
    /// resolved to numbers).
    Name(String),
    /// Evaluated per line: a whole number or a name.
    Dynamic(Box<Ex>),
}

/// A planned `extract(s, 'regex' [, group])`.
#[derive(Debug)]
pub(crate) struct Extract {
    pub text: Ex,
    pub regex: Pattern<Regex>,
    pub group: Group,
    /// With a literal regex and a group known when planning: the index of this `extract`'s
    /// memo among the plan's (`memo.rs`), and the group.
    pub memo: Option<(usize, usize)>,
}

/// One aggregate of the query.
#[derive(Debug)]
pub(crate) struct AggSpec {
    pub func: AggFunc,
    /// `None` for `count(*)`.
    pub arg: Option<Ex>,
    /// The percentile, for `percentile`.
    pub p: Decimal,
    /// `filter (where C)` (or `count_if`'s condition): only the lines where it is true count.
    pub filter: Option<Ex>,
}
