//! `kairos export`, `kairos frames` and `kairos diff`, and the replay of a trace to the state
//! of every body at any time ([`FinalState`]), shared with `kairos view` and `kairos snapshot`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use kairos::event::EventKind;
use kairos::math::{DVec2, DVec3, Vector};
use kairos::scene::Scene;
use kairos::trace::{Record, TraceReader};

use crate::output::AtomicFile;
use crate::show;

/// Arguments of `kairos export`.
#[derive(Args)]
#[command(group = clap::ArgGroup::new("what").required(true).multiple(true))]
pub struct ExportArgs {
    /// Trace to read.
    pub trace: PathBuf,
    /// Write `time,kind,a,b` for every event.
    #[arg(long, group = "what")]
    pub events: Option<PathBuf>,
    /// Write `id,x,y[,z],vx,vy[,vz]` of every body at the scene's end time.
    #[arg(long = "final", group = "what")]
    pub final_state: Option<PathBuf>,
}

/// Arguments of `kairos frames`.
#[derive(Args)]
pub struct FramesArgs {
    /// Trace to read.
    pub trace: PathBuf,
    /// Interval of simulated time between frames (the first frame is at time 0).
    #[arg(long, value_name = "DT")]
    pub every: f64,
    /// Extended-XYZ file to write (read by OVITO and ASE).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Arguments of `kairos diff`.
#[derive(Args)]
pub struct DiffArgs {
    /// First trace.
    pub a: PathBuf,
    /// Second trace.
    pub b: PathBuf,
}

/// Opens a trace; errors name the file.
pub(crate) fn open(path: &Path) -> Result<TraceReader> {
    TraceReader::open(path).map_err(|e| anyhow::anyhow!("{}: {e}", show(path)))
}

/// The next record of a trace; errors name the file.
pub(crate) fn next(reader: &mut TraceReader, path: &Path) -> Result<Option<Record>> {
    reader
        .next_record()
        .map_err(|e| anyhow::anyhow!("{}: {e}", show(path)))
}

/// Opens a trace and parses the scene in its header; errors name the file.
pub(crate) fn open_with_scene(path: &Path) -> Result<(TraceReader, Scene)> {
    let reader = open(path)?;
    let scene = reader
        .header()
        .scene()
        .map_err(|e| anyhow::anyhow!("{}: {e}", show(path)))?;
    Ok((reader, scene))
}

pub fn export(a: ExportArgs) -> Result<ExitCode> {
    let (mut reader, scene) = open_with_scene(&a.trace)?;
    let mut events = a.events.as_deref().map(AtomicFile::create).transpose()?;
    if let Some(f) = events.as_mut() {
        writeln!(f.writer(), "time,kind,a,b")?;
    }
    let mut state = FinalState::new(&scene);
    while let Some(r) = next(&mut reader, &a.trace)? {
        if let Some(f) = events.as_mut() {
            writeln!(f.writer(), "{:?},{},{},{}", r.time, r.kind.name(), r.a, r.b)?;
        }
        state
            .apply(&r)
            .with_context(|| format!("{}: inconsistent record", show(&a.trace)))?;
    }
    if let Some(f) = events {
        f.commit()?;
    }
    if let Some(p) = &a.final_state {
        let mut f = AtomicFile::create(p)?;
        state.write_csv(f.writer(), reader.end_time())?;
        f.commit()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Body states rebuilt from a trace: the scene's initial states, overwritten by each record.
pub(crate) struct FinalState {
    dim: usize,
    /// Number of walls (wall ids), to check ball-wall records.
    walls: usize,
    /// position, velocity, local time per body.
    bodies: Vec<([f64; 3], [f64; 3], f64)>,
}

impl FinalState {
    /// The scene's initial state (every body at time 0).
    pub(crate) fn new(scene: &Scene) -> Self {
        let pad = |v: &[f64]| [v[0], v[1], v.get(2).copied().unwrap_or(0.0)];
        let bodies = scene
            .bodies
            .iter()
            .map(|b| (pad(&b.position), pad(&b.velocity), 0.0))
            .collect();
        Self {
            dim: scene.dim,
            walls: scene.walls.iter().map(|w| w.wall_count(scene.dim)).sum(),
            bodies,
        }
    }

    /// Position of body `i` at time `t` under its motion since its last applied record: the
    /// same arithmetic as `Body::position_at`, so the result matches the simulator's.
    pub(crate) fn position(&self, i: usize, t: f64) -> [f64; 3] {
        let (p, v, t0) = &self.bodies[i];
        let dt = t - t0;
        [p[0] + v[0] * dt, p[1] + v[1] * dt, p[2] + v[2] * dt]
    }

    /// Applies one record; an error when it names a body or wall the scene does not have.
    pub(crate) fn apply(&mut self, r: &Record) -> Result<()> {
        let n = self.bodies.len();
        if r.kind == EventKind::BallWall && r.b as usize >= self.walls {
            anyhow::bail!("wall {} of {}", r.b, self.walls);
        }
        let mut set = |id: u32, p: [f64; 3], v: [f64; 3]| -> Result<()> {
            let slot = self
                .bodies
                .get_mut(id as usize)
                .ok_or_else(|| anyhow::anyhow!("body {id} of {n}"))?;
            *slot = (p, v, r.time);
            Ok(())
        };
        set(r.a, r.pos_a, r.vel_a)?;
        if r.kind == EventKind::BallBall {
            set(r.b, r.pos_b, r.vel_b)?;
        }
        Ok(())
    }

    /// Writes one extended-XYZ frame of every body at time `t` (unwrapped positions, z = 0 and
    /// a unit-thick cell in 2D).
    fn write_xyz(
        &self,
        out: &mut impl Write,
        t: f64,
        radii: &[f64],
        period: Option<&Vec<f64>>,
    ) -> Result<()> {
        writeln!(out, "{}", self.bodies.len())?;
        let lattice = match period {
            Some(l) => {
                let lz = l.get(2).copied().unwrap_or(1.0);
                format!(
                    "Lattice=\"{:?} 0 0 0 {:?} 0 0 0 {:?}\" pbc=\"T T {}\" ",
                    l[0],
                    l[1],
                    lz,
                    if l.len() == 3 { "T" } else { "F" }
                )
            }
            None => "pbc=\"F F F\" ".to_string(),
        };
        writeln!(
            out,
            "{lattice}Properties=species:S:1:pos:R:3:radius:R:1:vel:R:3 Time={t:?}"
        )?;
        for (i, (_, v, _)) in self.bodies.iter().enumerate() {
            let x = self.position(i, t);
            writeln!(
                out,
                "A {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                x[0], x[1], x[2], radii[i], v[0], v[1], v[2]
            )?;
        }
        Ok(())
    }

    fn write_csv(&self, out: &mut impl Write, end_time: f64) -> Result<()> {
        match self.dim {
            2 => self.write_dim::<DVec2>(out, end_time),
            _ => self.write_dim::<DVec3>(out, end_time),
        }
    }

    fn write_dim<V: Vector>(&self, out: &mut impl Write, end_time: f64) -> Result<()> {
        let d = V::DIM;
        let axes = ["x", "y", "z"];
        let head: Vec<String> = axes[..d]
            .iter()
            .map(|s| s.to_string())
            .chain(axes[..d].iter().map(|s| format!("v{s}")))
            .collect();
        writeln!(out, "id,{}", head.join(","))?;
        for (i, (p, v, t)) in self.bodies.iter().enumerate() {
            // The same arithmetic as Body::advance_to, so the result matches the simulator.
            let body = kairos::body::Body {
                pos: V::try_from_slice(&p[..d]).unwrap(),
                vel: V::try_from_slice(&v[..d]).unwrap(),
                time: *t,
                radius: 1.0,
                inv_mass: 1.0,
            };
            let pos = body.position_at(end_time).to_array3();
            let cols: Vec<String> = pos[..d]
                .iter()
                .chain(&v[..d])
                .map(|x| format!("{x:?}"))
                .collect();
            writeln!(out, "{i},{}", cols.join(","))?;
        }
        Ok(())
    }
}

pub fn frames(a: FramesArgs) -> Result<ExitCode> {
    anyhow::ensure!(
        a.every > 0.0 && a.every.is_finite(),
        "--every must be a positive interval, got {}",
        a.every
    );
    let (mut reader, scene) = open_with_scene(&a.trace)?;
    let end = reader.end_time();
    anyhow::ensure!(
        end / a.every <= 1e6,
        "--every {} would write more than a million frames over {end} time units",
        a.every
    );
    let radii: Vec<f64> = scene.bodies.iter().map(|b| b.radius).collect();
    let mut state = FinalState::new(&scene);
    let mut out = AtomicFile::create(&a.output)?;
    let mut k = 0u64;
    let mut next_frame = 0.0;
    while let Some(r) = next(&mut reader, &a.trace)? {
        while next_frame <= end && next_frame < r.time {
            state.write_xyz(out.writer(), next_frame, &radii, scene.periodic.as_ref())?;
            k += 1;
            next_frame = k as f64 * a.every;
        }
        state
            .apply(&r)
            .with_context(|| format!("{}: inconsistent record", show(&a.trace)))?;
    }
    while next_frame <= end {
        state.write_xyz(out.writer(), next_frame, &radii, scene.periodic.as_ref())?;
        k += 1;
        next_frame = k as f64 * a.every;
    }
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

pub fn diff(a: DiffArgs) -> Result<ExitCode> {
    let mut ra = open(&a.a)?;
    let mut rb = open(&a.b)?;
    let mut index = 0u64;
    loop {
        let (x, y) = (next(&mut ra, &a.a)?, next(&mut rb, &a.b)?);
        match (x, y) {
            (None, None) => {
                println!("identical: {index} events");
                return Ok(ExitCode::SUCCESS);
            }
            (Some(x), Some(y)) if x.same_event(&y) => index += 1,
            (x, y) => {
                println!("first difference at event {index}:");
                for (name, r) in [(show(&a.a), x), (show(&a.b), y)] {
                    match r {
                        Some(r) => println!(
                            "  {name}: t = {:?} {} {} {} pos_a = {:?} vel_a = {:?}",
                            r.time,
                            r.kind.name(),
                            r.a,
                            r.b,
                            r.pos_a,
                            r.vel_a
                        ),
                        None => println!("  {name}: (no more events)"),
                    }
                }
                return Ok(ExitCode::from(1));
            }
        }
    }
}
