//! Scalar and AVX2 agree exactly: same verdict (reason and offset), same tape (every value's
//! raw text and escape flag, the number of nodes), with the line placed at every offset
//! 0..64 from a 64-byte aligned address; on hand-made block-boundary cases; on generated
//! documents, their mutations and arbitrary bytes.

use ndq_scan::KeySet;
use proptest::prelude::*;

use crate::arb::{document, print, style};
use crate::check::check_aligned;

/// Lines with the interesting bytes around the block boundaries (32 bytes per vector, 64 per
/// block): `pad` bytes of
/// filler first, so that each case's tricky part lands on every position of a block.
fn boundary_cases() -> Vec<Vec<u8>> {
    let tricky: &[&str] = &[
        r#""s":"\\\\""#,
        r#""s":"\\\"""#,
        r#""s":"a\"b\\"#,
        r#""s":"\u00e9\uD83D\uDE00""#,
        r#""s":"é😀€""#,
        r#""s":"\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\""#,
        r#""n":-12.5e+3,"t":true,"f":false,"z":null"#,
        r#""a":[[],{},[{}],{"b":[1, 2 ,3]}]"#,
        "\"w\" : \t[ 1 ,\r\n 2 ] ",
        r#""s":"x\q""#,
        r#""s":"unterminated"#,
        "\"c\":\"ctl\u{1}\"",
        r#""n":01"#,
        r#""k":[}"#,
    ];
    let mut out = Vec::new();
    for t in tricky {
        for pad in 0..72 {
            let mut line = String::from("{\"p\":\"");
            line.extend(std::iter::repeat_n('x', pad));
            line.push_str("\",");
            line.push_str(t);
            line.push('}');
            out.push(line.clone().into_bytes());
            // And cut short at every length near the end.
            for cut in line.len().saturating_sub(8)..line.len() {
                out.push(line.as_bytes()[..cut].to_vec());
            }
        }
    }
    // A multi-byte character split by a block boundary at every position.
    for pad in 0..72 {
        let line = format!("{{\"{}\":\"€😀é\"}}", "k".repeat(pad));
        out.push(line.into_bytes());
    }
    out
}

#[test]
fn block_boundary_cases_agree() {
    for line in boundary_cases() {
        check_aligned(&line, None).unwrap();
        check_aligned(&line, Some(&KeySet::new(["p"]))).unwrap();
        crate::check::check_line(&line).unwrap();
    }
}

#[test]
fn sample_lines_agree_at_every_offset() {
    let sample: &[u8] = include_bytes!("../../../testdata/sample.ndjson");
    for line in sample.split(|&b| b == b'\n').take(40) {
        check_aligned(line, None).unwrap();
        check_aligned(line, Some(&KeySet::new(["Elapsed", "Message"]))).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn generated_documents_agree_at_every_offset(doc in document(), style in style()) {
        let line = print(&doc, style);
        check_aligned(line.as_bytes(), None).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn arbitrary_bytes_agree(bytes in proptest::collection::vec(
        prop_oneof![
            3 => proptest::sample::select(b"{}[]:,\"\\ \nu09a-.e".to_vec()),
            1 => any::<u8>(),
        ],
        0..200,
    )) {
        check_aligned(&bytes, None).map_err(TestCaseError::fail)?;
        let mut wrapped = b"{\"a\":\"".to_vec();
        wrapped.extend_from_slice(&bytes);
        check_aligned(&wrapped, None).map_err(TestCaseError::fail)?;
    }
}
