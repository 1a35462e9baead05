//! Random shape pairs and their parry counterparts, shared by the query tests (GJK, EPA).
#![allow(dead_code)]

use std::f64::consts::PI;

use kairos_geometry::math::{DQuat, DVec2, DVec3, Rot2, Vector};
use kairos_geometry::shape::{Pose, Shape};
use rand::Rng;
use rand_pcg::Pcg64;

/// The dimension-specific parts of the tests.
pub trait Dim: Vector {
    fn as3(self) -> DVec3;
    fn random_rotation(rng: &mut Pcg64) -> Self::Rotation;
    fn point_in_polygon(p: Self, verts: &[Self]) -> bool;
    fn random_angular(rng: &mut Pcg64) -> Self::Angular;
}

impl Dim for DVec2 {
    fn as3(self) -> DVec3 {
        self.extend(0.0)
    }
    fn random_rotation(rng: &mut Pcg64) -> Rot2 {
        Rot2::from_angle(rng.gen_range(-PI..PI))
    }
    fn random_angular(rng: &mut Pcg64) -> f64 {
        rng.gen_range(-1.0..1.0)
    }
    fn point_in_polygon(p: DVec2, v: &[DVec2]) -> bool {
        (0..v.len()).all(|i| (v[(i + 1) % v.len()] - v[i]).perp_dot(p - v[i]) >= 0.0)
    }
}

impl Dim for DVec3 {
    fn as3(self) -> DVec3 {
        self
    }
    fn random_rotation(rng: &mut Pcg64) -> DQuat {
        let q = DQuat::from_xyzw(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        );
        if q.length() < 0.1 {
            DQuat::IDENTITY
        } else {
            q.normalize()
        }
    }
    fn random_angular(rng: &mut Pcg64) -> DVec3 {
        point(rng, 1.0)
    }
    fn point_in_polygon(_: DVec3, _: &[DVec3]) -> bool {
        false
    }
}

// ---------------------------------------------------------------------------------------------
// Random shapes and poses

pub const KINDS_2D: [&str; 6] = [
    "ball", "cuboid", "capsule", "segment", "triangle", "polygon",
];
pub const KINDS_3D: [&str; 5] = ["ball", "cuboid", "capsule", "segment", "triangle"];

pub fn size(rng: &mut Pcg64) -> f64 {
    rng.gen_range(0.1..1.5)
}

pub fn point<V: Vector>(rng: &mut Pcg64, r: f64) -> V {
    V::from_array3([0; 3].map(|_| rng.gen_range(-r..r)))
}

pub fn random_shape<V: Vector>(kind: &str, rng: &mut Pcg64) -> Shape<V> {
    match kind {
        "ball" => Shape::ball(size(rng)),
        "cuboid" => Shape::cuboid(V::from_array3([0; 3].map(|_| size(rng)))),
        "capsule" => Shape::capsule(size(rng), size(rng)),
        "segment" => Shape::segment(point(rng, 1.5), point(rng, 1.5)),
        "triangle" => Shape::triangle(point(rng, 1.5), point(rng, 1.5), point(rng, 1.5)),
        "polygon" => Shape::convex_hull(&(0..8).map(|_| point(rng, 1.5)).collect::<Vec<V>>()),
        "cylinder" => Shape::cylinder(size(rng), size(rng)),
        "cone" => Shape::cone(size(rng), size(rng)),
        "polyhedron" => Shape::polyhedron(&(0..12).map(|_| point(rng, 1.5)).collect::<Vec<V>>()),
        _ => unreachable!(),
    }
    .unwrap()
}

pub fn random_pose<V: Dim>(rng: &mut Pcg64, spread: f64) -> Pose<V> {
    Pose::new(point(rng, spread), V::random_rotation(rng))
}

/// Shapes of kinds `ka` and `kb` at random poses within 3 of the origin.
pub fn random_pair<V: Dim>(
    ka: &str,
    kb: &str,
    rng: &mut Pcg64,
) -> (Shape<V>, Pose<V>, Shape<V>, Pose<V>) {
    let (a, b) = (random_shape::<V>(ka, rng), random_shape::<V>(kb, rng));
    (a, random_pose(rng, 3.0), b, random_pose(rng, 3.0))
}

