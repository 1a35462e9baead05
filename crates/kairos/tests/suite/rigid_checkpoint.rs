//! Checkpoints of rigid runs (format version 3): a run resumed from one processes the events
//! of the uninterrupted run bit for bit (across a time-origin move, on another broad phase),
//! its world is the saved one exactly (the 3D torque-free motion rebuilt from the stored
//! rotation, angular velocity and inertia), the trace of the resumed run replays to the same
//! states, and damaged rigid checkpoints are refused with the reason.

use kairos::checkpoint::{self, CheckpointError};
use kairos::hash::Fnv1a;
use kairos::prelude::*;
use kairos::trace::{Record, Replay};

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "kairos-rigid-checkpoint-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("ck.bin")
}

/// A 3D room of boxes with three unequal half extents (anisotropic inertia: between events
/// they tumble by the closed-form free rotation), spinning about tilted axes.
fn tumbling_boxes(duration: f64) -> Scene {
    let mut text = format!(
        "dim = 3\n[simulation]\nduration = {duration:?}\n[[walls]]\n\
         box = {{ min = [0.0, 0.0, 0.0], max = [9.0, 9.0, 9.0] }}\n"
    );
    let mut k = 0;
    for x in [1.8, 4.5, 7.2] {
        for y in [1.8, 4.5, 7.2] {
            for z in [2.0, 6.5] {
                let f = |a: f64| ((k as f64 + 1.0) * a).sin();
                text.push_str(&format!(
                    "\n[[bodies]]\nshape = \"box\"\nhalf_extents = [{:?}, {:?}, 0.2]\n\
                     position = [{x:?}, {y:?}, {z:?}]\norientation = [0.9, {:?}, {:?}, {:?}]\n\
                     velocity = [{:?}, {:?}, {:?}]\nangular_velocity = [{:?}, {:?}, {:?}]\n",
                    0.8 + 0.1 * f(1.3),
                    0.45 + 0.05 * f(2.1),
                    0.3 * f(0.7),
                    0.3 * f(1.9),
                    0.3 * f(2.9),
                    1.5 * f(0.4),
                    1.5 * f(1.1),
                    1.5 * f(1.7),
                    2.0 * f(0.3),
                    2.0 * f(2.3),
                    2.0 * f(3.1),
                ));
                k += 1;
            }
        }
    }
    Scene::from_toml_str(&text).unwrap()
}

fn polygons(duration: f64) -> Scene {
    generate::polygons(&generate::RigidGasParams {
        n: 30,
        seed: 5,
        packing: 0.35,
        spin: 2.0,
        duration,
        ..Default::default()
    })
    .unwrap()
}

/// Every event of a run of `scene` from `sim` on, with the replay it leads to.
fn rest<V: Vector>(sim: &mut Simulation<V>, replay: &mut Replay) -> Vec<Record> {
    let mut out = Vec::new();
    while let Some(e) = sim.step() {
        let r = Record::from_event(&e, sim.world(), sim.lookahead());
        replay.apply(&r);
        out.push(r);
    }
    sim.finish();
    out
}

