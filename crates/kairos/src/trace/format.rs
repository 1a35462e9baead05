//! The format's constants (magic bytes, versions, record and footer sizes, header flags) and
//! [`TraceError`], why a trace could not be read: what the header, the records, the writer,
//! the reader and the replay share.

use std::io;

/// First bytes of every trace.
pub const MAGIC: [u8; 8] = *b"KAIROSTR";
/// First bytes of the footer.
pub const FOOTER_MAGIC: [u8; 8] = *b"KAIROEND";
/// The newest format version (versions 1 to 3 are read). Traces of rigid scenes are
/// written as version 3; traces of balls keep version 2 ([`VERSION_BALLS`]).
pub const VERSION: u32 = 3;
/// The version written for scenes of balls (no rotation to store).
pub const VERSION_BALLS: u32 = 2;
/// Size of one record in bytes (versions 1 and 2).
pub const RECORD_SIZE: usize = 128;
/// Size of one record in bytes in version 3 (the rotations and angular velocities added).
pub const RECORD_SIZE_V3: usize = 240;
/// Size of the footer in bytes (32 in version 1).
pub const FOOTER_SIZE: usize = 40;
pub(super) const FIXED_HEADER: usize = 32;
/// The header flag (the `u32` at byte 28) of a header whose body states are followed by one
/// byte per body saying whether it sleeps at the start (the trace of a resumed run under
/// gravity), zero-padded to a multiple of 8 ([`TraceHeader::asleep`](super::TraceHeader::asleep)).
pub const FLAG_SLEEP: u32 = 1;

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
    #[error("unsupported trace version {0} (this build reads versions 1 to {VERSION})")]
    Version(u32),
    /// The footer is missing: the run that wrote it was interrupted or the file was cut.
    #[error("incomplete trace: {0}")]
    Incomplete(String),
    /// The path is not a regular file (a directory, a device, a pipe): nothing was read.
    #[error("not a trace file: {0}")]
    NotAFile(&'static str),
    /// The content is inconsistent.
    #[error("corrupted trace: {0}")]
    Corrupt(String),
}

pub(super) fn corrupt(msg: impl Into<String>) -> TraceError {
    TraceError::Corrupt(msg.into())
}
