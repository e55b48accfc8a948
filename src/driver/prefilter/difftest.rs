//! Prefilter on against off, through the whole driver: every query with a `where` found in the
//! project's test suites (the query crate's table and prefilter tests, the integration tests,
//! the golden cases, `testdata/cases.txt`) plus a list covering each rule, over the sample and
//! over the same events spelled with every kind of escape, with CRLF and blank lines, a last
//! line without newline, one line per chunk, odd chunk sizes and one chunk for everything,
//! 1 and 2 threads. Output bytes and hits must be identical; the lines scanned plus the lines
//! ruled out must be every line.

use std::path::{Path, PathBuf};

use ndq_query::Plan;
use proptest::prelude::*;
use serde_json::Value as J;

use crate::driver::{Engine, Format, Inputs, RunOptions, Stats, run};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Queries covering each rule of the derivation, and/or nesting, `(?i)` and Unicode.
const OWN: &[&str] = &[
    "select Message where match(Message, '/api/customers')",
    "select Message from stream where match(Message, '/api/customers')",
    "where match(Message, '(?i)/API/CUSTOMERS')",
    "select count(*) where match(Message, '(?i)café|✓')",
    "select Message where match(Message, 'retry=\\d; caf')",
    "select @t where match(Message, '^HTTP (GET|POST) /api/(orders|customers)')",
    "select Message where match(Message, '(?i)kelvin|K')",
    "where match(Properties.User.Name, '\"Z\"')",
    "select Properties.User.Name where Properties.User.Name = 'Zoë \"Z\" Smith'",
    "select count(*) where Properties.User.Name = 'José Álvarez'",
    "select Message where contains(Message, 'café ✓')",
    "select Message where contains(Message, '\n\tretry')",
    "select Message where contains(Message, '/api/orders/1')",
    "select RequestPath where startswith(RequestPath, '/api/customers/')",
    "select RequestPath where endswith(Message, 'ms')",
    "select Message where Message like '%/api/%responded 500%'",
    "select Message where Message like 'HTTP GET /api/customers/_%'",
    "select @l, count(*) where @l in ('Error', 'Fatal') group by @l",
    "select @l, count(*) where @l = 'Warning' or @l = 'Debug' group by @l",
    "where Headers['User-Agent'] = 'curl/8.5.0'",
    "where Properties.Headers['User-Agent'] = 'curl/8.5.0'",
    "select Properties.Tags where Properties.Tags[0] = 'beta'",
    "select count(*) where contains(Message, 'customers') and (@l = 'Error' or StatusCode >= 500)",
    "select Message where (contains(Message, 'orders') or contains(Message, 'invoices')) and not @l = 'Debug'",
    "select Message, Elapsed where contains(Message, '/api/customers') order by Elapsed desc limit 3",
    "select Message where contains(Message, '/api/customers') limit 2",
    "select sum(Elapsed), count(*) where match(Message, 'customers')",
    "select count_distinct(RequestPath) where startswith(RequestPath, '/api/c')",
    "where @mt = 'HTTP {RequestMethod} {RequestPath} responded {StatusCode} in {Elapsed:0.0000} ms'",
    "select count(*) where a = 'x/y' or b = 'é'",
    "select * where contains(Message, '\\') or contains(Message, '\"')",
    "select count(*) where contains(Message, 'é') and contains(Message, '/')",
    "select count(*) where Elapsed > 200",
    "select Message, Elapsed where Elapsed >= 1000 order by Elapsed desc limit 5",
    "select sum(Elapsed) where 100 < Elapsed and Elapsed <= 200",
    "select count(*) where StatusCode = 500 or StatusCode <> 200",
    "select count(*) where Properties.User.Id = 214",
    "select Message where Properties.Cart[0].Qty >= 5 and contains(Message, 'orders')",
    "select count(*) where ThreadId < 10 or @l = 'Error'",
    "select @l, count(*) where StatusCode in (500, 503, '500') group by @l",
    // Conditions and text functions around the conditions that give literals: nothing more
    // is derived from them.
    "select Message where contains(Message, 'customers') and case when StatusCode >= 500 then true when @l = 'Debug' then null else Elapsed > 100 end",
    "select count(*) where contains(Message, '/api/') and case @l when 'Error' then true when 'Warning' then StatusCode = 429 end",
    "select Message where startswith(RequestPath, '/api/c') and if(Elapsed > 200, true, @l = 'Error')",
    "select RequestMethod || ' ' || RequestPath where RequestMethod || ' ' || RequestPath = 'GET /api/orders' or contains(Message, 'caf')",
    "select extract(Message, 'in (\\d+)\\.') where contains(Message, 'responded') and extract(Message, 'responded (\\d+)') = '500'",
    "select Message where match(Message, 'customers') and split_part(RequestPath, '/', 3) = 'customers' and trim(lower(@l)) <> 'debug'",
    "select level(@l), count(*) where contains(Message, 'é') or severity(@l) >= 4 and contains(Message, 'orders') group by level(@l)",
    "select substr(Message, 6, 3) where Message like 'HTTP %' and strpos(Message, '/api/customers') > 0 and left(RequestPath, 4) = '/api'",
    "select count(*) where 'beta' in Properties.Tags",
    "select Properties.Tags where 'beta' not in Properties.Tags",
    "select @t where Properties.Tags[?] = 'beta' and 'mobile' in Properties.Tags",
    "select Properties.Tags where Properties.Tags[*] = 'beta'",
    "select count(*) where Properties.Tags[?] like 'eu-%' or Properties.Tags[*] like 'b%'",
    "select count(*) where Properties.Tags[?] in ('canary', 'internal')",
    "select Properties.Cart where Properties.Cart[?].Qty > 3",
    "select count(*) where 3 < Properties.Cart[?].Qty and Properties.Cart[*].Price >= 10",
    "select count(*) where Properties.Cart[?].Sku = 'SKU-35597'",
    "select count(*) where Properties.User.Roles[?] = 'writer' or Properties.Cart[*].Qty is not null",
    "select RequestPath, count(*) filter (where StatusCode >= 500) * 100 / count(*) as err where RequestPath like '/api/%' group by RequestPath order by err desc limit 10",
    "select count_if(Properties.Tags[?] = 'beta'), sum(Elapsed) filter (where 'beta' in Properties.Tags) where Elapsed > 100",
];

