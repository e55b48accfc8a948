//! gzip files inflated a member at a time, whole, with libdeflate.
//!
//! A streaming inflater (flate2's zlib-rs backend) keeps a 32 KiB window and hands out a
//! few hundred KiB at a time; libdeflate inflates a whole member into one buffer at about
//! twice its speed (measured in `benches/files.md`), but needs the member's compressed bytes
//! and room for all its output up front, and does not say where the member ended. So a
//! regular `.gz` file is mapped whole, and each member is inflated whole when its end can be
//! proven without inflating it twice:
//!
//! ```text
//! at = 0
//! while at < len:
//!     end = at + BSIZE + 1 when the member has a BGZF header (bgzip); otherwise the first
//!           place after `at` that looks like a member header (a member ends only where
//!           the next one starts), or the end of the file
//!     isize = the 4 bytes before `end` (ISIZE: the member's output size mod 2^32, when
//!             `end` is its end)
//!     for size in isize, isize + 4 GiB, isize + 8 GiB (the sizes ISIZE allows, those that
//!       gz[at..end] could hold at deflate's greatest ratio, and only while the room is
//!       allowed: up to MEMBER_MAX always, beyond it within the budget):
//!         inflate gz[at..end] into `size` bytes with libdeflate, which checks the member's
//!           CRC-32 and ISIZE and ignores what follows the member
//!         not enough room: the next size
//!         it filled them exactly, and the member ends right after a place holding its
//!           ISIZE: if exactly one place in gz[at..end] does (or, failing that, holds its
//!           whole trailer, CRC-32 and ISIZE), and that place ends at `end`, the member is
//!           proven to end there: at = end, hand the output on
//!         it filled fewer bytes, or its end is not proven: a surprise, stream the rest
//!         bad data (not a member's end, or a corrupt member): the next candidate end
//!     no size left, or the room refused: the next candidate end, up to ATTEMPTS
//!     anything else (an ambiguous end, an FHCRC header, garbage after a member, a corrupt
//!       member, a member beyond the budget): the rest of the file, from `at`, goes
//!       through the streaming decoder, as the whole file would without this module
//! ```
//!
//! The budget ([`Budget`]) bounds the memory of the large outputs: every output of more
//! than [`MEMBER_MAX`] bytes is reserved from it before it is inflated and returned when
//! the driver hands the block back ([`recycle`]), and all of them alive at once hold at
//! most a quarter of the machine's memory (`/proc/meminfo`'s `MemTotal`, or the cgroup's
//! `memory.max` when smaller; nothing beyond `MEMBER_MAX` where neither can be read), and at
//! most [`BUDGET_MAX`]. A buffer that cannot be allocated sends its member to the streaming
//! decoder. A
//! large buffer's pages are faulted in on two threads before libdeflate writes them (fresh
//! pages cost about as much as the inflate itself, `benches/files.md`).
//!
//! bgzip's members (at most 64 KiB of output each, their sizes in their headers) are taken
//! in runs of up to 16 MiB of output, inflated on two threads into one buffer, each member's
//! end proven as above; bgzip's end-of-file marker (an empty member) is recognised byte for
//! byte.
//!
//! So every byte handed on was checked by libdeflate against its member's CRC-32, every
//! member boundary is proven, and whatever is unusual is left to the streaming decoder,
//! whose output and error are the plain path's. `NDQ_INFLATE=stream` turns this off (tests
//! compare the two).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Mutex;

use memchr::memmem;

/// Compressed files up to this size are mapped whole and inflated member by member (the
/// map is the page cache's memory, not the process's; any file a map can hold); standard
/// input and pipes are streamed.
pub const FILE_MAX: u64 = isize::MAX as u64;

/// Members whose output is at most this large are inflated whole as they come (into spare
/// buffers when there are some, [`recycle`]); a larger one only within the [`Budget`], into
/// a buffer of its own, freed once the driver hands it back.
pub const MEMBER_MAX: usize = 256 << 20;

/// The most memory the large outputs may hold at once, whatever the machine has. A member
/// of 500 MB inflated whole is read in 0.95 s against 1.33 s streamed (580 MB of memory
/// against 17 MB), one of 1 GiB in about the same wall time with less CPU, and one of 4.5 GB
/// in twice the time (20.4 s against 9.8 s: the inflate no longer overlaps the evaluation,
/// and 4.5 GB of fresh pages are faulted in), so past a couple of GiB the streaming decoder
/// is the better trade (`benches/files.md`).
pub const BUDGET_MAX: usize = 2 << 30;

/// The least size of a gzip member: a 10-byte header, an empty deflate stream, the 8-byte
/// trailer (rounded down: a smaller bound only considers more places).
const MEMBER_MIN: usize = 18;

/// A compressed file's bytes.
pub enum Bytes {
    /// Mapped (a file).
    Mapped(memmap2::Mmap),
    /// In memory.
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(vec) => vec,
        }
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// What comes next from a file.
pub enum Step {
    /// A member's output (at least one byte).
    Output(Vec<u8>),
    /// The rest of the file's compressed bytes (from [`Members::consumed`] on), to be
    /// streamed.
    Rest(Box<dyn Read + Send>),
    /// The end of the file.
    End,
}

/// A compressed file held whole, taken member by member.
pub struct Members {
    gz: Bytes,
    at: usize,
    decompressor: libdeflater::Decompressor,
    /// The second thread's, for runs of BGZF members ([`Members::bgzf_run`]).
    helper: libdeflater::Decompressor,
    /// No run of BGZF members is tried before this offset (one failed there).
    no_run_before: usize,
    /// How large a member may be to be inflated whole.
    limits: Limits,
}

