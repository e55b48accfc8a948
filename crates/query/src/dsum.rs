//! An exact sum of Decimals, so that `sum` and `avg` give the same answer whatever the order
//! of the lines and however they were split between workers.
//!
//! Adding Decimals one by one is not exact: once a running total needs more than the 28 or so
//! significant digits a Decimal holds, rust_decimal rounds it, and where that happens depends
//! on the order of the additions (`1e-28 + 1e-28 + 1.5e27 - 1.5e27` gave 0 in one order and
//! `2e-28` in another). [`DecimalSum`] keeps the exact sum instead and rounds once, at the
//! end:
//!
//! ```text
//! run          the latest addends at one scale: an i128 mantissa (a Decimal's is below 2^96),
//!              scaled up to a larger addend's scale; exact
//! whole, part  the rest: whole + part / 10^28 (a Decimal's scale is at most 28), i128 each;
//!              a run that cannot take the next addend is moved here (its digits split at
//!              the decimal point), so `run` starts again
//! big          whole parts that would take `whole` past i128 (beyond 1.7e38, far outside a
//!              Decimal), as an exact float sum
//! total:       whole + part / 10^28 at the largest scale of the addends if its mantissa is
//!              below 2^96; else at the largest scale where it is, rounded half to even; else
//!              (beyond a Decimal's range) a float
//! ```
//! Merging adds one sum's parts to the other's, exactly; so the total is the exact sum
//! rounded once, whatever the order and the split.

use rust_decimal::Decimal;

use crate::fsum::FloatSum;

/// Mantissas of a Decimal are below this.
const MANTISSA_LIMIT: i128 = 1 << 96;

/// The largest scale of a Decimal.
const MAX_SCALE: u32 = 28;

