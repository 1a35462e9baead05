//! `kairos query`: the answers for pair files, checked against the library, and the errors for
//! bad ones.

use crate::common;

use std::path::Path;

use common::{crate_file, kairos, ok, tempdir, text};
use kairos::math::{DQuat, DVec2, DVec3};
use kairos::query::{distance, GjkOptions};
use kairos::shape::{Pose, RigidMotion, Shape};
use serde_json::Value;

/// Runs `kairos query FILE --json` and parses its standard output, which must be one object.
fn query_json(file: &str, dir: &Path) -> Value {
    let o = kairos(&["query", file, "--json"], dir);
    ok(&o);
    let v: Value = serde_json::from_str(&text(&o.stdout)).expect("one JSON object");
    assert!(v.is_object(), "{v}");
    v
}

/// Writes `body` as `name` in `dir` and returns its path.
fn write(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p.display().to_string()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn point(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(num).collect()
}

/// The example of the format: a spinning plank drifting into a tall box.
#[test]
fn spinning_plank_hits_the_box() {
    let dir = tempdir("plank");
    let file = crate_file("../../scenes/query", "plank.toml");
    let v = query_json(&file, &dir);
    assert_eq!(v["status"], "separated");
    assert!((num(&v["distance"]) - 1.5).abs() < 1e-12);
    let toi = &v["toi"];
    assert_eq!(toi["status"], "hit");
    let t = num(&toi["time"]);
    // The plank's centre moves at 0.5 from x = 0; its farthest point is sqrt(2² + 0.1²) from
    // the centre, and the box face is at x = 3.5: no contact before the centre is at
    // 3.5 - 2.0025, and the tip sweeps past the face within one half turn after that.
    let reach = (4.0f64 + 0.01).sqrt();
    let earliest = (3.5 - reach) / 0.5;
    assert!(
        t >= earliest && t < earliest + std::f64::consts::PI / 3.0,
        "{t}"
    );

    // Recomputed with the library: tiny separation at the reported time, none before it.
    let plank = Shape::cuboid(DVec2::new(2.0, 0.1)).unwrap();
    let wall = Shape::cuboid(DVec2::new(0.5, 3.0)).unwrap();
    let spin = RigidMotion::new(0.0, Pose::IDENTITY, DVec2::new(0.5, 0.0), 3.0).unwrap();
    let rest = RigidMotion::at_rest(0.0, Pose::from_position(DVec2::new(4.0, 0.0)));
    let gap = |s: f64| {
        distance(
            &plank,
            &spin.pose_at(s),
            &wall,
            &rest.pose_at(s),
            &GjkOptions::default(),
            None,
        )
        .distance
    };
    let tol = num(&toi["tolerance"]);
    assert!(gap(t) <= tol && tol < 1e-6, "{} {tol}", gap(t));
    for k in 0..2000 {
        let s = t * k as f64 / 2000.0;
        assert!(gap(s) > 0.0, "contact at {s} before {t}");
    }
    // The reported points are the closest points at that time.
    let pts = toi["points"].as_array().unwrap();
    let (pa, pb) = (point(&pts[0]), point(&pts[1]));
    let apart = ((pa[0] - pb[0]).powi(2) + (pa[1] - pb[1]).powi(2)).sqrt();
    assert!(apart <= tol, "{apart}");
    assert!((pb[0] - 3.5).abs() < 1e-9, "{pb:?}: on the box's left face");
    assert_eq!(toi["features"][0]["kind"], "vertex", "{toi}");
    assert_eq!(toi["features"][1]["kind"], "edge", "{toi}");
}

/// The human report says the same in words.
#[test]
fn report_is_readable() {
    let dir = tempdir("report");
    let file = crate_file("../../scenes/query", "plank.toml");
    let o = kairos(&["query", &file], &dir);
    ok(&o);
    let out = text(&o.stdout);
    assert!(
        out.contains("plank.toml: 2D, body 0 box, body 1 box"),
        "{out}"
    );
    assert!(out.contains("distance   1.5\n"), "{out}");
    assert!(out.contains("time of impact in [0, 5]"), "{out}");
    assert!(out.contains("status     hit"), "{out}");
    assert!(out.contains("features   vertex 0  edge 0-2"), "{out}");
}

/// Tiny bodies' gaps and points are printed in exponent form, not rounded to 0.
#[test]
fn report_prints_tiny_gaps() {
    let dir = tempdir("tiny");
    let file = write(
        &dir,
        "tiny.toml",
        "dim = 2\n[[bodies]]\nshape = \"ball\"\nradius = 1e-15\nposition = [0.0, 0.0]\n\
         [[bodies]]\nshape = \"ball\"\nradius = 1e-15\nposition = [3.5e-15, 0.0]\n\
         [query]\nuntil = 1.0\n",
    );
    let o = kairos(&["query", &file], &dir);
    ok(&o);
    let out = text(&o.stdout);
    assert!(out.contains("distance   1.5e-15\n"), "{out}");
    assert!(out.contains("(1e-15, 0)"), "{out}");
}

/// The time of impact is scale-invariant: tiny balls apart by their radius, at rest, never
/// meet (the tolerance is relative to their size, with no absolute floor), and closing in on
/// each other they meet when balls of size 1 would, scaled.
#[test]
fn time_of_impact_is_scale_invariant() {
    let dir = tempdir("scale");
    for s in [1.0, 1e-15, 1e-100, 1e20] {
        let pair = |v: f64| {
            format!(
                "dim = 3\n[[bodies]]\nshape = \"ball\"\nradius = {s:e}\nposition = [0.0, 0.0, 0.0]\n\
                 [[bodies]]\nshape = \"ball\"\nradius = {s:e}\nposition = [{x:e}, 0.0, 0.0]\n\
                 velocity = [{v:e}, 0.0, 0.0]\n[query]\nuntil = 1.0\n",
                x = 3.0 * s,
                v = v * s,
            )
        };
        let still = query_json(&write(&dir, "still.toml", &pair(0.0)), &dir);
        assert_eq!(still["status"], "separated", "{s:e}: {still}");
        assert_eq!(still["toi"]["status"], "none", "{s:e}: {still}");
        let closing = query_json(&write(&dir, "closing.toml", &pair(-2.0)), &dir);
        assert_eq!(closing["toi"]["status"], "hit", "{s:e}: {closing}");
        let t = num(&closing["toi"]["time"]);
        assert!((t - 0.5).abs() <= 1e-12, "{s:e}: {t}");
    }
}

/// Shapes below 1e-100 are refused with the reason: their squared distances underflow.
#[test]
fn shapes_below_the_smallest_size_are_refused() {
    let dir = tempdir("tiny-refused");
    let file = write(
        &dir,
        "tiny.toml",
        "dim = 3\n[[bodies]]\nshape = \"ball\"\nradius = 1e-170\nposition = [0.0, 0.0, 0.0]\n\
         [[bodies]]\nshape = \"ball\"\nradius = 1.0\nposition = [3.0, 0.0, 0.0]\n\
         [query]\nuntil = 1.0\n",
    );
    let o = kairos(&["query", &file], &dir);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(e.contains("body 0") && e.contains("too small"), "{e}");
}

/// A 3D pair: a tumbling cube meets a capsule lying along x.
#[test]
fn tumbling_cube_hits_a_capsule() {
    let dir = tempdir("cube3d");
    let file = crate_file("../../scenes/query", "boxes-3d.toml");
    let v = query_json(&file, &dir);
    assert_eq!(v["dim"], 3);
    assert_eq!(v["shapes"], serde_json::json!(["box", "capsule"]));
    let toi = &v["toi"];
    assert_eq!(toi["status"], "hit");
    let t = num(&toi["time"]);

    let cube = Shape::cuboid(DVec3::splat(0.5)).unwrap();
    let capsule = Shape::capsule(1.0, 0.25).unwrap();
    let q = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_4);
    let a = RigidMotion::new(
        0.0,
        Pose::new(DVec3::new(-3.0, 0.2, 0.0), q),
        DVec3::X,
        DVec3::new(0.0, 2.0, 1.0),
    )
    .unwrap();
    let lying = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
    let b = RigidMotion::at_rest(0.0, Pose::new(DVec3::ZERO, lying));
    let gap = |s: f64| {
        distance(
            &cube,
            &a.pose_at(s),
            &capsule,
            &b.pose_at(s),
            &GjkOptions::default(),
            None,
        )
        .distance
    };
    assert!((gap(0.0) - num(&v["distance"])).abs() < 1e-9);
    // The capsule reaches x = -1.25 and the cube's corners 0.87 from its centre, which moves
    // at 1 from x = -3: contact between t = 0.88 and t = 1.75.
    assert!(t > 0.88 && t < 1.75, "{t}");
    let tol = num(&toi["tolerance"]);
    assert!(gap(t) <= tol, "{} {tol}", gap(t));
    for k in 0..1000 {
        let s = t * k as f64 / 1000.0;
        assert!(gap(s) > 0.0, "contact at {s} before {t}");
    }
}

