//! Mutation tests of every reader of user files (scenes, traces, checkpoints), on stable Rust
//! with proptest: random byte flips, truncations, insertions and random TOML values never make a
//! reader panic, and a damaged trace or checkpoint is never accepted. Where the damage is
//! disguised (checksums recomputed after the mutation), the readers' own checks still refuse
//! what the simulation or the replay could not use.

use std::path::{Path, PathBuf};

use kairos::generate::{
    billiard, boxes, drop, gas, polygons, BilliardParams, DropParams, GasParams, RigidGasParams,
};
use kairos::hash::Fnv1a;
use kairos::prelude::*;
use kairos::trace::{Record, Replay, TraceHeader, TraceReader, TraceWriter};
use proptest::prelude::*;

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kairos-fuzz-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn scene_2d() -> Scene {
    billiard(&BilliardParams {
        n: 12,
        seed: 5,
        duration: 1.0,
        ..Default::default()
    })
    .unwrap()
}

fn periodic_3d() -> Scene {
    gas(&GasParams {
        dim: 3,
        n: 27,
        packing: 0.2,
        polydispersity: 0.1,
        mass: 1.0,
        seed: 3,
        duration: 90.0,
        ..Default::default()
    })
    .unwrap()
}

/// A small gas of rigid bodies (version 3 traces): polygons in 2D, boxes in 3D.
fn rigid_gas(dim: usize) -> Scene {
    let p = RigidGasParams {
        n: 8,
        seed: 2,
        duration: 4.0,
        ..Default::default()
    };
    if dim == 2 {
        polygons(&p).unwrap()
    } else {
        boxes(&p).unwrap()
    }
}

/// A complete trace of `scene` and its bytes.
fn trace_bytes(scene: &Scene, dir: &Path, name: &str) -> Vec<u8> {
    let path = dir.join(name);
    let mut w = TraceWriter::create(&path, &TraceHeader::for_scene(scene, "all-pairs")).unwrap();
    let broad = BroadPhaseKind::AllPairs.build(&Default::default());
    let end = scene.duration;
    let mut write = |e: &Event, r: Record| {
        let _ = e;
        w.write(&r).unwrap()
    };
    if scene.dim == 2 {
        let mut sim = Simulation::new(scene.world::<DVec2>().unwrap(), broad, end);
        sim.run(|e, world, dt| write(e, Record::from_event(e, world, dt)));
    } else {
        let broad = BroadPhaseKind::AllPairs.build(&Default::default());
        let mut sim = Simulation::new(scene.world::<DVec3>().unwrap(), broad, end);
        sim.run(|e, world, dt| write(e, Record::from_event(e, world, dt)));
    }
    w.finish(end).unwrap();
    std::fs::read(&path).unwrap()
}

/// A checkpoint of `scene` taken after `events` collisions, and its bytes.
fn checkpoint_bytes(scene: &Scene, dir: &Path, events: usize) -> Vec<u8> {
    let path = dir.join("ck.bin");
    let broad = BroadPhaseKind::Calendar.build(&Default::default());
    let header = TraceHeader::for_scene(scene, "calendar");
    let mut replay = Replay::new(&header);
    let mut sim = Simulation::new(scene.world::<DVec3>().unwrap(), broad, scene.duration);
    for _ in 0..events {
        let e = sim.step().unwrap();
        replay.apply(&Record::from_event(&e, sim.world(), 0.0));
    }
    kairos::checkpoint::write(&path, scene, &sim, &replay).unwrap();
    std::fs::read(&path).unwrap()
}

/// A small 3D drop under gravity (version 4 checkpoints: sleep states).
fn drop_3d() -> Scene {
    drop(&DropParams {
        dim: 3,
        balls: 4,
        boxes: 4,
        seed: 2,
        duration: 2.5,
        ..Default::default()
    })
    .unwrap()
}

