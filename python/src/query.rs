//! The convex queries and the mesh features' continuous collision detection, from Python, on
//! numpy inputs: one query, or one a row of a batch (the GIL released while they run).

use std::cell::Cell;
use std::time::{Duration, Instant};

use kairos::ccd::{edge_edge, vertex_face, CcdOptions, Interval, LinearPoint};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::query::{
    distance, penetration, time_of_impact, EpaOptions, GjkOptions, GjkStatus, ToiOptions, ToiStatus,
};
use kairos::scene::{BodyDim, RigidBodySpec};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyTuple};

/// How often a long query runs Python's signal handlers (Ctrl-C stops it within about this).
const SIGNALS_EVERY: Duration = Duration::from_millis(50);

/// How deep lists and dicts may nest in a body's dict (a scene's deepest is three: a compound's
/// parts' lists of points).
const MAX_DEPTH: usize = 16;

/// A Python value of a body's dict as TOML (numbers, strings, booleans, lists, dicts).
pub(crate) fn to_toml(v: &Bound<'_, PyAny>, key: &str) -> PyResult<toml::Value> {
    to_toml_at(v, key, 0)
}

/// [`to_toml`] at nesting depth `depth`: refused past [`MAX_DEPTH`] (a list that contains
/// itself would otherwise recurse until the stack overflows).
fn to_toml_at(v: &Bound<'_, PyAny>, key: &str, depth: usize) -> PyResult<toml::Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "`{key}`: lists and dicts nested more than {MAX_DEPTH} deep"
        )));
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if let Ok(i) = v.extract::<i64>() {
        return Ok(toml::Value::Integer(i));
    }
    if let Ok(x) = v.extract::<f64>() {
        return Ok(toml::Value::Float(x));
    }
    if let Ok(s) = v.extract::<String>() {
        return Ok(toml::Value::String(s));
    }
    if let Ok(d) = v.downcast::<PyDict>() {
        return Ok(toml::Value::Table(table_at(d, depth + 1)?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items = v
            .try_iter()?
            .map(|x| to_toml_at(&x?, key, depth + 1))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(toml::Value::Array(items));
    }
    Err(PyValueError::new_err(format!(
        "`{key}`: a {} is not a number, string, list or dict",
        v.get_type().name()?
    )))
}

/// A body's dict as a TOML table.
fn table(d: &Bound<'_, PyDict>) -> PyResult<toml::Table> {
    table_at(d, 0)
}

/// [`table`] at nesting depth `depth`.
fn table_at(d: &Bound<'_, PyDict>, depth: usize) -> PyResult<toml::Table> {
    d.iter()
        .map(|(k, v)| {
            let k: String = k.extract()?;
            let v = to_toml_at(&v, &k, depth)?;
            Ok((k, v))
        })
        .collect()
}

/// Body `i`'s spec from its dict, refused when it is not one convex shape.
fn spec<V: BodyDim>(i: usize, d: &Bound<'_, PyDict>) -> PyResult<RigidBodySpec<V>> {
    let bad = |m: String| crate::SceneError::new_err(format!("body {i}: {m}"));
    let s = RigidBodySpec::<V>::from_table(&table(d)?, &[]).map_err(|e| bad(e.to_string()))?;
    if s.mesh.is_some() || s.is_compound() {
        return Err(bad(
            "the queries take one convex shape, and this is a mesh or a compound".into(),
        ));
    }
    if !(s.shape.bounding_radius() >= kairos::scene::MIN_SIZE) {
        return Err(bad("the shape is too small".into()));
    }
    Ok(s)
}

/// The `k`-th row of a flat batch of `width`, or `None` when the batch is empty.
fn row(flat: &[f64], width: usize, k: usize) -> Option<&[f64]> {
    (!flat.is_empty()).then(|| &flat[k * width..(k + 1) * width])
}

/// A body's pose with the `k`-th position and orientation of the batches, where given.
fn posed<V: BodyDim>(
    s: &RigidBodySpec<V>,
    pos: &[f64],
    rot: &[f64],
    k: usize,
) -> PyResult<kairos::shape::RigidMotion<V>> {
    let mut m = s.motion;
    if let Some(p) = row(pos, V::DIM, k) {
        if p.iter().any(|x| !(x.abs() <= kairos::scene::MAX_MAGNITUDE)) {
            return Err(PyValueError::new_err(format!(
                "row {k}: a position must be finite and at most {:e} in magnitude",
                kairos::scene::MAX_MAGNITUDE
            )));
        }
        m.pose.position = V::try_from_slice(p)
            .ok_or_else(|| PyValueError::new_err(format!("row {k}: a position")))?;
    }
    let rw = if V::DIM == 2 { 1 } else { 4 };
    if let Some(r) = row(rot, rw, k) {
        m.pose.rotation = <V::Rotation as kairos::math::Rotation<V>>::try_from_slice(r)
            .map_err(|e| PyValueError::new_err(format!("row {k}: orientation: {e}")))?;
    }
    Ok(m)
}

/// Columns of a batch of queries.
#[derive(Default)]
struct Columns {
    value: Vec<f64>,
    flag: Vec<u8>,
    point_a: Vec<f64>,
    point_b: Vec<f64>,
    normal: Vec<f64>,
}

impl Columns {
    fn push<V: Vector>(&mut self, value: f64, flag: u8, a: V, b: V, n: V) {
        self.value.push(value);
        self.flag.push(flag);
        let d = V::DIM;
        self.point_a.extend_from_slice(&a.to_array3()[..d]);
        self.point_b.extend_from_slice(&b.to_array3()[..d]);
        self.normal.extend_from_slice(&n.to_array3()[..d]);
    }

    fn dict<'py>(self, py: Python<'py>, value: &str, flag: &str) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(value, PyArray1::from_vec(py, self.value))?;
        d.set_item(flag, PyArray1::from_vec(py, self.flag))?;
        d.set_item("point_a", PyArray1::from_vec(py, self.point_a))?;
        d.set_item("point_b", PyArray1::from_vec(py, self.point_b))?;
        d.set_item("normal", PyArray1::from_vec(py, self.normal))?;
        Ok(d)
    }
}

