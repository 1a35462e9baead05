//! Ellipses and ellipsoids against dense sampling: the support function against the
//! parametrised surface, the mass properties against closed forms and Monte Carlo, GJK's
//! distance against sampled surface points (its closest points on both surfaces), EPA's depth
//! against the Minkowski difference's support sampled over thousands of directions, the
//! rotating time of impact against the distance sampled along the motion, and contact
//! manifolds of one point.

use std::f64::consts::{PI, TAU};

use kairos_geometry::math::{DQuat, DVec2, DVec3, Rot2, Vector};
use kairos_geometry::query::{
    contact_manifold, distance, penetration, time_of_impact, EpaOptions, GjkOptions, GjkStatus,
    ToiOptions, ToiStatus,
};
use kairos_geometry::shape::{
    ConvexShape, Ellipsoid, Outline, Pose, RigidMotion, Shape, ShapeError, SupportMap,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// A point of the surface at parameters `(u, v)` (2D: the angle `u`).
fn surface<V: Vector>(h: V, u: f64, v: f64) -> V {
    let (su, cu) = u.sin_cos();
    if V::DIM == 2 {
        V::from_array3([h.comp(0) * cu, h.comp(1) * su, 0.0])
    } else {
        let (sv, cv) = v.sin_cos();
        V::from_array3([h.comp(0) * cu * sv, h.comp(1) * cv, h.comp(2) * su * sv])
    }
}

/// About `n` points spread over the surface (a grid in the parameters).
fn surface_points<V: Vector>(h: V, n: usize) -> Vec<V> {
    if V::DIM == 2 {
        return (0..n)
            .map(|k| surface(h, TAU * k as f64 / n as f64, 0.0))
            .collect();
    }
    let side = (n as f64).sqrt() as usize;
    let mut out = Vec::with_capacity(side * side);
    for i in 0..side {
        for j in 0..=side {
            out.push(surface(
                h,
                TAU * i as f64 / side as f64,
                PI * j as f64 / side as f64,
            ));
        }
    }
    out
}

/// `Σ (x_i / h_i)²`: 1 on the surface.
fn level<V: Vector>(h: V, p: V) -> f64 {
    (0..V::DIM).map(|i| (p.comp(i) / h.comp(i)).powi(2)).sum()
}

fn half_axes<V: Vector>(rng: &mut Pcg64) -> V {
    V::from_array3([0; 3].map(|_| rng.gen_range(0.1..2.0)))
}

fn unit<V: Vector>(rng: &mut Pcg64) -> V {
    loop {
        let d = V::from_array3([0; 3].map(|_| rng.gen_range(-1.0..1.0)));
        if d.length() > 0.1 {
            return d * (1.0 / d.length());
        }
    }
}

trait Turn: Vector {
    fn random_rotation(rng: &mut Pcg64) -> Self::Rotation;
    fn random_spin(rng: &mut Pcg64, w: f64) -> Self::Angular;
}
impl Turn for DVec2 {
    fn random_rotation(rng: &mut Pcg64) -> Rot2 {
        Rot2::from_angle(rng.gen_range(-PI..PI))
    }
    fn random_spin(rng: &mut Pcg64, w: f64) -> f64 {
        rng.gen_range(-w..w)
    }
}
impl Turn for DVec3 {
    fn random_rotation(rng: &mut Pcg64) -> DQuat {
        let v = unit::<DVec3>(rng);
        DQuat::from_axis_angle(v, rng.gen_range(-PI..PI))
    }
    fn random_spin(rng: &mut Pcg64, w: f64) -> DVec3 {
        unit::<DVec3>(rng) * rng.gen_range(0.0..w)
    }
}

fn support_is_maximal<V: Turn>(seed: u64) {
    let mut rng = Pcg64::seed_from_u64(seed);
    for _ in 0..60 {
        let h = half_axes::<V>(&mut rng);
        let e = Ellipsoid::new(h).unwrap();
        let samples = surface_points(h, 4000);
        for _ in 0..40 {
            let d = unit::<V>(&mut rng);
            let s = e.local_support(d);
            assert!(
                (level(h, s) - 1.0).abs() < 1e-12,
                "{h:?} {d:?}: {s:?} off the surface"
            );
            let best = samples.iter().map(|p| p.dot(d)).fold(f64::MIN, f64::max);
            assert!(
                s.dot(d) >= best - 1e-12,
                "{h:?} {d:?}: {} < sampled {best}",
                s.dot(d)
            );
            // And the sampling comes close to it: the grid's spacing squared.
            assert!(s.dot(d) - best < 2e-2 * h.max_abs(), "{h:?} {d:?}");
        }
        // Every direction, however scaled, gives a point of the shape.
        for d in [
            V::ZERO,
            V::splat(f64::NAN),
            V::splat(1e-320),
            V::splat(1e300),
        ] {
            let s = e.local_support(d);
            assert!(s.is_finite() && level(h, s) <= 1.0 + 1e-12, "{d:?}: {s:?}");
        }
        assert_eq!(e.bounding_radius_about(V::ZERO), h.max_abs());
        let c = V::from_array3([0.3, -0.2, 0.1]);
        let far = samples
            .iter()
            .map(|p| (*p - c).length())
            .fold(0.0, f64::max);
        assert!(ConvexShape::<V>::bounding_radius_about(&e, c) >= far);
    }
}

#[test]
fn the_support_is_the_farthest_surface_point_2d() {
    support_is_maximal::<DVec2>(1);
}

#[test]
fn the_support_is_the_farthest_surface_point_3d() {
    support_is_maximal::<DVec3>(2);
}

#[test]
fn mass_properties_match_closed_forms_and_sampling() {
    let e = Ellipsoid::new(DVec2::new(2.0, 0.5)).unwrap();
    let m = e.mass_properties(3.0).unwrap();
    assert!((m.mass - 3.0 * PI).abs() < 1e-12);
    assert!((m.inertia - m.mass * (4.0 + 0.25) / 4.0).abs() < 1e-12);
    let e = Ellipsoid::new(DVec3::new(1.0, 2.0, 3.0)).unwrap();
    let m = e.mass_properties(2.0).unwrap();
    assert!((m.mass - 2.0 * 4.0 / 3.0 * PI * 6.0).abs() < 1e-12);
    let expect = [4.0 + 9.0, 1.0 + 9.0, 1.0 + 4.0].map(|s| m.mass * s / 5.0);
    let diag = [m.inertia.x_axis.x, m.inertia.y_axis.y, m.inertia.z_axis.z];
    for k in 0..3 {
        assert!(
            (diag[k] - expect[k]).abs() < 1e-12 * expect[k],
            "{diag:?} {expect:?}"
        );
    }
    // Monte Carlo over the bounding box: volume and the second moment about x.
    let mut rng = Pcg64::seed_from_u64(3);
    let (mut inside, mut second) = (0u64, 0.0);
    let n = 400_000;
    for _ in 0..n {
        let p = DVec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-2.0..2.0),
            rng.gen_range(-3.0..3.0),
        );
        if level(DVec3::new(1.0, 2.0, 3.0), p) <= 1.0 {
            inside += 1;
            second += p.y * p.y + p.z * p.z;
        }
    }
    let volume = 48.0 * inside as f64 / n as f64;
    assert!(
        (volume / (4.0 / 3.0 * PI * 6.0) - 1.0).abs() < 1e-2,
        "{volume}"
    );
    let ixx = 2.0 * 48.0 * second / n as f64;
    assert!((ixx / expect[0] - 1.0).abs() < 2e-2, "{ixx} {}", expect[0]);
    assert_eq!(e.mass_properties(0.0), Err(ShapeError::InvalidDensity(0.0)));
}

