//! The document trait: what the evaluator needs from a JSON value, so one engine runs over
//! ndq_scan's lazy documents and over `serde_json::Value` (the `--engine serde` baseline and
//! the differential tests).
//!
//! Invariants every implementation keeps:
//! - `get` compares keys after unescaping and returns the *first* member of that name
//!   (the language reference). `serde_json::Value` cannot: its parser keeps the *last* duplicate, so the
//!   serde engine differs from the lazy one on lines with duplicate keys (documented there).
//! - `view` gives a number's exact text (serde_json's `arbitrary_precision` is on in this
//!   workspace) and a string's value; `raw` gives exact JSON text for arrays and objects
//!   (serde: re-serialized, so key order and spacing may differ from the input).

use std::borrow::Cow;

/// What a JSON value is, as far as the evaluator looks.
#[derive(Clone, Debug, PartialEq)]
pub enum View<'a> {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number's text as written.
    Number(&'a str),
    /// A string: its value, and its raw text between the quotes when the document keeps it.
    String {
        /// The unescaped value.
        value: Cow<'a, str>,
        /// The text as written, escapes kept (lazy documents only).
        raw: Option<&'a str>,
    },
    /// An array.
    Array,
    /// An object.
    Object,
}

/// A handle to a JSON value inside one line's document.
pub trait Doc<'a>: Copy {
    /// The type of members and elements.
    type Node: Doc<'a, Node = Self::Node>;
    /// The first member named `key` (unescaped comparison); `None` when absent or when this is
    /// not an object.
    fn get(self, key: &str) -> Option<Self::Node>;
    /// [`Doc::get`] of a top-level key, `slot` being its position in the plan's key set
    /// ([`crate::Plan::key_set`]): a document that noted where those keys are answers without
    /// a search.
    fn top(self, key: &str, slot: usize) -> Option<Self::Node> {
        let _ = slot;
        self.get(key)
    }
    /// [`Doc::top`]'s value as [`Doc::number`] gives it: the text of a top-level number.
    fn top_number(self, key: &str, slot: usize) -> Option<&'a str> {
        self.top(key, slot).and_then(Doc::number)
    }
    /// [`Doc::top`]'s value as [`Doc::view`] gives it, when that value is not an array or
    /// object: `Some(None)` when the key is absent, `None` when the value is an array or
    /// object or the document cannot tell without [`Doc::top`] (the default). A group key
    /// or a function's argument read from a top-level property (`group by RequestPath`)
    /// takes this way, without making the node first.
    #[inline]
    fn top_scalar(self, key: &str, slot: usize) -> Option<Option<View<'a>>> {
        let _ = (key, slot);
        None
    }
    /// Element `i`; `None` when out of range or when this is not an array.
    fn index(self, i: usize) -> Option<Self::Node>;
    /// Pass the elements of this array to `f` in order, until `f` returns `false`; `false`
    /// when this is not an array. (The default walks [`Doc::index`]; documents that can
    /// walk their elements in one pass do.)
    fn each_element(self, mut f: impl FnMut(Self::Node) -> bool) -> bool {
        if !matches!(self.view(), View::Array) {
            return false;
        }
        let mut i = 0;
        while let Some(n) = self.index(i) {
            if !f(n) {
                break;
            }
            i += 1;
        }
        true
    }
    /// What this value is.
    fn view(self) -> View<'a>;
    /// The text of this value if it is a number ([`View::Number`]): what a sum reads, without
    /// the rest of [`Doc::view`] (a string's unescaping, say).
    fn number(self) -> Option<&'a str> {
        match self.view() {
            View::Number(raw) => Some(raw),
            _ => None,
        }
    }
    /// This value's JSON text.
    fn raw(self) -> Cow<'a, str>;
    /// For a line's root: what `select *` writes, the whole line as read (blanks around the
    /// object kept, the line terminator not). The default is [`Doc::raw`], for documents
    /// that do not know their line.
    fn line(self) -> Cow<'a, str> {
        self.raw()
    }
}

impl<'a> Doc<'a> for ndq_scan::Value<'a> {
    type Node = ndq_scan::Value<'a>;
    fn get(self, key: &str) -> Option<Self> {
        match self {
            ndq_scan::Value::Object(o) => o.get(key),
            _ => None,
        }
    }
    fn index(self, i: usize) -> Option<Self> {
        match self {
            ndq_scan::Value::Array(a) => a.get(i),
            _ => None,
        }
    }
    fn each_element(self, mut f: impl FnMut(Self) -> bool) -> bool {
        let ndq_scan::Value::Array(a) = self else {
            return false;
        };
        for n in a.iter() {
            if !f(n) {
                break;
            }
        }
        true
    }
    fn view(self) -> View<'a> {
        match self {
            ndq_scan::Value::Null => View::Null,
            ndq_scan::Value::Bool(b) => View::Bool(b),
            ndq_scan::Value::Number(n) => View::Number(n.raw()),
            ndq_scan::Value::String(s) => View::String {
                value: s.unescaped(),
                raw: Some(s.raw()),
            },
            ndq_scan::Value::Array(_) => View::Array,
            ndq_scan::Value::Object(_) => View::Object,
        }
    }
    #[inline]
    fn number(self) -> Option<&'a str> {
        match self {
            ndq_scan::Value::Number(n) => Some(n.raw()),
            _ => None,
        }
    }
    fn raw(self) -> Cow<'a, str> {
        Cow::Borrowed(ndq_scan::Value::raw(&self))
    }
}

