//! `ndq keys`, `ndq completions` and `ndq man` end to end.

use serde_json::Value;

use crate::util::{Fixture, ndq, sample};

/// `ndq keys -o json` of a file, one object per path.
fn keys_of(args: &[&str]) -> Vec<serde_json::Map<String, Value>> {
    let run = ndq(&["keys", "-o", "json"]).run_args(args);
    run.ok()
        .lines()
        .map(|l| match serde_json::from_str(l) {
            Ok(Value::Object(m)) => m,
            other => panic!("not an object: {l}: {other:?}"),
        })
        .collect()
}

trait RunArgs {
    fn run_args(self, args: &[&str]) -> crate::util::Run;
}

impl RunArgs for crate::util::Ndq {
    fn run_args(self, args: &[&str]) -> crate::util::Run {
        args.iter().fold(self, |c, a| c.arg(a)).run()
    }
}

fn num(m: &serde_json::Map<String, Value>, k: &str) -> u64 {
    m[k].as_u64()
        .unwrap_or_else(|| panic!("{k} of {m:?} is not a count"))
}

/// Every path's `non_null` is what the query language counts for the same path: for a path
/// not under an array, `count(PATH)`, its lines less those where it is null; for `a[]` and
/// `a[].b`, the lines where some element (`a[i]`, `a[i].b`) is not null.
#[test]
fn keys_count_what_count_of_the_path_counts() {
    let sample = sample();
    let sample = sample.to_str().unwrap();
    let keys = keys_of(&[sample]);
    assert!(keys.len() > 20, "{keys:?}");
    let mut items = Vec::new();
    let mut want = Vec::new();
    for k in &keys {
        let path = k["path"].as_str().unwrap();
        let lines = num(k, "lines");
        let nulls = k["types"].get("null").and_then(Value::as_u64).unwrap_or(0);
        let typed: u64 = k["types"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        let non_null = num(k, "non_null");
        match path.split_once("[]") {
            None => {
                assert_eq!(typed, lines, "one type per line for {path}");
                assert_eq!(non_null, lines - nulls, "{path}");
                items.push(format!("count({path})"));
                want.push(non_null);
            }
            Some((array, rest)) => {
                assert!(!rest.contains("[]"), "no nested arrays in the sample");
                // No element is null in the sample, so every line with the path counts.
                assert_eq!(nulls, 0, "{path}");
                let max = ndq(&["-o", "raw", &format!("select max(length({array}))"), sample])
                    .run()
                    .ok()
                    .trim()
                    .parse::<usize>()
                    .unwrap();
                let any: Vec<String> = (0..max)
                    .map(|i| format!("{array}[{i}]{rest} is not null"))
                    .collect();
                items.push(format!(
                    "sum(case when {} then 1 else 0 end)",
                    any.join(" or ")
                ));
                assert_eq!(non_null, lines, "{path}");
                want.push(non_null);
            }
        }
    }
    let query = format!("select {}", items.join(", "));
    let run = ndq(&["-o", "raw", &query, sample]).run();
    let got: Vec<u64> = run
        .ok()
        .trim()
        .split('\t')
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(got, want, "{query}");
    // Every line is a JSON object, so the share of a path on every line is 1.
    let all = ndq(&["-o", "raw", "select count(*)", sample])
        .run()
        .ok()
        .trim()
        .parse::<u64>()
        .unwrap();
    for k in &keys {
        let share = k["share"].as_f64().unwrap();
        assert!(
            (share - num(k, "lines") as f64 / all as f64).abs() < 1e-4,
            "{k:?}"
        );
    }
}

/// Lines with many distinct values, nested objects and arrays, and odd keys.
fn varied(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let extra = if i % 7 == 0 {
            format!(",\"late_{}\":{}", i % 3, i)
        } else {
            String::new()
        };
        s.push_str(&format!(
            "{{\"id\":{i},\"lvl\":\"{}\",\"o\":{{\"a b\":{},\"arr\":[{}]}}{extra}}}\n",
            ["Info", "Warn", "Error"][i % 3],
            i % 11,
            (0..i % 4)
                .map(|j| j.to_string())
                .collect::<Vec<_>>()
                .join(","),
        ));
        if i % 1000 == 500 {
            s.push('\n');
        }
    }
    s
}

