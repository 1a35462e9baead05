//! The separating axis test (SAT) for polytopes, with the last best axis cached.
//!
//! # Algorithm
//!
//! Two convex polytopes are disjoint exactly when some axis separates their projections, and
//! it suffices to try the normals of the faces of their Minkowski difference `A − B`: the face
//! normals of `A`, those of `B`, and in 3D the cross products of an edge of `A` with an edge of
//! `B` (Gottschalk, Lin, Manocha, *OBBTree*, SIGGRAPH 1996; Ericson, *Real-Time Collision
//! Detection*, 2005, §4.4 and §5.2.1). Along a unit axis `n` the *separation* is
//! `min_{b∈B} n·b − max_{a∈A} n·a`; [`sat`] returns the largest over the candidate axes, the
//! axis and the feature it came from. The seed of the query module (the narrow-phase survey on
//! SAT and GJK) suggests caching the last axis; [`SatCache`] does that (see below).
//!
//! In 3D, most edge pairs cannot span a face of `A − B`, and their axes can be skipped without
//! changing the answer. An edge pair spans a face exactly when the arcs of the two edges on the
//! Gauss map (the great arc between the normals of the edge's two faces; for `B` negated)
//! cross (Gregorius, *The Separating Axis Test between Convex Polyhedra*, GDC 2013). The test
//! here: the arc `c d` of `−B` crosses the great circle of `a b` (`c, d` on opposite sides of
//! the plane `a × b`), the arc `a b` crosses the great circle of `c d`, and the crossing point
//! of `c d`, `|d·(a×b)| c + |c·(a×b)| d`, is on the side of `a + b` (the same one of the two
//! antipodal crossings). For such a pair the separation is `n·(q − p)` for any points `p`, `q`
//! of the two edges, with `n` turned toward `a + b`: one dot product instead of two support
//! scans. An edge whose faces are not known ([`Polytope::edge_faces`] gives `None`, or the two
//! normals are opposite as for a flat triangle) is tested without pruning, by support scans
//! along both orientations of the axis; the pair is a candidate when both edges lie on the
//! supporting planes along the axis (then it spans a face of `A − B`; of several parallel
//! edges, only the supporting one does).
//!
//! Nearly parallel edges are skipped: their cross product `e_A × e_B` is below
//! [`PARALLEL_SINE`] times `|e_A| |e_B|`. Its direction would carry a relative error of about
//! `ε / sin θ`; the face of `A − B` they span is a sliver between faces tried through other
//! axes, whose separation differs from it by at most `sin θ` times the size of the shapes, so
//! with the threshold near `√ε` both errors stay near `1e-8` of the size.
//!
//! # Guarantees
//!
//! * For two polytopes of full dimension (boxes, convex polygons, 2D triangles; 3D boxes and
//!   polyhedra, and one of them a segment or a flat triangle), the candidate axes hold every
//!   face normal of `A − B`, so when the shapes overlap or touch, the returned separation is
//!   exactly minus the penetration depth (the distance from the origin to the boundary of
//!   `A − B`, as [`penetration`](super::penetration) computes) and the axis is the minimum
//!   translation direction; up to rounding and the parallel-edge threshold.
//! * When they are apart, the separation is positive and a *lower bound* on the distance (the
//!   gap between the shapes' projections on one axis); it equals the distance when the closest
//!   features are a face and a point of it (or two edges), and is smaller otherwise (a vertex
//!   facing a vertex). [`distance`](super::distance) gives the distance itself.
//! * Two flat shapes in 3D (two triangles, two segments) have a flat Minkowski difference
//!   whose in-plane normals are not among the axes: two coplanar triangles, or parallel
//!   segments, may be reported overlapping while apart. Two segments in 3D with parallel
//!   directions have no candidate axis at all: the separation is then `−∞`, status
//!   [`SatStatus::Overlapping`].
//! * The axis is a world unit vector pointing from `A` to `B`: moving `B` by `t · axis` changes
//!   the separation along it by `t`. No NaN for finite poses.
//!
//! # Cached axis
//!
//! A [`SatCache`] holds the feature of the best axis of the last query on the pair. The next
//! query first measures the separation along that feature's axis at the new poses; when it is
//! still positive the shapes are apart and the query returns at once
//! ([`SatResult::separation`] is then that axis's separation, a valid lower bound on the
//! distance, and may be smaller than the best one a full test would find). Otherwise the full
//! test runs and refills the cache. In a coherent sequence of apart shapes most queries test
//! one axis; the status is always the same as without the cache.
//!
//! ```
//! use kairos_geometry::math::DVec2;
//! use kairos_geometry::query::sat::{sat, SatCache, SatFeature, SatStatus};
//! use kairos_geometry::shape::{Cuboid, Pose};
//! let square = Cuboid::new(DVec2::new(1.0, 1.0)).unwrap();
//! let mut cache = SatCache::default();
//! let b = Pose::from_position(DVec2::new(2.5, 0.2));
//! let r = sat(&square, &Pose::IDENTITY, &square, &b, Some(&mut cache));
//! assert_eq!(r.status, SatStatus::Separated);
//! assert!((r.separation - 0.5).abs() < 1e-15);
//! assert_eq!(r.axis, DVec2::X); // from a to b
//! assert_eq!(r.feature, SatFeature::FaceA(0)); // face 0 of a cuboid: +x
//! // b moves a little: the cached axis still separates, one axis is tested.
//! let b = Pose::from_position(DVec2::new(2.4, 0.3));
//! let r = sat(&square, &Pose::IDENTITY, &square, &b, Some(&mut cache));
//! assert_eq!(r.status, SatStatus::Separated);
//! assert_eq!(r.axes_tested, 1);
//! // Overlapping: the separation is minus the penetration depth.
//! let b = Pose::from_position(DVec2::new(1.5, 0.2));
//! let r = sat(&square, &Pose::IDENTITY, &square, &b, Some(&mut cache));
//! assert_eq!(r.status, SatStatus::Overlapping);
//! assert!((r.separation + 0.5).abs() < 1e-15);
//! ```

