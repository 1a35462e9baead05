//! [`Replay`]: the state of every body at any time a trace covers, rebuilt from its header and
//! records (a rigid body turned by the simulation's own torque-free motion).

use super::format::{corrupt, TraceError};
use super::header::{rigid_states, Spins, TraceHeader};
use super::record::Record;
use crate::event::EventKind;
use crate::math::{Rotation, Vector};
use crate::rigid::RigidState;
use crate::scene::Scene;

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

/// Sets a rigid state to a trace's rotation and angular velocity (the spin recomputed from
/// them, as the simulation does after an event).
fn set_spin<V: Vector>(s: &mut RigidState<V>, rotation: [f64; 4], omega: [f64; 3]) {
    s.rotation = V::Rotation::from_array4(rotation);
    s.set_angular_velocity(V::angular_from_array3(omega));
}

/// The rotation and angular velocity of `s` `dt` after its stored state, as a trace stores
/// them.
fn spin_at<V: Vector>(s: &RigidState<V>, dt: f64) -> ([f64; 4], [f64; 3]) {
    let (r, w) = s.at(dt);
    (r.to_array4(), V::angular_to_array3(w))
}

/// Whether a body's motion from position `p` with velocity `v`, over a time `dt` (either
/// sign), under the acceleration `g` when `falls`, stays finite at every time in between with
/// the replay's and the simulation's arithmetic ([`Replay::position`], [`Replay::velocity_at`],
/// [`crate::body::Body::state_at_accel`]): the bounds `|p| + |v| dt + |g| dt² / 2` and `|v| +
/// |g| dt` are finite in every component. Rounding is monotonic, so no term at an earlier time
/// exceeds its bound. Under gravity `dt² / 2` must be finite itself: it multiplies every
/// component, the zeros of `g` included (`0 × ∞` is NaN).
pub(crate) fn motion_stays_finite(
    p: &[f64; 3],
    v: &[f64; 3],
    g: &[f64; 3],
    falls: bool,
    dt: f64,
) -> bool {
    let dt = dt.abs();
    if !dt.is_finite() {
        return false;
    }
    let h = 0.5 * dt * dt;
    (0..3).all(|k| {
        let (x, w) = if falls {
            (
                p[k].abs() + v[k].abs() * dt + g[k].abs() * h,
                v[k].abs() + g[k].abs() * dt,
            )
        } else {
            (p[k].abs() + v[k].abs() * dt, v[k].abs())
        };
        x.is_finite() && w.is_finite()
    })
}

impl Replay {
    /// The states at the start of a trace. A rigid header whose scene cannot be built (never
    /// one a [`TraceReader`](super::TraceReader) returned or [`TraceHeader::for_scene`] made; see
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
        replay.spins = rigid_states(&scene).map_err(|e| corrupt(format!("embedded scene: {e}")))?;
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

    /// Applies a record (checked by [`TraceReader`](super::TraceReader): its ids exist).
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
    /// [`crate::world::WorldBuilder::gravity`]).
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
