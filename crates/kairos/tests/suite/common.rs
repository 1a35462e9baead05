//! Helpers shared by the integration tests.
#![allow(dead_code)]

use kairos::math::Rot2;
use kairos::prelude::*;
use kairos::rigid::RigidState;
use kairos::shape::{Pose, Shape};
use kairos::trace::Record;
use kairos::wall::Plane;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Runs `scene` with `kind` and returns every event record.
pub fn records<V: Vector>(
    scene: &Scene,
    kind: BroadPhaseKind,
    opts: &BroadPhaseOptions,
) -> Vec<Record> {
    let mut sim = Simulation::new(
        scene.world::<V>().unwrap(),
        kind.build::<V>(opts),
        scene.duration,
    );
    let mut out = Vec::new();
    sim.run(|e, w, dt| out.push(Record::from_event(e, w, dt)));
    out
}

/// Asserts that two event logs are bit-identical (ignoring the broad phase's look-ahead).
pub fn assert_same_log(a: &[Record], b: &[Record], what: &str) {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            x.same_event(y),
            "{what}: event {i} differs:\n  {x:?}\n  {y:?}"
        );
    }
    assert_eq!(a.len(), b.len(), "{what}: different event counts");
}

/// FNV-1a hash of an event log with the broad phase's look-ahead zeroed, so that every broad
/// phase hashes its log to the same value.
pub fn log_hash(log: &[Record]) -> u64 {
    let mut h = kairos::trace::Fnv1a::default();
    for r in log {
        let mut bytes = r.to_bytes();
        bytes[8..16].fill(0);
        h.update(&bytes);
    }
    h.value()
}

/// The signed gap of two placed shapes (negative: the penetration depth).
pub fn shape_gap<V: Vector>(
    a: &kairos::shape::Shape<V>,
    pa: &kairos::shape::Pose<V>,
    b: &kairos::shape::Shape<V>,
    pb: &kairos::shape::Pose<V>,
) -> f64 {
    use kairos::query::{distance, penetration, EpaOptions, GjkOptions, GjkStatus};
    let g = distance(a, pa, b, pb, &GjkOptions::default(), None);
    if g.status == GjkStatus::Intersecting {
        -penetration(a, pa, b, pb, &EpaOptions::default()).depth
    } else {
        g.distance
    }
}

/// The least gap of a rigid world at `t` (negative: the depth of the deepest overlap) over
/// every pair of bodies whose bounding spheres meet, and every body against every plane and
/// static shape wall; each body moved to `t` by its own free motion (under gravity when it
/// acts on it).
pub fn min_gap<V: Vector>(w: &World<V>, t: f64) -> f64 {
    use kairos::shape::{Pose, SupportMap};
    let centre = |i: usize| w.body_state_at(i, t).0;
    let poses: Vec<Pose<V>> = (0..w.bodies().len())
        .map(|i| {
            let r = &w.rigid()[i];
            r.shape_pose(centre(i), r.at(t - w.bodies()[i].time).0)
        })
        .collect();
    // A body's shapes: one, or a compound body's pieces.
    let shapes = |i: usize| {
        let r = &w.rigid()[i];
        &w.shapes()[r.shape as usize..(r.shape + r.pieces) as usize]
    };
    let mut least = f64::INFINITY;
    for i in 0..poses.len() {
        for j in i + 1..poses.len() {
            if (centre(i) - centre(j)).length() <= w.bodies()[i].radius + w.bodies()[j].radius {
                // Two meshes: the distance of their surfaces, over their trees.
                if let Some(d) = w.mesh_distance(i, j, t) {
                    least = least.min(d);
                    continue;
                }
                for a in shapes(i) {
                    for b in shapes(j) {
                        least = least.min(shape_gap(a, &poses[i], b, &poses[j]));
                    }
                }
            }
        }
        for wall in w.walls() {
            for a in shapes(i) {
                match wall {
                    Wall::Plane(p) => {
                        let low = SupportMap::support(a, &poses[i], -p.normal);
                        least = least.min(p.signed_distance(low));
                    }
                    Wall::Shape(s) => {
                        least = least.min(shape_gap(a, &poses[i], &s.shape, &s.pose));
                    }
                    _ => {}
                }
            }
        }
    }
    least
}

// Rigid worlds of spinning shapes (the tests of `rigid.rs` and `rigid_logs.rs`).

/// A body of a rigid world: shape, pose of its local frame, velocity, angular velocity.
pub type Spec<V> = (Shape<V>, Pose<V>, V, <V as Vector>::Angular);

/// A world of rigid bodies of density 1 between `walls`.
pub fn builder<V: Vector>(specs: &[Spec<V>], walls: Vec<Wall<V>>) -> WorldBuilder<V> {
    let mut shapes = Vec::new();
    let mut bodies = Vec::new();
    let mut states = Vec::new();
    for (k, (shape, pose, v, w)) in specs.iter().enumerate() {
        let props = shape.mass_properties(1.0).unwrap();
        let (b, r) = RigidState::body(k as u32, shape, &props, pose, *v, *w).unwrap();
        shapes.push(shape.clone());
        bodies.push(b);
        states.push(r);
    }
    World::builder(bodies, walls).rigid(shapes, states)
}

