//! Horizontal bars: a header line, then one line per row (as many as the height allows, the
//! last lines saying how many more rows there are and how many columns were left out).
//!
//! ```text
//! label (≤ a third of the width, cut with …) | column 1's area | 2 spaces | column 2's area ...
//! area = bar cells, a space, the value (as wide as the column's widest value)
//! ```
//!
//! A bar's length is `value / largest value of its column` of the bar cells, in eighths of a
//! cell (`▏▎▍▌▋▊▉█`); a value above zero always gets at least one eighth, so it never looks
//! like a zero. A column holding negative numbers splits its cells at a `│` axis ([`split`]:
//! one scale for both sides, so equal magnitudes get equal bars): negative bars grow left
//! from it in half cells (`▐`, the only right-aligned partial block; a value below zero
//! always gets at least one), and the values are right-aligned after the area.
//! Null gets no bar and is written `null`; a number beyond f64 (`1e400`) gets a whole bar
//! ([`super::drawn`]) and is written as it is.
//!
//! The columns share the width equally; as many are drawn as can each hold their widest
//! value, a space and a bar of one cell (three with an axis), the first always, and a last
//! line says how many more are not drawn. A value is never cut: a lone column short of room
//! writes its numbers shorter ([`super::within`]).

use super::{Line, SERIES, Series, Table, cut, within};
use unicode_width::UnicodeWidthStr as _;

use crate::output::color::Palette;

const EIGHTHS: [char; 8] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];

