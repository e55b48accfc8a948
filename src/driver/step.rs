//! The real [`LineStep`]: a line parsed by the lazy scanner (or by serde_json, for the
//! baseline engine) and the plan evaluated on it. Both engines share [`eval`], generic over
//! ndq-query's [`Doc`], so they differ only in how the line is parsed.

use std::borrow::Cow;

use ndq_query::{Doc, Kind, Plan, Value, Worker};
use ndq_scan::Parser;

use super::chunk::{ChunkOut, LineStep};
use super::{Engine, RunOptions};
use crate::messages::Rejection;
use crate::output::RowWriter;

/// Per-worker state, kept for the whole run: the scanner's buffers (and the line shapes it
/// learned) and the plan's evaluator.
#[derive(Debug)]
pub struct PlanStep<'p> {
    plan: &'p Plan,
    kind: Kind,
    engine: Engine,
    parser: Parser,
    worker: Worker<'p>,
    writer: &'p RowWriter,
    /// Keep rows as values (for `-o table`) instead of formatting them.
    table: bool,
    /// Decide `where` on the keys it reads before validating the rest of the line, and skip
    /// that rest when the line is ruled out ([`super::RunOptions::skips_lines`]).
    defer: bool,
}

impl<'p> PlanStep<'p> {
    /// A step for one worker thread (made on its first chunk, see `driver::drive`).
    pub fn new(
        plan: &'p Plan,
        opts: &RunOptions,
        writer: &'p RowWriter,
        table: bool,
    ) -> PlanStep<'p> {
        PlanStep {
            plan,
            kind: plan.kind(),
            engine: opts.engine,
            parser: Parser::new(opts.scanner),
            worker: plan.worker(),
            writer,
            table,
            defer: plan.has_where() && opts.skips_lines(),
        }
    }
}

impl LineStep for PlanStep<'_> {
    fn begin(&self) -> ChunkOut {
        ChunkOut {
            acc: (self.kind == Kind::Collect).then(|| self.plan.accumulator()),
            ..ChunkOut::default()
        }
    }

    fn step(&mut self, line: &[u8], out: &mut ChunkOut) -> Result<(), Rejection> {
        let how = How {
            kind: self.kind,
            writer: self.writer,
            table: self.table,
        };
        match self.engine {
            Engine::Lazy if self.defer => {
                let doc = self
                    .parser
                    .parse_prefix(line, self.plan.key_set())
                    .map_err(Rejection::Scan)?;
                if !self.worker.matches(self.plan.root(doc)) {
                    // Ruled out by values that are final (the first occurrence of a key
                    // wins): the rest of the line is not validated, as with the prefilter.
                    return Ok(());
                }
                let doc = self.parser.finish(line).map_err(Rejection::Scan)?;
                let root = self.plan.root(doc);
                eval(&how, &mut self.worker, root, line, out, Some(true));
            }
            Engine::Lazy => {
                let doc = self
                    .parser
                    .parse_until(line, self.plan.key_set())
                    .map_err(Rejection::Scan)?;
                let root = self.plan.root(doc);
                eval(&how, &mut self.worker, root, line, out, None);
            }
            Engine::Serde => {
                let value: serde_json::Value =
                    serde_json::from_slice(line).map_err(|e| Rejection::Serde(e.to_string()))?;
                if !value.is_object() {
                    return Err(Rejection::NotAnObject);
                }
                let root = SerdeLine {
                    value: &value,
                    line,
                };
                eval(&how, &mut self.worker, root, line, out, None);
            }
        }
        Ok(())
    }
}

/// The baseline engine's root: serde_json's value, and the line it came from, which
/// `select *` writes unchanged (serde_json would write its own spelling).
#[derive(Clone, Copy)]
struct SerdeLine<'a> {
    value: &'a serde_json::Value,
    line: &'a [u8],
}

impl<'a> Doc<'a> for SerdeLine<'a> {
    type Node = &'a serde_json::Value;
    fn get(self, key: &str) -> Option<Self::Node> {
        self.value.get(key)
    }
    fn index(self, i: usize) -> Option<Self::Node> {
        Doc::index(self.value, i)
    }
    fn view(self) -> ndq_query::View<'a> {
        self.value.view()
    }
    fn raw(self) -> Cow<'a, str> {
        self.value.raw()
    }
    fn line(self) -> Cow<'a, str> {
        // Valid UTF-8 (serde_json accepted it); checked again only for `select *` rows.
        Cow::Borrowed(std::str::from_utf8(self.line).unwrap_or_default())
    }
}

/// What to do with a matching line.
struct How<'w> {
    kind: Kind,
    writer: &'w RowWriter,
    table: bool,
}

/// Evaluate one parsed line (the same for both engines): count a hit, and write the line,
/// format or keep its row, or fold it into the chunk's accumulator. `matched` is `where`'s
/// answer when the caller already has it (`None`: evaluate it here).
#[inline]
fn eval<'a, D: Doc<'a>>(
    how: &How<'_>,
    worker: &mut Worker<'_>,
    root: D,
    line: &[u8],
    out: &mut ChunkOut,
    matched: Option<bool>,
) {
    if !matched.unwrap_or_else(|| worker.matches(root)) {
        return;
    }
    out.hits += 1;
    match how.kind {
        Kind::Lines => {
            out.rows += 1;
            how.writer.line(line, &mut out.buf);
        }
        Kind::Rows => {
            out.rows += 1;
            worker.with_row(root, |row| {
                if how.table {
                    out.table
                        .push(row.iter().cloned().map(Value::into_owned).collect());
                } else {
                    how.writer.row(row, &mut out.buf);
                }
            });
        }
        Kind::Collect => {
            if let Some(acc) = out.acc.as_mut() {
                worker.fold(root, acc);
            }
        }
    }
}
