//! `kairos sweep`: a grid of independent runs of hard-sphere (3D) or hard-disc (2D) gases,
//! packing fractions × seeds, on all cores; one table of results, and the equation of state.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{bail, Context, Result};
use clap::Args;
use kairos::broad_phase::BroadPhaseKind;
use kairos::ensemble::{run_all, RunOptions, RunResult, Stat};
use kairos::generate::{gas, GasParams};
use kairos::num::Num;
use kairos::observe::{carnahan_starling, henderson, kolafa_labik_malijevsky};

use crate::output::{self, Files};
use crate::plot::{write_chart, Chart, Series, SeriesStyle};
use crate::show;

/// Arguments of `kairos sweep`.
#[derive(Args)]
pub struct SweepArgs {
    /// Dimension: 2 (discs) or 3 (spheres).
    #[arg(long, default_value_t = 3)]
    pub dim: usize,
    /// Balls in each run.
    #[arg(long, default_value_t = 1000)]
    pub n: usize,
    /// Packing fractions: a list (`0.1,0.2,0.3`) or a range `FROM:TO:STEP` (`0.05:0.5:0.05`,
    /// both ends included).
    #[arg(long)]
    pub packing: String,
    /// Independent runs (seeds 0, 1, ...) at each packing fraction.
    #[arg(long, default_value_t = 4)]
    pub seeds: u64,
    /// Simulated time of each run.
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    /// Window of the observables (pressure, compressibility factor, collision rate).
    #[arg(long, default_value_t = 1.0)]
    pub observe: f64,
    /// Windows left out of each run's means at its start (the relaxation from the lattice).
    #[arg(long, default_value_t = 1)]
    pub skip: usize,
    /// Relative spread of the diameters (uniform in [1 - P, 1 + P]).
    #[arg(long, default_value_t = 0.0)]
    pub polydispersity: f64,
    /// Broad phase of every run (default: auto's choice); the results are the same with any.
    #[arg(long)]
    pub broad_phase: Option<BroadPhaseKind>,
    /// Threads (default: one per core). The results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// The table of runs, one row each: CSV, or JSON when the name ends in `.json`.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Also draw the compressibility factor against the packing fraction, with the reference
    /// equations of state, as an SVG chart.
    #[arg(long)]
    pub plot: Option<PathBuf>,
}

