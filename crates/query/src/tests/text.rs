//! Table tests for the language reference's "Conditions" (`case`, `if`), "Text" and "Levels" rules, in the
//! style of the parent module: each runs on serde and lazy documents, with the prefilter, and
//! (collecting queries) merged at every split. Strings cover multi-byte characters, combining
//! marks, emoji, escapes, nulls and wrong types.

use super::{fails, run};
use crate::Plan;

// ---- case / if ----
q!(
    case_when_takes_the_first_true_arm,
    "select case when a > 2 then 'big' when a > 0 then 'small' else 'none' end",
    [r#"{"a":3}"#, r#"{"a":1}"#, r#"{"a":-1}"#, r#"{}"#],
    "big;small;none;none"
);
q!(
    case_when_null_condition_is_not_taken,
    "select case when a > 1 then 'yes' when a is null then 'missing' end",
    [r#"{"a":"text"}"#, r#"{}"#, r#"{"a":0}"#],
    "null;missing;null"
);
q!(
    case_without_else_gives_null,
    "select case when a = 1 then 'one' end, 1",
    [r#"{"a":2}"#],
    "null|1"
);
q!(
    case_subject_compares_with_equals_in_turn,
    "select case a when 1 then 'one' when 'x' then 'ex' when 2.0 then 'two' else 'other' end",
    [
        r#"{"a":1}"#,
        r#"{"a":1.0}"#,
        r#"{"a":"x"}"#,
        r#"{"a":2}"#,
        r#"{"a":"1"}"#,
        r#"{"a":true}"#,
        r#"{"a":null}"#,
        r#"{}"#
    ],
    "one;one;ex;two;other;other;other;other"
);
q!(
    case_subject_null_matches_nothing_not_even_null,
    "select case a when b then 'same' else 'no match' end",
    [r#"{}"#, r#"{"a":null,"b":null}"#, r#"{"a":1,"b":1}"#],
    "no match;no match;same"
);
q!(
    case_value_keeps_the_input_text,
    "select case when true then a end, case a when 1.50 then a end",
    [r#"{"a":1.50}"#],
    "1.50|1.50"
);
q!(
    case_keywords_any_case_and_nested,
    "SELECT CASE WHEN a > 0 THEN CASE a WHEN 1 THEN 'one' ELSE 'many' END ELSE 'none' END",
    [r#"{"a":1}"#, r#"{"a":5}"#, r#"{"a":0}"#],
    "one;many;none"
);
q!(
    case_in_where_keeps_lines_where_it_is_true,
    "select s where case when s = 'x' then true when s = 'y' then null else false end",
    [r#"{"s":"x"}"#, r#"{"s":"y"}"#, r#"{"s":"z"}"#],
    "x"
);
q!(
    case_with_prefilter_keeps_the_required_literal,
    "select s where contains(s, 'é') and case s when 'é😀' then true end",
    [r#"{"s":"\u00e9😀"}"#, r#"{"s":"é"}"#, r#"{"s":"x"}"#],
    "é😀"
);
q!(
    case_over_aggregates,
    "select case when count(*) > 1 then 'many' else 'few' end, if(sum(a) > 2, 'big', 'small')",
    [r#"{"a":1}"#, r#"{"a":2}"#],
    "many|big"
);
q!(
    case_as_group_key,
    "select case when a >= 10 then 'big' else 'small' end as size, count(*) group by size",
    [r#"{"a":1}"#, r#"{"a":10}"#, r#"{"a":20}"#, r#"{}"#],
    "big|2;small|2"
);
q!(
    if_is_case_when_else,
    "select if(a > 1, 'hi', 'lo'), if(a > 1, a, null)",
    [r#"{"a":2}"#, r#"{"a":1}"#, r#"{}"#],
    "hi|2;lo|null;lo|null"
);
q!(
    reserved_case_words_are_properties_when_quoted,
    "select ['case'], ['end'], o.end, o.when",
    [r#"{"case":1,"end":2,"o":{"end":3,"when":4}}"#],
    "1|2|3|4"
);

// ---- || and concat ----
q!(
    concat_operator_numbers_as_written_or_exact,
    "select s || '-' || a, 'n=' || (a + 1), 'v' || 0.1 + 0.2, a || ''",
    [r#"{"s":"x","a":1.50}"#, r#"{"s":"y","a":15e-1}"#],
    "x-1.50|n=2.50|v0.3|1.50;y-15e-1|n=2.5|v0.3|15e-1"
);
q!(
    concat_binds_tighter_than_comparison_looser_than_plus,
    "select 'a' || 1 + 2, s || 'b' = 'ab', 'x' || 2 * 3 || 'y'",
    [r#"{"s":"a"}"#],
    "a3|true|x6y"
);
q!(
    concat_booleans_arrays_objects_as_text,
    "select 'b=' || true || ',' || (a > 1), s || t, s || o",
    [r#"{"a":2,"s":"x","t":[1,"é"],"o":{"k":null}}"#],
    r#"b=true,true|x[1,"é"]|x{"k":null}"#
);
q!(
    concat_operator_null_if_either_side_is,
    "select s || nope, nope || s, s || null, null || s, s || n",
    [r#"{"s":"x","n":null}"#],
    "null|null|null|null|null"
);
q!(
    concat_operator_unescapes_and_keeps_unicode,
    "select s || '😀' || 'e\u{301}'",
    [r#"{"s":"caf\u00e9 \"q\" \\"}"#],
    "café \"q\" \\😀e\u{301}"
);
q!(
    concat_operator_in_where_and_like_pattern,
    "select s where s || 'b' = 'ab' or s like 'z' || '%'",
    [r#"{"s":"a"}"#, r#"{"s":"zoo"}"#, r#"{"s":"b"}"#, r#"{}"#],
    "a;zoo"
);
q!(
    concat_function_leaves_nulls_out,
    "select concat(s, nope, 1, true, null, 2.50), concat(nope), concat(nope, n) || '.'",
    [r#"{"s":"x","n":null}"#],
    "x1true2.50||."
);
q!(
    concat_function_arrays_and_objects_as_json,
    "select concat(t, o)",
    [r#"{"t":[],"o":{"a":[1]}}"#],
    r#"[]{"a":[1]}"#
);

// ---- substr, left, right ----
q!(
    substr_positions_from_one,
    "select substr('hello', 2), substr('hello', 2, 3), substr('hello', 1, 0) || '.', substr('hello', 5, 9)",
    [r#"{}"#],
    "ello|ell|.|o"
);
q!(
    substr_positions_before_one_and_past_the_end_are_not_there,
    "select substr('hello', 0, 3), substr('hello', -1, 3), substr('hello', -5, 3) || '.', substr('hello', 6) || '.', substr('hello', -2)",
    [r#"{}"#],
    "he|h|.|.|hello"
);
q!(
    substr_negative_length_is_null,
    "select substr('hello', 1, -1), substr('hello', 9, -1)",
    [r#"{}"#],
    "null|null"
);
q!(
    substr_counts_characters_not_bytes,
    "select substr(s, 2, 3), substr(s, 5), left(s, 2), right(s, 3)",
    [r#"{"s":"h😀e\u0301llo"}"#],
    "😀e\u{301}|llo|h😀|llo"
);
q!(
    substr_wrong_types_give_null,
    "select substr(5, 1), substr('abc', '1'), substr('abc', 1.5), substr('abc', 2.0), substr('abc', 1, true), substr(nope, 1), substr('abc', nope)",
    [r#"{}"#],
    "null|null|null|bc|null|null|null"
);
q!(
    substr_start_and_length_from_the_input,
    "select substr(s, a, b)",
    [
        r#"{"s":"añb","a":2,"b":1}"#,
        r#"{"s":"añb","a":2.0,"b":1e0}"#,
        r#"{"s":"añb","a":"2","b":1}"#
    ],
    "ñ;ñ;null"
);
q!(
    left_right_take_all_when_n_is_more_negative_is_null,
    "select left('añb', 9), right('añb', 9), left('añb', 0) || '.', right('añb', 1), left('añb', -1), right('añb', -1), left(1, 1)",
    [r#"{}"#],
    "añb|añb|.|b|null|null|null"
);

// ---- strpos, replace ----
q!(
    strpos_counts_characters_and_gives_zero_when_absent,
    "select strpos('h😀llo', 'l'), strpos('héllo', 'x'), strpos('abc', ''), strpos('', ''), strpos('aé😀', '😀')",
    [r#"{}"#],
    "3|0|1|1|3"
);
q!(
    strpos_wrong_types_and_nulls_give_null,
    "select strpos(s, 1), strpos(1, '1'), strpos(nope, 'a'), strpos(s, nope)",
    [r#"{"s":"1"}"#],
    "null|null|null|null"
);
q!(
    replace_every_non_overlapping_occurrence,
    "select replace('aaa', 'aa', 'b'), replace('a.b.c', '.', '😀'), replace('cafe\u{301}', 'e\u{301}', 'é'), replace(s, 'x', 'y')",
    [r#"{"s":"\u0078-x"}"#],
    "ba|a😀b😀c|café|y-y"
);
q!(
    replace_with_empty_from_changes_nothing,
    "select replace('abc', '', 'x'), replace('abc', 'b', ''), replace('abc', 'b', nope), replace('abc', 1, 'x')",
    [r#"{}"#],
    "abc|ac|null|null"
);

// ---- trim ----
q!(
    trim_removes_unicode_white_space,
    "select '[' || trim(s) || ']', '[' || ltrim(s) || ']', '[' || rtrim(s) || ']'",
    [r#"{"s":"\u3000\u00a0 \t\n x y \r\n\u2003"}"#],
    "[x y]|[x y \r\n\u{2003}]|[\u{3000}\u{a0} \t\n x y]"
);
q!(
    trim_keeps_characters_that_are_not_white_space,
    "select '[' || trim(s) || ']', trim(''), trim(' \t ') || '.', trim(5), trim(nope)",
    [r#"{"s":"\u200b x\u0301 \u200b"}"#],
    "[\u{200b} x\u{301} \u{200b}]||.|null|null"
);

// ---- split_part ----
q!(
    split_part_fields_from_one,
    "select split_part('a,b,,c', ',', 1), split_part('a,b,,c', ',', 3) || '.', split_part('a,b,,c', ',', 4), split_part('a,b,,c', ',', 5) || '.'",
    [r#"{}"#],
    "a|.|c|."
);
q!(
    split_part_multi_character_and_unicode_separators,
    "select split_part('x😀😀y😀😀z', '😀😀', 2), split_part('aaa', 'aa', 2), split_part('é-è', '-', 2), split_part('', ',', 1) || '.'",
    [r#"{}"#],
    "y|a|è|."
);
q!(
    split_part_n_below_one_or_empty_separator_is_null,
    "select split_part('a,b', ',', 0), split_part('a,b', ',', -1), split_part('a,b', '', 1), split_part('a,b', ',', 1.5), split_part(1, ',', 1), split_part('a', ',', '1')",
    [r#"{}"#],
    "null|null|null|null|null|null"
);

// ---- extract ----
q!(
    extract_group_one_when_the_regex_has_a_group,
    r"select extract(m, 'took (\d+) ms'), extract(m, '\d+'), extract(m, '(?i)TOOK')",
    [r#"{"m":"GET /a took 125 ms"}"#],
    "125|125|took"
);
q!(
    extract_group_by_number_or_name,
    r"select extract(m, '(\w+)=(\d+)', 0), extract(m, '(\w+)=(\d+)', 2), extract(m, '(?P<key>\w+)=(?P<val>\d+)', 'val')",
    [r#"{"m":"x retry=3 y"}"#],
    "retry=3|3|3"
);
q!(
    extract_null_without_match_or_when_the_group_did_not_take_part,
    r"select extract(m, 'z(\d)'), extract(m, 'a(x)?b'), extract(m, 'a(x)?b', 0), extract(n, 'a'), extract(nope, 'a')",
    [r#"{"m":"ab","n":5}"#],
    "null|null|ab|null|null"
);
q!(
    extract_counts_unicode_and_borrows_nothing_wrong,
    r"select extract(m, 'é(.)'), extract(m, '(\p{Emoji_Presentation}+)'), extract(m, 'e\x{301}')",
    [r#"{"m":"caf\u00e9😀😀 e\u0301"}"#],
    "😀|😀😀|e\u{301}"
);
q!(
    extract_regex_and_group_from_the_input,
    "select extract(m, re), extract(m, '(a)(b)', g)",
    [
        r#"{"m":"ab","re":"(b)","g":2}"#,
        r#"{"m":"ab","re":"(","g":3}"#,
        r#"{"m":"ab","re":"a","g":"x"}"#,
        r#"{"m":"ab","re":1,"g":1.5}"#,
        r#"{"m":"ab","re":"b","g":-1}"#
    ],
    "b|b;null|null;a|null;null|null;b|null"
);
q!(
    extract_group_number_too_large_for_any_regex_is_null_with_a_computed_regex,
    "select extract(m, re, 1e30), extract(m, re, 18446744073709551616)",
    [r#"{"m":"ab","re":"(a)(b)"}"#],
    "null|null"
);
q!(
    extract_name_from_the_input_and_literal_name_with_computed_regex,
    "select extract(m, '(?P<x>a)(?P<y>b)', g), extract(m, re, 'y'), extract(m, re, 1)",
    [
        r#"{"m":"ab","re":"(?P<y>b)","g":"y"}"#,
        r#"{"m":"ab","re":"(?P<z>b)","g":"q"}"#
    ],
    "b|b|b;null|null|b"
);
q!(
    extract_in_where_derives_nothing_from_its_comparison,
    r"select m where extract(m, 'id=(\d+)') = '7' and contains(m, 'id')",
    [r#"{"m":"id=7"}"#, r#"{"m":"i\u0064=7"}"#, r#"{"m":"id=8"}"#],
    "id=7;id=7"
);

// ---- level / severity ----
q!(
    level_canonical_names_from_any_spelling,
    "select level(l)",
    [
        r#"{"l":"VERBOSE"}"#,
        r#"{"l":"trc"}"#,
        r#"{"l":"Dbug"}"#,
        r#"{"l":"info"}"#,
        r#"{"l":"WRN"}"#,
        r#"{"l":"Warning"}"#,
        r#"{"l":"eror"}"#,
        r#"{"l":"crit"}"#,
        r#"{"l":"PANIC"}"#
    ],
    "Verbose;Verbose;Debug;Information;Warning;Warning;Error;Fatal;Fatal"
);
q!(
    level_numbers_as_bunyan_and_pino,
    "select level(l), severity(l)",
    [
        r#"{"l":10}"#,
        r#"{"l":20}"#,
        r#"{"l":30}"#,
        r#"{"l":40.0}"#,
        r#"{"l":5e1}"#,
        r#"{"l":60}"#,
        r#"{"l":45}"#,
        r#"{"l":70}"#,
        r#"{"l":"40"}"#
    ],
    "Verbose|1;Debug|2;Information|3;Warning|4;Error|5;Fatal|6;null|null;null|null;null|null"
);
q!(
    level_anything_else_is_null,
    "select level(l), severity(l)",
    [
        r#"{"l":"warn "}"#,
        r#"{"l":"notice"}"#,
        r#"{"l":true}"#,
        r#"{"l":null}"#,
        r#"{"l":["warn"]}"#,
        r#"{}"#
    ],
    "null|null;null|null;null|null;null|null;null|null;null|null"
);
q!(
    severity_keeps_warnings_and_worse,
    "select l where severity(l) >= 4 and contains(l, 'r')",
    [
        r#"{"l":"wrn"}"#,
        r#"{"l":"Error"}"#,
        r#"{"l":"trace"}"#,
        r#"{"l":"err"}"#,
        r#"{"l":"\u0057arning"}"#
    ],
    "wrn;Error;err;Warning"
);
q!(
    level_groups_spellings_together,
    "select level(l) as lv, count(*) group by lv order by severity(level(l)) desc",
    [
        r#"{"l":"warn"}"#,
        r#"{"l":40}"#,
        r#"{"l":"INF"}"#,
        r#"{"l":"x"}"#,
        r#"{"l":"Information"}"#
    ],
    "null|1;Warning|2;Information|2"
);

// ---- errors ----
fail!(
    error_case_when_null_suggests_is_null,
    "select case a when null then 1 end",
    "case a when null is never true: write case when a is null then ...",
    20
);
fail!(
    error_case_reserved_word_as_property,
    "select end",
    "expected an expression after 'select', found 'end' (a property named 'end' is written ['end'])",
    8
);
fail!(
    error_extract_literal_regex_does_not_compile,
    "select extract(m, '(a')",
    "this regex does not compile: unclosed group",
    19
);
fail!(
    error_extract_group_number_beyond_the_regex,
    "select extract(m, '(a)(b)', 3)",
    "extract() has no group 3: the regex has 2 groups",
    29
);
fail!(
    error_extract_group_number_too_large_for_any_regex,
    "select extract(m, '(a)', 1e30)",
    "extract() has no group 1e30: the regex has 1 group",
    26
);
fail!(
    error_extract_group_of_a_regex_without_groups,
    "select extract(m, 'ab', 1)",
    "extract() has no group 1: the regex has no groups (0 is the whole match)",
    25
);
fail!(
    error_extract_unknown_group_name,
    "select extract(m, '(?P<user>\\w+)@(?P<host>.+)', 'usr')",
    "extract() has no group named 'usr': its named groups are 'user', 'host'",
    49
);
fail!(
    error_extract_name_when_the_regex_names_no_group,
    "select extract(m, '(a)', 'x')",
    "extract() has no group named 'x': the regex has no named groups",
    26
);
fail!(
    error_extract_group_that_is_not_a_whole_number,
    "select extract(m, '(a)', -1)",
    "extract() takes a group number (0 or more, 0 for the whole match) or a group name, found -1",
    26
);
fail!(
    error_if_takes_three_arguments,
    "select if(a, 1)",
    "if() takes 3 arguments, found 2",
    8
);
fail!(
    error_concat_needs_an_argument,
    "select concat()",
    "concat() takes at least 1 argument, found 0",
    8
);
fail!(
    error_single_bar_is_not_an_operator,
    "select a | b",
    "'|' alone is not an operator ('||' concatenates)",
    10
);

#[test]
fn error_kinds_of_the_new_constructs() {
    use crate::ErrorKind as K;
    for (q, kind) in [
        ("select case a when null then 1 end", K::NullComparison),
        ("select extract(m, '(')", K::Regex),
        ("select extract(m, 'a', 1)", K::Arguments),
        ("select extract(m, 'a', 'x')", K::Arguments),
        ("select case when a then 1", K::Syntax),
        ("select substr('a')", K::Arguments),
        (
            "select level(count(*)) where level(count(*)) = 'x'",
            K::Aggregate,
        ),
    ] {
        assert_eq!(Plan::compile(q).unwrap_err().kind(), kind, "{q}");
    }
    assert!(fails("select x where if(count(*) > 1, true, false)").contains("not allowed in where"));
    assert!(
        fails("select case when a then b end, count(*)").contains("must be inside an aggregate")
    );
}

/// The prefilter derives nothing from the new constructs: only the conditions it knows give
/// literals, and a `case`, `if`, `||`, `extract` or `level` around them hides them.
#[test]
fn prefilter_derives_nothing_from_new_constructs() {
    for q in [
        "where extract(s, 'a(b)') = 'b'",
        "where s || 'x' = 'ax'",
        "where 'ax' = s || 'x'",
        "where s = 'a' || 'b'",
        "where s like 'a' || '%'",
        "where s in ('a' || 'b', 'c' || 'd')",
        "where case when s = 'a' then true end",
        "where case s when 'a' then true end",
        "where case when true then s = 'a' end",
        "where if(s = 'a', true, s = 'b')",
        "where level(l) = 'Error'",
        "where severity(l) >= 4",
        "where trim(s) = 'a'",
        "where substr(s, 1, 1) = 'a'",
        "where contains(s || 'x', 'ax')",
        "where contains(concat(s), 'a')",
        "where strpos(s, 'a') > 0",
    ] {
        let plan = Plan::compile(q).unwrap_or_else(|e| panic!("{q}: {e}"));
        assert!(plan.prefilter().is_none(), "{q}: {:?}", plan.prefilter());
    }
    let plan = Plan::compile("where contains(s, 'q') and case when s = 'a' then true end").unwrap();
    assert_eq!(
        plan.prefilter().map(ToString::to_string).as_deref(),
        Some(r#""q""#)
    );
}
