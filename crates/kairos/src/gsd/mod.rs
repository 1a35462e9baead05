//! GSD files (the General Simulation Data format of HOOMD-blue, file layout version 2.0):
//! a writer, a reader, and the HOOMD schema ([`hoomd`]) that `kairos frames --format gsd`
//! writes for HOOMD-blue, freud, OVITO and MDAnalysis.
//!
//! # The file layer
//!
//! A GSD file is a sequence of *frames*, each a set of named *chunks*: an `N × M` matrix of one
//! element type ([`GsdType`]), stored row major, little endian. Its blocks:
//!
//! ```text
//! header   : 256 bytes at offset 0: u64 magic 0x65DF65DF65DF65DF, u64 index location,
//!            u64 index entries allocated, u64 name list location, u64 name list size / 64,
//!            u32 schema version, u32 file layout version (major << 16 | minor), 64 bytes
//!            application name, 64 bytes schema name (both NUL terminated), 80 reserved bytes
//! index    : 32-byte entries (u64 frame, u64 N, i64 location, u32 M, u16 name id, u8 type,
//!            u8 flags = 0), sorted by frame then name id; the first entry whose location is
//!            0 ends the list
//! names    : the chunk names, each NUL terminated, in the order of their ids; an empty name
//!            ends the list; the block is a multiple of 64 bytes and ends with a NUL
//! data     : the chunks' bytes, anywhere after the header
//! ```
//!
//! [`GsdWriter`] starts a file with room for 128 index entries and 1 KiB of names after the
//! header, appends every chunk's data at the end of the file, and at the end of each frame
//! writes the frame's index entries (and its new names) into those blocks; when a block is
//! full, a block twice as large is written at the end of the file and the header points to
//! it (the old block stays as unused bytes). After every [`GsdWriter::end_frame`] the bytes
//! written so far are a valid GSD file of the frames ended so far. [`GsdWriter::create`]
//! writes through an [`AtomicWriter`]: the file appears at its path only when
//! [`GsdWriter::commit`] succeeds, so an interrupted run never leaves a file that reads as
//! complete.
//!
//! [`GsdReader`] opens a file, checks its header, name list and every index entry (known
//! type, data inside the file, frames in order, flags zero) and reads chunks by frame and
//! name. Every problem is a [`GsdError`] naming the file; no input makes it panic or allocate
//! more than the file's size.
//!
//! ```
//! use kairos::gsd::{GsdReader, GsdType, GsdWriter};
//! let dir = std::env::temp_dir().join(format!("kairos-gsd-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("a.gsd");
//! let mut w = GsdWriter::create(&path, "example", "hoomd", (1, 4)).unwrap();
//! w.write("particles/position", 2, 3, &[0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
//! w.write_strings("particles/types", &["A", "BB"]).unwrap();
//! w.end_frame().unwrap();
//! w.commit().unwrap();
//!
//! let r = GsdReader::open(&path).unwrap();
//! assert_eq!(r.frame_count(), 1);
//! let c = r.read_chunk(0, "particles/position").unwrap().unwrap();
//! assert_eq!((c.kind, c.n, c.m), (GsdType::Float32, 2, 3));
//! assert_eq!(c.values::<f32>().unwrap()[4], 4.0);
//! let types = r.read_chunk(0, "particles/types").unwrap().unwrap();
//! assert_eq!(types.strings().unwrap(), ["A", "BB"]);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

pub mod hoomd;
mod reader;
mod shapes;
#[cfg(test)]
mod tests;

pub use reader::{ChunkInfo, GsdReader};

use std::collections::HashMap;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::atomic::AtomicWriter;

/// The magic number that starts every GSD file.
pub const MAGIC: u64 = 0x65DF_65DF_65DF_65DF;
/// Size of the header block in bytes.
pub const HEADER_SIZE: u64 = 256;
/// Size of an index entry in bytes.
pub const ENTRY_SIZE: u64 = 32;
/// The name list block is a multiple of this many bytes.
pub const NAME_BLOCK: u64 = 64;
/// Index entries a new file has room for.
pub const INITIAL_INDEX_ENTRIES: u64 = 128;
/// Bytes of names a new file has room for.
pub const INITIAL_NAME_BYTES: u64 = 1024;
/// The most distinct chunk names a file can hold (name ids are 16-bit, `0xFFFF` excluded).
pub const MAX_NAMES: usize = 0xFFFF;
/// The file layout version this module writes: 2.0.
pub const VERSION: (u16, u16) = (2, 0);

