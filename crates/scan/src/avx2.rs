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
    __m128i, __m256i, _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set_epi64x, _mm_set1_epi8,
    _mm_shuffle_epi8, _mm_storel_epi64, _mm_storeu_si128, _mm_unpackhi_epi64, _mm256_blendv_epi8,
    _mm256_castsi256_si128, _mm256_cmpeq_epi8, _mm256_extracti128_si256, _mm256_loadu_si256,
    _mm256_max_epu8, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    _mm256_sub_epi8, _mm512_cmpeq_epi8_mask, _mm512_cmplt_epu8_mask, _mm512_loadu_si512,
    _mm512_mask_mov_epi8, _mm512_maskz_compress_epi8, _mm512_set1_epi8, _mm512_storeu_si512,
    _mm512_sub_epi8,
};

use crate::Malformed;
use crate::resume::At;
use crate::shape::{CAP, SLACK, tag};
use crate::state::Machine;

/// Proof that the CPU has AVX2: [`Token::new`] is the only way to make one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token {
    /// The CPU also has AVX-512 F, BW and VBMI2, for [`shape512`].
    wide: bool,
}

impl Token {
    /// A token if this CPU has AVX2, and BMI1, BMI2, POPCNT and PCLMULQDQ (every CPU with
    /// AVX2 we know of has them; the feeder's shifts and counts of zeros and the shapes' bit
    /// counts and quote parity use them).
    pub(crate) fn new() -> Option<Token> {
        if std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("pclmulqdq")
        {
            let wide = std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512bw")
                && std::is_x86_feature_detected!("avx512vbmi2");
            Some(Token { wide })
        } else {
            None
        }
    }

    /// The same token without AVX-512 (for tests of the AVX2 shape builder).
    #[cfg(test)]
    pub(crate) fn narrow(self) -> Token {
        Token { wide: false }
    }

    /// Whether shapes are built with AVX-512.
    #[cfg(test)]
    pub(crate) fn wide(self) -> bool {
        self.wide
    }
}

/// Scan the machine's line to the end.
pub(crate) fn scan(token: Token, m: &mut Machine<'_>) -> Result<(), Malformed> {
    // SAFETY: a Token exists only when `is_x86_feature_detected!` said yes to "avx2",
    // "bmi1", "bmi2", "popcnt" and "pclmulqdq" (Token::new is its only constructor), so the
    // CPU can run `scan_avx2` and the functions it calls, which enable no more than those
    // (`shape512`, which enables AVX-512 too, is called only with `token.wide`).
    unsafe { scan_avx2(token, m) }
}

/// [`build`], callable from code without target features (the tests).
#[cfg(test)]
pub(crate) fn build_with(
    token: Token,
    bytes: &[u8],
    q: usize,
    at: At,
    out: &mut [u8; CAP + SLACK],
) -> Option<usize> {
    // SAFETY: a Token proves the features `build` enables (see `scan`).
    unsafe { build(token, bytes, q, at, out) }
}

/// The shape of `bytes[q..]` by [`shape512`] when the token says the CPU has AVX-512, else
/// by [`shape`].
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
#[inline]
pub(crate) fn build(
    token: Token,
    bytes: &[u8],
    q: usize,
    at: At,
    out: &mut [u8; CAP + SLACK],
) -> Option<usize> {
    if token.wide {
        // SAFETY: `wide` is set only when `is_x86_feature_detected!` said yes to "avx512f",
        // "avx512bw" and "avx512vbmi2" as well as to the features of `scan`, which are all
        // that `shape512` enables.
        unsafe { shape512(bytes, q, at, out) }
    } else {
        shape(bytes, q, at, out)
    }
}

#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
fn scan_avx2(token: Token, m: &mut Machine<'_>) -> Result<(), Malformed> {
    let bytes = m.bytes;
    let len = bytes.len();
    // The block (64 bytes from the line's start) last looked at, and its bitmask.
    let mut block = usize::MAX;
    let mut mask = 0u64;
    let find = |from: usize| {
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
    };
    m.run(find, |bytes, q, at, out| build(token, bytes, q, at, out))
}

/// The bitmask of the bytes of block `k` (`bytes[64k..64k + 64]`, bit i = byte 64k + i) that
/// matter inside a string; bits past the end of `bytes` are clear.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
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
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
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
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
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
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
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
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
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

