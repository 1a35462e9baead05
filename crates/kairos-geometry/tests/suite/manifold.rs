//! Contact manifolds: closed forms (a box resting on a box, a tilted box, a capsule lying on a
//! box), ids that survive small motions, the deepest point against parry's contact on random
//! overlapping polytope pairs, and every point of random pairs of all shapes lying on both
//! surfaces (signed distance of the point to each shape, by GJK and EPA).

use crate::pairs;

use std::collections::BTreeSet;
use std::f64::consts::FRAC_PI_2;

use kairos_geometry::math::{DQuat, DVec2, DVec3, Rot2, Rotation, Vector};
use kairos_geometry::query::manifold::{contact_manifold, ContactId, Manifold};
use kairos_geometry::query::sat::SatCache;
use kairos_geometry::query::{distance, penetration, signed_distance, EpaOptions, GjkOptions};
use kairos_geometry::shape::{FeatureId, Pose, Shape, SupportMap};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use pairs::*;

fn ids<V: Vector>(m: &Manifold<V>) -> BTreeSet<ContactId> {
    m.points().iter().map(|p| p.id).collect()
}

fn id(a: FeatureId, b: FeatureId) -> ContactId {
    ContactId { a, b }
}

// ---------------------------------------------------------------------------------------------
// Closed forms

#[test]
fn box_on_box_touches_at_the_corners_of_the_smaller_face() {
    // 2D: a unit square sunk 0.01 into a wide ground, shifted by 0.3.
    let ground = Shape::cuboid(DVec2::new(5.0, 1.0)).unwrap();
    let sq = Shape::cuboid(DVec2::new(0.5, 0.5)).unwrap();
    let top = Pose::from_position(DVec2::new(0.3, 1.49));
    let m = contact_manifold(&ground, &Pose::IDENTITY, &sq, &top, 0.0, None);
    assert_eq!(m.points().len(), 2);
    assert_eq!(m.normal, DVec2::Y);
    let mut xs: Vec<f64> = m.points().iter().map(|p| p.point_b.x).collect();
    xs.sort_by(f64::total_cmp);
    assert!(
        (xs[0] + 0.2).abs() < 1e-15 && (xs[1] - 0.8).abs() < 1e-15,
        "{xs:?}"
    );
    for p in m.points() {
        assert!((p.separation + 0.01).abs() < 1e-14, "{p:?}");
        assert!((p.point_a.y - 1.0).abs() < 1e-15 && (p.point_b.y - 0.99).abs() < 1e-14);
        // The ground's top face (+y, face 2) and the square's bottom corners (bit 1 clear).
        assert_eq!(p.id.a, FeatureId::Face(2));
        assert!(matches!(p.id.b, FeatureId::Vertex(0 | 1)), "{p:?}");
    }
    // Seen from the square: the same points, normal and ids swapped.
    let s = contact_manifold(&sq, &top, &ground, &Pose::IDENTITY, 0.0, None);
    assert_eq!(s.normal, -DVec2::Y);
    assert_eq!(ids(&s), ids(&m.swapped()));

    // 3D: four corners.
    let ground = Shape::cuboid(DVec3::new(5.0, 1.0, 5.0)).unwrap();
    let cube = Shape::cuboid(DVec3::new(0.5, 0.5, 0.5)).unwrap();
    let top = Pose::from_position(DVec3::new(0.3, 1.49, -0.2));
    let m = contact_manifold(&ground, &Pose::IDENTITY, &cube, &top, 0.0, None);
    assert_eq!(m.points().len(), 4);
    assert_eq!(m.normal, DVec3::Y);
    for p in m.points() {
        assert!((p.separation + 0.01).abs() < 1e-14, "{p:?}");
        assert!((p.point_b - p.point_a - DVec3::Y * p.separation).length() < 1e-14);
        assert_eq!(p.id.a, FeatureId::Face(2));
        assert!(matches!(p.id.b, FeatureId::Vertex(0 | 1 | 4 | 5)), "{p:?}");
    }
    assert_eq!(ids(&m).len(), 4);

    // A wide box on a small one: the points are the small box's top corners.
    let small = Shape::cuboid(DVec3::new(0.5, 0.5, 0.5)).unwrap();
    let wide = Shape::cuboid(DVec3::new(2.0, 0.5, 2.0)).unwrap();
    let up = Pose::from_position(DVec3::new(0.1, 0.99, 0.2));
    let m = contact_manifold(&small, &Pose::IDENTITY, &wide, &up, 0.0, None);
    assert_eq!(m.points().len(), 4);
    for p in m.points() {
        assert!((p.separation + 0.01).abs() < 1e-14, "{p:?}");
        assert!((p.point_a.x.abs() - 0.5).abs() < 1e-14 && (p.point_a.z.abs() - 0.5).abs() < 1e-14);
    }
    // Apart by more than the prediction: nothing; within it: the same four points.
    let above = Pose::from_position(DVec3::new(0.1, 1.1, 0.2));
    assert!(contact_manifold(&small, &Pose::IDENTITY, &wide, &above, 0.05, None).is_empty());
    let m = contact_manifold(&small, &Pose::IDENTITY, &wide, &above, 0.2, None);
    assert_eq!(m.points().len(), 4);
    assert!(m
        .points()
        .iter()
        .all(|p| (p.separation - 0.1).abs() < 1e-14));
}

