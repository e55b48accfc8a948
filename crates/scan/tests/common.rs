//! Helpers shared by the test modules: every scanner this CPU has, and the comparison of a
//! lazy value with a `serde_json::Value`.

use ndq_scan::{Object, Scanner, Value};
use serde_json::Value as J;

/// Scalar, and AVX2 when the CPU has it.
pub fn scanners() -> Vec<Scanner> {
    let mut all = vec![Scanner::Scalar];
    all.extend(Scanner::avx2());
    all
}

/// Whether the lazy value `v` equals serde_json's `j`; `Err` says where they differ.
/// Objects with duplicate keys: serde_json keeps the last value, the lazy API answers `get`
/// with the first; both are checked against the matching occurrence.
pub fn agree(v: Value<'_>, j: &J) -> Result<(), String> {
    let ok = match (v, j) {
        (Value::Null, J::Null) => true,
        (Value::Bool(a), J::Bool(b)) => a == *b,
        (Value::Number(n), J::Number(m)) => {
            serde_number_text(n.raw()) == m.as_str() && decimal_agrees(n.raw(), n.to_decimal())
        }
        (Value::String(s), J::String(t)) => s.unescaped() == t.as_str(),
        (Value::Array(a), J::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!("array lengths {} vs {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                agree(x, y).map_err(|e| format!("[{i}] {e}"))?;
                agree(a.get(i).ok_or("get(i)")?, y).map_err(|e| format!("get({i}) {e}"))?;
            }
            true
        }
        (Value::Object(o), J::Object(m)) => return agree_object(o, m),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{} vs {j}", v.raw()))
    }
}

/// Whether `to_decimal` gave `got` for the number `raw` as rust_decimal's own exact parser
/// reads it, value and scale, wherever that parser holds it without an exponent (it reads
/// exponents differently). So every number the differential tests and the fuzz targets see
/// goes through `to_decimal`, fast path or not.
fn decimal_agrees(raw: &str, got: Option<ndq_scan::Decimal>) -> bool {
    if raw.contains(['e', 'E']) {
        return true;
    }
    match ndq_scan::Decimal::from_str_exact(raw) {
        Ok(want) => got.is_some_and(|d| d == want && d.scale() == want.scale()),
        Err(_) => true,
    }
}

fn agree_object(o: Object<'_>, m: &serde_json::Map<String, J>) -> Result<(), String> {
    let members: Vec<(String, Value<'_>)> = o
        .iter()
        .map(|(k, v)| (k.unescaped().into_owned(), v))
        .collect();
    let mut distinct: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != m.len() {
        return Err(format!("{} distinct keys vs {}", distinct.len(), m.len()));
    }
    for (k, j) in m {
        let last = members.iter().rev().find(|(mk, _)| mk == k);
        let Some((_, last)) = last else {
            return Err(format!("key {k:?} missing"));
        };
        agree(*last, j).map_err(|e| format!(".{k} {e}"))?;
        let first = o.get(k).ok_or_else(|| format!("get({k:?}) missed"))?;
        let want_first = members.iter().find(|(mk, _)| mk == k).map(|(_, v)| v.raw());
        if Some(first.raw()) != want_first {
            return Err(format!("get({k:?}) is not the first occurrence"));
        }
    }
    Ok(())
}

/// The text serde_json (with `arbitrary_precision`) keeps for a number: as written, except
/// that the exponent marker is `e` and always has a sign.
pub fn serde_number_text(raw: &str) -> String {
    match raw.find(['e', 'E']) {
        Some(i) => {
            let (mantissa, exp) = (&raw[..i], &raw[i + 1..]);
            let sign = if exp.starts_with(['+', '-']) { "" } else { "+" };
            format!("{mantissa}e{sign}{exp}")
        }
        None => raw.to_owned(),
    }
}
