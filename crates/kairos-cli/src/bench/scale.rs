//! `kairos bench scale`: collisions per second and memory per body of the calendars on periodic
//! hard-sphere gases, and events per second of every broad phase on the thesis scene.
//!
//! Every measurement runs in a child process (this same binary, `bench scale-one`), so the
//! peak resident memory it reports belongs to that run alone.

use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::builder::{EnumValueParser, PossibleValue, TypedValueParser};
use clap::Args;
use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions};
use kairos::generate::{billiard, check_gas, gas_bodies, BilliardParams, GasParams};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::num::Num;
use kairos::sim::Simulation;
use kairos::world::World;
use serde::{Deserialize, Serialize};

use super::distinct;
use super::rows::{self, by_name};
use super::table::Table;
use crate::plot::{write_chart, Chart, Series, SeriesStyle};
use crate::show;

/// Arguments of `kairos bench scale`.
#[derive(Args)]
pub struct ScaleArgs {
    /// Numbers of bodies of the gas runs.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1000,10000,100000,1000000"
    )]
    pub n: Vec<usize>,
    /// Dimensions of the gas runs.
    #[arg(long, value_delimiter = ',', default_value = "2,3")]
    pub dims: Vec<usize>,
    /// Broad phases of the gas runs: `calendar`, `calendar-lists` (the others are compared on
    /// the thesis scene; at a million bodies they would not finish).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "calendar,calendar-lists",
        value_parser = GasBroadPhase
    )]
    pub gas_broad_phases: Vec<BroadPhaseKind>,
    /// Packing fraction of the 2D gases, from 0.01 (sparser gases collide too seldom to time).
    #[arg(long, default_value_t = 0.5)]
    pub packing_2d: f64,
    /// Packing fraction of the 3D gases, from 0.01.
    #[arg(long, default_value_t = 0.45)]
    pub packing_3d: f64,
    /// Collisions timed per gas run, per body, at most 1000 (after as many untimed ones for
    /// equilibration).
    #[arg(long, default_value_t = 5.0)]
    pub collisions_per_body: f64,
    /// Sizes of the thesis-scene comparison of broad phases.
    #[arg(long, value_delimiter = ',', default_value = "2048,16384")]
    pub thesis_n: Vec<usize>,
    /// Skip the thesis-scene comparison.
    #[arg(long)]
    pub no_thesis: bool,
    /// Skip the gas runs.
    #[arg(long)]
    pub no_gas: bool,
    /// Seconds after which a broad phase on the thesis scene is stopped (timed over a prefix).
    #[arg(long, default_value_t = 20.0)]
    pub thesis_budget: f64,
    /// Also write the measurements as CSV.
    #[arg(long)]
    pub csv: Option<std::path::PathBuf>,
    /// Also draw collisions per second against N (log-log) as SVG.
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
    /// Measure nothing: print the tables (and write --plot, --csv) from a CSV written by --csv.
    /// For a CSV without a `packing` column, the gases' packing is taken from --packing-2d and
    /// --packing-3d.
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "n", "dims", "gas_broad_phases", "collisions_per_body", "thesis_n", "thesis_budget",
    ])]
    pub from_csv: Option<std::path::PathBuf>,
}

/// Least packing fraction of the gases.
const MIN_PACKING: f64 = 0.01;
/// Most collisions per body of a gas run.
const MAX_COLLISIONS_PER_BODY: f64 = 1000.0;

/// The broad phases of the gas runs.
const GAS_BROAD_PHASES: [BroadPhaseKind; 2] =
    [BroadPhaseKind::Calendar, BroadPhaseKind::CalendarLists];

/// Parser of `--gas-broad-phases`: a broad phase's name, refused with the reason unless it is
/// one of [`GAS_BROAD_PHASES`] (the only ones `--help` lists).
#[derive(Clone)]
struct GasBroadPhase;