/// For each 8-bit mask: the `pshufb` indices that gather the bytes whose bits are set to the
/// front, in order (the other indices 0x80, which give 0), for the low 8 bytes of a 16-byte
/// quarter.
static GATHER: [u64; 256] = gather_table(0);

/// [`GATHER`] for the high 8 bytes of a quarter (each index plus 8): a quarter's indices are
/// then two loads.
static GATHER_HI: [u64; 256] = gather_table(8);

/// The indices of [`GATHER`], plus `offset`.
const fn gather_table(offset: u8) -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut indices = [0x80u8; 8];
        let mut n = 0;
        let mut i = 0;
        while i < 8 {
            if m >> i & 1 == 1 {
                indices[n] = i as u8 + offset;
                n += 1;
            }
            i += 1;
        }
        table[m] = u64::from_le_bytes(indices);
        m += 1;
    }
    table
}

/// The bits `from..to` (`to` at most 64, `from` at most `to`).
#[inline]
fn bits(from: u32, to: u32) -> u64 {
    let below = |k: u32| if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
    below(to) & !below(from)
}

/// The bitmasks of one 64-byte block that a shape needs (bit i = byte i of the block).
#[derive(Clone, Copy)]
struct Masks {
    quote: u64,
    backslash: u64,
    control: u64,
    digit: u64,
    zero: u64,
    dot: u64,
}

/// A shape being written: its length so far in the buffer, and what carries from one window
/// to the next (inside a string, all ones; where the last escape ends). Both builders drive
/// it the same way: [`Shaping::start`], [`Shaping::keep`] for each of the [`windows`], the
/// kept bytes written at `n`, then [`Shaping::end`].
struct Shaping {
    q: usize,
    n: usize,
    in_string: u64,
    escaped_until: usize,
}

/// The bytes that escapes starting in the window at `start` take (their backslashes are
/// `backslash`; `escaped_until` is where the last escape ends, and is moved on), or `None`
/// if one is not a valid escape. Out of line: most windows of a log line have no backslash.
#[cold]
#[inline(never)]
fn escapes(
    bytes: &[u8],
    start: usize,
    mut backslash: u64,
    escaped_until: &mut usize,
) -> Option<u64> {
    let mut escaped = 0;
    while backslash != 0 {
        let i = backslash.trailing_zeros();
        backslash &= backslash - 1;
        let p = start + i as usize;
        if p < *escaped_until {
            continue;
        }
        *escaped_until = Machine::escape(bytes, p).ok()?;
        escaped |= bits(i + 1, (*escaped_until - start).min(64) as u32);
    }
    Some(escaped)
}

/// The 64-byte windows of `bytes[q..]`: their start, the bits of their bytes not yet taken
/// (`valid`) and the bits of their bytes at or after `q` (`seen`). The last window is the
/// line's last 64 bytes, overlapping the one before it (so nothing is copied and nothing is
/// read outside the line); a line shorter than 64 bytes has none (and no shape: the walk
/// takes it).
#[inline(always)]
fn windows(len: usize, q: usize) -> impl Iterator<Item = (usize, u64, u64)> {
    let last = len.checked_sub(64);
    (q..len).step_by(64).map_while(move |base| {
        let start = if base + 64 <= len { base } else { last? };
        let valid = bits((base - start) as u32, 64);
        let seen = bits((q.max(start) - start) as u32, 64);
        Some((start, valid, seen))
    })
}

impl Shaping {
    /// The shape of `bytes[q..]` in state `at` begun: its tag written. `None` for a line
    /// shorter than 64 bytes (no windows: the walk takes it).
    #[inline(always)]
    fn start(bytes: &[u8], q: usize, at: At, out: &mut [u8; CAP + SLACK]) -> Option<Shaping> {
        if bytes.len() < 64 {
            return None;
        }
        *out.first_mut()? = tag(at);
        Some(Shaping {
            q,
            n: 1,
            in_string: 0,
            escaped_until: q,
        })
    }

