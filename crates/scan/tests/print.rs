//! A printer for generated JSON: one line, minified or with random whitespace between
//! tokens, escaping keys and strings at random (every character may be written as `\uXXXX`,
//! astral ones as surrogate pairs). Shared by the proptest strategies (`arb.rs`) and the fuzz
//! targets, so it depends on nothing but std.

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

/// How to print: whitespace between tokens, and how often to escape a character needlessly.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub spaces: bool,
    /// Out of 256.
    pub escape_rate: u8,
    pub seed: u64,
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
