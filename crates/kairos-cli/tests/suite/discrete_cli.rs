//! `kairos run --stepper discrete` and `kairos bench discrete`.

use crate::common;

use common::{crate_file, json, kairos, ok, tempdir, text};

fn scene(name: &str) -> String {
    crate_file("../../scenes", name)
}

#[test]
fn the_bullet_tunnels_in_discrete_time_and_not_in_event_time() {
    let dir = tempdir("bullet");
    let bullet = scene("bullet-through-gap.toml");
    let o = kairos(
        &[
            "run",
            &bullet,
            "--stepper",
            "discrete",
            "--dt",
            "0.1",
            "--summary-json",
            "d.json",
            "-o",
            "d.ktrace",
        ],
        &dir,
    );
    ok(&o);
    assert!(text(&o.stdout).contains("missed"), "{}", text(&o.stdout));
    let d = json(&dir.join("d.json"));
    assert_eq!(d["stepper"], "discrete");
    assert!(d["missed_collisions"].as_u64().unwrap() >= 1, "{d}");
    assert!(d["missed_body_wall"].as_u64().unwrap() >= 1, "{d}");
    let o = kairos(
        &["run", &bullet, "--summary-json", "e.json", "--no-trace"],
        &dir,
    );
    ok(&o);
    let e = json(&dir.join("e.json"));
    assert_eq!(e["missed_collisions"], 0);
    assert!(e["body_wall"].as_u64().unwrap() > 10, "{e}");
}

#[test]
fn a_discrete_trace_reads_back_in_time_order() {
    let dir = tempdir("trace");
    let o = kairos(
        &[
            "generate",
            "billiard",
            "--n",
            "200",
            "--seed",
            "4",
            "--duration",
            "1",
            "-o",
            "b.toml",
        ],
        &dir,
    );
    ok(&o);
    for extra in [&[][..], &["--toi-rewind"][..], &["--substeps", "4"][..]] {
        let mut args = vec![
            "run",
            "b.toml",
            "--stepper",
            "discrete",
            "--dt",
            "0.01",
            "--broad-phase",
            "brute-force",
            "-o",
            "d.ktrace",
            "--summary-json",
            "s.json",
        ];
        args.extend_from_slice(extra);
        ok(&kairos(&args, &dir));
        let s = json(&dir.join("s.json"));
        let events = s["events"].as_u64().unwrap();
        assert!(events > 100, "{s}");
        assert!(s["energy_drift"].as_f64().unwrap().abs() < 1e-12, "{s}");
        ok(&kairos(&["export", "d.ktrace", "--events", "e.csv"], &dir));
        let csv = std::fs::read_to_string(dir.join("e.csv")).unwrap();
        let times: Vec<f64> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(times.len() as u64, events, "{extra:?}");
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{extra:?}");
        ok(&kairos(&["export", "d.ktrace", "--final", "f.csv"], &dir));
    }
}

#[test]
fn bad_stepper_options_are_refused_before_any_output() {
    let dir = tempdir("bad");
    let bullet = scene("bullet-through-gap.toml");
    for (args, needle) in [
        (vec!["--stepper", "discrete"], "needs --dt"),
        (vec!["--dt", "0.1"], "need --stepper discrete"),
        (
            vec![
                "--stepper",
                "discrete",
                "--dt",
                "0.1",
                "--broad-phase",
                "kaya-bvh",
            ],
            "unknown discrete broad phase",
        ),
        (vec!["--broad-phase", "bvh"], "unknown broad phase"),
        (
            vec!["--stepper", "discrete", "--dt=-1"],
            "dt must be positive",
        ),
        (
            vec!["--stepper", "discrete", "--dt", "0.1", "--substeps", "0"],
            "substeps",
        ),
        (
            vec!["--stepper", "discrete", "--dt", "0.1", "--observe", "1"],
            "does not support",
        ),
    ] {
        let mut full = vec!["run", bullet.as_str(), "-o", "x.ktrace"];
        full.extend(args.iter().copied());
        let o = kairos(&full, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(needle),
            "{args:?}: {}",
            text(&o.stderr)
        );
        assert!(!dir.join("x.ktrace").exists(), "{args:?} left a trace");
    }
}

