//! The figures of one benchmarked case on one engine, and the human units they are shown in.
//!
//! Everything here is arithmetic on run times and counts: no clock, no I/O. Tests feed it
//! made-up timings.
//!
//! - **Percentile** is the nearest-rank percentile of the run times: sort the `n` times and
//!   take the one at rank `ceil(p / 100 * n)` (1-based), so it is always a time that was
//!   measured. `p90` over 10 runs is the 9th fastest; over 5 runs the slowest.
//! - **`+` and `-`** are the spread around it: `+` = slowest − percentile, `-` = percentile −
//!   fastest. Both are zero or more.
//! - **Throughputs** are per second *at the percentile's time*: events / p, hits / p,
//!   bytes / p.
//! - **Units** are decimal (SI): 1 KB = 1000 bytes, 1 MB = 10^6, 1 GB = 10^9, as throughput
//!   is usually quoted; counts per second use K, M, G = 10^3, 10^6, 10^9. Each figure is
//!   rounded to three significant digits before a unit is chosen, so `999.96 µs` shows as
//!   `1.00 ms`, never `1000 µs`.

use std::time::Duration;

/// How much work one run did (the same in every run of a case).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Lines that are JSON objects (what the query is evaluated on).
    pub events: u64,
    /// Events that passed `where` (all of them when the query has no `where`).
    pub hits: u64,
    /// Bytes of input the run read.
    pub bytes: u64,
}

/// Run times of one case on one engine, with the figures derived from them.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    /// Every timed run, in the order they ran (warm-up runs are not included).
    pub runs: Vec<Duration>,
    /// The percentile asked for, in (0, 100].
    pub percentile: f64,
    /// The work each run did.
    pub counts: Counts,
    /// The run time at the percentile.
    pub at: Duration,
    /// Fastest run.
    pub min: Duration,
    /// Slowest run.
    pub max: Duration,
    /// The median (nearest-rank 50th percentile, the same method as `at`).
    pub median: Duration,
}

impl Figures {
    /// The figures of `runs` at `percentile`; `None` when there are no runs.
    pub fn new(runs: Vec<Duration>, percentile: f64, counts: Counts) -> Option<Figures> {
        let mut sorted = runs.clone();
        sorted.sort_unstable();
        let at = *sorted.get(nearest_rank(percentile, sorted.len())? - 1)?;
        let median = *sorted.get(nearest_rank(50.0, sorted.len())? - 1)?;
        Some(Figures {
            percentile,
            counts,
            at,
            min: *sorted.first()?,
            max: *sorted.last()?,
            median,
            runs,
        })
    }

    /// Slowest run minus the percentile.
    pub fn plus(&self) -> Duration {
        self.max.saturating_sub(self.at)
    }

    /// The percentile minus the fastest run.
    pub fn minus(&self) -> Duration {
        self.at.saturating_sub(self.min)
    }

    /// Mean run time.
    pub fn mean(&self) -> Duration {
        let total: u128 = self.runs.iter().map(Duration::as_nanos).sum();
        let n = self.runs.len().max(1) as u128;
        duration_from_nanos(total / n)
    }

    /// Events per second at the percentile's time (`None` for a zero time).
    pub fn events_per_sec(&self) -> Option<f64> {
        per_sec(self.counts.events, self.at)
    }

    /// Hits per second at the percentile's time.
    pub fn hits_per_sec(&self) -> Option<f64> {
        per_sec(self.counts.hits, self.at)
    }

    /// Bytes per second at the percentile's time.
    pub fn bytes_per_sec(&self) -> Option<f64> {
        per_sec(self.counts.bytes, self.at)
    }

    /// The share of events that were hits, 0..=1 (`None` when there were no events).
    pub fn hit_share(&self) -> Option<f64> {
        (self.counts.events > 0).then(|| self.counts.hits as f64 / self.counts.events as f64)
    }
}

