//! Line shapes: the rest of a line validated by comparison with lines already validated.
//!
//! The lines of one log come from a few templates: the same keys in the same order, the same
//! kinds of values, the same punctuation. What differs from one line to the next is mostly
//! the text inside strings and the digits of numbers. A line's *shape* from a position `q`
//! on is what is left of `line[q..]` once the text inside each string is dropped (its quotes
//! stay), each run of digits outside strings is cut to one `0`, and nothing else changes:
//!
//! ```text
//! ,"Message":"HTTP \"GET\" /a","Elapsed":23.7408,"Tags":["a","b"],"Ok":true}
//! ,"":"","":0.0,"":["",""],"":true}
//! ```
//!
//! Why that decides validity: the walk in `state.rs` reads the bytes outside strings one by
//! one, and it reads a string only to find its closing quote, checking each escape and that
//! no byte below 0x20 comes before it; for a number, only the digit runs' lengths and first
//! digits can change its verdict, and only by a leading zero (`01`). So take a line `L` whose
//! shape from `q` (in machine state `at`, only the root open) equals the shape of a line `V`
//! that the walk accepted from the same state, and suppose that in `L`:
//!
//! - every backslash that starts an escape starts a valid one (checked with the walk's own
//!   [`escape_end`], escapes taken one after another from `q`, exactly as the walk
//!   moves its cursor past each);
//! - no byte inside a string is below 0x20;
//! - no run of digits outside strings starts with `0` followed by another digit, unless the
//!   byte before the run is a `.` (a fraction's digits may start with zeros; an exponent
//!   such as `1e05` is ruled out too, which only costs it the walk).
//!
//! Then the walk accepts `L` as it accepted `V`: it sees the same bytes outside strings in the
//! same order, strings at the same places of that order (a string ends at the first quote
//! not taken by an escape, which is where the shape puts it), numbers of the same form, and
//! it opens the same containers, so the same depth. Any byte that may not stand outside a
//! string (a stray backslash, a control character, a quote an escape took) stays in the
//! shape, where no accepted line has it. UTF-8 is checked for the whole line apart from this.
//!
//! So the AVX2 scanner, once its walk has nothing left to index, computes the shape of the
//! rest of the line (branch-free over 64-byte blocks: no per-string branch, which is where
//! the walk loses its time on log lines) and looks it up in [`Shapes`], the shapes of lines
//! it accepted before; a known shape means the rest is valid, and anything else goes to the
//! walk, which gives the verdict (and, when the line is valid, adds its shape). So does a
//! line shorter than 64 bytes (the builders read whole 64-byte windows of the line) and a
//! rest shorter than [`MIN_REST`]. Results are the same either way: the tests compare the
//! AVX2 scanner after a line of the same shape with the scalar scanner, which keeps no
//! shapes.
//!
//! [`escape_end`]: crate::unescape::escape_end

use crate::resume::At;

/// The shortest rest of a line validated by its shape: the walk validates a short rest (a
/// query that reads the last key of a line) faster than a shape is built and looked up.
pub(crate) const MIN_REST: usize = 128;

/// The longest shape kept (bytes, the tag included). Longer rests go to the walk.
pub(crate) const CAP: usize = 4096;

/// Room after [`CAP`] for the builders' stores (up to 64 bytes past the shape's end).
pub(crate) const SLACK: usize = 64;

/// The most shapes kept before the table starts again from empty, and the most bytes.
const MAX_SHAPES: usize = 4096;
const MAX_BYTES: usize = 1 << 20;

/// Lookups between checks of the hit rate, and lines skipped after a low one (fewer than a
/// quarter of the lookups found their shape).
const WINDOW: u32 = 256;
const BACKOFF: u32 = 16 * 1024;

/// The shapes accepted so far, and the buffer for the current line's.
#[derive(Debug)]
pub(crate) struct Shapes {
    /// Open addressing, linear probing; `len == 0` is an empty slot.
    slots: Vec<Slot>,
    /// The shapes' bytes, one after another.
    bytes: Vec<u8>,
    count: usize,
    /// The current line's shape (`len` bytes) and its hash, between `check` and `learn`.
    line: Box<[u8; CAP + SLACK]>,
    len: usize,
    hash: u64,
    /// Hit-rate bookkeeping: lookups and hits since the last check, and lines still to skip.
    tries: u32,
    hits: u32,
    skip: u32,
    /// How often each [`Check`] was answered: known, new, none (for `Parser::shape_counts`).
    pub(crate) counts: [u64; 3],
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    hash: u64,
    start: u32,
    len: u32,
}

