//! Static walls.

use crate::math::{Aabb, Vector};
use crate::query::{distance, GjkOptions, GjkStatus};
use crate::shape::{Pose, Shape, SupportMap};

/// Index of a wall in its world: 0-based, in scene file order.
pub type WallId = u32;

/// A static, infinitely massive wall.
///
/// A segment from `a` to `b`: in 2D a line segment (the thesis's billiard table is four of them),
/// in 3D a thin rod. A ball touches it when its centre is at distance `radius` from the
/// segment, so both the flat sides and the rounded endpoint caps are handled exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallSegment<V: Vector> {
    /// First endpoint.
    pub a: V,
    /// Second endpoint.
    pub b: V,
    /// Unit direction from `a` to `b`.
    pub dir: V,
    /// Length `|b - a|`, `> 0`.
    pub len: f64,
}

impl<V: Vector> WallSegment<V> {
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

/// An infinite plane (a line in 2D) through `point` with unit `normal`. Balls collide with it
/// from either side; in scenes the normal points to the side where bodies must be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane<V: Vector> {
    /// A point of the plane.
    pub point: V,
    /// Unit normal.
    pub normal: V,
}

impl<V: Vector> Plane<V> {
    /// The plane through `point` with normal direction `normal` (normalised); `None` for a zero
    /// or non-finite normal.
    pub fn new(point: V, normal: V) -> Option<Self> {
        let len = normal.length();
        if !(len > 0.0) || !len.is_finite() || !point.is_finite() {
            return None;
        }
        Some(Self {
            point,
            normal: normal * (1.0 / len),
        })
    }
    /// Signed distance of `p` (positive on the normal's side).
    #[inline]
    pub fn signed_distance(&self, p: V) -> f64 {
        (p - self.point).dot(self.normal)
    }
    /// The plane's unit normal pointing to the side `p` is on (`p` on the plane: the
    /// normal as it is).
    #[inline]
    pub fn normal_towards(&self, p: V) -> V {
        if self.signed_distance(p) >= 0.0 {
            self.normal
        } else {
            -self.normal
        }
    }
    /// Closest point of the plane to `p`.
    #[inline]
    pub fn closest_point(&self, p: V) -> V {
        p - self.normal * self.signed_distance(p)
    }
    /// Bounding box: infinite except along an axis the plane is perpendicular to.
    pub fn aabb(&self) -> Aabb<V> {
        let mut lo = [f64::NEG_INFINITY; 3];
        let mut hi = [f64::INFINITY; 3];
        for axis in 0..V::DIM {
            let others_zero = (0..V::DIM).all(|k| k == axis || self.normal.comp(k) == 0.0);
            if others_zero {
                lo[axis] = self.point.comp(axis);
                hi[axis] = self.point.comp(axis);
            }
        }
        let v = |a: [f64; 3]| V::from_array3(a);
        Aabb::new(v(lo), v(hi))
    }
}

/// A convex planar polygon (3D), with its edges as segments.
#[derive(Clone, Debug, PartialEq)]
pub struct Polygon<V: Vector> {
    /// Vertices in order around the polygon.
    pub vertices: Vec<V>,
    /// The supporting plane (normal by the right-hand rule of the vertex order).
    pub plane: Plane<V>,
    /// Edge `k` runs from vertex `k` to vertex `k + 1` (cyclically).
    pub edges: Vec<WallSegment<V>>,
    /// Per edge, the in-plane direction pointing into the polygon (towards the centroid, which
    /// lies inward of every edge of a convex polygon); computed once.
    inward: Vec<V>,
}

fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Why a polygon wall was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolygonError {
    /// Polygons are walls of 3D scenes.
    #[error("polygons need dim = 3")]
    NotThreeD,
    /// Fewer than three vertices.
    #[error("a polygon needs at least 3 vertices, got {0}")]
    TooFewVertices(usize),
    /// A vertex is not finite.
    #[error("vertices must be finite")]
    NotFinite,
    /// Every vertex lies on one line.
    #[error("the vertices are collinear")]
    Collinear,
    /// The vertices do not lie in one plane (relative `1e-9`).
    #[error("the vertices are not coplanar")]
    NotCoplanar,
    /// Two consecutive vertices coincide.
    #[error("vertices {0} and {1} coincide")]
    Coincide(usize, usize),
    /// The polygon turns the wrong way (or not at all) at this vertex.
    #[error("the polygon is not convex at vertex {0}")]
    NotConvex(usize),
}

