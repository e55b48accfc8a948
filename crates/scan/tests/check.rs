//! The properties every input must have, as functions returning what went wrong: shared by
//! the proptest tests and the fuzz targets (so they depend on ndq-scan and serde_json only).
//!
//! - `check_line`: never a panic; rejected exactly when serde_json rejects; else same values.
//! - `check_until`: `parse_until` gives `parse`'s verdict and values for the wanted keys.
//! - `check_aligned`: scalar and AVX2 give identical results at every offset 0..64.

use ndq_scan::{KeySet, Parser, Reason, Scanner, Value};

use crate::common::{agree, scanners};

/// The key by which serde_json's `arbitrary_precision` feature (on in this workspace, to keep
/// numbers' text) marks a number inside its own data model: an object whose only key it is
/// reads as a number, so serde_json rejects `{"$serde_json::private::Number":"0."}`, which is
/// valid JSON. On a line holding it serde_json is no oracle.
const SERDE_NUMBER_TOKEN: &[u8] = b"$serde_json::private::Number";

/// The serde_json verdict and ours must match; for accepted lines, the values too.
pub fn check_line(line: &[u8]) -> Result<(), String> {
    let want = serde_json::from_slice::<serde_json::Value>(line);
    let oracle = !line
        .windows(SERDE_NUMBER_TOKEN.len())
        .any(|w| w == SERDE_NUMBER_TOKEN);
    for scanner in scanners() {
        let mut parser = Parser::new(scanner);
        let got = parser.parse(line);
        if !oracle {
            // Still scanned: no panic, and an error's offset inside the line.
            if got.as_ref().is_err_and(|e| e.offset > line.len()) {
                return Err(format!("{}: error offset past the line", scanner.name()));
            }
            continue;
        }
        match (&want, got) {
            (Ok(j @ serde_json::Value::Object(_)), Ok(doc)) => {
                agree(Value::Object(doc.root()), j)
                    .map_err(|e| format!("{}: {e}", scanner.name()))?;
                if doc.root().raw().len() > line.len() {
                    return Err("root longer than the line".into());
                }
            }
            (Ok(serde_json::Value::Object(_)), Err(e)) => {
                return Err(format!(
                    "{}: serde_json accepts, we say {e}",
                    scanner.name()
                ));
            }
            (Ok(_), Err(e)) if e.reason == Reason::NotAnObject => {}
            (Ok(_), r) => return Err(format!("{}: a non-object root gave {r:?}", scanner.name())),
            (Err(_), Err(e)) if e.offset <= line.len() => {}
            (Err(s), r) => {
                return Err(format!(
                    "{}: serde_json says {s}, we say {:?}",
                    scanner.name(),
                    r.map(|_| ())
                ));
            }
        }
    }
    Ok(())
}

/// `parse_until` for the first `n` top-level keys (and one that is never there) agrees with
/// `parse` on the verdict and on those keys.
pub fn check_until(line: &[u8], n: usize) -> Result<(), String> {
    for scanner in scanners() {
        let mut parser = Parser::new(scanner);
        let (keys, full) = match parser.parse(line) {
            Ok(doc) => {
                let keys: Vec<String> = doc
                    .root()
                    .iter()
                    .map(|(k, _)| k.unescaped().into_owned())
                    .collect();
                let values: Vec<Option<String>> = keys
                    .iter()
                    .map(|k| doc.root().get(k).map(|v| v.raw().to_owned()))
                    .collect();
                (keys, Ok(values))
            }
            Err(e) => (Vec::new(), Err(e)),
        };
        let mut wanted: Vec<String> = keys.iter().take(n).cloned().collect();
        if n % 2 == 1 {
            wanted.push("never there".into());
        }
        let set = KeySet::new(&wanted);
        let mut parser = Parser::new(scanner);
        match (parser.parse_until(line, &set), full) {
            (Ok(doc), Ok(values)) => {
                check_wanted(&doc, &set)?;
                for (k, v) in keys.iter().zip(values).take(n) {
                    let got = doc.root().get(k).map(|v| v.raw().to_owned());
                    if got != v {
                        return Err(format!("key {k:?}: {got:?} vs {v:?}"));
                    }
                }
            }
            (Err(a), Err(b)) if a == b => {}
            (a, b) => {
                return Err(format!(
                    "{}: parse_until {:?} vs parse {:?}",
                    scanner.name(),
                    a.map(|_| ()),
                    b.map(|_| ())
                ));
            }
        }
        check_prefix(&mut parser, line, &set)?;
    }
    Ok(())
}

