//! An exact sum of f64 values, so that `sum` and `avg` over numbers held as floats give the
//! same answer however the lines were split between workers, and in whatever order.
//!
//! Float addition is not associative: summing the same values in chunks of another size
//! rounds differently, and a running sum can overflow on the way to a total that does not
//! (`1e308 + 1e308 - 1e308`). [`FloatSum`] keeps the exact sum instead, as one wide
//! fixed-point integer in units of the least subnormal, 2^-1074 (a *long accumulator*, as
//! Kulisch's): every finite f64 is a whole number of those units below 2^2098, so
//! [`LIMBS`] 64-bit words, two's complement, hold any sum of up to 2^64 of them exactly. It
//! rounds once, at the end, to the nearest f64 (ties to even), an infinity when that is
//! past f64's range:
//!
//! ```text
//! add(x):   x = m * 2^e (m < 2^53, e >= -1074): add or subtract m << (e + 1074) into the words
//! merge:    add the words (with carries)
//! total:    the magnitude's top set bit h: the 53 bits below it, the next bit (round) and
//!           whether any below is set (sticky): round half to even, exponent from h
//! mean(n):  the words (shifted up 64 bits for room) divided by n, the remainder sticky,
//!           rounded the same way
//! ```
//! Infinities and NaN (which JSON cannot spell, but `1e400` becomes) are summed apart.

/// 64-bit words of the accumulator: 2^2098 for the largest f64's units, 64 bits for the
/// count, and a sign bit, rounded up.
const LIMBS: usize = 35;

/// The unit of the accumulator: 2^-1074, the least subnormal f64.
const UNIT: i64 = 1074;

/// The exact sum of the values added; see the module docs.
#[derive(Clone, Debug, Default)]
pub(crate) struct FloatSum {
    /// The sum of the finite values, in units of 2^-1074, two's complement (allocated with
    /// the first finite value that is not zero: a group's sum of Decimals never needs one).
    words: Option<Box<[u64; LIMBS]>>,
    /// The sum of the non-finite values: 0 when there are none.
    special: f64,
}

impl FloatSum {
    pub(crate) fn add(&mut self, x: f64) {
        if !x.is_finite() {
            self.special += x;
            return;
        }
        let bits = x.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i64;
        let fraction = bits & ((1 << 52) - 1);
        // x = m * 2^(shift - 1074), with shift >= 0.
        let (m, shift) = if exponent == 0 {
            (fraction, 0)
        } else {
            (fraction | 1 << 52, exponent - 1)
        };
        if m == 0 {
            return;
        }
        let words = self.words.get_or_insert_with(|| Box::new([0; LIMBS]));
        // Casts: shift < 2047, so the word index is below 32 and the bit below 64.
        let (at, bit) = ((shift / 64) as usize, (shift % 64) as u32);
        let wide = u128::from(m) << bit;
        let parts = [wide as u64, (wide >> 64) as u64];
        let op = if bits >> 63 == 0 {
            u64::overflowing_add
        } else {
            u64::overflowing_sub
        };
        apply(words, at, &parts, op);
    }

    /// Add everything `other` holds (exactly).
    pub(crate) fn merge(&mut self, other: &FloatSum) {
        if let Some(theirs) = &other.words {
            let words = self.words.get_or_insert_with(|| Box::new([0; LIMBS]));
            apply(words, 0, &theirs[..], u64::overflowing_add);
        }
        self.special += other.special;
    }

    /// The exact sum, rounded to the nearest f64 (ties to even).
    pub(crate) fn total(&self) -> f64 {
        if self.special != 0.0 || self.special.is_nan() {
            return self.special;
        }
        let Some(words) = &self.words else {
            return 0.0;
        };
        let (negative, magnitude) = magnitude(words);
        signed(negative, round(&magnitude, UNIT, false))
    }

    /// The exact sum divided by `n` (not 0), rounded to the nearest f64 (ties to even): the
    /// mean of `n` values, finite whenever it is within f64's range, even when their sum is
    /// not.
    pub(crate) fn mean(&self, n: u64) -> f64 {
        if self.special != 0.0 || self.special.is_nan() || n == 0 {
            return self.special / n as f64;
        }
        let Some(words) = &self.words else {
            return 0.0;
        };
        let (negative, magnitude) = magnitude(words);
        // 64 more bits below the unit, so that a quotient of few units keeps its bits.
        let mut wide = [0u64; LIMBS + 1];
        wide[1..].copy_from_slice(&magnitude);
        let mut rest: u128 = 0;
        for w in wide.iter_mut().rev() {
            let now = rest << 64 | u128::from(*w);
            // Casts: rest < n, so now / n < 2^64.
            *w = (now / u128::from(n)) as u64;
            rest = now % u128::from(n);
        }
        signed(negative, round(&wide, UNIT + 64, rest != 0))
    }
}

