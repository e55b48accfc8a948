//! Notes for a person at a terminal when no line matched: the properties the query names
//! that the lines do not have, and what they have instead.
//!
//! `where Level = 'Error'` on a Serilog log, or `where @l = 'error'` on a pino log, answers
//! nothing and says nothing: a count of 0 looks like good news. So when stderr is a terminal
//! and a query with `where` matched no line, the start of its first plain file with JSON in it
//! (at most [`SAMPLE_LINES`] lines, [`SAMPLE_BYTES`] bytes) is read again, and:
//! - a comparison with a property none of those lines has, which is a value of the other side
//!   (`@l = Error`), is said to need quotes (`@l = 'Error'`);
//! - each other top-level property the query names that none of those lines has gets one
//!   note, with the look-alikes the lines do have, closest first (`@l` for `Level`, `level`
//!   for `@l`, `Elapsed` for `elapsed`), else the names the lines have;
//! - a text compared with `=` that none of those lines has, but some have in other case
//!   (`'error'`, `Error`), is said to be compared with case.
//!
//! Text from the file is shown with its control characters escaped, as in a table. Nothing
//! is read unless the run matched nothing, and scripts (stderr not a terminal) never see it.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::Path;

use ndq_query::edit_distance;
use ndq_scan::{Parser, Scanner, Value};

use crate::bench::grouped;
use crate::input::{Inputs, Source};
use crate::output::table::visible;

/// The most lines and bytes read from the start of the file.
pub const SAMPLE_LINES: usize = 1000;
pub const SAMPLE_BYTES: u64 = 4 << 20;

/// Names the lines have that are listed when none looks like the missing one.
const LISTED: usize = 8;

/// Files tried for lines that are JSON objects (an empty or rotated first file is passed).
const FILES: usize = 16;

/// Names that different logging libraries give the same thing (compared without case):
/// Serilog's compact JSON (`@t`, `@l`, `@mt`, `@m`, `@x`), pino and bunyan (`time`, `level`,
/// `msg`), and the spellings in between.
const ALIKE: &[&[&str]] = &[
    &[
        "@t",
        "time",
        "timestamp",
        "ts",
        "@timestamp",
        "datetime",
        "date",
    ],
    &["@l", "level", "lvl", "severity", "loglevel", "log.level"],
    &["@m", "@mt", "msg", "message", "messagetemplate", "template"],
    &["@x", "exception", "error", "err", "stack", "stacktrace"],
];

/// The notes for a run over `inputs` in which no line matched, of a query that reads `names`
/// (its top-level properties, `time` the time property among them) and tests `tests`
/// (`Plan::text_tests`: a property equal to a text, or to another property). Empty when no
/// input that can be read again (a plain regular file; the first [`FILES`] of them) has a
/// JSON object in its first lines, or when there is nothing to say.
pub fn notes(
    names: &[String],
    time: Option<&str>,
    tests: &[(String, String, bool)],
    inputs: &Inputs,
) -> Vec<String> {
    let watch: Vec<&str> = tests.iter().map(|(k, ..)| k.as_str()).collect();
    let files = inputs.list.iter().filter_map(|i| match &i.source {
        Source::Mapped(path) => Some((path, &i.name)),
        _ => None,
    });
    for (path, name) in files.take(FILES) {
        if let Some(sample) = Sample::read(path, &watch).filter(|s| s.objects > 0) {
            return sample.notes(names, time, tests, name);
        }
    }
    Vec::new()
}

/// A top-level key of the sample.
#[derive(Debug, PartialEq)]
struct Key {
    name: String,
    /// Objects that have it.
    lines: usize,
    /// Whether its first value is a number (a pino `time` or `level`).
    number: bool,
}

/// The top-level keys of the first lines of a file.
#[derive(Debug, Default)]
struct Sample {
    /// JSON objects read.
    objects: usize,
    /// Whether that was every line of the file.
    whole: bool,
    /// Each key, in the order first seen.
    keys: Vec<Key>,
    /// For each watched key, its text values in the order first seen, with the number of
    /// objects that have each (at most [`SAMPLE_LINES`] values).
    values: HashMap<String, Vec<(String, usize)>>,
}

