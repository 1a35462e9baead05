//! The small dimension abstraction every physics routine is written against.
//!
//! Kairos keeps one code path for 2D and 3D: contact times, responses, bounding boxes and broad
//! phases are generic over [`Vector`], implemented for glam's `DVec2` and `DVec3`. Only the
//! operations the physics needs are in the trait, so it stays small and monomorphises to plain
//! glam code.
//!
//! Rigid motion adds three associated types, all unused by the ball simulator:
//! [`Vector::Rotation`] (2D [`Rot2`], 3D glam's `DQuat`, both behind the [`Rotation`] trait),
//! [`Vector::Angular`] (an angular velocity: 2D `f64`, 3D `DVec3`, in the world frame) and
//! [`Vector::Inertia`] (2D `f64`, 3D `DMat3`). The rotation after a time `t` at constant angular
//! velocity ω is integrated exactly: 2D `θ0 + ω t`, 3D the exponential map
//! `q(t) = exp(ω t / 2) q0`, the solution of `q' = ½ ω q` for constant ω.

use std::fmt::Debug;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

pub use glam::{DMat3, DQuat, DVec2, DVec3};

pub mod free_rotation;
pub use free_rotation::FreeRotation;

/// A point or direction in 2D or 3D space with `f64` components.
pub trait Vector:
    Copy
    + Debug
    + PartialEq
    + Default
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<f64, Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
{
    /// Number of components (2 or 3).
    const DIM: usize;
    /// The zero vector.
    const ZERO: Self;
    /// Dot product.
    fn dot(self, other: Self) -> f64;
    /// Component `i` (`i < DIM`).
    fn comp(self, i: usize) -> f64;
    /// Component-wise minimum.
    fn min(self, other: Self) -> Self;
    /// Component-wise maximum.
    fn max(self, other: Self) -> Self;
    /// A vector with every component equal to `v`.
    fn splat(v: f64) -> Self;
    /// The unit vector along `axis` (`axis < DIM`).
    fn unit(axis: usize) -> Self;
    /// True when every component of `self` is `<=` the matching one of `other`.
    fn all_le(self, other: Self) -> bool;
    /// True when every component is finite.
    fn is_finite(self) -> bool;
    /// Builds a vector from exactly `DIM` values; `None` for any other length.
    fn try_from_slice(s: &[f64]) -> Option<Self>;
    /// The components padded with zeros to three (the fixed width files store).
    fn to_array3(self) -> [f64; 3];
    /// The vector of the first `DIM` of three components (the inverse of
    /// [`Vector::to_array3`]; a third component is dropped in 2D).
    fn from_array3(a: [f64; 3]) -> Self;
    /// The components as a `Vec` of length `DIM`.
    fn to_vec(self) -> Vec<f64> {
        self.to_array3()[..Self::DIM].to_vec()
    }
    /// Squared Euclidean length.
    #[inline]
    fn length_squared(self) -> f64 {
        self.dot(self)
    }
    /// Euclidean length.
    #[inline]
    fn length(self) -> f64 {
        self.dot(self).sqrt()
    }
    /// Largest absolute component.
    fn max_abs(self) -> f64 {
        let a = self.to_array3();
        a[0].abs().max(a[1].abs()).max(a[2].abs())
    }

    /// An orientation: 2D [`Rot2`], 3D a unit `DQuat`.
    type Rotation: Rotation<Self>;
    /// An angular velocity in the world frame: 2D `f64` (counter-clockwise positive), 3D
    /// `DVec3` (axis times rate, right-handed).
    type Angular: Copy + Debug + PartialEq + Default + Send + Sync + 'static;
    /// An inertia tensor about the centre of mass in body axes: 2D `f64` (about the normal of
    /// the plane), 3D `DMat3`.
    type Inertia: Copy + Debug + PartialEq + Send + Sync + 'static + Add<Output = Self::Inertia>;

    /// The rotation `t` after `r0` at constant angular velocity `omega`: 2D `θ0 + ω t`,
    /// 3D `exp(ω t / 2) q0` (exact for constant ω, no NaN for zero or tiny ω).
    ///
    /// When the angle `|ω t|` is not a finite `f64` the rotation is meaningless and `r0` is
    /// returned unchanged (never NaN).
    fn integrate_rotation(r0: Self::Rotation, omega: Self::Angular, t: f64) -> Self::Rotation;
    /// The rate `|ω|` in radians per unit time.
    fn angular_speed(omega: Self::Angular) -> f64;
    /// True when every component of `omega` is finite.
    fn angular_is_finite(omega: Self::Angular) -> bool;
    /// The angular velocity as three numbers (the fixed width files store): 2D `[ω, 0, 0]`,
    /// 3D `[ωx, ωy, ωz]`.
    fn angular_to_array3(omega: Self::Angular) -> [f64; 3];
    /// The angular velocity of [`Vector::angular_to_array3`]'s numbers.
    fn angular_from_array3(w: [f64; 3]) -> Self::Angular;
    /// The velocity `ω × r` of a point at offset `r` from the rotation centre (2D:
    /// `ω perp(r)` with `perp(x, y) = (-y, x)`).
    fn angular_cross(omega: Self::Angular, r: Self) -> Self;
    /// The inertia tensor of a body whose second moments `∫ x_i² dm` about its centre of mass
    /// along the body axes are `s` and whose products of inertia are zero. In 2D only the sum
    /// `∫ |x|² dm` enters, so any `s` whose components are the diagonal second moments works.
    fn inertia_from_second_moments(s: Self) -> Self::Inertia;
    /// The inertia tensor `tr(C) I − C` of a body whose second-moment matrix about its centre
    /// of mass is `C = ∫ x xᵀ dm` (3×3, rows; products of inertia included). In 2D only the
    /// upper-left 2×2 block enters: `C₀₀ + C₁₁`.
    fn inertia_from_second_moment_matrix(c: [[f64; 3]; 3]) -> Self::Inertia;

    /// `r × n`, the angular quantity of a force `n` applied at offset `r` (2D: the scalar
    /// `r.x n.y − r.y n.x`).
    fn cross_angular(r: Self, n: Self) -> Self::Angular;
    /// The dot product of two angular quantities.
    fn angular_dot(a: Self::Angular, b: Self::Angular) -> f64;
    /// `a + b s`.
    fn angular_add_scaled(a: Self::Angular, b: Self::Angular, s: f64) -> Self::Angular;
    /// `R I Rᵀ w`: a body-frame tensor `I` applied to a world-frame angular quantity `w`, with
    /// the body's rotation `R` (the angular momentum `L = R I Rᵀ ω` of a body spinning at
    /// `ω`, or, with the inverse tensor, the spin `ω` of an angular momentum).
    fn inertia_apply(
        rotation: Self::Rotation,
        inertia: Self::Inertia,
        w: Self::Angular,
    ) -> Self::Angular;
    /// `R I Rᵀ`: the body-frame tensor `I` in the world frame, for [`Vector::inertia_mul`]
    /// (one product per body where many vectors meet the same tensor).
    fn inertia_to_world(rotation: Self::Rotation, inertia: Self::Inertia) -> Self::Inertia;
    /// A world-frame tensor applied to `w` (`inertia_apply` is
    /// `inertia_mul(inertia_to_world(R, I), w)`).
    fn inertia_mul(inertia: Self::Inertia, w: Self::Angular) -> Self::Angular;
    /// The inverse tensor; `None` when it is not positive definite and finite, or (3D) not a
    /// body's: its principal moments break the triangle inequality ([`moments_are_a_bodys`]).
    /// A 2D body's one moment may be any positive number.
    fn inertia_inverse(inertia: Self::Inertia) -> Option<Self::Inertia>;
    /// True when every entry of the tensor is finite.
    fn inertia_is_finite(inertia: Self::Inertia) -> bool;

    /// A body's torque-free rotation from a stored state: everything
    /// [`Vector::spin_at`] needs, computed once when the state is stored.
    type Spin: Clone + Debug + PartialEq + Send + Sync + 'static;
    /// The torque-free rotation of a body with inertia `inertia` (body axes, about the centre
    /// of mass) at rotation `rotation` spinning at `omega` (world frame). 2D, and 3D bodies
    /// whose inertia is isotropic: constant angular velocity. 3D bodies otherwise: see
    /// [`FreeRotation`].
    fn spin(inertia: Self::Inertia, rotation: Self::Rotation, omega: Self::Angular) -> Self::Spin;
    /// The rotation and angular velocity (world frame) `dt` after the stored state: a pure
    /// function of the stored state and `dt`, never NaN.
    fn spin_at(spin: &Self::Spin, dt: f64) -> (Self::Rotation, Self::Angular);
    /// A bound on the angular speed `|ω(t)|` at every time (constant for constant `ω`).
    fn spin_bound(spin: &Self::Spin) -> f64;
    /// A bound on the angular acceleration `|ω̇(t)|` at every time (0 for constant `ω`).
    fn spin_acceleration_bound(spin: &Self::Spin) -> f64;
}

