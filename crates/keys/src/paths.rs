//! The tree of property paths seen, with each path's statistics, and the plain walk of a
//! line into it (the reference for the fast walk of `template.rs`).
//!
//! A [`Paths`] is one part's result (a chunk's, a thread's) or the total: parts are folded
//! into the total in input order ([`Paths::merge`]), so the order of paths and each path's
//! example are those of the input, whatever the split.
//!
//! What a line contributes is in the crate's docs; here: `lines` counts the lines that have
//! a path, `types` the lines per type (once per line for a path under an array), and
//! `select count(*) where a[?].b is not null` counts the lines where some element's `b` is
//! not null.

use std::borrow::Cow;
use std::collections::HashMap;

use ndq_scan::{Object, Value};

use crate::distinct::{self, Distinct, Hashes};
use crate::template::Used;
use crate::{DistinctCount, PathStats};

/// Children of a node searched one by one up to this many; more are found by key
/// ([`Node::by_key`]).
const INDEXED_FROM: usize = 16;

/// One step of a path below its parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A member of an object.
    Key(Box<str>),
    /// Any element of an array (`[]`).
    Elem,
}

/// A path and what was seen of it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Node {
    /// The parent's index (the root is 0, its own parent).
    pub parent: u32,
    /// The step from the parent (`None` for the root).
    pub step: Option<Step>,
    /// Under an array: more than one occurrence per line is expected.
    pub in_array: bool,
    /// The children, in the order first seen.
    pub children: Vec<u32>,
    /// The `[]` child.
    elem: Option<u32>,
    /// Where in `children` the last lookup matched: keys mostly come in the same order line
    /// after line, so the next lookup tries the child after it first.
    hint: usize,
    /// The children by key, once there are more than [`INDEXED_FROM`] (an object used as a
    /// map, keyed by ids: a search through the children for each key would take time
    /// growing with the square of their number).
    by_key: Option<HashMap<Box<str>, u32>>,
    /// Lines that have the path.
    pub lines: u64,
    /// Lines that have it with each type of [`crate::JsonType::ALL`].
    pub types: [u64; 6],
    /// Lines that have it only as `null` (every element null, under an array).
    pub only_null: u64,
    /// The distinct scalar values that are not null (in the run's total).
    pub distinct: Distinct,
    /// Their hashes as they come (in a chunk's part; folded into `distinct` by `merge`).
    pub(crate) hashes: Hashes,
    /// Whether any scalar value that is not null was seen (else `distinct` means nothing).
    pub scalars: bool,
    /// The first scalar value that is not null, as its JSON text.
    pub example: Option<Box<str>>,
    /// The line (number in the chunk) last seen in, and the types seen in it.
    stamp: u64,
    mask: u8,
    /// The object (number in the chunk) whose member it last was: a key repeated in one
    /// object counts once, the first (as lookups see it), also in an array's elements.
    object: u64,
}

/// The statistics of a part of the input (or of all of it): every path seen, as a tree
/// rooted at node 0 (the line's object).
#[derive(Clone, Debug)]
pub struct Paths {
    /// The nodes; a parent always comes before its children.
    pub(crate) nodes: Vec<Node>,
    /// Lines walked (JSON objects).
    pub(crate) lines: u64,
    /// The line templates this part used, with their counts not yet added to the nodes
    /// (see `template.rs`; added by [`Paths::flush`]).
    pub(crate) used: Used,
    /// Objects walked (the stamp of [`Node::object`]).
    objects: u64,
}

impl Default for Paths {
    fn default() -> Paths {
        Paths {
            nodes: vec![Node::default()],
            lines: 0,
            used: Used::default(),
            objects: 0,
        }
    }
}

impl Paths {
    /// Lines walked (JSON objects).
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Walk one line's object.
    pub(crate) fn line(&mut self, root: Object<'_>) {
        self.lines += 1;
        self.object(0, root);
    }