/// `parse_prefix` then `finish` gives what `parse_until` gives (the verdict, the error's reason
/// and offset, the whole document); the prefix's lookups of the wanted keys agree with it.
fn check_prefix(parser: &mut Parser, line: &[u8], set: &KeySet) -> Result<(), String> {
    let name = parser.scanner().name();
    let want = render(parser, line, Some(set));
    let wanted = |doc: &ndq_scan::Document<'_>| -> Vec<Option<String>> {
        set.iter()
            .map(|k| doc.root().get(k).map(|v| v.raw().to_owned()))
            .collect()
    };
    let until = parser.parse_until(line, set).map(|d| wanted(&d));
    match parser.parse_prefix(line, set) {
        Ok(doc) => {
            if !line.starts_with(doc.text().as_bytes()) {
                return Err(format!(
                    "{name}: parse_prefix's text is not the line's start"
                ));
            }
            check_wanted(&doc, set)?;
            if let Ok(until) = &until
                && wanted(&doc) != *until
            {
                return Err(format!(
                    "{name}: parse_prefix's keys {:?} vs {until:?}",
                    wanted(&doc)
                ));
            }
        }
        Err(e) => {
            // An error in the part read is parse_until's error too.
            if until.as_ref().err() != Some(&e) {
                return Err(format!(
                    "{name}: parse_prefix says {e:?}, parse_until {until:?}"
                ));
            }
            return Ok(());
        }
    }
    let finished = parser.finish(line);
    if let Ok(doc) = &finished {
        check_wanted(doc, set)?;
    }
    let got = rendered_until(finished, set);
    if got != want {
        return Err(format!(
            "{name}: parse_prefix + finish {got} vs parse_until {want}"
        ));
    }
    Ok(())
}

/// `Document::wanted` answers what `root().get` answers for every key of `set` (and does
/// not know, for a set of more than 64 keys).
fn check_wanted(doc: &ndq_scan::Document<'_>, set: &KeySet) -> Result<(), String> {
    for (i, k) in set.iter().enumerate() {
        // The same text at the same place: the first occurrence's value.
        let place = |v: Value<'_>| (v.raw().as_ptr(), v.raw().to_owned());
        let get = doc.root().get(k).map(place);
        match doc.wanted(set, i) {
            Some(found) if set.len() <= 64 => {
                let found = found.map(place);
                if found != get {
                    return Err(format!("wanted({i}) {found:?} vs get({k:?}) {get:?}"));
                }
            }
            None if set.len() > 64 => {}
            other => {
                return Err(format!(
                    "wanted({i}) of a set of {}: {:?}",
                    set.len(),
                    other.map(|f| f.map(|v| v.raw()))
                ));
            }
        }
    }
    if doc.wanted(set, set.len()).is_some() {
        return Err("wanted past the set's end".into());
    }
    if doc.wanted(&KeySet::new(set.iter()), 0).is_some() {
        return Err("wanted answers for another set".into());
    }
    Ok(())
}

/// Everything observable about a parse, as text.
pub fn render(parser: &mut Parser, line: &[u8], want: Option<&KeySet>) -> String {
    match want {
        Some(w) => rendered_until(parser.parse_until(line, w), w),
        None => rendered(parser.parse(line)),
    }
}

/// [`rendered`] of a document scanned with the key set `w`, with what `wanted` answers.
fn rendered_until(doc: Result<ndq_scan::Document<'_>, ndq_scan::Malformed>, w: &KeySet) -> String {
    let wanted: Vec<_> = match &doc {
        Ok(doc) => (0..w.len())
            .map(|i| doc.wanted(w, i).map(|v| v.map(|v| v.raw().to_owned())))
            .collect(),
        Err(_) => Vec::new(),
    };
    format!("{} wanted {wanted:?}", rendered(doc))
}

/// Everything observable about a parse's result, as text.
fn rendered(doc: Result<ndq_scan::Document<'_>, ndq_scan::Malformed>) -> String {
    match doc {
        Err(e) => format!("error {e:?}"),
        Ok(doc) => {
            let mut out = format!("{} nodes ", doc.indexed());
            value(&mut out, Value::Object(doc.root()));
            out
        }
    }
}

fn value(out: &mut String, v: Value<'_>) {
    match v {
        Value::Object(o) => {
            out.push('{');
            for (k, v) in o.iter() {
                out.push_str(&format!("{}{}:", k.raw(), k.has_escapes()));
                value(out, v);
                out.push(',');
            }
            out.push_str(&format!("}}{}", o.raw().len()));
        }
        Value::Array(a) => {
            out.push('[');
            for v in a.iter() {
                value(out, v);
                out.push(',');
            }
            out.push_str(&format!("]{}", a.raw().len()));
        }
        Value::String(s) => out.push_str(&format!("{:?}{}", s.raw(), s.has_escapes())),
        other => out.push_str(other.raw()),
    }
}

