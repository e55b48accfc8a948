//! Time ranges read only part of a file, and the answer is that of a full scan: every query
//! with a time range is run on files built to break naive seeking (equal times, times going
//! back, lines without a time or with it elsewhere, two logs concatenated, malformed lines),
//! with the plain path (`NDQ_PREFILTER=off --no-cache`: every line parsed) as the oracle,
//! against the leading-time check without a cache, a cold and a warm zone-map cache, and a
//! cache made stale by appending, truncating, rewriting and replacing the file.
//!
//! Zone maps are made with 4 KiB blocks and for any file size (`NDQ_ZONE_BLOCK`,
//! `NDQ_ZONE_MIN_SIZE`), in a temporary cache directory.

use std::path::{Path, PathBuf};

use crate::util::{Fixture, Run, ndq};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `ms` after 2026-11-21T00:00:00Z (under 20 hours), in RFC 3339 with `digits` fraction
/// digits (0, 1, 3 or 7; the instant is kept exactly only with 3 or 7) and an offset of
/// `offset_h` hours (0: `Z`).
fn stamp(ms: u64, digits: u8, offset_h: u64) -> String {
    let (h, m, s, f) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    let frac = match digits {
        0 => String::new(),
        1 => format!(".{}", f / 100),
        3 => format!(".{f:03}"),
        _ => format!(".{f:03}0000"),
    };
    let zone = if offset_h == 0 {
        "Z".to_owned()
    } else {
        format!("+{offset_h:02}:00")
    };
    format!("2026-11-21T{:02}:{m:02}:{s:02}{frac}{zone}", h + offset_h)
}

/// The time of a bound: `ms` in the plainest form.
fn at(ms: u64) -> String {
    stamp(ms, 3, 0)
}

/// A line with time text `t` and number `n`, padded to about 120 bytes.
fn event(t: &str, n: u64) -> String {
    format!(
        "{{\"@t\":\"{t}\",\"n\":{n},\"l\":\"{}\",\"msg\":\"request {n} handled in the usual way by the usual handler\"}}\n",
        ["Information", "Warning", "Error"][(n % 3) as usize]
    )
}

/// The kinds of files.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// In order, many equal times.
    Ordered,
    /// Times going back a few ms now and then, fraction digits and offsets varying (so the
    /// order of the texts is not the order of the instants).
    Jitter,
    /// In order, with lines whose time is not a leading time: missing, not first, escaped,
    /// a number, duplicated, unreadable; blank lines and CRLF.
    Odd,
    /// Two ordered logs, the second starting earlier than the first ends.
    Concatenated,
    /// In order, with malformed lines.
    Malformed,
}

/// A file of `shape` of about 1.3 MB (more than the 1 MiB below which files are read
/// whole), its times (ms) as written, from `seed`.
fn build(shape: Shape, seed: u64) -> (String, Vec<u64>) {
    let mut rng = Rng(seed | 1);
    let mut out = String::new();
    let mut times = Vec::new();
    let mut t = 3_600_000 + rng.below(1000);
    let lines = 11_000u64;
    for n in 0..lines {
        if matches!(shape, Shape::Concatenated) && n == lines / 2 {
            t = times[times.len() / 3];
        }
        t += rng.below(3);
        let mut written = t;
        if matches!(shape, Shape::Jitter) && rng.below(10) == 0 {
            written = t.saturating_sub(rng.below(6));
        }
        let text = match shape {
            Shape::Jitter => {
                let digits = [0, 1, 3, 7][rng.below(4) as usize];
                // Digits dropped are dropped from the instant too.
                written -= match digits {
                    0 => written % 1000,
                    1 => written % 100,
                    _ => 0,
                };
                stamp(written, digits, [0, 0, 2][rng.below(3) as usize])
            }
            _ => stamp(written, 3, 0),
        };
        times.push(written);
        let line = event(&text, n);
        let odd = rng.below(100);
        match shape {
            Shape::Odd if odd == 0 => {
                let odd_line = match rng.below(9) {
                    0 => "{\"n\":1,\"msg\":\"no time\"}\n".to_owned(),
                    1 => format!("{{\"n\":2,\"@t\":\"{text}\"}}\n"),
                    2 => format!("{{\"@\\u0074\":\"{text}\",\"n\":3}}\n"),
                    3 => "{\"@t\":1795255200,\"n\":4}\n".to_owned(),
                    4 => format!("{{\"@t\":\"{}\",\"@t\":\"{text}\",\"n\":5}}\n", at(0)),
                    5 => "{\"@t\":\"soon\",\"n\":6}\n".to_owned(),
                    6 => format!(
                        "{{\"@t\":\"{}\\u005a\",\"n\":7}}\n",
                        &text[..text.len() - 1]
                    ),
                    7 => "\n  \n".to_owned(),
                    _ => line.replace('\n', "\r\n"),
                };
                out.push_str(&odd_line);
            }
            Shape::Malformed if odd == 0 => {
                out.push_str(&line[..line.len() / 2]);
                out.push('\n');
            }
            _ => out.push_str(&line),
        }
    }
    (out, times)
}

