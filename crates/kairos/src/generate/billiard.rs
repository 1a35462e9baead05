//! [`billiard`]: the thesis's benchmark table (or its 3D room) of randomly placed balls, by
//! random sequential placement on a grid, then pushing the overlaps apart where it jams.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::common::{check_at_most, check_duration, check_restitution, with_restitution};
use super::error::GenerateError;
use crate::scene::{BodySpec, Scene, WallSpec};

/// Parameters of [`billiard`]. The defaults are calibrated so that mean collision counts match
/// the thesis's Table 5.1 (see `docs/benchmarks.md`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BilliardParams {
    /// 2 (a table of four walls) or 3 (a box room of six walls).
    pub dim: usize,
    /// Number of balls.
    pub n: usize,
    /// Seed of the random generator (PCG64).
    pub seed: u64,
    /// Fraction of the table's area covered by balls.
    pub packing: f64,
    /// Smallest radius.
    pub radius_min: f64,
    /// Largest radius.
    pub radius_max: f64,
    /// Width over height of the table.
    pub aspect: f64,
    /// Simulated time.
    pub duration: f64,
    /// Coefficient of restitution in `[0, 1]` (1 = elastic). A dissipative scene gets an
    /// explicit contact duration, [`Scene::default_contact_duration`].
    pub restitution: f64,
}

impl Default for BilliardParams {
    fn default() -> Self {
        Self {
            dim: 2,
            n: 256,
            seed: 0,
            packing: 0.13,
            radius_min: 0.5,
            radius_max: 1.0,
            aspect: 1.0,
            duration: 5.0,
            restitution: 1.0,
        }
    }
}