/// Overlapping bodies: the distance is minus EPA's depth, and the time of impact is 0.
#[test]
fn overlapping_pair_has_negative_distance() {
    let dir = tempdir("overlap");
    let file = write(
        &dir,
        "overlap.toml",
        r#"
dim = 2
[[bodies]]
shape = "box"
half_extents = [1.0, 1.0]
position = [0.0, 0.0]
[[bodies]]
shape = "ball"
radius = 0.5
position = [1.25, 0.25]
velocity = [1.0, 0.0]
[query]
until = 1
"#,
    );
    let v = query_json(&file, &dir);
    assert_eq!(v["status"], "intersecting");
    let pen = &v["penetration"];
    assert_eq!(pen["status"], "penetrating");
    // The ball's centre is 0.25 outside the box face, its radius 0.5: depth 0.25 along +x.
    assert!((num(&pen["depth"]) - 0.25).abs() < 1e-12, "{pen}");
    assert_eq!(num(&v["distance"]), -num(&pen["depth"]));
    assert_eq!(point(&v["normal"]), point(&pen["normal"]));
    assert!((point(&v["normal"])[0] - 1.0).abs() < 1e-12);
    assert_eq!(v["closest"], pen["points"]);
    let toi = &v["toi"];
    assert_eq!(toi["status"], "overlapping");
    assert_eq!(num(&toi["time"]), 0.0);
    assert_eq!(toi["normal"], Value::Null);
    assert_eq!(toi["points"], Value::Null);
    assert_eq!(toi["features"], Value::Null);
}

