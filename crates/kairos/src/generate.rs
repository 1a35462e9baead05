//! Scene generators.
//!
//! [`billiard`] builds the thesis's benchmark scene (section 5.2): a rectangular table of four
//! walls, constant density for every body count, uniformly random radii and velocities, where the
//! fastest possible velocity crosses the table's diagonal in one second, and 5 s simulated.
//! [`gas`] builds periodic hard-sphere and hard-disc gases from a lattice.
//!
//! Rigid bodies: [`polygons`] (a 2D gas of spinning convex polygons and boxes in a room),
//! [`boxes`] (spinning cubes in a 3D room) and [`bullet`] (small fast spinning boxes fired at a
//! thin rotating plank and at each other, the case where a conservative time of impact must
//! not let a body tunnel). Each rigid body lies inside its own disc or ball of a lattice, so
//! nothing overlaps at t = 0 by construction.

// rand stays at 0.8 (rand_pcg at 0.3): a seed must keep giving the same scene, and from rand
// 0.9 on `gen_range` maps the same PCG64 stream to other values (integer ranges by another
// method, inclusive float ranges differing in the last bit), which changes every billiard and gas
// scene.
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::num::Num;
use crate::scene::{BodySpec, Scene, SceneError, WallSpec};

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

/// Why a scene could not be generated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GenerateError {
    /// No balls were asked for.
    #[error("the number of balls must be at least 1")]
    NoBalls,
    /// More balls than the generator handles.
    #[error("{n} balls would not fit in memory here (at most {max})")]
    TooManyBalls {
        /// Balls asked for.
        n: usize,
        /// The generator's limit.
        max: usize,
    },
    /// A parameter is outside its range.
    #[error("{name} must be in {range}, got {}", Num(*.got))]
    OutOfRange {
        /// The parameter.
        name: &'static str,
        /// Its range, in words.
        range: &'static str,
        /// The value given.
        got: f64,
    },
    /// The bodies' spin over the duration turns them further than a run resolves
    /// ([`crate::rigid::MAX_TURN`] radians).
    #[error(
        "the bodies would turn up to {} radians (spin {} times duration {}); a run resolves at \
         most 1e8: give a shorter duration (or a lower spin)",
        Num(*.spin * *.duration), Num(*.spin), Num(*.duration)
    )]
    TooMuchTurn {
        /// The largest spin, radians per unit time.
        spin: f64,
        /// The duration.
        duration: f64,
    },
    /// Parameters that must be positive and finite are not.
    #[error("{names} must be positive and finite")]
    NotPositive {
        /// The parameters, in words.
        names: &'static str,
    },
    /// A parameter is larger than a scene file may hold.
    #[error("{name} is too large ({got:e}; a scene holds numbers of at most {max:e})")]
    TooLarge {
        /// The parameter.
        name: &'static str,
        /// The value given.
        got: f64,
        /// The largest a scene reads.
        max: f64,
    },
    /// The radii's bounds are out of order or not positive.
    #[error("radii must satisfy 0 < min <= max, got [{}, {}]", Num(*.min), Num(*.max))]
    Radii {
        /// Smallest radius.
        min: f64,
        /// Largest radius.
        max: f64,
    },
    /// A dimension other than 2 or 3.
    #[error("dimension must be 2 or 3, got {0}")]
    Dimension(usize),
    /// Parameters of one dimension for a world of another.
    #[error("dimension {requested} requested for a {world}D world")]
    WorldDimension {
        /// The parameters' dimension.
        requested: usize,
        /// The world's.
        world: usize,
    },
    /// Random placement and pushing apart could not place every ball in the room.
    #[error(
        "could not place {n} balls without overlap at packing {packing} in {dim}D: the walls \
         leave few balls too little room; lower the packing or use more balls (packing 0.5 \
         needs about 100 balls in 3D)"
    )]
    Jammed {
        /// Balls asked for.
        n: usize,
        /// Packing asked for.
        packing: f64,
        /// Dimension.
        dim: usize,
    },
    /// The gas's starting lattice has sites closer than a largest diameter.
    #[error(
        "packing {packing} cannot be reached from a {lattice} lattice of {sites} sites for {n} \
         {} with polydispersity {polydispersity} (nearest sites {nearest:.4} apart, largest \
         diameter {largest_diameter:.4}); {advice}",
        balls(*.n)
    )]
    LatticeTooDense {
        /// Packing asked for.
        packing: f64,
        /// The lattice's name.
        lattice: &'static str,
        /// Its sites.
        sites: usize,
        /// Balls asked for.
        n: usize,
        /// Polydispersity asked for.
        polydispersity: f64,
        /// Distance of the nearest sites.
        nearest: f64,
        /// The largest diameter.
        largest_diameter: f64,
        /// What would pass.
        advice: Advice,
    },
    /// The periodic box would be too short for the balls' images.
    #[error(
        "a periodic box for {n} {} at packing {packing} would be {length:.4} long, but its \
         lengths must exceed twice the largest contact distance ({needed:.4}, two largest \
         diameters), so that a ball meets at most one image of another; {advice}",
        balls(*.n)
    )]
    BoxTooSmall {
        /// Balls asked for.
        n: usize,
        /// Packing asked for.
        packing: f64,
        /// The box's shortest length.
        length: f64,
        /// The least length allowed.
        needed: f64,
        /// What would pass.
        advice: Advice,
    },
    /// The generated scene failed validation (a bug of the generator if it ever happens).
    #[error("generated scene is invalid: {0}")]
    Invalid(SceneError),
    /// The billiard room the parameters ask for is longer than a scene's coordinates may be.
    #[error(
        "a table for {n} {} at packing {} would be {} long, beyond the largest coordinate of a \
         scene ({}): use larger packing or smaller radii",
        balls(*.n),
        Num(*.packing),
        Num(*.length),
        Num(crate::scene::MAX_MAGNITUDE)
    )]
    RoomTooLarge {
        /// Balls asked for.
        n: usize,
        /// Packing asked for.
        packing: f64,
        /// The room's longest side (infinite when it overflows).
        length: f64,
    },
    /// A rigid-body generator was asked for no bodies, or for more than it writes.
    #[error("the number of bodies must be in [1, {max}], got {n}")]
    Bodies {
        /// Bodies asked for.
        n: usize,
        /// The generator's limit.
        max: usize,
    },
}