/// How large a member may be to be inflated whole.
#[derive(Clone, Copy)]
pub struct Limits {
    /// Members of at most this much output are inflated whole as they come ([`MEMBER_MAX`]).
    pub member: usize,
    /// Larger ones only when their output fits in this budget beside the other large
    /// outputs alive ([`Budget::global`]).
    pub budget: &'static Budget,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            member: MEMBER_MAX,
            budget: Budget::global(),
        }
    }
}

impl Members {
    /// Map `file` whole when its members may be inflated whole (`None`: stream it).
    pub fn read(file: &File, len: u64) -> io::Result<Option<Members>> {
        if len > FILE_MAX || len < MEMBER_MIN as u64 {
            return Ok(None);
        }
        let limits = Limits::default();
        let mut f = file.try_clone()?;
        // The last member's ISIZE: when even that is more than the budget could ever give,
        // the file is most likely one large member, streamed without mapping it first.
        let mut isize = [0; 4];
        f.seek(SeekFrom::Start(len - 4))?;
        f.read_exact(&mut isize)?;
        let last = u32::from_le_bytes(isize) as usize;
        if last > limits.member && last > limits.budget.cap {
            return Ok(None);
        }
        // Mapped rather than read: the page cache's pages, not fresh memory of our own.
        let gz = crate::driver::map_window(&f, 0, len as usize)?;
        Ok(Some(Members::new(Bytes::Mapped(gz))))
    }

    /// Members of the gzip data `gz`.
    pub fn new(gz: Bytes) -> Members {
        Members::with_limits(gz, Limits::default())
    }

    /// Members of the gzip data `gz`, inflated whole within `limits`.
    pub fn with_limits(gz: Bytes, limits: Limits) -> Members {
        Members {
            gz,
            at: 0,
            decompressor: libdeflater::Decompressor::new(),
            helper: libdeflater::Decompressor::new(),
            no_run_before: 0,
            limits,
        }
    }

    /// Compressed bytes taken so far.
    pub fn consumed(&self) -> usize {
        self.at
    }

    /// The next member's output, or the rest of the file to stream.
    pub fn next(&mut self) -> Step {
        loop {
            if self.at == self.gz.len() {
                self.gz = Bytes::Owned(Vec::new());
                self.at = 0;
                return Step::End;
            }
            if self.gz[self.at..].starts_with(&BGZF_EOF) {
                // bgzip's end-of-file marker, byte for byte: an empty member (its deflate
                // stream, `03 00`, is one empty final block) that ends after its 28 bytes.
                self.at += BGZF_EOF.len();
                continue;
            }
            if self.at >= self.no_run_before
                && let Some(out) = self.bgzf_run()
            {
                return Step::Output(out);
            }
            match self.member() {
                Some(out) if out.is_empty() => continue,
                Some(out) => return Step::Output(out),
                None => return Step::Rest(self.rest()),
            }
        }
    }

    /// The member at `at` inflated whole, `at` moved past it; `None` when it must be
    /// streamed.
    fn member(&mut self) -> Option<Vec<u8>> {
        let Members {
            gz,
            at,
            decompressor,
            limits,
            ..
        } = self;
        let rest = &gz[*at..];
        let header = Header::parse(rest)?;
        if header.hcrc {
            // libdeflate skips a header CRC without checking it; the streaming decoder checks.
            return None;
        }
        let mut from = MEMBER_MIN;
        for _ in 0..ATTEMPTS {
            let end = match header.bgzf {
                Some(bsize) if from == MEMBER_MIN => bsize,
                Some(_) => return None,
                None => next_header(rest, from),
            };
            let region = rest.get(..end)?;
            let isize = le32(&region[end - 4..]);
            let mut first = true;
            let tried = sized(isize, |size| {
                let fault = std::mem::take(&mut first);
                inflate_into(decompressor, limits, region, size, fault)
            });
            match tried {
                Tried::Filled(out) => {
                    *at += end;
                    return Some(out);
                }
                // The member ended before `end`, and what follows it is no member; or it
                // ended where its end cannot be proven.
                Tried::Surprise => return None,
                // Not a member's end (or a corrupt member), or no room for it.
                Tried::TooSmall | Tried::NotHere | Tried::Refused => {}
            }
            if end == rest.len() {
                return None;
            }
            from = end + 1;
        }
        None
    }

    /// A run of BGZF members from `at` (at least two, up to [`RUN`] bytes of output), each
    /// inflated whole and its end proven as [`Members::member`] does, half of them on a
    /// second thread, into one buffer; `at` moved past them. `None` (and no run tried again
    /// before the run's end) when there is no such run or one of its members fails: they are
    /// then taken one at a time.
    fn bgzf_run(&mut self) -> Option<Vec<u8>> {
        let rest = &self.gz[self.at..];
        let mut members = Vec::new();
        let (mut end, mut total) = (0, 0);
        while total < RUN {
            let Some(Header {
                hcrc: false,
                bgzf: Some(bsize),
            }) = Header::parse(&rest[end..])
            else {
                break;
            };
            let Some(region) = rest.get(end..end + bsize) else {
                break;
            };
            let size = le32(&region[bsize - 4..]) as usize;
            if size == 0 || size > BGZF_MAX {
                break;
            }
            members.push((region, size));
            total += size;
            end += bsize;
        }
        if members.len() < 2 {
            return None;
        }
        let mut out = take(total)?;
        let mut pairs = Vec::with_capacity(members.len());
        let mut tail = &mut out[..];
        for (region, size) in members {
            let (head, more) = tail.split_at_mut(size);
            pairs.push((region, head));
            tail = more;
        }
        let half = pairs.len() / 2;
        let (mine, theirs) = pairs.split_at_mut(half);
        let helper = &mut self.helper;
        let decompressor = &mut self.decompressor;
        let ok = std::thread::scope(|scope| {
            let other = scope.spawn(move || inflate_all(helper, theirs));
            let ok = inflate_all(decompressor, mine);
            other.join().unwrap_or(false) && ok
        });
        if !ok {
            self.no_run_before = self.at + end;
            recycle(out);
            return None;
        }
        self.at += end;
        Some(out)
    }

