//! A Ballista cluster (a scheduler and two executors in this process, on loopback) answers the
//! same SQL over the ndq table as a plain DataFusion session over the same table, and as
//! DataFusion's own NDJSON reader (the oracle). Needs the `ballista` feature.
//!
//! In the cluster the table's scan is one partition (the crate's README says why); the stages
//! after it run in several partitions, on both executors.

mod common;

use std::sync::Arc;
use std::time::Duration;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use ndq_datafusion::NdjsonTable;

use common::{DECIMAL, QUERIES, TempDir, run, schema, sessions};

/// Target partitions: more than the executors' task slots, so both executors get tasks.
const PARTITIONS: usize = 6;

/// A bound on the whole test: it stops by itself (the cluster stops with the test's runtime).
const LIMIT: Duration = Duration::from_secs(600);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ballista_cluster_answers_like_datafusion_and_its_json_reader() {
    tokio::time::timeout(LIMIT, queries_through_ballista())
        .await
        .expect("the Ballista queries finish in time");
}

async fn queries_through_ballista() {
    // Generated logs in four files of different sizes (about 4.5 MiB); the plain session
    // cuts them into byte ranges of 6 partitions.
    let dir = TempDir::new("ballista");
    let sizes = [3 << 19, 1 << 20, 1 << 19, 3 << 20 >> 1];
    let paths: Vec<_> = sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            let path = dir.0.join(format!("part-{i}.ndjson"));
            std::fs::write(&path, ndq_gen::generate(20 + i as u64, size)).unwrap();
            path
        })
        .collect();

    let config = ndq_datafusion::ballista::with_codecs(
        SessionConfig::new_with_ballista().with_target_partitions(PARTITIONS),
    );
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    let url = ndq_datafusion::ballista::start_local_cluster(&state, 2, 2)
        .await
        .unwrap();
    let cluster = SessionContext::remote_with_state(&url, state)
        .await
        .unwrap();
    // The directory, as a user registers it; the plain session reads the same files.
    let table = NdjsonTable::try_new([&dir.0], Arc::new(schema(DECIMAL))).unwrap();
    cluster.register_table("logs", Arc::new(table)).unwrap();

    let (plain, oracle) = sessions(&paths, PARTITIONS, DECIMAL).await;
    for sql in QUERIES {
        let (want, _) = run(&oracle, sql).await;
        let (local, _) = run(&plain, sql).await;
        let (got, _) = run(&cluster, sql).await;
        assert!(!want.is_empty(), "{sql}: no rows to compare");
        assert_eq!(local, want, "{sql}: plain DataFusion session");
        assert_eq!(got, want, "{sql}: Ballista");
    }
}
