//! The one integration-test binary of ndq-scan: generated and mutated documents against
//! serde_json, scalar against AVX2 at every alignment, and the committed fuzz corpus.

mod arb;
mod common;
mod diff;
mod impls;
mod sample;
