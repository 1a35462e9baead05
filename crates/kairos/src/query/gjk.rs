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
//! For [`Shape`] values (through [`CoreSupport::as_shape`]), [`distance`] and [`intersects`]
//! first dispatch on the pair of variants: ball–ball (centre to centre), ball–cuboid (the
//! centre projected on the box in its frame, each coordinate clamped to the half extents) and
//! ball–capsule (the centre projected on the inner segment) have closed forms, which give the
//! loop's answer (status, distance, lower bound equal to the distance, points, normal and
//! features, agreeing to `1e-13`, `tests/suite/gjk.rs`) with no support evaluation
//! ([`GjkResult::iterations`] is 0; a given [`GjkCache`] is cleared). A cuboid face is named
//! by its three vertices of lowest index. Two cuboids in 2D are exact too: the separating-axis
//! test below decides whether they are apart, and the distance is then the least over the
//! eight vertices of the distance to the other box (two disjoint convex polygons have a closest
//! pair with a vertex of one of them); overlapping, they are intersecting, with the vertex
//! nearest the other box and its projection as the points. [`intersects`] on two cuboids is the separating-axis
//! test (face normals of both, and in 3D the cross products of their edges), apart when a gap
//! exceeds the rounding floor `δ` below, as the loop decides; on two 2D convex polygons (or a
//! polygon and a cuboid) it is the separating-axis test on the edge normals of both. Every other pair, and any
//! variant added later, runs GJK; concrete shape types always do, monomorphised.
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
//! gap that a cold start certifies; a warm [`distance`] query that ends
//! [`GjkStatus::Touching`] is therefore run again from a cold start.
//!
//! ```
//! use kairos::math::DVec3;
//! use kairos::query::gjk::{distance, Feature, GjkCache, GjkOptions};
//! use kairos::shape::{Pose, Segment, Triangle};
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

use crate::math::{DVec3, Rotation, Vector};
use crate::shape::{
    Ball, Capsule, Cone, ConvexPolygon, ConvexPolyhedron, Cuboid, Cylinder, FeatureId, Pose, Shape,
    Simplex, SupportMap,
};

/// The largest simplex: `DIM + 1` points, at most 4.
const MAX_POINTS: usize = 4;

/// The rounding floor of the stopping tests, in units of `f64::EPSILON` times the size of the
/// simplex (see the [module docs](self)).
pub(super) const ROUNDING: f64 = 16.0 * f64::EPSILON;

/// A convex shape seen by GJK: a core (a convex shape given by its support function) grown by
/// a radius, `shape = core ⊕ ball(radius)`.
///
/// The provided methods make the whole shape its own core with radius zero, which is right for
/// every shape; [`Ball`] (a point core) and [`Capsule`] (a segment core) override them so that
/// GJK on them is exact and fast (see the [module docs](self)). A shape type of another crate
/// opts in with an empty `impl CoreSupport<V> for MyShape {}`.
pub trait CoreSupport<V: Vector>: SupportMap<V> {
    /// A farthest point of the core along `d`, in the local frame, and its feature.
    #[inline]
    fn local_core_support(&self, d: V) -> (V, FeatureId) {
        self.local_support_feature(d)
    }
    /// The radius the core is grown by (`>= 0`).
    #[inline]
    fn core_radius(&self) -> f64 {
        0.0
    }
    /// The shape as a [`Shape`] value, for the closed forms [`distance`] has for some pairs of
    /// its variants (see the [module docs](self#closed-forms)); `None`, the default, runs GJK.
    #[inline]
    fn as_shape(&self) -> Option<&Shape<V>> {
        None
    }
}

impl<V: Vector> CoreSupport<V> for Ball {
    /// The centre.
    #[inline]
    fn local_core_support(&self, _d: V) -> (V, FeatureId) {
        (V::ZERO, FeatureId::None)
    }
    #[inline]
    fn core_radius(&self) -> f64 {
        self.radius()
    }
}

impl<V: Vector> CoreSupport<V> for Capsule {
    /// The end of the inner segment on the side of `d` (`Vertex(1)` at `+h`, `Vertex(0)` at
    /// `−h`; the `+` end when `d_y = 0`, as the capsule's own support).
    #[inline]
    fn local_core_support(&self, d: V) -> (V, FeatureId) {
        if d.comp(1) < 0.0 {
            (V::unit(1) * -self.half_height(), FeatureId::Vertex(0))
        } else {
            (V::unit(1) * self.half_height(), FeatureId::Vertex(1))
        }
    }
    #[inline]
    fn core_radius(&self) -> f64 {
        self.radius()
    }
}

