//! GJK: the distance between two convex shapes, their closest points and features, and
//! whether they intersect.
//!
//! # Algorithm
//!
//! The Gilbert–Johnson–Keerthi algorithm (Gilbert, Johnson, Keerthi, *A fast procedure for
//! computing the distance between complex objects in three-dimensional space*, IEEE J.
//! Robotics and Automation 4(2), 1988), in the form of van den Bergen (*A fast and robust GJK
//! implementation for collision detection of convex objects*, J. Graphics Tools 4(2), 1999;
//! *Collision Detection in Interactive 3D Environments*, 2003, §4.3) and Ericson (*Real-Time
//! Collision Detection*, 2005, §9.5). The distance between convex `A` and `B` is the distance
//! from the origin to their Minkowski difference `A − B = {a − b}`, whose support function is
//! `s_A(d) − s_B(−d)`. GJK keeps a simplex of at most `DIM + 1` points of `A − B` and its point
//! `v` closest to the origin; each iteration adds the support point `w = s_{A−B}(−v)` and
//! reduces the simplex to the smallest face that contains the new closest point. `|v|` only
//! decreases and is an upper bound on the distance; `v·w / |v|` is a lower bound.
//!
//! The closest point of a simplex (the *distance subalgorithm*) is the signed-volumes method of
//! Montanari, Petrinic, Barbieri (*Improving the GJK algorithm for faster and more reliable
//! distance queries between convex objects*, ACM Trans. Graphics 36(3), 2017): the barycentric
//! weights of the origin (projected on the simplex's affine hull) are ratios of signed volumes
//! (tetrahedron), areas (triangle) or lengths (segment). When they are all of the sign of the
//! whole, the projection is the answer; otherwise the answer lies on the faces opposite the
//! vertices whose weight has the wrong sign, and only those are searched, recursively. Each
//! volume is computed through the edges of its face, so that its rounding shrinks with the
//! face, and a degenerate face (zero volume) simply falls through to its own faces. The points
//! are embedded in 3D (`z = 0` in 2D), so one code path serves 2D and 3D, with no allocation.
//! The closest point of a face (a triangle in 3D, an edge in 2D) is taken along its normal
//! when that agrees with the barycentric combination to rounding: near contact (a gap of
//! `1e-9` between shapes of size 1) the combination's rounding would turn `v` by `1e-7` and
//! spoil the lower bound drawn from it.
//!
//! # Round shapes: core and radius
//!
//! A ball is a point grown by its radius and a capsule a segment grown by its radius
//! ([`CoreSupport`]). GJK runs on the cores, which are polytopes, so it terminates exactly after
//! a few iterations; the radii are then subtracted from the core distance and the closest
//! points moved along the normal (van den Bergen 2003, §4.3.4). The result is exact for these
//! shapes, where GJK on their curved support functions would only converge asymptotically.
//! Cylinders and cones have no such core: GJK runs on their support functions and stops at the
//! relative tolerance below.
//!
//! # Closed forms
//!
//! For [`Shape`](crate::shape::Shape) values (through [`CoreSupport::as_shape`]),
//! [`distance`](fn@distance) and [`intersects`] first dispatch on the pair of variants: ball–ball
//! (centre to centre), ball–cuboid (the centre projected on the box in its frame, each coordinate
//! clamped to the half extents) and ball–capsule (the centre projected on the inner segment) have
//! closed forms, which give the loop's answer (status, distance, lower bound equal to the distance,
//! points, normal and features, agreeing to `1e-13`, `tests/suite/gjk.rs`) with no support
//! evaluation ([`GjkResult::iterations`] is 0; a given [`GjkCache`] is cleared). A cuboid face is
//! named by its three vertices of lowest index. Two cuboids in 2D are exact too: the
//! separating-axis test below decides whether they are apart, and the distance is then the least
//! over the eight vertices of the distance to the other box (two disjoint convex polygons have a
//! closest pair with a vertex of one of them); overlapping, they are intersecting, with the vertex
//! nearest the other box and its projection as the points. [`intersects`] on two cuboids is the
//! separating-axis test (face normals of both, and in 3D the cross products of their edges), apart
//! when a gap exceeds the rounding floor `δ` below, as the loop decides; on two 2D convex polygons
//! (or a polygon and a cuboid) it is the separating-axis test on the edge normals of both. Every
//! other pair, and any variant added later, runs GJK; concrete shape types always do,
//! monomorphised.
//!
//! # Frame
//!
//! The loop runs in `a`'s local frame, with `b`'s pose relative to it; the points and the
//! normal go back to the world frame at the end.
//!
//! # Guarantees and tolerances
//!
//! * The loop stops when the gap between the bounds is small: `|v|² − v·w ≤ ε |v|² + δ |v|`,
//!   that is `|v| − v·w/|v| ≤ ε |v| + δ` with the relative tolerance `ε =`
//!   [`GjkOptions::tolerance`] (default `1e-10`) and the rounding floor
//!   `δ = 16 f64::EPSILON · s`, where `s` is the largest `|w|` the query met (the size of the
//!   pair in their relative frame, independent of where they are in the world). For polytopes
//!   and polytope cores it stops earlier, when the new support point is already in the simplex
//!   or `|v|` stops decreasing, and the distance is exact up to rounding.
//! * [`GjkStatus::Separated`] is certified: the lower bound minus the radii exceeds `δ`.
//!   While the bounds meet within the tolerance but the lower bound does not exceed the radii,
//!   the loop goes on (a curved pair overlapping by `1e-8` has `|v| ≈ 3e-9`, within `ε |v|`
//!   of nothing); when rounding or the iteration limit stops it there, the status is
//!   [`GjkStatus::Touching`]: touching within the tolerance, to be counted as a contact.
//! * The shapes are reported [`GjkStatus::Intersecting`] when the origin is inside the simplex
//!   or `|v| ≤ δ` (they touch or overlap within rounding), or when the core distance minus the
//!   sum of the radii is at most `δ`. On curved shapes the enclosure test on GJK's last,
//!   sliver tetrahedra carries rounding: a pair apart by less than about `1e-10` (size 1) may
//!   come out intersecting (the safe side), but an overlapping pair never comes out separated
//!   (`tests/suite/gjk.rs` sweeps overlaps and gaps of `1e-6` to `1e-12`).
//! * Never more than [`GjkOptions::max_iterations`] support evaluations; then the status is
//!   [`GjkStatus::MaxIterations`] with the best upper bound found ([`GjkResult::distance`]) and
//!   the best lower bound ([`GjkResult::lower_bound`]).
//! * No NaN for finite poses: every division is by a length checked to be positive.
//!
//! # Warm start
//!
//! A [`GjkCache`] keeps the final simplex of a query as points of each shape in its local frame
//! (the seed's "p from the previous frame"). Since a shape is rigid, these are still points of
//! the shape at any later pose, so the next query on the same pair starts from them: for a pair
//! that moved a little, the same simplex is usually already the answer and one support
//! evaluation confirms it. The cache changes where the loop starts, never the points it may
//! use, so the answer is the same within the tolerance; it belongs to one ordered pair of
//! shapes (as a box2d `b2SimplexCache` does), and a cache filled by another pair may give a
//! wrong answer. On a curved surface a stale simplex can stall the loop before it certifies a
//! gap that a cold start certifies; a warm [`distance`](fn@distance) query that ends
//! [`GjkStatus::Touching`] is therefore run again from a cold start.
//!
//! ```
//! use kairos_geometry::math::DVec3;
//! use kairos_geometry::query::gjk::{distance, Feature, GjkCache, GjkOptions};
//! use kairos_geometry::shape::{Pose, Segment, Triangle};
//! let tri = Triangle::new(DVec3::ZERO, DVec3::X * 2.0, DVec3::Y * 2.0).unwrap();
//! let seg = Segment::new(DVec3::new(0.5, 0.5, 1.0), DVec3::new(0.5, 0.5, 3.0)).unwrap();
//! let mut cache = GjkCache::default();
//! let opts = GjkOptions::default();
//! let r = distance(&tri, &Pose::IDENTITY, &seg, &Pose::IDENTITY, &opts, Some(&mut cache));
//! assert!((r.distance - 1.0).abs() < 1e-15);
//! assert_eq!(r.feature_a, Feature::Face(0, 1, 2)); // inside the triangle
//! assert_eq!(r.feature_b, Feature::Vertex(0)); // the segment's lower end
//! // The segment moves a little: the cached simplex is still the answer.
//! let moved = Pose::from_position(DVec3::new(0.01, 0.0, -0.01));
//! let r2 = distance(&tri, &Pose::IDENTITY, &seg, &moved, &opts, Some(&mut cache));
//! assert!((r2.distance - 0.99).abs() < 1e-15);
//! assert!(r2.iterations <= r.iterations);
//! ```

