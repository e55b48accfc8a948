//! `ndq bench` end to end: a real benchmark on the committed sample with two runs,
//! in every output format, checked for shape and for the counts it reports (never for
//! timings); and a bad cases file, which must be reported by line before anything runs.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sample() -> PathBuf {
    root().join("testdata/sample.ndjson")
}

fn cases() -> PathBuf {
    root().join("testdata/cases.txt")
}

/// Run `ndq bench ARGS...`.
fn bench(args: &[&str]) -> Output {
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_ndq"))
        .arg("bench")
        .args(args)
        .output()
        .expect("ndq runs")
}

/// One run of both engines of the cases `cases` over the lines `data` (both written to a
/// fixture), with `extra` arguments.
fn bench_once(data: &str, cases: &str, extra: &[&str]) -> Output {
    let f = crate::util::Fixture::new();
    let data = f.write("data.ndjson", data);
    let cases = f.write("cases.txt", cases);
    let mut args = vec![
        "--cases",
        path_arg(&cases),
        "--runs",
        "1",
        "--engine",
        "all",
    ];
    args.extend_from_slice(extra);
    args.push(path_arg(&data));
    bench(&args)
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("utf-8 output")
}

/// Fail with the command's whole output when its status is not `code`.
#[track_caller]
fn assert_exit(out: &Output, code: i32, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}\n--- stdout\n```\n{}```\n--- stderr\n```\n{}```",
        text(&out.stdout),
        text(&out.stderr)
    );
}

fn path_arg(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// What the sample holds, computed here with serde_json (independently of ndq).
struct Expected {
    events: u64,
    elapsed_over_200: u64,
    customers: u64,
}

fn expected() -> Expected {
    let data = std::fs::read_to_string(sample()).expect("sample");
    let mut e = Expected {
        events: 0,
        elapsed_over_200: 0,
        customers: 0,
    };
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        e.events += 1;
        if obj
            .get("Elapsed")
            .and_then(Value::as_f64)
            .is_some_and(|x| x > 200.0)
        {
            e.elapsed_over_200 += 1;
        }
        if obj
            .get("Message")
            .and_then(Value::as_str)
            .is_some_and(|m| m.contains("/api/customers"))
        {
            e.customers += 1;
        }
    }
    e
}