// Comparisons are negated on purpose where a NaN must take the safe branch.

mod pairs;
#[cfg(test)]
mod tests;

pub(super) use crate::shape::faces::cross;
pub use crate::shape::Polytope;
pub(super) use pairs::{cuboid_gap, cuboids_apart, polygons_apart, relative_axes};

/// The shape as a polytope, when it is one (cuboid, segment, triangle, convex polygon, convex
/// polyhedron): [`ConvexShape::as_polytope`](crate::shape::ConvexShape::as_polytope).
#[must_use]
#[inline]
pub fn as_polytope<V: Vector>(shape: &crate::shape::Shape<V>) -> Option<&dyn Polytope<V>> {
    crate::shape::ConvexShape::as_polytope(shape)
}

use crate::math::{Rotation, Vector};
use crate::shape::Pose;

/// Edge pairs whose directions make an angle with sine below this are skipped (see the
/// [module docs](self)).
pub const PARALLEL_SINE: f64 = 1e-8;

// ---------------------------------------------------------------------------------------------
// The test

/// The feature of the two polytopes whose axis gave the separation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SatFeature {
    /// The normal of face `i` of `a`.
    FaceA(u32),
    /// The normal of face `j` of `b` (negated, to point from `a` to `b`).
    FaceB(u32),
    /// The cross product of edge `i` of `a` and edge `j` of `b` (3D).
    Edges(u32, u32),
    /// No candidate axis (two parallel segments in 3D).
    None,
}

/// Whether the separating axis test found the shapes apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SatStatus {
    /// An axis separates them: the separation is positive.
    Separated,
    /// No axis separates them: they overlap or touch (separation `≤ 0`).
    Overlapping,
}

