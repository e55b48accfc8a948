//! gzip files inflated a member at a time, whole, with libdeflate.
//!
//! A streaming inflater (flate2's zlib-rs backend) keeps a 32 KiB window and hands out a
//! few hundred KiB at a time; libdeflate inflates a whole member into one buffer at about
//! twice its speed (measured in `benches/files.md`), but needs the member's compressed bytes
//! and room for all its output up front, and does not say where the member ended. So a
//! regular `.gz` file of at most [`FILE_MAX`] bytes is mapped whole, and each member is
//! inflated whole when its end can be proven without inflating it twice:
//!
//! ```text
//! at = 0
//! while at < len:
//!     end = at + BSIZE + 1 when the member has a BGZF header (bgzip); otherwise the first
//!           place after `at` that looks like a member header (a member ends only where
//!           the next one starts), or the end of the file
//!     size = the 4 bytes before `end` (ISIZE: the member's output size mod 2^32, when
//!            `end` is its end)
//!     inflate gz[at..end] into `size` bytes with libdeflate, which checks the member's
//!       CRC-32 and ISIZE and ignores what follows the member; it must fill them exactly
//!     the member ends right after a place holding its ISIZE: if exactly one place in
//!       gz[at..end] does (or, failing that, holds its whole trailer, CRC-32 and ISIZE),
//!       and that place ends at `end`, the member is proven to end there: at = end
//!     a candidate that was not the end (libdeflate ran out of input or room): try the next
//!       one, up to ATTEMPTS
//!     anything else (an ambiguous end, a member larger than MEMBER_MAX, an FHCRC header,
//!       garbage after a member, a corrupt member): the rest of the file, from `at`, goes
//!       through the streaming decoder, as the whole file would without this module
//! ```
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

/// Compressed files up to this size are read whole and inflated member by member; larger
/// ones (and standard input, and pipes) are streamed. (Several files are read at once, one
/// more than `--threads`.)
pub const FILE_MAX: u64 = 256 << 20;

/// Members whose output is larger than this are streamed: a whole member is held in memory
/// (twice while the previous one is still being evaluated), and the fresh memory a large
/// buffer needs costs about as much as what libdeflate saves (see `benches/files.md`).
pub const MEMBER_MAX: usize = 256 << 20;

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
}

impl Members {
    /// Read `file` whole when it is small enough (`None`: stream it).
    pub fn read(file: &File, len: u64) -> io::Result<Option<Members>> {
        if len > FILE_MAX || len < MEMBER_MIN as u64 {
            return Ok(None);
        }
        let mut f = file.try_clone()?;
        // The last member's ISIZE: when it is too large to inflate whole, the file is most
        // likely one large member, streamed without reading it into memory first.
        let mut isize = [0; 4];
        f.seek(SeekFrom::Start(len - 4))?;
        f.read_exact(&mut isize)?;
        if u32::from_le_bytes(isize) as usize > MEMBER_MAX {
            return Ok(None);
        }
        // Mapped rather than read: the page cache's pages, not fresh memory of our own.
        let gz = crate::driver::map_window(&f, 0, len as usize)?;
        Ok(Some(Members::new(Bytes::Mapped(gz))))
    }

    /// Members of the gzip data `gz`.
    pub fn new(gz: Bytes) -> Members {
        Members {
            gz,
            at: 0,
            decompressor: libdeflater::Decompressor::new(),
            helper: libdeflater::Decompressor::new(),
            no_run_before: 0,
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
        let rest = &self.gz[self.at..];
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
            let size = le32(&region[end - 4..]) as usize;
            if size <= MEMBER_MAX {
                let mut out = take(size);
                match self.decompressor.gzip_decompress(region, &mut out) {
                    Ok(n) if n == size && proven_end(region, &out) => {
                        self.at += end;
                        return Some(out);
                    }
                    // The member ended before `end`, and what follows it is no member.
                    Ok(_) => return None,
                    // Not a member's end (or a corrupt member).
                    Err(_) => recycle(out),
                }
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
        let mut out = take(total);
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
fn take(len: usize) -> Vec<u8> {
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
            buf
        }
        None => {
            // Room for a slightly larger member next time (the parts of a file cut in
            // equal sizes at line ends differ by a few bytes).
            // Zeroed by the allocator (fresh pages), so nothing is written twice.
            let mut buf = vec![0; len + len / 16];
            buf.truncate(len);
            buf
        }
    }
}

/// Hand back an evaluated block, to be inflated into again.
pub fn recycle(block: Vec<u8>) {
    if block.capacity() < SPARE_MIN {
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
}
