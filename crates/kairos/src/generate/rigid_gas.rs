//! The rigid-body gases: [`polygons`] (2D spinning boxes, convex and concave polygons in a
//! room) and [`boxes`] (3D spinning cubes in a box room), each body inside its own lattice
//! cell's disc or ball.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::common::{
    check_at_most, check_duration, check_restitution, check_turn, float, floats, rigid_scene,
};
use super::error::GenerateError;
use crate::scene::{Scene, WallSpec};

/// Parameters of the rigid-body gases [`polygons`] (2D) and [`boxes`] (3D).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidGasParams {
    /// Number of bodies.
    pub n: usize,
    /// Seed of the random generator (PCG64).
    pub seed: u64,
    /// Fraction of the room covered by the bodies' bounding discs (2D, at most
    /// [`RigidGasParams::MAX_PACKING_2D`]) or balls (3D, at most
    /// [`RigidGasParams::MAX_PACKING_3D`]), each of radius 1.
    pub packing: f64,
    /// Velocity components are uniform in `[-speed, speed]`.
    pub speed: f64,
    /// Largest angular speed (2D: uniform in `[-spin, spin]`; 3D: a random axis, speed
    /// uniform in `[0, spin]`). With bodies of radius 1, `spin = speed` makes their rims move
    /// about as fast as their centres.
    pub spin: f64,
    /// Simulated time.
    pub duration: f64,
    /// Coefficient of restitution in `[0, 1]`, as in [`BilliardParams`](super::BilliardParams).
    pub restitution: f64,
    /// Fraction in `[0, 1]` of the 2D bodies that are concave star polygons (compound bodies
    /// of convex pieces) instead of boxes and convex polygons; 0 in 3D.
    pub concave: f64,
}

impl RigidGasParams {
    /// The densest 2D packing: bounding discs of radius 1 in square cells at least `2 / 0.9`
    /// wide, so neighbouring discs stay a tenth of a radius apart.
    pub const MAX_PACKING_2D: f64 = 0.6;
    /// The densest 3D packing (bounding balls in cubic cells, likewise apart).
    pub const MAX_PACKING_3D: f64 = 0.4;
    /// Most bodies a rigid-body generator writes (each is a TOML table).
    pub const MAX_BODIES: usize = 100_000;
}

impl Default for RigidGasParams {
    fn default() -> Self {
        Self {
            n: 100,
            seed: 0,
            packing: 0.2,
            speed: 1.0,
            spin: 1.0,
            duration: 10.0,
            restitution: 1.0,
            concave: 0.0,
        }
    }
}

/// Checks the parameters of a rigid gas of dimension `dim`.
pub(super) fn check_rigid_gas(p: &RigidGasParams, max_packing: f64) -> Result<(), GenerateError> {
    if p.n == 0 || p.n > RigidGasParams::MAX_BODIES {
        return Err(GenerateError::Bodies {
            n: p.n,
            max: RigidGasParams::MAX_BODIES,
        });
    }
    if !(p.packing > 0.0 && p.packing <= max_packing) {
        return Err(GenerateError::OutOfRange {
            name: "packing",
            range: if max_packing == RigidGasParams::MAX_PACKING_2D {
                "in (0, 0.6] in 2D (bounding discs on a square lattice)"
            } else {
                "in (0, 0.4] in 3D (bounding balls on a cubic lattice)"
            },
            got: p.packing,
        });
    }
    for (name, got) in [("speed", p.speed), ("spin", p.spin)] {
        if !(got >= 0.0 && got.is_finite()) {
            return Err(GenerateError::OutOfRange {
                name,
                range: "in [0, inf)",
                got,
            });
        }
    }
    check_at_most("speed", p.speed)?;
    check_at_most("spin", p.spin)?;
    check_duration(p.duration)?;
    check_turn(p.spin, p.duration)?;
    let concave_range = if max_packing == RigidGasParams::MAX_PACKING_2D {
        (0.0..=1.0).contains(&p.concave)
    } else {
        p.concave == 0.0
    };
    if !concave_range {
        return Err(GenerateError::OutOfRange {
            name: "concave",
            range: if max_packing == RigidGasParams::MAX_PACKING_2D {
                "in [0, 1]"
            } else {
                "0 in 3D (concave bodies are 2D polygons)"
            },
            got: p.concave,
        });
    }
    check_restitution(p.restitution)
}

