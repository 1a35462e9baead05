//! Ensembles from Python: one run ([`run_one`], a Dask task's) or many on all cores with rayon
//! ([`run_many`]), each a pure function of its scene and options (`kairos::ensemble`).

use kairos::ensemble::{self, RunOptions, RunResult, Stat};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::{scene_error, PyScene};

/// The options of every run.
fn options(observe: Option<f64>, skip: usize, broad_phase: &str) -> PyResult<RunOptions> {
    Ok(RunOptions {
        observe,
        skip,
        broad_phase: crate::broad_phase_kind(broad_phase)?,
    })
}

/// A run's result as a dict of plain numbers (`None` for what was not observed).
fn result_dict<'py>(py: Python<'py>, r: &RunResult) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("n", r.n)?;
    d.set_item("dim", r.dim)?;
    d.set_item("packing", r.packing)?;
    d.set_item("duration", r.duration)?;
    d.set_item("broad_phase", r.broad_phase.to_string())?;
    d.set_item("body_body", r.body_body)?;
    d.set_item("body_wall", r.body_wall)?;
    d.set_item("energy_drift", r.energy_drift)?;
    d.set_item("windows", r.windows)?;
    let stat = |name: &str, s: Option<Stat>| -> PyResult<()> {
        d.set_item(name, s.map(|s| s.mean))?;
        d.set_item(format!("{name}_sem"), s.map(|s| s.sem))
    };
    stat("pressure", r.pressure)?;
    stat("compressibility", r.compressibility)?;
    stat("collision_rate", r.collision_rate)?;
    d.set_item("max_overlap", r.max_overlap)?;
    d.set_item("wall_seconds", r.wall_seconds)?;
    Ok(d)
}

/// Runs `scene` to its end (the GIL released) and returns its result.
#[pyfunction]
#[pyo3(signature = (scene, observe=None, skip=0, broad_phase="auto"))]
pub fn run_one<'py>(
    py: Python<'py>,
    scene: &PyScene,
    observe: Option<f64>,
    skip: usize,
    broad_phase: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let opts = options(observe, skip, broad_phase)?;
    let s = &scene.scene;
    let r = py
        .allow_threads(|| ensemble::run(s, &opts))
        .map_err(|e| scene_error(e, None))?;
    result_dict(py, &r)
}

/// Runs every scene on `threads` threads (default: one per core) with rayon, the GIL
/// released, a progress bar on a terminal; signals are checked between batches of runs, so
/// Ctrl-C stops the sweep after the runs under way. Results in the scenes' order.
#[pyfunction]
#[pyo3(signature = (scenes, observe=None, skip=0, broad_phase="auto", threads=None, progress=true))]
pub fn run_many<'py>(
    py: Python<'py>,
    scenes: Vec<PyRef<'py, PyScene>>,
    observe: Option<f64>,
    skip: usize,
    broad_phase: &str,
    threads: Option<usize>,
    progress: bool,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    use std::io::IsTerminal;
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let opts = options(observe, skip, broad_phase)?;
    let scenes: Vec<kairos::scene::Scene> = scenes.iter().map(|s| s.scene.clone()).collect();
    let bar = (progress && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(scenes.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} runs ({eta} left)",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        b
    });
    let width = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let mut out = Vec::with_capacity(scenes.len());
    // Batches of a few runs a thread: the sweep answers Ctrl-C between them.
    for batch in scenes.chunks(4 * width) {
        let results = py.allow_threads(|| {
            ensemble::run_all(batch, &opts, threads, &|_| {
                if let Some(b) = &bar {
                    b.inc(1);
                }
            })
        });
        for r in results {
            out.push(result_dict(py, &r.map_err(|e| scene_error(e, None))?)?);
        }
        py.check_signals()?;
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(out)
}
