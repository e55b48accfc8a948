//! The public per-thread evaluator, [`Worker`]: what the CLI calls for each line. It owns the
//! reusable buffers and dispatches to the layers below it — `eval.rs` for `where` and the
//! select items, `agg.rs` for folding a line into an [`Accumulator`] — and nothing below
//! calls back up here.

use crate::agg::{self, Accumulator};
use crate::doc::Doc;
use crate::eval::{self, Scratch};
use crate::plan::Plan;
use crate::value::Value;

/// Per-worker evaluator.
#[derive(Debug)]
pub struct Worker<'p> {
    plan: &'p Plan,
    scratch: Scratch,
    /// The row of [`Worker::with_row`], empty between calls (kept for its capacity).
    row_buf: Vec<Value<'static>>,
}

/// An empty vector of another lifetime keeping `v`'s allocation (collecting an empty
/// `vec::IntoIter` into a vector of a same-layout type reuses the buffer in place).
fn recycle<'b>(mut v: Vec<Value<'_>>) -> Vec<Value<'b>> {
    v.clear();
    v.into_iter().map(|_| Value::Null).collect()
}

impl Plan {
    /// Per-worker evaluation state (scratch buffers; compiled regexes are shared).
    pub fn worker(&self) -> Worker<'_> {
        Worker {
            plan: self,
            scratch: Scratch::default(),
            row_buf: Vec::new(),
        }
    }
}

impl<'p> Worker<'p> {
    /// Whether `where` is true for this document (no `where`: true).
    pub fn matches<'a, D: Doc<'a>>(&mut self, root: D) -> bool {
        eval::matches(self.plan, root, &mut self.scratch)
    }

    /// The select items of a [`crate::Kind::Rows`] plan for this document: clears `row` and
    /// pushes one value per column. Values read straight from the input borrow its text.
    pub fn project<'a, D: Doc<'a>>(&mut self, root: D, row: &mut Vec<Value<'a>>) {
        eval::project(self.plan, root, &mut self.scratch, row);
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
    /// into `acc` (its group's aggregates, a kept row for `order by`, or a new row of
    /// `select distinct`). Returns whether the line matched.
    pub fn accumulate<'a, D: Doc<'a>>(&mut self, root: D, acc: &mut Accumulator) -> bool {
        if !self.matches(root) {
            return false;
        }
        self.fold(root, acc);
        true
    }

    /// [`Worker::accumulate`] for a line already known to pass `where` ([`Worker::matches`]).
    pub fn fold<'a, D: Doc<'a>>(&mut self, root: D, acc: &mut Accumulator) {
        agg::accumulate(self.plan, &mut self.scratch, root, acc);
    }
}
