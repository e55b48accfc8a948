//! The one state machine both feeders drive, and the tape it writes.
//!
//! A feeder (`scalar.rs`, `avx2.rs`) only finds *where to look* inside strings: the next
//! position at or after the cursor holding `"`, `\` or a byte below 0x20 (see
//! [`Machine::run`]). Everything else is decided here, in safe code shared by both feeders.
//! Outside strings the machine walks the bytes itself ([`Machine::follow`]): between strings
//! there are only a few. Each structural byte `{ } [ ] : , "` found there goes to
//! [`Machine::structural`]; the bytes between two structural bytes form a *gap*, which must
//! be whitespace, or (where a value is expected) whitespace around one number or literal.
//!
//! ```text
//! state        on byte (after the gap)          then
//! Start        blank gap, '{'                   open root object   (else NotAnObject)
//! ObjectFirst  blank gap, '"' | '}'             key string | close
//! ObjectKey    blank gap, '"'                   key string
//! Colon        blank gap, ':'                   Value
//! Value        gap = scalar token, b            emit scalar, then After on b
//!              blank gap, '"' | '{' | '['       string | open
//! ArrayFirst   as Value, or blank gap, ']'      close
//! After        blank gap, ',' | '}' | ']'       ObjectKey/Value | close (kinds must match)
//! Done         anything not blank               TrailingCharacters
//! in a string  '"' closes; '\' checks one escape and moves the cursor past it; < 0x20 is an error
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

use crate::{KeySet, Malformed, Reason, number, unescape};

/// The deepest nesting of objects and arrays accepted (the root object counts as 1). The same
/// limit as serde_json's default recursion limit, so the two agree on deep documents.
pub const DEPTH_LIMIT: usize = 127;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    Key,
    String,
    Number,
    True,
    False,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Start,
    ObjectFirst,
    ObjectKey,
    Colon,
    Value,
    ArrayFirst,
    After,
    Done,
}

/// The scanning state of one line.
pub(crate) struct Machine<'t> {
    pub(crate) bytes: &'t [u8],
    /// Where the feeder must search from next.
    pub(crate) cursor: usize,
    /// Whether the cursor is inside a string.
    pub(crate) in_string: bool,
    nodes: &'t mut Vec<Node>,
    stack: &'t mut Vec<Frame>,
    state: State,
    /// Start of the bytes after the last structural byte.
    gap: usize,
    string_start: usize,
    string_escaped: bool,
    string_key: bool,
    /// Whether nodes are still written (false once `parse_until` has all it wants).
    indexing: bool,
    want: Option<&'t KeySet>,
    /// Bits of the wanted keys not yet seen (bit i = key i of `want`).
    wanted: u64,
    /// The bit of the wanted top-level key whose value is being read, or 0.
    pending: u64,
}