impl Sample {
    fn read(path: &Path, watch: &[&str]) -> Option<Sample> {
        let mut bytes = Vec::new();
        let file = std::fs::File::open(path).ok()?;
        file.take(SAMPLE_BYTES).read_to_end(&mut bytes).ok()?;
        let all_read = (bytes.len() as u64) < SAMPLE_BYTES;
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        if !all_read {
            // The last piece may be cut short.
            lines.pop();
        }
        Some(Sample::of(&lines, all_read, watch))
    }

    /// The keys of `lines` (the first [`SAMPLE_LINES`] that are not blank), and the text
    /// values of the keys in `watch`; `all_read`: they are the whole file.
    fn of(lines: &[&[u8]], all_read: bool, watch: &[&str]) -> Sample {
        let mut parser = Parser::new(Scanner::detect());
        let mut sample = Sample::default();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut taken = 0;
        for line in lines.iter() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if taken == SAMPLE_LINES {
                return sample;
            }
            taken += 1;
            let Ok(doc) = parser.parse(line) else {
                continue;
            };
            sample.objects += 1;
            let mut seen = Vec::new();
            for (key, value) in doc.root().iter() {
                let key = key.unescaped().into_owned();
                let i = *index.entry(key.clone()).or_insert_with(|| {
                    sample.keys.push(Key {
                        name: key.clone(),
                        lines: 0,
                        number: matches!(value, Value::Number(_)),
                    });
                    sample.keys.len() - 1
                });
                // A key twice in one line counts once.
                if !seen.contains(&i) {
                    seen.push(i);
                    sample.keys[i].lines += 1;
                    // The first of a key given twice is the one a query reads.
                    if let (true, Value::String(text)) = (watch.contains(&key.as_str()), value) {
                        let values = sample.values.entry(key).or_default();
                        let text = text.unescaped();
                        match values.iter().position(|(v, _)| *v == text) {
                            Some(at) => values[at].1 += 1,
                            None => values.push((text.into_owned(), 1)),
                        }
                    }
                }
            }
        }
        sample.whole = all_read;
        sample
    }

    fn has(&self, name: &str) -> bool {
        self.keys.iter().any(|k| k.name == name)
    }

    /// The text values of `key` (watched) equal to `text` but for case, with their counts.
    fn in_any_case<'s>(
        &'s self,
        key: &str,
        text: &str,
    ) -> impl Iterator<Item = &'s (String, usize)> + 's {
        let folded = text.to_lowercase();
        self.values
            .get(key)
            .into_iter()
            .flatten()
            .filter(move |(v, _)| v.to_lowercase() == folded)
    }

    /// Every note on the sample (see [`notes`]): values written without quotes, then missing
    /// properties (but those), then texts found in other case.
    fn notes(
        &self,
        names: &[String],
        time: Option<&str>,
        tests: &[(String, String, bool)],
        file: &str,
    ) -> Vec<String> {
        let (mut notes, unquoted) = self.unquoted(tests, file);
        let names: Vec<String> = names
            .iter()
            .filter(|n| !unquoted.contains(n))
            .cloned()
            .collect();
        notes.extend(self.absent(&names, time, file));
        notes.extend(self.case_only(tests, file));
        notes
    }

    /// The notes on the names in `names` that no object of the sample has: one for each with
    /// look-alikes, one for all the others. `time`: the time property (`--time-field`), which
    /// may be named by `--since` alone; `file`: the file's name as the user gave it.
    fn absent(&self, names: &[String], time: Option<&str>, file: &str) -> Vec<String> {
        if self.objects == 0 {
            return Vec::new();
        }
        let (one, several) = match self.objects {
            1 => ("is not in", "are not in"),
            _ => ("is in none of", "are in none of"),
        };
        let span = self.span(file);
        let mut notes = Vec::new();
        let mut unlike = Vec::new();
        for name in names {
            if self.has(name) {
                continue;
            }
            // Closest first (then in the order first seen), three at most.
            let mut alike: Vec<(u8, usize, &Key)> = self
                .keys
                .iter()
                .enumerate()
                .filter_map(|(i, k)| likeness(name, &k.name).map(|d| (d, i, k)))
                .collect();
            alike.sort_by_key(|&(d, i, _)| (d, i));
            let alike: Vec<&Key> = alike.into_iter().take(3).map(|(.., k)| k).collect();
            let Some(best) = alike.first() else {
                unlike.push(as_written(name));
                continue;
            };
            let written: Vec<String> = alike.iter().map(|k| as_written(&k.name)).collect();
            let mut note = format!(
                "no line matched; {} {one} {span} (did you mean {}?",
                as_written(name),
                written.join(" or ")
            );
            let group = |of: &str| {
                ALIKE
                    .iter()
                    .position(|g| g.contains(&of.to_lowercase().as_str()))
            };
            let best_name = as_written(&best.name);
            if Some(name.as_str()) == time || group(name) == Some(0) && group(&best.name) == Some(0)
            {
                note.push_str(&if best.number {
                    // pino and bunyan write epoch milliseconds, which --since cannot read.
                    format!(
                        " {best_name} holds numbers: where datetime({best_name}, 'ms') >= \
                         now() - 1h reads epoch milliseconds"
                    )
                } else {
                    format!(" --time-field {best_name} makes it the time property")
                });
            } else if best.number && group(name) == Some(1) && group(&best.name) == Some(1) {
                // pino's 30, 40, 50.
                note.push_str(&format!(
                    " {best_name} holds numbers: level({best_name}) = 'Error' names them"
                ));
            }
            note.push(')');
            notes.push(note);
        }
        if !unlike.is_empty() {
            let mut listed: Vec<String> = self
                .keys
                .iter()
                .take(LISTED)
                .map(|k| as_written(&k.name))
                .collect();
            if self.keys.len() > LISTED {
                listed.push("…".into());
            }
            // `is in none of` -> `are in none of` for several names.
            let verb = if unlike.len() == 1 { one } else { several };
            let last = unlike.pop().unwrap_or_default();
            let names = match unlike.is_empty() {
                true => last,
                false => format!("{} and {last}", unlike.join(", ")),
            };
            let have = if self.objects == 1 { "has" } else { "have" };
            notes.push(format!(
                "no line matched; {names} {verb} {span}, which {have} {}",
                listed.join(", ")
            ));
        }
        notes
    }

    /// The lines read, for a note: `the 294 lines of f`, `the first 1,000 lines of f`.
    fn span(&self, file: &str) -> String {
        let file = visible(file);
        match (self.whole, self.objects) {
            (true, 1) => format!("the one line of {file}"),
            (true, n) => format!("the {} lines of {file}", grouped(n as u64)),
            (false, 1) => format!("the first line of {file}"),
            (false, n) => format!("the first {} lines of {file}", grouped(n as u64)),
        }
    }

    /// A note for each of `tests` (a property equal to a text) whose text no line read has,
    /// where some have it in other case: `@l = 'error'` where the lines say `Error`.
    fn case_only(&self, tests: &[(String, String, bool)], file: &str) -> Vec<String> {
        let mut notes = Vec::new();
        for (key, text, _) in tests.iter().filter(|(.., bare)| !bare) {
            if self.in_any_case(key, text).any(|(v, _)| v == text) {
                continue;
            }
            let like: Vec<String> = self
                .in_any_case(key, text)
                .take(3)
                .map(|(v, n)| format!("{} on {}", quoted(v), grouped(*n as u64)))
                .collect();
            if like.is_empty() {
                continue;
            }
            notes.push(format!(
                "no line matched; {} is never {} in {}, but is {} (= tells case apart; ilike does not)",
                as_written(key),
                quoted(text),
                self.span(file),
                like.join(" and ")
            ));
        }
        notes
    }

    /// For each comparison of two properties in `tests` whose second none of the lines has,
    /// but which some have as the first's value (`@l = Error`): a note that a text is
    /// written in quotes. The notes, and those second names (so that they get no other note).
    fn unquoted(&self, tests: &[(String, String, bool)], file: &str) -> (Vec<String>, Vec<String>) {
        let mut notes = Vec::new();
        let mut names = Vec::new();
        for (key, name, _) in tests.iter().filter(|(.., bare)| *bare) {
            if self.has(name) || names.contains(name) {
                continue;
            }
            // The value as the lines write it, in its case.
            let Some((value, n)) = self.in_any_case(key, name).next() else {
                continue;
            };
            notes.push(format!(
                "no line matched; {} is not a property of {}, but {} is {} on {} of them: \
                 a text is written in quotes ({} = {})",
                as_written(name),
                self.span(file),
                as_written(key),
                quoted(value),
                grouped(*n as u64),
                as_written(key),
                quoted(value),
            ));
            names.push(name.clone());
        }
        (notes, names)
    }
}

