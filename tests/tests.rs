//! The one integration test binary: its modules are the test suites.

mod bench;
mod cli;
mod docs;
mod golden;
mod keys;
mod util;
