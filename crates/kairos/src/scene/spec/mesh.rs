//! A `mesh` body's mesh: procedural (by name, with `size` and `detail`) or read from an
//! `.obj` or `.stl` file through [`crate::mesh_file`].

use std::sync::Arc;

use toml::Table;

use super::{as_number, checked, numbers, wrong_type, SpecError, MIN_MESH_SIZE};
use crate::ccd::mesh::{TriMesh, MAX_COORDINATE};
use crate::num::Num;

/// A procedural mesh: name, what `size` holds and its default, what `detail` holds, its
/// default and its largest value.
type Procedural = (
    &'static str,
    &'static str,
    &'static [f64],
    &'static str,
    &'static [u32],
    u32,
);

/// The procedural meshes of the `mesh` key.
const PROCEDURAL: [Procedural; 4] = [
    ("icosphere", "[radius]", &[1.0], "[subdivisions]", &[2], 6),
    (
        "torus",
        "[major radius, minor radius]",
        &[1.0, 0.35],
        "[rings, sides]",
        &[24, 12],
        1024,
    ),
    (
        "spiky_ball",
        "[radius, spike length over radius]",
        &[1.0, 1.6],
        "[subdivisions]",
        &[1],
        5,
    ),
    (
        "plate",
        "[half width, half thickness]",
        &[1.0, 0.05],
        "[]",
        &[],
        0,
    ),
];

