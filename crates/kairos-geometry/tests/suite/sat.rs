//! The separating axis test against GJK (separated exactly when GJK finds a distance) and EPA
//! (minus the separation is the penetration depth of overlapping polytopes), its axis
//! convention, the Gauss-map pruning against the unpruned edge pairs, and the cached axis on
//! coherent sequences (same status, fewer axes).

use crate::pairs;

use kairos_geometry::math::{DVec2, DVec3, Vector};
use kairos_geometry::query::sat::{as_polytope, sat, Polytope, SatCache, SatFeature, SatStatus};
use kairos_geometry::query::{
    distance, penetration, signed_distance, EpaOptions, EpaStatus, GjkOptions, GjkStatus,
};
use kairos_geometry::shape::{Cuboid, Pose, Shape, SupportMap};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use pairs::*;

const POLY_2D: [&str; 3] = ["cuboid", "triangle", "polygon"];
const POLY_3D: [&str; 3] = ["cuboid", "triangle", "polyhedron"];

/// `min_b n·b − max_a n·a` from the support functions.
fn separation_along<V: Vector>(
    a: &Shape<V>,
    pa: &Pose<V>,
    b: &Shape<V>,
    pb: &Pose<V>,
    n: V,
) -> f64 {
    b.support(pb, -n).dot(n) - a.support(pa, n).dot(n)
}

/// Random polytope pairs of one dimension, `n` per kind pair, `b` within 2 of `a` on each
/// axis, given to `f`.
fn for_pairs<V: Dim>(
    kinds: &[&str],
    n: usize,
    seed: u64,
    mut f: impl FnMut(&str, &str, &Shape<V>, &Pose<V>, &Shape<V>, &Pose<V>),
) {
    let mut rng = Pcg64::seed_from_u64(seed);
    for ka in kinds {
        for kb in kinds {
            for _ in 0..n {
                let (a, pa, b, mut pb) = random_pair::<V>(ka, kb, &mut rng);
                // Within 2 of each other: about half the pairs overlap.
                pb.position = pa.position + point::<V>(&mut rng, 2.0);
                f(ka, kb, &a, &pa, &b, &pb);
            }
        }
    }
}

#[test]
fn separated_exactly_when_gjk_finds_a_distance() {
    fn run<V: Dim>(kinds: &[&str], seed: u64) -> (usize, usize) {
        let (mut apart, mut total) = (0, 0);
        for_pairs::<V>(kinds, 3000, seed, |ka, kb, a, pa, b, pb| {
            let pa_ = as_polytope(a).unwrap();
            let pb_ = as_polytope(b).unwrap();
            let r = sat(pa_, pa, pb_, pb, None);
            let g = distance(a, pa, b, pb, &GjkOptions::default(), None);
            // Leave out the pairs that touch within rounding.
            let signed = signed_distance(a, pa, b, pb, &EpaOptions::default());
            if signed.abs() < 1e-9 {
                return;
            }
            total += 1;
            let gjk_apart = g.status == GjkStatus::Separated;
            assert_eq!(
                r.status == SatStatus::Separated,
                gjk_apart,
                "{ka}-{kb}: {r:?} {g:?}"
            );
            if gjk_apart {
                apart += 1;
                // A lower bound on the distance.
                assert!(r.separation <= g.distance + 1e-12, "{ka}-{kb}: {r:?} {g:?}");
            }
            // The separation is the support gap along the axis, whatever the status.
            let s = separation_along(a, pa, b, pb, r.axis);
            assert!(close(s, r.separation, 1e-12, 1e-12), "{ka}-{kb}: {r:?} {s}");
            assert!((r.axis.length() - 1.0).abs() < 1e-12);
        });
        (apart, total)
    }
    let (a2, t2) = run::<DVec2>(&POLY_2D, 1);
    let (a3, t3) = run::<DVec3>(&POLY_3D, 2);
    println!("2D: {a2} of {t2} apart; 3D: {a3} of {t3} apart");
    assert!(a2 > t2 / 10 && a2 < t2 * 9 / 10 && a3 > t3 / 10 && a3 < t3 * 9 / 10);
}

