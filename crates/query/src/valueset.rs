//! [`ValueSet`]: the state of a `count_distinct`, the distinct values seen so far, each the
//! canonical encoding of a value ([`encode_key`](crate::value::encode_key): numerically
//! equal numbers encode alike).
//!
//! The values' bytes are kept one after another in one buffer, with each value's hash beside
//! its end, and found through a hash index of value numbers; a set of a few values keeps
//! only the buffer, searched in order. So a new value costs no
//! allocation of its own (a set of boxed values cost a `malloc` per value and a `free` per
//! value at the end: a tenth of `select count_distinct(TraceId)`), a merge moves hashes
//! instead of computing them again, and the index grows by those same hashes.

use hashbrown::HashTable;

use crate::groups::hash_key;

/// Up to this many values a set keeps them in one buffer, each after its length, searched in
/// order: most sets of a `count_distinct` per group (`count_distinct(MachineName) group by
/// RequestPath`) hold one or two values, and anything more than one buffer would be another
/// allocation per group.
const SMALL: usize = 4;

/// Distinct encoded values (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct ValueSet {
    /// While the set holds at most [`SMALL`] values: each value's length (`u32`, little
    /// endian) and bytes, one value after another.
    small: Vec<u8>,
    /// How many values `small` holds.
    small_len: usize,
    /// Past [`SMALL`] values: all of them, indexed.
    large: Option<Box<Large>>,
}

/// A set of more than [`SMALL`] values.
#[derive(Clone, Debug, Default)]
struct Large {
    /// Value numbers, by hash.
    index: HashTable<usize>,
    /// Per value: its hash, and where its bytes end in `bytes` (they start where the value
    /// before it ends).
    entries: Vec<(u64, usize)>,
    bytes: Vec<u8>,
}

impl Large {
    /// Value `i`'s bytes.
    fn value(&self, i: usize) -> &[u8] {
        let start = i.checked_sub(1).map_or(0, |p| self.entries[p].1);
        &self.bytes[start..self.entries[i].1]
    }

    /// Add `v`, whose [`hash_key`] is `hash`, unless it is held.
    fn insert(&mut self, hash: u64, v: &[u8]) {
        let held = self
            .index
            .find(hash, |&i| self.entries[i].0 == hash && self.value(i) == v);
        if held.is_some() {
            return;
        }
        let i = self.entries.len();
        self.bytes.extend_from_slice(v);
        self.entries.push((hash, self.bytes.len()));
        let entries = &self.entries;
        self.index.insert_unique(hash, i, |&j| entries[j].0);
    }
}

/// The values of a small set's buffer, in order.
fn small_values(buf: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = buf;
    std::iter::from_fn(move || {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        let (v, after) = tail.split_at_checked(len)?;
        rest = after;
        Some(v)
    })
}

impl ValueSet {
    /// Values held.
    pub(crate) fn len(&self) -> usize {
        self.large
            .as_ref()
            .map_or(self.small_len, |l| l.entries.len())
    }

    /// The indexed form, made from the small one's values when the set is still small.
    fn large(&mut self) -> &mut Large {
        self.large.get_or_insert_with(|| {
            let mut large = Box::new(Large::default());
            for v in small_values(&self.small) {
                large.insert(hash_key(v), v);
            }
            self.small = Vec::new();
            self.small_len = 0;
            large
        })
    }

    /// Add the encoded value `v` (a no-op when it is held already).
    pub(crate) fn insert(&mut self, v: &[u8]) {
        if self.large.is_none() {
            if small_values(&self.small).any(|held| held == v) {
                return;
            }
            if let Ok(len) = u32::try_from(v.len())
                && self.small_len < SMALL
            {
                self.small.extend_from_slice(&len.to_le_bytes());
                self.small.extend_from_slice(v);
                self.small_len += 1;
                return;
            }
        }
        self.large().insert(hash_key(v), v);
    }

    /// Add every value of `other` (a union; the order of the values does not matter). Into
    /// an empty set, `other` is taken whole.
    pub(crate) fn merge(&mut self, other: ValueSet) {
        if self.len() == 0 {
            *self = other;
            return;
        }
        match &other.large {
            None => {
                for v in small_values(&other.small) {
                    self.insert(v);
                }
            }
            Some(theirs) => {
                let mine = self.large();
                let entries = &mine.entries;
                mine.index.reserve(theirs.entries.len(), |&j| entries[j].0);
                for (i, &(hash, _)) in theirs.entries.iter().enumerate() {
                    mine.insert(hash, theirs.value(i));
                }
            }
        }
    }

    /// Every value held (in no particular order), for tests.
    #[cfg(test)]
    fn values(&self) -> Vec<&[u8]> {
        match &self.large {
            Some(l) => (0..l.entries.len()).map(|i| l.value(i)).collect(),
            None => small_values(&self.small).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Values inserted into sets split anywhere and merged hold what one std `HashSet`
        /// of the same values holds (the empty value and values that are prefixes of others
        /// among them).
        #[test]
        fn split_and_merged_sets_hold_the_distinct_values(
            values in proptest::collection::vec(proptest::collection::vec(0u8..4, 0..6), 0..300),
            cuts in proptest::collection::vec(0usize..300, 0..4),
        ) {
            let want: std::collections::HashSet<&[u8]> =
                values.iter().map(Vec::as_slice).collect();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(values.len())).collect();
            cuts.push(0);
            cuts.push(values.len());
            cuts.sort_unstable();
            let mut total = ValueSet::default();
            for w in cuts.windows(2) {
                let mut part = ValueSet::default();
                for v in &values[w[0]..w[1]] {
                    part.insert(v);
                }
                total.merge(part);
            }
            proptest::prop_assert_eq!(total.len(), want.len());
            let got: std::collections::HashSet<&[u8]> = total.values().into_iter().collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
