//! GJK against independent references: closed forms (ball–ball, cuboid–ball), brute force over
//! the features of polytopes (vertex–edge in 2D; vertex–face and edge–edge in 3D, with edge–face
//! crossings and containment for intersection), and parry's distance on random pairs of every
//! shape pair both libraries have. Also: symmetry under swapping, invariance under a rigid
//! motion of both shapes, closest points on the shapes, features, and the warm start.
//!
//! Round shapes go through the same brute force on their cores (a ball is its centre, a capsule
//! its segment) minus the radii: the closed form of the distance between grown shapes.

use crate::pairs;

use kairos_geometry::math::{DQuat, DVec2, DVec3, Vector};
use kairos_geometry::query::gjk::{distance, intersects, Feature, GjkCache, GjkOptions, GjkStatus};
use kairos_geometry::shape::{Pose, RigidMotion, Shape};
use rand::SeedableRng;
use rand_pcg::Pcg64;

use pairs::*;

// ---------------------------------------------------------------------------------------------
// Brute-force geometry, independent of the library

/// The closest point of segment `[a, b]` to `p`.
fn closest_on_segment<V: Vector>(p: V, a: V, b: V) -> V {
    let e = b - a;
    let t = ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
    a + e * t
}

/// The distance between segments `[p1, q1]` and `[p2, q2]`: the smallest of the four
/// endpoint–segment distances and, when it lies inside both, the critical point of
/// `|p1 + s d1 − p2 − t d2|²`.
fn segment_segment<V: Vector>(p1: V, q1: V, p2: V, q2: V) -> f64 {
    let mut best = f64::INFINITY;
    for (p, a, b) in [(p1, p2, q2), (q1, p2, q2), (p2, p1, q1), (q2, p1, q1)] {
        best = best.min((p - closest_on_segment(p, a, b)).length());
    }
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, b) = (d1.dot(d1), d2.dot(d2), d1.dot(d2));
    let (c, f) = (d1.dot(r), d2.dot(r));
    let den = a * e - b * b;
    if den > 1e-12 * a * e {
        let s = (b * f - c * e) / den;
        let t = (a * f - b * c) / den;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            best = best.min((p1 + d1 * s - p2 - d2 * t).length());
        }
    }
    best
}

/// The distance from `p` to triangle `t` (3D): to the plane when the projection is inside,
/// else to the nearest edge.
fn point_triangle(p: DVec3, t: [DVec3; 3]) -> f64 {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let inside = (0..3).all(|i| {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        (b - a).cross(p - a).dot(n) >= 0.0
    });
    if inside {
        return ((p - t[0]).dot(n) / n.length()).abs();
    }
    (0..3)
        .map(|i| (p - closest_on_segment(p, t[i], t[(i + 1) % 3])).length())
        .fold(f64::INFINITY, f64::min)
}

/// Whether segment `[p, q]` crosses triangle `t` (3D).
fn segment_crosses_triangle(p: DVec3, q: DVec3, t: [DVec3; 3]) -> bool {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let (sp, sq) = ((p - t[0]).dot(n), (q - t[0]).dot(n));
    if sp * sq > 0.0 || sp == sq {
        return false;
    }
    let x = p + (q - p) * (sp / (sp - sq));
    (0..3).all(|i| {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        (b - a).cross(x - a).dot(n) >= 0.0
    })
}

/// A polytope in world coordinates, the brute-force description of a shape's core.
#[derive(Clone, Debug)]
struct Poly<V> {
    verts: Vec<V>,
    edges: Vec<[V; 2]>,
    /// Triangulated faces (3D only).
    tris: Vec<[DVec3; 3]>,
    /// How to tell a point inside a solid: a 2D polygon (counter-clockwise `verts`) or a 3D box.
    solid: Solid,
    /// The radius the core is grown by.
    radius: f64,
}

#[derive(Clone, Copy, Debug)]
enum Solid {
    None,
    Polygon,
    Box(Pose<DVec3>, DVec3),
}

impl<V: Dim> Poly<V> {
    fn contains(&self, p: V) -> bool {
        match self.solid {
            Solid::None => false,
            Solid::Polygon => V::point_in_polygon(p, &self.verts),
            Solid::Box(pose, h) => {
                let l = pose.inverse_transform_point(p.as3());
                (0..3).all(|i| l[i].abs() <= h[i])
            }
        }
    }

