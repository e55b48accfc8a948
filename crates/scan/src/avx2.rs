//! The AVX2 feeder: inside a string, finds the next `"`, `\` or control character 32 bytes at
//! a time, so long strings (messages, stack traces) cost one compare per 32 bytes.
//!
//! ```text
//! find(from):
//!     at = from
//!     loop:
//!         window = the 32 bytes at `at` (unaligned; if fewer than 32 are left, a zeroed
//!                  [u8; 32] holding a copy of them, and bits past the end are cleared)
//!         bits = bitmask of window bytes that are '"' or '\' or below 0x20
//!         if bits != 0: return at + lowest set bit
//!         if this was the last window: return len (none)
//!         at += 32
//! ```
//!
//! The window starts at the machine's cursor, not at a block boundary: after an escape the
//! cursor is past its last byte, so an escaped quote is never reported, however the
//! backslashes fall. Outside strings the machine walks the few bytes between strings itself
//! (`state.rs`): measured on the generated logs, that was as fast as keeping a structural
//! bitmask per 64-byte block (squirrel-json's outside index, an earlier version of this
//! feeder), and simpler.
//!
//! Once `parse_until` has indexed every key it wants, the rest of the line only needs
//! validating: [`masks`] turns each 64-byte block into bitmasks (quotes, backslashes, control
//! bytes, blanks, brackets, colons, commas: two 32-byte compares each), and `rest.rs` checks
//! the grammar on those bits in safe code.
//!
//! Unsafe code: the loads (`_mm256_loadu_si256` from a `&[u8; 32]`, so always 32 readable
//! bytes, unaligned allowed; the last window or block of a line is a zeroed copy), and the one
//! call into the `#[target_feature]` entry point, made only with a [`Token`], which exists only
//! after AVX2 was detected. Nothing here reads outside the line.

use std::arch::x86_64::{
    __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_set1_epi8,
};

use crate::Malformed;
use crate::rest::{self, Masks};
use crate::state::Machine;

/// Proof that the CPU has AVX2: [`Token::new`] is the only way to make one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token(());

impl Token {
    /// A token if this CPU has AVX2.
    pub(crate) fn new() -> Option<Token> {
        if std::is_x86_feature_detected!("avx2") {
            Some(Token(()))
        } else {
            None
        }
    }
}

/// Scan the machine's line to the end.
pub(crate) fn scan(_: Token, m: &mut Machine<'_>) -> Result<(), Malformed> {
    // SAFETY: a Token exists only when `is_x86_feature_detected!("avx2")` returned true
    // (Token::new is its only constructor), so the CPU can run `scan_avx2`.
    unsafe { scan_avx2(m) }
}

#[target_feature(enable = "avx2")]
fn scan_avx2(m: &mut Machine<'_>) -> Result<(), Malformed> {
    let bytes = m.bytes;
    let len = bytes.len();
    m.run(
        |from| {
            let mut at = from;
            loop {
                let window: Option<&[u8; 32]> =
                    bytes.get(at..at + 32).and_then(|w| w.try_into().ok());
                match window {
                    Some(window) => {
                        let bits = inside(window);
                        if bits != 0 {
                            return at + bits.trailing_zeros() as usize;
                        }
                        at += 32;
                    }
                    None => {
                        // Fewer than 32 bytes left: search a zeroed copy, ignoring the padding.
                        let rest = bytes.get(at..).unwrap_or_default();
                        let mut copy = [0u8; 32];
                        for (to, from) in copy.iter_mut().zip(rest) {
                            *to = *from;
                        }
                        let keep = (1u32 << rest.len().min(31)) - 1;
                        let bits = inside(&copy) & keep;
                        return if bits != 0 {
                            at + bits.trailing_zeros() as usize
                        } else {
                            len
                        };
                    }
                }
            }
        },
        |from, start| rest::validate(bytes, from, start, |at| masks(bytes, at)),
    )
}

