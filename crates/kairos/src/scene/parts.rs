//! A rigid body's table and what it builds: the shape (a compound body's pieces, a mesh's
//! triangles and hull), the mass properties and the pose and velocities at time 0.
//!
//! A [`BodyTable`] keeps what its table builds, computed on first use: parsing a scene,
//! validating it, checking its geometry and building its world all read the same parts, so a
//! mesh of a million triangles is triangulated, hulled and weighed once, not once a pass.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, Mutex};

use toml::{Table, Value};

use super::{
    as_number, finite, message, number, BodyDim, BodySpec, Item, MeshFiles, RigidBodySpec,
    MOVING_KEYS, RIGID_KEYS,
};
use crate::math::{DVec2, DVec3, Vector};
use crate::num::Num;
use crate::rigid::RigidState;
use crate::shape::{MassProperties, Pose, Shape};
use crate::wall::StaticShape;

/// What a rigid body is made of: its shape, mass properties, the pose of the shape's local
/// frame and the velocities of its centre of mass, at time 0.
pub(super) struct RigidParts<V: Vector> {
    /// The convex shape, or a compound body's pieces (a mesh's triangles).
    pub(super) pieces: Vec<Shape<V>>,
    /// A mesh body's mesh and hull.
    pub(super) mesh: Option<(std::sync::Arc<crate::ccd::mesh::TriMesh>, Shape<V>)>,
    pub(super) props: MassProperties<V>,
    pub(super) pose: Pose<V>,
    pub(super) velocity: V,
    pub(super) angular_velocity: V::Angular,
}

/// A rigid body's table (a `[[bodies]]` item with a `shape`), as written, with the parts it
/// builds kept once computed.
///
/// It reads as its [`Table`] (it dereferences to it) and compares and prints as it. The
/// parts are computed on first use, for the dimension and the meshes asked with, and kept
/// while those stay the same (a clone shares them); the table itself cannot be changed, so
/// the parts never go stale.
#[derive(Clone)]
pub struct BodyTable {
    table: Table,
    memo: Arc<Mutex<Option<Memo>>>,
}

/// The parts of a table in one dimension and with one mesh.
struct Memo {
    dim: usize,
    /// The address of the scene's mesh the table names (`None` for a procedural mesh or none).
    mesh: Option<usize>,
    /// An `Arc<RigidParts<V>>` of that dimension.
    parts: Arc<dyn std::any::Any + Send + Sync>,
}

impl BodyTable {
    /// The table of a rigid body.
    pub fn new(table: Table) -> Self {
        Self {
            table,
            memo: Arc::default(),
        }
    }

    /// The table as written.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The table as written, taken back.
    pub fn into_table(self) -> Table {
        self.table
    }

    /// The parts of this table in the dimension of `V`, with the scene's `meshes`: computed
    /// once and shared.
    pub(super) fn parts<V: SceneDim>(
        &self,
        meshes: &MeshFiles,
    ) -> Result<Arc<RigidParts<V>>, String> {
        let mesh = match self.table.get("mesh") {
            Some(Value::String(name)) => meshes.get(name).map(|m| Arc::as_ptr(m) as usize),
            _ => None,
        };
        let mut memo = self.memo.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = memo.as_ref() {
            if m.dim == V::DIM && m.mesh == mesh {
                if let Ok(parts) = Arc::clone(&m.parts).downcast::<RigidParts<V>>() {
                    return Ok(parts);
                }
            }
        }
        let parts = Arc::new(rigid_parts::<V>(&self.table, meshes)?);
        *memo = Some(Memo {
            dim: V::DIM,
            mesh,
            parts: Arc::clone(&parts) as Arc<dyn std::any::Any + Send + Sync>,
        });
        Ok(parts)
    }
}

impl From<Table> for BodyTable {
    fn from(table: Table) -> Self {
        Self::new(table)
    }
}

impl Deref for BodyTable {
    type Target = Table;
    fn deref(&self) -> &Table {
        &self.table
    }
}

impl PartialEq for BodyTable {
    fn eq(&self, other: &Self) -> bool {
        self.table == other.table
    }
}

impl fmt::Debug for BodyTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.table.fmt(f)
    }
}

/// The [`BodySpec`] of a rigid body made of `p`: its centre of mass, the velocity of its
/// centre of mass, its bounding radius about the centre of mass grown by
/// [`crate::rigid::RADIUS_MARGIN`] and its mass.
pub(super) fn body_spec<V: Vector>(p: &RigidParts<V>) -> Result<BodySpec, String> {
    let (body, _) = RigidState::body_of_pieces(
        0,
        &p.pieces,
        &p.props,
        &p.pose,
        p.velocity,
        p.angular_velocity,
    )
    .map_err(|e| match e {
        crate::rigid::RigidError::Inertia | crate::rigid::RigidError::InertiaOverflow { .. } => {
            format!("inertia: {e}")
        }
        crate::rigid::RigidError::Mass(_) => format!("mass: {e}"),
    })?;
    Ok(BodySpec {
        position: body.pos.to_array3(),
        velocity: body.vel.to_array3(),
        radius: body.radius,
        mass: p.props.mass,
    })
}