/// The packing fractions of `--packing`.
fn packings(spec: &str) -> Result<Vec<f64>> {
    let num = |s: &str| -> Result<f64> {
        let x: f64 = s
            .trim()
            .parse()
            .with_context(|| format!("--packing: `{s}` is not a number"))?;
        anyhow::ensure!(
            x > 0.0 && x < 1.0,
            "--packing: {} is not a fraction in (0, 1)",
            Num(x)
        );
        Ok(x)
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let list = match parts.as_slice() {
        [from, to, step] => {
            let (from, to, step) = (num(from)?, num(to)?, step.trim().parse::<f64>());
            let step = step
                .ok()
                .filter(|s| *s > 0.0 && s.is_finite())
                .with_context(|| format!("--packing {spec}: the step must be a positive number"))?;
            anyhow::ensure!(
                to >= from,
                "--packing {spec}: the range ends before it starts"
            );
            // Counted in floats before any conversion (a step of 1e-21 made 1e20 values, which
            // saturated to the largest integer and wrapped to none).
            let count = ((to - from) / step + 1e-9).floor() + 1.0;
            anyhow::ensure!(
                count <= 1000.0,
                "--packing {spec}: more than 1000 packing fractions"
            );
            let count = count as usize;
            // Rounded to 12 digits, so that 0.1 + 2 * 0.05 prints and compares as 0.2.
            (0..count)
                .map(|k| ((from + k as f64 * step) * 1e12).round() / 1e12)
                .collect()
        }
        [_] => spec.split(',').map(num).collect::<Result<Vec<f64>>>()?,
        _ => bail!("--packing {spec}: give a list `0.1,0.2` or a range `FROM:TO:STEP`"),
    };
    Ok(list)
}

/// A reference equation of state: its name and `Z(phi)`.
type Reference = (&'static str, fn(f64) -> f64);

/// The reference equations of state of the dimension.
fn references(dim: usize) -> Vec<Reference> {
    if dim == 3 {
        vec![
            ("Carnahan-Starling", carnahan_starling as fn(f64) -> f64),
            ("Kolafa-Labik-Malijevsky", kolafa_labik_malijevsky),
        ]
    } else {
        vec![("Henderson", henderson as fn(f64) -> f64)]
    }
}

/// One row of the table: the run's grid point and its results.
struct Row {
    packing: f64,
    seed: u64,
    result: RunResult,
}

const COLUMNS: [&str; 18] = [
    "dim",
    "n",
    "packing",
    "seed",
    "duration",
    "broad_phase",
    "body_body",
    "energy_drift",
    "windows",
    "pressure",
    "pressure_sem",
    "compressibility",
    "compressibility_sem",
    "collision_rate",
    "collision_rate_sem",
    "max_overlap",
    "events_per_second",
    "wall_seconds",
];

impl Row {
    /// The row's cells, in [`COLUMNS`]' order (an empty cell for a quantity not observed).
    fn cells(&self) -> Vec<String> {
        let r = &self.result;
        let stat = |s: Option<Stat>| match s {
            Some(s) => [format!("{:?}", s.mean), format!("{:?}", s.sem)],
            None => [String::new(), String::new()],
        };
        let [p, ps] = stat(r.pressure);
        let [z, zs] = stat(r.compressibility);
        let [c, cs] = stat(r.collision_rate);
        let rate = (r.body_body + r.body_wall) as f64 / r.wall_seconds.max(1e-9);
        vec![
            r.dim.to_string(),
            r.n.to_string(),
            format!("{:?}", self.packing),
            self.seed.to_string(),
            format!("{:?}", r.duration),
            r.broad_phase.to_string(),
            r.body_body.to_string(),
            format!("{:?}", r.energy_drift),
            r.windows.to_string(),
            p,
            ps,
            z,
            zs,
            c,
            cs,
            format!("{:?}", r.max_overlap),
            format!("{rate:.0}"),
            format!("{:.3}", r.wall_seconds),
        ]
    }
}

/// The table as CSV.
fn csv_text(rows: &[Row]) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(COLUMNS)?;
    for r in rows {
        w.write_record(r.cells())?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The table as a JSON array of objects (numbers as numbers, a quantity not observed null).
fn json_text(rows: &[Row]) -> Result<String> {
    let items: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let obj: serde_json::Map<String, serde_json::Value> = COLUMNS
                .iter()
                .zip(r.cells())
                .map(|(k, v)| {
                    let value = if v.is_empty() {
                        serde_json::Value::Null
                    } else if *k == "broad_phase" {
                        serde_json::Value::String(v)
                    } else {
                        serde_json::from_str(&v).unwrap_or(serde_json::Value::String(v))
                    };
                    (k.to_string(), value)
                })
                .collect();
            serde_json::Value::Object(obj)
        })
        .collect();
    Ok(serde_json::to_string_pretty(&items)? + "\n")
}

/// Per packing fraction: the compressibility factor's mean over the seeds' runs and its
/// standard error (from the spread of the runs: independent, so honest error bars).
fn equation_of_state(rows: &[Row], packings: &[f64]) -> Vec<(f64, Stat)> {
    packings
        .iter()
        .filter_map(|&phi| {
            let zs = rows
                .iter()
                .filter(|r| r.packing == phi)
                .filter_map(|r| r.result.compressibility.map(|z| z.mean));
            Stat::of(zs).map(|s| (phi, s))
        })
        .collect()
}

pub fn sweep(a: SweepArgs) -> Result<ExitCode> {
    anyhow::ensure!(
        a.dim == 2 || a.dim == 3,
        "--dim must be 2 or 3, got {}",
        a.dim
    );
    anyhow::ensure!(
        (1..=10_000).contains(&a.seeds),
        "--seeds must be from 1 to 10,000, got {}",
        a.seeds
    );
    anyhow::ensure!(
        a.duration > 0.0 && a.duration <= kairos::scene::MAX_MAGNITUDE,
        "--duration must be a positive time of at most {:e}, got {}",
        kairos::scene::MAX_MAGNITUDE,
        Num(a.duration)
    );
    anyhow::ensure!(
        a.observe > 0.0 && a.observe.is_finite(),
        "--observe must be a positive interval, got {}",
        Num(a.observe)
    );
    kairos::observe::check_windows(a.duration, a.observe)
        .map_err(|e| anyhow::anyhow!("--observe {e}"))?;
    anyhow::ensure!(
        a.duration >= a.observe * (a.skip + 1) as f64,
        "--duration {} must hold more than the --skip {} windows of --observe {}",
        Num(a.duration),
        a.skip,
        Num(a.observe)
    );
    anyhow::ensure!(
        a.threads.is_none_or(|t| (1..=1024).contains(&t)),
        "--threads must be from 1 to 1024, got {}",
        a.threads.unwrap_or(0)
    );
    let packings = packings(&a.packing)?;
    Files::new()
        .output("--output", Some(&a.output))
        .output("--plot", a.plot.as_deref())
        .check()?;
    // Every scene is made and checked before any run.
    let mut grid = Vec::new();
    let mut scenes = Vec::new();
    for &packing in &packings {
        for seed in 0..a.seeds {
            let p = GasParams {
                dim: a.dim,
                n: a.n,
                packing,
                polydispersity: a.polydispersity,
                mass: 1.0,
                seed,
                duration: a.duration,
                restitution: 1.0,
            };
            scenes.push(gas(&p).with_context(|| format!("--packing (seed {seed})"))?);
            grid.push((packing, seed));
        }
    }
    let opts = RunOptions {
        observe: Some(a.observe),
        skip: a.skip,
        broad_phase: a.broad_phase,
    };
    let bar = output::progress_bar(
        scenes.len() as u64,
        "{elapsed_precise} [{bar:40}] {pos}/{len} runs ({eta} left)",
    );
    let done = AtomicU64::new(0);
    let start = std::time::Instant::now();
    let results = run_all(&scenes, &opts, a.threads, &|_| {
        done.fetch_add(1, Ordering::Relaxed);
        if let Some(b) = &bar {
            b.inc(1);
        }
    });
    let wall = start.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let rows = grid
        .into_iter()
        .zip(results)
        .map(|((packing, seed), r)| {
            r.map(|result| Row {
                packing,
                seed,
                result,
            })
            .with_context(|| format!("packing {}, seed {seed}", Num(packing)))
        })
        .collect::<Result<Vec<Row>>>()?;
    let text = if a.output.extension().is_some_and(|e| e == "json") {
        json_text(&rows)?
    } else {
        csv_text(&rows)?
    };
    output::write_text(&a.output, &text)?;
    let eos = equation_of_state(&rows, &packings);
    let refs = references(a.dim);
    let run_seconds: f64 = rows.iter().map(|r| r.result.wall_seconds).sum();
    outln!(
        "{} runs ({} {} of {} balls, {} seeds a packing, {} time units each) in {:.1} s on {} threads ({:.1} s of runs): {}",
        rows.len(),
        if a.dim == 3 { "hard-sphere" } else { "hard-disc" },
        "gases",
        a.n,
        a.seeds,
        Num(a.duration),
        wall,
        a.threads.unwrap_or_else(rayon_threads),
        run_seconds,
        show(&a.output)
    );
    outln!();
    let mut header = "| packing | Z (mean ± s.e. over seeds) |".to_string();
    let mut rule = "|---:|---:|".to_string();
    for (name, _) in &refs {
        header.push_str(&format!(" {name} | deviation |"));
        rule.push_str("---:|---:|");
    }
    outln!("{header}");
    outln!("{rule}");
    for &(phi, z) in &eos {
        let seeds = rows
            .iter()
            .filter(|r| r.packing == phi && r.result.compressibility.is_some())
            .count();
        let sem = if z.sem > 0.0 && z.sem < 5e-5 {
            format!("{:.1e}", z.sem)
        } else {
            format!("{:.4}", z.sem)
        };
        let mut line = format!("| {phi} | {:.4} ± {sem} |", z.mean);
        for (_, f) in &refs {
            let zr = f(phi);
            let deviation = match sigmas_mean_something(z, seeds) {
                None => format!("{:+.2}σ", (z.mean - zr) / z.sem),
                Some(why) => format!("{:+.4} ({why})", z.mean - zr),
            };
            line.push_str(&format!(" {zr:.4} | {deviation} |"));
        }
        outln!("{line}");
    }
    if let Some(path) = &a.plot {
        write_chart(path, &eos_chart(a.dim, a.n, &eos, &refs))?;
    }
    std::io::stdout().flush().ok();
    Ok(ExitCode::SUCCESS)
}

/// Why a deviation from a reference cannot be given in standard errors, `None` when it can: at
/// least [`MIN_SEEDS_FOR_SIGMAS`] seeds measured it (one has no spread, two a standard error
/// that is itself a guess), and the standard error is above the round-off of the mean (seeds
/// whose runs agree to the last digits have none to speak of). The deviation is otherwise
/// given as a difference.
fn sigmas_mean_something(z: Stat, seeds: usize) -> Option<&'static str> {
    if seeds <= 1 {
        Some("no s.e.")
    } else if seeds < MIN_SEEDS_FOR_SIGMAS {
        Some("a difference: too few seeds for a s.e.")
    } else if !(z.sem > 1e-9 * z.mean.abs() && z.sem.is_finite()) {
        Some("a difference: the s.e. is round-off")
    } else {
        None
    }
}

