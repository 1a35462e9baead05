//! `kairos run --stepper stepped`: the stepped engine from the command line, its trace read by
//! the other tools, its summary, and its refusals.

use crate::common::{crate_file, json, kairos, ok, tempdir, text};

const DT: &str = "0.016666666666666666";

/// The final positions of a trace (`export --final`), per body.
fn final_positions(dir: &std::path::Path, trace: &str, dim: usize) -> Vec<Vec<f64>> {
    ok(&kairos(&["export", "--final", "final.csv", trace], dir));
    std::fs::read_to_string(dir.join("final.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .skip(1)
                .take(dim)
                .map(|x| x.parse().unwrap())
                .collect()
        })
        .collect()
}

/// A 2D pyramid and a 3D tower stand through a stepped run: the trace's final states (read
/// back by `export --final`) are where the boxes started, to 1% of a box; the summary gives the
/// steps, the solver's counts and a warm-start hit rate near 1; the trace repeats bit for bit
/// and is the same with every discrete broad phase.
#[test]
fn a_stepped_run_holds_stacks_and_writes_a_trace_the_tools_read() {
    let dir = tempdir("stepped-run");
    for (gen, dim) in [
        (vec!["pyramid", "--base", "6"], 2),
        (vec!["stack", "--n", "5", "--dim", "3"], 3),
    ] {
        let mut cmd = vec!["generate"];
        cmd.extend_from_slice(&gen);
        cmd.extend_from_slice(&["--duration", "2", "-o", "s.toml"]);
        ok(&kairos(&cmd, &dir));
        let scene = kairos::scene::Scene::load(&dir.join("s.toml")).unwrap();
        let run = |broad: &str, out: &str| {
            ok(&kairos(
                &[
                    "run",
                    "s.toml",
                    "-q",
                    "--stepper",
                    "stepped",
                    "--dt",
                    DT,
                    "--broad-phase",
                    broad,
                    "-o",
                    out,
                    "--summary-json",
                    "s.json",
                ],
                &dir,
            ));
            json(&dir.join("s.json"))
        };
        let s = run("sap", "a.ktrace");
        assert_eq!(s["stepper"], "stepped");
        assert_eq!(s["stepped"]["steps"], 120);
        assert_eq!(s["stepped"]["substeps"], 4);
        assert_eq!(s["stepped"]["solver_sweeps"], 120 * 4 * 4);
        assert!(s["stepped"]["kept_points"].as_u64().unwrap() > 0, "{s}");
        assert!(
            s["stepped"]["warm_start_hit_rate"].as_f64().unwrap() > 0.95,
            "{s}"
        );
        assert!(s["body_wall"].as_u64().unwrap() > 0, "{s}");
        let hash = s["trace_hash"].clone();
        let end = final_positions(&dir, "a.ktrace", dim);
        assert_eq!(end.len(), scene.bodies.len());
        for (b, e) in scene.bodies.iter().zip(&end) {
            let d: f64 = b
                .position
                .iter()
                .zip(e)
                .map(|(x, y)| (x - y) * (x - y))
                .sum::<f64>()
                .sqrt();
            assert!(d < 0.01, "{gen:?}: a box moved by {d}");
        }
        for broad in ["sap", "grid", "brute-force", "bvh", "sort-sweep", "dbvt"] {
            assert_eq!(run(broad, "b.ktrace")["trace_hash"], hash, "{broad}");
        }
        // The viewer and the snapshot read it.
        ok(&kairos(
            &["snapshot", "a.ktrace", "--time", "1.0", "-o", "a.svg"],
            &dir,
        ));
        ok(&kairos(&["view", "a.ktrace", "-o", "a.html"], &dir));
    }
}

