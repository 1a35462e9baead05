//! The points of a penetration query and of a contact manifold lie on their shapes.
//!
//! Over every shape pair of both dimensions, at random poses and at axis-aligned ones (where
//! sides are parallel and a support point is not unique), [`penetration`]'s `point_a` must lie
//! on `a` and `point_b` on `b` within the tolerance, `point_a − point_b = depth · normal`, and
//! swapping the pair swaps the points; each point of a [`contact_manifold`] lies on its shape
//! too. Membership is tested independently of the queries, from the support function alone: a
//! point `p` is in the convex shape `S` exactly when `n · p ≤ h_S(n)` for every direction `n`;
//! the directions tried are a dense set over the circle or sphere plus the face normals of a
//! polytope (which alone decide membership for a polytope of full dimension).

use crate::pairs;

use std::f64::consts::{FRAC_PI_2, PI};

use kairos_geometry::math::{DQuat, DVec2, DVec3, Rot2, Vector};
use kairos_geometry::query::manifold::contact_manifold;
use kairos_geometry::query::sat::as_polytope;
use kairos_geometry::query::{penetration, EpaOptions, EpaResult, EpaStatus};
use kairos_geometry::shape::{Pose, Shape, SupportMap};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use pairs::*;

/// The dimension's directions for the membership test and its right-angle rotations.
trait Dir: Dim {
    /// Unit directions covering the circle or sphere densely.
    fn directions() -> Vec<Self>;
    /// A rotation by a multiple of a right angle about the axes, picked by `k`.
    fn right_angle(k: u32) -> Self::Rotation;
}

impl Dir for DVec2 {
    fn directions() -> Vec<DVec2> {
        (0..1440)
            .map(|i| {
                let t = f64::from(i) * (2.0 * PI / 1440.0);
                DVec2::new(t.cos(), t.sin())
            })
            .collect()
    }
    fn right_angle(k: u32) -> Rot2 {
        Rot2::from_angle(f64::from(k % 4) * FRAC_PI_2)
    }
}

impl Dir for DVec3 {
    /// A Fibonacci lattice on the sphere: neighbours about 2.5° apart.
    fn directions() -> Vec<DVec3> {
        let n = 6000;
        let golden = PI * (3.0 - 5f64.sqrt());
        (0..n)
            .map(|i| {
                let z = 1.0 - (f64::from(i) + 0.5) * (2.0 / f64::from(n));
                let r = (1.0 - z * z).sqrt();
                let t = golden * f64::from(i);
                DVec3::new(r * t.cos(), r * t.sin(), z)
            })
            .collect()
    }
    fn right_angle(k: u32) -> DQuat {
        let axes = [DVec3::X, DVec3::Y, DVec3::Z];
        let turn = |j: u32| DQuat::from_axis_angle(axes[(j % 3) as usize], FRAC_PI_2);
        let mut q = DQuat::IDENTITY;
        for j in 0..k % 5 {
            q = turn(k / 5 + j) * q;
        }
        q
    }
}

const KINDS_3D_ALL: [&str; 8] = [
    "ball",
    "cuboid",
    "capsule",
    "segment",
    "triangle",
    "cylinder",
    "cone",
    "polyhedron",
];

/// How far `p` is outside `shape` at `pose` as the support function sees it:
/// `max_n (n · p − h(n))` over the test directions and, for a polytope, its face normals
/// (`≤ 0` inside; a lower bound on the distance outside).
fn outside<V: Dir>(shape: &Shape<V>, pose: &Pose<V>, p: V, dirs: &[V]) -> f64 {
    let by = |n: V| n.dot(p) - shape.support(pose, n).dot(n);
    let mut worst = dirs
        .iter()
        .map(|&n| by(n))
        .fold(f64::NEG_INFINITY, f64::max);
    if let Some(poly) = as_polytope(shape) {
        for i in 0..poly.face_count() {
            worst = worst.max(by(pose.transform_vector(poly.face_normal(i))));
        }
    }
    worst
}

fn curved(s: &Shape<impl Vector>) -> bool {
    matches!(s, Shape::Cylinder(_) | Shape::Cone(_))
}