/// What [`Shapes::check`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// The rest of the line has the shape of a rest the walk accepted: it is valid.
    Known,
    /// A new shape (kept for [`Shapes::learn`] if the walk accepts the line).
    New,
    /// No shape: a check failed, the shape is too long, or lookups are paused.
    None,
}

const SLOTS: usize = 2 * MAX_SHAPES;

impl Shapes {
    /// No shapes yet; the table is allocated when the first one is kept.
    pub(crate) fn new() -> Shapes {
        Shapes {
            slots: Vec::new(),
            bytes: Vec::new(),
            count: 0,
            line: Box::new([0; CAP + SLACK]),
            len: 0,
            hash: 0,
            tries: 0,
            hits: 0,
            skip: 0,
            counts: [0; 3],
        }
    }

    /// Build the shape of `bytes[q..]` in state `at` and look it up. `build` writes the
    /// shape to its buffer after a tag byte that says `at`, and gives its length; `None` when
    /// one of the checks above fails or the shape is longer than [`CAP`] (`portable`, and
    /// with AVX2 `avx2::shape`, which writes the same bytes).
    #[inline]
    pub(crate) fn check(
        &mut self,
        bytes: &[u8],
        q: usize,
        at: At,
        mut build: impl FnMut(&[u8], usize, At, &mut [u8; CAP + SLACK]) -> Option<usize>,
    ) -> Check {
        let check = self.lookup(bytes, q, at, &mut build);
        if let Some(c) = self.counts.get_mut(check as usize) {
            *c += 1;
        }
        check
    }

    #[inline]
    fn lookup(
        &mut self,
        bytes: &[u8],
        q: usize,
        at: At,
        build: &mut impl FnMut(&[u8], usize, At, &mut [u8; CAP + SLACK]) -> Option<usize>,
    ) -> Check {
        if self.skip > 0 {
            self.skip -= 1;
            return Check::None;
        }
        self.tries += 1;
        if self.tries == WINDOW {
            // Few lines known: this log's lines do not repeat their shapes (or not yet);
            // pause, so that such a log pays for shapes only now and then.
            if self.hits < WINDOW / 4 {
                self.skip = BACKOFF;
            }
            self.tries = 0;
            self.hits = 0;
        }
        self.len = 0;
        let Some(len) = build(bytes, q, at, &mut self.line) else {
            return Check::None;
        };
        let Some(shape) = self.line.get(..len) else {
            return Check::None;
        };
        self.len = len;
        self.hash = hash(shape);
        if self.slots.is_empty() {
            return Check::New;
        }
        for i in probes(self.hash) {
            let Some(slot) = self.slots.get(i) else {
                return Check::None;
            };
            if slot.len == 0 {
                return Check::New;
            }
            if slot.hash == self.hash
                && slot.len as usize == len
                && self
                    .bytes
                    .get(slot.start as usize..slot.start as usize + len)
                    == Some(shape)
            {
                self.hits += 1;
                return Check::Known;
            }
        }
        Check::New
    }

    /// Keep the shape of the last [`Shapes::check`] that answered [`Check::New`]: the walk
    /// accepted its line.
    pub(crate) fn learn(&mut self) {
        let Some(shape) = self.line.get(..self.len) else {
            return;
        };
        if shape.is_empty() {
            return;
        }
        if self.slots.is_empty() {
            self.slots = vec![Slot::default(); SLOTS];
        }
        if self.count == MAX_SHAPES || self.bytes.len() + shape.len() > MAX_BYTES {
            self.slots.fill(Slot::default());
            self.bytes.clear();
            self.count = 0;
        }
        // Casts: at most MAX_BYTES bytes, shapes of at most CAP.
        let slot = Slot {
            hash: self.hash,
            start: self.bytes.len() as u32,
            len: shape.len() as u32,
        };
        // Not kept if its probes are all taken (shapes whose hashes collide, which a log
        // could be made of: the lookups stay MAX_PROBES compares long).
        let free = probes(self.hash).find(|&i| self.slots.get(i).is_some_and(|s| s.len == 0));
        if let Some(s) = free.and_then(|i| self.slots.get_mut(i)) {
            *s = slot;
            self.bytes.extend_from_slice(shape);
            self.count += 1;
        }
        self.len = 0;
    }
}

