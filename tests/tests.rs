//! The one integration test binary: its modules are the test suites.

mod bench;
mod cli;
mod color;
mod docs;
mod follow;
mod golden;
mod keys;
mod time;
mod util;
