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
//! say so ([`crate::query::signed_distance`], GJK and EPA), the bounding spheres being a prefilter.

mod build;
mod parse;
mod parts;
pub mod spec;
mod validate;
mod write;
pub mod xyz;

#[cfg(test)]
mod mesh_wall_tests;

use parts::{ball_parts, static_shape, table_spec, RigidParts, SceneDim};
pub use parts::{rigid_body_spec, rigid_body_spec_in, BodyTable};

pub use spec::{
    is_procedural_mesh, load_mesh_file, shape_keys, BodyDim, MeshFiles, RigidBodySpec, SpecError,
    MOTION_KEYS, SHAPE_NAMES,
};

use std::fmt;
use std::path::PathBuf;

use toml::{Table, Value};

use crate::math::Vector;
use crate::num::Num;
use crate::wall::{Plane, Polygon, Wall, WallSegment};

/// Largest coordinate, velocity or size magnitude accepted, so that squared distances and
/// contact-time discriminants cannot overflow.
pub const MAX_MAGNITUDE: f64 = 1e100;
/// Largest energy a scene under gravity may reach over its duration, summed over its bodies (a bound: speeds
/// grown by gravity for the whole run, as in an open scene): sums and drifts of energies stay
/// finite below it.
pub const MAX_ENERGY: f64 = 1e300;
/// Smallest body size accepted (a ball's radius, a rigid body's bounding radius): the squares
/// of the distances the contacts and responses of smaller bodies measure fall below the range
/// of `f64` (a pair of balls of radius 1e-170 collided for ever at one instant).
pub const MIN_SIZE: f64 = 1e-100;
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
                    WallSegment::new(v(a)?, v(b)?).ok_or("endpoints `a` and `b` coincide")?,
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
                                WallSegment::new(v(&a)?, v(&b)?).ok_or("degenerate box")?,
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
    /// padded to 3 components. See [`crate::world::WorldBuilder::gravity`] for the motion and for sleeping
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

impl Scene {
    /// Whether body `i` is a rigid body (has a `shape`).
    pub fn is_rigid(&self, i: usize) -> bool {
        matches!(self.shapes.get(i), Some(Some(_)))
    }

    /// Whether any body is a rigid body (has a `shape`), or a wall is a static shape: the
    /// scene's world is then a rigid world ([`crate::world::WorldBuilder::rigid`]), where every body has a
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
}

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