    /// The bytes of the window at `start` (`valid`: those not yet taken; `seen`: those at or
    /// after the shape's start) that the shape keeps, or `None` if a check fails (see
    /// `shape.rs`) or the shape is already longer than [`CAP`]: quotes by parity, escapes
    /// walked one after another from the backslashes' mask with the walk's own check, digits
    /// after a digit dropped. (Not a `target_feature` function, so that it is always inlined
    /// into the two builders; they pass in [`prefix_xor`].)
    #[inline(always)]
    fn keep(
        &mut self,
        bytes: &[u8],
        (start, valid, seen): (usize, u64, u64),
        m: Masks,
        prefix_xor: impl Fn(u64) -> u64,
    ) -> Option<u64> {
        if self.n > CAP {
            return None;
        }
        let mut escaped = if self.escaped_until > start {
            bits(0, (self.escaped_until - start).min(64) as u32)
        } else {
            0
        };
        let backslash = m.backslash & valid;
        if backslash != 0 {
            escaped |= escapes(bytes, start, backslash, &mut self.escaped_until)?;
        }
        let delim = m.quote & !escaped & valid;
        let inside = prefix_xor(delim) ^ self.in_string;
        self.in_string = ((inside as i64) >> 63) as u64;
        let content = inside & !delim;
        if m.control & content & valid != 0 {
            return None;
        }
        // The byte before the window, if the shape has it (the bytes before a later window's
        // first valid one are the line's, so the shifts see them).
        let before = start
            .checked_sub(1)
            .filter(|&b| b >= self.q)
            .and_then(|b| bytes.get(b))
            .copied()
            .unwrap_or(0);
        let after_digit = (m.digit & seen) << 1 | u64::from(before.is_ascii_digit());
        let after_dot = (m.dot & seen) << 1 | u64::from(before == b'.');
        let next_digit = bytes.get(start + 64).is_some_and(u8::is_ascii_digit);
        let before_digit = m.digit >> 1 | u64::from(next_digit) << 63;
        if m.zero & !after_digit & before_digit & !after_dot & !content & valid != 0 {
            return None;
        }
        Some(valid & !(content | m.digit & after_digit))
    }

    /// The shape's length, if it fits [`CAP`].
    #[inline(always)]
    fn end(&self) -> Option<usize> {
        (self.n <= CAP).then_some(self.n)
    }
}

/// The shape of `bytes[q..]` (see `shape.rs`) with AVX2: the masks of each 64-byte block
/// from compares, digits turned into `0`, and the kept bytes gathered 8 at a time with
/// `pshufb`. The same bytes as `shape::portable`, which the tests check.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
pub(crate) fn shape(bytes: &[u8], q: usize, at: At, out: &mut [u8; CAP + SLACK]) -> Option<usize> {
    let mut s = Shaping::start(bytes, q, at, out)?;
    for window in windows(bytes.len(), q) {
        let start = window.0;
        let block: &[u8; 64] = bytes.get(start..start + 64)?.try_into().ok()?;
        let (masks, shaped) = masks256(block);
        let keep = s.keep(bytes, window, masks, |x| prefix_xor(x))?;
        // The block's kept bytes go to the 64 bytes from the shape's end: quarter j's two
        // groups of 8 with one `pshufb` and two stores, at most 16j bytes in (each group
        // keeps at most 8), so each store ends within the 64.
        let to: &mut [u8; 64] = out.get_mut(s.n..s.n + 64)?.try_into().ok()?;
        let mut k = 0usize;
        for (j, quarter) in shaped.into_iter().enumerate() {
            let from = 16 * j as u32;
            let first = (keep >> from & 0xff) as usize;
            let second = (keep >> (from + 8) & 0xff) as usize;
            let low = GATHER.get(first).copied().unwrap_or(0);
            let high = GATHER_HI.get(second).copied().unwrap_or(0);
            let packed = _mm_shuffle_epi8(quarter, _mm_set_epi64x(high as i64, low as i64));
            let at: &mut [u8; 16] = to.get_mut(k..k + 16)?.try_into().ok()?;
            // SAFETY: `at` is 16 writable bytes; `_mm_storeu_si128` allows any alignment.
            unsafe { _mm_storeu_si128(at.as_mut_ptr().cast(), packed) };
            k += first.count_ones() as usize;
            let at: &mut [u8; 8] = to.get_mut(k..k + 8)?.try_into().ok()?;
            // SAFETY: `at` is 8 writable bytes; `_mm_storel_epi64` allows any alignment.
            unsafe { _mm_storel_epi64(at.as_mut_ptr().cast(), _mm_unpackhi_epi64(packed, packed)) };
            k += second.count_ones() as usize;
        }
        s.n += k;
    }
    s.end()
}