/// The queries of the cases file, in order.
fn case_queries() -> Vec<String> {
    std::fs::read_to_string(cases())
        .expect("cases file")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn cases_file_has_the_reference_queries() {
    let queries = case_queries();
    assert!(queries.contains(&"select Message from stream where Elapsed > 200".to_string()));
    assert!(
        queries
            .contains(&"select Message from stream where match(Message, '/api/customers')".into())
    );
    assert!(queries.contains(&"select sum(Elapsed), count(*) from stream".into()));
    assert!(queries.iter().any(|q| q.contains("group by @l")));
    assert!(queries.iter().any(|q| q.contains("limit")));
}

#[test]
fn json_report_of_all_engines_on_the_sample() {
    let out = bench(&[
        "--cases",
        path_arg(&cases()),
        "--runs",
        "2",
        "--engine",
        "all",
        "--threads",
        "2",
        "-o",
        "json",
        path_arg(&sample()),
    ]);
    assert_exit(&out, 0, "bench --engine all -o json");
    let want = expected();
    let queries = case_queries();
    let objs: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each stdout line is a JSON object"))
        .collect();
    assert_eq!(objs.len(), queries.len(), "one object per case");
    for (i, (obj, query)) in objs.iter().zip(&queries).enumerate() {
        assert_eq!(obj["case"].as_u64(), Some(i as u64 + 1));
        assert_eq!(obj["query"].as_str(), Some(query.as_str()));
        assert_eq!(obj["runs"].as_u64(), Some(2));
        assert_eq!(obj["threads"].as_u64(), Some(2));
        // Saved reports say what produced them: the inputs as named, the cases, the version.
        assert_eq!(obj["inputs"][0].as_str(), Some(path_arg(&sample())));
        assert_eq!(obj["cases_file"].as_str(), Some(path_arg(&cases())));
        assert_eq!(obj["version"].as_str(), Some(env!("CARGO_PKG_VERSION")));
        for engine in ["lazy", "serde"] {
            let f = &obj[engine];
            assert_eq!(
                f["runs_ns"].as_array().map(Vec::len),
                Some(2),
                "{engine}: {obj}"
            );
            if query.contains("limit") {
                let n = f["events"].as_u64().expect("events");
                assert!(n > 0 && n <= want.events, "{engine}: {query}: {n}");
            } else {
                assert_eq!(f["events"].as_u64(), Some(want.events), "{engine}: {query}");
            }
            let (p, min, max) = (&f["p_ns"], &f["min_ns"], &f["max_ns"]);
            let (p, min, max) = (p.as_u64(), min.as_u64(), max.as_u64());
            assert!(min <= p && p <= max && min.is_some(), "{engine}: {obj}");
        }
        // With `limit`, a run may stop early, wherever its chunks got to: no exact counts.
        if !query.contains("limit") {
            assert_eq!(
                obj["lazy"]["hits"], obj["serde"]["hits"],
                "the engines agree on {query}"
            );
        }
        assert!(obj["speedup"].as_f64().is_some_and(|s| s > 0.0), "{obj}");
    }
    let hits = |q: &str| {
        let i = queries.iter().position(|x| x == q).expect("case present");
        objs[i]["lazy"]["hits"].as_u64()
    };
    assert_eq!(
        hits("select Message from stream where Elapsed > 200"),
        Some(want.elapsed_over_200)
    );
    assert_eq!(
        hits("select Message from stream where match(Message, '/api/customers')"),
        Some(want.customers)
    );
    assert_eq!(
        hits("select sum(Elapsed), count(*) from stream"),
        Some(want.events)
    );

    // The diagnostics: the summary first, then one line per case.
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("ndq: bench: inputs ") && lines[0].ends_with("sample.ndjson"),
        "{err}"
    );
    assert_eq!(
        lines[1],
        format!("ndq: bench: events      {}", want.events),
        "{err}"
    );
    assert!(lines[2].starts_with("ndq: bench: value data  "), "{err}");
    assert!(
        lines[4].starts_with("ndq: bench: runs        2 per case"),
        "{err}"
    );
    assert!(
        lines[5].starts_with("ndq: bench: engine      lazy and serde; scanner "),
        "{err}"
    );
    for (i, query) in queries.iter().enumerate() {
        let prefix = format!("ndq: bench: case {}/{}: lazy p90 ", i + 1, queries.len());
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&prefix) && l.ends_with(query.as_str())),
            "no progress line for case {}\n{err}",
            i + 1
        );
    }
    assert!(!err.contains("disagree"), "{err}");
}

#[test]
fn table_and_markdown_reports() {
    let queries = case_queries();
    for (format, rule) in [("table", "|------|"), ("md", "|-----:|")] {
        let out = bench(&[
            "--cases",
            path_arg(&cases()),
            "--runs",
            "2",
            "--percentile",
            "50",
            "-o",
            format,
            path_arg(&sample()),
        ]);
        assert_exit(&out, 0, format);
        let stdout = text(&out.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 2 + queries.len(), "{stdout}");
        let header: Vec<&str> = lines[0].split('|').map(str::trim).collect();
        assert_eq!(
            header,
            [
                "",
                "case",
                "p50 (+/-)",
                "tp (events)",
                "tp (hits)",
                "hits",
                "tp (data)",
                "query",
                ""
            ],
            "{stdout}"
        );
        assert!(lines[1].starts_with(rule), "{stdout}");
        let width = lines[0].chars().count();
        for (row, query) in lines[2..].iter().zip(&queries) {
            assert_eq!(row.chars().count(), width, "aligned\n{stdout}");
            assert!(row.contains(query.as_str()), "{stdout}");
            let cells: Vec<&str> = row.split(" | ").map(str::trim).collect();
            assert!(
                cells[2].ends_with("/s") && cells[5].ends_with("B/s"),
                "{stdout}"
            );
        }
    }
}

/// Run `ndq bench` over the sample with a cases file (`cases.txt`) that holds `cases`.
fn bench_cases(cases: &str) -> Output {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cases.txt");
    std::fs::write(&path, cases).expect("write cases");
    bench(&["--cases", path_arg(&path), path_arg(&sample())])
}

