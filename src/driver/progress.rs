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

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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
    start: Instant,
}

impl Progress {
    /// A bar over `total` bytes (a spinner when unknown), shown only if `allowed`.
    pub fn new(allowed: bool, color: bool, total: Option<u64>) -> Progress {
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
            start: Instant::now(),
        }
    }

    /// `done` bytes are processed.
    pub fn set(&mut self, done: u64) {
        self.bar.set_position(done);
        if self.allowed && !self.shown && self.start.elapsed() >= SHOW_AFTER {
            self.shown = true;
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
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

    #[test]
    fn never_shown_unless_allowed() {
        let mut p = Progress::new(false, true, Some(100));
        p.start -= SHOW_AFTER * 2;
        p.set(50);
        assert!(!p.shown);
        assert_eq!(p.suspend(|| 7), 7);
    }

    #[test]
    fn shown_only_after_a_while() {
        let mut p = Progress::new(true, false, None);
        p.set(1);
        assert!(!p.shown, "a quick run shows nothing");
        p.start -= SHOW_AFTER * 2;
        p.set(2);
        assert!(p.shown);
        assert!(
            p.style.is_none(),
            "the style is set again for stderr when shown"
        );
        p.finish();
    }
}
