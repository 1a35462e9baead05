//! Penetration depth in closed form for particular pairs: a ball and a box, and two 2D
//! polygons (boxes, convex polygons, triangles) by their separating axes. Every other pair
//! takes EPA.

use super::*;

/// A cuboid (as `a`) and a ball of radius `r` centred at `p` (as `b`), in closed form: the
/// centre outside the box is projected on it (depth `r − d`); inside, it leaves through the
/// nearest face (depth `r` plus the distance to that face, the lowest axis on ties). Exact up to
/// the rounding of the transform into the box's frame.
pub(super) fn ball_cuboid<V: Vector>(
    p: V,
    r: f64,
    c: &Cuboid<V>,
    pose: &Pose<V>,
    tol: f64,
) -> EpaResult<V> {
    let local = pose.inverse_transform_point(p);
    let h = c.half_extents();
    let q = local.max(-h).min(h);
    let d = (local - q).length();
    let scale = local.length() + h.length() + r;
    let (normal, depth, point_a) = if d > 0.0 {
        let n = (local - q) * (1.0 / d);
        if d >= r {
            return EpaResult {
                status: EpaStatus::Separated,
                depth: 0.0,
                lower_bound: 0.0,
                separation: d - r,
                normal: pose.transform_vector(n),
                point_a: pose.transform_point(q),
                point_b: pose.transform_point(local - n * r),
                iterations: 0,
            };
        }
        (n, r - d, q)
    } else {
        let mut axis = 0;
        for i in 1..V::DIM {
            if h.comp(i) - local.comp(i).abs() < h.comp(axis) - local.comp(axis).abs() {
                axis = i;
            }
        }
        let side = if local.comp(axis) < 0.0 { -1.0 } else { 1.0 };
        let n = V::unit(axis) * side;
        let depth = r + h.comp(axis) - local.comp(axis).abs();
        // The face point the centre leaves through.
        (
            n,
            depth,
            local + n * (h.comp(axis) - local.comp(axis).abs()),
        )
    };
    let normal = pose.transform_vector(normal);
    EpaResult {
        status: if depth <= tol * scale + ROUNDING * scale {
            EpaStatus::Touching
        } else {
            EpaStatus::Penetrating
        },
        depth,
        lower_bound: depth,
        separation: 0.0,
        normal,
        point_a: pose.transform_point(point_a),
        point_b: p - normal * r,
        iterations: 0,
    }
}

/// A rectangle, convex polygon or triangle: a 2D polytope with an inside (three sides or
/// more; a segment has two).
pub(super) fn solid_polygon<V: Vector>(s: &Shape<V>) -> bool {
    s.as_polytope().is_some_and(|p| p.face_count() >= 3)
}

/// Two overlapping solid polygons by the separating axis test: in 2D its axes, the sides'
/// normals, hold every face normal of the Minkowski difference, so the smallest overlap is the
/// exact depth and its axis the normal ([`sat`](mod@super::sat)). The face of the Minkowski
/// difference along it is the reference side (of the shape whose side gave the axis) minus the
/// other shape's deepest feature (a vertex, or a side parallel to it), and the minimum
/// translation `depth · normal` is a point of that face: the points are a point of the deepest
/// feature facing the reference side ([`facing_point`]) and that point moved out by the depth,
/// on the reference side. `None` when the shapes are apart (GJK then gives the distance) or the
/// test found no axis.
pub(super) fn polygons<V: Vector>(
    a: &Shape<V>,
    pose_a: &Pose<V>,
    b: &Shape<V>,
    pose_b: &Pose<V>,
    tol: f64,
) -> Option<EpaResult<V>> {
    let r = sat(as_polytope(a)?, pose_a, as_polytope(b)?, pose_b, None);
    if r.status == SatStatus::Separated || !r.separation.is_finite() {
        return None;
    }
    let (n, depth) = (r.axis, (-r.separation).max(0.0));
    let (point_a, point_b) = match r.feature {
        SatFeature::FaceA(i) => {
            let q = facing_point(as_polytope(a)?, pose_a, i, as_polytope(b)?, pose_b, -n);
            (q + n * depth, q)
        }
        SatFeature::FaceB(j) => {
            let p = facing_point(as_polytope(b)?, pose_b, j, as_polytope(a)?, pose_a, n);
            (p, p - n * depth)
        }
        _ => return None,
    };
    let scale =
        a.bounding_radius() + b.bounding_radius() + (pose_b.position - pose_a.position).length();
    Some(EpaResult {
        status: if depth <= tol * scale + ROUNDING * scale {
            EpaStatus::Touching
        } else {
            EpaStatus::Penetrating
        },
        depth,
        lower_bound: depth,
        separation: 0.0,
        normal: n,
        point_a,
        point_b,
        iterations: r.axes_tested,
    })
}

/// The point of the polygon `inc` (at `pose_inc`) deepest along `d` that faces side `side` of
/// the polygon `reference` (at `pose_ref`), `d` pointing into the reference polygon, opposite
/// the side's normal. The deepest feature is the vertex farthest along `d` or, when a side of
/// `inc` is parallel to the reference side, that side (its vertices within rounding of the
/// deepest). Along the side's direction, the deepest feature and the reference side overlap
/// where the minimum translation meets them; the point is taken at the middle of that overlap
/// (at the vertex itself for a lone vertex), so that it lies on `inc` and, moved out by the
/// depth, on the reference side.
fn facing_point<V: Vector>(
    reference: &dyn SatPolytope<V>,
    pose_ref: &Pose<V>,
    side: u32,
    inc: &dyn SatPolytope<V>,
    pose_inc: &Pose<V>,
    d: V,
) -> V {
    let mut ends = Vec::with_capacity(2);
    reference.face_vertices(side as usize, &mut ends);
    let t = V::from_array3([-d.comp(1), d.comp(0), 0.0]);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &k in &ends {
        let x = t.dot(pose_ref.transform_point(reference.vertex(k as usize)));
        lo = lo.min(x);
        hi = hi.max(x);
    }
    let verts = (0..inc.vertex_count()).map(|k| pose_inc.transform_point(inc.vertex(k)));
    let deepest = verts
        .clone()
        .map(|v| d.dot(v))
        .fold(f64::NEG_INFINITY, f64::max);
    let size = verts.clone().map(Vector::length).fold(0.0, f64::max);
    // The deepest feature's ends along `t`: its vertices within rounding of the deepest.
    let mut first: Option<(f64, V)> = None;
    let mut last: Option<(f64, V)> = None;
    for v in verts.filter(|&v| d.dot(v) >= deepest - ROUNDING * size) {
        let x = t.dot(v);
        if first.is_none_or(|(f, _)| x < f) {
            first = Some((x, v));
        }
        if last.is_none_or(|(l, _)| x > l) {
            last = Some((x, v));
        }
    }
    let (Some((x0, p0)), Some((x1, p1))) = (first, last) else {
        return pose_inc.position;
    };
    // The middle of the overlap of [x0, x1] and [lo, hi]: empty only by rounding, then the
    // middle of the gap.
    let x = 0.5 * (x0.max(lo) + x1.min(hi));
    if x1 > x0 {
        let u = ((x - x0) / (x1 - x0)).clamp(0.0, 1.0);
        p0 + (p1 - p0) * u
    } else {
        p0
    }
}
