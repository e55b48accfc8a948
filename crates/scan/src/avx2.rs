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
//! Unsafe code: the load of a window (`_mm256_loadu_si256` from a `&[u8; 32]`, so always 32
//! readable bytes, unaligned allowed), and the one call into the `#[target_feature]` entry
//! point, made only with a [`Token`], which exists only after AVX2 was detected. Nothing here
//! reads outside the line.

use std::arch::x86_64::{
    __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_set1_epi8,
};

use crate::Malformed;
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
    m.run(|from| {
        let mut at = from;
        loop {
            let window: Option<&[u8; 32]> = bytes.get(at..at + 32).and_then(|w| w.try_into().ok());
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
    })
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