#[test]
fn a_tilted_box_touches_at_a_vertex_or_an_edge() {
    // 2D: a unit square turned by 0.5 rad, its lowest corner 0.01 into the ground.
    let ground = Shape::cuboid(DVec2::new(5.0, 1.0)).unwrap();
    let sq = Shape::cuboid(DVec2::new(0.5, 0.5)).unwrap();
    let rot = Rot2::from_angle(0.5);
    let low = sq.support(&Pose::new(DVec2::ZERO, rot), -DVec2::Y).y;
    let pose = Pose::new(DVec2::new(0.0, 1.0 - 0.01 - low), rot);
    let m = contact_manifold(&ground, &Pose::IDENTITY, &sq, &pose, 0.05, None);
    assert_eq!(m.points().len(), 1, "{m:?}");
    assert!((m.points()[0].separation + 0.01).abs() < 1e-14);
    assert!(matches!(m.points()[0].id.b, FeatureId::Vertex(_)));

    // 3D: turned about z, an edge along z rests on the ground: two points.
    let ground = Shape::cuboid(DVec3::new(5.0, 1.0, 5.0)).unwrap();
    let cube = Shape::cuboid(DVec3::new(0.5, 0.5, 0.5)).unwrap();
    for (q, want) in [
        (DQuat::from_rotation_z(0.4), 2),
        (DQuat::from_rotation_z(0.4) * DQuat::from_rotation_x(0.3), 1),
    ] {
        let low = cube.support(&Pose::new(DVec3::ZERO, q), -DVec3::Y).y;
        let pose = Pose::new(DVec3::new(0.2, 1.0 - 0.01 - low, 0.1), q);
        let m = contact_manifold(&ground, &Pose::IDENTITY, &cube, &pose, 0.05, None);
        assert_eq!(m.points().len(), want, "{m:?}");
        for p in m.points() {
            assert!((p.separation + 0.01).abs() < 1e-14, "{p:?}");
            assert!(matches!(p.id.b, FeatureId::Vertex(_)));
        }
    }
}

