//! The lines of one byte range of a file, read from the local file system or from an object
//! store.
//!
//! A range `[start, end)` owns the lines that *start* inside it: the first line of a range that
//! does not start at 0 begins after the first `\n` at or after `start - 1`, and the last one may
//! run past `end`. So the ranges of a file, cut anywhere, read each line exactly once, whichever
//! way the bytes arrive.
//!
//! A local file is read with `read` a block at a time. An object is fetched as one ranged
//! request for `[start - 1, end)`, streamed; if the range's last line runs past `end`, its rest
//! is fetched in further ranged requests of growing size until a `\n` or the end of the object.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use datafusion::object_store::path::Path as ObjectPath;
use datafusion::object_store::{
    GetOptions, GetRange, GetResultPayload, ObjectStore, ObjectStoreExt,
};
use futures::StreamExt;
use futures::stream::BoxStream;

/// Bytes asked of a local file at a time.
const BLOCK: usize = 1 << 20;

/// The first request for the rest of a line that runs past its range's end; each further one
/// to an object store is twice as large, up to [`BLOCK`]. A local file's tail is read this
/// much at a time.
/// (One byte in unit tests, so that they fetch a tail in many requests.)
const TAIL: u64 = if cfg!(test) { 1 } else { 64 << 10 };

/// Where the bytes come from.
enum Input {
    File(File),
    Object(Object),
}

/// An object being read: the ranged request in flight, then requests for the tail.
struct Object {
    store: Arc<dyn ObjectStore>,
    path: ObjectPath,
    /// The first request's body, until it is exhausted.
    body: Option<BoxStream<'static, datafusion::object_store::Result<Bytes>>>,
    /// The object offset of the next byte to request once `body` is exhausted.
    next: u64,
    /// The object's length.
    len: u64,
    /// The size of the next tail request.
    tail: u64,
}

impl Object {
    /// The next bytes of the object, or `None` at its end.
    async fn read(&mut self) -> io::Result<Option<Bytes>> {
        if let Some(body) = &mut self.body {
            match body.next().await {
                Some(chunk) => return chunk.map(Some).map_err(io::Error::other),
                None => self.body = None,
            }
        }
        if self.next >= self.len {
            return Ok(None);
        }
        let range = self.next..self.len.min(self.next + self.tail);
        self.tail = (self.tail * 2).min(BLOCK as u64);
        let bytes = self
            .store
            .get_range(&self.path, range.clone())
            .await
            .map_err(io::Error::other)?;
        if bytes.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("{}: no bytes in {range:?}", self.path),
            ));
        }
        self.next += bytes.len() as u64;
        Ok(Some(bytes))
    }
}

/// What [`Lines::step`] found.
pub(crate) enum Step {
    /// A line of the range: `buf[a..b]`, without its `\n` (and `\r`).
    Line(usize, usize),
    /// More bytes are needed: call [`Lines::fill`], then step again.
    More,
    /// The range has no more lines.
    End,
}

/// The lines of a byte range, read a block at a time.
pub(crate) struct Lines {
    input: Input,
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
    /// The partial line before `start` has not been skipped yet.
    skip_first: bool,
}

impl Lines {
    /// The lines of `[start, end)` of a local file.
    pub(crate) fn open(path: &Path, start: u64, end: u64) -> io::Result<Lines> {
        let mut file = File::open(path)?;
        let from = start.saturating_sub(1);
        file.seek(SeekFrom::Start(from))?;
        Ok(Lines::new(Input::File(file), start, end))
    }

    /// The lines of `[start, end)` of an object in `store`.
    pub(crate) async fn open_object(
        store: Arc<dyn ObjectStore>,
        path: ObjectPath,
        start: u64,
        end: u64,
    ) -> io::Result<Lines> {
        let from = start.saturating_sub(1);
        let options =
            GetOptions::new().with_range(Some(GetRange::Bounded(from..end.max(from + 1))));
        let got = store
            .get_opts(&path, options)
            .await
            .map_err(io::Error::other)?;
        let (len, next) = (got.meta.size, got.range.end);
        if let GetResultPayload::File(mut file, _) = got.payload {
            // A store on the local file system (`file://`) hands over the open file: read it
            // as a local file rather than in small chunks through the store.
            file.seek(SeekFrom::Start(got.range.start))?;
            return Ok(Lines::new(Input::File(file), start, end));
        }
        let object = Object {
            store,
            path,
            body: Some(got.into_stream()),
            next,
            len,
            tail: TAIL,
        };
        Ok(Lines::new(Input::Object(object), start, end))
    }

    fn new(input: Input, start: u64, end: u64) -> Lines {
        Lines {
            input,
            buf: Vec::new(),
            lo: 0,
            hi: 0,
            scanned: 0,
            offset: start.saturating_sub(1),
            end,
            eof: false,
            // The line that holds byte `start - 1` belongs to the range before.
            skip_first: start > 0,
        }
    }

    /// Read more bytes after `buf[lo..hi]`; at the end of the input, mark it so.
    pub(crate) async fn fill(&mut self) -> io::Result<()> {
        if self.eof {
            return Ok(());
        }
        match &mut self.input {
            Input::File(file) => {
                // Up to the range's end, then the rest of its last line [`TAIL`] bytes at a
                // time; never more than a block (a small range gets a small buffer). A line
                // longer than the buffer makes room for itself.
                let at = self.offset + (self.hi - self.lo) as u64;
                let want = if at < self.end { self.end - at } else { TAIL };
                let want = want.min(BLOCK as u64) as usize;
                make_room(&mut self.buf, &mut self.lo, &mut self.hi, want);
                let n = file.read(&mut self.buf[self.hi..self.hi + want])?;
                self.hi += n;
                self.eof = n == 0;
            }
            Input::Object(object) => match object.read().await? {
                Some(bytes) => {
                    make_room(&mut self.buf, &mut self.lo, &mut self.hi, bytes.len());
                    self.buf[self.hi..self.hi + bytes.len()].copy_from_slice(&bytes);
                    self.hi += bytes.len();
                }
                None => self.eof = true,
            },
        }
        Ok(())
    }

