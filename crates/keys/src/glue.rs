//! Lines matched by their glue: the template of a line found without indexing it.
//!
//! A line is its values (strings, numbers, `true`/`false`: the *slots*) with fixed text
//! between them, the *glue*: punctuation, whitespace, the keys with their quotes, `null`s.
//! Two valid lines with the same glue in the same order and slots of the same kinds have the
//! same tokens, the same nesting and the same keys (as written), so the same template
//! (`template.rs`). So the lines of known templates are kept in a trie of (glue, slot kind)
//! steps, each path ending at its template, and a line is matched by walking it:
//!
//! ```text
//! pos = 0, node = root
//! loop: for each child c of node (in the order added):
//!           line[pos..] starts with c.glue, and after it a slot of c.kind:
//!               a string: `"`, then up to the first `"` not escaped (SWAR, 8 bytes a step)
//!               a number: the run of `0-9 - + . e E` (non-empty)
//!               a boolean: `true` or `false`
//!               the end: nothing (the line ends with the glue): the template is c's
//!           → keep the slot's bounds, pos = after it, node = c; next loop
//!       no child matched: not known (the caller indexes the line and adds it)
//! ```
//!
//! Why one match is the line's structure: suppose first that the line is valid JSON; the
//! walk starts where the recorded line starts. By induction, at each step
//! `pos` is where the recorded line's next glue started, in the same state of the grammar:
//! equal glue bytes are the same punctuation, the same keys (a key ends at its first quote
//! not escaped, the same byte in both), the same `null`s; then a slot is one whole token
//! (a number's run is maximal, since glue never starts with a number's character; a string
//! ends at its first quote not escaped, which the walk finds as the scanner does). So the
//! line's tokens are the recorded line's kinds and links, and its keys the same text: the
//! template's structure, in `template.rs`'s sense (`true` and `false` aside, which a
//! template treats alike: both are a boolean hashed from its text).
//!
//! And why a match needs no scanner (the walk is the validation): a line matched is the
//! recorded line `R = g0 r0 g1 r1 ... gn` (valid JSON) with each slot `r_i` replaced by
//! an `s_i` of the same kind, and the same glue around. When each `s_i` is itself a valid
//! token of that kind, and nothing but that token (a string is a quote, text, and the first
//! quote not escaped; a number's run is maximal and follows the number grammar; a boolean
//! is `true` or `false`, followed by the same glue as in `R`, which does not start with a
//! letter), the line reads as `R`'s tokens with other values: valid, with `R`'s structure.
//! So the walk checks what the scanner would of each slot: a string has no byte below
//! 0x20 and each of its escapes is valid ([`ndq_scan::decode_escape`], escapes taken one
//! after another as the scanner takes them; else no match), a number follows
//! `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?` (else no match). The same structure
//! means the same depth; UTF-8 and the length limit (under 4 GiB) are the caller's to
//! check, before the walk. A line that does not match takes the scanner's full index, which
//! gives the verdict of an invalid line: the verdicts are the scanner's.

use crate::distinct::{self, Stream};

/// What comes after a step's glue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A string (its bounds include the quotes).
    Str,
    /// A number.
    Num,
    /// `true` or `false`.
    Bool,
    /// The end of the line.
    End,
}

/// One step of the trie: glue, then a slot of `kind`.
#[derive(Clone, Debug)]
struct Node {
    glue_start: u32,
    glue_len: u32,
    /// The glue's first (up to) 8 bytes as a little-endian word, zeros after its end, and
    /// the mask of those bytes: most glue is compared by one masked word.
    head: u64,
    head_mask: u64,
    kind: Kind,
    /// The first child and the next sibling (0: none; the root is never a child).
    child: u32,
    sibling: u32,
    children: u32,
    /// For [`Kind::End`]: the template.
    template: u32,
}

/// The most nodes and glue bytes kept, and children of a node (a line whose keys change
/// from line to line would otherwise make a node every line has to try one by one).
const MAX_NODES: usize = 1 << 16;
const MAX_GLUE: usize = 1 << 22;
const MAX_CHILDREN: u32 = 16;

/// Lines between checks of the hit rate, and lines not tried after a low one (fewer than
/// half of them matched).
const WINDOW: u32 = 256;
const BACKOFF: u32 = 16 * 1024;

/// A slot's bounds in the line (`start..end`), for a string whether it has a backslash, and
/// the value's [`prehash`] when the walk took it on the way (`hashed`: a string without
/// escapes whose end was found a word at a time, a number, a boolean).
///
/// [`prehash`]: crate::distinct::prehash
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) escaped: bool,
    pub(crate) hashed: bool,
    pub(crate) hash: u64,
}

