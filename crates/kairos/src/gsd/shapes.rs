//! The HOOMD schema's `particles/type_shapes` of a scene's bodies: each body's shape as a JSON
//! dictionary of GSD's shape visualisation specification, in the body's principal frame, with
//! its principal moments of inertia (see [`super::hoomd`] for the mapping).

use std::fmt::Write as _;

use glam::{DMat3, DQuat, DVec2, DVec3};

use crate::math::free_rotation::symmetric_eigen;
use crate::math::{Rotation, Vector};
use crate::rigid::RigidState;
use crate::scene::{RigidBodySpec, Scene, SceneError, WallSpec};
use crate::shape::{union_outline, ConvexPolygon, ConvexShape, Outline, Shape};
use crate::world::World;

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
        [one] => outlined(one, place),
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

/// Points on an ellipse (2D) or ellipsoid (3D) of these half axes, for the polygon or hull
/// that stands for it where GSD's `Ellipsoid` cannot: a 2D body, or a body whose principal
/// frame turns the ellipsoid's axes.
pub const ELLIPSOID_POINTS: usize = 64;

/// One convex shape's entry, from the shape's own [`Outline`], its points placed in the
/// principal frame by `place`.
fn outlined<V: Vector>(shape: &Shape<V>, place: impl Fn(V) -> [f64; 3]) -> TypeShape {
    match shape.outline() {
        Outline::Ball(radius) => sphere(2.0 * radius),
        Outline::Polytope { vertices, rounding } => {
            let v: Vec<[f64; 3]> = vertices.into_iter().map(&place).collect();
            polytope(shape.name(), V::DIM, &v, rounding)
        }
        Outline::Ellipsoid(h) => {
            let axis = |i: usize| V::unit(i) * h.comp(i);
            let unturned = (0..V::DIM).all(|i| place(axis(i)) == axis(i).to_array3())
                && place(V::ZERO) == [0.0; 3];
            if V::DIM == 3 && unturned {
                let json = format!(
                    "{{\"type\": \"Ellipsoid\", \"a\": {}, \"b\": {}, \"c\": {}}}",
                    num(h.comp(0)),
                    num(h.comp(1)),
                    num(h.comp(2))
                );
                return TypeShape {
                    kind: shape.name(),
                    json,
                };
            }
            let v: Vec<[f64; 3]> = ellipsoid_points(h).into_iter().map(&place).collect();
            polytope(shape.name(), V::DIM, &v, 0.0)
        }
    }
}

/// [`ELLIPSOID_POINTS`] points of the ellipse counter-clockwise (2D), or a latitude and
/// longitude net of the ellipsoid (3D).
fn ellipsoid_points<V: Vector>(h: V) -> Vec<V> {
    let (a, b, c) = (h.comp(0), h.comp(1), h.comp(2));
    let turn = |k: usize, n: usize| (std::f64::consts::TAU * k as f64 / n as f64).sin_cos();
    if V::DIM == 2 {
        return (0..ELLIPSOID_POINTS)
            .map(|k| {
                let (s, co) = turn(k, ELLIPSOID_POINTS);
                V::from_array3([a * co, b * s, 0.0])
            })
            .collect();
    }
    let (rings, around) = (7, ELLIPSOID_POINTS / 8);
    let mut v = vec![
        V::from_array3([0.0, b, 0.0]),
        V::from_array3([0.0, -b, 0.0]),
    ];
    for i in 1..=rings {
        let (y, r) = (std::f64::consts::PI * i as f64 / (rings + 1) as f64).sin_cos();
        for k in 0..around {
            let (s, co) = turn(k, around);
            v.push(V::from_array3([a * y * co, b * r, c * y * s]));
        }
    }
    v
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
/// [`OUTLINE_ROUND_SIDES`](crate::shape::OUTLINE_ROUND_SIDES)-gons inscribed in a cylinder's caps or a cone's base (with its apex). Another
/// compound body (none is made today) is its bounding sphere.
fn rigid_3d(world: &World<DVec3>, r: &RigidState<DVec3>) -> RigidShape {
    let (moments, principal) = principal_frame(r.inertia);
    let pose = r.shape_pose(DVec3::ZERO, DQuat::IDENTITY);
    let back = principal.conjugate();
    let place = |p: DVec3| (back * pose.transform_point(p)).to_array();
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
        (None, [one]) => outlined(one, place),
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