    /// The distance from `p` to the core.
    fn core_distance_to(&self, p: V) -> f64 {
        if self.contains(p) {
            return 0.0;
        }
        let mut best = self
            .verts
            .iter()
            .map(|&v| (p - v).length())
            .fold(f64::INFINITY, f64::min);
        for &[a, b] in &self.edges {
            best = best.min((p - closest_on_segment(p, a, b)).length());
        }
        for &t in &self.tris {
            best = best.min(point_triangle(p.as3(), t));
        }
        best
    }

    /// The distance between the cores of `self` and `other`.
    fn core_distance(&self, other: &Self) -> f64 {
        let crosses = |x: &Self, y: &Self| {
            x.verts.iter().any(|&v| y.contains(v))
                || x.edges.iter().any(|&[p, q]| {
                    y.tris
                        .iter()
                        .any(|&t| segment_crosses_triangle(p.as3(), q.as3(), t))
                })
        };
        if crosses(self, other) || crosses(other, self) {
            return 0.0;
        }
        let mut best = f64::INFINITY;
        for &v in &self.verts {
            best = best.min(other.core_distance_to(v));
        }
        for &v in &other.verts {
            best = best.min(self.core_distance_to(v));
        }
        for &[p, q] in &self.edges {
            for &[r, s] in &other.edges {
                best = best.min(segment_segment(p, q, r, s));
            }
        }
        best
    }

    /// The distance between the shapes (0 when they overlap).
    fn distance(&self, other: &Self) -> f64 {
        (self.core_distance(other) - self.radius - other.radius).max(0.0)
    }
}

/// The brute-force description of `shape` at `pose`.
fn brute<V: Dim>(shape: &Shape<V>, pose: &Pose<V>) -> Poly<V> {
    let t = |p: V| pose.transform_point(p);
    let y = V::unit(1);
    let chain = |verts: Vec<V>, closed: bool| {
        let n = verts.len();
        let m = if closed { n } else { n - 1 };
        let edges = (0..m).map(|i| [verts[i], verts[(i + 1) % n]]).collect();
        (verts, edges)
    };
    let (verts, edges, tris, solid, radius) = match shape {
        Shape::Ellipsoid(_) => {
            unreachable!("no polytope core: `ellipsoid.rs` tests it by sampling")
        }
        Shape::Ball(b) => (vec![t(V::ZERO)], vec![], vec![], Solid::None, b.radius()),
        Shape::Capsule(c) => {
            let (v, e) = chain(vec![t(y * -c.half_height()), t(y * c.half_height())], false);
            (v, e, vec![], Solid::None, c.radius())
        }
        Shape::Segment(s) => {
            let (v, e) = chain(s.vertices().map(t).to_vec(), false);
            (v, e, vec![], Solid::None, 0.0)
        }
        Shape::Triangle(s) if V::DIM == 2 => {
            let mut v = s.vertices().map(t).to_vec();
            let (a, b, c) = (v[0].as3(), v[1].as3(), v[2].as3());
            if (b - a).cross(c - a).z < 0.0 {
                v.swap(1, 2);
            }
            let (v, e) = chain(v, true);
            (v, e, vec![], Solid::Polygon, 0.0)
        }
        Shape::Triangle(s) => {
            let (v, e) = chain(s.vertices().map(t).to_vec(), true);
            let tri = [v[0].as3(), v[1].as3(), v[2].as3()];
            (v, e, vec![tri], Solid::None, 0.0)
        }
        Shape::ConvexPolygon(p) => {
            let (v, e) = chain(p.vertices().iter().map(|&p| t(p)).collect(), true);
            (v, e, vec![], Solid::Polygon, 0.0)
        }
        Shape::Cuboid(c) => {
            let h = c.half_extents();
            let corner = |bits: usize| {
                V::from_array3(std::array::from_fn(|i| {
                    if i < V::DIM {
                        if bits & (1 << i) != 0 {
                            h.comp(i)
                        } else {
                            -h.comp(i)
                        }
                    } else {
                        0.0
                    }
                }))
            };
            if V::DIM == 2 {
                let (v, e) = chain([0, 1, 3, 2].map(|b| t(corner(b))).to_vec(), true);
                (v, e, vec![], Solid::Polygon, 0.0)
            } else {
                let verts: Vec<V> = (0..8).map(|b| t(corner(b))).collect();
                let mut edges = vec![];
                for i in 0..8usize {
                    for j in i + 1..8 {
                        if (i ^ j).count_ones() == 1 {
                            edges.push([verts[i], verts[j]]);
                        }
                    }
                }
                let mut tris = vec![];
                for axis in 0..3 {
                    let (o1, o2) = ((axis + 1) % 3, (axis + 2) % 3);
                    for side in [0, 1 << axis] {
                        let q = [0, 1 << o1, (1 << o1) | (1 << o2), 1 << o2]
                            .map(|b| verts[b | side].as3());
                        tris.push([q[0], q[1], q[2]]);
                        tris.push([q[0], q[2], q[3]]);
                    }
                }
                let p3 = Pose::new(pose.position.as3(), {
                    // The box's rotation as a quaternion, through its action on the axes.
                    let m = kairos_geometry::math::DMat3::from_cols(
                        pose.transform_vector(V::unit(0)).as3(),
                        pose.transform_vector(V::unit(1)).as3(),
                        pose.transform_vector(V::unit(2)).as3(),
                    );
                    DQuat::from_mat3(&m)
                });
                (verts, edges, tris, Solid::Box(p3, h.as3()), 0.0)
            }
        }
        Shape::Cylinder(_) | Shape::Cone(_) | Shape::Polyhedron(_) => {
            unreachable!("no brute force for curved solids or polyhedra")
        }
    };
    Poly {
        verts,
        edges,
        tris,
        solid,
        radius,
    }
}

