//! The discrete stepper on a world of rigid bodies (see the [parent module](super) for the
//! method and the definition of a missed collision).
//!
//! The same step as for balls, with the bodies' shapes in place of their spheres: every body
//! moves and turns ([`World::advance_body`]), the discrete finder gives the pairs whose bounding
//! spheres' boxes overlap, and a pair is a contact when its posed shapes overlap by more than
//! [`SLOP`] (GJK's [`intersects`], then EPA's [`penetration`] for the depth and normal). A
//! contact is pushed apart along EPA's normal by the depth (and [`GAP`] of the contact shell
//! more, where the event-driven simulator resolves contacts), in proportion to the inverse
//! masses, and resolved by [`World::resolve`], which computes the contact manifold at the
//! contact and applies the rigid impulses with their angular terms. A body against a wall: a
//! plane by the body's support point along its normal (on the side of the body's centre), a
//! segment or a polygon by EPA against each of its pieces, the deepest one first.

// `!(x > 0.0)` on purpose: a NaN takes the safe branch.

use super::{boundary_round_off, Contact, DiscreteSim, PAD_REL};
use crate::event::{Event, EventKind};
use crate::math::{Aabb, Vector};
use crate::query::{
    distance, intersects, penetration, EpaOptions, EpaStatus, GjkOptions, GjkStatus,
};
use crate::rigid::{self, MovingPiece, WallPieces};
use crate::shape::{Pose, SupportMap};
use crate::world::World;

/// Overlaps up to this depth, relative to the size of the pair (the sum of the bounding radii,
/// or the body's against a wall), are the round-off of a push apart (EPA converges to a
/// relative `1e-10`), not contacts.
pub const SLOP: f64 = 1e-9;

/// A pushed-apart pair is left this fraction of its contact shell ([`rigid::SHELL`] times its
/// size) apart: where the event-driven simulator resolves its contacts (its predictions keep
/// the gap in `[shell / 2, shell]`), so that the response and its check that the pair
/// separates see the configuration they were made for.
const GAP: f64 = 0.75;

/// Most push-outs of a body from the pieces of one wall (a polygon wall's triangles).
const WALL_PUSHES: usize = 4;

/// A usable unit direction: finite and not zero.
fn direction<V: Vector>(n: V) -> bool {
    n.is_finite() && n != V::ZERO
}