/// The text of the Rust string literals in `src` (normal and raw; char literals and line
/// comments skipped). Good enough for the project's own test files.
fn rust_strings(src: &str) -> Vec<String> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
            }
            b'\'' => {
                // A char literal ('x', '\n', '\u{1}') or a lifetime ('a).
                if b.get(i + 1) == Some(&b'\\') {
                    i = memchr::memchr(b'\'', &b[i + 2..]).map_or(b.len(), |n| i + 3 + n);
                } else if let Some(c) = src[i + 1..].chars().next()
                    && src[i + 1 + c.len_utf8()..].starts_with('\'')
                {
                    i += 2 + c.len_utf8();
                } else {
                    i += 1;
                }
            }
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0
                    || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
                    || b[i - 1] == b'b') =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                let open = i + 1 + hashes;
                if b.get(open) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                match src[open + 1..].find(&close) {
                    Some(n) => {
                        out.push(src[open + 1..open + 1 + n].to_owned());
                        i = open + 1 + n + close.len();
                    }
                    None => break,
                }
            }
            b'"' => {
                let mut s = String::new();
                let mut chars = src[i + 1..].char_indices();
                let mut end = b.len();
                while let Some((n, c)) = chars.next() {
                    match c {
                        '"' => {
                            end = i + 1 + n + 1;
                            break;
                        }
                        '\\' => match chars.next().map(|(_, e)| e) {
                            Some('n') => s.push('\n'),
                            Some('t') => s.push('\t'),
                            Some('r') => s.push('\r'),
                            Some('0') => s.push('\0'),
                            Some('u') => {
                                let hex: String = chars
                                    .by_ref()
                                    .map(|(_, c)| c)
                                    .skip(1)
                                    .take_while(|&c| c != '}')
                                    .collect();
                                if let Some(c) =
                                    u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)
                                {
                                    s.push(c);
                                }
                            }
                            Some('\n') => {
                                // A continuation: skip the next line's leading whitespace.
                                let rest = chars.as_str();
                                let skip = rest.len() - rest.trim_start().len();
                                for _ in rest[..skip].chars() {
                                    chars.next();
                                }
                            }
                            Some(other) => s.push(other),
                            None => {}
                        },
                        c => s.push(c),
                    }
                }
                out.push(s);
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Rust sources whose string literals hold queries and JSON lines.
const SOURCES: &[&str] = &[
    "crates/query/src/tests.rs",
    "crates/query/src/tests/text.rs",
    "crates/query/src/prefilter/tests.rs",
    "tests/cli.rs",
    "tests/golden.rs",
    "crates/query/src/candidates/tests.rs",
];

/// Every query with a `where` that compiles and has a prefilter: the suites' and [`OWN`].
fn queries() -> Vec<(String, Plan)> {
    every_where()
        .into_iter()
        .filter(|(_, plan)| plan.prefilter().is_some())
        .collect()
}

