//! A mesh body against the static pieces of a wall (a polygon's triangles, a segment, a static
//! shape): its triangles, each advanced as a piece, but only those of the subtrees of the mesh's
//! sphere tree that can reach the wall by the earliest contact found so far.
//!
//! # Which subtrees can reach the wall
//!
//! A node's sphere (radius `r`, in the shape's frame) is centred `u` from the centre of mass.
//! Its centre moves as the centre of mass does (velocity and gravity) plus the turn, which moves
//! it at most `min(2, Ω s) |u|` in a time `s` from where the turn puts it at the start of that
//! time (`Ω` a bound on the angular speed at every time,
//! [`crate::rigid::RigidState::spin_bound`]). The search, up to the earliest contact found so
//! far (or `t_max`, or the time the body's bounding sphere leaves every piece's, after which no
//! triangle's own window is open), is cut into intervals over each of which the turn moves a
//! point by at most a 64th of its distance from the centre of mass (at most 128 intervals, cut
//! again when the bound falls below half of their span). In an interval, from the body's exact
//! pose at its start, a node may hold a triangle that touches a wall piece (within the contact
//! shell) only if its sphere so widened comes within the shell of the piece's bounding sphere
//! and of every half-space that holds the piece (its box's, and a triangle's plane, both ways,
//! and edges). A node keeps the intervals it passes, and its children test only those. Lengths
//! carry a relative margin of `1e-6` for rounding.
//!
//! Nodes are visited nearest first (by the time their windows open), so that the bound falls to
//! the first contact early, and checked again as they are visited.

use super::MeshBody;
use crate::ball_toi::{window_accel, Toi, ToiStatus};
use crate::ccd::tree::Node;
use crate::math::{Rotation, Vector};
use crate::rigid::{body_wall, pieces_body_wall, sphere_window, MovingPiece, WallPieces, SHELL};
use crate::shape::{Pose, Shape, SupportMap};

/// The first contact of mesh body `m` (of mesh `mesh`) with the static pieces of a wall
/// (`t_max` as for [`body_wall`]): that of its triangles (`piece(k)` is triangle `k` as a
/// piece), each advanced against the wall by [`body_wall`], visiting only the subtrees of the
/// mesh's sphere tree that can reach the wall (see the module docs in `rigid_mesh/wall.rs`).
///
/// The result is the triangles' own: contacts at or before a bound have the same bits whatever
/// the bound, the earliest is kept, and of equal times the triangle first in the mesh's order;
/// so a contact at or before `t_max` is the one [`pieces_body_wall`] finds visiting them all.
pub fn mesh_wall<'a, V: Vector + 'a>(
    m: &MovingPiece<'a, V>,
    mesh: &MeshBody,
    piece: impl Fn(usize) -> MovingPiece<'a, V>,
    wall: &WallPieces<V>,
    t_max: f64,
) -> Toi {
    let (Some((b, r)), WallPieces::Shapes(shapes)) = (m.body, wall) else {
        let pieces = (0..mesh.mesh.triangles().len()).map(piece);
        return pieces_body_wall(pieces, wall, t_max);
    };
    let targets: Vec<Target<V>> = shapes
        .iter()
        .map(|(shape, place, c, rw)| Target::new(shape, place, *c, *rw))
        .collect();
    let mut search = Search {
        mover: m,
        nodes: mesh.tree.nodes(),
        targets: &targets,
        offset: r.offset,
        spin: r.spin_bound(),
        shell: SHELL * r.radius,
        plan: Vec::new(),
        planned: f64::NAN,
        generation: 0,
    };
    // No triangle touches the wall once the body's bounding sphere has left every piece's:
    // each triangle's own window lies within it.
    let (centre, vel) = m.centre_at(b.time);
    let mut exit: Option<f64> = None;
    for target in &targets {
        let d = target.centre - centre;
        let sigma = (r.radius + target.radius + search.shell) * (1.0 + 1e-6) + 1e-9 * d.length();
        let window = if m.accel == V::ZERO {
            sphere_window(d, -vel, sigma)
        } else {
            window_accel(d, -vel, -m.accel, sigma)
        };
        if let Some((_, out)) = window {
            exit = Some(exit.map_or(out, |e| e.max(out)));
        }
    }
    let Some(exit) = exit else {
        return Toi::miss(ToiStatus::Separating);
    };
    let horizon = b.time + exit * (1.0 + 1e-6);
    let mut best = Toi::miss(ToiStatus::Separating);
    let mut best_k = usize::MAX;
    let bound = |best: &Toi| if best.is_hit() { best.time } else { t_max };
    // Nodes to visit, each with the plan's generation and the intervals its parent may touch
    // the wall in.
    let mut stack: Vec<(u32, u32, u128)> = Vec::new();
    if !search.nodes.is_empty() {
        stack.push((0, 0, u128::MAX));
    }
    while let Some((n, generation, mask)) = stack.pop() {
        // Checked again as it is visited: the bound may have fallen since it was pushed.
        let until = bound(&best).min(horizon);
        search.plan_to(until);
        let mask = if generation == search.generation {
            mask
        } else {
            u128::MAX
        };
        let Some((_, mask)) = search.opens(n as usize, until, mask) else {
            continue;
        };
        let node = &search.nodes[n as usize];
        match node.children {
            Some([left, right]) => {
                let (l, r) = (
                    search.opens(left as usize, until, mask),
                    search.opens(right as usize, until, mask),
                );
                // The nearer child is visited first (pushed last).
                let mut order = [(left, l), (right, r)];
                let first = |o: &Option<(f64, u128)>| o.map_or(f64::INFINITY, |o| o.0);
                if first(&order[0].1) < first(&order[1].1) {
                    order.swap(0, 1);
                }
                for (child, open) in order {
                    if let Some((_, mask)) = open {
                        stack.push((child, search.generation, mask));
                    }
                }
            }
            None => {
                for &k in mesh.tree.triangles(node) {
                    let k = k as usize;
                    let toi = body_wall(&piece(k), wall, bound(&best));
                    let earlier = toi.is_hit()
                        && (!best.is_hit()
                            || toi.time < best.time
                            || (toi.time == best.time && k < best_k));
                    if earlier {
                        (best, best_k) = (toi, k);
                    }
                }
            }
        }
    }
    best
}

