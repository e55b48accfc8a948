//! The prefilter: which formula each query shape gives, the escape-aware line test, and a
//! proptest that no line the engine matches is ever ruled out.

use proptest::prelude::*;

use super::*;
use crate::Plan;

/// The prefilter of `query` as text (`none` when there is none).
fn formula(query: &str) -> String {
    let plan = Plan::compile(query).unwrap_or_else(|e| panic!("{query}: {e}"));
    plan.prefilter()
        .map_or_else(|| "none".to_owned(), ToString::to_string)
}

fn prefilter(query: &str) -> Prefilter {
    let plan = Plan::compile(query).unwrap_or_else(|e| panic!("{query}: {e}"));
    plan.prefilter()
        .unwrap_or_else(|| panic!("{query}: no prefilter"))
        .clone()
}

#[test]
fn equality_gives_the_literal_either_way_round() {
    assert_eq!(formula("where Message = 'x y'"), r#""x y""#);
    assert_eq!(formula("where 'x y' = Message"), r#""x y""#);
    assert_eq!(formula("where Message == 'it''s'"), r#""it's""#);
    assert_eq!(formula("where Properties.User.Name = 'bob'"), r#""bob""#);
    assert_eq!(formula("where Headers['User-Agent'] = 'curl'"), r#""curl""#);
    assert_eq!(formula("where Tags[0] = 'beta'"), r#""beta""#);
    assert_eq!(formula(r"where ['a\b'] = 'c\d'"), r#""c\\d""#);
}

#[test]
fn like_gives_the_fragments_between_wildcards() {
    assert_eq!(formula("where Message like 'a%b_c'"), r#""a" & "b" & "c""#);
    assert_eq!(formula("where Message like '%/api/%'"), r#""/api/""#);
    assert_eq!(formula("where Message like 'abc'"), r#""abc""#);
    assert_eq!(formula("where Message like 'ab%ab'"), r#""ab""#);
    assert_eq!(formula("where Message like '%'"), "none");
    assert_eq!(formula("where Message like '_'"), "none");
    assert_eq!(formula("where Message like ''"), "none");
}

#[test]
fn substring_functions_give_their_literal() {
    assert_eq!(formula("where contains(Message, 'api')"), r#""api""#);
    assert_eq!(formula("where STARTSWITH(Message, 'HTTP')"), r#""HTTP""#);
    assert_eq!(formula("where endswith(Message, ' ms')"), r#"" ms""#);
    assert_eq!(formula("where contains(Message, '')"), "none");
    // Only a plain path as the subject, a literal as the needle.
    assert_eq!(formula("where contains('api', Message)"), "none");
    assert_eq!(formula("where contains(Message, RequestPath)"), "none");
    assert_eq!(formula("where contains(lower(Message), 'api')"), "none");
}

#[test]
fn in_gives_one_of_its_strings() {
    assert_eq!(
        formula("where @l in ('Error', 'Fatal')"),
        r#""Error" | "Fatal""#
    );
    assert_eq!(formula("where @l in ('Error', 'Error')"), r#""Error""#);
    assert_eq!(formula("where @l in ('Error', 1)"), r#""Error" | "@l" = 1"#);
    assert_eq!(formula("where @l in ('Error', Message)"), "none");
    assert_eq!(formula("where @l in ('Error', '')"), "none");
    assert_eq!(formula("where @l not in ('Error')"), "none");
}

/// An `in` list of thousands (ids pasted from elsewhere) gives each distinct value once, in
/// the order first written; numbers equal as decimals are one.
#[test]
fn a_long_in_list_gives_each_value_once_in_order() {
    let items: Vec<String> = (0..30_000).map(|i| format!("'v{}'", i % 40)).collect();
    let want: Vec<String> = (0..40).map(|i| format!("\"v{i}\"")).collect();
    assert_eq!(
        formula(&format!("where Message in ({})", items.join(", "))),
        want.join(" | ")
    );
    assert_eq!(
        formula("where StatusCode in (1, 1.0, 2, 1.00, 2e0)"),
        r#""StatusCode" = 1 | "StatusCode" = 2"#
    );
}

#[test]
fn match_gives_prefix_and_suffix_literals() {
    assert_eq!(
        formula("where match(Message, '/api/customers')"),
        r#""/api/customers""#
    );
    assert_eq!(
        formula("where match(Message, 'error.*timeout')"),
        r#""error" & "timeout""#
    );
    assert_eq!(
        formula("where match(Message, 'foo|bar')"),
        r#""bar" | "foo""#
    );
    assert_eq!(
        formula("where match(Message, '^GET .+ ok$')"),
        r#""GET " & " ok""#
    );
    // Case-insensitive: every case variant, Unicode-aware (the Kelvin sign for k).
    assert_eq!(
        formula("where match(Message, '(?i)ok')"),
        "\"OK\" | \"Ok\" | \"O\u{212a}\" | \"oK\" | \"ok\" | \"o\u{212a}\""
    );
    // No constraint: an empty literal, an infinite or an empty sequence, a pattern that is
    // not a literal, a function of the path.
    assert_eq!(formula("where match(Message, 'a*')"), "none");
    assert_eq!(formula(r"where match(Message, '\d+')"), "none");
    assert_eq!(formula("where match(Message, '.')"), "none");
    assert_eq!(formula("where match(Message, '[a&&b]')"), "none");
    assert_eq!(formula("where match(Message, RequestPath)"), "none");
    assert_eq!(formula("where match(lower(Message), 'x')"), "none");
}

#[test]
fn long_case_insensitive_regexes_are_cut_to_a_few_literals() {
    let p = prefilter("where match(Message, '(?i)/api/customers')");
    assert!(p.atoms().len() <= 2 * SEQ_BUDGET, "{p}");
    assert!(
        p.atoms().iter().any(|l| l.text().starts_with("/api")),
        "{p}"
    );
    assert!(p.atoms().iter().any(|l| l.text().ends_with("ers")), "{p}");
    // Every spelling still passes.
    for line in [
        r#"{"Message":"GET /API/Customers/1"}"#,
        r#"{"Message":"GET /api/customerſ"}"#,
        r#"{"Message":"GET /Api/CUSTOMERS"}"#,
    ] {
        assert!(p.may_match(line.as_bytes()), "{line} with {p}");
    }
    assert!(!p.may_match(br#"{"Message":"GET /api/orders"}"#), "{p}");
}

#[test]
fn no_constraint_from_negation_case_folding_or_computed_values() {
    for query in [
        "where not Message = 'x'",
        "where not (Message = 'x' and @l = 'y')",
        "where Message <> 'x'",
        "where Message != 'x'",
        "where Message not like '%x%'",
        "where @l not in ('x', 'y')",
        "where Message ilike '%x%'",
        "where Message ilike 'k'",
        "where lower(Message) = 'x'",
        "where upper(Message) like 'X%'",
        "where tostring(Elapsed) = '5'",
        "where Message < 'x'",
        "where Message >= 'x'",
        "where Message = RequestPath",
        "where Message is not null",
        "where has(Message)",
        "where coalesce(Message, 'x') = 'x'",
        "where true",
        "select count(*)",
    ] {
        assert_eq!(formula(query), "none", "{query}");
    }
}

#[test]
fn number_comparisons_give_a_member_fact() {
    for (query, expected) in [
        ("where Elapsed > 200", r#""Elapsed" > 200"#),
        ("where 200 < Elapsed", r#""Elapsed" > 200"#),
        ("where 1 >= Elapsed", r#""Elapsed" <= 1"#),
        ("where Elapsed <> -1.50", r#""Elapsed" <> -1.50"#),
        ("where Elapsed != 0", r#""Elapsed" <> 0"#),
        ("where Properties.User.Id = 214", r#""Id" = 214"#),
        ("where Cart[0].Qty >= 2", r#""Qty" >= 2"#),
        ("where ['odd key'] < 1e3", r#""odd key" < 1000"#),
        (
            "where StatusCode in (500, 503)",
            r#""StatusCode" = 500 | "StatusCode" = 503"#,
        ),
        ("where @l in ('Error', 5)", r#""Error" | "@l" = 5"#),
        ("where @l in ('Error', null)", "none"),
        ("where StatusCode not in (500, 503)", "none"),
        (
            "where Message = 'x' or Elapsed > 5",
            r#""x" | "Elapsed" > 5"#,
        ),
        (
            "where Elapsed > 200 and contains(Message, 'api')",
            r#""Elapsed" > 200 & "api""#,
        ),
        ("where Tags[0] > 1", "none"),
        ("where ['a\"b'] > 1", "none"),
        ("where Elapsed > 1e400", "none"),
        ("where Elapsed + 1 > 2", "none"),
        ("where Elapsed > StatusCode", "none"),
        ("where not Elapsed > 200", "none"),
        ("where Elapsed > -1", r#""Elapsed" > -1"#),
    ] {
        assert_eq!(formula(query), expected, "{query}");
    }
}

/// A member fact holds where the key is followed by a number that may satisfy the
/// comparison, at any depth and at any occurrence, or where an escape may spell the key.
#[test]
fn a_member_fact_reads_the_number_after_the_key() {
    let p = prefilter("where Elapsed > 200");
    for line in [
        r#"{"Elapsed":200.5}"#,
        r#"{"Elapsed" : 201 }"#,
        "{\"Elapsed\"\t:\r 300}",
        r#"{"a":{"Elapsed":300}}"#,
        r#"{"Elapsed":-1,"Elapsed":300}"#,
        r#"{"Elapsed":2e3}"#,
        r#"{"Elapsed":1E-3}"#,
        r#"{"Elapsed":12345678901234567890}"#,
        r#"{"Elaps\u0065d":1}"#,
        r#"{"Elapsed":300"#,
    ] {
        assert!(p.may_match(line.as_bytes()), "{line}");
    }
    for line in [
        r#"{"Elapsed":200}"#,
        r#"{"Elapsed":200.000}"#,
        r#"{"Elapsed":-300}"#,
        r#"{"Elapsed":"300"}"#,
        r#"{"Elapsed":true,"x":300}"#,
        r#"{"Elapsed":[300]}"#,
        r#"{"Elapsed":{"x":300}}"#,
        r#"{"xElapsed":300}"#,
        r#"{"Elapsedx":300}"#,
        r#"{"m":"Elapsed: 300"}"#,
        r#"{"m":"{Elapsed:300}"}"#,
        r#"{"m":"\"Elapsed\":300"}"#,
        r#"{"m":"Elapsed","n":300}"#,
        r#"{"Elapsed":}"#,
        r#"{"Elapsed""#,
    ] {
        assert!(!p.may_match(line.as_bytes()), "{line}");
    }
    let eq = prefilter("where Properties.User.Id = 214");
    assert!(eq.may_match(br#"{"Properties":{"User":{"Id":214.0}}}"#));
    assert!(!eq.may_match(br#"{"Properties":{"User":{"Id":2140}}}"#));
    let ne = prefilter("where Elapsed <> 5");
    assert!(ne.may_match(br#"{"Elapsed":5,"a":{"Elapsed":6}}"#));
    assert!(!ne.may_match(br#"{"Elapsed":5.0}"#));
}

#[test]
fn and_or_nest_and_simplify() {
    assert_eq!(
        formula("where Message = 'a' and (@l = 'b' or contains(Message, 'c'))"),
        r#""a" & ("b" | "c")"#
    );
    assert_eq!(formula("where Message = 'a' and Elapsed + 1 > 5"), r#""a""#);
    assert_eq!(
        formula("where Elapsed * 2 > 5 and not (Message = 'b')"),
        "none"
    );
    assert_eq!(
        formula("where (Message = 'a' or @l = 'b') and (Message = 'a' or @l = 'b')"),
        r#""a" | "b""#
    );
    assert_eq!(
        formula("where (Message = 'a' and @l = 'b') or @l = 'c'"),
        r#"("a" & "b") | "c""#
    );
    assert_eq!(formula("where Message = 'a' and Other = 'a'"), r#""a""#);
    let p = prefilter("where (Message = 'a' and @l = 'b') or @l = 'c'");
    assert!(!p.any());
    assert!(prefilter("where @l in ('a', 'b')").any());
    let texts: Vec<&str> = p.atoms().iter().map(Atom::text).collect();
    assert_eq!(texts, ["a", "b", "c"]);
    assert_eq!(
        p.formula(),
        &Formula::Or(vec![
            Formula::And(vec![Formula::Lit(0), Formula::Lit(1)]),
            Formula::Lit(2)
        ])
    );
    assert!(p.eval(0b100) && p.eval(0b011) && !p.eval(0b001) && !p.eval(0));
}

#[test]
fn more_literals_than_bits_give_no_prefilter() {
    let list = |n: usize| {
        (0..n)
            .map(|i| format!("'v{i}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fits = format!("where @l in ({})", list(MAX_LITERALS));
    assert_eq!(prefilter(&fits).atoms().len(), MAX_LITERALS);
    assert_eq!(
        formula(&format!("where @l in ({})", list(MAX_LITERALS + 1))),
        "none"
    );
}

#[test]
fn escapes_pair_each_backslash_with_the_next_byte() {
    let starts = |s: &[u8]| escape_starts(s).collect::<Vec<_>>();
    assert_eq!(starts(br"a\\b\nc"), [1, 4]);
    assert_eq!(starts(br"\\\\"), [0, 2]);
    assert_eq!(starts(br"\\\"), [0, 2]);
    assert_eq!(starts(br"\u005c\u0041"), [0, 6]);
    assert_eq!(starts(b"none"), Vec::<usize>::new());
}

#[test]
fn whole_chars_drops_cut_characters() {
    assert_eq!(whole_chars("é".as_bytes()), Some("é"));
    assert_eq!(whole_chars(&"aé".as_bytes()[..2]), Some("a"));
    assert_eq!(whole_chars(&"éa".as_bytes()[1..]), Some("a"));
    assert_eq!(whole_chars(b"a\xFFb"), None);
}

// ---- escape awareness ----

#[test]
fn escaped_spellings_of_the_literal_are_candidates() {
    let p = prefilter("where match(Message, '/api/customers')");
    for line in [
        r#"{"Message":"GET /api/customers/1"}"#,
        r#"{"Message":"GET \/api\/customers\/1"}"#,
        r#"{"Message":"GET \/api/customers"}"#,
        r#"{"Message":"GET \u002fapi/customers"}"#,
        r#"{"Message":"GET \u002Fapi/customers"}"#,
        r#"{"Message":"GET /\u0061pi/customers"}"#,
        r#"{"Message":"GET /api/cu\u0073tomers"}"#,
    ] {
        assert!(p.may_match(line.as_bytes()), "{line}");
    }
    let quote = prefilter(r#"where contains(Message, 'say "hi"')"#);
    assert!(quote.may_match(br#"{"Message":"they say \"hi\""}"#));
    assert!(quote.may_match(br#"{"Message":"they say \u0022hi\u0022"}"#));
    assert!(!quote.may_match(br#"{"Message":"they say hi\n"}"#));
    let backslash = prefilter(r"where Message = 'C:\temp'");
    assert!(backslash.may_match(br#"{"Message":"C:\\temp"}"#));
    assert!(backslash.may_match(br#"{"Message":"C:\u005ctemp"}"#));
    assert!(!backslash.may_match(br#"{"Message":"C:/temp\t"}"#));
    let tab = prefilter("where contains(Message, 'a\tb')");
    assert!(tab.may_match(br#"{"Message":"a\tb"}"#));
    assert!(!tab.may_match(br#"{"Message":"a\nb"}"#));
}

#[test]
fn non_ascii_and_surrogate_pairs() {
    let p = prefilter("where contains(Message, 'café')");
    assert!(p.may_match("{\"Message\":\"café\"}".as_bytes()));
    assert!(p.may_match(br#"{"Message":"caf\u00e9"}"#));
    assert!(p.may_match(br#"{"Message":"caf\u00E9"}"#));
    assert!(!p.may_match(br#"{"Message":"cafe \u00e8"}"#));
    let emoji = prefilter("where contains(Message, '😀')");
    assert!(emoji.may_match(br#"{"Message":"\ud83d\ude00"}"#));
    assert!(emoji.may_match(br#"{"Message":"\uD83D\uDE00"}"#));
    assert!(!emoji.may_match(br#"{"Message":"\ud83d\ude01"}"#));
    assert!(!emoji.may_match(br#"{"Message":"\ud83d"}"#));
    // U+FFFD comes from anything that is not a valid escape.
    let bad = prefilter("where contains(Message, '\u{fffd}')");
    for line in [
        r#"{"m":"\ud83d"}"#,
        r#"{"m":"\x"}"#,
        r#"{"m":"\u12"}"#,
        r#"{"m":"\"#,
    ] {
        assert!(bad.may_match(line.as_bytes()), "{line}");
    }
    assert!(!bad.may_match(br#"{"m":"\n"}"#));
    // ...or, for a lenient decoder, to the character after the backslash.
    let x = prefilter("where contains(Message, 'xyz')");
    assert!(x.may_match(br#"{"m":"\xyz"}"#));
}

#[test]
fn unrelated_escapes_and_absent_literals_are_ruled_out() {
    let p = prefilter("where match(Message, '/api/customers')");
    for line in [
        r#"{"Message":"GET /api/orders\n\tretry=1; caf\u00e9 \u2713 \"bob\""}"#,
        r#"{"Message":"GET /api/customer"}"#,
        r#"{"Message":"api customers"}"#,
        "",
        "not json at all",
    ] {
        assert!(!p.may_match(line.as_bytes()), "{line}");
    }
    // `\\u0061` is an escaped backslash and `u0061`, `eve\\admin` holds no escape `\a`.
    let a = prefilter("where contains(Message, 'a')");
    assert!(!a.may_match(br#"{"M":"\\u0061"}"#));
    assert!(a.may_match(br#"{"M":"\\\u0061"}"#));
    assert!(!p.may_match(br#"{"Message":"GET /api/orders for eve\\admin"}"#));
    assert!(p.may_match(br#"{"Message":"GET \\\/api\/customers"}"#));
}

#[test]
fn formula_needs_every_conjunct() {
    let p = prefilter("where contains(Message, 'GET') and contains(Message, 'café')");
    assert!(p.may_match(br#"{"Message":"GET caf\u00e9"}"#));
    assert!(!p.may_match(br#"{"Message":"GET cafe"}"#));
    assert!(!p.may_match(br#"{"Message":"POST caf\u00e9"}"#));
    assert!(p.may_match(br#"{"Message":"\u0047ET caf\u00e9"}"#));
}

// ---- soundness: a line the engine matches is never ruled out ----

/// Raw JSON string text pieces: parts of the queries' literals, every kind of escape of
/// their characters, unrelated escapes, and plain text.
const PIECES: &[&str] = &[
    "/api/customers",
    "/api",
    "/",
    "api",
    "customers",
    r"\/",
    r"\/api\/customers",
    r"\u002f",
    r"\u002F",
    r"\u0061",
    "u0061",
    "u002f",
    "a",
    "p",
    r#"\""#,
    r"\\",
    r"\u005c",
    r"\n",
    r"\t",
    r"\r",
    r"\b",
    r"\f",
    r"\u00e9",
    r"\u00C9",
    "é",
    "É",
    r"\ud83d\ude00",
    "😀",
    "Error",
    r"\u0045rror",
    "error",
    "K",
    "k",
    r"\u212a",
    "\u{212a}",
    "s",
    "ſ",
    r"\u017f",
    " ",
    "x",
    "%",
    "_",
    "caf",
    "GET ",
    "ms",
    "\u{fffd}",
    r"\ufffd",
];

fn raw_string() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..8).prop_map(|v| v.concat())
}

/// Queries over `Message` and `@l`, one per rule, with literals made of the pieces.
const QUERIES: &[&str] = &[
    "where match(Message, '/api/customers')",
    "where match(Message, '(?i)error')",
    "where match(Message, '(?i)k')",
    "where match(Message, '(?i)s\\\\')",
    "where match(Message, 'caf.')",
    "where match(Message, 'é|😀')",
    "where match(Message, '^GET .*ms$')",
    "where match(Message, '(?i)CAFÉ')",
    "where contains(Message, '/a')",
    "where contains(Message, '\"')",
    "where contains(Message, '\\')",
    "where contains(Message, 'é')",
    "where contains(Message, '\n')",
    "where contains(Message, '\t\r')",
    "where contains(Message, '\u{8}\u{c}')",
    "where contains(Message, '\u{fffd}')",
    "where startswith(Message, 'ap')",
    "where endswith(Message, 'K')",
    "where Message = '/'",
    "where Message = 'Error'",
    "where '😀' = Message",
    "where Message like '%api%cust%'",
    "where Message like '_p%'",
    "where Message like '%\\%'",
    "where @l in ('Error', 'K', 'é', '/')",
    "where Message = 'x' or contains(@l, 'p')",
    "where contains(Message, 'a') and contains(@l, '/')",
    "where (contains(Message, 'é') or @l = 'K') and not Message = 'x'",
];

fn engine_matches(plan: &Plan, parser: &mut ndq_scan::Parser, line: &str) -> bool {
    match parser.parse_until(line.as_bytes(), plan.key_set()) {
        Ok(doc) => plan.worker().matches(doc.root()),
        Err(_) => false,
    }
}

fn line_of(message: &str, level: &str) -> String {
    format!(r#"{{"Message":"{message}","@l":"{level}","n":1}}"#)
}

fn compile_all(queries: &[&str]) -> Vec<Plan> {
    queries
        .iter()
        .map(|q| Plan::compile(q).unwrap_or_else(|e| panic!("{q}: {e}")))
        .collect()
}

/// The plans of [`QUERIES`], compiled once.
fn plans() -> &'static [Plan] {
    static PLANS: std::sync::OnceLock<Vec<Plan>> = std::sync::OnceLock::new();
    PLANS.get_or_init(|| compile_all(QUERIES))
}

/// No query of `queries` (compiled as `plans`) has its prefilter rule out `line` when the
/// engine matches it.
fn never_ruled_out_when_matched(
    plans: &[Plan],
    queries: &[&str],
    line: &str,
) -> Result<(), TestCaseError> {
    let mut parser = ndq_scan::Parser::new(ndq_scan::Scanner::detect());
    for (plan, query) in plans.iter().zip(queries) {
        let pre = plan
            .prefilter()
            .unwrap_or_else(|| panic!("{query}: no prefilter"));
        if engine_matches(plan, &mut parser, line) {
            prop_assert!(
                pre.may_match(line.as_bytes()),
                "{} ruled out {}",
                query,
                line
            );
        }
    }
    Ok(())
}

/// Over `lines`, every query of `queries` matches some, its prefilter rules out some, and
/// none it rules out is matched: the soundness proptests are not vacuous.
fn matches_and_skips_some(plans: &[Plan], queries: &[&str], lines: &[String]) {
    let mut parser = ndq_scan::Parser::new(ndq_scan::Scanner::detect());
    for (plan, query) in plans.iter().zip(queries) {
        let pre = plan.prefilter().unwrap();
        let (mut hits, mut skipped) = (0, 0);
        for line in lines {
            let hit = engine_matches(plan, &mut parser, line);
            let may = pre.may_match(line.as_bytes());
            assert!(may || !hit, "{query} ruled out {line}");
            hits += usize::from(hit);
            skipped += usize::from(!may);
        }
        assert!(hits > 0, "{query} matches none");
        assert!(skipped > 0, "{query} ({pre}) rules out none");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_rules_out_a_matching_line(message in raw_string(), level in raw_string()) {
        never_ruled_out_when_matched(plans(), QUERIES, &line_of(&message, &level))?;
    }
}

/// The proptest is not vacuous: over lines built from the pieces, every query matches some
/// and the prefilter rules out some.
#[test]
fn every_soundness_query_matches_and_skips_some_lines() {
    let mut lines = Vec::new();
    for a in PIECES {
        lines.push(line_of(a, a));
        for b in PIECES {
            lines.push(line_of(&format!("{a}{b}"), b));
            lines.push(line_of(&format!("GET {a}{b}ms"), a));
        }
    }
    matches_and_skips_some(plans(), QUERIES, &lines);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// An escape the table says cannot matter decodes to no character of any literal, for
    /// every query of the soundness set and any bytes after the backslash.
    #[test]
    fn escapes_that_cannot_matter_have_no_bits(rest in proptest::collection::vec(any::<u8>(), 0..8)) {
        let mut at = vec![b'\\'];
        at.extend_from_slice(&rest);
        for (plan, query) in plans().iter().zip(QUERIES) {
            let pre = plan.prefilter().unwrap();
            if !pre.escape_may_matter(at.get(1).copied()) {
                prop_assert_eq!(pre.escape_bits(&at), 0, "{}: {:?}", query, at);
            }
        }
    }
}

/// The table passes over the common escapes of logs and keeps the ones that can spell a
/// literal's character.
#[test]
fn escape_table_of_a_path_literal() {
    let pre = prefilter("select * where match(Message, '/api/customers')");
    for b in [b'n', b'"', b'\\', b't', b'r', b'b', b'f'] {
        assert!(!pre.escape_may_matter(Some(b)), "{}", b as char);
    }
    for b in [b'/', b'u', b'a', b's', 0xc3] {
        assert!(pre.escape_may_matter(Some(b)), "{b:#x}");
    }
    assert!(pre.escape_may_matter(None));
}

/// Keys (one spelled with an escape), values of every type with numbers on both sides of the
/// constants, for the number comparisons' soundness test.
const NUM_KEYS: &[&str] = &["Elapsed", r"Elaps\u0065d", "n", "x"];
const NUM_VALUES: &[&str] = &[
    "200",
    "200.0",
    "200.5",
    "-3",
    "-3.00",
    "1e3",
    "2E2",
    "199.99",
    "201",
    "12345678901234567890",
    "0",
    "-0",
    r#""300""#,
    "true",
    "null",
    "[300]",
    r#"{"Elapsed":300}"#,
    r#"{"n":-3,"Elapsed":1000}"#,
];
const NUM_QUERIES: &[&str] = &[
    "where Elapsed > 200",
    "where Elapsed <= 200",
    "where Elapsed = 200",
    "where Elapsed <> 200",
    "where 200 < Elapsed",
    "where n >= -3",
    "where n < 0",
    "where x.Elapsed = 300",
    "where x.n = -3",
    "where Elapsed > 199.99 and n = -3",
    "where Elapsed = 1000 or contains(x, '3')",
    "where Elapsed in (200, 1000, '300')",
];

/// An object of the members `(key, value, blanks)`.
fn object(members: &[(usize, usize, u8)]) -> String {
    let parts: Vec<String> = members
        .iter()
        .map(|&(k, v, blanks)| {
            let (key, value) = (NUM_KEYS[k], NUM_VALUES[v]);
            match blanks {
                0 => format!(r#""{key}":{value}"#),
                1 => format!(r#""{key}" : {value} "#),
                _ => format!("\"{key}\"\t:\r{value}"),
            }
        })
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// The plans of [`NUM_QUERIES`], compiled once.
fn num_plans() -> &'static [Plan] {
    static PLANS: std::sync::OnceLock<Vec<Plan>> = std::sync::OnceLock::new();
    PLANS.get_or_init(|| compile_all(NUM_QUERIES))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn never_rules_out_a_line_a_number_comparison_matches(
        members in proptest::collection::vec((0..NUM_KEYS.len(), 0..NUM_VALUES.len(), 0..3u8), 0..5),
    ) {
        never_ruled_out_when_matched(num_plans(), NUM_QUERIES, &object(&members))?;
    }
}

/// The proptest is not vacuous: over objects of one and two members, every query matches
/// some and the prefilter rules out some.
#[test]
fn every_number_query_matches_and_skips_some_lines() {
    let mut lines = Vec::new();
    for k in 0..NUM_KEYS.len() {
        for v in 0..NUM_VALUES.len() {
            lines.push(object(&[(k, v, 0)]));
            lines.push(object(&[(k, v, 2), (2, 3, 1)]));
        }
    }
    matches_and_skips_some(num_plans(), NUM_QUERIES, &lines);
}

#[test]
fn array_conditions_give_what_an_element_holds() {
    for (query, expected) in [
        ("where 'beta' in Properties.Tags", r#""beta""#),
        ("where Tags[?] = 'beta'", r#""beta""#),
        ("where 'beta' = Tags[?]", r#""beta""#),
        ("where Tags[?] like 'prod-%'", r#""prod-""#),
        ("where Tags[?] in ('a', 'b')", r#""a" | "b""#),
        ("where Cart[?].Sku = 'SKU-1'", r#""SKU-1""#),
        ("where Cart[?].Qty > 3", r#""Qty" > 3"#),
        ("where 3 < Cart[?].Qty", r#""Qty" > 3"#),
        ("where Cart[?].Qty in (1, 2)", r#""Qty" = 1 | "Qty" = 2"#),
        (
            "where 'beta' in Tags and Cart[?].Qty >= 2",
            r#""beta" & "Qty" >= 2"#,
        ),
        // An element is not a member: no key to look for.
        ("where Tags[?] = 5", "none"),
        ("where 5 in Tags", "none"),
        ("where Tags[?] > 'a'", "none"),
        // `[*]` is true on an empty array, which holds no text.
        ("where Tags[*] = 'beta'", "none"),
        ("where Tags[*] like 'prod-%'", "none"),
        ("where Cart[*].Qty > 3", "none"),
        // Negations, and conditions that only choose the lines an aggregate counts.
        ("where 'beta' not in Tags", "none"),
        ("where not 'beta' in Tags", "none"),
        ("where Tags[?] not like 'prod-%'", "none"),
        ("where x in Tags", "none"),
        ("select count(*) filter (where Message = 'x')", "none"),
        ("select count_if(Message = 'x')", "none"),
        (
            "select count(*) filter (where Message = 'x') where Message = 'y'",
            r#""y""#,
        ),
    ] {
        assert_eq!(formula(query), expected, "{query}");
    }
}

/// Elements for the array conditions' soundness test: strings with the literals in any
/// spelling, numbers, objects with a `Qty`, nested arrays, null.
const ELEMENTS: &[&str] = &[
    r#""beta""#,
    r#""b\u0065ta""#,
    r#""prod-1""#,
    r#""prod\u002d2""#,
    r#""alpha""#,
    "3",
    "4.5",
    "null",
    r#"{"Qty":5}"#,
    r#"{"Qty":2,"Sku":"beta"}"#,
    r#"{"Q\u0074y":7}"#,
    r#"{"Qty":"9"}"#,
    r#"["beta"]"#,
    "[]",
];
const ARRAY_QUERIES: &[&str] = &[
    "where 'beta' in Tags",
    "where Tags[?] = 'beta'",
    "where Tags[?] like 'prod-%'",
    "where Tags[?] in ('alpha', 'prod-2')",
    "where Tags[?].Qty > 3",
    "where Tags[?].Qty in (2, 7)",
    "where Tags[?].Sku = 'beta' or 'prod-1' in Tags",
];

/// A line whose `Tags` holds `elements` (or is a string, when `elements` is `None`).
fn tags_line(elements: Option<&[usize]>) -> String {
    match elements {
        Some(e) => {
            let parts: Vec<&str> = e.iter().map(|&i| ELEMENTS[i]).collect();
            format!(r#"{{"Tags":[{}],"n":1}}"#, parts.join(","))
        }
        None => r#"{"Tags":"beta","Qty":5}"#.to_owned(),
    }
}

fn array_plans() -> &'static [Plan] {
    static PLANS: std::sync::OnceLock<Vec<Plan>> = std::sync::OnceLock::new();
    PLANS.get_or_init(|| compile_all(ARRAY_QUERIES))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_rules_out_a_line_an_array_condition_matches(
        elements in proptest::option::weighted(0.9, proptest::collection::vec(0..ELEMENTS.len(), 0..4)),
    ) {
        never_ruled_out_when_matched(array_plans(), ARRAY_QUERIES, &tags_line(elements.as_deref()))?;
    }
}

/// The proptest is not vacuous: over arrays of one and two elements, every query matches
/// some and the prefilter rules out some.
#[test]
fn every_array_query_matches_and_skips_some_lines() {
    let mut lines = vec![tags_line(None), tags_line(Some(&[]))];
    for a in 0..ELEMENTS.len() {
        lines.push(tags_line(Some(&[a])));
        for b in 0..ELEMENTS.len() {
            lines.push(tags_line(Some(&[a, b])));
        }
    }
    matches_and_skips_some(array_plans(), ARRAY_QUERIES, &lines);
}
