//! The layout's rules, and a property: whatever the rows, no line is wider than the width
//! and there are no more lines than the height.

use super::*;
use crate::output::color::strip;
use proptest::prelude::*;

const MINUTE: i128 = 60_000_000_000;

fn spec(query: &str, width: usize, height: usize) -> Spec {
    Spec::new(
        &Plan::compile(query).unwrap(),
        Size::Fixed { width, height },
    )
}

fn s(text: &str) -> Value<'static> {
    Value::String(text.to_string().into())
}

fn n(text: &str) -> Value<'static> {
    Value::RawNumber(text.to_string().into())
}

fn draw(query: &str, rows: &[Vec<Value<'_>>], width: usize, height: usize) -> String {
    let plan = Plan::compile(query).unwrap();
    render(plan.columns(), rows, &spec(query, width, height), false)
}

/// The chart's lines without their axis and title: the plot cells of a histogram, each
/// line from `from` on.
fn plot(chart: &str, from: usize) -> Vec<String> {
    chart
        .lines()
        .filter(|l| l.contains('┤') || l.contains('│'))
        .map(|l| l.chars().skip(from).collect())
        .collect()
}

#[test]
fn bars_are_scaled_in_eighths_to_the_largest_of_their_column() {
    assert_eq!(bars::scaled(5.0, 10.0, 80), 40);
    assert_eq!(bars::scaled(10.0, 10.0, 80), 80);
    assert_eq!(
        bars::scaled(0.01, 10.0, 80),
        1,
        "above zero: at least one eighth"
    );
    assert_eq!(bars::scaled(0.0, 10.0, 80), 0);
    assert_eq!(bars::scaled(-1.0, 10.0, 80), 0);
    assert_eq!(
        bars::scaled(1.0, 0.0, 80),
        0,
        "an all-zero column draws nothing"
    );
    let q = "select k, count(*) group by k";
    let rows = vec![
        vec![s("a"), n("16")],
        vec![s("b"), n("3")],
        vec![s("c"), n("0")],
    ];
    let chart = draw(q, &rows, 40, 10);
    let lines: Vec<&str> = chart.lines().collect();
    // Width 40: label 1 + space, area 38 = 35 bar cells + space + 2 for the widest value.
    assert_eq!(lines[0], "k count(*)");
    assert_eq!(lines[1], format!("a {} 16", "█".repeat(35)));
    // 3/16 of 35 cells is 6.5625 cells: 52.5 eighths, rounded to 53 = 6 cells and 5/8.
    assert_eq!(lines[2], "b ██████▋ 3");
    assert_eq!(lines[3], "c 0");
}

#[test]
fn long_labels_are_cut_to_a_third_of_the_width() {
    let q = "select k, count(*) group by k";
    let rows = vec![vec![s("a label much longer than a third of forty"), n("1")]];
    let chart = draw(q, &rows, 40, 10);
    let line = chart.lines().nth(1).unwrap();
    assert!(line.starts_with("a label much… █"), "{chart}");
    assert_eq!(cut("中文字", 5), "中文…");
    assert_eq!(cut("abc", 3), "abc");
    assert_eq!(cut("abcd", 0), "");
}

#[test]
fn numbers_are_written_short() {
    assert_eq!(num(1e30), "1e30");
    assert_eq!(num(-1.5e30), "-1.5e30");
    assert_eq!(num(12.5), "12.5");
    assert_eq!(num(1234567.0), "1234567");
    assert_eq!(num(46.413586), "46.4136");
    assert_eq!(num(0.000012), "1.2e-5");
    assert_eq!(num(-0.0), "0");
    assert_eq!(num(2e12), "2e12");
    assert_eq!(short("1000000000000000000000000000000", Some(1e30)), "1e30");
    assert_eq!(
        short("1.50", Some(1.5)),
        "1.50",
        "short text is kept as written"
    );
}

#[test]
fn negatives_grow_left_of_an_axis_and_nulls_have_no_bar() {
    let q = "select k, sum(v) group by k";
    let rows = vec![vec![s("up"), n("4")], vec![s("down"), n("-4")]];
    let chart = draw(q, &rows, 30, 10);
    let lines: Vec<&str> = chart.lines().collect();
    // Area 25: the values 2 wide and a space, 22 cells = 11 left of the axis, 10 right
    // (the magnitudes are equal: half each, the odd cell to the left, left over); values
    // right-aligned.
    assert_eq!(
        lines[1],
        format!("up   {}│{}  4", " ".repeat(11), "█".repeat(10))
    );
    assert_eq!(
        lines[2],
        format!("down  {}│{}-4", "█".repeat(10), " ".repeat(11))
    );
    let rows = vec![vec![s("up"), n("4")], vec![s("none"), Value::Null]];
    let chart = draw(q, &rows, 30, 10);
    let lines: Vec<&str> = chart.lines().collect();
    assert_eq!(lines[1], format!("up   {} 4", "█".repeat(20)));
    assert_eq!(lines[2], "none null");
}

#[test]
fn rows_beyond_the_height_are_counted() {
    let q = "select k, count(*) group by k";
    let rows: Vec<_> = (0..30).map(|i| vec![s(&format!("k{i}")), n("1")]).collect();
    let chart = draw(q, &rows, 40, 10);
    assert_eq!(chart.lines().count(), 10);
    assert_eq!(chart.lines().last(), Some("… 22 more rows"));
}

/// Rows of `select time(1m), count(*) ...` at these minutes past 10:00.
fn minutes(counts: &[(i64, &str)]) -> Vec<Vec<Value<'static>>> {
    counts
        .iter()
        .map(|&(m, c)| {
            let t = format!("2026-11-21T{:02}:{:02}:00Z", 10 + m / 60, m % 60);
            vec![s(&t), n(c)]
        })
        .collect()
}

