//! `ndq` end to end: every output format, every exit code, bad input of every
//! kind, standard input, several files, directories, gzip and zstd, `limit` stopping early,
//! and the same answer with 1 thread and many. Expected values are computed here with
//! serde_json, independently of ndq.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::{Fixture, in_a_terminal, ndq, sample, sample_events};

/// The sample's levels and their counts, in ascending order of level.
fn level_counts() -> Vec<(String, u64)> {
    let mut counts = std::collections::BTreeMap::<String, u64>::new();
    for e in sample_events() {
        let level = e["@l"].as_str().expect("@l is a string").to_string();
        *counts.entry(level).or_default() += 1;
    }
    counts.into_iter().collect()
}

fn elapsed_over(limit: f64) -> Vec<serde_json::Map<String, Value>> {
    sample_events()
        .into_iter()
        .filter(|e| {
            e.get("Elapsed")
                .and_then(Value::as_f64)
                .is_some_and(|x| x > limit)
        })
        .collect()
}

const GROUP: &str = "select @l, count(*) group by @l";

#[test]
fn json_output_has_one_object_per_row() {
    let want: String = level_counts()
        .iter()
        .map(|(l, n)| format!("{{\"@l\":\"{l}\",\"count(*)\":{n}}}\n"))
        .collect();
    let out = ndq(&["-o", "json", GROUP]).path(&sample()).run_ok();
    out.stdout_is(&want);
}

#[test]
fn output_json_is_the_default_on_a_pipe() {
    let piped = ndq(&[GROUP]).path(&sample()).run_ok();
    let json = ndq(&["-o", "json", GROUP]).path(&sample()).run();
    piped.stdout_is(json.stdout());
}

#[test]
fn csv_tsv_and_raw_outputs_have_header_and_rows() {
    let counts = level_counts();
    let rows = |sep: &str| -> String {
        counts
            .iter()
            .map(|(l, n)| format!("{l}{sep}{n}\n"))
            .collect()
    };
    let csv = ndq(&["-o", "csv", GROUP]).path(&sample()).run_ok();
    csv.stdout_is(&format!("@l,count(*)\n{}", rows(",")));
    let tsv = ndq(&["-o", "tsv", GROUP]).path(&sample()).run_ok();
    tsv.stdout_is(&format!("@l\tcount(*)\n{}", rows("\t")));
    let raw = ndq(&["-o", "raw", GROUP]).path(&sample()).run_ok();
    raw.stdout_is(&rows("\t"));
}

#[test]
fn table_output_aligns_columns() {
    let counts = level_counts();
    let w1 = counts.iter().map(|(l, _)| l.len()).max().unwrap().max(2);
    let w2 = counts
        .iter()
        .map(|(_, n)| n.to_string().len())
        .max()
        .unwrap()
        .max("count(*)".len());
    let mut want = format!("{:<w1$}  {:>w2$}\n", "@l", "count(*)");
    want += &format!("{}  {}\n", "-".repeat(w1), "-".repeat(w2));
    for (l, n) in &counts {
        want += &format!("{l:<w1$}  {n:>w2$}\n");
    }
    let out = ndq(&["-o", "table", GROUP]).path(&sample()).run_ok();
    out.stdout_is(&want);
}