/// A version `(major, minor)` as the header stores it: `major << 16 | minor`.
#[must_use]
pub fn pack_version((major, minor): (u16, u16)) -> u32 {
    (u32::from(major) << 16) | u32::from(minor)
}

/// The `(major, minor)` of a version the header stores.
#[must_use]
pub fn unpack_version(v: u32) -> (u16, u16) {
    ((v >> 16) as u16, (v & 0xFFFF) as u16)
}

/// The element type of a chunk, with the code its index entry stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum GsdType {
    /// `u8`.
    Uint8 = 1,
    /// `u16`.
    Uint16 = 2,
    /// `u32`.
    Uint32 = 3,
    /// `u64`.
    Uint64 = 4,
    /// `i8` (the HOOMD schema's strings: rows of NUL-padded UTF-8).
    Int8 = 5,
    /// `i16`.
    Int16 = 6,
    /// `i32`.
    Int32 = 7,
    /// `i64`.
    Int64 = 8,
    /// `f32`.
    Float32 = 9,
    /// `f64`.
    Float64 = 10,
    /// A UTF-8 character (file layout 2.1 and later).
    Character = 11,
}

impl GsdType {
    /// The type of an index entry's code, `None` for an unknown code.
    #[must_use]
    pub fn from_code(code: u8) -> Option<Self> {
        use GsdType::*;
        Some(match code {
            1 => Uint8,
            2 => Uint16,
            3 => Uint32,
            4 => Uint64,
            5 => Int8,
            6 => Int16,
            7 => Int32,
            8 => Int64,
            9 => Float32,
            10 => Float64,
            11 => Character,
            _ => return None,
        })
    }
    /// Size of one element in bytes.
    #[must_use]
    pub fn size(self) -> u64 {
        use GsdType::*;
        match self {
            Uint8 | Int8 | Character => 1,
            Uint16 | Int16 => 2,
            Uint32 | Int32 | Float32 => 4,
            Uint64 | Int64 | Float64 => 8,
        }
    }
    /// The type's name in the GSD documentation (`uint8`, `float`, `double`, ...).
    #[must_use]
    pub fn name(self) -> &'static str {
        use GsdType::*;
        match self {
            Uint8 => "uint8",
            Uint16 => "uint16",
            Uint32 => "uint32",
            Uint64 => "uint64",
            Int8 => "int8",
            Int16 => "int16",
            Int32 => "int32",
            Int64 => "int64",
            Float32 => "float",
            Float64 => "double",
            Character => "char",
        }
    }
}

