//! Binary event traces: a versioned header holding the scene and every body's starting state,
//! fixed-size little-endian event records, and a footer that marks the file complete.
//!
//! The layout of version 2 (documented for numpy in `docs/trace-format.md`):
//!
//! ```text
//! header  : magic "KAIROSTR", u32 version, u32 dim, u64 header_len, u32 record_size,
//!           u32 flags, then u32 length + UTF-8 broad-phase name, u32 length + UTF-8 scene
//!           TOML without its bodies, zero padding to a multiple of 8, f64 start time, u64 body
//!           count, and per body 9 f64 (radius, mass, time, position, velocity; see
//!           [`BodyState`]); with the flag [`FLAG_SLEEP`], one byte per body (1: it sleeps at
//!           the start) and zero padding to a multiple of 8
//! records : record_size (128) bytes each, see [`Record`]
//! footer  : u64 checksum (FNV-1a of the header and the 32 bytes that follow it), magic
//!           "KAIROEND", u64 record count, u64 FNV-1a hash of the record bytes, f64 end time
//! ```
//!
//! Version 1 (still read) held the bodies in the scene TOML, started at time 0 and had no
//! checksum: its footer is the last 32 bytes alone.
//!
//! The flags (a reserved 0 before sleep states existed) are 0 except in the trace of a run of
//! a scene with gravity resumed from a checkpoint: its bodies may sleep at its start, so the
//! header says which ([`FLAG_SLEEP`], [`TraceHeader::asleep`]), for every version. A trace
//! from the start of a run has every body awake and keeps flags 0, byte for byte.
//!
//! Version 3 is written for scenes with rigid bodies only (traces of balls stay version 2,
//! byte for byte): the scene TOML keeps its `[[bodies]]` tables (the shapes), every body state
//! in the header gains 7 f64 (rotation `[angle, 0, 0, 0]` in 2D or the quaternion `[w, x, y,
//! z]` in 3D, and angular velocity `[ω, 0, 0]` or `[ωx, ωy, ωz]`; 128 bytes a body) and every
//! record gains the same 7 f64 for each of its two bodies (240 bytes a record). [`Replay`]
//! turns a rigid body with the simulation's own torque-free motion
//! ([`RigidState::at`](crate::rigid::RigidState::at)), so a replayed rotation is the simulated
//! one bit for bit.
//!
//! A trace is written with an [`AtomicWriter`](crate::atomic::AtomicWriter): it appears at its
//! path only after the footer is written and synced, so an interrupted run never leaves a file
//! that reads as complete. The
//! reader rejects a missing footer, a size that does not match the record count, a damaged
//! header or footer, records that name bodies or walls the scene lacks or times outside the
//! trace's span, a hash mismatch, and a body state whose motion reaches a non-finite position
//! or velocity before the record replacing it or the end time. [`Replay`] rebuilds every
//! body's state, finite, at any time the trace covers.

mod format;
mod header;
mod reader;
mod record;
mod replay;
mod writer;

pub use crate::hash::Fnv1a;
pub use format::{
    TraceError, FLAG_SLEEP, FOOTER_MAGIC, FOOTER_SIZE, MAGIC, RECORD_SIZE, RECORD_SIZE_V3, VERSION,
    VERSION_BALLS,
};
pub use header::{BodyState, TraceHeader};
pub use reader::{check_time, TraceReader};
pub use record::Record;
pub(crate) use replay::motion_stays_finite;
pub use replay::Replay;
pub use writer::TraceWriter;
