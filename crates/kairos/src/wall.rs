//! Static walls.

use crate::math::{Aabb, Vector};

/// Index of a wall in its world: 0-based, in scene file order.
pub type WallId = u32;

/// A static, infinitely massive wall.
///
/// A segment from `a` to `b`: in 2D a line segment (the thesis's billiard table is four of them),
/// in 3D a thin rod. A ball touches it when its centre is at distance `radius` from the
/// segment, so both the flat sides and the rounded endpoint caps are handled exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment<V: Vector> {
    /// First endpoint.
    pub a: V,
    /// Second endpoint.
    pub b: V,
    /// Unit direction from `a` to `b`.
    pub dir: V,
    /// Length `|b - a|`, `> 0`.
    pub len: f64,
}

impl<V: Vector> Segment<V> {
    /// The segment from `a` to `b`; `None` when the endpoints coincide or are not finite.
    pub fn new(a: V, b: V) -> Option<Self> {
        let d = b - a;
        let len = d.length();
        if !(len > 0.0) || !len.is_finite() || !a.is_finite() || !b.is_finite() {
            return None;
        }
        Some(Self {
            a,
            b,
            dir: d * (1.0 / len),
            len,
        })
    }
    /// Closest point of the segment to `p`.
    #[inline]
    pub fn closest_point(&self, p: V) -> V {
        let s = (p - self.a).dot(self.dir).clamp(0.0, self.len);
        self.a + self.dir * s
    }
    /// Distance from `p` to the segment.
    #[inline]
    pub fn distance(&self, p: V) -> f64 {
        (p - self.closest_point(p)).length()
    }
    /// Bounding box of the segment.
    #[inline]
    pub fn aabb(&self) -> Aabb<V> {
        Aabb::from_points(self.a, self.b)
    }
}

/// A static wall of any supported shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wall<V: Vector> {
    /// A line segment (2D) or rod (3D).
    Segment(Segment<V>),
}

impl<V: Vector> Wall<V> {
    /// Bounding box of the wall.
    pub fn aabb(&self) -> Aabb<V> {
        match self {
            Wall::Segment(s) => s.aabb(),
        }
    }
    /// Distance from `p` to the wall.
    pub fn distance(&self, p: V) -> f64 {
        match self {
            Wall::Segment(s) => s.distance(p),
        }
    }
    /// The point of the wall closest to `p`.
    pub fn closest_point(&self, p: V) -> V {
        match self {
            Wall::Segment(s) => s.closest_point(p),
        }
    }
}