/// How much `have` looks like what the user meant by `want`, lower is closer: the same but
/// for case (0), names of the same thing ([`ALIKE`], 1), or one or two letters apart (one
/// for names of fewer than 5 letters: 2 and 3); `None` when it does not.
fn likeness(want: &str, have: &str) -> Option<u8> {
    let (w, h) = (want.to_lowercase(), have.to_lowercase());
    if w == h {
        return Some(0);
    }
    if ALIKE
        .iter()
        .any(|group| group.contains(&w.as_str()) && group.contains(&h.as_str()))
    {
        return Some(1);
    }
    let most = if w.chars().count() >= 5 { 2 } else { 1 };
    let d = edit_distance(&w, &h);
    (w.chars().count() >= 3 && d <= most).then_some(1 + d as u8)
}

/// `text` as a query's string literal, control characters escaped.
fn quoted(text: &str) -> String {
    format!("'{}'", visible(text).replace('\'', "''"))
}

/// A top-level key as a query reaches it: bare when it can be ([`ndq_keys::is_identifier`],
/// as `ndq keys` writes paths), else `['...']` (control characters escaped).
fn as_written(key: &str) -> String {
    if ndq_keys::is_identifier(key) {
        key.to_string()
    } else {
        format!("[{}]", quoted(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(text: &str, whole: bool) -> Sample {
        let lines: Vec<&[u8]> = text.as_bytes().split(|&b| b == b'\n').collect();
        Sample::of(&lines, whole, &["@l", "k"])
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_missing_property_is_named_with_its_look_alike() {
        let s = sample(
            "{\"@t\":\"x\",\"@l\":\"Error\",\"Elapsed\":3}\n{\"@t\":\"y\",\"Elapsed\":4}\n",
            true,
        );
        assert_eq!(
            s.absent(&names(&["Level", "Elapsed", "elapsd"]), None, "app.log"),
            [
                "no line matched; Level is in none of the 2 lines of app.log (did you mean @l?)",
                "no line matched; elapsd is in none of the 2 lines of app.log \
                 (did you mean Elapsed?)",
            ]
        );
    }

    #[test]
    fn serilog_and_pino_names_are_look_alikes_both_ways() {
        let pino = sample("{\"level\":30,\"time\":1,\"msg\":\"hi\"}", true);
        assert_eq!(
            pino.absent(&names(&["@l", "@t", "@mt"]), None, "p.log"),
            [
                "no line matched; @l is not in the one line of p.log (did you mean level? level \
                 holds numbers: level(level) = 'Error' names them)",
                "no line matched; @t is not in the one line of p.log (did you mean time? time \
                 holds numbers: where datetime(time, 'ms') >= now() - 1h reads epoch milliseconds)",
                "no line matched; @mt is not in the one line of p.log (did you mean msg?)",
            ]
        );
        let serilog = sample("{\"@t\":1,\"@mt\":\"a\",\"@m\":\"b\"}", false);
        assert_eq!(
            serilog.absent(&names(&["message"]), None, "s.log"),
            [
                "no line matched; message is not in the first line of s.log \
              (did you mean @mt or @m?)"
            ]
        );
    }

    #[test]
    fn without_a_look_alike_the_names_the_lines_have_are_listed() {
        let s = sample("{\"a\":1,\"b\":2,\"User-Agent\":3}\n{\"a\":1}", false);
        assert_eq!(
            s.absent(&names(&["Zebra"]), None, "f"),
            [
                "no line matched; Zebra is in none of the first 2 lines of f, \
              which have a, b, ['User-Agent']"
            ]
        );
        let many: String = (0..12).map(|i| format!("\"key{i}\":1,")).collect();
        let s = sample(&format!("{{{many}\"z\":0}}"), true);
        let note = &s.absent(&names(&["Zebra"]), None, "f")[0];
        assert!(
            note.ends_with("which has key0, key1, key2, key3, key4, key5, key6, key7, …"),
            "{note}"
        );
    }

    #[test]
    fn the_time_property_gets_the_option_that_reads_it() {
        let text = sample(
            "{\"timestamp\":\"2026-11-21T10:00:00Z\"}\n{\"timestamp\":\"2026-11-21T10:00:01Z\"}",
            true,
        );
        assert_eq!(
            text.absent(&names(&["@t"]), Some("@t"), "a.log"),
            ["no line matched; @t is in none of the 2 lines of a.log \
              (did you mean timestamp? --time-field timestamp makes it the time property)"]
        );
        // pino's epoch milliseconds: --time-field would read them as seconds.
        let pino = sample("{\"level\":30,\"time\":1}\n{\"level\":30,\"time\":2}", true);
        assert_eq!(
            pino.absent(&names(&["@t"]), Some("@t"), "p.log"),
            [
                "no line matched; @t is in none of the 2 lines of p.log (did you mean time? time \
              holds numbers: where datetime(time, 'ms') >= now() - 1h reads epoch milliseconds)"
            ]
        );
    }

    #[test]
    fn the_closest_look_alikes_come_first_and_file_text_is_escaped() {
        let keys: String = (0..600).map(|i| format!("\"k{i}\":1,")).collect();
        let s = sample(
            &format!("{{{keys}\"Lvl\":\"a\",\"LEVEL\":\"b\",\"level\":\"c\",\"a\\u001b[31mb\":4}}"),
            true,
        );
        let notes = s.absent(&names(&["k4999", "Level", "a\u{1b}[31mc"]), None, "f\u{7}");
        assert_eq!(
            notes,
            [
                "no line matched; k4999 is not in the one line of f\\u{7} \
                 (did you mean k499 or k49 or k99?)",
                "no line matched; Level is not in the one line of f\\u{7} \
                 (did you mean LEVEL or level or Lvl?)",
                "no line matched; ['a\\u{1b}[31mc'] is not in the one line of f\\u{7} \
                 (did you mean ['a\\u{1b}[31mb']?)",
            ]
        );
        assert!(
            notes.iter().all(|n| !n.chars().any(char::is_control)),
            "{notes:?}"
        );
    }

    #[test]
    fn names_without_look_alikes_share_one_note() {
        let s = sample("{\"level\":30}", true);
        assert_eq!(
            s.absent(&names(&["Foo", "@l", "Bar", "Baz"]), None, "f"),
            [
                "no line matched; @l is not in the one line of f (did you mean level? level holds \
                 numbers: level(level) = 'Error' names them)",
                "no line matched; Foo, Bar and Baz are not in the one line of f, which has level",
            ]
        );
    }

    #[test]
    fn a_text_found_only_in_other_case_is_named() {
        let s = sample(
            "{\"@l\":\"Error\"}\n{\"@l\":\"ERROR\",\"@l\":\"error\"}\n{\"@l\":\"Error\"}\n{\"@l\":3}\n\
             {\"k\":\"it's\"}",
            false,
        );
        let tests = |v: &[(&str, &str)]| -> Vec<(String, String, bool)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string(), false))
                .collect()
        };
        assert_eq!(
            s.case_only(
                &tests(&[
                    ("@l", "error"),
                    ("k", "IT'S"),
                    ("@l", "Error"),
                    ("@l", "warn")
                ]),
                "f"
            ),
            [
                "no line matched; @l is never 'error' in the first 5 lines of f, but is 'Error' \
                 on 2 and 'ERROR' on 1 (= tells case apart; ilike does not)",
                "no line matched; k is never 'IT''S' in the first 5 lines of f, but is 'it''s' \
                 on 1 (= tells case apart; ilike does not)",
            ]
        );
        // Only the watched keys' values are kept.
        let other = sample("{\"x\":\"A\"}", true);
        assert!(other.case_only(&tests(&[("x", "a")]), "f").is_empty());
    }

    #[test]
    fn a_value_written_without_quotes_is_named_once() {
        let s = sample(
            "{\"@l\":\"Error\",\"@x\":\"boom\"}\n{\"@l\":\"Information\"}\n",
            true,
        );
        let tests = vec![
            ("@l".to_string(), "Error".to_string(), true),
            ("@l".to_string(), "Warning".to_string(), true),
        ];
        let (notes, names) = s.unquoted(&tests, "f");
        assert_eq!(
            notes,
            [
                "no line matched; Error is not a property of the 2 lines of f, but @l is 'Error' \
              on 1 of them: a text is written in quotes (@l = 'Error')"
            ]
        );
        assert_eq!(names, ["Error"]);
        // In other case: the fix is written as the lines write it.
        let lower = vec![("@l".to_string(), "error".to_string(), true)];
        assert_eq!(
            s.unquoted(&lower, "f").0,
            [
                "no line matched; error is not a property of the 2 lines of f, but @l is 'Error' \
              on 1 of them: a text is written in quotes (@l = 'Error')"
            ]
        );
        // Through `notes`: Error gets no "did you mean @x" beside it.
        let names: Vec<String> = ["@l", "Error", "Warning"].map(String::from).to_vec();
        let all = s.notes(&names, None, &tests, "f");
        assert_eq!(all.len(), 2, "{all:?}");
        assert!(
            all[1].starts_with("no line matched; Warning is in none of"),
            "{all:?}"
        );
    }

    #[test]
    fn no_note_when_every_name_is_present_or_nothing_parsed() {
        let s = sample("{\"a\":1}\nnot json\n\n", true);
        assert!(s.absent(&names(&["a"]), None, "f").is_empty());
        let bad = sample("not json\n[1]\n", true);
        assert!(bad.absent(&names(&["a"]), None, "f").is_empty());
    }

    #[test]
    fn the_sample_stops_after_its_lines_and_counts_keys_once_per_line() {
        let text: String = (0..SAMPLE_LINES + 5)
            .map(|i| format!("{{\"n\":{i},\"n\":0}}\n\n"))
            .collect();
        let s = sample(&format!("{text}{{\"late\":1}}\n"), true);
        assert_eq!(s.objects, SAMPLE_LINES);
        assert_eq!(
            s.keys,
            [Key {
                name: "n".into(),
                lines: SAMPLE_LINES,
                number: true
            }]
        );
        assert_eq!(
            s.absent(&names(&["late"]), None, "f"),
            ["no line matched; late is in none of the first 1,000 lines of f, which have n"]
        );
    }

    #[test]
    fn look_alikes() {
        assert_eq!(likeness("Level", "level"), Some(0));
        assert_eq!(likeness("Level", "@l"), Some(1));
        assert_eq!(likeness("RequestPth", "RequestPath"), Some(2));
        assert_eq!(likeness("StatsCod", "StatusCode"), Some(3));
        assert_eq!(likeness("id", "ip"), None, "short names must match closely");
        assert_eq!(likeness("Ids", "Id"), Some(2));
        assert_eq!(likeness("Elapsed", "Message"), None);
        assert_eq!(as_written("a b"), "['a b']");
        assert_eq!(as_written("it's"), "['it''s']");
        assert_eq!(as_written("@l"), "@l");
    }
}
