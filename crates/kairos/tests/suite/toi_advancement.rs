//! Time of impact by conservative advancement (`query::toi`) against independent references:
//! a dense sampler of the separation along the motion with bisection to 1e-9 on random pairs
//! in linear and angular motion (2D and 3D), the exact ball–ball solver of `kairos::ball_toi`, an
//! overlapping start, and a thin box spinning too fast for a coarse fixed-step sampler.

use crate::pairs;

use kairos::body::Body;
use kairos::math::{DVec2, DVec3, Vector};
use kairos::query::gjk::{distance, intersects, GjkOptions};
use kairos::query::toi::{time_of_impact, ToiOptions, ToiStatus};
use kairos::shape::{Pose, RigidMotion, Shape};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use pairs::*;

fn hit_at<V: Vector>(
    a: &Shape<V>,
    ma: &RigidMotion<V>,
    b: &Shape<V>,
    mb: &RigidMotion<V>,
    t: f64,
) -> bool {
    intersects(
        a,
        &ma.pose_at(t),
        b,
        &mb.pose_at(t),
        &GjkOptions::default(),
        None,
    )
}

fn gap_at<V: Vector>(
    a: &Shape<V>,
    ma: &RigidMotion<V>,
    b: &Shape<V>,
    mb: &RigidMotion<V>,
    t: f64,
) -> f64 {
    distance(
        a,
        &ma.pose_at(t),
        b,
        &mb.pose_at(t),
        &GjkOptions::default(),
        None,
    )
    .distance
}

