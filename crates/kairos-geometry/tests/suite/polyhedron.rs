//! The convex polyhedron: quickhull against brute-force hull checks and parry's hull, mass
//! properties against closed forms and parry, degenerate inputs, and the support function
//! against a scan of the vertices.

use std::collections::BTreeSet;

use kairos_geometry::math::{DMat3, DVec2, DVec3};
use kairos_geometry::query::{distance, GjkOptions};
use kairos_geometry::shape::{
    polyhedron::HILL_CLIMB_THRESHOLD, ConvexPolyhedron, FeatureId, Pose, Shape, ShapeError,
    SupportMap,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn hull(points: &[DVec3]) -> ConvexPolyhedron<DVec3> {
    ConvexPolyhedron::from_points(points).unwrap()
}

fn random_unit(rng: &mut Pcg64) -> DVec3 {
    loop {
        let v = DVec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        );
        let l = v.length();
        if l > 0.1 && l <= 1.0 {
            return v / l;
        }
    }
}

/// A random cloud of `n` points of one of several distributions.
fn cloud(rng: &mut Pcg64, n: usize, kind: usize) -> Vec<DVec3> {
    (0..n)
        .map(|_| match kind % 4 {
            // In a box.
            0 => DVec3::new(
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-2.0..2.0),
                rng.gen_range(-0.5..0.5),
            ),
            // On a sphere, far from the origin.
            1 => random_unit(rng) * 3.0 + DVec3::new(100.0, -50.0, 7.0),
            // In a ball, squashed.
            2 => random_unit(rng) * rng.gen_range(0.0f64..1.0).cbrt() * DVec3::new(1.0, 0.2, 1.0),
            // Integer grid points in a cube: many coplanar, collinear and duplicate points.
            _ => DVec3::new(
                rng.gen_range(0..4) as f64,
                rng.gen_range(0..4) as f64,
                rng.gen_range(0..4) as f64,
            ),
        })
        .collect()
}

fn diagonal(points: &[DVec3]) -> f64 {
    let lo = points.iter().fold(DVec3::INFINITY, |a, &b| a.min(b));
    let hi = points.iter().fold(DVec3::NEG_INFINITY, |a, &b| a.max(b));
    (hi - lo).length()
}

/// Checks everything a hull of `points` must satisfy, independently of how it was built.
fn check_hull(points: &[DVec3], h: &ConvexPolyhedron<DVec3>) {
    let size = diagonal(points);
    let tol = 1e-9 * size;
    let v = h.vertices();
    // Every vertex is an input point.
    for p in v {
        assert!(points.contains(p), "{p:?} is not an input point");
    }
    // Faces: planar, convex, counter-clockwise about their outward normal; every point behind.
    let f = h.face_count();
    for i in 0..f {
        let (lp, n) = (h.face_vertices(i), h.face_normal(i));
        assert!(lp.len() >= 3);
        assert!((n.length() - 1.0).abs() < 1e-12);
        let o = v[lp[0] as usize];
        for &k in lp {
            assert!(n.dot(v[k as usize] - o).abs() <= tol, "face {i} not planar");
        }
        for k in 0..lp.len() {
            let [a, b, c] = [0, 1, 2].map(|j| v[lp[(k + j) % lp.len()] as usize]);
            assert!(
                (b - a).cross(c - b).dot(n) > 0.0,
                "face {i} does not turn left at {k}"
            );
        }
        for &p in points {
            assert!(n.dot(p - o) <= tol, "a point is outside face {i}");
        }
        // Every vertex not on the face is behind it by more than rounding (no coplanar faces
        // left unmerged; the hull tolerance is 1e-11 of the diagonal).
        let on: BTreeSet<u32> = lp.iter().copied().collect();
        for (k, &p) in v.iter().enumerate() {
            if !on.contains(&(k as u32)) {
                assert!(
                    n.dot(p - o) < -1e-12 * size,
                    "vertex {k} on face {i}'s plane"
                );
            }
        }
    }
    // Edges: each undirected edge once, the two faces run it in opposite directions.
    let e = h.edges();
    for edge in e {
        let [a, b] = edge.vertices;
        assert!(a < b);
        let runs = |face: u32, x: u32, y: u32| {
            let lp = h.face_vertices(face as usize);
            (0..lp.len()).any(|k| lp[k] == x && lp[(k + 1) % lp.len()] == y)
        };
        assert!(runs(edge.faces[0], a, b) && runs(edge.faces[1], b, a));
        assert!(h.vertex_neighbours(a as usize).contains(&b));
        assert!(h.vertex_neighbours(b as usize).contains(&a));
    }
    let sides: usize = (0..f).map(|i| h.face_vertices(i).len()).sum();
    assert_eq!(2 * e.len(), sides);
    // Euler.
    assert_eq!(v.len() + f, e.len() + 2, "V − E + F ≠ 2");
    // Every vertex is a corner: on at least three faces.
    for k in 0..v.len() {
        let faces = (0..f)
            .filter(|&i| h.face_vertices(i).contains(&(k as u32)))
            .count();
        assert!(faces >= 3, "vertex {k} is on {faces} faces");
    }
}

