//! The range's derivation and the leading-time reader, against the fixed reader and plans.

use super::*;
use crate::time::parse_fixed;
use crate::{Plan, TimeOptions};

fn range(query: &str) -> Option<TimeRange> {
    Plan::compile(query).unwrap().time_range().cloned()
}

fn instant(s: &str) -> i128 {
    parse_text(s).unwrap()
}

#[test]
fn leading_time_only_from_a_plain_first_member() {
    let t = |line: &str| leading_time(line.as_bytes(), b"@t").map(|s| s.text.to_vec());
    let want = Some(b"2026-11-21T10:00:00Z".to_vec());
    assert_eq!(t(r#"{"@t":"2026-11-21T10:00:00Z","a":1}"#), want);
    assert_eq!(t(r#" { "@t" : "2026-11-21T10:00:00Z" } "#), want);
    for no in [
        r#"{"a":1,"@t":"2026-11-21T10:00:00Z"}"#,
        r#"{"@\u0074":"2026-11-21T10:00:00Z"}"#,
        r#"{"@t":"2026-11-21T10:00:00\u005a"}"#,
        r#"{"@t":1795255200}"#,
        r#"{"@t":"soon"}"#,
        r#"{"@t":"2026-11-21T10:00:00Z" x}"#,
        r#"{"@t":"2026-11-21T10:00:00Z"#,
        r#"{"@tt":"2026-11-21T10:00:00Z"}"#,
        r#"[{"@t":"2026-11-21T10:00:00Z"}]"#,
        "",
    ] {
        assert_eq!(t(no), None, "{no}");
    }
    let s = leading_time(br#"{"@t":"2026-11-21T12:00:00+02:00"}"#, b"@t").unwrap();
    assert_eq!(s.instant, instant("2026-11-21T10:00:00Z"));
}

proptest::proptest! {
    /// The reader, remembering seconds from line to line, reads each line's time as the
    /// fixed reader does.
    #[test]
    fn reader_agrees_with_the_fixed_reader(
        times in proptest::collection::vec(
            "2026-(02|11)-(2[89]|30) ?[01]0:00:(59|60)(\\.[0-9]{0,10})?([Zz]|[+-][01][0-9]:[0-6][0-9]|)",
            1..20,
        )
    ) {
        let key = b"@t";
        let mut reader = TimeReader::new(key);
        for t in &times {
            let line = format!("{{\"@t\":\"{t}\",\"x\":1}}");
            let got = reader.read(line.as_bytes()).map(|s| s.instant);
            proptest::prop_assert_eq!(got, parse_fixed(t.as_bytes()), "{}", t);
            let spaced = format!(" {{ \"@t\" : \"{t}\" }}");
            let got = reader.read(spaced.as_bytes()).map(|s| s.instant);
            proptest::prop_assert_eq!(got, parse_fixed(t.as_bytes()), "{}", t);
        }
    }
}

#[test]
fn bounds_from_since_until_and_where() {
    let time = TimeOptions {
        since: Some(instant("2026-11-21T10:00:00Z")),
        until: Some(instant("2026-11-21T11:00:00Z")),
        ..TimeOptions::default()
    };
    let r = Plan::compile_with("select count(*)", &time)
        .unwrap()
        .time_range()
        .cloned()
        .unwrap();
    assert_eq!(r.key(), "@t");
    assert_eq!((r.lo, r.hi), (time.since.unwrap(), time.until.unwrap() - 1));

    let r = range("select * where datetime('2026-11-21T10:00:00Z') < @t and x = 1").unwrap();
    assert_eq!(
        (r.lo, r.hi),
        (instant("2026-11-21T10:00:00Z") + 1, i128::MAX)
    );
    let r = range("select * where @t >= '2026-11-21T10' and @t <= '2026-11-22'").unwrap();
    assert_eq!(r.text_lo, Some((b"2026-11-21T10".to_vec(), true)));
    assert_eq!(r.text_hi, Some((b"2026-11-22".to_vec(), true)));
    let r = range("select * where datetime(ts) = '2026-11-21T10:00:00+01:00'").unwrap();
    assert_eq!(
        (r.key(), r.lo, r.hi),
        ("ts", instant("2026-11-21T09:00:00Z"), r.lo)
    );
    let r = range("select * where datetime(@t) >= datetime('2026-11-21') + 1h").unwrap();
    assert_eq!(r.lo, instant("2026-11-21T01:00:00Z"));
    // The first key bounded is the one kept.
    let r = range("select * where @t > datetime('2026-11-21') and b < datetime('2026-11-20')");
    assert_eq!(r.unwrap().key(), "@t");
    for none in [
        "select * where @t >= datetime('2026-11-21') or x = 1",
        "select * where not @t < datetime('2026-11-21')",
        "select * where @t <> datetime('2026-11-21')",
        "select * where a.b >= datetime('2026-11-21')",
        "select * where @t >= x",
        "select count(*)",
    ] {
        assert_eq!(range(none), None, "{none}");
    }
}

#[test]
fn a_range_rules_out_what_lies_outside() {
    let r = range("select * where @t >= datetime('2026-11-21T10:00:00Z') and @t < '2026-11-21T11'")
        .unwrap();
    let at = |s: &'static str| Stamp {
        text: s.as_bytes(),
        instant: instant(s),
    };
    assert!(r.rules_out(&at("2026-11-21T09:59:59.999Z")));
    assert!(!r.rules_out(&at("2026-11-21T10:00:00Z")));
    assert!(!r.rules_out(&at("2026-11-21T10:59:59Z")));
    assert!(r.rules_out(&at("2026-11-21T11:00:00Z")));
    // Text order: the same instant written with an offset is a later text.
    assert!(r.rules_out(&at("2026-11-21T12:30:00+02:00")));
    let empty = range("select * where datetime(@t) > now() and datetime(@t) < now()").unwrap();
    assert!(empty.outside(i128::MIN, i128::MAX, b"", b"\xff"));
}
