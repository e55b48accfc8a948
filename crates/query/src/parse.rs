//! The parser: tokens → a typed AST ([`Query`]) where every node keeps its source span.
//!
//! Recursive descent, one function per binding level of the language reference's operator table (loosest
//! first): `or` → `and` → `not` → comparison → `||` → `+ -` → `* / %` → unary `-` → primary.
//! `||` sits where PostgreSQL puts it: tighter than comparisons, looser than `+ -`
//! (`'a' || 1 + 2` is `'a3'`, `x || 'b' = 'ab'` compares the concatenation).
//! Comparisons do not chain (`a < b < c` is an error). Every "expected X, found Y" message comes
//! from an [`Expect`] variant; each variant's doc names a query that triggers it, and the tests
//! check exactly those queries.

use std::cmp::Ordering;

use crate::error::QueryError;
use crate::lex::{Tok, Token, lex};

/// A byte range in the query. Two spans always compare equal, so `==` on AST nodes compares
/// what was written, not where (`group by @l` matches `select @l`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

/// A whole query.
#[derive(Debug)]
pub(crate) struct Query {
    /// `None` for no select or `select *`.
    pub select: Option<Vec<Item>>,
    /// Span of `distinct` in `select distinct`, if written.
    pub distinct: Option<Span>,
    /// Span of `*` in `select *`, if written.
    pub star: Option<Span>,
    pub from: Option<(String, Span)>,
    pub filter: Option<Expr>,
    pub group_by: Vec<Expr>,
    /// `having EXPR`, and the span of the word `having`.
    pub having: Option<(Expr, Span)>,
    pub order_by: Vec<(Expr, bool)>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
}

/// `EXPR [as NAME]`.
#[derive(Debug)]
pub(crate) struct Item {
    pub expr: Expr,
    pub alias: Option<String>,
}

/// An expression and its span.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// One step of a property path.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// `||`
    Concat,
}

impl BinOp {
    /// Whether a comparison operator holds for operands that compare as `o` (`<=` holds for
    /// `Less` and `Equal`). Only the comparison operators are asked; any other reads as `>=`.
    pub(crate) fn holds(self, o: Ordering) -> bool {
        match self {
            BinOp::Eq => o == Ordering::Equal,
            BinOp::Ne => o != Ordering::Equal,
            BinOp::Lt => o == Ordering::Less,
            BinOp::Le => o != Ordering::Greater,
            BinOp::Gt => o == Ordering::Greater,
            _ => o != Ordering::Less,
        }
    }
}

/// Expression forms.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ExprKind {
    Null,
    Bool(bool),
    /// A number literal's text (a leading `-` folded in).
    Number(String),
    /// A duration literal in nanoseconds (a leading `-` folded in).
    Duration(i128),
    Str(String),
    /// A property path; the first step is always a key.
    Path(Vec<Seg>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
        ci: bool,
    },
    In {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    /// A call; `name` lowercased. `name_span` is the name alone.
    Call {
        name: String,
        name_span: Span,
        args: Vec<Expr>,
    },
    /// `*` as the argument of `count(*)`.
    Star,
    /// `case [subject] when A then V ... [else E] end`.
    Case {
        subject: Option<Box<Expr>>,
        arms: Vec<(Expr, Expr)>,
        default: Option<Box<Expr>>,
    },
    /// A path with one wildcard (`Tags[?]`, `Cart[*].Qty`): `segs[..at]` leads to the array,
    /// whose every element `segs[at..]` goes on from; `every` for `[*]`, else `[?]`. `wild`
    /// is where the wildcard is written (`[?]`), for errors. Only a side of a condition.
    Wild {
        segs: Vec<Seg>,
        at: usize,
        every: bool,
        wild: Span,
    },
    /// `x [not] in PATH` (no parentheses): whether the array at `PATH` holds `x`; `array` is
    /// a path as written.
    Member {
        expr: Box<Expr>,
        array: Box<Expr>,
        negated: bool,
    },
    /// `AGG(...) filter (where C)`: `call` as written, `kw` the span of `filter`.
    Filter {
        call: Box<Expr>,
        cond: Box<Expr>,
        kw: Span,
    },
}

/// The match behind [`Expr::children`] and [`Expr::children_mut`], written once so the two
/// cannot disagree about which fields of a node are expressions: `$kind` is `&self.kind` or
/// `&mut self.kind`, and the three methods name the shared or the mutable form of a
/// collection's iterator, an optional box's contents, and a box's contents.
macro_rules! children_of {
    ($kind:expr, $iter:ident, $as_deref:ident, $unbox:path) => {
        match $kind {
            ExprKind::Null
            | ExprKind::Bool(_)
            | ExprKind::Number(_)
            | ExprKind::Str(_)
            | ExprKind::Duration(_)
            | ExprKind::Path(_)
            | ExprKind::Wild { .. }
            | ExprKind::Star => Vec::new(),
            ExprKind::Neg(a) | ExprKind::Not(a) => vec![$unbox(a)],
            ExprKind::Bin(_, a, b) => vec![$unbox(a), $unbox(b)],
            ExprKind::Like { expr, pattern, .. } => vec![$unbox(expr), $unbox(pattern)],
            ExprKind::In { expr, list, .. } => {
                std::iter::once($unbox(expr)).chain(list.$iter()).collect()
            }
            ExprKind::IsNull { expr, .. } => vec![$unbox(expr)],
            ExprKind::Call { args, .. } => args.$iter().collect(),
            ExprKind::Member { expr, array, .. } => vec![$unbox(expr), $unbox(array)],
            ExprKind::Filter { call, cond, .. } => vec![$unbox(call), $unbox(cond)],
            ExprKind::Case {
                subject,
                arms,
                default,
            } => subject
                .$as_deref()
                .into_iter()
                .chain(arms.$iter().flat_map(|(c, v)| [c, v]))
                .chain(default.$as_deref())
                .collect(),
        }
    };
}

impl Expr {
    /// The expressions directly inside this one, left to right: the one place that knows the
    /// shape of every node, so the planner's walks (is there an aggregate, which one, replace
    /// aliases) cannot miss a kind of expression.
    pub fn children(&self) -> Vec<&Expr> {
        children_of!(&self.kind, iter, as_deref, Box::as_ref)
    }

    /// [`Expr::children`], to change them.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        children_of!(&mut self.kind, iter_mut, as_deref_mut, Box::as_mut)
    }
}

/// What the parser expected where it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// `select Message where Elapsed >`
    Expr,
    /// `select count(*`
    CloseParen,
    /// `select Tags[0`
    CloseBracket,
    /// `select Properties.`
    KeyAfterDot,
    /// `select Tags[x]`
    IndexOrKey,
    /// `select count(*) filter (x > 1)`
    FilterWhere,
    /// `select x group x`
    By,
    /// `select x from`
    Source,
    /// `select x as`
    Alias,
    /// `select x limit ten`
    LimitCount,
    /// `select x offset ten`
    OffsetCount,
    /// `select x y`
    Clause,
    /// `select g group by g where x`
    AfterGroupBy,
    /// `select x order by x from stream`
    AfterOrderBy,
    /// `select x order by x ascending`: the last key has no direction yet.
    AfterOrderKey,
    /// `where a in (1 2)`, `lower(a b)`: inside a list.
    CommaOrClose,
    /// `select count(*) having count(*) > 1 where x`
    AfterHaving,
    /// `select x where a b`
    LaterClause,
    /// `select x limit 1 2`
    AfterLimit,
    /// `select x offset 1 2`
    End,
    /// `where x in 1`
    ListOpen,
    /// `where x is 5`
    NullAfterIs,
    /// `where x not 5`
    AfterNot,
    /// `select a where a < b < c`
    NoChain,
    /// `select case a end`
    CaseWhen,
    /// `select case when a b end`
    CaseThen,
    /// `select case when a then b`
    CaseNext,
    /// `select case when a then b else c d`
    CaseEnd,
}

