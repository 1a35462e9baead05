//! Periodic gases and long runs through the `kairos` binary: `generate gas` and `bench scale`
//! at size, a gas's observables and frames, `--broad-phase auto`'s pick, and checkpoints:
//! resumed bit for bit, left valid by a killed run, written by a run without events.

use crate::common;

use common::{json, kairos, ok, tempdir, text};

use std::process::Command;

use kairos::prelude::*;

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn gas_generation_and_scale_bench() {
    let dir = tempdir("gas");
    ok(&kairos(
        &[
            "generate",
            "gas",
            "--dim",
            "3",
            "--n",
            "108",
            "--packing",
            "0.45",
            "-o",
            "g3.toml",
        ],
        &dir,
    ));
    ok(&kairos(
        &[
            "generate",
            "gas",
            "--dim",
            "2",
            "--n",
            "200",
            "--packing",
            "0.7",
            "--polydispersity",
            "0.05",
            "-o",
            "g2.toml",
        ],
        &dir,
    ));
    let g3 = Scene::from_toml_str(&std::fs::read_to_string(dir.join("g3.toml")).unwrap()).unwrap();
    assert_eq!(g3.bodies.len(), 108);
    assert!(g3.periodic.is_some());
    // Zero total momentum, kT = 1 with the momentum's degrees of freedom removed.
    let (mut p, mut e) = ([0.0; 3], 0.0);
    for b in &g3.bodies {
        for a in 0..3 {
            p[a] += b.mass * b.velocity[a];
            e += 0.5 * b.mass * b.velocity[a] * b.velocity[a];
        }
    }
    assert!(p.iter().all(|x| x.abs() < 1e-9), "{p:?}");
    assert!((e - 1.5 * 107.0).abs() < 1e-9, "{e}");
    ok(&kairos(
        &[
            "run",
            "g3.toml",
            "-q",
            "-o",
            "cal.ktrace",
            "--summary-json",
            "s.json",
        ],
        &dir,
    ));
    ok(&kairos(
        &[
            "run",
            "g3.toml",
            "-q",
            "-o",
            "ap.ktrace",
            "--broad-phase",
            "all-pairs",
        ],
        &dir,
    ));
    ok(&kairos(&["diff", "ap.ktrace", "cal.ktrace"], &dir));
    assert!(
        json(&dir.join("s.json"))["energy_drift"]
            .as_f64()
            .unwrap()
            .abs()
            < 1e-12
    );
    ok(&kairos(&["run", "g2.toml", "-q", "--no-trace"], &dir));

    // Impossible requests fail before any work.
    for (args, needle) in [
        (
            vec!["--dim", "3", "--n", "100", "--packing", "0.8"],
            "cannot be reached",
        ),
        (
            vec!["--dim", "2", "--n", "100", "--packing", "0.95"],
            "cannot be reached",
        ),
        (
            vec!["--dim", "3", "--n", "1000000000", "--packing", "0.3"],
            "memory",
        ),
        (
            vec!["--dim", "4", "--n", "10", "--packing", "0.3"],
            "dimension",
        ),
    ] {
        let mut full = vec!["generate", "gas", "-o", "bad.toml"];
        full.extend(args);
        let o = kairos(&full, &dir);
        assert_eq!(o.status.code(), Some(2), "{full:?}");
        assert!(
            text(&o.stderr).contains(needle),
            "{full:?}: {}",
            text(&o.stderr)
        );
        assert!(!dir.join("bad.toml").exists());
    }

    let o = kairos(
        &[
            "bench",
            "scale",
            "--n",
            "500",
            "--dims",
            "2,3",
            "--thesis-n",
            "64",
            "--csv",
            "s.csv",
        ],
        &dir,
    );
    ok(&o);
    let out = text(&o.stdout);
    assert!(
        out.contains("| 3 | 500 | 0.45 | calendar |")
            && out.contains("| 3 | 500 | 0.45 | calendar-lists |")
            && out.contains("| 64 | calendar |"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("s.csv"))
            .unwrap()
            .lines()
            .count(),
        1 + 2 * 2 + kairos::broad_phase::BroadPhaseKind::ALL.len(),
        "header, two gas runs for each calendar, and every broad phase on the thesis scene"
    );
    // A broad phase that would not finish a gas of a million bodies is refused up front.
    let o = kairos(
        &["bench", "scale", "--gas-broad-phases", "calendar,kaya-bvh"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr)
            .contains("the gas runs take `calendar` or `calendar-lists`, not `kaya-bvh`"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn observables_and_frames() {
    let dir = tempdir("observe");
    ok(&kairos(
        &[
            "generate",
            "gas",
            "--dim",
            "3",
            "--n",
            "256",
            "--packing",
            "0.3",
            "--duration",
            "2",
            "-o",
            "g.toml",
        ],
        &dir,
    ));
    ok(&kairos(&["run", "g.toml", "-q", "--observe", "0.5"], &dir));
    let obs = std::fs::read_to_string(dir.join("g.obs.csv")).unwrap();
    let mut lines = obs.lines();
    assert_eq!(
        lines.next(),
        Some("time,pressure,compressibility,collision_rate,kinetic_energy,max_overlap")
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert!(
            r[1] > 0.0 && r[2] > 1.5 && r[3] > 0.0 && r[5] < 1e-12,
            "{r:?}"
        );
    }
    // A walled scene has no bulk pressure: a clear error.
    ok(&kairos(
        &["generate", "billiard", "--n", "20", "-o", "b.toml"],
        &dir,
    ));
    let o = kairos(&["run", "b.toml", "--observe", "0.5"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("periodic"));

    ok(&kairos(
        &["frames", "g.ktrace", "--every", "0.5", "-o", "f.xyz"],
        &dir,
    ));
    let xyz = std::fs::read_to_string(dir.join("f.xyz")).unwrap();
    let lines: Vec<&str> = xyz.lines().collect();
    assert_eq!(lines.len(), 5 * 258, "five frames of 256 atoms");
    assert_eq!(lines[0], "256");
    assert!(
        lines[1].starts_with("Lattice=\"")
            && lines[1].contains("Properties=species:S:1:pos:R:3:radius:R:1:vel:R:3")
    );
    assert!(lines[1].contains("Time=0.0"));
    let atom: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(atom.len(), 8);
    assert_eq!(atom[0], "X", "ASE reads X, its dummy atom; A is no element");
    assert_eq!(atom[4].parse::<f64>().unwrap(), 0.5);
    // The first frame is the scene's initial state.
    let scene =
        Scene::from_toml_str(&std::fs::read_to_string(dir.join("g.toml")).unwrap()).unwrap();
    let x: f64 = atom[1].parse().unwrap();
    assert_eq!(x, scene.bodies[0].position[0]);
}

#[test]
fn checkpoint_and_resume_are_bit_identical() {
    use kairos::trace::TraceReader;
    let dir = tempdir("checkpoint");
    ok(&kairos(
        &[
            "generate",
            "gas",
            "--dim",
            "2",
            "--n",
            "100",
            "--packing",
            "0.4",
            "--duration",
            "150",
            "-o",
            "g.toml",
        ],
        &dir,
    ));
    ok(&kairos(
        &[
            "run",
            "g.toml",
            "-q",
            "-o",
            "full.ktrace",
            "--checkpoint",
            "ck.bin",
            "--every",
            "100",
        ],
        &dir,
    ));
    // Calendar for the first run, all-pairs for the rest: any broad phase continues the same.
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
        &dir,
    ));
    let (_, full) = TraceReader::open(&dir.join("full.ktrace"))
        .unwrap()
        .read_all()
        .unwrap();
    let (_, rest) = TraceReader::open(&dir.join("rest.ktrace"))
        .unwrap()
        .read_all()
        .unwrap();
    let ck = kairos::checkpoint::read(&dir.join("ck.bin")).unwrap();
    let done = ck.state.counts.body_body as usize;
    assert!(done > 1000 && !rest.is_empty(), "{done} / {}", rest.len());
    assert!(full[done - 1].time >= 100.0 && full[done - 2].time < 100.0 + 1.0);
    assert_eq!(full.len(), done + rest.len());
    for (k, (x, y)) in full[done..].iter().zip(&rest).enumerate() {
        assert!(x.same_event(y), "event {k} after the checkpoint differs");
    }
    // Corrupted or truncated checkpoints are refused.
    let bytes = std::fs::read(dir.join("ck.bin")).unwrap();
    std::fs::write(dir.join("cut.bin"), &bytes[..bytes.len() / 2]).unwrap();
    let mut flipped = bytes.clone();
    flipped[100] ^= 4;
    std::fs::write(dir.join("flip.bin"), &flipped).unwrap();
    for name in ["cut.bin", "flip.bin", "g.toml"] {
        let o = kairos(&["run", "--resume", name, "--no-trace"], &dir);
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(
            text(&o.stderr).contains(name) && text(&o.stderr).contains("checkpoint"),
            "{}",
            text(&o.stderr)
        );
    }
}

#[test]
fn killed_run_leaves_a_valid_checkpoint() {
    let dir = tempdir("kill");
    ok(&kairos(
        &[
            "generate",
            "gas",
            "--dim",
            "3",
            "--n",
            "4000",
            "--packing",
            "0.45",
            "--duration",
            "1000",
            "-o",
            "big.toml",
        ],
        &dir,
    ));
    let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "run",
            "big.toml",
            "--no-trace",
            "-q",
            "--checkpoint",
            "ck.bin",
            "--every",
            "0.05",
        ])
        .current_dir(&dir)
        .spawn()
        .unwrap();
    // Let it write many checkpoints, then kill it without warning.
    let start = std::time::Instant::now();
    while !dir.join("ck.bin").exists() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(700));
    child.kill().unwrap();
    let _ = child.wait();
    let ck =
        kairos::checkpoint::read(&dir.join("ck.bin")).expect("the checkpoint survives the kill");
    assert!(ck.state.counts.body_body > 0);
    assert_eq!(ck.bodies.len(), 4000);
    // Its world is valid: every body inside the box, at or before the saved time.
    let world = ck.world::<DVec3>().unwrap();
    let l = world.period().unwrap();
    for b in world.bodies() {
        assert!(b.time <= ck.state.now);
        assert!((0..3).all(|a| (0.0..=l[a]).contains(&b.pos[a])));
    }
}