/// Why [`Rotation::try_from_slice`] refused a rotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RotationError {
    /// 2D takes one angle, 3D a quaternion of four values.
    #[error("a rotation needs {expected} values, got {got}")]
    WrongLength {
        /// Values a rotation of this dimension takes (1 or 4).
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// A value is infinite or NaN.
    #[error("rotation values must be finite")]
    NonFinite,
    /// The quaternion `[w, x, y, z]` is zero and has no direction to normalise.
    #[error("a rotation quaternion must not be zero")]
    ZeroQuaternion,
}

/// An orientation of the space of `V`: the operations poses and support functions need.
///
/// See also [`Vector::integrate_rotation`] for rotations that change in time.
pub trait Rotation<V>: Copy + Debug + PartialEq + Send + Sync + 'static {
    /// No rotation.
    const IDENTITY: Self;
    /// `R v`.
    fn rotate(self, v: V) -> V;
    /// `R^T v`, the inverse rotation.
    fn inverse_rotate(self, v: V) -> V;
    /// `self ∘ inner`: the rotation that applies `inner` first, then `self`.
    fn compose(self, inner: Self) -> Self;
    /// `R^T`.
    fn inverse(self) -> Self;
    /// True when every stored value is finite.
    fn is_finite(self) -> bool;
    /// A rotation from the numbers a user writes: 2D one angle in radians, 3D a quaternion
    /// `[w, x, y, z]` (normalised here; zero or non-finite refused).
    fn try_from_slice(s: &[f64]) -> Result<Self, RotationError>;
    /// The rotation as four numbers (the fixed width files store): 2D `[angle, 0, 0, 0]`,
    /// 3D the quaternion `[w, x, y, z]`; [`Rotation::from_array4`] gives back the same rotation bit for bit.
    fn to_array4(self) -> [f64; 4];
    /// The rotation of [`Rotation::to_array4`]'s numbers (taken as they are: not normalised).
    fn from_array4(q: [f64; 4]) -> Self;
}

