//! Shapes with curved surfaces: ball, capsule, cylinder, cone.
//!
//! The capsule and the cylinder share one mass formula for 2D and 3D: a straight part (a
//! `(DIM-1)`-ball cross-section swept along y) and, for the capsule, two half balls at its ends,
//! with the dimension's constants below.

use std::f64::consts::PI;
use std::marker::PhantomData;

use super::convex::rim;
use super::{
    check_dim, check_size, try_normalize, ConvexShape, CoreSupport, FeatureId, ManifoldCore,
    MassProperties, Outline, Pose, Segment, ShapeError, SupportMap,
};
use crate::math::{Aabb, Vector};

/// Area (2D) or volume (3D) of the ball of radius `r`.
fn ball_measure<V: Vector>(r: f64) -> f64 {
    if V::DIM == 2 {
        PI * r * r
    } else {
        4.0 / 3.0 * PI * r * r * r
    }
}

/// `∫ x² dm / m` of a ball of radius `r` along any axis through its centre: `r² / (DIM + 2)`.
fn ball_second_moment<V: Vector>(r: f64) -> f64 {
    r * r / (V::DIM as f64 + 2.0)
}

/// Distance from the flat side of a half ball of radius `r` to its centroid: 2D `4r / 3π`,
/// 3D `3r / 8`.
fn half_ball_centroid<V: Vector>(r: f64) -> f64 {
    if V::DIM == 2 {
        4.0 * r / (3.0 * PI)
    } else {
        3.0 * r / 8.0
    }
}

/// Length (2D) or area (3D) of the cross-section of radius `r` of a shape along y.
fn section_measure<V: Vector>(r: f64) -> f64 {
    if V::DIM == 2 {
        2.0 * r
    } else {
        PI * r * r
    }
}

/// `∫ x² dm / m` of that cross-section along an axis across y: `r² / (DIM + 1)`.
fn section_second_moment<V: Vector>(r: f64) -> f64 {
    r * r / (V::DIM as f64 + 1.0)
}

/// The vector whose y component is `axial` and whose other components are `radial`.
fn axial_radial<V: Vector>(axial: f64, radial: f64) -> V {
    V::splat(radial) + V::unit(1) * (axial - radial)
}

/// `d` without its y component.
#[inline]
fn radial_part<V: Vector>(d: V) -> V {
    d - V::unit(1) * d.comp(1)
}

/// `h` on the `+` side (also for `d_y = 0`), `-h` when `d_y < 0`.
#[inline]
fn signed_half_height<V: Vector>(d: V, h: f64) -> f64 {
    if d.comp(1) < 0.0 {
        -h
    } else {
        h
    }
}

/// A disc (2D) or sphere (3D) centred at the local origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    radius: f64,
}

impl Ball {
    /// A ball of radius `radius > 0`.
    pub fn new(radius: f64) -> Result<Self, ShapeError> {
        Ok(Self {
            radius: check_size("radius", radius, false)?,
        })
    }
    /// The radius.
    #[must_use]
    pub fn radius(&self) -> f64 {
        self.radius
    }
    /// The distance from `centre` to the farthest point.
    #[must_use]
    pub fn bounding_radius_about<V: Vector>(&self, centre: V) -> f64 {
        centre.length() + self.radius
    }
    /// Mass properties at `density`: `m = ρ π r²` (2D) or `ρ 4π r³/3` (3D), inertia
    /// `m r²/2` (2D) or `2 m r²/5` (3D).
    pub fn mass_properties<V: Vector>(
        &self,
        density: f64,
    ) -> Result<MassProperties<V>, ShapeError> {
        super::check_density(density)?;
        let r = self.radius;
        let m = density * ball_measure::<V>(r);
        Ok(MassProperties::from_second_moments(
            m,
            V::ZERO,
            V::splat(m * ball_second_moment::<V>(r)),
        ))
    }
}

impl<V: Vector> SupportMap<V> for Ball {
    /// `r d / |d|`; the point `r e_y` for `d = 0`.
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let u = try_normalize(d).unwrap_or(V::unit(1));
        (u * self.radius, FeatureId::None)
    }
    #[inline]
    fn aabb(&self, pose: &Pose<V>) -> Aabb<V> {
        let r = V::splat(self.radius);
        Aabb::new(pose.position - r, pose.position + r)
    }
}

/// A capsule: the points within `radius` of the segment from `(0, -half_height)` to
/// `(0, half_height)` along local y (a stadium in 2D).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    half_height: f64,
    radius: f64,
}

