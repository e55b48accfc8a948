//! Arbitrary bytes as a line: scalar against AVX2 at the offset the first byte picks (and at
//! every offset 0..64 for short inputs), against serde_json, and parse against parse_until.
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
});
