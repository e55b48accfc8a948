//! Realistic logs: the committed sample and freshly generated ones (ndq-gen, other seeds),
//! every line through every scanner agrees with serde_json, and `parse_until` for the keys
//! a query would read agrees with `parse`.

use ndq_scan::{KeySet, Parser, Value};

use crate::check::{check_shapes, shape_mutation};
use crate::common::{agree, scanners};

const SAMPLE: &[u8] = include_bytes!("../../../testdata/sample.ndjson");

#[test]
fn sample_lines_agree_with_serde_json() {
    let mut lines = 0;
    for scanner in scanners() {
        let mut parser = Parser::new(scanner);
        for line in SAMPLE.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let want: serde_json::Value = serde_json::from_slice(line).unwrap();
            let doc = parser.parse(line).unwrap();
            agree(Value::Object(doc.root()), &want).unwrap();
            lines += 1;
        }
    }
    assert!(lines > 100, "{lines} lines");
}

#[test]
fn generated_logs_agree_with_serde_json() {
    let want = KeySet::new(["Elapsed", "Message", "StatusCode"]);
    for seed in [1, 2, 3] {
        let data = ndq_gen::generate(seed, 512 << 10);
        for scanner in scanners() {
            let mut parser = Parser::new(scanner);
            let mut until = Parser::new(scanner);
            for line in data.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                let j: serde_json::Value = serde_json::from_slice(line).unwrap();
                let doc = parser.parse(line).unwrap();
                agree(Value::Object(doc.root()), &j).unwrap();
                let early = until.parse_until(line, &want).unwrap();
                for key in want.iter() {
                    let a = doc.root().get(key).map(|v| v.raw());
                    let b = early.root().get(key).map(|v| v.raw());
                    assert_eq!(a, b, "{key}");
                }
            }
        }
    }
}

/// Generated logs repeat a few hundred shapes, so the AVX2 scanner validates most lines by
/// shape: each line after the one before it, and each line after itself changed inside its
/// strings and numbers, gives what the scalar scanner gives.
#[test]
fn generated_logs_validated_by_shape_agree_with_the_walk() {
    let data = ndq_gen::generate(4, 256 << 10);
    let lines: Vec<&[u8]> = data
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for pair in lines.windows(2) {
        check_shapes(pair[0], pair[1], (next() % 4) as usize).unwrap();
        let picks: Vec<(usize, u8)> = (0..1 + next() % 3)
            .map(|_| (next() as usize, next() as u8))
            .collect();
        let changed = shape_mutation(pair[1], &picks);
        check_shapes(pair[1], &changed, (next() % 4) as usize).unwrap();
    }
}
