//! The one parser both feeders drive, and the tape it writes.
//!
//! A feeder (`scalar.rs`, `avx2.rs`) only finds *where to look* inside strings: the next
//! position at or after a given one holding `"`, `\` or a byte below 0x20. Everything else is
//! decided here, in safe code shared by both feeders: the grammar, the escapes, the bytes
//! between strings (`:`, `,`, brackets, numbers, literals, whitespace: few, so walked one by
//! one), and the tape.
//!
//! The grammar is run as a loop over a few resume points, with an explicit stack of open
//! containers (so nesting costs heap, not call stack, and is capped at [`DEPTH_LIMIT`]).
//! The members of an object and the elements of an array are read in inner loops, so the
//! common sequences of a log line, `"key":"value","key":1,...`, `{"key":` and `},"key":`,
//! run through straight-line code whose branches the CPU predicts well; only a `[`, a `]`,
//! an object inside an array, an empty object, and a `}` not followed by its parent
//! object's next member (`}}`, `}]`, an object in an array) go back through the dispatch
//! on the resume point:
//!
//! ```text
//! skip blanks; '{' opens the root (else NotAnObject)
//! ObjectStart: skip blanks; '"' -> Members | '}' -> close | else error
//! Members:     loop { key string; blanks ':' blanks; value:
//!                       '"' string | number or literal | '[' -> ArrayStart
//!                       '{' -> (blanks '"': next turn, the nested object's first key;
//!                               else ObjectStart)
//!                     blanks; ',' blanks '"' -> next member
//!                     '}' -> close; (blanks ',' in an object: blanks '"', next turn, the
//!                            parent's next member; else AfterValue)
//!                     else error }
//! ArrayStart:  skip blanks; ']' -> close | else Value
//! Value:       loop { '"' string | number or literal | '{' -> ObjectStart | '[' -> ArrayStart
//!                     blanks; ',' blanks -> next turn | else AfterValue }
//! AfterValue:  skip blanks; ',' -> (object: '"' -> Members, array: Value) | '}' / ']' close
//! close:       the bracket must match the open container; closing the root ends the loop,
//!              after which only blanks may follow (else TrailingCharacters)
//! string:      loop { p = find(cursor); '"' ends it; '\' checks one escape and moves the
//!                     cursor past it; a control character is an error }
//! number or literal: the bytes up to the next structural byte or blank, which must be
//!              exactly one JSON number, `true`, `false` or `null`
//! ```
//!
//! Because an escape moves the cursor past its last byte, an escaped quote is never seen as a
//! closing quote, however the backslashes fall across 32-byte windows: no odd/even backslash
//! arithmetic is needed.
//!
//! The tape: one [`Node`] per key and per value, in document order. A key node is immediately
//! followed by its value's node. Every value node's `next` is the index just after its subtree
//! (so for scalars `index + 1`, for containers set when they close), which is the link a lookup
//! follows to skip a nested value. The invariants `next > index` and `next <= nodes.len()` hold
//! for every node written, so walks always end.
//!
//! Offsets are `u32`: lines of 4 GiB or more are rejected before scanning (and a line of `n`
//! bytes yields at most `n` nodes).

use crate::resume::At;
use crate::shape::{self, Check, Shapes};
use crate::{KeySet, Malformed, Reason, number, unescape};

/// A wanted key not seen at the top level (in [`Machine`]'s `found`).
pub(crate) const NOT_FOUND: u32 = u32::MAX;

/// Whether the machine follows the keys of `want` (one bit each: at most 64); a larger set is
/// indexed in full and its keys are not noted.
pub(crate) fn tracks(want: &KeySet) -> bool {
    want.len() <= 64
}

/// The deepest nesting of objects and arrays accepted (the root object counts as 1). The same
/// limit as serde_json's default recursion limit, so the two agree on deep documents.
pub const DEPTH_LIMIT: usize = 127;

/// What a node of the tape is (public as [`crate::TokenKind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An object (`{...}`); its members follow it, up to its `next`.
    Object,
    /// An array (`[...]`); its elements follow it, up to its `next`.
    Array,
    /// A member's key (with its quotes); the member's value is the next node.
    Key,
    /// A string value (with its quotes).
    String,
    /// A number.
    Number,
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
}

