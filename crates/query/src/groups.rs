//! The group table of an aggregation ([`Groups`]): groups found by the canonical encoding of
//! their keys, kept compactly, and merged partition by partition.
//!
//! # Layout
//!
//! A [`Table`] keeps, per group, in parallel vectors: the hash of its encoded key, its
//! sequence number (the order of first appearance), where its bytes start in one arena, and
//! `n` aggregate states (`n` per group, one flat vector). A group's bytes are its encoded key
//! ([`encode_key`](crate::value::encode_key) of each key, prefix-free: no complete encoding
//! is the start of another) followed by its *spelling*: what the encoding drops of the first
//! line's values (a number's text and scale, a string's raw text), so the key is written as
//! the first line of the group wrote it. The hash index ([`HashTable`]) maps a hash to a group number; the hash is
//! computed once per line and kept, so merging and growing never hash again. No group owns
//! an allocation of its own (a state may: a `min` of text, a `count_distinct`'s set).
//!
//! # Partitions and merging
//!
//! A chunk's accumulator has one table. Merging splits each table by hash into [`PARTS`]
//! pieces (bits 32.. of the hash: the index uses the low bits and hashbrown's tag the top
//! seven) and folds the pieces of partition `p`, in input order, into the merged table `p`;
//! the partitions share nothing, so they are merged in parallel ([`Groups::merge_all`]). Each
//! partition sees its groups' pieces in input order, so whatever depends on the order (the
//! first line's spelling of a key, ties of `min`/`max`, equal values of a percentile) is as
//! one pass over all the lines would leave it.
//!
//! Sequence numbers: a table's groups are numbered in order of first appearance from 0; when
//! `later` (covering lines after all of `self`'s) is merged, its new groups are numbered after
//! every number `self` has used, so sorting by number gives the order of first appearance
//! over all the lines, whatever the split.

use std::borrow::Cow;
use std::hash::BuildHasher;
use std::sync::LazyLock;

use hashbrown::HashTable;
use rayon::prelude::*;
use rust_decimal::Decimal;

use crate::value::{Num, Val};

/// Partitions of a merged table (a power of two).
pub(crate) const PARTS: usize = 64;

/// The most [`Groups::expect_more`] lets a partition grow by at once, beyond the room a
/// merge needs: more than the input after the first window of a 1 GiB file brings.
const MAX_AHEAD: f64 = 16.0;

/// Tables of fewer groups are not sealed ([`Groups::seal`]): they are merged one after
/// another (see the driver's `FEW_GROUPS`) or cost little to read anyway.
const SEAL_FROM: usize = 256;

/// The hash of encoded keys: foldhash's, many times faster than std's SipHash on short keys,
/// seeded once per process (so a crafted input cannot aim at it) and shared by every table,
/// so a hash computed in one chunk's table is valid in the merged ones.
static SEED: LazyLock<foldhash::fast::RandomState> = LazyLock::new(Default::default);

/// The hash of an encoded key.
#[inline]
pub(crate) fn hash_key(key: &[u8]) -> u64 {
    SEED.hash_one(key)
}

/// The partition of a hash.
#[inline]
fn part_of(hash: u64) -> usize {
    (hash >> 32) as usize & (PARTS - 1)
}

/// Groups: one table (a chunk's, or one that was merged without splitting) or [`PARTS`]
/// tables, group `g` in table `part_of(hash(g))`.
#[derive(Clone, Debug)]
pub(crate) struct Groups<S> {
    parts: Vec<Table<S>>,
    /// Aggregate states per group.
    width: usize,
    /// Keys per group.
    keys: usize,
    /// The next sequence number.
    next_seq: u64,
    /// [`Groups::spelling_buf`].
    spelling: Vec<u8>,
    /// How much more input is expected, per input read so far ([`Groups::expect_more`]).
    ahead: f64,
}

/// Groups and their states (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Table<S> {
    index: HashTable<u32>,
    hashes: Vec<u64>,
    seqs: Vec<u64>,
    starts: Vec<usize>,
    arena: Vec<u8>,
    states: Vec<S>,
    /// Set by [`Table::seal`] (and dropped by the next new group): the groups are in
    /// partition order, those of partition `p` being `sealed[p]..sealed[p + 1]`.
    sealed: Option<Box<[u32; PARTS + 1]>>,
}

