//! JSON numbers: the grammar check used while scanning, and the conversions asked for later.
//!
//! [`parse_decimal`], the one general decimal parser of ndq (the scanner's
//! [`Number::to_decimal`](crate::Number::to_decimal) and the query engine both read numbers
//! with it), reads a plain number ([`decimal_parts`]) as one `i64` mantissa and its scale;
//! any other it builds straight from the digits (no `str` parsing, no floats):
//!
//! ```text
//! digits of the integer and fraction parts, leading zeros dropped:
//!     sig   = the digits up to the last non-zero one (at most 29 of them, else None)
//!     zeros = the zeros after it, frac = how many digits follow the point, exp = the exponent
//! value = sig * 10^(zeros + exp - frac)
//! scale = clamp(frac - exp, 0, 28)       (1.50 keeps scale 2, like Decimal::from_str)
//! mantissa = value * 10^scale = sig * 10^(zeros + exp - frac + scale)
//!     a negative power means the value needs a scale above 28: None
//!     a mantissa of 2^96 or more does not fit: try the next smaller scale, down to the
//!     value's significant decimals (frac - exp - zeros): `1e21` written with ten zero
//!     decimals still fits, with seven; nothing fits: None
//! ```
//!
//! So every answer is exact: [`NotDecimal::Inexact`] means "a Decimal cannot hold this
//! value", never "rounded".

use rust_decimal::Decimal;

/// Whether `t` is exactly one JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
/// On failure, the offset in `t` of the first byte that does not fit.
#[cfg(test)]
pub(crate) fn validate(t: &[u8]) -> Result<(), usize> {
    match end(t, 0)? {
        i if i == t.len() => Ok(()),
        i => Err(i),
    }
}

/// The longest JSON number grammar match starting at `bytes[at]`: its end, or the position of
/// the first byte that cannot continue it where the grammar needs one more byte (a digit
/// after `-`, `.` or the exponent). One pass, and the caller checks what follows the end.
#[inline]
pub(crate) fn end(bytes: &[u8], at: usize) -> Result<usize, usize> {
    let digits = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = at + usize::from(bytes.get(at) == Some(&b'-'));
    match bytes.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i + 1),
        _ => return Err(i),
    }
    if bytes.get(i) == Some(&b'.') {
        let s = i + 1;
        i = digits(s);
        if i == s {
            return Err(i);
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let s = i;
        i = digits(s);
        if i == s {
            return Err(i);
        }
    }
    Ok(i)
}

/// Powers of ten that fit in a u128 (10^0 ..= 10^38).
const POW10: [u128; 39] = {
    let mut t = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// The mantissa and scale of a plain decimal, `-?[0-9]+(\.[0-9]+)?` with at most 18
/// characters after the sign (`-12.50` is `(-1250, 2)`): at most 18 digits, so the mantissa
/// fits an `i64`, and the scale is at most 16. `None` for any other text, which may still be
/// a number (`1e3`, a longer one), which `to_decimal` reads by its general path.
///
/// Log numbers (`Elapsed`, `StatusCode`, a price) are almost always of this form, so this is
/// the fast path of [`Number::to_decimal`](crate::Number::to_decimal), and ndq's engine reads
/// and compares such numbers through it without building a `Decimal`. Leading zeros are
/// taken (`007` is 7): the scanner never hands over such a number, and a caller reading other
/// text gets the value `Decimal`'s own parser gives.
#[inline]
pub fn decimal_parts(text: &[u8]) -> Option<(i64, u32)> {
    let (neg, b) = match text {
        [b'-', rest @ ..] => (true, rest),
        all => (false, all),
    };
    if b.len() > 18 {
        return None;
    }
    // The integer digits, then (after a '.') the fraction's, into one mantissa.
    let mut m = 0i64;
    let digits = |from: usize, m: &mut i64| {
        let mut i = from;
        while let Some(d) = b.get(i).map(|c| c.wrapping_sub(b'0')).filter(|&d| d <= 9) {
            *m = *m * 10 + i64::from(d);
            i += 1;
        }
        i
    };
    let int_end = digits(0, &mut m);
    if int_end == 0 {
        return None;
    }
    let scale = match b.get(int_end) {
        None => 0,
        Some(b'.') => {
            let end = digits(int_end + 1, &mut m);
            if end != b.len() || end == int_end + 1 {
                return None;
            }
            end - int_end - 1
        }
        Some(_) => return None,
    };
    // Cast: scale < 18.
    Some((if neg { -m } else { m }, scale as u32))
}

/// Why [`parse_decimal`] gave no Decimal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotDecimal {
    /// The text is not a number in [`parse_decimal`]'s grammar.
    Syntax,
    /// A number, but no Decimal holds its value exactly (more than 29 significant digits, a
    /// value needing more than 28 decimals, or beyond ±(2^96 - 1)): read it as a float.
    Inexact,
}

