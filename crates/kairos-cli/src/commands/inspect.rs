//! `kairos export`, `kairos frames` and `kairos diff`: reading traces, with the library's
//! [`Replay`] for the state of every body at any time.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use kairos::gsd::hoomd::{HoomdWriter, Particles};
use kairos::scene::Scene;
use kairos::trace::{Record, Replay, TraceReader};

use crate::output::{self, Files};
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
    /// Write `id,x,y[,z],vx,vy[,vz]` of every body at the scene's end time (for rigid bodies,
    /// then `angle,omega` in 2D or `qw,qx,qy,qz,wx,wy,wz` in 3D).
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
    /// File to write: extended XYZ (read by OVITO and ASE) or GSD (read by HOOMD-blue, freud,
    /// OVITO and MDAnalysis), as --format says.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Format of the output; by default `gsd` for a name ending in `.gsd`, else `xyz`.
    #[arg(long, value_enum)]
    pub format: Option<FrameFormat>,
}

/// The formats `kairos frames` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FrameFormat {
    /// Extended XYZ: text, one block per frame (OVITO, ASE).
    Xyz,
    /// GSD, HOOMD-blue's binary format, in its `hoomd` schema (HOOMD-blue, freud, OVITO,
    /// MDAnalysis); see docs/trace-format.md.
    Gsd,
}

impl FrameFormat {
    /// The format an output's name asks for: `gsd` for `.gsd` (any case), else `xyz`.
    pub fn of_path(path: &Path) -> Self {
        match path.extension() {
            Some(e) if e.eq_ignore_ascii_case("gsd") => FrameFormat::Gsd,
            _ => FrameFormat::Xyz,
        }
    }
}

