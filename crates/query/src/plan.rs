//! The planner: AST → [`Plan`]. It checks what the parser cannot (sources, function names and
//! arities, aggregates where they are not allowed, `group by` rules, `x = null`, percentile
//! ranges, regexes), names the output columns, collects the top-level keys the query reads,
//! and compiles expressions into [`Ex`] trees the evaluator walks.
//!
//! An aggregation is compiled in two contexts: the per-line parts (`where`, `group by`
//! expressions, aggregate arguments) read properties; the per-group parts (`select` and
//! `order by` items) read only group keys ([`Ex::Key`]), finished aggregates ([`Ex::Agg`]) and
//! literals, so a property outside an aggregate and outside `group by` is a planning error.
//!
//! This file builds a [`Plan`] and answers what the CLI asks of it before reading any line
//! (kind, columns, key set, prefilter). What evaluates it comes after, each file only looking
//! back: `eval.rs` (one expression over one document), `agg.rs` ([`Plan::accumulator`],
//! [`Plan::finish`]) and `worker.rs` ([`Plan::worker`]).

use regex::Regex;
use rust_decimal::Decimal;

use crate::array;
use crate::doc::Scanned;
use crate::error::{ErrorKind, QueryError};
use crate::func::TextFunc;
use crate::func::{self, AggFunc, FuncName, Like};
use crate::ir::Extract;
use crate::ir::{AggSpec, Case, Ex, Path, Pattern, Quant};
use crate::parse::{self, BinOp, Expr, ExprKind, Query, Seg};
use crate::prefilter::{self, Prefilter};
use crate::range::{self, TimeRange};
use crate::text;
use crate::time::{TimeFn, TimeOptions, Zone};
use crate::value::{Num, Val, parse_number};

/// How the CLI drives a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `select *` or no select: each matching line is written unchanged.
    Lines,
    /// A projection without `order by`: each matching line gives one row, streamed in input order.
    Rows,
    /// Aggregation, `order by` and/or `select distinct`: rows exist only after every line was
    /// accumulated.
    Collect,
}

/// A compiled query.
#[derive(Debug)]
pub struct Plan {
    pub(crate) kind: Kind,
    /// `select *` (or no select): rows are whole lines.
    pub(crate) lines: bool,
    pub(crate) columns: Vec<String>,
    pub(crate) limit: Option<u64>,
    /// `offset M` (0 when not written).
    pub(crate) offset: u64,
    /// `select distinct`: one row per distinct combination of the select items' values (of
    /// the whole line for `select distinct *`).
    pub(crate) distinct: bool,
    /// `having`: per group, keeps the groups for which it is true.
    pub(crate) having: Option<Ex>,
    pub(crate) keys: ndq_scan::KeySet,
    pub(crate) key_names: Vec<String>,
    pub(crate) filter: Option<Ex>,
    /// Select items per line (not aggregating).
    pub(crate) items: Vec<Ex>,
    /// Whether the query aggregates.
    pub(crate) grouped: bool,
    pub(crate) group_by: Vec<Ex>,
    pub(crate) aggs: Vec<AggSpec>,
    /// Select items per group (aggregating).
    pub(crate) out: Vec<Ex>,
    /// Order keys (per line, or per group when aggregating) and whether descending.
    pub(crate) order: Vec<(Ex, bool)>,
    /// Bit `i` set: order key `i` is descending.
    pub(crate) dirs: u64,
    /// What a line must contain to possibly pass `where`.
    pub(crate) prefilter: Option<Prefilter>,
    /// The zone timestamps are written in (`--tz`).
    pub(crate) zone: Zone,
    /// What `where` requires of the time property.
    pub(crate) range: Option<TimeRange>,
    /// The key whose leading times a run may record ([`Plan::time_key`]).
    pub(crate) time_key: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// Per line; the string names the clause for error messages.
    Line(&'static str),
    /// Inside an aggregate's argument.
    AggArg,
    /// Inside an aggregate's `filter (where ...)` or `count_if`'s condition (per line).
    Filter,
    /// Per group.
    Group,
}

struct Planner<'q> {
    q: &'q str,
    group_by: Vec<Expr>,
    agg_asts: Vec<Expr>,
    aggs: Vec<AggSpec>,
    keys: Vec<String>,
    /// `--tz`, `now()` and the time property.
    zone: Zone,
    now: i128,
    time_field: Vec<Seg>,
    /// While compiling a wildcard condition's test: where its wildcard side's wildcard
    /// starts (that side reads the current element, [`Ex::Elem`]).
    elem_at: Option<usize>,
    /// `extract`s given a memo so far (see `memo.rs`).
    memos: usize,
}

fn text_of<'q>(q: &'q str, e: &Expr) -> &'q str {
    q.get(e.span.start..e.span.end).unwrap_or("")
}

/// A column's name: the text as written without comments, each whitespace run one space.
fn column_name(text: &str) -> String {
    // Comments (`--` to the end of the line, outside string literals) are left out.
    let mut kept = String::with_capacity(text.len());
    let mut in_string = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if !in_string && rest.starts_with("--") {
            rest = rest.find('\n').map_or("", |n| &rest[n..]);
            continue;
        }
        in_string ^= c == '\'';
        kept.push(c);
        rest = &rest[c.len_utf8()..];
    }
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `e` is a call of an aggregate function.
fn is_agg_call(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { name, .. }
        if matches!(func::lookup(name), Some((FuncName::Agg(_), ..))))
}

fn contains_agg(e: &Expr) -> bool {
    is_agg_call(e) || e.children().into_iter().any(contains_agg)
}

impl<'q> Planner<'q> {
    fn err<T>(&self, e: &Expr, kind: ErrorKind, msg: impl Into<String>) -> Result<T, QueryError> {
        Err(QueryError::new(self.q, e.span.start, e.span.end, msg).with_kind(kind))
    }