impl<S> Default for Table<S> {
    fn default() -> Self {
        Table {
            index: HashTable::new(),
            hashes: Vec::new(),
            seqs: Vec::new(),
            starts: Vec::new(),
            arena: Vec::new(),
            states: Vec::new(),
            sealed: None,
        }
    }
}

impl<S> Table<S> {
    /// Groups in the table.
    fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Group `g`'s bytes: its encoded key, then its spelling.
    #[cfg(test)]
    fn bytes(&self, g: usize) -> &[u8] {
        let end = self.starts.get(g + 1).copied().unwrap_or(self.arena.len());
        &self.arena[self.starts[g]..end]
    }

    /// Group `g`'s sequence number.
    #[cfg(test)]
    fn seq(&self, g: usize) -> u64 {
        self.seqs[g]
    }

    /// Room for `groups` more groups of `bytes` bytes in all, without growing.
    fn reserve(&mut self, groups: usize, bytes: usize, width: usize) {
        let hashes = &self.hashes;
        self.index.reserve(groups, |&i| hashes[i as usize]);
        self.hashes.reserve(groups);
        self.seqs.reserve(groups);
        self.starts.reserve(groups);
        self.arena.reserve(bytes);
        self.states.reserve(groups * width);
    }

    /// Group `g`'s states.
    fn states_mut(&mut self, g: usize, width: usize) -> &mut [S] {
        &mut self.states[g * width..(g + 1) * width]
    }

    /// Each group's sequence number, bytes and `width` states, in the table's order.
    pub fn groups_mut(&mut self, width: usize) -> impl Iterator<Item = (u64, &[u8], &mut [S])> {
        let arena = &self.arena;
        let ends = self.starts.iter().skip(1).copied().chain([arena.len()]);
        let bytes = self.starts.iter().zip(ends).map(|(&a, b)| &arena[a..b]);
        // Without states (`group by` alone), an empty slice for each group.
        let states = self
            .states
            .chunks_mut(width.max(1))
            .chain(std::iter::repeat_with(<&mut [S]>::default));
        self.seqs
            .iter()
            .copied()
            .zip(bytes)
            .zip(states)
            .map(|((seq, b), s)| (seq, b, s))
    }

    /// The group whose encoded key is `key`.
    #[inline]
    fn find(&self, hash: u64, key: &[u8]) -> Option<usize> {
        self.index
            .find(hash, |&g| {
                let start = self.starts[g as usize];
                // Encodings are prefix-free: equal leading bytes are the whole key.
                self.arena.get(start..start + key.len()) == Some(key)
            })
            .map(|&g| g as usize)
    }

    /// A new group from its bytes and states; its number.
    fn push(
        &mut self,
        hash: u64,
        seq: u64,
        bytes: &[u8],
        states: impl Iterator<Item = S>,
    ) -> usize {
        let g = self.hashes.len();
        self.sealed = None;
        self.starts.push(self.arena.len());
        self.arena.extend_from_slice(bytes);
        self.hashes.push(hash);
        self.seqs.push(seq);
        self.states.extend(states);
        let hashes = &self.hashes;
        self.index
            .insert_unique(hash, g as u32, |&i| hashes[i as usize]);
        g
    }

    /// `later`'s groups `groups` (in order), with their states `states` (`width` each), their
    /// sequence numbers moved up by `offset`: the states of a group already here merged into
    /// its own (`merge(mine, later's)`), new groups appended. `keys` is the number of keys of
    /// a group.
    #[allow(clippy::too_many_arguments)]
    fn absorb(
        &mut self,
        later: &Table<S>,
        groups: &[u32],
        states: Vec<S>,
        offset: u64,
        width: usize,
        keys: usize,
        merge: &impl Fn(&mut S, S),
    ) {
        let hashes = &self.hashes;
        self.index.reserve(groups.len(), |&i| hashes[i as usize]);
        let mut states = states.into_iter();
        for &g in groups {
            let g = g as usize;
            let end = later
                .starts
                .get(g + 1)
                .copied()
                .unwrap_or(later.arena.len());
            let bytes = &later.arena[later.starts[g]..end];
            let hash = later.hashes[g];
            let key = &bytes[..key_len(bytes, keys)];
            match self.find(hash, key) {
                Some(mine) => {
                    let mine = &mut self.states[mine * width..(mine + 1) * width];
                    for (m, s) in mine.iter_mut().zip(states.by_ref().take(width)) {
                        merge(m, s);
                    }
                }
                None => {
                    self.push(
                        hash,
                        later.seqs[g] + offset,
                        bytes,
                        states.by_ref().take(width),
                    );
                }
            }
        }
    }

