//! An exact sum of f64 values, so that `sum` and `avg` over numbers held as floats give the
//! same answer however the lines were split between workers.
//!
//! Float addition is not associative: summing the same values in chunks of another size
//! rounds differently. [`FloatSum`] keeps the exact sum instead, as a short list of
//! non-overlapping partials (Shewchuk's algorithm, the one behind Python's `math.fsum`), and
//! rounds once, at the end: the result is the exact sum correctly rounded, whatever the order
//! of the additions and merges.
//!
//! ```text
//! add(x):  for each partial p (smallest first): (hi, lo) = two_sum(x, p)   // hi + lo == x + p exactly
//!              keep lo if it is not 0; x = hi
//!          then keep x as the largest partial
//! total:   add the partials from the largest down until a sum is inexact (lo != 0); then
//!          correct hi for round-half-even when the next partial has lo's sign
//! ```
//! Infinities and NaN (which JSON cannot spell, but `1e400` becomes) are summed apart; an
//! exact sum beyond f64's range becomes an infinity too.

/// The exact sum of the values added; see the module docs.
#[derive(Clone, Debug, Default)]
pub(crate) struct FloatSum {
    /// Non-overlapping, increasing in magnitude; their exact sum is the sum of the finite
    /// values added.
    partials: Vec<f64>,
    /// The sum of the non-finite values (and of sums that overflowed): 0 when there are none.
    special: f64,
}

impl FloatSum {
    pub(crate) fn add(&mut self, mut x: f64) {
        if !x.is_finite() {
            self.special += x;
            return;
        }
        let mut kept = 0;
        for j in 0..self.partials.len() {
            let mut y = self.partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            if !hi.is_finite() {
                // The exact sum is beyond f64's range.
                self.special += hi;
                self.partials.clear();
                return;
            }
            let lo = y - (hi - x);
            if lo != 0.0 {
                self.partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        self.partials.truncate(kept);
        self.partials.push(x);
    }

    /// Add everything `other` holds (exactly).
    pub(crate) fn merge(&mut self, other: &FloatSum) {
        for &p in &other.partials {
            self.add(p);
        }
        self.special += other.special;
    }

    /// The exact sum, rounded to the nearest f64 (ties to even).
    pub(crate) fn total(&self) -> f64 {
        if self.special != 0.0 || self.special.is_nan() {
            return self.special;
        }
        let p = &self.partials;
        let Some((&top, rest)) = p.split_last() else {
            return 0.0;
        };
        let (mut hi, mut lo) = (top, 0.0);
        let mut n = rest.len();
        while n > 0 {
            n -= 1;
            let x = hi;
            let y = p[n];
            hi = x + y;
            lo = y - (hi - x);
            if lo != 0.0 {
                break;
            }
        }
        // `hi + lo` is exact; a tie in rounding it is broken by the partials below.
        if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            if y == x - hi {
                hi = x;
            }
        }
        hi
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
        assert_eq!(
            sum(&[f64::MAX, f64::MAX, -f64::MAX]),
            f64::INFINITY,
            "overflow sticks"
        );
    }

    /// The exact sum of values that are integers times a power of two, as i128.
    fn exact(values: &[i64], scale: i32) -> f64 {
        let total: i128 = values.iter().map(|&v| i128::from(v)).sum();
        total as f64 * 2f64.powi(scale)
    }

    proptest! {
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
