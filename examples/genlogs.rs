//! Write a realistic NDJSON log file of a chosen size, for benchmarks and experiments.
//!
//! ```text
//! cargo run --release --example genlogs -- --bytes 1G --out /tmp/logs-1g.ndjson
//! cargo run --release --example genlogs -- --bytes 256K --seed 2 > small.ndjson
//! ```
//! Sizes take K, M and G suffixes (powers of 1024). The same seed gives the same bytes.
#![forbid(unsafe_code)]

use std::io::{self, BufWriter};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("genlogs: {msg}");
            eprintln!("usage: genlogs --bytes SIZE[K|M|G] [--seed N] [--out FILE]");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut bytes = None;
    let mut seed = 1u64;
    let mut out = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--bytes" => bytes = Some(parse_size(&value()?)?),
            "--seed" => seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--out" | "-o" => out = Some(value()?),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let bytes = bytes.ok_or("--bytes is required")?;
    let result = match out {
        Some(path) => {
            let file = std::fs::File::create(&path).map_err(|e| format!("{path}: {e}"))?;
            ndq_gen::write_to(seed, bytes, BufWriter::new(file))
        }
        None => ndq_gen::write_to(seed, bytes, io::stdout().lock()),
    };
    match result {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let n: u64 = digits.parse().map_err(|_| format!("bad size {s:?}"))?;
    let mult = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return Err(format!("bad size unit in {s:?}")),
    };
    n.checked_mul(mult).ok_or(format!("size {s:?} too large"))
}
