//! Colour on a terminal: the palette, JSON text coloured as `jq` colours it, and the
//! removal of the sequences for tests.
//!
//! Colour only ever *adds* SGR sequences (`ESC [ ... m`) around bytes that are copied
//! unchanged: removing the sequences of [`Palette`] from [`json`]'s output gives its input
//! back byte for byte, whatever the input (a line that is not JSON included; it is coloured as
//! far as it looks like JSON and copied otherwise, never a panic). Sequences are only ever
//! put next to an ASCII byte (a quote, a bracket, a digit...) or at the end of the line, so a
//! multi-byte UTF-8 character is never split.
//!
//! Whether to colour is decided once per stream in [`crate::config`]; this module only
//! paints.

/// The SGR sequences ndq writes. Restrained, like jq's and bat's defaults: object keys bold
/// blue, strings green, numbers cyan, `true`/`false` yellow, `null` dimmed, brackets and
/// separators bold; in a table, the header bold, numbers cyan and `null` dimmed; on stderr, the
/// `warning:` label bold yellow.
pub struct Palette;

impl Palette {
    /// Back to plain text.
    pub const RESET: &'static str = "\x1b[0m";
    /// An object key (with its quotes).
    pub const KEY: &'static str = "\x1b[1;34m";
    /// A string (with its quotes).
    pub const STRING: &'static str = "\x1b[32m";
    /// A number.
    pub const NUMBER: &'static str = "\x1b[36m";
    /// `true` and `false`.
    pub const BOOL: &'static str = "\x1b[33m";
    /// `null`.
    pub const NULL: &'static str = "\x1b[2m";
    /// `{ } [ ] : ,`.
    pub const PUNCT: &'static str = "\x1b[1m";
    /// A table's header.
    pub const HEADER: &'static str = "\x1b[1m";
    /// The `warning:` label on stderr.
    pub const WARNING: &'static str = "\x1b[1;33m";

    /// Every sequence written (for [`strip`]).
    #[cfg(test)]
    const ALL: [&'static str; 8] = [
        Self::RESET,
        Self::KEY,
        Self::STRING,
        Self::NUMBER,
        Self::BOOL,
        Self::NULL,
        Self::PUNCT,
        Self::WARNING,
    ];
}

/// `text` between `style` and a reset, appended to `out`; nothing is added around an empty
/// text.
pub fn paint(style: &str, text: &str, out: &mut String) {
    if text.is_empty() {
        return;
    }
    out.push_str(style);
    out.push_str(text);
    out.push_str(Palette::RESET);
}

fn paint_bytes(style: &str, text: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(style.as_bytes());
    out.extend_from_slice(text);
    out.extend_from_slice(Palette::RESET.as_bytes());
}

/// Append `line` (JSON text, one line, without its newline) to `out` with colour.
///
/// A lenient tokenizer, not a validator: a string runs from a quote to the next unescaped
/// quote (or the end of the line); it is a key when the next byte after blanks is `:`. A
/// number is a run of `-+.0-9eE` starting with `-` or a digit; a word of ASCII letters is
/// coloured when it is `true`, `false` or `null`. Runs of `{}[]:,` are punctuation. Anything
/// else (blanks, stray bytes, a malformed word) is copied plain.
pub fn json(line: &[u8], out: &mut Vec<u8>) {
    let n = line.len();
    let mut i = 0;
    while i < n {
        let b = line[i];
        match b {
            b'"' => {
                let end = string_end(line, i);
                let mut next = end;
                while next < n && matches!(line[next], b' ' | b'\t' | b'\r' | b'\n') {
                    next += 1;
                }
                let style = if line.get(next) == Some(&b':') {
                    Palette::KEY
                } else {
                    Palette::STRING
                };
                paint_bytes(style, &line[i..end], out);
                i = end;
            }
            b'-' | b'0'..=b'9' => {
                let end = run(line, i, |c| {
                    matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                });
                paint_bytes(Palette::NUMBER, &line[i..end], out);
                i = end;
            }
            b'{' | b'}' | b'[' | b']' | b':' | b',' => {
                let end = run(line, i, |c| {
                    matches!(c, b'{' | b'}' | b'[' | b']' | b':' | b',')
                });
                paint_bytes(Palette::PUNCT, &line[i..end], out);
                i = end;
            }
            b'a'..=b'z' | b'A'..=b'Z' => {
                let end = run(line, i, |c| c.is_ascii_alphabetic());
                let word = &line[i..end];
                match word {
                    b"true" | b"false" => paint_bytes(Palette::BOOL, word, out),
                    b"null" => paint_bytes(Palette::NULL, word, out),
                    _ => out.extend_from_slice(word),
                }
                i = end;
            }
            _ => {
                // Blanks and anything that starts no token: copied up to the next byte that
                // may (all ASCII, so a UTF-8 sequence is copied whole).
                let end = run(line, i, |c| {
                    !matches!(
                        c,
                        b'"' | b'-' | b'0'..=b'9' | b'{' | b'}' | b'[' | b']' | b':' | b','
                    ) && !c.is_ascii_alphabetic()
                });
                out.extend_from_slice(&line[i..end]);
                i = end;
            }
        }
    }
}

