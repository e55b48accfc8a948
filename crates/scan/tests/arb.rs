//! A generator of JSON documents (proptest strategies) and a printer that writes one
//! minified, or with random whitespace between tokens, and escapes keys and strings at random
//! (every character may be written as `\uXXXX`, astral ones as surrogate pairs).

use proptest::prelude::*;

/// A generated JSON value. Objects have distinct keys.
#[derive(Clone, Debug)]
pub enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

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

/// How to print: whitespace between tokens, and how often to escape a character needlessly.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub spaces: bool,
    /// Out of 256.
    pub escape_rate: u8,
    pub seed: u64,
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

/// Print `v` as one line in `style`.
pub fn print(v: &Json, style: Style) -> String {
    let mut p = Printer {
        out: String::new(),
        style,
        rng: style.seed | 1,
    };
    p.value(v);
    p.out
}

struct Printer {
    out: String,
    style: Style,
    rng: u64,
}

impl Printer {
    fn next(&mut self) -> u64 {
        // xorshift64
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn space(&mut self) {
        if self.style.spaces {
            for _ in 0..self.next() % 3 {
                let c = [' ', '\t', '\r', '\n', ' ', ' '][(self.next() % 6) as usize];
                self.out.push(c);
            }
        }
    }

    fn value(&mut self, v: &Json) {
        self.space();
        match v {
            Json::Null => self.out.push_str("null"),
            Json::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Json::Number(n) => self.out.push_str(n),
            Json::String(s) => self.string(s),
            Json::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(item);
                }
                self.space();
                self.out.push(']');
            }
            Json::Object(members) => {
                self.out.push('{');
                for (i, (k, item)) in members.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.space();
                    self.string(k);
                    self.space();
                    self.out.push(':');
                    self.value(item);
                }
                self.space();
                self.out.push('}');
            }
        }
        self.space();
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            let needless = (self.next() % 256) < u64::from(self.style.escape_rate);
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' if !needless => self.out.push_str("\\n"),
                '\t' if !needless => self.out.push_str("\\t"),
                '\u{8}' if !needless => self.out.push_str("\\b"),
                '/' if needless => self.out.push_str("\\/"),
                c if (c as u32) < 0x20 || needless => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        if self.next() & 1 == 0 {
                            self.out.push_str(&format!("\\u{u:04x}"));
                        } else {
                            self.out.push_str(&format!("\\u{u:04X}"));
                        }
                    }
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }
}
