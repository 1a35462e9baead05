//! What `kairos view` and `kairos snapshot` draw: the scene's walls projected on two axes, the
//! periodic box, and the extent of a picture. A trace's scene was validated when it was read,
//! so its world builds; one that does not (a scene made in code) draws no walls or outlines.
//!
//! Pictures are flat: a 2D scene is drawn as it is, a 3D scene as its projection on two chosen
//! axes (`--axes xy`, `xz`, ...), the dropped axis ordering the bodies (nearest drawn last).

use std::fmt;
use std::str::FromStr;

use kairos::math::{DVec2, DVec3, Vector};
use kairos::scene::Scene;
use kairos::wall::Wall;

/// The two scene axes a picture shows: `h` across, `v` up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axes {
    /// Horizontal axis (0 = x, 1 = y, 2 = z).
    pub h: usize,
    /// Vertical axis.
    pub v: usize,
}

impl Default for Axes {
    fn default() -> Self {
        Axes { h: 0, v: 1 }
    }
}

const AXIS_NAMES: [char; 3] = ['x', 'y', 'z'];

impl FromStr for Axes {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let idx: Vec<usize> = s
            .chars()
            .map(|c| AXIS_NAMES.iter().position(|&n| n == c.to_ascii_lowercase()))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("axes are two of x, y, z (like `xz`), got `{s}`"))?;
        match idx[..] {
            [h, v] if h != v => Ok(Axes { h, v }),
            _ => Err(format!(
                "axes are two different letters of x, y, z, got `{s}`"
            )),
        }
    }
}

impl fmt::Display for Axes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", AXIS_NAMES[self.h], AXIS_NAMES[self.v])
    }
}

impl Axes {
    /// Checks the axes against the scene's dimension.
    pub fn check(&self, dim: usize) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.h < dim && self.v < dim,
            "--axes {self}: a {dim}D scene has no {} axis",
            AXIS_NAMES[self.h.max(self.v)]
        );
        Ok(())
    }
    /// The axis not shown (3D), which orders bodies front to back.
    pub fn depth(&self) -> usize {
        3 - self.h - self.v
    }
    /// Names of the shown axes.
    pub fn names(&self) -> [String; 2] {
        [
            AXIS_NAMES[self.h].to_string(),
            AXIS_NAMES[self.v].to_string(),
        ]
    }
    /// The shown components of a point.
    pub fn project(&self, p: &[f64]) -> [f64; 2] {
        [p[self.h], p[self.v]]
    }
}

/// A wall as drawn, in picture coordinates.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A segment from `a` to `b`.
    Segment([f64; 2], [f64; 2]),
    /// An infinite line through `point` along `dir` (a 2D plane, or a 3D plane seen edge-on).
    Line {
        /// A point of the line.
        point: [f64; 2],
        /// Its direction (unit length).
        dir: [f64; 2],
    },
    /// A closed polygon outline.
    Polygon(Vec<[f64; 2]>),
}

/// A wall with its id (the wall ids of events), as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnWall {
    /// Wall id.
    pub id: u32,
    /// Its projection.
    pub shape: Shape,
}

/// The scene's walls as the simulator builds them (a `box` item is `2 dim` walls), each with its
/// 3-component geometry: segment ends, plane point and normal, or polygon vertices; a static
/// shape as its outline already projected on the picture's axes.
enum Geometry {
    Segment([f64; 3], [f64; 3]),
    Plane([f64; 3], [f64; 3]),
    Polygon(Vec<[f64; 3]>),
    Outline(Vec<[f64; 2]>),
}

fn geometry<V: Vector>(scene: &Scene, axes: Axes) -> Vec<Geometry> {
    let Ok(walls) = scene.built_walls::<V>() else {
        return Vec::new();
    };
    walls
        .iter()
        .map(|w| match w {
            Wall::Segment(s) => Geometry::Segment(s.a.to_array3(), s.b.to_array3()),
            Wall::Plane(p) => Geometry::Plane(p.point.to_array3(), p.normal.to_array3()),
            Wall::Polygon(p) => {
                Geometry::Polygon(p.vertices.iter().map(|v| v.to_array3()).collect())
            }
            Wall::Shape(s) => {
                Geometry::Outline(outline(std::slice::from_ref(&s.shape), &s.pose, axes))
            }
        })
        .collect()
}

