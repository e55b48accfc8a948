//! `-o chart` end to end: which queries can be drawn, the size of a pipe and of a terminal
//! (in tmux, skipped where tmux is missing), colour, and the chart redrawn by `--follow`.
//! (The pictures themselves are golden files: `testdata/golden/chart-*`.)

use std::path::Path;
use std::process::Command;

use unicode_width::UnicodeWidthStr as _;

use crate::util::{Fixture, ndq, poll, sample};

/// `ndq -o chart QUERY INPUT`, which must be refused as a usage error (exit 2, nothing on
/// stdout, the message saying what can be drawn): its stderr.
#[track_caller]
fn refused(query: &str, input: &Path) -> String {
    let run = ndq(&["-o", "chart", query]).path(input).run();
    assert_eq!(run.code(), Some(2), "{query}{run}");
    assert!(run.output.stdout.is_empty(), "{query}{run}");
    let err = run.stderr().to_string();
    assert!(
        err.starts_with("ndq: error: -o chart draws the rows of an aggregation: a bar per group"),
        "{query}{run}"
    );
    err
}

#[test]
fn chart_refuses_what_is_not_an_aggregation() {
    let s = sample();
    for query in [
        "select *",
        "where StatusCode >= 500",
        "select @l, Message",
        "select @l order by @l",
        "select distinct @l",
        "select @l group by @l",
    ] {
        let err = refused(query, &s);
        assert!(
            err.contains("select time(1m), count(*) group by 1"),
            "{err}"
        );
    }
    // Before following anything.
    let run = ndq(&["-f", "-o", "chart", "select @l, Message"])
        .path(&s)
        .run();
    assert_eq!(run.code(), Some(2), "{run}");
    assert!(
        run.stderr().contains("this query does not aggregate"),
        "{run}"
    );
}

#[test]
fn chart_refuses_rows_with_no_number_to_draw() {
    let s = sample();
    for query in [
        "select @l, max(@t) group by @l",
        "select @l, min(Message) group by @l",
        "select time(1s), avg(Elapsed) > 300 as slow group by 1",
    ] {
        let err = refused(query, &s);
        assert!(err.contains("with nothing to measure"), "{query}: {err}");
        assert_eq!(err.lines().count(), 1, "{query}: {err}");
    }
    // No rows at all: nothing to refuse.
    let run = ndq(&["-o", "chart", "select @l, max(@t) where false group by @l"])
        .path(&s)
        .run();
    assert_eq!(run.code(), Some(0), "{run}");
    assert_eq!(run.stdout(), "@l max(@t)\n(no rows)\n", "{run}");
}

/// Every line of `out` at most `width` columns, at most `height` lines.
fn assert_fits(out: &str, width: usize, height: usize) {
    assert!(
        out.lines().count() <= height,
        "more than {height} lines:\n{out}"
    );
    for line in out.lines() {
        assert!(line.width() <= width, "wider than {width}: {line:?}\n{out}");
    }
}

#[test]
fn a_pipe_gets_80_by_24_and_the_variables_win() {
    let s = sample();
    let q = "select TraceId, count(*) group by TraceId";
    let run = ndq(&["-o", "chart", q]).path(&s).run();
    let out = run.stdout().to_string();
    assert_eq!(run.code(), Some(0), "{run}");
    assert_fits(&out, 80, 24);
    assert_eq!(out.lines().count(), 24, "{out}");
    assert!(out.lines().last().unwrap().ends_with("more rows"), "{out}");
    let run = ndq(&["-o", "chart", q])
        .path(&s)
        .env("COLUMNS", "50")
        .env("LINES", "8")
        .run();
    let out = run.stdout().to_string();
    assert_fits(&out, 50, 8);
    assert_eq!(out.lines().count(), 8, "{out}");
}