/// A shape of `kind` whose sizes and vertices are multiples of a quarter, so that its sides
/// are parallel to those of other such shapes.
fn aligned_shape<V: Vector>(kind: &str, rng: &mut Pcg64) -> Shape<V> {
    let q = |rng: &mut Pcg64| f64::from(rng.gen_range(1u8..7)) * 0.25;
    let grid =
        |rng: &mut Pcg64| V::from_array3([0; 3].map(|_| f64::from(rng.gen_range(-6i8..=6)) * 0.25));
    loop {
        let s = match kind {
            "ball" => Shape::ball(q(rng)),
            "cuboid" => Shape::cuboid(V::from_array3([0; 3].map(|_| q(rng)))),
            "capsule" => Shape::capsule(q(rng), q(rng)),
            "segment" => Shape::segment(grid(rng), grid(rng)),
            "triangle" => Shape::triangle(grid(rng), grid(rng), grid(rng)),
            "polygon" => Shape::convex_hull(&(0..6).map(|_| grid(rng)).collect::<Vec<V>>()),
            "cylinder" => Shape::cylinder(q(rng), q(rng)),
            "cone" => Shape::cone(q(rng), q(rng)),
            "polyhedron" => Shape::polyhedron(&(0..10).map(|_| grid(rng)).collect::<Vec<V>>()),
            _ => unreachable!(),
        };
        if let Ok(s) = s {
            return s;
        }
    }
}

/// A pose at a point of a quarter grid, turned by right angles.
fn aligned_pose<V: Dir>(rng: &mut Pcg64) -> Pose<V> {
    let p = V::from_array3([0; 3].map(|_| f64::from(rng.gen_range(-4i8..=4)) * 0.25));
    Pose::new(p, V::right_angle(rng.gen_range(0..60)))
}

/// Checks one pair: the penetration's points, the swapped pair's, and the manifold's.
fn check_pair<V: Dir>(
    a: &Shape<V>,
    pa: &Pose<V>,
    b: &Shape<V>,
    pb: &Pose<V>,
    dirs: &[V],
) -> Result<bool, String> {
    let opts = EpaOptions::default();
    let r = penetration(a, pa, b, pb, &opts);
    let what = |r: &EpaResult<V>| format!("{a:?} at {pa:?}, {b:?} at {pb:?}: {r:?}");
    let size = 1.0 + a.bounding_radius() + b.bounding_radius();
    let on = 1e-9 * size;
    if !(r.point_a.is_finite() && r.point_b.is_finite() && r.normal.is_finite()) {
        return Err(format!("not finite: {}", what(&r)));
    }
    let (oa, ob) = (
        outside(a, pa, r.point_a, dirs),
        outside(b, pb, r.point_b, dirs),
    );
    if oa > on || ob > on {
        return Err(format!(
            "point_a {oa:e} outside a, point_b {ob:e} outside b: {}",
            what(&r)
        ));
    }
    let penetrating = !matches!(r.status, EpaStatus::Separated);
    if penetrating {
        // Unconverged curved pairs leave the points apart by the gap between the bounds.
        let slack = if curved(a) || curved(b) { 1e-6 } else { 1e-9 } * size;
        let gap = r.point_a - r.point_b - r.normal * r.depth;
        if gap.length() > slack + (r.depth - r.lower_bound) {
            return Err(format!(
                "point_a − point_b − depth · normal = {gap:?}: {}",
                what(&r)
            ));
        }
        let s = penetration(b, pb, a, pa, &opts);
        let (sa, sb) = (
            outside(a, pa, s.point_b, dirs),
            outside(b, pb, s.point_a, dirs),
        );
        if sa > on || sb > on {
            return Err(format!(
                "swapped: point_b {sa:e} outside a, point_a {sb:e} outside b: {}",
                what(&s)
            ));
        }
    }
    let m = contact_manifold(a, pa, b, pb, 0.0, None);
    for c in m.points() {
        let (ma, mb) = (
            outside(a, pa, c.point_a, dirs),
            outside(b, pb, c.point_b, dirs),
        );
        if ma > on || mb > on {
            return Err(format!(
                "manifold point {c:?}: {ma:e} outside a, {mb:e} outside b; {a:?} at {pa:?}, \
                 {b:?} at {pb:?}: {m:?}"
            ));
        }
    }
    Ok(penetrating)
}

/// One random pair of the kinds `kinds[ka]`, `kinds[kb]` from `seed`: overlapping or nearly,
/// at axis-aligned poses on a grid when `aligned`.
fn random_check<V: Dir>(
    kinds: &[&str],
    ka: usize,
    kb: usize,
    seed: u64,
    aligned: bool,
    dirs: &[V],
) -> Result<(), String> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let (ka, kb) = (kinds[ka % kinds.len()], kinds[kb % kinds.len()]);
    let (a, pa, b, pb) = if aligned {
        let (a, b) = (
            aligned_shape::<V>(ka, &mut rng),
            aligned_shape::<V>(kb, &mut rng),
        );
        (a, aligned_pose(&mut rng), b, aligned_pose(&mut rng))
    } else {
        let (a, b) = (
            random_shape::<V>(ka, &mut rng),
            random_shape::<V>(kb, &mut rng),
        );
        (a, random_pose(&mut rng, 0.8), b, random_pose(&mut rng, 0.8))
    };
    check_pair(&a, &pa, &b, &pb, dirs)
        .map(|_| ())
        .map_err(|e| format!("{ka}–{kb}: {e}"))
}

