//! Nothing but a home for `benches/scan.rs`: the scanner's criterion bench, in a package of
//! its own so that it builds serde_json without `arbitrary_precision` (see `Cargo.toml`).
//! Run it with `cargo bench -p ndq-scan-bench`.
