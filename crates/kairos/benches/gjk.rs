//! GJK distance and intersection beside parry's, on the same random pairs.
//!
//! Each benchmark runs one query on each of 256 prepared pairs (random sizes and poses within 3
//! of the origin, about four in five separated), through the shape enums both libraries offer
//! (`kairos::shape::Shape`, parry's `dyn Shape`), so neither is monomorphised for the pair.
//! Results: docs/benchmarks.md. With `GJK_COUNT` set (see [`count_request`]) it runs one
//! query set a given number of times instead, for instruction counts.

use std::hint::black_box;

use criterion::{criterion_group, Criterion};
use kairos::math::{DQuat, DVec2, DVec3, Rot2};
use kairos::query::{distance, intersects, GjkOptions};
use kairos::shape::{Pose, Shape};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const PAIRS: usize = 256;

fn size(rng: &mut Pcg64) -> f64 {
    rng.gen_range(0.1..1.5)
}

fn shape2(kind: &str, rng: &mut Pcg64) -> Shape<DVec2> {
    match kind {
        "ball" => Shape::ball(size(rng)),
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
    let p = |rng: &mut Pcg64| {
        DVec3::new(
            rng.gen_range(-1.5..1.5),
            rng.gen_range(-1.5..1.5),
            rng.gen_range(-1.5..1.5),
        )
    };
    match kind {
        "ball" => Shape::ball(size(rng)),
        "cuboid" => Shape::cuboid(DVec3::new(size(rng), size(rng), size(rng))),
        "capsule" => Shape::capsule(size(rng), size(rng)),
        "triangle" => Shape::triangle(p(rng), p(rng), p(rng)),
        "polyhedron" => Shape::polyhedron(&(0..32).map(|_| p(rng)).collect::<Vec<_>>()),
        _ => unreachable!(),
    }
    .unwrap()
}

fn pose2(rng: &mut Pcg64) -> Pose<DVec2> {
    let x = DVec2::new(rng.gen_range(-3.0..3.0), rng.gen_range(-3.0..3.0));
    Pose::new(x, Rot2::from_angle(rng.gen_range(-3.2..3.2)))
}

fn pose3(rng: &mut Pcg64) -> Pose<DVec3> {
    let x = DVec3::new(
        rng.gen_range(-3.0..3.0),
        rng.gen_range(-3.0..3.0),
        rng.gen_range(-3.0..3.0),
    );
    let q = DQuat::from_xyzw(
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
    );
    Pose::new(x, q.normalize())
}

fn parry2(s: &Shape<DVec2>) -> Box<dyn parry2d_f64::shape::Shape> {
    use parry2d_f64::{math::Vector as P, shape as ps};
    let v = |p: DVec2| P::new(p.x, p.y);
    match s {
        Shape::Ball(b) => Box::new(ps::Ball::new(b.radius())),
        Shape::Cuboid(c) => Box::new(ps::Cuboid::new(v(c.half_extents()))),
        Shape::ConvexPolygon(p) => Box::new(
            ps::ConvexPolygon::from_convex_polyline_unmodified(
                p.vertices().iter().map(|&p| v(p)).collect(),
            )
            .unwrap(),
        ),
        _ => unreachable!(),
    }
}

fn parry3(s: &Shape<DVec3>) -> Box<dyn parry3d_f64::shape::Shape> {
    use parry3d_f64::{math::Vector as P, shape as ps};
    let v = |p: DVec3| P::new(p.x, p.y, p.z);
    match s {
        Shape::Ball(b) => Box::new(ps::Ball::new(b.radius())),
        Shape::Cuboid(c) => Box::new(ps::Cuboid::new(v(c.half_extents()))),
        Shape::Capsule(c) => Box::new(ps::Capsule::new_y(c.half_height(), c.radius())),
        Shape::Triangle(t) => {
            let [a, b, c] = t.vertices();
            Box::new(ps::Triangle::new(v(a), v(b), v(c)))
        }
        Shape::Polyhedron(h) => Box::new(
            ps::ConvexPolyhedron::from_convex_hull(
                &h.vertices().iter().map(|&p| v(p)).collect::<Vec<_>>(),
            )
            .unwrap(),
        ),
        _ => unreachable!(),
    }
}

fn parry_pose2(p: &Pose<DVec2>) -> parry2d_f64::math::Pose {
    use parry2d_f64::math::{Pose as P, Rotation, Vector};
    P::from_parts(
        Vector::new(p.position.x, p.position.y),
        Rotation::from_angle(p.rotation.angle()),
    )
}

fn parry_pose3(p: &Pose<DVec3>) -> parry3d_f64::math::Pose {
    use parry3d_f64::math::{Pose as P, Rotation, Vector};
    let q = p.rotation;
    P::from_parts(
        Vector::new(p.position.x, p.position.y, p.position.z),
        Rotation::from_xyzw(q.x, q.y, q.z, q.w),
    )
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
            pose2,
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
            pose3,
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
