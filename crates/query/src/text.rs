//! The text functions of the language reference's "Text" table: `||` and `concat`, `substr`, `left`,
//! `right`, `strpos`, `replace`, `trim`/`ltrim`/`rtrim`, `split_part` and `extract`.
//!
//! Invariants:
//! - Every position and length counts characters (Unicode scalar values), never bytes, and
//!   every cut falls on a character boundary: positions are turned into byte offsets only
//!   through [`byte_at`], which walks `char_indices`, so no input (a position of `-1e20`, a
//!   length past the end, a multi-byte character at the cut) can panic or split a character.
//! - A wrong argument type gives null, as for every scalar: text where text is expected
//!   (a number is not cast to text), whole numbers where positions and counts are expected
//!   (`2.0` is 2; `2.5`, `'2'` or a number too large for a Decimal give null).
//! - A result that is a piece of a string borrowed from the input borrows it too
//!   ([`piece`]): `trim`, `substr`, `split_part`, `extract` allocate only when their input
//!   was itself computed.
//! - `||` and `concat` write numbers and booleans as `tostring` does (a number from the input
//!   as written, a computed one exactly) and arrays and objects as their JSON text.

use std::borrow::Cow;
use std::ops::Range;

use regex::Regex;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use crate::error::{ErrorKind, QueryError};
use crate::func::TextFunc;
use crate::ir::{Ex, Extract, Group, Pattern};
use crate::memo::Memo;
use crate::parse::{Expr, ExprKind};
use crate::value::{Num, Val, parse_number};

