//! Result formats: how rows of [`Value`]s become bytes on stdout.
//!
//! Every format writes into a caller's `Vec<u8>` (one buffer per chunk in the driver), never
//! straight to stdout, so parallel chunks can format their rows and the driver writes the
//! buffers in input order. `table` needs every row to size its columns, so it is the one
//! format that renders all rows at once ([`table::render_within`]); the others stream row by row
//! through [`RowWriter`].
//!
//! How each value is written (the choices the language reference leaves open are marked *):
//!
//! | value | json | table | csv / tsv / raw |
//! |---|---|---|---|
//! | null | `null` | `null` * | empty field * |
//! | boolean | `true` / `false` | same | same |
//! | number from the input | as written (`1.50`) | same | same |
//! | computed number | exact, no exponent (`0.3`) | same | same |
//! | string from the input | as written, escapes kept | unescaped | unescaped |
//! | computed string | JSON-escaped | as is | as is |
//! | array / object | its JSON text | same * | same * |
//!
//! With colour on stdout ([`RowWriter::with_color`]), json rows and `select *` lines go
//! through [`color::json`] and tables are rendered with [`color::Palette`]; csv, tsv and raw
//! are never coloured. Colour only adds escape sequences around the same bytes.
//!
//! `chart` ([`chart`]) draws an aggregation's rows rather than writing them: it needs the
//! plan's columns ([`RowWriter::with_chart`]) and every row.
//!
//! `parquet` and `arrow` are binary ([`Format::binary`]): each row is written in ndq-arrow's
//! byte form and `crate::binary::run` turns the driver's output into record batches (their types:
//! `ndq_arrow::column`).
//!
//! A float outside Decimal's range that is not finite (never produced from JSON input, but
//! possible in arithmetic) is written as `null` / an empty field *.

pub mod chart;
pub mod color;
pub mod csv;
pub mod json;
pub mod raw;
pub mod table;

use std::borrow::Cow;

use ndq_query::{Value, unescape_json_str};

/// An output format, as chosen with `-o/--output` (the doc comments of the variants are the
/// `--help` text of its values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
// Without the `arrow` feature the binary formats are never offered nor made.
#[cfg_attr(not(feature = "arrow"), allow(dead_code))]
pub enum Format {
    /// One JSON object per row.
    Json,
    /// Aligned columns with a header.
    // (It needs all rows before writing any.)
    Table,
    /// Comma-separated, RFC 4180 quoting, with a header.
    Csv,
    /// Tab-separated, backslash escapes, with a header.
    // (Tabs, newlines and backslashes are escaped.)
    Tsv,
    /// Values alone, tab-separated, no header.
    Raw,
    /// An aggregation drawn with block characters: bars per group, or a histogram over
    /// time() buckets; sized to the terminal (COLUMNS, LINES; 80x24 in a pipe).
    // (It needs all rows before drawing any.)
    Chart,
    /// A Parquet file, with typed columns (stdout must not be a terminal).
    #[cfg_attr(not(feature = "arrow"), value(skip))]
    Parquet,
    /// An Arrow IPC stream, with typed columns (stdout must not be a terminal).
    #[cfg_attr(not(feature = "arrow"), value(skip))]
    Arrow,
}

impl Format {
    /// Whether rows can be written one by one as they come (all but `table` and `chart`).
    pub fn streams(self) -> bool {
        !matches!(self, Format::Table | Format::Chart)
    }

    /// Whether the format is binary (`parquet`, `arrow`): never for a terminal, never for
    /// whole lines (`select *`).
    pub fn binary(self) -> bool {
        matches!(self, Format::Parquet | Format::Arrow)
    }

    /// `-o NAME` of a binary format, for messages.
    pub fn flag(self) -> &'static str {
        match self {
            Format::Arrow => "-o arrow",
            _ => "-o parquet",
        }
    }
}

