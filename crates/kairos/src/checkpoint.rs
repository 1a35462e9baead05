//! Restartable checkpoints: the exact state of a simulation, written atomically.
//!
//! Layout of version 2 (little-endian): magic `KAIROSCK`, `u32` version, `u32` dimension,
//! `u32` length + UTF-8 scene TOML without its bodies (walls, boundary, end time), the
//! [`SimState`] (local time, origin, end time, three event counts, four `f64` accumulators),
//! `u64` body count, then per body its radius and inverse mass (as the simulation holds it), position and velocity (`3 x f64` each,
//! z = 0 in 2D), local time (`f64`), periodic image counts (`3 x i64`), and the state its
//! trace replay holds (the absolute time and unwrapped position of its last recorded event:
//! see [`crate::trace::Replay`]) and the local time of its last collision (`-inf` for none;
//! the TC model of dissipative collisions, [`World::last_collision`]); last, magic `KAIROEND` and the FNV-1a hash of everything
//! before it. Floats are stored bit for bit, so a resumed run's events are bit-identical to
//! the uninterrupted run's, and its trace replays to the same states. Version 1 (the scene
//! with its bodies, no replay state) is still read.
//!
//! Version 3 is written for scenes with rigid bodies (checkpoints of balls stay version 2,
//! byte for byte): the scene TOML keeps its `[[bodies]]` tables (the shapes, mass properties
//! and the bodies as at time 0) and the meshes of its mesh files (`[meshes]` tables, see
//! [`Scene::meshes`]: a resumed run never reads them again), and each body's state gains 14 `f64` after its last
//! collision: its rotation and angular velocity at its local time, then those its trace
//! replay holds at its replay time (each as a trace stores them: `[angle, 0, 0, 0]` and `[ω,
//! 0, 0]` in 2D, the quaternion `[w, x, y, z]` and `[ωx, ωy, ωz]` in 3D; 248 bytes a body).
//! The rest of a rigid body's state (its shape, centre-of-mass offset, inertia and bounding
//! radius) is derived from its table, and its torque-free motion ([`crate::math::Vector::spin`])
//! from the inertia, rotation and angular velocity, as the simulation derives it after every
//! event: the resumed motion is the uninterrupted one bit for bit.
//!
//! Version 4 is written for scenes with gravity (of balls or rigid bodies; checkpoints without
//! gravity keep versions 2 and 3, byte for byte). Its scene TOML is as in version 3 for rigid
//! bodies and as in version 2 for balls, with the rest speed written out (`[simulation]
//! rest_speed`: its default would be recomputed from other bodies on reading). Each body's
//! state is that of version 2 (balls) or 3 (rigid bodies), followed by 40 bytes: the velocity
//! of its trace replay's state (`3 x f64`: under gravity a body's velocity changes between its
//! events, when the time origin moves), then four `u32`: whether it sleeps
//! ([`World::asleep`], 0 or 1), the sleeping body it rests on ([`World::support`],
//! [`NO_SUPPORT`] for none), how many sleeping bodies rest on it ([`World::holding`]), and
//! whether its trace replay has it asleep (0 or 1: the sleep bit of its last record; the same
//! as the world's, as sleep changes only at recorded events). 176 bytes a ball, 288 a rigid
//! body. A resumed run's world sleeps as the interrupted one did, and its trace's header says
//! which bodies sleep at its start ([`TraceHeader::asleep`]), so that its replay keeps them
//! still. The reader refuses sleep flags other than 0 and 1, a body resting on itself, on a
//! missing body or on one that does not sleep, or while awake, a count of bodies held that is
//! not the number resting on it, and a sleeping body that moves; and a scene with gravity in
//! a file of versions 1 to 3 (no sleep states), or without gravity in a version 4 file.
//!
//! In every version the reader refuses a body whose motion from its saved state, or from its
//! trace replay's, reaches a non-finite position or velocity by the checkpoint's time (a state's
//! time far back, under gravity or with a large velocity).
//!
//! The file is written with an [`AtomicWriter`]: a kill leaves the previous checkpoint intact.