/// A number type a chunk can hold, with its [`GsdType`] and little-endian bytes.
pub trait Element: Copy {
    /// The chunk type of this element type.
    const KIND: GsdType;
    /// Appends the element's little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// The element of little-endian `bytes` ([`GsdType::size`] of them).
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! element {
    ($t:ty, $kind:ident) => {
        impl Element for $t {
            const KIND: GsdType = GsdType::$kind;
            #[inline]
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn get(bytes: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&bytes[..std::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(a)
            }
        }
    };
}
element!(u8, Uint8);
element!(u16, Uint16);
element!(u32, Uint32);
element!(u64, Uint64);
element!(i8, Int8);
element!(i16, Int16);
element!(i32, Int32);
element!(i64, Int64);
element!(f32, Float32);
element!(f64, Float64);

/// A chunk read from a file: its type, shape `n × m` and little-endian bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// Element type.
    pub kind: GsdType,
    /// Rows.
    pub n: u64,
    /// Columns.
    pub m: u32,
    /// The `n m` elements, row major, little endian.
    pub data: Vec<u8>,
}

impl Chunk {
    /// The elements, row major; `None` when the chunk holds another type.
    #[must_use]
    pub fn values<T: Element>(&self) -> Option<Vec<T>> {
        if self.kind != T::KIND {
            return None;
        }
        let size = T::KIND.size() as usize;
        Some(self.data.chunks_exact(size).map(T::get).collect())
    }
    /// The rows of a string chunk (`int8`, `uint8` or `char`), each up to its first NUL, as
    /// UTF-8 (invalid bytes replaced); `None` for a chunk of numbers.
    #[must_use]
    pub fn strings(&self) -> Option<Vec<String>> {
        if !matches!(
            self.kind,
            GsdType::Int8 | GsdType::Uint8 | GsdType::Character
        ) {
            return None;
        }
        let m = self.m.max(1) as usize;
        Some(
            self.data
                .chunks(m)
                .map(|row| {
                    let end = row.iter().position(|&b| b == 0).unwrap_or(row.len());
                    String::from_utf8_lossy(&row[..end]).into_owned()
                })
                .collect(),
        )
    }
}

/// Why a GSD file could not be written or read. Every message starts with the file's name.
#[derive(Debug, thiserror::Error)]
pub enum GsdError {
    /// The operating system refused (`action` is `cannot create`, `write failed`, `cannot
    /// open`, `read failed`).
    #[error("{}: {action}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        action: &'static str,
        /// The system's error.
        source: io::Error,
    },
    /// The file does not start with a GSD header.
    #[error("{}: not a GSD file: {reason}", path.display())]
    NotGsd {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The file's layout version is one this reader does not read.
    #[error(
        "{}: GSD file layout version {}.{} is not supported (this reader reads 1.x and 2.x)",
        path.display(), version.0, version.1
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in its header.
        version: (u16, u16),
    },
    /// The file is damaged or truncated.
    #[error("{}: corrupt GSD file: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A write that the format cannot hold (a wrong data length, a name written twice in a
    /// frame, an empty frame, too many names, a number beyond `f32`).
    #[error("{}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// The header block.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Header {
    pub index_location: u64,
    pub index_entries: u64,
    pub namelist_location: u64,
    /// Size of the name list in [`NAME_BLOCK`]s.
    pub namelist_blocks: u64,
    pub schema_version: u32,
    pub version: u32,
    pub application: String,
    pub schema: String,
}

/// A NUL-terminated string field of 64 bytes (truncated to 63 bytes at a character boundary).
fn put_name(out: &mut Vec<u8>, s: &str) {
    let mut end = s.len().min(63);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let mut field = [0u8; 64];
    field[..end].copy_from_slice(&s.as_bytes()[..end]);
    out.extend_from_slice(&field);
}

impl Header {
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_SIZE as usize);
        for x in [
            MAGIC,
            self.index_location,
            self.index_entries,
            self.namelist_location,
            self.namelist_blocks,
        ] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&self.schema_version.to_le_bytes());
        out.extend_from_slice(&self.version.to_le_bytes());
        put_name(&mut out, &self.application);
        put_name(&mut out, &self.schema);
        out.resize(HEADER_SIZE as usize, 0);
        out
    }
}

/// An index entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub frame: u64,
    pub n: u64,
    pub location: u64,
    pub m: u32,
    pub id: u16,
    pub kind: u8,
    pub flags: u8,
}

impl Entry {
    pub(crate) fn to_bytes(self) -> [u8; ENTRY_SIZE as usize] {
        let mut b = [0u8; ENTRY_SIZE as usize];
        b[0..8].copy_from_slice(&self.frame.to_le_bytes());
        b[8..16].copy_from_slice(&self.n.to_le_bytes());
        b[16..24].copy_from_slice(&self.location.to_le_bytes());
        b[24..28].copy_from_slice(&self.m.to_le_bytes());
        b[28..30].copy_from_slice(&self.id.to_le_bytes());
        b[30] = self.kind;
        b[31] = self.flags;
        b
    }
    pub(crate) fn from_bytes(b: &[u8]) -> Self {
        let u64_at = |k: usize| u64::get(&b[k..k + 8]);
        Self {
            frame: u64_at(0),
            n: u64_at(8),
            location: u64_at(16),
            m: u32::get(&b[24..28]),
            id: u16::get(&b[28..30]),
            kind: b[30],
            flags: b[31],
        }
    }
}