fn parry_point(p: DVec3) -> parry3d_f64::math::Vector {
    parry3d_f64::math::Vector::new(p.x, p.y, p.z)
}

fn key(p: [f64; 3]) -> [u64; 3] {
    p.map(f64::to_bits)
}

#[test]
fn hulls_of_random_clouds_pass_the_brute_force_checks() {
    let mut rng = Pcg64::seed_from_u64(1);
    let mut count = 0;
    for trial in 0..400 {
        let n = [4, 5, 8, 20, 100, 1000][trial % 6];
        let points = cloud(&mut rng, n, trial / 6);
        match ConvexPolyhedron::from_points(&points) {
            Ok(h) => {
                check_hull(&points, &h);
                count += 1;
            }
            // Only few grid points can be coplanar.
            Err(ShapeError::ZeroVolume) => assert!(trial / 6 % 4 == 3 && n <= 8, "{trial}"),
            Err(e) => panic!("{e}"),
        }
    }
    println!("{count} hulls checked");
    assert!(count > 380);
}

#[test]
fn hull_vertices_are_parrys() {
    let mut rng = Pcg64::seed_from_u64(2);
    for trial in 0..200 {
        let n = [6, 10, 30, 200][trial % 4];
        // Not the grid: parry keeps points on edges and faces (it has no merging tolerance).
        let points = cloud(&mut rng, n, trial % 3);
        let ours: BTreeSet<_> = hull(&points)
            .vertices()
            .iter()
            .map(|p| key(p.to_array()))
            .collect();
        let pp: Vec<_> = points.iter().map(|&p| parry_point(p)).collect();
        let (theirs, _) = parry3d_f64::transformation::convex_hull(&pp);
        let theirs: BTreeSet<_> = theirs.iter().map(|p| key([p.x, p.y, p.z])).collect();
        assert_eq!(ours, theirs, "trial {trial}");
    }
}

fn mat(m: DMat3) -> [f64; 9] {
    m.to_cols_array()
}

