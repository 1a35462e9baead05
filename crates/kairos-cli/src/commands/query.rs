//! `kairos query`: the convex queries of the library on two bodies described in a TOML file
//! (see docs/query-format.md): GJK distance, closest points and features, EPA penetration, and
//! the time of impact of their linear and angular motions.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use clap::Args;
use kairos::math::{DVec2, DVec3, Vector};
use kairos::query::{
    distance, penetration, time_of_impact, EpaOptions, EpaResult, Feature, GjkOptions, GjkResult,
    GjkStatus, ToiOptions, ToiResult, ToiStatus,
};
use kairos::scene::spec::SpecError;
use kairos::scene::{BodyDim, RigidBodySpec};
use serde_json::{json, Value};
use toml::Table;

use crate::show;

mod polyline;

/// Arguments of `kairos query`.
#[derive(Args)]
pub struct QueryArgs {
    /// The pair file (TOML: `dim`, two `[[bodies]]` and `[query] until`; see
    /// docs/query-format.md).
    pub pair: PathBuf,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    pub json: bool,
}

/// The top-level keys of a pair file.
const TOP_KEYS: [&str; 3] = ["dim", "bodies", "query"];

/// A pair file, read and checked.
struct Pair<V: Vector> {
    /// The two bodies, in file order.
    bodies: [RigidBodySpec<V>; 2],
    /// The `shape` names as written.
    names: [String; 2],
    /// The end of the time-of-impact interval `[0, until]`.
    until: f64,
}

/// Everything the command computes.
struct Answer<V: Vector> {
    /// GJK at time 0.
    gjk: GjkResult<V>,
    /// EPA at time 0, when GJK finds the bodies intersecting.
    epa: Option<EpaResult<V>>,
    /// The time of impact over `[0, until]`.
    toi: ToiResult<V>,
    /// The features of the closest points at the time of impact, when [`toi_has_geometry`].
    toi_features: Option<(Feature, Feature)>,
}

/// `kairos query PAIR.toml [--json]`.
pub fn query(a: QueryArgs) -> Result<ExitCode> {
    let path = &a.pair;
    let fail = |msg: String| anyhow!("{}: {msg}", show(path));
    let text = kairos::input::read_to_string(path, kairos::input::MAX_TEXT)
        .map_err(|e| fail(format!("cannot read: {e}")))?;
    let root: Table = text.parse().map_err(|e: toml::de::Error| {
        fail(format!(
            "invalid TOML: {}",
            e.to_string().trim_end().replace('\n', "\n  ")
        ))
    })?;
    let dim = read_dim(&root).map_err(fail)?;
    if polyline::in_pair(&root) {
        return polyline::answer(path, &root, dim, a.json);
    }
    match dim {
        2 => answer::<DVec2>(path, &root, a.json),
        _ => answer::<DVec3>(path, &root, a.json),
    }
}

/// Reads the pair in dimension `V`, queries it and prints the answer.
fn answer<V: BodyDim>(path: &Path, root: &Table, as_json: bool) -> Result<ExitCode> {
    let pair = read_pair::<V>(root).map_err(|msg| anyhow!("{}: {msg}", show(path)))?;
    let answer = compute(&pair);
    if as_json {
        outln!("{}", to_json(&pair, &answer));
    } else {
        print_report(path, &pair, &answer);
    }
    Ok(ExitCode::SUCCESS)
}

/// The `dim` of the file, after checking its top-level keys.
fn read_dim(root: &Table) -> Result<usize, String> {
    if let Some(k) = root.keys().find(|k| !TOP_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown field `{k}` (expected one of: {})",
            TOP_KEYS.join(", ")
        ));
    }
    match root.get("dim") {
        None => Err("missing field `dim` (2 or 3)".into()),
        Some(toml::Value::Integer(d @ (2 | 3))) => Ok(*d as usize),
        Some(v) => Err(format!("`dim` must be 2 or 3, got {v}")),
    }
}

