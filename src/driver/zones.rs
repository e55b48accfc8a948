//! Zone maps: for each block of a large file, the range of the leading times of the lines that
//! start in it, kept in the user's cache so that a later query with a time range reads only the
//! blocks its range can meet. A zone map says where a time *cannot* be, never where it is.
//!
//! # What is kept
//!
//! A file is cut into blocks of [`ZoneOptions::block`] bytes (1 MiB); a block's zone covers the
//! lines that *start* in it, so zones begin and end at line starts. Each zone holds its byte
//! range, its line count (blank lines too: `file:line` numbers of later lines stay right when
//! it is skipped), its non-blank line count, and the least and greatest leading time
//! ([`ndq_query::leading_time`]) of its lines, as instants and as text. A zone is *known* only
//! when every non-blank line in it has a leading time and none was found malformed while it
//! was read; an unknown zone is never skipped.
//!
//! # When a zone is skipped
//!
//! Only when lines may be ruled out unvalidated at all (as the prefilter: not under
//! `--strict`, not with the serde engine, not with `NDQ_PREFILTER=off`), the query has a time
//! range on the zone map's key, the zone is known, and the range cannot meet the zone's times
//! ([`ndq_query::TimeRange::outside`]). Then every line of the zone is one that the line-by-line
//! check would have ruled out from its leading time without reading further, so skipping the
//! zone changes nothing but the work: not the rows, not the count of bad lines.
//!
//! # The cache
//!
//! One file per (input path, key) in [`ZoneOptions::dir`], written whole to a temporary name
//! and renamed. It records the input's identity (device, inode, length, modification and change
//! times) and a checksum of [`SAMPLES`] sampled pieces of the bytes it covers. On load:
//!
//! ```text
//! another device or inode, a shorter file         -> replaced or truncated: built again
//! same length, other times or checksum            -> rewritten: built again
//! longer, same checksum over the indexed length   -> grown: its zones kept but the last
//!                                                    (which more lines may now start in);
//!                                                    the rest read and indexed
//! ```
//! A cache that cannot be read, parsed or written is as if there were none: it never fails a
//! query and never changes an answer; and where no file can be made in it, no zones are made
//! (making them reads every line, the prefilter's skips off, for nothing). Only regular files of at least
//! [`ZoneOptions::min_size`] bytes (16 MiB) get a zone map: smaller ones are read in
//! milliseconds anyway.

use std::fs::File;
use std::io::Write as _;
use std::os::unix::fs::{FileExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};

use ndq_query::TimeRange;
#[cfg(test)]
use ndq_query::leading_time;

#[cfg(test)]
use super::chunk::is_blank;

/// Where zone maps live and how large their blocks are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneOptions {
    /// The cache directory (`$NDQ_CACHE_DIR`, else `$XDG_CACHE_HOME/ndq`, else `~/.cache/ndq`).
    pub dir: PathBuf,
    /// Bytes per block.
    pub block: u64,
    /// Files smaller than this get no zone map.
    pub min_size: u64,
}

/// Default bytes per block: a 1 GiB file has 1024 zones (about 100 KiB of cache).
pub const BLOCK: u64 = 1 << 20;

/// Default least size of a file with a zone map.
pub const MIN_SIZE: u64 = 16 << 20;

/// Pieces of the indexed bytes hashed to tell a file from another of the same identity.
const SAMPLES: u64 = 32;

/// Bytes per sampled piece.
const SAMPLE_LEN: u64 = 4096;

/// The zone of one block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zone {
    /// The block's number (its lines start in `block * size .. (block + 1) * size`).
    pub block: u64,
    /// Offset of its first line.
    pub start: u64,
    /// Offset just after its last line (its last line's newline).
    pub end: u64,
    /// Lines, blank ones too.
    pub lines: u64,
    /// Non-blank lines.
    pub filled: u64,
    /// Every non-blank line has a leading time and none was found malformed.
    pub known: bool,
    /// The least and greatest leading instant (when `filled > 0` and `known`).
    pub lo: i128,
    pub hi: i128,
    /// The least and greatest leading time's text.
    pub text_lo: Vec<u8>,
    pub text_hi: Vec<u8>,
}