#[test]
fn missing_buckets_are_drawn_as_zero() {
    let q = "select time(1m), count(*) group by 1";
    let rows = minutes(&[(0, "4"), (5, "8")]);
    let chart = draw(q, &rows, 40, 8);
    // Six buckets, 10:00 to 10:05, 6 cells each (5 drawn, 1 apart) in a plot of 37; the
    // 8 lines are the title, 5 rows, the axis and its labels.
    let cells = plot(&chart, 3);
    assert_eq!(cells.len(), 5, "{chart}");
    let bottom = cells.last().unwrap();
    assert_eq!(
        bottom.trim_end(),
        format!("█████{}█████", " ".repeat(25)),
        "{chart}"
    );
    assert!(chart.starts_with("count(*) per 1m, 2026-11-21 10:00 to 10…\n"));
    assert!(chart.contains("10:00"), "{chart}");
}

#[test]
fn more_buckets_than_columns_are_merged_to_round_durations() {
    use hist::merge_factor;
    let utc = Spec::default();
    let ten = 10 * 60 * MINUTE;
    // 120 minutes in 50 columns: at least 3 a column, 5 is the next round duration.
    assert_eq!(merge_factor(120, 50, MINUTE, ten, &utc), (5, 0));
    // Starting at 10:03, the first column is 10:00-10:04 (three buckets before the first).
    assert_eq!(
        merge_factor(120, 50, MINUTE, ten + 3 * MINUTE, &utc),
        (5, 3)
    );
    assert_eq!(merge_factor(40, 50, MINUTE, ten, &utc), (1, 0));
    // A bucket no round duration is a multiple of: the least factor that fits.
    assert_eq!(merge_factor(100, 10, 7 * MINUTE, 0, &utc), (10, 0));
    // The same a bucket later: ten a column no longer fit in ten columns.
    assert_eq!(merge_factor(100, 10, 7 * MINUTE, 7 * MINUTE, &utc), (11, 1));
    // Long spans of short buckets: a column is a round duration whatever the bucket (700
    // days in 290 columns: 4 days, of seconds or of days; 7 years in 45: 56 days).
    let day = 24 * 60 * MINUTE;
    for d in [MINUTE / 60, MINUTE, 60 * MINUTE, day] {
        let (k, _) = merge_factor(700 * day / d, 290, d, 0, &utc);
        assert_eq!(k * d, 4 * day, "buckets of {}", hist::duration(d));
    }
    let (k, _) = merge_factor(2516 * day / MINUTE, 45, MINUTE, 0, &utc);
    assert_eq!(k * MINUTE, 56 * day);
    // A start that leaves one column too many takes the next round duration, not one bucket
    // more (a year from 2025-12-27 15:00 in hours: 7d would need one more column than 56).
    let first = 1_766_847_600 * (MINUTE / 60);
    for d in [MINUTE / 60, MINUTE, 60 * MINUTE] {
        let n = 9_448 * 60 * MINUTE / d;
        for plot in 40..=70 {
            let (k, offset) = merge_factor(n, plot, d, first, &utc);
            assert!(
                hist::ROUND.contains(&(k * d)),
                "{} in {plot}",
                hist::duration(k * d)
            );
            assert!((offset + n - 1) / k < plot);
        }
    }
    assert_eq!(hist::duration(5 * MINUTE), "5m");
    assert_eq!(hist::duration(1_500_000_000), "1500ms");
    assert_eq!(hist::div_round(-3, 2), -1);
}

