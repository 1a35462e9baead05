//! The convex queries on one pair of shapes: an ellipsoid and a box, apart, then overlapping,
//! then moving and turning towards each other.
//!
//! `cargo run -p kairos-geometry --example queries`

use kairos_geometry::math::{DQuat, DVec3};
use kairos_geometry::query::{
    contact_manifold, distance, penetration, time_of_impact, EpaOptions, GjkOptions, ToiOptions,
};
use kairos_geometry::shape::{Pose, RigidMotion, Shape};

fn main() {
    let ellipsoid = Shape::<DVec3>::ellipsoid(DVec3::new(1.0, 0.5, 0.25)).unwrap();
    let cube = Shape::<DVec3>::cuboid(DVec3::splat(0.5)).unwrap();
    let mass = ellipsoid.mass_properties(1.0).unwrap();
    println!(
        "{} of mass {:.6}, inertia diagonal ({:.6}, {:.6}, {:.6})",
        ellipsoid.name(),
        mass.mass,
        mass.inertia.x_axis.x,
        mass.inertia.y_axis.y,
        mass.inertia.z_axis.z
    );

    let turned = DQuat::from_rotation_z(0.3);
    let apart = Pose::new(DVec3::new(2.5, 0.2, 0.0), turned);
    let d = distance(
        &ellipsoid,
        &Pose::IDENTITY,
        &cube,
        &apart,
        &GjkOptions::default(),
        None,
    );
    println!(
        "apart: distance {:.9} (certified above {:.9}), closest points {:?} and {:?}",
        d.distance, d.lower_bound, d.point_a, d.point_b
    );

    let overlapping = Pose::new(DVec3::new(1.2, 0.1, 0.0), turned);
    let p = penetration(
        &ellipsoid,
        &Pose::IDENTITY,
        &cube,
        &overlapping,
        &EpaOptions::default(),
    );
    println!("overlapping: depth {:.9} along {:?}", p.depth, p.normal);
    let m = contact_manifold(&ellipsoid, &Pose::IDENTITY, &cube, &overlapping, 0.0, None);
    println!("  contact manifold of {} point(s)", m.points().len());

    let still = RigidMotion::new(0.0, Pose::IDENTITY, DVec3::ZERO, DVec3::ZERO).unwrap();
    let coming = RigidMotion::new(0.0, apart, DVec3::new(-4.0, 0.0, 0.0), DVec3::Z * 20.0).unwrap();
    let hit = time_of_impact(
        &ellipsoid,
        &still,
        &cube,
        &coming,
        0.0,
        1.0,
        &ToiOptions::default(),
    );
    println!(
        "moving: {:?} at t = {:.9} (never after the true contact; within {:.1e} of it)",
        hit.status, hit.time, hit.tolerance
    );
}
