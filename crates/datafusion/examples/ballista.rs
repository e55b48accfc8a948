//! Query a directory of NDJSON logs with a Ballista cluster through the ndq table; or be the
//! scheduler or an executor of such a cluster.
//!
//! ```text
//! cargo run --release --manifest-path crates/datafusion/Cargo.toml --features ballista \
//!     --example ballista -- [OPTIONS] DIR [SQL]
//! ... --example ballista -- scheduler [--bind HOST:PORT]
//! ... --example ballista -- executor --scheduler HOST:PORT [--bind HOST] [--port PORT] [--vcores N]
//! ```
//!
//! A query without `--scheduler` starts a scheduler and `--executors` executors in this
//! process, on loopback ports the system chooses. With `--scheduler df://HOST:PORT` it goes to
//! that cluster instead, whose scheduler and executors must use the ndq codecs (as this
//! program's `scheduler` and `executor` do) and see DIR at the same path. The table is `logs`;
//! SQL defaults to a count and mean duration per level.
//!
//! Query options: `--executors N` (2), `--vcores N` tasks at once per executor (2),
//! `--partitions N` partitions of the scan (byte ranges) and of the stages after it
//! (executors × vcores), `--runs N`
//! times the query runs (1; the time of each run and their median are printed).
//! `scheduler`: `--bind` (127.0.0.1:50050). `executor`: `--bind` (127.0.0.1), `--port` for its
//! data (50051; it also uses the next port), `--vcores` (2).

use std::error::Error;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use ndq_datafusion::NdjsonTable;
use ndq_datafusion::ballista::{NdjsonLogicalCodec, NdjsonPhysicalCodec};

const DEFAULT_SQL: &str = r#"select "@l", count(*) as events, avg("Elapsed") as mean_elapsed
from logs group by "@l" order by events desc"#;

const USAGE: &str = "usage: ballista [--scheduler URL] [--executors N] [--vcores N] \
                     [--partitions N] [--runs N] DIR [SQL]\n       \
                     ballista scheduler [--bind HOST:PORT]\n       \
                     ballista executor --scheduler HOST:PORT [--bind HOST] [--port PORT] \
                     [--vcores N]";

type Res<T> = Result<T, Box<dyn Error>>;

/// The command line: options with a value, and the other words.
struct Args {
    options: Vec<(String, String)>,
    words: Vec<String>,
}

impl Args {
    fn parse() -> Args {
        let (mut options, mut words) = (Vec::new(), Vec::new());
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            if arg.starts_with("--") {
                let value = args.next().unwrap_or_else(|| usage());
                options.push((arg, value));
            } else {
                words.push(arg);
            }
        }
        Args { options, words }
    }

    fn text(&self, name: &str) -> Option<String> {
        let found = self.options.iter().rev().find(|(n, _)| n == name);
        found.map(|(_, v)| v.clone())
    }

    fn number(&self, name: &str, default: usize) -> usize {
        self.text(name)
            .map_or(default, |v| v.parse().unwrap_or_else(|_| usage()))
    }
}

fn usage() -> ! {
    eprintln!("{USAGE}");
    std::process::exit(2)
}

#[tokio::main]
async fn main() -> Res<()> {
    let args = Args::parse();
    match args.words.first().map(String::as_str) {
        Some("scheduler") => scheduler(&args).await,
        Some("executor") => executor(&args).await,
        _ => query(&args).await,
    }
}

/// A scheduler that decodes the ndq table and encodes its scans.
async fn scheduler(args: &Args) -> Res<()> {
    let addr: SocketAddr = args
        .text("--bind")
        .unwrap_or_else(|| "127.0.0.1:50050".into())
        .parse()?;
    let config = SchedulerConfig {
        bind_host: addr.ip().to_string(),
        bind_port: addr.port(),
        override_logical_codec: Some(Arc::new(NdjsonLogicalCodec::default())),
        override_physical_codec: Some(Arc::new(NdjsonPhysicalCodec::default())),
        ..Default::default()
    };
    let cluster = BallistaCluster::new_from_config(&config).await?;
    eprintln!("scheduler listening on {addr}");
    start_server(cluster, addr, Arc::new(config)).await?;
    Ok(())
}

/// An executor that decodes the ndq scans it is sent.
async fn executor(args: &Args) -> Res<()> {
    let scheduler = args.text("--scheduler").unwrap_or_else(|| usage());
    let (host, port) = scheduler.rsplit_once(':').unwrap_or_else(|| usage());
    let port_of_data = args.number("--port", 50051);
    let config = ExecutorProcessConfig {
        bind_host: args.text("--bind").unwrap_or_else(|| "127.0.0.1".into()),
        port: u16::try_from(port_of_data)?,
        grpc_port: u16::try_from(port_of_data + 1)?,
        scheduler_host: host.to_owned(),
        scheduler_port: port.parse()?,
        vcores: args.number("--vcores", 2),
        override_logical_codec: Some(Arc::new(NdjsonLogicalCodec::default())),
        override_physical_codec: Some(Arc::new(NdjsonPhysicalCodec::default())),
        ..Default::default()
    };
    start_executor_process(Arc::new(config)).await?;
    Ok(())
}

/// Register DIR as `logs` and run the query on the cluster.
async fn query(args: &Args) -> Res<()> {
    let (dir, sql) = match args.words.as_slice() {
        [dir] => (dir.clone(), DEFAULT_SQL.to_owned()),
        [dir, sql] => (dir.clone(), sql.clone()),
        _ => usage(),
    };
    let executors = args.number("--executors", 2);
    let vcores = args.number("--vcores", 2);
    let partitions = args.number("--partitions", executors * vcores).max(1);
    let runs = args.number("--runs", 1).max(1);

    // The codecs carry the ndq table to the scheduler and its scan to the executors; the
    // scan and the stages after it run in `partitions` partitions, spread over the executors.
    let config = ndq_datafusion::ballista::with_codecs(
        SessionConfig::new_with_ballista().with_target_partitions(partitions),
    );
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    let url = match args.text("--scheduler") {
        Some(url) => url,
        None => {
            let url =
                ndq_datafusion::ballista::start_local_cluster(&state, executors, vcores).await?;
            eprintln!("started a scheduler at {url} and {executors} executors of {vcores} vcores");
            url
        }
    };
    let ctx = SessionContext::remote_with_state(&url, state).await?;

    // The columns and their types from a sample of the logs, as `ndq keys` sees them.
    let table = NdjsonTable::infer(&ctx.state(), [&dir]).await?;
    ctx.register_table("logs", Arc::new(table))?;

    let mut times = Vec::new();
    let mut batches = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        batches = ctx.sql(&sql).await?.collect().await?;
        times.push(start.elapsed().as_secs_f64());
    }
    println!("{}", pretty_format_batches(&batches)?);
    if runs > 1 {
        let shown: Vec<String> = times.iter().map(|t| format!("{t:.3}")).collect();
        times.sort_by(f64::total_cmp);
        println!(
            "median {:.3}s of {runs} runs: {}",
            times[times.len() / 2],
            shown.join(" ")
        );
    }
    Ok(())
}
