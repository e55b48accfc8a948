//! Functions: the name table (scalars and aggregates, arities, "did you mean"), the scalar
//! functions themselves, `like` patterns and Unicode case folding.
//!
//! Scalars give `null` for an argument of the wrong type (the language reference). `like` is matched on
//! characters (so `_` is one character, not one byte); a pattern with only `%` wildcards
//! takes a fast path (equality, prefix, suffix or substring search).

use std::borrow::Cow;

use memchr::memmem;
use rust_decimal::{Decimal, RoundingStrategy};

use crate::time::TimeFn;
use crate::value::{Num, Val, dur_seconds, parse_number, positive_zero};

/// Scalar functions evaluated on argument values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    Contains,
    StartsWith,
    EndsWith,
    Lower,
    Upper,
    Length,
    Abs,
    Floor,
    Ceil,
    Round,
    ToString,
    ToNumber,
    Level,
    Severity,
}

/// A text function evaluated on its arguments' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TextFunc {
    /// `a || b`: null when either side is.
    Concat,
    /// `concat(a, b, ...)`: nulls left out.
    ConcatSkipNull,
    Substr,
    Left,
    Right,
    Strpos,
    Replace,
    Trim,
    LTrim,
    RTrim,
    SplitPart,
}

/// Aggregate functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AggFunc {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    Percentile,
    CountDistinct,
    /// `count_if(C)`: planned as `count(*) filter (where C)`.
    CountIf,
}

/// What a function name means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FuncName {
    Scalar(Func),
    Match,
    Has,
    Coalesce,
    Agg(AggFunc),
    /// `if(C, A, B)`: `case when C then A else B end`.
    If,
    Text(TextFunc),
    Extract,
    /// A time function, compiled with the plan's time options.
    Time(TimeFn),
}

/// Every function: name, meaning, fewest and most arguments.
const TABLE: &[(&str, FuncName, usize, usize)] = &[
    ("match", FuncName::Match, 2, 2),
    ("has", FuncName::Has, 1, 1),
    ("contains", FuncName::Scalar(Func::Contains), 2, 2),
    ("startswith", FuncName::Scalar(Func::StartsWith), 2, 2),
    ("endswith", FuncName::Scalar(Func::EndsWith), 2, 2),
    ("lower", FuncName::Scalar(Func::Lower), 1, 1),
    ("upper", FuncName::Scalar(Func::Upper), 1, 1),
    ("length", FuncName::Scalar(Func::Length), 1, 1),
    ("coalesce", FuncName::Coalesce, 1, usize::MAX),
    ("abs", FuncName::Scalar(Func::Abs), 1, 1),
    ("floor", FuncName::Scalar(Func::Floor), 1, 1),
    ("ceil", FuncName::Scalar(Func::Ceil), 1, 1),
    ("round", FuncName::Scalar(Func::Round), 1, 2),
    ("tostring", FuncName::Scalar(Func::ToString), 1, 1),
    ("tonumber", FuncName::Scalar(Func::ToNumber), 1, 1),
    ("if", FuncName::If, 3, 3),
    (
        "concat",
        FuncName::Text(TextFunc::ConcatSkipNull),
        1,
        usize::MAX,
    ),
    ("substr", FuncName::Text(TextFunc::Substr), 2, 3),
    ("left", FuncName::Text(TextFunc::Left), 2, 2),
    ("right", FuncName::Text(TextFunc::Right), 2, 2),
    ("strpos", FuncName::Text(TextFunc::Strpos), 2, 2),
    ("replace", FuncName::Text(TextFunc::Replace), 3, 3),
    ("trim", FuncName::Text(TextFunc::Trim), 1, 1),
    ("ltrim", FuncName::Text(TextFunc::LTrim), 1, 1),
    ("rtrim", FuncName::Text(TextFunc::RTrim), 1, 1),
    ("split_part", FuncName::Text(TextFunc::SplitPart), 3, 3),
    ("extract", FuncName::Extract, 2, 3),
    ("level", FuncName::Scalar(Func::Level), 1, 1),
    ("severity", FuncName::Scalar(Func::Severity), 1, 1),
    ("datetime", FuncName::Time(TimeFn::DateTime), 1, 2),
    ("now", FuncName::Time(TimeFn::Now), 0, 0),
    ("time", FuncName::Time(TimeFn::Bucket), 1, 2),
    ("strftime", FuncName::Time(TimeFn::Strftime), 2, 2),
    ("count", FuncName::Agg(AggFunc::Count), 1, 1),
    ("sum", FuncName::Agg(AggFunc::Sum), 1, 1),
    ("avg", FuncName::Agg(AggFunc::Avg), 1, 1),
    ("min", FuncName::Agg(AggFunc::Min), 1, 1),
    ("max", FuncName::Agg(AggFunc::Max), 1, 1),
    ("percentile", FuncName::Agg(AggFunc::Percentile), 2, 2),
    (
        "count_distinct",
        FuncName::Agg(AggFunc::CountDistinct),
        1,
        1,
    ),
    ("count_if", FuncName::Agg(AggFunc::CountIf), 1, 1),
];

