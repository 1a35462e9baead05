//! One simulation run from the command line, shared by `kairos run` and `kairos demo`: the
//! run's options ([`RunSpec`]), the event-driven and discrete loops with their trace,
//! checkpoints, observables and progress bar, and the [`Summary`] they report.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::ProgressBar;
use kairos::broad_phase::BroadPhaseOptions;
use kairos::discrete::{DiscreteOptions, DiscreteSim, Misses};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::overlap::OverlapKind;
use kairos::scene::Scene;
use kairos::sim::Simulation;
use kairos::trace::{Record, Replay, TraceWriter};
use serde::Serialize;

use super::stepper::Stepper;
use crate::output::{self, write_text};
use crate::show;

/// What a run reports.
#[derive(Serialize, Debug, Clone)]
pub struct Summary {
    pub scene: String,
    pub dim: usize,
    pub bodies: usize,
    /// Walls as the simulation counts them (wall ids in events): a `box` item is `2 * dim`.
    pub walls: usize,
    pub duration: f64,
    /// `event`, `discrete` or `stepped`.
    pub stepper: String,
    pub broad_phase: String,
    /// Why `--broad-phase auto` (the default) chose it; `None` when the broad phase was given.
    pub broad_phase_auto: Option<String>,
    /// The time step of a discrete run.
    pub dt: Option<f64>,
    pub events: u64,
    pub body_body: u64,
    pub body_wall: u64,
    pub wall_seconds: f64,
    /// Seconds spent reading and validating the scene (or checkpoint) before the run.
    pub load_seconds: f64,
    /// Seconds spent building the world from it (bodies, shapes, meshes' sphere trees).
    pub build_seconds: f64,
    pub events_per_second: f64,
    /// The change of the energy since the start, relative to the energy at the start (absolute
    /// when [`Summary::energy_drift_absolute`]).
    pub energy_drift: f64,
    /// The energy at the start is zero (a stepped run of bodies at rest at the height of the
    /// origin): [`Summary::energy_drift`] is the change itself, not relative to it.
    pub energy_drift_absolute: bool,
    /// `|P_end - P_0| / max(|P_0|, Σ |m v| at the start)`: walls change the momentum, so this
    /// is informative (0 in a closed periodic box up to round-off).
    pub momentum_drift: f64,
    /// The same for the angular momentum about the origin (unwrapped positions in a periodic
    /// box, spins included), over `max(|L_0|, Σ |m x × v| + |spin| at the start)`.
    pub angular_momentum_drift: f64,
    /// Contacts the exact motion makes that the run did not see (0 for the event stepper).
    pub missed_collisions: u64,
    pub missed_body_body: u64,
    pub missed_body_wall: u64,
    pub trace: Option<String>,
    pub trace_hash: Option<String>,
    /// The stepped engine's counts (`--stepper stepped` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stepped: Option<SteppedReport>,
}

/// What a stepped run adds to the summary.
#[derive(Serialize, Debug, Clone)]
pub struct SteppedReport {
    pub steps: u64,
    pub substeps: u32,
    /// Solver sweeps per sub-step.
    pub iterations: u32,
    /// Sweeps over the contacts, summed over the sub-steps.
    pub solver_sweeps: u64,
    /// Contact points found: a slow pair's once a step, a fast pair's at every sub-step.
    pub contact_points: u64,
    /// Of those, the points a pair at rest kept from the step before (persistent manifolds).
    pub kept_points: u64,
    /// Of those, the points warm-started from cached impulses.
    pub warm_start_hits: u64,
    /// `warm_start_hits / contact_points`.
    pub warm_start_hit_rate: f64,
    /// `features`, `world` or `body`.
    pub matching: String,
    /// Of the hits, those a distance match gave another contact's impulses.
    pub mismatches: u64,
    /// The solver's mean residual after its sweeps (a velocity; see
    /// `SteppedSim::mean_residual`).
    pub mean_residual: f64,
    pub warm_start: bool,
    /// `split`, `soft` or `baumgarte`.
    pub correction: String,
    /// Whether pairs at rest kept their points from step to step.
    pub persistent_manifolds: bool,
    /// Seconds per step.
    pub seconds_per_step: f64,
    /// Threads of the stages that work contact by contact or body by body.
    pub threads: usize,
    /// Whether the continuous check was on.
    pub ccd: bool,
    /// Impacts the check resolved within a sub-step.
    pub ccd_impacts: u64,
    /// Times of impact it computed.
    pub ccd_queries: u64,
    /// Sub-steps in which it gave up after its most impacts.
    pub ccd_gave_up: u64,
    /// Whether islands at rest sleep.
    pub sleep: bool,
    /// Bodies asleep at the end, and islands woken by a touch during the run.
    pub asleep_at_end: usize,
    pub wakes: u64,
    /// Pairs whose exact motion made a contact that the run did not: they passed through each
    /// other (also `missed_collisions`).
    pub tunnelled_pairs: u64,
}

