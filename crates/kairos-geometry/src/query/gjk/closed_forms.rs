//! The closed forms of [`distance`](fn@super::distance) for particular pairs of [`Shape`]
//! variants: ball–ball, ball–cuboid, ball–capsule (and capsule–ball, cuboid–ball) through the
//! cores' nearest points, and two cuboids in 2D (a separating-axis test, then the least of the
//! eight vertex-to-box distances); each gives the loop's answer with no support evaluation.

use super::support::CoreSupport;
use super::{Feature, GjkResult, GjkStatus};
use crate::math::{Rotation, Vector};
use crate::query::sat::{cuboid_gap, relative_axes};
use crate::query::ROUNDING;
use crate::shape::{Capsule, Cuboid, Pose, Shape};

/// The closest points of two shapes' cores found in closed form, for [`finish_closed`].
struct CorePoints<V> {
    /// The closest point of `a`'s core, in the world frame.
    a: V,
    /// The closest point of `b`'s core, in the world frame.
    b: V,
    /// The feature of `a`'s core the point lies on.
    feature_a: Feature,
    /// The feature of `b`'s core the point lies on.
    feature_b: Feature,
    /// The size of the pair, the scale of the rounding floor.
    scale: f64,
}

/// The pairs of [`Shape`] variants with a closed form: a ball (a point core) or a capsule (a
/// segment core) against a ball or a cuboid, and a ball against a capsule. `None` for every
/// other pair (GJK answers those), including variants added later.
pub(super) fn closed_form<V: Vector>(
    a: &Shape<V>,
    pose_a: &Pose<V>,
    b: &Shape<V>,
    pose_b: &Pose<V>,
) -> Option<GjkResult<V>> {
    let (ra, rb) = (a.core_radius(), b.core_radius());
    let core = match (a, b) {
        (Shape::Cuboid(ca), Shape::Cuboid(cb)) if V::DIM == 2 => {
            return cuboids_2d(ca, pose_a, cb, pose_b);
        }
        (Shape::Ball(_), Shape::Ball(_)) => {
            let (ca, cb) = (pose_a.position, pose_b.position);
            CorePoints {
                a: ca,
                b: cb,
                feature_a: Feature::Curved,
                feature_b: Feature::Curved,
                scale: (ca - cb).length(),
            }
        }
        (Shape::Ball(_), Shape::Cuboid(c)) => point_cuboid(pose_a.position, c, pose_b),
        (Shape::Cuboid(c), Shape::Ball(_)) => point_cuboid(pose_b.position, c, pose_a).swapped(),
        (Shape::Ball(_), Shape::Capsule(c)) => point_segment(pose_a.position, c, pose_b),
        (Shape::Capsule(c), Shape::Ball(_)) => point_segment(pose_b.position, c, pose_a).swapped(),
        _ => return None,
    };
    Some(finish_closed(core, ra, rb))
}

impl<V: Vector> CorePoints<V> {
    /// The same pair with `a` and `b` exchanged.
    fn swapped(self) -> Self {
        Self {
            a: self.b,
            b: self.a,
            feature_a: self.feature_b,
            feature_b: self.feature_a,
            scale: self.scale,
        }
    }
}

/// The projection of `local` (a point of the cuboid's frame) on the cuboid of half extents
/// `h`, each coordinate clamped, and the feature it lies on, named as GJK names it (module
/// docs of [`Feature`]): the vertices whose sides along the clamped axes are those of the
/// projection; on a face (two free axes in 3D), the three of lowest index.
#[inline]
fn clamp_to_cuboid<V: Vector>(local: V, h: V) -> (V, Feature) {
    let q = local.max(-h).min(h);
    let mut fixed = 0u32;
    let mut free = 0u32;
    for i in 0..V::DIM {
        let x = local.comp(i);
        if x >= h.comp(i) {
            fixed |= 1 << i;
        } else if x > -h.comp(i) {
            free |= 1 << i;
        }
    }
    // The vertices of the feature: `fixed` plus every subset of `free`, ascending.
    let (lo, f1, f2) = {
        let mut bits = (0..V::DIM as u32).filter(|i| free & (1 << i) != 0);
        (fixed, bits.next(), bits.next())
    };
    let feature = match (f1, f2) {
        _ if free.count_ones() as usize == V::DIM => Feature::Interior,
        (None, _) => Feature::Vertex(lo),
        (Some(i), None) => Feature::Edge(lo, lo | 1 << i),
        (Some(i), Some(j)) => Feature::Face(lo, lo | 1 << i, lo | 1 << j),
    };
    (q, feature)
}

