//! Bad scenes and bad traces give clear errors naming the item, never a panic.

use std::io::Write;

use kairos::generate::{billiard, BilliardParams, GenerateError};
use kairos::prelude::*;
use kairos::scene::{Item, SceneError};
use kairos::sim::SimState;
use kairos::trace::{Record, TraceError, TraceHeader, TraceReader, TraceWriter};

const GOOD: &str = r#"
dim = 2
[simulation]
duration = 5.0
[[walls]]
a = [0.0, 0.0]
b = [10.0, 0.0]
[[walls]]
a = [10.0, 0.0]
b = [10.0, 10.0]
[[walls]]
a = [10.0, 10.0]
b = [0.0, 10.0]
[[walls]]
a = [0.0, 10.0]
b = [0.0, 0.0]
[[bodies]]
position = [1.0, 1.0]
velocity = [2.0, 0.5]
radius = 0.25
[[bodies]]
position = [5.0, 5.0]
velocity = [-1.0, 0.5]
radius = 0.5
mass = 2.0
"#;

fn err(text: &str) -> SceneError {
    Scene::from_toml_str(text).expect_err("scene should be rejected")
}

fn assert_item(text: &str, item: Item, needle: &str) {
    match err(text) {
        SceneError::Invalid { item: got, message } => {
            assert_eq!(got, item, "{message}");
            assert!(
                message.contains(needle),
                "`{message}` should mention `{needle}`"
            );
        }
        e => panic!("expected an invalid-item error, got {e}"),
    }
}

