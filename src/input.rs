//! The inputs of a run: which files, in which order, and how each is read.
//!
//! [`Inputs::open`] resolves the command line once, before anything is written: `-` (or no
//! input at all) is standard input; a directory stands for every regular file below it,
//! recursively, in sorted order; a name ending in `.gz` or `.zst` is decompressed as a stream;
//! another regular file is memory-mapped (by the driver, in windows); anything else that can be
//! opened (a FIFO, `/dev/stdin`, a process substitution) is read as a stream. A missing input
//! is an error naming it, so a run either starts with every input found or prints nothing.
//! Streams are opened here; a regular uncompressed file is opened only when the driver reads
//! it (and closed after), so a directory of thousands of files needs no more descriptors than
//! one (a file that cannot be opened then is an error naming it, at that point).
//!
//! Streams are cut into blocks that end at a line boundary ([`Blocks`]), read ahead on their
//! own thread so that reading (or decompressing) overlaps with evaluation.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use anyhow::Context as _;

use crate::inflate::Step;
use crate::messages::path_name;

/// How a stream input is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// Read as is.
    Plain,
    /// gzip (`.gz`), several concatenated members allowed.
    Gzip,
    /// Zstandard (`.zst`).
    Zstd,
}

impl Codec {
    /// The codec a file name implies.
    pub fn of(path: &Path) -> Codec {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("gz") => Codec::Gzip,
            Some(e) if e.eq_ignore_ascii_case("zst") => Codec::Zstd,
            _ => Codec::Plain,
        }
    }
}

/// How one input is read.
#[derive(Debug)]
pub enum Source {
    /// Standard input (read as a stream).
    Stdin,
    /// A regular file, memory-mapped by the driver (or read whole when small). It is opened
    /// when it is read and closed after, so a directory of thousands of files never holds
    /// more than a few open.
    Mapped(PathBuf),
    /// A file read as a stream; `rewind` when it is a regular file (so a second run, as in
    /// `ndq bench`, starts again from the beginning).
    Stream {
        /// The file: a regular one by its path, opened when it is read (so a directory of
        /// thousands of `.gz` files holds a few open, not all); any other held open.
        file: Opened,
        /// How it is encoded.
        codec: Codec,
        /// Whether it can seek back to the start.
        rewind: bool,
    },
}

/// A streamed file: its path (a regular file, opened when read), or the open file (a pipe,
/// which cannot be opened twice).
#[derive(Debug)]
pub enum Opened {
    /// A regular file.
    Path(PathBuf),
    /// A file held open since the inputs were opened.
    File(File),
}

impl Opened {
    /// A handle from the file's start (when it can seek).
    fn handle(&self, rewind: bool) -> io::Result<File> {
        match self {
            Opened::Path(path) => File::open(path),
            Opened::File(file) => rewound(file, rewind),
        }
    }
}

/// One input.
#[derive(Debug)]
pub struct Input {
    /// The name to report (`-` for standard input; as given, or directory joined with entry).
    pub name: String,
    /// How to read it.
    pub source: Source,
    /// Its size on disk when known (compressed size for compressed files).
    pub len: Option<u64>,
}

/// Every input of a run, opened.
#[derive(Debug)]
pub struct Inputs {
    /// In order: as given, directories expanded in sorted order.
    pub list: Vec<Input>,
}

