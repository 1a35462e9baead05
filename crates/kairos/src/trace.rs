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
//! turns a rigid body with the simulation's own torque-free motion ([`RigidState::at`]), so a
//! replayed rotation is the simulated one bit for bit.
//!
//! A trace is written with an [`AtomicWriter`]: it appears at its path only after the footer is
//! written and synced, so an interrupted run never leaves a file that reads as complete. The
//! reader rejects a missing footer, a size that does not match the record count, a damaged
//! header or footer, records that name bodies or walls the scene lacks or times outside the
//! trace's span, and a hash mismatch. [`Replay`] rebuilds every body's state at any time the
//! trace covers.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::atomic::AtomicWriter;
use crate::event::{Event, EventKind};
use crate::math::{Rotation, Vector};
use crate::num::Num;
use crate::rigid::RigidState;
use crate::scene::{BodySpec, Scene};
use crate::world::World;
use glam::{DVec2, DVec3};

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
const FIXED_HEADER: usize = 32;
/// The header flag (the `u32` at byte 28) of a header whose body states are followed by one
/// byte per body saying whether it sleeps at the start (the trace of a resumed run under
/// gravity), zero-padded to a multiple of 8 ([`TraceHeader::asleep`]).
pub const FLAG_SLEEP: u32 = 1;

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
    /// Rotation of body `a` after the event (version 3: 2D `[angle, 0, 0, 0]`, 3D the
    /// quaternion `[w, x, y, z]`; zeros in a trace of balls).
    pub rot_a: [f64; 4],
    /// Angular velocity of body `a` after the event (2D `[ω, 0, 0]`; zeros for balls).
    pub omega_a: [f64; 3],
    /// Rotation of body `b` after a ball-ball event; zeros for ball-wall.
    pub rot_b: [f64; 4],
    /// Angular velocity of body `b` after a ball-ball event; zeros for ball-wall.
    pub omega_b: [f64; 3],
    /// Which bodies sleep after the event under gravity ([`Record::A_ASLEEP`],
    /// [`Record::B_ASLEEP`]); 0 without gravity. Stored in the record's `u32` at byte 28.
    pub sleep: u32,
}

impl Record {
    /// [`Record::sleep`]'s flag: body `a` sleeps after the event.
    pub const A_ASLEEP: u32 = 1;
    /// [`Record::sleep`]'s flag: body `b` sleeps after the event.
    pub const B_ASLEEP: u32 = 2;

    /// The record of `event` just processed in `world` (in a rigid world, with the rotations
    /// and angular velocities the bodies have at the event).
    pub fn from_event<V: Vector>(event: &Event, world: &World<V>, dt: f64) -> Self {
        let ba = &world.bodies[event.a as usize];
        let spin = |i: u32| match world.rigid.get(i as usize) {
            Some(r) => (
                r.rotation.to_trace(),
                V::angular_to_trace(r.angular_velocity),
            ),
            None => ([0.0; 4], [0.0; 3]),
        };
        let (rot_a, omega_a) = spin(event.a);
        let (pos_b, vel_b, rot_b, omega_b) = match event.kind {
            EventKind::BodyBody => {
                let bb = &world.bodies[event.b as usize];
                let (rot_b, omega_b) = spin(event.b);
                (
                    world.unwrapped_position(event.b).to_array3(),
                    bb.vel.to_array3(),
                    rot_b,
                    omega_b,
                )
            }
            EventKind::BodyWall | EventKind::BoxCrossing | EventKind::Resume => {
                ([0.0; 3], [0.0; 3], [0.0; 4], [0.0; 3])
            }
        };
        let sleep = (world.is_asleep(event.a as usize) as u32) * Self::A_ASLEEP
            + (event.kind == EventKind::BodyBody && world.is_asleep(event.b as usize)) as u32
                * Self::B_ASLEEP;
        Record {
            sleep,
            time: event.time,
            dt,
            kind: event.kind,
            a: event.a,
            b: event.b,
            pos_a: world.unwrapped_position(event.a).to_array3(),
            vel_a: ba.vel.to_array3(),
            pos_b,
            vel_b,
            rot_a,
            omega_a,
            rot_b,
            omega_b,
        }
    }

    /// True when both records describe the same event with bit-identical times and states,
    /// rotations included (the broad phase's look-ahead `dt` is not compared).
    pub fn same_event(&self, other: &Record) -> bool {
        let mut a = self.to_bytes_v3();
        let mut b = other.to_bytes_v3();
        a[8..16].fill(0);
        b[8..16].fill(0);
        a == b
    }

    /// The little-endian encoding of version 3: [`Record::to_bytes`] followed by `rot_a`,
    /// `omega_a`, `rot_b` and `omega_b`.
    pub fn to_bytes_v3(&self) -> [u8; RECORD_SIZE_V3] {
        let mut out = [0u8; RECORD_SIZE_V3];
        out[..RECORD_SIZE].copy_from_slice(&self.to_bytes());
        let extra = self
            .rot_a
            .iter()
            .chain(&self.omega_a)
            .chain(&self.rot_b)
            .chain(&self.omega_b);
        for (k, x) in extra.enumerate() {
            let o = RECORD_SIZE + 8 * k;
            out[o..o + 8].copy_from_slice(&x.to_le_bytes());
        }
        out
    }

