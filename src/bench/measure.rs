//! The measuring loop, separate from what is measured: an [`Executor`] runs one case once on
//! one engine and says how long it took. The real one drives `driver::run`; tests inject
//! made-up times (hyperfine's mock-executor idea), so the loop, the figures and the progress
//! lines are checked without a clock.
//!
//! Order: for each case, `warmup + runs` rounds; in each round every engine runs once, lazy
//! first. Interleaving the engines round by round spreads drift (turbo, page cache, other
//! load) over both instead of penalising whichever ran second. Warm-up rounds are not timed.

use std::io::Write;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Engine;
use super::cases::Case;
use super::report::CaseResult;
use super::stats::{self, Counts, Figures};

/// One run of one case on one engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Wall-clock time of the whole run.
    pub elapsed: Duration,
    /// The work it did.
    pub counts: Counts,
}

/// Runs a case once.
pub trait Executor {
    /// Run case `index` (into the cases list) once on `engine`.
    fn run(&mut self, index: usize, engine: Engine) -> anyhow::Result<Sample>;
}

/// How many runs and which percentile.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// Timed runs per case and engine (at least 1).
    pub runs: usize,
    /// Untimed runs first.
    pub warmup: usize,
    /// Percentile reported, in (0, 100].
    pub percentile: f64,
}

/// Progress on stderr: a bar across a case's runs when stderr is a terminal (hidden
/// otherwise), and one line per finished case.
pub struct Progress<W: Write> {
    bar: ProgressBar,
    /// The bar's look, when bars are shown at all.
    style: Option<ProgressStyle>,
    out: W,
}

impl<W: Write> Progress<W> {
    /// Lines to `out`; a bar only if `bar` (stderr is a terminal).
    pub fn new(out: W, bar: bool) -> Progress<W> {
        let style = bar.then(|| {
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} runs")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ")
        });
        Progress {
            bar: ProgressBar::hidden(),
            style,
            out,
        }
    }

    /// The writer the lines went to.
    #[cfg(test)]
    pub fn into_inner(self) -> W {
        self.out
    }

    /// A new bar for a case, made whole (length, label) before it is first drawn: reusing one
    /// bar drew it once empty, and once with the previous case's label.
    fn start(&mut self, number: usize, total: usize, runs: u64) {
        if let Some(style) = &self.style {
            self.bar = ProgressBar::with_draw_target(Some(runs), ProgressDrawTarget::stderr())
                .with_style(style.clone())
                .with_message(format!("ndq: bench: case {number}/{total}"));
        }
    }

    fn line(&mut self, text: &str) {
        // Clear the bar first so the line does not land in the middle of it. A failed write to
        // stderr is not worth failing the benchmark for.
        self.bar.suspend(|| {
            let _ = writeln!(self.out, "{text}");
        });
    }
}

/// Run every case `schedule.warmup + schedule.runs` times on each engine and collect the
/// figures. A failing run stops everything with its error.
pub fn measure<W: Write>(
    exec: &mut dyn Executor,
    cases: &[Case],
    engines: &[Engine],
    schedule: Schedule,
    progress: &mut Progress<W>,
) -> anyhow::Result<Vec<CaseResult>> {
    let mut results = Vec::with_capacity(cases.len());
    for (index, case) in cases.iter().enumerate() {
        let number = index + 1;
        let rounds = schedule.warmup + schedule.runs;
        progress.start(number, cases.len(), (rounds * engines.len()) as u64);
        let mut times = vec![Vec::with_capacity(schedule.runs); engines.len()];
        let mut counts = vec![Counts::default(); engines.len()];
        for round in 0..rounds {
            for (e, &engine) in engines.iter().enumerate() {
                let sample = exec.run(index, engine)?;
                progress.bar.inc(1);
                if round >= schedule.warmup {
                    times[e].push(sample.elapsed);
                    counts[e] = sample.counts;
                }
            }
        }
        progress.bar.finish_and_clear();
        let mut result = CaseResult {
            number,
            line: case.line,
            query: case.query().to_string(),
            results: Vec::with_capacity(engines.len()),
        };
        for ((&engine, times), counts) in engines.iter().zip(times).zip(counts) {
            if let Some(f) = Figures::new(times, schedule.percentile, counts) {
                result.results.push((engine, f));
            }
        }
        progress.line(&case_line(&result, cases.len()));
        if let Some(warning) = disagreement(&result).filter(|_| !case.limited) {
            progress.line(&warning);
        }
        results.push(result);
    }
    Ok(results)
}

