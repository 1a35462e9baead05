//! Rigid bodies' event logs, bit for bit: every broad phase gives the same log of a rigid gas
//! (between planes, and with static shapes as walls), and version 3 traces replay the
//! simulation's positions and orientations exactly, before and after being read back.

use crate::common;

use common::{gas2, gas3, room2, room3, world};
use kairos::math::{DVec2, DVec3, Rot2, Rotation, Vector};
use kairos::prelude::*;
use kairos::shape::{Pose, Shape};

/// One processed event with every body's full state after it, as bits.
fn snapshot<V: Vector>(e: &Event, w: &World<V>) -> Vec<u64> {
    let mut out = vec![
        e.time.to_bits(),
        e.kind.code() as u64,
        e.a as u64,
        e.b as u64,
    ];
    for i in [e.a as usize, e.b as usize] {
        if e.kind != EventKind::BodyBody && i == e.b as usize {
            continue;
        }
        let b = &w.bodies()[i];
        for x in b.pos.to_array3().into_iter().chain(b.vel.to_array3()) {
            out.push(x.to_bits());
        }
        let r = &w.rigid()[i];
        for axis in 0..V::DIM {
            let turned = r.rotation.rotate(V::unit(axis));
            let spun = V::angular_cross(r.angular_velocity, V::unit(axis));
            for x in turned.to_array3().into_iter().chain(spun.to_array3()) {
                out.push(x.to_bits());
            }
        }
    }
    out
}

fn log<V: Vector>(world: &World<V>, kind: BroadPhaseKind, duration: f64) -> Vec<Vec<u64>> {
    let mut sim = Simulation::new(
        world.clone(),
        kind.build::<V>(&BroadPhaseOptions::default()),
        duration,
    );
    let mut out = Vec::new();
    sim.run(|e, w, _| out.push(snapshot(e, w)));
    out
}

fn same_logs_everywhere<V: Vector>(world: &World<V>, duration: f64, what: &str) -> usize {
    let reference = log(world, BroadPhaseKind::AllPairs, duration);
    for kind in BroadPhaseKind::ALL {
        let other = log(world, kind, duration);
        for (i, (x, y)) in reference.iter().zip(&other).enumerate() {
            assert_eq!(x, y, "{what}, {kind}: event {i} differs");
        }
        assert_eq!(
            reference.len(),
            other.len(),
            "{what}, {kind}: counts differ"
        );
    }
    reference.len()
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn every_broad_phase_gives_the_same_rigid_log() {
    let mut total = 0;
    for seed in 0..3 {
        let w = world(&gas2(24, 10.0, seed), room2(10.0));
        total += same_logs_everywhere(&w, 20.0, &format!("2D seed {seed}"));
        let w = world(&gas3(27, 10.0, seed), room3(10.0));
        total += same_logs_everywhere(&w, 20.0, &format!("3D seed {seed}"));
    }
    assert!(total > 1000, "only {total} events compared");
}

/// The same with static shapes as walls: the gas of `[0, 10]` in a room of 14, with a tilted
/// box, a capsule and a polygon (2D), a box, a cylinder and a cone (3D) in the free strip.
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn every_broad_phase_gives_the_same_rigid_log_with_static_shapes() {
    use kairos::math::DQuat;
    use kairos::wall::StaticShape;
    let placed2 = |shape: Shape<DVec2>, x: f64, y: f64, a: f64| {
        Wall::Shape(
            StaticShape::new(shape, Pose::new(DVec2::new(x, y), Rot2::from_angle(a))).unwrap(),
        )
    };
    let placed3 = |shape: Shape<DVec3>, p: DVec3, a: f64| {
        let q = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), a);
        Wall::Shape(StaticShape::new(shape, Pose::new(p, q)).unwrap())
    };
    let mut total = 0;
    let mut hits = 0;
    let count = |log: &[Vec<u64>], first: u64| {
        // Events on walls from `first` on (a ball-wall event's second id is the wall's).
        log.iter()
            .filter(|row| row[1] == EventKind::BodyWall.code() as u64 && row[3] >= first)
            .count()
    };
    for seed in 0..2 {
        let mut walls = room2(14.0);
        walls.push(placed2(
            Shape::cuboid(DVec2::new(1.0, 0.3)).unwrap(),
            12.0,
            3.0,
            0.4,
        ));
        walls.push(placed2(Shape::capsule(1.0, 0.4).unwrap(), 12.0, 8.0, -0.3));
        walls.push(placed2(
            Shape::convex_polygon(vec![
                DVec2::new(-1.0, -0.8),
                DVec2::new(1.0, -0.5),
                DVec2::new(0.0, 1.0),
            ])
            .unwrap(),
            5.0,
            12.0,
            0.2,
        ));
        let w = world(&gas2(24, 10.0, seed), walls);
        let reference = log(&w, BroadPhaseKind::AllPairs, 40.0);
        hits += count(&reference, 4);
        total += same_logs_everywhere(&w, 40.0, &format!("2D seed {seed}"));
        let mut walls = room3(14.0);
        walls.push(placed3(
            Shape::cuboid(DVec3::new(1.0, 0.4, 0.8)).unwrap(),
            DVec3::new(12.0, 5.0, 5.0),
            0.5,
        ));
        walls.push(placed3(
            Shape::cylinder(0.8, 0.6).unwrap(),
            DVec3::new(5.0, 12.0, 5.0),
            1.0,
        ));
        walls.push(placed3(
            Shape::cone(0.8, 0.7).unwrap(),
            DVec3::new(5.0, 5.0, 12.0),
            -0.7,
        ));
        let w = world(&gas3(27, 10.0, seed), walls);
        let reference = log(&w, BroadPhaseKind::AllPairs, 40.0);
        hits += count(&reference, 6);
        total += same_logs_everywhere(&w, 40.0, &format!("3D seed {seed}"));
    }
    assert!(total > 1000, "only {total} events compared");
    assert!(hits > 10, "only {hits} hits of static shapes");
}

