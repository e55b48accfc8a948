//! Partial results of collecting queries ([`Accumulator`]) and how they merge and finish.
//!
//! Sits above the evaluator (`eval.rs`, whose [`Scratch`] buffers it borrows) and below the
//! public `Worker` (`worker.rs`), which calls [`accumulate`] for each matching line.
//!
//! Two shapes:
//! - **Groups** (aggregation): one [`AggState`] per aggregate per group, groups found by the
//!   canonical encoding of their keys (numerically equal keys are one group) in the tables
//!   of `groups.rs` (compact, split into partitions when merged, merged in parallel). Every
//!   state merges exactly (sums are exact decimals, percentile keeps every value,
//!   count_distinct keeps the set), and each partition merges its pieces in input order, so
//!   merging per-chunk accumulators in input order equals one pass; the group order of first
//!   appearance is kept too (self's groups, then later's new ones). Finishing works
//!   partition by partition too, each keeping at most `offset + limit` groups.
//! - **Rows** (`order by` without aggregation): rows kept owned with their sort keys and a
//!   sequence number; merging renumbers the later accumulator's rows after self's, and the
//!   final sort is by (keys, sequence), i.e. stable. With `limit k` at most the `k` best rows
//!   are kept (a max-heap whose top is the worst kept row), so memory stays bounded.
//!
//! Sums do not depend on the order or the split either: Decimals are summed exactly
//! ([`DecimalSum`]) and so are numbers held as floats ([`FloatSum`]), each rounded once.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::LazyLock;

use foldhash::fast::RandomState;
use ndq_scan::decimal_parts;
use rayon::prelude::*;
use rust_decimal::Decimal;

use rust_decimal::prelude::ToPrimitive;

use crate::distinct::Distinct;
use crate::doc::{Doc, NoDoc};
use crate::dsum::DecimalSum;
use crate::eval::{self, Cx, Scratch, eval, resolve_number};
use crate::fsum::FloatSum;
use crate::func::AggFunc;
use crate::groups::{Groups, Table, decode_keys, hash_key, write_spelling};
use crate::ir::{AggSpec, Ex};
use crate::plan::Plan;
use crate::value::{
    Num, Val, Value, coarse_key, encode_key, parse_number, positive_zero, text_word, total_cmp,
};
use crate::valueset::ValueSet;

/// Partial results of a [`Kind::Collect`](crate::plan::Kind::Collect) query over some lines; mergeable.
#[derive(Clone, Debug, Default)]
pub struct Accumulator {
    inner: Inner,
}

#[derive(Clone, Debug, Default)]
enum Inner {
    /// `Accumulator::default()`: merges as the identity; finishes like a fresh accumulator.
    #[default]
    Empty,
    Groups(Groups<AggState>),
    Rows(Rows),
    /// `select distinct` (not aggregating).
    Distinct(Distinct),
}

/// Up to this many groups, [`Accumulator::weight`] counts the values their states hold.
const WEIGHED_GROUPS: usize = 4096;

/// The hash of the empty key (the one group of an aggregation without `group by`).
static EMPTY_KEY: LazyLock<u64> = LazyLock::new(|| hash_key(&[]));

/// A running sum, exact whatever the order and the split: Decimals go into a [`DecimalSum`]
/// and numbers held as floats into a [`FloatSum`], each rounded once at the end. The total is
/// written with the largest scale of any input (`1.50 + 1.50` is `3.00`), or, when that would
/// take more digits than a Decimal holds, with as many decimals as fit (rounded half to
/// even); a total beyond a Decimal's range, or with floats in it, is a float.
#[derive(Clone, Debug, Default)]
struct SumState {
    dec: DecimalSum,
    scale: u32,
    float: FloatSum,
    has_float: bool,
    n: u64,
}

impl SumState {
    fn add(&mut self, n: Num) {
        match n {
            Num::Dec(d) => self.add_parts(d.mantissa(), d.scale()),
            Num::Float(f) => {
                self.float.add(f);
                self.has_float = true;
                self.n += 1;
            }
        }
    }
    /// Add `mantissa / 10^scale` (a Decimal's parts, or a number as [`decimal_parts`] reads
    /// it, without making a Decimal of it first).
    #[inline]
    fn add_parts(&mut self, mantissa: i128, scale: u32) {
        self.scale = self.scale.max(scale);
        self.dec.add_parts(mantissa, scale);
        self.n += 1;
    }
    fn merge(&mut self, o: SumState) {
        self.dec.merge(&o.dec);
        self.scale = self.scale.max(o.scale);
        self.float.merge(&o.float);
        self.has_float |= o.has_float;
        self.n += o.n;
    }
    fn total(&self) -> Num {
        match self.dec.total(self.scale) {
            Some(d) if !self.has_float => Num::Dec(positive_zero(d)),
            _ => Num::Float(self.floats().total()),
        }
    }
    /// The sum as a float sum (Decimals and floats together).
    fn floats(&self) -> FloatSum {
        let mut all = self.dec.float_sum();
        all.merge(&self.float);
        all
    }
}

/// A number a percentile keeps, with its input text where writing the number would spell it
/// otherwise.
type PctNum = (Num, Option<Box<str>>);

/// A percentile's numbers, in input order: a lone number in the state's box itself, so that
/// a group of one line (most groups of a key of many values, `percentile(Elapsed, 95) group
/// by RequestPath`) costs one allocation instead of a box and a vector. `first` is set only
/// while `rest` is empty.
#[derive(Clone, Debug, Default)]
struct Pcts {
    first: Option<PctNum>,
    rest: Vec<PctNum>,
}

impl Pcts {
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    fn is_empty(&self) -> bool {
        self.first.is_none() && self.rest.is_empty()
    }

    /// Keep `n` after the numbers kept so far.
    fn push(&mut self, n: PctNum) {
        if self.is_empty() {
            self.first = Some(n);
            return;
        }
        self.rest.extend(self.first.take());
        self.rest.push(n);
    }

    /// Keep `later`'s numbers after these.
    fn append(&mut self, later: Pcts) {
        if later.is_empty() {
            return;
        }
        if self.is_empty() {
            *self = later;
            return;
        }
        self.rest.extend(self.first.take());
        self.rest.extend(later.first);
        self.rest.extend(later.rest);
    }