/// What gas parameters would pass the lattice's and the box's checks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Advice {
    /// The packing below which the same balls fit.
    pub packing_below: f64,
    /// The least number of balls that fit at the packing asked for, if one was found.
    pub balls: Option<usize>,
}

impl std::fmt::Display for Advice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "use a packing below {:.4}", self.packing_below)?;
        match self.balls {
            Some(k) => write!(f, ", or {k} balls or more"),
            None => Ok(()),
        }
    }
}

/// "ball" or "balls".
fn balls(n: usize) -> &'static str {
    if n == 1 {
        "ball"
    } else {
        "balls"
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
            range: "(0, 0.5] (the fraction of the table covered by balls)",
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
            range: "[1e-3, 1e3] (the table's width over its height)",
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

/// `scene` with restitution `e`: a dissipative scene states its contact duration (the default
/// for its bodies), so that the file says which `t_c` it is simulated with.
fn with_restitution(mut scene: Scene, e: f64) -> Scene {
    scene.restitution = e;
    if e < 1.0 {
        scene.contact_duration = Some(scene.default_contact_duration());
    }
    scene
}

/// A scene's duration: positive, and at most what a scene file holds
/// ([`crate::scene::MAX_MAGNITUDE`]), so that the reader takes every generated scene.
fn check_duration(duration: f64) -> Result<(), GenerateError> {
    check_at_most("duration", duration)?;
    if !(duration > 0.0) {
        return Err(GenerateError::NotPositive { names: "duration" });
    }
    Ok(())
}

/// A parameter the scene file holds (or scales what it holds) is at most
/// [`crate::scene::MAX_MAGNITUDE`] in size.
fn check_at_most(name: &'static str, x: f64) -> Result<(), GenerateError> {
    let max = crate::scene::MAX_MAGNITUDE;
    if x.abs() > max && !x.is_nan() {
        return Err(GenerateError::TooLarge { name, got: x, max });
    }
    Ok(())
}

/// A body spinning at up to `spin` for `duration` turns at most [`crate::rigid::MAX_TURN`]
/// radians, as scenes require.
fn check_turn(spin: f64, duration: f64) -> Result<(), GenerateError> {
    if spin * duration > crate::rigid::MAX_TURN {
        return Err(GenerateError::TooMuchTurn { spin, duration });
    }
    Ok(())
}

fn check_restitution(e: f64) -> Result<(), GenerateError> {
    if (0.0..=1.0).contains(&e) {
        Ok(())
    } else {
        Err(GenerateError::OutOfRange {
            name: "restitution",
            range: "[0, 1] (1 = elastic)",
            got: e,
        })
    }
}

/// Parameters of [`gas`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GasParams {
    /// 2 or 3.
    pub dim: usize,
    /// Number of balls.
    pub n: usize,
    /// Fraction of the box's area (2D) or volume (3D) covered by balls.
    pub packing: f64,
    /// Relative spread of the diameters: uniform in `[1 - p, 1 + p]` times the mean diameter 1.
    pub polydispersity: f64,
    /// Mass of every ball.
    pub mass: f64,
    /// Seed of the random generator (PCG64).
    pub seed: u64,
    /// Simulated time.
    pub duration: f64,
    /// Coefficient of restitution in `[0, 1]` (1 = elastic), as in [`BilliardParams`].
    pub restitution: f64,
}

