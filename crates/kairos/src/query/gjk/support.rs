//! The support maps GJK runs on: a shape as a core grown by a radius ([`CoreSupport`]), and
//! the support point of the Minkowski difference of two cores, in the world frame or in the
//! first shape's frame (with `b`'s placement in it, [`Relative`]).

use super::Point;
use crate::math::{Rotation, Vector};
use crate::shape::{
    Ball, Capsule, Cone, ConvexPolygon, ConvexPolyhedron, Cuboid, Cylinder, FeatureId, Pose, Shape,
    Simplex, SupportMap,
};

/// A convex shape seen by GJK: a core (a convex shape given by its support function) grown by
/// a radius, `shape = core ⊕ ball(radius)`.
///
/// The provided methods make the whole shape its own core with radius zero, which is right for
/// every shape; [`Ball`] (a point core) and [`Capsule`] (a segment core) override them so that
/// GJK on them is exact and fast (see the [module docs](super)). A shape type of another crate
/// opts in with an empty `impl CoreSupport<V> for MyShape {}`.
pub trait CoreSupport<V: Vector>: SupportMap<V> {
    /// A farthest point of the core along `d`, in the local frame, and its feature.
    #[inline]
    fn local_core_support(&self, d: V) -> (V, FeatureId) {
        self.local_support_feature(d)
    }
    /// The radius the core is grown by (`>= 0`).
    #[inline]
    fn core_radius(&self) -> f64 {
        0.0
    }
    /// The shape as a [`Shape`] value, for the closed forms [`distance`](fn@super::distance) has
    /// for some pairs of its variants (see the [module docs](super#closed-forms)); `None`, the
    /// default, runs GJK.
    #[inline]
    fn as_shape(&self) -> Option<&Shape<V>> {
        None
    }
}

impl<V: Vector> CoreSupport<V> for Ball {
    /// The centre.
    #[inline]
    fn local_core_support(&self, _d: V) -> (V, FeatureId) {
        (V::ZERO, FeatureId::None)
    }
    #[inline]
    fn core_radius(&self) -> f64 {
        self.radius()
    }
}

impl<V: Vector> CoreSupport<V> for Capsule {
    /// The end of the inner segment on the side of `d` (`Vertex(1)` at `+h`, `Vertex(0)` at
    /// `−h`; the `+` end when `d_y = 0`, as the capsule's own support).
    #[inline]
    fn local_core_support(&self, d: V) -> (V, FeatureId) {
        if d.comp(1) < 0.0 {
            (V::unit(1) * -self.half_height(), FeatureId::Vertex(0))
        } else {
            (V::unit(1) * self.half_height(), FeatureId::Vertex(1))
        }
    }
    #[inline]
    fn core_radius(&self) -> f64 {
        self.radius()
    }
}

impl<V: Vector> CoreSupport<V> for Cuboid<V> {}
impl<V: Vector, const N: usize> CoreSupport<V> for Simplex<V, N> {}
impl<V: Vector> CoreSupport<V> for ConvexPolygon<V> {}
impl<V: Vector> CoreSupport<V> for Cylinder<V> {}
impl<V: Vector> CoreSupport<V> for Cone<V> {}
impl<V: Vector> CoreSupport<V> for ConvexPolyhedron<V> {}

