//! EPA: the penetration depth, normal and contact points of two overlapping convex shapes.
//!
//! # Algorithm
//!
//! The Expanding Polytope Algorithm (van den Bergen, *Proximity queries and penetration depth
//! computation on 3D game objects*, GDC 2001; *Collision Detection in Interactive 3D
//! Environments*, 2003, §4.3.6; Ericson, *Real-Time Collision Detection*, 2005, §9.5). The
//! penetration depth of overlapping `A` and `B` is the distance from the origin to the boundary
//! of their Minkowski difference `A − B`, which contains it; the nearest boundary point `p`
//! gives the minimum translation: moving `B` by `p` makes the shapes touch.
//!
//! EPA starts from [`gjk`](super::gjk)'s final simplex, which contains the origin, grown to a
//! full-dimensional simplex with support points along directions orthogonal to its affine hull
//! when GJK ended with fewer points (touching, or a flat simplex). It keeps a convex polytope
//! inside `A − B` around the origin, as a list of faces (edges in 2D, triangles in 3D), each
//! with its outward unit normal `n` and its distance `n·v` from the origin. Each iteration takes
//! the face nearest the origin and the support point `w` of `A − B` along its normal: the face's
//! distance is a lower bound on the depth (the polytope is inside `A − B`) and `n·w` an upper
//! bound (moving `B` by `(n·w) n` separates the shapes, whatever `n`). When they meet within the
//! tolerance the face is the answer; otherwise `w` is added: the faces it sees are removed and
//! the horizon (their ridges that belong to one removed face only: vertices in 2D, edges in 3D)
//! is joined to `w`. One code path serves 2D and 3D: a face is `DIM` vertices, a ridge `DIM − 1`,
//! and normals are oriented away from an interior point (the starting simplex's centroid).
//!
//! # Round shapes: core and radius
//!
//! Balls and capsules are a point or a segment grown by a radius ([`CoreSupport`]). When their
//! cores are apart (distance `d` below the radius sum `r`), the depth is `r − d` along the
//! cores' normal, exactly, from a GJK query on the cores alone. When the cores overlap too, the
//! Minkowski difference is the cores' grown by a ball of radius `r`, so the depth is the
//! cores' depth plus `r`: EPA runs on the cores, which are polytopes, and is exact as for
//! polytopes. A ball and a cuboid given as [`Shape`]s take a closed form (the centre projected
//! on the box, or leaving through its nearest face), and two overlapping solid polygons (2D
//! rectangles, convex polygons, triangles) the [separating axis test](mod@super::sat), whose
//! smallest overlap is the exact depth in 2D. For cylinders and cones EPA runs on the
//! full curved support function and
//! converges only as its polytope refines near the answer: the result is then within the
//! tolerance below or reported [`EpaStatus::MaxIterations`] with both bounds.
//!
//! # Conventions, guarantees and tolerances
//!
//! * [`EpaResult::normal`] is a unit vector from `A` to `B`, as GJK's
//!   [`GjkResult::normal`](super::GjkResult::normal): moving `B` by `depth · normal` makes the
//!   shapes touch, and `point_a − point_b = depth · normal` (within the tolerance):
//!   `point_a` is the point of `A` deepest inside `B`, `point_b` that of `B` deepest inside `A`.
//!   Both lie on their shapes (up to rounding) whatever the status: they are convex
//!   combinations of support points of the face of the polytope that holds the nearest point
//!   (of the flat facets of `A − B`, such as a box's face minus another's, split into several
//!   faces, the one that holds it), and on the closed forms' faces.
//! * The loop stops when `n·w − n·v ≤ ε n·v + δ`, with the relative tolerance
//!   `ε =` [`EpaOptions::tolerance`] (default `1e-10`) and the rounding floor
//!   `δ = 16 f64::EPSILON · s`, `s` the size of the polytope (its largest `|w|`). For
//!   polytopes (whose faces EPA reaches exactly) the depth is then exact up to rounding.
//! * [`EpaResult::depth`] is always the upper bound `n·w` along the reported normal, so moving
//!   `B` by `(depth + η) · normal`, for any `η > 0` above rounding, separates the shapes;
//!   [`EpaResult::lower_bound`] is the certified lower bound.
//! * Any size: a Minkowski difference larger than about `1e38` or smaller than `1e-38` is
//!   expanded at unit size, scaled exactly by a power of two, and the answer scaled back (the
//!   normals' squared lengths would overflow beyond about `1e77` and underflow below `1e-77`).
//! * [`EpaStatus::Touching`] when the depth is at most `ε s + δ`. A flat Minkowski difference
//!   (two segments in 3D, coplanar triangles) is touching with depth 0 and a normal orthogonal
//!   to it.
//! * [`EpaStatus::Degenerate`] when rounding stops the expansion before the tolerance: a new
//!   face comes out flat, or nearer the origin than the old nearest (which no exact expansion
//!   does: the new polytope contains the old). On curved surfaces the faces become slivers
//!   whose normals carry the rounding, and this is how EPA ends on about 1% of the overlapping
//!   cylinder and cone pairs of the tests; the best face so far is returned with both bounds,
//!   within `2e-10` of each other (relative) there. Both bounds stay valid whatever the status.
//! * Curved shapes: the depth converges to `ε`, the normal only to about `√ε` (the depth is
//!   stationary in the normal at the minimum).
//! * Never more than [`EpaOptions::max_iterations`] support evaluations in the expansion, no
//!   NaN for finite poses (every division is by a length checked to be positive).
//!
//! ```
//! use kairos_geometry::math::DVec3;
//! use kairos_geometry::query::{penetration, signed_distance, EpaOptions, EpaStatus};
//! use kairos_geometry::shape::{Cuboid, Pose};
//! let cube = Cuboid::new(DVec3::ONE).unwrap();
//! let other = Pose::from_position(DVec3::new(1.5, 0.2, -0.1));
//! let opts = EpaOptions::default();
//! let r = penetration(&cube, &Pose::IDENTITY, &cube, &other, &opts);
//! assert_eq!(r.status, EpaStatus::Penetrating);
//! assert!((r.depth - 0.5).abs() < 1e-12);
//! assert!((r.normal - DVec3::X).length() < 1e-12); // push b along +x
//! assert!((signed_distance(&cube, &Pose::IDENTITY, &cube, &other, &opts) + 0.5).abs() < 1e-12);
//! ```