/// The `[[bodies]]` items: exactly two.
fn body_items(root: &Table) -> Result<&[toml::Value], String> {
    let items = match root.get("bodies") {
        None => return Err("missing [[bodies]]: a pair file has exactly 2".into()),
        Some(toml::Value::Array(items)) => items,
        Some(_) => return Err("`bodies` must be an array of tables ([[bodies]])".into()),
    };
    if items.len() != 2 {
        return Err(format!(
            "a pair file has exactly 2 [[bodies]], got {}",
            items.len()
        ));
    }
    Ok(items)
}

/// A body's error; for an unknown shape, also the one `kairos query` adds to the library's.
fn spec_message(e: &SpecError) -> String {
    match e {
        SpecError::UnknownShape { .. } => format!("{e}; `kairos query` also takes `polyline` (2D)"),
        _ => e.to_string(),
    }
}

/// The two bodies and the `[query]` table; errors name the item (`body 1`, `[query]`).
fn read_pair<V: BodyDim>(root: &Table) -> Result<Pair<V>, String> {
    let items = body_items(root)?;
    let body = |i: usize| {
        let t = items[i]
            .as_table()
            .ok_or_else(|| format!("body {i}: must be a table"))?;
        let spec = RigidBodySpec::<V>::from_table(t, &[])
            .map_err(|e| format!("body {i}: {}", spec_message(&e)))?;
        if spec.mesh.is_some() {
            return Err(format!(
                "body {i}: shape: the queries take convex shapes, and a mesh is not one: for \
                 the time of contact of two meshes use the library's \
                 `kairos::ccd::tree::mesh_contact`, or run them in a scene"
            ));
        }
        if spec.is_compound() {
            return Err(format!(
                "body {i}: vertices: the queries take convex shapes, and this polygon is concave \
                 ({} convex pieces): query one convex piece at a time",
                spec.pieces.len()
            ));
        }
        let size = spec.shape.bounding_radius();
        if !(size >= kairos::scene::MIN_SIZE) {
            return Err(format!(
                "body {i}: shape: too small (bounding radius {}; at least {:e}: the squared \
                 distances of smaller shapes underflow)",
                kairos::num::Num(size),
                kairos::scene::MIN_SIZE
            ));
        }
        // `from_table` has checked that `shape` is a known name.
        let name = t["shape"].as_str().unwrap_or_default().to_string();
        Ok::<_, String>((spec, name))
    };
    let (b0, n0) = body(0)?;
    let (b1, n1) = body(1)?;
    let until = read_until(root).map_err(|e| format!("[query]: {e}"))?;
    Ok(Pair {
        bodies: [b0, b1],
        names: [n0, n1],
        until,
    })
}

/// `[query] until`: required, finite and `>= 0`.
fn read_until(root: &Table) -> Result<f64, String> {
    const MISSING: &str =
        "missing table (with `until`: the time of impact is searched in [0, until])";
    let q = match root.get("query") {
        None => return Err(MISSING.into()),
        Some(toml::Value::Table(q)) => q,
        Some(_) => return Err("must be a table".into()),
    };
    if let Some(k) = q.keys().find(|k| k.as_str() != "until") {
        return Err(format!("unknown field `{k}` (expected one of: until)"));
    }
    let until = match q.get("until") {
        None => return Err("missing field `until` (the end of the interval [0, until])".into()),
        Some(toml::Value::Float(x)) => *x,
        Some(toml::Value::Integer(i)) => *i as f64,
        Some(v) => return Err(format!("`until` must be a number, got {}", v.type_str())),
    };
    if (0.0..=kairos::scene::MAX_MAGNITUDE).contains(&until) {
        Ok(until)
    } else {
        Err(format!(
            "`until` must be in [0, {:e}], got {}",
            kairos::scene::MAX_MAGNITUDE,
            kairos::num::Num(until)
        ))
    }
}

