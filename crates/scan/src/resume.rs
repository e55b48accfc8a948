//! Where the scanner's parse loop resumes: the one position type shared by the state machine
//! (`state.rs`), which stops and goes on at these points, and the line shapes (`shape.rs`),
//! which tag the rest of a line with the point it starts from. It depends on nothing, so
//! both can use it without referring to each other.

/// Where the parse loop resumes (and where a deferred scan goes on: `ObjectStart` or
/// `AfterValue`, with only the root open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum At {
    /// After a `{`.
    ObjectStart,
    /// At the opening quote of a key.
    Members,
    /// After a `[`.
    ArrayStart,
    /// At the first byte of an array element (blanks skipped).
    Value,
    /// After a value inside a container.
    AfterValue,
}
