//! The world's predictions: the contact times of two bodies and of a body with a wall, the one
//! dispatch of every prediction (balls to the narrow phase's closed forms, other shapes to
//! [`crate::rigid`], meshes to [`crate::rigid_mesh`]), and the events they make.

use super::{BodyKind, World};
use crate::ball_toi::{
    ball_ball, ball_ball_accel, ball_ball_periodic, ball_ball_periodic_by, box_exit, Toi, ToiStatus,
};
use crate::body::BodyId;
use crate::event::{Event, EventKind};
use crate::math::Vector;
use crate::rigid::{self, MovingPiece, WallPieces};
use crate::rigid_mesh;
use crate::wall::WallId;

impl<V: Vector> World<V> {
    /// The first contact of rigid bodies `lo` and `hi` (at least one not a ball), by their
    /// kinds.
    #[inline]
    fn predict_rigid_pair(&self, lo: usize, hi: usize, t_max: f64) -> Toi {
        use BodyKind::{Ball, Compound, Convex, Mesh};
        match (self.kind(lo), self.kind(hi)) {
            (Mesh, Mesh) => {
                let (x, y) = (self.mesh_body(lo), self.mesh_body(hi));
                let (a, b) = (self.mover(lo), self.mover(hi));
                rigid_mesh::mesh_mesh(&a, &x.body, &b, &y.body, t_max)
            }
            (Ball | Convex, Ball | Convex) => {
                rigid::body_body(&self.mover(lo), &self.mover(hi), t_max)
            }
            (Compound | Mesh, _) | (_, Compound | Mesh) => {
                // A mesh against a convex body: no piece of the mesh can touch the body before
                // the mesh's hull, which holds them all, does (see `predict_rigid_wall`).
                let hull_clear = |m: usize, other: usize| {
                    self.kind(m) == Mesh && {
                        let hull = std::iter::once(self.hull_mover(m, self.mesh_body(m)));
                        !rigid::pieces_body_body(hull, self.pieces(other), t_max).is_hit()
                    }
                };
                if hull_clear(lo, hi) || hull_clear(hi, lo) {
                    return Toi::miss(ToiStatus::Separating);
                }
                rigid::pieces_body_body(self.pieces(lo), self.pieces(hi), t_max)
            }
        }
    }

    /// The first contact of rigid body `i` (not a ball) with wall `w`, by its kind.
    #[inline]
    fn predict_rigid_wall(&self, i: usize, w: usize, t_max: f64) -> Toi {
        let pieces = &self.wall_pieces[w];
        match self.kind(i) {
            BodyKind::Ball | BodyKind::Convex => rigid::body_wall(&self.mover(i), pieces, t_max),
            BodyKind::Compound => rigid::pieces_body_wall(self.pieces(i), pieces, t_max),
            BodyKind::Mesh => {
                let hull = self.hull_mover(i, self.mesh_body(i));
                if let WallPieces::Plane(_) = pieces {
                    // A plane first meets the solid at a vertex of its hull.
                    return rigid::body_wall(&hull, pieces, t_max);
                }
                // A mesh against a segment, a polygon or a static shape: the hull is tried
                // first. The solid lies inside its hull, so a hull that meets no piece of the
                // wall by `t_max` (a clean miss, not an advancement that gave up) proves that
                // no triangle piece does, and the many pieces are not visited; otherwise the
                // pieces give the answer, as without the hull. The result is the pieces'
                // either way, a pure function of the stored state.
                if !rigid::body_wall(&hull, pieces, t_max).is_hit() {
                    return Toi::miss(ToiStatus::Separating);
                }
                // Then the triangles through the mesh's sphere tree: only those whose
                // subtrees can reach the wall by the earliest contact found so far.
                let (b, r) = (&self.bodies[i], &self.rigid[i]);
                let piece = |k| MovingPiece::nth_piece(&self.shapes, b, r, self.accel(i), k);
                rigid_mesh::mesh_wall(
                    &self.mover(i),
                    &self.mesh_body(i).body,
                    piece,
                    pieces,
                    t_max,
                )
            }
        }
    }

