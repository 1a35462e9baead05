use super::{ball_segment, Toi, ToiStatus};
use crate::body::Body;
use crate::math::Vector;
use crate::wall::{Plane, Polygon};

/// Time at which a ball first touches an infinite plane (from either side), as an absolute
/// time. Exact up to round-off; follows the [module policy](super): only an approaching ball
/// collides, one that touches or overlaps while approaching collides at once. A pure function
/// of the ball's stored state and the plane.
#[inline]
pub fn ball_plane<V: Vector>(ball: &Body<V>, plane: &Plane<V>) -> Toi {
    let d = plane.signed_distance(ball.pos);
    let w = ball.vel.dot(plane.normal);
    // Approaching: moving towards the plane from the side the ball is on.
    if !(d * w < 0.0) {
        return Toi::miss(ToiStatus::Separating);
    }
    let gap = d.abs() - ball.radius;
    if gap <= 0.0 {
        return Toi {
            time: ball.time,
            status: ToiStatus::Penetrating,
        };
    }
    let t = gap / w.abs();
    if t.is_finite() {
        Toi {
            time: ball.time + t,
            status: ToiStatus::Approaching,
        }
    } else {
        Toi::miss(ToiStatus::Grazing)
    }
}

/// Time at which a ball first touches a convex polygon, as an absolute time: the earlier of
/// the contact with the polygon's face (the plane contact, accepted when the contact point lies
/// inside the polygon) and the contacts with its edges and vertices ([`ball_segment`] of each
/// edge). Exact up to round-off; a pure function of the ball's stored state and the polygon.
pub fn ball_polygon<V: Vector>(ball: &Body<V>, poly: &Polygon<V>) -> Toi {
    let mut best = ball_plane(ball, &poly.plane);
    if best.is_hit() && !poly.contains_projection(ball.position_at(best.time)) {
        best = Toi::miss(ToiStatus::Grazing);
    }
    for e in &poly.edges {
        let t = ball_segment(ball, e);
        if t.is_hit() && t.time < best.time {
            best = t;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    fn square() -> Polygon<DVec3> {
        Polygon::new(vec![
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(4.0, 0.0, 0.0),
            DVec3::new(4.0, 4.0, 0.0),
            DVec3::new(0.0, 4.0, 0.0),
        ])
        .unwrap()
    }

    #[test]
    fn plane_from_both_sides() {
        let pl = Plane::new(DVec3::ZERO, DVec3::Z).unwrap();
        let above = Body::new(
            DVec3::new(1.0, 2.0, 5.0),
            DVec3::new(0.0, 0.0, -2.0),
            1.0,
            1.0,
        );
        assert_eq!(ball_plane(&above, &pl).time, 2.0);
        let below = Body::new(
            DVec3::new(1.0, 2.0, -5.0),
            DVec3::new(0.0, 0.0, 2.0),
            1.0,
            1.0,
        );
        assert_eq!(ball_plane(&below, &pl).time, 2.0);
        let away = Body::new(
            DVec3::new(1.0, 2.0, 5.0),
            DVec3::new(0.0, 0.0, 2.0),
            1.0,
            1.0,
        );
        assert!(!ball_plane(&away, &pl).is_hit());
    }

    #[test]
    fn polygon_face_edge_and_miss() {
        let sq = square();
        let face = Body::new(
            DVec3::new(2.0, 2.0, 5.0),
            DVec3::new(0.0, 0.0, -1.0),
            1.0,
            1.0,
        );
        assert_eq!(ball_polygon(&face, &sq).time, 4.0);
        // Falling just outside the edge x = 4 at x = 4.5: touches the edge when the distance to
        // the line (x = 4, z = 0) is 1: (0.5^2 + z^2) = 1.
        let edge = Body::new(
            DVec3::new(4.5, 2.0, 5.0),
            DVec3::new(0.0, 0.0, -1.0),
            1.0,
            1.0,
        );
        let t = ball_polygon(&edge, &sq);
        assert!(
            (t.time - (5.0 - 0.75f64.sqrt())).abs() < 1e-12,
            "{}",
            t.time
        );
        let miss = Body::new(
            DVec3::new(6.0, 2.0, 5.0),
            DVec3::new(0.0, 0.0, -1.0),
            1.0,
            1.0,
        );
        assert!(!ball_polygon(&miss, &sq).is_hit());
    }

    #[test]
    fn polygon_validation() {
        assert!(Polygon::new(vec![DVec3::ZERO, DVec3::X]).is_err());
        assert!(Polygon::new(vec![DVec3::ZERO, DVec3::X, DVec3::X * 2.0]).is_err());
        let bent = vec![DVec3::ZERO, DVec3::X, DVec3::new(1.0, 1.0, 0.5), DVec3::Y];
        assert_eq!(
            Polygon::new(bent).unwrap_err(),
            crate::wall::PolygonError::NotCoplanar
        );
        let concave = vec![
            DVec3::ZERO,
            DVec3::new(2.0, 0.0, 0.0),
            DVec3::new(1.0, 0.5, 0.0),
            DVec3::new(2.0, 2.0, 0.0),
            DVec3::new(0.0, 2.0, 0.0),
        ];
        assert!(matches!(
            Polygon::new(concave).unwrap_err(),
            crate::wall::PolygonError::NotConvex(_)
        ));
    }
}