/// The thesis's billiard scene (or its 3D analogue, a cube room); deterministic for given
/// parameters. In 3D, the same construction with volumes instead of areas.
///
/// Radii are uniform in `[radius_min, radius_max]`; the table's area is the balls' total area
/// over `packing` (at most 0.5); ball centres are uniform over the table with rejection of
/// overlaps (a uniform grid keeps that linear). Where that random sequential placement jams (a
/// ball finds no free place in 10,000 tries: in 3D from a packing of about 0.25 to 0.3, in 2D
/// near 0.5), the remaining balls are placed anywhere and the overlaps pushed apart (see
/// `push_apart`), which reaches packing 0.5 with 100 balls or more; with fewer, the walls leave
/// too little room at high packing. Scenes that random sequential placement completes are
/// unchanged by the second stage. Each velocity component is uniform in `[-W, W]` and `[-H, H]`
/// per second for a `W x H` table, so the fastest possible ball crosses the diagonal in one
/// second.
pub fn billiard(p: &BilliardParams) -> Result<Scene, GenerateError> {
    if p.n == 0 {
        return Err(GenerateError::NoBalls);
    }
    if p.n > 50_000_000 {
        return Err(GenerateError::TooManyBalls {
            n: p.n,
            max: 50_000_000,
        });
    }
    if !(p.packing > 0.0 && p.packing <= 0.5) {
        return Err(GenerateError::OutOfRange {
            name: "packing",
            range: "in (0, 0.5] (the fraction of the table covered by balls)",
            got: p.packing,
        });
    }
    if !(p.radius_min > 0.0 && p.radius_min <= p.radius_max && p.radius_max.is_finite()) {
        return Err(GenerateError::Radii {
            min: p.radius_min,
            max: p.radius_max,
        });
    }
    check_duration(p.duration)?;
    check_at_most("radius-max", p.radius_max)?;
    if !(1e-3..=1e3).contains(&p.aspect) {
        return Err(GenerateError::OutOfRange {
            name: "aspect",
            range: "in [1e-3, 1e3] (the table's width over its height)",
            got: p.aspect,
        });
    }
    if p.dim != 2 && p.dim != 3 {
        return Err(GenerateError::Dimension(p.dim));
    }
    check_restitution(p.restitution)?;
    let dim = p.dim;
    let mut rng = Pcg64::seed_from_u64(p.seed);
    let radii: Vec<f64> = (0..p.n)
        .map(|_| rng.gen_range(p.radius_min..=p.radius_max))
        .collect();
    let ball = |r: f64| {
        if dim == 3 {
            4.0 / 3.0 * std::f64::consts::PI * r * r * r
        } else {
            std::f64::consts::PI * r * r
        }
    };
    let volume: f64 = radii.iter().map(|&r| ball(r)).sum::<f64>() / p.packing;
    // Width over height is `aspect` in 2D; the 3D room is a cube.
    let lengths: [f64; 3] = if dim == 2 {
        let w = (volume * p.aspect).sqrt().max(2.0 * p.radius_max * 1.01);
        [w, (volume / w).max(2.0 * p.radius_max * 1.01), 0.0]
    } else {
        [volume.cbrt().max(2.0 * p.radius_max * 1.01); 3]
    };

    if let Some(&length) = lengths[..dim]
        .iter()
        .find(|l| !(**l <= crate::scene::MAX_MAGNITUDE))
    {
        return Err(GenerateError::RoomTooLarge {
            n: p.n,
            packing: p.packing,
            length,
        });
    }

    // Rejection sampling on a uniform grid with cells of at least one diameter.
    let (cell, g) = placement_grid(&lengths[..dim], 2.0 * p.radius_max, p.n);
    let mut grid: Vec<Vec<u32>> = vec![Vec::new(); g[0] * g[1] * g[2]];
    let cell_of = |x: &[f64; 3]| -> [usize; 3] {
        let mut c = [0usize; 3];
        for a in 0..dim {
            c[a] = ((x[a] / cell) as usize).min(g[a] - 1);
        }
        c
    };
    let mut pos: Vec<[f64; 3]> = Vec::with_capacity(p.n);
    for (i, &r) in radii.iter().enumerate() {
        let margin = r * (1.0 + 1e-9);
        let mut placed = false;
        for _ in 0..MAX_TRIES {
            let mut x = [0.0; 3];
            for a in 0..dim {
                x[a] = rng.gen_range(margin..=lengths[a] - margin);
            }
            let c = cell_of(&x);
            let range = |a: usize| c[a].saturating_sub(1)..=(c[a] + 1).min(g[a] - 1);
            let mut free = true;
            'scan: for nz in range(2) {
                for ny in range(1) {
                    for nx in range(0) {
                        for &j in &grid[(nz * g[1] + ny) * g[0] + nx] {
                            let xj = pos[j as usize];
                            let s = (r + radii[j as usize]) * (1.0 + 1e-9);
                            let d2: f64 = (0..dim).map(|a| (x[a] - xj[a]).powi(2)).sum();
                            if d2 < s * s {
                                free = false;
                                break 'scan;
                            }
                        }
                    }
                }
            }
            if free {
                grid[(c[2] * g[1] + c[1]) * g[0] + c[0]].push(i as u32);
                pos.push(x);
                placed = true;
                break;
            }
        }
        if !placed {
            // Random sequential placement jams (near 0.38 of the volume in 3D, 0.55 of the
            // area in 2D, lower with a spread of radii): the other balls go anywhere and the
            // overlaps are pushed apart.
            for &r in &radii[i..] {
                let margin = r * (1.0 + 1e-9);
                let mut x = [0.0; 3];
                for a in 0..dim {
                    x[a] = rng.gen_range(margin..=lengths[a] - margin);
                }
                pos.push(x);
            }
            if !push_apart(&mut pos, &radii, &lengths[..dim]) {
                return Err(GenerateError::Jammed {
                    n: p.n,
                    packing: p.packing,
                    dim,
                });
            }
            break;
        }
    }
    let bodies = pos
        .iter()
        .zip(&radii)
        .map(|(x, &r)| {
            let mut velocity = [0.0; 3];
            for (a, v) in velocity.iter_mut().enumerate().take(dim) {
                *v = rng.gen_range(-lengths[a]..=lengths[a]);
            }
            let mut position = [0.0; 3];
            position[..dim].copy_from_slice(&x[..dim]);
            BodySpec {
                position,
                velocity,
                radius: r,
                mass: 1.0,
            }
        })
        .collect();
    let walls = if dim == 2 {
        let (w, h) = (lengths[0], lengths[1]);
        let corners = [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]];
        (0..4)
            .map(|k| WallSpec::Segment {
                a: corners[k].to_vec(),
                b: corners[(k + 1) % 4].to_vec(),
            })
            .collect()
    } else {
        vec![WallSpec::Box {
            min: vec![0.0; 3],
            max: lengths.to_vec(),
        }]
    };
    let scene = with_restitution(
        Scene {
            dim,
            duration: p.duration,
            restitution: 1.0,
            contact_duration: None,
            gravity: [0.0; 3],
            rest_speed: None,
            friction: 0.0,
            walls,
            bodies,
            periodic: None,
            shapes: Vec::new(),
            meshes: Default::default(),
        },
        p.restitution,
    );
    scene.validate().map_err(GenerateError::Invalid)?;
    Ok(scene)
}

