//! The time histogram: the first column a `time()` bucket, the others numbers.
//!
//! ```text
//! count(*) per 1m, 2026-11-21 10:00 to 11:59 UTC; each column 2m, summed   <- title
//! 1234 ┤        █                                                          <- a panel per
//!      │     ▃  █▅                                                            numeric column,
//!      │ ▁▂▄▆██▇███▃▂▁                                                        one under another
//!    0 └┬───────┬───────┬──                                                <- time axis
//!       10:00   10:30   11:00                                              <- time labels
//! ```
//!
//! Buckets: each row's bucket is read back from its RFC 3339 text; bucket `i` is
//! `round((t - first) / d)` (exact for buckets counted from the epoch; rounding absorbs a day
//! of 23 or 25 hours in a `--tz` zone). Every bucket from the first to the last is a column,
//! the missing ones zero. When there are more buckets than plot columns, `k` consecutive
//! buckets make one column: `k` is the smallest between `ceil(n / columns)` and twice that
//! which makes a column a round duration (5m, 1h...; else `ceil(n / columns)` itself), and
//! columns start where `time(t, k*d)` would (so a column is a whole 5 minutes, not minutes
//! 3 to 7); when that start leaves too many columns, `k` is the next round duration (else
//! one more). The value axis'
//! labels take room from the plot and depend on the merged values, so the layout starts
//! with a gutter of one and widens it until its labels fit (a label is at most 12 wide). A merged column is the sum of its
//! buckets for `count` and `sum`, the smallest for `min`, the largest for `max`, and the
//! largest of its buckets for anything else (`avg`, `percentile`, `count_distinct`, a
//! computed column): an average of averages would need the counts; the peak is what an
//! incident needs to see. The title says which. Fewer buckets than columns: each bucket
//! is up to 8 cells wide.
//!
//! Heights are in eighths of a row (`▁▂▃▄▅▆▇█`), scaled to the largest value of the panel;
//! a value above zero always shows at least one eighth. Negative values grow down from the
//! zero line in half rows (`▀`), on the same scale as those above it (the rows are shared
//! by [`super::bars::split`], as bars share their cells); the value axis marks the row the
//! largest value reaches (the top row, but for part of a row left over; `0` when every
//! value is below zero), the first row below zero (`0`) and the row the smallest reaches
//! (the bottom row, but for part of a row); the time axis' corner says `0` only when it is the zero line (no value of the
//! last panel below zero). Rows with a null bucket are counted in the title, not
//! drawn. A label marks the column in which a step starts, as `time(t, step)` counts but
//! for steps of days in a zone, which start at a local midnight whatever their length, and
//! names that start; the step is the smallest round one whose labels do not touch. Columns
//! of a day or a week in a zone are local calendar days, of 23 or 25 hours across a change
//! of the clocks, as `time()` makes them.

use ndq_query::{ColumnRole, Value};
use unicode_width::UnicodeWidthStr as _;

use super::bars::{scaled, split};
use super::{Line, SERIES, Series, Spec, Table, cut, merge_word, num};
use crate::output::color::Palette;

const SECOND: i128 = 1_000_000_000;
const MINUTE: i128 = 60 * SECOND;
const HOUR: i128 = 60 * MINUTE;
const DAY: i128 = 24 * HOUR;

/// Durations a merged column or a label step may take: each at most twice the one before
/// (so that a column of a round duration always fits between `ceil(n / columns)` buckets
/// and twice that), up to ten years of 364 days.
pub(super) const ROUND: [i128; 42] = [
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    SECOND,
    2 * SECOND,
    5 * SECOND,
    10 * SECOND,
    15 * SECOND,
    30 * SECOND,
    MINUTE,
    2 * MINUTE,
    5 * MINUTE,
    10 * MINUTE,
    15 * MINUTE,
    20 * MINUTE,
    30 * MINUTE,
    HOUR,
    2 * HOUR,
    3 * HOUR,
    4 * HOUR,
    6 * HOUR,
    12 * HOUR,
    DAY,
    2 * DAY,
    4 * DAY,
    7 * DAY,
    14 * DAY,
    28 * DAY,
    56 * DAY,
    91 * DAY,
    182 * DAY,
    364 * DAY,
    728 * DAY,
    1092 * DAY,
    1820 * DAY,
    3640 * DAY,
];

