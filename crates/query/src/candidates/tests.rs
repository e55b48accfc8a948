//! The chunk search against the per-line reference (`Prefilter::may_match`).

use proptest::prelude::*;

use crate::plan::Plan;
use crate::prefilter::Prefilter;

/// The starts of the lines of `data` and the lines themselves (no `\n`, no final `\r`).
fn lines_of(data: &[u8]) -> Vec<(usize, &[u8])> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < data.len() {
        let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i);
        let mut line = &data[start..end];
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        out.push((start, line));
        start = end + 1;
    }
    out
}

/// The candidate line starts of a whole-chunk search; each range is checked to be a whole
/// line, after the one before.
fn searched(filter: &Prefilter, data: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut pos = 0;
    for line in filter.candidates(data) {
        assert!(line.start >= pos, "went back from {pos} to {}", line.start);
        assert!(
            line.start == 0 || data[line.start - 1] == b'\n',
            "{line:?} starts mid-line"
        );
        let end = memchr::memchr(b'\n', &data[line.start..]).map_or(data.len(), |i| line.start + i);
        assert_eq!(line.end, end, "{line:?} is not the whole line");
        found.push(line.start);
        pos = line.end + 1;
    }
    found
}

/// The line starts the per-line reference keeps.
fn reference(pre: &Prefilter, data: &[u8]) -> Vec<usize> {
    lines_of(data)
        .into_iter()
        .filter(|(_, line)| pre.may_match(line))
        .map(|(start, _)| start)
        .collect()
}

const QUERIES: &[&str] = &[
    "where match(Message, '/api/customers')",
    "where @l in ('Error', 'Fatal', 'café')",
    "where contains(Message, 'GET') and contains(Message, 'é')",
    "where (contains(Message, 'a') and @l = 'b') or endswith(Message, '😀')",
    "where contains(Message, 'say \"hi\"')",
    r"where contains(Message, '\')",
    "where contains(Message, '\n')",
    "where Message like '%api%customers%'",
    "where Elapsed > 200",
    "where Elapsed <= 200 and contains(Message, 'GET')",
    "where Elapsed = 250 or @l = 'Error'",
    "where Elapsed < 200 or Elapsed = 250",
    // A member fact's pattern (`Elapsed"`) listed before a literal that starts at the same
    // byte wherever the literal is followed by the rest of the key and a quote.
    "where Elapsed > 200 or contains(Message, 'Elapsed')",
    "where Elapsed = 5 or startswith(@l, 'Elap')",
];

fn filters() -> Vec<Plan> {
    QUERIES
        .iter()
        .map(|q| Plan::compile(q).unwrap_or_else(|e| panic!("{q}: {e}")))
        .collect()
}

/// Lines mixing literals, escapes of their characters and unrelated escapes.
const PIECES: &[&str] = &[
    "/api/customers",
    r"\/api\/customers",
    r"\u002fapi/customers",
    "u002f",
    "/api/orders",
    "GET",
    r"\u0047ET",
    "Error",
    r"\u0045rror",
    "Fatal",
    "café",
    r"caf\u00e9",
    r"caf\u00E9",
    "a",
    "b",
    r"\ud83d\ude00",
    "😀",
    r#"say \"hi\""#,
    r#"\""#,
    r"\\",
    r"\n",
    r"\t",
    r"\u2713",
    " ",
    "x",
    // Members between two strings of the line.
    r#"","Elapsed":250,"m":""#,
    r#"","Elapsed" : 150 ,"m":""#,
    r#"","Elapsed":2e3,"m":""#,
    r#"","Elaps\u0065d":300,"m":""#,
    r#"","n":{"Elapsed":201},"m":""#,
    "Elapsed",
];