    fn object(&mut self, node: u32, obj: Object<'_>) {
        self.objects += 1;
        let this = self.objects;
        obj.for_each(|key, value| {
            let child = if key.has_escapes() {
                self.key_child(node, &key.unescaped())
            } else {
                self.key_child(node, key.raw())
            };
            // A key repeated in this object: the first one counts.
            let Some(n) = self.nodes.get_mut(child as usize) else {
                return;
            };
            if n.object == this {
                return;
            }
            n.object = this;
            self.visit(child, value);
        });
    }

    fn visit(&mut self, id: u32, value: Value<'_>) {
        let line = self.lines;
        let node = &mut self.nodes[id as usize];
        if node.stamp != line {
            node.stamp = line;
            node.mask = 0;
            node.lines += 1;
        } else if !node.in_array {
            // A repeated key: the first one counts.
            return;
        }
        let (t, scalar): (usize, Option<(u8, Cow<'_, str>)>) = match value {
            Value::Null => (0, None),
            Value::Bool(b) => (
                1,
                Some((1, Cow::Borrowed(if b { "true" } else { "false" }))),
            ),
            Value::Number(n) => (2, Some((2, Cow::Borrowed(n.raw())))),
            Value::String(s) => (3, Some((3, s.unescaped()))),
            Value::Array(_) => (4, None),
            Value::Object(_) => (5, None),
        };
        if node.mask & (1 << t) == 0 {
            // Only null so far in this line: a first null starts it, a first other type
            // ends it.
            match (node.mask, t) {
                (0, 0) => node.only_null += 1,
                (1, _) => node.only_null -= 1,
                _ => {}
            }
            node.mask |= 1 << t;
            node.types[t] += 1;
        }
        if let Some((tag, text)) = scalar {
            node.hashes
                .push(distinct::value_prehash(tag, text.as_bytes()));
            node.scalars = true;
            if node.example.is_none() {
                node.example = Some(value.raw().into());
            }
        }
        match value {
            Value::Object(o) => self.object(id, o),
            Value::Array(a) => {
                let mut elem = None;
                for v in a.iter() {
                    let e = *elem.get_or_insert_with(|| self.elem_child(id));
                    self.visit(e, v);
                }
            }
            _ => {}
        }
    }

    /// The child of `node` reached by `key`, made if new.
    #[inline]
    pub(crate) fn key_child(&mut self, node: u32, key: &str) -> u32 {
        let n = &self.nodes[node as usize];
        if let Some(by_key) = &n.by_key {
            return match by_key.get(key) {
                Some(&c) => c,
                None => self.add(node, Step::Key(key.into())),
            };
        }
        let len = n.children.len();
        for k in 0..len {
            let at = (n.hint + k) % len;
            let c = n.children[at];
            if let Some(Step::Key(name)) = &self.nodes[c as usize].step
                && **name == *key
            {
                self.nodes[node as usize].hint = at + 1;
                return c;
            }
        }
        self.add(node, Step::Key(key.into()))
    }

    pub(crate) fn elem_child(&mut self, node: u32) -> u32 {
        match self.nodes[node as usize].elem {
            Some(e) => e,
            None => self.add(node, Step::Elem),
        }
    }

    fn add(&mut self, parent: u32, step: Step) -> u32 {
        let id = self.nodes.len() as u32;
        let p = &mut self.nodes[parent as usize];
        let in_array = p.in_array || step == Step::Elem;
        match &step {
            Step::Elem => p.elem = Some(id),
            Step::Key(key) => {
                p.children.push(id);
                p.hint = p.children.len();
                if let Some(by_key) = &mut p.by_key {
                    by_key.insert(key.clone(), id);
                } else if p.children.len() > INDEXED_FROM {
                    let by_key = self.index_children(parent, key, id);
                    self.nodes[parent as usize].by_key = Some(by_key);
                }
            }
        }
        self.nodes.push(Node {
            parent,
            step: Some(step),
            in_array,
            ..Node::default()
        });
        id
    }

    /// The children of `parent` by key, `key` (the newest, `id`, not yet a node) among them.
    fn index_children(&self, parent: u32, key: &str, id: u32) -> HashMap<Box<str>, u32> {
        let steps = self.nodes[parent as usize]
            .children
            .iter()
            .filter_map(|&c| match &self.nodes.get(c as usize)?.step {
                Some(Step::Key(k)) => Some((k.clone(), c)),
                _ => None,
            });
        steps.chain([(key.into(), id)]).collect()
    }

    /// The counts and hashes a walk collected, added (for a part not merged into a total).
    fn settle(&mut self) {
        self.flush();
        for n in &mut self.nodes {
            let hashes = std::mem::take(&mut n.hashes);
            n.distinct.merge_hashes(hashes);
        }
    }

    /// One [`PathStats`] per path, in output order: depth first, each path after its parent,
    /// siblings in the order first seen, the `[]` child before the keys.
    pub fn finish(mut self) -> Vec<PathStats> {
        self.settle();
        self.order()
            .into_iter()
            .map(|id| {
                let n = &self.nodes[id as usize];
                let (mut count, exact) = n.distinct.count();
                if !exact {
                    // What is known for sure bounds the estimate: more values than the exact
                    // limit were seen, and a path not under an array has at most one value a
                    // line (the lines where it is a boolean, a number or a string).
                    count = count.max(distinct::EXACT_LIMIT as u64 + 1);
                    if !n.in_array {
                        count = count.min(n.types[1] + n.types[2] + n.types[3]);
                    }
                }
                PathStats {
                    path: self.name(id),
                    steps: self.steps(id).into_iter().cloned().collect(),
                    lines: n.lines,
                    non_null: n.lines - n.only_null,
                    types: n.types,
                    distinct: n.scalars.then_some(DistinctCount { count, exact }),
                    example: n.example.as_deref().map(str::to_string),
                }
            })
            .collect()
    }

    /// Fold a later part in: its new paths come after those already known (under their
    /// parents), its counts are added, its distinct values joined; an example already
    /// known stays.
    pub fn merge(&mut self, mut other: Paths) {
        other.flush();
        self.lines += other.lines;
        // Their node i is our node map[i]; parents come before children, so a parent's
        // mapping is known when its children are reached.
        let mut map = Vec::with_capacity(other.nodes.len());
        for (i, theirs) in other.nodes.into_iter().enumerate() {
            let ours = match &theirs.step {
                None => 0,
                Some(Step::Elem) => self.elem_child(map[theirs.parent as usize]),
                Some(Step::Key(k)) => self.key_child(map[theirs.parent as usize], k),
            };
            debug_assert!(i == 0 || theirs.parent < i as u32);
            map.push(ours);
            let n = &mut self.nodes[ours as usize];
            n.lines += theirs.lines;
            n.only_null += theirs.only_null;
            for (a, b) in n.types.iter_mut().zip(theirs.types) {
                *a += b;
            }
            n.distinct.merge(theirs.distinct);
            n.distinct.merge_hashes(theirs.hashes);
            n.scalars |= theirs.scalars;
            if n.example.is_none() {
                n.example = theirs.example;
            }
        }
    }

    /// The paths in output order: depth first, each after its parent, children in the
    /// order first seen, the `[]` child before the keys (the root itself left out).
    pub(crate) fn order(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![0u32];
        while let Some(id) = stack.pop() {
            if id != 0 {
                out.push(id);
            }
            let n = &self.nodes[id as usize];
            stack.extend(n.children.iter().rev());
            stack.extend(n.elem);
        }
        out
    }

    /// The steps from the root to node `id`.
    fn steps(&self, id: u32) -> Vec<&Step> {
        let mut steps = Vec::new();
        let mut at = id;
        while at != 0 {
            let n = &self.nodes[at as usize];
            steps.extend(n.step.as_ref());
            at = n.parent;
        }
        steps.reverse();
        steps
    }

    /// The query syntax that reaches node `id`: `a.b`, `a[]`, `Headers['User-Agent']`.
    pub(crate) fn name(&self, id: u32) -> String {
        let mut out = String::new();
        for step in self.steps(id) {
            match step {
                Step::Elem => out.push_str("[]"),
                Step::Key(k) if is_identifier(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Step::Key(k) => {
                    out.push_str("['");
                    out.push_str(&k.replace('\'', "''"));
                    out.push_str("']");
                }
            }
        }
        out
    }
}

/// Words a bare name cannot be (the query language's reserved words, and the literals),
/// compared without case.
const RESERVED: &[&str] = &[
    "select", "distinct", "from", "where", "group", "having", "order", "limit", "offset", "and",
    "or", "case", "when", "then", "else", "end", "null", "true", "false", "not", "in", "is",
    "like", "between", "by", "asc", "desc", "as", "filter",
];

/// Whether `key` can be written bare in a path: `[A-Za-z_@$][A-Za-z0-9_@$]*`, and not a
/// word the query language reads otherwise.
pub fn is_identifier(key: &str) -> bool {
    let mut bytes = key.bytes();
    let head = |b: u8| b.is_ascii_alphabetic() || matches!(b, b'_' | b'@' | b'$');
    bytes.next().is_some_and(head)
        && bytes.all(|b| head(b) || b.is_ascii_digit())
        && !RESERVED.iter().any(|r| r.eq_ignore_ascii_case(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndq_scan::{Parser, Scanner};

    fn walk(lines: &[&str]) -> Paths {
        let mut parser = Parser::new(Scanner::scalar());
        let mut paths = Paths::default();
        for l in lines {
            let doc = parser.parse(l.as_bytes()).unwrap();
            paths.line(doc.root());
        }
        paths.settle();
        paths
    }

    fn table(p: &Paths) -> Vec<(String, u64, [u64; 6])> {
        p.order()
            .into_iter()
            .map(|id| {
                let n = &p.nodes[id as usize];
                (p.name(id), n.lines, n.types)
            })
            .collect()
    }

    #[test]
    fn names_quote_what_a_bare_name_cannot_say() {
        let p = walk(&[
            r#"{"a":{"User-Agent":1,"ok_1":2,"it's":3,"order":4,"Null":5,"":6,"1x":7},"t":[[1]]}"#,
        ]);
        let names: Vec<String> = p.order().into_iter().map(|i| p.name(i)).collect();
        assert_eq!(
            names,
            [
                "a",
                "a['User-Agent']",
                "a.ok_1",
                "a['it''s']",
                "a['order']",
                "a['Null']",
                "a['']",
                "a['1x']",
                "t",
                "t[]",
                "t[][]"
            ]
        );
        assert!(is_identifier("@t") && is_identifier("$type") && is_identifier("_id"));
    }

    #[test]
    fn an_estimate_stays_within_what_is_known() {
        // Just past the exact limit (where the sketch alone says about 9,940 for 10,001 of these
        // values, and past 10,050 for 10,050 of them): more than the limit, at most one value
        // a line.
        for n in [crate::EXACT_LIMIT + 1, crate::EXACT_LIMIT + 50, 10_300] {
            let lines: Vec<String> = (1..=n).map(|i| format!(r#"{{"id":"u{i}"}}"#)).collect();
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let stats = walk(&lines).finish();
            let d = stats[0].distinct.unwrap();
            assert!(!d.exact);
            assert!(
                d.count > crate::EXACT_LIMIT as u64 && d.count <= n as u64,
                "{n}: {d:?}"
            );
        }
    }

    #[test]
    fn a_key_repeated_in_an_array_element_counts_once() {
        let p = walk(&[
            r#"{"l":[{"k":1,"k":{"q":1}},{"k":2}]}"#,
            r#"{"l":[{"k":3,"k":4}],"m":{"k":5,"k":6}}"#,
        ]);
        let t = table(&p);
        let names: Vec<&str> = t.iter().map(|r| r.0.as_str()).collect();
        // The second `k` of an element is not read: no `l[].k.q`, no object type.
        assert_eq!(names, ["l", "l[]", "l[].k", "m", "m.k"]);
        let get = |name: &str| t.iter().find(|r| r.0 == name).unwrap().clone();
        assert_eq!(get("l[].k"), ("l[].k".into(), 2, [0, 0, 2, 0, 0, 0]));
        let stats = p.finish();
        let distinct = |name: &str| {
            let s = stats.iter().find(|s| s.path == name).unwrap();
            s.distinct.map(|d| d.count)
        };
        // 1, 2 and 3 (not 4), and 5 (not 6).
        assert_eq!((distinct("l[].k"), distinct("m.k")), (Some(3), Some(1)));
    }

    #[test]
    fn lines_and_types_per_path() {
        let p = walk(&[
            r#"{"a":1,"b":{"c":null},"arr":[{"x":1},{"x":"s"},{"x":2}]}"#,
            r#"{"a":"one","a":2,"b":"text","arr":[]}"#,
            r#"{"arr":[{"y":true}],"n":{}}"#,
        ]);
        assert_eq!(p.lines, 3);
        let t = table(&p);
        let get = |name: &str| t.iter().find(|r| r.0 == name).unwrap().clone();
        // The first "a" counts, the repeated one does not.
        assert_eq!(get("a"), ("a".into(), 2, [0, 0, 1, 1, 0, 0]));
        assert_eq!(get("b"), ("b".into(), 2, [0, 0, 0, 1, 0, 1]));
        assert_eq!(get("b.c"), ("b.c".into(), 1, [1, 0, 0, 0, 0, 0]));
        assert_eq!(get("arr"), ("arr".into(), 3, [0, 0, 0, 0, 3, 0]));
        // Lines with at least one element; each type once per line.
        assert_eq!(get("arr[]"), ("arr[]".into(), 2, [0, 0, 0, 0, 0, 2]));
        assert_eq!(get("arr[].x"), ("arr[].x".into(), 1, [0, 0, 1, 1, 0, 0]));
        assert_eq!(get("arr[].y"), ("arr[].y".into(), 1, [0, 1, 0, 0, 0, 0]));
        assert_eq!(get("n"), ("n".into(), 1, [0, 0, 0, 0, 0, 1]));
        let names: Vec<&str> = t.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(
            names,
            ["a", "b", "b.c", "arr", "arr[]", "arr[].x", "arr[].y", "n"]
        );
        let x = &p.nodes[p.order()[5] as usize];
        assert_eq!(x.distinct.count(), (3, true));
        assert_eq!(x.example.as_deref(), Some("1"));
    }

    #[test]
    fn lines_without_a_value_but_null_are_told_apart() {
        let p = walk(&[
            r#"{"a":null,"e":[null,1,null]}"#,
            r#"{"a":1,"e":[null]}"#,
            r#"{"a":null,"e":[2,null]}"#,
            r#"{"e":[]}"#,
        ]);
        let stats = p.finish();
        let non_null = |name: &str| {
            let s = stats.iter().find(|s| s.path == name).unwrap();
            (s.lines, s.non_null)
        };
        assert_eq!(non_null("a"), (3, 1));
        // Under an array: the lines where some element is not null.
        assert_eq!(non_null("e[]"), (3, 2));
        assert_eq!(non_null("e"), (4, 4));
    }

    #[test]
    fn merged_parts_equal_one_walk() {
        let lines = [
            r#"{"a":1,"b":{"c":"x"}}"#,
            r#"{"z":[1,2],"b":{"d":"\u00e9","c":"y"}}"#,
            r#"{"a":"é","b":{"c":"x","d":"é"},"q":null}"#,
            r#"{"q":3}"#,
        ];
        let whole = walk(&lines);
        for cut in 0..=lines.len() {
            let mut total = walk(&lines[..cut]);
            total.merge(walk(&lines[cut..]));
            assert_eq!(table(&total), table(&whole), "cut at {cut}");
            for (a, b) in total.order().into_iter().zip(whole.order()) {
                let (a, b) = (&total.nodes[a as usize], &whole.nodes[b as usize]);
                assert_eq!(a.example, b.example);
                assert_eq!(a.distinct.count(), b.distinct.count());
            }
        }
        // "\u00e9" and "é" are one value; the example is the first as written.
        let d = whole.order()[3];
        assert_eq!(whole.name(d), "b.d");
        let d = &whole.nodes[d as usize];
        assert_eq!(d.distinct.count(), (1, true));
        assert_eq!(d.example.as_deref(), Some(r#""\u00e9""#));
    }
}