const EIGHTHS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The histogram's lines, or `None` when the rows are not a time series (the first column
/// not a bucket, another label column, no numeric column, or no row with a time).
pub(super) fn draw(
    table: &Table,
    rows: &[Vec<Value<'_>>],
    spec: &Spec,
    width: usize,
    height: usize,
) -> Option<Vec<Line>> {
    let Some(ColumnRole::Bucket(d)) = spec.roles.first().copied() else {
        return None;
    };
    if table.labels != [0] || table.series.is_empty() {
        return None;
    }
    // (time, row) of every row with a readable bucket.
    let mut times: Vec<(i128, usize)> = Vec::with_capacity(rows.len());
    let mut timeless = 0;
    for (r, row) in rows.iter().enumerate() {
        let t = match row.first() {
            Some(Value::String(s) | Value::RawString(s)) => {
                ndq_query::parse_bound(s, 0, &ndq_query::Zone::utc()).ok()
            }
            _ => None,
        };
        match t {
            Some(t) => times.push((t, r)),
            None => timeless += 1,
        }
    }
    let first = times.iter().map(|&(t, _)| t).min()?;
    let last = times.iter().map(|&(t, _)| t).max()?;
    let index = |t: i128| div_round(t - first, d);
    let n = index(last) + 1;

    // The gutter holds the value axis' labels, which depend on the merged values, which
    // depend on the room left by the gutter: start narrow, widen until it holds (a few
    // rounds at most: a label is at most 12 wide).
    let mut gutter = 1;
    let (columns, panels) = loop {
        let plot = width.saturating_sub(gutter + 2).max(1);
        let (k, offset) = merge_factor(n, plot as i128, d, first, spec);
        let base = first - offset * d;
        // A bucket's column: its index when each is one, else as `time(t, k*d)` counts.
        let group = |t: i128| {
            let g = if k == 1 {
                index(t)
            } else {
                column_of(spec, t, base, k * d)
            };
            usize::try_from(g).unwrap_or(usize::MAX)
        };
        let groups = group(last).saturating_add(1).min(plot);
        let cell_w = if k == 1 {
            (plot / groups.max(1)).clamp(1, 8)
        } else {
            1
        };
        let columns = Columns {
            k,
            offset,
            groups,
            cell_w,
        };
        let panels: Vec<Panel> = table
            .series
            .iter()
            .map(|s| {
                let values = merge(s, &times, groups, group);
                let vals = values.iter().flatten();
                let hi = vals.clone().fold(0.0f64, |m, &v| m.max(v));
                let lo = vals.fold(0.0f64, |m, &v| m.min(v));
                let labels = (num(hi), if lo < 0.0 { num(lo) } else { String::new() });
                Panel {
                    values,
                    extremes: (hi, lo),
                    labels,
                }
            })
            .collect();
        let need = panels
            .iter()
            .map(|p| p.labels.0.width().max(p.labels.1.width()))
            .max()
            .unwrap_or(1)
            .max(1);
        if need <= gutter {
            break (columns, panels);
        }
        gutter = need;
    };
    let Columns {
        k, groups, cell_w, ..
    } = columns;
    let plot_x = gutter + 2;

    let mut lines = Vec::new();
    let many = table.series.len() > 1;
    // The title: what, per what, when; then how columns merge and what was left out, on a
    // line of its own when the whole does not fit (and the height allows).
    let mut what = String::new();
    if !many {
        what.push_str(&table.series[0].name);
        what.push(' ');
    }
    what.push_str(&format!("per {}", duration(d)));
    let words = format!("{what}, {}", span(spec, first, last, d));
    let mut notes = Vec::new();
    if k > 1 {
        let mut note = format!("each column {}", duration(k * d));
        if !many {
            note.push_str(&format!(", {}", merge_word(table.series[0].role)));
        }
        notes.push(note);
    }
    if timeless > 0 {
        let rows = if timeless == 1 { "row" } else { "rows" };
        notes.push(format!("{timeless} {rows} without a time not drawn"));
    }
    let notes = notes.join("; ");
    let one = if notes.is_empty() {
        words.clone()
    } else {
        format!("{words}; {notes}")
    };
    let titles = if one.width() <= width || notes.is_empty() {
        vec![one]
    } else if height >= 8 {
        vec![words, notes]
    } else {
        // One line, too short for both: what a column holds matters more than the span,
        // which the time axis shows.
        let without_span = format!("{what}; {notes}");
        vec![if without_span.width() <= width {
            without_span
        } else {
            one
        }]
    };
    for text in &titles {
        let mut title = Line::new(width);
        title.push(Some(Palette::HEADER), &cut(text, width));
        lines.push(title);
    }

    // Rows for the panels: what is left after the title and the two axis lines.
    let avail = height.saturating_sub(2 + titles.len()).max(1);
    let name_lines = usize::from(many);
    let mut shown = table.series.len();
    while shown > 1 && (avail / shown).saturating_sub(name_lines) < 2 {
        shown -= 1;
    }
    let per_panel = (avail / shown).saturating_sub(name_lines).max(1);
    for (p, series) in table.series.iter().enumerate().take(shown) {
        if many {
            let mut name = Line::new(width);
            let mut text = series.name.clone();
            if k > 1 {
                text.push_str(&format!(" ({})", merge_word(series.role)));
            }
            if p == shown - 1 && shown < table.series.len() {
                let left = table.series.len() - shown;
                text.push_str(&format!(" [{left} more not drawn: too few lines]"));
            }
            name.push(Some(Palette::HEADER), &cut(&text, width));
            lines.push(name);
        }
        panel(
            &mut lines,
            &panels[p],
            Geometry {
                width,
                gutter,
                plot_x,
                rows: per_panel,
                cell_w,
            },
            SERIES[p % SERIES.len()],
        );
    }
    let ticks = ticks(spec, first, d, columns, width - plot_x);
    // The corner is the bottom of the last panel: zero unless that panel goes below it.
    let bottom = panels
        .get(shown - 1)
        .map_or("0", |p| if p.extremes.1 < 0.0 { "" } else { "0" });
    let mut axis = Line::new(width);
    axis.push(Some(Palette::NULL), &format!("{bottom:>gutter$} └"));
    let mut rule: Vec<char> = vec!['─'; groups.saturating_mul(cell_w).min(width - plot_x)];
    for (x, _) in &ticks {
        if let Some(c) = rule.get_mut(*x) {
            *c = '┬';
        }
    }
    axis.push(Some(Palette::NULL), &rule.into_iter().collect::<String>());
    lines.push(axis);
    let mut labels = Line::new(width);
    for (x, text) in &ticks {
        labels.pad_to(plot_x + x);
        labels.plain(text);
    }
    lines.push(labels);
    Some(lines)
}

/// How the buckets make columns for a gutter: `k` buckets a column, the first column
/// starting `offset` buckets before the first bucket; `groups` columns, each `cell_w` cells
/// wide.
#[derive(Clone, Copy)]
struct Columns {
    k: i128,
    offset: i128,
    groups: usize,
    cell_w: usize,
}

/// One series as drawn: its columns' merged values, its largest and smallest value (zero
/// included), and the value axis' labels for them (the smallest's empty when not below zero).
struct Panel {
    values: Vec<Option<f64>>,
    extremes: (f64, f64),
    labels: (String, String),
}

/// The sizes a panel is drawn with.
struct Geometry {
    width: usize,
    gutter: usize,
    plot_x: usize,
    rows: usize,
    cell_w: usize,
}

/// One panel: `g.rows` lines of columns growing up (and down below zero).
fn panel(lines: &mut Vec<Line>, p: &Panel, g: Geometry, style: &'static str) {
    let (hi, lo) = p.extremes;
    let (hi_label, lo_label) = &p.labels;
    let values = &p.values;
    let neg = lo < 0.0;
    // Rows above and below the zero line, on one scale for both.
    let sides = split(g.rows, -lo, hi);
    let (up, down) = (sides.pos_cells, sides.neg_cells);
    let bar_w = if g.cell_w >= 3 {
        g.cell_w - 1
    } else {
        g.cell_w
    };
    let heights: Vec<usize> = values
        .iter()
        .map(|v| v.map_or(0, |v| scaled(v, sides.pos_full, up * 8)))
        .collect();
    let depths: Vec<usize> = values
        .iter()
        .map(|v| v.map_or(0, |v| scaled(-v, sides.neg_full, down * 2)))
        .collect();
    // The side not filled by its largest value has part of a row to spare: the extremes'
    // labels go on the rows their columns reach (the top row, the bottom row otherwise).
    let reach = heights.iter().max().map_or(0, |h| h.div_ceil(8)).min(up);
    let top = if reach == 0 { 0 } else { up - reach };
    let bottom = (up + depths.iter().max().map_or(0, |d| d.div_ceil(2)))
        .saturating_sub(1)
        .max(up);
    for row in 0..up + down {
        let mut line = Line::new(g.width);
        let (label, mark) = match row {
            // The largest value's row; zero when none is above it.
            r if r == top => (hi_label.as_str(), '┤'),
            r if neg && r == bottom => (lo_label.as_str(), '┤'),
            // The row whose top edge is zero, as the top row's is the largest value.
            r if neg && r == up && up > 0 => ("0", '┤'),
            _ => ("", '│'),
        };
        line.push(
            Some(Palette::NULL),
            &format!("{label:>w$} {mark}", w = g.gutter),
        );
        line.pad_to(g.plot_x);
        let mut cells = String::new();
        for (&h, &dp) in heights.iter().zip(&depths) {
            let c = if row < up {
                // Eighths filled in this row, counted from its bottom.
                let from_bottom = up - 1 - row;
                EIGHTHS[h.saturating_sub(from_bottom * 8).min(8)]
            } else {
                let from_top = row - up;
                match dp.saturating_sub(from_top * 2).min(2) {
                    0 => ' ',
                    1 => '▀',
                    _ => '█',
                }
            };
            for _ in 0..bar_w {
                cells.push(c);
            }
            for _ in bar_w..g.cell_w {
                cells.push(' ');
            }
        }
        line.push(Some(style), &cells);
        lines.push(line);
    }
}

/// The merged values of one series: `groups` columns, `group(t)` the column of time `t`.
fn merge(
    series: &Series,
    times: &[(i128, usize)],
    groups: usize,
    group: impl Fn(i128) -> usize,
) -> Vec<Option<f64>> {
    use ndq_query::AggKind::*;
    let mut out: Vec<Option<f64>> = vec![None; groups];
    let sums = matches!(series.role, Some(ColumnRole::Aggregate(Count | Sum)));
    for &(t, r) in times {
        let Some(v) = series.values[r] else {
            continue;
        };
        let Some(slot) = out.get_mut(group(t)) else {
            continue;
        };
        *slot = Some(match (*slot, series.role) {
            (None, _) => v,
            (Some(a), _) if sums => a + v,
            (Some(a), Some(ColumnRole::Aggregate(Min))) => a.min(v),
            (Some(a), _) => a.max(v),
        });
    }
    out
}

/// How many buckets make a column (`k`), and how many buckets before the first a column
/// starts (`offset`), for `n` buckets of `d` in `plot` columns.
pub(super) fn merge_factor(n: i128, plot: i128, d: i128, first: i128, spec: &Spec) -> (i128, i128) {
    if n <= plot {
        return (1, 0);
    }
    let least = (n + plot - 1) / plot;
    // The round durations from `least` buckets on (the second one at most four times
    // `least`: each is at most twice the one before), then, for a bucket that no round
    // duration near them is a multiple of, any factor from `least` on.
    let round = ROUND
        .iter()
        .filter(|&&r| r % d == 0 && r / d >= least && r / d <= 4 * least)
        .map(|&r| r / d);
    // The middle of the last bucket: its column, even where a zone's days of 23 or 25 hours
    // moved where local days start.
    let last = first + (n - 1) * d + d / 2;
    for k in round.chain(least..) {
        let offset = spec
            .zone
            .bucket_start(first, k * d)
            .map_or(0, |start| div_round(first - start, d).clamp(0, k - 1));
        if column_of(spec, last, first - offset * d, k * d) < plot {
            return (k, offset);
        }
    }
    (n, 0)
}

/// The column of instant `t` when columns of `col` start at `base` and go on as
/// `time(t, col)` counts (a day or a week in a zone: local days, of 23 or 25 hours too).
fn column_of(spec: &Spec, t: i128, base: i128, col: i128) -> i128 {
    match spec.zone.bucket_start(t, col) {
        Some(start) => div_round(start - base, col),
        None => (t - base).div_euclid(col),
    }
}

/// Where column `g` starts: as `time(t, col)` counts from `base`, so on a local midnight
/// after a change of the clocks as before it.
fn column_start(spec: &Spec, g: usize, base: i128, col: i128) -> i128 {
    let linear = base + g as i128 * col;
    spec.zone
        .bucket_start(linear + col / 2, col)
        .unwrap_or(linear)
}

/// Where labels go: (x in the plot, text), not touching.
fn ticks(spec: &Spec, first: i128, d: i128, columns: Columns, room: usize) -> Vec<(usize, String)> {
    let Columns {
        k,
        offset,
        groups,
        cell_w,
    } = columns;
    let col = k * d;
    let base = first - offset * d;
    // Where each column starts, and the end of the last.
    let starts: Vec<i128> = (0..=groups)
        .map(|g| column_start(spec, g, base, col))
        .collect();
    let plot_w = (groups * cell_w).min(room);
    let year = |t| spec.zone.strftime(t, "%Y");
    let years = year(first) != year(starts[groups.saturating_sub(1)]);
    let steps = ROUND
        .iter()
        .copied()
        .filter(|&s| s >= col && s % col == 0)
        .chain((2..).map(|m| col * m * 10).take(20));
    for step in steps {
        let format = label_format(step, years);
        let label_w = spec.zone.strftime(first, format).map_or(5, |s| s.width());
        let gap = (step / col) as usize * cell_w;
        if gap < label_w + 2 {
            continue;
        }
        let mut out: Vec<(usize, String)> = Vec::new();
        let mut free = 0;
        for g in 0..groups {
            let x = g * cell_w;
            if x < free || x + label_w > plot_w.max(label_w) {
                continue;
            }
            // The last start of a step within the column, a local midnight for steps of
            // days in a zone: the label marks the column it falls in and names it.
            let Some(t) = spec.zone.calendar_start(starts[g + 1] - 1, step) else {
                continue;
            };
            if t >= starts[g]
                && let Some(text) = spec.zone.strftime(t, format)
            {
                free = x + text.width() + 2;
                out.push((x, text));
            }
        }
        if out.len() >= 2 || (out.len() == 1 && groups * cell_w < 2 * gap) {
            return out;
        }
        // Nothing aligned (a zone's long or short day): evenly spaced from the first column.
        let every = (gap / cell_w).max(1);
        let mut even = Vec::new();
        for g in (0..groups).step_by(every) {
            let x = g * cell_w;
            if x + label_w <= plot_w.max(label_w)
                && let Some(text) = spec.zone.strftime(starts[g], format)
            {
                even.push((x, text));
            }
        }
        return even;
    }
    Vec::new()
}

/// The strftime format of a label `step` apart; with the year when labels are weeks apart or
/// more, or a day or more apart over more than one year (`12-29` then `12-28` would read
/// backwards).
fn label_format(step: i128, years: bool) -> &'static str {
    if step < DAY {
        time_of_day(step)
    } else if step >= 28 * DAY || years {
        "%Y-%m-%d"
    } else {
        "%m-%d"
    }
}

