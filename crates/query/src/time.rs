//! Instants and durations, independent of the evaluator: reading timestamps from text
//! (RFC 3339 / ISO 8601), writing them (RFC 3339, strftime), flooring them to buckets, time
//! zones ([`Zone`]), duration units, and the `--since`/`--until` forms ([`parse_bound`]).
//!
//! An instant is an `i128` of nanoseconds since the Unix epoch, always inside jiff's
//! [`Timestamp`] range (years -9999 to 9999), so every instant can be written and zoned. A
//! duration is an `i128` of nanoseconds of at most [`MAX_DURATION`] in magnitude, so its
//! number of seconds is an exact Decimal (`tonumber`, the output).
//!
//! Reading `@t` is on the hot path of `group by time(1m)`, so the fixed form almost every
//! logger writes, `YYYY-MM-DDTHH:MM:SS[.fff...](Z|±HH:MM)` (fraction digits past the ninth
//! left out), is read by hand ([`parse_fixed`]); anything else goes to jiff's Temporal
//! parser. A test checks that the hand-written reader agrees with jiff on every input it
//! accepts.

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::fmt::temporal::Pieces;
use jiff::tz::{Offset, TimeZone};

/// Nanoseconds per second, minute, hour, day, week.
pub(crate) const SECOND: i128 = 1_000_000_000;
pub(crate) const MINUTE: i128 = 60 * SECOND;
pub(crate) const HOUR: i128 = 60 * MINUTE;
pub(crate) const DAY: i128 = 24 * HOUR;
pub(crate) const WEEK: i128 = 7 * DAY;

/// The largest duration held (nanoseconds): `2^96 - 1`, what a Decimal's mantissa holds, so
/// a duration's seconds are always exact.
pub(crate) const MAX_DURATION: i128 = (1 << 96) - 1;

/// The accepted duration units and their length in nanoseconds (longest name first where
/// one is a prefix of another: `ms` before `m`).
const UNITS: &[(&str, i128)] = &[
    ("ms", 1_000_000),
    ("s", SECOND),
    ("m", MINUTE),
    ("h", HOUR),
    ("d", DAY),
    ("w", WEEK),
];

/// The units, for messages: `ms, s, m, h, d or w`.
pub(crate) const UNIT_NAMES: &str = "ms, s, m, h, d or w";

/// The length of one `unit` (`ms`, `s`, `m`, `h`, `d`, `w`; lower case), in nanoseconds.
pub(crate) fn unit_nanos(unit: &str) -> Option<i128> {
    UNITS.iter().find(|(u, _)| *u == unit).map(|&(_, n)| n)
}

/// The time functions that the planner compiles with the plan's time options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeFn {
    /// `datetime(x [, unit])`
    DateTime,
    /// `now()`
    Now,
    /// `time(ts, DURATION)` / `time(DURATION)`
    Bucket,
    /// `strftime(ts, format)`
    Strftime,
    /// `tostring(x)`: a timestamp in the zone, anything else as before.
    ToString,
}

/// Whether `ns` is an instant jiff can hold.
pub(crate) fn in_range(ns: i128) -> bool {
    (Timestamp::MIN.as_nanosecond()..=Timestamp::MAX.as_nanosecond()).contains(&ns)
}

/// The instant `ns` (checked with [`in_range`] by whoever made it).
fn timestamp(ns: i128) -> Option<Timestamp> {
    Timestamp::from_nanosecond(ns).ok()
}

/// The current instant.
pub(crate) fn now() -> i128 {
    Timestamp::now().as_nanosecond()
}

/// What the time functions and `--since`/`--until` take from the command line
/// ([`crate::Plan::compile_with`]). Instants are nanoseconds since the Unix epoch.
#[derive(Clone, Debug)]
pub struct TimeOptions {
    /// `--tz`: the zone of output, `strftime`, day and week buckets.
    pub zone: Zone,
    /// What `now()` gives; `None`: the time the plan is compiled.
    pub now: Option<i128>,
    /// `--time-field`: the time property of `time(DURATION)`, `--since` and `--until`,
    /// written as in a query (`@t`, `Properties.Time`, `['time stamp']`).
    pub time_field: String,
    /// `--since`: keep lines whose time property is at or after this instant.
    pub since: Option<i128>,
    /// `--until`: keep lines whose time property is before this instant.
    pub until: Option<i128>,
}