#[test]
fn bench_discrete_prints_table_5_2() {
    let dir = tempdir("bench");
    let o = kairos(
        &[
            "bench",
            "discrete",
            "--n",
            "48",
            "--runs",
            "1",
            "--broad-phases",
            "calendar,kaya-bvh",
            "--dts",
            "0.01,1",
            "--substeps",
            "0.1:10",
            "--rewind",
            "0.1",
            "--discrete-broad-phase",
            "brute-force",
            "--duration",
            "1",
            "--csv",
            "t.csv",
        ],
        &dir,
    );
    ok(&o);
    let out = text(&o.stdout);
    for row in [
        "continuous (calendar)",
        "continuous (kaya-bvh)",
        "discrete dt = 0.01 (brute-force)",
        "discrete dt = 1 (brute-force)",
        "discrete dt = 0.1, 10 sub-steps",
        "discrete dt = 0.1, rewind",
    ] {
        assert!(out.contains(row), "{row} missing:\n{out}");
    }
    let csv = std::fs::read_to_string(dir.join("t.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7, "{csv}");
    // The table and a plot again from the CSV, without measuring.
    let again = kairos(
        &[
            "bench",
            "discrete",
            "--from-csv",
            "t.csv",
            "--plot",
            "p.svg",
        ],
        &dir,
    );
    ok(&again);
    assert_eq!(text(&again.stdout), out);
    let svg = std::fs::read_to_string(dir.join("p.svg")).unwrap();
    assert!(
        svg.contains("<svg") && svg.contains("fixed time step"),
        "{svg}"
    );
    // A damaged CSV names the file and the line, and writes no plot.
    std::fs::write(
        dir.join("bad.csv"),
        csv.replace("calendar,,1,false,", "calendar,,x,false,"),
    )
    .unwrap();
    let bad = kairos(
        &[
            "bench",
            "discrete",
            "--from-csv",
            "bad.csv",
            "--plot",
            "q.svg",
        ],
        &dir,
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("bad.csv:2"),
        "{}",
        text(&bad.stderr)
    );
    assert!(!dir.join("q.svg").exists());
    // Continuous rows miss nothing.
    for line in csv.lines().filter(|l| l.contains("continuous")) {
        let fields: Vec<&str> = line.rsplit(',').collect();
        assert_eq!(fields[1].parse::<f64>().unwrap(), 0.0, "{line}");
    }
}

#[test]
fn rigid_scenes_run_with_fixed_steps() {
    // A plank spinning at 50 rad/s strikes a wall of its room a step deep: the response is
    // applied to an overlapping pair, whose separating nudges once doubled 64 times (energy
    // drift 1e55); now at most 3e-8 of its speed in all.
    let dir = tempdir("rigid-plank");
    std::fs::write(
        dir.join("plank.toml"),
        "dim = 3\n[simulation]\nduration = 2.0\n[[walls]]\n\
         box = { min = [0.0, 0.0, 0.0], max = [10.0, 10.0, 10.0] }\n[[bodies]]\n\
         shape = \"box\"\nhalf_extents = [3.0, 0.1, 0.01]\nposition = [5.0, 5.0, 5.0]\n\
         velocity = [3.0, 1.0, 2.0]\nangular_velocity = [0.1, 50.0, 0.1]\n",
    )
    .unwrap();
    ok(&kairos(
        &[
            "run",
            "plank.toml",
            "--stepper",
            "discrete",
            "--dt",
            "0.01",
            "--no-trace",
            "--summary-json",
            "s.json",
        ],
        &dir,
    ));
    let s = json(&dir.join("s.json"));
    assert!(s["energy_drift"].as_f64().unwrap().abs() < 1e-6, "{s}");

    let dir = tempdir("rigid");
    for (what, dim) in [("polygons", "2"), ("boxes", "3")] {
        let scene = format!("{what}.toml");
        ok(&kairos(
            &[
                "generate",
                what,
                "--n",
                "30",
                "--seed",
                "3",
                "--speed",
                "4",
                "--duration",
                "2",
                "-o",
                &scene,
            ],
            &dir,
        ));
        for extra in [&[][..], &["--toi-rewind"][..]] {
            let mut args = vec![
                "run",
                &scene,
                "--stepper",
                "discrete",
                "--dt",
                "0.01",
                "-o",
                "d.ktrace",
                "--summary-json",
                "s.json",
            ];
            args.extend_from_slice(extra);
            let o = kairos(&args, &dir);
            ok(&o);
            assert!(text(&o.stdout).contains("missed"), "{}", text(&o.stdout));
            let s = json(&dir.join("s.json"));
            assert_eq!(s["stepper"], "discrete", "{what}: {s}");
            assert_eq!(s["dim"].as_u64(), dim.parse().ok(), "{what}: {s}");
            assert!(s["events"].as_u64().unwrap() > 10, "{what} {extra:?}: {s}");
            assert!(
                s["energy_drift"].as_f64().unwrap().abs() < 1e-6,
                "{what} {extra:?}: {s}"
            );
            assert!(s["missed_collisions"].as_u64().is_some(), "{s}");
            // The trace (format 3, with the rotations) reads back to the final state.
            ok(&kairos(&["export", "d.ktrace", "--final", "f.csv"], &dir));
            let csv = std::fs::read_to_string(dir.join("f.csv")).unwrap();
            assert_eq!(csv.lines().count(), 31, "{what}: {csv}");
        }
    }
    // The rigid table of `bench discrete`, and the same from its CSV.
    let o = kairos(
        &[
            "bench",
            "discrete",
            "--rigid",
            "--n",
            "20",
            "--runs",
            "1",
            "--duration",
            "2",
            "--broad-phases",
            "calendar",
            "--dts",
            "0.01,0.5",
            "--substeps",
            "",
            "--rewind",
            "0.1",
            "--csv",
            "r.csv",
        ],
        &dir,
    );
    ok(&o);
    let out = text(&o.stdout);
    for needle in [
        "seconds per time unit",
        "missed (% of event-driven)",
        "| continuous (calendar) |",
        "| discrete dt = 0.01 (bvh) | 200 |",
        "| discrete dt = 0.5 (bvh) | 4 |",
        "| discrete dt = 0.1, rewind (bvh) | 20 |",
    ] {
        assert!(out.contains(needle), "{needle} missing:\n{out}");
    }
    let again = kairos(
        &[
            "bench",
            "discrete",
            "--rigid",
            "--duration",
            "2",
            "--from-csv",
            "r.csv",
        ],
        &dir,
    );
    ok(&again);
    assert_eq!(text(&again.stdout), out);
}
