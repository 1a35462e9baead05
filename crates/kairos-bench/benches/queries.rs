//! Penetration (EPA), linear cast and rotating cast beside parry's, on the same random pairs.
//!
//! Each benchmark runs one query on each of 256 prepared pairs, through both libraries' shape
//! enums (`kairos::shape::Shape`, parry's `dyn Shape`):
//! - **penetration**: overlapping pairs (poses within 0.5 of the origin, kept when they
//!   overlap): `query::penetration` beside parry's `query::contact`;
//! - **linear cast**: poses within 3 of the origin, velocities up to 4 per component, half of
//!   the pairs aimed at each other, over `[0, 1]`: `query::time_of_impact` without rotation
//!   beside parry's `query::cast_shapes`;
//! - **rotating cast**: the same with angular speeds up to 8 rad/s: `query::time_of_impact`
//!   beside parry's `query::cast_shapes_nonlinear` (which misses some of these contacts:
//!   `tests/suite/toi_parry.rs`).
//!
//! And GJK's warm start: 8 sequences of 32 distance queries on a 3D cuboid–triangle pair that
//! moves and turns a little between queries (0.01 s of speeds up to 1), without and with a
//! `GjkCache`.
//!
//! Results: docs/benchmarks.md.

mod shared;

use std::hint::black_box;

use criterion::{criterion_group, Criterion};
use kairos::math::{DVec2, DVec3};
use kairos::query::{
    distance, penetration, time_of_impact, EpaOptions, GjkCache, GjkOptions, ToiOptions,
};
use kairos::shape::RigidMotion;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use shared::*;

/// The three query benchmarks for one pair of kinds in one dimension.
macro_rules! query_benches {
    ($c:expr, $dim:literal, $shape:ident, $pose:ident, $point:ident, $parry:ident,
     $parry_pose:ident, $pq:ident, $pvec:expr, $spin:expr, $pspin:expr, $ka:expr, $kb:expr) => {{
        let mut rng = Pcg64::seed_from_u64(11);
        let name = format!("{}D {}-{}", $dim, $ka, $kb);
        let mut g = $c.benchmark_group(name.clone());

        // Penetration: overlapping pairs only.
        let mut deep = vec![];
        while deep.len() < PAIRS {
            let (a, b) = ($shape($ka, &mut rng), $shape($kb, &mut rng));
            let (pa, pb) = ($pose(&mut rng, 0.5), $pose(&mut rng, 0.5));
            let r = penetration(&a, &pa, &b, &pb, &EpaOptions::default());
            if r.depth > 0.0 {
                deep.push((a, pa, b, pb));
            }
        }
        let deep_parry: Vec<_> = deep
            .iter()
            .map(|(a, pa, b, pb)| ($parry(a), $parry_pose(pa), $parry(b), $parry_pose(pb)))
            .collect();
        let epa = EpaOptions::default();
        if count_request().is_none() {
            g.bench_function("kairos penetration", |bench| {
                bench.iter(|| {
                    let mut s = 0.0;
                    for (a, pa, b, pb) in &deep {
                        s += penetration(a, pa, b, pb, &epa).depth;
                    }
                    black_box(s)
                })
            });
            g.bench_function("parry penetration", |bench| {
                bench.iter(|| {
                    let mut s = 0.0;
                    for (a, pa, b, pb) in &deep_parry {
                        s += $pq::query::contact(pa, &**a, pb, &**b, 0.0)
                            .unwrap()
                            .map_or(0.0, |c| c.dist);
                    }
                    black_box(s)
                })
            });
        }

        // Casts: the same pairs, without and with rotation.
        for rotating in [false, true] {
            let cases: Vec<_> = (0..PAIRS)
                .map(|_| {
                    let (a, b) = ($shape($ka, &mut rng), $shape($kb, &mut rng));
                    let (pa, pb) = ($pose(&mut rng, 3.0), $pose(&mut rng, 3.0));
                    let aim = if rng.gen_bool(0.5) {
                        (pb.position - pa.position) * rng.gen_range(0.5..2.0)
                    } else {
                        Default::default()
                    };
                    let mut motion = |pose, v| {
                        let w = if rotating {
                            $spin(&mut rng)
                        } else {
                            Default::default()
                        };
                        RigidMotion::new(0.0, pose, $point(&mut rng, 4.0) + v, w).unwrap()
                    };
                    let (ma, mb) = (motion(pa, aim * 0.5), motion(pb, aim * -0.5));
                    (a, ma, b, mb)
                })
                .collect();
            let parry_cases: Vec<_> = cases
                .iter()
                .map(|(a, ma, b, mb)| ($parry(a), ma, $parry(b), mb))
                .collect();
            // `TOI_ADVANCEMENT` set: conservative advancement alone, the cast before the ray
            // cast (for instruction counts).
            let toi = ToiOptions {
                linear_ray_cast: std::env::var_os("TOI_ADVANCEMENT").is_none(),
                ..ToiOptions::default()
            };
            let what = if rotating {
                "rotating cast"
            } else {
                "linear cast"
            };
            if let Some((wanted, passes)) = count_request() {
                if wanted == format!("{name}/kairos {what}") {
                    for _ in 0..passes {
                        let mut s = 0.0;
                        for (a, ma, b, mb) in &cases {
                            s += time_of_impact(a, ma, b, mb, 0.0, 1.0, &toi).time;
                        }
                        black_box(s);
                    }
                }
                continue;
            }
            g.bench_function(format!("kairos {what}"), |bench| {
                bench.iter(|| {
                    let mut s = 0.0;
                    for (a, ma, b, mb) in &cases {
                        s += time_of_impact(a, ma, b, mb, 0.0, 1.0, &toi).time;
                    }
                    black_box(s)
                })
            });
            g.bench_function(format!("parry {what}"), |bench| {
                bench.iter(|| {
                    let mut s = 0.0;
                    for (a, ma, b, mb) in &parry_cases {
                        let hit = if rotating {
                            let m = |m: &RigidMotion<_>| $pq::query::NonlinearRigidMotion {
                                start: $parry_pose(&m.pose),
                                local_center: Default::default(),
                                linvel: $pvec(m.linear_velocity),
                                angvel: $pspin(m.angular_velocity),
                            };
                            $pq::query::cast_shapes_nonlinear(
                                &m(ma),
                                &**a,
                                &m(mb),
                                &**b,
                                0.0,
                                1.0,
                                true,
                            )
                        } else {
                            $pq::query::cast_shapes(
                                &$parry_pose(&ma.pose),
                                $pvec(ma.linear_velocity),
                                &**a,
                                &$parry_pose(&mb.pose),
                                $pvec(mb.linear_velocity),
                                &**b,
                                $pq::query::ShapeCastOptions::with_max_time_of_impact(1.0),
                            )
                        };
                        s += hit.unwrap().map_or(1.0, |h| h.time_of_impact);
                    }
                    black_box(s)
                })
            });
        }
        g.finish();
    }};
}

