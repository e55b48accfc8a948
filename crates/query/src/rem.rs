//! `x % y` on decimals, exactly.
//!
//! rust_decimal's `checked_rem` is wrong for some operands whose quotient is near 2^63, 2^64
//! or 2^96 and whose divisor has many decimals (`9223372036854775808 %
//! 1.0000000000000000000000000001` gave `0.92...` for `0.99...`). The remainder is worked
//! out here as integers: with `s` the larger scale, `x = A / 10^s` and `y = B / 10^s`, where
//! `A` and `B` may reach 2^96 * 10^28 < 2^190; the remainder is `(A mod B) / 10^s` with the
//! sign of `x`, less than `|y|`, so it fits a Decimal (rounded, half to even, when it needs
//! more digits than one holds). In u128 when `A` and `B` fit one, else in four 64-bit words.

use rust_decimal::Decimal;

/// `x % y` (the sign of `x`); `None` when `y` is zero. Written as rust_decimal writes the
/// remainders it gets right: `0` when `|x|` is 0 or `|y|`, `x` itself when `|x| < |y|`, else
/// at the larger scale (`12.0 % 2` is `0.0`); the tests hold the two to the same text.
pub(crate) fn rem(x: Decimal, y: Decimal) -> Option<Decimal> {
    if y.is_zero() {
        return None;
    }
    let (ax, ay) = (x.abs(), y.abs());
    if x.is_zero() || ax == ay {
        return Some(Decimal::ZERO);
    }
    if ax < ay {
        return Some(x);
    }
    let s = x.scale().max(y.scale());
    let a = Wide::from(x.mantissa().unsigned_abs()).times_ten_to(s - x.scale());
    let b = Wide::from(y.mantissa().unsigned_abs()).times_ten_to(s - y.scale());
    a.rem(&b).to_decimal(s, x.is_sign_negative())
}

/// An unsigned integer of four 64-bit words, least significant first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Wide([u64; 4]);

impl From<u128> for Wide {
    fn from(n: u128) -> Wide {
        // Casts: the two halves of n.
        Wide([n as u64, (n >> 64) as u64, 0, 0])
    }
}

impl Wide {
    /// `self * 10^k` (never past four words here: below 2^96 times 10^28).
    fn times_ten_to(mut self, k: u32) -> Wide {
        for _ in 0..k {
            let mut carry = 0u128;
            for w in &mut self.0 {
                let v = u128::from(*w) * 10 + carry;
                // Casts: the low word, and the carry (below 10).
                *w = v as u64;
                carry = v >> 64;
            }
        }
        self
    }

    fn bits(&self) -> u32 {
        for (i, &w) in self.0.iter().enumerate().rev() {
            if w != 0 {
                // Casts: i < 4.
                return 64 * i as u32 + 64 - w.leading_zeros();
            }
        }
        0
    }

    fn bit(&self, i: u32) -> u64 {
        self.0[(i / 64) as usize] >> (i % 64) & 1
    }

    /// `self mod m` (`m` not zero): in u128 when both fit, else by shifting and subtracting.
    fn rem(&self, m: &Wide) -> Wide {
        if self.0[2] == 0 && self.0[3] == 0 && m.0[2] == 0 && m.0[3] == 0 {
            let (a, b) = (self.low(), m.low());
            return Wide::from(a % b);
        }
        let mut r = Wide([0; 4]);
        for i in (0..self.bits()).rev() {
            // r < m < 2^190, so r * 2 + 1 fits.
            let mut carry = self.bit(i);
            for w in &mut r.0 {
                let next = *w >> 63;
                *w = *w << 1 | carry;
                carry = next;
            }
            if r.at_least(m) {
                r.sub(m);
            }
        }
        r
    }

    fn low(&self) -> u128 {
        u128::from(self.0[0]) | u128::from(self.0[1]) << 64
    }

    fn at_least(&self, m: &Wide) -> bool {
        for i in (0..4).rev() {
            if self.0[i] != m.0[i] {
                return self.0[i] > m.0[i];
            }
        }
        true
    }

    fn sub(&mut self, m: &Wide) {
        let mut borrow = false;
        for (w, &v) in self.0.iter_mut().zip(&m.0) {
            let (d, b1) = w.overflowing_sub(v);
            let (d, b2) = d.overflowing_sub(u64::from(borrow));
            *w = d;
            borrow = b1 || b2;
        }
    }

    /// `(self / 10, self % 10)`.
    fn div_ten(&self) -> (Wide, u64) {
        let mut q = [0u64; 4];
        let mut rest = 0u128;
        for i in (0..4).rev() {
            let v = rest << 64 | u128::from(self.0[i]);
            // Casts: rest < 10, so v / 10 < 2^64.
            q[i] = (v / 10) as u64;
            rest = v % 10;
        }
        // Casts: below 10.
        (Wide(q), rest as u64)
    }