/// Add (or subtract, by `op`) the words `parts` at word `at`, the carry (or borrow) on up;
/// it wraps at the top, two's complement.
fn apply(words: &mut [u64; LIMBS], at: usize, parts: &[u64], op: fn(u64, u64) -> (u64, bool)) {
    let mut carry = false;
    for (i, w) in words.iter_mut().enumerate().skip(at) {
        let part = match parts.get(i - at) {
            Some(&p) => p,
            None if carry => 0,
            None => return,
        };
        let (a, c1) = op(*w, part);
        let (b, c2) = op(a, u64::from(carry));
        *w = b;
        carry = c1 || c2;
    }
}

/// The sign and the magnitude of a two's complement number.
fn magnitude(words: &[u64; LIMBS]) -> (bool, [u64; LIMBS]) {
    let negative = words[LIMBS - 1] >> 63 == 1;
    let mut m = *words;
    if negative {
        // -x = !x + 1.
        let mut carry = true;
        for w in m.iter_mut() {
            let (v, c) = (!*w).overflowing_add(u64::from(carry));
            *w = v;
            carry = c;
        }
    }
    (negative, m)
}

fn signed(negative: bool, x: f64) -> f64 {
    if negative { -x } else { x }
}

/// Bit `i` of `words` (little-endian), 0 past the end.
fn bit(words: &[u64], i: i64) -> u64 {
    if i < 0 {
        return 0;
    }
    // Casts: i >= 0.
    words
        .get((i / 64) as usize)
        .map_or(0, |w| w >> (i % 64) as u32 & 1)
}

/// Whether any bit of `words` below bit `i` is set.
fn any_below(words: &[u64], i: i64) -> bool {
    if i <= 0 {
        return false;
    }
    // Casts: i > 0.
    let (whole, part) = ((i / 64) as usize, (i % 64) as u32);
    words.iter().take(whole).any(|&w| w != 0)
        || (part > 0
            && words
                .get(whole)
                .is_some_and(|&w| w & ((1 << part) - 1) != 0))
}

