//! `ndq --follow`: files read as they grow, rotated, truncated; totals on a stop; the live
//! table on a terminal. Every wait polls for what is expected (`wait_for` and `wait_exit` of
//! the util module: no sleep is an assertion, no timing is checked).

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::util::{Fixture, ndq, wait_exit, wait_for};

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn append(path: &Path, data: &str) {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open for append");
    f.write_all(data.as_bytes()).expect("append");
}

/// A line of the input: `n`, kept (matching `where keep`) or not.
fn line(n: u32, keep: bool) -> String {
    format!("{{\"n\":{n},\"keep\":{keep}}}\n")
}

/// `ndq` with `args`, stdout and stderr to files in `f`.
fn spawn(f: &Fixture, args: &[&str]) -> Child {
    let out = std::fs::File::create(f.path("out.txt")).unwrap();
    let err = std::fs::File::create(f.path("err.txt")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_ndq"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("ndq starts")
}

fn signal(child: &Child, name: &str) {
    let ok = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(ok.success());
}

/// Stop `child` with `name` and wait for it; its exit status code.
fn stop(mut child: Child, name: &str) -> Option<i32> {
    signal(&child, name);
    wait_exit(&mut child, &format!("ndq to stop on {name}"), String::new).code()
}

/// The `n` of each JSON row written so far.
fn numbers(out: &str) -> Vec<u32> {
    out.lines()
        .map(|l| {
            l.strip_prefix("{\"n\":")
                .and_then(|r| r.strip_suffix('}'))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("a row: {l:?}"))
        })
        .collect()
}

/// `ndq --follow -o json 'select n where keep' LOG`, as [`spawn`] starts it.
fn follow_kept(f: &Fixture, log: &Path) -> Child {
    spawn(
        f,
        &[
            "--follow",
            "-o",
            "json",
            "select n where keep",
            log.to_str().unwrap(),
        ],
    )
}

#[test]
fn follow_writes_every_appended_line_once_across_rotation_and_truncation() {
    let f = Fixture::new();
    let log = f.path("app.log");
    append(&log, &(line(1, true) + &line(2, false) + "not json\n"));
    let child = follow_kept(&f, &log);
    let out = f.path("out.txt");
    let err = f.path("err.txt");
    let mut want = vec![1];
    let seen = |want: &[u32]| {
        let want = want.to_vec();
        wait_for(
            &format!("rows {want:?}"),
            || text(&out),
            move |o| o.ends_with('\n') && numbers(o).len() >= want.len(),
        )
    };
    assert_eq!(numbers(&seen(&want)), want);
    // Bursts of appends, one of them a line written in two parts.
    let mut n = 3;
    for burst in 0..5 {
        let mut data = String::new();
        for k in 0..20 {
            let keep = (n + k) % 3 != 0;
            data.push_str(&line(n + k, keep));
            if keep {
                want.push(n + k);
            }
        }
        n += 20;
        if burst == 2 {
            let (head, tail) = data.split_at(data.len() - 5);
            append(&log, head);
            append(&log, tail);
        } else {
            append(&log, &data);
        }
        assert_eq!(numbers(&seen(&want)), want);
    }
    // Rotated as logrotate does: renamed away, a new file by the same name.
    std::fs::rename(&log, f.path("app.log.1")).unwrap();
    append(
        &log,
        &("[]\n".to_string() + &line(200, true) + &line(201, false) + &line(202, true)),
    );
    want.extend([200, 202]);
    assert_eq!(numbers(&seen(&want)), want);
    append(&log, &line(203, true));
    want.push(203);
    assert_eq!(numbers(&seen(&want)), want);
    // Truncated in place (copytruncate): read again from its start.
    OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&log)
        .unwrap();
    wait_for(
        "the truncation is noticed",
        || text(&err),
        |e| e.contains("truncated"),
    );
    append(&log, &(line(300, true) + &line(301, true)));
    want.extend([300, 301]);
    assert_eq!(numbers(&seen(&want)), want);
    assert_eq!(stop(child, "-TERM"), Some(0), "{}", text(&err));
    assert_eq!(numbers(&text(&out)), want, "nothing more after the stop");
    let err = text(&err);
    assert!(err.contains("app.log: replaced by a new file"), "{err}");
    // Line numbers count from the start of each content; the first bad line is the first read.
    assert!(
        err.contains("2 malformed lines skipped (first at ") && err.contains("app.log:3: "),
        "{err}"
    );
}