/// A 2D rotation by `angle` radians counter-clockwise.
///
/// It stores the angle and its cosine and sine, always `angle.sin_cos()` of the stored angle:
/// rotating a vector costs four products, and integrating a constant angular velocity is the
/// exact sum `θ0 + ω t` followed by one `sin_cos`, which a unit complex number alone could only
/// approximate by repeated products. Composition adds the angles (one `sin_cos`). The angle is
/// not reduced to `(-π, π]`, so two rotations compare equal exactly when their angles do.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rot2 {
    angle: f64,
    cos: f64,
    sin: f64,
}

impl Rot2 {
    /// The rotation by `angle` radians (counter-clockwise). A non-finite angle gives a
    /// non-finite rotation ([`Rotation::is_finite`] is false); user input goes through
    /// [`Rotation::try_from_slice`], which refuses it.
    #[inline]
    #[must_use]
    pub fn from_angle(angle: f64) -> Self {
        let (sin, cos) = angle.sin_cos();
        Self { angle, cos, sin }
    }
    /// The angle in radians (not reduced).
    #[inline]
    #[must_use]
    pub fn angle(self) -> f64 {
        self.angle
    }
    /// `cos(angle)`.
    #[inline]
    #[must_use]
    pub fn cos(self) -> f64 {
        self.cos
    }
    /// `sin(angle)`.
    #[inline]
    #[must_use]
    pub fn sin(self) -> f64 {
        self.sin
    }
}