/// [`shape`] with AVX-512 (F, BW and VBMI2): the masks straight from compares, and the kept
/// bytes of a block gathered by one `vpcompressb`.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq,avx512f,avx512bw,avx512vbmi2")]
pub(crate) fn shape512(
    bytes: &[u8],
    q: usize,
    at: At,
    out: &mut [u8; CAP + SLACK],
) -> Option<usize> {
    let mut s = Shaping::start(bytes, q, at, out)?;
    for window in windows(bytes.len(), q) {
        let start = window.0;
        let block: &[u8; 64] = bytes.get(start..start + 64)?.try_into().ok()?;
        // SAFETY: `block` is 64 readable bytes; `_mm512_loadu_si512` allows any alignment.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        let is = |b: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b as i8));
        let digit = _mm512_cmplt_epu8_mask(
            _mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8)),
            _mm512_set1_epi8(10),
        );
        let masks = Masks {
            quote: is(b'"'),
            backslash: is(b'\\'),
            control: _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)),
            digit,
            zero: is(b'0'),
            dot: is(b'.'),
        };
        let keep = s.keep(bytes, window, masks, |x| prefix_xor(x))?;
        let shaped = _mm512_mask_mov_epi8(v, digit, _mm512_set1_epi8(b'0' as i8));
        let packed = _mm512_maskz_compress_epi8(keep, shaped);
        let to: &mut [u8; 64] = out.get_mut(s.n..s.n + 64)?.try_into().ok()?;
        // SAFETY: `to` is 64 writable bytes; `_mm512_storeu_si512` allows any alignment.
        unsafe { _mm512_storeu_si512(to.as_mut_ptr().cast(), packed) };
        s.n += keep.count_ones() as usize;
    }
    s.end()
}

/// XOR of each bit with all below it: from an opening quote up to, not including, its
/// closing quote.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
#[inline]
fn prefix_xor(x: u64) -> u64 {
    // A carry-less multiplication by all ones: bit i of the product is the XOR of bits 0..=i.
    let product = _mm_clmulepi64_si128::<0>(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1));
    _mm_cvtsi128_si64(product) as u64
}

/// The [`Masks`] of a 64-byte block with AVX2, and its four 16-byte quarters with digits
/// turned into `0` (for the gathering).
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
#[inline]
fn masks256(block: &[u8; 64]) -> (Masks, [__m128i; 4]) {
    let (lo, hi) = block.split_at(32);
    let half = |window: &[u8]| {
        // SAFETY: the halves of a 64-byte block are 32 readable bytes each, and
        // `_mm256_loadu_si256` allows any alignment.
        let v: __m256i = unsafe { _mm256_loadu_si256(window.as_ptr().cast()) };
        let is = |b: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b as i8));
        let control = _mm256_cmpeq_epi8(
            _mm256_max_epu8(v, _mm256_set1_epi8(0x1f)),
            _mm256_set1_epi8(0x1f),
        );
        // b - '0' <= 9 (unsigned)  <=>  b is a digit.
        let offset = _mm256_sub_epi8(v, _mm256_set1_epi8(b'0' as i8));
        let digit = _mm256_cmpeq_epi8(_mm256_min_epu8(offset, _mm256_set1_epi8(9)), offset);
        let shaped = _mm256_blendv_epi8(v, _mm256_set1_epi8(b'0' as i8), digit);
        let classes = [is(b'"'), is(b'\\'), control, digit, is(b'0'), is(b'.')]
            .map(|m| u64::from(_mm256_movemask_epi8(m) as u32));
        (classes, shaped)
    };
    let ((l, lo), (h, hi)) = (half(lo), half(hi));
    let join = |i: usize| l[i] | h[i] << 32;
    let masks = Masks {
        quote: join(0),
        backslash: join(1),
        control: join(2),
        digit: join(3),
        zero: join(4),
        dot: join(5),
    };
    let quarters = [
        _mm256_castsi256_si128(lo),
        _mm256_extracti128_si256::<1>(lo),
        _mm256_castsi256_si128(hi),
        _mm256_extracti128_si256::<1>(hi),
    ];
    (masks, quarters)
}
