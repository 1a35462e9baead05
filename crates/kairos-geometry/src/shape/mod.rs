//! Convex shapes: support functions, bounds and mass properties, with poses and rigid motions.
//!
//! The foundation of the convex queries (GJK, EPA, SAT, contact manifolds, time of impact with
//! rotation), in 2D and 3D through [`Vector`], in `f64`. This module is a leaf: it depends on
//! [`crate::math`] only.
//!
//! # Shapes
//!
//! | shape | 2D | 3D | local frame |
//! |---|---|---|---|
//! | [`Ball`] | disc | sphere | centre at the origin |
//! | [`Cuboid`] | rectangle | box | centre at the origin, half extents along the axes |
//! | [`Capsule`] | stadium | capsule | axis = local y, segment `[-h, h]`, radius `r` |
//! | [`Segment`] | segment | segment | endpoints as given |
//! | [`Triangle`] | triangle | triangle | vertices as given |
//! | [`ConvexPolygon`] | polygon | — | vertices as given, counter-clockwise |
//! | [`Cylinder`] | — | cylinder | axis = local y, caps at `y = ±h`, origin at the centre |
//! | [`Cone`] | — | cone | axis = local y, apex at `y = +h`, base disc at `y = -h` |
//! | [`ConvexPolyhedron`] | — | polyhedron | vertices as given (the hull of points, quickhull) |
//! | [`Ellipsoid`] | ellipse | ellipsoid | centre at the origin, half axes along the axes |
//!
//! A shape's local origin is not always its centre of mass (a cone's is at `y = -h/2`, a
//! triangle's at its centroid): [`MassProperties::centre_of_mass`] says where it is. A body
//! puts its centre of mass at its position by placing the shape at the offset
//! `-centre_of_mass` in the body frame ([`Pose::compose`]); rotations then turn about the
//! centre of mass, as [`RigidMotion`] assumes.
//!
//! Shapes that exist in one dimension only are refused in the other with
//! [`ShapeError::WrongDimension`]. [`Shape::convex_hull`] gives the convex polygon in 2D and
//! the convex polyhedron in 3D; a concave (simple) polygon is cut into convex pieces by
//! [`decompose_polygon`].
//!
//! Every constructor validates its input (finite, positive sizes; distinct vertices;
//! non-degenerate triangles; strictly convex polygons; hulls with volume) and returns a typed [`ShapeError`];
//! after that no function of this module returns NaN, whatever the query direction.
//!
//! # Support functions
//!
//! [`SupportMap::local_support`] returns a farthest point of the shape along a direction `d`
//! (`d · s = max { d · x : x ∈ shape }`), the closed forms of the lecture notes on GJK
//! (Trtík, *Collision detection*, PA199): `r d/|d|` for a ball, `sgn(d) ∘ h` for a box (with
//! `sgn 0 = +1`), the rim of the cap for a cylinder, the best vertex for a polytope. A posed
//! shape `R A + x` has support `R S_A(R^T d) + x` ([`SupportMap::support`]). For `d = 0` (or a
//! non-finite `d`) every point maximises `d · x` and a fixed point of the shape is returned.
//! Ties are broken deterministically: the lowest vertex index, the `+` side of a box or cap.
//! [`SupportMap::local_support_feature`] also names the [`FeatureId`] of the point (the vertex
//! of a polytope, the apex of a cone), so that later contact queries can name contact features.
//!
//! The support point is exact up to the rounding of its few operations (relative `1e-15`);
//! the [`Aabb`] of a posed shape is built from the supports along the axes, so it is tight to
//! the same rounding. [`Shape::bounding_radius_about`] is the exact distance to the farthest
//! point, in closed form.
//!
//! ```
//! use kairos_geometry::math::{DQuat, DVec3};
//! use kairos_geometry::shape::{Pose, Shape, SupportMap};
//! let cube = Shape::<DVec3>::cuboid(DVec3::new(1.0, 2.0, 3.0)).unwrap();
//! assert_eq!(cube.local_support(DVec3::new(1.0, -1.0, 0.0)), DVec3::new(1.0, -2.0, 3.0));
//! let pose = Pose::new(DVec3::X * 10.0, DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2));
//! let s = cube.support(&pose, DVec3::X);
//! assert!((s.x - 12.0).abs() < 1e-12); // the local y half extent now points along x
//! ```
//!
//! # Mass properties
//!
//! [`Shape::mass_properties`] gives the mass, the centre of mass (local frame) and the inertia
//! about the centre of mass (local axes) of a uniform density: area density in 2D, volume
//! density in 3D. Closed forms: balls, boxes, cylinders and cones from their integrals;
//! capsules as a cylinder (2D: rectangle) plus two half balls moved by the parallel axis
//! theorem, one formula for both dimensions with the dimension's constants; triangles and
//! polygons from the edge sums of Green's theorem about the vertex mean (for round-off);
//! polyhedra from the divergence theorem over tetrahedra from the vertex mean. A
//! segment (both dimensions) and a triangle in 3D enclose no area or volume: their mass would
//! be zero, which no body can have, so they return [`ShapeError::Massless`] (they remain valid
//! shapes for static geometry and queries).
//!
//! ```
//! use kairos_geometry::math::DVec2;
//! use kairos_geometry::shape::Shape;
//! let rect = Shape::<DVec2>::cuboid(DVec2::new(2.0, 1.0)).unwrap();
//! let mp = rect.mass_properties(3.0).unwrap();
//! assert_eq!(mp.mass, 3.0 * 4.0 * 2.0);
//! // m (w² + h²) / 12 with w = 4, h = 2
//! assert!((mp.inertia - mp.mass * (16.0 + 4.0) / 12.0).abs() < 1e-12);
//! ```
//!
//! # Torque-free rotation
//!
//! [`RigidMotion`] keeps the angular velocity constant, which is exact for isotropic inertia only.
//! [`FreeRotation`] gives the exact torque-free motion of any 3D body (Euler's equations in
//! closed form: Jacobi elliptic functions and Carlson's integrals) from the state at a
//! reference time, as a pure function of `dt`, with a bound on the angular speed for
//! conservative advancement.
//!
//! # Why a trait and an enum
//!
//! Each shape is its own type implementing [`SupportMap`]; [`Shape`] is an enum over them that
//! implements it too, by one `match`. A query written generically over `SupportMap` (the later
//! GJK loop) is monomorphic and fully inlined when called with concrete shapes, and costs one
//! well-predicted branch per support call when called with `Shape` (no virtual calls, no
//! boxing, shapes stored by value in a `Vec<Shape<V>>`).
//!
//! Everything else a query needs of a shape is the shape's own answer too, through
//! [`ConvexShape`] and [`CoreSupport`]: its round core, its polytope view, the features a
//! contact manifold clips, its mass properties and its outline. `Shape` dispatches each in one
//! `match`; no query matches on a shape's kind except for closed forms of particular pairs,
//! which always fall back to the general path. Adding a shape: its own file implementing
//! [`SupportMap`], [`CoreSupport`] and [`ConvexShape`] (as [`Ellipsoid`] does), its variant and
//! constructor here, and its scene key.