    /// Every number, in input order, in one slice.
    fn all(&mut self) -> &mut [PctNum] {
        match &mut self.first {
            Some(n) => std::slice::from_mut(n),
            None => &mut self.rest,
        }
    }
}

/// One aggregate of one group. All but `Count` boxed, so that a state is two words: groups
/// times aggregates of them are kept (a `count(*)` by a key of a million values).
// The sets and lists of numbers are boxed too, for the same size (a `Vec` is three words).
#[derive(Clone, Debug)]
enum AggState {
    Count(u64),
    Sum(Box<SumState>),
    Avg(Box<SumState>),
    Min(Option<Box<Val<'static>>>),
    Max(Option<Box<Val<'static>>>),
    Pct(Box<Pcts>),
    Distinct(Box<ValueSet>),
}

/// What a state is replaced with when it is moved out of its place (`groups.rs`).
impl Default for AggState {
    fn default() -> AggState {
        AggState::Count(0)
    }
}

impl AggState {
    /// The values the state holds (a distinct count's, a percentile's), which a merge folds
    /// one by one; 0 for a state of fixed size.
    fn values(&self) -> usize {
        match self {
            AggState::Pct(all) => all.len(),
            AggState::Distinct(set) => set.len(),
            _ => 0,
        }
    }

    fn new(f: AggFunc) -> AggState {
        match f {
            AggFunc::Count | AggFunc::CountIf => AggState::Count(0),
            AggFunc::Sum => AggState::Sum(Box::default()),
            AggFunc::Avg => AggState::Avg(Box::default()),
            AggFunc::Min => AggState::Min(None),
            AggFunc::Max => AggState::Max(None),
            AggFunc::Percentile => AggState::Pct(Box::default()),
            AggFunc::CountDistinct => AggState::Distinct(Box::default()),
        }
    }

    /// Fold in one line's argument value (`None` for `count(*)`).
    fn update(&mut self, v: Option<&Val<'_>>, buf: &mut Vec<u8>) {
        match (self, v) {
            (AggState::Count(n), None) => *n += 1,
            (AggState::Count(n), Some(v)) => *n += u64::from(!v.is_null()),
            (AggState::Sum(s) | AggState::Avg(s), Some(Val::Num(n, _))) => s.add(*n),
            (AggState::Min(best), Some(v)) => keep_best(best, v, std::cmp::Ordering::Less),
            (AggState::Max(best), Some(v)) => keep_best(best, v, std::cmp::Ordering::Greater),
            (AggState::Pct(all), Some(Val::Num(n, raw))) => all.push((
                *n,
                raw.as_deref().filter(|r| respelled(*n, r)).map(Box::from),
            )),
            (AggState::Distinct(set), Some(v)) if !v.is_null() => {
                buf.clear();
                encode_key(v, buf);
                set.insert(buf);
            }
            _ => {}
        }
    }

    fn merge(&mut self, later: AggState) {
        match (self, later) {
            (AggState::Count(a), AggState::Count(b)) => *a += b,
            (AggState::Sum(a), AggState::Sum(b)) | (AggState::Avg(a), AggState::Avg(b)) => {
                a.merge(*b)
            }
            (AggState::Min(a), AggState::Min(Some(b))) => {
                keep_best(a, &b, std::cmp::Ordering::Less)
            }
            (AggState::Max(a), AggState::Max(Some(b))) => {
                keep_best(a, &b, std::cmp::Ordering::Greater)
            }
            (AggState::Pct(a), AggState::Pct(b)) => a.append(*b),
            (AggState::Distinct(a), AggState::Distinct(b)) => a.merge(*b),
            _ => {}
        }
    }

    /// The aggregate's value (sorts a percentile's values in place: called once, at the end).
    fn finish(&mut self, spec: &AggSpec) -> Val<'static> {
        let count = |n: u64| Val::number(Num::Dec(Decimal::from(n)));
        match self {
            AggState::Count(n) => count(*n),
            AggState::Sum(s) if s.n > 0 => Val::number(s.total()),
            AggState::Avg(s) if s.n > 0 => match s.total() {
                Num::Dec(d) => match d.checked_div(Decimal::from(s.n)) {
                    Some(q) => Val::number(Num::Dec(q.normalize())),
                    None => Val::Null,
                },
                // A sum beyond a Decimal's range, whose mean may yet be one: exact if so; else
                // the exact sum over the count, rounded once (finite when the mean is, even
                // when the sum is not).
                Num::Float(_) => match (!s.has_float).then(|| s.dec.quotient(s.n)).flatten() {
                    Some(q) => Val::number(Num::Dec(q.normalize())),
                    None => Val::number(Num::Float(s.floats().mean(s.n))),
                },
            },
            AggState::Min(Some(v)) | AggState::Max(Some(v)) => (**v).clone(),
            AggState::Pct(nums) if !nums.is_empty() => {
                let all = nums.all();
                let rank = nearest_rank(spec.p, all.len());
                let (n, raw) = nth_stable(all, rank - 1);
                // The value taken from the input, written as it was (as `min`/`max` do).
                Val::Num(*n, raw.as_deref().map(|r| Cow::Owned(r.to_owned())))
            }
            AggState::Distinct(set) => count(set.len() as u64),
            _ => Val::Null,
        }
    }
}

/// Up to this many numbers, [`nth_stable`] sorts them: a copy of the values would cost more
/// than it saves (a percentile per request path holds one to a few numbers per group).
const SORTED_PERCENTILE: usize = 64;

/// The number a percentile takes: the one at `k` (0-based) of `all` sorted stably by value,
/// so that among equal values (1.5, 1.50) the input order decides which spelling is kept.
///
/// Found without sorting when every number is a Decimal (whose order is total): the `k`-th
/// smallest value `v` by selection on a copy of the values, O(n); in the stable order the
/// numbers equal to `v` come after the `below` ones smaller than it, in input order, so
/// place `k` holds the `(k - below)`-th of them. With a float among them (a number outside
/// Decimal's range, compared through `f64`, not always transitively against Decimals) the
/// list is sorted, as the definition says. The sort of a million numbers was most of a
/// `percentile` query's time after the scan, on one thread.
fn nth_stable(all: &mut [PctNum], k: usize) -> &PctNum {
    let k = k.min(all.len().saturating_sub(1));
    // A group's few numbers are sorted in place, without the copy.
    let decimals: Option<Vec<Decimal>> = (all.len() > SORTED_PERCENTILE)
        .then(|| {
            all.iter()
                .map(|(n, _)| match n {
                    Num::Dec(d) => Some(*d),
                    Num::Float(_) => None,
                })
                .collect()
        })
        .flatten();
    let Some(mut values) = decimals else {
        all.sort_by(|a, b| a.0.cmp(b.0));
        return &all[k];
    };
    let (_, &mut v, _) = values.select_nth_unstable(k);
    let is = |n: &Num, o: std::cmp::Ordering| matches!(n, Num::Dec(d) if d.cmp(&v) == o);
    let below = all
        .iter()
        .filter(|(n, _)| is(n, std::cmp::Ordering::Less))
        .count();
    let mut equal = all.iter().filter(|(n, _)| is(n, std::cmp::Ordering::Equal));
    // `v` is the k-th smallest: at most `k` numbers are below it, and more than `k` are at
    // most it, so the one sought exists.
    equal.nth(k.saturating_sub(below)).unwrap_or(&all[k])
}

/// Whether a number read as `raw` would be written in another spelling from its value (an
/// exponent, a float, a negative zero): then a percentile keeps `raw`. (Other input numbers
/// are written as they were from the Decimal, which keeps their scale.)
fn respelled(n: Num, raw: &str) -> bool {
    matches!(n, Num::Float(_)) || raw.contains(['e', 'E']) || raw.starts_with("-0")
}

/// Keep `v` in `best` when it is a number, string, timestamp or duration that sorts `want`
/// of the current one (ties keep the first seen).
fn keep_best(best: &mut Option<Box<Val<'static>>>, v: &Val<'_>, want: std::cmp::Ordering) {
    if !matches!(v, Val::Num(..) | Val::Str(..) | Val::Time(_) | Val::Dur(_)) {
        return;
    }
    let better = match best {
        None => true,
        Some(b) => total_cmp(v, b) == want,
    };
    if better {
        *best = Some(Box::new(v.borrowed().into_owned()));
    }
}

#[derive(Clone, Debug)]
struct Kept {
    keys: Vec<Val<'static>>,
    /// [`text_prefix`] of `keys`.
    prefix: Option<u64>,
    seq: u64,
    row: Vec<Value<'static>>,
    /// Bit `i` set: key `i` sorts descending.
    dirs: u64,
}

/// Compare sort keys, honouring directions (null is the greatest value: last ascending,
/// first descending).
fn cmp_keys(a: &[Val<'_>], b: &[Val<'_>], dirs: u64) -> std::cmp::Ordering {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let o = total_cmp(x, y);
        let o = if dirs >> i & 1 == 1 { o.reverse() } else { o };
        if o.is_ne() {
            return o;
        }
    }
    std::cmp::Ordering::Equal
}

