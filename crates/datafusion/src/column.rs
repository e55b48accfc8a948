//! Columns: where a column's value is in a line, how it becomes an Arrow value, and the
//! comparisons pushed down to the scan.

use std::cmp::Ordering;
use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanBuilder, Decimal128Builder, Float64Builder, Int64Builder, StringBuilder,
    StringViewBuilder, TimestampNanosecondBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, TimeUnit};
use datafusion::common::{DataFusionError, Result, ScalarValue};
use datafusion::logical_expr::{Expr, Operator};
use ndq_scan::{Value, decimal_parts};
use rust_decimal::prelude::ToPrimitive;

/// The Arrow types a column can have.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    Utf8,
    Utf8View,
    Int64,
    /// Decimal128(precision, scale)
    Decimal(u8, i8),
    Float64,
    Boolean,
    TimestampNs,
}

impl Kind {
    pub(crate) fn of(field: &Field) -> Result<Kind> {
        Ok(match field.data_type() {
            DataType::Utf8 => Kind::Utf8,
            DataType::Utf8View => Kind::Utf8View,
            DataType::Int64 => Kind::Int64,
            &DataType::Decimal128(p, s) if s >= 0 => Kind::Decimal(p, s),
            DataType::Float64 => Kind::Float64,
            DataType::Boolean => Kind::Boolean,
            DataType::Timestamp(TimeUnit::Nanosecond, _) => Kind::TimestampNs,
            other => {
                return Err(DataFusionError::Configuration(format!(
                    "column {:?}: type {other} is not supported (use Utf8, Utf8View, Int64, \
                     Decimal128(p, s) with s >= 0, Float64, Boolean or Timestamp(ns))",
                    field.name()
                )));
            }
        })
    }
}

/// A column's value in one line, as its Arrow type holds it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Typed {
    Text(String),
    Int(i64),
    /// Decimal128's unscaled value at the column's scale, or a timestamp's nanoseconds.
    Wide(i128),
    Float(f64),
    Bool(bool),
}