#[test]
fn bad_cases_are_reported_by_line_before_running() {
    let out = bench_cases(
        "# comment\nselect Message\n\nselect Message frm stream\nselect count(*)\nselect x where\n",
    );
    assert_exit(&out, 2, "a bad query is a usage error");
    assert_eq!(text(&out.stdout), "");
    let err = text(&out.stderr);
    // Each bad query: `file:line: what was expected`, then the query with a caret.
    let lines: Vec<&str> = err.lines().collect();
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with("ndq: error: ") && l.contains(prefix))
            .unwrap_or_else(|| panic!("no {prefix} in\n{err}"))
    };
    let (four, six) = (at("cases.txt:4: "), at("cases.txt:6: "));
    assert!(four < six, "in file order\n{err}");
    assert!(lines[four].contains("frm"), "{err}");
    assert!(
        lines[four + 1].contains("select Message frm stream"),
        "{err}"
    );
    assert!(lines[four + 2].trim_start().starts_with('^'), "{err}");
    assert!(!err.contains("cases.txt:2:"), "{err}");
    assert!(!err.contains("ndq: bench: inputs"), "nothing ran\n{err}");
}

/// `--cases -` reads the queries from standard input (the inputs cannot be read from it).
#[test]
fn cases_can_come_from_standard_input() {
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_ndq"))
        .args(["bench", "--runs", "1", "-o", "json", "--cases", "-"])
        .arg(path_arg(&sample()))
        .write_stdin("# from a pipe\nselect count(*) where Elapsed > 200\n")
        .output()
        .expect("ndq runs");
    assert_exit(&out, 0, "cases from standard input");
    let rows: Vec<&str> = text(&out.stdout).lines().collect();
    assert_eq!(rows.len(), 1, "{}", text(&out.stdout));
    assert!(rows[0].contains("\"hits\":41"), "{}", rows[0]);
}

/// A query error's column is the column in the cases file, where an editor jumps to.
#[test]
fn a_bad_cases_column_counts_the_lines_indent() {
    let out = bench_cases("select count(*)\n   select count(*) wher\n");
    assert_exit(&out, 2, "a bad query is a usage error");
    let err = text(&out.stderr);
    assert!(
        err.contains("cases.txt:2: ") && err.contains("(column 20)"),
        "{err}"
    );
}

#[test]
fn a_case_without_its_keyword_is_shown_the_query_it_meant() {
    let out = bench_cases("select count(*)\nElapsed > 200\nselect x where\n");
    assert_exit(&out, 2, "a bad query is a usage error");
    let err = text(&out.stderr);
    let hints: Vec<&str> = err.lines().filter(|l| l.contains("did you mean")).collect();
    assert_eq!(hints, ["did you mean: where Elapsed > 200"], "{err}");
    let (two, fix) = (
        err.find("cases.txt:2: ").unwrap(),
        err.find("did you mean").unwrap(),
    );
    assert!(
        two < fix && fix < err.find("cases.txt:3: ").unwrap(),
        "{err}"
    );
}

/// `NDQ_SCANNER` pins the scanner as it does for queries, `--scanner` over it, and a name
/// it does not know is a usage error.
#[test]
fn the_scanner_comes_from_the_flag_then_the_environment() {
    let run = |env: &str, extra: &[&str]| {
        let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_ndq"));
        cmd.env("NDQ_SCANNER", env)
            .args(["bench", "--runs", "1", "--cases", path_arg(&cases())])
            .args(extra)
            .arg(path_arg(&sample()));
        cmd.output().expect("ndq runs")
    };
    let scalar = run("scalar", &[]);
    assert_exit(&scalar, 0, "NDQ_SCANNER=scalar");
    assert!(
        text(&scalar.stderr).contains("scanner scalar;"),
        "{}",
        text(&scalar.stderr)
    );
    // The flag wins: the variable is not even read.
    let flag = run("sse9", &["--scanner", "scalar"]);
    assert_exit(&flag, 0, "--scanner over NDQ_SCANNER");
    assert!(
        text(&flag.stderr).contains("scanner scalar;"),
        "{}",
        text(&flag.stderr)
    );
    let bad = run("sse9", &[]);
    assert_exit(&bad, 2, "an unknown scanner");
    assert!(text(&bad.stderr).contains("NDQ_SCANNER: unknown scanner 'sse9'"));
}

