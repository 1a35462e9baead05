//! [`TraceWriter`]: streams a header, the records and the footer into a trace file through an
//! [`AtomicWriter`], which appears at its path only once complete.

use std::io::{self, Write};
use std::path::Path;

use super::format::FOOTER_MAGIC;
use super::header::{initial_states, BodyState, TraceHeader, BODY_STATE_SIZE_V3};
use super::record::Record;
use crate::atomic::AtomicWriter;
use crate::hash::Fnv1a;
use crate::scene::Scene;

/// Streams records into a trace file; see the [module documentation](super).
pub struct TraceWriter {
    out: AtomicWriter,
    count: u64,
    hash: Fnv1a,
    check: Fnv1a,
    rigid: bool,
}

impl TraceWriter {
    /// Starts a trace at `path`, written with an [`AtomicWriter`]: it appears at its path
    /// only after [`TraceWriter::finish`].
    ///
    /// # Panics
    /// When the header has sleep states ([`TraceHeader::asleep`]) but not one per body.
    pub fn create(path: &Path, header: &TraceHeader) -> io::Result<Self> {
        assert!(
            header.asleep.is_empty() || header.asleep.len() == header.bodies.len(),
            "one sleep state per body"
        );
        Self::create_with(path, header, header.bodies.iter().copied())
    }

    /// Starts the trace of a run of `scene` from its start, streaming the bodies' states into
    /// the header (no copy of them is made: a million-body scene's header costs no memory).
    pub fn create_for_scene(
        path: &Path,
        scene: &Scene,
        broad_phase: impl Into<String>,
    ) -> io::Result<Self> {
        let header = TraceHeader::without_bodies(scene, broad_phase);
        Self::create_with(path, &header, initial_states(scene))
    }

    /// Starts a trace whose header is `header` with `bodies` as its body states.
    fn create_with(
        path: &Path,
        header: &TraceHeader,
        bodies: impl ExactSizeIterator<Item = BodyState>,
    ) -> io::Result<Self> {
        let mut out = AtomicWriter::with_capacity(1 << 20, path)?;
        let mut check = Fnv1a::default();
        let start = header.encode_start(bodies.len());
        check.update(&start);
        out.write_all(&start)?;
        let mut buf = Vec::with_capacity(BODY_STATE_SIZE_V3);
        for b in bodies {
            buf.clear();
            b.encode(&mut buf, header.rigid);
            check.update(&buf);
            out.write_all(&buf)?;
        }
        let sleep = header.encode_sleep();
        check.update(&sleep);
        out.write_all(&sleep)?;
        Ok(Self {
            out,
            count: 0,
            hash: Fnv1a::default(),
            check,
            rigid: header.rigid,
        })
    }

    /// Appends one record (with its rotations in a version 3 trace).
    #[inline]
    pub fn write(&mut self, r: &Record) -> io::Result<()> {
        self.count += 1;
        if self.rigid {
            let bytes = r.to_bytes_v3();
            self.hash.update(&bytes);
            self.out.write_all(&bytes)
        } else {
            let bytes = r.to_bytes();
            self.hash.update(&bytes);
            self.out.write_all(&bytes)
        }
    }

    /// Writes the footer, syncs and moves the file to its destination. Returns the record
    /// hash.
    pub fn finish(mut self, end_time: f64) -> io::Result<u64> {
        let mut tail = Vec::with_capacity(32);
        tail.extend_from_slice(&FOOTER_MAGIC);
        tail.extend_from_slice(&self.count.to_le_bytes());
        tail.extend_from_slice(&self.hash.value().to_le_bytes());
        tail.extend_from_slice(&end_time.to_le_bytes());
        self.check.update(&tail);
        self.out.write_all(&self.check.value().to_le_bytes())?;
        self.out.write_all(&tail)?;
        self.out.commit()?;
        Ok(self.hash.value())
    }
}
