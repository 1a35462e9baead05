//! The support maps GJK runs on: a shape as a core grown by a radius ([`CoreSupport`]), and
//! the support point of the Minkowski difference of two cores, in the world frame or in the
//! first shape's frame (with `b`'s placement in it, [`Relative`]).

use super::Point;
use crate::math::{Rotation, Vector};
pub use crate::shape::CoreSupport;
use crate::shape::Pose;

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