/// What the stepped engine cannot take is refused with the option or the scene named, before
/// any output is written.
#[test]
fn a_stepped_run_refuses_what_it_cannot_do() {
    let dir = tempdir("stepped-refusals");
    ok(&kairos(
        &["generate", "stack", "--n", "2", "-o", "s.toml"],
        &dir,
    ));
    let refused = |args: &[&str], says: &str| {
        let o = kairos(args, &dir);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = text(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!dir.join("x.ktrace").exists(), "{args:?} left a trace");
    };
    let base = ["run", "s.toml", "-o", "x.ktrace", "--stepper", "stepped"];
    let with = |more: &[&str]| -> Vec<String> {
        base.iter()
            .chain(more)
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    let call = |more: &[&str], says: &str| {
        let args = with(more);
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        refused(&args, says);
    };
    call(&[], "--dt");
    call(&["--dt", "0"], "dt must be positive");
    call(
        &["--dt", DT, "--iterations", "0"],
        "iterations must be from 1 to 10,000",
    );
    call(
        &["--dt", DT, "--iterations", "4294967295"],
        "iterations must be from 1 to 10,000",
    );
    call(
        &["--dt", DT, "--substeps", "0"],
        "substeps must be from 1 to 10,000",
    );
    call(&["--dt", "1e200"], "longer than the scene's duration");
    call(&["--dt", DT, "--max-events", "1"], "--max-events needs");
    call(&["--dt", DT, "--sample", "0"], "--sample");
    call(&["--dt", DT, "--toi-rewind"], "--toi-rewind");
    call(&["--dt", DT, "--checkpoint", "c.kchk"], "--checkpoint");
    refused(
        &["run", "s.toml", "-o", "x.ktrace", "--iterations", "4"],
        "--stepper stepped",
    );
    // Meshes.
    let tori = crate_file("../../scenes", "tumbling-tori.toml");
    refused(
        &[
            "run",
            &tori,
            "-o",
            "x.ktrace",
            "--stepper",
            "stepped",
            "--dt",
            DT,
        ],
        "mesh",
    );
}

/// A step that does not divide the duration: whole steps, the last ending less than a step
/// after the duration, and a trace the tools read.
#[test]
fn a_stepped_run_takes_whole_steps() {
    let dir = tempdir("stepped-whole-steps");
    ok(&kairos(
        &[
            "generate",
            "stack",
            "--n",
            "2",
            "--duration",
            "2",
            "-o",
            "s.toml",
        ],
        &dir,
    ));
    for (dt, steps) in [("0.3", 7), ("1.5", 2), ("2", 1), (DT, 120)] {
        let o = kairos(
            &[
                "run",
                "s.toml",
                "-q",
                "-o",
                "w.ktrace",
                "--stepper",
                "stepped",
                "--dt",
                dt,
                "--summary-json",
                "w.json",
            ],
            &dir,
        );
        ok(&o);
        assert_eq!(
            json(&dir.join("w.json"))["stepped"]["steps"],
            steps,
            "--dt {dt}"
        );
        ok(&kairos(&["export", "w.ktrace", "--final", "f.csv"], &dir));
    }
}

/// `kairos run SCENE --stepper stepped --dt DT` in `dir` with the options `more`, writing
/// `b.ktrace`: its summary.
fn stepped_run(dir: &std::path::Path, scene: &str, more: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "run",
        scene,
        "-q",
        "-o",
        "b.ktrace",
        "--stepper",
        "stepped",
        "--dt",
        DT,
        "--summary-json",
        "s.json",
    ];
    args.extend_from_slice(more);
    ok(&kairos(&args, dir));
    json(&dir.join("s.json"))
}

/// The `bullet` scene: at 100 to 10,000 units/s every body stays in the room with the
/// continuous check (checked on the trace's final states); at 3,000 units/s with `--no-ccd`
/// the bullets pass through the plank, each other and the walls, and the summary counts them.
#[test]
fn stepped_bullets_stay_in_the_room_and_without_the_check_tunnel() {
    let dir = tempdir("stepped-bullets");
    let run = |speed: &str, more: &[&str]| {
        ok(&kairos(
            &["generate", "bullet", "--speed", speed, "-o", "b.toml"],
            &dir,
        ));
        stepped_run(&dir, "b.toml", more)
    };
    for speed in ["100", "1000", "3000", "10000"] {
        let on = run(speed, &[]);
        assert!(on["body_body"].as_u64().unwrap() > 0, "{on}");
        assert!(on["stepped"]["ccd_impacts"].as_u64().unwrap() > 0, "{on}");
        for p in final_positions(&dir, "b.ktrace", 2) {
            assert!(
                (0.0..=40.0).contains(&p[0]) && (0.0..=20.0).contains(&p[1]),
                "speed {speed}: a body left the room: {p:?}"
            );
        }
    }
    let off = run("3000", &["--no-ccd"]);
    assert!(off["missed_collisions"].as_u64().unwrap() > 0, "{off}");
    assert_eq!(off["stepped"]["ccd"], false);
}

