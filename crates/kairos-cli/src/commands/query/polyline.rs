//! `kairos query` on 2D polylines (docs/query-format.md, "Polylines (2D)"): the least distance
//! of the two bodies' segments at t = 0 ([`kairos::ccd::closest::segment_distance`]) and their
//! first contact in `[0, until]` ([`kairos::ccd::polyline::polyline_contact`], never after the
//! true first contact). A pair with a polyline takes a polyline or a segment (a 2-point
//! polyline) as the other body: the contact of an outline with a solid is another question.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use kairos::ccd::closest::segment_distance;
use kairos::ccd::polyline::{
    polyline_contact, PlanarMotion, Polyline, PolylineContact, PolylineError, PolylineFeatures,
};
use kairos::ccd::CcdOptions;
use kairos::math::DVec2;
use kairos::query::Feature;
use kairos::scene::spec::{shape_keys, SpecError, MOTION_KEYS, SHAPE_NAMES};
use kairos::scene::{RigidBodySpec, MAX_MAGNITUDE};
use serde_json::{json, Value};
use toml::Table;

use super::{body_items, feature_json, feature_text, num, read_until, spec_message, vec_text};
use crate::show;

/// The keys of a polyline body besides [`MOTION_KEYS`].
const OWN_KEYS: [&str; 2] = ["points", "closed"];

/// The `shape` name of a polyline body.
const NAME: &str = "polyline";

/// Whether a body of the pair file is a polyline (the pair is then answered here).
pub(super) fn in_pair(root: &Table) -> bool {
    body_items(root).is_ok_and(|items| {
        items
            .iter()
            .any(|b| b.get("shape").and_then(toml::Value::as_str) == Some(NAME))
    })
}

/// Two bodies as polylines placed at t = 0, with their motions.
struct LinePair {
    /// The polylines at t = 0, in world coordinates.
    lines: [Polyline; 2],
    /// Their motions about their `position`s.
    motions: [PlanarMotion; 2],
    /// The `shape` names as written (`polyline` or `segment`).
    names: [String; 2],
    /// The end of the interval `[0, until]`.
    until: f64,
}

/// What the command computes for a [`LinePair`].
struct LineAnswer {
    /// The least distance of the segments at t = 0 (0 when they may already meet).
    distance: f64,
    /// The segments of that distance (the pair that may meet, when they do).
    closest: [Feature; 2],
    /// The first contact in `[0, until]`.
    contact: Option<PolylineContact>,
    /// The status of the contact: `hit`, `overlapping` or `none`.
    status: &'static str,
    /// The contact's time; `until` for `none`.
    time: f64,
    /// The least distance of the segments at `time`.
    gap: f64,
    /// For a hit, the vertex and the point of the segment closest to it at `time`, in body
    /// order.
    points: Option<[[f64; 2]; 2]>,
    /// The features of the contact, in body order.
    features: Option<[Feature; 2]>,
}

/// Reads the pair with a polyline, answers it and prints the answer.
pub(super) fn answer(path: &Path, root: &Table, dim: usize, as_json: bool) -> Result<ExitCode> {
    let pair = read_pair(root, dim).map_err(|msg| anyhow!("{}: {msg}", show(path)))?;
    let ans = compute(&pair);
    if as_json {
        outln!("{}", to_json(&pair, &ans));
    } else {
        print_report(path, &pair, &ans);
    }
    Ok(ExitCode::SUCCESS)
}

/// The two bodies (a polyline, and a polyline or a segment) and `[query] until`; errors name
/// the item and the key.
fn read_pair(root: &Table, dim: usize) -> Result<LinePair, String> {
    let items = body_items(root)?;
    let tables = [0, 1].map(|i| {
        items[i]
            .as_table()
            .ok_or_else(|| format!("body {i}: must be a table"))
    });
    let [t0, t1] = tables;
    let tables = [t0?, t1?];
    if dim != 2 {
        let i = tables.iter().position(|t| is_polyline(t)).unwrap_or(0);
        return Err(format!(
            "body {i}: shape: a polyline exists only in 2D, not in {dim}D"
        ));
    }
    let body = |i: usize| read_body(tables[i]).map_err(|e| format!("body {i}: {e}"));
    let (l0, m0, n0) = body(0)?;
    let (l1, m1, n1) = body(1)?;
    let until = read_until(root).map_err(|e| format!("[query]: {e}"))?;
    Ok(LinePair {
        lines: [l0, l1],
        motions: [m0, m1],
        names: [n0, n1],
        until,
    })
}

