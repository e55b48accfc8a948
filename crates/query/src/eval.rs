//! The evaluator: compiled [`Ex`] trees over one document, with SQL's three-valued logic.
//!
//! Hot-path rules: nothing is allocated per line unless the query computes a new string
//! (`lower`, `tostring` of a number...) or keeps a row; property paths are resolved through
//! the document's `get` only for the keys used; literal regexes and `like` patterns were
//! compiled by the planner. Per-line scratch (folded strings for `ilike`, key encodings,
//! order keys) lives in the [`Worker`] and is reused.

use std::borrow::Cow;
use std::cmp::Ordering;

use ndq_scan::decimal_parts;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use crate::Value;
use crate::agg::{self, Accumulator};
use crate::doc::{Doc, View};
use crate::func::{self, Like};
use crate::parse::{BinOp, Seg};
use crate::plan::{Ex, Path, Pattern, Plan};
use crate::value::{Num, Val, cmp_parts, compare, parse_number};

/// Group keys and finished aggregates, for per-group expressions.
#[derive(Clone, Copy, Default)]
pub(crate) struct Cx<'x> {
    pub keys: &'x [Val<'static>],
    pub aggs: &'x [Val<'static>],
}

/// Reused buffers for one worker.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    fold_a: String,
    fold_b: String,
}

/// Per-worker evaluator.
#[derive(Debug)]
pub struct Worker<'p> {
    pub(crate) plan: &'p Plan,
    pub(crate) scratch: Scratch,
    /// Encoded group keys / distinct values of the current line.
    pub(crate) key_buf: Vec<u8>,
    /// The row of [`Worker::with_row`], empty between calls (kept for its capacity).
    row_buf: Vec<Value<'static>>,
}

/// An empty vector of another lifetime keeping `v`'s allocation (collecting an empty
/// `vec::IntoIter` into a vector of a same-layout type reuses the buffer in place).
fn recycle<'b>(mut v: Vec<Value<'_>>) -> Vec<Value<'b>> {
    v.clear();
    v.into_iter().map(|_| Value::Null).collect()
}