    /// Decodes a version 3 record; `None` for an unknown kind code.
    pub fn from_bytes_v3(b: &[u8; RECORD_SIZE_V3]) -> Option<Self> {
        let mut r = Self::from_bytes(b[..RECORD_SIZE].try_into().unwrap())?;
        let f = |k: usize| {
            let o = RECORD_SIZE + 8 * k;
            f64::from_le_bytes(b[o..o + 8].try_into().unwrap())
        };
        r.rot_a = [f(0), f(1), f(2), f(3)];
        r.omega_a = [f(4), f(5), f(6)];
        r.rot_b = [f(7), f(8), f(9), f(10)];
        r.omega_b = [f(11), f(12), f(13)];
        Some(r)
    }

    /// The little-endian encoding of versions 1 and 2 (no rotations).
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut out = [0u8; RECORD_SIZE];
        out[0..8].copy_from_slice(&self.time.to_le_bytes());
        out[8..16].copy_from_slice(&self.dt.to_le_bytes());
        out[16..20].copy_from_slice(&self.kind.code().to_le_bytes());
        out[20..24].copy_from_slice(&self.a.to_le_bytes());
        out[24..28].copy_from_slice(&self.b.to_le_bytes());
        out[28..32].copy_from_slice(&self.sleep.to_le_bytes());
        let vecs = [self.pos_a, self.vel_a, self.pos_b, self.vel_b];
        for (k, v) in vecs.iter().enumerate() {
            for (c, x) in v.iter().enumerate() {
                let o = 32 + 24 * k + 8 * c;
                out[o..o + 8].copy_from_slice(&x.to_le_bytes());
            }
        }
        out
    }

    /// Decodes a record of versions 1 and 2 (zero rotations); `None` for an unknown kind code.
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
            rot_a: [0.0; 4],
            omega_a: [0.0; 3],
            rot_b: [0.0; 4],
            omega_b: [0.0; 3],
            sleep: u(28),
        })
    }
}

pub use crate::hash::Fnv1a;

/// The state of one body at the start of a trace, as the replay needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Radius.
    pub radius: f64,
    /// Mass.
    pub mass: f64,
    /// Absolute time at which `pos` holds.
    pub time: f64,
    /// Unwrapped position at `time` (z = 0 in 2D).
    pub pos: [f64; 3],
    /// Velocity (z = 0 in 2D).
    pub vel: [f64; 3],
    /// Rotation at `time` (version 3: 2D `[angle, 0, 0, 0]`, 3D `[w, x, y, z]`; zeros for a
    /// trace of balls).
    pub rotation: [f64; 4],
    /// Angular velocity at `time` (2D `[ω, 0, 0]`; zeros for a trace of balls).
    pub angular_velocity: [f64; 3],
}

const BODY_STATE_SIZE: usize = 72;
const BODY_STATE_SIZE_V3: usize = 128;

impl BodyState {
    fn encode(&self, out: &mut Vec<u8>, rigid: bool) {
        let base = [self.radius, self.mass, self.time]
            .into_iter()
            .chain(self.pos)
            .chain(self.vel);
        let extra = self.rotation.into_iter().chain(self.angular_velocity);
        let all: Box<dyn Iterator<Item = f64>> = if rigid {
            Box::new(base.chain(extra))
        } else {
            Box::new(base)
        };
        for x in all {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }

    fn decode(b: &[u8]) -> Self {
        let f = |k: usize| match b.get(8 * k..8 * k + 8) {
            Some(x) => f64::from_le_bytes(x.try_into().unwrap()),
            None => 0.0,
        };
        BodyState {
            radius: f(0),
            mass: f(1),
            time: f(2),
            pos: [f(3), f(4), f(5)],
            vel: [f(6), f(7), f(8)],
            rotation: [f(9), f(10), f(11), f(12)],
            angular_velocity: [f(13), f(14), f(15)],
        }
    }

    /// Whether the rotation and angular velocity are finite and, in 3D, the rotation a unit
    /// quaternion (to a relative `1e-6`: what a replay can turn).
    fn spin_ok(rotation: &[f64; 4], omega: &[f64; 3], dim: u32) -> bool {
        let finite = rotation.iter().chain(omega).all(|x| x.is_finite());
        let unit = dim == 2 || (rotation.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() <= 1e-6;
        finite && unit
    }
}

/// What a trace holds besides its records.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceHeader {
    /// 2 or 3.
    pub dim: u32,
    /// Name of the broad phase (or stepper) that produced the trace.
    pub broad_phase: String,
    /// The simulated scene as TOML, without its bodies (version 2; version 1 traces hold the
    /// bodies here too).
    pub scene_toml: String,
    /// Absolute time at which the trace starts: 0, or the checkpoint time of a resumed run.
    pub start_time: f64,
    /// Every body's state at the start, by id.
    pub bodies: Vec<BodyState>,
    /// Whether the bodies are rigid bodies (version 3): the scene TOML then holds the bodies'
    /// tables (their shapes), and states and records their rotations.
    pub rigid: bool,
    /// Under gravity, which bodies sleep at the start, by id (the trace of a run resumed from
    /// a checkpoint, [`FLAG_SLEEP`]); empty when every body is awake at the start, as at time
    /// 0 (no flag is then written).
    pub asleep: Vec<bool>,
}

impl TraceHeader {
    /// The header of a run of `scene` from its start (every body at time 0).
    pub fn for_scene(scene: &Scene, broad_phase: impl Into<String>) -> Self {
        TraceHeader {
            bodies: initial_states(scene).collect(),
            ..Self::without_bodies(scene, broad_phase)
        }
    }

