//! The `kairos` binary, subcommand by subcommand: `demo`, `generate`, `run`, `diff`, `export`
//! and the `bench` tables, the summary, and the errors of bad scenes, traces and arguments
//! (periodic gases at size and checkpoints: `gas_and_checkpoints.rs`).

use crate::common;

use common::{demo_trace_and_damaged_copies, json, kairos, ok, tempdir, text};

use kairos::prelude::*;

#[test]
fn demo_writes_trace_and_summary() {
    let dir = tempdir("demo");
    let o = kairos(&["demo", "--n", "60", "--summary-json", "s.json"], &dir);
    ok(&o);
    let out = text(&o.stdout);
    assert!(
        out.contains("events") && out.contains("energy drift"),
        "{out}"
    );
    assert!(dir.join("demo.ktrace").exists());
    let s = json(&dir.join("s.json"));
    for key in [
        "events",
        "body_body",
        "body_wall",
        "wall_seconds",
        "events_per_second",
        "energy_drift",
    ] {
        assert!(s.get(key).is_some(), "missing {key} in {s}");
    }
    assert!(s["events"].as_u64().unwrap() > 100);
    assert_eq!(
        s["events"].as_u64().unwrap(),
        s["body_body"].as_u64().unwrap() + s["body_wall"].as_u64().unwrap()
    );
    assert!(s["energy_drift"].as_f64().unwrap().abs() < 1e-12);
    // --quiet prints nothing.
    let q = kairos(&["demo", "--n", "20", "-q", "-o", "q.ktrace"], &dir);
    ok(&q);
    assert!(q.stdout.is_empty() && q.stderr.is_empty());
}

