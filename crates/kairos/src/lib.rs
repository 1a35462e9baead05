//! # Kairos
//!
//! Exact continuous-time collision detection and event-driven simulation of balls (discs in
//! 2D, spheres in 3D) between static walls. Instead of stepping time by a fixed `dt` and
//! looking for overlaps, Kairos computes the exact time of every contact and processes the
//! events in time order: no collision is missed and nothing overlaps.
//!
//! * [`roots`]: the closed-form contact times of balls (a stable quadratic), a leaf on [`math`];
//! * [`ball_toi`]: exact contact times of balls (with balls, walls, periodic images, under gravity), numerically stable;
//! * [`broad_phase`]: next-event searches that only prune: [`broad_phase::AllPairs`], the
//!   thesis's adaptive swept-AABB hierarchy [`broad_phase::KayaBvh`], and the event calendar
//!   [`broad_phase::Calendar`] (with cells or neighbour lists), the fastest;
//!   [`broad_phase::BroadPhaseKind::auto`] picks between its two forms for a scene (the command
//!   line's default);
//! * [`sim::Simulation`]: the event loop over a [`world::World`];
//! * [`scene`] (with [`scene::xyz`]), [`generate`], [`trace`], [`checkpoint`]: scene files (with large
//!   scenes' bodies in extended XYZ), generators, binary event traces with their replay, and
//!   restartable checkpoints, all written through [`atomic`].
//! * [`ensemble`]: many independent runs (sweeps) on all cores, each a pure function of its
//!   scene and options;
//! * [`gsd`]: GSD files (HOOMD-blue's format): a writer and a reader of the file layer, and
//!   frames of the HOOMD schema (positions, velocities, orientations, box, types and shapes)
//!   for HOOMD-blue, freud, OVITO and MDAnalysis.
//! * [`shape`]: convex shapes (support functions, bounds, mass properties), poses and rigid
//!   motions, the base of the convex queries;
//! * [`query`]: convex queries on shapes: GJK distance, closest points, contact features and
//!   intersection, with a warm start; penetration depth (EPA) and signed distance.
//! * [`ccd`]: continuous collision detection of triangle features by interval root finding
//!   (D2M), checked against the standard benchmark's exact queries.
//!
//! All physics is generic over [`math::Vector`] (2D and 3D share one code path).
//!
//! ```
//! use kairos::prelude::*;
//! let scene = generate::billiard(&generate::BilliardParams { n: 16, ..Default::default() }).unwrap();
//! let world = scene.world::<DVec2>().unwrap();
//! let broad = BroadPhaseKind::KayaBvh.build(&BroadPhaseOptions::default());
//! let mut sim = Simulation::new(world, broad, 1.0);
//! sim.run(|_event, _world, _dt| {});
//! assert!(sim.counts().total() > 0);
//! assert!(sim.energy_drift().abs() < 1e-12);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The geometry: shapes, queries, mesh CCD and the discrete pair finders live in
// `kairos-geometry`; they keep their paths here (`kairos::shape`, `kairos::query`, ...).
pub use kairos_geometry::{ccd, math, names, num, overlap, query, roots, shape};

pub mod atomic;
pub mod ball_toi;
pub mod body;
pub mod broad_phase;
pub mod checkpoint;
pub mod discrete;
pub mod ensemble;
pub mod event;
pub mod generate;
pub mod gsd;
pub mod hash;
pub mod input;
pub mod mesh_file;
pub mod observe;
pub mod rigid;
pub mod rigid_mesh;
pub mod scene;
pub mod sim;
pub mod stepped;
pub mod trace;
pub mod wall;
pub mod world;

/// The most used items.
pub mod prelude {
    pub use crate::body::{Body, BodyId};
    pub use crate::broad_phase::{BroadPhase, BroadPhaseKind, BroadPhaseOptions, LookAheadOptions};
    pub use crate::event::{Event, EventKind};
    pub use crate::generate;
    pub use crate::math::{DVec2, DVec3, Vector};
    pub use crate::scene::Scene;
    pub use crate::sim::Simulation;
    pub use crate::wall::{Wall, WallSegment};
    pub use crate::world::{BodyKind, World, WorldBuilder, WorldError};
}
