//! Static convex shapes as walls (`shape = ...` in a `[[walls]]` table): contacts at the
//! analytic times, no overlap under dense sampling, bodies at rest on them under gravity,
//! bit-identical logs across broad phases, scene round trips and refused input.

use crate::common;

use common::min_gap;
use kairos::math::{DQuat, DVec2, DVec3, Rot2, Rotation, Vector};
use kairos::prelude::*;
use kairos::rigid::{RigidState, SHELL};
use kairos::shape::{Pose, Shape};
use kairos::wall::{Plane, StaticShape};

/// A body of a rigid world: shape, pose of its local frame, velocity.
type Spec<V> = (Shape<V>, Pose<V>, V);

/// A world of rigid bodies of density 1, not spinning, between `walls`.
fn builder<V: Vector>(specs: &[Spec<V>], walls: Vec<Wall<V>>) -> WorldBuilder<V> {
    let mut shapes = Vec::new();
    let mut bodies = Vec::new();
    let mut states = Vec::new();
    for (k, (shape, pose, v)) in specs.iter().enumerate() {
        let props = shape.mass_properties(1.0).unwrap();
        let (b, r) =
            RigidState::body(k as u32, shape, &props, pose, *v, Default::default()).unwrap();
        shapes.push(shape.clone());
        bodies.push(b);
        states.push(r);
    }
    World::builder(bodies, walls).rigid(shapes, states)
}

/// [`builder`]'s world.
fn world<V: Vector>(specs: &[Spec<V>], walls: Vec<Wall<V>>) -> World<V> {
    builder(specs, walls).build().unwrap()
}

fn fixed<V: Vector>(shape: Shape<V>, pose: Pose<V>) -> Wall<V> {
    Wall::Shape(StaticShape::new(shape, pose).unwrap())
}

fn all_pairs<V: Vector>(w: World<V>, end: f64) -> Simulation<V> {
    Simulation::new(w, BroadPhaseKind::AllPairs.build(&Default::default()), end)
}

/// Runs `w` to `duration` sampling `samples` times between events: the least gap seen.
fn least_gap_sampled<V: Vector>(w: World<V>, duration: f64, samples: usize) -> (usize, f64) {
    let mut sim = all_pairs(w, duration);
    let mut least = f64::INFINITY;
    let mut events = 0;
    let mut t0 = 0.0;
    loop {
        let before = sim.world().clone();
        let Some(e) = sim.step() else { break };
        events += 1;
        // Samples in (t0, e.time): the world before the event, moved freely.
        for k in 1..samples {
            let t = t0 + (e.time - t0) * k as f64 / samples as f64;
            least = least.min(min_gap(&before, t - sim.origin()));
        }
        t0 = e.time;
        if events > 20_000 {
            break;
        }
    }
    (events, least)
}