impl Default for GasParams {
    fn default() -> Self {
        Self {
            dim: 3,
            n: 1000,
            packing: 0.3,
            polydispersity: 0.0,
            mass: 1.0,
            seed: 0,
            duration: 10.0,
            restitution: 1.0,
        }
    }
}

/// A hard-sphere (3D) or hard-disc (2D) gas in a periodic box, as raw parts: the box lengths
/// and the bodies, positions inside the box, velocities with zero total momentum and
/// `kT = 1` (the kinetic energy is `d (n - 1) kT / 2`, the momentum's `d` degrees of freedom
/// removed). Units: mean diameter 1, mass `params.mass`.
///
/// The start is a lattice (triangular in 2D, face-centred cubic in 3D) with the box scaled to
/// the packing fraction; when it has more sites than balls, a random subset is occupied. The
/// largest reachable packing is where the lattice's nearest-neighbour distance equals the
/// largest diameter: about 0.74 / (1 + p)^3 in 3D and 0.91 / (1 + p)^2 in 2D for a full lattice.
pub fn gas_bodies<V: crate::math::Vector>(
    p: &GasParams,
) -> Result<(V, Vec<crate::body::Body<V>>), GenerateError> {
    use std::f64::consts::PI;
    if p.dim != V::DIM {
        return Err(GenerateError::WorldDimension {
            requested: p.dim,
            world: V::DIM,
        });
    }
    let (mut rng, radii, plan) = gas_plan(p)?;
    // Lattice sites in unit cells of the lattice, scaled to the box.
    let h = 3f64.sqrt() / 2.0;
    let (cells, a, lengths, sites_count) = (plan.cells, plan.a, plan.lengths, plan.sites);
    let mut sites: Vec<[f64; 3]> = Vec::with_capacity(sites_count);
    if p.dim == 3 {
        let basis = [
            [0.0, 0.0, 0.0],
            [0.5, 0.5, 0.0],
            [0.5, 0.0, 0.5],
            [0.0, 0.5, 0.5],
        ];
        let m = cells[0];
        for z in 0..m {
            for y in 0..m {
                for x in 0..m {
                    for b in basis {
                        sites.push([
                            (x as f64 + b[0]) * a,
                            (y as f64 + b[1]) * a,
                            (z as f64 + b[2]) * a,
                        ]);
                    }
                }
            }
        }
    } else {
        for y in 0..cells[1] {
            for x in 0..cells[0] {
                sites.push([(x as f64 + 0.5 * (y % 2) as f64) * a, y as f64 * h * a, 0.0]);
            }
        }
    }
    // A random subset of the sites (partial Fisher-Yates).
    let mut order: Vec<u32> = (0..sites.len() as u32).collect();
    for i in 0..p.n {
        let j = rng.gen_range(i..order.len());
        order.swap(i, j);
    }
    order.truncate(p.n);
    order.sort_unstable();

    // Maxwell-Boltzmann velocities (Box-Muller), zero momentum, then exact kT = 1.
    let sd = (1.0 / p.mass).sqrt();
    let mut gauss = move || {
        let u1: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
        let u2: f64 = rng.gen_range(0.0..1.0);
        (-2.0 * u1.ln()).sqrt() * (2.0 * PI * u2).cos() * sd
    };
    let mut vel: Vec<[f64; 3]> = (0..p.n)
        .map(|_| [gauss(), gauss(), if p.dim == 3 { gauss() } else { 0.0 }])
        .collect();
    let mut mean = [0.0; 3];
    for v in &vel {
        for a in 0..3 {
            mean[a] += v[a] / p.n as f64;
        }
    }
    let mut sum_v2 = 0.0;
    for v in &mut vel {
        for a in 0..3 {
            v[a] -= mean[a];
            sum_v2 += v[a] * v[a];
        }
    }
    let dof = (p.dim * (p.n.max(2) - 1)) as f64;
    let scale = if sum_v2 > 0.0 {
        (dof / (p.mass * sum_v2)).sqrt()
    } else {
        0.0
    };
    let v = |x: [f64; 3]| V::from_array3(x);
    let bodies = order
        .iter()
        .zip(&radii)
        .zip(&vel)
        .map(|((&site, &r), u)| {
            let vel = [u[0] * scale, u[1] * scale, u[2] * scale];
            crate::body::Body::new(v(sites[site as usize]), v(vel), r, p.mass)
        })
        .collect();
    Ok((v(lengths), bodies))
}

