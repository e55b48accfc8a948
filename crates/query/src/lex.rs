//! The lexer: query text → tokens with byte spans.
//!
//! Keywords are not tokens of their own: they lex as [`Tok::Ident`] and the parser compares
//! them case-insensitively, so `SELECT`, `Select` and `select` are one keyword and a property
//! may still be named after a keyword where the grammar allows it (`Properties.Order`).
//! Invariant: every token's `start..end` lies on char boundaries of the query.

use crate::error::QueryError;
use crate::time;

/// A token kind.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// `[A-Za-z_@$][A-Za-z0-9_@$]*`
    Ident,
    /// A number literal (its text is the token's span).
    Number,
    /// A duration literal, a number followed at once by a unit (`500ms`, `1.5h`): its
    /// length in nanoseconds.
    Duration(i128),
    /// A single-quoted string; the value with `''` made `'`.
    Str(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Dot,
    Star,
    /// `?`, only in a path's wildcard `[?]`.
    Question,
    Plus,
    Minus,
    Slash,
    Percent,
    /// `=` or `==`
    Eq,
    /// `<>` or `!=`
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `||` (concatenation)
    Concat,
    /// The end of the query.
    Eof,
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

fn ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || matches!(b, b'_' | b'@' | b'$')
}

fn ident_continue(b: u8) -> bool {
    ident_start(b) || b.is_ascii_digit()
}

/// Split `q` into tokens, ending with [`Tok::Eof`].
pub(crate) fn lex(q: &str) -> Result<Vec<Token>, QueryError> {
    let b = q.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // `--` starts a comment to the end of the line, as in SQL (so `x -- note` is `x`,
        // not `x - (-note)`; a double minus is written `- -x` or `-(-x)`).
        if c == b'-' && b.get(i + 1) == Some(&b'-') {
            i = q[i..].find('\n').map_or(b.len(), |n| i + n);
            continue;
        }
        let start = i;
        let tok = if ident_start(c) {
            while i < b.len() && ident_continue(b[i]) {
                i += 1;
            }
            Tok::Ident
        } else if c.is_ascii_digit() {
            i = number_end(q, i)?;
            if b.get(i).is_some_and(|&c| ident_start(c)) {
                let unit_start = i;
                while i < b.len() && ident_continue(b[i]) {
                    i += 1;
                }
                Tok::Duration(duration(q, start, unit_start, i)?)
            } else {
                Tok::Number
            }
        } else if c == b'\'' {
            let mut value = String::new();
            i += 1;
            loop {
                let Some(rel) = q[i..].find('\'') else {
                    return Err(QueryError::new(
                        q,
                        start,
                        start + 1,
                        "this string has no closing quote (write '' for a quote inside a string)",
                    ));
                };
                value.push_str(&q[i..i + rel]);
                i += rel + 1;
                if b.get(i) == Some(&b'\'') {
                    value.push('\'');
                    i += 1;
                } else {
                    break;
                }
            }
            Tok::Str(value)
        } else {
            let two = b.get(i + 1).copied();
            let (tok, len) = match (c, two) {
                (b'=', Some(b'=')) => (Tok::Eq, 2),
                (b'<', Some(b'>')) | (b'!', Some(b'=')) => (Tok::Ne, 2),
                (b'<', Some(b'=')) => (Tok::Le, 2),
                (b'>', Some(b'=')) => (Tok::Ge, 2),
                (b'|', Some(b'|')) => (Tok::Concat, 2),
                (b'=', _) => (Tok::Eq, 1),
                (b'<', _) => (Tok::Lt, 1),
                (b'>', _) => (Tok::Gt, 1),
                (b'(', _) => (Tok::LParen, 1),
                (b')', _) => (Tok::RParen, 1),
                (b'[', _) => (Tok::LBracket, 1),
                (b']', _) => (Tok::RBracket, 1),
                (b',', _) => (Tok::Comma, 1),
                (b'.', _) => (Tok::Dot, 1),
                (b'*', _) => (Tok::Star, 1),
                (b'?', _) => (Tok::Question, 1),
                (b'+', _) => (Tok::Plus, 1),
                (b'-', _) => (Tok::Minus, 1),
                (b'/', _) => (Tok::Slash, 1),
                (b'%', _) => (Tok::Percent, 1),
                (b'|', _) => {
                    return Err(QueryError::new(
                        q,
                        start,
                        start + 1,
                        "'|' alone is not an operator ('||' concatenates)",
                    ));
                }
                (b'&', _) => {
                    let and = if q.as_bytes().get(start + 1) == Some(&b'&') {
                        2
                    } else {
                        1
                    };
                    return Err(QueryError::new(
                        q,
                        start,
                        start + and,
                        format!(
                            "unexpected '{}': for both conditions, write 'and'",
                            &q[start..start + and]
                        ),
                    ));
                }
                (b'"', _) => {
                    return Err(QueryError::new(
                        q,
                        start,
                        start + 1,
                        "strings are written in single quotes: 'text'",
                    ));
                }
                _ => {
                    let ch = q[i..].chars().next().unwrap_or('?');
                    return Err(QueryError::new(
                        q,
                        start,
                        start + ch.len_utf8(),
                        // A character that looks like nothing or like a space (a no-break
                        // space pasted from a document) is named by its code point too.
                        if ch.is_whitespace()
                            || ch.is_control()
                            || matches!(ch, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}')
                        {
                            format!("unexpected character '{ch}' (U+{:04X})", u32::from(ch))
                        } else {
                            format!("unexpected character '{ch}'")
                        },
                    ));
                }
            };
            i += len;
            tok
        };
        out.push(Token { tok, start, end: i });
    }
    out.push(Token {
        tok: Tok::Eof,
        start: q.len(),
        end: q.len(),
    });
    Ok(out)
}