impl Inputs {
    /// Open every input named on the command line (no names: standard input).
    ///
    /// A regular uncompressed file is opened only when it is read; a compressed file stays
    /// open from here to the end of the run, so a directory of thousands of gzipped files
    /// (one per pod, hour or rotation) needs as many descriptors: the soft limit on open
    /// files, often 1024, is raised to the hard limit first (as Go programs do from the
    /// start), which only allows what the system already allows the process.
    pub fn open(paths: &[PathBuf]) -> anyhow::Result<Inputs> {
        let _ = rlimit::increase_nofile_limit(u64::MAX);
        let mut list = Vec::new();
        if paths.is_empty() {
            list.push(stdin());
        }
        for path in paths {
            if path.as_os_str() == "-" {
                list.push(stdin());
                continue;
            }
            let meta = std::fs::metadata(path).with_context(|| path.display().to_string())?;
            if meta.is_dir() {
                let mut files = Vec::new();
                walk(path, &mut files)?;
                if files.is_empty() {
                    // Not an error (a directory of logs not yet written), but not silent:
                    // the wrong directory would otherwise look like a quiet log.
                    crate::warning!("{}: a directory with no files in it", path_name(path));
                }
                for file in files {
                    let meta =
                        std::fs::metadata(&file).with_context(|| file.display().to_string())?;
                    list.push(open_file(&file, meta)?);
                }
            } else {
                list.push(open_file(path, meta)?);
            }
        }
        Ok(Inputs { list })
    }

    /// Total size on disk of the inputs whose size is known.
    pub fn total_bytes(&self) -> u64 {
        self.list.iter().filter_map(|i| i.len).sum()
    }

    /// Whether the size of every input is known (no standard input or FIFO).
    pub fn sizes_known(&self) -> bool {
        self.list.iter().all(|i| i.len.is_some())
    }
}

fn stdin() -> Input {
    Input {
        name: "-".to_string(),
        source: Source::Stdin,
        len: None,
    }
}

/// A compressed file must start as its format does, so that a file misnamed `.gz` or `.zst`
/// is refused when the inputs are opened, before anything is written, rather than when the
/// run reaches it. (An empty file is an empty input: see [`open_file`].) This moves the file's offset; reading a
/// regular file as a stream starts at its beginning anyway ([`rewound`]).
fn check_magic(file: &File, codec: Codec) -> anyhow::Result<()> {
    let (what, starts_right): (&str, fn(&[u8]) -> bool) = match codec {
        Codec::Plain => return Ok(()),
        Codec::Gzip => ("gzip", |head| head.starts_with(&[0x1f, 0x8b])),
        // A Zstandard frame, or a skippable frame (magic 0x184D2A50..=0x184D2A5F).
        Codec::Zstd => ("zstd", |head| match head {
            [0x28, 0xb5, 0x2f, 0xfd] => true,
            [b0, 0x2a, 0x4d, 0x18] => b0 & 0xf0 == 0x50,
            _ => false,
        }),
    };
    let mut head = Vec::with_capacity(4);
    file.take(4).read_to_end(&mut head)?;
    if starts_right(&head) {
        Ok(())
    } else {
        anyhow::bail!("not {what} data (the name says {what}, the first bytes do not)")
    }
}

/// `EMFILE`, "too many open files" (24 on Linux, the BSDs and macOS).
const EMFILE: i32 = 24;

/// One file, not a directory (`meta`: what `std::fs::metadata` says of it): a regular
/// uncompressed file is only noted (with its size) and opened when it is read; any other is
/// opened now (a compressed file's first bytes are checked, a pipe is held open).
fn open_file(path: &Path, meta: std::fs::Metadata) -> anyhow::Result<Input> {
    let name = path.display().to_string();
    let codec = Codec::of(path);
    let regular = meta.is_file();
    let len = regular.then_some(meta.len());
    // An empty file is an empty input, whatever its name says (an empty `.gz` is no gzip
    // stream: it would fail when reached, after the rows of the inputs before it).
    if regular && (codec == Codec::Plain || meta.len() == 0) {
        return Ok(Input {
            name,
            source: Source::Mapped(path.to_path_buf()),
            len,
        });
    }
    let file = File::open(path).map_err(|e| {
        let hint = if e.raw_os_error() == Some(EMFILE) {
            ": more inputs than open files allowed (`ulimit -n`); raise the limit, or name \
             fewer files at once"
        } else {
            ""
        };
        anyhow::Error::new(e).context(format!("{name}{hint}"))
    })?;
    let file = if regular {
        check_magic(&file, codec).with_context(|| name.clone())?;
        Opened::Path(path.to_path_buf())
    } else {
        Opened::File(file)
    };
    let source = Source::Stream {
        file,
        codec,
        rewind: regular,
    };
    Ok(Input { name, source, len })
}

