//! Restartable checkpoints: the exact state of a simulation, written atomically.
//!
//! Layout (little-endian): magic `KAIROSCK`, `u32` version, `u32` dimension, `u32` length +
//! UTF-8 scene TOML (walls, boundary, radii, masses, end time), the [`SimState`] (local time,
//! origin, end time, three event counts, four `f64` accumulators), `u64` body count, then per
//! body position and velocity (`3 x f64` each, z = 0 in 2D), local time (`f64`) and periodic
//! image counts (`3 x i64`); last, magic `KAIROEND` and the FNV-1a hash of everything before
//! it. Floats are stored bit for bit, so a resumed run's events are bit-identical to the
//! uninterrupted run's. The file is written under a temporary name, synced and renamed into
//! place: a kill leaves the previous checkpoint intact.

use std::io::{self, Write};
use std::path::Path;

use crate::math::Vector;
use crate::scene::Scene;
use crate::sim::{EventCounts, SimState, Simulation};
use crate::trace::Fnv1a;
use crate::world::World;

const MAGIC: [u8; 8] = *b"KAIROSCK";
const END: [u8; 8] = *b"KAIROEND";
const VERSION: u32 = 1;

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

/// A checkpoint read back.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The scene simulated.
    pub scene: Scene,
    /// The simulation's state.
    pub state: SimState,
    /// Per body: position, velocity, local time, periodic images.
    pub bodies: Vec<([f64; 3], [f64; 3], f64, [i64; 3])>,
}

/// Writes the state of `sim` (simulating `scene`) to `path` atomically.
pub fn write<V: Vector>(path: &Path, scene: &Scene, sim: &Simulation<V>) -> io::Result<()> {
    let mut b = Vec::new();
    b.extend_from_slice(&MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.extend_from_slice(&(V::DIM as u32).to_le_bytes());
    let toml = scene.to_toml();
    b.extend_from_slice(&(toml.len() as u32).to_le_bytes());
    b.extend_from_slice(toml.as_bytes());
    let st = sim.state();
    for x in [st.now, st.origin, st.end_time] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    for c in [
        st.counts.ball_ball,
        st.counts.ball_wall,
        st.counts.box_crossings,
    ] {
        b.extend_from_slice(&c.to_le_bytes());
    }
    for x in [
        st.initial_energy,
        st.kinetic_energy,
        st.virial,
        st.last_overlap,
    ] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    let w = sim.world();
    b.extend_from_slice(&(w.bodies.len() as u64).to_le_bytes());
    for (i, body) in w.bodies.iter().enumerate() {
        for x in body
            .pos
            .to_array3()
            .into_iter()
            .chain(body.vel.to_array3())
            .chain([body.time])
        {
            b.extend_from_slice(&x.to_le_bytes());
        }
        let img = w.images.get(i).copied().unwrap_or([0; 3]);
        for k in img {
            b.extend_from_slice(&k.to_le_bytes());
        }
    }
    let mut h = Fnv1a::default();
    h.update(&b);
    b.extend_from_slice(&END);
    b.extend_from_slice(&h.value().to_le_bytes());

    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&b)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], CheckpointError> {
        let s = self
            .b
            .get(self.at..self.at + n)
            .ok_or_else(|| CheckpointError::Invalid("truncated".into()))?;
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
    fn i64(&mut self) -> Result<i64, CheckpointError> {
        Ok(i64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
}

/// Reads and checks a checkpoint.
pub fn read(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let b = std::fs::read(path)?;
    if b.len() < 16 || b[..8] != MAGIC {
        return Err(CheckpointError::Invalid("not a Kairos checkpoint".into()));
    }
    let body_len = b.len() - 16;
    if b[body_len..body_len + 8] != END {
        return Err(CheckpointError::Invalid("truncated (no end marker)".into()));
    }
    let mut h = Fnv1a::default();
    h.update(&b[..body_len]);
    if h.value().to_le_bytes() != b[body_len + 8..] {
        return Err(CheckpointError::Invalid("hash mismatch (corrupted)".into()));
    }
    let mut c = Cursor {
        b: &b[..body_len],
        at: 8,
    };
    let version = c.u32()?;
    if version != VERSION {
        return Err(CheckpointError::Invalid(format!(
            "unsupported version {version}"
        )));
    }
    let dim = c.u32()? as usize;
    let len = c.u32()? as usize;
    let toml = std::str::from_utf8(c.take(len)?)
        .map_err(|_| CheckpointError::Invalid("scene is not UTF-8".into()))?;
    let scene =
        Scene::from_toml_str(toml).map_err(|e| CheckpointError::Invalid(format!("scene: {e}")))?;
    if scene.dim != dim {
        return Err(CheckpointError::Invalid("dimension mismatch".into()));
    }
    let (now, origin, end_time) = (c.f64()?, c.f64()?, c.f64()?);
    let counts = EventCounts {
        ball_ball: c.u64()?,
        ball_wall: c.u64()?,
        box_crossings: c.u64()?,
    };
    let (initial_energy, kinetic_energy, virial, last_overlap) =
        (c.f64()?, c.f64()?, c.f64()?, c.f64()?);
    let n = c.u64()? as usize;
    if n != scene.bodies.len() {
        return Err(CheckpointError::Invalid(format!(
            "{n} bodies for a scene of {}",
            scene.bodies.len()
        )));
    }
    let mut bodies = Vec::with_capacity(n);
    for _ in 0..n {
        let p = [c.f64()?, c.f64()?, c.f64()?];
        let v = [c.f64()?, c.f64()?, c.f64()?];
        let t = c.f64()?;
        let img = [c.i64()?, c.i64()?, c.i64()?];
        if !p.iter().chain(&v).chain([&t]).all(|x| x.is_finite()) {
            return Err(CheckpointError::Invalid("non-finite body state".into()));
        }
        bodies.push((p, v, t, img));
    }
    if c.at != body_len {
        return Err(CheckpointError::Invalid("trailing bytes".into()));
    }
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
        for (i, (p, v, t, img)) in self.bodies.iter().enumerate() {
            let b = &mut world.bodies[i];
            b.pos = V::try_from_slice(&p[..V::DIM]).expect("dimension");
            b.vel = V::try_from_slice(&v[..V::DIM]).expect("dimension");
            b.time = *t;
            if world.period.is_some() {
                world.images[i] = *img;
            }
        }
        world
    }
}
