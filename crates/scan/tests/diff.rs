//! Generated documents against serde_json: valid ones give the same values through the lazy
//! API; mutated ones (truncated, a byte changed, a byte inserted) never panic, are rejected
//! exactly when serde_json rejects them, and otherwise give the same values. `parse_until`
//! gives the same verdict and the same values for the wanted keys as `parse`.

use ndq_scan::{Parser, Value};
use proptest::prelude::*;

use crate::arb::{Json, document, print, style};
use crate::check::{check_line, check_shapes, check_until, shape_mutation};

#[derive(Clone, Debug)]
enum Mutation {
    Truncate(usize),
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop_oneof![
        3 => proptest::sample::select(b"{}[]:,\"\\ \t\nu0123456789-+.eEtrufalsn".to_vec()),
        1 => any::<u8>(),
    ];
    prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Mutation::Set(i, b)),
        (any::<usize>(), byte).prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<usize>().prop_map(Mutation::Remove),
    ]
}

fn mutate(line: &mut Vec<u8>, m: &Mutation) {
    if line.is_empty() {
        return;
    }
    match *m {
        Mutation::Truncate(i) => line.truncate(i % line.len()),
        Mutation::Set(i, b) => {
            let n = line.len();
            line[i % n] = b;
        }
        Mutation::Insert(i, b) => line.insert(i % (line.len() + 1), b),
        Mutation::Remove(i) => {
            line.remove(i % line.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn generated_documents_agree_with_serde_json(doc in document(), style in style()) {
        let line = print(&doc, style);
        let j: serde_json::Value = serde_json::from_str(&line).map_err(|e| {
            TestCaseError::fail(format!("the printer wrote invalid JSON: {e}: {line}"))
        })?;
        prop_assert!(matches!(j, serde_json::Value::Object(_)));
        check_line(line.as_bytes()).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn mutated_documents_agree_with_serde_json(
        doc in document(),
        style in style(),
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let mut line = print(&doc, style).into_bytes();
        for m in &mutations {
            mutate(&mut line, m);
        }
        check_line(&line).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn parse_until_agrees_with_parse(
        doc in document(),
        style in style(),
        n in 0usize..6,
        mutations in proptest::collection::vec(mutation(), 0..2),
    ) {
        let mut line = print(&doc, style).into_bytes();
        for m in &mutations {
            mutate(&mut line, m);
        }
        check_until(&line, n).map_err(TestCaseError::fail)?;
    }

    /// After a line it accepted, the AVX2 scanner validates a line of the same shape by the
    /// shape: changes inside strings and numbers (which keep the shape, or would but for the
    /// escapes, control bytes and leading zeros the shape checks) and the general mutations
    /// must give what the scalar scanner gives.
    #[test]
    fn lines_validated_by_shape_agree_with_the_walk(
        doc in document(),
        style in style(),
        n in 0usize..4,
        picks in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        mutations in proptest::collection::vec(mutation(), 0..2),
    ) {
        let template = print(&doc, style).into_bytes();
        let mut line = shape_mutation(&template, &picks);
        for m in &mutations {
            mutate(&mut line, m);
        }
        check_shapes(&template, &line, n).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn numbers_keep_their_text_and_decimals_are_exact() {
    let mut runner = proptest::test_runner::TestRunner::default();
    runner
        .run(&crate::arb::number(), |n| {
            let line = format!("{{\"n\":{n}}}");
            let mut parser = Parser::new(ndq_scan::Scanner::detect());
            let doc = parser
                .parse(line.as_bytes())
                .map_err(|e| TestCaseError::fail(format!("{e}: {line}")))?;
            let Some(Value::Number(num)) = doc.root().get("n") else {
                return Err(TestCaseError::fail("no number"));
            };
            prop_assert_eq!(num.raw(), n.as_str());
            // Whenever rust_decimal's own exact parser holds the value, we agree with it.
            let plain = !n.contains(['e', 'E']);
            if let (true, Ok(want)) = (plain, rust_decimal::Decimal::from_str_exact(&n)) {
                prop_assert_eq!(num.to_decimal(), Some(want));
            }
            if let Some(d) = num.to_decimal() {
                // Exact: back to text and through f64 it is the same number as the raw text.
                let back: f64 = d.to_string().parse().unwrap_or(f64::NAN);
                prop_assert_eq!(back, num.to_f64());
            }
            prop_assert_eq!(num.to_f64(), n.parse::<f64>().unwrap_or(f64::NAN));
            Ok(())
        })
        .unwrap();
}

#[test]
fn printer_covers_whitespace_and_escapes() {
    let doc = Json::Object(vec![(
        "k/é".into(),
        Json::Array(vec![Json::String("a\"\\\n\u{1}😀".into()), Json::Null]),
    )]);
    for seed in 1..50 {
        let style = crate::arb::Style {
            spaces: true,
            escape_rate: 128,
            seed,
        };
        let line = print(&doc, style);
        check_line(line.as_bytes()).unwrap();
    }
}

#[test]
fn a_deferred_scan_checks_the_utf8_of_only_the_part_it_read() {
    let set = ndq_scan::KeySet::new(["b"]);
    let bad_rest = b"{\"a\":\"x\",\"b\":1,\"c\":\"\xff\"}";
    let bad_read = b"{\"a\":\"\xff\",\"b\":1,\"c\":[}";
    for scanner in crate::common::scanners() {
        let mut parser = Parser::new(scanner);
        let until = parser.parse_until(bad_rest, &set).map(|_| ()).unwrap_err();
        assert_eq!(
            (until.reason, until.offset),
            (ndq_scan::Reason::InvalidUtf8, 20)
        );
        let doc = parser.parse_prefix(bad_rest, &set).unwrap();
        assert_eq!(doc.text(), "{\"a\":\"x\",\"b\":1");
        assert!(matches!(doc.root().get("b"), Some(Value::Number(n)) if n.raw() == "1"));
        assert_eq!(parser.finish(bad_rest).map(|_| ()).unwrap_err(), until);
        // In the part read, a UTF-8 error still comes before the syntax error after it.
        let e = parser.parse_prefix(bad_read, &set).map(|_| ()).unwrap_err();
        assert_eq!((e.reason, e.offset), (ndq_scan::Reason::InvalidUtf8, 6));
    }
}