#[test]
fn a_capsule_lying_on_a_box_touches_at_two_points() {
    fn run<V: Dim>(lying: V::Rotation, tilt: V::Rotation) {
        let ground = Shape::<V>::cuboid(V::from_array3([5.0, 1.0, 5.0])).unwrap();
        let cap = Shape::<V>::capsule(1.0, 0.25).unwrap();
        let pose = Pose::new(V::unit(1) * (1.0 + 0.25 - 0.01), lying);
        let m = contact_manifold(&ground, &Pose::IDENTITY, &cap, &pose, 0.0, None);
        assert_eq!(m.points().len(), 2, "{m:?}");
        assert!((m.normal - V::unit(1)).length() < 1e-15);
        let got = ids(&m);
        let want: BTreeSet<_> = [0, 1]
            .map(|v| id(FeatureId::Face(2), FeatureId::Vertex(v)))
            .into();
        assert_eq!(got, want);
        for p in m.points() {
            assert!((p.separation + 0.01).abs() < 1e-14, "{p:?}");
            assert!((p.point_a.comp(1) - 1.0).abs() < 1e-14);
            assert!((p.point_b.comp(1) - 0.99).abs() < 1e-14);
            assert!((p.point_b.comp(0).abs() - 1.0).abs() < 1e-14);
        }
        // Swapped: the same contact from the capsule's side.
        let s = contact_manifold(&cap, &pose, &ground, &Pose::IDENTITY, 0.0, None);
        assert_eq!(ids(&s), ids(&m.swapped()));
        // Tilted a little: the lower end deeper, the upper one kept while within prediction.
        let tilted = Pose::new(pose.position, tilt);
        let m = contact_manifold(&ground, &Pose::IDENTITY, &cap, &tilted, 0.1, None);
        assert_eq!(m.points().len(), 2, "{m:?}");
        let seps: Vec<f64> = m.points().iter().map(|p| p.separation).collect();
        let lowest = cap.support(&tilted, -V::unit(1)).comp(1);
        let deepest = seps.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!(
            (deepest - (lowest - 1.0)).abs() < 1e-12,
            "{seps:?} {lowest}"
        );
        let m = contact_manifold(&ground, &Pose::IDENTITY, &cap, &tilted, 0.0, None);
        assert_eq!(m.points().len(), 1, "{m:?}");
    }
    run::<DVec2>(
        Rot2::from_angle(FRAC_PI_2),
        Rot2::from_angle(FRAC_PI_2 + 0.02),
    );
    run::<DVec3>(
        DQuat::from_rotation_z(FRAC_PI_2),
        DQuat::from_rotation_z(FRAC_PI_2 + 0.02),
    );
    // Two parallel capsules side by side: two points.
    let cap = Shape::<DVec3>::capsule(1.0, 0.25).unwrap();
    let other = Pose::new(DVec3::new(0.49, 0.3, 0.0), DQuat::IDENTITY);
    let m = contact_manifold(&cap, &Pose::IDENTITY, &cap, &other, 0.0, None);
    assert_eq!(m.points().len(), 2, "{m:?}");
    for p in m.points() {
        assert!((p.separation + 0.01).abs() < 1e-14, "{p:?}");
    }
}

#[test]
fn ids_survive_small_motions() {
    fn run<V: Lying>(kinds: &[(&str, &str)], seed: u64) -> usize {
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut checked = 0;
        for (ka, kb) in kinds {
            for _ in 0..300 {
                // b rests on a's top face, sunk a little, turned a little.
                let a = random_shape::<V>(ka, &mut rng);
                let b = random_shape::<V>(kb, &mut rng);
                let up = V::unit(1);
                let top = a.support(&Pose::IDENTITY, up).comp(1);
                let rot = V::integrate_rotation(
                    V::Rotation::IDENTITY,
                    V::random_angular(&mut rng),
                    if kb == &"capsule" { 0.0 } else { 0.05 },
                );
                let rot = if kb == &"capsule" { V::lying() } else { rot };
                let base = Pose::new(V::ZERO, rot);
                let low = b.support(&base, -up).comp(1);
                let sink = rng.gen_range(0.001..0.05);
                let shift = point::<V>(&mut rng, 0.2);
                let shift = shift - up * shift.comp(1);
                let pose = Pose::new(shift + up * (top - low - sink), rot);
                let m = contact_manifold(&a, &Pose::IDENTITY, &b, &pose, 0.0, None);
                if m.is_empty() {
                    continue;
                }
                for _ in 0..4 {
                    let d = point::<V>(&mut rng, 1e-6);
                    let w = V::random_angular(&mut rng);
                    let moved = Pose::new(pose.position + d, V::integrate_rotation(rot, w, 1e-6));
                    let m2 = contact_manifold(&a, &Pose::IDENTITY, &b, &moved, 0.0, None);
                    assert_eq!(ids(&m), ids(&m2), "{ka}-{kb}: {m:?} {m2:?}");
                    checked += 1;
                }
            }
        }
        checked
    }
    let n2 = run::<DVec2>(
        &[
            ("cuboid", "cuboid"),
            ("cuboid", "capsule"),
            ("polygon", "cuboid"),
        ],
        1,
    );
    let n3 = run::<DVec3>(
        &[
            ("cuboid", "cuboid"),
            ("cuboid", "capsule"),
            ("polyhedron", "cuboid"),
        ],
        2,
    );
    println!("{n2} moves in 2D, {n3} in 3D kept their ids");
    assert!(n2 > 2000 && n3 > 1500);
}

