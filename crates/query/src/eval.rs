//! The evaluator: compiled [`Ex`] trees over one document, with SQL's three-valued logic, and
//! the two per-line uses of a plan that need nothing else: [`matches()`] (`where`) and
//! [`project`] (the select items). Aggregation (`agg.rs`) and the public [`Worker`] on top
//! (`worker.rs`) call into this file; it calls into neither.
//!
//! [`Worker`]: crate::Worker
//!
//! Hot-path rules: nothing is allocated per line unless the query computes a new string
//! (`lower`, `tostring` of a number...) or keeps a row; property paths are resolved through
//! the document's `get` only for the keys used; literal regexes and `like` patterns were
//! compiled by the planner. Per-line scratch (folded strings for `ilike`, key encodings,
//! order keys) lives in the [`Worker`] and is reused.

use std::borrow::Cow;

use ndq_scan::decimal_parts;
use regex::Regex;
use rust_decimal::Decimal;

use crate::array::{Membership, Quantifier};
use crate::doc::{Doc, View};
use crate::func::{self, Like, TextFunc};
use crate::ir::{Case, Ex, Group, Path, Pattern, Quant};
use crate::memo::Memo;
use crate::parse::{BinOp, Seg};
use crate::plan::Plan;
use crate::text;
use crate::timefn;
use crate::value::{Num, Val, Value, cmp_parts, compare, equal, parse_number};

/// Group keys and finished aggregates, for per-group expressions.
#[derive(Clone, Copy, Default)]
pub(crate) struct Cx<'x> {
    pub keys: &'x [Val<'x>],
    pub aggs: &'x [Val<'static>],
    /// The current element's value, for [`Ex::Elem`] in a wildcard condition's test.
    pub elem: Option<&'x Val<'x>>,
}

/// Reused buffers for one worker, so that a line allocates nothing it does not keep.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// `ilike`'s case-folded text.
    fold: String,
    /// Encoded group keys / distinct values of the current line (used by `agg.rs`).
    pub key_buf: Vec<u8>,
    /// The size of the last group table this worker added to (see `Groups::presize`).
    pub groups_size: (usize, usize),
    /// The plan's `extract` memos, by index (made on first use).
    memos: Vec<Memo>,
}

/// Whether `where` is true for this document (no `where`: true).
#[inline]
pub(crate) fn matches<'a, D: Doc<'a>>(plan: &Plan, root: D, s: &mut Scratch) -> bool {
    match &plan.filter {
        None => true,
        Some(ex) => matches!(eval(ex, root, Cx::default(), s), Val::Bool(true)),
    }
}

/// The select items of a [`Kind::Rows`](crate::plan::Kind::Rows) plan (or of the rows an
/// `order by` keeps) for this document: clears `row` and pushes one value per column. Values
/// read straight from the input borrow its text.
pub(crate) fn project<'a, D: Doc<'a>>(
    plan: &Plan,
    root: D,
    s: &mut Scratch,
    row: &mut Vec<Value<'a>>,
) {
    row.clear();
    if plan.lines {
        row.push(Value::RawJson(root.line()));
        return;
    }
    for ex in &plan.items {
        let v = match ex {
            Ex::Path(path) => resolve(root, path).map_or(Value::Null, node_output),
            ex => eval(ex, root, Cx::default(), s).into_output_in(&plan.zone),
        };
        row.push(v);
    }
}

/// Follow a property path from the root.
#[inline]
pub(crate) fn resolve<'a, D: Doc<'a>>(root: D, path: &Path) -> Option<D::Node> {
    let (first, rest) = path.segs.split_first()?;
    let Seg::Key(k) = first else {
        return None;
    };
    follow(root.top(k, path.slot)?, rest)
}

/// Follow the steps `segs` from node `n`.
#[inline]
fn follow<'a, N: Doc<'a, Node = N>>(mut n: N, segs: &[Seg]) -> Option<N> {
    for s in segs {
        n = match s {
            Seg::Key(k) => n.get(k)?,
            Seg::Index(i) => n.index(*i)?,
        };
    }
    Some(n)
}

/// `x [not] in PATH` (see `array.rs`): `array` is the path, or per group the key holding
/// the array's JSON text.
fn member<'x, 'a: 'x, D: Doc<'a>>(
    x: &Val<'_>,
    array: &'x Ex,
    root: D,
    cx: Cx<'x>,
    s: &mut Scratch,
) -> Option<bool> {
    let mut m = Membership::default();
    let is_array = match array {
        Ex::Path(path) => {
            resolve(root, path).is_some_and(|n| n.each_element(|e| m.see(equal(x, &node_val(e)))))
        }
        other => match eval(other, root, cx, s) {
            Val::Json(true, raw) => serde_json::from_str::<serde_json::Value>(&raw)
                .is_ok_and(|v| v.each_element(|e| m.see(equal(x, &node_val(e))))),
            _ => false,
        },
    };
    if is_array { m.answer() } else { None }
}