/// A group kept for the result: its sort keys (`order by`'s, or its own keys without one),
/// its number of first appearance, its keys (with `order by`) and aggregates, and (`select
/// distinct`) its row encoded. Keys borrow from the group table they were read from.
struct Ranked<'t> {
    keys: Vec<Val<'t>>,
    seq: u64,
    dirs: u64,
    group: Vec<Val<'t>>,
    aggs: Vec<Val<'static>>,
    tag: Vec<u8>,
}

/// Order by sort keys (with their directions), then by first appearance: for rows (`Kept`)
/// and groups (`Ranked`) alike. `Kept` rows compare their [`text_prefix`]es first; groups
/// are sorted through handles ([`sorted`]), which hold more of the key than a prefix.
macro_rules! by_sort_keys {
    ($($t:ty),*) => {$(
        impl PartialEq for $t {
            fn eq(&self, o: &Self) -> bool {
                self.cmp(o).is_eq()
            }
        }
        impl Eq for $t {}
        impl PartialOrd for $t {
            fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(o))
            }
        }
    )*};
}
by_sort_keys!(Kept, Ranked<'_>);

impl Ord for Kept {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        if let (Some(a), Some(b)) = (self.prefix, o.prefix)
            && a != b
        {
            let by = a.cmp(&b);
            return if self.dirs & 1 == 1 { by.reverse() } else { by };
        }
        cmp_keys(&self.keys, &o.keys, self.dirs).then(self.seq.cmp(&o.seq))
    }
}

impl Ord for Ranked<'_> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        cmp_keys(&self.keys, &o.keys, self.dirs).then(self.seq.cmp(&o.seq))
    }
}