/// The rotation that lays local y along x.
trait Lying: Dim {
    fn lying() -> Self::Rotation;
}
impl Lying for DVec2 {
    fn lying() -> Rot2 {
        Rot2::from_angle(-FRAC_PI_2)
    }
}
impl Lying for DVec3 {
    fn lying() -> DQuat {
        DQuat::from_rotation_z(-FRAC_PI_2)
    }
}

// ---------------------------------------------------------------------------------------------
// Against parry, and on the surfaces

#[test]
fn the_deepest_point_is_parrys_contact_on_overlapping_polytopes() {
    let two = ["cuboid", "triangle", "polygon"];
    let three = ["cuboid", "triangle", "polyhedron"];
    let mut rng = Pcg64::seed_from_u64(11);
    let (mut total, mut other_normal, mut worst) = (0, 0, 0.0f64);
    let mut parry_off: Vec<String> = Vec::new();
    // `sep`, `n`: our deepest point and normal; `dist`, `pn`: parry's; `h_pn`: the translation
    // parry's normal needs; `epa`: EPA's depth.
    let mut check =
        |what: String, sep: f64, n: [f64; 3], dist: f64, pn: [f64; 3], h_pn: f64, epa: f64| {
            total += 1;
            if (sep - dist).abs() > 1e-9 {
                // Parry's contact is not the minimum translation: ours must be EPA's, and parry's
                // direction must need at least our depth.
                assert!(
                    (sep + epa).abs() <= 1e-9,
                    "{what}: {sep} vs parry {dist}, EPA {epa}"
                );
                assert!(
                    h_pn >= -sep - 1e-9,
                    "{what}: {sep} vs parry {dist}, h {h_pn}"
                );
                parry_off.push(format!("{what}: ours {sep:.6}, parry {dist:.6}"));
                return;
            }
            worst = worst.max((sep - dist).abs());
            let dn = (0..3).map(|i| (n[i] - pn[i]).powi(2)).sum::<f64>().sqrt();
            if dn > 1e-9 {
                // Another equally deep direction (two faces as deep): parry's normal needs no
                // longer a translation than ours.
                assert!(h_pn <= -sep + 1e-9, "{what}: normal {n:?} vs parry {pn:?}");
                other_normal += 1;
            }
        };
    for ka in two {
        for kb in two {
            for _ in 0..1500 {
                let (a, pa, b, mut pb) = random_pair::<DVec2>(ka, kb, &mut rng);
                pb.position = pa.position + point::<DVec2>(&mut rng, 1.5);
                let m = contact_manifold(&a, &pa, &b, &pb, 0.0, None);
                let Some(c) = parry2d_f64::query::contact(
                    &parry_pose2(&pa),
                    &*parry2(&a),
                    &parry_pose2(&pb),
                    &*parry2(&b),
                    0.0,
                )
                .unwrap() else {
                    assert!(m.points().iter().all(|p| p.separation >= -1e-9));
                    continue;
                };
                if c.dist > -1e-6 {
                    continue;
                }
                let d = m.deepest().expect("overlapping pair without contact");
                let pn = DVec2::new(c.normal1.x, c.normal1.y);
                let h = a.support(&pa, pn).dot(pn) - b.support(&pb, -pn).dot(pn);
                let epa = penetration(&a, &pa, &b, &pb, &EpaOptions::default()).depth;
                let what = format!("2D {ka}-{kb}");
                check(
                    what,
                    d.separation,
                    m.normal.as3().to_array(),
                    c.dist,
                    pn.as3().to_array(),
                    h,
                    epa,
                );
            }
        }
    }
    for ka in three {
        for kb in three {
            for _ in 0..1500 {
                let (a, pa, b, mut pb) = random_pair::<DVec3>(ka, kb, &mut rng);
                pb.position = pa.position + point::<DVec3>(&mut rng, 1.5);
                let m = contact_manifold(&a, &pa, &b, &pb, 0.0, None);
                let Some(c) = parry3d_f64::query::contact(
                    &parry_pose3(&pa),
                    &*parry3(&a),
                    &parry_pose3(&pb),
                    &*parry3(&b),
                    0.0,
                )
                .unwrap() else {
                    continue;
                };
                if c.dist > -1e-6 || (ka == "triangle" && kb == "triangle") {
                    continue;
                }
                let d = m.deepest().expect("overlapping pair without contact");
                let pn = DVec3::new(c.normal1.x, c.normal1.y, c.normal1.z);
                let h = a.support(&pa, pn).dot(pn) - b.support(&pb, -pn).dot(pn);
                let epa = penetration(&a, &pa, &b, &pb, &EpaOptions::default()).depth;
                let what = format!("3D {ka}-{kb}");
                check(
                    what,
                    d.separation,
                    m.normal.to_array(),
                    c.dist,
                    pn.to_array(),
                    h,
                    epa,
                );
            }
        }
    }
    println!(
        "{total} overlapping pairs, worst |separation − parry| {worst:.1e}, \
         {other_normal} with another equally deep normal, {} where parry is not the minimum \
         translation (ours is EPA's there):",
        parry_off.len()
    );
    for p in parry_off.iter().take(10) {
        println!("  {p}");
    }
    assert!(total > 5000 && parry_off.len() * 100 < total);
}