/// `COLUMNS` and `LINES` of many digits are taken as the largest size, 1000 by 1000: a chart,
/// not an allocation of gigabytes.
#[test]
fn huge_columns_and_lines_are_taken_as_the_largest_size() {
    let s = sample();
    for q in [
        "select @l, count(*) group by @l",
        "select time(1m), count(*) group by 1",
        "select TraceId, count(*) group by TraceId",
    ] {
        let run = ndq(&["-o", "chart", q])
            .path(&s)
            .env("COLUMNS", "99999999999")
            .env("LINES", "99999999999")
            .run();
        let out = run.stdout().to_string();
        assert_eq!(run.code(), Some(0), "{run}");
        assert_fits(&out, 1000, 1000);
        let (lines, widest) = (
            out.lines().count(),
            out.lines().map(|l| l.chars().count()).max(),
        );
        assert!(
            lines > 24 || widest > Some(80),
            "{q}: not larger than 80x24: {lines} lines, widest {widest:?}"
        );
    }
}

#[test]
fn colour_follows_the_flag() {
    let s = sample();
    let q = "select time(1s), count(*) group by 1";
    let plain = ndq(&["-o", "chart", q]).path(&s).run();
    assert!(!plain.output.stdout.contains(&0x1b), "{plain}");
    let colored = ndq(&["-o", "chart", "--color", "always", q]).path(&s).run();
    assert!(colored.output.stdout.contains(&0x1b), "{colored}");
    let stripped = strip_sgr(colored.stdout());
    assert_eq!(stripped, plain.stdout().to_string());
}

/// `text` without `ESC [ ... m` sequences.
fn strip_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        rest = tail.find('m').map_or("", |m| &tail[m + 1..]);
    }
    out.push_str(rest);
    out
}

/// A log of `minutes` minutes from 10:00: 20 lines a minute, 2 of them errors, and in
/// minute `spike` 300 more errors. Returns the lines in each minute.
fn spiky_log(path: &Path, minutes: u32, spike: u32) -> Vec<u32> {
    let mut text = String::new();
    let mut per_minute = Vec::new();
    for m in 0..minutes {
        let errors = if m == spike { 302 } else { 2 };
        let lines = 18 + errors;
        for i in 0..lines {
            let level = if i < errors { "Error" } else { "Information" };
            let second = i * 60 / lines;
            text.push_str(&format!(
                "{{\"@t\":\"2026-11-21T{:02}:{:02}:{second:02}Z\",\"@l\":\"{level}\",\"Message\":\"request {i}\"}}\n",
                10 + m / 60,
                m % 60
            ));
        }
        per_minute.push(lines);
    }
    std::fs::write(path, text).unwrap();
    per_minute
}

