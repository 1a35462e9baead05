//! `kairos bench d2m`: the seed's experiment (D2M) redone on procedural meshes: pairs of
//! meshes fired at each other, spinning, at a low and a high speed, with the time per query
//! and the distance the reported contact leaves between them, for full D2M and its Capoeira
//! mode.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use kairos::ccd::distance::mesh_distance;
use kairos::ccd::mesh::TriMesh;
use kairos::ccd::rotating::ScrewMotion;
use kairos::ccd::tree::{mesh_contact, MeshBody, MeshQuery};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Arguments of `kairos bench d2m`.
#[derive(Args)]
pub struct D2mArgs {
    /// Trials per pair and speed (the seed's experiment: 256).
    #[arg(long, default_value_t = 32)]
    pub trials: usize,
    /// Speeds of approach (units per unit time; the seed's: 4 and 512).
    #[arg(long, value_delimiter = ',', default_value = "4,512")]
    pub speeds: Vec<f64>,
    /// The separation the back-off leaves (the seed's epsilon_d).
    #[arg(long, default_value_t = MeshQuery::default().separation)]
    pub separation: f64,
    /// Include the pairs of a few hundred thousand triangles each (slow to build).
    #[arg(long)]
    pub large: bool,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Only the first this many pairs (smallest first).
    #[arg(long)]
    pub pairs: Option<usize>,
    /// The root finder's time tolerance, relative to the query's horizon.
    #[arg(long, default_value_t = MeshQuery::default().ccd.time_tolerance)]
    pub tolerance: f64,
}

/// The mesh pairs: name, the two meshes (centred at the origin) and their bounding radii.
fn pairs(large: bool) -> Vec<(String, TriMesh, TriMesh)> {
    let mut v = vec![
        (
            "icosphere 2 / icosphere 2".to_string(),
            TriMesh::icosphere(1.0, 2),
            TriMesh::icosphere(1.0, 2),
        ),
        (
            "torus 32x16 / spiky ball".to_string(),
            TriMesh::torus(1.5, 0.4, 32, 16),
            TriMesh::spiky_ball(0.6, 1.8, 2),
        ),
        (
            "plate / icosphere 3".to_string(),
            TriMesh::plate(1.5, 0.02),
            TriMesh::icosphere(0.8, 3),
        ),
        (
            "torus 64x32 / torus 64x32".to_string(),
            TriMesh::torus(1.5, 0.4, 64, 32),
            TriMesh::torus(1.5, 0.4, 64, 32),
        ),
        (
            "icosphere 5 / spiky ball 4".to_string(),
            TriMesh::icosphere(1.0, 5),
            TriMesh::spiky_ball(0.7, 1.6, 4),
        ),
        (
            "torus 256x128 / icosphere 6".to_string(),
            TriMesh::torus(1.5, 0.4, 256, 128),
            TriMesh::icosphere(1.0, 6),
        ),
    ];
    if large {
        v.push((
            "icosphere 7 / torus 512x320".to_string(),
            TriMesh::icosphere(1.0, 7),
            TriMesh::torus(1.5, 0.4, 512, 320),
        ));
    }
    v
}

fn radius(m: &TriMesh) -> f64 {
    m.vertices()
        .iter()
        .map(|v| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt())
        .fold(0.0, f64::max)
}

/// Minimum, quartiles and maximum of `v` (empty: NaN).
fn five(v: &mut [f64]) -> [f64; 5] {
    if v.is_empty() {
        return [f64::NAN; 5];
    }
    v.sort_by(f64::total_cmp);
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    [q(0.0), q(0.25), q(0.5), q(0.75), q(1.0)]
}

pub fn d2m(a: D2mArgs) -> Result<ExitCode> {
    anyhow::ensure!(a.trials > 0, "--trials must be at least 1");
    anyhow::ensure!(
        a.speeds.iter().all(|s| *s > 0.0 && s.is_finite()),
        "--speeds must be positive and finite"
    );
    anyhow::ensure!(
        a.separation >= 0.0 && a.separation.is_finite(),
        "--separation must be non-negative and finite"
    );
    anyhow::ensure!(
        a.tolerance > 0.0 && a.tolerance < 1.0,
        "--tolerance must be in (0, 1), got {}",
        a.tolerance
    );
    println!(
        "| pair | triangles | speed | mode | contacts | µs per query | distance at contact: min | q1 | median | q3 | max |"
    );
    println!("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut rng = Pcg64::seed_from_u64(a.seed);
    let chosen = pairs(a.large);
    let count = a.pairs.unwrap_or(chosen.len());
    anyhow::ensure!(count >= 1, "--pairs must be at least 1");
    for (name, ma, mb) in chosen.into_iter().take(count) {
        let (ra, rb) = (radius(&ma), radius(&mb));
        let triangles = ma.triangles().len() + mb.triangles().len();
        let (ba, bb0) = (MeshBody::new(ma), MeshBody::new(mb));
        for &speed in &a.speeds {
            // The same trials for both modes.
            let trials: Vec<(ScrewMotion, ScrewMotion, f64)> = (0..a.trials)
                .map(|_| {
                    let u = loop {
                        let u: [f64; 3] = [0; 3].map(|_| rng.gen_range(-1.0..1.0));
                        let l = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
                        if l > 0.1 && l <= 1.0 {
                            break u.map(|x| x / l);
                        }
                    };
                    let d = (ra + rb) * 1.5;
                    let aim = [0; 3].map(|_| rng.gen_range(-0.3..0.3) * ra);
                    let centre = u.map(|x| x * d);
                    let to = [0, 1, 2].map(|i| aim[i] - centre[i]);
                    let l = (to[0] * to[0] + to[1] * to[1] + to[2] * to[2]).sqrt();
                    let spin = |rng: &mut Pcg64| [0; 3].map(|_| rng.gen_range(-2.0..2.0));
                    let ma = ScrewMotion::new([0.0; 3], [0.0; 3], spin(&mut rng));
                    let mb = ScrewMotion::new(centre, to.map(|x| x / l * speed), spin(&mut rng));
                    (ma, mb, 2.0 * d / speed)
                })
                .collect();
            let placed: Vec<MeshBody> = trials
                .iter()
                .map(|(_, mb_motion, _)| bb0.clone().translated(mb_motion.centre))
                .collect();
            for capoeira in [false, true] {
                let query = MeshQuery {
                    separation: a.separation,
                    capoeira,
                    ccd: kairos::ccd::CcdOptions {
                        time_tolerance: a.tolerance,
                        ..Default::default()
                    },
                };
                let mut seconds = 0.0;
                let mut distances = Vec::new();
                for ((ma_m, mb_m, until), b) in trials.iter().zip(&placed) {
                    let start = Instant::now();
                    let c = mesh_contact(&ba, ma_m, b, mb_m, *until, &query, None);
                    seconds += start.elapsed().as_secs_f64();
                    if let Some(c) = c {
                        distances.push(mesh_distance(&ba, ma_m, b, mb_m, c.time));
                    }
                }
                let f = five(&mut distances);
                println!(
                    "| {name} | {triangles} | {speed} | {} | {}/{} | {:.1} | {:.2e} | {:.2e} | {:.2e} | {:.2e} | {:.2e} |",
                    if capoeira { "Capoeira" } else { "D2M" },
                    distances.len(),
                    trials.len(),
                    1e6 * seconds / trials.len() as f64,
                    f[0],
                    f[1],
                    f[2],
                    f[3],
                    f[4]
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