/// The answer of [`sat`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SatResult<V> {
    /// [`SatStatus::Separated`] when the separation is positive.
    pub status: SatStatus,
    /// The largest separation over the candidate axes (see the [module docs](self)); after a
    /// cache early out, the separation along the cached axis.
    pub separation: f64,
    /// The world unit axis, from `a` to `b` (zero with [`SatFeature::None`]).
    pub axis: V,
    /// Which feature gave the axis.
    pub feature: SatFeature,
    /// Candidate axes whose separation was measured (the cached one included).
    pub axes_tested: u32,
}

/// The feature of the last query's best axis, tried first by the next query on the same pair
/// (see the [module docs](self#cached-axis)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SatCache {
    feature: Option<SatFeature>,
}

impl SatCache {
    /// Forgets the axis.
    pub fn clear(&mut self) {
        self.feature = None;
    }
    /// The cached feature, if any.
    #[must_use]
    pub fn feature(&self) -> Option<SatFeature> {
        self.feature
    }
}

/// The best axis of each kind, and the number of axes measured (for the manifolds).
#[derive(Clone, Copy, Debug)]
pub(super) struct SatAll<V> {
    /// Best face of `a`: index, separation, world axis.
    pub(super) face_a: Option<(u32, f64, V)>,
    /// Best face of `b`.
    pub(super) face_b: Option<(u32, f64, V)>,
    /// Best edge pair.
    pub(super) edges: Option<(u32, u32, f64, V)>,
    pub(super) tested: u32,
}

/// `b`'s pose in `a`'s frame, and the pieces of the separation along a local axis of `a`.
struct Frame<'a, V: Vector, A: ?Sized, B: ?Sized> {
    a: &'a A,
    b: &'a B,
    /// `b` in `a`'s frame.
    rel: Rel<V>,
}

/// The placement of `b`'s frame in `a`'s as a rotation matrix (its columns: `b`'s axes in
/// `a`'s frame) and a translation: a rotation is then a few products, with no trigonometry
/// (composing 2D rotations would take a `sin_cos`).
#[derive(Clone, Copy, Debug)]
struct Rel<V> {
    cols: [V; 3],
    t: V,
}

impl<V: Vector> Rel<V> {
    fn new(pose_a: &Pose<V>, pose_b: &Pose<V>) -> Self {
        let col = |k: usize| {
            if k < V::DIM {
                pose_a
                    .rotation
                    .inverse_rotate(pose_b.rotation.rotate(V::unit(k)))
            } else {
                V::ZERO
            }
        };
        Self {
            cols: [col(0), col(1), col(2)],
            t: pose_a
                .rotation
                .inverse_rotate(pose_b.position - pose_a.position),
        }
    }
    /// A direction of `b`'s frame in `a`'s.
    #[inline]
    fn rotate(&self, v: V) -> V {
        let mut r = self.cols[0] * v.comp(0) + self.cols[1] * v.comp(1);
        if V::DIM == 3 {
            r += self.cols[2] * v.comp(2);
        }
        r
    }
    /// A direction of `a`'s frame in `b`'s.
    #[inline]
    fn inverse_rotate(&self, w: V) -> V {
        V::from_array3([
            self.cols[0].dot(w),
            self.cols[1].dot(w),
            if V::DIM == 3 {
                self.cols[2].dot(w)
            } else {
                0.0
            },
        ])
    }
    /// A point of `b`'s frame in `a`'s.
    #[inline]
    fn transform_point(&self, v: V) -> V {
        self.rotate(v) + self.t
    }
    /// A point of `a`'s frame in `b`'s.
    #[inline]
    fn inverse_transform_point(&self, p: V) -> V {
        self.inverse_rotate(p - self.t)
    }
}