/// Every regular file below `dir`, recursively, sorted by path. Symbolic links to files are
/// followed; links to directories are not (no cycles), and neither is a broken link, nor a
/// FIFO, socket or device: each of those is named in a warning, so that no input is left out
/// unsaid.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| dir.display().to_string())?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| dir.display().to_string())?;
        // The entry's type as the directory listing gives it (no call per file where the
        // file system records it), as `symlink_metadata` would say.
        let kind = entry
            .file_type()
            .with_context(|| entry.path().display().to_string())?;
        paths.push((entry.path(), kind));
    }
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, kind) in paths {
        if kind.is_dir() {
            walk(&path, files)?;
        } else if kind.is_file() {
            files.push(path);
        } else if !kind.is_symlink() {
            // A FIFO, a socket or a device found in a directory: only named ones are read.
            crate::warning!(
                "{}: not a regular file, skipped (name it to read it)",
                path_name(&path)
            );
        } else {
            // What the link leads to, in one look.
            match std::fs::metadata(&path) {
                Ok(to) if to.is_file() => files.push(path),
                Ok(to) if to.is_dir() => crate::warning!(
                    "{}: a link to a directory, not followed (name it to read it)",
                    path_name(&path)
                ),
                Ok(_) => crate::warning!(
                    "{}: a link to what is not a regular file, skipped (name it to read it)",
                    path_name(&path)
                ),
                Err(_) => crate::warning!("{}: a broken link, skipped", path_name(&path)),
            }
        }
    }
    Ok(())
}

/// A reader that counts the bytes it passes (for progress over compressed input).
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Blocks of a stream, each ending at a line boundary (except the last), read ahead on a
/// thread of their own.
///
/// The block size adapts to the producer: the reader appends what it reads to a shared buffer
/// (up to `cap` bytes while it holds a complete line), and [`Blocks::next_block`] takes every
/// complete line there is, waiting only when there is none. A slow producer (`tail -f |`)
/// gets each line evaluated as soon as it arrives; a fast one (`cat big |`, a decompressor)
/// fills the buffer while the workers are busy, so blocks grow and are split across them.
///
/// Dropping `Blocks` tells the reader to stop at its next read (a reader blocked on a terminal
/// or a pipe is left behind; the process exits without waiting for it).
pub struct Blocks {
    shared: Arc<Shared>,
    /// How much the reader keeps ahead.
    cap: usize,
    /// Bytes taken from the underlying file (compressed bytes for compressed input).
    pub consumed: Arc<AtomicU64>,
    /// Whether blocks handed back ([`Blocks::recycle`]) are kept for members to be inflated
    /// into (a gzip file inflated whole).
    pooled: bool,
}

/// What the reader and the driver share.
#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Signalled when data (or the end, or an error) arrives.
    ready: Condvar,
    /// Signalled when the driver took data (or went away).
    space: Condvar,
}

#[derive(Default)]
struct State {
    buf: Vec<u8>,
    /// Index of the last `\n` in `buf`.
    last_newline: Option<usize>,
    eof: bool,
    error: Option<io::Error>,
    /// The driver dropped its [`Blocks`].
    closed: bool,
}

/// Bytes asked of the reader per `read` call.
const READ_SIZE: usize = 256 * 1024;

