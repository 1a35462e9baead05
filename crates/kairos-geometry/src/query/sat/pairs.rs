//! Separating-axis tests on particular pairs of shapes, read straight from the shapes rather
//! than through [`Polytope`](super::Polytope): two cuboids (face normals, and in 3D the cross
//! products of their edges) and two 2D convex polygons (or a polygon and a cuboid, the edge
//! normals of both). GJK's [`intersects`](crate::query::intersects) answers these pairs by
//! them, and its closed form of two 2D cuboids starts from the cuboid test.

use crate::math::{DVec3, Rotation, Vector};
use crate::query::ROUNDING;
use crate::shape::{ConvexShape, Cuboid, Pose, Shape};

/// Whether two cuboids are apart, by the separating-axis theorem (Gottschalk, Lin, Manocha,
/// *OBBTree*, SIGGRAPH 1996): along each face normal of either box, and in 3D each cross product of
/// an edge direction of each, the gap between the projections. Apart when one gap exceeds the
/// rounding floor of the loop (`δ`, [GJK's module docs](crate::query::gjk)), as
/// [`intersects`](crate::query::intersects) would say.
pub(in crate::query) fn cuboids_apart<V: Vector>(
    a: &Cuboid<V>,
    pose_a: &Pose<V>,
    b: &Cuboid<V>,
    pose_b: &Pose<V>,
) -> bool {
    let (t, axes) = relative_axes(pose_a, pose_b);
    cuboid_gap(a.half_extents(), b.half_extents(), t, &axes)
}

/// `b`'s centre and axes in `a`'s frame.
#[inline]
pub(in crate::query) fn relative_axes<V: Vector>(
    pose_a: &Pose<V>,
    pose_b: &Pose<V>,
) -> (V, [V; 3]) {
    let t = pose_a.inverse_transform_point(pose_b.position);
    let mut axes = [V::ZERO; 3];
    for (j, e) in axes.iter_mut().enumerate().take(V::DIM) {
        *e = pose_a
            .rotation
            .inverse_rotate(pose_b.rotation.rotate(V::unit(j)));
    }
    (t, axes)
}

/// The separating-axis test of [`cuboids_apart`] on the half extents `ha`, `hb` and `b`'s
/// centre `t` and `axes` in `a`'s frame.
#[inline]
pub(in crate::query) fn cuboid_gap<V: Vector>(ha: V, hb: V, t: V, axes: &[V; 3]) -> bool {
    let floor = ROUNDING * (t.length() + ha.length() + hb.length());
    // The gap along `l` (any length) exceeds the floor.
    let gap = |l: V| {
        let mut r = 0.0;
        for (i, &e) in axes.iter().enumerate().take(V::DIM) {
            r += ha.comp(i) * l.comp(i).abs() + hb.comp(i) * l.dot(e).abs();
        }
        t.dot(l).abs() - r > floor * l.length()
    };
    for (i, &e) in axes.iter().enumerate().take(V::DIM) {
        if gap(V::unit(i)) || gap(e) {
            return true;
        }
    }
    if V::DIM == 3 {
        for i in 0..3 {
            for e in axes {
                let l = V::from_array3(
                    DVec3::from_array(V::unit(i).to_array3())
                        .cross(DVec3::from_array(e.to_array3()))
                        .to_array(),
                );
                // Parallel edges: the face normals above already decide.
                if l.length_squared() > 1e-20 && gap(l) {
                    return true;
                }
            }
        }
    }
    false
}

/// The most vertices a polygon may have for [`polygons_apart`]; larger ones run the loop.
const POLYGON_MAX: usize = 16;

/// Along the outward unit normals of the edges of the polygon `p` (counter-clockwise), the
/// greatest over them of the least height of the vertices `q` above the edge's line: the gap
/// along that normal, a separating axis when positive.
fn edge_separation<V: Vector>(p: &[V], q: &[V]) -> f64 {
    let n = p.len();
    let mut separation = f64::NEG_INFINITY;
    for i in 0..n {
        let k = if i + 1 == n { 0 } else { i + 1 };
        let (pi, e) = (p[i], p[k] - p[i]);
        let inv = 1.0 / e.length_squared().sqrt();
        let m = V::from_array3([e.comp(1) * inv, -e.comp(0) * inv, 0.0]);
        let mut least = f64::INFINITY;
        for &x in q {
            let y = m.dot(x - pi);
            if y < least {
                least = y;
            }
        }
        if least > separation {
            separation = least;
        }
    }
    separation
}

/// Whether two 2D convex polygons (or a polygon and a cuboid) are apart, by the separating-axis
/// test on the edge normals of both (in 2D those are all the axes to try): a gap beyond the
/// rounding floor `δ` ([GJK's module docs](crate::query::gjk)), as
/// [`intersects`](crate::query::intersects) decides. `None` for other shapes and for a polygon of
/// more than [`POLYGON_MAX`] vertices.
pub(in crate::query) fn polygons_apart<V: Vector>(
    a: &Shape<V>,
    pose_a: &Pose<V>,
    b: &Shape<V>,
    pose_b: &Pose<V>,
) -> Option<bool> {
    let (mut va, mut vb) = ([V::ZERO; POLYGON_MAX], [V::ZERO; POLYGON_MAX]);
    let na = a.polygon_vertices(&mut va)?;
    let nb = b.polygon_vertices(&mut vb)?;
    // b's vertices in a's frame.
    let (t, axes) = relative_axes(pose_a, pose_b);
    let (mut size_a, mut size_b) = (0.0f64, 0.0f64);
    for x in &mut vb[..nb] {
        *x = t + axes[0] * x.comp(0) + axes[1] * x.comp(1);
        size_b = size_b.max(x.length_squared());
    }
    for x in &va[..na] {
        size_a = size_a.max(x.length_squared());
    }
    let (va, vb) = (&va[..na], &vb[..nb]);
    let floor = ROUNDING * (size_a.sqrt() + size_b.sqrt());
    Some(edge_separation(va, vb) > floor || edge_separation(vb, va) > floor)
}