/// The first 8 bytes of the first sort key, big-endian, zeros after a shorter string, when
/// that key is a string; else `None`. Two strings whose prefixes differ sort as their
/// prefixes do (code point order is UTF-8's byte order, and a string shorter than 8 bytes
/// sorts before every longer one it starts), so most comparisons of a sort by text end on
/// this word, kept in the row, instead of two pointers away. Equal prefixes compare the keys
/// (paths of one API share their first 8 bytes, and gain nothing; ids and trace ids do).
fn text_prefix(keys: &[Val<'_>]) -> Option<u64> {
    let Val::Str(s, _) = keys.first()? else {
        return None;
    };
    Some((text_word(s, 0) >> 64) as u64)
}

/// A row of a sort by its place: a coarse key of its first sort key (turned over when that
/// key sorts descending), then its index.
#[derive(Clone, Copy)]
struct Handle {
    key: (u8, u128),
    index: u32,
}

/// The bytes of text in a [`text_word`], and how many words into tied strings [`sorted`]
/// looks before it compares rows.
const WORD: usize = 16;
const TEXT_LEVELS: usize = 16;

/// The indices of `rows` in the order `rows.sort()` would leave them; `first` gives a row's
/// first sort key and whether it sorts descending.
///
/// Rows are some 110 bytes and their keys two pointers away: a sort of the rows moves each
/// some twenty times and follows the pointers at every comparison (300 ms of a `group by`
/// of 380,000 paths). Here 32-byte handles are sorted, by the [`coarse_key`] of the first
/// sort key, then by index. Each run of equal coarse keys is then put in order: strings by
/// their next 16 bytes ([`text_word`]), and so on, as a radix sort by 16-byte digits (the
/// paths of one API share their first 16 bytes: `/api/customers/1`); what is still tied
/// (other types, strings equal that far) by the rows' own order. A row without a coarse key
/// (a float), or more rows than a handle can number, sends the whole sort to the rows' order,
/// on indices. The same order every way.
fn sorted<T: Ord + Sync>(
    rows: &[T],
    first: impl Fn(&T) -> (Option<&Val<'_>>, bool) + Sync,
) -> Vec<usize> {
    let handles: Option<Vec<Handle>> = rows
        .par_iter()
        .enumerate()
        .map(|(index, row)| {
            let (key, desc) = first(row);
            // No sort key at all (no `order by` and no group keys): every row ties.
            let (class, word) = key.map_or(Some((0, 0)), coarse_key)?;
            Some(Handle {
                key: if desc { (!class, !word) } else { (class, word) },
                index: u32::try_from(index).ok()?,
            })
        })
        .collect();
    let Some(mut handles) = handles else {
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.par_sort_unstable_by(|&a, &b| rows[a].cmp(&rows[b]));
        return order;
    };
    handles.par_sort_unstable_by(|a, b| a.key.cmp(&b.key).then(a.index.cmp(&b.index)));
    handles
        .par_chunk_by_mut(|a, b| a.key == b.key)
        .filter(|run| run.len() > 1)
        .for_each(|run| settle(run, rows, &first, WORD));
    handles.into_iter().map(|h| h.index as usize).collect()
}

/// Put in order a run of handles whose rows' first sort keys tie before byte `at` (see
/// [`sorted`]).
fn settle<T: Ord>(
    run: &mut [Handle],
    rows: &[T],
    first: &impl Fn(&T) -> (Option<&Val<'_>>, bool),
    at: usize,
) {
    // Each row's next word, while every first sort key of the run is a string.
    let mut text = at < WORD * TEXT_LEVELS;
    let mut longer = false;
    if text {
        for h in run.iter_mut() {
            let (Some(Val::Str(s, _)), desc) = first(&rows[h.index as usize]) else {
                text = false;
                break;
            };
            longer |= s.len() > at;
            let word = text_word(s, at);
            h.key.1 = if desc { !word } else { word };
        }
    }
    if text && longer {
        run.sort_unstable_by(|a, b| a.key.cmp(&b.key).then(a.index.cmp(&b.index)));
        for tie in run.chunk_by_mut(|a, b| a.key == b.key) {
            if tie.len() > 1 {
                settle(tie, rows, first, at + WORD);
            }
        }
    } else {
        run.sort_unstable_by(|a, b| rows[a.index as usize].cmp(&rows[b.index as usize]));
    }
}

/// Cut `all` to its first `want` (in their order, left unsorted), without sorting the rest.
fn keep_first<T: Ord>(all: &mut Vec<T>, want: usize) {
    if want < all.len() {
        if let Some(last) = want.checked_sub(1) {
            all.select_nth_unstable(last);
        }
        all.truncate(want);
    }
}

#[derive(Clone, Debug)]
struct Rows {
    /// Without a limit every row; with one, the best `cap` (top = worst kept).
    heap: BinaryHeap<Kept>,
    all: Vec<Kept>,
    cap: Option<usize>,
    next_seq: u64,
}

impl Rows {
    fn push(&mut self, k: Kept) {
        match self.cap {
            None => self.all.push(k),
            Some(cap) => {
                if self.heap.len() < cap {
                    self.heap.push(k);
                } else if self.heap.peek().is_some_and(|worst| k < *worst) {
                    self.heap.pop();
                    self.heap.push(k);
                }
            }
        }
    }
}

impl Plan {
    /// An empty partial result for [`Kind::Collect`](crate::plan::Kind::Collect).
    pub fn accumulator(&self) -> Accumulator {
        let inner = if self.grouped {
            let mut g = Groups::new(self.group_by.len(), self.aggs.len());
            if self.group_by.is_empty() {
                // Without group by there is exactly one group, even over zero lines.
                g.entry(*EMPTY_KEY, &[], 0, || self.new_states());
            }
            Inner::Groups(g)
        } else if self.distinct {
            Inner::Distinct(Distinct::default())
        } else {
            Inner::Rows(Rows {
                heap: BinaryHeap::new(),
                all: Vec::new(),
                // The rows `offset` skips are among the best too.
                cap: self
                    .limit
                    .map(|l| usize::try_from(l.saturating_add(self.offset)).unwrap_or(usize::MAX)),
                next_seq: 0,
            })
        };
        Accumulator { inner }
    }

    /// A new group's states, one per aggregate (taken by the table without a vector of
    /// their own).
    fn new_states(&self) -> impl Iterator<Item = AggState> + '_ {
        self.aggs.iter().map(|a| AggState::new(a.func))
    }

    /// The final rows of a [`Kind::Collect`](crate::plan::Kind::Collect) query from the accumulators merged in
    /// input order: grouped, filtered by `having`, made distinct, sorted, `offset` rows
    /// skipped and cut to `limit`.
    pub fn finish(&self, acc: Accumulator) -> Vec<Vec<Value<'static>>> {
        let inner = match acc.inner {
            Inner::Empty => self.accumulator().inner,
            other => other,
        };
        match inner {
            Inner::Empty => Vec::new(),
            Inner::Rows(r) => {
                let mut all = r.all;
                all.extend(r.heap);
                self.page(all)
            }
            Inner::Distinct(d) => {
                let dirs = self.dirs;
                let all = d
                    .rows
                    .into_iter()
                    .enumerate()
                    .map(|(seq, (keys, row))| Kept {
                        prefix: text_prefix(&keys),
                        keys,
                        seq: seq as u64,
                        row,
                        dirs,
                    })
                    .collect();
                self.page(all)
            }
            Inner::Groups(g) => self.finish_groups(g),
        }
    }

    /// The rows of an aggregation: each group's aggregates, `having` and sort keys worked
    /// out partition by partition (in parallel, on the current rayon pool); with `limit k
    /// offset m`, each partition keeps only its first m + k groups (chosen without sorting
    /// the others: the order is total, so the first m + k of all are among them), then the
    /// kept ones are sorted.
    fn finish_groups(&self, g: Groups<AggState>) -> Vec<Vec<Value<'static>>> {
        let ordered = !self.order.is_empty();
        let to_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let offset = to_usize(self.offset);
        let limit = self.limit.map_or(usize::MAX, to_usize);
        // `select distinct` with `group by`: which of equal rows stays depends on the order,
        // so every group is kept to be sorted.
        let want = if self.distinct {
            usize::MAX
        } else {
            offset.saturating_add(limit)
        };
        let mut parts = g.into_parts();
        let mut out: Vec<Ranked<'_>> = parts
            .par_iter_mut()
            .map(|table| self.rank_groups(table, ordered, want))
            .flatten()
            .collect();
        if !self.distinct {
            keep_first(&mut out, want);
        }
        let mut order = sorted(&out, |k| (k.keys.first(), k.dirs & 1 == 1));
        if self.distinct {
            let mut seen = HashSet::new();
            order.retain(|&i| seen.insert(std::mem::take(&mut out[i].tag)));
        }
        let end = offset.saturating_add(limit).min(order.len());
        let rows = order
            .par_iter()
            .take(end)
            .skip(offset)
            .map(|&i| &out[i])
            .map_init(Scratch::default, |scratch, k| {
                let cx = Cx {
                    keys: if ordered { &k.group } else { &k.keys },
                    aggs: &k.aggs,
                    ..Cx::default()
                };
                self.out
                    .iter()
                    .map(|ex| eval(ex, NoDoc, cx, scratch).into_output_in(&self.zone))
                    .collect()
            })
            .collect();
        // Many groups are many allocations to free: on the pool too.
        out.into_par_iter().for_each(drop);
        parts.into_par_iter().for_each(drop);
        rows
    }

    /// One table's groups that `having` keeps, with their sort keys; at most the first `want`
    /// (then a group that would not be among them is passed over before anything of it is
    /// copied).
    fn rank_groups<'t>(
        &self,
        table: &'t mut Table<AggState>,
        ordered: bool,
        want: usize,
    ) -> Vec<Ranked<'t>> {
        let mut scratch = Scratch::default();
        let d = if ordered { self.dirs } else { 0 };
        let bounded = want != usize::MAX;
        // Bounded: the best `want` so far, the worst on top.
        let mut best: BinaryHeap<Ranked<'t>> = BinaryHeap::new();
        let mut all: Vec<Ranked<'t>> = Vec::new();
        let keys = self.group_by.len();
        let mut group: Vec<Val<'_>> = Vec::with_capacity(keys);
        let mut sort: Vec<Val<'static>> = Vec::with_capacity(self.order.len());
        let mut aggs: Vec<Val<'static>> = Vec::with_capacity(self.aggs.len());
        // Ordered by aggregates alone (`order by n desc`, `order by errors * 100 / n desc`):
        // a group's sort keys are known before its keys are decoded, so one that cannot be
        // among the best `want` is passed over first (whatever `having` would say of it: it
        // would not be kept either way). Most groups of a key of many values go no further.
        let aggs_only = ordered && self.order.iter().all(|(ex, _)| ex.of_aggregates_only());
        // Whether a group of these sort keys and number sorts before the worst kept one.
        let better = |best: &BinaryHeap<Ranked<'t>>, sort_keys: &[Val<'_>], seq: u64| {
            best.len() < want
                || best.peek().is_some_and(|worst| {
                    cmp_keys(sort_keys, &worst.keys, d)
                        .then(seq.cmp(&worst.seq))
                        .is_lt()
                })
        };
        // Ordered by one aggregate (`order by count(*) desc limit k`, the commonest): when
        // it is a count, a group's count is compared with the worst kept one's as the
        // integer it is, before anything of the group is finished.
        let by_one = match self.order.as_slice() {
            [(Ex::Agg(i), _)] => Some(*i),
            _ => None,
        };
        // The worst kept group's count and number, as integers, once `want` are kept (set
        // again whenever the worst one changes).
        let mut worst_count: Option<(u64, u64)> = None;
        // Ordered by aggregates alone that are all counts (a rate: `count(*) filter (where
        // ...) * 100 / count(*)`): the sort keys are a function of the counts, and the groups
        // of a key of many values share few sets of counts (most have a line or two). So each
        // set's sort keys are worked out once, and compared with the worst kept group's once
        // while that group stays the worst (`kept` counts the groups kept; a verdict from an
        // earlier worst could only be too kind, as the worst only gets better, and a group
        // kept wrongly would be the one dropped).
        let mut memo: HashMap<[u64; MEMO_WIDTH], Memo, RandomState> = HashMap::default();
        let memo_on = aggs_only
            && self.aggs.len() <= MEMO_WIDTH
            && self
                .aggs
                .iter()
                .all(|a| matches!(a.func, AggFunc::Count | AggFunc::CountIf));
        let mut kept = 0u64;
        for (seq, bytes, states) in table.groups_mut(self.aggs.len()) {
            if let Some((w, worst_seq)) = worst_count
                && let Some(i) = by_one
                && let Some(AggState::Count(n)) = states.get(i)
            {
                let o = n.cmp(&w);
                let o = if d & 1 == 1 { o.reverse() } else { o };
                if o.then(seq.cmp(&worst_seq)).is_ge() {
                    continue;
                }
            }
            let counts = if memo_on { counts_of(states) } else { None };
            if let Some(m) = counts.and_then(|c| memo.get_mut(&c)) {
                if bounded
                    && best.len() >= want
                    && let Some(worst) = best.peek()
                {
                    let order = match m.verdict {
                        Some((at, order)) if at == kept => order,
                        _ => {
                            let order = cmp_keys(&m.sort, &worst.keys, d);
                            m.verdict = Some((kept, order));
                            order
                        }
                    };
                    if order.then(seq.cmp(&worst.seq)).is_ge() {
                        continue;
                    }
                }
                sort.clone_from(&m.sort);
                self.finish_states(states, &mut aggs);
            } else if aggs_only {
                self.finish_states(states, &mut aggs);
                let cx = Cx {
                    aggs: &aggs,
                    ..Cx::default()
                };
                sort.clear();
                sort.extend(
                    self.order
                        .iter()
                        .map(|(ex, _)| eval(ex, NoDoc, cx, &mut scratch).into_owned()),
                );
                if let Some(c) = counts
                    && memo.len() < MEMO_SETS
                {
                    let m = Memo {
                        sort: sort.clone(),
                        verdict: None,
                    };
                    memo.insert(c, m);
                }
                if bounded && !better(&best, &sort, seq) {
                    continue;
                }
            } else {
                self.finish_states(states, &mut aggs);
            }
            group.clear();
            decode_keys(bytes, keys, &mut group);
            let cx = Cx {
                keys: &group,
                aggs: &aggs,
                ..Cx::default()
            };
            if let Some(h) = &self.having
                && !matches!(eval(h, NoDoc, cx, &mut scratch), Val::Bool(true))
            {
                continue;
            }
            if ordered && !aggs_only {
                sort.clear();
                sort.extend(
                    self.order
                        .iter()
                        .map(|(ex, _)| eval(ex, NoDoc, cx, &mut scratch).into_owned()),
                );
            }
            let sort_keys: &[Val<'_>] = if ordered { &sort } else { &group };
            if bounded && !aggs_only && !better(&best, sort_keys, seq) {
                continue;
            }
            let mut tag = Vec::new();
            if self.distinct {
                for ex in &self.out {
                    encode_key(&eval(ex, NoDoc, cx, &mut scratch), &mut tag);
                }
            }
            let (sort_keys, group) = if ordered {
                (std::mem::take(&mut sort), group.clone())
            } else {
                (group.clone(), Vec::new())
            };
            let ranked = Ranked {
                keys: sort_keys,
                seq,
                dirs: d,
                group,
                aggs: std::mem::replace(&mut aggs, Vec::with_capacity(self.aggs.len())),
                tag,
            };
            if bounded {
                best.push(ranked);
                if best.len() > want {
                    best.pop();
                }
                kept += 1;
                worst_count = match best.peek() {
                    Some(worst) if best.len() >= want && by_one.is_some() => {
                        match worst.keys.as_slice() {
                            [Val::Num(Num::Dec(w), _)] => w.to_u64().map(|w| (w, worst.seq)),
                            _ => None,
                        }
                    }
                    _ => None,
                };
            } else {
                all.push(ranked);
            }
        }
        all.extend(best);
        all
    }

    /// A group's aggregates, finished, into `aggs`.
    fn finish_states(&self, states: &mut [AggState], aggs: &mut Vec<Val<'static>>) {
        aggs.clear();
        aggs.extend(
            states
                .iter_mut()
                .zip(&self.aggs)
                .map(|(s, spec)| s.finish(spec)),
        );
    }

    /// `rows` sorted (by their keys, then input order), the first `offset` left out, cut to
    /// `limit`.
    fn page(&self, mut rows: Vec<Kept>) -> Vec<Vec<Value<'static>>> {
        let to_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        rows.sort();
        rows.into_iter()
            .skip(to_usize(self.offset))
            .take(self.limit.map_or(usize::MAX, to_usize))
            .map(|k| k.row)
            .collect()
    }
}