impl Typed {
    fn cmp(&self, other: &Typed) -> Option<Ordering> {
        match (self, other) {
            (Typed::Text(a), Typed::Text(b)) => Some(a.cmp(b)),
            (Typed::Int(a), Typed::Int(b)) => Some(a.cmp(b)),
            (Typed::Wide(a), Typed::Wide(b)) => Some(a.cmp(b)),
            // Arrow orders floats by IEEE total order (-0 < +0, NaN last): so do the filters.
            (Typed::Float(a), Typed::Float(b)) => Some(a.total_cmp(b)),
            (Typed::Bool(a), Typed::Bool(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }
}

/// The value of `v` in a column of kind `kind`; `Err(())` when it does not fit the type
/// (counted, and null), `Ok(None)` for JSON null.
pub(crate) fn convert(kind: Kind, v: Value<'_>) -> Result<Option<Typed>, ()> {
    if let Value::Null = v {
        return Ok(None);
    }
    let t = match (kind, v) {
        (Kind::Utf8 | Kind::Utf8View, Value::String(s)) => Typed::Text(s.unescaped().into_owned()),
        // Numbers, booleans, objects and arrays read into a text column as their JSON text.
        (Kind::Utf8 | Kind::Utf8View, other) => Typed::Text(other.raw().to_owned()),
        (Kind::Int64, Value::Number(n)) => match decimal_parts(n.raw().as_bytes()) {
            Some((m, 0)) => Typed::Int(m),
            _ => {
                let d = n.to_decimal().ok_or(())?;
                if d.fract() != ndq_scan::Decimal::ZERO {
                    return Err(());
                }
                Typed::Int(d.to_i64().ok_or(())?)
            }
        },
        (Kind::Decimal(p, s), Value::Number(n)) => {
            let (m, scale) = match decimal_parts(n.raw().as_bytes()) {
                Some((m, scale)) => (m as i128, scale),
                None => {
                    let d = n.to_decimal().ok_or(())?;
                    (d.mantissa(), d.scale())
                }
            };
            Typed::Wide(rescale(m, scale, s as u32, p).ok_or(())?)
        }
        (Kind::Float64, Value::Number(n)) => Typed::Float(n.to_f64()),
        (Kind::Boolean, Value::Bool(b)) => Typed::Bool(b),
        (Kind::TimestampNs, Value::String(s)) => {
            let ts: jiff::Timestamp = s.unescaped().parse().map_err(|_| ())?;
            Typed::Wide(ts.as_nanosecond())
        }
        _ => return Err(()),
    };
    Ok(Some(t))
}

/// `m * 10^-scale` as an unscaled value at scale `to` with at most `precision` digits; `None`
/// when that would drop a nonzero digit or overflow.
fn rescale(m: i128, scale: u32, to: u32, precision: u8) -> Option<i128> {
    let v = if scale <= to {
        m.checked_mul(10i128.checked_pow(to - scale)?)?
    } else {
        let d = 10i128.checked_pow(scale - to)?;
        if m % d != 0 {
            return None;
        }
        m / d
    };
    (v.unsigned_abs() < 10u128.pow(u32::from(precision))).then_some(v)
}

/// A column being built.
pub(crate) enum Builder {
    Utf8(StringBuilder),
    Utf8View(StringViewBuilder),
    Int64(Int64Builder),
    Decimal(Decimal128Builder, u8, i8),
    Float64(Float64Builder),
    Boolean(BooleanBuilder),
    TimestampNs(TimestampNanosecondBuilder, Option<Arc<str>>),
}

impl Builder {
    pub(crate) fn new(field: &Field, kind: Kind, capacity: usize) -> Builder {
        match kind {
            Kind::Utf8 => Builder::Utf8(StringBuilder::with_capacity(capacity, capacity * 16)),
            Kind::Utf8View => Builder::Utf8View(StringViewBuilder::with_capacity(capacity)),
            Kind::Int64 => Builder::Int64(Int64Builder::with_capacity(capacity)),
            Kind::Decimal(p, s) => {
                Builder::Decimal(Decimal128Builder::with_capacity(capacity), p, s)
            }
            Kind::Float64 => Builder::Float64(Float64Builder::with_capacity(capacity)),
            Kind::Boolean => Builder::Boolean(BooleanBuilder::with_capacity(capacity)),
            Kind::TimestampNs => {
                let tz = match field.data_type() {
                    DataType::Timestamp(_, tz) => tz.clone(),
                    _ => None,
                };
                Builder::TimestampNs(TimestampNanosecondBuilder::with_capacity(capacity), tz)
            }
        }
    }

    /// Append a value converted for this builder's kind (or null).
    pub(crate) fn append(&mut self, v: Option<Typed>) {
        match (self, v) {
            (Builder::Utf8(b), Some(Typed::Text(t))) => b.append_value(t),
            (Builder::Utf8View(b), Some(Typed::Text(t))) => b.append_value(t),
            (Builder::Int64(b), Some(Typed::Int(i))) => b.append_value(i),
            (Builder::Decimal(b, ..), Some(Typed::Wide(i))) => b.append_value(i),
            (Builder::Float64(b), Some(Typed::Float(f))) => b.append_value(f),
            (Builder::Boolean(b), Some(Typed::Bool(x))) => b.append_value(x),
            (Builder::TimestampNs(b, _), Some(Typed::Wide(i))) => {
                // Beyond ±292 years from 1970: null, as a value that does not fit.
                b.append_option(i64::try_from(i).ok())
            }
            (Builder::Utf8(b), _) => b.append_null(),
            (Builder::Utf8View(b), _) => b.append_null(),
            (Builder::Int64(b), _) => b.append_null(),
            (Builder::Decimal(b, ..), _) => b.append_null(),
            (Builder::Float64(b), _) => b.append_null(),
            (Builder::Boolean(b), _) => b.append_null(),
            (Builder::TimestampNs(b, _), _) => b.append_null(),
        }
    }

    pub(crate) fn finish(&mut self) -> Result<ArrayRef> {
        Ok(match self {
            Builder::Utf8(b) => Arc::new(b.finish()),
            Builder::Utf8View(b) => Arc::new(b.finish()),
            Builder::Int64(b) => Arc::new(b.finish()),
            Builder::Decimal(b, p, s) => Arc::new(b.finish().with_precision_and_scale(*p, *s)?),
            Builder::Float64(b) => Arc::new(b.finish()),
            Builder::Boolean(b) => Arc::new(b.finish()),
            Builder::TimestampNs(b, tz) => Arc::new(b.finish().with_timezone_opt(tz.clone())),
        })
    }
}

/// A comparison of a column with a constant, checked on each line before its row is built.
#[derive(Clone, Debug)]
pub(crate) struct Predicate {
    /// The column's index in the table's schema.
    pub(crate) column: usize,
    op: Operator,
    value: Typed,
}

impl Predicate {
    /// `column op literal` (or `literal op column`) on a column of `kinds`, with a literal of
    /// the column's own type; `None` for anything else.
    pub(crate) fn from_expr(expr: &Expr, names: &[String], kinds: &[Kind]) -> Option<Predicate> {
        let Expr::BinaryExpr(b) = expr else {
            return None;
        };
        let (col, op, lit) = match (&*b.left, &*b.right) {
            (Expr::Column(c), Expr::Literal(v, _)) => (c, b.op, v),
            (Expr::Literal(v, _), Expr::Column(c)) => (c, b.op.swap()?, v),
            _ => return None,
        };
        if !matches!(
            op,
            Operator::Eq
                | Operator::NotEq
                | Operator::Lt
                | Operator::LtEq
                | Operator::Gt
                | Operator::GtEq
        ) {
            return None;
        }
        let column = names.iter().position(|n| *n == col.name)?;
        let value = match (kinds[column], lit) {
            (
                Kind::Utf8 | Kind::Utf8View,
                ScalarValue::Utf8(Some(s))
                | ScalarValue::Utf8View(Some(s))
                | ScalarValue::LargeUtf8(Some(s)),
            ) => Typed::Text(s.clone()),
            (Kind::Int64, ScalarValue::Int64(Some(i))) => Typed::Int(*i),
            (Kind::Decimal(_, s), ScalarValue::Decimal128(Some(v), _, ls)) if *ls == s => {
                Typed::Wide(*v)
            }
            (Kind::Float64, ScalarValue::Float64(Some(f))) => Typed::Float(*f),
            (Kind::Boolean, ScalarValue::Boolean(Some(x))) => Typed::Bool(*x),
            (Kind::TimestampNs, ScalarValue::TimestampNanosecond(Some(t), _)) => {
                Typed::Wide(i128::from(*t))
            }
            _ => return None,
        };
        Some(Predicate { column, op, value })
    }

    /// Whether a row whose column holds `v` can pass (null never passes a comparison).
    pub(crate) fn keeps(&self, v: Option<&Typed>) -> bool {
        let Some(ord) = v.and_then(|v| v.cmp(&self.value)) else {
            return false;
        };
        match self.op {
            Operator::Eq => ord.is_eq(),
            Operator::NotEq => ord.is_ne(),
            Operator::Lt => ord.is_lt(),
            Operator::LtEq => ord.is_le(),
            Operator::Gt => ord.is_gt(),
            Operator::GtEq => ord.is_ge(),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rescale_keeps_exact_values_only() {
        assert_eq!(rescale(1234, 2, 4, 18), Some(123400));
        assert_eq!(rescale(123400, 4, 2, 18), Some(1234));
        assert_eq!(rescale(123401, 4, 2, 18), None);
        assert_eq!(rescale(12345, 0, 0, 4), None);
        assert_eq!(rescale(-9999, 0, 0, 4), Some(-9999));
    }
}