/// A 2D gas of `n` spinning rigid bodies in a square room of four walls: boxes (even ids) and
/// convex polygons of 3 to 7 vertices (odd ids), each inside a disc of radius 1 centred on a
/// site of a square lattice whose cells are sized to the packing (the discs cover
/// `packing` of the room), in random orientations, velocity components uniform in
/// `[-speed, speed]`, angular velocities uniform in `[-spin, spin]`, density 1. With
/// `concave > 0`, each body is instead, with that probability, a concave star polygon: 3 to 5
/// spikes of outer radius in `[0.7, 1]` around notches at 0.3 to 0.55 of it (a compound body of
/// convex pieces).
pub fn polygons(p: &RigidGasParams) -> Result<Scene, GenerateError> {
    use std::f64::consts::{PI, TAU};
    check_rigid_gas(p, RigidGasParams::MAX_PACKING_2D)?;
    let mut rng = Pcg64::seed_from_u64(p.seed);
    let side = (p.n as f64).sqrt().ceil() as usize;
    let rows = p.n.div_ceil(side);
    let cell = (PI / p.packing).sqrt();
    let (w, h) = (side as f64 * cell, rows as f64 * cell);
    let tables = (0..p.n)
        .map(|k| {
            let mut t = toml::Table::new();
            // Drawn only when asked, so that gases without concave bodies keep their bits.
            if p.concave > 0.0 && rng.gen_bool(p.concave) {
                let spikes: usize = rng.gen_range(3..6);
                let outer = rng.gen_range(0.7..1.0);
                let inner = outer * rng.gen_range(0.3..0.55);
                let vertices = (0..2 * spikes)
                    .map(|i| {
                        let angle = PI * (i as f64 + rng.gen_range(-0.2..0.2)) / spikes as f64;
                        let r = if i % 2 == 0 { outer } else { inner };
                        floats(&[r * angle.cos(), r * angle.sin()])
                    })
                    .collect();
                t.insert("shape".into(), "polygon".into());
                t.insert("vertices".into(), toml::Value::Array(vertices));
            } else if k % 2 == 0 {
                // Half extents within the unit disc: a² + b² <= 1.
                let a: f64 = rng.gen_range(0.3..0.95);
                let b = (1.0 - a * a).sqrt() * rng.gen_range(0.2..1.0);
                t.insert("shape".into(), "box".into());
                t.insert("half_extents".into(), floats(&[a, b]));
            } else {
                // Vertices on a circle are in convex position; the angle steps keep them apart.
                let m: usize = rng.gen_range(3..8);
                let r = rng.gen_range(0.6..1.0);
                let vertices = (0..m)
                    .map(|i| {
                        let angle = TAU * (i as f64 + rng.gen_range(0.0..0.6)) / m as f64;
                        floats(&[r * angle.cos(), r * angle.sin()])
                    })
                    .collect();
                t.insert("shape".into(), "polygon".into());
                t.insert("vertices".into(), toml::Value::Array(vertices));
            }
            let site = [
                ((k % side) as f64 + 0.5) * cell,
                ((k / side) as f64 + 0.5) * cell,
            ];
            t.insert("position".into(), floats(&site));
            random_motion_2d(&mut t, &mut rng, p);
            t
        })
        .collect();
    let walls = vec![WallSpec::Box {
        min: vec![0.0, 0.0],
        max: vec![w, h],
    }];
    rigid_scene(2, walls, tables, p.duration, p.restitution)
}

