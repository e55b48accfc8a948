//! Replays the fuzz corpus and past crashes committed under `fuzz/` (if any) through the
//! same checks the fuzz targets make.

use std::path::Path;

use crate::check::{check_aligned, check_line, check_until};

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
        let bytes = std::fs::read(&path).unwrap();
        let fail = |e: String| panic!("{}: {e}", path.display());
        check_line(&bytes).unwrap_or_else(fail);
        check_until(&bytes, 2).unwrap_or_else(fail);
        check_aligned(&bytes, None).unwrap_or_else(fail);
        n += 1;
    }
    n
}

#[test]
fn fuzz_corpus_and_crashes_replay() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let n = replay(&fuzz.join("corpus")) + replay(&fuzz.join("artifacts"));
    println!("replayed {n} fuzz inputs");
}