/// The end (exclusive) of the run of bytes from `start` (which is in it) that `keep`.
fn run(line: &[u8], start: usize, keep: impl Fn(u8) -> bool) -> usize {
    line[start + 1..]
        .iter()
        .position(|&c| !keep(c))
        .map_or(line.len(), |p| start + 1 + p)
}

/// The end (exclusive, after the closing quote) of the string whose opening quote is at
/// `start`; the end of the line when it is not closed.
fn string_end(line: &[u8], start: usize) -> usize {
    let mut j = start + 1;
    while j < line.len() {
        match line[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    line.len()
}

/// `text` without the sequences of [`Palette`] (any other byte, an escape byte included,
/// is kept). For tests: ndq never needs to take colour off.
#[cfg(test)]
pub fn strip(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    'outer: while i < text.len() {
        if text[i] == 0x1b {
            for seq in Palette::ALL {
                if text[i..].starts_with(seq.as_bytes()) {
                    i += seq.len();
                    continue 'outer;
                }
            }
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn colored(line: &str) -> String {
        let mut out = Vec::new();
        json(line.as_bytes(), &mut out);
        String::from_utf8(out).expect("colour keeps UTF-8 whole")
    }

    /// The colours made visible: `<k>` key, `<s>` string, `<n>` number, `<b>` boolean,
    /// `<0>` null, `<p>` punctuation, `</>` reset.
    fn shown(line: &str) -> String {
        colored(line)
            .replace(Palette::RESET, "</>")
            .replace(Palette::KEY, "<k>")
            .replace(Palette::STRING, "<s>")
            .replace(Palette::NUMBER, "<n>")
            .replace(Palette::BOOL, "<b>")
            .replace(Palette::NULL, "<0>")
            .replace(Palette::PUNCT, "<p>")
    }

    #[test]
    fn each_kind_of_token_has_its_colour() {
        assert_eq!(
            shown(r#"{"a": 1.5e3, "b" : [true, false, null], "c":"x"}"#),
            "<p>{</><k>\"a\"</><p>:</> <n>1.5e3</><p>,</> <k>\"b\"</> <p>:</> \
             <p>[</><b>true</><p>,</> <b>false</><p>,</> <0>null</><p>],</> \
             <k>\"c\"</><p>:</><s>\"x\"</><p>}</>"
        );
        assert_eq!(shown(r#"{"a":{}}"#), "<p>{</><k>\"a\"</><p>:{}}</>");
    }

    #[test]
    fn escapes_stay_inside_their_string() {
        assert_eq!(
            shown(r#"{"k\"":"a\\","m":"\"b\" \u001b[31m é"}"#),
            "<p>{</><k>\"k\\\"\"</><p>:</><s>\"a\\\\\"</><p>,</><k>\"m\"</><p>:</>\
             <s>\"\\\"b\\\" \\u001b[31m é\"</><p>}</>"
        );
    }

    #[test]
    fn malformed_lines_are_copied() {
        assert_eq!(shown(r#"{"a": tru"#), "<p>{</><k>\"a\"</><p>:</> tru");
        assert_eq!(shown(r#"{"open"#), "<p>{</><s>\"open</>");
        assert_eq!(shown("\"\\"), "<s>\"\\</>");
        assert_eq!(shown("héllo wörld"), "héllo wörld");
        assert_eq!(shown(""), "");
    }

    #[test]
    fn strip_keeps_foreign_escapes() {
        let line = "{\"a\":\"\x1b[31mred\x1b[0m\"}";
        let mut out = Vec::new();
        json(line.as_bytes(), &mut out);
        // ndq's own reset cannot be told from the line's; every other byte survives.
        assert_eq!(strip(&out), strip(line.as_bytes()));
        assert_eq!(strip(b"\x1b[91mx"), b"\x1b[91mx");
    }

    #[test]
    fn paint_skips_empty_text() {
        let mut s = String::new();
        paint(Palette::NUMBER, "", &mut s);
        assert_eq!(s, "");
        paint(Palette::NUMBER, "1", &mut s);
        assert_eq!(s, "\x1b[36m1\x1b[0m");
    }

    /// JSON-ish text: the bytes that matter to the tokenizer, escapes, non-ASCII.
    fn jsonish() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"\"".to_vec()),
            Just(b"\\".to_vec()),
            Just(b"\\\"".to_vec()),
            Just(b"\\\\".to_vec()),
            Just(b"\\u001b".to_vec()),
            Just(b"{".to_vec()),
            Just(b"}".to_vec()),
            Just(b"[".to_vec()),
            Just(b"]".to_vec()),
            Just(b":".to_vec()),
            Just(b",".to_vec()),
            Just(b" ".to_vec()),
            Just(b"true".to_vec()),
            Just(b"nul".to_vec()),
            Just(b"null".to_vec()),
            Just(b"-1.5e+3".to_vec()),
            Just("é中😀".as_bytes().to_vec()),
            "[a-z0-9 ]{0,4}".prop_map(String::into_bytes),
            any::<u8>()
                .prop_filter("no raw escape byte", |&b| b != 0x1b)
                .prop_map(|b| vec![b]),
        ];
        prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    /// A real JSON object line from generated values.
    fn object_line() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(serde_json::Value::from),
            any::<String>().prop_map(serde_json::Value::from),
        ];
        let value = leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                prop::collection::btree_map(any::<String>(), inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        });
        (
            prop::collection::btree_map(any::<String>(), value, 0..5),
            any::<bool>(),
        )
            .prop_map(|(m, pretty)| {
                let v = serde_json::Value::Object(m.into_iter().collect());
                if pretty {
                    // Blanks between tokens (still one line: pretty's newlines become spaces,
                    // strings hold no raw newline).
                    serde_json::to_string_pretty(&v).unwrap().replace('\n', " ")
                } else {
                    serde_json::to_string(&v).unwrap()
                }
            })
    }

    proptest! {
        #[test]
        fn strip_gives_any_bytes_back(line in prop::collection::vec(
            any::<u8>().prop_filter("no raw escape byte", |&b| b != 0x1b), 0..200)) {
            let mut out = Vec::new();
            json(&line, &mut out);
            prop_assert_eq!(strip(&out), line);
        }

        #[test]
        fn strip_gives_jsonish_lines_back(line in jsonish()) {
            let mut out = Vec::new();
            json(&line, &mut out);
            prop_assert_eq!(strip(&out), line.clone());
            // UTF-8 in, UTF-8 out: no sequence lands inside a character.
            if std::str::from_utf8(&line).is_ok() {
                prop_assert!(std::str::from_utf8(&out).is_ok());
            }
        }

        #[test]
        fn strip_gives_json_objects_back(line in object_line()) {
            let out = colored(&line);
            prop_assert_eq!(strip(out.as_bytes()), line.as_bytes());
            prop_assert!(out.starts_with(Palette::PUNCT));
        }
    }
}