/// `10^i` for `i` in `0..=28`.
const POW10: [i128; 29] = {
    let mut t = [1i128; 29];
    let mut i = 1;
    while i < 29 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// `10^i` for a scale or a difference of scales (at most 28).
fn pow10(i: u32) -> i128 {
    POW10[i.min(MAX_SCALE) as usize]
}

/// The exact sum of the Decimals added; see the module docs.
#[derive(Clone, Debug, Default)]
pub(crate) struct DecimalSum {
    /// `run_mantissa / 10^run_scale`: the latest addends, exactly.
    run_mantissa: i128,
    run_scale: u32,
    /// `whole + part / 10^28`, with `|part| < 10^28`: the rest, exactly.
    whole: i128,
    part: i128,
    /// Whole parts that did not fit `whole` (then the total is a float).
    big: FloatSum,
    beyond: bool,
}

impl DecimalSum {
    /// Add `mantissa / 10^scale`, where `|mantissa| < 2^96` and `scale <= 28` (any Decimal's
    /// parts).
    #[inline]
    pub(crate) fn add_parts(&mut self, mantissa: i128, scale: u32) {
        if let Some((m, s)) = self.run_plus(mantissa, scale) {
            self.run_mantissa = m;
            self.run_scale = s;
        } else {
            self.settle_run();
            self.run_mantissa = mantissa;
            self.run_scale = scale;
        }
    }

    /// The run plus `mantissa / 10^scale` as one mantissa at the larger scale, if it fits.
    #[inline]
    fn run_plus(&self, mantissa: i128, scale: u32) -> Option<(i128, u32)> {
        if self.run_mantissa == 0 {
            return Some((mantissa, scale));
        }
        if scale == self.run_scale {
            return Some((self.run_mantissa.checked_add(mantissa)?, scale));
        }
        let to = scale.max(self.run_scale);
        let run = self.run_mantissa.checked_mul(pow10(to - self.run_scale))?;
        let addend = mantissa.checked_mul(pow10(to - scale))?;
        Some((run.checked_add(addend)?, to))
    }

    /// Move the run into `whole` and `part`, and start it again.
    fn settle_run(&mut self) {
        let (m, s) = (self.run_mantissa, self.run_scale.min(MAX_SCALE));
        self.run_mantissa = 0;
        self.run_scale = 0;
        let unit = pow10(s);
        // Both keep the sign of `m`: m = whole * 10^s + rest.
        self.add_whole(m / unit);
        self.add_part((m % unit) * pow10(MAX_SCALE - s));
    }

    fn add_whole(&mut self, w: i128) {
        match self.whole.checked_add(w) {
            Some(sum) => self.whole = sum,
            None => {
                self.beyond = true;
                add_i128(&mut self.big, w);
            }
        }
    }

    /// Add `p / 10^28`, with `|p| < 10^28`.
    fn add_part(&mut self, p: i128) {
        // Both below 10^28 in magnitude: no overflow.
        let sum = self.part + p;
        let unit = pow10(MAX_SCALE);
        self.part = sum % unit;
        self.add_whole(sum / unit);
    }

    /// Add `other` to this sum.
    pub(crate) fn merge(&mut self, other: &DecimalSum) {
        self.add_parts(other.run_mantissa, other.run_scale);
        self.add_whole(other.whole);
        self.add_part(other.part);
        self.big.merge(&other.big);
        self.beyond |= other.beyond;
    }

    /// The sum as `whole + part / 10^28`, the run settled and one sign for both; `None` when
    /// the whole part went beyond `whole`'s range.
    fn settled(&self) -> Option<(i128, i128)> {
        let mut all = self.clone();
        all.settle_run();
        if all.beyond {
            return None;
        }
        let (mut whole, mut part) = (all.whole, all.part);
        let unit = pow10(MAX_SCALE);
        if whole > 0 && part < 0 {
            whole -= 1;
            part += unit;
        } else if whole < 0 && part > 0 {
            whole += 1;
            part -= unit;
        }
        Some((whole, part))
    }

    /// The sum as a Decimal with `scale` decimals (the largest scale of the addends, so the
    /// sum has no more), or, when its mantissa would not fit, with as many as fit, rounded
    /// half to even. `None` when the sum is beyond a Decimal's range.
    pub(crate) fn total(&self, scale: u32) -> Option<Decimal> {
        let (whole, part) = self.settled()?;
        let sign = if whole < 0 || part < 0 { -1 } else { 1 };
        (0..=scale.min(MAX_SCALE)).rev().find_map(|s| {
            let step = pow10(MAX_SCALE - s);
            let (q, r) = (part / step, part % step);
            let mut n = whole.checked_mul(pow10(s))?.checked_add(q)?;
            // |r| < 10^28, so twice it fits.
            let twice = 2 * r.abs();
            if twice > step || (twice == step && n % 2 != 0) {
                n += sign;
            }
            (n.abs() < MANTISSA_LIMIT).then(|| decimal(n, s))
        })
    }

    /// The sum divided by `n`, rounded once: with as many decimals as fit a Decimal (at most
    /// 28), half to even. For a mean whose sum is beyond a Decimal's range (`total` is `None`)
    /// though the mean is not. `None` when the quotient is beyond a Decimal's range too, or
    /// the sum beyond `whole`'s.
    ///
    /// ```text
    /// |sum| = whole + part / 10^28        (one sign for both, as in `total`)
    /// whole / n -> q, remainder r; then 28 digits of the fraction by long division, each
    /// the next digit of part brought down: r = 10r + digit, digit of the quotient r / n
    /// the quotient = q + frac / 10^28 + r / (n 10^28), cut to the scale that fits
    /// ```
    pub(crate) fn quotient(&self, n: u64) -> Option<Decimal> {
        let (whole, part) = self.settled()?;
        if n == 0 {
            return None;
        }
        let negative = whole < 0 || part < 0;
        let (whole, part) = (whole.checked_abs()?, part.abs());
        let n = i128::from(n);
        let (q, mut r) = (whole / n, whole % n);
        // r < n < 2^64, so 10r + 9 fits.
        let mut frac = 0i128;
        for i in (0..MAX_SCALE).rev() {
            r = r * 10 + part / pow10(i) % 10;
            frac = frac * 10 + r / n;
            r %= n;
        }
        (0..=MAX_SCALE).rev().find_map(|s| {
            let step = pow10(MAX_SCALE - s);
            let (kept, rest) = (frac / step, frac % step);
            let mut m = q.checked_mul(pow10(s))?.checked_add(kept)?;
            // What is dropped, (rest + r / n) / step, against one half: twice it is
            // t + e / n, with t = 2 rest + 2r div n (r < n, so 2r div n is 0 or 1) and
            // e = 2r mod n.
            let (t, e) = (2 * rest + 2 * r / n, 2 * r % n);
            m += i128::from(t > step || (t == step && (e > 0 || m % 2 != 0)));
            (m < MANTISSA_LIMIT).then(|| decimal(if negative { -m } else { m }, s))
        })
    }

    /// The sum as a float sum, for a total beyond a Decimal's range or mixed with floats:
    /// exact but for the part below 1, which goes in as its nearest float.
    pub(crate) fn float_sum(&self) -> FloatSum {
        let mut all = self.clone();
        all.settle_run();
        let mut f = all.big;
        add_i128(&mut f, all.whole);
        // |part| < 10^28: a Decimal's mantissa, its nearest float (one rounding).
        f.add(crate::value::dec_to_f64(Decimal::from_i128_with_scale(
            all.part, 28,
        )));
        f
    }
}

/// The Decimal `n / 10^s`, with `|n| < 2^96` and `s <= 28`.
fn decimal(n: i128, s: u32) -> Decimal {
    let m = n.unsigned_abs();
    // Casts: below 2^96, three 32-bit words hold it exactly.
    Decimal::from_parts(m as u32, (m >> 32) as u32, (m >> 64) as u32, n < 0, s)
}

/// Add `x` to `f` exactly, as three floats of at most 53 significant bits.
fn add_i128(f: &mut FloatSum, x: i128) {
    const LOW: i128 = (1 << 53) - 1;
    // Casts: `x >> 106` is below 2^22 in magnitude and the other two below 2^53, so each
    // converts exactly; their sum is x.
    f.add((x >> 106) as f64 * 2f64.powi(106));
    f.add(((x >> 53) & LOW) as f64 * 2f64.powi(53));
    f.add((x & LOW) as f64);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    impl DecimalSum {
        fn add(&mut self, d: Decimal) {
            self.add_parts(d.mantissa(), d.scale());
        }
    }

    fn sum_of(xs: &[Decimal]) -> DecimalSum {
        let mut s = DecimalSum::default();
        for x in xs {
            s.add(*x);
        }
        s
    }

    fn max_scale(xs: &[Decimal]) -> u32 {
        xs.iter().map(|x| x.scale()).max().unwrap_or(0)
    }

    #[test]
    fn order_does_not_matter() {
        let xs = [d("1e-28"), d("1e-28"), d("1.5e27"), d("-1.5e27")];
        let want = Some(d("0.0000000000000000000000000002"));
        for order in [[0, 1, 2, 3], [2, 3, 0, 1], [0, 2, 1, 3], [3, 0, 2, 1]] {
            let ys: Vec<Decimal> = order.iter().map(|&i| xs[i]).collect();
            let total = sum_of(&ys).total(max_scale(&ys));
            assert_eq!(total, want);
            assert_eq!(total.unwrap().to_string(), "0.0000000000000000000000000002");
        }
    }

    #[test]
    fn rounds_once_half_to_even_when_too_long() {
        // 1e21 + 0.0002 + 0.0002 + 0.00000000000000005: 22 integer digits and 17 decimals
        // are too many; 7 decimals are the most that fit (10^28 < 2^96 < 10^29).
        let xs = [
            d("1e21"),
            d("0.0002"),
            d("0.0002"),
            d("0.00000000000000005"),
        ];
        let total = sum_of(&xs).total(max_scale(&xs)).unwrap();
        assert_eq!(total.to_string(), "1000000000000000000000.0004000");
        // A tie goes to the even neighbour: 2.5 and 3.5 at 0 decimals.
        let mut s = DecimalSum::default();
        s.add(d("79228162514264337593543950330"));
        s.add(d("0.5"));
        assert_eq!(s.total(1), Some(d("79228162514264337593543950330")));
        let mut s = DecimalSum::default();
        s.add(d("79228162514264337593543950331"));
        s.add(d("0.5"));
        assert_eq!(s.total(1), Some(d("79228162514264337593543950332")));
    }

    #[test]
    fn beyond_a_decimal_is_none_and_cancels_exactly() {
        let big = Decimal::MAX;
        let s = sum_of(&[big, big, d("1")]);
        assert_eq!(s.total(0), None);
        let f = s.float_sum().total();
        assert_eq!(f, 2.0 * 79228162514264337593543950335f64);
        let s = sum_of(&[d("1"), big, big, -big, -big]);
        assert_eq!(s.total(0), Some(d("1")));
    }

    /// A mean whose sum is beyond a Decimal: exact, rounded once, half to even (the expected
    /// values from Python's `decimal` at 200 digits, cut to the largest scale that fits).
    #[test]
    fn quotient_of_a_sum_beyond_a_decimal_is_exact() {
        let m = "79228162514264337593543950335";
        let cases: [(&[&str], u64, Option<&str>); 8] = [
            (
                &[
                    "50000000000000000000000000001",
                    "50000000000000000000000000003",
                ],
                2,
                Some("50000000000000000000000000002"),
            ),
            (
                &[
                    "50000000000000000000000000001",
                    "50000000000000000000000000002",
                    "-7.5",
                ],
                3,
                Some("33333333333333333333333333332"),
            ),
            (&[m, m, "1"], 3, Some("52818775009509558395695966890")),
            (
                &[&format!("-{m}"), &format!("-{m}"), "-0.5"],
                2,
                Some(&format!("-{m}")),
            ),
            (
                &[
                    "60000000000000000000000000000",
                    "60000000000000000000000000000",
                    "0.125",
                ],
                7,
                Some("17142857142857142857142857143"),
            ),
            (
                &[
                    "70000000000000000000000000000",
                    "70000000000000000000000000000",
                    "0.0000000000000000000000000001",
                ],
                12345,
                Some("11340623734305386796273795.059"),
            ),
            // Past the half by the remainder alone: up.
            (
                &[m, m, "0.0000000000000000000000000001"],
                4,
                Some("39614081257132168796771975168"),
            ),
            // A mean beyond a Decimal.
            (&[m, m, m, m, m], 2, None),
        ];
        for (xs, n, want) in cases {
            let xs: Vec<Decimal> = xs.iter().map(|x| d(x)).collect();
            let s = sum_of(&xs);
            assert_eq!(s.total(0), None, "{xs:?}");
            assert_eq!(
                s.quotient(n).map(|q| q.normalize()),
                want.map(d),
                "{xs:?} / {n}"
            );
        }
        // Half to even at the last digit kept: M + 0.5 rounds to 2^96, which does not fit.
        assert_eq!(sum_of(&[d(m), d("0.5")]).quotient(1), None);
        assert_eq!(
            sum_of(&[d(m), d("-0.5")]).quotient(1),
            Some(d("79228162514264337593543950334"))
        );
    }

    #[test]
    fn whole_beyond_i128_goes_to_floats_and_back() {
        let mut s = DecimalSum::default();
        let big = Decimal::MAX;
        // 2^32 times Decimal::MAX is past i128's range: through merges, as workers would.
        let mut one = DecimalSum::default();
        one.add(big);
        for _ in 0..33 {
            let copy = one.clone();
            one.merge(&copy);
        }
        s.merge(&one);
        assert_eq!(s.total(0), None);
        let want = 79228162514264337593543950335f64 * 2f64.powi(33);
        assert_eq!(s.float_sum().total(), want);
    }

    /// A Decimal from a mantissa and scale drawn for the property below.
    fn arb_decimal() -> impl Strategy<Value = Decimal> {
        (
            prop_oneof![
                -1_000_000_000i64..1_000_000_000,
                Just(0i64),
                any::<i64>(),
                -100i64..100,
            ],
            0u32..=28,
        )
            .prop_map(|(m, s)| Decimal::new(m, s))
    }

    proptest! {
        /// Any order and any split into merged parts gives the same total, and when every
        /// addend is small (so the exact sum fits an i128 at scale 28), that total is the
        /// exact sum rounded as documented.
        #[test]
        fn exact_whatever_the_order_and_split(
            xs in proptest::collection::vec(arb_decimal(), 0..40),
            cut in 0usize..40,
            rotate in 0usize..40,
        ) {
            let scale = max_scale(&xs);
            let whole = sum_of(&xs).total(scale);
            let cut = cut.min(xs.len());
            let mut left = sum_of(&xs[..cut]);
            left.merge(&sum_of(&xs[cut..]));
            prop_assert_eq!(left.total(scale), whole);
            let mut ys = xs.clone();
            if !ys.is_empty() {
                let k = rotate % ys.len();
                ys.rotate_left(k);
                ys.reverse();
            }
            prop_assert_eq!(sum_of(&ys).total(scale), whole);
            // The reference: the exact sum at scale 28 when it fits an i128.
            let exact = xs.iter().try_fold(0i128, |acc, x| {
                acc.checked_add(x.mantissa().checked_mul(pow10(28 - x.scale()))?)
            });
            if let Some(exact) = exact {
                let want = (0..=scale).rev().find_map(|s| {
                    let step = pow10(28 - s);
                    let (q, r) = (exact / step, exact % step);
                    let mut n = q;
                    let twice = 2 * r.abs();
                    if twice > step || (twice == step && n % 2 != 0) {
                        n += exact.signum();
                    }
                    (n.abs() < MANTISSA_LIMIT).then(|| decimal(n, s))
                });
                prop_assert_eq!(whole, want);
            }
        }
    }
}