impl Default for TimeOptions {
    fn default() -> TimeOptions {
        TimeOptions {
            zone: Zone::utc(),
            now: None,
            time_field: "@t".to_owned(),
            since: None,
            until: None,
        }
    }
}

/// The current instant, for [`TimeOptions::now`] and [`parse_bound`].
pub fn now_nanos() -> i128 {
    now()
}

/// The time zone of `--tz`: `None` when not given (instants are written in UTC with `Z`).
#[derive(Clone, Debug, Default)]
pub struct Zone {
    tz: Option<TimeZone>,
}

impl Zone {
    /// UTC, not given: instants written with `Z`.
    pub fn utc() -> Zone {
        Zone { tz: None }
    }

    /// An IANA zone name (`Europe/Paris`, `UTC`) or `local` (the system's zone). The error
    /// says what was wrong and which forms are accepted.
    pub fn named(name: &str) -> Result<Zone, String> {
        let tz = if name.eq_ignore_ascii_case("local") {
            TimeZone::try_system().map_err(|e| {
                format!("the local time zone could not be determined ({e}); name one, like Europe/Paris or UTC")
            })?
        } else {
            TimeZone::get(name).map_err(|_| {
                format!(
                    "unknown time zone '{name}': expected an IANA zone name (like UTC, Europe/Paris, America/New_York) or local"
                )
            })?
        };
        Ok(Zone { tz: Some(tz) })
    }

    fn tz(&self) -> TimeZone {
        self.tz.clone().unwrap_or(TimeZone::UTC)
    }

    /// Whether a zone was given (timestamps are then written with its offset, `+00:00` for
    /// UTC itself, not `Z`).
    pub(crate) fn is_given(&self) -> bool {
        self.tz.is_some()
    }

    /// Whether days in this zone are UTC days (no zone given, or one always at offset 0).
    fn is_utc(&self) -> bool {
        match &self.tz {
            None => true,
            Some(tz) => tz.to_fixed_offset().is_ok_and(|o| o == Offset::UTC),
        }
    }
}

/// `ns` in RFC 3339: in UTC with `Z` when no zone was given, else with the zone's offset at
/// that instant; as many fraction digits as needed (none for whole seconds).
pub(crate) fn format(ns: i128, zone: &Zone) -> String {
    let Some(ts) = timestamp(ns) else {
        return String::new();
    };
    match &zone.tz {
        None => ts.to_string(),
        Some(tz) => ts
            .display_with_offset(minute_offset(tz.to_offset(ts)))
            .to_string(),
    }
}

/// `off` rounded to the minute. RFC 3339 writes offsets in minutes, but a zone's old local
/// mean time has seconds (Paris kept +00:09:21 until 1911): written with its own offset, the
/// wall time would carry the seconds and the text would name another instant. At the rounded
/// offset the text names the instant itself.
fn minute_offset(off: Offset) -> Offset {
    // Half a minute away from zero, as jiff rounds by default.
    off.round(jiff::Unit::Minute).unwrap_or(off)
}

/// `strftime(ns, fmt)` in the zone (UTC when none); `None` when the format is invalid.
pub(crate) fn strftime(ns: i128, fmt: &str, zone: &Zone) -> Option<String> {
    let zoned = timestamp(ns)?.to_zoned(zone.tz());
    let c = AsC { ns, zoned: &zoned };
    jiff::fmt::strtime::format(c_locale(fmt, c).as_ref(), &zoned).ok()
}

/// What C's `strftime` writes for `%s` (the whole seconds since the epoch, rounded down:
/// `-1` half a second before 1970), `%C` (the century, two digits at least: `09` in 999),
/// and `%y` and `%g` (the year and the ISO week-based year within their century, `00` to
/// `99` even before year 0: `94` in -6), where jiff writes otherwise; each worked out only
/// when the format has it.
#[derive(Clone, Copy)]
struct AsC<'z> {
    ns: i128,
    zoned: &'z jiff::Zoned,
}

impl AsC<'_> {
    fn seconds(self) -> i128 {
        self.ns.div_euclid(SECOND)
    }

    fn century(self) -> i64 {
        i64::from(self.zoned.year()).div_euclid(100)
    }

    fn year(self) -> i64 {
        i64::from(self.zoned.year()).rem_euclid(100)
    }

    fn week_year(self) -> i64 {
        i64::from(self.zoned.date().iso_week_date().year()).rem_euclid(100)
    }
}

