//! The HOOMD schema's `particles/type_shapes` of a scene's bodies: each body's shape as a JSON
//! dictionary of GSD's shape visualisation specification, in the body's principal frame, with
//! its principal moments of inertia (see [`super::hoomd`] for the mapping).

use std::fmt::Write as _;

use glam::{DMat3, DQuat, DVec2, DVec3};

use crate::math::free_rotation::symmetric_eigen;
use crate::math::{Rotation, Vector};
use crate::rigid::RigidState;
use crate::scene::{RigidBodySpec, Scene, SceneError, WallSpec};
use crate::shape::{union_outline, ConvexPolygon, Shape};
use crate::world::World;

/// Sides of the polygons that stand for the round rims of cylinders and cones.
pub const ROUND_SIDES: usize = 32;

/// A body's shape as `particles/type_shapes` stores it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TypeShape {
    /// The kind of shape, for type names (`ball`, `box`, `polygon`, `mesh`, ...).
    pub kind: &'static str,
    /// The JSON dictionary.
    pub json: String,
}

/// A rigid body's shape in its principal frame, its principal moments of inertia and the
/// rotation `[w, x, y, z]` from its principal frame to its body frame.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RigidShape {
    pub shape: TypeShape,
    pub moments: [f64; 3],
    pub principal: [f64; 4],
}

/// A number as JSON writes it: the shortest text that reads back to the same `f64`.
fn num(x: f64) -> String {
    if x == 0.0 {
        // No `-0.0`: identical shapes then give identical text.
        return "0.0".into();
    }
    format!("{x:?}")
}

fn points_json(points: &[[f64; 3]], dim: usize) -> String {
    let mut s = String::from("[");
    for (k, p) in points.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        s.push('[');
        for (j, x) in p[..dim].iter().enumerate() {
            if j > 0 {
                s.push_str(", ");
            }
            s.push_str(&num(*x));
        }
        s.push(']');
    }
    s.push(']');
    s
}

/// `{"type": "Sphere", "diameter": d}`.
pub(crate) fn sphere(diameter: f64) -> TypeShape {
    TypeShape {
        kind: "ball",
        json: format!("{{\"type\": \"Sphere\", \"diameter\": {}}}", num(diameter)),
    }
}

/// A polygon (2D) or convex polyhedron (3D) of `points`, rounded by `rounding`.
fn polytope(kind: &'static str, dim: usize, points: &[[f64; 3]], rounding: f64) -> TypeShape {
    let name = if dim == 2 {
        "Polygon"
    } else {
        "ConvexPolyhedron"
    };
    let mut json = format!("{{\"type\": \"{name}\"");
    if rounding > 0.0 {
        let _ = write!(json, ", \"rounding_radius\": {}", num(rounding));
    }
    let _ = write!(json, ", \"vertices\": {}}}", points_json(points, dim));
    TypeShape { kind, json }
}

/// Every rigid body of `scene` (one with rigid bodies), by id.
pub(crate) fn rigid_shapes(scene: &Scene) -> Result<Vec<RigidShape>, SceneError> {
    if scene.dim == 2 {
        let world = scene.world::<DVec2>()?;
        Ok(world.rigid().iter().map(|r| rigid_2d(&world, r)).collect())
    } else {
        let world = scene.world::<DVec3>()?;
        Ok(world.rigid().iter().map(|r| rigid_3d(&world, r)).collect())
    }
}

/// The shapes body `r` is made of: one, or a compound body's pieces.
fn pieces<'w, V: Vector>(world: &'w World<V>, r: &RigidState<V>) -> &'w [Shape<V>] {
    let from = r.shape as usize;
    let to = from + r.pieces as usize;
    world.shapes().get(from..to).unwrap_or(&[])
}

