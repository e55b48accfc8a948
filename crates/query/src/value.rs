//! Values while evaluating ([`Val`]), output values ([`Value`]), numbers ([`Num`]), and the
//! orders and equalities of the language reference.
//!
//! - A number is an exact [`Decimal`] when one can hold it, else an `f64` (`1e400`, 40 digits).
//! - A value read from the input keeps its raw JSON text (`raw`), so `1.50` prints as `1.50`
//!   and a string keeps its escapes for JSON output; computed values have no raw text.
//! - Equality is numeric across scales (`1.5` = `1.50`): [`encode_key`] writes one canonical
//!   byte string per equivalence class, used for `group by` and `count_distinct`.
//! - Two orders: [`compare`] is SQL's (`None` = null for null operands or mixed types), and
//!   [`total_cmp`] sorts anything (numbers < strings < timestamps < durations < booleans <
//!   arrays < objects < null).

use std::borrow::Cow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt::Write as _;

use ndq_scan::{NotDecimal, decimal_parts};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use crate::time::{self, Zone};

/// One output value. Values taken from the input keep their exact JSON text.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// null (also an absent property).
    Null,
    /// A boolean.
    Bool(bool),
    /// A number from the input, as written (`1.50`).
    RawNumber(Cow<'a, str>),
    /// A computed number (written exactly, no exponent).
    Number(Decimal),
    /// A computed number outside Decimal's range.
    Float(f64),
    /// A string from the input: the raw text between the quotes, escapes kept.
    RawString(Cow<'a, str>),
    /// A computed (unescaped) string.
    String(Cow<'a, str>),
    /// An array or object from the input, as its exact JSON text.
    RawJson(Cow<'a, str>),
}

impl Value<'_> {
    /// The same value owning its text.
    pub fn into_owned(self) -> Value<'static> {
        let own = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::RawNumber(n) => Value::RawNumber(own(n)),
            Value::Number(d) => Value::Number(d),
            Value::Float(f) => Value::Float(f),
            Value::RawString(s) => Value::RawString(own(s)),
            Value::String(s) => Value::String(own(s)),
            Value::RawJson(j) => Value::RawJson(own(j)),
        }
    }
}

/// A number: exact when possible.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Num {
    Dec(Decimal),
    Float(f64),
}

impl Num {
    pub fn to_f64(self) -> f64 {
        match self {
            Num::Dec(d) => dec_to_f64(d),
            Num::Float(f) => f,
        }
    }

    /// The number as a Decimal: itself, or a float whose shortest spelling a Decimal holds
    /// exactly (`1e-400` is 0, `1.5000000000000000000000000000001` is 1.5: those compare
    /// equal to the Decimal, so they must group and count as it). `None` for other floats.
    pub fn as_decimal(self) -> Option<Decimal> {
        match self {
            Num::Dec(d) => Some(d),
            Num::Float(f) => ndq_scan::float_as_decimal(f),
        }
    }

    /// Numeric order (a NaN, which JSON cannot produce, sorts as equal).
    pub fn cmp(self, other: Num) -> Ordering {
        match (self, other) {
            (Num::Dec(a), Num::Dec(b)) => a.cmp(&b),
            (Num::Dec(d), Num::Float(f)) => dec_float(d, f),
            (Num::Float(f), Num::Dec(d)) => dec_float(d, f).reverse(),
            (a, b) => a
                .to_f64()
                .partial_cmp(&b.to_f64())
                .unwrap_or(Ordering::Equal),
        }
    }

    /// The output value of a computed number.
    pub fn output(self) -> Value<'static> {
        match self {
            Num::Dec(d) => Value::Number(d),
            Num::Float(f) => Value::Float(f),
        }
    }

    /// Canonical text: a Decimal as rust_decimal writes it (scale kept, no exponent).
    pub fn text(self) -> String {
        match self {
            Num::Dec(d) => d.to_string(),
            Num::Float(f) => f.to_string(),
        }
    }

    /// A Decimal result, or the f64 result when the exact one overflowed; `None` for NaN.
    pub fn from_parts(dec: Option<Decimal>, float: impl FnOnce() -> f64) -> Option<Num> {
        match dec {
            Some(d) => Some(Num::Dec(positive_zero(d))),
            None => {
                let f = float();
                (!f.is_nan()).then_some(Num::Float(f))
            }
        }
    }
}

