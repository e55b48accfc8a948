//! Column types: the rule that gives a column its Arrow type from the cells seen
//! ([`Kinds`] → [`ColumnType`]), and the builder that appends cells to a column of that type.
//!
//! The rule (also in docs/language.md, "Output"):
//!
//! | cells seen (nulls aside) | type |
//! |---|---|
//! | none (no rows, or only nulls) | `Utf8` |
//! | only booleans | `Boolean` |
//! | only whole numbers of at most 18 digits | `Int64` |
//! | only decimals, needing `p` digits with scale `s` (`p` = most integer digits + `s`) | `Decimal128(18, s)` if `p ≤ 18`, `Decimal128(38, s)` if `p ≤ 38` |
//! | only numbers, some of them floats or needing more than 38 digits | `Float64` |
//! | only times (RFC 3339 text) | `Timestamp(ns, "UTC")` |
//! | text, arrays, objects, or cells of two or more of the kinds above | `Utf8` (each cell's text, as csv writes it) |
//!
//! The rule depends on the set of cells only (a fold that is commutative and associative,
//! [`Kinds::merge`]), never on how rows are split into batches or threads.

use std::sync::Arc;

use arrow_array::ArrayRef;
use arrow_array::builder::{
    BooleanBuilder, Decimal128Builder, Float64Builder, Int64Builder, StringBuilder,
    TimestampNanosecondBuilder,
};
use arrow_schema::{DataType, TimeUnit};

use crate::cell::{Cell, MAX_DIGITS};

/// Precision of a decimal column whose values need at most 18 digits: the widest that
/// Parquet stores as a 64-bit integer (and DuckDB as a `BIGINT`), leaving room for later
/// values with more integer digits than the first rows had.
pub const NARROW_PRECISION: u8 = 18;

/// The type of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// `Boolean`.
    Bool,
    /// `Int64`: whole numbers of at most 18 digits.
    Int,
    /// `Decimal128(precision, scale)`.
    Decimal {
        /// 18 or 38.
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// `Float64`.
    Float,
    /// `Timestamp(Nanosecond, "UTC")`.
    Time,
    /// `Utf8`.
    Text,
}

impl ColumnType {
    /// The Arrow type.
    pub fn data_type(self) -> DataType {
        match self {
            ColumnType::Bool => DataType::Boolean,
            ColumnType::Int => DataType::Int64,
            ColumnType::Decimal { precision, scale } => {
                DataType::Decimal128(precision, scale as i8)
            }
            ColumnType::Float => DataType::Float64,
            ColumnType::Time => DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            ColumnType::Text => DataType::Utf8,
        }
    }

    /// Whether a column of this type holds the cell exactly (null fits every type; text
    /// holds every cell).
    pub fn fits(self, cell: &Cell<'_>) -> bool {
        match (self, cell) {
            (_, Cell::Null) | (ColumnType::Text, _) => true,
            (ColumnType::Bool, Cell::Bool(_)) => true,
            (ColumnType::Int, Cell::Decimal { scale, digits, .. }) => {
                *scale == 0 && *digits <= NARROW_PRECISION
            }
            (
                ColumnType::Decimal { precision, scale },
                Cell::Decimal {
                    scale: s,
                    digits: d,
                    ..
                },
            ) => s <= &scale && u32::from(*d) + u32::from(scale - s) <= u32::from(precision),
            (ColumnType::Float, Cell::Decimal { .. } | Cell::Float { .. }) => true,
            (ColumnType::Time, Cell::Time { .. }) => true,
            _ => false,
        }
    }
}

impl std::fmt::Display for ColumnType {
    /// The type in SQL words (`DECIMAL(18,3)`, `TIMESTAMP`), for messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ColumnType::Bool => f.write_str("BOOLEAN"),
            ColumnType::Int => f.write_str("BIGINT"),
            ColumnType::Decimal { precision, scale } => write!(f, "DECIMAL({precision},{scale})"),
            ColumnType::Float => f.write_str("DOUBLE"),
            ColumnType::Time => f.write_str("TIMESTAMP"),
            ColumnType::Text => f.write_str("VARCHAR"),
        }
    }
}

/// What kinds of cells a column has held: folded cell by cell ([`Kinds::add`]) or piece by
/// piece ([`Kinds::merge`]), then [`Kinds::column_type`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kinds {
    bools: bool,
    numbers: bool,
    /// A number that is not an exact decimal.
    floats: bool,
    /// Most digits before the point among the decimals.
    int_digits: u8,
    /// Most digits after the point among the decimals.
    scale: u8,
    times: bool,
    /// Text, arrays and objects.
    texts: bool,
}

