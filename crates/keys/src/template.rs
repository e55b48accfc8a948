//! The fast walk of `ndq keys`: a line whose structure was seen before contributes what the
//! line that first had it contributed, worked out once, plus its own values' hashes.
//!
//! A line's *structure* is its tape ([`Document::tokens`]) without the values' text: each
//! token's kind and the index after its subtree, and the raw text of each key. Log lines
//! come from few templates (the generated logs have some 60 structures), so most lines have
//! a structure seen before. What a line contributes to the [`Paths`] (which paths it has,
//! with which types, which values are hashed under which path, which paths it creates and
//! in what order) depends on its structure alone, apart from the values and their examples.
//! So a [`Template`] records it once, by walking the tokens the way [`Paths::line`] walks the
//! line (`walk_object` and `walk_value` below follow `object` and `visit` there step by step),
//! and a later line of the same structure only hashes its scalar values into the paths the
//! template names:
//!
//! ```text
//! line:  tokens; packed = (kind, next) per token; h = hash(packed)
//!        t = the template under h whose packed tokens and key texts equal the line's
//!            (none: record one from this line; too many already: the plain walk)
//!        first use of t in this chunk: make its paths in the chunk in the order the walk
//!            reaches them (so new paths come in the same order as with the plain walk), and
//!            translate its node ids into the chunk's
//!        t.uses += 1 (its line and type counts are added uses times by `Paths::flush`)
//!        for each (token, node, tag) of t.values: push hash(tag, value) to node;
//!            on the first use in the chunk, the example too where the node has none
//! ```
//!
//! Templates are kept per step (thread) across chunks, in node ids of a tree of their own
//! (`registry`); each chunk's [`Paths`] holds their translation into its own node ids
//! ([`Used`]). The plain walk stays the reference: the tests give both the same lines and
//! require the same output.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use ndq_scan::{Document, Malformed, Parser, Token, TokenKind};

use crate::distinct::{self, Identity};
use crate::glue::{Glue, Kind, Slot};
use crate::paths::{Paths, Step};

/// The most templates a step keeps; lines of a new structure then take the plain walk (a log
/// whose lines rarely share a structure pays for at most this many records).
const MAX_TEMPLATES: usize = 1024;

/// The most tokens of a line given a template (a longer line takes the plain walk).
const MAX_TOKENS: usize = 4096;

/// The most tokens kept in all of a step's templates (8 MiB of them, packed).
const MAX_KEPT: usize = 1 << 20;

/// The most templates of one structure with different keys (`{"host-a":1}`,
/// `{"host-b":1}`, ...): a line is compared with at most this many, so keys that change
/// from line to line cost a few comparisons and then the plain walk.
const MAX_PER_HASH: usize = 8;

/// What a line of one structure contributes, in `registry` node ids.
#[derive(Debug)]
struct Template {
    /// Each token's kind and `next` ([`pack`]).
    packed: Box<[u64]>,
    /// The keys: token index, and the range of their raw text (quotes included) in
    /// `key_bytes`.
    keys: Box<[(u32, u32, u32)]>,
    key_bytes: Box<[u8]>,
    /// The nodes the walk reaches, in the order it first reaches them.
    touch: Box<[u32]>,
    /// The nodes the line counts in `lines`.
    lines: Box<[u32]>,
    /// The nodes and types the line counts in `types`.
    types: Box<[(u32, u8)]>,
    /// The scalar values that are not null: slot (the value's number among the line's
    /// strings, numbers and booleans, in order), node, type tag for the hash.
    values: Box<[(u32, u32, u8)]>,
}

/// A template's contribution as it is being recorded.
#[derive(Default)]
struct Record {
    touch: Vec<u32>,
    lines: Vec<u32>,
    types: Vec<(u32, u8)>,
    values: Vec<(u32, u32, u8)>,
}

/// One step's templates.
#[derive(Debug)]
pub struct Templates {
    /// The tree the templates' node ids refer to (only its structure is used).
    registry: Paths,
    /// Per registry node: the record that last reached it, and the types it saw there.
    seen: Vec<(u64, u8)>,
    /// Per registry node: the record that last added it to `touch`.
    touched: Vec<u64>,
    /// Records made so far (the stamp of `seen` and `touched`).
    records: u64,
    /// Per registry node: the object it was last a member of; and objects walked so far
    /// (a key repeated in one object counts once, the first, as in `Paths::object`).
    member_of: Vec<u64>,
    objects: u64,
    list: Vec<Template>,
    /// Tokens in all of `list`.
    kept: usize,
    /// The templates by the hash of their packed tokens.
    index: HashMap<u64, Vec<u32>, BuildHasherDefault<Identity>>,
    limit: usize,
    /// The glue of the lines of known templates (`glue.rs`), the current line's slots, and
    /// a line's steps as it is added.
    glue: Glue,
    slots: Vec<Slot>,
    steps: Vec<(u32, u32, Kind)>,
    /// An escaped string's text, unescaped.
    text: Vec<u8>,
}

