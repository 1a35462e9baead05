//! Queries between convex shapes: distance, closest points, contact features, intersection.
//!
//! A leaf on [`crate::shape`] and [`crate::math`], used by the simulator's rigid bodies
//! ([`advancement`], the one conservative advancement) and by `kairos query`. Its first
//! part is [`gjk`], the Gilbert–Johnson–Keerthi distance algorithm over the shapes' support
//! maps, with a warm start for coherent sequences of queries ([`GjkCache`]). On top of it,
//! [`epa`], the Expanding Polytope Algorithm: penetration depth, normal and contact points of
//! overlapping shapes ([`penetration`]) and the [`signed_distance`] (negative inside).
//! [`toi`]: the first contact of two shapes in linear and rotational motion
//! ([`time_of_impact`]), by conservative advancement on GJK's separating plane, started by a
//! GJK ray cast on the Minkowski difference for translating polytopes. For polytopes
//! (boxes, polygons, triangles, segments, polyhedra: the [`Polytope`] trait), [`sat`](mod@sat)
//! is the separating axis test ([`sat()`]) over face normals and, in 3D, edge cross products
//! pruned on the Gauss map, exact penetration depth when they overlap, with the last best axis
//! cached ([`SatCache`]).
//! [`manifold`] builds [`contact_manifold`]s on top of it: up to 2 (2D) or 4 (3D) contact
//! points, by clipping the incident face against SAT's reference face, each named by the pair
//! of features it comes from ([`ContactId`]) so that a solver can match contacts over time.
//!
//! ```
//! use kairos_geometry::math::DVec2;
//! use kairos_geometry::query::{distance, GjkOptions, GjkStatus};
//! use kairos_geometry::shape::{Ball, Cuboid, Pose};
//! let square = Cuboid::new(DVec2::new(1.0, 1.0)).unwrap();
//! let disc = Ball::new(0.5).unwrap();
//! let r = distance(
//!     &square,
//!     &Pose::IDENTITY,
//!     &disc,
//!     &Pose::from_position(DVec2::new(3.0, 0.0)),
//!     &GjkOptions::default(),
//!     None,
//! );
//! assert_eq!(r.status, GjkStatus::Separated);
//! assert!((r.distance - 1.5).abs() < 1e-12);
//! ```

pub mod advancement;
pub mod epa;
pub mod gjk;
pub mod manifold;
pub mod sat;
pub mod toi;

pub use advancement::{advance, Advance, AdvanceOptions, Advancement, MovingShape};
pub use epa::{penetration, signed_distance, EpaOptions, EpaResult, EpaStatus};
pub use gjk::{
    distance, intersects, CoreSupport, Feature, GjkCache, GjkOptions, GjkResult, GjkStatus,
};
pub use manifold::{
    contact_manifold, contact_manifold_with, polytope_manifold, ContactId, ContactPoint, Manifold,
    ManifoldOptions,
};
pub use sat::{sat, Polytope, SatCache, SatFeature, SatResult, SatStatus};
pub use toi::{time_of_impact, ToiOptions, ToiResult, ToiStatus};

/// The rounding floor of the stopping tests, in units of `f64::EPSILON` times the size of the
/// simplex (see [GJK's module docs](gjk)).
const ROUNDING: f64 = 16.0 * f64::EPSILON;