/// The trace of the run of `scene` resumed from its checkpoint after `events` collisions
/// (its header holds sleep states under gravity), and its bytes.
fn resumed_trace_bytes(scene: &Scene, dir: &Path, events: usize) -> Vec<u8> {
    checkpoint_bytes(scene, dir, events);
    let ck = kairos::checkpoint::read(&dir.join("ck.bin")).unwrap();
    let path = dir.join("resumed.ktrace");
    let mut w = TraceWriter::create(&path, &ck.trace_header("calendar")).unwrap();
    let broad = BroadPhaseKind::Calendar.build(&Default::default());
    let mut sim = Simulation::restore(ck.world::<DVec3>().unwrap(), broad, ck.state);
    sim.run(|e, world, dt| w.write(&Record::from_event(e, world, dt)).unwrap());
    w.finish(scene.duration).unwrap();
    std::fs::read(&path).unwrap()
}

/// Byte-level damage: flips, a cut, an insertion, an overwrite.
#[derive(Clone, Debug)]
enum Damage {
    Flip(usize, u8),
    Cut(usize),
    Insert(usize, Vec<u8>),
    Overwrite(usize, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Vec<Damage>> {
    let one = prop_oneof![
        4 => (any::<usize>(), 1u8..=255).prop_map(|(i, m)| Damage::Flip(i, m)),
        1 => any::<usize>().prop_map(Damage::Cut),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(i, b)| Damage::Insert(i, b)),
        2 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(i, b)| Damage::Overwrite(i, b)),
    ];
    prop::collection::vec(one, 1..4)
}

fn apply(bytes: &[u8], damage: &[Damage]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for d in damage {
        let n = b.len().max(1);
        match d {
            Damage::Flip(i, m) => {
                if !b.is_empty() {
                    b[i % n] ^= m;
                }
            }
            Damage::Cut(i) => b.truncate(i % n),
            Damage::Insert(i, x) => {
                let at = i % (b.len() + 1);
                b.splice(at..at, x.iter().copied());
            }
            Damage::Overwrite(i, x) => {
                for (k, v) in x.iter().enumerate() {
                    if let Some(slot) = b.get_mut((i % n) + k) {
                        *slot = *v;
                    }
                }
            }
        }
    }
    b
}

/// Recomputes a version 2 trace's checksums (header + footer, and the record hash), so the
/// damage is seen only by the reader's own checks.
fn reseal_trace(b: &mut [u8]) {
    if b.len() < 72 || &b[..8] != b"KAIROSTR" {
        return;
    }
    let header_len = u64::from_le_bytes(b[16..24].try_into().unwrap()) as usize;
    if header_len > b.len() || b.len() - header_len < 40 {
        return;
    }
    let end = b.len();
    let records = &b[header_len..end - 40];
    let hash = Fnv1a::of(records).to_le_bytes();
    b[end - 16..end - 8].copy_from_slice(&hash);
    let mut check = Fnv1a::default();
    check.update(&b[..header_len]);
    check.update(&b[end - 32..]);
    let check = check.value().to_le_bytes();
    b[end - 40..end - 32].copy_from_slice(&check);
}

fn reseal_checkpoint(b: &mut [u8]) {
    if b.len() < 16 {
        return;
    }
    let body = b.len() - 16;
    let h = Fnv1a::of(&b[..body]).to_le_bytes();
    b[body + 8..].copy_from_slice(&h);
}

/// Reads a trace the way every command does: open, then each record into a replay, then the
/// state of every body at the end. Must not panic. An accepted trace's states are finite
/// wherever a replay can be asked for them: the states each record replaces, at its
/// time, and every body's last state at the end time (a motion finite there is finite at every
/// time between).
fn read_trace(path: &Path) -> Result<(), String> {
    let mut r = TraceReader::open(path).map_err(|e| e.to_string())?;
    let mut replay = Replay::new(r.header());
    let scene = r.header().scene().map_err(|e| e.to_string())?;
    assert_eq!(scene.bodies.len(), replay.len());
    while let Some(rec) = r.next_record().map_err(|e| e.to_string())? {
        assert_finite_at(&replay, rec.a as usize, rec.time);
        if rec.kind == EventKind::BodyBody {
            assert_finite_at(&replay, rec.b as usize, rec.time);
        }
        replay.apply(&rec);
    }
    for i in 0..replay.len() {
        assert_finite_at(&replay, i, r.end_time());
    }
    Ok(())
}