    /// The header of a run of `scene` from its start, with no body states yet.
    fn without_bodies(scene: &Scene, broad_phase: impl Into<String>) -> Self {
        let rigid = scene.has_rigid_bodies();
        TraceHeader {
            dim: scene.dim as u32,
            broad_phase: broad_phase.into(),
            // A rigid body's shape is only in its table: the TOML keeps the bodies.
            scene_toml: if rigid {
                scene.to_toml()
            } else {
                scene.to_toml_without_bodies()
            },
            start_time: 0.0,
            bodies: Vec::new(),
            rigid,
            asleep: Vec::new(),
        }
    }

    /// The format version of this header: 3 for rigid bodies, else 2.
    pub fn version(&self) -> u32 {
        if self.rigid {
            VERSION
        } else {
            VERSION_BALLS
        }
    }

    fn record_size(&self) -> usize {
        if self.rigid {
            RECORD_SIZE_V3
        } else {
            RECORD_SIZE
        }
    }

    fn body_state_size(&self) -> usize {
        if self.rigid {
            BODY_STATE_SIZE_V3
        } else {
            BODY_STATE_SIZE
        }
    }

    /// The header's flags: [`FLAG_SLEEP`] when it holds sleep states.
    fn flags(&self) -> u32 {
        if self.asleep.is_empty() {
            0
        } else {
            FLAG_SLEEP
        }
    }

    /// The bytes of the sleep states that follow the body states (none without
    /// [`FLAG_SLEEP`]): one per body, zero-padded to a multiple of 8.
    fn encode_sleep(&self) -> Vec<u8> {
        let mut out: Vec<u8> = self.asleep.iter().map(|&s| s as u8).collect();
        out.resize(out.len().next_multiple_of(8), 0);
        out
    }

    /// The header's bytes up to the body states (padding included), with the header length
    /// patched in.
    fn encode_start(&self, bodies: usize) -> Vec<u8> {
        let mut h = Vec::with_capacity(64 + self.scene_toml.len());
        h.extend_from_slice(&MAGIC);
        h.extend_from_slice(&self.version().to_le_bytes());
        h.extend_from_slice(&self.dim.to_le_bytes());
        h.extend_from_slice(&0u64.to_le_bytes()); // header_len, patched below
        h.extend_from_slice(&(self.record_size() as u32).to_le_bytes());
        h.extend_from_slice(&self.flags().to_le_bytes());
        for s in [&self.broad_phase, &self.scene_toml] {
            h.extend_from_slice(&(s.len() as u32).to_le_bytes());
            h.extend_from_slice(s.as_bytes());
        }
        while h.len() % 8 != 0 {
            h.push(0);
        }
        h.extend_from_slice(&self.start_time.to_le_bytes());
        h.extend_from_slice(&(bodies as u64).to_le_bytes());
        let sleep = self.asleep.len().next_multiple_of(8);
        let len = (h.len() + self.body_state_size() * bodies + sleep) as u64;
        h[16..24].copy_from_slice(&len.to_le_bytes());
        h
    }

    /// The scene of the trace, with its bodies as they are at the start of the trace (for a
    /// resumed run, each at its own last recorded state: use [`Replay`] for positions at a
    /// time).
    pub fn scene(&self) -> Result<Scene, TraceError> {
        let mut scene = Scene::from_toml_str(&self.scene_toml)
            .map_err(|e| TraceError::Corrupt(format!("embedded scene: {e}")))?;
        if self.rigid {
            // The bodies are the TOML's own tables, as at time 0 (a resumed run's trace too:
            // its states at its start are the header's).
            return Ok(scene);
        }
        scene.bodies = self
            .bodies
            .iter()
            .map(|b| BodySpec {
                position: b.pos,
                velocity: b.vel,
                radius: b.radius,
                mass: b.mass,
            })
            .collect();
        Ok(scene)
    }
}

/// Every body of `scene` at time 0, as a trace header holds it (with the rigid bodies'
/// rotations and angular velocities, from the scene's world).
fn initial_states(scene: &Scene) -> impl ExactSizeIterator<Item = BodyState> + '_ {
    let spins = if scene.has_rigid_bodies() {
        match rigid_states(scene) {
            Spins::Two(v) => spins_of(&v),
            Spins::Three(v) => spins_of(&v),
            Spins::None => Vec::new(),
        }
    } else {
        Vec::new()
    };
    scene.bodies.iter().enumerate().map(move |(i, b)| {
        let (rotation, angular_velocity) = spins.get(i).copied().unwrap_or_default();
        BodyState {
            radius: b.radius,
            mass: b.mass,
            time: 0.0,
            pos: b.position,
            vel: b.velocity,
            rotation,
            angular_velocity,
        }
    })
}