/// The most slots a lookup looks at (linear probing from the hash's slot).
const MAX_PROBES: usize = 8;

/// The slots a shape with hash `h` may be in.
fn probes(h: u64) -> impl Iterator<Item = usize> {
    let first = h as usize % SLOTS;
    (0..MAX_PROBES).map(move |k| (first + k) % SLOTS)
}

/// A hash of a shape from its length and three of its words: shapes of one log differ in
/// length more often than not, and a collision costs only a comparison.
#[inline]
fn hash(shape: &[u8]) -> u64 {
    let n = shape.len();
    let word = |at: usize| {
        shape
            .get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(0, u64::from_le_bytes)
    };
    let mut h = n as u64;
    let mut mix = |w: u64| h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    if n >= 8 {
        mix(word(0));
        mix(word(n / 2 - 4));
        mix(word(n - 8));
    } else {
        let mut w = [0u8; 8];
        for (to, from) in w.iter_mut().zip(shape) {
            *to = *from;
        }
        mix(u64::from_le_bytes(w));
    }
    h ^ h >> 29
}

/// The tag byte of a state (the shape's first byte).
pub(crate) fn tag(at: At) -> u8 {
    match at {
        At::ObjectStart => 1,
        At::Members => 2,
        At::ArrayStart => 3,
        At::Value => 4,
        At::AfterValue => 5,
    }
}

