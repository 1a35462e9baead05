//! Checkpoints of runs under gravity (format version 4): a run resumed from one, at a point
//! where some bodies sleep and others fall, processes the events of the uninterrupted run bit
//! for bit on another broad phase, with the sleeping bodies, their supports and the bodies
//! holding them restored; the trace of the resumed run replays to the same states (its header
//! says which bodies sleep at its start); a checkpoint across a move of the time origin keeps
//! the replay's own velocities; and damaged version 4 files are refused with the reason.

use kairos::checkpoint::{self, CheckpointError};
use kairos::generate::{drop, DropParams};
use kairos::hash::Fnv1a;
use kairos::prelude::*;
use kairos::trace::{Record, Replay, TraceReader, TraceWriter};
use kairos::world::NO_SUPPORT;

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "kairos-gravity-checkpoint-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("ck.bin")
}

/// Every event of a run from `sim` on, with the replay it leads to; checks on the way that a
/// sleeping body does not move (what the checkpoint reader requires of a saved one).
fn rest<V: Vector>(sim: &mut Simulation<V>, replay: &mut Replay) -> Vec<Record> {
    let mut out = Vec::new();
    while let Some(e) = sim.step() {
        let r = Record::from_event(&e, sim.world(), sim.lookahead());
        replay.apply(&r);
        still_sleepers(sim.world());
        out.push(r);
    }
    sim.finish();
    out
}

/// Every sleeping body is at rest (no velocity, no spin).
fn still_sleepers<V: Vector>(w: &World<V>) {
    for (i, b) in w.bodies().iter().enumerate() {
        if w.is_asleep(i) {
            assert_eq!(b.vel, V::ZERO, "sleeping body {i} moves");
            if let Some(r) = w.rigid().get(i) {
                assert_eq!(
                    V::angular_to_array3(r.angular_velocity),
                    [0.0; 3],
                    "body {i}"
                );
            }
        }
    }
}

/// How many bodies sleep.
fn sleepers<V: Vector>(w: &World<V>) -> usize {
    w.asleep().iter().filter(|&&s| s).count()
}