/// A decimal against a float, as grouping tells numbers apart: a float at or past 2^96 is past
/// every decimal (the largest decimals convert to 2^96 itself as floats, and would compare
/// equal to it), a float a decimal holds counts as that decimal, and anything else is compared
/// in floating point.
fn dec_float(d: Decimal, f: f64) -> Ordering {
    const PAST_ANY_DECIMAL: f64 = 79_228_162_514_264_337_593_543_950_336.0;
    if f >= PAST_ANY_DECIMAL {
        return Ordering::Less;
    }
    if f <= -PAST_ANY_DECIMAL {
        return Ordering::Greater;
    }
    match Num::Float(f).as_decimal() {
        Some(e) => d.cmp(&e),
        None => dec_to_f64(d).partial_cmp(&f).unwrap_or(Ordering::Equal),
    }
}

/// `d` as the nearest f64. rust_decimal's own conversion can be an ulp off (`0.123` became
/// `0.12300000000000001`, and a sum with a float in it carried that noise): through the
/// decimal's text instead, which Rust reads correctly rounded. Only where a decimal meets a
/// float, never on the path of decimals alone.
pub(crate) fn dec_to_f64(d: Decimal) -> f64 {
    d.to_string().parse().unwrap_or(f64::NAN)
}

/// `-0` (which rust_decimal can produce, e.g. `-1 * 0`) as `0`, so it prints as `0`.
pub(crate) fn positive_zero(d: Decimal) -> Decimal {
    if d.is_zero() && d.is_sign_negative() {
        let mut d = d;
        d.set_sign_positive(true);
        d
    } else {
        d
    }
}

/// Parse a JSON-style number (`-?digits[.digits][(e|E)[+-]digits]`, also a leading `+` or
/// `.5` for `tonumber`). Exact as a Decimal when the value fits 96 bits with a scale of at
/// most 28 (trailing zeros give way when the written scale does not fit); else the nearest
/// f64. `None` when `s` is not a number. The grammar and the Decimal are
/// [`ndq_scan::parse_decimal`]'s, so the engine reads a number as the scanner does.
pub(crate) fn parse_number(s: &str) -> Option<Num> {
    parse_simple(s).or_else(|| parse_general(s))
}

/// The common case on the hot path: a plain decimal, read by the scanner's
/// [`decimal_parts`]. `None` for anything else (the general parser decides).
fn parse_simple(s: &str) -> Option<Num> {
    decimal_parts(s.as_bytes()).map(|(m, scale)| Num::Dec(Decimal::new(m, scale)))
}