    /// Contact time of bodies `i` and `j` (the narrow phase's [`ball_ball`], or
    /// [`ball_ball_periodic`] in a periodic box).
    #[inline]
    pub fn predict_pair(&self, i: BodyId, j: BodyId) -> Toi {
        let (lo, hi) = if i < j { (i, j) } else { (j, i) };
        if self.is_asleep(lo as usize) && self.is_asleep(hi as usize) {
            // Both at rest: they never meet (even touching, or overlapping by round-off).
            return Toi::miss(ToiStatus::Separating);
        }
        if self.gravity != V::ZERO
            && !self.is_rigid_shape(lo as usize)
            && !self.is_rigid_shape(hi as usize)
        {
            let (l, h) = (lo as usize, hi as usize);
            return ball_ball_accel(
                &self.bodies[l],
                self.accel(l),
                &self.bodies[h],
                self.accel(h),
            );
        }
        if self.is_rigid_shape(lo as usize) || self.is_rigid_shape(hi as usize) {
            return self.predict_rigid_pair(lo as usize, hi as usize, f64::INFINITY);
        }
        let (bi, bj) = (&self.bodies[lo as usize], &self.bodies[hi as usize]);
        match self.period {
            None => ball_ball(bi, bj),
            Some(l) => ball_ball_periodic(bi, bj, l),
        }
    }

    /// [`World::predict_pair`] for a caller that uses only contacts at or before `t_max`: the
    /// same report for those, and in a periodic box a miss without solving for a pair that
    /// cannot touch by then ([`ball_ball_periodic_by`]).
    #[inline]
    pub fn predict_pair_by(&self, i: BodyId, j: BodyId, t_max: f64) -> Toi {
        let Some(l) = self.period else {
            let (lo, hi) = if i < j { (i, j) } else { (j, i) };
            if self.is_asleep(lo as usize) && self.is_asleep(hi as usize) {
                return Toi::miss(ToiStatus::Separating);
            }
            if self.is_rigid_shape(lo as usize) || self.is_rigid_shape(hi as usize) {
                return self.predict_rigid_pair(lo as usize, hi as usize, t_max);
            }
            return self.predict_pair(i, j);
        };
        let (lo, hi) = if i < j { (i, j) } else { (j, i) };
        let (bi, bj) = (&self.bodies[lo as usize], &self.bodies[hi as usize]);
        ball_ball_periodic_by(bi, bj, l, t_max, || {
            box_exit(bi, l).0.min(box_exit(bj, l).0)
        })
    }

    /// Contact time of body `i` with wall `w` (the wall dispatch of balls, [`rigid::ball_against_wall`], or [`rigid::body_wall`]).
    #[inline]
    pub fn predict_wall(&self, i: BodyId, w: WallId) -> Toi {
        if self.is_asleep(i as usize) {
            return Toi::miss(ToiStatus::Separating);
        }
        if self.is_rigid_shape(i as usize) {
            return self.predict_rigid_wall(i as usize, w as usize, f64::INFINITY);
        }
        let accel = (self.gravity != V::ZERO).then(|| self.accel(i as usize));
        rigid::ball_against_wall(&self.bodies[i as usize], accel, &self.walls[w as usize])
    }

    /// [`World::predict_wall`] for a caller that uses only contacts at or before `t_max`: the
    /// same report for those; a rigid body's advancement stops at `t_max`.
    #[inline]
    pub fn predict_wall_by(&self, i: BodyId, w: WallId, t_max: f64) -> Toi {
        if self.is_asleep(i as usize) {
            return Toi::miss(ToiStatus::Separating);
        }
        if self.is_rigid_shape(i as usize) {
            return self.predict_rigid_wall(i as usize, w as usize, t_max);
        }
        self.predict_wall(i, w)
    }

    /// [`World::pair_event`] for a caller that uses only events at or before `t_max`.
    #[inline]
    pub fn pair_event_by(&self, i: BodyId, j: BodyId, t_max: f64) -> Option<Event> {
        let t = self.predict_pair_by(i, j, t_max);
        t.is_hit().then(|| Event {
            time: t.time,
            kind: EventKind::BodyBody,
            a: i.min(j),
            b: i.max(j),
        })
    }

    /// [`World::wall_event`] for a caller that uses only events at or before `t_max`.
    #[inline]
    pub fn wall_event_by(&self, i: BodyId, w: WallId, t_max: f64) -> Option<Event> {
        let t = self.predict_wall_by(i, w, t_max);
        t.is_hit().then_some(Event {
            time: t.time,
            kind: EventKind::BodyWall,
            a: i,
            b: w,
        })
    }

    /// The ball-ball event of `i` and `j`, if they collide.
    #[inline]
    pub fn pair_event(&self, i: BodyId, j: BodyId) -> Option<Event> {
        let t = self.predict_pair(i, j);
        t.is_hit().then(|| Event {
            time: t.time,
            kind: EventKind::BodyBody,
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
            kind: EventKind::BodyWall,
            a: i,
            b: w,
        })
    }
}