/// Checks the parameters of [`gas_bodies`] (any dimension) without generating anything: the
/// same errors, at the cost of drawing the radii.
pub fn check_gas(p: &GasParams) -> Result<(), GenerateError> {
    if p.dim != 2 && p.dim != 3 {
        return Err(GenerateError::Dimension(p.dim));
    }
    gas_plan(p).map(|_| ())
}

/// The checks of [`gas_bodies`], the radii (the random generator after drawing them) and the
/// lattice.
fn gas_plan(p: &GasParams) -> Result<(Pcg64, Vec<f64>, Lattice), GenerateError> {
    use std::f64::consts::PI;
    if p.n == 0 {
        return Err(GenerateError::NoBalls);
    }
    if p.n > 100_000_000 {
        return Err(GenerateError::TooManyBalls {
            n: p.n,
            max: 100_000_000,
        });
    }
    if !(p.packing > 0.0 && p.packing < 1.0) {
        return Err(GenerateError::OutOfRange {
            name: "packing",
            range: "(0, 1)",
            got: p.packing,
        });
    }
    if !(0.0..1.0).contains(&p.polydispersity) {
        return Err(GenerateError::OutOfRange {
            name: "polydispersity",
            range: "[0, 1)",
            got: p.polydispersity,
        });
    }
    check_duration(p.duration)?;
    check_at_most("mass", p.mass)?;
    if !(p.mass > 0.0) {
        return Err(GenerateError::NotPositive { names: "mass" });
    }
    let mut rng = Pcg64::seed_from_u64(p.seed);
    let radii: Vec<f64> = (0..p.n)
        .map(|_| 0.5 * (1.0 + p.polydispersity * rng.gen_range(-1.0..=1.0)))
        .collect();
    let ball_volume: f64 = radii
        .iter()
        .map(|r| {
            if p.dim == 3 {
                4.0 / 3.0 * PI * r * r * r
            } else {
                PI * r * r
            }
        })
        .sum();
    let box_volume = ball_volume / p.packing;
    let d_max = 1.0 + p.polydispersity;

    let lattice = |n: usize, box_volume: f64| Lattice::new(p.dim, n, box_volume);
    let plan = lattice(p.n, box_volume);
    let sites_count = plan.sites;
    // Periodic images: every box length must exceed twice the largest contact distance, and
    // the lattice's nearest sites must lie a largest diameter apart. When either fails, the
    // message says which packing, or how many balls at this packing, would pass both.
    let contact = 2.0 * radii.iter().copied().fold(0.0, f64::max);
    let dim_f = p.dim as f64;
    let fits = |l: &Lattice| l.shortest() > 2.0 * contact && l.nearest >= d_max * (1.0 + 1e-9);
    if !fits(&plan) {
        // Both limits scale as box_volume^(1/d), i.e. as packing^(-1/d).
        let ratio = (plan.shortest() / (2.0 * contact)).min(plan.nearest / (d_max * (1.0 + 1e-9)));
        let below = p.packing * ratio.powf(dim_f);
        let per_ball = box_volume / p.n as f64;
        let more = (p.n + 1..=p.n.saturating_mul(64).min(p.n + 1_000_000))
            .find(|&k| fits(&lattice(k, per_ball * k as f64)));
        let advice = Advice {
            packing_below: below,
            balls: more,
        };
        return Err(if plan.shortest() > 2.0 * contact {
            GenerateError::LatticeTooDense {
                packing: p.packing,
                lattice: plan.name,
                sites: sites_count,
                n: p.n,
                polydispersity: p.polydispersity,
                nearest: plan.nearest,
                largest_diameter: d_max,
                advice,
            }
        } else {
            GenerateError::BoxTooSmall {
                n: p.n,
                packing: p.packing,
                length: plan.shortest(),
                needed: 2.0 * contact,
                advice,
            }
        });
    }
    Ok((rng, radii, plan))
}

