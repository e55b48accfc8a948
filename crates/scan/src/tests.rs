//! Hand-written cases, run through every scanner this CPU has. The generated differential,
//! mutation and alignment tests are in `tests/`.

use std::str::FromStr;

use super::*;

fn scanners() -> Vec<Scanner> {
    let mut all = vec![Scanner::Scalar];
    all.extend(Scanner::avx2());
    all
}

/// Parse with every scanner; they must agree on the verdict. The result rendered as text.
fn verdict(line: &str) -> Result<(), Malformed> {
    let mut first = None;
    for s in scanners() {
        let mut p = Parser::new(s);
        let v = p.parse(line.as_bytes()).map(|_| ());
        if let Some(f) = &first {
            assert_eq!(f, &v, "{} disagrees on {line:?}", s.name());
        }
        first = Some(v);
    }
    first.unwrap_or(Ok(()))
}

fn rejects(line: &str, offset: usize, reason: Reason) {
    assert_eq!(
        verdict(line),
        Err(Malformed { offset, reason }),
        "line {line:?}"
    );
}

fn accepts(line: &str) {
    assert_eq!(verdict(line), Ok(()), "line {line:?}");
}

#[test]
fn accepts_valid_lines() {
    for line in [
        "{}",
        " {} ",
        "\t{\r\n}\n",
        r#"{"a":1}"#,
        r#"{"a": 1, "b": [1, 2, {"c": null}], "d": {"e": true, "f": false}}"#,
        r#"{"a":"x\"y\\z\/\b\f\n\r\tq\u00e9\uD83D\uDE00"}"#,
        r#"{"a":[],"b":{},"c":[[]],"d":[{}]}"#,
        r#"{"n":[0,-0,1.5,-1.5e10,2E-3,1e400,123456789012345678901234567890]}"#,
        "{\"é\":\"ü\u{7f}\"}",
        r#"{"a":1,"a":2}"#,
        "{ \"a\" : 1 , \"b\" : [ 1 , 2 ] }",
        // A `}` or `]` and what follows it in the parent, minified and not.
        r#"{"a":{"b":{"c":1},"d":2},"e":[{"f":[]},{},[1,"x"]],"g":{}}"#,
        "{\"a\":{ \"b\":1 } , \"c\":[ 1 , \"x\" , {\"d\":[ ]} ] ,\"e\":{\n}}",
    ] {
        accepts(line);
    }
}

