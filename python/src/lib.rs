//! `kairos._kairos`: the extension module under the `kairos` Python package.
//!
//! It holds scenes and simulations as the library's own types and hands their state to Python
//! as numpy arrays, one array per quantity (never a Python object per body or per event). The
//! Python package (`python/kairos/__init__.py`) gives them their documented signatures:
//! converting inputs to contiguous `float64` arrays and events to structured arrays happens
//! there.
//!
//! Bad input raises `kairos.SceneError` (a `ValueError`) naming the item and the problem, as
//! the command line does; no input makes this module panic.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use kairos::event::{Event, EventKind};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::observe::{Observer, Sample};
use kairos::scene::{BodySpec, Scene, SceneError as LibSceneError, WallSpec};
use kairos::sim::Simulation;
use kairos::trace::{Record, TraceReader, TraceWriter};
use numpy::{PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod gsd;
mod query;
mod state;
mod sweep;

create_exception!(
    _kairos,
    SceneError,
    PyValueError,
    "A scene was rejected: the message names the item (body, wall, [simulation]) and the problem."
);
create_exception!(
    _kairos,
    TraceError,
    PyValueError,
    "A trace could not be read: missing, cut short, damaged or of another format."
);

/// A scene error as `kairos.SceneError`, prefixed by the file it came from, if any.
pub(crate) fn scene_error(e: LibSceneError, file: Option<&str>) -> PyErr {
    match file {
        Some(f) => SceneError::new_err(format!("{f}: {e}")),
        None => SceneError::new_err(e.to_string()),
    }
}

/// The broad phase named `name`; `None` for `auto` (the scene's choice).
pub(crate) fn broad_phase_kind(
    name: &str,
) -> PyResult<Option<kairos::broad_phase::BroadPhaseKind>> {
    if name == "auto" {
        return Ok(None);
    }
    name.parse()
        .map(Some)
        .map_err(|e| PyValueError::new_err(format!("broad_phase: {e}")))
}

/// A validated scene.
#[pyclass(name = "Scene", module = "kairos._kairos", frozen)]
pub struct PyScene {
    pub(crate) scene: Scene,
}

/// Wall `k` from its dict, read as a scene file's `[[walls]]` table is (the same keys, checks
/// and messages).
fn wall_spec(k: usize, d: &Bound<'_, PyDict>, dim: usize) -> PyResult<WallSpec> {
    let toml::Value::Table(t) = query::to_toml(d.as_any(), &format!("wall {k}"))
        .map_err(|e| SceneError::new_err(format!("wall {k}: {e}")))?
    else {
        return Err(SceneError::new_err(format!("wall {k}: must be a dict")));
    };
    WallSpec::from_table(&t, k, dim).map_err(|e| scene_error(e, None))
}

#[pymethods]
impl PyScene {
    /// A scene of balls from flat arrays (`positions` and `velocities` of `n * dim` numbers,
    /// `radii` and `masses` of `n`), validated as a scene file is.
    #[staticmethod]
    #[pyo3(signature = (dim, positions, velocities, radii, masses, duration, restitution, periodic=None, walls=None, gravity=None))]
    #[allow(clippy::too_many_arguments)]
    fn from_arrays(
        dim: usize,
        positions: PyReadonlyArray1<'_, f64>,
        velocities: PyReadonlyArray1<'_, f64>,
        radii: PyReadonlyArray1<'_, f64>,
        masses: PyReadonlyArray1<'_, f64>,
        duration: f64,
        restitution: f64,
        periodic: Option<Vec<f64>>,
        walls: Option<Vec<Bound<'_, PyDict>>>,
        gravity: Option<Vec<f64>>,
    ) -> PyResult<Self> {
        if dim != 2 && dim != 3 {
            return Err(SceneError::new_err(format!(
                "scene: the dimension must be 2 or 3, got {dim}"
            )));
        }
        let (x, v) = (positions.as_slice()?, velocities.as_slice()?);
        let (r, m) = (radii.as_slice()?, masses.as_slice()?);
        let n = r.len();
        if x.len() != n * dim || v.len() != n * dim || m.len() != n {
            return Err(SceneError::new_err(format!(
                "scene: {n} radii, but {} positions, {} velocities and {} masses of dimension {dim}",
                x.len() / dim,
                v.len() / dim,
                m.len()
            )));
        }
        let pad = |s: &[f64]| {
            let mut p = [0.0; 3];
            p[..dim].copy_from_slice(s);
            p
        };
        let bodies = (0..n)
            .map(|i| BodySpec {
                position: pad(&x[i * dim..(i + 1) * dim]),
                velocity: pad(&v[i * dim..(i + 1) * dim]),
                radius: r[i],
                mass: m[i],
            })
            .collect();
        let walls = walls
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(k, d)| wall_spec(k, d, dim))
            .collect::<PyResult<Vec<_>>>()?;
        let mut g = [0.0; 3];
        if let Some(gv) = gravity {
            if gv.len() != dim {
                return Err(SceneError::new_err(format!(
                    "[simulation]: `gravity` has {} components but the scene has dim = {dim}",
                    gv.len()
                )));
            }
            g[..dim].copy_from_slice(&gv);
        }
        let scene = Scene {
            dim,
            duration,
            restitution,
            contact_duration: None,
            gravity: g,
            rest_speed: None,
            friction: 0.0,
            walls,
            bodies,
            periodic,
            shapes: Vec::new(),
            meshes: Default::default(),
        };
        scene.validate().map_err(|e| scene_error(e, None))?;
        Ok(Self { scene })
    }

    /// A scene of rigid bodies (or any bodies) from their tables as a scene file writes them
    /// (dicts of the body keys: `shape` and its keys, `position`, `velocity`,
    /// `orientation`, `angular_velocity`, `mass` or `density`), with the walls' tables and
    /// the `[simulation]` settings; parsed and validated as a scene file is.
    #[staticmethod]
    #[pyo3(signature = (dim, bodies, duration, restitution, periodic=None, walls=None, gravity=None, friction=None))]
    #[allow(clippy::too_many_arguments)]
    fn from_tables(
        dim: usize,
        bodies: Vec<Bound<'_, PyDict>>,
        duration: f64,
        restitution: f64,
        periodic: Option<Vec<f64>>,
        walls: Option<Vec<Bound<'_, PyDict>>>,
        gravity: Option<Vec<f64>>,
        friction: Option<f64>,
    ) -> PyResult<Self> {
        use toml::Value;
        let floats = |v: &[f64]| Value::Array(v.iter().map(|x| Value::Float(*x)).collect());
        let tables = |items: &[Bound<'_, PyDict>], what: &str| -> PyResult<Vec<Value>> {
            items
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    query::to_toml(d.as_any(), &format!("{what} {i}"))
                        .map_err(|e| SceneError::new_err(format!("{what} {i}: {e}")))
                })
                .collect()
        };
        let mut sim = toml::Table::new();
        sim.insert("duration".into(), Value::Float(duration));
        sim.insert("restitution".into(), Value::Float(restitution));
        if let Some(g) = gravity {
            sim.insert("gravity".into(), floats(&g));
        }
        if let Some(f) = friction {
            sim.insert("friction".into(), Value::Float(f));
        }
        let mut doc = toml::Table::new();
        doc.insert("dim".into(), Value::Integer(dim as i64));
        doc.insert("simulation".into(), Value::Table(sim));
        if let Some(l) = periodic {
            let mut b = toml::Table::new();
            b.insert("periodic".into(), floats(&l));
            doc.insert("boundary".into(), Value::Table(b));
        }
        if let Some(w) = walls {
            doc.insert("walls".into(), Value::Array(tables(&w, "wall")?));
        }
        doc.insert("bodies".into(), Value::Array(tables(&bodies, "body")?));
        let text = toml::to_string(&doc)
            .map_err(|e| SceneError::new_err(format!("scene: cannot be written as TOML: {e}")))?;
        Scene::from_toml_str(&text)
            .map(|scene| Self { scene })
            .map_err(|e| scene_error(e, None))
    }

    /// A hard-sphere (3D) or hard-disc (2D) gas in a periodic box (`kairos generate gas`):
    /// mean diameter 1, `kT = 1`, zero total momentum. `MemoryError` when the memory it needs
    /// cannot be allocated (checked before any of it is made).
    #[staticmethod]
    #[pyo3(signature = (n, packing, dim=3, seed=0, duration=10.0, polydispersity=0.0, mass=1.0, restitution=1.0))]
    #[allow(clippy::too_many_arguments)]
    fn gas(
        n: usize,
        packing: f64,
        dim: usize,
        seed: u64,
        duration: f64,
        polydispersity: f64,
        mass: f64,
        restitution: f64,
    ) -> PyResult<Self> {
        let p = kairos::generate::GasParams {
            dim,
            n,
            packing,
            polydispersity,
            mass,
            seed,
            duration,
            restitution,
        };
        kairos::generate::gas(&p)
            .map(|scene| Self { scene })
            .map_err(|e| match e {
                kairos::generate::GenerateError::OutOfMemory { .. } => {
                    pyo3::exceptions::PyMemoryError::new_err(format!("gas: {e}"))
                }
                e => SceneError::new_err(format!("gas: {e}")),
            })
    }

    /// Reads, parses and validates a scene file (with its bodies file or meshes, if any).
    #[staticmethod]
    fn from_toml(path: PathBuf) -> PyResult<Self> {
        let shown = path.display().to_string();
        Scene::load(&path)
            .map(|scene| Self { scene })
            .map_err(|e| scene_error(e, Some(&shown)))
    }

    /// Parses and validates a scene from TOML text.
    #[staticmethod]
    fn from_toml_str(text: &str) -> PyResult<Self> {
        Scene::from_toml_str(text)
            .map(|scene| Self { scene })
            .map_err(|e| scene_error(e, None))
    }

    /// The scene as TOML text (bodies inline).
    fn to_toml_str(&self) -> String {
        self.scene.to_toml()
    }

    /// Writes the scene as a TOML file, atomically (a partial file never takes its name).
    fn to_toml(&self, path: PathBuf) -> PyResult<()> {
        kairos::atomic::write(&path, self.scene.to_toml().as_bytes()).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("{}: cannot write: {e}", path.display()))
        })
    }

    #[getter]
    fn dim(&self) -> usize {
        self.scene.dim
    }
    #[getter]
    fn n(&self) -> usize {
        self.scene.bodies.len()
    }
    #[getter]
    fn duration(&self) -> f64 {
        self.scene.duration
    }
    #[getter]
    fn restitution(&self) -> f64 {
        self.scene.restitution
    }
    #[getter]
    fn periodic(&self) -> Option<Vec<f64>> {
        self.scene.periodic.clone()
    }
    #[getter]
    fn packing(&self) -> Option<f64> {
        self.scene.packing()
    }
    #[getter]
    fn rigid(&self) -> bool {
        self.scene.has_rigid_bodies()
    }
    #[getter]
    fn gravity(&self) -> Vec<f64> {
        self.scene.gravity[..self.scene.dim].to_vec()
    }

    /// Positions at time 0, `(n, dim)`.
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let d = self.scene.dim;
        let flat = self
            .scene
            .bodies
            .iter()
            .flat_map(|b| b.position[..d].to_vec())
            .collect();
        state::matrix(py, flat, d)
    }

    /// Velocities at time 0, `(n, dim)`.
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let d = self.scene.dim;
        let flat = self
            .scene
            .bodies
            .iter()
            .flat_map(|b| b.velocity[..d].to_vec())
            .collect();
        state::matrix(py, flat, d)
    }

    /// Radii (a rigid body's: its bounding radius), `(n,)`.
    fn radii<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.scene.bodies.iter().map(|b| b.radius).collect())
    }

    /// Masses, `(n,)`.
    fn masses<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.scene.bodies.iter().map(|b| b.mass).collect())
    }
}