/// The lines of the bar chart.
pub(super) fn draw(
    table: &Table,
    rows: &[Vec<ndq_query::Value<'_>>],
    width: usize,
    height: usize,
) -> Vec<Line> {
    let n = rows.len();
    let labels: Vec<String> = (0..n).map(|r| table.label(rows, r)).collect();
    let label_head = table
        .labels
        .iter()
        .map(|&i| table.names[i].as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let label_w = if table.labels.is_empty() {
        0
    } else {
        labels
            .iter()
            .map(|l| l.width())
            .chain([label_head.width()])
            .max()
            .unwrap_or(0)
            .min(width / 3)
    };
    let start = if label_w > 0 { label_w + 1 } else { 0 };
    let rest = width - start;
    let area_of = |m: usize| {
        rest.saturating_sub(2 * m.saturating_sub(1))
            .checked_div(m)
            .map_or(0, |a| a.max(1))
    };
    // As many columns as can each hold their widest value and a bar; the first one always.
    let mut m = table.series.len();
    while m > 1 && table.series[..m].iter().any(|s| need(s) > area_of(m)) {
        m -= 1;
    }
    let left_out = table.series.len() - m;
    let area = area_of(m);
    let layouts: Vec<Area> = table
        .series
        .iter()
        .take(m)
        .enumerate()
        .map(|(s, series)| Area::new(series, start + s * (area + 2), area))
        .collect();

    let mut lines = Vec::new();
    let mut head = Line::new(width);
    head.push(Some(Palette::HEADER), &cut(&label_head, label_w));
    for (a, series) in layouts.iter().zip(&table.series) {
        head.pad_to(a.start);
        head.push(Some(Palette::HEADER), &cut(&series.name, area));
    }
    lines.push(head);
    let not_drawn = (left_out > 0).then(|| format!("[{left_out} more not drawn: too few columns]"));
    if n == 0 {
        let mut line = Line::new(width);
        line.push(Some(Palette::NULL), "(no rows)");
        lines.push(line);
        if let Some(note) = not_drawn {
            let mut line = Line::new(width);
            line.push(Some(Palette::NULL), &cut(&note, width));
            lines.push(line);
        }
        return lines;
    }
    // The last lines say what is left out: rows, then columns.
    let room = height - 1 - usize::from(not_drawn.is_some());
    let shown = if n > room { room - 1 } else { n };
    for (r, label) in labels.iter().enumerate().take(shown) {
        let mut line = Line::new(width);
        line.plain(&cut(label, label_w));
        for (s, (a, series)) in layouts.iter().zip(&table.series).enumerate() {
            line.pad_to(a.start);
            a.bar(
                &mut line,
                series.values[r],
                &series.texts[r],
                SERIES[s % SERIES.len()],
            );
        }
        lines.push(line);
    }
    let mut notes = Vec::new();
    if shown < n {
        let more = n - shown;
        let what = if more == 1 { "row" } else { "rows" };
        notes.push(format!("… {more} more {what}"));
    }
    notes.extend(not_drawn);
    for note in notes {
        let mut line = Line::new(width);
        line.push(Some(Palette::NULL), &cut(&note, width));
        lines.push(line);
    }
    lines
}

/// The widest of a column's values as written.
fn widest(series: &Series) -> usize {
    series.texts.iter().map(|t| t.width()).max().unwrap_or(0)
}

/// The bar cells a column needs at least: one, three with an axis (a cell each side).
fn least_cells(series: &Series) -> usize {
    if series.values.iter().flatten().any(|&v| v < 0.0) {
        3
    } else {
        1
    }
}

/// The area a column needs: its widest value, a space and its least bar.
fn need(series: &Series) -> usize {
    widest(series) + 1 + least_cells(series)
}

/// Where one numeric column is drawn.
#[derive(Debug)]
struct Area {
    start: usize,
    /// Width of the value texts.
    text_w: usize,
    /// Cells left of the axis (0: no negative values, no axis).
    neg_cells: usize,
    /// Cells right of the axis (or of the start).
    pos_cells: usize,
    /// The values a whole side stands for ([`Split`]).
    neg_full: f64,
    pos_full: f64,
}

impl Area {
    fn new(series: &Series, start: usize, area: usize) -> Area {
        // Short of room (a lone column in a narrow chart), the values are written shorter.
        let text_w = widest(series).min(area.saturating_sub(1 + least_cells(series)).max(1));
        let finite = series.values.iter().flatten();
        let pos_max = finite.clone().fold(0.0f64, |m, &v| m.max(v));
        let neg_max = finite.fold(0.0f64, |m, &v| m.max(-v));
        let cells = area.saturating_sub(text_w + 1);
        let sides = if neg_max > 0.0 && cells >= 2 {
            // One cell for the axis, the rest shared.
            split(cells - 1, neg_max, pos_max)
        } else {
            split(cells, 0.0, pos_max)
        };
        Area {
            start,
            text_w,
            neg_cells: sides.neg_cells,
            pos_cells: sides.pos_cells,
            neg_full: sides.neg_full,
            pos_full: sides.pos_full,
        }
    }

    /// Draw one value's bar and text.
    fn bar(&self, line: &mut Line, value: Option<f64>, text: &str, style: &'static str) {
        let text = within(text, value, self.text_w);
        let axis = self.neg_cells > 0;
        if axis {
            let mut left = String::new();
            if let Some(v) = value.filter(|v| *v < 0.0) {
                let halves = scaled(-v, self.neg_full, self.neg_cells * 2);
                let (full, half) = (halves / 2, halves % 2);
                left.push_str(&" ".repeat(self.neg_cells - full - half));
                line.plain(&left);
                if half == 1 {
                    line.push(Some(style), "▐");
                }
                line.push(Some(style), &"█".repeat(full));
            } else {
                line.plain(&" ".repeat(self.neg_cells));
            }
            line.push(Some(Palette::NULL), "│");
        }
        let mut drawn = 0;
        if let Some(v) = value.filter(|v| *v > 0.0) {
            let eighths = scaled(v, self.pos_full, self.pos_cells * 8);
            let (full, part) = (eighths / 8, eighths % 8);
            let mut bar = "█".repeat(full);
            if part > 0 {
                bar.push(EIGHTHS[part - 1]);
            }
            drawn = full + usize::from(part > 0);
            line.push(Some(style), &bar);
        }
        let value_style = if value.is_none() {
            Some(Palette::NULL)
        } else {
            None
        };
        if axis {
            // Right-aligned after the whole area.
            let end = self.start + self.neg_cells + 1 + self.pos_cells + 1 + self.text_w;
            line.pad_to(end - text.width());
        } else {
            line.pad_to(self.start + drawn + usize::from(drawn > 0));
        }
        line.push(value_style, &text);
    }
}

/// `v` of `max` in `steps` steps, rounded, at least one step for a value above zero.
pub(super) fn scaled(v: f64, max: f64, steps: usize) -> usize {
    // (NaN fails both comparisons.)
    if v.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        || max.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        || steps == 0
    {
        return 0;
    }
    let s = (v / max * steps as f64).round() as usize;
    s.clamp(1, steps)
}

/// Cells (or rows) shared between values below zero and above it, on one scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Split {
    /// Cells for the values below zero.
    pub(super) neg_cells: usize,
    /// Cells for the values above zero.
    pub(super) pos_cells: usize,
    /// The magnitude all of `neg_cells` stands for.
    pub(super) neg_full: f64,
    /// The magnitude all of `pos_cells` stands for.
    pub(super) pos_full: f64,
}

/// `total` cells shared between the side below zero (largest magnitude `neg`) and the side
/// above it (`pos`), each side with a value getting at least one cell (all go below zero
/// when there is only one), with one scale for both: a cell stands for the same value on
/// either side, as small a value as the split allows.
///
/// ```text
/// a cell is worth  max(neg / neg_cells, pos / pos_cells),  pos_cells = total - neg_cells
/// the first falls and the second grows with neg_cells: the least is where they cross,
///   neg_cells = total * neg / (neg + pos)  ->  its floor or its ceiling (the ceiling on a tie)
/// the side worth more per cell fills its cells; the other's full length is worth
///   its cells times that (a part of a cell is left over on that side)
/// ```
pub(super) fn split(total: usize, neg: f64, pos: f64) -> Split {
    // (NaN is taken as zero.)
    let pos = if pos > 0.0 { pos } else { 0.0 };
    let neg = if neg > 0.0 { neg } else { 0.0 };
    if neg == 0.0 || total == 0 {
        return Split {
            neg_cells: 0,
            pos_cells: total,
            neg_full: 0.0,
            pos_full: pos,
        };
    }
    if pos == 0.0 || total == 1 {
        return Split {
            neg_cells: total,
            pos_cells: 0,
            neg_full: neg,
            pos_full: 0.0,
        };
    }
    let worth = |n: usize| (neg / n as f64).max(pos / (total - n) as f64);
    // The share first, of halves: near the largest float, the sum of two magnitudes or a
    // magnitude times the cells would be infinite.
    let cross = total as f64 * ((neg / 2.0) / (neg / 2.0 + pos / 2.0));
    let floor = (cross.floor() as usize).clamp(1, total - 1);
    let ceil = (cross.ceil() as usize).clamp(1, total - 1);
    let n = if worth(ceil) <= worth(floor) {
        ceil
    } else {
        floor
    };
    let (neg_cells, pos_cells) = (n, total - n);
    // (A full length past the largest float, by less than a cell's worth, is taken as it.)
    let (neg_full, pos_full) = if neg / neg_cells as f64 >= pos / pos_cells as f64 {
        (
            neg,
            (neg / neg_cells as f64 * pos_cells as f64).min(f64::MAX),
        )
    } else {
        (
            (pos / pos_cells as f64 * neg_cells as f64).min(f64::MAX),
            pos,
        )
    };
    Split {
        neg_cells,
        pos_cells,
        neg_full,
        pos_full,
    }
}
