//! `kairos run`, `kairos demo` and `kairos generate`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kairos::broad_phase::BroadPhaseOptions;
use kairos::discrete::{DiscreteOptions, DiscreteSim, Misses};
use kairos::generate::{billiard, gas, BilliardParams, GasParams};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::overlap::OverlapKind;
use kairos::scene::Scene;
use kairos::sim::Simulation;
use kairos::trace::{Record, TraceHeader, TraceWriter};
use serde::Serialize;

use crate::output::write_text;
use crate::{show, BroadPhaseArgs, Stepper};

/// Arguments of `kairos run`.
#[derive(Args)]
pub struct RunArgs {
    /// Scene file (TOML, see docs/scene-format.md); not with --resume.
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    pub scene: Option<PathBuf>,
    /// Write a restartable checkpoint to this file (atomically, replacing the previous one)
    /// every --every of simulated time.
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
    /// Width over height of the table.
    #[arg(long, default_value_t = BilliardParams::default().aspect)]
    pub aspect: f64,
    /// Simulated time in seconds.
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

/// Arguments of `kairos generate billiard`.
#[derive(Args)]
pub struct BilliardArgs {
    /// Number of balls.
    #[arg(long)]
    pub n: usize,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Coefficient of restitution in [0, 1] (1 = elastic). Below 1, the scene also states
    /// its contact duration (the TC model, see docs/scene-format.md).
    #[arg(long, default_value_t = 1.0)]
    pub restitution: f64,
    /// Scene file to write.
    #[arg(short, long)]
    pub output: PathBuf,
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
    /// Coefficient of restitution in [0, 1] (1 = elastic). Below 1, the scene also states
    /// its contact duration (the TC model, see docs/scene-format.md).
    #[arg(long, default_value_t = 1.0)]
    pub restitution: f64,
    /// Scene file to write.
    #[arg(short, long)]
    pub output: PathBuf,
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
            restitution: self.restitution,
        }
    }
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
    /// The time step of a discrete run.
    pub dt: Option<f64>,
    pub events: u64,
    pub ball_ball: u64,
    pub ball_wall: u64,
    pub wall_seconds: f64,
    pub events_per_second: f64,
    pub energy_drift: f64,
    /// Contacts the exact motion makes that the run did not see (0 for the event stepper).
    pub missed_collisions: u64,
    pub missed_ball_ball: u64,
    pub missed_ball_wall: u64,
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
            None => println!("broad phase    {} (event-driven)", self.broad_phase),
            Some(dt) => println!(
                "stepper        discrete, dt = {dt}, broad phase {}",
                self.broad_phase
            ),
        }
        println!(
            "events         {} (ball-ball {}, ball-wall {})",
            self.events, self.ball_ball, self.ball_wall
        );
        println!(
            "wall time      {:.3} s ({:.0} events/s)",
            self.wall_seconds, self.events_per_second
        );
        println!("energy drift   {:.3e} (relative)", self.energy_drift);
        println!(
            "missed         {} collisions (ball-ball {}, ball-wall {})",
            self.missed_collisions, self.missed_ball_ball, self.missed_ball_wall
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
    pub scene: &'a Scene,
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
}

/// Simulates a scene of either dimension.
pub fn simulate(spec: &RunSpec) -> Result<Summary> {
    match spec.scene.dim {
        2 => simulate_dim::<DVec2>(spec),
        3 => simulate_dim::<DVec3>(spec),
        d => anyhow::bail!("unsupported dimension {d}"),
    }
}