#[test]
fn select_star_writes_lines_unchanged_in_every_format() {
    let text = std::fs::read_to_string(sample()).unwrap();
    let want: String = text
        .lines()
        .filter(|l| {
            serde_json::from_str::<Value>(l).unwrap()["StatusCode"]
                .as_u64()
                .is_some_and(|s| s >= 500)
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(!want.is_empty(), "the sample has server errors");
    for format in ["json", "table", "csv", "tsv", "raw"] {
        let out = ndq(&["-o", format, "where StatusCode >= 500"])
            .path(&sample())
            .run_ok();
        out.stdout_is(&want);
    }
}

#[test]
fn projection_keeps_input_text_in_json_and_unescapes_elsewhere() {
    let f = Fixture::new();
    let input = f.write(
        "esc.ndjson",
        "{\"m\":\"a \\\"q\\\" \\u00e9\\n\",\"n\":1.50}\n{\"m\":\"plain, text\",\"n\":-0}\n",
    );
    let json = ndq(&["-o", "json", "select m, n"]).path(&input).run_ok();
    json.stdout_is(
        "{\"m\":\"a \\\"q\\\" \\u00e9\\n\",\"n\":1.50}\n{\"m\":\"plain, text\",\"n\":-0}\n",
    );
    let csv = ndq(&["-o", "csv", "select m, n"]).path(&input).run_ok();
    csv.stdout_is("m,n\n\"a \"\"q\"\" é\n\",1.50\n\"plain, text\",-0\n");
    let tsv = ndq(&["-o", "tsv", "select m, n"]).path(&input).run_ok();
    tsv.stdout_is("m\tn\na \"q\" é\\n\t1.50\nplain, text\t-0\n");
    let raw = ndq(&["-o", "raw", "select m"]).path(&input).run_ok();
    raw.stdout_is("a \"q\" é\n\nplain, text\n");
    let table = ndq(&["-o", "table", "select m, n"]).path(&input).run_ok();
    table.stdout_is(
        "m               n\n-----------  ----\na \"q\" é\\n    1.50\nplain, text    -0\n",
    );
}

#[test]
fn computed_values_are_exact() {
    let f = Fixture::new();
    let input = f.write("n.ndjson", "{\"x\":0.1}\n{\"x\":0.2}\n{\"y\":true}\n");
    let out = ndq(&["-o", "json", "select sum(x), max(y), count(*)"])
        .path(&input)
        .run_ok();
    out.stdout_is("{\"sum(x)\":0.3,\"max(y)\":null,\"count(*)\":3}\n");
    let csv = ndq(&["-o", "csv", "select sum(x), max(y)"])
        .path(&input)
        .run_ok();
    csv.stdout_is("sum(x),max(y)\n0.3,\n");
}

#[test]
fn exit_0_and_stats_line() {
    let over = elapsed_over(200.0).len() as u64;
    let events = sample_events().len() as u64;
    let bytes = std::fs::metadata(sample()).unwrap().len();
    let out = ndq(&["--stats", "select count(*) where Elapsed > 200"])
        .path(&sample())
        .run();
    out.status(0)
        .stdout_is(&format!("{{\"count(*)\":{over}}}\n"));
    // The prefilter rules out lines whose `Elapsed` is a number of at most 200: the lines
    // scanned and the lines ruled out are every event.
    let (scanned, hits, bad, read) = out.stats();
    assert_eq!((hits, bad, read), (over, 0, bytes), "{out}");
    let line = out.stderr();
    let ruled_out: u64 = line
        .split(", ")
        .find_map(|part| part.strip_suffix(" lines ruled out unread\n"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no lines ruled out{out}"));
    assert!(ruled_out > 0, "{out}");
    assert_eq!(scanned + ruled_out, events, "{out}");
    assert_eq!(line.lines().count(), 1, "one line{out}");
    assert!(line.contains(" s, ") && line.contains(" MB/s"), "{out}");
    let off = ndq(&["--stats", "select count(*) where Elapsed > 200"])
        .path(&sample())
        .env("NDQ_PREFILTER", "off")
        .run();
    off.status(0)
        .stdout_is(&format!("{{\"count(*)\":{over}}}\n"));
    assert_eq!(off.stats(), (events, over, 0, bytes), "{off}");
    assert!(off.stderr().trim_end().ends_with(" MB/s"), "{off}");
}

#[test]
fn exit_2_for_a_bad_query_with_a_caret() {
    let out = ndq(&["select Message frm stream"]).path(&sample()).run();
    out.status(2).stdout_is("");
    out.stderr_has("ndq: ")
        .stderr_has("select Message frm stream")
        .stderr_has("^");
}

#[test]
fn exit_2_for_usage_errors() {
    for args in [
        &["--threads", "0", "select *"][..],
        &["-o", "xml", "select *"],
        &["--no-such-flag", "select *"],
        &[],
    ] {
        let out = ndq(args).run();
        out.status(2).stdout_is("");
        assert!(!out.stderr().is_empty(), "{out}");
    }
    let out = ndq(&["select *"])
        .path(&sample())
        .env("NDQ_SCANNER", "sse9")
        .run();
    out.status(2).stdout_is("");
    out.stderr_has("NDQ_SCANNER");
}

#[test]
fn help_lists_exit_codes() {
    let out = ndq(&["--help"]).run();
    let help = out.ok();
    assert!(
        help.contains("Exit status:") && help.contains("Examples:"),
        "{out}"
    );
    let short = ndq(&["-h"]).run();
    assert!(short.ok().len() < help.len());
}

#[test]
fn exit_1_for_a_missing_input_and_nothing_written() {
    let f = Fixture::new();
    let missing = f.path("missing.ndjson");
    let out = ndq(&["select *"]).path(&sample()).path(&missing).run();
    out.status(1).stdout_is("");
    out.stderr_is(&format!(
        "ndq: error: {}: No such file or directory\n",
        missing.display()
    ));
    // Through a file, not a directory: unreadable, named.
    let through = sample().join("x");
    let out = ndq(&["select *"]).path(&through).run();
    out.status(1).stdout_is("");
    out.stderr_has(&format!("ndq: error: {}: ", through.display()));
}

/// `ndq -o raw 'select count(*)' DIR` in a shell whose open-file limits are set first
/// (`ulimit` flags, as `-Sn 64`).
#[cfg(unix)]
fn count_under_ulimit(dir: &std::path::Path, limits: &str) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit {limits} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_ndq"))
        .args(["-o", "raw", "select count(*)"])
        .arg(dir)
        .env("NDQ_CACHE_DIR", crate::util::cache_dir())
        .output()
        .expect("sh runs")
}

#[cfg(unix)]
#[test]
fn a_directory_of_more_files_than_the_open_file_limit_is_read() {
    let f = Fixture::new();
    for i in 0..200 {
        let line = format!("{{\"n\":{i}}}\n");
        f.write(&format!("plain/part-{i:04}.ndjson"), &line);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(line.as_bytes()).expect("gzip");
        f.write(
            &format!("gz/part-{i:04}.ndjson.gz"),
            gz.finish().expect("gzip"),
        );
    }
    let count = |out: &std::process::Output| {
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Files are opened as they are read (a compressed one's first bytes are checked when the
    // inputs are opened, and it is closed again): any limit will do.
    for dir in ["plain", "gz"] {
        for limits in ["-Sn 64", "-n 64"] {
            let out = count_under_ulimit(&f.path(dir), limits);
            assert_eq!(
                count(&out),
                (Some(0), "200\n".into(), String::new()),
                "{dir} {limits}"
            );
        }
    }
}

/// Good lines, and the bad kinds the language reference names, on known line numbers.
const MIXED: &str = "\u{feff}{\"n\":1}\r\n\
                     \n\
                     {\"n\":2}\n\
                     [1,2]\n\
                     {\"n\":\n\
                     \"just a string\"\n\
                     {\"n\":3}   \n\
                     {\"n\":4}";

#[test]
fn bad_lines_skipped_counted_and_named() {
    let f = Fixture::new();
    let input = f.write("mixed.ndjson", MIXED);
    let out = ndq(&["select sum(n), count(*)"]).path(&input).run();
    out.status(0).stdout_is("{\"sum(n)\":10,\"count(*)\":4}\n");
    let err = out.stderr();
    let prefix = format!(
        "ndq: warning: 3 malformed lines skipped (first at {}:4: ",
        input.display()
    );
    assert!(err.starts_with(&prefix), "{out}");
    assert_eq!(err.lines().count(), 1, "one warning{out}");
}

#[test]
fn strict_makes_the_first_bad_line_an_error() {
    let f = Fixture::new();
    let input = f.write("mixed.ndjson", MIXED);
    let out = ndq(&["--strict", "select n"]).path(&input).run();
    out.status(1);
    out.stdout_is("{\"n\":1}\n{\"n\":2}\n");
    assert!(
        out.stderr()
            .starts_with(&format!("ndq: error: {}:4: ", input.display())),
        "{out}"
    );
    assert_eq!(out.stderr().lines().count(), 1, "{out}");
}

#[test]
fn strict_names_the_line_and_the_reason_once() {
    let f = Fixture::new();
    let input = f.write("bad.ndjson", "{\"n\":1}\n[1]\n");
    let out = ndq(&["--strict", "select n"]).path(&input).run();
    out.status(1);
    assert_eq!(
        out.stderr(),
        format!(
            "ndq: error: {}:2: the line is not a JSON object at byte 0 (--strict stops at the first bad line)\n",
            input.display()
        ),
        "{out}"
    );
}

#[test]
fn a_write_error_is_exit_1_and_says_it_was_writing() {
    let Ok(full) = std::fs::File::create("/dev/full") else {
        return; // Not Linux: nothing to write into that fails.
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ndq"))
        .env("NDQ_CACHE_DIR", crate::util::cache_dir())
        .args(["-o", "json", "select Message"])
        .arg(sample())
        .stdout(full)
        .output()
        .expect("ndq runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("ndq: error: writing the results: No space left on device"),
        "{stderr}"
    );
}

#[test]
fn a_misnamed_gz_is_named_before_anything_is_written() {
    let f = Fixture::new();
    let good = f.write("a.ndjson", "{\"a\":1}\n");
    let bad = f.write("b.ndjson.gz", "{\"a\":2}\n");
    let out = ndq(&["select a"]).path(&good).path(&bad).run();
    out.status(1).stdout_is("");
    assert_eq!(
        out.stderr(),
        format!(
            "ndq: error: {}: not gzip data (the name says gzip, the first bytes do not)\n",
            bad.display()
        ),
        "{out}"
    );
}

/// An empty `.gz` or `.zst` (a compression cut off before its first byte) is an empty input,
/// as an empty plain file is: the inputs around it are read, nothing fails.
#[test]
fn an_empty_compressed_file_is_an_empty_input() {
    let f = Fixture::new();
    let first = f.write("a.ndjson", "{\"a\":1}\n");
    let empty_gz = f.write("b.ndjson.gz", "");
    let empty_zst = f.write("c.ndjson.zst", "");
    let last = f.write("d.ndjson", "{\"a\":2}\n");
    for threads in ["1", "2"] {
        let out = ndq(&["--threads", threads, "-o", "raw", "select a"])
            .path(&first)
            .path(&empty_gz)
            .path(&empty_zst)
            .path(&last)
            .run();
        out.status(0).stdout_is("1\n2\n");
        out.stderr_is("");
    }
}

#[test]
fn invalid_utf8_and_binary_input_do_not_crash() {
    let f = Fixture::new();
    let utf8 = f.write("utf8.ndjson", b"{\"a\":\"\xff\xfe\"}\n{\"a\":\"ok\"}\n");
    let out = ndq(&["select a"]).path(&utf8).run();
    out.status(0).stdout_is("{\"a\":\"ok\"}\n");
    out.stderr_has(&format!(
        "1 malformed line skipped (first at {}:1: ",
        utf8.display()
    ));

    // 1 MiB of pseudo-random bytes.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let noise: Vec<u8> = (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let binary = f.write("noise.bin", &noise);
    let out = ndq(&["--stats", "select count(*)"]).path(&binary).run();
    out.status(0).stdout_is("{\"count(*)\":0}\n");
    let (lines, hits, malformed, bytes) = out.stats();
    assert_eq!((hits, bytes), (0, 1 << 20), "{out}");
    assert_eq!(lines, malformed, "every non-blank line is bad{out}");
    out.stderr_has("malformed lines skipped (first at ");
}

#[test]
fn empty_file_empty_lines_and_no_final_newline() {
    let f = Fixture::new();
    let empty = f.write("empty.ndjson", "");
    let out = ndq(&["select count(*)"]).path(&empty).run_ok();
    out.stdout_is("{\"count(*)\":0}\n");
    let blank = f.write("blank.ndjson", "\n\n  \n\r\n{\"a\":1}\n\n{\"a\":2}");
    let out = ndq(&["select a"]).path(&blank).run_ok();
    out.stdout_is("{\"a\":1}\n{\"a\":2}\n");
}

#[test]
fn a_50_mib_line_is_read_whole() {
    let f = Fixture::new();
    let mut big = String::from("{\"Elapsed\":250,\"blob\":\"");
    big.push_str(&"0123456789abcdef".repeat(50 << 16));
    big.push_str("\"}\n{\"Elapsed\":1}\n");
    let input = f.write("big-line.ndjson", &big);
    let out = ndq(&["select count(*) where Elapsed > 200"])
        .path(&input)
        .run_ok();
    out.stdout_is("{\"count(*)\":1}\n");
}

#[test]
fn standard_input_with_or_without_a_dash() {
    let text = std::fs::read(sample()).unwrap();
    let want = ndq(&["-o", "csv", GROUP]).path(&sample()).run_ok();
    for dash in [false, true] {
        let cmd = ndq(&["-o", "csv", GROUP]);
        let cmd = if dash { cmd.arg("-") } else { cmd };
        cmd.stdin(text.clone()).run_same_as(&want);
    }
    // A BOM, CRLF and bad lines on stdin; stdin is named `-`.
    let out = ndq(&["select n"]).stdin(MIXED).run();
    out.status(0)
        .stdout_is("{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n{\"n\":4}\n");
    out.stderr_has("ndq: warning: 3 malformed lines skipped (first at -:4: ");
}

#[test]
fn several_files_in_order_and_directories_sorted() {
    let f = Fixture::new();
    let a = f.write("dir/a.ndjson", "{\"f\":\"a\"}\n");
    f.write("dir/sub/b.ndjson", "{\"f\":\"b1\"}\n{\"f\":\"b2\"}\n");
    f.write("dir/c.ndjson", "{\"f\":\"c\"}");
    let z = f.write("z.ndjson", "{\"f\":\"z\"}\n");
    let out = ndq(&["-o", "raw", "select f"])
        .path(&z)
        .path(&a)
        .path(&z)
        .run_ok();
    out.stdout_is("z\na\nz\n");
    let out = ndq(&["-o", "raw", "select f"])
        .path(&f.path("dir"))
        .path(&z)
        .run_ok();
    out.stdout_is("a\nc\nb1\nb2\nz\n");
    // Line numbers are per file.
    let bad = f.write("bad.ndjson", "{}\nnope\n");
    let out = ndq(&["select count(*)"]).path(&z).path(&bad).run();
    out.status(0);
    out.stderr_has(&format!("(first at {}:2: ", bad.display()));
}

/// In a directory, a link to a file is read as the file; a broken link and a link to a
/// directory are not read, and each is named in a warning (control characters in a name
/// shown as `?`, as in every message: a name cannot drive the terminal).
#[cfg(unix)]
#[test]
fn links_in_a_directory_not_read_are_named() {
    use std::os::unix::fs::symlink;
    let f = Fixture::new();
    let a = f.write("dir/a.ndjson", "{\"f\":\"a\"}\n");
    f.write("other/b.ndjson", "{\"f\":\"b\"}\n");
    symlink(&a, f.path("dir/b-link.ndjson")).unwrap();
    symlink(
        f.path("gone.ndjson"),
        f.path("dir/c-\x1b]0;title\x07.ndjson"),
    )
    .unwrap();
    symlink(f.path("other"), f.path("dir/d-dir")).unwrap();
    let out = ndq(&["-o", "raw", "select f"]).path(&f.path("dir")).run();
    out.status(0).stdout_is("a\na\n");
    out.stderr_is(&format!(
        "ndq: warning: {}: a broken link, skipped\n\
         ndq: warning: {}: a link to a directory, not followed (name it to read it)\n",
        f.path("dir/c-?]0;title?.ndjson").display(),
        f.path("dir/d-dir").display()
    ));
}

/// A directory with no file in it, and a FIFO found in a directory, are named in warnings:
/// pointed at the wrong directory, ndq does not answer as if the log were quiet.
#[cfg(unix)]
#[test]
fn a_directory_with_nothing_to_read_and_a_fifo_in_one_are_named() {
    let f = Fixture::new();
    std::fs::create_dir_all(f.path("empty/sub")).unwrap();
    f.write("logs/a.ndjson", "{\"f\":\"a\"}\n");
    let fifo = f.path("logs/pipe");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let out = ndq(&["-o", "raw", "select count(*)"])
        .path(&f.path("empty"))
        .path(&f.path("logs"))
        .run();
    out.status(0).stdout_is("1\n");
    out.stderr_has(&format!(
        "ndq: warning: {}: a directory with no files in it\n",
        f.path("empty").display()
    ));
    if made.is_ok_and(|s| s.success()) {
        out.stderr_has(&format!(
            "ndq: warning: {}: not a regular file, skipped (name it to read it)\n",
            fifo.display()
        ));
    }
}

/// `data` as one gzip member.
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).unwrap();
    gz.finish().unwrap()
}

/// A file of gzip data whose name does not say so is read as text, as files are, but said to
/// be gzip data, small (read whole) or large (mapped); named .gz, it is read.
#[test]
fn gzip_data_under_a_plain_name_is_pointed_out() {
    let f = Fixture::new();
    let small = "{\"a\":1}\n".repeat(10);
    // Past the size read whole (1 MiB compressed): random hex digits compress little.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let large: String = (0..40_000)
        .map(|_| {
            let (a, b, c, d) = (next(), next(), next(), next());
            format!("{{\"a\":\"{a:016x}{b:016x}{c:016x}{d:016x}\"}}\n")
        })
        .collect();
    for (name, text) in [("small.log", &small), ("large.log", &large)] {
        let data = gzip(text.as_bytes());
        let path = f.write(name, &data);
        let out = ndq(&["-o", "raw", "select count(*)"]).path(&path).run();
        out.status(0).stdout_is("0\n");
        out.stderr_has(&format!(
            "ndq: warning: {}: gzip data in a file whose name does not end in .gz, read as \
             text: name it .gz, or give it on standard input (- < FILE), which is read by its \
             content\n",
            path.display()
        ));
        let named = f.write(&format!("{name}.gz"), &data);
        let out = ndq(&["-o", "raw", "select count(*)"]).path(&named).run();
        out.status(0).stderr_is("");
        out.stdout_is(&format!("{}\n", text.lines().count()));
    }
}

/// After the last gzip member, zero bytes (padding) end the input as `gzip -d` reads them, and
/// other bytes are an error that says what they are; so for members inflated whole and for
/// the stream.
#[test]
fn padding_after_the_last_gzip_member_is_read_past_and_other_bytes_named() {
    let f = Fixture::new();
    let member = |text: &str| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        gz.finish().unwrap()
    };
    let members = [member("{\"a\":1}\n{\"a\":2}\n"), member("{\"a\":3}\n")].concat();
    let padded = f.write("padded.ndjson.gz", [&members[..], &[0; 512]].concat());
    let junk = f.write("junk.ndjson.gz", [&members[..], b"GARBAGE here"].concat());
    let zeros_then_junk = f.write("zj.ndjson.gz", [&members[..], &[0; 100], b"x"].concat());
    for inflate in ["whole", "stream"] {
        let run = |input: &std::path::Path| {
            ndq(&["-o", "raw", "select sum(a)"])
                .env("NDQ_INFLATE", inflate)
                .path(input)
                .run()
        };
        run(&padded).status(0).stdout_is("6\n");
        for bad in [&junk, &zeros_then_junk] {
            let out = run(bad);
            out.status(1);
            out.stderr_is(&format!(
                "ndq: error: {}: bytes after the last gzip member that are not a gzip member\n",
                bad.display()
            ));
        }
    }
}

/// Standard input that starts as gzip or zstd data is decompressed (`cat app.log.gz | ndq`);
/// anything else is read as it is, a line starting with those bytes' first (`(`, `P`) being
/// only a malformed line.
#[test]
fn compressed_standard_input_is_decompressed() {
    let text = "{\"a\":1}\n{\"a\":2}\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::encode_all(text.as_bytes(), 1).unwrap();
    let two_members = [&gz[..], &gz[..]].concat();
    for (input, sum) in [(gz, "3"), (zst, "3"), (two_members, "6")] {
        ndq(&["-o", "raw", "select sum(a)"])
            .stdin(input)
            .run()
            .status(0)
            .stdout_is(&format!("{sum}\n"));
    }
    for odd in ["(\n{\"a\":1}\n", "P\n{\"a\":1}\n", "\u{1f}\n{\"a\":1}\n"] {
        let out = ndq(&["-o", "raw", "select sum(a)"]).stdin(odd).run();
        out.status(0).stdout_is("1\n");
        out.stderr_has("1 malformed line skipped (first at -:1:");
    }
    // Nothing at all, and a line too short to tell.
    ndq(&["-o", "raw", "select count(*)"])
        .stdin("")
        .run()
        .status(0)
        .stdout_is("0\n");
    ndq(&["-o", "raw", "select count(*)"])
        .stdin("{}")
        .run()
        .status(0)
        .stdout_is("1\n");
}

/// A file truncated in place while its mapped window is being scanned (logrotate's
/// copytruncate at the wrong moment) is a runtime error with a message, not a death by
/// SIGBUS: the file is cut to nothing once ndq has it mapped, in the middle of a scan that
/// takes far longer than the wait for the map.
#[cfg(target_os = "linux")]
#[test]
fn a_file_truncated_during_its_scan_is_an_error_with_a_message() {
    use crate::util::{wait_exit, wait_for};
    let f = Fixture::new();
    let line = format!("{{\"Message\":\"{}\",\"Elapsed\":5}}\n", "x".repeat(200));
    let path = f.write("app.ndjson", line.repeat(400_000));
    let err = std::fs::File::create(f.path("err.txt")).unwrap();
    // The serde engine on one thread: some 90 MB take it a good part of a second.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndq"))
        .args([
            "--threads",
            "1",
            "--engine",
            "serde",
            "-o",
            "raw",
            "select count(*)",
        ])
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .expect("ndq starts");
    let maps = format!("/proc/{}/maps", child.id());
    let name = path.display().to_string();
    wait_for(
        "ndq to map the file",
        || std::fs::read_to_string(&maps).unwrap_or_default(),
        |m| m.contains(&name),
    );
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .and_then(|file| file.set_len(0))
        .expect("truncate");
    let status = wait_exit(&mut child, "ndq to stop", String::new);
    let stderr = std::fs::read_to_string(f.path("err.txt")).unwrap_or_default();
    assert_eq!(status.code(), Some(1), "{status:?}: {stderr}");
    // Cut during the scan (the handler's message), or between two windows (the check's).
    assert!(
        stderr.starts_with("ndq: error: ")
            && (stderr.contains("cut short while it was read") || stderr.contains("shrank")),
        "{stderr}"
    );
}

/// A `.gz` cut short (one still being written) gives every complete line before the cut,
/// then the error: the same rows in every run, at any thread count, streamed or inflated
/// whole.
#[test]
fn a_cut_gzip_file_gives_every_line_before_the_cut() {
    let f = Fixture::new();
    let text: String = (0..40_000)
        .map(|i| format!("{{\"id\":{i},\"pad\":\"{}\"}}\n", "x".repeat(30)))
        .collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let cut = f.write("cut.ndjson.gz", &gz[..gz.len() / 2]);
    // What a decoder recovers before the cut: its complete lines.
    let mut recovered = Vec::new();
    let read = flate2::read::GzDecoder::new(&gz[..gz.len() / 2]).read_to_end(&mut recovered);
    assert!(read.is_err());
    let lines = recovered.iter().filter(|&&b| b == b'\n').count();
    assert!(lines > 1000, "{lines}");
    let want: String = (0..lines).map(|i| format!("{i}\n")).collect();
    for inflate in ["whole", "stream"] {
        for threads in ["1", "2", "1", "2"] {
            let out = ndq(&["--threads", threads, "-o", "raw", "select id"])
                .env("NDQ_INFLATE", inflate)
                .path(&cut)
                .run();
            out.status(1);
            assert!(
                out.stdout() == want,
                "{inflate} {threads}: {} lines",
                out.stdout().lines().count()
            );
            out.stderr_has(&format!("ndq: error: {}: ", cut.display()));
        }
    }
}

/// A zstd file written with a long window (`zstd --long=28`, past the 128 MiB zstd reads
/// by default) is read.
#[test]
fn a_zstd_file_with_a_long_window_is_read() {
    let f = Fixture::new();
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 1).unwrap();
    enc.window_log(28).unwrap();
    enc.long_distance_matching(true).unwrap();
    enc.write_all(b"{\"a\":1}\n{\"a\":2}\n").unwrap();
    let long = f.write("long.ndjson.zst", enc.finish().unwrap());
    // The frame names its window: a plain decoder refuses it.
    let mut plain = zstd::stream::read::Decoder::new(std::fs::File::open(&long).unwrap()).unwrap();
    assert!(std::io::Read::read_to_end(&mut plain, &mut Vec::new()).is_err());
    ndq(&["-o", "raw", "select sum(a)"])
        .path(&long)
        .run()
        .status(0)
        .stdout_is("3\n");
}

#[test]
fn gzip_and_zstd_inputs_are_decompressed() {
    let f = Fixture::new();
    let text = std::fs::read(sample()).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let gz = f.write("sample.ndjson.gz", gz.finish().unwrap());
    let zst = f.write("sample.ndjson.zst", zstd::encode_all(&text[..], 3).unwrap());
    for query in [
        GROUP,
        "select Message where Elapsed > 200",
        "where @l = 'Error'",
    ] {
        let want = ndq(&["-o", "json", query]).path(&sample()).run_ok();
        for input in [&gz, &zst] {
            ndq(&["-o", "json", query]).path(input).run_same_as(&want);
        }
    }
    let broken = f.write("broken.ndjson.gz", b"not gzip at all\n");
    let out = ndq(&["select *"]).path(&broken).run();
    out.status(1);
    out.stderr_has(&format!("ndq: error: {}: ", broken.display()));
}

/// A generated log file of about `bytes` bytes, and its number of lines.
fn generated(f: &Fixture, bytes: usize) -> (std::path::PathBuf, u64) {
    let data = ndq_gen::generate(11, bytes);
    let lines = data.iter().filter(|&&b| b == b'\n').count() as u64;
    (f.write("gen.ndjson", data), lines)
}

#[test]
fn limit_stops_reading_early() {
    let f = Fixture::new();
    let (input, total) = generated(&f, 24 << 20);
    let first: Value = {
        let text = std::fs::read_to_string(&input).unwrap();
        serde_json::from_str(text.lines().next().unwrap()).unwrap()
    };
    for threads in ["1", "2"] {
        let out = ndq(&[
            "--stats",
            "--threads",
            threads,
            "-o",
            "json",
            "select @t limit 1",
        ])
        .path(&input)
        .run();
        out.status(0)
            .stdout_is(&format!("{{\"@t\":{}}}\n", first["@t"]));
        let (scanned, ..) = out.stats();
        assert!(
            scanned < total / 20,
            "limit 1 scanned {scanned} of {total} lines{out}"
        );
    }
    // Without limit every line is scanned.
    let out = ndq(&["--stats", "select count(*)"]).path(&input).run();
    assert_eq!(out.stats().0, total, "{out}");
}

#[test]
fn one_thread_and_many_agree() {
    let queries = [
        "select *",
        "select Message, Elapsed where Elapsed > 200",
        "select @l, count(*), avg(Elapsed), max(Elapsed) group by @l",
        "select RequestPath, StatusCode order by Elapsed desc limit 7",
        "select count(*) where match(Message, '/api/customers')",
    ];
    for query in queries {
        for format in ["json", "table", "csv", "tsv", "raw"] {
            let one = ndq(&["--threads", "1", "-o", format, query])
                .path(&sample())
                .run_ok();
            ndq(&["-o", format, query])
                .path(&sample())
                .run_same_as(&one);
            ndq(&["--scanner", "scalar", "--threads", "3", "-o", format, query])
                .path(&sample())
                .run_same_as(&one);
        }
    }
}

#[test]
fn serde_engine_agrees_on_the_sample() {
    for query in [
        "select count(*), sum(Elapsed) where StatusCode >= 400",
        "select @l, count(*) group by @l",
    ] {
        let lazy = ndq(&["-o", "json", query]).path(&sample()).run_ok();
        ndq(&["--engine", "serde", "-o", "json", query])
            .path(&sample())
            .run_same_as(&lazy);
    }
}

#[test]
fn closed_pipe_is_quiet_success() {
    let f = Fixture::new();
    let (input, _) = generated(&f, 8 << 20);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndq"))
        .env("NDQ_CACHE_DIR", crate::util::cache_dir())
        .args(["select *", input.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ndq starts");
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    stdout.read_exact(&mut first).expect("some output");
    drop(stdout); // like `| head -c 100`
    let out = child.wait_with_output().expect("ndq ends");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "no message on a closed pipe"
    );
}

/// A reader that goes away early (`| head -1`) still leaves the warning about the bad lines
/// read until then, whether the rows stream (the run stops) or come at the end (the whole
/// input was read).
#[test]
fn a_closed_pipe_keeps_the_bad_line_warning() {
    let f = Fixture::new();
    let mut text: String = (0..200_000).map(|i| format!("{{\"n\":{i}}}\n")).collect();
    text.insert_str(text.find('\n').unwrap() + 1, "{\"n\":\n");
    let input = f.write("e.ndjson", text);
    for query in [
        "select n",
        "select n order by n desc",
        "select n, count(*) group by n",
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ndq"))
            .args(["-o", "raw", query])
            .arg(&input)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ndq starts");
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 2];
        stdout.read_exact(&mut first).expect("some output");
        drop(stdout); // like `| head -c 2`
        let out = child.wait_with_output().expect("ndq ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{query}: {stderr}");
        assert_eq!(
            stderr,
            format!(
                "ndq: warning: 1 malformed line skipped (first at {}:2: invalid JSON syntax \
                 at byte 5)\n",
                input.display()
            ),
            "{query}"
        );
    }
}

/// Progress bars for the tests below: shown from the first update (`NDQ_PROGRESS_DELAY_MS=0`,
/// so no test waits for a run to be slow), with a `TERM` that allows one.
fn with_a_bar_at_once(cmd: &mut Command) -> &mut Command {
    cmd.env("NDQ_PROGRESS_DELAY_MS", "0")
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
}

/// The bar draws wherever ndq allows it to: ndq's terminal check alone keeps it off a pipe
/// (checked by making that check answer "terminal": this test then fails).
#[test]
fn no_progress_bar_when_stderr_is_a_pipe() {
    let f = Fixture::new();
    let (input, _) = generated(&f, 20 << 20);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ndq"));
    cmd.env("NDQ_CACHE_DIR", crate::util::cache_dir());
    with_a_bar_at_once(&mut cmd).args([
        "-o",
        "raw",
        "select count(*) where Elapsed > 200",
        input.to_str().unwrap(),
    ]);
    let out = cmd.output().expect("ndq runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(!out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "nothing on stderr"
    );
}

/// On a terminal (a pseudo-terminal from util-linux's `script`) the bar is drawn on stderr,
/// and cleared; the results still go to stdout alone. (Checked by making ndq's terminal check
/// answer "not a terminal": this test then fails.) Skipped where `script` is missing.
#[test]
fn progress_bar_on_a_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no script(1) to run ndq in a pseudo-terminal");
        return;
    }
    let f = Fixture::new();
    let (input, _) = generated(&f, 20 << 20);
    let query = "select count(*) where Elapsed > 200";
    let want = ndq(&["-o", "raw", query]).path(&input).run_ok();
    let results = f.path("results.txt");
    // stdin, stdout and stderr on the pseudo-terminal, stdout then sent to a file: what
    // `script` copies out is what stderr drew.
    let line = format!(
        "'{}' -o raw '{query}' '{}' > '{}'",
        env!("CARGO_BIN_EXE_ndq"),
        input.display(),
        results.display()
    );
    let mut cmd = Command::new("script");
    with_a_bar_at_once(&mut cmd)
        .args(["-qec", &line, "/dev/null"])
        .stdin(Stdio::null());
    let out = cmd.output().expect("script runs");
    let drawn = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{drawn}");
    assert!(
        drawn.starts_with("ndq: ") && drawn.contains(" ETA "),
        "the bar is drawn: {drawn:?}"
    );
    assert!(drawn.contains("\x1b[2K"), "and cleared: {drawn:?}");
    assert_eq!(std::fs::read_to_string(&results).unwrap(), want.stdout());
}

