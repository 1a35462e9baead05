//! The simulated world: bodies, walls, predictions and the collision response.

use crate::body::{Body, BodyId};
use crate::event::{Event, EventKind};
use crate::math::Vector;
use crate::toi::{ball_ball, ball_segment, Toi};
use crate::wall::{Wall, WallId};

/// Bodies and static walls, with the response law.
#[derive(Clone, Debug)]
pub struct World<V: Vector> {
    /// Bodies, indexed by [`BodyId`].
    pub bodies: Vec<Body<V>>,
    /// Walls, indexed by [`WallId`].
    pub walls: Vec<Wall<V>>,
    /// Coefficient of restitution in `[0, 1]` (1 = elastic).
    pub restitution: f64,
}

impl<V: Vector> World<V> {
    /// A world with the given bodies and walls and elastic collisions.
    pub fn new(bodies: Vec<Body<V>>, walls: Vec<Wall<V>>) -> Self {
        Self {
            bodies,
            walls,
            restitution: 1.0,
        }
    }

    /// Contact time of bodies `i` and `j` (see [`ball_ball`]).
    #[inline]
    pub fn predict_pair(&self, i: BodyId, j: BodyId) -> Toi {
        let (lo, hi) = if i < j { (i, j) } else { (j, i) };
        ball_ball(&self.bodies[lo as usize], &self.bodies[hi as usize])
    }

    /// Contact time of body `i` with wall `w`.
    #[inline]
    pub fn predict_wall(&self, i: BodyId, w: WallId) -> Toi {
        let b = &self.bodies[i as usize];
        match &self.walls[w as usize] {
            Wall::Segment(s) => ball_segment(b, s),
        }
    }

    /// The ball-ball event of `i` and `j`, if they collide.
    #[inline]
    pub fn pair_event(&self, i: BodyId, j: BodyId) -> Option<Event> {
        let t = self.predict_pair(i, j);
        t.is_hit().then(|| Event {
            time: t.time,
            kind: EventKind::BallBall,
            a: i.min(j),
            b: i.max(j),
        })
    }

    /// The ball-wall event of `i` and `w`, if they collide.
    #[inline]
    pub fn wall_event(&self, i: BodyId, w: WallId) -> Option<Event> {
        let t = self.predict_wall(i, w);
        t.is_hit().then_some(Event {
            time: t.time,
            kind: EventKind::BallWall,
            a: i,
            b: w,
        })
    }

    /// Processes `event`: moves its bodies to the event time and applies the impulse along the
    /// contact normal with the world's restitution. Returns false when the bodies were not
    /// approaching along the normal at contact (round-off at a graze), in which case the
    /// velocities are left unchanged.
    pub fn resolve(&mut self, event: &Event) -> bool {
        let e = self.restitution;
        match event.kind {
            EventKind::BallBall => {
                let (ia, ib) = (event.a as usize, event.b as usize);
                self.bodies[ia].advance_to(event.time);
                self.bodies[ib].advance_to(event.time);
                let (ba, bb) = (&self.bodies[ia], &self.bodies[ib]);
                let d = ba.pos - bb.pos;
                let dist2 = d.length_squared();
                if !(dist2 > 0.0) {
                    return false;
                }
                let n = d * (1.0 / dist2.sqrt());
                let vn = (ba.vel - bb.vel).dot(n);
                if !(vn < 0.0) {
                    return false;
                }
                let j = -(1.0 + e) * vn / (ba.inv_mass + bb.inv_mass);
                let (ima, imb) = (ba.inv_mass, bb.inv_mass);
                self.bodies[ia].vel += n * (j * ima);
                self.bodies[ib].vel -= n * (j * imb);
                true
            }
            EventKind::BallWall => {
                let ia = event.a as usize;
                self.bodies[ia].advance_to(event.time);
                let b = &self.bodies[ia];
                let d = b.pos - self.walls[event.b as usize].closest_point(b.pos);
                let dist2 = d.length_squared();
                if !(dist2 > 0.0) {
                    return false;
                }
                let n = d * (1.0 / dist2.sqrt());
                let vn = b.vel.dot(n);
                if !(vn < 0.0) {
                    return false;
                }
                self.bodies[ia].vel -= n * ((1.0 + e) * vn);
                true
            }
        }
    }

    /// Total kinetic energy.
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies.iter().map(Body::kinetic_energy).sum()
    }

    /// Total linear momentum.
    pub fn momentum(&self) -> V {
        self.bodies
            .iter()
            .fold(V::ZERO, |acc, b| acc + b.vel * b.mass())
    }

    /// Moves every body's stored state to time `t` (used at the end of a run).
    pub fn advance_all_to(&mut self, t: f64) {
        for b in &mut self.bodies {
            b.advance_to(t);
        }
    }
}