/// GJK and (when intersecting) EPA at time 0, and the time of impact over `[0, until]`.
fn compute<V: BodyDim>(pair: &Pair<V>) -> Answer<V> {
    let [a, b] = &pair.bodies;
    let (pa, pb) = (a.motion.pose, b.motion.pose);
    let gjk = distance(&a.shape, &pa, &b.shape, &pb, &GjkOptions::default(), None);
    let epa = (gjk.status == GjkStatus::Intersecting)
        .then(|| penetration(&a.shape, &pa, &b.shape, &pb, &EpaOptions::default()));
    let toi = time_of_impact(
        &a.shape,
        &a.motion,
        &b.shape,
        &b.motion,
        0.0,
        pair.until,
        &ToiOptions::default(),
    );
    let toi_features = toi_has_geometry(&toi).then_some((toi.feature_a, toi.feature_b));
    Answer {
        gjk,
        epa,
        toi,
        toi_features,
    }
}

impl<V: Vector> Answer<V> {
    /// The distance at time 0: GJK's when apart, minus EPA's depth when penetrating.
    fn signed_distance(&self) -> f64 {
        match &self.epa {
            Some(e) => e.signed_distance(),
            None => self.gjk.distance,
        }
    }
    /// The closest points at time 0 (EPA's deepest points when penetrating) and the normal
    /// from the first body to the second.
    fn closest(&self) -> (V, V, V) {
        match &self.epa {
            Some(e) => (e.point_a, e.point_b, e.normal),
            None => (self.gjk.point_a, self.gjk.point_b, self.gjk.normal),
        }
    }
}

/// A time of impact's status in output: `hit` (contact at `time`), `overlapping` (at the
/// start), `none` (no contact up to `until`), `stalled` (a safe time, no contact before it).
fn toi_status_name(status: ToiStatus) -> &'static str {
    match status {
        ToiStatus::Approaching => "hit",
        ToiStatus::Penetrating => "overlapping",
        ToiStatus::NotBy | ToiStatus::Separating | ToiStatus::Grazing => "none",
        ToiStatus::Stalled => "stalled",
    }
}

