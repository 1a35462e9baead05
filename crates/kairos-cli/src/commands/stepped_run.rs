//! A run of the stepped engine (`kairos run --stepper stepped`): fixed steps whose contacts are
//! solved by warm-started sequential impulses ([`kairos::stepped`]), with the same trace,
//! summary and outputs as the other steppers.
//!
//! The trace holds each contact that begins (a pair that pushes on each other in a step and
//! did not in the step before) as a `body-body` or `body-wall` event with the bodies' states
//! at the end of the step, and every `--sample` interval a `state` record of each body that
//! moved since its last record. A body that moves less than 0.1% of its size over an interval
//! is written still (zero velocities, out of gravity's reach) once, and again only when it has
//! moved by more than that: a standing pyramid costs nothing after it settles.

use std::time::Instant;

use anyhow::{Context, Result};
use kairos::math::{Rotation, Vector};
use kairos::stepped::{StepOptions, StepStats, SteppedSim};
use kairos::trace::{Record, TraceWriter};

use super::simulate::{finish_trace, summary, Momenta, RunSpec, SteppedReport, Summary};
use crate::show;

/// A body moving less than this share of its size over a sample interval is written still.
const STILL: f64 = 1e-3;

/// The label a stepped run writes to its trace header.
pub fn stepped_label(o: &StepOptions) -> String {
    format!(
        "stepped {} dt={} substeps={} iterations={}{}{}",
        o.finder.name(),
        o.dt,
        o.substeps,
        o.iterations,
        if o.warm_start { "" } else { " cold" },
        if o.ccd { "" } else { " no-ccd" }
    )
}

/// A stepped run of a scene of either dimension.
pub fn simulate_stepped(
    spec: &RunSpec,
    options: StepOptions,
    sample_every: u64,
) -> Result<Summary> {
    match spec.scene.dim {
        2 => simulate_dim::<kairos::math::DVec2>(spec, options, sample_every),
        3 => simulate_dim::<kairos::math::DVec3>(spec, options, sample_every),
        d => anyhow::bail!("unsupported dimension {d}"),
    }
}

/// The scene the stepped engine runs for `spec`, the one rule of every command that runs it
/// (`run`, `demo`): balls without a shape are solved as rigid balls of their radius and mass
/// (the engine's contacts, restitution and friction are those of rigid bodies, and a rigid
/// ball is one); a ball that makes no rigid ball is refused, naming it.
pub(super) fn stepped_scene(spec: &RunSpec) -> Result<kairos::scene::Scene> {
    spec.scene
        .with_rigid_balls()
        .map_err(|e| anyhow::anyhow!("{}: --stepper stepped: {e}", spec.scene_name))
}

/// How many steps of `dt` a run of `duration` takes: whole steps, the last one ending at or
/// after the duration (by less than `dt`); a ratio within a relative `1e-9` of a whole number
/// is that number (a duration of 2 at `dt = 1/60` is 120 steps, not 121).
fn whole_steps(duration: f64, dt: f64) -> f64 {
    let r = duration / dt;
    if (r - r.round()).abs() <= 1e-9 * r {
        r.round()
    } else {
        r.ceil()
    }
}

