//! `kairos.Simulation`: an event-driven simulation of a scene, run in slices with the GIL
//! released, its state handed to Python as numpy arrays.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use kairos::event::{Event, EventKind};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::observe::{Observer, Sample};
use kairos::sim::Simulation;
use kairos::trace::{Record, TraceWriter};
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::turns::{Turn, Turns};
use crate::{broad_phase_kind, scene_error, state, PyScene};

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
    inner: Turns<Inner>,
    pub(crate) dim: usize,
    /// The files its scene was read from.
    pub(crate) inputs: kairos::atomic::Inputs,
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

    /// The simulation, once the threads that asked for it before have had it: a reader
    /// waits for the run under way at most, never for a loop of runs ([`Turns`]).
    fn lock(&self) -> PyResult<Turn<'_, Inner>> {
        self.inner.take()
    }
}

#[pymethods]
impl PySimulation {
    #[new]
    #[pyo3(signature = (scene, broad_phase="auto", trace=None))]
    fn new(scene: &PyScene, broad_phase: &str, trace: Option<PathBuf>) -> PyResult<Self> {
        use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions};
        // Refused before any work: the trace replaces its path when finished.
        if let Some(path) = &trace {
            scene.check_output("Simulation trace", path)?;
        }
        let inputs = scene.inputs.clone();
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
            inner: Turns::new(Inner {
                sim,
                view: 0.0,
                observer: None,
                ended: false,
                trace,
                trace_hash: None,
            }),
            dim: scene.dim,
            inputs,
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