impl Kinds {
    /// Whether a cell that is not null was counted.
    pub fn any(&self) -> bool {
        self.bools || self.numbers || self.times || self.texts
    }

    /// Count one cell.
    pub fn add(&mut self, cell: &Cell<'_>) {
        match cell {
            Cell::Null => {}
            Cell::Bool(_) => self.bools = true,
            Cell::Decimal { scale, digits, .. } => {
                self.numbers = true;
                self.int_digits = self.int_digits.max(digits.saturating_sub(*scale));
                self.scale = self.scale.max(*scale);
            }
            Cell::Float { .. } => {
                self.numbers = true;
                self.floats = true;
            }
            Cell::Time { .. } => self.times = true,
            Cell::Text(_) | Cell::Json(_) => self.texts = true,
        }
    }

    /// Count the cells another fold has counted.
    pub fn merge(&mut self, other: &Kinds) {
        self.bools |= other.bools;
        self.numbers |= other.numbers;
        self.floats |= other.floats;
        self.int_digits = self.int_digits.max(other.int_digits);
        self.scale = self.scale.max(other.scale);
        self.times |= other.times;
        self.texts |= other.texts;
    }

    /// The column's type (the table in the module docs).
    pub fn column_type(&self) -> ColumnType {
        let kinds = [self.bools, self.numbers, self.times, self.texts];
        if kinds.iter().filter(|&&k| k).count() != 1 || self.texts {
            return ColumnType::Text;
        }
        if self.bools {
            return ColumnType::Bool;
        }
        if self.times {
            return ColumnType::Time;
        }
        let need = u32::from(self.int_digits) + u32::from(self.scale);
        match need {
            _ if self.floats => ColumnType::Float,
            n if n <= u32::from(NARROW_PRECISION) && self.scale == 0 => ColumnType::Int,
            n if n <= u32::from(NARROW_PRECISION) => ColumnType::Decimal {
                precision: NARROW_PRECISION,
                scale: self.scale,
            },
            n if n <= MAX_DIGITS => ColumnType::Decimal {
                precision: MAX_DIGITS as u8,
                scale: self.scale,
            },
            _ => ColumnType::Float,
        }
    }
}

/// Appends cells to an Arrow array of one [`ColumnType`].
#[derive(Debug)]
pub enum ColumnBuilder {
    /// `Boolean`.
    Bool(BooleanBuilder),
    /// `Int64`.
    Int(Int64Builder),
    /// `Decimal128`, with the column's type.
    Decimal(Decimal128Builder, ColumnType),
    /// `Float64`.
    Float(Float64Builder),
    /// `Timestamp(ns, UTC)`.
    Time(TimestampNanosecondBuilder),
    /// `Utf8`.
    Text(StringBuilder),
}

impl ColumnBuilder {
    /// An empty builder for `rows` rows of `ty`.
    pub fn new(ty: ColumnType, rows: usize) -> ColumnBuilder {
        match ty {
            ColumnType::Bool => ColumnBuilder::Bool(BooleanBuilder::with_capacity(rows)),
            ColumnType::Int => ColumnBuilder::Int(Int64Builder::with_capacity(rows)),
            ColumnType::Decimal { precision, scale } => ColumnBuilder::Decimal(
                Decimal128Builder::with_capacity(rows)
                    .with_data_type(DataType::Decimal128(precision, scale as i8)),
                ty,
            ),
            ColumnType::Float => ColumnBuilder::Float(Float64Builder::with_capacity(rows)),
            ColumnType::Time => ColumnBuilder::Time(
                TimestampNanosecondBuilder::with_capacity(rows).with_timezone("UTC"),
            ),
            ColumnType::Text => ColumnBuilder::Text(StringBuilder::with_capacity(rows, rows * 16)),
        }
    }