#[test]
fn merged_columns_sum_counts_and_keep_the_extremes_of_min_and_max() {
    let q = "select time(1m), count(*), min(v), max(v), avg(v) group by 1";
    // 200 minutes, one row each: count 1, v = the minute. A width of 60 leaves 55 columns
    // after the gutter: at least 4 buckets a column, so 5 minutes.
    let rows: Vec<_> = (0..200)
        .map(|m| {
            let t = format!("2026-11-21T{:02}:{:02}:00Z", 10 + m / 60, m % 60);
            let v = m.to_string();
            vec![s(&t), n("1"), n(&v), n(&v), n(&v)]
        })
        .collect();
    let chart = draw(q, &rows, 60, 40);
    let title = chart.lines().next().unwrap();
    assert!(title.ends_with("each column 5m"), "{chart}");
    assert!(chart.contains("count(*) (summed)"), "{chart}");
    assert!(chart.contains("min(v) (the smallest)"), "{chart}");
    assert!(chart.contains("max(v) (the largest)"), "{chart}");
    assert!(
        chart.contains("avg(v) (the largest of its buckets)"),
        "{chart}"
    );
    // The largest count is a whole column's: 5 buckets of 1. min's largest column is the
    // last one's smallest (195), max's and avg's the last one's largest (199).
    let tops: Vec<&str> = chart
        .lines()
        .filter(|l| l.contains('┤') && !l.trim_start().starts_with('0'))
        .map(|l| l.split('┤').next().unwrap().trim())
        .collect();
    assert_eq!(tops, ["5", "195", "199", "199"], "{chart}");
}

#[test]
fn the_tallest_column_is_the_largest_value() {
    let q = "select time(1m), count(*) group by 1";
    let rows = minutes(&[(0, "3"), (1, "2"), (2, "90"), (3, "4")]);
    let chart = draw(q, &rows, 40, 12);
    // Gutter "90", so the plot starts at 4; 4 buckets of 8 cells (7 drawn).
    let cells = plot(&chart, 4);
    let top: Vec<usize> = cells[0]
        .chars()
        .enumerate()
        .filter(|(_, c)| *c != ' ')
        .map(|(i, _)| i)
        .collect();
    assert_eq!(top, (16..23).collect::<Vec<_>>(), "{chart}");
    assert!(chart.lines().nth(1).unwrap().starts_with("90 ┤"), "{chart}");
}

#[test]
fn a_single_row_and_an_all_zero_column_are_drawn() {
    let q = "select time(1m), count(*) group by 1";
    let chart = draw(q, &minutes(&[(0, "7")]), 40, 8);
    assert!(
        chart.starts_with("count(*) per 1m, 2026-11-21 10:00 UTC\n"),
        "{chart}"
    );
    assert!(chart.contains('█'));
    let chart = draw(q, &minutes(&[(0, "0"), (3, "0")]), 40, 8);
    assert!(!chart.contains('█') && !chart.contains('▁'), "{chart}");
    let q = "select k, count(*) group by k";
    let chart = draw(q, &[vec![s("a"), n("0")]], 40, 8);
    assert_eq!(chart, "k count(*)\na 0\n");
}

#[test]
fn colour_only_adds_sequences() {
    let q = "select time(1m), count(*), sum(v) group by 1";
    let rows: Vec<_> = minutes(&[(0, "3"), (4, "9")])
        .into_iter()
        .map(|mut r| {
            r.push(n("-2"));
            r
        })
        .collect();
    let sp = spec(q, 50, 14);
    let cols = Plan::compile(q).unwrap().columns().to_vec();
    let plain = render(&cols, &rows, &sp, false);
    let colored = render(&cols, &rows, &sp, true);
    assert_ne!(plain, colored);
    assert_eq!(String::from_utf8(strip(colored.as_bytes())).unwrap(), plain);
    let q = "select k, count(*), sum(v) group by k";
    let rows = vec![
        vec![s("a"), n("1"), n("-1")],
        vec![Value::Null, n("2"), Value::Null],
    ];
    let sp = spec(q, 50, 14);
    let cols = Plan::compile(q).unwrap().columns().to_vec();
    let plain = render(&cols, &rows, &sp, false);
    let colored = render(&cols, &rows, &sp, true);
    assert_eq!(String::from_utf8(strip(colored.as_bytes())).unwrap(), plain);
}