/// Look up a lowercased function name: its meaning and argument count range.
pub(crate) fn lookup(name: &str) -> Option<(FuncName, usize, usize)> {
    TABLE
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|&(_, f, lo, hi)| (f, lo, hi))
}

/// Names from SQL and other log tools with what ndq writes instead: a function of its own,
/// or a piece of query. They are looked up (and matched with a typo) like ndq's own.
const ELSEWHERE: &[(&[&str], &str)] = &[
    (&["mean", "average"], "avg"),
    (&["median"], "percentile(x, 50)"),
    (
        &["quantile", "p50", "p90", "p95", "p99"],
        "percentile(x, N)",
    ),
    (&["nvl", "ifnull"], "coalesce"),
    (&["isnull"], "x is null"),
    (&["substring", "mid"], "substr"),
    (
        &["len", "strlen", "char_length", "character_length"],
        "length",
    ),
    (&["tostr", "to_string", "str", "string", "text"], "tostring"),
    (
        &[
            "toint",
            "to_int",
            "int",
            "integer",
            "tofloat",
            "todouble",
            "to_number",
            "float",
            "number",
            "todecimal",
        ],
        "tonumber",
    ),
    (&["lcase", "tolower", "to_lower"], "lower"),
    (&["ucase", "toupper", "to_upper"], "upper"),
    (
        &["instr", "position", "locate", "indexof", "charindex"],
        "strpos",
    ),
    (&["iif", "iff"], "if"),
    (
        &[
            "dcount",
            "distinct_count",
            "approx_count_distinct",
            "uniq",
            "ndv",
        ],
        "count_distinct",
    ),
    (&["regexp_extract", "regex_extract"], "extract"),
    (
        &["regexp_like", "rlike", "regexp_matches", "regexp"],
        "match",
    ),
    (
        &["date_trunc", "time_bucket", "bucket", "bin"],
        "time(@t, 5m)",
    ),
    (
        &["date_format", "format_time", "format_datetime", "to_char"],
        "strftime",
    ),
    (&["ago"], "now() - 1h"),
    (&["mod"], "a % b"),
    (&["ceiling"], "ceil"),
    (&["sumif", "sum_if"], "sum(x) filter (where ...)"),
];

/// Names that ndq has no counterpart for: no "did you mean" (`power` is one letter from
/// `lower`, which is not what was meant).
const NONE: &[&str] = &[
    "pow", "power", "log", "log10", "log2", "ln", "exp", "sqrt", "sign", "least", "greatest",
    "rand", "random", "first", "last",
];

/// What to write instead of the unknown function `name` (lowercased), for "did you mean":
/// a function of ndq's or of [`ELSEWHERE`] (then its advice) within a small edit distance
/// (one edit for names of up to 5 characters, two for longer), the nearest first.
pub(crate) fn suggest(name: &str) -> Option<&'static str> {
    if NONE.contains(&name) {
        return None;
    }
    let most = if name.chars().count() <= 5 { 1 } else { 2 };
    let own = TABLE.iter().map(|&(n, ..)| (n, n));
    let elsewhere = ELSEWHERE
        .iter()
        .flat_map(|&(names, advice)| names.iter().map(move |&n| (n, advice)));
    own.chain(elsewhere)
        .map(|(n, advice)| (edit_distance(name, n), advice))
        .filter(|&(d, _)| d <= most)
        .min_by_key(|&(d, _)| d)
        .map(|(_, advice)| advice)
}

