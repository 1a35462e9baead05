//! Polytopes of both dimensions: cuboid, and the simplices segment and triangle.

use super::{
    check_finite, check_size, farthest_vertex, farthest_vertex_distance, FeatureId, MassProperties,
    ShapeError, SupportMap, DEGENERACY_TOLERANCE,
};
use crate::math::Vector;

/// A rectangle (2D) or box (3D) centred at the local origin, with half extents along the
/// local axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid<V> {
    half_extents: V,
}

impl<V: Vector> Cuboid<V> {
    /// A box with `half_extents`, each positive and finite.
    pub fn new(half_extents: V) -> Result<Self, ShapeError> {
        for i in 0..V::DIM {
            check_size("half extent", half_extents.comp(i), false)?;
        }
        Ok(Self { half_extents })
    }
    /// The half extents.
    #[must_use]
    pub fn half_extents(&self) -> V {
        self.half_extents
    }
    /// The distance from `centre` to the farthest corner.
    #[must_use]
    pub fn bounding_radius_about(&self, centre: V) -> f64 {
        let mut far = [0.0; 3];
        for (i, f) in far.iter_mut().enumerate().take(V::DIM) {
            *f = centre.comp(i).abs() + self.half_extents.comp(i);
        }
        V::from_array3(far).length()
    }
    /// Mass properties at `density`: `m = ρ ∏ 2h_i`, `∫x_i² = m h_i²/3` (so a 2D rectangle
    /// of sides `w`, `h` has `I = m (w² + h²)/12`).
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        super::check_density(density)?;
        let h = self.half_extents;
        let m = (0..V::DIM).fold(density, |m, i| m * 2.0 * h.comp(i));
        let mut s = [0.0; 3];
        for (i, s) in s.iter_mut().enumerate().take(V::DIM) {
            *s = m * h.comp(i) * h.comp(i) / 3.0;
        }
        Ok(MassProperties::from_second_moments(
            m,
            V::ZERO,
            V::from_array3(s),
        ))
    }
}

impl<V: Vector> SupportMap<V> for Cuboid<V> {
    /// `sgn(d) ∘ h` with `sgn 0 = +1`; the feature is the corner `Vertex(bits)`, bit `i` set
    /// for the `+` side of axis `i`.
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let mut p = [0.0; 3];
        let mut bits = 0u32;
        for (i, p) in p.iter_mut().enumerate().take(V::DIM) {
            let h = self.half_extents.comp(i);
            *p = if d.comp(i) < 0.0 {
                -h
            } else {
                bits |= 1 << i;
                h
            };
        }
        (V::from_array3(p), FeatureId::Vertex(bits))
    }
}

/// The convex hull of `N` affinely independent vertices of the local frame: a [`Segment`]
/// (`N = 2`) or a [`Triangle`] (`N = 3`, in either orientation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Simplex<V, const N: usize> {
    vertices: [V; N],
}

/// A segment between two distinct points.
pub type Segment<V> = Simplex<V, 2>;

/// A triangle.
pub type Triangle<V> = Simplex<V, 3>;

impl<V: Vector, const N: usize> Simplex<V, N> {
    /// The vertices.
    #[must_use]
    pub fn vertices(&self) -> [V; N] {
        self.vertices
    }
    /// The distance from `centre` to the farthest vertex.
    #[must_use]
    pub fn bounding_radius_about(&self, centre: V) -> f64 {
        farthest_vertex_distance(&self.vertices, centre)
    }
}

impl<V: Vector, const N: usize> SupportMap<V> for Simplex<V, N> {
    /// The vertex farthest along `d` (the lowest index on ties).
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let i = farthest_vertex(&self.vertices, d);
        (self.vertices[i], FeatureId::Vertex(i as u32))
    }
}

impl<V: Vector> Segment<V> {
    /// The segment from `a` to `b` (finite and distinct).
    pub fn new(a: V, b: V) -> Result<Self, ShapeError> {
        check_finite(&[a, b])?;
        if a == b {
            return Err(ShapeError::CoincidentVertices {
                first: 0,
                second: 1,
            });
        }
        Ok(Self { vertices: [a, b] })
    }
    /// Always an error: a segment has no area or volume.
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        super::check_density(density)?;
        Err(ShapeError::Massless {
            shape: "segment",
            measure: if V::DIM == 2 { "area" } else { "volume" },
        })
    }
}

impl<V: Vector> Triangle<V> {
    /// The triangle `a b c`: finite, distinct vertices, and not degenerate (the sine of the
    /// angle at `a` must exceed [`DEGENERACY_TOLERANCE`]).
    pub fn new(a: V, b: V, c: V) -> Result<Self, ShapeError> {
        let vertices = [a, b, c];
        check_finite(&vertices)?;
        for (first, second) in [(0, 1), (0, 2), (1, 2)] {
            if vertices[first] == vertices[second] {
                return Err(ShapeError::CoincidentVertices { first, second });
            }
        }
        let (ab, ac) = (b - a, c - a);
        // |ab × ac|² = |ab|² |ac|² - (ab · ac)², in both dimensions.
        let (l2, dot) = (ab.length_squared() * ac.length_squared(), ab.dot(ac));
        let sin2 = ((l2 - dot * dot) / l2).max(0.0);
        if sin2.sqrt() <= DEGENERACY_TOLERANCE {
            return Err(ShapeError::ZeroArea);
        }
        Ok(Self { vertices })
    }
    /// Mass properties at `density` (2D): `m = ρ A`, centre of mass the centroid,
    /// `∫ x xᵀ dm = m/12 Σ pᵢ pᵢᵀ` over the vertices `pᵢ` relative to the centroid.
    ///
    /// # Errors
    ///
    /// [`ShapeError::Massless`] in 3D, where a triangle has no volume.
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        super::check_density(density)?;
        if V::DIM != 2 {
            return Err(ShapeError::Massless {
                shape: "triangle",
                measure: "volume",
            });
        }
        let [a, b, c] = self.vertices;
        let centroid = (a + b + c) * (1.0 / 3.0);
        let p = self.vertices.map(|v| v - centroid);
        let m = density * 0.5 * super::cross2(p[1] - p[0], p[2] - p[0]).abs();
        let mut s = [0.0; 3];
        for (i, s) in s.iter_mut().enumerate().take(2) {
            *s = m / 12.0 * p.iter().map(|v| v.comp(i) * v.comp(i)).sum::<f64>();
        }
        Ok(MassProperties::from_second_moments(
            m,
            centroid,
            V::from_array3(s),
        ))
    }
}