// ---------------------------------------------------------------------------------------------
// Agreement with the brute force

/// Checks every pair of `kinds` on `n` random poses per pair, and that at least a quarter of the
/// pairs are apart and a fraction `min_intersecting` overlap (both sides are exercised).
fn check_against_brute<V: Dim>(kinds: &[&str], n: usize, seed: u64, min_intersecting: f64) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let opts = GjkOptions::default();
    let (mut pairs, mut separated, mut intersecting, mut worst) = (0, 0, 0, 0.0f64);
    for ka in kinds {
        for kb in kinds {
            for _ in 0..n {
                let (a, pa, b, pb) = random_pair::<V>(ka, kb, &mut rng);
                let (ba, bb) = (brute(&a, &pa), brute(&b, &pb));
                let reference = ba.distance(&bb);
                let r = distance(&a, &pa, &b, &pb, &opts, None);
                let what = format!("{ka}–{kb}: {a:?} {pa:?} {b:?} {pb:?}\n{r:?}\nref {reference}");
                pairs += 1;
                assert!(r.distance.is_finite() && r.point_a.is_finite(), "{what}");
                assert_ne!(r.status, GjkStatus::MaxIterations, "{what}");
                assert!(close(r.distance, reference, 1e-9, 1e-12), "{what}");
                if reference > 1e-9 {
                    worst = worst.max((r.distance - reference).abs() / reference);
                    separated += 1;
                    assert_eq!(r.status, GjkStatus::Separated, "{what}");
                    assert!(!intersects(&a, &pa, &b, &pb, &opts, None), "{what}");
                    // The closest points lie on the shapes and are `distance` apart.
                    for (p, poly) in [(r.point_a, &ba), (r.point_b, &bb)] {
                        let d = poly.core_distance_to(p);
                        assert!((d - poly.radius).abs() < 1e-9, "{what}\n{d}");
                    }
                    let gap = (r.point_b - r.point_a).length();
                    assert!(close(gap, r.distance, 1e-9, 1e-12), "{what}");
                    assert!((r.normal.length() - 1.0).abs() < 1e-12, "{what}");
                } else if reference == 0.0 && ba.core_distance(&bb) < ba.radius + bb.radius - 1e-9 {
                    intersecting += 1;
                    assert_eq!(r.status, GjkStatus::Intersecting, "{what}");
                    assert!(intersects(&a, &pa, &b, &pb, &opts, None), "{what}");
                }
                // Symmetric under swapping the pair.
                let s = distance(&b, &pb, &a, &pa, &opts, None);
                assert!(
                    close(s.distance, r.distance, 1e-9, 1e-12),
                    "swap {what}\n{s:?}"
                );
                // Invariant under a rigid motion of both shapes.
                let m = random_pose::<V>(&mut rng, 100.0);
                let t = distance(&a, &m.compose(&pa), &b, &m.compose(&pb), &opts, None);
                assert!(
                    close(t.distance, r.distance, 1e-9, 1e-12),
                    "motion {what}\n{t:?}"
                );
            }
        }
    }
    println!(
        "{}D: {pairs} pairs, {separated} separated, {intersecting} intersecting, worst rel. \
         error {worst:.1e}",
        V::DIM
    );
    assert!(separated > pairs / 4 && intersecting as f64 > min_intersecting * pairs as f64);
}

#[test]
fn distances_agree_with_brute_force_in_2d() {
    check_against_brute::<DVec2>(&KINDS_2D, 200, 1, 0.1);
}

#[test]
fn distances_agree_with_brute_force_in_3d() {
    check_against_brute::<DVec3>(&KINDS_3D, 200, 2, 0.05);
}

