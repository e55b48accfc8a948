//! Schema inference: the columns and types of a table, from a sample of its lines.
//!
//! The paths and the JSON types seen at each are `ndq keys`'s (the `ndq-keys` crate's
//! [`Collector`]); a second look at the same sample decides what a number column holds and
//! whether the time property is RFC 3339 text. The rules (also in the README):
//!
//! - a path whose values (not `null`) are all objects is no column: its members are, named
//!   `parent.member` (keys that contain a `.` cannot be named and are left out);
//! - any other path is a column, and the paths under it are not:
//!   - only numbers, all integers in the i64 range: `Int64`;
//!   - only numbers, some with decimals: `Decimal128(38, s)`, `s` the most decimals a sampled
//!     number has, when every sampled number is exact in 28 significant digits and
//!     `s <= 18`; else `Float64`;
//!   - only `true`/`false`: `Boolean`;
//!   - only strings, at the time property (`@t` unless named), every one RFC 3339 with an
//!     offset: `Timestamp(ns, "UTC")`;
//!   - anything else (other strings, arrays, mixed types, only `null`): `Utf8View`, which
//!     reads a non-string as its JSON text.
//!
//! Every column is nullable. A later line whose value does not fit the inferred type (more
//! decimals, text in a number column) reads as `NULL` and is counted in `mismatched_values`,
//! as with a given schema.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::catalog::Session;
use datafusion::common::Result;
use ndq_keys::{Collector, JsonType, Step};
use ndq_scan::{Parser, Scanner, Value, decimal_parts};

use crate::NdjsonTable;

/// The most decimals an inferred `Decimal128` column has; more make it `Float64`.
const MAX_SCALE: u32 = 18;

/// How a schema is inferred: how much of the table is read, and which property is the time.
///
/// The sample is the first lines of the first files, in the table's order, until either bound.
///
/// ```no_run
/// # use std::sync::Arc;
/// # use datafusion::prelude::SessionContext;
/// # use ndq_datafusion::Inference;
/// # async fn run() -> datafusion::common::Result<()> {
/// let ctx = SessionContext::new();
/// let table = Inference::new()
///     .max_lines(50_000)
///     .time_field("timestamp")
///     .table(&ctx.state(), ["/var/log/app"])
///     .await?;
/// ctx.register_table("logs", Arc::new(table))?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Inference {
    max_lines: usize,
    max_bytes: u64,
    time_field: String,
}

impl Default for Inference {
    fn default() -> Inference {
        Inference {
            max_lines: 10_000,
            max_bytes: 16 << 20,
            time_field: "@t".to_owned(),
        }
    }
}

impl Inference {
    /// A sample of at most 10,000 lines and 16 MiB; the time property is `@t`.
    pub fn new() -> Inference {
        Inference::default()
    }

    /// Read at most `n` lines (blank lines not counted).
    pub fn max_lines(mut self, n: usize) -> Inference {
        self.max_lines = n;
        self
    }

    /// Read the lines that start in the first `n` bytes of the input.
    pub fn max_bytes(mut self, n: u64) -> Inference {
        self.max_bytes = n;
        self
    }

    /// The path of the time property (`@t` by default; nested paths written `a.b`).
    pub fn time_field(mut self, path: impl Into<String>) -> Inference {
        self.time_field = path.into();
        self
    }