mod convex;
pub mod decompose;
mod ellipsoid;
pub(crate) mod faces;
pub use crate::math::free_rotation;
mod motion;
mod polygon;
pub mod polyhedron;
mod polytope;
mod round;

pub use crate::math::FreeRotation;
pub use convex::{ConvexShape, CoreSupport, ManifoldCore, Outline, OUTLINE_ROUND_SIDES};
pub use decompose::{decompose_polygon, union_outline};
pub use ellipsoid::Ellipsoid;
pub use faces::Polytope;
pub use motion::{MotionError, Pose, RigidMotion};
pub use polygon::ConvexPolygon;
pub(crate) use polyhedron::solid_moments;
pub use polyhedron::{ConvexPolyhedron, PolyhedronEdge};
pub use polytope::{Cuboid, Segment, Simplex, Triangle};
pub use round::{Ball, Capsule, Cone, Cylinder};

use crate::math::{Aabb, Rotation, Vector};

/// Relative tolerance below which a triangle or a polygon corner counts as degenerate: the
/// sine of the angle at a vertex must exceed it (near-collinear vertices make normals
/// meaningless).
pub const DEGENERACY_TOLERANCE: f64 = 1e-12;

/// The feature of a shape a support point lies on, for naming contact features.
///
/// Support functions return [`FeatureId::Vertex`] for the vertices of polytopes (the index into
/// the shape's vertex list; for a [`Cuboid`], bit `i` of the index is set when the vertex is on
/// the `+` side of axis `i`) and for a cone's apex (`Vertex(0)`), and [`FeatureId::None`] for
/// points of curved surfaces. Edges and faces are numbered by the contact manifolds built on
/// top of this module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FeatureId {
    /// No discrete feature: a point of a curved surface.
    #[default]
    None,
    /// A vertex, by index.
    Vertex(u32),
    /// An edge, by index.
    Edge(u32),
    /// A face, by index.
    Face(u32),
}

