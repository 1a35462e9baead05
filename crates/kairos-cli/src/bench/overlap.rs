//! `kairos bench overlap`: time per step of every discrete broad phase (`kairos::overlap`).
//!
//! Two scenes, both balls in free flight with a small fixed step, bouncing off the bounds
//! (no collision response: only the boxes matter), the boxes being the balls' AABBs:
//!
//! * `billiard`: the thesis's table (`kairos::generate::billiard`, 2D or 3D), packing 0.13;
//! * `aligned`: the same balls squashed along y into a band of half-width `1e-3` around 0
//!   (every body has almost the same y), the other axes stretched so the balls still cover
//!   13% of the line (2D) or plane (3D); y velocities cross the band in a step or two. The
//!   y endpoints form one dense cluster that motion keeps reshuffling: the case the sweep and
//!   prune slides warn about.
//!
//! The step `dt` moves the fastest ball `--motion` times the smallest radius (a quarter by
//! default). Every finder sees the same sequence of boxes (the motion is replayed from the
//! same start for each) and must report the same pairs at every step (checked by hash). The
//! first call, which builds the persistent finders' state, is timed apart.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::{Args, ValueEnum};
use kairos::generate::{billiard, BilliardParams};
use kairos::math::{Aabb, DVec2, DVec3, Vector};
use kairos::overlap::{OverlapFinder, OverlapKind};
use kairos::scene::WallSpec;

use serde::{Deserialize, Serialize};

use super::rows::{self, by_name};
use super::table::Table;

/// Most timed steps per measurement.
const MAX_STEPS: usize = 100_000;

/// Arguments of `kairos bench overlap`.
#[derive(Args)]
pub struct OverlapArgs {
    /// Numbers of balls.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000")]
    pub sizes: Vec<usize>,
    /// Timed steps per measurement (after one untimed-in-the-mean first call), 1 to 100,000.
    #[arg(long, default_value_t = 10)]
    pub steps: usize,
    /// Dimensions.
    #[arg(long, value_delimiter = ',', default_value = "2,3")]
    pub dims: Vec<usize>,
    /// Discrete broad phases to time.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "brute-force,bvh,sap,sort-sweep,dbvt,grid",
        value_enum
    )]
    pub finders: Vec<OverlapKind>,
    /// Scenes.
    #[arg(long, value_delimiter = ',', default_value = "billiard,aligned")]
    pub scenes: Vec<BenchScene>,
    /// Largest N at which brute force is timed.
    #[arg(long, default_value_t = 10_000)]
    pub brute_max: usize,
    /// Distance the fastest ball moves per step, in smallest radii.
    #[arg(long, default_value_t = 0.25)]
    pub motion: f64,
    /// Seed of the billiard generator.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Also write the measurements as CSV.
    #[arg(long)]
    pub csv: Option<std::path::PathBuf>,
}

/// The scenes of `kairos bench overlap`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BenchScene {
    /// The thesis's billiard table (or cube room), packing 0.13.
    Billiard,
    /// The billiard's balls with (almost) the same y.
    Aligned,
}

impl BenchScene {
    fn name(self) -> &'static str {
        match self {
            BenchScene::Billiard => "billiard",
            BenchScene::Aligned => "aligned",
        }
    }
}

/// Half-width of the aligned scene's band in y.
const BAND: f64 = 1e-3;

/// Balls in free flight inside per-axis bounds, reflected at them.
#[derive(Clone)]
struct Flight {
    dim: usize,
    /// Centres and velocities, `dim` values per ball.
    pos: Vec<f64>,
    vel: Vec<f64>,
    radius: Vec<f64>,
    /// Per axis: the interval the balls' surfaces (or, with `inset == false`, centres) stay in.
    lo: [f64; 3],
    hi: [f64; 3],
    inset: [bool; 3],
    dt: f64,
}