/// The queries with a time range, for a file whose times are `times` (sorted copies give the
/// bounds: the range at the very start and end, in the middle, empty, everything).
fn queries(times: &[u64]) -> Vec<Vec<String>> {
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    let q = |f: usize| sorted[(sorted.len() - 1) * f / 100];
    let (first, last) = (sorted[0], sorted[sorted.len() - 1]);
    let (q1, mid, q3) = (at(q(25)), at(q(50)), at(q(75)));
    let list: Vec<Vec<String>> = vec![
        vec!["--since".into(), mid.clone(), "select count(*)".into()],
        vec![
            "--since".into(),
            mid.clone(),
            "--until".into(),
            q3.clone(),
            "select count(*), min(n), max(n)".into(),
        ],
        vec!["--until".into(), q1.clone(), "select n".into()],
        vec!["--since".into(), at(last), "select *".into()],
        vec!["--until".into(), at(first + 1), "select n, @t".into()],
        vec![
            "--since".into(),
            mid.clone(),
            "--until".into(),
            mid.clone(),
            "select count(*)".into(),
        ],
        vec![format!(
            "select count(*) where @t >= datetime('{mid}') and n % 2 = 0"
        )],
        vec![format!("select n where @t >= '{mid}' and @t < '{q3}'")],
        vec![format!(
            "select count(*) where datetime(@t) > datetime('{q3}') or n = 5"
        )],
        vec![
            "--since".into(),
            q1.clone(),
            "select time(1s) as s, count(*) group by s order by s".into(),
        ],
        vec!["--since".into(), mid.clone(), "select n limit 5".into()],
        vec![
            "--since".into(),
            q1,
            "select n order by n desc limit 3".into(),
        ],
        vec![
            "--since".into(),
            "2026-11-21".into(),
            "--until".into(),
            "2026-11-22".into(),
            "select count(*)".into(),
        ],
        vec![
            "--since".into(),
            "2026-11-22".into(),
            "select count(*)".into(),
        ],
        vec![format!("select count(*) where @t = '{}'", at(q(60)))],
        vec![format!(
            "select count(*) where datetime(@t) <= datetime('{}') - 1s",
            at(q(40))
        )],
    ];
    list
}

/// How a query is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    /// Every line parsed, no cache: the oracle.
    Plain,
    /// Lines ruled out from their leading time, no cache.
    NoCache,
    /// With the zone-map cache in `dir`.
    Cache,
}

fn run(way: Way, args: &[String], file: &Path, cache: &Path, threads: &str) -> Run {
    let mut cmd = ndq(&["-o", "json", "--threads", threads])
        .env("NDQ_ZONE_BLOCK", "4096")
        .env("NDQ_ZONE_MIN_SIZE", "1")
        .env("NDQ_CACHE_DIR", cache.to_str().expect("utf-8 path"));
    match way {
        Way::Plain => cmd = cmd.arg("--no-cache").env("NDQ_PREFILTER", "off"),
        Way::NoCache => cmd = cmd.arg("--no-cache"),
        Way::Cache => {}
    }
    for a in args {
        cmd = cmd.arg(a);
    }
    cmd.path(file).run()
}

/// The answer of a run: stdout, stderr (bad-line warnings) and the status.
fn answer(r: &Run) -> (String, String, Option<i32>) {
    (r.stdout().to_owned(), r.stderr().to_owned(), r.code())
}

/// `args` on `file` the plain way, and the other ways give the same answer; `stderr`: the
/// warnings must agree too (they may not with the plain way when lines are malformed, as the
/// prefilter documents: a line ruled out unread is not validated).
#[track_caller]
fn same(args: &[String], file: &Path, cache: &Path, ways: &[Way], stderr: bool) {
    let want = run(Way::Plain, args, file, cache, "2");
    assert!(
        matches!(want.code(), Some(0 | 1)),
        "the oracle failed{want}"
    );
    let mut reference = None;
    for &way in ways {
        for threads in ["1", "2"] {
            let got = run(way, args, file, cache, threads);
            let (out, err, code) = answer(&got);
            assert_eq!(
                (&out, code),
                (&want.stdout().to_owned(), want.code()),
                "{way:?} differs from the plain way{got}{want}"
            );
            if stderr {
                assert_eq!(err, want.stderr(), "{way:?}: stderr{got}{want}");
            } else {
                // The ways that skip lines agree with each other.
                let r = reference.get_or_insert_with(|| err.clone());
                assert_eq!(&err, r, "{way:?}: stderr{got}");
            }
        }
    }
}

