//! Contact manifolds: the few points that stand for the contact of two touching shapes, each
//! named by the pair of features it comes from.
//!
//! # Algorithm
//!
//! A solver needs, for two shapes touching or about to (within a *prediction* distance), a
//! normal and a handful of points whose convex hull covers the contact region: up to 2 in 2D,
//! up to 4 in 3D (the seed's narrow phase: "a finite and minimal number of points whose convex
//! hull contains" the contact set). Each point carries a [`ContactId`], the features of `a` and
//! `b` it lies on (the seed's `CollisionID`, built from `VERTEX`, `EDGE`, `FACE` and an index),
//! so that a solver can match the contacts of consecutive queries and warm-start their impulses.
//!
//! * **Polytope–polytope** (cuboids, convex polygons, triangles, segments, convex polyhedra):
//!   the [separating axis test](mod@super::sat) gives the best axis. A face axis makes that face
//!   the *reference face*; the *incident face* is, of the other shape's faces around its vertex
//!   deepest along the reference normal, the one most anti-parallel to it. The incident face is clipped against the side planes of the reference face
//!   (Sutherland–Hodgman, *Reentrant polygon clipping*, CACM 17(1), 1974; in 2D the two planes
//!   through the ends of the reference side), and the clipped points farther than the
//!   prediction above the reference plane are dropped. In 3D more than 4 points are reduced to
//!   the deepest, the farthest from it, the one spanning the largest triangle with them, and the
//!   one adding the most area. An edge–edge axis (3D) gives one point, the closest points of the
//!   two edges. This is the reference/incident face clipping of Box2D's polygon collider and of
//!   Gregorius (*Robust Contact Creation for Physics Simulations*, GDC 2015), written for both
//!   dimensions at once.
//! * **Round shapes through their cores** ([`CoreSupport`](super::CoreSupport)): a ball gives
//!   one point, from GJK on its centre (exact) or EPA when the centre is inside the other shape.
//!   A capsule (a segment core grown by its radius) against a polytope, or against a parallel
//!   capsule, gives up to two points: when GJK's normal between the cores is a face normal of the
//!   polytope, the core segment is clipped against that face's side planes; for parallel
//!   capsules the other core is clipped to the ends of the first. When the core segment itself
//!   enters the polytope, the polytope–polytope manifold of the cores is grown by the radius.
//! * **Everything else** (cylinders, cones, crossing capsules): one point, from GJK when apart
//!   and EPA when overlapping.
//!
//! # Feature ids
//!
//! Faces, edges and vertices are numbered as by [`Polytope`] (in 2D a side is a face,
//! [`FeatureId::Face`]). A clipped incident vertex is `(reference face, incident vertex)`; a
//! point where an incident edge (3D) or side (2D) crosses a side plane is `(reference edge or
//! vertex of that plane, incident edge or side)`; a corner of the reference face is `(reference
//! vertex, incident face)`; an edge–edge point is `(edge, edge)`. A capsule's core is edge 0 with
//! vertices 0 (at `−h`) and 1 (at `+h`); curved surfaces are [`FeatureId::None`]. The ids name
//! features, not positions, so a small motion that keeps the same features in contact keeps the
//! same ids. The choice between the faces of `a` and of `b` (and edges) prefers `a`'s faces,
//! then `b`'s, then edges, unless the other is better by more than [`FEATURE_BIAS`] times the
//! size of the shapes: two boxes resting on each other, where both faces give the same
//! separation up to rounding, keep the same reference face.
//!
//! # Conventions and guarantees
//!
//! * [`Manifold::normal`] is a unit vector from `a` to `b`; each point has its world points on
//!   `a` and on `b` and the signed separation `(point_b − point_a) · normal` (negative when
//!   overlapping). Points are kept when their separation is at most the prediction.
//! * For overlapping polytopes the deepest point's separation is minus the penetration depth
//!   (SAT's separation, exact up to rounding, see [`sat`](mod@super::sat)), unless the bias above
//!   chose an axis less than `FEATURE_BIAS` times the size away from the best.
//! * When the shapes are apart by more than the prediction, the manifold is empty. With a
//!   [`SatCache`], a polytope pair whose cached axis still separates by more than the prediction
//!   returns empty at once.
//! * No NaN for finite poses; a negative or NaN prediction counts as 0.
//!
//! ```
//! use kairos::math::DVec3;
//! use kairos::query::manifold::contact_manifold;
//! use kairos::shape::{Pose, Shape};
//! let ground = Shape::cuboid(DVec3::new(5.0, 1.0, 5.0)).unwrap();
//! let crate_ = Shape::cuboid(DVec3::new(0.5, 0.5, 0.5)).unwrap();
//! // The crate rests on the ground, sunk by 0.01.
//! let on_top = Pose::from_position(DVec3::new(0.0, 1.49, 0.0));
//! let m = contact_manifold(&ground, &Pose::IDENTITY, &crate_, &on_top, 0.02, None);
//! assert_eq!(m.points().len(), 4);
//! assert!((m.normal - DVec3::Y).length() < 1e-15);
//! for p in m.points() {
//!     assert!((p.separation + 0.01).abs() < 1e-12);
//! }
//! ```

