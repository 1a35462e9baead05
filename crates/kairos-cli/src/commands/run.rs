//! `kairos run`, `kairos demo` and `kairos generate`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::ProgressBar;
use kairos::broad_phase::BroadPhaseOptions;
use kairos::discrete::{DiscreteOptions, DiscreteSim, Misses};
use kairos::generate::{
    billiard, boxes, bullet, drop, gas, polygons, BilliardParams, BulletParams, DropParams,
    GasParams, RigidGasParams,
};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::overlap::OverlapKind;
use kairos::scene::Scene;
use kairos::sim::Simulation;
use kairos::trace::{Record, Replay, TraceWriter};
use serde::Serialize;

use super::stepper::{BroadPhaseArgs, Stepper};
use crate::output::{self, write_text, Files};
use crate::show;

/// Arguments of `kairos run`.
#[derive(Args)]
pub struct RunArgs {
    /// Scene file (TOML, see docs/scene-format.md); not with --resume.
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    pub scene: Option<PathBuf>,
    /// Write a restartable checkpoint to this file (atomically, replacing the previous one)
    /// every --every of simulated time: at the first event at or after each multiple (a run
    /// with no event after any multiple saves its end state instead).
    #[arg(long, requires = "every")]
    pub checkpoint: Option<PathBuf>,
    /// Checkpoint interval of simulated time.
    #[arg(long, value_name = "DT", requires = "checkpoint")]
    pub every: Option<f64>,
    /// Continue the run saved in this checkpoint: the events are bit-identical to those of the
    /// uninterrupted run. The trace holds the events after the checkpoint.
    #[arg(long, value_name = "CHECKPOINT")]
    pub resume: Option<PathBuf>,
    /// Trace to write (default: the scene's name with extension .ktrace, in this directory).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Do not write a trace.
    #[arg(long, conflicts_with = "output")]
    pub no_trace: bool,
    /// No progress bar and no summary on the terminal.
    #[arg(short, long)]
    pub quiet: bool,
    /// Also write the summary as JSON to this file.
    #[arg(long)]
    pub summary_json: Option<PathBuf>,
    /// Sample observables (pressure, collision rate, kinetic energy, maximum overlap) every DT
    /// of simulated time (periodic boxes).
    #[arg(long, value_name = "DT")]
    pub observe: Option<f64>,
    /// Where the observables go (default: the scene's name with extension .obs.csv).
    #[arg(long, requires = "observe")]
    pub observables: Option<PathBuf>,
    #[command(flatten)]
    pub broad: BroadPhaseArgs,
}

/// Arguments of `kairos demo`.
#[derive(Args)]
pub struct DemoArgs {
    /// Number of balls.
    #[arg(long, default_value_t = 300)]
    pub n: usize,
    /// Random seed of the scene.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Trace to write.
    #[arg(short, long, default_value = "demo.ktrace")]
    pub output: PathBuf,
    /// No progress bar and no summary on the terminal.
    #[arg(short, long)]
    pub quiet: bool,
    /// Also write the summary as JSON to this file.
    #[arg(long)]
    pub summary_json: Option<PathBuf>,
    #[command(flatten)]
    pub broad: BroadPhaseArgs,
}

/// Parameters of the billiard scene, shared by `generate billiard` and `bench thesis`.
#[derive(Args, Clone, Copy, Debug)]
pub struct TableArgs {
    /// Dimension: 2 (a table of four walls) or 3 (a cube room).
    #[arg(long, default_value_t = 2)]
    pub dim: usize,
    /// Fraction of the table covered by balls.
    #[arg(long, default_value_t = BilliardParams::default().packing)]
    pub packing: f64,
    /// Smallest radius.
    #[arg(long, default_value_t = BilliardParams::default().radius_min)]
    pub radius_min: f64,
    /// Largest radius.
    #[arg(long, default_value_t = BilliardParams::default().radius_max)]
    pub radius_max: f64,
    /// Width over height of the table, from 1e-3 to 1e3.
    #[arg(long, default_value_t = BilliardParams::default().aspect)]
    pub aspect: f64,
    /// Simulated time in seconds (at most 1e4 in a benchmark).
    #[arg(long, default_value_t = BilliardParams::default().duration)]
    pub duration: f64,
}

