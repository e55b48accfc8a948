//! `-o table` (the default on a terminal): a header, a rule, and aligned columns.
//!
//! Columns are separated by two spaces; a column whose every non-null value is a number is
//! right-aligned, as is a column the caller says holds figures (`~12.3K`, `98.6%`), the
//! others left-aligned; trailing spaces are trimmed. Widths count terminal
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
use super::{cut, is_number, text};

/// Render the whole table, coloured when `color`, in at most `width` terminal columns when
/// given ([`fit`]); the columns marked in `figures` are right-aligned whatever they hold.
pub fn render_within(
    columns: &[String],
    rows: &[Vec<Value<'_>>],
    color: bool,
    width: Option<usize>,
    figures: &[bool],
) -> String {
    let mut header: Vec<Cow<'_, str>> = columns.iter().map(|c| visible(c)).collect();
    let mut cells: Vec<Vec<Cow<'_, str>>> = rows
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
    // A column is numeric when it holds a number and nothing else but nulls. `keep`: the
    // widest number in each column, which fitting never cuts.
    let mut numbers = vec![0usize; columns.len()];
    let mut others = vec![0usize; columns.len()];
    let mut keep = vec![0usize; columns.len()];
    for (row, values) in cells.iter().zip(rows) {
        for (i, (cell, v)) in row.iter().zip(values).enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.width());
            }
            match v {
                Value::Null => {}
                v if is_number(v) => {
                    numbers[i] += 1;
                    keep[i] = keep[i].max(cell.width());
                }
                _ => others[i] += 1,
            }
        }
    }
    let numeric: Vec<bool> = numbers
        .iter()
        .zip(&others)
        .enumerate()
        .map(|(i, (&n, &o))| n > 0 && o == 0 || figures.get(i) == Some(&true))
        .collect();
    if let Some(width) = width {
        let fitted = fit(&widths, &keep, width);
        if fitted != widths {
            for row in std::iter::once(&mut header).chain(cells.iter_mut()) {
                for (cell, &w) in row.iter_mut().zip(&fitted) {
                    if cell.width() > w {
                        *cell = Cow::Owned(cut(cell, w));
                    }
                }
            }
            widths = fitted;
        }
    }
    let mut out = String::new();
    let plain = |_: usize| None;
    let bold = |_: usize| color.then_some(Palette::HEADER);
    line(&mut out, &header, &widths, &numeric, bold);
    let rule: Vec<Cow<'_, str>> = widths.iter().map(|&w| Cow::Owned("-".repeat(w))).collect();
    line(&mut out, &rule, &widths, &numeric, plain);
    for (row, values) in cells.iter().zip(rows) {
        let style = |i: usize| match values.get(i) {
            _ if !color => None,
            // A float JSON cannot hold (`1e400`) is shown as the null it is written as.
            Some(Value::Null) => Some(Palette::NULL),
            Some(Value::Float(f)) if !f.is_finite() => Some(Palette::NULL),
            Some(v) if is_number(v) => Some(Palette::NUMBER),
            _ => None,
        };
        line(&mut out, row, &widths, &numeric, style);
    }
    out
}

/// A text column at most this wide is never cut (a timestamp takes 28 columns); a wider one
/// is narrowed down to it, and then, if the table still does not fit, to [`NARROWEST`].
const WHOLE: usize = 32;
const NARROWEST: usize = 16;