/// A ball moving straight at a face of a static tilted box touches it when the gap closes
/// (to within the contact shell), and bounces back elastically: 2D and 3D, rigid balls and
/// balls of a scene without rigid bodies.
#[test]
fn a_ball_moving_at_a_static_box_face_touches_when_the_gap_closes() {
    for (angle, h, r, d, v) in [
        (0.3, 0.2, 0.5, 3.0, 2.0),
        (-1.1, 0.7, 0.25, 5.0, 0.5),
        (2.0, 0.05, 1.0, 2.5, 7.0),
    ] {
        // 2D: the face's normal is the box's turned local y.
        let rot = Rot2::from_angle(angle);
        let n = rot.rotate(DVec2::Y);
        let c = DVec2::new(1.0, -2.0);
        let wall = fixed(
            Shape::cuboid(DVec2::new(1.5, h)).unwrap(),
            Pose::new(c, rot),
        );
        let start = c + n * d;
        let expect = (d - h - r) / v;
        let ball = (Shape::ball(r).unwrap(), Pose::from_position(start), -n * v);
        let mut sim = all_pairs(world(&[ball], vec![wall.clone()]), 10.0);
        let e = sim.step().expect("the ball reaches the box");
        assert_eq!((e.kind, e.b), (EventKind::BodyWall, 0));
        assert!(
            (e.time - expect).abs() <= 2.0 * SHELL * r / v + 1e-12 * expect,
            "2D at {angle}: contact at {} for {expect}",
            e.time
        );
        let back = sim.world().bodies()[0].vel;
        assert!((back - n * v).length() < 1e-9 * v, "bounced to {back:?}");
        // The same ball without a rigid state.
        let mut plain = all_pairs(
            World::builder(vec![Body::new(start, -n * v, r, 1.0)], vec![wall])
                .build()
                .unwrap(),
            10.0,
        );
        let e = plain.step().expect("the plain ball reaches the box");
        assert!((e.time - expect).abs() <= 2.0 * SHELL * r / v + 1e-12 * expect);
        assert!((plain.world().bodies()[0].vel - n * v).length() < 1e-9 * v);

        // 3D: a box turned about a tilted axis.
        let rot = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, -0.5).normalize(), angle);
        let n = rot.rotate(DVec3::Z);
        let c = DVec3::new(0.5, 1.0, -1.0);
        let wall = fixed(
            Shape::cuboid(DVec3::new(1.5, 1.2, h)).unwrap(),
            Pose::new(c, rot),
        );
        let start = c + n * d;
        let ball = (Shape::ball(r).unwrap(), Pose::from_position(start), -n * v);
        let mut sim = all_pairs(world(&[ball], vec![wall]), 10.0);
        let e = sim.step().expect("the ball reaches the box");
        assert!(
            (e.time - expect).abs() <= 2.0 * SHELL * r / v + 1e-12 * expect,
            "3D at {angle}: contact at {} for {expect}",
            e.time
        );
        assert!((sim.world().bodies()[0].vel - n * v).length() < 1e-9 * v);
    }
}

/// A box falling flat on a static box's top face touches it when the gap closes, and a ball
/// rolling past a static capsule's end touches its round cap where the centres are `r + R`
/// apart.
#[test]
fn a_box_on_a_box_and_a_ball_on_a_capsule_cap_touch_at_the_analytic_times() {
    let table = fixed(
        Shape::cuboid(DVec2::new(2.0, 0.5)).unwrap(),
        Pose::from_position(DVec2::new(0.0, 0.0)),
    );
    let falling = (
        Shape::cuboid(DVec2::new(0.4, 0.3)).unwrap(),
        Pose::from_position(DVec2::new(0.3, 4.0)),
        DVec2::new(0.0, -1.5),
    );
    let mut sim = all_pairs(world(&[falling], vec![table]), 10.0);
    let e = sim.step().expect("the box lands");
    let expect = (4.0 - 0.3 - 0.5) / 1.5;
    assert!((e.time - expect).abs() < 1e-6, "{} for {expect}", e.time);
    assert!((sim.world().bodies()[0].vel - DVec2::new(0.0, 1.5)).length() < 1e-9);

    // A capsule along y from (0, -1) to (0, 1), radius 0.5; a ball of radius 0.3 moving along
    // x at height 1.2 meets the upper cap where |(x, 0.2)| = 0.8.
    let capsule = fixed(
        Shape::capsule(1.0, 0.5).unwrap(),
        Pose::from_position(DVec2::ZERO),
    );
    let ball = (
        Shape::ball(0.3).unwrap(),
        Pose::from_position(DVec2::new(-4.0, 1.2)),
        DVec2::new(2.0, 0.0),
    );
    let mut sim = all_pairs(world(&[ball], vec![capsule]), 10.0);
    let e = sim.step().expect("the ball meets the cap");
    let x = -(0.8f64 * 0.8 - 0.2 * 0.2).sqrt();
    let expect = (x + 4.0) / 2.0;
    assert!((e.time - expect).abs() < 1e-6, "{} for {expect}", e.time);
    // The normal is the centre line: the ball leaves along its reflection.
    let n = DVec2::new(x, 0.2).normalize();
    let v0 = DVec2::new(2.0, 0.0);
    let v1 = v0 - n * (2.0 * v0.dot(n));
    assert!((sim.world().bodies()[0].vel - v1).length() < 1e-6);
}