impl<'p> Worker<'p> {
    pub(crate) fn new(plan: &'p Plan) -> Worker<'p> {
        Worker {
            plan,
            scratch: Scratch::default(),
            key_buf: Vec::new(),
            row_buf: Vec::new(),
        }
    }

    /// Whether `where` is true for this document (no `where`: true).
    pub fn matches<'a, D: Doc<'a>>(&mut self, root: D) -> bool {
        match &self.plan.filter {
            None => true,
            Some(ex) => matches!(
                eval(ex, root, Cx::default(), &mut self.scratch),
                Val::Bool(true)
            ),
        }
    }

    /// The select items of a [`crate::Kind::Rows`] plan for this document: clears `row` and
    /// pushes one value per column. Values read straight from the input borrow its text.
    pub fn project<'a, D: Doc<'a>>(&mut self, root: D, row: &mut Vec<Value<'a>>) {
        row.clear();
        if self.plan.lines {
            row.push(Value::RawJson(root.line()));
            return;
        }
        for ex in &self.plan.items {
            let v = match ex {
                Ex::Path(path) => resolve(root, path).map_or(Value::Null, node_output),
                ex => eval(ex, root, Cx::default(), &mut self.scratch).into_output(),
            };
            row.push(v);
        }
    }

    /// Like [`Worker::project`], but into a buffer the worker keeps from line to line, handed
    /// to `f`: no allocation per line for the row itself.
    pub fn with_row<'a, D: Doc<'a>, R>(&mut self, root: D, f: impl FnOnce(&[Value<'a>]) -> R) -> R {
        let mut row: Vec<Value<'a>> = recycle(std::mem::take(&mut self.row_buf));
        self.project(root, &mut row);
        let r = f(&row);
        self.row_buf = recycle(row);
        r
    }

    /// For a [`crate::Kind::Collect`] plan: apply `where`, and when the line matches fold it
    /// into `acc` (its group's aggregates, or a kept row for `order by`). Returns whether the
    /// line matched.
    pub fn accumulate<'a, D: Doc<'a>>(&mut self, root: D, acc: &mut Accumulator) -> bool {
        if !self.matches(root) {
            return false;
        }
        self.fold(root, acc);
        true
    }

    /// [`Worker::accumulate`] for a line already known to pass `where` ([`Worker::matches`]).
    pub fn fold<'a, D: Doc<'a>>(&mut self, root: D, acc: &mut Accumulator) {
        agg::accumulate(self, root, acc);
    }
}

/// Follow a property path from the root.
#[inline]
pub(crate) fn resolve<'a, D: Doc<'a>>(root: D, path: &Path) -> Option<D::Node> {
    let (first, rest) = path.segs.split_first()?;
    let Seg::Key(k) = first else {
        return None;
    };
    let mut n = root.top(k, path.slot)?;
    for s in rest {
        n = match s {
            Seg::Key(k) => n.get(k)?,
            Seg::Index(i) => n.index(*i)?,
        };
    }
    Some(n)
}

/// [`resolve`], then the value's text if it is a number ([`Doc::number`]).
#[inline]
pub(crate) fn resolve_number<'a, D: Doc<'a>>(root: D, path: &Path) -> Option<&'a str> {
    match &*path.segs {
        [Seg::Key(k)] => root.top_number(k, path.slot),
        _ => resolve(root, path).and_then(Doc::number),
    }
}

/// A document value as an evaluation value (numbers parsed, strings unescaped).
pub(crate) fn node_val<'a, N: Doc<'a>>(n: N) -> Val<'a> {
    view_val(n, n.view())
}

/// [`node_val`] of `n` whose view was already read.
fn view_val<'a, N: Doc<'a>>(n: N, view: View<'a>) -> Val<'a> {
    match view {
        View::Null => Val::Null,
        View::Bool(b) => Val::Bool(b),
        View::Number(raw) => match parse_number(raw) {
            Some(num) => Val::Num(num, Some(Cow::Borrowed(raw))),
            None => Val::Null,
        },
        View::String { value, raw } => Val::Str(value, raw.map(Cow::Borrowed)),
        View::Array => Val::Json(true, n.raw()),
        View::Object => Val::Json(false, n.raw()),
    }
}

/// A document value as output, its text borrowed from the input.
pub(crate) fn node_output<'a, N: Doc<'a>>(n: N) -> Value<'a> {
    match n.view() {
        View::Null => Value::Null,
        View::Bool(b) => Value::Bool(b),
        View::Number(raw) => Value::RawNumber(Cow::Borrowed(raw)),
        View::String { raw: Some(raw), .. } => Value::RawString(Cow::Borrowed(raw)),
        View::String { value, raw: None } => Value::String(value),
        View::Array | View::Object => Value::RawJson(n.raw()),
    }
}

fn truth(v: &Val<'_>) -> Option<bool> {
    match v {
        Val::Bool(b) => Some(*b),
        _ => None,
    }
}

fn from_truth<'x>(t: Option<bool>) -> Val<'x> {
    t.map_or(Val::Null, Val::Bool)
}

/// Exact decimal arithmetic; an overflow falls back to f64; `None` (null) for division by
/// zero and NaN. `/` results drop trailing zeros (`10 / 4` is `2.5`, `6 / 2` is `3`).
pub(crate) fn arith(op: BinOp, a: Num, b: Num) -> Option<Num> {
    let float = |x: f64, y: f64| match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div if y == 0.0 => f64::NAN,
        BinOp::Div => x / y,
        BinOp::Rem if y == 0.0 => f64::NAN,
        _ => x % y,
    };
    match (a, b) {
        (Num::Dec(x), Num::Dec(y)) => {
            if matches!(op, BinOp::Div | BinOp::Rem) && y.is_zero() {
                return None;
            }
            // `+` and `-` keep the larger scale (`1.5 + 0.00` is `1.50`, as `1.50 + 1.50`
            // is `3.00`); rust_decimal returns a zero operand's partner unchanged.
            let widen = |r: Decimal| {
                let s = x.scale().max(y.scale());
                let mut r = r;
                if r.scale() < s {
                    r.rescale(s);
                }
                r
            };
            let r = match op {
                BinOp::Add => x.checked_add(y).map(widen),
                BinOp::Sub => x.checked_sub(y).map(widen),
                // rust_decimal gives a zero product scale 0; `*` adds the scales
                // (`1.5 * 0.0` is `0.00`), as for any other product.
                BinOp::Mul => x.checked_mul(y).map(|mut r| {
                    if r.is_zero() {
                        r.rescale((x.scale() + y.scale()).min(28));
                    }
                    r
                }),
                BinOp::Div => x.checked_div(y).map(|d| d.normalize()),
                _ => x.checked_rem(y),
            };
            Num::from_parts(r, || {
                float(
                    x.to_f64().unwrap_or(f64::NAN),
                    y.to_f64().unwrap_or(f64::NAN),
                )
            })
        }
        (a, b) => {
            let f = float(a.to_f64(), b.to_f64());
            (!f.is_nan()).then_some(Num::Float(f))
        }
    }
}

