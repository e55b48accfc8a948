//! The lines of one byte range of a file.
//!
//! A range `[start, end)` owns the lines that *start* inside it: the first line of a range that
//! does not start at 0 begins after the first `\n` at or after `start - 1`, and the last one may
//! run past `end`. So the ranges of a file, cut anywhere, read each line exactly once.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// Bytes asked of the file at a time.
const BLOCK: usize = 1 << 20;

/// The lines of a byte range, read a block at a time.
pub(crate) struct Lines {
    file: File,
    buf: Vec<u8>,
    /// `buf[lo..hi]` is read and not yet handed out.
    lo: usize,
    hi: usize,
    /// How many bytes from `lo` are known to hold no `\n`.
    scanned: usize,
    /// The file offset of `buf[lo]`.
    offset: u64,
    end: u64,
    eof: bool,
}

impl Lines {
    pub(crate) fn open(path: &Path, start: u64, end: u64) -> io::Result<Lines> {
        let mut file = File::open(path)?;
        let skip_first = start > 0;
        let from = start.saturating_sub(1);
        file.seek(SeekFrom::Start(from))?;
        let mut lines = Lines {
            file,
            buf: vec![0; 2 * BLOCK],
            lo: 0,
            hi: 0,
            scanned: 0,
            offset: from,
            end,
            eof: false,
        };
        if skip_first {
            // The line that holds byte `start - 1` belongs to the range before.
            lines.next_line()?;
        }
        Ok(lines)
    }

    /// Read more bytes after `buf[lo..hi]`; false at the end of the file.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.lo > 0 {
            self.buf.copy_within(self.lo..self.hi, 0);
            self.hi -= self.lo;
            self.lo = 0;
        }
        if self.buf.len() - self.hi < BLOCK {
            // A line longer than the buffer: make room for it.
            self.buf.resize(self.hi + 2 * BLOCK, 0);
        }
        let n = self.file.read(&mut self.buf[self.hi..self.hi + BLOCK])?;
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.hi += n;
        Ok(true)
    }

    /// The next line of the range as `buf[a..b]` (without its `\n`), or `None` after the last.
    fn next_line(&mut self) -> io::Result<Option<(usize, usize)>> {
        loop {
            let from = self.lo + self.scanned;
            if let Some(i) = memchr(&self.buf[from..self.hi]) {
                let (a, b) = (self.lo, from + i);
                self.take(b + 1);
                return Ok(Some((a, b)));
            }
            self.scanned = self.hi - self.lo;
            if !self.fill()? {
                if self.lo == self.hi {
                    return Ok(None);
                }
                // The last line of the file has no `\n`.
                let (a, b) = (self.lo, self.hi);
                self.take(b);
                return Ok(Some((a, b)));
            }
        }
    }

    fn take(&mut self, to: usize) {
        self.offset += (to - self.lo) as u64;
        self.lo = to;
        self.scanned = 0;
    }

    /// The next line that starts inside the range (a trailing `\r` removed), or `None`.
    pub(crate) fn next(&mut self) -> io::Result<Option<&[u8]>> {
        if self.offset >= self.end {
            return Ok(None);
        }
        Ok(self.next_line()?.map(|(a, b)| {
            let line = &self.buf[a..b];
            line.strip_suffix(b"\r").unwrap_or(line)
        }))
    }
}

fn memchr(hay: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', hay)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Every cut of a file into two ranges reads each line once, in order.
    #[test]
    fn ranges_cut_anywhere_read_every_line_once() {
        let dir = std::env::temp_dir().join(format!("ndq-df-lines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.ndjson");
        let text = b"a\n\nbcd\r\nefghij\nk";
        File::create(&path).unwrap().write_all(text).unwrap();
        let expect: Vec<&[u8]> = vec![b"a", b"", b"bcd", b"efghij", b"k"];
        let len = text.len() as u64;
        for cut in 0..=len {
            let mut got: Vec<Vec<u8>> = Vec::new();
            for (s, e) in [(0, cut), (cut, len)] {
                let mut lines = Lines::open(&path, s, e).unwrap();
                while let Some(l) = lines.next().unwrap() {
                    got.push(l.to_vec());
                }
            }
            assert_eq!(got, expect, "cut at {cut}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