/// 10^0 ..= 10^18: the powers of ten an i64 holds.
static POW10: [i64; 19] = {
    let mut t = [1i64; 19];
    let mut i = 1;
    while i < 19 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// Compare a number, as the mantissa and scale [`decimal_parts`] gives, with `k`, as integers
/// at the larger scale, without building a Decimal; `None` when that does not fit an i128
/// (the caller then compares Decimals).
#[inline]
pub(crate) fn cmp_parts((m, scale): (i64, u32), k: &Decimal) -> Option<Ordering> {
    let (km, ks) = (k.mantissa(), k.scale());
    let at = scale.max(ks);
    // The usual case (a constant such as 200 or 0.5): every factor fits an i64, and the
    // product of two i64 always fits an i128, so one widening multiply each side.
    if let (Ok(km), Some(&up_m), Some(&up_k)) = (
        i64::try_from(km),
        POW10.get((at - scale) as usize),
        POW10.get((at - ks) as usize),
    ) {
        let a = i128::from(m) * i128::from(up_m);
        return Some(a.cmp(&(i128::from(km) * i128::from(up_k))));
    }
    let a = i128::from(m).checked_mul(10i128.checked_pow(at - scale)?)?;
    let b = km.checked_mul(10i128.checked_pow(at - ks)?)?;
    Some(a.cmp(&b))
}

/// Any other number: the scanner's general parser ([`ndq_scan::parse_decimal`]) for the exact
/// Decimal, else (a number no Decimal holds) the nearest f64.
fn parse_general(s: &str) -> Option<Num> {
    match ndq_scan::parse_decimal(s.as_bytes()) {
        Ok(d) => Some(Num::Dec(d)),
        // A number in the same grammar, which Rust's float parser takes as well.
        Err(NotDecimal::Inexact) => Some(Num::Float(s.parse::<f64>().unwrap_or(f64::NAN))),
        Err(NotDecimal::Syntax) => None,
    }
}

/// A value during evaluation. `'x` is the shorter of the plan's and the document's lifetimes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val<'x> {
    Null,
    Bool(bool),
    /// A number and, when read from the input, its text.
    Num(Num, Option<Cow<'x, str>>),
    /// A string's value and, when read from the lazy input, its raw text (escapes kept).
    Str(Cow<'x, str>, Option<Cow<'x, str>>),
    /// An array (`true`) or object (`false`) as its exact JSON text.
    Json(bool, Cow<'x, str>),
    /// A timestamp: nanoseconds since the Unix epoch (`time.rs`).
    Time(i128),
    /// A duration in nanoseconds (`time.rs`).
    Dur(i128),
}

fn own(c: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(c.into_owned())
}

fn reborrow(c: &str) -> Cow<'_, str> {
    Cow::Borrowed(c)
}

impl<'x> Val<'x> {
    pub fn into_owned(self) -> Val<'static> {
        match self {
            Val::Null => Val::Null,
            Val::Bool(b) => Val::Bool(b),
            Val::Num(n, raw) => Val::Num(n, raw.map(own)),
            Val::Str(s, raw) => Val::Str(own(s), raw.map(own)),
            Val::Json(a, raw) => Val::Json(a, own(raw)),
            Val::Time(t) => Val::Time(t),
            Val::Dur(d) => Val::Dur(d),
        }
    }

    /// The same value borrowing from `self`.
    pub fn borrowed(&self) -> Val<'_> {
        match self {
            Val::Null => Val::Null,
            Val::Bool(b) => Val::Bool(*b),
            Val::Num(n, raw) => Val::Num(*n, raw.as_deref().map(reborrow)),
            Val::Str(s, raw) => Val::Str(reborrow(s), raw.as_deref().map(reborrow)),
            Val::Json(a, raw) => Val::Json(*a, reborrow(raw)),
            Val::Time(t) => Val::Time(*t),
            Val::Dur(d) => Val::Dur(*d),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Val::Null)
    }

    pub fn num(&self) -> Option<Num> {
        match self {
            Val::Num(n, _) => Some(*n),
            _ => None,
        }
    }

    pub fn str(&self) -> Option<&str> {
        match self {
            Val::Str(s, _) => Some(s),
            _ => None,
        }
    }

    /// A computed number, or `null` for an infinite one: JSON has no infinity, and a result
    /// that would be written `null` must also be `null` to `is null`, `coalesce`, `count`
    /// and `||`. (A number read from the input keeps its text, so `1e400` in a line stays
    /// a number; so does the literal, which [`Val::Num`] builds directly.)
    pub fn number(n: Num) -> Val<'x> {
        match n {
            Num::Float(f) if !f.is_finite() => Val::Null,
            // A float's `-0` (`1e-400 * -1`) is `0`, as a decimal's is.
            Num::Float(0.0) => Val::Num(Num::Float(0.0), None),
            n => Val::Num(n, None),
        }
    }

    /// A computed string.
    pub fn string(s: impl Into<Cow<'x, str>>) -> Val<'x> {
        Val::Str(s.into(), None)
    }

    /// The output value; its text is owned when it cannot outlive `'x`. A timestamp is
    /// written in RFC 3339 in `zone` (the plan's, `--tz`) as a string, a duration as its
    /// exact number of seconds.
    pub fn into_output_in<'o>(self, zone: &Zone) -> Value<'o> {
        match self {
            Val::Time(t) => Value::String(Cow::Owned(time::format(t, zone))),
            Val::Dur(d) => Value::Number(dur_seconds(d)),
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(b),
            Val::Num(_, Some(raw)) => Value::RawNumber(own(raw)),
            Val::Num(n, None) => n.output(),
            Val::Str(_, Some(raw)) => Value::RawString(own(raw)),
            Val::Str(s, None) => Value::String(own(s)),
            Val::Json(_, raw) => Value::RawJson(own(raw)),
        }
    }

    /// `tostring`: the text of a scalar (a number as written in the input, else exact), the
    /// JSON text of an array or object; `None` for null.
    pub fn to_text(&self) -> Option<Cow<'_, str>> {
        Some(match self {
            Val::Null => return None,
            Val::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
            Val::Num(_, Some(raw)) => Cow::Borrowed(raw.as_ref()),
            Val::Num(n, None) => Cow::Owned(n.text()),
            Val::Str(s, _) => Cow::Borrowed(s.as_ref()),
            Val::Json(_, raw) => Cow::Borrowed(raw.as_ref()),
            Val::Time(t) => Cow::Owned(time::format(*t, &Zone::utc())),
            Val::Dur(d) => Cow::Owned(dur_seconds(*d).to_string()),
        })
    }

    fn rank(&self) -> u8 {
        match self {
            Val::Num(..) => 0,
            Val::Str(..) => 1,
            Val::Time(_) => 2,
            Val::Dur(_) => 3,
            Val::Bool(_) => 4,
            Val::Json(true, _) => 5,
            Val::Json(false, _) => 6,
            Val::Null => 7,
        }
    }
}