    /// The path `segs`, its first key noted in the key set.
    fn note_path(&mut self, segs: &[Seg]) -> Path {
        let slot = match segs.first() {
            Some(Seg::Key(k)) => match self.keys.iter().position(|x| x == k) {
                Some(i) => i,
                None => {
                    self.keys.push(k.clone());
                    self.keys.len() - 1
                }
            },
            // Not a key: `resolve` answers nothing, and the slot is never read.
            _ => usize::MAX,
        };
        Path {
            slot,
            segs: segs.to_vec().into_boxed_slice(),
        }
    }

    fn compile(&mut self, e: &Expr, ctx: Ctx) -> Result<Ex, QueryError> {
        if ctx == Ctx::Group
            && let Some(i) = self.group_by.iter().position(|g| g == e)
        {
            return Ok(Ex::Key(i));
        }
        if self.elem_at.is_none()
            && let Some(side) = array::wild_side(self.q, e)?
        {
            return self.quantified(e, side, ctx);
        }
        let bx = |p: &mut Self, e: &Expr| p.compile(e, ctx).map(Box::new);
        Ok(match &e.kind {
            ExprKind::Null => Ex::Const(Val::Null),
            ExprKind::Bool(b) => Ex::Const(Val::Bool(*b)),
            ExprKind::Number(n) => match parse_number(n) {
                // Not `Val::number`: the literal `1e400` is the infinity it spells.
                Some(n) => Ex::Const(Val::Num(n, None)),
                None => return self.err(e, ErrorKind::Syntax, "this is not a number"),
            },
            ExprKind::Str(s) => Ex::Const(Val::string(s.clone())),
            ExprKind::Duration(n) => Ex::Const(Val::Dur(*n)),
            ExprKind::Path(segs) => {
                if ctx == Ctx::Group {
                    return self.ungrouped(e);
                }
                Ex::Path(self.note_path(segs))
            }
            ExprKind::Wild { wild, .. } => {
                if self.elem_at == Some(wild.start) {
                    Ex::Elem
                } else if self.elem_at.is_some() {
                    return Err(array::nested(self.q, (wild.start, wild.end)));
                } else {
                    return Err(array::misplaced(
                        self.q,
                        (wild.start, wild.end),
                        text_of(self.q, e),
                    ));
                }
            }
            ExprKind::Member {
                expr,
                array,
                negated,
            } => Ex::Member {
                ex: bx(self, expr)?,
                array: bx(self, array)?,
                negated: *negated,
            },
            ExprKind::Filter { call, kw, .. } => match &call.kind {
                ExprKind::Call {
                    name,
                    name_span,
                    args,
                } if !matches!(func::lookup(name), Some((f, ..)) if !matches!(f, FuncName::Agg(_))) =>
                {
                    // An aggregate (or an unknown name, which `call` reports).
                    return self.call(e, name, *name_span, args, ctx);
                }
                _ => {
                    let what = match &call.kind {
                        ExprKind::Call { name_span, .. } => {
                            format!("'{}' is not one", &self.q[name_span.start..name_span.end])
                        }
                        _ => "this is not one".to_owned(),
                    };
                    return Err(QueryError::new(
                        self.q,
                        kw.start,
                        kw.end,
                        format!("filter (where ...) applies only to aggregates, and {what}"),
                    )
                    .with_kind(ErrorKind::Aggregate));
                }
            },
            ExprKind::Star => {
                return self.err(e, ErrorKind::Arguments, "'*' is only allowed in count(*)");
            }
            ExprKind::Neg(a) => Ex::Neg(bx(self, a)?),
            ExprKind::Not(a) => Ex::Not(bx(self, a)?),
            ExprKind::Bin(op, a, b) => {
                let (a2, b2) = (bx(self, a)?, bx(self, b)?);
                match op {
                    BinOp::Or => Ex::Or(a2, b2),
                    BinOp::And => Ex::And(a2, b2),
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        self.check_null_compare(e, *op, a, b)?;
                        Ex::Cmp(*op, a2, b2)
                    }
                    BinOp::Concat => Ex::Text(TextFunc::Concat, self.as_text(vec![*a2, *b2])),
                    _ => Ex::Arith(*op, a2, b2),
                }
            }
            ExprKind::Like {
                expr,
                pattern,
                negated,
                ci,
            } => {
                let ex = bx(self, expr)?;
                let pattern = match &pattern.kind {
                    ExprKind::Str(p) if *ci => Pattern::Fixed(Like::new_ci(p)),
                    ExprKind::Str(p) => Pattern::Fixed(Like::new(p)),
                    _ => Pattern::Dynamic(bx(self, pattern)?),
                };
                Ex::Like {
                    ex,
                    pattern,
                    negated: *negated,
                    ci: *ci,
                }
            }
            ExprKind::In {
                expr,
                list,
                negated,
            } => Ex::In {
                ex: bx(self, expr)?,
                list: list
                    .iter()
                    .map(|x| self.compile(x, ctx))
                    .collect::<Result<_, _>>()?,
                negated: *negated,
            },
            ExprKind::IsNull { expr, negated } => Ex::IsNull {
                ex: bx(self, expr)?,
                negated: *negated,
            },
            ExprKind::Call {
                name,
                name_span,
                args,
            } => return self.call(e, name, *name_span, args, ctx),
            ExprKind::Case {
                subject,
                arms,
                default,
            } => self.case(subject.as_deref(), arms, default.as_deref(), ctx)?,
        })
    }

    /// `case`: `case x when null` is never a match, a query error as `x = null` is.
    fn case(
        &mut self,
        subject: Option<&Expr>,
        arms: &[(Expr, Expr)],
        default: Option<&Expr>,
        ctx: Ctx,
    ) -> Result<Ex, QueryError> {
        if let Some(x) = subject
            && let Some((null, _)) = arms.iter().find(|(a, _)| a.kind == ExprKind::Null)
        {
            let x = text_of(self.q, x);
            return self.err(
                null,
                ErrorKind::NullComparison,
                format!("case {x} when null is never true: write case when {x} is null then ..."),
            );
        }
        let subject = subject.map(|x| self.compile(x, ctx)).transpose()?;
        let arms = arms
            .iter()
            .map(|(a, v)| Ok((self.compile(a, ctx)?, self.compile(v, ctx)?)))
            .collect::<Result<_, QueryError>>()?;
        let default = default.map(|d| self.compile(d, ctx)).transpose()?;
        Ok(Ex::Case(Box::new(Case {
            subject,
            arms,
            default,
        })))
    }

    /// The error for a property read per group outside `group by` and outside aggregates.
    fn ungrouped<T>(&self, e: &Expr) -> Result<T, QueryError> {
        let t = text_of(self.q, e);
        if self.group_by.is_empty() {
            self.err(
                e,
                ErrorKind::GroupBy,
                format!(
                    "'{t}' must be inside an aggregate, because this query aggregates (or add 'group by {t}')"
                ),
            )
        } else {
            self.err(
                e,
                ErrorKind::GroupBy,
                format!("'{t}' must appear in group by or be inside an aggregate"),
            )
        }
    }

    /// Condition `e` whose side `side` is a wildcard path: its test, that side reading each
    /// element in turn (see `array.rs`).
    fn quantified(&mut self, e: &Expr, side: &Expr, ctx: Ctx) -> Result<Ex, QueryError> {
        let ExprKind::Wild {
            segs,
            at,
            every,
            wild,
        } = &side.kind
        else {
            return self.err(side, ErrorKind::Arguments, "not a wildcard path");
        };
        if ctx == Ctx::Group {
            return self.ungrouped(e);
        }
        let array = self.note_path(&segs[..*at]);
        self.elem_at = Some(wild.start);
        let test = self.compile(e, ctx);
        self.elem_at = None;
        Ok(Ex::Quant(Box::new(Quant {
            array,
            rest: segs[*at..].to_vec().into_boxed_slice(),
            every: *every,
            test: test?,
        })))
    }

    fn check_null_compare(
        &self,
        e: &Expr,
        op: BinOp,
        a: &Expr,
        b: &Expr,
    ) -> Result<(), QueryError> {
        let other = match (&a.kind, &b.kind) {
            (ExprKind::Null, _) => b,
            (_, ExprKind::Null) => a,
            _ => return Ok(()),
        };
        // `x < null` is null, as any comparison with null: the language makes only an
        // equality with null an error (the one written by mistake for `is null`).
        let fix = match op {
            BinOp::Eq => "is null",
            BinOp::Ne => "is not null",
            _ => return Ok(()),
        };
        let (whole, x) = (text_of(self.q, e), text_of(self.q, other));
        self.err(
            e,
            ErrorKind::NullComparison,
            format!("{whole} is never true: write {x} {fix}"),
        )
    }

    fn call(
        &mut self,
        e: &Expr,
        name: &str,
        name_span: parse::Span,
        args: &[Expr],
        ctx: Ctx,
    ) -> Result<Ex, QueryError> {
        let name_err = |msg: String| {
            Err(QueryError::new(self.q, name_span.start, name_span.end, msg)
                .with_kind(ErrorKind::UnknownFunction))
        };
        let Some((f, lo, hi)) = func::lookup(name) else {
            let written = &self.q[name_span.start..name_span.end];
            return name_err(match func::suggest(name) {
                Some(s) => format!("unknown function '{written}' (did you mean '{s}'?)"),
                None => format!("unknown function '{written}'"),
            });
        };
        if args.len() < lo || args.len() > hi {
            let takes = match (lo, hi) {
                (1, 1) => "1 argument".to_owned(),
                (l, h) if l == h => format!("{l} arguments"),
                (l, usize::MAX) => {
                    format!("at least {l} argument{}", if l == 1 { "" } else { "s" })
                }
                (l, h) => format!("{l} or {h} arguments"),
            };
            return self.err(
                e,
                ErrorKind::Arguments,
                format!("{name}() takes {takes}, found {}", args.len()),
            );
        }
        if let Some(star) = args.iter().find(|a| a.kind == ExprKind::Star)
            && !(f == FuncName::Agg(AggFunc::Count))
        {
            return self.err(
                star,
                ErrorKind::Arguments,
                "'*' is only allowed in count(*)",
            );
        }
        let arg = |p: &mut Self, i: usize| p.compile(&args[i], ctx).map(Box::new);
        Ok(match f {
            FuncName::Agg(agg) => {
                let text = text_of(self.q, e);
                match ctx {
                    Ctx::Line(clause) => {
                        return self.err(
                            e,
                            ErrorKind::Aggregate,
                            format!("aggregate '{text}' is not allowed in {clause}"),
                        );
                    }
                    Ctx::AggArg => {
                        return self.err(
                            e,
                            ErrorKind::Aggregate,
                            format!("aggregate '{text}' cannot be inside another aggregate"),
                        );
                    }
                    Ctx::Filter => {
                        return self.err(
                            e,
                            ErrorKind::Aggregate,
                            format!("aggregate '{text}' cannot be inside an aggregate's filter"),
                        );
                    }
                    Ctx::Group => {}
                }
                if let Some(i) = self.agg_asts.iter().position(|a| a == e) {
                    return Ok(Ex::Agg(i));
                }
                // `count_if(C)` is `count(*) filter (where C)`.
                let (agg, arg_ex, mut filter) = match &args[0].kind {
                    _ if agg == AggFunc::CountIf => (
                        AggFunc::Count,
                        None,
                        Some(self.compile(&args[0], Ctx::Filter)?),
                    ),
                    ExprKind::Star => (agg, None, None),
                    _ => (agg, Some(self.compile(&args[0], Ctx::AggArg)?), None),
                };
                if let ExprKind::Filter { cond, .. } = &e.kind {
                    let cond = self.compile(cond, Ctx::Filter)?;
                    filter = Some(match filter {
                        Some(f) => Ex::And(Box::new(f), Box::new(cond)),
                        None => cond,
                    });
                }
                let mut p = Decimal::ZERO;
                if agg == AggFunc::Percentile {
                    let pe = &args[1];
                    let value = match &pe.kind {
                        ExprKind::Number(n) => parse_number(n),
                        _ => None,
                    };
                    // A float-held literal counts as the Decimal it spells (29 digits of
                    // `0.5000…1` are 0.5); one below Decimal's smallest step (`1e-40`) as
                    // 1e-28, which gives the first rank for any count of values.
                    let tiny = |n: Num| match n {
                        Num::Float(f) if f > 0.0 && f < 1e-28 => Some(Decimal::new(1, 28)),
                        _ => None,
                    };
                    match value.map(|n| n.as_decimal().or_else(|| tiny(n))) {
                        Some(Some(d)) if d > Decimal::ZERO && d <= Decimal::ONE_HUNDRED => {
                            p = d;
                        }
                        Some(_) => {
                            return self.err(
                                pe,
                                ErrorKind::Arguments,
                                format!(
                                    "percentile must be greater than 0 and at most 100, found {}",
                                    text_of(self.q, pe)
                                ),
                            );
                        }
                        None => {
                            return self.err(
                                pe,
                                ErrorKind::Arguments,
                                "the percentile must be a number literal, greater than 0 and at most 100",
                            );
                        }
                    }
                }
                self.agg_asts.push(e.clone());
                self.aggs.push(AggSpec {
                    func: agg,
                    arg: arg_ex,
                    p,
                    filter,
                });
                Ex::Agg(self.aggs.len() - 1)
            }
            FuncName::Has => match &args[0].kind {
                ExprKind::Path(segs) if ctx != Ctx::Group => Ex::Has(self.note_path(segs)),
                ExprKind::Path(_) => {
                    // Per group, has(x) is only valid when it is itself a group key.
                    let t = text_of(self.q, e);
                    return self.err(
                        e,
                        ErrorKind::GroupBy,
                        format!("'{t}' must appear in group by or be inside an aggregate"),
                    );
                }
                _ => {
                    return self.err(
                        &args[0],
                        ErrorKind::Arguments,
                        "has() takes a property path, like has(Properties.User)",
                    );
                }
            },
            FuncName::Match => {
                let s = arg(self, 0)?;
                let pattern = match &args[1].kind {
                    ExprKind::Str(re) => match Regex::new(re) {
                        Ok(r) => Pattern::Fixed(r),
                        Err(err) => return Err(text::regex_error(self.q, &args[1], &err)),
                    },
                    _ => Pattern::Dynamic(arg(self, 1)?),
                };
                Ex::Match(s, pattern)
            }
            FuncName::Coalesce => Ex::Coalesce(
                args.iter()
                    .map(|a| self.compile(a, ctx))
                    .collect::<Result<_, _>>()?,
            ),
            FuncName::If => {
                let [c, a, b] = [0, 1, 2].map(|i| &args[i]);
                self.case(None, &[(c.clone(), a.clone())], Some(b), ctx)?
            }
            FuncName::Text(f) => {
                let args = args
                    .iter()
                    .map(|a| self.compile(a, ctx))
                    .collect::<Result<_, _>>()?;
                match f {
                    TextFunc::Concat | TextFunc::ConcatSkipNull => Ex::Text(f, self.as_text(args)),
                    _ => Ex::Text(f, args),
                }
            }
            FuncName::Extract => {
                let (text, regex) = (self.compile(&args[0], ctx)?, self.compile(&args[1], ctx)?);
                let group = args.get(2).map(|g| self.compile(g, ctx)).transpose()?;
                let mut x = Extract::plan(self.q, args, text, regex, group)?;
                if let Some(k) = x.fixed_group() {
                    x.memo = Some((self.memos, k));
                    self.memos += 1;
                }
                Ex::Extract(Box::new(x))
            }
            FuncName::Time(tf) => return self.time_call(tf, args, ctx),
            FuncName::Scalar(f) => {
                let a = arg(self, 0)?;
                if f == func::Func::ToString {
                    return Ok(Ex::Time(TimeFn::ToString, a, None, self.zone.clone()));
                }
                let b = if args.len() > 1 {
                    Some(arg(self, 1)?)
                } else {
                    None
                };
                Ex::Call(f, a, b)
            }
        })
    }
}

