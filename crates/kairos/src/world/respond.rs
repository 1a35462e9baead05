//! The world's response to an event: [`World::resolve`] with its contact and impulses (balls
//! along the normal, rigid bodies with their angular terms through [`crate::rigid`]), the TC
//! model's restitution, the separating nudge after a collision, and a box crossing's wrap.

use super::World;
use crate::ball_toi::{ball_ball_contact, ball_wall_contact, Contact};
use crate::event::{Event, EventKind};
use crate::math::{Rotation, Vector};
use crate::rigid::{self, Side, WallPieces};
use crate::rigid_mesh;

/// What [`World::resolve`] did to the first body of an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Response<V: Vector> {
    /// Impulse applied to body `a` (`None` when nothing was applied).
    pub impulse: Option<V>,
    /// Centre line at contact: body `a` minus body `b` (nearest image), or body `a` minus the
    /// wall's closest point; zero for a box crossing.
    pub separation: V,
    /// The contact's unit normal (from `b`, or the wall, towards `a`), when it is defined;
    /// `None` for a box crossing.
    pub normal: Option<V>,
    /// The event was no contact: a prediction that gave up ([`rigid::MAX_STEPS`] steps, or a
    /// mesh search that ended early) at a time when the bodies are still apart. Its bodies were
    /// moved to the event's time, nothing else changed, and their contacts are predicted again
    /// from there (see [`crate::event::EventKind::Resume`]).
    pub resumed: bool,
}

impl<V: Vector> Response<V> {
    /// No impulse and no contact (a box crossing).
    fn nothing() -> Self {
        Self {
            impulse: None,
            separation: V::ZERO,
            normal: None,
            resumed: false,
        }
    }
}

/// The most doublings of [`World::ensure_separating`]'s nudge: the last is `4 eps 2^24` of the
/// bodies' speeds, about `3e-8` of them in all.
const NUDGES: usize = 25;

impl<V: Vector> World<V> {
    /// The contact of `event` (a collision), from its bodies' stored states: call it once they
    /// are advanced to the event's time.
    #[inline]
    pub fn contact(&self, event: &Event) -> Contact<V> {
        let a = &self.bodies[event.a as usize];
        match event.kind {
            EventKind::BodyBody => {
                let b = &self.bodies[event.b as usize];
                ball_ball_contact(a, b, self.separation(a.pos, b.pos))
            }
            _ => ball_wall_contact(a, &self.walls[event.b as usize]),
        }
    }

    /// Processes `event`: moves its bodies to the event time and applies the impulse along the
    /// contact normal with the world's restitution (elastic within [`World::contact_duration`]
    /// of either body's previous collision, the TC model, which ends inelastic collapse; a box
    /// crossing wraps the body instead).
    /// The impulse is not applied when the bodies were not approaching along the normal at
    /// contact (round-off at a graze); the velocities are then left unchanged.
    pub fn resolve(&mut self, event: &Event) -> Response<V> {
        let mut response = self.respond(event);
        if event.kind != EventKind::BoxCrossing {
            self.ensure_separating(event, &mut response);
        }
        response
    }

