//! `select distinct` over lines: one row per distinct combination of the select items'
//! values, kept from the first line that has it.
//!
//! A combination is found by the same canonical key encoding `group by` uses
//! ([`encode_key`]), so numerically equal values are one (`1.5` and `1.50`), and arrays or
//! objects are equal by value. `select distinct *` takes the whole line as one object value:
//! two lines are one row when they hold the same JSON object (key order, spacing and number
//! spellings aside); the first line is written unchanged.
//!
//! Mergeable: a [`Distinct`] covers some lines in input order and keeps each combination's
//! first row, in order of first appearance; [`Distinct::merge`] appends the later part's rows
//! whose combination is new, which is exactly what one pass over both parts would keep. So any
//! split into chunks, merged in input order, gives the same rows in the same order.
//!
//! The owner (`agg.rs`) sorts the rows by their order keys (evaluated on the first line: with
//! distinct they are select items, equal on every line of a combination) and applies
//! `offset` and `limit`.

use std::collections::HashMap;

use crate::doc::Doc;
use crate::eval::{self, Cx, Scratch, eval};
use crate::plan::Plan;
use crate::value::{Val, Value, encode_key};

/// The distinct rows seen so far, in order of first appearance.
#[derive(Clone, Debug, Default)]
pub(crate) struct Distinct {
    /// Encoded combination → its index in `rows`.
    seen: HashMap<Box<[u8]>, usize>,
    /// Per combination: the order keys and the row of its first line.
    pub rows: Vec<(Vec<Val<'static>>, Vec<Value<'static>>)>,
}

impl Distinct {
    /// Fold one line that passed `where`: its row is kept when its combination is new.
    pub fn add<'a, D: Doc<'a>>(&mut self, plan: &Plan, s: &mut Scratch, root: D) {
        let mut key = std::mem::take(&mut s.key_buf);
        key.clear();
        if plan.lines {
            encode_key(&Val::Json(false, root.raw()), &mut key);
        } else {
            for ex in &plan.items {
                let v = eval(ex, root, Cx::default(), s);
                encode_key(&v, &mut key);
            }
        }
        if !self.seen.contains_key(key.as_slice()) {
            self.seen.insert(key.as_slice().into(), self.rows.len());
            let keys = plan
                .order
                .iter()
                .map(|(ex, _)| eval(ex, root, Cx::default(), s).into_owned())
                .collect();
            let mut row = Vec::with_capacity(plan.columns.len().max(1));
            eval::project(plan, root, s, &mut row);
            self.rows
                .push((keys, row.into_iter().map(Value::into_owned).collect()));
        }
        s.key_buf = key;
    }

    /// Fold in `later`, which covers lines after all of `self`'s.
    pub fn merge(&mut self, later: Distinct) {
        let mut by_index: Vec<(Box<[u8]>, usize)> = later.seen.into_iter().collect();
        by_index.sort_unstable_by_key(|(_, i)| *i);
        for ((key, _), row) in by_index.into_iter().zip(later.rows) {
            if !self.seen.contains_key(&key) {
                self.seen.insert(key, self.rows.len());
                self.rows.push(row);
            }
        }
    }
}