impl<V: Vector> CoreSupport<V> for Cuboid<V> {}
impl<V: Vector, const N: usize> CoreSupport<V> for Simplex<V, N> {}
impl<V: Vector> CoreSupport<V> for ConvexPolygon<V> {}
impl<V: Vector> CoreSupport<V> for Cylinder<V> {}
impl<V: Vector> CoreSupport<V> for Cone<V> {}
impl<V: Vector> CoreSupport<V> for ConvexPolyhedron<V> {}

impl<V: Vector> CoreSupport<V> for Shape<V> {
    #[inline]
    fn local_core_support(&self, d: V) -> (V, FeatureId) {
        match self {
            Shape::Ball(s) => CoreSupport::<V>::local_core_support(s, d),
            Shape::Capsule(s) => CoreSupport::<V>::local_core_support(s, d),
            _ => self.local_support_feature(d),
        }
    }
    #[inline]
    fn core_radius(&self) -> f64 {
        match self {
            Shape::Ball(s) => s.radius(),
            Shape::Capsule(s) => s.radius(),
            _ => 0.0,
        }
    }
    #[inline]
    fn as_shape(&self) -> Option<&Shape<V>> {
        Some(self)
    }
}

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

/// The answer of [`distance`].
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

/// The simplex: its points, their barycentric weights for the closest point `v`, and `v`.
#[derive(Clone, Copy, Debug)]
struct Simplex4<V> {
    points: [Point<V>; MAX_POINTS],
    lambda: [f64; MAX_POINTS],
    len: usize,
    v: V,
}

impl<V: Vector> Simplex4<V> {
    fn new() -> Self {
        Self {
            points: [Point::default(); MAX_POINTS],
            lambda: [0.0; MAX_POINTS],
            len: 0,
            v: V::ZERO,
        }
    }

    fn push(&mut self, p: Point<V>) {
        debug_assert!(self.len < MAX_POINTS);
        self.points[self.len] = p;
        self.len += 1;
    }

    /// The largest `|w|` of the simplex: its size, the scale of its rounding.
    fn size(&self) -> f64 {
        self.points[..self.len]
            .iter()
            .map(|p| p.w.length())
            .fold(0.0, f64::max)
    }

    /// Replaces the simplex by its face nearest the origin and sets `v` to the closest point.
    fn reduce(&mut self) {
        let (lambda, v) = self.closest_with(None);
        self.keep(lambda, v);
    }

    /// The closest point of the simplex, or of the simplex with `p` added, and its weights.
    fn closest_with(&self, p: Option<&Point<V>>) -> ([f64; MAX_POINTS], V) {
        let mut w = [V::ZERO; MAX_POINTS];
        for (w, p) in w.iter_mut().zip(&self.points[..self.len]) {
            *w = p.w;
        }
        let mut n = self.len;
        if let Some(p) = p {
            w[n] = p.w;
            n += 1;
        }
        closest_on_simplex(&w[..n])
    }

    /// Keeps the points of positive weight and `v`.
    fn keep(&mut self, lambda: [f64; MAX_POINTS], v: V) {
        let mut kept = 0;
        for (i, &l) in lambda.iter().enumerate().take(self.len) {
            if l > 0.0 {
                self.points[kept] = self.points[i];
                self.lambda[kept] = l;
                kept += 1;
            }
        }
        self.len = kept;
        self.v = v;
    }

    /// `Σ λ_i f(p_i)`.
    fn combine(&self, f: impl Fn(&Point<V>) -> V) -> V {
        let mut s = V::ZERO;
        for (p, &l) in self.points[..self.len].iter().zip(&self.lambda) {
            s += f(p) * l;
        }
        s
    }

    /// The feature spanned by the distinct ids of the points (with positive weight).
    fn feature(&self, ids: impl Fn(&Point<V>) -> FeatureId) -> Feature {
        let mut distinct = [0u32; MAX_POINTS];
        let mut n = 0;
        for p in &self.points[..self.len] {
            let FeatureId::Vertex(i) = ids(p) else {
                return Feature::Curved;
            };
            if !distinct[..n].contains(&i) {
                distinct[n] = i;
                n += 1;
            }
        }
        let d = &mut distinct[..n];
        d.sort_unstable();
        match *d {
            [i] => Feature::Vertex(i),
            [i, j] => Feature::Edge(i, j),
            [i, j, k] => Feature::Face(i, j, k),
            _ => Feature::Interior,
        }
    }
}