#[test]
fn mass_properties_match_parry() {
    use parry3d_f64::shape::Shape as _;
    let mut rng = Pcg64::seed_from_u64(3);
    let mut worst: f64 = 0.0;
    for trial in 0..200 {
        let points = cloud(&mut rng, [8, 40, 300][trial % 3], trial % 3);
        let density = rng.gen_range(0.5..3.0);
        let ours = hull(&points).mass_properties(density).unwrap();
        let pp: Vec<_> = points.iter().map(|&p| parry_point(p)).collect();
        // parry's `ConvexPolyhedron::from_convex_hull` merges faces whose normals differ by
        // less than ~1.5e-8 rad, which moves the mass of clouds with many nearly coplanar
        // facets by up to 2e-6 (relative); the mesh of its hull's triangles is the same hull
        // unmerged.
        let (hv, hi) = parry3d_f64::transformation::convex_hull(&pp);
        let theirs = if trial % 3 == 0 {
            parry3d_f64::shape::ConvexPolyhedron::from_convex_hull(&pp)
                .unwrap()
                .mass_properties(density)
        } else {
            parry3d_f64::shape::TriMesh::new(hv, hi)
                .unwrap()
                .mass_properties(density)
        };
        let rel = |a: f64, b: f64, scale: f64| (a - b).abs() / scale;
        worst = worst.max(rel(ours.mass, theirs.mass(), ours.mass));
        let c = theirs.local_com;
        let size = diagonal(&points);
        for (a, b) in ours.centre_of_mass.to_array().iter().zip([c.x, c.y, c.z]) {
            worst = worst.max(rel(*a, b, size));
        }
        let scale = ours.inertia.diagonal().max_element();
        let t = theirs.reconstruct_inertia_matrix();
        let t = DMat3::from_cols_array(&[
            t.x_axis.x, t.x_axis.y, t.x_axis.z, t.y_axis.x, t.y_axis.y, t.y_axis.z, t.z_axis.x,
            t.z_axis.y, t.z_axis.z,
        ]);
        for (a, b) in mat(ours.inertia).iter().zip(mat(t)) {
            worst = worst.max(rel(*a, b, scale));
        }
        let mut principal = theirs.principal_inertia().to_array();
        principal.sort_by(f64::total_cmp);
        // Our tensor's trace is the sum of the principal moments.
        let trace = ours.inertia.x_axis.x + ours.inertia.y_axis.y + ours.inertia.z_axis.z;
        worst = worst.max(rel(trace, principal.iter().sum(), scale));
    }
    println!("worst relative difference from parry: {worst:.1e}");
    assert!(worst < 1e-10, "{worst}");
}

/// The 2ⁿ corners of a box of half extents `h` about `c`.
fn box_corners(h: DVec3, c: DVec3) -> Vec<DVec3> {
    (0..8)
        .map(|b: u32| {
            c + DVec3::new(
                if b & 1 != 0 { h.x } else { -h.x },
                if b & 2 != 0 { h.y } else { -h.y },
                if b & 4 != 0 { h.z } else { -h.z },
            )
        })
        .collect()
}

#[test]
fn closed_forms_cube_tetrahedron_octahedron() {
    // A box from a grid of 11³ points, corners included: 8 vertices, 6 quads.
    let h = DVec3::new(1.0, 2.0, 0.5);
    let c = DVec3::new(3.0, -1.0, 2.0);
    let mut grid = Vec::new();
    for i in 0..11 {
        for j in 0..11 {
            for k in 0..11 {
                let t = DVec3::new(i as f64, j as f64, k as f64) / 5.0 - DVec3::ONE;
                grid.push(c + t * h);
            }
        }
    }
    let b = hull(&grid);
    check_hull(&grid, &b);
    assert_eq!(b.vertices().len(), 8);
    assert_eq!(b.face_count(), 6);
    assert!((0..6).all(|i| b.face_vertices(i).len() == 4));
    assert_eq!(b.edges().len(), 12);
    let mp = b.mass_properties(2.0).unwrap();
    let m = 2.0 * 8.0 * h.x * h.y * h.z;
    assert!((mp.mass - m).abs() < 1e-12 * m);
    assert!((mp.centre_of_mass - c).length() < 1e-12);
    let want = DMat3::from_diagonal(
        DVec3::new(
            h.y * h.y + h.z * h.z,
            h.x * h.x + h.z * h.z,
            h.x * h.x + h.y * h.y,
        ) * m
            / 3.0,
    );
    assert!(mp.inertia.abs_diff_eq(want, 1e-12 * m), "{:?}", mp.inertia);
    // The unit normals of a box are the axes.
    let normals: BTreeSet<_> = b.faces().map(|(_, n)| key(n.round().to_array())).collect();
    assert_eq!(normals.len(), 6);

    // The regular tetrahedron of edge a√2 on alternate cube corners: volume a³/3, inertia
    // m a² / 5 · I (for edge s: m s² / 10).
    let a = 1.5;
    let tet = [
        DVec3::new(a, a, a),
        DVec3::new(a, -a, -a),
        DVec3::new(-a, a, -a),
        DVec3::new(-a, -a, a),
    ];
    let t = hull(&tet);
    check_hull(&tet, &t);
    assert_eq!((t.vertices().len(), t.face_count()), (4, 4));
    let mp = t.mass_properties(1.0).unwrap();
    let vol = 8.0 * a * a * a / 3.0;
    assert!((mp.mass - vol).abs() < 1e-12 * vol);
    assert!(mp.centre_of_mass.length() < 1e-12);
    let s2 = 8.0 * a * a;
    assert!(mp.inertia.abs_diff_eq(
        DMat3::from_diagonal(DVec3::splat(vol * s2 / 20.0)),
        1e-12 * vol * s2
    ));

    // The octahedron |x| + |y| + |z| <= r with its centre: volume 4r³/3, inertia m r² / 5 · I.
    let r = 2.0;
    let mut oct: Vec<DVec3> = (0..3)
        .flat_map(|i| [DVec3::AXES[i] * r, DVec3::AXES[i] * -r])
        .collect();
    oct.push(DVec3::ZERO);
    let o = hull(&oct);
    check_hull(&oct, &o);
    assert_eq!((o.vertices().len(), o.face_count()), (6, 8));
    let mp = o.mass_properties(1.0).unwrap();
    let vol = 4.0 * r * r * r / 3.0;
    assert!((mp.mass - vol).abs() < 1e-12 * vol);
    assert!(mp.inertia.abs_diff_eq(
        DMat3::from_diagonal(DVec3::splat(vol * r * r / 5.0)),
        1e-12 * vol
    ));
}

