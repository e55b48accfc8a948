//! `-o parquet` and `-o arrow`: the files read back with the parquet and arrow crates'
//! readers hold the values `-o json` writes for the same query, with the documented types.

use std::io::Cursor;
use std::process::{Command, Stdio};
use std::str::FromStr;

use arrow_array::cast::AsArray as _;
use arrow_array::types::{Decimal128Type, Float64Type, Int64Type, TimestampNanosecondType};
use arrow_array::{Array, RecordBatch, RecordBatchReader as _};
use arrow_schema::{DataType, Schema, TimeUnit};
use ndq_query::Decimal;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value as Json;

use crate::util::{Fixture, Run, ndq, sample};

/// Read a Parquet file's schema and batches.
fn read_parquet(bytes: &[u8]) -> (Schema, Vec<RecordBatch>) {
    let f = Fixture::new();
    let path = f.write("out.parquet", bytes);
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap())
        .expect("a Parquet file")
        .build()
        .unwrap();
    let schema = reader.schema().as_ref().clone();
    (schema, reader.map(|b| b.unwrap()).collect())
}

/// Read an Arrow IPC stream's schema and batches.
fn read_arrow(bytes: &[u8]) -> (Schema, Vec<RecordBatch>) {
    let reader = arrow_ipc::reader::StreamReader::try_new(Cursor::new(bytes), None)
        .expect("an Arrow IPC stream");
    let schema = reader.schema().as_ref().clone();
    (schema, reader.map(|b| b.unwrap()).collect())
}

/// Read `bytes` written as `format` (`parquet` or `arrow`).
fn read(format: &str, bytes: &[u8]) -> (Schema, Vec<RecordBatch>) {
    if format == "parquet" {
        read_parquet(bytes)
    } else {
        read_arrow(bytes)
    }
}

/// Run `query` over `input` in `format`: its stdout, after checking the run went well.
fn binary(format: &str, query: &str, input: &std::path::Path) -> Vec<u8> {
    let run = ndq(&["-o", format, query]).path(input).run();
    run.status(0);
    assert_eq!(run.stderr(), "", "{run}");
    run.output.stdout.clone()
}

/// The rows `-o json` writes for `query`, numbers with their text as written.
fn json_rows(query: &str, input: &std::path::Path) -> Vec<serde_json::Map<String, Json>> {
    let run = ndq(&["-o", "json", query]).path(input).run();
    run.ok()
        .lines()
        .map(|l| match serde_json::from_str(l).unwrap() {
            Json::Object(m) => m,
            other => panic!("not an object: {other}"),
        })
        .collect()
}

/// The instant of an RFC 3339 text, in nanoseconds (the oracle is jiff, not ndq).
fn nanos(text: &str) -> i64 {
    i64::try_from(
        text.parse::<jiff::Timestamp>()
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .as_nanosecond(),
    )
    .unwrap()
}

/// A JSON number as a decimal.
fn decimal(n: &serde_json::Number) -> Decimal {
    let text = n.to_string();
    Decimal::from_str(&text)
        .or_else(|_| Decimal::from_scientific(&text))
        .unwrap()
}