impl Summary {
    fn print(&self) {
        outln!(
            "scene          {} ({}D, {}, {}, {} s)",
            self.scene,
            self.dim,
            count(self.bodies, "body", "bodies"),
            count(self.walls, "wall", "walls"),
            self.duration
        );
        match self.dt {
            None => match &self.broad_phase_auto {
                Some(why) => outln!(
                    "broad phase    {} (event-driven; auto: {why})",
                    self.broad_phase
                ),
                None => outln!("broad phase    {} (event-driven)", self.broad_phase),
            },
            Some(dt) => outln!(
                "stepper        {}, dt = {dt}, broad phase {}",
                self.stepper,
                self.broad_phase
            ),
        }
        if let Some(s) = &self.stepped {
            outln!(
                "solver         {} steps x {} sub-steps x {} sweeps ({} correction{}), {:.3} ms a step, {}",
                s.steps,
                s.substeps,
                s.iterations,
                s.correction,
                if s.warm_start { "" } else { ", cold starts" },
                1e3 * s.seconds_per_step,
                count(s.threads, "thread", "threads")
            );
            outln!(
                "contact points {} solved ({} kept from the step before), {} warm-started ({:.1}%)",
                s.contact_points,
                s.kept_points,
                s.warm_start_hits,
                100.0 * s.warm_start_hit_rate
            );
            outln!(
                "continuous     {}, {} impacts resolved within a sub-step; {} asleep at the end",
                if s.ccd { "on" } else { "off" },
                s.ccd_impacts,
                s.asleep_at_end
            );
        }
        outln!(
            "events         {} (body-body {}, body-wall {})",
            self.events,
            self.body_body,
            self.body_wall
        );
        outln!(
            "wall time      {:.3} s ({:.0} events/s)",
            self.wall_seconds,
            self.events_per_second
        );
        if self.energy_drift_absolute {
            outln!(
                "energy drift   {:.3e} (absolute: the energy at the start is 0)",
                self.energy_drift
            );
        } else {
            outln!("energy drift   {:.3e} (relative)", self.energy_drift);
        }
        outln!(
            "momentum drift {:.3e} linear, {:.3e} angular (relative; walls change both)",
            self.momentum_drift,
            self.angular_momentum_drift
        );
        outln!(
            "missed         {} collisions (body-body {}, body-wall {})",
            self.missed_collisions,
            self.missed_body_body,
            self.missed_body_wall
        );
        match (&self.trace, &self.trace_hash) {
            (Some(t), Some(h)) if self.stepped.is_some() => {
                outln!("trace          {t} (contacts and sampled states, hash {h})")
            }
            (Some(t), Some(h)) => {
                outln!("trace          {t} ({} records, hash {h})", self.events)
            }
            _ => outln!("trace          not written"),
        }
    }
}