#[test]
fn bad_half_axes_are_refused() {
    for h in [
        DVec3::new(0.0, 1.0, 1.0),
        DVec3::new(1.0, -1.0, 1.0),
        DVec3::new(1.0, 1.0, f64::NAN),
        DVec3::new(f64::INFINITY, 1.0, 1.0),
    ] {
        let e = Shape::ellipsoid(h).unwrap_err().to_string();
        assert!(
            e.starts_with("half axis must be positive and finite"),
            "{e}"
        );
    }
    let s = Shape::ellipsoid(DVec2::new(1.0, 2.0)).unwrap();
    assert_eq!(s.name(), "ellipsoid");
    assert_eq!(s.outline(), Outline::Ellipsoid(DVec2::new(1.0, 2.0)));
}

/// A random ellipsoid, and another shape of `kind`, at random poses.
fn pair<V: Turn>(
    kind: usize,
    rng: &mut Pcg64,
    spread: f64,
) -> (Shape<V>, Pose<V>, Shape<V>, Pose<V>) {
    let a = Shape::ellipsoid(half_axes::<V>(rng)).unwrap();
    let b = match kind {
        0 => Shape::ellipsoid(half_axes::<V>(rng)).unwrap(),
        1 => Shape::cuboid(half_axes::<V>(rng)).unwrap(),
        _ => Shape::ball(rng.gen_range(0.1..1.5)).unwrap(),
    };
    let place = |rng: &mut Pcg64| {
        let p = V::from_array3([0; 3].map(|_| rng.gen_range(-spread..spread)));
        Pose::new(p, V::random_rotation(rng))
    };
    (a, place(rng), b, place(rng))
}