#[test]
fn degenerate_inputs_give_typed_errors() {
    let p = |x: f64, y: f64, z: f64| DVec3::new(x, y, z);
    let three = [p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0)];
    assert_eq!(
        ConvexPolyhedron::from_points(&three),
        Err(ShapeError::TooFewPoints { count: 3 })
    );
    assert_eq!(
        ConvexPolyhedron::<DVec3>::from_points(&[]),
        Err(ShapeError::TooFewPoints { count: 0 })
    );
    let mut bad = box_corners(DVec3::ONE, DVec3::ZERO);
    bad[5].y = f64::NAN;
    assert_eq!(
        ConvexPolyhedron::from_points(&bad),
        Err(ShapeError::NonFiniteVertex { index: 5 })
    );
    bad[5].y = f64::INFINITY;
    assert_eq!(
        ConvexPolyhedron::from_points(&bad),
        Err(ShapeError::NonFiniteVertex { index: 5 })
    );
    // Coplanar (a tilted plane), collinear, all equal.
    let mut rng = Pcg64::seed_from_u64(4);
    let (u, w) = (p(1.0, 2.0, 3.0), p(-2.0, 0.5, 1.0));
    let plane: Vec<_> = (0..500)
        .map(|_| u * rng.gen_range(-1.0..1.0) + w * rng.gen_range(-1.0..1.0))
        .collect();
    assert_eq!(
        ConvexPolyhedron::from_points(&plane),
        Err(ShapeError::ZeroVolume)
    );
    let line: Vec<_> = (0..50).map(|i| u * i as f64).collect();
    assert_eq!(
        ConvexPolyhedron::from_points(&line),
        Err(ShapeError::ZeroVolume)
    );
    assert_eq!(
        ConvexPolyhedron::from_points(&[u; 7]),
        Err(ShapeError::ZeroVolume)
    );
    // Mass properties that would overflow.
    let huge: Vec<_> = box_corners(DVec3::ONE, DVec3::ZERO)
        .iter()
        .map(|&p| p * 1e120)
        .collect();
    let h = hull(&huge);
    assert!(matches!(
        h.mass_properties(1.0),
        Err(ShapeError::InvalidSize { .. })
    ));
    assert!((h.bounding_radius_about(DVec3::ZERO) / (3f64.sqrt() * 1e120) - 1.0).abs() < 1e-15);
    assert!(matches!(
        h.mass_properties(f64::NAN),
        Err(ShapeError::InvalidDensity(_))
    ));
    // 2D.
    let flat = [DVec2::ZERO, DVec2::X, DVec2::Y, DVec2::ONE];
    assert_eq!(
        ConvexPolyhedron::from_points(&flat),
        Err(ShapeError::WrongDimension {
            shape: "polyhedron",
            only: 3,
            dim: 2
        })
    );
    assert_eq!(
        Shape::polyhedron(&flat),
        Err(ShapeError::WrongDimension {
            shape: "polyhedron",
            only: 3,
            dim: 2
        })
    );
    // The 2D hull stays the polygon, the 3D one is the polyhedron.
    assert_eq!(Shape::convex_hull(&flat).unwrap().name(), "polygon");
    let cube = box_corners(DVec3::ONE, DVec3::ZERO);
    assert_eq!(Shape::convex_hull(&cube).unwrap().name(), "polyhedron");
    assert_eq!(Shape::polyhedron(&cube).unwrap().name(), "polyhedron");
}

