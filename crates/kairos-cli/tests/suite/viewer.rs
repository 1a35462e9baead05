//! `kairos view` (the replay page) and `kairos snapshot` (SVG pictures), from the outside.
//! The page's behaviour in a browser is tested by `tests/browser/` (headless Chromium).

use crate::common;

use common::{demo_trace_and_damaged_copies, ok, tempdir, text};

use std::path::Path;
use std::process::{Command, Output};

use kairos::trace::TraceReader;
use serde_json::Value;

fn kairos(args: &[&str], dir: &Path) -> Output {
    kairos_env(args, dir, &[])
}

/// Runs the binary with no display and no `$BROWSER`, plus `env`.
fn kairos_env(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kairos"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("BROWSER");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run kairos")
}

/// Nothing but `keep` in `dir`: no output and no temporary file left behind.
fn only(dir: &Path, keep: &[&str]) {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    names.sort();
    assert!(names.is_empty(), "unexpected files: {names:?}");
}

/// Three balls in a 10 x 10 room: body 2 hits the top wall at t = 1.5, bodies 0 and 1 collide
/// head-on at t = 2.5 and swap velocities.
const ROOM: &str = r#"dim = 2
[simulation]
duration = 5.0
[[walls]]
box = { min = [0.0, 0.0], max = [10.0, 10.0] }
[[bodies]]
position = [2.0, 5.0]
velocity = [1.0, 0.0]
radius = 0.5
[[bodies]]
position = [8.0, 5.0]
velocity = [-1.0, 0.0]
radius = 0.5
[[bodies]]
position = [5.0, 8.0]
velocity = [0.0, 1.0]
radius = 0.5
"#;

/// One ball that reaches no wall before the end: a trace without events.
const QUIET: &str = r#"dim = 2
[simulation]
duration = 1.0
[[walls]]
box = { min = [0.0, 0.0], max = [10.0, 10.0] }
[[bodies]]
position = [5.0, 5.0]
velocity = [0.1, 0.0]
radius = 0.5
"#;

fn run_scene(dir: &Path, name: &str, toml: &str, extra: &[&str]) -> String {
    std::fs::write(dir.join(format!("{name}.toml")), toml).unwrap();
    let trace = format!("{name}.ktrace");
    let toml_name = format!("{name}.toml");
    let mut args = vec!["run", toml_name.as_str(), "-q", "-o", trace.as_str()];
    args.extend_from_slice(extra);
    ok(&kairos(&args, dir));
    trace
}

/// The JSON data embedded in a page.
fn page_data(page: &str) -> Value {
    let start = r#"<script id="kairos-data" type="application/json">"#;
    let from = page.find(start).expect("data element") + start.len();
    let len = page[from..].find("</script>").unwrap();
    serde_json::from_str(&page[from..from + len]).expect("data is JSON")
}

fn unbase64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for chunk in s.as_bytes().chunks(4) {
        let n = chunk.iter().filter(|&&c| c != b'=').count();
        let v = chunk[..n]
            .iter()
            .enumerate()
            .fold(0u32, |v, (k, &c)| v | (u32::from(val(c)) << (18 - 6 * k)));
        out.extend_from_slice(&v.to_be_bytes()[1..n]);
    }
    out
}

