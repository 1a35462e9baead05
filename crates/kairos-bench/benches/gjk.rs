//! GJK distance and intersection beside parry's, on the same random pairs.
//!
//! Each benchmark runs one query on each of 256 prepared pairs (random sizes and poses within 3
//! of the origin, about four in five separated), through the shape enums both libraries offer
//! (`kairos::shape::Shape`, parry's `dyn Shape`), so neither is monomorphised for the pair.
//! Results: docs/benchmarks.md. With `GJK_COUNT` set (see [`count_request`]) it runs one
//! query set a given number of times instead, for instruction counts.

mod shared;

use std::hint::black_box;

use criterion::{criterion_group, Criterion};
use kairos::math::{DVec2, DVec3};
use kairos::query::{distance, intersects, GjkOptions};
use kairos::shape::Pose;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use shared::*;

/// The pairs' poses: within 3 of the origin.
fn pose2_3(rng: &mut Pcg64) -> Pose<DVec2> {
    pose2(rng, 3.0)
}

fn pose3_3(rng: &mut Pcg64) -> Pose<DVec3> {
    pose3(rng, 3.0)
}

/// Kairos and parry on the same pairs of one dimension: `distance` and `intersects` beside
/// `query::distance` and `query::intersection_test`.
macro_rules! pair_benches {
    ($c:expr, $dim:literal, $shape:ident, $pose:ident, $parry:ident, $parry_pose:ident, $pq:ident, $ka:expr, $kb:expr) => {{
        let mut rng = Pcg64::seed_from_u64(7);
        let ours: Vec<_> = (0..PAIRS)
            .map(|_| {
                let a = $shape($ka, &mut rng);
                let b = $shape($kb, &mut rng);
                (a, $pose(&mut rng), b, $pose(&mut rng))
            })
            .collect();
        let theirs: Vec<_> = ours
            .iter()
            .map(|(a, pa, b, pb)| ($parry(a), $parry_pose(pa), $parry(b), $parry_pose(pb)))
            .collect();
        let opts = GjkOptions::default();
        let name = format!("{}D {}-{}", $dim, $ka, $kb);
        let kairos_distance = || {
            let mut s = 0.0;
            for (a, pa, b, pb) in &ours {
                s += distance(a, pa, b, pb, &opts, None).distance;
            }
            s
        };
        let parry_distance = || {
            let mut s = 0.0;
            for (a, pa, b, pb) in &theirs {
                s += $pq::query::distance(pa, &**a, pb, &**b).unwrap().distance;
            }
            s
        };
        let kairos_intersects = || {
            let mut n = 0u32;
            for (a, pa, b, pb) in &ours {
                n += intersects(a, pa, b, pb, &opts, None) as u32;
            }
            n as f64
        };
        let parry_intersects = || {
            let mut n = 0u32;
            for (a, pa, b, pb) in &theirs {
                n += $pq::query::intersection_test(pa, &**a, pb, &**b)
                    .unwrap()
                    .intersecting as u32;
            }
            n as f64
        };
        let queries: [(&str, &dyn Fn() -> f64); 4] = [
            ("kairos distance", &kairos_distance),
            ("parry distance", &parry_distance),
            ("kairos intersects", &kairos_intersects),
            ("parry intersects", &parry_intersects),
        ];
        if let Some((wanted, passes)) = count_request() {
            for (label, f) in queries {
                if wanted == format!("{name}/{label}") {
                    for _ in 0..passes {
                        black_box(f());
                    }
                }
            }
        } else {
            let mut g = $c.benchmark_group(name);
            for (label, f) in queries {
                g.bench_function(label, |bench| bench.iter(|| black_box(f())));
            }
            g.finish();
        }
    }};
}

fn bench(c: &mut Criterion) {
    for (ka, kb) in [
        ("ball", "cuboid"),
        ("cuboid", "cuboid"),
        ("polygon", "polygon"),
    ] {
        pair_benches!(
            c,
            2,
            shape2,
            pose2_3,
            parry2,
            parry_pose2,
            parry2d_f64,
            ka,
            kb
        );
    }
    for (ka, kb) in [
        ("ball", "cuboid"),
        ("cuboid", "cuboid"),
        ("cuboid", "triangle"),
        ("capsule", "cuboid"),
        ("ball", "capsule"),
        ("capsule", "capsule"),
        ("polyhedron", "polyhedron"),
    ] {
        pair_benches!(
            c,
            3,
            shape3,
            pose3_3,
            parry3,
            parry_pose3,
            parry3d_f64,
            ka,
            kb
        );
    }
}

/// `GJK_COUNT="3D cuboid-cuboid/kairos distance:1000"` runs that query's 256 pairs 1000
/// times instead of benchmarking, for instruction counts under
/// `valgrind --tool=callgrind` (subtract a run with 0 passes for the setup).
fn count_request() -> Option<(String, u32)> {
    let spec = std::env::var("GJK_COUNT").ok()?;
    let (name, passes) = spec.rsplit_once(':')?;
    Some((name.to_string(), passes.parse().ok()?))
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}

fn main() {
    if count_request().is_some() {
        bench(&mut Criterion::default());
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
