//! The driver against a fake query (chunk::tests::Fake): the same output and counts for every
//! thread count, chunk size and window size; several inputs; compressed inputs; limit; strict;
//! BOM, empty files and lines longer than a window.

use super::*;
use crate::messages::Rejection;
use chunk::tests::Fake;
use std::path::{Path, PathBuf};

/// A run of the fake query (lines containing `hit` match; lines not starting with `{`
/// are bad) over `paths`.
fn fake_run(
    paths: &[PathBuf],
    threads: usize,
    chunk: Option<usize>,
    window: usize,
    limit: Option<u64>,
    strict: bool,
) -> (anyhow::Result<Drove>, Vec<u8>) {
    fake_run_paged(paths, threads, chunk, window, limit, 0, strict)
}

/// [`fake_run`] with an `offset`.
fn fake_run_paged(
    paths: &[PathBuf],
    threads: usize,
    chunk: Option<usize>,
    window: usize,
    limit: Option<u64>,
    offset: u64,
    strict: bool,
) -> (anyhow::Result<Drove>, Vec<u8>) {
    let opts = RunOptions {
        threads,
        scanner: Scanner::Scalar,
        engine: Engine::Lazy,
        strict,
        progress: false,
        progress_after: progress::SHOW_AFTER,
        color: false,
        color_stdout: false,
        chunk_size: chunk,
        window,
        prefilter: true,
        ..RunOptions::default()
    };
    let facts = QueryFacts {
        mode: Mode::Lines,
        limit,
        offset,
        filter: None,
        time: Default::default(),
    };
    let inputs = Inputs::open(paths).expect("inputs open");
    let mut out = Vec::new();
    let drove = drive(&opts, &facts, &|| Fake, &inputs, &mut out);
    (drove, out)
}

fn write(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, data).unwrap();
    path
}

/// The facts of a query that writes every line: no limit, no filter, no time range.
fn every_line() -> QueryFacts<'static> {
    QueryFacts {
        mode: Mode::Lines,
        limit: None,
        offset: 0,
        filter: None,
        time: Default::default(),
    }
}

/// 2000 lines: every 7th a hit, every 100th bad, blank and CRLF lines mixed in.
fn lines() -> Vec<u8> {
    let mut data = Vec::new();
    for i in 0..2000 {
        let line = match i {
            i if i % 100 == 99 => format!("bad {i}\n"),
            i if i % 7 == 0 => format!("{{\"n\":{i},\"hit\":true}}\n"),
            i if i % 13 == 0 => "\n".to_string(),
            i if i % 11 == 0 => format!("{{\"n\":{i}}}\r\n"),
            i => format!("{{\"n\":{i},\"pad\":\"{}\"}}\n", "x".repeat(i % 50)),
        };
        data.extend_from_slice(line.as_bytes());
    }
    data
}

/// What the fake query must give for `data`: (output, non-blank lines, hits, bad lines,
/// first bad line number).
fn expected(data: &[u8]) -> (Vec<u8>, u64, u64, u64, u64) {
    expected_up_to(data, u64::MAX)
}

/// [`expected`] of a run with `limit`: the lines up to the one of its last row, and no
/// further.
fn expected_up_to(data: &[u8], limit: u64) -> (Vec<u8>, u64, u64, u64, u64) {
    let text = std::str::from_utf8(data).unwrap();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let (mut lines, mut hits, mut bad, mut first) = (0, 0, 0, 0);
    for (n, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        lines += 1;
        if !line.starts_with('{') {
            bad += 1;
            if first == 0 {
                first = n as u64 + 1;
            }
        } else if line.contains("hit") {
            hits += 1;
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
            if hits == limit {
                break;
            }
        }
    }
    (out, lines, hits, bad, first)
}

#[test]
fn same_output_for_every_thread_count_chunk_and_window() {
    let dir = tempfile::tempdir().unwrap();
    let data = lines();
    let path = write(dir.path(), "a.ndjson", &data);
    let (want, lines, hits, bad, first) = expected(&data);
    for threads in [1, 2, 3] {
        for chunk in [None, Some(1), Some(100), Some(4096), Some(1 << 30)] {
            for window in [1, 1000, 4096, WINDOW] {
                let what = format!("threads {threads} chunk {chunk:?} window {window}");
                let (drove, out) = fake_run(
                    std::slice::from_ref(&path),
                    threads,
                    chunk,
                    window,
                    None,
                    false,
                );
                let drove = drove.expect("runs");
                assert!(out == want, "{what}: output differs");
                let s = &drove.stats;
                assert_eq!((s.lines, s.hits, s.malformed), (lines, hits, bad), "{what}");
                assert_eq!(s.bytes, data.len() as u64, "{what}");
                let first_bad = s.first_bad.as_ref().expect("a bad line");
                assert_eq!(first_bad.position.line, first, "{what}");
                assert_eq!(first_bad.name, path.display().to_string());
            }
        }
    }
}