impl<V: Vector> CoreSupport<V> for Shape<V> {
    #[inline]
    fn local_core_support(&self, d: V) -> (V, FeatureId) {
        match self {
            Shape::Ball(s) => CoreSupport::<V>::local_core_support(s, d),
            Shape::Capsule(s) => CoreSupport::<V>::local_core_support(s, d),
            // No round core: the core is the shape.
            Shape::Cuboid(_)
            | Shape::Segment(_)
            | Shape::Triangle(_)
            | Shape::ConvexPolygon(_)
            | Shape::Cylinder(_)
            | Shape::Cone(_)
            | Shape::Polyhedron(_) => self.local_support_feature(d),
        }
    }
    #[inline]
    fn core_radius(&self) -> f64 {
        match self {
            Shape::Ball(s) => s.radius(),
            Shape::Capsule(s) => s.radius(),
            Shape::Cuboid(_)
            | Shape::Segment(_)
            | Shape::Triangle(_)
            | Shape::ConvexPolygon(_)
            | Shape::Cylinder(_)
            | Shape::Cone(_)
            | Shape::Polyhedron(_) => 0.0,
        }
    }
    #[inline]
    fn as_shape(&self) -> Option<&Shape<V>> {
        Some(self)
    }
}

/// The support point of `A − B` along `d` (world frame): `s_A(d) − s_B(−d)` on the cores.
#[inline]
pub(in crate::query) fn support<
    V: Vector,
    A: CoreSupport<V> + ?Sized,
    B: CoreSupport<V> + ?Sized,
>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    d: V,
) -> Point<V> {
    let (local_a, id_a) = a.local_core_support(pose_a.rotation.inverse_rotate(d));
    let (local_b, id_b) = b.local_core_support(pose_b.rotation.inverse_rotate(-d));
    let pa = pose_a.transform_point(local_a);
    let pb = pose_b.transform_point(local_b);
    Point {
        w: pa - pb,
        a: pa,
        b: pb,
        local_a,
        local_b,
        id_a,
        id_b,
    }
}

/// `b`'s placement in `a`'s local frame. In 3D one composed rotation (a quaternion product)
/// saves a rotation per support point; in 2D composing costs a `sin_cos` ([`Rot2`] composes
/// by angles), more than the two plane rotations it would save, so both are kept.
///
/// [`Rot2`]: crate::math::Rot2
pub(super) struct Relative<V: Vector> {
    /// `R_a^T R_b` (3D only).
    composed: V::Rotation,
    rot_a: V::Rotation,
    rot_b: V::Rotation,
    /// `R_a^T (x_b − x_a)`.
    pub(super) offset: V,
}

impl<V: Vector> Relative<V> {
    pub(super) fn new(pose_a: &Pose<V>, pose_b: &Pose<V>) -> Self {
        let composed = if V::DIM == 3 {
            pose_a.rotation.inverse().compose(pose_b.rotation)
        } else {
            V::Rotation::IDENTITY
        };
        Self {
            composed,
            rot_a: pose_a.rotation,
            rot_b: pose_b.rotation,
            offset: pose_a
                .rotation
                .inverse_rotate(pose_b.position - pose_a.position),
        }
    }
    /// A direction of `a`'s frame in `b`'s frame.
    #[inline]
    fn direction_to_b(&self, d: V) -> V {
        if V::DIM == 3 {
            self.composed.inverse_rotate(d)
        } else {
            self.rot_b.inverse_rotate(self.rot_a.rotate(d))
        }
    }
    /// A point of `b`'s frame in `a`'s frame.
    #[inline]
    pub(super) fn point_from_b(&self, x: V) -> V {
        let r = if V::DIM == 3 {
            self.composed.rotate(x)
        } else {
            self.rot_a.inverse_rotate(self.rot_b.rotate(x))
        };
        r + self.offset
    }
}

/// The support point of `A − B` along `d` in `a`'s local frame.
#[inline]
pub(super) fn support_in_a<V: Vector, A: CoreSupport<V> + ?Sized, B: CoreSupport<V> + ?Sized>(
    a: &A,
    b: &B,
    rel: &Relative<V>,
    d: V,
) -> Point<V> {
    let (local_a, id_a) = a.local_core_support(d);
    let (local_b, id_b) = b.local_core_support(rel.direction_to_b(-d));
    let pb = rel.point_from_b(local_b);
    Point {
        w: local_a - pb,
        a: local_a,
        b: pb,
        local_a,
        local_b,
        id_a,
        id_b,
    }
}
