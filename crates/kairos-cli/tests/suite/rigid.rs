//! `kairos run` on scenes with rigid bodies: every broad phase, the momentum drifts of the
//! summary, checkpoints and resumed runs bit-identical to the uninterrupted ones, the
//! refusal of the discrete stepper for a scene with gravity before any output (its checkpoints
//! work), and their version 3 traces read back by `export --final`, `frames` and `diff`.

use crate::common;

use common::{json, kairos, listing, ok, tempdir, text};

use kairos::broad_phase::BroadPhaseKind;

/// A 2D room of four segments with a spinning plank, a spinning triangle and a ball.
const SCENE: &str = r#"
dim = 2
[simulation]
duration = 6.0
[[walls]]
box = { min = [0.0, 0.0], max = [10.0, 10.0] }

[[bodies]]
shape = "box"
half_extents = [2.0, 0.1]
position = [5.0, 5.0]
orientation = 0.3
velocity = [1.5, 0.5]
angular_velocity = 2.0

[[bodies]]
shape = "polygon"
vertices = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
position = [1.0, 1.0]
velocity = [1.0, 2.0]
angular_velocity = -3.0
density = 2.5

[[bodies]]
position = [8.0, 8.0]
velocity = [-1.0, -0.5]
radius = 0.5
mass = 2.0
"#;

/// Writes the scene into a fresh folder.
fn setup(name: &str) -> std::path::PathBuf {
    let dir = tempdir(name);
    std::fs::write(dir.join("rigid.toml"), SCENE).unwrap();
    dir
}

#[test]
fn a_rigid_scene_runs_on_every_broad_phase_with_its_drifts() {
    let dir = setup("rigid-run");
    let mut events = Vec::new();
    for kind in BroadPhaseKind::ALL {
        let o = kairos(
            &[
                "run",
                "rigid.toml",
                "--no-trace",
                "--broad-phase",
                kind.name(),
                "--summary-json",
                "s.json",
            ],
            &dir,
        );
        ok(&o);
        let out = text(&o.stdout);
        assert!(out.contains("momentum drift"), "{out}");
        let s = json(&dir.join("s.json"));
        assert!(s["events"].as_u64().unwrap() > 0, "{s}");
        assert!(s["energy_drift"].as_f64().unwrap().abs() < 1e-9, "{s}");
        // Walls change the momenta: the drifts are there, finite.
        for key in ["momentum_drift", "angular_momentum_drift"] {
            let x = s[key]
                .as_f64()
                .unwrap_or_else(|| panic!("missing {key} in {s}"));
            assert!(x.is_finite() && x >= 0.0, "{key} = {x}");
        }
        events.push(s["events"].as_u64().unwrap());
    }
    assert!(events.windows(2).all(|w| w[0] == w[1]), "{events:?}");
}

#[test]
fn a_ball_scene_reports_its_drifts_too() {
    let dir = tempdir("rigid-balls");
    ok(&kairos(
        &[
            "generate",
            "gas",
            "--dim",
            "2",
            "--n",
            "50",
            "--packing",
            "0.3",
            "--duration",
            "1",
            "-o",
            "gas.toml",
        ],
        &dir,
    ));
    ok(&kairos(
        &[
            "run",
            "gas.toml",
            "--no-trace",
            "-q",
            "--summary-json",
            "s.json",
        ],
        &dir,
    ));
    let s = json(&dir.join("s.json"));
    // A periodic gas conserves its momentum: only round-off.
    assert!(s["momentum_drift"].as_f64().unwrap() < 1e-12, "{s}");
    assert!(s["angular_momentum_drift"].as_f64().is_some(), "{s}");
}