impl Default for Templates {
    fn default() -> Templates {
        Templates::with_limit(MAX_TEMPLATES)
    }
}

/// A chunk's templates, in its [`Paths`]: their node ids in the chunk, and how many lines
/// used each since the last [`Paths::flush`].
#[derive(Clone, Debug, Default)]
pub struct Used {
    /// Registry node id → the chunk's node id (`u32::MAX`: not yet made in the chunk).
    map: Vec<u32>,
    /// By template number (`None`: not used in this chunk yet).
    resolved: Vec<Option<Resolved>>,
}

/// A template in a chunk's node ids.
#[derive(Clone, Debug)]
struct Resolved {
    uses: u64,
    lines: Box<[u32]>,
    types: Box<[(u32, u8)]>,
    /// The paths that only `null` reaches in the template's lines.
    only_null: Box<[u32]>,
    values: Box<[(u32, u32, u8)]>,
}

/// A token's kind and `next` in one word (the rest of a token differs from line to line).
#[inline]
fn pack(t: &Token) -> u64 {
    (u64::from(t.next) << 8) | t.kind as u64
}

impl Templates {
    /// No templates yet, keeping at most `limit`.
    pub fn with_limit(limit: usize) -> Templates {
        Templates {
            registry: Paths::default(),
            seen: Vec::new(),
            touched: Vec::new(),
            records: 0,
            member_of: Vec::new(),
            objects: 0,
            list: Vec::new(),
            kept: 0,
            index: HashMap::default(),
            limit,
            glue: Glue::default(),
            slots: Vec::new(),
            steps: Vec::new(),
            text: Vec::new(),
        }
    }

    /// Read one line into `paths` with `parser`: matched by its glue, which validates it
    /// (`glue.rs`: valid UTF-8, known glue, and slots that are valid tokens of their
    /// kinds); a line whose glue is not known (or that is not valid) is validated and
    /// indexed by the scanner and walked by [`Templates::line`], and its glue added.
    pub fn read(
        &mut self,
        parser: &mut Parser,
        paths: &mut Paths,
        line: &[u8],
    ) -> Result<(), Malformed> {
        // (A line of 4 GiB or more is the scanner's to reject, as too long.)
        if self.glue.wanted()
            && line.len() < u32::MAX as usize
            && let Ok(text) = simdutf8::basic::from_utf8(line)
        {
            let mut slots = std::mem::take(&mut self.slots);
            let found = self.glue.walk(line, &mut slots);
            if let Some(id) = found {
                self.apply(id, paths, text, &slots);
            }
            self.slots = slots;
            if found.is_some() {
                return Ok(());
            }
        }
        let doc = parser.parse(line)?;
        if let Some(id) = self.line(paths, &doc) {
            self.add_glue(&doc, id);
        }
        Ok(())
    }

    /// Add the glue of the line of `doc` to the trie, ending at template `id`.
    fn add_glue(&mut self, doc: &Document<'_>, id: u32) {
        self.steps.clear();
        let mut end = 0;
        for t in doc.tokens() {
            let kind = match t.kind {
                TokenKind::String => Kind::Str,
                TokenKind::Number => Kind::Num,
                TokenKind::True | TokenKind::False => Kind::Bool,
                _ => continue,
            };
            self.steps.push((end, t.start, kind));
            end = t.end;
        }
        let len = doc.text().len() as u32;
        self.steps.push((end, len, Kind::End));
        self.glue.insert(doc.text().as_bytes(), &self.steps, id);
    }