mod closed_forms;

use super::gjk::{affine_closest, closest_on_simplex, distance, support, Point};
use super::sat::{as_polytope, sat, Polytope as SatPolytope, SatFeature, SatStatus};
use super::ROUNDING;
use super::{CoreSupport, GjkCache, GjkOptions, GjkStatus};
use crate::math::Vector;
use crate::shape::{ConvexShape, Cuboid, FeatureId, Pose, Shape, SupportMap};
use closed_forms::{ball_cuboid, polygons, solid_polygon};

/// How a penetration query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EpaStatus {
    /// The shapes are apart: [`EpaResult::separation`] is GJK's distance, the depth is 0.
    Separated,
    /// The shapes touch: the depth is within the tolerance of 0.
    Touching,
    /// The shapes overlap; the depth is converged to the tolerance.
    Penetrating,
    /// The iteration limit was reached first: the depth is the best face's upper bound and
    /// [`EpaResult::lower_bound`] the lower bound.
    MaxIterations,
    /// Rounding stopped the expansion before the tolerance (see the
    /// [module docs](self#conventions-guarantees-and-tolerances)): the best face so far, with
    /// its bounds.
    Degenerate,
}

/// The stopping rules of a penetration query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpaOptions {
    /// Relative tolerance `ε` on the depth (see the [module docs](self)). Default `1e-10`.
    pub tolerance: f64,
    /// The most support evaluations of the expansion. Default 256.
    pub max_iterations: u32,
    /// The options of the GJK query that starts EPA.
    pub gjk: GjkOptions,
}

impl Default for EpaOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 256,
            gjk: GjkOptions::default(),
        }
    }
}

/// The answer of [`penetration`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpaResult<V> {
    /// How the query ended.
    pub status: EpaStatus,
    /// The penetration depth (`>= 0`; 0 when separated): the length of the minimum translation.
    pub depth: f64,
    /// A lower bound on the depth (equal to it within the tolerance when converged).
    pub lower_bound: f64,
    /// The distance between the shapes when separated (GJK's), else 0.
    pub separation: f64,
    /// Unit vector from `a` to `b`: moving `b` by `depth · normal` makes the shapes touch.
    /// When separated, GJK's normal.
    pub normal: V,
    /// The point of `a` deepest inside `b`, in the world frame (GJK's closest point when
    /// separated).
    pub point_a: V,
    /// The point of `b` deepest inside `a`, in the world frame.
    pub point_b: V,
    /// Support evaluations, GJK's included.
    pub iterations: u32,
}

