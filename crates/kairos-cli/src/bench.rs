//! `kairos bench thesis`: Table 5.1 of the thesis, measured here.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions};
use kairos::generate::billiard;
use kairos::math::DVec2;
use kairos::sim::Simulation;

use crate::output::write_text;

/// Arguments of `kairos bench thesis`.
#[derive(Args)]
pub struct ThesisArgs {
    /// Numbers of balls.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "8,16,32,64,128,256,512,1024,2048"
    )]
    pub n: Vec<usize>,
    /// Broad phases to time.
    #[arg(long, value_delimiter = ',', default_value = "all-pairs,kaya-bvh,calendar,sap,grid", value_parser = crate::parse_broad_phase)]
    pub broad_phases: Vec<BroadPhaseKind>,
    /// Runs (scenes with seeds 0..R) per size; times are medians, collisions means.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Skip a run whose projected time exceeds this many seconds.
    #[arg(long, default_value_t = 120.0)]
    pub budget: f64,
    /// Also write the measurements as CSV.
    #[arg(long)]
    pub csv: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub table: crate::run::TableArgs,
}

/// Growth exponent of a broad phase's total running time with N on this scene (events grow
/// as N^1.5): used only to project whether the next size fits the time budget.
fn growth_exponent(k: BroadPhaseKind) -> f64 {
    match k {
        BroadPhaseKind::AllPairs => 3.5,
        BroadPhaseKind::KayaBvh => 2.6,
        BroadPhaseKind::Calendar => 1.7,
        // O(n) swept boxes per search.
        BroadPhaseKind::Sap | BroadPhaseKind::Grid => 2.5,
    }
}

struct Cell {
    seconds: Vec<f64>,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        0.5 * (s[m - 1] + s[m])
    }
}

pub fn thesis(a: ThesisArgs) -> Result<ExitCode> {
    anyhow::ensure!(a.runs >= 1, "--runs must be at least 1");
    anyhow::ensure!(!a.broad_phases.is_empty(), "--broad-phases is empty");
    let opts = BroadPhaseOptions::default();
    let mut last: Vec<Option<(usize, f64)>> = vec![None; a.broad_phases.len()];
    let mut rows = Vec::new();
    let mut csv = String::from(
        "n,broad_phase,runs,collisions_mean,seconds_median,seconds_min,events_per_second\n",
    );
    for &n in &a.n {
        let mut cells: Vec<Option<Cell>> = Vec::new();
        let mut counts: Vec<u64> = Vec::new();
        for (k, &bp) in a.broad_phases.iter().enumerate() {
            if let Some((n0, t0)) = last[k] {
                let projected = t0 * (n as f64 / n0 as f64).powf(growth_exponent(bp));
                if projected > a.budget {
                    eprintln!(
                        "skipping {bp} at N = {n}: projected {projected:.0} s per run exceeds the budget of {} s",
                        a.budget
                    );
                    cells.push(None);
                    last[k] = Some((n, projected));
                    continue;
                }
            }
            let mut seconds = Vec::new();
            for run in 0..a.runs {
                let scene = billiard(&a.table.params(n, run as u64)).map_err(anyhow::Error::msg)?;
                let mut sim = Simulation::new(
                    scene.world::<DVec2>(),
                    bp.build::<DVec2>(&opts),
                    scene.duration,
                );
                let start = Instant::now();
                while sim.step().is_some() {}
                seconds.push(start.elapsed().as_secs_f64());
                let total = sim.counts().total();
                match counts.get(run) {
                    None => counts.push(total),
                    Some(&c) => anyhow::ensure!(
                        c == total,
                        "broad phases disagree at N = {n}, seed {run}: {c} vs {total} events ({bp})"
                    ),
                }
            }
            let med = median(&seconds);
            last[k] = Some((n, med));
            let mean_events = counts.iter().sum::<u64>() as f64 / counts.len() as f64;
            let min = seconds.iter().cloned().fold(f64::INFINITY, f64::min);
            csv += &format!(
                "{n},{bp},{},{mean_events},{med},{min},{}\n",
                a.runs,
                mean_events / med
            );
            eprintln!("N = {n:5} {bp:10} {med:10.4} s  ({mean_events:.0} collisions)");
            cells.push(Some(Cell { seconds }));
        }
        let collisions = if counts.is_empty() {
            "-".to_string()
        } else {
            format!(
                "{:.1}",
                counts.iter().sum::<u64>() as f64 / counts.len() as f64
            )
        };
        rows.push((n, collisions, cells));
    }
    let mut head = String::from("| N | collisions |");
    let mut rule = String::from("|---:|---:|");
    for bp in &a.broad_phases {
        head += &format!(" {bp} (s) |");
        rule += "---:|";
    }
    // Speedup of every other broad phase over all-pairs, when all-pairs was timed.
    let reference = a
        .broad_phases
        .iter()
        .position(|&k| k == BroadPhaseKind::AllPairs);
    let others: Vec<usize> = match reference {
        Some(r) => (0..a.broad_phases.len()).filter(|&k| k != r).collect(),
        None => Vec::new(),
    };
    for &k in &others {
        head += &format!(" speedup {} |", a.broad_phases[k]);
        rule += "---:|";
    }
    println!("{head}\n{rule}");
    for (n, collisions, cells) in &rows {
        let mut line = format!("| {n} | {collisions} |");
        let meds: Vec<Option<f64>> = cells
            .iter()
            .map(|c| c.as_ref().map(|c| median(&c.seconds)))
            .collect();
        for m in &meds {
            line += &match m {
                Some(s) => format!(" {s:.6} |"),
                None => " skipped |".to_string(),
            };
        }
        for &k in &others {
            line += &match (meds[reference.unwrap()], meds[k]) {
                (Some(x), Some(y)) if y > 0.0 => format!(" {:.1}x |", x / y),
                _ => " - |".to_string(),
            };
        }
        println!("{line}");
    }
    if let Some(p) = &a.csv {
        write_text(p, &csv)?;
    }
    Ok(ExitCode::SUCCESS)
}