impl<V: Vector> DiscreteSim<V> {
    /// Body `i`'s pieces as [`MovingPiece`]s (one for a convex body), without gravity: the stepper
    /// moves bodies on straight lines.
    fn pieces(&self, i: usize) -> impl Iterator<Item = MovingPiece<'_, V>> + Clone {
        let w = &self.world;
        MovingPiece::pieces(&w.shapes, &w.bodies[i], &w.rigid[i], V::ZERO)
    }

    /// The contact shell's size of body `i`: its bounding radius, 0 for a ball (as in
    /// [`rigid::body_body`]).
    fn shell_size(&self, i: usize) -> f64 {
        if self.world.is_rigid_shape(i) {
            self.world.rigid[i].radius
        } else {
            0.0
        }
    }

    /// The overlap of bodies `a` and `b` at `t` (their stored motions taken there), deeper than
    /// [`SLOP`]: the depth and the unit normal from `a` to `b` (moving `b` by the depth along
    /// it makes them touch).
    pub(super) fn pair_overlap(&self, a: usize, b: usize, t: f64) -> Option<(f64, V)> {
        let size = self.world.bodies[a].radius + self.world.bodies[b].radius;
        let mut best: Option<(f64, V)> = None;
        // The deepest overlap of a pair of pieces (one pair for two convex bodies).
        for ma in self.pieces(a) {
            for mb in self.pieces(b) {
                let (pa, pb) = (ma.pose_at(t), mb.pose_at(t));
                if !intersects(ma.shape, &pa, mb.shape, &pb, &GjkOptions::default(), None) {
                    continue;
                }
                let e = penetration(ma.shape, &pa, mb.shape, &pb, &EpaOptions::default());
                if e.status != EpaStatus::Separated
                    && e.depth > SLOP * size
                    && e.depth.is_finite()
                    && direction(e.normal)
                    && best.is_none_or(|(d, _)| e.depth > d)
                {
                    best = Some((e.depth, e.normal));
                }
            }
        }
        best
    }

    /// The overlap of body `a` with wall `w` at `t`, deeper than [`SLOP`] (the deepest of its
    /// pieces): the depth and the unit direction that moves the body out.
    pub(super) fn wall_overlap(&self, a: usize, w: usize, t: f64) -> Option<(f64, V)> {
        let body = &self.world.bodies[a];
        let centre = body.position_at(t);
        let limit = SLOP * body.radius;
        let mut best: Option<(f64, V)> = None;
        let mut keep = |depth: f64, out: V| {
            if depth > limit && depth.is_finite() && best.is_none_or(|(d, _)| depth > d) {
                best = Some((depth, out));
            }
        };
        for m in self.pieces(a) {
            let pose = m.pose_at(t);
            match &self.world.wall_pieces[w] {
                WallPieces::Plane(p) => {
                    let up = p.normal_towards(centre);
                    keep(-up.dot(m.shape.support(&pose, -up) - p.point), up);
                }
                WallPieces::Shapes(pieces) => {
                    for (shape, place, c, r) in pieces {
                        if !((centre - *c).length() <= body.radius + r) {
                            continue;
                        }
                        if !intersects(m.shape, &pose, shape, place, &GjkOptions::default(), None) {
                            continue;
                        }
                        let e = penetration(m.shape, &pose, shape, place, &EpaOptions::default());
                        if e.status != EpaStatus::Separated && direction(e.normal) {
                            keep(e.depth, -e.normal);
                        }
                    }
                }
            }
        }
        best
    }

    /// Whether the contact's bodies, their stored motions taken to `t`, overlap.
    pub(super) fn rigid_overlaps_at(&self, c: &Contact, t: f64) -> bool {
        match c.kind {
            EventKind::BodyBody => self.pair_overlap(c.a as usize, c.b as usize, t).is_some(),
            _ => self.wall_overlap(c.a as usize, c.b as usize, t).is_some(),
        }
    }

    /// One sub-step from `t0` to `t1` of a world of rigid bodies.
    pub(super) fn step_rigid(
        &mut self,
        t0: f64,
        t1: f64,
        on_event: &mut dyn FnMut(&Event, &World<V>),
    ) {
        if self.opts.count_misses {
            self.count_misses_rigid(t0, t1);
        }
        for i in 0..self.world.bodies.len() {
            self.world.advance_body(i, t1);
        }
        self.find_contacts_rigid(t0, t1);
        let contacts = std::mem::take(&mut self.contacts);
        let mut last = t0;
        for c in &contacts {
            if let Some(e) = self.resolve_rigid(c, t0, t1, &mut last) {
                match e.kind {
                    EventKind::BodyBody => self.counts.body_body += 1,
                    _ => self.counts.body_wall += 1,
                }
                on_event(&e, &self.world);
            }
        }
        self.contacts = contacts;
        if self.opts.toi_rewind {
            for i in 0..self.world.bodies.len() {
                if self.world.bodies[i].time < t1 {
                    self.world.advance_body(i, t1);
                }
            }
        }
        if self.opts.count_misses {
            self.settle_misses_rigid(t1);
        }
    }

    /// The overlapping pairs and body-wall contacts at `t1`, in processing order.
    fn find_contacts_rigid(&mut self, t0: f64, t1: f64) {
        self.boxes.clear();
        self.boxes.extend(self.world.bodies.iter().map(|b| {
            let pad = b.radius + PAD_REL * (b.radius + b.pos.max_abs());
            Aabb::new(b.pos, b.pos).expanded(pad)
        }));
        self.find_candidates(false);
        let mut contacts = std::mem::take(&mut self.contacts);
        contacts.clear();
        for &(i, j, _) in &self.candidates {
            if self.pair_overlap(i as usize, j as usize, t1).is_some() {
                contacts.push(Contact {
                    time: t1,
                    kind: EventKind::BodyBody,
                    a: i,
                    b: j,
                });
            }
        }
        for (w, wall) in self.world.walls.iter().enumerate() {
            for (i, b) in self.world.bodies.iter().enumerate() {
                if wall.distance(b.pos) < b.radius && self.wall_overlap(i, w, t1).is_some() {
                    contacts.push(Contact {
                        time: t1,
                        kind: EventKind::BodyWall,
                        a: i as u32,
                        b: w as u32,
                    });
                }
            }
        }
        self.contacts = contacts;
        self.order_contacts(t0, t1);
    }

    /// Resolves one contact if its bodies still overlap: push apart along the penetration
    /// normal, then the world's rigid response.
    fn resolve_rigid(&mut self, c: &Contact, t0: f64, t1: f64, last: &mut f64) -> Option<Event> {
        if !self.rigid_overlaps_at(c, t1) {
            return None;
        }
        let time = if self.opts.toi_rewind {
            self.rewind_time(c, t0.max(*last), t1)
        } else {
            t1
        };
        *last = time;
        let (ia, ib) = (c.a as usize, c.b as usize);
        match c.kind {
            EventKind::BodyBody => {
                self.world.advance_body(ia, time);
                self.world.advance_body(ib, time);
                if let Some((depth, n)) = self.pair_overlap(ia, ib, time) {
                    let gap = GAP * rigid::SHELL * (self.shell_size(ia) + self.shell_size(ib));
                    let depth = depth + gap;
                    let (wa, wb) = (
                        self.world.bodies[ia].inv_mass,
                        self.world.bodies[ib].inv_mass,
                    );
                    let w = wa + wb;
                    if w > 0.0 {
                        self.world.bodies[ia].pos -= n * (depth * wa / w);
                        self.world.bodies[ib].pos += n * (depth * wb / w);
                    }
                }
            }
            _ => {
                self.world.advance_body(ia, time);
                for _ in 0..WALL_PUSHES {
                    let Some((depth, out)) = self.wall_overlap(ia, ib, time) else {
                        break;
                    };
                    let gap = GAP * rigid::SHELL * self.shell_size(ia);
                    self.world.bodies[ia].pos += out * (depth + gap);
                }
            }
        }
        let event = Event {
            time,
            kind: c.kind,
            a: c.a,
            b: c.b,
        };
        self.world.resolve(&event);
        Some(event)
    }

    /// Finds the contacts of the exact motion over `[t0, t1]` that the overlap test at `t1`
    /// does not see, or sees on the wrong side, for [`DiscreteSim::settle_misses_rigid`] to
    /// count; the world holds its state at `t0`.
    fn count_misses_rigid(&mut self, t0: f64, t1: f64) {
        let h = t1 - t0;
        self.boxes.clear();
        self.boxes.extend(self.world.bodies.iter().map(|b| {
            let p1 = b.pos + b.vel * h;
            let pad = b.radius + PAD_REL * (b.radius + b.pos.max_abs() + p1.max_abs());
            Aabb::from_points(b.pos, p1).expanded(pad)
        }));
        self.find_candidates(true);
        let mut unseen = std::mem::take(&mut self.unseen);
        unseen.clear();
        for &(i, j, _) in &self.candidates {
            let toi = self.world.predict_pair_by(i, j, t1);
            if toi.is_hit()
                && toi.time <= t1
                && !self.pair_seen(i as usize, j as usize, toi.time, t1)
            {
                unseen.push(Contact {
                    time: toi.time,
                    kind: EventKind::BodyBody,
                    a: i,
                    b: j,
                });
            }
        }
        for (w, wall) in self.world.walls.iter().enumerate() {
            for (i, b) in self.world.bodies.iter().enumerate() {
                let reach = b.radius + b.vel.length() * h;
                if !(wall.distance(b.pos) <= reach * (1.0 + PAD_REL)) {
                    continue;
                }
                let toi = self.world.predict_wall_by(i as u32, w as u32, t1);
                if toi.is_hit() && toi.time <= t1 && !self.wall_seen(i, w, toi.time, t1) {
                    unseen.push(Contact {
                        time: toi.time,
                        kind: EventKind::BodyWall,
                        a: i as u32,
                        b: w as u32,
                    });
                }
            }
        }
        self.unseen = unseen;
    }

    /// Counts the contacts [`DiscreteSim::count_misses_rigid`] found unseen in the sub-step
    /// ending at `t1`, once it is done (every body at `t1`, the contacts resolved). The windows
    /// are half-open: a contact that the next sub-step's prediction, from these states, reports
    /// at its start (to the round-off of the times) belongs to that sub-step, which counts it
    /// (or sees it) once. A rigid contact is reported as soon as the pair is within its contact
    /// shell, slightly before the shapes touch, so this holds a contact on the boundary and
    /// also one reported before it whose pair is still apart at `t1`, within its shell and
    /// approaching: the next prediction reports it again at once. A pair this sub-step pushed
    /// apart, or that passed through, is not reported there, and the last sub-step has no next
    /// one: they count here.
    fn settle_misses_rigid(&mut self, t1: f64) {
        let unseen = std::mem::take(&mut self.unseen);
        let last = t1 >= self.end_time;
        let by = t1 + boundary_round_off(t1, self.h);
        for c in &unseen {
            let next = match c.kind {
                EventKind::BodyBody => self.world.predict_pair_by(c.a, c.b, by),
                _ => self.world.predict_wall_by(c.a, c.b, by),
            };
            if !last && next.is_hit() && next.time <= by {
                continue;
            }
            match c.kind {
                EventKind::BodyBody => self.misses.body_body += 1,
                _ => self.misses.body_wall += 1,
            }
        }
        self.unseen = unseen;
        self.unseen.clear();
    }

    /// The unit normal from `a` to `b` at `t`: GJK's when apart, EPA's when they overlap.
    fn pair_normal(&self, a: &MovingPiece<V>, b: &MovingPiece<V>, t: f64) -> V {
        let (pa, pb) = (a.pose_at(t), b.pose_at(t));
        let g = distance(a.shape, &pa, b.shape, &pb, &GjkOptions::default(), None);
        if matches!(g.status, GjkStatus::Separated | GjkStatus::Touching) && direction(g.normal) {
            return g.normal;
        }
        penetration(a.shape, &pa, b.shape, &pb, &EpaOptions::default()).normal
    }

    /// Whether the overlap test at `t1` sees the contact of bodies `a` and `b` at `tc`: they
    /// overlap at `t1`, and the push apart would move them along the normal at contact, not
    /// through each other.
    fn pair_seen(&self, a: usize, b: usize, tc: f64, t1: f64) -> bool {
        let Some((_, end)) = self.pair_overlap(a, b, t1) else {
            return false;
        };
        // The normal of the nearest pair of pieces at contact.
        let mut nearest: Option<(f64, MovingPiece<V>, MovingPiece<V>)> = None;
        for ma in self.pieces(a) {
            for mb in self.pieces(b) {
                let (pa, pb) = (ma.pose_at(tc), mb.pose_at(tc));
                let gap =
                    distance(ma.shape, &pa, mb.shape, &pb, &GjkOptions::default(), None).distance;
                if nearest.as_ref().is_none_or(|(g, _, _)| gap < *g) {
                    nearest = Some((gap, ma, mb));
                }
            }
        }
        nearest.is_some_and(|(_, ma, mb)| end.dot(self.pair_normal(&ma, &mb, tc)) > 0.0)
    }

    /// Whether the overlap test at `t1` sees the contact of body `a` with wall `w` at `tc`: they
    /// overlap at `t1` and the push out moves the body back to the side it came from.
    fn wall_seen(&self, a: usize, w: usize, tc: f64, t1: f64) -> bool {
        let Some((_, out)) = self.wall_overlap(a, w, t1) else {
            return false;
        };
        let from = match &self.world.wall_pieces[w] {
            WallPieces::Plane(p) => p.normal_towards(self.world.bodies[a].pos),
            WallPieces::Shapes(pieces) => {
                // The pair of pieces nearest at contact, as the response takes it.
                #[allow(clippy::type_complexity)]
                let mut best: Option<(
                    f64,
                    MovingPiece<V>,
                    &crate::shape::Shape<V>,
                    Pose<V>,
                )> = None;
                for m in self.pieces(a) {
                    let pose = m.pose_at(tc);
                    for (shape, place, _, _) in pieces {
                        let gap =
                            distance(m.shape, &pose, shape, place, &GjkOptions::default(), None)
                                .distance;
                        if best.as_ref().is_none_or(|(g, _, _, _)| gap < *g) {
                            best = Some((gap, m, shape, *place));
                        }
                    }
                }
                let Some((_, m, piece, place)) = best else {
                    return false;
                };
                -self.pair_normal(&m, &MovingPiece::placed(piece, place), tc)
            }
        };
        out.dot(from) > 0.0
    }
}