/// Bodies of every kind bouncing around static shapes in a room never overlap them between
/// events (dense sampling), in 2D and 3D.
#[test]
fn no_overlap_with_static_shapes_under_dense_sampling() {
    let walls2 = |l: f64| {
        let mut w: Vec<Wall<DVec2>> = [
            (DVec2::ZERO, DVec2::X),
            (DVec2::ZERO, DVec2::Y),
            (DVec2::splat(l), -DVec2::X),
            (DVec2::splat(l), -DVec2::Y),
        ]
        .into_iter()
        .map(|(p, n)| Wall::Plane(Plane::new(p, n).unwrap()))
        .collect();
        w.push(fixed(
            Shape::cuboid(DVec2::new(1.0, 0.3)).unwrap(),
            Pose::new(DVec2::new(5.0, 5.0), Rot2::from_angle(0.4)),
        ));
        w.push(fixed(
            Shape::capsule(0.8, 0.4).unwrap(),
            Pose::new(DVec2::new(2.0, 7.5), Rot2::from_angle(-1.0)),
        ));
        w
    };
    let bodies2 = [
        (
            Shape::cuboid(DVec2::new(0.5, 0.2)).unwrap(),
            Pose::new(DVec2::new(2.0, 2.0), Rot2::from_angle(0.7)),
            DVec2::new(1.3, 0.9),
        ),
        (
            Shape::ball(0.4).unwrap(),
            Pose::from_position(DVec2::new(8.0, 2.0)),
            DVec2::new(-1.0, 1.7),
        ),
        (
            Shape::capsule(0.3, 0.2).unwrap(),
            Pose::new(DVec2::new(8.0, 8.0), Rot2::from_angle(0.2)),
            DVec2::new(-1.5, -0.8),
        ),
    ];
    let (events, least) = least_gap_sampled(world(&bodies2, walls2(10.0)), 30.0, 40);
    assert!(events > 20, "only {events} events");
    assert!(least > -1e-9, "2D: overlap of {least}");

    let l = 6.0;
    let mut walls3: Vec<Wall<DVec3>> = Vec::new();
    for n in [DVec3::X, DVec3::Y, DVec3::Z] {
        walls3.push(Wall::Plane(Plane::new(DVec3::ZERO, n).unwrap()));
        walls3.push(Wall::Plane(Plane::new(DVec3::splat(l), -n).unwrap()));
    }
    walls3.push(fixed(
        Shape::cuboid(DVec3::new(0.8, 0.3, 0.6)).unwrap(),
        Pose::new(
            DVec3::splat(3.0),
            DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.0).normalize(), 0.5),
        ),
    ));
    walls3.push(fixed(
        Shape::cylinder(0.5, 0.4).unwrap(),
        Pose::new(
            DVec3::new(1.5, 4.5, 1.5),
            DQuat::from_axis_angle(DVec3::X, 0.9),
        ),
    ));
    let bodies3 = [
        (
            Shape::cuboid(DVec3::new(0.3, 0.2, 0.25)).unwrap(),
            Pose::from_position(DVec3::new(1.0, 1.0, 4.5)),
            DVec3::new(1.1, 0.8, -0.9),
        ),
        (
            Shape::ball(0.35).unwrap(),
            Pose::from_position(DVec3::new(5.0, 1.0, 1.0)),
            DVec3::new(-0.7, 1.2, 1.0),
        ),
        (
            Shape::capsule(0.25, 0.2).unwrap(),
            Pose::from_position(DVec3::new(4.5, 4.5, 4.5)),
            DVec3::new(-1.0, -0.5, -1.2),
        ),
    ];
    let (events, least) = least_gap_sampled(world(&bodies3, walls3), 20.0, 40);
    assert!(events > 20, "only {events} events");
    assert!(least > -1e-9, "3D: overlap of {least}");
}