impl Rotation<DVec2> for Rot2 {
    const IDENTITY: Self = Rot2 {
        angle: 0.0,
        cos: 1.0,
        sin: 0.0,
    };
    #[inline]
    fn rotate(self, v: DVec2) -> DVec2 {
        DVec2::new(
            self.cos * v.x - self.sin * v.y,
            self.sin * v.x + self.cos * v.y,
        )
    }
    #[inline]
    fn inverse_rotate(self, v: DVec2) -> DVec2 {
        DVec2::new(
            self.cos * v.x + self.sin * v.y,
            -self.sin * v.x + self.cos * v.y,
        )
    }
    #[inline]
    fn compose(self, inner: Self) -> Self {
        Rot2::from_angle(self.angle + inner.angle)
    }
    #[inline]
    fn inverse(self) -> Self {
        Rot2 {
            angle: -self.angle,
            cos: self.cos,
            sin: -self.sin,
        }
    }
    #[inline]
    fn is_finite(self) -> bool {
        self.angle.is_finite()
    }
    #[inline]
    fn to_array4(self) -> [f64; 4] {
        [self.angle, 0.0, 0.0, 0.0]
    }
    #[inline]
    fn from_array4(q: [f64; 4]) -> Self {
        // `sin_cos` of the same angle: the same bits as the stored rotation.
        Rot2::from_angle(q[0])
    }
    fn try_from_slice(s: &[f64]) -> Result<Self, RotationError> {
        match s {
            [a] if a.is_finite() => Ok(Rot2::from_angle(*a)),
            [_] => Err(RotationError::NonFinite),
            _ => Err(RotationError::WrongLength {
                expected: 1,
                got: s.len(),
            }),
        }
    }
}

impl Rotation<DVec3> for DQuat {
    const IDENTITY: Self = DQuat::IDENTITY;
    #[inline]
    fn rotate(self, v: DVec3) -> DVec3 {
        self * v
    }
    #[inline]
    fn inverse_rotate(self, v: DVec3) -> DVec3 {
        self.conjugate() * v
    }
    #[inline]
    fn compose(self, inner: Self) -> Self {
        self * inner
    }
    #[inline]
    fn inverse(self) -> Self {
        self.conjugate()
    }
    #[inline]
    fn is_finite(self) -> bool {
        DQuat::is_finite(self)
    }
    #[inline]
    fn to_array4(self) -> [f64; 4] {
        [self.w, self.x, self.y, self.z]
    }
    #[inline]
    fn from_array4(q: [f64; 4]) -> Self {
        DQuat::from_xyzw(q[1], q[2], q[3], q[0])
    }
    fn try_from_slice(s: &[f64]) -> Result<Self, RotationError> {
        let [w, x, y, z] = *s else {
            return Err(RotationError::WrongLength {
                expected: 4,
                got: s.len(),
            });
        };
        if !s.iter().all(|c| c.is_finite()) {
            return Err(RotationError::NonFinite);
        }
        // Scaling by the largest component first keeps tiny quaternions from underflowing
        // to a zero length.
        let m = s.iter().fold(0.0f64, |m, c| m.max(c.abs()));
        if m == 0.0 {
            return Err(RotationError::ZeroQuaternion);
        }
        Ok(DQuat::from_xyzw(x / m, y / m, z / m, w / m).normalize())
    }
}

impl Vector for DVec2 {
    const DIM: usize = 2;
    const ZERO: Self = DVec2::ZERO;
    #[inline]
    fn dot(self, other: Self) -> f64 {
        self.x * other.x + self.y * other.y
    }
    #[inline]
    fn comp(self, i: usize) -> f64 {
        self[i]
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        DVec2::min(self, other)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        DVec2::max(self, other)
    }
    #[inline]
    fn splat(v: f64) -> Self {
        DVec2::splat(v)
    }
    #[inline]
    fn unit(axis: usize) -> Self {
        [DVec2::X, DVec2::Y][axis]
    }
    #[inline]
    fn all_le(self, other: Self) -> bool {
        self.x <= other.x && self.y <= other.y
    }
    #[inline]
    fn is_finite(self) -> bool {
        DVec2::is_finite(self)
    }
    fn try_from_slice(s: &[f64]) -> Option<Self> {
        match s {
            [x, y] => Some(DVec2::new(*x, *y)),
            _ => None,
        }
    }
    #[inline]
    fn to_array3(self) -> [f64; 3] {
        [self.x, self.y, 0.0]
    }
    #[inline]
    fn from_array3(a: [f64; 3]) -> Self {
        DVec2::new(a[0], a[1])
    }