/// SQL comparison: `None` (null) when either side is null, the types differ, or either is an
/// array or object (which [`equal`] tells apart). A timestamp and a string compare as
/// instants, the string read as `datetime` reads it (null when it is not a time).
pub(crate) fn compare(a: &Val<'_>, b: &Val<'_>) -> Option<Ordering> {
    match (a, b) {
        (Val::Time(x), Val::Time(y)) | (Val::Dur(x), Val::Dur(y)) => Some(x.cmp(y)),
        (Val::Time(x), Val::Str(s, _)) => Some(x.cmp(&time::parse_text(s)?)),
        (Val::Str(s, _), Val::Time(y)) => Some(time::parse_text(s)?.cmp(y)),
        (Val::Num(x, _), Val::Num(y, _)) => Some(x.cmp(*y)),
        (Val::Str(x, _), Val::Str(y, _)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Val::Bool(x), Val::Bool(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// `a = b`, as `=`, `<>`, `in`, `case X when` and array membership ask it: [`compare`]'s
/// answer, except that two arrays (or two objects) are equal when they hold equal values
/// (their [`canonical_json`] texts are the same: `[1]` equals `[1.0]`) and unequal otherwise,
/// where `compare`, which has no order for them, says `null`.
pub(crate) fn equal(a: &Val<'_>, b: &Val<'_>) -> Option<bool> {
    match (a, b) {
        (Val::Json(x, s), Val::Json(y, t)) if x == y => {
            Some(s == t || canonical_json(s) == canonical_json(t))
        }
        _ => compare(a, b).map(Ordering::is_eq),
    }
}

/// The sort order of `order by` and of groups: numbers < strings < timestamps < durations <
/// booleans < arrays < objects < null; numbers numerically, strings by code point, arrays
/// and objects by text.
pub(crate) fn total_cmp(a: &Val<'_>, b: &Val<'_>) -> Ordering {
    match (a, b) {
        (Val::Json(x, s), Val::Json(y, t)) if x == y => canonical_json(s).cmp(&canonical_json(t)),
        // Timestamps sort after every string, whatever the string says.
        (Val::Time(_), Val::Str(..)) | (Val::Str(..), Val::Time(_)) => a.rank().cmp(&b.rank()),
        _ => compare(a, b).unwrap_or_else(|| a.rank().cmp(&b.rank())),
    }
}

/// A coarse key of `v` for sorting by [`total_cmp`]: whenever `coarse_key(a) <
/// coarse_key(b)`, `total_cmp(a, b)` is `Less`; equal coarse keys say nothing. A sort can
/// order most pairs by these two words kept beside each other, and look at the values only
/// for ties. Strings give their first 16 bytes (code point order is UTF-8's byte order), a
/// Decimal its floor, other values their type's place. `None` for a float: a float and a
/// Decimal compare as floats, which no key of the Decimal alone can follow.
pub(crate) fn coarse_key(v: &Val<'_>) -> Option<(u8, u128)> {
    Some(match v {
        Val::Str(s, _) => (v.rank(), text_word(s, 0)),
        Val::Num(Num::Dec(d), _) => {
            // Saturating: beyond i64 every Decimal ties with its neighbours.
            let floor = d.floor().to_i64().unwrap_or(if d.is_sign_negative() {
                i64::MIN
            } else {
                i64::MAX
            });
            (v.rank(), u128::from((floor as u64) ^ (1 << 63)))
        }
        Val::Num(Num::Float(_), _) => return None,
        _ => (v.rank(), 0),
    })
}

/// Bytes `at..at + 16` of `s`, big-endian, zeros past its end: two strings equal before `at`
/// sort as these words do when the words differ (see [`coarse_key`]).
pub(crate) fn text_word(s: &str, at: usize) -> u128 {
    let mut word = [0u8; 16];
    for (to, from) in word
        .iter_mut()
        .zip(s.as_bytes().get(at..).unwrap_or_default())
    {
        *to = *from;
    }
    u128::from_be_bytes(word)
}

/// Append a canonical encoding of `v` to `out`: equal (numerically equal) values encode the
/// same, different values differently, and a sequence of encodings is unambiguous.
pub(crate) fn encode_key(v: &Val<'_>, out: &mut Vec<u8>) {
    match v {
        Val::Null => out.push(0),
        Val::Bool(b) => out.extend_from_slice(&[1, u8::from(*b)]),
        Val::Num(n, _) => match n.as_decimal() {
            Some(d) => {
                out.push(2);
                out.extend_from_slice(&positive_zero(d.normalize()).serialize());
            }
            None => {
                out.push(3);
                out.extend_from_slice(&n.to_f64().to_bits().to_le_bytes());
            }
        },
        Val::Str(s, _) => {
            out.push(4);
            out.extend_from_slice(&(s.len() as u64).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        Val::Json(a, raw) => {
            let raw = canonical_json(raw);
            out.push(if *a { 5 } else { 6 });
            out.extend_from_slice(&(raw.len() as u64).to_le_bytes());
            out.extend_from_slice(raw.as_bytes());
        }
        Val::Time(t) => {
            out.push(7);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Val::Dur(d) => {
            out.push(8);
            out.extend_from_slice(&d.to_le_bytes());
        }
    }
}

/// A duration's exact number of seconds (`90.5`), trailing zeros dropped.
pub(crate) fn dur_seconds(ns: i128) -> Decimal {
    // |ns| <= time::MAX_DURATION, which a Decimal's mantissa holds.
    Decimal::try_from_i128_with_scale(ns, 9)
        .map(|d| positive_zero(d.normalize()))
        .unwrap_or_default()
}

/// An array's or object's JSON text in one canonical form, so that values equal by the rules
/// of the language are one group, one distinct value, and sort alike, whatever document
/// produced them: compact; strings unescaped and escaped again one way; numbers as their
/// value (`[1]`, `[1.0]` and `[1e0]` alike, as `1` and `1.0` are equal everywhere); in an
/// object, the first of duplicate keys (as lookups see it), keys sorted. Only grouping and
/// sorting by arrays or objects pay for this.
pub(crate) fn canonical_json(raw: &str) -> Cow<'_, str> {
    // One parser and line buffer per thread: this runs for every line grouped by an array
    // and every comparison of a sort by one, and a parser's buffers are worth keeping.
    thread_local! {
        static CANON: RefCell<(ndq_scan::Parser, Vec<u8>)> =
            RefCell::new((ndq_scan::Parser::new(ndq_scan::Scanner::detect()), Vec::new()));
    }
    CANON.with_borrow_mut(|(parser, line)| {
        // The value of a one-member object, so that arrays parse too.
        line.clear();
        line.extend_from_slice(b"{\"v\":");
        line.extend_from_slice(raw.as_bytes());
        line.push(b'}');
        match parser.parse(line).map(|doc| doc.root().get("v")) {
            Ok(Some(v)) => {
                let mut out = String::with_capacity(raw.len());
                write_canonical(v, &mut out);
                Cow::Owned(out)
            }
            _ => Cow::Borrowed(raw),
        }
    })
}

/// [`canonical_json`] of one value, appended to `out`.
fn write_canonical(v: ndq_scan::Value<'_>, out: &mut String) {
    use ndq_scan::Value as J;
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        J::Number(n) => match parse_number(n.raw()) {
            // Writing to a String cannot fail.
            Some(Num::Dec(d)) => {
                let _ = write!(out, "{}", positive_zero(d.normalize()));
            }
            // `{:?}` spells every f64 apart (and never like a Decimal: it has a `.` or `e`).
            Some(Num::Float(f)) => {
                let _ = write!(out, "{f:?}");
            }
            None => out.push_str(n.raw()),
        },
        J::String(s) => write_string(&s.unescaped(), out),
        J::Array(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(e, out);
            }
            out.push(']');
        }
        J::Object(o) => {
            let mut members: Vec<(Cow<'_, str>, ndq_scan::Value<'_>)> = Vec::new();
            for (k, v) in o.iter() {
                let k = k.unescaped();
                if !members.iter().any(|(seen, _)| *seen == k) {
                    members.push((k, v));
                }
            }
            members.sort_by(|a, b| a.0.cmp(&b.0));
            out.push('{');
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(&k, out);
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
    }
}

/// `s` as a JSON string literal (serde_json's escaping, which cannot fail for a `str`).
fn write_string(s: &str, out: &mut String) {
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

/// How ndq writes a computed number: exactly, without exponent, with the scale the
/// computation gave (`1.50 + 1.50` is `3.00`, `0.1 + 0.2` is `0.3`; `/` and `avg` drop
/// trailing zeros: `10 / 4` is `2.5`). This is `Decimal`'s `Display`; a negative zero prints
/// as `0`.
pub fn format_decimal(d: &Decimal) -> String {
    positive_zero(*d).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndq_scan::{decode_escape, unescape as unescape_json_str};
    use proptest::prelude::*;
    use std::str::FromStr;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        /// The integer comparison agrees with Decimal's on plain numbers and constants of
        /// every scale 0..=28, near the number and far from it.
        #[test]
        fn cmp_parts_agrees_with_decimal(
            text in "-?(0|[1-9][0-9]{0,8})(\\.[0-9]{1,8})?",
            km in any::<i64>(),
            ks in 0u32..=28,
            d in -2i64..=2,
        ) {
            let (m, scale) = decimal_parts(text.as_bytes()).unwrap();
            let x = Decimal::from_str_exact(&text).unwrap();
            prop_assert_eq!(Decimal::new(m, scale), x);
            let k = Decimal::new(km, ks);
            if let Some(o) = cmp_parts((m, scale), &k) {
                prop_assert_eq!(o, x.cmp(&k), "{} vs {}", text, k);
            } else {
                // Only when the scaled numbers leave i128.
                prop_assert!(ks > 19 || scale > 19);
            }
            let near = x + Decimal::new(d, ks);
            prop_assert_eq!(cmp_parts((m, scale), &near), Some(x.cmp(&near)), "{} vs {}", text, near);
            // Equal values at other scales.
            let same = Decimal::from_i128_with_scale(i128::from(m) * 100, scale + 2);
            prop_assert_eq!(cmp_parts((m, scale), &same), Some(Ordering::Equal));
        }
    }

    fn dec(s: &str) -> Num {
        Num::Dec(Decimal::from_str(s).unwrap())
    }

    #[test]
    fn numbers_exact_or_float() {
        assert_eq!(parse_number("200"), Some(dec("200")));
        assert_eq!(parse_number("-3"), Some(dec("-3")));
        assert_eq!(parse_number("1.50").unwrap().text(), "1.50");
        assert_eq!(parse_number("1e3"), Some(dec("1000")));
        assert_eq!(parse_number("1.5E-2"), Some(dec("0.015")));
        assert_eq!(parse_number("1e400"), Some(Num::Float(f64::INFINITY)));
        let forty = "1234567890123456789012345678901234567890";
        assert_eq!(
            parse_number(forty),
            Some(Num::Float(forty.parse().unwrap()))
        );
        assert_eq!(
            parse_number("79228162514264337593543950335")
                .unwrap()
                .text(),
            "79228162514264337593543950335"
        );
        assert!(matches!(
            parse_number("79228162514264337593543950336"),
            Some(Num::Float(_))
        ));
        assert_eq!(
            parse_number("1.0000000000000000000000000000000"),
            Some(dec("1"))
        );
        assert_eq!(parse_number("0e5"), Some(dec("0")));
        assert_eq!(parse_number("-0.0").unwrap().text(), "0.0");
        for bad in ["", "-", "x", "1.", "1e", "1e+", "1x", "--1", "."] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
        assert_eq!(parse_number(".5"), Some(dec("0.5")));
    }

    #[test]
    fn numbers_read_as_the_scanner_reads_them() {
        // Before the engine used the scanner's parser, a number written with more digits than a
        // Decimal holds fell to f64 even when its value fits with fewer trailing zeros.
        let big = parse_number("1000000000000000000000.0000000000").unwrap();
        assert_eq!(big, Num::Dec(Decimal::from(10u128.pow(21))));
        assert_eq!(big.text(), "1000000000000000000000.0000000");
        let hundred = parse_number("100.000000000000000000000000000000").unwrap();
        assert_eq!(hundred.text(), "100.00000000000000000000000000");
        for text in [
            "0", "-12.50", "1.5e2", "15E-1", "1e-28", "0.00", "1e28", "-0",
        ] {
            let scanned = ndq_scan::parse_decimal(text.as_bytes()).ok();
            assert_eq!(
                parse_number(text).and_then(Num::as_decimal),
                scanned,
                "{text}"
            );
        }
    }

    #[test]
    fn simple_and_general_parsers_agree() {
        for s in [
            "0",
            "-0",
            "7",
            "-12",
            "1.50",
            "-0.0",
            "123456789012345678",
            "1234567890123456.7",
            "-99999999999999999",
            "0.0000000000000001",
        ] {
            let simple = parse_simple(s).unwrap();
            let general = parse_general(s).unwrap();
            assert_eq!(simple, general, "{s}");
            assert_eq!(simple.text(), general.text(), "{s}");
        }
        for s in [
            "1.",
            ".5",
            "+1",
            "1e3",
            "1234567890123456789",
            "1..2",
            "-",
            "",
            "1-",
        ] {
            assert_eq!(parse_simple(s), None, "{s}");
        }
    }

    #[test]
    fn numerically_equal_values_encode_alike() {
        let key = |v: Val<'_>| {
            let mut out = Vec::new();
            encode_key(&v, &mut out);
            out
        };
        let n = |s| Val::number(parse_number(s).unwrap());
        assert_eq!(key(n("1.5")), key(n("1.50")));
        assert_eq!(key(n("0")), key(n("-0.00")));
        assert_ne!(key(n("1")), key(Val::string("1")));
        assert_ne!(key(Val::Null), key(Val::Bool(false)));
    }

    #[test]
    fn orders() {
        let n = |s| Val::number(parse_number(s).unwrap());
        assert_eq!(compare(&n("1"), &n("1.0")), Some(Ordering::Equal));
        assert_eq!(compare(&n("1"), &Val::string("1")), None);
        assert_eq!(compare(&Val::Null, &Val::Null), None);
        assert_eq!(total_cmp(&n("99"), &Val::string("a")), Ordering::Less);
        assert_eq!(total_cmp(&Val::Null, &Val::string("a")), Ordering::Greater);
        let input = |s| Val::Num(parse_number(s).unwrap(), Some(Cow::Borrowed(s)));
        assert_eq!(compare(&input("1e400"), &n("5")), Some(Ordering::Greater));
    }

    #[test]
    fn decode_escape_valid_and_not() {
        let ok = [
            (r#"\""#, '"', 2),
            (r"\\", '\\', 2),
            (r"\/", '/', 2),
            (r"\b", '\u{8}', 2),
            (r"\f", '\u{c}', 2),
            (r"\n", '\n', 2),
            (r"\r", '\r', 2),
            (r"\t", '\t', 2),
            (r"\u0041x", 'A', 6),
            (r"\u00E9", 'é', 6),
            (r"\ud83d\ude00", '😀', 12),
        ];
        for (text, c, len) in ok {
            assert_eq!(decode_escape(text.as_bytes()), Some((c, len)), "{text}");
        }
        for bad in [
            r"\x",
            "\\",
            r"\u12",
            r"\u12g4",
            r"\ud83d",
            r"\ud83d\u0041",
            r"\ude00",
            "\\é",
        ] {
            assert_eq!(decode_escape(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn unescape() {
        assert_eq!(unescape_json_str(r#"a\"b\\c\/\n"#), "a\"b\\c/\n");
        assert_eq!(
            unescape_json_str(r"\u00e9\ud83d\ude00\ud83d!"),
            "é😀\u{FFFD}!"
        );
        assert!(matches!(unescape_json_str("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn decimal_format() {
        let d = |s| Decimal::from_str(s).unwrap();
        assert_eq!(format_decimal(&(d("0.1") + d("0.2"))), "0.3");
        assert_eq!(format_decimal(&(d("1.50") + d("1.50"))), "3.00");
        assert_eq!(format_decimal(&(d("-1") * d("0"))), "0");
        assert_eq!(
            format_decimal(&d("0.0000000000000000000000000001")),
            "0.0000000000000000000000000001"
        );
    }
}