/// Signed distances (GJK; EPA's depth when they overlap) of `k` placements of two bodies.
#[allow(clippy::too_many_arguments)]
fn distances<V: BodyDim>(
    a: &RigidBodySpec<V>,
    b: &RigidBodySpec<V>,
    [pa, ra, pb, rb]: [&[f64]; 4],
    k: usize,
) -> PyResult<Columns> {
    let mut out = Columns::default();
    for i in 0..k {
        let (ma, mb) = (posed(a, pa, ra, i)?, posed(b, pb, rb, i)?);
        let g = distance(
            &a.shape,
            &ma.pose,
            &b.shape,
            &mb.pose,
            &GjkOptions::default(),
            None,
        );
        if g.status == GjkStatus::Intersecting {
            let e = penetration(
                &a.shape,
                &ma.pose,
                &b.shape,
                &mb.pose,
                &EpaOptions::default(),
            );
            out.push(e.signed_distance(), 1, e.point_a, e.point_b, e.normal);
        } else {
            out.push(g.distance, 0, g.point_a, g.point_b, g.normal);
        }
    }
    Ok(out)
}

/// Times of impact over `[0, until]` of `k` placements of two moving bodies: the flag is 0
/// for none, 1 for a contact at the time, 2 for bodies overlapping at the start, 3 for a
/// search that stopped at a safe time before any contact (the time reported).
fn impacts<V: BodyDim>(
    a: &RigidBodySpec<V>,
    b: &RigidBodySpec<V>,
    [pa, ra, pb, rb]: [&[f64]; 4],
    k: usize,
    until: f64,
) -> PyResult<Columns> {
    let mut out = Columns::default();
    for i in 0..k {
        let (ma, mb) = (posed(a, pa, ra, i)?, posed(b, pb, rb, i)?);
        let t = time_of_impact(
            &a.shape,
            &ma,
            &b.shape,
            &mb,
            0.0,
            until,
            &ToiOptions::default(),
        );
        let flag = match t.status {
            ToiStatus::Approaching => 1,
            ToiStatus::Penetrating => 2,
            ToiStatus::NotBy | ToiStatus::Separating | ToiStatus::Grazing => 0,
            ToiStatus::Stalled => 3,
        };
        let time = if flag == 0 { f64::INFINITY } else { t.time };
        out.push(time, flag, t.point_a, t.point_b, t.normal);
    }
    Ok(out)
}

