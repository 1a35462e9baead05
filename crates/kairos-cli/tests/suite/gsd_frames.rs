//! `kairos frames --format gsd`: GSD files of the HOOMD schema, read back with the library's
//! `GsdReader` and compared with the extended-XYZ frames of the same trace and times.

use std::path::Path;

use kairos::gsd::{Element, GsdReader};

use crate::common::{crate_file, kairos, ok, tempdir, text};

/// One extended-XYZ frame: its comment line and its atoms' numbers (after the species).
struct XyzFrame {
    comment: String,
    atoms: Vec<Vec<f64>>,
}

fn xyz_frames(path: &Path) -> Vec<XyzFrame> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let mut frames = Vec::new();
    while let Some(n) = lines.next() {
        let n: usize = n.trim().parse().unwrap();
        let comment = lines.next().unwrap().to_string();
        let atoms = (0..n)
            .map(|_| {
                lines
                    .next()
                    .unwrap()
                    .split_whitespace()
                    .skip(1)
                    .map(|c| c.parse().unwrap())
                    .collect()
            })
            .collect();
        frames.push(XyzFrame { comment, atoms });
    }
    frames
}

/// The chunk `name` of `frame` (or, as the schema says, of frame 0) as `T`s.
fn values<T: Element>(r: &GsdReader, frame: u64, name: &str) -> Vec<T> {
    r.read_with_fallback(frame, name)
        .unwrap()
        .unwrap_or_else(|| panic!("no {name} in frame {frame}"))
        .values::<T>()
        .unwrap_or_else(|| panic!("{name} is of another type"))
}

fn strings(r: &GsdReader, name: &str) -> Vec<String> {
    r.read_chunk(0, name).unwrap().unwrap().strings().unwrap()
}

/// Runs `generate ARGS -o NAME.toml`, `run`, and `frames` into `NAME.gsd` and `NAME.xyz`
/// every `every`; returns the GSD file, opened, and the XYZ frames.
fn frames_of(dir: &Path, name: &str, generate: &[&str], every: &str) -> (GsdReader, Vec<XyzFrame>) {
    let scene = format!("{name}.toml");
    if !generate.is_empty() {
        let mut args = vec!["generate"];
        args.extend_from_slice(generate);
        args.extend_from_slice(&["-o", &scene]);
        ok(&kairos(&args, dir));
    }
    let trace = format!("{name}.ktrace");
    ok(&kairos(&["run", &scene, "-q", "-o", &trace], dir));
    let (gsd, xyz) = (format!("{name}.gsd"), format!("{name}.xyz"));
    ok(&kairos(
        &["frames", &trace, "--every", every, "-o", &gsd],
        dir,
    ));
    ok(&kairos(
        &["frames", &trace, "--every", every, "-o", &xyz],
        dir,
    ));
    let r = GsdReader::open(&dir.join(&gsd)).unwrap();
    (r, xyz_frames(&dir.join(&xyz)))
}

/// Checks what every GSD frame shares with the XYZ frame of the same time: the number of
/// bodies, the time and step, the velocities, and the positions (unwrapped with
/// `particles/image` and `period` when periodic).
fn check_common(r: &GsdReader, xyz: &[XyzFrame], every: f64, period: Option<[f64; 3]>) {
    assert_eq!(r.schema(), "hoomd");
    assert_eq!(r.schema_version(), (1, 4));
    assert!(
        r.application().starts_with("kairos "),
        "{}",
        r.application()
    );
    assert_eq!(r.frame_count() as usize, xyz.len());
    for (f, x) in xyz.iter().enumerate() {
        let f = f as u64;
        let n = x.atoms.len();
        assert_eq!(values::<u32>(r, f, "particles/N"), [n as u32]);
        assert_eq!(values::<u64>(r, f, "configuration/step"), [f]);
        let t = values::<f64>(r, f, "log/kairos/time")[0];
        assert_eq!(t, f as f64 * every);
        assert!(x.comment.contains(&format!("Time={t:?}")), "{}", x.comment);
        let pos = values::<f32>(r, f, "particles/position");
        let vel = values::<f32>(r, f, "particles/velocity");
        let image = period.map(|_| values::<i32>(r, f, "particles/image"));
        let boxed = values::<f32>(r, f, "configuration/box");
        let diameter = values::<f32>(r, 0, "particles/diameter");
        for (i, a) in x.atoms.iter().enumerate() {
            for k in 0..3 {
                // Inside the box, as the file's own numbers say.
                let (p32, half) = (pos[3 * i + k], 0.5 * boxed[k]);
                assert!(half == 0.0 || (-half <= p32 && p32 < half), "{p32} {half}");
                let p = f64::from(p32);
                let unwrapped = match (period, &image) {
                    (Some(l), Some(img)) => p + f64::from(img[3 * i + k]) * l[k],
                    _ => p,
                };
                let scale = 1.0 + a[k].abs();
                assert!(
                    (unwrapped - a[k]).abs() <= 1e-6 * scale,
                    "frame {f} body {i} axis {k}: {unwrapped} vs {}",
                    a[k]
                );
                assert_eq!(vel[3 * i + k], a[4 + k] as f32, "frame {f} body {i}");
            }
            assert_eq!(diameter[i], (2.0 * a[3]) as f32, "body {i}'s diameter");
        }
    }
}