/// A 3D gas of `n` spinning cubes (isotropic inertia: constant angular velocity) in a box
/// room: each cube inside a ball of radius 1 centred on a site of a cubic lattice whose cells
/// are sized to the packing (the balls cover `packing` of the room), half extent uniform in
/// `[0.5, 1] / sqrt(3)`, a uniformly random orientation, velocity components uniform in
/// `[-speed, speed]`, angular velocity about a random axis at a speed uniform in `[0, spin]`,
/// density 1.
pub fn boxes(p: &RigidGasParams) -> Result<Scene, GenerateError> {
    use std::f64::consts::PI;
    check_rigid_gas(p, RigidGasParams::MAX_PACKING_3D)?;
    let mut rng = Pcg64::seed_from_u64(p.seed);
    let side = (p.n as f64).cbrt().ceil() as usize;
    let layers = p.n.div_ceil(side * side);
    let cell = (4.0 / 3.0 * PI / p.packing).cbrt();
    let tables = (0..p.n)
        .map(|k| {
            let mut t = toml::Table::new();
            let half = rng.gen_range(0.5..=1.0) / 3f64.sqrt();
            t.insert("shape".into(), "box".into());
            t.insert("half_extents".into(), floats(&[half; 3]));
            let site = [
                ((k % side) as f64 + 0.5) * cell,
                ((k / side % side) as f64 + 0.5) * cell,
                ((k / side / side) as f64 + 0.5) * cell,
            ];
            t.insert("position".into(), floats(&site));
            random_motion_3d(&mut t, &mut rng, p);
            t
        })
        .collect();
    let l = side as f64 * cell;
    let walls = vec![WallSpec::Box {
        min: vec![0.0; 3],
        max: vec![l, l, layers as f64 * cell],
    }];
    rigid_scene(3, walls, tables, p.duration, p.restitution)
}

/// A 2D body's random orientation, velocity (components uniform in `[-speed, speed]`) and
/// angular velocity (uniform in `[-spin, spin]`), drawn in that order.
pub(super) fn random_motion_2d(t: &mut toml::Table, rng: &mut Pcg64, p: &RigidGasParams) {
    use std::f64::consts::TAU;
    t.insert("orientation".into(), float(rng.gen_range(0.0..TAU)));
    let v = [
        rng.gen_range(-1.0..=1.0) * p.speed,
        rng.gen_range(-1.0..=1.0) * p.speed,
    ];
    t.insert("velocity".into(), floats(&v));
    t.insert(
        "angular_velocity".into(),
        float(rng.gen_range(-1.0..=1.0) * p.spin),
    );
}

/// A 3D body's uniformly random orientation (Shoemake's method, as `[w, x, y, z]`), velocity
/// (components uniform in `[-speed, speed]`) and angular velocity (a random axis, uniform on
/// the sphere, at a speed uniform in `[0, spin]`), drawn in that order.
pub(super) fn random_motion_3d(t: &mut toml::Table, rng: &mut Pcg64, p: &RigidGasParams) {
    use std::f64::consts::TAU;
    let (u1, u2, u3): (f64, f64, f64) =
        (rng.gen(), rng.gen_range(0.0..TAU), rng.gen_range(0.0..TAU));
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    t.insert(
        "orientation".into(),
        floats(&[a * u2.sin(), a * u2.cos(), b * u3.sin(), b * u3.cos()]),
    );
    let v: Vec<f64> = (0..3)
        .map(|_| rng.gen_range(-1.0..=1.0) * p.speed)
        .collect();
    t.insert("velocity".into(), floats(&v));
    let z: f64 = rng.gen_range(-1.0..=1.0);
    let phi = rng.gen_range(0.0..TAU);
    let s = (1.0 - z * z).sqrt();
    let speed = rng.gen_range(0.0..=1.0) * p.spin;
    t.insert(
        "angular_velocity".into(),
        floats(&[speed * s * phi.cos(), speed * s * phi.sin(), speed * z]),
    );
}