/// The batches' length: every non-empty batch must have `k` rows of its width.
fn batch_len(dim: usize, batches: [&[f64]; 4]) -> PyResult<usize> {
    let rw = if dim == 2 { 1 } else { 4 };
    let widths = [dim, rw, dim, rw];
    let mut k: Option<usize> = None;
    for (b, w) in batches.iter().zip(widths) {
        if b.is_empty() {
            continue;
        }
        if b.len() % w != 0 || k.is_some_and(|k| k * w != b.len()) {
            return Err(PyValueError::new_err(
                "the positions and orientations must have the same number of rows",
            ));
        }
        k = Some(b.len() / w);
    }
    Ok(k.unwrap_or(1))
}

/// The convex query of two bodies (dicts of a scene file's body keys), over batches of
/// positions and orientations (flat; empty: the dicts' own).
#[pyfunction]
#[pyo3(signature = (dim, a, b, pos_a, rot_a, pos_b, rot_b, until=None))]
#[allow(clippy::too_many_arguments)]
pub fn pair_query<'py>(
    py: Python<'py>,
    dim: usize,
    a: &Bound<'py, PyDict>,
    b: &Bound<'py, PyDict>,
    pos_a: PyReadonlyArray1<'py, f64>,
    rot_a: PyReadonlyArray1<'py, f64>,
    pos_b: PyReadonlyArray1<'py, f64>,
    rot_b: PyReadonlyArray1<'py, f64>,
    until: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let batches = [
        pos_a.as_slice()?,
        rot_a.as_slice()?,
        pos_b.as_slice()?,
        rot_b.as_slice()?,
    ];
    let k = batch_len(dim, batches)?;
    if let Some(u) = until {
        if !(0.0..=kairos::scene::MAX_MAGNITUDE).contains(&u) {
            return Err(PyValueError::new_err(format!(
                "until must be a time in [0, {:e}], got {u}",
                kairos::scene::MAX_MAGNITUDE
            )));
        }
    }
    macro_rules! go {
        ($v:ty) => {{
            let (sa, sb) = (spec::<$v>(0, a)?, spec::<$v>(1, b)?);
            py.allow_threads(|| match until {
                None => distances(&sa, &sb, batches, k),
                Some(u) => impacts(&sa, &sb, batches, k, u),
            })?
        }};
    }
    let cols = match dim {
        2 => go!(DVec2),
        3 => go!(DVec3),
        _ => {
            return Err(PyValueError::new_err(format!(
                "dim must be 2 or 3, got {dim}"
            )))
        }
    };
    match until {
        None => cols.dict(py, "distance", "intersecting"),
        Some(_) => cols.dict(py, "time", "status"),
    }
}

/// The earliest contact in `[0, 1]` of `k` vertex-face (`edge = false`: points p, a, b, c) or
/// edge-edge (`edge = true`: a, b against c, d) queries of points moving on straight lines
/// from `start` to `end` (flat `k x 4 x 3`); `inf` where they never touch.
#[pyfunction]
#[pyo3(signature = (start, end, edge, tolerance=1e-9))]
pub fn feature_ccd<'py>(
    py: Python<'py>,
    start: PyReadonlyArray1<'py, f64>,
    end: PyReadonlyArray1<'py, f64>,
    edge: bool,
    tolerance: f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (s, e) = (start.as_slice()?, end.as_slice()?);
    if s.len() != e.len() || s.len() % 12 != 0 {
        return Err(PyValueError::new_err(
            "start and end must both have shape (k, 4, 3)",
        ));
    }
    if s.iter().chain(e).any(|x| !x.is_finite()) {
        return Err(PyValueError::new_err("the points must be finite"));
    }
    if !(tolerance > 0.0 && tolerance < 1.0) {
        return Err(PyValueError::new_err(format!(
            "tolerance must be in (0, 1), got {tolerance}"
        )));
    }
    let opts = CcdOptions {
        time_tolerance: tolerance,
        ..CcdOptions::default()
    };
    let times = py.allow_threads(|| {
        (0..s.len() / 12)
            .map(|q| {
                let pt = |j: usize| -> LinearPoint {
                    let at = |f: &[f64]| {
                        let o = q * 12 + j * 3;
                        [0, 1, 2].map(|c| Interval::point(f[o + c]))
                    };
                    [at(s), at(e)]
                };
                let [p0, p1, p2, p3] = [0, 1, 2, 3].map(pt);
                let hit = if edge {
                    edge_edge(&p0, &p1, &p2, &p3, &opts)
                } else {
                    vertex_face(&p0, &p1, &p2, &p3, &opts)
                };
                hit.unwrap_or(f64::INFINITY)
            })
            .collect::<Vec<f64>>()
    });
    Ok(PyArray1::from_vec(py, times))
}