/// `value × 10^-scale` in its shortest plain form (`1.5`, `-3`); a column's scale may pass
/// what a rust_decimal holds, so this is written out by hand.
fn decimal_text(value: i128, scale: usize) -> String {
    let digits = format!("{:0>width$}", value.unsigned_abs(), width = scale + 1);
    let (int, frac) = digits.split_at(digits.len() - scale);
    let frac = frac.trim_end_matches('0');
    let sign = if value < 0 { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// Every value of the batches equals the value of the JSON rows, as the type says it is
/// written: numbers by value, times by instant, text as the text formats write it.
fn assert_same(schema: &Schema, batches: &[RecordBatch], rows: &[serde_json::Map<String, Json>]) {
    let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(total, rows.len(), "row count");
    let mut r = 0;
    for batch in batches {
        assert_eq!(batch.schema().as_ref(), schema);
        for i in 0..batch.num_rows() {
            let row = &rows[r];
            r += 1;
            for (c, field) in schema.fields().iter().enumerate() {
                let want = &row[field.name()];
                let array = batch.column(c);
                let at = format!("row {r}, column {}: {want}", field.name());
                if array.is_null(i) {
                    assert_eq!(want, &Json::Null, "{at}");
                    continue;
                }
                match field.data_type() {
                    DataType::Boolean => {
                        assert_eq!(want, &Json::Bool(array.as_boolean().value(i)), "{at}")
                    }
                    DataType::Int64 => {
                        let Json::Number(n) = want else {
                            panic!("{at}")
                        };
                        let got = array.as_primitive::<Int64Type>().value(i);
                        assert_eq!(decimal(n), Decimal::from(got), "{at}");
                    }
                    DataType::Decimal128(_, scale) => {
                        let Json::Number(n) = want else {
                            panic!("{at}")
                        };
                        let got = array.as_primitive::<Decimal128Type>().value(i);
                        let got = decimal_text(got, *scale as usize);
                        assert_eq!(decimal(n).normalize().to_string(), got, "{at}");
                    }
                    DataType::Float64 => {
                        let Json::Number(n) = want else {
                            panic!("{at}")
                        };
                        let got = array.as_primitive::<Float64Type>().value(i);
                        assert_eq!(n.to_string().parse::<f64>().unwrap(), got, "{at}");
                    }
                    DataType::Timestamp(TimeUnit::Nanosecond, Some(tz)) => {
                        assert_eq!(tz.as_ref(), "UTC");
                        let Json::String(s) = want else {
                            panic!("{at}")
                        };
                        let got = array.as_primitive::<TimestampNanosecondType>().value(i);
                        assert_eq!(nanos(s), got, "{at}");
                    }
                    DataType::Utf8 => {
                        let got = array.as_string::<i32>().value(i);
                        match want {
                            Json::String(s) => assert_eq!(s, got, "{at}"),
                            other => {
                                let got: Json = serde_json::from_str(got).unwrap();
                                assert_eq!(&got, other, "{at}");
                            }
                        }
                    }
                    other => panic!("{at}: unexpected type {other}"),
                }
            }
        }
    }
}

/// The types of a schema, in order.
fn types(schema: &Schema) -> Vec<DataType> {
    schema
        .fields()
        .iter()
        .map(|f| f.data_type().clone())
        .collect()
}

fn utc() -> DataType {
    DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()))
}

const ROWS: &str = "select @t, Elapsed, RequestPath, StatusCode, @l, Properties, \
                    Properties.User.Name as user, StatusCode >= 500 as failed, \
                    datetime(@t) + 1h as later, case when StatusCode >= 500 then @l else StatusCode end as mixed";

#[test]
fn parquet_holds_what_json_writes_with_exact_types() {
    let bytes = binary("parquet", ROWS, &sample());
    let (schema, batches) = read_parquet(&bytes);
    assert_eq!(
        types(&schema),
        [
            utc(),
            DataType::Decimal128(18, 4),
            DataType::Utf8,
            DataType::Int64,
            DataType::Utf8,
            DataType::Utf8,
            DataType::Utf8,
            DataType::Boolean,
            utc(),
            DataType::Utf8,
        ]
    );
    assert_same(&schema, &batches, &json_rows(ROWS, &sample()));
}

#[test]
fn arrow_stream_holds_what_json_writes() {
    let bytes = binary("arrow", ROWS, &sample());
    let (schema, batches) = read_arrow(&bytes);
    let (parquet_schema, _) = read_parquet(&binary("parquet", ROWS, &sample()));
    assert_eq!(types(&schema), types(&parquet_schema));
    assert_same(&schema, &batches, &json_rows(ROWS, &sample()));
}

/// `ndq keys` in Parquet and Arrow: the fields of `ndq keys -o json`, typed (`types` as
/// JSON text, the examples text as they are of mixed types).
#[test]
fn keys_are_written_as_parquet_and_arrow() {
    let run = ndq(&["keys", "-o", "json"]).path(&sample()).run();
    let rows: Vec<serde_json::Map<String, Json>> = run
        .ok()
        .lines()
        .map(|l| match serde_json::from_str(l).unwrap() {
            Json::Object(m) => m,
            other => panic!("not an object: {other}"),
        })
        .collect();
    for format in ["parquet", "arrow"] {
        let run = ndq(&["keys", "-o", format]).path(&sample()).run();
        run.status(0);
        assert_eq!(run.stderr(), "", "{run}");
        let (schema, batches) = read(format, &run.output.stdout);
        // The json fields (a serde_json map sorts them), the path first.
        let mut names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names[0], "path");
        names.sort_unstable();
        let fields: Vec<&str> = rows[0].keys().map(String::as_str).collect();
        assert_eq!(names, fields);
        assert_eq!(types(&schema)[2], DataType::Int64);
        assert_eq!(types(&schema)[3], DataType::Int64);
        assert_eq!(types(&schema)[7], DataType::Utf8);
        assert_same(&schema, &batches, &rows);
    }
}

