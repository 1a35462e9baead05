//! Ensembles: many independent runs of the event-driven engine, on all cores.
//!
//! A run is a pure function of its scene and [`RunOptions`]: [`run`] gives the same
//! [`RunResult`] (but for [`RunResult::wall_seconds`]) whichever thread, process or machine
//! runs it, so a sweep's table does not depend on how it was spread (`kairos sweep`, the Python
//! package's `kairos.sweep`, a Dask cluster). [`run_all`] runs a list of scenes on a pool of
//! threads and returns the results in the list's order.

use std::time::Instant;

use rayon::prelude::*;

use crate::broad_phase::{BroadPhaseKind, BroadPhaseOptions};
use crate::math::{DVec2, DVec3, Vector};
use crate::observe::{Observer, Sample};
use crate::scene::{Item, Scene, SceneError};
use crate::sim::Simulation;

/// How each run of an ensemble goes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunOptions {
    /// Sample the observables over windows of this much simulated time (`None`: none). They
    /// need a periodic box (its volume is the pressure's).
    pub observe: Option<f64>,
    /// How many of the first windows to leave out of the means (the relaxation from the start).
    pub skip: usize,
    /// The broad phase (`None`: [`BroadPhaseKind::auto`]'s choice). Every one gives the same
    /// events; it changes only the wall time.
    pub broad_phase: Option<BroadPhaseKind>,
}

/// The mean of a quantity over the observed windows and its standard error (the windows taken
/// as independent: a lower bound when they are correlated; independent runs give honest error
/// bars).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    /// Mean over the windows.
    pub mean: f64,
    /// Standard deviation over the windows divided by the square root of their number (0 for
    /// one window).
    pub sem: f64,
}

impl Stat {
    /// The mean and standard error of `xs`; `None` when empty.
    pub fn of(xs: impl IntoIterator<Item = f64>) -> Option<Stat> {
        let xs: Vec<f64> = xs.into_iter().collect();
        if xs.is_empty() {
            return None;
        }
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let sem = if xs.len() > 1 {
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
            (var / n).sqrt()
        } else {
            0.0
        };
        Some(Stat { mean, sem })
    }
}

/// What one run of an ensemble gives.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// Bodies.
    pub n: usize,
    /// 2 or 3.
    pub dim: usize,
    /// The bodies' share of the periodic box (`None` without one).
    pub packing: Option<f64>,
    /// The simulated time.
    pub duration: f64,
    /// The broad phase that ran.
    pub broad_phase: BroadPhaseKind,
    /// Body-body collisions.
    pub body_body: u64,
    /// Body-wall collisions.
    pub body_wall: u64,
    /// The relative change of the energy over the run.
    pub energy_drift: f64,
    /// The windows observed after the skipped ones.
    pub windows: usize,
    /// Pressure over those windows.
    pub pressure: Option<Stat>,
    /// Compressibility factor `P V / (N kT)` over those windows.
    pub compressibility: Option<Stat>,
    /// Body-body collisions per body per unit time over those windows.
    pub collision_rate: Option<Stat>,
    /// The largest relative overlap of a colliding pair at contact over the run (round-off).
    pub max_overlap: f64,
    /// Wall-clock seconds of the run (the one field that depends on the machine).
    pub wall_seconds: f64,
}

/// Runs `scene` to its end.
pub fn run(scene: &Scene, opts: &RunOptions) -> Result<RunResult, SceneError> {
    match scene.dim {
        2 => run_dim::<DVec2>(scene, opts),
        _ => run_dim::<DVec3>(scene, opts),
    }
}

