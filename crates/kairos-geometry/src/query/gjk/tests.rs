//! Unit tests of GJK: the signed-volumes subalgorithm on regular and degenerate simplices, and
//! the loop's limits, contacts, intersection test and warm start.

use super::*;
use crate::math::{DQuat, DVec2, DVec3};
use crate::shape::Shape;

fn hull3(w: &[DVec3]) -> ([f64; MAX_POINTS], DVec3) {
    closest_on_simplex(w)
}

#[test]
fn closest_point_of_simplices() {
    // Segment: the interior point.
    let (l, v) = hull3(&[DVec3::new(-1.0, 1.0, 0.0), DVec3::new(3.0, 1.0, 0.0)]);
    assert_eq!(v, DVec3::new(0.0, 1.0, 0.0));
    assert_eq!(&l[..2], &[0.75, 0.25]);
    // Triangle: a vertex region.
    let (l, v) = hull3(&[
        DVec3::new(1.0, 1.0, 1.0),
        DVec3::new(2.0, 1.0, 1.0),
        DVec3::new(1.0, 2.0, 1.0),
    ]);
    assert_eq!((v, l[0]), (DVec3::ONE, 1.0));
    // Tetrahedron around the origin: inside, all weights positive.
    let (l, v) = hull3(&[
        DVec3::new(1.0, 0.0, -1.0),
        DVec3::new(-1.0, 1.0, -1.0),
        DVec3::new(-1.0, -1.0, -1.0),
        DVec3::new(0.0, 0.0, 2.0),
    ]);
    assert!(
        v.length() < 1e-15 && l.iter().all(|&x| x > 0.0),
        "{l:?} {v}"
    );
}

#[test]
fn degenerate_simplices_fall_back_to_their_faces() {
    // Collinear triangle, coplanar tetrahedron and repeated points: no NaN, right answer.
    let (_, v) = hull3(&[
        DVec3::new(-1.0, 1.0, 0.0),
        DVec3::new(0.0, 1.0, 0.0),
        DVec3::new(1.0, 1.0, 0.0),
    ]);
    assert_eq!(v, DVec3::Y);
    let (_, v) = hull3(&[
        DVec3::new(-1.0, -1.0, 1.0),
        DVec3::new(1.0, -1.0, 1.0),
        DVec3::new(0.0, 1.0, 1.0),
        DVec3::new(0.0, 0.0, 1.0),
    ]);
    assert!((v - DVec3::Z).length() < 1e-15, "{v}");
    let (_, v) = closest_on_simplex(&[DVec2::new(1.0, 2.0), DVec2::new(1.0, 2.0)]);
    assert_eq!(v, DVec2::new(1.0, 2.0));
}

#[test]
fn iteration_limit_reports_both_bounds() {
    let cyl = Shape::<DVec3>::cylinder(1.0, 1.0).unwrap();
    let cone = Shape::<DVec3>::cone(1.0, 1.0).unwrap();
    let pose = Pose::new(DVec3::new(3.0, 1.0, 0.5), DQuat::from_rotation_x(1.0));
    let opts = GjkOptions {
        max_iterations: 2,
        ..GjkOptions::default()
    };
    let r = distance(&cyl, &Pose::IDENTITY, &cone, &pose, &opts, None);
    assert_eq!(r.status, GjkStatus::MaxIterations);
    assert_eq!(r.iterations, 2);
    let full = distance(
        &cyl,
        &Pose::IDENTITY,
        &cone,
        &pose,
        &GjkOptions::default(),
        None,
    );
    assert_eq!(full.status, GjkStatus::Separated);
    assert!(r.lower_bound <= full.distance + 1e-12 && full.distance <= r.distance + 1e-12);
    assert!((full.distance - full.lower_bound) <= 1e-9 * full.distance);
}

#[test]
fn touching_coincident_and_far_shapes() {
    let opts = GjkOptions::default();
    let cube = Shape::<DVec3>::cuboid(DVec3::ONE).unwrap();
    // Face to face contact, same centre, and a pair far from the origin.
    for (x, d) in [(2.0, 0.0), (0.0, 0.0), (2.5, 0.5)] {
        let r = distance(
            &cube,
            &Pose::IDENTITY,
            &cube,
            &Pose::from_position(DVec3::X * x),
            &opts,
            None,
        );
        assert_eq!(r.distance, d, "{r:?}");
        assert_eq!(r.status == GjkStatus::Intersecting, d == 0.0);
    }
    let far = DVec3::new(1e8, -3e7, 2e8);
    let r = distance(
        &cube,
        &Pose::from_position(far),
        &cube,
        &Pose::from_position(far + DVec3::new(2.5, 0.3, 0.0)),
        &opts,
        None,
    );
    assert!((r.distance - 0.5).abs() < 1e-7, "{r:?}");
    // A capsule of zero half height is a ball.
    let cap = Shape::<DVec2>::capsule(0.0, 0.5).unwrap();
    let r = distance(
        &cap,
        &Pose::IDENTITY,
        &cap,
        &Pose::from_position(DVec2::new(3.0, 4.0)),
        &opts,
        None,
    );
    assert!((r.distance - 4.0).abs() < 1e-15);
}

#[test]
fn intersects_stops_at_a_separating_axis() {
    let a = Shape::<DVec3>::cylinder(1.0, 1.0).unwrap();
    let far = Pose::from_position(DVec3::new(10.0, 0.0, 0.0));
    let opts = GjkOptions::default();
    assert!(!intersects(&a, &Pose::IDENTITY, &a, &far, &opts, None));
    let near = Pose::from_position(DVec3::new(1.9, 0.1, 0.0));
    assert!(intersects(&a, &Pose::IDENTITY, &a, &near, &opts, None));
}

#[test]
fn a_cache_from_an_intersecting_query_stays_right() {
    let opts = GjkOptions::default();
    let b = Shape::<DVec2>::cuboid(DVec2::ONE).unwrap();
    let mut cache = GjkCache::default();
    let mut x = 0.0;
    while x < 4.0 {
        let p = Pose::from_position(DVec2::new(x, 0.3));
        let w = distance(&b, &Pose::IDENTITY, &b, &p, &opts, Some(&mut cache));
        let c = distance(&b, &Pose::IDENTITY, &b, &p, &opts, None);
        assert_eq!(w.status, c.status, "{x}");
        assert!((w.distance - c.distance).abs() < 1e-12, "{x}");
        assert!((w.distance - (x - 2.0).max(0.0)).abs() < 1e-12, "{x} {w:?}");
        x += 0.125;
    }
    cache.clear();
    assert!(cache.is_empty());
}