/// The trie of known lines' glue.
#[derive(Debug)]
pub(crate) struct Glue {
    nodes: Vec<Node>,
    bytes: Vec<u8>,
    tries: u32,
    hits: u32,
    skip: u32,
    /// Lines matched (for tests).
    pub(crate) matched: u64,
}

impl Default for Glue {
    fn default() -> Glue {
        Glue {
            nodes: vec![Node {
                glue_start: 0,
                glue_len: 0,
                head: 0,
                head_mask: 0,
                kind: Kind::End,
                child: 0,
                sibling: 0,
                children: 0,
                template: 0,
            }],
            bytes: Vec::new(),
            tries: 0,
            hits: 0,
            skip: 0,
            matched: 0,
        }
    }
}

impl Glue {
    /// Whether to try the next line (false while paused after a low hit rate).
    #[inline]
    pub(crate) fn wanted(&mut self) -> bool {
        if self.skip > 0 {
            self.skip -= 1;
            return false;
        }
        true
    }

    /// The template of `line` and its slots (in `slots`), or `None` when its glue is not
    /// known.
    #[inline]
    pub(crate) fn walk(&mut self, line: &[u8], slots: &mut Vec<Slot>) -> Option<u32> {
        let found = self.find(line, slots);
        self.tries += 1;
        self.hits += u32::from(found.is_some());
        self.matched += u64::from(found.is_some());
        if self.tries == WINDOW {
            if self.hits < WINDOW / 2 {
                self.skip = BACKOFF;
            }
            self.tries = 0;
            self.hits = 0;
        }
        found
    }

    fn find(&self, line: &[u8], slots: &mut Vec<Slot>) -> Option<u32> {
        slots.clear();
        let mut pos = 0usize;
        let mut node = self.nodes.first()?;
        'down: loop {
            let mut c = node.child;
            while c != 0 {
                let n = self.nodes.get(c as usize)?;
                c = n.sibling;
                let len = n.glue_len as usize;
                let known = match line.get(pos..pos + 8) {
                    // The first word, then (glue longer than a word) the rest.
                    Some(w) => {
                        let w = u64::from_le_bytes(<[u8; 8]>::try_from(w).ok()?);
                        w & n.head_mask == n.head
                            && (len <= 8 || {
                                let glue = self.bytes.get(
                                    n.glue_start as usize..(n.glue_start + n.glue_len) as usize,
                                )?;
                                starts_with(line, pos, glue)
                            })
                    }
                    // Near the line's end.
                    None => {
                        let glue = self
                            .bytes
                            .get(n.glue_start as usize..(n.glue_start + n.glue_len) as usize)?;
                        line.get(pos..pos + len) == Some(glue)
                    }
                };
                if !known {
                    continue;
                }
                let at = pos + len;
                // Each kind pushes its slot itself and gives its end: a `Slot` handed back
                // went through the stack, its flags stored a byte at a time and loaded as a
                // word, a store-to-load forwarding stall on every slot.
                let end = match n.kind {
                    Kind::End if at == line.len() => return Some(n.template),
                    Kind::End => continue,
                    Kind::Str => string(line, at, slots),
                    Kind::Num => number(line, at, slots),
                    Kind::Bool => boolean(line, at, slots),
                };
                let Some(end) = end else {
                    continue;
                };
                pos = end;
                node = n;
                continue 'down;
            }
            return None;
        }
    }

    /// Add a line's glue and slot kinds (`steps`: for each slot the glue's range in `line`
    /// before it and its kind, then the last glue with [`Kind::End`]), ending at `template`.
    /// Nothing is added when the trie is full or a node on the way has too many children.
    pub(crate) fn insert(&mut self, line: &[u8], steps: &[(u32, u32, Kind)], template: u32) {
        if self.nodes.len() + steps.len() > MAX_NODES {
            return;
        }
        let mut at = 0u32;
        for &(from, to, kind) in steps {
            let Some(glue) = line.get(from as usize..to as usize) else {
                return;
            };
            let mut c = self.nodes.get(at as usize).map_or(0, |n| n.child);
            let mut last = 0;
            let mut found = None;
            while c != 0 {
                let Some(n) = self.nodes.get(c as usize) else {
                    return;
                };
                let same = n.kind == kind
                    && self
                        .bytes
                        .get(n.glue_start as usize..(n.glue_start + n.glue_len) as usize)
                        == Some(glue);
                if same {
                    found = Some(c);
                    break;
                }
                last = c;
                c = n.sibling;
            }
            if let Some(c) = found {
                at = c;
                continue;
            }
            let full = self
                .nodes
                .get(at as usize)
                .is_none_or(|n| n.children >= MAX_CHILDREN);
            if full || self.bytes.len() + glue.len() > MAX_GLUE {
                return;
            }
            let id = self.nodes.len() as u32;
            let (head, head_mask) = head(glue);
            self.nodes.push(Node {
                glue_start: self.bytes.len() as u32,
                glue_len: glue.len() as u32,
                head,
                head_mask,
                kind,
                child: 0,
                sibling: 0,
                children: 0,
                template,
            });
            self.bytes.extend_from_slice(glue);
            if let Some(p) = self.nodes.get_mut(at as usize) {
                p.children += 1;
                if p.child == 0 {
                    p.child = id;
                }
            }
            if last != 0
                && let Some(l) = self.nodes.get_mut(last as usize)
            {
                l.sibling = id;
            }
            at = id;
        }
    }
}