impl<V> EpaResult<V> {
    /// The signed distance: the separation when apart, minus the depth otherwise.
    #[must_use]
    pub fn signed_distance(&self) -> f64 {
        if self.status == EpaStatus::Separated {
            self.separation
        } else {
            -self.depth
        }
    }
}

/// A shape seen through its whole support function (radius 0), whatever its core.
struct Full<'a, S: ?Sized>(&'a S);

impl<V: Vector, S: SupportMap<V> + ?Sized> SupportMap<V> for Full<'_, S> {
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        self.0.local_support_feature(d)
    }
}
impl<V: Vector, S: SupportMap<V> + ?Sized> CoreSupport<V> for Full<'_, S> {}

/// A shape's core alone (radius 0).
struct Core<'a, S: ?Sized>(&'a S);

impl<V: Vector, S: CoreSupport<V> + ?Sized> SupportMap<V> for Core<'_, S> {
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        self.0.local_core_support(d)
    }
}
impl<V: Vector, S: CoreSupport<V> + ?Sized> CoreSupport<V> for Core<'_, S> {}

/// The signed distance between `a` at `pose_a` and `b` at `pose_b`: their distance when apart,
/// minus the penetration depth when they overlap (see [`penetration`]).
pub fn signed_distance<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    options: &EpaOptions,
) -> f64
where
    V: Vector,
    A: CoreSupport<V> + ?Sized,
    B: CoreSupport<V> + ?Sized,
{
    penetration(a, pose_a, b, pose_b, options).signed_distance()
}

/// The penetration depth, normal and contact points of `a` at `pose_a` and `b` at `pose_b`
/// (status [`EpaStatus::Separated`] with GJK's distance when they are apart). See the
/// [module docs](self) for the algorithm, the conventions and the tolerances.
pub fn penetration<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    options: &EpaOptions,
) -> EpaResult<V>
where
    V: Vector,
    A: CoreSupport<V> + ?Sized,
    B: CoreSupport<V> + ?Sized,
{
    let tolerance = options.tolerance.max(0.0);
    if let (Some(sa), Some(sb)) = (a.as_shape(), b.as_shape()) {
        match (sa, sb) {
            (Shape::Cuboid(c), Shape::Ball(ball)) => {
                return ball_cuboid(pose_b.position, ball.radius(), c, pose_a, tolerance);
            }
            (Shape::Ball(ball), Shape::Cuboid(c)) => {
                return ball_cuboid(pose_a.position, ball.radius(), c, pose_b, tolerance).swapped();
            }
            _ if V::DIM == 2 && solid_polygon(sa) && solid_polygon(sb) => {
                if let Some(r) = polygons(sa, pose_a, sb, pose_b, tolerance) {
                    return r;
                }
            }
            _ => {}
        }
    }
    let (ra, rb) = (a.core_radius(), b.core_radius());
    let margin = ra + rb;
    if margin > 0.0 {
        let (ca, cb) = (Core(a), Core(b));
        let mut cache = GjkCache::default();
        let core = distance(&ca, pose_a, &cb, pose_b, &options.gjk, Some(&mut cache));
        if core.status != GjkStatus::Intersecting {
            let n = core.normal;
            let point_a = core.point_a + n * ra;
            let point_b = core.point_b - n * rb;
            let mut r = EpaResult {
                status: EpaStatus::Separated,
                depth: 0.0,
                lower_bound: 0.0,
                separation: 0.0,
                normal: n,
                point_a,
                point_b,
                iterations: core.iterations,
            };
            if core.lower_bound > margin
                || (core.status == GjkStatus::Separated && core.distance > margin)
            {
                r.separation = core.distance - margin;
                return r;
            }
            // Cores apart, grown shapes overlapping: depth = r − d, exact.
            r.depth = margin - core.lower_bound;
            r.lower_bound = (margin - core.distance).max(0.0);
            let scale = margin + core.distance;
            r.status = if core.status == GjkStatus::MaxIterations {
                EpaStatus::MaxIterations
            } else if r.depth <= tolerance * scale + ROUNDING * scale {
                EpaStatus::Touching
            } else {
                EpaStatus::Penetrating
            };
            return r;
        }
        // The cores overlap too. The grown shapes' Minkowski difference is the cores' grown by
        // a ball of radius `ra + rb`, so its depth is the cores' depth plus the radii, along
        // the same normal: EPA on the cores (polytopes: exact) instead of on the curved
        // surfaces. A flat core difference (two points, a point on a segment, crossing
        // segments) has depth 0 along a normal orthogonal to it, which stays right.
        let start = cache.points_at(pose_a, pose_b);
        let sup = |d: V| support(&ca, pose_a, &cb, pose_b, d);
        let mut r =
            expand_at_unit_size(start, sup, tolerance, options.max_iterations, core.point_a);
        r.iterations += core.iterations;
        r.depth += margin;
        r.lower_bound += margin;
        r.point_a += r.normal * ra;
        r.point_b -= r.normal * rb;
        if r.status == EpaStatus::Touching {
            let scale = margin + r.depth;
            if r.depth > tolerance * scale + ROUNDING * scale {
                r.status = EpaStatus::Penetrating;
            }
        }
        return r;
    }
    let (fa, fb) = (Full(a), Full(b));
    let mut cache = GjkCache::default();
    let g = distance(&fa, pose_a, &fb, pose_b, &options.gjk, Some(&mut cache));
    if g.status == GjkStatus::Separated
        || (g.status == GjkStatus::MaxIterations && g.lower_bound > 0.0)
    {
        return EpaResult {
            status: EpaStatus::Separated,
            depth: 0.0,
            lower_bound: 0.0,
            separation: g.distance,
            normal: g.normal,
            point_a: g.point_a,
            point_b: g.point_b,
            iterations: g.iterations,
        };
    }
    let start = cache.points_at(pose_a, pose_b);
    let sup = |d: V| support(&fa, pose_a, &fb, pose_b, d);
    let mut r = expand_at_unit_size(start, sup, tolerance, options.max_iterations, g.point_a);
    r.iterations += g.iterations;
    r
}

