//! Cells: one result value classified for Arrow, and the compact bytes a row of them is
//! carried in between the threads that evaluate lines and the one that builds batches.
//!
//! [`Cell::of`] does the per-value work (unescaping text, reading a number's digits exactly,
//! reading RFC 3339 text as an instant), so it can run on the worker threads; the batch
//! builder only copies. A cell keeps the value's text too (a number as written, a time as
//! written), for a column that ends up as text.
//!
//! Byte form of a row ([`encode_row`]): a `u32` little-endian length of the cells that
//! follow, then per cell a tag byte and its payload; text is a `u32` length and UTF-8 bytes.
//!
//! | tag | cell | payload |
//! |---|---|---|
//! | 0 | null | |
//! | 1, 2 | false, true | |
//! | 3 | decimal | `i128` value, `u8` scale, `u8` digits, text |
//! | 4 | float | `f64`, text |
//! | 5 | time | `i64` nanoseconds, text |
//! | 6 | text | text |
//! | 7 | JSON (array or object) | text |

use std::borrow::Cow;

use ndq_query::{Stamp, Value, format_decimal, unescape_json_str};

/// Most decimal digits a `Decimal128` holds.
pub const MAX_DIGITS: u32 = 38;

/// One value of a result row, as Arrow sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell<'a> {
    /// null, an absent property, or a computed float that is not finite.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number held exactly: `value × 10^-scale`, at the scale it is written with (`1.50`
    /// is 150 and scale 2); `digits` is the number of digits of `value` (1 for 0).
    Decimal {
        /// The digits, as an integer.
        value: i128,
        /// Digits after the decimal point.
        scale: u8,
        /// Digits of `value`, at most [`MAX_DIGITS`].
        digits: u8,
        /// The number as ndq writes it in text formats.
        text: Cow<'a, str>,
    },
    /// A number that a `Decimal128` cannot hold exactly: more than 38 digits (`1e40`,
    /// `1e-40`, 40 written digits), beyond a float's range (`1e400` is infinite), or a
    /// computed number outside a decimal's range.
    Float {
        /// The nearest float.
        value: f64,
        /// The number as ndq writes it in text formats.
        text: Cow<'a, str>,
    },
    /// Text in RFC 3339 form with a time and an offset (`2026-11-21T10:00:00.5+01:00`),
    /// within the range of nanoseconds in an `i64` (years 1677 to 2262).
    Time {
        /// Nanoseconds since the Unix epoch.
        nanos: i64,
        /// The text, as written.
        text: Cow<'a, str>,
    },
    /// Any other text, unescaped.
    Text(Cow<'a, str>),
    /// An array or object, as its JSON text.
    Json(Cow<'a, str>),
}

impl<'a> Cell<'a> {
    /// The cell of a result value.
    pub fn of(value: &'a Value<'_>) -> Cell<'a> {
        match value {
            Value::Null => Cell::Null,
            Value::Bool(b) => Cell::Bool(*b),
            Value::RawNumber(n) => number(Cow::Borrowed(n.as_ref())),
            Value::Number(d) => number(Cow::Owned(format_decimal(d))),
            Value::Float(f) if f.is_finite() => Cell::Float {
                value: *f,
                text: Cow::Owned(f.to_string()),
            },
            Value::Float(_) => Cell::Null,
            Value::RawString(s) => text(unescape_json_str(s)),
            Value::String(s) => text(Cow::Borrowed(s.as_ref())),
            Value::RawJson(j) => Cell::Json(Cow::Borrowed(j.as_ref())),
        }
    }

    /// The text a text column holds for this cell: what csv writes (`None` for null).
    pub fn text(&self) -> Option<&str> {
        match self {
            Cell::Null => None,
            Cell::Bool(true) => Some("true"),
            Cell::Bool(false) => Some("false"),
            Cell::Decimal { text, .. } | Cell::Float { text, .. } | Cell::Time { text, .. } => {
                Some(text)
            }
            Cell::Text(t) | Cell::Json(t) => Some(t),
        }
    }
}