/// The shape of `bytes[q..]`, one byte at a time: the definition the AVX2 builders are
/// tested against.
#[cfg(test)]
pub(crate) fn portable(
    bytes: &[u8],
    q: usize,
    at: At,
    out: &mut [u8; CAP + SLACK],
) -> Option<usize> {
    let mut n = 0;
    let mut emit = |b: u8| {
        let slot = out.get_mut(n)?;
        *slot = b;
        n += 1;
        Some(())
    };
    emit(tag(at))?;
    if bytes.len() < 64 {
        // The AVX2 builders read whole 64-byte windows of the line; a shorter line is left to
        // the walk.
        return None;
    }
    let mut in_string = false;
    // The end of the last escape: the bytes before it and after its backslash are escaped.
    let mut escaped_until = q;
    for (p, &b) in bytes.iter().enumerate().skip(q) {
        let escaped = p < escaped_until;
        if b == b'\\' && !escaped {
            escaped_until = crate::unescape::escape_end(bytes, p).ok()?;
        }
        if b == b'"' && !escaped {
            in_string = !in_string;
            emit(b)?;
        } else if in_string {
            if b < 0x20 {
                return None;
            }
        } else if b.is_ascii_digit() {
            let before = p
                .checked_sub(1)
                .filter(|&i| i >= q)
                .and_then(|i| bytes.get(i));
            if before.is_some_and(u8::is_ascii_digit) {
                continue;
            }
            let after = bytes.get(p + 1);
            if b == b'0' && after.is_some_and(u8::is_ascii_digit) && before != Some(&b'.') {
                return None;
            }
            emit(b'0')?;
        } else {
            emit(b)?;
        }
    }
    (n <= CAP).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    type Builder = Box<dyn Fn(&[u8], usize, At, &mut [u8; CAP + SLACK]) -> Option<usize>>;

    /// Every builder this CPU can run: the portable one first.
    fn builders() -> Vec<(&'static str, Builder)> {
        let mut all: Vec<(&'static str, Builder)> = vec![("portable", Box::new(portable))];
        #[cfg(target_arch = "x86_64")]
        if let Some(token) = crate::avx2::Token::new() {
            let narrow = token.narrow();
            all.push((
                "avx2",
                Box::new(move |b, q, at, out| crate::avx2::build_with(narrow, b, q, at, out)),
            ));
            if token.wide() {
                all.push((
                    "avx512",
                    Box::new(move |b, q, at, out| crate::avx2::build_with(token, b, q, at, out)),
                ));
            }
        }
        all
    }

    /// The shapes of `line` from `q` by every builder: all the same.
    fn agree(line: &[u8], q: usize) -> Option<Vec<u8>> {
        let mut first: Option<Option<Vec<u8>>> = None;
        for (name, build) in builders() {
            let mut out = Box::new([0u8; CAP + SLACK]);
            let got = build(line, q, At::AfterValue, &mut out).map(|n| out[..n].to_vec());
            match &first {
                None => first = Some(got),
                Some(want) => assert_eq!(
                    want.as_deref().map(String::from_utf8_lossy),
                    got.as_deref().map(String::from_utf8_lossy),
                    "{name} differs from portable on {:?} from {q}",
                    String::from_utf8_lossy(line)
                ),
            }
        }
        first.flatten()
    }

    proptest::proptest! {
        /// Bytes rich in what the shapes look at (quotes, backslashes and escapes, control
        /// bytes, digits, zeros and dots), long enough for several windows, from any start.
        #[test]
        fn builders_agree_on_any_bytes(
            line in proptest::collection::vec(
                proptest::sample::select(b"\"\\\x00\x1f\n 0123456789.eE+-ubfnrtu0aF{}[],:\xc3\xa9".to_vec()),
                0..300,
            ),
            q in 0usize..300,
        ) {
            agree(&line, q.min(line.len()));
        }
    }

    #[test]
    fn builders_agree_at_window_edges() {
        // A string, an escape, a run of digits or a leading zero across a 64-byte boundary,
        // and the last window overlapping the one before it.
        let mut cases = Vec::new();
        for pad in 0..70 {
            let fill = "x".repeat(pad);
            for piece in [
                r#""ab\"cd","#,
                r#""\\\\","#,
                r#""\u00e9\ud83d\ude00","#,
                "12345678,",
                "0.0012,",
                "012,",
                "1e05,",
                "-0,",
                "\"\u{1}\",",
            ] {
                cases.push(format!(r#"{{"k":"{fill}",{piece}"z":[1,22,333]}}"#));
                cases.push(format!(r#"{{"{fill}":{piece}"k":"{fill}"}}"#));
            }
        }
        for line in &cases {
            for q in 0..=line.len() {
                agree(line.as_bytes(), q);
            }
        }
    }

    /// Shapes that all hash alike (same length, same first, middle and last words): at most
    /// `MAX_PROBES` are kept, each found again, and the others are new every time, however
    /// many there are.
    #[test]
    fn colliding_shapes_are_kept_up_to_the_probes() {
        let line = |k: usize| {
            // Seven members of `true` or `null` after the bits of k, then a constant tail long
            // enough that the middle word the hash reads falls in it.
            let mut l = String::from(r#"{"a":"x","#);
            for bit in 0..7 {
                l.push_str(if k >> bit & 1 == 1 {
                    r#""b":true,"#
                } else {
                    r#""b":null,"#
                });
            }
            l.push_str(&r#""c":0,"#.repeat(20));
            l.push_str(r#""z":"y"}"#);
            l
        };
        let build =
            |b: &[u8], q: usize, at: At, out: &mut [u8; CAP + SLACK]| portable(b, q, at, out);
        let mut shapes = Shapes::new();
        let mut hashes = std::collections::HashSet::new();
        for k in 0..100 {
            let l = line(k);
            assert_eq!(
                shapes.check(l.as_bytes(), 1, At::ObjectStart, build),
                Check::New
            );
            hashes.insert(shapes.hash);
            shapes.learn();
        }
        assert_eq!(hashes.len(), 1, "the lines' shapes should collide");
        let known: Vec<usize> = (0..100)
            .filter(|&k| {
                let l = line(k);
                shapes.check(l.as_bytes(), 1, At::ObjectStart, build) == Check::Known
            })
            .collect();
        assert_eq!(known, (0..MAX_PROBES).collect::<Vec<_>>());
    }

    #[test]
    fn builders_agree_on_generated_lines_from_every_position() {
        let data = ndq_gen::generate(7, 200_000);
        for line in data.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            for q in 0..=line.len() {
                agree(line, q);
            }
        }
    }
}
