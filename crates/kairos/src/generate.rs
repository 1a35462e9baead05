//! Scene generators.
//!
//! [`billiard`] builds the thesis's benchmark scene (section 5.2): a rectangular table of four
//! walls, constant density for every body count, uniformly random radii and velocities, where the
//! fastest possible velocity crosses the table's diagonal in one second, and 5 s simulated.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::scene::{BodySpec, Scene, WallSpec};

/// Parameters of [`billiard`]. The defaults are calibrated so that mean collision counts match
/// the thesis's Table 5.1 (see `docs/benchmarks.md`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BilliardParams {
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
}

impl Default for BilliardParams {
    fn default() -> Self {
        Self {
            n: 256,
            seed: 0,
            packing: 0.13,
            radius_min: 0.5,
            radius_max: 1.0,
            aspect: 1.0,
            duration: 5.0,
        }
    }
}

/// Why a scene could not be generated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct GenerateError(pub String);

/// The thesis's billiard scene; deterministic for given parameters.
///
/// Radii are uniform in `[radius_min, radius_max]`; the table's area is the balls' total area
/// over `packing`; ball centres are uniform over the table with rejection of overlaps (a
/// uniform grid keeps that linear); each velocity component is uniform in `[-W, W]` and
/// `[-H, H]` per second for a `W x H` table, so the fastest possible ball crosses the diagonal
/// in one second.
pub fn billiard(p: &BilliardParams) -> Result<Scene, GenerateError> {
    if p.n == 0 {
        return Err(GenerateError(
            "the number of balls must be at least 1".into(),
        ));
    }
    if p.n > 50_000_000 {
        return Err(GenerateError(format!(
            "{} balls is more than this generator handles (50,000,000)",
            p.n
        )));
    }
    if !(p.packing > 0.0 && p.packing <= 0.5) {
        return Err(GenerateError(format!(
            "packing must be in (0, 0.5] for random placement, got {}",
            p.packing
        )));
    }
    if !(p.radius_min > 0.0 && p.radius_min <= p.radius_max && p.radius_max.is_finite()) {
        return Err(GenerateError(format!(
            "radii must satisfy 0 < min <= max, got [{}, {}]",
            p.radius_min, p.radius_max
        )));
    }
    if !(p.aspect > 0.0 && p.aspect.is_finite() && p.duration > 0.0 && p.duration.is_finite()) {
        return Err(GenerateError(
            "aspect and duration must be positive and finite".into(),
        ));
    }
    let mut rng = Pcg64::seed_from_u64(p.seed);
    let radii: Vec<f64> = (0..p.n)
        .map(|_| rng.gen_range(p.radius_min..=p.radius_max))
        .collect();
    let area: f64 = radii
        .iter()
        .map(|r| std::f64::consts::PI * r * r)
        .sum::<f64>()
        / p.packing;
    let w = (area * p.aspect).sqrt().max(2.0 * p.radius_max * 1.01);
    let h = (area / w).max(2.0 * p.radius_max * 1.01);

    // Rejection sampling on a uniform grid with cells of one diameter.
    let cell = 2.0 * p.radius_max;
    let (gx, gy) = (
        (w / cell).ceil().max(1.0) as usize,
        (h / cell).ceil().max(1.0) as usize,
    );
    let mut grid: Vec<Vec<u32>> = vec![Vec::new(); gx * gy];
    let cell_of = |x: f64, y: f64| -> (usize, usize) {
        (
            ((x / cell) as usize).min(gx - 1),
            ((y / cell) as usize).min(gy - 1),
        )
    };
    let mut pos: Vec<[f64; 2]> = Vec::with_capacity(p.n);
    const MAX_TRIES: usize = 10_000;
    for (i, &r) in radii.iter().enumerate() {
        let margin = r * (1.0 + 1e-9);
        let mut placed = false;
        for _ in 0..MAX_TRIES {
            let x = rng.gen_range(margin..=w - margin);
            let y = rng.gen_range(margin..=h - margin);
            let (cx, cy) = cell_of(x, y);
            let mut free = true;
            'scan: for ny in cy.saturating_sub(1)..=(cy + 1).min(gy - 1) {
                for nx in cx.saturating_sub(1)..=(cx + 1).min(gx - 1) {
                    for &j in &grid[ny * gx + nx] {
                        let [xj, yj] = pos[j as usize];
                        let s = (r + radii[j as usize]) * (1.0 + 1e-9);
                        if (x - xj).powi(2) + (y - yj).powi(2) < s * s {
                            free = false;
                            break 'scan;
                        }
                    }
                }
            }
            if free {
                grid[cy * gx + cx].push(i as u32);
                pos.push([x, y]);
                placed = true;
                break;
            }
        }
        if !placed {
            return Err(GenerateError(format!(
                "could not place ball {i} without overlap after {MAX_TRIES} tries; lower the packing"
            )));
        }
    }
    let bodies = pos
        .iter()
        .zip(&radii)
        .map(|(&[x, y], &r)| BodySpec {
            position: vec![x, y],
            velocity: vec![rng.gen_range(-w..=w), rng.gen_range(-h..=h)],
            radius: r,
            mass: 1.0,
        })
        .collect();
    let corners = [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]];
    let walls = (0..4)
        .map(|k| WallSpec {
            a: corners[k].to_vec(),
            b: corners[(k + 1) % 4].to_vec(),
        })
        .collect();
    let scene = Scene {
        dim: 2,
        duration: p.duration,
        restitution: 1.0,
        walls,
        bodies,
    };
    scene
        .validate()
        .map_err(|e| GenerateError(format!("generated scene is invalid: {e}")))?;
    Ok(scene)
}