/// The most aggregates, and sets of their counts per partition, whose sort keys a ranking
/// keeps ([`Plan::rank_groups`]): past them, groups are ranked one by one.
const MEMO_WIDTH: usize = 4;
const MEMO_SETS: usize = 4096;

/// One set of counts' sort keys, and how they compare with the worst kept group's: the
/// ranking's count of groups kept when that was worked out, and the comparison.
struct Memo {
    sort: Vec<Val<'static>>,
    verdict: Option<(u64, Ordering)>,
}

/// A group's states as a key of [`Memo`]s (the plan's aggregates are all counts; unused
/// places 0: the number of states is the plan's, the same for every group).
fn counts_of(states: &[AggState]) -> Option<[u64; MEMO_WIDTH]> {
    let mut key = [0; MEMO_WIDTH];
    for (k, s) in key.iter_mut().zip(states) {
        match s {
            AggState::Count(n) => *k = *n,
            _ => return None,
        }
    }
    (states.len() <= MEMO_WIDTH).then_some(key)
}

impl Accumulator {
    /// About how many things a merge of this accumulator has to fold, for a caller deciding
    /// whether to spread it over threads or run it beside other work: the groups of an
    /// aggregation, plus the values its `count_distinct`s and percentiles hold (one group
    /// may hold a million: `select count_distinct(TraceId)`), or the rows of a `select
    /// distinct`. The values are counted only while the groups are few (under 4,096); past
    /// that the groups say enough.
    pub fn weight(&self) -> usize {
        match &self.inner {
            Inner::Groups(g) if g.len() < WEIGHED_GROUPS => {
                g.len() + g.states().map(AggState::values).sum::<usize>()
            }
            Inner::Groups(g) => g.len(),
            Inner::Distinct(d) => d.rows.len(),
            _ => 0,
        }
    }