/// A mesh from flat vertices (`n x 3`) and triangles (`m x 3`), named `which` in errors.
fn mesh_of(
    which: &str,
    vertices: &[f64],
    triangles: &[i64],
) -> PyResult<kairos::ccd::mesh::TriMesh> {
    let bad = |m: String| PyValueError::new_err(format!("mesh {which}: {m}"));
    if vertices.len() % 3 != 0
        || triangles.len() % 3 != 0
        || triangles.is_empty()
        || vertices.is_empty()
    {
        return Err(bad(
            "vertices must be (n, 3) and triangles (m, 3), n > 0 and m > 0".into(),
        ));
    }
    let n = vertices.len() / 3;
    let v: Vec<[f64; 3]> = vertices.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
    let t = triangles
        .chunks(3)
        .map(|c| {
            let idx = |x: i64| {
                u32::try_from(x)
                    .ok()
                    .filter(|&i| (i as usize) < n)
                    .ok_or_else(|| {
                        bad(format!(
                            "triangle index {x} is not a vertex (0 to {})",
                            n - 1
                        ))
                    })
            };
            Ok([idx(c[0])?, idx(c[1])?, idx(c[2])?])
        })
        .collect::<PyResult<Vec<[u32; 3]>>>()?;
    kairos::ccd::mesh::TriMesh::new(v, t).map_err(|e| bad(e.to_string()))
}

/// Three numbers of a motion, refused when not finite.
fn triple(name: &str, x: &[f64]) -> PyResult<[f64; 3]> {
    match x {
        [a, b, c] if x.iter().all(|v| v.is_finite()) => Ok([*a, *b, *c]),
        _ => Err(PyValueError::new_err(format!(
            "`{name}` must be 3 finite numbers"
        ))),
    }
}