    /// A table over `paths` (as [`NdjsonTable::try_new`] takes them) with the schema inferred
    /// from its sample. URLs are read through the object stores of `state`.
    pub async fn table<I, P>(&self, state: &dyn Session, paths: I) -> Result<NdjsonTable>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let mut table = NdjsonTable::try_new(paths, Arc::new(Schema::empty()))?;
        let schema = self.schema_of_table(state, &table).await?;
        table.set_schema(schema)?;
        Ok(table)
    }

    /// The schema inferred from the sample of `table`'s files.
    pub(crate) async fn schema_of_table(
        &self,
        state: &dyn Session,
        table: &NdjsonTable,
    ) -> Result<SchemaRef> {
        let mut sample: Vec<Vec<u8>> = Vec::new();
        let mut left = self.max_bytes;
        for mut file in table.list(state).await? {
            if sample.len() >= self.max_lines || left == 0 {
                break;
            }
            file.end = file.end.min(left);
            left -= file.end;
            let mut lines = file.open(state.runtime_env()).await?;
            while sample.len() < self.max_lines {
                let Some(line) = lines.next().await.map_err(|e| file.error(e))? else {
                    break;
                };
                if !line.iter().all(u8::is_ascii_whitespace) {
                    sample.push(line.to_vec());
                }
            }
        }
        Ok(Arc::new(
            self.schema_of_lines(sample.iter().map(Vec::as_slice)),
        ))
    }

    /// The schema inferred from `lines` (each without its line terminator; lines that are
    /// not JSON objects are passed over).
    pub fn schema_of_lines<'a>(&self, lines: impl IntoIterator<Item = &'a [u8]>) -> Schema {
        let lines: Vec<&[u8]> = lines.into_iter().collect();
        let mut keys = Collector::new();
        for line in &lines {
            let _ = keys.line(line);
        }
        let mut columns: Vec<Column> = Vec::new();
        // Paths that are columns or cannot be named: nothing under them is a column.
        let mut closed: HashSet<Vec<String>> = HashSet::new();
        for stats in keys.finish() {
            let mut path = Vec::new();
            for step in &stats.steps {
                match step {
                    Step::Key(k) => path.push(k.to_string()),
                    // Under an array: in the array's column, as text.
                    Step::Elem => path.push(String::new()),
                }
            }
            if (1..path.len()).any(|n| closed.contains(&path[..n])) {
                continue;
            }
            if path.iter().any(|k| k.is_empty() || k.contains('.')) {
                closed.insert(path);
                continue;
            }
            let seen: Vec<JsonType> = stats
                .types_seen()
                .map(|(t, _)| t)
                .filter(|&t| t != JsonType::Null)
                .collect();
            let name = path.join(".");
            let kind = match seen.as_slice() {
                [JsonType::Object] => Guess::Object,
                [JsonType::Number] => Guess::Number(Numbers::default()),
                [JsonType::Boolean] => Guess::Fixed(DataType::Boolean),
                [JsonType::String] if name == self.time_field => Guess::Time(true),
                _ => Guess::Fixed(DataType::Utf8View),
            };
            if !matches!(kind, Guess::Object) {
                closed.insert(path.clone());
            }
            columns.push(Column { path, name, kind });
        }
        // An object is a column only if no member of it ever was (it was always `{}`): text.
        let parents: HashSet<Vec<String>> = columns
            .iter()
            .filter(|c| !matches!(c.kind, Guess::Object))
            .flat_map(|c| (1..c.path.len()).map(|n| c.path[..n].to_vec()))
            .collect();
        columns.retain_mut(|c| {
            if matches!(c.kind, Guess::Object) {
                c.kind = Guess::Fixed(DataType::Utf8View);
                return !parents.contains(&c.path);
            }
            true
        });
        refine(&mut columns, &lines);
        Schema::new(
            columns
                .into_iter()
                .map(|c| Field::new(c.name, c.kind.data_type(), true))
                .collect::<Vec<_>>(),
        )
    }
}

/// A column being inferred.
struct Column {
    path: Vec<String>,
    name: String,
    kind: Guess,
}

enum Guess {
    /// Only objects seen: a column only if none of its members is.
    Object,
    Fixed(DataType),
    Number(Numbers),
    /// Whether every string seen is an RFC 3339 instant.
    Time(bool),
}

/// What the numbers of a column need.
#[derive(Default)]
struct Numbers {
    /// Some number is not an integer in the i64 range.
    not_int: bool,
    /// Some number is not exact in a `Decimal` (28 significant digits).
    not_decimal: bool,
    /// The most decimals of a number.
    scale: u32,
}

impl Guess {
    fn data_type(&self) -> DataType {
        match self {
            Guess::Fixed(t) => t.clone(),
            Guess::Object => DataType::Utf8View,
            Guess::Number(n) if !n.not_int => DataType::Int64,
            Guess::Number(n) if !n.not_decimal && n.scale <= MAX_SCALE => {
                DataType::Decimal128(38, n.scale as i8)
            }
            Guess::Number(_) => DataType::Float64,
            Guess::Time(true) => DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            Guess::Time(false) => DataType::Utf8View,
        }
    }
}

