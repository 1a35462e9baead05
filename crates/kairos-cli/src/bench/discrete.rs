//! `kairos bench discrete`: Table 5.2 of the thesis, measured here. Continuous time (every
//! event-driven broad phase) against discrete time steps, in seconds and missed collisions;
//! with `--rigid`, the same on the rigid-body gases (`generate polygons` in 2D, `generate
//! boxes` in 3D).

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions};
use kairos::discrete::{DiscreteOptions, DiscreteSim};
use kairos::generate::{billiard, boxes, polygons, RigidGasParams};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::num::Num;
use kairos::overlap::OverlapKind;
use kairos::scene::Scene;
use kairos::sim::Simulation;

use serde::{Deserialize, Serialize};

use super::median;
use super::rows;
use super::table::Table;
use crate::plot::{discrete_chart, write_chart, DiscreteRow};

/// Arguments of `kairos bench discrete`.
#[derive(Args)]
pub struct DiscreteArgs {
    /// Number of balls (the thesis: 1024).
    #[arg(long, default_value_t = 1024)]
    pub n: usize,
    /// Runs (scenes with seeds 0..R), 1 to 1000; times are medians, counts means.
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
    /// Rigid bodies instead of balls: the scenes of `kairos generate polygons` (--dim 2) or
    /// `kairos generate boxes` (--dim 3) with --n bodies and --duration. The table then also
    /// gives the steps, the time per simulated time unit and the misses as a share of the
    /// event-driven collisions (with --from-csv, give the --duration the CSV was measured with).
    #[arg(long)]
    pub rigid: bool,
    /// Fraction of the room covered by the rigid bodies' bounding discs or balls (--rigid).
    #[arg(long, default_value_t = RigidGasParams::default().packing)]
    pub rigid_packing: f64,
    #[command(flatten)]
    pub table: crate::commands::generate::TableArgs,
}

/// One row of the table, and one line of the CSV written by `--csv` and read by `--from-csv`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// The broad phase (event-driven or discrete).
    pub broad_phase: String,
    /// The time step of a discrete row.
    pub dt: Option<f64>,
    /// Sub-steps per step (1 for continuous rows).
    pub substeps: u32,
    /// The contact-time rewind was used.
    pub rewind: bool,
    pub seconds: f64,
    pub contacts: f64,
    pub missed: f64,
    /// Fraction of the simulated time reached within the budget (1 when complete).
    pub reached: f64,
}

impl Row {
    /// What ran, in words.
    pub fn label(&self) -> String {
        match self.dt {
            None => format!("continuous ({})", self.broad_phase),
            Some(dt) if self.rewind => format!("discrete dt = {}, rewind", Num(dt)),
            Some(dt) if self.substeps > 1 => {
                format!("discrete dt = {}, {} sub-steps", Num(dt), self.substeps)
            }
            Some(dt) => format!("discrete dt = {}", Num(dt)),
        }
    }

    /// A plain fixed-step row (no sub-steps, no rewind).
    fn plain(&self) -> bool {
        self.dt.is_some() && self.substeps == 1 && !self.rewind
    }
}

/// Times one event-driven run: (seconds, collisions, fraction of the time reached).
fn time_event<V: Vector>(
    scene: &Scene,
    kind: BroadPhaseKind,
    budget: f64,
) -> anyhow::Result<(f64, u64, f64)> {
    let mut sim = Simulation::new(
        scene.world::<V>()?,
        kind.build::<V>(&BroadPhaseOptions::default()),
        scene.duration,
    );
    let start = Instant::now();
    let mut k = 0u64;
    while let Some(e) = sim.step() {
        k += 1;
        if k % 1024 == 0 && start.elapsed().as_secs_f64() > budget {
            return Ok((
                start.elapsed().as_secs_f64(),
                sim.counts().total(),
                e.time / scene.duration,
            ));
        }
    }
    Ok((start.elapsed().as_secs_f64(), sim.counts().total(), 1.0))
}