#[test]
fn several_inputs_in_order_and_compressed() {
    let dir = tempfile::tempdir().unwrap();
    let data = lines();
    let (half, _) = data.split_at(data.len() / 2);
    let cut = half.iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let (a, b) = data.split_at(cut);
    let plain = write(dir.path(), "1.ndjson", a);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b).unwrap();
    let gz_path = write(dir.path(), "2.ndjson.gz", &gz.finish().unwrap());
    let zst = zstd::encode_all(&data[..], 1).unwrap();
    let zst_path = write(dir.path(), "3.ndjson.zst", &zst);
    let (want, ..) = expected(&data);
    let (drove, out) = fake_run(
        &[plain.clone(), gz_path.clone(), zst_path],
        2,
        Some(512),
        4096,
        None,
        false,
    );
    let drove = drove.unwrap();
    assert_eq!(out, [want.clone(), want].concat());
    assert_eq!(drove.stats.bytes, 2 * data.len() as u64);
    // The first bad line is in the first file; line numbers restart in each input.
    let (_, _, _, bad, first) = expected(&data);
    assert_eq!(drove.stats.malformed, 2 * bad);
    let first_bad = drove.stats.first_bad.unwrap();
    assert_eq!(
        (first_bad.position.line, first_bad.name),
        (first, plain.display().to_string())
    );

    // Only the gz file: its line numbers count from its own first line.
    let (drove, _) = fake_run(&[gz_path], 1, None, WINDOW, None, false);
    let (_, _, _, _, first_in_b) = expected(b);
    assert_eq!(
        drove.unwrap().stats.first_bad.unwrap().position.line,
        first_in_b
    );
}

#[test]
fn limit_stops_early_with_the_first_rows() {
    let dir = tempfile::tempdir().unwrap();
    let data = lines().repeat(50);
    let path = write(dir.path(), "big.ndjson", &data);
    let (all, total_lines, ..) = expected(&data);
    let want: Vec<u8> = all
        .split_inclusive(|&b| b == b'\n')
        .take(3)
        .flatten()
        .copied()
        .collect();
    for threads in [1, 2] {
        for chunk in [None, Some(1), Some(1000)] {
            let (drove, out) = fake_run(
                std::slice::from_ref(&path),
                threads,
                chunk,
                1 << 16,
                Some(3),
                false,
            );
            let drove = drove.unwrap();
            assert_eq!(out, want, "threads {threads} chunk {chunk:?}");
            assert_eq!(drove.stats.rows, 3);
            assert!(
                drove.stats.lines < total_lines / 10,
                "scanned {} of {total_lines}",
                drove.stats.lines
            );
        }
    }
    let (drove, out) = fake_run(&[path], 2, None, WINDOW, Some(0), false);
    assert!(out.is_empty());
    assert_eq!(drove.unwrap().stats.rows, 0);
}

#[test]
fn offset_skips_the_first_rows_and_limit_stops_after_offset_plus_limit() {
    let dir = tempfile::tempdir().unwrap();
    let data = lines().repeat(50);
    let path = write(dir.path(), "big.ndjson", &data);
    let (all, total_lines, ..) = expected(&data);
    let all: Vec<&[u8]> = all.split_inclusive(|&b| b == b'\n').collect();
    let page = |skip: usize, take: usize| -> Vec<u8> {
        all.iter()
            .skip(skip)
            .take(take)
            .flat_map(|l| l.iter())
            .copied()
            .collect()
    };
    for threads in [1, 2] {
        for chunk in [None, Some(1), Some(1000)] {
            for window in [1000, WINDOW] {
                for (limit, offset) in [(Some(3), 2), (Some(1), 40), (Some(0), 5)] {
                    let what = format!(
                        "threads {threads} chunk {chunk:?} window {window} limit {limit:?} offset {offset}"
                    );
                    let (drove, out) = fake_run_paged(
                        std::slice::from_ref(&path),
                        threads,
                        chunk,
                        window,
                        limit,
                        offset,
                        false,
                    );
                    let drove = drove.expect("runs");
                    let take = limit.map_or(usize::MAX, |l| l as usize);
                    assert!(out == page(offset as usize, take), "{what}: output differs");
                    assert_eq!(
                        drove.stats.rows,
                        (all.len() - offset as usize).min(take) as u64
                    );
                    // Reading stops once offset + limit rows are out: at least that many
                    // lines matched, and far from all were read.
                    let l = limit.unwrap_or(0);
                    assert!(drove.stats.hits >= l + offset, "{what}");
                    assert!(drove.stats.lines < total_lines / 10, "{what}");
                }
            }
        }
    }
    // An offset alone reads everything and leaves out the first rows.
    let small = write(dir.path(), "small.ndjson", &lines());
    let (all, _, hits, ..) = expected(&lines());
    let rows: Vec<&[u8]> = all.split_inclusive(|&b| b == b'\n').collect();
    for threads in [1, 3] {
        for chunk in [None, Some(1), Some(700)] {
            let (drove, out) = fake_run_paged(
                std::slice::from_ref(&small),
                threads,
                chunk,
                1000,
                None,
                7,
                false,
            );
            let drove = drove.expect("runs");
            assert!(
                out == rows[7..].concat(),
                "threads {threads} chunk {chunk:?}"
            );
            assert_eq!(drove.stats.hits, hits);
            assert_eq!(drove.stats.rows, rows.len() as u64 - 7);
        }
    }
}