fn f64s(v: &Value) -> Vec<f64> {
    unbase64(v.as_str().unwrap())
        .chunks(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

fn notices(data: &Value) -> String {
    data["notices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn view_writes_one_self_contained_page_with_every_event() {
    let dir = tempdir("page");
    ok(&kairos(
        &[
            "demo",
            "--n",
            "40",
            "-q",
            "--broad-phase",
            "kaya-bvh",
            "-o",
            "d.ktrace",
        ],
        &dir,
    ));
    let o = kairos(&["view", "d.ktrace", "-o", "d.html"], &dir);
    ok(&o);
    assert!(
        text(&o.stdout).contains("wrote d.html"),
        "{}",
        text(&o.stdout)
    );
    let page = std::fs::read_to_string(dir.join("d.html")).unwrap();
    assert!(page.starts_with("<!doctype html>"));
    assert!(page.contains("<canvas id=\"view\""));
    for outside in [
        "http://",
        "https://",
        "<script src",
        "<link rel=\"stylesheet\"",
        "@import",
    ] {
        assert!(!page.contains(outside), "the page refers to {outside}");
    }
    assert!(page.contains("window.kairosViewer"));

    let data = page_data(&page);
    let (_, records) = TraceReader::open(&dir.join("d.ktrace"))
        .unwrap()
        .read_all()
        .unwrap();
    assert_eq!(data["dim"], 2);
    assert_eq!(data["broadPhase"], "kaya-bvh");
    assert_eq!(data["bodies"]["count"], 40);
    assert_eq!(data["bodies"]["stride"], 1);
    assert_eq!(data["events"]["count"], records.len());
    assert_eq!(data["events"]["total"], records.len());
    assert_eq!(data["walls"].as_array().unwrap().len(), 4);
    assert!(data["events"]["dt"].is_string(), "kaya-bvh traces carry dt");
    assert_eq!(data["notices"].as_array().unwrap().len(), 0);
    // Event times are embedded exactly.
    let times = f64s(&data["events"]["time"]);
    let want: Vec<f64> = records.iter().map(|r| r.time).collect();
    assert_eq!(times, want);
    // About 70 bytes of page per event (beyond the page of one event: the script and style).
    ok(&kairos(
        &["view", "d.ktrace", "-o", "one.html", "--max-events", "1"],
        &dir,
    ));
    let one = std::fs::read_to_string(dir.join("one.html")).unwrap();
    let per_event = (page.len() - one.len()) as f64 / (records.len() - 1) as f64;
    assert!(per_event < 80.0, "{per_event} bytes per event");

    // The same trace from another broad phase: no look-ahead to show.
    ok(&kairos(
        &["demo", "--n", "40", "-q", "-o", "c.ktrace"],
        &dir,
    ));
    ok(&kairos(&["view", "c.ktrace", "-o", "c.html"], &dir));
    let data = page_data(&std::fs::read_to_string(dir.join("c.html")).unwrap());
    assert!(data["events"]["dt"].is_null());
}

#[test]
fn large_traces_are_thinned_and_the_page_says_so() {
    let dir = tempdir("thin");
    ok(&kairos(
        &["demo", "--n", "60", "-q", "-o", "d.ktrace"],
        &dir,
    ));
    let o = kairos(
        &[
            "view",
            "d.ktrace",
            "-o",
            "d.html",
            "--max-bodies",
            "25",
            "--max-events",
            "50",
        ],
        &dir,
    );
    ok(&o);
    let out = text(&o.stdout);
    assert!(
        out.contains("20 of 60 bodies") && out.contains("note: Thinned"),
        "{out}"
    );
    let page = std::fs::read_to_string(dir.join("d.html")).unwrap();
    let data = page_data(&page);
    let said = notices(&data);
    assert!(
        said.contains("every 3rd body is shown (20 of 60 bodies)"),
        "{said}"
    );
    assert!(said.contains("the replay stops at t = "), "{said}");
    assert!(said.contains("--max-bodies"), "{said}");
    assert_eq!(data["bodies"]["count"], 20);
    assert_eq!(data["bodies"]["stride"], 3);
    let shown = data["events"]["count"].as_u64().unwrap();
    assert!(shown > 0 && shown <= 50, "{shown}");
    let end = data["endTime"].as_f64().unwrap();
    assert!(end < data["traceEndTime"].as_f64().unwrap());
    let times = f64s(&data["events"]["time"]);
    assert!(times.iter().all(|&t| t < end));
    // Only events of shown bodies (ids multiple of 3) are kept.
    let ids = |key: &str| -> Vec<u32> {
        unbase64(data["events"][key].as_str().unwrap())
            .chunks(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    let codes = unbase64(data["events"]["code"].as_str().unwrap());
    for ((a, b), c) in ids("a").iter().zip(ids("b")).zip(codes) {
        assert!(
            a % 3 == 0 || (c & 3 == 0 && b % 3 == 0),
            "event of {a} and {b}"
        );
    }
    // The budget bounds the data embedded (the page's own code is about 30 kB).
    ok(&kairos(&["view", "d.ktrace", "-o", "full.html"], &dir));
    let full = page_data(&std::fs::read_to_string(dir.join("full.html")).unwrap());
    let (thin, full) = (data.to_string().len(), full.to_string().len());
    assert!(thin < full / 8, "{thin} vs {full} bytes of data");
}

#[test]
fn bad_traces_exit_2_and_leave_no_page() {
    let dir = tempdir("bad");
    let bytes = demo_trace_and_damaged_copies(&dir);
    // One flipped bit in the last record's look-ahead (its bytes 8 to 15, read by no check of
    // the contents): only the footer's hash can tell.
    let mut flipped = bytes.clone();
    let last = flipped.len() - 40 - 128 + 8;
    flipped[last] ^= 1;
    std::fs::write(dir.join("flipped.ktrace"), &flipped).unwrap();
    let inputs = ["t.ktrace", "cut.ktrace", "junk.ktrace", "flipped.ktrace"];
    for (name, needle) in [
        ("cut.ktrace", "incomplete"),
        ("junk.ktrace", "not a Kairos trace"),
        ("flipped.ktrace", "hash"),
        ("missing.ktrace", "No such file"),
    ] {
        for args in [
            vec!["view", name, "-o", "out.html"],
            vec!["snapshot", name, "--time", "0", "-o", "out.svg"],
        ] {
            let o = kairos(&args, &dir);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            let err = text(&o.stderr);
            assert!(
                err.contains(name) && err.contains(needle),
                "{args:?}: {err}"
            );
            only(&dir, &inputs);
        }
    }
}

#[test]
fn an_empty_trace_gives_a_page_that_says_there_is_nothing_to_show() {
    let dir = tempdir("empty");
    let trace = run_scene(&dir, "quiet", QUIET, &[]);
    assert!(TraceReader::open(&dir.join(&trace)).unwrap().is_empty());
    ok(&kairos(&["view", &trace, "-o", "q.html"], &dir));
    let data = page_data(&std::fs::read_to_string(dir.join("q.html")).unwrap());
    assert_eq!(data["empty"], true);
    assert_eq!(data["events"]["count"], 0);
    assert!(notices(&data).contains("nothing to show"));
}

/// Every `<circle>` of an SVG as (cx, cy, r).
fn circles(svg: &str) -> Vec<[f64; 3]> {
    svg.split("<circle ")
        .skip(1)
        .map(|c| {
            let attr = |name: &str| -> f64 {
                let key = format!("{name}=\"");
                let from = c.find(&key).unwrap() + key.len();
                c[from..from + c[from..].find('"').unwrap()]
                    .parse()
                    .unwrap()
            };
            [attr("cx"), attr("cy"), attr("r")]
        })
        .collect()
}

#[test]
fn snapshot_draws_every_body_at_its_position() {
    let dir = tempdir("snapshot");
    let trace = run_scene(&dir, "room", ROOM, &[]);
    for (t, want) in [
        (0.0, [[2.0, 5.0], [8.0, 5.0], [5.0, 8.0]]),
        (1.0, [[3.0, 5.0], [7.0, 5.0], [5.0, 9.0]]),
        // After body 2 bounced off the top (t = 1.5) and bodies 0 and 1 off each other (2.5).
        (3.0, [[4.0, 5.0], [6.0, 5.0], [5.0, 8.0]]),
    ] {
        let ts = t.to_string();
        ok(&kairos(
            &["snapshot", &trace, "--time", &ts, "-o", "f.svg"],
            &dir,
        ));
        let svg = std::fs::read_to_string(dir.join("f.svg")).unwrap();
        assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
        let got = circles(&svg);
        assert_eq!(got.len(), 3, "{svg}");
        for (c, w) in got.iter().zip(want) {
            assert!(
                (c[0] - w[0]).abs() < 1e-12 && (c[1] - w[1]).abs() < 1e-12 && c[2] == 0.5,
                "t = {t}: {c:?}, expected {w:?}"
            );
        }
        // The room's four walls.
        assert_eq!(svg.matches("<line ").count(), 4);
    }
    // Outside the trace's time, another format, or axes a 2D trace does not have.
    for (args, needle) in [
        (
            vec!["--time", "5.5", "-o", "g.svg"],
            "outside the time range",
        ),
        (vec!["--time=-1", "-o", "g.svg"], "outside the time range"),
        (
            vec!["--time", "NaN", "-o", "g.svg"],
            "outside the time range",
        ),
        (vec!["--time", "1", "-o", "g.png"], "PNG is not written"),
        (vec!["--time", "1", "-o", "g.gif"], "unknown picture format"),
        (
            vec!["--time", "1", "-o", "g.svg", "--axes", "xz"],
            "has no z axis",
        ),
    ] {
        let mut all = vec!["snapshot", trace.as_str()];
        all.extend(args);
        let o = kairos(&all, &dir);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert!(text(&o.stderr).contains(needle), "{}", text(&o.stderr));
    }
    only(&dir, &["room.toml", "room.ktrace", "f.svg"]);
}

#[test]
fn three_d_and_periodic_traces() {
    let dir = tempdir("3d");
    ok(&kairos(
        &[
            "generate",
            "billiard",
            "--dim",
            "3",
            "--n",
            "20",
            "--duration",
            "1",
            "-o",
            "c.toml",
        ],
        &dir,
    ));
    ok(&kairos(&["run", "c.toml", "-q", "-o", "c.ktrace"], &dir));
    ok(&kairos(
        &["view", "c.ktrace", "-o", "c.html", "--axes", "xz"],
        &dir,
    ));
    let data = page_data(&std::fs::read_to_string(dir.join("c.html")).unwrap());
    assert_eq!(data["dim"], 3);
    assert_eq!(data["axes"], serde_json::json!([0, 2]));
    // The cube room's six faces, projected; and in 3D for the 3D view: six squares, each
    // across an axis, two on each.
    assert_eq!(data["walls"].as_array().unwrap().len(), 6);
    let walls3 = data["walls3"].as_array().unwrap();
    assert_eq!(walls3.len(), 6);
    let mut across = [0; 3];
    for w in walls3 {
        assert_eq!(w["type"], "polygon");
        let points: Vec<Vec<f64>> = serde_json::from_value(w["points"].clone()).unwrap();
        assert_eq!(points.len(), 4, "{w}");
        let axis = (0..3)
            .find(|&c| points.iter().all(|p| p[c] == points[0][c]))
            .expect("a face across an axis");
        across[axis] += 1;
    }
    assert_eq!(across, [2, 2, 2]);
    // A 3D page carries three.js and opens on the 3D view unless --projection; a 2D page
    // carries neither.
    let page = std::fs::read_to_string(dir.join("c.html")).unwrap();
    assert!(page.contains("var THREE=") && page.contains("three.js authors"));
    assert_eq!(data["projection"], false);
    ok(&kairos(
        &["view", "c.ktrace", "-o", "p.html", "--projection"],
        &dir,
    ));
    let flat = page_data(&std::fs::read_to_string(dir.join("p.html")).unwrap());
    assert_eq!(flat["projection"], true);
    ok(&kairos(
        &[
            "snapshot", "c.ktrace", "--time", "0.5", "--axes", "yz", "-o", "c.svg",
        ],
        &dir,
    ));
    let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
    assert_eq!(circles(&svg).len(), 20);
    assert_eq!(svg.matches("<polygon ").count(), 6);

    ok(&kairos(
        &[
            "generate",
            "gas",
            "--dim",
            "2",
            "--n",
            "30",
            "--packing",
            "0.3",
            "--duration",
            "1",
            "-o",
            "g.toml",
        ],
        &dir,
    ));
    ok(&kairos(&["run", "g.toml", "-q", "-o", "g.ktrace"], &dir));
    ok(&kairos(&["view", "g.ktrace", "-o", "g.html"], &dir));
    let page = std::fs::read_to_string(dir.join("g.html")).unwrap();
    assert!(!page.contains("THREE"), "no three.js in a 2D page");
    let data = page_data(&page);
    assert_eq!(data["walls3"], serde_json::json!([]));
    let l = data["periodic"].as_array().unwrap()[0].as_f64().unwrap();
    assert_eq!(data["bounds"][2].as_f64().unwrap(), l, "framed on the box");
    ok(&kairos(
        &["snapshot", "g.ktrace", "--time", "1", "-o", "g.svg"],
        &dir,
    ));
    let svg = std::fs::read_to_string(dir.join("g.svg")).unwrap();
    let got = circles(&svg);
    assert!(got.len() >= 30);
    // Bodies are drawn wrapped into the box (images across a face come after them).
    for c in &got[..30] {
        assert!(
            (0.0..l).contains(&c[0]) && (0.0..l).contains(&c[1]),
            "{c:?}"
        );
    }
}

#[test]
fn open_says_where_the_page_is_when_there_is_no_browser() {
    let dir = tempdir("open");
    let trace = run_scene(&dir, "room", ROOM, &[]);
    let o = kairos(&["view", &trace, "-o", "r.html", "--open"], &dir);
    ok(&o);
    let out = text(&o.stdout);
    let abs = std::fs::canonicalize(dir.join("r.html")).unwrap();
    assert!(
        out.contains(&format!("open {} in a browser", abs.display())),
        "{out}"
    );
    // A browser that cannot be started is not an error of the command either. (One that
    // starts and then fails is not seen: the page is handed over, not waited for.)
    let missing = dir.join("no-such-browser");
    let o = kairos_env(
        &["view", &trace, "-o", "r.html", "--open"],
        &dir,
        &[("BROWSER", missing.to_str().unwrap())],
    );
    ok(&o);
    assert!(
        text(&o.stdout).contains("no browser could be started"),
        "{}",
        text(&o.stdout)
    );
    // $BROWSER gets the page's path.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let script = dir.join("fake-browser");
        std::fs::write(
            &script,
            "#!/bin/sh\nd=$(dirname \"$0\")\necho \"$1\" > \"$d/opening\" && mv \"$d/opening\" \"$d/opened\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let o = kairos_env(
            &["view", &trace, "-o", "r.html", "--open"],
            &dir,
            &[("BROWSER", script.to_str().unwrap())],
        );
        ok(&o);
        assert!(text(&o.stdout).contains("opened"), "{}", text(&o.stdout));
        // The browser is started, not waited for.
        let start = std::time::Instant::now();
        while !dir.join("opened").exists() && start.elapsed().as_secs() < 20 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let opened = std::fs::read_to_string(dir.join("opened")).unwrap();
        assert_eq!(opened.trim(), abs.display().to_string());
    }
}

/// A 2D rigid trace's page carries each body's outline (body frame) and its angle and angular
/// velocity at the start and at each of its events; balls carry none.
#[test]
fn a_2d_rigid_page_turns_outlines() {
    let dir = tempdir("view-rigid");
    let scene = r#"
dim = 2
[simulation]
duration = 4.0
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
position = [8.0, 8.0]
velocity = [-1.0, -0.5]
radius = 0.5
"#;
    let trace = run_scene(&dir, "r", scene, &[]);
    ok(&kairos(&["view", &trace, "-o", "r.html"], &dir));
    let data = page_data(&std::fs::read_to_string(dir.join("r.html")).unwrap());
    let starts: Vec<u32> = unbase64(data["bodies"]["outlineStart"].as_str().unwrap())
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    // The plank's four corners, then nothing for the ball.
    assert_eq!(starts, [0, 4, 4]);
    let outline: Vec<f32> = unbase64(data["bodies"]["outline"].as_str().unwrap())
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let mut corners: Vec<(f32, f32)> = outline.chunks(2).map(|p| (p[0], p[1])).collect();
    corners.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(
        corners,
        [(-2.0, -0.1), (-2.0, 0.1), (2.0, -0.1), (2.0, 0.1)]
    );
    assert_eq!(f64s(&data["bodies"]["spin"]), [0.3, 2.0, 0.0, 0.0]);
    let events = data["events"]["count"].as_u64().unwrap() as usize;
    assert!(events > 0);
    let codes = unbase64(data["events"]["code"].as_str().unwrap());
    let slots: usize = codes
        .iter()
        .map(|c| usize::from(c & 4 != 0) + usize::from(c & 8 != 0))
        .sum();
    let spins = f64s(&data["events"]["spin"]);
    assert_eq!(spins.len(), 2 * slots);
    assert!(spins
        .chunks(2)
        .all(|s| (0.0..std::f64::consts::TAU).contains(&s[0]) && s[1].is_finite()));
}

fn f32s(v: &Value) -> Vec<f32> {
    unbase64(v.as_str().unwrap())
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

/// A 3D rigid trace's page carries each body's vertices (body frame), its rotation and angular
/// velocity at the start and at each of its events, which bodies tumble, and the tumbling
/// bodies' rotations at the times of a sample grid, computed by the simulation's own motion.
#[test]
fn a_3d_rigid_page_carries_vertices_rotations_and_samples_of_tumbling_bodies() {
    use kairos::trace::{Replay, TraceReader};
    let dir = tempdir("view-rigid-3d");
    let scene3 = r#"
dim = 3
[simulation]
duration = 2.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [6.0, 6.0, 6.0] }
[[bodies]]
shape = "box"
half_extents = [1.0, 0.5, 0.25]
position = [3.0, 3.0, 3.0]
velocity = [1.5, 0.7, -0.4]
angular_velocity = [0.3, 2.0, 0.1]
[[bodies]]
shape = "box"
half_extents = [0.3, 0.3, 0.3]
position = [1.0, 1.0, 1.0]
velocity = [0.5, 0.2, 0.1]
angular_velocity = [1.0, 0.0, 0.0]
[[bodies]]
position = [5.0, 5.0, 5.0]
velocity = [-0.5, -0.2, 0.0]
radius = 0.4
"#;
    let trace = run_scene(&dir, "r3", scene3, &[]);
    ok(&kairos(&["view", &trace, "-o", "r3.html"], &dir));
    let data = page_data(&std::fs::read_to_string(dir.join("r3.html")).unwrap());
    let starts: Vec<u32> = unbase64(data["bodies"]["outlineStart"].as_str().unwrap())
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    // Eight corners for each box, nothing for the ball.
    assert_eq!(starts, [0, 8, 16, 16]);
    let points = f32s(&data["bodies"]["outline"]);
    let mut corners: Vec<[f32; 3]> = points[..24].chunks(3).map(|p| [p[0], p[1], p[2]]).collect();
    corners.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(corners[0], [-1.0, -0.5, -0.25]);
    assert_eq!(corners[7], [1.0, 0.5, 0.25]);
    // Rotation and angular velocity at the start, as f32.
    let spin0 = f32s(&data["bodies"]["spin"]);
    assert_eq!(spin0.len(), 3 * 7);
    assert_eq!(&spin0[..7], &[1.0, 0.0, 0.0, 0.0, 0.3, 2.0, 0.1]);
    // Only the first box is anisotropic: it tumbles; the cube turns at a constant rate.
    assert_eq!(
        unbase64(data["bodies"]["tumbling"].as_str().unwrap()),
        [1, 0, 0]
    );
    let codes = unbase64(data["events"]["code"].as_str().unwrap());
    let slots: usize = codes
        .iter()
        .map(|c| usize::from(c & 4 != 0) + usize::from(c & 8 != 0))
        .sum();
    assert!(slots > 0);
    assert_eq!(f32s(&data["events"]["spin"]).len(), 7 * slots);
    // The samples: one tumbling body, on a grid from 0 to the end, each its replayed rotation.
    let samples = &data["samples"];
    assert_eq!(samples["count"], 1);
    let times = f64s(&samples["time"]);
    let rotations = f32s(&samples["rotation"]);
    assert_eq!(rotations.len(), 4 * times.len());
    assert_eq!((times[0], *times.last().unwrap()), (0.0, 2.0));
    assert!(times.windows(2).all(|w| w[0] < w[1]));
    // Fine enough that the body turns by at most 0.05 rad between samples (|ω| <= 2.1 here).
    assert!(
        times.len() as f64 > 2.0 * 2.1 / 0.05,
        "{} samples",
        times.len()
    );
    let (header, records) = TraceReader::open(&dir.join(&trace))
        .unwrap()
        .read_all()
        .unwrap();
    let mut replay = Replay::new(&header);
    let mut next = 0;
    for (k, &t) in times.iter().enumerate() {
        while next < records.len() && records[next].time <= t {
            replay.apply(&records[next]);
            next += 1;
        }
        let (q, _) = replay.orientation(0, t);
        let got = &rotations[4 * k..4 * k + 4];
        for c in 0..4 {
            assert_eq!(got[c], q[c] as f32, "sample {k} at t = {t}");
        }
    }
    // Balls keep circles: a 3D trace of balls carries none of this.
    let balls = r#"
dim = 3
[simulation]
duration = 1.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [6.0, 6.0, 6.0] }
[[bodies]]
position = [3.0, 3.0, 3.0]
velocity = [1.5, 0.7, -0.4]
radius = 0.5
"#;
    let trace = run_scene(&dir, "b3", balls, &[]);
    ok(&kairos(&["view", &trace, "-o", "b3.html"], &dir));
    let data = page_data(&std::fs::read_to_string(dir.join("b3.html")).unwrap());
    assert!(data["bodies"]["outline"].is_null());
    assert!(data["events"]["spin"].is_null());
    assert!(data["samples"].is_null());
}

/// A 3D mesh page carries each mesh body's triangles (indices into its vertices) beside its
/// edges, for the 3D view to shade: a 24 x 12 torus has 576, an icosphere of 2 subdivisions
/// 320, a box none.
#[test]
fn a_3d_mesh_page_carries_triangles() {
    let dir = tempdir("mesh-triangles");
    let scene = r#"dim = 3
[simulation]
duration = 1.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [6.0, 6.0, 6.0] }
[[bodies]]
shape = "mesh"
mesh = "torus"
size = [1.0, 0.3]
position = [2.0, 3.0, 3.0]
velocity = [1.0, 0.0, 0.0]
[[bodies]]
shape = "mesh"
mesh = "icosphere"
size = [0.5]
position = [4.5, 3.0, 3.0]
velocity = [-1.0, 0.1, 0.0]
[[bodies]]
shape = "box"
half_extents = [0.3, 0.3, 0.3]
position = [3.0, 1.0, 1.0]
velocity = [0.2, 0.3, 0.1]
"#;
    let trace = run_scene(&dir, "m", scene, &[]);
    ok(&kairos(&["view", &trace, "-o", "m.html"], &dir));
    let data = page_data(&std::fs::read_to_string(dir.join("m.html")).unwrap());
    let u32s = |v: &Value| -> Vec<u32> {
        unbase64(v.as_str().unwrap())
            .chunks(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    let start = u32s(&data["bodies"]["triangleStart"]);
    assert_eq!(start, [0, 576, 896, 896]);
    let triangles = u32s(&data["bodies"]["triangles"]);
    assert_eq!(triangles.len(), 3 * 896);
    let points = u32s(&data["bodies"]["outlineStart"]);
    // Every index names one of its body's vertices.
    for (body, range) in [(0, 0..576), (1, 576..896)] {
        let count = points[body + 1] - points[body];
        for t in range {
            assert!(triangles[3 * t..3 * t + 3].iter().all(|&k| k < count));
        }
    }
}
