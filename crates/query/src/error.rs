//! Query errors for people: the message, the query line, and a caret under the offending part.
//!
//! Every error carries a byte span into the query text. [`QueryError::column`] turns the start
//! of that span into a 1-based column counted in characters of its line, and `Display` renders:
//!
//! ```text
//! expected an expression after '>', found the end of the query (column 31)
//!   select Message where Elapsed >
//!                                ^
//! ```
//!
//! A query written over several lines says `(line 2, column 7)` instead.
//!
//! Invariant: `start <= end <= query.len()` and both lie on char boundaries (the constructor
//! clamps them), so rendering never panics.

use std::fmt;

use unicode_width::UnicodeWidthStr;

/// A query that failed to parse or plan. `Display` renders the query, a caret under the
/// column and what was expected / found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryError {
    kind: ErrorKind,
    query: String,
    start: usize,
    end: usize,
    message: String,
}

/// What kind of mistake a [`QueryError`] reports (every kind is a usage error, exit 2).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text does not parse (including nesting too deep).
    Syntax,
    /// `from` names a source other than `stream`.
    UnknownSource,
    /// A function name nobody knows.
    UnknownFunction,
    /// Wrong number or form of arguments (`lower(a, b)`, `sum(*)`, `has('x')`, a percentile
    /// that is not a number literal in (0, 100]).
    Arguments,
    /// An aggregate where none may be (`where`, `group by`, inside another aggregate, a
    /// `select distinct` query), or `having` in a query that aggregates nothing.
    Aggregate,
    /// A select or order item that is neither grouped nor aggregated, `select *` in an
    /// aggregation, or an `order by` key of `select distinct` that is not a select item.
    GroupBy,
    /// `x = null` and friends.
    NullComparison,
    /// A literal regex that does not compile.
    Regex,
}

impl QueryError {
    /// An error about `query[start..end]`.
    pub(crate) fn new(query: &str, start: usize, end: usize, message: impl Into<String>) -> Self {
        let start = floor_boundary(query, start.min(query.len()));
        let end = floor_boundary(query, end.clamp(start, query.len()));
        QueryError {
            kind: ErrorKind::Syntax,
            query: query.to_owned(),
            start,
            end,
            message: message.into(),
        }
    }

    /// The same error, of kind `kind`.
    pub(crate) fn with_kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// What kind of mistake this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// 1-based line of the offending part (queries may span lines, as in a script).
    pub fn line(&self) -> usize {
        self.query[..self.start].matches('\n').count() + 1
    }

    /// 1-based column (in characters) of the offending part, within its line.
    pub fn column(&self) -> usize {
        let line_start = self.query[..self.start].rfind('\n').map_or(0, |i| i + 1);
        self.query[line_start..self.start].chars().count() + 1
    }

    /// What went wrong, without the query and caret (e.g. `unknown function 'sume' (did you
    /// mean 'sum'?)`).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Byte range of the offending part in the query.
    pub fn span(&self) -> std::ops::Range<usize> {
        self.start..self.end
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line_start = self.query[..self.start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.query[self.start..]
            .find('\n')
            .map_or(self.query.len(), |i| self.start + i);
        let line = &self.query[line_start..line_end];
        // Tabs and other control characters would shift the caret: show them as spaces.
        let shown: String = line
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let col = self.column();
        // The caret goes under the column on a terminal: wide characters (CJK, emoji) take
        // two cells and combining marks none.
        let indent = UnicodeWidthStr::width(&shown[..shown_offset(&shown, col - 1)]);
        let width = UnicodeWidthStr::width(&self.query[self.start..self.end.min(line_end)]).max(1);
        // The message quotes the query (`x\n  = null is never true`): on one line, a run of
        // white space with a line break or tab in it as one space, other control characters
        // as `?`.
        let message = one_line(&self.message);
        if self.query.contains('\n') {
            write!(f, "{message} (line {}, column {col})", self.line())?;
        } else {
            write!(f, "{message} (column {col})")?;
        }
        write!(
            f,
            "\n  {}\n  {}{}",
            shown.trim_end(),
            " ".repeat(indent),
            "^".repeat(width)
        )
    }
}

/// `text` on one line (see [`QueryError`]'s `Display`).
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() && (c.is_control() || chars.peek().is_some_and(|n| n.is_control())) {
            // A run of white space with a control character in it: one space.
            while chars.next_if(|n| n.is_whitespace()).is_some() {}
            out.push(' ');
        } else if c.is_control() {
            out.push('?');
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// The byte offset of character `n` of `s` (its length when `s` is shorter).
fn shown_offset(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

impl std::error::Error for QueryError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_under_wide_and_combining_characters() {
        // `日本` takes four terminal columns, `e` + U+0301 one: the caret counts columns,
        // the message counts characters.
        let q = "select '日本e\u{301}' frm";
        let at = q.find("frm").unwrap();
        let e = QueryError::new(q, at, at + 3, "unexpected");
        assert_eq!(e.column(), 15);
        assert_eq!(
            e.to_string(),
            format!("unexpected (column 15)\n  {q}\n  {}^^^", " ".repeat(15))
        );
    }

    #[test]
    fn caret_under_column() {
        let q = "select x where y >";
        let e = QueryError::new(q, 18, 18, "expected an expression after '>'");
        assert_eq!(e.column(), 19);
        assert_eq!(
            e.to_string(),
            "expected an expression after '>' (column 19)\n  select x where y >\n                    ^"
        );
    }

    #[test]
    fn caret_spans_token_and_counts_chars() {
        let q = "select 'é', sume(x)";
        let e = QueryError::new(q, 13, 17, "unknown function 'sume'");
        assert_eq!(e.column(), 13);
        assert!(
            e.to_string()
                .ends_with("\n  select 'é', sume(x)\n              ^^^^")
        );
    }

    #[test]
    fn multi_line_query_shows_its_line() {
        let q = "select x\nwhere ?";
        let e = QueryError::new(q, 15, 16, "unexpected character '?'");
        assert_eq!((e.line(), e.column()), (2, 7));
        assert_eq!(
            e.to_string(),
            "unexpected character '?' (line 2, column 7)\n  where ?\n        ^"
        );
    }

    /// A message quoting a piece of a query that spans lines stays on its one line.
    #[test]
    fn a_quoted_line_break_or_tab_is_one_space() {
        let q = "where x\n  = null";
        let e = QueryError::new(
            q,
            6,
            17,
            "x\n  = null is never true:\t write x is null\u{1b}",
        );
        assert_eq!(
            e.to_string(),
            "x = null is never true: write x is null? (line 1, column 7)\n  where x\n        ^"
        );
    }

    #[test]
    fn out_of_range_span_is_clamped() {
        let e = QueryError::new("é", 1, 99, "m");
        assert_eq!(e.span(), 0..2);
        assert_eq!(e.column(), 1);
    }
}