    /// Put the groups in partition order (each partition's in the table's order), renumbered,
    /// the index following them: what [`Table::deal`] then hands to each partition is a run
    /// of consecutive groups, which [`Table::absorb`] reads front to back. Done at the end of
    /// a chunk, while its table is still in the cache; merged later, the table would be read
    /// at scattered places long after it left the cache (most of `absorb`'s time for a key
    /// of many values). Nothing but the group numbers changes (not the sequence numbers).
    ///
    /// ```text
    /// count the groups of each partition; prefix sums -> where each partition starts
    /// for each group g in order: to[g] = next free place of its partition
    /// hashes, seqs, states and bytes moved to to[g]; index entries g -> to[g]
    /// ```
    fn seal(&mut self, width: usize)
    where
        S: Default,
    {
        let n = self.len();
        let mut bounds = [0u32; PARTS + 1];
        let mut bytes_at = [0usize; PARTS + 1];
        for (g, &h) in self.hashes.iter().enumerate() {
            let p = part_of(h);
            bounds[p + 1] += 1;
            bytes_at[p + 1] += self.end(g) - self.starts[g];
        }
        for p in 0..PARTS {
            bounds[p + 1] += bounds[p];
            bytes_at[p + 1] += bytes_at[p];
        }
        let mut next = bounds;
        let mut next_byte = bytes_at;
        let mut to = vec![0u32; n];
        let mut hashes = vec![0u64; n];
        let mut seqs = vec![0u64; n];
        let mut starts = vec![0usize; n];
        let mut arena = vec![0u8; self.arena.len()];
        let mut states: Vec<S> = std::iter::repeat_with(S::default)
            .take(self.states.len())
            .collect();
        for (g, &h) in self.hashes.iter().enumerate() {
            let p = part_of(h);
            let d = next[p] as usize;
            next[p] += 1;
            to[g] = d as u32;
            hashes[d] = h;
            seqs[d] = self.seqs[g];
            let bytes = &self.arena[self.starts[g]..self.end(g)];
            starts[d] = next_byte[p];
            arena[next_byte[p]..next_byte[p] + bytes.len()].copy_from_slice(bytes);
            next_byte[p] += bytes.len();
            for (new, old) in states[d * width..(d + 1) * width]
                .iter_mut()
                .zip(&mut self.states[g * width..(g + 1) * width])
            {
                *new = std::mem::take(old);
            }
        }
        for g in self.index.iter_mut() {
            *g = to[*g as usize];
        }
        self.hashes = hashes;
        self.seqs = seqs;
        self.starts = starts;
        self.arena = arena;
        self.states = states;
        self.sealed = Some(Box::new(bounds));
    }

    /// Where group `g`'s bytes end.
    #[inline]
    fn end(&self, g: usize) -> usize {
        self.starts.get(g + 1).copied().unwrap_or(self.arena.len())
    }

    /// The table's groups dealt into [`PARTS`] pieces by hash, each in the table's order: the
    /// group numbers, the states moved out of the table (the rest of the table, read by
    /// [`Table::absorb`], stays), and the groups' bytes in all.
    fn deal(&mut self, width: usize) -> Vec<Piece<S>> {
        if let Some(bounds) = &self.sealed {
            // Consecutive runs: cut, not sorted.
            let mut states = std::mem::take(&mut self.states).into_iter();
            return (0..PARTS)
                .map(|p| {
                    let (lo, hi) = (bounds[p] as usize, bounds[p + 1] as usize);
                    let bytes = if lo == hi {
                        0
                    } else {
                        self.end(hi - 1) - self.starts[lo]
                    };
                    Piece {
                        groups: (lo as u32..hi as u32).collect(),
                        states: states.by_ref().take((hi - lo) * width).collect(),
                        bytes,
                    }
                })
                .collect();
        }
        let mut counts = [0usize; PARTS];
        for &h in &self.hashes {
            counts[part_of(h)] += 1;
        }
        let mut pieces: Vec<Piece<S>> = counts
            .iter()
            .map(|&n| Piece {
                groups: Vec::with_capacity(n),
                states: Vec::with_capacity(n * width),
                bytes: 0,
            })
            .collect();
        let mut states = std::mem::take(&mut self.states).into_iter();
        let ends = self
            .starts
            .iter()
            .skip(1)
            .copied()
            .chain([self.arena.len()]);
        for (g, ((&hash, &start), end)) in
            self.hashes.iter().zip(&self.starts).zip(ends).enumerate()
        {
            let piece = &mut pieces[part_of(hash)];
            piece.groups.push(g as u32);
            piece.states.extend(states.by_ref().take(width));
            piece.bytes += end - start;
        }
        pieces
    }
}