/// `--broad-phase auto` (the default) picks calendar-lists for dense periodic gases and
/// calendar otherwise, says so in the summary and the trace, and changes no event.
#[test]
fn auto_picks_the_calendar_measured_faster_and_changes_no_event() {
    let dir = tempdir("auto");
    for (dim, packing, want) in [
        ("3", "0.45", "calendar-lists"),
        ("3", "0.2", "calendar"),
        ("2", "0.7", "calendar-lists"),
        ("2", "0.5", "calendar"),
    ] {
        ok(&kairos(
            &[
                "generate",
                "gas",
                "--dim",
                dim,
                "--n",
                "500",
                "--packing",
                packing,
                "--duration",
                "1",
                "-o",
                "g.toml",
            ],
            &dir,
        ));
        ok(&kairos(
            &[
                "run",
                "g.toml",
                "-q",
                "-o",
                "auto.ktrace",
                "--summary-json",
                "s.json",
            ],
            &dir,
        ));
        let s = json(&dir.join("s.json"));
        assert_eq!(s["broad_phase"], want, "{dim}D packing {packing}");
        assert!(s["broad_phase_auto"].as_str().unwrap().contains(packing));
        let header = kairos::trace::TraceReader::open(&dir.join("auto.ktrace"))
            .unwrap()
            .header()
            .broad_phase
            .clone();
        assert_eq!(header, format!("{want} (auto)"));
        let other = if want == "calendar" {
            "calendar-lists"
        } else {
            "calendar"
        };
        ok(&kairos(
            &[
                "run",
                "g.toml",
                "-q",
                "-o",
                "all.ktrace",
                "--broad-phase",
                other,
                "--summary-json",
                "t.json",
            ],
            &dir,
        ));
        assert!(json(&dir.join("t.json"))["broad_phase_auto"].is_null());
        ok(&kairos(&["diff", "auto.ktrace", "all.ktrace"], &dir));
    }
    ok(&kairos(
        &["generate", "billiard", "--n", "50", "-o", "b.toml"],
        &dir,
    ));
    let o = kairos(&["run", "b.toml", "--no-trace"], &dir);
    ok(&o);
    assert!(text(&o.stdout)
        .contains("broad phase    calendar (event-driven; auto: a scene with walls)"));
}

