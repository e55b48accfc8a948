//! Table tests for the time rules of the language reference ("Time"), through the whole engine as
//! `tests.rs` runs them: lazy and serde documents, merged at every split, the prefilter
//! checked. Queries that read `now()` or a zone are compiled with pinned [`TimeOptions`].

use crate::tests::{fails, run, run_plan};
use crate::{Plan, TimeOptions, Zone};

/// 2026-11-21T10:05:00Z, the pinned `now()`.
const NOW: i128 = 1_795_255_500 * 1_000_000_000;

fn opts(zone: Option<&str>) -> TimeOptions {
    TimeOptions {
        zone: zone.map_or_else(Zone::utc, |z| Zone::named(z).unwrap()),
        now: Some(NOW),
        ..TimeOptions::default()
    }
}

/// [`run`] with `now()` pinned and `--tz zone`.
fn run_tz(zone: Option<&str>, query: &str, lines: &[&str]) -> String {
    let plan = Plan::compile_with(query, &opts(zone)).unwrap_or_else(|e| panic!("{query}: {e}"));
    run_plan(&plan, query, lines)
}

macro_rules! q {
    ($name:ident, $query:expr, [$($line:expr),* $(,)?], $expected:expr) => {
        #[test]
        fn $name() {
            assert_eq!(run_tz(None, $query, &[$($line),*]), $expected, "query: {}", $query);
        }
    };
}

const ONE: &str = r#"{"a":1}"#;