    /// Append a cell; `false` (nothing appended) when the column's type cannot hold it
    /// ([`ColumnType::fits`]).
    pub fn append(&mut self, cell: &Cell<'_>) -> bool {
        match (self, cell) {
            (ColumnBuilder::Text(b), cell) => b.append_option(cell.text()),
            (ColumnBuilder::Bool(b), Cell::Null) => b.append_null(),
            (ColumnBuilder::Int(b), Cell::Null) => b.append_null(),
            (ColumnBuilder::Decimal(b, _), Cell::Null) => b.append_null(),
            (ColumnBuilder::Float(b), Cell::Null) => b.append_null(),
            (ColumnBuilder::Time(b), Cell::Null) => b.append_null(),
            (ColumnBuilder::Bool(b), Cell::Bool(v)) => b.append_value(*v),
            (ColumnBuilder::Int(b), Cell::Decimal { value, .. }) => match i64::try_from(*value) {
                Ok(v) if ColumnType::Int.fits(cell) => b.append_value(v),
                _ => return false,
            },
            (ColumnBuilder::Decimal(b, ty), Cell::Decimal { value, scale, .. }) => {
                let ColumnType::Decimal { scale: to, .. } = *ty else {
                    return false;
                };
                if !ty.fits(cell) {
                    return false;
                }
                b.append_value(value * 10i128.pow(u32::from(to - scale)));
            }
            (ColumnBuilder::Float(b), Cell::Float { value, .. }) => b.append_value(*value),
            // The nearest float to the number as written (not the decimal's digits divided,
            // which could round twice).
            (ColumnBuilder::Float(b), Cell::Decimal { text, .. }) => {
                b.append_value(text.parse().unwrap_or(f64::NAN))
            }
            (ColumnBuilder::Time(b), Cell::Time { nanos, .. }) => b.append_value(*nanos),
            _ => return false,
        }
        true
    }

    /// The rows appended since the last [`ColumnBuilder::finish`].
    pub fn len(&self) -> usize {
        use arrow_array::builder::ArrayBuilder as _;
        match self {
            ColumnBuilder::Bool(b) => b.len(),
            ColumnBuilder::Int(b) => b.len(),
            ColumnBuilder::Decimal(b, _) => b.len(),
            ColumnBuilder::Float(b) => b.len(),
            ColumnBuilder::Time(b) => b.len(),
            ColumnBuilder::Text(b) => b.len(),
        }
    }

    /// Whether no row was appended since the last [`ColumnBuilder::finish`].
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of text appended since the last [`ColumnBuilder::finish`] (0 for other types).
    pub fn text_bytes(&self) -> usize {
        match self {
            ColumnBuilder::Text(b) => b.values_slice().len(),
            _ => 0,
        }
    }

