//! Table tests for the extended query shape (docs/language.md, "Additions (version 2)"): `having`,
//! `select distinct`, `offset`, `order by` an aggregate that is not selected, and unique
//! column names. Each runs through [`run`]: both documents, and every split of the input into
//! two accumulators merged in input order.

use super::{fails, run};
use crate::Plan;

/// `q!` with the lines as any array expression (a shared constant, or `[...]`).
macro_rules! over {
    ($name:ident, $query:expr, $lines:expr, $expected:expr) => {
        #[test]
        fn $name() {
            let lines: &[&str] = &$lines;
            assert_eq!(run($query, lines), $expected, "query: {}", $query);
        }
    };
}

/// Groups `g`: a (1, 2, 3), b (4), c (no number), null (5).
const GROUPS: [&str; 7] = [
    r#"{"g":"a","v":1}"#,
    r#"{"g":"b","v":4}"#,
    r#"{"g":"a","v":2}"#,
    r#"{"g":"c","v":"x"}"#,
    r#"{"v":5}"#,
    r#"{"g":"a","v":3}"#,
    r#"{"g":"c"}"#,
];

// ---- having ----
over!(
    having_keeps_the_groups_where_it_is_true,
    "select g, count(*) group by g having count(*) > 1",
    GROUPS,
    "a|3;c|2"
);
over!(
    having_may_use_an_aggregate_not_selected,
    "select g group by g having sum(v) >= 4",
    GROUPS,
    "a;b;null"
);
over!(
    having_may_use_a_select_alias,
    "select g, count(*) as n group by g having n = 1",
    GROUPS,
    "b|1;null|1"
);
over!(
    having_alias_of_an_aggregate_inside_an_expression,
    "select g, sum(v) as total group by g having total * 2 > 9 and total is not null",
    GROUPS,
    "a|6;null|5"
);
over!(
    having_may_use_a_group_by_expression,
    "select count(*) group by g having g in ('b', 'c')",
    GROUPS,
    "1;2"
);
over!(
    having_null_drops_the_group_three_valued,
    "select g group by g having max(v) > 0",
    GROUPS,
    "a;b;null"
);
over!(
    having_not_null_is_null_and_drops_the_group,
    "select g group by g having not (max(v) > 0)",
    GROUPS,
    ""
);
over!(
    having_without_group_by_keeps_the_single_row_when_true,
    "select count(*) having count(*) > 5",
    GROUPS,
    "7"
);
over!(
    having_without_group_by_can_give_zero_rows,
    "select count(*) having count(*) > 7",
    GROUPS,
    ""
);
over!(
    having_over_zero_lines_without_group_by,
    "select count(*) where v > 100 having count(*) = 0",
    GROUPS,
    "0"
);
over!(
    having_an_aggregate_makes_the_query_aggregate,
    "select 'many' as what having count(*) > 2",
    GROUPS,
    "many"
);
over!(
    having_then_order_by_an_unselected_aggregate_then_limit,
    "select g group by g having count(*) >= 1 order by sum(v) desc, g limit 2",
    GROUPS,
    "c;a"
);
over!(
    having_with_group_by_and_where,
    "select g, count(*) where v > 1 group by g having count(*) >= 2",
    GROUPS,
    "a|2"
);

#[test]
fn having_without_an_aggregation_is_an_error_at_having() {
    let q = "select v where v > 1 having v > 2";
    let e = Plan::compile(q).unwrap_err();
    assert_eq!(
        e.message(),
        "having needs an aggregation; did you mean where?"
    );
    assert_eq!(e.column(), q.find("having").unwrap() + 1);
    assert_eq!(e.span().len(), "having".len());
    assert_eq!(
        fails("where v > 1 having v > 2"),
        "having needs an aggregation; did you mean where?"
    );
}

#[test]
fn having_names_a_group_or_an_aggregate() {
    assert_eq!(
        fails("select g, count(*) group by g having v > 1"),
        "'v' must appear in group by or be inside an aggregate"
    );
}