/// The lattice [`gas_bodies`] starts from: `cells` unit cells of side `a` (four sites each, face-
/// centred cubic, in 3D; one site, a triangular lattice of rows `a sqrt(3) / 2` apart, in 2D),
/// in a box of `lengths`, nearest sites `nearest` apart.
struct Lattice {
    name: &'static str,
    dim: usize,
    cells: [usize; 3],
    sites: usize,
    a: f64,
    lengths: [f64; 3],
    nearest: f64,
}

impl Lattice {
    /// The lattice for `n` balls in a box of `box_volume`.
    fn new(dim: usize, n: usize, box_volume: f64) -> Self {
        let h = 3f64.sqrt() / 2.0;
        if dim == 3 {
            let m = ((n as f64 / 4.0).cbrt().ceil() as usize).max(1);
            let a = (box_volume / (m * m * m) as f64).cbrt();
            Self {
                name: "face-centred cubic",
                dim,
                cells: [m; 3],
                sites: 4 * m * m * m,
                a,
                lengths: [m as f64 * a; 3],
                nearest: a / 2f64.sqrt(),
            }
        } else {
            // An even number of rows.
            let mx = (((n as f64) / h).sqrt().ceil() as usize).max(1);
            let my = ((n.div_ceil(mx)).div_ceil(2) * 2).max(2);
            let a = (box_volume / (mx as f64 * my as f64 * h)).sqrt();
            Self {
                name: "triangular",
                dim,
                cells: [mx, my, 1],
                sites: mx * my,
                a,
                lengths: [mx as f64 * a, my as f64 * h * a, 0.0],
                nearest: a,
            }
        }
    }

