//! `-o chart`: the rows of an aggregation drawn in the terminal with Unicode block
//! characters, as plain text that can be pasted anywhere.
//!
//! Two pictures ([`render`]):
//!
//! - **bars** ([`bars`]): one line per row; the group keys (and any other column that is not
//!   a number) make the label, each numeric column a horizontal bar beside it, scaled to its
//!   column's largest magnitude, in eighths of a cell, with the value written after it.
//! - **a time histogram** ([`hist`]): when the first column is a `time()` bucket and every
//!   other column a number, time runs left to right, one column per bucket, the missing
//!   buckets between the first and the last drawn as zero; more buckets than the width
//!   allows are merged.
//!
//! Invariants every picture keeps, whatever the rows: no line is wider than the width, no
//! more lines than the height (a minimum of [`MIN_WIDTH`] x [`MIN_HEIGHT`] is assumed),
//! nothing panics (nulls, NaN-like numbers beyond f64, all zeros, negatives, one row, no
//! rows), and colour only adds [`Palette`] sequences around the same text. Every line is
//! built through [`Line`], which cuts what would run past the width.
//!
//! The size is given ([`Size::Fixed`]: COLUMNS/LINES, the terminal's size or 80x24, decided
//! by [`crate::config`]) or, for `--follow`'s redrawn frame, taken from the terminal at each
//! frame ([`Size::Terminal`]), so a resized window gets a chart of its new size.

mod bars;
mod hist;

use std::borrow::Cow;

use ndq_query::{AggKind, ColumnRole, Plan, Value, Zone};
use rust_decimal::prelude::ToPrimitive as _;
use unicode_width::{UnicodeWidthChar as _, UnicodeWidthStr as _};

use super::color::{Palette, paint};
use super::{cut, is_number, text};

/// The smallest width and height a chart is laid out for (smaller sizes are taken as these).
pub const MIN_WIDTH: usize = 20;
/// See [`MIN_WIDTH`].
pub const MIN_HEIGHT: usize = 5;
/// The largest width and height (larger sizes are taken as these): no terminal is wider or
/// taller, and a `COLUMNS` or `LINES` of many digits must not make a chart of gigabytes.
pub const MAX_SIZE: usize = 1000;

/// How big the chart is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Columns and lines.
    Fixed {
        /// Terminal columns.
        width: usize,
        /// Lines.
        height: usize,
    },
    /// The terminal's size at each drawing, less one column and one line (a frame redrawn in
    /// place must not make the terminal wrap or scroll).
    Terminal,
}

/// A size from the environment (`COLUMNS`, `LINES`): a positive whole number, else `None`.
pub fn size_var(v: Option<&str>) -> Option<usize> {
    v.and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}

impl Size {
    /// What a pipe gets.
    pub const PIPE: Size = Size::Fixed {
        width: 80,
        height: 24,
    };

    /// The size of a chart: `COLUMNS` and `LINES` when set to a number (each on its own),
    /// else the terminal's (`terminal`: its rows and columns, when stdout is one; a line less,
    /// for the prompt after it), else 80x24. A redrawn frame (`live`) with neither variable
    /// set follows the terminal as it is resized.
    pub fn choose(
        columns: Option<&str>,
        lines: Option<&str>,
        terminal: Option<(u16, u16)>,
        live: bool,
    ) -> Size {
        let (columns, lines) = (size_var(columns), size_var(lines));
        if live && terminal.is_some() && columns.is_none() && lines.is_none() {
            return Size::Terminal;
        }
        let (rows, cols) = terminal.map_or((24, 80), |(r, c)| {
            (usize::from(r).saturating_sub(1), usize::from(c))
        });
        Size::Fixed {
            width: columns.unwrap_or(cols),
            height: lines.unwrap_or(rows),
        }
    }

    fn resolve(self) -> (usize, usize) {
        let (width, height) = match self {
            Size::Fixed { width, height } => (width, height),
            Size::Terminal => {
                let (rows, cols) = console::Term::stdout().size();
                (
                    usize::from(cols).saturating_sub(1),
                    usize::from(rows).saturating_sub(1),
                )
            }
        };
        (
            width.clamp(MIN_WIDTH, MAX_SIZE),
            height.clamp(MIN_HEIGHT, MAX_SIZE),
        )
    }
}