#[test]
fn the_discrete_stepper_is_refused_for_gravity_before_any_output_and_checkpoints_work() {
    let dir = setup("rigid-refusals");
    // The rigid scene with gravity added.
    let path = dir.join("rigid.toml");
    let scene = std::fs::read_to_string(&path).unwrap();
    let gravity = if scene.contains("dim = 3") {
        "[0.0, 0.0, -10.0]"
    } else {
        "[0.0, -10.0]"
    };
    let scene = scene.replacen(
        "[simulation]",
        &format!("[simulation]\ngravity = {gravity}"),
        1,
    );
    std::fs::write(&path, scene).unwrap();
    let refused = |args: &[&str], needle: &str| {
        let o = kairos(args, &dir);
        assert!(!o.status.success(), "{args:?} should fail");
        let err = text(&o.stderr);
        assert!(err.contains("rigid.toml"), "{err}");
        assert!(err.contains(needle), "`{needle}` not in: {err}");
        assert_eq!(listing(&dir), ["rigid.toml"], "{args:?} wrote something");
    };
    refused(
        &[
            "run",
            "rigid.toml",
            "--no-trace",
            "--stepper",
            "discrete",
            "--dt",
            "0.01",
        ],
        "--stepper discrete",
    );
    // Checkpoints save which bodies sleep (version 4): they are not refused.
    ok(&kairos(
        &[
            "run",
            "rigid.toml",
            "-q",
            "--no-trace",
            "--checkpoint",
            "c.kck",
            "--every",
            "1",
        ],
        &dir,
    ));
    let bytes = std::fs::read(dir.join("c.kck")).unwrap();
    assert_eq!(&bytes[8..12], &4u32.to_le_bytes());
}

#[test]
fn generated_rigid_scenes_run() {
    let dir = tempdir("rigid-generate");
    let runs: [&[&str]; 3] = [
        &["polygons", "--n", "30", "--seed", "2", "--duration", "2"],
        &["boxes", "--n", "20", "--spin", "3", "--duration", "2"],
        &["bullet", "--speed", "80", "--duration", "1"],
    ];
    for args in runs {
        let name = format!("{}.toml", args[0]);
        let mut all = vec!["generate"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", &name]);
        ok(&kairos(&all, &dir));
        let first = std::fs::read_to_string(dir.join(&name)).unwrap();
        assert!(
            first.starts_with(&format!("# kairos generate {}", args[0])),
            "{first}"
        );
        assert!(first.contains("shape = "), "{first}");
        ok(&kairos(
            &["run", &name, "--no-trace", "-q", "--summary-json", "s.json"],
            &dir,
        ));
        let s = json(&dir.join("s.json"));
        assert!(s["events"].as_u64().unwrap() > 0, "{name}: {s}");
        assert!(
            s["energy_drift"].as_f64().unwrap().abs() < 1e-9,
            "{name}: {s}"
        );
    }
    // Rigid bodies stay in the TOML file: a bodies file holds balls only.
    let o = kairos(
        &["generate", "bullet", "--bodies-in", "xyz", "-o", "x.toml"],
        &dir,
    );
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--bodies-in xyz cannot hold rigid bodies"));
    assert!(!dir.join("x.toml").exists() && !dir.join("x.xyz").exists());
    // Bad parameters are refused with the reason.
    let o = kairos(
        &[
            "generate",
            "boxes",
            "--n",
            "5",
            "--packing",
            "0.6",
            "-o",
            "y.toml",
        ],
        &dir,
    );
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("packing"), "{}", text(&o.stderr));
}