    type Rotation = Rot2;
    type Angular = f64;
    type Inertia = f64;
    #[inline]
    fn integrate_rotation(r0: Rot2, omega: f64, t: f64) -> Rot2 {
        let angle = r0.angle + omega * t;
        if angle.is_finite() {
            Rot2::from_angle(angle)
        } else {
            r0
        }
    }
    #[inline]
    fn angular_speed(omega: f64) -> f64 {
        omega.abs()
    }
    #[inline]
    fn angular_is_finite(omega: f64) -> bool {
        omega.is_finite()
    }
    #[inline]
    fn angular_to_array3(omega: f64) -> [f64; 3] {
        [omega, 0.0, 0.0]
    }
    #[inline]
    fn angular_from_array3(w: [f64; 3]) -> f64 {
        w[0]
    }
    #[inline]
    fn angular_cross(omega: f64, r: DVec2) -> DVec2 {
        DVec2::new(-omega * r.y, omega * r.x)
    }
    #[inline]
    fn inertia_from_second_moments(s: DVec2) -> f64 {
        s.x + s.y
    }
    #[inline]
    fn inertia_from_second_moment_matrix(c: [[f64; 3]; 3]) -> f64 {
        c[0][0] + c[1][1]
    }
    #[inline]
    fn cross_angular(r: DVec2, n: DVec2) -> f64 {
        r.x * n.y - r.y * n.x
    }
    #[inline]
    fn angular_dot(a: f64, b: f64) -> f64 {
        a * b
    }
    #[inline]
    fn angular_add_scaled(a: f64, b: f64, s: f64) -> f64 {
        a + b * s
    }
    #[inline]
    fn inertia_apply(_rotation: Rot2, inertia: f64, w: f64) -> f64 {
        inertia * w
    }
    #[inline]
    fn inertia_to_world(_rotation: Rot2, inertia: f64) -> f64 {
        inertia
    }
    #[inline]
    fn inertia_mul(inertia: f64, w: f64) -> f64 {
        inertia * w
    }
    fn inertia_is_finite(inertia: f64) -> bool {
        inertia.is_finite()
    }
    fn inertia_inverse(inertia: f64) -> Option<f64> {
        let inv = 1.0 / inertia;
        (inertia > 0.0 && inv.is_finite() && inv > 0.0).then_some(inv)
    }
    type Spin = (Rot2, f64);
    #[inline]
    fn spin(_inertia: f64, rotation: Rot2, omega: f64) -> (Rot2, f64) {
        (rotation, omega)
    }
    #[inline]
    fn spin_at(spin: &(Rot2, f64), dt: f64) -> (Rot2, f64) {
        (Self::integrate_rotation(spin.0, spin.1, dt), spin.1)
    }
    #[inline]
    fn spin_bound(spin: &(Rot2, f64)) -> f64 {
        spin.1.abs()
    }
    #[inline]
    fn spin_acceleration_bound(_spin: &(Rot2, f64)) -> f64 {
        0.0
    }
}

impl Vector for DVec3 {
    const DIM: usize = 3;
    const ZERO: Self = DVec3::ZERO;
    #[inline]
    fn dot(self, other: Self) -> f64 {
        self.x * other.x + self.y * other.y + self.z * other.z
    }
    #[inline]
    fn comp(self, i: usize) -> f64 {
        self[i]
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        DVec3::min(self, other)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        DVec3::max(self, other)
    }
    #[inline]
    fn splat(v: f64) -> Self {
        DVec3::splat(v)
    }
    #[inline]
    fn unit(axis: usize) -> Self {
        [DVec3::X, DVec3::Y, DVec3::Z][axis]
    }
    #[inline]
    fn all_le(self, other: Self) -> bool {
        self.x <= other.x && self.y <= other.y && self.z <= other.z
    }
    #[inline]
    fn is_finite(self) -> bool {
        DVec3::is_finite(self)
    }
    fn try_from_slice(s: &[f64]) -> Option<Self> {
        match s {
            [x, y, z] => Some(DVec3::new(*x, *y, *z)),
            _ => None,
        }
    }
    #[inline]
    fn to_array3(self) -> [f64; 3] {
        [self.x, self.y, self.z]
    }
    #[inline]
    fn from_array3(a: [f64; 3]) -> Self {
        DVec3::from_array(a)
    }