impl Planner<'_> {
    /// The operands of `||` or `concat`, each written as `tostring` writes it: with `--tz`,
    /// a timestamp goes through `tostring` (in the zone) instead of the operator's own text
    /// (the same for every other value).
    fn as_text(&self, args: Vec<Ex>) -> Vec<Ex> {
        if !self.zone.is_given() {
            return args;
        }
        args.into_iter()
            .map(|a| Ex::Time(TimeFn::ToString, Box::new(a), None, self.zone.clone()))
            .collect()
    }

    /// A time function: `now()` is the plan's constant.
    fn time_call(&mut self, tf: TimeFn, args: &[Expr], ctx: Ctx) -> Result<Ex, QueryError> {
        if tf == TimeFn::Now {
            return Ok(Ex::Const(Val::Time(self.now)));
        }
        // (`time(DURATION)` comes written out with its property: see `spell_out_time`.)
        let mut compiled = Vec::with_capacity(2);
        for a in args {
            compiled.push(self.compile(a, ctx)?);
        }
        let mut it = compiled.into_iter();
        let a = Box::new(it.next().unwrap_or(Ex::Const(Val::Null)));
        let b = it.next().map(Box::new);
        Ok(Ex::Time(tf, a, b, self.zone.clone()))
    }

    /// `--since`/`--until` as a condition on the time property read as `datetime`.
    fn time_range(&mut self, since: Option<i128>, until: Option<i128>) -> Option<Ex> {
        let mut conds = Vec::new();
        for (op, bound) in [(BinOp::Ge, since), (BinOp::Lt, until)] {
            let Some(bound) = bound else {
                continue;
            };
            let field = self.time_field.clone();
            let t = Ex::Time(
                TimeFn::DateTime,
                Box::new(Ex::Path(self.note_path(&field))),
                None,
                Zone::utc(),
            );
            conds.push(Ex::Cmp(
                op,
                Box::new(t),
                Box::new(Ex::Const(Val::Time(bound))),
            ));
        }
        conds
            .into_iter()
            .reduce(|a, b| Ex::And(Box::new(a), Box::new(b)))
    }
}

