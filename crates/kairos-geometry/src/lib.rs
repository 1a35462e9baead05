//! # Kairos geometry
//!
//! Convex shapes and the queries on them, and continuous collision detection of triangle
//! meshes, in 2D and 3D, in `f64`: the geometry under Kairos's exact event-driven and stepped
//! simulations, usable on its own. It reads no file and knows no simulation: shapes, poses and
//! motions go in, distances, depths, contact manifolds and times of impact come out.
//!
//! * [`math`]: the [`math::Vector`] trait that makes every algorithm generic over 2D and 3D
//!   (`glam`'s `DVec2` and `DVec3`), rotations, boxes, and the exact torque-free rotation
//!   [`math::FreeRotation`];
//! * [`num`], [`roots`]: numbers for messages, and the closed-form contact times of balls (a
//!   stable quadratic);
//! * [`shape`]: convex shapes (ball, box, capsule, segment, triangle, polygon, cylinder, cone,
//!   polyhedron, ellipsoid), each answering for itself through [`shape::ConvexShape`]: its
//!   support function, round core, polytope view, mass properties and outline;
//! * [`query`]: GJK distance and closest points (warm-started), EPA penetration depth, SAT,
//!   contact manifolds, ray casts, and the time of impact of rotating shapes by conservative
//!   advancement, which never steps past a contact;
//! * [`ccd`]: D2M's continuous collision detection of moving triangle meshes: interval root
//!   finding of vertex–face and edge–edge contacts, sphere trees, never missing a contact;
//! * [`overlap`]: which boxes overlap now (brute force, grid, sweep and prune, BVHs), the
//!   pair finders of fixed-step engines;
//! * [`names`]: kinds chosen by name, and options out of range.
//!
//! ```
//! use kairos_geometry::math::DVec3;
//! use kairos_geometry::query::{distance, GjkOptions};
//! use kairos_geometry::shape::{Pose, Shape};
//! let a = Shape::<DVec3>::cuboid(DVec3::ONE).unwrap();
//! let b = Shape::<DVec3>::ball(0.5).unwrap();
//! let far = Pose::from_position(DVec3::X * 3.0);
//! let d = distance(&a, &Pose::IDENTITY, &b, &far, &GjkOptions::default(), None);
//! assert!((d.distance - 1.5).abs() < 1e-12);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ccd;
pub mod math;
pub mod names;
pub mod num;
pub mod overlap;
pub mod query;
pub mod roots;
pub mod shape;

/// The README's example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
