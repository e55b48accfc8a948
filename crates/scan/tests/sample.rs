//! The committed sample log: every line through every scanner agrees with serde_json.

use ndq_scan::{Parser, Value};

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
