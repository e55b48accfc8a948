//! Validating the rest of a line once `parse_until` has indexed everything it wants: no tape,
//! only "is this well-formed, and where does the root close?", 64 bytes at a time, with the
//! grammar checked as identities between bitmasks rather than token by token.
//!
//! A feeder turns each 64-byte block into [`Masks`] (one bit per byte). Everything that decides
//! what the bits mean is here, in safe code. For a block (carrying state across blocks):
//!
//! ```text
//! pair backslashes from the left: each backslash not itself escaped escapes the next byte
//! quote  = unescaped quotes;  inside = prefix-xor(quote) ^ carry   (open quote .. before close)
//! not valid: a control byte inside a string; a bad escape inside a string (checked as the
//!            machine checks it); a blank outside strings (see below)
//! oq, cq = opening / closing quotes;  sc = every other byte outside strings (numbers, literals)
//! brackets, in order (few per line): a bit stack of open containers, mismatches and the depth
//!            limit checked, and `arr` = the bytes whose innermost container is an array; when
//!            the root closes, only blanks may follow and the block is cut there
//! next(X) = X << 1 (with the block's carry-in): the byte after each byte of X. With no
//!            blanks between tokens, the next token starts right there, so the grammar is:
//!     next(sc)                    within sc | ',' | '}' | ']'       (a number or literal ends)
//!     next('{' | ',' in objects)  a key's oq, or '}' right after '{'
//!     next(':' | ',' in arrays)   a value start: oq | first sc byte | '{' | '['
//!     next('[')                   a value start | ']'
//!     next(cq of a key)           ':'     (a key: the string whose oq is in a key's place;
//!                                          its cq found by adding oq to the inside run)
//!     next(cq of a value | '}' | ']')   ',' | '}' | ']'
//!     each number or literal is checked at its first byte (number::validate)
//! at the end: not inside a string, and the root closed
//! ```
//!
//! Every byte outside strings ends a token (quote, bracket, `:`, `,`, or a byte of a number
//! or literal), so the rules above constrain every pair of neighbouring tokens; with the
//! brackets matched and the key/value places fixed by the bracket context, that is exactly
//! JSON's grammar for minified text. Blanks between tokens would need a "next non-blank"
//! search: a line that has them (pretty-printed JSON) is left to the machine instead.
//!
//! The answer is one-sided by design: `Some(close)` means the rest is valid JSON closing the
//! root at `close`, and `None` means "not shown valid". The machine then carries on from the
//! same place by itself, so every error, with its reason and offset, is still the machine's
//! own: the verdicts of the two feeders cannot drift apart through this code, only the time
//! taken on valid lines.
//!
//! Why the bit tricks agree with the machine's left-to-right reading on valid input: inside a
//! string a backslash always escapes the next byte, so pairing backslashes from the left is
//! exactly the machine's cursor jumping past each escape; the unescaped quotes then alternate
//! open/close, which is what the prefix-xor computes. On invalid input the first difference
//! from the machine's reading is itself invalid (a backslash or escaped quote outside a
//! string falls into `sc` and makes a bad number or literal; a stray quote unbalances the
//! strings or breaks a rule above), so it is rejected.

use crate::state::{DEPTH_LIMIT, escape_end, is_blank, scalar_token};

/// One bit per byte of a 64-byte block (bit i = byte i). Bits past the end of the line are 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Masks {
    /// `"`
    pub(crate) quote: u64,
    /// `\`
    pub(crate) backslash: u64,
    /// Bytes below 0x20.
    pub(crate) control: u64,
    /// Space, tab, line feed, carriage return.
    pub(crate) blank: u64,
    /// `{ } [ ]`
    pub(crate) bracket: u64,
    /// `:`
    pub(crate) colon: u64,
    /// `,`
    pub(crate) comma: u64,
}

/// Where the rest begins: just after the root's `{`, or just after a member of the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Start {
    /// After the root's opening brace.
    ObjectStart,
    /// After a top-level member's value.
    AfterValue,
}

/// The masks of the 64 bytes at `at`, one byte at a time (the reference the AVX2 feeder is
/// tested against).
#[cfg(test)]
pub(crate) fn masks_portable(bytes: &[u8], at: usize) -> Masks {
    let mut m = Masks::default();
    for (i, &b) in bytes.iter().skip(at).take(64).enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => m.quote |= bit,
            b'\\' => m.backslash |= bit,
            b'{' | b'}' | b'[' | b']' => m.bracket |= bit,
            b':' => m.colon |= bit,
            b',' => m.comma |= bit,
            _ => {}
        }
        if b < 0x20 {
            m.control |= bit;
        }
        if is_blank(b) {
            m.blank |= bit;
        }
    }
    m
}

