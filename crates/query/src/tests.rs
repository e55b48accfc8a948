//! Table tests: one line per rule of the language reference, run through the whole engine (compile, then
//! every line parsed with serde_json and evaluated), without spawning a process.

use crate::{Accumulator, Kind, Plan, Value};

/// Run `query` over `lines` (JSON objects) with both documents (serde_json values and lazy
/// ndq_scan values) and, for collecting queries, with the input split at every position into
/// two accumulators merged afterwards. All must agree; the rows come back as compact text:
/// values joined by `|`, rows by `;`.
pub(crate) fn run(query: &str, lines: &[&str]) -> String {
    let plan = Plan::compile(query).unwrap_or_else(|e| panic!("{query}: {e}"));
    run_plan(&plan, query, lines)
}

/// [`run`] of a plan already compiled (with time options, say).
pub(crate) fn run_plan(plan: &Plan, query: &str, lines: &[&str]) -> String {
    let serde = run_serde(plan, lines, None);
    let lazy = run_lazy(plan, lines, None);
    assert_eq!(lazy, serde, "lazy and serde engines differ on: {query}");
    assert_eq!(
        run_lazy_as(plan, lines, None, false),
        serde,
        "keys noted by the scanner and keys searched differ on: {query}"
    );
    if let Some(pre) = plan.prefilter() {
        // Lines the prefilter rules out cannot change the result.
        let kept: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| pre.may_match(l.as_bytes()))
            .collect();
        assert_eq!(
            run_lazy(plan, &kept, None),
            serde,
            "prefilter {pre} changes the result of: {query}"
        );
    }
    if plan.kind() == Kind::Collect {
        assert_eq!(
            run_every_line_a_chunk(plan, lines),
            serde,
            "one chunk per line differs on: {query}"
        );
        for split in 0..=lines.len() {
            assert_eq!(
                run_serde(plan, lines, Some(split)),
                serde,
                "merge at split {split} differs on: {query}"
            );
            assert_eq!(
                run_lazy(plan, lines, Some(split)),
                serde,
                "lazy merge at split {split} differs on: {query}"
            );
        }
    }
    serde
}

/// Every line in its own accumulator, merged left to right (as many chunks as lines).
fn run_every_line_a_chunk(plan: &Plan, lines: &[&str]) -> String {
    let mut w = plan.worker();
    let mut merged = Accumulator::default();
    for line in lines {
        let doc: serde_json::Value = serde_json::from_str(line).unwrap();
        let mut acc = plan.accumulator();
        w.accumulate(&doc, &mut acc);
        merged.merge(acc);
    }
    finish(plan, Vec::new(), vec![merged, plan.accumulator()])
}

fn render(rows: &[Vec<String>]) -> String {
    rows.iter()
        .map(|r| r.join("|"))
        .collect::<Vec<_>>()
        .join(";")
}

pub(crate) fn run_serde(plan: &Plan, lines: &[&str], split: Option<usize>) -> String {
    let docs: Vec<serde_json::Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut w = plan.worker();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut accs = vec![plan.accumulator(), plan.accumulator()];
    for (i, (doc, line)) in docs.iter().zip(lines).enumerate() {
        let half = usize::from(split.is_some_and(|s| i >= s));
        eval_line(plan, &mut w, doc, line, &mut rows, &mut accs[half]);
    }
    finish(plan, rows, accs)
}

pub(crate) fn run_lazy(plan: &Plan, lines: &[&str], split: Option<usize>) -> String {
    run_lazy_as(plan, lines, split, true)
}

/// [`run_lazy`], the root being [`Plan::root`] (top-level keys found where the scanner noted
/// them, as the CLI runs) when `noted`, else the document's root object (keys searched).
fn run_lazy_as(plan: &Plan, lines: &[&str], split: Option<usize>, noted: bool) -> String {
    let mut parser = ndq_scan::Parser::new(ndq_scan::Scanner::detect());
    let mut w = plan.worker();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut accs = vec![plan.accumulator(), plan.accumulator()];
    for (i, line) in lines.iter().enumerate() {
        let doc = parser
            .parse_until(line.as_bytes(), plan.key_set())
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        let half = usize::from(split.is_some_and(|s| i >= s));
        let acc = &mut accs[half];
        if noted {
            eval_line(plan, &mut w, plan.root(doc), line, &mut rows, acc);
        } else {
            eval_line(plan, &mut w, doc.root(), line, &mut rows, acc);
        }
    }
    finish(plan, rows, accs)
}

/// One line's document evaluated as the CLI does: a matching line's text or row kept, or the
/// line folded into `acc`.
fn eval_line<'a, D: crate::Doc<'a>>(
    plan: &Plan,
    w: &mut crate::Worker<'_>,
    root: D,
    line: &str,
    rows: &mut Vec<Vec<String>>,
    acc: &mut Accumulator,
) {
    match plan.kind() {
        Kind::Lines => {
            if w.matches(root) {
                rows.push(vec![line.to_owned()]);
            }
        }
        Kind::Rows => {
            if w.matches(root) {
                let mut row = Vec::new();
                w.project(root, &mut row);
                rows.push(row.iter().map(show).collect());
            }
        }
        Kind::Collect => {
            w.accumulate(root, acc);
        }
    }
}

fn finish(plan: &Plan, mut rows: Vec<Vec<String>>, mut accs: Vec<Accumulator>) -> String {
    if plan.kind() == Kind::Collect {
        let later = accs.pop().unwrap_or_default();
        let mut first = accs.pop().unwrap_or_default();
        first.merge(later);
        rows = plan
            .finish(first)
            .iter()
            .map(|r| r.iter().map(show).collect())
            .collect();
    }
    if plan.kind() != Kind::Collect {
        // What the CLI does with streamed rows: skip `offset`, then stop at `limit`.
        let skip = usize::try_from(plan.offset()).unwrap_or(usize::MAX);
        rows.drain(..skip.min(rows.len()));
        if let Some(l) = plan.limit() {
            rows.truncate(l as usize);
        }
    }
    render(&rows)
}

/// A value as text: strings bare, numbers exact, null as `null`.
pub(crate) fn show(v: &Value<'_>) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::RawNumber(n) => n.to_string(),
        Value::Number(d) => crate::format_decimal(d),
        Value::Float(f) => f.to_string(),
        Value::RawString(s) => crate::unescape_json_str(s).into_owned(),
        Value::String(s) => s.to_string(),
        Value::RawJson(j) => j.to_string(),
    }
}

/// The query error message for `query`.
pub(crate) fn fails(query: &str) -> String {
    match Plan::compile(query) {
        Ok(_) => panic!("{query}: compiled"),
        Err(e) => e.message().to_owned(),
    }
}

macro_rules! q {
    ($name:ident, $query:expr, [$($line:expr),* $(,)?], $expected:expr) => {
        #[test]
        fn $name() {
            assert_eq!(run($query, &[$($line),*]), $expected, "query: {}", $query);
        }
    };
}