/// The rows of a CSV file, split at commas, header first.
fn csv(path: &std::path::Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// The simulation of `scene` run to its end in the library: what the trace must replay to.
fn simulated<V: kairos::math::Vector>(scene: &kairos::scene::Scene) -> kairos::world::World<V> {
    let mut sim = kairos::sim::Simulation::new(
        scene.world::<V>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    sim.run(|_, _, _| {});
    sim.world().clone()
}

#[test]
fn a_rigid_run_writes_a_version_3_trace_that_export_replays_bit_for_bit() {
    use kairos::math::{DVec2, Rotation};
    let dir = setup("rigid-trace");
    // Every broad phase writes the same events (the look-ahead aside): `diff` says identical.
    for kind in ["calendar", "all-pairs"] {
        let out = format!("{kind}.ktrace");
        ok(&kairos(
            &["run", "rigid.toml", "-q", "-o", &out, "--broad-phase", kind],
            &dir,
        ));
        let reader = kairos::trace::TraceReader::open(&dir.join(&out)).unwrap();
        assert_eq!(reader.version(), 3);
        assert!(reader.len() > 3, "{}", reader.len());
    }
    let o = kairos(&["diff", "calendar.ktrace", "all-pairs.ktrace"], &dir);
    ok(&o);
    assert!(
        text(&o.stdout).starts_with("identical"),
        "{}",
        text(&o.stdout)
    );
    // The default trace name works too.
    ok(&kairos(&["run", "rigid.toml", "-q"], &dir));

    ok(&kairos(
        &["export", "calendar.ktrace", "--final", "final.csv"],
        &dir,
    ));
    let rows = csv(&dir.join("final.csv"));
    assert_eq!(rows[0], ["id", "x", "y", "vx", "vy", "angle", "omega"]);
    let scene = kairos::scene::Scene::from_toml_str(SCENE).unwrap();
    let world = simulated::<DVec2>(&scene);
    assert_eq!(rows.len(), 1 + world.bodies().len());
    for (i, row) in rows[1..].iter().enumerate() {
        let f = |k: usize| row[k].parse::<f64>().unwrap().to_bits();
        let b = &world.bodies()[i];
        let r = &world.rigid()[i];
        assert_eq!(f(1), b.pos.x.to_bits(), "body {i}: {row:?}");
        assert_eq!(f(2), b.pos.y.to_bits(), "body {i}: {row:?}");
        assert_eq!(f(3), b.vel.x.to_bits(), "body {i}");
        assert_eq!(
            f(5),
            r.rotation.to_array4()[0].to_bits(),
            "body {i}: {row:?}"
        );
        assert_eq!(f(6), r.angular_velocity.to_bits(), "body {i}: {row:?}");
    }
    // The plank turned: its angle is no longer the scene's 0.3.
    assert_ne!(rows[1][5], "0.3");

    ok(&kairos(
        &["frames", "calendar.ktrace", "--every", "1", "-o", "f.xyz"],
        &dir,
    ));
    let xyz = std::fs::read_to_string(dir.join("f.xyz")).unwrap();
    let lines: Vec<&str> = xyz.lines().collect();
    assert!(
        lines[1].contains(
            "Properties=species:S:1:pos:R:3:radius:R:1:vel:R:3:orientation:R:4:angular_velocity:R:3"
        ),
        "{}",
        lines[1]
    );
    // Frame 0, the plank: rotation by 0.3 about z, as x y z w, and ω = (0, 0, 2).
    let cols: Vec<f64> = lines[2]
        .split_whitespace()
        .skip(1)
        .map(|c| c.parse().unwrap())
        .collect();
    assert_eq!(cols.len(), 3 + 1 + 3 + 4 + 3);
    let (s, c) = (0.15f64).sin_cos();
    assert_eq!(&cols[7..14], &[0.0, 0.0, s, c, 0.0, 0.0, 2.0]);
}

#[test]
fn a_3d_rigid_trace_exports_quaternions_and_frames_orientations() {
    use kairos::math::{DVec3, Rotation};
    let dir = tempdir("rigid-trace-3d");
    ok(&kairos(
        &[
            "generate",
            "boxes",
            "--n",
            "12",
            "--spin",
            "3",
            "--duration",
            "2",
            "-o",
            "b.toml",
        ],
        &dir,
    ));
    ok(&kairos(&["run", "b.toml", "-q", "-o", "b.ktrace"], &dir));
    ok(&kairos(
        &["export", "b.ktrace", "--final", "final.csv"],
        &dir,
    ));
    let rows = csv(&dir.join("final.csv"));
    assert_eq!(
        rows[0],
        ["id", "x", "y", "z", "vx", "vy", "vz", "qw", "qx", "qy", "qz", "wx", "wy", "wz"]
    );
    let scene = kairos::scene::Scene::load(&dir.join("b.toml")).unwrap();
    let world = simulated::<DVec3>(&scene);
    for (i, row) in rows[1..].iter().enumerate() {
        let f = |k: usize| row[k].parse::<f64>().unwrap().to_bits();
        let r = &world.rigid()[i];
        let q = r.rotation.to_array4();
        let w = r.angular_velocity.to_array();
        for (k, x) in q.iter().enumerate() {
            assert_eq!(f(7 + k), x.to_bits(), "body {i}: {row:?}");
        }
        let pos = world.bodies()[i].pos.to_array();
        for (k, (x, p)) in w.iter().zip(pos).enumerate() {
            assert_eq!(f(11 + k), x.to_bits(), "body {i}: {row:?}");
            assert_eq!(f(1 + k), p.to_bits(), "body {i}");
        }
    }
    ok(&kairos(
        &["frames", "b.ktrace", "--every", "0.5", "-o", "f.xyz"],
        &dir,
    ));
    let xyz = std::fs::read_to_string(dir.join("f.xyz")).unwrap();
    let lines: Vec<&str> = xyz.lines().collect();
    assert!(
        lines[1].contains(":orientation:R:4:angular_velocity:R:3"),
        "{}",
        lines[1]
    );
    // Five frames (0 to 2 every 0.5) of the scene's bodies, each named by ASE's dummy atom.
    let atoms: Vec<&str> = xyz.lines().filter(|l| l.starts_with("X ")).collect();
    assert_eq!(atoms.len(), 5 * scene.bodies.len(), "{}", lines[2]);
    for line in atoms {
        let cols: Vec<f64> = line
            .split_whitespace()
            .skip(1)
            .map(|c| c.parse().unwrap())
            .collect();
        let norm: f64 = cols[7..11].iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-9, "{line}");
    }
}

/// Every `<path d="M ... Z"/>` of an SVG as its points.
fn paths(svg: &str) -> Vec<Vec<[f64; 2]>> {
    svg.split("<path d=\"M ")
        .skip(1)
        .map(|p| {
            let d = &p[..p.find(" Z").unwrap()];
            d.split(" L ")
                .map(|xy| {
                    let v: Vec<f64> = xy.split(' ').map(|c| c.parse().unwrap()).collect();
                    [v[0], v[1]]
                })
                .collect()
        })
        .collect()
}

#[test]
fn snapshot_draws_rigid_bodies_as_their_turned_outlines() {
    let dir = setup("rigid-snapshot");
    ok(&kairos(
        &["run", "rigid.toml", "-q", "-o", "t.ktrace"],
        &dir,
    ));
    ok(&kairos(
        &["snapshot", "t.ktrace", "--time", "0", "-o", "t0.svg"],
        &dir,
    ));
    let svg = std::fs::read_to_string(dir.join("t0.svg")).unwrap();
    // The plank and the triangle as outlines, the ball as its circle.
    let shapes = paths(&svg);
    assert_eq!(shapes.len(), 2, "{svg}");
    assert_eq!(svg.matches("<circle ").count(), 1, "{svg}");
    // The plank: a 4 x 0.2 box at (5, 5) turned by 0.3, its four corners exactly.
    let (s, c) = 0.3f64.sin_cos();
    let corners: Vec<[f64; 2]> = [[2.0, 0.1], [-2.0, 0.1], [-2.0, -0.1], [2.0, -0.1]]
        .iter()
        .map(|[x, y]| [5.0 + c * x - s * y, 5.0 + s * x + c * y])
        .collect();
    assert_eq!(shapes[0].len(), 4, "{:?}", shapes[0]);
    for p in &shapes[0] {
        assert!(
            corners
                .iter()
                .any(|q| (p[0] - q[0]).abs() < 1e-12 && (p[1] - q[1]).abs() < 1e-12),
            "{p:?} is not a corner of {corners:?}"
        );
    }
    assert_eq!(shapes[1].len(), 3, "{:?}", shapes[1]);
    // Later, the plank has turned: its outline differs.
    ok(&kairos(
        &["snapshot", "t.ktrace", "--time", "1.5", "-o", "t1.svg"],
        &dir,
    ));
    let later = paths(&std::fs::read_to_string(dir.join("t1.svg")).unwrap());
    assert_eq!(later.len(), 2);
    assert_ne!(later[0], shapes[0]);

    // 3D: cubes drawn as the outlines of their projections (4 to 6 corners each).
    ok(&kairos(
        &[
            "generate",
            "boxes",
            "--n",
            "8",
            "--spin",
            "3",
            "--duration",
            "1",
            "-o",
            "b.toml",
        ],
        &dir,
    ));
    ok(&kairos(&["run", "b.toml", "-q", "-o", "b.ktrace"], &dir));
    ok(&kairos(
        &[
            "snapshot", "b.ktrace", "--time", "0.5", "--axes", "xz", "-o", "b.svg",
        ],
        &dir,
    ));
    let outlines = paths(&std::fs::read_to_string(dir.join("b.svg")).unwrap());
    assert_eq!(outlines.len(), 8);
    assert!(
        outlines.iter().all(|o| (4..=6).contains(&o.len())),
        "{outlines:?}"
    );
}

/// A 3D room of boxes with three unequal half extents (anisotropic inertia: they tumble by
/// the closed-form free rotation between events).
const TUMBLING: &str = r#"
dim = 3
[simulation]
duration = 40.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [7.0, 7.0, 7.0] }
[[bodies]]
shape = "box"
half_extents = [0.9, 0.5, 0.25]
position = [2.0, 2.0, 2.0]
orientation = [0.9, 0.1, 0.3, 0.2]
velocity = [1.5, 0.7, -0.4]
angular_velocity = [0.3, 2.0, 0.1]
[[bodies]]
shape = "box"
half_extents = [0.6, 0.3, 0.2]
position = [5.0, 4.5, 4.5]
velocity = [-1.0, -0.6, 0.9]
angular_velocity = [1.0, 0.2, 1.5]
[[bodies]]
shape = "box"
half_extents = [0.7, 0.45, 0.3]
position = [2.0, 5.0, 5.0]
orientation = [0.5, -0.5, 0.5, 0.5]
velocity = [0.8, -1.2, 0.3]
angular_velocity = [-1.5, 0.5, 0.7]
[[bodies]]
position = [5.0, 2.0, 5.0]
velocity = [-0.5, 1.0, -1.0]
radius = 0.5
"#;