impl Expect {
    /// Human text for "expected ...".
    pub fn as_str(self) -> &'static str {
        match self {
            Expect::Expr => "an expression",
            Expect::CloseParen => "')'",
            Expect::CloseBracket => "']'",
            Expect::KeyAfterDot => "a property name after '.'",
            Expect::IndexOrKey => "an index, a quoted key, '?' or '*' inside '[ ]'",
            Expect::FilterWhere => "'where' after 'filter ('",
            Expect::By => "'by'",
            Expect::Source => "a source name ('stream')",
            Expect::Alias => "a column name after 'as'",
            Expect::LimitCount => "a whole number after 'limit'",
            Expect::OffsetCount => "a whole number after 'offset'",
            Expect::Clause => {
                "',' or the next clause (from, where, group by, having, order by, limit, offset)"
            }
            Expect::AfterGroupBy => "',' or the next clause (having, order by, limit, offset)",
            Expect::AfterOrderBy => "',', 'limit' or 'offset'",
            Expect::AfterOrderKey => "'asc', 'desc', ',', 'limit' or 'offset'",
            Expect::CommaOrClose => "',' or ')'",
            Expect::AfterHaving => {
                "the next clause (order by, limit, offset) or the end of the query"
            }
            Expect::LaterClause => "another clause or the end of the query",
            Expect::AfterLimit => "'offset' or the end of the query",
            Expect::End => "the end of the query",
            Expect::ListOpen => "'(' to open a list, or a property path, after 'in'",
            Expect::NullAfterIs => "'null' or 'not null' after 'is'",
            Expect::AfterNot => "'like', 'ilike' or 'in' after 'not'",
            Expect::NoChain => "the end of the comparison (comparisons do not chain: use 'and')",
            Expect::CaseWhen => "'when'",
            Expect::CaseThen => "'then'",
            Expect::CaseNext => "'when', 'else' or 'end'",
            Expect::CaseEnd => "'end' to close 'case'",
        }
    }
}

/// Words that start a clause or join conditions: never a property name where an expression
/// is expected (write `['order']` for such a key).
const RESERVED: &[&str] = &[
    "select", "distinct", "from", "where", "group", "having", "order", "limit", "offset", "and",
    "or", "case", "when", "then", "else", "end",
];

/// The clauses, in the order a query gives them.
const CLAUSE_ORDER: [&str; 8] = [
    "select", "from", "where", "group by", "having", "order by", "limit", "offset",
];

/// What a word found where a clause (or the end) was expected was probably meant as, from
/// other query languages and typing: ` (did you mean 'where'?)`. `prev` and `next`: the
/// words before and after; `expect`: what was expected, which says which clauses may still
/// come (`None` for an `expect` that is not between clauses).
fn clause_hint(word: &str, prev: Option<&str>, next: &str, expect: Expect) -> Option<String> {
    let first = match expect {
        // The query's first word: any clause may come, `select` too.
        _ if prev.is_none() => 0,
        Expect::Clause => 1,
        Expect::LaterClause => 2,
        Expect::AfterGroupBy => 4,
        Expect::AfterHaving => 5,
        Expect::AfterOrderBy | Expect::AfterOrderKey => 6,
        Expect::AfterLimit => 7,
        Expect::End => CLAUSE_ORDER.len(),
        _ => return None,
    };
    // Each clause by its first word (`group`, `order`).
    let clauses = CLAUSE_ORDER[first..]
        .iter()
        .filter_map(|c| c.split(' ').next());
    let in_order_by = matches!(expect, Expect::AfterOrderBy | Expect::AfterOrderKey);
    let lower = word.to_ascii_lowercase();
    let prev = prev.map(str::to_ascii_lowercase);
    Some(match lower.as_str() {
        f @ ("contains" | "startswith" | "endswith" | "match") => {
            format!(" ({f} is a function: {f}(Message, 'text'))")
        }
        "between" => " (ndq has no between: write x >= a and x <= b)".to_owned(),
        "by" => " (did you mean group by or order by?)".to_owned(),
        "asc" | "desc" if !in_order_by => format!(" ({lower} comes after an order by key)"),
        "asc" | "desc" => return None,
        _ if prev.as_deref() == Some("top") && lower.bytes().all(|b| b.is_ascii_digit()) => {
            format!(" (the number of rows is given last: limit {lower})")
        }
        _ if lower.len() >= 3 => {
            // One edit for a word of four letters or fewer, two for a longer one; `group`
            // and `order` only before `by` (`select x orders` more likely lacks a comma).
            let most = if lower.len() <= 4 { 1 } else { 2 };
            let by = next.eq_ignore_ascii_case("by");
            let (d, kw) = clauses
                .filter(|kw| by || !matches!(*kw, "group" | "order"))
                .map(|kw| (crate::func::edit_distance(&lower, kw), kw))
                .min_by_key(|(d, _)| *d)?;
            if d == 0 || d > most {
                return None;
            }
            format!(" (did you mean '{kw}'?)")
        }
        _ => return None,
    })
}

/// How deeply expressions may nest (parentheses, `not`, unary `-`, calls): deeper queries
/// are refused rather than risking the stack.
const MAX_DEPTH: usize = 64;

struct Parser<'q> {
    q: &'q str,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
}

/// `items` joined by `op` as a balanced tree (the left half one larger: `a op b op c` is
/// `(a op b) op c`, as written), each node spanning its items' text.
fn balanced(op: BinOp, mut items: Vec<Expr>) -> Expr {
    if items.len() == 1 {
        return items.remove(0);
    }
    let right = items.split_off(items.len().div_ceil(2));
    let (l, r) = (balanced(op, items), balanced(op, right));
    let span = Span {
        start: l.span.start,
        end: r.span.end,
    };
    Expr {
        kind: ExprKind::Bin(op, Box::new(l), Box::new(r)),
        span,
    }
}

/// Parse a whole query.
pub(crate) fn parse(q: &str) -> Result<Query, QueryError> {
    let toks = lex(q)?;
    let mut p = Parser {
        q,
        toks,
        pos: 0,
        depth: 0,
    };
    p.query()
}