/// The path of the time property as written (`@t`, `Properties.Time`, `['odd key']`); a
/// name that is not a path is one top-level key.
fn time_field(name: &str) -> Vec<Seg> {
    path_of(name).unwrap_or_else(|| vec![Seg::Key(name.to_owned())])
}

/// `name` as a property path, when it is one written as a query writes it.
fn path_of(name: &str) -> Option<Vec<Seg>> {
    if let Ok(q) = parse::parse(&format!("select {name}"))
        && q.filter.is_none()
        && q.group_by.is_empty()
        && let Some([item]) = q.select.as_deref()
        && item.alias.is_none()
        && let ExprKind::Path(segs) = &item.expr.kind
    {
        return Some(segs.clone());
    }
    None
}

/// Whether `name` can be the time property (`--time-field`): a property path as a query
/// writes it, else why not.
pub fn check_time_field(name: &str) -> Result<(), String> {
    match path_of(name) {
        Some(_) => Ok(()),
        None if name.trim().is_empty() => Err("expected a property path, found nothing".into()),
        None => Err(format!(
            "'{name}' is not a property path as a query writes one (a key with spaces or other \
             characters is written ['{}'])",
            name.replace('\'', "''")
        )),
    }
}

impl Plan {
    /// Parse and plan `query`, with the default time options (UTC, `now()` the time of
    /// compiling, `@t` the time property).
    pub fn compile(query: &str) -> Result<Plan, QueryError> {
        Plan::compile_with(query, &TimeOptions::default())
    }