/// Times one discrete run without the miss counter, then counts the misses of the identical
/// trajectory (the counter never changes the run): (seconds, contacts, misses, reached).
fn time_discrete<V: Vector>(
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
        let mut sim = DiscreteSim::new(scene.world::<V>()?, kind, opts, scene.duration)
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
    super::check_count("--runs", a.runs, super::MAX_RUNS)?;
    super::check_budget_and_duration(a.budget, a.table.duration)?;
    anyhow::ensure!(
        a.rigid_packing > 0.0 && a.rigid_packing.is_finite(),
        "--rigid-packing must be a positive packing fraction, got {}",
        Num(a.rigid_packing)
    );
    // Every time step before the first row is measured.
    for (flag, dts) in [("--dts", &a.dts), ("--rewind", &a.rewind)] {
        if let Some(dt) = dts.iter().find(|dt| !(**dt > 0.0 && dt.is_finite())) {
            anyhow::bail!("{flag} takes positive, finite time steps, got {}", Num(*dt));
        }
    }
    if a.rigid {
        anyhow::ensure!(
            a.table.dim == 2 || a.table.dim == 3,
            "--dim must be 2 (polygons) or 3 (boxes)"
        );
        let scenes: Vec<Scene> = (0..a.runs)
            .map(|seed| {
                let p = RigidGasParams {
                    n: a.n,
                    seed: seed as u64,
                    packing: a.rigid_packing,
                    duration: a.table.duration,
                    ..Default::default()
                };
                if a.table.dim == 2 {
                    polygons(&p)
                } else {
                    boxes(&p)
                }
                .map_err(anyhow::Error::msg)
            })
            .collect::<Result<_>>()?;
        return if a.table.dim == 2 {
            measure_scenes::<DVec2>(a, &scenes)
        } else {
            measure_scenes::<DVec3>(a, &scenes)
        };
    }
    anyhow::ensure!(
        a.table.dim == 2,
        "bench discrete uses the 2D thesis scene (--dim 2; --rigid for 3D boxes)"
    );
    let scenes: Vec<Scene> = (0..a.runs)
        .map(|seed| billiard(&a.table.params(a.n, seed as u64)).map_err(anyhow::Error::msg))
        .collect::<Result<_>>()?;
    measure_scenes::<DVec2>(a, &scenes)
}

/// Measures every row on `scenes`.
fn measure_scenes<V: Vector>(a: &DiscreteArgs, scenes: &[Scene]) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for &kind in &a.broad_phases {
        let (mut secs, mut contacts, mut reached) = (Vec::new(), 0u64, 1.0f64);
        for s in scenes {
            let (t, c, r) = time_event::<V>(s, kind, a.budget)?;
            secs.push(t);
            contacts += c;
            reached = reached.min(r);
        }
        let row = Row {
            broad_phase: kind.name().into(),
            dt: None,
            substeps: 1,
            rewind: false,
            seconds: median(&secs),
            contacts: contacts as f64 / scenes.len() as f64,
            missed: 0.0,
            reached,
        };
        eprintln!("{:32} {:10.3} s", row.label(), row.seconds);
        rows.push(row);
    }
    let mut configs: Vec<DiscreteOptions> = Vec::new();
    let base = DiscreteOptions::default();
    for &dt in &a.dts {
        configs.push(DiscreteOptions {
            dt,
            substeps: 1,
            toi_rewind: false,
            ..base
        });
    }
    for spec in a.substeps.iter().filter(|s| !s.is_empty()) {
        let (dt, k) = spec
            .split_once(':')
            .and_then(|(d, k)| Some((d.parse::<f64>().ok()?, k.parse::<u32>().ok()?)))
            .ok_or_else(|| anyhow::anyhow!("--substeps: expected DT:K, got `{spec}`"))?;
        configs.push(DiscreteOptions {
            dt,
            substeps: k,
            toi_rewind: false,
            ..base
        });
    }
    for &dt in &a.rewind {
        configs.push(DiscreteOptions {
            dt,
            substeps: 1,
            toi_rewind: true,
            ..base
        });
    }
    for opts in configs {
        opts.validate().map_err(anyhow::Error::msg)?;
        let (mut secs, mut contacts, mut misses, mut reached) = (Vec::new(), 0u64, 0u64, 1.0f64);
        for s in scenes {
            let (t, c, m, r) = time_discrete::<V>(s, a.discrete_broad_phase, opts, a.budget)?;
            secs.push(t);
            contacts += c;
            misses += m;
            reached = reached.min(r);
        }
        let row = Row {
            broad_phase: a.discrete_broad_phase.name().into(),
            dt: Some(opts.dt),
            substeps: opts.substeps,
            rewind: opts.toi_rewind,
            seconds: median(&secs),
            contacts: contacts as f64 / scenes.len() as f64,
            missed: misses as f64 / scenes.len() as f64,
            reached,
        };
        eprintln!(
            "{:32} {:10.3} s  {:10.1} misses",
            row.label(),
            row.seconds,
            row.missed
        );
        rows.push(row);
    }
    Ok(rows)
}

