//! Scenes with gravity through the command line: `generate drop`, a run that ends with every
//! body asleep, its trace replayed to the simulation's final states (export, frames, view),
//! checkpointed runs resumed bit for bit (interrupted where some bodies sleep and others fall),
//! and bad gravity keys refused with the item named.

use crate::common;

use common::{json, kairos, ok, tempdir, text};
use kairos::generate::{drop, DropParams};
use kairos::math::DVec2;
use kairos::prelude::*;
use kairos::trace::{Record, Replay, TraceReader};

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
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        8.0,
    );
    sim.run(|_, _, _| {});
    let w = sim.world();
    assert!(w.asleep().iter().all(|&x| x));
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 24);
    for (i, row) in rows.iter().enumerate() {
        let f: Vec<f64> = row.split(',').map(|x| x.parse().unwrap()).collect();
        let b = &w.bodies()[i];
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

/// Every record of a trace, with its header.
fn read(path: &std::path::Path) -> (kairos::trace::TraceHeader, Vec<Record>) {
    TraceReader::open(path).unwrap().read_all().unwrap()
}

/// The summary fields a resumed run shares with the uninterrupted one.
fn counts(s: &serde_json::Value) -> [u64; 3] {
    ["events", "body_body", "body_wall"].map(|k| s[k].as_u64().unwrap())
}

/// Resumes the run from `checkpoint` (on `broad`, else the broad phase `auto` picks), writing
/// `NAME.ktrace` and `NAME.json`, and checks it against the uninterrupted run (`full.ktrace`,
/// `full.json`): its
/// events are the uninterrupted run's after the checkpoint, bit for bit; `export --final` of
/// both traces is the same, byte for byte; the summaries add up, with the same energy drift.
/// Returns the checkpoint.
fn resumes_bit_identically(
    dir: &std::path::Path,
    checkpoint: &str,
    name: &str,
    broad: Option<&str>,
) -> kairos::checkpoint::Checkpoint {
    let trace = format!("{name}.ktrace");
    let summary = format!("{name}.json");
    let mut args = vec![
        "run",
        "--resume",
        checkpoint,
        "-q",
        "-o",
        &trace,
        "--summary-json",
        &summary,
    ];
    if let Some(b) = broad {
        args.extend_from_slice(&["--broad-phase", b]);
    }
    ok(&kairos(&args, dir));
    let ck = kairos::checkpoint::read(&dir.join(checkpoint)).unwrap();
    let (_, full) = read(&dir.join("full.ktrace"));
    let (header, rest) = read(&dir.join(&trace));
    // The header says which bodies sleep at the checkpoint, as the uninterrupted run's replay.
    let done = (ck.state.counts.body_body + ck.state.counts.body_wall) as usize;
    let (full_header, _) = read(&dir.join("full.ktrace"));
    let mut replay = Replay::new(&full_header);
    full[..done].iter().for_each(|r| replay.apply(r));
    let asleep: Vec<bool> = (0..header.bodies.len())
        .map(|i| replay.is_asleep(i))
        .collect();
    assert_eq!(header.asleep, asleep, "{name}");
    assert_eq!(full.len(), done + rest.len(), "{name}");
    for (k, (x, y)) in full[done..].iter().zip(&rest).enumerate() {
        assert!(
            x.same_event(y),
            "{name}: event {k} after the checkpoint differs"
        );
    }
    let csv = format!("{name}.csv");
    ok(&kairos(&["export", &trace, "--final", &csv], dir));
    assert_eq!(
        std::fs::read_to_string(dir.join("full.csv")).unwrap(),
        std::fs::read_to_string(dir.join(&csv)).unwrap(),
        "{name}"
    );
    let (a, b) = (json(&dir.join("full.json")), json(&dir.join(&summary)));
    let c = counts(&b);
    assert_eq!(
        counts(&a),
        [
            done as u64 + c[0],
            ck.state.counts.body_body + c[1],
            ck.state.counts.body_wall + c[2]
        ],
        "{name}"
    );
    assert_eq!(a["energy_drift"], b["energy_drift"], "{name}");
    ck
}

/// A drop generated by `args`, run uninterrupted with checkpoints every `every`, and again
/// interrupted (`--max-events`) while its bodies fall and once a third of them sleep: every
/// checkpoint resumes to the uninterrupted run bit for bit.
fn drop_resumes_bit_identically(name: &str, args: &[&str], every: &str) {
    let dir = tempdir(name);
    let mut generate = vec!["generate", "drop"];
    generate.extend_from_slice(args);
    generate.extend_from_slice(&["-o", "drop.toml"]);
    ok(&kairos(&generate, &dir));
    ok(&kairos(
        &[
            "run",
            "drop.toml",
            "-q",
            "-o",
            "full.ktrace",
            "--summary-json",
            "full.json",
            "--checkpoint",
            "every.kck",
            "--every",
            every,
        ],
        &dir,
    ));
    ok(&kairos(
        &["export", "full.ktrace", "--final", "full.csv"],
        &dir,
    ));
    // The first event after which a third of the bodies sleep, and one in mid-fall.
    let (header, full) = read(&dir.join("full.ktrace"));
    let n = header.bodies.len();
    let mut replay = Replay::new(&header);
    let stop = full
        .iter()
        .position(|r| {
            replay.apply(r);
            3 * (0..n).filter(|&i| replay.is_asleep(i)).count() >= n
        })
        .unwrap();
    let falling = full.iter().position(|r| r.time >= 1.2).unwrap();
    // Interrupted just after them: the run stops past --max-events, saving that event.
    let interrupt = |stop: usize, ck: &str| {
        let o = kairos(
            &[
                "run",
                "drop.toml",
                "-q",
                "-o",
                "part.ktrace",
                "--checkpoint",
                ck,
                "--every",
                "1000",
                "--max-events",
                &stop.to_string(),
            ],
            &dir,
        );
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(&format!("--resume {ck}")),
            "{}",
            text(&o.stderr)
        );
    };
    interrupt(falling, "falling.kck");
    let ck = resumes_bit_identically(&dir, "falling.kck", "falling", None);
    assert!(ck.bodies.iter().filter(|b| !b.asleep).count() > n / 2);
    interrupt(stop, "ck.kck");
    let ck = resumes_bit_identically(&dir, "ck.kck", "rest", Some("kaya-bvh"));
    let bytes = std::fs::read(dir.join("ck.kck")).unwrap();
    assert_eq!(&bytes[8..12], &4u32.to_le_bytes());
    assert_eq!(ck.state.counts.total() as usize, stop + 1);
    let sleeping = ck.bodies.iter().filter(|b| b.asleep).count();
    assert!(
        3 * sleeping >= n && sleeping < n,
        "{sleeping} of {n} asleep"
    );
    // The uninterrupted run's own checkpoint resumes the same.
    resumes_bit_identically(&dir, "every.kck", "rest2", None);
    // The resumed trace is viewed with its sleeping bodies.
    ok(&kairos(&["view", "rest.ktrace", "-o", "rest.html"], &dir));
    let page = std::fs::read_to_string(dir.join("rest.html")).unwrap();
    assert!(
        page.contains("\"asleep\":\""),
        "no sleep states in the page"
    );
}

