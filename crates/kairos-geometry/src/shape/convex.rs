//! What a convex shape answers for itself: [`CoreSupport`] (its round core, for GJK) and
//! [`ConvexShape`] (its name, bounds, mass properties, polytope view, the features a contact
//! manifold clips, and its outline for viewers and file formats).
//!
//! The queries never match on a shape's kind to learn these: they ask the shape. A new convex
//! shape implements the two traits in its own file, gets a variant of [`Shape`](super::Shape)
//! (whose one `match` dispatches every method) and a scene key; GJK, EPA, SAT, the manifolds,
//! the time of impact and the simulations then take it through their generic paths. Closed
//! forms for particular pairs (two balls, a ball and a box, two 2D boxes) stay in the queries,
//! each with a general fallback, so a new shape need not touch them.

use super::{FeatureId, MassProperties, Polytope, Segment, ShapeError, SupportMap};
use crate::math::Vector;

/// A convex shape seen by GJK: a core (a convex shape given by its support function) grown by
/// a radius, `shape = core ⊕ ball(radius)`.
///
/// The provided methods make the whole shape its own core with radius zero, which is right for
/// every shape; [`Ball`](super::Ball) (a point core) and [`Capsule`](super::Capsule) (a segment
/// core) override them so that GJK on them is exact and fast (see
/// [`query::gjk`](crate::query::gjk)). A shape type of another crate opts in with an empty
/// `impl CoreSupport<V> for MyShape {}`.
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
    /// The shape as a [`Shape`](super::Shape) value, for the closed forms
    /// [`distance`](fn@crate::query::distance) has for some pairs of its variants; `None`, the
    /// default, runs GJK.
    #[inline]
    fn as_shape(&self) -> Option<&super::Shape<V>> {
        None
    }
}

/// How a contact manifold takes a shape: by clipping its faces, as a segment grown by a radius
/// (a capsule), or as the one point GJK or EPA gives.
#[derive(Clone, Copy)]
pub enum ManifoldCore<'a, V: Vector> {
    /// Faces and edges to clip.
    Polytope(&'a dyn Polytope<V>),
    /// A segment grown by a radius: its points are the segment's clipped and pushed out.
    RoundSegment(Segment<V>, f64),
    /// A curved shape: one contact point.
    Point,
}

/// A shape as a viewer or a file format draws it, in its local frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Outline<V> {
    /// A ball of this radius about the local origin.
    Ball(f64),
    /// An ellipsoid (an ellipse in 2D) about the local origin, its half axes along the local
    /// axes.
    Ellipsoid(V),
    /// The convex hull of these vertices (counter-clockwise in 2D), grown by `rounding`
    /// (a capsule: its segment's ends, grown by its radius). Round rims (a cylinder's, a
    /// cone's) are [`OUTLINE_ROUND_SIDES`]-gons inscribed in them.
    Polytope {
        /// The vertices, local frame.
        vertices: Vec<V>,
        /// The radius the hull is grown by (`0` for a polytope).
        rounding: f64,
    },
}

/// Sides of the polygons that stand for round rims (cylinders, cones) in an [`Outline`].
pub const OUTLINE_ROUND_SIDES: usize = 32;

/// Every answer a convex shape gives for itself (see the [shape module](crate::shape)).
pub trait ConvexShape<V: Vector>: CoreSupport<V> {
    /// The `shape` key that makes it in a scene or pair file (`"ball"`, `"box"`, ...).
    fn name(&self) -> &'static str;

    /// The distance from `centre` (local frame) to the farthest point of the shape: exact
    /// where a closed form exists, else an upper bound (documented by the shape). About the
    /// centre of mass it bounds how fast a point of a rotating shape can move: `|v| + |ω| r`.
    fn bounding_radius_about(&self, centre: V) -> f64;

    /// Mass, centre of mass and inertia at a uniform `density` (per area in 2D, per volume in
    /// 3D).
    ///
    /// # Errors
    ///
    /// [`ShapeError::InvalidDensity`] unless `density` is positive and finite;
    /// [`ShapeError::Massless`] for a shape without area or volume.
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError>;

    /// The shape's vertices, faces and edges for SAT and face clipping; `None` (the default)
    /// for a curved shape, which has no finite set of axes.
    #[inline]
    fn as_polytope(&self) -> Option<&dyn Polytope<V>> {
        None
    }

    /// A 2D polygon's vertices, counter-clockwise, into `out`, and their number, for SAT's
    /// closed form of two small polygons; `None` (the default) when the shape is not such a
    /// polygon or has more vertices than `out` holds.
    #[inline]
    fn polygon_vertices(&self, _out: &mut [V]) -> Option<usize> {
        None
    }

    /// How a contact manifold takes the shape: by default its polytope's faces, else one point.
    #[inline]
    fn manifold_core(&self) -> ManifoldCore<'_, V> {
        self.as_polytope()
            .map_or(ManifoldCore::Point, ManifoldCore::Polytope)
    }

    /// The shape as a viewer or a file format draws it.
    fn outline(&self) -> Outline<V>;
}

/// The [`OUTLINE_ROUND_SIDES`] points of a circle of `radius` about the local y axis at
/// height `y` (3D), starting on `+x` and turning towards `+z`; no round-off residue where the
/// circle crosses an axis.
pub(crate) fn rim<V: Vector>(y: f64, radius: f64) -> impl Iterator<Item = V> {
    (0..OUTLINE_ROUND_SIDES).map(move |k| {
        let a = std::f64::consts::TAU * k as f64 / OUTLINE_ROUND_SIDES as f64;
        let (s, c) = a.sin_cos();
        let snap = |x: f64| if x.abs() < 1e-12 { 0.0 } else { radius * x };
        V::from_array3([snap(c), y, snap(s)])
    })
}