impl TypedValueParser for GasBroadPhase {
    type Value = BroadPhaseKind;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<BroadPhaseKind, clap::Error> {
        let kind = EnumValueParser::<BroadPhaseKind>::new().parse_ref(cmd, arg, value)?;
        if GAS_BROAD_PHASES.contains(&kind) {
            return Ok(kind);
        }
        let arg = arg.map_or("...".to_string(), |a| a.to_string());
        let message = format!(
            "invalid value '{kind}' for '{arg}': the gas runs take `calendar` or \
             `calendar-lists`, not `{kind}` (every broad phase is compared on the thesis scene)\n"
        );
        Err(clap::Error::raw(clap::error::ErrorKind::ValueValidation, message).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            GAS_BROAD_PHASES
                .iter()
                .map(|k| PossibleValue::new(k.name())),
        ))
    }
}

/// Arguments of the hidden `bench scale-one` (one measurement in this process).
#[derive(Args)]
pub struct ScaleOneArgs {
    /// `gas` or `thesis`.
    #[arg(long)]
    pub scene: String,
    #[arg(long)]
    pub dim: usize,
    #[arg(long)]
    pub n: usize,
    #[arg(long, default_value_t = 0.45)]
    pub packing: f64,
    #[arg(long, default_value_t = 5.0)]
    pub collisions_per_body: f64,
    #[arg(long, value_enum, default_value_t = BroadPhaseKind::Calendar)]
    pub broad_phase: BroadPhaseKind,
    #[arg(long, default_value_t = 20.0)]
    pub budget: f64,
}

/// One measurement, as the child prints it (JSON), and one line of the CSV written by `--csv`
/// and read by `--from-csv` (the columns in the order of the fields: `packing` came last, later,
/// and older files do not have it).
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Measurement {
    pub scene: String,
    pub dim: usize,
    pub n: usize,
    #[serde(with = "by_name")]
    pub broad_phase: BroadPhaseKind,
    pub collisions: u64,
    pub seconds: f64,
    pub collisions_per_second: f64,
    pub peak_rss_bytes: u64,
    pub bytes_per_body: f64,
    pub complete: bool,
    /// Packing fraction of the scene.
    #[serde(default)]
    pub packing: f64,
}

impl Measurement {
    /// A measurement of this process (the run `a` asked for, on a scene of dimension `dim`
    /// and packing fraction `packing`), with its peak resident memory.
    fn of_this_process(
        a: &ScaleOneArgs,
        dim: usize,
        packing: f64,
        collisions: u64,
        seconds: f64,
        complete: bool,
    ) -> Self {
        let rss = peak_rss();
        let n = a.n;
        Measurement {
            scene: a.scene.clone(),
            dim,
            n,
            packing,
            broad_phase: a.broad_phase,
            collisions,
            seconds,
            collisions_per_second: collisions as f64 / seconds,
            peak_rss_bytes: rss,
            bytes_per_body: rss as f64 / n as f64,
            complete,
        }
    }
}

/// Peak resident set size of this process (Linux `VmHWM`), 0 where unknown.
pub fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|k| k.parse::<u64>().ok())
            })
        })
        .map_or(0, |kb| kb * 1024)
}

/// The gas of a measurement.
fn gas_params(dim: usize, n: usize, packing: f64) -> GasParams {
    GasParams {
        dim,
        n,
        packing,
        seed: 1,
        ..Default::default()
    }
}

fn gas_run<V: Vector>(a: &ScaleOneArgs) -> Result<Measurement> {
    let p = gas_params(a.dim, a.n, a.packing);
    let (l, bodies) = gas_bodies::<V>(&p).map_err(anyhow::Error::msg)?;
    let world = World::builder(bodies, Vec::new())
        .period(l)
        .build()
        .unwrap();
    let mut sim = Simulation::new(
        world,
        a.broad_phase.build::<V>(&BroadPhaseOptions::default()),
        f64::MAX,
    );
    let target = (a.collisions_per_body * a.n as f64).max(1.0) as u64;
    // Equilibration: the lattice start melts.
    for _ in 0..target {
        sim.step();
    }
    let before = sim.counts().total();
    let start = Instant::now();
    for _ in 0..target {
        sim.step();
    }
    let seconds = start.elapsed().as_secs_f64();
    let collisions = sim.counts().total() - before;
    Ok(Measurement::of_this_process(
        a, a.dim, a.packing, collisions, seconds, true,
    ))
}