/// The walls as drawn, and how many were left out (3D planes that face the viewer cover the
/// whole picture and are not drawn).
pub fn walls(scene: &Scene, axes: Axes) -> (Vec<DrawnWall>, usize) {
    let geo = match scene.dim {
        2 => geometry::<DVec2>(scene, axes),
        _ => geometry::<DVec3>(scene, axes),
    };
    let mut out = Vec::new();
    let mut hidden = 0;
    for (id, g) in geo.into_iter().enumerate() {
        let shape = match g {
            Geometry::Segment(a, b) => Some(Shape::Segment(axes.project(&a), axes.project(&b))),
            Geometry::Plane(p, n) => {
                let (nh, nv) = (n[axes.h], n[axes.v]);
                let len = n.iter().map(|x| x * x).sum::<f64>().sqrt();
                let seen = (nh * nh + nv * nv).sqrt();
                // A plane is a line in the picture only when the dropped axis lies in it.
                if scene.dim == 3 && n[axes.depth()].abs() > 1e-12 * len {
                    None
                } else {
                    Some(Shape::Line {
                        point: axes.project(&p),
                        dir: [-nv / seen, nh / seen],
                    })
                }
            }
            Geometry::Polygon(vs) => {
                Some(Shape::Polygon(vs.iter().map(|v| axes.project(v)).collect()))
            }
            Geometry::Outline(ps) => Some(Shape::Polygon(ps)),
        };
        match shape {
            Some(shape) => out.push(DrawnWall {
                id: id as u32,
                shape,
            }),
            None => hidden += 1,
        }
    }
    (out, hidden)
}

/// The periodic box's lengths on the shown axes, if the scene has one.
pub fn period(scene: &Scene, axes: Axes) -> Option<[f64; 2]> {
    scene.periodic.as_ref().map(|l| axes.project(l))
}

/// `x` wrapped into `[0, l)`.
pub fn wrap(x: f64, l: f64) -> f64 {
    let w = x - l * (x / l).floor();
    if w >= l {
        0.0
    } else {
        w
    }
}

/// A rectangle of picture coordinates that grows to hold what is added to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Lower corner.
    pub min: [f64; 2],
    /// Upper corner.
    pub max: [f64; 2],
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            min: [f64::INFINITY; 2],
            max: [f64::NEG_INFINITY; 2],
        }
    }
}

impl Bounds {
    /// Adds a disc (or a point when `r` is 0).
    pub fn add(&mut self, p: [f64; 2], r: f64) {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return;
        }
        for ((lo, hi), x) in self.min.iter_mut().zip(&mut self.max).zip(p) {
            *lo = lo.min(x - r);
            *hi = hi.max(x + r);
        }
    }

    /// True when nothing was added (only finite points are).
    pub fn is_empty(&self) -> bool {
        self.min[0] > self.max[0]
    }

    /// Adds the finite walls (segments and polygons) and the periodic box.
    pub fn add_scene(&mut self, walls: &[DrawnWall], period: Option<[f64; 2]>) {
        for w in walls {
            match &w.shape {
                Shape::Segment(a, b) => {
                    self.add(*a, 0.0);
                    self.add(*b, 0.0);
                }
                Shape::Polygon(vs) => vs.iter().for_each(|v| self.add(*v, 0.0)),
                Shape::Line { .. } => {}
            }
        }
        if let Some(l) = period {
            self.add([0.0, 0.0], 0.0);
            self.add(l, 0.0);
        }
    }

    /// The rectangle to draw: a unit square around the origin when empty, and never thinner
    /// than a small fraction of its largest side.
    pub fn finished(&self) -> Bounds {
        if self.is_empty() {
            return Bounds {
                min: [-1.0, -1.0],
                max: [1.0, 1.0],
            };
        }
        let mut b = *self;
        let size = (b.max[0] - b.min[0]).max(b.max[1] - b.min[1]);
        let least = if size > 0.0 {
            size * 1e-3
        } else {
            b.min[0].abs().max(b.min[1].abs()).max(1.0) * 1e-3
        };
        for k in 0..2 {
            if b.max[k] - b.min[k] < least {
                let c = 0.5 * (b.max[k] + b.min[k]);
                b.min[k] = c - 0.5 * least;
                b.max[k] = c + 0.5 * least;
            }
        }
        b
    }
}

/// Directions sampled around a rigid body's outline (3.75 degrees apart).
pub const OUTLINE_DIRECTIONS: usize = 96;