    type Rotation = DQuat;
    type Angular = DVec3;
    type Inertia = DMat3;
    fn integrate_rotation(q0: DQuat, omega: DVec3, t: f64) -> DQuat {
        // exp(θ / 2) for the rotation vector θ = ω t is (cos φ, sin φ θ / |θ|) with
        // φ = |θ| / 2, written as (cos φ, sinc φ · θ / 2) so that |θ| → 0 needs no division.
        let theta = omega * t;
        let phi = 0.5 * theta.length();
        if !theta.is_finite() || !phi.is_finite() {
            return q0;
        }
        // sinc φ = 1 - φ²/6 + φ⁴/120 - ...: below 1e-4 the first two terms are exact to 1e-18.
        let sinc = if phi < 1e-4 {
            1.0 - phi * phi / 6.0
        } else {
            phi.sin() / phi
        };
        let v = theta * (0.5 * sinc);
        (DQuat::from_xyzw(v.x, v.y, v.z, phi.cos()) * q0).normalize()
    }
    #[inline]
    fn angular_speed(omega: DVec3) -> f64 {
        omega.length()
    }
    #[inline]
    fn angular_is_finite(omega: DVec3) -> bool {
        omega.is_finite()
    }
    #[inline]
    fn angular_to_array3(omega: DVec3) -> [f64; 3] {
        omega.to_array()
    }
    #[inline]
    fn angular_from_array3(w: [f64; 3]) -> DVec3 {
        DVec3::from_array(w)
    }
    #[inline]
    fn angular_cross(omega: DVec3, r: DVec3) -> DVec3 {
        omega.cross(r)
    }
    #[inline]
    fn inertia_from_second_moments(s: DVec3) -> DMat3 {
        DMat3::from_diagonal(DVec3::new(s.y + s.z, s.x + s.z, s.x + s.y))
    }
    #[inline]
    fn inertia_from_second_moment_matrix(c: [[f64; 3]; 3]) -> DMat3 {
        let trace = c[0][0] + c[1][1] + c[2][2];
        // Symmetric, so rows and columns are the same.
        DMat3::from_cols_array_2d(&c.map(|row| row.map(|x| -x)))
            + DMat3::from_diagonal(DVec3::splat(trace))
    }
    #[inline]
    fn cross_angular(r: DVec3, n: DVec3) -> DVec3 {
        r.cross(n)
    }
    #[inline]
    fn angular_dot(a: DVec3, b: DVec3) -> f64 {
        a.dot(b)
    }
    #[inline]
    fn angular_add_scaled(a: DVec3, b: DVec3, s: f64) -> DVec3 {
        a + b * s
    }
    #[inline]
    fn inertia_apply(rotation: DQuat, inertia: DMat3, w: DVec3) -> DVec3 {
        rotation * (inertia * (rotation.inverse() * w))
    }
    #[inline]
    fn inertia_to_world(rotation: DQuat, inertia: DMat3) -> DMat3 {
        let r = DMat3::from_quat(rotation);
        r * inertia * r.transpose()
    }
    #[inline]
    fn inertia_mul(inertia: DMat3, w: DVec3) -> DVec3 {
        inertia * w
    }
    fn inertia_is_finite(inertia: DMat3) -> bool {
        inertia.is_finite()
    }
    fn inertia_inverse(inertia: DMat3) -> Option<DMat3> {
        if !inertia.is_finite() {
            return None;
        }
        // Tested and inverted at unit scale: a ball of radius 1e-21 has moments near 1e-105,
        // whose determinant (1e-315) would underflow, and a large body's would overflow.
        let (m, scale) = unit_scaled(inertia)?;
        // Positive definite: the leading principal minors are positive (Sylvester).
        let minor2 = m.x_axis.x * m.y_axis.y - m.x_axis.y * m.y_axis.x;
        let det = m.determinant();
        if !(m.x_axis.x > 0.0 && minor2 > 0.0 && det > 0.0) {
            return None;
        }
        if !moments_are_a_bodys(principal_moments(m)) {
            return None;
        }
        let inv = m.inverse() * (1.0 / scale);
        (inv.is_finite() && inv.x_axis.x > 0.0).then_some(inv)
    }
    type Spin = Spin3;
    #[inline]
    fn spin(inertia: DMat3, rotation: DQuat, omega: DVec3) -> Spin3 {
        Spin3::new(inertia, rotation, omega)
    }
    #[inline]
    fn spin_at(spin: &Spin3, dt: f64) -> (DQuat, DVec3) {
        spin.at(dt)
    }
    #[inline]
    fn spin_bound(spin: &Spin3) -> f64 {
        spin.bound()
    }
    #[inline]
    fn spin_acceleration_bound(spin: &Spin3) -> f64 {
        spin.acceleration_bound()
    }
}