use std::io::{self, Write};
use std::path::Path;

use crate::atomic::AtomicWriter;
use crate::hash::Fnv1a;
use crate::math::{Rotation, Vector};
use crate::num::Num;
use crate::scene::{BodySpec, Scene, SceneError, MAX_MAGNITUDE};
use crate::sim::{EventCounts, SimState, Simulation};
use crate::trace::{motion_stays_finite, BodyState, Replay, TraceHeader};
use crate::world::{World, NO_SUPPORT};

const MAGIC: [u8; 8] = *b"KAIROSCK";
const END: [u8; 8] = *b"KAIROEND";
/// The newest format version: checkpoints of scenes with gravity (their sleep states).
const VERSION: u32 = 4;
/// The version written for scenes with rigid bodies, without gravity.
const VERSION_RIGID: u32 = 3;
/// The version written for scenes of balls, without gravity.
const VERSION_BALLS: u32 = 2;
/// Bytes of one body's state: version 1, 2, and 3 (the rotations added).
const BODY_SIZE_V1: usize = 80;
const BODY_SIZE_V2: usize = 136;
const BODY_SIZE_V3: usize = BODY_SIZE_V2 + 14 * 8;
/// Bytes a version 4 body state adds to that of version 2 or 3: the replay's velocity and the
/// sleep state.
const GRAVITY_SIZE: usize = 3 * 8 + 4 * 4;

/// Why a checkpoint could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Not a checkpoint, truncated, or corrupted.
    #[error("invalid checkpoint: {0}")]
    Invalid(String),
}

fn invalid(msg: impl Into<String>) -> CheckpointError {
    CheckpointError::Invalid(msg.into())
}

/// One body as saved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SavedBody {
    /// Position at `time` (wrapped into the box when periodic; z = 0 in 2D).
    pub pos: [f64; 3],
    /// Velocity.
    pub vel: [f64; 3],
    /// Local time of the stored state.
    pub time: f64,
    /// Periodic image counts.
    pub images: [i64; 3],
    /// Inverse mass, bit for bit as the simulation held it.
    pub inv_mass: f64,
    /// Absolute time of the state the trace replay holds for this body.
    pub replay_time: f64,
    /// Unwrapped position of that state.
    pub replay_pos: [f64; 3],
    /// Local time of the body's last collision (the TC model of dissipative collisions;
    /// `-inf` when none counts any more).
    pub last_collision: f64,
    /// Rotation at `time` (version 3, as a trace stores it: 2D `[angle, 0, 0, 0]`, 3D the
    /// quaternion `[w, x, y, z]`; zeros for balls).
    pub rotation: [f64; 4],
    /// Angular velocity at `time` (2D `[ω, 0, 0]`; zeros for balls).
    pub angular_velocity: [f64; 3],
    /// Rotation of the trace replay's state (at `replay_time`).
    pub replay_rotation: [f64; 4],
    /// Angular velocity of the trace replay's state.
    pub replay_angular_velocity: [f64; 3],
    /// Velocity of the trace replay's state (at `replay_time`; stored from version 4, under
    /// gravity; before, and without gravity, `vel`).
    pub replay_vel: [f64; 3],
    /// Whether the body sleeps ([`World::asleep`]; version 4, else false).
    pub asleep: bool,
    /// The sleeping body it rests on ([`World::support`]; [`NO_SUPPORT`] for none).
    pub support: u32,
    /// How many sleeping bodies rest on it ([`World::holding`]).
    pub holding: u32,
    /// Whether the trace replay has it asleep (the sleep bit of its last record).
    pub replay_asleep: bool,
}

/// A checkpoint read back.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The scene simulated (its bodies as at time 0 for a version 1 file; radii and masses as
    /// given, positions and velocities as saved, for version 2 and a version 4 file of balls;
    /// for version 3 and a version 4 file of rigid bodies, the scene as given, its bodies as at
    /// time 0: the saved states are in [`Checkpoint::bodies`]).
    pub scene: Scene,
    /// The simulation's state.
    pub state: SimState,
    /// Every body's saved state, by id.
    pub bodies: Vec<SavedBody>,
}