/// The point of the hull of `w` (1 to 4 points) closest to the origin, with its barycentric
/// weights (zero outside the face it lies on): the signed-volumes distance subalgorithm (see the
/// [module docs](self)). The points are embedded in 3D (`z = 0` in 2D), so one code path
/// serves both dimensions.
pub(super) fn closest_on_simplex<V: Vector>(w: &[V]) -> ([f64; MAX_POINTS], V) {
    let mut p = [DVec3::ZERO; MAX_POINTS];
    for (p, w) in p.iter_mut().zip(w) {
        *p = DVec3::from_array(w.to_array3());
    }
    let flat = V::DIM == 2;
    let (lambda, v) = match w.len() {
        1 => {
            let mut l = [0.0; MAX_POINTS];
            l[0] = 1.0;
            (l, p[0])
        }
        2 => closest_on_segment(&p, [0, 1], flat),
        3 => closest_on_triangle(&p, [0, 1, 2], flat),
        _ => closest_on_tetrahedron(&p, flat),
    };
    (lambda, V::from_array3(v.to_array()))
}

/// The closest point of the segment `p[i] p[j]`. In 2D (`flat`) the closest point inside the
/// segment is computed along the segment's normal, whose direction is exact to rounding
/// however near the origin the segment passes.
fn closest_on_segment(p: &[DVec3; MAX_POINTS], [i, j]: [usize; 2], flat: bool) -> Sub {
    let (a, b) = (p[i], p[j]);
    let e = b - a;
    let ee = e.length_squared();
    // Barycentric weights times |e|²: λ_a = b·e, λ_b = −a·e (they sum to e·e).
    let (la, lb) = (b.dot(e), -a.dot(e));
    let mut l = [0.0; MAX_POINTS];
    if !(ee > 0.0 && la > 0.0 && lb > 0.0) {
        // A vertex: b when the origin is beyond it (or the segment is a point nearer it).
        let k = if la <= 0.0 && lb > 0.0 {
            j
        } else if lb <= 0.0 && la > 0.0 {
            i
        } else if b.length_squared() < a.length_squared() {
            j
        } else {
            i
        };
        l[k] = 1.0;
        return (l, p[k]);
    }
    l[i] = la / ee;
    l[j] = lb / ee;
    let v = a * l[i] + b * l[j];
    let v = if flat {
        let n = DVec3::new(-e.y, e.x, 0.0);
        along_normal(v, n * (n.dot(a) / ee), [a, b, b])
    } else {
        v
    };
    (l, v)
}

/// The closest point of a face (an edge in 2D, a triangle in 3D) computed along its normal,
/// `along`, when it agrees to rounding with the barycentric combination `combined`; otherwise
/// `combined`. Both are the same point, but near the origin (a gap of `1e-9` between shapes of
/// size 1) the combination's rounding (`~1e-16`) turns its direction by `~1e-7`, which spoils
/// the lower bound GJK draws from it; the normal of a well-shaped face is exact to rounding.
/// On a sliver face the normal is not, and the combination stays a point of the face, as the
/// upper bound needs.
#[inline]
fn along_normal(combined: DVec3, along: DVec3, face: [DVec3; 3]) -> DVec3 {
    let size = face
        .iter()
        .map(|p| p.abs().max_element())
        .fold(0.0, f64::max);
    if (along - combined).abs().max_element() <= ROUNDING * size {
        along
    } else {
        combined
    }
}

/// The closest point of the triangle `p[i] p[j] p[k]`: the origin projected on its plane along
/// the normal `n`, if inside (its barycentric weights are `n·(b × c) / |n|²` and cyclic);
/// otherwise the nearest of the edges opposite the vertices of non-positive weight. In 2D the
/// projection is the origin itself: inside means enclosed.
fn closest_on_triangle(p: &[DVec3; MAX_POINTS], [i, j, k]: [usize; 3], flat: bool) -> Sub {
    let (a, b, c) = (p[i], p[j], p[k]);
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    // n·(b × c) written with an edge, whose rounding shrinks with the triangle.
    let w = [
        n.dot(b.cross(c - b)),
        n.dot(c.cross(a - c)),
        n.dot(a.cross(b - a)),
    ];
    let idx = [i, j, k];
    if nn > 0.0 && nn.is_finite() && w.iter().all(|&x| x > 0.0) {
        let mut l = [0.0; MAX_POINTS];
        for (&m, &x) in idx.iter().zip(&w) {
            l[m] = x / nn;
        }
        let v = if flat {
            DVec3::ZERO
        } else {
            along_normal(
                a * l[i] + b * l[j] + c * l[k],
                n * (n.dot(a) / nn),
                [a, b, c],
            )
        };
        return (l, v);
    }
    let mut best: Option<(Sub, f64)> = None;
    for drop in 0..3 {
        if nn > 0.0 && w[drop] > 0.0 {
            continue;
        }
        let edge = [idx[(drop + 1) % 3], idx[(drop + 2) % 3]];
        let (l, v) = closest_on_segment(p, edge, flat);
        let d2 = v.length_squared();
        if best.is_none_or(|(_, d)| d2 < d) {
            best = Some(((l, v), d2));
        }
    }
    best.map_or(([1.0, 0.0, 0.0, 0.0], a), |(s, _)| s)
}

