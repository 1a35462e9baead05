//! The GJK distance loop ([`distance`], [`intersects`]): warm-started from a [`GjkCache`], run
//! in `a`'s frame on the cores, answered by a closed form or a separating-axis test first for
//! the [`Shape`] pairs that have one.

use super::closed_forms::closed_form;
use super::simplex::Simplex4;
use super::support::{support_in_a, CoreSupport, Relative};
use super::{Feature, GjkCache, GjkOptions, GjkResult, GjkStatus, Point};
use crate::math::{Rotation, Vector};
use crate::query::sat::{cuboids_apart, polygons_apart};
use crate::query::ROUNDING;
use crate::shape::{Pose, Shape};

/// The distance between `a` at `pose_a` and `b` at `pose_b`, their closest points and features.
///
/// `cache`, when given, warm-starts the query from the previous query on the same pair and
/// receives this query's final simplex. See the [module docs](super) for the algorithm and its
/// tolerances.
pub fn distance<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    options: &GjkOptions,
    cache: Option<&mut GjkCache<V>>,
) -> GjkResult<V>
where
    V: Vector,
    A: CoreSupport<V> + ?Sized,
    B: CoreSupport<V> + ?Sized,
{
    match cache {
        Some(c) if !c.is_empty() => {
            let r = gjk(a, pose_a, b, pose_b, options, Some(&mut *c), f64::INFINITY);
            if r.status != GjkStatus::Touching {
                return r;
            }
            // A stale simplex can stall the loop on a curved surface before it certifies a gap
            // that a cold start certifies: decide from a cold start.
            c.clear();
            gjk(a, pose_a, b, pose_b, options, Some(c), f64::INFINITY)
        }
        cache => gjk(a, pose_a, b, pose_b, options, cache, f64::INFINITY),
    }
}

/// Whether `a` at `pose_a` and `b` at `pose_b` intersect (or touch within the tolerance).
///
/// The same loop as [`distance`], stopped as soon as a lower bound on the distance is positive
/// (a separating axis). After [`GjkOptions::max_iterations`] without a separating axis the
/// shapes count as intersecting: the answer errs on the side of a contact.
pub fn intersects<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    options: &GjkOptions,
    cache: Option<&mut GjkCache<V>>,
) -> bool
where
    V: Vector,
    A: CoreSupport<V> + ?Sized,
    B: CoreSupport<V> + ?Sized,
{
    if let (Some(Shape::Cuboid(ca)), Some(Shape::Cuboid(cb))) = (a.as_shape(), b.as_shape()) {
        if let Some(c) = cache {
            c.clear();
        }
        return !cuboids_apart(ca, pose_a, cb, pose_b);
    }
    if let (Some(sa), Some(sb)) = (a.as_shape(), b.as_shape()) {
        if V::DIM == 2 {
            if let Some(apart) = polygons_apart(sa, pose_a, sb, pose_b) {
                if let Some(c) = cache {
                    c.clear();
                }
                return !apart;
            }
        }
    }
    gjk(a, pose_a, b, pose_b, options, cache, 0.0).status != GjkStatus::Separated
}