/// The distance from the point `x` to the shape (a ball of radius 1e-12 at `x`), by GJK.
fn dist_to<V: Dim>(s: &Shape<V>, pose: &Pose<V>, x: V) -> f64 {
    let dot = Shape::<V>::ball(1e-12).unwrap();
    distance(
        &dot,
        &Pose::from_position(x),
        s,
        pose,
        &GjkOptions::default(),
        None,
    )
    .distance
}

#[test]
fn the_points_lie_on_both_surfaces() {
    fn run<V: Dim>(kinds: &[&str], seed: u64) -> (usize, usize) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let (mut points, mut pairs) = (0, 0);
        let curved = |k: &str| ["ball", "capsule", "cylinder", "cone"].contains(&k);
        for ka in kinds {
            for kb in kinds {
                for _ in 0..150 {
                    let (a, pa, b, mut pb) = random_pair::<V>(ka, kb, &mut rng);
                    pb.position = pa.position + point::<V>(&mut rng, 1.5);
                    let prediction = 0.1;
                    let mut cache = SatCache::default();
                    let m = contact_manifold(&a, &pa, &b, &pb, prediction, Some(&mut cache));
                    let max = if V::DIM == 2 { 2 } else { 4 };
                    assert!(m.points().len() <= max);
                    if m.is_empty() {
                        // Apart by more than the prediction.
                        let s = signed_distance(&a, &pa, &b, &pb, &EpaOptions::default());
                        assert!(s > prediction - 1e-9, "{ka}-{kb}: {s}");
                        continue;
                    }
                    pairs += 1;
                    assert!((m.normal.length() - 1.0).abs() < 1e-12);
                    // EPA on curved shapes (their cores overlapping) converges on the normal
                    // and the points only to about the root of its tolerance.
                    let tol = if curved(ka) || curved(kb) { 1e-4 } else { 1e-9 };
                    for p in m.points() {
                        points += 1;
                        assert!(p.separation <= prediction);
                        // In (or on) each shape, and not deeper than `10 tol` below its
                        // surface: moved out along the normal by that much it is outside. A
                        // round shape's point is its core's point moved by the radius along
                        // the normal: on the surface where the normal is the core's, inside
                        // elsewhere (a tilted capsule's far end), so only the first test.
                        let n = m.normal;
                        let (ina, inb) = (dist_to(&a, &pa, p.point_a), dist_to(&b, &pb, p.point_b));
                        assert!(ina <= tol && inb <= tol, "{ka}-{kb}: {ina} {inb} {m:?}");
                        let round = |k: &str| ["ball", "capsule"].contains(&k);
                        let outa = dist_to(&a, &pa, p.point_a + n * (10.0 * tol));
                        let outb = dist_to(&b, &pb, p.point_b - n * (10.0 * tol));
                        assert!(outa > 0.0 || round(ka), "{ka}-{kb}: {outa} {m:?}");
                        assert!(outb > 0.0 || round(kb), "{ka}-{kb}: {outb} {m:?}");
                        let gap = p.point_b - p.point_a - m.normal * p.separation;
                        assert!(gap.length() <= tol, "{ka}-{kb}: {gap:?} {m:?}");
                    }
                }
            }
        }
        (points, pairs)
    }
    let (p2, n2) = run::<DVec2>(&KINDS_2D, 21);
    let (p3, n3) = run::<DVec3>(
        &[
            "ball",
            "cuboid",
            "capsule",
            "segment",
            "triangle",
            "cylinder",
            "cone",
            "polyhedron",
        ],
        22,
    );
    println!("2D: {p2} points of {n2} manifolds; 3D: {p3} points of {n3} manifolds");
}