impl Blocks {
    /// Start reading `input` (a stream or stdin), keeping at most about `cap` bytes of complete
    /// lines ahead. `whole`: a regular gzip file is inflated member by member with
    /// libdeflate where it can be ([`crate::inflate`]), rather than streamed.
    pub fn start(input: &Input, cap: usize, whole: bool) -> io::Result<Blocks> {
        let consumed = Arc::new(AtomicU64::new(0));
        let producer = match &input.source {
            Source::Stdin => Producer::Read(Box::new(Sniffed::new(Counting {
                inner: io::stdin(),
                count: consumed.clone(),
            }))),
            Source::Mapped(path) => Producer::Read(Box::new(Counting {
                inner: File::open(path)?,
                count: consumed.clone(),
            })),
            Source::Stream {
                file,
                codec: Codec::Gzip,
                rewind: true,
            } if whole => Producer::Gzip {
                file: file.handle(true)?,
                len: input.len.unwrap_or(u64::MAX),
                consumed: consumed.clone(),
            },
            Source::Stream {
                file,
                codec,
                rewind,
            } => {
                let raw = Counting {
                    inner: file.handle(*rewind)?,
                    count: consumed.clone(),
                };
                Producer::Read(match codec {
                    Codec::Plain => Box::new(raw),
                    Codec::Gzip => gunzip(raw),
                    Codec::Zstd => Box::new(unzstd(raw)?),
                })
            }
        };
        let pooled = matches!(producer, Producer::Gzip { .. });
        let mut blocks = Blocks::spawn(producer, cap)?.with_consumed(consumed);
        blocks.pooled = pooled;
        Ok(blocks)
    }

    fn spawn(producer: impl Into<Producer>, cap: usize) -> io::Result<Blocks> {
        let producer = producer.into();
        let shared = Arc::new(Shared::default());
        let theirs = shared.clone();
        std::thread::Builder::new()
            .name("ndq-reader".into())
            .spawn(move || produce(producer, cap.max(1), &theirs))?;
        Ok(Blocks {
            shared,
            cap,
            consumed: Arc::new(AtomicU64::new(0)),
            pooled: false,
        })
    }

    /// Hand back a block once evaluated: for a gzip file inflated whole, the next member is
    /// inflated into it (memory already faulted in); otherwise it is freed, for the
    /// allocator to reuse.
    pub fn recycle(&self, block: Vec<u8>) {
        if self.pooled {
            crate::inflate::recycle(block);
        }
    }

    fn with_consumed(mut self, consumed: Arc<AtomicU64>) -> Blocks {
        self.consumed = consumed;
        self
    }