/// What a chart needs besides the rows: what each column is (from the plan), the zone of
/// its times, and its size.
#[derive(Clone, Debug)]
pub struct Spec {
    roles: Vec<ColumnRole>,
    zone: Zone,
    size: Size,
}

impl Spec {
    /// For `plan`'s rows.
    pub fn new(plan: &Plan, size: Size) -> Spec {
        Spec {
            roles: plan.column_roles(),
            zone: plan.zone().clone(),
            size,
        }
    }
}

impl Default for Spec {
    /// Rows of no plan (`ndq keys`): numeric columns are bars, the others labels; 80x24.
    fn default() -> Spec {
        Spec::sized(Size::PIPE)
    }
}

impl Spec {
    /// Rows of no plan (`ndq keys`), drawn at `size`.
    pub fn sized(size: Size) -> Spec {
        Spec {
            roles: Vec::new(),
            zone: Zone::utc(),
            size,
        }
    }
}

/// What a refusal says first: what can be drawn.
const WHICH: &str = "-o chart draws the rows of an aggregation: a bar per group \
    (select @l, count(*) group by @l) or, over time() buckets, a histogram \
    (select time(1m), count(*) group by 1)";

/// Whether `plan`'s rows can be drawn, as far as the plan tells (which columns are
/// aggregates, not whether their values are numbers: see [`measurable`]); the error (a
/// usage error) says which can.
pub fn check(plan: &Plan) -> Result<(), String> {
    if plan.lines() {
        return Err(format!(
            "{WHICH}; `select *` writes whole lines, which have no numbers to draw"
        ));
    }
    if !plan.aggregates() {
        return Err(format!("{WHICH}; this query does not aggregate"));
    }
    let roles = plan.column_roles();
    if !roles
        .iter()
        .any(|r| matches!(r, ColumnRole::Aggregate(_) | ColumnRole::Computed))
    {
        return Err(format!(
            "{WHICH}; this query selects only group keys, with nothing to measure"
        ));
    }
    Ok(())
}

/// Whether `rows` have something to draw: a column that is a number (or null) in every row,
/// when there are rows. `max(@t)`, `min(Message)` or a comparison pass [`check`] but are
/// not numbers; such rows are refused as a query of group keys alone is. The error (a usage
/// error) says which rows can be drawn.
pub fn measurable(columns: &[String], rows: &[Vec<Value<'_>>], spec: &Spec) -> Result<(), String> {
    if rows.is_empty() || !Table::new(columns, rows, &spec.roles).series.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{WHICH}; no column of this query's rows is a number, with nothing to measure"
    ))
}

