//! The AVX2 feeder: classifies 64-byte blocks (two 32-byte vectors) and hands the machine the
//! positions of the set
//! bits, so runs of ordinary bytes (long strings, stack traces) cost one block each.
//!
//! ```text
//! for each 64-byte block at base (two 32-byte vectors; the last block copied into a zeroed
//! [u8; 64]):
//!     outside = bitmask of bytes in { } [ ] : , "
//!     inside  = bitmask of bytes that are " or \ or below 0x20
//!     (for the last block, bits past the end of the line are cleared)
//!     loop:
//!         mask = inside if the machine is in a string else outside
//!         drop the bits below the machine's cursor
//!         if none is left: next block
//!         machine.step(base + lowest set bit)     // may move the cursor, flip in_string
//! machine.finish()
//! ```
//!
//! The machine re-reads its mode after every step, so a quote that opens a string switches the
//! very next lookup to the `inside` mask of the same block; an escape moves the cursor past its
//! last byte, which may skip into a later block.
//!
//! Unsafe code: the load of a block (`_mm256_loadu_si256` from a `&[u8; 32]`, so always 32
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
    let mut base = 0;
    while base < len {
        let block: Option<&[u8; 64]> = bytes.get(base..base + 64).and_then(|b| b.try_into().ok());
        let (outside, inside) = match block {
            Some(block) => masks64(block),
            None => {
                let rest = bytes.get(base..).unwrap_or_default();
                let mut copy = [0u8; 64];
                copy[..rest.len()].copy_from_slice(rest);
                let keep = (1u64 << rest.len()) - 1;
                let (outside, inside) = masks64(&copy);
                (outside & keep, inside & keep)
            }
        };
        while let Some(shift) = Some(m.cursor.saturating_sub(base)).filter(|&s| s < 64) {
            let mask = if m.in_string { inside } else { outside };
            let bits = mask & (u64::MAX << shift);
            if bits == 0 {
                break;
            }
            m.step(base + bits.trailing_zeros() as usize)?;
        }
        // The machine may have moved the cursor past this block: go to the cursor's block.
        base = (base + 64).max(m.cursor - m.cursor % 64);
    }
    m.finish()
}

/// [`masks`] of the two 32-byte halves of `block`, as 64-bit masks (bit i = byte i).
#[target_feature(enable = "avx2")]
#[inline]
fn masks64(block: &[u8; 64]) -> (u64, u64) {
    let (lo, hi) = block.split_at(32);
    let lo: &[u8; 32] = lo.try_into().unwrap_or(&[0; 32]);
    let hi: &[u8; 32] = hi.try_into().unwrap_or(&[0; 32]);
    let (lo_out, lo_in) = masks(lo);
    let (hi_out, hi_in) = masks(hi);
    (
        u64::from(lo_out) | u64::from(hi_out) << 32,
        u64::from(lo_in) | u64::from(hi_in) << 32,
    )
}

/// The bitmasks of interesting bytes in `block`: (outside strings, inside strings).
#[target_feature(enable = "avx2")]
#[inline]
fn masks(block: &[u8; 32]) -> (u32, u32) {
    // SAFETY: `block` is 32 readable bytes and `_mm256_loadu_si256` allows any alignment.
    let v: __m256i = unsafe { _mm256_loadu_si256(block.as_ptr().cast()) };
    let eq = |c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
    let quote = eq(b'"');
    // '{' and '}' are '[' and ']' with bit 0x20 set.
    let folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
    let fold_eq = |c: u8| _mm256_cmpeq_epi8(folded, _mm256_set1_epi8(c as i8));
    let brackets = _mm256_or_si256(fold_eq(b'{'), fold_eq(b'}'));
    let punct = _mm256_or_si256(eq(b':'), eq(b','));
    let outside = _mm256_or_si256(_mm256_or_si256(brackets, punct), quote);
    // b <= 0x1f  <=>  max(b, 0x1f) == 0x1f (unsigned).
    let control = _mm256_cmpeq_epi8(
        _mm256_max_epu8(v, _mm256_set1_epi8(0x1f)),
        _mm256_set1_epi8(0x1f),
    );
    let inside = _mm256_or_si256(_mm256_or_si256(quote, eq(b'\\')), control);
    (
        _mm256_movemask_epi8(outside) as u32,
        _mm256_movemask_epi8(inside) as u32,
    )
}