impl<V: Vector, A: Polytope<V> + ?Sized, B: Polytope<V> + ?Sized> Frame<'_, V, A, B> {
    /// Vertex `i` of `b` in `a`'s frame.
    #[inline]
    fn vb(&self, i: usize) -> V {
        self.rel.transform_point(self.b.vertex(i))
    }
    /// Face `i` of `a`: separation, local axis.
    #[inline]
    fn face_a(&self, i: usize) -> (f64, V) {
        let n = self.a.face_normal(i);
        let ib = self.b.support_vertex(self.rel.inverse_rotate(-n));
        (n.dot(self.vb(ib)) - self.a.face_offset(i), n)
    }
    /// Face `j` of `b`: separation, local axis of `a` (from `a` to `b`).
    #[inline]
    fn face_b(&self, j: usize) -> (f64, V) {
        let m = self.b.face_normal(j);
        let ia = self.a.support_vertex(self.rel.rotate(-m));
        let pa = self.rel.inverse_transform_point(self.a.vertex(ia));
        (m.dot(pa) - self.b.face_offset(j), -self.rel.rotate(m))
    }
    /// The unit cross product of edge `i` of `a` and edge `j` of `b` in `a`'s frame, `None`
    /// when they are nearly parallel; also a point of each edge.
    #[inline]
    fn edge_axis(&self, i: usize, j: usize) -> Option<(V, V, V)> {
        let (p, ea) = self.edge_a(i);
        let (q, eb) = self.edge_b(j);
        Some((unit_cross(ea, eb)?, p, q))
    }
    /// Edge `i` of `a`: its first vertex and its direction (to the second).
    #[inline]
    fn edge_a(&self, i: usize) -> (V, V) {
        let [p0, p1] = self.a.edge(i);
        let p = self.a.vertex(p0 as usize);
        (p, self.a.vertex(p1 as usize) - p)
    }
    /// Edge `j` of `b` in `a`'s frame: its first vertex and its direction.
    #[inline]
    fn edge_b(&self, j: usize) -> (V, V) {
        let [q0, q1] = self.b.edge(j);
        let q = self.vb(q0 as usize);
        (q, self.vb(q1 as usize) - q)
    }
    /// Edges `i`, `j` by support scans along both orientations: separation, local axis. With
    /// `on_support`, `None` unless the two edges are the supporting features along the axis
    /// (of several parallel edges only the supporting one spans a face of `A − B`).
    fn edges_by_support(&self, i: usize, j: usize, on_support: bool) -> Option<(f64, V)> {
        let (n, p, q) = self.edge_axis(i, j)?;
        let mut best: Option<(f64, V)> = None;
        for n in [n, -n] {
            let pa = self.a.vertex(self.a.support_vertex(n));
            let ib = self.b.support_vertex(self.rel.inverse_rotate(-n));
            let pb = self.vb(ib);
            if on_support {
                // The edges lie on the supporting planes (to an angle of 1e-9).
                let (da, db) = (pa - p, q - pb);
                if n.dot(da) > 1e-9 * da.length() || n.dot(db) > 1e-9 * db.length() {
                    continue;
                }
            }
            let s = n.dot(pb) - n.dot(pa);
            if best.is_none_or(|b| s > b.0) {
                best = Some((s, n));
            }
        }
        best
    }
    /// The separation along the cached feature's axis, by support scans (a valid separation
    /// whatever the poses), and the local axis.
    fn cached(&self, f: SatFeature) -> Option<(f64, V)> {
        match f {
            SatFeature::FaceA(i) if (i as usize) < self.a.face_count() => {
                Some(self.face_a(i as usize))
            }
            SatFeature::FaceB(j) if (j as usize) < self.b.face_count() => {
                Some(self.face_b(j as usize))
            }
            SatFeature::Edges(i, j)
                if (i as usize) < self.a.edge_count() && (j as usize) < self.b.edge_count() =>
            {
                self.edges_by_support(i as usize, j as usize, false)
            }
            _ => None,
        }
    }

    /// Every candidate axis: the best of each kind.
    fn all(&self) -> SatAll<V> {
        let mut out = SatAll {
            face_a: None,
            face_b: None,
            edges: None,
            tested: 0,
        };
        for i in 0..self.a.face_count() {
            let (s, n) = self.face_a(i);
            out.tested += 1;
            if out.face_a.is_none_or(|best| s > best.1) {
                out.face_a = Some((i as u32, s, n));
            }
        }
        for j in 0..self.b.face_count() {
            let (s, n) = self.face_b(j);
            out.tested += 1;
            if out.face_b.is_none_or(|best| s > best.1) {
                out.face_b = Some((j as u32, s, n));
            }
        }
        let (na, nb) = (self.a.edge_count(), self.b.edge_count());
        if na == 0 || nb == 0 {
            return out;
        }
        // The Gauss-map arcs of b's edges, negated, in a's frame: (c, d), or None.
        let arcs_b: Vec<Option<Arc<V>>> = (0..nb)
            .map(|j| {
                let [f, g] = self.b.edge_faces(j)?;
                let c = -self.rel.rotate(self.b.face_normal(f as usize));
                let d = -self.rel.rotate(self.b.face_normal(g as usize));
                proper_arc(c, d)
            })
            .collect();
        // The edges once, b's in a's frame: (first vertex, direction).
        let edges_a: Vec<(V, V)> = (0..na).map(|i| self.edge_a(i)).collect();
        let edges_b: Vec<(V, V)> = (0..nb).map(|j| self.edge_b(j)).collect();
        for i in 0..na {
            let arc_a = self.a.edge_faces(i).and_then(|[f, g]| {
                proper_arc(
                    self.a.face_normal(f as usize),
                    self.a.face_normal(g as usize),
                )
            });
            for (j, arc_b) in arcs_b.iter().enumerate() {
                let (s, n) = match (&arc_a, arc_b) {
                    (Some(x), Some(y)) => {
                        if !arcs_cross(x, y) {
                            continue;
                        }
                        let ((p, ea), (q, eb)) = (edges_a[i], edges_b[j]);
                        let Some(n) = unit_cross(ea, eb) else {
                            continue;
                        };
                        let n = if n.dot(x.a + x.b) < 0.0 { -n } else { n };
                        (n.dot(q - p), n)
                    }
                    _ => {
                        // Measured whether or not the edges turn out to support the axis.
                        out.tested += 1;
                        match self.edges_by_support(i, j, true) {
                            Some(x) => x,
                            None => continue,
                        }
                    }
                };
                if arc_a.is_some() && arc_b.is_some() {
                    out.tested += 1;
                }
                if out.edges.is_none_or(|best| s > best.2) {
                    out.edges = Some((i as u32, j as u32, s, n));
                }
            }
        }
        out
    }
}

