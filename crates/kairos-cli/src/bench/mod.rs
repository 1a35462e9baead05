//! `kairos bench`: scenario benchmarks that print markdown tables (and write their
//! measurements as CSV, read back by `--from-csv`).

pub mod discrete;
pub mod overlap;
pub mod scale;
pub mod thesis;

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

/// The benchmarks.
#[derive(Subcommand)]
pub enum BenchCommand {
    /// Table 5.1 of the thesis: running time against the number of balls.
    Thesis(thesis::ThesisArgs),
    /// Collisions per second and memory per body up to a million bodies, and every broad
    /// phase on the thesis scene.
    Scale(scale::ScaleArgs),
    /// Table 5.2 of the thesis: continuous time against discrete time steps, in seconds and
    /// missed collisions.
    Discrete(discrete::DiscreteArgs),
    /// One measurement of `bench scale` (run in a child process).
    #[command(hide = true)]
    ScaleOne(scale::ScaleOneArgs),
    /// Time per step of every discrete broad phase (overlapping boxes) on moving scenes.
    Overlap(overlap::OverlapArgs),
}

/// Runs one benchmark.
pub fn run(command: BenchCommand) -> Result<ExitCode> {
    match command {
        BenchCommand::Thesis(a) => thesis::thesis(a),
        BenchCommand::Scale(a) => scale::scale(a),
        BenchCommand::Discrete(a) => discrete::discrete(a),
        BenchCommand::ScaleOne(a) => scale::scale_one(a),
        BenchCommand::Overlap(a) => overlap::overlap(a),
    }
}