#[test]
fn mmap_stdin_and_compressed_agree_on_generated_data() {
    let f = Fixture::new();
    let (input, _) = generated(&f, 6 << 20);
    let data = std::fs::read(&input).unwrap();
    let zst = f.write("gen.ndjson.zst", zstd::encode_all(&data[..], 1).unwrap());
    for query in [
        "select @t, Message, Properties.User.Name where Elapsed > 200",
        "select RequestPath, count(*), sum(Elapsed) group by RequestPath",
    ] {
        let want = ndq(&["--threads", "1", "-o", "json", query])
            .path(&input)
            .run_ok();
        assert!(want.stdout().lines().count() > 10, "{want}");
        for threads in ["1", "2"] {
            ndq(&["--threads", threads, "-o", "json", query])
                .stdin(data.clone())
                .run_same_as(&want);
            ndq(&["--threads", threads, "-o", "json", query])
                .path(&zst)
                .run_same_as(&want);
        }
    }
}

fn gzip_members(data: &[u8], size: usize) -> Vec<u8> {
    data.chunks(size)
        .flat_map(|part| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(part).unwrap();
            gz.finish().unwrap()
        })
        .collect()
}

#[test]
fn gzip_members_inflated_whole_or_streamed_agree() {
    let f = Fixture::new();
    let (input, _) = generated(&f, 2 << 20);
    let data = std::fs::read(&input).unwrap();
    // One member, members of 300 KB (cut mid-line), and several such files in a directory.
    let one = f.write("one.ndjson.gz", gzip_members(&data, usize::MAX));
    let many = f.write("many.ndjson.gz", gzip_members(&data, 300_000));
    let cut = data[..data.len() / 3]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let (head, tail) = data.split_at(cut);
    f.write("dir/a.ndjson.gz", gzip_members(head, 100_000));
    f.write("dir/b.ndjson.gz", gzip_members(tail, usize::MAX));
    f.write("dir/c.ndjson.gz", gzip_members(head, 250_000));
    let dir = f.path("dir");
    let query = "select @t, Message, Properties.User.Name where Elapsed > 200";
    let want = ndq(&["-o", "json", query]).path(&input).run();
    want.ok();
    let plain = f.write("plain.ndjson", [&data[..], head].concat());
    let twice = ndq(&["-o", "json", query]).path(&plain).run();
    twice.ok();
    let twice = twice.stdout();
    for threads in ["1", "2"] {
        for inflate in ["whole", "stream"] {
            for (gz, want) in [(&one, want.stdout()), (&many, want.stdout()), (&dir, twice)] {
                let out = ndq(&["--threads", threads, "-o", "json", query])
                    .env("NDQ_INFLATE", inflate)
                    .path(gz)
                    .run();
                out.ok();
                out.stdout_is(want);
            }
        }
    }
    // A corrupt member is an error naming its file, after the same output either way.
    let mut bad = gzip_members(&data, 300_000);
    let at = bad.len() - 3;
    bad[at] ^= 1;
    let bad = f.write("dir/d.ndjson.gz", bad);
    for threads in ["1", "2"] {
        let [whole, stream] = ["whole", "stream"].map(|inflate| {
            let out = ndq(&["--threads", threads, "select count(*)"])
                .env("NDQ_INFLATE", inflate)
                .path(&dir)
                .run();
            out.status(1);
            out.stderr_has(&format!("ndq: error: {}: ", bad.display()));
            out
        });
        assert_eq!(whole.stderr(), stream.stderr());
        assert_eq!(whole.stdout(), stream.stdout());
    }
}