impl Capsule {
    /// A capsule with segment half length `half_height >= 0` (0 is a ball) and `radius > 0`.
    pub fn new(half_height: f64, radius: f64) -> Result<Self, ShapeError> {
        Ok(Self {
            half_height: check_size("half_height", half_height, true)?,
            radius: check_size("radius", radius, false)?,
        })
    }
    /// Half the length of the inner segment.
    #[must_use]
    pub fn half_height(&self) -> f64 {
        self.half_height
    }
    /// The radius.
    #[must_use]
    pub fn radius(&self) -> f64 {
        self.radius
    }
    /// The distance from `centre` to the farthest point.
    #[must_use]
    pub fn bounding_radius_about<V: Vector>(&self, centre: V) -> f64 {
        let end = V::unit(1) * self.half_height;
        (centre - end).length().max((centre + end).length()) + self.radius
    }
    /// Mass properties at `density`: a cylinder (2D: rectangle) of height `2h` plus a ball of
    /// radius `r` split into two half balls at `y = ±h` (parallel axis theorem).
    pub fn mass_properties<V: Vector>(
        &self,
        density: f64,
    ) -> Result<MassProperties<V>, ShapeError> {
        super::check_density(density)?;
        let (h, r) = (self.half_height, self.radius);
        let m_body = density * section_measure::<V>(r) * 2.0 * h;
        let m_caps = density * ball_measure::<V>(r);
        let k = ball_second_moment::<V>(r);
        let radial = m_body * section_second_moment::<V>(r) + m_caps * k;
        let axial =
            m_body * h * h / 3.0 + m_caps * (h * h + 2.0 * h * half_ball_centroid::<V>(r) + k);
        Ok(MassProperties::from_second_moments(
            m_body + m_caps,
            V::ZERO,
            axial_radial(axial, radial),
        ))
    }
}

impl<V: Vector> SupportMap<V> for Capsule {
    /// The end of the segment on the side of `d`, plus `r d / |d|`.
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let end = V::unit(1) * signed_half_height(d, self.half_height);
        let u = try_normalize(d).unwrap_or(V::unit(1));
        (end + u * self.radius, FeatureId::None)
    }
}

/// Defines a 3D-only shape along local y given by a half height and a radius (both positive
/// and finite): the struct, its constructor and its accessors.
macro_rules! axial_shape {
    ($(#[$doc:meta])* $name:ident, $label:literal, $in_2d:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name<V> {
            half_height: f64,
            radius: f64,
            dim: PhantomData<fn() -> V>,
        }

        impl<V: Vector> $name<V> {
            #[doc = concat!("A ", $label, " with `half_height > 0` and `radius > 0`.")]
            ///
            /// # Errors
            ///
            #[doc = concat!("[`ShapeError::WrongDimension`] in 2D (use a [`", $in_2d, "`]).")]
            pub fn new(half_height: f64, radius: f64) -> Result<Self, ShapeError> {
                check_dim::<V>($label, 3)?;
                Ok(Self {
                    half_height: check_size("half_height", half_height, false)?,
                    radius: check_size("radius", radius, false)?,
                    dim: PhantomData,
                })
            }
            /// Half the height.
            #[must_use]
            pub fn half_height(&self) -> f64 {
                self.half_height
            }
            #[doc = concat!("The radius (of the ", $label, "'s base).")]
            #[must_use]
            pub fn radius(&self) -> f64 {
                self.radius
            }
        }
    };
}

axial_shape!(
    /// A cylinder along local y, centred at the origin, caps at `y = ±half_height` (3D only).
    Cylinder,
    "cylinder",
    "super::Cuboid"
);

axial_shape!(
    /// A cone along local y: apex at `(0, half_height, 0)`, base disc of `radius` at
    /// `y = -half_height` (3D only).
    ///
    /// The local origin is the midpoint of the axis, not the centre of mass, which is a quarter
    /// of the height above the base: `(0, -half_height / 2, 0)`.
    Cone,
    "cone",
    "super::Triangle"
);

impl<V: Vector> Cylinder<V> {
    /// The distance from `centre` to the farthest point (on a rim circle).
    #[must_use]
    pub fn bounding_radius_about(&self, centre: V) -> f64 {
        let axial = self.half_height + centre.comp(1).abs();
        let radial = self.radius + radial_part(centre).length();
        axial.hypot(radial)
    }
    /// Mass properties at `density`: `m = ρ π r² 2h`, `∫x² = ∫z² = m r²/4`, `∫y² = m h²/3`.
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        super::check_density(density)?;
        let (h, r) = (self.half_height, self.radius);
        let m = density * section_measure::<V>(r) * 2.0 * h;
        Ok(MassProperties::from_second_moments(
            m,
            V::ZERO,
            axial_radial(m * h * h / 3.0, m * section_second_moment::<V>(r)),
        ))
    }
}

