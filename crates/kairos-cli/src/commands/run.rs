//! `kairos run`: its arguments, the checks of its options and outputs before any work, and
//! loading the scene (or checkpoint) it hands to [`simulate`](super::simulate::simulate).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use kairos::scene::Scene;

use super::simulate::{report, simulate, RunSpec, Summary};
use super::stepper::{BroadPhaseArgs, Stepper};
use crate::output::{self, Files};
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

/// Reads and validates a scene file (and the bodies file it names).
pub fn load_scene(path: &Path) -> Result<Scene> {
    Scene::load(path).map_err(|e| anyhow::anyhow!("{}: {e}", show(path)))
}

pub fn run(a: RunArgs) -> Result<ExitCode> {
    let opts = a.broad.options()?;
    let stepper = a.broad.stepper()?;
    if let Stepper::Discrete(..) | Stepper::Stepped(..) = stepper {
        anyhow::ensure!(
            a.resume.is_none() && a.checkpoint.is_none() && a.observe.is_none(),
            "--stepper {} does not support --resume, --checkpoint or --observe",
            if matches!(stepper, Stepper::Stepped(..)) {
                "stepped"
            } else {
                "discrete"
            }
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
        kairos::observe::check_windows(scene.duration, dt)
            .map_err(|e| anyhow::anyhow!("{}: --observe {e}", show(&source)))?;
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
    let summary = simulate_on_stepper(spec)?;
    report(&summary, a.quiet, a.summary_json.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `spec` on its stepper, the one path of `run` and `demo`: the stepped engine's runs in
/// [`stepped_run`](super::stepped_run) (which takes plain balls as rigid balls), the others
/// in [`simulate`].
pub(super) fn simulate_on_stepper(spec: RunSpec) -> Result<Summary> {
    match spec.stepper {
        Stepper::Stepped(options, every) => {
            super::stepped_run::simulate_stepped(&spec, options, every)
        }
        _ => simulate(spec),
    }
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

/// Output path of a trace when none is given.
pub fn default_trace_path(scene: &std::path::Path) -> PathBuf {
    let stem = scene
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or("trace".into());
    PathBuf::from(format!("{stem}.ktrace"))
}