    /// Say that no more lines will be folded in (a chunk's accumulator, before it is merged):
    /// an aggregation of many groups lays them out for [`Accumulator::merge_all`] while they
    /// are in this thread's cache. Only the time of the merge depends on it; the rows do not.
    pub fn seal(&mut self) {
        if let Inner::Groups(g) = &mut self.inner {
            g.seal();
        }
    }

    /// Say that about `ahead` times the input read so far is still to come: a table of many
    /// groups then grows in fewer, larger steps (`Groups::expect_more`). Only the time
    /// and memory depend on it.
    pub fn expect_more(&mut self, ahead: f64) {
        if let Inner::Groups(g) = &mut self.inner {
            g.expect_more(ahead);
        }
    }

    /// Fold in `laters`, in order, each covering lines that come after all of `self`'s and
    /// of the ones before it. An aggregation's groups are merged partition by partition in
    /// parallel, on the current rayon pool (the caller's `install`); the result is that of
    /// [`Accumulator::merge`] one after another.
    pub fn merge_all(&mut self, laters: Vec<Accumulator>) {
        let mut groups = Vec::new();
        for later in laters {
            match (&mut self.inner, later.inner) {
                (_, Inner::Empty) => {}
                (Inner::Empty, later) => self.inner = later,
                (Inner::Groups(_), Inner::Groups(b)) => groups.push(b),
                (_, later) => self.merge(Accumulator { inner: later }),
            }
        }
        if let Inner::Groups(a) = &mut self.inner
            && !groups.is_empty()
        {
            a.merge_all(groups, true, &AggState::merge);
        }
    }

