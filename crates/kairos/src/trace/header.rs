//! What a trace holds besides its records: [`TraceHeader`] (dimension, broad phase, scene
//! TOML, start time, sleep states) with its encoding, and every body's starting
//! [`BodyState`]; the rigid bodies' starting rotations ([`Spins`]) shared with the replay.

use super::format::{
    TraceError, FLAG_SLEEP, MAGIC, RECORD_SIZE, RECORD_SIZE_V3, VERSION, VERSION_BALLS,
};
use crate::math::{Rotation, Vector};
use crate::rigid::RigidState;
use crate::scene::{BodySpec, Scene, SceneError};
use glam::{DVec2, DVec3};

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

pub(super) const BODY_STATE_SIZE: usize = 72;
pub(super) const BODY_STATE_SIZE_V3: usize = 128;

impl BodyState {
    pub(super) fn encode(&self, out: &mut Vec<u8>, rigid: bool) {
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

    pub(super) fn decode(b: &[u8]) -> Self {
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
    pub(super) fn spin_ok(rotation: &[f64; 4], omega: &[f64; 3], dim: u32) -> bool {
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
    pub(super) fn without_bodies(scene: &Scene, broad_phase: impl Into<String>) -> Self {
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
    pub(super) fn flags(&self) -> u32 {
        if self.asleep.is_empty() {
            0
        } else {
            FLAG_SLEEP
        }
    }

    /// The bytes of the sleep states that follow the body states (none without
    /// [`FLAG_SLEEP`]): one per body, zero-padded to a multiple of 8.
    pub(super) fn encode_sleep(&self) -> Vec<u8> {
        let mut out: Vec<u8> = self.asleep.iter().map(|&s| s as u8).collect();
        out.resize(out.len().next_multiple_of(8), 0);
        out
    }

    /// The header's bytes up to the body states (padding included), with the header length
    /// patched in.
    pub(super) fn encode_start(&self, bodies: usize) -> Vec<u8> {
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
    /// resumed run, each at its own last recorded state: use [`Replay`](super::Replay) for positions at a
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
pub(super) fn initial_states(scene: &Scene) -> impl ExactSizeIterator<Item = BodyState> + '_ {
    let spins = if scene.has_rigid_bodies() {
        // A scene whose rigid bodies do not build (never one whose world was built) has no
        // spins to record: its bodies keep the identity.
        match rigid_states(scene) {
            Ok(Spins::Two(v)) => spins_of(&v),
            Ok(Spins::Three(v)) => spins_of(&v),
            Ok(Spins::None) | Err(_) => Vec::new(),
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
                r.rotation.to_array4(),
                V::angular_to_array3(r.angular_velocity),
            )
        })
        .collect()
}

/// The rigid states of a scene's world at time 0.
pub(super) fn rigid_states(scene: &Scene) -> Result<Spins, SceneError> {
    Ok(match scene.dim {
        2 => Spins::Two(scene.rigid_states::<DVec2>()?),
        3 => Spins::Three(scene.rigid_states::<DVec3>()?),
        _ => Spins::None,
    })
}

/// The rotational states of a replay's rigid bodies, in the trace's dimension.
#[derive(Clone, Debug)]
pub(super) enum Spins {
    /// A trace of balls.
    None,
    Two(Vec<RigidState<DVec2>>),
    Three(Vec<RigidState<DVec3>>),
}