#[test]
fn a_limit_counts_lines_and_bad_lines_up_to_its_last_row_for_every_split() {
    let dir = tempfile::tempdir().unwrap();
    // Read whole as a small file, and mapped in windows.
    for (name, data) in [("small", lines().repeat(3)), ("large", lines().repeat(30))] {
        let path = write(dir.path(), name, &data);
        for limit in [3, 20, 150, 400] {
            let (_, lines, _, bad, first) = expected_up_to(&data, limit);
            assert!(bad > 0 || limit < 20);
            for threads in [1, 2, 3] {
                for chunk in [None, Some(1), Some(300), Some(5000)] {
                    for window in [1000, WINDOW] {
                        let what = format!(
                            "{name} limit {limit} threads {threads} chunk {chunk:?} window {window}"
                        );
                        let (drove, _) = fake_run(
                            std::slice::from_ref(&path),
                            threads,
                            chunk,
                            window,
                            Some(limit),
                            false,
                        );
                        let stats = drove.expect("runs").stats;
                        assert_eq!(stats.rows, limit, "{what}");
                        assert_eq!(stats.hits, limit, "{what}");
                        assert_eq!(stats.lines, lines, "{what}");
                        assert_eq!(stats.malformed, bad, "{what}");
                        assert_eq!(
                            stats.first_bad.map_or(0, |b| b.position.line),
                            first,
                            "{what}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn strict_stops_at_the_first_bad_line_after_the_lines_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = lines();
    let path = write(dir.path(), "a.ndjson", &data);
    let (_, _, _, _, first) = expected(&data);
    let before: Vec<u8> = data
        .split_inclusive(|&b| b == b'\n')
        .take(first as usize - 1)
        .flatten()
        .copied()
        .collect();
    let (want, ..) = expected(&before);
    for (threads, chunk) in [(1, None), (2, Some(1)), (3, Some(700))] {
        let (drove, out) = fake_run(
            std::slice::from_ref(&path),
            threads,
            chunk,
            2048,
            None,
            true,
        );
        let err = drove.expect_err("strict fails");
        let strict = err.downcast_ref::<StrictError>().expect("a StrictError");
        assert_eq!(strict.0.position.line, first);
        assert_eq!(out, want, "threads {threads} chunk {chunk:?}");
        assert_eq!(
            err.to_string(),
            format!(
                "{}:{first}: bad bad 99 (--strict stops at the first bad line)",
                path.display()
            )
        );
    }
}

/// `--strict` validates every line: a `limit` (even `limit 0`) reached before the first bad
/// line cuts the output there, yet the run still reads on and fails at that line.
#[test]
fn strict_reads_past_the_limit_to_the_first_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = lines();
    let path = write(dir.path(), "a.ndjson", &data);
    let (all, _, _, _, first) = expected(&data);
    for limit in [0, 2] {
        let want: Vec<u8> = all
            .split_inclusive(|&b| b == b'\n')
            .take(limit)
            .flatten()
            .copied()
            .collect();
        for (threads, chunk) in [(1, None), (2, Some(1)), (3, Some(700))] {
            let what = format!("limit {limit}, threads {threads}, chunk {chunk:?}");
            let (drove, out) = fake_run(
                std::slice::from_ref(&path),
                threads,
                chunk,
                2048,
                Some(limit as u64),
                true,
            );
            let err = drove.expect_err(&what);
            let strict = err.downcast_ref::<StrictError>().expect("a StrictError");
            assert_eq!(strict.0.position.line, first, "{what}");
            assert_eq!(out, want, "{what}");
        }
    }
}

#[test]
fn bom_empty_files_and_long_lines() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.ndjson", b"");
    let mut long = b"\xEF\xBB\xBF{\"hit\":\"".to_vec();
    long.extend(std::iter::repeat_n(b'x', 300_000));
    long.extend_from_slice(b"\"}\r\n{\"after\":1}\n{\"hit\":2}");
    let long_path = write(dir.path(), "long.ndjson", &long);
    let (want, ..) = expected(&long);
    for window in [1, 4096, WINDOW] {
        let (drove, out) = fake_run(
            &[empty.clone(), long_path.clone()],
            2,
            None,
            window,
            None,
            false,
        );
        let drove = drove.unwrap();
        assert!(out == want, "window {window}");
        assert_eq!((drove.stats.lines, drove.stats.malformed), (3, 0));
    }
    let (drove, out) = fake_run(&[empty], 2, None, WINDOW, None, false);
    assert!(out.is_empty());
    let stats = drove.unwrap().stats;
    assert_eq!((stats.lines, stats.bytes, stats.malformed), (0, 0, 0));
}

#[test]
fn bom_only_at_the_start_of_a_file() {
    assert_eq!(strip_bom(b"\xEF\xBB\xBF{}"), b"{}");
    assert_eq!(strip_bom(b"{}"), b"{}");
    assert_eq!(strip_bom(b"\xEF\xBB"), b"\xEF\xBB");
}

#[test]
fn stats_line() {
    let stats = Stats {
        lines: 1000,
        hits: 10,
        malformed: 2,
        bytes: 2_000_000,
        rows: 10,
        skipped: 0,
        first_bad: None,
        elapsed: Duration::from_millis(500),
    };
    assert_eq!(
        stats.line(),
        "stats: 1000 lines scanned, 10 hits, 2 malformed, 2000000 bytes, 0.500 s, 4.0 MB/s"
    );
}

/// A step that cuts its file down to `keep` bytes at its first line, as logrotate's
/// copytruncate would while ndq reads it.
struct Truncating {
    path: PathBuf,
    keep: u64,
}

impl chunk::LineStep for Truncating {
    fn step(&mut self, _: &[u8], _: &mut chunk::ChunkOut) -> Result<(), Rejection> {
        let file = std::fs::OpenOptions::new().write(true).open(&self.path);
        file.and_then(|f| f.set_len(self.keep))
            .expect("the file is cut short");
        Ok(())
    }
}

#[test]
fn a_file_cut_short_while_read_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    // Larger than a small file (those are read whole, not mapped).
    let path = write(dir.path(), "a.ndjson", &lines().repeat(20));
    let opts = RunOptions {
        threads: 1,
        scanner: Scanner::Scalar,
        engine: Engine::Lazy,
        strict: false,
        progress: false,
        progress_after: progress::SHOW_AFTER,
        color: false,
        color_stdout: false,
        chunk_size: None,
        window: 1000,
        prefilter: true,
        ..RunOptions::default()
    };
    let facts = every_line();
    let inputs = Inputs::open(std::slice::from_ref(&path)).expect("inputs open");
    // The first window (under 1000 bytes) lies in the first page, which stays readable.
    let make = || Truncating {
        path: path.clone(),
        keep: 2000,
    };
    let err = drive(&opts, &facts, &make, &inputs, &mut Vec::new()).expect_err("cut short");
    let msg = format!("{err:#}");
    assert!(msg.contains("the file shrank from"), "{msg}");
    assert!(msg.contains(&path.display().to_string()), "{msg}");
}

/// A step that, at its first line, finishes the file's last line (written without its
/// newline) and appends another, as a logger does while ndq reads; a line that is not JSON
/// is rejected.
struct Growing {
    path: PathBuf,
    /// Shared by the steps of every worker: the file grows once.
    grown: Arc<std::sync::atomic::AtomicBool>,
}

impl chunk::LineStep for Growing {
    fn step(&mut self, line: &[u8], _: &mut chunk::ChunkOut) -> Result<(), Rejection> {
        if !self.grown.swap(true, Ordering::SeqCst) {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&self.path)
                .expect("open to append");
            std::io::Write::write_all(&mut f, b"\"}\n{\"n\":-2}\n").expect("append");
        }
        serde_json::from_slice::<serde_json::Value>(line)
            .map(drop)
            .map_err(|e| Rejection::Serde(e.to_string()))
    }
}

/// A last line without its newline in a file that grows while it is read is a line still
/// being written: left out, not counted as malformed (a mapped file and a small one read
/// whole); in a file that does not grow, it is read as any line.
#[test]
fn a_last_line_still_being_written_is_not_a_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let good: Vec<u8> = (0..200)
        .flat_map(|i| format!("{{\"n\":{i}}}\n").into_bytes())
        .collect();
    for (name, repeat) in [("small.ndjson", 1), ("large.ndjson", 20_000)] {
        let mut data = good.repeat(repeat);
        data.extend_from_slice(b"{\"n\":-1,\"m\":\"half");
        let path = write(dir.path(), name, &data);
        let opts = RunOptions {
            threads: 2,
            window: 1 << 20,
            ..RunOptions::default()
        };
        let facts = every_line();
        let inputs = Inputs::open(std::slice::from_ref(&path)).expect("inputs open");
        assert!(
            (name == "small.ndjson") == (inputs.list[0].len < Some(SMALL_FILE)),
            "{name}: the path under test"
        );
        let grown = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let make = || Growing {
            path: path.clone(),
            grown: grown.clone(),
        };
        let drove = drive(&opts, &facts, &make, &inputs, &mut Vec::new()).expect("run");
        assert_eq!(drove.stats.malformed, 0, "{name}");
        assert_eq!(drove.stats.lines, 200 * repeat as u64, "{name}");
        // Read again, the file no longer grows: the finished line and the next are read.
        let grown = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let make = || Growing {
            path: path.clone(),
            grown: grown.clone(),
        };
        let inputs = Inputs::open(std::slice::from_ref(&path)).expect("inputs open");
        let drove = drive(&opts, &facts, &make, &inputs, &mut Vec::new()).expect("run");
        assert_eq!(
            (drove.stats.malformed, drove.stats.lines),
            (0, 200 * repeat as u64 + 2),
            "{name}"
        );
    }
    // A file that does not grow: its last line without a newline is read (here, malformed).
    let path = write(dir.path(), "still.ndjson", b"{\"n\":1}\n{\"n\":");
    let grown = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let make = || Growing {
        path: path.clone(),
        grown: grown.clone(),
    };
    let facts = every_line();
    let inputs = Inputs::open(std::slice::from_ref(&path)).expect("inputs open");
    let drove = drive(
        &RunOptions::default(),
        &facts,
        &make,
        &inputs,
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!((drove.stats.malformed, drove.stats.lines), (1, 2));
}

/// Windows are mapped with the huge-page advice (where the kernel has transparent huge pages),
/// so that a file ndq reads into the page cache is cached in 2 MiB pages and later runs map it
/// 2 MiB at a time: the flag shows in `/proc/self/smaps` as `hg`.
#[cfg(target_os = "linux")]
#[test]
fn windows_are_mapped_with_the_huge_page_advice() {
    if !Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
        eprintln!("skipped: this kernel has no transparent huge pages");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "a.ndjson", &vec![b'x'; 3 << 20]);
    let file = File::open(&path).unwrap();
    let map = map_window(&file, 4096, 2 << 20).expect("mapped");
    let start = map.as_ptr() as usize & !4095;
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    // A mapping's header line is its address range `from-to ...`; its fields follow, up to
    // the next header.
    let range = |line: &str| {
        let (from, rest) = line.split_once('-')?;
        let to = rest.split(' ').next()?;
        Some(usize::from_str_radix(from, 16).ok()?..usize::from_str_radix(to, 16).ok()?)
    };
    let mut lines = smaps.lines();
    lines
        .by_ref()
        .find(|l| range(l).is_some_and(|r| r.contains(&start)))
        .expect("the window is in /proc/self/smaps");
    let flags = lines
        .take_while(|l| range(l).is_none())
        .find_map(|l| l.strip_prefix("VmFlags:"))
        .expect("the window's VmFlags line");
    assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
}

/// `having`, `select distinct` and `offset` through the whole driver with real plans: every
/// thread count and chunk size (one line per chunk included) gives the bytes of one thread
/// and one chunk, in a streaming format and in `table` (rows kept to the end).
#[test]
fn having_distinct_and_offset_give_the_same_bytes_for_every_thread_count_and_chunk() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample.ndjson");
    let inputs = Inputs::open(&[sample]).expect("the sample opens");
    let queries = [
        "select RequestPath, count(*) group by RequestPath having count(*) > 1",
        "select @l, avg(Elapsed) group by @l having max(Elapsed) > 100 order by count(*) desc",
        "select count(*) having count(*) > 1000000",
        "select distinct @l",
        "select distinct RequestMethod, StatusCode order by StatusCode desc limit 4 offset 1",
        "select distinct * where StatusCode >= 400",
        "select distinct RequestMethod group by RequestMethod, @l",
        "select Message offset 250",
        "select Message where Elapsed > 100 limit 3 offset 10",
        "where StatusCode >= 500 offset 2",
        "select RequestPath, Elapsed order by Elapsed desc limit 5 offset 3",
        "select RequestPath group by RequestPath order by count(*) desc, RequestPath limit 5",
        "select count(*), count(*) where StatusCode = 200",
    ];
    let once = |plan: &Plan, threads: usize, chunk: Option<usize>, format: Format| {
        let opts = RunOptions {
            threads,
            chunk_size: chunk,
            progress: false,
            ..RunOptions::default()
        };
        let mut out = Vec::new();
        run(&opts, plan, &inputs, format, &mut out).expect("runs");
        out
    };
    for query in queries {
        let plan = Plan::compile(query).expect("compiles");
        for format in [Format::Json, Format::Table] {
            let want = once(&plan, 1, None, format);
            // Every query but the one whose `having` is false gives some rows.
            let none = query.contains("1000000") && format == Format::Json;
            assert_eq!(want.is_empty(), none, "{query}: {want:?}");
            for threads in [1, 2, 3] {
                for chunk in [Some(1), Some(700), Some(1 << 30)] {
                    let got = once(&plan, threads, chunk, format);
                    assert!(
                        got == want,
                        "{query} ({format:?}, threads {threads}, chunk {chunk:?}):\n{}\nwant:\n{}",
                        String::from_utf8_lossy(&got),
                        String::from_utf8_lossy(&want)
                    );
                }
            }
        }
    }
}