impl TableArgs {
    /// The generator's parameters for `n` balls and `seed`.
    pub fn params(&self, n: usize, seed: u64) -> BilliardParams {
        BilliardParams {
            dim: self.dim,
            n,
            seed,
            packing: self.packing,
            radius_min: self.radius_min,
            radius_max: self.radius_max,
            aspect: self.aspect,
            duration: self.duration,
            restitution: 1.0,
        }
    }
}

/// Where a generated scene keeps its bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BodiesIn {
    /// In the TOML file (`[[bodies]]` tables) up to 10,000 bodies, else in an extended-XYZ
    /// file beside it.
    Auto,
    /// In the TOML file.
    Toml,
    /// In an extended-XYZ file beside the scene (`NAME.xyz` for `NAME.toml`).
    Xyz,
}

/// Above this many bodies, `--bodies-in auto` writes them to an extended-XYZ file.
pub const XYZ_ABOVE: usize = 10_000;

/// What every generator writes, and how.
#[derive(Args)]
pub struct GeneratedScene {
    /// Coefficient of restitution in [0, 1] (1 = elastic). Below 1, the scene also states
    /// its contact duration (the TC model, see docs/scene-format.md).
    #[arg(long, default_value_t = 1.0)]
    pub restitution: f64,
    /// Scene file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Where the bodies go: the TOML file, or an extended-XYZ file beside it (compact and fast
    /// to load; read by OVITO and ASE too).
    #[arg(long, value_enum, default_value_t = BodiesIn::Auto)]
    pub bodies_in: BodiesIn,
    /// Replace an existing bodies file beside the output (`NAME.xyz`) that the scene being
    /// replaced does not name (without it, such a file is refused: it may be another's).
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `kairos generate billiard`.
#[derive(Args)]
pub struct BilliardArgs {
    /// Number of balls.
    #[arg(long)]
    pub n: usize,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub out: GeneratedScene,
    #[command(flatten)]
    pub table: TableArgs,
}

/// Arguments of `kairos generate gas`.
#[derive(Args)]
pub struct GasArgs {
    /// Dimension: 2 (discs) or 3 (spheres).
    #[arg(long, default_value_t = 3)]
    pub dim: usize,
    /// Number of balls.
    #[arg(long)]
    pub n: usize,
    /// Fraction of the box covered by balls (up to 0.5 in 3D and 0.7 in 2D, and beyond).
    #[arg(long)]
    pub packing: f64,
    /// Relative spread of the diameters (uniform in [1 - P, 1 + P]).
    #[arg(long, default_value_t = 0.0)]
    pub polydispersity: f64,
    /// Mass of every ball.
    #[arg(long, default_value_t = 1.0)]
    pub mass: f64,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Simulated time.
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    #[command(flatten)]
    pub out: GeneratedScene,
}

impl GasArgs {
    /// The generator's parameters.
    pub fn params(&self) -> GasParams {
        GasParams {
            dim: self.dim,
            n: self.n,
            packing: self.packing,
            polydispersity: self.polydispersity,
            mass: self.mass,
            seed: self.seed,
            duration: self.duration,
            restitution: self.out.restitution,
        }
    }
}

/// Arguments of `kairos generate polygons` and `kairos generate boxes`.
#[derive(Args)]
pub struct RigidGasArgs {
    /// Number of bodies.
    #[arg(long)]
    pub n: usize,
    /// Random seed.
    #[arg(long, default_value_t = RigidGasParams::default().seed)]
    pub seed: u64,
    /// Fraction of the room covered by the bodies' bounding discs (2D, at most 0.6) or balls
    /// (3D, at most 0.4), each of radius 1.
    #[arg(long, default_value_t = RigidGasParams::default().packing)]
    pub packing: f64,
    /// Velocity components uniform in [-speed, speed].
    #[arg(long, default_value_t = RigidGasParams::default().speed)]
    pub speed: f64,
    /// Largest angular speed (radians per unit time).
    #[arg(long, default_value_t = RigidGasParams::default().spin)]
    pub spin: f64,
    /// Simulated time.
    #[arg(long, default_value_t = RigidGasParams::default().duration)]
    pub duration: f64,
    /// Fraction of the bodies that are concave star polygons (2D `polygons` only; each a
    /// compound of convex pieces).
    #[arg(long, default_value_t = RigidGasParams::default().concave)]
    pub concave: f64,
    #[command(flatten)]
    pub out: GeneratedScene,
}

impl RigidGasArgs {
    /// The generator's parameters.
    pub fn params(&self) -> RigidGasParams {
        RigidGasParams {
            n: self.n,
            seed: self.seed,
            packing: self.packing,
            speed: self.speed,
            spin: self.spin,
            duration: self.duration,
            restitution: self.out.restitution,
            concave: self.concave,
        }
    }
}

/// Arguments of `kairos generate bullet`.
#[derive(Args)]
pub struct BulletArgs {
    /// Speed of the bullets.
    #[arg(long, default_value_t = BulletParams::default().speed)]
    pub speed: f64,
    /// Simulated time.
    #[arg(long, default_value_t = BulletParams::default().duration)]
    pub duration: f64,
    #[command(flatten)]
    pub out: GeneratedScene,
}

/// Arguments of `kairos generate drop`.
#[derive(Args)]
pub struct DropArgs {
    /// 2 or 3.
    #[arg(long, default_value_t = DropParams::default().dim)]
    pub dim: usize,
    /// Number of balls.
    #[arg(long, default_value_t = DropParams::default().balls)]
    pub balls: usize,
    /// Number of boxes.
    #[arg(long, default_value_t = DropParams::default().boxes)]
    pub boxes: usize,
    /// Random seed.
    #[arg(long, default_value_t = DropParams::default().seed)]
    pub seed: u64,
    /// Strength of gravity (it points down: -y in 2D, -z in 3D).
    #[arg(long, default_value_t = DropParams::default().gravity)]
    pub gravity: f64,
    /// Coefficient of restitution in [0, 1].
    #[arg(long, default_value_t = DropParams::default().restitution)]
    pub restitution: f64,
    /// Simulated time.
    #[arg(long, default_value_t = DropParams::default().duration)]
    pub duration: f64,
    /// Scene file to write.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// What a run reports.
#[derive(Serialize, Debug, Clone)]
pub struct Summary {
    pub scene: String,
    pub dim: usize,
    pub bodies: usize,
    /// Walls as the simulation counts them (wall ids in events): a `box` item is `2 * dim`.
    pub walls: usize,
    pub duration: f64,
    /// `event` or `discrete`.
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
    pub energy_drift: f64,
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
}

impl Summary {
    fn print(&self) {
        println!(
            "scene          {} ({}D, {}, {}, {} s)",
            self.scene,
            self.dim,
            count(self.bodies, "body", "bodies"),
            count(self.walls, "wall", "walls"),
            self.duration
        );
        match self.dt {
            None => match &self.broad_phase_auto {
                Some(why) => println!(
                    "broad phase    {} (event-driven; auto: {why})",
                    self.broad_phase
                ),
                None => println!("broad phase    {} (event-driven)", self.broad_phase),
            },
            Some(dt) => println!(
                "stepper        discrete, dt = {dt}, broad phase {}",
                self.broad_phase
            ),
        }
        println!(
            "events         {} (body-body {}, body-wall {})",
            self.events, self.body_body, self.body_wall
        );
        println!(
            "wall time      {:.3} s ({:.0} events/s)",
            self.wall_seconds, self.events_per_second
        );
        println!("energy drift   {:.3e} (relative)", self.energy_drift);
        println!(
            "momentum drift {:.3e} linear, {:.3e} angular (relative; walls change both)",
            self.momentum_drift, self.angular_momentum_drift
        );
        println!(
            "missed         {} collisions (body-body {}, body-wall {})",
            self.missed_collisions, self.missed_body_body, self.missed_body_wall
        );
        match (&self.trace, &self.trace_hash) {
            (Some(t), Some(h)) => {
                println!("trace          {t} ({} records, hash {h})", self.events)
            }
            _ => println!("trace          not written"),
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

/// Most rows `--observe` may write (each a CSV line of about 130 bytes).
const MAX_OBSERVE_ROWS: f64 = 1e7;

impl RunSpec<'_> {
    /// Replaces `--broad-phase auto` by the broad phase it picks for the scene (while the
    /// scene still holds its bodies), remembering why.
    fn resolve_auto(mut self) -> Self {
        if let Stepper::Auto = self.stepper {
            let choice = kairos::broad_phase::BroadPhaseKind::auto(&self.scene);
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
    });
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
    let trace_hash = finish_trace(spec, writer)?;
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

/// Completes the trace (footer, rename into place) and returns its hash as hex.
fn finish_trace(spec: &RunSpec, writer: Option<TraceWriter>) -> Result<Option<String>> {
    match (writer, spec.trace) {
        (Some(w), Some(p)) => {
            let h = w
                .finish(spec.scene.duration)
                .with_context(|| format!("{}: writing the trace failed", show(p)))?;
            Ok(Some(format!("{h:016x}")))
        }
        _ => Ok(None),
    }
}

/// The progress bar of a run, on a terminal only.
fn progress_bar(enabled: bool) -> Option<ProgressBar> {
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
    let mut sim = DiscreteSim::new(scene.world::<V>(), kind, opts, scene.duration)
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
    let trace_hash = finish_trace(spec, writer)?;
    Ok(Summary {
        build_seconds,
        ..summary(
            spec,
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

/// The linear and angular momentum of a world (about the origin, with unwrapped positions in
/// a periodic box and the rigid bodies' spins), with the sums of the bodies' magnitudes that
/// scale their drifts.
struct Momenta<V: Vector> {
    linear: V,
    angular: V::Angular,
    linear_scale: f64,
    angular_scale: f64,
}

impl<V: Vector> Momenta<V> {
    fn of(w: &kairos::world::World<V>) -> Self {
        let mut m = Momenta {
            linear: V::ZERO,
            angular: V::Angular::default(),
            linear_scale: 0.0,
            angular_scale: 0.0,
        };
        for (i, b) in w.bodies.iter().enumerate() {
            let p = b.vel * b.mass();
            m.linear += p;
            m.linear_scale += p.length();
            let orbit = V::cross_angular(w.unwrapped_position(i as u32), p);
            m.angular = V::angular_add_scaled(m.angular, orbit, 1.0);
            m.angular_scale += V::angular_speed(orbit);
            if let Some(r) = w.rigid.get(i) {
                let spin = r.angular_momentum();
                m.angular = V::angular_add_scaled(m.angular, spin, 1.0);
                m.angular_scale += V::angular_speed(spin);
            }
        }
        m
    }

    /// The relative drifts (linear, angular) from `self` (the start) to `end`.
    fn drifts(&self, end: &Self) -> (f64, f64) {
        const TINY: f64 = 1e-300;
        let linear = (end.linear - self.linear).length()
            / self.linear.length().max(self.linear_scale).max(TINY);
        let angular = V::angular_speed(V::angular_add_scaled(end.angular, self.angular, -1.0))
            / V::angular_speed(self.angular)
                .max(self.angular_scale)
                .max(TINY);
        (linear, angular)
    }
}

/// The summary of a run of either stepper (`dt` is the step of a discrete run;
/// `momentum_drifts` linear and angular).
#[allow(clippy::too_many_arguments)]
fn summary(
    spec: &RunSpec,
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
        stepper: if dt.is_some() { "discrete" } else { "event" }.into(),
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
        momentum_drift: momentum_drifts.0,
        angular_momentum_drift: momentum_drifts.1,
        missed_collisions: m.total(),
        missed_body_body: m.body_body,
        missed_body_wall: m.body_wall,
        trace: spec.trace.map(show),
        trace_hash,
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

/// Reads and validates a scene file (and the bodies file it names).
pub fn load_scene(path: &Path) -> Result<Scene> {
    Scene::load(path).map_err(|e| anyhow::anyhow!("{}: {e}", show(path)))
}

fn report(summary: &Summary, quiet: bool, json: Option<&Path>) -> Result<()> {
    if !quiet {
        summary.print();
    }
    if let Some(p) = json {
        write_text(p, &(serde_json::to_string_pretty(summary)? + "\n"))?;
    }
    Ok(())
}

pub fn run(a: RunArgs) -> Result<ExitCode> {
    let opts = a.broad.options()?;
    let stepper = a.broad.stepper()?;
    if matches!(stepper, Stepper::Discrete(..)) {
        anyhow::ensure!(
            a.resume.is_none() && a.checkpoint.is_none() && a.observe.is_none(),
            "--stepper discrete does not support --resume, --checkpoint or --observe"
        );
    }
    if let Some(dt) = a.every {
        anyhow::ensure!(
            dt > 0.0 && dt.is_finite(),
            "--every must be a positive interval, got {}",
            kairos::num::Num(dt)
        );
    }
    if let Some(dt) = a.observe {
        anyhow::ensure!(
            dt > 0.0 && dt.is_finite(),
            "--observe must be a positive interval, got {}",
            kairos::num::Num(dt)
        );
    }
    anyhow::ensure!(
        a.resume.is_none() || a.observe.is_none(),
        "--observe cannot be combined with --resume"
    );
    // The file named in messages and default output names: the scene, or the checkpoint.
    let source = a
        .scene
        .clone()
        .or(a.resume.clone())
        .expect("clap requires one");
    let trace = if a.no_trace {
        None
    } else {
        Some(
            a.output
                .clone()
                .unwrap_or_else(|| default_trace_path(&source)),
        )
    };
    let observables = a.observe.map(|_| {
        a.observables.clone().unwrap_or_else(|| {
            let stem = source
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or("run".into());
            PathBuf::from(format!("{stem}.obs.csv"))
        })
    });
    let input = if a.resume.is_some() {
        "--resume"
    } else {
        "the scene"
    };
    let loading = Instant::now();
    // A checkpoint is read before its outputs are checked: the mesh files its scene reads are
    // inputs too. A scene file's other inputs are found without reading them.
    let resume = match &a.resume {
        Some(p) => Some(
            output::while_slow("reading the checkpoint", !a.quiet, || {
                kairos::checkpoint::read(p)
            })
            .map_err(|e| anyhow::anyhow!("{}: {e}", show(p)))?,
        ),
        None => None,
    };
    let files = Files::new().input(input, &source);
    match &resume {
        Some(ck) => files.mesh_inputs(&ck.scene),
        None => files.scene_inputs(&source),
    }
    .output("--output", trace.as_deref())
    .output("--checkpoint", a.checkpoint.as_deref())
    .output("--observables", observables.as_deref())
    .output("--summary-json", a.summary_json.as_deref())
    .allow_same("--checkpoint", "--resume")
    .check()?;
    let mut scene = match &resume {
        Some(ck) => ck.scene.clone(),
        None => output::while_slow("loading the scene", !a.quiet, || load_scene(&source))?,
    };
    if scene.has_gravity() {
        refuse_for_gravity(stepper, &source)?;
    }
    // The contact duration of dissipative collisions, resolved while the bodies its default
    // depends on are here: traces and checkpoints then state it.
    if scene.restitution < 1.0 && scene.contact_duration.is_none() {
        scene.contact_duration = Some(scene.contact_duration());
    }
    if let Some(dt) = a.observe {
        anyhow::ensure!(
            scene.periodic.is_some(),
            "{}: --observe needs a periodic box (the pressure is the bulk virial pressure)",
            show(&source)
        );
        let rows = scene.duration / dt;
        anyhow::ensure!(
            rows <= MAX_OBSERVE_ROWS,
            "{}: --observe {} over a duration of {} makes {rows:.3e} rows, more than \
             {MAX_OBSERVE_ROWS:e}: sample less often",
            show(&source),
            kairos::num::Num(dt),
            kairos::num::Num(scene.duration)
        );
    }
    let spec = RunSpec {
        bodies: scene.bodies.len(),
        load_seconds: loading.elapsed().as_secs_f64(),
        scene,
        scene_name: show(&source),
        stepper,
        opts,
        trace: trace.as_deref(),
        progress: !a.quiet,
        observe: a.observe.zip(observables),
        checkpoint: a.checkpoint.clone().zip(a.every),
        resume: resume.as_ref(),
        max_events: a.broad.max_events,
        max_steps: a.broad.max_steps,
        auto: None,
    }
    .resolve_auto();
    let summary = simulate(spec)?;
    report(&summary, a.quiet, a.summary_json.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

/// Refuses, before any work or output, what a scene with gravity cannot do yet: the discrete
/// stepper (it moves bodies on straight lines). Checkpoints save which bodies sleep (version 4).
fn refuse_for_gravity(stepper: Stepper, source: &Path) -> Result<()> {
    anyhow::ensure!(
        !matches!(stepper, Stepper::Discrete(..)),
        "{}: sets `gravity`, which --stepper discrete does not support yet: use the \
         event-driven stepper (the default)",
        show(source)
    );
    Ok(())
}

pub fn demo(a: DemoArgs) -> Result<ExitCode> {
    let opts = a.broad.options()?;
    let stepper = a.broad.stepper()?;
    Files::new()
        .output("--output", Some(&a.output))
        .output("--summary-json", a.summary_json.as_deref())
        .check()?;
    let params = BilliardParams {
        n: a.n,
        seed: a.seed,
        ..Default::default()
    };
    let scene = billiard(&params).map_err(anyhow::Error::msg)?;
    let spec = RunSpec {
        bodies: scene.bodies.len(),
        load_seconds: 0.0,
        scene,
        scene_name: format!("built-in billiard (n = {}, seed = {})", a.n, a.seed),
        stepper,
        opts,
        trace: Some(&a.output),
        progress: !a.quiet,
        observe: None,
        checkpoint: None,
        resume: None,
        max_events: a.broad.max_events,
        max_steps: a.broad.max_steps,
        auto: None,
    }
    .resolve_auto();
    let summary = simulate(spec)?;
    report(&summary, a.quiet, a.summary_json.as_deref())?;
    if !a.quiet {
        println!(
            "\nnext: kairos export {} --events events.csv, kairos run SCENE.toml, kairos --help\n      (kairos is target/release/kairos after `cargo build --release`)",
            show(&a.output)
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn generate_billiard(a: BilliardArgs) -> Result<ExitCode> {
    let t = a.table;
    let params = BilliardParams {
        restitution: a.out.restitution,
        ..t.params(a.n, a.seed)
    };
    let header = format!(
        "# kairos generate billiard{} --n {} --seed {} --packing {} --radius-min {} --radius-max {} --aspect {} --duration {}{}\n",
        // The default dimension is left out, as before 3D existed.
        if t.dim == 2 { String::new() } else { format!(" --dim {}", t.dim) },
        a.n, a.seed, t.packing, t.radius_min, t.radius_max, t.aspect, t.duration,
        restitution_flag(a.out.restitution)
    );
    write_scene(&a.out, a.n, &header, || {
        billiard(&params).map_err(anyhow::Error::msg)
    })
}

pub fn generate_gas(a: GasArgs) -> Result<ExitCode> {
    let header = format!(
        "# kairos generate gas --dim {} --n {} --packing {} --polydispersity {} --mass {} --seed {} --duration {}{}\n",
        a.dim, a.n, a.packing, a.polydispersity, a.mass, a.seed, a.duration,
        restitution_flag(a.out.restitution)
    );
    write_scene(&a.out, a.n, &header, || {
        gas(&a.params()).map_err(anyhow::Error::msg)
    })
}

/// `kairos generate polygons` (2D) and `kairos generate boxes` (3D): rigid-body gases.
pub fn generate_rigid_gas(a: RigidGasArgs, dim: usize) -> Result<ExitCode> {
    let name = if dim == 2 { "polygons" } else { "boxes" };
    let header = format!(
        "# kairos generate {name} --n {} --seed {} --packing {} --speed {} --spin {} --duration {}{}\n",
        a.n, a.seed, a.packing, a.speed, a.spin, a.duration,
        restitution_flag(a.out.restitution)
    );
    let params = a.params();
    write_rigid_scene(&a.out, &header, || {
        if dim == 2 {
            polygons(&params)
        } else {
            boxes(&params)
        }
        .map_err(anyhow::Error::msg)
    })
}

/// `kairos generate drop`: balls and boxes dropped into a room under gravity.
pub fn generate_drop(a: DropArgs) -> Result<ExitCode> {
    let header = format!(
        "# kairos generate drop --dim {} --balls {} --boxes {} --seed {} --gravity {} \
         --restitution {} --duration {}\n",
        a.dim, a.balls, a.boxes, a.seed, a.gravity, a.restitution, a.duration
    );
    let params = DropParams {
        dim: a.dim,
        balls: a.balls,
        boxes: a.boxes,
        seed: a.seed,
        gravity: a.gravity,
        restitution: a.restitution,
        duration: a.duration,
    };
    let out = GeneratedScene {
        restitution: a.restitution,
        output: a.output,
        bodies_in: BodiesIn::Auto,
        force: false,
    };
    write_rigid_scene(&out, &header, || drop(&params).map_err(anyhow::Error::msg))
}

/// `kairos generate bullet`: fast spinning boxes fired at a rotating plank and at each other.
pub fn generate_bullet(a: BulletArgs) -> Result<ExitCode> {
    let header = format!(
        "# kairos generate bullet --speed {} --duration {}{}\n",
        a.speed,
        a.duration,
        restitution_flag(a.out.restitution)
    );
    let params = BulletParams {
        speed: a.speed,
        duration: a.duration,
        restitution: a.out.restitution,
    };
    write_rigid_scene(&a.out, &header, || {
        bullet(&params).map_err(anyhow::Error::msg)
    })
}

/// [`write_scene`] for a scene of rigid bodies, which stay in the TOML file: a bodies file
/// (extended XYZ) holds balls only.
fn write_rigid_scene(
    out: &GeneratedScene,
    header: &str,
    make: impl FnOnce() -> Result<Scene>,
) -> Result<ExitCode> {
    anyhow::ensure!(
        out.bodies_in != BodiesIn::Xyz,
        "{}: --bodies-in xyz cannot hold rigid bodies (the XYZ file has balls only): use \
         --bodies-in toml",
        show(&out.output)
    );
    // No body count makes `auto` choose a bodies file.
    write_scene(out, 0, header, make)
}

/// Writes a generated scene of `n` bodies to its output (after `header`, a comment), with its
/// bodies in the TOML or in an extended-XYZ file beside it; both outputs are checked before
/// generating.
fn write_scene(
    out: &GeneratedScene,
    n: usize,
    header: &str,
    make: impl FnOnce() -> Result<Scene>,
) -> Result<ExitCode> {
    let output = out.output.as_path();
    let xyz = match out.bodies_in {
        BodiesIn::Xyz => true,
        BodiesIn::Toml => false,
        BodiesIn::Auto => n > XYZ_ABOVE,
    };
    let xyz_path = xyz.then(|| output.with_extension("xyz"));
    Files::new()
        .output("--output", Some(output))
        .output("the bodies file", xyz_path.as_deref())
        .check()?;
    if let Some(p) = &xyz_path {
        keep_unrelated_bodies_file(output, p, out.force)?;
    }
    let scene = make()?;
    // What the reader would refuse is never written: the TOML is read back before it is.
    let refused = |e: String| {
        anyhow::anyhow!(
            "{}: the generated scene would be refused by `kairos run` ({e}): choose other \
             parameters; nothing written",
            show(output)
        )
    };
    match xyz_path {
        None => {
            let text = scene.to_toml();
            Scene::from_toml_str(&text).map_err(|e| refused(e.to_string()))?;
            write_text(output, &(header.to_string() + &text))?
        }
        Some(p) => {
            // The bodies, checked as the reader checks them, and the rest of the file read back.
            Scene::from_toml_str(&scene.to_toml_without_bodies())
                .and_then(|_| scene.validate())
                .map_err(|e| refused(e.to_string()))?;
            let mut f = output::create(&p)?;
            kairos::scene::xyz::write_bodies(&scene, &mut f)
                .with_context(|| format!("{}: write failed", show(&p)))?;
            output::commit(f, &p)?;
            let name = p
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            write_text(
                output,
                &(header.to_string() + &scene.to_toml_with_bodies_file(&name)),
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses to replace `xyz`, the bodies file a generated scene writes beside `output`, when it
/// exists and the scene file being replaced does not name it (a file of another scene, or not
/// a scene's at all), unless `force`.
fn keep_unrelated_bodies_file(output: &Path, xyz: &Path, force: bool) -> Result<()> {
    if force || std::fs::symlink_metadata(xyz).is_err() || kairos::atomic::is_sink(xyz) {
        return Ok(());
    }
    let named = Scene::files_named(output)
        .iter()
        .any(|(what, p)| what == "bodies_file" && kairos::atomic::same_file(p, xyz));
    anyhow::ensure!(
        named,
        "{}: exists and is not the bodies file of {} (which it would replace with the \
         generated bodies): give --force to replace it, or choose another output (the \
         bodies go to the output's name with extension .xyz)",
        show(xyz),
        show(output)
    );
    Ok(())
}

/// ` --restitution E` for the command line a generated file records (nothing when elastic, so
/// elastic files keep their first line).
fn restitution_flag(e: f64) -> String {
    if e == 1.0 {
        String::new()
    } else {
        format!(" --restitution {e}")
    }
}

/// Output path of a trace when none is given.
pub fn default_trace_path(scene: &std::path::Path) -> PathBuf {
    let stem = scene
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or("trace".into());
    PathBuf::from(format!("{stem}.ktrace"))
}
