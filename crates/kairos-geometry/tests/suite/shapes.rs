//! Properties of the convex shapes: support maximality in local and posed frames, bounding
//! boxes and radii, mass properties against closed forms and Monte Carlo integration, exact
//! and rotation integration (the typed errors of bad input: `shape_errors.rs`).
//!
//! Every reference here is computed independently of the library: extreme points and inside
//! tests from each shape's definition, inertia from textbook formulas or sampled points.

use std::f64::consts::PI;

use kairos_geometry::math::{DMat3, DQuat, DVec2, DVec3, Rot2, Rotation, Vector};
use kairos_geometry::shape::{
    ConvexPolygon, FeatureId, Pose, RigidMotion, Shape, ShapeError, SupportMap,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

// ---------------------------------------------------------------------------------------------
// Independent descriptions of the shapes

/// A random unit vector.
fn unit<V: Vector>(rng: &mut Pcg64) -> V {
    loop {
        let v = V::from_array3([0; 3].map(|_| rng.gen_range(-1.0..1.0)));
        let l = v.length();
        if l > 0.1 && l <= 1.0 {
            return v * (1.0 / l);
        }
    }
}

/// `v` without its y component.
fn radial<V: Vector>(v: V) -> V {
    v - V::unit(1) * v.comp(1)
}

/// Points of the shape among which every support value is attained: the vertices of a
/// polytope, dense samples of the curves and surfaces of a round shape.
fn extreme_points<V: Vector>(shape: &Shape<V>, rng: &mut Pcg64) -> Vec<V> {
    let n = 400;
    let y = V::unit(1);
    match shape {
        Shape::Ball(b) => (0..n).map(|_| unit::<V>(rng) * b.radius()).collect(),
        Shape::Capsule(c) => (0..n)
            .map(|i| {
                let end = if i % 2 == 0 { 1.0 } else { -1.0 } * c.half_height();
                y * end + unit::<V>(rng) * c.radius()
            })
            .collect(),
        Shape::Cylinder(c) => (0..n)
            .map(|i| {
                let cap = if i % 2 == 0 { 1.0 } else { -1.0 } * c.half_height();
                let u = radial(unit::<V>(rng));
                y * cap + u * (c.radius() / u.length())
            })
            .chain([y * c.half_height(), y * -c.half_height()])
            .collect(),
        Shape::Cone(c) => (0..n)
            .map(|_| {
                let u = radial(unit::<V>(rng));
                y * -c.half_height() + u * (c.radius() / u.length())
            })
            .chain([y * c.half_height()])
            .collect(),
        Shape::Cuboid(c) => (0..1 << V::DIM)
            .map(|bits: usize| {
                let h = c.half_extents();
                V::from_array3([0, 1, 2].map(|i| {
                    if bits >> i & 1 == 1 {
                        h.comp(i.min(V::DIM - 1))
                    } else {
                        -h.comp(i.min(V::DIM - 1))
                    }
                }))
            })
            .collect(),
        Shape::Segment(s) => s.vertices().to_vec(),
        Shape::Triangle(t) => t.vertices().to_vec(),
        Shape::ConvexPolygon(p) => p.vertices().to_vec(),
        Shape::Polyhedron(p) => p.vertices().to_vec(),
        Shape::Ellipsoid(e) => {
            let h = e.half_axes().to_array3();
            (0..n)
                .map(|_| {
                    // A point of the unit sphere, stretched: a point of the surface.
                    let u = unit::<V>(rng).to_array3();
                    V::from_array3([h[0] * u[0], h[1] * u[1], h[2] * u[2]])
                })
                .collect()
        }
    }
}

fn cross2<V: Vector>(a: V, b: V) -> f64 {
    a.comp(0) * b.comp(1) - a.comp(1) * b.comp(0)
}

/// True when `p` (local frame) is in the shape, within `tol`; polytopes: only for 2D areas
/// (segments and 3D triangles have no inside to sample).
fn contains<V: Vector>(shape: &Shape<V>, p: V, tol: f64) -> bool {
    let y = p.comp(1);
    match shape {
        Shape::Ball(b) => p.length() <= b.radius() + tol,
        Shape::Cuboid(c) => (0..V::DIM).all(|i| p.comp(i).abs() <= c.half_extents().comp(i) + tol),
        Shape::Capsule(c) => {
            let on_axis = V::unit(1) * y.clamp(-c.half_height(), c.half_height());
            (p - on_axis).length() <= c.radius() + tol
        }
        Shape::Cylinder(c) => {
            y.abs() <= c.half_height() + tol && radial(p).length() <= c.radius() + tol
        }
        Shape::Cone(c) => {
            let h = c.half_height();
            y.abs() <= h + tol && radial(p).length() <= c.radius() * (h - y) / (2.0 * h) + tol
        }
        Shape::Triangle(t) => {
            let [a, b, c] = t.vertices();
            let sign = cross2(b - a, c - a).signum();
            [(a, b), (b, c), (c, a)]
                .iter()
                .all(|&(u, w)| sign * cross2(w - u, p - u) >= -tol)
        }
        Shape::ConvexPolygon(poly) => {
            let v = poly.vertices();
            (0..v.len()).all(|i| cross2(v[(i + 1) % v.len()] - v[i], p - v[i]) >= -tol)
        }
        Shape::Segment(s) => {
            let [a, b] = s.vertices();
            let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            (p - (a + (b - a) * t)).length() <= tol
        }
        Shape::Polyhedron(h) => h
            .faces()
            .all(|(lp, n)| n.dot(p - h.vertices()[lp[0] as usize]) <= tol),
        Shape::Ellipsoid(e) => {
            let h = e.half_axes();
            let level: f64 = (0..V::DIM).map(|i| (p.comp(i) / h.comp(i)).powi(2)).sum();
            let least = (0..V::DIM).map(|i| h.comp(i)).fold(f64::MAX, f64::min);
            level.sqrt() <= 1.0 + tol / least
        }
    }
}

/// True for the shapes whose support points must be one of [`extreme_points`] exactly.
fn is_polytope<V: Vector>(shape: &Shape<V>) -> bool {
    matches!(
        shape,
        Shape::Cuboid(_)
            | Shape::Segment(_)
            | Shape::Triangle(_)
            | Shape::ConvexPolygon(_)
            | Shape::Polyhedron(_)
    )
}

// ---------------------------------------------------------------------------------------------
// Strategies

fn v2(r: f64) -> impl Strategy<Value = DVec2> {
    (-r..r, -r..r).prop_map(|(x, y)| DVec2::new(x, y))
}
fn v3(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}
fn size() -> impl Strategy<Value = f64> {
    prop_oneof![0.01..5.0f64, 1e-3..1e-2f64, 50.0..200.0f64]
}

fn shape2() -> impl Strategy<Value = Shape<DVec2>> {
    prop_oneof![
        size().prop_map(|r| Shape::ball(r).unwrap()),
        (size(), size()).prop_map(|(a, b)| Shape::cuboid(DVec2::new(a, b)).unwrap()),
        (0.0..5.0f64, size()).prop_map(|(h, r)| Shape::capsule(h, r).unwrap()),
        (v2(5.0), v2(5.0)).prop_filter_map("coincident", |(a, b)| Shape::segment(a, b).ok()),
        (v2(5.0), v2(5.0), v2(5.0))
            .prop_filter_map("degenerate", |(a, b, c)| Shape::triangle(a, b, c).ok()),
        prop::collection::vec(v2(5.0), 3..30)
            .prop_filter_map("collinear", |p| Shape::convex_hull(&p).ok()),
        (size(), size()).prop_map(|(a, b)| Shape::ellipsoid(DVec2::new(a, b)).unwrap()),
    ]
}

fn shape3() -> impl Strategy<Value = Shape<DVec3>> {
    prop_oneof![
        size().prop_map(|r| Shape::ball(r).unwrap()),
        (size(), size(), size()).prop_map(|(a, b, c)| Shape::cuboid(DVec3::new(a, b, c)).unwrap()),
        (0.0..5.0f64, size()).prop_map(|(h, r)| Shape::capsule(h, r).unwrap()),
        (v3(5.0), v3(5.0)).prop_filter_map("coincident", |(a, b)| Shape::segment(a, b).ok()),
        (v3(5.0), v3(5.0), v3(5.0))
            .prop_filter_map("degenerate", |(a, b, c)| Shape::triangle(a, b, c).ok()),
        (size(), size()).prop_map(|(h, r)| Shape::cylinder(h, r).unwrap()),
        (size(), size()).prop_map(|(h, r)| Shape::cone(h, r).unwrap()),
        (size(), size(), size())
            .prop_map(|(a, b, c)| Shape::ellipsoid(DVec3::new(a, b, c)).unwrap()),
    ]
}

/// Directions: random, tiny, huge, zero and along the axes (the ties).
fn dir2() -> impl Strategy<Value = DVec2> {
    prop_oneof![
        4 => v2(1.0),
        1 => v2(1e-300),
        1 => v2(1e300),
        1 => Just(DVec2::ZERO),
        1 => v2(1.0).prop_map(|v| DVec2::new(f64::NAN, v.y)),
        1 => (0..4usize).prop_map(|i| [DVec2::X, DVec2::Y, -DVec2::X, -DVec2::Y][i]),
    ]
}
fn dir3() -> impl Strategy<Value = DVec3> {
    prop_oneof![
        4 => v3(1.0),
        1 => v3(1e-300),
        1 => v3(1e300),
        1 => Just(DVec3::ZERO),
        1 => v3(1.0).prop_map(|v| DVec3::new(v.x, f64::NAN, v.z)),
        1 => (0..6usize).prop_map(|i| [DVec3::X, DVec3::Y, DVec3::Z, -DVec3::X, -DVec3::Y, -DVec3::Z][i]),
    ]
}

fn pose2() -> impl Strategy<Value = Pose<DVec2>> {
    (v2(100.0), -10.0..10.0f64).prop_map(|(x, a)| Pose::new(x, Rot2::from_angle(a)))
}
fn pose3() -> impl Strategy<Value = Pose<DVec3>> {
    (v3(100.0), v3(1.0), -1.0..1.0f64).prop_filter_map("zero quaternion", |(x, q, w)| {
        DQuat::try_from_slice(&[w, q.x, q.y, q.z])
            .ok()
            .map(|r| Pose::new(x, r))
    })
}

// ---------------------------------------------------------------------------------------------
// Support, bounds

fn check_support<V: Vector>(
    shape: &Shape<V>,
    pose: &Pose<V>,
    d: V,
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let points = extreme_points(shape, &mut rng);
    let r = shape.bounding_radius();
    let tol = 1e-12 * (1.0 + r + pose.position.length());
    // Maximality is checked along the unit direction, so huge and tiny d are comparable.
    let du = if d.is_finite() && d.max_abs() > 0.0 {
        let m = d.max_abs();
        let s = V::from_array3(d.to_array3().map(|c| c / m));
        s * (1.0 / s.length())
    } else {
        V::ZERO
    };

    // Local frame.
    let (s, feature) = shape.local_support_feature(d);
    prop_assert!(s.is_finite(), "{s:?}");
    prop_assert!(contains(shape, s, tol), "{s:?} not in {shape:?}");
    for &p in &points {
        prop_assert!(
            du.dot(s) >= du.dot(p) - tol,
            "{s:?} below {p:?} along {d:?}"
        );
    }
    if is_polytope(shape) {
        prop_assert!(points.contains(&s));
        let FeatureId::Vertex(i) = feature else {
            return Err(TestCaseError::fail(format!("{feature:?}")));
        };
        if !matches!(shape, Shape::Cuboid(_)) {
            prop_assert_eq!(points[i as usize], s);
        }
    }

    // Posed frame: R S(R^T d) + x, maximal over the posed points.
    let ps = shape.support(pose, d);
    let expect = pose
        .rotation
        .rotate(shape.local_support(pose.rotation.inverse_rotate(d)))
        + pose.position;
    prop_assert_eq!(ps, expect);
    prop_assert_eq!(shape.support_feature(pose, d).0, ps);
    let posed: Vec<V> = points.iter().map(|&p| pose.transform_point(p)).collect();
    for &p in &posed {
        prop_assert!(du.dot(ps) >= du.dot(p) - tol);
    }

    // The box holds every point and the support, and is tight for polytopes.
    let aabb = shape.aabb(pose);
    let grown = aabb.expanded(tol);
    prop_assert!(grown.min.all_le(ps) && ps.all_le(grown.max));
    for &p in &posed {
        prop_assert!(grown.min.all_le(p) && p.all_le(grown.max));
    }
    if is_polytope(shape) {
        let lo = posed.iter().fold(V::splat(f64::INFINITY), |m, &p| m.min(p));
        let hi = posed
            .iter()
            .fold(V::splat(f64::NEG_INFINITY), |m, &p| m.max(p));
        prop_assert!((lo - aabb.min).max_abs() <= tol && (hi - aabb.max).max_abs() <= tol);
    }

    // Bounding radius: about the origin and about a random centre, over the sampled points;
    // exact for polytopes.
    let c = unit::<V>(&mut rng) * (r * rng.gen_range(0.0..2.0));
    for centre in [V::ZERO, c] {
        let rc = shape.bounding_radius_about(centre);
        let far = points
            .iter()
            .map(|&p| (p - centre).length())
            .fold(0.0, f64::max);
        prop_assert!(rc >= far - tol, "{rc} < {far}");
        prop_assert!(rc <= centre.length() + r + tol);
        if is_polytope(shape) {
            prop_assert!(rc <= far + tol);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn support_is_maximal_2d(shape in shape2(), pose in pose2(), d in dir2(), seed in any::<u64>()) {
        check_support(&shape, &pose, d, seed)?;
    }

    #[test]
    fn support_is_maximal_3d(shape in shape3(), pose in pose3(), d in dir3(), seed in any::<u64>()) {
        check_support(&shape, &pose, d, seed)?;
    }

    #[test]
    fn hull_holds_every_point(points in prop::collection::vec(v2(10.0), 3..60)) {
        let Ok(hull) = ConvexPolygon::from_points(&points) else {
            // Refused only when the points have no area.
            let a = points[0];
            let far = points.iter().map(|&p| (p - a).length()).fold(0.0, f64::max);
            let wide = points.iter().map(|&p| cross2(points[1] - a, p - a).abs()).fold(0.0, f64::max);
            prop_assert!(far == 0.0 || wide <= 1e-9 * far * far);
            return Ok(());
        };
        let v = hull.vertices();
        for &p in &points {
            let inside = (0..v.len()).all(|i| {
                let e = v[(i + 1) % v.len()] - v[i];
                cross2(e, p - v[i]) >= -1e-9 * e.length()
            });
            prop_assert!(inside, "{p:?} outside {v:?}");
        }
        for q in v {
            prop_assert!(points.contains(q));
        }
        // Its vertices in order are a valid polygon.
        prop_assert_eq!(ConvexPolygon::new(v.to_vec()).unwrap(), hull.clone());
    }
}

#[test]
fn support_features_name_vertices() {
    let cube = Shape::<DVec3>::cuboid(DVec3::new(1.0, 2.0, 3.0)).unwrap();
    assert_eq!(
        cube.local_support_feature(DVec3::new(1.0, -1.0, 0.0)),
        (DVec3::new(1.0, -2.0, 3.0), FeatureId::Vertex(0b101))
    );
    let cone = Shape::<DVec3>::cone(1.0, 0.5).unwrap();
    assert_eq!(
        cone.local_support_feature(DVec3::Y),
        (DVec3::Y, FeatureId::Vertex(0))
    );
    assert_eq!(
        cone.local_support_feature(DVec3::ZERO).1,
        FeatureId::Vertex(0)
    );
    assert_eq!(
        cone.local_support_feature(-DVec3::Y),
        (-DVec3::Y, FeatureId::None)
    );
    let (rim, f) = cone.local_support_feature(DVec3::new(1.0, -0.1, 0.0));
    assert_eq!((rim, f), (DVec3::new(0.5, -1.0, 0.0), FeatureId::None));
    // Ties go to the lowest index.
    let tri =
        Shape::<DVec2>::triangle(DVec2::new(1.0, 0.0), DVec2::new(1.0, 1.0), DVec2::ZERO).unwrap();
    assert_eq!(tri.local_support_feature(DVec2::X).1, FeatureId::Vertex(0));
    assert_eq!(
        tri.local_support_feature(DVec2::ZERO).1,
        FeatureId::Vertex(0)
    );
    let ball = Shape::<DVec2>::ball(2.0).unwrap();
    assert_eq!(
        ball.local_support_feature(DVec2::ZERO),
        (DVec2::new(0.0, 2.0), FeatureId::None)
    );
}

// ---------------------------------------------------------------------------------------------
// Mass properties

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

fn assert_mat_close(a: DMat3, b: DMat3, rel: f64) {
    let scale = b.to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let err = (a - b)
        .to_cols_array()
        .iter()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(err <= rel * scale, "{a:?} vs {b:?}");
}

#[test]
fn mass_properties_match_closed_forms_2d() {
    let rho = 2.5;
    let (r, h, w) = (0.7, 1.3, 0.4);

    let mp = Shape::<DVec2>::ball(r)
        .unwrap()
        .mass_properties(rho)
        .unwrap();
    let m = rho * PI * r * r;
    assert!(close(mp.mass, m, 1e-14) && close(mp.inertia, m * r * r / 2.0, 1e-14));

    let mp = Shape::<DVec2>::cuboid(DVec2::new(w, h))
        .unwrap()
        .mass_properties(rho)
        .unwrap();
    let m = rho * 4.0 * w * h;
    assert!(close(mp.mass, m, 1e-14));
    assert!(close(
        mp.inertia,
        m * ((2.0 * w).powi(2) + (2.0 * h).powi(2)) / 12.0,
        1e-14
    ));

    // Stadium: a 2r x 2h rectangle and a disc split in two, each half's centroid 4r/3π out.
    let mp = Shape::<DVec2>::capsule(h, r)
        .unwrap()
        .mass_properties(rho)
        .unwrap();
    let (m_rect, m_disc) = (rho * 4.0 * r * h, rho * PI * r * r);
    let c = 4.0 * r / (3.0 * PI);
    let i = m_rect * (4.0 * r * r + 4.0 * h * h) / 12.0
        + m_disc * (r * r / 2.0 - c * c)
        + m_disc * (h + c).powi(2);
    assert!(close(mp.mass, m_rect + m_disc, 1e-14) && close(mp.inertia, i, 1e-13));
    assert_eq!(mp.centre_of_mass, DVec2::ZERO);

    // Triangle: m (a² + b² + c²) / 36 about the centroid.
    let (a, b, cc) = (
        DVec2::new(0.3, -1.0),
        DVec2::new(2.0, 0.5),
        DVec2::new(-0.5, 1.5),
    );
    let mp = Shape::triangle(a, b, cc)
        .unwrap()
        .mass_properties(rho)
        .unwrap();
    let area = 0.5 * cross2(b - a, cc - a).abs();
    let sides = (b - a).length_squared() + (cc - b).length_squared() + (a - cc).length_squared();
    assert!(close(mp.mass, rho * area, 1e-14));
    assert!(close(mp.inertia, rho * area * sides / 36.0, 1e-13));
    assert!((mp.centre_of_mass - (a + b + cc) / 3.0).length() < 1e-15);

    // Regular n-gons of circumradius R about their centre: m R² (1 + 2 cos²(π/n)) / 6, area
    // n R² sin(2π/n) / 2; placed off the origin and rotated.
    for n in [3usize, 4, 6, 17] {
        let (big_r, centre) = (1.7, DVec2::new(30.0, -4.0));
        let vertices: Vec<DVec2> = (0..n)
            .map(|k| centre + DVec2::from_angle(0.3 + 2.0 * PI * k as f64 / n as f64) * big_r)
            .collect();
        let mp = Shape::convex_polygon(vertices)
            .unwrap()
            .mass_properties(rho)
            .unwrap();
        let m = rho * n as f64 * big_r * big_r * (2.0 * PI / n as f64).sin() / 2.0;
        assert!(close(mp.mass, m, 1e-13), "{n}");
        let i = m * big_r * big_r * (1.0 + 2.0 * (PI / n as f64).cos().powi(2)) / 6.0;
        assert!(close(mp.inertia, i, 1e-11), "{n}: {} vs {i}", mp.inertia);
        assert!((mp.centre_of_mass - centre).length() < 1e-12);
    }
}

#[test]
fn mass_properties_match_closed_forms_3d() {
    let rho = 0.8;
    let (r, h) = (0.6, 1.1);
    let diag = |x: f64, y: f64, z: f64| DMat3::from_diagonal(DVec3::new(x, y, z));

    let mp = Shape::<DVec3>::ball(r)
        .unwrap()
        .mass_properties(rho)
        .unwrap();
    let m = rho * 4.0 / 3.0 * PI * r.powi(3);
    assert!(close(mp.mass, m, 1e-14));
    let i = 0.4 * m * r * r;
    assert_mat_close(mp.inertia, diag(i, i, i), 1e-14);

    let (a, b, c) = (0.5, 1.5, 2.5);
    let mp = Shape::cuboid(DVec3::new(a, b, c) / 2.0)
        .unwrap()
        .mass_properties(rho)
        .unwrap();
    let m = rho * a * b * c;
    assert!(close(mp.mass, m, 1e-14));
    assert_mat_close(
        mp.inertia,
        diag(
            m * (b * b + c * c) / 12.0,
            m * (a * a + c * c) / 12.0,
            m * (a * a + b * b) / 12.0,
        ),
        1e-14,
    );

    // Cylinder of height H = 2h: axial m r²/2, across m (3r² + H²)/12.
    let mp = Shape::<DVec3>::cylinder(h, r)
        .unwrap()
        .mass_properties(rho)
        .unwrap();
    let big_h = 2.0 * h;
    let m = rho * PI * r * r * big_h;
    let across = m * (3.0 * r * r + big_h * big_h) / 12.0;
    assert!(close(mp.mass, m, 1e-14));
    assert_mat_close(mp.inertia, diag(across, m * r * r / 2.0, across), 1e-14);

    // Cone: centre of mass H/4 above the base, axial 3 m r²/10, across m (3r²/20 + 3H²/80).
    let mp = Shape::<DVec3>::cone(h, r)
        .unwrap()
        .mass_properties(rho)
        .unwrap();
    let m = rho * PI * r * r * big_h / 3.0;
    let across = m * (3.0 * r * r / 20.0 + 3.0 * big_h * big_h / 80.0);
    assert!(close(mp.mass, m, 1e-14));
    assert!((mp.centre_of_mass - DVec3::new(0.0, -h + big_h / 4.0, 0.0)).length() < 1e-15);
    assert_mat_close(mp.inertia, diag(across, 0.3 * m * r * r, across), 1e-14);

    // Capsule: a cylinder and two hemispheres (each 2πr³/3, centroid 3r/8 from its flat side).
    let mp = Shape::<DVec3>::capsule(h, r)
        .unwrap()
        .mass_properties(rho)
        .unwrap();
    let (m_cyl, m_hemi) = (rho * PI * r * r * big_h, rho * 2.0 / 3.0 * PI * r.powi(3));
    let axial = m_cyl * r * r / 2.0 + 2.0 * m_hemi * 0.4 * r * r;
    let across = m_cyl * (big_h * big_h / 12.0 + r * r / 4.0)
        + 2.0 * m_hemi * (0.4 * r * r + big_h * big_h / 4.0 + 3.0 * big_h * r / 8.0);
    assert!(close(mp.mass, m_cyl + 2.0 * m_hemi, 1e-14));
    assert_mat_close(mp.inertia, diag(across, axial, across), 1e-14);
}

/// Mass, centre of mass and the second-moment matrix about it, by sampling `n` uniform points
/// of the local bounding box and keeping those inside.
fn monte_carlo<V: Vector>(
    shape: &Shape<V>,
    density: f64,
    n: usize,
    seed: u64,
) -> (f64, V, [[f64; 3]; 3]) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let bb = shape.aabb(&Pose::IDENTITY);
    let ext = bb.max - bb.min;
    let box_measure = (0..V::DIM).map(|i| ext.comp(i)).product::<f64>();
    let inside: Vec<V> = (0..n)
        .map(|_| bb.min + V::from_array3([0; 3].map(|_| rng.gen_range(0.0..1.0))).mul_each(ext))
        .filter(|&p| contains(shape, p, 0.0))
        .collect();
    let mass = density * box_measure * inside.len() as f64 / n as f64;
    let com = inside.iter().fold(V::ZERO, |s, &p| s + p) * (1.0 / inside.len() as f64);
    let mut c = [[0.0; 3]; 3];
    for &p in &inside {
        let q = (p - com).to_array3();
        for (i, row) in c.iter_mut().enumerate() {
            for (j, cij) in row.iter_mut().enumerate() {
                *cij += q[i] * q[j];
            }
        }
    }
    let per_point = mass / inside.len() as f64;
    (mass, com, c.map(|row| row.map(|x| x * per_point)))
}

/// Component-wise product, for sampling a box.
trait MulEach {
    fn mul_each(self, other: Self) -> Self;
}
impl<V: Vector> MulEach for V {
    fn mul_each(self, other: V) -> V {
        let (a, b) = (self.to_array3(), other.to_array3());
        V::from_array3([a[0] * b[0], a[1] * b[1], a[2] * b[2]])
    }
}

#[test]
fn mass_properties_match_monte_carlo() {
    let n = 2_000_000;
    let rho = 1.7;
    let report = |name: &str, mass_err: f64, com_err: f64, inertia_err: f64| {
        println!(
            "{name:>16}: mass {mass_err:.2e}  centre {com_err:.2e}  inertia {inertia_err:.2e}"
        );
        assert!(
            mass_err < 0.01 && com_err < 0.01 && inertia_err < 0.01,
            "{name}"
        );
    };

    let shapes2: Vec<Shape<DVec2>> = vec![
        Shape::ball(0.8).unwrap(),
        Shape::cuboid(DVec2::new(0.5, 1.2)).unwrap(),
        Shape::capsule(0.9, 0.4).unwrap(),
        Shape::triangle(
            DVec2::new(0.3, -1.0),
            DVec2::new(2.0, 0.5),
            DVec2::new(-0.5, 1.5),
        )
        .unwrap(),
        Shape::convex_hull(&[
            DVec2::new(1.0, 0.2),
            DVec2::new(2.0, 1.5),
            DVec2::new(0.5, 2.5),
            DVec2::new(-1.2, 1.0),
            DVec2::new(-0.4, -0.8),
            DVec2::new(0.5, 0.5),
        ])
        .unwrap(),
    ];
    for (k, shape) in shapes2.iter().enumerate() {
        let mp = shape.mass_properties(rho).unwrap();
        let (m, com, c) = monte_carlo(shape, rho, n, k as u64);
        let size = shape.bounding_radius_about(mp.centre_of_mass);
        report(
            shape.name(),
            (m - mp.mass).abs() / mp.mass,
            (com - mp.centre_of_mass).length() / size,
            (c[0][0] + c[1][1] - mp.inertia).abs() / mp.inertia,
        );
    }

    let shapes3: Vec<Shape<DVec3>> = vec![
        Shape::ball(0.8).unwrap(),
        Shape::cuboid(DVec3::new(0.5, 1.2, 0.7)).unwrap(),
        Shape::capsule(0.9, 0.4).unwrap(),
        Shape::cylinder(0.6, 0.9).unwrap(),
        Shape::cone(0.8, 0.5).unwrap(),
    ];
    for (k, shape) in shapes3.iter().enumerate() {
        let mp = shape.mass_properties(rho).unwrap();
        let (m, com, c) = monte_carlo(shape, rho, n, 100 + k as u64);
        let size = shape.bounding_radius_about(mp.centre_of_mass);
        // I = tr(C) 1 - C.
        let tr = c[0][0] + c[1][1] + c[2][2];
        let sampled = DMat3::from_cols_array_2d(&c.map(|row| row.map(|x| -x)))
            + DMat3::from_diagonal(DVec3::splat(tr));
        let scale = mp
            .inertia
            .to_cols_array()
            .iter()
            .fold(0.0f64, |m, x| m.max(x.abs()));
        let err = (sampled - mp.inertia)
            .to_cols_array()
            .iter()
            .fold(0.0f64, |m, x| m.max(x.abs()));
        report(
            shape.name(),
            (m - mp.mass).abs() / mp.mass,
            (com - mp.centre_of_mass).length() / size,
            err / scale,
        );
    }
}

#[test]
fn massless_shapes_and_bad_densities_are_refused() {
    let seg = Shape::<DVec2>::segment(DVec2::ZERO, DVec2::X).unwrap();
    assert_eq!(
        seg.mass_properties(1.0),
        Err(ShapeError::Massless {
            shape: "segment",
            measure: "area"
        })
    );
    let tri = Shape::<DVec3>::triangle(DVec3::ZERO, DVec3::X, DVec3::Y).unwrap();
    assert_eq!(
        tri.mass_properties(1.0),
        Err(ShapeError::Massless {
            shape: "triangle",
            measure: "volume"
        })
    );
    let ball = Shape::<DVec3>::ball(1.0).unwrap();
    for rho in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            ball.mass_properties(rho),
            Err(ShapeError::InvalidDensity(_))
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// Rotations and motions

fn quat_close(a: DQuat, b: DQuat, tol: f64) -> bool {
    // q and -q are the same rotation.
    (a - b).length().min((a + b).length()) <= tol
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn motion_2d_composes(x in v2(10.0), a in -10.0..10.0f64, v in v2(10.0), w in -20.0..20.0f64,
                          t0 in -5.0..5.0f64, t1 in -5.0..5.0f64, t2 in -5.0..5.0f64) {
        let m = RigidMotion::new(t0, Pose::new(x, Rot2::from_angle(a)), v, w).unwrap();
        let direct = m.pose_at(t0 + t1 + t2);
        let stepped = m.advanced_to(t0 + t1).pose_at(t0 + t1 + t2);
        prop_assert!((direct.position - stepped.position).length() <= 1e-12 * (1.0 + x.length() + 20.0 * v.length()));
        let d = (direct.rotation.angle() - stepped.rotation.angle()).abs();
        prop_assert!(d <= 1e-12 * (1.0 + a.abs() + 20.0 * w.abs()));
        // The rotation turns by exactly ω t.
        let r = direct.rotation.compose(m.pose.rotation.inverse());
        let turned = r.rotate(DVec2::X);
        let expect = DVec2::from_angle(w * (t1 + t2));
        prop_assert!((turned - expect).length() <= 1e-12 * (1.0 + a.abs() + 20.0 * w.abs()));
    }

    #[test]
    fn motion_3d_composes(x in v3(10.0), q in pose3(), v in v3(10.0), w in v3(10.0),
                          t0 in -5.0..5.0f64, t1 in -5.0..5.0f64, t2 in -5.0..5.0f64) {
        let m = RigidMotion::new(t0, Pose::new(x, q.rotation), v, w).unwrap();
        let direct = m.pose_at(t0 + t1 + t2);
        let stepped = m.advanced_to(t0 + t1).pose_at(t0 + t1 + t2);
        prop_assert!((direct.position - stepped.position).length() <= 1e-12 * (1.0 + x.length() + 20.0 * v.length()));
        prop_assert!(quat_close(direct.rotation, stepped.rotation, 1e-12 * (1.0 + 20.0 * w.length())));
        prop_assert!((direct.rotation.length() - 1.0).abs() < 1e-15);
        // The axis is fixed and a perpendicular vector turns by |ω| t about it.
        let dt = t1 + t2;
        let r = direct.rotation * m.pose.rotation.conjugate();
        let tol = 1e-12 * (1.0 + 20.0 * w.length());
        prop_assert!((r * w - w).length() <= tol * w.length());
        if w.length() > 1e-3 {
            let axis = w.normalize();
            let u = axis.any_orthonormal_vector();
            let expect = DQuat::from_axis_angle(axis, w.length() * dt) * u;
            prop_assert!((r * u - expect).length() <= tol);
        }
    }

    #[test]
    fn point_velocity_is_the_derivative(q in pose3(), w in v3(5.0), r in v3(3.0)) {
        let m = RigidMotion::new(0.0, q, DVec3::new(1.0, -2.0, 0.5), w).unwrap();
        let eps = 1e-6;
        let at = |t: f64| m.pose_at(t).transform_point(q.inverse_transform_point(r));
        let fd = (at(eps) - at(-eps)) / (2.0 * eps);
        prop_assert!((fd - m.velocity_at(r - q.position)).length() <= 1e-6 * (1.0 + w.length() * r.length()).powi(2));
    }
}

#[test]
fn exponential_map_matches_integration() {
    // RK4 on q' = ½ ω q, 20000 steps, against the closed form.
    let omega = DVec3::new(0.7, -1.9, 2.4);
    let q0 = DQuat::try_from_slice(&[0.3, -0.5, 0.2, 0.8]).unwrap();
    let t = 3.0;
    let f = |q: DQuat| DQuat::from_xyzw(omega.x, omega.y, omega.z, 0.0) * q * 0.5;
    let steps = 20_000;
    let h = t / steps as f64;
    let mut q = q0;
    for _ in 0..steps {
        let k1 = f(q);
        let k2 = f(q + k1 * (h / 2.0));
        let k3 = f(q + k2 * (h / 2.0));
        let k4 = f(q + k3 * h);
        q += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
    }
    let exact = DVec3::integrate_rotation(q0, omega, t);
    assert!(quat_close(exact, q, 1e-12), "{exact:?} vs {q:?}");
    // 2D: the angle grows linearly.
    let r = DVec2::integrate_rotation(Rot2::from_angle(0.4), -1.5, t);
    assert_eq!(r.angle(), 0.4 - 1.5 * t);
}

#[test]
fn rotation_survives_zero_tiny_and_huge_rates() {
    let q0 = DQuat::try_from_slice(&[0.3, -0.5, 0.2, 0.8]).unwrap();
    let pose = Pose::new(DVec3::new(1.0, 2.0, 3.0), q0);
    let rest = RigidMotion::at_rest(2.0, pose);
    for t in [-1e300, -1.0, 0.0, 1e-300, 5.0, 1e300] {
        let p = rest.pose_at(t);
        assert!(quat_close(p.rotation, q0, 1e-15) && p.position == pose.position);
    }
    for w in [1e-300, 1e-200, 1e-20, 1e-9, 1e-4, 1.0, 1e6] {
        for t in [1e-300, 1e-3, 1.0, 1e9, 1e15, 1e300] {
            let q = DVec3::integrate_rotation(q0, DVec3::new(w, -w, 0.5 * w), t);
            assert!(q.is_finite() && (q.length() - 1.0).abs() < 1e-15, "{w} {t}");
            let r = DVec2::integrate_rotation(Rot2::from_angle(1.0), w, t);
            assert!(r.is_finite() && r.rotate(DVec2::X).is_finite());
        }
        // Tiny rotations agree with the first-order step.
        let theta = DVec3::new(w, -w, 0.5 * w) * 1e-3;
        if theta.length() < 1e-6 {
            let q = DVec3::integrate_rotation(DQuat::IDENTITY, theta * 1e3, 1e-3);
            assert!((q.xyz() - theta * 0.5).length() <= 1e-12 * theta.length());
        }
    }
    // Against glam's axis-angle quaternion over many magnitudes, across the series switch at
    // φ = 1e-4.
    let axis = DVec3::new(2.0, -1.0, 0.5).normalize();
    for k in -80..=20 {
        let angle = 1.5f64.powi(k) * 1e-4;
        let q = DVec3::integrate_rotation(DQuat::IDENTITY, axis * angle, 1.0);
        let r = DVec3::integrate_rotation(DQuat::IDENTITY, axis, angle);
        let expect = DQuat::from_axis_angle(axis, angle);
        assert!(
            quat_close(q, expect, 1e-15) && quat_close(r, expect, 1e-15),
            "{angle}: {q:?} vs {expect:?}"
        );
        let r2 = DVec2::integrate_rotation(Rot2::IDENTITY, 1.0, angle);
        assert!((r2.rotate(DVec2::X) - DVec2::from_angle(angle)).length() <= 1e-15);
        assert!((r2.inverse_rotate(r2.rotate(DVec2::Y)) - DVec2::Y).length() <= 1e-15);
        assert!((r2.inverse_rotate(DVec2::X) - DVec2::from_angle(-angle)).length() <= 1e-15);
    }
    // Beyond f64 the rotation is meaningless, but not NaN.
    let q = DVec3::integrate_rotation(q0, DVec3::splat(1e300), 1e300);
    assert_eq!(q, q0);
    assert_eq!(
        DVec2::integrate_rotation(Rot2::from_angle(1.0), 1e300, 1e300),
        Rot2::from_angle(1.0)
    );
}

#[test]
fn pose_composes_and_inverts() {
    let a = Pose::new(DVec3::new(1.0, -2.0, 0.5), DQuat::from_rotation_x(0.7));
    let b = Pose::new(DVec3::new(-0.3, 4.0, 2.0), DQuat::from_rotation_y(-1.1));
    let p = DVec3::new(0.2, 0.9, -1.4);
    let ab = a.compose(&b);
    assert!((ab.transform_point(p) - a.transform_point(b.transform_point(p))).length() < 1e-14);
    assert!((a.inverse().transform_point(a.transform_point(p)) - p).length() < 1e-14);
    assert!((a.inverse_transform_point(a.transform_point(p)) - p).length() < 1e-14);
    let a2 = Pose::new(DVec2::new(1.0, -2.0), Rot2::from_angle(0.7));
    let b2 = Pose::new(DVec2::new(-0.3, 4.0), Rot2::from_angle(-1.1));
    let p2 = DVec2::new(0.2, 0.9);
    assert!(
        (a2.compose(&b2).transform_point(p2) - a2.transform_point(b2.transform_point(p2))).length()
            < 1e-14
    );
    assert!((a2.inverse().transform_point(a2.transform_point(p2)) - p2).length() < 1e-14);
    assert_eq!(Pose::<DVec2>::default(), Pose::IDENTITY);
}
