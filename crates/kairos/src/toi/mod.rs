//! Exact times of contact (narrow phase) for balls moving with constant velocity.
//!
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

mod ball_ball;
mod ball_plane;
mod ball_segment;
mod periodic;

pub use ball_ball::ball_ball;
pub use ball_plane::{ball_plane, ball_polygon};
pub use ball_segment::ball_segment;
pub use periodic::{
    ball_ball_periodic, ball_ball_periodic_cannot_hit_by, ball_ball_periodic_until, box_exit,
    MinImage, PairScreen, PeriodicScreen, ScreenBatch,
};

use crate::math::Vector;

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

/// First time `t >= 0` at which `|d + w t| = sigma` while the distance decreases.
///
/// Exact up to round-off: with `b = d.w`, `a = w.w` and `c = d.d - sigma^2`, the earlier root
/// of `a t^2 + 2 b t + c = 0` is computed as `c / (-b + sqrt(b^2 - a c))`, where both terms of
/// the denominator are positive for an approaching pair, so nothing cancels. The returned time
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
    let disc = b * b - a * c;
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