// ---- datetime ----
q!(
    datetime_reads_rfc3339_forms,
    "select datetime('2026-11-21T10:00:00Z'), datetime('2026-11-21T10:00:00.1234567+02:00'), \
     datetime('2026-11-21 10:00:00'), datetime('2026-11-21'), datetime('2026-11-21T10:00:00.5')",
    [ONE],
    "2026-11-21T10:00:00Z|2026-11-21T08:00:00.1234567Z|2026-11-21T10:00:00Z|2026-11-21T00:00:00Z|2026-11-21T10:00:00.5Z"
);
q!(
    datetime_keeps_nanoseconds_of_a_longer_fraction,
    "select datetime('2026-11-21T10:00:00.1234567891Z'), datetime('2026-11-21 10:00:00.99999999999'), \
     datetime(t)",
    [r#"{"t":"2026-11-21T10:00:00.000000000500+01:00"}"#],
    "2026-11-21T10:00:00.123456789Z|2026-11-21T10:00:00.999999999Z|2026-11-21T09:00:00Z"
);
q!(
    datetime_of_an_offset_of_24_hours_or_more_is_null,
    "select datetime('2026-11-21T10:00:00+24:00'), datetime('2026-11-21T10:00:00-25:00'), \
     datetime('2026-11-21T10:00:00+23:59')",
    [ONE],
    "null|null|2026-11-20T10:01:00Z"
);
q!(
    datetime_leap_second_is_the_second_before,
    "select datetime('2016-12-31T23:59:60Z'), datetime('2016-12-31T23:59:60.5Z')",
    [ONE],
    "2016-12-31T23:59:59Z|2016-12-31T23:59:59.5Z"
);
q!(
    datetime_from_epoch_numbers_exact,
    "select datetime(1795255500), datetime(1795255500.25), datetime(1795255500123, 'ms'), \
     datetime(1795255500123456, 'us'), datetime(1795255500123456789, 'ns'), datetime(-1)",
    [ONE],
    "2026-11-21T10:05:00Z|2026-11-21T10:05:00.25Z|2026-11-21T10:05:00.123Z|2026-11-21T10:05:00.123456Z|2026-11-21T10:05:00.123456789Z|1969-12-31T23:59:59Z"
);
q!(
    datetime_and_durations_take_numbers_held_as_floats,
    "select datetime(n), time(n, 1h), 1h * g, 1h / g, g * 1s, datetime(1e-30), 1h * 1e-30",
    [
        r#"{"n":1795255200.1234567891234567891234567891234,"g":2.00000000000000000000000000000000000001}"#
    ],
    "2026-11-21T10:00:00.1234567Z|2026-11-21T10:00:00Z|7200|1800|2|1970-01-01T00:00:00Z|0"
);
q!(
    datetime_reads_a_wall_time_in_its_bracketed_zone,
    "select datetime('2026-11-21T10:00:00[Asia/Kolkata]'), datetime('2026-11-21[Asia/Kolkata]'), \
     datetime('2026-11-21T10:00:00+01:00[Asia/Kolkata]'), datetime('2026-11-21T10:00:00[Nowhere/City]'), \
     datetime('2026-11-21T10:00:00[+05:30]')",
    [ONE],
    "2026-11-21T04:30:00Z|2026-11-20T18:30:00Z|2026-11-21T09:00:00Z|null|2026-11-21T04:30:00Z"
);
q!(
    datetime_of_anything_else_is_null,
    "select datetime('yesterday'), datetime(true), datetime(null), datetime('1795255500'), \
     datetime(1, 'days'), datetime('2026-11-21', 'ms'), datetime(t), datetime('2026-02-30')",
    [r#"{"t":[1]}"#],
    "null|null|null|null|null|null|null|null"
);
q!(
    datetime_of_a_property,
    "select datetime(t) as t",
    [
        r#"{"t":"2026-11-21T10:00:00+01:00"}"#,
        r#"{"t":1795255500}"#,
        r#"{"t":"not a time"}"#,
        r#"{"t":"2026-11-21T10:00:00\u002B01:00"}"#
    ],
    "2026-11-21T09:00:00Z;2026-11-21T10:05:00Z;null;2026-11-21T09:00:00Z"
);

// ---- durations ----
q!(
    duration_literals_are_seconds,
    "select 500ms, 15s, 30m, 1h, 2d, 1w, 1.5h, -90s",
    [ONE],
    "0.5|15|1800|3600|172800|604800|5400|-90"
);
q!(
    duration_arithmetic,
    "select 1h + 30m, 1h - 2h, 1m * 1.5, 2 * 1s, 1s / 4, 1s / 3, 1s / 0, 1h + 1, 1h * 1h, 1h / 1m",
    [ONE],
    "5400|-3600|90|2|0.25|0.333333333|null|null|null|null"
);
q!(
    timestamp_arithmetic,
    "select datetime('2026-11-21T10:00:00Z') + 90.5s, 1d + datetime('2026-11-21'), \
     datetime('2026-11-21T10:00:00Z') - 1w, \
     datetime('2026-11-21T10:00:00Z') - datetime('2026-11-21T08:30:00Z'), \
     datetime('2026-11-21') + datetime('2026-11-21'), '2026-11-21' + 1h",
    [ONE],
    "2026-11-21T10:01:30.5Z|2026-11-22T00:00:00Z|2026-11-14T10:00:00Z|5400|null|null"
);
q!(
    timestamp_out_of_range_is_null,
    "select datetime('9999-12-30') + 10w, datetime('2026-11-21') + 1000000w",
    [ONE],
    "null|null"
);
q!(
    duration_comparisons,
    "select 90s = 1.5m, 1h > 59m, 1s < 1, 1s = '1s'",
    [ONE],
    "true|true|null|null"
);

// ---- comparisons with text ----
q!(
    timestamp_compared_with_text_reads_the_text,
    "select t where t >= now() - 1h",
    [
        r#"{"t":"2026-11-21T09:00:00Z"}"#,
        r#"{"t":"2026-11-21T09:05:00Z"}"#,
        r#"{"t":"2026-11-21T10:00:00+01:00"}"#,
        r#"{"t":"2026-11-21T11:00:00+01:00"}"#,
        r#"{"t":"garbage"}"#,
        r#"{"t":1795255500}"#
    ],
    "2026-11-21T09:05:00Z;2026-11-21T11:00:00+01:00"
);
q!(
    timestamp_equals_text_of_the_same_instant,
    "select datetime(t) = '2026-11-21T11:00:00+01:00', t = '2026-11-21T11:00:00+01:00', \
     datetime(t) in ('x', '2026-11-21T10:00:00.000Z')",
    [r#"{"t":"2026-11-21T10:00:00Z"}"#],
    "true|false|true"
);

// ---- now ----
q!(
    now_is_pinned_and_one_value,
    "select now(), now() = now(), now() - 1d",
    [ONE, ONE],
    "2026-11-21T10:05:00Z|true|2026-11-20T10:05:00Z;2026-11-21T10:05:00Z|true|2026-11-20T10:05:00Z"
);

// ---- time buckets ----
q!(
    time_floors_to_multiples_from_the_epoch,
    "select time(t, 1m), time(t, 15m), time(t, 1h), time(t, 1d), time(t, 1w), time(t, 500ms)",
    [r#"{"t":"2026-11-21T10:07:59.75Z"}"#],
    "2026-11-21T10:07:00Z|2026-11-21T10:00:00Z|2026-11-21T10:00:00Z|2026-11-21T00:00:00Z|2026-11-16T00:00:00Z|2026-11-21T10:07:59.5Z"
);
q!(
    time_of_non_times_or_bad_durations_is_null,
    "select time(t, 1m), time('x', 1m), time('2026-11-21', 0s), time('2026-11-21', -1m), time('2026-11-21', 5)",
    [r#"{"t":true}"#],
    "null|null|null|null|null"
);
q!(
    group_by_time_bucket_counts_instants,
    "select time(1m) as minute, count(*) group by minute",
    [
        r#"{"@t":"2026-11-21T10:00:05Z"}"#,
        r#"{"@t":"2026-11-21T11:00:59+01:00"}"#,
        r#"{"@t":"2026-11-21T10:01:00Z"}"#,
        r#"{"@t":"2026-11-21T09:59:00Z"}"#,
        r#"{"x":1}"#
    ],
    "2026-11-21T09:59:00Z|1;2026-11-21T10:00:00Z|2;2026-11-21T10:01:00Z|1;null|1"
);
/// `time(5m)` is `time(@t, 5m)`: in `group by` either spelling matches the other.
#[test]
fn time_with_one_argument_is_time_of_the_time_field() {
    let lines = [
        r#"{"@t":"2026-11-21T10:00:05Z"}"#,
        r#"{"@t":"2026-11-21T10:06:00Z"}"#,
        r#"{"@t":"2026-11-21T10:09:00Z"}"#,
    ];
    for (query, expected) in [
        (
            "select time(5m), count(*) group by time(5m) order by count(*) desc",
            "2026-11-21T10:05:00Z|2;2026-11-21T10:00:00Z|1",
        ),
        (
            "select time(@t, 5m) as a, count(*) group by time(5m)",
            "2026-11-21T10:00:00Z|1;2026-11-21T10:05:00Z|2",
        ),
        (
            "select time(5m), strftime(time(1h), '%H') as h, count(*) \
             group by time(@t, 5m), strftime(time(@t, 1h), '%H')",
            "2026-11-21T10:00:00Z|10|1;2026-11-21T10:05:00Z|10|2",
        ),
    ] {
        assert_eq!(run_tz(None, query, &lines), expected, "query: {query}");
    }
}

#[test]
fn time_with_one_argument_outside_group_by_is_an_error() {
    assert_eq!(
        fails("select time(5m), count(*)"),
        "'time(5m)' must be inside an aggregate, because this query aggregates (or add 'group by time(5m)')"
    );
    assert_eq!(
        fails("select time(5m), count(*) group by time(1m)"),
        "'time(5m)' must appear in group by or be inside an aggregate"
    );
}

#[test]
fn time_field_is_configurable() {
    let o = TimeOptions {
        time_field: "Properties.When".to_owned(),
        ..opts(None)
    };
    let q = "select time(1h), count(*) group by time(1h)";
    let plan = Plan::compile_with(q, &o).unwrap();
    assert_eq!(
        run_plan(
            &plan,
            q,
            &[
                r#"{"@t":"2020-01-01","Properties":{"When":"2026-11-21T10:05:00Z"}}"#,
                r#"{"Properties":{"When":"2026-11-21T10:55:00Z"}}"#
            ]
        ),
        "2026-11-21T10:00:00Z|2"
    );
}

// ---- zones ----
#[test]
fn tz_changes_output_days_and_strftime() {
    let lines = [r#"{"t":"2026-11-20T23:30:00Z"}"#];
    let q =
        "select datetime(t), time(t, 1d), strftime(t, '%Y-%m-%d %H:%M %z'), tostring(datetime(t))";
    assert_eq!(
        run_tz(None, q, &lines),
        "2026-11-20T23:30:00Z|2026-11-20T00:00:00Z|2026-11-20 23:30 +0000|2026-11-20T23:30:00Z"
    );
    assert_eq!(
        run_tz(Some("Europe/Paris"), q, &lines),
        "2026-11-21T00:30:00+01:00|2026-11-21T00:00:00+01:00|2026-11-21 00:30 +0100|2026-11-21T00:30:00+01:00"
    );
    // Hours count from the epoch in UTC whatever the zone.
    assert_eq!(
        run_tz(Some("Asia/Kolkata"), "select time(t, 1h)", &lines),
        "2026-11-21T04:30:00+05:30"
    );
}

#[test]
fn only_one_day_and_one_week_follow_the_zone() {
    // 2026-03-08T06:30Z is 01:30 in New York, on the day its clocks go forward; 2026-03-08 is
    // an even day from the epoch, so two-day buckets start there at midnight UTC.
    let lines = [r#"{"@t":"2026-03-08T06:30:00Z"}"#];
    assert_eq!(
        run_tz(
            Some("America/New_York"),
            "select time(1d), time(24h), time(2d), time(48h), time(1w), time(7d), time(2w)",
            &lines
        ),
        "2026-03-08T00:00:00-05:00|2026-03-08T00:00:00-05:00|2026-03-07T19:00:00-05:00|\
         2026-03-07T19:00:00-05:00|2026-03-02T00:00:00-05:00|2026-03-02T00:00:00-05:00|\
         2026-02-25T19:00:00-05:00"
    );
}

#[test]
fn concatenation_writes_a_timestamp_as_tostring_does() {
    let lines = [r#"{"t":"2026-11-21T10:00:00Z"}"#];
    let q = "select 'at ' || datetime(t), concat(datetime(t), null, 1.50), tostring(datetime(t)), \
             'took ' || 90s";
    assert_eq!(
        run_tz(None, q, &lines),
        "at 2026-11-21T10:00:00Z|2026-11-21T10:00:00Z1.50|2026-11-21T10:00:00Z|took 90"
    );
    assert_eq!(
        run_tz(Some("Asia/Kolkata"), q, &lines),
        "at 2026-11-21T15:30:00+05:30|2026-11-21T15:30:00+05:301.50|2026-11-21T15:30:00+05:30|took 90"
    );
}

// ---- strftime, tostring, tonumber ----
q!(
    strftime_formats_in_utc_by_default,
    "select strftime(t, '%Y-%m-%d %H:%M'), strftime(t, '%A %j'), strftime(1, '%s'), strftime('x', '%Y'), strftime(t, 5)",
    [r#"{"t":"2026-11-21T10:05:00+02:00"}"#],
    "2026-11-21 08:05|Saturday 325|1|null|null"
);
q!(
    strftime_locale_directives_are_the_c_locales,
    "select strftime(t, '%c|%x|%r|%X|%D'), strftime(t, '%%c %%%c'), strftime(t, '100%')",
    [r#"{"t":"2026-01-04T19:05:09Z"}"#],
    "Sun Jan  4 19:05:09 2026|01/04/26|07:05:09 PM|19:05:09|01/04/26|%c %Sun Jan  4 19:05:09 2026|null"
);
q!(
    strftime_epoch_seconds_and_century_are_cs,
    "select strftime(datetime(-0.5), '%S %s'), strftime(datetime(-1.5), '%H:%M:%S %s'), \
     strftime(datetime(1.5), '%s'), strftime(datetime('0999-06-01'), '%C'), \
     strftime(datetime('2026-06-01'), '%C %%s %%C')",
    [ONE],
    "59 -1|23:59:58 -2|1|09|20 %s %C"
);
q!(
    strftime_two_digit_years_stay_in_00_to_99_before_year_0,
    "select strftime(datetime(t), '%y %g %x %D'), strftime(datetime('2027-01-01'), '%y %g %G')",
    [r#"{"t":-62335000000}"#],
    "94 94 09/07/94 09/07/94|27 26 2026"
);
q!(
    tostring_and_tonumber_of_times,
    "select tostring(datetime(t)), tostring(90.5s), tonumber(datetime(t)), tonumber(1500ms), tonumber(datetime('1969-12-31T23:59:59.5Z'))",
    [r#"{"t":"2026-11-21T10:05:00.250Z"}"#],
    "2026-11-21T10:05:00.25Z|90.5|1795255500.25|1.5|-0.5"
);

// ---- aggregates and order ----
q!(
    min_max_of_timestamps_and_durations,
    "select min(datetime(t)), max(datetime(t)), min(t), max(datetime(t)) - min(datetime(t)), max(d * 1s)",
    [
        r#"{"t":"2026-11-21T10:00:00+01:00","d":3}"#,
        r#"{"t":"2026-11-21T09:30:00Z","d":1.5}"#,
        r#"{"t":"2026-11-21T08:45:00Z"}"#
    ],
    "2026-11-21T08:45:00Z|2026-11-21T09:30:00Z|2026-11-21T08:45:00Z|2700|3"
);
q!(
    text_timestamps_stay_text_in_min,
    "select min(t), max(t)",
    [
        r#"{"t":"2026-11-21T10:00:00+01:00"}"#,
        r#"{"t":"2026-11-21T09:30:00Z"}"#
    ],
    "2026-11-21T09:30:00Z|2026-11-21T10:00:00+01:00"
);
#[test]
fn total_order_of_times() {
    // One line per type; `coalesce` picks the typed value each line holds.
    let q = "select coalesce(datetime(t), d * 1s, v) as k order by k";
    let lines = [
        r#"{"v":true}"#,
        r#"{"d":5}"#,
        r#"{"t":"2026-11-21T10:00:00Z"}"#,
        r#"{"v":"zzz"}"#,
        r#"{"v":2}"#,
    ];
    assert_eq!(run(q, &lines), "2;zzz;2026-11-21T10:00:00Z;5;true");
    let q = "select coalesce(datetime(t), d * 1s, v) as k, count(*) group by k";
    assert_eq!(
        run(q, &lines),
        "2|1;zzz|1;2026-11-21T10:00:00Z|1;5|1;true|1"
    );
}

// ---- errors ----
#[test]
fn invalid_duration_literals_are_query_errors() {
    let e = Plan::compile("where @t > now() - 5x").unwrap_err();
    assert_eq!(e.column(), 20);
    assert!(e.message().starts_with("'5x' is not a duration"), "{e}");
    assert!(fails("select 5mss").starts_with("'5mss' is not a duration"));
    assert!(fails("select 1e-12s").starts_with("the duration '1e-12s'"));
    assert_eq!(fails("select now(1)"), "now() takes 0 arguments, found 1");
    assert_eq!(
        fails("select strftime(@t)"),
        "strftime() takes 2 arguments, found 1"
    );
}

// ---- --since / --until ----
#[test]
fn since_and_until_keep_lines_in_range() {
    let lines = [
        r#"{"@t":"2026-11-21T09:59:59Z","n":1}"#,
        r#"{"@t":"2026-11-21T10:00:00Z","n":2}"#,
        r#"{"@t":"2026-11-21T11:30:00+01:00","n":3}"#,
        r#"{"@t":"2026-11-21T11:00:00Z","n":4}"#,
        r#"{"n":5}"#,
        r#"{"@t":"junk","n":6}"#,
    ];
    let since = crate::parse_bound("2026-11-21T10:00:00Z", NOW, &Zone::utc()).unwrap();
    let until = crate::parse_bound("2026-11-21T11:00:00Z", NOW, &Zone::utc()).unwrap();
    let with = |s: Option<i128>, u: Option<i128>, q: &str| {
        let o = TimeOptions {
            since: s,
            until: u,
            ..opts(None)
        };
        run_plan(&Plan::compile_with(q, &o).unwrap(), q, &lines)
    };
    assert_eq!(with(Some(since), None, "select n"), "2;3;4");
    assert_eq!(with(None, Some(until), "select n"), "1;2;3");
    assert_eq!(with(Some(since), Some(until), "select n"), "2;3");
    assert_eq!(with(Some(since), Some(until), "select n where n > 2"), "3");
    assert_eq!(with(Some(since), Some(until), "select count(*)"), "2");
    // Whole lines too; and no bound keeps lines without a time.
    assert_eq!(
        with(Some(since), Some(until), "where n = 3"),
        r#"{"@t":"2026-11-21T11:30:00+01:00","n":3}"#
    );
    assert_eq!(with(None, None, "select count(*)"), "6");
}

#[test]
fn since_reads_an_epoch_time_held_as_a_float() {
    let lines = [
        r#"{"@t":1795255200.1234567891234567891234567891234,"n":1}"#,
        r#"{"@t":1795255199.5000000000000000000000000000001,"n":2}"#,
    ];
    let since = crate::parse_bound("2026-11-21T10:00:00Z", NOW, &Zone::utc()).unwrap();
    let o = TimeOptions {
        since: Some(since),
        ..opts(None)
    };
    let q = "select n";
    assert_eq!(
        run_plan(&Plan::compile_with(q, &o).unwrap(), q, &lines),
        "1"
    );
}

// ---- differential: the engine against jiff, on generated times and conditions ----

mod differential {
    use std::cmp::Ordering;

    use jiff::Timestamp;
    use proptest::prelude::*;

    use super::{NOW, opts};
    use crate::Plan;
    use crate::tests::run_plan;

    /// A generated `@t`: text in one of many spellings, a number, or absent.
    fn time_value() -> impl Strategy<Value = Option<serde_json::Value>> {
        let text = (
            -7200i64..7200,
            0u32..1_000_000_000,
            0usize..10,
            prop::sample::select(vec!["Z", "+01:00", "-05:30", "+00:00", "", "z"]),
            prop::sample::select(vec!["T", " "]),
        )
            .prop_map(|(secs, nanos, digits, off, sep)| {
                let ts = Timestamp::new(NOW_SECS + secs, 0).unwrap();
                let offset = match off {
                    "+01:00" => 3600,
                    "-05:30" => -19800,
                    _ => 0,
                };
                let civil = ts
                    .to_zoned(jiff::tz::TimeZone::fixed(
                        jiff::tz::Offset::from_seconds(offset).unwrap(),
                    ))
                    .datetime();
                let frac = if digits == 0 {
                    String::new()
                } else {
                    format!(".{:09}", nanos)[..digits + 1].to_owned()
                };
                format!(
                    "{}{sep}{}{frac}{off}",
                    civil.date(),
                    civil.time().strftime("%H:%M:%S")
                )
            });
        prop_oneof![
            6 => text.prop_map(|t| Some(serde_json::Value::String(t))),
            1 => Just(Some(serde_json::Value::String("2026-11-21".into()))),
            1 => Just(Some(serde_json::Value::String("soon".into()))),
            1 => (-7200i64..7200).prop_map(|s| Some(serde_json::json!(NOW_SECS + s))),
            1 => Just(None),
        ]
    }

    const NOW_SECS: i64 = (NOW / 1_000_000_000) as i64;

    /// The instant of `v` as jiff reads it, independently of ndq's reader.
    fn reference_instant(v: &serde_json::Value) -> Option<i128> {
        match v {
            serde_json::Value::String(s) => s
                .parse::<Timestamp>()
                .ok()
                .or_else(|| {
                    let dt = s
                        .parse::<jiff::civil::DateTime>()
                        .ok()
                        .filter(|_| s.len() > 10)
                        .or_else(|| {
                            s.parse::<jiff::civil::Date>()
                                .ok()
                                .map(|d| d.at(0, 0, 0, 0))
                        })?;
                    jiff::tz::Offset::UTC.to_timestamp(dt).ok()
                })
                .map(|t| t.as_nanosecond()),
            serde_json::Value::Number(n) => Some(i128::from(n.as_i64()?) * 1_000_000_000),
            _ => None,
        }
    }

    #[derive(Clone, Debug)]
    enum Rhs {
        /// `now() - k minutes`
        Ago(i64),
        /// A time written as text, compared as text or as `datetime('...')`.
        Text(String, bool),
    }

    const OPS: [&str; 6] = ["=", "<>", "<", "<=", ">", ">="];

    fn holds(op: &str, o: Ordering) -> bool {
        match op {
            "=" => o.is_eq(),
            "<>" => o.is_ne(),
            "<" => o.is_lt(),
            "<=" => o.is_le(),
            ">" => o.is_gt(),
            _ => o.is_ge(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// `where` on times, and buckets, on lazy and serde documents (merged at every
        /// split, the prefilter checked by `run_plan`), agree with a reference over jiff.
        #[test]
        fn time_conditions_agree_with_jiff(
            times in prop::collection::vec(time_value(), 0..8),
            wrap in any::<bool>(),
            op in prop::sample::select(OPS.to_vec()),
            rhs in prop_oneof![
                (0i64..150).prop_map(Rhs::Ago),
                (time_value(), any::<bool>()).prop_filter_map("text", |(v, d)| match v {
                    Some(serde_json::Value::String(s)) => Some(Rhs::Text(s, d)),
                    _ => None,
                }),
            ],
            every in prop::sample::select(vec![("1m", 60i128), ("15m", 900), ("1h", 3600), ("1d", 86400), ("7s", 7)]),
        ) {
            let lines: Vec<String> = times
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let mut o = serde_json::Map::new();
                    if let Some(t) = t {
                        o.insert("@t".into(), t.clone());
                    }
                    o.insert("n".into(), serde_json::json!(i));
                    serde_json::Value::Object(o).to_string()
                })
                .collect();
            let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
            let lhs = if wrap { "datetime(@t)" } else { "@t" };
            let rhs_text = match &rhs {
                Rhs::Ago(k) => format!("now() - {k}m"),
                Rhs::Text(s, true) => format!("datetime('{s}')"),
                Rhs::Text(s, false) => format!("'{s}'"),
            };
            let query = format!("select n where {lhs} {op} {rhs_text}");
            let plan = Plan::compile_with(&query, &opts(None)).unwrap();
            let got = run_plan(&plan, &query, &refs);

            // The reference: each side as a time, or as text; text against text compares
            // as text, a time against text reads the text, anything else is null.
            let want: Vec<String> = times
                .iter()
                .enumerate()
                .filter(|(_, t)| {
                    let Some(t) = t else { return false };
                    enum S { Time(Option<i128>), Text(String), Other }
                    let l = if wrap {
                        S::Time(reference_instant(t))
                    } else {
                        match t {
                            serde_json::Value::String(s) => S::Text(s.clone()),
                            _ => S::Other,
                        }
                    };
                    let r = match &rhs {
                        Rhs::Ago(k) => S::Time(Some(NOW - i128::from(*k) * 60_000_000_000)),
                        Rhs::Text(s, true) => S::Time(reference_instant(&serde_json::json!(s))),
                        Rhs::Text(s, false) => S::Text(s.clone()),
                    };
                    let read = |s: &str| reference_instant(&serde_json::json!(s));
                    let o = match (l, r) {
                        (S::Time(Some(a)), S::Time(Some(b))) => Some(a.cmp(&b)),
                        (S::Time(Some(a)), S::Text(s)) => read(&s).map(|b| a.cmp(&b)),
                        (S::Text(s), S::Time(Some(b))) => read(&s).map(|a| a.cmp(&b)),
                        (S::Text(a), S::Text(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
                        _ => None,
                    };
                    o.is_some_and(|o| holds(op, o))
                })
                .map(|(i, _)| i.to_string())
                .collect();
            prop_assert_eq!(got, want.join(";"), "{}", query);

            // Buckets: the floor of each readable time, counted.
            let (name, secs) = every;
            let query = format!("select time({name}) as b, count(*) group by b");
            let plan = Plan::compile_with(&query, &opts(None)).unwrap();
            let got = run_plan(&plan, &query, &refs);
            let mut counts = std::collections::BTreeMap::<Option<i128>, usize>::new();
            for t in &times {
                let b = t.as_ref().and_then(reference_instant).map(|ns| {
                    let every = secs * 1_000_000_000;
                    ns.div_euclid(every) * every
                });
                *counts.entry(b).or_default() += 1;
            }
            // Null last, as group order has it.
            let mut rows: Vec<(Option<i128>, usize)> = counts.into_iter().collect();
            rows.sort_by_key(|(b, _)| (b.is_none(), *b));
            let want: Vec<String> = rows
                .into_iter()
                .map(|(b, n)| {
                    let b = b.map_or("null".to_owned(), |ns| {
                        Timestamp::from_nanosecond(ns).unwrap().to_string()
                    });
                    format!("{b}|{n}")
                })
                .collect();
            prop_assert_eq!(got, want.join(";"), "{}", query);
        }
    }
}
