//! Mesh files: OBJ and STL read into the geometry's [`TriMesh`], naming the file and the
//! item on any problem. The geometry crate reads no file; this module is where a mesh file
//! becomes vertices and triangles.

use crate::ccd::mesh::{MeshError, TriMesh};

/// Why a mesh file could not be loaded: the file, and the item or the problem.
#[derive(Debug, thiserror::Error)]
pub enum MeshFileError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The error.
        source: std::io::Error,
    },
    /// The file's format is not understood.
    #[error("{file}: {problem}")]
    Format {
        /// The file.
        file: String,
        /// What is wrong.
        problem: String,
    },
    /// The mesh it holds is invalid.
    #[error("{file}: {source}")]
    Mesh {
        /// The file.
        file: String,
        /// What is wrong, naming the item.
        source: MeshError,
    },
}

/// What is wrong with the size of an STL file, if anything: empty, or (unless it is ASCII, its
/// first word `solid`) not the 84 bytes of a binary STL's header and 50 bytes per triangle the
/// header announces.
fn stl_size_problem(bytes: &[u8]) -> Option<String> {
    if bytes.is_empty() {
        return Some("the file is empty".into());
    }
    let ascii = bytes.starts_with(b"solid");
    if bytes.len() < 84 {
        return (!ascii).then(|| {
            format!(
                "truncated or not an STL file: {} bytes, less than the 84 bytes of a binary \
                 STL's header",
                bytes.len()
            )
        });
    }
    let count = u32::from_le_bytes(bytes[80..84].try_into().expect("4 bytes"));
    let expected = 84 + 50 * u64::from(count);
    let len = bytes.len() as u64;
    if ascii || expected == len {
        return None;
    }
    let triangles = if count == 1 { "triangle" } else { "triangles" };
    Some(if expected > len {
        format!(
            "truncated or not an STL file: its header announces {count} {triangles}, \
             {expected} bytes, but the file has {len}"
        )
    } else {
        format!(
            "not an STL file: its header announces {count} {triangles}, {expected} bytes, \
             but the file has {len}"
        )
    })
}

/// Loads a mesh from an OBJ (`.obj`, by `tobj`: every object of the file, polygons
/// triangulated as fans) or STL file (`.stl`, ASCII or binary, by `stl_io`: identical
/// corners merged into one vertex), by the file's extension.
///
/// # Errors
///
/// [`MeshFileError`] naming the file and the problem: unreadable, an unknown extension, a
/// syntax the reader refuses, or an invalid mesh (see [`TriMesh::new`]: no triangles, a
/// non-finite vertex, an index out of range, a degenerate triangle, each named).
pub fn load(path: &std::path::Path) -> Result<TriMesh, MeshFileError> {
    let file = path.display().to_string();
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let format = |problem: String| MeshFileError::Format {
        file: file.clone(),
        problem,
    };
    let (vertices, triangles) = match ext.as_deref() {
        Some("obj") => {
            let text = crate::input::read(path, crate::input::MAX_DATA).map_err(|source| {
                MeshFileError::Io {
                    file: file.clone(),
                    source,
                }
            })?;
            let opts = tobj::LoadOptions {
                triangulate: true,
                single_index: true,
                ..Default::default()
            };
            let (models, _) = tobj::load_obj_buf(&mut text.as_slice(), &opts, |_| {
                Err(tobj::LoadError::OpenFileFailed)
            })
            .map_err(|e| format(format!("not a valid OBJ file: {e}")))?;
            let mut vertices = Vec::new();
            let mut triangles = Vec::new();
            for m in models {
                let base = vertices.len() as u32;
                vertices.extend(m.mesh.positions.chunks_exact(3).map(|p| [p[0], p[1], p[2]]));
                triangles.extend(
                    m.mesh
                        .indices
                        .chunks_exact(3)
                        .map(|t| [base + t[0], base + t[1], base + t[2]]),
                );
            }
            (vertices, triangles)
        }
        Some("stl") => {
            let bytes = crate::input::read(path, crate::input::MAX_DATA).map_err(|source| {
                MeshFileError::Io {
                    file: file.clone(),
                    source,
                }
            })?;
            if let Some(problem) = stl_size_problem(&bytes) {
                return Err(format(problem));
            }
            let m = stl_io::read_stl(&mut std::io::Cursor::new(&bytes))
                .map_err(|e| format(format!("not a valid STL file: {e}")))?;
            let vertices = m
                .vertices
                .iter()
                .map(|v| [v[0] as f64, v[1] as f64, v[2] as f64])
                .collect();
            let triangles = m
                .faces
                .iter()
                .map(|t| t.vertices.map(|i| i.min(u32::MAX as usize) as u32))
                .collect();
            (vertices, triangles)
        }
        _ => {
            return Err(format(
                "unknown mesh format: the extension must be .obj or .stl".into(),
            ))
        }
    };
    TriMesh::new(vertices, triangles).map_err(|source| MeshFileError::Mesh { file, source })
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesh_files_load_and_bad_ones_name_the_file_and_item() {
        let dir = std::env::temp_dir().join(format!("kairos-mesh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let obj = dir.join("quad.obj");
        std::fs::write(&obj, "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n").unwrap();
        let m = load(&obj).unwrap();
        assert_eq!((m.vertices().len(), m.triangles().len()), (4, 2));
        let stl = dir.join("tri.stl");
        std::fs::write(
            &stl,
            "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n\
             vertex 0 1 0\nendloop\nendfacet\nendsolid t\n",
        )
        .unwrap();
        let m = load(&stl).unwrap();
        assert_eq!((m.vertices().len(), m.triangles().len()), (3, 1));
        let cases = [
            ("bad.obj", "v 0 0 0\nv 1 0 0\nf 1 2 7\n", "bad.obj"),
            (
                "flat.obj",
                "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n",
                "triangle 0 is degenerate",
            ),
            ("empty.obj", "", "no triangles"),
            ("junk.stl", "solid x\nfacet oops\n", "not a valid STL file"),
            ("mesh.ply", "ply\n", "must be .obj or .stl"),
        ];
        for (name, text, needle) in cases {
            let f = dir.join(name);
            std::fs::write(&f, text).unwrap();
            let e = load(&f).unwrap_err().to_string();
            assert!(e.contains(name) && e.contains(needle), "{name}: {e}");
        }
        assert!(load(&dir.join("missing.obj")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