/// Every query with a `where` that compiles: the suites' and [`OWN`].
fn every_where() -> Vec<(String, Plan)> {
    let mut texts: Vec<String> = OWN.iter().map(|q| (*q).to_owned()).collect();
    for src in SOURCES {
        texts.extend(rust_strings(&read(src)));
    }
    texts.extend(read("testdata/cases.txt").lines().map(str::to_owned));
    let golden = Path::new(ROOT).join("testdata/golden");
    let mut args: Vec<PathBuf> = std::fs::read_dir(&golden)
        .expect("testdata/golden")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "args"))
        .collect();
    args.sort();
    for path in args {
        let text = std::fs::read_to_string(&path).expect("args");
        texts.extend(text.lines().map(str::to_owned));
    }
    let mut seen = std::collections::HashSet::new();
    texts
        .into_iter()
        .filter(|t| t.to_ascii_lowercase().contains("where") && seen.insert(t.clone()))
        .filter_map(|t| {
            let plan = Plan::compile(&t).ok()?;
            plan.has_where().then_some((t, plan))
        })
        .collect()
}

/// How to write the `i`-th character of a string.
type Spell = dyn Fn(usize, char, &mut String);

/// `v` as JSON with every string (keys too) re-spelled by `esc`, numbers as written.
fn respell(v: &J, esc: &Spell, out: &mut String) {
    let string = |s: &str, out: &mut String| {
        out.push('"');
        for (i, c) in s.chars().enumerate() {
            esc(i, c, out);
        }
        out.push('"');
    };
    match v {
        J::Object(m) => {
            out.push('{');
            for (n, (k, v)) in m.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                string(k, out);
                out.push(':');
                respell(v, esc, out);
            }
            out.push('}');
        }
        J::Array(a) => {
            out.push('[');
            for (n, v) in a.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                respell(v, esc, out);
            }
            out.push(']');
        }
        J::String(s) => string(s, out),
        other => out.push_str(&other.to_string()),
    }
}

/// `\uXXXX` (a surrogate pair beyond U+FFFF), hex digits in the case asked for.
fn u_escape(c: char, upper: bool, out: &mut String) {
    let mut units = [0u16; 2];
    for unit in c.encode_utf16(&mut units) {
        if upper {
            out.push_str(&format!("\\u{unit:04X}"));
        } else {
            out.push_str(&format!("\\u{unit:04x}"));
        }
    }
}

/// What JSON must escape, escaped the short way; everything else as itself.
fn plain(c: char, out: &mut String) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        c if (c as u32) < 0x20 => u_escape(c, false, out),
        c => out.push(c),
    }
}

/// The ways of spelling a line: slashes escaped; every character as `\u`; every other
/// character as `\U`-case hex; every third character escaped however it can be.
fn spellings(v: &J) -> Vec<String> {
    let ways: [&Spell; 4] = [
        &|_, c, out| match c {
            '/' => out.push_str("\\/"),
            c => plain(c, out),
        },
        &|_, c, out| u_escape(c, false, out),
        &|i, c, out| {
            if i % 2 == 1 {
                u_escape(c, true, out)
            } else {
                plain(c, out)
            }
        },
        &|i, c, out| match (i % 3, c) {
            (0, '/') => out.push_str("\\/"),
            (0, c) if c.is_ascii_alphanumeric() => u_escape(c, i % 2 == 0, out),
            (0, c) if !c.is_ascii() => u_escape(c, false, out),
            (_, c) => plain(c, out),
        },
    ];
    ways.iter()
        .map(|esc| {
            let mut out = String::new();
            respell(v, *esc, &mut out);
            out
        })
        .collect()
}

/// Hand-made lines: false escape starts, literals cut by escapes, unrelated escapes only.
const TRICKY: &[&str] = &[
    r#"{"Message":"\\u002fapi\\u002fcustomers is not /api/customers","@l":"Error"}"#,
    r#"{"Message":"HTTP GET \/api\/customers\/1 responded 200 in 1 ms","@l":"Debug"}"#,
    r#"{"Message":"HTTP GET \u002Fapi\u002fcustomers responded 500 in 2 ms","@l":"Error"}"#,
    r#"{"Message":"HTTP GET /api/orders responded 200\n\tretry=1; caf\u00e9 \u2713","@l":"Information"}"#,
    r#"{"Message":"quote \" backslash \\ both \\\"","@l":"Warning"}"#,
    r#"{"Mess\u0061ge":"\u0063af\u00E9 \u2713 /api/customers","\u0040l":"\u0045rror"}"#,
    r#"{"Message":"emoji \ud83d\ude00 and K \u212a","@l":"Fatal"}"#,
    r#"{"a":"x\/y","b":"\u00e9","x":"x/y"}"#,
    r#"{"Message":"not json"#,
    r#"["/api/customers"]"#,
    "{\"Message\":\"tab\tinside\"}",
];

