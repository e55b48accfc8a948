//! Distinct values of one path: exact up to [`EXACT_LIMIT`], then a HyperLogLog estimate.
//!
//! Values are kept as 64-bit hashes ([`prehash`], then [`finish`]): the exact count is the number of distinct
//! hashes (two different values share one with odds of about n²/2⁶⁵, some 3·10⁻¹² at the
//! limit). Past the limit the hashes are poured into a HyperLogLog of 2¹² one-byte registers
//! (standard error about 1.6%), and the set is dropped.
//!
//! Merging is a union (of sets, or register-wise maximum), so the result is the same whatever
//! the order and the grouping of the merges: the same for any thread count and chunk size.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Distinct values counted exactly up to this many per path.
pub const EXACT_LIMIT: usize = 10_000;

/// The type tags of [`prehash`]: a boolean's, a number's, a string's.
pub const TAG_BOOLEAN: u8 = 1;
/// See [`TAG_BOOLEAN`].
pub const TAG_NUMBER: u8 = 2;
/// See [`TAG_BOOLEAN`].
pub const TAG_STRING: u8 = 3;

/// log2 of the number of HyperLogLog registers.
const P: u32 = 12;
const M: usize = 1 << P;

/// One chunk's values of a path: their hashes, appended as they come (a hash set costs
/// several times more per value), with a small direct-mapped cache that drops most repeats
/// of the values that come back often. The run's [`Distinct`] takes them in
/// [`Distinct::merge_hashes`].
///
/// What is kept is a value's [`prehash`], the hash before its finaliser ([`finish`]): the
/// finaliser is a bijection of 64-bit words, so two values have the same prehash exactly
/// when they have the same hash, and it is applied only to the prehashes that reach
/// [`Distinct::merge_hashes`] (after the cache dropped the repeats), not to every value.
#[derive(Clone, Debug, Default)]
pub struct Hashes {
    /// The prehashes, repeats possible.
    pub list: Vec<u64>,
    recent: Option<Box<[u64; RECENT]>>,
}

const RECENT: usize = 64;

/// Values taken before [`Hashes`] makes its cache.
const UNCACHED: usize = 8;

impl Hashes {
    /// Add one value's [`prehash`].
    #[inline]
    pub fn push(&mut self, h: u64) {
        let recent = match &mut self.recent {
            Some(recent) => recent,
            // A path's first few values go in without the cache: most paths of an object
            // used as a map (keyed by ids) have one or two, and a cache each would be most
            // of their memory.
            None if self.list.len() < UNCACHED => return self.list.push(h),
            None => self.recent.insert(Box::new([0; RECENT])),
        };
        let slot = &mut recent[(h as usize) % RECENT];
        // Without a branch on the outcome, which follows the values (a repeat or not) and
        // so is mispredicted often: the hash is appended, and taken back if it repeats.
        let repeat = *slot == h && h != 0;
        *slot = h;
        self.list.push(h);
        self.list.truncate(self.list.len() - usize::from(repeat));
    }
}

/// The distinct values seen so far.
#[derive(Clone, Debug)]
pub enum Distinct {
    /// At most [`EXACT_LIMIT`] hashes.
    Exact(HashSet<u64, BuildHasherDefault<Identity>>),
    /// The registers of the estimate.
    Sketch(Box<[u8; M]>),
}

impl Default for Distinct {
    fn default() -> Distinct {
        Distinct::Exact(HashSet::default())
    }
}

impl Distinct {
    /// Count one value, by its hash (a [`prehash`] [`finish`]ed).
    #[inline]
    pub fn insert(&mut self, h: u64) {
        match self {
            Distinct::Exact(set) => {
                if set.insert(h) && set.len() > EXACT_LIMIT {
                    self.become_sketch();
                }
            }
            Distinct::Sketch(regs) => add(regs, h),
        }
    }

    fn become_sketch(&mut self) {
        if let Distinct::Exact(set) = self {
            let mut regs = Box::new([0u8; M]);
            for &h in set.iter() {
                add(&mut regs, h);
            }
            *self = Distinct::Sketch(regs);
        }
    }