pub(crate) fn cmp_op(op: BinOp, o: Ordering) -> bool {
    match op {
        BinOp::Eq => o == Ordering::Equal,
        BinOp::Ne => o != Ordering::Equal,
        BinOp::Lt => o == Ordering::Less,
        BinOp::Le => o != Ordering::Greater,
        BinOp::Gt => o == Ordering::Greater,
        _ => o != Ordering::Less,
    }
}

/// `path <op> k`, or `k <op> path` when `flip`: the common filter (`Elapsed > 200`). A plain
/// number in the document (`-?digits[.digits]`) is compared with `k` as integers
/// ([`cmp_parts`]), without building a Decimal; anything else is compared as [`eval`] does.
fn cmp_path_number<'x, 'a: 'x, D: Doc<'a>>(
    op: BinOp,
    root: D,
    path: &Path,
    k: &Decimal,
    flip: bool,
) -> Val<'x> {
    let Some(node) = resolve(root, path) else {
        return Val::Null;
    };
    let view = node.view();
    if let View::Number(raw) = view
        && let Some(o) = decimal_parts(raw.as_bytes()).and_then(|p| cmp_parts(p, k))
    {
        return Val::Bool(cmp_op(op, if flip { o.reverse() } else { o }));
    }
    let (v, k) = (view_val(node, view), Val::Num(Num::Dec(*k), None));
    let (l, r) = if flip { (&k, &v) } else { (&v, &k) };
    if l.is_null() {
        return Val::Null;
    }
    from_truth(compare(l, r).map(|o| cmp_op(op, o)))
}