#[test]
fn limit_on_standard_input_stops_early() {
    let f = Fixture::new();
    let (input, total) = generated(&f, 16 << 20);
    let data = std::fs::read(&input).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndq"))
        .env("NDQ_CACHE_DIR", crate::util::cache_dir())
        .args(["--stats", "select @t limit 2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ndq starts");
    let mut stdin = child.stdin.take().unwrap();
    // ndq may stop reading before all is written: a closed pipe here is expected.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("ndq ends");
    let _ = writer.join();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);
    let scanned: u64 = stderr
        .split_whitespace()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("stats line: {stderr}"));
    assert!(
        scanned < total / 4,
        "scanned {scanned} of {total}: {stderr}"
    );
}

#[test]
fn select_star_order_by_writes_whole_lines() {
    let f = Fixture::new();
    // Blanks around the object are part of the line and stay; the `\r\n` does not.
    let input = f.write(
        "o.ndjson",
        "  {\"n\":2, \"s\":\"b\"} \t\n{\"n\":3,\"s\":\"c\\u0041\"}\r\n{\"n\":1}\n",
    );
    for engine in ["lazy", "serde"] {
        for format in ["json", "csv", "table", "raw"] {
            let out = ndq(&[
                "--engine",
                engine,
                "-o",
                format,
                "select * order by n desc limit 2",
            ])
            .path(&input)
            .run_ok();
            out.stdout_is("{\"n\":3,\"s\":\"c\\u0041\"}\n  {\"n\":2, \"s\":\"b\"} \t\n");
        }
    }
}