/// Draw `rows` (whose columns are named `columns`).
pub fn render(columns: &[String], rows: &[Vec<Value<'_>>], spec: &Spec, color: bool) -> String {
    let (width, height) = spec.size.resolve();
    let ink = Ink { color };
    let table = Table::new(columns, rows, &spec.roles);
    let mut lines = match hist::draw(&table, rows, spec, width, height) {
        Some(lines) => lines,
        None => bars::draw(&table, rows, width, height),
    };
    lines.truncate(height);
    let mut out = String::new();
    for line in lines {
        line.write(&ink, &mut out);
    }
    out
}

/// The rows sorted into what a picture needs.
#[derive(Debug)]
struct Table {
    /// Indexes of the label columns (not numbers, or group keys).
    labels: Vec<usize>,
    /// For each label column, the bytes left out of its texts: a time bucket's date when
    /// every row has the same one (`2026-11-21T`), so that the label has room for the keys
    /// after it; 0 for the others.
    trims: Vec<usize>,
    /// The numeric columns.
    series: Vec<Series>,
    names: Vec<String>,
}

/// A numeric column.
#[derive(Debug)]
struct Series {
    name: String,
    role: Option<ColumnRole>,
    /// Each row's value as drawn (`None`: null; a number beyond f64 as large as the
    /// column's largest, [`drawn`]).
    values: Vec<Option<f64>>,
    /// Each row's value as written (shortened when long, [`short`]).
    texts: Vec<String>,
}

impl Table {
    fn new(columns: &[String], rows: &[Vec<Value<'_>>], roles: &[ColumnRole]) -> Table {
        let mut labels = Vec::new();
        let mut trims = Vec::new();
        let mut series = Vec::new();
        for (i, name) in columns.iter().enumerate() {
            let role = roles.get(i).copied();
            let cells = rows.iter().map(|r| r.get(i).unwrap_or(&Value::Null));
            let key = matches!(role, Some(ColumnRole::Key | ColumnRole::Bucket(_)));
            let (mut numbers, mut others) = (0, 0);
            for v in cells.clone() {
                match v {
                    Value::Null => {}
                    v if is_number(v) => numbers += 1,
                    _ => others += 1,
                }
            }
            // An aggregate of nothing but nulls is still a (barless) series.
            let numeric = !key
                && others == 0
                && (numbers > 0 || matches!(role, Some(ColumnRole::Aggregate(_))));
            if !numeric {
                labels.push(i);
                let bucket = matches!(role, Some(ColumnRole::Bucket(_)));
                trims.push(if bucket { common_date(cells) } else { 0 });
                continue;
            }
            let values = drawn(cells.clone().map(magnitude).collect());
            let texts = cells
                .map(|v| match text(v) {
                    None => "null".to_string(),
                    Some(t) => short(&t, number(v)),
                })
                .collect();
            series.push(Series {
                name: name.clone(),
                role,
                values,
                texts,
            });
        }
        Table {
            labels,
            trims,
            series,
            names: columns.to_vec(),
        }
    }

    /// Row `r`'s label: its label columns' texts, one space apart.
    fn label(&self, rows: &[Vec<Value<'_>>], r: usize) -> String {
        let parts: Vec<Cow<'_, str>> = self
            .labels
            .iter()
            .zip(&self.trims)
            .map(|(&i, &trim)| match rows[r].get(i).and_then(text) {
                None => Cow::Borrowed("null"),
                Some(t) => {
                    let t = t.get(trim..).unwrap_or(&t);
                    Cow::Owned(super::table::visible(t).into_owned())
                }
            })
            .collect();
        parts.join(" ")
    }
}

/// The length of the date (`2026-11-21T`) that every time text of `cells` starts with, when
/// they all have the same one (nulls aside); else 0.
fn common_date<'v>(cells: impl Iterator<Item = &'v Value<'v>>) -> usize {
    const DATE: usize = "2026-11-21T".len();
    let mut first: Option<String> = None;
    for v in cells {
        let Some(t) = text(v) else { continue };
        let Some(date) = t.get(..DATE).filter(|d| d.ends_with('T')) else {
            return 0;
        };
        match &first {
            None => first = Some(date.to_string()),
            Some(f) if f == date => {}
            Some(_) => return 0,
        }
    }
    if first.is_some() { DATE } else { 0 }
}

/// A number's value, when it has one f64 can hold.
fn number(v: &Value<'_>) -> Option<f64> {
    let f = match v {
        Value::RawNumber(t) => t.parse::<f64>().ok()?,
        Value::Number(d) => d.to_f64()?,
        Value::Float(f) => *f,
        _ => return None,
    };
    f.is_finite().then_some(f)
}

/// A number's value for its bar: as [`number`], but a number beyond f64 (`1e400`) is
/// infinite rather than none.
fn magnitude(v: &Value<'_>) -> Option<f64> {
    match v {
        Value::RawNumber(t) => t.parse::<f64>().ok().filter(|f| !f.is_nan()),
        _ => number(v),
    }
}

/// A column's values as drawn: an infinite value is the largest of its column, so it gets
/// a whole bar, as long as the largest finite magnitude's (or a whole bar alone); its text
/// still says what it is.
fn drawn(mut values: Vec<Option<f64>>) -> Vec<Option<f64>> {
    let largest = values
        .iter()
        .flatten()
        .filter(|f| f.is_finite())
        .fold(0.0f64, |m, f| m.max(f.abs()));
    let full = if largest > 0.0 { largest } else { 1.0 };
    for v in values.iter_mut().flatten() {
        if v.is_infinite() {
            *v = full.copysign(*v);
        }
    }
    values
}

/// The widest text a value is written with before it is shortened.
const SHORT: usize = 12;

/// `text` as written when it is short, else [`num`] of its value.
fn short(text: &str, value: Option<f64>) -> String {
    match value {
        Some(f) if text.width() > SHORT => num(f),
        _ if text.width() > SHORT => cut(text, SHORT),
        _ => text.to_string(),
    }
}

/// A computed number for people: whole numbers below 10^12 in full, others with six
/// significant digits, and very large or small magnitudes as `1.5e30`; at most 12
/// characters.
fn num(f: f64) -> String {
    if !f.is_finite() {
        return String::new();
    }
    let a = f.abs();
    if f == f.trunc() && a < 1e12 {
        return format!("{}", f as i64);
    }
    if (1e-4..1e12).contains(&a) {
        let int_digits = a.log10().floor() as i32 + 1;
        let decimals = (6 - int_digits).clamp(0, 9) as usize;
        let s = format!("{f:.decimals$}");
        let s = if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        };
        return if s == "-0" { "0".to_string() } else { s };
    }
    let s = format!("{f:.2e}");
    match s.split_once('e') {
        Some((m, e)) => {
            let m = if m.contains('.') {
                m.trim_end_matches('0').trim_end_matches('.')
            } else {
                m
            };
            format!("{m}e{e}")
        }
        None => s,
    }
}

/// A value's `text` in at most `width` columns: as it is when it fits, else its number
/// ([`num`], then with fewer and fewer digits in exponent form: `1.0013e5`, `1e5`), never
/// cut into a different-looking number; only what has no number is cut with `…`.
fn within(text: &str, value: Option<f64>, width: usize) -> Cow<'_, str> {
    if text.width() <= width {
        return Cow::Borrowed(text);
    }
    if let Some(f) = value.filter(|f| f.is_finite()) {
        let shorter = std::iter::once(num(f)).chain((0..=4).rev().map(|digits| {
            let s = format!("{f:.digits$e}");
            match s.split_once('e') {
                Some((m, e)) if m.contains('.') => {
                    format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.'))
                }
                _ => s,
            }
        }));
        for s in shorter {
            if s.width() <= width {
                return Cow::Owned(s);
            }
        }
    }
    Cow::Owned(cut(text, width))
}