#[test]
fn size_comes_from_the_variables_then_the_terminal() {
    let fixed = |width, height| Size::Fixed { width, height };
    assert_eq!(Size::choose(None, None, None, false), fixed(80, 24));
    assert_eq!(Size::choose(Some("120"), None, None, false), fixed(120, 24));
    assert_eq!(
        Size::choose(Some("x"), Some("0"), Some((50, 100)), false),
        fixed(100, 49),
        "not numbers: the terminal's (a line less for the prompt)"
    );
    assert_eq!(
        Size::choose(None, Some("30"), Some((50, 100)), false),
        fixed(100, 30)
    );
    assert_eq!(
        Size::choose(None, None, Some((50, 100)), true),
        Size::Terminal
    );
    assert_eq!(
        Size::choose(Some("60"), None, Some((50, 100)), true),
        fixed(60, 49)
    );
    assert_eq!(Size::choose(None, None, None, true), fixed(80, 24));
    assert_eq!(fixed(3, 1).resolve(), (MIN_WIDTH, MIN_HEIGHT));
}

#[test]
fn only_aggregations_are_drawn() {
    let check = |q: &str| check(&Plan::compile(q).unwrap());
    assert!(check("select @l, count(*) group by @l").is_ok());
    assert!(check("select count(*) * 2 as twice").is_ok());
    for (q, why) in [
        ("select *", "whole lines"),
        ("where a = 1", "whole lines"),
        ("select a, b", "does not aggregate"),
        ("select a order by a", "does not aggregate"),
        ("select distinct a", "does not aggregate"),
        ("select a group by a", "only group keys"),
    ] {
        let e = check(q).unwrap_err();
        assert!(
            e.starts_with("-o chart draws the rows of an aggregation"),
            "{e}"
        );
        assert!(e.contains(why), "{q}: {e}");
    }
}

/// A value for the property: a number of any size or sign, null, or text.
fn value() -> impl Strategy<Value = Value<'static>> {
    prop_oneof![
        (-1e6f64..1e6).prop_map(|f| Value::RawNumber(f.to_string().into())),
        any::<i64>().prop_map(|i| Value::RawNumber(i.to_string().into())),
        prop_oneof![
            Just("1e30"),
            Just("-1e30"),
            Just("1e400"),
            Just("0"),
            Just("0.5")
        ]
        .prop_map(|t| Value::RawNumber(t.into())),
        Just(Value::Null),
    ]
}

fn label() -> impl Strategy<Value = Value<'static>> {
    prop_oneof![
        "[a-z ]{0,60}".prop_map(|t| Value::String(t.into())),
        "[中文字é\u{301}\t\n]{0,20}".prop_map(|t| Value::String(t.into())),
        Just(Value::Null),
    ]
}

fn check_fits(chart: &str, width: usize, height: usize) -> Result<(), TestCaseError> {
    let (width, height) = (width.max(MIN_WIDTH), height.max(MIN_HEIGHT));
    prop_assert!(
        chart.lines().count() <= height,
        "{} lines > {height}:\n{chart}",
        chart.lines().count()
    );
    for line in chart.lines() {
        prop_assert!(
            line.width() <= width,
            "{} > {width}: {line:?}\n{chart}",
            line.width()
        );
        prop_assert!(!line.contains(['\t', '\r']));
    }
    prop_assert!(chart.is_empty() || chart.ends_with('\n'));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn bars_fit_any_size(
        rows in prop::collection::vec((label(), value(), value()), 0..40),
        width in 0usize..160,
        height in 0usize..50,
    ) {
        let q = "select k, sum(a), avg(b) group by k";
        let rows: Vec<Vec<Value<'_>>> =
            rows.into_iter().map(|(k, a, b)| vec![k, a, b]).collect();
        let chart = draw(q, &rows, width, height);
        check_fits(&chart, width, height)?;
    }

    #[test]
    fn histograms_fit_any_size(
        rows in prop::collection::vec((0i64..100_000, value(), value()), 0..60),
        width in 0usize..160,
        height in 0usize..50,
        every in prop_oneof![Just("1s"), Just("1m"), Just("7m"), Just("1d")],
    ) {
        let q = format!("select time({every}), count(*), avg(b) group by 1");
        let rows: Vec<Vec<Value<'_>>> = rows
            .into_iter()
            .map(|(sec, a, b)| {
                let t = 1_795_000_000 + sec * 60;
                let t = ndq_query::Zone::utc().strftime(i128::from(t) * 1_000_000_000, "%Y-%m-%dT%H:%M:%SZ");
                vec![t.map_or(Value::Null, |t| Value::String(t.into())), a, b]
            })
            .collect();
        let chart = draw(&q, &rows, width, height);
        check_fits(&chart, width, height)?;
    }
}