impl<V: Vector> EpaResult<V> {
    /// The same answer with the shapes exchanged: the normal reversed, the points swapped.
    fn swapped(self) -> Self {
        Self {
            normal: -self.normal,
            point_a: self.point_b,
            point_b: self.point_a,
            ..self
        }
    }
}

/// How near (relative to the polytope's size) a face's plane must pass to the nearest point
/// for [`Polytope::witnesses`] to try that face for it.
const COPLANAR: f64 = 1e-9;

/// A face of the polytope: `DIM` vertex indices, outward unit normal, distance from the origin.
#[derive(Clone, Copy, Debug)]
struct Face<V> {
    v: [usize; 3],
    n: V,
    dist: f64,
}

/// `x × y` of the 3D embeddings.
fn cross3(x: [f64; 3], y: [f64; 3]) -> [f64; 3] {
    [
        x[1] * y[2] - x[2] * y[1],
        x[2] * y[0] - x[0] * y[2],
        x[0] * y[1] - x[1] * y[0],
    ]
}

/// The polytope's faces and vertices, and the interior point that orients the normals.
struct Polytope<V> {
    verts: Vec<Point<V>>,
    faces: Vec<Face<V>>,
    centre: V,
    scale: f64,
}

impl<V: Vector> Polytope<V> {
    /// The face on the vertices `v[..DIM]`, its normal pointing away from the centre; `None`
    /// when they are (to rounding) affinely dependent.
    fn face(&self, v: [usize; 3]) -> Option<Face<V>> {
        let p0 = self.verts[v[0]].w;
        let e1 = (self.verts[v[1]].w - p0).to_array3();
        let e2 = if V::DIM == 2 {
            [0.0, 0.0, 1.0]
        } else {
            (self.verts[v[2]].w - p0).to_array3()
        };
        let n = V::from_array3(cross3(e1, e2));
        let len = n.length();
        let e1len = e1.iter().map(|x| x * x).sum::<f64>().sqrt();
        let e2len = e2.iter().map(|x| x * x).sum::<f64>().sqrt();
        if len.is_nan() || len <= 1e-12 * e1len * e2len || !len.is_finite() {
            return None;
        }
        let mut n = n * (1.0 / len);
        if n.dot(p0 - self.centre) < 0.0 {
            n = -n;
        }
        Some(Face {
            v,
            n,
            dist: n.dot(p0),
        })
    }