#[test]
fn prefilter_scans_fewer_lines_with_identical_output() {
    let query = "select Message, RequestPath where match(Message, '/api/customers')";
    let run = |prefilter: &str, flags: &[&str]| {
        let mut args = vec!["--stats"];
        args.extend_from_slice(flags);
        args.push(query);
        ndq(&args)
            .path(&sample())
            .env("NDQ_PREFILTER", prefilter)
            .run()
    };
    let on = run("on", &[]);
    let off = run("off", &[]);
    on.status(0);
    off.status(0);
    assert!(
        on.stdout() == off.stdout() && on.stdout().lines().count() > 10,
        "stdout differs or is nearly empty:{on}{off}"
    );
    let events = sample_events().len() as u64;
    let (scanned_on, hits_on, bad_on, bytes_on) = on.stats();
    let (scanned_off, hits_off, bad_off, bytes_off) = off.stats();
    assert_eq!(scanned_off, events, "{off}");
    assert!(scanned_on < scanned_off / 2, "scanned {scanned_on}:{on}");
    assert_eq!(
        (hits_on, bad_on, bytes_on),
        (hits_off, bad_off, bytes_off),
        "{on}"
    );
    on.stderr_has(&format!(
        ", {} lines ruled out unread",
        scanned_off - scanned_on
    ));
    assert!(!off.stderr().contains("ruled out"), "{off}");
    // --strict validates every line, --no-prefilter parses every line.
    for flag in ["--strict", "--no-prefilter"] {
        let every = run("on", &[flag]);
        every.status(0).stdout_is(off.stdout());
        assert_eq!(every.stats().0, events, "{every}");
    }
    ndq(&[query])
        .path(&sample())
        .env("NDQ_PREFILTER", "maybe")
        .run()
        .status(2)
        .stderr_is("ndq: error: NDQ_PREFILTER: unknown value 'maybe' (expected on or off)\n");
}