/// The outline of every rigid body of a version 3 trace at time `t`, projected on `axes`
/// (picture coordinates), by id; `None` for a ball (drawn as its circle), and an empty list
/// for a trace of balls.
///
/// The outline joins the shape's support points in [`OUTLINE_DIRECTIONS`] directions of the
/// picture's plane, at the body's pose from the replay (its rotation by the simulation's own
/// motion). For a convex body the projection's support in a direction of the plane is the
/// projection of the body's support, so in 3D this is the outline of the projected body, not
/// of a cross-section. Vertices of polygons, boxes and polyhedra are exact whenever their
/// outward angle exceeds the sampling step; round parts (capsules' and balls' arcs) are drawn
/// as chords of that step.
pub fn outlines(
    scene: &Scene,
    state: &kairos::trace::Replay,
    t: f64,
    axes: Axes,
) -> Vec<Option<Vec<[f64; 2]>>> {
    if !state.is_rigid() || !scene.has_rigid_bodies() || scene.bodies.len() != state.len() {
        return Vec::new();
    }
    match scene.dim {
        2 => scene
            .world::<DVec2>()
            .map(|w| outlines_in(&w, state, t, axes)),
        _ => scene
            .world::<DVec3>()
            .map(|w| outlines_in(&w, state, t, axes)),
    }
    .unwrap_or_default()
}

fn outlines_in<V: Vector>(
    world: &kairos::world::World<V>,
    state: &kairos::trace::Replay,
    t: f64,
    axes: Axes,
) -> Vec<Option<Vec<[f64; 2]>>> {
    use kairos::math::Rotation;
    use kairos::shape::Shape as Body;
    (0..world.bodies().len())
        .map(|i| {
            let r = &world.rigid()[i];
            let own = body_shapes(world, r);
            if matches!(own, [Body::Ball(_)]) {
                return None;
            }
            let (q, _) = state.orientation(i, t);
            let centre = V::from_array3(state.position(i, t));
            let pose = r.shape_pose(centre, V::Rotation::from_array4(q));
            Some(outline(own, &pose, axes))
        })
        .collect()
}

/// The edges of every mesh body of a 3D rigid scene at `t`, projected on `axes`, by id (empty
/// for other bodies, and for 2D scenes and scenes without meshes): the wireframe drawn over
/// the body's outline.
pub fn wireframes(
    scene: &Scene,
    state: &kairos::trace::Replay,
    t: f64,
    axes: Axes,
) -> Vec<Vec<[[f64; 2]; 2]>> {
    use kairos::math::Rotation;
    if scene.dim != 3 || !state.is_rigid() || scene.bodies.len() != state.len() {
        return Vec::new();
    }
    let Ok(world) = scene.world::<DVec3>() else {
        return Vec::new();
    };
    if world.meshes().is_empty() {
        return Vec::new();
    }
    (0..world.bodies().len())
        .map(|i| {
            let r = &world.rigid()[i];
            let Some(m) = r.mesh else {
                return Vec::new();
            };
            let mesh = &world.meshes()[m as usize].body.mesh;
            let (q, _) = state.orientation(i, t);
            let centre = DVec3::from_array(state.position(i, t));
            let pose = r.shape_pose(centre, kairos::math::DQuat::from_array4(q));
            let at: Vec<[f64; 2]> = mesh
                .vertices()
                .iter()
                .map(|&v| axes.project(&pose.transform_point(DVec3::from_array(v)).to_array()))
                .collect();
            mesh.edges()
                .iter()
                .map(|e| [at[e[0] as usize], at[e[1] as usize]])
                .collect()
        })
        .collect()
}

/// The shapes body `r` is made of: one, or a compound body's pieces.
fn body_shapes<'w, V: Vector>(
    world: &'w kairos::world::World<V>,
    r: &kairos::rigid::RigidState<V>,
) -> &'w [kairos::shape::Shape<V>] {
    &world.shapes()[r.shape as usize..(r.shape + r.pieces) as usize]
}