/// Runs `scene` to its end, writing its trace (version 3) to a temporary file, and checks
/// after every recorded event that the trace's replay gives every body's position and
/// orientation as the simulation holds them, bit for bit; then reads the file back and checks
/// that its records and replay are the same. Returns the number of records.
fn trace_round_trip<V: Vector>(scene: &Scene, name: &str) -> usize {
    use kairos::math::Rotation as _;
    use kairos::trace::{Record, Replay, TraceHeader, TraceReader, TraceWriter};
    let path = std::env::temp_dir().join(format!("kairos-{name}-{}.ktrace", std::process::id()));
    let header = TraceHeader::for_scene(scene, "calendar");
    assert!(header.rigid && header.version() == 3);
    let mut writer = TraceWriter::create_for_scene(&path, scene, "calendar").unwrap();
    let world: World<V> = scene.world().unwrap();
    let mut sim = Simulation::new(
        world,
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let mut replay = Replay::new(&header);
    assert!(replay.is_rigid());
    let mut records = Vec::new();
    while let Some(e) = sim.step() {
        if e.kind == EventKind::BoxCrossing {
            continue;
        }
        let r = Record::from_event(&e, sim.world(), sim.lookahead());
        writer.write(&r).unwrap();
        replay.apply(&r);
        records.push(r);
        let w = sim.world();
        assert!(
            e.time < 64.0,
            "the test compares local times with absolute ones"
        );
        for i in 0..w.bodies().len() {
            let b = &w.bodies()[i];
            let (rot, omega) = w.rigid()[i].at(e.time - b.time);
            let pos = b.position_at(e.time).to_array3();
            let (rrot, romega) = replay.orientation(i, e.time);
            let rpos = replay.position(i, e.time);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&rrot),
                bits(&rot.to_array4()),
                "body {i} at {}",
                e.time
            );
            assert_eq!(
                bits(&romega),
                bits(&V::angular_to_array3(omega)),
                "body {i}"
            );
            assert_eq!(bits(&rpos), bits(&pos), "body {i} at {}", e.time);
        }
    }
    writer.finish(scene.duration).unwrap();
    let reader = TraceReader::open(&path).unwrap();
    assert_eq!(reader.version(), 3);
    assert_eq!(reader.header(), &header);
    let (read_header, read) = reader.read_all().unwrap();
    assert_eq!(read.len(), records.len());
    for (a, b) in read.iter().zip(&records) {
        assert!(a.same_event(b) && a.dt.to_bits() == b.dt.to_bits());
    }
    assert_eq!(read_header.scene().unwrap().to_toml(), scene.to_toml());
    let mut again = Replay::try_new(&read_header).unwrap();
    for r in &read {
        again.apply(r);
    }
    for i in 0..replay.len() {
        let t = scene.duration;
        assert_eq!(again.orientation(i, t), replay.orientation(i, t));
        assert_eq!(again.position(i, t), replay.position(i, t));
    }
    std::fs::remove_file(&path).unwrap();
    records.len()
}

#[test]
fn rigid_traces_round_trip_and_replay_the_simulation_bit_for_bit() {
    let p = generate::RigidGasParams {
        n: 24,
        duration: 6.0,
        ..Default::default()
    };
    let mut plank = Scene::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenes/spinning-plank.toml"
    )))
    .unwrap();
    plank.duration = 6.0;
    assert!(trace_round_trip::<DVec2>(&plank, "plank") > 5);
    let polygons = generate::polygons(&p).unwrap();
    assert!(trace_round_trip::<DVec2>(&polygons, "polygons") > 20);
    let boxes = generate::boxes(&p).unwrap();
    assert!(trace_round_trip::<DVec3>(&boxes, "boxes") > 20);
    // Bodies of anisotropic inertia: between events they follow the closed-form free
    // rotation, which the replay must compute as the simulation does.
    let tumbling = Scene::from_toml_str(
        r#"
dim = 3
[simulation]
duration = 30.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [6.0, 6.0, 6.0] }
[[bodies]]
shape = "box"
half_extents = [1.0, 0.5, 0.25]
position = [2.0, 2.0, 2.0]
orientation = [0.9, 0.1, 0.3, 0.2]
velocity = [1.5, 0.7, -0.4]
angular_velocity = [0.3, 2.0, 0.1]
[[bodies]]
shape = "box"
half_extents = [0.6, 0.3, 0.2]
position = [4.5, 4.0, 4.0]
velocity = [-1.0, -0.6, 0.9]
angular_velocity = [1.0, 0.2, 1.5]
"#,
    )
    .unwrap();
    let n = trace_round_trip::<DVec3>(&tumbling, "tumbling");
    assert!(n > 10, "{n} events");
}