/// The edit distance between `a` and `b`, in characters, two neighbours swapped counting
/// as one edit (`form` is one from `from`): for "did you mean".
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the table.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
            if i > 0 && j > 0 && ca == b[j - 1] && a[i - 1] == cb {
                cur[j + 1] = cur[j + 1].min(before[j - 1] + 1);
            }
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

/// Unicode case folding for `ilike`: upper-case then lower-case, so `ß`, `SS` and `ss` fold
/// alike and `É` matches `é`; then `ß` to `ss`, for the capital sharp s `ẞ`, which upper-cases
/// to itself and lower-cases to `ß`. Written into `buf` (reused), ASCII on a fast path.
pub(crate) fn fold_into(s: &str, buf: &mut String) {
    buf.clear();
    if s.is_ascii() {
        buf.push_str(s);
        buf.make_ascii_lowercase();
    } else {
        let folded = s.to_uppercase().to_lowercase();
        if folded.contains('ß') {
            buf.push_str(&folded.replace('ß', "ss"));
        } else {
            buf.push_str(&folded);
        }
    }
}

/// One character case-folded alone, as `ilike` compares a text with its pattern character
/// by character: upper case then lower case where each gives one character (`É` and `é` to
/// `é`, `ſ` to `s`), else lower case where that is one character, else the character itself
/// (`ß`, whose upper case is `SS`, stays `ß`).
pub(crate) fn fold_char(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    one_char(c.to_uppercase())
        .and_then(|u| one_char(u.to_lowercase()))
        .or_else(|| one_char(c.to_lowercase()))
        .unwrap_or(c)
}

/// The one character of `it`, if it has exactly one.
fn one_char(mut it: impl Iterator<Item = char>) -> Option<char> {
    let first = it.next()?;
    it.next().is_none().then_some(first)
}

/// A compiled `like` pattern; for `ilike` ([`Like::new_ci`]), of the case-folded pattern,
/// with the pattern's characters each folded alone beside it.
#[derive(Debug)]
pub(crate) struct Like {
    kind: LikeKind,
    /// `ilike`'s pattern, character by character ([`fold_char`]), and whether it is ASCII;
    /// `None` for `like`.
    chars: Option<(Box<[LikeTok]>, bool)>,
}