/// The run.
fn simulate_dim<V: Vector>(
    spec: &RunSpec,
    options: StepOptions,
    sample_every: u64,
) -> Result<Summary> {
    let scene = &stepped_scene(spec)?;
    anyhow::ensure!(
        options.dt <= scene.duration,
        "{}: --dt {} is longer than the scene's duration {}",
        spec.scene_name,
        kairos::num::Num(options.dt),
        kairos::num::Num(scene.duration)
    );
    let steps = whole_steps(scene.duration, options.dt);
    anyhow::ensure!(
        steps * options.substeps as f64 <= spec.max_steps as f64,
        "{}: --dt {} over a duration of {} makes {:.3e} sub-steps, more than --max-steps {}: \
         use a larger --dt, or raise --max-steps if this run is meant to be that long",
        spec.scene_name,
        kairos::num::Num(options.dt),
        kairos::num::Num(scene.duration),
        steps * options.substeps as f64,
        spec.max_steps
    );
    let steps = steps as u64;
    let building = Instant::now();
    let world = scene
        .world::<V>()
        .map_err(|e| anyhow::anyhow!("{}: {e}", spec.scene_name))?;
    let mut sim = SteppedSim::new(world, options)
        .map_err(|e| anyhow::anyhow!("{}: --stepper stepped: {e}", spec.scene_name))?;
    let build_seconds = building.elapsed().as_secs_f64();
    let mut writer = spec
        .trace
        .map(|p| {
            TraceWriter::create_for_scene(p, scene, stepped_label(&options))
                .with_context(|| format!("{}: cannot create trace", show(p)))
        })
        .transpose()?;
    let sizes: Vec<f64> = sim.world().bodies().iter().map(|b| b.radius).collect();
    // Per body: the position of its last record and whether it was written still.
    let mut written: Vec<(V, bool)> = sim.bodies().iter().map(|b| (b.position, false)).collect();
    let energy0 = sim.energy();
    let momenta0 = momenta(&sim);
    let interval = options.dt * sample_every as f64;
    let substeps = steps * options.substeps as u64;
    let bar = spec.progress.then(|| stepped_bar(substeps)).flatten();
    let start = Instant::now();
    crate::interrupt::polling();
    // Between sub-steps: a signal stops the run there (a step of many sub-steps on a large
    // scene takes minutes), and the bar moves on with its estimate of the time left.
    let check_bar = bar.clone();
    sim.set_check(move |done| {
        if let Some(bar) = &check_bar {
            bar.set_position(done);
        }
        crate::interrupt::requested().is_some()
    });
    for step in 1..=steps {
        sim.step();
        // A signal stops the run between sub-steps (the check above) or here, before the
        // step's records.
        if let Some(signal) = crate::interrupt::requested() {
            return Err(crate::interrupt::Interrupted {
                signal,
                message: format!(
                    "stopped at t = {} of {}; no output written",
                    sim.time(),
                    scene.duration
                ),
            }
            .into());
        }
        if let Some(w) = writer.as_mut() {
            let t = sim.time();
            let state = |i: u32| {
                let b = &sim.bodies()[i as usize];
                (
                    b.position.to_array3(),
                    b.velocity.to_array3(),
                    b.rotation.to_array4(),
                    V::angular_to_array3(b.angular_velocity),
                )
            };
            let mut write = |r: Record| -> Result<()> {
                w.write(&r).with_context(|| {
                    format!("{}: writing the trace failed", show(spec.trace.unwrap()))
                })
            };
            for c in sim.began() {
                let (pos_a, vel_a, rot_a, omega_a) = state(c.a);
                let mut r = Record::state(t, c.a, pos_a, vel_a, rot_a, omega_a);
                if c.wall {
                    r.kind = kairos::event::EventKind::BodyWall;
                    r.b = c.b;
                } else {
                    let (pos_b, vel_b, rot_b, omega_b) = state(c.b);
                    r.kind = kairos::event::EventKind::BodyBody;
                    r.b = c.b;
                    (r.pos_b, r.vel_b, r.rot_b, r.omega_b) = (pos_b, vel_b, rot_b, omega_b);
                }
                write(r)?;
                written[c.a as usize].1 = false;
                if !c.wall {
                    written[c.b as usize].1 = false;
                }
                written[c.a as usize].0 = sim.bodies()[c.a as usize].position;
                if !c.wall {
                    written[c.b as usize].0 = sim.bodies()[c.b as usize].position;
                }
            }
            if step % sample_every == 0 || step == steps {
                for (i, b) in sim.bodies().iter().enumerate() {
                    let size = sizes[i];
                    let reach = (b.velocity.length() + V::angular_speed(b.angular_velocity) * size)
                        * interval;
                    let still = reach <= STILL * size;
                    let (at, was_still) = written[i];
                    if still && was_still && (b.position - at).length() <= STILL * size {
                        continue;
                    }
                    let (pos, vel, rot, omega) = state(i as u32);
                    let mut r = Record::state(t, i as u32, pos, vel, rot, omega);
                    if still {
                        r.vel_a = [0.0; 3];
                        r.omega_a = [0.0; 3];
                        r.sleep = Record::A_ASLEEP;
                    }
                    write(r)?;
                    written[i] = (b.position, still);
                }
            }
        }
        if let Some(bar) = &bar {
            if step % 16 == 0 {
                bar.set_message(format!("{} contacts", contacts(&sim.stats())));
            }
        }
    }
    let wall_seconds = start.elapsed().as_secs_f64();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    // The last step may end after the scene's duration (steps of --dt): the trace ends there.
    let trace_hash = finish_trace(spec, writer, sim.time().max(scene.duration))?;
    let s = sim.stats();
    if s.ccd_gave_up > 0 {
        eprintln!(
            "{}: warning: the continuous check gave up {} times (more impacts in a sub-step \
             than it resolves, or contacts the solver could not hold: a huge mass ratio, a tiny \
             inertia): it stopped those bodies where they touched instead; a smaller --dt \
             resolves more",
            spec.scene_name, s.ccd_gave_up
        );
    }
    if options.ccd && s.tunnelled > 0 {
        eprintln!(
            "{}: warning: {} pairs passed through each other ({} through a wall) although the \
             continuous check was on; a smaller --dt, fewer extreme masses, inertias or sizes \
             may hold them",
            spec.scene_name, s.tunnelled, s.tunnelled_wall
        );
    }
    // Relative to the energy at the start, unless that is zero within the round-off of its
    // terms (bodies at rest at the height of the origin): the change itself is then reported.
    let g = sim.world().gravity();
    let terms = sim.kinetic_energy()
        + sim
            .bodies()
            .iter()
            .map(|b| (b.mass() * g.dot(b.position)).abs())
            .sum::<f64>();
    let change = (sim.energy() - energy0).abs();
    let absolute = !(energy0.abs() > 1e-12 * terms);
    let energy_drift = if absolute {
        change
    } else {
        change / energy0.abs()
    };
    let counts = kairos::sim::EventCounts {
        body_body: s.body_body,
        body_wall: s.body_wall,
        box_crossings: 0,
    };
    let mut out = summary(
        spec,
        "stepped",
        options.finder.name(),
        Some(options.dt),
        counts,
        kairos::discrete::Misses {
            body_body: s.tunnelled - s.tunnelled_wall,
            body_wall: s.tunnelled_wall,
        },
        wall_seconds,
        energy_drift,
        momenta0.drifts(&momenta(&sim)),
        trace_hash,
    );
    out.build_seconds = build_seconds;
    out.energy_drift_absolute = absolute;
    out.stepped = Some(SteppedReport {
        steps: s.steps,
        substeps: options.substeps,
        iterations: options.iterations,
        solver_sweeps: s.sweeps,
        contact_points: s.contacts,
        kept_points: s.kept,
        warm_start_hits: s.warm_hits,
        warm_start_hit_rate: if s.contacts > 0 {
            s.warm_hits as f64 / s.contacts as f64
        } else {
            0.0
        },
        matching: match options.matching {
            kairos::stepped::Matching::Features => "features",
            kairos::stepped::Matching::WorldDistance => "world",
            kairos::stepped::Matching::BodyDistance => "body",
        }
        .into(),
        mismatches: s.mismatches,
        mean_residual: sim.mean_residual(),
        warm_start: options.warm_start,
        correction: format!("{:?}", options.correction).to_lowercase(),
        persistent_manifolds: options.keep_manifolds,
        seconds_per_step: wall_seconds / s.steps.max(1) as f64,
        threads: sim.threads(),
        ccd: options.ccd,
        ccd_impacts: s.ccd_impacts,
        ccd_queries: s.ccd_queries,
        ccd_gave_up: s.ccd_gave_up,
        sleep: options.sleep,
        asleep_at_end: sim.asleep_count(),
        wakes: s.wakes,
        tunnelled_pairs: s.tunnelled,
    });
    Ok(out)
}

/// The progress bar of a stepped run of `substeps` sub-steps in all, with the estimated time
/// left (a run of hours says so from its first steps); `None` when stderr is not a terminal.
fn stepped_bar(substeps: u64) -> Option<indicatif::ProgressBar> {
    crate::output::progress_bar(
        substeps.max(1),
        "{spinner} simulated {percent:>3}% [{bar:30}] {msg} ({elapsed}, about {eta} left)",
    )
}

/// Contacts begun so far.
fn contacts(s: &StepStats) -> u64 {
    s.body_body + s.body_wall
}

/// The bodies' linear and angular momentum (about the origin).
fn momenta<V: Vector>(sim: &SteppedSim<V>) -> Momenta<V> {
    let mut m = Momenta::default();
    for b in sim.bodies() {
        m.add(b.position, b.velocity * b.mass(), Some(b.spin_momentum()));
    }
    m
}