fn is_polyline(t: &Table) -> bool {
    t.get("shape").and_then(toml::Value::as_str) == Some(NAME)
}

/// One body as a polyline at t = 0, its motion and its shape name; the message starts with
/// the key.
fn read_body(t: &Table) -> Result<(Polyline, PlanarMotion, String), String> {
    let (local, closed, spec, name) = if is_polyline(t) {
        check_keys(t).map_err(|e| e.to_string())?;
        let local = read_points(t).map_err(|e| e.to_string())?;
        let closed = match t.get("closed") {
            None => false,
            Some(toml::Value::Boolean(b)) => *b,
            Some(v) => {
                return Err(format!(
                    "closed: expected true or false, got {}",
                    v.type_str()
                ))
            }
        };
        // The motion keys are read by the library's reader, on the table with the polyline's
        // own keys replaced by those of a unit ball: the same checks and messages as for any
        // other body.
        let mut ball = t.clone();
        for k in OWN_KEYS {
            ball.remove(k);
        }
        ball.insert("shape".into(), "ball".into());
        ball.insert("radius".into(), 1.0.into());
        let spec = RigidBodySpec::<DVec2>::from_table(&ball, &[]).map_err(|e| e.to_string())?;
        (local, closed, spec, NAME.to_string())
    } else {
        let spec = RigidBodySpec::<DVec2>::from_table(t, &[]).map_err(|e| spec_message(&e))?;
        // `from_table` has checked the shape's name and keys.
        let name = t["shape"].as_str().unwrap_or_default().to_string();
        if name != "segment" {
            return Err(format!(
                "shape: a polyline is queried against a polyline or a segment, not a {name} \
                 (give its outline as a closed polyline to query its boundary)"
            ));
        }
        // `from_table` has checked that `a` and `b` hold 2 finite numbers each.
        let end = |k: &str| match t[k].as_array().map(|a| a.iter().map(number).collect()) {
            Some(Some::<Vec<f64>>(xs)) if xs.len() == 2 => Ok([xs[0], xs[1]]),
            _ => Err(format!("{k}: expected an array of 2 numbers")),
        };
        (vec![end("a")?, end("b")?], false, spec, name)
    };
    let key = if name == NAME { "points" } else { "a, b" };
    let closing = |e: &PolylineError| {
        if closed && matches!(e, PolylineError::Degenerate(s) if s + 1 == local.len()) {
            " (a closed polyline joins its last point to the first: do not repeat the first)"
        } else {
            ""
        }
    };
    Polyline::new(local.clone(), closed).map_err(|e| format!("{key}: {e}{}", closing(&e)))?;
    let pose = spec.motion.pose;
    let world = local
        .iter()
        .map(|p| pose.transform_point(DVec2::new(p[0], p[1])).to_array())
        .collect();
    let line = Polyline::new(world, closed).map_err(|e| {
        format!("{key}: placed by position and orientation, {e} (its ends round to one point)")
    })?;
    let motion = PlanarMotion::new(
        pose.position.to_array(),
        spec.motion.linear_velocity.to_array(),
        spec.motion.angular_velocity,
    );
    Ok((line, motion, name))
}