/// One table's groups of one partition ([`Table::deal`]).
struct Piece<S> {
    /// Their numbers in the table, in order.
    groups: Vec<u32>,
    /// Their states, moved out of the table.
    states: Vec<S>,
    /// Their bytes (encoded keys and spellings) in all.
    bytes: usize,
}

impl<S: Send + Sync> Groups<S> {
    /// No groups; each will have `keys` keys and `width` states.
    pub fn new(keys: usize, width: usize) -> Self {
        Groups {
            parts: vec![Table::default()],
            width,
            keys,
            next_seq: 0,
            spelling: Vec::new(),
            ahead: 0.0,
        }
    }

    /// The tables (one, or [`PARTS`]).
    #[cfg(test)]
    pub fn parts(&self) -> &[Table<S>] {
        &self.parts
    }

    /// The tables, to be taken apart.
    pub fn into_parts(self) -> Vec<Table<S>> {
        self.parts
    }

    /// The states of the group whose encoded key is `bytes[..key]` (`hash` its
    /// [`hash_key`]); when the group is new, it is made from `bytes` (the encoded key, then
    /// its spelling: [`write_spelling`] of each key) and the states `make` gives, written
    /// straight into the table's flat vector of states (no vector of its own per new group).
    #[inline]
    pub fn entry<I: IntoIterator<Item = S>>(
        &mut self,
        hash: u64,
        bytes: &[u8],
        key: usize,
        make: impl FnOnce() -> I,
    ) -> &mut [S] {
        let p = if self.parts.len() == 1 {
            0
        } else {
            part_of(hash)
        };
        let width = self.width;
        let table = &mut self.parts[p];
        let g = match table.find(hash, &bytes[..key]) {
            Some(g) => g,
            None => {
                let seq = self.next_seq;
                self.next_seq += 1;
                table.push(hash, seq, bytes, make().into_iter())
            }
        };
        table.states_mut(g, width)
    }

    /// The size of a table that was never merged: its groups and their bytes (see
    /// [`Groups::presize`]).
    #[inline]
    pub fn size(&self) -> (usize, usize) {
        match &self.parts[..] {
            [t] => (t.len(), t.arena.len()),
            _ => (0, 0),
        }
    }

    /// Room for `size` (a [`Groups::size`]) and a quarter more in a table that has none yet:
    /// a chunk's table is sized like the one before it on the same worker, instead of
    /// growing from empty through a dozen reallocations (and rehashes) in every chunk. Only
    /// the time depends on it.
    #[inline]
    pub fn presize(&mut self, size: (usize, usize)) {
        if let [t] = &mut self.parts[..]
            && t.hashes.capacity() == 0
            && size.0 > 0
        {
            // A quarter more: the next chunk may bring a few more groups than the last.
            let more = |n: usize| n + n / 4;
            t.reserve(more(size.0), more(size.1), self.width);
        }
    }

    /// Say that about `ahead` times the input read so far is still to come (0 when unknown).
    /// A merged partition that has to grow then grows at once to what the groups so far,
    /// at that rate, would come to (at most [`MAX_AHEAD`] times), instead of doubling again
    /// and again, each time rehashing and copying all it holds: a key of a new value every
    /// few lines (trace ids) grows its partitions once or twice a run instead of some five
    /// times. A key of few values overshoots, in memory reserved but mostly never touched.
    /// Only the time and memory depend on it.
    pub fn expect_more(&mut self, ahead: f64) {
        self.ahead = if ahead.is_finite() {
            ahead.clamp(0.0, MAX_AHEAD)
        } else {
            0.0
        };
    }

    /// The lines of these groups are all in (a chunk's): put a large table's groups in
    /// partition order for the merge, while the table is in the cache ([`Table::seal`]).
    pub fn seal(&mut self)
    where
        S: Default,
    {
        if let [t] = &mut self.parts[..]
            && t.len() >= SEAL_FROM
        {
            t.seal(self.width);
        }
    }