/// The closest point of the tetrahedron `p[0..4]`: the origin itself if inside (all weights,
/// ratios of signed volumes, of the sign of the whole volume), otherwise the nearest of the
/// faces opposite the vertices whose weight has the wrong sign.
fn closest_on_tetrahedron(p: &[DVec3; MAX_POINTS], flat: bool) -> Sub {
    let [a, b, c, d] = *p;
    let (ab, ac, ad) = (b - a, c - a, d - a);
    let vol = ab.dot(ac.cross(ad));
    // The volume with the origin in place of each vertex, through the opposite face's edges
    // (whose rounding shrinks with the face: GJK's last faces are often slivers).
    let w = [
        b.dot((c - b).cross(d - b)),
        -a.dot(ac.cross(ad)),
        a.dot(ab.cross(ad)),
        -a.dot(ab.cross(ac)),
    ];
    let same = |x: f64| (vol > 0.0 && x > 0.0) || (vol < 0.0 && x < 0.0);
    if vol.is_finite() && w.iter().all(|&x| same(x)) {
        return (w.map(|x| x / vol), DVec3::ZERO);
    }
    let mut best: Option<(Sub, f64)> = None;
    for (drop, &x) in w.iter().enumerate() {
        if same(x) {
            continue;
        }
        let mut face = [0; 3];
        for (slot, m) in face.iter_mut().zip((0..4).filter(|&m| m != drop)) {
            *slot = m;
        }
        let (l, v) = closest_on_triangle(p, face, flat);
        let d2 = v.length_squared();
        if best.is_none_or(|(_, d)| d2 < d) {
            best = Some(((l, v), d2));
        }
    }
    best.map_or(([1.0, 0.0, 0.0, 0.0], a), |(s, _)| s)
}

/// Barycentric weights over the simplex's points and the closest point they give.
type Sub = ([f64; MAX_POINTS], DVec3);

/// The weights `μ` of the point `p_0 + Σ μ_j (p_j − p_0)` of the affine hull of the points
/// `w[idx]` closest to the origin, from the Gram system `Σ_j (e_i·e_j) μ_j = −e_i·p_0` with
/// `e_j = p_j − p_0`; `None` when the points are affinely dependent (to rounding).
pub(super) fn affine_closest<V: Vector>(w: &[V], idx: &[usize]) -> Option<[f64; 3]> {
    let k = idx.len() - 1;
    let mut mu = [0.0; 3];
    if k == 0 {
        return Some(mu);
    }
    if k > V::DIM {
        return None;
    }
    let p0 = w[idx[0]];
    let mut e = [V::ZERO; 3];
    for j in 0..k {
        e[j] = w[idx[j + 1]] - p0;
    }
    // Augmented matrix [G | r].
    let mut m = [[0.0; 4]; 3];
    let mut scale: f64 = 0.0;
    for i in 0..k {
        for j in 0..k {
            m[i][j] = e[i].dot(e[j]);
        }
        m[i][3] = -e[i].dot(p0);
        scale = scale.max(m[i][i]);
    }
    if scale <= 0.0 || !scale.is_finite() {
        return None;
    }
    // Gaussian elimination with partial pivoting.
    for c in 0..k {
        let pivot = (c..k)
            .max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))
            .unwrap_or(c);
        m.swap(c, pivot);
        if m[c][c].abs() <= 1e-13 * scale {
            return None;
        }
        let row = m[c];
        for below in m[c + 1..k].iter_mut() {
            let f = below[c] / row[c];
            for (x, &p) in below[c..].iter_mut().zip(&row[c..]) {
                *x -= f * p;
            }
        }
    }
    for c in (0..k).rev() {
        let mut s = m[c][3];
        for j in c + 1..k {
            s -= m[c][j] * mu[j];
        }
        mu[c] = s / m[c][c];
    }
    mu.iter().all(|x| x.is_finite()).then_some(mu)
}

