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

use kairos::atomic::Inputs;
use kairos::scene::{BodySpec, Scene, SceneError as LibSceneError, WallSpec};
use kairos::trace::TraceReader;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod gsd;
mod query;
mod sim;
mod state;
mod sweep;
mod turns;

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
    /// The files it was read from (its scene file, bodies file, meshes): no output of the
    /// package replaces them.
    pub(crate) inputs: Inputs,
}

impl PyScene {
    /// A scene made without a scene file: its inputs are the mesh files it read.
    fn made(scene: Scene) -> Self {
        let mut inputs = Inputs::new();
        inputs.add_meshes(&scene);
        Self { scene, inputs }
    }

    /// Refuses `path`, the output named `what`, when it is one of the scene's inputs, before
    /// anything is written, as the command line refuses it.
    pub(crate) fn check_output(&self, what: &str, path: &std::path::Path) -> PyResult<()> {
        check_output(&self.inputs, what, path)
    }
}

/// Refuses `path`, the output named `what`, when it is one of `inputs` (by path, symbolic link
/// or hard link), with a `ValueError` naming both files.
pub(crate) fn check_output(inputs: &Inputs, what: &str, path: &std::path::Path) -> PyResult<()> {
    inputs
        .check_output(what, path, |_| false)
        .map_err(|e| PyValueError::new_err(e.to_string()))
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
        Ok(Self::made(scene))
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
            .map(Self::made)
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
            .map(Self::made)
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
        let scene = Scene::load(&path).map_err(|e| scene_error(e, Some(&shown)))?;
        let mut inputs = Inputs::new();
        inputs.add("the scene", &path);
        inputs.add_scene_file(&path);
        Ok(Self { scene, inputs })
    }

    /// Parses and validates a scene from TOML text.
    #[staticmethod]
    fn from_toml_str(text: &str) -> PyResult<Self> {
        Scene::from_toml_str(text)
            .map(Self::made)
            .map_err(|e| scene_error(e, None))
    }

    /// Refuses `path`, an output named `what`, when it is a file the scene was read from (its
    /// scene file, bodies file or meshes) by path, symbolic link or hard link.
    #[pyo3(name = "check_output")]
    fn py_check_output(&self, what: &str, path: PathBuf) -> PyResult<()> {
        self.check_output(what, &path)
    }

    /// The scene as TOML text (bodies inline).
    fn to_toml_str(&self) -> String {
        self.scene.to_toml()
    }

    /// Writes the scene as a TOML file, atomically (a partial file never takes its name).
    fn to_toml(&self, path: PathBuf) -> PyResult<()> {
        self.check_output("Scene.to_toml", &path)?;
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
    m.add_class::<sim::PySimulation>()?;
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