impl Cell<'_> {
    /// The value for a person: a text quoted (`the text "7"`, which a number column
    /// cannot take though it reads as one), anything else as written (`the value 1.5`).
    pub fn described(&self) -> String {
        match self {
            Cell::Text(t) => format!("the text {t:?}"),
            Cell::Json(t) => format!("the JSON {t}"),
            other => format!("the value {}", other.text().unwrap_or("null")),
        }
    }
}

/// A number's cell from its JSON text: a decimal when its digits fit [`MAX_DIGITS`].
fn number(text: Cow<'_, str>) -> Cell<'_> {
    match exact(&text) {
        Some((value, scale, digits)) => Cell::Decimal {
            value,
            scale,
            digits,
            text,
        },
        None => Cell::Float {
            value: text.parse().unwrap_or(f64::NAN),
            text,
        },
    }
}

/// A JSON number (`-?int(.frac)?([eE][+-]?exp)?`) as `(value, scale, digits)` with
/// `value × 10^-scale` equal to it, at the scale it is written with (`1.50`: 150 and 2, so
/// a column of prices written `10.00` is a decimal of scale 2, not whole numbers); `None`
/// when it needs more than [`MAX_DIGITS`] digits (or a scale above that) or is not a JSON
/// number.
///
/// ```text
/// digits := the digits of int and frac, leading zeros dropped; scale := len(frac) - exp
/// if scale < 0: append -scale zeros, scale := 0
/// ```
pub fn exact(text: &str) -> Option<(i128, u8, u8)> {
    let bytes = text.as_bytes();
    let (negative, rest) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    let split = rest
        .iter()
        .position(|b| matches!(b, b'e' | b'E'))
        .unwrap_or(rest.len());
    let (mantissa, exponent) = rest.split_at(split);
    let exp: i64 = match exponent.get(1..) {
        None => 0,
        Some(e) => {
            let (sign, digits) = match e.split_first() {
                Some((b'-', d)) => (-1, d),
                Some((b'+', d)) => (1, d),
                _ => (1, e),
            };
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            // Beyond any scale a Decimal128 has, whatever the digits.
            let n = digits
                .iter()
                .fold(0i64, |n, d| (n * 10 + i64::from(d - b'0')).min(1 << 40));
            sign * n
        }
    };
    let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
        Some(dot) if dot + 1 < mantissa.len() => (&mantissa[..dot], &mantissa[dot + 1..]),
        Some(_) => return None,
        None => (mantissa, &[][..]),
    };
    if int.is_empty() || !int.iter().chain(frac).all(u8::is_ascii_digit) {
        return None;
    }
    // The significant digits, leading zeros dropped, trailing zeros counted apart.
    let all = int.iter().chain(frac).map(|d| d - b'0');
    let mut value: i128 = 0;
    let mut digits: u32 = 0;
    let mut zeros: u32 = 0;
    for d in all {
        if d == 0 {
            if digits > 0 {
                zeros += 1;
            }
            continue;
        }
        // Pending zeros and this digit.
        digits += zeros + 1;
        if digits > MAX_DIGITS {
            return None;
        }
        value = value * 10i128.pow(zeros + 1) + i128::from(d);
        zeros = 0;
    }
    // `value` holds the digits up to the last non-zero one; `zeros` follow it. The scale is
    // the one written (`1.50`: 2), or 0 for a whole number written with an exponent.
    let written = frac.len() as i64 - exp;
    let scale = written.max(0);
    if scale > i64::from(MAX_DIGITS) {
        return None;
    }
    if digits == 0 {
        return Some((0, scale as u8, 1));
    }
    // The trailing zeros back, and those an exponent adds to a whole number.
    let shift = u32::try_from(i64::from(zeros) + (-written).max(0)).ok()?;
    if digits + shift > MAX_DIGITS {
        return None;
    }
    value *= 10i128.pow(shift);
    digits += shift;
    Some((
        if negative { -value } else { value },
        scale as u8,
        digits as u8,
    ))
}

