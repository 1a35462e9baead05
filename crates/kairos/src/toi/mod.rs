//! The narrow phase: exact times of contact, and the contact's geometry, for bodies moving with
//! constant velocity.
//!
//! # The entry
//! Broad phases and the discrete stepper ask for contact times only through the shape-level
//! entry: [`body_body`], [`body_body_periodic`] (and its bounded form
//! [`body_body_periodic_by`], the calendar's path), [`body_wall`], or through
//! [`crate::world::World::predict_pair`] and [`crate::world::World::predict_wall`], which call
//! them. The collision response asks [`body_body_contact`] and [`body_wall_contact`] for the
//! contact's normal and point at the event's time. Each entry dispatches on the shapes of its
//! pair (balls only, for now), so a new shape adds its solvers here and nowhere else.
//!
//! The contact geometry is a query of its own rather than a field of [`Toi`]: a broad phase
//! predicts many pairs for every event it keeps (the calendar about twenty), and an event's
//! bodies are advanced to its time before the response anyway, so the geometry is computed once,
//! for the event processed, from the advanced states.
//!
//! # Balls
//! Every query reduces to one problem: the first `t >= 0` at which `|d + w t| = sigma`, where
//! `d` is a relative position, `w` a relative velocity and `sigma` a contact distance
//! (thesis section 3.1.5, equations 3.9 to 3.12). [`first_contact`] solves it without
//! cancellation. Policy, shared by every query:
//!
//! * only an *approaching* pair (`d . w < 0`) can collide;
//! * an approaching pair that already touches or overlaps (round-off) collides at once, `t = 0`
//!   ([`ToiStatus::Penetrating`]);
//! * a grazing pair (discriminant `<= 0`) does not collide ([`ToiStatus::Grazing`]);
//! * no query ever returns NaN: a miss has `time = +inf`.
//!
//! A prediction is a pure function of the stored states of the bodies (and the wall) involved:
//! it is evaluated at the reference time `max` of the bodies' local times, never at the
//! simulation's current time, so every broad phase computes bit-identical contact times.

mod accel;
mod ball_ball;
mod ball_plane;
mod ball_segment;
mod boxes;
mod periodic;

pub use accel::{
    ball_ball_accel, ball_plane_accel, ball_polygon_accel, ball_segment_accel, body_wall_accel,
    escape_time, first_contact_accel, first_zero_quadratic, window_accel,
};
pub use ball_ball::ball_ball;
pub use ball_plane::{ball_plane, ball_polygon};
pub use ball_segment::ball_segment;
pub use boxes::box_windows;
pub use periodic::{
    ball_ball_periodic, ball_ball_periodic_cannot_hit_by, ball_ball_periodic_until, box_exit,
    MinImage, PairScreen, PeriodicScreen, ScreenBatch,
};

use crate::body::Body;
use crate::math::Vector;
use crate::wall::Wall;

/// Outcome of a time-of-contact query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToiStatus {
    /// The pair approaches and touches at [`Toi::time`].
    Approaching,
    /// The pair touches or overlaps (by round-off) and approaches: contact now.
    Penetrating,
    /// The pair is not approaching (or has no relative motion): no contact.
    Separating,
    /// The pair approaches but passes without touching, or only grazes: no contact.
    Grazing,
    /// A bounded query ([`body_body_periodic_by`]) proved that no contact comes at or before
    /// its bound, without solving; a later contact may exist.
    NotBy,
}

/// Result of a time-of-contact query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Toi {
    /// Absolute time of contact for the `ball_*` queries (relative for [`first_contact`]);
    /// `+inf` when there is no contact.
    pub time: f64,
    /// What the query found.
    pub status: ToiStatus,
}

impl Toi {
    /// A miss with the given status.
    #[inline]
    pub const fn miss(status: ToiStatus) -> Self {
        Self {
            time: f64::INFINITY,
            status,
        }
    }
    /// True when the query found a contact.
    #[inline]
    pub fn is_hit(&self) -> bool {
        matches!(self.status, ToiStatus::Approaching | ToiStatus::Penetrating)
    }
}

/// Contact time of two bodies in open space (see [`ball_ball()`]).
#[inline]
pub fn body_body<V: Vector>(a: &Body<V>, b: &Body<V>) -> Toi {
    ball_ball(a, b)
}

/// Contact time of two bodies in the periodic box `period` (see [`ball_ball_periodic`]).
#[inline]
pub fn body_body_periodic<V: Vector>(a: &Body<V>, b: &Body<V>, period: V) -> Toi {
    ball_ball_periodic(a, b, period)
}

