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
//! use kairos_geometry::math::DVec3;
//! use kairos_geometry::query::manifold::contact_manifold;
//! use kairos_geometry::shape::{Pose, Shape};
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

mod capsules;
mod clip;
mod polytopes;

use super::sat::{as_polytope, Polytope, SatCache};
use super::{penetration, EpaOptions};
use crate::math::{Rotation, Vector};
use crate::shape::{ConvexShape, FeatureId, ManifoldCore, Pose, Shape};
use capsules::{capsule_capsule, capsule_polytope};
use polytopes::polytope_contacts;

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
    let options = ManifoldOptions {
        prediction,
        clip_slack: 0.0,
    };
    contact_manifold_with(a, pose_a, b, pose_b, &options, cache)
}

/// The options of [`contact_manifold_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ManifoldOptions {
    /// Points within this distance of touching are kept (a negative or NaN value counts as 0).
    pub prediction: f64,
    /// How far, relative to the size of the shapes, an incident vertex may lie outside a side of
    /// the reference face and still be kept as itself rather than clipped (0 in
    /// [`contact_manifold`]; a negative or NaN value counts as 0).
    ///
    /// Two equal boxes resting face on face have their corners on each other's sides: clipped
    /// exactly, a drift as small as rounding turns a corner's point from `(face, vertex)` into
    /// an edge crossing or a reference corner, and its id changes. A stepped engine that caches
    /// impulses by id needs the id to hold while the boxes drift by less than its slop; with a
    /// slack the corner stays a vertex, its point up to the slack outside the face.
    pub clip_slack: f64,
}

/// [`contact_manifold`] with a clip slack ([`ManifoldOptions::clip_slack`]).
pub fn contact_manifold_with<V: Vector>(
    a: &Shape<V>,
    pose_a: &Pose<V>,
    b: &Shape<V>,
    pose_b: &Pose<V>,
    options: &ManifoldOptions,
    cache: Option<&mut SatCache>,
) -> Manifold<V> {
    let prediction = if options.prediction >= 0.0 {
        options.prediction
    } else {
        0.0
    };
    let slack = if options.clip_slack >= 0.0 {
        options.clip_slack
    } else {
        0.0
    };
    match (a.manifold_core(), b.manifold_core()) {
        (ManifoldCore::Polytope(pa), ManifoldCore::Polytope(pb)) => {
            polytope_contacts(pa, pose_a, pb, pose_b, prediction, slack, cache)
                .unwrap_or_else(|| one_point(a, pose_a, b, pose_b, prediction))
        }
        (ManifoldCore::RoundSegment(sa, ra), ManifoldCore::Polytope(pb)) => {
            capsule_polytope(&sa, ra, pose_a, pb, pose_b, prediction, slack)
                .unwrap_or_else(|| one_point(a, pose_a, b, pose_b, prediction))
        }
        (ManifoldCore::Polytope(pa), ManifoldCore::RoundSegment(sb, rb)) => {
            capsule_polytope(&sb, rb, pose_b, pa, pose_a, prediction, slack)
                .map(|m| m.swapped())
                .unwrap_or_else(|| one_point(a, pose_a, b, pose_b, prediction))
        }
        (ManifoldCore::RoundSegment(sa, ra), ManifoldCore::RoundSegment(sb, rb)) => {
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
    polytope_contacts(a, pose_a, b, pose_b, prediction, 0.0, cache).unwrap_or_default()
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