/// The `Lattice` lengths of an XYZ comment.
fn lattice(comment: &str) -> [f64; 3] {
    let l = comment.split("Lattice=\"").nth(1).unwrap();
    let v: Vec<f64> = l
        .split('"')
        .next()
        .unwrap()
        .split_whitespace()
        .map(|c| c.parse().unwrap())
        .collect();
    [v[0], v[4], v[8]]
}

#[test]
fn a_periodic_3d_gas_is_written_wrapped_with_images() {
    let dir = tempdir("gsd-gas");
    let (r, xyz) = frames_of(
        &dir,
        "gas",
        &["gas", "--n", "64", "--packing", "0.3", "--duration", "2"],
        "0.5",
    );
    assert_eq!(r.frame_count(), 5);
    let l = lattice(&xyz[0].comment);
    assert_eq!(values::<u8>(&r, 0, "configuration/dimensions"), [3]);
    assert_eq!(
        values::<f32>(&r, 0, "configuration/box"),
        [l[0] as f32, l[1] as f32, l[2] as f32, 0.0, 0.0, 0.0]
    );
    assert!(
        r.find(3, "configuration/box").is_none(),
        "frame 0's box holds"
    );
    check_common(&r, &xyz, 0.5, Some(l));
    // Some ball has crossed the box by t = 2.
    let img = values::<i32>(&r, 4, "particles/image");
    assert!(img.iter().any(|&i| i != 0));
    assert_eq!(strings(&r, "particles/types"), ["ball"]);
    assert_eq!(
        strings(&r, "particles/type_shapes"),
        ["{\"type\": \"Sphere\", \"diameter\": 1.0}"]
    );
    assert!(values::<u32>(&r, 0, "particles/typeid")
        .iter()
        .all(|&t| t == 0));
    assert!(r.find(0, "particles/orientation").is_none());
}

#[test]
fn a_2d_ball_scene_gets_a_box_around_its_walls() {
    let dir = tempdir("gsd-billiard");
    let (r, xyz) = frames_of(
        &dir,
        "b",
        &["billiard", "--n", "20", "--seed", "3", "--dim", "2"],
        "1",
    );
    check_common(&r, &xyz, 1.0, None);
    assert_eq!(values::<u8>(&r, 0, "configuration/dimensions"), [2]);
    // The table's four walls run from the origin to its far corner.
    let scene = kairos::scene::Scene::load(&dir.join("b.toml")).unwrap();
    let mut corner = [0.0f64; 2];
    for w in &scene.walls {
        let kairos::scene::WallSpec::Segment { a, b } = w else {
            panic!("a 2D billiard table is four segments")
        };
        for k in 0..2 {
            corner[k] = corner[k].max(a[k].abs()).max(b[k].abs());
        }
    }
    let b = values::<f32>(&r, 0, "configuration/box");
    for k in 0..2 {
        assert_eq!(b[k], (2.0 * corner[k] * (1.0 + 1e-6)) as f32);
    }
    assert!(
        r.find(3, "configuration/box").is_none(),
        "the walls hold the balls"
    );
    assert_eq!(&b[2..], &[0.0; 4], "Lz = 0 in 2D");
    assert!(r.find(0, "particles/image").is_none());
    // One type per ball diameter, each a Sphere of it.
    let types = strings(&r, "particles/types");
    let shapes = strings(&r, "particles/type_shapes");
    let typeid = values::<u32>(&r, 0, "particles/typeid");
    let diameter = values::<f32>(&r, 0, "particles/diameter");
    assert_eq!(types.len(), shapes.len());
    for (i, &t) in typeid.iter().enumerate() {
        let d: f64 = shapes[t as usize]
            .trim_end_matches('}')
            .rsplit(": ")
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(d as f32, diameter[i]);
    }
}

/// The XYZ orientation columns `x y z w` as the GSD order `w x y z`.
fn wxyz(a: &[f64]) -> [f32; 4] {
    [a[10] as f32, a[7] as f32, a[8] as f32, a[9] as f32]
}