    /// `±self / 10^scale` as a Decimal, with the fewest digits dropped (rounded half to
    /// even, once) that leave it 96 bits. (The scale is at most 28, a Decimal's: the larger
    /// of two Decimals'.)
    fn to_decimal(self, scale: u32, negative: bool) -> Option<Decimal> {
        for k in 0..=scale {
            let (mut q, mut last, mut sticky) = (self, 0, false);
            for _ in 0..k {
                sticky |= last != 0;
                (q, last) = q.div_ten();
            }
            if last > 5 || (last == 5 && (sticky || q.0[0] & 1 == 1)) {
                q.add_one();
            }
            if q.bits() <= 96 {
                let m = i128::try_from(q.low()).ok()?;
                return Some(Decimal::from_i128_with_scale(
                    if negative { -m } else { m },
                    scale - k,
                ));
            }
        }
        None
    }

    fn add_one(&mut self) {
        for w in &mut self.0 {
            let (v, carry) = w.overflowing_add(1);
            *w = v;
            if !carry {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn remainders_of_quotients_near_the_word_sizes_are_exact() {
        for (x, y, want) in [
            (
                "9223372036854775808",
                "1.0000000000000000000000000001",
                "0.9999999990776627963145224193",
            ),
            (
                "18446744073709551615",
                "2.00000000000000000003",
                "0.72329883889435672579",
            ),
            (
                "79228162514264337593543950335",
                "1.0000000000000000000000000001",
                "0.0771837485735662406456049673",
            ),
        ] {
            assert_eq!(rem(d(x), d(y)), Some(d(want)), "{x} % {y}");
            assert_eq!(rem(-d(x), d(y)), Some(-d(want)), "-{x} % {y}");
        }
    }

    #[test]
    fn the_sign_is_the_dividends_and_scales_stay_as_written() {
        assert_eq!(
            rem(d("-7"), d("3")).map(|r| r.to_string()),
            Some("-1".into())
        );
        assert_eq!(
            rem(d("7"), d("-3")).map(|r| r.to_string()),
            Some("1".into())
        );
        assert_eq!(
            rem(d("12.0"), d("2")).map(|r| r.to_string()),
            Some("0.0".into())
        );
        assert_eq!(
            rem(d("5.5"), d("2")).map(|r| r.to_string()),
            Some("1.5".into())
        );
        assert_eq!(rem(d("1"), d("0")), None);
    }

    /// The cases rust_decimal writes apart: a zero, an equal divisor, a larger one.
    #[test]
    fn written_as_rust_decimal_writes_them() {
        for (x, y) in [
            ("0.00", "5"),
            ("5", "5.00"),
            ("-5.0", "5"),
            ("4", "100.5000"),
            ("-64", "0.0001"),
        ] {
            assert_eq!(
                rem(d(x), d(y)).map(|r| r.to_string()),
                d(x).checked_rem(d(y)).map(|r| r.to_string()),
                "{x} % {y}"
            );
        }
    }

    proptest! {
        /// Against the definition, where rust_decimal computes it exactly: for operands
        /// small enough that `x - y * trunc(x / y)` is exact in i128 arithmetic.
        #[test]
        fn small_operands_match_the_definition(
            a in -(1i64 << 50)..(1i64 << 50),
            b in -(1i64 << 30)..(1i64 << 30),
            sa in 0u32..8,
            sb in 0u32..8,
        ) {
            prop_assume!(b != 0);
            let (x, y) = (Decimal::new(a, sa), Decimal::new(b, sb));
            let s = sa.max(sb);
            let ia = i128::from(a) * 10i128.pow(s - sa);
            let ib = i128::from(b) * 10i128.pow(s - sb);
            let want = Decimal::from_i128_with_scale(ia % ib, s);
            prop_assert_eq!(rem(x, y), Some(want));
            // Written as rust_decimal writes it, where it is right.
            prop_assert_eq!(rem(x, y).map(|r| r.to_string()), x.checked_rem(y).map(|r| r.to_string()));
        }

        /// Any operands: the remainder is at most the divisor (below it but for a rounding
        /// of its last digit) and has the dividend's sign.
        #[test]
        fn any_operands_leave_at_most_the_divisor(
            a in any::<i128>(), b in any::<i128>(), sa in 0u32..=28, sb in 0u32..=28,
        ) {
            let (a, b) = (a % (1i128 << 96), b % (1i128 << 96));
            prop_assume!(b != 0);
            let (x, y) = (Decimal::from_i128_with_scale(a, sa), Decimal::from_i128_with_scale(b, sb));
            let r = rem(x, y).unwrap();
            prop_assert!(r.abs() < y.abs() || r.abs() == y.abs() && r.scale() < sa.max(sb), "{x} % {y} = {r}");
            prop_assert!(r.is_zero() || r.is_sign_negative() == x.is_sign_negative(), "{x} % {y} = {r}");
        }
    }
}
