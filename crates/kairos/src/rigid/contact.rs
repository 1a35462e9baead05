//! The contact sets of the response: the normal and points of two shapes at a contact, of
//! every pair of pieces near the nearest one, and of a body against a plane or a wall's
//! pieces.

use super::predict::gap_at;
use super::state::MovingPiece;
use super::walls::WallPieces;
use super::SHELL;
use crate::math::Vector;
use crate::query::{contact_manifold, sat::as_polytope};
use crate::shape::SupportMap;
use crate::wall::Plane;

/// A contact of the response: the normal from `a` to `b` and the points (midpoints of the
/// two shapes' points).
#[derive(Clone, Debug, Default)]
pub struct ContactSet<V> {
    /// Unit normal from `a` to `b` (zero when undefined).
    pub normal: V,
    /// The contact points, world frame.
    pub points: Vec<V>,
    /// The gap between the two shapes at the contact's time (0 where it was not measured).
    pub gap: f64,
}

/// The contact points of `a` and `b` at `t` (see the [module docs](crate::rigid#response)).
pub fn contact_set<V: Vector>(a: &MovingPiece<V>, b: &MovingPiece<V>, t: f64) -> ContactSet<V> {
    let (pa, pb) = (a.pose_at(t), b.pose_at(t));
    let (g, n, p, q) = gap_at(a, b, t);
    let prediction = 2.0 * SHELL * (shape_size(a) + shape_size(b)) + g;
    let m = contact_manifold(a.shape, &pa, b.shape, &pb, prediction, None);
    if !m.is_empty() && m.normal != V::ZERO {
        let least = m
            .points()
            .iter()
            .map(|c| c.separation)
            .fold(f64::INFINITY, f64::min);
        let slack = SHELL * (shape_size(a) + shape_size(b));
        return ContactSet {
            gap: g,
            normal: m.normal,
            points: m
                .points()
                .iter()
                .filter(|c| c.separation <= least + slack)
                .map(|c| (c.point_a + c.point_b) * 0.5)
                .collect(),
        };
    }
    ContactSet {
        normal: n,
        points: vec![(p + q) * 0.5],
        gap: g,
    }
}

/// The contacts of two bodies given by their pieces ([`MovingPiece::pieces`]) at `t`: a
/// [`contact_set`] for every pair of pieces whose gap is within twice the contact shell of the
/// least gap, the nearest pair first (one set for two convex bodies in contact). A compound
/// body may touch another at several places at once, with a normal each;
/// [`respond`](super::respond) takes them all.
pub fn pieces_contact_sets<'a, V: Vector + 'a>(
    a: impl Iterator<Item = MovingPiece<'a, V>>,
    b: impl Iterator<Item = MovingPiece<'a, V>> + Clone,
    t: f64,
) -> Vec<ContactSet<V>> {
    let mut near: Vec<(f64, MovingPiece<'a, V>, MovingPiece<'a, V>)> = Vec::new();
    let mut reach = f64::INFINITY;
    for pa in a {
        for pb in b.clone() {
            // Bounding spheres (about the centres of mass) farther apart than a nearer pair's
            // reach: the pair's gap exceeds it.
            let apart = (pb.centre_at(t).0 - pa.centre_at(t).0).length();
            if apart - pa.radius - pb.radius > reach {
                continue;
            }
            let gap = gap_at(&pa, &pb, t).0;
            reach = reach.min(gap + 2.0 * SHELL * (shape_size(&pa) + shape_size(&pb)));
            near.push((gap, pa, pb));
        }
    }
    nearest_sets(near, |pa, pb| contact_set(pa, pb, t))
}