/// The rotations and angular velocities of `states` as a trace stores them.
fn spins_of<V: Vector>(states: &[RigidState<V>]) -> Vec<([f64; 4], [f64; 3])> {
    states
        .iter()
        .map(|r| {
            (
                r.rotation.to_trace(),
                V::angular_to_trace(r.angular_velocity),
            )
        })
        .collect()
}

/// The rigid states of a (validated) scene's world at time 0.
fn rigid_states(scene: &Scene) -> Spins {
    match scene.dim {
        2 => Spins::Two(scene.rigid_states::<DVec2>()),
        3 => Spins::Three(scene.rigid_states::<DVec3>()),
        _ => Spins::None,
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
    #[error("unsupported trace version {0} (this build reads versions 1 to {VERSION})")]
    Version(u32),
    /// The footer is missing: the run that wrote it was interrupted or the file was cut.
    #[error("incomplete trace: {0}")]
    Incomplete(String),
    /// The content is inconsistent.
    #[error("corrupted trace: {0}")]
    Corrupt(String),
}

fn corrupt(msg: impl Into<String>) -> TraceError {
    TraceError::Corrupt(msg.into())
}

/// Streams records into a trace file; see the [module documentation](self).
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

/// Reads a trace record by record, checking its integrity: the header and footer when it is
/// opened (in version 2 their checksum), and each record as it is read (known kind, finite
/// time within the trace's span, ids of existing bodies and walls), then the record hash
/// after the last one.
pub struct TraceReader {
    input: BufReader<File>,
    header: TraceHeader,
    version: u32,
    walls: usize,
    record_size: usize,
    count: u64,
    read: u64,
    hash: Fnv1a,
    expected_hash: u64,
    end_time: f64,
    last_time: f64,
}

fn read_exact_or(input: &mut impl Read, buf: &mut [u8], what: &str) -> Result<(), TraceError> {
    input.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => {
            TraceError::Incomplete(format!("file ends inside the {what}"))
        }
        _ => TraceError::Io(e),
    })
}

const NO_FOOTER: &str = "no footer (the run was interrupted or the file cut)";

/// How many bytes follow a footer that is not at the end of a trace of `size` bytes: the last
/// footer mark of the final 64 KiB that leaves room for the header and a whole footer before
/// it, if there is one. Only for the message: the file is refused either way (a record holding
/// the mark by chance would only make the count wrong).
fn footer_before_the_end(
    file: &mut File,
    size: u64,
    header_len: u64,
    footer_size: u64,
) -> Result<Option<u64>, TraceError> {
    let start = size.saturating_sub(1 << 16).max(header_len);
    file.seek(SeekFrom::Start(start))?;
    let mut end = Vec::new();
    file.take(size - start).read_to_end(&mut end)?;
    Ok((0..end.len().saturating_sub(31))
        .rev()
        .find(|&k| {
            end[k..k + 8] == FOOTER_MAGIC && start + k as u64 + 32 >= header_len + footer_size
        })
        .map(|k| size - (start + k as u64 + 32)))
}

