//! GSD files (HOOMD-blue's format) of a simulation's states, from Python.

use std::path::PathBuf;
use std::sync::Mutex;

use kairos::atomic::AtomicWriter;
use kairos::gsd::hoomd::{Frame, HoomdWriter, Particles};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use crate::sim::PySimulation;
use crate::{check_output, scene_error, PyScene};

/// A GSD error as a Python exception: the operating system's as `OSError`, the rest as
/// `ValueError`; both name the file.
fn gsd_error(e: kairos::gsd::GsdError) -> PyErr {
    match e {
        kairos::gsd::GsdError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A GSD file being written, frame by frame, from a simulation of one scene; it takes its name
/// only when closed (a file left unclosed is removed, never left half-written).
#[pyclass(name = "GsdWriter", module = "kairos._kairos")]
pub struct PyGsdWriter {
    inner: Mutex<Option<HoomdWriter<AtomicWriter>>>,
    path: PathBuf,
    n: usize,
    /// The scene's dimension, and whether its bodies are rigid (frames with orientations).
    dim: usize,
    rigid: bool,
}

#[pymethods]
impl PyGsdWriter {
    #[new]
    fn new(path: PathBuf, scene: &PyScene) -> PyResult<Self> {
        scene.check_output("GsdWriter path", &path)?;
        let particles = Particles::from_scene(&scene.scene).map_err(|e| scene_error(e, None))?;
        let (dim, rigid) = (particles.dim, particles.rigid.is_some());
        let w = HoomdWriter::create(&path, particles).map_err(gsd_error)?;
        Ok(Self {
            inner: Mutex::new(Some(w)),
            path,
            n: scene.scene.bodies.len(),
            dim,
            rigid,
        })
    }

    /// Appends the state of `sim` at its current time as the next frame.
    fn append(&self, sim: &PySimulation) -> PyResult<()> {
        // The file replaces its path when closed: never a file the simulation's scene was
        // read from.
        check_output(&sim.inputs, "GsdWriter path", &self.path)?;
        let (state, t) = sim.frame_state()?;
        if sim.dim != self.dim || state.rotation.is_some() != self.rigid {
            let kind =
                |d: usize, r: bool| format!("{d}D {}", if r { "rigid bodies" } else { "balls" });
            return Err(PyValueError::new_err(format!(
                "{}: the simulation is of {}, the file's scene of {}",
                self.path.display(),
                kind(sim.dim, state.rotation.is_some()),
                kind(self.dim, self.rigid)
            )));
        }
        if state.position.len() != self.n {
            return Err(PyValueError::new_err(format!(
                "{}: the simulation has {} bodies, the file's scene {}",
                self.path.display(),
                state.position.len(),
                self.n
            )));
        }
        let mut guard = self.inner.lock().map_err(|_| closed(&self.path))?;
        let w = guard.as_mut().ok_or_else(|| closed(&self.path))?;
        let frame = Frame {
            step: w.frame_count(),
            time: t,
            position: &state.position,
            velocity: &state.velocity,
            rotation: state.rotation.as_deref(),
            angular_velocity: state.angular_velocity.as_deref(),
        };
        w.write_frame(&frame).map_err(gsd_error)
    }

    /// The frames written so far.
    #[getter]
    fn frames(&self) -> PyResult<u64> {
        let guard = self.inner.lock().map_err(|_| closed(&self.path))?;
        Ok(guard.as_ref().map_or(0, |w| w.frame_count()))
    }

    /// Finishes the file and moves it into place (a second close does nothing).
    fn close(&self) -> PyResult<()> {
        let mut guard = self.inner.lock().map_err(|_| closed(&self.path))?;
        match guard.take() {
            Some(w) => w.commit().map_err(gsd_error),
            None => Ok(()),
        }
    }

    /// Drops the file unwritten (after an error in a `with` block).
    fn abandon(&self) -> PyResult<()> {
        let mut guard = self.inner.lock().map_err(|_| closed(&self.path))?;
        guard.take();
        Ok(())
    }
}

fn closed(path: &std::path::Path) -> PyErr {
    PyValueError::new_err(format!("{}: the GSD file is closed", path.display()))
}