    /// Fold a chunk's values in (their prehashes, finished here).
    pub fn merge_hashes(&mut self, hashes: Hashes) {
        // Which kind of count is decided once per list (and once more if the list takes
        // the set past the limit), not per value; this runs on the thread that folds the
        // parts in order, while the workers wait for the next window.
        let mut list = hashes.list.into_iter();
        if let Distinct::Exact(set) = self {
            set.reserve(list.len().min(EXACT_LIMIT + 1 - set.len()));
            for h in list.by_ref() {
                if set.insert(finish(h)) && set.len() > EXACT_LIMIT {
                    break;
                }
            }
            if set.len() <= EXACT_LIMIT {
                return;
            }
            self.become_sketch();
        }
        if let Distinct::Sketch(regs) = self {
            for h in list {
                add(regs, finish(h));
            }
        }
    }

    /// Fold `other` in (a union).
    pub fn merge(&mut self, other: Distinct) {
        match other {
            Distinct::Exact(set) => {
                for h in set {
                    self.insert(h);
                }
            }
            Distinct::Sketch(theirs) => {
                self.become_sketch();
                if let Distinct::Sketch(regs) = self {
                    for (r, t) in regs.iter_mut().zip(theirs.iter()) {
                        *r = (*r).max(*t);
                    }
                }
            }
        }
    }

    /// The count, and whether it is exact.
    pub fn count(&self) -> (u64, bool) {
        match self {
            Distinct::Exact(set) => (set.len() as u64, true),
            Distinct::Sketch(regs) => (estimate(regs), false),
        }
    }
}

#[inline]
fn add(regs: &mut [u8; M], h: u64) {
    // The top P bits pick the register; the rank is the position of the first one bit in
    // the rest (1-based), kept as the register's maximum.
    let index = (h >> (64 - P)) as usize;
    let rest = (h << P) | (1 << (P - 1));
    let rank = rest.leading_zeros() as u8 + 1;
    if regs[index] < rank {
        regs[index] = rank;
    }
}

/// The HyperLogLog estimate, with linear counting for small counts (Flajolet et al. 2007).
fn estimate(regs: &[u8; M]) -> u64 {
    let m = M as f64;
    let alpha = 0.7213 / (1.0 + 1.079 / m);
    let sum: f64 = regs.iter().map(|&r| 2f64.powi(-i32::from(r))).sum();
    let raw = alpha * m * m / sum;
    let zeros = regs.iter().filter(|&&r| r == 0).count();
    let e = if raw <= 2.5 * m && zeros > 0 {
        m * (m / zeros as f64).ln()
    } else {
        raw
    };
    e.round() as u64
}

/// A 64-bit hash of a value's bytes and a type tag (so the string `"1"` and the number `1`
/// differ): [`prehash`], then the murmur3 finaliser ([`finish`]) so every input bit reaches
/// the top bits the sketch reads.
#[cfg(test)]
pub fn hash(tag: u8, bytes: &[u8]) -> u64 {
    finish(prehash(tag, bytes))
}

/// [`prehash`] of a scalar of type `tag` written `text`, a number by its value
/// ([`number_prehash`]).
#[inline]
pub fn value_prehash(tag: u8, text: &[u8]) -> u64 {
    if tag == TAG_NUMBER {
        number_prehash(text)
    } else {
        prehash(tag, text)
    }
}

/// The longest spelling without an exponent that [`number_prehash`] hashes as it is written
/// (trailing zeros cut): at most 20 bytes hold at most 19 digits and 18 after the point, a
/// value a decimal always holds exactly.
const PLAIN_MAX: usize = 20;