/// Column widths (`natural`, each the widest cell's) that fit in `width` terminal columns
/// with two spaces between columns: the widest text column narrowed first, each to the next
/// widest, until the table fits; only text columns wider than [`WHOLE`] are narrowed, to it
/// first and then to [`NARROWEST`], and never below `keep` (the widest number in each: a
/// cut number would read as another number). When that is not enough, the table stays
/// wider than `width`.
fn fit(natural: &[usize], keep: &[usize], width: usize) -> Vec<usize> {
    let mut w = natural.to_vec();
    let total = w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
    let mut excess = total.saturating_sub(width);
    for least in [WHOLE, NARROWEST] {
        let floor = |i: usize| {
            let text = if natural[i] > WHOLE {
                least
            } else {
                natural[i]
            };
            text.max(keep[i])
        };
        while excess > 0 {
            let narrowable = |i: &usize| w[*i] > floor(*i);
            // The widest (the first of equals), and the width of the next below it.
            let Some(i) = (0..w.len())
                .filter(narrowable)
                .max_by_key(|&i| (w[i], usize::MAX - i))
            else {
                break;
            };
            let next = (0..w.len())
                .filter(|&j| w[j] < w[i])
                .map(|j| w[j])
                .max()
                .unwrap_or(0);
            let step = (w[i] - next.max(floor(i))).min(excess);
            w[i] -= step;
            excess -= step;
        }
    }
    w
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

/// Whether `c` is shown as an escape: a control character, or one that moves text about
/// where it cannot be seen (the line and paragraph separators, and the bidirectional
/// embeddings, overrides, isolates and marks, with which a log line could make a table
/// show its text in another order).
fn unseen(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// `s` with control characters (and the others [`unseen`] names) shown as escapes.
pub(crate) fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unseen) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if unseen(c) => {
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

    /// The whole table, every value whole.
    fn render(columns: &[String], rows: &[Vec<Value<'_>>], color: bool) -> String {
        render_within(columns, rows, color, None, &[])
    }

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

    fn long_rows() -> (Vec<String>, Vec<Vec<Value<'static>>>) {
        let columns = vec!["@l".to_string(), "Message".to_string(), "n".to_string()];
        let row = |l: &'static str, m: &'static str, n: &'static str| {
            vec![
                Value::RawString(l.into()),
                Value::String(m.into()),
                Value::RawNumber(n.into()),
            ]
        };
        let rows = vec![
            row(
                "Information",
                "HTTP GET /api/orders/17427 responded 500 in 138 ms",
                "1234567",
            ),
            row("Error", "short", "1"),
            row("Warning", "中文中文中文中文中文中文中文中文中文", "22"),
        ];
        (columns, rows)
    }

    #[test]
    fn columns_of_figures_are_right_aligned_though_they_are_text() {
        let columns = vec!["share".to_string(), "note".to_string()];
        let rows = vec![
            vec![
                Value::RawString("100%".into()),
                Value::RawString("a".into()),
            ],
            vec![Value::RawString("-".into()), Value::RawString("bc".into())],
        ];
        let figures = render_within(&columns, &rows, false, None, &[true]);
        assert_eq!(figures, "share  note\n-----  ----\n 100%  a\n    -  bc\n");
        let text = render_within(&columns, &rows, false, None, &[]);
        assert_eq!(text, "share  note\n-----  ----\n100%   a\n-      bc\n");
    }

    #[test]
    fn a_table_too_wide_is_narrowed_in_its_widest_text_column() {
        let (columns, rows) = long_rows();
        let wide = render(&columns, &rows, false);
        // Wide enough: the same table.
        assert_eq!(render_within(&columns, &rows, false, Some(72), &[]), wide);
        let fitted = render_within(&columns, &rows, false, Some(60), &[]);
        assert_eq!(
            fitted,
            "@l           Message                                       n\n\
             -----------  --------------------------------------  -------\n\
             Information  HTTP GET /api/orders/17427 responded …  1234567\n\
             Error        short                                         1\n\
             Warning      中文中文中文中文中文中文中文中文中文         22\n"
        );
        for line in fitted.lines() {
            assert!(line.width() <= 60, "{line:?}");
        }
    }

    #[test]
    fn numbers_and_short_columns_are_never_cut() {
        let (columns, rows) = long_rows();
        // Far too narrow: long text stops at 16 columns, text up to 32 wide and numbers are
        // whole.
        let fitted = render_within(&columns, &rows, false, Some(10), &[]);
        assert_eq!(
            fitted,
            "@l           Message                 n\n\
             -----------  ----------------  -------\n\
             Information  HTTP GET /api/o…  1234567\n\
             Error        short                   1\n\
             Warning      中文中文中文中…        22\n"
        );
        let colored = render_within(&columns, &rows, true, Some(10), &[]);
        assert_eq!(
            String::from_utf8(crate::output::color::strip(colored.as_bytes())).unwrap(),
            fitted
        );
    }

    #[test]
    fn a_number_in_a_text_column_is_never_cut() {
        let columns = vec!["v".to_string()];
        let rows = vec![
            vec![Value::String(
                "a long text that is cut to fit the terminal".into(),
            )],
            vec![Value::RawNumber("12345678901234567890123".into())],
        ];
        assert_eq!(
            render_within(&columns, &rows, false, Some(10), &[]),
            "v\n-----------------------\na long text that is cu…\n12345678901234567890123\n"
        );
    }

    #[test]
    fn narrowing_takes_the_widest_first() {
        // Widths 70 and 50 (+2) in 100: the widest goes down to the other, then the first of
        // the two.
        assert_eq!(fit(&[70, 50], &[0, 0], 100), [48, 50]);
        assert_eq!(fit(&[70, 50], &[0, 0], 122), [70, 50]);
        // To 32 first, then further.
        assert_eq!(fit(&[70, 50], &[70, 0], 104), [70, 32]);
        assert_eq!(fit(&[70, 50], &[70, 0], 100), [70, 28]);
        assert_eq!(fit(&[70, 20], &[0, 0], 10), [16, 20]);
        assert_eq!(fit(&[30, 20], &[0, 0], 10), [30, 20]);
        // A number among text keeps its column at least as wide as it.
        assert_eq!(fit(&[70, 20], &[40, 0], 10), [40, 20]);
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("中文中文", 4), "中…");
    }

    #[test]
    fn a_cut_keeps_each_character_a_reader_sees_whole() {
        let family = "\u{1f469}\u{200d}\u{1f469}\u{200d}\u{1f467}";
        let flag = "\u{1f1eb}\u{1f1f7}";
        let accented = "e\u{301}";
        let text = format!("{family}{family}{flag}{accented}x{accented}");
        // A family and a flag take two columns each, `é` as `e` and an accent one.
        assert_eq!(cut(&text, 5), format!("{family}{family}…"));
        assert_eq!(cut(&text, 6), format!("{family}{family}…"));
        assert_eq!(cut(&text, 7), format!("{family}{family}{flag}…"));
        assert_eq!(cut(&text, 8), format!("{family}{family}{flag}{accented}…"));
        assert_eq!(cut(&text, 9), text);
    }

    #[test]
    fn empty_table_has_header() {
        assert_eq!(render(&["a".into()], &[], false), "a\n-\n");
    }

    #[test]
    fn separators_and_bidirectional_controls_are_escaped() {
        let rows = vec![vec![Value::RawString(
            r"ok \u202egnp.exe\u2028x\u2066y\u2069".into(),
        )]];
        assert_eq!(
            render(&["m".into()], &rows, false),
            "m\n--------------------------------------------\n\
             ok \\u{202e}gnp.exe\\u{2028}x\\u{2066}y\\u{2069}\n"
        );
        assert_eq!(visible("plain é 中文"), "plain é 中文");
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
            vec![Value::Null, Value::Float(f64::INFINITY), Value::Null],
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
             a\\u{1b}     <n>7</>  <0>null</>\n\
             <0>null</>     <0>null</>  <0>null</>\n"
        );
    }
}