/// Runs `scene` uninterrupted, and again up to the first event after which `stop` says so,
/// checkpointed there and resumed on another broad phase: the two agree bit for bit (events,
/// worlds with their sleep states, the replays of the traces, a trace written and read back);
/// resumed on every other broad phase, the events and end states are the same too. Returns
/// the events before and after the checkpoint, and the checkpoint.
fn resume_is_uninterrupted<V: Vector>(
    scene: &Scene,
    stop: impl Fn(&Simulation<V>) -> bool,
    name: &str,
) -> (usize, usize, checkpoint::Checkpoint) {
    let mut full_sim = Simulation::new(
        scene.world::<V>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let mut full_replay = Replay::for_scene(scene);
    let full = rest(&mut full_sim, &mut full_replay);

    let mut sim = Simulation::new(
        scene.world::<V>().unwrap(),
        BroadPhaseKind::AllPairs.build(&Default::default()),
        scene.duration,
    );
    let mut replay = Replay::for_scene(scene);
    let mut done = 0;
    while !stop(&sim) {
        let e = sim.step().expect("the stop comes before the end");
        replay.apply(&Record::from_event(&e, sim.world(), sim.lookahead()));
        done += 1;
    }
    let path = temp(name);
    checkpoint::write(&path, scene, &sim, &replay).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[8..12], &4u32.to_le_bytes(), "{name}");
    let ck = checkpoint::read(&path).unwrap();
    assert_eq!(ck.state, sim.state());
    assert_eq!(ck.scene.gravity, scene.gravity);
    assert_eq!(ck.scene.rest_speed, Some(sim.world().rest_speed()));
    // The saved world is the interrupted one exactly, sleep states included.
    let world = ck.world::<V>().unwrap();
    let w = sim.world();
    assert_eq!(world.bodies(), w.bodies(), "{name}");
    assert_eq!(world.rigid(), w.rigid(), "{name}");
    assert_eq!(world.asleep(), w.asleep(), "{name}");
    assert_eq!(world.support(), w.support(), "{name}");
    assert_eq!(world.holding(), w.holding(), "{name}");
    assert_eq!(
        world.rest_speed().to_bits(),
        w.rest_speed().to_bits(),
        "{name}"
    );
    // The resumed trace's header: the replay's states, and which bodies sleep.
    let header = ck.trace_header("kaya-bvh");
    assert_eq!(header.asleep.len(), scene.bodies.len());
    for i in 0..scene.bodies.len() {
        assert_eq!(header.asleep[i], replay.is_asleep(i), "{name}: body {i}");
        assert_eq!(header.asleep[i], w.is_asleep(i), "{name}: body {i}");
        let (pos, vel, time) = replay.state(i);
        let b = &header.bodies[i];
        assert_eq!((b.pos, b.vel, b.time), (pos, vel, time), "{name}: body {i}");
    }

    let mut resumed = Simulation::restore(
        world.clone(),
        BroadPhaseKind::KayaBvh.build(&Default::default()),
        ck.state,
    );
    let mut resumed_replay = Replay::try_new(&header).unwrap();
    let after = rest(&mut resumed, &mut resumed_replay);
    assert_eq!(full.len(), done + after.len(), "{name}");
    for (k, (x, y)) in full[done..].iter().zip(&after).enumerate() {
        assert!(
            x.same_event(y),
            "{name}: event {k} after the checkpoint differs"
        );
    }
    // The end states agree bit for bit, in the worlds and in the replays of the traces.
    let (a, b) = (resumed.world(), full_sim.world());
    assert_eq!(a.bodies(), b.bodies(), "{name}");
    assert_eq!(a.rigid(), b.rigid(), "{name}");
    assert_eq!(a.asleep(), b.asleep(), "{name}");
    assert_eq!(a.support(), b.support(), "{name}");
    assert_eq!(a.holding(), b.holding(), "{name}");
    let end = scene.duration;
    let same_replays = |r: &Replay, what: &str| {
        for i in 0..scene.bodies.len() {
            assert_eq!(
                r.position(i, end),
                full_replay.position(i, end),
                "{name}: {what} body {i}"
            );
            assert_eq!(
                r.velocity_at(i, end),
                full_replay.velocity_at(i, end),
                "{name}: {what} body {i}"
            );
            assert_eq!(r.is_asleep(i), full_replay.is_asleep(i), "{name}: body {i}");
            let bits = |(r, w): ([f64; 4], [f64; 3])| {
                r.iter().chain(&w).map(|x| x.to_bits()).collect::<Vec<_>>()
            };
            assert_eq!(
                bits(r.orientation(i, end)),
                bits(full_replay.orientation(i, end)),
                "{name}: {what} body {i}"
            );
        }
    };
    same_replays(&resumed_replay, "replay of");
    // Every broad phase, built from the restored world, continues the same.
    for kind in BroadPhaseKind::ALL {
        let mut sim = Simulation::restore(
            ck.world::<V>().unwrap(),
            kind.build(&Default::default()),
            ck.state,
        );
        let mut replay = Replay::try_new(&header).unwrap();
        let after = rest(&mut sim, &mut replay);
        assert_eq!(full.len(), done + after.len(), "{name}, {kind}");
        for (k, (x, y)) in full[done..].iter().zip(&after).enumerate() {
            assert!(
                x.same_event(y),
                "{name}, {kind}: event {k} after the checkpoint differs"
            );
        }
        assert_eq!(
            sim.world().bodies(),
            full_sim.world().bodies(),
            "{name}, {kind}"
        );
        assert_eq!(
            sim.world().asleep(),
            full_sim.world().asleep(),
            "{name}, {kind}"
        );
    }
    // The same through a trace file: its header holds the sleep states.
    let trace = path.with_file_name("rest.ktrace");
    let mut writer = TraceWriter::create(&trace, &header).unwrap();
    for r in &after {
        writer.write(r).unwrap();
    }
    writer.finish(end).unwrap();
    let (read, records) = TraceReader::open(&trace).unwrap().read_all().unwrap();
    assert_eq!(read, header, "{name}");
    let mut from_file = Replay::try_new(&read).unwrap();
    for r in &records {
        from_file.apply(r);
    }
    same_replays(&from_file, "trace of");
    std::fs::remove_file(&trace).unwrap();
    std::fs::remove_file(&path).unwrap();
    (done, after.len(), ck)
}

/// Some bodies of `ck` sleep, some on other sleeping bodies (which hold them), and some fall.
fn some_sleep_on_others(ck: &checkpoint::Checkpoint) {
    assert!(ck.bodies.iter().any(|b| !b.asleep));
    let on_others = ck.bodies.iter().filter(|b| b.support != NO_SUPPORT).count();
    let held: u32 = ck.bodies.iter().map(|b| b.holding).sum();
    assert!(
        on_others > 0 && held as usize == on_others,
        "{on_others} / {held}"
    );
}