/// A `mesh` body's mesh: a procedural one by name (with `size` and `detail`) or an `.obj` or
/// `.stl` file (a path, relative to the working directory; the entry of `meshes` of that name
/// when there is one), scaled by `scale`.
pub(super) fn read_mesh(t: &Table, meshes: &MeshFiles) -> Result<Arc<TriMesh>, SpecError> {
    let err = |key: &'static str, message: String| SpecError::Mesh { key, message };
    let names = "icosphere, torus, spiky_ball, plate, or the path of an .obj or .stl file";
    let v = t.get("mesh").ok_or_else(|| SpecError::Missing {
        key: "mesh".into(),
        hint: names.into(),
    })?;
    let name = v
        .as_str()
        .ok_or_else(|| wrong_type("mesh", "a mesh name or a file path (a string)", v))?;
    let scale = match t.get("scale") {
        None => 1.0,
        Some(v) => {
            let x = checked(
                "scale",
                as_number(v).ok_or_else(|| wrong_type("scale", "a number", v))?,
            )?;
            if !(x > 0.0) {
                return Err(err("scale", format!("must be positive, got {}", Num(x))));
            }
            x
        }
    };
    let procedural = PROCEDURAL.iter().find(|p| p.0 == name);
    let mesh = match procedural {
        None => {
            for key in ["size", "detail"] {
                if t.contains_key(key) {
                    return Err(err(
                        key,
                        format!("only procedural meshes take `{key}` (`{name}` is a file)"),
                    ));
                }
            }
            if let Some(mesh) = meshes.get(name) {
                return Ok(if scale == 1.0 {
                    Arc::clone(mesh)
                } else {
                    Arc::new(mesh.mapped(|p| p.map(|x| x * scale)))
                });
            }
            load_mesh_file(name)?
        }
        Some(&(name, size_what, size_default, detail_what, detail_default, most)) => {
            let size = match t.get("size") {
                None => size_default.to_vec(),
                Some(v) => {
                    let xs = numbers(v, "size", size_default.len(), "an array")?;
                    if let Some(x) = xs.iter().find(|x| !(**x > 0.0)) {
                        return Err(err(
                            "size",
                            format!("a {name}'s {size_what} must be positive, got {}", Num(*x)),
                        ));
                    }
                    xs
                }
            };
            let detail = match t.get("detail") {
                None => detail_default.to_vec(),
                Some(v) => {
                    let arr = v.as_array().filter(|a| a.len() == detail_default.len());
                    let ints: Option<Vec<u32>> = arr.and_then(|a| {
                        a.iter()
                            .map(|x| x.as_integer().and_then(|i| u32::try_from(i).ok()))
                            .collect()
                    });
                    let least = u32::from(name == "torus") * 3;
                    match ints {
                        Some(d) if d.iter().all(|&k| (least..=most).contains(&k)) => d,
                        _ if detail_default.is_empty() => {
                            return Err(err("detail", format!("a {name} takes no `detail`")))
                        }
                        _ => {
                            return Err(err(
                                "detail",
                                format!(
                                "a {name} takes {detail_what}: {} integers from {least} to {most}",
                                detail_default.len()
                            ),
                            ))
                        }
                    }
                }
            };
            match name {
                "icosphere" => TriMesh::icosphere(size[0], detail[0]),
                "torus" => {
                    if !(size[1] < size[0]) {
                        return Err(err(
                            "size",
                            format!(
                                "a torus's minor radius ({}) must be below its major radius ({})",
                                size[1], size[0]
                            ),
                        ));
                    }
                    TriMesh::torus(size[0], size[1], detail[0], detail[1])
                }
                "spiky_ball" => {
                    if !(size[1] >= 1.0) {
                        return Err(err("size", format!("a spiky ball's spikes reach out to the radius times at least 1, got {}", Num(size[1]))));
                    }
                    TriMesh::spiky_ball(size[0], size[1], detail[0])
                }
                _ => TriMesh::plate(size[0], size[1]),
            }
        }
    };
    // The size the arithmetic of a body holds (its volume and inertia are fifth powers of it):
    // its largest coordinate from `MIN_MESH_SIZE` to `MAX_COORDINATE`.
    let size = mesh
        .vertices()
        .iter()
        .flat_map(|v| v.map(f64::abs))
        .fold(0.0, f64::max);
    let (least, most) = (MIN_MESH_SIZE, MAX_COORDINATE);
    if !(least..=most).contains(&(size * scale)) {
        let (key, what) = if scale == 1.0 {
            ("mesh", String::new())
        } else {
            ("scale", format!(" scaled by {}", Num(scale)))
        };
        return Err(err(
            key,
            format!(
                "out of range: the mesh{what} reaches {} from its origin, and must reach from {} \
                 to {}",
                Num(size * scale),
                Num(least),
                Num(most)
            ),
        ));
    }
    Ok(Arc::new(if scale == 1.0 {
        mesh
    } else {
        mesh.mapped(|p| p.map(|x| x * scale))
    }))
}

/// The meshes of `mesh` bodies by the name their `mesh` key gives: the files a scene names,
/// read once, and the meshes of its `[meshes]` tables.
pub type MeshFiles = std::collections::BTreeMap<String, Arc<TriMesh>>;

/// Whether `name` is one of the procedural meshes (`icosphere`, `torus`, ...) rather than a
/// file or a `[meshes]` entry.
pub fn is_procedural_mesh(name: &str) -> bool {
    PROCEDURAL.iter().any(|p| p.0 == name)
}

/// The mesh of the `.obj` or `.stl` file `name` (a path, relative to the working directory).
///
/// # Errors
///
/// [`SpecError::Mesh`] for the key `mesh`: a name that is no mesh file, or the file's
/// problem (naming the file).
pub fn load_mesh_file(name: &str) -> Result<TriMesh, SpecError> {
    let err = |message: String| SpecError::Mesh {
        key: "mesh",
        message,
    };
    let lower = name.to_ascii_lowercase();
    if !(lower.ends_with(".obj") || lower.ends_with(".stl")) {
        return Err(err(format!(
            "unknown mesh `{name}` (expected icosphere, torus, spiky_ball, plate, or the path \
             of an .obj or .stl file)"
        )));
    }
    crate::mesh_file::load(std::path::Path::new(name)).map_err(|e| err(e.to_string()))
}
