//! `kairos generate`: the arguments of each scene generator (billiard, gas, polygons, boxes,
//! bullet, drop, stack, pyramid, pyramids) and the writing of a generated scene, its bodies in the TOML file or in an
//! extended-XYZ file beside it, read back before it is written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use kairos::generate::{
    billiard, boxes, bullet, drop, ellipsoids, gas, polygons, pyramids, stack, BilliardParams,
    BulletParams, DropParams, GasParams, RigidGasParams, StackParams,
};
use kairos::scene::Scene;

use crate::output::{self, write_text, Files};
use crate::show;

/// Parameters of the billiard scene, shared by `generate billiard` and `bench thesis`.
#[derive(Args, Clone, Copy, Debug)]
pub struct TableArgs {
    /// Dimension: 2 (a table of four walls) or 3 (a cube room).
    #[arg(long, default_value_t = 2)]
    pub dim: usize,
    /// Fraction of the table covered by balls.
    #[arg(long, default_value_t = BilliardParams::default().packing)]
    pub packing: f64,
    /// Smallest radius.
    #[arg(long, default_value_t = BilliardParams::default().radius_min)]
    pub radius_min: f64,
    /// Largest radius.
    #[arg(long, default_value_t = BilliardParams::default().radius_max)]
    pub radius_max: f64,
    /// Width over height of the table, from 1e-3 to 1e3.
    #[arg(long, default_value_t = BilliardParams::default().aspect)]
    pub aspect: f64,
    /// Simulated time in seconds (at most 1e4 in a benchmark).
    #[arg(long, default_value_t = BilliardParams::default().duration)]
    pub duration: f64,
}

impl TableArgs {
    /// The generator's parameters for `n` balls and `seed`.
    pub fn params(&self, n: usize, seed: u64) -> BilliardParams {
        BilliardParams {
            dim: self.dim,
            n,
            seed,
            packing: self.packing,
            radius_min: self.radius_min,
            radius_max: self.radius_max,
            aspect: self.aspect,
            duration: self.duration,
            restitution: 1.0,
        }
    }
}

/// Where a generated scene keeps its bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BodiesIn {
    /// In the TOML file (`[[bodies]]` tables) up to 10,000 bodies, else in an extended-XYZ
    /// file beside it.
    Auto,
    /// In the TOML file.
    Toml,
    /// In an extended-XYZ file beside the scene (`NAME.xyz` for `NAME.toml`).
    Xyz,
}

/// Above this many bodies, `--bodies-in auto` writes them to an extended-XYZ file.
pub const XYZ_ABOVE: usize = 10_000;

