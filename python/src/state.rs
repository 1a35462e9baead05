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
    states(sim, t, |(x, _)| x)
}

/// Every body's velocity at absolute time `t`, flat.
pub fn velocities<V: Vector>(sim: &Simulation<V>, t: f64) -> Vec<f64> {
    states(sim, t, |(_, v)| v)
}

/// One vector of every body's state (position, velocity) at absolute time `t`, flat.
fn states<V: Vector>(sim: &Simulation<V>, t: f64, pick: impl Fn((V, V)) -> V) -> Vec<f64> {
    let w = sim.world();
    let local = t - sim.origin();
    (0..w.bodies().len())
        .flat_map(|i| pick(w.body_state_at(i, local)).to_array3()[..V::DIM].to_vec())
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

/// Every rigid body's rotation at absolute time `t`, flat: 2D the angle, 3D the quaternion
/// `w, x, y, z`; `None` in a world of balls.
pub fn orientations<V: Vector>(sim: &Simulation<V>, t: f64) -> Option<Vec<f64>> {
    use kairos::math::Rotation;
    let w = sim.world();
    let rigid = w.rigid();
    if rigid.is_empty() {
        return None;
    }
    let local = t - sim.origin();
    let width = if V::DIM == 2 { 1 } else { 4 };
    Some(
        rigid
            .iter()
            .zip(w.bodies())
            .flat_map(|(r, b)| r.at(local - b.time).0.to_array4()[..width].to_vec())
            .collect(),
    )
}

/// Every rigid body's angular velocity (world frame) at absolute time `t`, flat: 2D one
/// number, 3D three; `None` in a world of balls.
pub fn angular_velocities<V: Vector>(sim: &Simulation<V>, t: f64) -> Option<Vec<f64>> {
    let w = sim.world();
    let rigid = w.rigid();
    if rigid.is_empty() {
        return None;
    }
    let local = t - sim.origin();
    let width = if V::DIM == 2 { 1 } else { 3 };
    Some(
        rigid
            .iter()
            .zip(w.bodies())
            .flat_map(|(r, b)| V::angular_to_array3(r.at(local - b.time).1)[..width].to_vec())
            .collect(),
    )
}

/// Every body's state at absolute time `t` as a GSD frame wants it: unwrapped centres (z = 0
/// in 2D), velocities, and for rigid bodies quaternions `w, x, y, z` (a turn about z in 2D)
/// and angular velocities (`[0, 0, ω]` in 2D).
pub struct FrameState {
    pub position: Vec<[f64; 3]>,
    pub velocity: Vec<[f64; 3]>,
    pub rotation: Option<Vec<[f64; 4]>>,
    pub angular_velocity: Option<Vec<[f64; 3]>>,
}

pub fn frame_state<V: Vector>(sim: &Simulation<V>, t: f64) -> FrameState {
    use kairos::math::Rotation;
    let w = sim.world();
    let local = t - sim.origin();
    let n = w.bodies().len();
    let (mut position, mut velocity) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for (i, b) in w.bodies().iter().enumerate() {
        let (x, v) = w.body_state_at(i, local);
        // Unwrapped: the stored state's unwrapped position moved as the body moved since.
        position.push((w.unwrapped_position(i as u32) + (x - b.pos)).to_array3());
        velocity.push(v.to_array3());
    }
    let rigid = w.rigid();
    let (rotation, angular_velocity) = if rigid.is_empty() {
        (None, None)
    } else {
        let (mut q, mut o) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (r, b) in rigid.iter().zip(w.bodies()) {
            let (rot, om) = r.at(local - b.time);
            let a = rot.to_array4();
            let om = V::angular_to_array3(om);
            if V::DIM == 3 {
                q.push(a);
                o.push(om);
            } else {
                let (s, c) = (0.5 * a[0]).sin_cos();
                q.push([c, 0.0, 0.0, s]);
                o.push([0.0, 0.0, om[0]]);
            }
        }
        (Some(q), Some(o))
    };
    FrameState {
        position,
        velocity,
        rotation,
        angular_velocity,
    }
}
