//! Observables of a running simulation, sampled over fixed windows of simulated time.
//!
//! The pressure comes from the kinetic energy and the collisional virial (the impulsive form of
//! the virial theorem): over a window of length `dt` in a box of volume `V` in `d` dimensions,
//! `P = (2 K + W / dt) / (d V)`, where `K` is the kinetic energy and `W` the sum over the
//! window's ball-ball collisions of `r_ab . J_a`. The compressibility factor is
//! `Z = P V / (N kT)` with `kT = 2 K / (d N)`.

use crate::event::{Event, EventKind};
use crate::math::Vector;
use crate::sim::Simulation;

/// The observables of one window `[time - interval, time)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// End of the window.
    pub time: f64,
    /// Pressure.
    pub pressure: f64,
    /// Compressibility factor `P V / (N kT)`.
    pub compressibility: f64,
    /// Ball-ball collisions per unit time per body.
    pub collision_rate: f64,
    /// Kinetic energy at the end of the window.
    pub kinetic_energy: f64,
    /// Largest relative overlap `(sigma - distance) / sigma` of a colliding pair at contact in
    /// the window (round-off level; 0 when the window had no collision).
    pub max_overlap: f64,
}

/// Accumulates the samples of a simulation; call [`Observer::after_step`] after every
/// [`Simulation::step`].
#[derive(Clone, Debug)]
pub struct Observer {
    interval: f64,
    window_end: f64,
    volume: f64,
    dim: usize,
    n: usize,
    virial_start: f64,
    collisions_start: u64,
    prev_virial: f64,
    prev_collisions: u64,
    prev_kinetic: f64,
    max_overlap: f64,
}

/// Most windows a run may be observed in (each a row of observables: a CSV line of about 130
/// bytes in `kairos run --observe`); a shorter interval over a long run is refused by the CLI
/// and the Python package rather than filling the memory.
pub const MAX_WINDOWS: f64 = 1e7;

/// Refuses observing a run of `duration` every `interval` in more than [`MAX_WINDOWS`]
/// windows, with a message that names both and the count (the caller names the option).
pub fn check_windows(duration: f64, interval: f64) -> Result<(), String> {
    let windows = duration / interval;
    if windows <= MAX_WINDOWS {
        return Ok(());
    }
    Err(format!(
        "{} over a duration of {} makes {windows:.3e} windows a run, more than {MAX_WINDOWS:e}: \
         sample less often",
        crate::num::Num(interval),
        crate::num::Num(duration)
    ))
}

impl Observer {
    /// Samples every `interval` from time 0 in a box of `volume` with `n` bodies.
    pub fn new<V: Vector>(sim: &Simulation<V>, interval: f64, volume: f64) -> Self {
        Self {
            interval,
            window_end: interval,
            volume,
            dim: V::DIM,
            n: sim.world().bodies.len(),
            virial_start: 0.0,
            collisions_start: 0,
            prev_virial: 0.0,
            prev_collisions: 0,
            prev_kinetic: sim.kinetic_energy(),
            max_overlap: 0.0,
        }
    }

    fn close(&mut self, out: &mut Vec<Sample>) {
        let dt = self.interval;
        let (d, v, n) = (self.dim as f64, self.volume, self.n.max(1) as f64);
        let k = self.prev_kinetic;
        let pressure = (2.0 * k + (self.prev_virial - self.virial_start) / dt) / (d * v);
        let kt = 2.0 * k / (d * n);
        out.push(Sample {
            time: self.window_end,
            pressure,
            compressibility: if kt > 0.0 {
                pressure * v / (n * kt)
            } else {
                0.0
            },
            collision_rate: (self.prev_collisions - self.collisions_start) as f64 / (dt * n),
            kinetic_energy: k,
            max_overlap: self.max_overlap,
        });
        self.virial_start = self.prev_virial;
        self.collisions_start = self.prev_collisions;
        self.max_overlap = 0.0;
        self.window_end += self.interval;
    }

    /// Accounts for the event just processed (`None` at the end of the run, with the
    /// simulation's end time closing the remaining full windows).
    pub fn after_step<V: Vector>(
        &mut self,
        sim: &Simulation<V>,
        event: Option<&Event>,
        out: &mut Vec<Sample>,
    ) {
        let t = event.map_or(sim.end_time(), |e| e.time);
        // Windows that ended before this event see the state before it.
        while self.window_end < t || (event.is_none() && self.window_end <= t) {
            self.close(out);
        }
        if let Some(e) = event {
            if e.kind == EventKind::BodyBody {
                self.max_overlap = self.max_overlap.max(sim.last_overlap());
            }
        }
        self.prev_virial = sim.virial();
        self.prev_collisions = sim.counts().body_body;
        self.prev_kinetic = sim.kinetic_energy();
    }
}

/// Carnahan-Starling compressibility factor of hard spheres at packing fraction `phi`.
pub fn carnahan_starling(phi: f64) -> f64 {
    (1.0 + phi + phi * phi - phi * phi * phi) / (1.0 - phi).powi(3)
}

/// Henderson's compressibility factor of hard discs at packing fraction `phi`.
pub fn henderson(phi: f64) -> f64 {
    (1.0 + phi * phi / 8.0) / (1.0 - phi).powi(2)
}

/// Kolafa, Labík and Malijevský's compressibility factor of hard spheres at packing fraction
/// `phi` (Phys. Chem. Chem. Phys. 6, 2335 (2004)): Carnahan-Starling with the `phi^3` term
/// corrected, closer to simulations above a packing of about 0.4.
pub fn kolafa_labik_malijevsky(phi: f64) -> f64 {
    let p2 = phi * phi;
    (1.0 + phi + p2 - 2.0 / 3.0 * (p2 * phi + p2 * p2)) / (1.0 - phi).powi(3)
}