    /// The next block: every complete line read so far (waiting for one if there is none),
    /// or the rest at the end; `None` after the end. A read error comes after the complete
    /// lines read before it, so what is handed on before an error does not depend on how far
    /// the reader got before the driver asked.
    pub fn next_block(&mut self) -> Option<io::Result<Vec<u8>>> {
        let mut state = lock(&self.shared.state);
        loop {
            if state.error.is_some() && state.last_newline.is_none() {
                return state.error.take().map(Err);
            }
            if let Some(i) = state.last_newline {
                // The next buffer gets its full size at once (pages are only touched as they
                // are written), so it never grows by copying.
                let mut next = Vec::with_capacity(self.cap.max(state.buf.len() - i) + READ_SIZE);
                next.extend_from_slice(&state.buf[i + 1..]);
                state.buf.truncate(i + 1);
                let block = std::mem::replace(&mut state.buf, next);
                state.last_newline = None;
                self.shared.space.notify_one();
                return Some(Ok(block));
            }
            if state.eof {
                return (!state.buf.is_empty()).then(|| Ok(std::mem::take(&mut state.buf)));
            }
            state = self
                .shared
                .ready
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl Drop for Blocks {
    fn drop(&mut self) {
        let mut state = lock(&self.shared.state);
        state.closed = true;
        // A member's output not taken (the run stopped early) goes back to the pool, and a
        // large one's memory to the inflater's budget.
        let left = std::mem::take(&mut state.buf);
        drop(state);
        self.shared.space.notify_one();
        self.recycle(left);
    }
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A handle on `file` positioned at its start (when it can seek).
fn rewound(file: &File, rewind: bool) -> io::Result<File> {
    let mut f = file.try_clone()?;
    if rewind {
        f.seek(SeekFrom::Start(0))?;
    }
    Ok(f)
}

/// Standard input, decompressed when it starts as gzip or zstd data does (`cat app.log.gz |
/// ndq ...`): a line of JSON never starts with those bytes. Decided on the first read, from
/// as few bytes as tell (one, for nearly every line of JSON), so a line that arrives alone
/// on a slow pipe is not held back.
struct Sniffed<R> {
    raw: Option<R>,
    decoded: Option<Box<dyn Read + Send>>,
}

impl<R: Read + Send + 'static> Sniffed<R> {
    fn new(raw: R) -> Sniffed<R> {
        Sniffed {
            raw: Some(raw),
            decoded: None,
        }
    }
}

/// What to say of a file read as text whose first bytes are compressed data (`app.log`
/// holding gzip): each of its lines would be malformed, and the reason would not say why.
pub fn misnamed(name: &str, head: &[u8]) -> Option<String> {
    let (what, ext) = match sniff(head.get(..4)?)? {
        Codec::Plain => return None,
        Codec::Gzip => ("gzip", ".gz"),
        Codec::Zstd => ("zstd", ".zst"),
    };
    Some(format!(
        "{}: {what} data in a file whose name does not end in {ext}, read as text: name it \
         {ext}, or give it on standard input (- < FILE), which is read by its content",
        crate::messages::sanitize(name)
    ))
}

/// What the first bytes of a stream say it is, or `None` while more are needed.
fn sniff(head: &[u8]) -> Option<Codec> {
    let zstd_start = |b: u8| b == 0x28 || b & 0xf0 == 0x50;
    match head {
        [] => None,
        [0x1f] => None,
        [0x1f, 0x8b, ..] => Some(Codec::Gzip),
        [b, ..] if zstd_start(*b) && head.len() < 4 => None,
        [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(Codec::Zstd),
        [b0, 0x2a, 0x4d, 0x18, ..] if b0 & 0xf0 == 0x50 => Some(Codec::Zstd),
        _ => Some(Codec::Plain),
    }
}

impl<R: Read + Send + 'static> Read for Sniffed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(decoded) = &mut self.decoded {
            return decoded.read(buf);
        }
        let Some(mut raw) = self.raw.take() else {
            return Ok(0);
        };
        let mut head = Vec::with_capacity(4);
        let codec = loop {
            if let Some(codec) = sniff(&head) {
                break codec;
            }
            let mut byte = [0];
            if raw.read(&mut byte)? == 0 {
                break Codec::Plain;
            }
            head.push(byte[0]);
        };
        let stream = io::Cursor::new(head).chain(raw);
        let decoded = self.decoded.insert(match codec {
            Codec::Plain => Box::new(stream),
            Codec::Gzip => gunzip(stream),
            Codec::Zstd => Box::new(unzstd(stream)?),
        });
        decoded.read(buf)
    }
}

/// The largest zstd window read, as a power of two: 2 GiB, zstd's greatest (`zstd --long=31`).
/// zstd's own default stops at 128 MiB (`--long=27`) and makes its user say `--memory`; a log
/// compressed with a long window is read here as it is, taking the memory its frames name.
const ZSTD_WINDOW_LOG_MAX: u32 = 31;

/// The streaming zstd decoder, for any window a frame names.
fn unzstd<R: Read>(raw: R) -> io::Result<zstd::stream::read::Decoder<'static, io::BufReader<R>>> {
    let mut decoder = zstd::stream::read::Decoder::new(raw)?;
    decoder.window_log_max(ZSTD_WINDOW_LOG_MAX)?;
    Ok(decoder)
}

/// The streaming gzip decoder (every member, in order).
fn gunzip<R: Read + Send + 'static>(raw: R) -> Box<dyn Read + Send> {
    Box::new(Gunzip::new(io::BufReader::with_capacity(READ_SIZE, raw)))
}

/// gzip members one after another, as `gzip -d` reads them: zero bytes after the last member
/// (a tape's or a block device's padding) end the stream, and other bytes there are an error
/// that says so (flate2's `MultiGzDecoder` calls both an "invalid gzip header").
struct Gunzip<R: io::BufRead> {
    /// The member being read; `None` once the stream has ended.
    member: Option<flate2::bufread::GzDecoder<R>>,
}

impl<R: io::BufRead> Gunzip<R> {
    fn new(raw: R) -> Gunzip<R> {
        Gunzip {
            member: Some(flate2::bufread::GzDecoder::new(raw)),
        }
    }
}