// Comparisons are negated on purpose where a NaN must take the safe branch.

use super::gjk::{distance, GjkOptions, GjkStatus};
use super::sat::{as_polytope, cross, sat_all, separation_of, Polytope, SatCache, SatFeature};
use super::{penetration, EpaOptions};
use crate::math::{Rotation, Vector};
use crate::shape::{Capsule, FeatureId, Pose, Segment, Shape};

/// The relative margin by which another reference feature must beat the preferred one (see
/// the [module docs](self#feature-ids)).
pub const FEATURE_BIAS: f64 = 1e-6;

/// The most points of a manifold (3D; 2 in 2D).
pub const MAX_POINTS: usize = 4;

/// The features of `a` and `b` a contact point lies on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContactId {
    /// The feature of shape `a`.
    pub a: FeatureId,
    /// The feature of shape `b`.
    pub b: FeatureId,
}

impl ContactId {
    /// The id with `a` and `b` swapped.
    #[must_use]
    pub fn swapped(self) -> Self {
        Self {
            a: self.b,
            b: self.a,
        }
    }
}

/// One point of a contact manifold.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactPoint<V> {
    /// The point on `a`, world frame.
    pub point_a: V,
    /// The point on `b`, world frame.
    pub point_b: V,
    /// `(point_b − point_a) · normal`: negative when the shapes overlap there.
    pub separation: f64,
    /// The features the point comes from.
    pub id: ContactId,
}

/// The contact of two shapes: a normal and up to [`MAX_POINTS`] points.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Manifold<V> {
    /// Unit vector from `a` to `b` (zero when there is no point).
    pub normal: V,
    len: usize,
    points: [ContactPoint<V>; MAX_POINTS],
}

impl<V: Vector> Manifold<V> {
    /// The empty manifold.
    fn empty() -> Self {
        Self::default()
    }
    /// A manifold of these points (at most [`MAX_POINTS`]).
    fn of(normal: V, pts: &[ContactPoint<V>]) -> Self {
        let mut m = Self {
            normal,
            ..Self::default()
        };
        for p in pts.iter().take(MAX_POINTS) {
            m.points[m.len] = *p;
            m.len += 1;
        }
        if m.len == 0 {
            m.normal = V::ZERO;
        }
        m
    }
    /// The contact points.
    #[must_use]
    pub fn points(&self) -> &[ContactPoint<V>] {
        &self.points[..self.len]
    }
    /// Whether there is no contact point.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The point of least separation.
    #[must_use]
    pub fn deepest(&self) -> Option<&ContactPoint<V>> {
        self.points()
            .iter()
            .min_by(|p, q| p.separation.total_cmp(&q.separation))
    }
    /// The manifold seen from `b`: normal negated, points and ids swapped.
    #[must_use]
    pub fn swapped(&self) -> Self {
        let mut m = *self;
        m.normal = -m.normal;
        for p in &mut m.points[..m.len] {
            std::mem::swap(&mut p.point_a, &mut p.point_b);
            p.id = p.id.swapped();
        }
        m
    }
    /// Grows the manifold of two cores by their radii: points moved along the normal,
    /// separations reduced.
    fn grown(mut self, ra: f64, rb: f64) -> Self {
        let n = self.normal;
        for p in &mut self.points[..self.len] {
            p.point_a += n * ra;
            p.point_b -= n * rb;
            p.separation -= ra + rb;
        }
        self
    }
}

