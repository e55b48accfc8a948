//! `--color`, `NO_COLOR` and `TERM` end to end: never a colour byte in a pipe unless
//! `--color always`; with it, json rows, `select *` lines and tables coloured and nothing
//! else changed; csv, tsv and raw never coloured; on a terminal, colour by default.

use crate::util::{Fixture, in_a_terminal, ndq, sample};

const ESC: char = '\x1b';

/// A query and format for every way results come out: lines as they come, rows as they
/// come, a table, aggregates, and `select *` with `order by`.
const CASES: [(&str, &str); 7] = [
    ("json", "select * where Elapsed > 1000"),
    (
        "json",
        "select @t, Elapsed, Properties.User where @l = 'Error'",
    ),
    ("json", "select @l, count(*), max(Elapsed) group by @l"),
    ("json", "select * order by Elapsed desc limit 3"),
    (
        "table",
        "select @t, @l, Elapsed, Properties.User where @l = 'Error'",
    ),
    ("table", "select @l, count(*), avg(Elapsed) group by @l"),
    ("table", "select * where @l = 'Fatal'"),
];

/// A bad line, so stderr has a warning too (read with `NDQ_PREFILTER=off`, which every
/// line is validated under).
fn input_with_a_bad_line(f: &Fixture) -> std::path::PathBuf {
    let mut data = std::fs::read(sample()).unwrap();
    data.extend_from_slice(b"not json\n");
    f.write("in.ndjson", data)
}