/// `fmt` with the directives whose output depends on a locale written out as C's `strftime`
/// writes them in the C locale (`%c` `Sun Jan  4 07:05:09 2026`, `%x` `01/04/26`, `%r`
/// `07:05:09 AM`), where jiff has forms of its own, and `%s`, `%C`, `%y` and `%g` as
/// [`AsC`] says; every other directive, `%%` and directives with a flag among them, is left
/// to jiff.
fn c_locale<'f>(fmt: &'f str, as_c: AsC<'_>) -> std::borrow::Cow<'f, str> {
    if !fmt.contains('%') {
        return fmt.into();
    }
    let mut out = String::with_capacity(fmt.len());
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('c') => out.push_str("%a %b %e %H:%M:%S %Y"),
            // `%D` is `%m/%d/%y`: its year as `%y` writes it.
            Some('x' | 'D') => out.push_str(&format!("%m/%d/{:02}", as_c.year())),
            Some('r') => out.push_str("%I:%M:%S %p"),
            Some('s') => out.push_str(&as_c.seconds().to_string()),
            Some('C') => out.push_str(&format!("{:02}", as_c.century())),
            Some('y') => out.push_str(&format!("{:02}", as_c.year())),
            Some('g') => out.push_str(&format!("{:02}", as_c.week_year())),
            Some(d) => {
                out.push('%');
                out.push(d);
            }
            None => out.push('%'),
        }
    }
    out.into()
}

/// `time(ns, every)`: `ns` floored to a multiple of `every` counted from the Unix epoch in
/// UTC, except for one day (days from midnight in the zone) and one week (weeks from Monday
/// midnight in the zone). `None` for a duration that is not positive.
pub(crate) fn bucket(ns: i128, every: i128, zone: &Zone) -> Option<i128> {
    floor(
        ns,
        every,
        zone,
        every == DAY || every == WEEK,
        every == WEEK,
    )
}

/// [`bucket`], but every multiple of a day counts local calendar days in the zone, and every
/// multiple of a week counts from a Monday (a step of labels on a time axis: `2d` from a
/// local midnight, `13w` from a Monday, as a reader of local dates counts).
pub(crate) fn calendar_step(ns: i128, every: i128, zone: &Zone) -> Option<i128> {
    floor(ns, every, zone, every % DAY == 0, every % WEEK == 0)
}

/// `ns` floored to a multiple of `every` from the Unix epoch in UTC (from Monday 1969-12-29
/// when `weeks`), or, when `local` and the zone is not UTC, to a multiple of `every`'s days
/// counted in local calendar days.
fn floor(ns: i128, every: i128, zone: &Zone, local: bool, weeks: bool) -> Option<i128> {
    if every <= 0 {
        return None;
    }
    // 1970-01-01 was a Thursday: weeks count from Monday 1969-12-29.
    let origin = if weeks { -3 * DAY } else { 0 };
    if !local || zone.is_utc() {
        // In i64 when it fits (years 1677 to 2262): an i128 division is a library call. The
        // start of the bucket may not fit when the instant does (an instant of 1677 floored
        // to the hour falls before i64's least): then in i128 too.
        let since = ns - origin;
        let narrow = match (i64::try_from(since), i64::try_from(every)) {
            (Ok(x), Ok(e)) => x.div_euclid(e).checked_mul(e),
            _ => None,
        };
        let start = match narrow {
            Some(start) => i128::from(start) + origin,
            None => since.div_euclid(every) * every + origin,
        };
        return in_range(start).then_some(start);
    }
    // One day or one week in a zone: count local calendar days, then take that day's first
    // instant.
    let tz = zone.tz();
    let date = timestamp(ns)?.to_zoned(tz.clone()).date();
    let days = i128::from(date.since(Date::constant(1970, 1, 1)).ok()?.get_days());
    let (origin_days, every_days) = (origin / DAY, every / DAY);
    let floored = (days - origin_days).div_euclid(every_days) * every_days + origin_days;
    let back = i64::try_from(days - floored).ok()?;
    let first = date
        .checked_sub(jiff::Span::new().try_days(back).ok()?)
        .ok()?;
    let start = first.to_zoned(tz).ok()?.timestamp().as_nanosecond();
    in_range(start).then_some(start)
}

