//! `-o raw`: values alone, tab-separated, no header, for `$(ndq ...)` in scripts.
//!
//! Nothing is quoted or escaped: a string is written unescaped, exactly its value (as `jq -r`
//! does), so a value holding a tab or newline is not split-safe; use csv, tsv or json when that
//! matters. Null is an empty field.

use std::io::Write as _;

use ndq_query::Value;

use super::text;

/// One row.
pub fn row(row: &[Value<'_>], out: &mut Vec<u8>) {
    for (i, v) in row.iter().enumerate() {
        if i > 0 {
            out.push(b'\t');
        }
        if let Some(t) = text(v) {
            // Writing into a Vec cannot fail.
            let _ = out.write_all(t.as_bytes());
        }
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_alone() {
        let mut out = Vec::new();
        row(
            &[
                Value::RawNumber("42".into()),
                Value::RawString(r#"a \"b\"\tc"#.into()),
                Value::Null,
                Value::Bool(true),
            ],
            &mut out,
        );
        assert_eq!(String::from_utf8(out).unwrap(), "42\ta \"b\"\tc\t\ttrue\n");
    }
}