/// Bit i of the result is the xor of bits 0..=i of `x`.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Bits `0..n` set (`n <= 64`).
#[inline(always)]
fn below(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Token ends of one block whose next byte is constrained, each carried into the next block
/// when it is the block's last byte.
#[derive(Clone, Copy, Default)]
struct Ends {
    /// Bytes of numbers and literals.
    sc: u64,
    /// `{` and `,` in objects: a key (or, after `{`, `}`) follows.
    key: u64,
    /// `{` alone (to allow `{}`).
    open_object: u64,
    /// `:` and `,` in arrays: a value follows.
    value: u64,
    /// `[`: a value or `]` follows.
    open_array: u64,
    /// The closing quote of a key: `:` follows.
    key_end: u64,
    /// The closing quote of a string value, `}` and `]`: `,` or a closing bracket follows.
    after: u64,
}

impl Ends {
    /// The next byte of each end, as bits of the following block (its bit 0).
    fn carry(&self) -> Ends {
        Ends {
            sc: self.sc >> 63,
            key: self.key >> 63,
            open_object: self.open_object >> 63,
            value: self.value >> 63,
            open_array: self.open_array >> 63,
            key_end: self.key_end >> 63,
            after: self.after >> 63,
        }
    }
}

/// Validate `bytes[from..]`, which continues a root object in state `start` (only the root is
/// open). `masks(at)` gives the masks of the 64 bytes at `at`. `Some(p)`: valid, and the root's
/// closing brace is at `p`; `None`: not shown valid (see the module docs).
#[inline(always)]
pub(crate) fn validate(
    bytes: &[u8],
    from: usize,
    start: Start,
    mut masks: impl FnMut(usize) -> Masks,
) -> Option<usize> {
    let len = bytes.len();
    // What the byte at `from` must be, as if the previous block ended there.
    let mut carry = match start {
        Start::ObjectStart => Ends {
            key: 1,
            open_object: 1,
            ..Ends::default()
        },
        Start::AfterValue => Ends {
            after: 1,
            ..Ends::default()
        },
    };
    // Open containers: bit d-1 is set when the container at depth d is an object.
    let mut stack: u128 = 1;
    let mut depth: usize = 1;
    let mut in_string = 0u64;
    let mut escaped_carry = 0u64;
    // Carry of the addition that finds the closing quotes of keys.
    let mut key_carry = 0u64;
    // An escape starting before this position was checked as part of a surrogate pair.
    let mut escapes_from = 0usize;
    let mut base = from;
    while base < len {
        let m = masks(base);
        let mut keep = below((len - base).min(64) as u32);

        // Pair backslashes from the left.
        let mut escaped = escaped_carry;
        let mut starts = 0u64;
        escaped_carry = 0;
        let mut b = m.backslash & !escaped;
        while b != 0 {
            let bit = b & b.wrapping_neg();
            let next = bit << 1;
            starts |= bit;
            escaped |= next;
            escaped_carry |= bit >> 63;
            b &= !(bit | next);
        }
        let quote = m.quote & !escaped;
        let inside = prefix_xor(quote) ^ in_string;
        in_string = ((inside as i64) >> 63) as u64;
        if m.control & inside != 0 {
            return None;
        }
        let mut s = starts & inside;
        while s != 0 {
            let p = base + s.trailing_zeros() as usize;
            s &= s - 1;
            if p >= escapes_from {
                escapes_from = escape_end(bytes, p).ok()?;
            }
        }

        // Brackets in order: nesting, the array context, and the root's close.
        let (mut lb, mut rb, mut lk, mut rk, mut arr) = (0u64, 0u64, 0u64, 0u64, 0u64);
        let mut closed = None;
        let mut seg = 0u32;
        let mut br = m.bracket & !inside;
        while br != 0 {
            let i = br.trailing_zeros();
            br &= br - 1;
            let bit = 1u64 << i;
            if stack >> (depth - 1) & 1 == 0 {
                arr |= below(i) & !below(seg);
            }
            seg = i + 1;
            match *bytes.get(base + i as usize)? {
                open @ (b'{' | b'[') => {
                    if depth >= DEPTH_LIMIT {
                        return None;
                    }
                    depth += 1;
                    if open == b'{' {
                        lb |= bit;
                        stack |= 1u128 << (depth - 1);
                    } else {
                        lk |= bit;
                        stack &= !(1u128 << (depth - 1));
                    }
                }
                close => {
                    let object = close == b'}';
                    if (stack >> (depth - 1) & 1 == 1) != object {
                        return None;
                    }
                    if object {
                        rb |= bit
                    } else {
                        rk |= bit
                    }
                    depth -= 1;
                    if depth == 0 {
                        let p = base + i as usize;
                        if !bytes.get(p + 1..)?.iter().all(|&b| is_blank(b)) {
                            return None;
                        }
                        keep &= below(i + 1);
                        closed = Some(p);
                        break;
                    }
                }
            }
        }
        if closed.is_none() && stack >> (depth - 1) & 1 == 0 {
            arr |= !below(seg);
        }

        let oq = quote & inside & keep;
        let cq = quote & !inside & keep;
        let colon = m.colon & !inside & keep;
        let comma = m.comma & !inside & keep;
        if m.blank & !inside & keep != 0 {
            return None;
        }
        let sc = keep & !(m.bracket | m.colon | m.comma | quote | inside);
        let sc_first = sc & !((sc << 1) | carry.sc);
        let value_start = oq | sc_first | lb | lk;

        // The bytes after this block's ends (and the previous block's last one).
        let next = |x: u64, c: u64| ((x << 1) | c) & keep;
        let mut bad = 0u64;
        bad |= next(sc, carry.sc) & !(sc | comma | rb | rk);
        let key_places = next(lb | (comma & !arr), carry.key);
        let empty_object = next(lb, carry.open_object) & rb;
        bad |= key_places & !(oq | empty_object);
        bad |= next(colon | (comma & arr), carry.value) & !value_start;
        bad |= next(lk, carry.open_array) & !(value_start | rk);
        // A key's closing quote: add its opening quote to the run of `inside` it starts.
        let key_oq = oq & key_places;
        let (sum, c1) = inside.overflowing_add(key_oq);
        let (sum, c2) = sum.overflowing_add(key_carry);
        key_carry = u64::from(c1 | c2);
        let key_end = sum & !inside & cq;
        bad |= next(key_end, carry.key_end) & !colon;
        let after = (cq & !key_end) | rb | rk;
        bad |= next(after, carry.after) & !(comma | rb | rk);
        if bad != 0 {
            return None;
        }
        let mut f = sc_first;
        while f != 0 {
            let p = base + f.trailing_zeros() as usize;
            f &= f - 1;
            scalar_token(bytes, p).ok()?;
        }
        if closed.is_some() {
            return closed;
        }
        carry = Ends {
            sc,
            key: lb | (comma & !arr),
            open_object: lb,
            value: colon | (comma & arr),
            open_array: lk,
            key_end,
            after,
        }
        .carry();
        base += 64;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KeySet, Parser, Scanner};

    /// The machine's verdict on a whole line, and the root's closing brace when valid.
    fn machine(line: &[u8]) -> Option<usize> {
        let mut p = Parser::new(Scanner::Scalar);
        p.parse(line)
            .ok()
            .map(|d| d.root().raw().len() - 1 + root_start(line))
    }

    fn root_start(line: &[u8]) -> usize {
        line.iter().position(|&b| b == b'{').unwrap_or(0)
    }

    /// `validate` from just after the root's `{`, with portable masks.
    fn fast(line: &[u8]) -> Option<usize> {
        let open = root_start(line);
        if line.get(open) != Some(&b'{') || !line[..open].iter().all(|&b| b.is_ascii_whitespace()) {
            return None;
        }
        validate(line, open + 1, Start::ObjectStart, |at| {
            masks_portable(line, at)
        })
    }

    fn lines() -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = [
            r#"{}"#,
            r#"{"a":1}"#,
            r#" { "a" : [ 1 , 2 , { "b" : null } ] , "c" : "x\"y\\" } "#,
            r#"{"a":"\u00e9\uD83D\uDE00","b":[true,false,null,-0.5e+3]}"#,
            r#"{"a":"\uD83D"}"#,
            r#"{"a":"\uDE00"}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{"a":1 "b":2}"#,
            r#"{"a":[1,]}"#,
            r#"{"a":[1}"#,
            r#"{"a":{]}"#,
            r#"{"a":tru}"#,
            r#"{"a":truefalse}"#,
            r#"{"a":01}"#,
            r#"{"a":1}x"#,
            r#"{"a":1}}"#,
            r#"{"a":"unterminated}"#,
            r#"{"a":"b"c"}"#,
            r#"{"a":\"b"}"#,
            r#"{"a":[]"b"}"#,
            r#"{"a":{"b":1}:2}"#,
            r#"{"a":["b":1]}"#,
            r#"{"a":1}   "#,
            "{\"a\":\"tab\there\"}",
            "{\"a\":1\u{1}}",
            r#"{"a":"\\\\\\\""}"#,
            r#"{"a":"\\\\\\\\"}"#,
            r#"{,"a":1}"#,
            r#"{"a":1,"b"}"#,
            r#"{"a":-}"#,
            r#"{"a":[[[[[]]]]],"b":{"c":{"d":{}}}}"#,
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        out.push(format!("{{\"a\":{}1{}}}", "[".repeat(126), "]".repeat(126)).into_bytes());
        out.push(format!("{{\"a\":{}1{}}}", "[".repeat(127), "]".repeat(127)).into_bytes());
        let sample: &[u8] = include_bytes!("../../../testdata/sample.ndjson");
        out.extend(sample.split(|&b| b == b'\n').take(50).map(<[u8]>::to_vec));
        out
    }

    /// Whether a blank lies between tokens after the root's `{` (then `validate` may leave
    /// the line to the machine).
    fn blank_outside_strings(line: &[u8]) -> bool {
        let (mut inside, mut escape) = (false, false);
        for &b in &line[root_start(line) + 1..] {
            match (inside, escape, b) {
                (true, true, _) => escape = false,
                (true, false, b'\\') => escape = true,
                (_, false, b'"') => inside = !inside,
                (false, _, b) if crate::state::is_blank(b) => return true,
                _ => {}
            }
        }
        false
    }

    /// `validate` never says valid where the machine does not, and says valid wherever the
    /// machine does, unless blanks sit between tokens.
    fn judge(line: &[u8]) {
        let want = machine(line);
        let got = fast(line);
        let shown = String::from_utf8_lossy(line);
        match got {
            Some(_) => assert_eq!(got, want, "{shown:?}"),
            None => assert!(want.is_none() || blank_outside_strings(line), "{shown:?}"),
        }
    }

    #[test]
    fn agrees_with_the_machine_and_every_prefix_and_padding() {
        for line in lines() {
            for pad in 0..70 {
                let mut padded = b" ".repeat(pad);
                padded.extend_from_slice(&line);
                judge(&padded);
                // The same bytes with the root moved across block boundaries by a long key.
                let mut shifted = format!("{{\"{}\":0,", "k".repeat(pad)).into_bytes();
                shifted.extend_from_slice(line.get(1..).unwrap_or_default());
                judge(&shifted);
            }
            for cut in 0..line.len() {
                judge(&line[..cut]);
            }
        }
    }

    #[test]
    fn every_single_byte_change_is_judged_as_the_machine_judges_it() {
        let line = br#"{"a":[1,{"b":"c\"d\u00e9"}],"e":-1.5e3,"f":true,"g":{},"h":[]}"#;
        for i in 0..line.len() {
            for b in [
                b'"', b'\\', b'{', b'}', b'[', b']', b':', b',', b' ', b'1', b'x', 0x01, b'u',
            ] {
                let mut l = line.to_vec();
                l[i] = b;
                judge(&l);
                // And with the byte removed, and inserted.
                let mut removed = line.to_vec();
                removed.remove(i);
                judge(&removed);
                let mut inserted = line.to_vec();
                inserted.insert(i, b);
                judge(&inserted);
            }
        }
    }

    #[test]
    fn minified_sample_lines_are_shown_valid() {
        let sample: &[u8] = include_bytes!("../../../testdata/sample.ndjson");
        let minified = sample
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty() && !blank_outside_strings(l));
        let mut n = 0;
        for line in minified {
            assert!(fast(line).is_some());
            assert_eq!(fast(line), machine(line));
            n += 1;
        }
        assert!(n > 200, "{n}");
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_masks_equal_the_portable_ones_at_every_position() {
        if crate::avx2::Token::new().is_none() {
            return;
        }
        // Every byte value, in a pseudo-random order, at every distance from the line's end.
        let mut bytes: Vec<u8> = (0..=255u8).collect();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for i in (1..bytes.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            bytes.swap(i, (x % (i as u64 + 1)) as usize);
        }
        bytes.extend_from_slice(br#"{"a":"b\"c",[1]} 	"#);
        for len in 0..bytes.len() {
            let line = &bytes[..len];
            for at in 0..len {
                // SAFETY: the token above shows the CPU has AVX2.
                let got = unsafe { crate::avx2::masks(line, at) };
                assert_eq!(got, masks_portable(line, at), "len {len} at {at}");
            }
        }
    }

    #[test]
    fn parse_until_uses_it_without_changing_answers() {
        // An empty key set hands over right after the root's brace.
        let mut p = Parser::new(Scanner::detect());
        let doc = p
            .parse_until(br#"{"a":[1,2],"b":"x"}"#, &KeySet::default())
            .unwrap();
        assert_eq!(doc.root().raw(), r#"{"a":[1,2],"b":"x"}"#);
        assert!(
            p.parse_until(br#"{"a":[1,2],"b":"x"]"#, &KeySet::default())
                .is_err()
        );
    }
}
