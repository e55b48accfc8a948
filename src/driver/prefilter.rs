//! The driver's side of the literal prefilter: the query crate finds the candidate lines of a
//! chunk ([`ndq_query::Prefilter::candidates`]), and the chunk loop (`chunk.rs`) hands only
//! those to the step; the chunk loop counts the lines it jumps over
//! (`chunk::count_lines`). This module holds the difftest, which runs the whole driver with the
//! prefilter on and off.

#[cfg(test)]
mod difftest;