/// Files of `lines()` cut into `n` pieces at line boundaries, with the shapes small files
/// take: some empty, some without a final newline (the piece's last line is whole), a BOM at
/// the start of some, CRLF line ends in others. Returns the paths in order and the expected
/// output, lines, hits, bad lines, and the first bad line (file, line: each file's lines are
/// numbered from 1).
type Tiny = (Vec<PathBuf>, Vec<u8>, u64, u64, u64, (usize, u64));
fn tiny_files(dir: &Path, n: usize) -> Tiny {
    let data = lines().repeat(n / 500 + 1);
    let all: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
    let per = all.len() / n;
    let (mut paths, mut want) = (Vec::new(), Vec::new());
    let (mut lines, mut hits, mut bad, mut first_bad) = (0, 0, 0, None);
    for i in 0..n {
        let mut file: Vec<u8> = match i % 10 {
            3 => Vec::new(),
            _ => all[i * per..(i + 1) * per].concat(),
        };
        if i % 10 == 5 {
            file = file.strip_suffix(b"\n").unwrap_or(&file).to_vec();
        }
        if i % 10 == 6 {
            file = [&b"\xEF\xBB\xBF"[..], &file].concat();
        }
        if i % 10 == 7 {
            let text = String::from_utf8(file).unwrap().replace('\n', "\r\n");
            file = text.into_bytes();
        }
        let (out, l, h, b, first) = expected(&file);
        if b > 0 && first_bad.is_none() {
            first_bad = Some((i, first));
        }
        want.extend_from_slice(&out);
        (lines, hits, bad) = (lines + l, hits + h, bad + b);
        // Sorted by name in a directory as in this order.
        paths.push(write(dir, &format!("part-{i:05}.ndjson"), &file));
    }
    (
        paths,
        want,
        lines,
        hits,
        bad,
        first_bad.expect("a bad line"),
    )
}