/// The first (up to) 8 bytes of `glue` as a little-endian word padded with zeros, and the
/// mask of the bytes it holds.
fn head(glue: &[u8]) -> (u64, u64) {
    let mut w = [0u8; 8];
    let n = glue.len().min(8);
    w[..n].copy_from_slice(&glue[..n]);
    let mask = if n == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * n)) - 1
    };
    (u64::from_le_bytes(w), mask)
}

/// Whether `line[pos..]` starts with `glue`: 8 bytes a compare.
#[inline]
fn starts_with(line: &[u8], pos: usize, glue: &[u8]) -> bool {
    let Some(text) = line.get(pos..pos + glue.len()) else {
        return false;
    };
    let word = |s: &[u8], i: usize| {
        s.get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map(u64::from_le_bytes)
    };
    let n = glue.len();
    if n < 8 {
        return text == glue;
    }
    let mut i = 0;
    while i + 8 < n {
        if word(text, i) != word(glue, i) {
            return false;
        }
        i += 8;
    }
    word(text, n - 8) == word(glue, n - 8)
}

/// The string starting with its quote at `at`: its slot pushed (its bounds, quotes
/// included, and the [`prehash`] of its text when it has no escape), and its end.
///
/// ```text
/// h = Stream(string tag), i = at + 1
/// while line[i..i + 8] is a whole word w:
///     no quote nor backslash in w:  h.word(w), i += 8
///     else the first is at byte k of w:
///         a quote:  h.word(w's first k bytes) if k > 0; the end is i + k; hash = h.end(len)
///         a backslash: escaped; find the end as below, no hash
/// fewer than 8 bytes left: find the end byte by byte, hash the text from scratch
/// ```
///
/// [`prehash`]: crate::distinct::prehash
#[inline]
fn string(line: &[u8], at: usize, slots: &mut Vec<Slot>) -> Option<usize> {
    if line.get(at) != Some(&b'"') {
        return None;
    }
    let from = at + 1;
    let mut i = from;
    let mut h = Stream::new(distinct::TAG_STRING);
    // 8 bytes at a time while they hold neither a quote nor a backslash nor a control byte
    // (SWAR: a byte equal to `b` is a zero byte of `w ^ b*0x01..01`), each word hashed as
    // it goes.
    while let Some(w) = line.get(i..i + 8) {
        let w = u64::from_le_bytes(<[u8; 8]>::try_from(w).ok()?);
        let hits = zero_bytes(w ^ QUOTES) | zero_bytes(w ^ BACKSLASHES) | controls(w);
        if hits == 0 {
            h.word(w);
            i += 8;
            continue;
        }
        let k = (hits.trailing_zeros() / 8) as usize;
        let b = *line.get(i + k)?;
        if b < 0x20 {
            // Not a valid string: the scanner gives the verdict.
            return None;
        }
        if b == b'"' {
            if k > 0 {
                h.word(w & (u64::MAX >> (64 - 8 * k)));
            }
            let len = i + k - from;
            let end = i + k + 1;
            slots.push(Slot {
                start: at as u32,
                end: end as u32,
                escaped: false,
                hashed: true,
                hash: h.end(len),
            });
            return Some(end);
        }
        let end = string_end(line, i + k)?;
        slots.push(Slot {
            start: at as u32,
            end: end as u32,
            escaped: true,
            hashed: false,
            hash: 0,
        });
        return Some(end);
    }
    // Fewer than 8 bytes left in the line.
    let end = string_end(line, i)?;
    let text = line.get(from..end - 1)?;
    let escaped = text.contains(&b'\\');
    slots.push(Slot {
        start: at as u32,
        end: end as u32,
        escaped,
        hashed: !escaped,
        hash: distinct::prehash(distinct::TAG_STRING, text),
    });
    Some(end)
}