impl Flight {
    fn new(scene: BenchScene, dim: usize, n: usize, seed: u64, motion: f64) -> Result<Self> {
        let s = billiard(&BilliardParams {
            dim,
            n,
            seed,
            ..Default::default()
        })
        .map_err(anyhow::Error::msg)?;
        let mut hi = [0.0f64; 3];
        for w in &s.walls {
            match w {
                WallSpec::Segment { a, b } => {
                    for k in 0..dim {
                        hi[k] = hi[k].max(a[k]).max(b[k]);
                    }
                }
                WallSpec::Box { max, .. } => hi[..dim].copy_from_slice(&max[..dim]),
                _ => anyhow::bail!("unexpected wall in the billiard scene"),
            }
        }
        let mut f = Flight {
            dim,
            pos: s
                .bodies
                .iter()
                .flat_map(|b| b.position[..dim].to_vec())
                .collect(),
            vel: s
                .bodies
                .iter()
                .flat_map(|b| b.velocity[..dim].to_vec())
                .collect(),
            radius: s.bodies.iter().map(|b| b.radius).collect(),
            lo: [0.0; 3],
            hi,
            inset: [true; 3],
            dt: 0.0,
        };
        let spread: Vec<usize> = match scene {
            BenchScene::Billiard => (0..dim).collect(),
            BenchScene::Aligned => (0..dim).filter(|&k| k != 1).collect(),
        };
        let (y_len, y_speed) = (hi[1], hi[1]);
        if scene == BenchScene::Aligned {
            // Stretch the other axes so the balls cover 13% of the line or plane.
            let covered: f64 = if dim == 2 {
                f.radius.iter().map(|r| 2.0 * r).sum()
            } else {
                f.radius.iter().map(|r| std::f64::consts::PI * r * r).sum()
            };
            let side = (covered / BilliardParams::default().packing).powf(1.0 / (dim - 1) as f64);
            for &k in &spread {
                let scale = side / hi[k];
                for i in 0..n {
                    f.pos[i * dim + k] *= scale;
                    f.vel[i * dim + k] *= scale;
                }
                f.hi[k] = side;
            }
            f.lo[1] = -BAND;
            f.hi[1] = BAND;
            f.inset[1] = false;
        }
        // The fastest ball moves `motion` smallest radii per step (along the spread axes).
        let mut vmax = 0.0f64;
        for i in 0..n {
            let v2: f64 = spread.iter().map(|&k| f.vel[i * dim + k].powi(2)).sum();
            vmax = vmax.max(v2.sqrt());
        }
        let rmin = f.radius.iter().cloned().fold(f64::INFINITY, f64::min);
        f.dt = motion * rmin / vmax;
        if scene == BenchScene::Aligned {
            // y: into the band, and up to the band's whole width per step.
            for i in 0..n {
                f.pos[i * dim + 1] = (f.pos[i * dim + 1] / y_len * 2.0 - 1.0) * BAND;
                f.vel[i * dim + 1] = f.vel[i * dim + 1] / y_speed * 2.0 * BAND / f.dt;
            }
        }
        Ok(f)
    }

    fn step(&mut self) {
        let d = self.dim;
        for i in 0..self.radius.len() {
            let r = self.radius[i];
            for k in 0..d {
                let (lo, hi) = if self.inset[k] {
                    (self.lo[k] + r, self.hi[k] - r)
                } else {
                    (self.lo[k], self.hi[k])
                };
                let x = &mut self.pos[i * d + k];
                let v = &mut self.vel[i * d + k];
                *x += *v * self.dt;
                if *x < lo {
                    *x = (2.0 * lo - *x).min(hi);
                    *v = v.abs();
                } else if *x > hi {
                    *x = (2.0 * hi - *x).max(lo);
                    *v = -v.abs();
                }
            }
        }
    }

    fn boxes<V: Vector>(&self, out: &mut Vec<Aabb<V>>) {
        out.clear();
        let d = self.dim;
        out.extend(self.radius.iter().enumerate().map(|(i, &r)| {
            let c = V::try_from_slice(&self.pos[i * d..i * d + d]).expect("dimension");
            Aabb::new(c - V::splat(r), c + V::splat(r))
        }));
    }
}

/// One line of the CSV written by `--csv`: one finder on one scene.
#[derive(Serialize, Deserialize)]
struct OverlapRow {
    dim: usize,
    scene: String,
    n: usize,
    #[serde(with = "by_name")]
    finder: OverlapKind,
    steps: usize,
    pairs_mean: f64,
    first_call_ms: f64,
    step_ms: f64,
}

/// One finder on one scene.
struct Measured {
    first_ms: f64,
    step_ms: f64,
    pairs_mean: f64,
    hashes: Vec<u64>,
}

