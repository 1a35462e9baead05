//! Reading a scene: the TOML text, item by item, into a [`Scene`] whose rigid bodies keep their
//! tables ([`super::BodyTable`]), the `bodies_file` it names and the `[meshes]` tables.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::{
    check_keys, invalid, mesh_file, number, pad3, required, spec, table_spec, vector, xyz,
    BodySpec, BodyTable, Item, MeshFiles, Scene, SceneError, WallSpec, BALL_KEYS, MAX_MAGNITUDE,
    RIGID_KEYS, WALL_KINDS,
};
use crate::num::Num;

impl Scene {
    /// Parses and validates a scene from TOML text (with its bodies in `[[bodies]]` tables; a
    /// scene that names a `bodies_file` is read with [`Scene::load`]).
    pub fn from_toml_str(text: &str) -> Result<Scene, SceneError> {
        let (scene, bodies_file) = Self::parse_toml(text)?;
        if let Some(f) = bodies_file {
            return Err(invalid(
                Item::Scene,
                format!("`bodies_file = \"{f}\"` is found beside the scene file: load the scene from its file (Scene::load)"),
            ));
        }
        scene.validate()?;
        Ok(scene)
    }

    /// Reads, parses and validates a scene file, with its bodies from the extended-XYZ file
    /// its `bodies_file` names (relative to the scene file's folder; see [`xyz`]).
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        // Read once: a pipe (`/dev/stdin`) cannot be read again.
        let text = crate::input::read_to_string(path, crate::input::MAX_TEXT)
            .map_err(|e| SceneError::File(format!("cannot read: {e}")))?;
        let (mut scene, bodies_file) = Self::parse_toml(&text)?;
        drop(text);
        if let Some(name) = bodies_file {
            if name.trim().is_empty() {
                return Err(invalid(
                    Item::Scene,
                    "`bodies_file` is empty: name the XYZ file",
                ));
            }
            let file = match path.parent() {
                Some(dir) => dir.join(&name),
                None => PathBuf::from(&name),
            };
            let f = crate::input::check_kind(&file)
                .and_then(|()| std::fs::File::open(&file))
                .map_err(|e| {
                    invalid(
                        Item::Scene,
                        format!("bodies_file {}: cannot read: {e}", file.display()),
                    )
                })?;
            scene.bodies = xyz::read_bodies(
                std::io::BufReader::with_capacity(1 << 20, f),
                scene.dim,
                &name,
            )?;
        }
        scene.validate()?;
        Ok(scene)
    }

    /// The files the scene file at `path` reads besides itself, found without reading them:
    /// its `bodies_file` (beside it) and its mesh files (see [`Scene::mesh_files`]), each with
    /// what names it (`bodies_file`, `body 3`). A file that cannot be read or is not TOML
    /// names none ([`Scene::load`] reports why).
    pub fn files_named(path: &Path) -> Vec<(String, PathBuf)> {
        // Only a regular file is read here: a pipe is read once, by `Scene::load`.
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            return Vec::new();
        }
        let Some(root) = crate::input::read_to_string(path, crate::input::MAX_TEXT)
            .ok()
            .and_then(|text| text.parse::<Table>().ok())
        else {
            return Vec::new();
        };
        let mut files = Vec::new();
        if let Some(Value::String(name)) = root.get("bodies_file") {
            let file = match path.parent() {
                Some(dir) => dir.join(name),
                None => PathBuf::from(name),
            };
            files.push(("bodies_file".to_string(), file));
        }
        for (key, item) in [
            ("walls", Item::Wall as fn(usize) -> Item),
            ("bodies", Item::Body),
        ] {
            for (i, t) in tables(&root, key)
                .unwrap_or_default()
                .into_iter()
                .enumerate()
            {
                if let Some(p) = mesh_file(t) {
                    files.push((item(i).to_string(), p));
                }
            }
        }
        files
    }

    /// The scene's TOML, not yet validated, and the `bodies_file` it names.
    fn parse_toml(text: &str) -> Result<(Scene, Option<String>), SceneError> {
        let root: Table = text.parse().map_err(|e: toml::de::Error| {
            SceneError::Toml(shortened_lines(e.to_string().trim_end()).replace('\n', "\n  "))
        })?;
        check_keys(
            &root,
            &[
                "dim",
                "simulation",
                "boundary",
                "walls",
                "bodies",
                "bodies_file",
                "meshes",
            ],
            Item::Scene,
        )?;
        let mut meshes = read_meshes(&root)?;
        let bodies_file = match root.get("bodies_file") {
            None => None,
            Some(Value::String(f)) if root.contains_key("bodies") => {
                let rigid = tables(&root, "bodies")
                    .ok()
                    .and_then(|ts| ts.iter().position(|t| t.contains_key("shape")));
                if let Some(i) = rigid {
                    return Err(invalid(
                        Item::Body(i),
                        format!(
                            "rigid bodies (`shape = ...`) are not supported in a scene with a \
                             `bodies_file` (\"{f}\") yet: its extended-XYZ file holds balls \
                             only; give every body as a [[bodies]] table instead"
                        ),
                    ));
                }
                return Err(invalid(
                    Item::Scene,
                    format!("give the bodies either as [[bodies]] tables or in `bodies_file = \"{f}\"`, not both"),
                ))
            }
            Some(Value::String(f)) => Some(f.clone()),
            Some(v) => {
                return Err(invalid(
                    Item::Scene,
                    format!(
                        "`bodies_file` must be a file name (an extended-XYZ file beside the scene), got {}",
                        v.type_str()
                    ),
                ))
            }
        };
        let dim = match root.get("dim") {
            None => return Err(invalid(Item::Scene, "missing field `dim` (2 or 3)")),
            Some(Value::Integer(d @ (2 | 3))) => *d as usize,
            Some(v) => {
                return Err(invalid(
                    Item::Scene,
                    format!("`dim` must be 2 or 3, got {v}"),
                ))
            }
        };
        let sim = match root.get("simulation") {
            Some(Value::Table(t)) => t,
            Some(_) => return Err(invalid(Item::Simulation, "must be a table")),
            None => return Err(invalid(Item::Scene, "missing table [simulation]")),
        };
        check_keys(
            sim,
            &[
                "duration",
                "restitution",
                "contact_duration",
                "gravity",
                "rest_speed",
                "friction",
            ],
            Item::Simulation,
        )?;
        let duration = required(sim, "duration", Item::Simulation)?;
        if !(duration > 0.0) {
            return Err(invalid(
                Item::Simulation,
                format!("`duration` must be positive, got {}", Num(duration)),
            ));
        }
        let restitution = number(sim, "restitution", Item::Simulation)?.unwrap_or(1.0);
        if !(0.0..=1.0).contains(&restitution) {
            return Err(invalid(
                Item::Simulation,
                format!("`restitution` must be in [0, 1], got {}", Num(restitution)),
            ));
        }
        let contact_duration = number(sim, "contact_duration", Item::Simulation)?;
        let gravity = if sim.contains_key("gravity") {
            pad3(&vector(sim, "gravity", dim, Item::Simulation)?)
        } else {
            [0.0; 3]
        };
        let rest_speed = number(sim, "rest_speed", Item::Simulation)?;
        let friction = number(sim, "friction", Item::Simulation)?.unwrap_or(0.0);
        let periodic = match root.get("boundary") {
            None => None,
            Some(Value::Table(t)) => {
                check_keys(t, &["periodic"], Item::Boundary)?;
                t.get("periodic")
                    .map(|_| vector(t, "periodic", dim, Item::Boundary))
                    .transpose()?
            }
            Some(_) => return Err(invalid(Item::Boundary, "must be a table")),
        };
        let mut walls = Vec::new();
        for (i, t) in tables(&root, "walls")?.into_iter().enumerate() {
            walls.push(WallSpec::from_table(t, i, dim)?);
        }
        let mut bodies = Vec::new();
        let mut shapes = Vec::new();
        for (i, t) in tables(&root, "bodies")?.into_iter().enumerate() {
            let item = Item::Body(i);
            if t.contains_key("shape") {
                // A mesh file is read once, here; every later use of the table takes it from
                // the scene's meshes.
                if let Some(Value::String(name)) = t.get("mesh") {
                    if !spec::is_procedural_mesh(name) && !meshes.contains_key(name) {
                        if let Ok(mesh) = spec::load_mesh_file(name) {
                            meshes.insert(name.clone(), std::sync::Arc::new(mesh));
                        }
                    }
                }
                let table = BodyTable::new(t.clone());
                let spec = table_spec(dim, &table, &meshes).map_err(|e| invalid(item, e))?;
                if shapes.is_empty() {
                    shapes.resize(i, None);
                }
                shapes.push(Some(table));
                bodies.push(spec);
                continue;
            }
            if let Some(k) = t.keys().find(|k| {
                !BALL_KEYS.contains(&k.as_str())
                    && (spec::MOTION_KEYS.contains(&k.as_str())
                        || RIGID_KEYS.contains(&k.as_str())
                        || spec::SHAPE_NAMES.iter().any(|n| {
                            spec::shape_keys(n).is_some_and(|ks| ks.contains(&k.as_str()))
                        }))
            }) {
                return Err(invalid(
                    item,
                    format!(
                        "`{k}` is a key of a rigid body, which needs `shape = \"...\"` (a body \
                         without `shape` is a ball: {})",
                        BALL_KEYS.join(", ")
                    ),
                ));
            }
            check_keys(t, &BALL_KEYS, item)?;
            if !shapes.is_empty() {
                shapes.push(None);
            }
            bodies.push(BodySpec {
                position: pad3(&vector(t, "position", dim, item)?),
                velocity: pad3(&vector(t, "velocity", dim, item)?),
                radius: required(t, "radius", item)?,
                mass: number(t, "mass", item)?.unwrap_or(1.0),
            });
        }
        let scene = Scene {
            dim,
            duration,
            restitution,
            contact_duration,
            gravity,
            rest_speed,
            friction,
            walls,
            bodies,
            periodic,
            shapes,
            meshes,
        };
        Ok((scene, bodies_file))
    }
}

