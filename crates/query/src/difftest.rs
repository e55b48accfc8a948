//! The differential test: generated documents and `where` conditions, evaluated three ways —
//! the engine on lazy ndq_scan documents, the engine on serde_json values, and a
//! straightforward reference written here directly over `serde_json::Value` (its own
//! three-valued logic, `like` via `regex`, decimal sums via rust_decimal) — must agree.
//! Also: `order by ... limit k [offset m]` (the bounded top-k) equals the full sort, `m` rows
//! skipped, cut to `k`; any text
//! compiles or fails with a rendered error (never a panic); generated queries of every shape
//! run on both documents, whole and merged, and agree.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::str::FromStr;

use proptest::prelude::*;
use rust_decimal::Decimal;
use serde_json::Value as J;

use crate::tests::{run_lazy, run_serde};
use crate::{Kind, Plan};

/// A generated condition.
#[derive(Clone, Debug)]
enum Cond {
    Cmp(&'static str, &'static str, Lit),
    IsNull(&'static str, bool),
    Like(&'static str, String, bool),
    In(&'static str, Vec<Lit>, bool),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    /// `case when C then A else B end`, or `if(C, A, B)` when the flag is set.
    Case(Box<Cond>, Box<Cond>, Box<Cond>, bool),
    /// `case p when L then C ... else E end`.
    CaseOf(&'static str, Vec<(Lit, Cond)>, Box<Cond>),
    /// `lit [not] in p` (an array's membership).
    Member(Lit, &'static str, bool),
}

#[derive(Clone, Debug)]
enum Lit {
    Num(String),
    Str(String),
}

impl Lit {
    fn query(&self) -> String {
        match self {
            Lit::Num(n) => n.clone(),
            Lit::Str(s) => format!("'{}'", s.replace('\'', "''")),
        }
    }
    fn json(&self) -> J {
        match self {
            Lit::Num(n) => serde_json::from_str(n).unwrap_or(J::Null),
            Lit::Str(s) => J::String(s.clone()),
        }
    }
}

const PATHS: [&str; 4] = ["a", "b", "o.x", "t[0]"];
/// Paths with a wildcard: over `w` (scalars, or not an array) and `v` (objects with a `q`).
const WILD_PATHS: [&str; 4] = ["w[?]", "w[*]", "v[?].q", "v[*].q"];

/// A leaf's path: a plain one mostly, a wildcard one sometimes.
fn leaf_path() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        3 => prop::sample::select(PATHS.to_vec()),
        1 => prop::sample::select(WILD_PATHS.to_vec()),
    ]
}
const OPS: [&str; 6] = ["=", "<>", "<", "<=", ">", ">="];

fn num_text() -> impl Strategy<Value = String> {
    prop_oneof![
        (-30i32..30).prop_map(|i| i.to_string()),
        (-30i32..30, 0u32..100).prop_map(|(i, f)| format!("{i}.{f:02}")),
        (1i32..9).prop_map(|i| format!("{i}5e-1")),
    ]
}

fn str_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "b", "é", "A", "%", "_", "'"]),
        0..4,
    )
    .prop_map(|v| v.concat())
}

fn lit() -> impl Strategy<Value = Lit> {
    prop_oneof![num_text().prop_map(Lit::Num), str_text().prop_map(Lit::Str)]
}

fn cond() -> impl Strategy<Value = Cond> {
    let leaf = prop_oneof![
        (leaf_path(), prop::sample::select(OPS.to_vec()), lit())
            .prop_map(|(p, o, l)| Cond::Cmp(p, o, l)),
        (leaf_path(), any::<bool>()).prop_map(|(p, n)| Cond::IsNull(p, n)),
        (
            prop::sample::select(vec!["s", "a", "w[?]", "w[*]"]),
            prop::collection::vec(prop::sample::select(vec!["a", "b", "é", "%", "_"]), 0..4)
                .prop_map(|v| v.concat()),
            any::<bool>()
        )
            .prop_map(|(p, pat, ci)| Cond::Like(p, pat, ci)),
        (
            leaf_path(),
            prop::collection::vec(lit(), 1..3),
            any::<bool>()
        )
            .prop_map(|(p, l, n)| Cond::In(p, l, n)),
        (
            lit(),
            prop::sample::select(vec!["w", "v", "a", "t"]),
            any::<bool>()
        )
            .prop_map(|(l, p, n)| Cond::Member(l, p, n)),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|c| Cond::Not(Box::new(c))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Cond::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Cond::Or(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone(), inner.clone(), any::<bool>())
                .prop_map(|(c, a, b, f)| Cond::Case(Box::new(c), Box::new(a), Box::new(b), f)),
            (
                prop::sample::select(PATHS.to_vec()),
                prop::collection::vec((lit(), inner.clone()), 1..3),
                inner
            )
                .prop_map(|(p, arms, e)| Cond::CaseOf(p, arms, Box::new(e))),
        ]
    })
}

/// A JSON value for a property: number, string (with escapes in the text), bool, null, or
/// absent (`None`).
fn prop_value() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        3 => num_text().prop_map(Some),
        2 => str_text().prop_map(|s| {
            // Escape some characters the long way so the lazy engine has to unescape.
            let body: String = s
                .chars()
                .map(|c| match c {
                    'a' => "\\u0061".to_owned(),
                    '"' => "\\\"".to_owned(),
                    c => c.to_string(),
                })
                .collect();
            Some(format!("\"{body}\""))
        }),
        1 => Just(Some("true".to_owned())),
        1 => Just(Some("null".to_owned())),
        2 => Just(None),
    ]
}