/// How many times faster `fast` is than `slow`, both at their percentile (`None` when the
/// fast time is zero).
pub fn speedup(fast: &Figures, slow: &Figures) -> Option<f64> {
    let fast = fast.at.as_secs_f64();
    (fast > 0.0).then(|| slow.at.as_secs_f64() / fast)
}

/// The 1-based nearest rank of percentile `p` among `n` sorted values: the smallest `r` with
/// `r >= p / 100 * n`, at least 1. `None` when `n` is 0. A tiny tolerance keeps binary
/// floating point from pushing an exact rank up by one (`p = 70, n = 10` is rank 7).
pub fn nearest_rank(p: f64, n: usize) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let exact = p * n as f64 / 100.0;
    let rank = (exact - 1e-9).ceil();
    // The float-to-int `as` saturates (NaN becomes 0), and the clamp keeps it in 1..=n.
    Some((rank as usize).clamp(1, n))
}

fn per_sec(count: u64, time: Duration) -> Option<f64> {
    let secs = time.as_secs_f64();
    (secs > 0.0).then(|| count as f64 / secs)
}

fn duration_from_nanos(ns: u128) -> Duration {
    let secs = u64::try_from(ns / 1_000_000_000).unwrap_or(u64::MAX);
    // The remainder is below 10^9, so it fits a u32.
    let nanos = u32::try_from(ns % 1_000_000_000).unwrap_or(0);
    Duration::new(secs, nanos)
}

/// `123 ns`, `12.3 µs`, `1.23 ms`, `1.23 s`.
pub fn duration(d: Duration) -> String {
    human(d.as_nanos() as f64, &["ns", "µs", "ms", "s"], " ")
}

/// A count per second: `950/s`, `12.3K/s`, `1.23M/s`, `4.56G/s`.
pub fn rate(per_sec: Option<f64>) -> String {
    match per_sec {
        Some(x) => human(x, &["/s", "K/s", "M/s", "G/s", "T/s"], ""),
        None => "-".to_string(),
    }
}

/// Bytes per second: `512 B/s`, `12.3 KB/s`, `456 MB/s`, `1.23 GB/s`.
pub fn data_rate(per_sec: Option<f64>) -> String {
    match per_sec {
        Some(x) => human(x, &["B/s", "KB/s", "MB/s", "GB/s", "TB/s"], " "),
        None => "-".to_string(),
    }
}

/// A size in bytes: `999 B`, `1.07 GB`.
pub fn bytes(n: u64) -> String {
    human(n as f64, &["B", "KB", "MB", "GB", "TB", "PB"], " ")
}

/// A share as a percentage with three significant digits: `12.3%`, `100%`, `0.05%`.
pub fn share(share: Option<f64>) -> String {
    match share {
        Some(x) => {
            let pct = round_sig(x * 100.0);
            format!("{}%", digits(pct))
        }
        None => "-".to_string(),
    }
}

/// The `pNN` label of a percentile: `p90`, `p99.9`; a long one to four decimals
/// (`p33.3333`), a tiny one with an exponent (`p1.00e-300`), so a header stays a header.
pub fn percentile_label(p: f64) -> String {
    let plain = p.to_string();
    if plain.len() <= 8 {
        format!("p{plain}")
    } else if p >= 0.001 {
        let fixed = format!("{p:.4}");
        format!("p{}", fixed.trim_end_matches('0').trim_end_matches('.'))
    } else {
        format!("p{p:.2e}")
    }
}

/// A ratio such as a speed-up: `4.21x`, `12.0x`, `150x`.
pub fn ratio(r: Option<f64>) -> String {
    match r {
        Some(x) => format!("{}x", digits(round_sig(x))),
        None => "-".to_string(),
    }
}