    /// The shortest box length.
    fn shortest(&self) -> f64 {
        self.lengths[..self.dim]
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
    }
}

/// [`gas_bodies`] as a scene file's content.
pub fn gas(p: &GasParams) -> Result<Scene, GenerateError> {
    check_restitution(p.restitution)?;
    fn build<V: crate::math::Vector>(p: &GasParams) -> Result<Scene, GenerateError> {
        let (l, bodies) = gas_bodies::<V>(p)?;
        let bodies = bodies
            .iter()
            .map(|b| BodySpec {
                position: b.pos.to_array3(),
                velocity: b.vel.to_array3(),
                radius: b.radius,
                mass: b.mass(),
            })
            .collect();
        Ok(with_restitution(
            Scene {
                dim: p.dim,
                duration: p.duration,
                restitution: 1.0,
                contact_duration: None,
                gravity: [0.0; 3],
                rest_speed: None,
                friction: 0.0,
                walls: Vec::new(),
                bodies,
                periodic: Some(l.to_vec()),
                shapes: Vec::new(),
                meshes: Default::default(),
            },
            p.restitution,
        ))
    }
    let scene = match p.dim {
        2 => build::<crate::math::DVec2>(p)?,
        3 => build::<crate::math::DVec3>(p)?,
        d => return Err(GenerateError::Dimension(d)),
    };
    scene.validate().map_err(GenerateError::Invalid)?;
    Ok(scene)
}

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
    /// Coefficient of restitution in `[0, 1]`, as in [`BilliardParams`].
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

/// A TOML number.
fn float(x: f64) -> toml::Value {
    toml::Value::Float(x)
}

/// A TOML array of numbers.
fn floats(xs: &[f64]) -> toml::Value {
    toml::Value::Array(xs.iter().map(|&x| float(x)).collect())
}