/// A file cut and written again past where it was read to between two looks (a logger that
/// opens its file anew with `O_TRUNC`): read from its new start, no line made of the rest.
#[test]
fn follow_reads_a_file_rewritten_between_two_looks_from_its_start() {
    let f = Fixture::new();
    let log = f.path("app.log");
    append(&log, &line(1, true));
    let child = follow_kept(&f, &log);
    let (out, err) = (f.path("out.txt"), f.path("err.txt"));
    let rows = |n: usize| {
        wait_for(
            &format!("{n} rows"),
            || text(&out),
            move |o| o.ends_with('\n') && o.lines().count() >= n,
        )
    };
    assert_eq!(numbers(&rows(1)), [1]);
    // Longer than what was read: it looks like an append by its length alone.
    std::fs::write(&log, line(222, true) + &line(3, true)).unwrap();
    assert_eq!(numbers(&rows(3)), [1, 222, 3]);
    assert_eq!(stop(child, "-TERM"), Some(0), "{}", text(&err));
    let err = text(&err);
    assert!(
        err.contains("app.log: truncated; reading it from its start"),
        "{err}"
    );
    assert!(!err.contains("malformed"), "{err}");
}

/// Followed into a pipe whose reader has what it wanted and is gone (`| head -1`), ndq stops
/// while no line comes, as `tail -f` does, instead of at the next line written.
#[test]
fn follow_stops_when_the_reader_of_its_output_is_gone() {
    use std::io::BufRead as _;
    let f = Fixture::new();
    let log = f.path("app.log");
    append(&log, &(line(1, true) + &line(2, true) + &line(3, true)));
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndq"))
        .args(["--follow", "-o", "json", "select n where keep"])
        .arg(&log)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("ndq starts");
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("piped"));
    let mut first = String::new();
    reader.read_line(&mut first).expect("a row");
    assert_eq!(first, "{\"n\":1}\n");
    drop(reader);
    let status = wait_exit(
        &mut child,
        "ndq to stop once its reader is gone",
        String::new,
    );
    assert_eq!(status.code(), Some(0));
}

#[test]
fn follow_waits_for_a_file_and_writes_aggregate_totals_when_terminated() {
    let f = Fixture::new();
    // A control character in the name is shown as `?` in what is said of it.
    let log = f.path("later\x1b[2J.log");
    let child = spawn(
        &f,
        &[
            "--follow",
            "select keep, count(*), sum(n) group by keep order by keep",
            log.to_str().unwrap(),
        ],
    );
    let err = f.path("err.txt");
    wait_for(
        "the wait to be said",
        || text(&err),
        |e| e.contains("later?[2J.log: does not exist yet"),
    );
    let mut data = String::new();
    for n in 1..=10 {
        data.push_str(&line(n, n % 2 == 0));
    }
    append(&log, &data);
    wait_for(
        "the file to be seen",
        || text(&err),
        |e| e.contains("appeared"),
    );
    append(&log, &(line(100, true) + "{\"n\":1000,\"keep\":true}"));
    assert_eq!(stop(child, "-TERM"), Some(0), "{}", text(&err));
    // Everything written before the stop, the last line without its newline too (as the
    // same query without --follow counts it).
    assert_eq!(
        text(&f.path("out.txt")),
        "{\"keep\":false,\"count(*)\":5,\"sum(n)\":25}\n\
         {\"keep\":true,\"count(*)\":7,\"sum(n)\":1130}\n"
    );
}

/// More files than the limit on open files allows: the error says which limit, and how to
/// raise it.
#[test]
fn following_more_files_than_may_be_open_says_how_to_raise_the_limit() {
    let f = Fixture::new();
    let mut names = String::new();
    for i in 0..40 {
        let path = f.write(&format!("p{i}.log"), line(i, true));
        names.push_str(&format!(" '{}'", path.display()));
    }
    let ndq = env!("CARGO_BIN_EXE_ndq");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 20 && exec '{ndq}' -f 'select count(*)'{names}"
        ))
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(": Too many open files (the limit on open files: raise it with ulimit -n)"),
        "{err}"
    );
}

