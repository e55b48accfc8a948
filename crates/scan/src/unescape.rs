//! Decoding the escapes of JSON string text: the one escape decoder of the workspace
//! ([`decode_escape`]), a string's value ([`unescape`]), and the comparison of raw text with a
//! key without allocating ([`eq`]).
//!
//! [`decode_escape`] answers `None` for exactly the escapes the scanner rejects (its
//! validation in `state.rs` stays inline for speed; a test holds the two to the same verdict
//! and length on every escape). Text the scanner accepted therefore never meets an invalid
//! escape here. Other callers may (the query engine's prefilter walks raw, unvalidated lines;
//! its output writes strings it is handed); for them [`unescape`] follows the verdict: what the
//! scanner does not take as an escape is not decoded, and never panics:
//!
//! ```text
//! a backslash that starts no escape (\x, \u12G4, \u12, a   -> the backslash stays text,
//!   backslash at the end)                                 and so does what follows it
//! \uXXXX naming a lone surrogate (a complete escape that  -> U+FFFD for its 6 bytes
//!   names no character)
//! ```

use std::borrow::Cow;

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

/// The escape at the start of `s` (`s[0]` is a backslash): the character it stands for and
/// its length in bytes (2, 6, or 12 for a surrogate pair), or `None` when it is not a valid
/// JSON escape (an unknown letter, bad hex, a lone surrogate, nothing after the backslash):
/// exactly the escapes the scanner rejects as malformed.
///
/// ```
/// use ndq_scan::decode_escape;
///
/// assert_eq!(decode_escape(br"\u0041BC"), Some(('A', 6)));
/// assert_eq!(decode_escape(br"\ud83d\ude00"), Some(('😀', 12)));
/// assert_eq!(decode_escape(br"\x"), None);
/// assert_eq!(decode_escape(br"\ud83d"), None);
/// ```
pub fn decode_escape(s: &[u8]) -> Option<(char, usize)> {
    let c = match s.get(1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let hi = u32::from(hex4(s, 2)?);
            if !(0xD800..0xDC00).contains(&hi) {
                // A lone low surrogate is no char: from_u32 says None.
                return char::from_u32(hi).map(|c| (c, 6));
            }
            // A high surrogate: a low one must follow as `\uXXXX`.
            if s.get(6..8) != Some(b"\\u") {
                return None;
            }
            let lo = u32::from(hex4(s, 8)?);
            if !(0xDC00..0xE000).contains(&lo) {
                return None;
            }
            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
            return char::from_u32(c).map(|c| (c, 12));
        }
        _ => return None,
    };
    Some((c, 2))
}

/// [`decode_escape`], with an invalid escape read as the module docs say: a lone surrogate
/// as U+FFFD, any other backslash as itself.
#[inline]
fn decode_lossy(s: &[u8]) -> (char, usize) {
    decode_escape(s).unwrap_or_else(|| {
        if s.get(1) == Some(&b'u') && hex4(s, 2).is_some() {
            (char::REPLACEMENT_CHARACTER, 6)
        } else {
            ('\\', 1)
        }
    })
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
            let (c, len) = decode_lossy(rest);
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

/// The value of a JSON string's raw text (between the quotes): borrowed when there is no
/// backslash. An invalid escape, which the scanner never hands over, is kept as written, a lone
/// surrogate becomes U+FFFD (see the module docs).
///
/// ```
/// use ndq_scan::unescape;
///
/// assert_eq!(unescape(r#"a \"quoted\" word\u00e9"#), "a \"quoted\" wordé");
/// assert_eq!(unescape(r"a\uD800b"), "a\u{fffd}b");
/// assert_eq!(unescape(r"a\xb"), r"a\xb");
/// ```
pub fn unescape(raw: &str) -> Cow<'_, str> {
    if memchr::memchr(b'\\', raw.as_bytes()).is_none() {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    for piece in (Pieces { raw, at: 0 }) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Char(c) => out.push(c),
        }
    }
    Cow::Owned(out)
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

/// Check the escape whose backslash is at `p`: the position after it, or the offset that
/// makes it invalid. This is the scanner's verdict on escapes (`state.rs` and the line
/// shapes call it); [`decode_escape`] decodes exactly the escapes it accepts.
#[inline]
pub(crate) fn escape_end(bytes: &[u8], p: usize) -> Result<usize, usize> {
    match bytes.get(p + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(p + 2),
        Some(b'u') => {
            let hi = hex4(bytes, p + 2).ok_or(p + 2)?;
            match hi {
                0xD800..=0xDBFF => {
                    // A high surrogate must be followed by an escaped low surrogate.
                    if bytes.get(p + 6) != Some(&b'\\') || bytes.get(p + 7) != Some(&b'u') {
                        return Err(p + 6);
                    }
                    match hex4(bytes, p + 8) {
                        Some(0xDC00..=0xDFFF) => Ok(p + 12),
                        _ => Err(p + 6),
                    }
                }
                0xDC00..=0xDFFF => Err(p),
                _ => Ok(p + 6),
            }
        }
        _ => Err(p + 1),
    }
}
