//! The convex polygon (2D): validated vertex lists, and the convex hull of points by Andrew's
//! monotone chain (A. M. Andrew, *Another efficient algorithm for convex hulls in two
//! dimensions*, Information Processing Letters 9(5), 1979).

use std::f64::consts::PI;

use super::{
    check_dim, check_finite, cross2, farthest_vertex, farthest_vertex_distance, FeatureId,
    MassProperties, ShapeError, SupportMap, DEGENERACY_TOLERANCE,
};
use crate::math::Vector;

/// A strictly convex polygon with counter-clockwise vertices (2D only).
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon<V> {
    vertices: Vec<V>,
}

/// True when the path `a → b → c` turns strictly left: the sine of the turn exceeds
/// [`DEGENERACY_TOLERANCE`]. `a ≠ b ≠ c` is assumed.
pub(super) fn turns_left<V: Vector>(a: V, b: V, c: V) -> bool {
    let (u, w) = (b - a, c - b);
    cross2(u, w) > DEGENERACY_TOLERANCE * u.length() * w.length()
}

impl<V: Vector> ConvexPolygon<V> {
    /// The polygon of `vertices`, counter-clockwise.
    ///
    /// # Errors
    ///
    /// [`ShapeError::WrongDimension`] in 3D; [`ShapeError::TooFewVertices`],
    /// [`ShapeError::NonFiniteVertex`], [`ShapeError::CoincidentVertices`] (consecutive),
    /// [`ShapeError::NotConvex`] where the boundary does not turn strictly left (a reflex,
    /// collinear or clockwise corner, to [`DEGENERACY_TOLERANCE`]), and
    /// [`ShapeError::SelfIntersecting`] when it turns left everywhere but winds more than once
    /// (a star).
    pub fn new(vertices: Vec<V>) -> Result<Self, ShapeError> {
        check_dim::<V>("convex polygon", 2)?;
        let n = vertices.len();
        if n < 3 {
            return Err(ShapeError::TooFewVertices { count: n });
        }
        check_finite(&vertices)?;
        for i in 0..n {
            if vertices[i] == vertices[(i + 1) % n] {
                return Err(ShapeError::CoincidentVertices {
                    first: i,
                    second: (i + 1) % n,
                });
            }
        }
        let mut turning = 0.0;
        for i in 0..n {
            let (a, b, c) = (
                vertices[(i + n - 1) % n],
                vertices[i],
                vertices[(i + 1) % n],
            );
            if !turns_left(a, b, c) {
                return Err(ShapeError::NotConvex { index: i });
            }
            let (u, w) = (b - a, c - b);
            turning += cross2(u, w).atan2(u.dot(w));
        }
        // Every turn is in (0, π), so the total is 2π k for k whole turns.
        let turns = (turning / (2.0 * PI)).round() as usize;
        if turns != 1 {
            return Err(ShapeError::SelfIntersecting { turns });
        }
        Ok(Self { vertices })
    }

    /// The convex hull of `points` by Andrew's monotone chain (`O(n log n)`): the points
    /// sorted by `(x, y)`, then the lower and upper chains, dropping every point where a chain
    /// does not turn strictly left (so collinear and duplicate points are dropped).
    ///
    /// # Errors
    ///
    /// [`ShapeError::WrongDimension`] in 3D, [`ShapeError::NonFiniteVertex`] for a non-finite
    /// point, [`ShapeError::ZeroArea`] when the points are all collinear (or fewer than three
    /// distinct).
    pub fn from_points(points: &[V]) -> Result<Self, ShapeError> {
        check_dim::<V>("convex polygon", 2)?;
        check_finite(points)?;
        let mut sorted = points.to_vec();
        sorted.sort_by(|a, b| {
            a.comp(0)
                .total_cmp(&b.comp(0))
                .then(a.comp(1).total_cmp(&b.comp(1)))
        });
        sorted.dedup();
        if sorted.len() < 3 {
            return Err(ShapeError::ZeroArea);
        }
        let mut hull: Vec<V> = Vec::with_capacity(sorted.len() + 1);
        let chain = |hull: &mut Vec<V>, p: V, floor: usize| {
            while hull.len() >= floor + 2
                && !turns_left(hull[hull.len() - 2], hull[hull.len() - 1], p)
            {
                hull.pop();
            }
            hull.push(p);
        };
        for &p in &sorted {
            chain(&mut hull, p, 0);
        }
        let lower = hull.len() - 1;
        for &p in sorted.iter().rev().skip(1) {
            chain(&mut hull, p, lower);
        }
        // The last point is the first again.
        hull.pop();
        if hull.len() < 3 {
            return Err(ShapeError::ZeroArea);
        }
        Self::new(hull).map_err(|e| match e {
            // A corner left at the seam of the two chains is collinear: no area.
            ShapeError::NotConvex { .. } | ShapeError::SelfIntersecting { .. } => {
                ShapeError::ZeroArea
            }
            e => e,
        })
    }

    /// The vertices, counter-clockwise.
    #[must_use]
    pub fn vertices(&self) -> &[V] {
        &self.vertices
    }
    /// The distance from `centre` to the farthest vertex.
    #[must_use]
    pub fn bounding_radius_about(&self, centre: V) -> f64 {
        farthest_vertex_distance(&self.vertices, centre)
    }
    /// Mass properties at `density`: Green's theorem over the edges `(p, q)` relative to the
    /// vertex mean `o` (for round-off), with `c = p × q`: `A = Σ c / 2`,
    /// `centroid = o + Σ (p + q) c / 6A`, `∫x² = Σ c (p_x² + p_x q_x + q_x²) / 12` (and y),
    /// moved to the centroid by the parallel axis theorem.
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        super::check_density(density)?;
        let n = self.vertices.len();
        let o = self.vertices.iter().fold(V::ZERO, |s, &v| s + v) * (1.0 / n as f64);
        let (mut area2, mut first, mut second) = (0.0, V::ZERO, [0.0; 2]);
        for i in 0..n {
            let (p, q) = (self.vertices[i] - o, self.vertices[(i + 1) % n] - o);
            let c = cross2(p, q);
            area2 += c;
            first += (p + q) * c;
            for (k, s) in second.iter_mut().enumerate() {
                let (a, b) = (p.comp(k), q.comp(k));
                *s += c * (a * a + a * b + b * b);
            }
        }
        let area = 0.5 * area2;
        let centroid = first * (1.0 / (3.0 * area2));
        let m = density * area;
        let s = [0, 1].map(|k| density * (second[k] / 12.0 - area * centroid.comp(k).powi(2)));
        Ok(MassProperties::from_second_moments(
            m,
            o + centroid,
            V::from_array3([s[0], s[1], 0.0]),
        ))
    }
}

impl<V: Vector> SupportMap<V> for ConvexPolygon<V> {
    /// The vertex farthest along `d` (the lowest index on ties), by a linear scan.
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let i = farthest_vertex(&self.vertices, d);
        (self.vertices[i], FeatureId::Vertex(i as u32))
    }
}