/// `n` and the noun, singular for 1.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Options of one simulation run from the command line.
pub struct RunSpec<'a> {
    /// The scene; its bodies are dropped once the world holds them.
    pub scene: Scene,
    /// Number of bodies.
    pub bodies: usize,
    /// Seconds spent loading the scene.
    pub load_seconds: f64,
    /// Why `auto` chose the broad phase, when it did.
    pub auto: Option<String>,
    pub scene_name: String,
    pub stepper: Stepper,
    pub opts: BroadPhaseOptions,
    pub trace: Option<&'a Path>,
    pub progress: bool,
    /// Sampling interval and output of the observables.
    pub observe: Option<(f64, PathBuf)>,
    /// Checkpoint file and interval.
    pub checkpoint: Option<(PathBuf, f64)>,
    /// A checkpoint to continue from.
    pub resume: Option<&'a kairos::checkpoint::Checkpoint>,
    /// Most collisions this run may process (`--max-events`).
    pub max_events: u64,
    /// Most fixed steps of a discrete run (`--max-steps`).
    pub max_steps: u64,
}

impl RunSpec<'_> {
    /// Replaces `--broad-phase auto` by the broad phase it picks for the scene (while the
    /// scene still holds its bodies), remembering why.
    pub(super) fn resolve_auto(mut self) -> Self {
        if let Stepper::Auto = self.stepper {
            let choice =
                kairos::broad_phase::BroadPhaseKind::auto(self.scene.dim, self.scene.packing());
            self.stepper = Stepper::Event(choice.kind);
            self.auto = Some(choice.reason);
        }
        self
    }
}

/// Why a run stopped before its end time.
enum Stop {
    Signal(i32),
    TooManyEvents,
}

/// Simulates a scene of either dimension.
pub fn simulate(mut spec: RunSpec) -> Result<Summary> {
    let spec = &mut spec;
    match spec.scene.dim {
        2 => simulate_dim::<DVec2>(spec),
        3 => simulate_dim::<DVec3>(spec),
        d => anyhow::bail!("unsupported dimension {d}"),
    }
}

