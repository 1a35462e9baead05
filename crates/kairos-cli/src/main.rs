//! `kairos`: the command-line front end of the Kairos event-driven collision simulator.

mod alloc;
mod bench;
mod bench_discrete;
mod bench_overlap;
mod csv_in;
mod inspect;
mod interrupt;
mod output;
mod picture;
mod plot;
mod run;
mod scale;
mod snapshot;
mod view;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions, KayaBvhOptions};
use kairos::discrete::DiscreteOptions;
use kairos::overlap::OverlapKind;

#[global_allocator]
static ALLOC: alloc::HugePageAlloc = alloc::HugePageAlloc;

/// Exact continuous-time collision detection and event-driven simulation.
#[derive(Parser)]
#[command(name = "kairos", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the thesis's billiard scene (a few hundred balls), print a summary, write a trace.
    Demo(run::DemoArgs),
    /// Simulate a scene file, streaming every event to a binary trace.
    Run(run::RunArgs),
    /// Generate a scene file.
    #[command(subcommand)]
    Generate(GenerateCommand),
    /// Export a trace's events or final state as CSV.
    Export(inspect::ExportArgs),
    /// Write extended-XYZ frames of a trace at a fixed interval (for OVITO and ASE).
    Frames(inspect::FramesArgs),
    /// Write a self-contained HTML page that replays a trace (speed of time, stepping, the
    /// kaya-bvh boxes).
    View(view::ViewArgs),
    /// Draw the scene of a trace at one time as an SVG picture.
    Snapshot(snapshot::SnapshotArgs),
    /// Compare the event sequences of two traces (exit 0 when identical, 1 otherwise).
    Diff(inspect::DiffArgs),
    /// Scenario benchmarks that print markdown tables.
    #[command(subcommand)]
    Bench(BenchCommand),
}

#[derive(Subcommand)]
enum GenerateCommand {
    /// The thesis's benchmark scene (section 5.2): balls on a rectangular table.
    Billiard(run::BilliardArgs),
    /// A hard-sphere (3D) or hard-disc (2D) gas in a periodic box.
    Gas(run::GasArgs),
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Table 5.1 of the thesis: running time against the number of balls.
    Thesis(bench::ThesisArgs),
    /// Collisions per second and memory per body up to a million bodies, and every broad
    /// phase on the thesis scene.
    Scale(scale::ScaleArgs),
    /// Table 5.2 of the thesis: continuous time against discrete time steps, in seconds and
    /// missed collisions.
    Discrete(bench_discrete::DiscreteArgs),
    /// One measurement of `bench scale` (run in a child process).
    #[command(hide = true)]
    ScaleOne(scale::ScaleOneArgs),
    /// Time per step of every discrete broad phase (overlapping boxes) on moving scenes.
    Overlap(bench_overlap::OverlapArgs),
}

/// How time advances (`--stepper`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StepperKind {
    /// Exact, event-driven.
    Event,
    /// Fixed steps of --dt (the thesis's comparison method).
    Discrete,
}

/// Stepper and broad-phase selection and tuning, shared by the commands that simulate.
#[derive(Args, Clone, Debug)]
pub struct BroadPhaseArgs {
    /// How time advances: `event` (exact, event-driven) or `discrete` (fixed steps of --dt, the
    /// thesis's comparison method).
    #[arg(long, value_enum, default_value_t = StepperKind::Event)]
    pub stepper: StepperKind,
    /// Broad phase. Event stepper: auto (default: calendar-lists for dense periodic gases,
    /// packing >= 0.4 in 3D or 0.65 in 2D, else calendar), calendar, calendar-lists (neighbour
    /// lists: faster on dense gases, twice the memory), kaya-bvh (the thesis's), sap, grid or
    /// all-pairs (the reference); all give the same events. Discrete stepper: sap (default),
    /// bvh, sort-sweep, dbvt, grid or brute-force.
    #[arg(long)]
    pub broad_phase: Option<String>,
    /// Discrete stepper: the time step.
    #[arg(long)]
    pub dt: Option<f64>,
    /// Stop (exit 2, no trace kept; a last checkpoint with --checkpoint) after this many
    /// events (collisions, and box crossings in a periodic box): a bound on runaway work such
    /// as a velocity of 1e100 in a small box. A trace takes 128 bytes a collision.
    #[arg(long, default_value_t = DEFAULT_MAX_EVENTS, value_name = "N")]
    pub max_events: u64,
    /// Discrete stepper: refuse a run of more steps (duration / dt x substeps) than this.
    #[arg(long, default_value_t = DEFAULT_MAX_STEPS, value_name = "N")]
    pub max_steps: u64,
    /// Discrete stepper: internal sub-steps per --dt.
    #[arg(long, default_value_t = 1)]
    pub substeps: u32,
    /// Discrete stepper: move overlapping pairs back to their first contact within the step
    /// (bisection) before resolving them.
    #[arg(long)]
    pub toi_rewind: bool,
    /// Look-ahead dt of the first search (kaya-bvh, sap and grid).
    #[arg(long, default_value_t = KayaBvhOptions::default().initial_dt)]
    pub bvh_dt: f64,
    /// Factor applied to the look-ahead when a search finds nothing (> 1; kaya-bvh, sap, grid).
    #[arg(long, default_value_t = KayaBvhOptions::default().grow)]
    pub bvh_grow: f64,
    /// Factor applied to the look-ahead after an event is found (in (0, 1]; kaya-bvh, sap,
    /// grid).
    #[arg(long, default_value_t = KayaBvhOptions::default().shrink)]
    pub bvh_shrink: f64,
}