#[test]
fn good_scene_parses_and_round_trips() {
    let s = Scene::from_toml_str(GOOD).unwrap();
    assert_eq!(s.bodies.len(), 2);
    assert_eq!(s.walls.len(), 4);
    assert_eq!(s.restitution, 1.0);
    assert_eq!(s.bodies[0].mass, 1.0);
    assert_eq!(Scene::from_toml_str(&s.to_toml()).unwrap(), s);
    let g = billiard(&BilliardParams {
        n: 50,
        seed: 1,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        Scene::from_toml_str(&g.to_toml()).unwrap(),
        g,
        "floats must round-trip exactly"
    );
}

#[test]
fn syntax_error() {
    assert!(matches!(err("dim = 2\n[simulation\n"), SceneError::Toml(_)));
}

#[test]
fn missing_and_unknown_fields() {
    assert_item(&GOOD.replace("dim = 2\n", ""), Item::Scene, "dim");
    assert_item(
        &GOOD.replace("duration = 5.0\n", ""),
        Item::Simulation,
        "duration",
    );
    assert_item(&GOOD.replace("radius = 0.5\n", ""), Item::Body(1), "radius");
    assert_item(
        &GOOD.replace("velocity = [-1.0, 0.5]", "velocty = [-1.0, 0.5]"),
        Item::Body(1),
        "velocty",
    );
    assert_item(
        &GOOD.replace("b = [10.0, 10.0]", "c = [10.0, 10.0]"),
        Item::Wall(1),
        "`c`",
    );
    assert_item(&format!("gravity = 9.8\n{GOOD}"), Item::Scene, "gravity");
    assert_item(&format!("{GOOD}gravity = 9.8\n"), Item::Body(1), "gravity");
}

#[test]
fn bad_values() {
    assert_item(
        &GOOD.replace("radius = 0.5", "radius = -0.5"),
        Item::Body(1),
        "positive",
    );
    assert_item(
        &GOOD.replace("radius = 0.5", "radius = 0.0"),
        Item::Body(1),
        "positive",
    );
    assert_item(
        &GOOD.replace("mass = 2.0", "mass = 0"),
        Item::Body(1),
        "positive",
    );
    assert_item(
        &GOOD.replace("velocity = [2.0, 0.5]", "velocity = [nan, 0.5]"),
        Item::Body(0),
        "finite",
    );
    assert_item(
        &GOOD.replace("velocity = [2.0, 0.5]", "velocity = [inf, 0.5]"),
        Item::Body(0),
        "finite",
    );
    assert_item(
        &GOOD.replace("position = [1.0, 1.0]", "position = [1.0, 1.0, 0.0]"),
        Item::Body(0),
        "3 components",
    );
    assert_item(
        &GOOD.replace("radius = 0.25", "radius = \"big\""),
        Item::Body(0),
        "number",
    );
    assert_item(&GOOD.replace("dim = 2", "dim = 4"), Item::Scene, "2 or 3");
    assert_item(
        &GOOD.replace("duration = 5.0", "duration = -1.0"),
        Item::Simulation,
        "positive",
    );
    assert_item(
        &GOOD.replace("duration = 5.0", "duration = 5.0\nrestitution = 1.5"),
        Item::Simulation,
        "[0, 1]",
    );
    assert_item(
        &GOOD.replace("b = [10.0, 0.0]", "b = [0.0, 0.0]"),
        Item::Wall(0),
        "coincide",
    );
    assert_item(
        &GOOD.replace("position = [1.0, 1.0]", "position = [1e300, 1.0]"),
        Item::Body(0),
        "too large",
    );
}

#[test]
fn geometry_errors() {
    assert_item(
        &GOOD.replace("position = [5.0, 5.0]", "position = [1.5, 1.0]"),
        Item::Body(0),
        "overlaps body 1",
    );
    assert_item(
        &GOOD.replace("position = [5.0, 5.0]", "position = [9.8, 5.0]"),
        Item::Body(1),
        "crosses wall 1",
    );
    assert_item(
        &GOOD.replace("position = [5.0, 5.0]", "position = [15.0, 5.0]"),
        Item::Body(1),
        "outside",
    );
    // Touching is allowed.
    Scene::from_toml_str(&GOOD.replace("position = [5.0, 5.0]", "position = [1.75, 1.0]")).unwrap();
    Scene::from_toml_str(&GOOD.replace("position = [5.0, 5.0]", "position = [9.5, 5.0]")).unwrap();
}

/// A wall item must say which kind of wall it is; the error lists the kinds and their fields.
#[test]
fn wall_items_name_their_kind() {
    let text = format!("{GOOD}[[walls]]\n");
    match err(&text) {
        SceneError::Invalid { item, message } => {
            assert_eq!(item, Item::Wall(4), "{message}");
            for needle in [
                "segment", "`a = ", "`b = ", "plane", "point", "normal", "polygon", "box", "min",
                "max",
            ] {
                assert!(message.contains(needle), "`{message}` lacks {needle}");
            }
            assert!(!message.contains("missing field"), "{message}");
        }
        e => panic!("{e}"),
    }
    // A segment with one end names the other.
    assert_item(
        &GOOD.replace("a = [10.0, 0.0]\n", ""),
        Item::Wall(1),
        "missing field `a` (a segment needs both ends",
    );
    // Two kinds in one item.
    assert_item(
        &GOOD.replace(
            "a = [10.0, 0.0]\n",
            "plane = { point = [10.0, 0.0], normal = [-1.0, 0.0] }\n",
        ),
        Item::Wall(1),
        "exactly one",
    );
}

/// `[simulation] contact_duration` (the TC model's `t_c`): checked, round-tripped, and written
/// only when given, so elastic scenes' files (and the traces that embed them) do not change.
#[test]
fn contact_duration_is_checked_and_round_trips() {
    assert_item(
        &GOOD.replace("duration = 5.0", "duration = 5.0\ncontact_duration = -1e-6"),
        Item::Simulation,
        "contact_duration",
    );
    assert_item(
        &GOOD.replace(
            "duration = 5.0",
            "duration = 5.0\ncontact_duration = \"short\"",
        ),
        Item::Simulation,
        "number",
    );
    let s = Scene::from_toml_str(&GOOD.replace(
        "duration = 5.0",
        "duration = 5.0\nrestitution = 0.5\ncontact_duration = 1e-5",
    ))
    .unwrap();
    assert_eq!(s.contact_duration, Some(1e-5));
    assert_eq!(s.contact_duration(), 1e-5);
    assert_eq!(s.world::<DVec2>().unwrap().contact_duration(), 1e-5);
    assert!(s.to_toml().contains("contact_duration = 1e-5\n"));
    assert_eq!(Scene::from_toml_str(&s.to_toml()).unwrap(), s);

    // Absent: the default from the bodies (mean radius over rms speed, times 1e-4).
    let s = Scene::from_toml_str(GOOD).unwrap();
    assert_eq!(s.contact_duration, None);
    let v2 = (4.0 + 0.25 + 1.0 + 0.25) / 2.0;
    let expected = kairos::scene::DEFAULT_CONTACT_DURATION_FRACTION * 0.375 / f64::sqrt(v2);
    assert!((s.contact_duration() - expected).abs() < 1e-15 * expected);
    assert!(!s.to_toml().contains("contact_duration"));

    // Generated elastic scenes do not mention it; dissipative ones state the default.
    let elastic = billiard(&BilliardParams::default()).unwrap();
    assert_eq!(elastic.contact_duration, None);
    assert!(!elastic.to_toml().contains("contact_duration"));
    let p = BilliardParams {
        restitution: 0.3,
        ..Default::default()
    };
    let g = billiard(&p).unwrap();
    assert_eq!(g.restitution, 0.3);
    assert_eq!(g.contact_duration, Some(g.default_contact_duration()));
    assert_eq!(Scene::from_toml_str(&g.to_toml()).unwrap(), g);
    // Only the restitution differs from the elastic scene.
    assert_eq!(
        Scene {
            restitution: 1.0,
            contact_duration: None,
            ..g
        },
        elastic
    );
    let e = billiard(&BilliardParams {
        restitution: 1.5,
        ..Default::default()
    })
    .unwrap_err();
    assert!(
        matches!(e, GenerateError::OutOfRange { name: "restitution", got, .. } if got == 1.5),
        "{e}"
    );
    assert!(e.to_string().contains("restitution"), "{e}");
}

/// The billiard generator reaches its documented packings (up to 0.5) where random sequential
/// placement jams, and says what to change where the walls leave too little room.
#[test]
fn billiard_reaches_documented_packings() {
    for (dim, n, packing) in [
        (2, 500, 0.5),
        (3, 300, 0.25),
        (3, 300, 0.45),
        (3, 300, 0.5),
        (3, 100, 0.5),
    ] {
        let scene = billiard(&BilliardParams {
            dim,
            n,
            packing,
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("{dim}D n={n} packing {packing}: {e}"));
        scene.validate().unwrap();
        assert_eq!(scene.bodies.len(), n);
    }
    let e = billiard(&BilliardParams {
        dim: 3,
        n: 10,
        packing: 0.5,
        ..Default::default()
    })
    .unwrap_err();
    assert!(
        matches!(e, GenerateError::Jammed { n: 10, dim: 3, .. }),
        "{e}"
    );
    let e = e.to_string();
    assert!(
        e.contains("lower the packing") && e.contains("more balls"),
        "{e}"
    );
    let e = billiard(&BilliardParams {
        packing: 0.6,
        ..Default::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("(0, 0.5]"), "{e}");
}

/// The gas generator blames the real cause: a box too short for its periodic images, or a
/// lattice too tight, and says which packing or how many balls would do.
#[test]
fn gas_errors_say_what_to_change() {
    use kairos::generate::{check_gas, gas, GasParams};
    let gas_err = |dim: usize, n: usize, packing: f64| {
        let p = GasParams {
            dim,
            n,
            packing,
            ..Default::default()
        };
        let e = gas(&p).unwrap_err();
        assert_eq!(check_gas(&p).unwrap_err(), e);
        assert!(
            matches!(
                e,
                GenerateError::BoxTooSmall { .. } | GenerateError::LatticeTooDense { .. }
            ),
            "{e}"
        );
        e.to_string()
    };
    let ok = |dim: usize, n: usize, packing: f64| {
        gas(&GasParams {
            dim,
            n,
            packing,
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("{dim}D n={n} packing {packing}: {e}"));
    };
    // One ball: the box would be shorter than two diameters.
    let e = gas_err(3, 1, 0.3);
    assert!(
        e.contains("1 ball at")
            && e.contains("twice the largest contact distance")
            && e.contains("packing below 0.0654")
            && e.contains("13 balls or more"),
        "{e}"
    );
    assert!(!e.contains("lattice"), "{e}");
    ok(3, 1, 0.065);
    ok(3, 13, 0.3);
    // A few discs at a high packing: the same cause in 2D.
    let e = gas_err(2, 8, 0.9);
    assert!(e.contains("twice the largest contact distance"), "{e}");
    assert!(e.contains("20 balls or more"), "{e}");
    ok(2, 20, 0.9);
    // A lattice with many more sites than balls: its sites are too close.
    let e = gas_err(3, 5, 0.3);
    assert!(
        e.contains("lattice of 32 sites for 5 balls") && e.contains("13 balls or more"),
        "{e}"
    );
    // Beyond close packing no number of balls helps.
    let e = gas_err(3, 1000, 0.8);
    assert!(
        e.contains("packing below 0.5397") && !e.contains("balls or more"),
        "{e}"
    );
    ok(3, 1000, 0.5397);
}

fn small_trace(dir: &std::path::Path) -> std::path::PathBuf {
    let scene = billiard(&BilliardParams {
        n: 10,
        seed: 2,
        duration: 1.0,
        ..Default::default()
    })
    .unwrap();
    let path = dir.join("t.ktrace");
    let header = TraceHeader::for_scene(&scene, "all-pairs");
    let mut w = TraceWriter::create(&path, &header).unwrap();
    let mut sim = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::AllPairs.build(&Default::default()),
        1.0,
    );
    sim.run(|e, world, dt| w.write(&Record::from_event(e, world, dt)).unwrap());
    w.finish(1.0).unwrap();
    path
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kairos-test-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn trace_round_trip_and_corruption() {
    let dir = tempdir("trace");
    let path = small_trace(&dir);
    let reader = TraceReader::open(&path).unwrap();
    let n = reader.len();
    assert!(n > 5);
    let (header, records) = reader.read_all().unwrap();
    assert_eq!(records.len() as u64, n);
    assert_eq!(header.scene().unwrap().bodies.len(), 10);
    let bytes = std::fs::read(&path).unwrap();

    // Truncated anywhere: an error, never a panic.
    for cut in [0, 3, 8, 20, 40, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(dir.join("cut.ktrace"), &bytes[..cut]).unwrap();
        let r = TraceReader::open(&dir.join("cut.ktrace")).and_then(|r| r.read_all());
        assert!(r.is_err(), "cut at {cut} accepted");
    }
    // A flipped bit inside a record: hash mismatch.
    let mut bad = bytes.clone();
    let k = bad.len() - 48;
    bad[k] ^= 1;
    std::fs::write(dir.join("flip.ktrace"), &bad).unwrap();
    let e = TraceReader::open(&dir.join("flip.ktrace"))
        .unwrap()
        .read_all()
        .unwrap_err();
    assert!(matches!(e, TraceError::Corrupt(_)), "{e}");
    // Not a trace.
    std::fs::write(
        dir.join("text.ktrace"),
        b"dim = 2\n[simulation]\nduration = 1.0\n",
    )
    .unwrap();
    assert!(matches!(
        TraceReader::open(&dir.join("text.ktrace")),
        Err(TraceError::NotATrace)
    ));
    // Unknown version.
    let mut v2 = bytes.clone();
    v2[8] = 9;
    std::fs::write(dir.join("v.ktrace"), &v2).unwrap();
    assert!(matches!(
        TraceReader::open(&dir.join("v.ktrace")),
        Err(TraceError::Version(9))
    ));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn interrupted_writer_leaves_no_trace() {
    let dir = tempdir("interrupt");
    let path = dir.join("x.ktrace");
    {
        let scene = billiard(&BilliardParams {
            n: 4,
            ..Default::default()
        })
        .unwrap();
        let header = TraceHeader::for_scene(&scene, "kaya-bvh");
        let mut w = TraceWriter::create(&path, &header).unwrap();
        let r = Record::from_bytes(&[0u8; 128]).unwrap();
        w.write(&r).unwrap();
        w.write(&r).unwrap();
        // Dropped without finish(): as if the run stopped.
    }
    assert!(!path.exists());
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A partial file copied out mid-run does not read as complete either.
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(b"KAIROSTR").unwrap();
    drop(f);
    assert!(TraceReader::open(&path).is_err());
    std::fs::remove_dir_all(&dir).ok();
}

/// Every single flipped bit, anywhere in a version 2 trace (header, records, footer), is found
/// by the reader: at open (the header and footer checksum) or by the end of the records.
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn every_flipped_bit_of_a_trace_is_found() {
    let dir = tempdir("flips");
    let path = small_trace(&dir);
    let bytes = std::fs::read(&path).unwrap();
    let flipped = dir.join("f.ktrace");
    for k in 0..bytes.len() {
        for bit in [0, 3, 7] {
            let mut bad = bytes.clone();
            bad[k] ^= 1 << bit;
            std::fs::write(&flipped, &bad).unwrap();
            let r = TraceReader::open(&flipped).and_then(|r| r.validate());
            assert!(r.is_err(), "byte {k} bit {bit} flipped, not found");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A version 1 trace (bodies in the scene TOML, a 32-byte footer without a checksum) still
/// reads, and its footer's end time is checked: finite and no earlier than the last record.
#[test]
fn version_1_traces_read_and_their_end_time_is_checked() {
    let dir = tempdir("v1");
    let scene = billiard(&BilliardParams {
        n: 10,
        seed: 2,
        duration: 1.0,
        ..Default::default()
    })
    .unwrap();
    let mut records = Vec::new();
    let mut sim = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::AllPairs.build(&Default::default()),
        1.0,
    );
    sim.run(|e, world, dt| records.push(Record::from_event(e, world, dt)));
    let last = records.last().unwrap().time;
    let v1 = |end: f64| {
        let mut h = Vec::new();
        h.extend_from_slice(b"KAIROSTR");
        h.extend_from_slice(&1u32.to_le_bytes());
        h.extend_from_slice(&2u32.to_le_bytes());
        h.extend_from_slice(&0u64.to_le_bytes());
        h.extend_from_slice(&128u32.to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        for s in ["all-pairs".to_string(), scene.to_toml()] {
            h.extend_from_slice(&(s.len() as u32).to_le_bytes());
            h.extend_from_slice(s.as_bytes());
        }
        while h.len() % 8 != 0 {
            h.push(0);
        }
        let len = h.len() as u64;
        h[16..24].copy_from_slice(&len.to_le_bytes());
        let mut hash = kairos::hash::Fnv1a::default();
        for r in &records {
            let b = r.to_bytes();
            hash.update(&b);
            h.extend_from_slice(&b);
        }
        h.extend_from_slice(b"KAIROEND");
        h.extend_from_slice(&(records.len() as u64).to_le_bytes());
        h.extend_from_slice(&hash.value().to_le_bytes());
        h.extend_from_slice(&end.to_le_bytes());
        h
    };
    let path = dir.join("v1.ktrace");
    std::fs::write(&path, v1(1.0)).unwrap();
    let reader = TraceReader::open(&path).unwrap();
    assert_eq!(reader.version(), 1);
    assert_eq!(reader.start_time(), 0.0);
    let (header, read) = reader.read_all().unwrap();
    assert_eq!(read, records);
    assert_eq!(header.bodies.len(), 10);
    assert_eq!(header.scene().unwrap().bodies, scene.bodies);
    for end in [f64::NAN, f64::INFINITY, -5.0] {
        std::fs::write(&path, v1(end)).unwrap();
        let e = TraceReader::open(&path)
            .err()
            .expect("bad end time accepted");
        assert!(e.to_string().contains("end time"), "{e}");
    }
    // Records running past the footer's end time.
    std::fs::write(&path, v1(last / 2.0)).unwrap();
    let e = TraceReader::open(&path).unwrap().validate().unwrap_err();
    assert!(e.to_string().contains("after the trace's end"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A restored simulation whose balls overlap in a state it never made (as a damaged or
/// hand-edited checkpoint can give) processes their collision at the restored time, never
/// before it, on every broad phase: time never runs backwards.
#[test]
fn a_restored_overlap_collides_at_the_restored_time() {
    let scene = Scene::from_toml_str(GOOD).unwrap();
    for kind in BroadPhaseKind::ALL {
        // Stored at local time 0, overlapping (radii 0.25 and 0.5, 0.4 apart) and approaching:
        // a scene changed in code is not validated again, and its world builds.
        let mut overlapping = scene.clone();
        overlapping.bodies[0].position = [1.0, 1.0, 0.0];
        overlapping.bodies[0].velocity = [0.0; 3];
        overlapping.bodies[1].position = [1.4, 1.0, 0.0];
        overlapping.bodies[1].velocity = [-0.1, 0.0, 0.0];
        let world = overlapping.world::<DVec2>().unwrap();
        let fresh = Simulation::new(
            scene.world::<DVec2>().unwrap(),
            kind.build(&Default::default()),
            5.0,
        );
        let state = SimState {
            now: 1.0,
            ..fresh.state()
        };
        let mut sim = Simulation::restore(world, kind.build(&Default::default()), state);
        let first = sim.step().expect("the overlapping pair collides");
        assert_eq!(first.time, 1.0, "{kind:?}: {first:?}");
        assert_eq!((first.a, first.b), (0, 1), "{kind:?}");
        let mut last = first.time;
        for _ in 0..50 {
            let Some(e) = sim.step() else { break };
            assert!(e.time >= last, "{kind:?}: {e:?} after {last}");
            last = e.time;
        }
    }
}
