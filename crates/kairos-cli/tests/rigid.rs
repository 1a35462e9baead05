//! `kairos run` on scenes with rigid bodies: every broad phase, the momentum drifts of the
//! summary, and the refusals (traces, checkpoints, the discrete stepper) before any output.

mod common;

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
fn what_rigid_bodies_cannot_do_yet_is_refused_before_any_output() {
    let dir = setup("rigid-refusals");
    let refused = |args: &[&str], needle: &str| {
        let o = kairos(args, &dir);
        assert!(!o.status.success(), "{args:?} should fail");
        let err = text(&o.stderr);
        assert!(err.contains("rigid.toml"), "{err}");
        assert!(err.contains(needle), "`{needle}` not in: {err}");
        assert_eq!(listing(&dir), ["rigid.toml"], "{args:?} wrote something");
    };
    // A trace by default, or named.
    refused(&["run", "rigid.toml"], "--no-trace");
    refused(
        &[
            "run",
            "rigid.toml",
            "-o",
            "t.ktrace",
            "--summary-json",
            "s.json",
        ],
        "traces do not support yet",
    );
    refused(
        &[
            "run",
            "rigid.toml",
            "--no-trace",
            "--checkpoint",
            "c.kck",
            "--every",
            "1",
        ],
        "checkpoints",
    );
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
