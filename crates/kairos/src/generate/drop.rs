//! [`drop`]: balls and boxes dropped into a room of planes under gravity.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::common::{
    check_dim, check_duration, check_gravity, check_restitution, check_rigid_count, float, floats,
    rigid_scene,
};
use super::error::GenerateError;
use crate::scene::{Scene, WallSpec};

/// Parameters of [`drop`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DropParams {
    /// 2 or 3.
    pub dim: usize,
    /// Number of balls.
    pub balls: usize,
    /// Number of boxes.
    pub boxes: usize,
    /// Seed of the random generator (PCG64).
    pub seed: u64,
    /// The strength of gravity, `> 0` (it points along `-y` in 2D, `-z` in 3D).
    pub gravity: f64,
    /// Coefficient of restitution in `[0, 1]`, as in [`BilliardParams`](super::BilliardParams).
    pub restitution: f64,
    /// Simulated time.
    pub duration: f64,
}

impl Default for DropParams {
    fn default() -> Self {
        Self {
            dim: 2,
            balls: 100,
            boxes: 100,
            seed: 0,
            gravity: 10.0,
            restitution: 0.5,
            duration: 20.0,
        }
    }
}

/// Balls and boxes dropped into a room under gravity: `balls` balls (radius uniform in
/// `[0.5, 1]`) and `boxes` boxes (inside a disc or ball of radius 1, in random orientations),
/// mixed at random on a square (2D) or cubic (3D) lattice of cells 2.5 wide, whose lowest layer
/// lies 5 above the floor of a room of planes (floor, ceiling and sides) as wide as the lattice
/// and twice as tall, with
/// velocity components uniform in `[-1, 1]`, no spin, density 1. The bodies fall, bounce,
/// collide and come to rest on the floor and on each other (see
/// [`crate::world::WorldBuilder::gravity`]).
pub fn drop(p: &DropParams) -> Result<Scene, GenerateError> {
    use std::f64::consts::TAU;
    check_dim(p.dim)?;
    let n = p.balls + p.boxes;
    check_rigid_count(n)?;
    check_gravity(p.gravity)?;
    check_duration(p.duration)?;
    check_restitution(p.restitution)?;
    let mut rng = Pcg64::seed_from_u64(p.seed);
    let cell = 2.5;
    let lift = 5.0;
    let d = p.dim;
    let side = if d == 2 {
        (n as f64).sqrt().ceil() as usize
    } else {
        (n as f64).cbrt().ceil() as usize
    };
    let per_layer = if d == 2 { side } else { side * side };
    let layers = n.div_ceil(per_layer);
    // Which lattice sites hold boxes: a random choice of `boxes` of the `n` sites.
    let mut is_box: Vec<bool> = (0..n).map(|k| k < p.boxes).collect();
    for k in (1..n).rev() {
        let j = rng.gen_range(0..=k);
        is_box.swap(k, j);
    }
    let tables = (0..n)
        .map(|k| {
            let mut t = toml::Table::new();
            let layer = k / per_layer;
            let in_layer = k % per_layer;
            let mut site = vec![(in_layer % side) as f64 * cell + 0.5 * cell];
            if d == 3 {
                site.push((in_layer / side) as f64 * cell + 0.5 * cell);
            }
            site.push(lift + (layer as f64 + 0.5) * cell);
            if is_box[k] {
                t.insert("shape".into(), "box".into());
                if d == 2 {
                    let a: f64 = rng.gen_range(0.4..0.9);
                    let b = (1.0 - a * a).sqrt() * rng.gen_range(0.4..1.0);
                    t.insert("half_extents".into(), floats(&[a, b]));
                    t.insert("orientation".into(), float(rng.gen_range(0.0..TAU)));
                } else {
                    let h: Vec<f64> = (0..3).map(|_| rng.gen_range(0.3..0.57)).collect();
                    t.insert("half_extents".into(), floats(&h));
                    let (u1, u2, u3): (f64, f64, f64) =
                        (rng.gen(), rng.gen_range(0.0..TAU), rng.gen_range(0.0..TAU));
                    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
                    t.insert(
                        "orientation".into(),
                        floats(&[a * u2.sin(), a * u2.cos(), b * u3.sin(), b * u3.cos()]),
                    );
                }
            } else {
                t.insert("shape".into(), "ball".into());
                t.insert("radius".into(), float(rng.gen_range(0.5..=1.0)));
            }
            t.insert("position".into(), floats(&site));
            let v: Vec<f64> = (0..d).map(|_| rng.gen_range(-1.0..=1.0)).collect();
            t.insert("velocity".into(), floats(&v));
            t
        })
        .collect();
    let width = side as f64 * cell;
    let top = 2.0 * (lift + layers as f64 * cell);
    let mut max = vec![width; d];
    max[d - 1] = top;
    // The room's faces as planes (the exact gap of one support point for rigid bodies).
    let mut walls = Vec::with_capacity(2 * d);
    for axis in 0..d {
        let mut normal = vec![0.0; d];
        normal[axis] = 1.0;
        walls.push(WallSpec::Plane {
            point: vec![0.0; d],
            normal: normal.clone(),
        });
        normal[axis] = -1.0;
        walls.push(WallSpec::Plane {
            point: max.clone(),
            normal,
        });
    }
    let mut scene = rigid_scene(d, walls, tables, p.duration, p.restitution)?;
    scene.gravity[d - 1] = -p.gravity;
    scene.validate().map_err(GenerateError::Invalid)?;
    Ok(scene)
}