/// A writer that hashes what passes through it.
struct Hashing<W: Write> {
    out: W,
    hash: Fnv1a,
}

impl<W: Write> Hashing<W> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hash.update(bytes);
        self.out.write_all(bytes)
    }
    fn f64s(&mut self, xs: impl IntoIterator<Item = f64>) -> io::Result<()> {
        for x in xs {
            self.put(&x.to_le_bytes())?;
        }
        Ok(())
    }
}

/// Writes the state of `sim` (simulating `scene`) to `path` atomically, with `replay` the
/// states its trace replay holds (the records of every event so far applied to the scene's
/// initial states). A scene with rigid bodies must still hold its bodies (the tables of their
/// shapes are saved with the scene).
///
/// # Panics
/// When `replay` does not hold one state per body, the world is rigid and the scene has
/// no rigid bodies, or the world has gravity and the scene has none (or the reverse).
pub fn write<V: Vector>(
    path: &Path,
    scene: &Scene,
    sim: &Simulation<V>,
    replay: &Replay,
) -> io::Result<()> {
    let w = sim.world();
    assert_eq!(replay.len(), w.bodies.len(), "one replay state per body");
    let rigid = !w.rigid.is_empty();
    assert_eq!(
        rigid,
        scene.has_rigid_bodies(),
        "a rigid world of a rigid scene"
    );
    let gravity = w.gravity != V::ZERO;
    assert_eq!(gravity, scene.has_gravity(), "gravity in world and scene");
    if sim.end_time() != scene.duration {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the simulation ends at {} and its scene at {}: a checkpoint resumes to the \
                 scene's duration (make the simulation with `scene.duration`)",
                Num(sim.end_time()),
                Num(scene.duration)
            ),
        ));
    }
    let mut out = Hashing {
        out: AtomicWriter::with_capacity(1 << 20, path)?,
        hash: Fnv1a::default(),
    };
    out.put(&MAGIC)?;
    let version = if gravity {
        VERSION
    } else if rigid {
        VERSION_RIGID
    } else {
        VERSION_BALLS
    };
    out.put(&version.to_le_bytes())?;
    out.put(&(V::DIM as u32).to_le_bytes())?;
    // The contact duration the world uses, written out: a default would be recomputed from
    // other bodies on reading.
    let contact_duration = if scene.restitution < 1.0 {
        Some(w.contact_duration)
    } else {
        scene.contact_duration
    };
    // The rest speed too (under gravity): its default depends on the bodies.
    let rest_speed = if gravity {
        Some(w.rest_speed)
    } else {
        scene.rest_speed
    };
    let toml = if rigid {
        // A rigid body's shape is only in its table: the scene keeps its bodies.
        Scene {
            contact_duration,
            rest_speed,
            walls: scene.walls.clone(),
            bodies: scene.bodies.clone(),
            periodic: scene.periodic.clone(),
            shapes: scene.shapes.clone(),
            meshes: scene.meshes.clone(),
            ..*scene
        }
        .to_toml()
    } else {
        Scene {
            contact_duration,
            rest_speed,
            walls: scene.walls.clone(),
            bodies: Vec::new(),
            periodic: scene.periodic.clone(),
            shapes: Vec::new(),
            meshes: Default::default(),
            ..*scene
        }
        .to_toml_without_bodies()
    };
    out.put(&(toml.len() as u32).to_le_bytes())?;
    out.put(toml.as_bytes())?;
    let st = sim.state();
    out.f64s([st.now, st.origin, st.end_time])?;
    for c in [
        st.counts.body_body,
        st.counts.body_wall,
        st.counts.box_crossings,
    ] {
        out.put(&c.to_le_bytes())?;
    }
    out.f64s([
        st.initial_energy,
        st.kinetic_energy,
        st.virial,
        st.last_overlap,
    ])?;
    out.put(&(w.bodies.len() as u64).to_le_bytes())?;
    for (i, body) in w.bodies.iter().enumerate() {
        out.f64s([body.radius, body.inv_mass])?;
        out.f64s(body.pos.to_array3())?;
        out.f64s(body.vel.to_array3())?;
        out.f64s([body.time])?;
        for k in w.images.get(i).copied().unwrap_or([0; 3]) {
            out.put(&k.to_le_bytes())?;
        }
        let (pos, _, time) = replay.state(i);
        out.f64s([time])?;
        out.f64s(pos)?;
        out.f64s([w
            .last_collision
            .get(i)
            .copied()
            .unwrap_or(f64::NEG_INFINITY)])?;
        if let Some(r) = w.rigid.get(i) {
            out.f64s(r.rotation.to_array4())?;
            out.f64s(V::angular_to_array3(r.angular_velocity))?;
            // The replay's own state: its orientation at its own time.
            let (rotation, omega) = replay.orientation(i, time);
            out.f64s(rotation)?;
            out.f64s(omega)?;
        }
        if gravity {
            out.f64s(replay.velocity(i))?;
            for x in [
                w.asleep[i] as u32,
                w.support[i],
                w.holding[i],
                replay.is_asleep(i) as u32,
            ] {
                out.put(&x.to_le_bytes())?;
            }
        }
    }
    let h = out.hash.value();
    let mut f = out.out;
    f.write_all(&END)?;
    f.write_all(&h.to_le_bytes())?;
    f.commit()
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], CheckpointError> {
        let s = self
            .at
            .checked_add(n)
            .and_then(|end| self.b.get(self.at..end))
            .ok_or_else(|| invalid("truncated"))?;
        self.at += n;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, CheckpointError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, CheckpointError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn f64(&mut self) -> Result<f64, CheckpointError> {
        Ok(f64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn f3(&mut self) -> Result<[f64; 3], CheckpointError> {
        Ok([self.f64()?, self.f64()?, self.f64()?])
    }
    fn f4(&mut self) -> Result<[f64; 4], CheckpointError> {
        Ok([self.f64()?, self.f64()?, self.f64()?, self.f64()?])
    }
    fn i64(&mut self) -> Result<i64, CheckpointError> {
        Ok(i64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
}

/// Whether a rotation and angular velocity as a trace stores them are finite, within
/// [`MAX_MAGNITUDE`] and, in 3D, a unit quaternion (to a relative `1e-6`, as traces accept);
/// in 2D the unused components are 0.
fn spin_ok(rotation: &[f64; 4], omega: &[f64; 3], dim: usize) -> bool {
    let bounded = rotation
        .iter()
        .chain(omega)
        .all(|x| x.is_finite() && x.abs() <= MAX_MAGNITUDE);
    let shaped = if dim == 2 {
        rotation[1..] == [0.0; 3] && omega[1..] == [0.0; 2]
    } else {
        (rotation.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() <= 1e-6
    };
    bounded && shaped
}

/// Reads and checks a checkpoint.
pub fn read(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let b = crate::input::read(path, crate::input::MAX_DATA)?;
    if b.len() < 16 || b[..8] != MAGIC {
        return Err(invalid("not a Kairos checkpoint"));
    }
    let body_len = b.len() - 16;
    if b[body_len..body_len + 8] != END {
        return Err(invalid("truncated (no end marker)"));
    }
    if Fnv1a::of(&b[..body_len]).to_le_bytes() != b[body_len + 8..] {
        return Err(invalid("hash mismatch (corrupted)"));
    }
    let mut c = Cursor {
        b: &b[..body_len],
        at: 8,
    };
    let version = c.u32()?;
    if !(1..=VERSION).contains(&version) {
        return Err(invalid(format!(
            "unsupported version {version} (this build reads versions 1 to {VERSION})"
        )));
    }
    let gravity = version == VERSION;
    let dim = c.u32()? as usize;
    let len = c.u32()? as usize;
    let toml = std::str::from_utf8(c.take(len)?).map_err(|_| invalid("scene is not UTF-8"))?;
    let mut scene = Scene::from_toml_str(toml).map_err(|e| invalid(format!("scene: {e}")))?;
    if scene.dim != dim {
        return Err(invalid("dimension mismatch"));
    }
    if gravity != scene.has_gravity() {
        return Err(invalid(if gravity {
            "a version 4 checkpoint of a scene without gravity"
        } else {
            "the scene sets gravity, whose sleeping bodies only a version 4 checkpoint holds"
        }));
    }
    // A version 4 file holds rigid bodies when its scene does (it keeps their tables).
    let rigid = version == VERSION_RIGID || (gravity && scene.has_rigid_bodies());
    if rigid != scene.has_rigid_bodies() {
        return Err(invalid(if rigid {
            "a version 3 checkpoint of a scene without rigid bodies"
        } else {
            "the scene has rigid bodies, which only a version 3 or 4 checkpoint holds"
        }));
    }
    let (now, origin, end_time) = (c.f64()?, c.f64()?, c.f64()?);
    let counts = EventCounts {
        body_body: c.u64()?,
        body_wall: c.u64()?,
        box_crossings: c.u64()?,
    };
    let (initial_energy, kinetic_energy, virial, last_overlap) =
        (c.f64()?, c.f64()?, c.f64()?, c.f64()?);
    let state = SimState {
        now,
        origin,
        end_time,
        counts,
        initial_energy,
        kinetic_energy,
        virial,
        last_overlap,
    };
    if ![now, origin, end_time].iter().all(|x| x.is_finite())
        || !(now >= 0.0)
        || origin < 0.0
        || origin + now > end_time
    {
        return Err(invalid("times out of range"));
    }
    // A resumed run ends at the state's end time and its trace at the scene's duration: one
    // time, or the trace would end where the run does not.
    if end_time != scene.duration {
        return Err(invalid(format!(
            "end time {} differs from its scene's duration {} (damaged)",
            Num(end_time),
            Num(scene.duration)
        )));
    }
    let n = c.u64()? as usize;
    if (version == 1 || rigid) && n != scene.bodies.len() {
        return Err(invalid(format!(
            "{n} bodies for a scene of {}",
            scene.bodies.len()
        )));
    }
    let per_body = match version {
        1 => BODY_SIZE_V1,
        2 => BODY_SIZE_V2,
        _ if !gravity => BODY_SIZE_V3,
        _ if rigid => BODY_SIZE_V3 + GRAVITY_SIZE,
        _ => BODY_SIZE_V2 + GRAVITY_SIZE,
    };
    if n.checked_mul(per_body) != Some(body_len - c.at) {
        return Err(invalid(format!(
            "{} bytes of body states for {n} bodies",
            body_len - c.at
        )));
    }
    let period = scene.periodic.clone();
    let mut bodies = Vec::with_capacity(n);
    // The scene of a file of balls holds no bodies: they are the saved states.
    let balls_saved = version >= 2 && !rigid;
    if balls_saved {
        scene.bodies = Vec::with_capacity(n);
    }
    for i in 0..n {
        let (radius, inv_mass) = if version == 1 {
            (scene.bodies[i].radius, 1.0 / scene.bodies[i].mass)
        } else {
            (c.f64()?, c.f64()?)
        };
        let mass = 1.0 / inv_mass;
        let pos = c.f3()?;
        let vel = c.f3()?;
        let time = c.f64()?;
        let images = [c.i64()?, c.i64()?, c.i64()?];
        let (replay_time, replay_pos, last_collision) = if version == 1 {
            // No replay state was saved: the body's own, unwrapped, at its absolute time.
            let mut p = pos;
            if let Some(l) = &period {
                for (a, x) in p.iter_mut().enumerate().take(dim) {
                    *x += images[a] as f64 * l[a];
                }
            }
            (origin + time, p, f64::NEG_INFINITY)
        } else {
            (c.f64()?, c.f3()?, c.f64()?)
        };
        let (rotation, angular_velocity, replay_rotation, replay_angular_velocity) = if rigid {
            (c.f4()?, c.f3()?, c.f4()?, c.f3()?)
        } else {
            ([0.0; 4], [0.0; 3], [0.0; 4], [0.0; 3])
        };
        let (replay_vel, [asleep, support, holding, replay_asleep]) = if gravity {
            (c.f3()?, [c.u32()?, c.u32()?, c.u32()?, c.u32()?])
        } else {
            (vel, [0, NO_SUPPORT, 0, 0])
        };
        let finite = pos
            .iter()
            .chain(&vel)
            .chain(&replay_vel)
            .chain(&replay_pos)
            .chain([&time, &replay_time, &radius, &inv_mass, &mass])
            .all(|x| x.is_finite());
        let spins_ok = !rigid
            || (spin_ok(&rotation, &angular_velocity, dim)
                && spin_ok(&replay_rotation, &replay_angular_velocity, dim));
        // A rigid body's radius and mass are its table's (the scene's body holds them, bit for
        // bit), which its inertia goes with.
        let shaped = !rigid
            || (scene.bodies[i].radius.to_bits() == radius.to_bits()
                && (1.0 / scene.bodies[i].mass).to_bits() == inv_mass.to_bits());
        let in_range = |x: &f64| x.abs() <= MAX_MAGNITUDE;
        let in_box = period.as_ref().is_none_or(|l| {
            (0..dim).all(|a| pos[a] >= 0.0 && pos[a] <= l[a] && 4.0 * radius < l[a])
        });
        let sleep_ok = asleep <= 1
            && replay_asleep <= 1
            && (support == NO_SUPPORT
                || (asleep == 1 && (support as usize) < n && support as usize != i));
        // A sleeping body is at rest (see [`WorldBuilder::gravity`](crate::world::WorldBuilder::gravity)).
        let still = asleep == 0
            || vel
                .iter()
                .chain(&angular_velocity)
                .chain(if replay_asleep == 1 {
                    &replay_vel[..]
                } else {
                    &[]
                })
                .all(|&x| x == 0.0);
        let problem = if !finite
            || !pos
                .iter()
                .chain(&vel)
                .chain(&replay_vel)
                .chain(&replay_pos)
                .all(in_range)
        {
            Some("a position or velocity is not finite or beyond 1e100")
        } else if !(radius > 0.0 && radius <= MAX_MAGNITUDE && inv_mass > 0.0 && mass > 0.0) {
            Some("radius or mass out of range")
        } else if !(time <= now)
            || !(replay_time <= origin + now)
            || !(last_collision <= now)
            || last_collision.is_nan()
            || last_collision == f64::INFINITY
        {
            Some("its state is later than the checkpoint")
        } else if !in_box {
            Some("outside the periodic box")
        } else if dim == 2
            && (pos[2] != 0.0 || vel[2] != 0.0 || replay_pos[2] != 0.0 || replay_vel[2] != 0.0)
        {
            Some("z is not 0 in a 2D checkpoint")
        } else if !spins_ok {
            Some("a rotation or angular velocity is not finite, beyond 1e100 or not a rotation")
        } else if !shaped {
            Some("its radius or mass is not its shape's")
        } else if !sleep_ok {
            Some("its sleep state is not a flag, or rests it on a missing body or itself")
        } else if !still {
            Some("it sleeps but moves")
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(invalid(format!("body {i}: {p}")));
        }
        // Its motion from its state, and its trace replay's, stays finite until the checkpoint's
        // time: a state's time far back, or an enormous velocity, would make it overflow.
        let motions = [
            ("state", pos, vel, time, asleep, now),
            (
                "trace replay's state",
                replay_pos,
                replay_vel,
                replay_time,
                replay_asleep,
                origin + now,
            ),
        ];
        for (what, p, v, t, asleep, at) in motions {
            let falls = gravity && asleep == 0;
            if !motion_stays_finite(&p, &v, &scene.gravity, falls, at - t) {
                return Err(invalid(format!(
                    "body {i}: its motion from its {what} (time {}, position {p:?}, velocity \
                     {v:?}{}) reaches a non-finite position or velocity by the checkpoint's \
                     time {}",
                    Num(t),
                    if falls { ", under gravity" } else { "" },
                    Num(at)
                )));
            }
        }
        if balls_saved {
            scene.bodies.push(BodySpec {
                position: pos,
                velocity: vel,
                radius,
                mass,
            });
        }
        bodies.push(SavedBody {
            pos,
            vel,
            time,
            images,
            inv_mass,
            replay_time,
            replay_pos,
            last_collision,
            rotation,
            angular_velocity,
            replay_rotation,
            replay_angular_velocity,
            replay_vel,
            asleep: asleep == 1,
            support,
            holding,
            replay_asleep: replay_asleep == 1,
        });
    }
    if gravity {
        check_supports(&bodies)?;
    }
    Ok(Checkpoint {
        scene,
        state,
        bodies,
    })
}

/// Checks that the saved bodies rest on sleeping bodies only, and that each body holds as
/// many sleeping bodies as rest on it (the world's invariants: see [`WorldBuilder::gravity`](crate::world::WorldBuilder::gravity)).
fn check_supports(bodies: &[SavedBody]) -> Result<(), CheckpointError> {
    let mut held = vec![0u32; bodies.len()];
    for (i, b) in bodies.iter().enumerate() {
        if b.support != NO_SUPPORT {
            let s = b.support as usize;
            if !bodies[s].asleep {
                return Err(invalid(format!(
                    "body {i}: it rests on body {s}, which does not sleep"
                )));
            }
            held[s] += 1;
        }
    }
    for (i, (b, h)) in bodies.iter().zip(held).enumerate() {
        if b.holding != h {
            return Err(invalid(format!(
                "body {i}: it holds {} sleeping bodies, but {h} rest on it",
                b.holding
            )));
        }
    }
    Ok(())
}

impl Checkpoint {
    /// The world as it was saved, in dimension `V`; an error when `V::DIM` is not the
    /// checkpoint's dimension.
    pub fn world<V: Vector>(&self) -> Result<World<V>, SceneError> {
        let mut world = self.scene.world::<V>()?;
        for (i, s) in self.bodies.iter().enumerate() {
            let b = &mut world.bodies[i];
            b.pos = V::from_array3(s.pos);
            b.vel = V::from_array3(s.vel);
            b.time = s.time;
            b.inv_mass = s.inv_mass;
            if world.period.is_some() {
                world.images[i] = s.images;
            }
            if let Some(r) = world.rigid.get_mut(i) {
                // The torque-free motion is rebuilt from these, as after every event.
                r.rotation = V::Rotation::from_array4(s.rotation);
                r.set_angular_velocity(V::angular_from_array3(s.angular_velocity));
            }
            if !world.asleep.is_empty() {
                // Under gravity, which bodies sleep, and on what.
                world.asleep[i] = s.asleep;
                world.support[i] = s.support;
                world.holding[i] = s.holding;
            }
        }
        if self
            .bodies
            .iter()
            .any(|s| s.last_collision != f64::NEG_INFINITY)
        {
            world.last_collision = self.bodies.iter().map(|s| s.last_collision).collect();
        }
        Ok(world)
    }

    /// Absolute time of the checkpoint.
    pub fn time(&self) -> f64 {
        self.state.origin + self.state.now
    }

    /// The header of the trace of a run resumed from this checkpoint: it starts at the
    /// checkpoint's time with every body's replay state (under gravity, with which bodies
    /// sleep), so the trace is self-contained.
    pub fn trace_header(&self, broad_phase: impl Into<String>) -> TraceHeader {
        let mut h = TraceHeader::for_scene(&self.scene, broad_phase);
        h.start_time = self.time();
        if self.scene.has_gravity() {
            h.asleep = self.bodies.iter().map(|s| s.replay_asleep).collect();
        }
        h.bodies = self
            .bodies
            .iter()
            .zip(&h.bodies)
            .map(|(s, b)| BodyState {
                time: s.replay_time,
                pos: s.replay_pos,
                vel: s.replay_vel,
                rotation: s.replay_rotation,
                angular_velocity: s.replay_angular_velocity,
                ..*b
            })
            .collect();
        h
    }

    /// The trace replay's states at the checkpoint, to carry on a run that checkpoints again.
    pub fn replay(&self) -> Replay {
        Replay::new(&self.trace_header(""))
    }
}