/// An instant from text: RFC 3339 / ISO 8601, a space allowed for the `T`, a date alone
/// meaning midnight, no offset meaning `default_offset` (UTC for `datetime`), a leap second
/// read as the second before it. `None` for anything else.
pub(crate) fn parse_text(s: &str) -> Option<i128> {
    parse_fixed(s.as_bytes()).or_else(|| parse_general(s, None))
}

/// [`parse_text`] through jiff; no offset means midnight / wall time in the bracketed zone
/// the text names, else in `zone` (UTC when `None`).
fn parse_general(s: &str, zone: Option<&TimeZone>) -> Option<i128> {
    let text = nanosecond_fraction(s);
    let pieces = Pieces::parse(text.as_ref()).ok()?;
    let dt = pieces.date().to_datetime(pieces.time().unwrap_or_default());
    // A bracketed zone (`[Asia/Kolkata]`, RFC 9557) names the zone of a wall time that has
    // no offset; beside an offset it only informs. One ndq does not know gives `None`.
    let named = match pieces.time_zone_annotation() {
        Some(a) if pieces.offset().is_none() => Some(a.to_time_zone().ok()?),
        _ => None,
    };
    let zone = named.as_ref().or(zone);
    let ts = match (pieces.offset(), zone) {
        (Some(off), _) => {
            let off = off.to_numeric_offset();
            // RFC 3339's offsets are under 24 hours (jiff's Temporal forms go to 25:59), and
            // whole minutes (jiff also reads `+01:00:30`).
            if off.seconds().unsigned_abs() >= 24 * 3600 || off.seconds() % 60 != 0 {
                return None;
            }
            off.to_timestamp(dt).ok()?
        }
        (None, Some(tz)) => tz.to_ambiguous_zoned(dt).compatible().ok()?.timestamp(),
        (None, None) => Offset::UTC.to_timestamp(dt).ok()?,
    };
    Some(ts.as_nanosecond())
}

/// `s` with a seconds fraction of more than nine digits cut to nine: RFC 3339 allows any
/// number of digits, an instant is held to the nanosecond, and jiff reads at most nine. Only
/// the first `.` or `,` followed by a digit can start a fraction in these forms.
fn nanosecond_fraction(s: &str) -> std::borrow::Cow<'_, str> {
    let b = s.as_bytes();
    let Some(dot) = b.iter().position(|&c| c == b'.' || c == b',') else {
        return s.into();
    };
    let digits = b[dot + 1..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits <= 9 {
        return s.into();
    }
    // ASCII digits: the cuts are character boundaries.
    format!("{}{}", &s[..dot + 10], &s[dot + 1 + digits..]).into()
}

/// Days from 1970-01-01 to the proleptic Gregorian date `y-m-d` (Howard Hinnant's
/// `days_from_civil`): shift the year to start in March so the leap day is last, then count
/// 400-year eras, years of the era, and days of the year from the month by a linear formula.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days in month `m` of year `y`.
fn month_days(y: i64, m: i64) -> i64 {
    match m {
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The fixed RFC 3339 form, read by hand: `YYYY-MM-DD(T|t| )HH:MM:SS[.f+](Z|z|±HH:MM)` (a
/// fraction's digits past the ninth left out).
/// `None` for anything else (which may still be valid for [`parse_general`]). Never accepts
/// what jiff rejects, and gives the same instant (a test checks this).
pub(crate) fn parse_fixed(b: &[u8]) -> Option<i128> {
    let secs = fixed_seconds(b)?;
    fixed_instant(secs, b)
}

/// The first 19 bytes of the fixed form (`YYYY-MM-DDTHH:MM:SS`, at least 20 bytes given):
/// the wall-clock seconds they name since the epoch, before the offset (a leap second read
/// as the second before it).
pub(crate) fn fixed_seconds(b: &[u8]) -> Option<i64> {
    // Two or four ASCII digits at `at`.
    let num = |at: usize, len: usize| -> Option<i64> {
        let digits = b.get(at..at + len)?;
        digits.iter().try_fold(0i64, |v, &c| {
            c.is_ascii_digit().then(|| v * 10 + i64::from(c - b'0'))
        })
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, s) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&mo) || d < 1 || d > month_days(y, mo) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    // A leap second is the second before it, as jiff reads it.
    Some(days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s.min(59))
}

/// The instant of the fixed form `b` whose first 19 bytes name `secs` ([`fixed_seconds`]):
/// its fraction and offset read from byte 19 on.
pub(crate) fn fixed_instant(secs: i64, b: &[u8]) -> Option<i128> {
    let digit = |at: usize| -> Option<i64> {
        let c = *b.get(at)?;
        c.is_ascii_digit().then(|| i64::from(c - b'0'))
    };
    let mut i = 19;
    let mut frac: i64 = 0;
    if *b.get(i)? == b'.' {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            // Digits past the ninth (below a nanosecond) are read and left out.
            if i - start < 9 {
                frac = frac * 10 + i64::from(b[i] - b'0');
            }
            i += 1;
        }
        let n = i - start;
        if n == 0 {
            return None;
        }
        frac *= 10i64.pow(9 - n.min(9) as u32);
    }
    let offset_secs = match b.get(i..)? {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let oh = digit(i + 1)? * 10 + digit(i + 2)?;
            let om = digit(i + 4)? * 10 + digit(i + 5)?;
            if oh > 23 || om > 59 {
                return None;
            }
            let secs = oh * 3600 + om * 60;
            if *sign == b'-' { -secs } else { secs }
        }
        _ => return None,
    };
    let ns = i128::from(secs - offset_secs) * SECOND + i128::from(frac);
    in_range(ns).then_some(ns)
}