/// The fewest seeds whose spread gives a standard error to measure deviations in.
const MIN_SEEDS_FOR_SIGMAS: usize = 3;

/// The number of threads a pool of rayon's default size has.
fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Z against the packing fraction: the runs' means with their error bars, and the references.
fn eos_chart(dim: usize, n: usize, eos: &[(f64, Stat)], refs: &[Reference]) -> Chart {
    let (lo, hi) = eos.iter().fold((f64::INFINITY, 0.0f64), |(l, h), (p, _)| {
        (l.min(*p), h.max(*p))
    });
    let curve = |f: fn(f64) -> f64| -> Vec<(f64, f64)> {
        (0..=100)
            .map(|k| {
                let p = lo + (hi - lo) * k as f64 / 100.0;
                (p, f(p))
            })
            .collect()
    };
    let mut series = vec![Series::new(
        format!("Kairos, {n} {}", if dim == 3 { "spheres" } else { "discs" }),
        SeriesStyle::Scatter,
        eos.iter().map(|(p, z)| (*p, z.mean)).collect(),
    )
    .with_y_errors(eos.iter().map(|(_, z)| 2.0 * z.sem).collect())];
    for (name, f) in refs {
        series.push(Series::new(*name, SeriesStyle::Reference, curve(*f)));
    }
    Chart {
        title: format!(
            "Equation of state of hard {} (error bars: 2 standard errors)",
            if dim == 3 { "spheres" } else { "discs" }
        ),
        x_label: "packing fraction".into(),
        y_label: "compressibility factor Z = PV / NkT".into(),
        series,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_lists_and_ranges() {
        assert_eq!(packings("0.1,0.2").unwrap(), vec![0.1, 0.2]);
        assert_eq!(
            packings("0.05:0.5:0.05").unwrap(),
            vec![0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]
        );
        for bad in ["", "0.1:0.2", "1.2", "0.3:0.1:0.1", "0.1:0.2:0", "x"] {
            assert!(packings(bad).is_err(), "{bad}");
        }
    }
}
