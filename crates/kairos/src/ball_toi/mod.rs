//! The narrow phase of balls: exact times of contact, and the contact's geometry, for balls
//! moving with constant velocity (or under a constant acceleration, `accel.rs`).
//!
//! # The entry
//! Broad phases and the discrete stepper ask for contact times only through the shape-level
//! entry: [`ball_ball`], [`ball_ball_periodic`] (and its bounded form
//! [`ball_ball_periodic_by`], the calendar's path), [`ball_wall`], or through
//! [`crate::world::World::predict_pair`] and [`crate::world::World::predict_wall`], which call
//! them. The collision response asks [`ball_ball_contact`] and [`ball_wall_contact`] for the
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
    ball_ball_accel, ball_plane_accel, ball_polygon_accel, ball_segment_accel, ball_wall_accel,
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

pub use crate::roots::{discriminant, first_contact, Toi, ToiStatus};

use crate::body::Body;
use crate::math::Vector;
use crate::wall::Wall;

/// [`ball_ball_periodic`] for a caller that uses only contacts at or before `t_max`, with the
/// pair's window end given lazily (`min` of the two [`box_exit`] times; see
/// [`ball_ball_periodic_until`]). Every contact at or before `t_max` is reported with the same
/// bits as the full prediction; a pair that cannot report one is rejected by the
/// [`PeriodicScreen`] without solving, and without evaluating `window_end`
/// ([`ToiStatus::NotBy`]). `lo` must be the body with the lower id.
#[inline(always)]
pub fn ball_ball_periodic_by<V: Vector>(
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

/// Contact time of a ball with a wall of closed form (a segment, a plane or a polygon); `None`
/// for a static shape wall, whose contact with a ball has no closed form: the caller advances
/// the pair (`World` and the discrete stepper call `rigid::ball_static_shape`).
#[inline]
pub fn ball_wall<V: Vector>(b: &Body<V>, wall: &Wall<V>) -> Option<Toi> {
    match wall {
        Wall::Segment(s) => Some(ball_segment(b, s)),
        Wall::Plane(p) => Some(ball_plane(b, p)),
        Wall::Polygon(p) => Some(ball_polygon(b, p)),
        Wall::Shape(_) => None,
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
pub fn ball_ball_contact<V: Vector>(a: &Body<V>, _b: &Body<V>, separation: V) -> Contact<V> {
    let normal = unit(separation);
    Contact {
        separation,
        normal,
        point: normal.map_or(a.pos, |n| a.pos - n * a.radius),
    }
}

/// The contact of body `b`, stored at the contact's time, with `wall`.
#[inline]
pub fn ball_wall_contact<V: Vector>(b: &Body<V>, wall: &Wall<V>) -> Contact<V> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DVec2, DVec3};

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
        let c = ball_ball_contact(&a, &b, a.pos - b.pos);
        assert!((c.normal.unwrap() - DVec2::new(0.6, 0.8)).length() < 1e-15);
        assert!((c.point - DVec2::new(2.4, 3.2)).length() < 1e-14);
        let same = ball_ball_contact(&a, &a, DVec2::ZERO);
        assert_eq!(same.normal, None);
        let floor = Wall::Plane(Plane::new(DVec2::new(0.0, 1.0), DVec2::new(0.0, 1.0)).unwrap());
        let w = ball_wall_contact(&a, &floor);
        assert_eq!(w.normal, Some(DVec2::new(0.0, 1.0)));
        assert_eq!(w.point, DVec2::new(3.0, 1.0));
        assert_eq!(w.separation, DVec2::new(0.0, 3.0));
    }

    /// Head-on pairs whose quadratic's products leave the range of floats, with lengths and
    /// speeds a scene file accepts: a distance of 1e57 closed at 1e98 (`b²` overflows), balls
    /// of radius 1e-78 a unit apart (`b²` overflows once the lengths are scaled to the radius),
    /// and slow tiny ones (`b²` underflows). Each collides at the time of its exact quadratic.
    #[test]
    fn head_on_pairs_collide_at_any_magnitude() {
        for (gap, speed, sigma) in [
            (1e57, 1e98, 1e56),
            (1e57, 1e-100, 1e56),
            (1.0, 1.0, 2e-78),
            (1e-90, 1e-100, 1e-92),
            (1e100, 1e100, 1e-40),
        ] {
            for dim_3 in [false, true] {
                let r = if dim_3 {
                    first_contact(
                        DVec3::new(gap, 0.0, 0.0),
                        DVec3::new(-speed, 0.0, 0.0),
                        sigma,
                    )
                } else {
                    first_contact(DVec2::new(0.0, gap), DVec2::new(0.0, -speed), sigma)
                };
                let exact = (gap - sigma) / speed;
                assert_eq!(r.status, ToiStatus::Approaching, "{gap} {speed} {sigma}");
                assert!(
                    (r.time - exact).abs() <= 1e-14 * exact,
                    "{gap} {speed} {sigma}: {} vs {exact}",
                    r.time
                );
            }
        }
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