/// Bodies moving apart never meet: `none`, at the end of the interval, with no geometry.
#[test]
fn receding_pair_never_meets() {
    let dir = tempdir("none");
    let file = write(
        &dir,
        "apart.toml",
        r#"
dim = 3
[[bodies]]
shape = "cylinder"
half_height = 1.0
radius = 0.5
position = [0, 0, 0]
velocity = [-1, 0, 0]
angular_velocity = [0, 0, 5]
[[bodies]]
shape = "cone"
half_height = 1.0
radius = 0.5
position = [3, 0, 0]
velocity = [1, 0, 0]
[query]
until = 10.0
"#,
    );
    let v = query_json(&file, &dir);
    assert_eq!(v["status"], "separated");
    // The cylinder's side at x = 0.5, the rim of the cone's base at x = 2.5.
    assert!((num(&v["distance"]) - 2.0).abs() < 1e-8, "{v}");
    let toi = &v["toi"];
    assert_eq!(toi["status"], "none");
    assert_eq!(num(&toi["time"]), 10.0);
    assert_eq!(toi["points"], Value::Null);
    assert_eq!(toi["features"], Value::Null);
}

/// `--json` prints exactly one object with every key, of the right JSON types.
#[test]
fn json_has_every_key() {
    let dir = tempdir("keys");
    let file = crate_file("../../scenes/query", "plank.toml");
    let v = query_json(&file, &dir);
    let top: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let mut want = vec![
        "closest",
        "dim",
        "distance",
        "features",
        "iterations",
        "normal",
        "penetration",
        "shapes",
        "status",
        "toi",
    ];
    want.sort_unstable();
    assert_eq!(top, want);
    assert_eq!(v["closest"].as_array().unwrap().len(), 2);
    for p in v["closest"].as_array().unwrap() {
        assert_eq!(point(p).len(), 2);
    }
    for f in v["features"].as_array().unwrap() {
        assert!(f["kind"].is_string() && f["vertices"].is_array(), "{f}");
    }
    let toi: Vec<&str> = v["toi"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        toi,
        [
            "distance",
            "features",
            "iterations",
            "normal",
            "points",
            "status",
            "time",
            "tolerance",
            "until"
        ]
    );
    assert_eq!(num(&v["toi"]["until"]), 5.0);
    // GJK's iterations at t = 0: none for the pairs with a closed form (two 2D boxes).
    assert!(v["iterations"].as_u64().is_some());
}