/// `ea × eb` normalised, `None` when the edges are nearly parallel (see [`PARALLEL_SINE`]).
#[inline]
fn unit_cross<V: Vector>(ea: V, eb: V) -> Option<V> {
    let c = cross(ea, eb);
    let l2 = c.length_squared();
    if !(l2 > PARALLEL_SINE * PARALLEL_SINE * ea.length_squared() * eb.length_squared()) {
        return None;
    }
    Some(c * (1.0 / l2.sqrt()))
}

/// The arc between the unit normals `a`, `b` and the normal `a × b` of its great circle, when
/// the arc is well defined (`a`, `b` not opposite).
#[derive(Clone, Copy, Debug)]
struct Arc<V> {
    a: V,
    b: V,
    n: V,
}

#[inline]
fn proper_arc<V: Vector>(a: V, b: V) -> Option<Arc<V>> {
    let n = cross(a, b);
    (n.length_squared() > 1e-20).then_some(Arc { a, b, n })
}

/// Whether the Gauss-map arcs `x` (of `A`) and `y` (of `−B`) cross (see the
/// [module docs](self)).
#[inline]
fn arcs_cross<V: Vector>(x: &Arc<V>, y: &Arc<V>) -> bool {
    let (sc, sd) = (y.a.dot(x.n), y.b.dot(x.n));
    if !(sc * sd < 0.0) {
        return false;
    }
    if !(x.a.dot(y.n) * x.b.dot(y.n) < 0.0) {
        return false;
    }
    (y.a * sd.abs() + y.b * sc.abs()).dot(x.a + x.b) > 0.0
}