#[test]
fn aggregation_is_typed_on_all_its_rows() {
    let query = "select @l, count(*) as n, avg(Elapsed) as mean, max(Elapsed) as slowest, \
                 min(datetime(@t)) as first, time(1s) as second \
                 group by @l, second order by second, @l";
    for format in ["parquet", "arrow"] {
        let (schema, batches) = read(format, &binary(format, query, &sample()));
        assert_eq!(types(&schema)[1], DataType::Int64);
        assert!(matches!(types(&schema)[2], DataType::Decimal128(38, _)));
        assert_eq!(types(&schema)[4], utc());
        assert_eq!(types(&schema)[5], utc());
        assert_same(&schema, &batches, &json_rows(query, &sample()));
    }
}

#[test]
fn output_is_the_same_with_any_thread_count() {
    let f = Fixture::new();
    // Large enough for several chunks and several batches.
    let log: String = (0..150_000)
        .map(|i| {
            format!(
                "{{\"t\":\"2026-11-21T10:{:02}:{:02}.{:03}Z\",\"v\":{}.{},\"s\":\"p{}\"}}\n",
                i / 60_000 % 60,
                i / 1000 % 60,
                i % 1000,
                i % 977,
                i % 10,
                i % 13
            )
        })
        .collect();
    let input = f.write("big.ndjson", log);
    let query = "select t, v, s where v > 3";
    for format in ["parquet", "arrow"] {
        let runs: Vec<Vec<u8>> = ["1", "3"]
            .iter()
            .map(|threads| {
                let run = ndq(&["-o", format, "--threads", threads, query])
                    .path(&input)
                    .run();
                run.status(0);
                run.output.stdout.clone()
            })
            .collect();
        assert!(
            runs[0] == runs[1],
            "{format}: output differs by thread count"
        );
    }
    let (schema, batches) = read_parquet(&binary("parquet", query, &input));
    assert_eq!(
        types(&schema),
        [utc(), DataType::Decimal128(18, 1), DataType::Utf8]
    );
    assert!(batches.len() > 1);
    assert_same(&schema, &batches, &json_rows(query, &input));
}

/// A log whose first 65,536 rows have whole numbers in `v` and a later one a fraction.
fn late_fraction(f: &Fixture) -> std::path::PathBuf {
    let mut log = "{\"v\":1}\n".repeat(65_536);
    log.push_str("{\"v\":2}\n{\"v\":1.5}\n");
    f.write("late.ndjson", log)
}

#[test]
fn a_later_value_that_does_not_fit_is_an_error() {
    let f = Fixture::new();
    let input = late_fraction(&f);
    for format in ["parquet", "arrow"] {
        let run = ndq(&["-o", format, "select v"]).path(&input).run();
        run.status(1).stderr_is(
            "ndq: error: row 65538, column 'v': the value 1.5 does not fit the column's \
             type BIGINT, which the first 65536 rows gave it (write tostring(...) to have \
             the column as text)\n",
        );
    }
    // As text, every value fits; an aggregation is typed on all its rows.
    let bytes = binary("parquet", "select tostring(v) as v", &input);
    let (schema, batches) = read_parquet(&bytes);
    assert_eq!(types(&schema), [DataType::Utf8]);
    assert_eq!(
        batches.iter().map(RecordBatch::num_rows).sum::<usize>(),
        65_538
    );
    let query = "select v, count(*) group by v";
    let (schema, batches) = read_parquet(&binary("parquet", query, &input));
    assert_eq!(types(&schema)[0], DataType::Decimal128(18, 1));
    assert_same(&schema, &batches, &json_rows(query, &input));
}