/// Every query, on a file of `shape`: cold cache (a fresh directory per query), warm, none.
fn every_query_agrees(shape: Shape, seed: u64) {
    let f = Fixture::new();
    let (data, times) = build(shape, seed);
    let file = f.write("log.ndjson", &data);
    assert!(data.len() > 1 << 20, "mapped, not read whole");
    let clean = !matches!(shape, Shape::Malformed);
    for (i, args) in queries(&times).iter().enumerate() {
        let cache = f.path(&format!("cache-{i}"));
        // Cold (builds the map), then warm (uses it).
        same(args, &file, &cache, &[Way::Cache, Way::NoCache], clean);
        // A run that stops early (limit) leaves no map: it did not read every block.
        let early = args
            .iter()
            .any(|a| a.contains(" limit ") && !a.contains(" order by "));
        assert_eq!(
            std::fs::read_dir(&cache).map_or(0, |d| d.count()),
            usize::from(!early),
            "zone maps written for {args:?}"
        );
    }
}

#[test]
fn ordered_times_with_many_equal_ones() {
    every_query_agrees(Shape::Ordered, 1);
}

#[test]
fn times_going_back_with_mixed_forms() {
    every_query_agrees(Shape::Jitter, 2);
}

#[test]
fn lines_without_a_leading_time() {
    every_query_agrees(Shape::Odd, 3);
}

#[test]
fn two_logs_concatenated() {
    every_query_agrees(Shape::Concatenated, 4);
}

#[test]
fn malformed_lines_counted_as_without_the_cache() {
    every_query_agrees(Shape::Malformed, 5);
}

#[test]
fn strict_reads_every_line_whatever_the_cache_holds() {
    let f = Fixture::new();
    let (data, times) = build(Shape::Malformed, 6);
    let file = f.write("log.ndjson", &data);
    let cache = f.path("cache");
    let mut sorted = times.clone();
    sorted.sort_unstable();
    let late = at(sorted[sorted.len() * 9 / 10]);
    // Warm the cache, then ask strictly.
    run(
        Way::Cache,
        &["--since".into(), late.clone(), "select count(*)".into()],
        &file,
        &cache,
        "2",
    );
    let args: Vec<String> = vec![
        "--strict".into(),
        "--since".into(),
        late,
        "select count(*)".into(),
    ];
    same(&args, &file, &cache, &[Way::Cache, Way::NoCache], true);
    let strict = run(Way::Cache, &args, &file, &cache, "2");
    strict
        .status(1)
        .stderr_has("--strict stops at the first bad line");
}

/// The stats line's bytes.
fn bytes_read(r: &Run) -> u64 {
    let err = r.stderr();
    let part = err
        .split(", ")
        .find(|p| p.ends_with(" bytes"))
        .unwrap_or_else(|| panic!("no bytes in the stats{r}"));
    part.trim_end_matches(" bytes").parse().expect("a number")
}

#[test]
fn a_warm_cache_skips_blocks_and_no_cache_writes_nothing() {
    let f = Fixture::new();
    let (data, times) = build(Shape::Ordered, 7);
    let file = f.write("log.ndjson", &data);
    let cache = f.path("cache");
    let late = at(times[times.len() * 99 / 100]);
    let args = |extra: &str| -> Vec<String> {
        vec![
            extra.into(),
            "--since".into(),
            late.clone(),
            "select count(*)".into(),
        ]
    };
    let off = run(Way::NoCache, &args("--stats"), &file, &cache, "2");
    assert!(!cache.exists(), "--no-cache writes nothing");
    let cold = run(Way::Cache, &args("--stats"), &file, &cache, "2");
    let warm = run(Way::Cache, &args("--stats"), &file, &cache, "2");
    assert_eq!(off.stdout(), warm.stdout());
    assert_eq!(cold.stdout(), warm.stdout());
    assert_eq!(bytes_read(&off), data.len() as u64);
    assert_eq!(bytes_read(&cold), data.len() as u64);
    assert!(
        bytes_read(&warm) < data.len() as u64 / 10,
        "the warm run reads about the last 1%{warm}"
    );
    // The cache is not used where lines may not be skipped unread.
    let mut strict = args("--strict");
    strict.insert(0, "--stats".into());
    let strict = run(Way::Cache, &strict, &file, &cache, "2");
    assert_eq!(bytes_read(&strict), data.len() as u64, "{strict}");
    let everything = ndq(&["--stats", "--since", &late, "select count(*)"])
        .env("NDQ_ZONE_BLOCK", "4096")
        .env("NDQ_ZONE_MIN_SIZE", "1")
        .env("NDQ_CACHE_DIR", cache.to_str().expect("utf-8 path"))
        .env("NDQ_PREFILTER", "off")
        .path(&file)
        .run();
    assert_eq!(everything.stdout(), warm.stdout());
    assert_eq!(bytes_read(&everything), data.len() as u64, "{everything}");
}