/// The corpus: the sample, the suites' JSON lines, [`TRICKY`], and escaped spellings of a
/// share of them; CRLF, blank and whitespace-only lines mixed in; no final newline.
fn corpus() -> Vec<u8> {
    let sample = read("testdata/sample.ndjson");
    let mut lines: Vec<String> = sample.lines().map(str::to_owned).collect();
    for src in SOURCES {
        lines.extend(
            rust_strings(&read(src))
                .into_iter()
                .filter(|s| s.starts_with('{') && !s.contains('\n'))
                .filter(|s| matches!(serde_json::from_str::<J>(s), Ok(J::Object(_)))),
        );
    }
    lines.extend(TRICKY.iter().map(|l| (*l).to_owned()));
    let mut respelled = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        if n % 5 != 0 && n < sample.lines().count() {
            continue;
        }
        if let Ok(v @ J::Object(_)) = serde_json::from_str::<J>(line) {
            respelled.extend(spellings(&v));
        }
    }
    lines.extend(respelled);
    let mut data = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        data.extend_from_slice(line.as_bytes());
        data.extend_from_slice(match n % 13 {
            3 => b"\r\n",
            7 => b"\n\n",
            11 => b"\n \t \n",
            _ => b"\n",
        });
    }
    data.pop();
    data
}

fn options(threads: usize, chunk: Option<usize>, prefilter: bool) -> RunOptions {
    RunOptions {
        threads,
        chunk_size: chunk,
        prefilter,
        progress: false,
        ..RunOptions::default()
    }
}

fn run_one(plan: &Plan, inputs: &Inputs, opts: &RunOptions) -> (Vec<u8>, Stats) {
    let mut out = Vec::new();
    let stats = run(opts, plan, inputs, Format::Json, &mut out).expect("runs");
    (out, stats)
}

/// Prefilter on (several ways) against off: same bytes, same hits, every line accounted for.
fn compare(query: &str, plan: &Plan, inputs: &Inputs, ways: &[RunOptions]) -> u64 {
    let (want, off) = run_one(plan, inputs, &options(1, None, false));
    assert_eq!(off.skipped, 0, "{query}: prefilter off skipped lines");
    let mut skipped = 0;
    for opts in ways {
        let (got, on) = run_one(plan, inputs, opts);
        let how = format!(
            "{query} (threads {}, chunk {:?})",
            opts.threads, opts.chunk_size
        );
        if got != want {
            let (got, want) = (
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
            );
            let first = got.lines().zip(want.lines()).position(|(a, b)| a != b);
            panic!(
                "{how}: output differs ({} lines on, {} off); first different line {first:?}:\n\
                 on:  {:?}\noff: {:?}",
                got.lines().count(),
                want.lines().count(),
                first.and_then(|n| got.lines().nth(n)),
                first.and_then(|n| want.lines().nth(n)),
            );
        }
        // With a limit, how many lines the workers looked at before the stop (so the hits
        // counted) depends on timing; the output does not.
        if plan.limit().is_none() {
            assert_eq!((on.hits, on.rows), (off.hits, off.rows), "{how}");
            assert_eq!(on.lines + on.skipped, off.lines, "{how}: lines");
            assert_eq!(on.bytes, off.bytes, "{how}");
        }
        skipped = skipped.max(on.skipped);
    }
    skipped
}

