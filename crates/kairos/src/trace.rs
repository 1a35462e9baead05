//! Binary event traces: a versioned header holding the scene, fixed-size little-endian event
//! records, and a footer that marks the file complete.
//!
//! The layout (documented for numpy in `docs/trace-format.md`):
//!
//! ```text
//! header  : magic "KAIROSTR", u32 version, u32 dim, u64 header_len, u32 record_size,
//!           u32 reserved, then u32 length + UTF-8 broad-phase name, u32 length + UTF-8 scene
//!           TOML, zero padding to header_len (a multiple of 8)
//! records : record_size (128) bytes each, see [`Record`]
//! footer  : magic "KAIROEND", u64 record count, u64 FNV-1a hash of the record bytes,
//!           f64 end time
//! ```
//!
//! A trace is written to a temporary file beside its destination and renamed into place only
//! after the footer is written and synced, so an interrupted run never leaves a file that reads
//! as complete; the reader also rejects a missing footer, a size that does not match the record
//! count, and a hash mismatch.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::event::{Event, EventKind};
use crate::math::Vector;
use crate::scene::Scene;
use crate::world::World;

/// First bytes of every trace.
pub const MAGIC: [u8; 8] = *b"KAIROSTR";
/// First bytes of the footer.
pub const FOOTER_MAGIC: [u8; 8] = *b"KAIROEND";
/// Format version written and read.
pub const VERSION: u32 = 1;
/// Size of one record in bytes.
pub const RECORD_SIZE: usize = 128;
/// Size of the footer in bytes.
pub const FOOTER_SIZE: usize = 32;
const FIXED_HEADER: usize = 32;

/// One processed event and the post-event state of the bodies involved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record {
    /// Event time.
    pub time: f64,
    /// Look-ahead of the broad phase that found it (`kaya-bvh`), else 0.
    pub dt: f64,
    /// Event kind.
    pub kind: EventKind,
    /// First body.
    pub a: u32,
    /// Second body (ball-ball) or wall id (ball-wall).
    pub b: u32,
    /// Position of body `a` after the event (z = 0 in 2D; unwrapped in a periodic box).
    pub pos_a: [f64; 3],
    /// Velocity of body `a` after the event.
    pub vel_a: [f64; 3],
    /// Position of body `b` after a ball-ball event; zeros for ball-wall.
    pub pos_b: [f64; 3],
    /// Velocity of body `b` after a ball-ball event; zeros for ball-wall.
    pub vel_b: [f64; 3],
}

impl Record {
    /// The record of `event` just processed in `world`.
    pub fn from_event<V: Vector>(event: &Event, world: &World<V>, dt: f64) -> Self {
        let ba = &world.bodies[event.a as usize];
        let (pos_b, vel_b) = match event.kind {
            EventKind::BallBall => {
                let bb = &world.bodies[event.b as usize];
                (
                    world.unwrapped_position(event.b).to_array3(),
                    bb.vel.to_array3(),
                )
            }
            EventKind::BallWall | EventKind::BoxCrossing => ([0.0; 3], [0.0; 3]),
        };
        Record {
            time: event.time,
            dt,
            kind: event.kind,
            a: event.a,
            b: event.b,
            pos_a: world.unwrapped_position(event.a).to_array3(),
            vel_a: ba.vel.to_array3(),
            pos_b,
            vel_b,
        }
    }

    /// True when both records describe the same event with bit-identical times and states
    /// (the broad phase's look-ahead `dt` is not compared).
    pub fn same_event(&self, other: &Record) -> bool {
        let mut a = self.to_bytes();
        let mut b = other.to_bytes();
        a[8..16].fill(0);
        b[8..16].fill(0);
        a == b
    }

    /// The little-endian encoding.
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut out = [0u8; RECORD_SIZE];
        out[0..8].copy_from_slice(&self.time.to_le_bytes());
        out[8..16].copy_from_slice(&self.dt.to_le_bytes());
        out[16..20].copy_from_slice(&self.kind.code().to_le_bytes());
        out[20..24].copy_from_slice(&self.a.to_le_bytes());
        out[24..28].copy_from_slice(&self.b.to_le_bytes());
        let vecs = [self.pos_a, self.vel_a, self.pos_b, self.vel_b];
        for (k, v) in vecs.iter().enumerate() {
            for (c, x) in v.iter().enumerate() {
                let o = 32 + 24 * k + 8 * c;
                out[o..o + 8].copy_from_slice(&x.to_le_bytes());
            }
        }
        out
    }

    /// Decodes a record; `None` for an unknown kind code.
    pub fn from_bytes(b: &[u8; RECORD_SIZE]) -> Option<Self> {
        let f = |o: usize| f64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        let u = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let v = |k: usize| [f(32 + 24 * k), f(40 + 24 * k), f(48 + 24 * k)];
        Some(Record {
            time: f(0),
            dt: f(8),
            kind: EventKind::from_code(u(16))?,
            a: u(20),
            b: u(24),
            pos_a: v(0),
            vel_a: v(1),
            pos_b: v(2),
            vel_b: v(3),
        })
    }
}