/// Points of the surface of `s` (an ellipsoid, box or ball) placed at `pose`.
fn placed_surface<V: Vector>(s: &Shape<V>, pose: &Pose<V>, n: usize) -> Vec<V> {
    let local: Vec<V> = match s {
        Shape::Ellipsoid(e) => surface_points(e.half_axes(), n),
        Shape::Ball(b) => surface_points(V::splat(b.radius()), n),
        Shape::Cuboid(c) => {
            // A grid on each face.
            let h = c.half_extents();
            let side = if V::DIM == 2 {
                n / 4
            } else {
                ((n / 6) as f64).sqrt() as usize
            };
            let mut out = Vec::new();
            for axis in 0..V::DIM {
                for sign in [-1.0, 1.0] {
                    let (i, j) = ((axis + 1) % V::DIM, (axis + 2) % V::DIM);
                    let rows = if V::DIM == 2 { 1 } else { side + 1 };
                    for p in 0..=side {
                        for q in 0..rows {
                            let mut x = [0.0; 3];
                            x[axis] = sign * h.comp(axis);
                            x[i] = h.comp(i) * (2.0 * p as f64 / side as f64 - 1.0);
                            if V::DIM == 3 {
                                x[j] = h.comp(j) * (2.0 * q as f64 / side as f64 - 1.0);
                            }
                            out.push(V::from_array3(x));
                        }
                    }
                }
            }
            out
        }
        _ => unreachable!(),
    };
    local.into_iter().map(|p| pose.transform_point(p)).collect()
}

/// Whether `p` (world frame) is on the surface of `s` at `pose`, to `tol`.
fn on_surface<V: Vector>(s: &Shape<V>, pose: &Pose<V>, p: V, tol: f64) -> bool {
    let q = pose.inverse_transform_point(p);
    match s {
        Shape::Ellipsoid(e) => (level(e.half_axes(), q).sqrt() - 1.0).abs() < tol,
        Shape::Ball(b) => (q.length() - b.radius()).abs() < tol,
        Shape::Cuboid(c) => {
            let h = c.half_extents();
            let out = (0..V::DIM)
                .map(|i| q.comp(i).abs() - h.comp(i))
                .fold(f64::MIN, f64::max);
            out.abs() < tol
        }
        _ => unreachable!(),
    }
}