    /// Walk one line's document (from [`ndq_scan::Parser::parse`]) into `paths`: as
    /// [`Paths::line`] does, by its template where it has one; the template's number.
    pub fn line(&mut self, paths: &mut Paths, doc: &Document<'_>) -> Option<u32> {
        let tokens = doc.tokens();
        if tokens.len() > MAX_TOKENS || tokens.len() == 0 {
            paths.line(doc.root());
            return None;
        }
        // A hash of the packed tokens: a rotation and an exclusive or per token (a collision
        // costs only a comparison), mixed at the end.
        let n = tokens.len();
        let h = tokens.fold(0u64, |h, t| h.rotate_left(7) ^ pack(&t));
        let h = distinct::finish(h ^ n as u64);
        let same = self.index.get(&h).map_or(&[][..], Vec::as_slice);
        let found = same.iter().copied().find(|&id| self.matches(id, doc));
        let room =
            self.list.len() < self.limit && self.kept + n <= MAX_KEPT && same.len() < MAX_PER_HASH;
        let id = match found {
            Some(id) => id,
            None if room => self.record(h, doc),
            None => {
                paths.line(doc.root());
                return None;
            }
        };
        let mut slots = std::mem::take(&mut self.slots);
        slots.clear();
        slots.extend(doc.tokens().filter_map(|t| {
            matches!(
                t.kind,
                TokenKind::String | TokenKind::Number | TokenKind::True | TokenKind::False
            )
            .then_some(Slot {
                start: t.start,
                end: t.end,
                escaped: t.escaped,
                hashed: false,
                hash: 0,
            })
        }));
        self.apply(id, paths, doc.text(), &slots);
        self.slots = slots;
        Some(id)
    }

    /// Whether template `id` has the current line's structure.
    fn matches(&self, id: u32, doc: &Document<'_>) -> bool {
        let Some(t) = self.list.get(id as usize) else {
            return false;
        };
        let bytes = doc.text().as_bytes();
        t.packed.len() == doc.tokens().len()
            && doc
                .tokens()
                .zip(t.packed.iter())
                .all(|(tok, &p)| pack(&tok) == p)
            && t.keys.iter().all(|&(i, from, to)| {
                let Some(k) = doc.token(i as usize) else {
                    return false;
                };
                same(
                    bytes.get(k.start as usize..k.end as usize),
                    t.key_bytes.get(from as usize..to as usize),
                )
            })
    }

    /// Record the current line's template (its hash is `h`); its number.
    fn record(&mut self, h: u64, doc: &Document<'_>) -> u32 {
        self.records += 1;
        let text = doc.text();
        let tokens: Vec<Token> = doc.tokens().collect();
        let mut rec = Record::default();
        self.walk_object(0, 0, &tokens, text, &mut rec);
        let mut keys = Vec::new();
        let mut key_bytes = Vec::new();
        for (i, t) in tokens.iter().enumerate() {
            if t.kind == TokenKind::Key {
                let from = key_bytes.len() as u32;
                let raw = text.as_bytes().get(t.start as usize..t.end as usize);
                key_bytes.extend_from_slice(raw.unwrap_or_default());
                keys.push((i as u32, from, key_bytes.len() as u32));
            }
        }
        // Token index → slot: the values' numbers among the strings, numbers and booleans.
        let mut slot = Vec::with_capacity(tokens.len());
        let mut n = 0u32;
        for t in &tokens {
            slot.push(n);
            let scalar = matches!(
                t.kind,
                TokenKind::String | TokenKind::Number | TokenKind::True | TokenKind::False
            );
            n += u32::from(scalar);
        }
        let values: Vec<(u32, u32, u8)> = rec
            .values
            .iter()
            .map(|&(at, node, tag)| (slot.get(at as usize).copied().unwrap_or(0), node, tag))
            .collect();
        let id = self.list.len() as u32;
        self.kept += tokens.len();
        self.list.push(Template {
            packed: tokens.iter().map(pack).collect(),
            keys: keys.into(),
            key_bytes: key_bytes.into(),
            touch: rec.touch.into(),
            lines: rec.lines.into(),
            types: rec.types.into(),
            values: values.into(),
        });
        self.index.entry(h).or_default().push(id);
        id
    }