fn thesis_run(a: &ScaleOneArgs) -> Result<Measurement> {
    let scene = billiard(&BilliardParams {
        n: a.n,
        seed: 0,
        ..Default::default()
    })
    .map_err(anyhow::Error::msg)?;
    let mut sim = Simulation::new(
        scene.world::<DVec2>()?,
        a.broad_phase.build::<DVec2>(&BroadPhaseOptions::default()),
        scene.duration,
    );
    let start = Instant::now();
    let mut complete = true;
    let mut k = 0u64;
    while sim.step().is_some() {
        k += 1;
        if k % 16 == 0 && start.elapsed().as_secs_f64() > a.budget {
            complete = false;
            break;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let collisions = sim.counts().total();
    Ok(Measurement::of_this_process(
        a,
        2,
        BilliardParams::default().packing,
        collisions,
        seconds,
        complete,
    ))
}

pub fn scale_one(a: ScaleOneArgs) -> Result<ExitCode> {
    let m = match (a.scene.as_str(), a.dim) {
        ("gas", 2) => gas_run::<DVec2>(&a)?,
        ("gas", 3) => gas_run::<DVec3>(&a)?,
        ("thesis", _) => thesis_run(&a)?,
        (s, d) => anyhow::bail!("unknown scale scene {s} in {d}D"),
    };
    outln!("{}", serde_json::to_string(&m)?);
    Ok(ExitCode::SUCCESS)
}

fn child(args: &[&str]) -> Result<Measurement> {
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let out = Command::new(&exe)
        .arg("bench")
        .arg("scale-one")
        .args(args)
        .output()
        .with_context(|| {
            format!(
                "{}: cannot run this executable for a measurement",
                show(&exe)
            )
        })?;
    if !out.status.success() {
        // The child's own "error: " prefix is left to this process's report.
        let err = String::from_utf8_lossy(&out.stderr);
        let err = err.trim();
        anyhow::bail!(
            "measurement `bench scale-one {}` failed: {}",
            args.join(" "),
            err.strip_prefix("error: ").unwrap_or(err)
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(serde_json::from_str(text.trim())?)
}

/// The table of the gas runs, under its title.
fn gas_table() -> Table {
    outln!("## Periodic gases, one core\n");
    let table = Table::new()
        .right("dim")
        .right("N")
        .right("packing")
        .left("broad phase")
        .right("collisions timed")
        .right("seconds")
        .right("collisions/s")
        .right("peak RSS / body (bytes)");
    outln!("{}", table.head());
    table
}

/// The table of the thesis-scene comparison, under its title.
fn thesis_table() -> Table {
    outln!("\n## Thesis scene (5 s), every broad phase\n");
    let table = Table::new()
        .right("N")
        .left("broad phase")
        .right("collisions")
        .right("seconds")
        .right("events/s")
        .left("complete")
        .right("vs kaya-bvh");
    outln!("{}", table.head());
    table
}

fn gas_line(table: &Table, m: &Measurement) -> String {
    table.row(&[
        m.dim.to_string(),
        m.n.to_string(),
        m.packing.to_string(),
        m.broad_phase.to_string(),
        m.collisions.to_string(),
        format!("{:.3}", m.seconds),
        format!("{:.0}", m.collisions_per_second),
        format!("{:.0}", m.bytes_per_body),
    ])
}

/// The table lines of one size of the thesis-scene comparison.
fn thesis_lines(table: &Table, rows: &[Measurement]) -> Vec<String> {
    let kaya = rows
        .iter()
        .find(|m| m.broad_phase == BroadPhaseKind::KayaBvh)
        .map(|m| m.collisions_per_second);
    rows.iter()
        .map(|m| {
            let ratio = kaya.map_or("-".to_string(), |k| {
                format!("{:.1}x", m.collisions_per_second / k)
            });
            table.row(&[
                m.n.to_string(),
                m.broad_phase.to_string(),
                m.collisions.to_string(),
                format!("{:.3}", m.seconds),
                format!("{:.0}", m.collisions_per_second),
                (if m.complete { "yes" } else { "prefix" }).to_string(),
                ratio,
            ])
        })
        .collect()
}

/// Reads a CSV written by `bench scale --csv`; `packing` (absent from older files) is then
/// `packing_2d`/`packing_3d` for gases and the billiard's default for the thesis scene.
pub fn read_csv(
    path: &std::path::Path,
    packing_2d: f64,
    packing_3d: f64,
) -> Result<Vec<Measurement>> {
    let mut file = rows::read::<Measurement>(path, &["packing"])?;
    let has_packing = file.has("packing");
    if !has_packing {
        eprintln!(
            "note: {}: no packing column; gases are shown with --packing-2d {packing_2d} and --packing-3d {packing_3d}",
            path.display()
        );
    }
    for (line, m) in &file.rows {
        if !matches!((m.scene.as_str(), m.dim), ("gas", 2 | 3) | ("thesis", 2)) {
            return Err(file.error(
                *line,
                format!("unknown scale scene `{}` in {}D", m.scene, m.dim),
            ));
        }
    }
    if !has_packing {
        for (_, m) in &mut file.rows {
            m.packing = if m.scene == "thesis" {
                BilliardParams::default().packing
            } else if m.dim == 2 {
                packing_2d
            } else {
                packing_3d
            };
        }
    }
    file.nonempty()
}

/// Collisions per second against N on log-log axes, a line per scene, dimension, packing and
/// broad phase.
pub fn scale_chart(all: &[Measurement]) -> Chart {
    let key = |m: &Measurement| (m.scene.clone(), m.dim, m.packing.to_bits(), m.broad_phase);
    let keys = distinct(all.iter().map(key));
    let series = keys
        .iter()
        .map(|k| {
            let of: Vec<&Measurement> = all.iter().filter(|m| key(m) == *k).collect();
            let mut pts: Vec<(f64, f64)> = of
                .iter()
                .map(|m| (m.n as f64, m.collisions_per_second))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (scene, dim, _, bp) = k;
            let mut name = match scene.as_str() {
                "gas" => format!("{dim}D gas, packing {}, {bp}", of[0].packing),
                _ => format!("thesis scene, {bp}"),
            };
            if of.iter().any(|m| !m.complete) {
                name += " (stopped early)";
            }
            Series::new(name, SeriesStyle::Measured, pts)
        })
        .collect();
    Chart {
        title: "Collisions per second against N, one core".into(),
        x_label: "number of bodies N".into(),
        y_label: "collisions per second".into(),
        log_x: true,
        log_y: true,
        x_ticks: Vec::new(),
        series,
    }
}

/// Checks the arguments of a measuring run, before anything is printed.
fn check(a: &ScaleArgs) -> Result<()> {
    if !a.no_gas {
        for &d in &a.dims {
            anyhow::ensure!(
                d == 2 || d == 3,
                "--dims takes 2 and 3 (the gases' dimensions), got {d}"
            );
        }
        anyhow::ensure!(
            a.n.iter().all(|&n| n > 0),
            "--n takes numbers of bodies of at least 1"
        );
        for (flag, x) in [
            ("--packing-2d", a.packing_2d),
            ("--packing-3d", a.packing_3d),
        ] {
            anyhow::ensure!(
                (MIN_PACKING..1.0).contains(&x),
                "{flag} must be a packing fraction in [{MIN_PACKING}, 1), got {}",
                Num(x)
            );
        }
        anyhow::ensure!(
            a.collisions_per_body > 0.0 && a.collisions_per_body <= MAX_COLLISIONS_PER_BODY,
            "--collisions-per-body must be positive and at most {MAX_COLLISIONS_PER_BODY}, got {}",
            Num(a.collisions_per_body)
        );
        for &dim in &a.dims {
            for &n in &a.n {
                let packing = if dim == 2 { a.packing_2d } else { a.packing_3d };
                check_gas(&gas_params(dim, n, packing))
                    .map_err(|e| anyhow::anyhow!("the {dim}D gas of --n {n}: {e}"))?;
            }
        }
    }
    if !a.no_thesis {
        anyhow::ensure!(
            a.thesis_n.iter().all(|&n| n > 0),
            "--thesis-n takes numbers of bodies of at least 1"
        );
        anyhow::ensure!(
            a.thesis_budget > 0.0 && a.thesis_budget.is_finite(),
            "--thesis-budget must be a positive number of seconds, got {}",
            Num(a.thesis_budget)
        );
    }
    Ok(())
}

pub fn scale(a: ScaleArgs) -> Result<ExitCode> {
    if a.from_csv.is_none() {
        check(&a)?;
    }
    crate::output::Files::new()
        .output("--csv", a.csv.as_deref())
        .output("--plot", a.plot.as_deref())
        .check_from(a.from_csv.as_deref())?;
    let all = match &a.from_csv {
        Some(path) => {
            let mut all = read_csv(path, a.packing_2d, a.packing_3d)?;
            all.retain(|m| !(a.no_gas && m.scene == "gas" || a.no_thesis && m.scene == "thesis"));
            print_tables(&all);
            all
        }
        None => measure(&a)?,
    };
    if let Some(p) = &a.csv {
        rows::write(p, &all)?;
    }
    if let Some(p) = &a.plot {
        write_chart(p, &scale_chart(&all))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The tables of measurements read back, as `measure` printed them.
fn print_tables(all: &[Measurement]) {
    let gas: Vec<&Measurement> = all.iter().filter(|m| m.scene == "gas").collect();
    if !gas.is_empty() {
        let table = gas_table();
        for m in gas {
            outln!("{}", gas_line(&table, m));
        }
    }
    let thesis: Vec<Measurement> = all
        .iter()
        .filter(|m| m.scene == "thesis")
        .cloned()
        .collect();
    if !thesis.is_empty() {
        let table = thesis_table();
        for n in distinct(thesis.iter().map(|m| m.n)) {
            let rows: Vec<Measurement> = thesis.iter().filter(|m| m.n == n).cloned().collect();
            for line in thesis_lines(&table, &rows) {
                outln!("{line}");
            }
        }
    }
}

/// Runs every measurement in a child process, printing the tables as they fill.
fn measure(a: &ScaleArgs) -> Result<Vec<Measurement>> {
    let mut all = Vec::new();
    if !a.no_gas {
        let table = gas_table();
        for &dim in &a.dims {
            let packing = if dim == 2 { a.packing_2d } else { a.packing_3d };
            for &bp in &a.gas_broad_phases {
                for &n in &a.n {
                    let m = child(&[
                        "--scene",
                        "gas",
                        "--dim",
                        &dim.to_string(),
                        "--n",
                        &n.to_string(),
                        "--packing",
                        &packing.to_string(),
                        "--collisions-per-body",
                        &a.collisions_per_body.to_string(),
                        "--broad-phase",
                        bp.name(),
                    ])?;
                    outln!("{}", gas_line(&table, &m));
                    all.push(m);
                }
            }
        }
    }
    if !a.no_thesis {
        let table = thesis_table();
        for &n in &a.thesis_n {
            let mut rows = Vec::new();
            for bp in BroadPhaseKind::ALL {
                rows.push(child(&[
                    "--scene",
                    "thesis",
                    "--dim",
                    "2",
                    "--n",
                    &n.to_string(),
                    "--broad-phase",
                    bp.name(),
                    "--budget",
                    &a.thesis_budget.to_string(),
                ])?);
            }
            for line in thesis_lines(&table, &rows) {
                outln!("{line}");
            }
            all.extend(rows);
        }
    }
    Ok(all)
}