    /// Fold in `later`, which covers lines that come after all of `self`'s.
    pub fn merge(&mut self, later: Accumulator) {
        match (&mut self.inner, later.inner) {
            (_, Inner::Empty) => {}
            (Inner::Empty, later) => self.inner = later,
            (Inner::Groups(a), Inner::Groups(b)) => a.merge_all(vec![b], false, &AggState::merge),
            (Inner::Distinct(a), Inner::Distinct(b)) => a.merge(b),
            (Inner::Rows(a), Inner::Rows(b)) => {
                let offset = a.next_seq;
                a.next_seq += b.next_seq;
                for mut k in b.all.into_iter().chain(b.heap) {
                    k.seq += offset;
                    a.push(k);
                }
            }
            // Accumulators of different plans: keep self (a caller bug, not a panic).
            _ => {}
        }
    }
}

/// Whether this line's row (its sequence after all kept rows) would be kept: always without
/// a limit, else only when it sorts before the worst kept row. Keys are evaluated one at a
/// time and compared as they come, so a rejected line costs no allocation.
fn wants<'a, D: Doc<'a>>(plan: &Plan, s: &mut Scratch, root: D, r: &Rows, dirs: u64) -> bool {
    let Some(cap) = r.cap else {
        return true;
    };
    if r.heap.len() < cap {
        return true;
    }
    let Some(worst) = r.heap.peek() else {
        return false;
    };
    for (i, ((ex, _), kept)) in plan.order.iter().zip(&worst.keys).enumerate() {
        let v = eval(ex, root, Cx::default(), s);
        let o = total_cmp(&v, kept);
        let o = if dirs >> i & 1 == 1 { o.reverse() } else { o };
        if o.is_ne() {
            return o.is_lt();
        }
    }
    false
}

/// Fold one matching line into `acc` (the `where` was already applied).
pub(crate) fn accumulate<'a, D: Doc<'a>>(
    plan: &Plan,
    s: &mut Scratch,
    root: D,
    acc: &mut Accumulator,
) {
    if matches!(acc.inner, Inner::Empty) {
        *acc = plan.accumulator();
    }
    match &mut acc.inner {
        Inner::Empty => {}
        Inner::Groups(g) => {
            let states = group_states(plan, s, root, g);
            fold_group(plan, s, root, states);
        }
        Inner::Rows(r) => keep_row(plan, s, root, r),
        Inner::Distinct(d) => d.add(plan, s, root),
    }
}

/// This line's group's states, the group made when it is new.
#[inline(never)]
fn group_states<'g, 'a, D: Doc<'a>>(
    plan: &Plan,
    s: &mut Scratch,
    root: D,
    g: &'g mut Groups<AggState>,
) -> &'g mut [AggState] {
    if plan.group_by.is_empty() {
        return g.entry(*EMPTY_KEY, &[], 0, || plan.new_states());
    }
    // A chunk's fresh table sized like the last one this worker filled; the size of this
    // one noted for the next.
    g.presize(s.groups_size);
    s.groups_size = g.size();
    // The keys encoded, then their spelling (kept only by a new group), from one evaluation.
    let mut key = std::mem::take(&mut s.key_buf);
    key.clear();
    let mut spelling = std::mem::take(g.spelling_buf());
    spelling.clear();
    for ex in &plan.group_by {
        let v = eval(ex, root, Cx::default(), s);
        encode_key(&v, &mut key);
        write_spelling(&v, &mut spelling);
    }
    let len = key.len();
    key.extend_from_slice(&spelling);
    *g.spelling_buf() = spelling;
    let states = g.entry(hash_key(&key[..len]), &key, len, || plan.new_states());
    s.key_buf = key;
    states
}

/// Fold this line into its group's aggregates. Kept small (the whole per-line work of
/// `count(*)` or `sum(Elapsed)`), the rest of [`accumulate`] out of its way.
#[inline]
fn fold_group<'a, D: Doc<'a>>(plan: &Plan, s: &mut Scratch, root: D, states: &mut [AggState]) {
    for (state, spec) in states.iter_mut().zip(&plan.aggs) {
        if let Some(filter) = &spec.filter
            && !matches!(eval(filter, root, Cx::default(), s), Val::Bool(true))
        {
            continue;
        }
        match (&spec.arg, state) {
            // What `update` does for `count(*)`, here so that the commonest aggregate is not
            // a call (`update` is not inlined): 0.5% of `count(*)`'s instructions.
            (None, AggState::Count(n)) => *n += 1,
            // The sum of a property: its number goes in without becoming a value first.
            // Anything else (a string, null, absent) a sum passes over, as `update` does.
            (Some(Ex::Path(path)), AggState::Sum(sum) | AggState::Avg(sum)) => {
                if let Some(raw) = resolve_number(root, path) {
                    if let Some((mantissa, scale)) = decimal_parts(raw.as_bytes()) {
                        sum.add_parts(i128::from(mantissa), scale);
                    } else if let Some(n) = parse_number(raw) {
                        sum.add(n);
                    }
                }
            }
            (None, state) => state.update(None, &mut s.key_buf),
            (Some(ex), state) => {
                let v = eval(ex, root, Cx::default(), s);
                state.update(Some(&v), &mut s.key_buf);
            }
        }
    }
}