#[test]
fn many_tiny_files_give_each_files_lines_in_order_for_every_thread_count_chunk_and_window() {
    let dir = tempfile::tempdir().unwrap();
    let (paths, want, lines, hits, bad, (file, line)) = tiny_files(dir.path(), 1200);
    for threads in [1, 2, 3] {
        for chunk in [None, Some(1), Some(300)] {
            for window in [4096, WINDOW] {
                let what = format!("threads {threads} chunk {chunk:?} window {window}");
                // The directory, and the files named one by one.
                for inputs in [vec![dir.path().to_path_buf()], paths.clone()] {
                    let (drove, out) = fake_run(&inputs, threads, chunk, window, None, false);
                    let s = drove.expect("runs").stats;
                    assert!(out == want, "{what}: output differs");
                    assert_eq!((s.lines, s.hits, s.malformed), (lines, hits, bad), "{what}");
                    let first = s.first_bad.expect("a bad line");
                    let name = paths[file].display().to_string();
                    assert_eq!((first.name, first.position.line), (name, line), "{what}");
                }
            }
        }
    }
}

#[test]
fn a_bad_line_in_the_three_thousandth_tiny_file_is_named_by_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for i in 0..3200 {
        let text = match i {
            2999 => "{\"hit\":1}\n\n{\"n\":2}\r\nnot json\n{\"hit\":3}\n".to_string(),
            i if i % 2 == 0 => format!("{{\"n\":{i}}}\n{{\"hit\":{i}}}\n"),
            i => format!("\u{feff}{{\"hit\":{i}}}"),
        };
        paths.push(write(
            dir.path(),
            &format!("f-{i:05}.ndjson"),
            text.as_bytes(),
        ));
    }
    let name = paths[2999].display().to_string();
    for threads in [1, 2, 3] {
        for chunk in [None, Some(1), Some(10)] {
            let what = format!("threads {threads} chunk {chunk:?}");
            let dirs = [dir.path().to_path_buf()];
            let (drove, out) = fake_run(&dirs, threads, chunk, WINDOW, None, false);
            let s = drove.expect("runs").stats;
            assert_eq!((s.malformed, s.hits), (1, 3201), "{what}");
            let first = s.first_bad.expect("a bad line");
            assert_eq!(
                (first.name.as_str(), first.position.line),
                (name.as_str(), 4)
            );
            assert_eq!(first.position.input, 2999, "{what}");
            assert!(out.ends_with(b"{\"hit\":3199}\n"), "{what}");

            // --strict: every line before it written, then the error naming it.
            let (drove, out) = fake_run(&dirs, threads, chunk, WINDOW, None, true);
            let err = drove.expect_err("strict fails");
            assert_eq!(
                err.to_string(),
                format!("{name}:4: bad not json (--strict stops at the first bad line)"),
                "{what}"
            );
            assert!(out.ends_with(b"{\"hit\":2998}\n{\"hit\":1}\n"), "{what}");

            // limit stops inside the batch with the first rows.
            let (drove, out) = fake_run(&dirs, threads, chunk, WINDOW, Some(3), false);
            assert_eq!(drove.expect("runs").stats.rows, 3);
            assert_eq!(out, b"{\"hit\":0}\n{\"hit\":1}\n{\"hit\":2}\n", "{what}");
        }
    }
}

