//! Tests of the GSD writer and reader, and of the HOOMD frames.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use super::hoomd::{HoomdWriter, Particles, TIME_CHUNK};
use super::*;
use crate::scene::Scene;
use crate::trace::Replay;

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kairos-gsd-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A file of `frames` frames holding every element type, written in memory.
fn sample(frames: u64) -> Vec<u8> {
    let mut w = GsdWriter::new(
        Cursor::new(Vec::new()),
        Path::new("mem.gsd"),
        "test",
        "hoomd",
        (1, 4),
    )
    .unwrap();
    for f in 0..frames {
        let x = f as f64;
        w.write("u8", 2, 1, &[1u8, 255]).unwrap();
        w.write("u16", 1, 2, &[7u16, 65535]).unwrap();
        w.write("u32", 3, 1, &[f as u32, 2, u32::MAX]).unwrap();
        w.write("u64", 1, 1, &[f * 1_000_000_000_000]).unwrap();
        w.write("i8", 1, 3, &[-128i8, 0, 127]).unwrap();
        w.write("i16", 1, 1, &[-300i16]).unwrap();
        w.write("i32", 2, 2, &[-1i32, 2, -3, f as i32]).unwrap();
        w.write("i64", 1, 1, &[i64::MIN]).unwrap();
        w.write("f32", 2, 3, &[0.5f32, -1.5, 3.0, x as f32, 1e-30, -0.0])
            .unwrap();
        w.write("f64", 1, 2, &[x + 0.25, f64::MAX]).unwrap();
        w.write_strings("strings", &["A", "long name", ""]).unwrap();
        if f % 2 == 0 {
            w.write("even", 1, 1, &[f as u32]).unwrap();
        }
        w.end_frame().unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn chunks_of_every_type_round_trip() {
    let dir = tempdir("types");
    let p = write_file(&dir, "a.gsd", &sample(3));
    let r = GsdReader::open(&p).unwrap();
    assert_eq!(r.frame_count(), 3);
    assert_eq!(
        (r.application(), r.schema(), r.schema_version(), r.version()),
        ("test", "hoomd", (1, 4), (2, 0))
    );
    for f in 0..3u64 {
        let x = f as f64;
        let c = |name: &str| r.read_chunk(f, name).unwrap().unwrap();
        assert_eq!(c("u8").values::<u8>().unwrap(), [1, 255]);
        assert_eq!(c("u16").values::<u16>().unwrap(), [7, 65535]);
        assert_eq!(c("u32").values::<u32>().unwrap(), [f as u32, 2, u32::MAX]);
        assert_eq!(c("u64").values::<u64>().unwrap(), [f * 1_000_000_000_000]);
        assert_eq!(c("i8").values::<i8>().unwrap(), [-128, 0, 127]);
        assert_eq!(c("i16").values::<i16>().unwrap(), [-300]);
        assert_eq!(c("i32").values::<i32>().unwrap(), [-1, 2, -3, f as i32]);
        assert_eq!(c("i64").values::<i64>().unwrap(), [i64::MIN]);
        let f32s = c("f32");
        assert_eq!((f32s.kind, f32s.n, f32s.m), (GsdType::Float32, 2, 3));
        assert_eq!(
            f32s.values::<f32>().unwrap(),
            [0.5, -1.5, 3.0, x as f32, 1e-30, -0.0]
        );
        assert!(f32s.values::<f64>().is_none(), "a chunk of another type");
        assert_eq!(c("f64").values::<f64>().unwrap(), [x + 0.25, f64::MAX]);
        let s = c("strings");
        assert_eq!((s.kind, s.n, s.m), (GsdType::Int8, 3, 10));
        assert_eq!(s.strings().unwrap(), ["A", "long name", ""]);
        assert_eq!(r.find(f, "even").is_some(), f % 2 == 0);
        assert_eq!(r.chunks(f).len(), 11 + usize::from(f % 2 == 0));
        // The HOOMD schema's fallback to frame 0.
        let even = r.read_with_fallback(f, "even").unwrap().unwrap();
        assert_eq!(
            even.values::<u32>().unwrap(),
            [if f % 2 == 0 { f as u32 } else { 0 }]
        );
    }
    assert!(r.read_chunk(0, "missing").unwrap().is_none());
    assert!(r.read_chunk(3, "u8").unwrap().is_none());
    assert!(r.read_with_fallback(3, "u8").unwrap().is_none());
    assert_eq!(r.read_frame(1).unwrap().len(), 11);
    assert_eq!(r.names().len(), 12);
}

#[test]
fn index_and_name_list_grow_past_their_first_blocks() {
    // 300 frames of 3 chunks (900 index entries, 128 at first) and 150 long names (over
    // 4 KiB of names, 1 KiB at first), added over the frames.
    let dir = tempdir("grow");
    let p = dir.join("g.gsd");
    let mut w = GsdWriter::create(&p, "test", "hoomd", (1, 4)).unwrap();
    let name = |k: u64| format!("log/a/rather/long/chunk/name/number/{k:04}");
    for f in 0..300u64 {
        w.write("step", 1, 1, &[f]).unwrap();
        w.write("x", 2, 1, &[f as f64, -(f as f64)]).unwrap();
        if f < 150 {
            w.write(&name(f), 1, 1, &[f as u32]).unwrap();
        } else {
            w.write(&name(f % 7), 1, 1, &[f as u32]).unwrap();
        }
        w.end_frame().unwrap();
    }
    assert!(!p.exists(), "the file appears only on commit");
    w.commit().unwrap();
    let r = GsdReader::open(&p).unwrap();
    assert_eq!(r.frame_count(), 300);
    assert_eq!(r.names().len(), 152);
    assert!(r.header.index_entries >= 900 && r.header.index_location > HEADER_SIZE);
    assert!(r.header.namelist_blocks * NAME_BLOCK > INITIAL_NAME_BYTES);
    for f in 0..300u64 {
        let step = r.read_chunk(f, "step").unwrap().unwrap();
        assert_eq!(step.values::<u64>().unwrap(), [f]);
        let x = r.read_chunk(f, "x").unwrap().unwrap();
        assert_eq!(x.values::<f64>().unwrap(), [f as f64, -(f as f64)]);
        let k = if f < 150 { f } else { f % 7 };
        let c = r.read_chunk(f, &name(k)).unwrap().unwrap();
        assert_eq!(c.values::<u32>().unwrap(), [f as u32]);
        assert_eq!(r.chunks(f).len(), 3);
    }
    // No partial file is left beside it.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn a_file_without_frames_reads_as_empty() {
    let dir = tempdir("empty");
    let p = dir.join("e.gsd");
    GsdWriter::create(&p, "test", "hoomd", (1, 4))
        .unwrap()
        .commit()
        .unwrap();
    let r = GsdReader::open(&p).unwrap();
    assert_eq!(r.frame_count(), 0);
    assert!(r.chunks(0).is_empty());
    assert!(r.read_chunk(0, "x").unwrap().is_none());
    // Dropped without a commit: nothing is left.
    let q = dir.join("dropped.gsd");
    let mut w = GsdWriter::create(&q, "test", "hoomd", (1, 4)).unwrap();
    w.write("x", 1, 1, &[1u8]).unwrap();
    w.end_frame().unwrap();
    drop(w);
    assert!(!q.exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn writes_the_format_cannot_hold_are_refused() {
    let mut w = GsdWriter::new(
        Cursor::new(Vec::new()),
        Path::new("w.gsd"),
        "test",
        "hoomd",
        (1, 4),
    )
    .unwrap();
    let e = w.end_frame().unwrap_err().to_string();
    assert!(e.starts_with("w.gsd: frame 0 has no chunks"), "{e}");
    let e = w.write("x", 2, 3, &[1.0f32; 5]).unwrap_err().to_string();
    assert!(
        e.contains("20 bytes given for 2 x 3 elements of float"),
        "{e}"
    );
    let e = w.write("x", 1, 0, &[0u8; 0]).unwrap_err().to_string();
    assert!(e.contains("M must be at least 1"), "{e}");
    let e = w.write("", 1, 1, &[0u8]).unwrap_err().to_string();
    assert!(e.contains("non-empty"), "{e}");
    let e = w.write("a\0b", 1, 1, &[0u8]).unwrap_err().to_string();
    assert!(e.contains("NUL"), "{e}");
    let e = w.write_strings("s", &["a\0"]).unwrap_err().to_string();
    assert!(e.contains("NUL"), "{e}");
    w.write("x", 1, 1, &[0u8]).unwrap();
    let e = w.write("x", 1, 1, &[0u8]).unwrap_err().to_string();
    assert!(e.contains("chunk x written twice in frame 0"), "{e}");
    let e = w
        .write_chunk("y", GsdType::Float64, u64::MAX, 2, &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("bytes given"), "{e}");
    // The refused writes left the frame as it was; finish ends it.
    let bytes = w.finish().unwrap().into_inner();
    let dir = tempdir("refused");
    let r = GsdReader::open(&write_file(&dir, "w.gsd", &bytes)).unwrap();
    assert_eq!(r.frame_count(), 1);
    assert_eq!(r.chunks(0).len(), 1);
}

#[test]
fn every_truncation_is_an_error_naming_the_file() {
    let dir = tempdir("cut");
    let bytes = sample(6);
    let p = dir.join("cut.gsd");
    for len in 0..bytes.len() {
        std::fs::write(&p, &bytes[..len]).unwrap();
        let e = GsdReader::open(&p)
            .err()
            .unwrap_or_else(|| panic!("{len} of {} bytes read as a GSD file", bytes.len()));
        let text = e.to_string();
        assert!(text.starts_with(&p.display().to_string()), "{text}");
        if len < HEADER_SIZE as usize {
            assert!(matches!(e, GsdError::NotGsd { .. }), "{text}");
        } else {
            assert!(matches!(e, GsdError::Corrupt { .. }), "{len}: {text}");
        }
    }
    std::fs::write(&p, &bytes).unwrap();
    assert!(GsdReader::open(&p).is_ok());
    let e = GsdReader::open(&dir.join("missing.gsd")).unwrap_err();
    assert!(e.to_string().contains("missing.gsd: cannot open"), "{e}");
}

#[test]
fn damaged_headers_and_indexes_are_errors_and_no_damage_panics() {
    let dir = tempdir("damage");
    let bytes = sample(2);
    let p = dir.join("d.gsd");
    let open = |b: &[u8]| {
        std::fs::write(&p, b).unwrap();
        GsdReader::open(&p)
    };
    let patch = |at: usize, new: &[u8]| {
        let mut b = bytes.clone();
        b[at..at + new.len()].copy_from_slice(new);
        b
    };
    let err = |b: Vec<u8>| open(&b).unwrap_err().to_string();
    assert!(err(patch(0, b"notagsd!")).contains("not a GSD file"));
    assert!(err(patch(44, &pack_version((3, 0)).to_le_bytes()))
        .contains("version 3.0 is not supported"));
    assert!(err(patch(8, &u64::MAX.to_le_bytes())).contains("its index"));
    assert!(err(patch(16, &(u64::MAX / 8).to_le_bytes())).contains("its index"));
    assert!(err(patch(24, &u64::MAX.to_le_bytes())).contains("name list"));
    assert!(err(patch(32, &u64::MAX.to_le_bytes())).contains("name list"));
    // The first index entry: its type, flags, name id, columns, data and order.
    let e0 = HEADER_SIZE as usize;
    assert!(err(patch(e0 + 30, &[0])).contains("unknown type code 0"));
    assert!(err(patch(e0 + 30, &[12])).contains("unknown type code 12"));
    assert!(err(patch(e0 + 31, &[1])).contains("flags 1"));
    assert!(err(patch(e0 + 28, &500u16.to_le_bytes())).contains("name id 500"));
    assert!(err(patch(e0 + 24, &0u32.to_le_bytes())).contains("zero columns"));
    assert!(err(patch(e0 + 8, &u64::MAX.to_le_bytes())).contains("past the end"));
    assert!(err(patch(e0 + 16, &(bytes.len() as u64).to_le_bytes())).contains("past the end"));
    assert!(err(patch(e0, &5u64.to_le_bytes())).contains("out of order"));
    // The name list without its final NUL.
    let names_end =
        (HEADER_SIZE + INITIAL_INDEX_ENTRIES * ENTRY_SIZE + INITIAL_NAME_BYTES) as usize;
    assert!(err(patch(names_end - 1, b"x")).contains("NUL"));
    // Any one byte of the header and index set to any of a few values: an error or a file
    // that reads, never a panic.
    for at in 0..names_end {
        for v in [0u8, 1, 0x7f, 0xff] {
            let b = patch(at, &[v]);
            if let Ok(r) = open(&b) {
                for f in 0..r.frame_count().min(4) {
                    let _ = r.read_frame(f);
                }
            }
        }
    }
}

#[test]
fn version_1_name_lists_are_read() {
    // A version 1.0 file: names in 64-byte fields, index sorted by frame only.
    let mut b = Header {
        index_location: HEADER_SIZE,
        index_entries: 4,
        namelist_location: HEADER_SIZE + 4 * ENTRY_SIZE,
        namelist_blocks: 2,
        schema_version: pack_version((1, 0)),
        version: pack_version((1, 0)),
        application: "old".into(),
        schema: "hoomd".into(),
    }
    .to_bytes();
    let data_at = HEADER_SIZE + 4 * ENTRY_SIZE + 128;
    for (k, e) in [(1u16, 0u64), (0, 8)].iter().enumerate() {
        let entry = Entry {
            frame: 0,
            n: 1,
            location: data_at + e.1,
            m: 1,
            id: e.0,
            kind: GsdType::Uint64 as u8,
            flags: 0,
        };
        let _ = k;
        b.extend_from_slice(&entry.to_bytes());
    }
    b.resize((HEADER_SIZE + 4 * ENTRY_SIZE) as usize, 0);
    let mut names = [0u8; 128];
    names[..5].copy_from_slice(b"first");
    names[64..70].copy_from_slice(b"second");
    b.extend_from_slice(&names);
    b.extend_from_slice(&11u64.to_le_bytes());
    b.extend_from_slice(&22u64.to_le_bytes());
    let dir = tempdir("v1");
    let r = GsdReader::open(&write_file(&dir, "v1.gsd", &b)).unwrap();
    assert_eq!(r.version(), (1, 0));
    assert_eq!(r.names(), ["first", "second"]);
    let c = r.read_chunk(0, "first").unwrap().unwrap();
    assert_eq!(c.values::<u64>().unwrap(), [22]);
    let c = r.read_chunk(0, "second").unwrap().unwrap();
    assert_eq!(c.values::<u64>().unwrap(), [11]);
}

/// Reads `name` of `frame` (or frame 0) as `T`s.
fn values<T: Element>(r: &GsdReader, frame: u64, name: &str) -> Vec<T> {
    r.read_with_fallback(frame, name)
        .unwrap()
        .unwrap_or_else(|| panic!("no {name}"))
        .values::<T>()
        .unwrap_or_else(|| panic!("{name} of another type"))
}

fn hoomd_file(dir: &Path, scene: &Scene, times: &[f64]) -> GsdReader {
    let p = dir.join("h.gsd");
    let mut w = HoomdWriter::create(&p, Particles::from_scene(scene).unwrap()).unwrap();
    let replay = Replay::for_scene(scene);
    for (k, &t) in times.iter().enumerate() {
        w.write_replay(k as u64, t, &replay).unwrap();
    }
    w.commit().unwrap();
    GsdReader::open(&p).unwrap()
}

#[test]
fn a_periodic_gas_is_wrapped_into_the_centred_box_with_images() {
    let scene = crate::generate::gas(&crate::generate::GasParams {
        dim: 3,
        n: 27,
        packing: 0.2,
        polydispersity: 0.1,
        ..Default::default()
    })
    .unwrap();
    let l = scene.periodic.clone().unwrap();
    let dir = tempdir("gas");
    let r = hoomd_file(&dir, &scene, &[0.0, 0.5, 3.0]);
    assert_eq!((r.schema(), r.schema_version()), ("hoomd", (1, 4)));
    assert!(r.application().starts_with("kairos "));
    assert_eq!(r.frame_count(), 3);
    assert_eq!(values::<u32>(&r, 2, "particles/N"), [27]);
    assert_eq!(values::<u8>(&r, 2, "configuration/dimensions"), [3]);
    assert_eq!(values::<u64>(&r, 2, "configuration/step"), [2]);
    assert_eq!(values::<f64>(&r, 1, TIME_CHUNK), [0.5]);
    let b = values::<f32>(&r, 2, "configuration/box");
    assert_eq!(b, [l[0] as f32, l[1] as f32, l[2] as f32, 0.0, 0.0, 0.0]);
    assert!(
        r.find(1, "configuration/box").is_none(),
        "written in frame 0 only"
    );
    assert!(r.find(1, "particles/typeid").is_none());
    let types = r.read_chunk(0, "particles/types").unwrap().unwrap();
    let types = types.strings().unwrap();
    assert_eq!(types.len(), 27, "27 diameters, 27 types");
    assert_eq!(types[0], "ball");
    assert_eq!(types[1], "ball_1");
    let shapes = r.read_chunk(0, "particles/type_shapes").unwrap().unwrap();
    let shapes = shapes.strings().unwrap();
    let typeid = values::<u32>(&r, 0, "particles/typeid");
    let diameter = values::<f32>(&r, 0, "particles/diameter");
    for (i, b) in scene.bodies.iter().enumerate() {
        let expected = format!(
            "{{\"type\": \"Sphere\", \"diameter\": {:?}}}",
            2.0 * b.radius
        );
        assert_eq!(shapes[typeid[i] as usize], expected);
        assert_eq!(diameter[i], (2.0 * b.radius) as f32);
    }
    let replay = Replay::for_scene(&scene);
    for (f, t) in [(0u64, 0.0), (2, 3.0)] {
        let pos = values::<f32>(&r, f, "particles/position");
        let img = values::<i32>(&r, f, "particles/image");
        for i in 0..27 {
            let x = replay.position(i, t);
            for k in 0..3 {
                let w = pos[3 * i + k];
                assert!(-0.5 * l[k] as f32 <= w && w < 0.5 * l[k] as f32);
                let unwrapped = f64::from(w) + f64::from(img[3 * i + k]) * l[k];
                assert!(
                    (unwrapped - x[k]).abs() < 1e-5 * l[k],
                    "{unwrapped} {}",
                    x[k]
                );
            }
        }
    }
    assert!(
        r.find(0, "particles/orientation").is_none(),
        "balls do not turn"
    );
    // Beyond MAX_BALL_TYPES diameters, one type.
    let many = crate::generate::gas(&crate::generate::GasParams {
        dim: 2,
        n: 100,
        packing: 0.3,
        polydispersity: 0.2,
        ..Default::default()
    })
    .unwrap();
    let p = Particles::from_scene(&many).unwrap();
    assert_eq!(p.types, ["ball"]);
    assert!(p.typeid.iter().all(|&t| t == 0));
}

const WALLED_2D: &str = r#"
dim = 2
[simulation]
duration = 4.0
[[walls]]
box = { min = [-1.0, 0.0], max = [9.0, 4.0] }
[[bodies]]
position = [1.0, 1.0]
velocity = [1.0, 0.5]
radius = 0.5
mass = 2.0
[[bodies]]
position = [5.0, 2.0]
velocity = [-1.0, 0.0]
radius = 0.5
mass = 1.0
"#;

#[test]
fn a_walled_2d_scene_has_a_box_around_its_walls() {
    let scene = Scene::from_toml_str(WALLED_2D).unwrap();
    let dir = tempdir("walls");
    let r = hoomd_file(&dir, &scene, &[0.0, 0.25]);
    assert_eq!(values::<u8>(&r, 1, "configuration/dimensions"), [2]);
    let b = values::<f32>(&r, 1, "configuration/box");
    let (lx, ly) = (18.0 * (1.0 + 1e-6), 8.0 * (1.0 + 1e-6));
    assert_eq!(b, [lx as f32, ly as f32, 0.0, 0.0, 0.0, 0.0]);
    assert!(r.find(1, "configuration/box").is_none());
    assert!(r.find(0, "particles/image").is_none());
    let pos = values::<f32>(&r, 1, "particles/position");
    assert_eq!(&pos[..3], &[1.25, 1.125, 0.0]);
    assert_eq!(
        values::<f32>(&r, 1, "particles/velocity")[3..],
        [-1.0, 0.0, 0.0]
    );
    assert_eq!(values::<f32>(&r, 0, "particles/mass"), [2.0, 1.0]);
    let types = r.read_chunk(0, "particles/types").unwrap().unwrap();
    assert_eq!(types.strings().unwrap(), ["ball"]);
    assert_eq!(values::<u32>(&r, 0, "particles/typeid"), [0, 0]);
}

const RIGID_3D: &str = r#"
dim = 3
[simulation]
duration = 2.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [10.0, 10.0, 10.0] }
[[bodies]]
shape = "polyhedron"
points = [[0.0, 0.0, 0.0], [1.5, 0.0, 0.0], [0.0, 1.0, 0.0], [0.2, 0.3, 0.8], [1.0, 0.9, 0.4]]
position = [3.0, 3.0, 3.0]
orientation = [0.9, 0.1, -0.3, 0.2]
velocity = [0.5, 0.2, -0.1]
angular_velocity = [0.4, -1.0, 0.7]
[[bodies]]
shape = "box"
half_extents = [0.5, 0.25, 0.75]
position = [7.0, 7.0, 7.0]
orientation = [0.6, 0.0, 0.8, 0.0]
angular_velocity = [1.0, 2.0, 3.0]
[[bodies]]
shape = "box"
half_extents = [0.5, 0.25, 0.75]
position = [7.0, 3.0, 7.0]
[[bodies]]
shape = "cylinder"
half_height = 0.5
radius = 0.4
position = [3.0, 7.0, 3.0]
angular_velocity = [0.0, 1.0, 0.5]
"#;

#[test]
fn rigid_bodies_are_written_in_their_principal_frames() {
    use crate::math::DMat3;
    let scene = Scene::from_toml_str(RIGID_3D).unwrap();
    let world = scene.world::<crate::math::DVec3>().unwrap();
    let dir = tempdir("rigid3");
    let r = hoomd_file(&dir, &scene, &[0.0, 0.7]);
    let types = r.read_chunk(0, "particles/types").unwrap().unwrap();
    assert_eq!(
        types.strings().unwrap(),
        ["polyhedron", "box", "cylinder"],
        "the two boxes share a type"
    );
    assert_eq!(values::<u32>(&r, 0, "particles/typeid"), [0, 1, 1, 2]);
    let shapes = r.read_chunk(0, "particles/type_shapes").unwrap().unwrap();
    let shapes = shapes.strings().unwrap();
    assert!(shapes[0].starts_with("{\"type\": \"ConvexPolyhedron\", \"vertices\": [["));
    assert!(shapes[1].contains("[-0.5, -0.25, -0.75]"), "{}", shapes[1]);
    assert_eq!(shapes[2].matches('[').count(), 1 + 64, "{}", shapes[2]);
    let moments = values::<f32>(&r, 0, "particles/moment_inertia");
    let replay = Replay::for_scene(&scene);
    let t = 0.7;
    let q = values::<f32>(&r, 1, "particles/orientation");
    let p = values::<f32>(&r, 1, "particles/angmom");
    let particles = Particles::from_scene(&scene).unwrap();
    let principal = particles.rigid.as_ref().unwrap();
    for (i, rs) in world.rigid().iter().enumerate() {
        let (qb, w) = replay.orientation(i, t);
        let body = glam::DQuat::from_xyzw(qb[1], qb[2], qb[3], qb[0]);
        let qg = glam::DQuat::from_xyzw(
            f64::from(q[4 * i + 1]),
            f64::from(q[4 * i + 2]),
            f64::from(q[4 * i + 3]),
            f64::from(q[4 * i]),
        );
        let pr = principal[i].rotation;
        let pq = glam::DQuat::from_xyzw(pr[1], pr[2], pr[3], pr[0]);
        // The principal frame diagonalises the inertia tensor.
        let d = DMat3::from_quat(pq).transpose() * rs.inertia * DMat3::from_quat(pq);
        let m = [moments[3 * i], moments[3 * i + 1], moments[3 * i + 2]];
        for k in 0..3 {
            assert!((d.col(k)[k] - f64::from(m[k])).abs() < 1e-5 * d.col(k)[k]);
            for j in 0..3 {
                if j != k {
                    assert!(d.col(k)[j].abs() < 1e-9 * d.col(k)[k], "{d:?}");
                }
            }
        }
        // A point of the body lands at the same place through either frame.
        let v = glam::DVec3::new(0.3, -0.2, 0.5);
        let through_gsd = qg * (pq.conjugate() * v);
        assert!((through_gsd - body * v).length() < 1e-6, "body {i}");
        // The angular momentum: S = 1/2 im(q* P) in the principal frame, L = q S q*.
        let pm = glam::DQuat::from_xyzw(
            f64::from(p[4 * i + 1]),
            f64::from(p[4 * i + 2]),
            f64::from(p[4 * i + 3]),
            f64::from(p[4 * i]),
        );
        let s = qg.conjugate() * pm;
        let s = glam::DVec3::new(s.x, s.y, s.z) * 0.5;
        let world_l = qg * s;
        let mut state = rs.clone();
        state.rotation = body;
        state.set_angular_velocity(glam::DVec3::from_array(w));
        let expected = state.angular_momentum();
        assert!(
            (world_l - expected).length() < 1e-5 * (1.0 + expected.length()),
            "body {i}: {world_l} vs {expected}"
        );
    }
    // The boxes and the cylinder keep their axes: the trace's quaternion as it is.
    assert_eq!(principal[1].rotation, [1.0, 0.0, 0.0, 0.0]);
    assert_ne!(principal[0].rotation, [1.0, 0.0, 0.0, 0.0]);
    let (qb, _) = replay.orientation(1, t);
    assert_eq!(&q[4..8], &qb.map(|x| x as f32));
}

#[test]
fn rigid_2d_bodies_turn_about_z() {
    let scene = Scene::from_toml_str(
        r#"
dim = 2
[simulation]
duration = 2.0
[[walls]]
box = { min = [0.0, 0.0], max = [10.0, 10.0] }
[[bodies]]
shape = "polygon"
vertices = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
position = [3.0, 3.0]
angular_velocity = 2.0
[[bodies]]
shape = "polygon"
vertices = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [1.0, 0.5], [0.0, 2.0]]
position = [6.0, 6.0]
orientation = 0.5
[[bodies]]
shape = "capsule"
half_height = 0.5
radius = 0.25
position = [2.0, 8.0]
[[bodies]]
position = [8.0, 2.0]
velocity = [0.0, 0.0]
radius = 0.5
mass = 1.0
"#,
    )
    .unwrap();
    let dir = tempdir("rigid2");
    let r = hoomd_file(&dir, &scene, &[0.0, 0.5]);
    let types = r.read_chunk(0, "particles/types").unwrap().unwrap();
    assert_eq!(
        types.strings().unwrap(),
        ["polygon", "polygon_1", "capsule", "ball"]
    );
    let shapes = r.read_chunk(0, "particles/type_shapes").unwrap().unwrap();
    let shapes = shapes.strings().unwrap();
    // The triangle about its centroid (1/3, 1/3), the concave polygon's outline (5 vertices).
    assert!(
        shapes[0].starts_with("{\"type\": \"Polygon\", \"vertices\": [[-0.333"),
        "{}",
        shapes[0]
    );
    assert_eq!(shapes[1].matches('[').count(), 6, "{}", shapes[1]);
    assert!(
        shapes[2].contains("\"rounding_radius\": 0.25"),
        "{}",
        shapes[2]
    );
    assert_eq!(shapes[3], "{\"type\": \"Sphere\", \"diameter\": 1.0}");
    let q = values::<f32>(&r, 1, "particles/orientation");
    let (s, c) = (0.5f64 * 1.0).sin_cos();
    assert_eq!(&q[..4], &[c as f32, 0.0, 0.0, s as f32], "angle 2 x 0.5");
    let moments = values::<f32>(&r, 0, "particles/moment_inertia");
    let p = values::<f32>(&r, 1, "particles/angmom");
    // P = 2 q (0, 0, 0, I w): (-2 s I w, 0, 0, 2 c I w).
    let iw = f64::from(moments[2]) * 2.0;
    assert!((f64::from(p[0]) + 2.0 * s * iw).abs() < 1e-5);
    assert!((f64::from(p[3]) - 2.0 * c * iw).abs() < 1e-5);
    assert_eq!(&moments[..2], &[0.0, 0.0]);
}

#[test]
fn inconsistent_particles_are_refused() {
    let scene = Scene::from_toml_str(WALLED_2D).unwrap();
    let good = Particles::from_scene(&scene).unwrap();
    assert_eq!(good.problem(), None);
    let start = |p: Particles| {
        HoomdWriter::new(Cursor::new(Vec::new()), Path::new("p.gsd"), p)
            .err()
            .map(|e| e.to_string())
    };
    let mut p = good.clone();
    p.mass.pop();
    assert!(start(p)
        .unwrap()
        .contains("2 type ids, 2 diameters, 1 masses"));
    let mut p = good.clone();
    p.typeid[1] = 7;
    assert!(start(p).unwrap().contains("type id 7 beyond the 1 types"));
    let mut p = good.clone();
    p.dim = 4;
    assert!(start(p).unwrap().contains("dimension 4"));
    let mut p = good;
    p.type_shapes.push("{}".into());
    assert!(start(p)
        .unwrap()
        .starts_with("p.gsd: inconsistent particles: 1 types and 2"));
}

#[test]
fn numbers_beyond_f32_are_errors() {
    let scene = Scene::from_toml_str(WALLED_2D).unwrap();
    let mut w = HoomdWriter::new(
        Cursor::new(Vec::new()),
        Path::new("big.gsd"),
        Particles::from_scene(&scene).unwrap(),
    )
    .unwrap();
    let pos = [[1e39, 0.0, 0.0], [0.0; 3]];
    let e = w
        .write_frame(&hoomd::Frame {
            step: 0,
            time: 0.0,
            position: &pos,
            velocity: &[[0.0; 3]; 2],
            rotation: None,
            angular_velocity: None,
        })
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("big.gsd: body 0's position"), "{e}");
    assert!(e.contains("beyond the range"), "{e}");
    let e = w
        .write_frame(&hoomd::Frame {
            step: 0,
            time: 0.0,
            position: &[[0.0; 3]],
            velocity: &[[0.0; 3]],
            rotation: None,
            angular_velocity: None,
        })
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the state of 1 bodies given for a scene of 2"),
        "{e}"
    );
}