/// `m / s` and `s`, with `s` the power of two nearest above `m`'s largest diagonal entry: exact
/// (no rounding) unless entries fall below `1e-308 s`. `None` when the diagonal is not
/// positive and finite.
fn unit_scaled(m: DMat3) -> Option<(DMat3, f64)> {
    let big = m.x_axis.x.max(m.y_axis.y).max(m.z_axis.z);
    if !(big > 0.0 && big.is_finite()) {
        return None;
    }
    // 2^k ≥ big; dividing by a power of two only shifts exponents.
    let s = power_of_two(big.log2().ceil());
    Some((m * (1.0 / s), s))
}

/// `2^k` for the integer `k = exponent` clamped to the normal exponents `[-1022, 1023]`
/// (`2^0` for NaN): the factor by which quantities are rescaled to unit size, exactly, since
/// a power of two only shifts their exponents. Callers choose how `exponent` is rounded.
#[inline]
#[must_use]
pub fn power_of_two(exponent: f64) -> f64 {
    2f64.powi(exponent.clamp(-1022.0, 1023.0) as i32)
}

/// The inverse of a symmetric positive definite 3×3 tensor, computed at unit scale so that
/// neither tiny nor huge tensors lose it to an under- or overflowing determinant; non-finite
/// when the tensor is singular or its inverse is out of range.
#[must_use]
pub fn scaled_inverse(m: DMat3) -> DMat3 {
    match unit_scaled(m) {
        Some((u, s)) => u.inverse() * (1.0 / s),
        None => DMat3::from_diagonal(DVec3::splat(f64::NAN)),
    }
}

/// The principal moments of a symmetric 3D inertia tensor, ascending: its eigenvalues.
#[must_use]
pub fn principal_moments(inertia: DMat3) -> [f64; 3] {
    free_rotation::symmetric_eigen(inertia).0
}

/// Whether ascending principal moments `[a, b, c]` can be a body's: `c ≤ a + b` (to a relative
/// `1e-9`, for the rounding of tensors computed from shapes). Every mass distribution has them
/// so, as `I_x + I_y − I_z = 2 ∫ z² dm ≥ 0` about principal axes; a flat plate is the limit
/// `c = a + b`.
#[must_use]
pub fn moments_are_a_bodys([a, b, c]: [f64; 3]) -> bool {
    c <= a + b + 1e-9 * c
}

/// The torque-free rotation of a 3D body ([`Vector::Spin`] in 3D): constant angular velocity
/// when the body's inertia is isotropic (every axis a principal axis with the same moment, to
/// a relative `1e-12`) or it does not turn, the closed-form free rotation of
/// [`FreeRotation`] otherwise (boxed: it is large, and most bodies of a
/// simulation do not need it).
#[derive(Clone, Debug, PartialEq)]
pub enum Spin3 {
    /// Constant angular velocity `omega` from `rotation`.
    Constant {
        /// The stored rotation.
        rotation: DQuat,
        /// The angular velocity, world frame.
        omega: DVec3,
    },
    /// The torque-free rotation of an anisotropic body, with a bound on its angular
    /// acceleration.
    Free(Box<FreeRotation>, f64),
}