/// A wall piece as the search sees it: its bounding sphere, and half-spaces `n . x <= h` that
/// hold it (those of its box, and for a triangle those of its plane, both ways, and of its
/// edges).
struct Target<V: Vector> {
    centre: V,
    radius: f64,
    halves: Vec<(V, f64)>,
}

impl<V: Vector> Target<V> {
    fn new(shape: &Shape<V>, place: &Pose<V>, centre: V, radius: f64) -> Self {
        let mut halves = Vec::new();
        let bx = shape.aabb(place);
        for a in 0..V::DIM {
            let e = V::unit(a);
            halves.push((e, bx.max.comp(a)));
            halves.push((-e, -bx.min.comp(a)));
        }
        if let (Shape::Triangle(t), 3) = (shape, V::DIM) {
            let p = t.vertices().map(|p| place.transform_point(p));
            if let Some(n) = unit(cross(p[1] - p[0], p[2] - p[0])) {
                halves.push((n, n.dot(p[0])));
                halves.push((-n, -n.dot(p[0])));
                for i in 0..3 {
                    let (a, b, c) = (p[i], p[(i + 1) % 3], p[(i + 2) % 3]);
                    if let Some(m) = unit(cross(b - a, n)) {
                        // Outwards: away from the third corner.
                        let m = if m.dot(c - a) > 0.0 { -m } else { m };
                        halves.push((m, m.dot(a)));
                    }
                }
            }
        }
        halves.retain(|(n, h)| n.is_finite() && h.is_finite());
        Self {
            centre,
            radius,
            halves,
        }
    }
}

/// The cross product of 3D vectors.
fn cross<V: Vector>(a: V, b: V) -> V {
    let (a, b) = (a.to_array3(), b.to_array3());
    V::from_array3([
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ])
}

/// `v` of unit length, unless it has none.
fn unit<V: Vector>(v: V) -> Option<V> {
    let l = v.length();
    (l > 0.0 && l.is_finite()).then(|| v * (1.0 / l))
}

/// One interval of the search: from `time` for `length`, with the body's centre of mass, its
/// velocity and its turn at `time`.
struct Interval<V: Vector> {
    time: f64,
    length: f64,
    centre: V,
    vel: V,
    turn: V::Rotation,
}

/// Most intervals of a search (one bit each in a node's mask).
const INTERVALS: usize = 128;
/// Intervals per radian the body may turn over the search: over one, the turn moves a point at
/// most a 64th of its distance from the centre of mass.
const PER_RADIAN: f64 = 64.0;

/// The tree, the wall's pieces and the body's motion, for [`Search::opens`].
struct Search<'n, 'a, V: Vector> {
    mover: &'n MovingPiece<'a, V>,
    nodes: &'n [Node],
    targets: &'n [Target<V>],
    offset: V,
    spin: f64,
    shell: f64,
    /// The intervals that cover the search up to [`Search::planned`].
    plan: Vec<Interval<V>>,
    planned: f64,
    /// Counts the plans made (a node's mask is that of its plan).
    generation: u32,
}