/// Writes rows of a streaming format ([`Format::streams`]).
#[derive(Debug)]
pub struct RowWriter {
    format: Format,
    columns: Vec<String>,
    /// For json: each column name already escaped and quoted, with its `:`.
    json_keys: Vec<String>,
    /// Colour json rows, `select *` lines, tables and charts ([`RowWriter::with_color`]).
    color: bool,
    /// How a chart is drawn (`-o chart`).
    chart: chart::Spec,
    /// The terminal columns a table is fitted in ([`RowWriter::with_width`]).
    width: Option<usize>,
    /// The table's columns right-aligned whatever they hold ([`RowWriter::with_figures`]).
    figures: Vec<bool>,
}

impl RowWriter {
    /// A writer for rows with these column names.
    pub fn new(format: Format, columns: &[String]) -> RowWriter {
        let json_keys = match format {
            Format::Json => columns.iter().map(|c| json::key(c)).collect(),
            _ => Vec::new(),
        };
        RowWriter {
            format,
            columns: columns.to_vec(),
            json_keys,
            color: false,
            chart: chart::Spec::default(),
            width: None,
            figures: Vec::new(),
        }
    }

    /// Right-align these columns of a table, as numbers are, though they hold text: figures
    /// written with a unit or a sign (`98.6%`, `~12.3K`, `-` for none).
    pub fn with_figures(mut self, names: &[&str]) -> RowWriter {
        self.figures = self
            .columns
            .iter()
            .map(|c| names.contains(&c.as_str()))
            .collect();
        self
    }

    /// Fit a table in `width` terminal columns (stdout a terminal), its widest text columns
    /// cut with `…` ([`table::render_within`]); `None`: every value whole.
    pub fn with_width(mut self, width: Option<usize>) -> RowWriter {
        self.width = width;
        self
    }

    /// [`RowWriter::with_width`] of a writer already made (a live table refitted to the
    /// terminal's width before each frame).
    pub fn set_width(&mut self, width: Option<usize>) {
        self.width = width;
    }

    /// Draw charts with `spec` (the plan's columns and the size).
    pub fn with_chart(mut self, spec: chart::Spec) -> RowWriter {
        self.chart = spec;
        self
    }

    /// Colour the output when `color` (decided for stdout by [`crate::config`]) and the
    /// format is for people: json, table and chart. csv, tsv and raw are for programs and
    /// never coloured.
    pub fn with_color(mut self, color: bool) -> RowWriter {
        self.color = color && matches!(self.format, Format::Json | Format::Table | Format::Chart);
        self
    }

    /// A whole input line (`select *`), unchanged but for colour, with a newline.
    pub fn line(&self, line: &[u8], out: &mut Vec<u8>) {
        if self.color {
            color::json(line, out);
        } else {
            out.extend_from_slice(line);
        }
        out.push(b'\n');
    }

    /// The header line, if the format has one (csv and tsv).
    pub fn header(&self, out: &mut Vec<u8>) {
        match self.format {
            Format::Csv => csv::header(&self.columns, b',', out),
            Format::Tsv => csv::header(&self.columns, b'\t', out),
            Format::Json
            | Format::Raw
            | Format::Table
            | Format::Chart
            | Format::Parquet
            | Format::Arrow => {}
        }
    }