/// [`prehash`] of a valid JSON number by its value, as the query language counts distinct
/// values (`count_distinct`, `group by`): the spellings of one value (`1.5`, `1.50`,
/// `15e-1`; `1000`, `1e3`; `0`, `-0`, `0.0`) hash alike. A value a decimal holds is hashed as
/// its plain spelling without a trailing zero in its fraction, nor the point of an empty
/// one (`1.5`, `1000`, `0.0015`, `0`); any other as the float nearest it, as the language
/// holds it (so 40-digit integers that differ only past a float's precision are one value,
/// `1e-400` is `0`, and every number too large for a float, of one sign, is one value).
/// The common numbers (an integer, or a fraction without an exponent, of up to
/// [`PLAIN_MAX`] bytes) take no copy.
#[inline]
pub fn number_prehash(text: &[u8]) -> u64 {
    let exponent = text.iter().any(|&b| b == b'e' || b == b'E');
    if !exponent && text.len() <= PLAIN_MAX {
        let mut t = text;
        if t.contains(&b'.') {
            while let [head @ .., b'0'] = t {
                t = head;
            }
            if let [head @ .., b'.'] = t {
                t = head;
            }
        }
        if t == b"-0" {
            t = b"0";
        }
        return prehash(TAG_NUMBER, t);
    }
    prehash(TAG_NUMBER, canonical_number(text).as_bytes())
}

/// The spelling [`number_prehash`] hashes, of any valid JSON number: a decimal's plain
/// spelling, `inf` or `-inf`, or a float's bits after `f`.
fn canonical_number(text: &[u8]) -> String {
    let plain = |d: ndq_scan::Decimal| {
        if d.is_zero() {
            "0".to_string()
        } else {
            d.normalize().to_string()
        }
    };
    if let Ok(d) = ndq_scan::parse_decimal(text) {
        return plain(d);
    }
    // A number no decimal holds: the float nearest it, or (its shortest spelling a decimal
    // holds: `1e-400` is `0`) that decimal.
    let f = std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(f64::NAN);
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    match ndq_scan::float_as_decimal(f) {
        Some(d) => plain(d),
        None => format!("f{:016x}", f.to_bits()),
    }
}

/// The hash without its finaliser: what a chunk keeps per value ([`Hashes`]).
///
/// ```text
/// h = seed(tag)
/// for each whole 8-byte word w of the bytes, in order:  h = mix(h, w)
/// the last 1 to 7 bytes, if any, as a word padded with zeros:  h = mix(h, tail)
/// h = mix(h, length)
/// mix(h, w) = the 128-bit product (h ^ w) * K folded to 64 bits (low ^ high)
/// ```
///
/// The words are taken from the value's start and the length comes last, so a reader that
/// finds a value's end 8 bytes at a time hashes it in the same pass ([`Stream`]; the glue
/// walk does, for strings).
#[inline]
pub fn prehash(tag: u8, bytes: &[u8]) -> u64 {
    let mut h = Stream::new(tag);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h.word(u64::from_le_bytes([
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
        ]));
    }
    // The last 1 to 7 bytes, read without a copy to the stack (whose store and reload
    // cost as much as the rest of the hash): overlapping loads, the bytes they share with
    // the words before shifted out or equal.
    let n = bytes.len();
    let rest = chunks.remainder().len();
    if rest > 0 {
        let tail = if n >= 8 {
            let last = u64::from_le_bytes(bytes[n - 8..].try_into().unwrap_or_default());
            last >> (8 * (8 - rest))
        } else if n >= 4 {
            let lo = u32::from_le_bytes(bytes[..4].try_into().unwrap_or_default());
            let hi = u32::from_le_bytes(bytes[n - 4..].try_into().unwrap_or_default());
            u64::from(lo) | (u64::from(hi) << (8 * (n - 4)))
        } else {
            u64::from(bytes[0])
                | (u64::from(bytes[n / 2]) << (8 * (n / 2)))
                | (u64::from(bytes[n - 1]) << (8 * (n - 1)))
        };
        h.word(tail);
    }
    h.end(n)
}

/// [`prehash`] taken a word at a time: [`Stream::word`] for each whole word and the padded
/// tail, [`Stream::end`] with the length.
#[derive(Clone, Copy, Debug)]
pub struct Stream(u64);