/// An array of property values (an absent one left out), or sometimes a value that is not
/// an array.
fn prop_array() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::collection::vec(prop_value(), 0..4).prop_map(|v| {
            format!("[{}]", v.into_iter().flatten().collect::<Vec<_>>().join(", "))
        }),
        1 => prop_value().prop_map(|v| v.unwrap_or_else(|| "null".to_owned())),
    ]
}

fn doc() -> impl Strategy<Value = String> {
    (
        prop_value(),
        prop_value(),
        prop_value(),
        prop_value(),
        prop_value(),
        prop::sample::select(vec!["\"x\"", "\"y\"", "1", "1.0", "null", "2.50"]),
        prop::option::of(prop_array()),
        prop::option::of(prop::collection::vec(prop_value(), 0..3)),
    )
        .prop_map(|(a, b, s, ox, t0, g, w, v)| {
            let mut members = Vec::new();
            if let Some(a) = a {
                members.push(format!("\"a\":{a}"));
            }
            if let Some(b) = b {
                members.push(format!("\"b\":{b}"));
            }
            if let Some(s) = s {
                members.push(format!("\"s\":{s}"));
            }
            if let Some(x) = ox {
                members.push(format!("\"o\":{{\"x\":{x}}}"));
            }
            if let Some(t) = t0 {
                members.push(format!("\"t\":[{t}, 0]"));
            }
            members.push(format!("\"g\":{g}"));
            if let Some(w) = w {
                members.push(format!("\"w\":{w}"));
            }
            if let Some(v) = v {
                // Objects with a `q` (absent for `None`).
                let objects: Vec<String> = v
                    .into_iter()
                    .map(|q| q.map_or("{}".to_owned(), |q| format!("{{\"q\":{q}}}")))
                    .collect();
                members.push(format!("\"v\":[{}]", objects.join(",")));
            }
            format!("{{{}}}", members.join(", "))
        })
}

fn render(c: &Cond) -> String {
    match c {
        Cond::Cmp(p, op, l) => format!("{p} {op} {}", l.query()),
        Cond::IsNull(p, neg) => format!("{p} is {}null", if *neg { "not " } else { "" }),
        Cond::Like(p, pat, ci) => format!(
            "{p} {} '{}'",
            if *ci { "ilike" } else { "like" },
            pat.replace('\'', "''")
        ),
        Cond::In(p, list, neg) => format!(
            "{p} {}in ({})",
            if *neg { "not " } else { "" },
            list.iter().map(Lit::query).collect::<Vec<_>>().join(", ")
        ),
        Cond::Not(c) => format!("not ({})", render(c)),
        Cond::And(a, b) => format!("({}) and ({})", render(a), render(b)),
        Cond::Or(a, b) => format!("({}) or ({})", render(a), render(b)),
        Cond::Case(c, a, b, false) => format!(
            "case when {} then {} else {} end",
            render(c),
            render(a),
            render(b)
        ),
        Cond::Case(c, a, b, true) => format!("if({}, {}, {})", render(c), render(a), render(b)),
        Cond::CaseOf(p, arms, e) => format!(
            "case {p} {} else {} end",
            arms.iter()
                .map(|(l, c)| format!("when {} then {}", l.query(), render(c)))
                .collect::<Vec<_>>()
                .join(" "),
            render(e)
        ),
        Cond::Member(l, p, neg) => {
            format!("{} {}in {p}", l.query(), if *neg { "not " } else { "" })
        }
    }
}

// ---- The reference evaluator ----

fn get<'v>(doc: &'v J, path: &str) -> Option<&'v J> {
    match path {
        "o.x" => doc.get("o")?.get("x"),
        "t[0]" => doc.get("t")?.get(0),
        p => doc.get(p),
    }
    .filter(|v| !v.is_null())
}

fn dec(n: &serde_json::Number) -> Decimal {
    Decimal::from_str(n.as_str())
        .or_else(|_| Decimal::from_scientific(n.as_str()))
        .unwrap()
}

