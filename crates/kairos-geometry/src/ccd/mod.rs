//! Continuous collision detection of moving triangle meshes, after D2M (W. Buddingh',
//! *Accurate and Efficient Continuous Collision Detection*, 2017): interval arithmetic with
//! outward rounding, root finding over intervals, and the feature tests of a vertex against a
//! triangle and of two edges, never missing a contact.
//!
//! * [`Interval`]: closed intervals of `f64`, every bound rounded outwards;
//! * [`Poly`], [`poly::PolyVec`]: polynomials in time with interval coefficients, enclosed
//!   over a time interval (Horner's scheme and the mean value form);
//! * [`linear`]: vertex–face and edge–edge contact of points moving on straight lines (the
//!   seed's motion with zero rotation): the coplanarity function and the feature's domain
//!   test, bisected over intervals (the seed's BBOI), earliest contact first;
//! * [`rotating`]: the same tests for bodies that translate and rotate (the seed's motion
//!   class, [`rotating::ScrewMotion`]), on interval enclosures of the moving points;
//! * [`mesh`]: validated triangle meshes and procedural ones (icosphere, torus, spiky ball,
//!   plate, random convex hull);
//! * [`tree`]: sphere trees (Welzl's minimal spheres, midpoint splits) and the time of contact
//!   of two moving meshes by Traverse-Tree-Pair ([`tree::mesh_contact`]);
//! * [`sphere`]: the trees' spheres: the enclosing sphere of a node's points (Gärtner's
//!   pivoting, Welzl's algorithm) and whether and when two moving spheres may meet;
//! * [`distance`]: distances of triangles and of posed meshes (branch and bound over their
//!   trees), to measure how far apart a contact leaves them;
//! * [`solid`]: closed meshes as solids (the check, and their mass properties);
//! * [`polyline`]: the 2D analogue: the vertex–segment test of bodies turning in the plane
//!   (the vertex–face test with the triangle's second edge the constant `ẑ`), and the time of
//!   contact of two moving polylines.
//!
//! The standard benchmark's query files are read by the command line (`kairos ccd`), and the
//! convex-pieces stand-in the D2M benchmark compares with lives in its bench (`kairos bench
//! d2m`).

pub mod closest;
pub mod distance;
pub mod interval;
pub mod linear;
pub mod mesh;
pub mod poly;
pub mod polyline;
pub mod rotating;
pub mod solid;
pub mod sphere;
pub mod tree;

pub use interval::Interval;
pub use linear::{edge_edge, vertex_face, CcdOptions, LinearPoint};
pub use poly::Poly;

/// A query stopped by its `cancel` hook before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;