    /// Parse and plan `query` with the command line's time options (`--tz`,
    /// `--time-field`, `--since`, `--until`; `now()` pinned for tests).
    pub fn compile_with(query: &str, time: &TimeOptions) -> Result<Plan, QueryError> {
        let ast = parse::parse(query)?;
        plan(query, ast, time)
    }
    /// A query that does not compile because it was written without its keyword, as a
    /// search box takes it (`Elapsed > 200`, `count(*)`): the query with `where` or `select`
    /// put before it, whichever compiles (`where` first when the text compares or joins
    /// conditions); `None` when neither does. For the "did you mean" of a query error.
    ///
    /// ```
    /// use ndq_query::{Plan, TimeOptions};
    ///
    /// let time = TimeOptions::default();
    /// let fixed = Plan::keyword_left_out("Elapsed > 200", &time);
    /// assert_eq!(fixed.as_deref(), Some("where Elapsed > 200"));
    /// let fixed = Plan::keyword_left_out("count(*)", &time);
    /// assert_eq!(fixed.as_deref(), Some("select count(*)"));
    /// assert_eq!(Plan::keyword_left_out("Elapsed >", &time), None);
    /// ```
    pub fn keyword_left_out(query: &str, time: &TimeOptions) -> Option<String> {
        let lower = query.to_lowercase();
        let ops = [
            "=", "<", ">", " like ", " in ", " in(", " is ", " and ", " or ",
        ];
        let condition = lower.starts_with("not ") || ops.iter().any(|op| lower.contains(op));
        let clauses = if condition {
            ["where", "select"]
        } else {
            ["select", "where"]
        };
        clauses.iter().find_map(|clause| {
            let fixed = format!("{clause} {query}");
            Plan::compile_with(&fixed, time).is_ok().then_some(fixed)
        })
    }
    /// How to drive it.
    pub fn kind(&self) -> Kind {
        self.kind
    }
    /// Output column names, in select order (empty for [`Kind::Lines`], and for a
    /// [`Kind::Collect`] plan whose rows are whole lines, see [`Plan::lines`]).
    pub fn columns(&self) -> &[String] {
        &self.columns
    }
    /// `limit N`, if any.
    pub fn limit(&self) -> Option<u64> {
        self.limit
    }
    /// `offset M`: how many rows to skip (after `order by`, before `limit`); 0 when not
    /// written. A [`Kind::Collect`] plan applies it in [`Plan::finish`]; for
    /// [`Kind::Lines`] / [`Kind::Rows`] the CLI skips the first `offset` rows it would write
    /// (and, with a `limit`, stops after `offset + limit`).
    pub fn offset(&self) -> u64 {
        self.offset
    }
    /// Whether the output is whole input lines (`select *` or no select). For
    /// [`Kind::Lines`] the CLI writes matching lines itself; for a [`Kind::Collect`] plan
    /// (`select * ... order by`) every finished row is one [`crate::Value::RawJson`]: the
    /// whole line as read ([`crate::Doc::line`]), to be written unchanged in every format.
    pub fn lines(&self) -> bool {
        self.lines
    }
    /// Whether the CLI may stop reading once it has written `limit` rows (after skipping
    /// `offset`): true for a `limit` on [`Kind::Lines`] / [`Kind::Rows`] (no order by, no
    /// aggregation, no distinct).
    pub fn early_stop(&self) -> bool {
        self.limit.is_some() && self.kind != Kind::Collect
    }
    /// Whether the query has a `where`, or a time range (`--since`/`--until`, which is part
    /// of it): a line may then be ruled out from the keys it reads, so that the rest of the
    /// line need not be looked at (`Parser::parse_prefix`). The time property usually comes
    /// first, so a line out of range is dropped after reading it alone.
    pub fn has_where(&self) -> bool {
        self.filter.is_some()
    }
    /// The top-level keys the query reads (for `Parser::parse_until`).
    pub fn key_set(&self) -> &ndq_scan::KeySet {
        &self.keys
    }
    /// `doc`, scanned with [`Plan::key_set`], as the root to evaluate this plan on: its
    /// top-level keys are found where the scanner noted them.
    pub fn root<'a>(&'a self, doc: ndq_scan::Document<'a>) -> Scanned<'a> {
        Scanned {
            doc,
            keys: &self.keys,
        }
    }
    /// The same keys as text, in first-use order.
    pub fn key_names(&self) -> &[String] {
        &self.key_names
    }
    /// The literal prefilter of `where`: what a line's raw bytes must contain (in some
    /// spelling) for `where` to be true. `None` when `where` requires no literal (or there is
    /// no `where`). See [`Prefilter`].
    pub fn prefilter(&self) -> Option<&Prefilter> {
        self.prefilter.as_ref()
    }
    /// What `where` (with `--since`/`--until`) requires of the time property, as bounds a
    /// line's leading time is checked against ([`TimeRange::rules_out`]); `None` when it
    /// bounds none.
    pub fn time_range(&self) -> Option<&TimeRange> {
        self.range.as_ref()
    }
    /// The tests of `where` that a line's top-level property equals a text (`@l = 'error'`,
    /// `@l in ('Error', 'Fatal')`), outside any `not`, as (key, text, false) in the order
    /// written: what to look for in the lines when nothing matched. A comparison of two
    /// top-level properties (`@l = Error`, maybe a text written without quotes) is there too,
    /// as (key, other key, true).
    pub fn text_tests(&self) -> Vec<(String, String, bool)> {
        fn key(ex: &Ex) -> Option<&str> {
            match ex {
                Ex::Path(p) => match &p.segs[..] {
                    [Seg::Key(k)] => Some(k),
                    _ => None,
                },
                _ => None,
            }
        }
        fn text(ex: &Ex) -> Option<&str> {
            match ex {
                Ex::Const(Val::Str(s, _)) => Some(s),
                _ => None,
            }
        }
        fn walk(ex: &Ex, out: &mut Vec<(String, String, bool)>) {
            match ex {
                Ex::And(a, b) | Ex::Or(a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                Ex::Cmp(BinOp::Eq, a, b) => {
                    let pair = match (key(a), text(b), text(a), key(b)) {
                        (Some(k), Some(t), ..) | (_, _, Some(t), Some(k)) => Some((k, t)),
                        _ => None,
                    };
                    if let Some((k, t)) = pair {
                        out.push((k.to_string(), t.to_string(), false));
                    } else if let (Some(k), Some(bare)) = (key(a), key(b)) {
                        out.push((k.to_string(), bare.to_string(), true));
                    }
                }
                Ex::In {
                    ex,
                    list,
                    negated: false,
                } => {
                    if let Some(k) = key(ex) {
                        out.extend(
                            list.iter()
                                .filter_map(text)
                                .map(|t| (k.to_string(), t.to_string(), false)),
                        );
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        if let Some(filter) = &self.filter {
            walk(filter, &mut out);
        }
        out
    }
    /// The top-level key whose leading times ([`crate::leading_time`]) say something about
    /// this query: the time property (`--time-field`), when the time range bounds it or the
    /// query reads it; `None` otherwise (also for a range on another key).
    pub fn time_key(&self) -> Option<&str> {
        self.time_key.as_deref()
    }
}

/// `e` itself, or the select item it names: a bare name equal to an alias (an alias wins over
/// a property of the same name), or a whole number `n`, the `n`-th item (as in SQL: `order by
/// 2 desc`). A number outside the select list is an error, as is a position with no select
/// list.
fn aliased<'e>(
    q: &str,
    clause: &str,
    e: &'e Expr,
    items: &'e [parse::Item],
) -> Result<&'e Expr, QueryError> {
    if let Some(k) = bare_name(e) {
        return Ok(items
            .iter()
            .find(|i| i.alias.as_deref() == Some(k))
            .map_or(e, |i| &i.expr));
    }
    match &e.kind {
        ExprKind::Number(text) if text.bytes().all(|b| b.is_ascii_digit()) => {
            match text.parse::<usize>().ok().and_then(|n| n.checked_sub(1)) {
                Some(i) if i < items.len() => Ok(&items[i].expr),
                _ => Err(QueryError::new(
                    q,
                    e.span.start,
                    e.span.end,
                    match items.len() {
                        0 => format!(
                            "{clause} {text} names a select column by position, but there is no select list"
                        ),
                        1 => format!(
                            "{clause} {text} names a select column by position, but there is only 1"
                        ),
                        n => format!(
                            "{clause} {text} names a select column by position, but there are only {n}"
                        ),
                    },
                )
                .with_kind(ErrorKind::Arguments)),
            }
        }
        _ => Ok(e),
    }
}

/// The name `e` is when it is one bare name (`x`, not `a.x` nor `[0]`): what can be a select
/// column's alias.
fn bare_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Path(segs) => match segs.as_slice() {
            [Seg::Key(k)] => Some(k),
            _ => None,
        },
        _ => None,
    }
}

/// An error when a bare name in `e` (outside aggregate arguments and filters, as
/// [`substitute`] reads it) is the alias of two select items that differ: `order by x` after
/// `select a as x, b as x` could mean either (as in SQL, where it is ambiguous too).
fn unambiguous(q: &str, clause: &str, e: &Expr, items: &[parse::Item]) -> Result<(), QueryError> {
    if let Some(k) = bare_name(e) {
        let mut named = items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.alias.as_deref() == Some(k));
        if let Some((first, item)) = named.next()
            && let Some((other, _)) = named.find(|(_, i)| i.expr != item.expr)
        {
            return Err(QueryError::new(
                q,
                e.span.start,
                e.span.end,
                format!(
                    "{clause} {k} is ambiguous: select columns {} and {} are both named {k}; \
                     give them different names",
                    first + 1,
                    other + 1
                ),
            )
            .with_kind(ErrorKind::GroupBy));
        }
        return Ok(());
    }
    if is_agg_call(e) || matches!(e.kind, ExprKind::Filter { .. }) {
        return Ok(());
    }
    e.children()
        .into_iter()
        .try_for_each(|c| unambiguous(q, clause, c, items))
}