/// A simulation of either dimension.
enum Sim {
    D2(Simulation<DVec2>),
    D3(Simulation<DVec3>),
}

/// Runs `$body` with `$s` bound to the simulation of whichever dimension.
macro_rules! with_sim {
    ($sim:expr, $s:ident => $body:expr) => {
        match $sim {
            Sim::D2($s) => $body,
            Sim::D3($s) => $body,
        }
    };
}

/// What a simulation holds between calls.
struct Inner {
    sim: Sim,
    /// The absolute time of the state shown (`positions`, `velocities`): the time a run
    /// stopped at, which may lie after the last event.
    view: f64,
    /// The samples of the observables, when asked for.
    observer: Option<(Observer, Vec<Sample>)>,
    /// Whether the end of the scene's duration was reached (the last window closed).
    ended: bool,
    /// The trace being written, if asked for: a record a collision, finished at the end.
    trace: Option<(TraceWriter, PathBuf)>,
    /// The hash of the finished trace's records.
    trace_hash: Option<u64>,
}

impl Inner {
    /// Writes the trace's footer with `end` as its end time and moves it into place.
    fn finish_trace(&mut self, end: f64) -> PyResult<()> {
        if let Some((w, path)) = self.trace.take() {
            let h = w.finish(end).map_err(|e| {
                pyo3::exceptions::PyOSError::new_err(format!(
                    "{}: writing the trace failed: {e}",
                    path.display()
                ))
            })?;
            self.trace_hash = Some(h);
        }
        Ok(())
    }
}