fn simulate_dim<V: Vector>(spec: &mut RunSpec) -> Result<Summary> {
    let kind = match spec.stepper {
        Stepper::Event(kind) => kind,
        Stepper::Auto => unreachable!("resolved by RunSpec::new"),
        Stepper::Discrete(kind, opts) => return simulate_discrete::<V>(spec, kind, opts),
        Stepper::Stepped(..) => {
            unreachable!("run::simulate_on_stepper sends stepped runs to stepped_run")
        }
    };
    // The trace says when `auto` chose.
    let label = match &spec.auto {
        Some(_) => format!("{} (auto)", kind.name()),
        None => kind.name().to_string(),
    };
    let broad = kind.build::<V>(&spec.opts);
    let building = Instant::now();
    let world = output::while_slow("building the world", spec.progress, || match spec.resume {
        Some(ck) => ck.world::<V>(),
        None => spec.scene.world::<V>(),
    })
    .map_err(|e| anyhow::anyhow!("{}: {e}", spec.scene_name))?;
    let build_seconds = building.elapsed().as_secs_f64();
    let mut sim = match spec.resume {
        Some(ck) => Simulation::restore(world, broad, ck.state),
        None => Simulation::new(world, broad, spec.scene.duration),
    };
    let mut writer = match (spec.trace, spec.resume) {
        (None, _) => None,
        (Some(p), Some(ck)) => Some(TraceWriter::create(p, &ck.trace_header(label))),
        (Some(p), None) => Some(TraceWriter::create_for_scene(p, &spec.scene, label)),
    }
    .transpose()
    .with_context(|| format!("{}: cannot create trace", show(spec.trace.unwrap())))?;
    // The trace replay's state of every body, saved in checkpoints so that a resumed run's
    // trace replays to the uninterrupted run's states bit for bit.
    let mut replay = match (&spec.checkpoint, spec.resume) {
        (None, _) => None,
        (Some(_), Some(ck)) => Some(ck.replay()),
        (Some(_), None) => Some(Replay::for_scene(&spec.scene)),
    };
    // The world holds the bodies now: the scene's copy goes (64 bytes a body). A rigid scene
    // keeps it: its checkpoints save the scene with its bodies' tables (their shapes).
    if !spec.scene.has_rigid_bodies() {
        spec.scene.bodies = Vec::new();
    }
    let spec: &RunSpec = spec;
    let scene = &spec.scene;
    let counts_at_start = sim.counts();
    let momenta_at_start = Momenta::of(sim.world());
    let every = spec.checkpoint.as_ref().map_or(f64::INFINITY, |c| c.1);
    let mut next_checkpoint = ((sim.now() / every).floor() + 1.0) * every;
    let mut wrote_checkpoint = false;
    let bar = progress_bar(spec.progress);
    let mut observer = match &spec.observe {
        Some((dt, path)) => {
            let volume: f64 = scene.periodic.as_ref().map_or(0.0, |l| l.iter().product());
            let mut out = output::create(path)?;
            writeln!(
                out,
                "time,pressure,compressibility,collision_rate,kinetic_energy,max_overlap"
            )
            .with_context(|| format!("{}: write failed", show(path)))?;
            Some((kairos::observe::Observer::new(&sim, *dt, volume), out, path))
        }
        None => None,
    };
    let mut samples = Vec::new();
    let start = Instant::now();
    let mut io_error = None;
    let mut stop = None;
    crate::interrupt::polling();
    sim.set_stop(crate::interrupt::stop_flag());
    let all_events = |c: kairos::sim::EventCounts| c.total() + c.box_crossings;
    // Events that are neither recorded nor counted: box crossings and resumed predictions.
    let unrecorded = |e: &kairos::event::Event| {
        matches!(
            e.kind,
            kairos::event::EventKind::BoxCrossing | kairos::event::EventKind::Resume
        )
    };
    while let Some(event) = sim.process_next() {
        if let Some(sig) = crate::interrupt::requested() {
            stop = Some(Stop::Signal(sig));
        } else if all_events(sim.counts()) - all_events(counts_at_start) > spec.max_events {
            stop = Some(Stop::TooManyEvents);
        }
        if unrecorded(&event) && stop.is_none() {
            continue;
        }
        if stop.is_some() {
            // The event just processed is not in the trace, but the simulation is past it:
            // a checkpoint saves it, with the replay state it leads to.
            // (Box crossings and resumes are not recorded, so they never change the replay's
            // state.)
            if let (Some(r), false) = (replay.as_mut(), unrecorded(&event)) {
                r.apply(&Record::from_event(&event, sim.world(), sim.lookahead()));
            }
            break;
        }
        if let Some((o, out, path)) = observer.as_mut() {
            o.after_step(&sim, Some(&event), &mut samples);
            write_samples(out, &mut samples, path)?;
        }
        let record = Record::from_event(&event, sim.world(), sim.lookahead());
        if let Some(r) = replay.as_mut() {
            r.apply(&record);
        }
        if event.time >= next_checkpoint {
            if let (Some((path, _)), Some(r)) = (&spec.checkpoint, &replay) {
                kairos::checkpoint::write(path, scene, &sim, r)
                    .with_context(|| format!("{}: writing the checkpoint failed", show(path)))?;
                wrote_checkpoint = true;
            }
            next_checkpoint = ((event.time / every).floor() + 1.0) * every;
        }
        if let Some(w) = writer.as_mut() {
            if let Err(e) = w.write(&record) {
                io_error = Some(e);
                break;
            }
        }
        if let Some(bar) = &bar {
            let n = sim.counts().total();
            if n % 4096 == 0 {
                bar.set_position((1000.0 * event.time / scene.duration) as u64);
                bar.set_message(format!("{n} events"));
            }
        }
    }
    if let Some(e) = io_error {
        let p = spec.trace.map(show).unwrap_or_default();
        return Err(e).with_context(|| format!("{p}: writing the trace failed"));
    }
    if stop.is_none() {
        // The broad phase stops its own work between events at a signal (the stop flag):
        // then no event came, and the run is not over.
        stop = crate::interrupt::requested().map(Stop::Signal);
    }
    if let Some(stop) = stop {
        if let Some(bar) = &bar {
            bar.finish_and_clear();
        }
        let kept = match (&spec.checkpoint, &replay) {
            (Some((path, _)), Some(r)) => {
                kairos::checkpoint::write(path, scene, &sim, r)
                    .with_context(|| format!("{}: writing the checkpoint failed", show(path)))?;
                format!(
                    "a checkpoint at t = {:?} is in {}: continue with `kairos run --resume {}`",
                    sim.now(),
                    show(path),
                    show(path)
                )
            }
            _ => "no output written (give --checkpoint F --every DT to keep a restartable state)"
                .to_string(),
        };
        let done = sim.counts().total() - counts_at_start.total();
        let at = format!(
            "t = {:?} of {} after {done} collisions",
            sim.now(),
            scene.duration
        );
        return Err(match stop {
            Stop::Signal(signal) => crate::interrupt::Interrupted {
                signal,
                message: format!("stopped at {at}; {kept}"),
            }
            .into(),
            Stop::TooManyEvents => anyhow::anyhow!(
                "{}: stopped at {at}: more than --max-events {} events (raise it with \
                 --max-events N if this run is meant to be that long; a trace takes 128 bytes \
                 a collision); {kept}",
                spec.scene_name,
                spec.max_events
            ),
        });
    }
    if let Some((mut o, mut out, path)) = observer {
        o.after_step(&sim, None, &mut samples);
        write_samples(&mut out, &mut samples, path)?;
        output::commit(out, path)?;
    }
    sim.finish();
    // A run that passed a multiple of --every with no event after it, and so wrote no
    // checkpoint (a run without events), saves its end state: the file exists after every run.
    if !wrote_checkpoint && sim.now() >= next_checkpoint {
        if let (Some((path, _)), Some(r)) = (&spec.checkpoint, &replay) {
            kairos::checkpoint::write(path, scene, &sim, r)
                .with_context(|| format!("{}: writing the checkpoint failed", show(path)))?;
        }
    }
    let wall_seconds = start.elapsed().as_secs_f64();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let trace_hash = finish_trace(spec, writer, spec.scene.duration)?;
    let total = sim.counts();
    let c = kairos::sim::EventCounts {
        body_body: total.body_body - counts_at_start.body_body,
        body_wall: total.body_wall - counts_at_start.body_wall,
        box_crossings: total.box_crossings - counts_at_start.box_crossings,
    };
    Ok(Summary {
        build_seconds,
        ..summary(
            spec,
            "event",
            kind.name(),
            None,
            c,
            Misses::default(),
            wall_seconds,
            sim.energy_drift(),
            momenta_at_start.drifts(&Momenta::of(sim.world())),
            trace_hash,
        )
    })
}