/// The contact manifold of `a` at `pose_a` and `b` at `pose_b`: points where they touch,
/// overlap, or are within `prediction` of touching; empty when farther apart.
///
/// `cache` serves polytope pairs (see [`SatCache`]); give each ordered pair its own. See the
/// [module docs](self) for the method per shape pair, the ids and the guarantees.
pub fn contact_manifold<V: Vector>(
    a: &Shape<V>,
    pose_a: &Pose<V>,
    b: &Shape<V>,
    pose_b: &Pose<V>,
    prediction: f64,
    cache: Option<&mut SatCache>,
) -> Manifold<V> {
    let prediction = if prediction >= 0.0 { prediction } else { 0.0 };
    match (core_of(a), core_of(b)) {
        (Core::Poly(pa), Core::Poly(pb)) => {
            polytope_contacts(pa, pose_a, pb, pose_b, prediction, cache)
                .unwrap_or_else(|| one_point(a, pose_a, b, pose_b, prediction))
        }
        (Core::Segment(sa, ra), Core::Poly(pb)) => {
            capsule_polytope(&sa, ra, pose_a, pb, pose_b, prediction)
                .unwrap_or_else(|| one_point(a, pose_a, b, pose_b, prediction))
        }
        (Core::Poly(pa), Core::Segment(sb, rb)) => {
            capsule_polytope(&sb, rb, pose_b, pa, pose_a, prediction)
                .map(|m| m.swapped())
                .unwrap_or_else(|| one_point(a, pose_a, b, pose_b, prediction))
        }
        (Core::Segment(sa, ra), Core::Segment(sb, rb)) => {
            capsule_capsule(&sa, ra, pose_a, &sb, rb, pose_b, prediction)
                .unwrap_or_else(|| one_point(a, pose_a, b, pose_b, prediction))
        }
        _ => one_point(a, pose_a, b, pose_b, prediction),
    }
}

/// The contact manifold of two polytopes (see [`contact_manifold`]); empty also when SAT has
/// no candidate axis (two parallel segments in 3D).
pub fn polytope_manifold<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    prediction: f64,
    cache: Option<&mut SatCache>,
) -> Manifold<V>
where
    V: Vector,
    A: Polytope<V> + ?Sized,
    B: Polytope<V> + ?Sized,
{
    let prediction = if prediction >= 0.0 { prediction } else { 0.0 };
    polytope_contacts(a, pose_a, b, pose_b, prediction, cache).unwrap_or_default()
}

/// How a shape enters the manifold: a polytope, a capsule's core segment and radius, or neither.
enum Core<'a, V: Vector> {
    Poly(&'a dyn Polytope<V>),
    Segment(Segment<V>, f64),
    Other,
}

fn core_of<V: Vector>(s: &Shape<V>) -> Core<'_, V> {
    if let Some(p) = as_polytope(s) {
        return Core::Poly(p);
    }
    match s {
        Shape::Capsule(c) => {
            capsule_core(c).map_or(Core::Other, |seg| Core::Segment(seg, c.radius()))
        }
        _ => Core::Other,
    }
}

/// A capsule's core segment, vertex 0 at `−h`, vertex 1 at `+h` (`None` for `h = 0`, a ball).
fn capsule_core<V: Vector>(c: &Capsule) -> Option<Segment<V>> {
    let h = V::unit(1) * c.half_height();
    Segment::new(-h, h).ok()
}

// ---------------------------------------------------------------------------------------------
// One point from GJK or EPA

/// One point from EPA's penetration query (GJK's closest points when apart).
fn one_point<V: Vector>(
    a: &Shape<V>,
    pose_a: &Pose<V>,
    b: &Shape<V>,
    pose_b: &Pose<V>,
    prediction: f64,
) -> Manifold<V> {
    let r = penetration(a, pose_a, b, pose_b, &EpaOptions::default());
    let sep = r.signed_distance();
    if !(sep <= prediction) || r.normal == V::ZERO || !r.normal.is_finite() {
        return Manifold::empty();
    }
    // GJK's closest points when apart; when overlapping, EPA's: a's point deepest inside b and
    // b's deepest inside a.
    let (point_a, point_b) = (r.point_a, r.point_b);
    let id = ContactId {
        a: facing_feature(a, pose_a, r.normal),
        b: facing_feature(b, pose_b, -r.normal),
    };
    Manifold::of(
        r.normal,
        &[ContactPoint {
            point_a,
            point_b,
            separation: sep,
            id,
        }],
    )
}

