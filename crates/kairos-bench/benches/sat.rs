//! The separating axis test on coherent sequences, with and without its cached axis, beside
//! GJK's intersection test and parry's `intersection_test` on the same poses, and the contact
//! manifold.
//!
//! Each sequence is 64 pairs of random sizes; in each, `b` passes by `a` in 200 small steps
//! (a straight line, turning slowly), so about one pose in five overlaps. One benchmark
//! iteration runs every step of every sequence (12 800 queries), the cache starting empty for
//! each sequence. Results per query: docs/benchmarks.md.

mod shared;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use kairos::math::{DQuat, DVec2, DVec3, Rot2};
use kairos::query::sat::{as_polytope, sat, SatCache};
use kairos::query::{contact_manifold, intersects, GjkOptions};
use kairos::shape::{Pose, Shape};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use shared::{parry2, parry3, parry_pose2, parry_pose3};

const SEQUENCES: usize = 64;
const STEPS: usize = 200;

fn size(rng: &mut Pcg64) -> f64 {
    rng.gen_range(0.3..1.5)
}

fn shape2(kind: &str, rng: &mut Pcg64) -> Shape<DVec2> {
    match kind {
        "cuboid" => Shape::cuboid(DVec2::new(size(rng), size(rng))),
        "polygon" => Shape::convex_hull(
            &(0..8)
                .map(|_| DVec2::new(rng.gen_range(-1.5..1.5), rng.gen_range(-1.5..1.5)))
                .collect::<Vec<_>>(),
        ),
        _ => unreachable!(),
    }
    .unwrap()
}

fn shape3(kind: &str, rng: &mut Pcg64) -> Shape<DVec3> {
    match kind {
        "cuboid" => Shape::cuboid(DVec3::new(size(rng), size(rng), size(rng))),
        _ => unreachable!(),
    }
    .unwrap()
}

/// `b`'s poses along one pass by `a` (at the origin): from x = −6 to +6, slowly turning.
fn pass2(rng: &mut Pcg64) -> Vec<Pose<DVec2>> {
    let y = rng.gen_range(-1.0..1.0);
    let (a0, w) = (rng.gen_range(-3.0..3.0), rng.gen_range(-1.0..1.0));
    (0..STEPS)
        .map(|k| {
            let t = k as f64 / STEPS as f64;
            Pose::new(DVec2::new(-6.0 + 12.0 * t, y), Rot2::from_angle(a0 + w * t))
        })
        .collect()
}

fn pass3(rng: &mut Pcg64) -> Vec<Pose<DVec3>> {
    let (y, z) = (rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
    let q0 = DQuat::from_xyzw(
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
    )
    .normalize();
    let w = DVec3::new(
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
    );
    (0..STEPS)
        .map(|k| {
            let t = k as f64 / STEPS as f64;
            Pose::new(
                DVec3::new(-6.0 + 12.0 * t, y, z),
                DQuat::from_scaled_axis(w * t) * q0,
            )
        })
        .collect()
}

/// SAT cold and cached, GJK's `intersects`, parry's `intersection_test` and the contact
/// manifold, on the same sequences of one dimension.
macro_rules! sequence_benches {
    ($c:expr, $dim:literal, $shape:ident, $pass:ident, $parry:ident, $parry_pose:ident, $pq:ident, $ka:expr, $kb:expr) => {{
        let mut rng = Pcg64::seed_from_u64(11);
        let seqs: Vec<_> = (0..SEQUENCES)
            .map(|_| {
                (
                    $shape($ka, &mut rng),
                    $shape($kb, &mut rng),
                    $pass(&mut rng),
                )
            })
            .collect();
        let theirs: Vec<_> = seqs
            .iter()
            .map(|(a, b, poses)| {
                (
                    $parry(a),
                    $parry(b),
                    poses.iter().map($parry_pose).collect::<Vec<_>>(),
                )
            })
            .collect();
        let id = Pose::IDENTITY;
        let pid = $parry_pose(&id);
        let opts = GjkOptions::default();
        let mut g = $c.benchmark_group(format!("{}D {}-{} sequence", $dim, $ka, $kb));
        g.bench_function("sat", |bench| {
            bench.iter(|| {
                let mut n = 0u32;
                for (a, b, poses) in &seqs {
                    let (qa, qb) = (as_polytope(a).unwrap(), as_polytope(b).unwrap());
                    for pb in poses {
                        n += sat(qa, &id, qb, pb, None).axes_tested;
                    }
                }
                black_box(n)
            })
        });
        g.bench_function("sat cached", |bench| {
            bench.iter(|| {
                let mut n = 0u32;
                for (a, b, poses) in &seqs {
                    let (qa, qb) = (as_polytope(a).unwrap(), as_polytope(b).unwrap());
                    let mut cache = SatCache::default();
                    for pb in poses {
                        n += sat(qa, &id, qb, pb, Some(&mut cache)).axes_tested;
                    }
                }
                black_box(n)
            })
        });
        g.bench_function("gjk intersects", |bench| {
            bench.iter(|| {
                let mut n = 0u32;
                for (a, b, poses) in &seqs {
                    for pb in poses {
                        n += intersects(a, &id, b, pb, &opts, None) as u32;
                    }
                }
                black_box(n)
            })
        });
        g.bench_function("parry intersection_test", |bench| {
            bench.iter(|| {
                let mut n = 0u32;
                for (a, b, poses) in &theirs {
                    for pb in poses {
                        n += $pq::query::intersection_test(&pid, &**a, pb, &**b)
                            .unwrap()
                            .intersecting as u32;
                    }
                }
                black_box(n)
            })
        });
        g.bench_function("manifold cached", |bench| {
            bench.iter(|| {
                let mut n = 0usize;
                for (a, b, poses) in &seqs {
                    let mut cache = SatCache::default();
                    for pb in poses {
                        n += contact_manifold(a, &id, b, pb, 0.05, Some(&mut cache))
                            .points()
                            .len();
                    }
                }
                black_box(n)
            })
        });
        g.finish();
    }};
}

fn bench(c: &mut Criterion) {
    for (ka, kb) in [("cuboid", "cuboid"), ("polygon", "polygon")] {
        sequence_benches!(
            c,
            2,
            shape2,
            pass2,
            parry2,
            parry_pose2,
            parry2d_f64,
            ka,
            kb
        );
    }
    sequence_benches!(
        c,
        3,
        shape3,
        pass3,
        parry3,
        parry_pose3,
        parry3d_f64,
        "cuboid",
        "cuboid"
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