/// Bad files: a clear message naming the file, the item and the problem; exit 2; nothing on
/// standard output.
#[test]
fn bad_files_are_refused() {
    let dir = tempdir("bad");
    let ball = "shape = \"ball\"\nradius = 1.0\n";
    let good_a = format!("[[bodies]]\n{ball}position = [0, 0]\n");
    let good_b = format!("[[bodies]]\n{ball}position = [5, 0]\n");
    let query = "[query]\nuntil = 1.0\n";
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "missing.toml",
            format!("dim = 2\n{good_a}[[bodies]]\nshape = \"box\"\nposition = [5, 0]\n{query}"),
            "missing.toml: body 1: half_extents: missing (2 numbers)",
        ),
        (
            "length.toml",
            format!(
                "dim = 2\n{good_a}[[bodies]]\nshape = \"box\"\nhalf_extents = [1, 1, 1]\n\
                 position = [5, 0]\n{query}"
            ),
            "length.toml: body 1: half_extents: expected 2 numbers, got 3",
        ),
        (
            "unknown.toml",
            format!("dim = 2\n[[bodies]]\nshape = \"sphere\"\nradius = 1\nposition = [0, 0]\n{good_b}{query}"),
            "unknown.toml: body 0: shape: unknown shape `sphere` (expected one of: ball, box,",
        ),
        (
            "nan.toml",
            format!("dim = 2\n{good_a}[[bodies]]\n{ball}position = [5, 0]\nvelocity = [nan, 0]\n{query}"),
            "nan.toml: body 1: velocity: must be finite, got NaN",
        ),
        (
            "three.toml",
            format!("dim = 2\n{good_a}{good_b}{good_b}{query}"),
            "three.toml: a pair file has exactly 2 [[bodies]], got 3",
        ),
        (
            "cylinder.toml",
            format!(
                "dim = 2\n{good_a}[[bodies]]\nshape = \"cylinder\"\nhalf_height = 1\nradius = 1\n\
                 position = [5, 0]\n{query}"
            ),
            "cylinder.toml: body 1: shape: a cylinder exists only in 3D, not in 2D",
        ),
        (
            "dim.toml",
            format!("{good_a}{good_b}{query}"),
            "dim.toml: missing field `dim` (2 or 3)",
        ),
        (
            "dim4.toml",
            format!("dim = 4\n{good_a}{good_b}{query}"),
            "dim4.toml: `dim` must be 2 or 3, got 4",
        ),
        (
            "top.toml",
            format!("dim = 2\nsimulation = 1\n{good_a}{good_b}{query}"),
            "top.toml: unknown field `simulation` (expected one of: dim, bodies, query)",
        ),
        (
            "until.toml",
            format!("dim = 2\n{good_a}{good_b}[query]\n"),
            "until.toml: [query]: missing field `until`",
        ),
        (
            "negative.toml",
            format!("dim = 2\n{good_a}{good_b}[query]\nuntil = -1\n"),
            "negative.toml: [query]: `until` must be in [0, 1e100], got -1",
        ),
        (
            "noquery.toml",
            format!("dim = 2\n{good_a}{good_b}"),
            "noquery.toml: [query]: missing table (with `until`",
        ),
        (
            "querykey.toml",
            format!("dim = 2\n{good_a}{good_b}{query}tolerance = 1e-3\n"),
            "querykey.toml: [query]: unknown field `tolerance` (expected one of: until)",
        ),
        (
            "table.toml",
            "dim = 2\nbodies = [1, 2]\n[query]\nuntil = 1\n".to_string(),
            "table.toml: body 0: must be a table",
        ),
        (
            "toml.toml",
            "dim = 2\n[[bodies]\n".to_string(),
            "toml.toml: invalid TOML",
        ),
    ];
    for (name, body, want) in &cases {
        let file = write(&dir, name, body);
        let o = kairos(&["query", &file, "--json"], &dir);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert!(o.stdout.is_empty(), "{name}");
    }
    let o = kairos(&["query", "no-such-file.toml"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no-such-file.toml: cannot read"));
}

/// A body of a polyline pair for the sampling check: its points at t = 0 (world) and motion.
struct Line {
    points: Vec<[f64; 2]>,
    closed: bool,
    motion: kairos::ccd::polyline::PlanarMotion,
}

impl Line {
    fn segments_at(&self, t: f64) -> Vec<[[f64; 2]; 2]> {
        let p: Vec<[f64; 2]> = self.points.iter().map(|&q| self.motion.at(q, t)).collect();
        let n = p.len();
        let count = if self.closed { n } else { n - 1 };
        (0..count).map(|i| [p[i], p[(i + 1) % n]]).collect()
    }
}

/// The least distance of the two lines' segments at `t`, and whether two of them cross.
fn lines_at(a: &Line, b: &Line, t: f64) -> (f64, bool) {
    use kairos::ccd::closest::segment_distance;
    let lift = |p: [f64; 2]| [p[0], p[1], 0.0];
    let orient = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| {
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    };
    let (mut least, mut cross) = (f64::INFINITY, false);
    for [p, q] in a.segments_at(t) {
        for [r, s] in b.segments_at(t) {
            least = least.min(segment_distance(lift(p), lift(q), lift(r), lift(s)));
            cross |= orient(p, q, r) * orient(p, q, s) <= 0.0
                && orient(r, s, p) * orient(r, s, q) <= 0.0;
        }
    }
    (least, cross)
}

/// The example of polylines: a spinning open zig-zag drifting into a square's outline. The
/// contact is at a time where the two are (nearly) touching, and a fine sampling of the
/// motions finds no crossing before it.
#[test]
fn spinning_zigzag_hits_the_square_outline() {
    use kairos::ccd::polyline::PlanarMotion;
    let dir = tempdir("polylines");
    let file = crate_file("../../scenes/query", "polylines.toml");
    let v = query_json(&file, &dir);
    assert_eq!(v["shapes"], serde_json::json!(["polyline", "polyline"]));
    assert_eq!(v["status"], "separated");
    // The zig-zag's end at (1.5, 0), the square's left side at x = 3.
    assert!((num(&v["distance"]) - 1.5).abs() < 1e-12, "{v}");
    assert_eq!(v["penetration"], Value::Null);
    let toi = &v["toi"];
    assert_eq!(toi["status"], "hit", "{toi}");
    let t = num(&toi["time"]);

    let zigzag = Line {
        points: vec![[-1.5, 0.0], [-0.5, 0.4], [0.5, -0.4], [1.5, 0.0]],
        closed: false,
        motion: PlanarMotion::new([0.0, 0.0], [1.0, 0.0], 2.0),
    };
    let square = Line {
        points: vec![[3.0, -1.0], [5.0, -1.0], [5.0, 1.0], [3.0, 1.0]],
        closed: true,
        motion: PlanarMotion::new([4.0, 0.0], [0.0, 0.0], 0.0),
    };
    let (gap, _) = lines_at(&zigzag, &square, t);
    assert!(gap < 1e-6, "{gap} at {t}");
    assert!((num(&toi["distance"]) - gap).abs() < 1e-12, "{toi}");
    // Sampled every 1e-5: the first sample where two segments cross or touch is not before
    // the reported time, and not long after it.
    let step = 1e-5;
    let first = (0..=500_000)
        .map(|k| k as f64 * step)
        .find(|&s| {
            let (d, cross) = lines_at(&zigzag, &square, s);
            cross || d == 0.0
        })
        .expect("the sampled motions meet");
    assert!(t <= first, "{t} after the sampled first contact {first}");
    assert!(first - t < 1e-3, "{t} long before {first}");
    // A vertex of one met a segment of the other; the points are the vertex and the nearest
    // point of the segment.
    let f = toi["features"].as_array().unwrap();
    let kinds: Vec<&str> = f.iter().map(|x| x["kind"].as_str().unwrap()).collect();
    assert!(
        kinds == ["vertex", "edge"] || kinds == ["edge", "vertex"],
        "{toi}"
    );
    let pts = toi["points"].as_array().unwrap();
    let (pa, pb) = (point(&pts[0]), point(&pts[1]));
    assert!((pa[0] - pb[0]).hypot(pa[1] - pb[1]) < 1e-6, "{toi}");
}

/// A vertex moving straight at a still segment, without rotation, meets it at an exact time;
/// a `segment` body counts as a 2-point polyline. The report says the same in words.
#[test]
fn vertex_moving_straight_meets_a_segment_on_time() {
    let dir = tempdir("straight");
    let file = write(
        &dir,
        "straight.toml",
        r#"
dim = 2
[[bodies]]
shape = "segment"
a = [0, -1]
b = [0, 1]
position = [3, 0]
[[bodies]]
shape = "polyline"
points = [[-1, 0], [0, 0]]
position = [0, 0]
orientation = 0.5
velocity = [2, 0]
[query]
until = 4
"#,
    );
    let v = query_json(&file, &dir);
    assert_eq!(v["shapes"], serde_json::json!(["segment", "polyline"]));
    let toi = &v["toi"];
    assert_eq!(toi["status"], "hit");
    let t = num(&toi["time"]);
    // The polyline's end is its position: it reaches x = 3 at t = 1.5.
    assert!(t <= 1.5 && t > 1.5 - 1e-6, "{t}");
    assert_eq!(
        toi["features"],
        serde_json::json!([
            {"kind": "edge", "vertices": [0, 1]},
            {"kind": "vertex", "vertices": [1]}
        ])
    );
    let o = kairos(&["query", &file], &dir);
    ok(&o);
    let out = text(&o.stdout);
    assert!(
        out.contains("straight.toml: 2D, body 0 segment, body 1 polyline"),
        "{out}"
    );
    assert!(out.contains("distance   3\n"), "{out}");
    assert!(out.contains("status     hit"), "{out}");
    assert!(out.contains("features   edge 0-1  vertex 1"), "{out}");
}

/// Polylines apart and moving apart never meet: `none` at the end of the interval.
#[test]
fn receding_polylines_never_meet() {
    let dir = tempdir("lines-none");
    let file = write(
        &dir,
        "apart.toml",
        r#"
dim = 2
[[bodies]]
shape = "polyline"
points = [[-1, 0], [0, 1], [1, 0]]
closed = true
position = [0, 0]
velocity = [-1, 0]
angular_velocity = 4
[[bodies]]
shape = "polyline"
points = [[0, -1], [0, 1], [0.5, 2]]
position = [3, 0]
velocity = [1, 0.5]
[query]
until = 10
"#,
    );
    let v = query_json(&file, &dir);
    assert_eq!(v["status"], "separated");
    assert!((num(&v["distance"]) - 2.0).abs() < 1e-12, "{v}");
    assert_eq!(
        v["features"],
        serde_json::json!([
            {"kind": "edge", "vertices": [1, 2]},
            {"kind": "edge", "vertices": [0, 1]}
        ])
    );
    let toi = &v["toi"];
    assert_eq!(toi["status"], "none");
    assert_eq!(num(&toi["time"]), 10.0);
    assert!(num(&toi["distance"]) > 10.0, "{toi}");
    assert_eq!(toi["points"], Value::Null);
    assert_eq!(toi["features"], Value::Null);
}

/// Polylines whose segments cross at t = 0 touch at 0: `overlapping`, distance 0, and the two
/// segments that cross.
#[test]
fn crossing_polylines_overlap_at_zero() {
    let dir = tempdir("lines-cross");
    let file = write(
        &dir,
        "cross.toml",
        r#"
dim = 2
[[bodies]]
shape = "polyline"
points = [[-2, 0], [-1, 0], [1, 0]]
position = [0, 0]
velocity = [0, 1]
[[bodies]]
shape = "polyline"
points = [[-1, -1], [-1, 1], [1, 1], [1, -1]]
closed = true
position = [0.5, 0]
orientation = 0.1
[query]
until = 1
"#,
    );
    let v = query_json(&file, &dir);
    assert_eq!(v["status"], "intersecting");
    assert_eq!(num(&v["distance"]), 0.0);
    let toi = &v["toi"];
    assert_eq!(toi["status"], "overlapping");
    assert_eq!(num(&toi["time"]), 0.0);
    assert_eq!(toi["points"], Value::Null);
    let f = toi["features"].as_array().unwrap();
    assert!(f.iter().all(|x| x["kind"] == "edge"), "{toi}");
    assert_eq!(v["features"], toi["features"]);
}

/// Bad polyline bodies: a clear message naming the file, the body and the key; exit 2.
#[test]
fn bad_polylines_are_refused() {
    let dir = tempdir("bad-lines");
    let good = "[[bodies]]\nshape = \"polyline\"\npoints = [[0, 0], [1, 0]]\nposition = [5, 0]\n";
    let query = "[query]\nuntil = 1.0\n";
    let line =
        |keys: &str| format!("[[bodies]]\nshape = \"polyline\"\nposition = [0, 0]\n{keys}\n");
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "one.toml",
            format!("dim = 2\n{}{good}{query}", line("points = [[0, 0]]")),
            "one.toml: body 0: points: a polyline needs at least 2 points, got 1",
        ),
        (
            "empty.toml",
            format!("dim = 2\n{}{good}{query}", line("points = []\nclosed = true")),
            "empty.toml: body 0: points: a polyline needs at least 3 points, got 0",
        ),
        (
            "closed2.toml",
            format!(
                "dim = 2\n{good}{}{query}",
                line("points = [[0, 0], [1, 0]]\nclosed = true")
            ),
            "closed2.toml: body 1: points: a polyline needs at least 3 points, got 2",
        ),
        (
            "nan.toml",
            format!("dim = 2\n{}{good}{query}", line("points = [[0, 0], [nan, 1]]")),
            "nan.toml: body 0: points[1]: must be finite, got NaN",
        ),
        (
            "inf.toml",
            format!("dim = 2\n{good}{}{query}", line("points = [[0, 0], [1, inf]]")),
            "inf.toml: body 1: points[1]: must be finite, got inf",
        ),
        (
            "three.toml",
            format!("dim = 2\n{}{good}{query}", line("points = [[0, 0], [1, 0, 0]]")),
            "three.toml: body 0: points[1]: expected 2 numbers, got 3",
        ),
        (
            "missing.toml",
            format!("dim = 2\n{}{good}{query}", line("")),
            "missing.toml: body 0: points: missing",
        ),
        (
            "repeat.toml",
            format!(
                "dim = 2\n{}{good}{query}",
                line("points = [[0, 0], [1, 0], [1, 0], [2, 1]]")
            ),
            "repeat.toml: body 0: points: segment 1 has no length (its ends coincide)",
        ),
        (
            "loop.toml",
            format!(
                "dim = 2\n{}{good}{query}",
                line("points = [[0, 0], [1, 0], [1, 1], [0, 0]]\nclosed = true")
            ),
            "loop.toml: body 0: points: segment 3 has no length (its ends coincide) (a closed \
             polyline joins its last point to the first",
        ),
        (
            "closed.toml",
            format!("dim = 2\n{}{good}{query}", line("points = [[0, 0], [1, 0]]\nclosed = 1")),
            "closed.toml: body 0: closed: expected true or false, got integer",
        ),
        (
            "radius.toml",
            format!("dim = 2\n{}{good}{query}", line("points = [[0, 0], [1, 0]]\nradius = 1")),
            "radius.toml: body 0: radius: not a field of a polyline (a polyline takes: points, \
             closed)",
        ),
        (
            "velocity.toml",
            format!(
                "dim = 2\n{}{good}{query}",
                line("points = [[0, 0], [1, 0]]\nvelocity = [1, nan]")
            ),
            "velocity.toml: body 0: velocity: must be finite, got NaN",
        ),
        (
            "dim3.toml",
            format!(
                "dim = 3\n[[bodies]]\nshape = \"ball\"\nradius = 1\nposition = [0, 0, 0]\n{good}{query}"
            ),
            "dim3.toml: body 1: shape: a polyline exists only in 2D, not in 3D",
        ),
        (
            "box.toml",
            format!(
                "dim = 2\n{good}[[bodies]]\nshape = \"box\"\nhalf_extents = [1, 1]\n\
                 position = [0, 0]\n{query}"
            ),
            "box.toml: body 1: shape: a polyline is queried against a polyline or a segment, \
             not a box",
        ),
        (
            "sphere.toml",
            format!(
                "dim = 2\n[[bodies]]\nshape = \"sphere\"\nradius = 1\nposition = [0, 0]\n{good}{query}"
            ),
            "sphere.toml: body 0: shape: unknown shape `sphere` (expected one of: ball, box,",
        ),
        (
            "until.toml",
            format!("dim = 2\n{good}{good}[query]\nuntil = nan\n"),
            "until.toml: [query]: `until` must be in [0, 1e100], got NaN",
        ),
    ];
    for (name, body, want) in &cases {
        let file = write(&dir, name, body);
        let o = kairos(&["query", &file, "--json"], &dir);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert!(o.stdout.is_empty(), "{name}");
    }
    // An unknown shape in a convex pair also names the polyline.
    let file = write(
        &dir,
        "unknown.toml",
        &format!(
            "dim = 2\n[[bodies]]\nshape = \"sphere\"\nradius = 1\nposition = [0, 0]\n\
             [[bodies]]\nshape = \"ball\"\nradius = 1\nposition = [5, 0]\n{query}"
        ),
    );
    let o = kairos(&["query", &file], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("`kairos query` also takes `polyline` (2D)"),
        "{}",
        text(&o.stderr)
    );
}