/// A scene of plain balls (no `shape`) runs as rigid balls: the billiard of 256 balls in its
/// box, every ball still in the box at the end, contacts recorded, none tunnelled.
#[test]
fn a_stepped_run_takes_plain_balls_as_rigid_balls() {
    let dir = tempdir("stepped-balls");
    let balls = crate_file("../../scenes", "billiard-256.toml");
    let s = stepped_run(&dir, &balls, &[]);
    assert!(s["body_body"].as_u64().unwrap() > 1000, "{s}");
    assert_eq!(s["stepped"]["tunnelled_pairs"], 0, "{s}");
    let side = 60.4759276947875;
    let finals = final_positions(&dir, "b.ktrace", 2);
    assert_eq!(finals.len(), 256);
    for p in finals {
        assert!(
            (0.0..=side).contains(&p[0]) && (0.0..=side).contains(&p[1]),
            "a ball left the box: {p:?}"
        );
    }
}

/// A run whose energy at the start is 0 (a ball at rest at the origin's height, under
/// gravity) reports its drift as absolute: relative to 0 it printed 2.5e299.
#[test]
fn a_stepped_drift_from_zero_energy_is_absolute() {
    let dir = tempdir("stepped-zero-energy");
    std::fs::write(
        dir.join("z.toml"),
        "dim = 2\n[simulation]\nduration = 1.0\ngravity = [0.0, -10.0]\n\
         [[walls]]\nplane = { point = [0.0, -0.5], normal = [0.0, 1.0] }\n\
         [[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.5]\nposition = [0.0, 0.0]\n\
         velocity = [0.0, 0.0]\n\
         [[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.5]\nposition = [3.0, 0.0]\n\
         velocity = [1.0, 0.0]\n",
    )
    .unwrap();
    // The second box makes the start's energy 0.5 (kinetic): relative.
    let s = stepped_run(&dir, "z.toml", &[]);
    assert_eq!(s["energy_drift_absolute"], false, "{s}");
    std::fs::write(
        dir.join("z.toml"),
        "dim = 2\n[simulation]\nduration = 1.0\ngravity = [0.0, -10.0]\n\
         [[walls]]\nplane = { point = [0.0, -0.5], normal = [0.0, 1.0] }\n\
         [[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.5]\nposition = [0.0, 0.0]\n\
         velocity = [0.0, 0.0]\n",
    )
    .unwrap();
    let s = stepped_run(&dir, "z.toml", &[]);
    assert_eq!(s["energy_drift_absolute"], true, "{s}");
    let drift = s["energy_drift"].as_f64().unwrap();
    assert!(drift < 1.0, "{s}");
    let o = kairos(
        &[
            "run",
            "z.toml",
            "-o",
            "b.ktrace",
            "--stepper",
            "stepped",
            "--dt",
            DT,
        ],
        &dir,
    );
    ok(&o);
    let out = text(&o.stdout);
    assert!(
        out.contains("(absolute: the energy at the start is 0)"),
        "{out}"
    );
}