/// A 2D body: a `Sphere` for a disc, else a `Polygon` in the body frame (centre of mass at
/// the origin): a box's corners, a polygon's or triangle's vertices counter-clockwise, a
/// capsule's or segment's ends (a capsule rounded by its radius), a concave polygon's outline.
fn rigid_2d(world: &World<DVec2>, r: &RigidState<DVec2>) -> RigidShape {
    let pose = r.shape_pose(DVec2::ZERO, crate::math::Rot2::IDENTITY);
    let place = |p: DVec2| {
        let q = pose.transform_point(p);
        [q.x, q.y, 0.0]
    };
    let own = pieces(world, r);
    let shape = match own {
        [Shape::Ball(b)] => sphere(2.0 * b.radius()),
        [Shape::Cuboid(c)] => {
            let h = c.half_extents();
            let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                .map(|(sx, sy)| place(DVec2::new(sx * h.x, sy * h.y)));
            polytope("box", 2, &corners, 0.0)
        }
        [Shape::Capsule(c)] => {
            let ends = capsule_ends(c.half_height()).map(|y| place(DVec2::new(0.0, y)));
            polytope("capsule", 2, &ends[..ends_len(c.half_height())], c.radius())
        }
        [Shape::Segment(s)] => polytope("segment", 2, &s.vertices().map(place), 0.0),
        [Shape::Triangle(t)] => {
            let [a, b, c] = t.vertices();
            let ccw = (b - a).perp_dot(c - a) >= 0.0;
            let v = if ccw { [a, b, c] } else { [a, c, b] };
            polytope("triangle", 2, &v.map(place), 0.0)
        }
        [Shape::ConvexPolygon(p)] => {
            let v: Vec<[f64; 3]> = p.vertices().iter().map(|&q| place(q)).collect();
            polytope("polygon", 2, &v, 0.0)
        }
        many => {
            // A concave polygon made of convex pieces: its outline, else the hull of the
            // pieces, else the bounding disc.
            let polygons: Option<Vec<ConvexPolygon<DVec2>>> = many
                .iter()
                .map(|s| match s {
                    Shape::ConvexPolygon(p) => Some(p.clone()),
                    _ => None,
                })
                .collect();
            let outline = polygons.as_deref().and_then(union_outline).or_else(|| {
                let all: Vec<DVec2> = polygons?
                    .iter()
                    .flat_map(|p| p.vertices().to_vec())
                    .collect();
                ConvexPolygon::from_points(&all)
                    .ok()
                    .map(|h| h.vertices().to_vec())
            });
            match outline {
                Some(v) => {
                    let v: Vec<[f64; 3]> = v.iter().map(|&q| place(q)).collect();
                    polytope("polygon", 2, &v, 0.0)
                }
                None => sphere(2.0 * r.radius),
            }
        }
    };
    RigidShape {
        shape,
        moments: [0.0, 0.0, r.inertia],
        principal: [1.0, 0.0, 0.0, 0.0],
    }
}

/// The ends of a capsule's segment along y (one point when it has no length).
fn capsule_ends(h: f64) -> [f64; 2] {
    if h > 0.0 {
        [-h, h]
    } else {
        [0.0, 0.0]
    }
}

fn ends_len(h: f64) -> usize {
    if h > 0.0 {
        2
    } else {
        1
    }
}

/// The principal moments of a body-frame inertia tensor and the rotation from its principal
/// frame to the body frame: the tensor's diagonal and the identity when it is diagonal (to a
/// relative `1e-12`), else its eigenvalues (ascending) and eigenvectors.
pub(crate) fn principal_frame(inertia: DMat3) -> ([f64; 3], DQuat) {
    let a = inertia.to_cols_array_2d();
    let diagonal = [a[0][0], a[1][1], a[2][2]];
    let scale = diagonal.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let off = [a[0][1], a[0][2], a[1][2], a[1][0], a[2][0], a[2][1]]
        .iter()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    if off <= 1e-12 * scale {
        return (diagonal, DQuat::IDENTITY);
    }
    let (values, axes) = symmetric_eigen(inertia);
    let q = DQuat::from_mat3(&axes).normalize();
    if !q.is_finite() {
        return (diagonal, DQuat::IDENTITY);
    }
    (values, q)
}