/// Under gravity a box dropped on a static tilted box and a ball dropped on a static box come
/// to rest on them (the static shape is a support), without sinking in.
#[test]
fn bodies_come_to_rest_on_static_shapes_under_gravity() {
    let floor = Wall::Plane(Plane::new(DVec2::ZERO, DVec2::Y).unwrap());
    let ledge = fixed(
        Shape::cuboid(DVec2::new(3.0, 0.5)).unwrap(),
        Pose::new(DVec2::new(0.0, 2.0), Rot2::from_angle(0.05)),
    );
    let bodies = [
        (
            Shape::cuboid(DVec2::new(0.4, 0.3)).unwrap(),
            Pose::new(DVec2::new(-1.0, 4.0), Rot2::from_angle(0.3)),
            DVec2::ZERO,
        ),
        (
            Shape::ball(0.3).unwrap(),
            Pose::from_position(DVec2::new(1.2, 3.5)),
            DVec2::ZERO,
        ),
    ];
    let w = builder(&bodies, vec![floor, ledge])
        .gravity(DVec2::new(0.0, -9.81), 0.05)
        .restitution(0.5)
        .friction(1.0)
        .build()
        .unwrap();
    let mut sim = all_pairs(w, 60.0);
    let mut events = 0;
    while sim.step().is_some() {
        events += 1;
        assert!(events < 200_000, "no rest after {events} events");
    }
    let w = sim.world();
    for i in 0..2 {
        assert!(
            w.is_asleep(i),
            "body {i} still moving at {:?}",
            w.bodies()[i].vel
        );
        // Resting on the ledge, above the floor.
        assert!(
            w.bodies()[i].pos.y > 2.4,
            "body {i} fell to {:?}",
            w.bodies()[i].pos
        );
    }
    assert!(min_gap(w, 60.0) > -1e-6, "sunk into a support");
}

/// The new wall goes through every broad phase: their logs are bit-identical (2D and 3D),
/// and the static shapes are hit.
#[test]
fn every_broad_phase_sees_the_static_shapes() {
    let scene2 = r#"
dim = 2
[simulation]
duration = 30.0
restitution = 0.9
[[walls]]
box = { min = [0.0, 0.0], max = [20.0, 20.0] }
[[walls]]
shape = "box"
half_extents = [2.0, 0.4]
position = [10.0, 10.0]
orientation = 0.3
[[walls]]
shape = "polygon"
vertices = [[0.0, 0.0], [2.0, 0.0], [1.0, 1.5]]
position = [4.0, 15.0]
orientation = -0.5
[[walls]]
shape = "capsule"
half_height = 1.5
radius = 0.5
position = [15.0, 5.0]
"#;
    let scene3 = r#"
dim = 3
[simulation]
duration = 30.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [12.0, 12.0, 12.0] }
[[walls]]
shape = "box"
half_extents = [2.0, 0.4, 1.5]
position = [6.0, 6.0, 6.0]
orientation = [0.9, 0.1, 0.3, 0.2]
[[walls]]
shape = "cylinder"
half_height = 1.0
radius = 0.8
position = [3.0, 9.0, 3.0]
orientation = [0.94, 0.34, 0.0, 0.0]
"#;
    let mut total = 0;
    let mut hits = 0;
    for (text, seed) in [(scene2, 1u64), (scene3, 2)] {
        let mut scene = Scene::from_toml_str(text).unwrap();
        add_gas(&mut scene, 30, seed);
        scene.validate().expect("a valid gas");
        let (n, h) = if scene.dim == 2 {
            same_logs(&scene.world::<DVec2>().unwrap(), scene.duration)
        } else {
            same_logs(&scene.world::<DVec3>().unwrap(), scene.duration)
        };
        total += n;
        hits += h;
    }
    assert!(total > 300, "only {total} events compared");
    assert!(hits > 20, "only {hits} hits of static shapes");
}

/// Balls on a grid of the scene's room, clear of its static shapes.
fn add_gas(scene: &mut Scene, n: usize, seed: u64) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let l = if scene.dim == 2 { 20.0 } else { 12.0 };
    let mut k = 0;
    let side = 8;
    'grid: for i in 0..side {
        for j in 0..side {
            for m in 0..if scene.dim == 2 { 1 } else { side } {
                if k == n {
                    break 'grid;
                }
                let cell = l / side as f64;
                let mut p = [(i as f64 + 0.5) * cell, (j as f64 + 0.5) * cell, 0.0];
                if scene.dim == 3 {
                    p[2] = (m as f64 + 0.5) * cell;
                }
                let mut v = [rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0), 0.0];
                if scene.dim == 3 {
                    v[2] = rng.gen_range(-2.0..2.0);
                }
                let b = kairos::scene::BodySpec {
                    position: p,
                    velocity: v,
                    radius: 0.2 * cell * rng.gen_range(0.5..1.0),
                    mass: 1.0,
                };
                scene.bodies.push(b);
                if scene.validate().is_err() {
                    scene.bodies.pop();
                } else {
                    k += 1;
                }
            }
        }
    }
}