impl<R: io::BufRead> Read for Gunzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(member) = &mut self.member else {
                return Ok(0);
            };
            let n = member.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // The member ended: what follows is another member, padding or the end.
            let Some(member) = self.member.take() else {
                return Ok(0);
            };
            let mut raw = member.into_inner();
            let next = raw.fill_buf()?;
            if next.is_empty() {
                return Ok(0);
            }
            if next[0] != 0 {
                if next[0] != 0x1f {
                    return Err(trailing_data());
                }
                self.member = Some(flate2::bufread::GzDecoder::new(raw));
                continue;
            }
            loop {
                let next = raw.fill_buf()?;
                if next.is_empty() {
                    return Ok(0);
                }
                if next.iter().any(|&b| b != 0) {
                    return Err(trailing_data());
                }
                let n = next.len();
                raw.consume(n);
            }
        }
    }
}

fn trailing_data() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "bytes after the last gzip member that are not a gzip member",
    )
}

/// What the reader thread reads from.
enum Producer {
    /// A stream.
    Read(Box<dyn Read + Send>),
    /// A regular gzip file, inflated member by member where it can be.
    Gzip {
        file: File,
        len: u64,
        consumed: Arc<AtomicU64>,
    },
}

impl From<Box<dyn Read + Send>> for Producer {
    fn from(reader: Box<dyn Read + Send>) -> Producer {
        Producer::Read(reader)
    }
}

/// The reader thread.
fn produce(producer: Producer, cap: usize, shared: &Shared) {
    let reader = match producer {
        Producer::Read(reader) => reader,
        Producer::Gzip {
            file,
            len,
            consumed,
        } => match members(file, len, consumed, cap, shared) {
            Ok(Some(rest)) => rest,
            Ok(None) => return,
            Err(e) => {
                fail(shared, e);
                return;
            }
        },
    };
    read_blocks(reader, cap, shared);
}

/// Inflate a gzip file's members whole and hand them on; the rest of the file to stream
/// when some member cannot be (`None`: the file is done, or the driver went away).
fn members(
    file: File,
    len: u64,
    consumed: Arc<AtomicU64>,
    cap: usize,
    shared: &Shared,
) -> io::Result<Option<Box<dyn Read + Send>>> {
    let Some(mut members) = crate::inflate::Members::read(&file, len)? else {
        return Ok(Some(gunzip(Counting {
            inner: rewound(&file, true)?,
            count: consumed,
        })));
    };
    loop {
        match members.next() {
            Step::Output(out) => {
                consumed.store(members.consumed() as u64, Ordering::Relaxed);
                if !push(shared, cap, Piece::Owned(out)) {
                    return Ok(None);
                }
            }
            Step::Rest(rest) => {
                consumed.store(members.consumed() as u64, Ordering::Relaxed);
                return Ok(Some(gunzip(Counting {
                    inner: rest,
                    count: consumed,
                })));
            }
            Step::End => {
                consumed.store(len, Ordering::Relaxed);
                lock(&shared.state).eof = true;
                shared.ready.notify_one();
                return Ok(None);
            }
        }
    }
}

/// What the reader hands the driver: bytes to copy, or a buffer to take as it is.
enum Piece<'a> {
    Copied(&'a [u8]),
    Owned(Vec<u8>),
}

