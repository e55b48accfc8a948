//! `-o csv` and `-o tsv`: a header line, then one line per row.
//!
//! csv quotes a field as RFC 4180 says (when it holds `,`, `"`, CR or LF; quotes doubled) and
//! also quotes an empty string, so that `""` (an empty string) and an empty field (null) stay
//! apart. Lines end with `\n`.
//!
//! tsv cannot quote, so it escapes instead (as PostgreSQL's text format and most TSV readers
//! expect): backslash as `\\`, tab as `\t`, newline as `\n`, carriage return as `\r`. Null is
//! an empty field.

use ndq_query::Value;

use super::text;

/// The header line: the column names as fields.
pub fn header(columns: &[String], sep: u8, out: &mut Vec<u8>) {
    for (i, c) in columns.iter().enumerate() {
        if i > 0 {
            out.push(sep);
        }
        field(Some(c), sep, out);
    }
    out.push(b'\n');
}

/// One row.
pub fn row(row: &[Value<'_>], sep: u8, out: &mut Vec<u8>) {
    for (i, v) in row.iter().enumerate() {
        if i > 0 {
            out.push(sep);
        }
        let value = text(v);
        match value.as_deref() {
            // A row of one null field would be an empty line, which CSV readers skip (pandas)
            // or read as a row of no fields (Python's csv): written `""`, as Python's csv
            // writer writes a row of one empty field.
            None if sep == b',' && row.len() == 1 => out.extend_from_slice(b"\"\""),
            value => field(value, sep, out),
        }
    }
    out.push(b'\n');
}

/// One field (`None` is null: an empty field).
fn field(value: Option<&str>, sep: u8, out: &mut Vec<u8>) {
    let Some(s) = value else { return };
    if sep == b'\t' {
        tsv_field(s, out);
    } else if s.is_empty() || s.bytes().any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n')) {
        out.push(b'"');
        for part in s.split_inclusive('"') {
            out.extend_from_slice(part.as_bytes());
            if part.ends_with('"') {
                out.push(b'"');
            }
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(s.as_bytes());
    }
}

fn tsv_field(s: &str, out: &mut Vec<u8>) {
    for b in s.bytes() {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(values: &[Value<'_>], sep: u8) -> String {
        let mut out = Vec::new();
        row(values, sep, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn csv_quotes_as_rfc_4180() {
        let values = [
            Value::RawString(r#"say \"hi\", bob"#.into()),
            Value::String("two\nlines".into()),
            Value::String("plain".into()),
            Value::String("".into()),
            Value::Null,
            Value::RawJson(r#"["a","b"]"#.into()),
            Value::RawNumber("1.50".into()),
        ];
        assert_eq!(
            line(&values, b','),
            "\"say \"\"hi\"\", bob\",\"two\nlines\",plain,\"\",,\"[\"\"a\"\",\"\"b\"\"]\",1.50\n"
        );
        let mut out = Vec::new();
        header(&["a,b".into(), "c".into()], b',', &mut out);
        assert_eq!(out, b"\"a,b\",c\n");
    }

    /// A row of one null is not an empty line (which readers skip); nulls beside other
    /// fields stay empty.
    #[test]
    fn csv_writes_a_lone_null_as_an_empty_quoted_field() {
        assert_eq!(line(&[Value::Null], b','), "\"\"\n");
        assert_eq!(line(&[Value::Null, Value::Null], b','), ",\n");
        assert_eq!(line(&[Value::String("x".into())], b','), "x\n");
    }

    #[test]
    fn tsv_escapes() {
        let values = [
            Value::RawString(r"tab\there".into()),
            Value::String("back\\slash\r\n".into()),
            Value::Null,
            Value::String("".into()),
            Value::Bool(false),
        ];
        assert_eq!(
            line(&values, b'\t'),
            "tab\\there\tback\\\\slash\\r\\n\t\t\tfalse\n"
        );
    }
}
