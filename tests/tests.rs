//! The one integration test binary: its modules are the test suites.

mod bench;
mod chart;
mod cli;
mod color;
mod docs;
mod follow;
mod golden;
mod keys;
#[cfg(feature = "arrow")]
mod parquet;
mod time;
mod util;
