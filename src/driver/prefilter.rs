//! The driver's side of the literal prefilter: the query crate finds the candidate lines of a
//! chunk ([`ndq_query::Prefilter::candidates`]), and the chunk loop (`chunk.rs`) hands only
//! those to the step; this module counts the lines it jumps over (newlines for `file:line`
//! numbers, non-blank lines for the statistics). Its difftest runs the whole driver with the
//! prefilter on and off.

/// The lines of `region` (whole lines; the last may lack its newline): how many, and how
/// many of them are not blank.
pub fn count_lines(region: &[u8]) -> (u64, u64) {
    let (mut lines, mut filled) = (0u64, 0u64);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', region) {
        lines += 1;
        filled += u64::from(!super::chunk::is_blank(&region[start..end]));
        start = end + 1;
    }
    if start < region.len() {
        lines += 1;
        filled += u64::from(!super::chunk::is_blank(&region[start..]));
    }
    (lines, filled)
}

#[cfg(test)]
mod difftest;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_lines_counts_blank_ones_apart() {
        assert_eq!(count_lines(b""), (0, 0));
        assert_eq!(count_lines(b"{}\n"), (1, 1));
        assert_eq!(count_lines(b"{}"), (1, 1));
        assert_eq!(count_lines(b"\n\n"), (2, 0));
        assert_eq!(count_lines(b"{}\r\n \t\r\n\n{}\n{}"), (5, 3));
        assert_eq!(count_lines(b" x \n  "), (2, 1));
    }
}