/// `kairos run` of `scene` uninterrupted, and again with checkpoints every `every` resumed on
/// another broad phase: the events after the checkpoint are the uninterrupted run's bit for
/// bit, and the resumed trace's `export --final` is the full trace's, byte for byte.
fn resumes_bit_identically(dir: &std::path::Path, scene: &str, every: &str) {
    use kairos::trace::TraceReader;
    ok(&kairos(
        &[
            "run",
            scene,
            "-q",
            "-o",
            "full.ktrace",
            "--checkpoint",
            "ck.bin",
            "--every",
            every,
        ],
        dir,
    ));
    ok(&kairos(
        &[
            "run",
            "--resume",
            "ck.bin",
            "-q",
            "-o",
            "rest.ktrace",
            "--broad-phase",
            "kaya-bvh",
        ],
        dir,
    ));
    let (_, full) = TraceReader::open(&dir.join("full.ktrace"))
        .unwrap()
        .read_all()
        .unwrap();
    let rest = TraceReader::open(&dir.join("rest.ktrace")).unwrap();
    assert_eq!(rest.version(), 3);
    let (_, rest) = rest.read_all().unwrap();
    let ck = kairos::checkpoint::read(&dir.join("ck.bin")).unwrap();
    let done = (ck.state.counts.body_body + ck.state.counts.body_wall) as usize;
    assert!(done > 10 && rest.len() > 10, "{done} / {}", rest.len());
    assert_eq!(full.len(), done + rest.len());
    for (k, (x, y)) in full[done..].iter().zip(&rest).enumerate() {
        assert!(x.same_event(y), "event {k} after the checkpoint differs");
    }
    for t in ["full", "rest"] {
        ok(&kairos(
            &[
                "export",
                &format!("{t}.ktrace"),
                "--final",
                &format!("{t}.csv"),
            ],
            dir,
        ));
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("full.csv")).unwrap(),
        std::fs::read_to_string(dir.join("rest.csv")).unwrap()
    );
}