/// A drop stopped once at least a third of its bodies sleep.
fn a_third_asleep<V: Vector>(n: usize) -> impl Fn(&Simulation<V>) -> bool {
    move |sim: &Simulation<V>| 3 * sleepers(sim.world()) >= n
}

#[test]
fn a_resumed_2d_drop_of_balls_and_boxes_is_the_uninterrupted_run() {
    let scene = drop(&DropParams {
        balls: 12,
        boxes: 12,
        seed: 5,
        duration: 8.0,
        ..Default::default()
    })
    .unwrap();
    let n = scene.bodies.len();
    let (done, after, ck) = resume_is_uninterrupted::<DVec2>(&scene, a_third_asleep(n), "drop-2d");
    assert!(done > 50 && after > 50, "{done} / {after}");
    some_sleep_on_others(&ck);
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn a_resumed_3d_drop_is_the_uninterrupted_run() {
    let scene = drop(&DropParams {
        dim: 3,
        balls: 6,
        boxes: 6,
        seed: 3,
        duration: 6.0,
        ..Default::default()
    })
    .unwrap();
    let n = scene.bodies.len();
    let (done, after, ck) = resume_is_uninterrupted::<DVec3>(&scene, a_third_asleep(n), "drop-3d");
    assert!(done > 20 && after > 20, "{done} / {after}");
    assert!(ck.bodies.iter().any(|b| b.asleep) && ck.bodies.iter().any(|b| !b.asleep));
}

/// Drops checkpointed while their bodies fall, between their events: a broad phase built from
/// the restored world has them in flight since older states (the calendar puts each in the
/// cell it has reached, not the one of its stored state).
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn drops_resumed_in_mid_fall_are_the_uninterrupted_runs() {
    let scene = drop(&DropParams {
        balls: 20,
        boxes: 20,
        duration: 2.0,
        ..Default::default()
    })
    .unwrap();
    let falling = |sim: &Simulation<DVec2>| sim.now() >= 1.5;
    let (done, after, ck) = resume_is_uninterrupted::<DVec2>(&scene, falling, "mid-fall-2d");
    assert!(done > 100 && after > 100, "{done} / {after}");
    assert!(ck.bodies.iter().filter(|b| !b.asleep).count() > 30);
    let scene = drop(&DropParams {
        dim: 3,
        balls: 6,
        boxes: 6,
        duration: 1.5,
        ..Default::default()
    })
    .unwrap();
    let falling = |sim: &Simulation<DVec3>| sim.now() >= 1.0;
    let (done, after, _) = resume_is_uninterrupted::<DVec3>(&scene, falling, "mid-fall-3d");
    assert!(done > 0 && after > 20, "{done} / {after}");
}

/// Balls only (a world of balls, version 2 layout inside version 4), elastic, bouncing past
/// local time 64: the checkpoint comes after the time origin moved, so the bodies' velocities
/// (advanced along their parabolas) differ from their replay states'.
#[test]
fn a_resumed_run_of_bouncing_balls_across_a_time_origin_move_is_the_uninterrupted_run() {
    let mut scene = drop(&DropParams {
        balls: 16,
        boxes: 0,
        restitution: 1.0,
        seed: 4,
        duration: 70.0,
        ..Default::default()
    })
    .unwrap();
    scene.shapes.clear();
    scene.validate().unwrap();
    assert!(!scene.has_rigid_bodies());
    let moved = |sim: &Simulation<DVec2>| sim.origin() > 0.0;
    let (done, after, ck) = resume_is_uninterrupted::<DVec2>(&scene, moved, "bouncing");
    assert!(done > 100 && after > 10, "{done} / {after}");
    // Bodies in flight since before the move: their replay states hold older velocities.
    let older = ck.bodies.iter().filter(|b| b.replay_vel != b.vel).count();
    assert!(older > 5, "{older}");
}

/// A checkpoint of a 2D drop once a third of its bodies sleep.
fn checkpoint_of(name: &str) -> (std::path::PathBuf, Vec<u8>, usize) {
    let scene = drop(&DropParams {
        balls: 6,
        boxes: 6,
        seed: 5,
        duration: 8.0,
        ..Default::default()
    })
    .unwrap();
    let n = scene.bodies.len();
    let mut sim = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let mut replay = Replay::for_scene(&scene);
    while 3 * sleepers(sim.world()) < n {
        let e = sim.step().unwrap();
        replay.apply(&Record::from_event(&e, sim.world(), sim.lookahead()));
    }
    let path = temp(name);
    checkpoint::write(&path, &scene, &sim, &replay).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes, n)
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
fn damaged_gravity_checkpoints_are_refused_with_the_reason() {
    let (path, good, n) = checkpoint_of("damaged");
    let ck = checkpoint::read(&path).unwrap();
    assert_eq!(&good[8..12], &4u32.to_le_bytes());
    // A rigid body's state (248 bytes) and the 40 of gravity.
    let size = 248 + 40;
    let body0 = good.len() - 16 - n * size;
    let sleep = |i: usize| body0 + i * size + 248 + 24;
    // A body that sleeps on another, and so one that holds it.
    let resting = (0..n).find(|&i| ck.bodies[i].support != NO_SUPPORT);
    let sleeper = (0..n).find(|&i| ck.bodies[i].asleep).unwrap();
    let awake = (0..n).find(|&i| !ck.bodies[i].asleep).unwrap();
    // Truncated, or a bit flipped: the end marker and hash say so.
    refused(&path, &good[..good.len() - 5], "truncated");
    let mut flipped = good.clone();
    flipped[sleep(sleeper)] ^= 1;
    refused(&path, &flipped, "hash");
    // Damage sealed with a matching hash is caught by the checks of the sleep states.
    let u32_at =
        |b: &mut Vec<u8>, at: usize, x: u32| b[at..at + 4].copy_from_slice(&x.to_le_bytes());
    let cases: Vec<(usize, u32, String)> = vec![
        // Not a flag.
        (
            sleep(sleeper),
            2,
            format!("body {sleeper}: its sleep state"),
        ),
        (
            sleep(awake) + 12,
            7,
            format!("body {awake}: its sleep state"),
        ),
        // Resting on itself, on a missing body, or while awake.
        (
            sleep(sleeper) + 4,
            sleeper as u32,
            format!("body {sleeper}: its sleep state"),
        ),
        (
            sleep(sleeper) + 4,
            n as u32,
            format!("body {sleeper}: its sleep state"),
        ),
        (
            sleep(awake) + 4,
            sleeper as u32,
            format!("body {awake}: its sleep state"),
        ),
        // Resting on a body that does not sleep.
        (
            sleep(sleeper) + 4,
            awake as u32,
            format!("body {sleeper}: it rests on body {awake}"),
        ),
        // Holding a body that does not rest on it.
        (sleep(awake) + 8, 1, format!("body {awake}: it holds 1")),
    ];
    for (at, x, needle) in cases {
        let mut b = good.clone();
        u32_at(&mut b, at, x);
        refused(&path, &resealed(b), &needle);
    }
    if let Some(i) = resting {
        // The body it rests on no longer holds it.
        let s = ck.bodies[i].support as usize;
        let mut b = good.clone();
        u32_at(&mut b, sleep(s) + 8, ck.bodies[s].holding - 1);
        refused(&path, &resealed(b), &format!("body {s}: it holds"));
    }
    // A sleeping body that moves.
    let mut b = good.clone();
    let vel = body0 + sleeper * size + 40;
    b[vel..vel + 8].copy_from_slice(&0.5f64.to_le_bytes());
    refused(
        &path,
        &resealed(b),
        &format!("body {sleeper}: it sleeps but moves"),
    );
    // A non-finite replay velocity.
    let mut b = good.clone();
    b[sleep(awake) - 24..sleep(awake) - 16].copy_from_slice(&f64::NAN.to_le_bytes());
    refused(&path, &resealed(b), "not finite");
    // An older version's header on a scene with gravity: its sleep states are not there.
    for v in [2u32, 3] {
        let mut b = good.clone();
        b[8..12].copy_from_slice(&v.to_le_bytes());
        refused(&path, &resealed(b), "gravity");
    }
    // A newer version than this build reads.
    let mut b = good;
    b[8..12].copy_from_slice(&5u32.to_le_bytes());
    refused(&path, &resealed(b), "unsupported version 5");
    std::fs::remove_file(&path).unwrap();
}

/// Checkpoints without gravity keep their versions and bytes: a version 4 file only comes
/// from a scene with gravity, and a resumed trace of a scene without gravity has no sleep
/// states.
#[test]
fn checkpoints_without_gravity_stay_versions_2_and_3() {
    let scene = kairos::generate::gas(&kairos::generate::GasParams {
        n: 20,
        dim: 2,
        ..Default::default()
    })
    .unwrap();
    let mut sim = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let mut replay = Replay::for_scene(&scene);
    for _ in 0..10 {
        let e = sim.step().unwrap();
        replay.apply(&Record::from_event(&e, sim.world(), sim.lookahead()));
    }
    let path = temp("no-gravity");
    checkpoint::write(&path, &scene, &sim, &replay).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[8..12], &2u32.to_le_bytes());
    let ck = checkpoint::read(&path).unwrap();
    assert!(ck
        .bodies
        .iter()
        .all(|b| !b.asleep && b.support == NO_SUPPORT));
    assert!(ck.trace_header("calendar").asleep.is_empty());
    std::fs::remove_file(&path).unwrap();
}

