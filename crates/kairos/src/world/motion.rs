//! Moving the world's bodies in time (one body, all of them, the time origin) and the totals
//! of their motion: energies, linear and angular momentum.

use super::World;
use crate::body::Body;
use crate::math::Vector;
use crate::rigid::RigidState;

impl<V: Vector> World<V> {
    /// Moves body `i`'s stored state (position and, for a rigid body, rotation) to time `t`.
    #[inline]
    pub fn advance_body(&mut self, i: usize, t: f64) {
        if let Some(r) = self.rigid.get_mut(i) {
            r.advance(t - self.bodies[i].time);
        }
        if self.gravity == V::ZERO {
            self.bodies[i].advance_to(t);
        } else {
            let a = self.accel(i);
            self.bodies[i].advance_accel(t, a);
        }
    }

    /// Body `i`'s mechanical energy: kinetic (linear, plus rotational for a rigid body), plus
    /// the potential energy `-m g · x` under gravity (constant in free flight, so taken at the
    /// body's local time).
    #[inline]
    pub fn body_energy(&self, i: usize) -> f64 {
        let b = &self.bodies[i];
        let kinetic = b.kinetic_energy() + self.rigid.get(i).map_or(0.0, RigidState::energy);
        if self.gravity == V::ZERO {
            kinetic
        } else {
            kinetic - b.mass() * self.gravity.dot(b.pos)
        }
    }

    /// The total angular momentum about the origin: `Σ m x × v` (constant in free flight, so
    /// each body's term may be taken at its own local time) plus each rigid body's spin
    /// angular momentum. In a periodic box the positions are the stored (wrapped) ones.
    pub fn angular_momentum(&self) -> V::Angular {
        let mut l = V::Angular::default();
        for (i, b) in self.bodies.iter().enumerate() {
            l = V::angular_add_scaled(l, V::cross_angular(b.pos, b.vel), b.mass());
            if let Some(r) = self.rigid.get(i) {
                l = V::angular_add_scaled(l, r.angular_momentum(), 1.0);
            }
        }
        l
    }

    /// Total kinetic energy (linear, plus rotational for rigid bodies).
    pub fn kinetic_energy(&self) -> f64 {
        if self.rigid.is_empty() {
            self.bodies.iter().map(Body::kinetic_energy).sum()
        } else {
            self.bodies
                .iter()
                .zip(&self.rigid)
                .map(|(b, r)| b.kinetic_energy() + r.energy())
                .sum()
        }
    }

    /// Total mechanical energy: [`World::kinetic_energy`], plus the potential energy under
    /// gravity (see [`World::body_energy`]). Conserved by elastic collisions.
    pub fn energy(&self) -> f64 {
        if self.rigid.is_empty() && self.gravity == V::ZERO {
            return self.kinetic_energy();
        }
        (0..self.bodies.len()).map(|i| self.body_energy(i)).sum()
    }

    /// Total linear momentum.
    pub fn momentum(&self) -> V {
        self.bodies
            .iter()
            .fold(V::ZERO, |acc, b| acc + b.vel * b.mass())
    }

    /// Moves the time origin to local time `t`: every body is advanced to `t` and its local time
    /// becomes 0, and the last-collision times are shifted by `-t` (see
    /// [`crate::sim::Simulation`]). A last collision at least `t_c` before `t` can no longer
    /// make any collision elastic and becomes `-inf`; the others lie within `t_c` of `t`, so
    /// for `t_c <= t / 2` their shift is exact (Sterbenz).
    pub fn rebase(&mut self, t: f64) {
        self.advance_all_to(t);
        for b in &mut self.bodies {
            b.time = 0.0;
        }
        let tc = self.contact_duration;
        for last in &mut self.last_collision {
            *last = if t - *last < tc {
                *last - t
            } else {
                f64::NEG_INFINITY
            };
        }
    }

    /// Moves every body's stored state to time `t` (used at the end of a run). In a periodic
    /// box, positions may lie up to one crossing outside the box afterwards.
    pub fn advance_all_to(&mut self, t: f64) {
        for i in 0..self.bodies.len() {
            self.advance_body(i, t);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::body::Body;
    use crate::math::DVec2;
    use crate::world::World;

    /// Moving the time origin shifts the last collision times that can still matter and
    /// forgets the others.
    #[test]
    fn rebase_moves_last_collision_times() {
        let b = |x: f64| Body::new(DVec2::new(x, 0.0), DVec2::new(1.0, 0.0), 0.5, 1.0);
        let mut world = World::builder(vec![b(0.0), b(2.0), b(4.0), b(6.0)], Vec::new())
            .restitution(0.5)
            .contact_duration(0.25)
            .build()
            .unwrap();
        world.last_collision = vec![63.875, 64.0, 63.5, f64::NEG_INFINITY];
        world.rebase(64.0);
        assert_eq!(
            world.last_collision(),
            [-0.125, 0.0, f64::NEG_INFINITY, f64::NEG_INFINITY]
        );
        assert!(world.bodies().iter().all(|b| b.time == 0.0));
        assert_eq!(world.bodies()[1].pos, DVec2::new(66.0, 0.0));
    }
}