/// FNV-1a, 64-bit: the hash stored in the footer and used by determinism tests.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    /// Feeds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// The hash so far.
    pub fn value(&self) -> u64 {
        self.0
    }
}

/// What a trace holds besides its records.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceHeader {
    /// 2 or 3.
    pub dim: u32,
    /// Name of the broad phase that produced the trace.
    pub broad_phase: String,
    /// The simulated scene, as TOML.
    pub scene_toml: String,
}

impl TraceHeader {
    fn encode(&self) -> Vec<u8> {
        let mut h = Vec::new();
        h.extend_from_slice(&MAGIC);
        h.extend_from_slice(&VERSION.to_le_bytes());
        h.extend_from_slice(&self.dim.to_le_bytes());
        h.extend_from_slice(&0u64.to_le_bytes()); // header_len, patched below
        h.extend_from_slice(&(RECORD_SIZE as u32).to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        for s in [&self.broad_phase, &self.scene_toml] {
            h.extend_from_slice(&(s.len() as u32).to_le_bytes());
            h.extend_from_slice(s.as_bytes());
        }
        while h.len() % 8 != 0 {
            h.push(0);
        }
        let len = h.len() as u64;
        h[16..24].copy_from_slice(&len.to_le_bytes());
        h
    }

    /// Parses the scene held in the header.
    pub fn scene(&self) -> Result<Scene, TraceError> {
        Scene::from_toml_str(&self.scene_toml)
            .map_err(|e| TraceError::Corrupt(format!("embedded scene: {e}")))
    }
}

/// Why a trace could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// Reading failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The file does not start with the trace magic.
    #[error("not a Kairos trace (bad magic bytes)")]
    NotATrace,
    /// Written by an unknown version of the format.
    #[error("unsupported trace version {0} (this build reads version {VERSION})")]
    Version(u32),
    /// The footer is missing: the run that wrote it was interrupted or the file was cut.
    #[error("incomplete trace: {0}")]
    Incomplete(String),
    /// The content is inconsistent.
    #[error("corrupted trace: {0}")]
    Corrupt(String),
}

/// Streams records into a trace file; see the [module documentation](self).
pub struct TraceWriter {
    out: BufWriter<File>,
    tmp: PathBuf,
    dest: PathBuf,
    count: u64,
    hash: Fnv1a,
    done: bool,
}

impl TraceWriter {
    /// Starts a trace at `path` (written under a temporary name until [`TraceWriter::finish`]).
    pub fn create(path: &Path, header: &TraceHeader) -> io::Result<Self> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        let result = out.write_all(&header.encode());
        let writer = Self {
            out,
            tmp,
            dest: path.to_path_buf(),
            count: 0,
            hash: Fnv1a::default(),
            done: false,
        };
        result.map(|_| writer)
    }

    /// Appends one record.
    pub fn write(&mut self, r: &Record) -> io::Result<()> {
        let bytes = r.to_bytes();
        self.hash.update(&bytes);
        self.count += 1;
        self.out.write_all(&bytes)
    }

    /// Writes the footer, syncs and moves the file to its destination. Returns the record hash.
    pub fn finish(mut self, end_time: f64) -> io::Result<u64> {
        let mut footer = Vec::with_capacity(FOOTER_SIZE);
        footer.extend_from_slice(&FOOTER_MAGIC);
        footer.extend_from_slice(&self.count.to_le_bytes());
        footer.extend_from_slice(&self.hash.value().to_le_bytes());
        footer.extend_from_slice(&end_time.to_le_bytes());
        self.out.write_all(&footer)?;
        self.out.flush()?;
        self.out.get_ref().sync_all()?;
        std::fs::rename(&self.tmp, &self.dest)?;
        self.done = true;
        Ok(self.hash.value())
    }
}

impl Drop for TraceWriter {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Reads a trace record by record, checking its integrity.
pub struct TraceReader {
    input: BufReader<File>,
    header: TraceHeader,
    count: u64,
    read: u64,
    hash: Fnv1a,
    expected_hash: u64,
    end_time: f64,
}

fn read_exact_or(input: &mut impl Read, buf: &mut [u8], what: &str) -> Result<(), TraceError> {
    input.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => {
            TraceError::Incomplete(format!("file ends inside the {what}"))
        }
        _ => TraceError::Io(e),
    })
}