#[test]
fn keys_are_the_same_for_any_threads_and_chunk_size() {
    let f = Fixture::new();
    let input = f.write("v.ndjson", varied(25_000));
    let input = input.to_str().unwrap();
    let base = ndq(&["keys", "-o", "json", "--threads", "1", input]).run();
    let base = base.ok().to_string();
    for threads in ["1", "2", "3"] {
        for chunk in ["700", "65536", "10000000"] {
            let run = ndq(&[
                "keys",
                "-o",
                "json",
                "--threads",
                threads,
                "--chunk-size",
                chunk,
                input,
            ])
            .run();
            assert_eq!(
                run.ok(),
                base,
                "--threads {threads} --chunk-size {chunk}{run}"
            );
        }
    }
    // Streamed from standard input too.
    let run = ndq(&["keys", "-o", "json", "--chunk-size", "999"])
        .stdin(std::fs::read(input).unwrap())
        .run();
    assert_eq!(run.ok(), base);
    // Past 10,000 distinct values the count is an estimate, and says so.
    let id = base.lines().next().unwrap();
    assert!(id.starts_with("{\"path\":\"id\",\"types\":{\"number\":25000},\"lines\":25000,\"non_null\":25000,\"share\":1,\"distinct\":"), "{id}");
    assert!(id.contains("\"distinct_exact\":false"), "{id}");
    let estimate: serde_json::Value = serde_json::from_str(id).unwrap();
    let d = estimate["distinct"].as_f64().unwrap();
    assert!((d - 25_000.0).abs() / 25_000.0 < 0.05, "{id}");
    let lvl = base.lines().nth(1).unwrap();
    assert!(
        lvl.contains("\"distinct\":3,\"distinct_exact\":true,\"example\":\"Info\""),
        "{lvl}"
    );
    let table = ndq(&["keys", "-o", "table", input]).run();
    assert!(table.ok().lines().nth(2).unwrap().contains(" ~"), "{table}");
}