/// Replace `path` with `data`: in place (same inode), or by renaming a new file over it.
fn replace(path: &Path, data: &str, rename: bool) {
    if rename {
        let tmp = PathBuf::from(format!("{}.new", path.display()));
        std::fs::write(&tmp, data).expect("write");
        std::fs::rename(&tmp, path).expect("rename");
    } else {
        std::fs::write(path, data).expect("write");
    }
}

#[test]
fn a_stale_cache_is_noticed_when_the_file_grows_shrinks_or_is_replaced() {
    let f = Fixture::new();
    let (data, _) = build(Shape::Ordered, 8);
    let file = f.write("log.ndjson", &data);
    let cache = f.path("cache");
    // `clean`: no line is malformed (a line cut short is, and the ways that rule lines out
    // unread may not count it: they must agree with each other).
    let check_as = |times: &[u64], clean: bool| {
        let ways: &[Way] = if clean {
            &[Way::Cache]
        } else {
            &[Way::Cache, Way::NoCache]
        };
        for args in queries(times) {
            same(&args, &file, &cache, ways, clean);
        }
    };
    let check = |times: &[u64]| check_as(times, true);
    let times_of = |data: &str| -> Vec<u64> {
        data.lines()
            .filter_map(|l| {
                let t = l.split('"').nth(3)?;
                let (h, m) = (
                    t.get(11..13)?.parse::<u64>().ok()?,
                    t.get(14..16)?.parse::<u64>().ok()?,
                );
                let (s, ms) = (
                    t.get(17..19)?.parse::<u64>().ok()?,
                    t.get(20..23)?.parse::<u64>().ok()?,
                );
                Some(((h * 60 + m) * 60 + s) * 1000 + ms)
            })
            .collect()
    };
    check(&times_of(&data));

    // Appended to (a last line without its newline, then completed).
    let (more, _) = build(Shape::Jitter, 9);
    let third = more[..more.len() / 3].rfind('\n').expect("a line") + 1;
    let grown = format!("{data}{}", &more[..third]);
    let cut = grown.len() - 40;
    replace(&file, &grown[..cut], false);
    check_as(&times_of(&grown[..cut]), false);
    replace(&file, &grown, false);
    check(&times_of(&grown));

    // Truncated at a line start.
    let short = &data[..data[..data.len() / 2].rfind('\n').expect("a line") + 1];
    replace(&file, short, false);
    check(&times_of(short));

    // Rewritten in place, the same size: other times.
    let (other, _) = build(Shape::Ordered, 10);
    let same_size = |d: &str| {
        let mut d = d.to_owned();
        d.truncate(short.len());
        let end = d.rfind('\n').map_or(0, |i| i + 1);
        d.truncate(end);
        while d.len() < short.len() {
            d.push('\n');
        }
        d
    };
    let rewritten = same_size(&other.replace("T01:", "T02:"));
    assert_eq!(rewritten.len(), short.len());
    replace(&file, &rewritten, false);
    check(&times_of(&rewritten));

    // Replaced by another file of the same size.
    let replaced = same_size(&other.replace("T01:", "T03:"));
    replace(&file, &replaced, true);
    check(&times_of(&replaced));
}

#[test]
fn an_unreadable_or_damaged_cache_changes_nothing() {
    let f = Fixture::new();
    let (data, times) = build(Shape::Ordered, 11);
    let file = f.write("log.ndjson", &data);
    let cache = f.path("cache");
    let args = &queries(&times)[0];
    same(args, &file, &cache, &[Way::Cache], true);
    // Damage every cached map (there must be one, or nothing below is tested).
    let mut damaged = 0;
    for entry in std::fs::read_dir(&cache).expect("a cache").flatten() {
        let mut bytes = std::fs::read(entry.path()).expect("read");
        let n = bytes.len();
        bytes[n / 2] ^= 0xff;
        std::fs::write(entry.path(), bytes).expect("write");
        damaged += 1;
    }
    assert!(damaged > 0, "the first run wrote no zone map to damage");
    same(args, &file, &cache, &[Way::Cache], true);
    // A cache directory that is a file: nothing can be written.
    let blocked = f.write("blocked", "x");
    same(args, &file, &blocked, &[Way::Cache], true);
}