/// A text's cell: a time when it is RFC 3339 with a time and an offset, else text.
fn text(text: Cow<'_, str>) -> Cell<'_> {
    match rfc3339(&text) {
        Some(nanos) => Cell::Time { nanos, text },
        None => Cell::Text(text),
    }
}

/// The instant of `YYYY-MM-DD(T|t| )HH:MM:SS(.fraction)?(Z|z|±HH:MM)` (a fraction of 1 to 9
/// digits), in nanoseconds since the epoch, if it has that form, is a valid time, and lies
/// within an `i64` of nanoseconds ([`in_timestamp_range`]). A leap second (`:60`) is read
/// as `:59`, as `datetime` reads it: this is the query engine's reader of that form ([`Stamp::fixed`]), so a column
/// of times holds the instants the query compared and bucketed. A finer fraction, which
/// `datetime` reads to the nanosecond, is not taken: a timestamp cell would drop its last
/// digits, so it stays text.
pub fn rfc3339(text: &str) -> Option<i64> {
    let digits = text
        .as_bytes()
        .get(19..)
        .filter(|rest| rest.first() == Some(&b'.'))
        .map_or(0, |rest| {
            rest[1..].iter().take_while(|b| b.is_ascii_digit()).count()
        });
    if digits > 9 {
        return None;
    }
    i64::try_from(Stamp::fixed(text.as_bytes())?.instant)
        .ok()
        .filter(|&n| in_timestamp_range(n))
}

/// Whether `n` nanoseconds make a timestamp cell: any `i64` but its ends, `i64::MAX` and
/// `-i64::MAX` (and `i64::MIN`), which DuckDB reads as `infinity` and `-infinity`.
pub fn in_timestamp_range(n: i64) -> bool {
    -i64::MAX < n && n < i64::MAX
}

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const DECIMAL: u8 = 3;
const FLOAT: u8 = 4;
const TIME: u8 = 5;
const TEXT: u8 = 6;
const JSON: u8 = 7;

/// Append one row of values in byte form (see the module docs).
pub fn encode_row(row: &[Value<'_>], out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    for value in row {
        encode(&Cell::of(value), out);
    }
    let len = u32::try_from(out.len() - start - 4).unwrap_or(u32::MAX);
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Append one cell in byte form.
pub fn encode(cell: &Cell<'_>, out: &mut Vec<u8>) {
    let text = |t: &str, out: &mut Vec<u8>| {
        out.extend_from_slice(&(t.len() as u32).to_le_bytes());
        out.extend_from_slice(t.as_bytes());
    };
    match cell {
        Cell::Null => out.push(NULL),
        Cell::Bool(false) => out.push(FALSE),
        Cell::Bool(true) => out.push(TRUE),
        Cell::Decimal {
            value,
            scale,
            digits,
            text: t,
        } => {
            out.push(DECIMAL);
            out.extend_from_slice(&value.to_le_bytes());
            out.push(*scale);
            out.push(*digits);
            text(t, out);
        }
        Cell::Float { value, text: t } => {
            out.push(FLOAT);
            out.extend_from_slice(&value.to_le_bytes());
            text(t, out);
        }
        Cell::Time { nanos, text: t } => {
            out.push(TIME);
            out.extend_from_slice(&nanos.to_le_bytes());
            text(t, out);
        }
        Cell::Text(t) => {
            out.push(TEXT);
            text(t, out);
        }
        Cell::Json(t) => {
            out.push(JSON);
            text(t, out);
        }
    }
}

/// The first whole row of `bytes` (its cells' bytes) and the bytes after it; `None` when
/// `bytes` does not hold a whole row yet.
pub fn split_row(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let row = bytes.get(4..4 + len)?;
    Some((row, &bytes[4 + len..]))
}

/// The cells of one row's bytes (from [`split_row`]), in order; a malformed row (never
/// written by [`encode_row`]) ends early, with [`Cells::corrupt`] set.
#[derive(Debug)]
pub struct Cells<'a> {
    bytes: &'a [u8],
    /// The bytes did not hold a whole cell where one was due.
    pub corrupt: bool,
}

impl<'a> Cells<'a> {
    /// The cells of `row`.
    pub fn new(row: &'a [u8]) -> Cells<'a> {
        Cells {
            bytes: row,
            corrupt: false,
        }
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(head)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn text(&mut self) -> Option<Cow<'a, str>> {
        let len = u32::from_le_bytes(self.array()?) as usize;
        std::str::from_utf8(self.take(len)?).ok().map(Cow::Borrowed)
    }

    fn cell(&mut self) -> Option<Cell<'a>> {
        let [tag] = self.array()?;
        Some(match tag {
            NULL => Cell::Null,
            FALSE => Cell::Bool(false),
            TRUE => Cell::Bool(true),
            DECIMAL => {
                let value = i128::from_le_bytes(self.array()?);
                let [scale, digits] = self.array()?;
                Cell::Decimal {
                    value,
                    scale,
                    digits,
                    text: self.text()?,
                }
            }
            FLOAT => Cell::Float {
                value: f64::from_le_bytes(self.array()?),
                text: self.text()?,
            },
            TIME => Cell::Time {
                nanos: i64::from_le_bytes(self.array()?),
                text: self.text()?,
            },
            TEXT => Cell::Text(self.text()?),
            JSON => Cell::Json(self.text()?),
            _ => return None,
        })
    }
}

impl<'a> Iterator for Cells<'a> {
    type Item = Cell<'a>;

    fn next(&mut self) -> Option<Cell<'a>> {
        if self.bytes.is_empty() || self.corrupt {
            return None;
        }
        let cell = self.cell();
        self.corrupt = cell.is_none();
        cell
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndq_query::Decimal;
    use proptest::prelude::*;
    use std::str::FromStr;

    #[test]
    fn exact_numbers() {
        assert_eq!(exact("0"), Some((0, 0, 1)));
        assert_eq!(exact("-0.000"), Some((0, 3, 1)));
        assert_eq!(exact("1.50"), Some((150, 2, 3)));
        assert_eq!(exact("10.00"), Some((1000, 2, 4)));
        assert_eq!(exact("1.50e1"), Some((150, 1, 3)));
        assert_eq!(exact("-12.345"), Some((-12345, 3, 5)));
        assert_eq!(exact("0.05"), Some((5, 2, 1)));
        assert_eq!(exact("1e3"), Some((1000, 0, 4)));
        assert_eq!(exact("15E-1"), Some((15, 1, 2)));
        assert_eq!(exact("1.5e+2"), Some((150, 0, 3)));
        assert_eq!(exact("100"), Some((100, 0, 3)));
        assert_eq!(exact("1e-38"), Some((1, 38, 1)));
        assert_eq!(exact("1e-39"), None);
        assert_eq!(exact("1e37"), Some((10i128.pow(37), 0, 38)));
        assert_eq!(exact("1e38"), None);
        assert_eq!(exact("1e400"), None);
        assert_eq!(exact("1e-400"), None);
        assert_eq!(exact(&"9".repeat(38)), Some((10i128.pow(38) - 1, 0, 38)));
        assert_eq!(exact(&"9".repeat(39)), None);
        // Leading zeros are not significant; trailing ones keep the scale written.
        assert_eq!(
            exact(&format!("0.{}1000", "0".repeat(30))),
            Some((1000, 34, 4))
        );
        assert_eq!(exact(&format!("1.{}", "0".repeat(38))), None);
        assert_eq!(exact("1e99999999999999999999"), None);
        for bad in ["", "-", "1.", ".5", "1e", "1e+", "abc", "1.2.3", "--1"] {
            assert_eq!(exact(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn cells_of_values() {
        let cell = |v: Value<'static>| Cell::of(&v).into_static();
        assert_eq!(cell(Value::Null), Cell::Null);
        assert_eq!(cell(Value::Bool(true)), Cell::Bool(true));
        assert_eq!(
            cell(Value::RawNumber("1.50".into())),
            Cell::Decimal {
                value: 150,
                scale: 2,
                digits: 3,
                text: "1.50".into()
            }
        );
        let sum = Decimal::from_str("0.1").unwrap() + Decimal::from_str("0.2").unwrap();
        assert_eq!(
            cell(Value::Number(sum)),
            Cell::Decimal {
                value: 3,
                scale: 1,
                digits: 1,
                text: "0.3".into()
            }
        );
        assert_eq!(
            cell(Value::RawNumber("1e400".into())),
            Cell::Float {
                value: f64::INFINITY,
                text: "1e400".into()
            }
        );
        assert_eq!(cell(Value::Float(f64::NAN)), Cell::Null);
        assert_eq!(
            cell(Value::RawString(r"a\tb".into())),
            Cell::Text("a\tb".into())
        );
        assert_eq!(
            cell(Value::RawString("2026-11-21T10:00:00.5+01:00".into())),
            Cell::Time {
                nanos: 1_795_251_600_500_000_000,
                text: "2026-11-21T10:00:00.5+01:00".into()
            }
        );
        assert_eq!(
            cell(Value::RawJson("[1, 2]".into())),
            Cell::Json("[1, 2]".into())
        );
    }

    #[test]
    fn rfc3339_forms() {
        let t = rfc3339;
        assert_eq!(t("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(t("1970-01-01 00:00:01z"), Some(1_000_000_000));
        assert_eq!(t("1970-01-01t01:00:00+01:00"), Some(0));
        assert_eq!(t("1970-01-01T00:00:00.123456789Z"), Some(123_456_789));
        assert_eq!(t("1970-01-01T00:00:00.1234567-00:00"), Some(123_456_700));
        assert_eq!(t("2016-12-31T23:59:60Z"), t("2016-12-31T23:59:59Z"));
        // The range's ends but the two DuckDB reads as infinities.
        assert_eq!(t("2262-04-11T23:47:16.854775806Z"), Some(i64::MAX - 1));
        assert_eq!(t("2262-04-11T23:47:16.854775807Z"), None);
        assert_eq!(t("1677-09-21T00:12:43.145224194Z"), Some(-i64::MAX + 1));
        assert_eq!(t("1677-09-21T00:12:43.145224193Z"), None);
        // Not this strict form: no offset, no seconds, a date alone, trailing text.
        for text in [
            "1970-01-01T00:00:00",
            "1970-01-01T00:00Z",
            "1970-01-01",
            "1970-01-01T00:00:00Z ",
            "1970-01-01T00:00:00.Z",
            "1970-01-01T00:00:00+0100",
            "1970-01-01T00:00:00.1234567890Z",
            "1970-13-01T00:00:00Z",
            "1970-02-30T00:00:00Z",
            "1500-01-01T00:00:00Z",
            "2300-01-01T00:00:00Z",
            "soon",
        ] {
            assert_eq!(t(text), None, "{text:?}");
        }
        // An offset of 24 or 25 hours is not RFC 3339 (jiff's Temporal grammar takes it):
        // text, as the query engine's reader of this form has it.
        for text in ["1970-01-02T00:00:00+24:00", "1970-01-02T00:00:00-25:59"] {
            assert!(jiff_rfc3339(text).is_some(), "{text:?}");
            assert_eq!(t(text), None, "{text:?}");
        }
    }

    impl Cell<'_> {
        fn into_static(self) -> Cell<'static> {
            let own = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
            match self {
                Cell::Null => Cell::Null,
                Cell::Bool(b) => Cell::Bool(b),
                Cell::Decimal {
                    value,
                    scale,
                    digits,
                    text,
                } => Cell::Decimal {
                    value,
                    scale,
                    digits,
                    text: own(text),
                },
                Cell::Float { value, text } => Cell::Float {
                    value,
                    text: own(text),
                },
                Cell::Time { nanos, text } => Cell::Time {
                    nanos,
                    text: own(text),
                },
                Cell::Text(t) => Cell::Text(own(t)),
                Cell::Json(t) => Cell::Json(own(t)),
            }
        }
    }

    /// The form [`rfc3339`] reads, checked by shape and then read by jiff's RFC 3339 parser
    /// (what this crate used before the query engine's reader): the reference it is
    /// compared with.
    fn jiff_rfc3339(text: &str) -> Option<i64> {
        let b = text.as_bytes();
        let digits = |range: std::ops::Range<usize>| {
            b.get(range)
                .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
        };
        if b.len() < 20
            || !digits(0..4)
            || b[4] != b'-'
            || !digits(5..7)
            || b[7] != b'-'
            || !digits(8..10)
            || !matches!(b[10], b'T' | b't' | b' ')
            || !digits(11..13)
            || b[13] != b':'
            || !digits(14..16)
            || b[16] != b':'
            || !digits(17..19)
        {
            return None;
        }
        let mut end = 19;
        if b[end] == b'.' {
            let start = end + 1;
            end = start;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            if end == start {
                return None;
            }
        }
        let offset_ok = match &b[end..] {
            [b'Z' | b'z'] => true,
            [b'+' | b'-', h1, h2, b':', m1, m2] => {
                [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit())
            }
            _ => false,
        };
        if !offset_ok {
            return None;
        }
        let leap = &b[17..19] == b"60";
        let parsed = if leap {
            let mut fixed = text.to_string();
            fixed.replace_range(17..19, "59");
            fixed.parse::<jiff::Timestamp>()
        } else {
            text.parse::<jiff::Timestamp>()
        };
        i64::try_from(parsed.ok()?.as_nanosecond())
            .ok()
            .filter(|&n| in_timestamp_range(n))
    }

    proptest! {
        // About one text in ten is a valid time: many cases, each cheap.
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// The form's instants are jiff's: dates and times valid or not, near the ends of
        /// the range or not, fractions of 0 to 9 digits (`.` alone is not one), `Z`, `z`,
        /// offsets (minutes out of range too), or no offset.
        #[test]
        fn rfc3339_agrees_with_jiff(
            text in "(1[5-9]|2[0-4]|0[0-9])[0-9]{2}-(0[0-9]|1[0-3])-[0-3][0-9][Tt ]([0-2][0-9]):[0-6][0-9]:[0-6][0-9](\\.[0-9]{0,9})?(Z|z|[+-]([01][0-9]|2[0-3]):[0-6][0-9]|[+-][0-9]{4}|)",
        ) {
            prop_assert_eq!(rfc3339(&text), jiff_rfc3339(&text), "{}", text);
        }

        /// Any other text: the same answer (almost always none).
        #[test]
        fn rfc3339_agrees_with_jiff_on_any_text(text in "\\PC{0,40}") {
            prop_assert_eq!(rfc3339(&text), jiff_rfc3339(&text), "{}", text);
        }
    }

    proptest! {
        /// The digits read are the number's value: the same decimal as rust_decimal reads
        /// (for numbers both hold).
        #[test]
        fn exact_agrees_with_rust_decimal(int in 0u64..1_000_000_000, frac in "[0-9]{0,12}", exp in -10i32..10, neg: bool) {
            let text = format!(
                "{}{int}{}{frac}e{exp}",
                if neg { "-" } else { "" },
                if frac.is_empty() { "" } else { "." }
            );
            let text = text.replace(".e", "e");
            let want = Decimal::from_scientific(&text).unwrap().normalize();
            let (value, scale, digits) = exact(&text).unwrap();
            let got = Decimal::from_i128_with_scale(value, u32::from(scale));
            prop_assert_eq!(got.normalize(), want);
            prop_assert_eq!(u32::from(digits), value.unsigned_abs().max(1).ilog10() + 1);
            // The scale written: the fraction's digits less the exponent, none below zero.
            prop_assert_eq!(i64::from(scale), (frac.len() as i64 - i64::from(exp)).max(0));
        }

        /// A row's cells come back from their bytes as they went in, however rows follow
        /// each other.
        #[test]
        fn rows_round_trip(texts in proptest::collection::vec("[a-z0-9.\"\\\\-]{0,8}", 0..6)) {
            let row: Vec<Value<'_>> = texts
                .iter()
                .enumerate()
                .map(|(i, t)| match i % 4 {
                    0 => Value::RawString(t.as_str().into()),
                    1 => Value::RawNumber(format!("-{}.{}e{}", t.len(), t.len(), t.len()).into()),
                    2 => Value::RawJson(t.as_str().into()),
                    _ => Value::Bool(t.len() % 2 == 0),
                })
                .collect();
            let mut bytes = Vec::new();
            encode_row(&row, &mut bytes);
            encode_row(&row, &mut bytes);
            let (first, rest) = split_row(&bytes).unwrap();
            let (second, rest) = split_row(rest).unwrap();
            prop_assert!(rest.is_empty());
            prop_assert_eq!(first, second);
            let want: Vec<Cell<'_>> = row.iter().map(Cell::of).collect();
            let mut cells = Cells::new(first);
            let got: Vec<Cell<'_>> = cells.by_ref().collect();
            prop_assert!(!cells.corrupt);
            prop_assert_eq!(got, want);
            prop_assert!(split_row(&bytes[..bytes.len() - 1]).is_some());
            prop_assert!(split_row(&bytes[..3]).is_none());
        }
    }
}