    /// `Paths::object`'s walk of the object at token `at`, under registry node `node`.
    fn walk_object(
        &mut self,
        node: u32,
        at: usize,
        tokens: &[Token],
        text: &str,
        rec: &mut Record,
    ) {
        let end = tokens.get(at).map_or(at, |t| t.next as usize);
        self.objects += 1;
        let this = self.objects;
        let mut i = at + 1;
        while i < end {
            let (Some(k), Some(v)) = (tokens.get(i), tokens.get(i + 1)) else {
                break;
            };
            let raw = text
                .get(k.start as usize + 1..(k.end as usize).saturating_sub(1))
                .unwrap_or("");
            let key = if k.escaped {
                ndq_scan::unescape(raw)
            } else {
                Cow::Borrowed(raw)
            };
            let child = self.registry.key_child(node, &key);
            let c = child as usize;
            if self.member_of.len() <= c {
                self.member_of.resize(c + 1, 0);
            }
            // A key repeated in this object: the first one counts.
            if self.member_of.get(c) != Some(&this) {
                if let Some(m) = self.member_of.get_mut(c) {
                    *m = this;
                }
                self.touch(child, rec);
                self.walk_value(child, i + 1, tokens, text, rec);
            }
            i = (v.next as usize).max(i + 2);
        }
    }

    /// `Paths::visit`'s walk of the value at token `at`, registry node `id`.
    fn walk_value(&mut self, id: u32, at: usize, tokens: &[Token], text: &str, rec: &mut Record) {
        let Some(&tok) = tokens.get(at) else {
            return;
        };
        let i = id as usize;
        if self.seen.len() <= i {
            self.seen.resize(i + 1, (0, 0));
        }
        let in_array = self.registry.nodes.get(i).is_some_and(|n| n.in_array);
        let Some(seen) = self.seen.get_mut(i) else {
            return;
        };
        if seen.0 != self.records {
            *seen = (self.records, 0);
            rec.lines.push(id);
        } else if !in_array {
            // A repeated key: the first one counts.
            return;
        }
        let (t, tag) = match tok.kind {
            TokenKind::Null => (0, None),
            TokenKind::True | TokenKind::False => (1, Some(1)),
            TokenKind::Number => (2, Some(2)),
            TokenKind::String | TokenKind::Key => (3, Some(3)),
            TokenKind::Array => (4, None),
            TokenKind::Object => (5, None),
        };
        if seen.1 & (1 << t) == 0 {
            seen.1 |= 1 << t;
            rec.types.push((id, t));
        }
        if let Some(tag) = tag {
            rec.values.push((at as u32, id, tag));
        }
        match tok.kind {
            TokenKind::Object => self.walk_object(id, at, tokens, text, rec),
            TokenKind::Array => {
                let end = tok.next as usize;
                let mut j = at + 1;
                let mut elem = None;
                while j < end {
                    let e = *elem.get_or_insert_with(|| self.registry.elem_child(id));
                    self.touch(e, rec);
                    self.walk_value(e, j, tokens, text, rec);
                    j = tokens.get(j).map_or(end, |t| (t.next as usize).max(j + 1));
                }
            }
            _ => {}
        }
    }

    /// Note that the record reached registry node `id` (the first time in this record).
    fn touch(&mut self, id: u32, rec: &mut Record) {
        let i = id as usize;
        if self.touched.len() <= i {
            self.touched.resize(i + 1, 0);
        }
        if let Some(t) = self.touched.get_mut(i)
            && *t != self.records
        {
            *t = self.records;
            rec.touch.push(id);
        }
    }

    /// Add the current line (`text`, its values at `slots`) to `paths` by template `id`.
    fn apply(&mut self, id: u32, paths: &mut Paths, text: &str, slots: &[Slot]) {
        let slot = id as usize;
        if paths.used.resolved.len() <= slot {
            paths.used.resolved.resize_with(slot + 1, || None);
        }
        let first = paths.used.resolved.get(slot).is_some_and(Option::is_none);
        if first {
            self.resolve(id, paths);
        }
        let Paths {
            nodes, lines, used, ..
        } = paths;
        *lines += 1;
        let Some(Some(r)) = used.resolved.get_mut(slot) else {
            return;
        };
        r.uses += 1;
        let bytes = text.as_bytes();
        for &(at, node, tag) in r.values.iter() {
            let Some(v) = slots.get(at as usize) else {
                continue;
            };
            let (start, end) = (v.start as usize, v.end as usize);
            let h = if v.hashed {
                // Taken by the glue walk on the way (the slot's kind is the template's).
                v.hash
            } else if tag == 3 {
                // A string: its text between the quotes, unescaped.
                if v.escaped {
                    let raw = bytes.get(start + 1..end.saturating_sub(1));
                    unescape_into(raw.unwrap_or_default(), &mut self.text);
                    distinct::prehash(3, &self.text)
                } else {
                    let raw = bytes.get(start + 1..end.saturating_sub(1));
                    distinct::prehash(3, raw.unwrap_or_default())
                }
            } else {
                distinct::value_prehash(tag, bytes.get(start..end).unwrap_or_default())
            };
            let Some(n) = nodes.get_mut(node as usize) else {
                continue;
            };
            n.hashes.push(h);
            if first {
                n.scalars = true;
                if n.example.is_none() {
                    n.example = Some(text.get(start..end).unwrap_or("").into());
                }
            }
        }
    }

