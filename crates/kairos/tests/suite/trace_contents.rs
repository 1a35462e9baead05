//! Traces whose checksums are valid but whose contents are not what any run writes (a 2D state
//! with a z component, times going back, a record after the footer's end time, unknown sleep
//! flags, a motion that overflows before the record replacing it or the end time) are refused
//! with the record's index, or the body's; the traces every engine writes
//! (event-driven and discrete, balls and rigid bodies, 2D and 3D) are read whole; and a path
//! that is no trace file, or a header length that is damage rather than a cut, is named so.

use kairos::discrete::{DiscreteOptions, DiscreteSim};
use kairos::generate::{
    billiard, boxes, drop, gas, polygons, BilliardParams, DropParams, GasParams, RigidGasParams,
};
use kairos::overlap::OverlapKind;
use kairos::prelude::*;
use kairos::trace::{Record, TraceError, TraceHeader, TraceReader, TraceWriter};
use std::path::{Path, PathBuf};

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kairos-contents-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn billiard_2d() -> Scene {
    billiard(&BilliardParams {
        n: 10,
        seed: 2,
        duration: 1.0,
        ..Default::default()
    })
    .unwrap()
}

/// The records of an event-driven run of `scene` to its end.
fn event_records(scene: &Scene) -> Vec<Record> {
    let mut out = Vec::new();
    let end = scene.duration;
    if scene.dim == 2 {
        let broad = BroadPhaseKind::AllPairs.build(&Default::default());
        let mut sim = Simulation::new(scene.world::<DVec2>().unwrap(), broad, end);
        sim.run(|e, w, dt| out.push(Record::from_event(e, w, dt)));
    } else {
        let broad = BroadPhaseKind::AllPairs.build(&Default::default());
        let mut sim = Simulation::new(scene.world::<DVec3>().unwrap(), broad, end);
        sim.run(|e, w, dt| out.push(Record::from_event(e, w, dt)));
    }
    out
}

/// A complete trace of `records` (checksums and hash valid), ending at `end`.
fn write_trace(path: &Path, header: &TraceHeader, records: &[Record], end: f64) {
    let mut w = TraceWriter::create(path, header).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    w.finish(end).unwrap();
}

/// Reads a trace whole; the error's text when it is refused.
fn read(path: &Path) -> Result<usize, String> {
    let r = TraceReader::open(path).map_err(|e| e.to_string())?;
    r.read_all()
        .map(|(_, records)| records.len())
        .map_err(|e| e.to_string())
}