impl Stream {
    /// The seed of a type tag.
    #[inline]
    pub fn new(tag: u8) -> Stream {
        Stream((u64::from(tag) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// Mix in the next 8 bytes (little-endian), or the tail padded with zeros.
    #[inline]
    pub fn word(&mut self, w: u64) {
        self.0 = mix(self.0 ^ w);
    }

    /// The prehash of a value of `len` bytes.
    #[inline]
    pub fn end(self, len: usize) -> u64 {
        mix(self.0 ^ (len as u64))
    }
}

#[inline]
fn mix(x: u64) -> u64 {
    let p = u128::from(x) * 0xa076_1d64_78bd_642f_u128;
    (p as u64) ^ ((p >> 64) as u64)
}

/// The murmur3 finaliser: a bijection of 64-bit words that spreads every bit of `h` over all
/// of them.
#[inline]
pub fn finish(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// A hasher for keys that are hashes already.
#[derive(Clone, Copy, Debug, Default)]
pub struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every spelling of the value `sign * digits * 10^exp` (digits without leading zeros):
    /// plain (with zeros after the point), and with exponents of both cases and signs.
    fn spellings(negative: bool, digits: &str, exp: i32) -> Vec<String> {
        let sign = if negative { "-" } else { "" };
        let n = digits.len() as i32;
        let plain = if exp >= 0 {
            format!("{digits}{}", "0".repeat(exp as usize))
        } else if n + exp > 0 {
            let (i, f) = digits.split_at((n + exp) as usize);
            format!("{i}.{f}")
        } else {
            format!("0.{}{digits}", "0".repeat(-(n + exp) as usize))
        };
        let mut all = vec![format!("{sign}{plain}")];
        if plain.contains('.') {
            all.push(format!("{sign}{plain}000"));
        } else {
            all.push(format!("{sign}{plain}.0"));
        }
        // d.ddd e(exp + n - 1), and the digits as an integer e exp.
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}.{rest}")
        };
        all.push(format!("{sign}{point}e{}", exp + n - 1));
        let zero = if rest.is_empty() { "." } else { "" };
        all.push(format!("{sign}{point}{zero}0E+{}", exp + n - 1).replace("E+-", "E-"));
        all.push(format!("{sign}{digits}e{exp}"));
        all.push(format!("{sign}{digits}00e{}", exp - 2));
        all
    }

    #[test]
    fn numbers_hash_by_value_whatever_their_spelling() {
        let mut seen = std::collections::HashMap::new();
        for digits in ["1", "15", "7", "123456789", "1000000001"] {
            for exp in [-40, -9, -3, -1, 0, 1, 2, 5, 40, 70] {
                for negative in [false, true] {
                    let all = spellings(negative, digits, exp);
                    let h = number_prehash(all[0].as_bytes());
                    for s in &all {
                        assert_eq!(number_prehash(s.as_bytes()), h, "{s} against {}", all[0]);
                    }
                    // Different values, different hashes.
                    let value = (negative, digits, exp);
                    if let Some(other) = seen.insert(h, value) {
                        assert_eq!(other, value, "{} hashes as another value", all[0]);
                    }
                }
            }
        }
        for zero in ["0", "-0", "0.0", "-0.000", "0e5", "-0E-3", "0.0e+12"] {
            assert_eq!(
                number_prehash(zero.as_bytes()),
                prehash(TAG_NUMBER, b"0"),
                "{zero}"
            );
        }
        // Past a decimal, values as the query language holds them: the nearest float.
        let one = |a: &str, b: &str| number_prehash(a.as_bytes()) == number_prehash(b.as_bytes());
        let forty = "1234567890123456789012345678901234567890";
        assert!(one(forty, "1234567890123456789012345678901234567891"));
        assert!(!one(forty, "1234567890123456789012345678901234567990000"));
        assert!(one("1e400", "2e400") && one("-1e400", "-3E+999"));
        assert!(!one("1e400", "-1e400") && !one("1e400", "1e308"));
        assert!(one("1e-400", "0") && one("-1e-400", "0"));
        assert!(one("1e29", "100000000000000000000000000000"));
        // The common spellings are hashed as they are, or cut.
        assert_eq!(number_prehash(b"200"), prehash(TAG_NUMBER, b"200"));
        assert_eq!(number_prehash(b"175.6400"), prehash(TAG_NUMBER, b"175.64"));
        assert_eq!(number_prehash(b"-2.50"), prehash(TAG_NUMBER, b"-2.5"));
        assert_ne!(number_prehash(b"2"), number_prehash(b"-2"));
        assert_ne!(number_prehash(b"10"), number_prehash(b"1"));
        assert_eq!(
            value_prehash(TAG_STRING, b"1.50"),
            prehash(TAG_STRING, b"1.50")
        );
    }

    fn of(values: impl IntoIterator<Item = u64>) -> Distinct {
        let mut d = Distinct::default();
        for v in values {
            d.insert(hash(1, &v.to_le_bytes()));
        }
        d
    }

    #[test]
    fn exact_up_to_the_limit_then_an_estimate() {
        let d = of((0..100).chain(0..100));
        assert_eq!(d.count(), (100, true));
        let d = of(0..EXACT_LIMIT as u64);
        assert_eq!(d.count(), (EXACT_LIMIT as u64, true));
        for n in [EXACT_LIMIT as u64 + 1, 50_000, 1_000_000] {
            let (e, exact) = of(0..n).count();
            assert!(!exact);
            let err = (e as f64 - n as f64).abs() / n as f64;
            assert!(err < 0.05, "{n}: estimated {e}");
        }
    }

    #[test]
    fn lists_folded_in_give_what_inserting_each_gives() {
        // Lists that take the set past the limit in their middle, at their end, or start
        // past it; with repeats.
        for sizes in [
            vec![25_000],
            vec![9_000, 2_000, 500],
            vec![10_000, 1],
            vec![3, 10_001],
        ] {
            let mut one = Distinct::default();
            let mut folded = Distinct::default();
            let mut next = 0u64;
            for n in sizes {
                let mut hashes = Hashes::default();
                for i in 0..n {
                    let h = prehash(2, &(next + i % 20_000).to_le_bytes());
                    one.insert(finish(h));
                    hashes.list.push(h);
                }
                next += n;
                folded.merge_hashes(hashes);
                assert_eq!(folded.count(), one.count());
            }
        }
    }

    #[test]
    fn merging_is_the_same_in_any_grouping() {
        let n = 30_000u64;
        let whole = of(0..n).count();
        for parts in [2u64, 3, 7, 1000] {
            let mut total = Distinct::default();
            let step = n / parts + 1;
            for p in (0..parts).rev() {
                total.merge(of(p * step..((p + 1) * step).min(n)));
            }
            assert_eq!(total.count(), whole, "{parts} parts");
        }
        let mut a = of(0..10);
        a.merge(of(5..20));
        assert_eq!(a.count(), (20, true));
    }

    #[test]
    fn ids_that_differ_in_one_place_have_different_hashes() {
        // Ids counting up in hex, as the generated logs' `ConnectionId`s (`0HN` and nine
        // digits), and numbers padded with zeros to every length up to 40 bytes.
        let mut seen = HashSet::new();
        for i in 0..200_000u64 {
            assert!(
                seen.insert(hash(3, format!("0HN{i:09X}").as_bytes())),
                "{i}"
            );
        }
        for len in 0..40 {
            for i in 0..2_000u64 {
                let text = format!("{i:0len$}");
                if text.len() != len {
                    continue;
                }
                assert!(seen.insert(hash(3, text.as_bytes())), "{text}");
            }
        }
    }

    #[test]
    fn type_tag_and_bytes_both_count() {
        assert_ne!(hash(1, b"1"), hash(2, b"1"));
        assert_ne!(hash(3, b"abcdefgh"), hash(3, b"abcdefgh\0"));
        assert_ne!(hash(1, b"abcdefgh1"), hash(1, b"abcdefgh2"));
        assert_ne!(hash(1, b""), hash(1, b"\0"));
    }
}