#[test]
fn generate_run_diff_export() {
    let dir = tempdir("pipeline");
    ok(&kairos(
        &[
            "generate", "billiard", "--n", "40", "--seed", "5", "-o", "b.toml",
        ],
        &dir,
    ));
    ok(&kairos(
        &[
            "generate", "billiard", "--n", "40", "--seed", "6", "-o", "c.toml",
        ],
        &dir,
    ));
    let scene =
        Scene::from_toml_str(&std::fs::read_to_string(dir.join("b.toml")).unwrap()).unwrap();
    assert_eq!(scene.bodies.len(), 40);
    assert_eq!(scene.walls.len(), 4);

    ok(&kairos(
        &[
            "run",
            "b.toml",
            "--broad-phase",
            "all-pairs",
            "-o",
            "ap.ktrace",
            "-q",
            "--summary-json",
            "ap.json",
        ],
        &dir,
    ));
    ok(&kairos(
        &[
            "run",
            "b.toml",
            "--broad-phase",
            "kaya-bvh",
            "-o",
            "kb.ktrace",
            "-q",
        ],
        &dir,
    ));
    ok(&kairos(&["run", "c.toml", "-q"], &dir));
    assert!(dir.join("c.ktrace").exists(), "default trace name");

    let same = kairos(&["diff", "ap.ktrace", "kb.ktrace"], &dir);
    ok(&same);
    assert!(text(&same.stdout).contains("identical"));
    let different = kairos(&["diff", "ap.ktrace", "c.ktrace"], &dir);
    assert_eq!(
        different.status.code(),
        Some(1),
        "{}",
        text(&different.stderr)
    );
    assert!(text(&different.stdout).contains("first difference"));

    ok(&kairos(
        &[
            "export",
            "kb.ktrace",
            "--events",
            "ev.csv",
            "--final",
            "fin.csv",
        ],
        &dir,
    ));
    let events = std::fs::read_to_string(dir.join("ev.csv")).unwrap();
    let mut lines = events.lines();
    assert_eq!(lines.next(), Some("time,kind,a,b"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let summary = json(&dir.join("ap.json"));
    assert_eq!(rows.len() as u64, summary["events"].as_u64().unwrap());
    let mut last = 0.0;
    for r in &rows {
        let t: f64 = r[0].parse().unwrap();
        assert!(t >= last);
        last = t;
        let (a, b): (u32, u32) = (r[2].parse().unwrap(), r[3].parse().unwrap());
        match r[1] {
            "body-body" => assert!(a < b && b < 40),
            "body-wall" => assert!(a < 40 && b < 4),
            k => panic!("kind {k}"),
        }
    }

    // The final state rebuilt from the trace equals the simulator's, bit for bit.
    let mut sim = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::AllPairs.build(&BroadPhaseOptions::default()),
        scene.duration,
    );
    sim.run(|_, _, _| {});
    let fin = std::fs::read_to_string(dir.join("fin.csv")).unwrap();
    let mut lines = fin.lines();
    assert_eq!(lines.next(), Some("id,x,y,vx,vy"));
    for (i, line) in lines.enumerate() {
        let v: Vec<f64> = line
            .split(',')
            .skip(1)
            .map(|x| x.parse().unwrap())
            .collect();
        let b = &sim.world().bodies()[i];
        assert_eq!(v, vec![b.pos.x, b.pos.y, b.vel.x, b.vel.y], "body {i}");
    }
}

#[test]
fn bench_thesis_prints_a_table() {
    let dir = tempdir("bench");
    let o = kairos(
        &[
            "bench", "thesis", "--n", "8,16", "--runs", "2", "--csv", "t.csv",
        ],
        &dir,
    );
    ok(&o);
    let out = text(&o.stdout);
    assert!(
        out.contains(
            "| N | collisions | all-pairs (s) | kaya-bvh (s) | calendar (s) | sap (s) | grid (s) | speedup kaya-bvh | speedup calendar | speedup sap | speedup grid |"
        ),
        "{out}"
    );
    assert!(out.contains("| 8 |") && out.contains("| 16 |"), "{out}");
    let csv = std::fs::read_to_string(dir.join("t.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 2 * 5, "{csv}");
    // A tiny budget skips the larger size with a message.
    let s = kairos(
        &[
            "bench", "thesis", "--n", "8,64", "--runs", "1", "--budget", "1e-9",
        ],
        &dir,
    );
    ok(&s);
    assert!(text(&s.stderr).contains("skipping"), "{}", text(&s.stderr));
    assert!(text(&s.stdout).contains("skipped"));
}

#[test]
fn bench_overlap_prints_a_table() {
    let dir = tempdir("bench-overlap");
    let o = kairos(
        &[
            "bench",
            "overlap",
            "--sizes",
            "60,300",
            "--steps",
            "3",
            "--brute-max",
            "100",
            "--csv",
            "o.csv",
        ],
        &dir,
    );
    ok(&o);
    let out = text(&o.stdout);
    assert!(
        out.contains(
            "| d | scene | N | pairs/step | brute-force | bvh | sap | sort-sweep | dbvt | grid |"
        ),
        "{out}"
    );
    // Brute force is skipped above --brute-max, and said so.
    assert!(
        out.contains("| 2 | billiard | 300 |") && out.contains("skipped"),
        "{out}"
    );
    assert!(out.contains("| 3 | aligned | 60 |"), "{out}");
    // 2 dims x 2 scenes x (6 finders at N = 60 + 5 at N = 300), plus the header.
    let csv = std::fs::read_to_string(dir.join("o.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 2 * 2 * (6 + 5), "{csv}");
    let bad = kairos(&["bench", "overlap", "--finders", "octree"], &dir);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn bad_scenes_exit_2_and_write_nothing() {
    let dir = tempdir("bad");
    let good = "dim = 2\n[simulation]\nduration = 1.0\n\n[[bodies]]\nposition = [0.0, 0.0]\nvelocity = [1.0, 0.0]\nradius = 1.0\n\n[[bodies]]\nposition = [5.0, 0.0]\nvelocity = [0.0, 0.0]\nradius = 1.0\n";
    std::fs::write(dir.join("good.toml"), good).unwrap();
    ok(&kairos(
        &["run", "good.toml", "-q", "-o", "good.ktrace"],
        &dir,
    ));
    let cases = [
        (
            "neg.toml",
            good.replace("radius = 1.0\n\n[[bodies]]", "radius = -1.0\n\n[[bodies]]"),
            "body 0",
        ),
        (
            "overlap.toml",
            good.replace("[5.0, 0.0]", "[1.0, 0.0]"),
            "overlaps body 1",
        ),
        (
            "syntax.toml",
            good.replace("[simulation]", "[simulation"),
            "invalid TOML",
        ),
        (
            "dim.toml",
            good.replace("[5.0, 0.0]", "[5.0, 0.0, 1.0]"),
            "body 1",
        ),
        (
            "nan.toml",
            good.replace("[1.0, 0.0]", "[nan, 0.0]"),
            "finite",
        ),
    ];
    for (name, content, needle) in cases {
        std::fs::write(dir.join(name), content).unwrap();
        let o = kairos(&["run", name, "-o", "out.ktrace"], &dir);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = text(&o.stderr);
        assert!(err.contains(name) && err.contains(needle), "{name}: {err}");
        assert!(!dir.join("out.ktrace").exists(), "{name} left a trace");
    }
    let missing = kairos(&["run", "nope.toml"], &dir);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("nope.toml"));
    let opt = kairos(&["run", "good.toml", "--bvh-grow", "0.5"], &dir);
    assert_eq!(opt.status.code(), Some(2));
    let leftovers: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn bad_traces_exit_2() {
    let dir = tempdir("badtrace");
    demo_trace_and_damaged_copies(&dir);
    for (name, needle) in [
        ("cut.ktrace", "incomplete"),
        ("junk.ktrace", "not a Kairos trace"),
    ] {
        let o = kairos(&["export", name, "--events", "e.csv"], &dir);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = text(&o.stderr);
        assert!(err.contains(name) && err.contains(needle), "{err}");
        assert!(!dir.join("e.csv").exists());
        let d = kairos(&["diff", "t.ktrace", name], &dir);
        assert_eq!(d.status.code(), Some(2), "{name}");
    }
}

#[test]
fn periodic_box_too_small_is_rejected() {
    let dir = tempdir("smallbox");
    let scene = "dim = 2\n[simulation]\nduration = 1.0\n[boundary]\nperiodic = [3.0, 10.0]\n[[bodies]]\nposition = [1.0, 1.0]\nvelocity = [1.0, 0.0]\nradius = 1.0\n";
    std::fs::write(dir.join("s.toml"), scene).unwrap();
    let o = kairos(&["run", "s.toml"], &dir);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("s.toml") && err.contains("[boundary]") && err.contains("too small"),
        "{err}"
    );
}

/// An empty wall item and the gas generator's impossible boxes say what to change.
#[test]
fn errors_say_what_to_do() {
    let dir = tempdir("advice");
    std::fs::write(
        dir.join("w.toml"),
        "dim = 2\n[simulation]\nduration = 1.0\n[[walls]]\n",
    )
    .unwrap();
    let o = kairos(&["run", "w.toml"], &dir);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("w.toml: wall 0: no kind of wall given") && err.contains("box = { min"),
        "{err}"
    );
    for (args, needle) in [
        (
            vec!["--n", "1", "--packing", "0.3"],
            "twice the largest contact distance",
        ),
        (
            vec!["--n", "8", "--packing", "0.9", "--dim", "2"],
            "or 20 balls or more",
        ),
    ] {
        let mut full = vec!["generate", "gas", "-o", "g.toml"];
        full.extend(&args);
        let o = kairos(&full, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert!(
            err.contains(needle) && !err.contains("invalid"),
            "{args:?}: {err}"
        );
        assert!(!dir.join("g.toml").exists());
    }
    // The documented packing range of `generate billiard` works in 3D and in 2D.
    for args in [
        vec!["--n", "300", "--packing", "0.25", "--dim", "3"],
        vec!["--n", "500", "--packing", "0.5"],
    ] {
        let mut full = vec!["generate", "billiard", "-o", "b.toml"];
        full.extend(&args);
        ok(&kairos(&full, &dir));
    }
}

/// `generate --restitution` makes dissipative scenes that state their contact duration (the TC
/// model) and finish; elastic files do not change; checkpoints refuse dissipative runs, whose
/// last collision times they do not store.
#[test]
fn dissipative_scenes_generate_and_finish() {
    let dir = tempdir("dissipative");
    for (kind, extra) in [
        ("billiard", vec!["--n", "300", "--packing", "0.45"]),
        (
            "billiard",
            vec!["--n", "300", "--packing", "0.45", "--dim", "3"],
        ),
        (
            "gas",
            vec!["--n", "500", "--packing", "0.3", "--duration", "5"],
        ),
    ] {
        let mut args = vec!["generate", kind, "-o", "e.toml"];
        args.extend(&extra);
        ok(&kairos(&args, &dir));
        let elastic = std::fs::read_to_string(dir.join("e.toml")).unwrap();
        assert!(!elastic.contains("contact_duration") && !elastic.contains("--restitution"));
        args[3] = "d.toml";
        args.extend(["--restitution", "0"]);
        ok(&kairos(&args, &dir));
        let dissipative = std::fs::read_to_string(dir.join("d.toml")).unwrap();
        assert!(
            dissipative
                .lines()
                .next()
                .unwrap()
                .ends_with(" --restitution 0")
                && dissipative.contains("\nrestitution = 0.0\ncontact_duration = "),
            "{dissipative}"
        );
        if extra.contains(&"3") {
            assert!(dissipative.starts_with("# kairos generate billiard --dim 3 --n 300"));
        }
        // Apart from the command line, the restitution and the contact duration, the same.
        let strip = |s: &str| -> Vec<String> {
            s.lines()
                .skip(1)
                .filter(|l| !l.starts_with("restitution") && !l.starts_with("contact_duration"))
                .map(String::from)
                .collect()
        };
        assert_eq!(strip(&elastic), strip(&dissipative));
        let o = kairos(
            &["run", "d.toml", "--no-trace", "--summary-json", "s.json"],
            &dir,
        );
        ok(&o);
        let s = json(&dir.join("s.json"));
        assert!(s["energy_drift"].as_f64().unwrap() < -0.5, "{s}");
    }
    let o = kairos(
        &[
            "generate",
            "billiard",
            "--n",
            "10",
            "--restitution",
            "2",
            "-o",
            "x.toml",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("restitution must be in [0, 1]"));
    assert!(!dir.join("x.toml").exists());
    // A dissipative run resumes exactly: checkpoints keep every body's last collision time
    // (the TC model) and the contact duration.
    ok(&kairos(
        &[
            "run",
            "d.toml",
            "-q",
            "-o",
            "full.ktrace",
            "--checkpoint",
            "ck.bin",
            "--every",
            "2",
        ],
        &dir,
    ));
    ok(&kairos(
        &["run", "--resume", "ck.bin", "-q", "-o", "rest.ktrace"],
        &dir,
    ));
    let read = |f: &str| {
        kairos::trace::TraceReader::open(&dir.join(f))
            .unwrap()
            .read_all()
            .unwrap()
            .1
    };
    let (full, rest) = (read("full.ktrace"), read("rest.ktrace"));
    let done = kairos::checkpoint::read(&dir.join("ck.bin"))
        .unwrap()
        .state
        .counts
        .total() as usize;
    assert!(done > 100 && !rest.is_empty(), "{done} / {}", rest.len());
    assert_eq!(full.len(), done + rest.len());
    assert!(full[done..].iter().zip(&rest).all(|(x, y)| x.same_event(y)));
}

/// The summary counts walls as the simulation does (a box is 2 * dim walls), with singular
/// and plural.
#[test]
fn summary_counts_walls() {
    let dir = tempdir("walls");
    let body = "[[bodies]]\nposition = [5.0, 5.0]\nvelocity = [1.0, 0.5]\nradius = 1.0\n";
    let cases = [
        (
            "box.toml",
            format!("dim = 2\n[simulation]\nduration = 1.0\n[[walls]]\nbox = {{ min = [0.0, 0.0], max = [10.0, 10.0] }}\n{body}"),
            "(2D, 1 body, 4 walls, 1 s)",
            4,
        ),
        (
            "one.toml",
            format!("dim = 2\n[simulation]\nduration = 1.0\n[[walls]]\na = [0.0, 0.0]\nb = [10.0, 0.0]\n{body}"),
            "(2D, 1 body, 1 wall, 1 s)",
            1,
        ),
        (
            "cube.toml",
            format!("dim = 3\n[simulation]\nduration = 1.0\n[[walls]]\nbox = {{ min = [0.0, 0.0, 0.0], max = [10.0, 10.0, 10.0] }}\n{}[[bodies]]\nposition = [2.0, 2.0, 2.0]\nvelocity = [0.0, 0.0, 0.0]\nradius = 1.0\n", body.replace("[5.0, 5.0]", "[5.0, 5.0, 5.0]").replace("[1.0, 0.5]", "[1.0, 0.5, 0.0]")),
            "(3D, 2 bodies, 6 walls, 1 s)",
            6,
        ),
    ];
    for (name, scene, needle, walls) in cases {
        std::fs::write(dir.join(name), scene).unwrap();
        let o = kairos(
            &["run", name, "--no-trace", "--summary-json", "s.json"],
            &dir,
        );
        ok(&o);
        let out = text(&o.stdout);
        assert!(out.contains(needle), "{name}: {out}");
        assert_eq!(json(&dir.join("s.json"))["walls"], walls, "{name}");
    }
}

/// `bench scale` checks its arguments before printing anything, and reports an error once.
#[test]
fn bench_scale_checks_arguments_first() {
    let dir = tempdir("scaleargs");
    for (args, needle) in [
        (vec!["--dims", "4"], "--dims takes 2 and 3"),
        (
            vec!["--dims", "3", "--n", "1"],
            "twice the largest contact distance",
        ),
        (vec!["--packing-3d", "0.9"], "cannot be reached"),
        (vec!["--n", "0"], "--n"),
    ] {
        let mut full = vec!["bench", "scale", "--no-thesis"];
        full.extend(&args);
        let o = kairos(&full, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}: {}", text(&o.stdout));
        let err = text(&o.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.matches("error:").count(), 1, "{args:?}: {err}");
    }
}