/// Where a run stops.
#[derive(Clone, Copy)]
struct Stop {
    /// Absolute time (at most the end time).
    until: f64,
    /// Most collisions.
    events: Option<u64>,
}

/// The collisions of a run, column by column.
#[derive(Default)]
struct EventLog {
    time: Vec<f64>,
    kind: Vec<u8>,
    a: Vec<u32>,
    b: Vec<u32>,
}

/// How a slice of a run ended.
enum Slice {
    /// The stop was reached.
    Done,
    /// The slice's wall-clock budget ran out first: signals are checked, then the run goes on.
    Budget,
    /// Writing the trace failed.
    TraceFailed(std::io::Error),
}

/// Processes events until `stop` or `deadline`, recording collisions in `log` when given.
#[allow(clippy::too_many_arguments)]
fn advance<V: Vector>(
    sim: &mut Simulation<V>,
    inner_view: &mut f64,
    observer: &mut Option<(Observer, Vec<Sample>)>,
    ended: &mut bool,
    trace: &mut Option<(TraceWriter, PathBuf)>,
    stop: Stop,
    done: &mut u64,
    mut log: Option<&mut EventLog>,
    deadline: Instant,
) -> Slice {
    let mut k = 0u32;
    loop {
        if stop.events.is_some_and(|n| *done >= n) {
            *inner_view = sim.now();
            return Slice::Done;
        }
        k = k.wrapping_add(1);
        if k % 256 == 0 && Instant::now() >= deadline {
            *inner_view = sim.now();
            return Slice::Budget;
        }
        match sim.process_next_by(stop.until) {
            Some(e) => {
                if matches!(e.kind, EventKind::BodyBody | EventKind::BodyWall) {
                    if let Some((w, _)) = trace.as_mut() {
                        let r = Record::from_event(&e, sim.world(), sim.lookahead());
                        if let Err(err) = w.write(&r) {
                            *inner_view = sim.now();
                            return Slice::TraceFailed(err);
                        }
                    }
                    *done += 1;
                    if let Some(log) = log.as_deref_mut() {
                        push(log, &e);
                    }
                    if let Some((obs, out)) = observer.as_mut() {
                        obs.after_step(sim, Some(&e), out);
                    }
                }
            }
            None => {
                *inner_view = stop.until;
                if stop.until >= sim.end_time() && !*ended {
                    *ended = true;
                    if let Some((obs, out)) = observer.as_mut() {
                        obs.after_step(sim, None, out);
                    }
                }
                return Slice::Done;
            }
        }
    }
}