mod closed_forms;
mod distance;
mod ray_cast;
mod simplex;
mod support;
#[cfg(test)]
mod tests;

pub use distance::{distance, intersects};
pub(super) use ray_cast::{ray_cast, RayCast};
pub(super) use simplex::{affine_closest, closest_on_simplex};
pub(super) use support::support;
pub use support::CoreSupport;

use crate::math::Vector;
use crate::shape::{FeatureId, Pose};

/// The largest simplex: `DIM + 1` points, at most 4.
const MAX_POINTS: usize = 4;

/// How a GJK query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GjkStatus {
    /// The shapes are apart, certified: the lower bound [`GjkResult::lower_bound`] is positive
    /// and the distance is converged to the tolerance.
    Separated,
    /// The shapes overlap or touch within rounding (the origin is enclosed by the simplex or
    /// `|v| ≤ δ`); the distance is 0.
    Intersecting,
    /// Neither separation nor intersection could be certified: the bounds met within the
    /// tolerance (or rounding stopped the progress) with the upper bound
    /// [`GjkResult::distance`] positive but the lower bound 0. The shapes touch within the
    /// tolerance: they may overlap by a hair (curved shapes, whose support functions GJK only
    /// approaches) or be a hair apart. Count it as a contact: [`intersects`] does, and so do
    /// EPA and the time of impact. [`GjkResult::normal`] and the points are those of the best
    /// simplex, as when separated.
    Touching,
    /// The iteration limit was reached first: the distance is the best upper bound found and
    /// [`GjkResult::lower_bound`] the best lower bound.
    MaxIterations,
}