/// [`builder`]'s world.
pub fn world<V: Vector>(specs: &[Spec<V>], walls: Vec<Wall<V>>) -> World<V> {
    builder(specs, walls).build().unwrap()
}

/// The four walls of the 2D room `[0, l]²` (planes facing in).
pub fn room2(l: f64) -> Vec<Wall<DVec2>> {
    [
        (DVec2::ZERO, DVec2::X),
        (DVec2::ZERO, DVec2::Y),
        (DVec2::splat(l), -DVec2::X),
        (DVec2::splat(l), -DVec2::Y),
    ]
    .into_iter()
    .map(|(p, n)| Wall::Plane(Plane::new(p, n).unwrap()))
    .collect()
}

/// The six walls of the 3D room `[0, l]³`.
pub fn room3(l: f64) -> Vec<Wall<DVec3>> {
    let mut w = Vec::new();
    for axis in 0..3 {
        let n = DVec3::unit(axis);
        w.push(Wall::Plane(Plane::new(DVec3::ZERO, n).unwrap()));
        w.push(Wall::Plane(Plane::new(DVec3::splat(l), -n).unwrap()));
    }
    w
}

/// A random 2D gas in the room `[0, l]²`: boxes, discs, capsules and polygons on a lattice,
/// spinning.
pub fn gas2(n: usize, l: f64, seed: u64) -> Vec<Spec<DVec2>> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let side = (n as f64).sqrt().ceil() as usize;
    let cell = l / side as f64;
    let size = 0.3 * cell;
    (0..n)
        .map(|k| {
            let shape = match k % 4 {
                0 => Shape::cuboid(DVec2::new(
                    size * rng.gen_range(0.3..1.0),
                    size * rng.gen_range(0.1..0.5),
                ))
                .unwrap(),
                1 => Shape::ball(size * rng.gen_range(0.3..1.0)).unwrap(),
                2 => Shape::capsule(
                    size * rng.gen_range(0.2..0.6),
                    size * rng.gen_range(0.1..0.4),
                )
                .unwrap(),
                _ => {
                    let m = rng.gen_range(3..7);
                    let pts: Vec<DVec2> = (0..m)
                        .map(|i| {
                            let a = std::f64::consts::TAU * (i as f64 + rng.gen_range(0.0..0.5))
                                / m as f64;
                            DVec2::new(a.cos(), a.sin()) * size * rng.gen_range(0.5..1.0)
                        })
                        .collect();
                    Shape::convex_hull(&pts).unwrap()
                }
            };
            let centre = DVec2::new(
                ((k % side) as f64 + 0.5) * cell,
                ((k / side) as f64 + 0.5) * cell,
            );
            let pose = Pose::new(centre, Rot2::from_angle(rng.gen_range(0.0..6.3)));
            let v = DVec2::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
            (shape, pose, v, rng.gen_range(-4.0..4.0))
        })
        .collect()
}

/// A random 3D gas in the room `[0, l]³`: cubes and spheres (isotropic: constant angular
/// velocity), boxes, cylinders and polyhedra (tumbling by the free rotation), spinning.
pub fn gas3(n: usize, l: f64, seed: u64) -> Vec<Spec<DVec3>> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let side = (n as f64).cbrt().ceil() as usize;
    let cell = l / side as f64;
    let size = 0.3 * cell;
    (0..n)
        .map(|k| {
            let mut r = || size * rng.gen_range(0.3..1.0);
            let shape = match k % 5 {
                0 => Shape::cuboid(DVec3::splat(r())).unwrap(),
                1 => Shape::ball(r()).unwrap(),
                2 => Shape::cuboid(DVec3::new(r(), r(), r())).unwrap(),
                3 => Shape::cylinder(r(), r()).unwrap(),
                _ => {
                    let pts: Vec<DVec3> = (0..12)
                        .map(|_| DVec3::new(r(), r(), r()) - DVec3::splat(0.6 * size))
                        .collect();
                    Shape::convex_hull(&pts).unwrap()
                }
            };
            let centre = DVec3::new(
                ((k % side) as f64 + 0.5) * cell,
                ((k / side % side) as f64 + 0.5) * cell,
                ((k / side / side) as f64 + 0.5) * cell,
            );
            let axis = DVec3::new(
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
            )
            .normalize();
            let pose = Pose::new(
                centre,
                kairos::math::DQuat::from_axis_angle(axis, rng.gen_range(0.0..6.3)),
            );
            let v = DVec3::new(
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
            );
            let w = DVec3::new(
                rng.gen_range(-4.0..4.0),
                rng.gen_range(-4.0..4.0),
                rng.gen_range(-4.0..4.0),
            );
            (shape, pose, v, w)
        })
        .collect()
}