/// A 3D body in its principal frame (centre of mass at the origin): a `Sphere` for a ball, a
/// `Mesh` of a mesh body's vertices and triangles, else a `ConvexPolyhedron`: a box's corners, a
/// polyhedron's, triangle's or segment's vertices, a capsule's ends rounded by its radius, and
/// [`ROUND_SIDES`]-gons inscribed in a cylinder's caps or a cone's base (with its apex). Another
/// compound body (none is made today) is its bounding sphere.
fn rigid_3d(world: &World<DVec3>, r: &RigidState<DVec3>) -> RigidShape {
    let (moments, principal) = principal_frame(r.inertia);
    let pose = r.shape_pose(DVec3::ZERO, DQuat::IDENTITY);
    let back = principal.conjugate();
    let place = |p: DVec3| (back * pose.transform_point(p)).to_array();
    let ring = |y: f64, radius: f64| -> Vec<[f64; 3]> {
        (0..ROUND_SIDES)
            .map(|k| {
                let a = std::f64::consts::TAU * k as f64 / ROUND_SIDES as f64;
                // No round-off residue where the circle crosses an axis.
                let (s, c) = a.sin_cos();
                let snap = |x: f64| if x.abs() < 1e-12 { 0.0 } else { radius * x };
                place(DVec3::new(snap(c), y, snap(s)))
            })
            .collect()
    };
    let mesh = r.mesh.and_then(|m| world.meshes().get(m as usize));
    let shape = match (mesh, pieces(world, r)) {
        (Some(m), _) => {
            let mesh = &m.body.mesh;
            let v: Vec<[f64; 3]> = mesh
                .vertices()
                .iter()
                .map(|&p| place(DVec3::from_array(p)))
                .collect();
            let mut json = format!(
                "{{\"type\": \"Mesh\", \"vertices\": {}, \"indices\": [",
                points_json(&v, 3)
            );
            for (k, t) in mesh.triangles().iter().enumerate() {
                let sep = if k > 0 { ", " } else { "" };
                let _ = write!(json, "{sep}[{}, {}, {}]", t[0], t[1], t[2]);
            }
            json.push_str("]}");
            TypeShape { kind: "mesh", json }
        }
        (None, [Shape::Ball(b)]) => sphere(2.0 * b.radius()),
        (None, [Shape::Cuboid(c)]) => {
            let h = c.half_extents();
            let mut corners = Vec::with_capacity(8);
            for sx in [-1.0, 1.0] {
                for sy in [-1.0, 1.0] {
                    for sz in [-1.0, 1.0] {
                        corners.push(place(DVec3::new(sx * h.x, sy * h.y, sz * h.z)));
                    }
                }
            }
            polytope("box", 3, &corners, 0.0)
        }
        (None, [Shape::Capsule(c)]) => {
            let ends = capsule_ends(c.half_height()).map(|y| place(DVec3::new(0.0, y, 0.0)));
            polytope("capsule", 3, &ends[..ends_len(c.half_height())], c.radius())
        }
        (None, [Shape::Cylinder(c)]) => {
            let mut v = ring(-c.half_height(), c.radius());
            v.extend(ring(c.half_height(), c.radius()));
            polytope("cylinder", 3, &v, 0.0)
        }
        (None, [Shape::Cone(c)]) => {
            let mut v = vec![place(DVec3::new(0.0, c.half_height(), 0.0))];
            v.extend(ring(-c.half_height(), c.radius()));
            polytope("cone", 3, &v, 0.0)
        }
        (None, [Shape::Polyhedron(p)]) => {
            let v: Vec<[f64; 3]> = p.vertices().iter().map(|&q| place(q)).collect();
            polytope("polyhedron", 3, &v, 0.0)
        }
        (None, [Shape::Triangle(t)]) => polytope("triangle", 3, &t.vertices().map(place), 0.0),
        (None, [Shape::Segment(s)]) => polytope("segment", 3, &s.vertices().map(place), 0.0),
        _ => sphere(2.0 * r.radius),
    };
    RigidShape {
        shape,
        moments,
        principal: [principal.w, principal.x, principal.y, principal.z],
    }
}

/// Half extents about the origin of the walls that have an extent (every wall but planes), in
/// the scene's dimensions; zeros without such walls.
pub(crate) fn wall_extent(scene: &Scene) -> [f64; 3] {
    let mut h = [0.0f64; 3];
    let mut take = |p: &[f64], grow: f64| {
        for (hk, x) in h.iter_mut().zip(p) {
            *hk = hk.max(x.abs() + grow);
        }
    };
    for w in &scene.walls {
        match w {
            WallSpec::Segment { a, b } => {
                take(a, 0.0);
                take(b, 0.0);
            }
            WallSpec::Plane { .. } => {}
            WallSpec::Polygon { vertices } => vertices.iter().for_each(|v| take(v, 0.0)),
            WallSpec::Box { min, max } => {
                take(min, 0.0);
                take(max, 0.0);
            }
            WallSpec::Shape { table } => {
                // A static shape: its local origin at its position.
                let placed = if scene.dim == 2 {
                    RigidBodySpec::<DVec2>::from_table(table, &[])
                        .ok()
                        .map(|s| {
                            (
                                s.motion.pose.position.to_array3(),
                                s.shape.bounding_radius(),
                            )
                        })
                } else {
                    RigidBodySpec::<DVec3>::from_table(table, &[])
                        .ok()
                        .map(|s| {
                            (
                                s.motion.pose.position.to_array3(),
                                s.shape.bounding_radius(),
                            )
                        })
                };
                if let Some((p, radius)) = placed {
                    take(&p[..scene.dim], radius);
                }
            }
        }
    }
    h
}