/// One entry of the tape. `start..end` is the byte range of the node's JSON text (strings and
/// keys with their quotes); `next` is the index after its subtree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) next: u32,
    pub(crate) kind: Kind,
    /// For keys and strings: whether the text has a backslash escape.
    pub(crate) escaped: bool,
}

impl Node {
    /// Stands in for a missing node (never needed on a well-formed tape).
    pub(crate) const EMPTY: Node = Node {
        start: 0,
        end: 0,
        next: 0,
        kind: Kind::Null,
        escaped: false,
    };
}

/// An open container.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    /// Index of its node (meaningless once indexing has stopped).
    node: u32,
    object: bool,
}

/// The scanning state of one line.
pub(crate) struct Machine<'t> {
    pub(crate) bytes: &'t [u8],
    nodes: &'t mut Vec<Node>,
    stack: &'t mut Vec<Frame>,
    /// For each key of `want`: the tape index of its first top-level key node, or
    /// [`NOT_FOUND`].
    found: &'t mut Vec<u32>,
    /// Whether nodes are still written (false once `parse_until` has all it wants).
    indexing: bool,
    want: Option<&'t KeySet>,
    /// Bits of the wanted keys not yet seen (bit i = key i of `want`).
    wanted: u64,
    /// The bit of the wanted top-level key whose value is being read, or 0.
    pending: u64,
    /// Stop, without validating the rest, once indexing has stopped ([`Machine::deferred`]).
    defer: bool,
    /// Where the machine stopped for `defer`: the position and what comes next there.
    pub(crate) deferred: Option<(usize, At)>,
    /// Where a resumed machine starts.
    resume: Option<(usize, At)>,
    /// The shapes of rests already validated (`shape.rs`), when the feeder builds shapes.
    shapes: Option<&'t mut Shapes>,
}