    /// One row (`row.len()` equals the number of columns).
    pub fn row(&self, row: &[Value<'_>], out: &mut Vec<u8>) {
        match self.format {
            Format::Json if self.color => {
                let mut plain = Vec::new();
                json::row(&self.json_keys, row, &mut plain);
                color::json(plain.strip_suffix(b"\n").unwrap_or(&plain), out);
                out.push(b'\n');
            }
            Format::Json => json::row(&self.json_keys, row, out),
            Format::Csv => csv::row(row, b',', out),
            Format::Tsv => csv::row(row, b'\t', out),
            Format::Raw => raw::row(row, out),
            #[cfg(feature = "arrow")]
            Format::Parquet | Format::Arrow => ndq_arrow::encode_row(row, out),
            #[cfg(not(feature = "arrow"))]
            Format::Parquet | Format::Arrow => {
                unreachable!("not offered without the arrow feature")
            }
            // Table and chart rows are rendered together; a lone row is rendered alone.
            Format::Table | Format::Chart => {
                self.render_whole(&[row.to_vec()], out);
            }
        }
    }

    /// Write every row: the header (if any) and the rows.
    pub fn write_all(&self, rows: &[Vec<Value<'_>>], out: &mut Vec<u8>) {
        if self.render_whole(rows, out) {
            return;
        }
        self.header(out);
        for row in rows {
            self.row(row, out);
        }
    }

    /// Whether `rows` can be written: always, but for a chart of rows with no number to
    /// draw ([`chart::measurable`]); the error is a usage error.
    pub fn measurable(&self, rows: &[Vec<Value<'_>>]) -> Result<(), String> {
        match self.format {
            Format::Chart => chart::measurable(&self.columns, rows, &self.chart),
            _ => Ok(()),
        }
    }

    /// For the formats that render all rows at once (table, chart): render `rows` into
    /// `out` and say so; false for the others, which write nothing here.
    fn render_whole(&self, rows: &[Vec<Value<'_>>], out: &mut Vec<u8>) -> bool {
        let text = match self.format {
            Format::Table => {
                table::render_within(&self.columns, rows, self.color, self.width, &self.figures)
            }
            Format::Chart => chart::render(&self.columns, rows, &self.chart, self.color),
            _ => return false,
        };
        out.extend_from_slice(text.as_bytes());
        true
    }
}

/// The text of a value for the text formats (table, csv, tsv, raw): strings unescaped,
/// `None` for null (and a non-finite float).
pub fn text<'v>(value: &'v Value<'_>) -> Option<Cow<'v, str>> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(true) => Cow::Borrowed("true"),
        Value::Bool(false) => Cow::Borrowed("false"),
        Value::RawNumber(n) => Cow::Borrowed(n.as_ref()),
        Value::Number(d) => Cow::Owned(ndq_query::format_decimal(d)),
        Value::Float(f) => Cow::Owned(float(*f)?),
        Value::RawString(s) => unescape_json_str(s),
        Value::String(s) => Cow::Borrowed(s.as_ref()),
        Value::RawJson(j) => Cow::Borrowed(j.as_ref()),
    })
}

/// `s` cut to `width` terminal columns (a wide character takes two), ending with `…` when
/// cut: for tables, charts and the bench's report. The cut falls between grapheme clusters,
/// so a character made of several code points (`👩‍👩‍👧`, a flag, `é` as `e` and an accent) is
/// kept whole or left out.
pub fn cut(s: &str, width: usize) -> String {
    use unicode_segmentation::UnicodeSegmentation as _;
    use unicode_width::UnicodeWidthStr as _;
    if s.width() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut w = 0;
    for g in s.graphemes(true) {
        let gw = g.width();
        if w + gw > width - 1 {
            break;
        }
        w += gw;
        out.push_str(g);
    }
    out.push('…');
    out
}

/// Whether a value is a number (for right-aligning table columns).
pub fn is_number(value: &Value<'_>) -> bool {
    matches!(
        value,
        Value::RawNumber(_) | Value::Number(_) | Value::Float(_)
    )
}

/// A finite float without exponent (Rust's `Display` for f64 never uses one); `None` for NaN
/// and infinities, which JSON cannot hold.
fn float(f: f64) -> Option<String> {
    f.is_finite().then(|| f.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndq_query::Decimal;
    use std::str::FromStr;

    #[test]
    fn unescape_every_escape() {
        let unescape = unescape_json_str;
        assert_eq!(unescape("plain"), "plain");
        assert!(matches!(unescape("plain"), Cow::Borrowed(_)));
        assert_eq!(unescape(r#"a\"b\\c\/d"#), "a\"b\\c/d");
        assert_eq!(unescape(r"\b\f\n\r\t"), "\u{8}\u{c}\n\r\t");
        assert_eq!(unescape(r"\u00e9\u0041"), "éA");
        assert_eq!(unescape(r"\ud83d\ude00!"), "😀!");
        assert_eq!(unescape(r"\ud83d!"), "\u{FFFD}!");
        assert_eq!(unescape(r"\ude00"), "\u{FFFD}");
        assert_eq!(unescape(r"\ud83d\u0041"), "\u{FFFD}A");
        assert_eq!(unescape("Zoë \\\"Z\\\""), "Zoë \"Z\"");
        // Invalid escapes (never let through by the scanner) are kept, never a panic.
        assert_eq!(unescape(r"\x"), r"\x");
        assert_eq!(unescape("\\"), "\\");
        assert_eq!(unescape(r"\u12"), r"\u12");
        assert_eq!(unescape("\\é"), "\\é");
    }

    #[test]
    fn text_of_each_variant() {
        let t = |v: Value<'_>| text(&v).map(|c| c.into_owned());
        assert_eq!(t(Value::Null), None);
        assert_eq!(t(Value::Bool(true)).as_deref(), Some("true"));
        assert_eq!(t(Value::Bool(false)).as_deref(), Some("false"));
        assert_eq!(t(Value::RawNumber("1.50".into())).as_deref(), Some("1.50"));
        let sum = Decimal::from_str("0.1").unwrap() + Decimal::from_str("0.2").unwrap();
        assert_eq!(t(Value::Number(sum)).as_deref(), Some("0.3"));
        assert_eq!(
            t(Value::Number(Decimal::from_str("1e20").unwrap())).as_deref(),
            Some("100000000000000000000")
        );
        assert_eq!(
            t(Value::Float(1e30)).as_deref(),
            Some("1000000000000000000000000000000")
        );
        assert_eq!(t(Value::Float(f64::NAN)), None);
        assert_eq!(t(Value::RawString(r"a\tb".into())).as_deref(), Some("a\tb"));
        assert_eq!(t(Value::String(r"a\tb".into())).as_deref(), Some(r"a\tb"));
        assert_eq!(
            t(Value::RawJson("[1, 2]".into())).as_deref(),
            Some("[1, 2]")
        );
        assert!(is_number(&Value::Float(1.0)));
        assert!(!is_number(&Value::RawString("1".into())));
    }

    #[test]
    fn write_all_in_each_format() {
        let columns = vec!["a".to_string(), "b c".to_string()];
        let rows = vec![
            vec![Value::RawNumber("1".into()), Value::RawString("x".into())],
            vec![Value::Null, Value::Bool(true)],
        ];
        let run = |f| {
            let mut out = Vec::new();
            RowWriter::new(f, &columns).write_all(&rows, &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            run(Format::Json),
            "{\"a\":1,\"b c\":\"x\"}\n{\"a\":null,\"b c\":true}\n"
        );
        assert_eq!(run(Format::Csv), "a,b c\n1,x\n,true\n");
        assert_eq!(run(Format::Tsv), "a\tb c\n1\tx\n\ttrue\n");
        assert_eq!(run(Format::Raw), "1\tx\n\ttrue\n");
        assert_eq!(
            run(Format::Table),
            "   a  b c\n----  ----\n   1  x\nnull  true\n"
        );
        assert!(Format::Json.streams() && !Format::Table.streams());
    }

    #[test]
    fn colour_only_for_json_and_table() {
        let columns = vec!["a".to_string(), "b".to_string()];
        let rows = vec![vec![Value::RawNumber("1".into()), Value::Null]];
        let run = |f, color| {
            let writer = RowWriter::new(f, &columns).with_color(color);
            let mut out = Vec::new();
            writer.write_all(&rows, &mut out);
            writer.line(br#"{"x":"y"}"#, &mut out);
            out
        };
        for f in [
            Format::Json,
            Format::Table,
            Format::Csv,
            Format::Tsv,
            Format::Raw,
        ] {
            let plain = run(f, false);
            assert!(!plain.contains(&0x1b), "{f:?}");
            let colored = run(f, true);
            let want_color = matches!(f, Format::Json | Format::Table);
            assert_eq!(colored.contains(&0x1b), want_color, "{f:?}");
            assert_eq!(color::strip(&colored), plain, "{f:?}");
        }
    }
}