/// The support point of `A − B` along `d` (world frame): `s_A(d) − s_B(−d)` on the cores.
#[inline]
pub(super) fn support<V: Vector, A: CoreSupport<V> + ?Sized, B: CoreSupport<V> + ?Sized>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    d: V,
) -> Point<V> {
    let (local_a, id_a) = a.local_core_support(pose_a.rotation.inverse_rotate(d));
    let (local_b, id_b) = b.local_core_support(pose_b.rotation.inverse_rotate(-d));
    let pa = pose_a.transform_point(local_a);
    let pb = pose_b.transform_point(local_b);
    Point {
        w: pa - pb,
        a: pa,
        b: pb,
        local_a,
        local_b,
        id_a,
        id_b,
    }
}

/// `b`'s placement in `a`'s local frame. In 3D one composed rotation (a quaternion product)
/// saves a rotation per support point; in 2D composing costs a `sin_cos` ([`Rot2`] composes
/// by angles), more than the two plane rotations it would save, so both are kept.
///
/// [`Rot2`]: crate::math::Rot2
struct Relative<V: Vector> {
    /// `R_a^T R_b` (3D only).
    composed: V::Rotation,
    rot_a: V::Rotation,
    rot_b: V::Rotation,
    /// `R_a^T (x_b − x_a)`.
    offset: V,
}

impl<V: Vector> Relative<V> {
    fn new(pose_a: &Pose<V>, pose_b: &Pose<V>) -> Self {
        let composed = if V::DIM == 3 {
            pose_a.rotation.inverse().compose(pose_b.rotation)
        } else {
            V::Rotation::IDENTITY
        };
        Self {
            composed,
            rot_a: pose_a.rotation,
            rot_b: pose_b.rotation,
            offset: pose_a
                .rotation
                .inverse_rotate(pose_b.position - pose_a.position),
        }
    }
    /// A direction of `a`'s frame in `b`'s frame.
    #[inline]
    fn direction_to_b(&self, d: V) -> V {
        if V::DIM == 3 {
            self.composed.inverse_rotate(d)
        } else {
            self.rot_b.inverse_rotate(self.rot_a.rotate(d))
        }
    }
    /// A point of `b`'s frame in `a`'s frame.
    #[inline]
    fn point_from_b(&self, x: V) -> V {
        let r = if V::DIM == 3 {
            self.composed.rotate(x)
        } else {
            self.rot_a.inverse_rotate(self.rot_b.rotate(x))
        };
        r + self.offset
    }
}

/// The support point of `A − B` along `d` in `a`'s local frame.
#[inline]
fn support_in_a<V: Vector, A: CoreSupport<V> + ?Sized, B: CoreSupport<V> + ?Sized>(
    a: &A,
    b: &B,
    rel: &Relative<V>,
    d: V,
) -> Point<V> {
    let (local_a, id_a) = a.local_core_support(d);
    let (local_b, id_b) = b.local_core_support(rel.direction_to_b(-d));
    let pb = rel.point_from_b(local_b);
    Point {
        w: local_a - pb,
        a: local_a,
        b: pb,
        local_a,
        local_b,
        id_a,
        id_b,
    }
}

/// The distance between `a` at `pose_a` and `b` at `pose_b`, their closest points and features.
///
/// `cache`, when given, warm-starts the query from the previous query on the same pair and
/// receives this query's final simplex. See the [module docs](self) for the algorithm and its
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

