//! The time of impact of purely translating pairs by the GJK ray cast (`query::toi`, the
//! default) against conservative advancement alone (`ToiOptions::linear_ray_cast = false`), on
//! thousands of random pairs of every shape without a round core (2D: cuboid, segment,
//! triangle, polygon; 3D: cuboid, segment, triangle, cylinder, cone, polyhedron), half of them
//! aimed at each other: the same status, times within the contact tolerance over the closing
//! speed, the ray cast never later than advancement by more than that, and the separation at the
//! reported time within the tolerance.

use crate::pairs;

use kairos_geometry::math::{DVec2, DVec3};
use kairos_geometry::query::gjk::{distance, GjkOptions};
use kairos_geometry::query::toi::{time_of_impact, ToiOptions, ToiStatus};
use kairos_geometry::shape::RigidMotion;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use pairs::*;

#[derive(Default, Debug)]
struct Counts {
    hits: usize,
    none: usize,
    overlapping: usize,
    /// Hit by one and None by the other, on a path that grazes within the tolerance.
    grazing: usize,
    /// The largest `|t_ray − t_ca| · closing / tol`.
    worst: f64,
    /// Queries (steps) of each path.
    steps_ray: u64,
    steps_ca: u64,
}

fn compare<V: Dim>(kinds: &[&str], seed: u64, per_pair: usize) -> Counts {
    let mut rng = Pcg64::seed_from_u64(seed);
    let ray = ToiOptions::default();
    let ca = ToiOptions {
        linear_ray_cast: false,
        ..ToiOptions::default()
    };
    let gjk = GjkOptions::default();
    let mut c = Counts::default();
    for ka in kinds {
        for kb in kinds {
            for _ in 0..per_pair {
                let (a, pa, b, pb) = random_pair::<V>(ka, kb, &mut rng);
                let aim = if rng.gen_bool(0.5) {
                    (pb.position - pa.position) * rng.gen_range(0.5..2.0)
                } else {
                    V::ZERO
                };
                let va = point::<V>(&mut rng, 3.0) + aim * 0.5;
                let vb = point::<V>(&mut rng, 3.0) - aim * 0.5;
                let ma = RigidMotion::new(0.0, pa, va, Default::default()).unwrap();
                let mb = RigidMotion::new(0.0, pb, vb, Default::default()).unwrap();
                let r = time_of_impact(&a, &ma, &b, &mb, 0.0, 1.0, &ray);
                let q = time_of_impact(&a, &ma, &b, &mb, 0.0, 1.0, &ca);
                let ctx = format!("{ka}-{kb} {a:?} {pa:?} {va:?} {b:?} {pb:?} {vb:?}: ray {r:?}, advancement {q:?}");
                assert!(
                    r.time.is_finite() && r.distance.is_finite() && r.normal.is_finite(),
                    "{ctx}"
                );
                c.steps_ray += u64::from(r.iterations);
                c.steps_ca += u64::from(q.iterations);
                let tol = r.tolerance;
                let gap =
                    |t: f64| distance(&a, &ma.pose_at(t), &b, &mb.pose_at(t), &gjk, None).distance;
                match (r.status, q.status) {
                    (ToiStatus::Penetrating, ToiStatus::Penetrating) => c.overlapping += 1,
                    (ToiStatus::NotBy, ToiStatus::NotBy) => c.none += 1,
                    (ToiStatus::Approaching, ToiStatus::Approaching) => {
                        c.hits += 1;
                        assert!(r.distance <= tol, "{ctx}");
                        // The distance is an upper bound: that of the reported points.
                        let d = (r.point_b - r.point_a).length();
                        assert!(close(d, r.distance, 1e-6, 1e-12), "{ctx}");
                        assert!(
                            r.normal != V::ZERO && r.time > 0.0 && r.time <= 1.0,
                            "{ctx}"
                        );
                        // The gap closes at most at |va − vb| and at least at the closing
                        // speed along the normal; both times are within tol of contact.
                        let closing = (va - vb).dot(q.normal).max(0.0);
                        let late = (r.time - q.time) * closing;
                        assert!(late <= tol * 1.01 + 1e-12, "{ctx}: later by {late}");
                        let off = (r.time - q.time).abs() * closing;
                        assert!(off <= tol * 1.01 + 1e-12, "{ctx}: apart by {off}");
                        c.worst = c.worst.max(off / tol);
                    }
                    (ToiStatus::Approaching, ToiStatus::NotBy)
                    | (ToiStatus::NotBy, ToiStatus::Approaching) => {
                        // Only a path that grazes within the tolerance may differ.
                        let approach = (0..=2000)
                            .map(|i| gap(f64::from(i) / 2000.0))
                            .fold(f64::INFINITY, f64::min);
                        assert!(approach <= 1e-3, "{ctx}: approach {approach}");
                        c.grazing += 1;
                    }
                    _ => panic!("{ctx}"),
                }
            }
        }
    }
    c
}

#[test]
fn ray_cast_agrees_with_advancement_2d() {
    let c = compare::<DVec2>(&["cuboid", "segment", "triangle", "polygon"], 91, 200);
    println!("2D: {c:?}");
    assert!(c.hits > 500 && c.none > 500 && c.grazing <= 2, "{c:?}");
}

#[test]
fn ray_cast_agrees_with_advancement_3d() {
    let kinds = [
        "cuboid",
        "segment",
        "triangle",
        "cylinder",
        "cone",
        "polyhedron",
    ];
    let c = compare::<DVec3>(&kinds, 92, 100);
    println!("3D: {c:?}");
    assert!(c.hits > 500 && c.none > 500 && c.grazing <= 2, "{c:?}");
}