#[test]
fn degenerate_inputs_give_correct_hulls() {
    let mut rng = Pcg64::seed_from_u64(5);
    // Duplicates and near-duplicates of a box's corners (within rounding), shuffled in
    // with points inside.
    let corners = box_corners(DVec3::new(1.0, 2.0, 3.0), DVec3::new(1e3, 0.0, -5.0));
    let mut points = Vec::new();
    for _ in 0..20 {
        for &c in &corners {
            points.push(c + random_unit(&mut rng) * 1e-13);
            points.push(c);
        }
        points.push(DVec3::new(1e3, 0.0, -5.0) + random_unit(&mut rng));
    }
    let h = hull(&points);
    check_hull(&points, &h);
    assert_eq!((h.vertices().len(), h.face_count()), (8, 6));

    // Many points on a box's faces and edges (coplanar and collinear), and a cylinder-like
    // prism of points on two circles with many on its side lines.
    let mut faces = corners.clone();
    for _ in 0..2000 {
        let mut q = DVec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        );
        let axis = rng.gen_range(0..3);
        q[axis] = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
        if rng.gen_bool(0.3) {
            let other = (axis + 1) % 3;
            q[other] = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
        }
        faces.push(DVec3::new(1e3, 0.0, -5.0) + q * DVec3::new(1.0, 2.0, 3.0));
    }
    let h = hull(&faces);
    check_hull(&faces, &h);
    assert_eq!((h.vertices().len(), h.face_count()), (8, 6));

    let k = 24;
    let mut prism = Vec::new();
    for i in 0..k {
        let a = i as f64 * std::f64::consts::TAU / k as f64;
        for j in 0..=10 {
            prism.push(DVec3::new(a.cos(), j as f64 / 5.0 - 1.0, a.sin()));
        }
    }
    let h = hull(&prism);
    check_hull(&prism, &h);
    assert_eq!((h.vertices().len(), h.face_count()), (2 * k, k + 2));

    // A nearly flat slab: thickness 1e-7 of its width.
    let slab: Vec<_> = (0..300)
        .map(|_| {
            DVec3::new(
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1e-7..1e-7),
                rng.gen_range(-1.0..1.0),
            )
        })
        .collect();
    let h = hull(&slab);
    check_hull(&slab, &h);
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn a_million_points_on_a_sphere() {
    let mut rng = Pcg64::seed_from_u64(6);
    let n = 1_000_000;
    let points: Vec<_> = (0..n).map(|_| random_unit(&mut rng)).collect();
    let h = hull(&points);
    // All points are on the sphere, so nearly all are vertices (a few are within the hull
    // tolerance of a face and dropped).
    let v = h.vertices().len();
    println!("{v} vertices, {} faces", h.face_count());
    assert!(v > n * 99 / 100, "{v}");
    assert_eq!(v + h.face_count(), h.edges().len() + 2);
    // Every point inside (sampled: all faces against a sample of the points).
    let tol = 1e-9;
    for (i, n) in h.faces().map(|(lp, n)| (lp[0], n)).step_by(97) {
        let o = h.vertices()[i as usize];
        assert!(points.iter().step_by(101).all(|&p| n.dot(p - o) <= tol));
    }
    // The volume approaches the ball's.
    let vol = h.mass_properties(1.0).unwrap().mass;
    let ball = 4.0 / 3.0 * std::f64::consts::PI;
    assert!(vol < ball && vol > ball * (1.0 - 1e-4), "{vol}");
}