impl TraceReader {
    /// Opens a trace and checks its header and footer.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(corrupt("not a regular file"));
        }
        let size = meta.len();
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
        if !(1..=VERSION).contains(&version) {
            return Err(TraceError::Version(version));
        }
        let expected_record = if version == 3 {
            RECORD_SIZE_V3
        } else {
            RECORD_SIZE
        };
        let footer_size = if version == 1 { 32 } else { FOOTER_SIZE } as u64;
        let dim = u32_at(&fixed, 12);
        let header_len = u64::from_le_bytes(fixed[16..24].try_into().unwrap());
        let record_size = u32_at(&fixed, 24);
        if dim != 2 && dim != 3 {
            return Err(corrupt(format!("dimension {dim}")));
        }
        if record_size as usize != expected_record {
            return Err(corrupt(format!("record size {record_size}")));
        }
        if header_len < FIXED_HEADER as u64 || header_len > size {
            return Err(TraceError::Incomplete(format!(
                "header of {header_len} bytes in a file of {size}"
            )));
        }
        let mut header_bytes = vec![0u8; header_len as usize];
        header_bytes[..FIXED_HEADER].copy_from_slice(&fixed);
        read_exact_or(&mut file, &mut header_bytes[FIXED_HEADER..], "header")?;
        if size - header_len < footer_size {
            return Err(TraceError::Incomplete(NO_FOOTER.into()));
        }
        file.seek(SeekFrom::End(-(footer_size as i64)))?;
        let mut footer = vec![0u8; footer_size as usize];
        read_exact_or(&mut file, &mut footer, "footer")?;
        let tail = &footer[footer.len() - 32..];
        if tail[..8] != FOOTER_MAGIC {
            return Err(
                match footer_before_the_end(&mut file, size, header_len, footer_size)? {
                    Some(extra) => corrupt(format!(
                        "{extra} bytes after the footer (data appended to a complete trace)"
                    )),
                    None => TraceError::Incomplete(NO_FOOTER.into()),
                },
            );
        }
        if version >= 2 {
            let mut check = Fnv1a::default();
            check.update(&header_bytes);
            check.update(tail);
            if check.value().to_le_bytes() != footer[..8] {
                return Err(corrupt(
                    "header or footer checksum does not match (the file is damaged)",
                ));
            }
        }
        let count = u64::from_le_bytes(tail[8..16].try_into().unwrap());
        let expected_hash = u64::from_le_bytes(tail[16..24].try_into().unwrap());
        let end_time = f64::from_le_bytes(tail[24..32].try_into().unwrap());
        let records_bytes = size - header_len - footer_size;
        let rs = expected_record as u64;
        if records_bytes % rs != 0 || records_bytes / rs != count {
            return Err(corrupt(format!(
                "footer says {count} records but {records_bytes} bytes of records are present"
            )));
        }
        let flags = u32_at(&fixed, 28);
        if flags & !FLAG_SLEEP != 0 || (version == 1 && flags != 0) {
            return Err(corrupt(format!("unknown header flags {flags:#x}")));
        }
        let header = decode_header(&header_bytes[FIXED_HEADER..], dim, version, flags)?;
        if !end_time.is_finite() || end_time < header.start_time {
            return Err(corrupt(format!(
                "end time {end_time} is not a finite time after the start ({})",
                header.start_time
            )));
        }
        // The scene without its bodies is enough to count the walls (and to check it parses).
        let scene = Scene::from_toml_str(&header.scene_toml)
            .map_err(|e| corrupt(format!("embedded scene: {e}")))?;
        let walls = scene.walls.iter().map(|w| w.wall_count(scene.dim)).sum();
        if header.rigid && scene.bodies.len() != header.bodies.len() {
            return Err(corrupt(format!(
                "the embedded scene has {} bodies but the header {}",
                scene.bodies.len(),
                header.bodies.len()
            )));
        }
        if header.rigid && !scene.has_rigid_bodies() {
            return Err(corrupt("a version 3 trace of a scene without rigid bodies"));
        }
        if !header.asleep.is_empty() && !scene.has_gravity() {
            return Err(corrupt(
                "sleep states in a trace of a scene without gravity",
            ));
        }
        file.seek(SeekFrom::Start(header_len))?;
        Ok(Self {
            input: BufReader::with_capacity(1 << 20, file),
            last_time: header.start_time,
            header,
            version,
            walls,
            record_size: expected_record,
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
    /// The format version of the file (1, 2, or 3 for rigid bodies).
    pub fn version(&self) -> u32 {
        self.version
    }
    /// Number of records.
    pub fn len(&self) -> u64 {
        self.count
    }
    /// True when the trace holds no event.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// Absolute time of the trace's start (0, or the checkpoint time of a resumed run).
    pub fn start_time(&self) -> f64 {
        self.header.start_time
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
                return Err(corrupt("record hash does not match the footer"));
            }
            if self.last_time > self.end_time {
                return Err(corrupt(format!(
                    "the footer's end time {} is before the last record ({})",
                    self.end_time, self.last_time
                )));
            }
            return Ok(None);
        }
        let mut buf = [0u8; RECORD_SIZE_V3];
        let buf = &mut buf[..self.record_size];
        read_exact_or(&mut self.input, buf, "records")?;
        self.hash.update(buf);
        let index = self.read;
        self.read += 1;
        let r = if self.record_size == RECORD_SIZE_V3 {
            Record::from_bytes_v3((&*buf).try_into().unwrap())
        } else {
            Record::from_bytes((&*buf).try_into().unwrap())
        }
        .ok_or_else(|| corrupt(format!("record {index} has an unknown event kind")))?;
        self.check(index, &r)?;
        self.last_time = self.last_time.max(r.time);
        Ok(Some(r))
    }

    /// The checks of one record against the header.
    fn check(&self, index: u64, r: &Record) -> Result<(), TraceError> {
        let bad = |what: String| Err(corrupt(format!("record {index}: {what}")));
        if !r.time.is_finite() {
            return bad("non-finite time".into());
        }
        if r.time < self.header.start_time {
            return bad(format!(
                "time {} before the trace's start {}",
                r.time, self.header.start_time
            ));
        }
        let n = self.header.bodies.len();
        if r.a as usize >= n {
            return bad(format!("body {} of {n}", r.a));
        }
        match r.kind {
            EventKind::BodyBody if r.b as usize >= n || r.b == r.a => bad(format!(
                "ball-ball event of bodies {} and {} of {n}",
                r.a, r.b
            )),
            EventKind::BodyWall if r.b as usize >= self.walls => {
                bad(format!("wall {} of {}", r.b, self.walls))
            }
            EventKind::BoxCrossing => bad("a box crossing (never recorded)".into()),
            _ => {
                let finite = |v: &[f64; 3]| v.iter().all(|x| x.is_finite());
                if ![r.pos_a, r.vel_a, r.pos_b, r.vel_b].iter().all(finite) {
                    return bad("non-finite state".into());
                }
                let dim = self.header.dim;
                let spin_ok = BodyState::spin_ok(&r.rot_a, &r.omega_a, dim)
                    && (r.kind != EventKind::BodyBody
                        || BodyState::spin_ok(&r.rot_b, &r.omega_b, dim));
                if self.header.rigid && !spin_ok {
                    return bad("non-finite or non-unit rotation or angular velocity".into());
                }
                Ok(())
            }
        }
    }

    /// Reads every remaining record (verifying the hash).
    pub fn read_all(mut self) -> Result<(TraceHeader, Vec<Record>), TraceError> {
        let mut v = Vec::with_capacity(self.count.min(1 << 24) as usize);
        while let Some(r) = self.next_record()? {
            v.push(r);
        }
        Ok((self.header, v))
    }

    /// Reads every remaining record, checking each and the hash, without keeping them.
    pub fn validate(mut self) -> Result<(), TraceError> {
        while self.next_record()?.is_some() {}
        Ok(())
    }
}