/// Real plans, prefilter on and off: the sample cut into tiny files (a directory), and the
/// sample gzipped, zstd-compressed and gzipped in two members, give the bytes of the sample
/// read as one plain file, for every thread count, chunk size and window.
#[test]
fn tiny_files_and_compressed_inputs_give_the_bytes_of_the_plain_file() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample.ndjson");
    let data = std::fs::read(&sample).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tiny = dir.path().join("tiny");
    std::fs::create_dir(&tiny).unwrap();
    for (i, line) in data.split_inclusive(|&b| b == b'\n').enumerate() {
        write(&tiny, &format!("{i:04}.ndjson"), line);
    }
    let gzip = |bytes: &[u8]| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap()
    };
    let cut = data.len() / 3;
    let cut = cut + data[cut..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let two = [gzip(&data[..cut]), gzip(&data[cut..])].concat();
    // The sample in three compressed files, decompressed at once with two threads or more.
    let third = data.len() * 2 / 3;
    let third = third + data[third..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let parts = vec![
        write(dir.path(), "p1.ndjson.gz", &gzip(&data[..cut])),
        write(
            dir.path(),
            "p2.ndjson.zst",
            &zstd::encode_all(&data[cut..third], 1).unwrap(),
        ),
        write(dir.path(), "p3.ndjson.gz", &gzip(&data[third..])),
    ];
    let inputs = [
        parts,
        vec![tiny],
        vec![write(dir.path(), "s.ndjson.gz", &gzip(&data))],
        vec![write(
            dir.path(),
            "s.ndjson.zst",
            &zstd::encode_all(&data[..], 1).unwrap(),
        )],
        vec![write(dir.path(), "two.ndjson.gz", &two)],
    ];
    let queries = [
        "where contains(Message, 'POST') and StatusCode >= 400",
        "select RequestPath, Elapsed where Elapsed > 100 limit 7 offset 2",
        "select @l, count(*) group by @l order by count(*) desc",
        "where StatusCode = 404",
    ];
    let once = |paths: &[PathBuf], plan: &Plan, threads, chunk, window, prefilter| {
        let opts = RunOptions {
            threads,
            chunk_size: chunk,
            window,
            prefilter,
            progress: false,
            ..RunOptions::default()
        };
        let inputs = Inputs::open(paths).expect("inputs open");
        let mut out = Vec::new();
        run(&opts, plan, &inputs, Format::Json, &mut out).expect("runs");
        out
    };
    for query in queries {
        let plan = Plan::compile(query).expect("compiles");
        let want = once(std::slice::from_ref(&sample), &plan, 1, None, WINDOW, false);
        assert!(!want.is_empty(), "{query}");
        for paths in &inputs {
            for threads in [1, 3] {
                for chunk in [None, Some(1), Some(700)] {
                    for window in [4096, WINDOW] {
                        for prefilter in [false, true] {
                            let got = once(paths, &plan, threads, chunk, window, prefilter);
                            assert!(
                                got == want,
                                "{query} over {paths:?} (threads {threads}, chunk {chunk:?}, \
                                 window {window}, prefilter {prefilter})"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn several_compressed_files_at_once_keep_order_limit_strict_and_name_a_truncated_one() {
    let dir = tempfile::tempdir().unwrap();
    let data = lines();
    let gzip = |bytes: &[u8]| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap()
    };
    let (want, _, hits, bad, first) = expected(&data);
    // Two members in the first file, then zstd, then gzip.
    let cut = data.len() / 2;
    let cut = cut + data[cut..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let two = [gzip(&data[..cut]), gzip(&data[cut..])].concat();
    let paths = vec![
        write(dir.path(), "1.ndjson.gz", &two),
        write(
            dir.path(),
            "2.ndjson.zst",
            &zstd::encode_all(&data[..], 1).unwrap(),
        ),
        write(dir.path(), "3.ndjson.gz", &gzip(&data)),
    ];
    for threads in [1, 2, 3] {
        for chunk in [None, Some(1), Some(500)] {
            for window in [1, 4096, WINDOW] {
                let what = format!("threads {threads} chunk {chunk:?} window {window}");
                let (drove, out) = fake_run(&paths, threads, chunk, window, None, false);
                let s = drove.expect("runs").stats;
                assert!(out == want.repeat(3), "{what}: output differs");
                assert_eq!((s.hits, s.malformed), (3 * hits, 3 * bad), "{what}");
                let first_bad = s.first_bad.expect("a bad line");
                assert_eq!(first_bad.position.line, first, "{what}");
                assert_eq!(first_bad.name, paths[0].display().to_string(), "{what}");

                let (drove, out) = fake_run(&paths, threads, chunk, window, Some(5), false);
                assert_eq!(drove.expect("runs").stats.rows, 5, "{what}");
                let five: Vec<u8> = want
                    .split_inclusive(|&b| b == b'\n')
                    .take(5)
                    .flatten()
                    .copied()
                    .collect();
                assert_eq!(out, five, "{what}");

                let (drove, _) = fake_run(&paths[1..], threads, chunk, window, None, true);
                let err = drove.expect_err("strict fails");
                assert!(
                    err.to_string()
                        .starts_with(&format!("{}:{first}: ", paths[1].display())),
                    "{what}: {err}"
                );
            }
        }
    }
    // A truncated file: the files before it are written whole, then an error names it.
    let whole = gzip(&data);
    let short = write(dir.path(), "4.ndjson.gz", &whole[..whole.len() / 2]);
    for threads in [1, 2, 3] {
        let inputs = [paths[2].clone(), short.clone(), paths[0].clone()];
        let (drove, out) = fake_run(&inputs, threads, None, WINDOW, None, false);
        let err = drove.expect_err("a truncated file fails");
        let msg = format!("{err:#}");
        assert!(
            msg.starts_with(&short.display().to_string()),
            "threads {threads}: {msg}"
        );
        assert!(out.starts_with(&want), "threads {threads}");
    }
}

/// `lines` lines of `keys` keys `k` (and numbers `n` spelled three ways, values `v`, texts `s`
/// with an escaped one, status codes `st`), from a fixed seed.
fn group_lines(lines: u64, keys: u64) -> String {
    let mut data = String::new();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..lines {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let n = x % 30;
        let n = match i % 3 {
            0 => format!("{}.{}", n / 10, n % 10),
            1 => format!("{}.{}0", n / 10, n % 10),
            _ => format!("{n}e-1"),
        };
        let s = ["a", "b", "\\u00e9", "Z"][(x >> 20) as usize % 4];
        data += &format!(
            "{{\"k\":\"key{}\",\"n\":{n},\"v\":{}.{:02},\"s\":\"{s}\",\"st\":{}}}\n",
            (x >> 8) % keys,
            x % 997,
            (x >> 12) % 100,
            [200, 404, 500][(x >> 30) as usize % 3]
        );
    }
    data
}

/// Aggregations of thousands of groups (every aggregate kind, `having`, `order by ... limit`,
/// the groups' first spellings) through the whole driver: every thread count, chunk size and
/// window gives the bytes of one thread and one chunk, however the chunks' groups are merged.
#[test]
fn many_groups_give_the_same_bytes_for_every_thread_count_chunk_and_window() {
    let dir = tempfile::tempdir().unwrap();
    let data = group_lines(6000, 2500);
    let path = write(dir.path(), "groups.ndjson", data.as_bytes());
    let inputs = Inputs::open(&[path]).expect("opens");
    let queries = [
        "select k, count(*), sum(v), avg(v), min(v), max(s), percentile(v, 50), count_distinct(n) group by k",
        "select n, count(*), min(s) group by n",
        "select k, count(*) filter (where st >= 500) as e, count_if(st = 200) group by k having count(*) > 2 order by e desc limit 9 offset 1",
        "select k, count(*) as c group by k order by c desc, k limit 3",
        "select extract(k, 'y(\\d)(\\d)') as d, count(*) filter (where st >= 500) group by d",
    ];
    same_rows_for_every_split(
        &inputs,
        &queries,
        &[1, 2, 3],
        &[Some(1), Some(4000), None],
        &[50_000, WINDOW],
    );
}

/// Each query's JSON rows over `inputs`, for every thread count, chunk size and window given,
/// are those of one thread and one window.
fn same_rows_for_every_split(
    inputs: &Inputs,
    queries: &[&str],
    threads: &[usize],
    chunks: &[Option<usize>],
    windows: &[usize],
) {
    for query in queries {
        let plan = Plan::compile(query).expect("compiles");
        let once = |threads: usize, chunk: Option<usize>, window: usize| {
            let opts = RunOptions {
                threads,
                chunk_size: chunk,
                window,
                progress: false,
                ..RunOptions::default()
            };
            let mut out = Vec::new();
            run(&opts, &plan, inputs, Format::Json, &mut out).expect("runs");
            out
        };
        let want = once(1, None, WINDOW);
        assert!(!want.is_empty(), "{query}");
        for &threads in threads {
            for &chunk in chunks {
                for &window in windows {
                    let got = once(threads, chunk, window);
                    assert!(
                        got == want,
                        "{query} (threads {threads}, chunk {chunk:?}, window {window}):\n{}\nwant:\n{}",
                        String::from_utf8_lossy(&got),
                        String::from_utf8_lossy(&want)
                    );
                }
            }
        }
    }
}

/// A file read in windows whose chunks hold more groups than are merged on the driver's
/// thread (`FEW_GROUPS`): each window's merge runs on the pool beside the next window's
/// chunks, and the last one's after them. The rows are those of one thread and one window.
#[test]
fn a_window_merged_beside_the_next_ones_chunks_gives_the_bytes_of_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    // Over `SMALL_FILE` (so it is mapped in windows, not read whole), about 1.4 MB in three
    // windows of 500,000 bytes, each of about 7,000 lines and more than 4,096 keys.
    let data = group_lines(20_000, 15_000);
    assert!(data.len() as u64 > SMALL_FILE && data.len() > 2 * 500_000);
    let path = write(dir.path(), "groups.ndjson", data.as_bytes());
    let inputs = Inputs::open(&[path]).expect("opens");
    let queries = [
        "select k, count(*) filter (where st >= 500) * 100 / count(*) as err, min(s), sum(n) group by k order by err desc, k limit 20",
        // Ties of `c` go by first appearance, which the merge's order decides.
        "select k, count(*) as c, max(v) group by k order by c desc limit 50",
    ];
    same_rows_for_every_split(
        &inputs,
        &queries,
        &[2, 3],
        &[Some(1), Some(40_000), None],
        &[500_000],
    );
}