#[test]
fn a_where_decided_on_the_first_keys_skips_validating_the_rest() {
    let f = Fixture::new();
    let lines = [
        r#"{"Elapsed":500,"a":1}"#,
        // Ruled out by Elapsed, read before the bad part: skipped without a look at the rest.
        r#"{"Elapsed":10,"a":]"#,
        // Kept by Elapsed: validated to the end, so counted as bad.
        r#"{"Elapsed":900,"a":]"#,
        // Bad before Elapsed is read: counted (`200 + 0` gives the prefilter nothing to
        // look for; with `200` it sees `"Elapsed":10` and rules the line out unread).
        r#"{"a":],"Elapsed":10}"#,
        r#"{"Elapsed":201.5, "b": {"c": [1, 2]}}"#,
    ];
    let input = f.write("e.ndjson", lines.join("\n"));
    let query = "select sum(Elapsed), count(*) where Elapsed > 200 + 0";
    let run = |prefilter: &str, flags: &[&str]| {
        let mut args = vec!["-o", "raw"];
        args.extend_from_slice(flags);
        args.push(query);
        ndq(&args)
            .path(&input)
            .env("NDQ_PREFILTER", prefilter)
            .run()
    };
    let warning = |n: u64, line: u64| {
        format!(
            "ndq: warning: {n} malformed lines skipped (first at {}:{line}:",
            input.display()
        )
    };
    let on = run("on", &[]);
    on.status(0).stdout_is("701.5\t2\n");
    on.stderr_has(&warning(2, 3));
    let off = run("off", &[]);
    off.status(0).stdout_is("701.5\t2\n");
    off.stderr_has(&warning(3, 2));
    // --strict validates every line: the first bad one is an error.
    let strict = run("on", &["--strict"]);
    strict.status(1);
    strict.stderr_has(&format!("{}:2:", input.display()));
    let prefiltered = ndq(&[
        "-o",
        "raw",
        "select sum(Elapsed), count(*) where Elapsed > 200",
    ])
    .path(&input)
    .run();
    prefiltered.status(0).stdout_is("701.5\t2\n");
    prefiltered.stderr_has(&format!(
        "ndq: warning: 1 malformed line skipped (first at {}:3:",
        input.display()
    ));
}

#[test]
fn prefilter_keeps_lines_that_spell_the_literal_with_escapes() {
    let f = Fixture::new();
    let lines = [
        r#"{"Message":"GET /api/customers/1","n":1}"#,
        r#"{"Message":"GET \/api\/customers\/2","n":2}"#,
        r#"{"Message":"GET /api/orders/3\n\tcaf\u00e9 \"x\"","n":3}"#,
        r#"{"Message":"GET \u002fapi\u002Fcustomers/4","n":4}"#,
        r#"{"Message":"GET /\u0061pi/customers/5","n":5}"#,
        r#"{"Message":"GET /api/invoices/6","n":6}"#,
    ];
    let input = f.write("e.ndjson", lines.join("\r\n"));
    for prefilter in ["on", "off"] {
        let out = ndq(&["--stats", "select n where match(Message, '/api/customers')"])
            .path(&input)
            .env("NDQ_PREFILTER", prefilter)
            .run();
        out.status(0)
            .stdout_is("{\"n\":1}\n{\"n\":2}\n{\"n\":4}\n{\"n\":5}\n");
        let scanned = if prefilter == "on" { 4 } else { 6 };
        assert_eq!(
            out.stats(),
            (scanned, 4, 0, input.metadata().unwrap().len()),
            "{out}"
        );
    }
}

/// the language reference: the first occurrence of a duplicate key is the value, through every path the CLI
/// takes (`where` decided first, rows, aggregates; an escaped spelling of the key counts as
/// the same key), whatever the scanner or thread count.
#[test]
fn duplicate_top_level_keys_the_first_wins() {
    let f = Fixture::new();
    let input = f.write(
        "dup.ndjson",
        concat!(
            r#"{"n":300,"m":"a","n":1,"m":"b"}"#,
            "\n",
            r#"{"\u006e":5,"n":400,"m":"c"}"#,
            "\n",
            r#"{"m":"d","n":250,"m":"e","n":2}"#,
            "\n",
        ),
    );
    for scanner in ["scalar", "auto"] {
        for threads in ["1", "2"] {
            let run = |q: &str| {
                ndq(&["-o", "raw", "--threads", threads, q])
                    .env("NDQ_SCANNER", scanner)
                    .path(&input)
                    .run()
            };
            run("select m where n > 200").status(0).stdout_is("a\nd\n");
            run("select sum(n), count(*) where n > 0")
                .status(0)
                .stdout_is("555\t3\n");
            run("select n, m")
                .status(0)
                .stdout_is("300\ta\n5\tc\n250\td\n");
        }
    }
}

/// Sums of numbers held as floats (beyond Decimal's 28 digits) are exact sums rounded once,
/// so they do not depend on how the threads split the file (they did: plain f64 additions
/// per chunk, then per merge).
#[test]
fn float_sums_are_the_same_for_every_thread_count() {
    let f = Fixture::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut data = String::new();
    for _ in 0..40_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        data.push_str(&format!(
            "{{\"x\":{}e{}}}\n",
            seed % 1_000_000_007,
            20 + seed % 15
        ));
    }
    let input = f.write("floats.ndjson", data);
    let query = "select sum(x), avg(x)";
    let one = ndq(&["--threads", "1", "-o", "raw", query])
        .path(&input)
        .run_ok();
    for threads in ["2", "3", "7"] {
        ndq(&["--threads", threads, "-o", "raw", query])
            .path(&input)
            .run_same_as(&one);
    }
}

/// Long chains in a query: thousands of `or` alternatives run (the chain is a balanced
/// tree, so nothing recurses thousands deep), and a `+` chain past the nesting limit is a
/// query error, not a stack overflow (both crashed the process before).
#[test]
fn long_operator_chains_run_or_are_refused_never_crash() {
    let f = Fixture::new();
    let input = f.write("c.ndjson", "{\"x\":4999}\n{\"x\":5000}\n{\"x\":3}\n");
    let terms: Vec<String> = (0..5000).map(|i| format!("x = {i}")).collect();
    let query = format!("select x where {}", terms.join(" or "));
    let out = ndq(&["-o", "raw", &query]).path(&input).run_ok();
    out.stdout_is("4999\n3\n");
    let query = format!("select {}1", "x + ".repeat(5000));
    let out = ndq(&[&query]).path(&input).run();
    out.status(2);
    assert!(out.stderr().contains("nests more than 64 levels"), "{out}");
}

/// Regression (found by an adversarial QA run): a member fact's search pattern
/// (`Id"` for `Id > 5`) hid a literal starting at the same byte (`Id`, from `Name = 'Id'`),
/// so the prefilter ruled out lines that match.
#[test]
fn a_fact_pattern_does_not_hide_a_literal_at_the_same_byte() {
    let f = Fixture::new();
    let input = f.write(
        "r.ndjson",
        "{\"Id\":1,\"Name\":\"Id\"}\n{\"Elapsed\":12,\"Message\":\"slow: Elapsed\"}\n{\"Id\":2}\n",
    );
    for (query, want) in [
        ("select Name where Id > 5 or Name = 'Id'", "Id\n"),
        ("select Name where Id > 5 or startswith(Name, 'I')", "Id\n"),
        (
            "select Message where Elapsed > 200 or endswith(Message, 'Elapsed')",
            "slow: Elapsed\n",
        ),
    ] {
        for prefilter in ["on", "off"] {
            let out = ndq(&["-o", "raw", query])
                .path(&input)
                .env("NDQ_PREFILTER", prefilter)
                .run_ok();
            out.stdout_is(want);
        }
    }
}

/// the language reference's "Text" and "Levels" end to end: a computed string is JSON-escaped in `json` and
/// written as it is in `raw`; `extract` with a literal regex that does not compile, or a
/// group the regex lacks, is exit 2 with a caret under that argument.
#[test]
fn text_functions_and_levels_end_to_end() {
    let f = Fixture::new();
    let input = f.write(
        "text.ndjson",
        concat!(
            r#"{"m":"caf\u00e9 \"took\" 12 ms","l":40}"#,
            "\n",
            r#"{"m":" x ","l":"wrn"}"#,
            "\n",
            r#"{"m":"y","l":"dbg"}"#,
            "\n",
        ),
    );
    let q = "select level(l) as lv, extract(m, '(\\d+) ms') as ms, trim(m) || '!' as bang \
             where case when severity(l) >= 4 then true end";
    ndq(&["-o", "json", q])
        .path(&input)
        .run()
        .status(0)
        .stdout_is(concat!(
            r#"{"lv":"Warning","ms":"12","bang":"café \"took\" 12 ms!"}"#,
            "\n",
            r#"{"lv":"Warning","ms":null,"bang":"x!"}"#,
            "\n",
        ));
    ndq(&["-o", "raw", q])
        .path(&input)
        .run()
        .status(0)
        .stdout_is("Warning\t12\tcafé \"took\" 12 ms!\nWarning\t\tx!\n");
    for (query, message, caret) in [
        (
            "select extract(m, '(a')",
            "this regex does not compile: unclosed group (column 19)",
            format!("{}^^^^", " ".repeat(18)),
        ),
        (
            "select extract(m, '(a)', 2)",
            "extract() has no group 2: the regex has 1 group (column 26)",
            format!("{}^", " ".repeat(25)),
        ),
    ] {
        let out = ndq(&[query]).path(&input).run();
        out.status(2).stdout_is("");
        out.stderr_has(message)
            .stderr_has(&format!("  {query}\n  {caret}\n"));
    }
}