impl<'t> Machine<'t> {
    /// A machine at the start of `bytes`, clearing the reused buffers. With `want`, indexing
    /// stops once every key in it has been seen at the top level with its value (sets of more
    /// than 64 keys are indexed in full).
    pub(crate) fn new(
        bytes: &'t [u8],
        nodes: &'t mut Vec<Node>,
        stack: &'t mut Vec<Frame>,
        found: &'t mut Vec<u32>,
        want: Option<&'t KeySet>,
    ) -> Machine<'t> {
        nodes.clear();
        stack.clear();
        found.clear();
        let want = want.filter(|w| tracks(w));
        let wanted = match want {
            Some(w) if w.len() == 64 => u64::MAX,
            Some(w) => (1u64 << w.len()) - 1,
            None => 0,
        };
        if let Some(w) = want {
            found.resize(w.len(), NOT_FOUND);
        }
        Machine {
            bytes,
            nodes,
            stack,
            found,
            indexing: true,
            want,
            wanted,
            pending: 0,
            defer: false,
            deferred: None,
            resume: None,
            shapes: None,
        }
    }

    /// With `defer`, [`Machine::run`] stops as soon as indexing stops (every wanted key read,
    /// only the root open), leaving the rest unvalidated: `deferred` then says where, for
    /// [`Machine::resume`].
    pub(crate) fn defer(mut self, defer: bool) -> Machine<'t> {
        self.defer = defer;
        self
    }

    /// Validate the rest of the line by its shape where it can (`shape.rs`), with `shapes`.
    pub(crate) fn shapes(mut self, shapes: Option<&'t mut Shapes>) -> Machine<'t> {
        self.shapes = shapes;
        self
    }

    /// A machine that goes on with a line where a deferred scan stopped, validating the rest:
    /// the tape is kept (indexing has stopped; only the root is open, node 0).
    pub(crate) fn resume(
        bytes: &'t [u8],
        nodes: &'t mut Vec<Node>,
        stack: &'t mut Vec<Frame>,
        found: &'t mut Vec<u32>,
        at: (usize, At),
    ) -> Machine<'t> {
        stack.clear();
        stack.push(Frame {
            node: 0,
            object: true,
        });
        Machine {
            bytes,
            nodes,
            stack,
            found,
            indexing: false,
            want: None,
            wanted: 0,
            pending: 0,
            defer: false,
            deferred: None,
            resume: Some(at),
            shapes: None,
        }
    }

    /// Scan the whole line. `find(from)` gives the position of the next byte at or after
    /// `from` that is `"`, `\\` or below 0x20, or the line's length if there is none: that
    /// search is what the feeders implement. It never gives a position before `from`
    /// (`from` is at most the line's length), which is what makes every string's loop move
    /// on; tests and the fuzz targets assert it.
    ///
    /// The grammar runs in two copies of one loop ([`Machine::walk`]): one that writes the
    /// tape, and one that only validates, which takes over once indexing stops (or from the
    /// start of a resumed machine). The second has no tape or wanted-key work at all, so the
    /// part of a line after the last key a query reads costs only its validation.
    ///
    /// `shape` builds the shape of the rest of the line (`shape.rs`), for the validate-only
    /// part when the machine has [`Machine::shapes`].
    #[inline(always)]
    pub(crate) fn run(
        &mut self,
        mut find: impl FnMut(usize) -> usize,
        shape: impl FnMut(&[u8], usize, At, &mut [u8; shape::CAP + shape::SLACK]) -> Option<usize>,
    ) -> Result<(), Malformed> {
        let (q, at) = match self.resume.take() {
            Some(at) => at,
            None => {
                let q = Self::skip(self.bytes, 0);
                if self.bytes.get(q) != Some(&b'{') {
                    return Err(Malformed::new(q, Reason::NotAnObject));
                }
                self.open::<true>(q, true)?;
                let stopped = if self.indexing {
                    self.walk::<true>(&mut find, q + 1, At::ObjectStart)?
                } else {
                    // `parse_until` with no keys wanted: nothing to index.
                    Some((q + 1, At::ObjectStart))
                };
                let Some((q, at)) = stopped else {
                    return Ok(());
                };
                if self.defer {
                    self.defer_at(q, at);
                    return Ok(());
                }
                (q, at)
            }
        };
        self.validate(&mut find, shape, q, at)
    }

    /// Validate the rest of the line from `q`, in state `at`, with only the root open: by its
    /// shape when one the walk accepted before matches, else by the walk (which then keeps
    /// the shape of a line it accepts).
    #[inline(always)]
    fn validate(
        &mut self,
        find: &mut impl FnMut(usize) -> usize,
        build: impl FnMut(&[u8], usize, At, &mut [u8; shape::CAP + shape::SLACK]) -> Option<usize>,
        q: usize,
        at: At,
    ) -> Result<(), Malformed> {
        let learn = match self.by_shape(q, at, build) {
            Check::Known => return Ok(()),
            Check::New => true,
            Check::None => false,
        };
        self.walk::<false>(find, q, at)?;
        if learn && let Some(shapes) = self.shapes.as_deref_mut() {
            shapes.learn();
        }
        Ok(())
    }

    /// The shape part of [`Machine::validate`], out of line so that the walk's code stays as
    /// it was: `Known` (the line's root is then closed, as the walk closes it), `New` (the
    /// shape is kept for [`Shapes::learn`]), or `None` (no shape for this line).
    #[inline(never)]
    fn by_shape(
        &mut self,
        q: usize,
        at: At,
        build: impl FnMut(&[u8], usize, At, &mut [u8; shape::CAP + shape::SLACK]) -> Option<usize>,
    ) -> Check {
        let Some(shapes) = self.shapes.as_deref_mut() else {
            return Check::None;
        };
        if self.stack.len() != 1 || self.bytes.len().saturating_sub(q) < shape::MIN_REST {
            return Check::None;
        }
        let check = shapes.check(self.bytes, q, at, build);
        if check == Check::Known {
            // The rest is valid, so the root's `}` is the line's last byte that is not a
            // blank.
            let end = self.bytes.iter().rposition(|&b| !is_blank(b)).unwrap_or(0);
            // Only the root, an object, is open, so this closes it.
            let closed = self.close::<false>(end, true);
            debug_assert_eq!(closed, Ok(true));
        }
        check
    }

    /// Stop for `defer` at `q`, where `at` comes next, with only the root open. The root's
    /// node then spans the part read and links past the tape, so lookups of the keys read
    /// work.
    fn defer_at(&mut self, q: usize, at: At) {
        self.deferred = Some((q, at));
        let next = self.nodes.len() as u32;
        if let Some(root) = self.nodes.first_mut() {
            root.end = q as u32;
            root.next = next;
        }
    }

    /// The grammar from position `q` in state `at`, until the root closes (`None`, after
    /// checking that only blanks follow) or, when indexing (`INDEX`), until indexing stops:
    /// then `Some` of the position and state to go on from, with only the root open.
    #[inline(always)]
    fn walk<const INDEX: bool>(
        &mut self,
        find: &mut impl FnMut(usize) -> usize,
        mut q: usize,
        mut at: At,
    ) -> Result<Option<(usize, At)>, Malformed> {
        let bytes = self.bytes;
        'outer: loop {
            match at {
                // An object's members, from just after its `{` (ObjectStart) or at the opening
                // quote of a key (Members). One arm: a `{` and its first key, and a `}` and
                // its parent's next key, go on in the inner loop instead of through this
                // dispatch.
                At::ObjectStart | At::Members => {
                    if at == At::ObjectStart {
                        let b;
                        (q, b) = Self::peek(bytes, q);
                        match b {
                            b'"' => {}
                            b'}' => {
                                if self.close::<INDEX>(q, true)? {
                                    break;
                                }
                                q += 1;
                                at = At::AfterValue;
                                continue;
                            }
                            _ => return Err(syntax(q)),
                        }
                    }
                    loop {
                        // At the opening quote of a key.
                        let key = q;
                        let (end, escaped) = Self::string(bytes, q, find)?;
                        let keep = self.key::<INDEX>(key, end, escaped);
                        let colon = Self::expect(bytes, end + 1, b':')?;
                        let b;
                        (q, b) = Self::peek(bytes, colon + 1);
                        match b {
                            b'"' => {
                                let (end, escaped) = Self::string(bytes, q, find)?;
                                if keep {
                                    self.push::<INDEX>(q, end + 1, Kind::String, escaped);
                                }
                                q = end + 1;
                            }
                            b'{' => {
                                if INDEX && !keep {
                                    // A container's nodes need their key before them.
                                    self.push::<true>(key, end + 1, Kind::Key, escaped);
                                }
                                self.open::<INDEX>(q, true)?;
                                let (first, b) = Self::peek(bytes, q + 1);
                                if b == b'"' {
                                    // The nested object's first key: its members here.
                                    q = first;
                                    continue;
                                }
                                q += 1;
                                at = At::ObjectStart;
                                continue 'outer;
                            }
                            b'[' => {
                                if INDEX && !keep {
                                    self.push::<true>(key, end + 1, Kind::Key, escaped);
                                }
                                self.open::<INDEX>(q, false)?;
                                q += 1;
                                at = At::ArrayStart;
                                continue 'outer;
                            }
                            _ => q = self.scalar::<INDEX>(bytes, q, keep)?,
                        }
                        if INDEX && self.value_done() {
                            return Ok(Some((q, At::AfterValue)));
                        }
                        // Minified: the next member at once.
                        if bytes.get(q) == Some(&b',') {
                            q = Self::expect(bytes, q + 1, b'"')?;
                            continue;
                        }
                        let b;
                        (q, b) = Self::peek(bytes, q);
                        match b {
                            b',' => q = Self::expect(bytes, q + 1, b'"')?,
                            b'}' => {
                                if self.close::<INDEX>(q, true)? {
                                    break 'outer;
                                }
                                q += 1;
                                if INDEX && !self.indexing {
                                    // A top-level object value closed with the last wanted
                                    // key.
                                    return Ok(Some((q, At::AfterValue)));
                                }
                                // The parent object's next member, here; anything else (an
                                // array's next element, a close, an error) after the
                                // dispatch.
                                let (comma, b) = Self::peek(bytes, q);
                                if b == b',' && self.stack.last().is_some_and(|f| f.object) {
                                    q = Self::expect(bytes, comma + 1, b'"')?;
                                    continue;
                                }
                                at = At::AfterValue;
                                continue 'outer;
                            }
                            _ => return Err(syntax(q)),
                        }
                    }
                }
                // An array's elements, from just after its `[` (ArrayStart) or at the first
                // byte of an element (Value, blanks skipped). Strings and scalars go on in the
                // inner loop; a nested container, the array's end and errors go through the
                // dispatch.
                At::ArrayStart | At::Value => {
                    if at == At::ArrayStart {
                        let b;
                        (q, b) = Self::peek(bytes, q);
                        if b == b']' {
                            if self.close::<INDEX>(q, false)? {
                                break;
                            }
                            q += 1;
                            at = At::AfterValue;
                            continue;
                        }
                    }
                    loop {
                        match bytes.get(q) {
                            Some(b'"') => {
                                let (end, escaped) = Self::string(bytes, q, find)?;
                                self.push::<INDEX>(q, end + 1, Kind::String, escaped);
                                q = end + 1;
                            }
                            Some(b'{') => {
                                self.open::<INDEX>(q, true)?;
                                q += 1;
                                at = At::ObjectStart;
                                continue 'outer;
                            }
                            Some(b'[') => {
                                self.open::<INDEX>(q, false)?;
                                q += 1;
                                at = At::ArrayStart;
                                continue 'outer;
                            }
                            _ => q = self.scalar::<INDEX>(bytes, q, true)?,
                        }
                        // After an element (never the end of a top-level value: it is
                        // inside an array).
                        let b;
                        (q, b) = Self::peek(bytes, q);
                        if b != b',' {
                            at = At::AfterValue;
                            continue 'outer;
                        }
                        (q, _) = Self::peek(bytes, q + 1);
                    }
                }
                At::AfterValue => {
                    if INDEX && !self.indexing {
                        // A top-level container value closed with the last wanted key.
                        return Ok(Some((q, At::AfterValue)));
                    }
                    let b;
                    (q, b) = Self::peek(bytes, q);
                    match b {
                        b',' => {
                            let b;
                            (q, b) = Self::peek(bytes, q + 1);
                            let in_object = self.stack.last().is_some_and(|f| f.object);
                            if !in_object {
                                at = At::Value;
                            } else if b == b'"' {
                                at = At::Members;
                            } else {
                                return Err(syntax(q));
                            }
                        }
                        b'}' | b']' => {
                            if self.close::<INDEX>(q, b == b'}')? {
                                break;
                            }
                            q += 1;
                        }
                        _ => return Err(syntax(q)),
                    }
                }
            }
        }
        // `q` is the root's closing brace: only blanks may follow.
        let t = Self::skip(bytes, q + 1);
        if t < bytes.len() {
            return Err(Malformed::new(t, Reason::TrailingCharacters));
        }
        Ok(None)
    }

    // The helpers below take the line as an argument instead of reading `self.bytes`: read
    // through `&mut self`, its pointer and length had to be loaded again after every string
    // (measured: about 4 instructions a member of the 60 the validate-only loop now costs).

    /// The first position at or after `q` that is not a blank, and its byte (0 past the end,
    /// which no rule accepts). Minified JSON has no blanks: one compare decides.
    #[inline(always)]
    fn peek(bytes: &[u8], q: usize) -> (usize, u8) {
        match bytes.get(q) {
            Some(&b) if b > b' ' => (q, b),
            _ => {
                let q = Self::skip(bytes, q);
                (q, bytes.get(q).copied().unwrap_or(0))
            }
        }
    }

    /// The first position at or after `q` that is not a blank, which must hold `want`:
    /// that position. Minified JSON has it at `q`: one compare decides.
    #[inline(always)]
    fn expect(bytes: &[u8], q: usize, want: u8) -> Result<usize, Malformed> {
        if bytes.get(q) == Some(&want) {
            return Ok(q);
        }
        match Self::peek(bytes, q) {
            (q, b) if b == want => Ok(q),
            (q, _) => Err(syntax(q)),
        }
    }

    /// The first position at or after `q` that is not a blank.
    #[inline(always)]
    fn skip(bytes: &[u8], mut q: usize) -> usize {
        while bytes.get(q).is_some_and(|&b| is_blank(b)) {
            q += 1;
        }
        q
    }

    /// The string whose opening quote is at `open`: its closing quote's position and whether
    /// it has escapes.
    #[inline(always)]
    fn string(
        bytes: &[u8],
        open: usize,
        find: &mut impl FnMut(usize) -> usize,
    ) -> Result<(usize, bool), Malformed> {
        let mut cursor = open + 1;
        let mut escaped = false;
        loop {
            // Both feeders report a position at or after the cursor (at most the line's
            // length), so every turn of this loop moves on.
            let p = find(cursor);
            #[cfg(any(test, debug_assertions, feature = "checked"))]
            assert!(p >= cursor, "feeder went back from {cursor} to {p}");
            match bytes.get(p) {
                Some(b'"') => return Ok((p, escaped)),
                Some(b'\\') => {
                    escaped = true;
                    cursor = Self::escape(bytes, p)?;
                }
                Some(_) => return Err(syntax(p)),
                None => return Err(syntax(bytes.len())),
            }
        }
    }

    /// Check the escape whose backslash is at `p`; the position after it
    /// ([`unescape::escape_end`], with the scanner's verdict).
    #[inline]
    pub(crate) fn escape(bytes: &[u8], p: usize) -> Result<usize, Malformed> {
        unescape::escape_end(bytes, p).map_err(syntax)
    }

    /// A key from the quote at `open` to the quote at `close`; whether its member goes on the
    /// tape (when indexing). `parse_until` leaves off the top-level members it does not want
    /// (lookups of keys not wanted may miss, as its docs say), so that the members before
    /// the last wanted key cost only their validation and one key check; one whose value is
    /// an object or array still goes on, its key pushed by the caller.
    #[inline(always)]
    fn key<const INDEX: bool>(&mut self, open: usize, close: usize, escaped: bool) -> bool {
        if !INDEX {
            return false;
        }
        if self.wanted != 0 && self.stack.len() == 1 {
            let keep = self
                .want
                .is_some_and(|w| w.may_hold(close - open - 1, escaped))
                && self.check_wanted(open + 1, close, escaped);
            if keep {
                self.push::<true>(open, close + 1, Kind::Key, escaped);
            }
            return keep;
        }
        self.push::<true>(open, close + 1, Kind::Key, escaped);
        true
    }

    /// A top-level key `bytes[start..end]` was read: whether `parse_until` wants it and has
    /// not seen it before (the first occurrence is the one kept); if so, it is noted at the
    /// tape index its node is about to get.
    #[inline(never)]
    fn check_wanted(&mut self, start: usize, end: usize, escaped: bool) -> bool {
        let Some(want) = self.want else {
            return false;
        };
        let i = if escaped {
            self.bytes
                .get(start..end)
                .and_then(|raw| want.position(raw, true))
        } else {
            want.position_in(self.bytes, start, end)
        };
        let Some(i) = i else {
            return false;
        };
        let bit = 1u64 << i;
        if self.wanted & bit == 0 {
            return false;
        }
        self.pending = bit;
        if let Some(slot) = self.found.get_mut(i) {
            *slot = self.nodes.len() as u32;
        }
        true
    }

    /// A value inside a container ended (while indexing); whether that stopped indexing: the
    /// value was the last wanted top-level key's.
    #[inline(always)]
    fn value_done(&mut self) -> bool {
        if self.pending != 0 && self.stack.len() == 1 {
            self.wanted &= !self.pending;
            self.pending = 0;
            if self.wanted == 0 {
                self.indexing = false;
                return true;
            }
        }
        false
    }

    #[inline(always)]
    fn push<const INDEX: bool>(&mut self, start: usize, end: usize, kind: Kind, escaped: bool) {
        if INDEX {
            // Casts: the line is shorter than u32::MAX bytes and has at most one node per byte.
            let next = self.nodes.len() as u32 + 1;
            self.nodes.push(Node {
                start: start as u32,
                end: end as u32,
                next,
                kind,
                escaped,
            });
        }
    }

    #[inline(always)]
    fn open<const INDEX: bool>(&mut self, p: usize, object: bool) -> Result<(), Malformed> {
        if self.stack.len() >= DEPTH_LIMIT {
            return Err(Malformed::new(p, Reason::TooDeep));
        }
        let node = self.nodes.len() as u32;
        let kind = if object { Kind::Object } else { Kind::Array };
        self.push::<INDEX>(p, p + 1, kind, false);
        self.stack.push(Frame { node, object });
        if INDEX && self.stack.len() == 1 && self.want.is_some() && self.wanted == 0 {
            // `parse_until` with no keys wanted: nothing to index.
            self.indexing = false;
        }
        Ok(())
    }

    /// Close the container whose closing bracket is at `p`; whether it was the root.
    #[inline(always)]
    fn close<const INDEX: bool>(&mut self, p: usize, object: bool) -> Result<bool, Malformed> {
        let Some(frame) = self.stack.pop() else {
            return Err(syntax(p));
        };
        if frame.object != object {
            return Err(syntax(p));
        }
        // Once indexing has stopped only the root's node is still open on the tape.
        if INDEX || self.stack.is_empty() {
            let next = self.nodes.len() as u32;
            if let Some(n) = self.nodes.get_mut(frame.node as usize) {
                n.end = p as u32 + 1;
                n.next = next;
            }
        }
        if self.stack.is_empty() {
            return Ok(true);
        }
        if INDEX {
            self.value_done();
        }
        Ok(false)
    }

    /// The number or literal starting at `q`: the bytes up to the next structural byte or
    /// blank, which must be exactly one JSON number, `true`, `false` or `null`. Its end. Its
    /// node goes on the tape when indexing and `keep` (see [`Machine::key`]).
    ///
    /// One pass: the number grammar is matched first, then the byte after it must end the
    /// token. The error offsets are those of matching the whole token: the grammar never
    /// takes a structural byte or a blank, so it stops where the token ends or earlier.
    #[inline(always)]
    fn scalar<const INDEX: bool>(
        &mut self,
        bytes: &[u8],
        q: usize,
        keep: bool,
    ) -> Result<usize, Malformed> {
        let ends_at = |e: usize| bytes.get(e).is_none_or(|&b| ENDS_TOKEN[usize::from(b)]);
        let (e, kind) = if let Some(b'-' | b'0'..=b'9') = bytes.get(q) {
            let e = number::end(bytes, q).map_err(syntax)?;
            if !ends_at(e) {
                return Err(syntax(e));
            }
            (e, Kind::Number)
        } else {
            let rest = bytes.get(q..).unwrap_or_default();
            let literal = [
                (&b"true"[..], Kind::True),
                (b"false", Kind::False),
                (b"null", Kind::Null),
            ]
            .into_iter()
            .find(|(l, _)| rest.starts_with(l) && ends_at(q + l.len()));
            match literal {
                Some((l, kind)) => (q + l.len(), kind),
                None => return Err(syntax(q)),
            }
        };
        if keep {
            self.push::<INDEX>(q, e, kind, false);
        }
        Ok(e)
    }
}

