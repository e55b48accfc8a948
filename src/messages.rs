//! Diagnostics on stderr, and the bad-line counter.
//!
//! Every message starts with `ndq: ` (stdout carries only results); with colour on stderr
//! the `warning:` label is bold yellow, nothing else is coloured. Messages are written
//! while holding the stdout lock, so a warning never lands in the middle of a result line when
//! both streams go to the same terminal.
//!
//! [`BadLines`] counts lines that are not JSON objects, from any worker, and keeps the *first*
//! one by position in the input (input index, then line number), whatever order the workers
//! report them in: the warning and the `--strict` error are the same with 1 thread or many.

use std::fmt;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::output::color::Palette;

/// Write `ndq: {message}` on stderr (holding the stdout lock). Errors writing stderr are
/// ignored: there is nowhere left to report them.
pub fn message(args: fmt::Arguments<'_>) {
    let _stdout = io::stdout().lock();
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "ndq: {args}");
}

/// Whether the `warning:` label is coloured: set once, from the decision for stderr.
static COLOR: AtomicBool = AtomicBool::new(false);

/// Colour the `warning:` label from now on (when stderr is coloured, see
/// [`crate::config::color`]).
pub fn set_color(on: bool) {
    COLOR.store(on, Ordering::Relaxed);
}

/// Write `ndq: warning: {message}`, the label coloured when [`set_color`] said so.
pub fn warning(args: fmt::Arguments<'_>) {
    if COLOR.load(Ordering::Relaxed) {
        message(format_args!(
            "{}warning:{} {args}",
            Palette::WARNING,
            Palette::RESET
        ));
    } else {
        message(format_args!("warning: {args}"));
    }
}

/// Write `ndq: note: {message}`: something a person at a terminal may want to know, that is
/// not wrong (see [`crate::hint`]).
pub fn note(args: fmt::Arguments<'_>) {
    message(format_args!("note: {args}"));
}

/// `ndq: error: ...` (formats like `format!`).
#[macro_export]
macro_rules! error {
    ($($t:tt)*) => { $crate::messages::message(format_args!("error: {}", format_args!($($t)*))) };
}

/// `ndq: warning: ...` (formats like `format!`).
#[macro_export]
macro_rules! warning {
    ($($t:tt)*) => { $crate::messages::warning(format_args!($($t)*)) };
}

/// Where a bad line is: which input (index in the list of inputs) and which line of it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    /// Index of the input, in the order given (directories expanded).
    pub input: usize,
    /// 1-based line number in that input; every line counts, blank ones too.
    pub line: u64,
}

/// A bad line: where, the input's name, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    /// Its position (for ordering).
    pub position: Position,
    /// The input's name as the user wrote it (`-` for standard input).
    pub name: String,
    /// Why the line was rejected.
    pub reason: Rejection,
}

/// Why a line is not a JSON object: the verdict of the engine that read it, kept as it came
/// until the warning or the `--strict` error formats it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The lazy scanner's verdict: where and what.
    Scan(ndq_scan::Malformed),
    /// serde_json's error (the baseline engine), as its message: its error type is neither
    /// `Clone` nor `Eq`.
    Serde(String),
    /// serde_json (the baseline engine) read a JSON value that is not an object.
    NotAnObject,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::Scan(verdict) => verdict.fmt(f),
            Rejection::Serde(message) => f.write_str(message),
            Rejection::NotAnObject => f.write_str("not a JSON object"),
        }
    }
}

impl From<ndq_scan::Malformed> for Rejection {
    fn from(verdict: ndq_scan::Malformed) -> Rejection {
        Rejection::Scan(verdict)
    }
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}",
            sanitize(&self.name),
            self.position.line,
            self.reason
        )
    }
}

/// Counts bad lines from any thread and keeps the first by position.
#[derive(Debug, Default)]
pub struct BadLines {
    count: AtomicU64,
    first: Mutex<Option<BadLine>>,
}

impl BadLines {
    /// An empty counter.
    pub fn new() -> BadLines {
        BadLines::default()
    }

    /// Count `n` bad lines, of which `first` is the earliest.
    pub fn record(&self, n: u64, first: BadLine) {
        self.count.fetch_add(n, Ordering::Relaxed);
        let mut slot = self.first.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().is_none_or(|s| first.position < s.position) {
            *slot = Some(first);
        }
    }

    /// How many were counted.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// The earliest bad line seen.
    pub fn first(&self) -> Option<BadLine> {
        self.first.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The end-of-run warning about `count` bad lines, the first being `first`:
/// `3 malformed lines skipped (first at logs/a.ndjson:17: <reason>)`.
pub fn bad_lines_summary(count: u64, first: &BadLine) -> String {
    let s = if count == 1 { "" } else { "s" };
    format!("{count} malformed line{s} skipped (first at {first})")
}

/// A file name fit to echo on a terminal: control characters replaced by `?` (a name could
/// otherwise carry escape sequences).
pub fn sanitize(name: &str) -> std::borrow::Cow<'_, str> {
    if name.chars().any(char::is_control) {
        name.chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect::<String>()
            .into()
    } else {
        name.into()
    }
}

/// A path as a message names it: [`sanitize`]d.
pub fn path_name(path: &std::path::Path) -> String {
    sanitize(&path.display().to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(input: usize, line: u64) -> BadLine {
        BadLine {
            position: Position { input, line },
            name: format!("f{input}.ndjson"),
            reason: Rejection::Serde(format!("reason {line}")),
        }
    }

    #[test]
    fn keeps_the_earliest_whatever_the_order() {
        let counter = BadLines::new();
        assert_eq!(counter.first(), None);
        counter.record(2, bad(1, 5));
        counter.record(1, bad(0, 90));
        counter.record(4, bad(0, 91));
        counter.record(1, bad(1, 2));
        assert_eq!(counter.count(), 8);
        assert_eq!(counter.first(), Some(bad(0, 90)));
        assert_eq!(
            bad_lines_summary(counter.count(), &counter.first().unwrap()),
            "8 malformed lines skipped (first at f0.ndjson:90: reason 90)"
        );
    }

    #[test]
    fn from_many_threads() {
        let counter = BadLines::new();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let counter = &counter;
                s.spawn(move || {
                    for i in 0..100 {
                        counter.record(1, bad(0, 1000 - t * 100 - i));
                    }
                });
            }
        });
        assert_eq!(counter.count(), 400);
        assert_eq!(counter.first().unwrap().position.line, 601);
    }

    #[test]
    fn singular_and_sanitized() {
        let counter = BadLines::new();
        counter.record(
            1,
            BadLine {
                position: Position { input: 0, line: 1 },
                name: "a\u{1b}[2Jb".into(),
                reason: Rejection::Scan(ndq_scan::Malformed {
                    offset: 0,
                    reason: ndq_scan::Reason::NotAnObject,
                }),
            },
        );
        assert_eq!(
            bad_lines_summary(counter.count(), &counter.first().unwrap()),
            "1 malformed line skipped (first at a?[2Jb:1: the line is not a JSON object at byte 0)"
        );
    }
}