/// `offset M` on streamed rows: the first M rows are left out, and with a `limit` reading
/// still stops early, after M + N rows, with any number of threads.
#[test]
fn offset_with_streamed_rows_and_limit_stops_early() {
    let f = Fixture::new();
    let (input, total) = generated(&f, 24 << 20);
    let text = std::fs::read_to_string(&input).unwrap();
    let times: Vec<Value> = text
        .lines()
        .take(10)
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["@t"].clone())
        .collect();
    for threads in ["1", "2"] {
        let out = ndq(&[
            "--stats",
            "--threads",
            threads,
            "-o",
            "json",
            "select @t limit 2 offset 3",
        ])
        .path(&input)
        .run();
        out.status(0).stdout_is(&format!(
            "{{\"@t\":{}}}\n{{\"@t\":{}}}\n",
            times[3], times[4]
        ));
        let (scanned, ..) = out.stats();
        assert!(
            scanned < total / 20,
            "limit 2 offset 3 scanned {scanned} of {total} lines{out}"
        );
        // Whole lines, and rows kept for a table, skip alike.
        let lines = ndq(&["--threads", threads, "limit 1 offset 4"])
            .path(&input)
            .run_ok();
        lines.stdout_is(&format!("{}\n", text.lines().nth(4).unwrap()));
        let table = ndq(&[
            "--threads",
            threads,
            "-o",
            "table",
            "select @t limit 1 offset 9",
        ])
        .path(&input)
        .run_ok();
        let t = times[9].as_str().unwrap();
        table.stdout_is(&format!("@t\n{}\n{t}\n", "-".repeat(t.len())));
    }
}

#[test]
fn offset_without_limit_reads_everything_and_skips_the_first_rows() {
    let data = "{\"n\":1}\n{\"n\":2}\n\n{\"n\":3}\n{\"n\":4}\n";
    for (query, want) in [
        ("select n offset 2", "3\n4\n"),
        ("select n offset 0", "1\n2\n3\n4\n"),
        ("select n offset 9", ""),
        ("select n order by n desc offset 1 ", "3\n2\n1\n"),
        ("select count(*) offset 1", ""),
    ] {
        let out = ndq(&["-o", "raw", query]).stdin(data).run_ok();
        out.stdout_is(want);
    }
}

/// Two columns of one name: the later get `_2`, `_3` in every format, so JSON keys stay
/// unique.
#[test]
fn repeated_column_names_are_unique_in_every_format() {
    let data = "{\"a\":1}\n{\"a\":2}\n";
    let query = "select count(*), count(*), a as x, a as x group by a";
    for (format, want) in [
        (
            "json",
            "{\"count(*)\":1,\"count(*)_2\":1,\"x\":1,\"x_2\":1}\n\
             {\"count(*)\":1,\"count(*)_2\":1,\"x\":2,\"x_2\":2}\n",
        ),
        ("csv", "count(*),count(*)_2,x,x_2\n1,1,1,1\n1,1,2,2\n"),
        (
            "tsv",
            "count(*)\tcount(*)_2\tx\tx_2\n1\t1\t1\t1\n1\t1\t2\t2\n",
        ),
    ] {
        let out = ndq(&["-o", format, query]).stdin(data).run_ok();
        out.stdout_is(want);
    }
}

#[test]
fn having_and_distinct_end_to_end() {
    let data = "{\"g\":\"a\",\"v\":1.50}\n{\"g\":\"b\",\"v\":2}\n{\"g\":\"a\",\"v\":1.5}\n";
    let out = ndq(&[
        "-o",
        "json",
        "select g, count(*) as n group by g having n > 1",
    ])
    .stdin(data)
    .run_ok();
    out.stdout_is("{\"g\":\"a\",\"n\":2}\n");
    let out = ndq(&["-o", "json", "select distinct g, v"])
        .stdin(data)
        .run_ok();
    out.stdout_is("{\"g\":\"a\",\"v\":1.50}\n{\"g\":\"b\",\"v\":2}\n");
}

#[test]
fn having_without_aggregation_is_a_query_error_pointing_at_having() {
    let out = ndq(&["select v where v > 1 having v > 2"])
        .stdin("{}\n")
        .run();
    out.status(2);
    out.stdout_is("");
    out.stderr_has(
        "having needs an aggregation; did you mean where? (column 22)\n  \
         select v where v > 1 having v > 2\n                       ^^^^^^",
    );
}

#[test]
fn a_command_written_after_an_option_is_pointed_out() {
    let out = ndq(&["--color", "never", "keys", "-"]).stdin("{}\n").run();
    out.status(2);
    out.stdout_is("");
    out.stderr_has(
        "'keys' is a command, not a query: write it first, before any option (ndq keys ...)",
    );
    // Also when the command's own options make the arguments fail to parse.
    let out = ndq(&[
        "--threads",
        "1",
        "bench",
        "--runs",
        "2",
        "--cases",
        "c.txt",
        "-",
    ])
    .run();
    out.status(2);
    out.stdout_is("");
    out.stderr_has("unexpected argument '--runs'");
    out.stderr_has(
        "'bench' is a command, not a query: write it first, before any option (ndq bench ...)",
    );
    // A file named like a command, after the query, is only a file.
    let out = ndq(&["select count(*)", "man"]).run();
    out.status(1);
    assert!(!out.stderr().contains("is a command"), "{out}");
}

/// A query written without its first keyword, as a search box takes one, or a file where
/// the query goes: the error says what was meant.
#[test]
fn a_query_without_its_keyword_or_a_file_first_is_pointed_out() {
    let f = Fixture::new();
    let log = f.write("app.log", "{\"Elapsed\":300}\n");
    let log = log.to_str().unwrap();
    for (query, hint) in [
        ("Elapsed > 200", "did you mean: where Elapsed > 200"),
        (
            "@l = 'Error' or Elapsed > 2",
            "did you mean: where @l = 'Error' or Elapsed > 2",
        ),
        ("not has(Elapsed)", "did you mean: where not has(Elapsed)"),
        ("count(*)", "did you mean: select count(*)"),
        ("@t, Message", "did you mean: select @t, Message"),
        (
            log,
            &format!(
                "'{log}' is a file, not a query: the query comes first (ndq 'select ...' {log})"
            ),
        ),
        (
            "logs/app.ndjson.gz",
            "'logs/app.ndjson.gz' is a file, not a query",
        ),
    ] {
        let out = ndq(&[query, log]).run();
        out.status(2);
        out.stdout_is("");
        out.stderr_has(hint);
    }
    // A query that no keyword mends gets no guess.
    let out = ndq(&["Elapsed >", log]).run();
    out.status(2);
    assert!(!out.stderr().contains("did you mean"), "{out}");
}

/// Lines with times in several spellings, for the time flags (`NDQ_NOW` pins `now`).
const TIMED: &str = "{\"@t\":\"2026-11-21T09:00:00Z\",\"n\":1}\n\
{\"@t\":\"2026-11-21T10:30:00+01:00\",\"n\":2}\n\
{\"n\":3}\n\
{\"@t\":\"2026-11-21T10:00:00.5Z\",\"n\":4}\n\
{\"@t\":\"soon\",\"n\":5}\n\
{\"@t\":\"2026-11-21T10:04:59Z\",\"n\":6,\"ts\":\"2026-11-20T00:00:00Z\"}\n";

const NOW: &str = "2026-11-21T10:05:00Z";

#[test]
fn since_and_until_keep_lines_in_range_with_and_without_the_prefilter_on_both_engines() {
    let f = Fixture::new();
    let input = f.write("t.ndjson", TIMED);
    for (args, want) in [
        (&["--since", "40m"][..], "2\n4\n6\n"),
        (&["--since", "2026-11-21T10:00:00Z"][..], "4\n6\n"),
        (&["--until", "2026-11-21T10:00:00.5Z"][..], "1\n2\n"),
        (&["--since", "today", "--until", "now"][..], "1\n2\n4\n6\n"),
        (&["--since", "yesterday", "--until", "today"][..], ""),
        (
            &[
                "--time-field",
                "ts",
                "--since",
                "2026-11-20",
                "--until",
                "1d",
            ][..],
            "6\n",
        ),
    ] {
        for query in ["select n", "select n where n > 0"] {
            for (prefilter, engine) in [("on", "lazy"), ("off", "lazy"), ("on", "serde")] {
                let mut all = vec!["-o", "raw", "--engine", engine];
                all.extend_from_slice(args);
                all.push(query);
                let out = ndq(&all)
                    .path(&input)
                    .env("NDQ_NOW", NOW)
                    .env("NDQ_PREFILTER", prefilter)
                    .run_ok();
                out.stdout_is(want);
            }
        }
    }
    // Whole lines pass unchanged.
    let out = ndq(&["--since", "10m", "where n = 6"])
        .path(&input)
        .env("NDQ_NOW", NOW)
        .run_ok();
    out.stdout_is("{\"@t\":\"2026-11-21T10:04:59Z\",\"n\":6,\"ts\":\"2026-11-20T00:00:00Z\"}\n");
}