    /// The weights over face `g`'s vertices of the point of its affine hull nearest `q` (the
    /// projection of `q` on its plane); `None` when the vertices are (to rounding) dependent.
    fn weights_of(&self, g: &Face<V>, q: V) -> Option<[f64; 3]> {
        let k = V::DIM;
        let mut w = [V::ZERO; 3];
        for (w, &i) in w.iter_mut().zip(&g.v[..k]) {
            *w = self.verts[i].w - q;
        }
        let mu = affine_closest(&w[..k], &[0, 1, 2][..k])?;
        let mut lambda = [0.0; 3];
        lambda[0] = 1.0 - mu[..k - 1].iter().sum::<f64>();
        lambda[1..k].copy_from_slice(&mu[..k - 1]);
        Some(lambda)
    }

    /// The witness points of the answer face `f`: the point of `A − B` nearest the origin,
    /// written as a convex combination of support points, whose `a` and `b` parts are then
    /// points of the shapes.
    ///
    /// That point is the foot `q` of the origin on `f`'s plane, within the facet of `A − B`
    /// that `f` belongs to, but not always within `f` itself: a flat facet (a box's face minus
    /// another's) is split into several coplanar faces, and `q` may lie in another of them, where
    /// `f`'s own weights of it would be negative and its `a` and `b` parts off the shapes. So the
    /// face of the facet containing `q` is used (the coplanar face whose least weight is largest),
    /// with its weights clamped to the face against rounding. When no face holds `q` (rounding
    /// left `f` a sliver whose plane has no well-posed foot), the point of `f` itself nearest
    /// the origin (the signed-volumes subalgorithm) is used.
    fn witnesses(&self, f: &Face<V>) -> (V, V) {
        let k = V::DIM;
        let mut best: Option<(f64, Face<V>, [f64; 3])> = None;
        let q = f.n * f.dist;
        // Faces of one facet of a curved shape's difference (a cylinder's disc against a box's
        // face) carry the rounding of the support points, slivers the most: a face whose plane
        // passes within `1e-9` of `q` is tried whatever its normal.
        let thr = COPLANAR * self.scale;
        let through_q = |g: &&Face<V>| (g.n.dot(q) - g.dist).abs() <= thr;
        for g in std::iter::once(f).chain(self.faces.iter().filter(through_q)) {
            let Some(l) = self.weights_of(g, q) else {
                continue;
            };
            let least = l[..k].iter().copied().fold(f64::INFINITY, f64::min);
            if best.as_ref().is_none_or(|(b, _, _)| least > *b) {
                best = Some((least, *g, l));
            }
        }
        let (g, lambda) = match best {
            Some((least, g, l)) if least >= -1e-9 => {
                let mut l = l.map(|x| x.max(0.0));
                let sum: f64 = l[..k].iter().sum();
                for x in &mut l[..k] {
                    *x /= sum;
                }
                (g, l)
            }
            _ => {
                let w: Vec<V> = f.v[..k].iter().map(|&i| self.verts[i].w).collect();
                let l = closest_on_simplex(&w).0;
                (*f, [l[0], l[1], l[2]])
            }
        };
        let mut pa = V::ZERO;
        let mut pb = V::ZERO;
        for (j, &i) in g.v[..k].iter().enumerate() {
            pa += self.verts[i].a * lambda[j];
            pb += self.verts[i].b * lambda[j];
        }
        (pa, pb)
    }
}

/// Sizes of the Minkowski difference beyond which [`expand`] runs at unit size: its normals are
/// cross products of differences, whose squared lengths (fourth powers of the size) overflow
/// beyond about `1e77` and lose their digits to underflow below about `1e-77`. Within them
/// nothing is scaled, so ordinary queries are untouched.
const UNIT_SIZE_ABOVE: f64 = 1.0e38; // about 2^126
const UNIT_SIZE_BELOW: f64 = 1.0e-38;

