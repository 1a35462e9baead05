//! `kairos bench scale`: collisions per second and memory per body of the calendar on periodic
//! hard-sphere gases, and events per second of every broad phase on the thesis scene.
//!
//! Every measurement runs in a child process (this same binary, `bench scale-one`), so the
//! peak resident memory it reports belongs to that run alone.

use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions};
use kairos::generate::{billiard, gas_bodies, BilliardParams, GasParams};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::sim::Simulation;
use kairos::world::World;
use serde::{Deserialize, Serialize};

use crate::output::write_text;

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
    /// Packing fraction of the 2D gases.
    #[arg(long, default_value_t = 0.5)]
    pub packing_2d: f64,
    /// Packing fraction of the 3D gases.
    #[arg(long, default_value_t = 0.45)]
    pub packing_3d: f64,
    /// Collisions timed per gas run, per body (after as many untimed ones for equilibration).
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
    #[arg(long, default_value = "calendar", value_parser = crate::parse_broad_phase)]
    pub broad_phase: BroadPhaseKind,
    #[arg(long, default_value_t = 20.0)]
    pub budget: f64,
}

/// One measurement, as the child prints it.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Measurement {
    pub scene: String,
    pub dim: usize,
    pub n: usize,
    pub broad_phase: String,
    pub collisions: u64,
    pub seconds: f64,
    pub collisions_per_second: f64,
    pub peak_rss_bytes: u64,
    pub bytes_per_body: f64,
    pub complete: bool,
}

impl Measurement {
    /// A measurement of this process, with its peak resident memory.
    fn of_this_process(
        scene: &str,
        dim: usize,
        n: usize,
        broad: BroadPhaseKind,
        collisions: u64,
        seconds: f64,
        complete: bool,
    ) -> Self {
        let rss = peak_rss();
        Measurement {
            scene: scene.into(),
            dim,
            n,
            broad_phase: broad.name().into(),
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

fn gas_run<V: Vector>(a: &ScaleOneArgs) -> Result<Measurement> {
    let p = GasParams {
        dim: a.dim,
        n: a.n,
        packing: a.packing,
        seed: 1,
        ..Default::default()
    };
    let (l, bodies) = gas_bodies::<V>(&p).map_err(anyhow::Error::msg)?;
    let world = World::new(bodies, Vec::new()).with_period(l);
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
        "gas",
        a.dim,
        a.n,
        a.broad_phase,
        collisions,
        seconds,
        true,
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
        scene.world::<DVec2>(),
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
        "thesis",
        2,
        a.n,
        a.broad_phase,
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
    println!("{}", serde_json::to_string(&m)?);
    Ok(ExitCode::SUCCESS)
}

fn child(args: &[String]) -> Result<Measurement> {
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let out = Command::new(exe)
        .arg("bench")
        .arg("scale-one")
        .args(args)
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(serde_json::from_str(text.trim())?)
}

pub fn scale(a: ScaleArgs) -> Result<ExitCode> {
    let mut all = Vec::new();
    if !a.no_gas {
        println!("## Periodic gases, calendar broad phase, one core\n");
        println!("| dim | N | packing | collisions timed | seconds | collisions/s | peak RSS / body (bytes) |");
        println!("|---:|---:|---:|---:|---:|---:|---:|");
        for &dim in &a.dims {
            let packing = if dim == 2 { a.packing_2d } else { a.packing_3d };
            for &n in &a.n {
                let args: Vec<String> = [
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
                ]
                .iter()
                .map(|s| s.to_string())
                .collect();
                let m = child(&args)?;
                println!(
                    "| {dim} | {n} | {packing} | {} | {:.3} | {:.0} | {:.0} |",
                    m.collisions, m.seconds, m.collisions_per_second, m.bytes_per_body
                );
                all.push(m);
            }
        }
    }
    if !a.no_thesis {
        println!("\n## Thesis scene (5 s), every broad phase\n");
        println!("| N | broad phase | collisions | seconds | events/s | complete | vs kaya-bvh |");
        println!("|---:|---|---:|---:|---:|---|---:|");
        for &n in &a.thesis_n {
            let mut rows = Vec::new();
            for bp in BroadPhaseKind::ALL {
                let args: Vec<String> = [
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
                ]
                .iter()
                .map(|s| s.to_string())
                .collect();
                rows.push(child(&args)?);
            }
            let kaya = rows
                .iter()
                .find(|m| m.broad_phase == "kaya-bvh")
                .map(|m| m.collisions_per_second);
            for m in &rows {
                let ratio = kaya.map_or("-".to_string(), |k| {
                    format!("{:.1}x", m.collisions_per_second / k)
                });
                println!(
                    "| {n} | {} | {} | {:.3} | {:.0} | {} | {ratio} |",
                    m.broad_phase,
                    m.collisions,
                    m.seconds,
                    m.collisions_per_second,
                    if m.complete { "yes" } else { "prefix" }
                );
            }
            all.extend(rows);
        }
    }
    if let Some(p) = &a.csv {
        let mut csv = String::from("scene,dim,n,broad_phase,collisions,seconds,collisions_per_second,peak_rss_bytes,bytes_per_body,complete\n");
        for m in &all {
            csv += &format!(
                "{},{},{},{},{},{},{},{},{},{}\n",
                m.scene,
                m.dim,
                m.n,
                m.broad_phase,
                m.collisions,
                m.seconds,
                m.collisions_per_second,
                m.peak_rss_bytes,
                m.bytes_per_body,
                m.complete
            );
        }
        write_text(p, &csv)?;
    }
    Ok(ExitCode::SUCCESS)
}