/// `f` of the first `n` of `vals` (functions of up to three arguments; not the concatenations,
/// which the evaluator does itself).
pub(crate) fn apply(f: TextFunc, vals: [Val<'_>; 3], n: usize) -> Val<'_> {
    let [a, b, c] = vals;
    let Some(s) = text(a) else {
        return Val::Null;
    };
    let out = match f {
        TextFunc::Substr => match (whole(&b), n) {
            (Some(start), 2) => substr(s, start, None),
            (Some(start), _) => match whole(&c) {
                Some(len) => substr(s, start, Some(len)),
                None => None,
            },
            (None, _) => None,
        },
        TextFunc::Left | TextFunc::Right => match whole(&b) {
            Some(k) if k >= 0 => {
                let range = if f == TextFunc::Left {
                    0..byte_at(&s, count(k))
                } else {
                    let total = s.chars().count();
                    byte_at(&s, total.saturating_sub(count(k)))..s.len()
                };
                Some(piece(s, range))
            }
            _ => None,
        },
        TextFunc::Strpos => {
            let Some(t) = b.str() else {
                return Val::Null;
            };
            let pos = s.find(t).map_or(0, |i| s[..i].chars().count() + 1);
            return Val::number(Num::Dec(Decimal::from(pos)));
        }
        TextFunc::Replace => match (b.str(), c.str()) {
            (Some(from), Some(to)) => Some(if from.is_empty() || !s.contains(from) {
                s
            } else {
                Cow::Owned(s.replace(from, to))
            }),
            _ => None,
        },
        TextFunc::Trim | TextFunc::LTrim | TextFunc::RTrim => {
            let start = match f {
                TextFunc::RTrim => 0,
                _ => s.len() - s.trim_start().len(),
            };
            let end = match f {
                TextFunc::LTrim => s.len(),
                _ => s.trim_end().len(),
            };
            Some(piece(s, start..end.max(start)))
        }
        TextFunc::SplitPart => match (b.str(), whole(&c)) {
            (Some(sep), Some(k)) if !sep.is_empty() && k >= 1 => {
                let range = split_part(&s, sep, k);
                Some(range.map_or(Cow::Borrowed(""), |r| piece(s, r)))
            }
            _ => None,
        },
        TextFunc::Concat | TextFunc::ConcatSkipNull => None,
    };
    out.map_or(Val::Null, Val::string)
}

/// A string argument's value; `None` for any other type.
fn text(v: Val<'_>) -> Option<Cow<'_, str>> {
    match v {
        Val::Str(s, _) => Some(s),
        _ => None,
    }
}

/// A whole-number argument (`2.0` is 2); `None` for fractions and other types. A whole number
/// held as a float (too large for a Decimal: `1e30`) is one too, and so is an infinite one
/// (`1e400`), saturated to `i128` (as a position it is past any text either way).
fn whole(v: &Val<'_>) -> Option<i128> {
    match v {
        Val::Num(Num::Dec(d), _) if d.fract().is_zero() => d.to_i128(),
        // `as` saturates: infinities become i128's bounds; NaN has no whole value.
        Val::Num(Num::Float(f), _) if f.is_infinite() || f.fract() == 0.0 => Some(*f as i128),
        _ => None,
    }
}

/// A non-negative count as a `usize` (saturating: no string is that long).
fn count(k: i128) -> usize {
    usize::try_from(k.max(0)).unwrap_or(usize::MAX)
}

/// The byte offset of character `k` of `s` (`s.len()` when `s` has at most `k` characters).
fn byte_at(s: &str, k: usize) -> usize {
    if k == 0 {
        return 0;
    }
    s.char_indices().nth(k).map_or(s.len(), |(i, _)| i)
}

/// `s[range]`, borrowing when `s` borrows. `range` lies on character boundaries.
fn piece(s: Cow<'_, str>, range: Range<usize>) -> Cow<'_, str> {
    match s {
        Cow::Borrowed(b) => Cow::Borrowed(&b[range]),
        Cow::Owned(o) if range == (0..o.len()) => Cow::Owned(o),
        Cow::Owned(o) => Cow::Owned(o[range].to_owned()),
    }
}

/// `substr(s, start [, len])` as SQL has it: the characters at 1-based positions
/// `start .. start + len` that exist (`substr('hello', 0, 3)` is `'he'`); `None` (null) for a
/// negative `len`.
fn substr(s: Cow<'_, str>, start: i128, len: Option<i128>) -> Option<Cow<'_, str>> {
    // Positions, 1-based, end exclusive; i128 holds any Decimal's integer part plus another.
    let end = match len {
        Some(l) if l < 0 => return None,
        Some(l) => start.saturating_add(l),
        None => i128::MAX,
    };
    let first = start.max(1);
    if end <= first {
        return Some(Cow::Borrowed(""));
    }
    let from = byte_at(&s, count(first - 1));
    let to = if len.is_none() {
        s.len()
    } else {
        from + byte_at(&s[from..], count(end - first))
    };
    Some(piece(s, from..to))
}

/// The byte range of field `k` (1-based) of `s` cut at each `sep` (not empty), left to right;
/// `None` past the last field.
fn split_part(s: &str, sep: &str, k: i128) -> Option<Range<usize>> {
    let mut start = 0;
    for _ in 1..k {
        start += s[start..].find(sep)? + sep.len();
    }
    let end = s[start..].find(sep).map_or(s.len(), |i| start + i);
    Some(start..end)
}

/// "this regex does not compile: ..." with the regex crate's last line of detail.
pub(crate) fn regex_error(q: &str, at: &Expr, err: &regex::Error) -> QueryError {
    let detail = err.to_string();
    let last = detail
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .trim_start_matches("error: ")
        .to_owned();
    QueryError::new(
        q,
        at.span.start,
        at.span.end,
        format!("this regex does not compile: {last}"),
    )
    .with_kind(ErrorKind::Regex)
}

/// The names of `re`'s groups, for an error message: `` (groups: 1, 2 'user')``.
fn groups_of(re: &Regex) -> String {
    match re.captures_len() - 1 {
        0 => "the regex has no groups (0 is the whole match)".to_owned(),
        1 => "the regex has 1 group".to_owned(),
        n => format!("the regex has {n} groups"),
    }
}

impl Extract {
    /// The group of every line's answer when it is known before any line (a literal regex,
    /// and a group given as a literal or left out): then answers can be remembered.
    pub(crate) fn fixed_group(&self) -> Option<usize> {
        match (&self.regex, &self.group) {
            (Pattern::Fixed(re), Group::Default) => Some(usize::from(re.captures_len() > 1)),
            (Pattern::Fixed(_), Group::Number(k)) => Some(*k),
            _ => None,
        }
    }

    /// Plan `extract(args...)` (two or three, the planner checked), `text`, `regex` and
    /// `group` being those arguments compiled. A literal regex is compiled now (an error when
    /// it does not compile); a literal group is checked against it (an error when the regex
    /// has no such group).
    pub(crate) fn plan(
        q: &str,
        args: &[Expr],
        text: Ex,
        regex_ex: Ex,
        group_ex: Option<Ex>,
    ) -> Result<Extract, QueryError> {
        let regex = match &args[1].kind {
            ExprKind::Str(re) => {
                Pattern::Fixed(Regex::new(re).map_err(|e| regex_error(q, &args[1], &e))?)
            }
            _ => Pattern::Dynamic(Box::new(regex_ex)),
        };
        let arg_err = |at: &Expr, msg: String| {
            Err(QueryError::new(q, at.span.start, at.span.end, msg).with_kind(ErrorKind::Arguments))
        };
        let group = match args.get(2).zip(group_ex) {
            None => Group::Default,
            Some((g, g_ex)) => match (&g.kind, &regex) {
                (ExprKind::Number(n), _) => {
                    // A number too large for any regex (`1e30`, past what a decimal holds) is
                    // a group no regex has.
                    let k = parse_number(n).and_then(|n| match n {
                        Num::Dec(d) if d.fract().is_zero() && d >= Decimal::ZERO => {
                            Some(d.to_usize().unwrap_or(usize::MAX))
                        }
                        Num::Float(f) if f >= 1e20 => Some(usize::MAX),
                        _ => None,
                    });
                    match (k, &regex) {
                        (Some(k), Pattern::Fixed(re)) if k < re.captures_len() => Group::Number(k),
                        (Some(_), Pattern::Fixed(re)) => {
                            return arg_err(
                                g,
                                format!("extract() has no group {n}: {}", groups_of(re)),
                            );
                        }
                        (Some(k), Pattern::Dynamic(_)) => Group::Number(k),
                        (None, _) => {
                            return arg_err(
                                g,
                                format!(
                                    "extract() takes a group number (0 or more, 0 for the whole match) or a group name, found {n}"
                                ),
                            );
                        }
                    }
                }
                (ExprKind::Str(name), Pattern::Fixed(re)) => {
                    match re.capture_names().position(|n| n == Some(name.as_str())) {
                        Some(k) => Group::Number(k),
                        None => {
                            let names: Vec<String> = re
                                .capture_names()
                                .flatten()
                                .map(|n| format!("'{n}'"))
                                .collect();
                            let known = if names.is_empty() {
                                "the regex has no named groups".to_owned()
                            } else {
                                format!("its named groups are {}", names.join(", "))
                            };
                            return arg_err(
                                g,
                                format!("extract() has no group named '{name}': {known}"),
                            );
                        }
                    }
                }
                (ExprKind::Str(name), Pattern::Dynamic(_)) => Group::Name(name.clone()),
                _ => Group::Dynamic(Box::new(g_ex)),
            },
        };
        Ok(Extract {
            text,
            regex,
            group,
            memo: None,
        })
    }
}

/// `extract` on one line: the text of the chosen group of the first match of `re` in the
/// string `subject`; null when `subject` is not a string, there is no match, the group did
/// not take part, or a group computed per line (`dynamic`, the value of [`Group::Dynamic`])
/// or named for a regex computed per line is not one of `re`'s.
pub(crate) fn extract<'x>(
    subject: Val<'x>,
    re: &Regex,
    group: &Group,
    dynamic: Option<Val<'_>>,
) -> Val<'x> {
    let Some(subject) = text(subject) else {
        return Val::Null;
    };
    let by_name = |name: &str| re.capture_names().position(|n| n == Some(name));
    let k = match (group, dynamic) {
        (Group::Default, _) => Some(usize::from(re.captures_len() > 1)),
        (Group::Number(k), _) => Some(*k),
        (Group::Name(name), _) => by_name(name),
        (Group::Dynamic(_), Some(Val::Str(name, _))) => by_name(&name),
        (Group::Dynamic(_), Some(v)) => whole(&v).and_then(|k| usize::try_from(k).ok()),
        (Group::Dynamic(_), None) => None,
    };
    let Some(k) = k.filter(|&k| k < re.captures_len()) else {
        return Val::Null;
    };
    let range = if k == 0 {
        re.find(&subject).map(|m| m.range())
    } else {
        re.captures(&subject)
            .and_then(|c| c.get(k))
            .map(|m| m.range())
    };
    range.map_or(Val::Null, |r| Val::string(piece(subject, r)))
}

/// [`extract`] of a literal regex and a group known when planning (`group` < the regex's
/// groups), its answers remembered in `memo`.
pub(crate) fn extract_memo<'x>(
    subject: Val<'x>,
    re: &Regex,
    group: usize,
    memo: &mut Memo,
) -> Val<'x> {
    let Some(subject) = text(subject) else {
        return Val::Null;
    };
    match memo.find(re, group, &subject) {
        Some(r) => Val::string(piece(subject, r)),
        None => Val::Null,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn s(x: &str) -> Val<'_> {
        Val::string(x)
    }

    fn n(k: i64) -> Val<'static> {
        Val::number(Num::Dec(Decimal::from(k)))
    }

    fn call<'x>(f: TextFunc, args: &[Val<'x>]) -> Option<String> {
        let mut vals = [Val::Null, Val::Null, Val::Null];
        for (slot, a) in vals.iter_mut().zip(args) {
            *slot = a.clone();
        }
        match apply(f, vals, args.len()) {
            Val::Str(s, _) => Some(s.into_owned()),
            Val::Num(n, _) => Some(n.text()),
            Val::Null => None,
            other => panic!("{other:?}"),
        }
    }

    /// The reference: the same rules over a `Vec<char>`, positions as plain integers.
    fn ref_substr(s: &str, start: i64, len: Option<i64>) -> Option<String> {
        let chars: Vec<char> = s.chars().collect();
        if len.is_some_and(|l| l < 0) {
            return None;
        }
        Some(
            (1..=chars.len() as i64)
                .filter(|&p| p >= start && len.is_none_or(|l| p < start + l))
                .map(|p| chars[(p - 1) as usize])
                .collect(),
        )
    }

    const PIECES: &[&str] = &["a", "é", "e\u{301}", "😀", " ", "\u{3000}", "ab", ",", ""];

    fn unicode_text() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(PIECES), 0..8).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn substr_left_right_agree_with_char_reference(
            text in unicode_text(),
            start in -4i64..12,
            len in -2i64..12,
        ) {
            let t = text.as_str();
            prop_assert_eq!(call(TextFunc::Substr, &[s(t), n(start), n(len)]), ref_substr(t, start, Some(len)));
            prop_assert_eq!(call(TextFunc::Substr, &[s(t), n(start)]), ref_substr(t, start, None));
            let chars: Vec<char> = t.chars().collect();
            let want_left = (len >= 0).then(|| chars.iter().take(len as usize).collect::<String>());
            prop_assert_eq!(call(TextFunc::Left, &[s(t), n(len)]), want_left);
            let want_right = (len >= 0).then(|| {
                chars[chars.len().saturating_sub(len as usize)..].iter().collect::<String>()
            });
            prop_assert_eq!(call(TextFunc::Right, &[s(t), n(len)]), want_right);
        }

        #[test]
        fn strpos_split_part_replace_agree_with_reference(
            text in unicode_text(),
            needle in prop::sample::select(PIECES),
            k in -1i64..6,
        ) {
            let t = text.as_str();
            let chars: Vec<char> = t.chars().collect();
            let nc: Vec<char> = needle.chars().collect();
            let want_pos = (0..=chars.len())
                .find(|&i| chars[i..].starts_with(&nc))
                .map_or(0, |i| i + 1);
            prop_assert_eq!(call(TextFunc::Strpos, &[s(t), s(needle)]), Some(want_pos.to_string()));
            let want_part = (k >= 1 && !needle.is_empty())
                .then(|| t.split(needle).nth(k as usize - 1).unwrap_or("").to_owned());
            prop_assert_eq!(call(TextFunc::SplitPart, &[s(t), s(needle), n(k)]), want_part);
            let want_replaced = if needle.is_empty() { t.to_owned() } else { t.replace(needle, "<>") };
            prop_assert_eq!(call(TextFunc::Replace, &[s(t), s(needle), s("<>")]), Some(want_replaced));
        }
    }

    #[test]
    fn positions_past_any_string_never_panic() {
        let big = Val::number(Num::Dec(Decimal::MAX));
        let small = Val::number(Num::Dec(Decimal::MIN));
        for f in [TextFunc::Substr, TextFunc::Left, TextFunc::Right] {
            for a in [&big, &small] {
                for b in [&big, &small] {
                    let _ = call(f, &[s("h😀llo"), a.clone(), b.clone()]);
                }
            }
        }
        // Positions -7.9e28 .. 0 hold nothing; from -7.9e28 to the end, everything.
        assert_eq!(
            call(TextFunc::Substr, &[s("h😀llo"), small.clone(), big.clone()]),
            Some("".into())
        );
        assert_eq!(
            call(TextFunc::Substr, &[s("h😀llo"), small.clone()]),
            Some("h😀llo".into())
        );
        assert_eq!(
            call(TextFunc::Substr, &[s("h😀llo"), n(1), big.clone()]),
            Some("h😀llo".into())
        );
        assert_eq!(
            call(TextFunc::Substr, &[s("h😀llo"), big.clone()]),
            Some("".into())
        );
        assert_eq!(
            call(TextFunc::SplitPart, &[s("a,b"), s(","), big]),
            Some("".into())
        );
    }

    #[test]
    fn whole_numbers_held_as_floats_are_positions_past_the_text() {
        let huge = |f: f64| Val::Num(Num::Float(f), None);
        let t = "h😀llo";
        assert_eq!(call(TextFunc::Left, &[s(t), huge(1e30)]), Some(t.into()));
        assert_eq!(call(TextFunc::Right, &[s(t), huge(1e300)]), Some(t.into()));
        // `1e400` in the input is an infinite float: more than any count too.
        assert_eq!(
            call(TextFunc::Left, &[s(t), huge(f64::INFINITY)]),
            Some(t.into())
        );
        assert_eq!(
            call(TextFunc::Substr, &[s(t), n(2), huge(f64::INFINITY)]),
            Some("😀llo".into())
        );
        assert_eq!(
            call(TextFunc::Substr, &[s(t), huge(f64::NEG_INFINITY)]),
            Some(t.into())
        );
        assert_eq!(call(TextFunc::Left, &[s(t), huge(f64::NEG_INFINITY)]), None);
        assert_eq!(
            call(TextFunc::Substr, &[s(t), n(2), huge(1e30)]),
            Some("😀llo".into())
        );
        assert_eq!(call(TextFunc::Substr, &[s(t), huge(1e30)]), Some("".into()));
        assert_eq!(
            call(TextFunc::Substr, &[s(t), huge(-1e30), huge(1e30)]),
            Some("".into())
        );
        assert_eq!(
            call(TextFunc::SplitPart, &[s("a,b"), s(","), huge(1e30)]),
            Some("".into())
        );
        // Negative counts and fields before the first stay null; so do fractions and NaN.
        assert_eq!(call(TextFunc::Left, &[s(t), huge(-1e30)]), None);
        assert_eq!(
            call(TextFunc::SplitPart, &[s("a,b"), s(","), huge(-1e30)]),
            None
        );
        assert_eq!(call(TextFunc::Left, &[s(t), huge(1.5)]), None);
        assert_eq!(call(TextFunc::Left, &[s(t), huge(f64::NAN)]), None);
    }

    #[test]
    fn pieces_of_borrowed_text_borrow() {
        let v = apply(TextFunc::Trim, [s("  x  "), Val::Null, Val::Null], 1);
        assert!(matches!(v, Val::Str(Cow::Borrowed("x"), None)));
        let v = apply(TextFunc::Substr, [s("héllo"), n(2), n(2)], 3);
        assert!(matches!(v, Val::Str(Cow::Borrowed("él"), None)));
    }
}