#[test]
fn crossing_edges_touch_at_one_point() {
    // Two cubes on edge, the upper one's lower edge across the lower one's upper edge.
    let cube = Shape::cuboid(DVec3::splat(0.5)).unwrap();
    let pa = Pose::new(
        DVec3::ZERO,
        DQuat::from_rotation_x(std::f64::consts::FRAC_PI_4),
    );
    let h = 0.5 * std::f64::consts::SQRT_2;
    let pb = Pose::new(
        DVec3::new(0.1, 2.0 * h - 0.01, -0.2),
        DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4),
    );
    let m = contact_manifold(&cube, &pa, &cube, &pb, 0.0, None);
    assert_eq!(m.points().len(), 1, "{m:?}");
    let p = m.points()[0];
    assert!(
        matches!((p.id.a, p.id.b), (FeatureId::Edge(_), FeatureId::Edge(_))),
        "{p:?}"
    );
    assert!((p.separation + 0.01).abs() < 1e-12, "{p:?}");
    assert!((m.normal - DVec3::Y).length() < 1e-12);
    // On a's edge (x free, y = h, z = 0) under b's edge (x = 0.1, z free).
    assert!(
        (p.point_a - DVec3::new(0.1, h, 0.0)).length() < 1e-12,
        "{p:?}"
    );
    assert!(
        (p.point_b - DVec3::new(0.1, h - 0.01, 0.0)).length() < 1e-12,
        "{p:?}"
    );
}

#[test]
fn the_cache_changes_nothing_but_the_work() {
    let mut rng = Pcg64::seed_from_u64(31);
    let mut nonempty = 0;
    for _ in 0..100 {
        let (a, pa, b, _) = random_pair::<DVec3>("cuboid", "cuboid", &mut rng);
        let start = point::<DVec3>(&mut rng, 1.0) - DVec3::X * 5.0;
        let w = DVec3::random_angular(&mut rng);
        let mut cache = SatCache::default();
        for k in 0..300 {
            let t = k as f64 / 30.0;
            let pb = Pose::new(
                pa.position + start + DVec3::X * t,
                DQuat::from_scaled_axis(w * t),
            );
            let cold = contact_manifold(&a, &pa, &b, &pb, 0.05, None);
            let warm = contact_manifold(&a, &pa, &b, &pb, 0.05, Some(&mut cache));
            assert_eq!(cold, warm, "step {k}");
            nonempty += !cold.is_empty() as u32;
        }
    }
    assert!(nonempty > 1000);
}
