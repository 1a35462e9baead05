//! The keys of a rigid body in a TOML table: its shape and its motion at time 0 (see
//! [`RigidBodySpec`]), read by scenes and by `kairos query`'s files. It lives with the scene
//! (not in `shape`, which stays a leaf on `math`): it reads mesh files and builds a mesh body's
//! mesh with [`crate::ccd::mesh`].

use toml::{Table, Value};

use std::sync::Arc;

use crate::ccd::mesh::TriMesh;
use crate::math::{DVec2, DVec3, Rotation, RotationError, Vector};
use crate::shape::{MotionError, Pose, RigidMotion, Shape, ShapeError};

mod mesh;

use mesh::read_mesh;
pub use mesh::{is_procedural_mesh, load_mesh_file, MeshFiles};

/// The least largest coordinate of a mesh body: the inverse of
/// [`crate::ccd::mesh::MAX_COORDINATE`].
const MIN_MESH_SIZE: f64 = 1e-50;

// The bound of every number of a scene.
use super::MAX_MAGNITUDE;

/// The shape names of the `shape` key, in the order error messages list them.
pub const SHAPE_NAMES: [&str; 11] = [
    "ball",
    "box",
    "capsule",
    "polygon",
    "cylinder",
    "cone",
    "polyhedron",
    "mesh",
    "segment",
    "triangle",
    "ellipsoid",
];

/// The keys of a body table that every shape takes.
pub const MOTION_KEYS: [&str; 5] = [
    "shape",
    "position",
    "orientation",
    "velocity",
    "angular_velocity",
];

/// The keys the shape `name` (one of [`SHAPE_NAMES`]) takes, besides [`MOTION_KEYS`]; `None`
/// for an unknown name.
#[must_use]
pub fn shape_keys(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "ball" => &["radius"],
        "box" => &["half_extents"],
        "capsule" | "cylinder" | "cone" => &["half_height", "radius"],
        "polygon" => &["vertices"],
        "polyhedron" => &["points"],
        "mesh" => &["mesh", "size", "detail", "scale"],
        "segment" => &["a", "b"],
        "triangle" => &["a", "b", "c"],
        "ellipsoid" => &["half_axes"],
        _ => return None,
    })
}