/// A run with no event after a multiple of `--every` (here none at all) still leaves a
/// checkpoint, of its end state; the summary times loading and building the world apart; a
/// look-ahead growth factor too close to 1 to ever finish a search is refused.
#[test]
fn quiet_runs_checkpoint_and_slow_look_aheads_are_refused() {
    let dir = tempdir("quiet");
    std::fs::write(
        dir.join("spin.toml"),
        "dim = 2\n[simulation]\nduration = 7000.0\n[[walls]]\n\
         box = { min = [0.0, 0.0], max = [10.0, 10.0] }\n[[bodies]]\nshape = \"box\"\n\
         half_extents = [0.5, 0.5]\nposition = [7.0, 5.0]\nangular_velocity = 1.0\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "spin.toml", "-q", "--no-trace"];
        args.extend_from_slice(extra);
        kairos(&args, &dir)
    };
    ok(&run(&[
        "--checkpoint",
        "c.ck",
        "--every",
        "1000",
        "--summary-json",
        "s.json",
    ]));
    let ck = kairos::checkpoint::read(&dir.join("c.ck")).unwrap();
    assert_eq!(ck.state.now + ck.state.origin, 7000.0);
    assert_eq!(ck.state.counts.total(), 0);
    let s = json(&dir.join("s.json"));
    assert!(s["load_seconds"].as_f64().unwrap() >= 0.0, "{s}");
    assert!(s["build_seconds"].as_f64().unwrap() >= 0.0, "{s}");
    for grow in ["1.0000000000000002", "1.005"] {
        let o = run(&["--broad-phase", "sap", "--bvh-grow", grow]);
        assert_eq!(o.status.code(), Some(2), "{grow}");
        assert!(
            text(&o.stderr).contains("grow must be at least 1.01"),
            "{}",
            text(&o.stderr)
        );
    }
    ok(&run(&["--broad-phase", "sap", "--bvh-grow", "1.01"]));
}