/// Read the sample again for the columns whose type depends on their values.
fn refine(columns: &mut [Column], lines: &[&[u8]]) {
    let mut columns: Vec<&mut Column> = columns
        .iter_mut()
        .filter(|c| matches!(c.kind, Guess::Number(_) | Guess::Time(_)))
        .collect();
    if columns.is_empty() {
        return;
    }
    let mut parser = Parser::new(Scanner::detect());
    for line in lines {
        let Ok(doc) = parser.parse(line) else {
            continue;
        };
        let root = doc.root();
        for column in &mut columns {
            let top = root.get(&column.path[0]);
            let value = column.path[1..].iter().try_fold(top, |v, key| match v {
                Some(Value::Object(o)) => Some(o.get(key)),
                _ => None,
            });
            match (&mut column.kind, value.flatten()) {
                (Guess::Number(n), Some(Value::Number(v))) => {
                    let raw = v.raw().as_bytes();
                    let (int, scale) = match decimal_parts(raw) {
                        Some((_, scale)) => (scale == 0, Some(scale)),
                        None => match v.to_decimal() {
                            Some(d) => (
                                d.scale() == 0 && i64::try_from(d.mantissa()).is_ok(),
                                Some(d.scale()),
                            ),
                            None => (false, None),
                        },
                    };
                    n.not_int |= !int;
                    match scale {
                        Some(s) => n.scale = n.scale.max(s),
                        None => n.not_decimal = true,
                    }
                }
                (Guess::Time(all), Some(Value::String(s))) => {
                    *all &= s.unescaped().parse::<jiff::Timestamp>().is_ok();
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infer(lines: &[&str]) -> Vec<(String, DataType)> {
        Inference::new()
            .schema_of_lines(lines.iter().map(|l| l.as_bytes()))
            .fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect()
    }

    #[test]
    fn numbers_are_integers_decimals_or_floats() {
        let got = infer(&[
            r#"{"i": 1, "d": 1.5, "e": 1e2, "big": 99999999999999999999, "f": 1e-30, "x": 1}"#,
            r#"{"i": -7, "d": 2.125, "e": 3, "big": 1, "f": 1, "x": 1.0000000000000000001}"#,
            r#"{"i": null, "d": 7, "e": 2E+1}"#,
        ]);
        let want = [
            ("i", DataType::Int64),
            ("d", DataType::Decimal128(38, 3)),
            ("e", DataType::Int64),
            ("big", DataType::Decimal128(38, 0)),
            ("f", DataType::Float64),
            ("x", DataType::Float64),
        ];
        assert_eq!(got, want.map(|(n, t)| (n.to_owned(), t)));
    }

    #[test]
    fn objects_flatten_and_other_values_are_text() {
        let got = infer(&[
            r#"{"@t": "2026-11-21T00:00:00Z", "o": {"a": {"b": true}, "s": "x"}, "arr": [{"k": 1}]}"#,
            r#"{"@t": "2026-11-21T00:00:00.5+01:00", "o": null, "m": 1, "e": {}, "n": null}"#,
            r#"{"o": {"a": {"c": "y"}}, "m": "one", "when": "2026-11-21T00:00:00Z", "k.dot": 1}"#,
            r#"{"p": {"q": 1}}"#,
            r#"{"p": 2, "t2": "2026-11-21T00:00:00Z"}"#,
            "not json",
        ]);
        let utc = DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()));
        let want = [
            ("@t", utc),
            ("o.a.b", DataType::Boolean),
            ("o.a.c", DataType::Utf8View),
            ("o.s", DataType::Utf8View),
            ("arr", DataType::Utf8View),
            ("m", DataType::Utf8View),
            ("e", DataType::Utf8View),
            ("n", DataType::Utf8View),
            ("when", DataType::Utf8View),
            ("p", DataType::Utf8View),
            ("t2", DataType::Utf8View),
        ];
        assert_eq!(got, want.map(|(n, t)| (n.to_owned(), t)));
    }

    #[test]
    fn a_time_property_with_other_text_is_text() {
        let got = infer(&[
            r#"{"@t": "2026-11-21T00:00:00Z"}"#,
            r#"{"@t": "yesterday"}"#,
        ]);
        assert_eq!(got, [("@t".to_owned(), DataType::Utf8View)]);
        let named = Inference::new()
            .time_field("a.when")
            .schema_of_lines([br#"{"a": {"when": "2026-11-21T00:00:00+02:00"}}"#.as_slice()]);
        assert!(matches!(
            named.field(0).data_type(),
            DataType::Timestamp(TimeUnit::Nanosecond, _)
        ));
    }
}