/// Runs `scene` uninterrupted and again with a checkpoint after `stop` events, resumed on
/// another broad phase, and checks that the two agree bit for bit. Returns the number of
/// events and the checkpoint's path.
fn resume_is_uninterrupted<V: Vector>(scene: &Scene, stop: usize, name: &str) -> usize {
    let mut full_sim = Simulation::new(
        scene.world::<V>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let mut full_replay = Replay::for_scene(scene);
    assert!(full_replay.is_rigid());
    let full = rest(&mut full_sim, &mut full_replay);
    assert!(full.len() > stop + 20, "{name}: {} events", full.len());

    let mut sim = Simulation::new(
        scene.world::<V>().unwrap(),
        BroadPhaseKind::AllPairs.build(&Default::default()),
        scene.duration,
    );
    let mut replay = Replay::for_scene(scene);
    for _ in 0..stop {
        let e = sim.step().unwrap();
        replay.apply(&Record::from_event(&e, sim.world(), sim.lookahead()));
    }
    let path = temp(name);
    checkpoint::write(&path, scene, &sim, &replay).unwrap();
    let ck = checkpoint::read(&path).unwrap();
    assert_eq!(&std::fs::read(&path).unwrap()[8..12], &3u32.to_le_bytes());
    assert_eq!(
        ck.scene, *scene,
        "{name}: the scene as given, bodies at time 0"
    );
    assert_eq!(ck.state, sim.state());
    // The saved world is the interrupted one exactly: bodies, rotations, angular velocities
    // and the torque-free motions rebuilt from them.
    let world = ck.world::<V>().unwrap();
    assert_eq!(world.bodies(), sim.world().bodies(), "{name}");
    assert_eq!(world.rigid(), sim.world().rigid(), "{name}");

    let mut resumed = Simulation::restore(
        world,
        BroadPhaseKind::KayaBvh.build(&Default::default()),
        ck.state,
    );
    let mut resumed_replay = Replay::try_new(&ck.trace_header("kaya-bvh")).unwrap();
    let after = rest(&mut resumed, &mut resumed_replay);
    assert_eq!(full.len(), stop + after.len(), "{name}");
    for (k, (x, y)) in full[stop..].iter().zip(&after).enumerate() {
        assert!(
            x.same_event(y),
            "{name}: event {k} after the checkpoint differs"
        );
    }
    // The end states agree bit for bit, in the worlds and in the replays of the traces.
    assert_eq!(
        resumed.world().bodies(),
        full_sim.world().bodies(),
        "{name}"
    );
    assert_eq!(resumed.world().rigid(), full_sim.world().rigid(), "{name}");
    let end = scene.duration;
    for i in 0..scene.bodies.len() {
        assert_eq!(
            resumed_replay.position(i, end),
            full_replay.position(i, end),
            "{name}: body {i}"
        );
        let bits = |(r, w): ([f64; 4], [f64; 3])| {
            r.iter().chain(&w).map(|x| x.to_bits()).collect::<Vec<_>>()
        };
        assert_eq!(
            bits(resumed_replay.orientation(i, end)),
            bits(full_replay.orientation(i, end)),
            "{name}: body {i}"
        );
    }
    std::fs::remove_file(&path).unwrap();
    full.len()
}

#[test]
fn a_resumed_2d_polygon_run_is_the_uninterrupted_run() {
    // Past local time 64: the time origin moves before and after the checkpoint.
    let scene = polygons(100.0);
    let n = resume_is_uninterrupted::<DVec2>(&scene, 400, "polygons");
    assert!(n > 800, "{n} events");
}

#[test]
fn a_resumed_3d_run_of_tumbling_boxes_is_the_uninterrupted_run() {
    let scene = tumbling_boxes(80.0);
    let world = scene.world::<DVec3>().unwrap();
    // The boxes are anisotropic: their motion between events is the free rotation.
    let inertia = world.rigid()[0].inertia;
    assert!(inertia.x_axis.x != inertia.y_axis.y && inertia.y_axis.y != inertia.z_axis.z);
    let n = resume_is_uninterrupted::<DVec3>(&scene, 150, "boxes");
    assert!(n > 300, "{n} events");
}

/// A checkpoint of `scene` after `stop` events.
fn checkpoint_of(scene: &Scene, stop: usize, name: &str) -> (std::path::PathBuf, Vec<u8>) {
    let mut sim = Simulation::new(
        scene.world::<DVec3>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let mut replay = Replay::for_scene(scene);
    for _ in 0..stop {
        let e = sim.step().unwrap();
        replay.apply(&Record::from_event(&e, sim.world(), sim.lookahead()));
    }
    let path = temp(name);
    checkpoint::write(&path, scene, &sim, &replay).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// `bytes` with the end marker's hash made to match again (damage a hash cannot see).
fn resealed(mut b: Vec<u8>) -> Vec<u8> {
    let body = b.len() - 16;
    let h = Fnv1a::of(&b[..body]).to_le_bytes();
    b[body + 8..].copy_from_slice(&h);
    b
}

fn refused(path: &std::path::Path, bytes: &[u8], needle: &str) {
    std::fs::write(path, bytes).unwrap();
    match checkpoint::read(path) {
        Err(CheckpointError::Invalid(m)) => assert!(m.contains(needle), "`{needle}` not in {m}"),
        other => panic!("accepted or not invalid: {:?}", other.map(|c| c.state)),
    }
}

#[test]
fn damaged_rigid_checkpoints_are_refused_with_the_reason() {
    let scene = tumbling_boxes(20.0);
    let n = scene.bodies.len();
    let (path, good) = checkpoint_of(&scene, 40, "damaged");
    assert!(checkpoint::read(&path).is_ok());
    // Truncated, or a bit flipped: the end marker and hash say so.
    refused(&path, &good[..good.len() / 2], "truncated");
    let mut flipped = good.clone();
    flipped[good.len() - 300] ^= 8;
    refused(&path, &flipped, "hash");
    // Damage sealed with a matching hash is caught by the checks of the states.
    let body0 = good.len() - 16 - n * 248;
    let rotation = body0 + 136;
    for (at, value, needle) in [
        // The rotation is no longer a unit quaternion.
        (rotation, 2.0, "body 0: a rotation"),
        // A non-finite angular velocity of the replay's state.
        (rotation + 7 * 8 + 4 * 8, f64::NAN, "body 0: a rotation"),
        // A radius that is not the box's.
        (body0, 5.0, "body 0: its radius or mass"),
        // A mass that is not the box's.
        (body0 + 8, 0.25, "body 0: its radius or mass"),
    ] {
        let mut b = good.clone();
        b[at..at + 8].copy_from_slice(&f64::to_le_bytes(value));
        refused(&path, &resealed(b), needle);
    }
    // The body count of the states must be the scene's.
    let mut b = good.clone();
    b.truncate(good.len() - 16 - 248);
    b.extend_from_slice(&good[good.len() - 16..]);
    refused(&path, &resealed(b), "bytes of body states");
    // A version 2 header on rigid states.
    let mut b = good.clone();
    b[8..12].copy_from_slice(&2u32.to_le_bytes());
    refused(&path, &resealed(b), "rigid bodies");
    // A version 4 header (gravity's) on a scene without gravity.
    let mut b = good.clone();
    b[8..12].copy_from_slice(&4u32.to_le_bytes());
    refused(&path, &resealed(b), "without gravity");
    // A newer version than this build reads.
    let mut b = good;
    b[8..12].copy_from_slice(&5u32.to_le_bytes());
    refused(&path, &resealed(b), "unsupported version 5");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn ball_checkpoints_stay_version_2() {
    let scene = generate::gas(&generate::GasParams {
        n: 20,
        dim: 3,
        ..Default::default()
    })
    .unwrap();
    let (path, bytes) = checkpoint_of(&scene, 10, "balls");
    assert_eq!(&bytes[8..12], &2u32.to_le_bytes());
    let ck = checkpoint::read(&path).unwrap();
    assert!(ck.bodies.iter().all(|b| b.rotation == [0.0; 4]));
    std::fs::remove_file(&path).unwrap();
}

/// A checkpoint resumes a run to its scene's duration, which is also where the resumed trace
/// ends: a state whose end time is another (damage under a matching hash) is refused, and a
/// simulation made to end elsewhere writes no checkpoint.
#[test]
fn a_checkpoint_ends_at_its_scenes_duration() {
    let scene = tumbling_boxes(20.0);
    let (path, good) = checkpoint_of(&scene, 10, "end-time");
    let toml_len = u32::from_le_bytes(good[16..20].try_into().unwrap()) as usize;
    let end_at = 20 + toml_len + 16;
    assert_eq!(
        f64::from_le_bytes(good[end_at..end_at + 8].try_into().unwrap()),
        20.0
    );
    let mut b = good.clone();
    b[end_at..end_at + 8].copy_from_slice(&30.0f64.to_le_bytes());
    refused(
        &path,
        &resealed(b),
        "end time 30 differs from its scene's duration 20",
    );
    std::fs::remove_file(&path).unwrap();
    // Written from a simulation that ends at 10 of a scene of 20: refused, nothing written.
    let sim = Simulation::new(
        scene.world::<DVec3>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        10.0,
    );
    let replay = Replay::for_scene(&scene);
    let e = checkpoint::write(&path, &scene, &sim, &replay).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    assert!(e.to_string().contains("ends at 10"), "{e}");
    assert!(!path.exists());
}