impl<V: Vector> Search<'_, '_, V> {
    /// Cuts the search up to `until` into intervals over each of which the turn moves a point
    /// little (at most [`INTERVALS`]), when there is no plan yet or `until` has fallen below
    /// half of the planned span. With no bound, the whole future is one interval.
    fn plan_to(&mut self, until: f64) {
        let Some((b, r)) = self.mover.body else {
            return;
        };
        let t0 = b.time;
        let span = until - t0;
        let stale = self.plan.is_empty() || (span.is_finite() && span < 0.5 * (self.planned - t0));
        if !stale || !(span >= 0.0) {
            return;
        }
        let count = if span.is_finite() {
            (PER_RADIAN * self.spin * span)
                .ceil()
                .clamp(1.0, INTERVALS as f64) as usize
        } else {
            1
        };
        let length = span / count as f64;
        self.plan = (0..count)
            .map(|j| {
                let time = if j == 0 { t0 } else { t0 + j as f64 * length };
                let (centre, vel) = self.mover.centre_at(time);
                Interval {
                    time,
                    length,
                    centre,
                    vel,
                    turn: r.at(time - t0).0,
                }
            })
            .collect();
        self.planned = until;
        self.generation += 1;
    }

    /// Of the plan's intervals in `mask` that start by `until`, those in which node `n` may
    /// touch a wall piece by `until` (as a mask), and the earliest time it may (relative to the
    /// body's time); `None` when it may in none (see the [module docs](self)).
    fn opens(&self, n: usize, until: f64, mask: u128) -> Option<(f64, u128)> {
        let sphere = &self.nodes[n].sphere;
        let u = V::from_array3(sphere.centre) + self.offset;
        let reach = u.length();
        let accel = self.mover.accel;
        let near = sphere.radius + self.shell;
        let mut first = f64::INFINITY;
        let mut passed = 0u128;
        for (j, iv) in self.plan.iter().enumerate() {
            if mask & (1 << j) == 0 {
                continue;
            }
            if !(iv.time <= until) {
                break;
            }
            let length = iv.length.min(until - iv.time);
            // How far the turn may move the node's centre over the interval.
            let drift = if self.spin * reach > 0.0 {
                (2.0 * reach).min(self.spin * reach * length)
            } else {
                0.0
            };
            let x = iv.centre + iv.turn.rotate(u);
            for target in self.targets {
                let d = target.centre - x;
                let sigma = (near + target.radius + drift) * (1.0 + 1e-6) + 1e-9 * d.length();
                let window = if accel == V::ZERO {
                    sphere_window(d, -iv.vel, sigma)
                } else {
                    window_accel(d, -iv.vel, -accel, sigma)
                };
                let Some((mut s, _)) = window else { continue };
                // Every half-space holding the piece, widened as the sphere is.
                let wide = (near + drift) * (1.0 + 1e-6);
                let mut apart = false;
                for &(normal, h) in &target.halves {
                    let off = normal.dot(x) - h;
                    let margin = 1e-9 * (off.abs() + h.abs());
                    match first_below(off - wide - margin, normal.dot(iv.vel), normal.dot(accel)) {
                        Some(t) => s = s.max(t),
                        None => apart = true,
                    }
                }
                if apart {
                    continue;
                }
                if s <= length {
                    passed |= 1 << j;
                    first = first.min(iv.time - self.plan[0].time + s);
                }
            }
        }
        (passed != 0).then_some((first, passed))
    }
}

/// The earliest `s >= 0` at which `c + b s + a s² / 2 <= 0`; `None` if never. Anything not
/// finite gives 0 (no proof of a later time).
fn first_below(c: f64, b: f64, a: f64) -> Option<f64> {
    if !(c > 0.0 && c.is_finite() && b.is_finite() && a.is_finite()) {
        return Some(0.0);
    }
    if a == 0.0 {
        return (b < 0.0).then(|| c / -b);
    }
    // Roots of (a / 2) s² + b s + c, in stable forms.
    let disc = b * b - 2.0 * a * c;
    if !(disc >= 0.0) {
        return None;
    }
    let q = -0.5 * (b + disc.sqrt().copysign(b));
    let roots = [q / (0.5 * a), c / q];
    let s = roots
        .into_iter()
        .filter(|s| *s >= 0.0 && s.is_finite())
        .fold(f64::INFINITY, f64::min);
    (s < f64::INFINITY).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::first_below;

    /// The first time a quadratic falls to 0 against a fine sampling of it: never after the
    /// first sample at or below 0, and none when no sample is.
    #[test]
    fn first_below_is_the_first_root() {
        for (c, b, a) in [
            (4.0, 1.5, -10.0),
            (1.0, -2.0, 0.0),
            (1.0, -3.0, 1.0),
            (1.0, -1.0, 1.0),
            (2.0, 0.5, 3.0),
            (0.5, 0.0, -1.0),
            (-1.0, 5.0, 5.0),
        ] {
            let q = |s: f64| c + b * s + 0.5 * a * s * s;
            let sampled = (0..=100_000)
                .map(|i| i as f64 * 1e-4)
                .find(|&s| q(s) <= 0.0);
            match (first_below(c, b, a), sampled) {
                (Some(t), Some(s)) => assert!(t <= s && t >= s - 1e-4, "{c} {b} {a}: {t} {s}"),
                (Some(t), None) => assert!(t > 10.0 - 1e-4, "{c} {b} {a}: {t}"),
                (None, s) => assert_eq!(s, None, "{c} {b} {a}"),
            }
        }
    }
}
