//! Realistic logs: the committed sample and freshly generated ones (ndq-gen, other seeds),
//! every line through every scanner agrees with serde_json, and `parse_until` for the keys
//! a query would read agrees with `parse`.

use ndq_scan::{KeySet, Parser, Value};

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