/// [`expand`] on the Minkowski difference scaled by a power of two to about unit size when its
/// start is beyond [`UNIT_SIZE_ABOVE`] or below [`UNIT_SIZE_BELOW`], the result scaled back. A
/// power of two scales every point, difference and support point exactly (away from the
/// subnormals, which scaling up only makes exact again), so the answer is the unit-size one's.
fn expand_at_unit_size<V: Vector>(
    mut start: Vec<Point<V>>,
    sup: impl Fn(V) -> Point<V>,
    tolerance: f64,
    max_iterations: u32,
    fallback: V,
) -> EpaResult<V> {
    let mut extra = 0u32;
    if start.is_empty() {
        start.push(sup(V::unit(0)));
        extra = 1;
    }
    // The largest coordinate: a length would itself overflow or underflow out there.
    let size = start.iter().map(|p| p.w.max_abs()).fold(0.0, f64::max);
    if !(size > UNIT_SIZE_ABOVE || (size < UNIT_SIZE_BELOW && size > 0.0)) {
        let mut r = expand(start, sup, tolerance, max_iterations, fallback);
        r.iterations += extra;
        return r;
    }
    // 2^-e with e the size's binary exponent: exact, and its inverse too.
    let e = size.log2().round().clamp(-1000.0, 1000.0) as i32;
    let (down, up) = (pow2(-e), pow2(e));
    let scaled = |p: Point<V>| p.scaled(down);
    let start = start.into_iter().map(scaled).collect();
    let mut r = expand(
        start,
        |d| scaled(sup(d)),
        tolerance,
        max_iterations,
        fallback * down,
    );
    r.iterations += extra;
    r.depth *= up;
    r.lower_bound *= up;
    r.separation *= up;
    r.point_a = r.point_a * up;
    r.point_b = r.point_b * up;
    r
}

/// `2^e` for `|e| <= 1000`, exactly (as two factors where one would leave the normal range).
fn pow2(e: i32) -> f64 {
    let half = e / 2;
    f64::powi(2.0, half) * f64::powi(2.0, e - half)
}