/// The projected outline of a body made of `shapes` at `pose`: for one convex shape, through
/// its support points in [`OUTLINE_DIRECTIONS`] directions of the plane of `axes`, repeated
/// points dropped; for a compound of polygons (a concave polygon), the boundary of their
/// union ([`union_outline`](kairos::shape::union_outline)).
fn outline<V: Vector>(
    shapes: &[kairos::shape::Shape<V>],
    pose: &kairos::shape::Pose<V>,
    axes: Axes,
) -> Vec<[f64; 2]> {
    use kairos::shape::{union_outline, Shape, SupportMap};
    if shapes.len() > 1 {
        let polygons: Option<Vec<_>> = shapes
            .iter()
            .map(|s| match s {
                Shape::ConvexPolygon(p) => Some(p.clone()),
                _ => None,
            })
            .collect();
        if let Some(boundary) = polygons.as_deref().and_then(union_outline) {
            return boundary
                .iter()
                .map(|&p| axes.project(&pose.transform_point(p).to_array3()))
                .collect();
        }
    }
    let mut points: Vec<[f64; 2]> = Vec::with_capacity(OUTLINE_DIRECTIONS);
    for k in 0..OUTLINE_DIRECTIONS {
        let a = std::f64::consts::TAU * k as f64 / OUTLINE_DIRECTIONS as f64;
        let d = V::unit(axes.h) * a.cos() + V::unit(axes.v) * a.sin();
        // The farthest support of the shapes: the outline of their hull.
        let far = shapes
            .iter()
            .map(|s| s.support(pose, d))
            .max_by(|x, y| x.dot(d).total_cmp(&y.dot(d)))
            .unwrap_or(pose.position);
        let p = axes.project(&far.to_array3());
        if points.last() != Some(&p) && points.first() != Some(&p) {
            points.push(p);
        }
    }
    points
}

/// Every body's outline of a 2D rigid scene in its body frame (centre of mass at the origin,
/// unturned), by id: what the replay page turns by the body's angle; `None` for a ball. Empty
/// for a scene of balls or a 3D scene.
pub fn body_outlines_2d(scene: &Scene) -> Vec<Option<Vec<[f64; 2]>>> {
    use kairos::math::{Rot2, Rotation};
    if scene.dim != 2 || !scene.has_rigid_bodies() {
        return Vec::new();
    }
    let Ok(world) = scene.world::<DVec2>() else {
        return Vec::new();
    };
    let axes = Axes { h: 0, v: 1 };
    world
        .rigid()
        .iter()
        .map(|r| {
            let own = body_shapes(&world, r);
            if matches!(own, [kairos::shape::Shape::Ball(_)]) {
                return None;
            }
            Some(outline(
                own,
                &r.shape_pose(DVec2::ZERO, Rot2::IDENTITY),
                axes,
            ))
        })
        .collect()
}

/// Directions sampled on the sphere for the point set of a round 3D shape (a capsule, cylinder
/// or cone): a Fibonacci spiral.
pub const HULL_DIRECTIONS_3D: usize = 192;

/// A 3D rigid body as the replay page draws it: points in its body frame (centre of mass at
/// the origin, unturned) whose convex hull is the shape, a mesh's edges between them, and
/// whether its inertia is anisotropic (its torque-free motion is then not a constant angular
/// velocity).
#[derive(Clone, Debug, PartialEq)]
pub struct BodyPoints3 {
    /// The points, body frame.
    pub points: Vec<[f64; 3]>,
    /// A mesh body's edges (indices into `points`, its vertices in order); empty otherwise.
    pub edges: Vec<[u32; 2]>,
    /// A mesh body's triangles (indices into `points`, outward by the right-hand rule); empty
    /// otherwise.
    pub triangles: Vec<[u32; 3]>,
    /// Whether the body tumbles (anisotropic inertia: not a constant angular velocity).
    pub tumbling: bool,
}

/// Every body of a 3D rigid scene as the replay page draws it, by id; `None` for a ball (drawn
/// as its circle). Empty for a scene of balls or a 2D scene.
///
/// A polytope (box, triangle, segment, polyhedron) gives its vertices: the convex hull of
/// their projection is exactly the projected body. A mesh body gives its vertices, in order,
/// and its edges: the page draws the projected hull with the edges over it. A round shape gives its support points in
/// [`HULL_DIRECTIONS_3D`] directions spread over the sphere, whose projected hull is its
/// silhouette to within the spacing of those points.
pub fn body_points_3d(scene: &Scene) -> Vec<Option<BodyPoints3>> {
    use kairos::math::{DQuat, Spin3};
    use kairos::shape::Shape as Body;
    if scene.dim != 3 || !scene.has_rigid_bodies() {
        return Vec::new();
    }
    let Ok(world) = scene.world::<DVec3>() else {
        return Vec::new();
    };
    world
        .rigid()
        .iter()
        .map(|r| {
            let shape = &world.shapes()[r.shape as usize];
            if matches!(shape, Body::Ball(_)) {
                return None;
            }
            let pose = r.shape_pose(DVec3::ZERO, DQuat::IDENTITY);
            // A generic angular velocity: the spin is a constant one only for isotropic bodies.
            let probe = DVec3::new(0.3, 0.5, 0.7);
            let tumbling = !matches!(
                Spin3::new(r.inertia, DQuat::IDENTITY, probe),
                Spin3::Constant { .. }
            );
            if let Some(m) = r.mesh {
                // A mesh: its vertices in order, and its edges between them.
                let mesh = &world.meshes()[m as usize].body.mesh;
                let points = mesh
                    .vertices()
                    .iter()
                    .map(|&v| pose.transform_point(DVec3::from_array(v)).to_array())
                    .collect();
                let edges = mesh.edges().to_vec();
                return Some(BodyPoints3 {
                    points,
                    edges,
                    triangles: mesh.triangles().to_vec(),
                    tumbling,
                });
            }
            // Every piece of a compound body: the silhouette of its hull.
            let pieces = &world.shapes()[r.shape as usize..(r.shape + r.pieces) as usize];
            Some(BodyPoints3 {
                points: hull_points_3d(pieces, &pose),
                edges: Vec::new(),
                triangles: Vec::new(),
                tumbling,
            })
        })
        .collect()
}

