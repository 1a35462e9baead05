//! The stepped engine's count of pass-throughs ([`super::StepStats::tunnelled`]): the exact
//! contacts the motion made that the solver never pushed on and that left the pair
//! interpenetrated or on the other side, and the bodies whose centre went behind a wall's inner
//! face (a plane, or a side of a box room).

use super::{ContactPair, SteppedSim};
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
        let slop = self.options.correction.slop();
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
            let deep = points.iter().any(|p| p.separation < -slop * p.slop_size);
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
    /// into the room: every plane, and the faces of each box room (`2 × dim` walls in a row, the
    /// sides of an axis-aligned box, as a `box` wall item builds them).
    fn inner_faces(&self) -> Vec<(u32, V, V)> {
        let walls = &self.world.walls;
        let mut faces = Vec::new();
        let mut k = 0;
        while k < walls.len() {
            if let Wall::Plane(p) = &walls[k] {
                faces.push((k as u32, p.point, p.normal));
            } else if let Some((min, max)) = box_room(&walls[k..]) {
                for axis in 0..V::DIM {
                    let n = V::unit(axis);
                    let w = (k + 2 * axis) as u32;
                    faces.push((w, min, n));
                    faces.push((w + 1, max, n * -1.0));
                }
                k += 2 * V::DIM;
                continue;
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

/// The corners `(min, max)` of the box room whose sides are the first `2 × dim` of `walls`
/// (in 2D segments, in 3D polygons; per axis the side at `min` then the side at `max`, each
/// spanning the box on the other axes), if they are one.
fn box_room<V: Vector>(walls: &[Wall<V>]) -> Option<(V, V)> {
    let d = V::DIM;
    let points = |w: &Wall<V>| -> Option<Vec<V>> {
        match w {
            Wall::Segment(s) if d == 2 => Some(vec![s.a, s.b]),
            Wall::Polygon(p) if d == 3 => Some(p.vertices.clone()),
            _ => None,
        }
    };
    let sides = walls
        .get(..2 * d)?
        .iter()
        .map(points)
        .collect::<Option<Vec<_>>>()?;
    let (mut min, mut max) = (vec![0.0; d], vec![0.0; d]);
    for axis in 0..d {
        min[axis] = sides[2 * axis][0].comp(axis);
        max[axis] = sides[2 * axis + 1][0].comp(axis);
    }
    if (0..d).any(|a| !(min[a] < max[a])) {
        return None;
    }
    for (k, side) in sides.iter().enumerate() {
        let (axis, x) = (k / 2, if k % 2 == 0 { min[k / 2] } else { max[k / 2] });
        for o in 0..d {
            let (lo, hi) = side
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |r, p| {
                    (r.0.min(p.comp(o)), r.1.max(p.comp(o)))
                });
            let spans = if o == axis {
                lo == x && hi == x
            } else {
                lo == min[o] && hi == max[o]
            };
            if !spans {
                return None;
            }
        }
    }
    Some((V::try_from_slice(&min)?, V::try_from_slice(&max)?))
}