/// Writes the observables sampled so far as CSV rows, and forgets them.
fn write_samples(
    out: &mut impl Write,
    samples: &mut Vec<kairos::observe::Sample>,
    path: &Path,
) -> Result<()> {
    for s in samples.drain(..) {
        writeln!(
            out,
            "{:?},{:?},{:?},{:?},{:?},{:?}",
            s.time,
            s.pressure,
            s.compressibility,
            s.collision_rate,
            s.kinetic_energy,
            s.max_overlap
        )
        .with_context(|| format!("{}: write failed", show(path)))?;
    }
    Ok(())
}

/// Completes the trace (footer with end time `end`, rename into place) and returns its hash
/// as hex.
pub(super) fn finish_trace(
    spec: &RunSpec,
    writer: Option<TraceWriter>,
    end: f64,
) -> Result<Option<String>> {
    match (writer, spec.trace) {
        (Some(w), Some(p)) => {
            let h = w
                .finish(end)
                .with_context(|| format!("{}: writing the trace failed", show(p)))?;
            Ok(Some(format!("{h:016x}")))
        }
        _ => Ok(None),
    }
}

/// The progress bar of a run, on a terminal only.
pub(super) fn progress_bar(enabled: bool) -> Option<ProgressBar> {
    if !enabled {
        return None;
    }
    crate::output::progress_bar(
        1000,
        "{spinner} simulated {percent:>3}% [{bar:30}] {msg} ({elapsed})",
    )
}

