//! Kairos's stepped engine ([`kairos::stepped::SteppedSim`]) behind [`Engine`].

use kairos::math::{Rotation, Vector};
use kairos::scene::Scene;
use kairos::stepped::{Correction, StepOptions, SteppedSim};

use crate::engine::{Engine, State};
use crate::setup::Setup;

/// The options every scene is run with: `dt = 1/60`, 4 sub-steps, no sleeping, the position
/// `correction`, solver sweeps `iterations` and `threads` given, and otherwise Kairos's
/// defaults (warm starting, the continuous check, every core).
pub fn options(
    correction: Option<&str>,
    iterations: Option<u32>,
    threads: Option<usize>,
) -> StepOptions {
    let defaults = StepOptions::default();
    StepOptions {
        dt: 1.0 / 60.0,
        substeps: 4,
        iterations: iterations.unwrap_or(defaults.iterations),
        correction: match correction {
            Some("soft") => Correction::Soft,
            Some("baumgarte") => Correction::Baumgarte,
            Some(_) => Correction::Split,
            None => defaults.correction,
        },
        sleep: false,
        ccd: true,
        threads: threads.unwrap_or(defaults.threads),
        ..defaults
    }
}

/// A scene in Kairos's stepped engine.
pub struct Kairos<V: Vector> {
    sim: SteppedSim<V>,
    /// Contact points found in the last step.
    points: u64,
}

impl<V: Vector> Kairos<V> {
    /// The engine on `scene` with `options`, and the setup its bodies give the other engine.
    ///
    /// # Errors
    /// Why Kairos refused the scene or the options, or why the setup cannot be read from it.
    pub fn new(scene: &Scene, options: StepOptions) -> Result<(Self, Setup), String> {
        let world = scene.world::<V>().map_err(|e| e.to_string())?;
        let sim = SteppedSim::new(world, options).map_err(|e| e.to_string())?;
        let setup = Setup::new(scene, sim.bodies())?;
        Ok((Self { sim, points: 0 }, setup))
    }
}

impl<V: Vector> Engine for Kairos<V> {
    fn step(&mut self) {
        let before = self.sim.stats().contacts;
        self.sim.step();
        self.points = self.sim.stats().contacts - before;
    }

    fn points(&self) -> usize {
        self.points as usize
    }

    fn len(&self) -> usize {
        self.sim.bodies().len()
    }

    fn state(&self, i: usize) -> State {
        let b = &self.sim.bodies()[i];
        State {
            position: b.position.to_array3(),
            velocity: b.velocity.to_array3(),
            rotation: b.rotation.to_array4(),
        }
    }

    fn ccd_counts(&self) -> Option<String> {
        let s = self.sim.stats();
        Some(format!(
            "{} impacts, gave up in {} sub-steps",
            s.ccd_impacts, s.ccd_gave_up
        ))
    }
}
