//! [`Record`]: one processed event and the post-event states of its bodies, and its
//! little-endian encodings (128 bytes in versions 1 and 2, 240 with the rotations in version 3).

use super::format::{RECORD_SIZE, RECORD_SIZE_V3};
use crate::event::{Event, EventKind};
use crate::math::{Rotation, Vector};
use crate::world::World;

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
                r.rotation.to_array4(),
                V::angular_to_array3(r.angular_velocity),
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
            EventKind::BodyWall | EventKind::BoxCrossing | EventKind::Resume | EventKind::State => {
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

    /// A sampled state of body `a` at `time` ([`EventKind::State`]): position, velocity,
    /// rotation and angular velocity as a trace stores them (z = 0 in 2D).
    pub fn state(
        time: f64,
        a: u32,
        pos: [f64; 3],
        vel: [f64; 3],
        rot: [f64; 4],
        omega: [f64; 3],
    ) -> Self {
        Record {
            time,
            dt: 0.0,
            kind: EventKind::State,
            a,
            b: 0,
            pos_a: pos,
            vel_a: vel,
            pos_b: [0.0; 3],
            vel_b: [0.0; 3],
            rot_a: rot,
            omega_a: omega,
            rot_b: [0.0; 4],
            omega_b: [0.0; 3],
            sleep: 0,
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