/// The variable part of a header (after the fixed 32 bytes), whose flags are `flags`.
fn decode_header(
    rest: &[u8],
    dim: u32,
    version: u32,
    flags: u32,
) -> Result<TraceHeader, TraceError> {
    let mut strings = Vec::new();
    let mut o = 0usize;
    for what in ["broad-phase name", "scene"] {
        let len = rest
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
            .ok_or_else(|| corrupt(format!("header too short for the {what}")))?;
        let bytes = rest
            .get(o + 4..o + 4 + len)
            .ok_or_else(|| corrupt(format!("header too short for the {what}")))?;
        let s = String::from_utf8(bytes.to_vec())
            .map_err(|_| corrupt(format!("the {what} is not UTF-8")))?;
        strings.push(s);
        o += 4 + len;
    }
    let scene_toml = strings.pop().unwrap();
    let broad_phase = strings.pop().unwrap();
    if version == 1 {
        // The bodies are in the scene, all at time 0.
        let scene = Scene::from_toml_str(&scene_toml)
            .map_err(|e| corrupt(format!("embedded scene: {e}")))?;
        if scene.dim != dim as usize {
            return Err(corrupt(
                "the embedded scene's dimension differs from the header's",
            ));
        }
        return Ok(TraceHeader::for_scene(&scene, broad_phase));
    }
    // Padding to 8 after the strings (counted from the file's start: 32 + o).
    let o = (FIXED_HEADER + o).next_multiple_of(8) - FIXED_HEADER;
    let f = |at: usize| {
        rest.get(at..at + 8)
            .map(|b| b.try_into().unwrap())
            .ok_or_else(|| corrupt("header too short for the body states"))
    };
    let start_time = f64::from_le_bytes(f(o)?);
    let n = u64::from_le_bytes(f(o + 8)?);
    let rigid = version == 3;
    let size = if rigid {
        BODY_STATE_SIZE_V3
    } else {
        BODY_STATE_SIZE
    };
    let states = &rest[o + 16..];
    // The sleep states after the body states: one byte per body, padded to 8.
    let sleep_len = if flags & FLAG_SLEEP != 0 {
        n.checked_next_multiple_of(8)
    } else {
        Some(0)
    };
    let expected = n
        .checked_mul(size as u64)
        .zip(sleep_len)
        .and_then(|(a, b)| a.checked_add(b));
    if expected != Some(states.len() as u64) {
        return Err(corrupt(format!(
            "header holds {} bytes of body states for {n} bodies",
            states.len()
        )));
    }
    let (states, sleep) = states.split_at(n as usize * size);
    let asleep = if flags & FLAG_SLEEP != 0 {
        let (flags, padding) = sleep.split_at(n as usize);
        if flags.iter().any(|&x| x > 1) || padding.iter().any(|&x| x != 0) {
            return Err(corrupt("invalid sleep states in the header"));
        }
        flags.iter().map(|&x| x == 1).collect()
    } else {
        Vec::new()
    };
    if !start_time.is_finite() || start_time < 0.0 {
        return Err(corrupt(format!("start time {start_time}")));
    }
    let bodies: Vec<BodyState> = states.chunks_exact(size).map(BodyState::decode).collect();
    for (i, b) in bodies.iter().enumerate() {
        let ok = b.radius > 0.0
            && b.mass > 0.0
            && [b.radius, b.mass, b.time]
                .iter()
                .chain(&b.pos)
                .chain(&b.vel)
                .all(|x| x.is_finite())
            && b.time <= start_time
            && (!rigid || BodyState::spin_ok(&b.rotation, &b.angular_velocity, dim));
        if !ok {
            return Err(corrupt(format!("body {i}: invalid state in the header")));
        }
    }
    Ok(TraceHeader {
        dim,
        broad_phase,
        scene_toml,
        start_time,
        bodies,
        rigid,
        asleep,
    })
}

/// The state of every body at any time covered by a trace, rebuilt from its header and
/// records: the one replay behind `kairos export --final`, `frames`, `view` and `snapshot`.
///
/// Each body moves in a straight line from its last state (the header's, or its last
/// record's), with the same arithmetic as [`crate::body::Body::position_at`], so positions are
/// bit-identical to the simulator's replayed states, and a resumed run's trace gives bit for
/// bit the states of the uninterrupted run's. A rigid body (version 3) turns from its last
/// state by [`RigidState::at`], the simulation's torque-free motion, with the inertia of its
/// shape in the header's scene.
#[derive(Clone, Debug)]
pub struct Replay {
    dim: usize,
    start_time: f64,
    /// Per body: position, velocity, time of the state.
    bodies: Vec<([f64; 3], [f64; 3], f64)>,
    /// The rigid bodies' rotational states at the times of `bodies`.
    spins: Spins,
    /// The scene's gravity (zeros: none).
    gravity: [f64; 3],
    /// Per body, whether it sleeps (out of gravity's reach) since its last state (the
    /// header's [`TraceHeader::asleep`] at the start); empty without gravity.
    asleep: Vec<bool>,
}