q!(smoke, "select a", [r#"{"a":1}"#], "1");

// A float sum that passes the largest float on the way: the same at every split and order.
q!(
    a_float_sum_past_the_range_on_the_way_is_exact,
    "select sum(v) = 1e308, avg(v) * 3 = 1e308",
    [r#"{"v":1e308}"#, r#"{"v":1e308}"#, r#"{"v":-1e308}"#],
    "true|true"
);
q!(
    a_float_sum_past_the_range_on_the_way_is_exact_in_another_order,
    "select sum(v) = 1e308, avg(v) = 3.333333333333333e307",
    [r#"{"v":-1e308}"#, r#"{"v":1e308}"#, r#"{"v":1e308}"#],
    "true|true"
);
// A decimal meets a float through its nearest float: no noise from the conversion.
q!(
    a_sum_with_a_float_in_it_has_no_conversion_noise,
    "select sum(v), tostring(sum(v))",
    [r#"{"v":1e-400}"#, r#"{"v":0.001}"#],
    "0.001|0.001"
);
q!(
    an_average_with_a_float_in_it_has_no_conversion_noise,
    "select avg(x)",
    [
        r#"{"x":0.10000000000000000000000000000001}"#,
        r#"{"x":1}"#,
        r#"{"x":1}"#
    ],
    "0.7"
);
q!(
    an_overflowing_quotient_is_the_nearest_float_of_the_exact_one,
    "select 100.5 / -0.0000000000000000000000000001 = -1.005e30",
    [r#"{}"#],
    "true"
);
q!(
    a_float_minus_zero_is_zero,
    "select z * -1, -z, tostring(z / -2)",
    [r#"{"z":1e-400}"#],
    "0|0|0"
);
q!(
    an_average_within_range_of_a_sum_past_it,
    "select sum(v), avg(v) = 1.7e308",
    [r#"{"v":1.7e308}"#, r#"{"v":1.7e308}"#],
    "null|true"
);

// ---- View ----
q!(
    keywords_any_case,
    "SeLeCt a FrOm StReAm WhErE a > 1",
    [r#"{"a":1}"#, r#"{"a":2}"#],
    "2"
);
q!(
    functions_any_case,
    "select COUNT(*), Sum(a)",
    [r#"{"a":1}"#, r#"{"a":2}"#],
    "2|3"
);
q!(
    from_stream_optional,
    "where a = 2",
    [r#"{"a":1}"#, r#"{"a":2}"#],
    r#"{"a":2}"#
);
q!(
    no_select_is_whole_lines,
    "where a > 0",
    [r#"{"a": 1 , "b":"x"}"#],
    r#"{"a": 1 , "b":"x"}"#
);
q!(
    select_star_is_whole_lines,
    "select * where a > 0",
    [r#"{ "a":1 }"#],
    r#"{ "a":1 }"#
);
q!(
    empty_query_keeps_every_line,
    "",
    [r#"{"a":1}"#, r#"{"b":1}"#],
    r#"{"a":1};{"b":1}"#
);

#[test]
fn column_names_alias_or_text() {
    let p = Plan::compile("select Count(*), sum( v  +\t1 )").unwrap();
    assert_eq!(p.columns(), ["Count(*)", "sum( v + 1 )"]);
    let p = Plan::compile("select v  +\n1, a as x, b as 'odd name', lower( s )").unwrap();
    assert_eq!(p.columns(), ["v + 1", "x", "odd name", "lower( s )"]);
    // Comments are not part of a name; `--` inside a string is.
    let p = Plan::compile("select v + -- one more\n 1, '--' + v -- why\n, w").unwrap();
    assert_eq!(p.columns(), ["v + 1", "'--' + v", "w"]);
    assert_eq!(
        Plan::compile("select *").unwrap().columns(),
        [] as [String; 0]
    );
}

#[test]
fn kinds() {
    assert_eq!(Plan::compile("where a").unwrap().kind(), Kind::Lines);
    assert_eq!(
        Plan::compile("select a limit 3").unwrap().kind(),
        Kind::Rows
    );
    assert!(Plan::compile("select a limit 3").unwrap().early_stop());
    assert_eq!(
        Plan::compile("select a order by a").unwrap().kind(),
        Kind::Collect
    );
    assert!(
        !Plan::compile("select a order by a limit 1")
            .unwrap()
            .early_stop()
    );
    assert_eq!(
        Plan::compile("select count(*)").unwrap().kind(),
        Kind::Collect
    );
    assert_eq!(
        Plan::compile("select a group by a").unwrap().kind(),
        Kind::Collect
    );
    assert!(Plan::compile("order by a").unwrap().lines());
}

/// A query reading more top-level keys than the scanner notes (64): the lookups fall back to
/// searching the members, with the same answers.
#[test]
fn more_than_64_keys_read() {
    let keys: Vec<String> = (0..70).map(|i| format!("k{i}")).collect();
    let query = format!("select {} where k69 > 1", keys.join(", "));
    let values: Vec<String> = (0..70).map(|i| format!("\"k{i}\":{i}")).collect();
    let line = format!("{{{}}}", values.join(","));
    let plan = Plan::compile(&query).unwrap();
    assert_eq!(plan.key_set().len(), 70);
    let want: Vec<String> = (0..70).map(|i| i.to_string()).collect();
    assert_eq!(run(&query, &[&line, r#"{"k69":0}"#]), want.join("|"));
}

#[test]
fn key_set_is_first_segments() {
    let p = Plan::compile(
        "select Properties.User.Name, count(*) where has(x.y) and Tags[0] = 'a' group by Properties.User.Name order by count(*)",
    )
    .unwrap();
    assert_eq!(p.key_names(), ["x", "Tags", "Properties"]);
    assert!(Plan::compile("select *").unwrap().key_names().is_empty());
}

#[test]
fn text_tests_are_the_equalities_of_top_level_properties_with_text() {
    let p = Plan::compile(
        "select count(*) where (@l = 'error' or 'x' == RequestPath) and Level in ('a', 'b', 3) \
         and not (Env = 'prod') and Tags[0] = 'a' and N = 3 and M <> 'z' and (K in ('q')) is null \
         and @l = Error and a.b = c",
    )
    .unwrap();
    let pairs = |v: &[(&str, &str, bool)]| -> Vec<(String, String, bool)> {
        v.iter()
            .map(|(a, b, bare)| (a.to_string(), b.to_string(), *bare))
            .collect()
    };
    assert_eq!(
        p.text_tests(),
        pairs(&[
            ("@l", "error", false),
            ("RequestPath", "x", false),
            ("Level", "a", false),
            ("Level", "b", false),
            ("@l", "Error", true),
        ])
    );
    assert!(Plan::compile("select @l").unwrap().text_tests().is_empty());
}

// ---- Property paths ----
q!(
    top_level_at_names,
    "select @t, @mt, $x",
    [r#"{"@t":"now","@mt":"m","$x":1}"#],
    "now|m|1"
);
q!(
    nested_path,
    "select Properties.User.Name",
    [r#"{"Properties":{"User":{"Name":"ann"}}}"#],
    "ann"
);
q!(
    array_index,
    "select Tags[0], Tags[1], Tags[2]",
    [r#"{"Tags":["a","b"]}"#],
    "a|b|null"
);
q!(
    quoted_key,
    "select Headers['User-Agent'], ['odd key']",
    [r#"{"Headers":{"User-Agent":"curl"},"odd key":5}"#],
    "curl|5"
);
q!(
    backslash_is_ordinary_in_key,
    r"select ['a\b']",
    [r#"{"a\\b":1}"#],
    "1"
);
q!(
    absent_is_null,
    "select nope, a.b.c",
    [r#"{"a":1}"#],
    "null|null"
);
q!(
    path_through_non_object_is_null,
    "select a.b, a[0], s.x, arr.x, o[0]",
    [r#"{"a":1,"s":"str","arr":[1],"o":{"x":1}}"#],
    "null|null|null|null|null"
);
q!(
    arrays_and_objects_are_equal_when_their_values_are,
    "select a = b, a <> b, a = c, a <> c, o = p, o = q, a < b, a = o, a in (c, b), \
     case a when c then 'c' when b then 'b' end, b in n",
    [
        r#"{"a":[1, 2],"b":[1.0,2e0],"c":[2,1],"o":{"x":1,"y":[2]},"p":{"y":[2.0],"x":1},"q":{"x":1},"n":[[2,1],[1,2]]}"#
    ],
    "true|false|false|true|true|false|null|null|true|b|true"
);
q!(
    out_of_range_index_is_null,
    "select t[5], t[99999999999999999999999], t[0]",
    [r#"{"t":[1]}"#],
    "null|null|1"
);
q!(
    escaped_keys_match,
    "select Elapsed",
    [r#"{"Elaps\u0065d":7}"#],
    "7"
);
q!(
    nested_array_of_objects,
    "select Cart[0].Sku",
    [r#"{"Cart":[{"Sku":"S1"}]}"#],
    "S1"
);

// ---- Values and literals ----
q!(
    number_literals,
    "select 200, -3, 1.50, 1e3, 2.5E-1",
    [r#"{}"#],
    "200|-3|1.50|1000|0.25"
);
q!(
    input_number_kept_as_written,
    "select a",
    [r#"{"a":1.50}"#],
    "1.50"
);
q!(
    big_number_is_float,
    "select a > 1e300, a < 1e401, a is null",
    [r#"{"a":1e400}"#],
    "true|false|false"
);
q!(
    a_computed_infinity_is_null,
    "select (a + 0) is null, coalesce(a * 1, 5), 'x' || (a + 1), concat(-a, 'y'), abs(a) is null, 1e300 * 1e300 is null, round(a) is null",
    [r#"{"a":1e400}"#],
    "true|5|null|y|true|true|true"
);
q!(
    aggregates_that_meet_an_infinity_are_null,
    "select count(a + 1), sum(a) is null, coalesce(avg(a), 7), count_if((a * 2) is null), max(a) > 1e300",
    [r#"{"a":1e400}"#, r#"{"a":1}"#],
    "1|true|7|1|true"
);
q!(
    a_float_past_every_decimal_compares_as_it_groups,
    "select count_distinct(x), min(x) < max(x), count_if(x = 79228162514264337593543950335)",
    [
        r#"{"x":79228162514264337593543950336}"#,
        r#"{"x":79228162514264337593543950335}"#
    ],
    "2|true|1"
);
q!(
    forty_digits_is_float,
    "select a * 1",
    [r#"{"a":1234567890123456789012345678901234567890}"#],
    "1234567890123456800000000000000000000000"
);
q!(
    one_equals_one_point_zero,
    "select 1 = 1.0, a = 1",
    [r#"{"a":1.00}"#],
    "true|true"
);
q!(
    numbers_compare_with_a_constant_on_either_side,
    "select a > 2, 2 < a, 2.50 >= a, 3 <= a, -1 >= a, 2.5 = a, a != 2.50, 2.5000 <= a",
    [r#"{"a":2.5}"#],
    "true|true|true|false|false|true|false|true"
);
q!(
    constant_comparisons_over_every_number_form,
    "select count(*) where 3 < a",
    [
        r#"{"a":-3}"#,
        r#"{"a":2.999999999999999999}"#,
        r#"{"a":"10"}"#,
        r#"{"a":10}"#,
        r#"{"a":1e2}"#,
        r#"{"a":3.0000000000000000000001}"#,
        r#"{"a":12345678901234567890123}"#,
        r#"{"a":-0}"#,
        r#"{"b":9}"#
    ],
    "4"
);
q!(string_quote_escape, "select 'it''s'", [r#"{}"#], "it's");
q!(
    backslash_in_literal,
    r"select a = 'x\y'",
    [r#"{"a":"x\\y"}"#],
    "true"
);
q!(
    strings_compare_case_sensitive,
    "select a = 'abc', a < 'b', 'B' < 'a'",
    [r#"{"a":"ABC"}"#],
    "false|true|true"
);
q!(
    strings_compare_code_points,
    "select 'é' > 'z'",
    [r#"{}"#],
    "true"
);
q!(
    bool_and_null_literals,
    "select true, false, null, TRUE",
    [r#"{}"#],
    "true|false|null|true"
);
q!(
    numerically_equal_one_group,
    "select a, count(*) group by a",
    [r#"{"a":1.5}"#, r#"{"a":1.50}"#, r#"{"a":2}"#],
    "1.5|2;2|1"
);
q!(
    numerically_equal_one_distinct,
    "select count_distinct(a)",
    [r#"{"a":1.5}"#, r#"{"a":1.50}"#, r#"{"a":"1.5"}"#],
    "2"
);
q!(
    numbers_held_as_floats_equal_to_a_decimal_group_with_it,
    "select a, count(*), count_distinct(a) group by a",
    [
        r#"{"a":0}"#,
        r#"{"a":1e-400}"#,
        r#"{"a":1.5}"#,
        r#"{"a":1.5000000000000000000000000000000001}"#,
        r#"{"a":1234567890123456789012345678901234567890}"#,
        r#"{"a":1234567890123456789012345678901234567890}"#
    ],
    "0|2|1;1.5|2|1;1234567890123456789012345678901234567890|2|1"
);
q!(
    numbers_held_as_floats_count_as_the_equal_decimal,
    "select count_distinct(a), count(*) where a = 0 or a = 1.5",
    [
        r#"{"a":0}"#,
        r#"{"a":-1e-400}"#,
        r#"{"a":1.50}"#,
        r#"{"a":1.5000000000000000000000000000000001}"#
    ],
    "2|4"
);

// ---- Operators and precedence ----
q!(
    or_looser_than_and,
    "select true or false and false",
    [r#"{}"#],
    "true"
);
q!(
    not_looser_than_comparison,
    "select not 1 = 2",
    [r#"{}"#],
    "true"
);
q!(
    mul_tighter_than_add,
    "select 1 + 2 * 3, (1 + 2) * 3",
    [r#"{}"#],
    "7|9"
);
q!(
    unary_minus_tightest,
    "select -2 * 3, - a",
    [r#"{"a":4}"#],
    "-6|-4"
);
q!(
    all_comparison_operators,
    "select 1 = 1, 1 == 1, 1 <> 2, 1 != 1, 1 < 2, 2 <= 2, 3 > 2, 2 >= 3",
    [r#"{}"#],
    "true|true|true|false|true|true|true|false"
);
q!(
    subtract_left_assoc,
    "select 10 - 3 - 2, 12 / 2 / 3",
    [r#"{}"#],
    "5|2"
);

// ---- Three-valued logic ----
q!(
    compare_null_is_null,
    "select a = 1, a < 1, a <> 1",
    [r#"{}"#],
    "null|null|null"
);
q!(
    compare_types_is_null,
    "select a = '1', a < 'x', b = 1",
    [r#"{"a":1,"b":true}"#],
    "null|null|null"
);
q!(not_null_is_null, "select not a", [r#"{}"#], "null");
q!(
    not_truth_table,
    "select not true, not false, not null",
    [r#"{}"#],
    "false|true|null"
);
q!(
    every_comparison_with_null_is_null,
    "select a = n, a <> n, a < n, a <= n, a > n, a >= n, n = a",
    [r#"{"a":1}"#],
    "null|null|null|null|null|null|null"
);
q!(
    and_truth_table,
    "select null and false, false and null, null and true, true and null, null and null, true and true, true and false",
    [r#"{}"#],
    "false|false|null|null|null|true|false"
);
q!(
    or_truth_table,
    "select null or true, true or null, null or false, false or null, null or null, false or false",
    [r#"{}"#],
    "true|true|null|null|null|false"
);
q!(
    where_keeps_only_true,
    "select a where b > 1",
    [
        r#"{"a":1,"b":2}"#,
        r#"{"a":2}"#,
        r#"{"a":3,"b":"x"}"#,
        r#"{"a":4,"b":0}"#
    ],
    "1"
);
q!(
    where_not_null_excludes,
    "select a where not (b > 1)",
    [r#"{"a":1,"b":2}"#, r#"{"a":2}"#, r#"{"a":4,"b":0}"#],
    "4"
);
q!(
    non_bool_in_logic_is_null,
    "select 1 and true, not 'x'",
    [r#"{}"#],
    "null|null"
);
q!(
    is_null_and_is_not_null,
    "select a is null, b is null, c is null, a is not null",
    [r#"{"a":1,"b":null}"#],
    "false|true|true|true"
);

// ---- like / ilike ----
q!(
    like_percent_and_underscore,
    "select a like 'h%o', a like 'h_llo', a like 'h_lo', a like '%ll%'",
    [r#"{"a":"hello"}"#],
    "true|true|false|true"
);
q!(
    like_whole_string,
    "select a like 'ell', a like 'hello'",
    [r#"{"a":"hello"}"#],
    "false|true"
);
q!(
    like_spans_newlines,
    "select a like 'a%b'",
    [r#"{"a":"a\nx\nb"}"#],
    "true"
);
q!(
    not_like,
    "select a not like 'h%'",
    [r#"{"a":"hello"}"#],
    "false"
);
q!(
    like_is_case_sensitive,
    "select a like 'H%'",
    [r#"{"a":"hello"}"#],
    "false"
);
q!(
    ilike_ignores_case,
    "select a ilike 'H%O', a ilike 'É%'",
    [r#"{"a":"hellO"}"#],
    "true|false"
);
q!(
    ilike_unicode,
    "select a ilike 'é_', b ilike 'strasse'",
    [r#"{"a":"Éa","b":"STRAßE"}"#],
    "true|true"
);
q!(
    ilike_matches_whatever_like_matches,
    "select a ilike 'Stra_e', a ilike p, 'ß' ilike '_', 'ß' ilike '__', 'İstanbul' ilike '_stanbul', \
     'verboſe' ilike 'VERBOSE', 'ﬁ' ilike 'f_', a ilike 'Stra_', a ilike 'STRASSE'",
    [r#"{"a":"Straße","p":"%ß%"}"#],
    "true|true|true|true|true|true|true|false|true"
);
q!(
    like_non_string_is_null,
    "select a like '1%', b like 'x'",
    [r#"{"a":10}"#],
    "null|null"
);
q!(
    like_dynamic_pattern,
    "select a like p, a ilike q",
    [r#"{"a":"abc","p":"a%","q":"A_C"}"#],
    "true|true"
);
q!(
    like_underscore_is_one_char,
    "select a like '_'",
    [r#"{"a":"é"}"#],
    "true"
);

// ---- in ----
q!(
    in_list,
    "select a in (1, 2), a in ('x', 3), a not in (1, 2)",
    [r#"{"a":2}"#],
    "true|null|false"
);
q!(
    in_absent_is_null,
    "select a in (1, 2), a not in (1)",
    [r#"{}"#],
    "null|null"
);
q!(
    in_with_null_item,
    "select a in (1, null), a in (2, null)",
    [r#"{"a":2}"#],
    "null|true"
);
q!(
    in_strings,
    "select @l in ('Error', 'Fatal') where @l in ('Error','Warning')",
    [
        r#"{"@l":"Error"}"#,
        r#"{"@l":"Info"}"#,
        r#"{"@l":"Warning"}"#
    ],
    "true;false"
);

// ---- Arithmetic ----
q!(
    add_keeps_larger_scale,
    "select 1.5 + 0.00, 0 + 1.50, 2.00 - 2",
    [r#"{}"#],
    "1.50|1.50|0.00"
);
q!(
    zero_product_keeps_the_scales,
    "select 0.0 * 5, 1.5 * 0.0, 0 * 2",
    [r#"{}"#],
    "0.0|0.00|0"
);
q!(
    arithmetic_exact,
    "select 0.1 + 0.2, 1.50 + 1.50, 1.50 * 2, 7 - 10",
    [r#"{}"#],
    "0.3|3.00|3.00|-3"
);
q!(
    arithmetic_on_non_numbers_is_null,
    "select a + 1, b * 2, c - 1, -b",
    [r#"{"a":"1","b":true}"#],
    "null|null|null|null"
);
q!(
    division_by_zero_is_null,
    "select 1 / 0, 1 % 0, 1.5 / 0.0",
    [r#"{}"#],
    "null|null|null"
);
q!(
    remainder_keeps_dividend_sign,
    "select -7 % 3, 7 % -3, 7.5 % 2",
    [r#"{}"#],
    "-1|1|1.5"
);
q!(
    division_rounds_to_decimal_precision,
    "select 1 / 3, 2 / 3, 10 / 4, 6 / 2",
    [r#"{}"#],
    "0.3333333333333333333333333333|0.6666666666666666666666666667|2.5|3"
);
q!(
    overflow_falls_back_to_float,
    "select 79228162514264337593543950335 + 1 > 7e28",
    [r#"{}"#],
    "true"
);
q!(
    arithmetic_with_input_numbers,
    "select Elapsed * 1000, StatusCode + 0.5",
    [r#"{"Elapsed":0.0012,"StatusCode":200}"#],
    "1.2000|200.5"
);

// ---- Functions ----
q!(
    match_regex,
    "select match(m, '^GET /api'), match(m, '(?i)get'), match(m, 'POST')",
    [r#"{"m":"GET /api/x"}"#],
    "true|true|false"
);
q!(
    match_non_string_is_null,
    "select match(a, 'x')",
    [r#"{"a":1}"#],
    "null"
);
q!(
    match_on_unescaped_value,
    r#"select match(m, '^a"b$')"#,
    [r#"{"m":"a\"b"}"#],
    "true"
);
q!(
    has_present_even_null,
    "select has(a), has(b), has(c), has(d.e), has(t[0]), has(t[1])",
    [r#"{"a":null,"b":0,"d":{"e":1},"t":[1]}"#],
    "true|true|false|true|true|false"
);
q!(
    substring_tests,
    "select contains(s, 'ell'), startswith(s, 'he'), endswith(s, 'lo'), contains(s, 'x')",
    [r#"{"s":"hello"}"#],
    "true|true|true|false"
);
q!(
    substring_wrong_type_is_null,
    "select contains(n, '1'), startswith(s, 1)",
    [r#"{"n":10,"s":"x"}"#],
    "null|null"
);
q!(
    lower_upper_unicode,
    "select lower(s), upper(s), upper('ß'), lower('É')",
    [r#"{"s":"ÉcoLE"}"#],
    "école|ÉCOLE|SS|é"
);
q!(
    lower_on_escaped_string,
    "select lower(s)",
    [r#"{"s":"\u00C9A"}"#],
    "éa"
);
q!(
    length_of_each_type,
    "select length(s), length(t), length(o), length(n), length(e)",
    [r#"{"s":"héllo","t":[1,2,3],"o":{"a":1,"b":2},"n":5,"e":"a\u0062"}"#],
    "5|3|2|null|2"
);
q!(
    coalesce_first_not_null,
    "select coalesce(a, b, 'z'), coalesce(a, c)",
    [r#"{"b":2,"c":null}"#],
    "2|null"
);
q!(
    numeric_functions,
    "select abs(-2.5), floor(2.7), floor(-2.5), ceil(2.1), ceil(-2.5)",
    [r#"{}"#],
    "2.5|2|-3|3|-2"
);
q!(
    round_of_numbers_held_as_floats_goes_by_their_spelling,
    "select round(a, 2), round(b, 30), round(-b, 30), round(c, 2), round(c), round(d, -3)",
    [
        r#"{"a":1.005000000000000000000000000001,"b":1.5e-30,"c":-1e-40,"d":1234567890123456789012345678901234}"#
    ],
    "1.01|0.000000000000000000000000000002|-0.000000000000000000000000000002|0|0|1234567890123456800000000000000000"
);
q!(
    round_half_away_from_zero,
    "select round(2.5), round(-2.5), round(2.4), round(1.2345, 2), round(1.235, 2), round(1250, -2)",
    [r#"{}"#],
    "3|-3|2|1.23|1.24|1300"
);
q!(
    numeric_functions_wrong_type_null,
    "select abs('x'), round(s), floor(null)",
    [r#"{"s":"1"}"#],
    "null|null|null"
);
q!(
    tostring_values,
    "select tostring(n), tostring(1.50), tostring(true), tostring(s), tostring(t), tostring(x)",
    [r#"{"n":1.50,"s":"a","t":[1,2]}"#],
    "1.50|1.50|true|a|[1,2]|null"
);
q!(
    rounding_to_zero_gives_zero_not_minus_zero,
    "select tostring(ceil(v)), tostring(floor(z)), tostring(ceil(f)), tostring(floor(g)), tostring(abs(z))",
    [r#"{"v":-0.4,"z":-0.0,"f":-4e-50,"g":-0e-50}"#],
    "0|0|0|0|0.0"
);
q!(
    tonumber_values,
    "select tonumber('12.5'), tonumber('x'), tonumber(n), tonumber(' 7 '), tonumber(true)",
    [r#"{"n":3}"#],
    "12.5|null|3|7|null"
);

// ---- Aggregates ----
const NUMS: [&str; 6] = [
    r#"{"g":"a","x":1}"#,
    r#"{"g":"b","x":2.5}"#,
    r#"{"g":"a","x":null}"#,
    r#"{"g":"b"}"#,
    r#"{"g":"a","x":"s"}"#,
    r#"{"x":4}"#,
];

#[test]
fn aggregates_over_non_null_numbers() {
    assert_eq!(
        run(
            "select count(*), count(x), sum(x), avg(x), min(x), max(x), count_distinct(x)",
            &NUMS
        ),
        "6|4|7.5|2.5|1|s|4"
    );
}

#[test]
fn aggregates_grouped_null_group_last() {
    assert_eq!(
        run("select g, count(*), sum(x) group by g", &NUMS),
        "a|3|1;b|2|2.5;null|1|4"
    );
}

q!(
    aggregate_over_zero_lines_is_one_row,
    "select count(*), sum(x), avg(x), min(x), max(x), percentile(x, 50), count_distinct(x) where false",
    [r#"{"x":1}"#],
    "0|null|null|null|null|null|0"
);
q!(
    aggregate_over_no_input,
    "select count(*), sum(x)",
    [],
    "0|null"
);
q!(
    grouped_over_zero_lines_is_no_rows,
    "select g, count(*) group by g",
    [],
    ""
);
q!(
    sum_is_exact,
    "select sum(x)",
    [r#"{"x":0.1}"#, r#"{"x":0.2}"#],
    "0.3"
);
q!(
    sum_is_exact_when_a_running_total_overflows,
    "select sum(x), avg(x)",
    [
        r#"{"x":1}"#,
        r#"{"x":50000000000000000000000000000}"#,
        r#"{"x":50000000000000000000000000000}"#,
        r#"{"x":-50000000000000000000000000000}"#,
        r#"{"x":-50000000000000000000000000000}"#
    ],
    "1|0.2"
);
q!(
    sum_is_exact_in_any_order,
    "select sum(x)",
    [
        r#"{"x":1e-28}"#,
        r#"{"x":1e-28}"#,
        r#"{"x":1.5e27}"#,
        r#"{"x":-1.5e27}"#
    ],
    "0.0000000000000000000000000002"
);
q!(
    sum_is_exact_in_any_order_reversed,
    "select sum(x)",
    [
        r#"{"x":-1.5e27}"#,
        r#"{"x":1.5e27}"#,
        r#"{"x":1e-28}"#,
        r#"{"x":1e-28}"#
    ],
    "0.0000000000000000000000000002"
);
q!(
    sum_too_long_for_a_decimal_is_rounded_once,
    "select sum(x)",
    [
        r#"{"x":100000000000000000000}"#,
        r#"{"x":0.000000004}"#,
        r#"{"x":0.000000004}"#,
        r#"{"x":0.00000000000000000005}"#,
        r#"{"x":100000000000000000000}"#
    ],
    "200000000000000000000.00000001"
);
q!(
    sum_beyond_decimal_is_a_float,
    "select sum(x)",
    [
        r#"{"x":50000000000000000000000000000}"#,
        r#"{"x":50000000000000000000000000000}"#,
        r#"{"x":1}"#
    ],
    "100000000000000000000000000000"
);
q!(
    sum_of_floats_rounds_once,
    "select sum(x)",
    [
        r#"{"x":1e30}"#,
        r#"{"x":0.1000000000000000000000000000001}"#,
        r#"{"x":-1e30}"#
    ],
    "0.1"
);
q!(
    sum_keeps_scale,
    "select sum(x)",
    [r#"{"x":1.50}"#, r#"{"x":1.50}"#],
    "3.00"
);
q!(
    avg_is_exact_when_its_sum_is_beyond_a_decimal,
    "select avg(x), avg(x) filter (where x > 0)",
    [
        r#"{"x":50000000000000000000000000001}"#,
        r#"{"x":50000000000000000000000000003}"#,
        r#"{"x":-7.5}"#
    ],
    "33333333333333333333333333332|50000000000000000000000000002"
);
q!(
    avg_rounds_to_precision,
    "select avg(x)",
    [r#"{"x":1}"#, r#"{"x":1}"#, r#"{"x":2}"#],
    "1.3333333333333333333333333333"
);
q!(
    min_max_strings,
    "select min(s), max(s)",
    [r#"{"s":"b"}"#, r#"{"s":"a"}"#, r#"{"s":"c"}"#],
    "a|c"
);
q!(
    min_max_keep_input_text,
    "select min(x), max(x)",
    [r#"{"x":1.50}"#, r#"{"x":2.0}"#],
    "1.50|2.0"
);
q!(
    percentile_nearest_rank,
    "select percentile(x, 50), percentile(x, 90), percentile(x, 100), percentile(x, 1), percentile(x, 25)",
    [
        r#"{"x":15}"#,
        r#"{"x":20}"#,
        r#"{"x":35}"#,
        r#"{"x":40}"#,
        r#"{"x":50}"#
    ],
    "35|50|50|15|20"
);
q!(
    percentile_writes_the_input_value_as_it_was,
    "select percentile(x, 1), percentile(x, 50), percentile(x, 100), min(x), max(x)",
    [
        r#"{"x":-1000e-1}"#,
        r#"{"x":15e-1}"#,
        r#"{"x":1.50}"#,
        r#"{"x":1234567890123456789012345678901234567890}"#
    ],
    "-1000e-1|15e-1|1234567890123456789012345678901234567890|-1000e-1|1234567890123456789012345678901234567890"
);
#[test]
fn percentile_of_a_float_held_p_is_the_decimal_it_spells() {
    let lines: Vec<String> = (1..=300).map(|i| format!(r#"{{"x":{i}}}"#)).collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    // 29 digits: held as the float 0.5, the 2nd of 300 values (the 1st for 1e-28).
    assert_eq!(
        run(
            "select percentile(x, 0.50000000000000000000000000001), percentile(x, 0.5)",
            &lines
        ),
        "2|2"
    );
}

q!(
    percentile_tiny_p_is_the_first_rank,
    "select percentile(x, 1e-40), percentile(x, 0.0000000000000000000000000001)",
    [r#"{"x":3}"#, r#"{"x":1}"#, r#"{"x":2}"#],
    "1|1"
);
q!(
    percentile_ignores_non_numbers,
    "select percentile(x, 50)",
    [r#"{"x":"a"}"#, r#"{"x":3}"#, r#"{}"#],
    "3"
);
q!(
    count_distinct_strings,
    "select count_distinct(s)",
    [
        r#"{"s":"a"}"#,
        r#"{"s":"a"}"#,
        r#"{"s":"A"}"#,
        r#"{"s":null}"#
    ],
    "2"
);
q!(
    aggregate_expression,
    "select sum(x) / count(*), count(*) + 1, 'n'",
    [r#"{"x":1}"#, r#"{"x":2}"#],
    "1.5|3|n"
);
q!(
    group_by_expression,
    "select lower(s), count(*) group by lower(s)",
    [r#"{"s":"A"}"#, r#"{"s":"a"}"#, r#"{"s":"b"}"#],
    "a|2;b|1"
);
q!(
    group_by_two_keys,
    "select a, b, count(*) group by a, b",
    [
        r#"{"a":1,"b":"x"}"#,
        r#"{"a":1,"b":"y"}"#,
        r#"{"a":1,"b":"x"}"#,
        r#"{"a":0}"#
    ],
    "0|null|1;1|x|2;1|y|1"
);
q!(
    group_keys_ascending_numbers_before_strings,
    "select k, count(*) group by k",
    [
        r#"{"k":"b"}"#,
        r#"{"k":10}"#,
        r#"{"k":9}"#,
        r#"{}"#,
        r#"{"k":"a"}"#
    ],
    "9|1;10|1;a|1;b|1;null|1"
);
q!(
    group_key_keeps_first_text,
    "select k group by k",
    [r#"{"k":1.50}"#, r#"{"k":1.5}"#],
    "1.50"
);
q!(
    group_by_without_aggregate_is_distinct,
    "select k group by k",
    [r#"{"k":"x"}"#, r#"{"k":"x"}"#],
    "x"
);
q!(
    where_before_aggregate,
    "select count(*), count(x) where x > 1",
    [r#"{"x":1}"#, r#"{"x":2}"#, r#"{"x":3}"#],
    "2|2"
);
q!(
    group_limit_keeps_the_first_rows_of_the_order,
    "select k, count(*) group by k order by count(*) desc limit 2",
    [
        r#"{"k":"a"}"#,
        r#"{"k":"b"}"#,
        r#"{"k":"c"}"#,
        r#"{"k":"c"}"#,
        r#"{"k":"b"}"#,
        r#"{"k":"d"}"#
    ],
    "b|2;c|2"
);
q!(
    group_limit_without_order_by_keeps_the_first_keys,
    "select k group by k limit 2",
    [r#"{"k":"c"}"#, r#"{"k":"a"}"#, r#"{"k":"b"}"#, r#"{}"#],
    "a;b"
);
q!(
    group_limit_zero_keeps_nothing,
    "select k, count(*) group by k order by k limit 0",
    [r#"{"k":"c"}"#, r#"{"k":"a"}"#],
    ""
);
q!(
    escaped_group_keys_one_group,
    "select s, count(*) group by s",
    [r#"{"s":"é"}"#, r#"{"s":"\u00e9"}"#],
    "é|2"
);

// ---- Conditional aggregates (version 2) ----
q!(
    filter_counts_the_lines_where_the_condition_is_true,
    "select count(*) filter (where s >= 500), count(*)",
    [
        r#"{"s":500}"#,
        r#"{"s":200}"#,
        r#"{"s":null}"#,
        r#"{}"#,
        r#"{"s":503}"#
    ],
    "2|5"
);
q!(
    filter_on_every_aggregate,
    "select count(x) filter (where k = 'a'), sum(x) filter (where k = 'a'), \
     avg(x) filter (where k = 'a'), min(x) filter (where k = 'a'), \
     max(x) filter (where k = 'a'), percentile(x, 50) filter (where k = 'a'), \
     count_distinct(x) filter (where k = 'a')",
    [
        r#"{"k":"a","x":1}"#,
        r#"{"k":"b","x":100}"#,
        r#"{"k":"a","x":3}"#,
        r#"{"k":"a"}"#,
        r#"{"k":"a","x":1.0}"#,
        r#"{"x":-5}"#
    ],
    "3|5.0|1.6666666666666666666666666667|1|3|1.0|2"
);
q!(
    filter_over_no_line_is_the_aggregate_of_nothing,
    "select count(*) filter (where x > 9), sum(x) filter (where x > 9), \
     count_distinct(x) filter (where x > 9)",
    [r#"{"x":1}"#, r#"{"x":2}"#],
    "0|null|0"
);
q!(
    filter_is_three_valued_null_is_not_true,
    "select count(*) filter (where not a = 1), count(*) filter (where a = 1 or b = 1)",
    [
        r#"{"a":1}"#,
        r#"{"a":2}"#,
        r#"{"b":1}"#,
        r#"{"a":"x"}"#,
        r#"{}"#
    ],
    "1|2"
);
q!(
    count_if_is_count_star_filter,
    "select count_if(x > 1), count(*) filter (where x > 1), COUNT_IF(x is null)",
    [r#"{"x":1}"#, r#"{"x":2}"#, r#"{"x":3}"#, r#"{}"#],
    "2|2|1"
);
q!(
    aggregates_differing_only_in_filter_are_different,
    "select count(*) filter (where a = 1), count(*) filter (where a = 2), count(*), \
     sum(a) filter (where a = 1), sum(a)",
    [r#"{"a":1}"#, r#"{"a":2}"#, r#"{"a":2}"#],
    "1|2|3|1|5"
);
q!(
    identical_filtered_aggregates_agree,
    "select count(*) filter (where a = 1) as x, count(*) filter (where a = 1) as y, \
     count(*) filter (where a = 1) + 1",
    [r#"{"a":1}"#, r#"{"a":2}"#],
    "1|1|2"
);
q!(
    filter_after_where,
    "select count(*) filter (where a > 1), count(*) where a < 3",
    [r#"{"a":1}"#, r#"{"a":2}"#, r#"{"a":3}"#],
    "1|2"
);
q!(
    filter_per_group_error_rate,
    "select p, count(*) filter (where s >= 500) * 100 / count(*) as err group by p \
     order by err desc limit 10",
    [
        r#"{"p":"/a","s":500}"#,
        r#"{"p":"/a","s":200}"#,
        r#"{"p":"/b","s":200}"#,
        r#"{"p":"/c","s":503}"#,
        r#"{"p":"/a","s":200}"#,
        r#"{"p":"/a","s":502}"#
    ],
    "/c|100;/a|50;/b|0"
);
q!(
    count_if_in_order_by_and_per_group,
    "select k, count_if(x > 1) group by k order by count(*) filter (where x > 1) desc, k",
    [
        r#"{"k":"a","x":1}"#,
        r#"{"k":"b","x":2}"#,
        r#"{"k":"b","x":3}"#,
        r#"{"k":"a","x":5}"#,
        r#"{"k":"c"}"#
    ],
    "b|2;a|1;c|0"
);
q!(
    filter_on_an_array_condition,
    "select sum(x) filter (where t[?] = 'a'), count_if('a' in t)",
    [
        r#"{"x":1,"t":["a"]}"#,
        r#"{"x":2,"t":["b"]}"#,
        r#"{"x":4,"t":["b","a"]}"#
    ],
    "5|2"
);

// ---- Arrays (version 2) ----
q!(
    in_array_true_when_some_element_equals,
    "select 'b' in t, 1.5 in t, 2 in t",
    [
        r#"{"t":["a","b"]}"#,
        r#"{"t":[1, "b", 1.50]}"#,
        r#"{"t":[null, 2.0]}"#
    ],
    "true|null|null;true|true|null;null|null|true"
);
q!(
    in_array_null_when_a_comparison_was_null_else_false,
    "select 'b' in t",
    [
        r#"{"t":["a","c"]}"#,
        r#"{"t":["a",null]}"#,
        r#"{"t":["a",1]}"#,
        r#"{"t":[["b"]]}"#,
        r#"{"t":[]}"#
    ],
    "false;null;null;null;false"
);
q!(
    in_array_null_when_not_an_array,
    "select 'b' in t, 'b' in u",
    [r#"{"t":"b","u":{"b":1}}"#, r#"{"t":null}"#, r#"{}"#],
    "null|null;null|null;null|null"
);
q!(
    in_array_null_value_compares_null,
    "select x in t",
    [r#"{"t":["a"]}"#, r#"{"t":[]}"#, r#"{"x":"a","t":["a"]}"#],
    "null;false;true"
);
q!(
    not_in_array_is_not_of_in,
    "select 'b' not in t, not ('b' in t)",
    [
        r#"{"t":["a","b"]}"#,
        r#"{"t":["a"]}"#,
        r#"{"t":["a",null]}"#,
        r#"{"t":"b"}"#
    ],
    "false|false;true|true;null|null;null|null"
);
q!(
    in_array_path_forms,
    "select count(*) where 'x' in o.list and 'y' in ['odd key'] and 1 in o.m[0]",
    [
        r#"{"o":{"list":["x"],"m":[[1]]},"odd key":["y"]}"#,
        r#"{"o":{"list":["x"],"m":[[2]]},"odd key":["y"]}"#
    ],
    "1"
);
q!(
    in_array_per_group_reads_the_key,
    "select t, 'a' in t, count(*) group by t",
    [
        r#"{"t":["a"]}"#,
        r#"{"t":["b"]}"#,
        r#"{"t":["a"]}"#,
        r#"{}"#
    ],
    r#"["a"]|true|2;["b"]|false|1;null|null|1"#
);
q!(
    any_wildcard_true_when_true_for_some_element,
    "select t[?] = 'b'",
    [
        r#"{"t":["a","b"]}"#,
        r#"{"t":["a",null]}"#,
        r#"{"t":[]}"#,
        r#"{"t":"b"}"#,
        r#"{}"#
    ],
    "true;false;false;false;false"
);
q!(
    every_wildcard_true_when_true_for_every_element,
    "select t[*] = 'b'",
    [
        r#"{"t":["b","b"]}"#,
        r#"{"t":["b",null]}"#,
        r#"{"t":["b","a"]}"#,
        r#"{"t":[]}"#,
        r#"{"t":"b"}"#,
        r#"{}"#
    ],
    "true;false;false;true;false;false"
);
q!(
    wildcard_then_a_path_into_each_element,
    "select Cart[?].Qty > 3, Cart[*].Qty >= 2, Cart[?].Sku['x'] = 1, m[?][1] = 2",
    [
        r#"{"Cart":[{"Qty":5},{"Qty":1}],"m":[[1,2]]}"#,
        r#"{"Cart":[{"Qty":2},{"Sku":{"x":1}}],"m":[[2]]}"#,
        r#"{"Cart":[]}"#
    ],
    "true|false|false|true;false|false|true|false;false|true|false|false"
);
q!(
    wildcard_in_like_in_and_is_null,
    "select t[*] like 'prod-%', t[?] ilike 'X', t[?] in ('a', 'x'), t[?] is null, \
     t[*] is not null, t[?] not like 'prod-%'",
    [
        r#"{"t":["prod-1","prod-2"]}"#,
        r#"{"t":["prod-1","x"]}"#,
        r#"{"t":["a",null]}"#,
        r#"{"t":[]}"#
    ],
    "true|false|false|false|true|false;false|true|true|false|true|true;false|false|true|true|false|true;true|false|false|false|true|false"
);
q!(
    wildcard_on_either_side_and_numbers_by_value,
    "select 3 < t[?], 1 = t[*], t[?] = '1'",
    [r#"{"t":[1.0, 4]}"#, r#"{"t":[1, 1.00]}"#, r#"{"t":["1"]}"#],
    "true|false|false;false|true|false;false|false|true"
);
q!(
    wildcard_condition_is_never_null,
    "select (t[?] > 1) is null, not t[?] > 1, t[*] > 1 or null",
    [r#"{"t":[null]}"#, r#"{"t":["a"]}"#, r#"{}"#],
    "false|true|null;false|true|null;false|true|null"
);
q!(
    wildcard_in_where_group_by_and_order_by,
    "select t[?] = 'a' as has_a, count(*) where t[*] <> 'z' group by has_a order by has_a",
    [
        r#"{"t":["a"]}"#,
        r#"{"t":["b"]}"#,
        r#"{"t":["a","z"]}"#,
        r#"{"t":[]}"#,
        r#"{"t":["b","a"]}"#
    ],
    "false|2;true|2"
);

// ---- order by / limit ----
q!(
    order_by_numbers_before_strings_null_last,
    "select k order by k",
    [
        r#"{"k":"b"}"#,
        r#"{}"#,
        r#"{"k":2}"#,
        r#"{"k":"a"}"#,
        r#"{"k":1}"#
    ],
    "1;2;a;b;null"
);
q!(
    order_by_desc_null_first,
    "select k order by k desc",
    [r#"{"k":"b"}"#, r#"{}"#, r#"{"k":2}"#, r#"{"k":1}"#],
    "null;b;2;1"
);
q!(
    order_by_ties_keep_input_order,
    "select n order by k",
    [
        r#"{"k":1,"n":"a"}"#,
        r#"{"k":0,"n":"b"}"#,
        r#"{"k":1,"n":"c"}"#,
        r#"{"k":0,"n":"d"}"#
    ],
    "b;d;a;c"
);
q!(
    order_by_desc_ties_keep_input_order,
    "select n order by k desc",
    [
        r#"{"k":1,"n":"a"}"#,
        r#"{"k":0,"n":"b"}"#,
        r#"{"k":1,"n":"c"}"#
    ],
    "a;c;b"
);
q!(
    order_by_alias,
    "select x * 2 as d order by d desc",
    [r#"{"x":1}"#, r#"{"x":3}"#, r#"{"x":2}"#],
    "6;4;2"
);
q!(
    order_by_position_names_a_column,
    "select n, k order by 2 desc, 1",
    [
        r#"{"k":1,"n":"b"}"#,
        r#"{"k":0,"n":"c"}"#,
        r#"{"k":1,"n":"a"}"#
    ],
    "a|1;b|1;c|0"
);
q!(
    group_by_position_names_a_column,
    "select lower(s), count(*) group by 1 order by 2 desc",
    [r#"{"s":"A"}"#, r#"{"s":"a"}"#, r#"{"s":"b"}"#],
    "a|2;b|1"
);
q!(
    order_by_decimal_is_a_constant,
    "select n order by 1.5",
    [r#"{"n":2}"#, r#"{"n":1}"#],
    "2;1"
);
q!(
    order_by_two_keys,
    "select a, b order by a, b desc",
    [r#"{"a":1,"b":1}"#, r#"{"a":0,"b":1}"#, r#"{"a":1,"b":2}"#],
    "0|1;1|2;1|1"
);
q!(
    order_by_aggregate,
    "select g, count(*) as n group by g order by n desc, g",
    [
        r#"{"g":"a"}"#,
        r#"{"g":"b"}"#,
        r#"{"g":"b"}"#,
        r#"{"g":"c"}"#
    ],
    "b|2;a|1;c|1"
);
q!(
    order_by_aggregate_not_selected,
    "select g group by g order by sum(x)",
    [r#"{"g":"a","x":5}"#, r#"{"g":"b","x":1}"#],
    "b;a"
);
q!(
    order_by_unselected_property,
    "select n order by k asc",
    [r#"{"k":2,"n":"a"}"#, r#"{"k":1,"n":"b"}"#],
    "b;a"
);
q!(
    limit_keeps_first_rows,
    "select n limit 2",
    [r#"{"n":1}"#, r#"{"n":2}"#, r#"{"n":3}"#],
    "1;2"
);
q!(limit_zero, "select n limit 0", [r#"{"n":1}"#], "");
q!(
    order_by_with_limit_is_top_k,
    "select n order by n desc limit 2",
    [
        r#"{"n":1}"#,
        r#"{"n":5}"#,
        r#"{"n":3}"#,
        r#"{"n":5}"#,
        r#"{"n":4}"#
    ],
    "5;5"
);
q!(
    top_k_ties_keep_input_order,
    "select m order by n limit 2",
    [
        r#"{"n":1,"m":"a"}"#,
        r#"{"n":0,"m":"b"}"#,
        r#"{"n":1,"m":"c"}"#,
        r#"{"n":0,"m":"d"}"#
    ],
    "b;d"
);
q!(
    limit_on_groups,
    "select g, count(*) group by g limit 1",
    [r#"{"g":"b"}"#, r#"{"g":"a"}"#],
    "a|1"
);
q!(
    select_star_order_by,
    "order by n desc limit 1",
    [r#"{"n":1}"#, r#"{"n":2}"#],
    r#"{"n":2}"#
);
q!(
    rows_in_input_order,
    "select n",
    [r#"{"n":3}"#, r#"{"n":1}"#, r#"{"n":2}"#],
    "3;1;2"
);

// ---- Errors (exit 2 in the CLI): exact messages and where they point ----
macro_rules! fail {
    ($name:ident, $query:expr, $message:expr, $column:expr) => {
        #[test]
        fn $name() {
            let e = Plan::compile($query).expect_err($query);
            assert_eq!(e.message(), $message, "query: {}", $query);
            assert_eq!(e.column(), $column, "column for: {}", $query);
        }
    };
}

fail!(
    error_expression_after_operator,
    "select Message where Elapsed >",
    "expected an expression after '>', found the end of the query",
    31
);
fail!(
    error_unknown_function_suggests,
    "select sume(Elapsed)",
    "unknown function 'sume' (did you mean 'sum'?)",
    8
);
fail!(
    error_unknown_function_keeps_case,
    "select SUME(x)",
    "unknown function 'SUME' (did you mean 'sum'?)",
    8
);
fail!(
    error_unknown_function_no_suggestion,
    "select frobnicate(x)",
    "unknown function 'frobnicate'",
    8
);
fail!(
    error_eq_null,
    "where x = null",
    "x = null is never true: write x is null",
    7
);
fail!(
    error_null_eq,
    "where null == Properties.User",
    "null == Properties.User is never true: write Properties.User is null",
    7
);
fail!(
    error_ne_null,
    "where a and x <> null",
    "x <> null is never true: write x is not null",
    13
);
q!(
    an_ordering_with_null_is_null_not_an_error,
    "select x < null, null >= 1, x where x > null or true",
    [r#"{"x":1}"#],
    "null|null|1"
);
fail!(
    error_unknown_source,
    "select x from logs",
    "unknown source 'logs': the only source is 'stream' (the files named on the command line, or standard input)",
    15
);
fail!(
    error_unknown_source_names_a_file_whole,
    "select x from logs/app.ndjson where x > 1",
    "unknown source 'logs/app.ndjson': the only source is 'stream' (the files named on the command line, or standard input)",
    15
);
fail!(
    a_comma_after_the_source_is_not_part_of_its_name,
    "select x from stream, y",
    "expected another clause or the end of the query, found ','",
    21
);
fail!(
    error_aggregate_in_where,
    "select x where count(*) > 1",
    "aggregate 'count(*)' is not allowed in where",
    16
);
fail!(
    error_aggregate_in_group_by,
    "select count(*) group by sum(x)",
    "aggregate 'sum(x)' is not allowed in group by",
    26
);
fail!(
    error_nested_aggregate,
    "select sum(count(*))",
    "aggregate 'count(*)' cannot be inside another aggregate",
    12
);
fail!(
    error_missing_from_group_by,
    "select RequestPath, count(*) group by @l",
    "'RequestPath' must appear in group by or be inside an aggregate",
    8
);
fail!(
    error_not_aggregate_without_group_by,
    "select Message, count(*)",
    "'Message' must be inside an aggregate, because this query aggregates (or add 'group by Message')",
    8
);
fail!(
    error_order_by_not_grouped,
    "select @l, count(*) group by @l order by Elapsed",
    "'Elapsed' must appear in group by or be inside an aggregate",
    42
);
fail!(
    error_percentile_over_100,
    "select percentile(Elapsed, 150)",
    "percentile must be greater than 0 and at most 100, found 150",
    28
);
fail!(
    error_percentile_zero,
    "select percentile(Elapsed, 0)",
    "percentile must be greater than 0 and at most 100, found 0",
    28
);
fail!(
    error_percentile_negative,
    "select percentile(Elapsed, -5)",
    "percentile must be greater than 0 and at most 100, found -5",
    28
);
fail!(
    error_percentile_not_literal,
    "select percentile(Elapsed, x)",
    "the percentile must be a number literal, greater than 0 and at most 100",
    28
);
fail!(
    error_bad_regex,
    "where match(Message, 'a(b')",
    "this regex does not compile: unclosed group",
    22
);
fail!(
    error_star_outside_count,
    "select sum(*)",
    "'*' is only allowed in count(*)",
    12
);
fail!(
    error_arity,
    "select lower(a, b)",
    "lower() takes 1 argument, found 2",
    8
);
fail!(
    error_arity_range,
    "select round()",
    "round() takes 1 or 2 arguments, found 0",
    8
);
fail!(
    error_has_needs_path,
    "where has('x')",
    "has() takes a property path, like has(Properties.User)",
    11
);
fail!(
    error_select_star_with_group_by,
    "select * group by a",
    "an aggregating query needs a select list (select * writes whole lines)",
    8
);
fail!(
    error_reserved_word,
    "select where",
    "expected an expression after 'select', found 'where' (a property named 'where' is written ['where'])",
    8
);
fail!(
    error_double_quotes,
    "where a = \"x\"",
    "strings are written in single quotes: 'text'",
    11
);
fail!(
    error_unclosed_string,
    "where a = 'x",
    "this string has no closing quote (write '' for a quote inside a string)",
    11
);

fail!(
    error_wildcard_outside_a_condition,
    "select Tags[?]",
    "a wildcard path is only allowed as a side of a comparison, like, in (...) or is null (as in Tags[?] = 'x')",
    12
);
fail!(
    error_wildcard_in_a_function_argument,
    "where lower(Tags[*]) = 'x'",
    "a wildcard path is only allowed as a side of a comparison, like, in (...) or is null (as in Tags[*] = 'x')",
    17
);
fail!(
    error_wildcard_in_arithmetic,
    "where Cart[?].Qty * 2 > 3",
    "a wildcard path is only allowed as a side of a comparison, like, in (...) or is null (as in Cart[?].Qty = 'x')",
    11
);
fail!(
    error_wildcard_in_group_by,
    "select count(*) group by Tags[?]",
    "a wildcard path is only allowed as a side of a comparison, like, in (...) or is null (as in Tags[?] = 'x')",
    30
);
fail!(
    error_wildcard_as_the_array_of_in,
    "where 'a' in Tags[?]",
    "a wildcard path is only allowed as a side of a comparison, like, in (...) or is null (as in Tags[?] = 'x')",
    18
);
fail!(
    error_two_wildcards_in_one_path,
    "where Cart[?].Tags[*] = 'x'",
    "a path holds at most one wildcard ([?] or [*]); give the other array an index ([0])",
    19
);
fail!(
    error_two_wildcard_sides_in_one_condition,
    "where Tags[?] = Other[*]",
    "only one side of a condition may be a wildcard path; compare with one element (Tags[0]) or write two conditions",
    22
);
fail!(
    error_wildcard_condition_inside_a_side_of_another,
    "where Tags[?] = (Other[?] > 3)",
    "a wildcard condition cannot be inside a side of another wildcard condition; write them as two conditions",
    23
);
fail!(
    error_wildcard_condition_per_group,
    "select count(*) group by a order by Tags[?] = 'x'",
    "'Tags[?] = 'x'' must appear in group by or be inside an aggregate",
    37
);
fail!(
    error_wildcard_starting_a_path,
    "where [?] = 1",
    "a path starts with a property name or a quoted key, not an index",
    7
);
fail!(
    error_in_needs_a_list_or_a_path,
    "where x in lower(y)",
    "expected '(' to open a list, or a property path, after 'in', found 'lower'",
    12
);
fail!(
    error_filter_on_a_scalar_function,
    "select lower(a) filter (where a > 1)",
    "filter (where ...) applies only to aggregates, and 'lower' is not one",
    17
);
fail!(
    error_filter_without_where,
    "select count(*) filter (a > 1)",
    "expected 'where' after 'filter (', found 'a'",
    25
);
fail!(
    error_aggregate_inside_a_filter,
    "select count(*) filter (where count(*) > 1)",
    "aggregate 'count(*)' cannot be inside an aggregate's filter",
    31
);
fail!(
    error_aggregate_inside_count_if,
    "select count_if(sum(x) > 1)",
    "aggregate 'sum(x)' cannot be inside an aggregate's filter",
    17
);
fail!(
    error_filtered_aggregate_in_where,
    "where count(*) filter (where a > 1) > 1",
    "aggregate 'count(*) filter (where a > 1)' is not allowed in where",
    7
);
fail!(
    error_count_if_star,
    "select count_if(*)",
    "'*' is only allowed in count(*)",
    17
);

#[test]
fn error_display_quotes_query_with_caret() {
    let e = Plan::compile("select sume(Elapsed)").unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown function 'sume' (did you mean 'sum'?) (column 8)\n  select sume(Elapsed)\n         ^^^^"
    );
    let e = Plan::compile("where x = null").unwrap_err();
    assert_eq!(
        e.to_string(),
        "x = null is never true: write x is null (column 7)\n  where x = null\n        ^^^^^^^^"
    );
}

#[test]
fn fails_helper_reports_message() {
    assert_eq!(
        fails("select"),
        "expected an expression after 'select', found the end of the query"
    );
}

// ---- Lazy documents: raw text kept, duplicate keys, the sample ----

/// Rows of a Rows or Collect plan over lazy documents, as output values.
fn lazy_values(query: &str, lines: &[&str]) -> Vec<Vec<Value<'static>>> {
    let plan = Plan::compile(query).unwrap();
    let mut parser = ndq_scan::Parser::new(ndq_scan::Scanner::detect());
    let mut w = plan.worker();
    let mut acc = plan.accumulator();
    let mut rows = Vec::new();
    for line in lines {
        let doc = parser.parse_until(line.as_bytes(), plan.key_set()).unwrap();
        // As the CLI evaluates: top-level keys where the scanner noted them.
        let root = plan.root(doc);
        if plan.kind() == Kind::Collect {
            w.accumulate(root, &mut acc);
        } else if w.matches(root) {
            let mut row = Vec::new();
            w.project(root, &mut row);
            rows.push(row.into_iter().map(Value::into_owned).collect());
        }
    }
    if plan.kind() == Kind::Collect {
        rows = plan.finish(acc);
    }
    rows
}

#[test]
fn projected_values_keep_raw_text() {
    use std::borrow::Cow;
    let rows = lazy_values(
        "select s, n, big, t, o, n + 0",
        &[r#"{"s":"a\"b\u00e9","n":1.50,"big":1e400,"t":[1, 2],"o":{"k" : null}}"#],
    );
    assert_eq!(
        rows[0],
        vec![
            Value::RawString(Cow::Borrowed(r#"a\"b\u00e9"#)),
            Value::RawNumber(Cow::Borrowed("1.50")),
            Value::RawNumber(Cow::Borrowed("1e400")),
            Value::RawJson(Cow::Borrowed("[1, 2]")),
            Value::RawJson(Cow::Borrowed(r#"{"k" : null}"#)),
            Value::Number("1.50".parse().unwrap()),
        ]
    );
}

#[test]
fn computed_strings_are_unescaped() {
    let rows = lazy_values("select lower(s), coalesce(x, s)", &[r#"{"s":"A\"B"}"#]);
    assert_eq!(show(&rows[0][0]), "a\"b");
    // coalesce returns the input value itself: still raw.
    assert_eq!(rows[0][1], Value::RawString(r#"A\"B"#.into()));
}

#[test]
fn duplicate_keys_first_wins() {
    let rows = lazy_values(
        "select a, count(*) where a = 1 group by a",
        &[r#"{"a":1,"a":2}"#],
    );
    assert_eq!(
        rows,
        vec![vec![Value::RawNumber("1".into()), Value::Number(1.into())]]
    );
    let rows = lazy_values("select o.k", &[r#"{"o":{"k":"first","k":"second"}}"#]);
    assert_eq!(rows[0][0], Value::RawString("first".into()));
}

#[test]
fn select_star_order_by_keeps_line_text() {
    let rows = lazy_values("order by n desc", &[r#"{"n":1}"#, r#"{ "n" : 2 }"#]);
    assert_eq!(rows[0], vec![Value::RawJson(r#"{ "n" : 2 }"#.into())]);
    assert_eq!(rows[1], vec![Value::RawJson(r#"{"n":1}"#.into())]);
}

fn sample() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/sample.ndjson");
    std::fs::read_to_string(path)
        .expect("testdata/sample.ndjson")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `sum(Elapsed)` over the sample equals the exact decimal sum of every `Elapsed` as written
/// (computed here through serde_json's exact number text and rust_decimal's own parser).
#[test]
fn sample_sum_elapsed_is_exact() {
    let lines = sample();
    let mut expected = crate::Decimal::ZERO;
    let mut n = 0;
    for l in &lines {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        if let Some(serde_json::Value::Number(e)) = v.get("Elapsed") {
            expected += crate::Decimal::from_scientific(e.as_str())
                .or_else(|_| e.as_str().parse())
                .unwrap();
            n += 1;
        }
    }
    assert!(n > 100, "the sample has Elapsed values");
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let rows = lazy_values("select sum(Elapsed), count(Elapsed)", &refs);
    assert_eq!(rows[0][0], Value::Number(expected));
    assert_eq!(crate::format_decimal(&expected), show(&rows[0][0]));
    assert_eq!(rows[0][1], Value::Number(n.into()));
    // And both engines agree on it, also when merged from two halves.
    let plan = Plan::compile(
        "select sum(Elapsed), avg(Elapsed), min(Elapsed), max(Elapsed), percentile(Elapsed, 95)",
    )
    .unwrap();
    let whole = run_serde(&plan, &refs, None);
    assert!(
        whole.starts_with(&crate::format_decimal(&expected)),
        "{whole}"
    );
    for split in [0, 1, refs.len() / 3, refs.len()] {
        assert_eq!(run_lazy(&plan, &refs, Some(split)), whole);
        assert_eq!(run_serde(&plan, &refs, Some(split)), whole);
    }
}

#[test]
fn deep_but_allowed_nesting_evaluates() {
    let q = format!(
        "select {}a{} + 1 where {}true",
        "(".repeat(60),
        ")".repeat(60),
        "not not ".repeat(25)
    );
    assert_eq!(run(&q, &[r#"{"a":1}"#]), "2");
}

#[test]
fn plan_shares_across_threads_and_accumulators_move() {
    fn shared<T: Send + Sync>() {}
    fn moved<T: Send>() {}
    shared::<Plan>();
    moved::<crate::Accumulator>();
    moved::<crate::Worker<'static>>();
}

#[test]
fn accumulate_reports_matches() {
    let plan = Plan::compile("select count(*) where a > 1").unwrap();
    let docs: Vec<serde_json::Value> = [r#"{"a":1}"#, r#"{"a":2}"#]
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut w = plan.worker();
    let mut acc = crate::Accumulator::default();
    assert!(!w.accumulate(&docs[0], &mut acc));
    assert!(w.accumulate(&docs[1], &mut acc));
    assert_eq!(plan.finish(acc), vec![vec![Value::Number(1.into())]]);
    // A default (empty) accumulator finishes like a fresh one: one row over zero lines.
    assert_eq!(
        plan.finish(crate::Accumulator::default()),
        vec![vec![Value::Number(0.into())]]
    );
}

#[test]
fn weight_counts_groups_and_the_values_their_states_hold() {
    // 300 lines: 3 groups of `g`, 100 distinct `n`, 300 percentile values, 30 distinct rows.
    let docs: Vec<serde_json::Value> = (0..300)
        .map(|i| serde_json::json!({"g": i % 3, "n": i % 100, "m": i % 30}))
        .collect();
    let weight = |query: &str| {
        let plan = Plan::compile(query).unwrap();
        let mut w = plan.worker();
        let mut acc = plan.accumulator();
        for d in &docs {
            w.accumulate(d, &mut acc);
        }
        acc.weight()
    };
    assert_eq!(weight("select count(*)"), 1);
    assert_eq!(weight("select g, count(*) group by g"), 3);
    assert_eq!(weight("select count_distinct(n)"), 1 + 100);
    // Each group holds the distinct values it saw: every n in each (3 and 100 are coprime).
    assert_eq!(
        weight("select g, count_distinct(n) group by g"),
        3 + 3 * 100
    );
    assert_eq!(
        weight("select percentile(n, 50), count_distinct(g)"),
        1 + 300 + 3
    );
    assert_eq!(weight("select distinct m"), 30);
    assert_eq!(weight("select n order by n limit 5"), 0);
}

/// A running accumulator can be shown at any point (its clone finished) and go on merging:
/// what it finishes to at the end is what one pass over every line gives.
#[test]
fn a_finished_clone_leaves_the_running_accumulator_as_it_was() {
    for query in [
        "select g, count(*), sum(n), avg(n), min(n), percentile(n, 50), count_distinct(n) \
         group by g order by g",
        "select n order by n desc limit 2",
        "select distinct g",
    ] {
        let plan = Plan::compile(query).unwrap();
        let lines = [
            r#"{"g":"a","n":1}"#,
            r#"{"g":"b","n":2.5}"#,
            r#"{"g":"a","n":3}"#,
            r#"{"g":"c","n":4}"#,
        ];
        let docs: Vec<serde_json::Value> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut w = plan.worker();
        let one_pass = |docs: &[serde_json::Value], w: &mut crate::Worker<'_>| {
            let mut acc = plan.accumulator();
            for d in docs {
                w.accumulate(d, &mut acc);
            }
            plan.finish(acc)
        };
        let mut running = plan.accumulator();
        for (i, d) in docs.iter().enumerate() {
            let mut batch = plan.accumulator();
            w.accumulate(d, &mut batch);
            running.merge(batch);
            let so_far = plan.finish(running.clone());
            assert_eq!(so_far, one_pass(&docs[..=i], &mut w), "{query} after {i}");
        }
        assert_eq!(plan.finish(running), one_pass(&docs, &mut w), "{query}");
    }
}

q!(
    like_in_is_bind_tighter_than_not_and_or,
    "select not a like 'x%' and b in (1) or a is null",
    [r#"{"a":"xy","b":1}"#, r#"{"a":"y","b":1}"#, r#"{"b":2}"#],
    "false;true;true"
);
q!(
    arithmetic_binds_tighter_than_comparison,
    "select a + 1 > 2 * 1, -a < 0",
    [r#"{"a":2}"#],
    "true|true"
);

#[test]
fn arrays_group_by_canonical_json() {
    let rows = lazy_values(
        "select t, count(*), count_distinct(t) group by t",
        &[
            r#"{"t":["a", "b"]}"#,
            r#"{"t":["a","b"]}"#,
            r#"{"t":["\u0061","b"]}"#,
            r#"{"t":[]}"#,
        ],
    );
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0][0], Value::RawJson(r#"["a", "b"]"#.into()));
    assert_eq!(rows[0][1], Value::Number(3.into()));
    assert_eq!(rows[0][2], Value::Number(1.into()));
}

#[test]
fn arrays_and_objects_group_by_value() {
    // Numbers by value, duplicate keys as lookups see them (the first wins), keys in any
    // order and spelling.
    let rows = lazy_values(
        "select o, count(*) group by o",
        &[
            r#"{"o":[1]}"#,
            r#"{"o":[1.0]}"#,
            r#"{"o":[1e0]}"#,
            r#"{"o":{"k":1,"j":[0.50]}}"#,
            r#"{"o":{"j":[0.5],"k":1.0}}"#,
            r#"{"o":{"\u006b":1,"k":2,"j":[5e-1]}}"#,
            r#"{"o":{"k":2,"j":[0.5]}}"#,
            r#"{"o":[-0.0]}"#,
            r#"{"o":[0]}"#,
        ],
    );
    let counts: Vec<(Value<'_>, Value<'_>)> =
        rows.iter().map(|r| (r[0].clone(), r[1].clone())).collect();
    assert_eq!(
        counts,
        [
            (Value::RawJson("[-0.0]".into()), Value::Number(2.into())),
            (Value::RawJson("[1]".into()), Value::Number(3.into())),
            (
                Value::RawJson(r#"{"k":1,"j":[0.50]}"#.into()),
                Value::Number(3.into())
            ),
            (
                Value::RawJson(r#"{"k":2,"j":[0.5]}"#.into()),
                Value::Number(1.into())
            ),
        ],
        "{rows:?}"
    );
}

#[test]
fn with_row_equals_project() {
    let plan = Plan::compile("select s, n + 1, t").unwrap();
    let mut parser = ndq_scan::Parser::new(ndq_scan::Scanner::detect());
    let mut w = plan.worker();
    for line in [r#"{"s":"a\"b","n":1.5,"t":[1]}"#, r#"{"n":"x"}"#] {
        let doc = parser.parse_until(line.as_bytes(), plan.key_set()).unwrap();
        let mut row = Vec::new();
        w.project(doc.root(), &mut row);
        let via = w.with_row(doc.root(), |r| r.to_vec());
        assert_eq!(via, row);
    }
}

q!(
    group_by_alias,
    "select lower(s) as l, count(*) group by l order by l desc",
    [r#"{"s":"A"}"#, r#"{"s":"a"}"#, r#"{"s":"b"}"#],
    "b|1;a|2"
);
q!(
    group_by_property_not_selected,
    "select count(*) as n group by k",
    [r#"{"k":1}"#, r#"{"k":1}"#],
    "2"
);
fail!(
    error_order_by_position_past_the_list,
    "select a, b order by 3",
    "order by 3 names a select column by position, but there are only 2",
    22
);
fail!(
    error_group_by_position_past_the_list,
    "select a group by 2",
    "group by 2 names a select column by position, but there is only 1",
    19
);
fail!(
    error_group_by_position_of_an_aggregate,
    "select count(*) group by 1",
    "aggregate 'count(*)' is not allowed in group by",
    8
);
fail!(
    error_order_by_position_with_star,
    "select * order by 1",
    "order by 1 names a select column by position, but there is no select list",
    19
);
fail!(
    error_group_by_alias_of_aggregate,
    "select count(*) as n group by n",
    "aggregate 'count(*)' is not allowed in group by",
    8
);
fail!(
    error_star_with_items,
    "select *, a",
    "select * writes whole lines and cannot be combined with other items",
    9
);

#[test]
fn error_kinds() {
    use crate::ErrorKind as K;
    let cases = [
        ("select Message where Elapsed >", K::Syntax),
        ("where a = 'x", K::Syntax),
        ("select x from logs", K::UnknownSource),
        ("select sume(x)", K::UnknownFunction),
        ("select lower(a, b)", K::Arguments),
        ("select percentile(x, 101)", K::Arguments),
        ("select x where count(*) > 1", K::Aggregate),
        ("select sum(count(*))", K::Aggregate),
        ("select x, count(*)", K::GroupBy),
        ("select * group by a", K::GroupBy),
        ("where x = null", K::NullComparison),
        ("where match(x, '(')", K::Regex),
    ];
    for (q, kind) in cases {
        assert_eq!(Plan::compile(q).unwrap_err().kind(), kind, "{q}");
    }
}

mod text;

mod shape;

// ---- Conditional aggregates and arrays with having, offset, distinct, case and time ----
q!(
    having_reads_a_filtered_aggregate,
    "select g group by g having count(*) filter (where v > 1) >= 1",
    [
        r#"{"g":"a","v":1}"#,
        r#"{"g":"b","v":1}"#,
        r#"{"g":"a","v":2}"#,
        r#"{"g":"c","v":3}"#,
        r#"{"g":"b"}"#
    ],
    "a;c"
);
q!(
    having_drops_groups_before_the_group_top_k_counts_them,
    "select g, count(*) as n group by g having n > 1 order by n desc limit 1 offset 1",
    [
        r#"{"g":"a"}"#,
        r#"{"g":"d"}"#,
        r#"{"g":"a"}"#,
        r#"{"g":"b"}"#,
        r#"{"g":"d"}"#,
        r#"{"g":"d"}"#,
        r#"{"g":"c"}"#
    ],
    "a|2"
);
q!(
    offset_with_the_group_top_k_skips_the_best_groups,
    "select g, count(*) as n group by g order by n desc limit 2 offset 1",
    [
        r#"{"g":"a"}"#,
        r#"{"g":"b"}"#,
        r#"{"g":"d"}"#,
        r#"{"g":"a"}"#,
        r#"{"g":"d"}"#,
        r#"{"g":"c"}"#,
        r#"{"g":"b"}"#,
        r#"{"g":"d"}"#,
        r#"{"g":"a"}"#,
        r#"{"g":"d"}"#
    ],
    "a|3;b|2"
);
q!(
    offset_past_the_groups_gives_nothing,
    "select g, count(*) group by g order by g limit 2 offset 5",
    [r#"{"g":"a"}"#, r#"{"g":"b"}"#],
    ""
);
q!(
    distinct_with_a_wildcard_condition_in_where,
    "select distinct g where t[?] = 'x'",
    [
        r#"{"g":"a","t":["x"]}"#,
        r#"{"g":"a","t":["y","x"]}"#,
        r#"{"g":"b","t":["y"]}"#,
        r#"{"g":"c","t":["x","x"]}"#,
        r#"{"g":"b","t":"x"}"#
    ],
    "a;c"
);
q!(
    case_inside_a_filter_condition,
    "select count(*) filter (where case when v > 1 then k = 'a' else false end), count(*)",
    [
        r#"{"v":2,"k":"a"}"#,
        r#"{"v":1,"k":"a"}"#,
        r#"{"v":3,"k":"b"}"#,
        r#"{"v":5,"k":"a"}"#
    ],
    "2|4"
);
q!(
    time_bucket_grouped_with_a_filtered_count,
    "select time(1h) as h, count(*) filter (where s >= 500) as errors, count(*) group by h",
    [
        r#"{"@t":"2026-11-21T10:00:05Z","s":500}"#,
        r#"{"@t":"2026-11-21T10:59:59Z","s":200}"#,
        r#"{"@t":"2026-11-21T11:00:00Z","s":200}"#,
        r#"{"@t":"2026-11-21T12:00:00+01:00","s":503}"#
    ],
    "2026-11-21T10:00:00Z|1|2;2026-11-21T11:00:00Z|1|2"
);
q!(
    an_alias_means_nothing_inside_a_filter_condition,
    "select k as v, count(*) as n group by k having count(*) filter (where v > 1) >= 1",
    [
        r#"{"k":"a","v":2}"#,
        r#"{"k":"a","v":0}"#,
        r#"{"k":"b","v":5}"#,
        r#"{"k":"c","v":0}"#
    ],
    "a|2;b|1"
);
#[test]
fn a_name_two_different_columns_share_is_ambiguous_where_it_would_be_read() {
    for (q, clause) in [
        (
            "select -a as x, count(*) as x group by a order by x desc",
            "order by x",
        ),
        (
            "select -a as x, count(*) as x group by a having x > 1",
            "having x",
        ),
        ("select a as x, b as x group by x", "group by x"),
        ("select a as x, b as x order by x + 1", "order by x"),
    ] {
        let e = Plan::compile(q).expect_err(q);
        assert_eq!(
            e.message(),
            format!(
                "{clause} is ambiguous: select columns 1 and 2 are both named x; give them \
                 different names"
            ),
            "{q}"
        );
    }
    // The same column twice, a name used only inside an aggregate's argument or inside a
    // `group by` expression (where only a bare name is an alias), or no name read at all:
    // nothing to choose between.
    for q in [
        "select a as x, a as x group by a order by x",
        "select a as x, b as x group by a, b order by count(x)",
        "select count(*) as x, max(a) as x group by x + 1",
        "select a as x, b as x",
    ] {
        assert!(Plan::compile(q).is_ok(), "{q}");
    }
}

q!(
    an_alias_in_having_outside_the_filter_is_the_item,
    "select k as g, count(*) filter (where v > 1) as n group by k having n >= 1 and g <> 'b'",
    [
        r#"{"k":"a","v":2}"#,
        r#"{"k":"a","v":0}"#,
        r#"{"k":"b","v":5}"#
    ],
    "a|1"
);