#[test]
fn tz_writes_timestamps_with_the_zone_offset() {
    let f = Fixture::new();
    let input = f.write("t.ndjson", TIMED);
    let q = "select time(1d) as day, count(*) where n <> 3 and n <> 5 group by day";
    let out = ndq(&["-o", "csv", q]).path(&input).run_ok();
    out.stdout_is("day,count(*)\n2026-11-21T00:00:00Z,4\n");
    let out = ndq(&["-o", "csv", "--tz", "America/New_York", q])
        .path(&input)
        .run_ok();
    out.stdout_is("day,count(*)\n2026-11-21T00:00:00-05:00,4\n");
    let out = ndq(&["-o", "json", "select datetime(@t), 90s * 1.5 where n = 4"])
        .path(&input)
        .run_ok();
    out.stdout_is("{\"datetime(@t)\":\"2026-11-21T10:00:00.5Z\",\"90s * 1.5\":135}\n");
}

#[test]
fn invalid_time_flags_are_usage_errors_that_show_the_forms() {
    for (args, want) in [
        (
            &["--since", "soon"][..],
            "ndq: error: --since: invalid time 'soon': expected an RFC 3339 time (2026-11-21T10:00:00Z), a date (2026-11-21), now, today, yesterday, or a duration before now (30m, 2h, 2d)\n",
        ),
        (
            &["--until", "5x"][..],
            "ndq: error: --until: invalid time '5x': expected an RFC 3339 time (2026-11-21T10:00:00Z), a date (2026-11-21), now, today, yesterday, or a duration before now (30m, 2h, 2d)\n",
        ),
        (
            &["--tz", "Mars/Olympus"][..],
            "ndq: error: --tz: unknown time zone 'Mars/Olympus': expected an IANA zone name (like UTC, Europe/Paris, America/New_York) or local\n",
        ),
    ] {
        let mut all = args.to_vec();
        all.push("select count(*)");
        let out = ndq(&all).stdin("").run();
        out.status(2);
        out.stdout_is("");
        out.stderr_is(want);
    }
    let out = ndq(&["select count(*) where @t > now() - 5x"])
        .stdin("")
        .run();
    out.status(2);
    out.stdout_is("");
    out.stderr_has("'5x' is not a duration");
}

/// Conditional aggregates and array conditions (the language reference version 2) give the same bytes with
/// one thread and many, with the scalar scanner, and with the serde engine.
#[test]
fn filtered_aggregates_and_array_conditions_agree_across_threads_and_engines() {
    for query in [
        "select RequestPath, count(*) filter (where StatusCode >= 500) * 100 / count(*) as err group by RequestPath order by err desc, RequestPath limit 10",
        "select count(*) where 'beta' in Properties.Tags",
        "select @l, count_if(Properties.Cart[?].Qty > 3), count(*) filter (where Properties.Tags[*] like 'b%') group by @l",
        "select @t, Message where Properties.Tags[?] = 'canary' and 'beta' not in Properties.Tags",
    ] {
        let one = ndq(&["--threads", "1", "-o", "json", query])
            .path(&sample())
            .run_ok();
        assert!(!one.stdout().is_empty(), "{one}");
        for args in [
            &["--threads", "3", "-o", "json", query][..],
            &["--scanner", "scalar", "-o", "json", query][..],
            &["--engine", "serde", "-o", "json", query][..],
        ] {
            ndq(args).path(&sample()).run_same_as(&one);
        }
    }
}

/// A wildcard outside a condition and `filter` on a scalar function are query errors: exit
/// 2, nothing on stdout, the caret under the wildcard / the word `filter`.
#[test]
fn misplaced_wildcards_and_filters_exit_2_with_a_caret() {
    for (query, caret) in [
        ("select Tags[?]", "             ^^^"),
        ("select lower(Tags[*]) = 'x'", "                   ^^^"),
        (
            "select lower(a) filter (where a > 1)",
            "                  ^^^^^^",
        ),
    ] {
        let out = ndq(&[query]).path(&sample()).run();
        out.status(2).stdout_is("");
        out.stderr_has(&format!("  {query}\n{caret}\n"));
    }
}

/// `ndq ARGS > out` with stderr on a pseudo-terminal (util-linux's `script`): what stdout
/// and the terminal got. `None` where `script` is missing.
fn stderr_on_a_terminal(f: &Fixture, args: &str) -> Option<(String, String)> {
    let out = f.path("stdout.txt");
    let line = format!(
        "'{}' {args} > '{}'",
        env!("CARGO_BIN_EXE_ndq"),
        out.display()
    );
    let terminal = in_a_terminal(&line, &[])?;
    Some((std::fs::read_to_string(&out).unwrap(), terminal))
}

/// A query that matches nothing because it names a property the lines do not have, or a
/// text they have only in other case, gets a note on a terminal that says so; in a pipe,
/// stderr stays empty; a query that matches something gets no note.
#[test]
fn no_match_on_a_terminal_names_the_missing_property_and_its_look_alike() {
    let f = Fixture::new();
    let sample = sample();
    let lines = std::fs::read_to_string(&sample).unwrap().lines().count();
    let query = "select count(*) where Level = 'Error' and elapsed > 5";
    let Some((stdout, terminal)) =
        stderr_on_a_terminal(&f, &format!("\"{query}\" '{}'", sample.display()))
    else {
        return;
    };
    assert_eq!(stdout, "{\"count(*)\":0}\n");
    let file = sample.display();
    assert_eq!(
        terminal,
        format!(
            "ndq: note: no line matched; Level is in none of the {lines} lines of {file} \
             (did you mean @l?)\n\
             ndq: note: no line matched; elapsed is in none of the {lines} lines of {file} \
             (did you mean Elapsed?)\n"
        )
    );
    // Scripts see the answer alone.
    ndq(&[query]).path(&sample).run_ok().stderr_is("");
    // A text the lines have only in other case: said so.
    let errors = sample_events()
        .iter()
        .filter(|e| e["@l"] == "Error")
        .count();
    let (_, terminal) = stderr_on_a_terminal(
        &f,
        &format!(
            "\"select count(*) where @l = 'error'\" '{}'",
            sample.display()
        ),
    )
    .unwrap();
    assert_eq!(
        terminal,
        format!(
            "ndq: note: no line matched; @l is never 'error' in the {lines} lines of {file}, \
             but is 'Error' on {errors} (= tells case apart; ilike does not)\n"
        )
    );
    // A text written without quotes reads as a property: said so.
    let (_, terminal) = stderr_on_a_terminal(
        &f,
        &format!(
            "\"select count(*) where @l = Error\" '{}'",
            sample.display()
        ),
    )
    .unwrap();
    assert_eq!(
        terminal,
        format!(
            "ndq: note: no line matched; Error is not a property of the {lines} lines of {file}, \
             but @l is 'Error' on {errors} of them: a text is written in quotes (@l = 'Error')\n"
        )
    );
    // A match, or properties the lines have with no text of another case: nothing to say.
    for args in [
        "\"select count(*) where Elapsed > 5\"",
        "\"select count(*) where StatusCode = 999 or @l = 'Nope'\"",
    ] {
        let (_, terminal) =
            stderr_on_a_terminal(&f, &format!("{args} '{}'", sample.display())).unwrap();
        assert_eq!(terminal, "", "{args}");
    }
}

/// A query that stops at its `limit` counts the bad lines up to its last row, whatever the
/// thread count: a line read past it (by a worker ahead of the others) is not the run's.
#[test]
fn a_limit_warns_of_the_same_bad_lines_for_every_thread_count() {
    let f = Fixture::new();
    // Large enough to be cut into several chunks: a rare match, a bad line every 50.
    let mut text = String::new();
    for i in 0..200_000u64 {
        if i % 50 == 49 {
            text.push_str(&format!("oops {i}\n"));
        } else {
            text.push_str(&format!("{{\"n\":{i},\"hit\":{}}}\n", i % 3001 == 0));
        }
    }
    let input = f.write("lim.ndjson", text);
    // The 30th match is line 87,030 (n = 29 * 3001); 1,740 bad lines come before it.
    let want: String = (0..30).map(|k| format!("{}\n", k * 3001)).collect();
    for threads in ["1", "2", "3", "5"] {
        let run = ndq(&[
            "-o",
            "raw",
            "--threads",
            threads,
            "select n where hit limit 30",
        ])
        .path(&input)
        .run();
        run.status(0).stdout_is(&want);
        run.stderr_is(&format!(
            "ndq: warning: 1740 malformed lines skipped (first at {}:50: the line is not a JSON \
             object at byte 0)\n",
            input.display()
        ));
    }
}

/// An error in the arguments starts as every message of ndq does, so that a script's log
/// says which program it came from; `--help` stays on stdout.
#[test]
fn argument_errors_are_said_as_ndq_s() {
    for args in [&["--threds", "2", "select 1"][..], &["keys", "--bogus"]] {
        let out = ndq(args).run();
        out.status(2).stdout_is("");
        assert!(
            out.stderr()
                .starts_with("ndq: error: unexpected argument '--"),
            "{out}"
        );
    }
    let help = ndq(&["--help"]).run();
    help.status(0).stderr_is("");
    assert!(help.ok().starts_with("Fast queries"), "{help}");
}