/// The rest of [`string`]: its end (after the closing quote) found from `i` on (inside the
/// string, at a byte that is not part of an escape), each escape checked; `None` if the
/// string is not valid (a bad escape, a control byte) or not ended.
#[inline]
fn string_end(line: &[u8], mut i: usize) -> Option<usize> {
    loop {
        while let Some(w) = line.get(i..i + 8) {
            let w = u64::from_le_bytes(<[u8; 8]>::try_from(w).ok()?);
            let hits = zero_bytes(w ^ QUOTES) | zero_bytes(w ^ BACKSLASHES) | controls(w);
            if hits != 0 {
                i += (hits.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        match line.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => {
                // An escape, checked as the scanner checks it (its bytes, a quote or a
                // backslash among them, are not an end; a bad one is no match).
                let (_, n) = ndq_scan::decode_escape(line.get(i..)?)?;
                i += n;
            }
            b if *b < 0x20 => return None,
            _ => i += 1,
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;
const QUOTES: u64 = ONES * b'"' as u64;
const BACKSLASHES: u64 = ONES * b'\\' as u64;

/// Nonzero when `w` has a byte below 0x20, and then its lowest set bit is the high bit of
/// the first such byte (as in [`zero_bytes`], later bytes may be marked wrongly).
#[inline]
fn controls(w: u64) -> u64 {
    w.wrapping_sub(ONES * 0x20) & !w & HIGHS
}

/// Nonzero when `w` has a zero byte, and then its lowest set bit is the high bit of the
/// first zero byte (bytes after it may be marked wrongly, by the borrow).
#[inline]
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGHS
}

/// The number starting at `at`, its slot pushed and its end given: the run of number
/// characters there, when it is one valid JSON number (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`).
#[inline]
fn number(line: &[u8], at: usize, slots: &mut Vec<Slot>) -> Option<usize> {
    let first = *line.get(at)?;
    if !(first == b'-' || first.is_ascii_digit()) {
        return None;
    }
    let rest = line.get(at + 1..)?;
    let len = rest
        .iter()
        .position(|&b| !matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
        .unwrap_or(rest.len());
    let end = at + 1 + len;
    let text = line.get(at..end)?;
    if !valid_number(text) {
        return None;
    }
    slots.push(Slot {
        start: at as u32,
        end: end as u32,
        escaped: false,
        hashed: true,
        hash: distinct::number_prehash(text),
    });
    Some(end)
}

/// Whether `text` is exactly one JSON number (RFC 8259's grammar).
fn valid_number(text: &[u8]) -> bool {
    let digits = |from: usize| {
        text.get(from..)
            .map_or(0, |r| r.iter().take_while(|b| b.is_ascii_digit()).count())
    };
    let mut i = usize::from(text.first() == Some(&b'-'));
    match text.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits(i),
        _ => return false,
    }
    if text.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    if matches!(text.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(text.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == text.len()
}

/// `true` or `false` at `at`: its slot pushed, its end given.
#[inline]
fn boolean(line: &[u8], at: usize, slots: &mut Vec<Slot>) -> Option<usize> {
    let rest = line.get(at..)?;
    let (len, hash) = if rest.starts_with(b"true") {
        (4, distinct::prehash(distinct::TAG_BOOLEAN, b"true"))
    } else if rest.starts_with(b"false") {
        (5, distinct::prehash(distinct::TAG_BOOLEAN, b"false"))
    } else {
        return None;
    };
    slots.push(Slot {
        start: at as u32,
        end: (at + len) as u32,
        escaped: false,
        hashed: true,
        hash,
    });
    Some(at + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One slot read by `read` (`string`, `number`, `boolean`) at the start of `line`.
    fn one(read: fn(&[u8], usize, &mut Vec<Slot>) -> Option<usize>, line: &[u8]) -> Option<Slot> {
        let mut slots = Vec::new();
        let end = read(line, 0, &mut slots)?;
        let slot = slots.pop()?;
        assert_eq!((slots.len(), slot.end as usize), (0, end));
        Some(slot)
    }

    #[test]
    fn strings_end_at_their_first_quote_not_escaped() {
        for text in [
            r#""" x"#,
            r#""abc" x"#,
            r#""abcdefghijklmnop" x"#,
            r#""a\"b" x"#,
            r#""a\\" x"#,
            r#""abcdefg\\\"hijklmn\u0022" x"#,
            r#""é ü ∑ 日本語" x"#,
            r#""abcdefg\"" x"#,
            r#""abcdefgh\"" x"#,
            r#""\\\\\\\\\"" x"#,
        ] {
            let end = text.len() - 2;
            let s = one(string, text.as_bytes()).unwrap();
            assert_eq!((s.start, s.end as usize), (0, end), "{text}");
            assert_eq!(s.escaped, text[..end].contains('\\'), "{text}");
        }
        assert_eq!(one(string, b"1"), None);
    }

    #[test]
    fn values_hashed_on_the_way_have_their_prehash() {
        use crate::distinct::{TAG_BOOLEAN, TAG_STRING, number_prehash, prehash};
        // Strings of every length up to 40 (every place of the end in a word), each with
        // text after it shorter and longer than a word, and one with a backslash.
        for n in 0..40 {
            let text: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            for after in ["", "}", ",\"k\":[1,2,3]}"] {
                let line = format!(r#""{text}"{after}"#);
                let s = one(string, line.as_bytes()).unwrap();
                assert_eq!(s.end as usize, n + 2, "{line}");
                assert!(s.hashed && !s.escaped, "{line}");
                assert_eq!(s.hash, prehash(TAG_STRING, text.as_bytes()), "{line}");
                let line = format!(r#""{text}\"x"{after}"#);
                let s = one(string, line.as_bytes()).unwrap();
                assert!(s.escaped && !s.hashed, "{line}");
            }
        }
        for (line, n) in [("12.5e3,", 6), ("-0}", 2), ("1234567890123", 13)] {
            let s = one(number, line.as_bytes()).unwrap();
            assert_eq!(s.end as usize, n);
            assert_eq!(s.hash, number_prehash(&line.as_bytes()[..n]));
        }
        for b in ["true", "false"] {
            let s = one(boolean, format!("{b},").as_bytes()).unwrap();
            assert_eq!(s.hash, prehash(TAG_BOOLEAN, b.as_bytes()));
        }
    }

    #[test]
    fn numbers_follow_the_json_grammar() {
        for good in [
            "0", "-0", "7", "12", "-12.5", "0.001", "1e5", "1E+05", "2.5e-3", "-0.0E0",
        ] {
            assert!(valid_number(good.as_bytes()), "{good}");
            let line = format!("{good},");
            assert_eq!(
                one(number, line.as_bytes()).map(|s| s.end as usize),
                Some(good.len())
            );
        }
        for bad in [
            "-", "01", "-01", "1.", ".5", "1e", "1e+", "1.e5", "1-2", "1..2", "1e5e5", "+1",
            "1ee5", "00", "1.5.", "--1", "1+",
        ] {
            assert!(!valid_number(bad.as_bytes()), "{bad}");
            assert_eq!(one(number, format!("{bad},").as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn strings_with_a_control_byte_are_not_matched() {
        for at in 0..20 {
            let mut text = "abcdefghijklmnopqrstuvwxyz".as_bytes().to_vec();
            text[at] = 0x1f;
            let line = [b"\"", &text[..], b"\"}"].concat();
            assert_eq!(one(string, &line), None, "{at}");
            text[at] = 0x7f;
            let line = [b"\"", &text[..], b"\"}"].concat();
            assert!(one(string, &line).is_some(), "{at}");
        }
    }

    #[test]
    fn controls_finds_the_first_byte_below_0x20() {
        for w in (0..4096u64).map(|i| {
            (0..6).fold(0x4141_0000_0000_0000, |w, b| {
                w | [0u64, 0x1f, 0x20, 0xff][(i >> (2 * b)) as usize & 3] << (8 * b)
            })
        }) {
            let first = (0..8).find(|i| (w >> (8 * i)) & 0xff < 0x20);
            let c = controls(w);
            let got = (c != 0).then(|| c.trailing_zeros() / 8);
            assert_eq!(got, first, "{w:x}");
        }
    }

    #[test]
    fn zero_bytes_finds_the_first_zero_byte() {
        let words = [
            0u64,
            1,
            0x0100,
            0x0001_0000_0000_0100,
            u64::MAX,
            0x8000_0000_0000_0000,
        ];
        let words = words.into_iter().chain((0..4096u64).map(|i| {
            // Bytes 0, 1, 0x80 and 0xff in every mix of the low six bytes.
            (0..6).fold(0xffff_0000_0000_0000, |w, b| {
                w | [0u64, 1, 0x80, 0xff][(i >> (2 * b)) as usize & 3] << (8 * b)
            })
        }));
        for w in words {
            let first = (0..8).find(|i| (w >> (8 * i)) & 0xff == 0);
            let z = zero_bytes(w);
            let got = (z != 0).then(|| z.trailing_zeros() / 8);
            assert_eq!(got, first, "{w:x}");
        }
    }
}