/// Ctrl-\\ (SIGQUIT) stops as Ctrl-C does: the totals written, exit 0 (its default, a core
/// dump, would leave a live table's cursor hidden).
#[test]
fn follow_stops_on_sigquit_with_the_totals() {
    let f = Fixture::new();
    let log = f.write("app.log", line(1, true) + &line(2, false));
    let child = spawn(&f, &["-f", "select count(*)", log.to_str().unwrap()]);
    let err = f.path("err.txt");
    // Once ndq catches SIGQUIT (signal 3: bit 2 of the mask of caught signals).
    let status = format!("/proc/{}/status", child.id());
    wait_for(
        "ndq to catch SIGQUIT",
        || {
            let status = std::fs::read_to_string(&status).unwrap_or_default();
            status
                .lines()
                .find_map(|l| l.strip_prefix("SigCgt:"))
                .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        },
        |caught| caught.is_some_and(|m| m >> 2 & 1 == 1),
    );
    append(&log, &line(3, true));
    assert_eq!(stop(child, "-QUIT"), Some(0), "{}", text(&err));
    assert_eq!(text(&f.path("out.txt")), "{\"count(*)\":3}\n");
}

/// The file a rotation leaves under the name cannot be opened at first (logrotate creates
/// it, then sets its owner and mode): said, and waited for, as a missing file is. Run as an
/// unprivileged user (through `setpriv` when the tests run as root, who may open anything).
#[test]
fn follow_waits_for_a_new_file_it_cannot_open_yet() {
    use std::os::unix::fs::PermissionsExt as _;
    let f = Fixture::new();
    use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    let setpriv = root
        && Command::new("setpriv")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if root && !setpriv {
        return;
    }
    let dir = f.path("");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let log = f.write("app.log", line(1, true));
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o666)).unwrap();
    let ndq = env!("CARGO_BIN_EXE_ndq");
    let mut args = Vec::new();
    if setpriv {
        args.extend([
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]);
    }
    args.extend([ndq, "-f", "-o", "json", "select n", log.to_str().unwrap()]);
    let out = std::fs::File::create(f.path("out.txt")).unwrap();
    let err = std::fs::File::create(f.path("err.txt")).unwrap();
    let child = Command::new(args[0])
        .args(&args[1..])
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("ndq starts");
    let (out, err) = (f.path("out.txt"), f.path("err.txt"));
    wait_for("the first row", || text(&out), |o| o.ends_with('\n'));
    append(&log, &line(2, true));
    std::fs::rename(&log, f.path("app.log.1")).unwrap();
    // Created unreadable, so that ndq never sees it readable before it is made so.
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o000)
        .open(&log)
        .and_then(|mut file| file.write_all(line(3, true).as_bytes()))
        .expect("the new file");
    wait_for(
        "the new file to be said unreadable",
        || text(&err),
        |e| e.contains("app.log: cannot be opened (Permission denied); trying again"),
    );
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
    wait_for(
        "the new file's row",
        || text(&out),
        |o| o.lines().count() == 3,
    );
    assert_eq!(stop(child, "-TERM"), Some(0), "{}", text(&err));
    assert_eq!(numbers(&text(&out)), [1, 2, 3]);
}

#[test]
fn follow_refuses_what_cannot_grow_before_reading() {
    let f = Fixture::new();
    let gz = f.write("a.ndjson.gz", b"");
    let dir = f.path("d");
    std::fs::create_dir(&dir).unwrap();
    let log = f.write("a.log", line(1, true));
    for (args, says) in [
        (vec!["-f", "select n"], "standard input"),
        (vec!["-f", "select n", "-"], "standard input"),
        (vec!["-f", "select n", gz.to_str().unwrap()], "compressed"),
        (vec!["-f", "select n", dir.to_str().unwrap()], "directory"),
        (
            vec!["-f", "-o", "table", "select n", log.to_str().unwrap()],
            "-o json",
        ),
        (vec!["-f", "select n wher", log.to_str().unwrap()], "wher"),
        (
            vec!["--every", "2s", "select n", log.to_str().unwrap()],
            "--follow",
        ),
        (
            vec!["-f", "--every", "0s", "select n", log.to_str().unwrap()],
            "more than zero",
        ),
    ] {
        let run = ndq(&args).run();
        run.status(2).stderr_has(says).stdout_is("");
    }
}

/// In a pseudo-terminal (util-linux `script`), an aggregation is drawn as a table and
/// redrawn with the new totals after appends; Ctrl-C (SIGINT) leaves the final table and the
/// cursor shown. Skipped where `script` is missing.
/// `ndq -f --color never --every 100ms QUERY LOG` started in a pseudo-terminal of `cols`
/// columns: the `script` process, and the transcript's and ndq's pid file's paths. `None`
/// (said on stderr) without script(1).
fn live_table(
    f: &Fixture,
    cols: u32,
    query: &str,
    log: &Path,
) -> Option<(Child, PathBuf, PathBuf)> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no script(1) to run ndq in a pseudo-terminal");
        return None;
    }
    let pid = f.path("pid");
    let line = format!(
        "stty cols {cols} rows 24; echo $$ > '{}'; exec '{}' -f --color never --every 100ms \
         '{query}' '{}'",
        pid.display(),
        env!("CARGO_BIN_EXE_ndq"),
        log.display()
    );
    let transcript = f.path("tty.txt");
    let script = Command::new("script")
        .args(["-qefc", &line, "/dev/null"])
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&transcript).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("script runs");
    Some((script, transcript, pid))
}