/// Evaluate `ex` on `root`. `'x` is the shorter of the plan's and the document's lifetimes.
pub(crate) fn eval<'x, 'a: 'x, D: Doc<'a>>(
    ex: &'x Ex,
    root: D,
    cx: Cx<'x>,
    s: &mut Scratch,
) -> Val<'x> {
    match ex {
        Ex::Const(v) => v.borrowed(),
        Ex::Path(path) => resolve(root, path).map_or(Val::Null, node_val),
        Ex::Key(i) => cx.keys.get(*i).map_or(Val::Null, Val::borrowed),
        Ex::Agg(i) => cx.aggs.get(*i).map_or(Val::Null, Val::borrowed),
        Ex::Neg(a) => match eval(a, root, cx, s) {
            Val::Num(n, _) => {
                arith(BinOp::Sub, Num::Dec(Decimal::ZERO), n).map_or(Val::Null, Val::number)
            }
            _ => Val::Null,
        },
        Ex::Not(a) => from_truth(truth(&eval(a, root, cx, s)).map(|b| !b)),
        Ex::And(a, b) => {
            let l = truth(&eval(a, root, cx, s));
            if l == Some(false) {
                return Val::Bool(false);
            }
            let r = truth(&eval(b, root, cx, s));
            match (l, r) {
                (_, Some(false)) => Val::Bool(false),
                (Some(true), Some(true)) => Val::Bool(true),
                _ => Val::Null,
            }
        }
        Ex::Or(a, b) => {
            let l = truth(&eval(a, root, cx, s));
            if l == Some(true) {
                return Val::Bool(true);
            }
            let r = truth(&eval(b, root, cx, s));
            match (l, r) {
                (_, Some(true)) => Val::Bool(true),
                (Some(false), Some(false)) => Val::Bool(false),
                _ => Val::Null,
            }
        }
        Ex::Cmp(op, a, b) => {
            match (&**a, &**b) {
                (Ex::Path(path), Ex::Const(Val::Num(Num::Dec(k), _))) => {
                    return cmp_path_number(*op, root, path, k, false);
                }
                (Ex::Const(Val::Num(Num::Dec(k), _)), Ex::Path(path)) => {
                    return cmp_path_number(*op, root, path, k, true);
                }
                _ => {}
            }
            let l = eval(a, root, cx, s);
            if l.is_null() {
                return Val::Null;
            }
            let r = eval(b, root, cx, s);
            from_truth(compare(&l, &r).map(|o| cmp_op(*op, o)))
        }
        Ex::Arith(op, a, b) => {
            let (Some(x), Some(y)) = (eval(a, root, cx, s).num(), eval(b, root, cx, s).num())
            else {
                return Val::Null;
            };
            arith(*op, x, y).map_or(Val::Null, Val::number)
        }
        Ex::Like {
            ex,
            pattern,
            negated,
            ci,
        } => {
            let v = eval(ex, root, cx, s);
            let Some(text) = v.str() else {
                return Val::Null;
            };
            let hit = match pattern {
                Pattern::Fixed(like) => {
                    if *ci {
                        let mut buf = std::mem::take(&mut s.fold_a);
                        func::fold_into(text, &mut buf);
                        let hit = like.matches(&buf);
                        s.fold_a = buf;
                        hit
                    } else {
                        like.matches(text)
                    }
                }
                Pattern::Dynamic(p) => {
                    let pv = eval(p, root, cx, s);
                    let Some(pat) = pv.str() else {
                        return Val::Null;
                    };
                    if *ci {
                        let (mut a, mut b) =
                            (std::mem::take(&mut s.fold_a), std::mem::take(&mut s.fold_b));
                        func::fold_into(text, &mut a);
                        func::fold_into(pat, &mut b);
                        let hit = Like::new(&b).matches(&a);
                        (s.fold_a, s.fold_b) = (a, b);
                        hit
                    } else {
                        Like::new(pat).matches(text)
                    }
                }
            };
            Val::Bool(hit != *negated)
        }
        Ex::In { ex, list, negated } => {
            let v = eval(ex, root, cx, s);
            if v.is_null() {
                return Val::Null;
            }
            // `x in (a, b)` is `x = a or x = b`: true on a match, else null if any
            // comparison was null, else false.
            let mut unknown = false;
            for item in list {
                match compare(&v, &eval(item, root, cx, s)) {
                    Some(Ordering::Equal) => return Val::Bool(!*negated),
                    Some(_) => {}
                    None => unknown = true,
                }
            }
            if unknown {
                Val::Null
            } else {
                Val::Bool(*negated)
            }
        }
        Ex::IsNull { ex, negated } => Val::Bool(eval(ex, root, cx, s).is_null() != *negated),
        Ex::Has(path) => Val::Bool(resolve(root, path).is_some()),
        Ex::Match(a, pattern) => {
            let v = eval(a, root, cx, s);
            let Some(text) = v.str() else {
                return Val::Null;
            };
            match pattern {
                Pattern::Fixed(re) => Val::Bool(re.is_match(text)),
                Pattern::Dynamic(p) => {
                    let pv = eval(p, root, cx, s);
                    match pv.str().map(regex::Regex::new) {
                        Some(Ok(re)) => Val::Bool(re.is_match(text)),
                        _ => Val::Null,
                    }
                }
            }
        }
        Ex::Coalesce(list) => {
            for item in list {
                let v = eval(item, root, cx, s);
                if !v.is_null() {
                    return v;
                }
            }
            Val::Null
        }
        Ex::Call(f, a, b) => {
            let a = eval(a, root, cx, s);
            let b = b.as_ref().map(|b| eval(b, root, cx, s));
            func::call(*f, a, b)
        }
    }
}

/// `ceil(p / 100 * n)` clamped to `1..=n`: the nearest-rank position (1-based).
pub(crate) fn nearest_rank(p: Decimal, n: usize) -> usize {
    let rank = (p * Decimal::from(n) / Decimal::ONE_HUNDRED).ceil();
    rank.to_usize().unwrap_or(n).clamp(1, n.max(1))
}