/// Two cuboids in 2D, exactly. Apart when the separating-axis test
/// ([`cuboids_apart`](crate::query::sat::cuboids_apart)) finds a gap beyond the rounding floor, as
/// [`intersects`](super::intersects) decides; otherwise intersecting, with the vertex nearest the
/// other box and its projection as the points. Two disjoint convex polygons have a closest pair
/// with a vertex of one of them, whose distance to the other polygon is then the distance between
/// them: the distance is the least over the eight vertices of the distance to the other box, each a
/// projection on a box (coordinates clamped in its frame). The answer is the loop's (status,
/// distance, lower bound equal to the distance, points, normal, features; `tests/suite/gjk.rs`),
/// with no support evaluation.
fn cuboids_2d<V: Vector>(
    a: &Cuboid<V>,
    pose_a: &Pose<V>,
    b: &Cuboid<V>,
    pose_b: &Pose<V>,
) -> Option<GjkResult<V>> {
    let (ha, hb) = (a.half_extents(), b.half_extents());
    let (t, axes) = relative_axes(pose_a, pose_b);
    let apart = cuboid_gap(ha, hb, t, &axes);
    let (ex, ey) = (axes[0], axes[1]);
    let (hax, hay, hbx, hby) = (ha.comp(0), ha.comp(1), hb.comp(0), hb.comp(1));
    let (tx, ty) = (t.comp(0), t.comp(1));
    let (exx, exy, eyx, eyy) = (ex.comp(0), ex.comp(1), ey.comp(0), ey.comp(1));
    // a's centre in b's frame.
    let (ux, uy) = (-(tx * exx + ty * exy), -(tx * eyx + ty * eyy));
    // The least squared distance, its vertex, and whether that is b's (against a) or a's.
    let mut best = (f64::INFINITY, 0u32, false);
    for i in 0..4u32 {
        let sx = if i & 1 != 0 { 1.0 } else { -1.0 };
        let sy = if i & 2 != 0 { 1.0 } else { -1.0 };
        // b's vertex i against a, in a's frame.
        let (bx, by) = (sx * hbx, sy * hby);
        let (qx, qy) = (tx + exx * bx + eyx * by, ty + exy * bx + eyy * by);
        let (dx, dy) = (qx - qx.clamp(-hax, hax), qy - qy.clamp(-hay, hay));
        let d2 = dx * dx + dy * dy;
        if d2 < best.0 {
            best = (d2, i, true);
        }
        // a's vertex i against b, in b's frame.
        let (px, py) = (sx * hax, sy * hay);
        let (lx, ly) = (ux + exx * px + exy * py, uy + eyx * px + eyy * py);
        let (dx, dy) = (lx - lx.clamp(-hbx, hbx), ly - ly.clamp(-hby, hby));
        let d2 = dx * dx + dy * dy;
        if d2 < best.0 {
            best = (d2, i, false);
        }
    }
    let (_, i, of_b) = best;
    let sx = if i & 1 != 0 { 1.0 } else { -1.0 };
    let sy = if i & 2 != 0 { 1.0 } else { -1.0 };
    // The closest points (in a's frame) and features.
    let (pa, pb, feature_a, feature_b) = if of_b {
        let q = t + ex * (sx * hbx) + ey * (sy * hby);
        let (c, f) = clamp_to_cuboid(q, ha);
        (c, q, f, Feature::Vertex(i))
    } else {
        let p = V::from_array3([sx * hax, sy * hay, 0.0]);
        let (px, py) = (sx * hax, sy * hay);
        let local = V::from_array3([ux + exx * px + exy * py, uy + eyx * px + eyy * py, 0.0]);
        let (c, f) = clamp_to_cuboid(local, hb);
        (
            p,
            t + ex * c.comp(0) + ey * c.comp(1),
            Feature::Vertex(i),
            f,
        )
    };
    let d = pb - pa;
    let dist = d.length();
    if !(apart && dist > 0.0 && dist.is_finite()) {
        // Overlapping: the vertex nearest the other box (inside it, unless the boxes cross)
        // and its projection, as the ball–cuboid form gives a centre and its projection.
        return Some(GjkResult {
            status: GjkStatus::Intersecting,
            distance: 0.0,
            lower_bound: 0.0,
            point_a: pose_a.transform_point(pa),
            point_b: pose_a.transform_point(pb),
            normal: V::ZERO,
            feature_a,
            feature_b,
            iterations: 0,
        });
    }
    Some(GjkResult {
        status: GjkStatus::Separated,
        distance: dist,
        lower_bound: dist,
        point_a: pose_a.transform_point(pa),
        point_b: pose_a.transform_point(pb),
        normal: pose_a.rotation.rotate(d * (1.0 / dist)),
        feature_a,
        feature_b,
        iterations: 0,
    })
}