    /// After a collision, the pair must not be predicted to collide again at once. With
    /// restitution below 1 (or at a graze), round-off can leave a touching pair approaching by a
    /// few ulps, and the same event would repeat forever. This asks the prediction itself (the
    /// very predicate every broad phase uses) and, while it still says "contact now", adds a
    /// tiny outward normal velocity, doubling it each time: a correction at round-off level,
    /// given up past [`NUDGES`] doublings (a pair that still overlaps, as the fixed-step
    /// stepper's may, is not separated by nudges: 64 doublings took a plank from 20 units/s to
    /// 1e29).
    fn ensure_separating(&mut self, event: &Event, response: &mut Response<V>) {
        let Some(n) = response.normal else {
            return;
        };
        let (ia, ib) = (event.a as usize, event.b as usize);
        let mut nudge = 4.0 * f64::EPSILON;
        for _ in 0..NUDGES {
            // In a periodic box the bounded prediction usually answers without solving (after a
            // collision the pair separates).
            let again = match event.kind {
                EventKind::BodyBody => self.predict_pair_by(event.a, event.b, event.time),
                _ => self.predict_wall_by(event.a, event.b, event.time),
            };
            if !(again.is_hit() && again.time <= event.time) {
                return;
            }
            let scale = match event.kind {
                EventKind::BodyBody => self.bodies[ia].vel.length() + self.bodies[ib].vel.length(),
                _ => self.bodies[ia].vel.length(),
            };
            let dv = nudge * scale.max(f64::MIN_POSITIVE);
            match event.kind {
                EventKind::BodyBody => {
                    // A sleeping body stays at rest: the other one takes the whole nudge.
                    let awake = |w: &Self, i: usize| if w.is_asleep(i) { 0.0 } else { 1.0 };
                    let (ima, imb) = (
                        awake(self, ia) * self.bodies[ia].inv_mass,
                        awake(self, ib) * self.bodies[ib].inv_mass,
                    );
                    let w = ima + imb;
                    if !(w > 0.0) {
                        return;
                    }
                    self.bodies[ia].vel += n * (dv * ima / w);
                    self.bodies[ib].vel -= n * (dv * imb / w);
                    let j = n * (dv / w);
                    response.impulse = Some(response.impulse.map_or(j, |i| i + j));
                }
                _ => {
                    if self.is_asleep(ia) {
                        return;
                    }
                    let m = self.bodies[ia].mass();
                    self.bodies[ia].vel += n * dv;
                    response.impulse =
                        Some(response.impulse.map_or(n * (dv * m), |i| i + n * (dv * m)));
                }
            }
            nudge *= 2.0;
        }
    }

    /// The restitution of a collision at local time `t` of body `ia` with body `ib` (or with a
    /// wall, `ib = None`), under the TC model (Luding and McNamara 1998): the world's
    /// restitution, except that the collision is elastic when either body collided less than
    /// [`World::contact_duration`] before. Records `t` as both bodies' last collision. Elastic
    /// worlds return at once and keep no times.
    ///
    /// This ends inelastic collapse: in a cluster colliding ever faster, the collisions come
    /// closer together than `t_c` and stop dissipating, so their sequence cannot converge to
    /// an instant.
    #[inline]
    fn collision_restitution(&mut self, t: f64, ia: usize, ib: Option<usize>) -> f64 {
        if !(self.restitution < 1.0) {
            return self.restitution;
        }
        if self.last_collision.len() != self.bodies.len() {
            self.last_collision = vec![f64::NEG_INFINITY; self.bodies.len()];
        }
        let tc = self.contact_duration;
        let mut elastic = t - self.last_collision[ia] < tc;
        self.last_collision[ia] = t;
        if let Some(ib) = ib {
            elastic |= t - self.last_collision[ib] < tc;
            self.last_collision[ib] = t;
        }
        if elastic {
            1.0
        } else {
            self.restitution
        }
    }