/// What every generator writes, and how.
#[derive(Args)]
pub struct GeneratedScene {
    /// Coefficient of restitution in [0, 1] (1 = elastic). Below 1, the scene also states
    /// its contact duration (the TC model, see docs/scene-format.md).
    #[arg(long, default_value_t = 1.0)]
    pub restitution: f64,
    /// Scene file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Where the bodies go: the TOML file, or an extended-XYZ file beside it (compact and fast
    /// to load; read by OVITO and ASE too).
    #[arg(long, value_enum, default_value_t = BodiesIn::Auto)]
    pub bodies_in: BodiesIn,
    /// Replace an existing bodies file beside the output (`NAME.xyz`) that the scene being
    /// replaced does not name (without it, such a file is refused: it may be another's).
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `kairos generate billiard`.
#[derive(Args)]
pub struct BilliardArgs {
    /// Number of balls.
    #[arg(long)]
    pub n: usize,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub out: GeneratedScene,
    #[command(flatten)]
    pub table: TableArgs,
}

/// Arguments of `kairos generate gas`.
#[derive(Args)]
pub struct GasArgs {
    /// Dimension: 2 (discs) or 3 (spheres).
    #[arg(long, default_value_t = 3)]
    pub dim: usize,
    /// Number of balls.
    #[arg(long)]
    pub n: usize,
    /// Fraction of the box covered by balls (up to 0.5 in 3D and 0.7 in 2D, and beyond).
    #[arg(long)]
    pub packing: f64,
    /// Relative spread of the diameters (uniform in [1 - P, 1 + P]).
    #[arg(long, default_value_t = 0.0)]
    pub polydispersity: f64,
    /// Mass of every ball.
    #[arg(long, default_value_t = 1.0)]
    pub mass: f64,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Simulated time.
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,
    #[command(flatten)]
    pub out: GeneratedScene,
}

impl GasArgs {
    /// The generator's parameters.
    pub fn params(&self) -> GasParams {
        GasParams {
            dim: self.dim,
            n: self.n,
            packing: self.packing,
            polydispersity: self.polydispersity,
            mass: self.mass,
            seed: self.seed,
            duration: self.duration,
            restitution: self.out.restitution,
        }
    }
}

/// Arguments of `kairos generate polygons` and `kairos generate boxes`.
#[derive(Args)]
pub struct RigidGasArgs {
    /// Number of bodies.
    #[arg(long)]
    pub n: usize,
    /// Random seed.
    #[arg(long, default_value_t = RigidGasParams::default().seed)]
    pub seed: u64,
    /// Fraction of the room covered by the bodies' bounding discs (2D, at most 0.6) or balls
    /// (3D, at most 0.4), each of radius 1.
    #[arg(long, default_value_t = RigidGasParams::default().packing)]
    pub packing: f64,
    /// Velocity components uniform in [-speed, speed].
    #[arg(long, default_value_t = RigidGasParams::default().speed)]
    pub speed: f64,
    /// Largest angular speed (radians per unit time).
    #[arg(long, default_value_t = RigidGasParams::default().spin)]
    pub spin: f64,
    /// Simulated time.
    #[arg(long, default_value_t = RigidGasParams::default().duration)]
    pub duration: f64,
    /// Fraction of the bodies that are concave star polygons (2D `polygons` only; each a
    /// compound of convex pieces).
    #[arg(long, default_value_t = RigidGasParams::default().concave)]
    pub concave: f64,
    #[command(flatten)]
    pub out: GeneratedScene,
}

impl RigidGasArgs {
    /// The generator's parameters.
    pub fn params(&self) -> RigidGasParams {
        RigidGasParams {
            n: self.n,
            seed: self.seed,
            packing: self.packing,
            speed: self.speed,
            spin: self.spin,
            duration: self.duration,
            restitution: self.out.restitution,
            concave: self.concave,
        }
    }
}

/// Arguments of `kairos generate ellipsoids`.
#[derive(Args)]
pub struct EllipsoidsArgs {
    /// Dimension: 2 (ellipses) or 3 (spheroids).
    #[arg(long, default_value_t = 3)]
    pub dim: usize,
    /// The long half axis over the short ones: above 1 prolate (needles), below 1 oblate
    /// (discs); the longest half axis is 1.
    #[arg(long, default_value_t = 2.0)]
    pub aspect: f64,
    /// Number of bodies.
    #[arg(long)]
    pub n: usize,
    /// Random seed.
    #[arg(long, default_value_t = RigidGasParams::default().seed)]
    pub seed: u64,
    /// Fraction of the room covered by the bodies' bounding discs (2D, at most 0.6) or balls
    /// (3D, at most 0.4), each of radius 1.
    #[arg(long, default_value_t = RigidGasParams::default().packing)]
    pub packing: f64,
    /// Velocity components uniform in [-speed, speed].
    #[arg(long, default_value_t = RigidGasParams::default().speed)]
    pub speed: f64,
    /// Largest angular speed (radians per unit time).
    #[arg(long, default_value_t = RigidGasParams::default().spin)]
    pub spin: f64,
    /// Simulated time.
    #[arg(long, default_value_t = RigidGasParams::default().duration)]
    pub duration: f64,
    #[command(flatten)]
    pub out: GeneratedScene,
}

/// `kairos generate ellipsoids`: a gas of hard ellipses or spheroids.
pub fn generate_ellipsoids(a: EllipsoidsArgs) -> Result<ExitCode> {
    let header = format!(
        "# kairos generate ellipsoids --dim {} --aspect {} --n {} --seed {} --packing {} \
         --speed {} --spin {} --duration {}{}\n",
        a.dim,
        a.aspect,
        a.n,
        a.seed,
        a.packing,
        a.speed,
        a.spin,
        a.duration,
        restitution_flag(a.out.restitution)
    );
    let params = RigidGasParams {
        n: a.n,
        seed: a.seed,
        packing: a.packing,
        speed: a.speed,
        spin: a.spin,
        duration: a.duration,
        restitution: a.out.restitution,
        concave: 0.0,
    };
    write_rigid_scene(&a.out, &header, || {
        ellipsoids(&params, a.dim, a.aspect).map_err(anyhow::Error::msg)
    })
}

/// Arguments of `kairos generate bullet`.
#[derive(Args)]
pub struct BulletArgs {
    /// Speed of the bullets.
    #[arg(long, default_value_t = BulletParams::default().speed)]
    pub speed: f64,
    /// Simulated time.
    #[arg(long, default_value_t = BulletParams::default().duration)]
    pub duration: f64,
    #[command(flatten)]
    pub out: GeneratedScene,
}

/// Arguments of `kairos generate drop`.
#[derive(Args)]
pub struct DropArgs {
    /// 2 or 3.
    #[arg(long, default_value_t = DropParams::default().dim)]
    pub dim: usize,
    /// Number of balls.
    #[arg(long, default_value_t = DropParams::default().balls)]
    pub balls: usize,
    /// Number of boxes.
    #[arg(long, default_value_t = DropParams::default().boxes)]
    pub boxes: usize,
    /// Random seed.
    #[arg(long, default_value_t = DropParams::default().seed)]
    pub seed: u64,
    /// Strength of gravity (it points down: -y in 2D, -z in 3D).
    #[arg(long, default_value_t = DropParams::default().gravity)]
    pub gravity: f64,
    /// Coefficient of restitution in [0, 1].
    #[arg(long, default_value_t = DropParams::default().restitution)]
    pub restitution: f64,
    /// Simulated time.
    #[arg(long, default_value_t = DropParams::default().duration)]
    pub duration: f64,
    /// Scene file to write.
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn generate_billiard(a: BilliardArgs) -> Result<ExitCode> {
    let t = a.table;
    let params = BilliardParams {
        restitution: a.out.restitution,
        ..t.params(a.n, a.seed)
    };
    let header = format!(
        "# kairos generate billiard{} --n {} --seed {} --packing {} --radius-min {} --radius-max {} --aspect {} --duration {}{}\n",
        // The default dimension is left out, as before 3D existed.
        if t.dim == 2 { String::new() } else { format!(" --dim {}", t.dim) },
        a.n, a.seed, t.packing, t.radius_min, t.radius_max, t.aspect, t.duration,
        restitution_flag(a.out.restitution)
    );
    write_scene(&a.out, a.n, &header, || {
        billiard(&params).map_err(anyhow::Error::msg)
    })
}

pub fn generate_gas(a: GasArgs) -> Result<ExitCode> {
    let header = format!(
        "# kairos generate gas --dim {} --n {} --packing {} --polydispersity {} --mass {} --seed {} --duration {}{}\n",
        a.dim, a.n, a.packing, a.polydispersity, a.mass, a.seed, a.duration,
        restitution_flag(a.out.restitution)
    );
    write_scene(&a.out, a.n, &header, || {
        gas(&a.params()).map_err(anyhow::Error::msg)
    })
}

/// `kairos generate polygons` (2D) and `kairos generate boxes` (3D): rigid-body gases.
pub fn generate_rigid_gas(a: RigidGasArgs, dim: usize) -> Result<ExitCode> {
    let name = if dim == 2 { "polygons" } else { "boxes" };
    let header = format!(
        "# kairos generate {name} --n {} --seed {} --packing {} --speed {} --spin {} --duration {}{}\n",
        a.n, a.seed, a.packing, a.speed, a.spin, a.duration,
        restitution_flag(a.out.restitution)
    );
    let params = a.params();
    write_rigid_scene(&a.out, &header, || {
        if dim == 2 {
            polygons(&params)
        } else {
            boxes(&params)
        }
        .map_err(anyhow::Error::msg)
    })
}

/// `kairos generate drop`: balls and boxes dropped into a room under gravity.
pub fn generate_drop(a: DropArgs) -> Result<ExitCode> {
    let header = format!(
        "# kairos generate drop --dim {} --balls {} --boxes {} --seed {} --gravity {} \
         --restitution {} --duration {}\n",
        a.dim, a.balls, a.boxes, a.seed, a.gravity, a.restitution, a.duration
    );
    let params = DropParams {
        dim: a.dim,
        balls: a.balls,
        boxes: a.boxes,
        seed: a.seed,
        gravity: a.gravity,
        restitution: a.restitution,
        duration: a.duration,
    };
    let out = GeneratedScene {
        restitution: a.restitution,
        output: a.output,
        bodies_in: BodiesIn::Auto,
        force: false,
    };
    write_rigid_scene(&out, &header, || drop(&params).map_err(anyhow::Error::msg))
}

/// Boxes on a floor under gravity, shared by `generate stack`, `pyramid` and `pyramids`.
#[derive(Args, Clone, Debug)]
pub struct FloorArgs {
    /// 2 or 3.
    #[arg(long, default_value_t = StackParams::default().dim)]
    pub dim: usize,
    /// The edge of every box.
    #[arg(long, default_value_t = StackParams::default().size)]
    pub size: f64,
    /// Strength of gravity (it points down: -y in 2D, -z in 3D).
    #[arg(long, default_value_t = StackParams::default().gravity)]
    pub gravity: f64,
    /// Coulomb friction coefficient.
    #[arg(long, default_value_t = StackParams::default().friction)]
    pub friction: f64,
    /// Coefficient of restitution in [0, 1].
    #[arg(long, default_value_t = StackParams::default().restitution)]
    pub restitution: f64,
    /// Simulated time.
    #[arg(long, default_value_t = StackParams::default().duration)]
    pub duration: f64,
    /// Scene file to write.
    #[arg(short, long)]
    pub output: PathBuf,
}

impl FloorArgs {
    fn params(&self) -> StackParams {
        StackParams {
            dim: self.dim,
            size: self.size,
            gravity: self.gravity,
            friction: self.friction,
            restitution: self.restitution,
            duration: self.duration,
        }
    }