fn distances_match_sampling<V: Turn>(seed: u64, samples: usize) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let gjk = GjkOptions::default();
    let mut apart = 0;
    for k in 0..90 {
        let (a, pa, b, pb) = pair::<V>(k % 3, &mut rng, 3.0);
        let r = distance(&a, &pa, &b, &pb, &gjk, None);
        let ctx = format!("{a:?} {pa:?} {b:?} {pb:?}: {r:?}");
        assert!(
            r.distance.is_finite() && r.lower_bound <= r.distance + 1e-12,
            "{ctx}"
        );
        if r.status == GjkStatus::Intersecting {
            continue;
        }
        apart += 1;
        // The closest points lie on the two surfaces, the distance apart: no smaller than the
        // true distance.
        assert!(on_surface(&a, &pa, r.point_a, 1e-6), "{ctx}");
        assert!(on_surface(&b, &pb, r.point_b, 1e-6), "{ctx}");
        assert!(
            ((r.point_a - r.point_b).length() - r.distance).abs() < 1e-9,
            "{ctx}"
        );
        // No sampled pair of surface points is closer: no larger than the true distance.
        let (sa, sb) = (
            placed_surface(&a, &pa, samples),
            placed_surface(&b, &pb, samples),
        );
        let sampled = sa
            .iter()
            .map(|p| {
                sb.iter()
                    .map(|q| (*p - *q).length())
                    .fold(f64::MAX, f64::min)
            })
            .fold(f64::MAX, f64::min);
        assert!(r.distance <= sampled + 1e-9, "{ctx}: sampled {sampled}");
        assert!(sampled - r.distance < 0.05, "{ctx}: sampled {sampled}");
    }
    assert!(apart > 40, "{apart}");
}

#[test]
fn gjk_distance_matches_sampling_2d() {
    distances_match_sampling::<DVec2>(4, 2000);
}

#[test]
fn gjk_distance_matches_sampling_3d() {
    distances_match_sampling::<DVec3>(5, 2500);
}

/// Directions spread over the circle or sphere (a Fibonacci spiral).
fn directions<V: Vector>(n: usize) -> Vec<V> {
    (0..n)
        .map(|k| {
            if V::DIM == 2 {
                let (s, c) = (TAU * k as f64 / n as f64).sin_cos();
                V::from_array3([c, s, 0.0])
            } else {
                let y = 1.0 - 2.0 * (k as f64 + 0.5) / n as f64;
                let r = (1.0 - y * y).sqrt();
                let (s, c) = (k as f64 * PI * (3.0 - 5f64.sqrt())).sin_cos();
                V::from_array3([r * c, y, r * s])
            }
        })
        .collect()
}

fn depths_match_sampling<V: Turn>(seed: u64, n: usize) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let dirs = directions::<V>(n);
    let mut overlapping = 0;
    for k in 0..90 {
        let (a, pa, b, pb) = pair::<V>(k % 3, &mut rng, 0.8);
        let r = penetration(&a, &pa, &b, &pb, &EpaOptions::default());
        let ctx = format!("{a:?} {pa:?} {b:?} {pb:?}: {r:?}");
        assert!(r.depth.is_finite() && r.normal.is_finite(), "{ctx}");
        if r.depth <= 0.0 {
            continue;
        }
        overlapping += 1;
        // The depth is the least support of A − B over directions: h(n) = s_A(n)·n − s_B(−n)·n.
        let h = |d: V| a.support(&pa, d).dot(d) - b.support(&pb, -d).dot(d);
        let (mut best, mut sampled) = (dirs[0], f64::MAX);
        for &d in &dirs {
            if h(d) < sampled {
                (best, sampled) = (d, h(d));
            }
        }
        assert!(r.depth <= sampled + 1e-9, "{ctx}: sampled {sampled}");
        // A random descent of shrinking steps from the best sampled direction and from EPA's
        // normal finds no direction of smaller support than the depth.
        for start in [best, r.normal] {
            let (mut d0, mut least, mut step) = (start, h(start), 0.05);
            for _ in 0..3000 {
                let d = d0 + unit::<V>(&mut rng) * step;
                let d = d * (1.0 / d.length());
                if h(d) < least {
                    (d0, least) = (d, h(d));
                } else {
                    step = (step * 0.995).max(1e-9);
                }
            }
            assert!(r.depth <= least + 1e-9, "{ctx}: descent found {least}");
        }
        // And the normal is where it is reached.
        assert!(
            (h(r.normal) - r.depth).abs() < 1e-6 * (1.0 + r.depth),
            "{ctx}"
        );
    }
    assert!(overlapping > 40, "{overlapping}");
}