/// Why a shape, or its mass properties, was refused.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum ShapeError {
    /// A size (radius, half extent, half height) is negative, zero where it may not be, or not
    /// finite.
    #[error("{what} must be {requirement}, got {}", crate::num::Num(*.value))]
    InvalidSize {
        /// Which size.
        what: &'static str,
        /// `"positive and finite"` or `"non-negative and finite"`.
        requirement: &'static str,
        /// The value given.
        value: f64,
    },
    /// The shape exists in the other dimension only.
    #[error("a {shape} exists only in {only}D, not in {dim}D")]
    WrongDimension {
        /// The shape's name.
        shape: &'static str,
        /// The one dimension it exists in.
        only: usize,
        /// The dimension asked for.
        dim: usize,
    },
    /// A vertex has an infinite or NaN component.
    #[error("vertex {index} is not finite")]
    NonFiniteVertex {
        /// The vertex's index.
        index: usize,
    },
    /// Two vertices coincide.
    #[error("vertices {first} and {second} coincide")]
    CoincidentVertices {
        /// The first vertex's index.
        first: usize,
        /// The second vertex's index.
        second: usize,
    },
    /// A polygon needs at least three vertices.
    #[error("a polygon needs at least 3 vertices, got {count}")]
    TooFewVertices {
        /// Vertices given.
        count: usize,
    },
    /// The vertices (or points) are collinear to [`DEGENERACY_TOLERANCE`]: no area.
    #[error("the vertices are collinear: the shape has no area")]
    ZeroArea,
    /// A polygon does not turn strictly left at this vertex (reflex, collinear or clockwise).
    #[error("the polygon is not strictly convex and counter-clockwise at vertex {index}")]
    NotConvex {
        /// The vertex's index.
        index: usize,
    },
    /// A polygon's boundary turns more than once around its inside.
    #[error("the polygon winds {turns} times around its inside (a star, not a convex polygon)")]
    SelfIntersecting {
        /// Whole turns of the boundary.
        turns: usize,
    },
    /// A convex polyhedron needs at least four points.
    #[error("a convex polyhedron needs at least 4 points, got {count}")]
    TooFewPoints {
        /// Points given.
        count: usize,
    },
    /// The points lie in one plane (to the hull tolerance): the hull has no volume.
    #[error("the points are coplanar: the hull has no volume")]
    ZeroVolume,
    /// Two edges of a polygon that should be simple cross or touch (edge `i` runs from vertex
    /// `i` to vertex `i + 1`).
    #[error("edges {first} and {second} of the polygon cross")]
    CrossingEdges {
        /// The first edge's index.
        first: usize,
        /// The second edge's index.
        second: usize,
    },
    /// The density is negative, zero or not finite.
    #[error("density must be positive and finite, got {}", crate::num::Num(*.0))]
    InvalidDensity(f64),
    /// The shape encloses no area (2D) or volume (3D), so a uniform density gives it no mass.
    #[error("a {shape} has no {measure}, so it has no mass")]
    Massless {
        /// The shape's name.
        shape: &'static str,
        /// `"area"` or `"volume"`.
        measure: &'static str,
    },
}

/// Mass, centre of mass and inertia of a shape of uniform density.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties<V: Vector> {
    /// Mass (`> 0`).
    pub mass: f64,
    /// The centre of mass, in the shape's local frame.
    pub centre_of_mass: V,
    /// The inertia tensor about the centre of mass, in the shape's local axes.
    pub inertia: V::Inertia,
}

