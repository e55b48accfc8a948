//! `-o table` (the default on a terminal): a header, a rule, and aligned columns.
//!
//! Columns are separated by two spaces; a column whose every non-null value is a number is
//! right-aligned, the others left-aligned; trailing spaces are trimmed. Widths count terminal
//! columns (unicode-width: a CJK character or emoji takes two, a combining mark none), so
//! columns line up in a terminal whatever the script. Strings are unescaped,
//! and control characters are shown as escapes (`\n`, `\t`, `\r`, `\u{1b}`) so a value can
//! neither break a row in two nor send terminal escape sequences. Null is shown as `null`.
//!
//! With colour (a terminal), the header is bold, numbers cyan and `null` dimmed
//! ([`Palette`]); widths are those of the text alone, and a cell's trailing blanks stay
//! outside its colour, so removing the sequences gives the table without colour exactly.

use std::borrow::Cow;
use std::fmt::Write as _;

use ndq_query::Value;
use unicode_width::UnicodeWidthStr;

use super::color::{Palette, paint};
use super::{is_number, text};

/// Render the whole table, coloured when `color`.
pub fn render(columns: &[String], rows: &[Vec<Value<'_>>], color: bool) -> String {
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
    let plain = |_: usize| None;
    let bold = |_: usize| color.then_some(Palette::HEADER);
    line(&mut out, &header, &widths, &numeric, bold);
    let rule: Vec<Cow<'_, str>> = widths.iter().map(|&w| Cow::Owned("-".repeat(w))).collect();
    line(&mut out, &rule, &widths, &numeric, plain);
    for (row, values) in cells.iter().zip(rows) {
        let style = |i: usize| match values.get(i) {
            _ if !color => None,
            Some(Value::Null) => Some(Palette::NULL),
            Some(v) if is_number(v) => Some(Palette::NUMBER),
            _ => None,
        };
        line(&mut out, row, &widths, &numeric, style);
    }
    out
}

/// One line of the table; `style(i)` is the colour of column `i`'s cell, if any.
fn line(
    out: &mut String,
    cells: &[Cow<'_, str>],
    widths: &[usize],
    numeric: &[bool],
    style: impl Fn(usize) -> Option<&'static str>,
) {
    let start = out.len();
    for (i, (cell, &w)) in cells.iter().zip(widths).enumerate() {
        if i > 0 {
            out.push_str("  ");
        }
        // Padded to `w` terminal columns (a wide character takes two).
        let pad = || std::iter::repeat_n(' ', w.saturating_sub(cell.width()));
        if numeric[i] {
            out.extend(pad());
        }
        match style(i) {
            Some(style) => {
                // Trailing blanks outside the colour, so the line trims as without it.
                let text = cell.trim_end();
                paint(style, text, out);
                out.push_str(&cell[text.len()..]);
            }
            None => out.push_str(cell),
        }
        if !numeric[i] {
            out.extend(pad());
        }
    }
    let trimmed = out[start..].trim_end().len();
    out.truncate(start + trimmed);
    out.push('\n');
}

/// `s` with control characters shown as escapes.
pub(super) fn visible(s: &str) -> Cow<'_, str> {
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
            render(&columns, &rows, false),
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
            render(&columns, &rows, false),
            "s       n\n------  -\n中文字  1\nabcdef  1\ne\u{301}e\u{301}      1\n"
        );
    }

    #[test]
    fn empty_table_has_header() {
        assert_eq!(render(&["a".into()], &[], false), "a\n-\n");
    }

    #[test]
    fn control_characters_are_escaped() {
        let rows = vec![vec![
            Value::RawString(r"a\nb\u001b[31m".into()),
            Value::Null,
        ]];
        assert_eq!(
            render(&["m".into(), "n".into()], &rows, false),
            "m               n\n--------------  ----\na\\nb\\u{1b}[31m  null\n"
        );
    }

    #[test]
    fn colour_leaves_widths_and_text_alone() {
        use crate::output::color::strip;
        let columns = vec!["name ".to_string(), "n".to_string(), "ok".to_string()];
        let rows = vec![
            vec![
                Value::String("中文 ".into()),
                Value::RawNumber("12".into()),
                Value::Bool(true),
            ],
            vec![Value::Null, Value::Null, Value::Null],
            vec![
                Value::RawString(r"a\u001b".into()),
                Value::Number(7.into()),
                Value::Null,
            ],
        ];
        let plain = render(&columns, &rows, false);
        let colored = render(&columns, &rows, true);
        assert_ne!(plain, colored);
        assert_eq!(String::from_utf8(strip(colored.as_bytes())).unwrap(), plain);
        assert_eq!(
            colored
                .replace(Palette::RESET, "</>")
                .replace(Palette::HEADER, "<h>")
                .replace(Palette::NUMBER, "<n>")
                .replace(Palette::NULL, "<0>"),
            "<h>name</>        <h>n</>  <h>ok</>\n\
             -------  ----  ----\n\
             中文       <n>12</>  true\n\
             <0>null</>     <0>null</>  <0>null</>\n\
             a\\u{1b}     <n>7</>  <0>null</>\n"
        );
    }
}