fn same_logs<V: Vector>(w: &World<V>, duration: f64) -> (usize, usize) {
    let shape_walls: Vec<u32> = (0..w.walls().len() as u32)
        .filter(|&k| matches!(w.walls()[k as usize], Wall::Shape(_)))
        .collect();
    let log = |kind: BroadPhaseKind| {
        let mut sim = Simulation::new(
            w.clone(),
            kind.build::<V>(&BroadPhaseOptions::default()),
            duration,
        );
        let mut out = Vec::new();
        sim.run(|e, w, _| {
            let b = &w.bodies()[e.a as usize];
            let mut row = vec![e.time.to_bits(), e.a as u64, e.b as u64];
            row.extend(b.pos.to_array3().map(f64::to_bits));
            row.extend(b.vel.to_array3().map(f64::to_bits));
            out.push((
                row,
                e.kind == EventKind::BodyWall && shape_walls.contains(&e.b),
            ));
        });
        out
    };
    let reference = log(BroadPhaseKind::AllPairs);
    for kind in BroadPhaseKind::ALL {
        let other = log(kind);
        assert_eq!(reference.len(), other.len(), "{kind}: counts differ");
        for (i, (x, y)) in reference.iter().zip(&other).enumerate() {
            assert_eq!(x, y, "{kind}: event {i} differs");
        }
    }
    let hits = reference.iter().filter(|(_, h)| *h).count();
    (reference.len(), hits)
}

const TILTED_BOX_2D: &str = r#"
dim = 2
[simulation]
duration = 10.0
[[walls]]
box = { min = [0.0, 0.0], max = [10.0, 10.0] }
[[walls]]
shape = "box"
half_extents = [1.0, 0.2]
position = [5.0, 3.0]
orientation = 0.3
[[bodies]]
position = [5.0, 8.0]
velocity = [0.0, -2.0]
radius = 0.5
mass = 1.0
"#;

/// A scene with a shape wall round-trips through `to_toml`, and builds a rigid world even
/// when its bodies are plain balls.
#[test]
fn a_scene_with_shape_walls_round_trips_and_is_rigid() {
    let scene = Scene::from_toml_str(TILTED_BOX_2D).unwrap();
    assert!(scene.has_shape_walls() && scene.has_rigid_bodies() && !scene.is_rigid(0));
    let back = Scene::from_toml_str(&scene.to_toml()).unwrap();
    assert_eq!(back, scene);
    let w = scene.world::<DVec2>().unwrap();
    assert_eq!(w.rigid().len(), 1);
    let Wall::Shape(s) = &w.walls()[4] else {
        panic!("wall 4 is {:?}", w.walls()[4])
    };
    assert!((s.pose.position - DVec2::new(5.0, 3.0)).length() == 0.0);
    assert!((s.pose.rotation.angle() - 0.3).abs() < 1e-15);
    // Its box holds the turned rectangle's corners.
    let b = s.aabb();
    let (c, sn) = (0.3f64.cos(), 0.3f64.sin());
    let hx = 1.0 * c + 0.2 * sn;
    assert!((b.max.x - (5.0 + hx)).abs() < 1e-12 && (b.min.x - (5.0 - hx)).abs() < 1e-12);

    // 3D, with a quaternion and a rigid body.
    let text = r#"
dim = 3
[simulation]
duration = 3.0
[[walls]]
shape = "polyhedron"
points = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
position = [2.0, 0.0, 0.0]
orientation = [0.5, 0.5, 0.5, 0.5]
[[bodies]]
shape = "box"
half_extents = [0.2, 0.2, 0.2]
position = [0.0, 0.0, 0.0]
velocity = [1.0, 0.0, 0.0]
"#;
    let scene = Scene::from_toml_str(text).unwrap();
    assert_eq!(Scene::from_toml_str(&scene.to_toml()).unwrap(), scene);
    // The turned tetrahedron's face x = 2 is 1.8 ahead of the box's face.
    let mut sim = all_pairs(scene.world::<DVec3>().unwrap(), 3.0);
    let e = sim.step().expect("the box reaches the polyhedron");
    assert!((e.time - 1.8).abs() < 1e-6, "contact at {}", e.time);
}