/// Asserts that body `i`'s position, velocity and orientation at `t` are finite.
fn assert_finite_at(replay: &Replay, i: usize, t: f64) {
    let p = replay.position(i, t);
    let v = replay.velocity_at(i, t);
    let (q, w) = replay.orientation(i, t);
    assert!(
        p.iter()
            .chain(&v)
            .chain(&q)
            .chain(&w)
            .all(|x| x.is_finite()),
        "body {i} at {t:e}: position {p:?}, velocity {v:?}, orientation {q:?} {w:?}"
    );
}

/// Asserts that an accepted 3D checkpoint's states are finite at its time: every body's, as the
/// resumed simulation takes it there (under gravity unless it sleeps), and its trace replay's.
fn assert_checkpoint_finite(ck: &kairos::checkpoint::Checkpoint) {
    let world = ck.world::<DVec3>().unwrap();
    let replay = ck.replay();
    for (i, (body, saved)) in world.bodies().iter().zip(&ck.bodies).enumerate() {
        let a = if saved.asleep {
            DVec3::ZERO
        } else {
            DVec3::from_array(ck.scene.gravity)
        };
        let (p, v) = body.state_at_accel(ck.state.now, a);
        assert!(p.is_finite() && v.is_finite(), "body {i}: {p:?} {v:?}");
        assert_finite_at(&replay, i, ck.time());
    }
}

/// The bytes made once for all the cases of a test.
macro_rules! once {
    ($make:expr) => {{
        static GOOD: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        GOOD.get_or_init(|| $make)
    }};
}

/// `read` of a file of `dir` holding `bytes` (named by their hash), removed afterwards.
fn with_file<T>(dir: &Path, ext: &str, bytes: &[u8], read: impl FnOnce(&Path) -> T) -> T {
    let path = dir.join(format!("{}.{ext}", Fnv1a::of(bytes)));
    std::fs::write(&path, bytes).unwrap();
    let r = read(&path);
    std::fs::remove_file(&path).ok();
    r
}

