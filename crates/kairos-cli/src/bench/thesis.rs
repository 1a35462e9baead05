//! `kairos bench thesis`: Table 5.1 of the thesis, measured here.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions};
use kairos::generate::billiard;
use kairos::math::DVec2;
use kairos::sim::Simulation;

use serde::{Deserialize, Serialize};

use super::rows::{self, by_name};
use super::table::Table;
use super::{distinct, median};
use crate::plot::{write_chart, Chart, Series, SeriesStyle};

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
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "all-pairs,kaya-bvh,calendar,sap,grid",
        value_enum
    )]
    pub broad_phases: Vec<BroadPhaseKind>,
    /// Runs (scenes with seeds 0..R) per size, 1 to 1000; times are medians, collisions means.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Skip a run whose projected time exceeds this many seconds.
    #[arg(long, default_value_t = 120.0)]
    pub budget: f64,
    /// Also write the measurements as CSV.
    #[arg(long)]
    pub csv: Option<std::path::PathBuf>,
    /// Also draw running time against N (log-log, with O(n^2) and O(n log n) references) as SVG.
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
    /// Measure nothing: print the table (and write --plot, --csv) from a CSV written by --csv.
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "n", "broad_phases", "runs", "budget",
        "dim", "packing", "radius_min", "radius_max", "aspect", "duration",
    ])]
    pub from_csv: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub table: crate::commands::generate::TableArgs,
}

/// Growth exponent of a broad phase's total running time with N on this scene (events grow
/// as N^1.5): used only to project whether the next size fits the time budget.
fn growth_exponent(k: BroadPhaseKind) -> f64 {
    match k {
        BroadPhaseKind::AllPairs => 3.5,
        BroadPhaseKind::KayaBvh => 2.6,
        BroadPhaseKind::Calendar | BroadPhaseKind::CalendarLists => 1.7,
        // O(n) swept boxes per search.
        BroadPhaseKind::Sap | BroadPhaseKind::Grid => 2.5,
    }
}

/// One line of the CSV written by `--csv` and read by `--from-csv`: one broad phase at one
/// size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThesisRow {
    pub n: usize,
    #[serde(with = "by_name")]
    pub broad_phase: BroadPhaseKind,
    pub runs: usize,
    /// Mean over the seeds of the collisions (ball-ball and ball-wall).
    pub collisions_mean: f64,
    pub seconds_median: f64,
    pub seconds_min: f64,
    pub events_per_second: f64,
}

/// Reads a CSV written by `bench thesis --csv`.
pub fn read_csv(path: &std::path::Path) -> Result<Vec<ThesisRow>> {
    let file = rows::read::<ThesisRow>(path, &[])?;
    for (k, (line, row)) in file.rows.iter().enumerate() {
        if file.rows[..k]
            .iter()
            .any(|(_, o)| o.n == row.n && o.broad_phase == row.broad_phase)
        {
            return Err(file.error(
                *line,
                format!("a second row for {} at N = {}", row.broad_phase, row.n),
            ));
        }
    }
    file.nonempty()
}

/// Prints the markdown table: a row per size, a column per broad phase (`skipped` where `rows`
/// has no measurement), then the speedups over all-pairs when it is one of the columns.
fn print_table(sizes: &[usize], broad_phases: &[BroadPhaseKind], rows: &[ThesisRow]) {
    // Speedup of every other broad phase over all-pairs, when all-pairs was timed.
    let reference = broad_phases
        .iter()
        .position(|&k| k == BroadPhaseKind::AllPairs);
    let others: Vec<usize> = match reference {
        Some(r) => (0..broad_phases.len()).filter(|&k| k != r).collect(),
        None => Vec::new(),
    };
    let mut table = Table::new().right("N").right("collisions");
    for bp in broad_phases {
        table = table.right(format!("{bp} (s)"));
    }
    for &k in &others {
        table = table.right(format!("speedup {}", broad_phases[k]));
    }
    outln!("{}", table.head());
    for &n in sizes {
        let at_n: Vec<&ThesisRow> = rows.iter().filter(|r| r.n == n).collect();
        let collisions = at_n
            .first()
            .map_or("-".to_string(), |r| format!("{:.1}", r.collisions_mean));
        let meds: Vec<Option<f64>> = broad_phases
            .iter()
            .map(|&bp| {
                at_n.iter()
                    .find(|r| r.broad_phase == bp)
                    .map(|r| r.seconds_median)
            })
            .collect();
        let mut cells = vec![n.to_string(), collisions];
        for m in &meds {
            cells.push(match m {
                Some(s) => format!("{s:.6}"),
                None => "skipped".to_string(),
            });
        }
        for &k in &others {
            cells.push(match (reference.and_then(|r| meds[r]), meds[k]) {
                (Some(x), Some(y)) if y > 0.0 => format!("{:.1}x", x / y),
                _ => "-".to_string(),
            });
        }
        outln!("{}", table.row(&cells));
    }
}