#[test]
fn a_2d_drop_of_balls_and_boxes_resumes_bit_identically() {
    drop_resumes_bit_identically(
        "gravity-resume-2d",
        &[
            "--balls",
            "12",
            "--boxes",
            "12",
            "--seed",
            "5",
            "--duration",
            "8",
        ],
        "1",
    );
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn a_3d_drop_resumes_bit_identically() {
    drop_resumes_bit_identically(
        "gravity-resume-3d",
        &[
            "--dim",
            "3",
            "--balls",
            "6",
            "--boxes",
            "6",
            "--seed",
            "3",
            "--duration",
            "6",
        ],
        "1",
    );
}

/// `generate stack`, `pyramid` and `pyramids` write valid scenes of boxes resting on a floor,
/// with the command in their header, and bad parameters are refused with the parameter's name.
/// The event-driven engine puts a 2D tower and pyramid to sleep where they stand.
#[test]
fn stacks_and_pyramids_are_generated_and_a_2d_pyramid_sleeps_where_it_stands() {
    let dir = tempdir("stacks");
    for (args, n) in [
        (vec!["stack", "--n", "10"], 10),
        (vec!["stack", "--n", "4", "--dim", "3"], 4),
        (vec!["pyramid", "--base", "6"], 21),
        (vec!["pyramid", "--base", "3", "--dim", "3"], 14),
        (vec!["pyramids", "--count", "3", "--base", "4"], 30),
    ] {
        let mut cmd = vec!["generate"];
        cmd.extend_from_slice(&args);
        cmd.extend_from_slice(&["-o", "s.toml"]);
        ok(&kairos(&cmd, &dir));
        let toml = std::fs::read_to_string(dir.join("s.toml")).unwrap();
        assert!(
            toml.starts_with(&format!("# kairos generate {}", args[0])),
            "{toml}"
        );
        assert!(toml.contains("friction = 0.6"), "{toml}");
        let scene = kairos::scene::Scene::load(&dir.join("s.toml")).unwrap();
        assert_eq!(scene.bodies.len(), n, "{args:?}");
    }
    ok(&kairos(
        &[
            "generate",
            "pyramid",
            "--base",
            "6",
            "--duration",
            "2",
            "-o",
            "p.toml",
        ],
        &dir,
    ));
    ok(&kairos(
        &[
            "run",
            "p.toml",
            "-q",
            "-o",
            "p.ktrace",
            "--summary-json",
            "p.json",
        ],
        &dir,
    ));
    let summary = json(&dir.join("p.json"));
    assert!(summary["events"].as_u64().unwrap() >= 21, "{summary}");
    ok(&kairos(
        &["export", "p.ktrace", "--final", "final.csv"],
        &dir,
    ));
    let start = kairos::scene::Scene::load(&dir.join("p.toml")).unwrap();
    let end = std::fs::read_to_string(dir.join("final.csv")).unwrap();
    let rows: Vec<Vec<f64>> = end
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .map(|x| x.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), start.bodies.len());
    // id, x, y, vx, vy, angle, omega: every box where it started (within 1% of its size), at
    // rest and not turned.
    for (row, b) in rows.iter().zip(&start.bodies) {
        let moved = (row[1] - b.position[0]).hypot(row[2] - b.position[1]);
        assert!(moved < 0.01, "box {} moved by {moved}", row[0]);
        assert_eq!((row[3], row[4], row[6]), (0.0, 0.0, 0.0), "box {}", row[0]);
        assert!(row[5].abs() < 1e-9, "box {} turned by {}", row[0], row[5]);
    }
    let bad = kairos(
        &[
            "generate", "stack", "--n", "3", "--size", "0", "-o", "x.toml",
        ],
        &dir,
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("size"), "{}", text(&bad.stderr));
    assert!(!dir.join("x.toml").exists());
    std::fs::remove_dir_all(&dir).ok();
}