impl Zone {
    fn new(block: u64, start: u64) -> Zone {
        Zone {
            block,
            start,
            end: start,
            lines: 0,
            filled: 0,
            known: true,
            lo: i128::MAX,
            hi: i128::MIN,
            text_lo: Vec::new(),
            text_hi: Vec::new(),
        }
    }

    /// `later` (the same block, the lines after these) added.
    fn merge(&mut self, later: Zone) {
        self.end = later.end;
        self.lines += later.lines;
        self.known &= later.known;
        if later.filled > 0 {
            if self.filled == 0 || later.text_lo < self.text_lo {
                self.text_lo = later.text_lo;
            }
            if self.filled == 0 || later.text_hi > self.text_hi {
                self.text_hi = later.text_hi;
            }
            self.lo = self.lo.min(later.lo);
            self.hi = self.hi.max(later.hi);
        }
        self.filled += later.filled;
    }

    /// Whether `range` rules out every line of this zone.
    pub fn skippable(&self, range: &TimeRange) -> bool {
        self.known
            && (self.filled == 0 || range.outside(self.lo, self.hi, &self.text_lo, &self.text_hi))
    }
}

/// Append `zones` (in file order) to `all`, merging a block that continues the last one.
pub fn append(all: &mut Vec<Zone>, zones: Vec<Zone>) {
    for z in zones {
        match all.last_mut() {
            Some(last) if last.block == z.block => last.merge(z),
            _ => all.push(z),
        }
    }
}

/// The zones of a chunk's lines, built line by line as the chunk loop meets them (in order),
/// each line's leading time read once for both its zone and the range check. The least and
/// greatest texts stay slices of the chunk until their zone is done.
#[derive(Debug)]
pub struct Builder<'d> {
    base: u64,
    block: u64,
    zones: Vec<Zone>,
    /// The zone being built, and its least and greatest texts.
    current: Option<(Zone, &'d [u8], &'d [u8])>,
    /// Where the current zone's block ends.
    next: u64,
}

impl<'d> Builder<'d> {
    /// For a chunk at offset `base` of its file, blocks of `block` bytes.
    pub fn new(base: u64, block: u64) -> Builder<'d> {
        Builder {
            base,
            block: block.max(1),
            zones: Vec::new(),
            current: None,
            next: 0,
        }
    }

    fn close(&mut self, end: u64) {
        if let Some((mut z, lo, hi)) = self.current.take() {
            z.end = end;
            z.text_lo = lo.to_vec();
            z.text_hi = hi.to_vec();
            self.zones.push(z);
        }
    }

    /// The next line, at offset `at` of the chunk: blank, or with this leading time.
    #[inline]
    pub fn line(&mut self, at: usize, blank: bool, stamp: Option<ndq_query::Stamp<'d>>) {
        let offset = self.base + at as u64;
        // Lines come in order: a new zone begins only past the current block's end.
        if self.current.is_none() || offset >= self.next {
            let b = offset / self.block;
            self.next = (b + 1).saturating_mul(self.block);
            self.close(offset);
            self.current = Some((Zone::new(b, offset), &[], &[]));
        }
        let Some((z, lo, hi)) = &mut self.current else {
            return;
        };
        z.lines += 1;
        if blank {
            return;
        }
        match stamp {
            Some(t) => {
                if z.filled == 0 || t.text < *lo {
                    *lo = t.text;
                }
                if z.filled == 0 || t.text > *hi {
                    *hi = t.text;
                }
                z.lo = z.lo.min(t.instant);
                z.hi = z.hi.max(t.instant);
            }
            None => z.known = false,
        }
        z.filled += 1;
    }

    /// The last line given was found malformed.
    pub fn bad(&mut self) {
        if let Some((z, _, _)) = &mut self.current {
            z.known = false;
        }
    }

    /// The zones, the chunk having been read to its end (`len` bytes).
    pub fn finish(mut self, len: usize) -> Vec<Zone> {
        self.close(self.base + len as u64);
        self.zones
    }
}

