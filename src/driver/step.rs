//! The real [`LineStep`]: a line parsed by the lazy scanner (or serde_json, for the baseline
//! engine) and the plan evaluated on it.

use ndq_query::{Kind, Plan, Worker};
use ndq_scan::Parser;

use super::chunk::{ChunkOut, LineStep};
use super::{Engine, RunOptions};
use crate::output::RowWriter;

/// Per-worker state: the scanner's buffers and the plan's evaluator.
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
}

impl<'p> PlanStep<'p> {
    /// A step for one rayon worker.
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

    fn step(&mut self, line: &[u8], out: &mut ChunkOut) -> Result<(), String> {
        match self.engine {
            Engine::Lazy => {
                let _doc = self
                    .parser
                    .parse_until(line, self.plan.key_set())
                    .map_err(|m| m.to_string())?;
                let _ = (&self.worker, self.writer, self.table, out);
                todo!("TODO(engine): evaluate once ndq-query's Worker lands")
            }
            Engine::Serde => {
                let value: serde_json::Value =
                    serde_json::from_slice(line).map_err(|e| e.to_string())?;
                if !value.is_object() {
                    return Err("not a JSON object".to_string());
                }
                todo!("TODO(engine): evaluate once ndq-query's Worker lands")
            }
        }
    }
}