impl TraceReader {
    /// Opens a trace and checks its header and footer.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let mut file = File::open(path)?;
        let size = file.metadata()?.len();
        let mut fixed = [0u8; FIXED_HEADER];
        if size < 8 {
            return Err(TraceError::NotATrace);
        }
        read_exact_or(&mut file, &mut fixed[..8], "header")?;
        if fixed[..8] != MAGIC {
            return Err(TraceError::NotATrace);
        }
        read_exact_or(&mut file, &mut fixed[8..], "header")?;
        let u32_at = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let version = u32_at(&fixed, 8);
        if version != VERSION {
            return Err(TraceError::Version(version));
        }
        let dim = u32_at(&fixed, 12);
        let header_len = u64::from_le_bytes(fixed[16..24].try_into().unwrap());
        let record_size = u32_at(&fixed, 24);
        if dim != 2 && dim != 3 {
            return Err(TraceError::Corrupt(format!("dimension {dim}")));
        }
        if record_size as usize != RECORD_SIZE {
            return Err(TraceError::Corrupt(format!("record size {record_size}")));
        }
        if header_len < FIXED_HEADER as u64 || header_len > size {
            return Err(TraceError::Incomplete(format!(
                "header of {header_len} bytes in a file of {size}"
            )));
        }
        let mut rest = vec![0u8; header_len as usize - FIXED_HEADER];
        read_exact_or(&mut file, &mut rest, "header")?;
        let mut strings = Vec::new();
        let mut o = 0usize;
        for what in ["broad-phase name", "scene"] {
            let len = rest
                .get(o..o + 4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
                .ok_or_else(|| TraceError::Corrupt(format!("header too short for the {what}")))?;
            let bytes = rest
                .get(o + 4..o + 4 + len)
                .ok_or_else(|| TraceError::Corrupt(format!("header too short for the {what}")))?;
            let s = String::from_utf8(bytes.to_vec())
                .map_err(|_| TraceError::Corrupt(format!("the {what} is not UTF-8")))?;
            strings.push(s);
            o += 4 + len;
        }
        let scene_toml = strings.pop().unwrap();
        let broad_phase = strings.pop().unwrap();
        let body = size - header_len;
        if body < FOOTER_SIZE as u64 {
            return Err(TraceError::Incomplete(
                "no footer (the run was interrupted or the file cut)".into(),
            ));
        }
        file.seek(SeekFrom::End(-(FOOTER_SIZE as i64)))?;
        let mut footer = [0u8; FOOTER_SIZE];
        read_exact_or(&mut file, &mut footer, "footer")?;
        if footer[..8] != FOOTER_MAGIC {
            return Err(TraceError::Incomplete(
                "no footer (the run was interrupted or the file cut)".into(),
            ));
        }
        let count = u64::from_le_bytes(footer[8..16].try_into().unwrap());
        let expected_hash = u64::from_le_bytes(footer[16..24].try_into().unwrap());
        let end_time = f64::from_le_bytes(footer[24..32].try_into().unwrap());
        let records_bytes = body - FOOTER_SIZE as u64;
        if records_bytes % RECORD_SIZE as u64 != 0 || records_bytes / RECORD_SIZE as u64 != count {
            return Err(TraceError::Corrupt(format!(
                "footer says {count} records but {records_bytes} bytes of records are present"
            )));
        }
        file.seek(SeekFrom::Start(header_len))?;
        Ok(Self {
            input: BufReader::with_capacity(1 << 20, file),
            header: TraceHeader {
                dim,
                broad_phase,
                scene_toml,
            },
            count,
            read: 0,
            hash: Fnv1a::default(),
            expected_hash,
            end_time,
        })
    }

    /// The header.
    pub fn header(&self) -> &TraceHeader {
        &self.header
    }
    /// Number of records.
    pub fn len(&self) -> u64 {
        self.count
    }
    /// True when the trace holds no event.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// The simulated end time.
    pub fn end_time(&self) -> f64 {
        self.end_time
    }
    /// The record hash stored in the footer.
    pub fn hash(&self) -> u64 {
        self.expected_hash
    }

    /// The next record; `Ok(None)` after the last one, once the hash has been verified.
    pub fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        if self.read == self.count {
            if self.hash.value() != self.expected_hash {
                return Err(TraceError::Corrupt(
                    "record hash does not match the footer".into(),
                ));
            }
            return Ok(None);
        }
        let mut buf = [0u8; RECORD_SIZE];
        read_exact_or(&mut self.input, &mut buf, "records")?;
        self.hash.update(&buf);
        let index = self.read;
        self.read += 1;
        let r = Record::from_bytes(&buf).ok_or_else(|| {
            TraceError::Corrupt(format!("record {index} has an unknown event kind"))
        })?;
        if !r.time.is_finite() {
            return Err(TraceError::Corrupt(format!(
                "record {index} has a non-finite time"
            )));
        }
        Ok(Some(r))
    }

    /// Reads every remaining record (verifying the hash).
    pub fn read_all(mut self) -> Result<(TraceHeader, Vec<Record>), TraceError> {
        let mut v = Vec::with_capacity(self.count.min(1 << 24) as usize);
        while let Some(r) = self.next_record()? {
            v.push(r);
        }
        Ok((self.header, v))
    }
}
