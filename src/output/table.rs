//! `-o table` (the default on a terminal): a header, a rule, and aligned columns.
//!
//! Columns are separated by two spaces; a column whose every non-null value is a number is
//! right-aligned, the others left-aligned; trailing spaces are trimmed. Widths count terminal
//! columns (unicode-width: a CJK character or emoji takes two, a combining mark none), so
//! columns line up in a terminal whatever the script. Strings are unescaped,
//! and control characters are shown as escapes (`\n`, `\t`, `\r`, `\u{1b}`) so a value can
//! neither break a row in two nor send terminal escape sequences. Null is shown as `null`.

use std::borrow::Cow;
use std::fmt::Write as _;

use ndq_query::Value;
use unicode_width::UnicodeWidthStr;

use super::{is_number, text};

/// Render the whole table.
pub fn render(columns: &[String], rows: &[Vec<Value<'_>>]) -> String {
    let header: Vec<Cow<'_, str>> = columns.iter().map(|c| visible(c)).collect();
    let cells: Vec<Vec<Cow<'_, str>>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|v| match text(v) {
                    None => Cow::Borrowed("null"),
                    Some(Cow::Borrowed(s)) => visible(s),
                    Some(Cow::Owned(s)) => Cow::Owned(visible(&s).into_owned()),
                })
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.width()).collect();
    // A column is numeric when it holds a number and nothing else but nulls.
    let mut numbers = vec![0usize; columns.len()];
    let mut others = vec![0usize; columns.len()];
    for (row, values) in cells.iter().zip(rows) {
        for (i, (cell, v)) in row.iter().zip(values).enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.width());
            }
            match v {
                Value::Null => {}
                v if is_number(v) => numbers[i] += 1,
                _ => others[i] += 1,
            }
        }
    }
    let numeric: Vec<bool> = numbers
        .iter()
        .zip(&others)
        .map(|(&n, &o)| n > 0 && o == 0)
        .collect();
    let mut out = String::new();
    line(&mut out, &header, &widths, &numeric);
    let rule: Vec<Cow<'_, str>> = widths.iter().map(|&w| Cow::Owned("-".repeat(w))).collect();
    line(&mut out, &rule, &widths, &numeric);
    for row in &cells {
        line(&mut out, row, &widths, &numeric);
    }
    out
}

fn line(out: &mut String, cells: &[Cow<'_, str>], widths: &[usize], numeric: &[bool]) {
    let start = out.len();
    for (i, (cell, &w)) in cells.iter().zip(widths).enumerate() {
        if i > 0 {
            out.push_str("  ");
        }
        // Padded to `w` terminal columns (a wide character takes two).
        let pad = std::iter::repeat_n(' ', w.saturating_sub(cell.width()));
        if numeric[i] {
            out.extend(pad);
            out.push_str(cell);
        } else {
            out.push_str(cell);
            out.extend(pad);
        }
    }
    let trimmed = out[start..].trim_end().len();
    out.truncate(start + trimmed);
    out.push('\n');
}

/// `s` with control characters shown as escapes.
fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_with_header_and_rule() {
        let columns = vec!["@l".to_string(), "count(*)".to_string()];
        let rows = vec![
            vec![
                Value::RawString("Information".into()),
                Value::RawNumber("7".into()),
            ],
            vec![
                Value::String("Zoë".into()),
                Value::RawNumber("12345678901".into()),
            ],
        ];
        assert_eq!(
            render(&columns, &rows),
            "@l              count(*)\n\
             -----------  -----------\n\
             Information            7\n\
             Zoë          12345678901\n"
        );
    }

    #[test]
    fn wide_and_combining_characters_take_their_terminal_columns() {
        let columns = vec!["s".to_string(), "n".to_string()];
        let row = |s: &str| {
            vec![
                Value::String(s.to_string().into()),
                Value::RawNumber("1".into()),
            ]
        };
        let rows = vec![row("中文字"), row("abcdef"), row("e\u{301}e\u{301}")];
        assert_eq!(
            render(&columns, &rows),
            "s       n\n------  -\n中文字  1\nabcdef  1\ne\u{301}e\u{301}      1\n"
        );
    }

    #[test]
    fn empty_table_has_header() {
        assert_eq!(render(&["a".into()], &[]), "a\n-\n");
    }

    #[test]
    fn control_characters_are_escaped() {
        let rows = vec![vec![
            Value::RawString(r"a\nb\u001b[31m".into()),
            Value::Null,
        ]];
        assert_eq!(
            render(&["m".into(), "n".into()], &rows),
            "m               n\n--------------  ----\na\\nb\\u{1b}[31m  null\n"
        );
    }
}
