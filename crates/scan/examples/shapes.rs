//! How much of a log the AVX2 scanner validates by line shapes, and the time per line of
//! `parse_until(Elapsed)` with and without them (one core, every line of FILE, REPS times):
//!
//! ```text
//! cargo run --release -p ndq-scan --example shapes -- FILE [REPS]
//! ```
//!
//! A quick look for a log at hand; `cargo bench --bench scan` is the measurement.

use std::time::Instant;

use ndq_scan::{KeySet, Parser, Scanner};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: shapes FILE [REPS]");
        std::process::exit(2);
    };
    let reps: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(10);
    let data = match std::fs::read(&path) {
        Ok(data) => data,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let want = KeySet::new(["Elapsed"]);
    for (name, mut parser) in [
        ("shapes", Parser::new(Scanner::detect())),
        ("walk", Parser::new(Scanner::detect()).without_shapes()),
    ] {
        let mut valid = 0;
        let start = Instant::now();
        for _ in 0..reps {
            for line in &lines {
                valid += usize::from(parser.parse_until(line, &want).is_ok());
            }
        }
        let per_line = start.elapsed().as_nanos() as f64 / (reps * lines.len()).max(1) as f64;
        let [known, new, none] = parser.shape_counts();
        println!(
            "{name}: {per_line:.1} ns a line, {valid} valid; rests by shape {known}, \
             shapes kept {new}, without a shape {none}"
        );
    }
}
