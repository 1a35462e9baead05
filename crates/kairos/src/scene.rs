//! Scene files (TOML): parsing, validation and serialisation.
//!
//! The format is documented in `docs/scene-format.md`. Errors name the item (`body 3`,
//! `wall 0`, `[simulation]`) and the problem; the command line adds the file name.
//!
//! A body is a ball (`radius`, `mass`) or, with a `shape` key, a rigid body of that convex
//! shape: its table is read by [`RigidBodySpec::from_table`] with [`RIGID_KEYS`] (its mass
//! properties) and kept in [`Scene::shapes`], so that the scene stays independent of the
//! dimension's types and writes the body back as written. Rigid bodies are checked on their
//! shapes: two bodies overlap, or a body crosses a wall, only when the exact convex queries
//! say so ([`signed_distance`], GJK and EPA), the bounding spheres being a prefilter.

mod parts;
pub mod spec;
pub mod xyz;

pub use parts::BodyTable;
use parts::{ball_parts, body_spec, rigid_parts, RigidParts};

pub use spec::{
    is_procedural_mesh, load_mesh_file, shape_keys, BodyDim, MeshFiles, RigidBodySpec, SpecError,
    MOTION_KEYS, SHAPE_NAMES,
};

use std::fmt;
use std::path::{Path, PathBuf};

use toml::{Table, Value};

use crate::body::Body;
use crate::ccd::tree::MeshBody;
use crate::math::{nearest_image, DVec2, DVec3, Vector};
use crate::num::Num;
use crate::query::{signed_distance, EpaOptions};
use crate::rigid::{RigidState, WallPieces};
use crate::rigid_mesh::MeshShape;
use crate::shape::{Pose, Shape, SupportMap};
use crate::wall::{Plane, Polygon, Segment, StaticShape, Wall};
use crate::world::World;

/// Largest coordinate, velocity or size magnitude accepted, so that squared distances and
/// contact-time discriminants cannot overflow.
pub const MAX_MAGNITUDE: f64 = 1e100;
/// Relative tolerance of the overlap checks: bodies (or a body and a wall) may touch, or
/// overlap by at most this fraction of the contact distance (round-off in generated files).
pub const OVERLAP_TOLERANCE: f64 = 1e-12;

/// [`Scene::default_contact_duration`] as a fraction of the time a body of mean radius moving
/// at the root-mean-square speed takes to cross its radius.
pub const DEFAULT_CONTACT_DURATION_FRACTION: f64 = 1e-4;

/// [`Scene::default_rest_speed`]'s height of fall, as a fraction of the bodies' mean radius.
pub const DEFAULT_REST_HEIGHT_FRACTION: f64 = 1e-3;

/// The keys a rigid body's table takes besides its shape's and its motion's
/// ([`RigidBodySpec::from_table`]): its mass properties.
pub const RIGID_KEYS: [&str; 3] = ["density", "mass", "inertia"];

/// The keys of a ball without `shape` (the format before rigid bodies).
const BALL_KEYS: [&str; 4] = ["position", "velocity", "radius", "mass"];

/// The error of a wall item that gives no kind of wall.
const WALL_KINDS: &str = "no kind of wall given; a wall is one of: a segment \
    (`a = [...]` and `b = [...]`, its ends; a thin rod in 3D), a plane \
    (`plane = { point = [...], normal = [...] }`), a convex polygon (3D, \
    `polygon = [[x, y, z], ...]`, its vertices in order), a box of 2*dim walls \
    (`box = { min = [...], max = [...] }`) or a static convex shape (`shape = \"box\"` with \
    the shape's keys, `position` and `orientation`, as for rigid bodies)";

/// The keys a body's table takes that a static shape's does not: walls do not move.
const MOVING_KEYS: [&str; 5] = ["velocity", "angular_velocity", "density", "mass", "inertia"];

/// A wall as written in a scene (see `docs/scene-format.md`).
#[derive(Clone, Debug, PartialEq)]
pub enum WallSpec {
    /// `a = [...]`, `b = [...]`: a segment (2D) or a thin rod (3D).
    Segment {
        /// First endpoint.
        a: Vec<f64>,
        /// Second endpoint.
        b: Vec<f64>,
    },
    /// `plane = { point = [...], normal = [...] }`: an infinite plane (a line in 2D); bodies
    /// must start on the side the normal points to.
    Plane {
        /// A point of the plane.
        point: Vec<f64>,
        /// Its normal (any length).
        normal: Vec<f64>,
    },
    /// `polygon = [[...], ...]`: a convex planar polygon (3D).
    Polygon {
        /// Vertices in order.
        vertices: Vec<Vec<f64>>,
    },
    /// `box = { min = [...], max = [...] }`: an axis-aligned room of `2 dim` walls (faces
    /// -x, +x, -y, +y, -z, +z, with consecutive ids); bodies must start inside it.
    Box {
        /// Lower corner.
        min: Vec<f64>,
        /// Upper corner.
        max: Vec<f64>,
    },
    /// `shape = "..."` with the shape's keys, `position` and `orientation` (as for a rigid
    /// body, without velocities or mass): a static convex shape. The table is kept as written.
    Shape {
        /// The wall's table.
        table: Table,
    },
}

impl WallSpec {
    /// How many walls (wall ids) this item stands for in a scene of dimension `dim`.
    pub fn wall_count(&self, dim: usize) -> usize {
        match self {
            WallSpec::Box { .. } => 2 * dim,
            _ => 1,
        }
    }

    /// The walls of this item.
    fn build<V: Vector>(&self) -> Result<Vec<Wall<V>>, String> {
        let v = |s: &[f64]| {
            V::try_from_slice(s).ok_or_else(|| format!("expected {} components", V::DIM))
        };
        Ok(match self {
            WallSpec::Segment { a, b } => {
                vec![Wall::Segment(
                    Segment::new(v(a)?, v(b)?).ok_or("endpoints `a` and `b` coincide")?,
                )]
            }
            WallSpec::Plane { point, normal } => {
                vec![Wall::Plane(
                    Plane::new(v(point)?, v(normal)?).ok_or("`normal` must be non-zero")?,
                )]
            }
            WallSpec::Polygon { vertices } => {
                let vs = vertices
                    .iter()
                    .map(|p| v(p))
                    .collect::<Result<Vec<_>, _>>()?;
                vec![Wall::Polygon(Polygon::new(vs).map_err(|e| e.to_string())?)]
            }
            WallSpec::Shape { table } => vec![Wall::Shape(static_shape::<V>(table)?)],
            WallSpec::Box { min, max } => {
                if min.iter().zip(max).any(|(lo, hi)| !(lo < hi)) {
                    return Err("`min` must be below `max` on every axis".into());
                }
                let mut walls = Vec::new();
                for axis in 0..V::DIM {
                    for (side, x) in [min[axis], max[axis]].into_iter().enumerate() {
                        if V::DIM == 2 {
                            let o = 1 - axis;
                            let mut a = [0.0; 2];
                            let mut b = [0.0; 2];
                            a[axis] = x;
                            b[axis] = x;
                            a[o] = min[o];
                            b[o] = max[o];
                            walls.push(Wall::Segment(
                                Segment::new(v(&a)?, v(&b)?).ok_or("degenerate box")?,
                            ));
                        } else {
                            let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
                            let corner = |cu: f64, cw: f64| {
                                let mut p = [0.0; 3];
                                p[axis] = x;
                                p[u] = cu;
                                p[w] = cw;
                                p
                            };
                            let mut quad = [
                                corner(min[u], min[w]),
                                corner(max[u], min[w]),
                                corner(max[u], max[w]),
                                corner(min[u], max[w]),
                            ];
                            // Normals point into the room.
                            if side == 1 {
                                quad.reverse();
                            }
                            let vs = quad.iter().map(|p| v(p)).collect::<Result<Vec<_>, _>>()?;
                            walls.push(Wall::Polygon(Polygon::new(vs).map_err(|e| e.to_string())?));
                        }
                    }
                }
                walls
            }
        })
    }
}

