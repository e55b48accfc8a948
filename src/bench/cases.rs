//! The cases file: one query per line. Blank lines and lines whose first non-blank character
//! is `#` are skipped (a `#` later in a line is part of the query: `'#'` is a valid string).
//! A UTF-8 byte-order mark and `\r\n` line ends are accepted. Every query is compiled before
//! anything runs, and every bad one is reported with its line number.

use std::fmt;

/// One query of the cases file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// 1-based line number in the cases file.
    pub line: usize,
    /// The line as written, but for trailing whitespace (and a byte-order mark): what is
    /// compiled, so that a query error's column is the column in the file.
    pub text: String,
    /// The query has a `limit`, so a run may stop reading early and its event and hit counts
    /// depend on where it stopped (chunk timing): they are not compared between engines.
    pub limited: bool,
}

impl Case {
    /// The query, without the line's indent.
    pub fn query(&self) -> &str {
        self.text.trim_start()
    }
}

/// The queries of a cases file, in file order.
pub fn parse(text: &str) -> Vec<Case> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let query = line.trim();
            (!query.is_empty() && !query.starts_with('#')).then(|| Case {
                line: i + 1,
                text: line.trim_end().to_string(),
                limited: false,
            })
        })
        .collect()
}

/// Compile every case with `compile`. On failure, one message per bad case, each starting
/// with `NAME:LINE: ` (`name` is how the cases file is shown), in file order.
pub fn compile_all<P, E: fmt::Display>(
    name: &str,
    cases: &[Case],
    compile: impl Fn(&str) -> Result<P, E>,
) -> Result<Vec<P>, Vec<String>> {
    let mut plans = Vec::with_capacity(cases.len());
    let mut errors = Vec::new();
    for case in cases {
        match compile(&case.text) {
            Ok(plan) => plans.push(plan),
            // A query error's first line says what was wrong; the lines after it quote the
            // query with a caret under the column.
            Err(e) => errors.push(format!("{name}:{}: {e}", case.line)),
        }
    }
    if errors.is_empty() {
        Ok(plans)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(line: usize, query: &str) -> Case {
        Case {
            line,
            text: query.trim_end().into(),
            limited: false,
        }
    }

    #[test]
    fn skips_blanks_and_comments_and_keeps_line_numbers() {
        let text = "\u{feff}# the Datalust cases\n\
                    select Message where Elapsed > 200\r\n\
                    \n   \t\n\
                    \t  # indented comment\n\
                    \x20 select count(*) from stream  \n\
                    select Message where Message = '#tag'";
        assert_eq!(
            parse(text),
            [
                case(2, "select Message where Elapsed > 200"),
                case(6, "  select count(*) from stream"),
                case(7, "select Message where Message = '#tag'"),
            ]
        );
        assert_eq!(parse(""), []);
        assert_eq!(parse("# only\n\n"), []);
    }

    /// A stand-in compiler: queries containing `bad` fail.
    fn fake_compile(q: &str) -> Result<usize, String> {
        if q.contains("bad") {
            Err(format!("expected a query\n  {q}\n  ^"))
        } else {
            Ok(q.len())
        }
    }

    #[test]
    fn compiles_all_or_reports_every_bad_line() {
        let good = parse("a\n# c\nbb\n");
        assert_eq!(
            compile_all("cases.txt", &good, fake_compile),
            Ok(vec![1, 2])
        );

        let mixed = parse("ok\nbad one\n\n# bad comment is skipped\nfine\nbad two\n");
        assert_eq!(
            compile_all("cases.txt", &mixed, fake_compile),
            Err(vec![
                "cases.txt:2: expected a query\n  bad one\n  ^".to_string(),
                "cases.txt:6: expected a query\n  bad two\n  ^".to_string(),
            ])
        );
    }
}