proptest! {
    // 256 cases a test (proptest's default); `PROPTEST_CASES` sets more to search longer.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn damaged_traces_are_refused(damage in damage()) {
        let dir = tempdir("trace");
        let good = once!(trace_bytes(&scene_2d(), &dir, "good.ktrace"));
        let bad = apply(good, &damage);
        prop_assume!(&bad != good);
        let refused = with_file(&dir, "ktrace", &bad, |p| read_trace(p).is_err());
        prop_assert!(refused, "damage {:?} accepted", damage);
    }

    #[test]
    fn disguised_trace_damage_never_panics(damage in damage()) {
        let dir = tempdir("trace-sealed");
        let good = once!(trace_bytes(&periodic_3d(), &dir, "good3.ktrace"));
        let mut bad = apply(good, &damage);
        reseal_trace(&mut bad);
        let _ = with_file(&dir, "ktrace", &bad, read_trace);
    }

    #[test]
    fn damaged_rigid_traces_are_refused(damage in damage()) {
        let dir = tempdir("trace-rigid");
        let good = once!(trace_bytes(&rigid_gas(2), &dir, "good-rigid.ktrace"));
        let bad = apply(good, &damage);
        prop_assume!(&bad != good);
        let refused = with_file(&dir, "ktrace", &bad, |p| read_trace(p).is_err());
        prop_assert!(refused, "damage {:?} accepted", damage);
    }

    #[test]
    fn disguised_rigid_trace_damage_never_panics(damage in damage()) {
        let dir = tempdir("trace-rigid-sealed");
        let good = once!(trace_bytes(&rigid_gas(3), &dir, "good-rigid3.ktrace"));
        let mut bad = apply(good, &damage);
        reseal_trace(&mut bad);
        let _ = with_file(&dir, "ktrace", &bad, read_trace);
    }

    #[test]
    fn damaged_checkpoints_are_refused(damage in damage()) {
        let dir = tempdir("ck");
        let good = once!(checkpoint_bytes(&periodic_3d(), &dir, 40));
        let bad = apply(good, &damage);
        prop_assume!(&bad != good);
        let refused = with_file(&dir, "ck", &bad, |p| kairos::checkpoint::read(p).is_err());
        prop_assert!(refused, "damage {:?} accepted", damage);
    }

    /// Disguised damage to a checkpoint either is refused or resumes: a run from it must not
    /// panic.
    #[test]
    fn disguised_checkpoint_damage_never_panics(damage in damage()) {
        let dir = tempdir("ck-sealed");
        let good = once!(checkpoint_bytes(&periodic_3d(), &dir, 40));
        let mut bad = apply(good, &damage);
        reseal_checkpoint(&mut bad);
        with_file(&dir, "ck", &bad, |path| {
        if let Ok(ck) = kairos::checkpoint::read(path) {
            if ck.scene.dim == 3 {
                assert_checkpoint_finite(&ck);
                let broad = BroadPhaseKind::Calendar.build(&Default::default());
                let mut sim = Simulation::restore(ck.world::<DVec3>().unwrap(), broad, ck.state);
                // Bounded by events, box crossings included: a body made very fast may cross
                // the box without end (the command line bounds this with --max-events).
                for _ in 0..2000 {
                    if sim.process_next().is_none() {
                        break;
                    }
                }
            }
        }
        });
    }

    #[test]
    fn damaged_rigid_checkpoints_are_refused(damage in damage()) {
        let dir = tempdir("ck-rigid");
        let good = once!(checkpoint_bytes(&rigid_gas(3), &dir, 20));
        let bad = apply(good, &damage);
        prop_assume!(&bad != good);
        let refused = with_file(&dir, "ck", &bad, |p| kairos::checkpoint::read(p).is_err());
        prop_assert!(refused, "damage {:?} accepted", damage);
    }

    /// Disguised damage to a rigid checkpoint (rotations, angular velocities, the scene's
    /// tables) either is refused or resumes without a panic.
    #[test]
    fn disguised_rigid_checkpoint_damage_never_panics(damage in damage()) {
        let dir = tempdir("ck-rigid-sealed");
        let good = once!(checkpoint_bytes(&rigid_gas(3), &dir, 20));
        let mut bad = apply(good, &damage);
        reseal_checkpoint(&mut bad);
        with_file(&dir, "ck", &bad, |path| {
        if let Ok(ck) = kairos::checkpoint::read(path) {
            if ck.scene.dim == 3 {
                let _ = ck.trace_header("calendar");
                let broad = BroadPhaseKind::Calendar.build(&Default::default());
                let mut sim = Simulation::restore(ck.world::<DVec3>().unwrap(), broad, ck.state);
                for _ in 0..200 {
                    if sim.process_next().is_none() {
                        break;
                    }
                }
            }
        }
        });
    }

    #[test]
    fn damaged_gravity_checkpoints_are_refused(damage in damage()) {
        let dir = tempdir("ck-gravity");
        let good = once!(checkpoint_bytes(&drop_3d(), &dir, 120));
        let bad = apply(good, &damage);
        prop_assume!(&bad != good);
        let refused = with_file(&dir, "ck", &bad, |p| kairos::checkpoint::read(p).is_err());
        prop_assert!(refused, "damage {:?} accepted", damage);
    }

    /// Disguised damage to a checkpoint under gravity (the sleep states, supports and the
    /// counts of bodies held) either is refused or resumes without a panic.
    #[test]
    fn disguised_gravity_checkpoint_damage_never_panics(damage in damage()) {
        let dir = tempdir("ck-gravity-sealed");
        let good = once!(checkpoint_bytes(&drop_3d(), &dir, 120));
        let mut bad = apply(good, &damage);
        reseal_checkpoint(&mut bad);
        with_file(&dir, "ck", &bad, |path| {
        if let Ok(ck) = kairos::checkpoint::read(path) {
            if ck.scene.dim == 3 {
                assert_checkpoint_finite(&ck);
                let mut replay = Replay::try_new(&ck.trace_header("calendar")).unwrap();
                let broad = BroadPhaseKind::Calendar.build(&Default::default());
                let mut sim = Simulation::restore(ck.world::<DVec3>().unwrap(), broad, ck.state);
                for _ in 0..200 {
                    match sim.process_next() {
                        Some(e) => replay.apply(&Record::from_event(&e, sim.world(), 0.0)),
                        None => break,
                    }
                }
            }
        }
        });
    }

    #[test]
    fn damaged_resumed_gravity_traces_are_refused(damage in damage()) {
        let dir = tempdir("trace-gravity");
        let good = once!(resumed_trace_bytes(&drop_3d(), &dir, 120));
        let bad = apply(good, &damage);
        prop_assume!(&bad != good);
        let refused = with_file(&dir, "ktrace", &bad, |p| read_trace(p).is_err());
        prop_assert!(refused, "damage {:?} accepted", damage);
    }

    #[test]
    fn disguised_resumed_gravity_trace_damage_never_panics(damage in damage()) {
        let dir = tempdir("trace-gravity-sealed");
        let good = once!(resumed_trace_bytes(&drop_3d(), &dir, 120));
        let mut bad = apply(good, &damage);
        reseal_trace(&mut bad);
        let _ = with_file(&dir, "ktrace", &bad, read_trace);
    }

    #[test]
    fn damaged_scene_text_never_panics(damage in damage()) {
        let text = scene_2d().to_toml();
        let bad = apply(text.as_bytes(), &damage);
        if let Ok(s) = std::str::from_utf8(&bad) {
            if let Ok(scene) = Scene::from_toml_str(s) {
                // A scene that parses is valid: its world builds.
                if scene.dim == 2 {
                    let _ = scene.world::<DVec2>().unwrap();
                } else {
                    let _ = scene.world::<DVec3>().unwrap();
                }
            }
        }
    }

    /// Random TOML values in every field of a scene: an error or a valid scene, never a
    /// panic.
    #[test]
    fn random_scene_values_never_panic(
        fields in prop::collection::vec((0usize..16, toml_value()), 1..5)
    ) {
        let mut root: toml::Table = scene_2d().to_toml().parse().unwrap();
        for (k, v) in fields {
            set_field(&mut root, k, v);
        }
        if let Ok(scene) = Scene::from_toml_str(&root.to_string()) {
            if scene.dim == 2 {
                let _ = scene.world::<DVec2>().unwrap();
            } else {
                let _ = scene.world::<DVec3>().unwrap();
            }
        }
    }
}