/// Append `piece` to the shared buffer once there is room (while it holds `cap` bytes and a
/// complete line, the reader waits); `false` when the driver went away.
fn push(shared: &Shared, cap: usize, piece: Piece<'_>) -> bool {
    let mut state = lock(&shared.state);
    while state.buf.len() >= cap && state.last_newline.is_some() && !state.closed {
        state = shared.space.wait(state).unwrap_or_else(|p| p.into_inner());
    }
    if state.closed {
        if let Piece::Owned(buf) = piece {
            crate::inflate::recycle(buf);
        }
        return false;
    }
    let at = state.buf.len();
    let newline = match piece {
        Piece::Owned(buf) if at == 0 => {
            // A member's whole output becomes the next block without a copy.
            let newline = memchr::memrchr(b'\n', &buf);
            state.buf = buf;
            newline
        }
        Piece::Owned(mut buf) if buf.capacity() - buf.len() >= at => {
            // What is there (usually the start of a line) moved in front of the member's
            // output, within its room: a shorter copy, and no buffer grown.
            let len = buf.len();
            buf.resize(len + at, 0);
            buf.copy_within(..len, at);
            buf[..at].copy_from_slice(&state.buf);
            let newline = memchr::memrchr(b'\n', &buf[at..]);
            crate::inflate::recycle(std::mem::replace(&mut state.buf, buf));
            newline
        }
        Piece::Owned(buf) => {
            state.buf.extend_from_slice(&buf);
            crate::inflate::recycle(buf);
            memchr::memrchr(b'\n', &state.buf[at..])
        }
        Piece::Copied(bytes) => {
            state.buf.extend_from_slice(bytes);
            memchr::memrchr(b'\n', bytes)
        }
    };
    if let Some(i) = newline {
        state.last_newline = Some(at + i);
    }
    shared.ready.notify_one();
    true
}

fn fail(shared: &Shared, e: io::Error) {
    lock(&shared.state).error = Some(e);
    shared.ready.notify_one();
}

