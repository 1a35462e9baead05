//! Random shapes and poses, and their parry counterparts, shared by the query benchmarks.
#![allow(dead_code)]

// The conversions to parry are the query tests' own.
#[path = "../../../kairos-geometry/tests/suite/pairs/mod.rs"]
mod pairs;
pub use pairs::{parry2, parry3, parry_pose2, parry_pose3};

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