#[test]
fn negative_buckets_grow_down_from_a_marked_zero() {
    let q = "select time(1m), sum(v) group by 1";
    let rows = minutes(&[(0, "4"), (1, "-4")]);
    let chart = draw(q, &rows, 40, 7);
    let gutter: Vec<&str> = chart
        .lines()
        .skip(1)
        .take(4)
        .map(|l| l.split(['┤', '│']).next().unwrap().trim())
        .collect();
    assert_eq!(gutter, ["4", "", "0", "-4"], "{chart}");
    // Two rows up, two down: the positive bucket fills the upper two, the negative one the
    // lower two (in half rows, both whole); each bucket 8 cells, 7 drawn.
    let cells = plot(&chart, 4);
    let (up, down) = ("█".repeat(7), format!("{}{}", " ".repeat(8), "█".repeat(7)));
    assert_eq!(
        [&cells[0], &cells[1]].map(|c| c.trim_end()),
        [&up, &up],
        "{chart}"
    );
    assert_eq!(
        [&cells[2], &cells[3]].map(|c| c.trim_end()),
        [&down, &down],
        "{chart}"
    );
}

/// The labels that say something (not blank), in order.
fn named_labels(labels: &[String]) -> Vec<&str> {
    labels
        .iter()
        .map(String::as_str)
        .filter(|l| !l.is_empty())
        .collect()
}

/// The value axis' labels of a histogram, top to bottom, with the time axis' corner last.
fn value_labels(chart: &str) -> Vec<String> {
    chart
        .lines()
        .filter(|l| l.contains(['┤', '│', '└']))
        .map(|l| l.split(['┤', '│', '└']).next().unwrap().trim().to_string())
        .collect()
}

#[test]
fn the_value_axis_labels_zero_where_zero_is() {
    let q = "select time(1m), sum(v) group by 1";
    let rows = minutes(&[(0, "8"), (1, "-8"), (2, "4"), (3, "-4")]);
    let chart = draw(q, &rows, 30, 10);
    let labels = value_labels(&chart);
    let named = named_labels(&labels);
    assert_eq!(named, ["8", "0", "-8"], "{chart}");
    assert_eq!(labels.first().map(String::as_str), Some("8"), "{chart}");
    assert_eq!(
        labels.last().map(String::as_str),
        Some(""),
        "the bottom is not 0:\n{chart}"
    );
    // Only negative values: zero is the top.
    let rows = minutes(&[(0, "-1"), (1, "-5"), (2, "-2"), (3, "-10")]);
    let chart = draw(q, &rows, 30, 10);
    let labels = value_labels(&chart);
    let named = named_labels(&labels);
    assert_eq!(named, ["0", "-10"], "{chart}");
    assert_eq!(labels.first().map(String::as_str), Some("0"), "{chart}");
    assert_eq!(labels.last().map(String::as_str), Some(""), "{chart}");
    // No value below zero: the corner is the zero line.
    let chart = draw(q, &minutes(&[(0, "3"), (1, "5")]), 30, 10);
    assert_eq!(value_labels(&chart).last().map(String::as_str), Some("0"));
}

#[test]
fn both_signs_are_drawn_on_one_scale() {
    // Histogram: +8 and -8 reach as many rows, whatever the height (8 and -8 each fill
    // their rows: whole rows up, whole half rows down).
    let q = "select time(1m), sum(v) group by 1";
    let rows = minutes(&[(0, "8"), (1, "-8"), (2, "4"), (3, "-4")]);
    for height in 8..16 {
        let chart = draw(q, &rows, 30, height);
        // The gutter holds "-8": the plot starts at 4.
        let cells = plot(&chart, 4);
        let filled = |col: usize| {
            cells
                .iter()
                .filter(|l| l.chars().nth(col).is_some_and(|c| c != ' '))
                .count()
        };
        // Buckets 6 cells wide (5 drawn): +8 at 0, -8 at 6, +4 at 12, -4 at 18.
        assert_eq!(filled(0), filled(6), "height {height}:\n{chart}");
        assert_eq!(filled(12), filled(18), "height {height}:\n{chart}");
    }
    // Bars: the smallest value below zero gets the smallest mark below zero, as the
    // smallest above zero gets an eighth.
    let q = "select k, sum(v) group by k";
    for (big, small) in [("100", "-1"), ("1e30", "-1e-30")] {
        let rows = vec![vec![s("p"), n(big)], vec![s("n"), n(small)]];
        let chart = draw(q, &rows, 40, 10);
        let lines: Vec<&str> = chart.lines().collect();
        assert!(lines[2].starts_with("n ▐│"), "{chart}");
        assert!(lines[1].starts_with("p  │█"), "{chart}");
    }
    // -30 next to 100: 30% of the cells 100 fills, in half cells.
    let rows = vec![vec![s("p"), n("100")], vec![s("n"), n("-30")]];
    let chart = draw(q, &rows, 40, 10);
    let lines: Vec<&str> = chart.lines().collect();
    let full = lines[1].matches('█').count();
    let neg: String = lines[2].chars().skip(2).take_while(|&c| c != '│').collect();
    let halves = neg.matches('█').count() * 2 + neg.matches('▐').count();
    assert_eq!(
        halves,
        (full as f64 * 0.3 * 2.0).round() as usize,
        "{chart}"
    );
    // Equal magnitudes, equal bars.
    let rows = vec![vec![s("p"), n("7")], vec![s("n"), n("-7")]];
    let chart = draw(q, &rows, 41, 10);
    let lines: Vec<&str> = chart.lines().collect();
    assert_eq!(
        lines[1].matches('█').count(),
        lines[2].matches('█').count(),
        "{chart}"
    );
}

