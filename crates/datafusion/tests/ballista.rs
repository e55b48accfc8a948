//! A Ballista cluster (a scheduler and two executors in this process, on loopback) answers the
//! same SQL over the ndq table as a plain DataFusion session over the same table, and as
//! DataFusion's own NDJSON reader (the oracle). Needs the `ballista` feature.
//!
//! In the cluster the table's scan is cut into the session's target partitions of byte ranges,
//! which the scheduler hands out as tasks to both executors: every line is read once.

mod common;

use std::sync::Arc;
use std::time::Duration;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use datafusion::catalog::TableProvider;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use ndq_datafusion::NdjsonTable;

use common::{DECIMAL, QUERIES, TempDir, ndq_scan, run, schema, sessions};

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

    // The scan, planned in the cluster's session, is cut into byte ranges of several
    // partitions (at least 1 MiB each, up to the target): the scheduler gives each task its
    // own.
    let scan = table.scan(&cluster.state(), None, &[], None).await.unwrap();
    let config = ndq_scan(&scan).expect("an ndq scan");
    assert!(config.file_groups.len() > 2, "{config:?}");
    cluster.register_table("logs", Arc::new(table)).unwrap();

    // Each line counted once: the lines of the files, not blank.
    let lines: usize = paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            text.lines().filter(|l| !l.trim().is_empty()).count()
        })
        .sum();
    let (counted, _) = run(&cluster, "select count(*) from logs").await;
    assert_eq!(counted, vec![lines.to_string()]);

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