/// The separation along the axis of `feature` at these poses, by support scans, and the world
/// axis; `None` when the feature does not exist or its edges are parallel.
pub(super) fn separation_of<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    feature: SatFeature,
) -> Option<(f64, V)>
where
    V: Vector,
    A: Polytope<V> + ?Sized,
    B: Polytope<V> + ?Sized,
{
    let frame = Frame {
        a,
        b,
        rel: Rel::new(pose_a, pose_b),
    };
    frame
        .cached(feature)
        .map(|(s, n)| (s, pose_a.rotation.rotate(n)))
}

impl SatCache {
    /// Stores `feature` as the pair's last best axis.
    pub(super) fn set(&mut self, feature: SatFeature) {
        self.feature = (feature != SatFeature::None).then_some(feature);
    }
}

/// Runs every candidate axis of `a` and `b` (local to `a`), the best of each kind in world axes.
pub(super) fn sat_all<V, A, B>(a: &A, pose_a: &Pose<V>, b: &B, pose_b: &Pose<V>) -> SatAll<V>
where
    V: Vector,
    A: Polytope<V> + ?Sized,
    B: Polytope<V> + ?Sized,
{
    let frame = Frame {
        a,
        b,
        rel: Rel::new(pose_a, pose_b),
    };
    let mut all = frame.all();
    let r = pose_a.rotation;
    if let Some(f) = &mut all.face_a {
        f.2 = r.rotate(f.2);
    }
    if let Some(f) = &mut all.face_b {
        f.2 = r.rotate(f.2);
    }
    if let Some(e) = &mut all.edges {
        e.3 = r.rotate(e.3);
    }
    all
}

impl<V: Vector> SatAll<V> {
    /// The best axis over all kinds (ties: faces of `a`, then of `b`, then edges).
    pub(super) fn best(&self) -> (f64, V, SatFeature) {
        let mut best = (f64::NEG_INFINITY, V::ZERO, SatFeature::None);
        if let Some((i, s, n)) = self.face_a {
            best = (s, n, SatFeature::FaceA(i));
        }
        if let Some((j, s, n)) = self.face_b {
            if s > best.0 {
                best = (s, n, SatFeature::FaceB(j));
            }
        }
        if let Some((i, j, s, n)) = self.edges {
            if s > best.0 {
                best = (s, n, SatFeature::Edges(i, j));
            }
        }
        best
    }
}

/// The separating axis test of polytopes `a` at `pose_a` and `b` at `pose_b`: the largest
/// separation over the candidate axes, its world axis (from `a` to `b`) and feature.
///
/// `cache`, when given, is tried first and receives this query's best feature (see the
/// [module docs](self) for the candidate axes, the guarantees and the cache).
pub fn sat<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    cache: Option<&mut SatCache>,
) -> SatResult<V>
where
    V: Vector,
    A: Polytope<V> + ?Sized,
    B: Polytope<V> + ?Sized,
{
    let frame = Frame {
        a,
        b,
        rel: Rel::new(pose_a, pose_b),
    };
    let mut tested = 0;
    if let Some(f) = cache.as_ref().and_then(|c| c.feature) {
        if let Some((s, n)) = frame.cached(f) {
            tested = 1;
            if s > 0.0 {
                return SatResult {
                    status: SatStatus::Separated,
                    separation: s,
                    axis: pose_a.rotation.rotate(n),
                    feature: f,
                    axes_tested: 1,
                };
            }
        }
    }
    let all = frame.all();
    let (s, n, feature) = all.best();
    if let Some(c) = cache {
        c.feature = (feature != SatFeature::None).then_some(feature);
    }
    SatResult {
        status: if s > 0.0 {
            SatStatus::Separated
        } else {
            SatStatus::Overlapping
        },
        separation: s,
        axis: pose_a.rotation.rotate(n),
        feature,
        axes_tested: tested + all.tested,
    }
}
