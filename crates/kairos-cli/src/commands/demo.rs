//! `kairos demo`: the thesis's billiard scene built in memory, run and summarised.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use kairos::generate::{billiard, BilliardParams};

use super::run::simulate_on_stepper;
use super::simulate::{report, RunSpec};
use super::stepper::BroadPhaseArgs;
use crate::output::Files;
use crate::show;

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
    let summary = simulate_on_stepper(spec)?;
    report(&summary, a.quiet, a.summary_json.as_deref())?;
    if !a.quiet {
        outln!(
            "\nnext: kairos export {} --events events.csv, kairos run SCENE.toml, kairos --help\n      (kairos is target/release/kairos after `cargo build --release`)",
            show(&a.output)
        );
    }
    Ok(ExitCode::SUCCESS)
}