fn simulate_dim<V: Vector>(spec: &RunSpec) -> Result<Summary> {
    let kind = match spec.stepper {
        Stepper::Event(kind) => kind,
        Stepper::Discrete(kind, opts) => return simulate_discrete::<V>(spec, kind, opts),
    };
    let scene = spec.scene;
    let broad = kind.build::<V>(&spec.opts);
    let mut sim = match spec.resume {
        Some(ck) => Simulation::restore(ck.world::<V>(), broad, ck.state),
        None => Simulation::new(scene.world::<V>(), broad, scene.duration),
    };
    let counts_at_start = sim.counts();
    let every = spec.checkpoint.as_ref().map_or(f64::INFINITY, |c| c.1);
    let mut next_checkpoint = ((sim.now() / every).floor() + 1.0) * every;
    let mut writer = create_trace(spec, kind.name().to_string())?;
    let bar = progress_bar(spec.progress);
    let mut observer = spec.observe.as_ref().map(|(dt, _)| {
        let volume: f64 = scene.periodic.as_ref().map_or(0.0, |l| l.iter().product());
        kairos::observe::Observer::new(&sim, *dt, volume)
    });
    let mut samples = Vec::new();
    let start = Instant::now();
    let mut io_error = None;
    while let Some(event) = sim.step() {
        if let Some(o) = observer.as_mut() {
            o.after_step(&sim, Some(&event), &mut samples);
        }
        if event.time >= next_checkpoint {
            if let Some((path, _)) = &spec.checkpoint {
                kairos::checkpoint::write(path, scene, &sim)
                    .with_context(|| format!("{}: writing the checkpoint failed", show(path)))?;
            }
            next_checkpoint = ((event.time / every).floor() + 1.0) * every;
        }
        if let Some(w) = writer.as_mut() {
            if let Err(e) = w.write(&Record::from_event(&event, sim.world(), sim.lookahead())) {
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
    if let Some(o) = observer.as_mut() {
        o.after_step(&sim, None, &mut samples);
    }
    sim.finish();
    let wall_seconds = start.elapsed().as_secs_f64();
    if let Some((_, path)) = &spec.observe {
        let mut csv = String::from(
            "time,pressure,compressibility,collision_rate,kinetic_energy,max_overlap\n",
        );
        for s in &samples {
            csv += &format!(
                "{:?},{:?},{:?},{:?},{:?},{:?}\n",
                s.time,
                s.pressure,
                s.compressibility,
                s.collision_rate,
                s.kinetic_energy,
                s.max_overlap
            );
        }
        write_text(path, &csv)?;
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let trace_hash = finish_trace(spec, writer)?;
    let total = sim.counts();
    let c = kairos::sim::EventCounts {
        ball_ball: total.ball_ball - counts_at_start.ball_ball,
        ball_wall: total.ball_wall - counts_at_start.ball_wall,
        box_crossings: total.box_crossings - counts_at_start.box_crossings,
    };
    Ok(summary(
        spec,
        kind.name(),
        None,
        c,
        Misses::default(),
        wall_seconds,
        sim.energy_drift(),
        trace_hash,
    ))
}

/// The trace of a run, if one is asked for, with `broad_phase` in its header.
fn create_trace(spec: &RunSpec, broad_phase: String) -> Result<Option<TraceWriter>> {
    let Some(p) = spec.trace else {
        return Ok(None);
    };
    let header = TraceHeader {
        dim: spec.scene.dim as u32,
        broad_phase,
        scene_toml: spec.scene.to_toml(),
    };
    let w = TraceWriter::create(p, &header)
        .with_context(|| format!("{}: cannot create trace", show(p)))?;
    Ok(Some(w))
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
    if !(enabled && std::io::stderr().is_terminal()) {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} simulated {percent:>3}% [{bar:30}] {msg} ({elapsed})",
        )
        .unwrap()
        .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(250));
    Some(bar)
}

/// A discrete-time run: the same outputs, with the contacts resolved at each step as events.
fn simulate_discrete<V: Vector>(
    spec: &RunSpec,
    kind: OverlapKind,
    opts: DiscreteOptions,
) -> Result<Summary> {
    let scene = spec.scene;
    let mut sim = DiscreteSim::new(scene.world::<V>(), kind, opts, scene.duration)
        .map_err(|e| anyhow::anyhow!("{}: {e}", spec.scene_name))?;
    let mut writer = create_trace(spec, discrete_label(kind, &opts))?;
    let bar = progress_bar(spec.progress);
    let start = Instant::now();
    let mut io_error = None;
    let mut last_tick = 0;
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
    Ok(summary(
        spec,
        kind.name(),
        Some(opts.dt),
        sim.counts(),
        sim.misses(),
        wall_seconds,
        sim.energy_drift(),
        trace_hash,
    ))
}

/// The summary of a run of either stepper (`dt` is the step of a discrete run).
#[allow(clippy::too_many_arguments)]
fn summary(
    spec: &RunSpec,
    broad_phase: &str,
    dt: Option<f64>,
    c: kairos::sim::EventCounts,
    m: Misses,
    wall_seconds: f64,
    energy_drift: f64,
    trace_hash: Option<String>,
) -> Summary {
    let scene = spec.scene;
    Summary {
        scene: spec.scene_name.clone(),
        dim: scene.dim,
        bodies: scene.bodies.len(),
        walls: scene.walls.iter().map(|w| w.wall_count(scene.dim)).sum(),
        duration: scene.duration,
        stepper: if dt.is_some() { "discrete" } else { "event" }.into(),
        broad_phase: broad_phase.to_string(),
        dt,
        events: c.total(),
        ball_ball: c.ball_ball,
        ball_wall: c.ball_wall,
        wall_seconds,
        events_per_second: if wall_seconds > 0.0 {
            c.total() as f64 / wall_seconds
        } else {
            0.0
        },
        energy_drift,
        missed_collisions: m.total(),
        missed_ball_ball: m.ball_ball,
        missed_ball_wall: m.ball_wall,
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

/// Reads and validates a scene file.
pub fn load_scene(path: &Path) -> Result<Scene> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", show(path)))?;
    Scene::from_toml_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", show(path)))
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
    let resume = match &a.resume {
        Some(p) => {
            Some(kairos::checkpoint::read(p).map_err(|e| anyhow::anyhow!("{}: {e}", show(p)))?)
        }
        None => None,
    };
    // The file named in messages and default output names: the scene, or the checkpoint.
    let source = a
        .scene
        .clone()
        .or(a.resume.clone())
        .expect("clap requires one");
    let scene = match &resume {
        Some(ck) => ck.scene.clone(),
        None => load_scene(&source)?,
    };
    // A dissipative run's responses also depend on every body's last collision time (the TC
    // model, `World::last_collision`), which checkpoints do not store yet: a resumed run would
    // not repeat the uninterrupted one's events.
    anyhow::ensure!(
        scene.restitution == 1.0 || (a.checkpoint.is_none() && resume.is_none()),
        "{}: --checkpoint and --resume need an elastic scene (restitution 1) for now: \
         checkpoints do not yet store the bodies' last collision times that inelastic \
         collisions depend on",
        show(&source)
    );
    if let Some(dt) = a.every {
        anyhow::ensure!(
            dt > 0.0 && dt.is_finite(),
            "--every must be a positive interval, got {dt}"
        );
    }
    anyhow::ensure!(
        resume.is_none() || a.observe.is_none(),
        "--observe cannot be combined with --resume"
    );
    let trace = if a.no_trace {
        None
    } else {
        Some(
            a.output
                .clone()
                .unwrap_or_else(|| crate::default_trace_path(&source)),
        )
    };
    let observe = match a.observe {
        None => None,
        Some(dt) => {
            anyhow::ensure!(
                dt > 0.0 && dt.is_finite(),
                "--observe must be a positive interval, got {dt}"
            );
            anyhow::ensure!(
                scene.periodic.is_some(),
                "{}: --observe needs a periodic box (the pressure is the bulk virial pressure)",
                show(&source)
            );
            let stem = source
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or("run".into());
            Some((
                dt,
                a.observables
                    .clone()
                    .unwrap_or_else(|| PathBuf::from(format!("{stem}.obs.csv"))),
            ))
        }
    };
    let spec = RunSpec {
        scene: &scene,
        scene_name: show(&source),
        stepper,
        opts,
        trace: trace.as_deref(),
        progress: !a.quiet,
        observe,
        checkpoint: a.checkpoint.clone().zip(a.every),
        resume: resume.as_ref(),
    };
    let summary = simulate(&spec)?;
    report(&summary, a.quiet, a.summary_json.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

pub fn demo(a: DemoArgs) -> Result<ExitCode> {
    let opts = a.broad.options()?;
    let stepper = a.broad.stepper()?;
    let params = BilliardParams {
        n: a.n,
        seed: a.seed,
        ..Default::default()
    };
    let scene = billiard(&params).map_err(anyhow::Error::msg)?;
    let spec = RunSpec {
        scene: &scene,
        scene_name: format!("built-in billiard (n = {}, seed = {})", a.n, a.seed),
        stepper,
        opts,
        trace: Some(&a.output),
        progress: !a.quiet,
        observe: None,
        checkpoint: None,
        resume: None,
    };
    let summary = simulate(&spec)?;
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
        restitution: a.restitution,
        ..t.params(a.n, a.seed)
    };
    let scene = billiard(&params).map_err(anyhow::Error::msg)?;
    let header = format!(
        "# kairos generate billiard{} --n {} --seed {} --packing {} --radius-min {} --radius-max {} --aspect {} --duration {}{}\n",
        // The default dimension is left out, as before 3D existed.
        if t.dim == 2 { String::new() } else { format!(" --dim {}", t.dim) },
        a.n, a.seed, t.packing, t.radius_min, t.radius_max, t.aspect, t.duration,
        restitution_flag(a.restitution)
    );
    write_text(&a.output, &(header + &scene.to_toml()))?;
    Ok(ExitCode::SUCCESS)
}

pub fn generate_gas(a: GasArgs) -> Result<ExitCode> {
    let scene = gas(&a.params()).map_err(anyhow::Error::msg)?;
    let header = format!(
        "# kairos generate gas --dim {} --n {} --packing {} --polydispersity {} --mass {} --seed {} --duration {}{}\n",
        a.dim, a.n, a.packing, a.polydispersity, a.mass, a.seed, a.duration,
        restitution_flag(a.restitution)
    );
    write_text(&a.output, &(header + &scene.to_toml()))?;
    Ok(ExitCode::SUCCESS)
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