    /// The rest of the file's compressed bytes.
    fn rest(&mut self) -> Box<dyn Read + Send> {
        let gz = std::mem::replace(&mut self.gz, Bytes::Owned(Vec::new()));
        let mut cursor = io::Cursor::new(gz);
        cursor.set_position(self.at as u64);
        Box::new(cursor)
    }
}

/// What inflating a member into room for `size` bytes gave.
#[derive(Debug, PartialEq)]
enum Tried<T> {
    /// The member filled the room exactly and provably ends where its bytes do.
    Filled(T),
    /// It needs more room (libdeflate's "insufficient space").
    TooSmall,
    /// Its bytes are not a whole member (not its end, or corrupt: libdeflate's "bad data").
    NotHere,
    /// It left room to spare, or its end is not proven: something unusual, for the stream.
    Surprise,
    /// No room of that size is allowed (beyond the budget, or more than the member's bytes
    /// could hold).
    Refused,
}

/// The candidate sizes of a member whose trailer says `isize` (its size mod 2^32).
const SIZES: u64 = 3;

/// Try each size a member whose trailer says `isize` may have, smallest first: `isize`,
/// `isize + 4 GiB`, `isize + 8 GiB`, as long as `inflate` says the room was too small.
fn sized<T>(isize: u32, mut inflate: impl FnMut(usize) -> Tried<T>) -> Tried<T> {
    for k in 0..SIZES {
        let Ok(size) = usize::try_from(u64::from(isize) + (k << 32)) else {
            return Tried::Refused;
        };
        match inflate(size) {
            Tried::TooSmall => {}
            other => return other,
        }
    }
    Tried::TooSmall
}

/// The most output deflate can encode per compressed byte (a 258-byte match in at most a
/// couple of bits), rounded up.
const RATIO_MAX: usize = 1032;

/// Inflate the member that `region` may hold into `size` bytes: a spare buffer when `size`
/// is at most `limits.member`, else a buffer of its own reserved from the budget (its pages
/// faulted in first when `fault`), handed back to the budget unless the member filled it.
fn inflate_into(
    decompressor: &mut libdeflater::Decompressor,
    limits: &Limits,
    region: &[u8],
    size: usize,
    fault: bool,
) -> Tried<Vec<u8>> {
    if size > region.len().saturating_mul(RATIO_MAX) + 1024 {
        return Tried::Refused;
    }
    let large = size > limits.member;
    // Room for the start of a line kept in front of the output ([`crate::input`]'s push).
    let room = size + (size / 16).min(64 << 20);
    if large && !limits.budget.reserve(room) {
        return Tried::Refused;
    }
    let out = if large {
        fresh(size, room, fault)
    } else {
        take(size)
    };
    let Some(mut out) = out else {
        if large {
            limits.budget.release(room);
        }
        return Tried::Refused;
    };
    let tried = match decompressor.gzip_decompress(region, &mut out) {
        Ok(n) if n == size && proven_end(region, &out) => {
            if large {
                limits.budget.hand_on(&out, room);
            }
            return Tried::Filled(out);
        }
        Ok(_) => Tried::Surprise,
        Err(libdeflater::DecompressionError::InsufficientSpace) => Tried::TooSmall,
        Err(libdeflater::DecompressionError::BadData) => Tried::NotHere,
    };
    if large {
        drop(out);
        limits.budget.release(room);
    } else {
        recycle(out);
    }
    tried
}

/// A buffer of `len` bytes with room for `room` (contents unspecified), fresh memory; its
/// pages faulted in on two threads when `fault` (one a member is about to fill: faulting a
/// page costs about as much as inflating into it, and the evaluating workers wait anyway).
fn fresh(len: usize, room: usize, fault: bool) -> Option<Vec<u8>> {
    if !can_allocate(room) {
        return None;
    }
    // Zeroed by the allocator (fresh pages, not written).
    let mut buf = vec![0u8; room];
    buf.truncate(len);
    if fault {
        let (head, tail) = buf.split_at_mut(len / 2);
        std::thread::scope(|scope| {
            scope.spawn(|| touch(tail));
            touch(head);
        });
    }
    Some(buf)
}

/// Whether `bytes` can be allocated now (`ulimit -v`, a container's limit): asked with a
/// fallible reservation, given back at once, so that the buffer itself can be taken zeroed
/// from the allocator (fresh pages that nothing writes) instead of written with zeros. A
/// member that cannot have its buffer goes to the streaming decoder instead of ending the
/// run with an allocation failure.
fn can_allocate(bytes: usize) -> bool {
    Vec::<u8>::new().try_reserve_exact(bytes).is_ok()
}

/// Write a byte of every page of `part` (a store of zero into fresh memory may be left out).
fn touch(part: &mut [u8]) {
    for page in part.chunks_mut(4096) {
        page[0] = 1;
    }
}

/// The memory the large outputs (more than [`MEMBER_MAX`] bytes) alive at once may hold.
pub struct Budget {
    /// At most this many bytes.
    cap: usize,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    /// Bytes reserved (outputs being inflated or handed on).
    used: usize,
    /// The outputs handed on: (address, bytes), until they come back through [`recycle`].
    out: Vec<(usize, usize)>,
}

impl Budget {
    /// A budget of `cap` bytes.
    pub const fn new(cap: usize) -> Budget {
        Budget {
            cap,
            held: Mutex::new(Held {
                used: 0,
                out: Vec::new(),
            }),
        }
    }

    /// The process's budget: a quarter of the machine's memory, at most [`BUDGET_MAX`].
    pub fn global() -> &'static Budget {
        static GLOBAL: std::sync::OnceLock<Budget> = std::sync::OnceLock::new();
        GLOBAL.get_or_init(|| Budget::new(memory().map_or(0, |m| m / 4).min(BUDGET_MAX)))
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reserve `bytes`, if the cap allows.
    fn reserve(&self, bytes: usize) -> bool {
        let mut held = self.held();
        let fits = held.used.saturating_add(bytes) <= self.cap;
        if fits {
            held.used += bytes;
        }
        fits
    }