/// Scale `x` (in `units[0]`) by powers of 1000 into the largest unit that keeps it >= 1, after
/// rounding to three significant digits; the last unit takes anything larger.
fn human(x: f64, units: &[&str], sep: &str) -> String {
    if !x.is_finite() || x < 0.0 {
        return "-".to_string();
    }
    let mut value = round_sig(x);
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    let text = if unit == 0 && value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        digits(value)
    };
    format!("{text}{sep}{}", units[unit])
}

/// Round to three significant digits.
fn round_sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(2 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// Three significant digits of an already-rounded value: `1.23`, `12.3`, `123`, `1234`.
fn digits(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        // Below 1: keep three significant digits after the leading zeros.
        let decimals = (2 - a.log10().floor() as i32).clamp(2, 12) as usize;
        format!("{x:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: &[u64]) -> Vec<Duration> {
        v.iter().map(|&m| Duration::from_millis(m)).collect()
    }

    const COUNTS: Counts = Counts {
        events: 1_000_000,
        hits: 250_000,
        bytes: 1_000_000_000,
    };

    #[test]
    fn nearest_rank_method() {
        assert_eq!(nearest_rank(90.0, 10), Some(9));
        assert_eq!(nearest_rank(90.0, 5), Some(5));
        assert_eq!(nearest_rank(50.0, 4), Some(2));
        assert_eq!(nearest_rank(50.0, 5), Some(3));
        assert_eq!(nearest_rank(70.0, 10), Some(7));
        assert_eq!(nearest_rank(100.0, 7), Some(7));
        assert_eq!(nearest_rank(0.001, 7), Some(1));
        assert_eq!(nearest_rank(99.9, 1000), Some(999));
        assert_eq!(nearest_rank(90.0, 0), None);
        // Every exact rank of 1..=100 runs at every whole percentile.
        for n in 1..=100usize {
            for p in 1..=100usize {
                let want = (p * n).div_ceil(100).max(1);
                assert_eq!(nearest_rank(p as f64, n), Some(want), "p={p} n={n}");
            }
        }
    }

    #[test]
    fn percentile_plus_minus_from_fake_timings() {
        // Run order is kept; sorting happens inside.
        let runs = ms(&[130, 100, 110, 190, 120, 150, 140, 160, 170, 180]);
        let f = Figures::new(runs.clone(), 90.0, COUNTS).expect("runs");
        assert_eq!(f.runs, runs);
        assert_eq!(f.at, Duration::from_millis(180));
        assert_eq!(f.min, Duration::from_millis(100));
        assert_eq!(f.max, Duration::from_millis(190));
        assert_eq!(f.median, Duration::from_millis(140));
        assert_eq!(f.plus(), Duration::from_millis(10));
        assert_eq!(f.minus(), Duration::from_millis(80));
        assert_eq!(f.mean(), Duration::from_millis(145));

        let p50 = Figures::new(runs, 50.0, COUNTS).expect("runs");
        assert_eq!(p50.at, Duration::from_millis(140));
        assert_eq!(p50.plus(), Duration::from_millis(50));
        assert_eq!(p50.minus(), Duration::from_millis(40));
    }

    #[test]
    fn single_run_has_no_spread() {
        let f = Figures::new(ms(&[42]), 90.0, COUNTS).expect("runs");
        assert_eq!(
            (f.at, f.plus(), f.minus()),
            (f.min, Duration::ZERO, Duration::ZERO)
        );
        assert!(Figures::new(Vec::new(), 90.0, COUNTS).is_none());
    }

    #[test]
    fn throughputs_are_at_the_percentile_time() {
        // p90 of these is 500 ms.
        let f = Figures::new(ms(&[250, 500, 400]), 90.0, COUNTS).expect("runs");
        assert_eq!(f.at, Duration::from_millis(500));
        assert_eq!(f.events_per_sec(), Some(2_000_000.0));
        assert_eq!(f.hits_per_sec(), Some(500_000.0));
        assert_eq!(f.bytes_per_sec(), Some(2_000_000_000.0));
        assert_eq!(f.hit_share(), Some(0.25));
        let zero = Figures::new(vec![Duration::ZERO], 90.0, Counts::default()).expect("runs");
        assert_eq!(zero.events_per_sec(), None);
        assert_eq!(zero.hit_share(), None);
    }

    #[test]
    fn speedup_is_slow_over_fast_at_the_percentile() {
        let lazy = Figures::new(ms(&[100, 110]), 90.0, COUNTS).expect("runs");
        let serde = Figures::new(ms(&[440, 400]), 90.0, COUNTS).expect("runs");
        assert_eq!(speedup(&lazy, &serde), Some(4.0));
        assert_eq!(ratio(speedup(&lazy, &serde)), "4.00x");
    }

    #[test]
    fn duration_units() {
        let ns = Duration::from_nanos;
        assert_eq!(duration(ns(0)), "0 ns");
        assert_eq!(duration(ns(7)), "7 ns");
        assert_eq!(duration(ns(999)), "999 ns");
        assert_eq!(duration(ns(1_000)), "1.00 µs");
        assert_eq!(duration(ns(1_234)), "1.23 µs");
        assert_eq!(duration(ns(12_345)), "12.3 µs");
        assert_eq!(duration(ns(123_456)), "123 µs");
        assert_eq!(duration(ns(999_960)), "1.00 ms");
        assert_eq!(duration(ns(45_600_000)), "45.6 ms");
        assert_eq!(duration(ns(812_000_000)), "812 ms");
        assert_eq!(duration(ns(1_500_000_000)), "1.50 s");
        assert_eq!(duration(ns(61_000_000_000)), "61.0 s");
        assert_eq!(duration(ns(4_321_000_000_000)), "4320 s");
    }

    #[test]
    fn rate_units() {
        assert_eq!(rate(Some(0.0)), "0/s");
        assert_eq!(rate(Some(5.0)), "5/s");
        assert_eq!(rate(Some(2.5)), "2.50/s");
        assert_eq!(rate(Some(950.0)), "950/s");
        assert_eq!(rate(Some(12_345.0)), "12.3K/s");
        assert_eq!(rate(Some(1_234_567.0)), "1.23M/s");
        assert_eq!(rate(Some(4.56e9)), "4.56G/s");
        assert_eq!(rate(None), "-");
    }

    #[test]
    fn data_units_are_decimal() {
        assert_eq!(data_rate(Some(512.0)), "512 B/s");
        assert_eq!(data_rate(Some(1_000.0)), "1.00 KB/s");
        assert_eq!(data_rate(Some(1_024.0)), "1.02 KB/s");
        assert_eq!(data_rate(Some(456_000_000.0)), "456 MB/s");
        assert_eq!(data_rate(Some(1_234_000_000.0)), "1.23 GB/s");
        assert_eq!(data_rate(Some(f64::INFINITY)), "-");
        assert_eq!(data_rate(None), "-");
        assert_eq!(bytes(999), "999 B");
        assert_eq!(bytes(1_073_742_583), "1.07 GB");
    }

    #[test]
    fn shares_ratios_and_labels() {
        assert_eq!(share(Some(0.25)), "25.0%");
        assert_eq!(share(Some(1.0)), "100%");
        assert_eq!(share(Some(0.0)), "0%");
        assert_eq!(share(Some(0.000_5)), "0.0500%");
        assert_eq!(share(Some(0.123_45)), "12.3%");
        assert_eq!(share(None), "-");
        assert_eq!(ratio(Some(12.04)), "12.0x");
        assert_eq!(ratio(Some(150.2)), "150x");
        assert_eq!(ratio(None), "-");
        assert_eq!(percentile_label(90.0), "p90");
        assert_eq!(percentile_label(99.9), "p99.9");
        assert_eq!(percentile_label(0.0001), "p0.0001");
        assert_eq!(percentile_label(100.0 / 3.0), "p33.3333");
        assert_eq!(percentile_label(1e-300), "p1.00e-300");
    }
}