/// Keep this line's row for `order by`, when it can still be among the rows kept.
#[inline(never)]
fn keep_row<'a, D: Doc<'a>>(plan: &Plan, s: &mut Scratch, root: D, r: &mut Rows) {
    let seq = r.next_seq;
    r.next_seq += 1;
    let d = plan.dirs;
    if !wants(plan, s, root, r, d) {
        return;
    }
    let keys: Vec<Val<'static>> = plan
        .order
        .iter()
        .map(|(ex, _)| eval(ex, root, Cx::default(), s).into_owned())
        .collect();
    let mut row = Vec::with_capacity(plan.columns.len().max(1));
    eval::project(plan, root, s, &mut row);
    let row = row.into_iter().map(Value::into_owned).collect();
    r.push(Kept {
        prefix: text_prefix(&keys),
        keys,
        seq,
        row,
        dirs: d,
    });
}

/// `ceil(p / 100 * n)` clamped to `1..=n`: the nearest-rank position (1-based).
fn nearest_rank(p: Decimal, n: usize) -> usize {
    let rank = (p * Decimal::from(n) / Decimal::ONE_HUNDRED).ceil();
    rank.to_usize().unwrap_or(n).clamp(1, n.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        /// Rows sorted with their text prefixes, and by coarse keys through [`sorted`], come
        /// in the order their keys and numbers give: strings shorter and longer than either
        /// prefix, sharing leading bytes (paths of one API, tied over their first 16, 32 and
        /// 44 bytes), with zero bytes and non-ASCII text; Decimals with fractions, negative and
        /// of equal floors; floats (no coarse key); nulls, booleans and timestamps among
        /// them; either direction. Coarse keys never go down in [`total_cmp`]'s order.
        #[test]
        fn text_prefixes_and_coarse_keys_sort_as_the_keys_do(
            rows in proptest::collection::vec(
                (proptest::option::of("[a\\x00é]{0,20}"), -40i64..40, 0u8..6, "[ab]{0,2}"),
                0..60,
            ),
            dirs in 0u64..4,
            floats in proptest::bool::ANY,
        ) {
            let rows: Vec<Kept> = rows
                .into_iter()
                .enumerate()
                .map(|(i, (text, n, kind, second))| {
                    let first = match (text, kind) {
                        (Some(t), 0..=2) => Val::Str(t.into(), None),
                        (Some(t), 3 | 4) => Val::Str(format!("/api/orders/{t}").into(), None),
                        // Tied over 44 bytes: settled three words deep.
                        (Some(t), _) => {
                            Val::Str(format!("/api/customers/{:0>29}{t}", "").into(), None)
                        }
                        (None, 0) => Val::Null,
                        (None, 1) => Val::Bool(n > 0),
                        (None, 2) => Val::Time(i128::from(n)),
                        (None, 3) if floats => Val::number(Num::Float(n as f64 / 4.0)),
                        (None, _) => Val::number(Num::Dec(Decimal::new(n, 1))),
                    };
                    let keys = vec![first, Val::Str(second.into(), None)];
                    Kept { prefix: text_prefix(&keys), keys, seq: i as u64, row: Vec::new(), dirs }
                })
                .collect();
            let mut got: Vec<&Kept> = rows.iter().collect();
            got.sort();
            let mut want: Vec<&Kept> = rows.iter().collect();
            want.sort_by(|a, b| cmp_keys(&a.keys, &b.keys, a.dirs).then(a.seq.cmp(&b.seq)));
            let seqs = |v: &[&Kept]| v.iter().map(|k| k.seq).collect::<Vec<_>>();
            proptest::prop_assert_eq!(seqs(&got), seqs(&want));
            let by_handles: Vec<u64> = sorted(&rows, |k| (k.keys.first(), k.dirs & 1 == 1))
                .into_iter()
                .map(|i| rows[i].seq)
                .collect();
            proptest::prop_assert_eq!(by_handles, seqs(&want));
            // In `total_cmp`'s order, coarse keys never go down.
            let mut firsts: Vec<&Val<'_>> = rows.iter().map(|k| &k.keys[0]).collect();
            firsts.sort_by(|x, y| total_cmp(x, y));
            for w in firsts.windows(2) {
                if let (Some(a), Some(b)) = (coarse_key(w[0]), coarse_key(w[1])) {
                    proptest::prop_assert!(a <= b, "{:?} {:?}", w[0], w[1]);
                }
            }
        }

        /// Numbers pushed into parts cut anywhere (empty parts and parts of one number among
        /// them) and appended in order come out all in input order.
        #[test]
        fn percentile_numbers_keep_input_order_across_parts(
            n in 0usize..12,
            cuts in proptest::collection::vec(0usize..12, 0..5),
        ) {
            let num = |i: usize| (Num::Dec(Decimal::from(i)), None);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(n)).collect();
            cuts.extend([0, n]);
            cuts.sort_unstable();
            let mut total = Pcts::default();
            for w in cuts.windows(2) {
                let mut part = Pcts::default();
                for i in w[0]..w[1] {
                    part.push(num(i));
                }
                proptest::prop_assert_eq!(part.len(), w[1] - w[0]);
                total.append(part);
            }
            let got: Vec<String> = total.all().iter().map(|(n, _)| n.text()).collect();
            let want: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            proptest::prop_assert_eq!(got, want);
        }

        /// `nth_stable` picks the very element (marked by its place in the input) that a
        /// stable sort by value puts at `k`: among equal values of different scales (1.5,
        /// 1.50, 1.500) the first in input order; few numbers or many (sorted, or selected);
        /// with a float among them too (sorted).
        #[test]
        fn percentile_pick_is_what_a_stable_sort_puts_there(
            picks in proptest::collection::vec((0i64..5, 0u32..3, 0u8..40), 1..200),
            k in 0usize..200,
            floats: bool,
        ) {
            let all: Vec<(Num, Option<Box<str>>)> = picks
                .iter()
                .enumerate()
                .map(|(i, &(v, scale, float))| {
                    let n = if floats && float == 0 {
                        Num::Float(v as f64 / 2.0)
                    } else {
                        Num::Dec(Decimal::new(v * 5 * 10i64.pow(scale), scale + 1))
                    };
                    (n, Some(i.to_string().into()))
                })
                .collect();
            let k = k % all.len();
            let mut stable = all.clone();
            stable.sort_by(|a, b| a.0.cmp(b.0));
            let mut picked = all.clone();
            let got = nth_stable(&mut picked, k).1.clone();
            proptest::prop_assert_eq!(got, stable[k].1.clone());
        }
    }
}