/// A discrete-time run: the same outputs, with the contacts resolved at each step as events.
fn simulate_discrete<V: Vector>(
    spec: &RunSpec,
    kind: OverlapKind,
    opts: DiscreteOptions,
) -> Result<Summary> {
    let scene = &spec.scene;
    let steps = (scene.duration / opts.dt).ceil() * opts.substeps as f64;
    anyhow::ensure!(
        steps <= spec.max_steps as f64,
        "{}: --dt {} over a duration of {} makes {steps:.3e} steps (with {} substeps each), \
         more than --max-steps {}: use a larger --dt, or raise --max-steps if this run is meant \
         to be that long",
        spec.scene_name,
        kairos::num::Num(opts.dt),
        kairos::num::Num(scene.duration),
        opts.substeps,
        spec.max_steps
    );
    let building = Instant::now();
    let world = scene
        .world::<V>()
        .map_err(|e| anyhow::anyhow!("{}: {e}", spec.scene_name))?;
    let mut sim = DiscreteSim::new(world, kind, opts, scene.duration)
        .map_err(|e| anyhow::anyhow!("{}: {e}", spec.scene_name))?;
    let build_seconds = building.elapsed().as_secs_f64();
    let mut writer = spec
        .trace
        .map(|p| {
            TraceWriter::create_for_scene(p, scene, discrete_label(kind, &opts))
                .with_context(|| format!("{}: cannot create trace", show(p)))
        })
        .transpose()?;
    let momenta_at_start = Momenta::of(sim.world());
    let bar = progress_bar(spec.progress);
    let start = Instant::now();
    let mut io_error = None;
    let mut last_tick = 0;
    crate::interrupt::polling();
    loop {
        let more = sim.step(|e, w| {
            if io_error.is_none() {
                if let Some(writer) = writer.as_mut() {
                    if let Err(err) = writer.write(&Record::from_event(e, w, 0.0)) {
                        io_error = Some(err);
                    }
                }
            }
        });
        if io_error.is_some() || !more {
            break;
        }
        if let Some(signal) = crate::interrupt::requested() {
            return Err(crate::interrupt::Interrupted {
                signal,
                message: format!(
                    "stopped at t = {} of {}; no output written",
                    sim.now(),
                    scene.duration
                ),
            }
            .into());
        }
        anyhow::ensure!(
            sim.counts().total() <= spec.max_events,
            "{}: stopped at t = {} of {}: more than --max-events {} contacts (raise it with \
             --max-events N); no output written",
            spec.scene_name,
            sim.now(),
            scene.duration,
            spec.max_events
        );
        if let Some(bar) = &bar {
            if sim.steps() - last_tick >= 64 {
                last_tick = sim.steps();
                bar.set_position((1000.0 * sim.now() / scene.duration) as u64);
                bar.set_message(format!("{} contacts", sim.counts().total()));
            }
        }
    }
    if let Some(e) = io_error {
        let p = spec.trace.map(show).unwrap_or_default();
        return Err(e).with_context(|| format!("{p}: writing the trace failed"));
    }
    let wall_seconds = start.elapsed().as_secs_f64();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let trace_hash = finish_trace(spec, writer, spec.scene.duration)?;
    Ok(Summary {
        build_seconds,
        ..summary(
            spec,
            "discrete",
            kind.name(),
            Some(opts.dt),
            sim.counts(),
            sim.misses(),
            wall_seconds,
            sim.energy_drift(),
            momenta_at_start.drifts(&Momenta::of(sim.world())),
            trace_hash,
        )
    })
}

/// The linear and angular momentum of a world's bodies (about the origin; with unwrapped
/// positions in a periodic box, and the rigid bodies' spins), with the sums of the bodies'
/// magnitudes that scale their drifts. Both steppers' summaries use it.
pub(super) struct Momenta<V: Vector> {
    linear: V,
    angular: V::Angular,
    linear_scale: f64,
    angular_scale: f64,
}

impl<V: Vector> Default for Momenta<V> {
    fn default() -> Self {
        Self {
            linear: V::ZERO,
            angular: V::Angular::default(),
            linear_scale: 0.0,
            angular_scale: 0.0,
        }
    }
}