    /// Give back `bytes` reserved.
    fn release(&self, bytes: usize) {
        let mut held = self.held();
        held.used = held.used.saturating_sub(bytes);
    }

    /// `buf`, for which `bytes` are reserved, is handed on; [`Budget::returned`] gives them
    /// back.
    fn hand_on(&self, buf: &[u8], bytes: usize) {
        self.held().out.push((buf.as_ptr() as usize, bytes));
    }

    /// Whether `buf` is an output handed on (its reservation is then given back).
    fn returned(&self, buf: &[u8]) -> bool {
        let mut held = self.held();
        let at = buf.as_ptr() as usize;
        match held.out.iter().position(|&(a, _)| a == at) {
            Some(i) => {
                let (_, bytes) = held.out.swap_remove(i);
                held.used = held.used.saturating_sub(bytes);
                true
            }
            None => false,
        }
    }
}

/// The machine's memory in bytes: `MemTotal` of `/proc/meminfo`, or the cgroup's
/// `memory.max` when that is smaller; `None` when neither can be read.
fn memory() -> Option<usize> {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| mem_total(&info));
    let group = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|max| max.trim().parse::<usize>().ok());
    match (total, group) {
        (Some(t), Some(g)) => Some(t.min(g)),
        (t, g) => t.or(g),
    }
}

/// `MemTotal` of `/proc/meminfo`'s text, in bytes.
fn mem_total(info: &str) -> Option<usize> {
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line["MemTotal:".len()..].split_whitespace();
    let kib: usize = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => kib.checked_mul(1024),
        _ => None,
    }
}

/// Whether the gzip member at the start of `region`, which libdeflate inflated to `out`
/// (checking the CRC-32 and ISIZE of its trailer), ends where `region` does. It ends right
/// after some place holding its trailer; when exactly one place in `region` holds the
/// trailer's ISIZE (or, failing that, the whole trailer), that is the end.
fn proven_end(region: &[u8], out: &[u8]) -> bool {
    let isize = (out.len() as u32).to_le_bytes();
    match only_end(region, &isize) {
        Some(end) => end == region.len(),
        None => {
            let crc = libdeflater::crc32(out).to_le_bytes();
            only_end(region, &[crc, isize].concat()) == Some(region.len())
        }
    }
}

/// Where the one place holding `trailer` (at least [`MEMBER_MIN`] bytes in) ends, when there
/// is exactly one.
fn only_end(region: &[u8], trailer: &[u8]) -> Option<usize> {
    let finder = memmem::Finder::new(trailer);
    let from = MEMBER_MIN - trailer.len();
    let first = from + finder.find(region.get(from..)?)?;
    // Overlapping places count too (`00 00 00 00 00` holds `0` twice).
    if finder.find(&region[first + 1..]).is_some() {
        return None;
    }
    Some(first + trailer.len())
}

/// Where the first thing that looks like a gzip member header starts in `data`, at `from` or
/// later (the end of `data` when nothing does): magic, deflate, no reserved flag, an XFL and
/// an OS that writers use. A member may end only where the next one starts (or at the end).
fn next_header(data: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(i) = data
        .get(at..)
        .and_then(|d| memmem::find(d, &[0x1f, 0x8b, 8]))
    {
        let q = at + i;
        if let Some(h) = data.get(q..q + 10)
            && h[3] & 0xe0 == 0
            && matches!(h[8], 0 | 2 | 4)
            && (h[9] <= 13 || h[9] == 255)
        {
            return q;
        }
        at = q + 1;
    }
    data.len()
}

/// Inflate each `(member, room)` pair, each member filling its room exactly and ending
/// where its bytes do.
fn inflate_all(
    decompressor: &mut libdeflater::Decompressor,
    pairs: &mut [(&[u8], &mut [u8])],
) -> bool {
    pairs.iter_mut().all(|(region, out)| {
        matches!(decompressor.gzip_decompress(region, out), Ok(n) if n == out.len())
            && proven_end(region, out)
    })
}

/// Output bytes of a run of BGZF members inflated at once.
const RUN: usize = 16 << 20;

/// The most a BGZF member holds.
const BGZF_MAX: usize = 1 << 16;

/// bgzip's end-of-file marker: an empty BGZF member, as bgzip and htslib write it.
const BGZF_EOF: [u8; 28] = [
    0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0, 0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0,
    0, 0,
];

/// Candidate ends tried for one member before it is streamed (a candidate inside the
/// member's compressed bytes costs an inflate that fails).
const ATTEMPTS: usize = 3;

/// What ndq needs of a gzip member header.
struct Header {
    /// FHCRC: a CRC-16 of the header follows it.
    hcrc: bool,
    /// BGZF's BSIZE + 1: the member's whole size (bgzip).
    bgzf: Option<usize>,
}

impl Header {
    /// The header at the start of `data`, when it looks like one (the inflater checks the
    /// rest).
    fn parse(data: &[u8]) -> Option<Header> {
        if data.len() < MEMBER_MIN || data[..3] != [0x1f, 0x8b, 8] {
            return None;
        }
        let flags = data[3];
        let mut bgzf = None;
        if flags & 4 != 0 {
            // FEXTRA: XLEN, then subfields (SI1 SI2 LEN data); BGZF's is `B C 2 BSIZE`.
            let xlen = u16::from_le_bytes([data[10], data[11]]) as usize;
            let mut extra = data.get(12..12 + xlen)?;
            while extra.len() >= 4 {
                let len = u16::from_le_bytes([extra[2], extra[3]]) as usize;
                let field = extra.get(4..4 + len)?;
                if extra[..2] == *b"BC" && len == 2 {
                    let size = u16::from_le_bytes([field[0], field[1]]) as usize + 1;
                    if size >= MEMBER_MIN {
                        bgzf = Some(size);
                    }
                }
                extra = &extra[4 + len..];
            }
        }
        Some(Header {
            hcrc: flags & 2 != 0,
            bgzf,
        })
    }
}

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Buffers handed back by the driver once evaluated ([`recycle`]), so that inflating the
/// next member writes into memory already faulted in rather than fresh pages (which cost
/// about as much as inflating into them).
static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// At most this many spare buffers are kept.
const SPARES: usize = 4;

