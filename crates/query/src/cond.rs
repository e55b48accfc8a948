//! Conditional expressions: `case when C then V ... [else E] end`, `case X when A then V ...
//! end` and `if(C, A, B)` (planned as `case when C then A else B end`).
//!
//! Invariants: a `when` arm is taken only when its condition is `true` (three-valued: `null`
//! is not true), or, with a subject, when `X = A` is `true` (a `null` comparison, from a
//! `null` on either side or two types, is not a match); arms are tried in order and only the
//! chosen value is evaluated; no arm taken and no `else` gives `null`. The chosen value is
//! returned as it is (a number read from the input keeps its text).

use std::cmp::Ordering;

use crate::doc::Doc;
use crate::eval::{Cx, Scratch, eval};
use crate::plan::Ex;
use crate::value::{Val, compare};

/// A planned `case`.
#[derive(Debug)]
pub(crate) struct Case {
    /// `X` of `case X when A ...`; `None` for `case when C ...`.
    pub subject: Option<Ex>,
    /// `(C or A, V)` of each `when ... then ...`, in order.
    pub arms: Vec<(Ex, Ex)>,
    pub default: Option<Ex>,
}

impl Case {
    pub(crate) fn eval<'x, 'a: 'x, D: Doc<'a>>(
        &'x self,
        root: D,
        cx: Cx<'x>,
        s: &mut Scratch,
    ) -> Val<'x> {
        match &self.subject {
            None => {
                for (cond, value) in &self.arms {
                    if matches!(eval(cond, root, cx, s), Val::Bool(true)) {
                        return eval(value, root, cx, s);
                    }
                }
            }
            Some(subject) => {
                let x = eval(subject, root, cx, s);
                if !x.is_null() {
                    for (a, value) in &self.arms {
                        if compare(&x, &eval(a, root, cx, s)) == Some(Ordering::Equal) {
                            return eval(value, root, cx, s);
                        }
                    }
                }
            }
        }
        match &self.default {
            Some(e) => eval(e, root, cx, s),
            None => Val::Null,
        }
    }
}