/// The first aggregate call in `e` (outermost, leftmost), if any.
fn first_agg(e: &Expr) -> Option<&Expr> {
    if is_agg_call(e) {
        return Some(e);
    }
    e.children().into_iter().find_map(first_agg)
}

/// `e` with each bare name that is a select alias replaced by the item it names (an alias
/// wins over a property of that name, as in `order by`), outside aggregate arguments and
/// filters (which read lines, where aliases mean nothing).
fn with_aliases(e: &Expr, items: &[parse::Item]) -> Expr {
    let mut e = e.clone();
    substitute(&mut e, items);
    e
}

fn substitute(e: &mut Expr, items: &[parse::Item]) {
    if let Some(k) = bare_name(e)
        && let Some(item) = items.iter().find(|i| i.alias.as_deref() == Some(k))
    {
        *e = item.expr.clone();
    } else if !is_agg_call(e) && !matches!(e.kind, ExprKind::Filter { .. }) {
        for child in e.children_mut() {
            substitute(child, items);
        }
    }
}

/// Column names made unique: the first column of a name keeps it; a later one gets the
/// smallest suffix `_2`, `_3`, ... that makes a name no column has, as written or as given
/// (`select a, a as a_2, a` gives `a`, `a_2`, `a_3`), so JSON keys never repeat.
fn unique_names(written: Vec<String>) -> Vec<String> {
    use std::collections::HashSet;
    let all: HashSet<&str> = written.iter().map(String::as_str).collect();
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(written.len());
    for name in &written {
        let mut given = name.clone();
        if taken.contains(&given) {
            given = (2u64..)
                .map(|k| format!("{name}_{k}"))
                .find(|c| !all.contains(c.as_str()) && !taken.contains(c))
                .unwrap_or_default();
        }
        taken.insert(given.clone());
        out.push(given);
    }
    out
}