/// The exact Decimal of number text: the one general decimal parser of ndq.
///
/// The grammar is JSON's with three leniencies for text typed by people (`tonumber`, query
/// literals): a leading `+`, leading zeros, and no integer digits (`.5`):
/// `[+-]?[0-9]*(\.[0-9]+)?([eE][+-]?[0-9]+)?` with at least one digit before the exponent.
/// The scanner only hands valid JSON numbers here, for which the leniencies never matter.
///
/// A plain decimal is read by [`decimal_parts`]; any other number is built straight from its
/// digits (see the module docs), never through a float, so every answer is exact:
/// [`NotDecimal::Inexact`] means "a Decimal cannot hold this value", never "rounded". The
/// scale is the digits after the point minus the exponent (`1.50` has scale 2, `15e-1` scale
/// 1), clamped to 0..=28; when that scale's mantissa does not fit, trailing zeros give way
/// (`1.000…0` with 30 zeros is 1 with scale 28).
///
/// ```
/// use ndq_scan::{Decimal, NotDecimal, parse_decimal};
///
/// assert_eq!(parse_decimal(b"-12.50"), Ok(Decimal::new(-1250, 2)));
/// assert_eq!(parse_decimal(b"1.5e2"), Ok(Decimal::new(150, 0)));
/// assert_eq!(parse_decimal(b"+.5"), Ok(Decimal::new(5, 1)));
/// assert_eq!(parse_decimal(b"1e400"), Err(NotDecimal::Inexact));
/// assert_eq!(parse_decimal(b"1."), Err(NotDecimal::Syntax));
/// ```
pub fn parse_decimal(text: &[u8]) -> Result<Decimal, NotDecimal> {
    if let Some((m, scale)) = decimal_parts(text) {
        // The scale is at most 16, so this never fails.
        return Decimal::try_new(m, scale).map_err(|_| NotDecimal::Inexact);
    }
    general(text)
}

/// The decimal a float stands for when its shortest spelling is one a decimal holds exactly
/// (`0.1` is 0.1; `1e-400`, read as 0.0, is 0); `None` for a float no decimal holds (`1e40`,
/// an infinity). How a number no decimal holds as written is compared, grouped and counted.
pub fn float_as_decimal(f: f64) -> Option<Decimal> {
    if !f.is_finite() {
        return None;
    }
    Decimal::from_str_exact(&f.to_string()).ok()
}

/// The exact Decimal of a valid JSON number, or `None` (see the module docs).
pub(crate) fn to_decimal(b: &[u8]) -> Option<Decimal> {
    parse_decimal(b).ok()
}

/// [`general`] as an option, for the tests that hold it to the fast path.
#[cfg(test)]
pub(crate) fn general_decimal(b: &[u8]) -> Option<Decimal> {
    general(b).ok()
}

/// [`parse_decimal`] of any number, without the fast path: exponents, and up to 29
/// significant digits.
fn general(b: &[u8]) -> Result<Decimal, NotDecimal> {
    let (neg, rest) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, b),
    };
    let mut sig: u128 = 0;
    let mut digits: usize = 0;
    let mut zeros: usize = 0;
    let mut frac: i64 = 0;
    let mut in_frac = false;
    // More than 29 significant digits: the grammar is still checked to the end.
    let mut too_long = false;
    let mut any_digit = false;
    let mut i = 0;
    while let Some(&c) = rest.get(i) {
        match c {
            b'0' => {
                if sig != 0 {
                    zeros += 1;
                }
                frac += i64::from(in_frac);
                any_digit = true;
            }
            b'1'..=b'9' => {
                digits += zeros + 1;
                if digits > 29 {
                    too_long = true;
                } else {
                    sig = sig * POW10[zeros + 1] + u128::from(c - b'0');
                }
                zeros = 0;
                frac += i64::from(in_frac);
                any_digit = true;
            }
            b'.' if !in_frac => in_frac = true,
            b'e' | b'E' => break,
            _ => return Err(NotDecimal::Syntax),
        }
        i += 1;
    }
    // At least one digit, and at least one after a point.
    if !any_digit || (in_frac && frac == 0) {
        return Err(NotDecimal::Syntax);
    }
    let mut exp: i64 = 0;
    if i < rest.len() {
        i += 1;
        let exp_neg = match rest.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let exp_digits = rest.get(i..).unwrap_or_default();
        if exp_digits.is_empty() {
            return Err(NotDecimal::Syntax);
        }
        for &c in exp_digits {
            if !c.is_ascii_digit() {
                return Err(NotDecimal::Syntax);
            }
            // Saturate: beyond this the answer is Inexact (or zero) anyway.
            exp = (exp * 10 + i64::from(c - b'0')).min(1 << 40);
        }
        if exp_neg {
            exp = -exp;
        }
    }
    if too_long {
        return Err(NotDecimal::Inexact);
    }
    let scale = (frac - exp).clamp(0, 28);
    if sig == 0 {
        return Decimal::try_from_i128_with_scale(0, scale as u32).map_err(|_| NotDecimal::Inexact);
    }
    // The fewest decimals that hold the value (its significant fraction digits): when the
    // written scale's mantissa does not fit, trailing zeros give way, down to these.
    let least = (frac - exp - zeros as i64).max(0);
    (least..=scale.max(least))
        .rev()
        .find_map(|s| {
            let shift = usize::try_from(zeros as i64 + exp - frac + s).ok()?;
            let mantissa = sig.checked_mul(*POW10.get(shift)?)?;
            if mantissa >> 96 != 0 {
                return None;
            }
            let mantissa = i128::try_from(mantissa).ok()?;
            let signed = if neg { -mantissa } else { mantissa };
            Decimal::try_from_i128_with_scale(signed, u32::try_from(s).ok()?).ok()
        })
        .ok_or(NotDecimal::Inexact)
}

/// The nearest f64 (infinite beyond range); NaN only for text that is not a number at all.
pub(crate) fn to_f64(raw: &str) -> f64 {
    raw.parse().unwrap_or(f64::NAN)
}