/// A status's name in output: its variant in kebab case (`MaxIterations` → `max-iterations`),
/// so that statuses added to the library print without a change here.
fn status_name(debug: &str) -> String {
    let mut out = String::new();
    for (i, c) in debug.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A feature as JSON: `{"kind": "edge", "vertices": [0, 1]}`.
fn feature_json(f: Feature) -> Value {
    let (kind, vertices) = feature_parts(f);
    json!({"kind": kind, "vertices": vertices})
}

/// A feature's kind and vertex indices.
fn feature_parts(f: Feature) -> (&'static str, Vec<u32>) {
    match f {
        Feature::Vertex(i) => ("vertex", vec![i]),
        Feature::Edge(i, j) => ("edge", vec![i, j]),
        Feature::Face(i, j, k) => ("face", vec![i, j, k]),
        Feature::Curved => ("curved", vec![]),
        Feature::Interior => ("interior", vec![]),
    }
}

/// A feature for the report: `vertex 3`, `edge 0-2`, `curved`.
fn feature_text(f: Feature) -> String {
    let (kind, vertices) = feature_parts(f);
    let ids: Vec<String> = vertices.iter().map(u32::to_string).collect();
    if ids.is_empty() {
        kind.to_string()
    } else {
        format!("{kind} {}", ids.join("-"))
    }
}

/// Whether the time of impact's normal, points and features mean something: a contact found
/// (or the safe time reached at the step limit). Not for `none`, and not for `overlapping`,
/// whose geometry is the penetration at t = 0.
fn toi_has_geometry<V: Vector>(toi: &ToiResult<V>) -> bool {
    !matches!(
        toi.status,
        ToiStatus::NotBy | ToiStatus::Separating | ToiStatus::Grazing | ToiStatus::Penetrating
    )
}

/// The single JSON object of `--json`.
fn to_json<V: Vector>(pair: &Pair<V>, ans: &Answer<V>) -> Value {
    let (ca, cb, normal) = ans.closest();
    let penetration = ans.epa.as_ref().map(|e| {
        json!({
            "status": status_name(&format!("{:?}", e.status)),
            "depth": e.depth,
            "normal": e.normal.to_vec(),
            "points": [e.point_a.to_vec(), e.point_b.to_vec()],
            "iterations": e.iterations,
        })
    });
    let t = &ans.toi;
    let geometry = toi_has_geometry(t);
    json!({
        "dim": V::DIM,
        "shapes": pair.names,
        "status": status_name(&format!("{:?}", ans.gjk.status)),
        "distance": ans.signed_distance(),
        "closest": [ca.to_vec(), cb.to_vec()],
        "normal": normal.to_vec(),
        "features": [feature_json(ans.gjk.feature_a), feature_json(ans.gjk.feature_b)],
        "iterations": ans.gjk.iterations,
        "penetration": penetration,
        "toi": {
            "status": toi_status_name(t.status),
            "time": t.time,
            "until": pair.until,
            "distance": t.distance,
            "tolerance": t.tolerance,
            "normal": geometry.then(|| t.normal.to_vec()),
            "points": geometry.then(|| [t.point_a.to_vec(), t.point_b.to_vec()]),
            "features": ans.toi_features.map(|(fa, fb)| json!([feature_json(fa), feature_json(fb)])),
            "iterations": t.iterations,
        },
    })
}

/// A number for the report: 9 decimals, trailing zeros dropped; below `1e-4` (a gap of tiny
/// bodies is not zero) and from `1e16` on, 10 significant digits in exponent form.
fn num(x: f64) -> String {
    let a = x.abs();
    if a > 0.0 && a.is_finite() && !(1e-4..1e16).contains(&a) {
        let s = format!("{x:.9e}");
        let (mantissa, exponent) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
        return format!("{mantissa}e{exponent}");
    }
    let s = format!("{:.9}", x + 0.0);
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// A point or vector for the report: `(1.5, -2)`. A component below `1e-12` of the largest is
/// round-off and shown as 0.
fn vec_text<V: Vector>(v: V) -> String {
    let c = v.to_vec();
    let largest = c.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let parts: Vec<String> = c
        .into_iter()
        .map(|x| num(if x.abs() < 1e-12 * largest { 0.0 } else { x }))
        .collect();
    format!("({})", parts.join(", "))
}

/// The human report.
fn print_report<V: Vector>(path: &Path, pair: &Pair<V>, ans: &Answer<V>) {
    let [na, nb] = &pair.names;
    outln!("{}: {}D, body 0 {na}, body 1 {nb}", show(path), V::DIM);
    let (ca, cb, normal) = ans.closest();
    outln!("at t = 0");
    outln!(
        "  status     {} (GJK iterations {})",
        status_name(&format!("{:?}", ans.gjk.status)),
        ans.gjk.iterations
    );
    match &ans.epa {
        Some(e) => outln!(
            "  distance   {} (penetration depth {}, EPA {}, iterations {})",
            num(ans.signed_distance()),
            num(e.depth),
            status_name(&format!("{:?}", e.status)),
            e.iterations
        ),
        None => outln!("  distance   {}", num(ans.signed_distance())),
    }
    outln!("  closest    {}  {}", vec_text(ca), vec_text(cb));
    outln!("  normal     {}", vec_text(normal));
    outln!(
        "  features   {}  {}",
        feature_text(ans.gjk.feature_a),
        feature_text(ans.gjk.feature_b)
    );
    let t = &ans.toi;
    outln!("time of impact in [0, {}]", num(pair.until));
    outln!(
        "  status     {} (advancement steps {}, tolerance {:e})",
        toi_status_name(t.status),
        t.iterations,
        t.tolerance
    );
    if matches!(
        t.status,
        ToiStatus::NotBy | ToiStatus::Separating | ToiStatus::Grazing
    ) {
        return;
    }
    outln!("  time       {}", num(t.time));
    if !toi_has_geometry(t) {
        return;
    }
    outln!("  distance   {}", num(t.distance));
    outln!("  normal     {}", vec_text(t.normal));
    outln!(
        "  points     {}  {}",
        vec_text(t.point_a),
        vec_text(t.point_b)
    );
    if let Some((fa, fb)) = ans.toi_features {
        outln!("  features   {}  {}", feature_text(fa), feature_text(fb));
    }
}