/// The `[simulation] gravity` of a trace's embedded scene, zeros when it sets none (or cannot be
/// read: [`Replay::try_new`] reports a rigid scene's errors).
fn embedded_gravity(scene_toml: &str) -> [f64; 3] {
    if !scene_toml.contains("gravity") {
        return [0.0; 3];
    }
    let mut g = [0.0; 3];
    if let Ok(t) = scene_toml.parse::<toml::Table>() {
        if let Some(arr) = t
            .get("simulation")
            .and_then(|s| s.get("gravity"))
            .and_then(|v| v.as_array())
        {
            for (x, v) in g.iter_mut().zip(arr) {
                *x = v
                    .as_float()
                    .or_else(|| v.as_integer().map(|i| i as f64))
                    .unwrap_or(0.0);
            }
        }
    }
    g
}

/// The rotational states of a replay's rigid bodies, in the trace's dimension.
#[derive(Clone, Debug)]
enum Spins {
    /// A trace of balls.
    None,
    Two(Vec<RigidState<DVec2>>),
    Three(Vec<RigidState<DVec3>>),
}

/// Sets a rigid state to a trace's rotation and angular velocity (the spin recomputed from
/// them, as the simulation does after an event).
fn set_spin<V: Vector>(s: &mut RigidState<V>, rotation: [f64; 4], omega: [f64; 3]) {
    s.rotation = V::Rotation::from_trace(rotation);
    s.set_angular_velocity(V::angular_from_trace(omega));
}

/// The rotation and angular velocity of `s` `dt` after its stored state, as a trace stores
/// them.
fn spin_at<V: Vector>(s: &RigidState<V>, dt: f64) -> ([f64; 4], [f64; 3]) {
    let (r, w) = s.at(dt);
    (r.to_trace(), V::angular_to_trace(w))
}

impl Replay {
    /// The states at the start of a trace. A rigid header whose scene cannot be built (never
    /// one a [`TraceReader`] returned or [`TraceHeader::for_scene`] made; see
    /// [`Replay::try_new`]) keeps every rotation as it is in the header.
    pub fn new(header: &TraceHeader) -> Self {
        Self::try_new(header).unwrap_or_else(|_| Self::without_spins(header))
    }

    /// The states at the start of a trace; an error when a rigid trace's scene is invalid or
    /// does not have the header's bodies.
    pub fn try_new(header: &TraceHeader) -> Result<Self, TraceError> {
        let mut replay = Self::without_spins(header);
        if !header.rigid {
            return Ok(replay);
        }
        let scene = Scene::from_toml_str(&header.scene_toml)
            .map_err(|e| corrupt(format!("embedded scene: {e}")))?;
        if scene.bodies.len() != header.bodies.len() || scene.dim != header.dim as usize {
            return Err(corrupt(
                "the embedded scene does not have the header's bodies",
            ));
        }
        replay.spins = rigid_states(&scene);
        let states = match &replay.spins {
            Spins::Two(v) => v.len(),
            Spins::Three(v) => v.len(),
            Spins::None => 0,
        };
        if states != header.bodies.len() {
            return Err(corrupt("the embedded scene has no rigid bodies"));
        }
        for (i, b) in header.bodies.iter().enumerate() {
            match &mut replay.spins {
                Spins::Two(v) => set_spin(&mut v[i], b.rotation, b.angular_velocity),
                Spins::Three(v) => set_spin(&mut v[i], b.rotation, b.angular_velocity),
                Spins::None => {}
            }
        }
        Ok(replay)
    }

    fn without_spins(header: &TraceHeader) -> Self {
        let gravity = embedded_gravity(&header.scene_toml);
        let falls = gravity != [0.0; 3];
        Self {
            dim: header.dim as usize,
            start_time: header.start_time,
            bodies: header
                .bodies
                .iter()
                .map(|b| (b.pos, b.vel, b.time))
                .collect(),
            spins: Spins::None,
            gravity,
            asleep: if !falls {
                Vec::new()
            } else if header.asleep.len() == header.bodies.len() {
                header.asleep.clone()
            } else {
                vec![false; header.bodies.len()]
            },
        }
    }

    /// The states of a run of `scene` at its start (every body at time 0).
    pub fn for_scene(scene: &Scene) -> Self {
        if scene.has_rigid_bodies() {
            return Self::new(&TraceHeader::for_scene(scene, ""));
        }
        Self {
            dim: scene.dim,
            start_time: 0.0,
            bodies: scene
                .bodies
                .iter()
                .map(|b| (b.position, b.velocity, 0.0))
                .collect(),
            spins: Spins::None,
            gravity: scene.gravity,
            asleep: if scene.has_gravity() {
                vec![false; scene.bodies.len()]
            } else {
                Vec::new()
            },
        }
    }