impl<'q> Parser<'q> {
    fn peek(&self) -> &Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }
    fn peek_at(&self, n: usize) -> &Token {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)]
    }
    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn text(&self, t: &Token) -> &'q str {
        &self.q[t.start..t.end]
    }
    /// Whether the next token is the keyword `kw`.
    fn is_kw(&self, kw: &str) -> bool {
        let t = self.peek();
        t.tok == Tok::Ident && self.text(t).eq_ignore_ascii_case(kw)
    }
    fn eat_kw(&mut self, kw: &str) -> bool {
        let yes = self.is_kw(kw);
        if yes {
            self.bump();
        }
        yes
    }
    fn eat(&mut self, tok: &Tok) -> bool {
        let yes = &self.peek().tok == tok;
        if yes {
            self.bump();
        }
        yes
    }
    fn prev_text(&self) -> Option<&'q str> {
        (self.pos > 0).then(|| self.text(&self.toks[self.pos - 1]))
    }

    /// `expected X[ after 'prev'], found Y` at the next token.
    fn fail<T>(&self, expect: Expect) -> Result<T, QueryError> {
        let t = self.peek();
        let found = match &t.tok {
            Tok::Eof => "the end of the query".to_owned(),
            _ => token_name(self.text(t)),
        };
        let after = match (expect, self.prev_text()) {
            (Expect::Expr, Some(p)) => format!(" after {}", token_name(p)),
            _ => String::new(),
        };
        let mut msg = format!("expected {}{after}, found {found}", expect.as_str());
        let next = self.text(self.peek_at(1));
        if let Some(hint) = clause_hint(self.text(t), self.prev_text(), next, expect) {
            msg.push_str(&hint);
        }
        if expect == Expect::Expr && t.tok == Tok::Ident {
            // A reserved word where a value was expected: maybe it names a property.
            let word = self.text(t);
            msg.push_str(&format!(
                " (a property named '{word}' is written ['{word}'])"
            ));
        }
        Err(QueryError::new(self.q, t.start, t.end, msg))
    }

    fn expect(&mut self, tok: Tok, e: Expect) -> Result<Token, QueryError> {
        if self.peek().tok == tok {
            Ok(self.bump())
        } else {
            self.fail(e)
        }
    }

    fn query(&mut self) -> Result<Query, QueryError> {
        let mut query = Query {
            select: None,
            star: None,
            from: None,
            filter: None,
            group_by: Vec::new(),
            having: None,
            order_by: Vec::new(),
            limit: None,
            offset: None,
            distinct: None,
        };
        let had_select = self.eat_kw("select");
        if had_select {
            if self.is_kw("distinct") {
                let t = self.bump();
                query.distinct = Some(Span {
                    start: t.start,
                    end: t.end,
                });
            }
            if self.peek().tok == Tok::Star {
                let t = self.bump();
                query.star = Some(Span {
                    start: t.start,
                    end: t.end,
                });
                if self.peek().tok == Tok::Comma {
                    let c = self.peek();
                    return Err(QueryError::new(
                        self.q,
                        c.start,
                        c.end,
                        "select * writes whole lines and cannot be combined with other items",
                    ));
                }
            } else {
                let mut items = vec![self.item()?];
                while self.eat(&Tok::Comma) {
                    items.push(self.item()?);
                }
                query.select = Some(items);
            }
        }
        // What may follow the last clause: a list continues with ',' (select, group by,
        // order by); `limit N` ends the query.
        let mut expect = Expect::Clause;
        if query.select.is_none() {
            expect = Expect::LaterClause;
        }
        if self.eat_kw("from") {
            let t = self.peek().clone();
            if t.tok == Tok::Eof {
                return self.fail(Expect::Source);
            }
            self.bump();
            // The source is the run of tokens written without a space between them, so
            // that a file name (`from app.ndjson`, `from logs/app.log`) is reported as the
            // unknown source it is, not as a stray '.' after a source `app`. A ',' or ')'
            // ends it (`from stream,` is the source `stream`, then a stray ',').
            let mut end = t.end;
            while !matches!(self.peek().tok, Tok::Eof | Tok::Comma | Tok::RParen)
                && self.peek().start == end
            {
                end = self.bump().end;
            }
            let text = &self.q[t.start..end];
            let name = match &t.tok {
                Tok::Str(value) if end == t.end => value.as_str(),
                _ => text,
            };
            let span = Span {
                start: t.start,
                end,
            };
            query.from = Some((name.to_owned(), span));
        }
        if query.from.is_some() {
            expect = Expect::LaterClause;
        }
        if self.eat_kw("where") {
            query.filter = Some(self.expr()?);
            expect = Expect::LaterClause;
        }
        if self.eat_kw("group") {
            if !self.eat_kw("by") {
                return self.fail(Expect::By);
            }
            query.group_by.push(self.expr()?);
            while self.eat(&Tok::Comma) {
                query.group_by.push(self.expr()?);
            }
            expect = Expect::AfterGroupBy;
        }
        if self.is_kw("having") {
            let t = self.bump();
            let span = Span {
                start: t.start,
                end: t.end,
            };
            query.having = Some((self.expr()?, span));
            expect = Expect::AfterHaving;
        }
        if self.eat_kw("order") {
            if !self.eat_kw("by") {
                return self.fail(Expect::By);
            }
            loop {
                let e = self.expr()?;
                let desc = if self.eat_kw("desc") {
                    expect = Expect::AfterOrderBy;
                    true
                } else {
                    expect = if self.eat_kw("asc") {
                        Expect::AfterOrderBy
                    } else {
                        Expect::AfterOrderKey
                    };
                    false
                };
                query.order_by.push((e, desc));
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        if self.eat_kw("limit") {
            query.limit = Some(self.count("limit", Expect::LimitCount)?);
            expect = Expect::AfterLimit;
        }
        if self.eat_kw("offset") {
            query.offset = Some(self.count("offset", Expect::OffsetCount)?);
            expect = Expect::End;
        }
        if self.peek().tok != Tok::Eof {
            self.misplaced_clause(&query, had_select)?;
            return self.fail(expect);
        }
        Ok(query)
    }

    /// A clause's word where the query should end or continue: out of order (`offset 5
    /// limit 2`) or given twice (`where a where b`), said as such.
    fn misplaced_clause(&self, query: &Query, had_select: bool) -> Result<(), QueryError> {
        let t = self.peek();
        let word = self.text(t).to_ascii_lowercase();
        let Some(rank) = CLAUSE_ORDER
            .iter()
            .position(|c| c.split(' ').next() == Some(word.as_str()))
        else {
            return Ok(());
        };
        let present = [
            had_select,
            query.from.is_some(),
            query.filter.is_some(),
            !query.group_by.is_empty(),
            query.having.is_some(),
            !query.order_by.is_empty(),
            query.limit.is_some(),
            query.offset.is_some(),
        ];
        let clause = CLAUSE_ORDER[rank];
        let msg = if present[rank] {
            match clause {
                "where" => "a query has one where clause: join its conditions with and".to_owned(),
                "having" => {
                    "a query has one having clause: join its conditions with and".to_owned()
                }
                _ => format!("a query has one {clause} clause"),
            }
        } else {
            let Some(later) = (rank + 1..CLAUSE_ORDER.len()).find(|&i| present[i]) else {
                return Ok(());
            };
            format!(
                "{clause} comes before {} (the clauses go in the order {})",
                CLAUSE_ORDER[later],
                CLAUSE_ORDER.join(", ")
            )
        };
        Err(QueryError::new(self.q, t.start, t.end, msg))
    }

    /// The whole number after `limit` or `offset` (the word `clause`).
    fn count(&mut self, clause: &str, e: Expect) -> Result<u64, QueryError> {
        let t = self.peek().clone();
        let n = match t.tok {
            Tok::Number => self.text(&t).parse::<u64>().ok(),
            _ => None,
        };
        // A whole number that does not fit: say so, rather than "expected a whole number".
        if n.is_none() && t.tok == Tok::Number && self.text(&t).bytes().all(|b| b.is_ascii_digit())
        {
            return Err(QueryError::new(
                self.q,
                t.start,
                t.end,
                format!(
                    "{clause} {} is too large (at most {})",
                    self.text(&t),
                    u64::MAX
                ),
            ));
        }
        let Some(n) = n else {
            return self.fail(e);
        };
        self.bump();
        Ok(n)
    }

    fn item(&mut self) -> Result<Item, QueryError> {
        let expr = self.expr()?;
        let alias = if self.eat_kw("as") {
            let t = self.peek().clone();
            match t.tok {
                Tok::Ident => {
                    self.bump();
                    Some(self.text(&t).to_owned())
                }
                Tok::Str(s) => {
                    self.bump();
                    Some(s)
                }
                _ => return self.fail(Expect::Alias),
            }
        } else {
            None
        };
        Ok(Item { expr, alias })
    }

    fn span_from(&self, start: usize) -> Span {
        let end = self.toks[self.pos.saturating_sub(1)].end.max(start);
        Span { start, end }
    }

    pub(crate) fn expr(&mut self) -> Result<Expr, QueryError> {
        self.nested(|p| p.binary_level(0))
    }

    /// Run `f` one nesting level deeper, failing past [`MAX_DEPTH`].
    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, QueryError>,
    ) -> Result<T, QueryError> {
        self.deeper()?;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// SQL's `count(distinct x)`: point at `count_distinct(x)` instead of failing on `x`.
    /// (`count(distinct)` alone still counts a property named `distinct`.)
    fn no_count_distinct(&self) -> Result<(), QueryError> {
        let t = self.peek();
        if t.tok == Tok::Ident
            && self.text(t).eq_ignore_ascii_case("distinct")
            && matches!(
                self.peek_at(1).tok,
                Tok::Ident | Tok::LBracket | Tok::LParen
            )
        {
            return Err(QueryError::new(
                self.q,
                t.start,
                t.end,
                "count(distinct x) is written count_distinct(x)",
            ));
        }
        Ok(())
    }

    #[cold]
    fn too_deep(&self) -> QueryError {
        let t = self.peek();
        QueryError::new(
            self.q,
            t.start,
            t.end,
            format!(
                "the query nests more than {MAX_DEPTH} levels deep here (each parenthesis, \
                 'not', call, 'case' and link of a '+ - * / % ||' chain is one level)"
            ),
        )
    }

    /// Levels 0 (`or`) and 1 (`and`): chains over the next level. Both operators are
    /// associative in three-valued logic, so a chain becomes a balanced tree (`a or b or c
    /// or d` is `(a or b) or (c or d)`): a thousand alternatives nest ten levels deep, not a
    /// thousand, so evaluating and dropping the tree cannot exhaust the stack.
    fn binary_level(&mut self, level: u8) -> Result<Expr, QueryError> {
        let (kw, op) = if level == 0 {
            ("or", BinOp::Or)
        } else {
            ("and", BinOp::And)
        };
        let next = |p: &mut Self| {
            if level == 0 {
                p.binary_level(1)
            } else {
                p.not()
            }
        };
        let start = self.peek().start;
        let mut items = vec![next(self)?];
        while self.eat_kw(kw) {
            items.push(next(self)?);
        }
        if items.len() == 1 {
            return Ok(items.remove(0));
        }
        let mut e = balanced(op, items);
        // From the chain's first token, as the text of a column is taken from it.
        e.span = self.span_from(start);
        Ok(e)
    }

    /// One level deeper (a parenthesis, `not`, a call, a link of a `+ - * / %` chain),
    /// failing past [`MAX_DEPTH`]; the caller takes it back off `depth`. The whole expression
    /// is level 0 here, so 64 levels written are accepted.
    fn deeper(&mut self) -> Result<(), QueryError> {
        if self.depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        self.depth += 1;
        Ok(())
    }

    fn not(&mut self) -> Result<Expr, QueryError> {
        let start = self.peek().start;
        if self.eat_kw("not") {
            let inner = self.nested(|p| p.not())?;
            return Ok(Expr {
                kind: ExprKind::Not(Box::new(inner)),
                span: self.span_from(start),
            });
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, QueryError> {
        let start = self.peek().start;
        let lhs = self.concat()?;
        let op = match self.peek().tok {
            Tok::Eq => Some(BinOp::Eq),
            Tok::Ne => Some(BinOp::Ne),
            Tok::Lt => Some(BinOp::Lt),
            Tok::Le => Some(BinOp::Le),
            Tok::Gt => Some(BinOp::Gt),
            Tok::Ge => Some(BinOp::Ge),
            _ => None,
        };
        let kind = if let Some(op) = op {
            self.bump();
            let rhs = self.concat()?;
            ExprKind::Bin(op, Box::new(lhs), Box::new(rhs))
        } else if self.is_kw("is") {
            self.bump();
            let negated = self.eat_kw("not");
            if !self.eat_kw("null") {
                return self.fail(Expect::NullAfterIs);
            }
            ExprKind::IsNull {
                expr: Box::new(lhs),
                negated,
            }
        } else {
            // `[not] like|ilike|in`
            let negated = self.is_kw("not")
                && matches!(self.peek_at(1).tok, Tok::Ident)
                && ["like", "ilike", "in"]
                    .iter()
                    .any(|k| self.text(self.peek_at(1)).eq_ignore_ascii_case(k));
            if self.is_kw("not") && !negated {
                self.bump();
                return self.fail(Expect::AfterNot);
            }
            if negated {
                self.bump();
            }
            if self.is_kw("like") || self.is_kw("ilike") {
                let ci = self.is_kw("ilike");
                self.bump();
                let pattern = self.concat()?;
                ExprKind::Like {
                    expr: Box::new(lhs),
                    pattern: Box::new(pattern),
                    negated,
                    ci,
                }
            } else if self.eat_kw("in") {
                if let Some(array) = self.array_path()? {
                    ExprKind::Member {
                        expr: Box::new(lhs),
                        array: Box::new(array),
                        negated,
                    }
                } else {
                    self.expect(Tok::LParen, Expect::ListOpen)?;
                    let mut list = vec![self.expr()?];
                    while self.eat(&Tok::Comma) {
                        list.push(self.expr()?);
                    }
                    self.expect(Tok::RParen, Expect::CommaOrClose)?;
                    ExprKind::In {
                        expr: Box::new(lhs),
                        list,
                        negated,
                    }
                }
            } else {
                return Ok(lhs);
            }
        };
        let e = Expr {
            kind,
            span: self.span_from(start),
        };
        if matches!(
            self.peek().tok,
            Tok::Eq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge
        ) || self.is_kw("like")
            || self.is_kw("ilike")
            || self.is_kw("in")
            || self.is_kw("is")
        {
            if let ExprKind::Bin(_, _, rhs) = &e.kind
                && matches!(rhs.kind, ExprKind::Bin(BinOp::Concat, ..))
            {
                // `a = 1 || b = 2`: `||` is SQL's concatenation, meant as "or".
                let t = self.peek();
                return Err(QueryError::new(
                    self.q,
                    t.start,
                    t.end,
                    format!(
                        "expected the end of the comparison, found {} ('||' joins texts: for \
                         either condition, write 'or')",
                        token_name(self.text(t))
                    ),
                ));
            }
            return self.fail(Expect::NoChain);
        }
        Ok(e)
    }

    /// `a || b || c`: left-associative, between comparisons and `+ -` (as in PostgreSQL).
    fn concat(&mut self) -> Result<Expr, QueryError> {
        self.left_chain(Self::additive, |t| {
            (*t == Tok::Concat).then_some(BinOp::Concat)
        })
    }

    /// `case [subject] when A then V ... [else E] end`, the `case` keyword next.
    fn case(&mut self, start: usize) -> Result<Expr, QueryError> {
        self.bump();
        let subject = if self.is_kw("when") {
            None
        } else {
            Some(Box::new(self.expr()?))
        };
        if !self.is_kw("when") {
            return self.fail(Expect::CaseWhen);
        }
        let mut arms = Vec::new();
        while self.eat_kw("when") {
            let when = self.expr()?;
            if !self.eat_kw("then") {
                return self.fail(Expect::CaseThen);
            }
            arms.push((when, self.expr()?));
        }
        let default = if self.eat_kw("else") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        if !self.eat_kw("end") {
            return self.fail(if default.is_some() {
                Expect::CaseEnd
            } else {
                Expect::CaseNext
            });
        }
        Ok(Expr {
            kind: ExprKind::Case {
                subject,
                arms,
                default,
            },
            span: self.span_from(start),
        })
    }

    fn additive(&mut self) -> Result<Expr, QueryError> {
        self.left_chain(Self::multiplicative, |t| match t {
            Tok::Plus => Some(BinOp::Add),
            Tok::Minus => Some(BinOp::Sub),
            _ => None,
        })
    }

    fn multiplicative(&mut self) -> Result<Expr, QueryError> {
        self.left_chain(Self::unary, |t| match t {
            Tok::Star => Some(BinOp::Mul),
            Tok::Slash => Some(BinOp::Div),
            Tok::Percent => Some(BinOp::Rem),
            _ => None,
        })
    }

    /// A left-associative chain of `next` joined by the operators `op` knows: left-deep, so
    /// each link nests one level deeper and counts against [`MAX_DEPTH`] until the chain ends.
    fn left_chain(
        &mut self,
        next: fn(&mut Self) -> Result<Expr, QueryError>,
        op: fn(&Tok) -> Option<BinOp>,
    ) -> Result<Expr, QueryError> {
        let start = self.peek().start;
        let mut lhs = next(self)?;
        let mut links = 0;
        while let Some(op) = op(&self.peek().tok) {
            self.deeper()?;
            links += 1;
            self.bump();
            let rhs = next(self)?;
            lhs = Expr {
                kind: ExprKind::Bin(op, Box::new(lhs), Box::new(rhs)),
                span: self.span_from(start),
            };
        }
        self.depth -= links;
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, QueryError> {
        let start = self.peek().start;
        if self.eat(&Tok::Minus) {
            let inner = self.nested(|p| p.unary())?;
            let span = self.span_from(start);
            let kind = match inner.kind {
                ExprKind::Number(n) if !n.starts_with('-') => ExprKind::Number(format!("-{n}")),
                ExprKind::Duration(n) => ExprKind::Duration(-n),
                other => ExprKind::Neg(Box::new(Expr {
                    kind: other,
                    span: inner.span,
                })),
            };
            return Ok(Expr { kind, span });
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, QueryError> {
        let t = self.peek().clone();
        let start = t.start;
        let kind = match &t.tok {
            Tok::Number => {
                self.bump();
                ExprKind::Number(self.text(&t).to_owned())
            }
            Tok::Duration(n) => {
                self.bump();
                ExprKind::Duration(*n)
            }
            Tok::Str(s) => {
                self.bump();
                ExprKind::Str(s.clone())
            }
            Tok::LParen => {
                self.bump();
                let inner = self.expr()?;
                self.expect(Tok::RParen, Expect::CloseParen)?;
                // Keep the parentheses in the span (column names are the text as written).
                return Ok(Expr {
                    kind: inner.kind,
                    span: self.span_from(start),
                });
            }
            Tok::LBracket => return self.path(start, Vec::new()),
            Tok::Ident => {
                let word = self.text(&t);
                let lower = word.to_ascii_lowercase();
                if lower == "case" {
                    // One level, as a call: each of its parts is an `expr`, one level deeper.
                    return self.case(start);
                }
                if RESERVED.contains(&lower.as_str()) {
                    return self.fail(Expect::Expr);
                }
                self.bump();
                match lower.as_str() {
                    "null" => ExprKind::Null,
                    "true" => ExprKind::Bool(true),
                    "false" => ExprKind::Bool(false),
                    _ if self.peek().tok == Tok::LParen => {
                        self.bump();
                        let mut args = Vec::new();
                        if !self.eat(&Tok::RParen) {
                            loop {
                                if self.peek().tok == Tok::Star {
                                    let s = self.bump();
                                    args.push(Expr {
                                        kind: ExprKind::Star,
                                        span: Span {
                                            start: s.start,
                                            end: s.end,
                                        },
                                    });
                                } else {
                                    if lower == "count" && args.is_empty() {
                                        self.no_count_distinct()?;
                                    }
                                    args.push(self.expr()?);
                                }
                                if !self.eat(&Tok::Comma) {
                                    break;
                                }
                            }
                            // After `*` (`count(*`) nothing else may come.
                            let star = args.last().is_some_and(|a| a.kind == ExprKind::Star);
                            let expect = if star {
                                Expect::CloseParen
                            } else {
                                Expect::CommaOrClose
                            };
                            self.expect(Tok::RParen, expect)?;
                        }
                        let call = ExprKind::Call {
                            name: lower,
                            name_span: Span {
                                start: t.start,
                                end: t.end,
                            },
                            args,
                        };
                        if self.is_kw("filter") && self.peek_at(1).tok == Tok::LParen {
                            return self.filter(start, call);
                        }
                        call
                    }
                    _ => return self.path(start, vec![Seg::Key(word.to_owned())]),
                }
            }
            _ => return self.fail(Expect::Expr),
        };
        Ok(Expr {
            kind,
            span: self.span_from(start),
        })
    }

    /// `AGG(...) filter (where C)`, `filter` next: the call `call` (from `start`) and its
    /// condition.
    fn filter(&mut self, start: usize, call: ExprKind) -> Result<Expr, QueryError> {
        let call = Expr {
            kind: call,
            span: self.span_from(start),
        };
        let kw = self.bump();
        self.bump();
        if !self.eat_kw("where") {
            return self.fail(Expect::FilterWhere);
        }
        let cond = self.expr()?;
        self.expect(Tok::RParen, Expect::CloseParen)?;
        Ok(Expr {
            kind: ExprKind::Filter {
                call: Box::new(call),
                cond: Box::new(cond),
                kw: Span {
                    start: kw.start,
                    end: kw.end,
                },
            },
            span: self.span_from(start),
        })
    }

    /// After `in`: the path of `x in PATH`, when one is written (a name that is not a
    /// keyword, a literal or a call, or a quoted key); `None` when something else follows
    /// (`(` opens a list).
    fn array_path(&mut self) -> Result<Option<Expr>, QueryError> {
        let t = self.peek().clone();
        match t.tok {
            Tok::LBracket => self.path(t.start, Vec::new()).map(Some),
            Tok::Ident if self.peek_at(1).tok != Tok::LParen => {
                let word = self.text(&t);
                let lower = word.to_ascii_lowercase();
                if RESERVED.contains(&lower.as_str())
                    || ["null", "true", "false", "not"].contains(&lower.as_str())
                {
                    return Ok(None);
                }
                self.bump();
                self.path(t.start, vec![Seg::Key(word.to_owned())])
                    .map(Some)
            }
            _ => Ok(None),
        }
    }

    /// The rest of a path: `.name`, `[n]`, `['key']` steps, and at most one wildcard, `[?]`
    /// or `[*]`.
    fn path(&mut self, start: usize, mut segs: Vec<Seg>) -> Result<Expr, QueryError> {
        // (position in `segs`, `[*]`, span)
        let mut wild: Option<(usize, bool, Span)> = None;
        loop {
            if self.eat(&Tok::Dot) {
                let t = self.peek().clone();
                if t.tok != Tok::Ident {
                    return self.fail(Expect::KeyAfterDot);
                }
                self.bump();
                segs.push(Seg::Key(self.text(&t).to_owned()));
            } else if self.peek().tok == Tok::LBracket {
                let open = self.bump();
                let t = self.peek().clone();
                if matches!(t.tok, Tok::Question | Tok::Star) {
                    self.bump();
                    self.expect(Tok::RBracket, Expect::CloseBracket)?;
                    let span = self.span_from(open.start);
                    if wild.is_some() {
                        return Err(QueryError::new(
                            self.q,
                            span.start,
                            span.end,
                            "a path holds at most one wildcard ([?] or [*]); give the other \
                             array an index ([0])",
                        ));
                    }
                    wild = Some((segs.len(), t.tok == Tok::Star, span));
                    continue;
                }
                match &t.tok {
                    Tok::Str(s) => segs.push(Seg::Key(s.clone())),
                    Tok::Number => {
                        let digits = self.text(&t);
                        match digits.parse::<usize>() {
                            Ok(i) => segs.push(Seg::Index(i)),
                            // An index past any array (a null, as out of range), not an error.
                            Err(_) if digits.bytes().all(|b| b.is_ascii_digit()) => {
                                segs.push(Seg::Index(usize::MAX))
                            }
                            Err(_) => return self.fail(Expect::IndexOrKey),
                        }
                    }
                    // `a[]` is how `ndq keys` names an array's elements: say what reaches them.
                    Tok::RBracket => {
                        let p = &self.q[start..open.start];
                        let msg = format!(
                            "'{p}[]' (as ndq keys writes an array's elements) is not a path: \
                             write {p}[?] for some element or {p}[*] for every element in a \
                             condition (as in {p}[?] is not null), or {p}[0] for the first"
                        );
                        return Err(QueryError::new(self.q, open.start, t.end, msg));
                    }
                    _ => return self.fail(Expect::IndexOrKey),
                }
                self.bump();
                self.expect(Tok::RBracket, Expect::CloseBracket)?;
            } else {
                break;
            }
        }
        if !matches!(segs.first(), Some(Seg::Key(_))) || wild.is_some_and(|w| w.0 == 0) {
            // `[0]` alone: the root is an object, so an index cannot start a path.
            return Err(QueryError::new(
                self.q,
                start,
                self.span_from(start).end,
                "a path starts with a property name or a quoted key, not an index",
            ));
        }
        let kind = match wild {
            Some((at, every, wild)) => ExprKind::Wild {
                segs,
                at,
                every,
                wild,
            },
            None => ExprKind::Path(segs),
        };
        Ok(Expr {
            kind,
            span: self.span_from(start),
        })
    }
}

/// A token as an error message names it: quoted (`'limit'`), or for a string literal, which
/// has its quotes, `the text 'a'` (not `''a''`).
fn token_name(text: &str) -> String {
    if text.starts_with('\'') {
        format!("the text {text}")
    } else {
        format!("'{text}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(q: &str) -> String {
        parse(q).unwrap_err().message().to_owned()
    }

    /// `a[]`, as `ndq keys` lists an array's elements, is pointed to the forms that reach them.
    #[test]
    fn empty_brackets_name_the_paths_that_reach_array_elements() {
        let e = parse("select count(Properties.Cart[].Qty)").unwrap_err();
        assert_eq!(
            e.message(),
            "'Properties.Cart[]' (as ndq keys writes an array's elements) is not a path: write \
             Properties.Cart[?] for some element or Properties.Cart[*] for every element in a \
             condition (as in Properties.Cart[?] is not null), or Properties.Cart[0] for the \
             first"
        );
        assert!(
            e.to_string().contains("                            ^^"),
            "{e}"
        );
        assert!(parse("select count(*) where Properties.Cart[?].Qty is not null").is_ok());
    }

    /// A clause out of order or given twice is named as such, caret on its word.
    #[test]
    fn misplaced_clauses_are_named() {
        const ORDER: &str = "(the clauses go in the order select, from, where, group by, having, \
                             order by, limit, offset)";
        for (q, want) in [
            (
                "select x offset 1 limit 2",
                format!("limit comes before offset {ORDER}"),
            ),
            (
                "select x limit 1 where x > 1",
                format!("where comes before limit {ORDER}"),
            ),
            (
                "where x > 1 select x",
                format!("select comes before where {ORDER}"),
            ),
            (
                "select count(*) order by 1 group by x",
                format!("group by comes before order by {ORDER}"),
            ),
            (
                "select x where a = 1 where b = 2",
                "a query has one where clause: join its conditions with and".to_owned(),
            ),
            (
                "select x limit 1 limit 2",
                "a query has one limit clause".to_owned(),
            ),
            (
                "select x from stream from stream",
                "a query has one from clause".to_owned(),
            ),
        ] {
            let e = parse(q).unwrap_err();
            assert_eq!(e.message(), want, "{q}");
            // The caret is under the last clause word, the misplaced one.
            let word = &q[e.span()];
            assert_eq!(e.span().start, q.rfind(word).unwrap(), "{q}");
            assert!(
                want.starts_with(word) || want.contains(&format!(" {word} ")),
                "{q}"
            );
        }
        // Not a clause word: the plain message.
        assert_eq!(
            err("select x limit 1 y"),
            "expected 'offset' or the end of the query, found 'y'"
        );
    }

    /// Each `Expect` variant, triggered by the query named in its doc comment.
    #[test]
    fn every_expect_variant_message() {
        let cases: &[(&str, &str)] = &[
            (
                "select Message where Elapsed >",
                "expected an expression after '>', found the end of the query",
            ),
            ("select count(*", "expected ')', found the end of the query"),
            ("select lower(a b)", "expected ',' or ')', found 'b'"),
            ("where a in (1 2)", "expected ',' or ')', found '2'"),
            (
                "select a order by a ascending",
                "expected 'asc', 'desc', ',', 'limit' or 'offset', found 'ascending'",
            ),
            ("select Tags[0", "expected ']', found the end of the query"),
            (
                "select Properties.",
                "expected a property name after '.', found the end of the query",
            ),
            (
                "select Tags[x]",
                "expected an index, a quoted key, '?' or '*' inside '[ ]', found 'x'",
            ),
            (
                "select count(*) filter (x > 1)",
                "expected 'where' after 'filter (', found 'x'",
            ),
            ("select x group x", "expected 'by', found 'x'"),
            (
                "select x from",
                "expected a source name ('stream'), found the end of the query",
            ),
            (
                "select x as",
                "expected a column name after 'as', found the end of the query",
            ),
            (
                "select x limit ten",
                "expected a whole number after 'limit', found 'ten'",
            ),
            (
                "select x limit 99999999999999999999999",
                "limit 99999999999999999999999 is too large (at most 18446744073709551615)",
            ),
            (
                "select x limit 1.5",
                "expected a whole number after 'limit', found '1.5'",
            ),
            (
                "select x offset 'a'",
                "expected a whole number after 'offset', found the text 'a'",
            ),
            (
                "select x offset ten",
                "expected a whole number after 'offset', found 'ten'",
            ),
            (
                "select x offset 99999999999999999999999",
                "offset 99999999999999999999999 is too large (at most 18446744073709551615)",
            ),
            (
                "select g group by g where g = 1",
                "where comes before group by (the clauses go in the order select, from, where, \
                 group by, having, order by, limit, offset)",
            ),
            (
                "select x order by x from stream",
                "from comes before order by (the clauses go in the order select, from, where, \
                 group by, having, order by, limit, offset)",
            ),
            (
                "select x order by x asc desc",
                "expected ',', 'limit' or 'offset', found 'desc'",
            ),
            (
                "select x y",
                "expected ',' or the next clause (from, where, group by, having, order by, limit, offset), found 'y'",
            ),
            (
                "select count(*) having count(*) > 1 where x",
                "where comes before having (the clauses go in the order select, from, where, \
                 group by, having, order by, limit, offset)",
            ),
            (
                "select x where a b",
                "expected another clause or the end of the query, found 'b'",
            ),
            // Words from other languages, and clause names mistyped, get what was meant.
            (
                "select count(*) were Elapsed > 1",
                "expected ',' or the next clause (from, where, group by, having, order by, \
                 limit, offset), found 'were' (did you mean 'where'?)",
            ),
            (
                "select @l grop by @l",
                "expected ',' or the next clause (from, where, group by, having, order by, \
                 limit, offset), found 'grop' (did you mean 'group'?)",
            ),
            (
                "select x form stream",
                "expected ',' or the next clause (from, where, group by, having, order by, \
                 limit, offset), found 'form' (did you mean 'from'?)",
            ),
            (
                "selct count(*) where a = 1",
                "expected another clause or the end of the query, found 'selct' (did you mean \
                 'select'?)",
            ),
            (
                "select x order by x Limt 5",
                "expected 'asc', 'desc', ',', 'limit' or 'offset', found 'Limt' (did you mean 'limit'?)",
            ),
            (
                "select x where Message Contains 'x'",
                "expected another clause or the end of the query, found 'Contains' \
                 (contains is a function: contains(Message, 'text'))",
            ),
            (
                "select x where s between 1 and 2",
                "expected another clause or the end of the query, found 'between' \
                 (ndq has no between: write x >= a and x <= b)",
            ),
            (
                "select avg(x) by k",
                "expected ',' or the next clause (from, where, group by, having, order by, \
                 limit, offset), found 'by' (did you mean group by or order by?)",
            ),
            (
                "select top 5 x",
                "expected ',' or the next clause (from, where, group by, having, order by, \
                 limit, offset), found '5' (the number of rows is given last: limit 5)",
            ),
            (
                "select x desc",
                "expected ',' or the next clause (from, where, group by, having, order by, \
                 limit, offset), found 'desc' (desc comes after an order by key)",
            ),
            (
                "select x where a bb",
                "expected another clause or the end of the query, found 'bb'",
            ),
            (
                "select x where a message",
                "expected another clause or the end of the query, found 'message'",
            ),
            // Not a clause where none may come, nor a property that looks like one.
            (
                "select x where a orr b",
                "expected another clause or the end of the query, found 'orr'",
            ),
            (
                "select x orders",
                "expected ',' or the next clause (from, where, group by, having, order by, \
                 limit, offset), found 'orders'",
            ),
            (
                "select x limit 5 wher",
                "expected 'offset' or the end of the query, found 'wher'",
            ),
            (
                "select x where a = 1 form",
                "expected another clause or the end of the query, found 'form'",
            ),
            (
                "select x limit 1 2",
                "expected 'offset' or the end of the query, found '2'",
            ),
            (
                "select x offset 1 2",
                "expected the end of the query, found '2'",
            ),
            (
                "select x offset 1 2",
                "expected the end of the query, found '2'",
            ),
            (
                "where x in 1",
                "expected '(' to open a list, or a property path, after 'in', found '1'",
            ),
            (
                "where x is 5",
                "expected 'null' or 'not null' after 'is', found '5'",
            ),
            (
                "where x not 5",
                "expected 'like', 'ilike' or 'in' after 'not', found '5'",
            ),
            (
                "select a where a < b < c",
                "expected the end of the comparison (comparisons do not chain: use 'and'), found '<'",
            ),
            (
                "where a = 1 || b = 2",
                "expected the end of the comparison, found '=' ('||' joins texts: for either \
                 condition, write 'or')",
            ),
            (
                "where a = 1 && b = 2",
                "unexpected '&&': for both conditions, write 'and'",
            ),
            (
                "where a = 1 & b = 2",
                "unexpected '&': for both conditions, write 'and'",
            ),
            ("select case a end", "expected 'when', found 'end'"),
            ("select case when a b end", "expected 'then', found 'b'"),
            (
                "select case when a then b",
                "expected 'when', 'else' or 'end', found the end of the query",
            ),
            (
                "select case when a then b else c d",
                "expected 'end' to close 'case', found 'd'",
            ),
        ];
        for (q, msg) in cases {
            assert_eq!(&err(q), msg, "query: {q}");
        }
    }

    #[test]
    fn error_column_points_at_found_token() {
        let e = parse("select Message where Elapsed >").unwrap_err();
        assert_eq!(e.column(), 31);
        let e = parse("select x where where").unwrap_err();
        assert_eq!(
            e.message(),
            "expected an expression after 'where', found 'where' (a property named 'where' is written ['where'])"
        );
        assert_eq!(e.column(), 16);
    }

    #[test]
    fn precedence() {
        let q = parse("where not a = 1 or b + 2 * 3 > 4 and c").unwrap();
        let ExprKind::Bin(BinOp::Or, l, r) = q.filter.unwrap().kind else {
            panic!()
        };
        assert!(matches!(l.kind, ExprKind::Not(_)));
        let ExprKind::Bin(BinOp::And, cmp, _) = r.kind else {
            panic!()
        };
        let ExprKind::Bin(BinOp::Gt, sum, _) = cmp.kind else {
            panic!()
        };
        let ExprKind::Bin(BinOp::Add, _, prod) = sum.kind else {
            panic!()
        };
        assert!(matches!(prod.kind, ExprKind::Bin(BinOp::Mul, _, _)));
    }

    #[test]
    fn concat_binds_between_comparison_and_plus() {
        // `a || b + 1 = c || d` is `(a || (b + 1)) = (c || d)`.
        let q = parse("where a || b + 1 = c || d || e").unwrap();
        let ExprKind::Bin(BinOp::Eq, l, r) = q.filter.unwrap().kind else {
            panic!("not a comparison")
        };
        let ExprKind::Bin(BinOp::Concat, _, sum) = l.kind else {
            panic!("not a concatenation")
        };
        assert!(matches!(sum.kind, ExprKind::Bin(BinOp::Add, ..)));
        // Left-associative.
        let ExprKind::Bin(BinOp::Concat, cd, e) = r.kind else {
            panic!("not a concatenation")
        };
        assert!(matches!(cd.kind, ExprKind::Bin(BinOp::Concat, ..)));
        assert!(matches!(e.kind, ExprKind::Path(_)));
        // A like pattern may be a concatenation.
        let q = parse("where a like b || '%'").unwrap();
        let ExprKind::Like { pattern, .. } = q.filter.unwrap().kind else {
            panic!("not like")
        };
        assert!(matches!(pattern.kind, ExprKind::Bin(BinOp::Concat, ..)));
    }

    #[test]
    fn case_forms_and_their_spans() {
        let q =
            parse("select case when a then 1 when b then 2 else 3 end, case x when 1 then 2 end")
                .unwrap();
        let items = q.select.unwrap();
        let ExprKind::Case {
            subject: None,
            arms,
            default: Some(_),
        } = &items[0].expr.kind
        else {
            panic!("searched case")
        };
        assert_eq!(arms.len(), 2);
        assert_eq!((items[0].expr.span.start, items[0].expr.span.end), (7, 50));
        assert!(matches!(
            &items[1].expr.kind,
            ExprKind::Case {
                subject: Some(_),
                default: None,
                ..
            }
        ));
        // Deep nesting of case is refused like other nesting.
        let deep = format!(
            "select {}1{}",
            "case when true then ".repeat(100),
            " end".repeat(100)
        );
        assert!(err(&deep).starts_with("the query nests more than 64 levels deep"));
        // A `case` is one level, as `if` (a call) is: the same depth of each is accepted.
        let cases = |n: usize| {
            format!(
                "select {}1{}",
                "case when true then ".repeat(n),
                " end".repeat(n)
            )
        };
        let ifs = |n: usize| format!("select {}1{}", "if(true, ".repeat(n), ", 0)".repeat(n));
        for n in [60, 64] {
            assert!(parse(&cases(n)).is_ok(), "{n} cases");
            assert!(parse(&ifs(n)).is_ok(), "{n} ifs");
        }
        assert!(err(&cases(65)).starts_with("the query nests more than 64 levels deep"));
        assert!(err(&ifs(65)).starts_with("the query nests more than 64 levels deep"));
        // `||` chains count as `+` chains do, and the message says so.
        let concat = format!("select 'a'{}", " || 'a'".repeat(70));
        assert!(err(&concat).contains("'+ - * / % ||' chain is one level"));
    }

    #[test]
    fn paths() {
        let q =
            parse("select Properties.User.Name, Tags[0], Headers['User-Agent'], ['a\\b']").unwrap();
        let kinds: Vec<_> = q.select.unwrap().into_iter().map(|i| i.expr.kind).collect();
        assert_eq!(
            kinds,
            vec![
                ExprKind::Path(vec![
                    Seg::Key("Properties".into()),
                    Seg::Key("User".into()),
                    Seg::Key("Name".into())
                ]),
                ExprKind::Path(vec![Seg::Key("Tags".into()), Seg::Index(0)]),
                ExprKind::Path(vec![
                    Seg::Key("Headers".into()),
                    Seg::Key("User-Agent".into())
                ]),
                ExprKind::Path(vec![Seg::Key("a\\b".into())]),
            ]
        );
    }

    #[test]
    fn keywords_case_insensitive_and_spans() {
        let q = parse("SELECT COUNT(*) FROM Stream WHERE x IS NOT NULL ORDER BY y DESC LIMIT 3")
            .unwrap();
        let items = q.select.unwrap();
        assert_eq!(items[0].expr.span.start, 7);
        assert_eq!(items[0].expr.span.end, 15);
        assert!(matches!(
            q.filter.unwrap().kind,
            ExprKind::IsNull { negated: true, .. }
        ));
        assert!(q.order_by[0].1);
        assert_eq!(q.limit, Some(3));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        for q in [
            format!("where {}x{}", "(".repeat(100_000), ")".repeat(100_000)),
            format!("where {}x", "not ".repeat(100_000)),
            format!("select {}1", "- ".repeat(100_000)),
            format!(
                "select {}x{}",
                "lower(".repeat(100_000),
                ")".repeat(100_000)
            ),
        ] {
            assert!(err(&q).starts_with("the query nests more than 64 levels deep"));
        }
        assert!(parse(&format!("where {}x{}", "(".repeat(64), ")".repeat(64))).is_ok());
        assert!(
            err(&format!("where {}x{}", "(".repeat(65), ")".repeat(65)))
                .starts_with("the query nests more than 64 levels deep")
        );
    }

    #[test]
    fn long_and_or_chains_nest_logarithmically_arithmetic_chains_count() {
        let depth = |e: &Expr| -> usize {
            fn d(e: &Expr) -> usize {
                match &e.kind {
                    ExprKind::Bin(_, l, r) => 1 + d(l).max(d(r)),
                    _ => 1,
                }
            }
            d(e)
        };
        for op in ["or", "and"] {
            let terms: Vec<String> = (0..20_000).map(|i| format!("x = {i}")).collect();
            let q = parse(&format!("where {}", terms.join(&format!(" {op} ")))).unwrap();
            let w = q.filter.unwrap();
            assert!(depth(&w) <= 20, "{op}: depth {}", depth(&w));
        }
        // Three terms keep the left-associative shape as written.
        let q = parse("where a or b or c").unwrap();
        let ExprKind::Bin(BinOp::Or, l, r) = q.filter.unwrap().kind else {
            panic!("not an or");
        };
        assert!(matches!(l.kind, ExprKind::Bin(BinOp::Or, ..)));
        assert!(matches!(r.kind, ExprKind::Path(_)));
        // `+` chains are left-deep, so each link counts as a level.
        assert!(parse(&format!("select {}1", "1 + ".repeat(60))).is_ok());
        for q in [
            format!("select {}1", "1 + ".repeat(5_000)),
            format!("select {}1", "2 * ".repeat(5_000)),
            format!("select {}(1)", "1 - ".repeat(40) + &"- ".repeat(40)),
        ] {
            assert!(
                err(&q).starts_with("the query nests more than 64 levels deep"),
                "{q}"
            );
        }
    }

    #[test]
    fn count_distinct_the_sql_way_points_at_count_distinct() {
        let e = parse("select count(DISTINCT Message)").unwrap_err();
        assert_eq!(
            e.message(),
            "count(distinct x) is written count_distinct(x)"
        );
        assert_eq!(e.column(), 14);
        // `distinct` is a reserved word: a property of that name is written ['distinct'].
        assert_eq!(
            err("select count(distinct)"),
            "expected an expression after '(', found 'distinct' (a property named 'distinct' is written ['distinct'])"
        );
        assert!(parse("select count(['distinct'] + 1)").is_ok());
    }

    #[test]
    fn index_cannot_start_path() {
        assert_eq!(
            err("select [0]"),
            "a path starts with a property name or a quoted key, not an index"
        );
    }
}