fn push(log: &mut EventLog, e: &Event) {
    log.time.push(e.time);
    log.kind.push(e.kind as u8);
    log.a.push(e.a);
    log.b.push(e.b);
}

/// An event-driven simulation of a scene.
#[pyclass(name = "Simulation", module = "kairos._kairos")]
pub struct PySimulation {
    inner: Mutex<Inner>,
    dim: usize,
    broad_phase: String,
    periodic: Option<Vec<f64>>,
}

impl PySimulation {
    /// Every body's state at the current time, as a GSD frame takes it, and the time.
    pub(crate) fn frame_state(&self) -> PyResult<(state::FrameState, f64)> {
        let inner = self.lock()?;
        let t = inner.view;
        Ok((with_sim!(&inner.sim, s => state::frame_state(s, t)), t))
    }

    /// The simulation, once no other thread runs it. Another Python thread's `run` holds it
    /// with the GIL released and takes the GIL back between slices to check signals: waiting
    /// for it while holding the GIL would deadlock, so the wait lets the GIL go.
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Inner>> {
        use std::sync::TryLockError;
        loop {
            match self.inner.try_lock() {
                Ok(g) => return Ok(g),
                Err(TryLockError::Poisoned(_)) => {
                    return Err(PyRuntimeError::new_err(
                        "the simulation was left inconsistent by a crash",
                    ))
                }
                Err(TryLockError::WouldBlock) => Python::with_gil(|py| {
                    py.allow_threads(|| std::thread::sleep(Duration::from_millis(1)))
                }),
            }
        }
    }
}

