//! States and traces as numpy arrays: one array per quantity, filled in Rust.

use kairos::math::Vector;
use kairos::sim::Simulation;
use kairos::trace::{Record, TraceHeader};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A `(len / cols, cols)` array of `flat`.
pub fn matrix(py: Python<'_>, flat: Vec<f64>, cols: usize) -> PyResult<Bound<'_, PyArray2<f64>>> {
    let rows = flat.len() / cols.max(1);
    PyArray1::from_vec(py, flat).reshape([rows, cols])
}

/// Every body's position at absolute time `t` (on or after its last event), flat.
pub fn positions<V: Vector>(sim: &Simulation<V>, t: f64) -> Vec<f64> {
    let w = sim.world();
    let local = t - sim.origin();
    (0..w.bodies().len())
        .flat_map(|i| w.body_state_at(i, local).0.to_array3()[..V::DIM].to_vec())
        .collect()
}

/// Every body's velocity at absolute time `t`, flat.
pub fn velocities<V: Vector>(sim: &Simulation<V>, t: f64) -> Vec<f64> {
    let w = sim.world();
    let local = t - sim.origin();
    (0..w.bodies().len())
        .flat_map(|i| w.body_state_at(i, local).1.to_array3()[..V::DIM].to_vec())
        .collect()
}

/// The columns of `rows` of 3 or 4 components each, as an `(n, k)` array.
fn columns<'py, const K: usize>(
    py: Python<'py>,
    rows: impl Iterator<Item = [f64; K]>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    matrix(py, rows.flat_map(|r| r.into_iter()).collect(), K)
}

/// A trace's header and records as a dict of arrays (see `kairos.read_trace`).
pub fn trace_dict<'py>(
    py: Python<'py>,
    version: u32,
    end: f64,
    hash: u64,
    header: &TraceHeader,
    records: &[Record],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("version", version)?;
    d.set_item("dim", header.dim)?;
    d.set_item("broad_phase", &header.broad_phase)?;
    d.set_item("scene_toml", &header.scene_toml)?;
    d.set_item("start_time", header.start_time)?;
    d.set_item("end_time", end)?;
    d.set_item("hash", hash)?;
    d.set_item("rigid", header.rigid)?;
    let b = &header.bodies;
    let bodies = PyDict::new(py);
    let col =
        |f: fn(&kairos::trace::BodyState) -> f64| PyArray1::from_vec(py, b.iter().map(f).collect());
    bodies.set_item("radius", col(|s| s.radius))?;
    bodies.set_item("mass", col(|s| s.mass))?;
    bodies.set_item("time", col(|s| s.time))?;
    bodies.set_item("pos", columns(py, b.iter().map(|s| s.pos))?)?;
    bodies.set_item("vel", columns(py, b.iter().map(|s| s.vel))?)?;
    bodies.set_item("rot", columns(py, b.iter().map(|s| s.rotation))?)?;
    bodies.set_item("omega", columns(py, b.iter().map(|s| s.angular_velocity))?)?;
    bodies.set_item(
        "asleep",
        PyArray1::from_vec(
            py,
            (0..b.len())
                .map(|i| header.asleep.get(i).copied().unwrap_or(false))
                .collect::<Vec<bool>>(),
        ),
    )?;
    d.set_item("bodies", bodies)?;
    let r = records;
    let ev = PyDict::new(py);
    ev.set_item(
        "time",
        PyArray1::from_vec(py, r.iter().map(|x| x.time).collect()),
    )?;
    ev.set_item(
        "dt",
        PyArray1::from_vec(py, r.iter().map(|x| x.dt).collect()),
    )?;
    ev.set_item(
        "kind",
        PyArray1::from_vec(py, r.iter().map(|x| x.kind as u32).collect()),
    )?;
    ev.set_item("a", PyArray1::from_vec(py, r.iter().map(|x| x.a).collect()))?;
    ev.set_item("b", PyArray1::from_vec(py, r.iter().map(|x| x.b).collect()))?;
    ev.set_item(
        "sleep",
        PyArray1::from_vec(py, r.iter().map(|x| x.sleep).collect()),
    )?;
    ev.set_item("pos_a", columns(py, r.iter().map(|x| x.pos_a))?)?;
    ev.set_item("vel_a", columns(py, r.iter().map(|x| x.vel_a))?)?;
    ev.set_item("pos_b", columns(py, r.iter().map(|x| x.pos_b))?)?;
    ev.set_item("vel_b", columns(py, r.iter().map(|x| x.vel_b))?)?;
    ev.set_item("rot_a", columns(py, r.iter().map(|x| x.rot_a))?)?;
    ev.set_item("omega_a", columns(py, r.iter().map(|x| x.omega_a))?)?;
    ev.set_item("rot_b", columns(py, r.iter().map(|x| x.rot_b))?)?;
    ev.set_item("omega_b", columns(py, r.iter().map(|x| x.omega_b))?)?;
    d.set_item("records", ev)?;
    Ok(d)
}