/// Stop the ndq of [`live_table`] with SIGINT: what it drew, once it exited 0.
fn interrupt(mut script: Child, transcript: &Path, pid: &Path) -> String {
    let ndq_pid = wait_for("the pid", || text(pid), |p| p.ends_with('\n'));
    let ok = Command::new("kill")
        .args(["-INT", ndq_pid.trim()])
        .status()
        .unwrap();
    assert!(ok.success());
    let status = wait_exit(&mut script, "ndq to stop on SIGINT", || {
        format!(": {:?}", text(transcript))
    });
    let drawn = text(transcript);
    assert_eq!(status.code(), Some(0), "{drawn:?}");
    drawn
}

/// The words of some line of `t` are `words`.
fn has_row(t: &str, words: &[&str]) -> bool {
    t.lines()
        .any(|l| l.split_whitespace().collect::<Vec<_>>() == words)
}

#[test]
fn follow_redraws_a_live_table_on_a_terminal() {
    let f = Fixture::new();
    let log = f.write("app.log", "{\"l\":\"alpha\"}\n".repeat(3));
    let query = "select l, count(*) group by l";
    let Some((script, transcript, pid)) = live_table(&f, 80, query, &log) else {
        return;
    };
    let row = |words: &'static [&'static str]| move |t: &String| has_row(t, words);
    wait_for(
        "the first table",
        || text(&transcript),
        row(&["alpha", "3"]),
    );
    append(&log, &"{\"l\":\"beta\"}\n".repeat(2));
    append(&log, "{\"l\":\"alpha\"}\n");
    wait_for("the new totals", || text(&transcript), row(&["beta", "2"]));
    wait_for("the new totals", || text(&transcript), row(&["alpha", "4"]));
    let drawn = interrupt(script, &transcript, &pid);
    assert!(
        drawn.contains("\x1b[?25l"),
        "the cursor is hidden while drawing: {drawn:?}"
    );
    assert!(
        drawn.ends_with("\x1b[?25h"),
        "and shown at the end: {drawn:?}"
    );
}

/// Ctrl-Z on a live table shows the cursor before ndq stops; `fg` draws the table again.
#[test]
fn a_live_table_shows_the_cursor_while_suspended() {
    let f = Fixture::new();
    let log = f.write("app.log", "{\"l\":\"alpha\"}\n");
    let query = "select l, count(*) group by l";
    let Some((script, transcript, pid)) = live_table(&f, 80, query, &log) else {
        return;
    };
    let hidden = |t: &String| t.matches("\x1b[?25l").count();
    wait_for(
        "the first table",
        || text(&transcript),
        |t| has_row(t, &["alpha", "1"]),
    );
    let ndq_pid = wait_for("the pid", || text(&pid), |p| p.ends_with('\n'));
    let ndq_pid = ndq_pid.trim();
    let state = || {
        let stat = text(Path::new(&format!("/proc/{ndq_pid}/stat")));
        stat.rsplit(')').next().unwrap_or("").trim().chars().next()
    };
    let kill = |name: &str| {
        let ok = Command::new("kill").args([name, ndq_pid]).status().unwrap();
        assert!(ok.success());
    };
    kill("-TSTP");
    wait_for("ndq to stop itself", state, |s| *s == Some('T'));
    // script(1) stops itself when its child stops, and copies nothing more until continued
    // (when it continues ndq too, which may draw its table again at once).
    let ok = Command::new("kill")
        .args(["-CONT", &script.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let shown = |t: &String| {
        t.find("\x1b[?25l")
            .is_some_and(|hide| t[hide..].contains("\x1b[?25h"))
    };
    wait_for(
        "the cursor shown while stopped",
        || text(&transcript),
        shown,
    );
    kill("-CONT");
    append(&log, "{\"l\":\"alpha\"}\n");
    wait_for("the table again", || text(&transcript), |t| hidden(t) == 2);
    wait_for(
        "the new total",
        || text(&transcript),
        |t| has_row(t, &["alpha", "2"]),
    );
    let drawn = interrupt(script, &transcript, &pid);
    assert!(drawn.ends_with("\x1b[?25h"), "{drawn:?}");
}

/// On a terminal narrower than the table, a live table is fitted as a table on a terminal
/// is: its long text cut with `…`, its numbers whole.
#[test]
fn a_live_table_wider_than_the_terminal_keeps_its_numbers_whole() {
    let f = Fixture::new();
    let key = "a".repeat(60);
    let log = f.write(
        "wide.log",
        format!("{{\"g\":\"{key}\",\"v\":123456789012345}}\n"),
    );
    let query = "select g, count(*), sum(v), max(v) group by g";
    let Some((script, transcript, pid)) = live_table(&f, 70, query, &log) else {
        return;
    };
    let cut = |t: &String| {
        t.lines().any(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.len() == 4
                && words[0].ends_with('…')
                && words[1..] == ["1", "123456789012345", "123456789012345"]
        })
    };
    wait_for("a fitted frame", || text(&transcript), cut);
    append(&log, &format!("{{\"g\":\"{key}\",\"v\":1}}\n"));
    let grown = |t: &String| {
        t.lines().any(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.len() == 4 && words[1..] == ["2", "123456789012346", "123456789012345"]
        })
    };
    wait_for("the new totals, fitted", || text(&transcript), grown);
    let drawn = interrupt(script, &transcript, &pid);
    assert!(
        drawn.lines().all(|l| !l.contains(&key)),
        "no line holds the whole key: {drawn:?}"
    );
}