#[test]
fn bar_columns_that_do_not_fit_are_left_out_and_counted() {
    let q = "select k, sum(a), sum(b), sum(c), sum(d), sum(e), sum(f), sum(g), sum(h) group by k";
    let row = |k: &str, v: &str| {
        let mut row = vec![s(k)];
        row.extend((0..8).map(|_| n(v)));
        row
    };
    let rows = vec![row("a", "100129.4403"), row("b", "3")];
    let chart = draw(q, &rows, 40, 10);
    let lines: Vec<&str> = chart.lines().collect();
    // Width 40: label 1 and a space; each column needs 11 for its widest value, a space
    // and a cell: two columns of 18 (2 apart) fit, three of 11 do not.
    assert_eq!(lines[0], "k sum(a)              sum(b)", "{chart}");
    assert_eq!(
        lines[1],
        format!(
            "a {} 100129.4403  {} 100129.4403",
            "█".repeat(6),
            "█".repeat(6)
        ),
        "{chart}"
    );
    assert_eq!(lines[2], format!("b ▏ 3{}▏ 3", " ".repeat(17)), "{chart}");
    assert_eq!(lines[3], "[6 more not drawn: too few columns]", "{chart}");
    assert_eq!(lines.len(), 4, "{chart}");
    // With rows left out too: the rows, then the columns, on the last two lines.
    let rows: Vec<_> = (0..20).map(|i| row(&format!("{}", i % 10), "1")).collect();
    // (Width 30: six columns of 3, 2 apart.)
    let chart = draw(q, &rows, 30, 8);
    let lines: Vec<&str> = chart.lines().collect();
    assert_eq!(lines.len(), 8, "{chart}");
    assert_eq!(lines[1], "0 █ 1  █ 1  █ 1  █ 1  █ 1  █ 1", "{chart}");
    assert_eq!(lines[6], "… 15 more rows", "{chart}");
    assert_eq!(
        lines[7], "[2 more not drawn: too few co…",
        "cut to the width:\n{chart}"
    );
    // A lone column short of room for its value writes it shorter, not cut.
    let q = "select k, sum(v) group by k";
    let rows = vec![vec![s("abcdef"), n("-100129.4403")], vec![s("x"), n("5")]];
    let chart = draw(q, &rows, 20, 10);
    assert!(!chart.contains("100129.4"), "{chart}");
    assert!(
        chart.lines().nth(1).unwrap().ends_with(" -100129"),
        "{chart}"
    );
}

#[test]
fn a_number_beyond_f64_gets_a_whole_bar() {
    let q = "select k, max(v) group by k";
    let rows = vec![
        vec![s("a"), n("5")],
        vec![s("h"), n("1e400")],
        vec![s("z"), n("2.5")],
        vec![s("x"), Value::Null],
    ];
    let chart = draw(q, &rows, 40, 10);
    let lines: Vec<&str> = chart.lines().collect();
    // Width 40: label 1 and a space, values 5 wide and a space: 32 cells.
    assert_eq!(lines[2], format!("h {} 1e400", "█".repeat(32)), "{chart}");
    assert_eq!(lines[1], format!("a {} 5", "█".repeat(32)), "{chart}");
    assert_eq!(lines[3], format!("z {} 2.5", "█".repeat(16)), "{chart}");
    assert_eq!(lines[4], "x null", "{chart}");
    // Alone, and below zero.
    let rows = vec![vec![s("h"), n("-1e400")], vec![s("z"), n("0")]];
    let chart = draw(q, &rows, 40, 10);
    let lines: Vec<&str> = chart.lines().collect();
    assert!(
        lines[1].starts_with(&format!("h {}│", "█".repeat(30))),
        "{chart}"
    );
    assert!(lines[1].ends_with("-1e400"), "{chart}");
    // In a histogram, its column is the tallest.
    let q = "select time(1m), max(v) group by 1";
    let chart = draw(q, &minutes(&[(0, "3"), (1, "1e400")]), 40, 8);
    let cells = plot(&chart, 3);
    assert!(
        cells.iter().all(|l| l.chars().nth(8) == Some('█')),
        "{chart}"
    );
}