/// Why a body table was refused. Each message starts with the key concerned.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// A required key is absent.
    #[error("{key}: missing{}", hint_suffix(.hint))]
    Missing {
        /// The key.
        key: String,
        /// What it should hold (may be empty).
        hint: String,
    },
    /// A value has the wrong TOML type.
    #[error("{key}: expected {expected}, got {got}")]
    WrongType {
        /// The key (with an index for an element of a list: `vertices[2]`).
        key: String,
        /// What it should be.
        expected: String,
        /// The TOML type given.
        got: &'static str,
    },
    /// A list has the wrong number of elements (a vector of the other dimension, a rotation
    /// of the wrong size).
    #[error("{key}: expected {expected} numbers, got {got}")]
    WrongLength {
        /// The key.
        key: String,
        /// Elements required.
        expected: usize,
        /// Elements given.
        got: usize,
    },
    /// A number is infinite or NaN.
    #[error("{key}: must be finite, got {value}")]
    NonFinite {
        /// The key.
        key: String,
        /// The value given.
        value: f64,
    },
    /// A number exceeds `1e100` in magnitude (as in scenes, [`crate::scene::MAX_MAGNITUDE`]).
    #[error("{key}: too large ({value:e}; at most {MAX_MAGNITUDE:e})")]
    TooLarge {
        /// The key.
        key: String,
        /// The value given.
        value: f64,
    },
    /// The `shape` is none of [`SHAPE_NAMES`].
    #[error("shape: unknown shape `{name}` (expected one of: {})", SHAPE_NAMES.join(", "))]
    UnknownShape {
        /// The name given.
        name: String,
    },
    /// A key that no body takes.
    #[error("{key}: unknown field (expected one of: {allowed})")]
    UnknownKey {
        /// The key.
        key: String,
        /// The keys this body may have, comma-separated.
        allowed: String,
    },
    /// A key of another shape (`radius` on a box).
    #[error("{key}: not a field of a {shape} (a {shape} takes: {takes})")]
    NotForShape {
        /// The key.
        key: String,
        /// The body's shape.
        shape: &'static str,
        /// The keys of that shape, comma-separated.
        takes: String,
    },
    /// The shape's constructor refused the values (a negative radius, a non-convex polygon, a
    /// shape of the other dimension).
    #[error("{key}: {source}")]
    Shape {
        /// The key of the offending values (`shape` for a shape of the other dimension).
        key: &'static str,
        /// The shape module's error.
        source: ShapeError,
    },
    /// A mesh was refused: an unknown procedural mesh, a bad size or detail, or a file that
    /// cannot be read or holds an invalid mesh (the message names the file and the item).
    #[error("{key}: {message}")]
    Mesh {
        /// The key (`mesh`, `size`, `detail`, `scale`).
        key: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The orientation was refused (a zero quaternion).
    #[error("orientation: {0}")]
    Rotation(#[source] RotationError),
    /// The motion was refused.
    #[error("{0}")]
    Motion(#[source] MotionError),
}

impl SpecError {
    /// The key the error is about.
    #[must_use]
    pub fn key(&self) -> &str {
        match self {
            SpecError::Missing { key, .. }
            | SpecError::WrongType { key, .. }
            | SpecError::WrongLength { key, .. }
            | SpecError::NonFinite { key, .. }
            | SpecError::TooLarge { key, .. }
            | SpecError::UnknownKey { key, .. }
            | SpecError::NotForShape { key, .. } => key,
            SpecError::UnknownShape { .. } => "shape",
            SpecError::Shape { key, .. } | SpecError::Mesh { key, .. } => key,
            SpecError::Rotation(_) => "orientation",
            SpecError::Motion(_) => "velocity",
        }
    }
}

/// `" (hint)"`, or nothing for an empty hint.
fn hint_suffix(hint: &str) -> String {
    if hint.is_empty() {
        String::new()
    } else {
        format!(" ({hint})")
    }
}

/// The dimensions a body can be read in: [`Vector`] with a way to read an angular velocity,
/// which is a scalar in 2D and a vector in 3D. Implemented for `DVec2` and `DVec3`.
pub trait BodyDim: Vector {
    /// Numbers an angular velocity has in a file: 1 in 2D (a plain number), 3 in 3D.
    const ANGULAR_COMPONENTS: usize;
    /// The angular velocity of these numbers (`ANGULAR_COMPONENTS` of them, finite).
    fn angular_from_slice(s: &[f64]) -> Option<Self::Angular>;
}

impl BodyDim for DVec2 {
    const ANGULAR_COMPONENTS: usize = 1;
    fn angular_from_slice(s: &[f64]) -> Option<f64> {
        match s {
            [w] => Some(*w),
            _ => None,
        }
    }
}

impl BodyDim for DVec3 {
    const ANGULAR_COMPONENTS: usize = 3;
    fn angular_from_slice(s: &[f64]) -> Option<DVec3> {
        match s {
            [x, y, z] => Some(DVec3::new(*x, *y, *z)),
            _ => None,
        }
    }
}

/// A body read from its table: its shape in the body frame and its motion at time 0.
///
/// One body table (a `[[bodies]]` item of a query file, or a scene's rigid body)
/// is read by [`RigidBodySpec::from_table`]. The format is documented in
/// `docs/query-format.md`:
///
/// | key | 2D | 3D | default |
/// |---|---|---|---|
/// | `shape` | one of [`SHAPE_NAMES`] | | required |
/// | `position` | `[x, y]` | `[x, y, z]` | required |
/// | `orientation` | angle in radians | quaternion `[w, x, y, z]` | identity |
/// | `velocity` | `[vx, vy]` | `[vx, vy, vz]` | zero |
/// | `angular_velocity` | scalar (rad/s, counter-clockwise) | vector (world frame) | zero |
///
/// and the keys of the shape ([`shape_keys`]): `ball` `radius`; `box` `half_extents`;
/// `capsule` and (3D) `cylinder`, `cone` `half_height`, `radius`; `polygon` (2D) `vertices`;
/// `polyhedron` (3D) `points`; `mesh` (3D) `mesh`, `size`, `detail`, `scale` (a closed
/// triangle mesh, procedural or from a file: its triangles are [`RigidBodySpec::pieces`], its
/// hull `shape`, and [`RigidBodySpec::mesh`] the mesh; see `docs/scene-format.md`);
/// `segment` `a`, `b`; `triangle` `a`, `b`, `c`; `ellipsoid` (an ellipse in 2D) `half_axes`.
///
/// The body frame is the shape's local frame (see the [shape table](crate::shape)):
/// `position` places the shape's local origin, and the rotation turns about it. For shapes
/// given by their vertices (polygon, polyhedron, segment, triangle) that origin is the origin
/// of the coordinates the vertices are written in.
///
/// A quaternion is normalised (any non-zero length is accepted, as
/// [`Rotation::try_from_slice`] does); a zero or non-finite one is refused. A `polygon` may be
/// given in either orientation. A convex one is the shape; a concave (simple) one is a
/// *compound* body: its convex pieces ([`decompose_polygon`](crate::shape::decompose_polygon)) are
/// [`RigidBodySpec::pieces`] and `shape` is its convex hull; one whose edges cross is refused.
/// A `polyhedron` is the convex hull of its points ([`Shape::convex_hull`]).
///
/// Errors are typed ([`SpecError`]) and name the key and the problem
/// (`half_extents: expected 2 numbers, got 3`); the caller adds the item (`body 1: ...`) and
/// the file, as scene errors do. Numbers must be at most `1e100` in magnitude, like every
/// number of a scene ([`crate::scene::MAX_MAGNITUDE`]).
///
/// ```
/// use kairos::math::DVec2;
/// use kairos::scene::RigidBodySpec;
/// use kairos::shape::Shape;
/// let table: toml::Table = r#"
///     shape = "box"
///     half_extents = [2.0, 0.1]
///     position = [0.0, 1.0]
///     angular_velocity = 3.0
/// "#
/// .parse()
/// .unwrap();
/// let body = RigidBodySpec::<DVec2>::from_table(&table, &[]).unwrap();
/// assert_eq!(body.shape, Shape::cuboid(DVec2::new(2.0, 0.1)).unwrap());
/// assert_eq!(body.motion.pose.position, DVec2::new(0.0, 1.0));
/// assert_eq!(body.motion.angular_velocity, 3.0);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RigidBodySpec<V: Vector> {
    /// The shape, in the body frame: the body itself when convex, the convex hull of a
    /// compound body.
    pub shape: Shape<V>,
    /// A compound body's convex pieces (a concave `polygon`), in the body frame; empty for a
    /// convex shape. [`RigidBodySpec::body_pieces`] gives the pieces of either kind.
    pub pieces: Vec<Shape<V>>,
    /// A `mesh` body's triangle mesh (3D), in the body frame: its triangles are then
    /// [`RigidBodySpec::pieces`] and `shape` is its convex hull.
    pub mesh: Option<Arc<TriMesh>>,
    /// The pose and velocities at time 0.
    pub motion: RigidMotion<V>,
}

impl<V: BodyDim> RigidBodySpec<V> {
    /// Reads a body table (see [`RigidBodySpec`] for the keys).
    ///
    /// `extra_keys` are keys the caller reads itself (a mass, a material): they are allowed
    /// and otherwise ignored here. Any other key outside [`MOTION_KEYS`] and the shape's keys
    /// is refused.
    ///
    /// # Errors
    ///
    /// A [`SpecError`] naming the key and the problem: a missing or unknown key, a wrong
    /// type or length, a non-finite or too large number, an unknown shape, a shape of the
    /// other dimension or one its constructor refuses, a zero quaternion.
    pub fn from_table(table: &Table, extra_keys: &[&str]) -> Result<Self, SpecError> {
        Self::from_table_in(table, extra_keys, &MeshFiles::new())
    }

    /// [`RigidBodySpec::from_table`] with the meshes already read: a `mesh` body whose `mesh`
    /// names an entry of `meshes` takes that mesh (a scene's [`crate::scene::Scene::meshes`]:
    /// its mesh files read once, or its `[meshes]` tables) instead of reading the file.
    ///
    /// # Errors
    ///
    /// As [`RigidBodySpec::from_table`].
    pub fn from_table_in(
        table: &Table,
        extra_keys: &[&str],
        meshes: &MeshFiles,
    ) -> Result<Self, SpecError> {
        let name = match table.get("shape") {
            None => {
                return Err(SpecError::Missing {
                    key: "shape".into(),
                    hint: format!("one of: {}", SHAPE_NAMES.join(", ")),
                })
            }
            Some(Value::String(s)) => s.as_str(),
            Some(v) => return Err(wrong_type("shape", "a shape name (a string)", v)),
        };
        let Some(own_keys) = shape_keys(name) else {
            return Err(SpecError::UnknownShape { name: name.into() });
        };
        let name = SHAPE_NAMES
            .iter()
            .copied()
            .find(|n| *n == name)
            .unwrap_or("shape");
        check_keys(table, name, own_keys, extra_keys)?;
        let (shape, pieces, mesh) = read_shape::<V>(table, name, meshes)?;
        let position = vector::<V>(table, "position")?.ok_or_else(|| SpecError::Missing {
            key: "position".into(),
            hint: format!("{} numbers", V::DIM),
        })?;
        let rotation = match table.get("orientation") {
            None => V::Rotation::IDENTITY,
            Some(v) => read_rotation::<V>(v)?,
        };
        let velocity = vector::<V>(table, "velocity")?.unwrap_or(V::ZERO);
        let angular = match table.get("angular_velocity") {
            None => V::Angular::default(),
            Some(v) => read_angular::<V>(v)?,
        };
        let motion = RigidMotion::new(0.0, Pose::new(position, rotation), velocity, angular)
            .map_err(SpecError::Motion)?;
        Ok(Self {
            shape,
            pieces,
            mesh,
            motion,
        })
    }
}

impl<V: Vector> RigidBodySpec<V> {
    /// The convex shapes the body is made of: its pieces when compound, else its shape.
    pub fn body_pieces(&self) -> &[Shape<V>] {
        if self.pieces.is_empty() {
            std::slice::from_ref(&self.shape)
        } else {
            &self.pieces
        }
    }
    /// Whether the body is a compound of convex pieces (a concave polygon).
    pub fn is_compound(&self) -> bool {
        !self.pieces.is_empty()
    }
}

/// Refuses keys that are neither the motion's, the shape's nor the caller's.
fn check_keys(
    table: &Table,
    shape: &'static str,
    own: &[&str],
    extra: &[&str],
) -> Result<(), SpecError> {
    for key in table.keys() {
        let k = key.as_str();
        if MOTION_KEYS.contains(&k) || own.contains(&k) || extra.contains(&k) {
            continue;
        }
        let of_a_shape = SHAPE_NAMES
            .iter()
            .any(|n| shape_keys(n).is_some_and(|ks| ks.contains(&k)));
        if of_a_shape {
            return Err(SpecError::NotForShape {
                key: key.clone(),
                shape,
                takes: own.join(", "),
            });
        }
        let allowed: Vec<&str> = MOTION_KEYS
            .iter()
            .chain(own)
            .chain(extra)
            .copied()
            .collect();
        return Err(SpecError::UnknownKey {
            key: key.clone(),
            allowed: allowed.join(", "),
        });
    }
    Ok(())
}

/// The shape `name` from its keys, the convex pieces of a concave polygon or the triangles of
/// a mesh (empty for every other shape), and a mesh body's mesh.
#[allow(clippy::type_complexity)]
fn read_shape<V: Vector>(
    t: &Table,
    name: &'static str,
    meshes: &MeshFiles,
) -> Result<(Shape<V>, Vec<Shape<V>>, Option<Arc<TriMesh>>), SpecError> {
    let only = |dim: usize| -> Result<(), SpecError> {
        if V::DIM == dim {
            Ok(())
        } else {
            Err(SpecError::Shape {
                key: "shape",
                source: ShapeError::WrongDimension {
                    shape: name,
                    only: dim,
                    dim: V::DIM,
                },
            })
        }
    };
    let shape_err = |key: &'static str| move |source| SpecError::Shape { key, source };
    let convex = match name {
        "ball" => {
            let r = required_number(t, "radius")?;
            Shape::ball(r).map_err(shape_err("radius"))
        }
        "box" => {
            let h = required_vector::<V>(t, "half_extents")?;
            Shape::cuboid(h).map_err(shape_err("half_extents"))
        }
        "capsule" | "cylinder" | "cone" => {
            if name != "capsule" {
                only(3)?;
            }
            let h = required_number(t, "half_height")?;
            let r = required_number(t, "radius")?;
            // The constructors name the offending size in their message.
            let key = check_sizes(h, r, name == "capsule").unwrap_or("shape");
            match name {
                "capsule" => Shape::capsule(h, r),
                "cylinder" => Shape::cylinder(h, r),
                _ => Shape::cone(h, r),
            }
            .map_err(shape_err(key))
        }
        "polygon" => {
            only(2)?;
            let vertices = points::<V>(t, "vertices")?;
            let (shape, pieces) = polygon(vertices).map_err(shape_err("vertices"))?;
            return Ok((shape, pieces, None));
        }
        "mesh" => {
            only(3)?;
            let mesh = read_mesh(t, meshes)?;
            let point = |i: u32| V::from_array3(mesh.vertices()[i as usize]);
            let pieces = mesh
                .triangles()
                .iter()
                .enumerate()
                .map(|(k, tri)| {
                    Shape::triangle(point(tri[0]), point(tri[1]), point(tri[2])).map_err(|e| {
                        SpecError::Mesh {
                            key: "mesh",
                            message: format!("triangle {k}: {e}"),
                        }
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let all: Vec<V> = mesh.vertices().iter().map(|&p| V::from_array3(p)).collect();
            let hull = Shape::polyhedron(&all).map_err(shape_err("mesh"))?;
            return Ok((hull, pieces, Some(mesh)));
        }
        "polyhedron" => {
            only(3)?;
            let pts = points::<V>(t, "points")?;
            Shape::polyhedron(&pts).map_err(shape_err("points"))
        }
        "segment" => {
            let (a, b) = (required_vector(t, "a")?, required_vector(t, "b")?);
            Shape::segment(a, b).map_err(shape_err("a, b"))
        }
        "ellipsoid" => {
            let h = required_vector::<V>(t, "half_axes")?;
            Shape::ellipsoid(h).map_err(shape_err("half_axes"))
        }
        _ => {
            let a = required_vector(t, "a")?;
            let b = required_vector(t, "b")?;
            let c = required_vector(t, "c")?;
            Shape::triangle(a, b, c).map_err(shape_err("a, b, c"))
        }
    };
    convex.map(|shape| (shape, Vec::new(), None))
}

/// The key of the first invalid size of a capsule, cylinder or cone (`half_height` may be 0
/// for a capsule only), or `None` when both are valid. Both are finite (read by [`checked`]).
fn check_sizes(half_height: f64, radius: f64, zero_height_ok: bool) -> Option<&'static str> {
    let height_ok = half_height > 0.0 || (zero_height_ok && half_height == 0.0);
    if !height_ok {
        Some("half_height")
    } else if radius <= 0.0 {
        Some("radius")
    } else {
        None
    }
}

/// The polygon of `vertices` (either orientation): the convex polygon, or for a concave one
/// its convex hull and its convex pieces.
fn polygon<V: Vector>(vertices: Vec<V>) -> Result<(Shape<V>, Vec<Shape<V>>), ShapeError> {
    let convex = Shape::convex_polygon(vertices.clone()).or_else(|e| {
        if signed_area(&vertices) < 0.0 {
            let mut reversed = vertices.clone();
            reversed.reverse();
            Shape::convex_polygon(reversed).map_err(|_| e)
        } else {
            Err(e)
        }
    });
    if let Ok(shape) = convex {
        return Ok((shape, Vec::new()));
    }
    // Not strictly convex: its decomposition says why it is no polygon at all (crossing
    // edges, no area), or gives the pieces (one for a convex outline with straight corners).
    let mut pieces: Vec<Shape<V>> = crate::shape::decompose_polygon(&vertices)?
        .into_iter()
        .map(Shape::ConvexPolygon)
        .collect();
    if pieces.len() == 1 {
        return Ok((pieces.pop().expect("one piece"), Vec::new()));
    }
    Ok((Shape::convex_hull(&vertices)?, pieces))
}

/// Twice the signed area of a 2D polygon (positive counter-clockwise).
fn signed_area<V: Vector>(vertices: &[V]) -> f64 {
    let n = vertices.len();
    (0..n)
        .map(|i| {
            let (p, q) = (vertices[i], vertices[(i + 1) % n]);
            p.comp(0) * q.comp(1) - p.comp(1) * q.comp(0)
        })
        .sum()
}

/// The rotation of an `orientation` value: a number in 2D, four numbers in 3D.
fn read_rotation<V: Vector>(v: &Value) -> Result<V::Rotation, SpecError> {
    let key = "orientation";
    let values = if V::DIM == 2 {
        let what = "an angle in radians (a number)";
        vec![checked(
            key,
            as_number(v).ok_or_else(|| wrong_type(key, what, v))?,
        )?]
    } else {
        numbers(v, key, 4, "a quaternion [w, x, y, z]")?
    };
    V::Rotation::try_from_slice(&values).map_err(SpecError::Rotation)
}

/// The angular velocity of an `angular_velocity` value: a number in 2D, a vector in 3D.
fn read_angular<V: BodyDim>(v: &Value) -> Result<V::Angular, SpecError> {
    let key = "angular_velocity";
    let values = if V::ANGULAR_COMPONENTS == 1 {
        let what = "a number (radians per unit time)";
        vec![checked(
            key,
            as_number(v).ok_or_else(|| wrong_type(key, what, v))?,
        )?]
    } else {
        numbers(v, key, V::ANGULAR_COMPONENTS, "a vector")?
    };
    V::angular_from_slice(&values).ok_or(SpecError::WrongLength {
        key: key.into(),
        expected: V::ANGULAR_COMPONENTS,
        got: values.len(),
    })
}

/// The error of a value of the wrong type.
fn wrong_type(key: &str, expected: &str, got: &Value) -> SpecError {
    SpecError::WrongType {
        key: key.into(),
        expected: expected.into(),
        got: got.type_str(),
    }
}

/// A TOML number (integers too) as `f64`.
fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) => Some(*f),
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// `x` when finite and within [`MAX_MAGNITUDE`].
fn checked(key: &str, x: f64) -> Result<f64, SpecError> {
    if !x.is_finite() {
        Err(SpecError::NonFinite {
            key: key.into(),
            value: x,
        })
    } else if x.abs() > MAX_MAGNITUDE {
        Err(SpecError::TooLarge {
            key: key.into(),
            value: x,
        })
    } else {
        Ok(x)
    }
}

/// The number under `key`.
fn required_number(t: &Table, key: &str) -> Result<f64, SpecError> {
    let v = t.get(key).ok_or_else(|| SpecError::Missing {
        key: key.into(),
        hint: "a number".into(),
    })?;
    checked(
        key,
        as_number(v).ok_or_else(|| wrong_type(key, "a number", v))?,
    )
}

/// Exactly `len` finite numbers from the array `v`; `what` says what it is in messages.
fn numbers(v: &Value, key: &str, len: usize, what: &str) -> Result<Vec<f64>, SpecError> {
    let expected = || format!("{what} of {len} numbers");
    let arr = v
        .as_array()
        .ok_or_else(|| wrong_type(key, &expected(), v))?;
    if arr.len() != len {
        return Err(SpecError::WrongLength {
            key: key.into(),
            expected: len,
            got: arr.len(),
        });
    }
    arr.iter()
        .map(|x| {
            checked(
                key,
                as_number(x).ok_or_else(|| wrong_type(key, &expected(), x))?,
            )
        })
        .collect()
}

/// The vector of `V::DIM` numbers in `v`.
fn to_vector<V: Vector>(v: &Value, key: &str) -> Result<V, SpecError> {
    let xs = numbers(v, key, V::DIM, "an array")?;
    // `numbers` checked the length.
    V::try_from_slice(&xs).ok_or(SpecError::WrongLength {
        key: key.into(),
        expected: V::DIM,
        got: xs.len(),
    })
}

/// The vector under `key`, if present.
fn vector<V: Vector>(t: &Table, key: &str) -> Result<Option<V>, SpecError> {
    t.get(key).map(|v| to_vector(v, key)).transpose()
}

/// The vector under `key`, required.
fn required_vector<V: Vector>(t: &Table, key: &str) -> Result<V, SpecError> {
    vector(t, key)?.ok_or_else(|| SpecError::Missing {
        key: key.into(),
        hint: format!("{} numbers", V::DIM),
    })
}

/// The list of points under `key` (`[[x, y], ...]`); elements are named `key[i]`.
fn points<V: Vector>(t: &Table, key: &str) -> Result<Vec<V>, SpecError> {
    let hint = format!("a list of points of {} numbers", V::DIM);
    let v = t.get(key).ok_or_else(|| SpecError::Missing {
        key: key.into(),
        hint: hint.clone(),
    })?;
    let arr = v.as_array().ok_or_else(|| wrong_type(key, &hint, v))?;
    arr.iter()
        .enumerate()
        .map(|(i, p)| to_vector(p, &format!("{key}[{i}]")))
        .collect()
}

#[cfg(test)]
mod tests;
