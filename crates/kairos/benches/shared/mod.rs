//! Random shapes and poses, and their parry counterparts, shared by the query benchmarks.
#![allow(dead_code)]

use kairos::math::{DQuat, DVec2, DVec3, Rot2};
use kairos::shape::{Pose, Shape};
use rand::Rng;
use rand_pcg::Pcg64;

/// Pairs per benchmark: each timed iteration runs one query on each.
pub const PAIRS: usize = 256;

fn size(rng: &mut Pcg64) -> f64 {
    rng.gen_range(0.1..1.5)
}

pub fn point3(rng: &mut Pcg64, r: f64) -> DVec3 {
    DVec3::new(
        rng.gen_range(-r..r),
        rng.gen_range(-r..r),
        rng.gen_range(-r..r),
    )
}

pub fn point2(rng: &mut Pcg64, r: f64) -> DVec2 {
    DVec2::new(rng.gen_range(-r..r), rng.gen_range(-r..r))
}

pub fn shape2(kind: &str, rng: &mut Pcg64) -> Shape<DVec2> {
    match kind {
        "ball" => Shape::ball(size(rng)),
        "cuboid" => Shape::cuboid(DVec2::new(size(rng), size(rng))),
        "polygon" => Shape::convex_hull(&(0..8).map(|_| point2(rng, 1.5)).collect::<Vec<_>>()),
        _ => unreachable!(),
    }
    .unwrap()
}

pub fn shape3(kind: &str, rng: &mut Pcg64) -> Shape<DVec3> {
    match kind {
        "ball" => Shape::ball(size(rng)),
        "cuboid" => Shape::cuboid(DVec3::new(size(rng), size(rng), size(rng))),
        "capsule" => Shape::capsule(size(rng), size(rng)),
        "triangle" => Shape::triangle(point3(rng, 1.5), point3(rng, 1.5), point3(rng, 1.5)),
        "polyhedron" => Shape::polyhedron(&(0..32).map(|_| point3(rng, 1.5)).collect::<Vec<_>>()),
        _ => unreachable!(),
    }
    .unwrap()
}

pub fn pose2(rng: &mut Pcg64, spread: f64) -> Pose<DVec2> {
    Pose::new(
        point2(rng, spread),
        Rot2::from_angle(rng.gen_range(-3.2..3.2)),
    )
}

pub fn pose3(rng: &mut Pcg64, spread: f64) -> Pose<DVec3> {
    let q = DQuat::from_xyzw(
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
    );
    Pose::new(point3(rng, spread), q.normalize())
}

pub fn parry2(s: &Shape<DVec2>) -> Box<dyn parry2d_f64::shape::Shape> {
    use parry2d_f64::{math::Vector as P, shape as ps};
    let v = |p: DVec2| P::new(p.x, p.y);
    match s {
        Shape::Ball(b) => Box::new(ps::Ball::new(b.radius())),
        Shape::Cuboid(c) => Box::new(ps::Cuboid::new(v(c.half_extents()))),
        Shape::ConvexPolygon(p) => Box::new(
            ps::ConvexPolygon::from_convex_polyline_unmodified(
                p.vertices().iter().map(|&p| v(p)).collect(),
            )
            .unwrap(),
        ),
        _ => unreachable!(),
    }
}

pub fn parry3(s: &Shape<DVec3>) -> Box<dyn parry3d_f64::shape::Shape> {
    use parry3d_f64::{math::Vector as P, shape as ps};
    let v = |p: DVec3| P::new(p.x, p.y, p.z);
    match s {
        Shape::Ball(b) => Box::new(ps::Ball::new(b.radius())),
        Shape::Cuboid(c) => Box::new(ps::Cuboid::new(v(c.half_extents()))),
        Shape::Capsule(c) => Box::new(ps::Capsule::new_y(c.half_height(), c.radius())),
        Shape::Triangle(t) => {
            let [a, b, c] = t.vertices();
            Box::new(ps::Triangle::new(v(a), v(b), v(c)))
        }
        Shape::Polyhedron(h) => Box::new(
            ps::ConvexPolyhedron::from_convex_hull(
                &h.vertices().iter().map(|&p| v(p)).collect::<Vec<_>>(),
            )
            .unwrap(),
        ),
        _ => unreachable!(),
    }
}

pub fn parry_pose2(p: &Pose<DVec2>) -> parry2d_f64::math::Pose {
    use parry2d_f64::math::{Pose as P, Rotation, Vector};
    P::from_parts(
        Vector::new(p.position.x, p.position.y),
        Rotation::from_angle(p.rotation.angle()),
    )
}

pub fn parry_pose3(p: &Pose<DVec3>) -> parry3d_f64::math::Pose {
    use parry3d_f64::math::{Pose as P, Rotation, Vector};
    let q = p.rotation;
    P::from_parts(
        Vector::new(p.position.x, p.position.y, p.position.z),
        Rotation::from_xyzw(q.x, q.y, q.z, q.w),
    )
}
