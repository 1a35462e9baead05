//! EPA against closed forms (ball–ball, axis-aligned box–box, ball–box), against parry's contact
//! on random overlapping pairs of every shape pair both libraries have, and its defining
//! properties: the translation `depth · normal` of `b` is the smallest that separates (a little
//! more separates, a little less does not), and swapping the pair negates the normal.
//!
//! The minimum translation is not always unique (two faces of a box equally deep): a normal that
//! differs from the reference counts as such a case, not a failure, when the reference's
//! direction needs no longer a translation than ours (`h(n') ≤ depth` within the tolerance, with
//! `h` the support function of the Minkowski difference). Those cases are counted and printed.

use crate::pairs;

use kairos_geometry::math::{DQuat, DVec2, DVec3, Vector};
use kairos_geometry::query::{
    distance, intersects, penetration, signed_distance, EpaOptions, EpaResult, EpaStatus,
    GjkOptions, GjkStatus,
};
use kairos_geometry::shape::{Pose, Shape, SupportMap};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use pairs::*;

/// `h_{A−B}(n)`: moving `b` by `t n` separates the shapes exactly when `t > h(n)`.
fn h<V: Vector>(a: &Shape<V>, pa: &Pose<V>, b: &Shape<V>, pb: &Pose<V>, n: V) -> f64 {
    a.support(pa, n).dot(n) - b.support(pb, -n).dot(n)
}

fn epa<V: Vector>(a: &Shape<V>, pa: &Pose<V>, b: &Shape<V>, pb: &Pose<V>) -> EpaResult<V> {
    penetration(a, pa, b, pb, &EpaOptions::default())
}

fn curved(k: &str) -> bool {
    ["ball", "capsule", "cylinder", "cone"].contains(&k)
}

/// Whether `n` is as good a direction as the result's normal: `h(n)` within `tol` of the depth.
fn equally_deep<V: Vector>(
    r: &EpaResult<V>,
    (a, pa, b, pb): (&Shape<V>, &Pose<V>, &Shape<V>, &Pose<V>),
    n: V,
    tol: f64,
) -> bool {
    h(a, pa, b, pb, n) <= r.depth + tol
}

// ---------------------------------------------------------------------------------------------
// Closed forms

#[test]
fn ball_ball_depth_is_the_radius_sum_minus_the_distance() {
    fn run<V: Dim>(seed: u64) {
        let mut rng = Pcg64::seed_from_u64(seed);
        for _ in 0..2000 {
            let (r1, r2) = (size(&mut rng), size(&mut rng));
            let c1: V = point(&mut rng, 3.0);
            let dir: V = point(&mut rng, 1.0);
            if dir.length() < 0.1 {
                continue;
            }
            let dir = dir * (1.0 / dir.length());
            let d = rng.gen_range(0.0..1.0) * (r1 + r2);
            let (a, b) = (Shape::ball(r1).unwrap(), Shape::ball(r2).unwrap());
            let pa = Pose::new(c1, V::random_rotation(&mut rng));
            let pb = Pose::new(c1 + dir * d, V::random_rotation(&mut rng));
            let r = epa::<V>(&a, &pa, &b, &pb);
            let want = r1 + r2 - d;
            assert!(close(r.depth, want, 1e-12, 1e-14), "{r:?} {want}");
            assert_eq!(r.status, EpaStatus::Penetrating);
            assert!((r.normal - dir).length() < 1e-9, "{r:?} {dir:?}");
            assert!((r.point_a - (c1 + dir * r1)).length() < 1e-12);
            assert!((r.point_b - (c1 + dir * (d - r2))).length() < 1e-12);
        }
        // Same centre: the cores coincide and EPA runs on the balls themselves.
        let (a, b) = (Shape::ball(0.7).unwrap(), Shape::ball(0.4).unwrap());
        let p = Pose::from_position(V::splat(0.3));
        let r = epa::<V>(&a, &p, &b, &p);
        assert!(close(r.depth, 1.1, 1e-9, 0.0), "{r:?}");
        assert!(
            r.lower_bound <= 1.1 && r.depth >= 1.1 * (1.0 - 1e-12),
            "{r:?}"
        );
    }
    run::<DVec2>(1);
    run::<DVec3>(2);
}