/// A wildcard condition (see `array.rs`): its test for each element of the array.
fn quantified<'x, 'a: 'x, D: Doc<'a>>(q: &'x Quant, root: D, cx: Cx<'x>, s: &mut Scratch) -> bool {
    let mut fold = Quantifier::new(q.every);
    let is_array = resolve(root, &q.array).is_some_and(|n| {
        n.each_element(|e| {
            let v = follow(e, &q.rest).map_or(Val::Null, node_val);
            let cx = Cx {
                elem: Some(&v),
                ..cx
            };
            fold.see(matches!(eval(&q.test, root, cx, s), Val::Bool(true)))
        })
    });
    fold.answer(is_array)
}

/// [`resolve`], then the value's text if it is a number ([`Doc::number`]).
#[inline]
pub(crate) fn resolve_number<'a, D: Doc<'a>>(root: D, path: &Path) -> Option<&'a str> {
    match &*path.segs {
        [Seg::Key(k)] => root.top_number(k, path.slot),
        _ => resolve(root, path).and_then(Doc::number),
    }
}

/// The value of `path` (null when absent): a top-level scalar straight from where the
/// document noted it ([`Doc::top_scalar`]), anything else through [`resolve`].
#[inline]
fn path_val<'a, D: Doc<'a>>(root: D, path: &Path) -> Val<'a> {
    if let [Seg::Key(k)] = &*path.segs {
        match root.top_scalar(k, path.slot) {
            // An array or object (which `top_scalar` leaves to the node), or no answer.
            Some(Some(View::Array | View::Object)) | None => {}
            Some(view) => return view.map_or(Val::Null, scalar_val),
        }
    }
    resolve(root, path).map_or(Val::Null, node_val)
}

/// A document value as an evaluation value (numbers parsed, strings unescaped).
pub(crate) fn node_val<'a, N: Doc<'a>>(n: N) -> Val<'a> {
    view_val(n, n.view())
}