/// A decimal's scale is the one its values are written with: prices written `10.00` for the
/// first rows are a decimal of scale 2, which a later `10.25` fits; a number written as text
/// is said to be text.
#[test]
fn decimals_keep_the_scale_they_are_written_with() {
    let f = Fixture::new();
    let mut log = "{\"p\":10.00}\n".repeat(65_536);
    log.push_str("{\"p\":10.25}\n{\"p\":\"7\"}\n");
    let input = f.write("prices.ndjson", log);
    let query = "select p where p < 11";
    let (schema, batches) = read_parquet(&binary("parquet", query, &input));
    assert_eq!(types(&schema), [DataType::Decimal128(18, 2)]);
    assert_same(&schema, &batches, &json_rows(query, &input));
    let run = ndq(&["-o", "parquet", "select p"]).path(&input).run();
    run.status(1).stderr_is(
        "ndq: error: row 65538, column 'p': the text \"7\" does not fit the column's type \
         DECIMAL(18,2), which the first 65536 rows gave it (write tostring(...) to have the \
         column as text)\n",
    );
}

#[test]
fn empty_results_and_nulls() {
    let f = Fixture::new();
    let input = f.write(
        "n.ndjson",
        "{\"a\":null,\"b\":1e400,\"c\":[1,{\"x\":2}]}\n{\"b\":-2,\"c\":\"s\"}\n",
    );
    let query = "select a, b, c";
    let (schema, batches) = read_parquet(&binary("parquet", query, &input));
    assert_eq!(
        types(&schema),
        [DataType::Utf8, DataType::Float64, DataType::Utf8]
    );
    assert_eq!(
        batches[0].column(1).as_primitive::<Float64Type>().value(0),
        f64::INFINITY
    );
    let (schema, batches) = read_parquet(&binary("parquet", "select a where a = 1", &input));
    assert_eq!(types(&schema), [DataType::Utf8]);
    assert!(batches.is_empty());
    let (schema, batches) = read_arrow(&binary("arrow", "select a where a = 1", &input));
    assert_eq!(types(&schema), [DataType::Utf8]);
    assert!(batches.is_empty());
}

/// A count is a whole number in every run: with no rows to say so (every group filtered
/// out), its column is still Int64, while a column the query cannot type is text.
#[test]
fn counts_are_whole_numbers_even_with_no_rows() {
    let query = "select @l, count(*) as n, count_distinct(RequestPath) as d, count_if(Elapsed > 1) \
                 as c, sum(Elapsed) as s group by @l having count(*) > 100000";
    for format in ["parquet", "arrow"] {
        let (schema, batches) = read(format, &binary(format, query, &sample()));
        assert_eq!(
            types(&schema),
            [
                DataType::Utf8,
                DataType::Int64,
                DataType::Int64,
                DataType::Int64,
                DataType::Utf8
            ],
            "{format}"
        );
        assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 0);
    }
}

#[test]
fn whole_lines_are_refused() {
    for format in ["parquet", "arrow"] {
        let run: Run = ndq(&["-o", format, "select * where @l = 'Error'"])
            .path(&sample())
            .run();
        run.status(2).stderr_is(&format!(
            "ndq: error: -o {format} needs columns: select the properties to write \
             (select @t, @l, ...), not *\n"
        ));
        assert!(run.output.stdout.is_empty());
    }
}

/// In a pseudo-terminal (util-linux `script`), binary output is refused before anything is
/// read. Skipped where `script` is missing.
#[test]
fn a_terminal_is_refused() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no script(1) to run ndq in a pseudo-terminal");
        return;
    }
    for args in ["-o parquet 'select @l'", "keys -o parquet"] {
        let line = format!(
            "'{}' {args} '{}'; echo \"exit=$?\"",
            env!("CARGO_BIN_EXE_ndq"),
            sample().display()
        );
        let out = Command::new("script")
            .args(["-qefc", &line, "/dev/null"])
            .env("TERM", "dumb")
            .stdin(Stdio::null())
            .output()
            .expect("script runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("ndq: error: -o parquet writes binary data, not for a terminal"),
            "{args}: {text}"
        );
        assert!(text.contains("exit=2"), "{args}: {text}");
    }
}
