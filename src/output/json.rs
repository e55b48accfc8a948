//! `-o json`: one JSON object per row, keys in `select` order.
//!
//! Values from the input are copied as written (a string keeps its escapes, `1.50` stays
//! `1.50`); computed strings are escaped here; computed numbers are exact, without exponent.
//! Every row is one line: a raw string or JSON text from a valid input line never holds a raw
//! newline, and [`escape`] escapes every control character.

use ndq_query::Value;

/// `"name":` for a column, escaped.
pub fn key(name: &str) -> String {
    let mut out = Vec::with_capacity(name.len() + 3);
    escape(name, &mut out);
    out.push(b':');
    // `escape` writes valid UTF-8 (it copies a &str and adds ASCII).
    String::from_utf8_lossy(&out).into_owned()
}

/// One row as a JSON object line. `keys` come from [`key`].
pub fn row(keys: &[String], row: &[Value<'_>], out: &mut Vec<u8>) {
    out.push(b'{');
    for (i, (k, v)) in keys.iter().zip(row).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(k.as_bytes());
        value(v, out);
    }
    out.extend_from_slice(b"}\n");
}

/// One value as JSON text.
pub fn value(v: &Value<'_>, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::RawNumber(n) => out.extend_from_slice(n.as_bytes()),
        Value::Number(d) => out.extend_from_slice(ndq_query::format_decimal(d).as_bytes()),
        Value::Float(f) if f.is_finite() => out.extend_from_slice(f.to_string().as_bytes()),
        Value::Float(_) => out.extend_from_slice(b"null"),
        Value::RawString(s) => {
            out.push(b'"');
            out.extend_from_slice(s.as_bytes());
            out.push(b'"');
        }
        Value::String(s) => escape(s, out),
        Value::RawJson(j) => out.extend_from_slice(j.as_bytes()),
    }
}

/// `s` as a quoted JSON string: `"` and `\` escaped, control characters as `\n`, `\t`... or
/// `\u00XX`; everything else (non-ASCII included) copied.
pub fn escape(s: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        start = i + 1;
        if short.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(short);
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndq_query::Decimal;
    use std::str::FromStr;

    fn json(v: Value<'_>) -> String {
        let mut out = Vec::new();
        value(&v, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn each_variant() {
        assert_eq!(json(Value::Null), "null");
        assert_eq!(json(Value::Bool(true)), "true");
        assert_eq!(json(Value::Bool(false)), "false");
        assert_eq!(json(Value::RawNumber("1.50".into())), "1.50");
        assert_eq!(json(Value::RawNumber("-1e3".into())), "-1e3");
        let d = |s| Value::Number(Decimal::from_str(s).unwrap());
        assert_eq!(json(d("0.3")), "0.3");
        assert_eq!(json(d("-12.250")), "-12.250");
        assert_eq!(json(d("1e25")), "10000000000000000000000000");
        assert_eq!(json(Value::Float(1e40)), format!("1{}", "0".repeat(40)));
        assert_eq!(json(Value::Float(f64::INFINITY)), "null");
        assert_eq!(
            json(Value::RawString(r#"a\"b\u00e9"#.into())),
            r#""a\"b\u00e9""#
        );
        assert_eq!(
            json(Value::String("a\"b\\c\nd\u{1}é".into())),
            r#""a\"b\\c\nd\u0001é""#
        );
        assert_eq!(
            json(Value::RawJson(r#"{"a": [1, 2]}"#.into())),
            r#"{"a": [1, 2]}"#
        );
    }

    #[test]
    fn escape_control_characters() {
        let mut out = Vec::new();
        escape("\u{8}\u{c}\r\t\u{1f}\u{7f}", &mut out);
        // DEL (0x7f) is not a control character for JSON and is copied.
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"\\b\\f\\r\\t\\u001f\u{7f}\""
        );
    }

    #[test]
    fn rows_keep_select_order() {
        let keys = vec![key("b"), key("a\"x"), key("COUNT(*)")];
        let mut out = Vec::new();
        row(
            &keys,
            &[Value::Bool(true), Value::Null, Value::RawNumber("3".into())],
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"b\":true,\"a\\\"x\":null,\"COUNT(*)\":3}\n"
        );
    }
}
