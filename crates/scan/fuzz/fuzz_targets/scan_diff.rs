//! Arbitrary bytes as a line: scalar against AVX2 at the offset the first byte picks (and at
//! every offset 0..64 for short inputs), against serde_json, and parse against parse_until; and
//! split at its first newline, the second part after the first (shapes, `check_shapes`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../tests/check.rs"]
mod check;
#[allow(dead_code)]
#[path = "../../tests/common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, line)) = data.split_first() else {
        return;
    };
    if let Err(e) = check::check_line(line) {
        panic!("{e}");
    }
    if let Err(e) = check::check_until(line, usize::from(pick % 5)) {
        panic!("{e}");
    }
    if let Err(e) = check::check_placed(line, usize::from(pick % 64), None) {
        panic!("{e}");
    }
    // Two lines: the second after the first, which the AVX2 scanner may use for its shape.
    if let Some(cut) = line.iter().position(|&b| b == b'\n') {
        let (template, rest) = (&line[..cut], &line[cut + 1..]);
        if let Err(e) = check::check_shapes(template, rest, usize::from(pick % 4)) {
            panic!("{e}");
        }
    }
});
