//! How fast each decompressor ndq could use turns a compressed file back into bytes, on one
//! thread: the measurement behind `src/inflate.rs` (see `benches/files.md`).
//!
//! ```text
//! cargo run --release --example inflate -- logs-1g.ndjson.gz
//! cargo run --release --example inflate -- logs-1g.ndjson.zst
//! ```
//! For a `.gz` file: flate2's zlib-rs stream (as ndq streams, 256 KiB at a time), then
//! libdeflate on the whole file (its first member) into a fresh buffer, then into a buffer
//! whose pages were written before the clock starts (the inflate alone). For a `.zst` file:
//! the zstd stream. Each is run three times; MB/s is of output, from the best run.
#![forbid(unsafe_code)]

use std::io::Read;
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: inflate FILE.gz|FILE.zst");
        return ExitCode::from(2);
    };
    let data = match std::fs::read(&path) {
        Ok(data) => data,
        Err(e) => {
            eprintln!("inflate: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    if path.ends_with(".zst") {
        best("zstd stream", || {
            stream(zstd::stream::read::Decoder::new(&data[..]).expect("zstd"))
        });
    } else {
        best("zlib-rs stream", || {
            stream(flate2::read::MultiGzDecoder::new(&data[..]))
        });
        let isize = u32::from_le_bytes(data[data.len() - 4..].try_into().expect("4 bytes"));
        let size = isize as usize;
        let mut d = libdeflater::Decompressor::new();
        best("libdeflate, fresh buffer", || {
            let start = Instant::now();
            let mut out = vec![0; size];
            let n = d.gzip_decompress(&data, &mut out).expect("one gzip member");
            (n, start.elapsed())
        });
        let mut out = vec![1; size];
        best("libdeflate, buffer written before", || {
            let start = Instant::now();
            let n = d.gzip_decompress(&data, &mut out).expect("one gzip member");
            (n, start.elapsed())
        });
    }
    ExitCode::SUCCESS
}

/// Read `r` to its end, 256 KiB at a time: bytes and time.
fn stream(mut r: impl Read) -> (usize, Duration) {
    let start = Instant::now();
    let mut buf = vec![0; 256 << 10];
    let mut n = 0;
    loop {
        match r.read(&mut buf).expect("valid input") {
            0 => return (n, start.elapsed()),
            k => n += k,
        }
    }
}

/// Run `f` three times and print its best.
fn best(what: &str, mut f: impl FnMut() -> (usize, Duration)) {
    let runs: Vec<(usize, Duration)> = (0..3).map(|_| f()).collect();
    let (n, t) = runs
        .iter()
        .min_by_key(|(_, t)| *t)
        .copied()
        .expect("three runs");
    let all: Vec<String> = runs
        .iter()
        .map(|(_, t)| format!("{:.3}", t.as_secs_f64()))
        .collect();
    println!(
        "{what:36} {n} bytes, best {:.3} s ({:.0} MB/s), runs {}",
        t.as_secs_f64(),
        n as f64 / t.as_secs_f64() / 1e6,
        all.join(" ")
    );
}