impl<V: Vector> MassProperties<V> {
    /// The mass properties of mass `mass` at `centre_of_mass` whose second moments about it
    /// along the local axes are `second_moments` (see [`Vector::inertia_from_second_moments`]).
    fn from_second_moments(mass: f64, centre_of_mass: V, second_moments: V) -> Self {
        Self {
            mass,
            centre_of_mass,
            inertia: V::inertia_from_second_moments(second_moments),
        }
    }
    /// The mass properties of a body made of `parts` (each in the same local frame): the
    /// total mass, the mass-weighted centre, and the inertia about it by the parallel axis
    /// theorem (each part's own inertia plus that of its mass at its centre). `None` for no
    /// parts or a total mass that is not positive and finite.
    #[must_use]
    pub fn combined(parts: &[Self]) -> Option<Self> {
        let mass: f64 = parts.iter().map(|p| p.mass).sum();
        if !(mass > 0.0 && mass.is_finite()) {
            return None;
        }
        let centre = parts
            .iter()
            .fold(V::ZERO, |c, p| c + p.centre_of_mass * p.mass)
            * (1.0 / mass);
        let mut inertia = V::inertia_from_second_moment_matrix([[0.0; 3]; 3]);
        for p in parts {
            let d = p.centre_of_mass - centre;
            let mut c = [[0.0; 3]; 3];
            for (i, row) in c.iter_mut().enumerate().take(V::DIM) {
                for (j, x) in row.iter_mut().enumerate().take(V::DIM) {
                    *x = p.mass * d.comp(i) * d.comp(j);
                }
            }
            inertia = inertia + p.inertia + V::inertia_from_second_moment_matrix(c);
        }
        Some(Self {
            mass,
            centre_of_mass: centre,
            inertia,
        })
    }
    /// `1 / mass`.
    #[inline]
    #[must_use]
    pub fn inverse_mass(&self) -> f64 {
        1.0 / self.mass
    }
}

/// A convex shape described by its support function: a farthest point along any direction.
///
/// Only [`SupportMap::local_support_feature`] is required; the posed forms and the bounding
/// box follow from it.
pub trait SupportMap<V: Vector> {
    /// A farthest point of the shape along `d`, in the local frame, and its feature.
    ///
    /// For `d = 0` or a non-finite `d`, a fixed point of the shape (never NaN).
    fn local_support_feature(&self, d: V) -> (V, FeatureId);

    /// A farthest point of the shape along `d`, in the local frame.
    #[inline]
    fn local_support(&self, d: V) -> V {
        self.local_support_feature(d).0
    }

    /// A farthest point of the shape placed at `pose` along the world direction `d`:
    /// `R S(R^T d) + x`.
    #[inline]
    fn support(&self, pose: &Pose<V>, d: V) -> V {
        self.support_feature(pose, d).0
    }

    /// [`SupportMap::support`] with the feature of the point.
    #[inline]
    fn support_feature(&self, pose: &Pose<V>, d: V) -> (V, FeatureId) {
        let (p, f) = self.local_support_feature(pose.rotation.inverse_rotate(d));
        (pose.transform_point(p), f)
    }

    /// The axis-aligned bounding box of the shape placed at `pose`: the supports along the
    /// `2 DIM` axis directions, tight to rounding.
    fn aabb(&self, pose: &Pose<V>) -> Aabb<V> {
        let mut lo = [0.0; 3];
        let mut hi = [0.0; 3];
        for i in 0..V::DIM {
            let e = V::unit(i);
            hi[i] = self.support(pose, e).comp(i);
            lo[i] = self.support(pose, -e).comp(i);
        }
        Aabb::new(V::from_array3(lo), V::from_array3(hi))
    }
}

/// Any convex shape of this module: the type scenes and bodies store.
///
/// See the [module docs](self) for the frames and why this is an enum over shape types.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape<V: Vector> {
    /// A disc (2D) or sphere (3D).
    Ball(Ball),
    /// A rectangle (2D) or box (3D).
    Cuboid(Cuboid<V>),
    /// A stadium (2D) or capsule (3D) along local y.
    Capsule(Capsule),
    /// A segment.
    Segment(Segment<V>),
    /// A triangle.
    Triangle(Triangle<V>),
    /// A convex polygon (2D only).
    ConvexPolygon(ConvexPolygon<V>),
    /// A cylinder along local y (3D only).
    Cylinder(Cylinder<V>),
    /// A cone along local y (3D only).
    Cone(Cone<V>),
    /// A convex polyhedron (3D only).
    Polyhedron(ConvexPolyhedron<V>),
    /// An ellipse (2D) or ellipsoid (3D), half axes along the local axes.
    Ellipsoid(Ellipsoid<V>),
}