#[test]
fn inconsistent_records_are_refused_with_their_index() {
    let dir = tempdir("records");
    let scene = billiard_2d();
    let header = TraceHeader::for_scene(&scene, "all-pairs");
    let good = event_records(&scene);
    assert!(good.len() > 10);
    let path = dir.join("t.ktrace");
    write_trace(&path, &header, &good, 1.0);
    assert_eq!(read(&path), Ok(good.len()));
    type Damage = fn(&mut Record);
    let cases: [(&str, Damage, &str); 6] = [
        ("z of a position", |r| r.pos_a[2] = 1.0, "z component"),
        ("z of a velocity", |r| r.vel_a[2] = -0.5, "z component"),
        (
            "time going back",
            |r| r.time = 0.0,
            "before the previous record",
        ),
        ("after the end", |r| r.time = 2.0, "after the trace's end"),
        ("sleep flags", |r| r.sleep = 4, "sleep flags"),
        ("a NaN state", |r| r.vel_a[0] = f64::NAN, "non-finite state"),
    ];
    for (what, damage, says) in cases {
        let k = 7;
        let mut records = good.clone();
        damage(&mut records[k]);
        write_trace(&path, &header, &records, 1.0);
        let e = read(&path).expect_err(what);
        assert!(
            e.contains(&format!("record {k}:")) && e.contains(says),
            "{what}: {e}"
        );
    }
    // The second body of a ball-wall record is a wall: its B flag means nothing there.
    let k = good
        .iter()
        .position(|r| r.kind == kairos::event::EventKind::BodyWall)
        .unwrap();
    let mut records = good.clone();
    records[k].sleep = Record::B_ASLEEP;
    write_trace(&path, &header, &records, 1.0);
    let e = read(&path).unwrap_err();
    assert!(e.contains(&format!("record {k}:")), "{e}");
    // A z component in the second body of a pair.
    let k = good
        .iter()
        .position(|r| r.kind == kairos::event::EventKind::BodyBody)
        .unwrap();
    let mut records = good.clone();
    records[k].pos_b[2] = 1e-300;
    write_trace(&path, &header, &records, 1.0);
    let e = read(&path).unwrap_err();
    assert!(e.contains(&format!("record {k}:")), "{e}");
    // A 2D rigid body's rotation is an angle: a quaternion's part or a turn about x is refused.
    let scene = polygons(&RigidGasParams {
        n: 8,
        seed: 2,
        duration: 2.0,
        ..Default::default()
    })
    .unwrap();
    let header = TraceHeader::for_scene(&scene, "all-pairs");
    let good = event_records(&scene);
    assert!(good.len() > 3);
    for (what, damage) in [
        ("rotation", (|r: &mut Record| r.rot_a[2] = 0.5) as Damage),
        ("angular velocity", |r| r.omega_a[1] = 2.0),
    ] {
        let mut records = good.clone();
        damage(&mut records[2]);
        write_trace(&path, &header, &records, scene.duration);
        let e = read(&path).expect_err(what);
        assert!(
            e.contains("record 2:") && e.contains("3D rotation"),
            "{what}: {e}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Every state a replay can be asked for within a trace's span is finite: a state whose motion
/// overflows before the record that replaces it, or before the end time, is refused, naming the
/// record (or the end time), the body and where its state came from.
#[test]
fn motions_that_overflow_within_the_span_are_refused() {
    let dir = tempdir("overflow");
    let path = dir.join("t.ktrace");
    let scene = billiard_2d();
    let header = TraceHeader::for_scene(&scene, "all-pairs");
    let good = event_records(&scene);
    // A ball-wall record whose ball comes back in a later record.
    let (k, m) = (0..good.len())
        .filter(|&k| good[k].kind == kairos::event::EventKind::BodyWall)
        .find_map(|k| {
            let a = good[k].a;
            Some((
                k,
                (k + 1..good.len()).find(|&m| good[m].a == a || good[m].b == a)?,
            ))
        })
        .unwrap();
    let a = good[k].a;
    // A speed of 1e300 is finite, but not its motion over 1e10 (the records from m on, and the
    // end, moved there).
    let mut records = good.clone();
    records[k].vel_a[0] = 1e300;
    for r in &mut records[m..] {
        r.time = 1e10;
    }
    write_trace(&path, &header, &records, 1e10);
    let e = read(&path).unwrap_err();
    assert!(
        e.contains(&format!(
            "record {m}: body {a}, from its state in record {k} "
        )) && e.contains("non-finite"),
        "{e}"
    );
    // The same speed in a body's last record: its motion to the end time overflows.
    let last = good.len() - 1;
    let mut records = good.clone();
    records[last].vel_a[1] = -1e300;
    write_trace(&path, &header, &records, 1e10);
    let e = read(&path).unwrap_err();
    let b = good[last].a;
    assert!(
        e.contains("end time 10000000000 (the footer's)")
            && e.contains(&format!("body {b}, from its state in record {last} ")),
        "{e}"
    );
    // Without that speed, those times are read.
    let mut records = good.clone();
    for r in &mut records[m..] {
        r.time = 1e10;
    }
    write_trace(&path, &header, &records, 1e10);
    assert_eq!(read(&path), Ok(good.len()));
    // Under gravity, half the square of an end time of 1e200 overflows (0 times it is NaN),
    // and so does the fall from a header state 1e200 before the start.
    let scene = drop(&DropParams {
        balls: 5,
        boxes: 0,
        duration: 2.0,
        ..Default::default()
    })
    .unwrap();
    let header = TraceHeader::for_scene(&scene, "all-pairs");
    write_trace(&path, &header, &[], 2.0);
    assert_eq!(read(&path), Ok(0));
    write_trace(&path, &header, &[], 1e200);
    let e = read(&path).unwrap_err();
    assert!(
        e.contains("end time 1e200") && e.contains("body 0, from its state in the header"),
        "{e}"
    );
    let mut far_back = header.clone();
    far_back.bodies[3].time = -1e200;
    write_trace(&path, &far_back, &[], 2.0);
    let e = read(&path).unwrap_err();
    assert!(
        e.contains("body 3, from its state in the header") && e.contains("under gravity"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_2d_header_with_a_z_component_is_refused_naming_the_body() {
    let dir = tempdir("header");
    let scene = billiard_2d();
    let path = dir.join("t.ktrace");
    for (pos, vel) in [(3.0, 0.0), (0.0, -1.0)] {
        let mut header = TraceHeader::for_scene(&scene, "all-pairs");
        header.bodies[4].pos[2] = pos;
        header.bodies[4].vel[2] = vel;
        write_trace(&path, &header, &[], 1.0);
        let e = read(&path).unwrap_err();
        assert!(e.contains("body 4") && e.contains("z component"), "{e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The traces of every engine the library runs read whole: the event-driven simulator and the
/// discrete stepper, balls and rigid bodies, in 2D and 3D (the stepped engine's traces are read
/// by the command line's tests).
#[test]
fn the_traces_of_every_engine_are_read() {
    let dir = tempdir("engines");
    let path = dir.join("t.ktrace");
    let gas_3d = gas(&GasParams {
        dim: 3,
        n: 27,
        packing: 0.2,
        seed: 3,
        duration: 5.0,
        ..Default::default()
    })
    .unwrap();
    let rigid = RigidGasParams {
        n: 8,
        seed: 2,
        duration: 2.0,
        ..Default::default()
    };
    for scene in [
        billiard_2d(),
        gas_3d,
        polygons(&rigid).unwrap(),
        boxes(&rigid).unwrap(),
    ] {
        let records = event_records(&scene);
        assert!(!records.is_empty());
        write_trace(
            &path,
            &TraceHeader::for_scene(&scene, "all-pairs"),
            &records,
            scene.duration,
        );
        assert_eq!(read(&path), Ok(records.len()), "{}D", scene.dim);
    }
    // The discrete stepper, with and without the rewind (contacts in time order within a step).
    for rewind in [false, true] {
        let scene = billiard_2d();
        let opts = DiscreteOptions {
            dt: 0.01,
            substeps: 1,
            toi_rewind: rewind,
            count_misses: true,
        };
        let world = scene.world::<DVec2>().unwrap();
        let mut sim = DiscreteSim::new(world, OverlapKind::BruteForce, opts, 1.0).unwrap();
        let mut records = Vec::new();
        sim.run(|e, w| records.push(Record::from_event(e, w, 0.0)));
        assert!(!records.is_empty());
        write_trace(
            &path,
            &TraceHeader::for_scene(&scene, "discrete"),
            &records,
            1.0,
        );
        assert_eq!(read(&path), Ok(records.len()), "rewind {rewind}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_path_that_is_no_trace_file_and_a_damaged_header_length_are_named() {
    let dir = tempdir("paths");
    let e = TraceReader::open(&dir).err().unwrap();
    assert!(matches!(e, TraceError::NotAFile(_)), "{e}");
    assert!(e.to_string().contains("directory"), "{e}");
    let e = TraceReader::open(Path::new("/dev/null")).err().unwrap();
    assert!(e.to_string().contains("not a regular file"), "{e}");
    assert!(!e.to_string().contains("corrupted"), "{e}");
    let scene = billiard_2d();
    let path = dir.join("t.ktrace");
    write_trace(
        &path,
        &TraceHeader::for_scene(&scene, "all-pairs"),
        &event_records(&scene),
        1.0,
    );
    let bytes = std::fs::read(&path).unwrap();
    // One flipped bit of the header length (bytes 16 to 23): damage, not a cut.
    for (byte, bit) in [(20, 0), (23, 7), (18, 3), (16, 1)] {
        let mut bad = bytes.clone();
        bad[byte] ^= 1 << bit;
        std::fs::write(&path, &bad).unwrap();
        let e = TraceReader::open(&path).err().unwrap();
        assert!(matches!(e, TraceError::Corrupt(_)), "{byte}/{bit}: {e}");
        assert!(e.to_string().contains("damaged"), "{e}");
    }
    // A file cut inside its header is incomplete.
    std::fs::write(&path, &bytes[..200]).unwrap();
    let e = TraceReader::open(&path).err().unwrap();
    assert!(matches!(e, TraceError::Incomplete(_)), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
