//! The one integration test binary.
mod bench;
