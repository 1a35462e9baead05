//! [`gas`] and [`gas_bodies`]: periodic hard-sphere and hard-disc gases started from a lattice
//! (face-centred cubic or triangular), with the checks of their parameters ([`check_gas`]).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use super::common::{
    check_at_most, check_duration, check_restitution, nice_above, with_restitution,
};
use super::error::{Advice, GenerateError};
use crate::scene::{BodySpec, Scene};

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
    /// Coefficient of restitution in `[0, 1]` (1 = elastic), as in [`BilliardParams`](super::BilliardParams).
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
            range: "in (0, 1)",
            got: p.packing,
        });
    }
    if !(0.0..1.0).contains(&p.polydispersity) {
        return Err(GenerateError::OutOfRange {
            name: "polydispersity",
            range: "in [0, 1)",
            got: p.polydispersity,
        });
    }
    check_duration(p.duration)?;
    check_at_most("mass", p.mass)?;
    if !(p.mass > 0.0) {
        return Err(GenerateError::NotPositive { names: "mass" });
    }
    // A gas that cannot be held (a limit on the address space) is refused before any of it is
    // made, rather than ending the process part way (an allocation that fails aborts).
    let bytes = peak_bytes(p);
    if !can_allocate(bytes) {
        return Err(GenerateError::OutOfMemory { n: p.n, bytes });
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
    // Every coordinate of the scene within its limit, with room to spare for the lattice's
    // shape: the box's lengths scale as packing^(-1/d).
    let limit = 0.25 * crate::scene::MAX_MAGNITUDE;
    let longest = plan.lengths[..p.dim].iter().copied().fold(0.0, f64::max);
    if !(longest <= limit) {
        // The least packing, from the balls' volume (the box's may have overflowed).
        let least = ball_volume / (0.5 * limit).powi(p.dim as i32);
        return Err(GenerateError::GasBoxTooLarge {
            n: p.n,
            packing: p.packing,
            length: longest,
            least: nice_above(least),
        });
    }
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

/// The most memory [`gas`] holds at once for `p`, in bytes, from above: the radii, lattice
/// sites, their order and the velocities beside the bodies, then the bodies beside the scene's
/// copy of them, then the scene beside the overlap check's cell lists.
fn peak_bytes(p: &GasParams) -> usize {
    use std::mem::size_of;
    let n = p.n;
    let sites = Lattice::new(p.dim, n, 1.0).sites;
    let body = if p.dim == 2 {
        size_of::<crate::body::Body<crate::math::DVec2>>()
    } else {
        size_of::<crate::body::Body<crate::math::DVec3>>()
    };
    let spec = size_of::<BodySpec>();
    let making = n
        .saturating_mul(size_of::<f64>() + size_of::<[f64; 3]>() + body)
        .saturating_add(sites.saturating_mul(size_of::<[f64; 3]>() + size_of::<u32>()));
    let copying = n.saturating_mul(body + spec);
    // At most 2n + 1 cells, their starts twice (a copy fills them), a cell and a place a body.
    let checking = n.saturating_mul(spec + 2 * size_of::<u32>() + 4 * size_of::<u32>());
    making.max(copying).max(checking)
}

/// Whether `bytes` can be allocated now: reserved (address space, not memory touched) and
/// given back at once.
fn can_allocate(bytes: usize) -> bool {
    let mut probe: Vec<u8> = Vec::new();
    let ok = probe.try_reserve_exact(bytes).is_ok();
    // Kept from being optimised away with the allocation it tests.
    std::hint::black_box(&mut probe);
    ok
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