/// A duration written as a number followed at once by a unit (`30m`, `1.5h`, `2d`), in
/// nanoseconds; `None` when `s` is not one.
pub fn parse_duration(s: &str) -> Option<i128> {
    let split = s.find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')?;
    let (number, unit) = s.split_at(split);
    let unit = unit_nanos(unit)?;
    let n = rust_decimal::Decimal::from_scientific(number)
        .or_else(|_| number.parse())
        .ok()?;
    duration_of(n, unit)
}

/// `n` units of `unit` nanoseconds, when that is a whole number of nanoseconds in range.
pub(crate) fn duration_of(n: rust_decimal::Decimal, unit: i128) -> Option<i128> {
    let total = n.checked_mul(rust_decimal::Decimal::from_i128_with_scale(unit, 0))?;
    if !total.is_integer() {
        return None;
    }
    let ns = i128::try_from(total).ok()?;
    (ns.abs() <= MAX_DURATION).then_some(ns)
}

/// The accepted forms of `--since`/`--until`, for messages.
pub const BOUND_FORMS: &str = "an RFC 3339 time (2026-11-21T10:00:00Z), a date (2026-11-21), now, today, yesterday, or a duration before now (30m, 2h, 2d)";

/// A `--since`/`--until` value: an RFC 3339 time or a date (without an offset, in `zone`),
/// `now`, `today`, `yesterday` (midnight in `zone`), or a duration meaning that long
/// before `now`. The error quotes the value and lists the accepted forms.
pub fn parse_bound(text: &str, now: i128, zone: &Zone) -> Result<i128, String> {
    let bad = || format!("invalid time '{text}': expected {BOUND_FORMS}");
    let midnight = |days_back: i64| -> Option<i128> {
        let tz = zone.tz();
        let today = timestamp(now)?.to_zoned(tz.clone()).date();
        let day = today
            .checked_sub(jiff::Span::new().try_days(days_back).ok()?)
            .ok()?;
        Some(day.to_zoned(tz).ok()?.timestamp().as_nanosecond())
    };
    let t = text.trim();
    let found = match t.to_ascii_lowercase().as_str() {
        "now" => Some(now),
        "today" => midnight(0),
        "yesterday" => midnight(1),
        _ => match parse_duration(t) {
            // `--since -5m` would be five minutes ahead: not what anyone means.
            Some(d) if d < 0 => {
                let back = t.trim_start_matches('-');
                return Err(format!(
                    "invalid time '{text}': a duration counts back from now (write {back})"
                ));
            }
            Some(d) => Some(now - d),
            None => parse_general(t, Some(&zone.tz())),
        },
    };
    found.filter(|&ns| in_range(ns)).ok_or_else(bad)
}