/// Prints the markdown table of the rigid-body runs of `duration`: steps, time per simulated
/// time unit, and misses as a share of the collisions of the first event-driven row.
fn print_rigid_table(rows: &[Row], duration: f64) {
    let table = Table::new()
        .left("algorithm")
        .right("steps")
        .right("seconds")
        .right("seconds per time unit")
        .right("collisions resolved")
        .right("missed collisions")
        .right("missed (% of event-driven)");
    outln!("{}", table.head());
    let exact = rows
        .iter()
        .find(|r| r.dt.is_none() && r.reached >= 1.0)
        .map(|r| r.contacts);
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
        let reached = duration * r.reached;
        let per_unit = if reached > 0.0 {
            format!("{:.4}", r.seconds / reached)
        } else {
            String::new()
        };
        let (label, steps) = match r.dt {
            Some(dt) => (
                format!("{} ({})", r.label(), r.broad_phase),
                format!("{}", (duration / dt).ceil() * r.substeps as f64),
            ),
            None => (r.label(), String::new()),
        };
        let share = match exact {
            Some(e) if e > 0.0 => format!("{:.2}%", 100.0 * r.missed / e),
            _ => String::new(),
        };
        let cells = [
            label,
            steps,
            secs,
            per_unit,
            format!("{:.1}", r.contacts),
            format!("{:.1}", r.missed),
            share,
        ];
        outln!("{}", table.row(&cells));
    }
}

/// Prints the markdown table.
fn print_table(rows: &[Row]) {
    let table = Table::new()
        .left("algorithm")
        .right("seconds")
        .right("contacts resolved")
        .right("missed collisions");
    outln!("{}", table.head());
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
            format!("{} ({})", r.label(), r.broad_phase)
        } else {
            r.label()
        };
        let cells = [
            label,
            secs,
            format!("{:.1}", r.contacts),
            format!("{:.2}", r.missed),
        ];
        outln!("{}", table.row(&cells));
    }
}

/// Rows read back from a CSV written by `--csv`.
fn read_csv(path: &std::path::Path) -> Result<Vec<Row>> {
    let file = rows::read::<Row>(path, &[])?;
    for (line, r) in &file.rows {
        if r.substeps < 1 {
            return Err(file.error(*line, "substeps must be at least 1"));
        }
    }
    file.nonempty()
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
    if a.rigid {
        print_rigid_table(&rows, a.table.duration);
    } else {
        print_table(&rows);
    }
    if let Some(p) = &a.csv {
        rows::write(p, &rows)?;
    }
    if let Some(p) = &a.plot {
        // A run stopped by the time budget has no total time: it is left out of the picture.
        let chart_rows: Vec<DiscreteRow> = rows
            .iter()
            .filter(|r| r.reached >= 1.0)
            .map(|r| DiscreteRow {
                label: r.label(),
                seconds: r.seconds,
                missed: r.missed,
                dt: r.dt.filter(|_| r.plain()),
            })
            .collect();
        write_chart(p, &discrete_chart(&chart_rows))?;
    }
    Ok(ExitCode::SUCCESS)
}