/// `demo` and `run` take plain balls to the stepped engine by one rule (as rigid balls): the
/// demo refused what `run` accepted.
#[test]
fn demo_and_run_take_plain_balls_to_the_stepped_engine_alike() {
    let dir = tempdir("stepped-demo");
    let o = kairos(
        &[
            "demo",
            "--n",
            "20",
            "-q",
            "-o",
            "d.ktrace",
            "--stepper",
            "stepped",
            "--dt",
            DT,
            "--summary-json",
            "d.json",
        ],
        &dir,
    );
    ok(&o);
    let s = json(&dir.join("d.json"));
    assert_eq!(s["stepper"], "stepped", "{s}");
    assert!(s["body_wall"].as_u64().unwrap() > 0, "{s}");
    // The demo's trace reads, and replays to frames.
    ok(&kairos(
        &["frames", "d.ktrace", "--every", "1", "-o", "f.xyz"],
        &dir,
    ));
    // The same balls through `run`: the same summary counts.
    ok(&kairos(
        &[
            "generate", "billiard", "--n", "20", "--seed", "1", "-o", "b.toml",
        ],
        &dir,
    ));
    let r = stepped_run(&dir, "b.toml", &[]);
    assert_eq!(r["body_wall"], s["body_wall"], "{r}\n{s}");
    assert_eq!(r["body_body"], s["body_body"], "{r}\n{s}");
}

/// SIGINT within a step of many sub-steps: the run stops between sub-steps (a step of 10,000
/// sub-steps on the pyramid of base 100 takes about a minute), exits with 130 and leaves
/// nothing but the scene.
#[cfg(unix)]
#[test]
fn a_stepped_run_stops_within_a_step_at_a_signal() {
    let dir = tempdir("stepped-interrupt");
    ok(&kairos(
        &[
            "generate",
            "pyramid",
            "--base",
            "100",
            "--duration",
            "1",
            "-o",
            "p.toml",
        ],
        &dir,
    ));
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "run",
            "p.toml",
            "-q",
            "-o",
            "p.ktrace",
            "--summary-json",
            "p.json",
            "--stepper",
            "stepped",
            "--dt",
            "0.5",
            "--substeps",
            "10000",
        ])
        .current_dir(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Into the first step: the trace's partial file is open.
    let started = std::time::Instant::now();
    while !std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().contains(".partial-"))
    {
        assert!(started.elapsed().as_secs() < 120, "the run never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let signalled = std::time::Instant::now();
    let o = child.wait_with_output().unwrap();
    let waited = signalled.elapsed().as_secs_f64();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("interrupted (SIGINT): stopped at t = 0 of 1"),
        "{}",
        text(&o.stderr)
    );
    // Two steps of 10,000 sub-steps of 5,050 boxes: minutes; between sub-steps, at once.
    assert!(waited < 20.0, "stopped {waited:.1} s after the signal");
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["p.toml"], "partial outputs left");
}

/// Writes `text` as `name` in `dir` and runs it stepped at `dt`: the summary, and whether
/// every body ends inside the box `[0, side]²`.
fn stepped_in_room(
    dir: &std::path::Path,
    name: &str,
    text: &str,
    dt: &str,
    side: f64,
) -> (serde_json::Value, bool) {
    std::fs::write(dir.join(name), text).unwrap();
    let args = [
        "run",
        name,
        "-q",
        "-o",
        "b.ktrace",
        "--stepper",
        "stepped",
        "--dt",
        dt,
        "--summary-json",
        "s.json",
    ];
    ok(&kairos(&args, dir));
    let inside = final_positions(dir, "b.ktrace", 2)
        .iter()
        .all(|p| p.iter().all(|x| (0.0..=side).contains(x)));
    (json(&dir.join("s.json")), inside)
}