#[test]
fn minus_the_separation_is_the_epa_depth() {
    fn run<V: Dim>(kinds: &[&str], seed: u64) -> usize {
        let mut checked = 0;
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut worst = 0.0f64;
        for ka in kinds {
            for kb in kinds {
                let mut n = 0;
                while n < 1500 {
                    let (a, pa, b, mut pb) = random_pair::<V>(ka, kb, &mut rng);
                    // Pull b near a, so most pairs overlap.
                    pb.position = pa.position + point(&mut rng, 1.0);
                    let e = penetration(&a, &pa, &b, &pb, &EpaOptions::default());
                    if e.status != EpaStatus::Penetrating || e.depth < 1e-6 {
                        continue;
                    }
                    n += 1;
                    let r = sat(
                        as_polytope(&a).unwrap(),
                        &pa,
                        as_polytope(&b).unwrap(),
                        &pb,
                        None,
                    );
                    assert_eq!(r.status, SatStatus::Overlapping);
                    let err = (-r.separation - e.depth).abs();
                    worst = worst.max(err);
                    assert!(err <= 1e-9, "{ka}-{kb}: {r:?} {e:?}");
                    // The axis is a minimum translation: moving b by depth along it makes the
                    // shapes touch.
                    let s = separation_along(&a, &pa, &b, &pb, r.axis);
                    assert!(close(s, r.separation, 1e-12, 1e-12));
                }
                checked += n;
            }
        }
        println!(
            "{}D: {checked} overlapping pairs, worst |depth + separation| {worst:.1e}",
            V::DIM
        );
        checked
    }
    run::<DVec2>(&POLY_2D, 3);
    run::<DVec3>(&POLY_3D, 4);
}

#[test]
fn the_axis_points_from_a_to_b() {
    fn run<V: Dim>(kinds: &[&str], seed: u64) {
        let mut rng = Pcg64::seed_from_u64(seed + 100);
        for_pairs::<V>(kinds, 500, seed, |ka, kb, a, pa, b, pb| {
            let (qa, qb) = (as_polytope(a).unwrap(), as_polytope(b).unwrap());
            let r = sat(qa, pa, qb, pb, None);
            if r.feature == SatFeature::None {
                return;
            }
            // Moving b along the axis by t raises the separation along it by t, and the full
            // test's best by at least t.
            let t = rng.gen_range(0.1..1.0);
            let moved = Pose::new(pb.position + r.axis * t, pb.rotation);
            let s = separation_along(a, pa, b, &moved, r.axis);
            assert!(close(s, r.separation + t, 1e-12, 1e-12), "{ka}-{kb}");
            let r2 = sat(qa, pa, qb, &moved, None);
            assert!(r2.separation >= r.separation + t - 1e-12, "{ka}-{kb}");
            // Swapping the pair negates the axis and keeps the separation.
            let sw = sat(qb, pb, qa, pa, None);
            assert!(
                close(sw.separation, r.separation, 1e-12, 1e-12),
                "{ka}-{kb}"
            );
        });
    }
    run::<DVec2>(&POLY_2D, 5);
    run::<DVec3>(&POLY_3D, 6);
    // A closed form: two unit squares side by side along +x.
    let sq = Cuboid::new(DVec2::ONE).unwrap();
    let r = sat(
        &sq,
        &Pose::IDENTITY,
        &sq,
        &Pose::from_position(DVec2::new(-2.5, 0.0)),
        None,
    );
    assert_eq!(r.axis, -DVec2::X);
    assert_eq!(r.feature, SatFeature::FaceA(1));
    assert!((r.separation - 0.5).abs() < 1e-15);
}

/// A polytope that hides its edges' faces, so SAT tests every edge pair by support scans.
struct Unpruned<'a>(&'a dyn Polytope<DVec3>);

impl Polytope<DVec3> for Unpruned<'_> {
    fn vertex_count(&self) -> usize {
        self.0.vertex_count()
    }
    fn vertex(&self, i: usize) -> DVec3 {
        self.0.vertex(i)
    }
    fn face_count(&self) -> usize {
        self.0.face_count()
    }
    fn face_normal(&self, i: usize) -> DVec3 {
        self.0.face_normal(i)
    }
    fn face_vertex(&self, i: usize) -> usize {
        self.0.face_vertex(i)
    }
    fn face_vertices(&self, i: usize, out: &mut Vec<u32>) {
        self.0.face_vertices(i, out)
    }
    fn edge_count(&self) -> usize {
        self.0.edge_count()
    }
    fn edge(&self, i: usize) -> [u32; 2] {
        self.0.edge(i)
    }
}