/// A line scanned by ndq_scan with the plan's key set ([`crate::Plan::root`]): its top-level
/// keys are looked up where the scanner noted them ([`ndq_scan::Document::wanted`]), without
/// walking the members and comparing keys.
#[derive(Clone, Copy, Debug)]
pub struct Scanned<'a> {
    pub(crate) doc: ndq_scan::Document<'a>,
    pub(crate) keys: &'a ndq_scan::KeySet,
}

/// The root object's answers, except [`Doc::top`].
impl<'a> Doc<'a> for Scanned<'a> {
    type Node = ndq_scan::Value<'a>;
    fn get(self, key: &str) -> Option<ndq_scan::Value<'a>> {
        Doc::get(self.doc.root(), key)
    }
    #[inline]
    fn top(self, key: &str, slot: usize) -> Option<ndq_scan::Value<'a>> {
        match self.doc.wanted(self.keys, slot) {
            Some(found) => found,
            None => self.get(key),
        }
    }
    // Not the default (`top`, then `number`): matching the number inside `wanted`'s answer
    // spares `sum` a copy of the whole value (measured: the default costs `sum(Elapsed)`
    // 0.7% more instructions and 1.8% more time).
    #[inline]
    fn top_number(self, key: &str, slot: usize) -> Option<&'a str> {
        match self.doc.wanted(self.keys, slot) {
            Some(Some(ndq_scan::Value::Number(n))) => Some(n.raw()),
            Some(_) => None,
            None => self.get(key).and_then(Doc::number),
        }
    }
    #[inline]
    fn top_scalar(self, _key: &str, slot: usize) -> Option<Option<View<'a>>> {
        Some(match self.doc.wanted(self.keys, slot)? {
            None => None,
            Some(ndq_scan::Value::Null) => Some(View::Null),
            Some(ndq_scan::Value::Bool(b)) => Some(View::Bool(b)),
            Some(ndq_scan::Value::Number(n)) => Some(View::Number(n.raw())),
            Some(ndq_scan::Value::String(s)) => Some(View::String {
                value: s.unescaped(),
                raw: Some(s.raw()),
            }),
            Some(ndq_scan::Value::Array(_) | ndq_scan::Value::Object(_)) => return None,
        })
    }
    fn index(self, i: usize) -> Option<ndq_scan::Value<'a>> {
        Doc::index(self.doc.root(), i)
    }
    fn view(self) -> View<'a> {
        Doc::view(self.doc.root())
    }
    fn raw(self) -> Cow<'a, str> {
        Doc::raw(self.doc.root())
    }
    fn line(self) -> Cow<'a, str> {
        Cow::Borrowed(self.doc.text())
    }
}

impl<'a> Doc<'a> for ndq_scan::Object<'a> {
    type Node = ndq_scan::Value<'a>;
    fn get(self, key: &str) -> Option<ndq_scan::Value<'a>> {
        ndq_scan::Object::get(&self, key)
    }
    fn index(self, _: usize) -> Option<ndq_scan::Value<'a>> {
        None
    }
    fn view(self) -> View<'a> {
        View::Object
    }
    fn raw(self) -> Cow<'a, str> {
        Cow::Borrowed(ndq_scan::Object::raw(&self))
    }
}

impl<'a> Doc<'a> for &'a serde_json::Value {
    type Node = &'a serde_json::Value;
    fn get(self, key: &str) -> Option<Self> {
        self.as_object()?.get(key)
    }
    fn index(self, i: usize) -> Option<Self> {
        self.as_array()?.get(i)
    }
    fn each_element(self, mut f: impl FnMut(Self) -> bool) -> bool {
        let Some(a) = self.as_array() else {
            return false;
        };
        for n in a {
            if !f(n) {
                break;
            }
        }
        true
    }
    fn view(self) -> View<'a> {
        match self {
            serde_json::Value::Null => View::Null,
            serde_json::Value::Bool(b) => View::Bool(*b),
            serde_json::Value::Number(n) => View::Number(n.as_str()),
            serde_json::Value::String(s) => View::String {
                value: Cow::Borrowed(s),
                raw: None,
            },
            serde_json::Value::Array(_) => View::Array,
            serde_json::Value::Object(_) => View::Object,
        }
    }
    fn raw(self) -> Cow<'a, str> {
        Cow::Owned(self.to_string())
    }
}

/// A document with nothing in it: evaluates expressions that read no property (finishing
/// groups from their keys and aggregates).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NoDoc;

impl<'a> Doc<'a> for NoDoc {
    type Node = NoDoc;
    fn get(self, _: &str) -> Option<NoDoc> {
        None
    }
    fn index(self, _: usize) -> Option<NoDoc> {
        None
    }
    fn view(self) -> View<'a> {
        View::Null
    }
    fn raw(self) -> Cow<'a, str> {
        Cow::Borrowed("null")
    }
}
