//! `level(x)` and `severity(x)`: the many spellings of a log level (Serilog's `Warning`,
//! log15's `wrn`, pino's `40`) mapped to one canonical name and its rank, as the language reference's
//! Levels table says.
//!
//! Invariants: a text form matches only when it is one of the table's names, ignoring ASCII
//! case, with nothing around it (`' warn'` and `'warn2'` are not levels); a number matches only
//! when it equals one of bunyan's and pino's 10, 20, ... 60 (`40.0` and `4e1` are 40); anything
//! else, of any type, gives null. `severity` is null exactly when `level` is.

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use crate::value::{Num, Val};

/// The canonical names, by rank - 1.
const NAMES: [&str; 6] = [
    "Verbose",
    "Debug",
    "Information",
    "Warning",
    "Error",
    "Fatal",
];

/// Each accepted spelling (lowercase) and its rank.
const SPELLINGS: &[(&str, u8)] = &[
    ("verbose", 1),
    ("verb", 1),
    ("vrb", 1),
    ("trace", 1),
    ("trc", 1),
    ("debug", 2),
    ("dbug", 2),
    ("dbg", 2),
    ("information", 3),
    ("info", 3),
    ("inf", 3),
    ("warning", 4),
    ("warn", 4),
    ("wrn", 4),
    ("error", 5),
    ("err", 5),
    ("eror", 5),
    ("fatal", 6),
    ("fatl", 6),
    ("ftl", 6),
    ("critical", 6),
    ("crit", 6),
    ("panic", 6),
];

/// The rank (1 = Verbose ... 6 = Fatal) of a level value; `None` when it is not one.
pub(crate) fn rank(v: &Val<'_>) -> Option<u8> {
    match v {
        Val::Str(s, _) => SPELLINGS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(s))
            .map(|&(_, r)| r),
        Val::Num(n, _) => {
            let d = match *n {
                Num::Dec(d) => d,
                Num::Float(_) => n.as_decimal()?,
            };
            if !d.fract().is_zero() || d % Decimal::TEN != Decimal::ZERO {
                return None;
            }
            (d / Decimal::TEN).to_u8().filter(|r| (1..=6).contains(r))
        }
        _ => None,
    }
}

/// `level(x)`: the canonical name, or null.
pub(crate) fn level(v: &Val<'_>) -> Val<'static> {
    rank(v).map_or(Val::Null, |r| Val::string(NAMES[usize::from(r) - 1]))
}

/// `severity(x)`: the rank of `level(x)`, or null.
pub(crate) fn severity(v: &Val<'_>) -> Val<'static> {
    rank(v).map_or(Val::Null, |r| Val::number(Num::Dec(Decimal::from(r))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::parse_number;

    fn num(s: &str) -> Val<'static> {
        Val::number(parse_number(s).unwrap())
    }

    #[test]
    fn every_spelling_in_any_ascii_case() {
        for &(name, r) in SPELLINGS {
            for written in [name.to_owned(), name.to_uppercase(), {
                let mut c = name.chars();
                c.next().map_or(String::new(), |f| {
                    f.to_uppercase().collect::<String>() + c.as_str()
                })
            }] {
                assert_eq!(rank(&Val::string(written.clone())), Some(r), "{written}");
            }
        }
        for canonical in NAMES {
            assert!(rank(&Val::string(canonical)).is_some());
        }
    }

    #[test]
    fn numbers_are_bunyan_and_pino_levels() {
        for (text, r) in [
            ("10", 1),
            ("20", 2),
            ("30", 3),
            ("40", 4),
            ("40.0", 4),
            ("4e1", 4),
            ("50", 5),
            ("60", 6),
        ] {
            assert_eq!(rank(&num(text)), Some(r), "{text}");
        }
        for text in ["0", "5", "15", "35", "40.5", "70", "-10", "1e400", "100"] {
            assert_eq!(rank(&num(text)), None, "{text}");
        }
    }

    #[test]
    fn anything_else_is_not_a_level() {
        for v in [
            Val::Null,
            Val::Bool(true),
            Val::string(""),
            Val::string(" warn"),
            Val::string("warn "),
            Val::string("warnings"),
            Val::string("40"),
            Val::string("İnfo"),
            Val::Json(true, "[\"warn\"]".into()),
        ] {
            assert_eq!(rank(&v), None, "{v:?}");
            assert_eq!(level(&v), Val::Null);
            assert_eq!(severity(&v), Val::Null);
        }
    }
}