#[test]
fn bench_usage_errors_exit_2() {
    let out = bench_cases("# nothing here\n\n");
    assert_exit(&out, 2, "a cases file without queries");
    assert!(
        text(&out.stderr).contains("no queries"),
        "{}",
        text(&out.stderr)
    );

    for args in [
        &[
            "--cases",
            path_arg(&cases()),
            "--percentile",
            "0",
            path_arg(&sample()),
        ][..],
        &[
            "--cases",
            path_arg(&cases()),
            "--runs",
            "0",
            path_arg(&sample()),
        ],
        &["--cases", path_arg(&cases())],
    ] {
        let out = bench(args);
        assert_exit(&out, 2, &format!("{args:?}"));
        assert_eq!(text(&out.stdout), "");
    }

    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("missing.txt");
    let out = bench(&["--cases", path_arg(&missing), path_arg(&sample())]);
    assert_exit(&out, 1, "an unreadable cases file is a runtime error");
    assert!(
        text(&out.stderr).starts_with("ndq: error: "),
        "{}",
        text(&out.stderr)
    );
}

/// A bad line that the prefilter rules out unread is not known to the lazy engine as bad;
/// the events of a run over the whole input are the first pass's (which reads every line),
/// so the engines agree and events/s is not inflated.
#[test]
fn events_are_exact_when_the_prefilter_skips_a_bad_line() {
    let out = bench_once(
        "{\"x\":1}\n[1,2]\n{\"x\":5}\n{\"a\":}\n",
        "select a where x > 1\nselect count(*)\n",
        &["-o", "json"],
    );
    assert_exit(&out, 0, "bench over a file with bad lines");
    let err = text(&out.stderr);
    assert!(!err.contains("disagree"), "{err}");
    for line in text(&out.stdout).lines() {
        let obj: Value = serde_json::from_str(line).expect("a JSON object per case");
        let events: Vec<&Value> = ["lazy", "serde"]
            .iter()
            .map(|e| &obj[*e]["events"])
            .collect();
        assert_eq!(events, [&Value::from(2), &Value::from(2)], "{line}");
    }
}

/// A case with a `limit` stops early, so the engines' counts are not compared: lines the lazy
/// engine's prefilter skipped unread (malformed ones here) are among the lines it went past,
/// and no "engines disagree" warning follows.
#[test]
fn a_limit_case_with_skipped_bad_lines_gives_no_disagreement() {
    let out = bench_once(
        &"{\"Elapsed\":300}\n{\"a\":],\"Elapsed\":10}\n".repeat(10),
        "select Elapsed where Elapsed > 200 limit 5\n",
        &[],
    );
    assert_exit(&out, 0, "bench of a limit case over bad lines");
    let err = text(&out.stderr);
    assert!(!err.contains("disagree"), "{err}");
}

/// A cases file that is not UTF-8 is named with the line where it goes wrong.
#[test]
fn a_cases_file_not_utf8_names_its_line() {
    let f = crate::util::Fixture::new();
    let data = f.write("d.ndjson", "{\"x\":1}\n");
    let cases = f.write("c.txt", b"select count(*)\nselect x where s = '\xff'\n");
    let out = bench(&["--cases", path_arg(&cases), "--runs", "1", path_arg(&data)]);
    assert_exit(&out, 2, "a cases file with invalid UTF-8");
    assert!(
        text(&out.stderr).contains("c.txt:2: not valid UTF-8"),
        "{}",
        text(&out.stderr)
    );
}

/// A stderr that cannot be written (a full disk) loses the summary and the progress, not the
/// report on stdout nor the exit status; so for a query's error.
#[test]
fn a_full_stderr_loses_only_the_diagnostics() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full");
        return;
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ndq"))
        .args(["bench", "--runs", "1", "--cases"])
        .arg(cases())
        .arg(sample())
        .stderr(full.try_clone().unwrap())
        .output()
        .expect("ndq runs");
    assert_exit(&out, 0, "bench with a full stderr");
    assert_eq!(text(&out.stdout).lines().count(), 2 + case_queries().len());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ndq"))
        .args(["select x y"])
        .arg(sample())
        .stderr(full)
        .output()
        .expect("ndq runs");
    assert_exit(&out, 2, "a query error with a full stderr");
}