/// The face of a polytope whose normal is closest to the world direction `d` (edge 0 of a 3D
/// segment); `None` for curved shapes.
fn facing_feature<V: Vector>(s: &Shape<V>, pose: &Pose<V>, d: V) -> FeatureId {
    let Some(p) = as_polytope(s) else {
        return FeatureId::None;
    };
    if p.face_count() == 0 {
        return FeatureId::Edge(0);
    }
    let local = pose.rotation.inverse_rotate(d);
    let best = (0..p.face_count())
        .map(|i| (i, p.face_normal(i).dot(local)))
        .fold((0, f64::NEG_INFINITY), |b, x| if x.1 > b.1 { x } else { b });
    FeatureId::Face(best.0 as u32)
}

// ---------------------------------------------------------------------------------------------
// Clipping

/// A half-space `n · x ≤ offset` bounding the reference face, and the reference feature it
/// stands for (a vertex in 2D, an edge in 3D).
#[derive(Clone, Copy, Debug)]
struct Plane<V> {
    n: V,
    offset: f64,
    feature: FeatureId,
}

/// A point being clipped and its features on the reference and incident shapes.
#[derive(Clone, Copy, Debug)]
struct Clipped<V> {
    p: V,
    on_ref: FeatureId,
    on_inc: FeatureId,
}

/// What the polygon edge starting at a point lies on: an incident feature, or side plane `k`.
#[derive(Clone, Copy, Debug)]
enum Origin {
    Incident(FeatureId),
    Side(usize),
}

/// A reference face in the world: normal, plane offset, side planes, vertex loop.
struct RefFace<V> {
    face: u32,
    n: V,
    offset: f64,
    planes: Vec<Plane<V>>,
    lp: Vec<u32>,
}

fn ref_face<V: Vector, P: Polytope<V> + ?Sized>(p: &P, pose: &Pose<V>, face: usize) -> RefFace<V> {
    let n = pose.rotation.rotate(p.face_normal(face));
    let mut lp = Vec::with_capacity(4);
    p.face_vertices(face, &mut lp);
    let w: Vec<V> = lp
        .iter()
        .map(|&v| pose.transform_point(p.vertex(v as usize)))
        .collect();
    let offset = n.dot(w[0]);
    let mut planes = Vec::with_capacity(lp.len());
    if V::DIM == 2 {
        let t = w[1] - w[0];
        let t = t * (1.0 / t.length());
        planes.push(Plane {
            n: -t,
            offset: -t.dot(w[0]),
            feature: FeatureId::Vertex(lp[0]),
        });
        planes.push(Plane {
            n: t,
            offset: t.dot(w[1]),
            feature: FeatureId::Vertex(lp[1]),
        });
    } else {
        for k in 0..lp.len() {
            let k1 = (k + 1) % lp.len();
            let s = cross(w[k1] - w[k], n);
            let l = s.length();
            if !(l > 0.0) {
                continue;
            }
            let s = s * (1.0 / l);
            let feature = p
                .edge_index(lp[k], lp[k1])
                .map_or(FeatureId::Vertex(lp[k]), FeatureId::Edge);
            planes.push(Plane {
                n: s,
                offset: s.dot(w[k]),
                feature,
            });
        }
    }
    RefFace {
        face: face as u32,
        n,
        offset,
        planes,
        lp,
    }
}

/// `p + (q − p) t` where the signed distances `dp > 0 ≥ dq` or `dp ≤ 0 < dq` change sign.
#[inline]
fn crossing<V: Vector>(p: V, q: V, dp: f64, dq: f64) -> V {
    let t = dp / (dp - dq);
    p + (q - p) * t.clamp(0.0, 1.0)
}

/// Clips the segment `seg` (an incident edge or side, named `edge`) to the side planes.
fn clip_segment<V: Vector>(
    mut seg: [Clipped<V>; 2],
    planes: &[Plane<V>],
    edge: FeatureId,
) -> Vec<Clipped<V>> {
    for pl in planes {
        let d = seg.map(|c| pl.n.dot(c.p) - pl.offset);
        if d[0] > 0.0 && d[1] > 0.0 {
            return Vec::new();
        }
        for k in 0..2 {
            if d[k] > 0.0 {
                seg[k] = Clipped {
                    p: crossing(seg[k].p, seg[1 - k].p, d[k], d[1 - k]),
                    on_ref: pl.feature,
                    on_inc: edge,
                };
            }
        }
    }
    seg.to_vec()
}

