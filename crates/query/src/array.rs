//! Conditions on arrays (docs/language.md, "Arrays"): `x in PATH` (membership) and the wildcard
//! paths `[?]` (some element) and `[*]` (every element).
//!
//! The parser reads a wildcard path as [`ExprKind::Wild`] and `x in PATH` as
//! [`ExprKind::Member`]; [`wild_side`] tells the planner which side of a condition is the
//! wildcard path (at most one), and the planner compiles the condition into an
//! [`Ex::Quant`](crate::ir::Ex::Quant) whose test reads the current element. The evaluator
//! walks the elements ([`crate::Doc::each_element`]) and folds what each gives with
//! [`Membership`] or [`Quantifier`], which hold the rules:
//!
//! - `x in PATH`: true when some element equals `x` (as `=`: numerically, strings by code
//!   point, other types never equal), else null when some comparison was null, else false;
//!   null when the value is not an array. So an empty array gives false, even for a null `x`.
//! - `[?]`: true when the condition is true for some element, else false; `[*]`: true when it
//!   is true for every element (an empty array: true). A value that is not an array (absent,
//!   null, a string...) gives false for both. Never null: a null for an element counts as
//!   not true.
//!
//! A wildcard path is a side of a comparison, `like`/`ilike` (either side), `in (...)` (the
//! tested value or an item) or `is [not] null`; one per condition. Anywhere else (`select
//! Tags[?]`, a function's argument, arithmetic, `x in Tags[?]`, a wildcard condition nested
//! in another wildcard condition's side) it is a query error pointing at the wildcard.

use crate::error::{ErrorKind, QueryError};
use crate::parse::{BinOp, Expr, ExprKind};

/// The wildcard-path side of condition `e` (a comparison, `like`, `in (...)`, `is null`),
/// if it has one; an error pointing at the second wildcard when two sides have one.
pub(crate) fn wild_side<'e>(q: &str, e: &'e Expr) -> Result<Option<&'e Expr>, QueryError> {
    let sides: Vec<&Expr> = match &e.kind {
        ExprKind::Bin(
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge,
            a,
            b,
        ) => vec![a, b],
        ExprKind::Like { expr, pattern, .. } => vec![expr, pattern],
        ExprKind::In { expr, list, .. } => std::iter::once(&**expr).chain(list).collect(),
        ExprKind::IsNull { expr, .. } => vec![expr],
        _ => return Ok(None),
    };
    let mut wild = sides
        .into_iter()
        .filter(|s| matches!(s.kind, ExprKind::Wild { .. }));
    let first = wild.next();
    if let Some(Expr {
        kind: ExprKind::Wild { wild: at, .. },
        ..
    }) = wild.next()
    {
        return Err(QueryError::new(
            q,
            at.start,
            at.end,
            "only one side of a condition may be a wildcard path; compare with one element \
             (Tags[0]) or write two conditions",
        )
        .with_kind(ErrorKind::Arguments));
    }
    Ok(first)
}

/// The error for a wildcard path where none may be: `wild` spans the wildcard, `path` is
/// the path as written.
pub(crate) fn misplaced(q: &str, wild: (usize, usize), path: &str) -> QueryError {
    QueryError::new(
        q,
        wild.0,
        wild.1,
        format!(
            "a wildcard path is only allowed as a side of a comparison, like, in (...) or \
             is null (as in {path} = 'x')"
        ),
    )
    .with_kind(ErrorKind::Arguments)
}

/// The error for a wildcard (spanning `wild`) inside a side of another wildcard condition:
/// each element of the outer array would test every element of the inner one.
pub(crate) fn nested(q: &str, wild: (usize, usize)) -> QueryError {
    QueryError::new(
        q,
        wild.0,
        wild.1,
        "a wildcard condition cannot be inside a side of another wildcard condition; write \
         them as two conditions",
    )
    .with_kind(ErrorKind::Arguments)
}

/// The fold of `x in PATH` over the elements: see the module docs.
#[derive(Debug, Default)]
pub(crate) struct Membership {
    found: bool,
    unknown: bool,
}

impl Membership {
    /// Take whether `x` equals one element (`None`: null); `false` once the answer is known.
    #[inline]
    pub(crate) fn see(&mut self, equal: Option<bool>) -> bool {
        match equal {
            Some(true) => {
                self.found = true;
                false
            }
            Some(false) => true,
            None => {
                self.unknown = true;
                true
            }
        }
    }

    /// The answer over the elements seen (`None`: null).
    pub(crate) fn answer(&self) -> Option<bool> {
        if self.found {
            Some(true)
        } else if self.unknown {
            None
        } else {
            Some(false)
        }
    }
}

/// The fold of a wildcard condition over the elements: see the module docs.
#[derive(Debug)]
pub(crate) struct Quantifier {
    every: bool,
    holds: bool,
}

impl Quantifier {
    /// For `[*]` when `every`, else `[?]`; before any element (an empty array's answer).
    pub(crate) fn new(every: bool) -> Quantifier {
        Quantifier {
            every,
            holds: every,
        }
    }

    /// Take whether the condition is true for one element; `false` once the answer is
    /// known (`[?]`: a true one; `[*]`: one that is not).
    #[inline]
    pub(crate) fn see(&mut self, held: bool) -> bool {
        if held != self.every {
            self.holds = held;
            false
        } else {
            true
        }
    }

    /// The answer, when the value was an array (`is_array`), else false.
    pub(crate) fn answer(&self, is_array: bool) -> bool {
        is_array && self.holds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn membership_is_three_valued() {
        let fold = |os: &[Option<bool>]| {
            let mut m = Membership::default();
            for &o in os {
                if !m.see(o) {
                    break;
                }
            }
            m.answer()
        };
        assert_eq!(fold(&[]), Some(false));
        assert_eq!(fold(&[Some(false)]), Some(false));
        assert_eq!(fold(&[None, Some(true)]), Some(true));
        assert_eq!(fold(&[Some(false), None]), None);
    }

    #[test]
    fn quantifiers_any_and_every() {
        let fold = |every: bool, held: &[bool], is_array: bool| {
            let mut q = Quantifier::new(every);
            for &h in held {
                if !q.see(h) {
                    break;
                }
            }
            q.answer(is_array)
        };
        assert!(!fold(false, &[], true));
        assert!(fold(true, &[], true));
        assert!(fold(false, &[false, true], true));
        assert!(!fold(false, &[false, false], true));
        assert!(fold(true, &[true, true], true));
        assert!(!fold(true, &[true, false, true], true));
        assert!(!fold(true, &[], false));
        assert!(!fold(false, &[], false));
    }
}
