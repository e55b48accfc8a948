//! A valid document built from the fuzz input (libFuzzer's bytes drive the choices), printed
//! with random whitespace and escapes: it must be accepted and agree with serde_json. Then a
//! few bytes of it are changed, and the raw-bytes checks must hold.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../tests/check.rs"]
mod check;
#[allow(dead_code)]
#[path = "../../tests/common.rs"]
mod common;
#[path = "../../tests/print.rs"]
mod print;

use print::{Json, Style};

/// Reads choices from the fuzz input; zeros once it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn below(&mut self, n: u8) -> u8 {
        self.byte() % n
    }
}

const CHARS: &[char] = &[
    'a', 'Z', '0', ' ', '"', '\\', '/', '\n', '\t', '\u{1}', '\u{1f}', '\u{7f}', 'é', '€', '😀',
    '\u{2028}', '{', '}', '[', ']', ':', ',',
];

fn text(b: &mut Bytes) -> String {
    (0..b.below(12))
        .map(|_| CHARS[usize::from(b.below(CHARS.len() as u8))])
        .collect()
}

fn number(b: &mut Bytes) -> String {
    let mut s = String::new();
    if b.below(2) == 1 {
        s.push('-');
    }
    let digits = |b: &mut Bytes, n: u8| -> String {
        (0..n).map(|_| char::from(b'0' + b.below(10))).collect()
    };
    match b.below(4) {
        0 => s.push('0'),
        _ => {
            s.push(char::from(b'1' + b.below(9)));
            let n = b.below(32);
            s.push_str(&digits(b, n));
        }
    }
    if b.below(2) == 1 {
        s.push('.');
        let n = 1 + b.below(32);
        s.push_str(&digits(b, n));
    }
    if b.below(3) == 1 {
        s.push(['e', 'E'][usize::from(b.below(2))]);
        s.push_str(["", "+", "-"][usize::from(b.below(3))]);
        let n = 1 + b.below(4);
        s.push_str(&digits(b, n));
    }
    s
}

fn value(b: &mut Bytes, depth: u8) -> Json {
    let kinds = if depth == 0 { 4 } else { 6 };
    match b.below(kinds) {
        0 => Json::Null,
        1 => Json::Bool(b.below(2) == 1),
        2 => Json::Number(number(b)),
        3 => Json::String(text(b)),
        4 => Json::Array((0..b.below(6)).map(|_| value(b, depth - 1)).collect()),
        _ => object(b, depth - 1),
    }
}

fn object(b: &mut Bytes, depth: u8) -> Json {
    let mut members: Vec<(String, Json)> = Vec::new();
    for _ in 0..b.below(8) {
        let k = text(b);
        let v = value(b, depth);
        if !members.iter().any(|(m, _)| *m == k) {
            members.push((k, v));
        }
    }
    Json::Object(members)
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let style = Style {
        spaces: b.below(2) == 1,
        escape_rate: b.byte(),
        seed: u64::from(b.byte()) << 8 | u64::from(b.byte()),
    };
    let doc = object(&mut b, 4);
    let mut line = print::print(&doc, style).into_bytes();
    if serde_json::from_slice::<serde_json::Value>(&line).is_err() {
        panic!("printer wrote invalid JSON: {}", String::from_utf8_lossy(&line));
    }
    let checks = |line: &[u8], offset: usize| {
        if let Err(e) = check::check_line(line) {
            panic!("{e}");
        }
        if let Err(e) = check::check_until(line, offset % 4) {
            panic!("{e}");
        }
        if let Err(e) = check::check_placed(line, offset, None) {
            panic!("{e}");
        }
    };
    let offset = usize::from(b.below(64));
    checks(&line, offset);
    // Mutate: each remaining pair of bytes sets one byte of the line, or (chosen by the next
    // byte) changes a byte inside its strings and numbers, which mostly keeps its shape.
    let template = line.clone();
    let inside = b.below(2) == 1;
    let mut picks = Vec::new();
    while !line.is_empty() && b.0.len() >= 2 {
        let (at, what) = (b.byte(), b.byte());
        if inside {
            picks.push((usize::from(at), what));
        } else {
            let at = usize::from(at) * 7 % line.len();
            line[at] = what;
        }
    }
    if !picks.is_empty() {
        line = check::shape_mutation(&line, &picks);
    }
    if line != template {
        checks(&line, offset);
    }
    // After the valid line, the AVX2 scanner may validate the changed one by its shape.
    if let Err(e) = check::check_shapes(&template, &line, offset % 4) {
        panic!("{e}");
    }
});