/// How a column of a time histogram merges its buckets, said in the title.
fn merge_word(role: Option<ColumnRole>) -> &'static str {
    match role {
        Some(ColumnRole::Aggregate(AggKind::Count | AggKind::Sum)) => "summed",
        Some(ColumnRole::Aggregate(AggKind::Min)) => "the smallest",
        Some(ColumnRole::Aggregate(AggKind::Max)) => "the largest",
        _ => "the largest of its buckets",
    }
}

/// Whether colour is on.
struct Ink {
    color: bool,
}

/// One line of a chart: runs of text, some with a colour, never wider than its width.
#[derive(Debug)]
struct Line {
    runs: Vec<(Option<&'static str>, String)>,
    used: usize,
    width: usize,
}

impl Line {
    fn new(width: usize) -> Line {
        Line {
            runs: Vec::new(),
            used: 0,
            width,
        }
    }

    /// Append `text` (cut at the width) in `style`.
    fn push(&mut self, style: Option<&'static str>, text: &str) {
        let room = self.width - self.used;
        let w = text.width();
        let text = if w <= room {
            self.used += w;
            text.to_string()
        } else {
            let mut kept = String::new();
            for c in text.chars() {
                let cw = c.width().unwrap_or(0);
                if self.used + cw > self.width {
                    break;
                }
                self.used += cw;
                kept.push(c);
            }
            kept
        };
        match self.runs.last_mut() {
            Some((s, t)) if *s == style => t.push_str(&text),
            _ => self.runs.push((style, text)),
        }
    }

    fn plain(&mut self, text: &str) {
        self.push(None, text);
    }

    /// Spaces up to column `col`.
    fn pad_to(&mut self, col: usize) {
        if col > self.used {
            let spaces = " ".repeat(col - self.used);
            self.plain(&spaces);
        }
    }

    /// The line with its newline, trailing blanks trimmed; colour around non-blank runs.
    fn write(mut self, ink: &Ink, out: &mut String) {
        while let Some((_, t)) = self.runs.last_mut() {
            let trimmed = t.trim_end().len();
            t.truncate(trimmed);
            if t.is_empty() {
                self.runs.pop();
            } else {
                break;
            }
        }
        for (style, text) in &self.runs {
            match style {
                Some(style) if ink.color => paint(style, text, out),
                _ => out.push_str(text),
            }
        }
        out.push('\n');
    }
}

/// The colours of numeric columns, in turn.
const SERIES: [&str; 4] = [
    Palette::NUMBER,
    Palette::BOOL,
    Palette::STRING,
    Palette::KEY,
];

#[cfg(test)]
mod tests;
