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
//! The file is written with an [`AtomicWriter`]: a kill leaves the previous checkpoint intact.

use std::io::{self, Write};
use std::path::Path;

use crate::atomic::AtomicWriter;
use crate::hash::Fnv1a;
use crate::math::Vector;
use crate::scene::{BodySpec, Scene, MAX_MAGNITUDE};
use crate::sim::{EventCounts, SimState, Simulation};
use crate::trace::{BodyState, Replay, TraceHeader};
use crate::world::World;

const MAGIC: [u8; 8] = *b"KAIROSCK";
const END: [u8; 8] = *b"KAIROEND";
const VERSION: u32 = 2;

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
}

/// A checkpoint read back.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The scene simulated (its bodies as at time 0 for a version 1 file; radii and masses as
    /// given, positions and velocities as saved, for version 2).
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
/// initial states).
///
/// # Panics
/// When `replay` does not hold one state per body.
pub fn write<V: Vector>(
    path: &Path,
    scene: &Scene,
    sim: &Simulation<V>,
    replay: &Replay,
) -> io::Result<()> {
    let w = sim.world();
    assert_eq!(replay.len(), w.bodies.len(), "one replay state per body");
    let mut out = Hashing {
        out: AtomicWriter::with_capacity(1 << 20, path)?,
        hash: Fnv1a::default(),
    };
    out.put(&MAGIC)?;
    out.put(&VERSION.to_le_bytes())?;
    out.put(&(V::DIM as u32).to_le_bytes())?;
    // The contact duration the world uses, written out: a default would be recomputed from
    // other bodies on reading.
    let meta = Scene {
        dim: scene.dim,
        duration: scene.duration,
        restitution: scene.restitution,
        contact_duration: if scene.restitution < 1.0 {
            Some(w.contact_duration)
        } else {
            scene.contact_duration
        },
        gravity: [0.0; 3],
        rest_speed: None,
        friction: 0.0,
        walls: scene.walls.clone(),
        bodies: Vec::new(),
        periodic: scene.periodic.clone(),
        shapes: Vec::new(),
    };
    let toml = meta.to_toml_without_bodies();
    out.put(&(toml.len() as u32).to_le_bytes())?;
    out.put(toml.as_bytes())?;
    let st = sim.state();
    out.f64s([st.now, st.origin, st.end_time])?;
    for c in [
        st.counts.ball_ball,
        st.counts.ball_wall,
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
    fn i64(&mut self) -> Result<i64, CheckpointError> {
        Ok(i64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
}

/// Reads and checks a checkpoint.
pub fn read(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let b = std::fs::read(path)?;
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
    if version != 1 && version != VERSION {
        return Err(invalid(format!(
            "unsupported version {version} (this build reads 1 and {VERSION})"
        )));
    }
    let dim = c.u32()? as usize;
    let len = c.u32()? as usize;
    let toml = std::str::from_utf8(c.take(len)?).map_err(|_| invalid("scene is not UTF-8"))?;
    let mut scene = Scene::from_toml_str(toml).map_err(|e| invalid(format!("scene: {e}")))?;
    if scene.dim != dim {
        return Err(invalid("dimension mismatch"));
    }
    let (now, origin, end_time) = (c.f64()?, c.f64()?, c.f64()?);
    let counts = EventCounts {
        ball_ball: c.u64()?,
        ball_wall: c.u64()?,
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
    let n = c.u64()? as usize;
    if version == 1 && n != scene.bodies.len() {
        return Err(invalid(format!(
            "{n} bodies for a scene of {}",
            scene.bodies.len()
        )));
    }
    let per_body = if version == 1 { 80 } else { 136 };
    if n.checked_mul(per_body) != Some(body_len - c.at) {
        return Err(invalid(format!(
            "{} bytes of body states for {n} bodies",
            body_len - c.at
        )));
    }
    let period = scene.periodic.clone();
    let mut bodies = Vec::with_capacity(n);
    if version != 1 {
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
        let finite = pos
            .iter()
            .chain(&vel)
            .chain(&replay_pos)
            .chain([&time, &replay_time, &radius, &inv_mass, &mass])
            .all(|x| x.is_finite());
        let in_range = |x: &f64| x.abs() <= MAX_MAGNITUDE;
        let in_box = period.as_ref().is_none_or(|l| {
            (0..dim).all(|a| pos[a] >= 0.0 && pos[a] <= l[a] && 4.0 * radius < l[a])
        });
        let problem = if !finite || !pos.iter().chain(&vel).chain(&replay_pos).all(in_range) {
            Some("a position or velocity is not finite or beyond 1e100")
        } else if !(radius > 0.0 && radius <= MAX_MAGNITUDE) || !(inv_mass > 0.0 && mass > 0.0) {
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
        } else if dim == 2 && (pos[2] != 0.0 || vel[2] != 0.0 || replay_pos[2] != 0.0) {
            Some("z is not 0 in a 2D checkpoint")
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(invalid(format!("body {i}: {p}")));
        }
        if version != 1 {
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
        });
    }
    Ok(Checkpoint {
        scene,
        state,
        bodies,
    })
}

impl Checkpoint {
    /// The world as it was saved, in dimension `V`.
    ///
    /// # Panics
    /// When `V::DIM` is not the checkpoint's dimension.
    pub fn world<V: Vector>(&self) -> World<V> {
        let mut world = self.scene.world::<V>();
        for (i, s) in self.bodies.iter().enumerate() {
            let b = &mut world.bodies[i];
            b.pos = V::from_array3(s.pos);
            b.vel = V::from_array3(s.vel);
            b.time = s.time;
            b.inv_mass = s.inv_mass;
            if world.period.is_some() {
                world.images[i] = s.images;
            }
        }
        if self
            .bodies
            .iter()
            .any(|s| s.last_collision != f64::NEG_INFINITY)
        {
            world.last_collision = self.bodies.iter().map(|s| s.last_collision).collect();
        }
        world
    }

    /// Absolute time of the checkpoint.
    pub fn time(&self) -> f64 {
        self.state.origin + self.state.now
    }

    /// The header of the trace of a run resumed from this checkpoint: it starts at the
    /// checkpoint's time with every body's replay state, so the trace is self-contained.
    pub fn trace_header(&self, broad_phase: impl Into<String>) -> TraceHeader {
        let mut h = TraceHeader::for_scene(&self.scene, broad_phase);
        h.start_time = self.time();
        h.bodies = self
            .bodies
            .iter()
            .zip(&h.bodies)
            .map(|(s, b)| BodyState {
                time: s.replay_time,
                pos: s.replay_pos,
                vel: s.vel,
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