/// The nonnegative `words * 2^-unit` (plus something below its last bit when `sticky`),
/// rounded to the nearest f64, ties to even; infinity past f64's range.
fn round(words: &[u64], unit: i64, sticky: bool) -> f64 {
    let Some(top) = words.iter().rposition(|&w| w != 0) else {
        return 0.0;
    };
    // Casts: fewer than 2^20 bits.
    let h = top as i64 * 64 + 63 - i64::from(words[top].leading_zeros());
    // The exponent of the top bit, and the lowest bit the f64 keeps: 52 below the top for a
    // normal number, the bit of 2^-1074 for a subnormal one.
    let exponent = h - unit;
    let low = if exponent >= -1022 {
        h - 52
    } else {
        unit - 1074
    };
    let mut m: u64 = 0;
    for i in (low..=h).rev() {
        m = m << 1 | bit(words, i);
    }
    let half = bit(words, low - 1) == 1;
    let below = sticky || any_below(words, low - 1);
    if half && (below || m & 1 == 1) {
        m += 1;
    }
    if exponent >= -1022 {
        // m in [2^52, 2^53], 2^53 after a carry.
        let (m, exponent) = if m >> 53 == 1 {
            (m >> 1, exponent + 1)
        } else {
            (m, exponent)
        };
        if exponent > 1023 {
            return f64::INFINITY;
        }
        // Casts: -1022 <= exponent <= 1023.
        f64::from_bits(((exponent + 1023) as u64) << 52 | (m & ((1 << 52) - 1)))
    } else {
        // Whole units of 2^-1074, at most 2^52 (the least normal, whose bits are the same).
        f64::from_bits(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sum(values: &[f64]) -> f64 {
        let mut s = FloatSum::default();
        values.iter().for_each(|&v| s.add(v));
        s.total()
    }

    #[test]
    fn exact_where_plain_addition_is_not() {
        assert_eq!(
            sum(&[0.1, 0.2]),
            0.30000000000000004,
            "one rounding, as f64 gives"
        );
        assert_eq!(sum(&[1e100, 1.0, -1e100]), 1.0);
        assert_eq!(sum(&[1e16, 1.0, 1.2e-16, -1e16]), 1.0000000000000002);
        assert_eq!(sum(&[0.1; 10]), 1.0);
        assert_eq!(sum(&[]), 0.0);
    }

    #[test]
    fn infinities_and_overflow() {
        assert_eq!(sum(&[1.0, f64::INFINITY]), f64::INFINITY);
        assert!(sum(&[f64::INFINITY, f64::NEG_INFINITY]).is_nan());
        assert_eq!(sum(&[f64::MAX, f64::MAX]), f64::INFINITY);
        assert_eq!(sum(&[-f64::MAX, -f64::MAX]), f64::NEG_INFINITY);
    }

    /// A running sum past f64's range on the way to a total within it gives that total, in
    /// any order.
    #[test]
    fn a_sum_that_overflows_on_the_way_does_not_stick() {
        for order in [
            [1e308, 1e308, -1e308],
            [1e308, -1e308, 1e308],
            [-1e308, 1e308, 1e308],
        ] {
            assert_eq!(sum(&order), 1e308, "{order:?}");
        }
        assert_eq!(sum(&[f64::MAX, f64::MAX, -f64::MAX]), f64::MAX);
    }

    #[test]
    fn means_are_rounded_once_and_finite_when_they_fit() {
        let mean = |values: &[f64]| {
            let mut s = FloatSum::default();
            values.iter().for_each(|&v| s.add(v));
            s.mean(values.len() as u64)
        };
        assert_eq!(mean(&[1.7e308, 1.7e308]), 1.7e308);
        assert_eq!(mean(&[f64::MAX, f64::MAX, f64::MAX]), f64::MAX);
        assert_eq!(mean(&[1.0, 2.0]), 1.5);
        assert_eq!(mean(&[0.1, 0.2, 0.3]), 0.2);
        assert_eq!(mean(&[-3.0, 1.0]), -1.0);
        // The least subnormal and zero: half of it, a tie, rounds to even (zero).
        assert_eq!(mean(&[f64::from_bits(1), 0.0]), 0.0);
        assert_eq!(mean(&[f64::from_bits(3), 0.0]), f64::from_bits(2));
    }

    #[test]
    fn subnormals_and_the_edges_of_the_range() {
        let tiny = f64::from_bits(1);
        assert_eq!(sum(&[tiny, tiny]), f64::from_bits(2));
        assert_eq!(
            sum(&[f64::MIN_POSITIVE, -tiny]),
            f64::from_bits((1 << 52) - 1)
        );
        assert_eq!(sum(&[f64::MAX, -f64::MAX]), 0.0);
        assert_eq!(sum(&[-0.0]), 0.0);
        // Half an ulp of MAX above it: a tie, rounded to even, which is past the range.
        let ulp = 2f64.powi(971);
        assert_eq!(sum(&[f64::MAX, ulp / 2.0]), f64::INFINITY);
        assert_eq!(sum(&[f64::MAX, ulp / 4.0]), f64::MAX);
    }

    /// The exact sum of values that are integers times a power of two, as i128.
    fn exact(values: &[i64], scale: i32) -> f64 {
        let total: i128 = values.iter().map(|&v| i128::from(v)).sum();
        total as f64 * 2f64.powi(scale)
    }

    /// A float from any part of f64's range: `m * 2^e`, subnormals and the largest included.
    fn any_float() -> impl Strategy<Value = f64> {
        (-(1i64 << 53)..(1i64 << 53), -1130i32..1030).prop_map(|(m, e)| {
            // Two steps, so that neither power of two is out of range on its own.
            (m as f64 * 2f64.powi(e / 2)) * 2f64.powi(e - e / 2)
        })
    }

    proptest! {
        /// Two values: IEEE addition is the exact sum rounded once, the infinity past the
        /// range included, so the two must agree.
        #[test]
        fn two_values_sum_as_ieee_addition(a in any_float(), b in any_float()) {
            let want = a + b;
            let got = sum(&[a, b]);
            prop_assert!(got == want || (got.is_nan() && want.is_nan()), "{a:e} + {b:e}: {got:e} against {want:e}");
        }

        /// Values from the whole range (a running sum may overflow): any order, any split
        /// gives the same total.
        #[test]
        fn order_and_split_do_not_matter_across_the_range(
            values in proptest::collection::vec(any_float(), 0..40),
            cut in 0usize..40,
        ) {
            let whole = sum(&values);
            let mut reversed = values.clone();
            reversed.reverse();
            prop_assert_eq!(sum(&reversed).to_bits(), whole.to_bits());
            let cut = cut.min(values.len());
            let (a, b) = values.split_at(cut);
            let (mut left, mut right) = (FloatSum::default(), FloatSum::default());
            a.iter().for_each(|&v| left.add(v));
            b.iter().for_each(|&v| right.add(v));
            right.merge(&left);
            prop_assert_eq!(right.total().to_bits(), whole.to_bits());
        }

        /// Any split into chunks, merged in any order, gives the same total; for values whose
        /// exact sum is known (multiples of one power of two), that total is it, rounded once.
        #[test]
        fn split_and_order_do_not_matter(
            ints in proptest::collection::vec(-(1i64 << 60)..(1i64 << 60), 0..60),
            scale in -40i32..40,
            cut in 0usize..60,
        ) {
            let values: Vec<f64> = ints.iter().map(|&v| v as f64 * 2f64.powi(scale)).collect();
            let whole = sum(&values);
            let cut = cut.min(values.len());
            let (a, b) = values.split_at(cut);
            let (mut left, mut right) = (FloatSum::default(), FloatSum::default());
            a.iter().for_each(|&v| left.add(v));
            b.iter().rev().for_each(|&v| right.add(v));
            right.merge(&left);
            prop_assert_eq!(right.total(), whole);
            // i64 -> f64 rounds values beyond 2^53, so compare with the rounded values' sum.
            let rounded: Vec<i64> = ints.iter().map(|&v| v as f64 as i64).collect();
            prop_assert_eq!(whole, exact(&rounded, scale));
        }
    }
}