/// The zones of the lines of `data` (whole lines, the last maybe without its newline), which
/// starts at offset `base` of its file; `bad` holds the offsets in `data` of the lines found
/// malformed. (What the chunk loop builds, without the loop.)
#[cfg(test)]
fn index(data: &[u8], base: u64, key: &[u8], block: u64, bad: &[usize]) -> Vec<Zone> {
    let mut b = Builder::new(base, block);
    let mut at = 0;
    while at < data.len() {
        let end = memchr::memchr(b'\n', &data[at..]).map_or(data.len(), |i| at + i + 1);
        let mut line = &data[at..end];
        if let [head @ .., b'\n'] = line {
            line = head;
        }
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        let blank = is_blank(line);
        b.line(at, blank, leading_time(line, key));
        if bad.contains(&at) {
            b.bad();
        }
        at = end;
    }
    b.finish(data.len())
}

/// What identifies a file's contents without reading them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Identity {
    fn of(file: &File) -> Option<Identity> {
        let m = file.metadata().ok()?;
        Some(Identity {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }
}

/// FNV-1a, 64 bits: a checksum, not a defence.
fn fnv(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The checksum of [`SAMPLES`] pieces spread over the first `len` bytes of `file` (the last
/// piece ends at `len`); `None` when they cannot be read.
fn sample(file: &File, len: u64) -> Option<u64> {
    let mut hash = fnv(FNV_START, &len.to_le_bytes());
    let mut buf = vec![0u8; SAMPLE_LEN as usize];
    let piece = SAMPLE_LEN.min(len);
    let span = len - piece;
    for i in 0..SAMPLES {
        let at = span * i / (SAMPLES - 1);
        let buf = &mut buf[..piece as usize];
        file.read_exact_at(buf, at).ok()?;
        hash = fnv(hash, buf);
    }
    Some(hash)
}

/// The zone map of one file, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stored {
    block: u64,
    id: Identity,
    key: Vec<u8>,
    sample: u64,
    zones: Vec<Zone>,
}

const MAGIC: &[u8] = b"ndq zone map 1\n";

impl Stored {
    fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        let u = |v: u64, out: &mut Vec<u8>| out.extend_from_slice(&v.to_le_bytes());
        let id = &self.id;
        for v in [self.block, id.dev, id.ino, id.len] {
            u(v, &mut out);
        }
        for v in [id.mtime.0, id.mtime.1, id.ctime.0, id.ctime.1] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        u(self.key.len() as u64, &mut out);
        out.extend_from_slice(&self.key);
        u(self.sample, &mut out);
        u(self.zones.len() as u64, &mut out);
        for z in &self.zones {
            for v in [
                z.block,
                z.start,
                z.end,
                z.lines,
                z.filled,
                u64::from(z.known),
            ] {
                u(v, &mut out);
            }
            out.extend_from_slice(&z.lo.to_le_bytes());
            out.extend_from_slice(&z.hi.to_le_bytes());
            for t in [&z.text_lo, &z.text_hi] {
                u(t.len() as u64, &mut out);
                out.extend_from_slice(t);
            }
        }
        let check = fnv(FNV_START, &out);
        u(check, &mut out);
        out
    }

    fn decode(bytes: &[u8]) -> Option<Stored> {
        let (body, check) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
        if u64::from_le_bytes(check.try_into().ok()?) != fnv(FNV_START, body) {
            return None;
        }
        let mut r = Reader(body.strip_prefix(MAGIC)?);
        let block = r.u64()?;
        let (dev, ino, len) = (r.u64()?, r.u64()?, r.u64()?);
        let mtime = (r.i64()?, r.i64()?);
        let ctime = (r.i64()?, r.i64()?);
        let key = r.bytes()?;
        let sample = r.u64()?;
        let n = r.u64()?;
        let mut zones = Vec::new();
        for _ in 0..n {
            let (block, start, end, lines, filled, known) =
                (r.u64()?, r.u64()?, r.u64()?, r.u64()?, r.u64()?, r.u64()?);
            zones.push(Zone {
                block,
                start,
                end,
                lines,
                filled,
                known: known == 1,
                lo: r.i128()?,
                hi: r.i128()?,
                text_lo: r.bytes()?,
                text_hi: r.bytes()?,
            });
        }
        r.0.is_empty().then_some(Stored {
            block,
            id: Identity {
                dev,
                ino,
                len,
                mtime,
                ctime,
            },
            key,
            sample,
            zones,
        })
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
    fn i64(&mut self) -> Option<i64> {
        self.take().map(i64::from_le_bytes)
    }
    fn i128(&mut self) -> Option<i128> {
        self.take().map(i128::from_le_bytes)
    }
    fn bytes(&mut self) -> Option<Vec<u8>> {
        let n = usize::try_from(self.u64()?).ok()?;
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head.to_vec())
    }
}

/// A file's zone map during a run: the zones kept from the cache, and those being built.
#[derive(Debug)]
pub struct FileZones {
    path: PathBuf,
    block: u64,
    key: Vec<u8>,
    /// The zones from the cache still true of the file, from its start.
    pub kept: Vec<Zone>,
    /// Zones built by this run for the bytes from the end of `kept` on.
    built: Vec<Zone>,
    /// Whether the cache directory takes a new map (see [`FileZones::records`]).
    records: bool,
    /// Whether every chunk read from the end of `kept` on gave its zones.
    complete: bool,
}

impl FileZones {
    /// The zone map of `file` (`name` as given) for `key`, with the zones of the cache that
    /// still hold; `None` when the file gets no zone map (too small, or no usable cache
    /// directory).
    pub fn open(opts: &ZoneOptions, name: &Path, file: &File, key: &str) -> Option<FileZones> {
        let id = Identity::of(file)?;
        if id.len < opts.min_size {
            return None;
        }
        let full = std::fs::canonicalize(name).ok()?;
        let mut h = fnv(FNV_START, full.as_os_str().as_encoded_bytes());
        h = fnv(h, b"\0");
        h = fnv(h, key.as_bytes());
        let path = opts.dir.join(format!("{h:016x}.zones"));
        let kept = std::fs::read(&path)
            .ok()
            .and_then(|bytes| Stored::decode(&bytes))
            .map(|stored| still_true(stored, opts.block, key, id, file))
            .unwrap_or_default();
        // Zones are made from every line, the prefilter's skips off: only worth it when the
        // map can be kept. Else the kept zones (if any) are used, and nothing is made.
        let records = kept.last().is_none_or(|z| z.end < id.len) && writable(&opts.dir);
        Some(FileZones {
            path,
            block: opts.block,
            key: key.as_bytes().to_vec(),
            kept,
            built: Vec::new(),
            complete: true,
            records,
        })
    }

    /// Whether the zones of what is read past [`FileZones::covered`] are to be made (the
    /// cache can take them).
    pub fn records(&self) -> bool {
        self.records
    }

    /// Where the kept zones end (what is read from here on is indexed anew).
    pub fn covered(&self) -> u64 {
        self.kept.last().map_or(0, |z| z.end)
    }

    /// The block size.
    pub fn block(&self) -> u64 {
        self.block
    }

    /// The key.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// Take the zones of one chunk that ends at or before `covered()` (ignored: the kept
    /// zones say the same) or starts at or after it; `None`: the chunk stopped early.
    pub fn add(&mut self, zones: Option<Vec<Zone>>) {
        let covered = self.covered();
        match zones {
            None => self.complete = false,
            Some(z) => {
                let new: Vec<Zone> = z.into_iter().filter(|z| z.start >= covered).collect();
                append(&mut self.built, new);
            }
        }
    }

    /// The file was read to its end: store the kept and built zones when they say more than
    /// the cache did. Errors are ignored (the cache never fails a query).
    pub fn finish(mut self, file: &File) {
        if !self.complete || self.built.is_empty() {
            return;
        }
        let Some(id) = Identity::of(file) else { return };
        let mut zones = std::mem::take(&mut self.kept);
        append(&mut zones, std::mem::take(&mut self.built));
        // The zones must cover the file as it was read, and the file must not have changed.
        let end = zones.last().map_or(0, |z| z.end);
        if end != id.len {
            return;
        }
        let Some(sample) = sample(file, id.len) else {
            return;
        };
        let stored = Stored {
            block: self.block,
            id,
            key: self.key,
            sample,
            zones,
        };
        let _ = write_atomic(&self.path, &stored.encode());
    }
}

/// The zones of `stored` that still describe `file` (see the module docs).
fn still_true(stored: Stored, block: u64, key: &str, id: Identity, file: &File) -> Vec<Zone> {
    let old = stored.id;
    if stored.block != block
        || stored.key != key.as_bytes()
        || (old.dev, old.ino) != (id.dev, id.ino)
        || id.len < old.len
        || (id.len == old.len && (old.mtime, old.ctime) != (id.mtime, id.ctime))
        || sample(file, old.len) != Some(stored.sample)
        || stored.zones.last().map_or(0, |z| z.end) != old.len
    {
        return Vec::new();
    }
    let mut zones = stored.zones;
    if id.len > old.len {
        // More lines may start in the last block now (and its last line may have been
        // cut short).
        zones.pop();
    }
    zones
}

/// Write `bytes` to `path` through a temporary file renamed over it.
/// Whether a file can be made in `dir` (made first if need be): tried with an empty file of
/// this process's, removed at once.
fn writable(dir: &Path) -> bool {
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    let probe = dir.join(format!(".probe.{}.tmp", std::process::id()));
    let made = File::create(&probe).is_ok();
    let _ = std::fs::remove_file(&probe);
    made
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("zones"),
        std::process::id()
    ));
    let mut f = File::create(&tmp)?;
    f.write_all(bytes)?;
    drop(f);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// A stretch of a file: read, or skipped whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub start: u64,
    pub end: u64,
    /// Skipped: its lines and non-blank lines.
    pub skip: Option<(u64, u64)>,
}