/// [`body_body_periodic`] for a caller that uses only contacts at or before `t_max`, with the
/// pair's window end given lazily (`min` of the two [`box_exit`] times; see
/// [`ball_ball_periodic_until`]). Every contact at or before `t_max` is reported with the same
/// bits as the full prediction; a pair that cannot report one is rejected by the
/// [`PeriodicScreen`] without solving, and without evaluating `window_end`
/// ([`ToiStatus::NotBy`]). `lo` must be the body with the lower id.
#[inline(always)]
pub fn body_body_periodic_by<V: Vector>(
    lo: &Body<V>,
    hi: &Body<V>,
    period: V,
    t_max: f64,
    window_end: impl FnOnce() -> f64,
) -> Toi {
    match PeriodicScreen::of(lo, hi, period, t_max) {
        PeriodicScreen::Reject => Toi::miss(ToiStatus::NotBy),
        PeriodicScreen::MinImage(m) => m.contact_until(window_end()),
        PeriodicScreen::Full => ball_ball_periodic_until(lo, hi, period, window_end()),
    }
}

/// Contact time of a body with a wall.
#[inline]
pub fn body_wall<V: Vector>(b: &Body<V>, wall: &Wall<V>) -> Toi {
    match wall {
        Wall::Segment(s) => ball_segment(b, s),
        Wall::Plane(p) => ball_plane(b, p),
        Wall::Polygon(p) => ball_polygon(b, p),
        Wall::Shape(s) => crate::rigid::ball_static_shape(b, V::ZERO, s),
    }
}

/// Where two bodies, or a body and a wall, touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact<V: Vector> {
    /// The centre line: body `a`'s centre minus body `b`'s (nearest periodic image), or the
    /// body's centre minus the wall's closest point.
    pub separation: V,
    /// Unit normal, pointing from `b` (or the wall) towards `a`; `None` when it is undefined
    /// (the centres coincide, or the centre lies on the wall).
    pub normal: Option<V>,
    /// The contact point: where `a`'s surface meets the normal (for a wall, the wall's closest
    /// point).
    pub point: V,
}

/// The contact of bodies `a` and `b`, both stored at the contact's time, whose centre line is
/// `separation` (`a - b`, through the nearest periodic image: see
/// [`crate::world::World::separation`]).
#[inline]
pub fn body_body_contact<V: Vector>(a: &Body<V>, _b: &Body<V>, separation: V) -> Contact<V> {
    let normal = unit(separation);
    Contact {
        separation,
        normal,
        point: normal.map_or(a.pos, |n| a.pos - n * a.radius),
    }
}

/// The contact of body `b`, stored at the contact's time, with `wall`.
#[inline]
pub fn body_wall_contact<V: Vector>(b: &Body<V>, wall: &Wall<V>) -> Contact<V> {
    let point = wall.closest_point(b.pos);
    let separation = b.pos - point;
    Contact {
        separation,
        normal: unit(separation),
        point,
    }
}

/// `d / |d|`, or `None` when `d` is zero (or not finite).
#[inline]
fn unit<V: Vector>(d: V) -> Option<V> {
    let dist2 = d.length_squared();
    (dist2 > 0.0 && dist2.is_finite()).then(|| d * (1.0 / dist2.sqrt()))
}

/// Below this fraction of `b²`, the discriminant `b² − a c` of [`first_contact`]'s quadratic
/// is taken in its cross-product form (see [`discriminant`]).
const CANCELLATION: f64 = 1.0 / (1u64 << 20) as f64;

/// The discriminant `b² − a c` of the contact quadratic `a t² + 2 b t + c` for `a = |w|²`,
/// `b = d · w`, `c = |d|² − σ²` (each as the caller computed it), without losing it to
/// cancellation.
///
/// `b² − a c` rounds with an error of a few ulps of `b²`: where `σ` is small against `|d|`, `c`
/// rounds to `|d|²` and the discriminant of a head-on pair (`σ² |w|²`, exactly) cancels to
/// nothing, so a pair whose radii are below about `1e-8` of their distance passed through each
/// other. By Lagrange's identity the discriminant is also `σ² |w|² − |d × w|²`, whose error is
/// a few ulps of `|d| |w| |d × w| + σ² |w|²`: never larger, and exact for a head-on pair. It is
/// used where the first form keeps fewer than about 32 significant bits (`b² − a c` below
/// `2⁻²⁰ b²`); elsewhere the first form's own bits are kept (the contact time's relative error
/// from the discriminant, `≈ 3 ε |b| / √disc`, is then below `2¹⁰ ε`). The result never
/// exceeds `b²` (true whenever `c >= 0`, and relied on by [`PeriodicScreen`]'s proof) and is
/// never NaN for finite input.
#[inline(always)]
pub fn discriminant<V: Vector>(d: V, w: V, sigma: f64, a: f64, b: f64, c: f64) -> f64 {
    let bb = b * b;
    let disc = bb - a * c;
    if !(disc <= CANCELLATION * bb) {
        return disc;
    }
    cross_discriminant(d, w, sigma, a).min(bb)
}