/// A time bucket among several keys is labelled without its date when every row has the
/// same one, so that the keys after it fit; rows of two dates keep theirs.
#[test]
fn a_bucket_among_keys_drops_a_date_all_rows_share() {
    let q = "select time(1m), @l, count(*) group by 1, 2";
    let row = |t: &str, l: &str, c: &str| vec![s(t), s(l), n(c)];
    let one_day = [
        row("2026-11-21T10:00:00Z", "Error", "3"),
        row("2026-11-21T10:00:00Z", "Warning", "5"),
        row("2026-11-21T10:01:00Z", "Error", "1"),
    ];
    let chart = draw(q, &one_day, 60, 10);
    let labels: Vec<&str> = chart
        .lines()
        .skip(1)
        .map(|l| l.split(" █").next().unwrap())
        .collect();
    assert!(labels[0].starts_with("10:00:00Z Error"), "{chart}");
    assert!(labels[1].starts_with("10:00:00Z Warning"), "{chart}");
    assert!(labels[2].starts_with("10:01:00Z Error"), "{chart}");
    let two_days = [
        row("2026-11-21T23:59:00Z", "Error", "3"),
        row("2026-11-22T00:00:00Z", "Error", "5"),
    ];
    let chart = draw(q, &two_days, 80, 10);
    assert!(
        chart
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("2026-11-21T23:59:00Z Error"),
        "{chart}"
    );
}

/// Day labels carry the year over a year's end (`12-30` then `01-05` would read backwards),
/// and not within one year.
#[test]
fn day_labels_carry_the_year_across_a_years_end() {
    let q = "select time(1d), count(*) group by 1";
    let days = |from: (i16, i8, i8), count: i64| -> Vec<Vec<Value<'static>>> {
        let start = jiff::civil::date(from.0, from.1, from.2);
        (0..count)
            .map(|i| {
                let d = start.checked_add(jiff::Span::new().days(i)).unwrap();
                vec![s(&format!("{d}T00:00:00Z")), n(&(i % 5 + 1).to_string())]
            })
            .collect()
    };
    let axis = |chart: &str| chart.lines().last().unwrap_or_default().to_string();
    let over = draw(q, &days((2025, 12, 29), 50), 100, 10);
    assert!(axis(&over).contains("2026-01-"), "{over}");
    let within = draw(q, &days((2026, 1, 10), 50), 100, 10);
    assert!(!axis(&within).contains("2026-"), "{within}");
    assert!(axis(&within).contains("01-"), "{within}");
}

/// A chart of `query` over `rows` with `--tz zone`.
fn draw_in(
    zone: &str,
    query: &str,
    rows: &[Vec<Value<'_>>],
    width: usize,
    height: usize,
) -> String {
    let time = ndq_query::TimeOptions {
        zone: Zone::named(zone).unwrap(),
        ..ndq_query::TimeOptions::default()
    };
    let plan = Plan::compile_with(query, &time).unwrap();
    let spec = Spec::new(&plan, Size::Fixed { width, height });
    render(plan.columns(), rows, &spec, false)
}

/// `count` hourly rows from `from` (UTC), each `value` but `at(i)`'s.
fn hours(from: &str, count: i64, at: impl Fn(i64) -> i64) -> Vec<Vec<Value<'static>>> {
    let start: jiff::Timestamp = from.parse().unwrap();
    (0..count)
        .map(|i| {
            let t = start.checked_add(jiff::Span::new().hours(i)).unwrap();
            vec![s(&t.to_string()), n(&at(i).to_string())]
        })
        .collect()
}

/// With `--tz`, a date label marks the column its local midnight falls in: columns of 6h
/// start at 19:00 in New York, and the first holds the midnight of 01-05, not of 01-04.
#[test]
fn a_date_label_marks_the_column_of_its_local_midnight() {
    let q = "select time(1h), count(*) group by 1";
    let rows = hours("2026-01-05T00:00:00Z", 7 * 24, |_| 1);
    let chart = draw_in("America/New_York", q, &rows, 40, 8);
    assert!(chart.contains("each column 6h"), "{chart}");
    let axis = chart.lines().last().unwrap();
    assert!(axis.trim_start().starts_with("01-05"), "{chart}");
    assert!(!axis.contains("01-04"), "{chart}");
}