/// Where `kairos frames` writes its frames.
enum FrameOut {
    Xyz(kairos::atomic::AtomicWriter),
    Gsd(Box<HoomdWriter<kairos::atomic::AtomicWriter>>),
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

/// The next record of a trace (checked against its header); errors name the file.
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

/// An error unless `t` is within the span of the trace `path`.
pub(crate) fn check_time(reader: &TraceReader, t: f64, what: &str, path: &Path) -> Result<()> {
    kairos::trace::check_time(t, reader.start_time(), reader.end_time())
        .map_err(|e| anyhow::anyhow!("{}: {what}: {}", show(path), strip_kind(&e.to_string())))
}

/// A trace error's message without its "corrupted trace: " prefix (for a request outside the
/// trace's span, which is not damage).
fn strip_kind(s: &str) -> &str {
    s.strip_prefix("corrupted trace: ").unwrap_or(s)
}

/// The context of a failed write to `path`.
fn write_failed(path: &Path) -> String {
    format!("{}: write failed", show(path))
}

pub fn export(a: ExportArgs) -> Result<ExitCode> {
    let (mut reader, scene) = open_with_scene(&a.trace)?;
    Files::new()
        .input("trace", &a.trace)
        .mesh_inputs(&scene)
        .output("--events", a.events.as_deref())
        .output("--final", a.final_state.as_deref())
        .check()?;
    drop(scene);
    let mut events = a.events.as_deref().map(output::create).transpose()?;
    let events_failed = || write_failed(a.events.as_deref().unwrap_or(&a.trace));
    if let Some(f) = events.as_mut() {
        writeln!(f, "time,kind,a,b").with_context(events_failed)?;
    }
    let mut replay = Replay::new(reader.header());
    while let Some(r) = next(&mut reader, &a.trace)? {
        if let Some(f) = events.as_mut() {
            writeln!(f, "{:?},{},{},{}", r.time, r.kind.name(), r.a, r.b)
                .with_context(events_failed)?;
        }
        replay.apply(&r);
    }
    if let (Some(f), Some(p)) = (events, &a.events) {
        output::commit(f, p)?;
    }
    if let Some(p) = &a.final_state {
        let mut f = output::create(p)?;
        write_csv(&replay, &mut f, reader.end_time()).with_context(|| write_failed(p))?;
        output::commit(f, p)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes one extended-XYZ frame of every body at time `t` (unwrapped positions, z = 0 and a
/// unit-thick cell in 2D). Rigid bodies add `orientation:R:4`, the unit quaternion in OVITO's
/// component order `x y z w` (in 2D the rotation by the angle about z), and
/// `angular_velocity:R:3` (world frame; `0 0 ω` in 2D).
fn write_xyz(
    replay: &Replay,
    out: &mut impl Write,
    t: f64,
    radii: &[f64],
    period: Option<&Vec<f64>>,
) -> Result<()> {
    writeln!(out, "{}", replay.len())?;
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
    let rigid = replay.is_rigid();
    let spin = if rigid {
        ":orientation:R:4:angular_velocity:R:3"
    } else {
        ""
    };
    writeln!(
        out,
        "{lattice}Properties=species:S:1:pos:R:3:radius:R:1:vel:R:3{spin} Time={t:?}"
    )?;
    for (i, r) in radii.iter().enumerate() {
        let x = replay.position(i, t);
        let v = replay.velocity_at(i, t);
        write!(
            out,
            "X {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            x[0], x[1], x[2], r, v[0], v[1], v[2]
        )?;
        if rigid {
            let (q, w) = quaternion(replay, i, t);
            write!(
                out,
                " {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                q[1], q[2], q[3], q[0], w[0], w[1], w[2]
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// Body `i`'s orientation at `t` as a unit quaternion `[w, x, y, z]` and its angular velocity
/// as a 3D vector (in 2D, the rotation by the angle about z and `[0, 0, ω]`).
fn quaternion(replay: &Replay, i: usize, t: f64) -> ([f64; 4], [f64; 3]) {
    let (q, w) = replay.orientation(i, t);
    if replay.dim() == 3 {
        return (q, w);
    }
    let (s, c) = (0.5 * q[0]).sin_cos();
    ([c, 0.0, 0.0, s], [0.0, 0.0, w[0]])
}

/// Writes `id,x,y[,z],vx,vy[,vz]` of every body at `end_time`.
fn write_csv(replay: &Replay, out: &mut impl Write, end_time: f64) -> Result<()> {
    let d = replay.dim();
    let axes = ["x", "y", "z"];
    let head: Vec<String> = axes[..d]
        .iter()
        .map(|s| s.to_string())
        .chain(axes[..d].iter().map(|s| format!("v{s}")))
        .collect();
    let spin: &[&str] = match (replay.is_rigid(), d) {
        (false, _) => &[],
        (true, 2) => &["angle", "omega"],
        (true, _) => &["qw", "qx", "qy", "qz", "wx", "wy", "wz"],
    };
    writeln!(
        out,
        "id,{}",
        head.iter()
            .map(String::as_str)
            .chain(spin.iter().copied())
            .collect::<Vec<_>>()
            .join(",")
    )?;
    for i in 0..replay.len() {
        let pos = replay.position(i, end_time);
        let v = replay.velocity_at(i, end_time);
        let (q, w) = replay.orientation(i, end_time);
        let rot: &[f64] = match (spin.is_empty(), d) {
            (true, _) => &[],
            (false, 2) => &[q[0], w[0]],
            (false, _) => &[q[0], q[1], q[2], q[3], w[0], w[1], w[2]],
        };
        let cols: Vec<String> = pos[..d]
            .iter()
            .chain(&v[..d])
            .chain(rot)
            .map(|x| format!("{x:?}"))
            .collect();
        writeln!(out, "{i},{}", cols.join(","))?;
    }
    Ok(())
}

pub fn frames(a: FramesArgs) -> Result<ExitCode> {
    anyhow::ensure!(
        a.every > 0.0 && a.every.is_finite(),
        "--every must be a positive interval, got {}",
        kairos::num::Num(a.every)
    );
    let (mut reader, scene) = open_with_scene(&a.trace)?;
    Files::new()
        .input("trace", &a.trace)
        .mesh_inputs(&scene)
        .output("--output", Some(&a.output))
        .check()?;
    let (start, end) = (reader.start_time(), reader.end_time());
    anyhow::ensure!(
        (end - start) / a.every <= 1e6,
        "--every {} would write more than a million frames over {} time units",
        kairos::num::Num(a.every),
        kairos::num::Num(end - start)
    );
    let radii: Vec<f64> = scene.bodies.iter().map(|b| b.radius).collect();
    let mut replay = Replay::new(reader.header());
    let format = a.format.unwrap_or_else(|| FrameFormat::of_path(&a.output));
    let mut out = match format {
        FrameFormat::Xyz => FrameOut::Xyz(output::create(&a.output)?),
        FrameFormat::Gsd => {
            // The index at a GSD file's end points back into it: written with seeks.
            anyhow::ensure!(
                !kairos::atomic::is_sink(&a.output) && !a.output.starts_with("/dev"),
                "{}: a GSD file is written with seeks, so not to a pipe or a device: give a \
                 file name (or --format xyz)",
                show(&a.output)
            );
            let particles = Particles::from_scene(&scene)
                .map_err(|e| anyhow::anyhow!("{}: {e}", show(&a.trace)))?;
            let file = output::create(&a.output)?;
            FrameOut::Gsd(Box::new(HoomdWriter::new(file, &a.output, particles)?))
        }
    };
    // Frames at the multiples of --every within the trace's span (a resumed run's trace
    // starts at its checkpoint).
    let mut k = (start / a.every).ceil() as u64;
    let mut next_frame = k as f64 * a.every;
    if next_frame < start {
        k += 1;
        next_frame = k as f64 * a.every;
    }
    loop {
        let r = next(&mut reader, &a.trace)?;
        // The frames before the next record (after the last one: every frame left).
        while next_frame <= end && r.as_ref().is_none_or(|r| next_frame < r.time) {
            match &mut out {
                FrameOut::Xyz(f) => {
                    let period = scene.periodic.as_ref();
                    write_xyz(&replay, f, next_frame, &radii, period)
                        .with_context(|| write_failed(&a.output))?;
                }
                // Its errors name the file.
                FrameOut::Gsd(g) => g.write_replay(k, next_frame, &replay)?,
            }
            k += 1;
            next_frame = k as f64 * a.every;
        }
        match r {
            Some(r) => replay.apply(&r),
            None => break,
        }
    }
    match out {
        FrameOut::Xyz(f) => output::commit(f, &a.output)?,
        FrameOut::Gsd(g) => {
            let file = g.finish()?;
            output::commit(file, &a.output)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn diff(a: DiffArgs) -> Result<ExitCode> {
    // Both traces are validated whole (header, every record, hash) before any comparison: a
    // damaged trace is an error, never "identical" or "different".
    for p in [&a.a, &a.b] {
        open(p)?
            .validate()
            .map_err(|e| anyhow::anyhow!("{}: {e}", show(p)))?;
    }
    let mut ra = open(&a.a)?;
    let mut rb = open(&a.b)?;
    let mut index = 0u64;
    loop {
        let (x, y) = (next(&mut ra, &a.a)?, next(&mut rb, &a.b)?);
        match (x, y) {
            (None, None) => {
                outln!("identical: {index} events");
                return Ok(ExitCode::SUCCESS);
            }
            (Some(x), Some(y)) if x.same_event(&y) => index += 1,
            (x, y) => {
                outln!("first difference at event {index}:");
                for (name, r) in [(show(&a.a), x), (show(&a.b), y)] {
                    match r {
                        Some(r) => outln!(
                            "  {name}: t = {:?} {} {} {} pos_a = {:?} vel_a = {:?}",
                            r.time,
                            r.kind.name(),
                            r.a,
                            r.b,
                            r.pos_a,
                            r.vel_a
                        ),
                        None => outln!("  {name}: (no more events)"),
                    }
                }
                return Ok(ExitCode::from(1));
            }
        }
    }
}