/// `time(DURATION)` written out as `time(PROPERTY, DURATION)`, `PROPERTY` the time field, in
/// `e` and everything inside it: the two spellings are then one expression, so either may
/// stand in `select` for the other in `group by` (`select time(@t, 1m) ... group by
/// time(1m)`). The property takes the call's span, so an error about it names the call.
fn spell_out_time(e: &mut Expr, field: &[Seg]) {
    let span = e.span;
    if let ExprKind::Call { name, args, .. } = &mut e.kind
        && name == "time"
        && args.len() == 1
    {
        let property = Expr {
            kind: ExprKind::Path(field.to_vec()),
            span,
        };
        args.insert(0, property);
    }
    for c in e.children_mut() {
        spell_out_time(c, field);
    }
}

fn plan(q: &str, mut ast: Query, time: &TimeOptions) -> Result<Plan, QueryError> {
    let field = time_field(&time.time_field);
    let exprs = (ast.select.iter_mut().flatten().map(|i| &mut i.expr))
        .chain(ast.filter.as_mut())
        .chain(ast.group_by.iter_mut())
        .chain(ast.having.as_mut().map(|(e, _)| e))
        .chain(ast.order_by.iter_mut().map(|(e, _)| e));
    for e in exprs {
        spell_out_time(e, &field);
    }
    if let Some((name, span)) = &ast.from
        && !name.eq_ignore_ascii_case("stream")
    {
        return Err(QueryError::new(
            q,
            span.start,
            span.end,
            format!(
                "unknown source '{name}': the only source is 'stream' (the files named on the command line, or standard input)"
            ),
        )
        .with_kind(ErrorKind::UnknownSource));
    }
    let items = ast.select.as_deref().unwrap_or(&[]);
    // Where a name can be an alias: `group by`'s bare names only ([`aliased`]), any name in
    // `having` and `order by` ([`substitute`]).
    for g in ast.group_by.iter().filter(|g| bare_name(g).is_some()) {
        unambiguous(q, "group by", g, items)?;
    }
    for (clause, e) in (ast.having.iter().map(|(e, _)| ("having", e)))
        .chain(ast.order_by.iter().map(|(e, _)| ("order by", e)))
    {
        unambiguous(q, clause, e, items)?;
    }
    // `having` may name select aliases: they are read as the items they name.
    let having = ast
        .having
        .as_ref()
        .map(|(e, kw)| (with_aliases(e, items), *kw));
    let grouped = !ast.group_by.is_empty()
        || items.iter().any(|i| contains_agg(&i.expr))
        || ast.order_by.iter().any(|(e, _)| contains_agg(e))
        || having.as_ref().is_some_and(|(e, _)| contains_agg(e));
    if let Some((_, kw)) = &having
        && !grouped
    {
        return Err(QueryError::new(
            q,
            kw.start,
            kw.end,
            "having needs an aggregation; did you mean where?",
        )
        .with_kind(ErrorKind::Aggregate));
    }
    if ast.distinct.is_some() {
        let aggregate = items
            .iter()
            .map(|i| &i.expr)
            .chain(having.as_ref().map(|(e, _)| e))
            .chain(ast.order_by.iter().map(|(e, _)| e))
            .find_map(first_agg);
        if let Some(a) = aggregate {
            return Err(QueryError::new(
                q,
                a.span.start,
                a.span.end,
                format!(
                    "select distinct cannot be combined with an aggregate ('{}'): group by gives one row per key",
                    text_of(q, a)
                ),
            )
            .with_kind(ErrorKind::Aggregate));
        }
    }
    let lines = ast.select.is_none();
    if lines && grouped {
        let (s, e) = match (&ast.star, ast.group_by.first()) {
            (Some(sp), _) => (sp.start, sp.end),
            (None, Some(g)) => (g.span.start, g.span.end),
            (None, None) => (0, q.len()),
        };
        return Err(QueryError::new(
            q,
            s,
            e,
            "an aggregating query needs a select list (select * writes whole lines)",
        )
        .with_kind(ErrorKind::GroupBy));
    }
    let mut p = Planner {
        q,
        group_by: ast
            .group_by
            .iter()
            .map(|g| aliased(q, "group by", g, items).cloned())
            .collect::<Result<_, _>>()?,
        agg_asts: Vec::new(),
        aggs: Vec::new(),
        keys: Vec::new(),
        zone: time.zone.clone(),
        now: time.now.unwrap_or_else(crate::time::now),
        time_field: field,
        elem_at: None,
        memos: 0,
    };
    let filter = match &ast.filter {
        Some(e) => Some(p.compile(e, Ctx::Line("where"))?),
        None => None,
    };
    // `--since`/`--until` are one more condition of `where`: true only for lines whose time
    // is in range, so everything that honours `where` honours them. (The prefilter, derived
    // from the query's own `where`, stays sound: lines it rules out fail this `and` too.)
    let filter = match (filter, p.time_range(time.since, time.until)) {
        (Some(f), Some(r)) => Some(Ex::And(Box::new(r), Box::new(f))),
        (f, r) => f.or(r),
    };
    let prefilter = ast.filter.as_ref().and_then(prefilter::derive);
    let range = filter.as_ref().and_then(range::derive);
    // The time property, when every line that is read at all reads it: the range's key when
    // that is the time field, or the time field when the query reads it (`time(1m)`,
    // `datetime(@t)`). A range on another key (`where v = 5`) makes no zone map: the map
    // would be made from every line, the prefilter's skips off, for values that are seldom
    // times, while the line-by-line check of the range costs nothing more.
    let time_key = match (&range, p.time_field.as_slice()) {
        (Some(r), [Seg::Key(k)]) if r.key() == k => Some(k.clone()),
        (None, [Seg::Key(k)]) if p.keys.contains(k) && range::plain_key(k) => Some(k.clone()),
        _ => None,
    };
    let group_asts = p.group_by.clone();
    let group_by = group_asts
        .iter()
        .map(|g| p.compile(g, Ctx::Line("group by")))
        .collect::<Result<Vec<_>, _>>()?;
    let columns = unique_names(
        items
            .iter()
            .map(|i| {
                i.alias
                    .clone()
                    .unwrap_or_else(|| column_name(text_of(q, &i.expr)))
            })
            .collect(),
    );
    let item_ctx = if grouped {
        Ctx::Group
    } else {
        Ctx::Line("select")
    };
    let compiled = items
        .iter()
        .map(|i| p.compile(&i.expr, item_ctx))
        .collect::<Result<Vec<_>, _>>()?;
    let mut order = Vec::new();
    for (e, desc) in &ast.order_by {
        // An alias or a position names a select item (an alias wins over a property).
        let target = aliased(q, "order by", e, items)?;
        // As in SQL: the rows of select distinct are made of the select items only, so an
        // order key must be one of them (`select distinct *` holds every property).
        if ast.distinct.is_some() && !lines && !items.iter().any(|i| i.expr == *target) {
            return Err(QueryError::new(
                q,
                e.span.start,
                e.span.end,
                "for select distinct, order by expressions must appear in the select list",
            )
            .with_kind(ErrorKind::GroupBy));
        }
        let ctx = if grouped {
            Ctx::Group
        } else {
            Ctx::Line("order by")
        };
        order.push((p.compile(target, ctx)?, *desc));
    }
    if order.len() > 64 {
        let e = &ast.order_by[64].0;
        return Err(QueryError::new(
            q,
            e.span.start,
            e.span.end,
            "order by takes at most 64 keys",
        )
        .with_kind(ErrorKind::Arguments));
    }
    let having = match &having {
        Some((e, _)) => Some(p.compile(e, Ctx::Group)?),
        None => None,
    };
    let distinct = ast.distinct.is_some();
    let kind = if grouped || !order.is_empty() || distinct {
        Kind::Collect
    } else if lines {
        Kind::Lines
    } else {
        Kind::Rows
    };
    let (items, out) = if grouped {
        (Vec::new(), compiled)
    } else {
        (compiled, Vec::new())
    };
    let dirs = order
        .iter()
        .enumerate()
        .fold(0, |d, (i, (_, desc))| d | (u64::from(*desc) << i));
    Ok(Plan {
        dirs,
        kind,
        lines,
        columns,
        limit: ast.limit,
        offset: ast.offset.unwrap_or(0),
        distinct,
        having,
        keys: ndq_scan::KeySet::new(&p.keys),
        key_names: p.keys,
        filter,
        items,
        grouped,
        group_by,
        aggs: p.aggs,
        out,
        order,
        prefilter,
        zone: p.zone,
        range,
        time_key,
    })
}