#[test]
fn gauss_map_pruning_keeps_the_answer() {
    let mut rng = Pcg64::seed_from_u64(7);
    let (mut pruned, mut full, mut edge_best) = (0u64, 0u64, 0);
    for _ in 0..5000 {
        let (a, pa, b, mut pb) = random_pair::<DVec3>("cuboid", "cuboid", &mut rng);
        pb.position = pa.position + point::<DVec3>(&mut rng, 2.0);
        let (qa, qb) = (as_polytope(&a).unwrap(), as_polytope(&b).unwrap());
        let r = sat(qa, &pa, qb, &pb, None);
        let u = sat(&Unpruned(qa), &pa, &Unpruned(qb), &pb, None);
        assert!(
            close(r.separation, u.separation, 1e-12, 1e-12),
            "{r:?} {u:?}"
        );
        pruned += r.axes_tested as u64;
        full += u.axes_tested as u64;
        edge_best += matches!(r.feature, SatFeature::Edges(..)) as u32;
    }
    println!(
        "box-box: {:.1} axes per query with the Gauss-map pruning, {:.1} without; \
         {edge_best} of 5000 best axes are edge pairs",
        pruned as f64 / 5000.0,
        full as f64 / 5000.0
    );
    assert!(edge_best > 100);
    assert!(pruned < full);
}

#[test]
fn the_cache_gives_the_same_status_with_fewer_axes() {
    fn run<V: Dim>(kinds: &[&str], seed: u64) -> (u64, u64, u64) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let (mut cold, mut warm, mut steps) = (0u64, 0u64, 0u64);
        for ka in kinds {
            for kb in kinds {
                for _ in 0..40 {
                    let (a, pa, b, _) = random_pair::<V>(ka, kb, &mut rng);
                    let (qa, qb) = (as_polytope(&a).unwrap(), as_polytope(&b).unwrap());
                    // b passes by a along a straight line, turning slowly.
                    let start: V = point::<V>(&mut rng, 1.0) + V::unit(0) * -6.0;
                    let vel = V::unit(0) * 0.02 + point::<V>(&mut rng, 0.003);
                    let w = V::random_angular(&mut rng);
                    let r0 = V::random_rotation(&mut rng);
                    let mut cache = SatCache::default();
                    for k in 0..600 {
                        let t = k as f64;
                        let pb = Pose::new(
                            pa.position + start + vel * t,
                            V::integrate_rotation(r0, w, 0.01 * t),
                        );
                        let c = sat(qa, &pa, qb, &pb, None);
                        let h = sat(qa, &pa, qb, &pb, Some(&mut cache));
                        assert_eq!(c.status, h.status, "{ka}-{kb} step {k}");
                        if h.axes_tested as usize > 1 || c.status == SatStatus::Overlapping {
                            // The full test ran: the same answer.
                            assert_eq!(c.feature, h.feature);
                            assert_eq!(c.separation, h.separation);
                        } else {
                            // Early out: a valid separating axis, its separation a lower
                            // bound on the distance.
                            let g = distance(&a, &pa, &b, &pb, &GjkOptions::default(), None);
                            assert!(
                                h.separation > 0.0 && h.separation <= g.distance + 1e-12,
                                "{ka}-{kb} step {k}: {h:?} {g:?}"
                            );
                        }
                        cold += c.axes_tested as u64;
                        warm += h.axes_tested as u64;
                        steps += 1;
                    }
                }
            }
        }
        println!(
            "{}D: {:.2} axes per query without the cache, {:.2} with it ({steps} queries)",
            V::DIM,
            cold as f64 / steps as f64,
            warm as f64 / steps as f64
        );
        (cold, warm, steps)
    }
    let (c2, w2, _) = run::<DVec2>(&POLY_2D, 8);
    let (c3, w3, _) = run::<DVec3>(&POLY_3D, 9);
    assert!(w2 * 2 < c2 && w3 * 2 < c3);
}