/// The GJK loop on the cores; stops early when the lower bound on the distance exceeds
/// `stop_above` (`f64::INFINITY` for a full distance query; `0` for an intersection test,
/// which gets the status alone).
fn gjk<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    options: &GjkOptions,
    cache: Option<&mut GjkCache<V>>,
    stop_above: f64,
) -> GjkResult<V>
where
    V: Vector,
    A: CoreSupport<V> + ?Sized,
    B: CoreSupport<V> + ?Sized,
{
    if let (Some(sa), Some(sb)) = (a.as_shape(), b.as_shape()) {
        if let Some(r) = closed_form(sa, pose_a, sb, pose_b) {
            if let Some(c) = cache {
                c.clear();
            }
            return r;
        }
    }
    // The loop runs in a's local frame; the answers go back to the world frame at the end.
    let rel = Relative::new(pose_a, pose_b);
    let margin = a.core_radius() + b.core_radius();
    let tolerance = options.tolerance.max(0.0);
    let max_iterations = options.max_iterations.max(1);
    let mut s = Simplex4::new();
    let mut iterations = 0u32;

    // Start from the cached simplex, or from the support along the line between the poses.
    if let Some(c) = cache.as_deref() {
        for i in 0..c.len.min(V::DIM + 1) {
            let pa = c.local_a[i];
            let pb = rel.point_from_b(c.local_b[i]);
            s.push(Point {
                w: pa - pb,
                a: pa,
                b: pb,
                local_a: c.local_a[i],
                local_b: c.local_b[i],
                id_a: c.id_a[i],
                id_b: c.id_b[i],
            });
        }
    }
    if s.len == 0 {
        let d = rel.offset;
        let d = if d.length_squared() > 0.0 && d.is_finite() {
            -d
        } else {
            V::unit(0)
        };
        s.push(support_in_a(a, b, &rel, d));
        iterations += 1;
    }
    s.reduce();

    // The size of the pair: the largest |w| seen, the scale of the rounding floor.
    let mut scale = s.size();
    let mut lower = 0.0f64;
    // The bounds met within the tolerance without a positive lower bound: undecided so far.
    let mut undecided = false;
    let status = loop {
        let v2 = s.v.length_squared();
        if s.len == V::DIM + 1 || v2 <= (ROUNDING * scale).powi(2) || !v2.is_finite() {
            break GjkStatus::Intersecting;
        }
        if iterations >= max_iterations {
            break if undecided {
                GjkStatus::Touching
            } else {
                GjkStatus::MaxIterations
            };
        }
        let vlen = v2.sqrt();
        let p = support_in_a(a, b, &rel, -s.v);
        iterations += 1;
        scale = scale.max(p.w.length());
        let vw = s.v.dot(p.w);
        lower = lower.max(vw / vlen);
        let certified = lower - margin > ROUNDING * scale;
        if certified && lower - margin > stop_above {
            break GjkStatus::Separated;
        }
        // Separated once the bounds meet: |v| − v·w/|v| ≤ ε |v| + δ, with a positive lower
        // bound. Without one, go on while the gap can still shrink beyond rounding.
        let floor = ROUNDING * scale;
        if v2 - vw <= tolerance * v2 + floor * vlen {
            if certified {
                break GjkStatus::Separated;
            }
            undecided = true;
            if v2 - vw <= floor * vlen {
                break GjkStatus::Touching;
            }
        }
        let settled = if certified {
            GjkStatus::Separated
        } else {
            GjkStatus::Touching
        };
        // The new point is already in the simplex: nothing more to gain.
        if s.points[..s.len].iter().any(|q| q.w == p.w) {
            break settled;
        }
        let (lambda, v) = s.closest_with(Some(&p));
        if v.length_squared() >= v2 {
            // No progress (rounding): keep the better simplex.
            break settled;
        }
        s.push(p);
        s.keep(lambda, v);
    };

    if let Some(c) = cache {
        c.len = s.len;
        for i in 0..s.len {
            c.local_a[i] = s.points[i].local_a;
            c.local_b[i] = s.points[i].local_b;
            c.id_a[i] = s.points[i].id_a;
            c.id_b[i] = s.points[i].id_b;
        }
    }

    if stop_above == 0.0 {
        // An intersection test reads only the status (Separated is certified above the
        // rounding floor, so the checks below would not change it).
        return GjkResult {
            status,
            distance: 0.0,
            lower_bound: 0.0,
            point_a: V::ZERO,
            point_b: V::ZERO,
            normal: V::ZERO,
            feature_a: Feature::Curved,
            feature_b: Feature::Curved,
            iterations,
        };
    }
    let mut point_a = pose_a.transform_point(s.combine(|p| p.a));
    let mut point_b = pose_a.transform_point(s.combine(|p| p.b));
    let mut feature_a = s.feature(|p| p.id_a);
    let mut feature_b = s.feature(|p| p.id_b);
    if a.core_radius() > 0.0 {
        feature_a = Feature::Curved;
    }
    if b.core_radius() > 0.0 {
        feature_b = Feature::Curved;
    }
    let core_distance = s.v.length();
    let mut result = GjkResult {
        status,
        distance: 0.0,
        lower_bound: 0.0,
        point_a,
        point_b,
        normal: V::ZERO,
        feature_a,
        feature_b,
        iterations,
    };
    if status == GjkStatus::Intersecting {
        return result;
    }
    // Separated cores: grow them by their radii along the normal from a to b.
    let normal = pose_a.rotation.rotate(-s.v * (1.0 / core_distance));
    point_a += normal * a.core_radius();
    point_b -= normal * b.core_radius();
    let dist = core_distance - margin;
    if dist <= ROUNDING * scale {
        result.status = GjkStatus::Intersecting;
        return result;
    }
    result.point_a = point_a;
    result.point_b = point_b;
    result.normal = normal;
    result.distance = dist;
    result.lower_bound = (lower - margin).clamp(0.0, dist);
    result
}