fn run_dim<V: Vector>(scene: &Scene, opts: &RunOptions) -> Result<RunResult, SceneError> {
    let kind = opts
        .broad_phase
        .unwrap_or_else(|| BroadPhaseKind::auto(scene.dim, scene.packing()).kind);
    let invalid = |message: String| SceneError::Invalid {
        item: Item::Scene,
        message,
    };
    let world = scene.world::<V>()?;
    let start = Instant::now();
    let mut sim = Simulation::new(
        world,
        kind.build(&BroadPhaseOptions::default()),
        scene.duration,
    );
    let mut observer = match opts.observe {
        None => None,
        Some(dt) if !(dt > 0.0 && dt.is_finite()) => {
            return Err(invalid(format!(
                "the observation interval must be a positive number, got {dt}"
            )))
        }
        Some(dt) => {
            let Some(l) = &scene.periodic else {
                return Err(invalid(
                    "observables (pressure, compressibility) need a periodic box".into(),
                ));
            };
            Some(Observer::new(&sim, dt, l.iter().product()))
        }
    };
    let mut samples: Vec<Sample> = Vec::new();
    let mut max_overlap = 0.0f64;
    while let Some(e) = sim.step() {
        if e.kind == crate::event::EventKind::BodyBody {
            max_overlap = max_overlap.max(sim.last_overlap());
        }
        if let Some(o) = observer.as_mut() {
            o.after_step(&sim, Some(&e), &mut samples);
        }
    }
    if let Some(o) = observer.as_mut() {
        o.after_step(&sim, None, &mut samples);
    }
    sim.finish();
    let kept = samples.get(opts.skip..).unwrap_or(&[]);
    let c = sim.counts();
    Ok(RunResult {
        n: scene.bodies.len(),
        dim: scene.dim,
        packing: scene.packing(),
        duration: scene.duration,
        broad_phase: kind,
        body_body: c.body_body,
        body_wall: c.body_wall,
        energy_drift: sim.energy_drift(),
        windows: kept.len(),
        pressure: Stat::of(kept.iter().map(|s| s.pressure)),
        compressibility: Stat::of(kept.iter().map(|s| s.compressibility)),
        collision_rate: Stat::of(kept.iter().map(|s| s.collision_rate)),
        max_overlap,
        wall_seconds: start.elapsed().as_secs_f64(),
    })
}

/// Runs every scene of `scenes` on `threads` threads (`None`: one per core), calling
/// `on_done` with a run's index as it ends (from the thread that ran it); the results in the
/// order of `scenes`.
pub fn run_all(
    scenes: &[Scene],
    opts: &RunOptions,
    threads: Option<usize>,
    on_done: &(dyn Fn(usize) + Sync),
) -> Vec<Result<RunResult, SceneError>> {
    let one = |(i, s): (usize, &Scene)| {
        let r = run(s, opts);
        on_done(i);
        r
    };
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
    {
        Ok(pool) => pool.install(|| scenes.par_iter().enumerate().map(one).collect()),
        // No pool could be made (no threads to be had): one after another on this thread.
        Err(_) => scenes.iter().enumerate().map(one).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{gas, GasParams};

    fn scenes() -> Vec<Scene> {
        [0.1, 0.3]
            .iter()
            .flat_map(|&packing| {
                (0..2).map(move |seed| {
                    gas(&GasParams {
                        dim: 3,
                        n: 200,
                        packing,
                        seed,
                        duration: 3.0,
                        ..Default::default()
                    })
                    .unwrap()
                })
            })
            .collect()
    }

    fn without_time(mut r: RunResult) -> RunResult {
        r.wall_seconds = 0.0;
        r
    }

    #[test]
    fn a_run_is_the_same_on_any_number_of_threads_and_alone() {
        let opts = RunOptions {
            observe: Some(0.5),
            skip: 1,
            broad_phase: None,
        };
        let s = scenes();
        let alone: Vec<RunResult> = s
            .iter()
            .map(|x| without_time(run(x, &opts).unwrap()))
            .collect();
        for threads in [1, 2, 4] {
            let done = std::sync::atomic::AtomicUsize::new(0);
            let all = run_all(&s, &opts, Some(threads), &|_| {
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            });
            assert_eq!(done.into_inner(), s.len());
            let all: Vec<RunResult> = all.into_iter().map(|r| without_time(r.unwrap())).collect();
            assert_eq!(all, alone, "{threads} threads");
        }
        // Carnahan-Starling: 1.52 at a packing of 0.1, 3.97 at 0.3 (a small gas, a few windows).
        for (r, cs) in [(&alone[0], 1.52), (&alone[2], 3.97)] {
            assert_eq!(r.windows, 5);
            let z = r.compressibility.unwrap();
            assert!((z.mean - cs).abs() < 0.1 * cs, "{z:?} against {cs}");
            assert!(z.sem > 0.0 && r.energy_drift.abs() < 1e-12);
        }
    }

    #[test]
    fn observables_need_a_periodic_box_and_a_positive_interval() {
        let mut s = scenes().remove(0);
        let bad = RunOptions {
            observe: Some(-1.0),
            ..Default::default()
        };
        assert!(run(&s, &bad).unwrap_err().to_string().contains("positive"));
        s.periodic = None;
        s.walls = vec![crate::scene::WallSpec::Box {
            min: vec![-100.0; 3],
            max: vec![100.0; 3],
        }];
        let opts = RunOptions {
            observe: Some(1.0),
            ..Default::default()
        };
        let e = run(&s, &opts).unwrap_err().to_string();
        assert!(e.contains("periodic box"), "{e}");
        assert_eq!(Stat::of([]), None);
    }
}