fn tables<'a>(root: &'a Table, key: &str) -> Result<Vec<&'a Table>, SceneError> {
    match root.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_table().ok_or_else(|| {
                    let item = if key == "walls" {
                        Item::Wall(i)
                    } else {
                        Item::Body(i)
                    };
                    invalid(item, "must be a table")
                })
            })
            .collect(),
        Some(_) => Err(invalid(
            Item::Scene,
            format!("`{key}` must be an array of tables ([[{key}]])"),
        )),
    }
}

/// The scene's `[meshes]` tables: per name, a mesh given by its `vertices` (`[x, y, z]`
/// each) and `triangles` (three 0-based vertex indices each, counter-clockwise seen from
/// outside), checked as a mesh file's are.
fn read_meshes(root: &Table) -> Result<MeshFiles, SceneError> {
    let mut meshes = MeshFiles::new();
    let Some(v) = root.get("meshes") else {
        return Ok(meshes);
    };
    let Value::Table(all) = v else {
        return Err(invalid(
            Item::Scene,
            "`meshes` must be a table of meshes by name ([meshes.\"NAME\"] with `vertices` and \
             `triangles`)",
        ));
    };
    for (name, v) in all {
        let bad = |problem: String| invalid(Item::Scene, format!("[meshes] \"{name}\": {problem}"));
        if spec::is_procedural_mesh(name) {
            return Err(bad(
                "is the name of a procedural mesh: give the mesh another name".into(),
            ));
        }
        let Value::Table(t) = v else {
            return Err(bad("must be a table with `vertices` and `triangles`".into()));
        };
        if let Some(k) = t
            .keys()
            .find(|k| !["vertices", "triangles"].contains(&k.as_str()))
        {
            return Err(bad(format!(
                "unknown key `{k}` (a mesh has `vertices` and `triangles`)"
            )));
        }
        let rows = |key: &str| -> Result<&Vec<Value>, SceneError> {
            match t.get(key) {
                Some(Value::Array(a)) => Ok(a),
                Some(_) => Err(bad(format!("`{key}` must be an array of 3-element arrays"))),
                None => Err(bad(format!("missing `{key}`"))),
            }
        };
        let vertices = rows("vertices")?
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let xs: Option<Vec<f64>> = row.as_array().filter(|a| a.len() == 3).and_then(|a| {
                    a.iter()
                        .map(|x| x.as_float().or_else(|| x.as_integer().map(|i| i as f64)))
                        .collect()
                });
                match xs {
                    Some(x) if x.iter().all(|c| c.abs() <= MAX_MAGNITUDE) => Ok([x[0], x[1], x[2]]),
                    Some(_) => Err(bad(format!(
                        "vertex {i} has a coordinate that is not finite or beyond {MAX_MAGNITUDE:e}"
                    ))),
                    None => Err(bad(format!("vertex {i} must be 3 numbers"))),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        let triangles = rows("triangles")?
            .iter()
            .enumerate()
            .map(|(k, row)| {
                let is: Option<Vec<u32>> = row.as_array().filter(|a| a.len() == 3).and_then(|a| {
                    a.iter()
                        .map(|x| x.as_integer().and_then(|i| u32::try_from(i).ok()))
                        .collect()
                });
                is.map(|i| [i[0], i[1], i[2]]).ok_or_else(|| {
                    bad(format!(
                        "triangle {k} must be 3 vertex indices (integers from 0)"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mesh =
            crate::ccd::mesh::TriMesh::new(vertices, triangles).map_err(|e| bad(e.to_string()))?;
        meshes.insert(name.clone(), std::sync::Arc::new(mesh));
    }
    Ok(meshes)
}

impl WallSpec {
    /// Reads wall `index` of a scene of dimension `dim` from its table (the `[[walls]]` item of
    /// a scene file, see `docs/scene-format.md`): errors name the wall and the key.
    pub fn from_table(t: &Table, index: usize, dim: usize) -> Result<WallSpec, SceneError> {
        let item = Item::Wall(index);
        if t.contains_key("shape") {
            if let Some(k) = ["plane", "polygon", "box"]
                .into_iter()
                .find(|k| t.contains_key(*k))
            {
                return Err(invalid(
                    item,
                    format!("give exactly one of `shape` and `{k}`"),
                ));
            }
            return Ok(WallSpec::Shape { table: t.clone() });
        }
        check_keys(t, &["a", "b", "plane", "polygon", "box"], item)?;
        let segment = t.contains_key("a") || t.contains_key("b");
        let kinds = ["plane", "polygon", "box"]
            .iter()
            .filter(|k| t.contains_key(**k))
            .count()
            + usize::from(segment);
        if kinds > 1 {
            return Err(invalid(
                item,
                "give exactly one of `a`/`b`, `plane`, `polygon` or `box`",
            ));
        }
        let spec = if let Some(p) = t.get("plane") {
            let p = p
                .as_table()
                .ok_or_else(|| invalid(item, "`plane` must be a table { point, normal }"))?;
            check_keys(p, &["point", "normal"], item)?;
            WallSpec::Plane {
                point: vector(p, "point", dim, item)?,
                normal: vector(p, "normal", dim, item)?,
            }
        } else if let Some(poly) = t.get("polygon") {
            let arr = poly
                .as_array()
                .ok_or_else(|| invalid(item, "`polygon` must be an array of vertices"))?;
            let mut vertices = Vec::new();
            for (k, vtx) in arr.iter().enumerate() {
                let mut holder = Table::new();
                holder.insert(format!("polygon vertex {k}"), vtx.clone());
                vertices.push(vector(&holder, &format!("polygon vertex {k}"), dim, item)?);
            }
            WallSpec::Polygon { vertices }
        } else if let Some(b) = t.get("box") {
            let b = b
                .as_table()
                .ok_or_else(|| invalid(item, "`box` must be a table { min, max }"))?;
            check_keys(b, &["min", "max"], item)?;
            WallSpec::Box {
                min: vector(b, "min", dim, item)?,
                max: vector(b, "max", dim, item)?,
            }
        } else if segment {
            let end = |key: &str| {
                if t.contains_key(key) {
                    vector(t, key, dim, item)
                } else {
                    Err(invalid(
                        item,
                        format!("missing field `{key}` (a segment needs both ends, `a` and `b`)"),
                    ))
                }
            };
            WallSpec::Segment {
                a: end("a")?,
                b: end("b")?,
            }
        } else {
            return Err(invalid(item, WALL_KINDS));
        };
        Ok(spec)
    }
}

/// A parser's message with each line cut to 240 characters: it quotes the offending line of
/// the file, which may be megabytes long.
fn shortened_lines(message: &str) -> String {
    const MOST: usize = 240;
    message
        .lines()
        .map(|l| match l.char_indices().nth(MOST) {
            Some((cut, _)) => format!("{} [... {} more bytes]", &l[..cut], l.len() - cut),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}