/// The first sampled intersecting time of `samples` uniform samples of `[t0, t1]`, refined
/// by bisection to 1e-9 (the intersecting end); `None` when no sample intersects.
fn reference<V: Vector>(
    a: &Shape<V>,
    ma: &RigidMotion<V>,
    b: &Shape<V>,
    mb: &RigidMotion<V>,
    t0: f64,
    t1: f64,
    samples: usize,
) -> Option<f64> {
    let at = |i: usize| t0 + (t1 - t0) * i as f64 / samples as f64;
    let first = (0..=samples).find(|&i| hit_at(a, ma, b, mb, at(i)))?;
    if first == 0 {
        return Some(t0);
    }
    let (mut lo, mut hi) = (at(first - 1), at(first));
    while hi - lo > 1e-9 {
        let mid = 0.5 * (lo + hi);
        if hit_at(a, ma, b, mb, mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

#[derive(Default, Debug)]
struct Counts {
    overlapping: usize,
    hits: usize,
    none: usize,
    earlier_real: usize,
    max_iterations: usize,
    iterations: Vec<u32>,
    worst_lag: f64,
}

fn dense_reference<V: Spin>(kinds: &[&str], seed: u64, per_pair: usize) -> Counts {
    let mut rng = Pcg64::seed_from_u64(seed);
    let opts = ToiOptions::default();
    let mut c = Counts::default();
    for ka in kinds {
        for kb in kinds {
            for _ in 0..per_pair {
                let (a, pa, b, pb) = random_pair::<V>(ka, kb, &mut rng);
                let spin: f64 = rng.gen_range(0.0..8.0);
                let ma = RigidMotion::new(
                    0.0,
                    pa,
                    point(&mut rng, 4.0),
                    V::scale(V::random_angular(&mut rng), spin),
                )
                .unwrap();
                let spin: f64 = rng.gen_range(0.0..8.0);
                let mb = RigidMotion::new(
                    0.0,
                    pb,
                    point(&mut rng, 4.0),
                    V::scale(V::random_angular(&mut rng), spin),
                )
                .unwrap();
                let (t0, t1) = (0.0, 1.0);
                let r = time_of_impact(&a, &ma, &b, &mb, t0, t1, &opts);
                assert!(r.time.is_finite() && r.distance.is_finite());
                let want = reference(&a, &ma, &b, &mb, t0, t1, 2000);
                let ctx = format!("{ka}-{kb}: {r:?} reference {want:?}");
                c.iterations.push(r.iterations);
                match r.status {
                    ToiStatus::Penetrating => {
                        assert!(
                            hit_at(&a, &ma, &b, &mb, t0)
                                || gap_at(&a, &ma, &b, &mb, t0) <= r.tolerance * 1.01,
                            "{ctx}"
                        );
                        c.overlapping += 1;
                    }
                    ToiStatus::Approaching => {
                        assert_ne!(want, Some(t0), "{ctx}");
                        let gap = gap_at(&a, &ma, &b, &mb, r.time);
                        assert!(gap <= r.tolerance * 1.01, "{ctx}: gap {gap}");
                        assert!(r.time > t0 && r.time <= t1, "{ctx}");
                        match want {
                            Some(t) => {
                                assert!(r.time <= t + 1e-9, "{ctx}: later than reference");
                                if t - r.time > 1e-6 {
                                    c.earlier_real += 1;
                                } else {
                                    c.worst_lag = c.worst_lag.max(t - r.time);
                                }
                            }
                            None => c.earlier_real += 1,
                        }
                        c.hits += 1;
                    }
                    ToiStatus::NotBy | ToiStatus::Separating | ToiStatus::Grazing => {
                        assert_eq!(want, None, "{ctx}: a contact was missed");
                        c.none += 1;
                    }
                    ToiStatus::Stalled => {
                        if let Some(t) = want {
                            assert!(r.time <= t + 1e-9, "{ctx}");
                        }
                        c.max_iterations += 1;
                    }
                }
            }
        }
    }
    c
}

/// Scaling an angular velocity, in both dimensions.
trait Spin: Dim {
    fn scale(w: Self::Angular, s: f64) -> Self::Angular;
}
impl Spin for DVec2 {
    fn scale(w: f64, s: f64) -> f64 {
        w * s
    }
}
impl Spin for DVec3 {
    fn scale(w: DVec3, s: f64) -> DVec3 {
        w * s
    }
}

fn report(name: &str, c: &Counts) {
    let mut it = c.iterations.clone();
    it.sort_unstable();
    let q = |p: f64| it[((it.len() - 1) as f64 * p) as usize];
    println!(
        "{name}: {} pairs: overlapping {}, hit {}, none {}, max-iterations {}, hits earlier \
         than the reference (real contacts it missed) {}, worst lag behind the reference {:.1e}; \
         iterations median {} p90 {} p99 {} max {}",
        it.len(),
        c.overlapping,
        c.hits,
        c.none,
        c.max_iterations,
        c.earlier_real,
        c.worst_lag,
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0)
    );
}

#[test]
fn dense_reference_2d() {
    let c = dense_reference::<DVec2>(&KINDS_2D, 41, 24);
    report("2D", &c);
    assert!(
        c.hits > 80 && c.none > 200 && c.overlapping > 40 && c.max_iterations == 0,
        "{c:?}"
    );
}

#[test]
fn dense_reference_3d() {
    let c = dense_reference::<DVec3>(&KINDS_3D, 42, 40);
    report("3D", &c);
    assert!(
        c.hits > 80 && c.none > 200 && c.overlapping > 40 && c.max_iterations == 0,
        "{c:?}"
    );
}

#[test]
fn ball_ball_translation_matches_the_exact_solver() {
    let mut rng = Pcg64::seed_from_u64(7);
    let opts = ToiOptions::default();
    let (mut hits, mut grazing) = (0, 0);
    for _ in 0..2000 {
        let (ra, rb) = (size(&mut rng), size(&mut rng));
        let (pa, pb): (DVec3, DVec3) = (point(&mut rng, 5.0), point(&mut rng, 5.0));
        // Mostly towards each other, so that most pairs meet.
        let va: DVec3 = point(&mut rng, 3.0);
        let vb = va + (pa - pb) * rng.gen_range(0.05..1.0) + point::<DVec3>(&mut rng, 1.0);
        let exact =
            kairos::ball_toi::ball_ball(&Body::new(pa, va, ra, 1.0), &Body::new(pb, vb, rb, 1.0));
        let ma = RigidMotion::new(0.0, Pose::from_position(pa), va, DVec3::ZERO).unwrap();
        let mb = RigidMotion::new(0.0, Pose::from_position(pb), vb, DVec3::ZERO).unwrap();
        let (a, b) = (Shape::ball(ra).unwrap(), Shape::ball(rb).unwrap());
        let r = time_of_impact(&a, &ma, &b, &mb, 0.0, 10.0, &opts);
        if (pa - pb).length() <= ra + rb {
            assert_eq!(r.status, ToiStatus::Penetrating);
            continue;
        }
        let t = exact.time;
        if t.is_finite() && t <= 10.0 {
            let n = ((pb + vb * t) - (pa + va * t)).normalize();
            let closing = (va - vb).dot(n);
            if closing < 1e-3 {
                grazing += 1;
                assert!(r.status == ToiStatus::Approaching || r.status == ToiStatus::Stalled);
                assert!(r.time <= t + 1e-12);
                continue;
            }
            assert_eq!(r.status, ToiStatus::Approaching, "{r:?} exact {t}");
            // Two balls take the simulator's closed form: the same time, bit for bit, and
            // touching at it.
            assert_eq!(r.time, t, "{r:?} exact {t}");
            assert_eq!(r.iterations, 1);
            assert!(r.distance <= 1e-14 * (pa - pb).length(), "{r:?}");
            assert!(((r.point_b - r.point_a).length()) <= 1e-14 * (pa - pb).length());
            hits += 1;
        } else {
            assert_eq!(r.status, ToiStatus::NotBy, "{r:?} exact {exact:?}");
        }
    }
    println!("ball-ball: {hits} hits against the exact solver, {grazing} near-grazing");
    assert!(hits > 100);
}

#[test]
fn overlapping_at_the_start() {
    let a = Shape::cuboid(DVec3::new(1.0, 1.0, 1.0)).unwrap();
    let b = Shape::capsule(1.0, 0.5).unwrap();
    let ma = RigidMotion::new(0.0, Pose::IDENTITY, DVec3::X, DVec3::Y).unwrap();
    let mb = RigidMotion::at_rest(0.0, Pose::from_position(DVec3::new(1.2, 0.0, 0.0)));
    let r = time_of_impact(&a, &ma, &b, &mb, 0.0, 1.0, &ToiOptions::default());
    assert_eq!(r.status, ToiStatus::Penetrating);
    assert_eq!(r.time, 0.0);
    // Touching exactly at the start is contact too.
    let mb = RigidMotion::at_rest(0.0, Pose::from_position(DVec3::new(1.5, 0.0, 0.0)));
    let r = time_of_impact(&a, &ma, &b, &mb, 0.0, 1.0, &ToiOptions::default());
    assert_eq!(r.status, ToiStatus::Penetrating);
}

/// The contact of a fast spinning thin bar: a fixed-step sampler with coarse steps misses it,
/// conservative advancement finds it, and a fine sampler agrees there was none before.
fn spinning<V: Dim>(bar: Shape<V>, spin: V::Angular, other: Shape<V>, at: V) {
    let ma = RigidMotion::new(0.0, Pose::IDENTITY, V::ZERO, spin).unwrap();
    let mb = RigidMotion::at_rest(0.0, Pose::from_position(at));
    let (t0, t1) = (0.0, 0.1);
    let coarse = (0..=10).any(|i| hit_at(&bar, &ma, &other, &mb, t1 * i as f64 / 10.0));
    assert!(!coarse, "the coarse sampler should miss this contact");
    let r = time_of_impact(&bar, &ma, &other, &mb, t0, t1, &ToiOptions::default());
    assert_eq!(r.status, ToiStatus::Approaching, "{r:?}");
    assert!(gap_at(&bar, &ma, &other, &mb, r.time) <= r.tolerance);
    let fine = reference(&bar, &ma, &other, &mb, t0, t1, 100_000).unwrap();
    assert!(
        r.time <= fine + 1e-9 && fine - r.time < 1e-6,
        "{r:?} fine {fine}"
    );
    println!("spinning: hit at {} after {} steps", r.time, r.iterations);
}

#[test]
fn fast_spinning_thin_box_is_not_tunnelled() {
    spinning(
        Shape::cuboid(DVec2::new(2.0, 0.02)).unwrap(),
        200.0,
        Shape::ball(0.1).unwrap(),
        DVec2::new(0.0, 1.5),
    );
    spinning(
        Shape::cuboid(DVec3::new(2.0, 0.02, 0.3)).unwrap(),
        DVec3::new(0.0, 0.0, 200.0),
        Shape::cuboid(DVec3::new(0.1, 0.1, 0.1)).unwrap(),
        DVec3::new(0.0, 1.5, 0.0),
    );
}

#[test]
fn empty_or_non_finite_interval_is_none_without_nan() {
    let a = Shape::ball(1.0).unwrap();
    let ma = RigidMotion::at_rest(0.0, Pose::from_position(DVec2::ZERO));
    let mb = RigidMotion::new(0.0, Pose::from_position(DVec2::X * 3.0), -DVec2::X, 1.0).unwrap();
    let opts = ToiOptions::default();
    for (t0, t1) in [(1.0, 0.0), (f64::NAN, 1.0), (0.0, f64::INFINITY)] {
        let r = time_of_impact(&a, &ma, &a, &mb, t0, t1, &opts);
        assert_eq!(r.status, ToiStatus::NotBy);
        assert!(r.time.is_finite() && r.distance.is_finite());
    }
    // Head-on: touches at t = 1 exactly, reported at most tol/speed before.
    let r = time_of_impact(&a, &ma, &a, &mb, 0.0, 2.0, &opts);
    assert_eq!(r.status, ToiStatus::Approaching);
    assert!(r.time <= 1.0 && 1.0 - r.time <= r.tolerance, "{r:?}");
}