/// Calls `$body` with `$s` bound to the shape inside any variant of `$shape`.
macro_rules! each_shape {
    ($shape:expr, $s:ident => $body:expr) => {
        match $shape {
            Shape::Ball($s) => $body,
            Shape::Cuboid($s) => $body,
            Shape::Capsule($s) => $body,
            Shape::Segment($s) => $body,
            Shape::Triangle($s) => $body,
            Shape::ConvexPolygon($s) => $body,
            Shape::Cylinder($s) => $body,
            Shape::Cone($s) => $body,
            Shape::Polyhedron($s) => $body,
            Shape::Ellipsoid($s) => $body,
        }
    };
}

impl<V: Vector> Shape<V> {
    /// A ball of radius `radius > 0`.
    pub fn ball(radius: f64) -> Result<Self, ShapeError> {
        Ball::new(radius).map(Shape::Ball)
    }
    /// A box of half extents `half_extents`, each `> 0`.
    pub fn cuboid(half_extents: V) -> Result<Self, ShapeError> {
        Cuboid::new(half_extents).map(Shape::Cuboid)
    }
    /// A capsule along local y: half height `>= 0` of its segment, radius `> 0`.
    pub fn capsule(half_height: f64, radius: f64) -> Result<Self, ShapeError> {
        Capsule::new(half_height, radius).map(Shape::Capsule)
    }
    /// The segment from `a` to `b` (distinct, finite).
    pub fn segment(a: V, b: V) -> Result<Self, ShapeError> {
        Segment::new(a, b).map(Shape::Segment)
    }
    /// The triangle `a b c` (finite, not degenerate).
    pub fn triangle(a: V, b: V, c: V) -> Result<Self, ShapeError> {
        Triangle::new(a, b, c).map(Shape::Triangle)
    }
    /// The convex polygon of these counter-clockwise vertices (2D only).
    pub fn convex_polygon(vertices: Vec<V>) -> Result<Self, ShapeError> {
        ConvexPolygon::new(vertices).map(Shape::ConvexPolygon)
    }
    /// The convex hull of `points`: a convex polygon in 2D (Andrew's monotone chain), a convex
    /// polyhedron in 3D (quickhull).
    ///
    /// # Errors
    ///
    /// Those of [`ConvexPolygon::from_points`] in 2D and [`ConvexPolyhedron::from_points`] in
    /// 3D.
    pub fn convex_hull(points: &[V]) -> Result<Self, ShapeError> {
        if V::DIM == 2 {
            ConvexPolygon::from_points(points).map(Shape::ConvexPolygon)
        } else {
            ConvexPolyhedron::from_points(points).map(Shape::Polyhedron)
        }
    }
    /// The convex polyhedron hull of `points` (3D only).
    pub fn polyhedron(points: &[V]) -> Result<Self, ShapeError> {
        ConvexPolyhedron::from_points(points).map(Shape::Polyhedron)
    }
    /// A cylinder along local y (3D only).
    pub fn cylinder(half_height: f64, radius: f64) -> Result<Self, ShapeError> {
        Cylinder::new(half_height, radius).map(Shape::Cylinder)
    }
    /// A cone along local y, apex at `+half_height` (3D only).
    pub fn cone(half_height: f64, radius: f64) -> Result<Self, ShapeError> {
        Cone::new(half_height, radius).map(Shape::Cone)
    }
    /// An ellipse (2D) or ellipsoid (3D) of half axes `half_axes`, each `> 0`.
    pub fn ellipsoid(half_axes: V) -> Result<Self, ShapeError> {
        Ellipsoid::new(half_axes).map(Shape::Ellipsoid)
    }