/// The stretches of a file of `len` bytes to read and to skip, given the kept zones and the
/// query's range (`None`: nothing is skipped).
pub fn regions(kept: &[Zone], range: Option<&TimeRange>, len: u64) -> Vec<Region> {
    let mut out: Vec<Region> = Vec::new();
    let mut push = |start: u64, end: u64, skip: Option<(u64, u64)>| {
        if start >= end {
            return;
        }
        match (out.last_mut(), skip) {
            (Some(last), None) if last.skip.is_none() && last.end == start => last.end = end,
            (Some(last), Some((l, f))) if last.end == start => match &mut last.skip {
                Some((ll, ff)) => {
                    *ll += l;
                    *ff += f;
                    last.end = end;
                }
                None => out.push(Region { start, end, skip }),
            },
            _ => out.push(Region { start, end, skip }),
        }
    };
    let mut at = 0;
    for z in kept {
        if z.start > at {
            push(at, z.start, None);
        }
        let skip = range.is_some_and(|r| z.skippable(r));
        push(z.start, z.end, skip.then_some((z.lines, z.filled)));
        at = z.end;
    }
    push(at, len, None);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zones_of(data: &[u8], block: u64) -> Vec<Zone> {
        index(data, 0, b"t", block, &[])
    }

    #[test]
    fn zones_cover_the_lines_that_start_in_their_block() {
        let data =
            b"{\"t\":\"2026-11-21T10:00:00Z\"}\n{\"t\":\"2026-11-21T09:00:00Z\"}\n\n{\"x\":1}\n";
        let all = zones_of(data, 1 << 20);
        assert_eq!(all.len(), 1);
        let z = &all[0];
        assert_eq!(
            (z.start, z.end, z.lines, z.filled),
            (0, data.len() as u64, 4, 3)
        );
        assert!(!z.known, "a line without a leading time");
        // Chunked anywhere at line starts, the merged zones are the same.
        let small = zones_of(data, 10);
        for cut in [29usize, 58, 59] {
            let mut merged = Vec::new();
            append(&mut merged, index(&data[..cut], 0, b"t", 10, &[]));
            append(&mut merged, index(&data[cut..], cut as u64, b"t", 10, &[]));
            assert_eq!(merged, small, "cut at {cut}");
        }
        assert_eq!(small.iter().map(|z| z.lines).sum::<u64>(), 4);
        assert_eq!(small[0].text_lo, b"2026-11-21T10:00:00Z");
        // A malformed line makes its zone unknown.
        let bad = index(&data[..58], 0, b"t", 1 << 20, &[29]);
        assert!(!bad[0].known);
        let good = index(&data[..58], 0, b"t", 1 << 20, &[]);
        assert!(good[0].known);
        assert_eq!(good[0].text_hi, b"2026-11-21T10:00:00Z");
        assert_eq!(good[0].text_lo, b"2026-11-21T09:00:00Z");
        assert!(good[0].lo < good[0].hi);
        // Times going up, then one below the first: each end moves when it should.
        let data = b"{\"t\":\"2026-11-21T10:00:00Z\"}\n{\"t\":\"2026-11-21T11:00:00Z\"}\n\
                     {\"t\":\"2026-11-21T08:00:00Z\"}\n{\"t\":\"2026-11-21T09:00:00Z\"}\n";
        let z = &zones_of(data, 1 << 20)[0];
        assert_eq!(z.text_lo, b"2026-11-21T08:00:00Z");
        assert_eq!(z.text_hi, b"2026-11-21T11:00:00Z");
    }

    #[test]
    fn stored_maps_read_back_and_refuse_damage() {
        let stored = Stored {
            block: 7,
            id: Identity {
                dev: 1,
                ino: 2,
                len: 3,
                mtime: (4, 5),
                ctime: (6, -7),
            },
            key: b"@t".to_vec(),
            sample: 99,
            zones: zones_of(b"{\"t\":\"2026-11-21T10:00:00Z\"}\n{\"t\":\"x\"}\n", 5),
        };
        let bytes = stored.encode();
        assert_eq!(Stored::decode(&bytes), Some(stored));
        for cut in 0..bytes.len() {
            assert_eq!(Stored::decode(&bytes[..cut]), None);
        }
        let mut flipped = bytes.clone();
        flipped[MAGIC.len() + 3] ^= 1;
        assert_eq!(Stored::decode(&flipped), None);
    }

    #[test]
    fn regions_merge_neighbours() {
        let z = |block, start, end, known| Zone {
            known,
            lo: 10,
            hi: 20,
            filled: 1,
            lines: 1,
            end,
            ..Zone::new(block, start)
        };
        let plan =
            ndq_query::Plan::compile("select count(*) where datetime(t) >= datetime('2026-01-01')")
                .unwrap();
        let range = plan.time_range().unwrap();
        let kept = [z(0, 0, 5, true), z(1, 5, 9, true), z(2, 9, 12, false)];
        assert_eq!(
            regions(&kept, Some(range), 20),
            [
                Region {
                    start: 0,
                    end: 9,
                    skip: Some((2, 2))
                },
                Region {
                    start: 9,
                    end: 20,
                    skip: None
                }
            ]
        );
        assert_eq!(
            regions(&kept, None, 12),
            [Region {
                start: 0,
                end: 12,
                skip: None
            }]
        );
    }
}
