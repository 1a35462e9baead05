//! Poses and rigid motions.
//!
//! A [`RigidMotion`] is the motion model of Buddingh' (*Accurate and Efficient Continuous Collision
//! Detection*): constant linear velocity plus constant angular velocity about an axis through
//! the centre of mass. Like every prediction of Kairos, [`RigidMotion::pose_at`] is a pure function
//! of the stored state.

use crate::math::{Rotation, Vector};

/// A rigid placement: `p ↦ R p + x`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose<V: Vector> {
    /// The translation `x`: where the local origin is.
    pub position: V,
    /// The rotation `R` of the local axes.
    pub rotation: V::Rotation,
}

impl<V: Vector> Default for Pose<V> {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl<V: Vector> Pose<V> {
    /// The identity placement.
    pub const IDENTITY: Self = Self {
        position: V::ZERO,
        rotation: V::Rotation::IDENTITY,
    };
    /// The placement `R p + x` with `x = position`, `R = rotation`.
    #[inline]
    #[must_use]
    pub fn new(position: V, rotation: V::Rotation) -> Self {
        Self { position, rotation }
    }
    /// A translation only.
    #[inline]
    #[must_use]
    pub fn from_position(position: V) -> Self {
        Self::new(position, V::Rotation::IDENTITY)
    }
    /// `R p + x`: a local point in the world frame.
    #[inline]
    #[must_use]
    pub fn transform_point(&self, p: V) -> V {
        self.rotation.rotate(p) + self.position
    }
    /// `R v`: a local direction in the world frame.
    #[inline]
    #[must_use]
    pub fn transform_vector(&self, v: V) -> V {
        self.rotation.rotate(v)
    }
    /// `R^T (p - x)`: a world point in the local frame.
    #[inline]
    #[must_use]
    pub fn inverse_transform_point(&self, p: V) -> V {
        self.rotation.inverse_rotate(p - self.position)
    }
    /// `R^T v`: a world direction in the local frame.
    #[inline]
    #[must_use]
    pub fn inverse_transform_vector(&self, v: V) -> V {
        self.rotation.inverse_rotate(v)
    }
    /// `self ∘ inner`: places by `inner`, then by `self` (a shape at `inner` in a body frame,
    /// the body at `self`).
    #[inline]
    #[must_use]
    pub fn compose(&self, inner: &Self) -> Self {
        Self::new(
            self.transform_point(inner.position),
            self.rotation.compose(inner.rotation),
        )
    }
    /// The inverse placement `p ↦ R^T (p - x)`.
    #[inline]
    #[must_use]
    pub fn inverse(&self) -> Self {
        Self::new(
            self.rotation.inverse_rotate(-self.position),
            self.rotation.inverse(),
        )
    }
    /// True when the position and the rotation are finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.position.is_finite() && self.rotation.is_finite()
    }
}

/// A rigid motion: the pose of the centre of mass at `time`, a constant linear velocity and a
/// constant angular velocity (world frame) about the centre of mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidMotion<V: Vector> {
    /// The time of `pose`.
    pub time: f64,
    /// The pose of the body frame (origin at the centre of mass) at `time`.
    pub pose: Pose<V>,
    /// Velocity of the centre of mass.
    pub linear_velocity: V,
    /// Angular velocity, world frame.
    pub angular_velocity: V::Angular,
}

/// Why a motion was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MotionError {
    /// A time, position, rotation or velocity is infinite or NaN.
    #[error("the {0} of a motion must be finite")]
    NonFinite(&'static str),
}

impl<V: Vector> RigidMotion<V> {
    /// The motion through `pose` at `time` with the given velocities, all checked finite.
    pub fn new(
        time: f64,
        pose: Pose<V>,
        linear_velocity: V,
        angular_velocity: V::Angular,
    ) -> Result<Self, MotionError> {
        let checks = [
            (time.is_finite(), "time"),
            (pose.position.is_finite(), "position"),
            (pose.rotation.is_finite(), "rotation"),
            (linear_velocity.is_finite(), "linear velocity"),
            (V::angular_is_finite(angular_velocity), "angular velocity"),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, what)) => Err(MotionError::NonFinite(what)),
            None => Ok(Self {
                time,
                pose,
                linear_velocity,
                angular_velocity,
            }),
        }
    }
    /// A motion at rest at `pose` from `time`.
    #[must_use]
    pub fn at_rest(time: f64, pose: Pose<V>) -> Self {
        Self {
            time,
            pose,
            linear_velocity: V::ZERO,
            angular_velocity: V::Angular::default(),
        }
    }
    /// The pose at `t` (before or after [`RigidMotion::time`]): position `x + v (t - t0)`, rotation
    /// integrated exactly ([`Vector::integrate_rotation`]). A pure function of the stored
    /// state.
    #[inline]
    #[must_use]
    pub fn pose_at(&self, t: f64) -> Pose<V> {
        let dt = t - self.time;
        Pose::new(
            self.pose.position + self.linear_velocity * dt,
            V::integrate_rotation(self.pose.rotation, self.angular_velocity, dt),
        )
    }
    /// The same motion restated at `t`: its pose at `t`, the same velocities.
    #[must_use]
    pub fn advanced_to(&self, t: f64) -> Self {
        Self {
            time: t,
            pose: self.pose_at(t),
            ..*self
        }
    }
    /// The velocity `v + ω × r` of the body point at world offset `r` from the centre of
    /// mass.
    #[inline]
    #[must_use]
    pub fn velocity_at(&self, r: V) -> V {
        self.linear_velocity + V::angular_cross(self.angular_velocity, r)
    }
    /// `|ω|`.
    #[inline]
    #[must_use]
    pub fn angular_speed(&self) -> f64 {
        V::angular_speed(self.angular_velocity)
    }
}