/// EPA from the points `start` (GJK's final simplex) with the support function `sup` of the
/// Minkowski difference. `fallback` is a point near the overlap for the flat case.
fn expand<V: Vector>(
    start: Vec<Point<V>>,
    sup: impl Fn(V) -> Point<V>,
    tolerance: f64,
    max_iterations: u32,
    fallback: V,
) -> EpaResult<V> {
    let mut iterations = 0u32;
    let mut start = start;
    if start.is_empty() {
        start.push(sup(V::unit(0)));
        iterations += 1;
    }
    // Affinely independent points, with an orthonormal basis of their hull's directions.
    let mut verts: Vec<Point<V>> = vec![start[0]];
    let mut basis: Vec<V> = vec![];
    let mut scale = start.iter().map(|p| p.w.length()).fold(0.0, f64::max);
    let independent = |verts: &[Point<V>], basis: &[V], p: &Point<V>, scale: f64| -> Option<V> {
        let mut r = p.w - verts[0].w;
        for &e in basis {
            r -= e * r.dot(e);
        }
        let len = r.length();
        (len > 1e-10 * scale && len.is_finite()).then(|| r * (1.0 / len))
    };
    for p in &start[1..] {
        if let Some(e) = independent(&verts, &basis, p, scale) {
            verts.push(*p);
            basis.push(e);
        }
    }
    while verts.len() < V::DIM + 1 {
        let mut grown = false;
        let mut flat_normal = V::unit(0);
        for axis in 0..V::DIM {
            let mut d = V::unit(axis);
            for &e in &basis {
                d -= e * d.dot(e);
            }
            let len = d.length();
            if len < 0.1 {
                continue;
            }
            let d = d * (1.0 / len);
            flat_normal = d;
            for dir in [d, -d] {
                let p = sup(dir);
                iterations += 1;
                scale = scale.max(p.w.length());
                if let Some(e) = independent(&verts, &basis, &p, scale) {
                    verts.push(p);
                    basis.push(e);
                    grown = true;
                    break;
                }
            }
            if grown {
                break;
            }
        }
        if !grown {
            // A flat Minkowski difference containing the origin: any move off it separates.
            return EpaResult {
                status: EpaStatus::Touching,
                depth: 0.0,
                lower_bound: 0.0,
                separation: 0.0,
                normal: flat_normal,
                point_a: fallback,
                point_b: fallback,
                iterations,
            };
        }
    }
    let mut centre = V::ZERO;
    for p in &verts {
        centre += p.w;
    }
    centre = centre * (1.0 / verts.len() as f64);
    let mut poly = Polytope {
        verts,
        faces: vec![],
        centre,
        scale,
    };
    for drop in 0..=V::DIM {
        let mut v = [0usize; 3];
        for (slot, i) in v.iter_mut().zip((0..=V::DIM).filter(|&i| i != drop)) {
            *slot = i;
        }
        // Independent points span proper faces; should rounding say otherwise, give up
        // gracefully rather than expand a broken polytope.
        let Some(f) = poly.face(v) else {
            return EpaResult {
                status: EpaStatus::Degenerate,
                depth: 0.0,
                lower_bound: 0.0,
                separation: 0.0,
                normal: V::unit(0),
                point_a: fallback,
                point_b: fallback,
                iterations,
            };
        };
        poly.faces.push(f);
    }

    let floor = |scale: f64| ROUNDING * scale;
    let mut count = 0u32;
    // Scratch buffers, reused by every iteration.
    let mut visible: Vec<bool> = Vec::with_capacity(64);
    let mut ridges: Vec<[usize; 2]> = Vec::with_capacity(64);
    let mut horizon: Vec<[usize; 2]> = Vec::with_capacity(32);
    let mut added: Vec<Face<V>> = Vec::with_capacity(32);
    poly.verts.reserve(32);
    poly.faces.reserve(64);
    let (status, face, upper) = loop {
        let f = *poly
            .faces
            .iter()
            .min_by(|x, y| x.dist.total_cmp(&y.dist))
            .expect("a polytope has faces");
        let p = sup(f.n);
        iterations += 1;
        count += 1;
        poly.scale = poly.scale.max(p.w.length());
        let h = f.n.dot(p.w);
        let lower = f.dist.max(0.0);

        if !h.is_finite() {
            break (EpaStatus::Degenerate, f, h);
        }
        if h - f.dist <= tolerance * lower + floor(poly.scale) {
            let status = if h <= tolerance * poly.scale + floor(poly.scale) {
                EpaStatus::Touching
            } else {
                EpaStatus::Penetrating
            };
            break (status, f, h);
        }
        if count >= max_iterations.max(1) {
            break (EpaStatus::MaxIterations, f, h);
        }
        if poly.verts.iter().any(|q| q.w == p.w) {
            break (EpaStatus::Degenerate, f, h);
        }
        // The faces p sees, and their horizon.
        let thr = floor(poly.scale);
        let new = poly.verts.len();
        poly.verts.push(p);
        visible.clear();
        visible.extend(
            poly.faces
                .iter()
                .map(|g| g.n.dot(p.w - poly.verts[g.v[0]].w) > thr),
        );
        ridges.clear();
        for (g, _) in poly.faces.iter().zip(&visible).filter(|(_, &v)| v) {
            for drop in 0..V::DIM {
                let mut r = [usize::MAX; 2];
                let mut k = 0;
                for (j, &i) in g.v[..V::DIM].iter().enumerate() {
                    if j != drop {
                        r[k] = i;
                        k += 1;
                    }
                }
                r.sort_unstable();
                ridges.push(r);
            }
        }
        ridges.sort_unstable();
        horizon.clear();
        let mut i = 0;
        while i < ridges.len() {
            let mut j = i + 1;
            while j < ridges.len() && ridges[j] == ridges[i] {
                j += 1;
            }
            if j - i == 1 {
                horizon.push(ridges[i]);
            }
            i = j;
        }
        added.clear();
        let mut ok = !horizon.is_empty();
        for r in &horizon {
            let v = if V::DIM == 2 {
                [r[0], new, 0]
            } else {
                [r[0], r[1], new]
            };
            match poly.face(v) {
                Some(g) => added.push(g),
                None => {
                    ok = false;
                    break;
                }
            }
        }
        // The new polytope contains the old one, so no new face is nearer the origin than the
        // old nearest: one that is comes from rounding (slivers of a curved surface), and the
        // expansion stops at the current face and its bounds.
        if !ok || added.iter().any(|g| g.dist < f.dist - thr) {
            poly.verts.pop();
            break (EpaStatus::Degenerate, f, h);
        }
        let mut k = 0;
        poly.faces.retain(|_| {
            k += 1;
            !visible[k - 1]
        });
        poly.faces.extend_from_slice(&added);
    };
    let (point_a, point_b) = poly.witnesses(&face);
    EpaResult {
        status,
        depth: if upper.is_finite() {
            upper.max(0.0)
        } else {
            face.dist.max(0.0)
        },
        lower_bound: face.dist.clamp(0.0, upper.max(0.0)),
        separation: 0.0,
        normal: face.n,
        point_a,
        point_b,
        iterations,
    }
}