    /// The shape's name: the `shape` key that makes it in a scene or pair file (`"ball"`,
    /// `"box"`, `"polygon"`, ...), as in error messages.
    #[must_use]
    pub fn name(&self) -> &'static str {
        ConvexShape::name(self)
    }

    /// The distance from the local origin to the farthest point of the shape.
    #[must_use]
    pub fn bounding_radius(&self) -> f64 {
        self.bounding_radius_about(V::ZERO)
    }

    /// The distance from `centre` (local frame) to the farthest point of the shape, exact
    /// (closed form). About the centre of mass it bounds how fast a point of a rotating shape
    /// can move: `|v| + |ω| r`.
    #[must_use]
    pub fn bounding_radius_about(&self, centre: V) -> f64 {
        ConvexShape::bounding_radius_about(self, centre)
    }

    /// Mass, centre of mass and inertia at a uniform `density` (per area in 2D, per volume in
    /// 3D).
    ///
    /// # Errors
    ///
    /// [`ShapeError::InvalidDensity`] unless `density` is positive and finite;
    /// [`ShapeError::Massless`] for a segment, and for a triangle in 3D;
    /// [`ShapeError::InvalidSize`] for a polyhedron whose mass or inertia overflows.
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        ConvexShape::mass_properties(self, density)
    }
}

impl<V: Vector> SupportMap<V> for Shape<V> {
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        each_shape!(self, s => s.local_support_feature(d))
    }
    fn aabb(&self, pose: &Pose<V>) -> Aabb<V> {
        each_shape!(self, s => s.aabb(pose))
    }
}

impl<V: Vector> CoreSupport<V> for Shape<V> {
    #[inline]
    fn local_core_support(&self, d: V) -> (V, FeatureId) {
        each_shape!(self, s => CoreSupport::<V>::local_core_support(s, d))
    }
    #[inline]
    fn core_radius(&self) -> f64 {
        each_shape!(self, s => CoreSupport::<V>::core_radius(s))
    }
    #[inline]
    fn as_shape(&self) -> Option<&Shape<V>> {
        Some(self)
    }
}

/// The one dispatch of every per-shape answer: each variant's own implementation.
impl<V: Vector> ConvexShape<V> for Shape<V> {
    fn name(&self) -> &'static str {
        each_shape!(self, s => ConvexShape::<V>::name(s))
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        each_shape!(self, s => ConvexShape::<V>::bounding_radius_about(s, centre))
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        each_shape!(self, s => ConvexShape::<V>::mass_properties(s, density))
    }
    #[inline]
    fn as_polytope(&self) -> Option<&dyn Polytope<V>> {
        each_shape!(self, s => ConvexShape::<V>::as_polytope(s))
    }
    #[inline]
    fn polygon_vertices(&self, out: &mut [V]) -> Option<usize> {
        each_shape!(self, s => ConvexShape::<V>::polygon_vertices(s, out))
    }
    #[inline]
    fn manifold_core(&self) -> ManifoldCore<'_, V> {
        each_shape!(self, s => ConvexShape::<V>::manifold_core(s))
    }
    fn outline(&self) -> Outline<V> {
        each_shape!(self, s => ConvexShape::<V>::outline(s))
    }
}

macro_rules! from_shape {
    ($($t:ident $(<$v:ident>)?),*) => {$(
        impl<V: Vector> From<$t $(<$v>)?> for Shape<V> {
            fn from(s: $t $(<$v>)?) -> Self {
                Shape::$t(s)
            }
        }
    )*};
}
from_shape!(
    Ball,
    Cuboid<V>,
    Capsule,
    Segment<V>,
    Triangle<V>,
    ConvexPolygon<V>,
    Cylinder<V>,
    Cone<V>,
    Ellipsoid<V>
);

impl<V: Vector> From<ConvexPolyhedron<V>> for Shape<V> {
    fn from(s: ConvexPolyhedron<V>) -> Self {
        Shape::Polyhedron(s)
    }
}

/// `Ok` when `density` is positive and finite.
pub(crate) fn check_density(density: f64) -> Result<(), ShapeError> {
    if density > 0.0 && density.is_finite() {
        Ok(())
    } else {
        Err(ShapeError::InvalidDensity(density))
    }
}

/// `Ok(value)` when `value > 0` and finite (or `>= 0` when `zero_ok`).
fn check_size(what: &'static str, value: f64, zero_ok: bool) -> Result<f64, ShapeError> {
    let ok = value.is_finite() && (value > 0.0 || (zero_ok && value == 0.0));
    if ok {
        Ok(value)
    } else {
        Err(ShapeError::InvalidSize {
            what,
            requirement: if zero_ok {
                "non-negative and finite"
            } else {
                "positive and finite"
            },
            value,
        })
    }
}

