//! Resting contact under gravity (see [`WorldBuilder::gravity`](crate::world::WorldBuilder::gravity)): a slow body on a support falls
//! asleep, a sleeping body is static for slow hits and wakes on fast ones unless it holds
//! another up.

use super::{World, NO_SUPPORT, SUPPORT_ANGLE_COS};
use crate::event::{Event, EventKind};
use crate::math::Vector;
use crate::rigid;

impl<V: Vector> World<V> {
    /// The factor (1 or 0) of body `i`'s inverse mass in a collision approaching at `speed`: 0
    /// for a sleeping body hit slower than [`World::rest_speed`] (it stays asleep and static),
    /// 1 otherwise, waking a sleeping body.
    #[inline]
    pub(super) fn moving_or_woken(&mut self, i: usize, speed: f64) -> f64 {
        if !self.is_asleep(i) {
            return 1.0;
        }
        if speed < self.rest_speed || self.holding[i] > 0 {
            return 0.0;
        }
        self.asleep[i] = false;
        let s = std::mem::replace(&mut self.support[i], NO_SUPPORT);
        if s != NO_SUPPORT {
            self.holding[s as usize] -= 1;
        }
        1.0
    }

    /// How a contact normal `n` (pointing towards the body) holds the body against gravity:
    /// `Some(true)` within [`SUPPORT_ANGLE_COS`] of straight up, `Some(false)` for a steeper
    /// contact that still points up, `None` otherwise.
    #[inline]
    fn supports(&self, n: V) -> Option<bool> {
        let up = -n.dot(self.gravity);
        (up > 0.0).then(|| up >= SUPPORT_ANGLE_COS * self.gravity.length())
    }

    /// Puts body `i` to sleep on `support` (a sleeping body, or `None` for a wall): at rest, out
    /// of gravity's reach (see [`WorldBuilder::gravity`](crate::world::WorldBuilder::gravity)).
    fn fall_asleep(&mut self, i: usize, support: Option<usize>) {
        self.bodies[i].vel = V::ZERO;
        if let Some(r) = self.rigid.get_mut(i) {
            r.set_angular_velocity(V::Angular::default());
        }
        self.asleep[i] = true;
        if let Some(s) = support {
            self.support[i] = s as u32;
            self.holding[s] += 1;
        }
    }

    /// After ball `i`'s collision with a support (a wall, or a sleeping body) along `n`
    /// (pointing towards the ball): it sleeps when the support holds it against gravity and it
    /// leaves slower than [`World::rest_speed`].
    fn settle_ball(&mut self, i: usize, n: V, support: Option<usize>) {
        let v = self.bodies[i].vel;
        let rest = match self.supports(n) {
            Some(true) => v.dot(n) < self.rest_speed,
            Some(false) => v.length() < self.rest_speed,
            None => false,
        };
        if rest {
            self.fall_asleep(i, support);
        }
    }

    /// After rigid body `i`'s contact with a support along `n` (pointing towards the body) at
    /// `points`: it sleeps when the support holds it against gravity and every contact point
    /// leaves slower than [`World::rest_speed`].
    fn settle_rigid(&mut self, i: usize, n: V, points: &[V], support: Option<usize>) {
        let Some(flat) = self.supports(n) else {
            return;
        };
        if points.is_empty() {
            return;
        }
        let (b, r) = (&self.bodies[i], &self.rigid[i]);
        let slow = if flat {
            points.iter().all(|&p| {
                n.dot(b.vel + V::angular_cross(r.angular_velocity, p - b.pos)) < self.rest_speed
            })
        } else {
            b.vel.length() + r.spin_bound() * r.radius < self.rest_speed
        };
        if slow {
            self.fall_asleep(i, support);
        }
    }

    /// [`World::settle`] for each of the contact sets of a rigid response (normals from `a` to
    /// `b`), nearest first, until the body sleeps.
    pub(super) fn settle_all(&mut self, event: &Event, contacts: &[rigid::ContactSet<V>]) {
        let (ia, ib) = (event.a as usize, event.b as usize);
        let before = (self.is_asleep(ia), self.is_asleep(ib));
        for c in contacts {
            self.settle(event, -c.normal, &c.points);
            if (self.is_asleep(ia), self.is_asleep(ib)) != before {
                break;
            }
        }
    }

    /// After a contact of `event`'s bodies along `n` (from `b`, or the wall, towards `a`) at
    /// `points` (empty for balls): a moving body on a support may come to rest (see
    /// [`WorldBuilder::gravity`](crate::world::WorldBuilder::gravity)).
    pub(super) fn settle(&mut self, event: &Event, n: V, points: &[V]) {
        let (ia, ib) = (event.a as usize, event.b as usize);
        let pair = event.kind == EventKind::BodyBody;
        let (on, body, normal, support) = if !pair {
            (true, ia, n, None)
        } else if self.is_asleep(ib) {
            (true, ia, n, Some(ib))
        } else if self.is_asleep(ia) {
            (true, ib, -n, Some(ia))
        } else {
            (false, ia, n, None)
        };
        if !on || self.is_asleep(body) {
            return;
        }
        if self.rigid.is_empty() || points.is_empty() {
            self.settle_ball(body, normal, support);
        } else {
            self.settle_rigid(body, normal, points, support);
        }
    }
}