/// Refuses keys that are neither the motion's nor the polyline's.
fn check_keys(t: &Table) -> Result<(), SpecError> {
    for key in t.keys() {
        let k = key.as_str();
        if MOTION_KEYS.contains(&k) || OWN_KEYS.contains(&k) {
            continue;
        }
        let of_a_shape = SHAPE_NAMES
            .iter()
            .any(|n| shape_keys(n).is_some_and(|ks| ks.contains(&k)));
        return Err(if of_a_shape {
            SpecError::NotForShape {
                key: key.clone(),
                shape: NAME,
                takes: OWN_KEYS.join(", "),
            }
        } else {
            let allowed: Vec<&str> = MOTION_KEYS.iter().chain(&OWN_KEYS).copied().collect();
            SpecError::UnknownKey {
                key: key.clone(),
                allowed: allowed.join(", "),
            }
        });
    }
    Ok(())
}

/// A TOML number (integers too).
fn number(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Float(x) => Some(*x),
        toml::Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// `points = [[x, y], ...]`: finite numbers of magnitude at most `1e100`; elements are named
/// `points[i]`. The count is [`Polyline::new`]'s to check.
fn read_points(t: &Table) -> Result<Vec<[f64; 2]>, SpecError> {
    let hint = "a list of points of 2 numbers";
    let wrong = |key: String, expected: &str, v: &toml::Value| SpecError::WrongType {
        key,
        expected: expected.into(),
        got: v.type_str(),
    };
    let v = t.get("points").ok_or_else(|| SpecError::Missing {
        key: "points".into(),
        hint: hint.into(),
    })?;
    let arr = v
        .as_array()
        .ok_or_else(|| wrong("points".into(), hint, v))?;
    let mut out = Vec::with_capacity(arr.len());
    for (i, p) in arr.iter().enumerate() {
        let key = format!("points[{i}]");
        let xs = p
            .as_array()
            .ok_or_else(|| wrong(key.clone(), "an array of 2 numbers", p))?;
        if xs.len() != 2 {
            return Err(SpecError::WrongLength {
                key,
                expected: 2,
                got: xs.len(),
            });
        }
        let mut point = [0.0; 2];
        for (c, x) in point.iter_mut().zip(xs) {
            let value = number(x).ok_or_else(|| wrong(key.clone(), "an array of 2 numbers", x))?;
            if !value.is_finite() {
                return Err(SpecError::NonFinite { key, value });
            }
            if value.abs() > MAX_MAGNITUDE {
                return Err(SpecError::TooLarge { key, value });
            }
            *c = value;
        }
        out.push(point);
    }
    Ok(out)
}

/// The points of `line` at `t` (exactly the given ones at 0).
fn placed(line: &Polyline, motion: &PlanarMotion, t: f64) -> Vec<[f64; 2]> {
    if t == 0.0 {
        return line.points().to_vec();
    }
    line.points().iter().map(|&p| motion.at(p, t)).collect()
}

fn lift(p: [f64; 2]) -> [f64; 3] {
    [p[0], p[1], 0.0]
}

/// The least distance of the two polylines' segments at `t`, and the segments (index pairs)
/// where it is reached.
fn least_distance(pair: &LinePair, t: f64) -> (f64, [[usize; 2]; 2]) {
    let [a, b] = [0, 1].map(|i| placed(&pair.lines[i], &pair.motions[i], t));
    let mut best = (f64::INFINITY, [[0, 1], [0, 1]]);
    for [i, j] in pair.lines[0].segments() {
        for [k, l] in pair.lines[1].segments() {
            let d = segment_distance(lift(a[i]), lift(a[j]), lift(b[k]), lift(b[l]));
            if d < best.0 {
                best = (d, [[i, j], [k, l]]);
            }
        }
    }
    best
}

/// The point of segment `a b` closest to `p`.
fn closest_on_segment(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len2 = d[0] * d[0] + d[1] * d[1];
    let s = if len2 > 0.0 {
        (((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    [a[0] + s * d[0], a[1] + s * d[1]]
}

fn vertex(i: usize) -> Feature {
    Feature::Vertex(i as u32)
}

fn edge([i, j]: [usize; 2]) -> Feature {
    Feature::Edge(i as u32, j as u32)
}

/// The segment `k` of `line` as its index pair.
fn segment(line: &Polyline, k: usize) -> [usize; 2] {
    line.segments().nth(k).unwrap_or([0, 1])
}

/// The distance at t = 0 and the first contact in `[0, until]`.
fn compute(pair: &LinePair) -> LineAnswer {
    let [a, b] = &pair.lines;
    let [ma, mb] = &pair.motions;
    let contact = polyline_contact(a, ma, b, mb, pair.until, &CcdOptions::default());
    let (d0, near) = least_distance(pair, 0.0);
    let mut ans = LineAnswer {
        distance: d0,
        closest: near.map(edge),
        contact,
        status: "none",
        time: pair.until,
        gap: 0.0,
        points: None,
        features: None,
    };
    match contact {
        None => ans.gap = least_distance(pair, pair.until).0,
        Some(c) => match c.features {
            PolylineFeatures::Segments { first, second } => {
                let f = [edge(segment(a, first)), edge(segment(b, second))];
                ans.status = "overlapping";
                ans.time = 0.0;
                ans.distance = 0.0;
                ans.closest = f;
                ans.features = Some(f);
            }
            PolylineFeatures::VertexSegment {
                vertex_of_first,
                vertex: v,
                segment: s,
            } => {
                let (vi, si) = if vertex_of_first { (0, 1) } else { (1, 0) };
                let [i, j] = segment(&pair.lines[si], s);
                let at = |body: usize, k: usize| {
                    pair.motions[body].at(pair.lines[body].points()[k], c.time)
                };
                let p = at(vi, v);
                let q = closest_on_segment(p, at(si, i), at(si, j));
                let (points, features) = if vertex_of_first {
                    ([p, q], [vertex(v), edge([i, j])])
                } else {
                    ([q, p], [edge([i, j]), vertex(v)])
                };
                ans.status = "hit";
                ans.time = c.time;
                ans.gap = least_distance(pair, c.time).0;
                ans.points = Some(points);
                ans.features = Some(features);
            }
        },
    }
    ans
}

/// The JSON object: the keys of the convex answer, `null` for those that have no meaning here
/// (closest points and normals, iteration counts, tolerances, the penetration).
fn to_json(pair: &LinePair, ans: &LineAnswer) -> Value {
    let status = if ans.status == "overlapping" {
        "intersecting"
    } else {
        "separated"
    };
    json!({
        "dim": 2,
        "shapes": pair.names,
        "status": status,
        "distance": ans.distance,
        "closest": null,
        "normal": null,
        "features": ans.closest.map(feature_json),
        "iterations": null,
        "penetration": null,
        "toi": {
            "status": ans.status,
            "time": ans.time,
            "until": pair.until,
            "distance": ans.gap,
            "tolerance": null,
            "normal": null,
            "points": ans.points,
            "features": ans.features.map(|f| f.map(feature_json)),
            "iterations": null,
        },
    })
}

/// The human report.
fn print_report(path: &Path, pair: &LinePair, ans: &LineAnswer) {
    let [na, nb] = &pair.names;
    outln!("{}: 2D, body 0 {na}, body 1 {nb}", show(path));
    outln!("at t = 0");
    let status = if ans.status == "overlapping" {
        "intersecting (two segments meet)"
    } else {
        "separated"
    };
    outln!("  status     {status}");
    outln!("  distance   {}", num(ans.distance));
    let [fa, fb] = ans.closest;
    outln!("  features   {}  {}", feature_text(fa), feature_text(fb));
    outln!("time of impact in [0, {}]", num(pair.until));
    outln!(
        "  status     {} (vertex-segment tests, never after the first contact)",
        ans.status
    );
    if ans.contact.is_none() {
        return;
    }
    outln!("  time       {}", num(ans.time));
    if let Some([p, q]) = ans.points {
        outln!("  distance   {}", num(ans.gap));
        outln!(
            "  points     {}  {}",
            vec_text(DVec2::from_array(p)),
            vec_text(DVec2::from_array(q))
        );
    }
    if let Some([fa, fb]) = ans.features {
        outln!("  features   {}  {}", feature_text(fa), feature_text(fb));
    }
}