    /// The flags of the header comment.
    fn flags(&self) -> String {
        format!(
            "--dim {} --size {} --gravity {} --friction {} --restitution {} --duration {}",
            self.dim, self.size, self.gravity, self.friction, self.restitution, self.duration
        )
    }

    fn write(&self, header: String, make: impl FnOnce() -> Result<Scene>) -> Result<ExitCode> {
        let out = GeneratedScene {
            restitution: self.restitution,
            output: self.output.clone(),
            bodies_in: BodiesIn::Toml,
            force: false,
        };
        write_rigid_scene(&out, &header, make)
    }
}

/// Arguments of `generate stack`.
#[derive(Args, Clone, Debug)]
pub struct StackArgs {
    /// Number of boxes in the tower.
    #[arg(long, default_value_t = 10)]
    pub n: usize,
    #[command(flatten)]
    pub floor: FloorArgs,
}

/// Arguments of `generate pyramid`.
#[derive(Args, Clone, Debug)]
pub struct PyramidArgs {
    /// Boxes in the lowest row (2D), or on a side of the lowest layer (3D).
    #[arg(long, default_value_t = 20)]
    pub base: usize,
    #[command(flatten)]
    pub floor: FloorArgs,
}

/// Arguments of `generate pyramids`.
#[derive(Args, Clone, Debug)]
pub struct PyramidsArgs {
    /// Number of pyramids, side by side (a row in 2D, a square grid in 3D).
    #[arg(long, default_value_t = 10)]
    pub count: usize,
    /// Boxes in the lowest row of each pyramid.
    #[arg(long, default_value_t = 10)]
    pub base: usize,
    #[command(flatten)]
    pub floor: FloorArgs,
}

/// `kairos generate stack`: a tower of boxes on a floor.
pub fn generate_stack(a: StackArgs) -> Result<ExitCode> {
    let header = format!("# kairos generate stack --n {} {}\n", a.n, a.floor.flags());
    let p = a.floor.params();
    a.floor
        .write(header, || stack(&p, a.n).map_err(anyhow::Error::msg))
}

/// `kairos generate pyramid`: a pyramid of boxes on a floor.
pub fn generate_pyramid(a: PyramidArgs) -> Result<ExitCode> {
    let header = format!(
        "# kairos generate pyramid --base {} {}\n",
        a.base,
        a.floor.flags()
    );
    let p = a.floor.params();
    a.floor.write(header, || {
        pyramids(&p, a.base, 1).map_err(anyhow::Error::msg)
    })
}

/// `kairos generate pyramids`: pyramids of boxes side by side on a floor.
pub fn generate_pyramids(a: PyramidsArgs) -> Result<ExitCode> {
    let header = format!(
        "# kairos generate pyramids --count {} --base {} {}\n",
        a.count,
        a.base,
        a.floor.flags()
    );
    let p = a.floor.params();
    a.floor.write(header, || {
        pyramids(&p, a.base, a.count).map_err(anyhow::Error::msg)
    })
}

/// `kairos generate bullet`: fast spinning boxes fired at a rotating plank and at each other.
pub fn generate_bullet(a: BulletArgs) -> Result<ExitCode> {
    let header = format!(
        "# kairos generate bullet --speed {} --duration {}{}\n",
        a.speed,
        a.duration,
        restitution_flag(a.out.restitution)
    );
    let params = BulletParams {
        speed: a.speed,
        duration: a.duration,
        restitution: a.out.restitution,
    };
    write_rigid_scene(&a.out, &header, || {
        bullet(&params).map_err(anyhow::Error::msg)
    })
}

/// [`write_scene`] for a scene of rigid bodies, which stay in the TOML file: a bodies file
/// (extended XYZ) holds balls only.
fn write_rigid_scene(
    out: &GeneratedScene,
    header: &str,
    make: impl FnOnce() -> Result<Scene>,
) -> Result<ExitCode> {
    anyhow::ensure!(
        out.bodies_in != BodiesIn::Xyz,
        "{}: --bodies-in xyz cannot hold rigid bodies (the XYZ file has balls only): use \
         --bodies-in toml",
        show(&out.output)
    );
    // No body count makes `auto` choose a bodies file.
    write_scene(out, 0, header, make)
}

/// Writes a generated scene of `n` bodies to its output (after `header`, a comment), with its
/// bodies in the TOML or in an extended-XYZ file beside it; both outputs are checked before
/// generating.
fn write_scene(
    out: &GeneratedScene,
    n: usize,
    header: &str,
    make: impl FnOnce() -> Result<Scene>,
) -> Result<ExitCode> {
    let output = out.output.as_path();
    let xyz = match out.bodies_in {
        BodiesIn::Xyz => true,
        BodiesIn::Toml => false,
        BodiesIn::Auto => n > XYZ_ABOVE,
    };
    let xyz_path = xyz.then(|| output.with_extension("xyz"));
    Files::new()
        .output("--output", Some(output))
        .output("the bodies file", xyz_path.as_deref())
        .check()?;
    if let Some(p) = &xyz_path {
        keep_unrelated_bodies_file(output, p, out.force)?;
    }
    let scene = make()?;
    // What the reader would refuse is never written: the TOML is read back before it is.
    let refused = |e: String| {
        anyhow::anyhow!(
            "{}: the generated scene would be refused by `kairos run` ({e}): choose other \
             parameters; nothing written",
            show(output)
        )
    };
    match xyz_path {
        None => {
            let text = scene.to_toml();
            Scene::from_toml_str(&text).map_err(|e| refused(e.to_string()))?;
            write_text(output, &(header.to_string() + &text))?
        }
        Some(p) => {
            // The bodies, checked as the reader checks them, and the rest of the file read back.
            Scene::from_toml_str(&scene.to_toml_without_bodies())
                .and_then(|_| scene.validate())
                .map_err(|e| refused(e.to_string()))?;
            let mut f = output::create(&p)?;
            kairos::scene::xyz::write_bodies(&scene, &mut f)
                .with_context(|| format!("{}: write failed", show(&p)))?;
            output::commit(f, &p)?;
            let name = p
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            write_text(
                output,
                &(header.to_string() + &scene.to_toml_with_bodies_file(&name)),
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses to replace `xyz`, the bodies file a generated scene writes beside `output`, when it
/// exists and the scene file being replaced does not name it (a file of another scene, or not
/// a scene's at all), unless `force`.
fn keep_unrelated_bodies_file(output: &Path, xyz: &Path, force: bool) -> Result<()> {
    if force || std::fs::symlink_metadata(xyz).is_err() || kairos::atomic::is_sink(xyz) {
        return Ok(());
    }
    let named = Scene::files_named(output)
        .iter()
        .any(|(what, p)| what == "bodies_file" && kairos::atomic::same_file(p, xyz));
    anyhow::ensure!(
        named,
        "{}: exists and is not the bodies file of {} (which it would replace with the \
         generated bodies): give --force to replace it, or choose another output (the \
         bodies go to the output's name with extension .xyz)",
        show(xyz),
        show(output)
    );
    Ok(())
}

/// ` --restitution E` for the command line a generated file records (nothing when elastic, so
/// elastic files keep their first line).
fn restitution_flag(e: f64) -> String {
    if e == 1.0 {
        String::new()
    } else {
        format!(" --restitution {e}")
    }
}
