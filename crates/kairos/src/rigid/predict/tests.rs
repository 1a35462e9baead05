//! Tests of the bounding spheres' window and of pairs that touch within round-off.

use super::*;
use crate::math::DVec2;

#[test]
fn sphere_window_enters_and_leaves() {
    let (s_in, s_out) = sphere_window(DVec2::new(10.0, 0.0), DVec2::new(-1.0, 0.0), 2.0).unwrap();
    assert_eq!((s_in, s_out), (8.0, 12.0));
    let (s_in, s_out) = sphere_window(DVec2::new(1.0, 0.0), DVec2::new(1.0, 0.0), 2.0).unwrap();
    assert_eq!((s_in, s_out), (0.0, 1.0));
    assert!(sphere_window(DVec2::new(10.0, 0.0), DVec2::new(1.0, 0.0), 2.0).is_none());
    assert!(sphere_window(DVec2::new(10.0, 5.0), DVec2::new(-1.0, 0.0), 2.0).is_none());
    assert_eq!(
        sphere_window(DVec2::new(1.0, 0.0), DVec2::ZERO, 2.0),
        Some((0.0, f64::INFINITY))
    );
    assert!(sphere_window(DVec2::new(f64::NAN, 0.0), DVec2::ZERO, 2.0).is_none());
}

/// A box resting face to face on another (gap 0, no pull between them) and turning about its
/// centre dips one bottom corner into the box below while the other lifts; the middle of the
/// face moves sideways. Whichever point the gap's witnesses land on, the turn is a contact now,
/// in either sense of turning, never a separation for ever.
#[test]
fn a_box_turning_on_a_face_it_touches_is_a_contact() {
    use crate::body::Body;
    use crate::rigid::RigidState;
    use crate::shape::Shape;
    let shape = Shape::cuboid(DVec2::new(0.5, 0.5)).unwrap();
    let props = shape.mass_properties(1.0).unwrap();
    let still = RigidState::new(
        0,
        &shape,
        &props,
        <crate::math::Rot2 as crate::math::Rotation<DVec2>>::IDENTITY,
        0.0,
    )
    .unwrap();
    let mut lower = Body::new(DVec2::ZERO, DVec2::ZERO, still.radius, 1.0);
    lower.time = 0.0;
    for omega in [1.0, -1.0, 1e-6, -3e4] {
        let turning = RigidState::new(
            0,
            &shape,
            &props,
            <crate::math::Rot2 as crate::math::Rotation<DVec2>>::IDENTITY,
            omega,
        )
        .unwrap();
        let upper = Body::new(DVec2::new(0.0, 1.0), DVec2::ZERO, turning.radius, 1.0);
        let a = MovingPiece::body(&shape, &lower, &still);
        let b = MovingPiece::body(&shape, &upper, &turning);
        let toi = body_body(&a, &b, f64::INFINITY);
        assert!(toi.is_hit(), "omega {omega}: {toi:?}");
        assert_eq!(toi.time, 0.0, "omega {omega}: {toi:?}");
        assert_eq!(toi.status, ToiStatus::Penetrating, "omega {omega}");
    }
}

/// A plank tilted by 0.2 rad rests on its lowest corner on a wide box (overlapping it by
/// round-off: the gap is EPA's 0) and turns so that this corner lifts: no point comes in now,
/// but the other end swings down and touches at the mirrored tilt, after 0.4 s. The prediction
/// is that contact, never a separation for ever; the same plank not turning but sliding away
/// is apart for ever.
#[test]
fn a_turning_plank_that_touches_and_leaves_meets_again() {
    use crate::body::Body;
    use crate::math::{Rot2, Rotation};
    use crate::rigid::RigidState;
    use crate::shape::Shape;
    let floor = Shape::cuboid(DVec2::new(5.0, 0.5)).unwrap();
    let plank = Shape::cuboid(DVec2::new(0.5, 0.1)).unwrap();
    let (floor_props, plank_props) = (
        floor.mass_properties(1.0).unwrap(),
        plank.mass_properties(1.0).unwrap(),
    );
    let tilt = 0.2f64;
    let rotation = Rot2::from_angle(tilt);
    let still = RigidState::new(0, &floor, &floor_props, Rot2::IDENTITY, 0.0).unwrap();
    let lower = Body::new(DVec2::new(0.0, -0.5), DVec2::ZERO, still.radius, 1.0);
    let corner = rotation.rotate(DVec2::new(-0.5, -0.1));
    let centre = DVec2::new(0.0, -corner.y - 1e-15);
    let a = MovingPiece::body(&floor, &lower, &still);
    let turning = RigidState::new(0, &plank, &plank_props, rotation, -1.0).unwrap();
    let upper = Body::new(centre, DVec2::ZERO, turning.radius, 1.0);
    let b = MovingPiece::body(&plank, &upper, &turning);
    let toi = body_body(&a, &b, f64::INFINITY);
    let meet = 2.0 * tilt;
    assert!(toi.is_hit(), "{toi:?}");
    assert!(
        toi.time <= meet && toi.time > meet - 1e-5,
        "{toi:?}, the other end touches at {meet}"
    );
    // Sliding away without turning: apart for ever.
    let sliding = RigidState::new(0, &plank, &plank_props, rotation, 0.0).unwrap();
    let away = Body::new(centre, DVec2::new(1.0, 0.0), sliding.radius, 1.0);
    let b = MovingPiece::body(&plank, &away, &sliding);
    assert_eq!(
        body_body(&a, &b, f64::INFINITY).status,
        ToiStatus::Separating
    );
}