impl<V: Vector> Polygon<V> {
    /// A polygon (3D only) from at least three vertices, checked to be planar (to a relative
    /// `1e-9`), strictly convex, and free of repeated vertices.
    pub fn new(vertices: Vec<V>) -> Result<Self, PolygonError> {
        let n = vertices.len();
        if V::DIM != 3 {
            return Err(PolygonError::NotThreeD);
        }
        if n < 3 {
            return Err(PolygonError::TooFewVertices(n));
        }
        if vertices.iter().any(|v| !v.is_finite()) {
            return Err(PolygonError::NotFinite);
        }
        // Newell's normal: robust for any planar polygon.
        let mut nrm = [0.0; 3];
        for k in 0..n {
            let (a, b) = (vertices[k].to_array3(), vertices[(k + 1) % n].to_array3());
            nrm[0] += (a[1] - b[1]) * (a[2] + b[2]);
            nrm[1] += (a[2] - b[2]) * (a[0] + b[0]);
            nrm[2] += (a[0] - b[0]) * (a[1] + b[1]);
        }
        let normal = V::from_array3(nrm);
        let plane = Plane::new(vertices[0], normal).ok_or(PolygonError::Collinear)?;
        let scale = vertices
            .iter()
            .map(|v| (*v - vertices[0]).length())
            .fold(0.0, f64::max);
        if vertices
            .iter()
            .any(|v| plane.signed_distance(*v).abs() > 1e-9 * scale)
        {
            return Err(PolygonError::NotCoplanar);
        }
        let mut edges = Vec::with_capacity(n);
        for k in 0..n {
            let (a, b) = (vertices[k], vertices[(k + 1) % n]);
            edges.push(WallSegment::new(a, b).ok_or(PolygonError::Coincide(k, (k + 1) % n))?);
            let c = vertices[(k + 2) % n];
            let turn = cross3((b - a).to_array3(), (c - b).to_array3());
            let along = V::from_array3(turn).dot(plane.normal);
            if along <= 0.0 {
                return Err(PolygonError::NotConvex((k + 1) % n));
            }
        }
        let c = vertices.iter().fold(V::ZERO, |acc, v| acc + *v) * (1.0 / n as f64);
        let inward = edges
            .iter()
            .map(|e| {
                let d = c - e.a;
                d - e.dir * d.dot(e.dir) - plane.normal * d.dot(plane.normal)
            })
            .collect();
        Ok(Self {
            vertices,
            plane,
            edges,
            inward,
        })
    }

    /// True when the projection of `p` on the plane lies inside the polygon (edges included).
    #[inline]
    pub fn contains_projection(&self, p: V) -> bool {
        self.edges.iter().zip(&self.inward).all(|(e, inward)| {
            // Inside when p is on the inner side of every edge: the component of (p - a) along
            // the in-plane inward direction n x dir is non-negative.
            let d = p - e.a;
            let along = d.dot(e.dir);
            let perp = d - e.dir * along - self.plane.normal * d.dot(self.plane.normal);
            perp.dot(*inward) >= 0.0
        })
    }
    /// Closest point of the polygon to `p`.
    pub fn closest_point(&self, p: V) -> V {
        if self.contains_projection(p) {
            return self.plane.closest_point(p);
        }
        let mut best = self.edges[0].closest_point(p);
        for e in &self.edges[1..] {
            let q = e.closest_point(p);
            if (p - q).length_squared() < (p - best).length_squared() {
                best = q;
            }
        }
        best
    }
    /// Bounding box of the vertices.
    pub fn aabb(&self) -> Aabb<V> {
        self.vertices[1..]
            .iter()
            .fold(Aabb::new(self.vertices[0], self.vertices[0]), |b, v| {
                b.union(&Aabb::new(*v, *v))
            })
    }
}

/// A static convex shape placed in the world: a shape of the [shape module](crate::shape)
/// (box, ball, capsule, polygon, polyhedron, ...) at a fixed pose. Rigid bodies and balls
/// collide with its surface from outside.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticShape<V: Vector> {
    /// The shape, in its local frame.
    pub shape: Shape<V>,
    /// Where its local frame is placed.
    pub pose: Pose<V>,
}

impl<V: Vector> StaticShape<V> {
    /// `shape` placed at `pose`; `None` when the pose is not finite.
    pub fn new(shape: Shape<V>, pose: Pose<V>) -> Option<Self> {
        let s = Self { shape, pose };
        let b = s.aabb();
        (pose.position.is_finite() && b.min.is_finite() && b.max.is_finite()).then_some(s)
    }
    /// Bounding box of the placed shape (exact: from its support points along the axes).
    pub fn aabb(&self) -> Aabb<V> {
        self.shape.aabb(&self.pose)
    }
    /// Closest point of the shape to `p` (`p` itself when it lies inside).
    pub fn closest_point(&self, p: V) -> V {
        // A ball's core is its centre: the GJK query on the cores gives the shape's point
        // nearest to `p`; the probe is as small as can be so that it only touches the shape
        // when `p` is inside.
        let Ok(probe) = Shape::ball(f64::MIN_POSITIVE) else {
            return p;
        };
        let r = distance(
            &self.shape,
            &self.pose,
            &probe,
            &Pose::from_position(p),
            &GjkOptions::default(),
            None,
        );
        if r.status != GjkStatus::Intersecting && r.point_a.is_finite() {
            r.point_a
        } else {
            p
        }
    }
}

/// A static wall of any supported shape.
#[derive(Clone, Debug, PartialEq)]
pub enum Wall<V: Vector> {
    /// A line segment (2D) or rod (3D).
    Segment(WallSegment<V>),
    /// An infinite plane (a line in 2D).
    Plane(Plane<V>),
    /// A convex planar polygon (3D).
    Polygon(Polygon<V>),
    /// A static convex shape (solid: bodies stay outside it).
    Shape(StaticShape<V>),
}

impl<V: Vector> Wall<V> {
    /// Bounding box of the wall (infinite for most planes).
    pub fn aabb(&self) -> Aabb<V> {
        match self {
            Wall::Segment(s) => s.aabb(),
            Wall::Plane(p) => p.aabb(),
            Wall::Polygon(p) => p.aabb(),
            Wall::Shape(s) => s.aabb(),
        }
    }
    /// Distance from `p` to the wall.
    pub fn distance(&self, p: V) -> f64 {
        (p - self.closest_point(p)).length()
    }
    /// The point of the wall closest to `p`.
    pub fn closest_point(&self, p: V) -> V {
        match self {
            Wall::Segment(s) => s.closest_point(p),
            Wall::Plane(pl) => pl.closest_point(p),
            Wall::Polygon(pg) => pg.closest_point(p),
            Wall::Shape(s) => s.closest_point(p),
        }
    }
}