impl<'t> Machine<'t> {
    /// A machine at the start of `bytes`, clearing the reused buffers. With `want`, indexing
    /// stops once every key in it has been seen at the top level with its value (sets of more
    /// than 64 keys are indexed in full).
    pub(crate) fn new(
        bytes: &'t [u8],
        nodes: &'t mut Vec<Node>,
        stack: &'t mut Vec<Frame>,
        want: Option<&'t KeySet>,
    ) -> Machine<'t> {
        nodes.clear();
        stack.clear();
        let want = want.filter(|w| w.len() <= 64);
        let wanted = match want {
            Some(w) if w.len() == 64 => u64::MAX,
            Some(w) => (1u64 << w.len()) - 1,
            None => 0,
        };
        Machine {
            bytes,
            cursor: 0,
            in_string: false,
            nodes,
            stack,
            state: State::Start,
            gap: 0,
            string_start: 0,
            string_escaped: false,
            string_key: false,
            indexing: true,
            want,
            wanted,
            pending: 0,
        }
    }

    /// Scan the whole line. Inside strings, `find(from)` gives the position of the next byte
    /// at or after `from` that is `"`, `\\` or below 0x20 (the line's length if there is
    /// none): that search is what the feeders implement. Outside strings the machine walks
    /// the few bytes itself ([`Machine::follow`]).
    ///
    /// ```text
    /// loop:
    ///     outside a string: follow()   -> stops when a string opens, or at the end: finish()
    ///     inside a string:  p = find(cursor); none -> finish() (unterminated)
    ///                       '"' closes it, '\' checks one escape and moves the cursor past
    ///                       it, a control character is an error
    /// ```
    #[inline(always)]
    pub(crate) fn run(&mut self, mut find: impl FnMut(usize) -> usize) -> Result<(), Malformed> {
        loop {
            if !self.in_string {
                self.follow()?;
                if !self.in_string {
                    return self.finish();
                }
            }
            let p = find(self.cursor);
            let Some(&b) = self.bytes.get(p) else {
                return self.finish();
            };
            // A feeder reports positions at or after the cursor; anything else is ignored.
            if p >= self.cursor {
                self.string_byte(p, b)?;
            } else {
                self.cursor += 1;
            }
        }
    }

    /// Outside strings, walk on from the cursor byte by byte, handing each structural byte to
    /// [`Machine::structural`], until a string opens or the line ends.
    ///
    /// Between strings there are only a few bytes (`":"`, `","`, a number, a space). The
    /// common sequences of a minified log line (`:` then `"`, `,` then `"`, a number then `,`)
    /// take short cuts when nothing is pending in the gap; each does exactly what
    /// `structural` would do for that state and byte (the differential tests hold them to it).
    /// Every structural byte outside strings is handled, in order, none skipped.
    #[inline(always)]
    fn follow(&mut self) -> Result<(), Malformed> {
        let bytes = self.bytes;
        loop {
            let q = self.cursor;
            let Some(&b) = bytes.get(q) else {
                return Ok(());
            };
            if self.gap == q {
                match (self.state, b) {
                    (State::Colon, b':') => {
                        self.state = State::Value;
                        self.gap = q + 1;
                        self.cursor = q + 1;
                        continue;
                    }
                    (State::Value | State::ArrayFirst, b'"') => {
                        self.gap = q + 1;
                        self.cursor = q + 1;
                        self.open_string(q, false);
                        return Ok(());
                    }
                    (State::ObjectKey | State::ObjectFirst, b'"') => {
                        self.gap = q + 1;
                        self.cursor = q + 1;
                        self.open_string(q, true);
                        return Ok(());
                    }
                    (State::After, b',') if !self.stack.is_empty() => {
                        self.gap = q + 1;
                        self.cursor = q + 1;
                        self.state = match self.stack.last() {
                            Some(f) if f.object => State::ObjectKey,
                            _ => State::Value,
                        };
                        continue;
                    }
                    (State::Value | State::ArrayFirst, b'-' | b'0'..=b'9')
                        if self.number_then_structural(q)? =>
                    {
                        continue;
                    }
                    _ => {}
                }
            }
            if is_structural(b) {
                self.structural(q, b)?;
                if self.in_string {
                    return Ok(());
                }
            } else {
                self.cursor = q + 1;
            }
        }
    }

    /// A number at `q` directly followed by `,`, `}` or `]`: handle both, as `structural`
    /// would on that byte. `Ok(false)` (nothing done) for anything else, including a bad
    /// number, which the general path then reports.
    #[inline(always)]
    fn number_then_structural(&mut self, q: usize) -> Result<bool, Malformed> {
        let bytes = self.bytes;
        let mut e = q;
        while bytes
            .get(e)
            .is_some_and(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            e += 1;
        }
        let Some(&b @ (b',' | b'}' | b']')) = bytes.get(e) else {
            return Ok(false);
        };
        if number::validate(bytes.get(q..e).unwrap_or_default()).is_err() {
            return Ok(false);
        }
        self.push(q, e, Kind::Number, false);
        self.value_done();
        self.gap = e + 1;
        self.cursor = e + 1;
        self.after_value(e, b)?;
        Ok(true)
    }

    /// The end of the line: everything must be closed and only whitespace may follow.
    pub(crate) fn finish(&mut self) -> Result<(), Malformed> {
        let len = self.bytes.len();
        if self.in_string {
            return Err(Malformed::new(len, Reason::Syntax));
        }
        let (s, e) = self.trim(self.gap, len);
        match self.state {
            State::Done if s == e => Ok(()),
            State::Done => Err(Malformed::new(s, Reason::TrailingCharacters)),
            State::Start => Err(Malformed::new(s, Reason::NotAnObject)),
            _ => Err(Malformed::new(len, Reason::Syntax)),
        }
    }

    #[inline(always)]
    fn string_byte(&mut self, p: usize, b: u8) -> Result<(), Malformed> {
        match b {
            b'"' => {
                self.in_string = false;
                self.cursor = p + 1;
                self.gap = p + 1;
                self.close_string(p);
                Ok(())
            }
            b'\\' => {
                self.string_escaped = true;
                self.cursor = self.escape(p)?;
                Ok(())
            }
            0..0x20 => Err(Malformed::new(p, Reason::Syntax)),
            _ => {
                self.cursor = p + 1;
                Ok(())
            }
        }
    }

    /// Check the escape whose backslash is at `p`; the position after it.
    #[inline]
    fn escape(&self, p: usize) -> Result<usize, Malformed> {
        let bytes = self.bytes;
        match bytes.get(p + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(p + 2),
            Some(b'u') => {
                let hi = unescape::hex4(bytes, p + 2).ok_or_else(|| syntax(p + 2))?;
                match hi {
                    0xD800..=0xDBFF => {
                        // A high surrogate must be followed by an escaped low surrogate.
                        if bytes.get(p + 6) != Some(&b'\\') || bytes.get(p + 7) != Some(&b'u') {
                            return Err(syntax(p + 6));
                        }
                        match unescape::hex4(bytes, p + 8) {
                            Some(0xDC00..=0xDFFF) => Ok(p + 12),
                            _ => Err(syntax(p + 6)),
                        }
                    }
                    0xDC00..=0xDFFF => Err(syntax(p)),
                    _ => Ok(p + 6),
                }
            }
            _ => Err(syntax(p + 1)),
        }
    }

    #[inline(always)]
    fn close_string(&mut self, p: usize) {
        let start = self.string_start;
        let escaped = self.string_escaped;
        if self.string_key {
            self.push(start, p + 1, Kind::Key, escaped);
            if self.wanted != 0 && self.stack.len() == 1 {
                self.check_wanted(start + 1, p, escaped);
            }
            self.state = State::Colon;
        } else {
            self.push(start, p + 1, Kind::String, escaped);
            self.value_done();
        }
    }

    /// A top-level key `bytes[start..end]` was read: note it if `parse_until` wants it.
    #[inline(never)]
    fn check_wanted(&mut self, start: usize, end: usize, escaped: bool) {
        let (Some(want), Some(raw)) = (self.want, self.bytes.get(start..end)) else {
            return;
        };
        if let Some(i) = want.position(raw, escaped) {
            let bit = 1u64 << i;
            if self.wanted & bit != 0 {
                self.pending = bit;
            }
        }
    }

    /// A value ended: expect `,` or a closing bracket; maybe stop indexing.
    #[inline(always)]
    fn value_done(&mut self) {
        self.state = State::After;
        if self.pending != 0 && self.stack.len() == 1 {
            self.wanted &= !self.pending;
            self.pending = 0;
            if self.wanted == 0 {
                self.indexing = false;
            }
        }
    }

    #[inline(always)]
    fn push(&mut self, start: usize, end: usize, kind: Kind, escaped: bool) {
        if self.indexing {
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
    fn structural(&mut self, p: usize, b: u8) -> Result<(), Malformed> {
        let gap_start = self.gap;
        self.gap = p + 1;
        self.cursor = p + 1;
        match self.state {
            State::After => {
                self.expect_blank(gap_start, p)?;
                self.after_value(p, b)
            }
            State::Value | State::ArrayFirst => {
                let (s, e) = self.trim(gap_start, p);
                if s < e {
                    self.scalar(s, e)?;
                    return self.after_value(p, b);
                }
                match b {
                    b'"' => {
                        self.open_string(p, false);
                        Ok(())
                    }
                    b'{' => self.open(p, true),
                    b'[' => self.open(p, false),
                    b']' if self.state == State::ArrayFirst => self.close(p, false),
                    _ => Err(syntax(p)),
                }
            }
            State::ObjectFirst | State::ObjectKey => {
                self.expect_blank(gap_start, p)?;
                match b {
                    b'"' => {
                        self.open_string(p, true);
                        Ok(())
                    }
                    b'}' if self.state == State::ObjectFirst => self.close(p, true),
                    _ => Err(syntax(p)),
                }
            }
            State::Colon => {
                self.expect_blank(gap_start, p)?;
                if b == b':' {
                    self.state = State::Value;
                    Ok(())
                } else {
                    Err(syntax(p))
                }
            }
            State::Start => {
                let (s, e) = self.trim(gap_start, p);
                if s < e {
                    Err(Malformed::new(s, Reason::NotAnObject))
                } else if b == b'{' {
                    self.open(p, true)
                } else {
                    Err(Malformed::new(p, Reason::NotAnObject))
                }
            }
            State::Done => {
                let (s, _) = self.trim(gap_start, p);
                Err(Malformed::new(s, Reason::TrailingCharacters))
            }
        }
    }

    #[inline(always)]
    fn after_value(&mut self, p: usize, b: u8) -> Result<(), Malformed> {
        match b {
            b',' => match self.stack.last() {
                Some(f) if f.object => {
                    self.state = State::ObjectKey;
                    Ok(())
                }
                Some(_) => {
                    self.state = State::Value;
                    Ok(())
                }
                None => Err(syntax(p)),
            },
            b'}' => self.close(p, true),
            b']' => self.close(p, false),
            _ => Err(syntax(p)),
        }
    }

    #[inline(always)]
    fn open_string(&mut self, p: usize, key: bool) {
        self.in_string = true;
        self.string_start = p;
        self.string_escaped = false;
        self.string_key = key;
    }

    #[inline(always)]
    fn open(&mut self, p: usize, object: bool) -> Result<(), Malformed> {
        if self.stack.len() >= DEPTH_LIMIT {
            return Err(Malformed::new(p, Reason::TooDeep));
        }
        let node = self.nodes.len() as u32;
        let kind = if object { Kind::Object } else { Kind::Array };
        self.push(p, p + 1, kind, false);
        self.stack.push(Frame { node, object });
        self.state = if object {
            State::ObjectFirst
        } else {
            State::ArrayFirst
        };
        if self.stack.len() == 1 && self.want.is_some() && self.wanted == 0 {
            // `parse_until` with no keys wanted: nothing to index.
            self.indexing = false;
        }
        Ok(())
    }

    #[inline(always)]
    fn close(&mut self, p: usize, object: bool) -> Result<(), Malformed> {
        let Some(frame) = self.stack.pop() else {
            return Err(syntax(p));
        };
        if frame.object != object {
            return Err(syntax(p));
        }
        // Once indexing has stopped only the root's node is still open on the tape.
        if self.indexing || self.stack.is_empty() {
            let next = self.nodes.len() as u32;
            if let Some(n) = self.nodes.get_mut(frame.node as usize) {
                n.end = p as u32 + 1;
                n.next = next;
            }
        }
        if self.stack.is_empty() {
            self.state = State::Done;
        } else {
            self.value_done();
        }
        Ok(())
    }

    /// A number or literal at `bytes[s..e]` (no whitespace around it).
    #[inline(always)]
    fn scalar(&mut self, s: usize, e: usize) -> Result<(), Malformed> {
        let token = self.bytes.get(s..e).unwrap_or_default();
        let kind = match token.first() {
            Some(b'-' | b'0'..=b'9') => {
                number::validate(token).map_err(|i| syntax(s + i))?;
                Kind::Number
            }
            _ if token == b"true" => Kind::True,
            _ if token == b"false" => Kind::False,
            _ if token == b"null" => Kind::Null,
            _ => return Err(syntax(s)),
        };
        self.push(s, e, kind, false);
        self.value_done();
        Ok(())
    }

    /// `bytes[s..e]` without whitespace at either end.
    #[inline(always)]
    fn trim(&self, mut s: usize, mut e: usize) -> (usize, usize) {
        while s < e && self.bytes.get(s).is_some_and(|&b| is_blank(b)) {
            s += 1;
        }
        while e > s && self.bytes.get(e - 1).is_some_and(|&b| is_blank(b)) {
            e -= 1;
        }
        (s, e)
    }

    #[inline(always)]
    fn expect_blank(&self, s: usize, e: usize) -> Result<(), Malformed> {
        let (s, t) = self.trim(s, e);
        if s == t { Ok(()) } else { Err(syntax(s)) }
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

/// The bytes the machine must see outside strings: `{ } [ ] : , "`.
#[inline(always)]
pub(crate) fn is_structural(b: u8) -> bool {
    STRUCTURAL[usize::from(b)]
}

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