/// The edges of the continuous check: one box at 10^6 units/s in a box room (it bounces about
/// a hundred times a sub-step), a box at 10^12 onto a resting box, a box under one 10^6 times
/// heavier on the floor (the sweeps cannot hold the light one), a plank of tiny inertia on the
/// floor, and the `bullet` room at 10^5 units/s at two steps: every body ends in the room, no
/// pass-through is counted, and where the check gave up (stopped bodies where they touched) the
/// run says so.
#[test]
fn the_stepped_check_holds_at_the_edges() {
    let dir = tempdir("stepped-edges");
    let room = "[[walls]]\nbox = { min = [0, 0], max = [20, 20] }\n";
    let cases = [
        (
            "fast.toml",
            format!(
                "dim = 2\n[simulation]\nduration = 2.0\nrestitution = 1.0\n{room}\
                 [[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.5]\nposition = [10.0, 10.0]\n\
                 velocity = [1e6, 3e5]\nangular_velocity = 10.0\n"
            ),
            "0.01",
        ),
        (
            "onto.toml",
            format!(
                "dim = 2\n[simulation]\nduration = 2.0\ngravity = [0.0, -9.81]\nfriction = 0.5\n\
                 {room}[[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.5]\n\
                 position = [10.0, 0.5]\n[[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.5]\n\
                 position = [10.0, 10.0]\nvelocity = [0.0, -1e12]\n"
            ),
            DT,
        ),
        (
            "heavy.toml",
            format!(
                "dim = 2\n[simulation]\nduration = 2.0\ngravity = [0.0, -9.81]\nfriction = 0.5\n\
                 {room}[[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.5]\n\
                 position = [10.0, 0.5]\n[[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.5]\n\
                 position = [10.0, 1.5]\nmass = 1e6\n"
            ),
            "0.01",
        ),
    ];
    for (name, scene, dt) in &cases {
        let (s, inside) = stepped_in_room(&dir, name, scene, dt, 20.0);
        assert!(inside, "{name}: a body left the room: {s}");
        assert_eq!(s["stepped"]["tunnelled_pairs"], 0, "{name}: {s}");
    }
    // The heavy box's stack: the check stops the light box where it touches, and says so.
    let o = kairos(
        &[
            "run",
            "heavy.toml",
            "-o",
            "h.ktrace",
            "--stepper",
            "stepped",
            "--dt",
            "0.01",
        ],
        &dir,
    );
    ok(&o);
    assert!(
        text(&o.stderr).contains("warning: the continuous check gave up"),
        "{}",
        text(&o.stderr)
    );
    // A plank of tiny inertia rests on the floor (a plane): its two corners are solved as a
    // block (it sank through before).
    std::fs::write(
        dir.join("plank.toml"),
        "dim = 2\n[simulation]\nduration = 2.0\ngravity = [0.0, -9.81]\nfriction = 0.5\n\
         [[walls]]\nplane = { point = [0.0, 0.0], normal = [0.0, 1.0] }\n\
         [[bodies]]\nshape = \"box\"\nhalf_extents = [2.0, 0.1]\n\
         position = [10.0, 0.1]\ninertia = 1e-9\n",
    )
    .unwrap();
    let o = kairos(
        &[
            "run",
            "plank.toml",
            "-o",
            "p.ktrace",
            "--stepper",
            "stepped",
            "--dt",
            "0.01",
            "--summary-json",
            "p.json",
        ],
        &dir,
    );
    ok(&o);
    assert!(!text(&o.stderr).contains("warning"), "{}", text(&o.stderr));
    assert_eq!(json(&dir.join("p.json"))["stepped"]["tunnelled_pairs"], 0);
    let end = final_positions(&dir, "p.ktrace", 2);
    assert!(
        (end[0][1] - 0.1).abs() < 1e-6,
        "the plank moved to {:?}",
        end[0]
    );
    ok(&kairos(
        &["generate", "bullet", "--speed", "1e5", "-o", "b.toml"],
        &dir,
    ));
    let bullets = std::fs::read_to_string(dir.join("b.toml")).unwrap();
    for dt in [DT, "0.02"] {
        let (s, inside) = stepped_in_room(&dir, "b.toml", &bullets, dt, 40.0);
        let y_inside = final_positions(&dir, "b.ktrace", 2)
            .iter()
            .all(|p| (0.0..=20.0).contains(&p[1]));
        assert!(inside && y_inside, "--dt {dt}: a body left the room: {s}");
        assert_eq!(s["stepped"]["tunnelled_pairs"], 0, "--dt {dt}: {s}");
    }
}