#[test]
fn ball_ball_and_cuboid_ball_match_closed_forms() {
    let mut rng = Pcg64::seed_from_u64(3);
    let opts = GjkOptions::default();
    for _ in 0..2000 {
        let (r1, r2) = (size(&mut rng), size(&mut rng));
        let (c1, c2): (DVec3, DVec3) = (point(&mut rng, 4.0), point(&mut rng, 4.0));
        let g = distance(
            &Shape::ball(r1).unwrap(),
            &Pose::from_position(c1),
            &Shape::ball(r2).unwrap(),
            &Pose::from_position(c2),
            &opts,
            None,
        );
        let exact = ((c1 - c2).length() - r1 - r2).max(0.0);
        assert!(close(g.distance, exact, 1e-12, 1e-15), "{g:?} {exact}");
        assert_eq!(g.status == GjkStatus::Intersecting, exact == 0.0);

        // Cuboid–ball: |max(|p_local| − h, 0)| − r.
        let h = DVec3::new(size(&mut rng), size(&mut rng), size(&mut rng));
        let pose = random_pose::<DVec3>(&mut rng, 3.0);
        let l = pose.inverse_transform_point(c2);
        let exact = ((l.abs() - h).max(DVec3::ZERO).length() - r2).max(0.0);
        let g = distance(
            &Shape::cuboid(h).unwrap(),
            &pose,
            &Shape::ball(r2).unwrap(),
            &Pose::from_position(c2),
            &opts,
            None,
        );
        assert!(close(g.distance, exact, 1e-12, 1e-14), "{g:?} {exact}");
    }
}

#[test]
fn overlapping_boxes_intersect() {
    let mut rng = Pcg64::seed_from_u64(4);
    let opts = GjkOptions::default();
    for _ in 0..2000 {
        let a = random_shape::<DVec3>("cuboid", &mut rng);
        let b = random_shape::<DVec3>("cuboid", &mut rng);
        let pa = random_pose::<DVec3>(&mut rng, 10.0);
        // b's centre inside a.
        let Shape::Cuboid(c) = &a else { unreachable!() };
        let inside = pa.transform_point(c.half_extents() * point::<DVec3>(&mut rng, 0.99));
        let pb = Pose::new(inside, DVec3::random_rotation(&mut rng));
        let r = distance(&a, &pa, &b, &pb, &opts, None);
        assert_eq!(r.status, GjkStatus::Intersecting);
        assert_eq!(r.distance, 0.0);
        assert!(intersects(&a, &pa, &b, &pb, &opts, None));
    }
}

// ---------------------------------------------------------------------------------------------
// Features

#[test]
fn features_name_the_closest_vertices_edges_and_faces() {
    let opts = GjkOptions::default();
    let id = Pose::<DVec3>::IDENTITY;
    // Skew segments: the closest points are inside both edges.
    let s1 = Shape::segment(DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0)).unwrap();
    let s2 = Shape::segment(DVec3::new(0.2, -1.0, 2.0), DVec3::new(0.2, 1.0, 2.0)).unwrap();
    let r = distance(&s1, &id, &s2, &id, &opts, None);
    assert!((r.distance - 2.0).abs() < 1e-15);
    assert_eq!(
        (r.feature_a, r.feature_b),
        (Feature::Edge(0, 1), Feature::Edge(0, 1))
    );
    // A box corner against a triangle's face.
    let cube = Shape::cuboid(DVec3::splat(1.0)).unwrap();
    let tri = Shape::triangle(
        DVec3::new(3.0, -2.0, -2.0),
        DVec3::new(3.0, 4.0, -2.0),
        DVec3::new(3.0, -2.0, 4.0),
    )
    .unwrap();
    let tilt = Pose::new(
        DVec3::ZERO,
        DQuat::from_rotation_z(0.3) * DQuat::from_rotation_y(0.4),
    );
    let r = distance(&cube, &tilt, &tri, &id, &opts, None);
    assert!(matches!(r.feature_a, Feature::Vertex(_)), "{r:?}");
    assert_eq!(r.feature_b, Feature::Face(0, 1, 2));
    // 2D: a polygon's vertex against another's edge; a disc is curved.
    let sq = Shape::cuboid(DVec2::splat(1.0)).unwrap();
    let diamond = Shape::convex_polygon(vec![
        DVec2::new(0.0, -1.0),
        DVec2::new(1.0, 0.0),
        DVec2::new(0.0, 1.0),
        DVec2::new(-1.0, 0.0),
    ])
    .unwrap();
    let p = Pose::from_position(DVec2::new(3.0, 0.5));
    let r = distance(&sq, &Pose::IDENTITY, &diamond, &p, &opts, None);
    assert!((r.distance - 1.0).abs() < 1e-15);
    assert_eq!(r.feature_a, Feature::Edge(1, 3)); // the +x side: corners 0b01 and 0b11
    assert_eq!(r.feature_b, Feature::Vertex(3));
    let disc = Shape::ball(0.5).unwrap();
    let r = distance(&sq, &Pose::IDENTITY, &disc, &p, &opts, None);
    assert!((r.distance - 1.5).abs() < 1e-15);
    assert_eq!(
        (r.feature_a, r.feature_b),
        (Feature::Edge(1, 3), Feature::Curved)
    );
}