/// The cell width and the cells along each axis of a grid over a room of `lengths` for `n`
/// balls: cells at least `diameter` wide, so that the balls a ball overlaps are in the cells
/// around its own, and widened (doubled) until there are at most `8 n + 8` cells, so that a
/// sparse or elongated room (a tiny packing, a large aspect) does not make the grid outgrow
/// the balls. Which balls overlap does not depend on the width, so neither does the scene.
fn placement_grid(lengths: &[f64], diameter: f64, n: usize) -> (f64, [usize; 3]) {
    let most = 8.0 * n as f64 + 8.0;
    let mut cell = diameter;
    loop {
        let along = |l: f64| (l / cell).ceil().max(1.0);
        if lengths.iter().map(|&l| along(l)).product::<f64>() <= most {
            let mut g = [1usize; 3];
            for (g, &l) in g.iter_mut().zip(lengths) {
                *g = along(l) as usize;
            }
            return (cell, g);
        }
        cell *= 2.0;
    }
}

/// Tries of random sequential placement for one ball before [`push_apart`] takes over.
const MAX_TRIES: usize = 10_000;
/// Sweeps of [`push_apart`] before it gives up.
const MAX_SWEEPS: usize = 20_000;

/// Removes the overlaps of balls at `pos` with `radii` in the box `[0, lengths]` (centres kept
/// a radius from its faces): sweeps over the overlapping pairs (found on a grid of cells one
/// largest diameter wide), each pushed apart along its centre line to slightly more than
/// contact, until a sweep finds none. Deterministic (a fixed order, no randomness). Returns
/// `false` when the overlaps are not gone after [`MAX_SWEEPS`] sweeps.
fn push_apart(pos: &mut [[f64; 3]], radii: &[f64], lengths: &[f64]) -> bool {
    let dim = lengths.len();
    let n = pos.len();
    let r_max = radii.iter().copied().fold(0.0, f64::max);
    let (cell, g) = placement_grid(lengths, 2.0 * r_max, n);
    let cells = g[0] * g[1] * g[2];
    let mut head = vec![u32::MAX; cells];
    let mut next = vec![u32::MAX; n];
    let mut of = vec![[0usize; 3]; n];
    let clamp = |x: &mut [f64; 3], r: f64| {
        let margin = r * (1.0 + 1e-9);
        for a in 0..dim {
            x[a] = x[a].clamp(margin, lengths[a] - margin);
        }
    };
    for _ in 0..MAX_SWEEPS {
        head.fill(u32::MAX);
        for i in 0..n {
            let mut c = [0usize; 3];
            for a in 0..dim {
                c[a] = ((pos[i][a] / cell) as usize).min(g[a] - 1);
            }
            of[i] = c;
            let k = (c[2] * g[1] + c[1]) * g[0] + c[0];
            next[i] = head[k];
            head[k] = i as u32;
        }
        let mut moved = false;
        for i in 0..n {
            let c = of[i];
            let range = |a: usize| c[a].saturating_sub(1)..=(c[a] + 1).min(g[a] - 1);
            for nz in range(2) {
                for ny in range(1) {
                    for nx in range(0) {
                        let mut j = head[(nz * g[1] + ny) * g[0] + nx];
                        while j != u32::MAX {
                            let jj = j as usize;
                            j = next[jj];
                            if jj <= i {
                                continue;
                            }
                            let s = (radii[i] + radii[jj]) * (1.0 + 1e-9);
                            let mut d = [0.0; 3];
                            for a in 0..dim {
                                d[a] = pos[jj][a] - pos[i][a];
                            }
                            let d2: f64 = d.iter().map(|x| x * x).sum();
                            if d2 >= s * s {
                                continue;
                            }
                            let dist = d2.sqrt();
                            let u = if dist > 0.0 {
                                d.map(|x| x / dist)
                            } else {
                                [1.0, 0.0, 0.0]
                            };
                            // Half the missing distance each, and a little more.
                            let half = 0.5 * (s * (1.0 + 1e-3) - dist);
                            for a in 0..dim {
                                pos[i][a] -= u[a] * half;
                                pos[jj][a] += u[a] * half;
                            }
                            clamp(&mut pos[i], radii[i]);
                            clamp(&mut pos[jj], radii[jj]);
                            moved = true;
                        }
                    }
                }
            }
        }
        if !moved {
            return true;
        }
    }
    false
}