/// The feature of a shape a closest point lies on, named by the vertices that span it.
///
/// Built from the [`FeatureId`]s of the final simplex's points with positive weight: one
/// distinct vertex is a vertex, two an edge, three a face (indices sorted ascending). For
/// segments, triangles and polygon edges this is the feature itself; for a cuboid, whose faces
/// are squares, two vertices can be the diagonal of a face (bit `i` of a cuboid's vertex index
/// is its side along axis `i`: indices differing in one bit are an edge, in two a face).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// A vertex.
    Vertex(u32),
    /// The edge between two vertices.
    Edge(u32, u32),
    /// The face spanned by three vertices.
    Face(u32, u32, u32),
    /// A point of a curved surface (ball, capsule, cylinder, cone but its apex): no discrete
    /// feature.
    Curved,
    /// Four vertices: the point is inside a solid (only when the shapes intersect).
    Interior,
}

/// The stopping rules of a GJK query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GjkOptions {
    /// Relative tolerance `ε` on the distance: the loop stops when the upper and lower bounds
    /// are within `ε |v|` (plus rounding). Default `1e-10`.
    pub tolerance: f64,
    /// The most support evaluations of a query. Default 64.
    pub max_iterations: u32,
}

impl Default for GjkOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 64,
        }
    }
}

/// The answer of [`distance`](fn@distance).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GjkResult<V> {
    /// How the query ended.
    pub status: GjkStatus,
    /// The distance between the shapes (`0` when intersecting; the best upper bound after
    /// [`GjkStatus::MaxIterations`]).
    pub distance: f64,
    /// A lower bound on the distance (equal to it within the tolerance when separated).
    pub lower_bound: f64,
    /// The closest point of shape `a`, in the world frame. When intersecting, a point of the
    /// cores near the overlap (not a penetration witness: that is EPA's).
    pub point_a: V,
    /// The closest point of shape `b`, in the world frame (`|point_b − point_a| = distance`
    /// when separated).
    pub point_b: V,
    /// The unit vector from `point_a` to `point_b` when separated; zero when intersecting.
    pub normal: V,
    /// The feature of `a` that `point_a` lies on.
    pub feature_a: Feature,
    /// The feature of `b` that `point_b` lies on.
    pub feature_b: Feature,
    /// Support evaluations of the Minkowski difference the query made.
    pub iterations: u32,
}

/// The final simplex of a query, as points of each shape's core in its local frame, to start
/// the next query on the same pair from (see the [module docs](self#warm-start)).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GjkCache<V> {
    len: usize,
    local_a: [V; MAX_POINTS],
    local_b: [V; MAX_POINTS],
    id_a: [FeatureId; MAX_POINTS],
    id_b: [FeatureId; MAX_POINTS],
}

impl<V: Vector> GjkCache<V> {
    /// Forgets the simplex: the next query starts cold.
    pub fn clear(&mut self) {
        self.len = 0;
    }
    /// Whether the cache holds a simplex.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cached simplex as points of the Minkowski difference of the cores at the given
    /// poses (EPA starts from GJK's final simplex through it).
    pub(super) fn points_at(&self, pose_a: &Pose<V>, pose_b: &Pose<V>) -> Vec<Point<V>> {
        (0..self.len.min(MAX_POINTS))
            .map(|i| {
                let a = pose_a.transform_point(self.local_a[i]);
                let b = pose_b.transform_point(self.local_b[i]);
                Point {
                    w: a - b,
                    a,
                    b,
                    local_a: self.local_a[i],
                    local_b: self.local_b[i],
                    id_a: self.id_a[i],
                    id_b: self.id_b[i],
                }
            })
            .collect()
    }
}

/// One point `w = a − b` of the Minkowski difference with the points of the cores it came from.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Point<V> {
    pub(super) w: V,
    pub(super) a: V,
    pub(super) b: V,
    local_a: V,
    local_b: V,
    id_a: FeatureId,
    id_b: FeatureId,
}

impl<V: Vector> Point<V> {
    /// The same point of the Minkowski difference of both shapes scaled by `s` about the
    /// origin (exact for a power of two).
    pub(super) fn scaled(self, s: f64) -> Self {
        Self {
            w: self.w * s,
            a: self.a * s,
            b: self.b * s,
            local_a: self.local_a * s,
            local_b: self.local_b * s,
            ..self
        }
    }
}
