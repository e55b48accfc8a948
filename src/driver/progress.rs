//! The progress bar: bytes done, MB/s and ETA on stderr, for long runs on a terminal.
//!
//! The bar starts hidden and is drawn only once a run has taken [`SHOW_AFTER`], so quick runs
//! never flash one; it is never drawn unless the caller allowed it (stderr is a terminal and
//! no `--no-progress`). It is cleared before results or warnings are written.
//!
//! indicatif decides a style's colours by the stream its bar draws to *when the style is set*
//! (stdout's terminal check otherwise), so the style is set again when the bar moves to
//! stderr: colour then follows stderr, as the `color` flag (from stderr) already does.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("allowed", &self.allowed)
            .field("shown", &self.shown)
            .finish_non_exhaustive()
    }
}

/// How long a run goes before the bar appears.
pub const SHOW_AFTER: Duration = Duration::from_millis(300);

/// A progress bar that may never be shown.
pub struct Progress {
    bar: ProgressBar,
    /// The style, set again once the bar draws to stderr.
    style: Option<ProgressStyle>,
    allowed: bool,
    shown: bool,
    /// When the run started, and how long after it the bar may appear.
    start: Instant,
    after: Duration,
    /// Where the bar draws once shown (standard error unless a test gives another).
    term: Option<Box<dyn TermLike>>,
}

impl Progress {
    /// A bar over `total` bytes (a spinner when unknown), shown only if `allowed`, and only
    /// once the run has taken `after` (from now).
    pub fn new(allowed: bool, color: bool, total: Option<u64>, after: Duration) -> Progress {
        Progress::started(allowed, color, total, after, Instant::now())
    }

    /// [`Progress::new`] for a run that started at `start`.
    fn started(
        allowed: bool,
        color: bool,
        total: Option<u64>,
        after: Duration,
        start: Instant,
    ) -> Progress {
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
        let template = match (total.is_some(), color) {
            (true, true) => {
                "ndq: {bar:30.cyan/blue} {decimal_bytes}/{decimal_total_bytes} \
                 {decimal_bytes_per_sec} ETA {eta}"
            }
            (true, false) => {
                "ndq: {bar:30} {decimal_bytes}/{decimal_total_bytes} \
                 {decimal_bytes_per_sec} ETA {eta}"
            }
            (false, _) => "ndq: {spinner} {decimal_bytes} {decimal_bytes_per_sec}",
        };
        let style = ProgressStyle::with_template(template)
            .ok()
            .map(|s| s.progress_chars("=> "));
        Progress {
            bar,
            style,
            allowed,
            shown: false,
            start,
            after,
            term: None,
        }
    }

    /// `done` bytes are processed.
    pub fn set(&mut self, done: u64) {
        self.set_at(done, Instant::now());
    }

    /// `done` bytes are processed at `now`.
    fn set_at(&mut self, done: u64, now: Instant) {
        self.bar.set_position(done);
        if self.allowed && !self.shown && now.duration_since(self.start) >= self.after {
            self.shown = true;
            // The caller decided that stderr is a terminal (config.rs, where all probing
            // happens): indicatif's own `ProgressDrawTarget::stderr()` would check again and
            // hide the bar on a pipe by itself, so that a broken check would go unnoticed.
            let term = self
                .term
                .take()
                .unwrap_or_else(|| Box::new(console::Term::buffered_stderr()));
            self.bar
                .set_draw_target(ProgressDrawTarget::term_like_with_hz(term, 20));
            if let Some(style) = self.style.take() {
                self.bar.set_style(style);
            }
        }
    }

    /// Run `f` (which writes to the terminal) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        if self.shown { self.bar.suspend(f) } else { f() }
    }

    /// Remove the bar for good.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;
    use std::sync::{Arc, Mutex};

    /// A terminal that records what is drawn on it: the text written, and how many times a
    /// line was cleared.
    #[derive(Clone, Debug, Default)]
    struct Screen(Arc<Mutex<(String, usize)>>);

    impl Screen {
        fn text(&self) -> String {
            self.0.lock().unwrap().0.clone()
        }
        fn clears(&self) -> usize {
            self.0.lock().unwrap().1
        }
    }

    impl TermLike for Screen {
        fn width(&self) -> u16 {
            100
        }
        fn move_cursor_up(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> io::Result<()> {
            self.write_str(&format!("{s}\n"))
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            self.0.lock().unwrap().0.push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> io::Result<()> {
            self.0.lock().unwrap().1 += 1;
            Ok(())
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A bar over 1000 bytes that started at `start` and draws on `screen` once shown.
    fn bar(allowed: bool, start: Instant, screen: &Screen) -> Progress {
        let mut p = Progress::started(allowed, false, Some(1000), SHOW_AFTER, start);
        p.term = Some(Box::new(screen.clone()));
        p
    }

    #[test]
    fn never_shown_unless_allowed() {
        let start = Instant::now();
        let screen = Screen::default();
        let mut p = bar(false, start, &screen);
        p.set_at(50, start + SHOW_AFTER * 2);
        assert!(!p.shown);
        assert_eq!(p.suspend(|| 7), 7);
        p.bar.tick();
        p.finish();
        assert_eq!((screen.text(), screen.clears()), (String::new(), 0));
    }

    #[test]
    fn shown_only_after_a_while() {
        let start = Instant::now();
        let screen = Screen::default();
        let mut p = bar(true, start, &screen);
        p.set_at(1, start + SHOW_AFTER - Duration::from_millis(1));
        assert!(!p.shown, "a quick run shows nothing");
        p.bar.tick();
        assert_eq!(screen.text(), "");
        p.set_at(500, start + SHOW_AFTER);
        assert!(p.shown);
        assert!(
            p.style.is_none(),
            "the style is set again for stderr when shown"
        );
        p.bar.tick();
        let drawn = screen.text();
        assert!(
            drawn.starts_with("ndq: ") && drawn.contains("500 B/1.00 kB"),
            "{drawn:?}"
        );
        let clears = screen.clears();
        p.finish();
        assert!(screen.clears() > clears, "cleared at the end");
    }
}