/// A reader that goes away (`kairos query ... | head`) ends the program quietly with 141
/// (128 + SIGPIPE), as a shell reports for a program a pipe closed on: no panic, no message.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_report_quietly() {
    use std::process::{Command, Stdio};
    let file = crate_file("../../scenes/query", "plank.toml");
    // The reader is gone before the program starts (closed here, not after the spawn: a
    // report small enough for the pipe's buffer could be written before a late close).
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(["query", &file])
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kairos");
    let out = child.wait_with_output().expect("kairos ends");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{err}");
    assert!(err.is_empty(), "{err}");
}

/// An ellipsoid and an ellipse in pair files: the distance of an ellipsoid from a box face is
/// its half axis along the face's normal; an ellipse falling on a segment hits it when its
/// lowest point reaches it.
#[test]
fn ellipsoids_answer_in_pair_files() {
    let dir = tempdir("ellipsoid");
    let file = write(
        &dir,
        "ellipsoid.toml",
        r#"
dim = 3
[[bodies]]
shape = "ellipsoid"
half_axes = [2.0, 0.5, 1.0]
position = [0.0, 0.0, 0.0]
[[bodies]]
shape = "box"
half_extents = [3.0, 0.5, 3.0]
position = [0.0, 1.5, 0.0]
[query]
until = 1
"#,
    );
    let v = query_json(&file, &dir);
    assert_eq!(v["status"], "separated");
    // The ellipsoid's top at y = 0.5, the box's bottom face at y = 1.
    assert!((num(&v["distance"]) - 0.5).abs() < 1e-9, "{v}");
    assert!((point(&v["normal"])[1] - 1.0).abs() < 1e-6, "{v}");

    let file = write(
        &dir,
        "ellipse.toml",
        r#"
dim = 2
[[bodies]]
shape = "ellipsoid"
half_axes = [1.0, 0.25]
position = [0.0, 2.0]
velocity = [0.0, -1.0]
[[bodies]]
shape = "segment"
a = [-5.0, 0.0]
b = [5.0, 0.0]
position = [0.0, 0.0]
[query]
until = 5
"#,
    );
    let v = query_json(&file, &dir);
    let toi = &v["toi"];
    assert_eq!(toi["status"], "hit", "{v}");
    // The lowest point, 0.25 below the centre, reaches y = 0 at t = 1.75; never later.
    let t = num(&toi["time"]);
    assert!(t <= 1.75 && t > 1.75 - 1e-6, "{t}");
}