/// The scene of rigid bodies given by their tables, with `walls`, validated.
fn rigid_scene(
    dim: usize,
    walls: Vec<WallSpec>,
    tables: Vec<toml::Table>,
    duration: f64,
    restitution: f64,
) -> Result<Scene, GenerateError> {
    let bodies = tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            crate::scene::rigid_body_spec(dim, t).map_err(|message| {
                GenerateError::Invalid(SceneError::Invalid {
                    item: crate::scene::Item::Body(i),
                    message,
                })
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let scene = with_restitution(
        Scene {
            dim,
            duration,
            restitution: 1.0,
            contact_duration: None,
            gravity: [0.0; 3],
            rest_speed: None,
            friction: 0.0,
            walls,
            bodies,
            periodic: None,
            shapes: tables.into_iter().map(|t| Some(t.into())).collect(),
            meshes: Default::default(),
        },
        restitution,
    );
    scene.validate().map_err(GenerateError::Invalid)?;
    Ok(scene)
}

/// Checks the parameters of a rigid gas of dimension `dim`.
fn check_rigid_gas(p: &RigidGasParams, max_packing: f64) -> Result<(), GenerateError> {
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
                "(0, 0.6] in 2D (bounding discs on a square lattice)"
            } else {
                "(0, 0.4] in 3D (bounding balls on a cubic lattice)"
            },
            got: p.packing,
        });
    }
    for (name, got) in [("speed", p.speed), ("spin", p.spin)] {
        if !(got >= 0.0 && got.is_finite()) {
            return Err(GenerateError::OutOfRange {
                name,
                range: "[0, inf)",
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
                "[0, 1]"
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
    use std::f64::consts::{PI, TAU};
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
            // A uniformly random rotation (Shoemake's method), as [w, x, y, z].
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
            // A random axis (uniform on the sphere) and speed.
            let z: f64 = rng.gen_range(-1.0..=1.0);
            let phi = rng.gen_range(0.0..TAU);
            let s = (1.0 - z * z).sqrt();
            let speed = rng.gen_range(0.0..=1.0) * p.spin;
            t.insert(
                "angular_velocity".into(),
                floats(&[speed * s * phi.cos(), speed * s * phi.sin(), speed * z]),
            );
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

/// Parameters of [`bullet`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BulletParams {
    /// Speed of the bullets.
    pub speed: f64,
    /// Simulated time.
    pub duration: f64,
    /// Coefficient of restitution in `[0, 1]`, as in [`BilliardParams`].
    pub restitution: f64,
}

impl Default for BulletParams {
    fn default() -> Self {
        Self {
            speed: 100.0,
            duration: 2.0,
            restitution: 1.0,
        }
    }
}

/// Bullets, in a 2D room `[0, 40] x [0, 20]` of four walls: in the lower half a small box
/// (half extents 0.2) spinning at 40 rad/s fired at `speed` along x at a thin plank (0.1 x 4
/// half extents) turning at 1 rad/s 27 units away; in the upper half two boxes (half extents
/// 0.3 and 0.25) spinning at 25 and -35 rad/s fired at each other at `speed`. At the default
/// speed a bullet crosses its own size in a few thousandths of a time unit: a prediction that
/// stepped by time instead of by distance would let it pass through the plank.
pub fn bullet(p: &BulletParams) -> Result<Scene, GenerateError> {
    if !(p.speed > 0.0 && p.speed.is_finite() && p.speed <= 1e6) {
        return Err(GenerateError::OutOfRange {
            name: "speed",
            range: "(0, 1e6]",
            got: p.speed,
        });
    }
    check_duration(p.duration)?;
    // The fastest spin below (the small box's).
    check_turn(40.0, p.duration)?;
    check_restitution(p.restitution)?;
    let body = |half: [f64; 2], at: [f64; 2], angle: f64, v: f64, w: f64| {
        let mut t = toml::Table::new();
        t.insert("shape".into(), "box".into());
        t.insert("half_extents".into(), floats(&half));
        t.insert("position".into(), floats(&at));
        t.insert("orientation".into(), float(angle));
        t.insert("velocity".into(), floats(&[v, 0.0]));
        t.insert("angular_velocity".into(), float(w));
        t
    };
    let tables = vec![
        body([0.1, 4.0], [30.0, 5.0], 0.2, 0.0, 1.0),
        body([0.2, 0.2], [3.0, 5.0], 0.0, p.speed, 40.0),
        body([0.3, 0.3], [5.0, 15.0], 0.3, p.speed, 25.0),
        body([0.25, 0.25], [35.0, 15.0], 0.0, -p.speed, -35.0),
    ];
    let walls = vec![WallSpec::Box {
        min: vec![0.0, 0.0],
        max: vec![40.0, 20.0],
    }];
    rigid_scene(2, walls, tables, p.duration, p.restitution)
}

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
    /// Coefficient of restitution in `[0, 1]`, as in [`BilliardParams`].
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
/// [`crate::world::World::with_gravity`]).
pub fn drop(p: &DropParams) -> Result<Scene, GenerateError> {
    use std::f64::consts::TAU;
    if p.dim != 2 && p.dim != 3 {
        return Err(GenerateError::OutOfRange {
            name: "dim",
            range: "2 or 3",
            got: p.dim as f64,
        });
    }
    let n = p.balls + p.boxes;
    if n == 0 || n > RigidGasParams::MAX_BODIES {
        return Err(GenerateError::Bodies {
            n,
            max: RigidGasParams::MAX_BODIES,
        });
    }
    check_at_most("gravity", p.gravity)?;
    if !(p.gravity > 0.0 && p.gravity.is_finite()) {
        return Err(GenerateError::NotPositive { names: "gravity" });
    }
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