/// Clips the closed incident polygon to the side planes (Sutherland–Hodgman), naming the new
/// points by the features they lie on.
fn clip_polygon<V: Vector>(
    mut poly: Vec<(Clipped<V>, Origin)>,
    rf: &RefFace<V>,
    inc_face: FeatureId,
) -> Vec<Clipped<V>> {
    let m = rf.lp.len();
    let planes = &rf.planes;
    for (k, pl) in planes.iter().enumerate() {
        if poly.is_empty() {
            break;
        }
        let name = |o: Origin| -> (FeatureId, FeatureId) {
            match o {
                Origin::Incident(f) => (pl.feature, f),
                Origin::Side(j) => {
                    // Two side planes meet at the reference vertex they share.
                    let v = if planes.len() == m && j == (k + 1) % m {
                        FeatureId::Vertex(rf.lp[(k + 1) % m])
                    } else if planes.len() == m && k == (j + 1) % m {
                        FeatureId::Vertex(rf.lp[k])
                    } else {
                        pl.feature
                    };
                    (v, inc_face)
                }
            }
        };
        let mut out = Vec::with_capacity(poly.len() + 1);
        let len = poly.len();
        for i in 0..len {
            let (cur, cur_o) = poly[i];
            let (prev, prev_o) = poly[(i + len - 1) % len];
            let (dc, dp) = (pl.n.dot(cur.p) - pl.offset, pl.n.dot(prev.p) - pl.offset);
            if dc <= 0.0 {
                if dp > 0.0 {
                    let (on_ref, on_inc) = name(prev_o);
                    let p = crossing(prev.p, cur.p, dp, dc);
                    out.push((Clipped { p, on_ref, on_inc }, prev_o));
                }
                out.push((cur, cur_o));
            } else if dp <= 0.0 {
                let (on_ref, on_inc) = name(prev_o);
                let p = crossing(prev.p, cur.p, dp, dc);
                out.push((Clipped { p, on_ref, on_inc }, Origin::Side(k)));
            }
        }
        poly = out;
    }
    poly.into_iter().map(|(c, _)| c).collect()
}

/// The clipped points below `prediction` as contact points: `point_inc` the clipped point on
/// the incident shape, `point_ref` its projection on the reference plane. `ref_is_a` says
/// which shape the reference face belongs to.
fn to_contacts<V: Vector>(
    clipped: &[Clipped<V>],
    rf: &RefFace<V>,
    ref_is_a: bool,
    prediction: f64,
    size: f64,
) -> Vec<ContactPoint<V>> {
    let mut out: Vec<ContactPoint<V>> = Vec::with_capacity(clipped.len());
    for c in clipped {
        let s = rf.n.dot(c.p) - rf.offset;
        if !(s <= prediction) {
            continue;
        }
        // Clipping can repeat a point (an incident vertex on a side plane).
        let incident = |q: &ContactPoint<V>| if ref_is_a { q.point_b } else { q.point_a };
        if out
            .iter()
            .any(|q| (incident(q) - c.p).length() <= 1e-12 * size)
        {
            continue;
        }
        let on_plane = c.p - rf.n * s;
        let (point_a, point_b, id) = if ref_is_a {
            (
                on_plane,
                c.p,
                ContactId {
                    a: c.on_ref,
                    b: c.on_inc,
                },
            )
        } else {
            (
                c.p,
                on_plane,
                ContactId {
                    a: c.on_inc,
                    b: c.on_ref,
                },
            )
        };
        out.push(ContactPoint {
            point_a,
            point_b,
            separation: s,
            id,
        });
    }
    out
}

/// At most 4 of the points: the deepest, the farthest from it, the one spanning the largest
/// triangle with them, and the one adding the most area to that triangle.
fn reduce<V: Vector>(pts: &mut Vec<ContactPoint<V>>, n: V) {
    if pts.len() <= MAX_POINTS {
        return;
    }
    let p = |c: &ContactPoint<V>| c.point_b;
    let i0 = (0..pts.len())
        .min_by(|&i, &j| pts[i].separation.total_cmp(&pts[j].separation))
        .unwrap_or(0);
    let p0 = p(&pts[i0]);
    let argmax = |f: &dyn Fn(V) -> f64, skip: &[usize]| -> Option<(usize, f64)> {
        (0..pts.len())
            .filter(|i| !skip.contains(i))
            .map(|i| (i, f(p(&pts[i]))))
            .fold(None, |b: Option<(usize, f64)>, x| match b {
                Some(b) if b.1 >= x.1 => Some(b),
                _ => Some(x),
            })
    };
    let Some((i1, _)) = argmax(&|q| (q - p0).length_squared(), &[i0]) else {
        return;
    };
    let p1 = p(&pts[i1]);
    let area = |u: V, v: V, q: V| cross(v - u, q - u).dot(n);
    let Some((i2, _)) = argmax(&|q| area(p0, p1, q).abs(), &[i0, i1]) else {
        return;
    };
    let p2 = p(&pts[i2]);
    // The triangle counter-clockwise about n.
    let tri = if area(p0, p1, p2) >= 0.0 {
        [p0, p1, p2]
    } else {
        [p0, p2, p1]
    };
    let added = |q: V| {
        (0..3)
            .map(|k| -area(tri[k], tri[(k + 1) % 3], q))
            .fold(0.0, f64::max)
    };
    let mut keep = vec![i0, i1, i2];
    if let Some((i3, a)) = argmax(&added, &[i0, i1, i2]) {
        if a > 0.0 {
            keep.push(i3);
        }
    }
    let kept: Vec<ContactPoint<V>> = keep.iter().map(|&i| pts[i]).collect();
    *pts = kept;
}