    /// The response to a collision of a rigid body of another shape than a ball (see
    /// [`rigid`]): impulses with their angular terms at the contact's points.
    fn respond_rigid(&mut self, event: &Event) -> Response<V> {
        let ia = event.a as usize;
        let pair = event.kind == EventKind::BodyBody;
        let ib = event.b as usize;
        self.advance_body(ia, event.time);
        if pair {
            self.advance_body(ib, event.time);
        }
        let t = event.time;
        let contacts = match (self.mesh_of(ia), pair.then(|| self.mesh_of(ib)).flatten()) {
            (Some(x), Some(y)) => {
                let (pa, pb): (Vec<_>, Vec<_>) =
                    (self.pieces(ia).collect(), self.pieces(ib).collect());
                rigid_mesh::mesh_contact_sets(
                    &self.mover(ia),
                    &x.body,
                    &pa,
                    &self.mover(ib),
                    &y.body,
                    &pb,
                    t,
                )
            }
            (Some(x), None) if !pair && matches!(self.wall_pieces[ib], WallPieces::Plane(_)) => {
                let hull = std::iter::once(self.hull_mover(ia, x));
                rigid::pieces_wall_contact_sets(hull, &self.wall_pieces[ib], t)
            }
            _ if pair => rigid::pieces_contact_sets(self.pieces(ia), self.pieces(ib), t),
            _ => rigid::pieces_wall_contact_sets(self.pieces(ia), &self.wall_pieces[ib], t),
        };
        // A prediction that gave up before a contact (its step limit, or a mesh search that
        // ended early) is no contact: the bodies, moved to its time, are predicted again from
        // there ([`rigid::contact_tolerance`]).
        let involved = if pair { &[ia, ib][..] } else { &[ia][..] };
        let (mut reach, mut size, mut speed) = (0.0, 0.0, 0.0);
        for &i in involved {
            let (b, r) = (&self.bodies[i], &self.rigid[i]);
            reach += b.radius;
            size += b.pos.length();
            speed += b.vel.length() + r.spin_bound() * b.radius;
        }
        let tolerance = rigid::contact_tolerance(reach, size, t, speed);
        if contacts.first().is_none_or(|c| c.gap > tolerance) {
            return Response {
                resumed: true,
                ..Response::nothing()
            };
        }
        // The nearest set names the contact (its normal and place).
        let contact = contacts.first().cloned().unwrap_or_default();
        let side = |w: &Self, i: usize| {
            let (b, r) = (&w.bodies[i], &w.rigid[i]);
            Side {
                vel: b.vel,
                omega: r.angular_velocity,
                centre: b.pos,
                inv_mass: b.inv_mass,
                rotation: r.rotation,
                inv_inertia: r.inv_inertia,
            }
        };
        let mut a = side(self, ia);
        let mut b = if pair {
            side(self, ib)
        } else {
            Side {
                vel: V::ZERO,
                omega: V::Angular::default(),
                centre: V::ZERO,
                inv_mass: 0.0,
                rotation: V::Rotation::IDENTITY,
                inv_inertia: self.rigid[ia].inv_inertia,
            }
        };
        let separation = if pair {
            self.separation(a.centre, b.centre)
        } else {
            contact.points.first().map_or(V::ZERO, |&p| a.centre - p)
        };
        let normal = (contact.normal != V::ZERO).then_some(-contact.normal);
        let approach = contacts
            .iter()
            .flat_map(|c| c.points.iter().map(move |&p| (c.normal, p)))
            .fold(f64::NEG_INFINITY, |m, (n, p)| {
                let vb = if pair {
                    b.vel + V::angular_cross(b.omega, p - b.centre)
                } else {
                    V::ZERO
                };
                m.max(n.dot(a.vel + V::angular_cross(a.omega, p - a.centre) - vb))
            });
        let none = Response {
            impulse: None,
            separation,
            normal,
            resumed: false,
        };
        if normal.is_none() {
            return none;
        }
        if !(approach > 0.0) {
            // A contact that does not close: under gravity, a body pressed on its support by
            // gravity alone may come to rest here.
            if self.gravity != V::ZERO {
                self.settle_all(event, &contacts);
            }
            return none;
        }
        if self.gravity != V::ZERO {
            a.inv_mass *= self.moving_or_woken(ia, approach);
            if pair {
                b.inv_mass *= self.moving_or_woken(ib, approach);
            }
            if !(a.inv_mass + b.inv_mass > 0.0) {
                return none;
            }
        }
        let e = self.collision_restitution(t, ia, pair.then_some(ib));
        let j = rigid::respond(&mut a, &mut b, &contacts, e, self.friction);
        self.bodies[ia].vel = a.vel;
        self.rigid[ia].set_angular_velocity(a.omega);
        if pair {
            self.bodies[ib].vel = b.vel;
            self.rigid[ib].set_angular_velocity(b.omega);
        }
        if self.gravity != V::ZERO {
            self.settle_all(event, &contacts);
        }
        Response {
            impulse: Some(j),
            separation,
            normal,
            resumed: false,
        }
    }

