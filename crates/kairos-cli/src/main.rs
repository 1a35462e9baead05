//! `kairos`: the command-line front end of the Kairos event-driven collision simulator.

mod bench;
mod bench_overlap;
mod inspect;
mod output;
mod run;
mod scale;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions, KayaBvhOptions};

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
    /// One measurement of `bench scale` (run in a child process).
    #[command(hide = true)]
    ScaleOne(scale::ScaleOneArgs),
    /// Time per step of every discrete broad phase (overlapping boxes) on moving scenes.
    Overlap(bench_overlap::OverlapArgs),
}

/// Broad-phase selection and tuning, shared by the commands that simulate.
#[derive(Args, Clone, Debug)]
pub struct BroadPhaseArgs {
    /// Next-event search: calendar (fastest), kaya-bvh (the thesis's) or all-pairs (the reference).
    #[arg(long, default_value = "calendar", value_parser = parse_broad_phase)]
    pub broad_phase: BroadPhaseKind,
    /// kaya-bvh: look-ahead dt of the first search.
    #[arg(long, default_value_t = KayaBvhOptions::default().initial_dt)]
    pub bvh_dt: f64,
    /// kaya-bvh: factor applied to dt when a search finds nothing (> 1).
    #[arg(long, default_value_t = KayaBvhOptions::default().grow)]
    pub bvh_grow: f64,
    /// kaya-bvh: factor applied to dt after an event is found (in (0, 1]).
    #[arg(long, default_value_t = KayaBvhOptions::default().shrink)]
    pub bvh_shrink: f64,
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
}

fn parse_broad_phase(s: &str) -> Result<BroadPhaseKind, String> {
    s.parse()
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
    let result = match cli.command {
        Command::Demo(a) => run::demo(a),
        Command::Run(a) => run::run(a),
        Command::Generate(GenerateCommand::Billiard(a)) => run::generate_billiard(a),
        Command::Generate(GenerateCommand::Gas(a)) => run::generate_gas(a),
        Command::Export(a) => inspect::export(a),
        Command::Frames(a) => inspect::frames(a),
        Command::Diff(a) => inspect::diff(a),
        Command::Bench(BenchCommand::Thesis(a)) => bench::thesis(a),
        Command::Bench(BenchCommand::Scale(a)) => scale::scale(a),
        Command::Bench(BenchCommand::ScaleOne(a)) => scale::scale_one(a),
        Command::Bench(BenchCommand::Overlap(a)) => bench_overlap::overlap(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
