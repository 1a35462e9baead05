//! The stepped engine's count of pass-throughs ([`super::StepStats::tunnelled`]): the exact
//! contacts the motion made that the solver never pushed on and that left the pair
//! interpenetrated or on the other side, and the bodies whose centre went behind a plane wall.

use super::{ContactPair, Correction, SteppedSim, BAUMGARTE_SLOP, SLOP};
use crate::math::Vector;
use crate::wall::Wall;

/// An exact contact the motion made in a sub-step: the pair, and where (the second body's
/// centre minus the first's, or the body's centre for a wall) and how (the relative velocity)
/// it was made.
#[derive(Clone, Copy, Debug)]
pub(super) struct Contacted<V> {
    pub(super) pair: ContactPair,
    at: V,
    along: V,
}

impl<V: Vector> SteppedSim<V> {
    /// The contact pair `c` makes at `t` into the sub-step on the motion the bodies have now
    /// ([`Self::moving`]).
    pub(super) fn contacted(&self, c: ContactPair, t: f64) -> Contacted<V> {
        let at = |i: u32| {
            let v = self.moving(i as usize).0;
            (self.bodies[i as usize].position + v * t, v)
        };
        let (pa, va) = at(c.a);
        let (at, along) = if c.wall {
            (pa, va)
        } else {
            let (pb, vb) = at(c.b);
            (pb - pa, vb - va)
        };
        Contacted { pair: c, at, along }
    }

    /// Counts the contacts the motion made in the step before ([`Self::contacted`]) whose pair
    /// pushed in neither that step nor this one, and that passed through: its points now
    /// penetrate deeper than the solver's slop, or (two bodies apart) the second body's centre
    /// went past the first's along their motion. A pair that touched without a push (resting,
    /// grazing, stopped where it touched) is not a pass; nor is a body behind a wall's inner
    /// face, counted once already ([`Self::count_behind_walls`]).
    pub(super) fn count_passes(&mut self, made: Vec<Contacted<V>>) {
        let slop = match self.options.correction {
            Correction::Split | Correction::Soft => SLOP,
            Correction::Baumgarte => BAUMGARTE_SLOP,
        };
        for m in made {
            let c = m.pair;
            if self.touched.binary_search(&c).is_ok()
                || self.touching.binary_search(&c).is_ok()
                || (c.wall && self.behind.binary_search(&(c.a, c.b)).is_ok())
            {
                continue;
            }
            let (mut rows, mut points) = (Vec::new(), Vec::new());
            self.pair_points(c, &mut rows, &mut points);
            let deep = points.iter().any(|p| p.separation < -slop * p.size);
            let crossed = !c.wall && points.is_empty() && {
                let now = self.bodies[c.b as usize].position - self.bodies[c.a as usize].position;
                m.at.dot(m.along) < 0.0 && now.dot(m.along) > 0.0
            };
            if deep || crossed {
                self.stats.tunnelled += 1;
                self.stats.tunnelled_wall += c.wall as u64;
            }
        }
    }

    /// The inner faces of the walls, each a wall id with a point of the face and its normal
    /// into the room: every plane.
    fn inner_faces(&self) -> Vec<(u32, V, V)> {
        let walls = &self.world.walls;
        let mut faces = Vec::new();
        let mut k = 0;
        while k < walls.len() {
            if let Wall::Plane(p) = &walls[k] {
                faces.push((k as u32, p.point, p.normal));
            }
            k += 1;
        }
        faces
    }

    /// Counts as tunnelled each body whose centre went behind a wall's inner face in this step
    /// ([`Self::inner_faces`]): a face's contacts are the body's vertices past it, so a centre
    /// behind it is a body through it, whatever the check saw (a sliver or a box of tiny
    /// inertia sinking through the floor under a load the sweeps cannot hold).
    pub(super) fn count_behind_walls(&mut self) {
        let mut now = Vec::new();
        for (w, point, normal) in self.inner_faces() {
            for (i, b) in self.bodies.iter().enumerate() {
                if (b.position - point).dot(normal) < 0.0 {
                    now.push((i as u32, w));
                }
            }
        }
        now.sort_unstable();
        for x in &now {
            if self.behind.binary_search(x).is_err() {
                self.stats.tunnelled += 1;
                self.stats.tunnelled_wall += 1;
            }
        }
        self.behind = now;
    }
}