    fn respond(&mut self, event: &Event) -> Response<V> {
        if event.kind != EventKind::BoxCrossing
            && (self.is_rigid_shape(event.a as usize)
                || (event.kind == EventKind::BodyBody && self.is_rigid_shape(event.b as usize))
                || (self.friction > 0.0 && !self.rigid.is_empty()))
        {
            return self.respond_rigid(event);
        }
        let none = |contact: Contact<V>| Response {
            impulse: None,
            separation: contact.separation,
            normal: contact.normal,
            resumed: false,
        };
        match event.kind {
            EventKind::BodyBody => {
                let (ia, ib) = (event.a as usize, event.b as usize);
                self.advance_body(ia, event.time);
                self.advance_body(ib, event.time);
                let contact = self.contact(event);
                let Some(n) = contact.normal else {
                    return none(contact);
                };
                let (ba, bb) = (&self.bodies[ia], &self.bodies[ib]);
                let vn = (ba.vel - bb.vel).dot(n);
                if !(vn < 0.0) {
                    if self.gravity != V::ZERO {
                        self.settle(event, n, &[]);
                    }
                    return none(contact);
                }
                let (ima, imb) = (ba.inv_mass, bb.inv_mass);
                let (ima, imb) = if self.gravity == V::ZERO {
                    (ima, imb)
                } else {
                    (
                        self.moving_or_woken(ia, -vn) * ima,
                        self.moving_or_woken(ib, -vn) * imb,
                    )
                };
                if !(ima + imb > 0.0) {
                    return none(contact);
                }
                let e = self.collision_restitution(event.time, ia, Some(ib));
                let j = -(1.0 + e) * vn / (ima + imb);
                self.bodies[ia].vel += n * (j * ima);
                self.bodies[ib].vel -= n * (j * imb);
                if self.gravity != V::ZERO {
                    self.settle(event, n, &[]);
                }
                Response {
                    impulse: Some(n * j),
                    separation: contact.separation,
                    normal: contact.normal,
                    resumed: false,
                }
            }
            EventKind::BodyWall => {
                let ia = event.a as usize;
                self.advance_body(ia, event.time);
                let contact = self.contact(event);
                let Some(n) = contact.normal else {
                    return none(contact);
                };
                let b = &self.bodies[ia];
                let vn = b.vel.dot(n);
                if !(vn < 0.0) {
                    if self.gravity != V::ZERO {
                        self.settle(event, n, &[]);
                    }
                    return none(contact);
                }
                let m = b.mass();
                let e = self.collision_restitution(event.time, ia, None);
                self.bodies[ia].vel -= n * ((1.0 + e) * vn);
                if self.gravity != V::ZERO {
                    self.settle(event, n, &[]);
                }
                Response {
                    impulse: Some(n * (-(1.0 + e) * vn * m)),
                    separation: contact.separation,
                    normal: contact.normal,
                    resumed: false,
                }
            }
            // Broad phases never predict one: it is what the simulation calls a processed
            // event that turned out to be none.
            EventKind::Resume | EventKind::State => Response::nothing(),
            EventKind::BoxCrossing => {
                let Some(l) = self.period else {
                    return Response::nothing();
                };
                let ia = event.a as usize;
                let axis = (event.b / 2) as usize;
                let upper = event.b % 2 == 1;
                self.advance_body(ia, event.time);
                let b = &mut self.bodies[ia];
                // The body is placed exactly on the opposite face.
                let mut p = b.pos.to_array3();
                p[axis] = if upper { 0.0 } else { l.comp(axis) };
                b.pos = V::from_array3(p);
                self.images[ia][axis] += if upper { 1 } else { -1 };
                Response::nothing()
            }
        }
    }
}