/// A rigid body's parts from its table: the shape and motion by [`RigidBodySpec::from_table`],
/// the mass properties from `density` (default 1) or `mass`, and `inertia` when given.
pub(super) fn rigid_parts<V: SceneDim>(
    t: &Table,
    meshes: &MeshFiles,
) -> Result<RigidParts<V>, String> {
    let spec =
        RigidBodySpec::<V>::from_table_in(t, &RIGID_KEYS, meshes).map_err(|e| e.to_string())?;
    let density = number(t, "density", Item::Scene).map_err(message)?;
    let mass = number(t, "mass", Item::Scene).map_err(message)?;
    if density.is_some() && mass.is_some() {
        return Err("give `density` or `mass`, not both".into());
    }
    for (key, x) in [("density", density), ("mass", mass)] {
        if let Some(x) = x {
            if !(x > 0.0) {
                return Err(format!("`{key}` must be positive, got {}", Num(x)));
            }
        }
    }
    let pieces = spec.body_pieces().to_vec();
    let shape_error = |e: crate::shape::ShapeError| format!("shape: {e}");
    // One shape's own properties; a mesh's solid's; a compound's combined from its pieces'.
    let of_density = |density: f64| -> Result<MassProperties<V>, String> {
        if let Some(mesh) = &spec.mesh {
            return crate::ccd::solid::mass_properties(mesh, density)
                .map_err(|e| format!("mesh: {e}"));
        }
        if let [shape] = pieces.as_slice() {
            return shape.mass_properties(density).map_err(shape_error);
        }
        let parts = pieces
            .iter()
            .map(|p| p.mass_properties(density))
            .collect::<Result<Vec<_>, _>>()
            .map_err(shape_error)?;
        MassProperties::combined(&parts)
            .ok_or_else(|| "shape: the pieces' mass is not finite".to_string())
    };
    let mut props = match mass {
        None => of_density(density.unwrap_or(1.0))?,
        Some(m) => {
            let unit = of_density(1.0)?;
            let mut props = of_density(m / unit.mass)?;
            props.mass = m;
            props
        }
    };
    if let Some(v) = t.get("inertia") {
        props.inertia = V::read_inertia(v).map_err(|e| format!("inertia: {e}"))?;
    }
    Ok(RigidParts {
        pieces,
        mesh: spec.mesh.map(|m| (m, spec.shape)),
        props,
        pose: spec.motion.pose,
        velocity: spec.motion.linear_velocity,
        angular_velocity: spec.motion.angular_velocity,
    })
}

/// A ball without `shape` in a rigid world: a ball of its radius and mass.
///
/// # Errors
///
/// A radius and mass whose density or inertia do not fit in an `f64` (a mass of `1e100` on a
/// radius of `1e-100`), which a rigid world cannot hold.
pub(super) fn ball_parts<V: Vector>(b: &BodySpec) -> Result<RigidParts<V>, String> {
    let too_far = |_: String| {
        format!(
            "a ball of radius {} and mass {} has no finite density or inertia, which a scene \
             with rigid bodies needs",
            Num(b.radius),
            Num(b.mass)
        )
    };
    let shape = Shape::ball(b.radius).map_err(|e| format!("radius: {e}"))?;
    let unit = shape
        .mass_properties(1.0)
        .map_err(|e| too_far(e.to_string()))?;
    let mut props = shape
        .mass_properties(b.mass / unit.mass)
        .map_err(|e| too_far(e.to_string()))?;
    props.mass = b.mass;
    let parts = RigidParts {
        pieces: vec![shape],
        mesh: None,
        props,
        pose: Pose::from_position(V::from_array3(b.position)),
        velocity: V::from_array3(b.velocity),
        angular_velocity: V::Angular::default(),
    };
    RigidState::body_of_pieces(
        0,
        &parts.pieces,
        &parts.props,
        &parts.pose,
        parts.velocity,
        parts.angular_velocity,
    )
    .map_err(|e| too_far(e.to_string()))?;
    Ok(parts)
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

impl super::Scene {
    /// The scene with every ball without a `shape` made a rigid ball (`shape = "ball"`) of
    /// its radius and mass, not spinning: for an engine that needs rigid states (the stepped
    /// engine). A clone when every body has a shape. Fails, naming the body, when a ball
    /// makes no rigid ball.
    pub fn with_rigid_balls(&self) -> Result<super::Scene, String> {
        let plain = |i: usize| self.shapes.get(i).is_none_or(|s| s.is_none());
        let mut out = self.clone();
        if !(0..self.bodies.len()).any(plain) {
            return Ok(out);
        }
        out.shapes.resize(self.bodies.len(), None);
        for (i, b) in self.bodies.iter().enumerate() {
            if !plain(i) {
                continue;
            }
            let vector = |v: [f64; 3]| {
                Value::Array(v[..self.dim].iter().map(|&x| Value::Float(x)).collect())
            };
            let mut t = Table::new();
            t.insert("shape".into(), Value::String("ball".into()));
            t.insert("radius".into(), Value::Float(b.radius));
            t.insert("mass".into(), Value::Float(b.mass));
            t.insert("position".into(), vector(b.position));
            t.insert("velocity".into(), vector(b.velocity));
            out.bodies[i] = rigid_body_spec(self.dim, &t).map_err(|e| format!("body {i}: {e}"))?;
            out.shapes[i] = Some(BodyTable::new(t));
        }
        Ok(out)
    }
}

/// [`rigid_body_spec`] with the meshes already read (a scene's [`super::Scene::meshes`]: a `mesh`
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
pub(super) fn table_spec(
    dim: usize,
    table: &BodyTable,
    meshes: &MeshFiles,
) -> Result<BodySpec, String> {
    match dim {
        2 => body_spec(&*table.parts::<DVec2>(meshes)?),
        3 => body_spec(&*table.parts::<DVec3>(meshes)?),
        d => Err(format!("`dim` must be 2 or 3, got {d}")),
    }
}

/// A static shape wall from its table: the shape and pose as a rigid body's
/// ([`RigidBodySpec::from_table`]), refusing what would make it move or weigh.
pub(super) fn static_shape<V: Vector>(table: &Table) -> Result<StaticShape<V>, String> {
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

/// The dimensions a scene's rigid bodies are read in.
pub(super) trait SceneDim: BodyDim {
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
