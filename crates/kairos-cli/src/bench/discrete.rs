//! `kairos bench discrete`: Table 5.2 of the thesis, measured here. Continuous time (every
//! event-driven broad phase) against discrete time steps, in seconds and missed collisions.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions};
use kairos::discrete::{DiscreteOptions, DiscreteSim};
use kairos::generate::billiard;
use kairos::math::DVec2;
use kairos::overlap::OverlapKind;
use kairos::scene::Scene;
use kairos::sim::Simulation;

use crate::csv_in::CsvFile;
use crate::output::write_text;
use crate::plot::{discrete_chart, write_chart, DiscreteRow};

/// Arguments of `kairos bench discrete`.
#[derive(Args)]
pub struct DiscreteArgs {
    /// Number of balls (the thesis: 1024).
    #[arg(long, default_value_t = 1024)]
    pub n: usize,
    /// Runs (scenes with seeds 0..R); times are medians, counts means.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Event-driven broad phases to time.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "calendar,sap,grid,kaya-bvh,all-pairs",
        value_enum
    )]
    pub broad_phases: Vec<BroadPhaseKind>,
    /// Time steps of the discrete rows.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0.001,0.005,0.01,0.03,0.1,1"
    )]
    pub dts: Vec<f64>,
    /// Discrete broad phase of the discrete rows (the thesis compared a BVH).
    #[arg(long, value_enum, default_value_t = OverlapKind::Bvh)]
    pub discrete_broad_phase: OverlapKind,
    /// Extra rows with sub-steps, as DT:K (K sub-steps per DT).
    #[arg(long, value_delimiter = ',', default_value = "0.1:10,0.03:3")]
    pub substeps: Vec<String>,
    /// Extra rows with the contact-time rewind, at these time steps.
    #[arg(long, value_delimiter = ',', default_value = "0.01,0.1")]
    pub rewind: Vec<f64>,
    /// Stop a run after this many seconds and report it as incomplete.
    #[arg(long, default_value_t = 300.0)]
    pub budget: f64,
    /// Also write the measurements as CSV.
    #[arg(long)]
    pub csv: Option<std::path::PathBuf>,
    /// Also draw running time against missed collisions (SVG; runs stopped by the budget are
    /// left out).
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
    /// Measure nothing: print the table (and --plot, --csv) again from a CSV written by --csv.
    #[arg(long, value_name = "CSV")]
    pub from_csv: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub table: crate::commands::run::TableArgs,
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Row {
    pub label: String,
    /// The broad phase (event-driven or discrete).
    pub broad_phase: String,
    /// The time step of a discrete row.
    pub dt: Option<f64>,
    /// Sub-steps per step (1 for continuous rows).
    pub substeps: u32,
    /// The contact-time rewind was used.
    pub rewind: bool,
    /// A plain fixed-step row (no sub-steps, no rewind).
    pub plain: bool,
    pub seconds: f64,
    pub contacts: f64,
    pub misses: f64,
    /// Fraction of the simulated time reached within the budget (1 when complete).
    pub reached: f64,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

/// Times one event-driven run: (seconds, collisions, fraction of the time reached).
fn time_event(scene: &Scene, kind: BroadPhaseKind, budget: f64) -> (f64, u64, f64) {
    let mut sim = Simulation::new(
        scene.world::<DVec2>(),
        kind.build::<DVec2>(&BroadPhaseOptions::default()),
        scene.duration,
    );
    let start = Instant::now();
    let mut k = 0u64;
    while let Some(e) = sim.step() {
        k += 1;
        if k % 1024 == 0 && start.elapsed().as_secs_f64() > budget {
            return (
                start.elapsed().as_secs_f64(),
                sim.counts().total(),
                e.time / scene.duration,
            );
        }
    }
    (start.elapsed().as_secs_f64(), sim.counts().total(), 1.0)
}

/// Times one discrete run without the miss counter, then counts the misses of the identical
/// trajectory (the counter never changes the run): (seconds, contacts, misses, reached).
fn time_discrete(
    scene: &Scene,
    kind: OverlapKind,
    opts: DiscreteOptions,
    budget: f64,
) -> Result<(f64, u64, u64, f64)> {
    let run = |count: bool| -> Result<(f64, u64, u64, f64)> {
        let opts = DiscreteOptions {
            count_misses: count,
            ..opts
        };
        let mut sim = DiscreteSim::new(scene.world::<DVec2>(), kind, opts, scene.duration)
            .map_err(anyhow::Error::msg)?;
        let start = Instant::now();
        while sim.step(|_, _| {}) {
            if sim.steps() % 64 == 0 && start.elapsed().as_secs_f64() > budget {
                break;
            }
        }
        Ok((
            start.elapsed().as_secs_f64(),
            sim.counts().total(),
            sim.misses().total(),
            sim.now() / scene.duration,
        ))
    };
    let (seconds, contacts, _, reached) = run(false)?;
    let (_, counted, misses, _) = run(true)?;
    anyhow::ensure!(
        counted == contacts || reached < 1.0,
        "the miss counter changed the run ({contacts} vs {counted} contacts)"
    );
    Ok((seconds, contacts, misses, reached))
}

/// Measures every row.
pub fn measure(a: &DiscreteArgs) -> Result<Vec<Row>> {
    anyhow::ensure!(a.runs >= 1, "--runs must be at least 1");
    anyhow::ensure!(
        a.table.dim == 2,
        "bench discrete uses the 2D thesis scene (--dim 2)"
    );
    let scenes: Vec<Scene> = (0..a.runs)
        .map(|seed| billiard(&a.table.params(a.n, seed as u64)).map_err(anyhow::Error::msg))
        .collect::<Result<_>>()?;
    let mut rows = Vec::new();
    for &kind in &a.broad_phases {
        let (mut secs, mut contacts, mut reached) = (Vec::new(), 0u64, 1.0f64);
        for s in &scenes {
            let (t, c, r) = time_event(s, kind, a.budget);
            secs.push(t);
            contacts += c;
            reached = reached.min(r);
        }
        let row = Row {
            label: format!("continuous ({kind})"),
            broad_phase: kind.name().into(),
            dt: None,
            substeps: 1,
            rewind: false,
            plain: false,
            seconds: median(&mut secs),
            contacts: contacts as f64 / scenes.len() as f64,
            misses: 0.0,
            reached,
        };
        eprintln!("{:32} {:10.3} s", row.label, row.seconds);
        rows.push(row);
    }
    let mut configs: Vec<(String, DiscreteOptions)> = Vec::new();
    let base = DiscreteOptions::default();
    for &dt in &a.dts {
        configs.push((
            label(Some(dt), 1, false, ""),
            DiscreteOptions {
                dt,
                substeps: 1,
                toi_rewind: false,
                ..base
            },
        ));
    }
    for spec in &a.substeps {
        let (dt, k) = spec
            .split_once(':')
            .and_then(|(d, k)| Some((d.parse::<f64>().ok()?, k.parse::<u32>().ok()?)))
            .ok_or_else(|| anyhow::anyhow!("--substeps: expected DT:K, got `{spec}`"))?;
        configs.push((
            label(Some(dt), k, false, ""),
            DiscreteOptions {
                dt,
                substeps: k,
                toi_rewind: false,
                ..base
            },
        ));
    }
    for &dt in &a.rewind {
        configs.push((
            label(Some(dt), 1, true, ""),
            DiscreteOptions {
                dt,
                substeps: 1,
                toi_rewind: true,
                ..base
            },
        ));
    }
    for (label, opts) in configs {
        opts.validate().map_err(anyhow::Error::msg)?;
        let (mut secs, mut contacts, mut misses, mut reached) = (Vec::new(), 0u64, 0u64, 1.0f64);
        for s in &scenes {
            let (t, c, m, r) = time_discrete(s, a.discrete_broad_phase, opts, a.budget)?;
            secs.push(t);
            contacts += c;
            misses += m;
            reached = reached.min(r);
        }
        let row = Row {
            label,
            broad_phase: a.discrete_broad_phase.name().into(),
            dt: Some(opts.dt),
            substeps: opts.substeps,
            rewind: opts.toi_rewind,
            plain: opts.substeps == 1 && !opts.toi_rewind,
            seconds: median(&mut secs),
            contacts: contacts as f64 / scenes.len() as f64,
            misses: misses as f64 / scenes.len() as f64,
            reached,
        };
        eprintln!(
            "{:32} {:10.3} s  {:10.1} misses",
            row.label, row.seconds, row.misses
        );
        rows.push(row);
    }
    Ok(rows)
}

/// The markdown table.
pub fn table(rows: &[Row]) -> String {
    let mut out = format!(
        "| algorithm | seconds | contacts resolved | missed collisions |\n|---|---:|---:|---:|\n"
    );
    for r in rows {
        let secs = if r.reached < 1.0 {
            format!(
                "> {:.1} (stopped at {:.0}% of the run)",
                r.seconds,
                100.0 * r.reached
            )
        } else {
            format!("{:.3}", r.seconds)
        };
        let label = if r.dt.is_some() {
            format!("{} ({})", r.label, r.broad_phase)
        } else {
            r.label.clone()
        };
        out += &format!(
            "| {label} | {secs} | {:.1} | {:.2} |\n",
            r.contacts, r.misses
        );
    }
    out
}

const CSV_COLUMNS: [&str; 8] = [
    "broad_phase",
    "dt",
    "substeps",
    "rewind",
    "seconds",
    "contacts",
    "missed",
    "reached",
];

/// The label of a row from its parameters.
fn label(dt: Option<f64>, substeps: u32, rewind: bool, broad_phase: &str) -> String {
    match dt {
        None => format!("continuous ({broad_phase})"),
        Some(dt) if rewind => format!("discrete dt = {dt}, rewind"),
        Some(dt) if substeps > 1 => format!("discrete dt = {dt}, {substeps} sub-steps"),
        Some(dt) => format!("discrete dt = {dt}"),
    }
}

/// Rows read back from a CSV written by `--csv`.
fn read_csv(path: &std::path::Path) -> Result<Vec<Row>> {
    let file = CsvFile::read(path)?;
    file.require(&CSV_COLUMNS)?;
    let mut rows = Vec::new();
    for r in file.records() {
        let dt_text = r.text("dt")?;
        let dt = if dt_text.is_empty() {
            None
        } else {
            Some(r.amount("dt")?)
        };
        let substeps: u32 = r.parse("substeps")?;
        let rewind: bool = r.parse("rewind")?;
        let broad_phase = r.text("broad_phase")?.to_string();
        anyhow::ensure!(substeps >= 1, r.error("substeps must be at least 1"));
        rows.push(Row {
            label: label(dt, substeps, rewind, &broad_phase),
            broad_phase,
            dt,
            substeps,
            rewind,
            plain: dt.is_some() && substeps == 1 && !rewind,
            seconds: r.amount("seconds")?,
            contacts: r.amount("contacts")?,
            misses: r.amount("missed")?,
            reached: r.amount("reached")?,
        });
    }
    anyhow::ensure!(!rows.is_empty(), "{}: no rows", path.display());
    Ok(rows)
}

pub fn discrete(a: DiscreteArgs) -> Result<ExitCode> {
    crate::output::Files::new()
        .output("--csv", a.csv.as_deref())
        .output("--plot", a.plot.as_deref())
        .check_from(a.from_csv.as_deref())?;
    let rows = match &a.from_csv {
        Some(p) => read_csv(p)?,
        None => measure(&a)?,
    };
    print!("{}", table(&rows));
    if let Some(p) = &a.csv {
        let mut csv = CSV_COLUMNS.join(",") + "\n";
        for r in &rows {
            csv += &format!(
                "{},{},{},{},{},{},{},{}\n",
                r.broad_phase,
                r.dt.map_or(String::new(), |d| d.to_string()),
                r.substeps,
                r.rewind,
                r.seconds,
                r.contacts,
                r.misses,
                r.reached
            );
        }
        write_text(p, &csv)?;
    }
    if let Some(p) = &a.plot {
        // A run stopped by the time budget has no total time: it is left out of the picture.
        let chart_rows: Vec<DiscreteRow> = rows
            .iter()
            .filter(|r| r.reached >= 1.0)
            .map(|r| DiscreteRow {
                label: r.label.clone(),
                seconds: r.seconds,
                missed: r.misses,
                dt: r.dt.filter(|_| r.plain),
            })
            .collect();
        write_chart(p, &discrete_chart(&chart_rows))?;
    }
    Ok(ExitCode::SUCCESS)
}