/// GJK distance along coherent sequences (each pair moves and turns a little between queries),
/// without and with the warm start of a `GjkCache`.
fn warm_start(c: &mut Criterion) {
    let mut rng = Pcg64::seed_from_u64(13);
    let sequences: Vec<_> = (0..8)
        .map(|_| {
            let (a, b) = (shape3("cuboid", &mut rng), shape3("triangle", &mut rng));
            let motion = |rng: &mut Pcg64| {
                let w = point3(rng, 1.0);
                RigidMotion::new(0.0, pose3(rng, 3.0), point3(rng, 1.0), w).unwrap()
            };
            let (ma, mb) = (motion(&mut rng), motion(&mut rng));
            let poses: Vec<_> = (0..32)
                .map(|k| (ma.pose_at(k as f64 * 0.01), mb.pose_at(k as f64 * 0.01)))
                .collect();
            (a, b, poses)
        })
        .collect();
    let opts = GjkOptions::default();
    let mut g = c.benchmark_group("3D cuboid-triangle sequence");
    g.bench_function("kairos distance cold", |bench| {
        bench.iter(|| {
            let mut s = 0.0;
            for (a, b, poses) in &sequences {
                for (pa, pb) in poses {
                    s += distance(a, pa, b, pb, &opts, None).distance;
                }
            }
            black_box(s)
        })
    });
    g.bench_function("kairos distance warm", |bench| {
        bench.iter(|| {
            let mut s = 0.0;
            for (a, b, poses) in &sequences {
                let mut cache = GjkCache::default();
                for (pa, pb) in poses {
                    s += distance(a, pa, b, pb, &opts, Some(&mut cache)).distance;
                }
            }
            black_box(s)
        })
    });
    g.finish();
}

fn spin2(rng: &mut Pcg64) -> f64 {
    rng.gen_range(-8.0..8.0)
}

fn spin3(rng: &mut Pcg64) -> DVec3 {
    point3(rng, 1.0).normalize_or_zero() * rng.gen_range(0.0..8.0)
}

fn bench(c: &mut Criterion) {
    let v2 = |v: DVec2| parry2d_f64::math::Vector::new(v.x, v.y);
    let v3 = |v: DVec3| parry3d_f64::math::Vector::new(v.x, v.y, v.z);
    for (ka, kb) in [
        ("ball", "cuboid"),
        ("cuboid", "cuboid"),
        ("polygon", "polygon"),
    ] {
        query_benches!(
            c,
            2,
            shape2,
            pose2,
            point2,
            parry2,
            parry_pose2,
            parry2d_f64,
            v2,
            spin2,
            |w: f64| w,
            ka,
            kb
        );
    }
    for (ka, kb) in [("ball", "cuboid"), ("cuboid", "cuboid")] {
        query_benches!(
            c,
            3,
            shape3,
            pose3,
            point3,
            parry3,
            parry_pose3,
            parry3d_f64,
            v3,
            spin3,
            v3,
            ka,
            kb
        );
    }
}

/// `QUERIES_COUNT="3D cuboid-cuboid/kairos linear cast:20"` runs that cast's 256 pairs 20
/// times instead of benchmarking, for instruction counts under `valgrind --tool=callgrind`
/// (subtract a run with 0 passes for the setup); `TOI_ADVANCEMENT` set turns the ray cast off.
fn count_request() -> Option<(String, u32)> {
    let spec = std::env::var("QUERIES_COUNT").ok()?;
    let (name, passes) = spec.rsplit_once(':')?;
    Some((name.to_string(), passes.parse().ok()?))
}

criterion_group!(benches, bench, warm_start);

fn main() {
    if count_request().is_some() {
        bench(&mut Criterion::default());
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