fn hash_pairs(pairs: &[[u32; 2]]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for p in pairs {
        for x in p {
            h = (h ^ u64::from(*x)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h ^ pairs.len() as u64
}

fn measure<V: Vector>(start: &Flight, kind: OverlapKind, steps: usize) -> Measured {
    let mut flight = start.clone();
    let mut finder: Box<dyn OverlapFinder<V>> = kind.build::<V>();
    let mut boxes = Vec::new();
    let mut out = Vec::new();
    flight.boxes(&mut boxes);
    let t = Instant::now();
    finder.find_pairs(&boxes, &mut out);
    let first_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut hashes = vec![hash_pairs(&out)];
    let mut total = 0.0;
    let mut pairs = 0usize;
    for _ in 0..steps {
        flight.step();
        flight.boxes(&mut boxes);
        let t = Instant::now();
        finder.find_pairs(&boxes, &mut out);
        total += t.elapsed().as_secs_f64();
        pairs += out.len();
        hashes.push(hash_pairs(&out));
    }
    Measured {
        first_ms,
        step_ms: total * 1e3 / steps as f64,
        pairs_mean: pairs as f64 / steps as f64,
        hashes,
    }
}

fn ms(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

pub fn overlap(a: OverlapArgs) -> Result<ExitCode> {
    crate::output::Files::new()
        .output("--csv", a.csv.as_deref())
        .check()?;
    super::check_count("--steps", a.steps, MAX_STEPS)?;
    anyhow::ensure!(!a.finders.is_empty(), "--finders is empty");
    anyhow::ensure!(
        a.motion > 0.0 && a.motion.is_finite(),
        "--motion must be positive"
    );
    for &d in &a.dims {
        anyhow::ensure!(
            d == 2 || d == 3,
            "--dims: dimension must be 2 or 3, got {d}"
        );
    }
    let mut csv = Vec::new();
    let mut table = Table::new()
        .right("d")
        .left("scene")
        .right("N")
        .right("pairs/step");
    for k in &a.finders {
        table = table.right(k.name());
    }
    let mut lines = Vec::new();
    for &dim in &a.dims {
        for &scene in &a.scenes {
            for &n in &a.sizes {
                let start = Flight::new(scene, dim, n, a.seed, a.motion)?;
                let mut cells = Vec::new();
                let mut reference: Option<(OverlapKind, Vec<u64>, f64)> = None;
                for &kind in &a.finders {
                    if kind == OverlapKind::BruteForce && n > a.brute_max {
                        cells.push("skipped".to_string());
                        continue;
                    }
                    let m = if dim == 2 {
                        measure::<DVec2>(&start, kind, a.steps)
                    } else {
                        measure::<DVec3>(&start, kind, a.steps)
                    };
                    if let Some((k0, h0, _)) = &reference {
                        anyhow::ensure!(
                            *h0 == m.hashes,
                            "{kind} and {k0} disagree on the pairs ({dim}D {}, N = {n})",
                            scene.name()
                        );
                    } else {
                        reference = Some((kind, m.hashes.clone(), m.pairs_mean));
                    }
                    eprintln!(
                        "{dim}D {:8} N = {n:6} {kind:11} first {:>9} ms, step {:>9} ms, {:.0} pairs",
                        scene.name(),
                        ms(m.first_ms),
                        ms(m.step_ms),
                        m.pairs_mean
                    );
                    csv.push(OverlapRow {
                        dim,
                        scene: scene.name().into(),
                        n,
                        finder: kind,
                        steps: a.steps,
                        pairs_mean: m.pairs_mean,
                        first_call_ms: m.first_ms,
                        step_ms: m.step_ms,
                    });
                    cells.push(ms(m.step_ms));
                }
                let pairs = reference.map_or("-".to_string(), |r| format!("{:.0}", r.2));
                let mut line = vec![dim.to_string(), scene.name().into(), n.to_string(), pairs];
                line.extend(cells);
                lines.push(table.row(&line));
            }
        }
    }
    outln!(
        "Mean milliseconds per step (one `find_pairs` call); brute force skipped above N = {}.\n",
        a.brute_max
    );
    outln!("{}", table.head());
    for l in &lines {
        outln!("{l}");
    }
    if let Some(p) = &a.csv {
        rows::write(p, &csv)?;
    }
    Ok(ExitCode::SUCCESS)
}