#[test]
fn rejects_with_offset_and_reason() {
    use Reason::*;
    let cases: &[(&str, usize, Reason)] = &[
        ("", 0, NotAnObject),
        ("   ", 3, NotAnObject),
        ("[1]", 0, NotAnObject),
        ("1", 0, NotAnObject),
        (r#""a""#, 0, NotAnObject),
        ("x{}", 0, NotAnObject),
        ("{", 1, Syntax),
        ("{}}", 2, TrailingCharacters),
        ("{} x", 3, TrailingCharacters),
        ("{}{}", 2, TrailingCharacters),
        (r#"{"a"}"#, 4, Syntax),
        (r#"{"a" 1}"#, 5, Syntax),
        (r#"{"a":1 "b":2}"#, 7, Syntax),
        (r#"{"a":1,}"#, 7, Syntax),
        (r#"{"a":[1,]}"#, 8, Syntax),
        (r#"{"a":[,1]}"#, 6, Syntax),
        (r#"{"a":}"#, 5, Syntax),
        (r#"{"a":[}"#, 6, Syntax),
        (r#"{"a":{]}"#, 6, Syntax),
        (r#"{"a":01}"#, 6, Syntax),
        (r#"{"a":+1}"#, 5, Syntax),
        (r#"{"a":.5}"#, 5, Syntax),
        (r#"{"a":1.}"#, 7, Syntax),
        (r#"{"a":1e}"#, 7, Syntax),
        (r#"{"a":-}"#, 6, Syntax),
        (r#"{"a":NaN}"#, 5, Syntax),
        (r#"{"a":tru}"#, 5, Syntax),
        (r#"{"a":nulll}"#, 5, Syntax),
        (r#"{"a":1 2}"#, 7, Syntax),
        (r#"{"a":"x\q"}"#, 8, Syntax),
        (r#"{"a":"\u12G4"}"#, 8, Syntax),
        (r#"{"a":"\uD800"}"#, 12, Syntax),
        (r#"{"a":"\uD800\u0041"}"#, 12, Syntax),
        (r#"{"a":"\uDC00"}"#, 6, Syntax),
        ("{\"a\":\"x\ty\"}", 7, Syntax),
        (r#"{"a":"abc"#, 9, Syntax),
        (r#"{"a":"abc\"#, 10, Syntax),
        (r#"{1:2}"#, 1, Syntax),
        (r#"{"a"::1}"#, 5, Syntax),
        (r#"{,}"#, 1, Syntax),
        // After a nested object's `}` (its parent's next member is read on the spot).
        (r#"{"a":{"b":1} "c":2}"#, 13, Syntax),
        (r#"{"a":{"b":1},}"#, 13, Syntax),
        (r#"{"a":{"b":1}, 2}"#, 14, Syntax),
        (r#"{"a":{"b":1},,"c":2}"#, 13, Syntax),
        (r#"{"a":{"b":1}]"#, 12, Syntax),
        (r#"{"a":[{"b":1}}"#, 13, Syntax),
        (r#"{"a":{1:2}}"#, 6, Syntax),
        (r#"{"a":{,}}"#, 6, Syntax),
        (r#"{"a":{"b":1}"#, 12, Syntax),
        // Between array elements.
        (r#"{"a":["x" "y"]}"#, 10, Syntax),
        (r#"{"a":["x",]}"#, 10, Syntax),
        (r#"{"a":[1 , ]}"#, 10, Syntax),
        (r#"{"a":["x"}"#, 9, Syntax),
        (r#"{"a":[1,"x""#, 11, Syntax),
    ];
    for &(line, offset, reason) in cases {
        rejects(line, offset, reason);
    }
    rejects("{\"a\":\"\u{e9}\"}\u{0}", 10, TrailingCharacters);
    let mut bad = br#"{"a":"xx"}"#.to_vec();
    bad[6] = 0xff;
    for s in scanners() {
        assert_eq!(
            Parser::new(s).parse(&bad).map(|_| ()),
            Err(Malformed::new(6, InvalidUtf8))
        );
    }
}

#[test]
fn depth_limit_matches_serde_json() {
    let nest = |n: usize| format!("{}{}", "{\"a\":".repeat(n - 1) + "{", "}".repeat(n));
    accepts(&nest(DEPTH_LIMIT));
    rejects(&nest(DEPTH_LIMIT + 1), 5 * DEPTH_LIMIT, Reason::TooDeep);
    assert!(serde_json::from_str::<serde_json::Value>(&nest(DEPTH_LIMIT)).is_ok());
    assert!(serde_json::from_str::<serde_json::Value>(&nest(DEPTH_LIMIT + 1)).is_err());
    let arrays = format!("{{\"a\":{}{}}}", "[".repeat(200_000), "]".repeat(200_000));
    rejects(&arrays, 5 + DEPTH_LIMIT - 1, Reason::TooDeep);
}

#[test]
fn lookups_walk_the_top_level() {
    for s in scanners() {
        let mut p = Parser::new(s);
        let doc = p
            .parse(
                br#"{"a":{"b":1,"Elapsed":7},"Elaps\u0065d":2.50,"Elapsed":3,"c":[1,{"d":"x"}]}"#,
            )
            .unwrap();
        let root = doc.root();
        assert_eq!(root.len(), 4);
        let Some(Value::Number(n)) = root.get("Elapsed") else {
            panic!("Elapsed")
        };
        assert_eq!(n.raw(), "2.50");
        assert_eq!(n.to_decimal(), Some(Decimal::new(250, 2)));
        let Some(Value::Object(a)) = root.get("a") else {
            panic!("a")
        };
        assert_eq!(a.raw(), r#"{"b":1,"Elapsed":7}"#);
        assert_eq!(a.get("Elapsed").map(|v| v.raw()), Some("7"));
        let Some(Value::Array(c)) = root.get("c") else {
            panic!("c")
        };
        assert_eq!(c.len(), 2);
        assert_eq!(c.get(0).map(|v| v.raw()), Some("1"));
        let Some(Value::Object(d)) = c.get(1) else {
            panic!("c[1]")
        };
        assert_eq!(d.get("d").map(|v| v.raw()), Some(r#""x""#));
        assert!(c.get(2).is_none());
        assert!(root.get("b").is_none());
        assert!(root.get("d").is_none());
        let keys: Vec<_> = root.iter().map(|(k, _)| k.unescaped()).collect();
        assert_eq!(keys, ["a", "Elapsed", "Elapsed", "c"]);
    }
}

#[test]
fn empty_containers() {
    let mut p = Parser::new(Scanner::detect());
    let doc = p.parse(br#"{"a":[],"b":{},"c":1}"#).unwrap();
    let root = doc.root();
    let Some(Value::Array(a)) = root.get("a") else {
        panic!()
    };
    assert!(a.is_empty());
    assert_eq!(a.iter().count(), 0);
    let Some(Value::Object(b)) = root.get("b") else {
        panic!()
    };
    assert!(b.is_empty());
    assert_eq!(b.raw(), "{}");
    assert_eq!(root.get("c").map(|v| v.raw()), Some("1"));
    let doc = p.parse(b" {} ").unwrap();
    assert!(doc.root().is_empty());
    assert_eq!(doc.root().raw(), "{}");
}

#[test]
fn strings_unescape_on_demand() {
    let mut p = Parser::new(Scanner::detect());
    let doc = p
        .parse(br#"{"plain":"abc","esc":"a\"b\\c\/d\b\f\n\r\t\u00e9\u20AC\uD83D\uDE00"}"#)
        .unwrap();
    let Some(Value::String(s)) = doc.root().get("plain") else {
        panic!()
    };
    assert!(!s.has_escapes());
    assert!(matches!(s.unescaped(), Cow::Borrowed("abc")));
    let Some(Value::String(s)) = doc.root().get("esc") else {
        panic!()
    };
    assert!(s.has_escapes());
    assert_eq!(
        s.unescaped(),
        "a\"b\\c/d\u{8}\u{c}\n\r\t\u{e9}\u{20ac}\u{1f600}"
    );
}

#[test]
fn unescape_is_defensive_about_lone_surrogates() {
    assert_eq!(unescape::unescape(r"a\uD800b"), "a\u{fffd}b");
    assert_eq!(unescape::unescape(r"a\uDC00b"), "a\u{fffd}b");
    assert_eq!(unescape::unescape(r"\uD800\u0041"), "\u{fffd}A");
    assert_eq!(unescape::unescape(r"x\"), r"x\");
    assert!(unescape::eq(r"Elaps\u0065d", "Elapsed"));
    assert!(!unescape::eq(r"Elaps\u0065d", "Elapse"));
    assert!(!unescape::eq(r"Elaps\u0065d", "Elapsedx"));
}

#[test]
fn numbers_to_decimal_match_from_str() {
    for text in [
        "0",
        "-0",
        "1",
        "-1",
        "109.8706",
        "0.0001",
        "1.50",
        "-12345678901234567890",
        "79228162514264337593543950335",
        "7.9228162514264337593543950335",
        "0.0000000000000000000000000001",
        "123.4560000",
        "0.00",
    ] {
        let want = Decimal::from_str(text).unwrap();
        let got = number::to_decimal(text.as_bytes()).unwrap();
        assert_eq!(got, want, "{text}");
        assert_eq!(got.scale(), want.scale(), "{text}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

    /// The fast path for plain decimals gives exactly what the general path gives (value and
    /// scale), and takes every plain JSON number of up to 18 characters after the sign.
    #[test]
    fn plain_decimals_fast_path_matches_general(text in "-?(0|[1-9][0-9]{0,19})(\\.[0-9]{1,19})?") {
        let body = text.strip_prefix('-').unwrap_or(&text);
        let fast = number::decimal_parts(text.as_bytes());
        proptest::prop_assert_eq!(fast.is_some(), body.len() <= 18, "{}", text);
        let got = number::to_decimal(text.as_bytes());
        let general = number::general_decimal(text.as_bytes());
        proptest::prop_assert_eq!(got, general, "{}", text);
        proptest::prop_assert_eq!(got.map(|d| d.scale()), general.map(|d| d.scale()), "{}", text);
        if let Some((m, scale)) = fast {
            proptest::prop_assert_eq!(Some(Decimal::new(m, scale)), got, "{}", text);
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

    /// `decimal_parts` takes exactly `-?digits(.digits)?` of at most 18 characters after
    /// the sign, with its exact value.
    #[test]
    fn decimal_parts_takes_exactly_plain_numbers(text in "-?[0-9.ae+-]{0,20}") {
        let body = text.strip_prefix('-').unwrap_or(&text);
        let plain = !body.is_empty()
            && body.len() <= 18
            && body.split_once('.').map_or(
                body.bytes().all(|c| c.is_ascii_digit()),
                |(i, f)| {
                    !i.is_empty()
                        && !f.is_empty()
                        && (i.bytes().chain(f.bytes())).all(|c| c.is_ascii_digit())
                },
            );
        match decimal_parts(text.as_bytes()) {
            Some((m, scale)) => {
                proptest::prop_assert!(plain, "{} taken", text);
                proptest::prop_assert_eq!(Decimal::new(m, scale), Decimal::from_str_exact(&text).unwrap());
            }
            None => proptest::prop_assert!(!plain, "{} refused", text),
        }
    }
}

#[test]
fn decimal_parts_edges() {
    let parts = |t: &str| decimal_parts(t.as_bytes());
    assert_eq!(parts("0"), Some((0, 0)));
    assert_eq!(parts("-12.50"), Some((-1250, 2)));
    assert_eq!(parts("-123456789012345678"), Some((-123456789012345678, 0)));
    assert_eq!(parts("1234567890123456.8"), Some((12345678901234568, 1)));
    for no in [
        "",
        "-",
        "1.",
        ".5",
        "-.5",
        "1.2.3",
        "1e3",
        "+1",
        "1234567890123456789",
        "1-",
    ] {
        assert_eq!(parts(no), None, "{no}");
    }
}

#[test]
fn numbers_with_exponents_and_limits() {
    let d = |t: &str| number::to_decimal(t.as_bytes());
    assert_eq!(d("1.5e2"), Some(Decimal::new(150, 0)));
    assert_eq!(d("15E-1"), Some(Decimal::new(15, 1)));
    assert_eq!(d("-2.5e+3"), Some(Decimal::new(-2500, 0)));
    assert_eq!(d("1e28"), Some(Decimal::from_str("1e28").unwrap()));
    assert_eq!(d("1e-28"), Some(Decimal::new(1, 28)));
    assert_eq!(d("0e999999999999999999999"), Some(Decimal::ZERO));
    // Trailing zeros past scale 28 are dropped: the value is still exact.
    let one = d("1.000000000000000000000000000000").unwrap();
    assert_eq!(one, Decimal::ONE);
    assert_eq!(one.scale(), 28);
    // Trailing zeros give way when the written scale's mantissa would not fit: the largest
    // scale that holds the value is kept.
    let max = d("79228162514264337593543950335.0").unwrap();
    assert_eq!((max, max.scale()), (Decimal::MAX, 0));
    let big = d("1000000000000000000000.0000000000").unwrap();
    assert_eq!((big, big.scale()), (Decimal::from(10u128.pow(21)), 7));
    let tiny = d("0.00000000000000000000000000010000").unwrap();
    assert_eq!((tiny, tiny.scale()), (Decimal::new(1, 28), 28));
    assert_eq!(d("-7922816251426433759354395033.50e1"), Some(-Decimal::MAX));
    assert_eq!(d("79228162514264337593543950335.5"), None);
    assert_eq!(d("1e-29"), None);
    assert_eq!(d("1e29"), None);
    assert_eq!(d("79228162514264337593543950336"), None);
    assert_eq!(d("123456789012345678901234567890"), None);
    assert_eq!(d("1.00000000000000000000000000001"), None);
    assert_eq!(
        d("1.0000000000000000000000000001"),
        Some(Decimal::from_i128_with_scale(10i128.pow(28) + 1, 28))
    );
    assert_eq!(d("1e400"), None);
    assert_eq!(d("1e99999999999999999999999"), None);
    assert_eq!(number::to_f64("1e400"), f64::INFINITY);
    assert_eq!(number::to_f64("-1.5e-3"), -0.0015);
}

#[test]
fn number_grammar() {
    for ok in [
        "0", "-0", "1", "10", "1.0", "1e5", "1E+5", "1e-05", "-0.5e1",
    ] {
        assert_eq!(number::validate(ok.as_bytes()), Ok(()), "{ok}");
    }
    for (bad, at) in [
        ("01", 1),
        ("-", 1),
        ("-a", 1),
        ("1.", 2),
        ("1.e5", 2),
        ("1e", 2),
        ("1e+", 3),
        ("1x", 1),
        ("--1", 1),
    ] {
        assert_eq!(number::validate(bad.as_bytes()), Err(at), "{bad}");
    }
}

#[test]
fn parse_until_stops_indexing_but_still_validates() {
    let line = br#"{"a":1,"b":{"x":[1,2,3]},"Elapsed":5,"c":"long","d":[1,2,3]}"#;
    let want = KeySet::new(["Elapsed", "a"]);
    for s in scanners() {
        let mut p = Parser::new(s);
        let full = p.parse(line).unwrap().indexed();
        let doc = p.parse_until(line, &want).unwrap();
        assert!(doc.indexed() < full);
        assert_eq!(doc.root().get("Elapsed").map(|v| v.raw()), Some("5"));
        assert_eq!(doc.root().get("a").map(|v| v.raw()), Some("1"));
        assert_eq!(doc.root().raw().len(), line.len());
        assert!(doc.root().get("d").is_none());
        let bad = br#"{"a":1,"Elapsed":5,"c":"long","d":[1,2,3}"#;
        assert_eq!(
            p.parse_until(bad, &want).map(|_| ()),
            Err(Malformed::new(bad.len() - 1, Reason::Syntax))
        );
        // Nothing wanted: nothing indexed but the root, still validated.
        let doc = p.parse_until(line, &KeySet::default()).unwrap();
        assert_eq!(doc.indexed(), 1);
        assert!(doc.root().is_empty());
        // An escaped key counts as seen.
        let doc = p
            .parse_until(br#"{"Elaps\u0065d":5,"a":2,"z":1}"#, &want)
            .unwrap();
        assert_eq!(doc.root().get("Elapsed").map(|v| v.raw()), Some("5"));
        assert!(doc.root().get("z").is_none());
        // The last wanted value is a container: indexing stops when it closes, and a
        // deferred scan stops right after it.
        let nested = br#"{"a":1,"Elapsed":{"x":[2,{}]},"c":{"d":[3]},"e":4}"#;
        let doc = p.parse_until(nested, &want).unwrap();
        assert_eq!(doc.indexed(), 9);
        assert_eq!(
            doc.root().get("Elapsed").map(|v| v.raw()),
            Some(r#"{"x":[2,{}]}"#)
        );
        assert!(doc.root().get("e").is_none());
        let doc = p.parse_prefix(nested, &want).unwrap();
        assert_eq!(doc.indexed(), 9);
        assert_eq!(doc.text(), r#"{"a":1,"Elapsed":{"x":[2,{}]}"#);
        // A key the set holds no key of that length is never compared; one it holds is.
        let one = KeySet::new(["Elapsed"]);
        let doc = p
            .parse_until(br#"{"Elapsedx":1,"Elapsed":2,"b":3}"#, &one)
            .unwrap();
        assert_eq!(doc.root().get("Elapsed").map(|v| v.raw()), Some("2"));
        // The member before it is not wanted: left off the tape (root, key, value).
        assert_eq!(doc.indexed(), 3);
        assert!(doc.root().get("Elapsedx").is_none());
    }
}

#[test]
fn parse_until_leaves_off_top_level_members_it_does_not_want() {
    let want = KeySet::new(["Elapsed", "b"]);
    let line = br#"{"x":1,"y":"s","z":[1,{"q":2}],"b":{"c":3},"o":{},"b":4,"Elapsed":5,"t":6}"#;
    for s in scanners() {
        let mut p = Parser::new(s);
        let doc = p.parse_until(line, &want).unwrap();
        let root = doc.root();
        // Wanted keys, the first occurrence of each.
        assert_eq!(root.get("Elapsed").map(|v| v.raw()), Some("5"));
        assert_eq!(root.get("b").map(|v| v.raw()), Some(r#"{"c":3}"#));
        assert_eq!(doc.wanted(&want, 0).flatten().map(|v| v.raw()), Some("5"));
        assert_eq!(
            doc.wanted(&want, 1).flatten().map(|v| v.raw()),
            Some(r#"{"c":3}"#)
        );
        // Scalars and strings not wanted are left off; containers stay, with their keys.
        assert!(root.get("x").is_none() && root.get("y").is_none());
        assert_eq!(root.get("z").map(|v| v.raw()), Some(r#"[1,{"q":2}]"#));
        assert_eq!(root.get("o").map(|v| v.raw()), Some("{}"));
        let keys: Vec<&str> = root.iter().map(|(k, _)| k.raw()).collect();
        assert_eq!(keys, ["z", "b", "o", "Elapsed"]);
        assert_eq!(root.raw().len(), line.len());
        // parse indexes every member.
        let doc = p.parse(line).unwrap();
        assert_eq!(doc.root().iter().count(), 8);
        assert_eq!(doc.root().get("x").map(|v| v.raw()), Some("1"));
    }
}

#[test]
fn scanner_names() {
    assert_eq!(Scanner::from_name("scalar"), Some(Scanner::Scalar));
    assert_eq!(Scanner::from_name("nope"), None);
    assert_eq!(Scanner::from_name("auto"), Some(Scanner::detect()));
    assert_eq!(Scanner::from_name("avx2"), Scanner::avx2());
    assert_eq!(Parser::new(Scanner::Avx2).scanner(), Scanner::detect());
    assert_eq!(
        Malformed::new(3, Reason::Syntax).to_string(),
        "invalid JSON syntax at byte 3"
    );
}

#[test]
fn finish_tells_a_refilled_buffer_from_the_line_parse_prefix_read() {
    let want = KeySet::new(["a"]);
    for s in scanners() {
        let mut p = Parser::new(s);
        let mut buf = br#"{"a":5,"b":7}"#.to_vec();
        let doc = p.parse_prefix(&buf, &want).unwrap();
        assert_eq!(doc.root().get("a").map(|v| v.raw()), Some("5"));
        // Another line of the same length in the same buffer: parsed afresh.
        buf.copy_from_slice(br#"{"b":7,"a":6}"#);
        let doc = p.finish(&buf).unwrap();
        assert_eq!(doc.root().get("a").map(|v| v.raw()), Some("6"));
        assert_eq!(doc.root().get("b").map(|v| v.raw()), Some("7"));
        // A refill that is not JSON is rejected, as `parse` rejects it.
        let mut buf = br#"{"a":1,"b":2}"#.to_vec();
        p.parse_prefix(&buf, &want).unwrap();
        buf.copy_from_slice(br#"[[[[[[,"b":2}"#);
        assert_eq!(
            p.finish(&buf).map(|_| ()),
            Err(Malformed::new(0, Reason::NotAnObject))
        );
        // The same bytes in another buffer go on where parse_prefix stopped.
        let line = br#"{"a":1,"b":[2,3]}"#;
        p.parse_prefix(line, &want).unwrap();
        let copy = line.to_vec();
        let doc = p.finish(&copy).unwrap();
        assert_eq!(doc.root().raw(), r#"{"a":1,"b":[2,3]}"#);
        assert_eq!(doc.wanted(&want, 0).unwrap().map(|v| v.raw()), Some("1"));
    }
}

/// A wanted key is found by its first 8 bytes read as a word from the line, then its length
/// and the rest: keys that share a head, keys shorter than the word, and keys too near the
/// end of the line for the word all give the first occurrence of the right key.
#[test]
fn wanted_keys_sharing_their_first_bytes_are_told_apart() {
    let set = KeySet::new(["Elapsed_ms", "ab", "Elapsed", "z"]);
    let line = br#"{"Elapsed_us":1,"abc":2,"a":3,"Elapsed_msx":4,"Elapsed":5,"ab":6,"Elapsed_ms":7,"z":8}"#;
    for s in scanners() {
        let mut p = Parser::new(s);
        let doc = p.parse_until(line, &set).expect("valid");
        let got: Vec<String> = (0..set.len())
            .map(|i| match doc.wanted(&set, i) {
                Some(Some(v)) => v.raw().to_string(),
                _ => "-".to_string(),
            })
            .collect();
        assert_eq!(got, ["7", "6", "5", "8"], "{}", s.name());
    }
    // Short keys at the very end: fewer than 8 bytes from the key to the line's end.
    let set = KeySet::new(["a", "b"]);
    let mut p = Parser::new(Scanner::Scalar);
    let doc = p.parse_until(br#"{"b":1,"a":2}"#, &set).expect("valid");
    let raw = |i| doc.wanted(&set, i).flatten().map(|v| v.raw().to_string());
    assert_eq!((raw(0), raw(1)), (Some("2".into()), Some("1".into())));
}

/// The scanner's inline check of an escape (`state.rs`) and the one decoder give the same
/// verdict and length on every escape: `decode_escape` is `None` exactly where a line would be
/// malformed.
fn escape_verdicts_agree(bytes: &[u8]) -> Result<(), String> {
    let checked = state::Machine::escape(bytes, 0).ok();
    let decoded = decode_escape(bytes).map(|(_, len)| len);
    if checked == decoded {
        Ok(())
    } else {
        Err(format!(
            "{:?}: the scanner says {checked:?}, the decoder {decoded:?}",
            String::from_utf8_lossy(bytes)
        ))
    }
}

#[test]
fn escape_check_and_decoder_agree_on_valid_and_invalid_escapes() {
    for text in [
        r#"\""#,
        r"\\",
        r"\/",
        r"\b",
        r"\f",
        r"\n",
        r"\r",
        r"\t",
        r"\u0041",
        r"\u00e9x",
        r"\uFFFF",
        r"\ud83d\ude00",
        r"\uDBFF\uDFFF",
        // Invalid: each is rejected by the scanner and not decoded.
        r"\x",
        "\\",
        r"\u",
        r"\u12",
        r"\u12g4",
        r"\ud83d",
        r"\ud83d\u0041",
        r"\ud83d\ud83d",
        r"\ud83d\n",
        r"\ude00",
        r"\uDFFF",
        "\\é",
        r"\U0041",
    ] {
        escape_verdicts_agree(text.as_bytes()).unwrap();
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

    #[test]
    fn escape_check_and_decoder_agree_on_any_bytes(
        tail in proptest::collection::vec(proptest::sample::select(
            b"\\u0123456789abcdefABCDEFdDxn\"/".to_vec()), 0..14)
    ) {
        let mut bytes = vec![b'\\'];
        bytes.extend(tail);
        if let Err(e) = escape_verdicts_agree(&bytes) {
            proptest::prop_assert!(false, "{}", e);
        }
    }
}

#[test]
fn invalid_escapes_are_kept_and_lone_surrogates_replaced() {
    // Where the decoders of the scanner and of the query engine used to differ (the scanner's
    // gave U+FFFD for `\x`, the engine's kept `\x`): what the scanner does not take as an
    // escape is not decoded, its backslash stays text.
    assert_eq!(unescape(r"a\xb"), r"a\xb");
    assert_eq!(unescape(r"a\u12G4"), r"a\u12G4");
    assert_eq!(unescape(r"a\u12"), r"a\u12");
    assert_eq!(unescape(r"a\"), r"a\");
    assert_eq!(unescape("a\\é"), "a\\é");
    // A lone surrogate is a complete escape naming no character: one U+FFFD for all of it.
    assert_eq!(unescape(r"a\ud83d!"), "a\u{fffd}!");
    assert_eq!(unescape(r"\ude00\u0041"), "\u{fffd}A");
    // Valid escapes, and text without any, are untouched by the choice.
    assert_eq!(
        unescape(r#"a\"b\\c\/\n\u00e9\ud83d\ude00"#),
        "a\"b\\c/\né😀"
    );
    assert!(matches!(unescape("plain"), Cow::Borrowed("plain")));
    assert!(unescape::eq(r"a\xb", r"a\xb"));
}

#[test]
fn parse_decimal_tells_syntax_from_inexact() {
    let p = |t: &str| parse_decimal(t.as_bytes());
    for bad in [
        "", "-", "+", "x", "1.", "1e", "1e+", "1x", "--1", "+-1", ".", "1..2", "1.2.3", ".e5",
        "1.e5", "1e5x", "1e5.0", "0x10", " 1", "1 ", "inf", "NaN",
    ] {
        assert_eq!(p(bad), Err(NotDecimal::Syntax), "{bad:?}");
    }
    // The leniencies for typed text.
    assert_eq!(p("+1"), Ok(Decimal::ONE));
    assert_eq!(p(".5"), Ok(Decimal::new(5, 1)));
    assert_eq!(p("-.5e1"), Ok(Decimal::new(-5, 0)));
    assert_eq!(p("007"), Ok(Decimal::new(7, 0)));
    // Numbers, but no Decimal holds them: checked to the end first.
    for inexact in [
        "1e400",
        "1e-29",
        "123456789012345678901234567890",
        "1234567890123456789012345678901234567890e-5",
        "79228162514264337593543950336",
    ] {
        assert_eq!(p(inexact), Err(NotDecimal::Inexact), "{inexact}");
    }
    assert_eq!(
        p("123456789012345678901234567890x"),
        Err(NotDecimal::Syntax)
    );
    // The scanner's numbers read the same through the public parser.
    for text in ["0", "-12.50", "1.5e2", "1000000000000000000000.0000000000"] {
        assert_eq!(p(text).ok(), number::to_decimal(text.as_bytes()), "{text}");
    }
}

#[test]
fn for_each_gives_the_members_iter_gives() {
    let line = r#"{"a":1,"a":"x","b\u0063":{"d":[1,{"e":null}]},"":true}"#;
    let mut parser = Parser::new(Scanner::scalar());
    let doc = parser.parse(line.as_bytes()).unwrap();
    let root = doc.root();
    let by_iter: Vec<(String, String)> = root
        .iter()
        .map(|(k, v)| (k.raw().to_string(), v.raw().to_string()))
        .collect();
    let mut by_for_each = Vec::new();
    root.for_each(|k, v| by_for_each.push((k.raw().to_string(), v.raw().to_string())));
    assert_eq!(by_for_each, by_iter);
    assert_eq!(by_iter.len(), 4);
    assert_eq!(
        by_iter[2],
        (r"b\u0063".into(), r#"{"d":[1,{"e":null}]}"#.into())
    );
}

#[test]
fn tokens_are_the_tape_in_document_order() {
    let line = r#"{"a":[1,{"b\n":"x"}],"c":true}"#;
    for s in scanners() {
        let mut p = Parser::new(s);
        let doc = p.parse(line.as_bytes()).unwrap();
        let got: Vec<(TokenKind, &str, u32, bool)> = doc
            .tokens()
            .map(|t| {
                let text = &doc.text()[t.start as usize..t.end as usize];
                (t.kind, text, t.next, t.escaped)
            })
            .collect();
        use TokenKind::*;
        assert_eq!(
            got,
            [
                (Object, line, 9, false),
                (Key, r#""a""#, 2, false),
                (Array, r#"[1,{"b\n":"x"}]"#, 7, false),
                (Number, "1", 4, false),
                (Object, r#"{"b\n":"x"}"#, 7, false),
                (Key, r#""b\n""#, 6, true),
                (String, r#""x""#, 7, false),
                (Key, r#""c""#, 8, false),
                (True, "true", 9, false),
            ],
            "{}",
            s.name()
        );
        assert_eq!(doc.token(4), doc.tokens().nth(4));
        assert_eq!(doc.token(9), None);
    }
}