/// The closest points of segments `p0 p1` and `q0 q1` (non-degenerate).
fn closest_segments<V: Vector>(p0: V, p1: V, q0: V, q1: V) -> (V, V) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (b, c) = (d1.dot(d2), d1.dot(r));
    let denom = a * e - b * b;
    let mut s = if denom > 1e-14 * a * e {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (p0 + d1 * s, q0 + d2 * t)
}

/// The largest distance of a vertex from its shape's origin (the size the tolerances scale by).
fn size_of<V: Vector, P: Polytope<V> + ?Sized>(p: &P) -> f64 {
    (0..p.vertex_count())
        .map(|i| p.vertex(i).length())
        .fold(0.0, f64::max)
}

// ---------------------------------------------------------------------------------------------
// Polytope pairs

/// The manifold of two polytopes; `None` when SAT has no axis or clipping leaves no point
/// although an axis is within the prediction (the caller then falls back to one point).
fn polytope_contacts<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    prediction: f64,
    cache: Option<&mut SatCache>,
) -> Option<Manifold<V>>
where
    V: Vector,
    A: Polytope<V> + ?Sized,
    B: Polytope<V> + ?Sized,
{
    if let Some(f) = cache.as_ref().and_then(|c| c.feature()) {
        if let Some((s, _)) = separation_of(a, pose_a, b, pose_b, f) {
            if s > prediction {
                return Some(Manifold::empty());
            }
        }
    }
    let all = sat_all(a, pose_a, b, pose_b);
    let (best, _, feature) = all.best();
    if let Some(c) = cache {
        c.set(feature);
    }
    if feature == SatFeature::None {
        return None;
    }
    if best > prediction {
        return Some(Manifold::empty());
    }
    let size = size_of(a).max(size_of(b));
    let bias = FEATURE_BIAS * size;
    // Reference face: a's unless b's is better by the bias.
    let face = match (all.face_a, all.face_b) {
        (Some((i, sa, _)), Some((j, sb, _))) => Some(if sb > sa + bias {
            (false, j, sb)
        } else {
            (true, i, sa)
        }),
        (Some((i, sa, _)), None) => Some((true, i, sa)),
        (None, Some((j, sb, _))) => Some((false, j, sb)),
        (None, None) => None,
    };
    let edge_wins = match (face, all.edges) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some((_, _, sf)), Some((_, _, se, _))) => {
            let face_best = all
                .face_a
                .map_or(sf, |f| f.1)
                .max(all.face_b.map_or(sf, |f| f.1));
            se > face_best + bias
        }
    };
    if edge_wins {
        let (i, j, se, n) = all.edges?;
        let [p0, p1] = a
            .edge(i as usize)
            .map(|v| pose_a.transform_point(a.vertex(v as usize)));
        let [q0, q1] = b
            .edge(j as usize)
            .map(|v| pose_b.transform_point(b.vertex(v as usize)));
        let (pa, pb) = closest_segments(p0, p1, q0, q1);
        // Overlapping, the closest points of the lines are inside both edges and differ along
        // the axis. Apart, SAT's axis is a lower bound and the nearest points of the edges may be
        // their ends: their own direction and distance are the contact's.
        let (mut n, mut se) = (n, se);
        let d = pb - pa;
        let l = d.length();
        if se > 0.0 && l > 0.0 {
            (n, se) = (d * (1.0 / l), l);
            if se > prediction {
                return Some(Manifold::empty());
            }
        }
        return Some(Manifold::of(
            n,
            &[ContactPoint {
                point_a: pa,
                point_b: pb,
                separation: se,
                id: ContactId {
                    a: FeatureId::Edge(i),
                    b: FeatureId::Edge(j),
                },
            }],
        ));
    }
    let (ref_is_a, f, _) = face?;
    let pts = if ref_is_a {
        let rf = ref_face(a, pose_a, f as usize);
        face_contacts(&rf, b, pose_b, true, prediction, size)
    } else {
        let rf = ref_face(b, pose_b, f as usize);
        face_contacts(&rf, a, pose_a, false, prediction, size)
    };
    if pts.is_empty() {
        return None;
    }
    let n = if ref_is_a {
        pose_a.rotation.rotate(a.face_normal(f as usize))
    } else {
        -pose_b.rotation.rotate(b.face_normal(f as usize))
    };
    Some(Manifold::of(n, &pts))
}