/// Axis-aligned boxes (then both turned by a common rigid motion): the depth is the smallest
/// overlap over the axes, the normal that axis.
#[test]
fn box_box_depth_is_the_smallest_axis_overlap() {
    fn run<V: Dim>(seed: u64) -> usize {
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut ties = 0;
        for _ in 0..2000 {
            let ha = V::from_array3([0; 3].map(|_| size(&mut rng)));
            let hb = V::from_array3([0; 3].map(|_| size(&mut rng)));
            let offset = V::from_array3(std::array::from_fn(|i| {
                if i < V::DIM {
                    let s = ha.comp(i) + hb.comp(i);
                    rng.gen_range(-0.999..0.999) * s
                } else {
                    0.0
                }
            }));
            let overlaps: Vec<f64> = (0..V::DIM)
                .map(|i| ha.comp(i) + hb.comp(i) - offset.comp(i).abs())
                .collect();
            let axis = (0..V::DIM)
                .min_by(|&i, &j| overlaps[i].total_cmp(&overlaps[j]))
                .unwrap();
            let depth = overlaps[axis];
            let sign = if offset.comp(axis) >= 0.0 { 1.0 } else { -1.0 };
            let want_n = V::unit(axis) * sign;
            let motion = Pose::<V>::new(point(&mut rng, 5.0), V::random_rotation(&mut rng));
            let (a, b) = (Shape::cuboid(ha).unwrap(), Shape::cuboid(hb).unwrap());
            let pa = motion;
            let pb = motion.compose(&Pose::from_position(offset));
            let r = epa::<V>(&a, &pa, &b, &pb);
            assert_eq!(r.status, EpaStatus::Penetrating, "{r:?}");
            assert!(close(r.depth, depth, 1e-10, 1e-12), "{r:?} {depth}");
            let tie = overlaps
                .iter()
                .enumerate()
                .any(|(i, &o)| i != axis && o - depth < 1e-9);
            if tie {
                ties += 1;
                continue;
            }
            let n = motion.transform_vector(want_n);
            assert!((r.normal - n).length() < 1e-9, "{r:?} {n:?}");
            // The contact points are on the boxes, depth apart along the normal.
            assert!((r.point_a - r.point_b - r.normal * r.depth).length() < 1e-9);
        }
        ties
    }
    let ties = run::<DVec2>(3) + run::<DVec3>(4);
    println!("box–box: {ties} ties between axes");
}

/// A ball against an axis-aligned box: centre outside (the cores are apart: exact) or inside
/// (EPA on the full shapes: the nearest boundary is flat).
#[test]
fn ball_box_matches_the_closed_form() {
    fn run<V: Dim>(seed: u64) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let (mut inside, mut outside) = (0, 0);
        while inside + outside < 2000 {
            let hx = V::from_array3([0; 3].map(|_| size(&mut rng)));
            let r = size(&mut rng);
            let c: V = point(&mut rng, 2.0);
            let clamped = c.max(-hx).min(hx);
            let out = (c - clamped).length();
            let (depth, n) = if out > 0.0 {
                (r - out, (c - clamped) * (1.0 / out))
            } else {
                let gaps: Vec<f64> = (0..V::DIM).map(|i| hx.comp(i) - c.comp(i).abs()).collect();
                let axis = (0..V::DIM)
                    .min_by(|&i, &j| gaps[i].total_cmp(&gaps[j]))
                    .unwrap();
                if gaps
                    .iter()
                    .enumerate()
                    .any(|(i, &g)| i != axis && g - gaps[axis] < 1e-6)
                {
                    continue;
                }
                let s = if c.comp(axis) >= 0.0 { 1.0 } else { -1.0 };
                (r + gaps[axis], V::unit(axis) * s)
            };
            if depth <= 1e-6 {
                continue;
            }
            let (a, b) = (Shape::cuboid(hx).unwrap(), Shape::ball(r).unwrap());
            let res = epa::<V>(&a, &Pose::IDENTITY, &b, &Pose::from_position(c));
            assert!(close(res.depth, depth, 1e-9, 1e-12), "{res:?} {depth}");
            assert!((res.normal - n).length() < 1e-6, "{res:?} {n:?}");
            if out > 0.0 {
                outside += 1;
            } else {
                inside += 1;
            }
        }
        assert!(inside > 200 && outside > 200, "{inside} {outside}");
    }
    run::<DVec2>(5);
    run::<DVec3>(6);
}