fn line(pieces: &[&str]) -> String {
    format!(
        r#"{{"Message":"{}","@l":"{}"}}"#,
        pieces.concat(),
        pieces.first().copied().unwrap_or("")
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Over whole chunks the search keeps exactly the lines the per-line test keeps.
    #[test]
    fn search_keeps_the_lines_the_reference_keeps(
        lines in prop::collection::vec(
            (prop::collection::vec(prop::sample::select(PIECES), 0..6), 0..4u8),
            0..24,
        ),
        last_newline: bool,
    ) {
        let mut data = Vec::new();
        for (pieces, end) in &lines {
            data.extend_from_slice(line(pieces).as_bytes());
            data.extend_from_slice(match end {
                0 => "\n",
                1 => "\n\n",
                2 => "\n  \t\n",
                _ => "\n",
            }.as_bytes());
        }
        if !last_newline && data.ends_with(b"\n") {
            data.pop();
        }
        for plan in filters() {
            let pre = plan.prefilter().expect("a prefilter");
            prop_assert_eq!(searched(pre, &data), reference(pre, &data), "{}", pre);
        }
    }
}

#[test]
fn crlf_lines_and_edges_of_the_chunk() {
    let data = b"{\"Message\":\"\\/api\\/customers\"}\r\n{\"Message\":\"no\"}\r\n\
        {\"Message\":\"/api/customers\"}";
    let starts: Vec<usize> = lines_of(data).iter().map(|(s, _)| *s).collect();
    let [first, second, third] = starts[..] else {
        panic!("{starts:?}")
    };
    let plan = Plan::compile("where match(Message, '/api/customers')").unwrap();
    let pre = plan.prefilter().unwrap();
    assert_eq!(searched(pre, data), [first, third]);
    assert_eq!(reference(pre, data), [first, third]);
    assert_eq!(searched(pre, &data[second..]), [third - second]);
    assert_eq!(searched(pre, &data[..second]), [first]);
    assert_eq!(searched(pre, &data[..third]), [first]);
    assert_eq!(searched(pre, b""), Vec::<usize>::new());
}

#[test]
fn a_backslash_ending_a_line_leaves_the_next_lines_escapes_found() {
    // Malformed first lines end in a backslash (one, or a pair and a lone one); the next line
    // spells the literal only with escapes, from its first byte. The walk over the chunk pairs
    // a final backslash with the newline and must still meet the next line's escapes.
    let data = b"{\"Message\":\"x\\\n\\/api\\/customers\n{\"a\":\"\\\\\\\n\\u002fapi/customers\n{\"a\":1}\n";
    let starts: Vec<usize> = lines_of(data).iter().map(|(s, _)| *s).collect();
    let plan = Plan::compile("where match(Message, '/api/customers')").unwrap();
    let pre = plan.prefilter().unwrap();
    assert_eq!(reference(pre, data), [starts[1], starts[3]]);
    assert_eq!(searched(pre, data), reference(pre, data));
}

#[test]
fn formula_lines_without_every_literal_are_passed_over() {
    let plan = Plan::compile("where contains(Message, 'GET') and contains(Message, 'é')").unwrap();
    let pre = plan.prefilter().unwrap();
    let data = "{\"Message\":\"GET x\"}\n{\"Message\":\"é\"}\n{\"Message\":\"GET caf\\u00e9\"}\n";
    assert_eq!(searched(pre, data.as_bytes()), [data.rfind("{\"").unwrap()]);
}

#[test]
fn literals_only_spelled_with_escapes_are_found_by_their_escapes() {
    let plan = Plan::compile(r#"where contains(Message, '"')"#).unwrap();
    let pre = plan.prefilter().unwrap();
    assert_eq!(pre.raw_patterns().count(), 0);
    let data = b"{\"Message\":\"plain\"}\n{\"Message\":\"\\\"q\\\"\"}\n";
    assert_eq!(searched(pre, data), [20]);
}

#[test]
fn escape_parity_in_runs_of_backslashes() {
    // After an even run of backslashes, `\/` and `\u002f` are escapes of `/`; after an odd
    // run, their backslash is the escaped character of the one before it, and the `/` or
    // `u002f` after it is text.
    for (query, head, tail) in [
        ("where contains(Message, 'a/b')", "a", r"\/b"),
        (
            "where match(Message, '/api/customers')",
            "",
            r"\u002fapi/customers",
        ),
    ] {
        let mut data = Vec::new();
        for run in 0..7 {
            data.extend_from_slice(format!("{{\"Message\":\"{head}").as_bytes());
            data.extend(std::iter::repeat_n(b'\\', run));
            data.extend_from_slice(format!("{tail}\"}}\n").as_bytes());
        }
        let plan = Plan::compile(query).unwrap();
        let pre = plan.prefilter().unwrap();
        let even: Vec<usize> = lines_of(&data).iter().step_by(2).map(|(s, _)| *s).collect();
        assert_eq!(reference(pre, &data), even, "{query}");
        assert_eq!(searched(pre, &data), even, "{query}");
    }
    // A long run, searched for a literal holding a backslash: every byte of it starts a
    // pattern occurrence, half of them escapes.
    let mut data = b"{\"Message\":\"x\"}\n{\"Message\":\"".to_vec();
    data.extend(std::iter::repeat_n(b'\\', 20_000));
    data.extend_from_slice(b"\"}\n{\"Message\":\"y\"}\n");
    let plan = Plan::compile(r"where contains(Message, '\')").unwrap();
    let pre = plan.prefilter().unwrap();
    assert_eq!(reference(pre, &data), [16]);
    assert_eq!(searched(pre, &data), [16]);
}