/// The masks of the 64 bytes of `bytes` at `at` (fewer at the end of the line: copied into a
/// zeroed block, and the bits past the end cleared).
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn masks(bytes: &[u8], at: usize) -> Masks {
    if let Some(block) = bytes
        .get(at..at + 64)
        .and_then(|b| <&[u8; 64]>::try_from(b).ok())
    {
        return block_masks(block);
    }
    let rest = bytes.get(at..).unwrap_or_default();
    let rest = rest.get(..63).unwrap_or(rest);
    let mut copy = [0u8; 64];
    if let Some(to) = copy.get_mut(..rest.len()) {
        to.copy_from_slice(rest);
    }
    let keep = (1u64 << rest.len().min(63)) - 1;
    let m = block_masks(&copy);
    Masks {
        quote: m.quote & keep,
        backslash: m.backslash & keep,
        control: m.control & keep,
        blank: m.blank & keep,
        bracket: m.bracket & keep,
        colon: m.colon & keep,
        comma: m.comma & keep,
    }
}

/// The masks of one whole block, 32 bytes per compare.
#[target_feature(enable = "avx2")]
#[inline]
fn block_masks(block: &[u8; 64]) -> Masks {
    let (lo, hi) = block.split_at(32);
    let (lo, hi) = (half(lo), half(hi));
    let join = |i: usize| u64::from(lo[i]) | u64::from(hi[i]) << 32;
    Masks {
        quote: join(0),
        backslash: join(1),
        control: join(2),
        blank: join(3),
        bracket: join(4),
        colon: join(5),
        comma: join(6),
    }
}

/// For 32 bytes (`half.len() == 32`): the bitmasks of quotes, backslashes, control bytes,
/// blanks, brackets, colons and commas, in the order of [`Masks`]' fields.
#[target_feature(enable = "avx2")]
#[inline]
fn half(half: &[u8]) -> [u32; 7] {
    let Ok(half) = <&[u8; 32]>::try_from(half) else {
        return [0; 7];
    };
    // SAFETY: `half` is 32 readable bytes and `_mm256_loadu_si256` allows any alignment.
    let v: __m256i = unsafe { _mm256_loadu_si256(half.as_ptr().cast()) };
    let eq = |b: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b as i8));
    let or = |a, b| _mm256_or_si256(a, b);
    let bits = |m| _mm256_movemask_epi8(m) as u32;
    // b <= 0x1f  <=>  max(b, 0x1f) == 0x1f (unsigned).
    let control = _mm256_cmpeq_epi8(
        _mm256_max_epu8(v, _mm256_set1_epi8(0x1f)),
        _mm256_set1_epi8(0x1f),
    );
    let blank = or(or(eq(b' '), eq(b'\t')), or(eq(b'\n'), eq(b'\r')));
    let bracket = or(or(eq(b'{'), eq(b'}')), or(eq(b'['), eq(b']')));
    [
        bits(eq(b'"')),
        bits(eq(b'\\')),
        bits(control),
        bits(blank),
        bits(bracket),
        bits(eq(b':')),
        bits(eq(b',')),
    ]
}
/// The bitmask of the bytes of `window` that matter inside a string: `"`, `\` and bytes
/// below 0x20 (bit i = byte i).
#[target_feature(enable = "avx2")]
#[inline]
fn inside(window: &[u8; 32]) -> u32 {
    // SAFETY: `window` is 32 readable bytes and `_mm256_loadu_si256` allows any alignment.
    let v: __m256i = unsafe { _mm256_loadu_si256(window.as_ptr().cast()) };
    let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
    let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
    // b <= 0x1f  <=>  max(b, 0x1f) == 0x1f (unsigned).
    let control = _mm256_cmpeq_epi8(
        _mm256_max_epu8(v, _mm256_set1_epi8(0x1f)),
        _mm256_set1_epi8(0x1f),
    );
    _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(quote, backslash), control)) as u32
}