// ---------------------------------------------------------------------------------------------
// parry

/// One row of the comparison: per shape pair, overlapping pairs, the worst depth difference
/// (relative to `max(depth, 1)`), the worst `1 − n·n'` of unique minima, non-unique cases, our
/// statuses other than converged with the worst gap between their bounds, and the pairs where
/// parry's depth is not a separating translation along its own normal (left out of the worst
/// differences; ours must then be no longer than that normal needs).
#[derive(Debug, Default)]
struct Row {
    ka: &'static str,
    kb: &'static str,
    overlapping: usize,
    worst_depth: f64,
    worst_normal: f64,
    non_unique: usize,
    unconverged: usize,
    /// The worst gap between our bounds (relative) of the unconverged.
    worst_gap: f64,
    /// Pairs where parry's depth is shorter than its own normal allows.
    parry_short: usize,
}

fn compare_with_parry<V: Dim>(
    kinds: &[&'static str],
    n: usize,
    seed: u64,
    parry: impl Fn(&Shape<V>, &Pose<V>, &Shape<V>, &Pose<V>) -> Option<(f64, V)>,
) -> Vec<Row> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut out = vec![];
    for &ka in kinds {
        for &kb in kinds {
            let mut row = Row {
                ka,
                kb,
                ..Row::default()
            };
            for _ in 0..n {
                let a = random_shape::<V>(ka, &mut rng);
                let b = random_shape::<V>(kb, &mut rng);
                let (pa, pb) = (random_pose::<V>(&mut rng, 0.8), random_pose(&mut rng, 0.8));
                let Some((dist, normal)) = parry(&a, &pa, &b, &pb) else {
                    continue;
                };
                let r = epa(&a, &pa, &b, &pb);
                if dist >= 0.0 || r.status == EpaStatus::Separated {
                    // Touching at most on one side: both near zero.
                    assert!(dist.abs() < 1e-9 && r.depth < 1e-9, "{dist} {r:?}");
                    continue;
                }
                row.overlapping += 1;
                if !matches!(r.status, EpaStatus::Penetrating | EpaStatus::Touching) {
                    row.unconverged += 1;
                    row.worst_gap = row
                        .worst_gap
                        .max((r.depth - r.lower_bound) / r.depth.max(1.0));
                }
                let depth = -dist;
                // parry's depth below what its own normal needs (`h(n')`) is not a separating
                // translation: there ours must be no longer than `h(n')`.
                let hp = h(&a, &pa, &b, &pb, normal);
                if depth < hp - 1e-9 * hp.max(1.0) && (r.depth - depth).abs() > 1e-9 {
                    row.parry_short += 1;
                    assert!(r.depth <= hp + 1e-9, "{ka}–{kb} {r:?} parry {depth} h {hp}");
                    continue;
                }
                row.worst_depth = row
                    .worst_depth
                    .max((r.depth - depth).abs() / depth.max(1.0));
                let off = 1.0 - r.normal.dot(normal);
                if off > 1e-6 && equally_deep(&r, (&a, &pa, &b, &pb), normal, 1e-9 * depth.max(1.0))
                {
                    row.non_unique += 1;
                } else {
                    row.worst_normal = row.worst_normal.max(off);
                }
            }
            out.push(row);
        }
    }
    out
}