/// The reader thread: read, append to the shared buffer, wake the driver; wait while the
/// buffer holds `cap` bytes and a complete line.
fn read_blocks(mut reader: Box<dyn Read + Send>, cap: usize, shared: &Shared) {
    let mut piece = vec![0u8; READ_SIZE];
    loop {
        let n = match reader.read(&mut piece) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                fail(shared, e);
                return;
            }
        };
        if n == 0 {
            lock(&shared.state).eof = true;
            shared.ready.notify_one();
            return;
        }
        if !push(shared, cap, Piece::Copied(&piece[..n])) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that returns at most `step` bytes per call.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        step: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn collect(data: &[u8], step: usize, cap: usize) -> Vec<Vec<u8>> {
        let reader = Box::new(Trickle {
            data: data.to_vec(),
            at: 0,
            step,
        });
        let mut blocks = Blocks::spawn(reader as Box<dyn Read + Send>, cap).unwrap();
        let mut all = Vec::new();
        while let Some(b) = blocks.next_block() {
            all.push(b.unwrap());
        }
        all
    }

    #[test]
    fn blocks_end_at_line_boundaries() {
        let data = b"aa\nbbbb\nc\n\ndddddddddd\neee";
        for step in 1..data.len() + 2 {
            for cap in [1, 3, 100] {
                let blocks = collect(data, step, cap);
                assert_eq!(blocks.concat(), data, "step {step} cap {cap}");
                for b in &blocks[..blocks.len() - 1] {
                    assert!(b.ends_with(b"\n"), "step {step}: {b:?}");
                    assert!(!b.is_empty());
                }
            }
        }
        assert_eq!(collect(b"", 1, 4), Vec::<Vec<u8>>::new());
        assert_eq!(collect(b"x\n", 5, 4), vec![b"x\n".to_vec()]);
    }

    #[test]
    fn long_line_is_one_block() {
        let mut data = vec![b'x'; 1_000_000];
        data.push(b'\n');
        data.extend_from_slice(b"y\n");
        let blocks = collect(&data, 1000, 64);
        assert_eq!(blocks.concat(), data);
        assert!(blocks[0].len() >= 1_000_001, "the long line is never cut");
    }

    #[test]
    fn an_early_drop_stops_the_reader() {
        let data = b"line\n".repeat(100_000);
        let reader = Box::new(Trickle {
            data,
            at: 0,
            step: 10,
        });
        let mut blocks = Blocks::spawn(reader as Box<dyn Read + Send>, 64).unwrap();
        let first = blocks.next_block().unwrap().unwrap();
        assert!(first.ends_with(b"\n"));
        drop(blocks); // the reader thread ends at its next read, with nothing left waiting
    }

    #[test]
    fn read_errors_are_reported() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let mut blocks = Blocks::spawn(Box::new(Failing) as Box<dyn Read + Send>, 64).unwrap();
        let err = blocks.next_block().unwrap().unwrap_err();
        assert_eq!(err.to_string(), "disk on fire");
    }

    #[test]
    fn codec_from_extension() {
        assert_eq!(Codec::of(Path::new("a.ndjson.gz")), Codec::Gzip);
        assert_eq!(Codec::of(Path::new("a.ZST")), Codec::Zstd);
        assert_eq!(Codec::of(Path::new("a.ndjson")), Codec::Plain);
        assert_eq!(Codec::of(Path::new("gz")), Codec::Plain);
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        use std::io::Write as _;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn a_misnamed_compressed_file_is_refused_when_opened() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let good_gz = root.join("good.ndjson.gz");
        std::fs::write(&good_gz, gzip(b"{\"a\":1}\n")).unwrap();
        let good_zst = root.join("good.ndjson.zst");
        std::fs::write(&good_zst, zstd::encode_all(&b"{\"a\":1}\n"[..], 1).unwrap()).unwrap();
        let empty = root.join("empty.gz");
        std::fs::write(&empty, b"").unwrap();
        let inputs = Inputs::open(&[good_gz.clone(), good_zst.clone(), empty]).unwrap();
        assert_eq!(inputs.list.len(), 3);

        for (name, bytes, what) in [
            ("plain.gz", &b"{\"a\":1}\n"[..], "gzip"),
            ("short.gz", &[0x1f][..], "gzip"),
            ("gzip.zst", &gzip(b"{}\n")[..], "zstd"),
        ] {
            let bad = root.join(name);
            std::fs::write(&bad, bytes).unwrap();
            let err = Inputs::open(&[good_gz.clone(), bad.clone()]).unwrap_err();
            let text = format!("{err:#}");
            assert_eq!(
                text,
                format!(
                    "{}: not {what} data (the name says {what}, the first bytes do not)",
                    bad.display()
                )
            );
        }
    }

    #[test]
    fn open_expands_directories_sorted_and_names_missing_inputs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("b/inner")).unwrap();
        for name in ["c.ndjson", "a.ndjson", "b/inner/z.ndjson"] {
            std::fs::write(root.join(name), b"{}\n").unwrap();
        }
        std::fs::write(root.join("b/y.ndjson.gz"), gzip(b"{}\n")).unwrap();
        // A link to a file is read as the file; a link to a directory is not followed (it
        // could make a cycle), nor is a dangling one.
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            symlink(root.join("c.ndjson"), root.join("d.ndjson")).unwrap();
            symlink(root.join("b"), root.join("e")).unwrap();
            symlink(root.join("gone.ndjson"), root.join("f.ndjson")).unwrap();
        }
        let inputs = Inputs::open(&[root.to_path_buf(), PathBuf::from("-")]).unwrap();
        let names: Vec<String> = inputs
            .list
            .iter()
            .map(|i| {
                i.name
                    .strip_prefix(&root.display().to_string())
                    .unwrap_or(&i.name)
                    .to_string()
            })
            .collect();
        let mut want = vec![
            "/a.ndjson",
            "/b/inner/z.ndjson",
            "/b/y.ndjson.gz",
            "/c.ndjson",
        ];
        if cfg!(unix) {
            want.push("/d.ndjson");
        }
        want.push("-");
        assert_eq!(names, want);
        assert!(matches!(inputs.list[0].source, Source::Mapped(_)));
        assert!(matches!(
            inputs.list[2].source,
            Source::Stream {
                codec: Codec::Gzip,
                ..
            }
        ));
        assert!(!inputs.sizes_known());

        let missing = root.join("nope.ndjson");
        let err = Inputs::open(&[root.join("a.ndjson"), missing.clone()]).unwrap_err();
        let text = format!("{err:#}");
        assert!(text.starts_with(&missing.display().to_string()), "{text}");
        assert!(text.contains("No such file"), "{text}");
    }
}