// ---------------------------------------------------------------------------------------------
// Warm start

/// Runs a coherent sequence (the pair turning and sliding a little each step) cold and warm;
/// returns the total support evaluations of each.
fn warm_start_sequence<V: Dim>(ka: &str, kb: &str, seed: u64, rel: f64) -> (u64, u64) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let opts = GjkOptions::default();
    let (mut cold, mut warm) = (0u64, 0u64);
    for _ in 0..20 {
        let a = random_shape::<V>(ka, &mut rng);
        let b = random_shape::<V>(kb, &mut rng);
        let mut cache = GjkCache::default();
        // Both move and turn a little each step (about 0.01 and 0.01 rad).
        let ma = RigidMotion::new(
            0.0,
            random_pose::<V>(&mut rng, 3.0),
            point(&mut rng, 1.0),
            V::random_angular(&mut rng),
        )
        .unwrap();
        let mb = RigidMotion::new(
            0.0,
            random_pose::<V>(&mut rng, 3.0),
            point(&mut rng, 1.0),
            V::random_angular(&mut rng),
        )
        .unwrap();
        for k in 0..100 {
            let t = k as f64 * 0.01;
            let (pa, pb) = (ma.pose_at(t), mb.pose_at(t));
            let c = distance(&a, &pa, &b, &pb, &opts, None);
            let w = distance(&a, &pa, &b, &pb, &opts, Some(&mut cache));
            assert_eq!(
                c.status == GjkStatus::Intersecting,
                w.status == GjkStatus::Intersecting
            );
            assert!(close(c.distance, w.distance, rel, 1e-12), "{c:?}\n{w:?}");
            cold += u64::from(c.iterations);
            warm += u64::from(w.iterations);
        }
    }
    (cold, warm)
}

#[test]
fn warm_start_gives_the_same_distances_with_fewer_iterations() {
    let mut report = vec![];
    for (ka, kb) in [
        ("cuboid", "triangle"),
        ("capsule", "cuboid"),
        ("segment", "triangle"),
    ] {
        let (c, w) = warm_start_sequence::<DVec3>(ka, kb, 5, 1e-9);
        report.push(format!("3D {ka}–{kb}: cold {c}, warm {w}"));
        assert!(w < c, "{report:?}");
    }
    for (ka, kb) in [("polygon", "polygon"), ("cuboid", "capsule")] {
        let (c, w) = warm_start_sequence::<DVec2>(ka, kb, 6, 1e-9);
        report.push(format!("2D {ka}–{kb}: cold {c}, warm {w}"));
        assert!(w < c, "{report:?}");
    }
    let (c, w) = warm_start_sequence::<DVec3>("cylinder", "cone", 7, 1e-8);
    report.push(format!("3D cylinder–cone: cold {c}, warm {w}"));
    assert!(w < c, "{report:?}");
    println!(
        "support evaluations over 2000 queries each:\n{}",
        report.join("\n")
    );
}

/// Compares with parry on `n` random poses of every pair of `kinds`; returns per pair the
/// worst difference relative to `max(distance, 1)` (the shapes' size is about 1) and how many
/// of parry's distances exceed our upper bound (parry less converged) or fall below our lower
/// bound (ours wrong).
fn compare_with_parry<V: Dim>(
    kinds: &[&'static str],
    n: usize,
    seed: u64,
    parry: impl Fn(&Shape<V>, &Pose<V>, &Shape<V>, &Pose<V>) -> f64,
) -> Vec<(&'static str, &'static str, f64, usize, usize)> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let opts = GjkOptions::default();
    let mut out = vec![];
    for &ka in kinds {
        for &kb in kinds {
            let (mut worst, mut above, mut below) = (0.0f64, 0, 0);
            for _ in 0..n {
                let (a, pa, b, pb) = random_pair::<V>(ka, kb, &mut rng);
                let ours = distance(&a, &pa, &b, &pb, &opts, None);
                assert_ne!(ours.status, GjkStatus::MaxIterations);
                let theirs = parry(&a, &pa, &b, &pb);
                worst = worst.max((ours.distance - theirs).abs() / ours.distance.max(1.0));
                let slack = 1e-12 * ours.distance.max(1.0);
                above += usize::from(theirs > ours.distance + slack);
                below += usize::from(theirs < ours.lower_bound - slack);
            }
            out.push((ka, kb, worst, above, below));
        }
    }
    out
}