impl<V: Vector> Momenta<V> {
    /// The event-driven world's.
    fn of(w: &kairos::world::World<V>) -> Self {
        let mut m = Self::default();
        for (i, b) in w.bodies().iter().enumerate() {
            let spin = w.rigid().get(i).map(|r| r.angular_momentum());
            m.add(w.unwrapped_position(i as u32), b.vel * b.mass(), spin);
        }
        m
    }

    /// Adds a body at `position` with momentum `p` and, for a rigid body, the angular
    /// momentum `spin` about its centre.
    pub(super) fn add(&mut self, position: V, p: V, spin: Option<V::Angular>) {
        self.linear += p;
        self.linear_scale += p.length();
        let orbit = V::cross_angular(position, p);
        self.angular = V::angular_add_scaled(self.angular, orbit, 1.0);
        self.angular_scale += V::angular_speed(orbit);
        if let Some(spin) = spin {
            self.angular = V::angular_add_scaled(self.angular, spin, 1.0);
            self.angular_scale += V::angular_speed(spin);
        }
    }

    /// The relative drifts (linear, angular) from `self` (the start) to `end`, over the
    /// larger of the sums of the bodies' magnitudes at the start and at the end (a scene that
    /// starts at rest and falls has none at the start).
    pub(super) fn drifts(&self, end: &Self) -> (f64, f64) {
        const TINY: f64 = 1e-300;
        let linear =
            (end.linear - self.linear).length() / self.linear_scale.max(end.linear_scale).max(TINY);
        let angular = V::angular_speed(V::angular_add_scaled(end.angular, self.angular, -1.0))
            / self.angular_scale.max(end.angular_scale).max(TINY);
        (linear, angular)
    }
}

/// The summary of a run of either stepper (`dt` is the step of a discrete run;
/// `momentum_drifts` linear and angular).
#[allow(clippy::too_many_arguments)]
pub(super) fn summary(
    spec: &RunSpec,
    stepper: &str,
    broad_phase: &str,
    dt: Option<f64>,
    c: kairos::sim::EventCounts,
    m: Misses,
    wall_seconds: f64,
    energy_drift: f64,
    momentum_drifts: (f64, f64),
    trace_hash: Option<String>,
) -> Summary {
    let scene = &spec.scene;
    Summary {
        scene: spec.scene_name.clone(),
        dim: scene.dim,
        bodies: spec.bodies,
        walls: scene.walls.iter().map(|w| w.wall_count(scene.dim)).sum(),
        duration: scene.duration,
        stepper: stepper.into(),
        broad_phase: broad_phase.to_string(),
        broad_phase_auto: spec.auto.clone(),
        dt,
        events: c.total(),
        body_body: c.body_body,
        body_wall: c.body_wall,
        wall_seconds,
        load_seconds: spec.load_seconds,
        build_seconds: 0.0,
        events_per_second: if wall_seconds > 0.0 {
            c.total() as f64 / wall_seconds
        } else {
            0.0
        },
        energy_drift,
        energy_drift_absolute: false,
        momentum_drift: momentum_drifts.0,
        angular_momentum_drift: momentum_drifts.1,
        missed_collisions: m.total(),
        missed_body_body: m.body_body,
        missed_body_wall: m.body_wall,
        trace: spec.trace.map(show),
        trace_hash,
        stepped: None,
    }
}

/// The broad-phase name a discrete run writes to its trace header.
pub fn discrete_label(kind: OverlapKind, opts: &DiscreteOptions) -> String {
    format!(
        "discrete {} dt={} substeps={}{}",
        kind.name(),
        opts.dt,
        opts.substeps,
        if opts.toi_rewind { " toi-rewind" } else { "" }
    )
}

pub(super) fn report(summary: &Summary, quiet: bool, json: Option<&Path>) -> Result<()> {
    if !quiet {
        summary.print();
    }
    if let Some(p) = json {
        write_text(p, &(serde_json::to_string_pretty(summary)? + "\n"))?;
    }
    Ok(())
}