/// The pieces within twice the contact shell of the least gap, nearest first, as contact sets.
pub(crate) fn nearest_sets<'a, V: Vector + 'a>(
    mut near: Vec<(f64, MovingPiece<'a, V>, MovingPiece<'a, V>)>,
    set: impl Fn(&MovingPiece<'a, V>, &MovingPiece<'a, V>) -> ContactSet<V>,
) -> Vec<ContactSet<V>> {
    // Stable: equal gaps keep the order of the pieces.
    near.sort_by(|x, y| x.0.total_cmp(&y.0));
    let Some(&(least, ref pa, ref pb)) = near.first() else {
        return Vec::new();
    };
    let slack = 2.0 * SHELL * (shape_size(pa) + shape_size(pb));
    near.iter()
        .filter(|(gap, _, _)| !(*gap > least + slack))
        .map(|(_, pa, pb)| set(pa, pb))
        .filter(|c| c.normal != V::ZERO && !c.points.is_empty())
        .collect()
}

/// The contacts of a body given by its pieces with a wall at `t`, as
/// [`pieces_contact_sets`]: against a plane one set (the points of every piece within the
/// shell of the lowest, [`plane_contact_set`]); against static shapes a set for each pair of
/// a body piece and a wall piece within twice the shell of the least gap.
pub fn pieces_wall_contact_sets<'a, V: Vector + 'a>(
    a: impl Iterator<Item = MovingPiece<'a, V>> + Clone,
    wall: &'a WallPieces<V>,
    t: f64,
) -> Vec<ContactSet<V>> {
    match wall {
        WallPieces::Plane(plane) => {
            let c = plane_contact_set_of(a, plane, t);
            if c.normal == V::ZERO {
                Vec::new()
            } else {
                vec![c]
            }
        }
        WallPieces::Shapes(shapes) => {
            let mut near = Vec::new();
            for pa in a {
                let centre = pa.centre_at(t).0;
                for (shape, place, c, rw) in shapes {
                    let slack = 2.0 * SHELL * shape_size(&pa);
                    if (*c - centre).length() > pa.radius + rw + slack {
                        continue;
                    }
                    let fixed = MovingPiece::placed(shape, *place);
                    near.push((gap_at(&pa, &fixed, t).0, pa, fixed));
                }
            }
            nearest_sets(near, |pa, pb| contact_set(pa, pb, t))
        }
    }
}

pub(crate) fn shape_size<V: Vector>(m: &MovingPiece<V>) -> f64 {
    m.body.map_or(0.0, |(_, r)| r.radius)
}

/// The contact points of a body with a plane at `t`: the normal from the body to the plane,
/// and the shape's vertices within the shell of its lowest point (its support point for a
/// shape with no vertices).
pub fn plane_contact_set<V: Vector>(a: &MovingPiece<V>, plane: &Plane<V>, t: f64) -> ContactSet<V> {
    plane_contact_set_of(std::iter::once(*a), plane, t)
}

/// [`plane_contact_set`] of a body given by its pieces: the vertices of every piece within the
/// shell of the lowest point of them all.
fn plane_contact_set_of<'a, V: Vector + 'a>(
    pieces: impl Iterator<Item = MovingPiece<'a, V>> + Clone,
    plane: &Plane<V>,
    t: f64,
) -> ContactSet<V> {
    let Some(first) = pieces.clone().next() else {
        return ContactSet::default();
    };
    let centre = match first.body {
        Some((b, _)) => b.position_at(t),
        None => first.pose_at(t).position,
    };
    let up = plane.normal_towards(centre);
    let mut lowest: Option<(V, f64)> = None;
    for m in pieces.clone() {
        let low = m.shape.support(&m.pose_at(t), -up);
        let gap = up.dot(low - plane.point);
        if lowest.is_none_or(|(_, g)| gap < g) {
            lowest = Some((low, gap));
        }
    }
    let (low, low_gap) = lowest.expect("a piece");
    let slack = SHELL * shape_size(&first).max(f64::MIN_POSITIVE);
    let mut points = Vec::new();
    for m in pieces {
        if let Some(poly) = as_polytope(m.shape) {
            let pose = m.pose_at(t);
            for i in 0..poly.vertex_count() {
                let v = pose.transform_point(poly.vertex(i));
                if up.dot(v - plane.point) <= low_gap + slack {
                    points.push(v - up * up.dot(v - plane.point));
                }
            }
        }
    }
    if points.is_empty() {
        points.push(low - up * low_gap);
    }
    ContactSet {
        normal: -up,
        points,
        gap: low_gap.max(0.0),
    }
}