/// Writes a GSD file (layout 2.0): chunks appended frame by frame (see the
/// [module documentation](self)).
///
/// Writing goes to `W` at the offsets the layout needs (it seeks back to update the index,
/// the name list and the header), so `W` is a file or an [`AtomicWriter`], not a pipe.
pub struct GsdWriter<W: Write + Seek> {
    out: W,
    path: PathBuf,
    header: Header,
    /// The entries of the frames ended so far (on disk).
    index: Vec<Entry>,
    /// The entries of the frame being written.
    pending: Vec<Entry>,
    names: Vec<String>,
    ids: HashMap<String, u16>,
    /// How many of `names` the file's name list holds, and their bytes.
    names_written: usize,
    name_bytes: u64,
    /// Length of the file, and where `out` stands.
    end: u64,
    pos: u64,
    frame: u64,
}

impl GsdWriter<AtomicWriter> {
    /// Starts the GSD file `path` (through an [`AtomicWriter`]: it appears only on
    /// [`GsdWriter::commit`]) for `application` (truncated to 63 bytes) and data of `schema`
    /// version `schema_version`.
    ///
    /// # Errors
    ///
    /// [`GsdError::Io`] when the file cannot be created or written.
    pub fn create(
        path: &Path,
        application: &str,
        schema: &str,
        schema_version: (u16, u16),
    ) -> Result<Self, GsdError> {
        let out = AtomicWriter::create(path).map_err(|source| GsdError::Io {
            path: path.to_path_buf(),
            action: "cannot create",
            source,
        })?;
        Self::new(out, path, application, schema, schema_version)
    }

    /// Ends an open frame (when it has chunks), then flushes, syncs and moves the file into
    /// place.
    ///
    /// # Errors
    ///
    /// [`GsdError::Io`] when the last writes fail; the file is then not created.
    pub fn commit(self) -> Result<(), GsdError> {
        let path = self.path.clone();
        self.finish()?.commit().map_err(|source| GsdError::Io {
            path,
            action: "write failed",
            source,
        })
    }
}

impl<W: Write + Seek> GsdWriter<W> {
    /// Starts a GSD file in `out` (from its offset 0 on), named `path` in messages.
    ///
    /// # Errors
    ///
    /// [`GsdError::Io`] when writing the empty header, index and name list fails.
    pub fn new(
        out: W,
        path: &Path,
        application: &str,
        schema: &str,
        schema_version: (u16, u16),
    ) -> Result<Self, GsdError> {
        let header = Header {
            index_location: HEADER_SIZE,
            index_entries: INITIAL_INDEX_ENTRIES,
            namelist_location: HEADER_SIZE + INITIAL_INDEX_ENTRIES * ENTRY_SIZE,
            namelist_blocks: INITIAL_NAME_BYTES / NAME_BLOCK,
            schema_version: pack_version(schema_version),
            version: pack_version(VERSION),
            application: application.to_string(),
            schema: schema.to_string(),
        };
        let mut w = Self {
            out,
            path: path.to_path_buf(),
            header,
            index: Vec::new(),
            pending: Vec::new(),
            names: Vec::new(),
            ids: HashMap::new(),
            names_written: 0,
            name_bytes: 0,
            end: 0,
            pos: u64::MAX,
            frame: 0,
        };
        let mut start = w.header.to_bytes();
        start.resize(
            (HEADER_SIZE + INITIAL_INDEX_ENTRIES * ENTRY_SIZE + INITIAL_NAME_BYTES) as usize,
            0,
        );
        w.write_at(0, &start)?;
        Ok(w)
    }

    /// The number of frames ended so far.
    pub fn frame_count(&self) -> u64 {
        self.frame
    }