/// Assert the tape invariants: every node's range lies in the line, `index < next <= len`,
/// and each key is followed by a value. Run after every parse in tests, debug builds and with
/// the `checked` feature (which the fuzz targets turn on), so a broken link shows up as a
/// failure at once rather than as a wrong answer later.
#[cfg(any(test, debug_assertions, feature = "checked"))]
pub(crate) fn check_tape(nodes: &[Node], len: usize) {
    for (i, n) in nodes.iter().enumerate() {
        assert!(
            n.start <= n.end && n.end as usize <= len,
            "node {i} range {n:?}"
        );
        assert!(
            n.next as usize > i && n.next as usize <= nodes.len(),
            "node {i} link {n:?}"
        );
        if n.kind == Kind::Key {
            let value = nodes.get(i + 1).map(|v| v.kind);
            assert!(
                value.is_some_and(|k| k != Kind::Key),
                "key {i} without value"
            );
        }
    }
}

/// The structural bytes `{ } [ ] : , "`.
static STRUCTURAL: [bool; 256] = {
    let mut t = [false; 256];
    let bytes = b"{}[]:,\"";
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
};

/// The bytes that end a number or literal: structural bytes and blanks.
static ENDS_TOKEN: [bool; 256] = {
    let mut t = STRUCTURAL;
    t[b' ' as usize] = true;
    t[b'\t' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t
};

/// JSON whitespace.
#[inline(always)]
pub(crate) fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

#[cold]
#[inline(never)]
fn syntax(offset: usize) -> Malformed {
    Malformed::new(offset, Reason::Syntax)
}