/// Points whose convex hull is the hull of `pieces` at `pose`, sorted: a polytope's vertices,
/// a round shape's support points in [`HULL_DIRECTIONS_3D`] directions spread over the sphere.
fn hull_points_3d(
    pieces: &[kairos::shape::Shape<DVec3>],
    pose: &kairos::shape::Pose<DVec3>,
) -> Vec<[f64; 3]> {
    use kairos::query::sat::as_polytope;
    use kairos::shape::SupportMap;
    // Directions of a Fibonacci spiral: about evenly spread over the sphere.
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let directions = (0..HULL_DIRECTIONS_3D).map(|k| {
        let z = 1.0 - 2.0 * (k as f64 + 0.5) / HULL_DIRECTIONS_3D as f64;
        let r = (1.0 - z * z).max(0.0).sqrt();
        let a = golden * k as f64;
        DVec3::new(r * a.cos(), r * a.sin(), z)
    });
    let mut points: Vec<[f64; 3]> = pieces
        .iter()
        .flat_map(|shape| match as_polytope(shape) {
            Some(poly) => (0..poly.vertex_count())
                .map(|i| pose.transform_point(poly.vertex(i)).to_array())
                .collect::<Vec<_>>(),
            None => directions
                .clone()
                .map(|d| shape.support(pose, d).to_array())
                .collect(),
        })
        .collect();
    points.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    points.dedup();
    points
}

/// A wall of a 3D scene as the 3D view draws it.
pub enum Wall3 {
    /// A plane through `point` with outward `normal` (the side the bodies are on).
    Plane { point: [f64; 3], normal: [f64; 3] },
    /// A flat polygon's vertices in order.
    Polygon(Vec<[f64; 3]>),
    /// A static shape: points whose convex hull it is (world frame).
    Hull(Vec<[f64; 3]>),
}

/// Every wall of a 3D scene as the simulator builds them (a `box` item is 6 planes), by id;
/// empty for a 2D scene.
pub fn walls_3d(scene: &Scene) -> Vec<Wall3> {
    if scene.dim != 3 {
        return Vec::new();
    }
    let Ok(walls) = scene.built_walls::<DVec3>() else {
        return Vec::new();
    };
    walls
        .iter()
        .map(|w| match w {
            Wall::Segment(s) => Wall3::Polygon(vec![s.a.to_array(), s.b.to_array()]),
            Wall::Plane(p) => Wall3::Plane {
                point: p.point.to_array(),
                normal: p.normal.to_array(),
            },
            Wall::Polygon(p) => Wall3::Polygon(p.vertices.iter().map(|v| v.to_array()).collect()),
            Wall::Shape(s) => Wall3::Hull(hull_points_3d(std::slice::from_ref(&s.shape), &s.pose)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_parse_and_check() {
        assert_eq!("xz".parse::<Axes>().unwrap(), Axes { h: 0, v: 2 });
        assert!("xx".parse::<Axes>().is_err());
        assert!("xyz".parse::<Axes>().is_err());
        assert!("ab".parse::<Axes>().is_err());
        assert!(Axes { h: 0, v: 2 }.check(2).is_err());
        assert_eq!(Axes { h: 2, v: 0 }.depth(), 1);
    }

    #[test]
    fn wrap_stays_in_the_box() {
        assert_eq!(wrap(-0.5, 10.0), 9.5);
        assert_eq!(wrap(23.0, 10.0), 3.0);
        assert!(wrap(-1e-300, 10.0) < 10.0);
    }
}