    /// Make template `id`'s paths in `paths` (the chunk), in the order the plain walk would
    /// make them for a line of its structure, and keep the template in the chunk's node ids.
    fn resolve(&self, id: u32, paths: &mut Paths) {
        let Some(t) = self.list.get(id as usize) else {
            return;
        };
        let map = &mut paths.used.map;
        if map.is_empty() {
            map.push(0);
        }
        if map.len() < self.registry.nodes.len() {
            map.resize(self.registry.nodes.len(), u32::MAX);
        }
        for &r in t.touch.iter() {
            if paths.used.map.get(r as usize) != Some(&u32::MAX) {
                continue;
            }
            let Some(reg) = self.registry.nodes.get(r as usize) else {
                continue;
            };
            let parent = paths
                .used
                .map
                .get(reg.parent as usize)
                .copied()
                .unwrap_or(0);
            let ours = match &reg.step {
                Some(Step::Key(k)) => paths.key_child(parent, k),
                Some(Step::Elem) => paths.elem_child(parent),
                None => 0,
            };
            if let Some(m) = paths.used.map.get_mut(r as usize) {
                *m = ours;
            }
        }
        let map = &paths.used.map;
        let to = |r: u32| map.get(r as usize).copied().unwrap_or(0);
        let resolved = Resolved {
            uses: 0,
            lines: t.lines.iter().map(|&r| to(r)).collect(),
            types: t.types.iter().map(|&(r, ty)| (to(r), ty)).collect(),
            only_null: t
                .types
                .iter()
                .filter(|&&(r, ty)| ty == 0 && !t.types.iter().any(|&(o, u)| o == r && u != 0))
                .map(|&(r, _)| to(r))
                .collect(),
            values: t
                .values
                .iter()
                .map(|&(at, r, tag)| (at, to(r), tag))
                .collect(),
        };
        if let Some(slot) = paths.used.resolved.get_mut(id as usize) {
            *slot = Some(resolved);
        }
    }
}

impl Paths {
    /// Add the line and type counts of the templates used since the last flush.
    pub(crate) fn flush(&mut self) {
        let Paths { nodes, used, .. } = self;
        for r in used.resolved.iter_mut().flatten() {
            let n = std::mem::take(&mut r.uses);
            if n == 0 {
                continue;
            }
            for &id in r.lines.iter() {
                if let Some(node) = nodes.get_mut(id as usize) {
                    node.lines += n;
                }
            }
            for &id in r.only_null.iter() {
                if let Some(node) = nodes.get_mut(id as usize) {
                    node.only_null += n;
                }
            }
            for &(id, t) in r.types.iter() {
                if let Some(c) = nodes
                    .get_mut(id as usize)
                    .and_then(|node| node.types.get_mut(t as usize))
                {
                    *c += n;
                }
            }
        }
    }
}

/// The text of a valid string's content `raw` (between its quotes) with its escapes
/// decoded, into `out` (what [`ndq_scan::unescape`] gives, without an allocation).
fn unescape_into(raw: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while let Some(rest) = raw.get(i..) {
        let Some(b) = rest.iter().position(|&b| b == b'\\') else {
            out.extend_from_slice(rest);
            break;
        };
        out.extend_from_slice(&rest[..b]);
        match rest.get(b..).and_then(ndq_scan::decode_escape) {
            Some((c, n)) => {
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                i += b + n;
            }
            None => {
                // Not valid (never so after the scanner or the glue walk): the rest as is.
                out.extend_from_slice(&rest[b..]);
                break;
            }
        }
    }
}

