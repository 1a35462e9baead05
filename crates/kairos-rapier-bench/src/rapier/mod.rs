//! rapier (`rapier2d-f64` and `rapier3d-f64`, single-threaded) behind [`Engine`](crate::engine::Engine).
//!
//! Every body is a dynamic cuboid collider of the scene's mass (uniform density, so the
//! inertia matches Kairos's), sleeping off. Every wall is a fixed cuboid slab behind its plane
//! ([`Slab`]), wider and thicker than the whole scene: rapier's continuous collision detection
//! has no sweep against a half-space (parry's non-linear cast returns `Unsupported` for it):
//! with half-space walls the bullets of the bullet scene left the room. Friction and restitution are the
//! scene's on every collider (rapier averages the two colliders' values, which are equal).
//! Everything else is `IntegrationParameters::default()` unless [`Config`] says otherwise:
//! `dt = 1/60`, `num_solver_iterations = 4` (rapier's sub-steps), `num_internal_pgs_iterations
//! = 1`, `num_internal_stabilization_iterations = 1`, soft contacts, `max_ccd_substeps = 1`
//! (a fast body stops at its first impact and the rest of its step is lost), and velocities
//! capped at 400 (`normalized_max_linear_velocity`).

pub mod dim2;
pub mod dim3;

use crate::setup::{HalfSpace, Setup};

/// Which bodies rapier's continuous collision detection sweeps as bullets
/// (`RigidBodyBuilder::ccd_enabled(true)`). rapier sweeps a bullet against every other body
/// but another bullet, and any fast body against fixed colliders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ccd {
    /// No body is a bullet (rapier's default); fast bodies are still swept against walls.
    Off,
    /// Every body is a bullet, so no two bodies are swept against each other.
    All,
    /// The bodies that start moving are bullets, the others (the plank) their targets.
    Fired,
}

/// How rapier is set up beyond its defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// `num_internal_pgs_iterations`: solver sweeps per sub-step (rapier's default is 1).
    pub pgs_iterations: usize,
    /// The bullets of the continuous collision detection.
    pub ccd: Ccd,
    /// Keep rapier's default cap on linear velocity (400 length units per second); without
    /// it the cap is lifted (`normalized_max_linear_velocity = f64::MAX`).
    pub speed_cap: bool,
}

impl Config {
    /// rapier's defaults: 4 sub-steps of one sweep, no bullets.
    pub const DEFAULT: Self = Self {
        pgs_iterations: 1,
        ccd: Ccd::Off,
        speed_cap: true,
    };

    /// How the table names this setting.
    pub fn label(&self) -> String {
        let mut label = format!("rapier 4 substeps × {} PGS", self.pgs_iterations);
        match self.ccd {
            Ccd::Off => {}
            Ccd::All => label.push_str(", CCD on all"),
            Ccd::Fired => label.push_str(", CCD on fired"),
        }
        if !self.speed_cap {
            label.push_str(", no speed cap");
        }
        label
    }

    /// Whether a body starting at `velocity` is a bullet.
    fn bullet(&self, velocity: [f64; 3]) -> bool {
        match self.ccd {
            Ccd::Off => false,
            Ccd::All => true,
            Ccd::Fired => velocity.iter().any(|&v| v != 0.0),
        }
    }
}

/// The fixed cuboid that stands for a wall: its face on the wall's plane, its local x axis
/// along the wall's normal, as thick as the scene's extent `E` and `2 E` wide either way, so
/// that it covers the scene's side of the plane wherever the scene lies.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Slab {
    /// The centre: `E` behind the wall's point.
    centre: [f64; 3],
    /// The half extents: `E` along the normal, `2 E` along the plane.
    half: [f64; 3],
    /// The wall's unit normal: the slab's local x axis.
    normal: [f64; 3],
}

impl Slab {
    fn new(wall: &HalfSpace, setup: &Setup) -> Self {
        let e = setup.extent();
        Self {
            centre: std::array::from_fn(|k| wall.point[k] - e * wall.normal[k]),
            half: [e, 2.0 * e, 2.0 * e],
            normal: wall.normal,
        }
    }
}