#[test]
fn a_resumed_2d_polygon_run_is_the_uninterrupted_run() {
    let dir = tempdir("rigid-resume-2d");
    ok(&kairos(
        &[
            "generate",
            "polygons",
            "--n",
            "30",
            "--seed",
            "3",
            "--duration",
            "90",
            "-o",
            "p.toml",
        ],
        &dir,
    ));
    // Past local time 64, where the time origin moves.
    resumes_bit_identically(&dir, "p.toml", "70");
}

#[test]
fn a_resumed_run_of_tumbling_boxes_is_the_uninterrupted_run() {
    let dir = tempdir("rigid-resume-3d");
    std::fs::write(dir.join("t.toml"), TUMBLING).unwrap();
    resumes_bit_identically(&dir, "t.toml", "25");
}

#[test]
fn damaged_rigid_checkpoints_are_refused_naming_the_file() {
    let dir = setup("rigid-resume-bad");
    ok(&kairos(
        &[
            "run",
            "rigid.toml",
            "--no-trace",
            "-q",
            "--checkpoint",
            "ck.bin",
            "--every",
            "2",
        ],
        &dir,
    ));
    let bytes = std::fs::read(dir.join("ck.bin")).unwrap();
    assert_eq!(&bytes[8..12], &3u32.to_le_bytes());
    std::fs::write(dir.join("cut.bin"), &bytes[..bytes.len() - 100]).unwrap();
    let mut flipped = bytes.clone();
    flipped[bytes.len() - 60] ^= 1;
    std::fs::write(dir.join("flip.bin"), &flipped).unwrap();
    // A rotation made not a rotation, the hash made to match: the states' checks refuse it.
    let mut sealed = bytes.clone();
    let body = sealed.len() - 16;
    let rotation0 = body - 3 * 248 + 136;
    sealed[rotation0..rotation0 + 8].copy_from_slice(&f64::NAN.to_le_bytes());
    let h = kairos::hash::Fnv1a::of(&sealed[..body]).to_le_bytes();
    sealed[body + 8..].copy_from_slice(&h);
    std::fs::write(dir.join("sealed.bin"), &sealed).unwrap();
    for (name, needle) in [
        ("cut.bin", "truncated"),
        ("flip.bin", "hash"),
        ("sealed.bin", "rotation"),
    ] {
        let o = kairos(&["run", "--resume", name, "--no-trace"], &dir);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = text(&o.stderr);
        assert!(
            err.contains(name) && err.contains("checkpoint") && err.contains(needle),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Balls and a box in a room with a static tilted box: `run` hits the static box, `snapshot`
/// draws it as its turned outline and `view` writes its page; a 3D scene with a static
/// cylinder runs and draws too.
#[test]
fn scenes_with_static_shape_walls_run_and_draw() {
    let dir = tempdir("rigid-static-shapes");
    let scene = r#"
dim = 2
[simulation]
duration = 8.0
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

[[bodies]]
shape = "box"
half_extents = [0.3, 0.3]
position = [2.0, 5.0]
velocity = [1.0, -1.0]
"#;
    std::fs::write(dir.join("s.toml"), scene).unwrap();
    ok(&kairos(&["run", "s.toml", "-q", "-o", "s.ktrace"], &dir));
    ok(&kairos(&["export", "s.ktrace", "--events", "e.csv"], &dir));
    let events = csv(&dir.join("e.csv"));
    let on_box = events
        .iter()
        .skip(1)
        .filter(|row| row[1].contains("wall") && row[3] == "4")
        .count();
    assert!(on_box >= 2, "{events:?}");
    ok(&kairos(
        &["snapshot", "s.ktrace", "--time", "1", "-o", "s.svg"],
        &dir,
    ));
    let svg = std::fs::read_to_string(dir.join("s.svg")).unwrap();
    let polygon = svg
        .split("<polygon points=\"")
        .nth(1)
        .and_then(|p| p.split('"').next())
        .unwrap_or_else(|| panic!("no wall outline in {svg}"));
    let points: Vec<[f64; 2]> = polygon
        .split(' ')
        .map(|xy| {
            let v: Vec<f64> = xy.split(',').map(|c| c.parse().unwrap()).collect();
            [v[0], v[1]]
        })
        .collect();
    let (s, c) = 0.3f64.sin_cos();
    let corners: Vec<[f64; 2]> = [[1.0, 0.2], [-1.0, 0.2], [-1.0, -0.2], [1.0, -0.2]]
        .iter()
        .map(|[x, y]| [5.0 + c * x - s * y, 3.0 + s * x + c * y])
        .collect();
    assert_eq!(points.len(), 4, "{points:?}");
    for p in &points {
        assert!(
            corners
                .iter()
                .any(|q| (p[0] - q[0]).abs() < 1e-12 && (p[1] - q[1]).abs() < 1e-12),
            "{p:?} is not a corner of {corners:?}"
        );
    }
    ok(&kairos(&["view", "s.ktrace", "-o", "s.html"], &dir));
    assert!(std::fs::metadata(dir.join("s.html")).unwrap().len() > 0);
    // Its checkpoint holds the wall's table: the resumed run is the uninterrupted one.
    let mut busy = scene.replace("duration = 8.0", "duration = 30.0");
    for (k, (x, y)) in [(1.0, 1.0), (9.0, 1.0), (1.0, 9.0), (9.0, 9.0), (8.0, 5.0)]
        .iter()
        .enumerate()
    {
        busy.push_str(&format!(
            "\n[[bodies]]\nposition = [{x:?}, {y:?}]\nvelocity = [{:?}, 1.3]\nradius = 0.3\nmass = 1.0\n",
            1.0 - 0.4 * k as f64
        ));
    }
    std::fs::write(dir.join("busy.toml"), busy).unwrap();
    resumes_bit_identically(&dir, "busy.toml", "15");

    let scene3 = r#"
dim = 3
[simulation]
duration = 4.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [6.0, 6.0, 6.0] }
[[walls]]
shape = "cylinder"
half_height = 1.0
radius = 0.7
position = [3.0, 3.0, 3.0]
orientation = [0.94, 0.34, 0.0, 0.0]

[[bodies]]
position = [1.0, 1.0, 1.0]
velocity = [1.0, 1.0, 1.0]
radius = 0.3
mass = 1.0
"#;
    std::fs::write(dir.join("c.toml"), scene3).unwrap();
    ok(&kairos(&["run", "c.toml", "-q", "-o", "c.ktrace"], &dir));
    ok(&kairos(&["export", "c.ktrace", "--events", "c.csv"], &dir));
    let events = csv(&dir.join("c.csv"));
    assert!(events.iter().skip(1).any(|row| row[3] == "6"), "{events:?}");
    for axes in ["xy", "xz"] {
        ok(&kairos(
            &[
                "snapshot", "c.ktrace", "--time", "2", "--axes", axes, "-o", "c.svg",
            ],
            &dir,
        ));
        let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
        // The room's six faces and the cylinder's outline.
        assert_eq!(svg.matches("<polygon ").count(), 7, "{svg}");
    }
    ok(&kairos(&["view", "c.ktrace", "-o", "c.html"], &dir));
}

/// A gas of concave stars (compound bodies): generated, run with its drifts at round-off,
/// checkpointed and resumed bit for bit, and drawn with each star's own outline (its notches,
/// not its hull).
#[test]
fn concave_polygons_run_resume_and_draw_their_own_outline() {
    let dir = tempdir("rigid-concave");
    ok(&kairos(
        &[
            "generate",
            "polygons",
            "--n",
            "30",
            "--seed",
            "3",
            "--concave",
            "1",
            "--speed",
            "2",
            "--duration",
            "4",
            "-o",
            "stars.toml",
        ],
        &dir,
    ));
    ok(&kairos(
        &[
            "run",
            "stars.toml",
            "-o",
            "a.ktrace",
            "-q",
            "--summary-json",
            "a.json",
        ],
        &dir,
    ));
    let a = json(&dir.join("a.json"));
    assert!(a["events"].as_u64().unwrap() > 20, "{a}");
    assert!(a["energy_drift"].as_f64().unwrap().abs() < 1e-12, "{a}");
    // Checkpointed and resumed on another broad phase: the same events.
    resumes_bit_identically(&dir, "stars.toml", "2");
    ok(&kairos(
        &["snapshot", "a.ktrace", "--time", "2", "-o", "s.svg"],
        &dir,
    ));
    let svg = std::fs::read_to_string(dir.join("s.svg")).unwrap();
    let outlines: Vec<usize> = svg
        .lines()
        .filter(|l| l.starts_with("<path d=\"M"))
        .map(|l| l.matches(" L ").count() + 1)
        .collect();
    assert_eq!(outlines.len(), 30, "{svg}");
    // A star of k spikes has 2k corners; its hull would have k.
    assert!(outlines.iter().all(|&n| n >= 6), "{outlines:?}");
}

/// The README's mesh demo: it runs, resumes from a checkpoint bit for bit on another broad
/// phase, and is drawn by `view` and `snapshot`; a mesh that is not closed is refused with
/// exit code 2, naming the file, the body and the edge, before any output.
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn the_mesh_demo_runs_resumes_and_draws_and_an_open_mesh_is_refused() {
    let dir = tempdir("rigid-meshes");
    let demo = std::fs::read_to_string(common::crate_file("../../scenes", "tumbling-tori.toml"));
    let longer = demo.unwrap().replace("duration = 4.0", "duration = 12.0");
    std::fs::write(dir.join("tori.toml"), longer).unwrap();
    resumes_bit_identically(&dir, "tori.toml", "6.5");
    ok(&kairos(&["view", "full.ktrace", "-o", "tori.html"], &dir));
    ok(&kairos(
        &["snapshot", "full.ktrace", "--time", "2", "-o", "tori.svg"],
        &dir,
    ));
    let svg = std::fs::read_to_string(dir.join("tori.svg")).unwrap();
    assert!(svg.matches("<path").count() >= 8, "{svg}");
    // Each mesh's edges over its outline.
    assert_eq!(svg.matches(r#"class="wireframe""#).count(), 4);
    std::fs::write(
        dir.join("open.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 4\nf 2 3 4\nf 3 1 4\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("open.toml"),
        "dim = 3\n[simulation]\nduration = 1.0\n[[bodies]]\nshape = \"mesh\"\n\
         mesh = \"open.obj\"\nposition = [0.0, 0.0, 0.0]\n",
    )
    .unwrap();
    let o = kairos(&["run", "open.toml", "-o", "open.ktrace"], &dir);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("open.toml") && e.contains("body 0") && e.contains("not closed"),
        "{e}"
    );
    assert!(!dir.join("open.ktrace").exists());
}