// ---- select distinct ----
over!(
    distinct_one_row_per_value_in_first_line_order,
    "select distinct g",
    GROUPS,
    "a;b;c;null"
);
over!(
    distinct_numerically_equal_values_are_one_first_text_kept,
    "select distinct v",
    [
        r#"{"v":1.50}"#,
        r#"{"v":2}"#,
        r#"{"v":1.5}"#,
        r#"{"v":15e-1}"#,
        r#"{"v":"1.5"}"#,
        r#"{"v":2.0}"#
    ],
    "1.50;2;1.5"
);
over!(
    distinct_over_several_items_combinations,
    "select distinct g, v > 1 as big",
    GROUPS,
    "a|false;b|true;a|true;c|null;null|true"
);
over!(
    distinct_absent_and_null_are_one,
    "select distinct x",
    [r#"{"x":null}"#, r#"{}"#, r#"{"x":1}"#],
    "null;1"
);
over!(
    distinct_arrays_and_objects_by_value,
    "select distinct t",
    [
        r#"{"t":[1,2]}"#,
        r#"{"t":[1.0, 2]}"#,
        r#"{"t":{"a":1,"b":2}}"#,
        r#"{"t":{"b":2,"a":1}}"#
    ],
    r#"[1,2];{"a":1,"b":2}"#
);
over!(
    distinct_with_where,
    "select distinct g where v > 1",
    GROUPS,
    "b;a;null"
);
over!(
    distinct_order_by_a_select_item,
    "select distinct g order by g desc",
    GROUPS,
    "null;c;b;a"
);
over!(
    distinct_order_by_an_alias_or_a_position,
    "select distinct g as k, v > 1 as big order by big desc, 1",
    GROUPS,
    "c|null;a|true;b|true;null|true;a|false"
);
over!(
    distinct_limit_and_offset,
    "select distinct g limit 2 offset 1",
    GROUPS,
    "b;c"
);
over!(
    distinct_star_is_distinct_whole_lines_compared_as_values,
    "select distinct *",
    [
        r#"{"a":1,"b":[2]}"#,
        r#"{"b":[2.0], "a":1.0}"#,
        r#"{"a":2}"#,
        r#"{"a":1,"b":[2]}"#
    ],
    r#"{"a":1,"b":[2]};{"a":2}"#
);
over!(
    distinct_star_order_by_a_property,
    "select distinct * order by a desc",
    [r#"{"a":1}"#, r#"{"a":2}"#, r#"{"a":1.0}"#],
    r#"{"a":2};{"a":1}"#
);
over!(
    distinct_with_group_by_drops_repeated_rows,
    "select distinct g group by g, v > 2",
    GROUPS,
    "a;b;c;null"
);
over!(
    distinct_with_group_by_and_having,
    "select distinct g group by g, v having g <> 'c'",
    GROUPS,
    "a;b"
);

#[test]
fn distinct_with_an_aggregate_is_an_error_at_the_aggregate() {
    for (q, agg) in [
        ("select distinct g, count(*) group by g", "count(*)"),
        ("select distinct g group by g having sum(v) > 1", "sum(v)"),
        ("select distinct g group by g order by max(v)", "max(v)"),
    ] {
        let e = Plan::compile(q).unwrap_err();
        assert_eq!(
            e.message(),
            format!(
                "select distinct cannot be combined with an aggregate ('{agg}'): group by gives one row per key"
            ),
            "{q}"
        );
        assert_eq!(e.column(), q.find(agg).unwrap() + 1, "{q}");
    }
}

#[test]
fn distinct_order_by_must_name_a_select_item() {
    let q = "select distinct g order by v";
    let e = Plan::compile(q).unwrap_err();
    assert_eq!(
        e.message(),
        "for select distinct, order by expressions must appear in the select list"
    );
    assert_eq!(e.column(), q.find("v").unwrap() + 1);
}

#[test]
fn distinct_is_a_reserved_word() {
    assert_eq!(
        fails("select distinct"),
        "expected an expression after 'distinct', found the end of the query"
    );
    assert_eq!(run("select ['distinct']", &[r#"{"distinct":1}"#]), "1");
}

// ---- offset ----
over!(
    offset_skips_streamed_rows,
    "select v offset 5",
    GROUPS,
    "3;null"
);
over!(
    offset_then_limit_on_streamed_rows,
    "select v limit 2 offset 1",
    GROUPS,
    "4;2"
);
over!(
    offset_on_whole_lines,
    "where v > 2 offset 1",
    GROUPS,
    r#"{"v":5};{"g":"a","v":3}"#
);
over!(
    offset_after_order_by_before_limit,
    "select v order by v desc limit 2 offset 2",
    GROUPS,
    "5;4"
);
over!(
    offset_past_the_end_gives_no_rows,
    "select v order by v offset 100",
    GROUPS,
    ""
);
over!(
    offset_on_groups,
    "select g, count(*) group by g limit 2 offset 1",
    GROUPS,
    "b|1;c|2"
);
over!(
    offset_on_the_single_row_of_an_aggregation,
    "select count(*) offset 1",
    GROUPS,
    ""
);
over!(
    offset_zero_is_no_offset,
    "select v limit 1 offset 0",
    GROUPS,
    "1"
);
over!(
    select_star_order_by_with_offset,
    "select * order by v limit 1 offset 1",
    GROUPS,
    r#"{"g":"a","v":2}"#
);

// ---- order by an aggregate that is not selected ----
over!(
    order_by_an_unselected_aggregate,
    "select RequestPath group by RequestPath order by count(*) desc limit 5",
    [
        r#"{"RequestPath":"/a"}"#,
        r#"{"RequestPath":"/b"}"#,
        r#"{"RequestPath":"/b"}"#,
        r#"{"RequestPath":"/c"}"#,
        r#"{"RequestPath":"/b"}"#,
        r#"{"RequestPath":"/c"}"#
    ],
    "/b;/c;/a"
);
over!(
    order_by_an_unselected_aggregate_without_group_by,
    "select count(*) order by sum(v)",
    GROUPS,
    "7"
);

// ---- unique column names ----
#[test]
fn repeated_column_names_get_a_suffix() {
    let cols = |q: &str| Plan::compile(q).unwrap().columns().to_vec();
    assert_eq!(
        cols("select count(*), count(*)"),
        ["count(*)", "count(*)_2"]
    );
    assert_eq!(cols("select a, a, a"), ["a", "a_2", "a_3"]);
    assert_eq!(cols("select a, b as a, a"), ["a", "a_2", "a_3"]);
    // A suffix never takes a name written elsewhere in the list, before or after.
    assert_eq!(cols("select a, a as a_2, a"), ["a", "a_2", "a_3"]);
    assert_eq!(cols("select a, a, a_2"), ["a", "a_3", "a_2"]);
    assert_eq!(cols("select a_2, a, a"), ["a_2", "a", "a_3"]);
    // Names are compared as written (JSON keys are case-sensitive).
    assert_eq!(cols("select a, A"), ["a", "A"]);
}
over!(
    repeated_columns_keep_their_values,
    "select count(*), count(*) as 'count(*)'",
    GROUPS,
    "7|7"
);

#[test]
fn offset_with_a_limit_still_stops_early_an_offset_alone_does_not() {
    let plan = |q: &str| Plan::compile(q).unwrap();
    let p = plan("select v limit 3 offset 10");
    assert!(p.early_stop());
    assert_eq!((p.limit(), p.offset()), (Some(3), 10));
    assert!(!plan("select v offset 10").early_stop());
    assert_eq!(plan("select v").offset(), 0);
    // Collected rows are paged by `finish`: no early stop.
    assert!(!plan("select v order by v limit 3 offset 1").early_stop());
    assert!(!plan("select distinct v limit 3").early_stop());
}

#[test]
fn new_errors_are_of_their_kind() {
    use crate::ErrorKind;
    let kind = |q: &str| Plan::compile(q).unwrap_err().kind();
    assert_eq!(kind("select v having v > 1"), ErrorKind::Aggregate);
    assert_eq!(kind("select distinct count(*)"), ErrorKind::Aggregate);
    assert_eq!(kind("select distinct g order by v"), ErrorKind::GroupBy);
    assert_eq!(kind("select v offset x"), ErrorKind::Syntax);
}

// An aggregate inside `case` or `||` makes the query an aggregation and counts for
// `distinct`; an alias inside `case` in `having` names the select item.
over!(
    aggregate_inside_case_makes_an_aggregation,
    "select case when count(*) > 2 then 'many' else 'few' end as n",
    GROUPS,
    "many"
);
over!(
    alias_inside_case_in_having_names_the_item,
    "select g, count(*) as n group by g having case when n > 1 then true end",
    GROUPS,
    "a|3;c|2"
);

#[test]
fn distinct_with_an_aggregate_inside_concat_is_an_error() {
    let err = Plan::compile("select distinct g, 'n' || count(*)").unwrap_err();
    assert_eq!(err.column(), 27, "{err}");
}
