//! [`GsdReader`]: a GSD file's header, names and index, checked when opened, and its chunks
//! read on demand.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::{
    unpack_version, Chunk, Element, Entry, GsdError, GsdType, Header, ENTRY_SIZE, HEADER_SIZE,
    MAGIC, NAME_BLOCK,
};

/// What the index says of a chunk: its name, type and shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkInfo {
    /// The chunk's name.
    pub name: String,
    /// Element type.
    pub kind: GsdType,
    /// Rows.
    pub n: u64,
    /// Columns.
    pub m: u32,
}

/// A GSD file opened for reading (layout versions 1.x and 2.x).
///
/// [`GsdReader::open`] reads and checks the header, the name list and every index entry, so
/// that every later read is of bytes inside the file; chunks are read from the file when asked
/// for.
#[derive(Debug)]
pub struct GsdReader {
    file: File,
    path: PathBuf,
    pub(super) header: Header,
    names: Vec<String>,
    index: Vec<Entry>,
    frames: u64,
}

/// A string field of the header: its bytes up to the first NUL.
fn field(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

impl GsdReader {
    /// Opens and checks the GSD file `path`.
    ///
    /// # Errors
    ///
    /// [`GsdError::Io`] when the file cannot be opened or read; [`GsdError::NotGsd`] for a
    /// file shorter than a header or without the magic number; [`GsdError::Version`] for a
    /// layout version other than 1.x and 2.x; [`GsdError::Corrupt`] for a name list or index
    /// outside the file, a name list without its final NUL, or an index entry of an unknown
    /// type, with data past the end of the file, an unknown name, non-zero flags, zero
    /// columns or frames out of order.
    pub fn open(path: &Path) -> Result<Self, GsdError> {
        let io = |action: &'static str| {
            move |source| GsdError::Io {
                path: path.to_path_buf(),
                action,
                source,
            }
        };
        let corrupt = |reason: String| GsdError::Corrupt {
            path: path.to_path_buf(),
            reason,
        };
        let mut file = File::open(path).map_err(io("cannot open"))?;
        let size = file.metadata().map_err(io("cannot open"))?.len();
        if size < HEADER_SIZE {
            return Err(GsdError::NotGsd {
                path: path.to_path_buf(),
                reason: format!("{size} bytes, less than the {HEADER_SIZE} bytes of a header"),
            });
        }
        let mut h = [0u8; HEADER_SIZE as usize];
        file.read_exact(&mut h).map_err(io("read failed"))?;
        let word = |k: usize| u64::get(&h[8 * k..8 * k + 8]);
        if word(0) != MAGIC {
            return Err(GsdError::NotGsd {
                path: path.to_path_buf(),
                reason: "no GSD magic number at its start".into(),
            });
        }
        let header = Header {
            index_location: word(1),
            index_entries: word(2),
            namelist_location: word(3),
            namelist_blocks: word(4),
            schema_version: u32::get(&h[40..44]),
            version: u32::get(&h[44..48]),
            application: field(&h[48..112]),
            schema: field(&h[112..176]),
        };
        let version = unpack_version(header.version);
        if !(1..=2).contains(&version.0) {
            return Err(GsdError::Version {
                path: path.to_path_buf(),
                version,
            });
        }
        // Both blocks inside the file (so that reading them allocates at most its size).
        let inside = |location: u64, count: u64, each: u64| {
            count
                .checked_mul(each)
                .and_then(|len| location.checked_add(len))
                .is_some_and(|end| end <= size)
        };
        if !inside(header.namelist_location, header.namelist_blocks, NAME_BLOCK) {
            return Err(corrupt(format!(
                "its name list ({} bytes at offset {}) runs past the end of the file ({size} \
                 bytes)",
                header.namelist_blocks.saturating_mul(NAME_BLOCK),
                header.namelist_location
            )));
        }
        if !inside(header.index_location, header.index_entries, ENTRY_SIZE) {
            return Err(corrupt(format!(
                "its index ({} entries at offset {}) runs past the end of the file ({size} \
                 bytes)",
                header.index_entries, header.index_location
            )));
        }
        let read_block = |file: &mut File, at: u64, len: u64| -> Result<Vec<u8>, GsdError> {
            let mut b = vec![0u8; len as usize];
            file.seek(SeekFrom::Start(at))
                .and_then(|_| file.read_exact(&mut b))
                .map_err(io("read failed"))?;
            Ok(b)
        };
        let list = read_block(
            &mut file,
            header.namelist_location,
            header.namelist_blocks * NAME_BLOCK,
        )?;
        if list.last().is_some_and(|&b| b != 0) {
            return Err(corrupt("its name list does not end with a NUL byte".into()));
        }
        let mut names = Vec::new();
        if version.0 == 1 {
            // Version 1: names in fixed 64-byte fields.
            for f in list.chunks(NAME_BLOCK as usize) {
                if f[0] == 0 {
                    break;
                }
                names.push(field(f));
            }
        } else {
            for name in list.split(|&b| b == 0) {
                if name.is_empty() {
                    break;
                }
                names.push(String::from_utf8_lossy(name).into_owned());
            }
        }
        let block = read_block(
            &mut file,
            header.index_location,
            header.index_entries * ENTRY_SIZE,
        )?;
        let mut index = Vec::new();
        for (k, b) in block.chunks_exact(ENTRY_SIZE as usize).enumerate() {
            let e = Entry::from_bytes(b);
            if e.location == 0 {
                break;
            }
            let bad =
                |what: String| corrupt(format!("index entry {k} (frame {}): {what}", e.frame));
            let Some(kind) = GsdType::from_code(e.kind) else {
                return Err(bad(format!("unknown type code {}", e.kind)));
            };
            if e.flags != 0 {
                return Err(bad(format!("flags {} (must be 0)", e.flags)));
            }
            if e.m == 0 {
                return Err(bad("zero columns".into()));
            }
            let name = names.get(usize::from(e.id)).ok_or_else(|| {
                bad(format!(
                    "name id {} beyond the {} names of the file",
                    e.id,
                    names.len()
                ))
            })?;
            let fits =
                e.n.checked_mul(u64::from(e.m))
                    .and_then(|c| c.checked_mul(kind.size()))
                    .and_then(|len| e.location.checked_add(len))
                    .is_some_and(|end| end <= size);
            if !fits {
                return Err(bad(format!(
                    "chunk {name} ({} x {} {}) at offset {} runs past the end of the file \
                     ({size} bytes): the file is truncated",
                    e.n,
                    e.m,
                    kind.name(),
                    e.location
                )));
            }
            if e.frame >= header.index_entries {
                return Err(bad(format!(
                    "frame {} beyond the index's {} entries",
                    e.frame, header.index_entries
                )));
            }
            if let Some(p) = index.last() {
                let p: &Entry = p;
                let sorted = if version.0 >= 2 {
                    (p.frame, p.id) <= (e.frame, e.id)
                } else {
                    p.frame <= e.frame
                };
                if !sorted {
                    return Err(bad("entries out of order".into()));
                }
            }
            index.push(e);
        }
        let frames = index.last().map_or(0, |e| e.frame + 1);
        Ok(Self {
            file,
            path: path.to_path_buf(),
            header,
            names,
            index,
            frames,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The application that wrote the file.
    pub fn application(&self) -> &str {
        &self.header.application
    }
    /// The schema of its data (`hoomd` for HOOMD-blue's).
    pub fn schema(&self) -> &str {
        &self.header.schema
    }
    /// The schema's version `(major, minor)`.
    pub fn schema_version(&self) -> (u16, u16) {
        unpack_version(self.header.schema_version)
    }
    /// The file layout version `(major, minor)`.
    pub fn version(&self) -> (u16, u16) {
        unpack_version(self.header.version)
    }
    /// The number of frames.
    pub fn frame_count(&self) -> u64 {
        self.frames
    }
    /// Every chunk name of the file, by id.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The index entries of `frame` (empty for a frame without chunks or beyond the last).
    fn entries(&self, frame: u64) -> &[Entry] {
        let from = self.index.partition_point(|e| e.frame < frame);
        let to = self.index.partition_point(|e| e.frame <= frame);
        &self.index[from..to]
    }

    fn info(&self, e: &Entry) -> ChunkInfo {
        ChunkInfo {
            name: self.names[usize::from(e.id)].clone(),
            // Checked when the file was opened.
            kind: GsdType::from_code(e.kind).unwrap_or(GsdType::Uint8),
            n: e.n,
            m: e.m,
        }
    }

    /// The chunks of `frame`, in the order of the index.
    pub fn chunks(&self, frame: u64) -> Vec<ChunkInfo> {
        self.entries(frame).iter().map(|e| self.info(e)).collect()
    }

    fn find_entry(&self, frame: u64, name: &str) -> Option<&Entry> {
        let id = self.names.iter().position(|n| n == name)?;
        self.entries(frame).iter().find(|e| usize::from(e.id) == id)
    }

    /// The chunk `name` of `frame`, if the frame has it.
    pub fn find(&self, frame: u64, name: &str) -> Option<ChunkInfo> {
        self.find_entry(frame, name).map(|e| self.info(e))
    }

    fn read_entry(&self, e: &Entry) -> Result<Chunk, GsdError> {
        let info = self.info(e);
        // In bounds of the file (checked when opened), so this fits in memory.
        let len = e.n * u64::from(e.m) * info.kind.size();
        let mut data = vec![0u8; len as usize];
        let mut f = &self.file;
        f.seek(SeekFrom::Start(e.location))
            .and_then(|_| f.read_exact(&mut data))
            .map_err(|source| GsdError::Io {
                path: self.path.clone(),
                action: "read failed",
                source,
            })?;
        Ok(Chunk {
            kind: info.kind,
            n: e.n,
            m: e.m,
            data,
        })
    }

    /// Reads the chunk `name` of `frame`; `None` when the frame does not have it.
    ///
    /// # Errors
    ///
    /// [`GsdError::Io`] when reading fails (a file cut short since it was opened).
    pub fn read_chunk(&self, frame: u64, name: &str) -> Result<Option<Chunk>, GsdError> {
        self.find_entry(frame, name)
            .map(|e| self.read_entry(e))
            .transpose()
    }

    /// Reads the chunk `name` of `frame` as the HOOMD schema defines it: from `frame`, or,
    /// when that frame does not have it, from frame 0.
    ///
    /// # Errors
    ///
    /// As [`GsdReader::read_chunk`].
    pub fn read_with_fallback(&self, frame: u64, name: &str) -> Result<Option<Chunk>, GsdError> {
        match self.read_chunk(frame, name)? {
            Some(c) => Ok(Some(c)),
            None if frame < self.frames => self.read_chunk(0, name),
            None => Ok(None),
        }
    }

    /// Reads every chunk of `frame`, by name.
    ///
    /// # Errors
    ///
    /// As [`GsdReader::read_chunk`].
    pub fn read_frame(&self, frame: u64) -> Result<BTreeMap<String, Chunk>, GsdError> {
        self.entries(frame)
            .iter()
            .map(|e| Ok((self.names[usize::from(e.id)].clone(), self.read_entry(e)?)))
            .collect()
    }
}