/// The fast walk (line templates matched by their glue or by their index, the default)
/// gives the plain walk's output byte for byte, and the same warning, for any thread count,
/// chunk size and scanner, on generated logs mixed with lines of odd structures (repeated and
/// escaped keys, escaped quotes, arrays of other lengths, nested arrays, other spacing) and
/// bad lines, some of them generated lines spoilt inside a value.
#[test]
fn templates_walk_gives_the_plain_walks_output() {
    let f = Fixture::new();
    let mut data = ndq_gen::generate(5, 600_000);
    let odd = [
        r#"{"a":1,"a":{"z":1},"b":{"c":"x","c":{"q":2}}}"#,
        r#"{"\u0061":"esc","b":{"c":"\"q\" \u00e9"}}"#,
        r#"{"t":[{"x":1,"x":2},{"y":[{"x":3}]}],"u":{"":{"'":0}},"v":[[1,[2]],[]]}"#,
        "not json",
        r#"{"Properties":{"Tags":["a","b","c","d","e"],"Cart":[{"Sku":1}]}}"#,
        r#"{"@t":"x\"","@mt":"a\\\"b","@l":"Info", "Elapsed":-1.5e-3,"Ok":false}"#,
    ];
    for (i, l) in odd.iter().cycle().take(60).enumerate() {
        // Spread over the file, each next to generated lines.
        let at = data.len() * i / 60;
        let at = at
            + data[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(0, |p| p + 1);
        data.splice(at..at, format!("{l}\n").into_bytes());
    }
    // Copies of the first generated line spoilt inside a value (the glue kept, so that the
    // fast walk, which validates the lines it matches, meets them): a leading zero, a
    // number that is no number, a control byte, a bad escape, a lone surrogate, invalid
    // UTF-8, bytes after the object; and two that stay valid (a valid escape, a negative
    // number). Each four times, spread over the file.
    let first = data.split(|&b| b == b'\n').next().unwrap().to_vec();
    let first = String::from_utf8(first).unwrap();
    let spoilt: Vec<Vec<u8>> = vec![
        first
            .replacen("\"StatusCode\":", "\"StatusCode\":0", 1)
            .into_bytes(),
        first
            .replacen("\"ThreadId\":", "\"ThreadId\":--", 1)
            .into_bytes(),
        first.replacen("HTTP ", "HTTP\u{1} ", 1).into_bytes(),
        first.replacen("HTTP ", "HTTP\\q ", 1).into_bytes(),
        first.replacen("HTTP ", "HTTP\\ud800 ", 1).into_bytes(),
        first.replacen("HTTP ", "HTTP\u{ff} ", 1).into_bytes(),
        format!("{first}x").into_bytes(),
        first.replacen("HTTP ", "HTTP\\u00e9 ", 1).into_bytes(),
        first
            .replacen("\"ThreadId\":", "\"ThreadId\":-", 1)
            .into_bytes(),
    ];
    assert!(spoilt.iter().all(|l| l != first.as_bytes()), "{first}");
    for (i, l) in spoilt.iter().cycle().take(36).enumerate() {
        let at = data.len() * (2 * i + 1) / 72;
        let at = at
            + data[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(0, |p| p + 1);
        data.splice(at..at, [&l[..], b"\n"].concat());
    }
    // "\u{ff}" above is two bytes of valid UTF-8 (ÿ): make it the one invalid byte 0xff.
    let bad_utf8 = "HTTP\u{ff} ".as_bytes();
    while let Some(p) = data.windows(bad_utf8.len()).position(|w| w == bad_utf8) {
        data.splice(p..p + bad_utf8.len(), b"HTTP\xff ".iter().copied());
    }
    let input = f.write("mixed.ndjson", &data);
    let input = input.to_str().unwrap();
    let keys = |extra: &[&str]| {
        let run = ndq(&["keys", "-o", "json", input]).run_args(extra);
        // 10 lines "not json", 7 spoilt lines 4 times each.
        run.status(0).stderr_has("38 malformed lines skipped");
        (run.stdout().to_string(), run.stderr().to_string())
    };
    let plain = keys(&["--walk", "plain", "--threads", "1", "--scanner", "scalar"]);
    assert!(plain.0.lines().count() > 30, "{plain:?}");
    let mut scanners = vec!["scalar"];
    if std::is_x86_feature_detected!("avx2") {
        scanners.push("avx2");
    }
    for scanner in scanners {
        for threads in ["1", "2", "3"] {
            for chunk in ["5000", "100000", "10000000"] {
                let args = [
                    "--threads",
                    threads,
                    "--chunk-size",
                    chunk,
                    "--scanner",
                    scanner,
                ];
                assert!(keys(&args) == plain, "{args:?}");
            }
        }
    }
}

/// `-o chart` draws one bar per path, of the lines that have it: the numbers are the json
/// output's `lines`, in its order.
#[test]
fn keys_chart_is_a_bar_of_lines_per_path() {
    let input = sample();
    let s = input.to_str().unwrap();
    let want: Vec<(String, u64)> = keys_of(&[s])
        .iter()
        .map(|m| (m["path"].as_str().unwrap().to_owned(), num(m, "lines")))
        .collect();
    // Sized by COLUMNS and LINES (else the terminal, else 80x24): room for every path whole.
    let run = ndq(&["keys", "-o", "chart"])
        .path(&input)
        .env("LINES", "100")
        .env("COLUMNS", "200")
        .run();
    let drawn = run.ok();
    let mut rows = drawn.lines();
    let header: Vec<&str> = rows.next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["path", "lines"], "{run}");
    let got: Vec<(String, u64)> = rows
        .map(|r| {
            let label = r.split_whitespace().next().unwrap().to_owned();
            let n = r.split_whitespace().last().unwrap().parse().unwrap();
            (label, n)
        })
        .collect();
    assert_eq!(got, want, "{run}");
}

#[test]
fn limit_lines_reads_the_start_of_the_input() {
    let f = Fixture::new();
    let data = varied(3_000);
    let input = f.write("v.ndjson", &data);
    let input = input.to_str().unwrap();
    for n in [1usize, 7, 1234] {
        // The first n non-blank lines, as a file of their own.
        let head: String = data
            .lines()
            .filter(|l| !l.is_empty())
            .take(n)
            .map(|l| format!("{l}\n"))
            .collect();
        let head = f.write(&format!("head{n}.ndjson"), head);
        let want = ndq(&["keys", "-o", "json"])
            .path(&head)
            .run()
            .ok()
            .to_string();
        for threads in ["1", "3"] {
            for chunk in ["300", "1000000"] {
                let run = ndq(&[
                    "keys",
                    "-o",
                    "json",
                    "--limit-lines",
                    &n.to_string(),
                    "--threads",
                    threads,
                    "--chunk-size",
                    chunk,
                    input,
                ])
                .run();
                assert_eq!(
                    run.ok(),
                    want,
                    "--limit-lines {n} --threads {threads} --chunk-size {chunk}{run}"
                );
            }
        }
    }
}

/// A path's distinct values are what `count_distinct` of the path counts, numbers by value
/// (`1.5`, `1.50` and `15e-1` are one value), whatever the threads and chunks.
#[test]
fn keys_count_distinct_values_as_count_distinct_does() {
    let f = Fixture::new();
    let spellings = [
        "1.5",
        "1.50",
        "15e-1",
        "0.15E1",
        "2",
        "2.0",
        "20e-1",
        "-0",
        "0",
        "0.000",
        "1e3",
        "1000",
        "-7.25",
        "-725e-2",
        "123456789012",
        "0.001",
        "1E-3",
    ];
    let mut data = String::new();
    for (i, n) in spellings.iter().cycle().take(600).enumerate() {
        let s = ["a", "b", "\\u0061"][i % 3];
        data.push_str(&format!(
            "{{\"n\":{n},\"o\":{{\"m\":{n},\"s\":\"{s}\",\"t\":{}}}}}\n",
            i % 2 == 0
        ));
    }
    let input = f.write("numbers.ndjson", &data);
    let input = input.to_str().unwrap();
    for threads in ["1", "3"] {
        for chunk in ["200", "1000000"] {
            let keys = keys_of(&["--threads", threads, "--chunk-size", chunk, input]);
            let mut checked = 0;
            for k in &keys {
                let path = k["path"].as_str().unwrap();
                let Some(distinct) = k["distinct"].as_u64() else {
                    continue;
                };
                let want = ndq(&["-o", "raw", &format!("select count_distinct({path})")])
                    .arg(input)
                    .run();
                assert_eq!(
                    distinct.to_string(),
                    want.ok().trim(),
                    "{path}: --threads {threads} --chunk-size {chunk}"
                );
                checked += 1;
            }
            assert_eq!(checked, 4, "{keys:?}");
        }
    }
}

/// `--strict` with `--limit-lines N` checks the N lines read: a bad line past them is not
/// read, one among them is the error it is without a limit.
#[test]
fn strict_checks_only_the_lines_limit_lines_reads() {
    let f = Fixture::new();
    let good = varied(2_000);
    let input = f.write("late.ndjson", format!("{good}not json\n{good}"));
    let input = input.to_str().unwrap();
    let n = good.lines().filter(|l| !l.is_empty()).count();
    for threads in ["1", "3"] {
        for chunk in ["300", "1000000"] {
            let args = |limit: usize| {
                let limit = limit.to_string();
                ndq(&["keys", "-o", "json", "--strict", "--threads", threads])
                    .arg("--chunk-size")
                    .arg(chunk)
                    .arg("--limit-lines")
                    .arg(&limit)
                    .arg(input)
                    .run()
            };
            let read = args(n);
            let plain = ndq(&["keys", "-o", "json", "--limit-lines", &n.to_string(), input]).run();
            assert_eq!(
                read.ok(),
                plain.ok(),
                "--threads {threads} --chunk-size {chunk}"
            );
            read.stderr_is("");
            let bad = args(n + 1);
            bad.status(1).stdout_is("");
            // Line numbers count blank lines too.
            bad.stderr_has(&format!("{input}:{}:", good.lines().count() + 1));
        }
    }
}

#[test]
fn keys_quote_odd_keys_and_skip_bad_lines() {
    let f = Fixture::new();
    let input = f.write(
        "odd.ndjson",
        "{\"a\":{\"User-Agent\":\"x\",\"order\":1},\"odd key\":true}\nnot json\n{\"it's\":null}\n",
    );
    let run = ndq(&["keys", "-o", "csv"]).path(&input).run();
    run.status(0).stdout_is(
        "path,types,lines,non_null,share,distinct,distinct_exact,example\n\
         a,object 1,1,1,0.5,,,\n\
         a['User-Agent'],string 1,1,1,0.5,1,true,x\n\
         a['order'],number 1,1,1,0.5,1,true,1\n\
         ['odd key'],boolean 1,1,1,0.5,1,true,true\n\
         ['it''s'],null 1,1,0,0.5,,,\n",
    );
    run.stderr_is(&format!(
        "ndq: warning: 1 malformed line skipped (first at {}:2: the line is not a JSON object at byte 0)\n",
        input.display()
    ));
    let run = ndq(&["keys", "--strict"]).path(&input).run();
    run.status(1).stdout_is("");
    run.stderr_has(&format!("{}:2:", input.display()));
    // The names are the query syntax that reaches the values.
    let run = ndq(&[
        "-o",
        "raw",
        "select a['User-Agent'], a['order'], ['odd key'] limit 1",
    ])
    .path(&input)
    .run();
    run.stdout_is("x\t1\ttrue\n");
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = ndq(&["completions", shell]).run();
        let out = run.ok();
        assert!(
            out.contains("keys") && out.contains("limit-lines"),
            "{shell}{run}"
        );
        // The flags `--help` hides (for tests and measurements) are not offered (`bench`
        // shows its own --scanner and --engine).
        for hidden in ["no-prefilter", "chunk-size", "walk"] {
            assert!(!out.contains(hidden), "{shell} offers {hidden}{run}");
        }
        if shell == "bash" {
            let query_opts = out.lines().find(|l| l.contains("opts=\"-o -f")).unwrap();
            assert!(!query_opts.contains("--scanner"), "{query_opts}");
            assert!(!query_opts.contains("--engine"), "{query_opts}");
            assert!(out.contains("--percentile"), "{run}");
        }
    }
    let run = ndq(&["completions", "tcsh"]).run();
    run.status(2);
    let script = ndq(&["completions", "bash"]).run().ok().to_string();
    match std::process::Command::new("bash")
        .arg("-n")
        .arg("-c")
        .arg(&script)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "bash -n rejects the completion script: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => eprintln!("bash not found ({e}): the script's syntax is not checked"),
    }
}