#[pymethods]
impl PySimulation {
    #[new]
    #[pyo3(signature = (scene, broad_phase="auto", trace=None))]
    fn new(scene: &PyScene, broad_phase: &str, trace: Option<PathBuf>) -> PyResult<Self> {
        use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions};
        let scene = &scene.scene;
        let kind = broad_phase_kind(broad_phase)?
            .unwrap_or_else(|| BroadPhaseKind::auto(scene.dim, scene.packing()).kind);
        let opts = BroadPhaseOptions::default();
        let sim = match scene.dim {
            2 => Sim::D2(Simulation::new(
                scene.world::<DVec2>().map_err(|e| scene_error(e, None))?,
                kind.build(&opts),
                scene.duration,
            )),
            _ => Sim::D3(Simulation::new(
                scene.world::<DVec3>().map_err(|e| scene_error(e, None))?,
                kind.build(&opts),
                scene.duration,
            )),
        };
        let trace = match trace {
            None => None,
            Some(path) => Some((
                TraceWriter::create_for_scene(&path, scene, kind.to_string()).map_err(|e| {
                    pyo3::exceptions::PyOSError::new_err(format!(
                        "{}: cannot create the trace: {e}",
                        path.display()
                    ))
                })?,
                path,
            )),
        };
        Ok(Self {
            inner: Mutex::new(Inner {
                sim,
                view: 0.0,
                observer: None,
                ended: false,
                trace,
                trace_hash: None,
            }),
            dim: scene.dim,
            broad_phase: kind.to_string(),
            periodic: scene.periodic.clone(),
        })
    }

    /// Runs to absolute time `until` (default: the scene's end) or until `events` more
    /// collisions, whichever comes first; returns the collisions' columns (time, kind, a, b)
    /// when `record`. The GIL is released while it runs; a signal (Ctrl-C) stops it within a
    /// fraction of a second, between two events, and raises.
    #[pyo3(signature = (until=None, events=None, record=true))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        until: Option<f64>,
        events: Option<u64>,
        record: bool,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let mut guard = self.lock()?;
        let inner: &mut Inner = &mut guard;
        let end = with_sim!(&inner.sim, s => s.end_time());
        let until = until.unwrap_or(end);
        if !until.is_finite() {
            return Err(PyValueError::new_err(format!(
                "until must be a finite time, got {until}"
            )));
        }
        if !(until >= inner.view) {
            return Err(PyValueError::new_err(format!(
                "until = {until} is before the simulation's time {} (runs only go forward)",
                inner.view
            )));
        }
        if until > end {
            return Err(PyValueError::new_err(format!(
                "until = {until} is past the scene's duration {end}: give the scene a longer duration"
            )));
        }
        let stop = Stop { until, events };
        let mut log = record.then(EventLog::default);
        let mut done = 0u64;
        loop {
            let slice = py.allow_threads(|| {
                let deadline = Instant::now() + Duration::from_millis(50);
                let Inner {
                    sim,
                    view,
                    observer,
                    ended,
                    trace,
                    ..
                } = &mut *inner;
                with_sim!(sim, s => advance(s, view, observer, ended, trace, stop, &mut done, log.as_mut(), deadline))
            });
            match slice {
                Slice::Done => break,
                Slice::Budget => py.check_signals()?,
                Slice::TraceFailed(e) => {
                    let (_, path) = inner.trace.take().expect("a trace was being written");
                    return Err(pyo3::exceptions::PyOSError::new_err(format!(
                        "{}: writing the trace failed: {e}",
                        path.display()
                    )));
                }
            }
        }
        if inner.ended {
            inner.finish_trace(end)?;
        }
        let Some(log) = log else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("time", PyArray1::from_vec(py, log.time))?;
        d.set_item("kind", PyArray1::from_vec(py, log.kind))?;
        d.set_item("a", PyArray1::from_vec(py, log.a))?;
        d.set_item("b", PyArray1::from_vec(py, log.b))?;
        Ok(Some(d))
    }

    /// Starts sampling the observables over windows of `interval` of simulated time from time
    /// 0 (before any event is processed), in a box of `volume` (default: the periodic box's).
    #[pyo3(signature = (interval, volume=None))]
    fn observe(&self, interval: f64, volume: Option<f64>) -> PyResult<()> {
        if !(interval > 0.0 && interval.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "interval must be a positive number, got {interval}"
            )));
        }
        if let Some(v) = volume {
            if !(v > 0.0 && v.is_finite()) {
                return Err(PyValueError::new_err(format!(
                    "volume must be a positive number, got {v}"
                )));
            }
        }
        let volume =
            match (volume, &self.periodic) {
                (Some(v), _) => v,
                (None, Some(l)) => l.iter().product(),
                (None, None) => return Err(PyValueError::new_err(
                    "the scene has no periodic box: give the volume the pressure is measured in",
                )),
            };
        let mut inner = self.lock()?;
        // As `kairos run --observe`.
        let duration = with_sim!(&inner.sim, s => s.end_time());
        kairos::observe::check_windows(duration, interval)
            .map_err(|e| PyValueError::new_err(format!("interval {e}")))?;
        let started = with_sim!(&inner.sim, s => s.counts().total() > 0);
        if started {
            return Err(PyValueError::new_err(
                "observe() must be called before the first run",
            ));
        }
        let obs = with_sim!(&inner.sim, s => Observer::new(s, interval, volume));
        inner.observer = Some((obs, Vec::new()));
        Ok(())
    }

    /// The closed windows' observables as columns: time (end of the window), pressure,
    /// compressibility, collision_rate, kinetic_energy, max_overlap.
    fn observables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let inner = self.lock()?;
        let samples: &[Sample] = inner.observer.as_ref().map_or(&[], |(_, s)| s);
        let col = |f: fn(&Sample) -> f64| PyArray1::from_vec(py, samples.iter().map(f).collect());
        let d = PyDict::new(py);
        d.set_item("time", col(|s| s.time))?;
        d.set_item("pressure", col(|s| s.pressure))?;
        d.set_item("compressibility", col(|s| s.compressibility))?;
        d.set_item("collision_rate", col(|s| s.collision_rate))?;
        d.set_item("kinetic_energy", col(|s| s.kinetic_energy))?;
        d.set_item("max_overlap", col(|s| s.max_overlap))?;
        Ok(d)
    }

    /// Positions at the current time, `(n, dim)` (in a periodic box, inside it).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let inner = self.lock()?;
        let flat = with_sim!(&inner.sim, s => state::positions(s, inner.view));
        state::matrix(py, flat, self.dim)
    }

    /// Velocities at the current time, `(n, dim)`.
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let inner = self.lock()?;
        let flat = with_sim!(&inner.sim, s => state::velocities(s, inner.view));
        state::matrix(py, flat, self.dim)
    }

    /// Rigid bodies' orientations at the current time: 2D `(n,)` angles, 3D `(n, 4)`
    /// quaternions `w, x, y, z`; `None` in a scene of balls.
    #[getter]
    fn orientations<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let inner = self.lock()?;
        let Some(flat) = with_sim!(&inner.sim, s => state::orientations(s, inner.view)) else {
            return Ok(None);
        };
        Ok(Some(if self.dim == 2 {
            PyArray1::from_vec(py, flat).into_any()
        } else {
            state::matrix(py, flat, 4)?.into_any()
        }))
    }

    /// Rigid bodies' angular velocities (world frame) at the current time: 2D `(n,)`, 3D
    /// `(n, 3)`; `None` in a scene of balls.
    #[getter]
    fn angular_velocities<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let inner = self.lock()?;
        let Some(flat) = with_sim!(&inner.sim, s => state::angular_velocities(s, inner.view))
        else {
            return Ok(None);
        };
        Ok(Some(if self.dim == 2 {
            PyArray1::from_vec(py, flat).into_any()
        } else {
            state::matrix(py, flat, 3)?.into_any()
        }))
    }

    /// Ends the trace at the current time (a run that stops before the scene's end); its file
    /// appears only then. Does nothing without a trace, or once it is finished.
    fn finish_trace(&self) -> PyResult<()> {
        let mut inner = self.lock()?;
        let t = inner.view;
        inner.finish_trace(t)
    }

    /// The hash of the finished trace's records (as `kairos run` prints it), or None.
    #[getter]
    fn trace_hash(&self) -> PyResult<Option<String>> {
        Ok(self.lock()?.trace_hash.map(|h| format!("{h:016x}")))
    }

    /// The current time.
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(self.lock()?.view)
    }

    /// The scene's end time.
    #[getter]
    fn end_time(&self) -> PyResult<f64> {
        Ok(with_sim!(&self.lock()?.sim, s => s.end_time()))
    }

    /// The broad phase that finds the events.
    #[getter]
    fn broad_phase(&self) -> String {
        self.broad_phase.clone()
    }

    /// The dimension.
    #[getter]
    fn dim(&self) -> usize {
        self.dim
    }

    /// Events processed so far: body_body, body_wall, box_crossings.
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = with_sim!(&self.lock()?.sim, s => s.counts());
        let d = PyDict::new(py);
        d.set_item("body_body", c.body_body)?;
        d.set_item("body_wall", c.body_wall)?;
        d.set_item("box_crossings", c.box_crossings)?;
        Ok(d)
    }

    /// Kinetic energy, tracked event by event.
    #[getter]
    fn kinetic_energy(&self) -> PyResult<f64> {
        Ok(with_sim!(&self.lock()?.sim, s => s.kinetic_energy()))
    }

    /// Relative change of the energy since the start.
    #[getter]
    fn energy_drift(&self) -> PyResult<f64> {
        Ok(with_sim!(&self.lock()?.sim, s => s.energy_drift()))
    }
}

/// A trace, validated whole, as columns: the header's fields and body states, and the
/// records' fields.
#[pyfunction]
fn read_trace<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let shown = path.display().to_string();
    let err = |e: kairos::trace::TraceError| TraceError::new_err(format!("{shown}: {e}"));
    let reader = TraceReader::open(&path).map_err(err)?;
    let version = reader.version();
    let (end, hash) = (reader.end_time(), reader.hash());
    let (header, records) = py.allow_threads(|| reader.read_all()).map_err(err)?;
    state::trace_dict(py, version, end, hash, &header, &records)
}

/// The extension module.
#[pymodule]
fn _kairos(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyScene>()?;
    m.add_class::<PySimulation>()?;
    m.add_class::<gsd::PyGsdWriter>()?;
    m.add_function(wrap_pyfunction!(read_trace, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::run_one, m)?)?;
    m.add_function(wrap_pyfunction!(query::pair_query, m)?)?;
    m.add_function(wrap_pyfunction!(query::feature_ccd, m)?)?;
    m.add_function(wrap_pyfunction!(query::mesh_contact, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::run_many, m)?)?;
    m.add("SceneError", m.py().get_type::<SceneError>())?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