#[test]
fn epa_depth_matches_sampling_2d() {
    depths_match_sampling::<DVec2>(6, 20_000);
}

#[test]
fn epa_depth_matches_sampling_3d() {
    depths_match_sampling::<DVec3>(7, 60_000);
}

fn impacts_match_sampling<V: Turn>(seed: u64) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let gjk = GjkOptions::default();
    let options = ToiOptions::default();
    let mut hits = 0;
    for k in 0..60 {
        let (a, pa, b, pb) = pair::<V>(k % 3, &mut rng, 3.0);
        if distance(&a, &pa, &b, &pb, &gjk, None).status == GjkStatus::Intersecting {
            continue;
        }
        let towards = pb.position - pa.position;
        let ma = RigidMotion::new(0.0, pa, towards * 0.6, V::random_spin(&mut rng, 8.0)).unwrap();
        let mb = RigidMotion::new(0.0, pb, towards * -0.6, V::random_spin(&mut rng, 8.0)).unwrap();
        let r = time_of_impact(&a, &ma, &b, &mb, 0.0, 1.0, &options);
        let ctx = format!("{a:?} {ma:?} {b:?} {mb:?}: {r:?}");
        let gap = |t: f64| distance(&a, &ma.pose_at(t), &b, &mb.pose_at(t), &gjk, None);
        // The first sampled time at which they overlap.
        let steps = 20_000;
        let first = (0..=steps)
            .map(|i| i as f64 / steps as f64)
            .find(|&t| gap(t).status == GjkStatus::Intersecting);
        match (r.status, first) {
            (ToiStatus::Approaching, Some(t)) => {
                hits += 1;
                // Never after the sampled first overlap; touching at the reported time.
                assert!(r.time <= t, "{ctx}: sampled overlap at {t}");
                assert!(gap(r.time).distance <= 2.0 * r.tolerance + 1e-12, "{ctx}");
                // And no overlap sampled before it.
                assert!(
                    t - r.time < 1e-3 || r.time == 0.0,
                    "{ctx}: sampled overlap at {t}"
                );
            }
            (ToiStatus::Approaching, None) => {
                // A graze the sampling steps over: within the tolerance at the reported time.
                assert!(gap(r.time).distance <= 2.0 * r.tolerance + 1e-12, "{ctx}");
            }
            (_, Some(t)) => panic!("{ctx}: missed, sampled overlap at {t}"),
            (_, None) => {}
        }
    }
    assert!(hits > 20, "{hits}");
}

#[test]
fn rotating_impacts_are_never_late_2d() {
    impacts_match_sampling::<DVec2>(8);
}

#[test]
fn rotating_impacts_are_never_late_3d() {
    impacts_match_sampling::<DVec3>(9);
}

#[test]
fn manifolds_have_one_point() {
    let mut rng = Pcg64::seed_from_u64(10);
    let mut seen = 0;
    for k in 0..60 {
        let (a, pa, b, pb) = pair::<DVec3>(k % 3, &mut rng, 0.8);
        let m = contact_manifold(&a, &pa, &b, &pb, 0.0, None);
        assert!(m.points().len() <= 1, "{m:?}");
        if let [p] = m.points() {
            seen += 1;
            assert!(p.separation <= 0.0 && m.normal.is_finite(), "{m:?}");
            assert!((m.normal.length() - 1.0).abs() < 1e-12, "{m:?}");
        }
    }
    assert!(seen > 20, "{seen}");
    let _ = DVec2::ZERO;
}