/// ` (4.04x faster)`; the lazy engine slower than the baseline is said as such (` (1.05x
/// slower)`, not ` (0.953x faster)`); nothing without the baseline.
fn speedup_phrase(speedup: Option<f64>) -> String {
    match speedup {
        Some(s) if s > 0.0 && s < 1.0 => format!(" ({} slower)", stats::ratio(Some(1.0 / s))),
        Some(s) => format!(" ({} faster)", stats::ratio(Some(s))),
        None => String::new(),
    }
}

/// `ndq: bench: case 1/5: lazy p90 520 ms, serde p90 2.10 s (4.04x), 25.0% hits: QUERY`
fn case_line(result: &CaseResult, total: usize) -> String {
    let mut times = Vec::new();
    let mut share = None;
    for (engine, f) in &result.results {
        times.push(format!(
            "{} {} {}",
            engine.name(),
            stats::percentile_label(f.percentile),
            stats::duration(f.at)
        ));
        share = share.or(Some(f.hit_share()));
    }
    let speedup = speedup_phrase(result.speedup());
    format!(
        "ndq: bench: case {}/{total}: {}{speedup}, {} hits: {}",
        result.number,
        times.join(", "),
        stats::share(share.flatten()),
        result.query
    )
}

/// A warning when the engines disagree on how many events or hits a case has: the speed-up
/// of a wrong answer means nothing.
fn disagreement(result: &CaseResult) -> Option<String> {
    let lazy = result.figures(Engine::Lazy)?.counts;
    let serde = result.figures(Engine::Serde)?.counts;
    (lazy.events != serde.events || lazy.hits != serde.hits).then(|| {
        format!(
            "ndq: warning: case {} (line {}): the engines disagree: lazy {} events, {} hits; \
             serde {} events, {} hits",
            result.number, result.line, lazy.events, lazy.hits, serde.events, serde.hits
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Made-up timings: run `k` (counting every call, warm-ups too) of case `i` on an engine
    /// takes `base(i, engine) + k` milliseconds. Records the call order.
    struct Fake {
        calls: Vec<(usize, Engine)>,
        serde_hits: u64,
    }

    impl Executor for Fake {
        fn run(&mut self, index: usize, engine: Engine) -> anyhow::Result<Sample> {
            let k = self.calls.len() as u64;
            self.calls.push((index, engine));
            let base = match engine {
                Engine::Lazy => 100,
                Engine::Serde => 400,
            };
            let hits = match engine {
                Engine::Lazy => 25,
                Engine::Serde => self.serde_hits,
            };
            Ok(Sample {
                elapsed: Duration::from_millis(base * (index as u64 + 1) + k),
                counts: Counts {
                    events: 100,
                    hits,
                    bytes: 1_000_000,
                },
            })
        }
    }

    fn cases() -> Vec<Case> {
        crate::bench::cases::parse("\nselect Message where Elapsed > 200\n\n\nselect count(*)\n")
    }

    /// [`measure`] of `cases` on both engines without a bar: the results and the lines
    /// written.
    fn measure_both(
        exec: &mut Fake,
        cases: &[Case],
        schedule: Schedule,
    ) -> (Vec<CaseResult>, String) {
        let mut progress = Progress::new(Vec::new(), false);
        let got = measure(
            exec,
            cases,
            &[Engine::Lazy, Engine::Serde],
            schedule,
            &mut progress,
        )
        .expect("fake runs do not fail");
        let lines = String::from_utf8(progress.into_inner()).expect("utf-8");
        (got, lines)
    }

    // What start() sets up; the order in which indicatif draws is not observable here (the
    // glitch this replaced, an empty or stale bar drawn first, was checked on a terminal).
    #[test]
    fn each_case_gets_a_fresh_bar_with_its_length_and_label() {
        let mut progress = Progress::new(Vec::new(), true);
        progress.start(1, 2, 8);
        assert_eq!(progress.bar.length(), Some(8));
        assert_eq!(progress.bar.message(), "ndq: bench: case 1/2");
        progress.bar.inc(3);
        progress.start(2, 2, 4);
        assert_eq!(progress.bar.length(), Some(4));
        assert_eq!(progress.bar.position(), 0);
        assert_eq!(progress.bar.message(), "ndq: bench: case 2/2");
        // Without a terminal there is no bar to set up.
        let mut hidden = Progress::new(Vec::new(), false);
        hidden.start(1, 1, 8);
        assert!(hidden.bar.is_hidden());
    }

    #[test]
    fn interleaves_engines_skips_warmup_and_reports_each_case() {
        let mut exec = Fake {
            calls: Vec::new(),
            serde_hits: 25,
        };
        let schedule = Schedule {
            runs: 3,
            warmup: 1,
            percentile: 90.0,
        };
        let (got, lines) = measure_both(&mut exec, &cases(), schedule);

        let mut want_calls = Vec::new();
        for case in 0..2 {
            for _round in 0..4 {
                want_calls.push((case, Engine::Lazy));
                want_calls.push((case, Engine::Serde));
            }
        }
        assert_eq!(exec.calls, want_calls);

        // Case 1: calls k = 0..8, lazy at even k, serde at odd; k = 0, 1 are warm-up.
        let lazy = got[0].figures(Engine::Lazy).expect("lazy ran");
        let ms = Duration::from_millis;
        assert_eq!(lazy.runs, [ms(102), ms(104), ms(106)]);
        assert_eq!(
            (lazy.at, lazy.plus(), lazy.minus()),
            (ms(106), ms(0), ms(4))
        );
        let serde = got[0].figures(Engine::Serde).expect("serde ran");
        assert_eq!(serde.runs, [ms(403), ms(405), ms(407)]);
        // Case 2 continues the call count: k = 8..16.
        let lazy2 = got[1].figures(Engine::Lazy).expect("lazy ran");
        assert_eq!(lazy2.runs, [ms(210), ms(212), ms(214)]);
        assert_eq!((got[1].number, got[1].line), (2, 5));

        assert_eq!(
            lines,
            "ndq: bench: case 1/2: lazy p90 106 ms, serde p90 407 ms (3.84x faster), 25.0% hits: \
             select Message where Elapsed > 200\n\
             ndq: bench: case 2/2: lazy p90 214 ms, serde p90 815 ms (3.81x faster), 25.0% hits: \
             select count(*)\n"
        );
    }

    #[test]
    fn a_speedup_below_one_is_said_as_slower() {
        assert_eq!(speedup_phrase(Some(4.04)), " (4.04x faster)");
        assert_eq!(speedup_phrase(Some(1.0)), " (1.00x faster)");
        assert_eq!(speedup_phrase(Some(0.5)), " (2.00x slower)");
        assert_eq!(speedup_phrase(Some(0.953)), " (1.05x slower)");
        assert_eq!(speedup_phrase(None), "");
    }

    #[test]
    fn warns_when_engines_disagree() {
        let mut exec = Fake {
            calls: Vec::new(),
            serde_hits: 24,
        };
        let schedule = Schedule {
            runs: 1,
            warmup: 0,
            percentile: 50.0,
        };
        let (_, lines) = measure_both(&mut exec, &cases()[..1], schedule);
        assert_eq!(lines.lines().count(), 2, "{lines}");
        assert!(
            lines.ends_with(
                "ndq: warning: case 1 (line 2): the engines disagree: lazy 100 events, 25 hits; \
                 serde 100 events, 24 hits\n"
            ),
            "{lines}"
        );

        // With a `limit` the counts depend on where each run stopped: no warning.
        let mut limited = cases()[..1].to_vec();
        limited[0].limited = true;
        let (_, lines) = measure_both(&mut exec, &limited, schedule);
        assert_eq!(lines.lines().count(), 1, "{lines}");
        assert!(!lines.contains("disagree"), "{lines}");
    }

    #[test]
    fn a_failing_run_stops_the_benchmark() {
        struct Failing;
        impl Executor for Failing {
            fn run(&mut self, _: usize, _: Engine) -> anyhow::Result<Sample> {
                anyhow::bail!("disk on fire")
            }
        }
        let mut progress = Progress::new(Vec::new(), false);
        let schedule = Schedule {
            runs: 2,
            warmup: 0,
            percentile: 90.0,
        };
        let err = measure(
            &mut Failing,
            &cases(),
            &[Engine::Lazy],
            schedule,
            &mut progress,
        )
        .expect_err("the run fails");
        assert_eq!(err.to_string(), "disk on fire");
    }
}