/// Clips the incident feature of `inc` (of its faces around its deepest vertex, the one most
/// anti-parallel to the reference normal; its edge 0 when it has no face) to the reference
/// face.
fn face_contacts<V, P>(
    rf: &RefFace<V>,
    inc: &P,
    pose: &Pose<V>,
    ref_is_a: bool,
    prediction: f64,
    size: f64,
) -> Vec<ContactPoint<V>>
where
    V: Vector,
    P: Polytope<V> + ?Sized,
{
    let world = |v: u32| pose.transform_point(inc.vertex(v as usize));
    let on_ref = FeatureId::Face(rf.face);
    let clipped = if inc.face_count() == 0 {
        let [v0, v1] = inc.edge(0);
        let seg = [v0, v1].map(|v| Clipped {
            p: world(v),
            on_ref,
            on_inc: FeatureId::Vertex(v),
        });
        clip_segment(seg, &rf.planes, FeatureId::Edge(0))
    } else {
        let local = pose.rotation.inverse_rotate(rf.n);
        // The most anti-parallel of the faces around the deepest vertex: that vertex's normal
        // cone holds `-n`, so one of its faces reaches deepest. (On a box every face qualifies
        // through the nearest normal; on a general polyhedron the face whose normal is globally
        // nearest `-n` can lie away from the deepest vertex.)
        let deepest = inc.support_vertex(-local) as u32;
        let mut lp = Vec::with_capacity(8);
        let mut best = (usize::MAX, f64::INFINITY);
        for j in 0..inc.face_count() {
            let c = inc.face_normal(j).dot(local);
            if c < best.1 {
                inc.face_vertices(j, &mut lp);
                if lp.contains(&deepest) {
                    best = (j, c);
                }
            }
        }
        let j = if best.0 == usize::MAX {
            (0..inc.face_count())
                .map(|j| (j, inc.face_normal(j).dot(local)))
                .fold((0, f64::INFINITY), |b, x| if x.1 < b.1 { x } else { b })
                .0
        } else {
            best.0
        };
        inc.face_vertices(j, &mut lp);
        let inc_face = FeatureId::Face(j as u32);
        if lp.len() == 2 {
            let seg = [lp[0], lp[1]].map(|v| Clipped {
                p: world(v),
                on_ref,
                on_inc: FeatureId::Vertex(v),
            });
            clip_segment(seg, &rf.planes, inc_face)
        } else {
            let m = lp.len();
            let poly = (0..m)
                .map(|k| {
                    let edge = inc
                        .edge_index(lp[k], lp[(k + 1) % m])
                        .map_or(inc_face, FeatureId::Edge);
                    (
                        Clipped {
                            p: world(lp[k]),
                            on_ref,
                            on_inc: FeatureId::Vertex(lp[k]),
                        },
                        Origin::Incident(edge),
                    )
                })
                .collect();
            clip_polygon(poly, rf, inc_face)
        }
    };
    let mut pts = to_contacts(&clipped, rf, ref_is_a, prediction, size);
    if V::DIM == 3 {
        reduce(&mut pts, rf.n);
    }
    pts
}

// ---------------------------------------------------------------------------------------------
// Capsules