#[derive(Debug)]
enum LikeKind {
    /// No wildcard: the whole string equals this.
    Exact(String),
    /// `lit%`
    Prefix(String),
    /// `%lit`
    Suffix(String),
    /// `%lit%`
    Contains(Box<memmem::Finder<'static>>),
    /// Anything else: the general matcher.
    General(Vec<LikeTok>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum LikeTok {
    Any,
    One,
    Char(char),
}

impl Like {
    pub fn new(pattern: &str) -> Like {
        let wild = |c: char| c == '%' || c == '_';
        let inner = |s: &str| !s.is_empty() && !s.contains(wild);
        let kind = if !pattern.contains(wild) {
            LikeKind::Exact(pattern.to_owned())
        } else if let Some(p) = pattern.strip_suffix('%').filter(|p| inner(p)) {
            LikeKind::Prefix(p.to_owned())
        } else if let Some(s) = pattern.strip_prefix('%').filter(|s| inner(s)) {
            LikeKind::Suffix(s.to_owned())
        } else if let Some(m) = pattern
            .strip_prefix('%')
            .and_then(|p| p.strip_suffix('%'))
            .filter(|m| inner(m))
        {
            LikeKind::Contains(Box::new(memmem::Finder::new(m.as_bytes()).into_owned()))
        } else {
            LikeKind::General(
                pattern
                    .chars()
                    .map(|c| match c {
                        '%' => LikeTok::Any,
                        '_' => LikeTok::One,
                        c => LikeTok::Char(c),
                    })
                    .collect(),
            )
        };
        Like { kind, chars: None }
    }

    /// The pattern of `ilike`: a string matches it when it matches after both are
    /// case-folded ([`fold_into`]: `'Straße' ilike 'STRASSE'`), or character by character,
    /// each character folded alone (`'Straße' ilike 'Stra_e'`, where the folded text has
    /// one character more). So whatever `like` matches, `ilike` matches too.
    pub fn new_ci(pattern: &str) -> Like {
        let mut folded = String::new();
        fold_into(pattern, &mut folded);
        let mut like = Like::new(&folded);
        let chars = pattern
            .chars()
            .map(|c| match c {
                '%' => LikeTok::Any,
                '_' => LikeTok::One,
                c => LikeTok::Char(fold_char(c)),
            })
            .collect();
        like.chars = Some((chars, pattern.is_ascii()));
        like
    }

    /// [`Like::matches`] for a pattern of [`Like::new_ci`]: `buf` is for the folded text.
    pub fn matches_ci(&self, s: &str, buf: &mut String) -> bool {
        fold_into(s, buf);
        if self.matches(buf) {
            return true;
        }
        match &self.chars {
            // ASCII on both sides: each character folds to one, so the two ways are one.
            Some((_, true)) if s.is_ascii() => false,
            Some((chars, _)) => glob_by(chars, s, fold_char),
            None => false,
        }
    }

    pub fn matches(&self, s: &str) -> bool {
        match &self.kind {
            LikeKind::Exact(p) => s == p,
            LikeKind::Prefix(p) => s.starts_with(p.as_str()),
            LikeKind::Suffix(p) => s.ends_with(p.as_str()),
            LikeKind::Contains(f) => f.find(s.as_bytes()).is_some(),
            LikeKind::General(toks) => glob(toks, s),
        }
    }
}

/// Wildcard match with backtracking to the last `%`: advance on a literal or `_`; on a `%`
/// remember where it was and try matching it to nothing; on a mismatch let the last `%` take
/// one more character and retry from there. Linear in practice, O(n·m) at worst.
fn glob(pat: &[LikeTok], s: &str) -> bool {
    glob_by(pat, s, |c| c)
}

/// [`glob`] with each character of `s` mapped by `map` before it is compared (the pattern's
/// are mapped already).
#[inline]
fn glob_by(pat: &[LikeTok], s: &str, map: impl Fn(char) -> char) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < s.len() {
        let raw = s[t..].chars().next().unwrap_or('\0');
        let c = map(raw);
        match pat.get(p) {
            Some(LikeTok::One) => {
                p += 1;
                t += raw.len_utf8();
                continue;
            }
            Some(LikeTok::Char(x)) if *x == c => {
                p += 1;
                t += raw.len_utf8();
                continue;
            }
            Some(LikeTok::Any) => {
                star = Some((p, t));
                p += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((sp, st)) => {
                let skip = s[st..].chars().next().map_or(1, char::len_utf8);
                star = Some((sp, st + skip));
                p = sp + 1;
                t = st + skip;
            }
            None => return false,
        }
    }
    pat[p..].iter().all(|t| *t == LikeTok::Any)
}

/// `round(n, digits)`, half away from zero; negative `digits` round to tens, hundreds...
fn round(n: Num, digits: i64) -> Option<Num> {
    match n {
        Num::Dec(d) => {
            if digits >= 0 {
                let dp = digits.min(28) as u32;
                Some(Num::Dec(d.round_dp_with_strategy(
                    dp,
                    RoundingStrategy::MidpointAwayFromZero,
                )))
            } else {
                let p = Decimal::from_i128_with_scale(
                    10i128.pow(digits.unsigned_abs().min(28) as u32),
                    0,
                );
                let q = d.checked_div(p)?;
                let r = q.round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero);
                Num::from_parts(r.checked_mul(p), || f64::NAN)
            }
        }
        // A float that is a Decimal in disguise (`1.005000000000000000000000000001` is held
        // as the float 1.005) rounds as that Decimal, so as the user reads it: 1.01.
        Num::Float(_) if let Some(d) = n.as_decimal() => round(Num::Dec(d), digits),
        // Others are tiny or huge: rounded on their shortest spelling.
        Num::Float(f) => Some(Num::Float(round_float(f, digits).unwrap_or(f))),
    }
}

/// `f` rounded half away from zero to `digits` decimals, on its shortest decimal spelling
/// (what the user reads: `1.5e-30` to 30 decimals is `2e-30`), not on its binary value.
/// `None` for infinities.
fn round_float(f: f64, digits: i64) -> Option<f64> {
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e')?;
    let frac = mantissa.split_once('.').map_or(0, |(_, frac)| frac.len());
    // |f| = m * 10^e, m of at most 17 digits.
    let m: u64 = mantissa.replace('.', "").parse().ok()?;
    let e = exp.parse::<i64>().ok()? - frac as i64;
    let digits = digits.clamp(-400, 400);
    let shift = -digits - e;
    if shift <= 0 {
        return Some(f);
    }
    let q = if shift > 19 {
        0
    } else {
        let p = 10u64.pow(shift as u32);
        m / p + u64::from(m % p >= p - p / 2)
    };
    let r: f64 = format!("{q}e{}", -digits).parse().ok()?;
    Some(if f < 0.0 && r != 0.0 { -r } else { r })
}

/// A scalar function of one or two evaluated arguments.
pub(crate) fn call<'x>(f: Func, a: Val<'x>, b: Option<Val<'x>>) -> Val<'x> {
    match f {
        Func::Contains | Func::StartsWith | Func::EndsWith => {
            let (Some(s), Some(t)) = (a.str(), b.as_ref().and_then(Val::str)) else {
                return Val::Null;
            };
            Val::Bool(match f {
                Func::Contains => memmem::find(s.as_bytes(), t.as_bytes()).is_some(),
                Func::StartsWith => s.starts_with(t),
                _ => s.ends_with(t),
            })
        }
        Func::Lower | Func::Upper => match a {
            Val::Str(s, _) => {
                let mapped = if f == Func::Lower {
                    s.to_lowercase()
                } else {
                    s.to_uppercase()
                };
                Val::string(mapped)
            }
            _ => Val::Null,
        },
        Func::Length => match &a {
            Val::Str(s, _) => Val::number(Num::Dec(Decimal::from(s.chars().count()))),
            Val::Json(_, raw) => match serde_json::from_str::<serde_json::Value>(raw) {
                Ok(serde_json::Value::Array(v)) => Val::number(Num::Dec(Decimal::from(v.len()))),
                Ok(serde_json::Value::Object(m)) => Val::number(Num::Dec(Decimal::from(m.len()))),
                _ => Val::Null,
            },
            _ => Val::Null,
        },
        // `ceil(-0.4)` is 0, not -0 (which `tostring` would spell so): a zero result is the
        // positive zero, as from every other operation.
        Func::Abs | Func::Floor | Func::Ceil => match a.num() {
            Some(Num::Dec(d)) => Val::number(Num::Dec(positive_zero(match f {
                Func::Abs => d.abs(),
                Func::Floor => d.floor(),
                _ => d.ceil(),
            }))),
            Some(Num::Float(x)) => Val::number(Num::Float(
                match f {
                    Func::Abs => x.abs(),
                    Func::Floor => x.floor(),
                    _ => x.ceil(),
                } + 0.0,
            )),
            None => Val::Null,
        },
        Func::Round => {
            let Some(n) = a.num() else {
                return Val::Null;
            };
            let digits = match &b {
                None => 0,
                Some(Val::Num(Num::Dec(d), _)) if d.is_integer() => {
                    match rust_decimal::prelude::ToPrimitive::to_i64(d) {
                        Some(i) => i,
                        None => return Val::Null,
                    }
                }
                Some(_) => return Val::Null,
            };
            round(n, digits).map_or(Val::Null, Val::number)
        }
        Func::ToString => match a.to_text() {
            Some(Cow::Borrowed(_)) => match a {
                Val::Str(s, _) => Val::Str(s, None),
                Val::Num(_, Some(raw)) => Val::Str(raw, None),
                Val::Json(_, raw) => Val::Str(raw, None),
                Val::Bool(b) => Val::string(if b { "true" } else { "false" }),
                _ => Val::Null,
            },
            Some(Cow::Owned(s)) => Val::string(s),
            None => Val::Null,
        },
        Func::Level => crate::level::level(&a),
        Func::Severity => crate::level::severity(&a),
        Func::ToNumber => match &a {
            Val::Num(n, _) => Val::number(*n),
            Val::Str(s, _) => parse_number(s.trim()).map_or(Val::Null, Val::number),
            // Epoch seconds of a timestamp, seconds of a duration: exact.
            Val::Time(ns) | Val::Dur(ns) => Val::number(Num::Dec(dur_seconds(*ns))),
            _ => Val::Null,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns() {
        let m = |p: &str, s: &str| Like::new(p).matches(s);
        assert!(m("abc", "abc"));
        assert!(!m("abc", "abcd"));
        assert!(m("ab%", "abxyz"));
        assert!(m("%yz", "abxyz"));
        assert!(m("%bx%", "abxyz"));
        assert!(m("a_c", "abc"));
        assert!(m("a_c", "aéc"));
        assert!(!m("a_c", "ac"));
        assert!(m("%", ""));
        assert!(m("a%b%c", "a\nxxb\nc"));
        assert!(!m("a%b%c", "a\nxxb\nd"));
        assert!(m("%a%a%", "banana"));
        assert!(m("_%_", "ab"));
        assert!(!m("_%_", "a"));
        assert!(m("%%", "x"));
        assert!(m("%_b", "ab"));
        assert!(!m("%_b", "b"));
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("sume"), Some("sum"));
        assert_eq!(suggest("cont"), Some("count"));
        assert_eq!(suggest("lenght"), Some("length"));
        assert_eq!(suggest("percentil"), Some("percentile"));
        assert_eq!(suggest("xyzzy"), None);
    }

    #[test]
    fn names_from_other_tools_get_what_ndq_writes() {
        for (name, want) in [
            ("mean", "avg"),
            ("averge", "avg"),
            ("median", "percentile(x, 50)"),
            ("nvl", "coalesce"),
            ("substring", "substr"),
            ("len", "length"),
            ("toint", "tonumber"),
            ("tostr", "tostring"),
            ("mod", "a % b"),
            ("dcount", "count_distinct"),
            ("date_trunc", "time(@t, 5m)"),
        ] {
            assert_eq!(suggest(name), Some(want), "{name}");
        }
    }

    /// A suggestion that changes the meaning is worse than none: `mean` is not `min`, `power`
    /// not `lower`, `log` not `now`.
    #[test]
    fn short_names_far_from_any_get_no_suggestion() {
        for name in [
            "power", "pow", "log", "any", "all", "day", "least", "sign", "x", "p",
        ] {
            assert_eq!(suggest(name), None, "{name}");
        }
    }

    proptest::proptest! {
        /// Whatever `like` matches, `ilike` matches: on texts of ASCII and of characters whose
        /// case folding changes their count (`ß`, `İ`, `ﬁ`), patterns cut from the text.
        #[test]
        fn ilike_matches_whatever_like_matches(
            text in proptest::collection::vec(proptest::sample::select(vec!['a', 'B', 'ß', 'ẞ', 'İ', 'ﬁ', 'É', 'é', 'ſ', 'S']), 0..8),
            wild in proptest::collection::vec(0u8..4, 0..8),
        ) {
            let text: String = text.into_iter().collect();
            let pattern: String = text
                .chars()
                .zip(wild.iter().chain(std::iter::repeat(&0)))
                .map(|(c, w)| match w {
                    1 => '_',
                    2 => '%',
                    _ => c,
                })
                .collect();
            let mut buf = String::new();
            if Like::new(&pattern).matches(&text) {
                proptest::prop_assert!(Like::new_ci(&pattern).matches_ci(&text, &mut buf), "{text} {pattern}");
            }
            let upper = text.to_uppercase();
            proptest::prop_assert!(Like::new_ci(&text).matches_ci(&upper, &mut buf), "{text} {upper}");
        }
    }

    #[test]
    fn fold() {
        let mut a = String::new();
        let mut b = String::new();
        fold_into("STRASSE", &mut a);
        fold_into("straße", &mut b);
        assert_eq!(a, b);
        fold_into("É", &mut a);
        fold_into("é", &mut b);
        assert_eq!(a, b);
        for (x, y) in [("ẞ", "ß"), ("STRAẞE", "straße"), ("STRAẞE", "STRASSE")] {
            fold_into(x, &mut a);
            fold_into(y, &mut b);
            assert_eq!(a, b, "{x} {y}");
        }
    }
}