    /// Applies a record (checked by [`TraceReader`]: its ids exist).
    ///
    /// # Panics
    /// When a body id is out of range.
    #[inline]
    pub fn apply(&mut self, r: &Record) {
        self.bodies[r.a as usize] = (r.pos_a, r.vel_a, r.time);
        let pair = r.kind == EventKind::BodyBody;
        if pair {
            self.bodies[r.b as usize] = (r.pos_b, r.vel_b, r.time);
        }
        if !self.asleep.is_empty() {
            self.asleep[r.a as usize] = r.sleep & Record::A_ASLEEP != 0;
            if pair {
                self.asleep[r.b as usize] = r.sleep & Record::B_ASLEEP != 0;
            }
        }
        match &mut self.spins {
            Spins::None => {}
            Spins::Two(v) => {
                set_spin(&mut v[r.a as usize], r.rot_a, r.omega_a);
                if pair {
                    set_spin(&mut v[r.b as usize], r.rot_b, r.omega_b);
                }
            }
            Spins::Three(v) => {
                set_spin(&mut v[r.a as usize], r.rot_a, r.omega_a);
                if pair {
                    set_spin(&mut v[r.b as usize], r.rot_b, r.omega_b);
                }
            }
        }
    }

    /// Whether the bodies are rigid bodies with rotations (a version 3 trace).
    pub fn is_rigid(&self) -> bool {
        !matches!(self.spins, Spins::None)
    }

    /// Rotation and angular velocity of body `i` at time `t` (no earlier than its last
    /// applied record), as a trace stores them: 2D `[angle, 0, 0, 0]` and `[ω, 0, 0]`, 3D the
    /// quaternion `[w, x, y, z]` and `[ωx, ωy, ωz]`; the identity and zero for a ball of a
    /// trace of balls.
    pub fn orientation(&self, i: usize, t: f64) -> ([f64; 4], [f64; 3]) {
        let dt = t - self.bodies[i].2;
        match &self.spins {
            Spins::Two(v) => spin_at(&v[i], dt),
            Spins::Three(v) => spin_at(&v[i], dt),
            Spins::None if self.dim == 3 => ([1.0, 0.0, 0.0, 0.0], [0.0; 3]),
            Spins::None => ([0.0; 4], [0.0; 3]),
        }
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }
    /// True when there is no body.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }
    /// The dimension (2 or 3).
    pub fn dim(&self) -> usize {
        self.dim
    }
    /// Absolute time of the trace's start: no state before it is known.
    pub fn start_time(&self) -> f64 {
        self.start_time
    }

    /// Unwrapped position of body `i` at time `t` (no earlier than its last applied record),
    /// z = 0 in 2D.
    #[inline]
    pub fn position(&self, i: usize, t: f64) -> [f64; 3] {
        let (p, v, t0) = &self.bodies[i];
        let dt = t - t0;
        if self.falls(i) {
            // The simulation's arithmetic ([`crate::body::Body::state_at_accel`]).
            let g = &self.gravity;
            let h = 0.5 * dt * dt;
            return [
                p[0] + v[0] * dt + g[0] * h,
                p[1] + v[1] * dt + g[1] * h,
                p[2] + v[2] * dt + g[2] * h,
            ];
        }
        [p[0] + v[0] * dt, p[1] + v[1] * dt, p[2] + v[2] * dt]
    }

    /// Whether body `i` is under gravity since its last state (the scene sets gravity and the
    /// body does not sleep).
    #[inline]
    pub fn falls(&self, i: usize) -> bool {
        self.asleep.get(i).is_some_and(|s| !s)
    }

    /// Whether body `i` sleeps since its last applied record (see
    /// [`crate::world::World::with_gravity`]).
    pub fn is_asleep(&self, i: usize) -> bool {
        self.asleep.get(i).copied().unwrap_or(false)
    }

    /// The scene's gravity (zeros: none).
    pub fn gravity(&self) -> [f64; 3] {
        self.gravity
    }

    /// Velocity of body `i` after its last applied record.
    #[inline]
    pub fn velocity(&self, i: usize) -> [f64; 3] {
        self.bodies[i].1
    }

    /// Velocity of body `i` at time `t` (no earlier than its last applied record): its last
    /// velocity, plus gravity's pull since then.
    #[inline]
    pub fn velocity_at(&self, i: usize, t: f64) -> [f64; 3] {
        let (_, v, t0) = &self.bodies[i];
        if !self.falls(i) {
            return *v;
        }
        let (g, dt) = (&self.gravity, t - t0);
        [v[0] + g[0] * dt, v[1] + g[1] * dt, v[2] + g[2] * dt]
    }

    /// Body `i`'s last state: position, velocity and the time they hold at.
    pub fn state(&self, i: usize) -> ([f64; 3], [f64; 3], f64) {
        self.bodies[i]
    }

    /// Every body's last state, by id.
    pub fn states(&self) -> &[([f64; 3], [f64; 3], f64)] {
        &self.bodies
    }
}

/// An error unless `t` lies within the trace's span `[start, end]`.
pub fn check_time(t: f64, start: f64, end: f64) -> Result<(), TraceError> {
    if t >= start && t <= end {
        return Ok(());
    }
    let why = if t < start {
        ": before its start (a resumed run's trace holds only the times after its checkpoint)"
    } else {
        ""
    };
    Err(corrupt(format!(
        "time {} is outside the time range of the trace ([{}, {}]){why}",
        Num(t),
        Num(start),
        Num(end)
    )))
}