/// Several files: each one's rows in its own order, every row once.
#[test]
fn follow_keeps_each_files_order_across_several_files() {
    let f = Fixture::new();
    let a = f.write("a.log", line(1, true));
    let b = f.write("b.log", line(1001, true));
    let child = spawn(
        &f,
        &[
            "-f",
            "-o",
            "json",
            "select n",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
    );
    for n in 2..=40 {
        append(&a, &line(n, true));
        append(&b, &line(1000 + n, true));
    }
    let out = f.path("out.txt");
    let got = wait_for(
        "80 rows",
        || text(&out),
        |o| o.ends_with('\n') && o.lines().count() >= 80,
    );
    assert_eq!(stop(child, "-INT"), Some(0));
    let got = numbers(&got);
    let from_a: Vec<u32> = got.iter().copied().filter(|&n| n < 1000).collect();
    let from_b: Vec<u32> = got.iter().copied().filter(|&n| n > 1000).collect();
    assert_eq!(from_a, (1..=40).collect::<Vec<_>>());
    assert_eq!(from_b, (1001..=1040).collect::<Vec<_>>());
}

/// The followed name deleted, then a directory, then a file again: each said on stderr (the
/// directory once, however long it stays), and the new file's rows come out.
#[test]
fn follow_waits_out_a_deleted_file_and_a_directory_in_its_place() {
    let f = Fixture::new();
    let log = f.write("app.log", line(1, true));
    let child = spawn(&f, &["-f", "-o", "json", "select n", log.to_str().unwrap()]);
    let (out, err) = (f.path("out.txt"), f.path("err.txt"));
    wait_for("the first row", || text(&out), |o| o.ends_with('\n'));
    std::fs::remove_file(&log).unwrap();
    wait_for(
        "the removal",
        || text(&err),
        |e| e.contains("app.log: renamed or removed"),
    );
    std::fs::create_dir(&log).unwrap();
    wait_for(
        "the directory",
        || text(&err),
        |e| e.contains("is now a directory"),
    );
    std::fs::remove_dir(&log).unwrap();
    append(&log, &line(2, true));
    wait_for(
        "the new file's row",
        || text(&out),
        |o| o.lines().count() == 2,
    );
    assert_eq!(stop(child, "-TERM"), Some(0));
    assert_eq!(numbers(&text(&out)), [1, 2]);
    let err = text(&err);
    assert_eq!(err.matches("is now a directory").count(), 1, "{err}");
}

/// Writing the results fails (a full disk): a clear error and exit 1, not a loop.
#[test]
fn follow_stops_with_an_error_when_the_output_cannot_be_written() {
    let Ok(full) = OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full");
        return;
    };
    let f = Fixture::new();
    let log = f.write("app.log", line(1, true));
    let out = Command::new(env!("CARGO_BIN_EXE_ndq"))
        .args(["-f", "-o", "json", "select n", log.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(full)
        .output()
        .expect("ndq runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("writing the results: No space left"), "{err}");
}
