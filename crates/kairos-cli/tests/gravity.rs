//! Scenes with gravity through the command line: `generate drop`, a run that ends with every
//! body asleep, its trace replayed to the simulation's final states (export, frames, view), and
//! bad gravity keys refused with the item named.

mod common;

use common::{json, kairos, ok, tempdir, text};
use kairos::generate::{drop, DropParams};
use kairos::math::DVec2;
use kairos::prelude::*;

#[test]
fn a_generated_drop_runs_to_rest_and_replays_to_the_simulated_states() {
    let dir = tempdir("gravity-drop");
    ok(&kairos(
        &[
            "generate",
            "drop",
            "--balls",
            "12",
            "--boxes",
            "12",
            "--seed",
            "5",
            "--duration",
            "8",
            "-o",
            "drop.toml",
        ],
        &dir,
    ));
    let toml = std::fs::read_to_string(dir.join("drop.toml")).unwrap();
    assert!(toml.contains("gravity = [0.0, -10.0]"), "{toml}");
    ok(&kairos(
        &[
            "run",
            "drop.toml",
            "-o",
            "drop.ktrace",
            "--summary-json",
            "s.json",
            "--quiet",
        ],
        &dir,
    ));
    let s = json(&dir.join("s.json"));
    assert!(s["events"].as_u64().unwrap() > 100, "{s}");
    ok(&kairos(
        &["export", "drop.ktrace", "--final", "final.csv"],
        &dir,
    ));
    let csv = std::fs::read_to_string(dir.join("final.csv")).unwrap();
    // The library's own run of the same scene: every body asleep, at the same place.
    let scene = drop(&DropParams {
        balls: 12,
        boxes: 12,
        seed: 5,
        duration: 8.0,
        ..Default::default()
    })
    .unwrap();
    let mut sim = Simulation::new(
        scene.world::<DVec2>(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        8.0,
    );
    sim.run(|_, _, _| {});
    let w = sim.world();
    assert!(w.asleep.iter().all(|&x| x));
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 24);
    for (i, row) in rows.iter().enumerate() {
        let f: Vec<f64> = row.split(',').map(|x| x.parse().unwrap()).collect();
        let b = &w.bodies[i];
        assert_eq!([f[1], f[2]], [b.pos.x, b.pos.y], "body {i}");
        assert_eq!([f[3], f[4]], [0.0, 0.0], "body {i} moves at the end");
    }
    ok(&kairos(
        &["frames", "drop.ktrace", "--every", "1", "-o", "f.xyz"],
        &dir,
    ));
    ok(&kairos(&["view", "drop.ktrace", "-o", "drop.html"], &dir));
    let page = std::fs::read_to_string(dir.join("drop.html")).unwrap();
    assert!(page.contains("\"gravity\":[0.0,-10.0]"));
}

#[test]
fn bad_gravity_keys_are_refused_naming_the_item() {
    let dir = tempdir("gravity-bad");
    let base = "dim = 2\n[simulation]\nduration = 1.0\n{extra}\n[[walls]]\nplane = { point = \
                [0.0, 0.0], normal = [0.0, 1.0] }\n[[bodies]]\nposition = [0.0, 2.0]\nvelocity = \
                [0.0, 0.0]\nradius = 1.0\n";
    let cases = [
        ("gravity = [0.0, -10.0, 1.0]", "gravity"),
        ("gravity = [0.0, \"down\"]", "gravity"),
        ("rest_speed = 0.1", "rest_speed"),
        ("gravity = [0.0, -1.0]\nrest_speed = -1.0", "rest_speed"),
        ("friction = 0.5", "friction"),
        ("friction = -0.5", "friction"),
    ];
    for (k, (extra, needle)) in cases.iter().enumerate() {
        let name = format!("bad{k}.toml");
        std::fs::write(dir.join(&name), base.replace("{extra}", extra)).unwrap();
        let o = kairos(&["run", &name, "--no-trace"], &dir);
        assert!(!o.status.success(), "{extra} accepted");
        let err = text(&o.stderr);
        assert!(
            err.contains(&name) && err.contains(needle),
            "{extra}: {err}"
        );
        assert!(
            err.contains("[simulation]") || err.contains("simulation"),
            "{err}"
        );
    }
}
