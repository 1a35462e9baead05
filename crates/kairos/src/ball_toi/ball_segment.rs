use super::{first_contact, Toi, ToiStatus};
use crate::body::Body;
use crate::math::Vector;
use crate::wall::WallSegment;

/// Time at which a ball first touches a static segment, as an absolute time.
///
/// Exact up to round-off. The ball's centre touches the segment's Minkowski sum with the ball
/// (a capsule): the earliest of the contact with the side of the segment (distance `radius` to
/// the supporting line, accepted only where the foot of the perpendicular lies on the segment)
/// and the contacts with the two endpoint caps. Each piece is solved by [`first_contact`], so
/// the [module policy](super) holds. Works unchanged in 3D, where the side is a cylinder.
/// A pure function of the ball's stored state and the segment.
#[inline]
pub fn ball_segment<V: Vector>(ball: &Body<V>, seg: &WallSegment<V>) -> Toi {
    let d = ball.pos - seg.a;
    let v = ball.vel;
    let r = ball.radius;
    // Components orthogonal to the segment's direction.
    let d_along = d.dot(seg.dir);
    let v_along = v.dot(seg.dir);
    let d_perp = d - seg.dir * d_along;
    let v_perp = v - seg.dir * v_along;
    let mut best = first_contact(d_perp, v_perp, r);
    if best.is_hit() {
        let s = d_along + v_along * best.time;
        if !(0.0..=seg.len).contains(&s) {
            best = Toi::miss(ToiStatus::Grazing);
        }
    }
    for cap in [d, ball.pos - seg.b] {
        let c = first_contact(cap, v, r);
        if c.is_hit() && c.time < best.time {
            best = c;
        }
    }
    if !best.is_hit() && best.status == ToiStatus::Grazing {
        // Keep the most informative miss: separating from the line means separating overall.
        let line = first_contact(d_perp, v_perp, r);
        if line.status == ToiStatus::Separating {
            best = line;
        }
    }
    best.time += ball.time;
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec2;

    fn seg() -> WallSegment<DVec2> {
        WallSegment::new(DVec2::new(0.0, 0.0), DVec2::new(10.0, 0.0)).unwrap()
    }

    #[test]
    fn face_contact() {
        let b = Body::new(DVec2::new(5.0, 5.0), DVec2::new(0.0, -2.0), 1.0, 1.0);
        let t = ball_segment(&b, &seg());
        assert_eq!(t.status, ToiStatus::Approaching);
        assert_eq!(t.time, 2.0);
    }

    #[test]
    fn cap_contact() {
        // Moving straight down at x = -0.5: misses the side, hits the cap at (0,0) when
        // y^2 + 0.25 = 1.
        let b = Body::new(DVec2::new(-0.5, 5.0), DVec2::new(0.0, -1.0), 1.0, 1.0);
        let t = ball_segment(&b, &seg());
        assert_eq!(t.status, ToiStatus::Approaching);
        assert!((t.time - (5.0 - 0.75f64.sqrt())).abs() < 1e-14);
    }

    #[test]
    fn passes_beyond_the_end() {
        let b = Body::new(DVec2::new(-2.0, 5.0), DVec2::new(0.0, -1.0), 1.0, 1.0);
        assert!(!ball_segment(&b, &seg()).is_hit());
    }

    #[test]
    fn moving_away_is_separating() {
        let b = Body::new(DVec2::new(5.0, 5.0), DVec2::new(0.0, 1.0), 1.0, 1.0);
        assert_eq!(ball_segment(&b, &seg()).status, ToiStatus::Separating);
    }
}