/// A tmux server of its own for one test, killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// `None` (and a message) where tmux cannot run.
    fn start(name: &str, width: u16, height: u16, command: &str) -> Option<Tmux> {
        let tmux = Tmux {
            socket: format!("ndq-test-{name}-{}", std::process::id()),
        };
        let started = Command::new("tmux")
            .args(["-L", &tmux.socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .args(["sh", "-c", command])
            .env_remove("COLUMNS")
            .env_remove("LINES")
            .env_remove("NO_COLOR")
            .env("TERM", "xterm")
            .status();
        match started {
            Ok(s) if s.success() => Some(tmux),
            other => {
                eprintln!("skipped: tmux could not start a session ({other:?})");
                None
            }
        }
    }

    /// The visible screen, as text.
    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Poll the screen until `done` holds of it.
    #[track_caller]
    fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        poll(|| self.screen(), |screen| done(screen))
            .unwrap_or_else(|screen| panic!("waited for {what}; the screen:\n{screen}"))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn tmux_missing() -> bool {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipped: no tmux to run ndq in a pseudo-terminal");
        return true;
    }
    false
}

/// The plot columns (after the value axis) of each line of the first panel, and the label
/// on its top line.
fn plot_rows(screen: &str) -> (String, Vec<Vec<char>>) {
    let mut rows = Vec::new();
    let mut top = String::new();
    for line in screen.lines() {
        let Some((gutter, cells)) = line.split_once(['┤', '│']) else {
            if !rows.is_empty() {
                break;
            }
            continue;
        };
        if rows.is_empty() {
            top = gutter.trim().to_string();
        }
        rows.push(cells.chars().collect());
    }
    (top, rows)
}

#[test]
fn in_a_terminal_the_spike_minute_is_the_tallest_column_and_the_chart_fits() {
    if tmux_missing() {
        return;
    }
    let f = Fixture::new();
    let log = f.path("app.log");
    let spike = 23;
    let per_minute = spiky_log(&log, 40, spike);
    let command = format!(
        "{} -o chart 'select time(1m), count(*) group by 1' {}; sleep 60",
        env!("CARGO_BIN_EXE_ndq"),
        log.display()
    );
    let Some(tmux) = Tmux::start("spike", 60, 15, &command) else {
        return;
    };
    let screen = tmux.wait_for("the chart", |s| s.contains('└') && s.contains("10:"));
    // The chart fits the 60x15 window (a line less, for the prompt).
    assert_fits(&screen, 60, 15);
    let drawn: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(drawn.len() <= 14, "{screen}");
    assert!(
        drawn[0].starts_with("count(*) per 1m, 2026-11-21 10:00 to 10:39"),
        "{screen}"
    );
    let (top, rows) = plot_rows(&screen);
    let most = per_minute.iter().max().unwrap();
    assert_eq!(top, most.to_string(), "{screen}");
    // 40 buckets in the plot: one cell each; only the spike's reaches the top row, and it
    // fills every row.
    let filled: Vec<usize> = rows[0]
        .iter()
        .enumerate()
        .filter(|(_, c)| **c != ' ')
        .map(|(i, _)| i)
        .collect();
    assert_eq!(filled, [spike as usize], "{screen}");
    assert!(
        rows.iter().all(|r| r.get(spike as usize) == Some(&'█')),
        "{screen}"
    );
}

#[test]
fn follow_redraws_the_chart_in_place() {
    if tmux_missing() {
        return;
    }
    let f = Fixture::new();
    let log = f.path("app.log");
    spiky_log(&log, 10, 99);
    let command = format!(
        "{} -f --every 200ms -o chart 'select time(1m), count(*) group by 1' {}; sleep 60",
        env!("CARGO_BIN_EXE_ndq"),
        log.display()
    );
    let Some(tmux) = Tmux::start("follow", 60, 15, &command) else {
        return;
    };
    let first = tmux.wait_for("the first chart", |s| s.contains('└'));
    assert_eq!(plot_rows(&first).0, "20", "{first}");
    // A burst in a new minute: the chart is drawn again, taller, in the same place.
    let burst = spiky_log(&f.path("burst.log"), 12, 11);
    let mut more = String::new();
    for line in std::fs::read_to_string(f.path("burst.log"))
        .unwrap()
        .lines()
    {
        if line.contains("T10:11:") {
            more.push_str(line);
            more.push('\n');
        }
    }
    std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .and_then(|mut file| std::io::Write::write_all(&mut file, more.as_bytes()))
        .unwrap();
    let want = burst[11].to_string();
    let screen = tmux.wait_for("the redrawn chart", |s| plot_rows(s).0 == want);
    assert_eq!(screen.matches("count(*) per 1m").count(), 1, "{screen}");
    assert!(screen.contains("10:00 to 10:11"), "{screen}");
    assert_fits(&screen, 60, 15);
}

#[test]
fn follow_writes_the_value_after_the_longest_coloured_bar() {
    if tmux_missing() {
        return;
    }
    let f = Fixture::new();
    let log = f.path("app.log");
    let mut text = "{\"k\":\"big\"}\n".repeat(1234);
    text.push_str(&"{\"k\":\"small\"}\n".repeat(500));
    std::fs::write(&log, text).unwrap();
    // Colour on (a terminal, TERM=xterm): the frame's lines hold colour sequences, which
    // take no room on the screen.
    let command = format!(
        "{} -f --every 200ms -o chart 'select k, count(*) group by k' {}; sleep 60",
        env!("CARGO_BIN_EXE_ndq"),
        log.display()
    );
    let Some(tmux) = Tmux::start("longest", 60, 15, &command) else {
        return;
    };
    let screen = tmux.wait_for("the live chart", |s| s.contains("small "));
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines[1].starts_with("big   █"), "{screen}");
    assert!(lines[1].ends_with("█ 1234"), "{screen}");
    assert!(
        lines[2].starts_with("small █") && lines[2].ends_with(" 500"),
        "{screen}"
    );
    assert_fits(&screen, 60, 15);
}
