//! `kairos bench`: scenario benchmarks that print markdown tables (and write their
//! measurements as CSV, read back by `--from-csv`).

pub mod d2m;
pub mod discrete;
pub mod overlap;
pub mod rows;
pub mod scale;
pub mod table;
pub mod thesis;

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use kairos::num::Num;

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
    /// The seed's D2M experiment: spinning meshes fired at each other, the time per contact
    /// query and the distance the contact leaves, for D2M, its Capoeira mode and conservative
    /// advancement on the meshes' convex pieces (the stand-in for C2A).
    D2m(d2m::D2mArgs),
}

/// Runs one benchmark.
pub fn run(command: BenchCommand) -> Result<ExitCode> {
    match command {
        BenchCommand::Thesis(a) => thesis::thesis(a),
        BenchCommand::Scale(a) => scale::scale(a),
        BenchCommand::Discrete(a) => discrete::discrete(a),
        BenchCommand::ScaleOne(a) => scale::scale_one(a),
        BenchCommand::Overlap(a) => overlap::overlap(a),
        BenchCommand::D2m(a) => d2m::d2m(a),
    }
}

/// Most runs (scenes) per measurement of a benchmark.
pub const MAX_RUNS: usize = 1000;
/// Longest simulated time of a benchmark's scenes (the thesis's: 5).
pub const MAX_DURATION: f64 = 1e4;

/// Checks a count option of a benchmark: from 1 to `most`.
pub fn check_count(flag: &str, value: usize, most: usize) -> Result<()> {
    anyhow::ensure!(
        (1..=most).contains(&value),
        "{flag} must be from 1 to {most}, got {value}"
    );
    Ok(())
}

/// Checks a benchmark's budget of seconds (positive and finite) and its scenes' simulated
/// time (up to [`MAX_DURATION`]; the generator checks that it is positive).
pub fn check_budget_and_duration(budget: f64, duration: f64) -> Result<()> {
    anyhow::ensure!(
        budget > 0.0 && budget.is_finite(),
        "--budget must be a positive number of seconds, got {}",
        Num(budget)
    );
    anyhow::ensure!(
        duration <= MAX_DURATION,
        "--duration of a benchmark's scenes must be at most {}, got {}",
        Num(MAX_DURATION),
        Num(duration)
    );
    Ok(())
}

/// The median of `v` (the mean of the two middle values when there are an even number).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        0.5 * (s[m - 1] + s[m])
    }
}

/// Distinct values in order of first appearance.
pub fn distinct<T: PartialEq>(it: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for v in it {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_distinct() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(distinct([2, 1, 2, 3, 1]), [2, 1, 3]);
    }
}