/// `Ok` when shapes of dimension `only` may be built with `V`.
fn check_dim<V: Vector>(shape: &'static str, only: usize) -> Result<(), ShapeError> {
    if V::DIM == only {
        Ok(())
    } else {
        Err(ShapeError::WrongDimension {
            shape,
            only,
            dim: V::DIM,
        })
    }
}

/// `Ok` when every vertex is finite.
fn check_finite<V: Vector>(vertices: &[V]) -> Result<(), ShapeError> {
    match vertices.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(ShapeError::NonFiniteVertex { index }),
        None => Ok(()),
    }
}

/// `d / |d|`, computed without overflow or underflow by scaling by the largest component
/// first; `None` when `d` is zero or not finite.
#[inline]
fn try_normalize<V: Vector>(d: V) -> Option<V> {
    // `max_abs` skips a NaN component (`f64::max`), so finiteness is checked first.
    if !d.is_finite() {
        return None;
    }
    let m = d.max_abs();
    if m == 0.0 {
        return None;
    }
    let s = V::from_array3(d.to_array3().map(|c| c / m));
    Some(s * (1.0 / s.length()))
}

/// The index of the first vertex maximising `d · v` (vertex 0 for `d = 0` or NaN).
#[inline]
fn farthest_vertex<V: Vector>(vertices: &[V], d: V) -> usize {
    let mut best = 0;
    let mut best_dot = vertices[0].dot(d);
    for (i, v) in vertices.iter().enumerate().skip(1) {
        let x = v.dot(d);
        if x > best_dot {
            best = i;
            best_dot = x;
        }
    }
    best
}

/// The distance from `centre` to the farthest of `vertices`.
fn farthest_vertex_distance<V: Vector>(vertices: &[V], centre: V) -> f64 {
    vertices
        .iter()
        .map(|&v| (v - centre).length())
        .fold(0.0, f64::max)
}

/// Twice the signed area of the 2D parallelogram `a × b` (components 0 and 1).
#[inline]
fn cross2<V: Vector>(a: V, b: V) -> f64 {
    a.comp(0) * b.comp(1) - a.comp(1) * b.comp(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{DVec2, DVec3};

    #[test]
    fn normalize_survives_extreme_scales() {
        for s in [1e-310, 1e-200, 1.0, 1e200, 1e307] {
            let u = try_normalize(DVec3::new(3.0, -4.0, 12.0) * s).unwrap();
            assert!(
                (u - DVec3::new(3.0, -4.0, 12.0) / 13.0).length() < 1e-15,
                "{s}"
            );
        }
        assert_eq!(try_normalize(DVec2::ZERO), None);
        assert_eq!(try_normalize(DVec2::new(f64::NAN, 1.0)), None);
        assert_eq!(try_normalize(DVec2::new(f64::INFINITY, 1.0)), None);
    }

    #[test]
    fn farthest_vertex_breaks_ties_to_the_lowest_index() {
        let v = [DVec2::X, DVec2::Y, DVec2::X, -DVec2::X];
        assert_eq!(farthest_vertex(&v, DVec2::X), 0);
        assert_eq!(farthest_vertex(&v, DVec2::ZERO), 0);
        assert_eq!(farthest_vertex(&v, DVec2::new(f64::NAN, 0.0)), 0);
        assert_eq!(farthest_vertex(&v, -DVec2::X), 3);
    }

    #[test]
    fn non_finite_directions_give_points_of_the_shape() {
        let shapes: [Shape<DVec3>; 4] = [
            Shape::ball(1.0).unwrap(),
            Shape::capsule(1.0, 0.5).unwrap(),
            Shape::cylinder(1.0, 0.5).unwrap(),
            Shape::cone(1.0, 0.5).unwrap(),
        ];
        for s in &shapes {
            for d in [
                DVec3::NAN,
                DVec3::new(f64::NAN, 1.0, -1.0),
                DVec3::INFINITY,
                DVec3::new(f64::NEG_INFINITY, 1.0, 0.0),
            ] {
                let p = s.local_support(d);
                assert!(
                    p.is_finite() && p.length() <= s.bounding_radius(),
                    "{s:?} {d:?}"
                );
            }
        }
    }
}
