//! The small dimension abstraction every physics routine is written against.
//!
//! Kairos keeps one code path for 2D and 3D: contact times, responses, bounding boxes and broad
//! phases are generic over [`Vector`], implemented for glam's `DVec2` and `DVec3`. Only the
//! operations the physics needs are in the trait, so it stays small and monomorphises to plain
//! glam code.

use std::fmt::Debug;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

pub use glam::{DVec2, DVec3};

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
    /// The components padded with zeros to three (the trace and export layout).
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