    /// The error of a write the format cannot hold.
    fn invalid(&self, reason: impl Into<String>) -> GsdError {
        GsdError::Invalid {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    /// Writes `bytes` at offset `at`, seeking only when `out` stands elsewhere.
    fn write_at(&mut self, at: u64, bytes: &[u8]) -> Result<(), GsdError> {
        let io = |source| GsdError::Io {
            path: self.path.clone(),
            action: "write failed",
            source,
        };
        if self.pos != at {
            // Unknown after a failed write or seek.
            self.pos = u64::MAX;
            self.out.seek(SeekFrom::Start(at)).map_err(io)?;
        }
        self.pos = u64::MAX;
        self.out.write_all(bytes).map_err(io)?;
        self.pos = at + bytes.len() as u64;
        self.end = self.end.max(self.pos);
        Ok(())
    }

    /// Writes a chunk of `n × m` elements of type `kind` (`data` holds their little-endian
    /// bytes, row major) to the current frame.
    ///
    /// # Errors
    ///
    /// [`GsdError::Invalid`] for an empty name or one with a NUL byte, `m = 0`, a `data`
    /// length other than `n m` elements, a name already written in this frame, or a new name
    /// beyond [`MAX_NAMES`]; [`GsdError::Io`] when writing fails.
    pub fn write_chunk(
        &mut self,
        name: &str,
        kind: GsdType,
        n: u64,
        m: u32,
        data: &[u8],
    ) -> Result<(), GsdError> {
        if name.is_empty() || name.contains('\0') {
            return Err(self.invalid(format!(
                "chunk name {name:?} must be non-empty, without NUL bytes"
            )));
        }
        if m == 0 {
            return Err(self.invalid(format!("chunk {name}: M must be at least 1")));
        }
        let expected = n
            .checked_mul(u64::from(m))
            .and_then(|e| e.checked_mul(kind.size()));
        if expected != Some(data.len() as u64) {
            return Err(self.invalid(format!(
                "chunk {name}: {} bytes given for {n} x {m} elements of {} ({} bytes each)",
                data.len(),
                kind.name(),
                kind.size()
            )));
        }
        let id = match self.ids.get(name) {
            Some(&id) => {
                if self.pending.iter().any(|e| e.id == id) {
                    return Err(self.invalid(format!(
                        "chunk {name} written twice in frame {}",
                        self.frame
                    )));
                }
                id
            }
            None => {
                if self.names.len() >= MAX_NAMES {
                    return Err(self.invalid(format!(
                        "chunk {name}: a GSD file holds at most {MAX_NAMES} distinct chunk names"
                    )));
                }
                let id = self.names.len() as u16;
                self.names.push(name.to_string());
                self.ids.insert(name.to_string(), id);
                id
            }
        };
        let location = self.end;
        self.write_at(location, data)?;
        self.pending.push(Entry {
            frame: self.frame,
            n,
            location,
            m,
            id,
            kind: kind as u8,
            flags: 0,
        });
        Ok(())
    }

    /// Writes a chunk of `n × m` numbers (`values.len()` must be `n m`).
    ///
    /// # Errors
    ///
    /// As [`GsdWriter::write_chunk`].
    pub fn write<T: Element>(
        &mut self,
        name: &str,
        n: u64,
        m: u32,
        values: &[T],
    ) -> Result<(), GsdError> {
        let mut bytes = Vec::with_capacity(values.len() * T::KIND.size() as usize);
        for &v in values {
            v.put(&mut bytes);
        }
        self.write_chunk(name, T::KIND, n, m, &bytes)
    }

    /// Writes strings as the HOOMD schema stores them (`particles/types`,
    /// `particles/type_shapes`): an `int8` chunk of one row per string, each row the string's
    /// UTF-8 bytes padded with NULs to the longest string's length plus one.
    ///
    /// # Errors
    ///
    /// [`GsdError::Invalid`] for a string holding a NUL byte or longer than `u32::MAX - 1`
    /// bytes, and as [`GsdWriter::write_chunk`].
    pub fn write_strings<S: AsRef<str>>(&mut self, name: &str, rows: &[S]) -> Result<(), GsdError> {
        if let Some(s) = rows.iter().find(|s| s.as_ref().contains('\0')) {
            return Err(self.invalid(format!(
                "chunk {name}: the string {:?} holds a NUL byte",
                s.as_ref()
            )));
        }
        let longest = rows.iter().map(|s| s.as_ref().len()).max().unwrap_or(0);
        let m = u32::try_from(longest + 1)
            .map_err(|_| self.invalid(format!("chunk {name}: a string is too long")))?;
        let mut bytes = vec![0u8; rows.len() * m as usize];
        for (row, s) in bytes.chunks_mut(m as usize).zip(rows) {
            row[..s.as_ref().len()].copy_from_slice(s.as_ref().as_bytes());
        }
        self.write_chunk(name, GsdType::Int8, rows.len() as u64, m, &bytes)
    }

    /// Ends the current frame: writes its new names and its index entries (growing either
    /// block at the end of the file when full) and the header when a block moved.
    ///
    /// # Errors
    ///
    /// [`GsdError::Invalid`] for a frame without chunks (the layout cannot store one);
    /// [`GsdError::Io`] when writing fails.
    pub fn end_frame(&mut self) -> Result<(), GsdError> {
        if self.pending.is_empty() {
            return Err(self.invalid(format!(
                "frame {} has no chunks: a GSD frame needs at least one",
                self.frame
            )));
        }
        let mut moved = self.write_names()?;
        self.pending.sort_by_key(|e| e.id);
        let needed = (self.index.len() + self.pending.len()) as u64;
        if needed > self.header.index_entries {
            let mut capacity = self.header.index_entries.max(1) * 2;
            while capacity < needed {
                capacity *= 2;
            }
            let mut block = Vec::with_capacity((capacity * ENTRY_SIZE) as usize);
            for e in &self.index {
                block.extend_from_slice(&e.to_bytes());
            }
            block.resize((capacity * ENTRY_SIZE) as usize, 0);
            let at = self.end;
            self.write_at(at, &block)?;
            self.header.index_location = at;
            self.header.index_entries = capacity;
            moved = true;
        }
        let mut entries = Vec::with_capacity(self.pending.len() * ENTRY_SIZE as usize);
        for e in &self.pending {
            entries.extend_from_slice(&e.to_bytes());
        }
        let at = self.header.index_location + self.index.len() as u64 * ENTRY_SIZE;
        self.write_at(at, &entries)?;
        if moved {
            let header = self.header.to_bytes();
            self.write_at(0, &header)?;
        }
        self.index.append(&mut self.pending);
        self.frame += 1;
        Ok(())
    }

    /// Writes the names added in this frame to the name list, moving it to the end of the
    /// file, twice as large (or more), when they do not fit; true when it moved.
    fn write_names(&mut self) -> Result<bool, GsdError> {
        if self.names_written == self.names.len() {
            return Ok(false);
        }
        let mut new = Vec::new();
        for name in &self.names[self.names_written..] {
            new.extend_from_slice(name.as_bytes());
            new.push(0);
        }
        let used = self.name_bytes + new.len() as u64;
        let capacity = self.header.namelist_blocks * NAME_BLOCK;
        // One NUL byte always follows the last name: the empty name that ends the list.
        let moved = if used < capacity {
            let at = self.header.namelist_location + self.name_bytes;
            self.write_at(at, &new)?;
            false
        } else {
            let mut size = capacity.max(NAME_BLOCK) * 2;
            while size <= used {
                size *= 2;
            }
            let mut block = Vec::with_capacity(size as usize);
            for name in &self.names {
                block.extend_from_slice(name.as_bytes());
                block.push(0);
            }
            block.resize(size as usize, 0);
            let at = self.end;
            self.write_at(at, &block)?;
            self.header.namelist_location = at;
            self.header.namelist_blocks = size / NAME_BLOCK;
            true
        };
        self.name_bytes = used;
        self.names_written = self.names.len();
        Ok(moved)
    }

    /// Ends an open frame (when it has chunks), flushes and returns the output.
    ///
    /// # Errors
    ///
    /// [`GsdError::Io`] when the last writes fail.
    pub fn finish(mut self) -> Result<W, GsdError> {
        if !self.pending.is_empty() {
            self.end_frame()?;
        }
        self.out.flush().map_err(|source| GsdError::Io {
            path: self.path.clone(),
            action: "write failed",
            source,
        })?;
        Ok(self.out)
    }
}