/// A body as written in a scene: 64 bytes, so that a million-body scene loads lean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodySpec {
    /// Position at time 0 (z = 0 in 2D).
    pub position: [f64; 3],
    /// Velocity at time 0 (z = 0 in 2D).
    pub velocity: [f64; 3],
    /// Radius, `> 0`.
    pub radius: f64,
    /// Mass, `> 0`.
    pub mass: f64,
}

/// A validated scene, independent of the dimension's vector type.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// 2 or 3.
    pub dim: usize,
    /// Simulated time, `> 0`.
    pub duration: f64,
    /// Coefficient of restitution in `[0, 1]`.
    pub restitution: f64,
    /// Contact duration `t_c` of the TC model (`[simulation] contact_duration`, `>= 0`): a
    /// collision of a body within `t_c` of its previous collision is elastic. `None` (the key
    /// absent) means [`Scene::default_contact_duration`]. Only matters when `restitution < 1`.
    pub contact_duration: Option<f64>,
    /// Uniform gravity (`[simulation] gravity = [gx, gy(, gz)]`; zero, the default, is none),
    /// padded to 3 components. See [`World::with_gravity`] for the motion and for sleeping
    /// bodies.
    pub gravity: [f64; 3],
    /// The speed below which a body comes to rest on a support under gravity
    /// (`[simulation] rest_speed`, `>= 0`); `None` means [`Scene::default_rest_speed`].
    pub rest_speed: Option<f64>,
    /// The Coulomb friction coefficient of collisions (`[simulation] friction`, `>= 0`; 0, the
    /// default, is frictionless). Needs rigid bodies (a ball that should roll takes
    /// `shape = "ball"`).
    pub friction: f64,
    /// Walls, ids 0-based in file order.
    pub walls: Vec<WallSpec>,
    /// Bodies, ids 0-based in file order.
    pub bodies: Vec<BodySpec>,
    /// Box lengths of a periodic boundary (`[boundary] periodic = [Lx, Ly(, Lz)]`), if any.
    pub periodic: Option<Vec<f64>>,
    /// The rigid bodies' tables (`[[bodies]]` items with a `shape`, see
    /// `docs/scene-format.md`): empty when every body is a ball without `shape` (the scene's
    /// world is then a world of balls); otherwise one entry per body, the table of its keys as
    /// written for a rigid body (read by [`RigidBodySpec::from_table`]) and `None` for a ball
    /// without `shape`. Each [`BodyTable`] keeps the shape, mass properties and pose its table
    /// builds, so that parsing, validation, the geometry checks and the world read them once.
    /// A rigid body's [`BodySpec`] holds its centre of mass, the velocity of its centre of
    /// mass, its bounding radius about the centre of mass grown by
    /// [`crate::rigid::RADIUS_MARGIN`] and its mass: [`rigid_body_spec`] computes it from the
    /// table, and [`Scene::validate`] checks that the two agree.
    pub shapes: Vec<Option<BodyTable>>,
    /// The meshes of the `mesh` bodies that are no procedural mesh, by the name their `mesh`
    /// key gives: each mesh file read once when the scene is parsed, and the scene's
    /// `[meshes]` tables. [`Scene::to_toml`] writes them as `[meshes]` tables, so that the
    /// scene of a trace or checkpoint holds its meshes and never reads their files again.
    pub meshes: MeshFiles,
}

/// The part of a scene an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// The top level of the file.
    Scene,
    /// The `[simulation]` table.
    Simulation,
    /// The `[boundary]` table.
    Boundary,
    /// A wall, by id.
    Wall(usize),
    /// A body, by id.
    Body(usize),
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Scene => f.write_str("scene"),
            Item::Simulation => f.write_str("[simulation]"),
            Item::Boundary => f.write_str("[boundary]"),
            Item::Wall(i) => write!(f, "wall {i}"),
            Item::Body(i) => write!(f, "body {i}"),
        }
    }
}

/// Why a scene was rejected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// The text is not valid TOML.
    #[error("invalid TOML: {0}")]
    Toml(String),
    /// The file could not be read.
    #[error("{0}")]
    File(String),
    /// An item is missing, malformed or physically impossible.
    #[error("{item}: {message}")]
    Invalid {
        /// The item concerned.
        item: Item,
        /// What is wrong with it.
        message: String,
    },
}

fn invalid(item: Item, message: impl Into<String>) -> SceneError {
    SceneError::Invalid {
        item,
        message: message.into(),
    }
}