/// Default of `--max-events`: 10^8 events (at most a 12.8 GB trace; at a million bodies, about
/// a hundred collisions each).
pub const DEFAULT_MAX_EVENTS: u64 = 100_000_000;
/// Default of `--max-steps`: 10^7 fixed steps.
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

/// What advances time in a run.
#[derive(Clone, Copy, Debug)]
pub enum Stepper {
    /// Exact, event-driven, with the broad phase measured fastest for the scene
    /// ([`BroadPhaseKind::auto`]).
    Auto,
    /// Exact, event-driven, with this broad phase.
    Event(BroadPhaseKind),
    /// Fixed time steps with this discrete broad phase.
    Discrete(OverlapKind, DiscreteOptions),
}

impl BroadPhaseArgs {
    /// The validated options.
    pub fn options(&self) -> Result<BroadPhaseOptions> {
        let kaya = KayaBvhOptions {
            initial_dt: self.bvh_dt,
            grow: self.bvh_grow,
            shrink: self.bvh_shrink,
        };
        kaya.validate().map_err(anyhow::Error::msg)?;
        Ok(BroadPhaseOptions {
            kaya,
            ..Default::default()
        })
    }

    /// The validated stepper.
    pub fn stepper(&self) -> Result<Stepper> {
        if self.stepper == StepperKind::Discrete {
            let dt = self
                .dt
                .ok_or_else(|| anyhow::anyhow!("--stepper discrete needs --dt"))?;
            let kind: OverlapKind = self
                .broad_phase
                .as_deref()
                .unwrap_or("sap")
                .parse()
                .map_err(|e| anyhow::anyhow!("--broad-phase: {e}"))?;
            let opts = DiscreteOptions {
                dt,
                substeps: self.substeps,
                toi_rewind: self.toi_rewind,
                count_misses: true,
            };
            opts.validate().map_err(anyhow::Error::msg)?;
            Ok(Stepper::Discrete(kind, opts))
        } else {
            anyhow::ensure!(
                self.dt.is_none() && self.substeps == 1 && !self.toi_rewind,
                "--dt, --substeps and --toi-rewind need --stepper discrete"
            );
            match self.broad_phase.as_deref().unwrap_or("auto") {
                "auto" => Ok(Stepper::Auto),
                name => {
                    let kind: BroadPhaseKind = name.parse().map_err(|e| {
                        anyhow::anyhow!("--broad-phase: {e}, or auto (the default)")
                    })?;
                    Ok(Stepper::Event(kind))
                }
            }
        }
    }
}

fn parse_broad_phase(s: &str) -> Result<BroadPhaseKind, String> {
    s.parse()
        .map_err(|e: kairos::names::UnknownName| e.to_string())
}

/// A path argument, for messages.
pub fn show(p: &std::path::Path) -> String {
    p.display().to_string()
}

/// Output path of a trace when none is given.
pub fn default_trace_path(scene: &std::path::Path) -> PathBuf {
    let stem = scene
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or("trace".into());
    PathBuf::from(format!("{stem}.ktrace"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    interrupt::install();
    let result = match cli.command {
        Command::Demo(a) => run::demo(a),
        Command::Run(a) => run::run(a),
        Command::Generate(GenerateCommand::Billiard(a)) => run::generate_billiard(a),
        Command::Generate(GenerateCommand::Gas(a)) => run::generate_gas(a),
        Command::Export(a) => inspect::export(a),
        Command::Frames(a) => inspect::frames(a),
        Command::View(a) => view::view(a),
        Command::Snapshot(a) => snapshot::snapshot(a),
        Command::Diff(a) => inspect::diff(a),
        Command::Bench(BenchCommand::Thesis(a)) => bench::thesis(a),
        Command::Bench(BenchCommand::Scale(a)) => scale::scale(a),
        Command::Bench(BenchCommand::Discrete(a)) => bench_discrete::discrete(a),
        Command::Bench(BenchCommand::ScaleOne(a)) => scale::scale_one(a),
        Command::Bench(BenchCommand::Overlap(a)) => bench_overlap::overlap(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => match e.downcast_ref::<interrupt::Interrupted>() {
            Some(i) => {
                eprintln!("{i}");
                ExitCode::from((128 + i.signal) as u8)
            }
            None => {
                eprintln!("error: {e:#}");
                ExitCode::from(2)
            }
        },
    }
}
