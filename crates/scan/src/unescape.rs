//! Decoding the escapes of a JSON string: to an owned `String`, or compared against a key
//! without allocating. The input is text the scanner already validated; anything it would have
//! rejected (which cannot reach here) decodes to U+FFFD rather than failing.

/// The value of the four hex digits at `bytes[at..at + 4]`.
#[inline]
pub(crate) fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    let hex = bytes.get(at..at + 4)?;
    let mut v: u16 = 0;
    for &c in hex {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = v << 4 | u16::from(d);
    }
    Some(v)
}

/// A piece of a string's value: a run of text without escapes, or one escaped character.
enum Piece<'a> {
    Text(&'a str),
    Char(char),
}

/// The pieces of raw (escaped) string text, in order.
struct Pieces<'a> {
    raw: &'a str,
    at: usize,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        let rest = self
            .raw
            .as_bytes()
            .get(self.at..)
            .filter(|r| !r.is_empty())?;
        if rest.first() == Some(&b'\\') {
            let (c, len) = decode(rest);
            self.at += len;
            return Some(Piece::Char(c));
        }
        let n = memchr::memchr(b'\\', rest).unwrap_or(rest.len());
        // A backslash or the end is always a char boundary.
        let text = self.raw.get(self.at..self.at + n)?;
        self.at += n;
        Some(Piece::Text(text))
    }
}

/// The character of the escape at the start of `s` (which starts with a backslash) and the
/// escape's length in bytes.
fn decode(s: &[u8]) -> (char, usize) {
    const BAD: char = char::REPLACEMENT_CHARACTER;
    let c = match s.get(1) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => {
            return match hex4(s, 2) {
                Some(hi @ 0xD800..=0xDBFF) => {
                    let lo = match (s.get(6), s.get(7)) {
                        (Some(b'\\'), Some(b'u')) => hex4(s, 8),
                        _ => None,
                    };
                    match lo {
                        Some(lo @ 0xDC00..=0xDFFF) => {
                            let c = 0x10000
                                + ((u32::from(hi) - 0xD800) << 10)
                                + (u32::from(lo) - 0xDC00);
                            (char::from_u32(c).unwrap_or(BAD), 12)
                        }
                        _ => (BAD, 6),
                    }
                }
                // A lone low surrogate is not a char: from_u32 says None.
                Some(cp) => (char::from_u32(u32::from(cp)).unwrap_or(BAD), 6),
                None => (BAD, 2),
            };
        }
        // Not an escape: drop the backslash alone, keep what follows as text.
        _ => return (BAD, 1),
    };
    (c, 2)
}

/// The value of the raw string text `raw`.
pub(crate) fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for piece in (Pieces { raw, at: 0 }) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Char(c) => out.push(c),
        }
    }
    out
}

/// Whether the raw string text `raw` has the value `key`, without allocating.
pub(crate) fn eq(raw: &str, key: &str) -> bool {
    let mut key = key.as_bytes();
    let mut buf = [0u8; 4];
    for piece in (Pieces { raw, at: 0 }) {
        let part = match piece {
            Piece::Text(t) => t.as_bytes(),
            Piece::Char(c) => c.encode_utf8(&mut buf).as_bytes(),
        };
        match key.strip_prefix(part) {
            Some(rest) => key = rest,
            None => return false,
        }
    }
    key.is_empty()
}