/// The point `p` (world frame) as `a`, and its projection on the cuboid `c` at `pose` as `b`:
/// each local coordinate clamped to the half extents. The feature is named as GJK names it
/// (module docs of [`Feature`]): the vertices whose sides along the clamped axes are those of
/// the projection; on a face (two free axes in 3D), the three of lowest index.
fn point_cuboid<V: Vector>(p: V, c: &Cuboid<V>, pose: &Pose<V>) -> CorePoints<V> {
    let local = pose.inverse_transform_point(p);
    let h = c.half_extents();
    let (q, feature) = clamp_to_cuboid(local, h);
    CorePoints {
        a: p,
        b: pose.transform_point(q),
        feature_a: Feature::Curved,
        feature_b: feature,
        scale: (local.length() + h.length()).max(f64::MIN_POSITIVE),
    }
}

/// The point `p` (world frame) as `a`, and the nearest point of the capsule `c`'s inner segment
/// at `pose` as `b`.
fn point_segment<V: Vector>(p: V, c: &Capsule, pose: &Pose<V>) -> CorePoints<V> {
    let local = pose.inverse_transform_point(p);
    let h = c.half_height();
    let t = local.comp(1).clamp(-h, h);
    CorePoints {
        a: p,
        b: pose.transform_point(V::unit(1) * t),
        feature_a: Feature::Curved,
        feature_b: Feature::Curved,
        scale: local.length() + h,
    }
}

/// The result of a pair of closed-form core points, as the GJK loop would give it: separated
/// when the core distance exceeds the radii by more than the rounding floor, intersecting
/// otherwise.
fn finish_closed<V: Vector>(c: CorePoints<V>, ra: f64, rb: f64) -> GjkResult<V> {
    let v = c.a - c.b;
    let core_distance = v.length();
    let dist = core_distance - (ra + rb);
    let curved = |r: f64, f: Feature| if r > 0.0 { Feature::Curved } else { f };
    let mut result = GjkResult {
        status: GjkStatus::Intersecting,
        distance: 0.0,
        lower_bound: 0.0,
        point_a: c.a,
        point_b: c.b,
        normal: V::ZERO,
        feature_a: curved(ra, c.feature_a),
        feature_b: curved(rb, c.feature_b),
        iterations: 0,
    };
    if dist > ROUNDING * c.scale && dist.is_finite() {
        let normal = -v * (1.0 / core_distance);
        result.status = GjkStatus::Separated;
        result.distance = dist;
        result.lower_bound = dist;
        result.normal = normal;
        result.point_a = c.a + normal * ra;
        result.point_b = c.b - normal * rb;
    }
    result
}
