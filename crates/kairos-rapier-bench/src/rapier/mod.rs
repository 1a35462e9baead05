//! rapier (`rapier2d-f64` and `rapier3d-f64`, single-threaded) behind [`Engine`](crate::engine::Engine).
//!
//! Every body is a dynamic cuboid collider of the scene's mass (uniform density, so the
//! inertia matches Kairos's), sleeping off; every wall a fixed half-space. Friction and
//! restitution are the scene's on every collider (rapier averages the two colliders' values,
//! which are equal). Everything else is `IntegrationParameters::default()` unless [`Config`]
//! says otherwise: `dt = 1/60`, `num_solver_iterations = 4` (rapier's sub-steps),
//! `num_internal_pgs_iterations = 1`, `num_internal_stabilization_iterations = 1`, soft
//! contacts, `max_ccd_substeps = 1`, and velocities capped at 400 (`normalized_max_linear_velocity`).

pub mod dim2;
pub mod dim3;

/// How rapier is set up beyond its defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// `num_internal_pgs_iterations`: solver sweeps per sub-step (rapier's default is 1).
    pub pgs_iterations: usize,
    /// Continuous collision detection on every dynamic body (`ccd_enabled(true)`).
    pub ccd: bool,
    /// Keep rapier's default cap on linear velocity (400 length units per second); without
    /// it the cap is lifted (`normalized_max_linear_velocity = f64::MAX`).
    pub speed_cap: bool,
}

impl Config {
    /// rapier's defaults: 4 sub-steps of one sweep, no continuous detection.
    pub const DEFAULT: Self = Self {
        pgs_iterations: 1,
        ccd: false,
        speed_cap: true,
    };

    /// How the table names this setting.
    pub fn label(&self) -> String {
        let mut label = format!("rapier 4 substeps × {} PGS", self.pgs_iterations);
        if self.ccd {
            label.push_str(", CCD");
        }
        if !self.speed_cap {
            label.push_str(", no speed cap");
        }
        label
    }
}