/// SQL comparison of two JSON scalars; `None` for null or mixed types.
fn ref_cmp(a: &J, b: &J) -> Option<Ordering> {
    match (a, b) {
        (J::Number(x), J::Number(y)) => Some(dec(x).cmp(&dec(y))),
        (J::String(x), J::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (J::Bool(x), J::Bool(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

fn ref_like(s: &str, pat: &str, ci: bool) -> bool {
    let mut re = String::from("(?s)^");
    for c in pat.chars() {
        match c {
            '%' => re.push_str(".*"),
            '_' => re.push('.'),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    let fold = |s: &str| s.to_uppercase().to_lowercase().replace('ß', "ss");
    let (s, re) = if ci {
        (fold(s), fold(&re))
    } else {
        (s.to_owned(), re)
    };
    regex::Regex::new(&re).unwrap().is_match(&s)
}

/// A leaf's path.
fn path_of(c: &Cond) -> Option<&'static str> {
    match c {
        Cond::Cmp(p, ..) | Cond::IsNull(p, _) | Cond::Like(p, ..) | Cond::In(p, ..) => Some(p),
        _ => None,
    }
}

/// Leaf `c` on path `q` instead of its own.
fn on_path(c: &Cond, q: &'static str) -> Cond {
    match c {
        Cond::Cmp(_, op, l) => Cond::Cmp(q, op, l.clone()),
        Cond::IsNull(_, n) => Cond::IsNull(q, *n),
        Cond::Like(_, pat, ci) => Cond::Like(q, pat.clone(), *ci),
        Cond::In(_, list, n) => Cond::In(q, list.clone(), *n),
        other => other.clone(),
    }
}

/// A leaf on a wildcard path: the leaf on each element (as the property `@e` of a document
/// of its own), true for some (`[?]`) or every (`[*]`) element; false when not an array.
fn ref_wild(c: &Cond, doc: &J) -> Option<bool> {
    let (array, every, rest) = match path_of(c)? {
        "w[?]" => ("w", false, None),
        "w[*]" => ("w", true, None),
        "v[?].q" => ("v", false, Some("q")),
        "v[*].q" => ("v", true, Some("q")),
        _ => return None,
    };
    let Some(J::Array(items)) = doc.get(array) else {
        return Some(false);
    };
    let leaf = on_path(c, "@e");
    let mut held = items.iter().map(|e| {
        let v = match rest {
            Some(k) => e.get(k).cloned().unwrap_or(J::Null),
            None => e.clone(),
        };
        ref_eval(&leaf, &serde_json::json!({ "@e": v })) == Some(true)
    });
    Some(if every {
        held.all(|h| h)
    } else {
        held.any(|h| h)
    })
}

fn ref_eval(c: &Cond, doc: &J) -> Option<bool> {
    if let Some(answer) = ref_wild(c, doc) {
        return Some(answer);
    }
    match c {
        Cond::Cmp(p, op, l) => {
            let o = ref_cmp(get(doc, p)?, &l.json())?;
            Some(match *op {
                "=" => o.is_eq(),
                "<>" => o.is_ne(),
                "<" => o.is_lt(),
                "<=" => o.is_le(),
                ">" => o.is_gt(),
                _ => o.is_ge(),
            })
        }
        Cond::IsNull(p, neg) => Some(get(doc, p).is_none() != *neg),
        Cond::Like(p, pat, ci) => match get(doc, p)? {
            J::String(s) => Some(ref_like(s, pat, *ci)),
            _ => None,
        },
        Cond::In(p, list, neg) => {
            let v = get(doc, p)?;
            let mut unknown = false;
            for l in list {
                match ref_cmp(v, &l.json()) {
                    Some(Ordering::Equal) => return Some(!*neg),
                    Some(_) => {}
                    None => unknown = true,
                }
            }
            if unknown { None } else { Some(*neg) }
        }
        Cond::Not(c) => ref_eval(c, doc).map(|b| !b),
        Cond::And(a, b) => match (ref_eval(a, doc), ref_eval(b, doc)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Cond::Or(a, b) => match (ref_eval(a, doc), ref_eval(b, doc)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Cond::Case(c, a, b, _) => {
            if ref_eval(c, doc) == Some(true) {
                ref_eval(a, doc)
            } else {
                ref_eval(b, doc)
            }
        }
        Cond::CaseOf(p, arms, e) => {
            if let Some(v) = get(doc, p) {
                for (l, c) in arms {
                    if ref_cmp(v, &l.json()) == Some(Ordering::Equal) {
                        return ref_eval(c, doc);
                    }
                }
            }
            ref_eval(e, doc)
        }
        Cond::Member(l, p, neg) => {
            let Some(J::Array(items)) = doc.get(*p) else {
                return None;
            };
            let mut unknown = false;
            for e in items {
                match ref_cmp(&l.json(), e) {
                    Some(Ordering::Equal) => return Some(!*neg),
                    Some(_) => {}
                    None => unknown = true,
                }
            }
            if unknown { None } else { Some(*neg) }
        }
    }
}

/// The reference answer to `select count(*), sum(a), count_distinct(g) where C` and to
/// `select g, count(*) where C group by g` (groups as a map from a canonical key).
fn ref_aggregates(docs: &[J], c: &Cond) -> (String, BTreeMap<String, usize>) {
    let mut count = 0;
    let mut sum: Option<Decimal> = None;
    let mut distinct = std::collections::BTreeSet::new();
    let mut groups = BTreeMap::new();
    let canon = |v: Option<&J>| match v {
        None => "null".to_owned(),
        Some(J::Number(n)) => dec(n).normalize().to_string(),
        Some(J::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    for d in docs {
        if ref_eval(c, d) != Some(true) {
            continue;
        }
        count += 1;
        if let Some(J::Number(n)) = get(d, "a") {
            // A sum is written with the largest scale of its inputs.
            let mut s = sum.unwrap_or_default() + dec(n);
            s.rescale(
                s.scale()
                    .max(dec(n).scale())
                    .max(sum.map_or(0, |p| p.scale())),
            );
            sum = Some(s);
        }
        let g = get(d, "g");
        if g.is_some() {
            distinct.insert(canon(g));
        }
        *groups.entry(canon(g)).or_insert(0) += 1;
    }
    let sum = sum.map_or("null".to_owned(), |s| crate::format_decimal(&s));
    (format!("{count}|{sum}|{}", distinct.len()), groups)
}

fn both(query: &str, lines: &[&str]) -> String {
    let plan = Plan::compile(query).unwrap_or_else(|e| panic!("{e}"));
    let lazy = run_lazy(&plan, lines, None);
    let serde = run_serde(&plan, lines, None);
    // Arrays and objects are written as in the input by the lazy document, re-serialized by
    // serde: compare their canonical forms.
    let canon = |text: &str| {
        text.split(';')
            .map(|row| {
                row.split('|')
                    .map(|cell| crate::value::canonical_json(cell).into_owned())
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect::<Vec<_>>()
            .join(";")
    };
    assert_eq!(canon(&lazy), canon(&serde), "lazy vs serde: {query}");
    if plan.kind() == Kind::Collect {
        let mid = lines.len() / 2;
        assert_eq!(
            run_lazy(&plan, lines, Some(mid)),
            lazy,
            "merged halves: {query}"
        );
    }
    lazy
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn engines_agree_with_reference(docs in prop::collection::vec(doc(), 0..14), c in cond()) {
        let lines: Vec<&str> = docs.iter().map(String::as_str).collect();
        let values: Vec<J> = docs.iter().map(|d| serde_json::from_str(d).unwrap()).collect();
        let where_ = render(&c);

        // Which lines match.
        let got = both(&format!("where {where_}"), &lines);
        let want: Vec<&str> = lines
            .iter()
            .zip(&values)
            .filter(|(_, v)| ref_eval(&c, v) == Some(true))
            .map(|(l, _)| *l)
            .collect();
        prop_assert_eq!(got, want.join(";"));

        // Aggregates.
        let (want_aggs, want_groups) = ref_aggregates(&values, &c);
        let got = both(&format!("select count(*), sum(a), count_distinct(g) where {where_}"), &lines);
        prop_assert_eq!(&got, &want_aggs);

        // The same aggregates filtered instead of after `where`, over every line.
        let got = both(
            &format!(
                "select count(*) filter (where {where_}), sum(a) filter (where {where_}), \
                 count_distinct(g) filter (where {where_})"
            ),
            &lines,
        );
        prop_assert_eq!(&got, &want_aggs);
        let got = both(&format!("select count_if({where_}), sum(a), count(*) filter (where not ({where_}))"), &lines);
        let (count, rest) = want_aggs.split_once('|').unwrap();
        prop_assert!(got.starts_with(&format!("{count}|")), "{} vs {}", got, rest);

        // Groups: the same counts per (canonical) key.
        let got = both(&format!("select g, count(*) where {where_} group by g"), &lines);
        let groups = |got: &str| {
            let mut out = BTreeMap::new();
            for row in got.split(';').filter(|r| !r.is_empty()) {
                let (k, n) = row.rsplit_once('|').unwrap();
                let k = Decimal::from_str(k).map_or(k.to_owned(), |d| d.normalize().to_string());
                let n = n.parse::<usize>().unwrap();
                if n > 0 {
                    out.insert(k, n);
                }
            }
            out
        };
        prop_assert_eq!(&groups(&got), &want_groups);
        // Counted with `count_if` per group of every line: the groups with a match agree.
        let got = both(&format!("select g, count_if({where_}) group by g"), &lines);
        prop_assert_eq!(&groups(&got), &want_groups);

        // Scalar functions and arithmetic: the two documents agree (strings with escapes on
        // the lazy side, already unescaped on the serde side).
        both(
            &format!(
                "select lower(s), upper(s), length(s), s ilike '%A%', a + 1, a * b, a / 3, \
                 a % 2, -a, round(a, 1), abs(a), tostring(a), tonumber(s), coalesce(a, b, s), \
                 contains(s, 'a'), startswith(s, 'é'), match(s, '^a'), has(o.x), t[0] in (a, b), \
                 s || a, a || b, concat(s, a, o.x, t[0]), substr(s, a, b), substr(s, 2), \
                 left(s, a), right(s, b), strpos(s, 'é'), replace(s, 'a', 'é😀'), trim(s), \
                 split_part(s, 'a', 2), extract(s, '(a)(é)?'), extract(s, '.(.)', 0), \
                 level(s), severity(a), case when a > b then s else a end, \
                 case s when 'a' then 1 when 'é' then 2 end, if(a = b, s, o.x) \
                 where {where_}"
            ),
            &lines,
        );

        // Top-k equals the full sort cut to k.
        let full = both(&format!("select s, a where {where_} order by a desc, s"), &lines);
        for k in [0usize, 1, 3] {
            let top = both(&format!("select s, a where {where_} order by a desc, s limit {k}"), &lines);
            let cut: Vec<&str> = full.split(';').filter(|r| !r.is_empty()).take(k).collect();
            prop_assert_eq!(top, cut.join(";"));
            // With an offset: the full sort, `m` rows skipped, then cut to `k`.
            let m = 2;
            let page = both(
                &format!("select s, a where {where_} order by a desc, s limit {k} offset {m}"),
                &lines,
            );
            let cut: Vec<&str> =
                full.split(';').filter(|r| !r.is_empty()).skip(m).take(k).collect();
            prop_assert_eq!(page, cut.join(";"));
        }

        // The same for groups: the first k chosen among all groups equal the sort cut to k.
        let full = both(&format!("select g, count(*) where {where_} group by g order by count(*) desc"), &lines);
        for k in [0usize, 1, 2] {
            let top = both(&format!("select g, count(*) where {where_} group by g order by count(*) desc limit {k}"), &lines);
            let cut: Vec<&str> = full.split(';').filter(|r| !r.is_empty()).take(k).collect();
            prop_assert_eq!(top, cut.join(";"));
        }
    }
}

/// Words and symbols queries are made of, for query soup.
const SOUP: &[&str] = &[
    "select",
    "from",
    "stream",
    "where",
    "group",
    "by",
    "order",
    "limit",
    "offset",
    "having",
    "distinct",
    "asc",
    "desc",
    "as",
    "and",
    "or",
    "not",
    "like",
    "ilike",
    "in",
    "is",
    "null",
    "true",
    "false",
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "percentile",
    "count_distinct",
    "count_if",
    "filter",
    "w",
    "[?]",
    "[*]",
    "?",
    "match",
    "has",
    "lower",
    "length",
    "coalesce",
    "round",
    "tostring",
    "tonumber",
    "case",
    "when",
    "then",
    "else",
    "end",
    "||",
    "if",
    "concat",
    "substr",
    "left",
    "strpos",
    "replace",
    "trim",
    "split_part",
    "extract",
    "level",
    "severity",
    "'(x)'",
    "a",
    "b",
    "s",
    "o.x",
    "t[0]",
    "['a']",
    "(",
    ")",
    ",",
    "*",
    "+",
    "-",
    "/",
    "%",
    "=",
    "<>",
    "<",
    ">=",
    "1",
    "2.50",
    "0",
    "100",
    "'a%'",
    "'(x'",
    "'é'",
    "@t",
    "[",
    "]",
    ".",
    "'",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Any text compiles or fails with an error that renders; never a panic.
    #[test]
    fn any_text_compiles_or_errors(q in "\\PC{0,40}") {
        if let Err(e) = Plan::compile(&q) {
            prop_assert!(e.column() >= 1);
            prop_assert!(!e.to_string().is_empty());
        }
    }

    /// Token soup reaches deep into the parser and planner; whatever compiles also runs on
    /// both documents without a panic, and they agree.
    #[test]
    fn query_soup_never_panics(words in prop::collection::vec(prop::sample::select(SOUP.to_vec()), 0..14),
                               docs in prop::collection::vec(doc(), 0..4)) {
        let q = words.join(" ");
        match Plan::compile(&q) {
            Ok(_) => {
                let lines: Vec<&str> = docs.iter().map(String::as_str).collect();
                both(&q, &lines);
            }
            Err(e) => {
                prop_assert!(e.column() >= 1);
                prop_assert!(e.column() <= q.chars().count() + 1);
            }
        }
    }
}

fn expr_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(vec!["a", "b", "s", "g", "o.x", "t[0]", "t", "o", "nope"])
            .prop_map(str::to_owned),
        num_text(),
        str_text().prop_map(|s| format!("'{}'", s.replace('\'', "''"))),
        prop::sample::select(vec!["null", "true", "false"]).prop_map(str::to_owned),
    ];
    leaf.prop_recursive(3, 10, 2, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(vec![
                    "+", "-", "*", "/", "%", "=", "<", ">=", "<>", "and", "or"
                ]),
                inner.clone()
            )
                .prop_map(|(a, op, b)| format!("({a} {op} {b})")),
            (
                prop::sample::select(vec![
                    "lower", "upper", "length", "abs", "floor", "ceil", "round", "tostring",
                    "tonumber", "not", "-"
                ]),
                inner.clone()
            )
                .prop_map(|(f, a)| match f {
                    "not" | "-" => format!("{f} ({a})"),
                    f => format!("{f}({a})"),
                }),
            (
                prop::sample::select(vec![
                    "contains",
                    "startswith",
                    "endswith",
                    "coalesce",
                    "round",
                    "match"
                ]),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(f, a, b)| format!("{f}({a}, {b})")),
            (
                prop::sample::select(vec!["count", "sum", "avg", "min", "max", "count_distinct"]),
                inner.clone()
            )
                .prop_map(|(f, a)| format!("{f}({a})")),
            (inner.clone(), 1u32..=100).prop_map(|(a, p)| format!("percentile({a}, {p})")),
            Just("count(*)".to_owned()),
            (inner.clone(), any::<bool>(), str_text()).prop_map(|(a, n, p)| format!(
                "{a} {}like '{}'",
                if n { "not " } else { "" },
                p.replace('\'', "''")
            )),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} in ({b}, 1, 'a')")),
            (
                prop::sample::select(vec!["count", "sum", "min", "count_distinct"]),
                inner.clone(),
                cond()
            )
                .prop_map(|(f, a, c)| format!("{f}({a}) filter (where {})", render(&c))),
            cond().prop_map(|c| format!("count_if({})", render(&c))),
            (inner, prop::sample::select(vec!["w", "v", "t"]))
                .prop_map(|(a, p)| format!("{a} in {p}")),
            text_expr(),
        ]
    })
}

/// Text-valued expressions: `||`, the text functions, `case`, `if`, over properties that are
/// never arrays or objects (whose JSON text the two documents spell differently inside a
/// longer string) and Unicode literals.
fn text_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(vec!["a", "b", "s", "g", "o.x", "t[0]", "nope"])
            .prop_map(str::to_owned),
        num_text(),
        prop::sample::select(vec![
            "'a'",
            "' é😀 '",
            "'e\u{301}'",
            "','",
            "''",
            "'a,b,,é'",
            "'(a)|(é)'",
            "'warn'",
            "40",
            "null",
            "true",
            "-1",
            "0",
            "2"
        ])
        .prop_map(str::to_owned),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} || {b})")),
            (
                prop::sample::select(vec![
                    "trim", "ltrim", "rtrim", "level", "severity", "concat", "tostring"
                ]),
                inner.clone()
            )
                .prop_map(|(f, a)| format!("{f}({a})")),
            (
                prop::sample::select(vec![
                    "substr", "left", "right", "strpos", "concat", "extract"
                ]),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(f, a, b)| format!("{f}({a}, {b})")),
            (
                prop::sample::select(vec![
                    "substr",
                    "replace",
                    "split_part",
                    "if",
                    "concat",
                    "extract"
                ]),
                inner.clone(),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(f, a, b, c)| format!("{f}({a}, {b}, {c})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("case when {c} = {a} then {b} end")),
            (inner.clone(), inner.clone(), inner.clone(), inner)
                .prop_map(|(x, a, v, e)| format!("case {x} when {a} then {v} else {e} end")),
        ]
    })
}

fn query_text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((expr_text(), any::<bool>()), 1..4),
        prop::option::of(cond()),
        prop::option::of(prop::collection::vec(expr_text(), 1..3)),
        prop::option::of(prop::collection::vec((expr_text(), any::<bool>()), 1..3)),
        prop::option::of(0u32..4),
        (
            prop::bool::weighted(0.25),
            prop::option::weighted(0.25, expr_text()),
            prop::option::of(0u32..3),
        ),
    )
        .prop_map(|(items, w, g, o, l, (distinct, having, offset))| {
            let items: Vec<String> = items
                .into_iter()
                .enumerate()
                .map(|(i, (e, alias))| if alias { format!("{e} as c{i}") } else { e })
                .collect();
            let distinct = if distinct { "distinct " } else { "" };
            let mut q = format!("select {distinct}{}", items.join(", "));
            if let Some(w) = w {
                q += &format!(" where {}", render(&w));
            }
            if let Some(g) = g {
                q += &format!(" group by {}", g.join(", "));
            }
            if let Some(h) = having {
                q += &format!(" having {h}");
            }
            if let Some(o) = o {
                let keys: Vec<String> = o
                    .into_iter()
                    .map(|(e, d)| format!("{e}{}", if d { " desc" } else { "" }))
                    .collect();
                q += &format!(" order by {}", keys.join(", "));
            }
            if let Some(l) = l {
                q += &format!(" limit {l}");
            }
            if let Some(m) = offset {
                q += &format!(" offset {m}");
            }
            q
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Generated queries of every shape: whatever compiles runs on both documents, whole and
    /// merged from halves, without a panic, and the results agree.
    #[test]
    fn generated_queries_agree(q in query_text(), docs in prop::collection::vec(doc(), 0..6)) {
        if Plan::compile(&q).is_ok() {
            let lines: Vec<&str> = docs.iter().map(String::as_str).collect();
            both(&q, &lines);
        }
    }
}

/// Lines for the many-groups test: about `lines / 2` values of `k` (a few lines without
/// one), numbers `n` spelled several ways (`1.5`, `1.50`, `15e-1`: one group, written as its
/// first line spelled it), numbers `v`, strings `s` and statuses `st`.
fn many_group_lines(seed: u64, lines: usize) -> Vec<String> {
    let mut x = seed | 1;
    let mut next = move || {
        // xorshift64: deterministic for the seed.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let keys = (lines as u64 / 2).max(1);
    (0..lines)
        .map(|_| {
            let r = next();
            let k = match r % 50 {
                0 => String::new(),
                _ => format!(r#""k":"key{}","#, next() % keys),
            };
            let n = next() % 40;
            let n = match next() % 3 {
                0 => format!("{}.{}", n / 10, n % 10),
                1 => format!("{}.{}0", n / 10, n % 10),
                _ => format!("{n}e-1"),
            };
            let v = format!("{}.{:02}", next() % 1000, next() % 100);
            let s: String = (0..1 + next() % 3)
                .map(|_| ["a", "b", "é", "Z"][(next() % 4) as usize])
                .collect();
            let st = [200, 200, 404, 500, 503][(next() % 5) as usize];
            format!(r#"{{{k}"n":{n},"v":{v},"s":"{s}","st":{st}}}"#)
        })
        .collect()
}

/// `lines` folded into one accumulator by the lazy engine, as a chunk of the CLI is.
fn lazy_accumulator(plan: &Plan, lines: &[String]) -> crate::Accumulator {
    lazy_chunks(plan, lines, lines.len().max(1), false)
        .pop()
        .expect("one chunk")
}

/// `lines` cut into chunks of `size` lines, each folded into its own accumulator by one
/// lazy worker, as one thread of the CLI does: what the worker keeps from chunk to chunk
/// (`extract`'s memos, say) carries over. With `seal`, each is sealed when its chunk is done,
/// as the CLI does.
fn lazy_chunks(plan: &Plan, lines: &[String], size: usize, seal: bool) -> Vec<crate::Accumulator> {
    let mut parser = ndq_scan::Parser::new(ndq_scan::Scanner::detect());
    let mut w = plan.worker();
    let mut accs = Vec::new();
    for chunk in lines
        .chunks(size)
        .chain(lines.is_empty().then_some(&[][..]))
    {
        let mut acc = plan.accumulator();
        for line in chunk {
            let doc = parser
                .parse_until(line.as_bytes(), plan.key_set())
                .unwrap_or_else(|e| panic!("{line}: {e}"));
            w.accumulate(plan.root(doc), &mut acc);
        }
        if seal {
            acc.seal();
        }
        accs.push(acc);
    }
    accs
}

/// The chunks' accumulators merged one after another, in input order.
fn merged_one_by_one(chunks: &[crate::Accumulator]) -> crate::Accumulator {
    let mut all = crate::Accumulator::default();
    for acc in chunks.iter().cloned() {
        all.merge(acc);
    }
    all
}

/// The finished rows as text: values joined by `|`, rows by `;`.
fn finished(plan: &Plan, acc: crate::Accumulator) -> String {
    plan.finish(acc)
        .iter()
        .map(|r| {
            r.iter()
                .map(crate::tests::show)
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// The reference answer to `select n, count(*), min(s), max(s) group by n`: groups by the
/// number's value in ascending order, each written as its first line spelled it.
fn ref_groups_by_number(lines: &[String]) -> String {
    let mut groups: BTreeMap<Decimal, (String, usize, String, String)> = BTreeMap::new();
    for line in lines {
        let doc: J = serde_json::from_str(line).expect("valid");
        let Some(J::Number(n)) = doc.get("n") else {
            panic!("every line has n");
        };
        let Some(J::String(s)) = doc.get("s") else {
            panic!("every line has s");
        };
        let g = groups
            .entry(dec(n).normalize())
            .or_insert_with(|| (n.to_string(), 0, s.clone(), s.clone()));
        g.1 += 1;
        if s.as_bytes() < g.2.as_bytes() {
            g.2 = s.clone();
        }
        if s.as_bytes() > g.3.as_bytes() {
            g.3 = s.clone();
        }
    }
    groups
        .values()
        .map(|(raw, count, min, max)| format!("{raw}|{count}|{min}|{max}"))
        .collect::<Vec<_>>()
        .join(";")
}

/// The reference answer to the `extract` query of the many-groups test: the regexes applied
/// to each `k` with `Regex::captures`, the groups counted, sorted by count (descending) and
/// the number, and the first 20 written.
fn ref_extracts(lines: &[String]) -> String {
    let d = regex::Regex::new(r"y(\d)(\d)?").expect("regex");
    let e = regex::Regex::new(r"\d+$").expect("regex");
    type Key = (Option<String>, Option<String>);
    let mut counts: Vec<(Key, usize)> = Vec::new();
    for line in lines {
        let doc: J = serde_json::from_str(line).expect("valid");
        let key = match doc.get("k") {
            Some(J::String(k)) => (
                d.captures(k)
                    .and_then(|c| c.get(1))
                    .map(|m| m.as_str().to_owned()),
                e.find(k).map(|m| m.as_str().to_owned()),
            ),
            _ => (None, None),
        };
        match counts.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => counts.push((key, 1)),
        }
    }
    // Ties by `e` as text, null last (every `e` here is digits).
    counts.sort_by(|(a, n), (b, m)| {
        m.cmp(n).then_with(|| match (&a.1, &b.1) {
            (Some(x), Some(y)) => x.cmp(y),
            (x, y) => x.is_none().cmp(&y.is_none()),
        })
    });
    counts
        .iter()
        .take(20)
        .map(|((d, e), n)| {
            let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "null".to_owned());
            format!("{}|{}|{n}", show(d), show(e))
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// Aggregations of thousands of groups, with every aggregate kind, give the rows of one
/// accumulator over all the lines however the lines are cut into chunks and however the
/// chunks' accumulators are merged: one after another ([`crate::Accumulator::merge`]) or
/// several at once, partition by partition ([`crate::Accumulator::merge_all`]).
#[test]
fn many_groups_merge_as_one_pass_for_every_split() {
    let queries = [
        "select k, count(*), count(v), sum(v), avg(v), min(v), max(v), min(s), max(s), \
         percentile(v, 50), count_distinct(s), count_distinct(n) group by k",
        "select n, count(*), min(s), max(s) group by n",
        "select k, n, count(*) filter (where st >= 500) as e, count_if(st = 200) as ok, \
         sum(v) filter (where st < 300) group by k, n having count(*) > 1 \
         order by e desc, ok limit 7 offset 2",
        "select k, percentile(v, 90), max(v), min(n) group by k order by 2 desc limit 5",
        "select k, count(*) as c group by k order by c desc, k limit 3",
        "select s group by s, n",
        "select distinct s group by s, n order by s desc",
        "select count(*), count_distinct(k), min(s), max(n), percentile(n, 10)",
        "select n, count(*) group by n having count(*) > 3 order by n desc offset 1",
        "select extract(k, 'y(\\d)(\\d)?') as d, extract(k, '\\d+$', 0) as e, count(*) \
         group by d, e order by count(*) desc, e limit 20",
    ];
    let lines = many_group_lines(0x9e37_79b9_7f4a_7c15, 3000);
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let by_number = Plan::compile(queries[1]).expect("compiles");
    assert_eq!(
        finished(&by_number, lazy_accumulator(&by_number, &lines)),
        ref_groups_by_number(&lines),
        "against the reference: {}",
        queries[1]
    );
    let extracts = Plan::compile(queries[9]).expect("compiles");
    assert_eq!(
        finished(&extracts, lazy_accumulator(&extracts, &lines)),
        ref_extracts(&lines),
        "against the reference: {}",
        queries[9]
    );
    for query in queries {
        let plan = Plan::compile(query).unwrap_or_else(|e| panic!("{query}: {e}"));
        let whole = finished(&plan, lazy_accumulator(&plan, &lines));
        assert!(!whole.is_empty(), "{query}");
        assert_eq!(run_serde(&plan, &refs, None), whole, "serde: {query}");
        for (size, seal) in [
            (1, true),
            (7, false),
            (300, true),
            (300, false),
            (1001, true),
        ] {
            let chunks = lazy_chunks(&plan, &lines, size, seal);
            assert_eq!(
                finished(&plan, merged_one_by_one(&chunks)),
                whole,
                "merged one by one, chunks of {size}, sealed {seal}: {query}"
            );
            for batch in [1, 5, chunks.len()] {
                let mut batched = crate::Accumulator::default();
                let mut rest = chunks.clone().into_iter().peekable();
                while rest.peek().is_some() {
                    batched.merge_all(rest.by_ref().take(batch).collect());
                }
                assert_eq!(
                    finished(&plan, batched),
                    whole,
                    "merged {batch} at a time, chunks of {size}, sealed {seal}: {query}"
                );
            }
        }
    }
}

/// Ordered by aggregates alone with a limit (the groups that cannot be among the first are
/// passed over before their keys are read): the rows equal the full sort's, `offset` rows
/// skipped and cut to `limit`, among many groups of equal counts, with and without `having`
/// (which the passing over must not change), however the lines are cut into chunks and the
/// chunks merged.
#[test]
fn top_groups_by_aggregates_equal_the_full_sort_cut() {
    let lines = many_group_lines(0x2545_f491_4f6c_dd1d, 4000);
    let shapes = [
        "select k, count(*) as c group by k order by c desc",
        "select k, count(*) as c group by k order by c",
        "select k, count(*) as c, max(v) as m group by k order by c desc, m",
        "select k, count(*) as c group by k having k <> 'key3' and count(*) < 4 \
         order by c desc",
        "select n, count(*) filter (where st >= 500) as e group by n order by e desc",
        "select count(*) as c, min(s) group by s, st order by count(*) desc, min(v)",
        "select n, count(*) filter (where st >= 500) * 100 / count(*) as err group by n \
         order by err desc",
        "select k, count(*) as c group by k having k <> 'key3' \
         order by case when count(*) > 2 then 1 else 0 end desc, -max(v)",
        "select k, max(v) group by k order by coalesce(max(v), 0) - count(*), min(s) desc",
    ];
    // A sort key that reads the group's key is not one of aggregates alone: the rows come
    // sorted by the count, then the key (each `k` here is in lower case; a missing one is
    // written `null`, which sorts last as the text `null` does among these keys).
    let query = "select k, count(*) as c group by k order by c desc, lower(k)";
    let plan = Plan::compile(query).unwrap_or_else(|e| panic!("{query}: {e}"));
    let out = finished(&plan, lazy_accumulator(&plan, &lines));
    let rows: Vec<(i64, &str)> = out
        .split(';')
        .map(|r| {
            let (k, c) = r.split_once('|').unwrap_or_else(|| panic!("row {r}"));
            (-c.parse::<i64>().unwrap_or_else(|e| panic!("{r}: {e}")), k)
        })
        .collect();
    assert!(rows.len() >= 40, "{} groups", rows.len());
    assert!(rows.is_sorted(), "{query}: {out}");
    for full_query in shapes {
        let full_plan = Plan::compile(full_query).unwrap_or_else(|e| panic!("{full_query}: {e}"));
        let full = finished(&full_plan, lazy_accumulator(&full_plan, &lines));
        let rows: Vec<&str> = full.split(';').filter(|r| !r.is_empty()).collect();
        assert!(rows.len() >= 40, "{full_query}: {} groups", rows.len());
        for (limit, offset) in [(1, 0), (3, 0), (10, 5), (0, 2), (50, 0), (3, rows.len())] {
            let query = format!("{full_query} limit {limit} offset {offset}");
            let plan = Plan::compile(&query).unwrap_or_else(|e| panic!("{query}: {e}"));
            let cut = rows
                .iter()
                .skip(offset)
                .take(limit)
                .copied()
                .collect::<Vec<_>>()
                .join(";");
            assert_eq!(
                finished(&plan, lazy_accumulator(&plan, &lines)),
                cut,
                "{query}"
            );
            for (size, seal) in [(1, true), (97, false), (500, true)] {
                let chunks = lazy_chunks(&plan, &lines, size, seal);
                assert_eq!(
                    finished(&plan, merged_one_by_one(&chunks)),
                    cut,
                    "merged one by one, chunks of {size}: {query}"
                );
                let mut batched = crate::Accumulator::default();
                let mut rest = chunks.into_iter().peekable();
                while rest.peek().is_some() {
                    batched.merge_all(rest.by_ref().take(4).collect());
                }
                assert_eq!(
                    finished(&plan, batched),
                    cut,
                    "merged 4 at a time, chunks of {size}: {query}"
                );
            }
        }
    }
}

/// Top-level values read where the scanner noted them (`Doc::top_scalar`: strings with and
/// without escapes, numbers of every spelling, `true`, `false`, `null`; arrays and objects
/// left to the node; absent keys; duplicate keys, the first winning) as group keys, function
/// arguments, comparisons and output give what the searched keys and serde's values give.
#[test]
fn top_level_scalars_read_where_noted_agree_with_both_documents() {
    let lines = [
        r#"{"p":"/api/orders/1","s":500,"x":"a"}"#,
        r#"{"p":"/api/orders","s":200,"x":"\u0061"}"#,
        r#"{"p":"\/api\/users\/7","s":503.0,"x":"\"q\" é"}"#,
        r#"{"p":"/api/orders","s":500.00,"x":true}"#,
        r#"{"p":null,"s":-0,"x":false}"#,
        r#"{"p":["/api/a"],"s":"500","x":{"y":1}}"#,
        r#"{"p":{"q":"/api/b"},"x":[1,2]}"#,
        r#"{"s":404,"x":null}"#,
        r#"{"x":"/api/zz","p":"/health","s":200}"#,
        r#"{"p":"/api/orders","s":500,"x":1.50}"#,
    ];
    let queries = [
        "select p, count(*) filter (where s >= 500) * 100 / count(*) as err group by p \
         order by err desc, p limit 10",
        "select extract(p, '^/api/([a-z]+)') as r, count(*) group by r",
        "select x, count(*), min(s), max(p) group by x",
        "select p, s, x, length(x), lower(p) || '!' as l where x is not null or s > 300",
        "select count(*) where p = '/api/orders' and s = 500",
        "select s, count(*) group by s",
    ];
    for q in queries {
        crate::tests::run(q, &lines);
    }
    // Duplicate keys: serde_json keeps the last, so only the two lazy roots are compared
    // (the first occurrence wins for both).
    let dups = [
        r#"{"p":"/a","p":"/b","s":1,"s":2}"#,
        r#"{"p":7,"s":"x","p":"/c"}"#,
    ];
    let plan = Plan::compile("select p, s, count(*) group by p, s").expect("plan");
    assert_eq!(
        crate::tests::run_lazy(&plan, &dups, None),
        "7|x|1;/a|1|1",
        "first occurrence, keys noted"
    );
    let mut parser = ndq_scan::Parser::new(ndq_scan::Scanner::detect());
    let mut w = plan.worker();
    let mut acc = plan.accumulator();
    for line in dups {
        let doc = parser.parse(line.as_bytes()).expect("parse");
        w.accumulate(doc.root(), &mut acc);
    }
    assert_eq!(
        finished(&plan, acc),
        "7|x|1;/a|1|1",
        "first occurrence, keys searched"
    );
}