#[test]
fn distances_agree_with_parry() {
    let n = 1200;
    let two = compare_with_parry::<DVec2>(&KINDS_2D, n, 8, |a, pa, b, pb| {
        parry2d_f64::query::distance(&parry_pose2(pa), &*parry2(a), &parry_pose2(pb), &*parry2(b))
            .unwrap()
            .distance
    });
    let kinds3 = [
        "ball",
        "cuboid",
        "capsule",
        "segment",
        "triangle",
        "cylinder",
        "cone",
        "polyhedron",
    ];
    let three = compare_with_parry::<DVec3>(&kinds3, n, 9, |a, pa, b, pb| {
        parry3d_f64::query::distance(&parry_pose3(pa), &*parry3(a), &parry_pose3(pb), &*parry3(b))
            .unwrap()
            .distance
    });
    let mut failures = vec![];
    for (dim, rows) in [(2, &two), (3, &three)] {
        for &(ka, kb, worst, above, below) in rows {
            println!(
                "{dim}D {ka:>8}–{kb:<8} worst difference {worst:.1e}, parry above our upper \
                 bound {above}, below our lower bound {below}"
            );
            // parry runs GJK on the curved support functions of capsules, cylinders and cones
            // and stops at its own tolerance; ours is certified by its two bounds.
            let curved = [ka, kb]
                .iter()
                .any(|k| ["capsule", "cylinder", "cone"].contains(k));
            // parry's distance is GJK's upper bound: never below our certified lower bound.
            if below > 0 || worst > if curved { 1e-5 } else { 1e-9 } {
                failures.push((dim, ka, kb, worst));
            }
        }
    }
    println!("{} pairs", (two.len() + three.len()) * n);
    assert!(failures.is_empty(), "{failures:?}");
}

// ---------------------------------------------------------------------------------------------
// The edge of contact: curved shapes a hair apart or a hair overlapping

fn random_rotation(rng: &mut Pcg64) -> DQuat {
    use rand::Rng;
    loop {
        let q = DQuat::from_xyzw(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        );
        if q.length() > 0.1 && q.length() < 1.0 {
            return q.normalize();
        }
    }
}

/// A direction to touch along: random, or one that lands on a face or the side of a cylinder
/// (an axis, or a horizontal one), where the contact is a whole face or line.
fn contact_direction(rng: &mut Pcg64) -> DVec3 {
    use rand::Rng;
    let mut u = DVec3::new(
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
    );
    match rng.gen_range(0..3) {
        0 => u = DVec3::unit(rng.gen_range(0..3)) * if u.x < 0.0 { -1.0 } else { 1.0 },
        1 => u.y = 0.0,
        _ => {}
    }
    u.normalize()
}

/// `a` and `b` touching at one point with opposite normals, then `b` moved by `gap` along the
/// normal from `a` to `b`: overlapping by `-gap` when it is negative (the point of `b` that
/// touched is then inside `a`: `a` is a cuboid or a cylinder, which contain `p − t n` for a
/// support point `p` along `n` and small `t > 0`), at distance `gap` otherwise. Both poses are
/// then moved by one random rigid motion.
fn touching_pair(
    a: &Shape<DVec3>,
    b: &Shape<DVec3>,
    gap: f64,
    rng: &mut Pcg64,
) -> (Pose<DVec3>, Pose<DVec3>) {
    use kairos_geometry::shape::SupportMap;
    use rand::Rng;
    let ua = contact_direction(rng);
    let ub = contact_direction(rng);
    let (pa, _) = a.local_support_feature(ua);
    let (pb, _) = b.local_support_feature(ub);
    // b's rotation takes ub to −ua; its position puts pb on pa, then `gap` along ua.
    let q0 = random_rotation(rng);
    let rb = DQuat::from_rotation_arc(q0 * ub, -ua) * q0;
    let xb = pa - rb * pb + ua * gap;
    let world = Pose::new(
        DVec3::new(
            rng.gen_range(-2.0..2.0),
            rng.gen_range(-2.0..2.0),
            rng.gen_range(-2.0..2.0),
        ),
        random_rotation(rng),
    );
    (world, world.compose(&Pose::new(xb, rb)))
}

