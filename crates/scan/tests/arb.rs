//! Proptest strategies for JSON documents (printed by `print.rs`).

use proptest::prelude::*;

pub use crate::print::{Json, Style, print};

/// Numbers as JSON text, including ones no f64 or Decimal holds.
pub fn number() -> impl Strategy<Value = String> {
    let int = prop_oneof![Just("0".to_owned()), "[1-9][0-9]{0,30}"];
    let frac = proptest::option::of("[0-9]{1,30}");
    let exp = proptest::option::of("[eE][+-]?[0-9]{1,4}");
    (any::<bool>(), int, frac, exp).prop_map(|(neg, int, frac, exp)| {
        let mut s = String::new();
        if neg {
            s.push('-');
        }
        s.push_str(&int);
        if let Some(f) = frac {
            s.push('.');
            s.push_str(&f);
        }
        if let Some(e) = exp {
            s.push_str(&e);
        }
        s
    })
}

/// Strings heavy in characters that need care: quotes, backslashes, controls, non-ASCII.
pub fn text() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        4 => proptest::char::range(' ', '~'),
        1 => prop_oneof![Just('"'), Just('\\'), Just('/'), Just('{'), Just(','), Just(':')],
        1 => proptest::char::range('\u{0}', '\u{1f}'),
        1 => prop_oneof![Just('é'), Just('€'), Just('😀'), Just('\u{7f}'), Just('\u{2028}')],
        1 => any::<char>(),
    ];
    proptest::collection::vec(c, 0..24).prop_map(|v| v.into_iter().collect())
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[A-Za-z@][A-Za-z0-9]{0,8}",
        1 => text(),
    ]
}

fn dedup(members: Vec<(String, Json)>) -> Vec<(String, Json)> {
    let mut seen = std::collections::HashSet::new();
    members
        .into_iter()
        .filter(|(k, _)| seen.insert(k.clone()))
        .collect()
}

/// Any value, nested a few levels.
pub fn value() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        number().prop_map(Json::Number),
        text().prop_map(Json::String),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Json::Array),
            proptest::collection::vec((key(), inner), 0..8).prop_map(|m| Json::Object(dedup(m))),
        ]
    })
}

/// An object, the root of a line.
pub fn document() -> impl Strategy<Value = Json> {
    proptest::collection::vec((key(), value()), 0..12).prop_map(|m| Json::Object(dedup(m)))
}

pub fn style() -> impl Strategy<Value = Style> {
    (
        any::<bool>(),
        prop_oneof![Just(0u8), Just(32), any::<u8>()],
        any::<u64>(),
    )
        .prop_map(|(spaces, escape_rate, seed)| Style {
            spaces,
            escape_rate,
            seed,
        })
}