/// Blocks smaller than this are not worth keeping.
const SPARE_MIN: usize = 1 << 20;

/// A buffer of `len` bytes (contents unspecified), a spare one when one is large enough
/// (and not more than twice as large).
fn take(len: usize) -> Option<Vec<u8>> {
    let spare = {
        let mut spares = SPARE.lock().unwrap_or_else(|p| p.into_inner());
        let best = spares
            .iter()
            .enumerate()
            // A close fit: a small buffer never takes a large one that a member needs.
            .filter(|(_, b)| b.capacity() >= len && b.capacity() / 2 <= len)
            .min_by_key(|(_, b)| b.capacity())
            .map(|(i, _)| i);
        best.map(|i| spares.swap_remove(i))
    };
    match spare {
        Some(mut buf) => {
            // Only the part past the old contents is written (the rest is overwritten by
            // the inflater).
            buf.resize(len, 0);
            Some(buf)
        }
        None => {
            // Room for a slightly larger member next time (the parts of a file cut in
            // equal sizes at line ends differ by a few bytes).
            // Zeroed by the allocator (fresh pages), so nothing is written twice.
            if !can_allocate(len + len / 16) {
                return None;
            }
            let mut buf = vec![0; len + len / 16];
            buf.truncate(len);
            Some(buf)
        }
    }
}