impl<V: Vector> SupportMap<V> for Cylinder<V> {
    /// The point of the rim of the cap on the side of `d` farthest along `d`; the cap's centre
    /// when `d` is along the axis.
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let cap = V::unit(1) * signed_half_height(d, self.half_height);
        let rim = try_normalize(radial_part(d)).map_or(V::ZERO, |u| u * self.radius);
        (cap + rim, FeatureId::None)
    }
}

impl<V: Vector> Cone<V> {
    /// The distance from `centre` to the farthest point (the apex or the base rim).
    #[must_use]
    pub fn bounding_radius_about(&self, centre: V) -> f64 {
        let apex = (V::unit(1) * self.half_height - centre).length();
        let axial = self.half_height + centre.comp(1);
        let radial = self.radius + radial_part(centre).length();
        apex.max(axial.hypot(radial))
    }
    /// Mass properties at `density`: `m = ρ π r² H / 3` with `H = 2h`, centre of mass at
    /// `y = -h/2`, `∫x² = ∫z² = 3 m r²/20`, `∫y² = 3 m H²/80` about it.
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        super::check_density(density)?;
        let (h, r) = (self.half_height, self.radius);
        let m = density * section_measure::<V>(r) * 2.0 * h / 3.0;
        Ok(MassProperties::from_second_moments(
            m,
            V::unit(1) * (-0.5 * h),
            axial_radial(3.0 / 20.0 * m * h * h, 3.0 / 20.0 * m * r * r),
        ))
    }
}

impl<V: Vector> SupportMap<V> for Cone<V> {
    /// The apex (`Vertex(0)`) or the base rim point farthest along `d`, whichever is farther
    /// (the apex on ties, and for `d = 0`); the base centre when `d` points straight down.
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let apex = V::unit(1) * self.half_height;
        let rim = try_normalize(radial_part(d)).map_or(V::ZERO, |u| u * self.radius)
            - V::unit(1) * self.half_height;
        if rim.dot(d) > apex.dot(d) {
            (rim, FeatureId::None)
        } else {
            (apex, FeatureId::Vertex(0))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// What the round shapes answer for themselves

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

impl<V: Vector> ConvexShape<V> for Ball {
    fn name(&self) -> &'static str {
        "ball"
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        Ball::bounding_radius_about(self, centre)
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        Ball::mass_properties(self, density)
    }
    fn outline(&self) -> Outline<V> {
        Outline::Ball(self.radius)
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

impl<V: Vector> ConvexShape<V> for Capsule {
    fn name(&self) -> &'static str {
        "capsule"
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        Capsule::bounding_radius_about(self, centre)
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        Capsule::mass_properties(self, density)
    }
    /// Its core segment, vertex 0 at `−h`, vertex 1 at `+h`, grown by its radius (one point
    /// for `h = 0`, a ball).
    fn manifold_core(&self) -> ManifoldCore<'_, V> {
        let h = V::unit(1) * self.half_height;
        Segment::new(-h, h).map_or(ManifoldCore::Point, |s| {
            ManifoldCore::RoundSegment(s, self.radius)
        })
    }
    /// The segment's ends (one point for `h = 0`), rounded by the radius.
    fn outline(&self) -> Outline<V> {
        let h = self.half_height;
        let vertices = if h > 0.0 {
            vec![V::unit(1) * -h, V::unit(1) * h]
        } else {
            vec![V::ZERO]
        };
        Outline::Polytope {
            vertices,
            rounding: self.radius,
        }
    }
}

impl<V: Vector> CoreSupport<V> for Cylinder<V> {}

impl<V: Vector> ConvexShape<V> for Cylinder<V> {
    fn name(&self) -> &'static str {
        "cylinder"
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        Cylinder::bounding_radius_about(self, centre)
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        Cylinder::mass_properties(self, density)
    }
    /// Polygons inscribed in its two rims, the bottom one first.
    fn outline(&self) -> Outline<V> {
        let (h, r) = (self.half_height, self.radius);
        Outline::Polytope {
            vertices: rim(-h, r).chain(rim(h, r)).collect(),
            rounding: 0.0,
        }
    }
}

impl<V: Vector> CoreSupport<V> for Cone<V> {}

impl<V: Vector> ConvexShape<V> for Cone<V> {
    fn name(&self) -> &'static str {
        "cone"
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        Cone::bounding_radius_about(self, centre)
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        Cone::mass_properties(self, density)
    }
    /// The apex, then a polygon inscribed in the base's rim.
    fn outline(&self) -> Outline<V> {
        let (h, r) = (self.half_height, self.radius);
        Outline::Polytope {
            vertices: std::iter::once(V::unit(1) * h).chain(rim(-h, r)).collect(),
            rounding: 0.0,
        }
    }
}