#[test]
fn man_page_is_roff_that_man_reads() {
    let run = ndq(&["man"]).run();
    let page = run.ok();
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq \\(aq") || page.starts_with(".TH"),
        "{run}"
    );
    assert!(page.contains(".TH ndq 1"), "{run}");
    assert!(
        page.contains("keys") && page.contains("completions"),
        "{run}"
    );
    // One page: each command's options are in it, and no other page is pointed to.
    assert!(page.contains("\\-\\-limit\\-lines"), "{run}");
    assert!(
        !page.contains("ndq-keys(1)") && !page.contains("ndq\\-keys(1)"),
        "{run}"
    );
    assert_eq!(page.matches(".ds Aq").count(), 2, "{run}");
    let f = Fixture::new();
    let path = f.write("ndq.1", page);
    let has_man = std::process::Command::new("man")
        .arg("--version")
        .output()
        .is_ok();
    if has_man {
        let out = std::process::Command::new("man")
            .args(["-l", "-P", "cat"])
            .arg(&path)
            .env("MANWIDTH", "80")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "man -l failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("NAME") && text.contains("keys"), "{text}");
        assert!(
            text.contains("COMMANDS") && text.contains("--limit-lines"),
            "{text}"
        );
    }
}

#[test]
fn help_lists_the_commands() {
    let run = ndq(&["--help"]).run();
    let help = run.ok();
    for cmd in ["keys", "bench", "completions", "man"] {
        assert!(
            help.contains(&format!("  {cmd}  ")) || help.contains(&format!("  {cmd} ")),
            "{cmd}{run}"
        );
    }
    let run = ndq(&["keys", "--help"]).run();
    assert!(run.ok().contains("--limit-lines"), "{run}");
    let run = ndq(&["help", "bench"]).run();
    assert!(run.ok().contains("--percentile"), "{run}");
    // A query still comes first: a query that is not a command name runs.
    ndq(&["select count(*)"])
        .arg(sample().to_str().unwrap())
        .run()
        .stdout_is("{\"count(*)\":294}\n");
}