/// [`node_val`] of `n` whose view was already read.
fn view_val<'a, N: Doc<'a>>(n: N, view: View<'a>) -> Val<'a> {
    match view {
        View::Array => Val::Json(true, n.raw()),
        View::Object => Val::Json(false, n.raw()),
        scalar => scalar_val(scalar),
    }
}

/// A scalar's view as an evaluation value; an array or object, whose value is its node's
/// text ([`view_val`]), is null here.
fn scalar_val(view: View<'_>) -> Val<'_> {
    match view {
        View::Null | View::Array | View::Object => Val::Null,
        View::Bool(b) => Val::Bool(b),
        View::Number(raw) => match parse_number(raw) {
            Some(num) => Val::Num(num, Some(Cow::Borrowed(raw))),
            None => Val::Null,
        },
        View::String { value, raw } => Val::Str(value, raw.map(Cow::Borrowed)),
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
                _ => crate::rem::rem(x, y),
            };
            Num::from_parts(r, || {
                float(crate::value::dec_to_f64(x), crate::value::dec_to_f64(y))
            })
        }
        (a, b) => {
            let f = float(a.to_f64(), b.to_f64());
            (!f.is_nan()).then_some(Num::Float(f))
        }
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
    // A plain number, read where the scanner noted it (a top-level key) without building
    // the node's value first; anything else (absent, not a number, an exponent) below.
    if let Some(raw) = resolve_number(root, path)
        && let Some(o) = decimal_parts(raw.as_bytes()).and_then(|p| cmp_parts(p, k))
    {
        return Val::Bool(op.holds(if flip { o.reverse() } else { o }));
    }
    let Some(node) = resolve(root, path) else {
        return Val::Null;
    };
    let view = node.view();
    let (v, k) = (view_val(node, view), Val::Num(Num::Dec(*k), None));
    let (l, r) = if flip { (&k, &v) } else { (&v, &k) };
    if l.is_null() {
        return Val::Null;
    }
    from_truth(compare(l, r).map(|o| op.holds(o)))
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
        Ex::Path(path) => path_val(root, path),
        Ex::Key(i) => cx.keys.get(*i).map_or(Val::Null, Val::borrowed),
        Ex::Agg(i) => cx.aggs.get(*i).map_or(Val::Null, Val::borrowed),
        Ex::Neg(a) => match eval(a, root, cx, s) {
            Val::Num(n, _) => {
                arith(BinOp::Sub, Num::Dec(Decimal::ZERO), n).map_or(Val::Null, Val::number)
            }
            Val::Dur(d) => Val::Dur(-d),
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
            match op {
                BinOp::Eq => from_truth(equal(&l, &r)),
                BinOp::Ne => from_truth(equal(&l, &r).map(|e| !e)),
                _ => from_truth(compare(&l, &r).map(|o| op.holds(o))),
            }
        }
        Ex::Arith(op, a, b) => {
            let (l, r) = (eval(a, root, cx, s), eval(b, root, cx, s));
            let (Some(x), Some(y)) = (l.num(), r.num()) else {
                return timefn::arith(*op, &l, &r);
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
                        let mut buf = std::mem::take(&mut s.fold);
                        let hit = like.matches_ci(text, &mut buf);
                        s.fold = buf;
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
                        let mut buf = std::mem::take(&mut s.fold);
                        let hit = Like::new_ci(pat).matches_ci(text, &mut buf);
                        s.fold = buf;
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
                match equal(&v, &eval(item, root, cx, s)) {
                    Some(true) => return Val::Bool(!*negated),
                    Some(false) => {}
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
        Ex::Member { ex, array, negated } => {
            let x = eval(ex, root, cx, s);
            from_truth(member(&x, array, root, cx, s).map(|b| b != *negated))
        }
        Ex::Quant(q) => Val::Bool(quantified(q, root, cx, s)),
        Ex::Elem => cx.elem.map_or(Val::Null, Val::borrowed),
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
        Ex::Case(case) => eval_case(case, root, cx, s),
        Ex::Text(f, args) => eval_text(*f, args, root, cx, s),
        Ex::Extract(x) => {
            let subject = eval(&x.text, root, cx, s);
            if let (Some((i, group)), Pattern::Fixed(re)) = (x.memo, &x.regex) {
                if s.memos.len() <= i {
                    s.memos.resize_with(i + 1, Memo::default);
                }
                return text::extract_memo(subject, re, group, &mut s.memos[i]);
            }
            let compiled;
            let re = match &x.regex {
                Pattern::Fixed(re) => re,
                Pattern::Dynamic(p) => match eval(p, root, cx, s).str().map(Regex::new) {
                    Some(Ok(re)) => {
                        compiled = re;
                        &compiled
                    }
                    _ => return Val::Null,
                },
            };
            let dynamic = match &x.group {
                Group::Dynamic(g) => Some(eval(g, root, cx, s)),
                _ => None,
            };
            text::extract(subject, re, &x.group, dynamic)
        }
        Ex::Time(f, a, b, zone) => {
            let a = eval(a, root, cx, s);
            let b = b.as_ref().map(|b| eval(b, root, cx, s));
            timefn::call(*f, a, b, zone)
        }
    }
}

/// `case`: the value of the first arm whose condition is `true` (with a subject, whose `X = A`
/// is `true`: a `null` comparison is no match); only the chosen value is evaluated.
fn eval_case<'x, 'a: 'x, D: Doc<'a>>(
    case: &'x Case,
    root: D,
    cx: Cx<'x>,
    s: &mut Scratch,
) -> Val<'x> {
    match &case.subject {
        None => {
            for (cond, value) in &case.arms {
                if matches!(eval(cond, root, cx, s), Val::Bool(true)) {
                    return eval(value, root, cx, s);
                }
            }
        }
        Some(subject) => {
            let x = eval(subject, root, cx, s);
            if !x.is_null() {
                for (a, value) in &case.arms {
                    if equal(&x, &eval(a, root, cx, s)) == Some(true) {
                        return eval(value, root, cx, s);
                    }
                }
            }
        }
    }
    match &case.default {
        Some(e) => eval(e, root, cx, s),
        None => Val::Null,
    }
}

/// `||`, `concat` and the text functions of up to three arguments (the planner checked their
/// number): `||` is null when either side is, `concat` leaves nulls out.
fn eval_text<'x, 'a: 'x, D: Doc<'a>>(
    f: TextFunc,
    args: &'x [Ex],
    root: D,
    cx: Cx<'x>,
    s: &mut Scratch,
) -> Val<'x> {
    match f {
        TextFunc::Concat | TextFunc::ConcatSkipNull => {
            let mut out = String::new();
            for a in args {
                match eval(a, root, cx, s).to_text() {
                    Some(t) => out.push_str(&t),
                    None if f == TextFunc::Concat => return Val::Null,
                    None => {}
                }
            }
            Val::string(out)
        }
        _ => {
            let mut vals = [Val::Null, Val::Null, Val::Null];
            for (slot, a) in vals.iter_mut().zip(args) {
                *slot = eval(a, root, cx, s);
            }
            text::apply(f, vals, args.len())
        }
    }
}