fn check_keys(t: &Table, allowed: &[&str], item: Item) -> Result<(), SceneError> {
    for k in t.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(invalid(
                item,
                format!(
                    "unknown field `{k}` (expected one of: {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The mesh file a body's or wall's table reads: its `mesh` when `shape = "mesh"` and `mesh`
/// names an `.obj` or `.stl` file (as the shape's reader decides).
fn mesh_file(t: &Table) -> Option<PathBuf> {
    if t.get("shape").and_then(Value::as_str) != Some("mesh") {
        return None;
    }
    let name = t.get("mesh")?.as_str()?;
    let lower = name.to_ascii_lowercase();
    (lower.ends_with(".obj") || lower.ends_with(".stl")).then(|| PathBuf::from(name))
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) => Some(*f),
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

fn finite(x: f64, what: &str, item: Item) -> Result<f64, SceneError> {
    if !x.is_finite() {
        return Err(invalid(
            item,
            format!("`{what}` must be finite, got {}", Num(x)),
        ));
    }
    if x.abs() > MAX_MAGNITUDE {
        return Err(invalid(
            item,
            format!("`{what}` is too large ({x:e}; at most {MAX_MAGNITUDE:e})"),
        ));
    }
    Ok(x)
}

fn number(t: &Table, key: &str, item: Item) -> Result<Option<f64>, SceneError> {
    match t.get(key) {
        None => Ok(None),
        Some(v) => {
            let x = as_number(v).ok_or_else(|| {
                invalid(
                    item,
                    format!("`{key}` must be a number, got {}", v.type_str()),
                )
            })?;
            finite(x, key, item).map(Some)
        }
    }
}

fn required(t: &Table, key: &str, item: Item) -> Result<f64, SceneError> {
    number(t, key, item)?.ok_or_else(|| invalid(item, format!("missing field `{key}`")))
}

fn vector(t: &Table, key: &str, dim: usize, item: Item) -> Result<Vec<f64>, SceneError> {
    let v = t
        .get(key)
        .ok_or_else(|| invalid(item, format!("missing field `{key}`")))?;
    let arr = v
        .as_array()
        .ok_or_else(|| invalid(item, format!("`{key}` must be an array of {dim} numbers")))?;
    if arr.len() != dim {
        return Err(invalid(
            item,
            format!(
                "`{key}` has {} components but the scene has dim = {dim}",
                arr.len()
            ),
        ));
    }
    arr.iter()
        .map(|x| {
            let x = as_number(x)
                .ok_or_else(|| invalid(item, format!("`{key}` must hold numbers only")))?;
            finite(x, key, item)
        })
        .collect()
}

/// A vector of 2 or 3 components as 3 (z = 0 in 2D).
pub fn pad3(v: &[f64]) -> [f64; 3] {
    [v[0], v[1], v.get(2).copied().unwrap_or(0.0)]
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
        let text = std::fs::read_to_string(path)
            .map_err(|e| SceneError::File(format!("cannot read: {e}")))?;
        let (mut scene, bodies_file) = Self::parse_toml(&text)?;
        drop(text);
        if let Some(name) = bodies_file {
            let file = match path.parent() {
                Some(dir) => dir.join(&name),
                None => PathBuf::from(&name),
            };
            let f = std::fs::File::open(&file).map_err(|e| {
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
        let Some(root) = std::fs::read_to_string(path)
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
            SceneError::Toml(e.to_string().trim_end().replace('\n', "\n  "))
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
            let item = Item::Wall(i);
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
                walls.push(WallSpec::Shape { table: t.clone() });
                continue;
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
                            format!(
                                "missing field `{key}` (a segment needs both ends, `a` and `b`)"
                            ),
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
            walls.push(spec);
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

    /// Checks every rule of the format: ranges, dimensions, and that no body overlaps another
    /// body, crosses a wall or lies outside a closed polygon of walls (2D).
    pub fn validate(&self) -> Result<(), SceneError> {
        if self.dim != 2 && self.dim != 3 {
            return Err(invalid(
                Item::Scene,
                format!("`dim` must be 2 or 3, got {}", self.dim),
            ));
        }
        if self.bodies.len() >= u32::MAX as usize || self.walls.len() >= u32::MAX as usize {
            return Err(invalid(Item::Scene, "too many bodies or walls"));
        }
        let check_vec = |v: &[f64], what: &str, item: Item| -> Result<(), SceneError> {
            if v.len() != self.dim {
                return Err(invalid(
                    item,
                    format!(
                        "`{what}` has {} components but the scene has dim = {}",
                        v.len(),
                        self.dim
                    ),
                ));
            }
            v.iter()
                .try_for_each(|x| finite(*x, what, item).map(|_| ()))
        };
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(invalid(
                Item::Simulation,
                format!(
                    "`restitution` must be in [0, 1], got {}",
                    Num(self.restitution)
                ),
            ));
        }
        if let Some(tc) = self.contact_duration {
            finite(tc, "contact_duration", Item::Simulation)?;
            if !(tc >= 0.0) {
                return Err(invalid(
                    Item::Simulation,
                    format!("`contact_duration` must be at least 0, got {}", Num(tc)),
                ));
            }
        }
        check_vec(&self.gravity[..self.dim], "gravity", Item::Simulation)?;
        if self.dim == 2 && self.gravity[2] != 0.0 {
            return Err(invalid(
                Item::Simulation,
                "`gravity` has 3 components in 2D",
            ));
        }
        if self.has_gravity() && self.periodic.is_some() {
            return Err(invalid(
                Item::Simulation,
                "`gravity` needs walls to land on: a periodic box has none (remove one of \
                 `gravity` and `[boundary] periodic`)",
            ));
        }
        if let Some(v) = self.rest_speed {
            finite(v, "rest_speed", Item::Simulation)?;
            if !(v >= 0.0) {
                return Err(invalid(
                    Item::Simulation,
                    format!("`rest_speed` must be at least 0, got {}", Num(v)),
                ));
            }
            if !self.has_gravity() {
                return Err(invalid(
                    Item::Simulation,
                    "`rest_speed` only applies under `gravity`, which this scene does not set",
                ));
            }
        }
        finite(self.friction, "friction", Item::Simulation)?;
        if !(self.friction >= 0.0) {
            return Err(invalid(
                Item::Simulation,
                format!("`friction` must be at least 0, got {}", Num(self.friction)),
            ));
        }
        if self.friction > 0.0 && !self.has_rigid_bodies() {
            return Err(invalid(
                Item::Simulation,
                "`friction` needs rigid bodies, and every body here is a plain ball: give the \
                 balls that should roll `shape = \"ball\"`",
            ));
        }
        for (i, w) in self.walls.iter().enumerate() {
            let item = Item::Wall(i);
            match w {
                WallSpec::Segment { a, b } => {
                    check_vec(a, "a", item)?;
                    check_vec(b, "b", item)?;
                }
                WallSpec::Plane { point, normal } => {
                    check_vec(point, "point", item)?;
                    check_vec(normal, "normal", item)?;
                }
                WallSpec::Polygon { vertices } => {
                    for v in vertices {
                        check_vec(v, "polygon", item)?;
                    }
                }
                WallSpec::Box { min, max } => {
                    check_vec(min, "min", item)?;
                    check_vec(max, "max", item)?;
                }
                WallSpec::Shape { .. } => {}
            }
            let built = if self.dim == 2 {
                w.build::<glam::DVec2>().map(|_| ())
            } else {
                w.build::<glam::DVec3>().map(|_| ())
            };
            built.map_err(|e| invalid(item, e))?;
        }
        for (i, b) in self.bodies.iter().enumerate() {
            let item = Item::Body(i);
            check_vec(&b.position[..self.dim], "position", item)?;
            check_vec(&b.velocity[..self.dim], "velocity", item)?;
            if self.dim == 2 && (b.position[2] != 0.0 || b.velocity[2] != 0.0) {
                return Err(invalid(item, "a body of a 2D scene must have z = 0"));
            }
            finite(b.radius, "radius", item)?;
            finite(b.mass, "mass", item)?;
            if !(b.radius > 0.0) {
                return Err(invalid(
                    item,
                    format!("`radius` must be positive, got {}", Num(b.radius)),
                ));
            }
            if !(b.mass > 0.0) {
                return Err(invalid(
                    item,
                    format!("`mass` must be positive, got {}", Num(b.mass)),
                ));
            }
        }
        if !self.shapes.is_empty() {
            if self.shapes.len() != self.bodies.len() {
                return Err(invalid(
                    Item::Scene,
                    format!(
                        "{} rigid-body tables for {} bodies (one per body, or none)",
                        self.shapes.len(),
                        self.bodies.len()
                    ),
                ));
            }
            for (i, table) in self.shapes.iter().enumerate() {
                let item = Item::Body(i);
                let Some(table) = table else {
                    // A ball without `shape` is a rigid ball of its radius and mass.
                    let b = &self.bodies[i];
                    let checked = if self.dim == 2 {
                        ball_parts::<DVec2>(b).map(|_| ())
                    } else {
                        ball_parts::<DVec3>(b).map(|_| ())
                    };
                    checked.map_err(|e| invalid(item, e))?;
                    continue;
                };
                if self.periodic.is_some() {
                    return Err(invalid(
                        item,
                        "rigid bodies (`shape = ...`) are not supported in a periodic box yet: \
                         use walls, or balls without `shape`",
                    ));
                }
                let spec =
                    table_spec(self.dim, table, &self.meshes).map_err(|e| invalid(item, e))?;
                let spin = angular_speed(table);
                if spin * self.duration > crate::rigid::MAX_TURN {
                    return Err(invalid(
                        item,
                        format!(
                            "`angular_velocity` of magnitude {spin:e} turns the body by {:e} \
                             radians over the duration {:e}: at most {:e} radians are resolved \
                             (the rotation's round-off must stay below the contact shell); \
                             lower the spin or the duration",
                            spin * self.duration,
                            self.duration,
                            crate::rigid::MAX_TURN
                        ),
                    ));
                }
                if spec != self.bodies[i] {
                    return Err(invalid(
                        item,
                        "its position, velocity, radius or mass differ from those its table \
                         gives (a rigid body's BodySpec comes from `scene::rigid_body_spec`)",
                    ));
                }
            }
        }
        if self.shapes.is_empty() && self.has_shape_walls() {
            // The world is rigid: every ball becomes a rigid ball of its radius and mass.
            for (i, b) in self.bodies.iter().enumerate() {
                let checked = if self.dim == 2 {
                    ball_parts::<DVec2>(b).map(|_| ())
                } else {
                    ball_parts::<DVec3>(b).map(|_| ())
                };
                checked.map_err(|e| invalid(Item::Body(i), e))?;
            }
        }
        if let Some(l) = &self.periodic {
            check_vec(l, "periodic", Item::Boundary)?;
            if !self.walls.is_empty() {
                return Err(invalid(
                    Item::Boundary,
                    "walls cannot be combined with a periodic boundary",
                ));
            }
            let r_max = self.bodies.iter().map(|b| b.radius).fold(0.0, f64::max);
            for &x in l {
                if !(x > 0.0) {
                    return Err(invalid(
                        Item::Boundary,
                        format!("box lengths must be positive, got {}", Num(x)),
                    ));
                }
                if !(x > 4.0 * r_max) {
                    return Err(invalid(
                        Item::Boundary,
                        format!(
                            "box length {x} is too small: it must exceed twice the largest contact distance ({})",
                            4.0 * r_max
                        ),
                    ));
                }
            }
        }
        if self.dim == 2 {
            self.check_geometry::<DVec2>()
        } else {
            self.check_geometry::<DVec3>()
        }
    }

    /// Whether body `i` is a rigid body (has a `shape`).
    pub fn is_rigid(&self, i: usize) -> bool {
        matches!(self.shapes.get(i), Some(Some(_)))
    }

    /// Whether any body is a rigid body (has a `shape`), or a wall is a static shape: the
    /// scene's world is then a rigid world ([`World::with_rigid`]), where every body has a
    /// rigid state (balls without `shape` are rigid balls).
    pub fn has_rigid_bodies(&self) -> bool {
        self.shapes.iter().any(Option::is_some) || self.has_shape_walls()
    }

    /// The mesh files the scene's bodies and walls read (`shape = "mesh"` with `mesh` an
    /// `.obj` or `.stl` path, relative to the working directory), each with the item naming it
    /// (`body 3`), in file order.
    pub fn mesh_files(&self) -> Vec<(Item, PathBuf)> {
        let walls = self.walls.iter().enumerate().filter_map(|(i, w)| match w {
            WallSpec::Shape { table } => Some((Item::Wall(i), table)),
            _ => None,
        });
        let bodies = (self.shapes.iter().enumerate())
            .filter_map(|(i, t)| t.as_ref().map(|t| (Item::Body(i), t.table())));
        walls
            .chain(bodies)
            .filter_map(|(item, t)| mesh_file(t).map(|p| (item, p)))
            .collect()
    }

    /// Whether a wall is a static shape (`shape = ...` in a `[[walls]]` table).
    pub fn has_shape_walls(&self) -> bool {
        self.walls
            .iter()
            .any(|w| matches!(w, WallSpec::Shape { .. }))
    }

    /// Every body's parts at time 0 (balls without `shape` as balls: their shape and the pose
    /// of their centre), for the exact overlap checks of a scene with rigid bodies: each
    /// rigid body's as its table keeps them.
    fn shapes_at_start<V: SceneDim>(&self) -> Vec<std::sync::Arc<RigidParts<V>>> {
        self.bodies
            .iter()
            .enumerate()
            .map(|(i, b)| match self.shapes.get(i) {
                Some(Some(t)) => t.parts::<V>(&self.meshes).expect("validated rigid body"),
                _ => std::sync::Arc::new(ball_parts::<V>(b).expect("validated ball")),
            })
            .collect()
    }

    fn check_geometry<V: SceneDim>(&self) -> Result<(), SceneError> {
        let period = self.periodic.as_deref().map(pad3);
        let shapes = if self.has_rigid_bodies() {
            self.shapes_at_start::<V>()
        } else {
            Vec::new()
        };
        // How far the shapes of bodies i and j overlap (the negative of their signed distance;
        // the deepest pair of pieces of a compound body).
        let depth = |i: usize, j: usize| {
            let ((a, pa), (b, pb)) = (
                (&shapes[i].pieces, &shapes[i].pose),
                (&shapes[j].pieces, &shapes[j].pose),
            );
            a.iter()
                .flat_map(|a| b.iter().map(move |b| (a, b)))
                .map(|(a, b)| -signed_distance(a, pa, b, pb, &EpaOptions::default()))
                .fold(f64::NEG_INFINITY, f64::max)
        };
        // A mesh's solid holding the other body's centre of mass (a body wholly inside it
        // crosses none of its triangles).
        let inside = |i: usize, j: usize| {
            shapes
                .get(i)
                .and_then(|s| s.mesh.as_ref())
                .is_some_and(|(m, _)| {
                    let centre = V::from_array3(self.bodies[j].position);
                    let local = shapes[i].pose.inverse_transform_point(centre);
                    crate::ccd::solid::contains(m, local.to_array3())
                })
        };
        // Bounding spheres that overlap are only a prefilter for rigid bodies: the shapes
        // decide.
        let overlaps = |i: usize, j: usize, sigma: f64| {
            !(self.is_rigid(i) || self.is_rigid(j))
                || depth(i, j) > OVERLAP_TOLERANCE * sigma
                || inside(i, j)
                || inside(j, i)
        };
        if let Some((i, j, dist, sigma)) = find_overlap(&self.bodies, self.dim, period, overlaps) {
            let message = if inside(i, j) || inside(j, i) {
                let (outer, inner) = if inside(i, j) { (i, j) } else { (j, i) };
                format!(
                    "overlaps body {j}: body {inner} lies inside the mesh of body {outer} at t = 0"
                )
            } else if self.is_rigid(i) || self.is_rigid(j) {
                format!(
                    "overlaps body {j}: their shapes intersect at t = 0 (by a depth of {})",
                    Num(depth(i, j))
                )
            } else {
                format!(
                    "overlaps body {j} (centre distance {}, radii sum {})",
                    Num(dist),
                    Num(sigma)
                )
            };
            return Err(invalid(Item::Body(i), message));
        }
        // Which scene item each runtime wall comes from (a box stands for several walls).
        let owner: Vec<usize> = self
            .walls
            .iter()
            .enumerate()
            .flat_map(|(i, w)| std::iter::repeat_n(i, w.wall_count(self.dim)))
            .collect();
        // The walls alone are built: no world (a second copy of every body) is made.
        let walls: Vec<Wall<V>> = self
            .walls
            .iter()
            .flat_map(|w| w.build::<V>().expect("validated wall"))
            .collect();
        let pieces: Vec<WallPieces<V>> = if shapes.is_empty() {
            Vec::new()
        } else {
            walls.iter().map(WallPieces::of).collect()
        };
        for (i, b) in self.bodies.iter().enumerate() {
            let pos = V::from_array3(b.position);
            for (w, wall) in walls.iter().enumerate() {
                let dist = wall.distance(pos);
                let id = || {
                    if owner[w] == w {
                        format!("wall {w}")
                    } else {
                        format!("wall {w} (of item {})", owner[w])
                    }
                };
                if self.is_rigid(i) || matches!(wall, Wall::Shape(_)) {
                    // The bounding sphere is a prefilter; the shape decides.
                    if dist >= b.radius {
                        continue;
                    }
                    let (own, pose) = (&shapes[i].pieces, &shapes[i].pose);
                    let depth = own
                        .iter()
                        .map(|shape| wall_depth(shape, pose, &pieces[w], pos))
                        .fold(f64::NEG_INFINITY, f64::max);
                    if depth > OVERLAP_TOLERANCE * b.radius {
                        return Err(invalid(
                            Item::Body(i),
                            format!(
                                "crosses {}: its shape reaches {depth} into it at t = 0",
                                id()
                            ),
                        ));
                    }
                    continue;
                }
                if b.radius - dist > OVERLAP_TOLERANCE * b.radius {
                    let id = id();
                    return Err(invalid(
                        Item::Body(i),
                        format!(
                            "crosses {id} (centre at distance {} from it, radius {})",
                            Num(dist),
                            Num(b.radius)
                        ),
                    ));
                }
            }
            for (k, spec) in self.walls.iter().enumerate() {
                let p = &self.bodies[i].position;
                let outside = match spec {
                    WallSpec::Plane { point, normal } => {
                        (0..self.dim)
                            .map(|a| (p[a] - point[a]) * normal[a])
                            .sum::<f64>()
                            < 0.0
                    }
                    WallSpec::Box { min, max } => {
                        (0..self.dim).any(|a| p[a] < min[a] || p[a] > max[a])
                    }
                    _ => false,
                };
                if outside {
                    return Err(invalid(
                        Item::Body(i),
                        format!("lies outside the walls (the wrong side of wall item {k})"),
                    ));
                }
            }
        }
        if V::DIM == 2 && self.walls_closed() {
            for (i, b) in self.bodies.iter().enumerate() {
                if !self.inside_walls(b.position[0], b.position[1]) {
                    return Err(invalid(Item::Body(i), "lies outside the walls"));
                }
            }
        }
        Ok(())
    }

    /// True when the walls form closed polygons: every endpoint is shared by an even number of
    /// wall ends. Only then does "inside" mean something.
    fn walls_closed(&self) -> bool {
        // Static shapes are solids of their own: they close nothing and open nothing.
        let segments: Option<Vec<(&Vec<f64>, &Vec<f64>)>> = self
            .walls
            .iter()
            .filter(|w| !matches!(w, WallSpec::Shape { .. }))
            .map(|w| match w {
                WallSpec::Segment { a, b } => Some((a, b)),
                _ => None,
            })
            .collect();
        let Some(segments) = segments.filter(|s| !s.is_empty()) else {
            return false;
        };
        let mut ends: Vec<[u64; 2]> = segments
            .iter()
            .flat_map(|(a, b)| [*a, *b])
            .map(|p| [p[0].to_bits(), p[1].to_bits()])
            .collect();
        ends.sort_unstable();
        ends.chunk_by(|x, y| x == y).all(|run| run.len() % 2 == 0)
    }

    /// Even-odd rule against the wall segments (2D).
    fn inside_walls(&self, x: f64, y: f64) -> bool {
        let mut inside = false;
        for w in &self.walls {
            let WallSpec::Segment { a, b } = w else {
                continue;
            };
            let (ax, ay, bx, by) = (a[0], a[1], b[0], b[1]);
            if (ay > y) != (by > y) {
                let xi = ax + (y - ay) / (by - ay) * (bx - ax);
                if xi > x {
                    inside = !inside;
                }
            }
        }
        inside
    }

    /// Whether the scene sets a non-zero gravity.
    pub fn has_gravity(&self) -> bool {
        self.gravity.iter().any(|&g| g != 0.0)
    }

    /// The rest speed under gravity: the scene's `rest_speed`, or
    /// [`Scene::default_rest_speed`].
    pub fn rest_speed(&self) -> f64 {
        self.rest_speed.unwrap_or_else(|| self.default_rest_speed())
    }

    /// The default rest speed: the speed of a fall from [`DEFAULT_REST_HEIGHT_FRACTION`] of the
    /// bodies' mean radius, `sqrt(2 |g| h)`, and at least `2 |g| t_c` (so that bounces, which
    /// come `2 v / |g|` apart, stop before the TC model would make them elastic); 0 without
    /// gravity.
    pub fn default_rest_speed(&self) -> f64 {
        let g = self.gravity.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !(g > 0.0) {
            return 0.0;
        }
        let n = self.bodies.len().max(1) as f64;
        let r = self.bodies.iter().map(|b| b.radius).sum::<f64>() / n;
        let tc = if self.restitution < 1.0 {
            self.contact_duration()
        } else {
            0.0
        };
        (2.0 * g * DEFAULT_REST_HEIGHT_FRACTION * r)
            .sqrt()
            .max(2.0 * g * tc)
    }

    /// The contact duration of the TC model: the scene's `contact_duration`, or
    /// [`Scene::default_contact_duration`] when it gives none.
    pub fn contact_duration(&self) -> f64 {
        self.contact_duration
            .unwrap_or_else(|| self.default_contact_duration())
    }

    /// The contact duration used when a scene gives none: `1e-4` of the time a body with the
    /// mean radius and the root-mean-square speed takes to cross its own radius (0 when no body
    /// moves).
    pub fn default_contact_duration(&self) -> f64 {
        let n = self.bodies.len().max(1) as f64;
        let r = self.bodies.iter().map(|b| b.radius).sum::<f64>() / n;
        let v2 = self
            .bodies
            .iter()
            .map(|b| b.velocity.iter().map(|x| x * x).sum::<f64>())
            .sum::<f64>()
            / n;
        if v2 > 0.0 {
            DEFAULT_CONTACT_DURATION_FRACTION * r / v2.sqrt()
        } else {
            0.0
        }
    }

    /// The fraction of a periodic box that the bodies fill (`None` without a periodic box).
    pub fn packing(&self) -> Option<f64> {
        let l = self.periodic.as_ref()?;
        let volume: f64 = l.iter().product();
        let filled: f64 = self
            .bodies
            .iter()
            .map(|b| {
                if self.dim == 3 {
                    4.0 / 3.0 * std::f64::consts::PI * b.radius.powi(3)
                } else {
                    std::f64::consts::PI * b.radius * b.radius
                }
            })
            .sum();
        Some(filled / volume)
    }

    /// The world of this scene in dimension `V`.
    ///
    /// # Panics
    /// When `V::DIM` differs from the scene's `dim`.
    pub fn world<V: Vector>(&self) -> World<V> {
        assert_eq!(V::DIM, self.dim, "scene dimension mismatch");
        self.world_unchecked()
    }

    fn world_unchecked<V: Vector>(&self) -> World<V> {
        if self.has_rigid_bodies() {
            return self.rigid_world::<V>();
        }
        let v = |s: &[f64]| V::try_from_slice(s).expect("validated dimension");
        let bodies = self
            .bodies
            .iter()
            .map(|b| {
                Body::new(
                    v(&b.position[..V::DIM]),
                    v(&b.velocity[..V::DIM]),
                    b.radius,
                    b.mass,
                )
            })
            .collect();
        let walls = self
            .walls
            .iter()
            .flat_map(|w| w.build::<V>().expect("validated wall"))
            .collect();
        let world = World {
            restitution: self.restitution,
            contact_duration: self.contact_duration(),
            ..World::new(bodies, walls)
        };
        let world = match &self.periodic {
            Some(l) => world.with_period(v(l)),
            None => world,
        };
        self.with_gravity_of(world)
    }

    /// The rigid world of a scene with rigid bodies (every body gets a rigid state; balls
    /// without `shape` are balls of their mass). [`Scene::world`] is generic over [`Vector`],
    /// the bodies' tables are read in a [`BodyDim`]: the two dimensions are built by their
    /// types and the one asked for is taken back.
    fn rigid_world<V: Vector>(&self) -> World<V> {
        let (bodies, shapes, states, meshes) = self.rigid_parts_of::<V>(true);
        let walls = self
            .walls
            .iter()
            .flat_map(|w| w.build::<V>().expect("validated wall"))
            .collect();
        let world = World {
            restitution: self.restitution,
            contact_duration: self.contact_duration(),
            friction: self.friction,
            ..World::new(bodies, walls)
        }
        .with_rigid(shapes, states)
        .with_meshes(meshes);
        self.with_gravity_of(world)
    }

    /// [`Scene::rigid_parts_in`] in the dimension of `V`: the two dimensions are built by
    /// their types and the one asked for is taken back.
    fn rigid_parts_of<V: Vector>(&self, trees: bool) -> RigidWorldParts<V> {
        let parts: Box<dyn std::any::Any> = if V::DIM == 2 {
            Box::new(self.rigid_parts_in::<DVec2>(trees))
        } else {
            Box::new(self.rigid_parts_in::<DVec3>(trees))
        };
        *parts
            .downcast::<RigidWorldParts<V>>()
            .expect("the vector types are DVec2 and DVec3")
    }

    /// The rigid states of a scene with rigid bodies at time 0, as its world holds them
    /// (without building the world: no mesh's sphere tree).
    pub fn rigid_states<V: Vector>(&self) -> Vec<RigidState<V>> {
        self.rigid_parts_of::<V>(false).2
    }

    /// `world` with this scene's gravity and rest speed, when it sets gravity.
    fn with_gravity_of<V: Vector>(&self, world: World<V>) -> World<V> {
        if !self.has_gravity() {
            return world;
        }
        let g = V::try_from_slice(&self.gravity[..V::DIM]).expect("validated gravity");
        world.with_gravity(g, self.rest_speed())
    }

    /// The bodies, shapes (one per body, or a compound body's pieces) and rigid states of a
    /// rigid world.
    #[allow(clippy::type_complexity)]
    /// With `trees` false, the meshes (and their sphere trees) are left out: the states
    /// still number the mesh bodies.
    fn rigid_parts_in<V: SceneDim>(&self, trees: bool) -> RigidWorldParts<V> {
        let mut bodies = Vec::with_capacity(self.bodies.len());
        let mut shapes = Vec::with_capacity(self.bodies.len());
        let mut states = Vec::with_capacity(self.bodies.len());
        let mut meshes = Vec::new();
        let mut mesh_count = 0;
        for (i, b) in self.bodies.iter().enumerate() {
            let p = match self.shapes.get(i) {
                Some(Some(t)) => t.parts::<V>(&self.meshes).expect("validated rigid body"),
                _ => std::sync::Arc::new(ball_parts::<V>(b).expect("validated ball")),
            };
            let (body, state) = RigidState::body_of_pieces(
                shapes.len() as u32,
                &p.pieces,
                &p.props,
                &p.pose,
                p.velocity,
                p.angular_velocity,
            )
            .expect("validated mass properties");
            let mut state = state;
            if let Some((mesh, hull)) = &p.mesh {
                state.mesh = Some(mesh_count);
                mesh_count += 1;
                if trees {
                    meshes.push(MeshShape {
                        body: MeshBody::new((**mesh).clone()),
                        hull: hull.clone(),
                    });
                }
            }
            bodies.push(body);
            shapes.extend(p.pieces.iter().cloned());
            states.push(state);
        }
        (bodies, shapes, states, meshes)
    }

    /// The scene as TOML text that parses back to an identical scene (floats round-trip).
    pub fn to_toml(&self) -> String {
        use std::fmt::Write;
        let vec = |v: &[f64]| {
            let parts: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
            format!("[{}]", parts.join(", "))
        };
        let mut s = self.to_toml_without_bodies();
        for (i, b) in self.bodies.iter().enumerate() {
            if let Some(Some(table)) = self.shapes.get(i) {
                s.push_str("\n[[bodies]]\n");
                for (key, value) in table.table() {
                    let _ = writeln!(s, "{key} = {value}");
                }
                continue;
            }
            let _ = writeln!(
                s,
                "\n[[bodies]]\nposition = {}\nvelocity = {}\nradius = {:?}\nmass = {:?}",
                vec(&b.position[..self.dim]),
                vec(&b.velocity[..self.dim]),
                b.radius,
                b.mass
            );
        }
        for (name, mesh) in &self.meshes {
            let _ = write!(
                s,
                "\n[meshes.{}]\nvertices = [",
                Value::String(name.clone())
            );
            for (i, v) in mesh.vertices().iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                let _ = write!(s, "{sep}[{:?}, {:?}, {:?}]", v[0], v[1], v[2]);
            }
            s.push_str("]\ntriangles = [");
            for (i, t) in mesh.triangles().iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                let _ = write!(s, "{sep}[{}, {}, {}]", t[0], t[1], t[2]);
            }
            s.push_str("]\n");
        }
        s
    }

    /// The scene as TOML that takes its bodies from the extended-XYZ file `bodies_file`
    /// (written by [`xyz::write_bodies`], beside the scene file).
    pub fn to_toml_with_bodies_file(&self, bodies_file: &str) -> String {
        let toml = self.to_toml_without_bodies();
        let (first, rest) = toml.split_once('\n').unwrap_or((&toml, ""));
        format!(
            "{first}\nbodies_file = {}\n{rest}",
            Value::String(bodies_file.to_string())
        )
    }

    /// The scene as TOML without its bodies (traces and checkpoints store the bodies' states
    /// apart, in binary).
    pub fn to_toml_without_bodies(&self) -> String {
        use std::fmt::Write;
        let vec = |v: &[f64]| {
            let parts: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
            format!("[{}]", parts.join(", "))
        };
        let mut s = String::new();
        let _ = writeln!(s, "dim = {}\n\n[simulation]", self.dim);
        let _ = writeln!(
            s,
            "duration = {:?}\nrestitution = {:?}",
            self.duration, self.restitution
        );
        if let Some(tc) = self.contact_duration {
            let _ = writeln!(s, "contact_duration = {tc:?}");
        }
        if self.has_gravity() {
            let _ = writeln!(s, "gravity = {}", vec(&self.gravity[..self.dim]));
        }
        if let Some(v) = self.rest_speed {
            let _ = writeln!(s, "rest_speed = {v:?}");
        }
        if self.friction != 0.0 {
            let _ = writeln!(s, "friction = {:?}", self.friction);
        }
        if let Some(l) = &self.periodic {
            let _ = writeln!(s, "\n[boundary]\nperiodic = {}", vec(l));
        }
        for w in &self.walls {
            let _ = match w {
                WallSpec::Shape { table } => {
                    s.push_str("\n[[walls]]\n");
                    table
                        .iter()
                        .try_for_each(|(key, value)| writeln!(s, "{key} = {value}"))
                }
                WallSpec::Segment { a, b } => {
                    writeln!(s, "\n[[walls]]\na = {}\nb = {}", vec(a), vec(b))
                }
                WallSpec::Plane { point, normal } => {
                    writeln!(
                        s,
                        "\n[[walls]]\nplane = {{ point = {}, normal = {} }}",
                        vec(point),
                        vec(normal)
                    )
                }
                WallSpec::Polygon { vertices } => {
                    let vs: Vec<String> = vertices.iter().map(|v| vec(v)).collect();
                    writeln!(s, "\n[[walls]]\npolygon = [{}]", vs.join(", "))
                }
                WallSpec::Box { min, max } => {
                    writeln!(
                        s,
                        "\n[[walls]]\nbox = {{ min = {}, max = {} }}",
                        vec(min),
                        vec(max)
                    )
                }
            };
        }
        s
    }
}

/// The first overlapping pair (lower id first) with its centre distance and contact distance,
/// found with a uniform grid of cells one largest diameter wide (`O(n)` for bounded density);
/// minimum-image distances in a periodic box of lengths `period`. Works on the scene's bodies
/// directly, with `O(n)` extra memory of 12 bytes a body (a cell index and a link): a scene is
/// validated before any world exists, so the calendar's grid is not there to ask, and the
/// discrete finders' [`crate::overlap::Grid`] would hold a box (48 bytes in 3D) and about three
/// cell entries of 64 bytes for each body, several hundred megabytes at load for a million.
///
/// `overlaps(i, j, sigma)` decides a pair whose spheres overlap (true for balls; the shapes'
/// exact test for rigid bodies, whose spheres bound them).
fn find_overlap(
    bodies: &[BodySpec],
    dim: usize,
    period: Option<[f64; 3]>,
    overlaps: impl Fn(usize, usize, f64) -> bool,
) -> Option<(usize, usize, f64, f64)> {
    let n = bodies.len();
    if n < 2 {
        return None;
    }
    let r_max = bodies.iter().map(|b| b.radius).fold(0.0, f64::max);
    // Coordinates inside the box when periodic.
    let coord = |b: &BodySpec, a: usize| match period {
        Some(l) => b.position[a] - l[a] * (b.position[a] / l[a]).floor(),
        None => b.position[a],
    };
    let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
    match period {
        Some(l) => hi[..dim].copy_from_slice(&l[..dim]),
        None => {
            lo = [f64::INFINITY; 3];
            hi = [f64::NEG_INFINITY; 3];
            for b in bodies {
                for a in 0..dim {
                    lo[a] = lo[a].min(b.position[a]);
                    hi[a] = hi[a].max(b.position[a]);
                }
            }
        }
    }
    // Cells at least one largest diameter wide, at most about 2n of them.
    let mut width = 2.0 * r_max;
    let volume: f64 = (0..dim).map(|a| (hi[a] - lo[a]).max(width)).product();
    width = width.max((volume / (2.0 * n as f64)).powf(1.0 / dim as f64));
    let mut dims = [1usize; 3];
    for a in 0..dim {
        dims[a] = (((hi[a] - lo[a]) / width).floor() as usize).clamp(1, 1 << 20);
    }
    let cell_of = |b: &BodySpec| -> [usize; 3] {
        let mut c = [0usize; 3];
        for (a, slot) in c.iter_mut().enumerate().take(dim) {
            *slot = (((coord(b, a) - lo[a]) / width).floor().max(0.0) as usize).min(dims[a] - 1);
        }
        c
    };
    let index = |c: [usize; 3]| ((c[2] * dims[1] + c[1]) * dims[0] + c[0]) as u32;
    // Bodies sorted by cell (a counting sort): `start[k]..start[k + 1]` are cell k's.
    let cells = dims.iter().product::<usize>();
    let mut start = vec![0u32; cells + 1];
    let cell: Vec<u32> = bodies.iter().map(|b| index(cell_of(b))).collect();
    for &k in &cell {
        start[k as usize + 1] += 1;
    }
    for k in 0..cells {
        start[k + 1] += start[k];
    }
    let mut order = vec![0u32; n];
    {
        let mut fill = start.clone();
        for (i, &k) in cell.iter().enumerate() {
            order[fill[k as usize] as usize] = i as u32;
            fill[k as usize] += 1;
        }
    }
    drop(cell);
    let mut found: Option<(usize, usize, f64, f64)> = None;
    for (i, bi) in bodies.iter().enumerate() {
        let c = cell_of(bi);
        let mut ranges = [[0usize; 3]; 3];
        let mut counts = [1usize; 3];
        for a in 0..dim {
            let mut list = Vec::with_capacity(3);
            for delta in [-1i64, 0, 1] {
                let x = c[a] as i64 + delta;
                let x = if period.is_some() {
                    x.rem_euclid(dims[a] as i64)
                } else if x < 0 || x >= dims[a] as i64 {
                    continue;
                } else {
                    x
                } as usize;
                if !list.contains(&x) {
                    list.push(x);
                }
            }
            counts[a] = list.len();
            ranges[a][..list.len()].copy_from_slice(&list);
        }
        for z in 0..counts[2] {
            for y in 0..counts[1] {
                for x in 0..counts[0] {
                    let k = index([ranges[0][x], ranges[1][y], ranges[2][z]]) as usize;
                    for &j in &order[start[k] as usize..start[k + 1] as usize] {
                        let j = j as usize;
                        if j <= i {
                            continue;
                        }
                        let bj = &bodies[j];
                        let mut d2 = 0.0;
                        let mut ds = [0.0; 3];
                        for a in 0..dim {
                            let mut d = bi.position[a] - bj.position[a];
                            if let Some(l) = period {
                                d = nearest_image(d, l[a]);
                            }
                            ds[a] = d;
                            d2 += d * d;
                        }
                        let sigma = bi.radius + bj.radius;
                        // Squares of distances below 1e-154 underflow: those are scaled first.
                        let dist = if d2 > 1e-290 {
                            d2.sqrt()
                        } else {
                            let big = ds.iter().fold(0.0f64, |m, d| m.max(d.abs()));
                            if big > 0.0 {
                                big * ds.iter().map(|d| (d / big) * (d / big)).sum::<f64>().sqrt()
                            } else {
                                0.0
                            }
                        };
                        if sigma - dist > OVERLAP_TOLERANCE * sigma
                            && found.is_none_or(|(fi, fj, _, _)| (i, j) < (fi, fj))
                            && overlaps(i, j, sigma)
                        {
                            found = Some((i, j, dist, sigma));
                        }
                    }
                }
            }
        }
        if found.is_some_and(|(fi, _, _, _)| fi <= i) {
            break;
        }
    }
    found
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

/// The [`BodySpec`] of the rigid body whose table is `table` in a scene of dimension `dim`:
/// its centre of mass, the velocity of its centre of mass, its bounding radius about the centre
/// of mass grown by [`crate::rigid::RADIUS_MARGIN`] and its mass (see `docs/scene-format.md`).
///
/// # Errors
///
/// The problem, starting with the key concerned (`half_extents: expected 2 numbers, got 3`,
/// `` `density` must be positive, got 0 ``); the caller adds the body.
pub fn rigid_body_spec(dim: usize, table: &Table) -> Result<BodySpec, String> {
    rigid_body_spec_in(dim, table, &MeshFiles::new())
}

/// [`rigid_body_spec`] with the meshes already read (a scene's [`Scene::meshes`]: a `mesh`
/// key naming one of them takes it instead of reading the file).
///
/// # Errors
///
/// As [`rigid_body_spec`].
pub fn rigid_body_spec_in(
    dim: usize,
    table: &Table,
    meshes: &MeshFiles,
) -> Result<BodySpec, String> {
    fn spec<V: SceneDim>(table: &Table, meshes: &MeshFiles) -> Result<BodySpec, String> {
        body_spec(&rigid_parts::<V>(table, meshes)?)
    }
    match dim {
        2 => spec::<DVec2>(table, meshes),
        3 => spec::<DVec3>(table, meshes),
        d => Err(format!("`dim` must be 2 or 3, got {d}")),
    }
}

/// [`rigid_body_spec_in`] of a scene's body table, from the parts it keeps.
fn table_spec(dim: usize, table: &BodyTable, meshes: &MeshFiles) -> Result<BodySpec, String> {
    match dim {
        2 => body_spec(&*table.parts::<DVec2>(meshes)?),
        3 => body_spec(&*table.parts::<DVec3>(meshes)?),
        d => Err(format!("`dim` must be 2 or 3, got {d}")),
    }
}

/// A rigid world's bodies, shapes, rigid states and meshes.
type RigidWorldParts<V> = (
    Vec<Body<V>>,
    Vec<Shape<V>>,
    Vec<RigidState<V>>,
    Vec<MeshShape<V>>,
);

/// The message of a scene error, without its item (the caller names the body).
fn message(e: SceneError) -> String {
    match e {
        SceneError::Invalid { message, .. } => message,
        e => e.to_string(),
    }
}

/// The magnitude of a rigid body table's `angular_velocity` (0 when absent; the table is
/// already validated).
fn angular_speed(table: &Table) -> f64 {
    match table.get("angular_velocity") {
        Some(toml::Value::Float(x)) => x.abs(),
        Some(toml::Value::Integer(x)) => (*x as f64).abs(),
        Some(toml::Value::Array(a)) => a
            .iter()
            .map(|v| match v {
                toml::Value::Float(x) => *x,
                toml::Value::Integer(x) => *x as f64,
                _ => 0.0,
            })
            .map(|x| x * x)
            .sum::<f64>()
            .sqrt(),
        _ => 0.0,
    }
}

/// A static shape wall from its table: the shape and pose as a rigid body's
/// ([`RigidBodySpec::from_table`]), refusing what would make it move or weigh.
fn static_shape<V: Vector>(table: &Table) -> Result<StaticShape<V>, String> {
    fn read<V: SceneDim>(table: &Table) -> Result<StaticShape<V>, String> {
        if let Some(k) = MOVING_KEYS.iter().find(|k| table.contains_key(**k)) {
            return Err(format!(
                "{k}: a static shape does not move and has no mass; remove `{k}`"
            ));
        }
        let spec = RigidBodySpec::<V>::from_table(table, &[]).map_err(|e| e.to_string())?;
        if spec.mesh.is_some() {
            return Err(
                "shape: a static shape must be convex, and a mesh is not one: give \
                        the wall as planes, convex static shapes, or triangles"
                    .to_string(),
            );
        }
        if spec.is_compound() {
            return Err(format!(
                "vertices: a static shape must be convex, and this polygon is concave (it \
                 makes {} convex pieces): give each convex piece as a static shape of its own, \
                 or its outline as segments",
                spec.pieces.len()
            ));
        }
        StaticShape::new(spec.shape, spec.motion.pose)
            .ok_or_else(|| "position: the placed shape is not finite".to_string())
    }
    let built: Box<dyn std::any::Any> = if V::DIM == 2 {
        Box::new(read::<DVec2>(table))
    } else {
        Box::new(read::<DVec3>(table))
    };
    match built.downcast::<Result<StaticShape<V>, String>>() {
        Ok(r) => *r,
        Err(_) => Err(format!("`dim` must be 2 or 3, got {}", V::DIM)),
    }
}

/// How far `shape` at `pose` (a body whose centre of mass is at `centre`) reaches into a wall
/// (negative when apart): against a plane, its support point's depth on the far side from the
/// centre of mass; against segments and polygons (their triangles), the exact penetration
/// depth.
fn wall_depth<V: Vector>(shape: &Shape<V>, pose: &Pose<V>, wall: &WallPieces<V>, centre: V) -> f64 {
    match wall {
        WallPieces::Plane(plane) => {
            let side = if plane.signed_distance(centre) >= 0.0 {
                1.0
            } else {
                -1.0
            };
            let deepest = shape.support(pose, plane.normal * -side);
            -side * plane.signed_distance(deepest)
        }
        WallPieces::Shapes(pieces) => pieces
            .iter()
            .map(|(piece, place, _, _)| {
                -signed_distance(shape, pose, piece, place, &EpaOptions::default())
            })
            .fold(f64::NEG_INFINITY, f64::max),
    }
}

/// The dimensions a scene's rigid bodies are read in.
trait SceneDim: BodyDim {
    /// The inertia tensor about the centre of mass, in the shape's axes, written as `value`.
    fn read_inertia(value: &Value) -> Result<Self::Inertia, String>;
}

/// A finite number of an `inertia` value, at most [`MAX_MAGNITUDE`].
fn inertia_number(v: &Value) -> Result<f64, String> {
    let x = as_number(v).ok_or_else(|| format!("expected numbers, got {}", v.type_str()))?;
    finite(x, "inertia", Item::Scene).map_err(message)
}

impl SceneDim for DVec2 {
    fn read_inertia(value: &Value) -> Result<f64, String> {
        if value.is_array() {
            return Err("a 2D inertia is one number (about the centre of mass)".into());
        }
        let x = inertia_number(value)?;
        if !(x > 0.0) {
            return Err(format!("must be positive, got {}", Num(x)));
        }
        Ok(x)
    }
}

impl SceneDim for DVec3 {
    fn read_inertia(value: &Value) -> Result<glam::DMat3, String> {
        const FORM: &str = "3 numbers (the diagonal, in the shape's axes) or a 3x3 array \
                            (symmetric)";
        let rows = value
            .as_array()
            .filter(|a| a.len() == 3)
            .ok_or_else(|| format!("expected {FORM}"))?;
        if rows.iter().all(|r| !r.is_array()) {
            let d: Vec<f64> = rows.iter().map(inertia_number).collect::<Result<_, _>>()?;
            let mut sorted = [d[0], d[1], d[2]];
            sorted.sort_by(f64::total_cmp);
            physical_moments(sorted)?;
            return Ok(glam::DMat3::from_diagonal(DVec3::new(d[0], d[1], d[2])));
        }
        let mut m = [[0.0; 3]; 3];
        for (i, row) in rows.iter().enumerate() {
            let row = row
                .as_array()
                .filter(|r| r.len() == 3)
                .ok_or_else(|| format!("expected {FORM}"))?;
            for (j, x) in row.iter().enumerate() {
                m[i][j] = inertia_number(x)?;
            }
        }
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            if m[i][j] != m[j][i] {
                return Err(format!(
                    "must be symmetric (row {i}, column {j} is {} but row {j}, column {i} is {})",
                    m[i][j], m[j][i]
                ));
            }
        }
        let m = glam::DMat3::from_cols_array_2d(&m);
        physical_moments(crate::math::principal_moments(m))?;
        Ok(m)
    }
}

/// Refuses positive principal moments (ascending) that no body has (see
/// [`crate::math::moments_are_a_bodys`]), naming them; others pass (a tensor that is not
/// positive definite is refused as such when the body is made).
fn physical_moments(moments: [f64; 3]) -> Result<(), String> {
    if moments[0] > 0.0 && !crate::math::moments_are_a_bodys(moments) {
        // Six significant digits (an eigen-solver's round-off hidden), unless so few would
        // not show the violation (`[1, 1, 2.0000001]`): then every digit.
        let short = moments.map(moment_text);
        let shown = short.clone().map(|s| s.parse::<f64>().unwrap_or(f64::NAN));
        let [a, b, c] = if crate::math::moments_are_a_bodys(shown) {
            moments.map(|x| Num(x).to_string())
        } else {
            short
        };
        return Err(format!(
            "the principal moments {a}, {b} and {c} are not a body's: the largest exceeds the \
             sum of the other two (every mass distribution has I₁ + I₂ ≥ I₃)"
        ));
    }
    Ok(())
}

/// A principal moment to six significant digits, in exponent form outside `[1e-3, 1e6)`.
fn moment_text(x: f64) -> String {
    if (1e-3..1e6).contains(&x) {
        let decimals = (5 - x.log10().floor() as i32).max(0) as usize;
        let s = format!("{x:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        format!("{x:.5e}")
    }
}