/// `|x − y| ≤ rel · max(|x|, |y|) + abs`.
pub fn close(x: f64, y: f64, rel: f64, abs: f64) -> bool {
    (x - y).abs() <= rel * x.abs().max(y.abs()) + abs
}

// ---------------------------------------------------------------------------------------------
// parry

/// The shape in parry's shape module `$ps` (vectors converted by `$v`), with the arms of the
/// shapes of one dimension only (and the triangle, which differs) in `$extra`.
macro_rules! to_parry {
    ($ps:ident, $v:ident, $shape:expr, $($extra:tt)*) => {{
        use $ps as ps;
        let v = $v;
        let boxed: Box<dyn ps::Shape> = match $shape {
            Shape::Ball(b) => Box::new(ps::Ball::new(b.radius())),
            Shape::Cuboid(c) => Box::new(ps::Cuboid::new(v(c.half_extents()))),
            Shape::Capsule(c) => Box::new(ps::Capsule::new_y(c.half_height(), c.radius())),
            Shape::Segment(s) => {
                let [a, b] = s.vertices();
                Box::new(ps::Segment::new(v(a), v(b)))
            }
            $($extra)*
            _ => unreachable!(),
        };
        boxed
    }};
}

/// The same shape in parry 2D (conversions through plain numbers: parry has its own glam).
///
/// A 2D triangle is given to parry counter-clockwise: parry's 2D triangle queries assume it
/// (given clockwise, its intersection test and closest points can be wrong although its
/// distance is right).
pub fn parry2(shape: &Shape<DVec2>) -> Box<dyn parry2d_f64::shape::Shape> {
    use parry2d_f64::{math::Vector as P, shape as ps};
    let v = |p: DVec2| P::new(p.x, p.y);
    to_parry!(ps, v, shape,
        Shape::Triangle(t) => {
            let [a, b, c] = t.vertices();
            let (b, c) = if (b - a).perp_dot(c - a) < 0.0 { (c, b) } else { (b, c) };
            Box::new(ps::Triangle::new(v(a), v(b), v(c)))
        }
        Shape::ConvexPolygon(p) => Box::new(
            ps::ConvexPolygon::from_convex_polyline_unmodified(
                p.vertices().iter().map(|&p| v(p)).collect(),
            )
            .unwrap(),
        ),
    )
}

/// The same shape in parry 3D.
pub fn parry3(shape: &Shape<DVec3>) -> Box<dyn parry3d_f64::shape::Shape> {
    use parry3d_f64::{math::Vector as P, shape as ps};
    let v = |p: DVec3| P::new(p.x, p.y, p.z);
    to_parry!(ps, v, shape,
        Shape::Triangle(t) => {
            let [a, b, c] = t.vertices();
            Box::new(ps::Triangle::new(v(a), v(b), v(c)))
        }
        Shape::Cylinder(c) => Box::new(ps::Cylinder::new(c.half_height(), c.radius())),
        Shape::Cone(c) => Box::new(ps::Cone::new(c.half_height(), c.radius())),
        Shape::Polyhedron(h) => Box::new(
            ps::ConvexPolyhedron::from_convex_hull(
                &h.vertices().iter().map(|&p| v(p)).collect::<Vec<_>>(),
            )
            .unwrap(),
        ),
    )
}

pub fn parry_pose2(p: &Pose<DVec2>) -> parry2d_f64::math::Pose {
    use parry2d_f64::math::{Pose as P, Rotation, Vector};
    P::from_parts(
        Vector::new(p.position.x, p.position.y),
        Rotation::from_angle(p.rotation.angle()),
    )
}

pub fn parry_pose3(p: &Pose<DVec3>) -> parry3d_f64::math::Pose {
    use parry3d_f64::math::{Pose as P, Rotation, Vector};
    let q = p.rotation;
    P::from_parts(
        Vector::new(p.position.x, p.position.y, p.position.z),
        Rotation::from_xyzw(q.x, q.y, q.z, q.w),
    )
}