#[test]
fn curved_shapes_at_the_edge_of_contact_are_never_separated_when_they_overlap() {
    use kairos_geometry::query::{time_of_impact, ToiOptions, ToiStatus};
    use rand::Rng;
    let mut rng = Pcg64::seed_from_u64(31);
    let opts = GjkOptions::default();
    let shape = |kind: &str, rng: &mut Pcg64| -> Shape<DVec3> {
        let mut s = || rng.gen_range(0.3..1.5);
        match kind {
            "cuboid" => Shape::cuboid(DVec3::new(s(), s(), s())),
            "cylinder" => Shape::cylinder(s(), s()),
            _ => Shape::cone(s(), s()),
        }
        .unwrap()
    };
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    let mut failures = vec![];
    for (ka, kb) in [
        ("cuboid", "cylinder"),
        ("cuboid", "cone"),
        ("cylinder", "cuboid"),
        ("cylinder", "cylinder"),
        ("cylinder", "cone"),
    ] {
        for e in 6..=12 {
            let size = 10f64.powi(-e);
            for gap in [-size, size] {
                for _ in 0..40 {
                    let a = shape(ka, &mut rng);
                    let b = shape(kb, &mut rng);
                    let (pa, pb) = touching_pair(&a, &b, gap, &mut rng);
                    for (x, px, y, py) in [(&a, &pa, &b, &pb), (&b, &pb, &a, &pa)] {
                        let r = distance(x, px, y, py, &opts, None);
                        let hit = intersects(x, px, y, py, &opts, None);
                        *counts
                            .entry(format!(
                                "{} {:?}",
                                if gap < 0.0 { "overlap" } else { "apart" },
                                r.status
                            ))
                            .or_default() += 1;
                        // The bounds bracket the distance (0 when overlapping).
                        let exact = gap.max(0.0);
                        let slack = 1e-13;
                        let bracketed = r.lower_bound <= exact + slack
                            && (r.status == GjkStatus::Intersecting || r.distance >= exact - slack);
                        // The time of impact with no distance tolerance rests on GJK's
                        // status alone: overlapping pairs at rest must be in contact.
                        let toi = time_of_impact(
                            x,
                            &RigidMotion::at_rest(0.0, *px),
                            y,
                            &RigidMotion::at_rest(0.0, *py),
                            0.0,
                            1.0,
                            &ToiOptions {
                                relative_tolerance: 0.0,
                                absolute_tolerance: 0.0,
                                ..ToiOptions::default()
                            },
                        );
                        let honest = if gap < 0.0 {
                            r.status != GjkStatus::Separated
                                && r.lower_bound == 0.0
                                && hit
                                && toi.status == ToiStatus::Penetrating
                        } else {
                            // Below 1e-10 the enclosure test on GJK's sliver tetrahedra near a
                            // curved surface carries rounding: a contact may be reported (the
                            // safe side), never a wrong separation.
                            gap < 1e-10 || r.status != GjkStatus::Intersecting
                        };
                        if !(bracketed && honest) {
                            failures.push((ka, kb, gap, r.status, r.distance, r.lower_bound, hit));
                        }
                    }
                }
            }
        }
    }
    println!("{counts:?}");
    assert!(
        failures.is_empty(),
        "{} failures, first {:?}",
        failures.len(),
        &failures[..failures.len().min(8)]
    );
}

// ---------------------------------------------------------------------------------------------
// Closed forms against the general loop

/// A shape seen only through its support function: `distance` runs the general GJK on it,
/// never a closed form.
struct Plain<'a, V: Vector>(&'a Shape<V>);

impl<V: Vector> kairos_geometry::shape::SupportMap<V> for Plain<'_, V> {
    fn local_support_feature(&self, d: V) -> (V, kairos_geometry::shape::FeatureId) {
        self.0.local_support_feature(d)
    }
}

impl<V: Vector> kairos_geometry::query::CoreSupport<V> for Plain<'_, V> {
    fn local_core_support(&self, d: V) -> (V, kairos_geometry::shape::FeatureId) {
        self.0.local_core_support(d)
    }
    fn core_radius(&self) -> f64 {
        self.0.core_radius()
    }
}

