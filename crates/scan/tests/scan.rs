//! The one integration-test binary of ndq-scan: generated and mutated documents against
//! serde_json, scalar against AVX2 at every alignment, and the committed fuzz corpus.

mod arb;
mod check;
mod common;
mod corpus;
mod diff;
mod impls;
mod print;
mod sample;