/// `line` at every offset 0..64 from an aligned address, through both scanners (and through
/// `parse_until` with `want`); all renderings must equal the scalar one at offset 0. Without
/// AVX2 only the scalar scanner runs (and the test still checks the offsets change nothing).
pub fn check_aligned(line: &[u8], want: Option<&KeySet>) -> Result<(), String> {
    (0..64).try_for_each(|offset| check_placed(line, offset, want))
}

/// `line` at `offset` bytes from a 64-byte aligned address: both scanners give what the
/// scalar scanner gives on `line` where it lies.
pub fn check_placed(line: &[u8], offset: usize, want: Option<&KeySet>) -> Result<(), String> {
    let mut scalar = Parser::new(Scanner::Scalar);
    let reference = render(&mut scalar, line, want);
    let mut buf = vec![0u8; line.len() + 128];
    let start = buf.as_ptr().align_offset(64) + offset % 64;
    buf[start..start + line.len()].copy_from_slice(line);
    let placed = &buf[start..start + line.len()];
    let mut parsers = vec![scalar];
    parsers.extend(Scanner::avx2().map(Parser::new));
    for parser in &mut parsers {
        let got = render(parser, placed, want);
        if got != reference {
            return Err(format!(
                "{} at offset {offset} on {:?}:\n{got}\nvs scalar:\n{reference}",
                parser.scanner().name(),
                String::from_utf8_lossy(line)
            ));
        }
    }
    Ok(())
}

/// The AVX2 scanner validates the rest of a line by its shape when it accepted a line of the
/// same shape before (the crate's `shape.rs`). After `template`, `line` must give what the
/// scalar scanner gives: through `parse_until` of the first `n` top-level keys of whichever
/// of the two parses, through `parse_until` of no keys (the whole line then goes by its
/// shape), and through `parse_prefix` and `finish`.
pub fn check_shapes(template: &[u8], line: &[u8], n: usize) -> Result<(), String> {
    let Some(avx2) = Scanner::avx2() else {
        return Ok(());
    };
    let mut scalar = Parser::new(Scanner::Scalar);
    let keys: Vec<String> = [template, line]
        .into_iter()
        .find_map(|l| {
            scalar.parse(l).ok().map(|doc| {
                doc.root()
                    .iter()
                    .take(n)
                    .map(|(k, _)| k.unescaped().into_owned())
                    .collect()
            })
        })
        .unwrap_or_default();
    for set in [KeySet::new(&keys), KeySet::new::<_, &str>([])] {
        let reference = render(&mut scalar, line, Some(&set));
        let mut parser = Parser::new(avx2);
        let _ = parser.parse_until(template, &set);
        let got = render(&mut parser, line, Some(&set));
        let mut deferred = Parser::new(avx2);
        let _ = deferred.parse_until(template, &set);
        let _ = deferred.parse_prefix(line, &set);
        let finished = rendered_until(deferred.finish(line), &set);
        for (how, got) in [("parse_until", got), ("parse_prefix and finish", finished)] {
            if got != reference {
                return Err(format!(
                    "avx2 {how} after {:?} on {:?} wanting {keys:?}:\n{got}\nvs scalar:\n{reference}",
                    String::from_utf8_lossy(template),
                    String::from_utf8_lossy(line),
                ));
            }
        }
    }
    Ok(())
}

/// Bytes that test a shape's checks when they land inside a string or a number: quotes and
/// backslashes (escapes, escaped quotes), control bytes, digits and leading zeros, the
/// letters of escapes, and bytes that break UTF-8.
const SHAPE_BYTES: &[u8] = b"\"\\\\\x01\x1f\x00\t00123456789.eE+-ubnu\"/ \xc3\xa9\x80\xff{}[],:";

/// `line` with the bytes that a shape does not keep exactly (the text inside strings, the
/// digits of numbers) changed: each `(at, what)` sets the `at`-th such byte (modulo their
/// count) to a byte of [`SHAPE_BYTES`], or, when `what` is odd, inserts it before that byte.
/// Such a line often has the shape of `line`, or would, but for what the checks look at.
pub fn shape_mutation(line: &[u8], picks: &[(usize, u8)]) -> Vec<u8> {
    let mut out = line.to_vec();
    for &(at, what) in picks {
        let mut inside = false;
        let mut escaped = false;
        let mut spots = Vec::new();
        for (i, &b) in out.iter().enumerate() {
            if inside {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    inside = false;
                    continue;
                }
                spots.push(i);
            } else if b == b'"' {
                inside = true;
            } else if b.is_ascii_digit() {
                spots.push(i);
            }
        }
        if spots.is_empty() {
            break;
        }
        let i = spots[at % spots.len()];
        let b = SHAPE_BYTES[usize::from(what / 2) % SHAPE_BYTES.len()];
        if what % 2 == 1 {
            out.insert(i, b);
        } else {
            out[i] = b;
        }
    }
    out
}