/// The `drop` scene at dt 1/60: pairs that touch without a push (resting, grazing, or stopped
/// where they touched) are not passes. Every body stays in the room and none is counted or
/// warned about.
#[test]
fn the_drop_scene_reports_no_pass_through() {
    let dir = tempdir("stepped-drop-passes");
    ok(&kairos(&["generate", "drop", "-o", "d.toml"], &dir));
    let o = kairos(
        &[
            "run",
            "d.toml",
            "-o",
            "d.ktrace",
            "--stepper",
            "stepped",
            "--dt",
            DT,
            "--summary-json",
            "s.json",
        ],
        &dir,
    );
    ok(&o);
    assert!(
        !text(&o.stderr).contains("passed through"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(json(&dir.join("s.json"))["stepped"]["tunnelled_pairs"], 0);
}

/// A sliver triangle (height 10^-12) resting on the floor of a box room (its sides are
/// segments, not planes) under soft contacts sinks through it: a soft contact rests by its
/// spring's give (`g / ω²`, 1.7·10^-5 here), more than the sliver's height. The run counts the
/// pass-through and warns, as on a plane floor; with split impulses (the default) it rests.
#[test]
fn a_body_through_a_box_rooms_floor_is_counted() {
    let dir = tempdir("stepped-box-floor");
    std::fs::write(
        dir.join("sliver.toml"),
        "dim = 2\n[simulation]\nduration = 2.0\ngravity = [0.0, -9.81]\nfriction = 0.5\n\
         [[walls]]\nbox = { min = [0, 0], max = [20, 20] }\n\
         [[bodies]]\nshape = \"polygon\"\nvertices = [[0.0, 0.0], [1.0, 0.0], [0.5, 1e-12]]\n\
         position = [10.0, 0.0]\n",
    )
    .unwrap();
    for (correction, passes) in [("soft", 1), ("split", 0)] {
        let o = kairos(
            &[
                "run",
                "sliver.toml",
                "-o",
                "p.ktrace",
                "--stepper",
                "stepped",
                "--dt",
                "0.01",
                "--correction",
                correction,
                "--summary-json",
                "p.json",
            ],
            &dir,
        );
        ok(&o);
        let warned = text(&o.stderr)
            .contains("warning: 1 pairs passed through each other (1 through a wall)");
        assert_eq!(warned, passes == 1, "{correction}: {}", text(&o.stderr));
        assert_eq!(
            json(&dir.join("p.json"))["stepped"]["tunnelled_pairs"],
            passes,
            "{correction}"
        );
    }
}

/// `--threads`: a pyramid big enough for its stages to split among threads (8,256 boxes, some
/// 49,000 rows) writes the same trace on 1 and 2 threads, the summary says how many ran, and a
/// count out of range, or the option on another stepper, is refused with what to do.
#[test]
fn a_stepped_run_gives_the_same_trace_on_any_count_of_threads() {
    let dir = tempdir("stepped-threads");
    ok(&kairos(
        &[
            "generate",
            "pyramid",
            "--base",
            "128",
            "--duration",
            "0.1",
            "-o",
            "p.toml",
        ],
        &dir,
    ));
    let mut hashes = Vec::new();
    for t in ["1", "2"] {
        let s = stepped_run(&dir, "p.toml", &["--threads", t, "--no-sleep"]);
        assert_eq!(s["stepped"]["threads"], t.parse::<u64>().unwrap(), "{s}");
        hashes.push(s["trace_hash"].clone());
    }
    assert_eq!(hashes[0], hashes[1]);
    for (more, says) in [
        (
            &["--stepper", "stepped", "--dt", DT, "--threads", "0"][..],
            "--threads must be from 1 to 1024, got 0 (leave it out for every core)",
        ),
        (
            &["--stepper", "stepped", "--dt", DT, "--threads", "2000"][..],
            "--threads must be from 1 to 1024",
        ),
        (&["--threads", "2"][..], "need --stepper stepped"),
    ] {
        let mut args = vec!["run", "p.toml", "-o", "x.ktrace"];
        args.extend_from_slice(more);
        let o = kairos(&args, &dir);
        assert!(!o.status.success(), "{args:?}");
        assert!(text(&o.stderr).contains(says), "{}", text(&o.stderr));
        assert!(!dir.join("x.ktrace").exists());
    }
}