/// Whether two cuboids are apart, by the separating-axis theorem (Gottschalk, Lin, Manocha,
/// *OBBTree*, SIGGRAPH 1996): along each face normal of either box, and in 3D each cross
/// product of an edge direction of each, the gap between the projections. Apart when one gap
/// exceeds the rounding floor of the loop (`δ`, module docs), as [`intersects`] would say.
fn cuboids_apart<V: Vector>(
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
fn relative_axes<V: Vector>(pose_a: &Pose<V>, pose_b: &Pose<V>) -> (V, [V; 3]) {
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
fn cuboid_gap<V: Vector>(ha: V, hb: V, t: V, axes: &[V; 3]) -> bool {
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

/// How [`ray_cast`] ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum RayCast {
    /// At `λ` the cores are within `tol` (to rounding); the cache holds the final simplex.
    Hit(f64),
    /// The ray misses the Minkowski difference up to `λ_max`: a separating plane the ray
    /// leaves (or never reaches before `λ_max`).
    Miss,
    /// Not converged (iteration limit, rounding): no contact before `λ`, a safe time to go on
    /// from.
    Stalled(f64),
}

/// The GJK ray cast (van den Bergen, *Ray casting against general convex objects with
/// application to continuous collision detection*, 2004; *Collision Detection in Interactive
/// 3D Environments*, 2003, §5.7.2): a `λ ∈ [0, λ_max]` at which `b`, translated by `λ u`
/// (world frame, `u` the velocity of `b` relative to `a`), is within `tol` of `a` (cores, no
/// radii) and before which it never came within `tol/2`, in one GJK-like loop on the Minkowski difference `C = A − B` with the
/// origin moved to the ray point `x = λ u'` (`u'` = `u` in `a`'s frame): contact at `λ` is
/// `x ∈ C`.
///
/// The simplex holds support points `c` of `C`; `v` is the point of `conv{x − c}` nearest the
/// origin, so `|v|` bounds the distance of `x` to `C` from above. Each iteration takes
/// `c = s_C(v)` and `w = x − c`: when `v·w > (tol/2)|v|`, the plane `{y : v·y = v·c}` separates
/// `x` from `C` by more than `tol/2`, and `x` is moved forward until that margin is `tol/2`,
/// `λ += (v·w − |v| tol/2) / (−v·u')` (no point of `C` lies beyond the plane, so no contact is
/// skipped), or, when the ray does not approach the plane (`v·u' ≥ 0`), it never meets `C`.
/// The loop stops when `|v| ≤ tol`. Every `λ` it reaches is before the first contact (to
/// rounding), as conservative advancement's steps are.
#[allow(clippy::too_many_arguments)]
pub(super) fn ray_cast<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    u: V,
    lambda_max: f64,
    tol: f64,
    max_iterations: u32,
    cache: &mut GjkCache<V>,
) -> RayCast
where
    V: Vector,
    A: CoreSupport<V> + ?Sized,
    B: CoreSupport<V> + ?Sized,
{
    let rel = Relative::new(pose_a, pose_b);
    let u = pose_a.rotation.inverse_rotate(u);
    let half = 0.5 * tol;
    let mut s = Simplex4::new();
    let d = rel.offset;
    let d = if d.length_squared() > 0.0 && d.is_finite() {
        -d
    } else {
        V::unit(0)
    };
    // Here `points[i].w` is the support point `c_i` of C itself, not `x − c_i`.
    s.push(support_in_a(a, b, &rel, d));
    s.lambda[0] = 1.0;
    let mut lambda = 0.0f64;
    let mut x = V::ZERO;
    let mut v = x - s.points[0].w;
    let mut iterations = 1u32;
    let outcome = loop {
        let v2 = v.length_squared();
        if !v2.is_finite() {
            break RayCast::Stalled(lambda);
        }
        if v2 <= tol * tol || s.len == V::DIM + 1 {
            break RayCast::Hit(lambda);
        }
        if iterations >= max_iterations {
            break RayCast::Stalled(lambda);
        }
        let p = support_in_a(a, b, &rel, v);
        iterations += 1;
        let vw = v.dot(x - p.w);
        let vlen = v2.sqrt();
        let mut moved = false;
        if vw > half * vlen {
            let vu = v.dot(u);
            if !(vu < 0.0) {
                break RayCast::Miss;
            }
            let next = lambda - (vw - half * vlen) / vu;
            if !(next <= lambda_max) {
                break RayCast::Miss;
            }
            if next > lambda {
                lambda = next;
                x = u * lambda;
                moved = true;
            }
        }
        let fresh = !s.points[..s.len].iter().any(|q| q.w == p.w);
        if !moved && !fresh {
            // Nothing new: rounding stops the progress.
            break RayCast::Stalled(lambda);
        }
        let mut w = [V::ZERO; MAX_POINTS];
        for (w, q) in w.iter_mut().zip(&s.points[..s.len]) {
            *w = x - q.w;
        }
        let mut n = s.len;
        if fresh {
            w[n] = x - p.w;
            n += 1;
        }
        let (l, vn) = closest_on_simplex(&w[..n]);
        if !moved && vn.length_squared() >= v2 {
            break RayCast::Stalled(lambda);
        }
        if fresh {
            s.push(p);
        }
        s.keep(l, vn);
        v = vn;
    };
    cache.len = s.len;
    for i in 0..s.len {
        cache.local_a[i] = s.points[i].local_a;
        cache.local_b[i] = s.points[i].local_b;
        cache.id_a[i] = s.points[i].id_a;
        cache.id_b[i] = s.points[i].id_b;
    }
    outcome
}

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
fn closed_form<V: Vector>(
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

/// Two cuboids in 2D, exactly. Apart when the separating-axis test ([`cuboids_apart`]) finds
/// a gap beyond the rounding floor, as [`intersects`] decides; otherwise intersecting, with
/// the vertex nearest the other box and its projection as the points. Two disjoint convex polygons have a closest pair with a vertex of one of them,
/// whose distance to the other polygon is then the distance between them: the distance is the
/// least over the eight vertices of the distance to the other box, each a projection on a box
/// (coordinates clamped in its frame). The answer is the loop's (status, distance, lower bound
/// equal to the distance, points, normal, features; `tests/suite/gjk.rs`), with no support
/// evaluation.
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

/// The most vertices a polygon may have for [`polygons_apart`]; larger ones run the loop.
const POLYGON_MAX: usize = 16;

/// A 2D cuboid's or convex polygon's vertices, counter-clockwise, and their number; `None`
/// for another shape or a polygon of more than [`POLYGON_MAX`] vertices.
fn polygon_vertices<V: Vector>(s: &Shape<V>, v: &mut [V; POLYGON_MAX]) -> Option<usize> {
    match s {
        Shape::ConvexPolygon(p) => {
            let src = p.vertices();
            if src.len() > POLYGON_MAX {
                return None;
            }
            v[..src.len()].copy_from_slice(src);
            Some(src.len())
        }
        Shape::Cuboid(c) => {
            let (hx, hy) = (c.half_extents().comp(0), c.half_extents().comp(1));
            for (k, (x, y)) in [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
                .into_iter()
                .enumerate()
            {
                v[k] = V::from_array3([x, y, 0.0]);
            }
            Some(4)
        }
        _ => None,
    }
}

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

/// Whether two 2D convex polygons (or a polygon and a cuboid) are apart, by the
/// separating-axis test on the edge normals of both (in 2D those are all the axes to try): a
/// gap beyond the rounding floor `δ` (module docs), as [`intersects`] decides. `None` for
/// other shapes and for a polygon of more than [`POLYGON_MAX`] vertices.
fn polygons_apart<V: Vector>(
    a: &Shape<V>,
    pose_a: &Pose<V>,
    b: &Shape<V>,
    pose_b: &Pose<V>,
) -> Option<bool> {
    let (mut va, mut vb) = ([V::ZERO; POLYGON_MAX], [V::ZERO; POLYGON_MAX]);
    let na = polygon_vertices(a, &mut va)?;
    let nb = polygon_vertices(b, &mut vb)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{DQuat, DVec2, DVec3};

    fn hull3(w: &[DVec3]) -> ([f64; MAX_POINTS], DVec3) {
        closest_on_simplex(w)
    }

    #[test]
    fn closest_point_of_simplices() {
        // Segment: the interior point.
        let (l, v) = hull3(&[DVec3::new(-1.0, 1.0, 0.0), DVec3::new(3.0, 1.0, 0.0)]);
        assert_eq!(v, DVec3::new(0.0, 1.0, 0.0));
        assert_eq!(&l[..2], &[0.75, 0.25]);
        // Triangle: a vertex region.
        let (l, v) = hull3(&[
            DVec3::new(1.0, 1.0, 1.0),
            DVec3::new(2.0, 1.0, 1.0),
            DVec3::new(1.0, 2.0, 1.0),
        ]);
        assert_eq!((v, l[0]), (DVec3::ONE, 1.0));
        // Tetrahedron around the origin: inside, all weights positive.
        let (l, v) = hull3(&[
            DVec3::new(1.0, 0.0, -1.0),
            DVec3::new(-1.0, 1.0, -1.0),
            DVec3::new(-1.0, -1.0, -1.0),
            DVec3::new(0.0, 0.0, 2.0),
        ]);
        assert!(
            v.length() < 1e-15 && l.iter().all(|&x| x > 0.0),
            "{l:?} {v}"
        );
    }

    #[test]
    fn degenerate_simplices_fall_back_to_their_faces() {
        // Collinear triangle, coplanar tetrahedron and repeated points: no NaN, right answer.
        let (_, v) = hull3(&[
            DVec3::new(-1.0, 1.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
        ]);
        assert_eq!(v, DVec3::Y);
        let (_, v) = hull3(&[
            DVec3::new(-1.0, -1.0, 1.0),
            DVec3::new(1.0, -1.0, 1.0),
            DVec3::new(0.0, 1.0, 1.0),
            DVec3::new(0.0, 0.0, 1.0),
        ]);
        assert!((v - DVec3::Z).length() < 1e-15, "{v}");
        let (_, v) = closest_on_simplex(&[DVec2::new(1.0, 2.0), DVec2::new(1.0, 2.0)]);
        assert_eq!(v, DVec2::new(1.0, 2.0));
    }

    #[test]
    fn iteration_limit_reports_both_bounds() {
        let cyl = Shape::<DVec3>::cylinder(1.0, 1.0).unwrap();
        let cone = Shape::<DVec3>::cone(1.0, 1.0).unwrap();
        let pose = Pose::new(DVec3::new(3.0, 1.0, 0.5), DQuat::from_rotation_x(1.0));
        let opts = GjkOptions {
            max_iterations: 2,
            ..GjkOptions::default()
        };
        let r = distance(&cyl, &Pose::IDENTITY, &cone, &pose, &opts, None);
        assert_eq!(r.status, GjkStatus::MaxIterations);
        assert_eq!(r.iterations, 2);
        let full = distance(
            &cyl,
            &Pose::IDENTITY,
            &cone,
            &pose,
            &GjkOptions::default(),
            None,
        );
        assert_eq!(full.status, GjkStatus::Separated);
        assert!(r.lower_bound <= full.distance + 1e-12 && full.distance <= r.distance + 1e-12);
        assert!((full.distance - full.lower_bound) <= 1e-9 * full.distance);
    }

    #[test]
    fn touching_coincident_and_far_shapes() {
        let opts = GjkOptions::default();
        let cube = Shape::<DVec3>::cuboid(DVec3::ONE).unwrap();
        // Face to face contact, same centre, and a pair far from the origin.
        for (x, d) in [(2.0, 0.0), (0.0, 0.0), (2.5, 0.5)] {
            let r = distance(
                &cube,
                &Pose::IDENTITY,
                &cube,
                &Pose::from_position(DVec3::X * x),
                &opts,
                None,
            );
            assert_eq!(r.distance, d, "{r:?}");
            assert_eq!(r.status == GjkStatus::Intersecting, d == 0.0);
        }
        let far = DVec3::new(1e8, -3e7, 2e8);
        let r = distance(
            &cube,
            &Pose::from_position(far),
            &cube,
            &Pose::from_position(far + DVec3::new(2.5, 0.3, 0.0)),
            &opts,
            None,
        );
        assert!((r.distance - 0.5).abs() < 1e-7, "{r:?}");
        // A capsule of zero half height is a ball.
        let cap = Shape::<DVec2>::capsule(0.0, 0.5).unwrap();
        let r = distance(
            &cap,
            &Pose::IDENTITY,
            &cap,
            &Pose::from_position(DVec2::new(3.0, 4.0)),
            &opts,
            None,
        );
        assert!((r.distance - 4.0).abs() < 1e-15);
    }

    #[test]
    fn intersects_stops_at_a_separating_axis() {
        let a = Shape::<DVec3>::cylinder(1.0, 1.0).unwrap();
        let far = Pose::from_position(DVec3::new(10.0, 0.0, 0.0));
        let opts = GjkOptions::default();
        assert!(!intersects(&a, &Pose::IDENTITY, &a, &far, &opts, None));
        let near = Pose::from_position(DVec3::new(1.9, 0.1, 0.0));
        assert!(intersects(&a, &Pose::IDENTITY, &a, &near, &opts, None));
    }

    #[test]
    fn a_cache_from_an_intersecting_query_stays_right() {
        let opts = GjkOptions::default();
        let b = Shape::<DVec2>::cuboid(DVec2::ONE).unwrap();
        let mut cache = GjkCache::default();
        let mut x = 0.0;
        while x < 4.0 {
            let p = Pose::from_position(DVec2::new(x, 0.3));
            let w = distance(&b, &Pose::IDENTITY, &b, &p, &opts, Some(&mut cache));
            let c = distance(&b, &Pose::IDENTITY, &b, &p, &opts, None);
            assert_eq!(w.status, c.status, "{x}");
            assert!((w.distance - c.distance).abs() < 1e-12, "{x}");
            assert!((w.distance - (x - 2.0).max(0.0)).abs() < 1e-12, "{x} {w:?}");
            x += 0.125;
        }
        cache.clear();
        assert!(cache.is_empty());
    }
}