/// Refused shape walls: the error names the wall and the key.
#[test]
fn bad_shape_walls_are_refused_naming_the_wall_and_the_key() {
    let with = |wall: &str| {
        format!(
            "dim = 2\n[simulation]\nduration = 1.0\n[[walls]]\na = [0.0, -5.0]\nb = [0.0, 5.0]\n\
             [[walls]]\n{wall}\n[[bodies]]\nposition = [-3.0, 0.0]\nvelocity = [1.0, 0.0]\n\
             radius = 0.5\nmass = 1.0\n"
        )
    };
    for (wall, words) in [
        ("shape = \"box\"\nposition = [5.0, 0.0]", &["wall 1", "half_extents"][..]),
        (
            "shape = \"box\"\nhalf_extents = [1.0, -1.0]\nposition = [5.0, 0.0]",
            &["wall 1", "half_extents"],
        ),
        ("shape = \"box\"\nhalf_extents = [1.0, 1.0]", &["wall 1", "position"]),
        (
            "shape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [5.0, 0.0]\nvelocity = [1.0, 0.0]",
            &["wall 1", "velocity"],
        ),
        (
            "shape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [5.0, 0.0]\nmass = 2.0",
            &["wall 1", "mass"],
        ),
        (
            "shape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [5.0, 0.0]\ncolour = 1",
            &["wall 1", "colour"],
        ),
        (
            "shape = \"blob\"\nposition = [5.0, 0.0]",
            &["wall 1", "blob"],
        ),
        (
            "shape = \"cylinder\"\nhalf_height = 1.0\nradius = 1.0\nposition = [5.0, 0.0]",
            &["wall 1", "cylinder"],
        ),
        (
            "shape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [5.0, 0.0]\nbox = { min = [0.0, 0.0], max = [1.0, 1.0] }",
            &["wall 1", "`shape`", "`box`"],
        ),
        (
            "shape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [5.0, 0.0]\norientation = [1.0, 0.0]",
            &["wall 1", "orientation"],
        ),
        (
            "shape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [5.0, nan]",
            &["wall 1", "position"],
        ),
        // Overlapping the ball at t = 0.
        (
            "shape = \"capsule\"\nhalf_height = 1.0\nradius = 0.3\nposition = [-2.4, 0.0]\norientation = 1.5707963",
            &["body 0", "wall 1"],
        ),
    ] {
        let e = Scene::from_toml_str(&with(wall)).expect_err(wall).to_string();
        for w in words {
            assert!(e.contains(w), "{wall:?}: {e:?} lacks {w}");
        }
    }
    // A room of four segments still keeps its bodies inside with a static shape in it.
    let room = "dim = 2\n[simulation]\nduration = 1.0\n\
        [[walls]]\na = [0.0, 0.0]\nb = [4.0, 0.0]\n[[walls]]\na = [4.0, 0.0]\nb = [4.0, 4.0]\n\
        [[walls]]\na = [4.0, 4.0]\nb = [0.0, 4.0]\n[[walls]]\na = [0.0, 4.0]\nb = [0.0, 0.0]\n\
        [[walls]]\nshape = \"ball\"\nradius = 0.5\nposition = [2.0, 2.0]\n\
        [[bodies]]\nposition = [X, 1.0]\nvelocity = [0.0, 0.0]\nradius = 0.2\nmass = 1.0\n";
    Scene::from_toml_str(&room.replace('X', "1.0")).expect("inside the room");
    let e = Scene::from_toml_str(&room.replace('X', "6.0"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("body 0") && e.contains("outside"), "{e}");
    // Touching the ball without overlapping is fine; just apart too.
    for x in ["-2.2", "-1.0"] {
        let wall = format!("shape = \"box\"\nhalf_extents = [0.3, 1.0]\nposition = [{x}, 0.0]");
        Scene::from_toml_str(&with(&wall)).expect(&wall);
    }
}