    /// The array of the rows appended so far; the builder starts again empty.
    pub fn finish(&mut self) -> ArrayRef {
        match self {
            ColumnBuilder::Bool(b) => Arc::new(b.finish()),
            ColumnBuilder::Int(b) => Arc::new(b.finish()),
            ColumnBuilder::Decimal(b, _) => Arc::new(b.finish()),
            ColumnBuilder::Float(b) => Arc::new(b.finish()),
            ColumnBuilder::Time(b) => Arc::new(b.finish()),
            ColumnBuilder::Text(b) => Arc::new(b.finish()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array as _;

    fn dec(text: &str) -> Cell<'_> {
        let (value, scale, digits) = crate::cell::exact(text).unwrap();
        Cell::Decimal {
            value,
            scale,
            digits,
            text: text.into(),
        }
    }

    fn type_of(cells: &[Cell<'_>]) -> ColumnType {
        let mut kinds = Kinds::default();
        cells.iter().for_each(|c| kinds.add(c));
        kinds.column_type()
    }

    #[test]
    fn one_kind_each() {
        assert_eq!(type_of(&[]), ColumnType::Text);
        assert_eq!(type_of(&[Cell::Null, Cell::Null]), ColumnType::Text);
        assert_eq!(type_of(&[Cell::Bool(true), Cell::Null]), ColumnType::Bool);
        assert_eq!(
            type_of(&[dec("200"), dec("-3"), dec("1e3"), Cell::Null]),
            ColumnType::Int
        );
        assert_eq!(
            type_of(&[dec("1.5"), dec("-12.25"), Cell::Null]),
            ColumnType::Decimal {
                precision: 18,
                scale: 2
            }
        );
        let time = Cell::Time {
            nanos: 0,
            text: "1970-01-01T00:00:00Z".into(),
        };
        assert_eq!(type_of(&[time.clone(), Cell::Null]), ColumnType::Time);
        assert_eq!(type_of(&[Cell::Text("a".into())]), ColumnType::Text);
        assert_eq!(type_of(&[Cell::Json("[1]".into())]), ColumnType::Text);
    }

    #[test]
    fn decimals_of_different_sizes() {
        // Whole numbers of 18 digits are Int64, of 19 a decimal.
        assert_eq!(type_of(&[dec(&"9".repeat(18))]), ColumnType::Int);
        assert_eq!(
            type_of(&[dec(&"9".repeat(19))]),
            ColumnType::Decimal {
                precision: 38,
                scale: 0
            }
        );
        // 16 integer digits and 2 decimals fit 18; one more needs 38.
        assert_eq!(
            type_of(&[dec(&"9".repeat(16)), dec("0.25")]),
            ColumnType::Decimal {
                precision: 18,
                scale: 2
            }
        );
        assert_eq!(
            type_of(&[dec(&"9".repeat(17)), dec("0.25")]),
            ColumnType::Decimal {
                precision: 38,
                scale: 2
            }
        );
        // 20 integer digits in one value and 20 decimals in another: 40 digits.
        assert_eq!(
            type_of(&[dec(&"9".repeat(20)), dec("1e-20")]),
            ColumnType::Float
        );
        let float = Cell::Float {
            value: f64::INFINITY,
            text: "1e400".into(),
        };
        assert_eq!(type_of(&[dec("1"), float]), ColumnType::Float);
    }

    #[test]
    fn mixed_kinds_are_text() {
        let time = Cell::Time {
            nanos: 0,
            text: "1970-01-01T00:00:00Z".into(),
        };
        for pair in [
            [dec("1"), Cell::Text("a".into())],
            [dec("1"), Cell::Bool(true)],
            [time.clone(), Cell::Text("a".into())],
            [time, dec("1")],
            [Cell::Bool(false), Cell::Json("{}".into())],
        ] {
            assert_eq!(type_of(&pair), ColumnType::Text, "{pair:?}");
        }
    }

    #[test]
    fn merge_is_the_fold_of_both() {
        let cells = [
            dec("12.5"),
            Cell::Null,
            dec("-0.125"),
            dec("123456"),
            Cell::Bool(true),
        ];
        for split in 0..=cells.len() {
            let (a, b) = cells.split_at(split);
            let mut left = Kinds::default();
            a.iter().for_each(|c| left.add(c));
            let mut right = Kinds::default();
            b.iter().for_each(|c| right.add(c));
            let mut both = right;
            both.merge(&left);
            left.merge(&right);
            let mut all = Kinds::default();
            cells.iter().for_each(|c| all.add(c));
            assert_eq!(left, all);
            assert_eq!(both, all);
        }
    }

    #[test]
    fn fits_and_appends() {
        let ty = ColumnType::Decimal {
            precision: 18,
            scale: 2,
        };
        assert!(ty.fits(&dec("1.25")) && ty.fits(&dec("-3")) && ty.fits(&Cell::Null));
        assert!(!ty.fits(&dec("1.125")));
        assert!(ty.fits(&dec(&"9".repeat(16))));
        assert!(!ty.fits(&dec(&"9".repeat(17))));
        assert!(!ty.fits(&Cell::Text("1".into())));
        let mut b = ColumnBuilder::new(ty, 4);
        assert!(b.append(&dec("1.5")) && b.append(&Cell::Null) && b.append(&dec("-3")));
        assert!(!b.append(&dec("0.001")));
        let array = b.finish();
        let array = array
            .as_any()
            .downcast_ref::<arrow_array::Decimal128Array>()
            .unwrap();
        assert_eq!(array.value(0), 150);
        assert!(array.is_null(1));
        assert_eq!(array.value(2), -300);
        assert_eq!(array.len(), 3);
        assert!(b.is_empty());

        let mut text = ColumnBuilder::new(ColumnType::Text, 4);
        for cell in [
            dec("1.50"),
            Cell::Bool(false),
            Cell::Null,
            Cell::Json("[1]".into()),
        ] {
            assert!(text.append(&cell));
        }
        let array = text.finish();
        let array = array
            .as_any()
            .downcast_ref::<arrow_array::StringArray>()
            .unwrap();
        let got: Vec<Option<&str>> = array.iter().collect();
        assert_eq!(got, [Some("1.50"), Some("false"), None, Some("[1]")]);

        let mut int = ColumnBuilder::new(ColumnType::Int, 2);
        assert!(int.append(&dec("-42")) && int.append(&dec(&"9".repeat(18))));
        assert!(!int.append(&dec("0.5")) && !int.append(&dec(&"9".repeat(19))));
        let array = int.finish();
        let array = array
            .as_any()
            .downcast_ref::<arrow_array::Int64Array>()
            .unwrap();
        assert_eq!(array.values().to_vec(), [-42, 999_999_999_999_999_999]);

        let mut float = ColumnBuilder::new(ColumnType::Float, 2);
        assert!(float.append(&dec("0.1")) && !float.append(&Cell::Bool(true)));
        assert!(!ColumnBuilder::new(ColumnType::Time, 1).append(&Cell::Text("x".into())));
        assert!(!ColumnBuilder::new(ColumnType::Bool, 1).append(&dec("1")));
    }
}