fn closed_forms_match_gjk<V: Dim>(seed: u64) -> usize {
    use kairos_geometry::query::CoreSupport;
    let mut rng = Pcg64::seed_from_u64(seed);
    let opts = GjkOptions::default();
    let mut separated = 0;
    for (ka, kb) in [
        ("ball", "ball"),
        ("ball", "cuboid"),
        ("cuboid", "ball"),
        ("ball", "capsule"),
        ("capsule", "ball"),
        ("cuboid", "cuboid"),
        ("polygon", "polygon"),
        ("cuboid", "polygon"),
        ("polygon", "cuboid"),
    ] {
        if V::DIM == 3 && (ka == "polygon" || kb == "polygon") {
            continue;
        }
        for _ in 0..2000 {
            let (a, pa, b, pb) = random_pair::<V>(ka, kb, &mut rng);
            let fast = distance(&a, &pa, &b, &pb, &opts, None);
            let slow = distance(&Plain(&a), &pa, &Plain(&b), &pb, &opts, None);
            let what = format!("{ka}–{kb} {fast:?} {slow:?}");
            assert_eq!(fast.status, slow.status, "{what}");
            assert_eq!(
                intersects(&a, &pa, &b, &pb, &opts, None),
                intersects(&Plain(&a), &pa, &Plain(&b), &pb, &opts, None),
                "{what}"
            );
            assert!(close(fast.distance, slow.distance, 1e-13, 1e-14), "{what}");
            if fast.status == GjkStatus::Separated {
                separated += 1;
                assert!(
                    close(fast.lower_bound, slow.lower_bound, 1e-12, 1e-14),
                    "{what}"
                );
                assert!((fast.point_a - slow.point_a).length() < 1e-13, "{what}");
                assert!((fast.point_b - slow.point_b).length() < 1e-13, "{what}");
                assert!((fast.normal - slow.normal).length() < 1e-12, "{what}");
                // Curved features and cuboid vertices and edges are unique; a cuboid face is
                // named by three of its vertices, which three depends on GJK's path.
                let unique = |f: Feature| !matches!(f, Feature::Face(..));
                if unique(slow.feature_a) && a.core_radius() == 0.0 || a.core_radius() > 0.0 {
                    assert_eq!(fast.feature_a, slow.feature_a, "{what}");
                }
                if unique(slow.feature_b) && b.core_radius() == 0.0 || b.core_radius() > 0.0 {
                    assert_eq!(fast.feature_b, slow.feature_b, "{what}");
                }
            }
        }
    }
    separated
}

#[test]
fn closed_forms_give_the_answers_of_the_general_loop() {
    let two = closed_forms_match_gjk::<DVec2>(41);
    let three = closed_forms_match_gjk::<DVec3>(42);
    assert!(two > 5000 && three > 5000, "{two} {three}");
}

// ---------------------------------------------------------------------------------------------
// Properties (proptest): over random kinds, shapes and poses, GJK's distance is the brute
// force's (never below it minus the tolerance, never above it plus), symmetric under swapping
// the pair, and invariant under a rigid motion of both shapes.

fn properties<V: Dim>(kinds: &[&str], ka: usize, kb: usize, seed: u64) -> Result<(), String> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let (ka, kb) = (kinds[ka % kinds.len()], kinds[kb % kinds.len()]);
    let (a, pa, b, pb) = random_pair::<V>(ka, kb, &mut rng);
    let opts = GjkOptions::default();
    let r = distance(&a, &pa, &b, &pb, &opts, None);
    let truth = brute(&a, &pa).distance(&brute(&b, &pb));
    let tol = 1e-9 * truth.max(1.0);
    let what = format!("{ka}–{kb} {a:?} {pa:?} {b:?} {pb:?}: {r:?}, brute force {truth}");
    if r.distance < truth - tol || r.distance > truth + tol || r.lower_bound > truth + tol {
        return Err(format!("distance: {what}"));
    }
    let s = distance(&b, &pb, &a, &pa, &opts, None);
    if !close(s.distance, r.distance, 1e-9, 1e-12) {
        return Err(format!("swapped {s:?}: {what}"));
    }
    let m = random_pose::<V>(&mut rng, 100.0);
    let t = distance(&a, &m.compose(&pa), &b, &m.compose(&pb), &opts, None);
    if !close(t.distance, r.distance, 1e-9, 1e-10) {
        return Err(format!("moved by {m:?}: {t:?}: {what}"));
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    #[test]
    fn distance_properties_2d(ka in 0usize..6, kb in 0usize..6, seed in proptest::prelude::any::<u64>()) {
        let r = properties::<DVec2>(&KINDS_2D, ka, kb, seed);
        proptest::prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    #[test]
    fn distance_properties_3d(ka in 0usize..5, kb in 0usize..5, seed in proptest::prelude::any::<u64>()) {
        let r = properties::<DVec3>(&KINDS_3D, ka, kb, seed);
        proptest::prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}