// ---------------------------------------------------------------------------------------------
// The defect's case and its neighbours

/// Two squares of half extent 1, the second at (1.5, 1): depth 0.5 along +x, and the points on
/// the shared stretch of the sides, x = 1 on `a` and x = 0.5 on `b`, y in [0, 1]. The same as
/// rectangles, as convex polygons, and with the pair swapped.
#[test]
fn squares_side_by_side_have_their_points_on_both() {
    let pa = Pose::<DVec2>::IDENTITY;
    let pb = Pose::from_position(DVec2::new(1.5, 1.0));
    let corners =
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| DVec2::new(x, y));
    let squares = [
        Shape::cuboid(DVec2::ONE).unwrap(),
        Shape::convex_hull(&corners).unwrap(),
    ];
    for a in &squares {
        for b in &squares {
            let r = penetration(a, &pa, b, &pb, &EpaOptions::default());
            assert_eq!(r.status, EpaStatus::Penetrating, "{r:?}");
            assert!((r.depth - 0.5).abs() < 1e-15, "{r:?}");
            assert_eq!(r.normal, DVec2::X, "{r:?}");
            assert!((r.point_a.x - 1.0).abs() < 1e-15, "{a:?} {b:?} {r:?}");
            assert!((r.point_b.x - 0.5).abs() < 1e-15, "{a:?} {b:?} {r:?}");
            assert!((0.0..=1.0).contains(&r.point_a.y), "{a:?} {b:?} {r:?}");
            assert_eq!(r.point_a.y, r.point_b.y, "{r:?}");
            let s = penetration(b, &pb, a, &pa, &EpaOptions::default());
            assert_eq!(s.normal, -DVec2::X, "{s:?}");
            assert!((0.0..=1.0).contains(&s.point_a.y), "{s:?}");
            assert!((s.point_b.x - 1.0).abs() < 1e-15 && (s.point_a.x - 0.5).abs() < 1e-15);
        }
    }
}

/// Every shape pair of both dimensions at axis-aligned poses on a grid, each pair many times.
#[test]
fn aligned_pairs_of_every_kind_have_their_points_on_the_shapes() {
    fn run<V: Dir>(kinds: &[&str], n: u64, seed: u64) -> usize {
        let dirs = V::directions();
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut penetrating = 0;
        let mut failures = vec![];
        for &ka in kinds {
            for &kb in kinds {
                for _ in 0..n {
                    let (a, b) = (
                        aligned_shape::<V>(ka, &mut rng),
                        aligned_shape::<V>(kb, &mut rng),
                    );
                    let (pa, pb) = (aligned_pose(&mut rng), aligned_pose(&mut rng));
                    match check_pair(&a, &pa, &b, &pb, &dirs) {
                        Ok(p) => penetrating += usize::from(p),
                        Err(e) => failures.push(format!("{ka}–{kb}: {e}")),
                    }
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{} failures, the first: {}",
            failures.len(),
            failures[0]
        );
        penetrating
    }
    let two = run::<DVec2>(&KINDS_2D, 200, 51);
    let three = run::<DVec3>(&KINDS_3D_ALL, 40, 52);
    println!("penetrating pairs checked: 2D {two}, 3D {three}");
    assert!(two > 3000 && three > 1000, "{two} {three}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    #[test]
    fn penetration_points_lie_on_the_shapes_2d(
        ka in 0usize..6,
        kb in 0usize..6,
        seed in proptest::prelude::any::<u64>(),
        aligned in proptest::prelude::any::<bool>(),
    ) {
        thread_local!(static DIRS: Vec<DVec2> = DVec2::directions());
        let r = DIRS.with(|d| random_check::<DVec2>(&KINDS_2D, ka, kb, seed, aligned, d));
        proptest::prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    #[test]
    fn penetration_points_lie_on_the_shapes_3d(
        ka in 0usize..8,
        kb in 0usize..8,
        seed in proptest::prelude::any::<u64>(),
        aligned in proptest::prelude::any::<bool>(),
    ) {
        thread_local!(static DIRS: Vec<DVec3> = DVec3::directions());
        let r = DIRS.with(|d| random_check::<DVec3>(&KINDS_3D_ALL, ka, kb, seed, aligned, d));
        proptest::prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}