/// Hours merged into days in a zone whose clocks change: a column is a local calendar day
/// (of 23 hours on 03-29 in Paris, which has no row here and shows as a gap), the labels go
/// on after the change, and the title names the zone at each end.
#[test]
fn merged_days_follow_the_local_calendar_across_a_change_of_the_clocks() {
    let q = "select time(1h), count(*) group by 1";
    // One row a day at 22:00 UTC (23:00 CET, then 00:00 CEST of the next day).
    let rows: Vec<_> = hours("2026-03-01T00:00:00Z", 45 * 24, |_| 1)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % 24 == 22)
        .map(|(_, r)| r)
        .collect();
    let chart = draw_in("Europe/Paris", q, &rows, 80, 8);
    assert!(chart.contains("each column 1d"), "{chart}");
    assert!(
        chart.contains("23:00 CET to 2026-04-15 00:00 CEST"),
        "{chart}"
    );
    let bottom = plot(&chart, 3).last().unwrap().clone();
    let gaps: Vec<usize> = (bottom.trim_end().chars().enumerate())
        .filter(|&(_, c)| c == ' ')
        .map(|(i, _)| i)
        .collect();
    // Columns from 03-01; 03-29 is the 29th.
    assert_eq!(gaps, [28], "{chart}");
    let axis = chart.lines().last().unwrap();
    for day in ["03-02", "03-23", "03-30", "04-06"] {
        assert!(axis.contains(day), "{day}: {chart}");
    }
}

/// Labels less than a second apart carry the fraction (the same second twice would read as
/// one), as does the title.
#[test]
fn labels_under_a_second_apart_show_the_fraction() {
    let q = "select time(100ms), count(*) group by 1";
    let rows: Vec<_> = (0..20)
        .map(|i| {
            vec![
                s(&format!("2026-11-21T10:00:0{}.{}Z", i / 10, i % 10)),
                n("1"),
            ]
        })
        .collect();
    let chart = draw(q, &rows, 80, 6);
    assert!(chart.starts_with("count(*) per 100ms, 2026-11-21 10:00:00.0 to 10:00:01.9 UTC"));
    let labels: Vec<&str> = chart.lines().last().unwrap().split_whitespace().collect();
    assert_eq!(
        labels,
        ["10:00:00.0", "10:00:00.5", "10:00:01.0", "10:00:01.5"],
        "{chart}"
    );
}

/// Magnitudes near the largest float are shared and drawn as any others: the sum of the two
/// sides, or a side times its cells, must not become infinite on the way.
#[test]
fn both_signs_near_the_largest_float_share_the_cells_evenly() {
    for big in [1e306, 1e307, 1e308, f64::MAX] {
        let even = bars::split(40, big, big);
        assert_eq!((even.neg_cells, even.pos_cells), (20, 20), "{big}");
        assert!(
            even.neg_full.is_finite() && even.pos_full.is_finite(),
            "{big}"
        );
    }
    let q = "select g, max(v) group by g";
    let rows = [vec![s("a"), n("-1e308")], vec![s("b"), n("1e308")]];
    let chart = draw(q, &rows, 50, 10);
    let lens: Vec<usize> = (chart.lines().skip(1))
        .map(|l| l.chars().filter(|&c| c == '█').count())
        .collect();
    assert_eq!(lens[0], lens[1], "{chart}");
    assert!(lens[0] > 10, "{chart}");
}

/// A title that must be one line (seven lines or fewer) and does not fit keeps what a merged
/// column holds, leaving out the span, which the time axis shows.
#[test]
fn a_short_chart_keeps_what_a_column_holds_in_its_title() {
    let q = "select time(1m), count(*) group by 1";
    let counts: Vec<(i64, &str)> = (0..200).map(|m| (m, "1")).collect();
    let chart = draw(q, &minutes(&counts), 50, 7);
    let title = chart.lines().next().unwrap();
    assert_eq!(title, "count(*) per 1m; each column 5m, summed", "{chart}");
    let tall = draw(q, &minutes(&counts), 50, 8);
    assert!(
        tall.starts_with("count(*) per 1m, 2026-11-21 10:00 to 13:19 UTC\n"),
        "{tall}"
    );
}

/// Steps of weeks count from a Monday, as week columns do: over a year of days in weekly
/// columns, every label is a Monday, the start of the column it marks.
#[test]
fn labels_weeks_apart_fall_on_mondays() {
    let q = "select time(1d), count(*) group by 1";
    let start = jiff::civil::date(2025, 1, 1);
    let rows: Vec<_> = (0..365)
        .map(|i| {
            let d = start.checked_add(jiff::Span::new().days(i)).unwrap();
            vec![s(&format!("{d}T00:00:00Z")), n("1")]
        })
        .collect();
    let chart = draw(q, &rows, 60, 8);
    assert!(chart.contains("each column 7d"), "{chart}");
    let labels: Vec<&str> = chart.lines().last().unwrap().split_whitespace().collect();
    assert!(labels.len() >= 3, "{chart}");
    for label in labels {
        let day: jiff::civil::Date = label.parse().unwrap();
        assert_eq!(
            day.weekday(),
            jiff::civil::Weekday::Monday,
            "{label}: {chart}"
        );
    }
}
