//! Replays fuzz inputs through the same checks the `scan_diff` target makes: the committed
//! seeds (`fuzz/seeds/scan_diff/`, a sample of the minimized corpus of the 1901 s run), and,
//! when present in this checkout, the local corpus and crash artifacts (the root
//! `.gitignore` keeps those out of git: a crash worth keeping is copied into `seeds/`).

use std::path::Path;

use crate::check::{check_aligned, check_line, check_shapes, check_until};

fn replay(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            n += replay(&path);
            continue;
        }
        // A fuzz run going on in this checkout replaces corpus files as it minimizes them.
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        // As the target reads an input: the first byte picks, the rest is the line.
        let Some((&pick, line)) = bytes.split_first() else {
            continue;
        };
        let fail = |e: String| panic!("{}: {e}", path.display());
        check_line(line).unwrap_or_else(fail);
        check_until(line, usize::from(pick % 5)).unwrap_or_else(fail);
        // Every offset, so also the one the target's pick places the line at.
        check_aligned(line, None).unwrap_or_else(fail);
        if let Some(cut) = line.iter().position(|&b| b == b'\n') {
            check_shapes(&line[..cut], &line[cut + 1..], usize::from(pick % 4))
                .unwrap_or_else(fail);
        }
        n += 1;
    }
    n
}

#[test]
fn fuzz_corpus_and_crashes_replay() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let seeds = replay(&fuzz.join("seeds/scan_diff"));
    assert!(
        seeds >= 50,
        "the committed seeds are missing: {seeds} inputs"
    );
    let local = replay(&fuzz.join("corpus/scan_diff")) + replay(&fuzz.join("artifacts/scan_diff"));
    println!("replayed {seeds} committed and {local} local fuzz inputs");
}
