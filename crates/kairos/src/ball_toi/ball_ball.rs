use super::{first_contact, Toi};
use crate::body::Body;
use crate::math::Vector;

/// Time at which two balls first touch (thesis equation 3.12), as an absolute time.
///
/// Exact up to round-off for approaching pairs; see the [module policy](super) for overlapping
/// and grazing pairs. A pure function of the two stored states: both are moved to the later of
/// their local times and the relative motion is solved from there. Symmetric: swapping the
/// arguments gives a bit-identical answer.
#[inline]
pub fn ball_ball<V: Vector>(bi: &Body<V>, bj: &Body<V>) -> Toi {
    let t_ref = bi.time.max(bj.time);
    let pi = bi.position_at(t_ref);
    let pj = bj.position_at(t_ref);
    let mut toi = first_contact(pi - pj, bi.vel - bj.vel, bi.radius + bj.radius);
    toi.time += t_ref;
    toi
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ball_toi::ToiStatus;
    use glam::{DVec2, DVec3};

    #[test]
    fn known_answer_with_different_local_times() {
        // i at x=0 (t=1), j at x=10 moving left at speed 1, stored at t=0: at t=1 j is at 9;
        // gap 9 - 2 = 7 closing at 1 -> contact at t = 8.
        let mut bi = Body::new(DVec2::new(0.0, 0.0), DVec2::ZERO, 1.0, 1.0);
        bi.time = 1.0;
        let bj = Body::new(DVec2::new(10.0, 0.0), DVec2::new(-1.0, 0.0), 1.0, 1.0);
        let t = ball_ball(&bi, &bj);
        assert_eq!(t.status, ToiStatus::Approaching);
        assert_eq!(t.time, 8.0);
        assert_eq!(ball_ball(&bj, &bi), t);
    }

    #[test]
    fn three_d_oblique() {
        // Relative motion along x with an offset of 1 in z: contact when dx^2 + 1 = 4.
        let bi = Body::new(
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            1.0,
            1.0,
        );
        let bj = Body::new(DVec3::new(10.0, 0.0, 1.0), DVec3::ZERO, 1.0, 2.0);
        let t = ball_ball(&bi, &bj);
        assert!((t.time - (10.0 - 3f64.sqrt())).abs() < 1e-14);
    }
}