    /// A buffer for the spelling of the current line's keys, kept from line to line.
    pub fn spelling_buf(&mut self) -> &mut Vec<u8> {
        &mut self.spelling
    }

    /// Every group's states, table by table.
    pub fn states(&self) -> impl Iterator<Item = &S> {
        self.parts.iter().flat_map(|t| t.states.iter())
    }

    /// Groups held, over every partition.
    pub fn len(&self) -> usize {
        self.parts.iter().map(Table::len).sum()
    }

    /// Fold in `laters`, each covering lines after all of `self`'s and of the ones before it.
    /// With `parallel`, the partitions are merged on the current rayon pool.
    pub fn merge_all(
        &mut self,
        laters: Vec<Groups<S>>,
        parallel: bool,
        merge: &(impl Fn(&mut S, S) + Sync),
    ) {
        let (width, keys, ahead) = (self.width, self.keys, self.ahead);
        // Each later's tables, with the offset of their sequence numbers.
        let mut sources: Vec<(Table<S>, u64)> = Vec::new();
        for later in laters {
            let offset = self.next_seq;
            self.next_seq += later.next_seq;
            sources.extend(later.parts.into_iter().map(|t| (t, offset)));
        }
        if !parallel && self.parts.len() == 1 && sources.len() <= 1 {
            // Two chunks' tables folded together: no partitions.
            for (mut t, offset) in sources {
                let states = std::mem::take(&mut t.states);
                let all: Vec<u32> = (0..t.len() as u32).collect();
                self.parts[0].absorb(&t, &all, states, offset, width, keys, merge);
            }
            return;
        }
        if self.parts.len() == 1 {
            // Self's own groups become the first source of fresh partitions.
            let mine = std::mem::take(&mut self.parts[0]);
            sources.insert(0, (mine, 0));
            self.parts = (0..PARTS).map(|_| Table::default()).collect();
        }
        let deal = |(t, _): &mut (Table<S>, u64)| t.deal(width);
        let dealt: Vec<Vec<Piece<S>>> = if parallel {
            sources.par_iter_mut().map(deal).collect()
        } else {
            sources.iter_mut().map(deal).collect()
        };
        // By partition, the pieces in input order, each with its source.
        let mut by_part: Vec<Vec<(usize, Piece<S>)>> = (0..PARTS).map(|_| Vec::new()).collect();
        for (source, pieces) in dealt.into_iter().enumerate() {
            for (p, piece) in pieces.into_iter().enumerate() {
                if !piece.groups.is_empty() {
                    by_part[p].push((source, piece));
                }
            }
        }
        let sources = &sources;
        let fold = |(table, pieces): (&mut Table<S>, Vec<(usize, Piece<S>)>)| {
            // Room for every incoming group at once (at most a block's worth more than the
            // new ones need), so the table's vectors and index grow once per block.
            let incoming: usize = pieces.iter().map(|(_, p)| p.groups.len()).sum();
            let bytes: usize = pieces.iter().map(|(_, p)| p.bytes).sum();
            if table.len() + incoming > table.index.capacity() {
                // Growing: to what the rest of the input will bring at the rate so far.
                let more = |now: usize, new: usize| new.max(((now + new) as f64 * ahead) as usize);
                table.reserve(
                    more(table.len(), incoming),
                    more(table.arena.len(), bytes),
                    width,
                );
            } else {
                table.reserve(incoming, bytes, width);
            }
            for (source, piece) in pieces {
                let (later, offset) = &sources[source];
                table.absorb(
                    later,
                    &piece.groups,
                    piece.states,
                    *offset,
                    width,
                    keys,
                    merge,
                );
            }
        };
        if parallel {
            self.parts.par_iter_mut().zip(by_part).for_each(fold);
        } else {
            self.parts.iter_mut().zip(by_part).for_each(fold);
        }
    }
}

/// The length of the encoded key of `keys` keys at the start of `bytes` (see
/// [`encode_key`](crate::value::encode_key): a tag, then a fixed-size or length-prefixed
/// payload).
fn key_len(bytes: &[u8], keys: usize) -> usize {
    let mut at = 0;
    for _ in 0..keys {
        at = match encoded(bytes, at) {
            Some((_, _, next)) => next,
            None => return bytes.len(),
        };
    }
    at
}