/// The duration `q[start..end]`, its unit starting at `unit`: the number times the unit,
/// which must be a whole number of nanoseconds.
fn duration(q: &str, start: usize, unit: usize, end: usize) -> Result<i128, QueryError> {
    let Some(len) = time::unit_nanos(&q[unit..end]) else {
        return Err(QueryError::new(
            q,
            start,
            end,
            format!(
                "'{}' is not a duration: a number is followed by a unit, one of {}, as in 500ms, 30m or 2d",
                &q[start..end],
                time::UNIT_NAMES
            ),
        ));
    };
    let number = &q[start..unit];
    let n = rust_decimal::Decimal::from_scientific(number)
        .or_else(|_| number.parse::<rust_decimal::Decimal>())
        .ok();
    n.and_then(|n| time::duration_of(n, len)).ok_or_else(|| {
        QueryError::new(
            q,
            start,
            end,
            format!(
                "the duration '{}' is not a whole number of nanoseconds, or is too long",
                &q[start..end]
            ),
        )
    })
}

/// End of the number literal starting at `i`: `digits [. digits] [(e|E) [+|-] digits]`.
fn number_end(q: &str, mut i: usize) -> Result<usize, QueryError> {
    let b = q.as_bytes();
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let start = i;
    i = digits(i);
    if b.get(i) == Some(&b'.') {
        let after = digits(i + 1);
        if after == i + 1 {
            return Err(QueryError::new(
                q,
                start,
                i + 1,
                "expected a digit after the decimal point",
            ));
        }
        i = after;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let after = digits(j);
        if after == j {
            return Err(QueryError::new(
                q,
                start,
                j,
                "expected digits in the exponent of this number",
            ));
        }
        i = after;
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(q: &str) -> Vec<Tok> {
        lex(q).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn operators_and_idents() {
        assert_eq!(
            kinds("@t>=1.5e3 <> != == <= $x_1"),
            vec![
                Tok::Ident,
                Tok::Ge,
                Tok::Number,
                Tok::Ne,
                Tok::Ne,
                Tok::Eq,
                Tok::Le,
                Tok::Ident,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn strings_double_quote_inside() {
        assert_eq!(
            kinds(r"'it''s' 'a\b'"),
            vec![Tok::Str("it's".into()), Tok::Str(r"a\b".into()), Tok::Eof]
        );
    }

    #[test]
    fn lex_errors() {
        assert_eq!(
            lex("x = 'abc").unwrap_err().message(),
            "this string has no closing quote (write '' for a quote inside a string)"
        );
        assert_eq!(
            lex("x = \"a\"").unwrap_err().message(),
            "strings are written in single quotes: 'text'"
        );
        assert_eq!(
            lex("x # 1").unwrap_err().message(),
            "unexpected character '#'"
        );
        assert_eq!(lex("x ≥ 1").unwrap_err().column(), 3);
        assert_eq!(
            lex("a | b").unwrap_err().message(),
            "'|' alone is not an operator ('||' concatenates)"
        );
        assert_eq!(
            kinds("a||b ||c"),
            vec![
                Tok::Ident,
                Tok::Concat,
                Tok::Ident,
                Tok::Concat,
                Tok::Ident,
                Tok::Eof
            ]
        );
        // Comments: to the end of the line.
        let toks = |q: &str| {
            lex(q)
                .unwrap()
                .into_iter()
                .map(|t| t.tok)
                .collect::<Vec<_>>()
        };
        assert_eq!(toks("x -- a note"), toks("x"));
        assert_eq!(toks("x -- a note\n, y--"), toks("x, y"));
        assert_eq!(toks("1 - -1"), toks("1 - - 1"));
        assert_eq!(
            lex("select\u{a0}x").unwrap_err().message(),
            "unexpected character '\u{a0}' (U+00A0)"
        );
        assert_eq!(
            lex("1.").unwrap_err().message(),
            "expected a digit after the decimal point"
        );
        assert_eq!(
            lex("1e+").unwrap_err().message(),
            "expected digits in the exponent of this number"
        );
        assert_eq!(
            lex("x > 5x").unwrap_err().message(),
            "'5x' is not a duration: a number is followed by a unit, one of ms, s, m, h, d or w, as in 500ms, 30m or 2d"
        );
        assert_eq!(lex("x > 5x").unwrap_err().column(), 5);
        assert!(lex("5mss").is_err());
        assert!(lex("5H").is_err());
        assert!(lex("1e-10s").is_err());
    }

    #[test]
    fn duration_literals() {
        assert_eq!(
            kinds("500ms 15s 30m 1h 2d 1w 1.5h 1e3ms"),
            vec![
                Tok::Duration(500_000_000),
                Tok::Duration(15 * time::SECOND),
                Tok::Duration(30 * time::MINUTE),
                Tok::Duration(time::HOUR),
                Tok::Duration(2 * time::DAY),
                Tok::Duration(time::WEEK),
                Tok::Duration(90 * time::MINUTE),
                Tok::Duration(time::SECOND),
                Tok::Eof
            ]
        );
        // A space makes a number and a name.
        assert_eq!(kinds("5 s"), vec![Tok::Number, Tok::Ident, Tok::Eof]);
    }
}
