//! `kairos`: the command-line front end of the Kairos event-driven collision simulator.

/// `println!` to standard output through [`output::write_stdout`]: a closed pipe (`kairos query
/// ... | head`) ends the program quietly instead of panicking.
macro_rules! outln {
    () => {
        $crate::output::write_stdout(format_args!(""), true)
    };
    ($($t:tt)*) => {
        $crate::output::write_stdout(format_args!($($t)*), true)
    };
}

mod alloc;
mod bench;
mod commands;
mod interrupt;
mod output;
mod plot;
mod render;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Subcommand};

use commands::{ccd, demo, generate, inspect, query, run, sweep};
use render::{snapshot, view};

#[global_allocator]
static ALLOC: alloc::HugePageAlloc = alloc::HugePageAlloc;

/// Exact continuous-time collision detection and event-driven simulation.
#[derive(clap::Parser)]
#[command(name = "kairos", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the thesis's billiard scene (a few hundred balls), print a summary, write a trace.
    Demo(demo::DemoArgs),
    /// Simulate a scene file, streaming every event to a binary trace.
    Run(run::RunArgs),
    /// Generate a scene file.
    #[command(subcommand)]
    Generate(GenerateCommand),
    /// Export a trace's events or final state as CSV.
    Export(inspect::ExportArgs),
    /// Write frames of a trace at a fixed interval: extended XYZ (OVITO, ASE) or GSD
    /// (HOOMD-blue, freud, OVITO, MDAnalysis).
    Frames(inspect::FramesArgs),
    /// Write a self-contained HTML page that replays a trace (speed of time, stepping, the
    /// kaya-bvh boxes).
    View(view::ViewArgs),
    /// Draw the scene of a trace at one time as an SVG picture.
    Snapshot(snapshot::SnapshotArgs),
    /// Compare the event sequences of two traces (exit 0 when identical, 1 otherwise).
    Diff(inspect::DiffArgs),
    /// Distance, penetration and time of impact of two bodies given in a TOML file.
    ///
    /// At t = 0: GJK's distance, closest points and features, and EPA's depth when the bodies
    /// overlap; then the first contact of their linear and angular motions in [0, until]. The
    /// file's keys are those of rigid-body scenes: see docs/query-format.md.
    Query(query::QueryArgs),
    /// Continuous collision detection of moving triangle features (vertex-face, edge-edge) on
    /// every CSV query file under a folder, against the files' exact answers.
    ///
    /// Prints per folder the queries, false negatives (contacts missed), false positives and
    /// the time per query. The files' format is that of the standard CCD benchmark: see
    /// docs/ccd-queries.md.
    Ccd(ccd::CcdArgs),
    /// A grid of independent runs of hard-sphere or hard-disc gases (packing fractions ×
    /// seeds) on all cores: a table of results and the equation of state.
    ///
    /// Each run is a pure function of its packing fraction, seed and options: the table is the
    /// same on any number of threads (but for the wall times).
    Sweep(sweep::SweepArgs),
    /// Scenario benchmarks that print markdown tables.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

#[derive(Subcommand)]
enum GenerateCommand {
    /// The thesis's benchmark scene (section 5.2): balls on a rectangular table.
    Billiard(generate::BilliardArgs),
    /// A hard-sphere (3D) or hard-disc (2D) gas in a periodic box.
    Gas(generate::GasArgs),
    /// Rigid bodies: a 2D gas of spinning convex polygons and boxes in a room of walls.
    Polygons(generate::RigidGasArgs),
    /// Rigid bodies: spinning cubes in a 3D box room.
    Boxes(generate::RigidGasArgs),
    /// Rigid bodies: hard ellipses (2D) or spheroids (3D) of one aspect ratio in a box room.
    Ellipsoids(generate::EllipsoidsArgs),
    /// Rigid bodies: small fast spinning boxes fired at a thin rotating plank and at each
    /// other (2D).
    Bullet(generate::BulletArgs),
    /// Under gravity: balls and boxes dropped into a room, bouncing until they come to rest.
    Drop(generate::DropArgs),
    /// Under gravity: a tower of boxes on a floor, each resting on the one below.
    Stack(generate::StackArgs),
    /// Under gravity: a pyramid of boxes on a floor (base 100 in 2D: Box2D's large pyramid).
    Pyramid(generate::PyramidArgs),
    /// Under gravity: many small pyramids of boxes side by side on a floor.
    Pyramids(generate::PyramidsArgs),
}

/// A path argument, for messages.
pub fn show(p: &std::path::Path) -> String {
    p.display().to_string()
}

/// An error and its causes, joined by `: `, leaving out a cause whose text the message has
/// already (an error that shows its source in its own text, as `{file}: {source}` does).
fn message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// The command line's parser, in which every command takes a negative number as a value:
/// `--dt -1` is the value -1, refused by the option's own rule, not an unknown option.
fn command() -> clap::Command {
    fn negatives(c: clap::Command) -> clap::Command {
        c.allow_negative_numbers(true).mut_subcommands(negatives)
    }
    negatives(Cli::command())
}

fn main() -> ExitCode {
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit());
    interrupt::install();
    let result = match cli.command {
        Command::Demo(a) => demo::demo(a),
        Command::Run(a) => run::run(a),
        Command::Generate(GenerateCommand::Billiard(a)) => generate::generate_billiard(a),
        Command::Generate(GenerateCommand::Gas(a)) => generate::generate_gas(a),
        Command::Generate(GenerateCommand::Polygons(a)) => generate::generate_rigid_gas(a, 2),
        Command::Generate(GenerateCommand::Boxes(a)) => generate::generate_rigid_gas(a, 3),
        Command::Generate(GenerateCommand::Ellipsoids(a)) => generate::generate_ellipsoids(a),
        Command::Generate(GenerateCommand::Bullet(a)) => generate::generate_bullet(a),
        Command::Generate(GenerateCommand::Drop(a)) => generate::generate_drop(a),
        Command::Generate(GenerateCommand::Stack(a)) => generate::generate_stack(a),
        Command::Generate(GenerateCommand::Pyramid(a)) => generate::generate_pyramid(a),
        Command::Generate(GenerateCommand::Pyramids(a)) => generate::generate_pyramids(a),
        Command::Export(a) => inspect::export(a),
        Command::Frames(a) => inspect::frames(a),
        Command::Sweep(a) => sweep::sweep(a),
        Command::View(a) => view::view(a),
        Command::Snapshot(a) => snapshot::snapshot(a),
        Command::Diff(a) => inspect::diff(a),
        Command::Query(a) => query::query(a),
        Command::Ccd(a) => ccd::ccd(a),
        Command::Bench(c) => bench::run(c),
    };
    match result {
        Ok(code) => code,
        Err(e) => match e.downcast_ref::<interrupt::Interrupted>() {
            Some(i) => {
                eprintln!("{i}");
                ExitCode::from((128 + i.signal) as u8)
            }
            None => {
                eprintln!("error: {}", message(&e));
                ExitCode::from(2)
            }
        },
    }
}
