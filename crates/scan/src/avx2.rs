//! The AVX2 feeder: inside a string, finds the next `"`, `\` or control character 64 bytes at
//! a time, so long strings (messages, stack traces) cost two compares per 64 bytes.
//!
//! ```text
//! block k = bytes[64k .. 64k + 64] (the line's own blocks; the last may be shorter)
//! mask(k) = bitmask of block k's bytes that are '"' or '\' or below 0x20 (bit i = byte 64k + i;
//!           a short last block is searched as the line's last 64 bytes, shifted down, or in a
//!           zeroed copy when the whole line is shorter than 64 bytes)
//! find(from):
//!     k = from / 64; if k is not the block kept from the last call: keep k and mask(k)
//!     bits = mask(k) >> (from - 64k)             (bit 0 is now the byte at from)
//!     if bits != 0: return from + lowest set bit
//!     for each next block k (none left: return len):
//!         keep k and mask(k); if mask(k) != 0: return 64k + lowest set bit
//! ```
//!
//! The kept mask is what makes this fast on log lines: most strings are short, and the next
//! one usually starts in the same block, so finding its end is a shift and a count of zeros
//! on a register instead of a load and three compares that wait on the last string's end.
//!
//! The cursor, not a block boundary, says where the search starts: after an escape the
//! cursor is past its last byte, so an escaped quote is never reported, however the
//! backslashes fall. Outside strings the machine walks the few bytes between strings itself
//! (`state.rs`): measured on the generated logs, that was as fast as keeping a structural
//! bitmask per 64-byte block (squirrel-json's outside index, an earlier version of this
//! feeder), and simpler.
//!
//! Unsafe code: the load of a half block (`_mm256_loadu_si256` from a `&[u8; 32]`, so always
//! 32 readable bytes, unaligned allowed), and the one call into the `#[target_feature]` entry
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
    /// A token if this CPU has AVX2, and BMI1 and BMI2 (every CPU with AVX2 we know of has
    /// them; the feeder's shifts and counts of zeros use them).
    pub(crate) fn new() -> Option<Token> {
        if std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
        {
            Some(Token(()))
        } else {
            None
        }
    }
}

/// Scan the machine's line to the end.
pub(crate) fn scan(_: Token, m: &mut Machine<'_>) -> Result<(), Malformed> {
    // SAFETY: a Token exists only when `is_x86_feature_detected!` said yes to "avx2",
    // "bmi1" and "bmi2" (Token::new is its only constructor), so the CPU can run
    // `scan_avx2` and the functions it calls, which enable no more than those.
    unsafe { scan_avx2(m) }
}

#[target_feature(enable = "avx2,bmi1,bmi2")]
fn scan_avx2(m: &mut Machine<'_>) -> Result<(), Malformed> {
    let bytes = m.bytes;
    let len = bytes.len();
    // The block (64 bytes from the line's start) last looked at, and its bitmask.
    let mut block = usize::MAX;
    let mut mask = 0u64;
    m.run(|from| {
        let mut k = from / 64;
        if k != block {
            block = k;
            mask = block_mask(bytes, k);
        }
        // The bits at and after `from`, shifted down to it.
        let bits = mask >> (from % 64);
        if bits != 0 {
            return from + bits.trailing_zeros() as usize;
        }
        loop {
            k += 1;
            if k * 64 >= len {
                return len;
            }
            block = k;
            mask = block_mask(bytes, k);
            if mask != 0 {
                return k * 64 + mask.trailing_zeros() as usize;
            }
        }
    })
}

/// The bitmask of the bytes of block `k` (`bytes[64k..64k + 64]`, bit i = byte 64k + i) that
/// matter inside a string; bits past the end of `bytes` are clear.
#[target_feature(enable = "avx2,bmi1,bmi2")]
#[inline]
fn block_mask(bytes: &[u8], k: usize) -> u64 {
    let at = k * 64;
    match bytes.get(at..at + 64).and_then(|b| b.try_into().ok()) {
        Some(block) => mask64(block),
        None => tail_mask(bytes, at),
    }
}

/// [`block_mask`] of the last, partial block (`bytes[at..]`, fewer than 64 bytes). A line of
/// at least 64 bytes has its last 64 bytes searched, the mask shifted down so that bit 0 is
/// the byte at `at` (the bytes before `at` fall off the bottom, and the top bits come in
/// clear): no copy, which every line of a log would otherwise pay once. A shorter line is
/// searched in a zeroed copy, the padding's bits cleared.
#[target_feature(enable = "avx2,bmi1,bmi2")]
#[inline(never)]
fn tail_mask(bytes: &[u8], at: usize) -> u64 {
    let len = bytes.len();
    let rest = len.saturating_sub(at);
    if rest == 0 {
        return 0;
    }
    match len
        .checked_sub(64)
        .and_then(|start| bytes.get(start..))
        .and_then(|b| <&[u8; 64]>::try_from(b).ok())
    {
        // 0 < rest < 64, so the shift is 1..=63.
        Some(last) => mask64(last) >> (64 - rest),
        None => short_mask(bytes.get(at..).unwrap_or_default()),
    }
}

/// [`tail_mask`] of a line shorter than 64 bytes: `rest` searched in a zeroed copy.
#[target_feature(enable = "avx2,bmi1,bmi2")]
#[cold]
#[inline(never)]
fn short_mask(rest: &[u8]) -> u64 {
    let mut copy = [0u8; 64];
    for (to, from) in copy.iter_mut().zip(rest) {
        *to = *from;
    }
    let keep = (1u64 << rest.len().min(63)) - 1;
    mask64(&copy) & keep
}

/// [`inside`] of 64 bytes, as two halves.
#[target_feature(enable = "avx2,bmi1,bmi2")]
#[inline]
fn mask64(block: &[u8; 64]) -> u64 {
    let (lo, hi) = block.split_at(32);
    match (<&[u8; 32]>::try_from(lo), <&[u8; 32]>::try_from(hi)) {
        (Ok(lo), Ok(hi)) => u64::from(inside(lo)) | u64::from(inside(hi)) << 32,
        _ => 0,
    }
}

/// The bitmask of the bytes of `window` that matter inside a string: `"`, `\` and bytes
/// below 0x20 (bit i = byte i).
#[target_feature(enable = "avx2,bmi1,bmi2")]
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