/// `σ² |w|² − |d × w|²` (the cold branch of [`discriminant`]).
#[cold]
#[inline(never)]
fn cross_discriminant<V: Vector>(d: V, w: V, sigma: f64, a: f64) -> f64 {
    let (d, w) = (d.to_array3(), w.to_array3());
    let cross = [
        d[1] * w[2] - d[2] * w[1],
        d[2] * w[0] - d[0] * w[2],
        d[0] * w[1] - d[1] * w[0],
    ];
    let alt = sigma * sigma * a - (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]);
    if alt.is_nan() {
        f64::NEG_INFINITY
    } else {
        alt
    }
}

/// First time `t >= 0` at which `|d + w t| = sigma` while the distance decreases.
///
/// Exact up to round-off: with `b = d.w`, `a = w.w` and `c = d.d - sigma^2`, the earlier root
/// of `a t^2 + 2 b t + c = 0` is computed as `c / (-b + sqrt(b^2 - a c))`, where both terms of
/// the denominator are positive for an approaching pair, so nothing cancels; the discriminant
/// itself comes from [`discriminant`], so a head-on pair collides however small its radii
/// against its distance. The returned time
/// is relative (`t = 0` is the instant at which `d` is measured).
#[inline]
pub fn first_contact<V: Vector>(d: V, w: V, sigma: f64) -> Toi {
    let b = d.dot(w);
    // `!(b < 0)` also rejects NaN.
    if !(b < 0.0) {
        return Toi::miss(ToiStatus::Separating);
    }
    let c = d.dot(d) - sigma * sigma;
    if c <= 0.0 {
        return Toi {
            time: 0.0,
            status: ToiStatus::Penetrating,
        };
    }
    let a = w.dot(w);
    let disc = discriminant(d, w, sigma, a, b, c);
    if !(disc > 0.0) {
        return Toi::miss(ToiStatus::Grazing);
    }
    let t = c / (disc.sqrt() - b);
    if t.is_finite() {
        Toi {
            time: t,
            status: ToiStatus::Approaching,
        }
    } else {
        Toi::miss(ToiStatus::Grazing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec2;

    #[test]
    fn head_on() {
        let r = first_contact(DVec2::new(10.0, 0.0), DVec2::new(-2.0, 0.0), 2.0);
        assert_eq!(r.status, ToiStatus::Approaching);
        assert_eq!(r.time, 4.0);
    }

    #[test]
    fn separating_grazing_penetrating() {
        let s = first_contact(DVec2::new(10.0, 0.0), DVec2::new(1.0, 0.0), 2.0);
        assert_eq!(s.status, ToiStatus::Separating);
        assert!(s.time.is_infinite());
        let g = first_contact(DVec2::new(10.0, 2.0), DVec2::new(-1.0, 0.0), 2.0);
        assert_eq!(g.status, ToiStatus::Grazing);
        let p = first_contact(DVec2::new(1.0, 0.0), DVec2::new(-1.0, 0.0), 2.0);
        assert_eq!(
            p,
            Toi {
                time: 0.0,
                status: ToiStatus::Penetrating
            }
        );
        let z = first_contact(DVec2::new(1.0, 0.0), DVec2::ZERO, 2.0);
        assert_eq!(z.status, ToiStatus::Separating);
        let n = first_contact(DVec2::new(f64::NAN, 0.0), DVec2::new(-1.0, 0.0), 2.0);
        assert!(!n.is_hit() && !n.time.is_nan());
    }

    #[test]
    fn contact_geometry_of_balls_and_walls() {
        use crate::body::Body;
        use crate::wall::{Plane, Wall};
        let a = Body::new(DVec2::new(3.0, 4.0), DVec2::ZERO, 1.0, 1.0);
        let b = Body::new(DVec2::ZERO, DVec2::ZERO, 4.0, 1.0);
        let c = body_body_contact(&a, &b, a.pos - b.pos);
        assert!((c.normal.unwrap() - DVec2::new(0.6, 0.8)).length() < 1e-15);
        assert!((c.point - DVec2::new(2.4, 3.2)).length() < 1e-14);
        let same = body_body_contact(&a, &a, DVec2::ZERO);
        assert_eq!(same.normal, None);
        let floor = Wall::Plane(Plane::new(DVec2::new(0.0, 1.0), DVec2::new(0.0, 1.0)).unwrap());
        let w = body_wall_contact(&a, &floor);
        assert_eq!(w.normal, Some(DVec2::new(0.0, 1.0)));
        assert_eq!(w.point, DVec2::new(3.0, 1.0));
        assert_eq!(w.separation, DVec2::new(0.0, 3.0));
    }

    #[test]
    fn no_cancellation_for_tiny_gaps() {
        // Gap of 1e-12 at unit speed: the textbook formula (-b - sqrt(disc)) / a loses all
        // digits here; the stable form keeps them.
        let gap = 1e-12;
        let r = first_contact(DVec2::new(1.0 + gap, 0.0), DVec2::new(-1e6, 0.0), 1.0);
        let exact = gap / 1e6;
        assert!(
            (r.time - exact).abs() <= 1e-3 * exact,
            "{} vs {}",
            r.time,
            exact
        );
    }
}