/// The earliest contact in `[0, until]` of two triangle meshes (given at `t = 0`, world
/// frame), each turning about its `centre` at constant angular velocity while the centre moves
/// at constant velocity (D2M's motion class), by the sphere trees and the interval root finders:
/// never missed. `None` when they do not touch by `until`. Ctrl-C stops it (KeyboardInterrupt).
#[pyfunction]
#[pyo3(signature = (vertices_a, triangles_a, centre_a, velocity_a, angular_velocity_a, vertices_b, triangles_b, centre_b, velocity_b, angular_velocity_b, until, separation=1e-10))]
#[allow(clippy::too_many_arguments)]
pub fn mesh_contact<'py>(
    py: Python<'py>,
    vertices_a: PyReadonlyArray1<'py, f64>,
    triangles_a: PyReadonlyArray1<'py, i64>,
    centre_a: Vec<f64>,
    velocity_a: Vec<f64>,
    angular_velocity_a: Vec<f64>,
    vertices_b: PyReadonlyArray1<'py, f64>,
    triangles_b: PyReadonlyArray1<'py, i64>,
    centre_b: Vec<f64>,
    velocity_b: Vec<f64>,
    angular_velocity_b: Vec<f64>,
    until: f64,
    separation: f64,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    use kairos::ccd::rotating::ScrewMotion;
    use kairos::ccd::tree::{self, Features, MeshBody, MeshQuery};
    if !(until >= 0.0 && until.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "until must be a finite time >= 0, got {until}"
        )));
    }
    if !(separation >= 0.0 && separation.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "separation must be a finite distance >= 0, got {separation}"
        )));
    }
    let a = MeshBody::new(mesh_of(
        "a",
        vertices_a.as_slice()?,
        triangles_a.as_slice()?,
    )?);
    let b = MeshBody::new(mesh_of(
        "b",
        vertices_b.as_slice()?,
        triangles_b.as_slice()?,
    )?);
    let ma = ScrewMotion::new(
        triple("centre_a", &centre_a)?,
        triple("velocity_a", &velocity_a)?,
        triple("angular_velocity_a", &angular_velocity_a)?,
    );
    let mb = ScrewMotion::new(
        triple("centre_b", &centre_b)?,
        triple("velocity_b", &velocity_b)?,
        triple("angular_velocity_b", &angular_velocity_b)?,
    );
    // As for a scene's bodies: lengths and speeds within 1e100, and no more turn over the
    // horizon than a run resolves (a spin of 1e300 gave a NaN contact point).
    for (which, m) in [("a", &ma), ("b", &mb)] {
        let big = |v: [f64; 3]| v.iter().any(|x| x.abs() > kairos::scene::MAX_MAGNITUDE);
        if big(m.centre) || big(m.velocity) {
            return Err(PyValueError::new_err(format!(
                "mesh {which}: the centre and velocity must be at most {:e} in magnitude",
                kairos::scene::MAX_MAGNITUDE
            )));
        }
        let spin = m.angular_velocity.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !(spin * until <= kairos::rigid::MAX_TURN) {
            return Err(PyValueError::new_err(format!(
                "mesh {which}: it would turn {:e} radians by until = {until}; a query resolves at \
                 most {:e}",
                spin * until,
                kairos::rigid::MAX_TURN
            )));
        }
    }
    let query = MeshQuery {
        separation,
        ..MeshQuery::default()
    };
    // The GIL released while it runs; every `SIGNALS_EVERY` the query takes it back for a
    // moment to run Python's signal handlers, and an exception of theirs (Ctrl-C's
    // KeyboardInterrupt) stops the query and is raised.
    let found = py.allow_threads(|| {
        let next = Cell::new(Instant::now() + SIGNALS_EVERY);
        let raised = Cell::new(None);
        let cancel = || {
            if Instant::now() < next.get() {
                return false;
            }
            let checked = Python::with_gil(|py| py.check_signals());
            next.set(Instant::now() + SIGNALS_EVERY);
            checked.map_err(|e| raised.set(Some(e))).is_err()
        };
        tree::mesh_contact_or_cancel(&a, &ma, &b, &mb, until, &query, None, Some(&cancel)).map_err(
            |_| {
                raised.take().unwrap_or_else(|| {
                    PyKeyboardInterrupt::new_err("mesh_contact: stopped before it finished")
                })
            },
        )
    })?;
    let Some(c) = found else {
        return Ok(None);
    };
    let d = PyDict::new(py);
    d.set_item("time", c.time)?;
    d.set_item("first", c.first)?;
    d.set_item("normal", PyArray1::from_vec(py, c.normal.to_vec()))?;
    d.set_item("point", PyArray1::from_vec(py, c.point.to_vec()))?;
    d.set_item("approach_speed", c.approach_speed)?;
    match c.features {
        Features::VertexFace {
            vertex_of_a,
            vertex,
            triangle,
        } => {
            d.set_item("kind", "vertex-face")?;
            d.set_item("vertex_of", if vertex_of_a { "a" } else { "b" })?;
            d.set_item("vertex", vertex)?;
            d.set_item("triangle", triangle.to_vec())?;
        }
        Features::EdgeEdge { edge_a, edge_b } => {
            d.set_item("kind", "edge-edge")?;
            d.set_item("edge_a", edge_a.to_vec())?;
            d.set_item("edge_b", edge_b.to_vec())?;
        }
        Features::Spheres { leaf_a, leaf_b } => {
            d.set_item("kind", "spheres")?;
            d.set_item("leaves", vec![leaf_a, leaf_b])?;
        }
    }
    Ok(Some(d))
}