/// Whether two short byte strings (keys) are equal: their lengths, then 8 bytes at a time
/// (the last word overlapping the one before), without a call to `memcmp`.
#[inline]
fn same(a: Option<&[u8]>, b: Option<&[u8]>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return a == b;
    };
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| {
        s.get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map(u64::from_le_bytes)
    };
    if n < 8 {
        return a == b;
    }
    let mut at = 0;
    while at + 8 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PathStats;
    use ndq_scan::{Parser, Scanner};

    /// Lines whose structures repeat and vary: keys repeated (at the top, in objects, in
    /// array elements), escaped (`\u0061` is `a`), in other orders; arrays of other lengths
    /// and kinds, nested arrays and objects, empty ones; and lines that are not objects.
    const ODD: &[&str] = &[
        r#"{"a":1,"b":{"c":"x","d":[1,2,{"e":null}]},"f":[]}"#,
        r#"{"a":2,"b":{"c":"y","d":[3,{"e":true},{"e":"s","e":4}]},"f":[[]]}"#,
        r#"{"a":1,"a":{"z":1},"b":{"c":"x","c":{"q":2}}}"#,
        r#"{"\u0061":"esc","b":{"c":"\"q\" \u00e9"}}"#,
        r#"{"a":"é","b":{"d":[{"e":[1,[2,[3]]]},{"e":{}}],"c":null}}"#,
        r#"{"b":{"c":"x","d":[1,2,{"e":null}]},"a":1,"f":[]}"#,
        r#"{"a":1,"b":{"c":"x","d":[1,2,{"e":null}]},"f":[]}"#,
        "not json",
        r#"[1,2]"#,
        r#"{}"#,
        r#"{"t":[{"x":1,"x":2},{"y":[{"x":3}]}],"u":{"":{"'":0}}}"#,
        r#"{"t":[{"x":1,"x":2},{"y":[{"x":3}]}],"u":{"":{"'":0}}}"#,
        r#"{"a":1.0,"b":{"c":"x","d":[1e2,-0,{"e":false}]},"f":[1]}"#,
        r#"{"a":true}"#,
        r#"{"a":false}"#,
        // Lines that differ from another only in the glue between their values: spaces,
        // a value's kind, `null`, true and false, a key's spelling, escapes in strings (at
        // every place of an 8-byte word), exponents, empty strings.
        r#"{"a": 1, "b" : {"c":"x","d":[1,2,{"e":null}]},"f":[] }"#,
        r#"{"a":1,"b":{"c":"x","d":[1,2,{"e":true}]},"f":[]}"#,
        r#"{"a":1,"b":{"c":"x","d":[1,2,{"e":"null"}]},"f":[]}"#,
        r#"{"a":"1","b":{"c":"x","d":[1,2,{"e":false}]},"f":[]}"#,
        r#"{"a":-1.5e+3,"b":{"c":"","d":[1E-2,2,{"e":0}]},"f":[]}"#,
        r#"{"a":1,"b":{"c\"":"x","d":[1,2,{"e":null}]},"f":[]}"#,
        r#"{"a":1,"b":{"c":"x\"","d":[1,2,{"e":null}]},"f":[]}"#,
        r#"{"a":1,"b":{"c":"\\","d":[1,2,{"e":null}]},"f":[]}"#,
        r#"{"a":1,"b":{"c":"abcdefg\"hijklmn\\","d":[1,2,{"e":null}]},"f":[]}"#,
        r#"{"a":1,"b":{"c":"abcdefgh\"ijklmno\\\"p","d":[1,2,{"e":null}]},"f":[]}"#,
        r#"{"a":1,"b":{"c":"ab\u0022cdefghij\"","d":[1,2,{"e":null}]},"f":[]}"#,
        r#"{"a":1,"b":{"c":"x","d":[1,2,{"e":null}]},"f":["\\\""]}"#,
        r#"{"a":1,"b":{"c":"x","d":[1,2,{"e":null}]},"f":[]}  "#,
        r#"{"a":1,"b":{"c":"x","d":[1,2,{"e":null}]},"f":[]}"#,
    ];

    /// The lines as the driver gives them: cut into chunks of `chunk` lines, each read
    /// into a fresh part (with templates, the same across chunks, when `limit` says how many;
    /// else by the plain walk), the parts merged in order; the lines and the paths'
    /// statistics.
    fn keys(
        lines: &[&[u8]],
        scanner: Scanner,
        chunk: usize,
        limit: Option<usize>,
    ) -> (u64, Vec<PathStats>) {
        let mut parser = Parser::new(scanner);
        let mut templates = limit.map(Templates::with_limit);
        let mut total = Paths::default();
        for part in lines.chunks(chunk) {
            let mut paths = Paths::default();
            for line in part {
                match &mut templates {
                    Some(t) => {
                        let _ = t.read(&mut parser, &mut paths, line);
                    }
                    None => {
                        if let Ok(doc) = parser.parse(line) {
                            paths.line(doc.root());
                        }
                    }
                }
            }
            total.merge(paths);
        }
        (total.lines(), total.finish())
    }

    fn scanners() -> Vec<Scanner> {
        let mut all = vec![Scanner::scalar()];
        all.extend(Scanner::avx2());
        all
    }

    /// Every way of walking `lines` gives the plain walk's output.
    fn same_as_plain(lines: &[&[u8]]) {
        let plain = keys(lines, Scanner::scalar(), usize::MAX, None);
        assert!(!plain.1.is_empty());
        for scanner in scanners() {
            for chunk in [1, 2, 3, 7, 100, usize::MAX] {
                for limit in [0, 1, 3, MAX_TEMPLATES] {
                    let fast = keys(lines, scanner, chunk, Some(limit));
                    assert!(
                        fast == plain,
                        "{scanner:?}, chunks of {chunk} lines, {limit} templates:\n{fast:#?}\nplain:\n{plain:#?}",
                    );
                }
            }
        }
    }

    #[test]
    fn templates_give_the_plain_walk_on_odd_lines() {
        let mut lines: Vec<&[u8]> = ODD.iter().map(|l| l.as_bytes()).collect();
        same_as_plain(&lines);
        // In another order, and each line twice in a row.
        lines.reverse();
        same_as_plain(&lines);
        let twice: Vec<&[u8]> = ODD.iter().flat_map(|l| [l.as_bytes(); 2]).collect();
        same_as_plain(&twice);
    }

    /// A small deterministic generator (xorshift), for lines of random structures.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len() as u64) as usize]
        }
    }

    /// An object of the structure `shape` picks (the same for the same `shape`), with values
    /// from `values`: mostly the same kinds of values at the same places, now and then
    /// another kind or other spacing.
    fn object(shape: &mut Rng, values: &mut Rng, depth: u32, out: &mut String) {
        const KEYS: &[&str] = &["a", "b", "@t", "Message", "\\u0061", "k\\\"q", "a", ""];
        const STRINGS: &[&str] = &[
            "",
            "x",
            "abcdefgh",
            "abcdefg\\\"",
            "\\\\",
            "a\\u00e9b",
            "line\\nnext",
            "0HNAC870A0A0",
            "a longer value of some thirty bytes",
            "\\\"quoted\\\"",
        ];
        const NUMBERS: &[&str] = &[
            "0",
            "-1",
            "23.7408",
            "1e5",
            "-2.5E-3",
            "12345678901234567890",
        ];
        let space = |r: &mut Rng| if r.below(4) == 0 { " " } else { "" };
        out.push('{');
        let members = shape.below(5);
        for m in 0..members {
            if m > 0 {
                out.push(',');
            }
            out.push_str(space(shape));
            out.push('"');
            out.push_str(shape.pick(KEYS));
            out.push_str("\":");
            // Mostly the shape's kind; one value in 30 of another.
            let mut kind = shape.below(if depth < 2 { 7 } else { 5 });
            if values.below(30) == 0 {
                kind = values.below(5);
                out.push_str(space(values));
            }
            match kind {
                0 => {
                    out.push('"');
                    out.push_str(values.pick(STRINGS));
                    out.push('"');
                }
                1 => out.push_str(values.pick(NUMBERS)),
                2 => out.push_str(["true", "false"][values.below(2) as usize]),
                3 => out.push_str("null"),
                4 => out.push_str(&values.below(1000).to_string()),
                5 => object(shape, values, depth + 1, out),
                _ => {
                    out.push('[');
                    let n = shape.below(3) + values.below(2);
                    for i in 0..n {
                        if i > 0 {
                            out.push(',');
                        }
                        if shape.below(2) == 0 {
                            object(&mut Rng(shape.0 ^ i), values, depth + 1, out);
                        } else if values.below(4) == 0 {
                            // Some elements null, beside others that are not.
                            out.push_str("null");
                        } else {
                            out.push('"');
                            out.push_str(values.pick(STRINGS));
                            out.push('"');
                        }
                    }
                    out.push(']');
                }
            }
        }
        out.push_str(space(shape));
        out.push('}');
    }

    #[test]
    fn templates_give_the_plain_walk_on_random_structures() {
        let mut values = Rng(0x9E37_79B9_7F4A_7C15);
        let lines: Vec<String> = (0..1500)
            .map(|_| {
                let mut shape = Rng(1 + values.below(12));
                let mut line = String::new();
                object(&mut shape, &mut values, 0, &mut line);
                line
            })
            .collect();
        let lines: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
        // Each line is valid JSON (the generator is right), and most repeat a structure.
        let mut parser = Parser::new(Scanner::scalar());
        assert!(lines.iter().all(|l| parser.parse(l).is_ok()));
        let mut t = Templates::default();
        let mut paths = Paths::default();
        for l in &lines {
            let _ = t.read(&mut parser, &mut paths, l);
        }
        assert!(t.glue.matched > 1000, "{}", t.glue.matched);
        same_as_plain(&lines);
    }

    #[test]
    fn templates_give_the_plain_walk_on_generated_logs_and_the_sample() {
        let data = ndq_gen::generate(11, 400_000);
        let lines = non_blank_lines(&data);
        assert!(lines.len() > 300);
        same_as_plain(&lines);
        let sample = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/sample.ndjson"
        ))
        .unwrap_or_default();
        let lines = non_blank_lines(&sample);
        assert!(lines.len() > 100);
        same_as_plain(&lines);
    }

    /// The lines of `data` that are not empty.
    fn non_blank_lines(data: &[u8]) -> Vec<&[u8]> {
        data.split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect()
    }

    #[test]
    fn unescape_into_gives_the_scanners_unescape() {
        let mut out = Vec::new();
        for raw in [
            "",
            "plain",
            r#"Zo\u00eb \"Z\" Smith"#,
            r#"\\\/\b\f\n\r\t"#,
            r#"a\ud83d\ude00b\u0041"#,
            r#"\"\"\""#,
        ] {
            unescape_into(raw.as_bytes(), &mut out);
            assert_eq!(out, ndq_scan::unescape(raw).as_bytes(), "{raw}");
        }
    }

    #[test]
    fn a_line_reuses_the_template_of_its_structure_only() {
        let mut parser = Parser::new(Scanner::scalar());
        let mut t = Templates::default();
        let mut paths = Paths::default();
        for line in [
            r#"{"a":1,"b":"x"}"#,
            r#"{"a":22,"b":"yy"}"#,
            r#"{"a":"1","b":"x"}"#,
            r#"{"b":1,"a":"x"}"#,
            r#"{"\u0061":1,"b":"x"}"#,
            r#"{"a":[1],"b":"x"}"#,
            r#"{"a":333,"b":"z\"z"}"#,
        ] {
            let doc = parser.parse(line.as_bytes()).unwrap();
            t.line(&mut paths, &doc);
        }
        // The second and last lines have the first one's structure; the others each have
        // their own (another type, key order, key spelling, nesting).
        assert_eq!(t.list.len(), 5);
    }

    #[test]
    fn a_line_with_known_glue_is_matched_without_its_index() {
        let mut parser = Parser::new(Scanner::detect());
        let mut t = Templates::default();
        let mut paths = Paths::default();
        let lines = [
            r#"{"a":1,"b":"x","c":[true,null]}"#,
            r#"{"a":22,"b":"y\"y","c":[false,null]}"#,
            r#"{"a":"22","b":"y","c":[false,null]}"#,
            r#"{"a":3e5,"b":"","c":[true,null]}"#,
        ];
        for line in lines {
            t.read(&mut parser, &mut paths, line.as_bytes()).unwrap();
        }
        // The second and last lines have the first one's glue.
        assert_eq!((t.list.len(), t.glue.matched), (2, 2));
        assert!(
            t.read(
                &mut parser,
                &mut paths,
                b"{\"a\":1,\"b\":\"x\",\"c\":[true,nul]}"
            )
            .is_err()
        );
        assert_eq!(t.glue.matched, 2);
    }

    #[test]
    fn keys_that_change_from_line_to_line_keep_few_templates() {
        let lines: Vec<String> = (0..40)
            .map(|i| format!(r#"{{"host-{i}":{{"up":true}},"n":{i}}}"#))
            .collect();
        let lines: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
        same_as_plain(&lines);
        let mut parser = Parser::new(Scanner::scalar());
        let mut t = Templates::default();
        let mut paths = Paths::default();
        for line in &lines {
            t.line(&mut paths, &parser.parse(line).unwrap());
        }
        assert_eq!(t.list.len(), MAX_PER_HASH);
    }
}
