//! Bodies (balls) with lazily advanced state.

use crate::math::Vector;

/// Index of a body in its world: 0-based, in scene file order.
pub type BodyId = u32;

/// A ball (a disc in 2D, a sphere in 3D) moving with constant velocity between events.
///
/// The state is stored lazily: `pos` is the position at the body's own local time `time`, and
/// the position at any later instant is `pos + vel * (t - time)`. An event updates only the
/// bodies it involves, so the cost of an event does not grow with the number of bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body<V: Vector> {
    /// Position at local time [`Body::time`].
    pub pos: V,
    /// Velocity, constant until this body's next event.
    pub vel: V,
    /// The body's local time: the instant at which `pos` is valid.
    pub time: f64,
    /// Radius, `> 0`.
    pub radius: f64,
    /// Inverse mass, `> 0` (mass = 1 / inv_mass).
    pub inv_mass: f64,
}

impl<V: Vector> Body<V> {
    /// A body at `pos` with velocity `vel` at time 0.
    pub fn new(pos: V, vel: V, radius: f64, mass: f64) -> Self {
        Self {
            pos,
            vel,
            time: 0.0,
            radius,
            inv_mass: 1.0 / mass,
        }
    }
    /// Mass of the body.
    #[inline]
    pub fn mass(&self) -> f64 {
        1.0 / self.inv_mass
    }
    /// Position at time `t` under the body's current linear motion.
    #[inline]
    pub fn position_at(&self, t: f64) -> V {
        self.pos + self.vel * (t - self.time)
    }
    /// Moves the stored state to time `t` (position only; the velocity is unchanged).
    #[inline]
    pub fn advance_to(&mut self, t: f64) {
        self.pos = self.position_at(t);
        self.time = t;
    }
    /// Position and velocity at time `t` under the constant acceleration `a` (uniform gravity;
    /// zero for a sleeping body): `pos + vel dt + a dt² / 2` and `vel + a dt`. With `a = 0`
    /// the position is [`Body::position_at`]'s, bit for bit.
    #[inline]
    pub fn state_at_accel(&self, t: f64, a: V) -> (V, V) {
        let dt = t - self.time;
        if a == V::ZERO {
            return (self.position_at(t), self.vel);
        }
        (
            self.pos + self.vel * dt + a * (0.5 * dt * dt),
            self.vel + a * dt,
        )
    }
    /// Moves the stored state to time `t` under the constant acceleration `a` (position and
    /// velocity).
    #[inline]
    pub fn advance_accel(&mut self, t: f64, a: V) {
        (self.pos, self.vel) = self.state_at_accel(t, a);
        self.time = t;
    }
    /// Kinetic energy `m v^2 / 2`.
    #[inline]
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self.mass() * self.vel.length_squared()
    }
}

#[cfg(test)]
mod tests {
    use super::Body;
    use crate::math::{DVec2, DVec3};

    /// The sizes docs/ARCHITECTURE.md gives (a body is read by every candidate of the screens).
    #[test]
    fn a_body_is_56_bytes_in_2d_and_72_in_3d() {
        assert_eq!(std::mem::size_of::<Body<DVec2>>(), 56);
        assert_eq!(std::mem::size_of::<Body<DVec3>>(), 72);
    }
}