#[test]
fn rigid_2d_and_3d_scenes_carry_orientations_and_shapes() {
    let dir = tempdir("gsd-rigid");
    for (name, generate, polytope) in [
        (
            "p",
            &["polygons", "--n", "12", "--seed", "1", "--duration", "2"][..],
            "Polygon",
        ),
        (
            "c",
            &["boxes", "--n", "8", "--spin", "3", "--duration", "2"][..],
            "ConvexPolyhedron",
        ),
    ] {
        let (r, xyz) = frames_of(&dir, name, generate, "0.5");
        check_common(&r, &xyz, 0.5, None);
        let n = xyz[0].atoms.len();
        for (f, x) in xyz.iter().enumerate() {
            let q = values::<f32>(&r, f as u64, "particles/orientation");
            let p = values::<f32>(&r, f as u64, "particles/angmom");
            assert_eq!(q.len(), 4 * n);
            assert_eq!(p.len(), 4 * n);
            for (i, a) in x.atoms.iter().enumerate() {
                // Boxes and polygons keep their axes (diagonal inertia, or 2D).
                assert_eq!(q[4 * i..4 * i + 4], wxyz(a), "{name} frame {f} body {i}");
            }
        }
        let moments = values::<f32>(&r, 0, "particles/moment_inertia");
        assert_eq!(moments.len(), 3 * n);
        assert!(moments.chunks(3).all(|m| m[2] > 0.0));
        let shapes = strings(&r, "particles/type_shapes");
        let types = strings(&r, "particles/types");
        assert_eq!(types.len(), shapes.len());
        assert!(types
            .iter()
            .all(|t| t.starts_with("box") || t.starts_with("polygon")));
        for s in &shapes {
            assert!(
                s.starts_with(&format!("{{\"type\": \"{polytope}\", \"vertices\": [[")),
                "{s}"
            );
        }
    }
}

#[test]
fn mesh_bodies_are_meshes() {
    let dir = tempdir("gsd-mesh");
    std::fs::copy(
        crate_file("../../scenes", "tumbling-tori.toml"),
        dir.join("tori.toml"),
    )
    .unwrap();
    let (r, xyz) = frames_of(&dir, "tori", &[], "1");
    check_common(&r, &xyz, 1.0, None);
    assert_eq!(strings(&r, "particles/types"), ["mesh", "mesh_1", "mesh_2"]);
    assert_eq!(values::<u32>(&r, 0, "particles/typeid"), [0, 0, 1, 2]);
    for s in strings(&r, "particles/type_shapes") {
        assert!(
            s.starts_with("{\"type\": \"Mesh\", \"vertices\": [["),
            "{s}"
        );
        assert!(s.contains("\"indices\": [[0, "), "{s}");
    }
    assert!(r.find(2, "particles/orientation").is_some());
}

#[test]
fn the_format_follows_the_name_unless_given() {
    let dir = tempdir("gsd-format");
    ok(&kairos(
        &["demo", "--n", "10", "-q", "-o", "t.ktrace"],
        &dir,
    ));
    let gsd_magic = 0x65DF_65DF_65DF_65DFu64.to_le_bytes();
    let head = |name: &str| std::fs::read(dir.join(name)).unwrap()[..8].to_vec();
    for (args, name, is_gsd) in [
        (&[][..], "upper.GSD", true),
        (&["--format", "gsd"][..], "frames.dat", true),
        (&["--format", "xyz"][..], "text.gsd", false),
        (&[][..], "plain.xyz", false),
    ] {
        let mut all = vec!["frames", "t.ktrace", "--every", "1", "-o", name];
        all.extend_from_slice(args);
        ok(&kairos(&all, &dir));
        assert_eq!(head(name) == gsd_magic, is_gsd, "{name}");
    }
    assert!(GsdReader::open(&dir.join("frames.dat")).is_ok());
    let o = kairos(
        &[
            "frames", "t.ktrace", "--every", "1", "-o", "x", "--format", "pdb",
        ],
        &dir,
    );
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("pdb"), "{}", text(&o.stderr));
    // Standard output: refused before any work (a GSD file is written with seeks).
    let o = kairos(
        &[
            "frames",
            "t.ktrace",
            "--every",
            "1",
            "-o",
            "/dev/null",
            "--format",
            "gsd",
        ],
        &dir,
    );
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("written with seeks"),
        "{}",
        text(&o.stderr)
    );
    // A folder that does not exist: an error naming the file, nothing written.
    let o = kairos(
        &["frames", "t.ktrace", "--every", "1", "-o", "no/such/f.gsd"],
        &dir,
    );
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("no/such/f.gsd"),
        "{}",
        text(&o.stderr)
    );
    // A damaged trace: an error, and no GSD file.
    let bytes = std::fs::read(dir.join("t.ktrace")).unwrap();
    std::fs::write(dir.join("cut.ktrace"), &bytes[..bytes.len() - 100]).unwrap();
    let o = kairos(
        &["frames", "cut.ktrace", "--every", "1", "-o", "cut.gsd"],
        &dir,
    );
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("cut.ktrace"),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.join("cut.gsd").exists());
    assert!(
        crate::common::listing(&dir)
            .iter()
            .all(|n| !n.contains("partial")),
        "{:?}",
        crate::common::listing(&dir)
    );
}