impl Spin3 {
    /// The spin of a body with `inertia` (body axes) at `rotation` with angular velocity
    /// `omega`.
    pub fn new(inertia: DMat3, rotation: DQuat, omega: DVec3) -> Self {
        if omega == DVec3::ZERO || Self::is_isotropic(inertia) {
            Spin3::Constant { rotation, omega }
        } else {
            let free = FreeRotation::new(inertia, rotation, omega);
            // In the world frame L = I ω is constant, so ω̇ = −I⁻¹ (ω × L): at most
            // |I⁻¹| |ω| |L|, with the Frobenius norm bounding the operator norm.
            let inv = scaled_inverse(inertia);
            let inv_norm = (inv.x_axis.length_squared()
                + inv.y_axis.length_squared()
                + inv.z_axis.length_squared())
            .sqrt();
            let alpha = inv_norm * free.max_angular_speed() * free.angular_momentum().length();
            let alpha = if alpha.is_finite() { alpha } else { f64::MAX };
            Spin3::Free(Box::new(free), alpha)
        }
    }
    /// Whether `inertia` is isotropic to a relative `1e-12`.
    pub fn is_isotropic(inertia: DMat3) -> bool {
        let d = DVec3::new(inertia.x_axis.x, inertia.y_axis.y, inertia.z_axis.z);
        let off = inertia.x_axis.y.abs() + inertia.x_axis.z.abs() + inertia.y_axis.z.abs();
        let scale = d.max_element();
        scale > 0.0 && (d.max_element() - d.min_element()) + off <= 1e-12 * scale
    }
    /// The rotation and angular velocity `dt` after the stored state.
    #[inline]
    pub fn at(&self, dt: f64) -> (DQuat, DVec3) {
        match self {
            Spin3::Constant { rotation, omega } => {
                (DVec3::integrate_rotation(*rotation, *omega, dt), *omega)
            }
            Spin3::Free(f, _) => f.state_at(dt),
        }
    }
    /// A bound on the angular speed at every time.
    #[inline]
    pub fn bound(&self) -> f64 {
        match self {
            Spin3::Constant { omega, .. } => omega.length(),
            Spin3::Free(f, _) => f.max_angular_speed(),
        }
    }
    /// A bound on the angular acceleration at every time.
    #[inline]
    pub fn acceleration_bound(&self) -> f64 {
        match self {
            Spin3::Constant { .. } => 0.0,
            Spin3::Free(_, alpha) => *alpha,
        }
    }
}

/// The coordinate `d` of an offset moved by a whole number of box lengths `l` into
/// `[-l/2, l/2]`: the offset's nearest periodic image along one axis.
#[inline]
pub fn nearest_image(d: f64, l: f64) -> f64 {
    d - l * (d / l).round()
}

/// An axis-aligned bounding box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb<V: Vector> {
    /// Lower corner.
    pub min: V,
    /// Upper corner.
    pub max: V,
}

impl<V: Vector> Aabb<V> {
    /// The box `[min, max]`.
    #[inline]
    pub fn new(min: V, max: V) -> Self {
        Self { min, max }
    }
    /// The smallest box holding both points.
    #[inline]
    pub fn from_points(a: V, b: V) -> Self {
        Self {
            min: a.min(b),
            max: a.max(b),
        }
    }
    /// The smallest box holding both boxes.
    #[inline]
    pub fn union(&self, other: &Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }
    /// The box grown by `margin` on every side.
    #[inline]
    pub fn expanded(&self, margin: f64) -> Self {
        let m = V::splat(margin);
        Self {
            min: self.min - m,
            max: self.max + m,
        }
    }
    /// True when the closed boxes share a point (thesis Algorithm 1).
    #[inline]
    pub fn overlaps(&self, other: &Self) -> bool {
        self.min.all_le(other.max) && other.min.all_le(self.max)
    }
    /// Centre of the box.
    #[inline]
    pub fn center(&self) -> V {
        (self.min + self.max) * 0.5
    }
}
