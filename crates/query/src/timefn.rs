//! The time functions and the arithmetic of timestamps and durations, on evaluation values
//! ([`Val::Time`], [`Val::Dur`]); the calendar work itself is in `time.rs`.
//!
//! - `datetime(x [, unit])`: a timestamp from text ([`time::parse_text`]) or from a number of
//!   seconds (`'ms'`, `'us'`, `'ns'` for other units), exactly: a fraction finer than a
//!   nanosecond is dropped towards the past. Anything else is null.
//! - `time(ts, DURATION)`, `strftime(ts, format)` read `ts` as `datetime` reads it.
//! - Arithmetic: timestamp ± duration, duration + timestamp, timestamp − timestamp,
//!   duration ± duration, duration × number, number × duration, duration ÷ number. A result
//!   outside the range of instants (years -9999 to 9999) or of durations is null; a
//!   duration times or over a number is rounded to the nanosecond, half away from zero.

use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};

use crate::func::{self, Func};
use crate::parse::BinOp;
use crate::time::{self, MAX_DURATION, SECOND, TimeFn, Zone};
use crate::value::{Num, Val};

/// Nanoseconds per unit name of `datetime(n, unit)`.
fn epoch_unit(unit: &str) -> Option<i128> {
    match unit {
        "s" => Some(SECOND),
        "ms" => Some(1_000_000),
        "us" => Some(1_000),
        "ns" => Some(1),
        _ => None,
    }
}

/// `n` units since the epoch as an instant: exact, a fraction of a nanosecond dropped
/// towards the past.
/// A number held as a float (more digits than a decimal holds) counts as its shortest
/// spelling where a decimal holds that (`1795255200.1234567`), else by its binary value.
fn from_epoch(n: Num, unit: i128) -> Option<i128> {
    let ns = match (n, n.as_decimal()) {
        (_, Some(d)) => d
            .checked_mul(Decimal::from_i128_with_scale(unit, 0))?
            .floor()
            .to_i128()?,
        (Num::Float(f), None) => whole((f * unit as f64).floor())?,
        (Num::Dec(_), None) => return None,
    };
    time::in_range(ns).then_some(ns)
}

/// A float that is a whole number within `i128`'s range, as one.
fn whole(f: f64) -> Option<i128> {
    // 2^126: past any instant or duration, well within i128.
    (f.is_finite() && f.abs() < 8.5e37).then_some(f as i128)
}

/// `datetime(v)`: the instant `v` stands for, if any.
pub(crate) fn instant(v: &Val<'_>) -> Option<i128> {
    match v {
        Val::Time(t) => Some(*t),
        Val::Str(s, _) => time::parse_text(s),
        Val::Num(n, _) => from_epoch(*n, SECOND),
        _ => None,
    }
}

/// A time function of its evaluated arguments, in `zone`.
pub(crate) fn call<'x>(f: TimeFn, a: Val<'x>, b: Option<Val<'x>>, zone: &Zone) -> Val<'x> {
    let time = |t: Option<i128>| t.map_or(Val::Null, Val::Time);
    match f {
        TimeFn::DateTime => match (&a, &b) {
            (_, None) => time(instant(&a)),
            (Val::Num(n, _), Some(Val::Str(unit, _))) => {
                time(epoch_unit(unit).and_then(|u| from_epoch(*n, u)))
            }
            _ => Val::Null,
        },
        TimeFn::Bucket => match (instant(&a), &b) {
            (Some(t), Some(Val::Dur(every))) => time(time::bucket(t, *every, zone)),
            _ => Val::Null,
        },
        TimeFn::Strftime => match (instant(&a), &b) {
            (Some(t), Some(Val::Str(fmt, _))) => {
                time::strftime(t, fmt, zone).map_or(Val::Null, Val::string)
            }
            _ => Val::Null,
        },
        TimeFn::ToString => match a {
            Val::Time(t) => Val::string(time::format(t, zone)),
            a => func::call(Func::ToString, a, None),
        },
        // Compiled to a constant; never called.
        TimeFn::Now => Val::Null,
    }
}

/// A duration `ns` when in range.
fn dur<'x>(ns: Option<i128>) -> Val<'x> {
    match ns {
        Some(ns) if ns.abs() <= MAX_DURATION => Val::Dur(ns),
        _ => Val::Null,
    }
}

/// A timestamp `ns` when in range.
fn instant_val<'x>(ns: Option<i128>) -> Val<'x> {
    match ns {
        Some(ns) if time::in_range(ns) => Val::Time(ns),
        _ => Val::Null,
    }
}

/// `d * k` (or `d / k`), rounded to the nanosecond.
fn scale(d: i128, k: Num, divide: bool) -> Option<i128> {
    let k = match (k, k.as_decimal()) {
        (_, Some(k)) => k,
        // A float no decimal holds (`1e-30`, `1e40`): by the float's arithmetic.
        (Num::Float(f), None) => {
            let r = if divide { d as f64 / f } else { d as f64 * f };
            return whole(r.round());
        }
        (Num::Dec(_), None) => return None,
    };
    let d = Decimal::try_from_i128_with_scale(d, 0).ok()?;
    let r = if divide {
        d.checked_div(k)?
    } else {
        d.checked_mul(k)?
    };
    r.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero)
        .to_i128()
}

/// Arithmetic with a timestamp or a duration on either side (the caller handled two
/// numbers); null for any other pair.
pub(crate) fn arith<'x>(op: BinOp, l: &Val<'_>, r: &Val<'_>) -> Val<'x> {
    match (op, l, r) {
        (BinOp::Add, Val::Time(t), Val::Dur(d)) | (BinOp::Add, Val::Dur(d), Val::Time(t)) => {
            instant_val(t.checked_add(*d))
        }
        (BinOp::Sub, Val::Time(t), Val::Dur(d)) => instant_val(t.checked_sub(*d)),
        (BinOp::Sub, Val::Time(a), Val::Time(b)) => dur(a.checked_sub(*b)),
        (BinOp::Add, Val::Dur(a), Val::Dur(b)) => dur(a.checked_add(*b)),
        (BinOp::Sub, Val::Dur(a), Val::Dur(b)) => dur(a.checked_sub(*b)),
        (BinOp::Mul, Val::Dur(d), Val::Num(k, _)) | (BinOp::Mul, Val::Num(k, _), Val::Dur(d)) => {
            dur(scale(*d, *k, false))
        }
        (BinOp::Div, Val::Dur(d), Val::Num(k, _)) => dur(scale(*d, *k, true)),
        _ => Val::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_numbers_are_exact() {
        let n = |s: &str| Num::Dec(s.parse().unwrap());
        assert_eq!(from_epoch(n("1.5"), SECOND), Some(1_500_000_000));
        assert_eq!(from_epoch(n("-0.0000000001"), SECOND), Some(-1));
        assert_eq!(
            from_epoch(n("1700000000123"), 1_000_000),
            Some(1_700_000_000_123_000_000)
        );
        assert_eq!(from_epoch(n("1000000000000000000000000000"), SECOND), None);
        assert_eq!(from_epoch(Num::Float(1e300), SECOND), None);
    }

    #[test]
    fn duration_scaling_rounds_to_the_nanosecond() {
        let k = |s: &str| Num::Dec(s.parse().unwrap());
        assert_eq!(scale(SECOND, k("1.5"), false), Some(1_500_000_000));
        assert_eq!(scale(SECOND, k("3"), true), Some(333_333_333));
        assert_eq!(scale(2, k("3"), true), Some(1));
        assert_eq!(scale(SECOND, k("0"), true), None);
    }
}