/// The encoded value at `at`: its tag, its payload, and where the next one starts.
fn encoded(bytes: &[u8], at: usize) -> Option<(u8, &[u8], usize)> {
    let tag = *bytes.get(at)?;
    let body = at + 1;
    let fixed = |n: usize| Some((tag, bytes.get(body..body + n)?, body + n));
    match tag {
        0 => fixed(0),
        1 => fixed(1),
        2 | 7 | 8 => fixed(16),
        3 => fixed(8),
        _ => {
            let (payload, end) = prefixed(bytes, body)?;
            Some((tag, payload, end))
        }
    }
}

/// The length-prefixed bytes at `at` (a `u64` length, then the bytes), and where they end.
fn prefixed(bytes: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let len = u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?);
    let start = at + 8;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    Some((bytes.get(start..end)?, end))
}

/// Append what [`encode_key`](crate::value::encode_key) drops of `v` (see [`decode_keys`]).
pub(crate) fn write_spelling(v: &Val<'_>, out: &mut Vec<u8>) {
    match v {
        Val::Null | Val::Bool(_) | Val::Time(_) | Val::Dur(_) => {}
        Val::Num(n, raw) => {
            match n {
                Num::Dec(d) => {
                    out.push(0);
                    out.extend_from_slice(&d.serialize());
                }
                Num::Float(f) => {
                    out.push(1);
                    out.extend_from_slice(&f.to_bits().to_le_bytes());
                }
            }
            write_text(raw.as_deref(), None, out);
        }
        Val::Str(s, raw) => write_text(raw.as_deref(), Some(s), out),
        Val::Json(_, raw) => write_text(Some(raw), None, out),
    }
}

/// An optional text: `0` none; `1` the same as `same`; `2`, its length and its bytes.
fn write_text(text: Option<&str>, same: Option<&str>, out: &mut Vec<u8>) {
    match text {
        None => out.push(0),
        Some(t) if same == Some(t) => out.push(1),
        Some(t) => {
            out.push(2);
            out.extend_from_slice(&(t.len() as u64).to_le_bytes());
            out.extend_from_slice(t.as_bytes());
        }
    }
}

/// Reads what [`write_text`] wrote at `*at`.
fn read_text<'b>(bytes: &'b [u8], at: &mut usize, same: &'b str) -> Option<Option<&'b str>> {
    let flag = *bytes.get(*at)?;
    *at += 1;
    Some(match flag {
        0 => None,
        1 => Some(same),
        _ => {
            let (text, end) = prefixed(bytes, *at)?;
            *at = end;
            Some(std::str::from_utf8(text).ok()?)
        }
    })
}

/// A group's `keys` key values, as the first line of the group gave them, pushed onto `out`
/// (borrowing its bytes: encoded key and spelling). Bytes this module did not write give
/// `null`s.
pub(crate) fn decode_keys<'b>(bytes: &'b [u8], keys: usize, out: &mut Vec<Val<'b>>) {
    let start = out.len();
    if decode_into(bytes, keys, out).is_none() {
        out.truncate(start);
        out.resize_with(start + keys, || Val::Null);
    }
}