fn toml_value() -> impl Strategy<Value = toml::Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(toml::Value::Boolean),
        any::<i64>().prop_map(toml::Value::Integer),
        prop_oneof![
            any::<f64>(),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(-0.0),
            Just(1e300),
            Just(1e-300),
            -5.0..5.0f64
        ]
        .prop_map(toml::Value::Float),
        "[a-z ]{0,8}".prop_map(toml::Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(toml::Value::Array),
            prop::collection::btree_map("[a-z]{1,8}", inner, 0..3)
                .prop_map(|m| toml::Value::Table(m.into_iter().collect())),
        ]
    })
}

/// Puts `v` in one of the scene's fields (by number), or in a new one.
fn set_field(root: &mut toml::Table, k: usize, v: toml::Value) {
    let first = |root: &mut toml::Table, key: &str| -> Option<toml::Table> {
        root.get(key)
            .and_then(|x| x.as_array())
            .and_then(|a| a.first())
            .and_then(|t| t.as_table())
            .cloned()
    };
    let set_first = |root: &mut toml::Table, key: &str, t: toml::Table| {
        if let Some(toml::Value::Array(a)) = root.get_mut(key) {
            a[0] = toml::Value::Table(t);
        }
    };
    match k {
        0 => {
            root.insert("dim".into(), v);
        }
        1 | 2 => {
            let key = if k == 1 { "duration" } else { "restitution" };
            if let Some(toml::Value::Table(t)) = root.get_mut("simulation") {
                t.insert(key.into(), v);
            }
        }
        3 => {
            root.insert("simulation".into(), v);
        }
        4 => {
            root.insert("boundary".into(), v);
        }
        5 | 6 => {
            let key = if k == 5 { "a" } else { "b" };
            if let Some(mut t) = first(root, "walls") {
                t.insert(key.into(), v);
                set_first(root, "walls", t);
            }
        }
        7..=10 => {
            let key = ["position", "velocity", "radius", "mass"][k - 7];
            if let Some(mut t) = first(root, "bodies") {
                t.insert(key.into(), v);
                set_first(root, "bodies", t);
            }
        }
        11 => {
            root.insert("walls".into(), v);
        }
        12 => {
            root.insert("bodies".into(), v);
        }
        13 => {
            if let Some(mut t) = first(root, "walls") {
                t.clear();
                t.insert(
                    ["plane", "polygon", "box"][v.to_string().len() % 3].into(),
                    v,
                );
                set_first(root, "walls", t);
            }
        }
        _ => {
            root.insert("unknown".into(), v);
        }
    }
}