/// An object used as a map (keyed by ids, as per-user counters are): every key is a path,
/// listed in the order first seen, with the lines and distinct values of its own, for any
/// thread count and chunk size.
#[test]
fn an_object_used_as_a_map_lists_every_key_once_with_its_counts() {
    let f = Fixture::new();
    let ids = 300;
    let mut text = String::new();
    // first[k]: the line that first has id k; lines[k], values[k]: its counts.
    let mut first = Vec::new();
    let mut lines = vec![0u64; ids];
    let mut values: Vec<std::collections::BTreeSet<u64>> = vec![Default::default(); ids];
    for i in 0..2_000usize {
        let (a, b) = ((i * 7) % ids, (i * 13 + 5) % ids);
        let mut members = vec![(a, i as u64 % 11)];
        if b != a {
            members.push((b, i as u64 % 3));
        }
        let body: Vec<String> = members
            .iter()
            .map(|(k, v)| format!("\"id{k}\":{v}"))
            .collect();
        text.push_str(&format!("{{\"m\":{{{}}}}}\n", body.join(",")));
        for (k, v) in members {
            if !first.contains(&k) {
                first.push(k);
            }
            lines[k] += 1;
            values[k].insert(v);
        }
    }
    let input = f.write("map.ndjson", text);
    let input = input.to_str().unwrap();
    for threads in ["1", "3"] {
        for chunk in ["200", "1000000"] {
            let keys = keys_of(&["--threads", threads, "--chunk-size", chunk, input]);
            let listed: Vec<&str> = keys.iter().map(|k| k["path"].as_str().unwrap()).collect();
            let want: Vec<String> = ["m".to_string()]
                .into_iter()
                .chain(first.iter().map(|k| format!("m.id{k}")))
                .collect();
            assert_eq!(listed, want, "--threads {threads} --chunk-size {chunk}");
            for (k, path) in keys.iter().skip(1).zip(&first) {
                assert_eq!(num(k, "lines"), lines[*path], "{k:?}");
                assert_eq!(num(k, "distinct"), values[*path].len() as u64, "{k:?}");
            }
        }
    }
}

/// `ndq keys -f` is refused with what to do instead, before anything is read.
#[test]
fn keys_refuses_follow_with_what_to_do_instead() {
    for flag in ["-f", "--follow"] {
        let run = ndq(&["keys", flag]).path(&sample()).run();
        run.status(2).stdout_is("");
        run.stderr_is(
            "ndq: error: ndq keys reads its inputs once: --follow is for queries (ndq -f QUERY \
             FILE); for the keys of the start of a log, use --limit-lines N\n",
        );
    }
}