/// The time queries of the documents and the other suites (and a few with a prefilter as
/// well as a range), on the committed sample repeated (six logs concatenated, 1.5 MB).
#[test]
fn suite_queries_on_the_sample_repeated() {
    let f = Fixture::new();
    let sample = std::fs::read_to_string(crate::util::sample()).expect("the sample");
    let file = f.write("sample6.ndjson", sample.repeat(6));
    let queries: &[&[&str]] = &[
        &[
            "--since",
            "2026-11-21T00:00:01Z",
            "--until",
            "2026-11-21T00:00:02Z",
            "select count(*)",
        ],
        &[
            "select count(*) where @t >= datetime('2026-11-21T00:00:01Z') and @t < datetime('2026-11-21T00:00:02Z')",
        ],
        &["select time(1s) as second, count(*) group by second"],
        &[
            "--since",
            "2026-11-21T00:00:03Z",
            "select @t, StatusCode, Message where StatusCode >= 500",
        ],
        &[
            "--until",
            "2026-11-21T00:00:01Z",
            "select RequestPath, Elapsed where match(Message, '/api/customers') order by Elapsed desc limit 2",
        ],
        &[
            "--since",
            "2026-11-21T00:00:02.5Z",
            "select count(*) where Elapsed > 200",
        ],
        &[
            "--since",
            "2026-11-21T00:00:04Z",
            "select @l, count(*), avg(Elapsed) group by @l",
        ],
        &["--since", "2026-11-21T00:00:04.5Z", "select *"],
        &["select count(*) where @t < '2026-11-21T00:00:00.5'"],
    ];
    for (i, args) in queries.iter().enumerate() {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let cache = f.path(&format!("cache-{i}"));
        same(&args, &file, &cache, &[Way::Cache, Way::NoCache], true);
    }
}

/// The lines `--stats` says were scanned.
fn scanned(r: &Run) -> u64 {
    let err = r.stderr();
    let part = err
        .split("stats: ")
        .nth(1)
        .and_then(|s| s.split(" lines scanned").next())
        .unwrap_or_else(|| panic!("no lines scanned in the stats{r}"));
    part.parse().expect("a number")
}

/// A zone map is made from every line, the prefilter's skips off; so it is made only for the
/// time property, and only where the cache can keep it. A query on another key, or a cache
/// that cannot be written, skips from the first run what later runs skip.
#[test]
fn zone_maps_are_made_for_the_time_property_where_the_cache_keeps_them() {
    let f = Fixture::new();
    let (data, _) = build(Shape::Ordered, 8);
    let file = f.write("log.ndjson", &data);
    let lines = data.lines().count() as u64;
    let run = |cache: &Path, query: &str| {
        ndq(&["--stats", "-o", "json", query])
            .env("NDQ_ZONE_BLOCK", "4096")
            .env("NDQ_ZONE_MIN_SIZE", "1")
            .env("NDQ_CACHE_DIR", cache.to_str().expect("utf-8 path"))
            .path(&file)
            .run()
    };
    // `n = 7` bounds `n` as a time range would: no map for it.
    let cache = f.path("cache");
    let other = run(&cache, "select count(*) where n = 7");
    other.status(0);
    assert_eq!(other.stdout(), "{\"count(*)\":1}\n");
    assert!(scanned(&other) < lines / 100, "{other}");
    assert!(
        !cache.exists(),
        "no map for a key other than the time property"
    );
    // A range on the time property: a map, made by reading every line, then used.
    let timed = format!("select count(*) where @t >= '{}' and n = 7", at(0));
    let first = run(&cache, &timed);
    assert_eq!(first.stdout(), other.stdout());
    assert_eq!(scanned(&first), lines, "{first}");
    assert!(cache.exists());
    // A cache that cannot be written (a file where its directory would be): no map is
    // made, and the skips stay on in every run.
    let blocked = f.write("blocked", "").join("cache");
    for _ in 0..2 {
        let r = run(&blocked, &timed);
        assert_eq!(r.stdout(), other.stdout());
        assert!(scanned(&r) < lines / 100, "{r}");
    }
}