/// Running time against N on log-log axes, a line per broad phase, with `O(n^2)` and
/// `O(n log n)` reference curves (the thesis's Figure 5.1).
///
/// Both reference curves start at the smallest N (at least 2) at the geometric mean of the
/// broad phases' times there, so their slopes can be compared with every broad phase's.
pub fn thesis_chart(rows: &[ThesisRow]) -> Chart {
    let mut series: Vec<Series> = distinct(rows.iter().map(|r| r.broad_phase))
        .into_iter()
        .map(|bp| {
            let mut pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.broad_phase == bp)
                .map(|r| (r.n as f64, r.seconds_median))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series::new(bp.name(), SeriesStyle::Measured, pts)
        })
        .collect();
    let mut sizes = distinct(rows.iter().map(|r| r.n));
    sizes.sort_unstable();
    let n0 = sizes.iter().copied().find(|&n| n >= 2);
    let n1 = sizes.last().copied();
    if let (Some(n0), Some(n1)) = (n0, n1) {
        let at_n0: Vec<f64> = rows
            .iter()
            .filter(|r| r.n == n0 && r.seconds_median > 0.0)
            .map(|r| r.seconds_median.ln())
            .collect();
        if n1 > n0 && !at_n0.is_empty() {
            let y0 = (at_n0.iter().sum::<f64>() / at_n0.len() as f64).exp();
            let (a, b) = (n0 as f64, n1 as f64);
            let xs: Vec<f64> = (0..=40)
                .map(|i| a * (b / a).powf(i as f64 / 40.0))
                .collect();
            let curve = |name: &str, f: &dyn Fn(f64) -> f64| {
                Series::new(
                    name,
                    SeriesStyle::Reference,
                    xs.iter().map(|&x| (x, y0 * f(x) / f(a))).collect(),
                )
            };
            series.push(curve("O(n²) reference", &|x| x * x));
            series.push(curve("O(n log n) reference", &|x| x * x.ln()));
        }
    }
    let runs = distinct(rows.iter().map(|r| r.runs));
    let y_label = match runs.as_slice() {
        [1] => "running time (s), one run".to_string(),
        [r] => format!("running time (s), median of {r} runs"),
        _ => "running time (s), median over the runs".to_string(),
    };
    Chart {
        title: "Billiard scene (thesis Figure 5.1): running time against N".into(),
        x_label: "number of balls N".into(),
        y_label,
        log_x: true,
        log_y: true,
        x_ticks: if sizes.len() <= 12 {
            sizes.iter().map(|&n| n as f64).collect()
        } else {
            Vec::new()
        },
        series,
    }
}

pub fn thesis(a: ThesisArgs) -> Result<ExitCode> {
    crate::output::Files::new()
        .output("--csv", a.csv.as_deref())
        .output("--plot", a.plot.as_deref())
        .check_from(a.from_csv.as_deref())?;
    let (sizes, broad_phases, rows) = match &a.from_csv {
        Some(path) => {
            let rows = read_csv(path)?;
            let sizes = distinct(rows.iter().map(|r| r.n));
            let broad_phases = distinct(rows.iter().map(|r| r.broad_phase));
            (sizes, broad_phases, rows)
        }
        None => (a.n.clone(), a.broad_phases.clone(), measure(&a)?),
    };
    print_table(&sizes, &broad_phases, &rows);
    if let Some(p) = &a.csv {
        rows::write(p, &rows)?;
    }
    if let Some(p) = &a.plot {
        write_chart(p, &thesis_chart(&rows))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Times every broad phase at every size (progress on stderr).
fn measure(a: &ThesisArgs) -> Result<Vec<ThesisRow>> {
    super::check_count("--runs", a.runs, super::MAX_RUNS)?;
    super::check_budget_and_duration(a.budget, a.table.duration)?;
    anyhow::ensure!(!a.broad_phases.is_empty(), "--broad-phases is empty");
    let opts = BroadPhaseOptions::default();
    let mut last: Vec<Option<(usize, f64)>> = vec![None; a.broad_phases.len()];
    let mut rows = Vec::new();
    for &n in &a.n {
        let mut counts: Vec<u64> = Vec::new();
        for (k, &bp) in a.broad_phases.iter().enumerate() {
            if let Some((n0, t0)) = last[k] {
                let projected = t0 * (n as f64 / n0 as f64).powf(growth_exponent(bp));
                if projected > a.budget {
                    eprintln!(
                        "skipping {bp} at N = {n}: projected {projected:.0} s per run exceeds the budget of {} s",
                        a.budget
                    );
                    last[k] = Some((n, projected));
                    continue;
                }
            }
            let mut seconds = Vec::new();
            for run in 0..a.runs {
                let scene = billiard(&a.table.params(n, run as u64)).map_err(anyhow::Error::msg)?;
                let mut sim = Simulation::new(
                    scene.world::<DVec2>()?,
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
            eprintln!("N = {n:5} {bp:10} {med:10.4} s  ({mean_events:.0} collisions)");
            rows.push(ThesisRow {
                n,
                broad_phase: bp,
                runs: a.runs,
                collisions_mean: mean_events,
                seconds_median: med,
                seconds_min: min,
                events_per_second: mean_events / med,
            });
        }
    }
    Ok(rows)
}