#[test]
fn depths_and_normals_agree_with_parry() {
    let n = 1200;
    let two = compare_with_parry::<DVec2>(&KINDS_2D, n, 7, |a, pa, b, pb| {
        let c = parry2d_f64::query::contact(
            &parry_pose2(pa),
            &*parry2(a),
            &parry_pose2(pb),
            &*parry2(b),
            0.0,
        )
        .unwrap()?;
        Some((c.dist, DVec2::new(c.normal1.x, c.normal1.y)))
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
    let three = compare_with_parry::<DVec3>(&kinds3, n, 8, |a, pa, b, pb| {
        let c = parry3d_f64::query::contact(
            &parry_pose3(pa),
            &*parry3(a),
            &parry_pose3(pb),
            &*parry3(b),
            0.0,
        )
        .unwrap()?;
        Some((c.dist, DVec3::new(c.normal1.x, c.normal1.y, c.normal1.z)))
    });
    let mut failures = vec![];
    let (mut total, mut non_unique, mut short, mut unconverged) = (0, 0, 0, 0);
    for (dim, rows) in [(2, &two), (3, &three)] {
        for row in rows.iter() {
            println!(
                "{dim}D {:>8}–{:<8} {:4} overlapping, worst depth difference {:.1e}, worst \
                 1 − n·n' {:.1e}, non-unique {}, unconverged {} (gap {:.1e}), parry short {}",
                row.ka,
                row.kb,
                row.overlapping,
                row.worst_depth,
                row.worst_normal,
                row.non_unique,
                row.unconverged,
                row.worst_gap,
                row.parry_short
            );
            short += row.parry_short;
            unconverged += row.unconverged;
            total += row.overlapping;
            non_unique += row.non_unique;
            let round = curved(row.ka) || curved(row.kb);
            let (dt, nt) = if round { (1e-8, 1e-8) } else { (1e-9, 1e-12) };
            // Segments and triangles in 3D are flat: pairs of them seldom overlap in volume.
            let flat = ["segment", "triangle"];
            let rare = dim == 3 && flat.contains(&row.ka) && flat.contains(&row.kb);
            let few = row.overlapping < if rare { 0 } else { n / 10 };
            if row.worst_depth > dt || row.worst_normal > nt || row.worst_gap > 1e-8 || few {
                failures.push((dim, row.ka, row.kb, row.worst_depth, row.worst_normal));
            }
        }
    }
    println!(
        "{total} overlapping pairs, {non_unique} with a non-unique minimum translation, \
         {unconverged} stopped by rounding, {short} where parry's depth is short"
    );
    assert!(failures.is_empty(), "{failures:?}");
}

// ---------------------------------------------------------------------------------------------
// Properties

/// Moving `b` by `(depth + ε) · normal` separates the pair; by `(depth − ε) · normal` it does
/// not; swapping the pair gives the same depth and the opposite normal (or an equally deep one).
fn check_properties<V: Dim>(kinds: &[&'static str], n: usize, seed: u64) -> (usize, usize) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let gjk = GjkOptions::default();
    let (mut checked, mut non_unique) = (0, 0);
    for &ka in kinds {
        for &kb in kinds {
            for _ in 0..n {
                let a = random_shape::<V>(ka, &mut rng);
                let b = random_shape::<V>(kb, &mut rng);
                let (pa, pb) = (random_pose::<V>(&mut rng, 0.8), random_pose(&mut rng, 0.8));
                let r = epa(&a, &pa, &b, &pb);
                if r.status == EpaStatus::Separated {
                    continue;
                }
                assert!(r.depth.is_finite() && r.normal.is_finite(), "{r:?}");
                assert!(r.lower_bound <= r.depth, "{r:?}");
                if r.depth < 1e-6 {
                    continue;
                }
                checked += 1;
                let scale = 1.0f64.max(r.depth);
                // The depth is an upper bound: a little more always separates. On curved shapes
                // GJK certifies so small a gap only when its iterations get there; otherwise it
                // reports them touching within its tolerance, never intersecting.
                let eps = 1e-9 * scale;
                let moved = |t: f64| Pose::new(pb.position + r.normal * t, pb.rotation);
                let apart = distance(&a, &pa, &b, &moved(r.depth + eps), &gjk, None);
                assert!(
                    if curved(ka) || curved(kb) {
                        apart.status != GjkStatus::Intersecting
                    } else {
                        !intersects(&a, &pa, &b, &moved(r.depth + eps), &gjk, None)
                    },
                    "{ka}–{kb} {r:?} {apart:?}"
                );
                // Minimality, to the tolerance of the shape pair.
                let slack = if curved(ka) || curved(kb) { 1e-6 } else { 1e-9 } * scale;
                assert!(
                    r.depth - r.lower_bound <= slack,
                    "{ka}–{kb} bounds apart {r:?}"
                );
                assert!(
                    intersects(&a, &pa, &b, &moved(r.depth - slack), &gjk, None),
                    "{ka}–{kb} {r:?}"
                );
                // Swapped pair.
                let s = epa(&b, &pb, &a, &pa);
                assert!(close(s.depth, r.depth, 0.0, 2.0 * slack), "{r:?} {s:?}");
                // On curved shapes the depth is stationary in the normal, so a depth to `ε`
                // fixes the normal to about `√ε`.
                let normal_tol = if curved(ka) || curved(kb) { 1e-4 } else { 1e-9 };
                if (s.normal + r.normal).length() > normal_tol {
                    assert!(
                        equally_deep(&r, (&a, &pa, &b, &pb), -s.normal, 2.0 * slack),
                        "{ka}–{kb} {r:?} {s:?}"
                    );
                    non_unique += 1;
                }
            }
        }
    }
    (checked, non_unique)
}

#[test]
fn depth_times_normal_is_the_minimum_translation_and_swapping_negates_it() {
    let (c2, u2) = check_properties::<DVec2>(&KINDS_2D, 150, 9);
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
    let (c3, u3) = check_properties::<DVec3>(&kinds3, 150, 10);
    println!("2D: {c2} pairs ({u2} non-unique), 3D: {c3} pairs ({u3} non-unique)");
    assert!(c2 > 2000 && c3 > 3000, "{c2} {c3}");
}

#[test]
fn separated_pairs_give_the_gjk_distance_and_signed_distance_is_negative_inside() {
    let cube = Shape::<DVec3>::cuboid(DVec3::ONE).unwrap();
    let opts = EpaOptions::default();
    for (x, want) in [(3.5, 1.5), (2.0, 0.0), (1.25, -0.75), (0.0, -2.0)] {
        let pb = Pose::new(DVec3::new(x, 0.0, 0.0), DQuat::IDENTITY);
        let d = signed_distance(&cube, &Pose::IDENTITY, &cube, &pb, &opts);
        // At x = 0 the translation is not unique; its length is 2 along any axis.
        assert!((d - want).abs() < 1e-12, "{x}: {d}");
    }
    // Same box, same place: six equally short translations; any of them, along an axis.
    let r = penetration(&cube, &Pose::IDENTITY, &cube, &Pose::IDENTITY, &opts);
    assert!((r.depth - 2.0).abs() < 1e-12, "{r:?}");
    assert!((r.normal.abs().max_element() - 1.0).abs() < 1e-12, "{r:?}");
    // Face to face contact: touching, depth 0.
    let r = penetration(
        &cube,
        &Pose::IDENTITY,
        &cube,
        &Pose::from_position(DVec3::X * 2.0),
        &opts,
    );
    assert!(
        matches!(r.status, EpaStatus::Touching | EpaStatus::Separated) && r.depth == 0.0,
        "{r:?}"
    );
    // Two crossing segments in 3D: a flat Minkowski difference, touching with depth 0.
    let s = Shape::<DVec3>::segment(DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0)).unwrap();
    let t = Shape::<DVec3>::segment(DVec3::new(0.0, -1.0, 0.0), DVec3::new(0.0, 1.0, 0.0)).unwrap();
    let r = penetration(&s, &Pose::IDENTITY, &t, &Pose::IDENTITY, &opts);
    assert_eq!((r.status, r.depth), (EpaStatus::Touching, 0.0), "{r:?}");
    assert!((r.normal.z.abs() - 1.0).abs() < 1e-12, "{r:?}");
    // Crossing segments in 2D have a depth: the shorter way to uncross them.
    let s2 = Shape::<DVec2>::segment(DVec2::new(-1.0, 0.0), DVec2::new(1.0, 0.0)).unwrap();
    let t2 = Shape::<DVec2>::segment(DVec2::new(0.0, -0.5), DVec2::new(0.0, 1.0)).unwrap();
    let r = penetration(&s2, &Pose::IDENTITY, &t2, &Pose::IDENTITY, &opts);
    assert!(
        (r.depth - 0.5).abs() < 1e-12 && (r.normal - DVec2::Y).length() < 1e-12,
        "{r:?}"
    );
}

#[test]
fn the_iteration_limit_reports_both_bounds() {
    let cyl = Shape::<DVec3>::cylinder(1.0, 1.0).unwrap();
    let cone = Shape::<DVec3>::cone(1.0, 0.8).unwrap();
    let pb = Pose::new(DVec3::new(0.3, 0.2, 0.1), DQuat::from_rotation_x(0.7));
    let few = EpaOptions {
        max_iterations: 3,
        ..EpaOptions::default()
    };
    let r = penetration(&cyl, &Pose::IDENTITY, &cone, &pb, &few);
    let full = penetration(&cyl, &Pose::IDENTITY, &cone, &pb, &EpaOptions::default());
    assert_eq!(r.status, EpaStatus::MaxIterations, "{r:?}");
    assert!(r.lower_bound <= full.depth + 1e-9 && full.lower_bound <= r.depth + 1e-9);
    assert!(r.depth - r.lower_bound >= full.depth - full.lower_bound);
}

#[test]
fn far_from_the_origin_the_answer_is_the_same() {
    let opts = EpaOptions::default();
    let far = DVec3::new(1e6, -3e5, 2e6);
    let a = Shape::<DVec3>::cuboid(DVec3::new(1.0, 0.5, 0.7)).unwrap();
    let b = Shape::<DVec3>::cone(0.8, 0.6).unwrap();
    let rot = DQuat::from_rotation_z(0.4) * DQuat::from_rotation_x(1.1);
    let offset = DVec3::new(0.9, 0.3, -0.2);
    let near = penetration(&a, &Pose::IDENTITY, &b, &Pose::new(offset, rot), &opts);
    let moved = penetration(
        &a,
        &Pose::from_position(far),
        &b,
        &Pose::new(far + offset, rot),
        &opts,
    );
    assert!(
        near.depth > 0.1 && near.status == EpaStatus::Penetrating,
        "{near:?}"
    );
    assert!(
        (near.depth - moved.depth).abs() < 1e-9,
        "{near:?} {moved:?}"
    );
    assert!(
        (near.normal - moved.normal).length() < 1e-4,
        "{near:?} {moved:?}"
    );
    assert!((moved.point_a - far - near.point_a).length() < 1e-4);
}

/// Balls and capsules whose cores overlap as well: the depth is the cores' depth plus the radii,
/// also where the cores' Minkowski difference is flat (concentric balls, a ball centred on a
/// capsule's axis, crossing capsules).
#[test]
fn overlapping_cores_add_the_radii() {
    let opts = EpaOptions::default();
    let check = |r: EpaResult<DVec3>, want: f64, what: &str| {
        assert_eq!(r.status, EpaStatus::Penetrating, "{what}: {r:?}");
        assert!(
            close(r.depth, want, 1e-12, 1e-15),
            "{what}: {r:?} want {want}"
        );
        assert!((r.normal.length() - 1.0).abs() < 1e-12, "{what}: {r:?}");
        let gap = r.point_a - r.point_b - r.normal * r.depth;
        assert!(gap.length() < 1e-12, "{what}: {r:?}");
    };
    let (b1, b2) = (Shape::ball(0.5).unwrap(), Shape::ball(0.25).unwrap());
    let at = |x: DVec3| Pose::from_position(x);
    let p = DVec3::new(0.3, -1.0, 2.0);
    check(
        penetration(&b1, &at(p), &b2, &at(p), &opts),
        0.75,
        "concentric balls",
    );
    let cap = Shape::capsule(1.0, 0.2).unwrap();
    check(
        penetration(&cap, &at(p), &b2, &at(p + DVec3::Y * 0.4), &opts),
        0.45,
        "ball on the capsule's axis",
    );
    let across = Pose::new(p, DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2));
    check(
        penetration(&cap, &at(p), &cap, &across, &opts),
        0.4,
        "crossing capsules",
    );
    // A ball's centre inside a box, 0.1 below the top face: 0.1 + radius along +y.
    let cube = Shape::cuboid(DVec3::ONE).unwrap();
    let r = penetration(
        &cube,
        &at(DVec3::ZERO),
        &b2,
        &at(DVec3::new(0.2, 0.9, -0.3)),
        &opts,
    );
    check(r, 0.35, "ball centre inside a box");
    assert!((r.normal - DVec3::Y).length() < 1e-12, "{r:?}");
}

/// A fast path's penetration (`fast`) against the general expansion's on the same pair: the
/// same verdict and signed distance, points `depth` apart along the normal, and the same normal
/// but for ties (the expansion's normal then needs no longer a translation). Whether the pair
/// penetrates.
fn same_penetration<V: Vector>(
    fast: &EpaResult<V>,
    general: &EpaResult<V>,
    (a, pa, b, pb): (&Shape<V>, &Pose<V>, &Shape<V>, &Pose<V>),
    what: &str,
) -> bool {
    let what = format!("{what}\n{fast:?}\n{general:?}");
    assert_eq!(
        fast.status == EpaStatus::Separated,
        general.status == EpaStatus::Separated,
        "{what}"
    );
    assert!(
        close(
            fast.signed_distance(),
            general.signed_distance(),
            1e-9,
            1e-12
        ),
        "{what}"
    );
    if fast.status != EpaStatus::Penetrating {
        return false;
    }
    let gap = fast.point_a - fast.point_b - fast.normal * fast.depth;
    assert!(gap.length() < 1e-12, "{what}");
    if (fast.normal - general.normal).length() > 1e-6 {
        assert!(
            h(a, pa, b, pb, general.normal) <= fast.depth + 1e-9,
            "{what}"
        );
    }
    true
}

/// The closed form of a ball against a cuboid (taken for `Shape` pairs) against the general
/// expansion (taken for the concrete shape types), on random pairs, the ball's centre inside
/// the box for most of them.
#[test]
fn ball_cuboid_closed_form_matches_the_expansion() {
    fn run<V: Dim>(seed: u64) -> usize {
        let mut rng = Pcg64::seed_from_u64(seed);
        let opts = EpaOptions::default();
        let mut compared = 0;
        for _ in 0..4000 {
            let ball = kairos_geometry::shape::Ball::new(size(&mut rng)).unwrap();
            let half = V::from_array3([0; 3].map(|_| size(&mut rng)));
            let cube = kairos_geometry::shape::Cuboid::new(half).unwrap();
            let (pc, pb) = (
                random_pose::<V>(&mut rng, 1.0),
                random_pose::<V>(&mut rng, 1.0),
            );
            let (sb, sc) = (Shape::Ball(ball), Shape::Cuboid(cube));
            for swap in [false, true] {
                let (closed, general) = if swap {
                    (
                        penetration(&sb, &pb, &sc, &pc, &opts),
                        penetration(&ball, &pb, &cube, &pc, &opts),
                    )
                } else {
                    (
                        penetration(&sc, &pc, &sb, &pb, &opts),
                        penetration(&cube, &pc, &ball, &pb, &opts),
                    )
                };
                let pair = if swap {
                    (&sb, &pb, &sc, &pc)
                } else {
                    (&sc, &pc, &sb, &pb)
                };
                compared += usize::from(same_penetration(&closed, &general, pair, "ball-cuboid"));
            }
        }
        compared
    }
    let (two, three) = (run::<DVec2>(31), run::<DVec3>(32));
    println!("penetrating pairs compared: 2D {two}, 3D {three}");
    assert!(two > 2000 && three > 2000);
}

/// Two overlapping solid polygons given as `Shape`s take the separating axis test; the same
/// shapes given as their own types take the expansion. Both must give the same depth and
/// signed distance (the normal too, but for ties), on random pairs.
#[test]
fn polygons_by_separating_axes_match_the_expansion() {
    let mut rng = Pcg64::seed_from_u64(33);
    let opts = EpaOptions::default();
    let kinds = ["cuboid", "triangle", "polygon"];
    let mut compared = 0;
    for &ka in &kinds {
        for &kb in &kinds {
            for _ in 0..1500 {
                let a = random_shape::<DVec2>(ka, &mut rng);
                let b = random_shape::<DVec2>(kb, &mut rng);
                let (pa, pb) = (
                    random_pose::<DVec2>(&mut rng, 1.0),
                    random_pose::<DVec2>(&mut rng, 1.0),
                );
                let fast = penetration(&a, &pa, &b, &pb, &opts);
                let general = match (&a, &b) {
                    (Shape::Cuboid(x), Shape::Cuboid(y)) => penetration(x, &pa, y, &pb, &opts),
                    (Shape::Cuboid(x), Shape::Triangle(y)) => penetration(x, &pa, y, &pb, &opts),
                    (Shape::Cuboid(x), Shape::ConvexPolygon(y)) => {
                        penetration(x, &pa, y, &pb, &opts)
                    }
                    (Shape::Triangle(x), Shape::Cuboid(y)) => penetration(x, &pa, y, &pb, &opts),
                    (Shape::Triangle(x), Shape::Triangle(y)) => penetration(x, &pa, y, &pb, &opts),
                    (Shape::Triangle(x), Shape::ConvexPolygon(y)) => {
                        penetration(x, &pa, y, &pb, &opts)
                    }
                    (Shape::ConvexPolygon(x), Shape::Cuboid(y)) => {
                        penetration(x, &pa, y, &pb, &opts)
                    }
                    (Shape::ConvexPolygon(x), Shape::Triangle(y)) => {
                        penetration(x, &pa, y, &pb, &opts)
                    }
                    (Shape::ConvexPolygon(x), Shape::ConvexPolygon(y)) => {
                        penetration(x, &pa, y, &pb, &opts)
                    }
                    _ => unreachable!(),
                };
                let pair = (&a, &pa, &b, &pb);
                compared += usize::from(same_penetration(
                    &fast,
                    &general,
                    pair,
                    &format!("{ka}-{kb}"),
                ));
            }
        }
    }
    println!("penetrating pairs compared: {compared}");
    assert!(compared > 5000);
}

// ---------------------------------------------------------------------------------------------
// Scale

/// The depth of two overlapping turned boxes and of two polyhedra is the same, relative to their
/// size, from 1e-300 to 1e300: EPA solves at unit size (scaled exactly by a power of two), where
/// its normals' squared lengths neither overflow (beyond about 1e78 the depth collapsed) nor
/// underflow (below about 1e-82).
#[test]
fn the_depth_does_not_depend_on_the_size() {
    let turn = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.3);
    let hull: Vec<DVec3> = (0..12)
        .map(|i| {
            let t = i as f64;
            DVec3::new((1.3 * t).cos(), (1.7 * t).sin(), (0.9 * t).cos() * 0.8)
        })
        .collect();
    let solve = |s: f64, boxes: bool| -> EpaResult<DVec3> {
        let (a, b) = if boxes {
            (
                Shape::cuboid(DVec3::new(1.0, 0.7, 0.5) * s).unwrap(),
                Shape::cuboid(DVec3::new(0.6, 0.8, 0.9) * s).unwrap(),
            )
        } else {
            let scaled: Vec<DVec3> = hull.iter().map(|&p| p * s).collect();
            (
                Shape::polyhedron(&scaled).unwrap(),
                Shape::polyhedron(&scaled).unwrap(),
            )
        };
        let pa = Pose::new(DVec3::ZERO, DQuat::IDENTITY);
        let pb = Pose::new(DVec3::new(1.1, 0.3, -0.2) * s, turn);
        epa(&a, &pa, &b, &pb)
    };
    for boxes in [true, false] {
        let unit = solve(1.0, boxes);
        assert_eq!(unit.status, EpaStatus::Penetrating, "{unit:?}");
        for s in [1e-300, 1e-200, 1e-100, 1e-82, 1e78, 1e100, 1e200, 1e300] {
            let r = solve(s, boxes);
            assert_eq!(r.status, EpaStatus::Penetrating, "size {s:e}: {r:?}");
            let depth = r.depth / s;
            assert!(
                (depth - unit.depth).abs() <= 1e-9 * unit.depth,
                "size {s:e} (boxes {boxes}): depth {depth} against {} at unit size",
                unit.depth
            );
            assert!(
                (r.normal - unit.normal).length() <= 1e-6,
                "size {s:e}: normal {} against {}",
                r.normal,
                unit.normal
            );
            let witness = (r.point_a - r.point_b) / s - unit.normal * unit.depth;
            assert!(witness.length() <= 1e-6 * unit.depth, "size {s:e}: {r:?}");
        }
    }
}
