//! Ellipses (2D) and ellipsoids (3D): `Σ (x_i / h_i)² ≤ 1` about the local origin, the half
//! axes `h` along the local axes.
//!
//! Every answer is a closed form: the support point along `d` is `H² d / |H d|` with
//! `H = diag(h)`, computed as `H u` for the unit `u` along `H d̂` so that no product overflows;
//! the mass is `ρ π a b` (2D) or `ρ 4π a b c / 3` (3D) with second moments `m h_i² / (DIM + 2)`;
//! the bounding radius about the centre is the longest half axis. GJK, EPA, the time of impact
//! and the simulations take it through their general paths (a curved shape: GJK's distance to
//! its tolerance, contact manifolds of one point).

use std::f64::consts::PI;

use super::{
    check_density, check_size, try_normalize, ConvexShape, CoreSupport, FeatureId, MassProperties,
    Outline, ShapeError, SupportMap,
};
use crate::math::Vector;

/// An ellipse (2D) or ellipsoid (3D) centred at the local origin, with its half axes along the
/// local axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ellipsoid<V> {
    half_axes: V,
}

impl<V: Vector> Ellipsoid<V> {
    /// An ellipsoid of `half_axes`, each positive and finite.
    pub fn new(half_axes: V) -> Result<Self, ShapeError> {
        for i in 0..V::DIM {
            check_size("half axis", half_axes.comp(i), false)?;
        }
        Ok(Self { half_axes })
    }
    /// The half axes.
    #[must_use]
    pub fn half_axes(&self) -> V {
        self.half_axes
    }
    /// The longest half axis.
    fn longest(&self) -> f64 {
        self.half_axes.max_abs()
    }
    /// The distance from `centre` to the farthest point: the longest half axis about the
    /// origin (exact); elsewhere `|centre|` plus it, an upper bound.
    #[must_use]
    pub fn bounding_radius_about(&self, centre: V) -> f64 {
        centre.length() + self.longest()
    }
    /// Mass properties at `density`: `m = ρ π a b` (2D) or `ρ 4π a b c / 3` (3D), second
    /// moments `∫x_i² = m h_i² / 4` (2D) or `/ 5` (3D).
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        check_density(density)?;
        let h = self.half_axes;
        let unit = if V::DIM == 2 { PI } else { 4.0 * PI / 3.0 };
        let m = (0..V::DIM).fold(density * unit, |m, i| m * h.comp(i));
        let k = 1.0 / (V::DIM + 2) as f64;
        let mut s = [0.0; 3];
        for (i, s) in s.iter_mut().enumerate().take(V::DIM) {
            *s = m * h.comp(i) * h.comp(i) * k;
        }
        Ok(MassProperties::from_second_moments(
            m,
            V::ZERO,
            V::from_array3(s),
        ))
    }
}

impl<V: Vector> SupportMap<V> for Ellipsoid<V> {
    /// `H u` for the unit `u` along `H d`; the end of the y half axis for `d = 0`.
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let h = self.half_axes;
        let scaled = try_normalize(d).and_then(|u| try_normalize(scale(h, u)));
        let p = match scaled {
            Some(u) => scale(h, u),
            None => V::unit(1) * h.comp(1),
        };
        (p, FeatureId::None)
    }
}

impl<V: Vector> CoreSupport<V> for Ellipsoid<V> {}

impl<V: Vector> ConvexShape<V> for Ellipsoid<V> {
    fn name(&self) -> &'static str {
        "ellipsoid"
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        Ellipsoid::bounding_radius_about(self, centre)
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        Ellipsoid::mass_properties(self, density)
    }
    fn outline(&self) -> Outline<V> {
        Outline::Ellipsoid(self.half_axes)
    }
}

/// `h ∘ u`, component by component.
#[inline]
fn scale<V: Vector>(h: V, u: V) -> V {
    let (h, u) = (h.to_array3(), u.to_array3());
    V::from_array3([h[0] * u[0], h[1] * u[1], h[2] * u[2]])
}