/// Points on two circles of `k` points each, at `y = ±1`: ties along `±y` and across.
fn prism(k: usize) -> Vec<DVec3> {
    (0..2 * k)
        .map(|i| {
            let a = (i % k) as f64 * std::f64::consts::TAU / k as f64;
            DVec3::new(a.cos(), if i < k { -1.0 } else { 1.0 }, a.sin())
        })
        .collect()
}

#[test]
fn the_hill_climb_finds_the_scans_vertex() {
    let mut rng = Pcg64::seed_from_u64(7);
    for trial in 0..40 {
        let points = match trial % 4 {
            0 => prism(64),
            1 => cloud(&mut rng, 300, 1),
            2 => cloud(&mut rng, 3000, 2),
            _ => cloud(&mut rng, 100, 1),
        };
        let h = hull(&points);
        assert!(h.vertices().len() > HILL_CLIMB_THRESHOLD);
        for _ in 0..200 {
            let d = random_unit(&mut rng);
            let (s, f) = h.local_support_feature(d);
            let best = h
                .vertices()
                .iter()
                .map(|v| v.dot(d))
                .fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(s.dot(d), best);
            let FeatureId::Vertex(i) = f else { panic!() };
            assert_eq!(h.vertices()[i as usize], s);
        }
        // Ties, zero and NaN directions go to the lowest index.
        for d in [
            DVec3::ZERO,
            DVec3::NAN,
            DVec3::X,
            DVec3::Y,
            DVec3::Z,
            -DVec3::Y,
        ] {
            let best = h
                .vertices()
                .iter()
                .position(|v| {
                    let x = v.dot(d);
                    h.vertices()
                        .iter()
                        .all(|w| w.dot(d).partial_cmp(&x) != Some(std::cmp::Ordering::Greater))
                })
                .unwrap();
            assert_eq!(h.local_support_feature(d).1, FeatureId::Vertex(best as u32));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn support_is_maximal_over_the_vertices(
        seed in any::<u64>(),
        n in 4usize..300,
        kind in 0usize..4,
        d in prop::array::uniform3(-1.0f64..1.0),
        angle in -3.0f64..3.0,
    ) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let points = cloud(&mut rng, n, kind);
        let Ok(h) = ConvexPolyhedron::from_points(&points) else { return Ok(()) };
        let d = DVec3::from_array(d);
        let s = h.local_support(d);
        for &p in &points {
            prop_assert!(p.dot(d) <= s.dot(d) + 1e-9 * diagonal(&points));
        }
        // Posed: the support of the posed shape is the posed local support.
        let pose = Pose::new(DVec3::new(1.0, -2.0, 3.0), kairos_geometry::math::DQuat::from_axis_angle(
            DVec3::new(1.0, 2.0, 2.0) / 3.0, angle));
        let shape = Shape::Polyhedron(h.clone());
        let w = shape.support(&pose, d);
        let best = h.vertices().iter().map(|&v| pose.transform_point(v).dot(d))
            .fold(f64::NEG_INFINITY, f64::max);
        prop_assert!((w.dot(d) - best).abs() <= 1e-12 * (1.0 + best.abs()));
        // The bounding radius about the centre of mass bounds every point.
        let c = h.mass_properties(1.0).unwrap().centre_of_mass;
        let r = h.bounding_radius_about(c);
        prop_assert!(points.iter().all(|&p| (p - c).length() <= r * (1.0 + 1e-12)));
    }
}

#[test]
fn gjk_distance_between_polyhedra_matches_parry() {
    let mut rng = Pcg64::seed_from_u64(8);
    let mut worst: f64 = 0.0;
    let mut apart = 0;
    for trial in 0..500 {
        let a = cloud(&mut rng, [6, 12, 60][trial % 3], trial % 3);
        let b = cloud(&mut rng, [8, 30][trial % 2], 2);
        let (ha, hb) = (hull(&a), hull(&b));
        let (ca, cb) = (
            ha.mass_properties(1.0).unwrap().centre_of_mass,
            hb.mass_properties(1.0).unwrap().centre_of_mass,
        );
        let pa = Pose::new(-ca, kairos_geometry::math::DQuat::IDENTITY);
        let pb = Pose::new(
            -cb + random_unit(&mut rng) * rng.gen_range(0.0..6.0),
            kairos_geometry::math::DQuat::from_axis_angle(
                random_unit(&mut rng),
                rng.gen_range(-3.0..3.0),
            ),
        );
        let ours = distance(&ha, &pa, &hb, &pb, &GjkOptions::default(), None).distance;
        let to_parry = |h: &ConvexPolyhedron<DVec3>| {
            let pp: Vec<_> = h.vertices().iter().map(|&p| parry_point(p)).collect();
            parry3d_f64::shape::ConvexPolyhedron::from_convex_hull(&pp).unwrap()
        };
        let pose = |p: &Pose<DVec3>| {
            let q = p.rotation;
            parry3d_f64::math::Pose::from_parts(
                parry_point(p.position),
                parry3d_f64::math::Rotation::from_xyzw(q.x, q.y, q.z, q.w),
            )
        };
        let theirs =
            parry3d_f64::query::distance(&pose(&pa), &to_parry(&ha), &pose(&pb), &to_parry(&hb))
                .unwrap()
                .distance;
        worst = worst.max((ours - theirs).abs());
        apart += usize::from(ours > 0.0);
    }
    println!("worst |ours − parry| {worst:.1e}, {apart} of 500 pairs apart");
    assert!(worst < 1e-9, "{worst}");
    assert!(apart > 100 && apart < 450, "{apart}");
}

/// Points from a small grid (many coplanar, collinear and duplicate ones), perhaps squashed
/// flat.
fn awkward_cloud(seed: u64, n: usize, side: u32, flat: bool) -> Vec<DVec3> {
    let mut rng = Pcg64::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let mut q = DVec3::new(
                rng.gen_range(0..side) as f64,
                rng.gen_range(0..side) as f64,
                rng.gen_range(0..side) as f64,
            );
            if flat {
                q.z = q.x + q.y;
            }
            q + DVec3::new(3.0, -5.0, 7.0)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Valid hulls or typed errors, never a panic; and the same hull, scaled, for the points
    /// scaled by a power of two to extreme magnitudes (where the checks above would
    /// overflow).
    #[test]
    fn awkward_clouds_give_valid_hulls_or_typed_errors(
        seed in any::<u64>(),
        n in 1usize..200,
        side in 1u32..5,
        flat in any::<bool>(),
        exp in prop::sample::select(vec![-1000, -300, -20, 20, 300, 1000]),
    ) {
        let points = awkward_cloud(seed, n, side, flat);
        let s = 2f64.powi(exp);
        let scaled: Vec<_> = points.iter().map(|&p| p * s).collect();
        let (a, b) = (ConvexPolyhedron::from_points(&points), ConvexPolyhedron::from_points(&scaled));
        match (a, b) {
            (Ok(h), Ok(hs)) => {
                prop_assert!(!flat && side >= 2);
                check_hull(&points, &h);
                let back: Vec<_> = hs.vertices().iter().map(|&p| p / s).collect();
                prop_assert_eq!(h.vertices(), &back[..]);
                prop_assert_eq!(h.face_count(), hs.face_count());
                for i in 0..h.face_count() {
                    prop_assert_eq!(h.face_vertices(i), hs.face_vertices(i));
                    prop_assert_eq!(h.face_normal(i), hs.face_normal(i));
                }
                prop_assert_eq!(h.edges(), hs.edges());
            }
            (Err(ShapeError::TooFewPoints { count }), Err(e)) => {
                prop_assert!(count < 4);
                prop_assert_eq!(e, ShapeError::TooFewPoints { count });
            }
            (Err(ShapeError::ZeroVolume), Err(ShapeError::ZeroVolume)) => {}
            (a, b) => prop_assert!(false, "{:?} {:?}", a.err(), b.err()),
        }
    }
}