/// `ns` in RFC 3339 UTC (for tests).
#[cfg(test)]
pub(crate) fn date_text(ns: i128) -> String {
    format(ns, &Zone::utc())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn jiff_parse(s: &str) -> Option<i128> {
        parse_general(s, None)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// The hand-written reader accepts only what jiff accepts, with the same instant.
        #[test]
        fn fixed_reader_agrees_with_jiff(
            s in "[0-9]{4}-[01][0-9]-[0-3][0-9][Tt ][0-2][0-9]:[0-6][0-9]:[0-6][0-9](\\.[0-9]{0,10})?([Zz]|[+-][0-2][0-9]:[0-6][0-9]|)"
        ) {
            if let Some(ns) = parse_fixed(s.as_bytes()) {
                prop_assert_eq!(Some(ns), jiff_parse(&s), "{}", s);
            }
        }

        /// Instants anywhere in range, written in RFC 3339 with any offset: the two readers
        /// agree.
        #[test]
        fn fixed_reader_reads_what_jiff_writes(
            secs in -62_135_596_800i64..253_402_000_000,
            nanos in 0u32..1_000_000_000,
            off_min in -(23 * 60 + 59)..=(23i32 * 60 + 59),
        ) {
            let ts = Timestamp::new(secs, nanos as i32).unwrap();
            let off = Offset::from_seconds(off_min * 60).unwrap();
            let text = ts.display_with_offset(off).to_string();
            prop_assert_eq!(parse_fixed(text.as_bytes()), Some(ts.as_nanosecond()), "{}", text);
        }

        /// Arbitrary bytes never make the hand-written reader accept what jiff rejects.
        #[test]
        fn fixed_reader_on_arbitrary_text(s in "\\PC{0,40}") {
            if let Some(ns) = parse_fixed(s.as_bytes()) {
                prop_assert_eq!(Some(ns), jiff_parse(&s), "{}", s);
            }
        }
    }

    #[test]
    fn offsets_with_seconds_are_not_read_and_written_to_the_minute() {
        assert_eq!(parse_text("2026-11-21T10:00:00+01:00:30"), None);
        assert_eq!(parse_text("2026-11-21T10:00:00-00:44:30"), None);
        assert!(parse_text("2026-11-21T10:00:00+01:00").is_some());
        // Zones whose offset had seconds (local mean time): the text written reads back as
        // the same instant, at an offset rounded to the minute.
        for (name, at, want) in [
            (
                "Europe/Paris",
                "1900-01-01T12:00:00Z",
                "1900-01-01T12:09:00+00:09",
            ),
            (
                "Africa/Monrovia",
                "1935-06-01T12:00:00.5Z",
                "1935-06-01T11:15:00.5-00:45",
            ),
            (
                "Europe/Paris",
                "2026-11-21T10:00:00Z",
                "2026-11-21T11:00:00+01:00",
            ),
        ] {
            let zone = Zone::named(name).unwrap();
            let ns = parse_text(at).unwrap();
            let text = format(ns, &zone);
            assert_eq!(text, want, "{name} {at}");
            assert_eq!(parse_text(&text), Some(ns), "{text}");
        }
    }

    #[test]
    fn fixed_reader_edge_cases() {
        for s in [
            "2026-11-21T10:00:00Z",
            "2026-11-21t10:00:00z",
            "2026-11-21 10:00:00Z",
            "2026-11-21T10:00:00.1234567+02:00",
            "2026-11-21T10:00:00.123456789-05:30",
            "2016-12-31T23:59:60Z",
            "2024-02-29T00:00:00Z",
            "0000-01-01T00:00:00+00:00",
            "1969-12-31T23:59:59.999999999Z",
        ] {
            assert_eq!(parse_fixed(s.as_bytes()), jiff_parse(s), "{s}");
            assert!(parse_fixed(s.as_bytes()).is_some(), "{s}");
        }
        for s in [
            "2023-02-29T00:00:00Z",
            "2026-11-21T24:00:00Z",
            "2026-11-21T10:00:00.Z",
            "2026-11-21T10:00:00",
            "2026-11-21T10:00:00+0200",
            "9999-12-31T23:59:59Z",
        ] {
            assert_eq!(parse_fixed(s.as_bytes()), None, "{s}");
        }
        assert_eq!(
            parse_fixed(b"2016-12-31T23:59:60Z"),
            parse_fixed(b"2016-12-31T23:59:59Z")
        );
        // A fraction's digits past the ninth are left out, by both readers.
        for (s, cut) in [
            (
                "2026-11-21T10:00:00.1234567891Z",
                "2026-11-21T10:00:00.123456789Z",
            ),
            (
                "2026-11-21T10:00:00.123456789999999+02:00",
                "2026-11-21T10:00:00.123456789+02:00",
            ),
        ] {
            assert_eq!(
                parse_fixed(s.as_bytes()),
                parse_fixed(cut.as_bytes()),
                "{s}"
            );
            assert_eq!(parse_fixed(s.as_bytes()), jiff_parse(s), "{s}");
            assert!(parse_fixed(s.as_bytes()).is_some(), "{s}");
        }
    }

    #[test]
    fn general_forms() {
        let t = |s: &str| parse_text(s).map(date_text);
        for (text, want) in [
            ("2026-11-21", "2026-11-21T00:00:00Z"),
            ("2026-11-21T10:00:00", "2026-11-21T10:00:00Z"),
            ("2026-11-21 10:00", "2026-11-21T10:00:00Z"),
            ("2026-11-21T10:00:00,5+01:00", "2026-11-21T09:00:00.5Z"),
            // Fraction digits past the ninth left out.
            (
                "2026-11-21T10:00:00.1234567891",
                "2026-11-21T10:00:00.123456789Z",
            ),
            ("2026-11-21T10:00:00-23:59", "2026-11-22T09:59:00Z"),
        ] {
            assert_eq!(t(text).as_deref(), Some(want), "{text}");
        }
        for bad in [
            "",
            "x",
            // RFC 3339's offsets are under 24 hours.
            "2026-11-21T10:00:00+24:00",
            "2026-11-21T10:00:00-25:00",
            "2026-11-21 10:00+25:59",
            "2026-13-01",
            "10:00:00",
            " 2026-11-21",
            "1700000000",
        ] {
            assert_eq!(t(bad), None, "{bad}");
        }
    }

    /// Near the least and greatest instants an i64 of nanoseconds holds (1677 and 2262), a
    /// bucket's start may not fit one though the instant does: the floor is the one counted
    /// in i128 (it wrapped to 2262 before).
    #[test]
    fn buckets_near_the_ends_of_i64_do_not_wrap() {
        let utc = Zone::utc();
        let at = |s: &str| parse_text(s).unwrap();
        assert_eq!(
            date_text(bucket(at("1677-09-21T00:12:44Z"), MINUTE, &utc).unwrap()),
            "1677-09-21T00:12:00Z"
        );
        assert_eq!(
            date_text(bucket(at("1677-09-21T00:12:44Z"), DAY, &utc).unwrap()),
            "1677-09-21T00:00:00Z"
        );
        assert_eq!(
            date_text(bucket(at("1690-01-01T00:00:00Z"), 20_000 * DAY, &utc).unwrap()),
            "1641-06-14T00:00:00Z"
        );
        let least = i128::from(i64::MIN);
        let most = i128::from(i64::MAX);
        for every in [SECOND, MINUTE, HOUR, DAY, WEEK, 1000 * WEEK, 7 * SECOND + 1] {
            for ns in [
                least,
                least + 1,
                least + every,
                most,
                most - every,
                -3 * DAY,
            ] {
                let origin = if every == WEEK { -3 * DAY } else { 0 };
                let want = (ns - origin).div_euclid(every) * every + origin;
                assert_eq!(bucket(ns, every, &utc), Some(want), "{ns} {every}");
            }
        }
    }

    #[test]
    fn buckets() {
        let at = |s: &str| parse_text(s).unwrap();
        let b = |s: &str, every: i128, zone: &Zone| date_text(bucket(at(s), every, zone).unwrap());
        let utc = Zone::utc();
        assert_eq!(
            b("2026-11-21T10:05:59.9Z", MINUTE, &utc),
            "2026-11-21T10:05:00Z"
        );
        assert_eq!(
            b("2026-11-21T10:05:59Z", 15 * MINUTE, &utc),
            "2026-11-21T10:00:00Z"
        );
        assert_eq!(
            b("1969-12-31T23:59:59Z", HOUR, &utc),
            "1969-12-31T23:00:00Z"
        );
        // 2026-11-21 is a Saturday: its week starts on Monday the 16th.
        assert_eq!(
            b("2026-11-21T10:00:00Z", WEEK, &utc),
            "2026-11-16T00:00:00Z"
        );
        assert_eq!(
            b("2026-11-16T00:00:00Z", WEEK, &utc),
            "2026-11-16T00:00:00Z"
        );
        let paris = Zone::named("Europe/Paris").unwrap();
        // 00:30 in Paris on the 21st is still the 20th in UTC.
        assert_eq!(
            b("2026-11-20T23:30:00Z", DAY, &paris),
            "2026-11-20T23:00:00Z"
        );
        assert_eq!(
            b("2026-11-20T22:30:00Z", DAY, &paris),
            "2026-11-19T23:00:00Z"
        );
        assert_eq!(
            b("2026-11-21T10:00:00Z", WEEK, &paris),
            "2026-11-15T23:00:00Z"
        );
        // Hours count from the epoch in UTC whatever the zone.
        let kolkata = Zone::named("Asia/Kolkata").unwrap();
        assert_eq!(
            b("2026-11-21T10:05:00Z", HOUR, &kolkata),
            "2026-11-21T10:00:00Z"
        );
        // Other numbers of days and weeks count from the epoch (a Thursday) in UTC, whatever
        // the zone: 2026-11-21 is the 20,778th day, even, and 2 days past a 14-day multiple.
        assert_eq!(
            b("2026-11-21T00:30:00Z", 2 * DAY, &paris),
            "2026-11-21T00:00:00Z"
        );
        assert_eq!(
            b("2026-11-21T10:00:00Z", 2 * WEEK, &utc),
            "2026-11-19T00:00:00Z"
        );
        // Seven days are one week.
        assert_eq!(
            b("2026-11-21T10:00:00Z", 7 * DAY, &paris),
            "2026-11-15T23:00:00Z"
        );
        assert_eq!(bucket(0, 0, &utc), None);
        assert_eq!(bucket(0, -SECOND, &utc), None);
    }

    #[test]
    fn output_forms() {
        let at = |s: &str| parse_text(s).unwrap();
        assert_eq!(
            format(at("2026-11-21T10:05:00Z"), &Zone::utc()),
            "2026-11-21T10:05:00Z"
        );
        assert_eq!(
            format(at("2026-11-21T10:05:00.25Z"), &Zone::utc()),
            "2026-11-21T10:05:00.25Z"
        );
        let paris = Zone::named("Europe/Paris").unwrap();
        assert_eq!(
            format(at("2026-11-21T10:05:00Z"), &paris),
            "2026-11-21T11:05:00+01:00"
        );
        assert_eq!(
            format(at("2026-07-01T10:05:00Z"), &paris),
            "2026-07-01T12:05:00+02:00"
        );
        assert_eq!(
            strftime(at("2026-11-21T10:05:00Z"), "%Y-%m-%d %H:%M", &paris).as_deref(),
            Some("2026-11-21 11:05")
        );
        assert!(Zone::named("Mars/Olympus").is_err());
    }

    #[test]
    fn bounds() {
        let now = parse_text("2026-11-21T10:05:00Z").unwrap();
        let utc = Zone::utc();
        let p = |s: &str, z: &Zone| parse_bound(s, now, z).map(date_text);
        assert_eq!(p("now", &utc).unwrap(), "2026-11-21T10:05:00Z");
        assert_eq!(p("today", &utc).unwrap(), "2026-11-21T00:00:00Z");
        assert_eq!(p("Yesterday", &utc).unwrap(), "2026-11-20T00:00:00Z");
        assert_eq!(p("30m", &utc).unwrap(), "2026-11-21T09:35:00Z");
        assert_eq!(p("2d", &utc).unwrap(), "2026-11-19T10:05:00Z");
        assert_eq!(p("2026-11-01", &utc).unwrap(), "2026-11-01T00:00:00Z");
        assert_eq!(
            p("2026-11-01T10:00:00+01:00", &utc).unwrap(),
            "2026-11-01T09:00:00Z"
        );
        let paris = Zone::named("Europe/Paris").unwrap();
        assert_eq!(p("today", &paris).unwrap(), "2026-11-20T23:00:00Z");
        assert_eq!(p("2026-11-01", &paris).unwrap(), "2026-10-31T23:00:00Z");
        let e = p("last week", &utc).unwrap_err();
        assert!(
            e.starts_with("invalid time 'last week': expected an RFC 3339"),
            "{e}"
        );
        assert!(p("5x", &utc).is_err());
        assert_eq!(
            p("-5m", &utc).unwrap_err(),
            "invalid time '-5m': a duration counts back from now (write 5m)"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms"), Some(500_000_000));
        assert_eq!(parse_duration("1.5h"), Some(90 * MINUTE));
        assert_eq!(parse_duration("1e3ms"), Some(SECOND));
        assert_eq!(parse_duration("5x"), None);
        assert_eq!(parse_duration("5mss"), None);
        assert_eq!(parse_duration("0.0000000001s"), None);
    }
}