    /// The next line in the buffer as `buf[a..b]` (without its `\n`): `Some`, or `None` when
    /// more bytes are needed, or when there are none (then `lo == hi`).
    fn next_line(&mut self) -> Option<(usize, usize)> {
        let from = self.lo + self.scanned;
        if let Some(i) = memchr::memchr(b'\n', &self.buf[from..self.hi]) {
            let (a, b) = (self.lo, from + i);
            self.take(b + 1);
            return Some((a, b));
        }
        self.scanned = self.hi - self.lo;
        if self.eof && self.lo < self.hi {
            // The last line of the file has no `\n`.
            let (a, b) = (self.lo, self.hi);
            self.take(b);
            return Some((a, b));
        }
        None
    }

    fn take(&mut self, to: usize) {
        self.offset += (to - self.lo) as u64;
        self.lo = to;
        self.scanned = 0;
    }

    /// The next line that starts inside the range (`buf[a..b]` by [`Lines::line`]), or the
    /// need for more bytes, or the end.
    pub(crate) fn step(&mut self) -> Step {
        if self.skip_first {
            match self.next_line() {
                Some(_) => self.skip_first = false,
                None if self.eof => return Step::End,
                None => return Step::More,
            }
        }
        if self.offset >= self.end {
            return Step::End;
        }
        match self.next_line() {
            Some((a, b)) => {
                let b = if self.buf[a..b].ends_with(b"\r") {
                    b - 1
                } else {
                    b
                };
                Step::Line(a, b)
            }
            None if self.eof => Step::End,
            None => Step::More,
        }
    }

    /// The bytes of a line [`Lines::step`] gave.
    pub(crate) fn line(&self, a: usize, b: usize) -> &[u8] {
        &self.buf[a..b]
    }

    /// The next line of the range, filling as needed (for callers that do not batch).
    pub(crate) async fn next(&mut self) -> io::Result<Option<&[u8]>> {
        loop {
            match self.step() {
                Step::Line(a, b) => return Ok(Some(self.line(a, b))),
                Step::More => self.fill().await?,
                Step::End => return Ok(None),
            }
        }
    }
}

/// Make room for `n` more bytes after `buf[lo..hi]`, moving them to the front; a buffer
/// that grows at least doubles.
fn make_room(buf: &mut Vec<u8>, lo: &mut usize, hi: &mut usize, n: usize) {
    if *lo > 0 {
        buf.copy_within(*lo..*hi, 0);
        *hi -= *lo;
        *lo = 0;
    }
    if buf.len() - *hi < n {
        buf.resize((*hi + n).max(2 * buf.len()), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::object_store::memory::InMemory;
    use datafusion::object_store::{ObjectStoreExt, PutPayload};
    use std::io::Write;

    const TEXT: &[u8] = b"a\n\nbcd\r\nefghij\nk";

    fn expect() -> Vec<Vec<u8>> {
        [&b"a"[..], b"", b"bcd", b"efghij", b"k"]
            .map(<[u8]>::to_vec)
            .to_vec()
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        thread_local! {
            static RUNTIME: tokio::runtime::Runtime =
                tokio::runtime::Builder::new_current_thread().build().unwrap();
        }
        RUNTIME.with(|r| r.block_on(f))
    }

    async fn read_all(mut lines: Lines, out: &mut Vec<Vec<u8>>) {
        while let Some(l) = lines.next().await.unwrap() {
            out.push(l.to_vec());
        }
    }

    /// Every cut of a file into two ranges reads each line once, in order.
    #[test]
    fn ranges_cut_anywhere_read_every_line_once() {
        let dir = std::env::temp_dir().join(format!("ndq-df-lines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.ndjson");
        File::create(&path).unwrap().write_all(TEXT).unwrap();
        let len = TEXT.len() as u64;
        for cut in 0..=len {
            let mut got = Vec::new();
            for (s, e) in [(0, cut), (cut, len)] {
                if s < e {
                    block_on(read_all(Lines::open(&path, s, e).unwrap(), &mut got));
                }
            }
            assert_eq!(got, expect(), "cut at {cut}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The same through an object store, with the tail of a cut line fetched in small
    /// requests: every cut into three ranges reads each line once, in order.
    #[test]
    fn object_ranges_cut_anywhere_read_every_line_once() {
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let path = ObjectPath::from("logs/f.ndjson");
        block_on(store.put(&path, PutPayload::from_static(TEXT))).unwrap();
        let len = TEXT.len() as u64;
        for one in 0..=len {
            for two in one..=len {
                let mut got = Vec::new();
                for (s, e) in [(0, one), (one, two), (two, len)] {
                    if s < e {
                        let lines =
                            block_on(Lines::open_object(Arc::clone(&store), path.clone(), s, e))
                                .unwrap();
                        block_on(read_all(lines, &mut got));
                    }
                }
                assert_eq!(got, expect(), "cuts at {one}, {two}");
            }
        }
    }
}