/// `SGR` sequences (`ESC [ digits and ; m`) taken out.
fn strip(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find(|c: char| !(c.is_ascii_digit() || c == ';')) {
            Some(end) if after[end..].starts_with('m') => rest = &after[end + 1..],
            _ => {
                out.push_str("\x1b[");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn no_colour_in_a_pipe_by_default_with_no_color_or_with_never() {
    let f = Fixture::new();
    let input = input_with_a_bad_line(&f);
    for (format, query) in CASES {
        let runs = [
            ndq(&["-o", format, query])
                .path(&input)
                .env("TERM", "xterm-256color")
                .env("NDQ_PREFILTER", "off")
                .run(),
            ndq(&["--color", "auto", "-o", format, query])
                .path(&input)
                .env("TERM", "xterm-256color")
                .env("NDQ_PREFILTER", "off")
                .env("NO_COLOR", "1")
                .run(),
            ndq(&["--color", "never", "-o", format, query])
                .path(&input)
                .env("TERM", "xterm-256color")
                .env("NDQ_PREFILTER", "off")
                .run(),
        ];
        for run in &runs {
            run.status(0).stderr_has("ndq: warning: 1 malformed line");
            assert!(!run.stdout().is_empty(), "{run}");
            assert!(!run.stdout().contains(ESC), "colour in stdout{run}");
            assert!(!run.stderr().contains(ESC), "colour in stderr{run}");
            runs[0].stdout_is(run.stdout());
        }
    }
}

#[test]
fn color_always_colours_json_and_tables_and_changes_nothing_else() {
    for (format, query) in CASES {
        let plain = ndq(&["-o", format, query]).path(&sample()).run_ok();
        for env in [("NO_COLOR", "1"), ("TERM", "dumb")] {
            let colored = ndq(&["--color", "always", "-o", format, query])
                .path(&sample())
                .env(env.0, env.1)
                .run_ok();
            assert!(colored.stdout().contains("\x1b[0m"), "no colour{colored}");
            assert_eq!(strip(colored.stdout()), plain.stdout(), "{colored}");
        }
    }
    let colored = ndq(&["--color", "always", "-o", "json", "select * limit 1"])
        .stdin("{\"a\": [1, true, null], \"b\": \"x\"}\n")
        .run_ok();
    colored.stdout_is(
        "\x1b[1m{\x1b[0m\x1b[1;34m\"a\"\x1b[0m\x1b[1m:\x1b[0m \x1b[1m[\x1b[0m\x1b[36m1\x1b[0m\
         \x1b[1m,\x1b[0m \x1b[33mtrue\x1b[0m\x1b[1m,\x1b[0m \x1b[2mnull\x1b[0m\x1b[1m],\x1b[0m \
         \x1b[1;34m\"b\"\x1b[0m\x1b[1m:\x1b[0m \x1b[32m\"x\"\x1b[0m\x1b[1m}\x1b[0m\n",
    );
}

#[test]
fn csv_tsv_and_raw_are_never_coloured() {
    for format in ["csv", "tsv", "raw"] {
        for query in [
            "select @t, Elapsed, Properties.User where @l = 'Error'",
            "select * where @l = 'Fatal'",
        ] {
            let plain = ndq(&["-o", format, query]).path(&sample()).run_ok();
            ndq(&["--color", "always", "-o", format, query])
                .path(&sample())
                .run_same_as(&plain);
        }
    }
}

/// `ndq ARGS` with stdout on a pseudo-terminal (util-linux's `script`), stderr to a file;
/// `None` where `script` is missing.
fn on_a_terminal(f: &Fixture, args: &str, env: &[(&str, &str)]) -> Option<(String, String)> {
    let errors = f.path("stderr.txt");
    let line = format!(
        "'{}' {args} '{}' 2> '{}'",
        env!("CARGO_BIN_EXE_ndq"),
        sample().display(),
        errors.display()
    );
    let drawn = in_a_terminal(&line, env)?;
    Some((drawn, std::fs::read_to_string(&errors).unwrap()))
}

/// On a terminal the default table is coloured; `NO_COLOR`, `TERM=dumb` and `--color never`
/// turn it off. (Checked by making ndq's stdout terminal check answer "not a terminal": the
/// first assertion then fails.)
#[test]
fn a_terminal_gets_colour_by_default() {
    let f = Fixture::new();
    let query = "'select @l, count(*) group by @l'";
    let Some((drawn, errors)) = on_a_terminal(&f, query, &[]) else {
        return;
    };
    assert!(drawn.contains("\x1b[1m@l\x1b[0m"), "bold header: {drawn:?}");
    assert!(drawn.contains("\x1b[36m"), "cyan counts: {drawn:?}");
    // stderr went to a file: no colour there.
    assert!(!errors.contains(ESC), "{errors:?}");
    let plain = ndq(&["-o", "table", &query[1..query.len() - 1]])
        .path(&sample())
        .run_ok();
    assert_eq!(strip(&drawn), plain.stdout());
    for (args, env) in [
        (query.to_string(), [("NO_COLOR", "1")]),
        (query.to_string(), [("TERM", "dumb")]),
        (format!("--color never {query}"), [("NDQ_UNUSED", "")]),
    ] {
        let (drawn, _) = on_a_terminal(&f, &args, &env).expect("script ran above");
        assert!(!drawn.contains(ESC), "{args} {env:?}: {drawn:?}");
        assert_eq!(drawn, plain.stdout());
    }
}

#[test]
fn the_warning_label_is_coloured_with_color_always() {
    let f = Fixture::new();
    let input = f.write("in.ndjson", "{\"a\":1}\nnot json\n");
    let plain = ndq(&["select count(*)"]).path(&input).run();
    plain.status(0);
    assert!(
        plain.stderr().starts_with("ndq: warning: 1 malformed line"),
        "{plain}"
    );
    let colored = ndq(&["--color", "always", "select count(*)"])
        .path(&input)
        .run();
    colored.status(0);
    assert!(
        colored
            .stderr()
            .starts_with("ndq: \x1b[1;33mwarning:\x1b[0m 1 malformed line"),
        "{colored}"
    );
    assert_eq!(strip(colored.stderr()), plain.stderr());
}

/// `ndq keys` follows the rules of query results: its table coloured on a terminal, not in a
/// pipe nor with `NO_COLOR` or `--color never`; `--color always` colours and changes nothing
/// else.
#[test]
fn keys_are_coloured_as_query_results_are() {
    let f = Fixture::new();
    for format in ["table", "json"] {
        let plain = ndq(&["keys", "-o", format]).path(&sample()).run_ok();
        assert!(!plain.stdout().contains(ESC), "{plain}");
        let colored = ndq(&["keys", "--color", "always", "-o", format])
            .path(&sample())
            .env("NO_COLOR", "1")
            .run_ok();
        assert!(colored.stdout().contains("\x1b[0m"), "no colour{colored}");
        assert_eq!(strip(colored.stdout()), plain.stdout(), "{colored}");
    }
    let plain = ndq(&["keys", "-o", "table"]).path(&sample()).run_ok();
    let Some((drawn, _)) = on_a_terminal(&f, "keys", &[]) else {
        return;
    };
    assert!(
        drawn.contains("\x1b[1mpath\x1b[0m"),
        "bold header: {drawn:?}"
    );
    assert_eq!(strip(&drawn), plain.stdout());
    for (args, env) in [
        ("keys --color never", [("NDQ_UNUSED", "")]),
        ("keys", [("NO_COLOR", "1")]),
    ] {
        let (drawn, _) = on_a_terminal(&f, args, &env).expect("script ran above");
        assert!(!drawn.contains(ESC), "{args} {env:?}: {drawn:?}");
        assert_eq!(drawn, plain.stdout());
    }
}

/// On a terminal, a table wider than it (`COLUMNS`) has its long text columns cut with `…`
/// to fit, the other columns whole; in a pipe, `-o table` keeps every value whole.
#[test]
fn a_table_on_a_terminal_fits_its_width() {
    let f = Fixture::new();
    let query = "select @t, @l, StatusCode, Message, Properties.Headers limit 5";
    let Some((drawn, _)) = on_a_terminal(&f, &format!("'{query}'"), &[("COLUMNS", "100")]) else {
        return;
    };
    let drawn = strip(&drawn);
    let whole = ndq(&["-o", "table", query]).path(&sample()).run_ok();
    let whole_lines: Vec<&str> = whole.stdout().lines().collect();
    assert!(
        whole_lines.iter().any(|l| l.chars().count() > 100),
        "{whole_lines:?}"
    );
    let lines: Vec<&str> = drawn.lines().collect();
    assert_eq!(lines.len(), whole_lines.len(), "{drawn}");
    for (line, full) in lines.iter().zip(&whole_lines) {
        assert!(line.chars().count() <= 100, "{line:?}");
        // The timestamp, level and status come first and whole.
        assert_eq!(line.get(..55), full.get(..55), "{line:?}");
    }
    assert!(lines[2..].iter().all(|l| l.ends_with('…')), "{drawn}");
}