/// Hand back an evaluated block, to be inflated into again (a large member's output is
/// freed, and its memory given back to the budget).
pub fn recycle(block: Vec<u8>) {
    if block.capacity() < SPARE_MIN || Budget::global().returned(&block) {
        return;
    }
    let mut spares = SPARE.lock().unwrap_or_else(|p| p.into_inner());
    if spares.len() < SPARES {
        spares.push(block);
    } else if let Some(smallest) = spares.iter_mut().min_by_key(|b| b.capacity())
        && smallest.capacity() < block.capacity()
    {
        *smallest = block;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Blocks, Inputs};
    use std::io::Write as _;

    #[test]
    fn an_end_needs_exactly_one_place() {
        let five = 5u32.to_le_bytes();
        let mut region = vec![7u8; 40];
        region[30..34].copy_from_slice(&five);
        assert_eq!(only_end(&region, &five), Some(34));
        region[20..24].copy_from_slice(&five);
        assert_eq!(only_end(&region, &five), None);
        // Overlapping places.
        let zeros = [vec![1u8; 20], vec![0u8; 5]].concat();
        assert_eq!(only_end(&zeros, &[0; 4]), None);
        // Too early to be an end.
        let early = [five.to_vec(), vec![1u8; 30]].concat();
        assert_eq!(only_end(&early, &five), None);
    }

    fn gzip_at(data: &[u8], level: u32) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        gzip_at(data, 1)
    }

    /// One member per `size` bytes of `data` (at least one member).
    fn members(data: &[u8], size: usize) -> Vec<u8> {
        if data.is_empty() {
            return gzip(data);
        }
        data.chunks(size).flat_map(gzip).collect()
    }

    /// A BGZF member (as bgzip writes them) holding `data`.
    fn bgzf_member(data: &[u8], bsize_delta: i64) -> Vec<u8> {
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(data).unwrap();
        let deflated = enc.finish().unwrap();
        let total = 18 + deflated.len() + 8;
        let bsize = (total as i64 - 1 + bsize_delta) as u16;
        let mut out = vec![
            0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0,
        ];
        out.extend_from_slice(&bsize.to_le_bytes());
        out.extend_from_slice(&deflated);
        out.extend_from_slice(&libdeflater::crc32(data).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    /// A bgzip file: `data` in members of `size` bytes, and the empty end-of-file member.
    fn bgzf(data: &[u8], size: usize) -> Vec<u8> {
        let mut out: Vec<u8> = data.chunks(size).flat_map(|c| bgzf_member(c, 0)).collect();
        out.extend(bgzf_member(b"", 0));
        out
    }

    /// Everything `Blocks` hands on for the gzip file `gz`, and the error that ended it.
    fn read(dir: &Path, gz: &[u8], whole: bool) -> (Vec<u8>, Option<String>) {
        let path = dir.join(if whole { "whole.gz" } else { "stream.gz" });
        std::fs::write(&path, gz).unwrap();
        let inputs = Inputs::open(&[path]).unwrap();
        let mut blocks = Blocks::start(&inputs.list[0], 1 << 16, whole).unwrap();
        let mut data = Vec::new();
        while let Some(block) = blocks.next_block() {
            match block {
                Ok(b) => data.extend_from_slice(&b),
                Err(e) => return (data, Some(e.to_string())),
            }
        }
        (data, None)
    }

    use std::path::Path;

    /// Inflated whole and streamed, `gz` gives the same: `want` when it is valid; otherwise the
    /// same error, after a prefix of `want`.
    #[track_caller]
    fn same(gz: &[u8], want: Option<&[u8]>) {
        let dir = tempfile::tempdir().unwrap();
        let (whole, whole_err) = read(dir.path(), gz, true);
        let (stream, stream_err) = read(dir.path(), gz, false);
        assert_eq!(whole_err, stream_err, "{} bytes of gzip", gz.len());
        match (want, &stream_err) {
            (Some(want), None) => {
                assert!(
                    whole == want,
                    "whole: {} bytes of {}",
                    whole.len(),
                    want.len()
                );
                assert!(stream == want);
            }
            (Some(want), Some(_)) => {
                assert!(want.starts_with(&whole) && want.starts_with(&stream));
            }
            (None, None) => assert!(whole == stream),
            (None, Some(_)) => {}
        }
    }

    fn sample(bytes: usize) -> Vec<u8> {
        let mut data = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/sample.ndjson"
        ))
        .unwrap();
        data.truncate(bytes);
        data
    }

    /// Whether every member of `gz` with some output is inflated whole (an empty member,
    /// whose trailer is 8 zero bytes, may be streamed).
    fn all_whole(gz: &[u8], want: &[u8]) -> bool {
        let mut members = Members::new(Bytes::Owned(gz.to_vec()));
        let mut whole = 0;
        loop {
            match members.next() {
                Step::Output(out) => whole += out.len(),
                Step::End | Step::Rest(_) => return whole == want.len(),
            }
        }
    }

    #[test]
    fn members_split_at_every_small_size_match_the_stream() {
        let data = sample(1500);
        for size in 1..=80 {
            let gz = members(&data, size);
            same(&gz, Some(&data));
            if size >= 8 {
                // Smaller members' ISIZE bytes turn up in their own compressed bytes.
                assert!(all_whole(&gz, &data), "members of {size}");
            }
        }
        for size in [100, 333, 1000, 1499, 1500] {
            let gz = members(&data, size);
            same(&gz, Some(&data));
            assert!(all_whole(&gz, &data), "members of {size}");
        }
        // The same member twice.
        let gz = gzip(&data);
        same(&[&gz[..], &gz].concat(), Some(&[&data[..], &data].concat()));
        assert!(all_whole(
            &[&gz[..], &gz].concat(),
            &[&data[..], &data].concat()
        ));
    }

    #[test]
    fn bgzip_members_match_the_stream() {
        let data = sample(200_000);
        for size in [1, 7, 100, 4096, 65280] {
            let data = if size < 100 { &data[..3000] } else { &data[..] };
            same(&bgzf(data, size), Some(data));
            if size >= 100 {
                assert!(all_whole(&bgzf(data, size), data), "members of {size}");
            }
        }
        // Runs of members are inflated at once: fewer outputs than members.
        let mut run = Members::new(Bytes::Owned(bgzf(&data, 4096)));
        let mut outputs = 0;
        while let Step::Output(_) = run.next() {
            outputs += 1;
        }
        assert!(outputs < data.len() / 4096 / 2, "{outputs} outputs");
        // Two bgzip files one after the other: the end-of-file marker between them.
        let two = [bgzf(&data[..70_000], 5000), bgzf(&data[70_000..], 4000)].concat();
        same(&two, Some(&data));
        assert!(all_whole(&two, &data));
        // A corrupt member in the middle of a run, in its data or its CRC.
        for at in [30, 40] {
            let mut bad = bgzf(&data, 4000);
            let member = 20 * bgzf_member(&data[..4000], 0).len();
            bad[member + at] ^= 0x10;
            same(&bad, None);
        }
        // A BSIZE that does not say where the member ends.
        for delta in [-9, -1, 1, 8] {
            let mut gz = bgzf_member(&data[..5000], delta);
            gz.extend(bgzf_member(&data[5000..9000], 0));
            same(&gz, None);
        }
    }

    #[test]
    fn empty_members_and_files_match_the_stream() {
        let data = sample(3000);
        let empty = gzip(b"");
        same(&empty, Some(b""));
        same(&[empty.clone(), empty.clone()].concat(), Some(b""));
        same(&[empty.clone(), gzip(&data)].concat(), Some(&data));
        same(&[gzip(&data), empty.clone()].concat(), Some(&data));
        same(
            &[gzip(&data[..10]), empty.clone(), gzip(&data[10..])].concat(),
            Some(&data),
        );
        same(&bgzf(b"", 10), Some(b""));
        same(b"", Some(b""));
    }

    #[test]
    fn truncated_files_are_the_same_error() {
        let data = sample(20_000);
        for gz in [gzip(&data), members(&data, 7000), bgzf(&data, 6000)] {
            for cut in [1, 3, 4, 5, 8, 9, 12, 100, gz.len() / 2, gz.len() - 11] {
                same(&gz[..gz.len() - cut], Some(&data));
            }
        }
    }

    #[test]
    fn a_corrupt_crc_or_isize_is_the_same_error() {
        let data = sample(20_000);
        let two = members(&data, 12_000);
        let first = gzip(&data[..12_000]).len();
        for gz in [gzip(&data), two.clone()] {
            // The last member's CRC, then each byte of its ISIZE.
            for at in [8, 4, 3, 2, 1] {
                for bit in [1u8, 0x80] {
                    let mut bad = gz.clone();
                    let i = bad.len() - at;
                    bad[i] ^= bit;
                    same(&bad, Some(&data));
                }
            }
        }
        // The first member's CRC and ISIZE.
        for at in [8, 4, 1] {
            let mut bad = two.clone();
            bad[first - at] ^= 1;
            same(&bad, Some(&data));
        }
        // The deflate data itself.
        let mut bad = gzip(&data);
        let mid = bad.len() / 2;
        bad[mid] ^= 0x55;
        same(&bad, None);
    }

    #[test]
    fn a_wrong_size_hint_falls_back_to_the_stream() {
        let data = sample(20_000);
        // The last member's ISIZE is no guide to the first's size.
        same(&members(&data, 15_000), Some(&data));
        same(
            &[gzip(&data[..100]), gzip(&data[100..])].concat(),
            Some(&data),
        );
        // The member's own size written (in its data, stored as is) before its end.
        let mut text = data.clone();
        let len = text.len() as u32;
        text[1000..1004].copy_from_slice(&len.to_le_bytes());
        same(&gzip_at(&text, 0), Some(&text));
        same(
            &[gzip_at(&text, 0), gzip(&data)].concat(),
            Some(&[text.clone(), data.clone()].concat()),
        );
    }

    #[test]
    fn trailing_bytes_and_header_crcs_match_the_stream() {
        let data = sample(5000);
        let gz = gzip(&data);
        same(&[gz.clone(), vec![0; 10]].concat(), None);
        same(&[gz.clone(), b"garbage after it".to_vec()].concat(), None);
        same(&[gz.clone(), gz[..5].to_vec()].concat(), None);
        // FHCRC: a header CRC-16, right and wrong.
        for crc in [None, Some(0u16)] {
            let mut member = gz[..10].to_vec();
            member[3] |= 2;
            let sum = crc.unwrap_or(libdeflater::crc32(&member) as u16);
            member.extend_from_slice(&sum.to_le_bytes());
            member.extend_from_slice(&gz[10..]);
            same(&member, None);
        }
    }

    #[test]
    fn huge_ratio_members_match_the_stream() {
        let line = b"{\"@t\":\"2026-01-01T00:00:00Z\",\"n\":1}\n";
        let data: Vec<u8> = line.repeat((8 << 20) / line.len());
        let gz = gzip_at(&data, 9);
        assert!(gz.len() * 200 < data.len(), "{}", gz.len());
        same(&gz, Some(&data));
        assert!(all_whole(&gz, &data));
        same(
            &[gz.clone(), gzip(line)].concat(),
            Some(&[&data[..], line].concat()),
        );
    }

    /// Limits for a test: members of more than `member` bytes reserved from a budget of `cap`
    /// bytes of its own.
    fn limits(member: usize, cap: usize) -> Limits {
        Limits {
            member,
            budget: Box::leak(Box::new(Budget::new(cap))),
        }
    }

    /// What `Members` hands on for `gz` within `limits`, then the rest streamed, as
    /// `crate::input` does: the bytes, the error that ended them, and how many bytes came
    /// from members inflated whole (kept, as the driver keeps a block it evaluates).
    fn drain(gz: &[u8], limits: Limits) -> (Vec<u8>, Option<String>, Vec<Vec<u8>>) {
        let mut members = Members::with_limits(Bytes::Owned(gz.to_vec()), limits);
        let mut data = Vec::new();
        let mut outs = Vec::new();
        loop {
            match members.next() {
                Step::Output(out) => {
                    data.extend_from_slice(&out);
                    outs.push(out);
                }
                Step::End => return (data, None, outs),
                Step::Rest(rest) => {
                    let err = flate2::read::MultiGzDecoder::new(rest)
                        .read_to_end(&mut data)
                        .err()
                        .map(|e| e.to_string());
                    return (data, err, outs);
                }
            }
        }
    }

    /// `gz` through the streaming decoder alone.
    fn streamed(gz: &[u8]) -> (Vec<u8>, Option<String>) {
        let mut data = Vec::new();
        let err = flate2::read::MultiGzDecoder::new(gz)
            .read_to_end(&mut data)
            .err()
            .map(|e| e.to_string());
        (data, err)
    }

    /// Within `limits`, `gz` gives what the stream gives (the same bytes, or the same error
    /// after a prefix of its bytes); the bytes inflated whole.
    #[track_caller]
    fn same_within(gz: &[u8], limits: Limits) -> usize {
        let (data, err, outs) = drain(gz, limits);
        let (want, want_err) = streamed(gz);
        assert_eq!(err, want_err, "{} bytes of gzip", gz.len());
        if err.is_none() {
            assert!(data == want, "{} bytes of {}", data.len(), want.len());
        } else {
            assert!(want.starts_with(&data) || data.starts_with(&want));
        }
        outs.iter().map(Vec::len).sum()
    }

    #[test]
    fn members_above_the_member_limit_are_inflated_whole_within_the_budget() {
        let data = sample(20_000);
        let two = [data.clone(), data.clone()].concat();
        for (gz, want) in [
            (gzip(&data), &data),
            (members(&data, 7000), &data),
            ([gzip(&data), gzip(&data)].concat(), &two),
            ([gzip(&data[..100]), gzip(&data[100..])].concat(), &data),
        ] {
            assert_eq!(same_within(&gz, limits(1000, 1 << 20)), want.len());
            let within = limits(1000, 1 << 20);
            let (_, _, outs) = drain(&gz, within);
            // The large outputs hold their room until they come back.
            assert!(within.budget.held().used >= want.len() - 100);
            for out in &outs {
                assert_eq!(within.budget.returned(out), out.len() > 1000);
            }
            assert_eq!(within.budget.held().used, 0);
        }
        // Every output given back: nothing held.
        let within = limits(1000, 1 << 20);
        let (_, _, outs) = drain(&members(&data, 7000), within);
        for out in &outs {
            assert!(within.budget.returned(out));
        }
        assert_eq!(within.budget.held().used, 0);
        assert!(within.budget.held().out.is_empty());
    }

    #[test]
    fn members_beyond_the_budget_are_streamed() {
        let data = sample(20_000);
        // No room at all: all streamed, the same bytes.
        assert_eq!(same_within(&gzip(&data), limits(1000, 10_000)), 0);
        // Room for one member's output at a time: the second is streamed while the first
        // is held, from its start.
        let gz = members(&data, 10_000);
        let one = limits(1000, 12_000);
        assert_eq!(same_within(&gz, one), 10_000);
        // Once the first comes back, the same file is inflated whole again.
        let one = limits(1000, 12_000);
        let mut first = Members::with_limits(Bytes::Owned(gz.clone()), one);
        let Step::Output(out) = first.next() else {
            panic!("the first member is inflated whole");
        };
        assert!(matches!(first.next(), Step::Rest(_)));
        assert!(one.budget.returned(&out));
        let mut again = Members::with_limits(Bytes::Owned(gz.clone()), one);
        let Step::Output(out) = again.next() else {
            panic!("the first member is inflated whole");
        };
        assert!(one.budget.returned(&out));
        assert!(matches!(again.next(), Step::Output(_)));
        // Members below the member limit never ask the budget.
        assert_eq!(same_within(&gz, limits(10_000, 0)), data.len());
    }

    #[test]
    fn large_members_truncated_or_corrupt_are_the_stream_s_error() {
        let data = sample(20_000);
        for gz in [gzip(&data), members(&data, 7000)] {
            for cut in [1, 4, 5, 8, 9, 100, gz.len() / 2, gz.len() - 11] {
                same_within(&gz[..gz.len() - cut], limits(1000, 1 << 20));
            }
            for at in [1, 3, 4, 5, 8, 9, gz.len() / 2, 20] {
                for bit in [1u8, 0x80] {
                    let mut bad = gz.clone();
                    let i = bad.len() - at;
                    bad[i] ^= bit;
                    same_within(&bad, limits(1000, 1 << 20));
                }
            }
            same_within(&[&gz[..], b"garbage"].concat(), limits(1000, 1 << 20));
        }
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn isize_candidates_go_up_by_4_gib() {
        const GIB4: usize = 1 << 32;
        /// What a member of `truth` bytes does in each room, and the rooms tried.
        fn run(isize: u32, truth: u64, short: bool) -> (Tried<u64>, Vec<u64>) {
            let mut rooms = Vec::new();
            let got = sized(isize, |size| {
                let size = size as u64;
                rooms.push(size);
                match size.cmp(&truth) {
                    std::cmp::Ordering::Less => Tried::TooSmall,
                    std::cmp::Ordering::Equal if !short => Tried::Filled(size),
                    _ => Tried::Surprise,
                }
            });
            (got, rooms)
        }
        let g = GIB4 as u64;
        // Under 4 GiB: ISIZE is the size.
        assert_eq!(run(123, 123, false), (Tried::Filled(123), vec![123]));
        // Over 4 GiB and over 8 GiB: the size wrapped once and twice.
        assert_eq!(
            run(123, g + 123, false),
            (Tried::Filled(g + 123), vec![123, g + 123])
        );
        assert_eq!(
            run(7, 2 * g + 7, false),
            (Tried::Filled(2 * g + 7), vec![7, g + 7, 2 * g + 7])
        );
        // Over 12 GiB: three rooms too small, and no more tried.
        assert_eq!(
            run(7, 3 * g + 7, false),
            (Tried::TooSmall, vec![7, g + 7, 2 * g + 7])
        );
        // A room to spare is a surprise (libdeflate checked ISIZE: no candidate fits).
        assert_eq!(run(5, g + 5, true), (Tried::Surprise, vec![5, g + 5]));
        // A refused or failing room stops the candidates.
        let mut rooms = 0;
        let got: Tried<()> = sized(9, |_| {
            rooms += 1;
            Tried::Refused
        });
        assert_eq!((got, rooms), (Tried::Refused, 1));
        let got: Tried<()> = sized(9, |_| Tried::NotHere);
        assert_eq!(got, Tried::NotHere);
    }

    #[test]
    fn rooms_beyond_the_deflate_ratio_or_the_budget_are_refused() {
        let data = sample(20_000);
        let gz = gzip(&data);
        let mut d = libdeflater::Decompressor::new();
        let budget = limits(1000, 1 << 20);
        // A wrapped size (4 GiB more) that 20 KB of deflate cannot hold.
        let size = data
            .len()
            .saturating_add((u32::MAX as usize).saturating_add(1));
        assert_eq!(
            inflate_into(&mut d, &budget, &gz, size, true),
            Tried::Refused
        );
        assert_eq!(budget.budget.held().used, 0);
        // Over the budget.
        let small = limits(1000, 5000);
        assert_eq!(
            inflate_into(&mut d, &small, &gz, data.len(), true),
            Tried::Refused
        );
        // Too small a room is given back to the budget.
        assert_eq!(
            inflate_into(&mut d, &budget, &gz, data.len() - 1, true),
            Tried::TooSmall
        );
        assert_eq!(budget.budget.held().used, 0);
        // The right room: the output, reserved until it comes back.
        let Tried::Filled(out) = inflate_into(&mut d, &budget, &gz, data.len(), true) else {
            panic!("the member fills its room");
        };
        assert!(out == data);
        assert!(budget.budget.held().used >= data.len());
        assert!(budget.budget.returned(&out));
        assert_eq!(budget.budget.held().used, 0);
        // Not the member's end.
        assert_eq!(
            inflate_into(&mut d, &budget, &gz[..gz.len() / 2], data.len(), false),
            Tried::NotHere
        );
        assert_eq!(budget.budget.held().used, 0);
    }

    #[test]
    fn a_fresh_buffer_has_its_length_and_room() {
        for (len, room, fault) in [(0, 0, true), (1, 1, true), (10_000, 12_000, true)] {
            let buf = fresh(len, room, fault).expect("room");
            assert_eq!((buf.len(), buf.capacity()), (len, room));
        }
        assert_eq!(fresh(5000, 6000, false).map(|b| b.len()), Some(5000));
        // More than any address space: refused, not an abort.
        assert!(fresh(10, usize::MAX / 2, false).is_none());
        assert!(!can_allocate(usize::MAX / 2));
    }

    #[test]
    fn mem_total_is_read_in_bytes() {
        let info = "MemTotal:       24000000 kB\nMemFree:        1000 kB\n";
        assert_eq!(mem_total(info), Some(24_000_000 * 1024));
        assert_eq!(mem_total("MemFree: 1000 kB\n"), None);
        assert_eq!(mem_total("MemTotal: lots\n"), None);
        assert!(memory().is_none_or(|m| m > 0));
    }
}