/// The gravity inputs of the mutation tests hold what they are meant to damage: sleeping
/// bodies in the checkpoint, sleep states in the resumed trace's header.
#[test]
fn the_gravity_inputs_hold_sleep_states() {
    let dir = tempdir("gravity-inputs");
    let trace = resumed_trace_bytes(&drop_3d(), &dir, 120);
    let ck = kairos::checkpoint::read(&dir.join("ck.bin")).unwrap();
    assert!(ck.bodies.iter().any(|b| b.asleep), "no body sleeps");
    assert_eq!(&trace[28..32], &kairos::trace::FLAG_SLEEP.to_le_bytes());
}

/// A case the mutation test met: the resumed gravity trace (22,312 bytes) with one high
/// exponent bit of its last byte flipped and its checksums recomputed. The footer's end time becomes about 1e154,
/// where half its square overflows: the falling bodies' positions would be NaN and -inf. The
/// reader refuses it, naming the end time and a body.
#[test]
fn a_disguised_end_time_beyond_gravity_s_reach_is_refused() {
    let dir = tempdir("trace-gravity-end");
    let good = resumed_trace_bytes(&drop_3d(), &dir, 120);
    let last = good.len() - 1;
    let mut bad = apply(&good, &[Damage::Flip(last, 32)]);
    reseal_trace(&mut bad);
    let end = f64::from_le_bytes(bad[last - 7..].try_into().unwrap());
    assert!(end > 1e150 && end.is_finite(), "end time {end}");
    let e = with_file(&dir, "ktrace", &bad, read_trace).unwrap_err();
    assert!(
        e.contains("end time") && e.contains("body ") && e.contains("non-finite"),
        "{e}"
    );
}

/// The byte offset of the first body state of a checkpoint (version 2 to 4).
fn checkpoint_bodies_at(b: &[u8]) -> usize {
    let len = u32::from_le_bytes(b[16..20].try_into().unwrap()) as usize;
    // Magic, version, dimension, the scene, then 3 times, 3 counts, 4 accumulators and the
    // body count.
    20 + len + 3 * 8 + 3 * 8 + 4 * 8 + 8
}

/// A checkpoint whose body state (or trace replay state) holds a time far back is refused: its
/// motion under gravity would overflow before the checkpoint's time.
#[test]
fn a_disguised_checkpoint_time_far_back_is_refused() {
    let dir = tempdir("ck-gravity-far-back");
    let good = checkpoint_bytes(&drop_3d(), &dir, 120);
    let ck = kairos::checkpoint::read(&dir.join("ck.bin")).unwrap();
    let i = ck
        .bodies
        .iter()
        .position(|b| !b.asleep && !b.replay_asleep)
        .expect("a body awake");
    let start = checkpoint_bodies_at(&good);
    // Rigid bodies under gravity: 288 bytes a body, before the end mark and hash.
    let per_body = (good.len() - 16 - start) / ck.bodies.len();
    assert_eq!(per_body, 288);
    // Radius, inverse mass, position and velocity, then the time; 3 image counts, then the
    // replay state's time.
    let time = start + i * per_body + 8 * 8;
    let replay_time = time + 8 + 3 * 8;
    let f = |at: usize| f64::from_le_bytes(good[at..at + 8].try_into().unwrap());
    assert_eq!(f(time), ck.bodies[i].time);
    assert_eq!(f(replay_time), ck.bodies[i].replay_time);
    for (at, what) in [(time, "state"), (replay_time, "trace replay's state")] {
        let far_back = (-1e200f64).to_le_bytes().to_vec();
        let mut bad = apply(&good, &[Damage::Overwrite(at, far_back)]);
        reseal_checkpoint(&mut bad);
        let Err(e) = with_file(&dir, "ck", &bad, kairos::checkpoint::read) else {
            panic!("a time of -1e200 at byte {at} accepted");
        };
        let e = e.to_string();
        let says = format!("body {i}: its motion from its {what} (time -1e200, ");
        assert!(e.contains(&says) && e.contains("non-finite"), "{e}");
    }
}