/// A capsule (core `seg`, radius `r`, at `pose_c`) against polytope `p` at `pose_p`, with the
/// capsule as shape `a`. `None` falls back to one point.
fn capsule_polytope<V: Vector>(
    seg: &Segment<V>,
    r: f64,
    pose_c: &Pose<V>,
    p: &dyn Polytope<V>,
    pose_p: &Pose<V>,
    prediction: f64,
) -> Option<Manifold<V>> {
    let g = distance(
        seg,
        pose_c,
        &PolyShape(p),
        pose_p,
        &GjkOptions::default(),
        None,
    );
    if g.status != GjkStatus::Separated {
        // The core enters the polytope: the cores' manifold, grown by the radius.
        let m = polytope_contacts(seg, pose_c, p, pose_p, prediction + r, None)?;
        return Some(m.grown(r, 0.0));
    }
    if g.distance - r > prediction {
        return Some(Manifold::empty());
    }
    let n = g.normal;
    if p.face_count() == 0 {
        return None;
    }
    // The polytope's face facing the capsule; two points when GJK's normal is its normal.
    let local = pose_p.rotation.inverse_rotate(-n);
    let (j, align) = (0..p.face_count())
        .map(|j| (j, p.face_normal(j).dot(local)))
        .fold((0, f64::NEG_INFINITY), |b, x| if x.1 > b.1 { x } else { b });
    if align < 1.0 - 1e-9 {
        return None;
    }
    let rf = ref_face(p, pose_p, j);
    let world = |v: usize| pose_c.transform_point(seg.vertices()[v]);
    let on_ref = FeatureId::Face(j as u32);
    let pts = [0, 1].map(|v| Clipped {
        p: world(v),
        on_ref,
        on_inc: FeatureId::Vertex(v as u32),
    });
    let size = size_of(p).max(size_of(seg)) + r;
    let clipped = clip_segment(pts, &rf.planes, FeatureId::Edge(0));
    let pts = to_contacts(&clipped, &rf, false, prediction + r, size);
    if pts.is_empty() {
        return None;
    }
    Some(Manifold::of(-rf.n, &pts).grown(r, 0.0))
}

/// A polytope seen as a support map, for GJK.
struct PolyShape<'a, V: Vector>(&'a dyn Polytope<V>);

impl<V: Vector> crate::shape::SupportMap<V> for PolyShape<'_, V> {
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let i = self.0.support_vertex(d);
        (self.0.vertex(i), FeatureId::Vertex(i as u32))
    }
}
impl<V: Vector> super::CoreSupport<V> for PolyShape<'_, V> {}

/// Two capsules: two points when their cores are parallel (the second core clipped to the
/// ends of the first), else `None` (one point).
fn capsule_capsule<V: Vector>(
    sa: &Segment<V>,
    ra: f64,
    pose_a: &Pose<V>,
    sb: &Segment<V>,
    rb: f64,
    pose_b: &Pose<V>,
    prediction: f64,
) -> Option<Manifold<V>> {
    let g = distance(sa, pose_a, sb, pose_b, &GjkOptions::default(), None);
    if g.status != GjkStatus::Separated {
        return None;
    }
    let r = ra + rb;
    if g.distance - r > prediction {
        return Some(Manifold::empty());
    }
    let [a0, a1] = sa.vertices().map(|v| pose_a.transform_point(v));
    let [b0, b1] = sb.vertices().map(|v| pose_b.transform_point(v));
    let (ua, ub) = (a1 - a0, b1 - b0);
    let (la, lb) = (ua.length(), ub.length());
    let (ua, ub) = (ua * (1.0 / la), ub * (1.0 / lb));
    if ua.dot(ub).abs() < 1.0 - 1e-9 {
        return None;
    }
    let planes = [
        Plane {
            n: -ua,
            offset: -ua.dot(a0),
            feature: FeatureId::Vertex(0),
        },
        Plane {
            n: ua,
            offset: ua.dot(a1),
            feature: FeatureId::Vertex(1),
        },
    ];
    let seg = [(b0, 0), (b1, 1)].map(|(p, v)| Clipped {
        p,
        on_ref: FeatureId::Edge(0),
        on_inc: FeatureId::Vertex(v),
    });
    let n = g.normal;
    let mut pts = Vec::with_capacity(2);
    for c in clip_segment(seg, &planes, FeatureId::Edge(0)) {
        // The point of a's core line nearest the clipped point of b's core.
        let pa = a0 + ua * ua.dot(c.p - a0);
        let s = n.dot(c.p - pa) - r;
        if s <= prediction {
            pts.push(ContactPoint {
                point_a: pa + n * ra,
                point_b: c.p - n * rb,
                separation: s,
                id: ContactId {
                    a: c.on_ref,
                    b: c.on_inc,
                },
            });
        }
    }
    if pts.len() == 2 && (pts[0].point_b - pts[1].point_b).length() <= 1e-12 * (la + lb + r) {
        pts.pop();
    }
    if pts.is_empty() {
        return None;
    }
    Some(Manifold::of(n, &pts))
}