fn decode_into<'b>(bytes: &'b [u8], keys: usize, out: &mut Vec<Val<'b>>) -> Option<()> {
    // The spelling follows the whole encoded key: find where it starts first.
    let mut at = key_len(bytes, keys);
    let mut next = 0;
    for _ in 0..keys {
        let (tag, body, after) = encoded(bytes, next)?;
        next = after;
        let fixed16 = |b: &[u8]| -> Option<[u8; 16]> { b.try_into().ok() };
        out.push(match tag {
            0 => Val::Null,
            1 => Val::Bool(body.first() == Some(&1)),
            7 => Val::Time(i128::from_le_bytes(fixed16(body)?)),
            8 => Val::Dur(i128::from_le_bytes(fixed16(body)?)),
            2 | 3 => {
                let kind = *bytes.get(at)?;
                at += 1;
                let n = if kind == 0 {
                    let d = Decimal::deserialize(fixed16(bytes.get(at..at + 16)?)?);
                    at += 16;
                    Num::Dec(d)
                } else {
                    let f =
                        f64::from_bits(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
                    at += 8;
                    Num::Float(f)
                };
                let raw = read_text(bytes, &mut at, "")?;
                Val::Num(n, raw.map(Cow::Borrowed))
            }
            4 => {
                let s = std::str::from_utf8(body).ok()?;
                let raw = read_text(bytes, &mut at, s)?;
                Val::Str(Cow::Borrowed(s), raw.map(Cow::Borrowed))
            }
            _ => {
                let raw = read_text(bytes, &mut at, "")?.unwrap_or_default();
                Val::Json(tag == 5, Cow::Borrowed(raw))
            }
        });
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::encode_key;

    fn bytes_of(vals: &[Val<'_>]) -> Vec<u8> {
        let mut b = Vec::new();
        for v in vals {
            encode_key(v, &mut b);
        }
        let key = b.len();
        for v in vals {
            write_spelling(v, &mut b);
        }
        assert_eq!(key_len(&b, vals.len()), key);
        b
    }

    #[test]
    fn keys_come_back_as_the_first_line_spelled_them() {
        let vals = vec![
            Val::Null,
            Val::Bool(true),
            Val::Num(Num::Dec(Decimal::new(150, 2)), Some("1.50".into())),
            Val::Num(Num::Float(1e300), Some("1e300".into())),
            Val::Num(Num::Dec(Decimal::new(7, 0)), None),
            Val::Str("é\"".into(), Some("\\u00e9\\\"".into())),
            Val::Str("plain".into(), Some("plain".into())),
            Val::Str("computed".into(), None),
            Val::Json(true, "[1, 2.0]".into()),
            Val::Json(false, "{\"b\":1,\"a\":2}".into()),
            Val::Time(-5),
            Val::Dur(1 << 100),
        ];
        let b = bytes_of(&vals);
        let mut back = Vec::new();
        decode_keys(&b, vals.len(), &mut back);
        assert_eq!(format!("{back:?}"), format!("{vals:?}"));
    }

    #[test]
    fn merged_partitions_equal_one_table() {
        // Many keys, split over several tables, merged sequentially and in parallel: the
        // same groups, counts and order of first appearance as one table over everything.
        let key = |i: u64| Val::Str(format!("k{}", i % 997).into(), None);
        let lines: Vec<u64> = (0..20_000u64).map(|i| i * 7919 % 10_007).collect();
        let fill = |part: &[u64]| {
            let mut g: Groups<u64> = Groups::new(1, 1);
            for &i in part {
                let mut k = Vec::new();
                encode_key(&key(i), &mut k);
                let h = hash_key(&k);
                let len = k.len();
                write_spelling(&key(i), &mut k);
                g.entry(h, &k, len, || [0])[0] += 1;
            }
            g
        };
        let listing = |g: &Groups<u64>| {
            let mut all: Vec<(u64, Vec<u8>, u64)> = g
                .parts()
                .iter()
                .flat_map(|t| {
                    (0..t.len()).map(move |i| (t.seq(i), t.bytes(i).to_vec(), t.states[i]))
                })
                .collect();
            // Numbers of first appearance are compared by their order, not their values
            // (a merged table skips the numbers of groups it already had).
            all.sort();
            all.into_iter()
                .map(|(_, bytes, count)| (bytes, count))
                .collect::<Vec<_>>()
        };
        let whole = listing(&fill(&lines));
        // Sealed or not (in partition order, renumbered), merged in one go or one chunk
        // after another (into the first chunk's table, sealed or not), the partitions
        // growing by doubling or to an expected size (`expect_more`).
        for (seal, parallel, ahead) in
            (0..8).map(|i| (i & 1 == 1, i & 2 == 2, (i >> 2) as f64 * 16.0))
        {
            for pieces in [2, 3, 50] {
                let chunks = lines.chunks(lines.len() / pieces + 1).map(|c| {
                    let mut g = fill(c);
                    if seal {
                        g.seal();
                        assert!(g.parts()[0].sealed.is_some(), "{} groups", g.len());
                    }
                    g
                });
                let mut chunks: Vec<Groups<u64>> = chunks.collect();
                let mut merged = chunks.remove(0);
                merged.expect_more(ahead);
                if parallel {
                    merged.merge_all(chunks, true, &|a, b| *a += b);
                } else {
                    for c in chunks {
                        merged.merge_all(vec![c], false, &|a, b| *a += b);
                    }
                }
                let got = listing(&merged);
                let first = got.iter().zip(&whole).position(|(a, b)| a != b);
                assert!(
                    got.len() == whole.len() && first.is_none(),
                    "{pieces} pieces, parallel {parallel}, sealed {seal}, ahead {ahead}: {} groups \
                         for {}, first difference {:?}",
                    got.len(),
                    whole.len(),
                    first.map(|i| (&got[i], &whole[i]))
                );
            }
        }
    }
}