#[test]
fn prefilter_on_and_off_agree_on_every_query_of_the_suites() {
    let queries = queries();
    assert!(
        queries.len() >= 60,
        "only {} queries with a prefilter collected",
        queries.len()
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("corpus.ndjson");
    std::fs::write(&path, corpus()).expect("write");
    let inputs = Inputs::open(&[path]).expect("open");
    // Default chunks, one line per chunk, odd sizes, and one chunk for the whole corpus
    // (where a query that rules out too few lines turns its prefilter off midway).
    let ways = [
        options(2, None, true),
        options(1, Some(1), true),
        options(2, Some(700), true),
        options(1, Some(1 << 30), true),
    ];
    let mut skipping = 0;
    for (query, plan) in &queries {
        if compare(query, plan, &inputs, &ways) > 0 {
            skipping += 1;
        }
    }
    // Not vacuous: nearly every query rules lines out.
    assert!(
        skipping * 10 >= queries.len() * 9,
        "only {skipping} of {} queries skipped any line",
        queries.len()
    );
}

/// The other skip behind the same switch: `where` decided on the keys it reads, before the
/// rest of the line is validated (`Parser::parse_prefix`). Every query with a `where`, most of
/// which have no literal prefilter (numeric comparisons, `not`, functions).
#[test]
fn where_decided_early_agrees_on_every_query_of_the_suites() {
    let queries = every_where();
    let without = queries
        .iter()
        .filter(|(_, p)| p.prefilter().is_none())
        .count();
    assert!(
        without >= 40,
        "only {without} queries with a where and no prefilter collected"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("corpus.ndjson");
    std::fs::write(&path, corpus()).expect("write");
    let inputs = Inputs::open(&[path]).expect("open");
    let ways = [options(2, None, true), options(1, Some(700), true)];
    for (query, plan) in &queries {
        compare(query, plan, &inputs, &ways);
    }
}

#[test]
fn strict_and_the_serde_engine_never_skip() {
    let plan = Plan::compile("select Message where match(Message, '/api/customers')").unwrap();
    let inputs = Inputs::open(&[Path::new(ROOT).join("testdata/sample.ndjson")]).unwrap();
    let (_, on) = run_one(&plan, &inputs, &options(2, None, true));
    assert!(on.skipped > 0 && on.lines < on.lines + on.skipped);
    let strict = RunOptions {
        strict: true,
        ..options(2, None, true)
    };
    let serde = RunOptions {
        engine: Engine::Serde,
        ..options(2, None, true)
    };
    for opts in [strict, serde] {
        let (_, stats) = run_one(&plan, &inputs, &opts);
        assert_eq!(stats.skipped, 0, "{opts:?}");
        assert_eq!(stats.lines, on.lines + on.skipped, "{opts:?}");
        assert_eq!(stats.hits, on.hits);
    }
}

#[test]
fn rust_strings_reads_the_literals() {
    let src = r####"let a = "x\"y\\z\n\u{e9}"; let c = '"'; let l: &'a str = r#"r "q""#;
// a "comment"
let d = "con\
    tinued"; let e = b"bytes";"####;
    assert_eq!(
        rust_strings(src),
        ["x\"y\\z\né", "r \"q\"", "continued", "bytes"]
    );
}

/// Queries for the random lines below.
const RANDOM_QUERIES: &[&str] = &[
    "where match(Message, '/api/customers')",
    "select Message where contains(Message, 'é') and @l = 'Error'",
    "select count(*) where @l in ('Error', 'Fatal') or contains(Message, '\"')",
];

const FRAGMENTS: &[&str] = &[
    "/api/customers",
    r"\/api\/customers",
    r"\u002fapi",
    "/api",
    "customers",
    "é",
    r"\u00e9",
    r"\u00C9",
    "Error",
    r"\u0045rror",
    "Fatal",
    r#"\""#,
    r"\\",
    r"\n",
    r"\u2713",
    " ",
    "x",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random lines of fragments (literal pieces, escapes, quotes), some broken, some CRLF,
    /// in tiny chunks and whole: on and off agree.
    #[test]
    fn random_lines_on_and_off_agree(
        lines in prop::collection::vec(
            (
                prop::collection::vec(prop::sample::select(FRAGMENTS), 0..5),
                prop::sample::select(&["Error", "Fatal", r"\u0045rror", "x"][..]),
                0..6u8,
            ),
            1..30,
        ),
    ) {
        let mut data = Vec::new();
        for (pieces, level, shape) in &lines {
            let line = format!(r#"{{"Message":"{}","@l":"{level}"}}"#, pieces.concat());
            match shape {
                0 => data.extend_from_slice(format!("{line}\r\n").as_bytes()),
                1 => data.extend_from_slice(format!("{line}\n\n").as_bytes()),
                // A broken line: no closing brace.
                2 => data.extend_from_slice(format!("{}\n", &line[..line.len() - 1]).as_bytes()),
                _ => data.extend_from_slice(format!("{line}\n").as_bytes()),
            }
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("r.ndjson");
        std::fs::write(&path, &data).expect("write");
        let inputs = Inputs::open(&[path]).expect("open");
        let ways = [options(2, Some(1), true), options(1, None, true), RunOptions {
            window: 64,
            ..options(2, Some(100), true)
        }];
        for query in RANDOM_QUERIES {
            let plan = Plan::compile(query).expect("compiles");
            compare(query, &plan, &inputs, &ways);
        }
    }
}