/// The strftime format of a time of day `step` (under a day) apart: to the minute, the
/// second, or the fraction of a second the step needs (`10:00:00.5` for steps of 100 ms and
/// more, `10:00:00.25` of 10 ms, else milliseconds).
fn time_of_day(step: i128) -> &'static str {
    if step >= MINUTE {
        "%H:%M"
    } else if step >= SECOND {
        "%H:%M:%S"
    } else if step % (SECOND / 10) == 0 {
        "%H:%M:%S%.1f"
    } else if step % (SECOND / 100) == 0 {
        "%H:%M:%S%.2f"
    } else {
        "%H:%M:%S%.3f"
    }
}

/// "2026-11-21 10:00 to 11:59 UTC"; the zone's name after each end when the clocks changed
/// between them ("2026-03-01 to 2026-04-15 CET to CEST" would read as one zone, so:
/// "2026-03-01 CET to 2026-04-15 CEST").
fn span(spec: &Spec, first: i128, last: i128, d: i128) -> String {
    let time = if d < DAY { time_of_day(d) } else { "%Y-%m-%d" };
    let date = if d < DAY {
        format!("%Y-%m-%d {time}")
    } else {
        time.to_string()
    };
    let z = |t, f: &str| spec.zone.strftime(t, f).unwrap_or_default();
    let end = if z(first, "%Y-%m-%d") == z(last, "%Y-%m-%d") {
        z(last, time)
    } else {
        z(last, &date)
    };
    let (tz, tz_last) = (z(first, "%Z"), z(last, "%Z"));
    if first == last {
        format!("{} {tz}", z(first, &date))
    } else if tz != tz_last {
        format!("{} {tz} to {end} {tz_last}", z(first, &date))
    } else {
        format!("{} to {end} {tz}", z(first, &date))
    }
}

/// A duration as the language writes it: `1m`, `90s`, `1h`, `7d`, `250ms`.
pub(super) fn duration(ns: i128) -> String {
    for (unit, size) in [("d", DAY), ("h", HOUR), ("m", MINUTE), ("s", SECOND)] {
        if ns % size == 0 {
            return format!("{}{unit}", ns / size);
        }
    }
    if ns % 1_000_000 == 0 {
        format!("{}ms", ns / 1_000_000)
    } else if ns % 1000 == 0 {
        format!("{}us", ns / 1000)
    } else {
        format!("{ns}ns")
    }
}

/// `a / b` rounded to the nearest (b > 0).
pub(super) fn div_round(a: i128, b: i128) -> i128 {
    (a + b / 2).div_euclid(b)
}