/// The trace of a resumed run under gravity says which bodies sleep at its start (the header
/// flag and one byte a body); damaged sleep states, unknown flags, and sleep states in a trace
/// without gravity are refused, even with the checksum made to match.
#[test]
fn damaged_sleep_states_of_a_trace_header_are_refused() {
    let (path, _, n) = checkpoint_of("trace-header");
    let ck = checkpoint::read(&path).unwrap();
    let header = ck.trace_header("calendar");
    let trace = path.with_file_name("t.ktrace");
    TraceWriter::create(&trace, &header)
        .unwrap()
        .finish(ck.scene.duration)
        .unwrap();
    let good = std::fs::read(&trace).unwrap();
    assert_eq!(&good[28..32], &kairos::trace::FLAG_SLEEP.to_le_bytes());
    let header_len = u64::from_le_bytes(good[16..24].try_into().unwrap()) as usize;
    // The sleep states close the header: n bytes, padded to 8.
    let sleep = header_len - n.next_multiple_of(8);
    let flags: Vec<bool> = good[sleep..sleep + n].iter().map(|&x| x == 1).collect();
    assert_eq!(flags, header.asleep);
    assert!(flags.iter().any(|&s| s) && flags.iter().any(|&s| !s));
    // Recomputes the header and footer checksum after the damage.
    let sealed = |mut b: Vec<u8>| {
        let end = b.len();
        let mut check = Fnv1a::default();
        check.update(&b[..header_len]);
        check.update(&b[end - 32..]);
        b[end - 40..end - 32].copy_from_slice(&check.value().to_le_bytes());
        b
    };
    let refused = |b: Vec<u8>, needle: &str| {
        std::fs::write(&trace, b).unwrap();
        match TraceReader::open(&trace) {
            Err(e) => assert!(e.to_string().contains(needle), "`{needle}` not in {e}"),
            Ok(_) => panic!("accepted: {needle}"),
        }
    };
    let mut b = good.clone();
    b[sleep] = 2;
    refused(sealed(b), "invalid sleep states");
    if n % 8 != 0 {
        let mut b = good.clone();
        b[header_len - 1] = 1;
        refused(sealed(b), "invalid sleep states");
    }
    let mut b = good.clone();
    b[28] = 3;
    refused(sealed(b), "unknown header flags");
    // Without the flag, the header's length no longer matches its bodies.
    let mut b = good.clone();
    b[28] = 0;
    refused(sealed(b), "bytes of body states");
    // Without gravity in the scene.
    let mut no_gravity = header.clone();
    no_gravity.scene_toml = no_gravity.scene_toml.replace("gravity", "# gravity");
    assert_ne!(no_gravity.scene_toml, header.scene_toml);
    no_gravity.scene_toml = no_gravity.scene_toml.replace("rest_speed", "# rest_speed");
    TraceWriter::create(&trace, &no_gravity)
        .unwrap()
        .finish(ck.scene.duration)
        .unwrap();
    refused(std::fs::read(&trace).unwrap(), "without gravity");
    std::fs::remove_file(&trace).unwrap();
    std::fs::remove_file(&path).unwrap();
}

/// A scene with gravity and no bodies (nothing sleeps, nothing to save per body) checkpoints
/// as version 4 and reads back.
#[test]
fn a_scene_with_gravity_and_no_bodies_checkpoints() {
    let scene = Scene::from_toml_str(
        "dim = 2\n[simulation]\nduration = 1.0\ngravity = [0.0, -10.0]\n[[walls]]\n\
         plane = { point = [0.0, 0.0], normal = [0.0, 1.0] }\n",
    )
    .unwrap();
    let sim = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let path = temp("no-bodies");
    checkpoint::write(&path, &scene, &sim, &Replay::for_scene(&scene)).unwrap();
    assert_eq!(&std::fs::read(&path).unwrap()[8..12], &4u32.to_le_bytes());
    let ck = checkpoint::read(&path).unwrap();
    assert!(ck.bodies.is_empty() && ck.scene.has_gravity());
    assert!(ck.trace_header("calendar").asleep.is_empty());
    std::fs::remove_file(&path).unwrap();
}
