//! The typed errors of bad shapes, rotations and motions: sizes, dimensions, vertices,
//! quaternions and velocities out of range are refused, each naming the item.

use kairos_geometry::math::{DQuat, DVec2, DVec3, Rot2, Rotation, RotationError, Vector};
use std::f64::consts::PI;

use kairos_geometry::shape::{Ball, MotionError, Pose, RigidMotion, Shape, ShapeError};
// ---------------------------------------------------------------------------------------------
// Typed errors

#[test]
fn bad_sizes_are_refused() {
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            Ball::new(bad),
            Err(ShapeError::InvalidSize { what: "radius", .. })
        ));
        assert!(matches!(
            Shape::<DVec3>::cuboid(DVec3::new(1.0, bad, 1.0)),
            Err(ShapeError::InvalidSize { .. })
        ));
        assert!(matches!(
            Shape::<DVec2>::capsule(1.0, bad),
            Err(ShapeError::InvalidSize { what: "radius", .. })
        ));
        assert!(matches!(
            Shape::<DVec3>::cylinder(bad, 1.0),
            Err(ShapeError::InvalidSize {
                what: "half_height",
                ..
            })
        ));
        assert!(matches!(
            Shape::<DVec3>::cone(1.0, bad),
            Err(ShapeError::InvalidSize { what: "radius", .. })
        ));
    }
    assert!(Shape::<DVec2>::capsule(0.0, 1.0).is_ok());
    assert!(matches!(
        Shape::<DVec2>::capsule(-0.5, 1.0),
        Err(ShapeError::InvalidSize {
            what: "half_height",
            requirement: "non-negative and finite",
            ..
        })
    ));
    let e = Ball::new(-2.0).unwrap_err();
    assert_eq!(e.to_string(), "radius must be positive and finite, got -2");
}

#[test]
fn shapes_of_the_other_dimension_are_refused() {
    fn wrong<V: Vector>(
        shape: &'static str,
        only: usize,
        dim: usize,
    ) -> Result<Shape<V>, ShapeError> {
        Err(ShapeError::WrongDimension { shape, only, dim })
    }
    assert_eq!(Shape::<DVec2>::cylinder(1.0, 1.0), wrong("cylinder", 3, 2));
    assert_eq!(Shape::<DVec2>::cone(1.0, 1.0), wrong("cone", 3, 2));
    let square = vec![DVec3::ZERO, DVec3::X, DVec3::X + DVec3::Y, DVec3::Y];
    assert_eq!(
        Shape::convex_polygon(square.clone()),
        wrong("convex polygon", 2, 3)
    );
    // In 3D the hull is a polyhedron, which a flat square is not; in 2D there is none.
    assert_eq!(Shape::convex_hull(&square), Err(ShapeError::ZeroVolume));
    let flat = [DVec2::ZERO, DVec2::X, DVec2::Y, DVec2::ONE];
    assert_eq!(Shape::polyhedron(&flat), wrong("polyhedron", 3, 2));
    assert_eq!(
        Shape::<DVec2>::cone(1.0, 1.0).unwrap_err().to_string(),
        "a cone exists only in 3D, not in 2D"
    );
}

#[test]
fn bad_vertices_are_refused() {
    let p = |x: f64, y: f64| DVec2::new(x, y);
    assert_eq!(
        Shape::segment(p(1.0, 1.0), p(1.0, 1.0)),
        Err(ShapeError::CoincidentVertices {
            first: 0,
            second: 1
        })
    );
    assert_eq!(
        Shape::segment(p(f64::NAN, 1.0), p(1.0, 1.0)),
        Err(ShapeError::NonFiniteVertex { index: 0 })
    );
    assert_eq!(
        Shape::triangle(p(0.0, 0.0), p(1.0, 1.0), p(0.0, 0.0)),
        Err(ShapeError::CoincidentVertices {
            first: 0,
            second: 2
        })
    );
    assert_eq!(
        Shape::triangle(p(0.0, 0.0), p(1.0, 1.0), p(3.0, 3.0)),
        Err(ShapeError::ZeroArea)
    );
    assert_eq!(
        Shape::triangle(DVec3::ZERO, DVec3::ONE, DVec3::ONE * 2.0),
        Err(ShapeError::ZeroArea)
    );
    assert_eq!(
        Shape::triangle(p(0.0, 0.0), p(1.0, 0.0), p(0.5, f64::INFINITY)),
        Err(ShapeError::NonFiniteVertex { index: 2 })
    );

    let square = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)];
    assert!(Shape::convex_polygon(square.clone()).is_ok());
    let mut clockwise = square.clone();
    clockwise.reverse();
    assert_eq!(
        Shape::convex_polygon(clockwise),
        Err(ShapeError::NotConvex { index: 0 })
    );
    let collinear = vec![p(0.0, 0.0), p(0.5, 0.0), p(1.0, 0.0), p(1.0, 1.0)];
    assert_eq!(
        Shape::convex_polygon(collinear),
        Err(ShapeError::NotConvex { index: 1 })
    );
    let reflex = vec![
        p(0.0, 0.0),
        p(2.0, 0.0),
        p(1.0, 0.5),
        p(2.0, 2.0),
        p(0.0, 2.0),
    ];
    assert_eq!(
        Shape::convex_polygon(reflex),
        Err(ShapeError::NotConvex { index: 2 })
    );
    let star: Vec<DVec2> = (0..5)
        .map(|k| DVec2::from_angle(4.0 * PI * k as f64 / 5.0))
        .collect();
    assert_eq!(
        Shape::convex_polygon(star),
        Err(ShapeError::SelfIntersecting { turns: 2 })
    );
    assert_eq!(
        Shape::convex_polygon(square[..2].to_vec()),
        Err(ShapeError::TooFewVertices { count: 2 })
    );
    let repeated = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 0.0), p(0.0, 1.0)];
    assert_eq!(
        Shape::convex_polygon(repeated),
        Err(ShapeError::CoincidentVertices {
            first: 1,
            second: 2
        })
    );
    let mut nan = square.clone();
    nan[3].y = f64::NAN;
    assert_eq!(
        Shape::convex_polygon(nan.clone()),
        Err(ShapeError::NonFiniteVertex { index: 3 })
    );
    assert_eq!(
        Shape::convex_hull(&nan),
        Err(ShapeError::NonFiniteVertex { index: 3 })
    );

    // Hulls: collinear or too few distinct points have no area; interior and repeated points
    // are dropped.
    assert_eq!(
        Shape::convex_hull(&[p(0.0, 0.0), p(1.0, 1.0), p(2.0, 2.0), p(3.0, 3.0)]),
        Err(ShapeError::ZeroArea)
    );
    assert_eq!(
        Shape::convex_hull(&[p(0.0, 0.0), p(1.0, 1.0), p(1.0, 1.0)]),
        Err(ShapeError::ZeroArea)
    );
    let mut cloud = square.clone();
    cloud.extend([p(0.5, 0.5), p(1.0, 1.0), p(0.5, 0.0)]);
    let Shape::ConvexPolygon(hull) = Shape::convex_hull(&cloud).unwrap() else {
        unreachable!()
    };
    assert_eq!(hull.vertices(), &square[..]);
}

#[test]
fn bad_rotations_and_motions_are_refused() {
    assert_eq!(Rot2::try_from_slice(&[0.5]).unwrap(), Rot2::from_angle(0.5));
    assert_eq!(
        Rot2::try_from_slice(&[f64::NAN]),
        Err(RotationError::NonFinite)
    );
    assert_eq!(
        Rot2::try_from_slice(&[1.0, 0.0]),
        Err(RotationError::WrongLength {
            expected: 1,
            got: 2
        })
    );
    assert_eq!(
        DQuat::try_from_slice(&[0.0; 4]),
        Err(RotationError::ZeroQuaternion)
    );
    assert_eq!(
        DQuat::try_from_slice(&[1.0, 0.0, f64::INFINITY, 0.0]),
        Err(RotationError::NonFinite)
    );
    assert_eq!(
        DQuat::try_from_slice(&[1.0, 0.0, 0.0]),
        Err(RotationError::WrongLength {
            expected: 4,
            got: 3
        })
    );
    // [w, x, y, z], normalised, even when tiny.
    assert_eq!(
        DQuat::try_from_slice(&[2.0, 0.0, 0.0, 0.0]).unwrap(),
        DQuat::IDENTITY
    );
    assert_eq!(
        DQuat::try_from_slice(&[1e-200, 0.0, 0.0, 0.0]).unwrap(),
        DQuat::IDENTITY
    );
    let q = DQuat::try_from_slice(&[0.0, 0.0, 0.0, 3.0]).unwrap();
    assert_eq!(q, DQuat::from_xyzw(0.0, 0.0, 1.0, 0.0));

    let pose = Pose::<DVec3>::IDENTITY;
    assert_eq!(
        RigidMotion::new(f64::NAN, pose, DVec3::ZERO, DVec3::ZERO),
        Err(MotionError::NonFinite("time"))
    );
    assert_eq!(
        RigidMotion::new(0.0, pose, DVec3::ZERO, DVec3::new(0.0, f64::INFINITY, 0.0)),
        Err(MotionError::NonFinite("angular velocity"))
    );
    assert_eq!(
        RigidMotion::new(
            0.0,
            Pose::from_position(DVec3::splat(f64::NAN)),
            DVec3::ZERO,
            DVec3::ZERO
        ),
        Err(MotionError::NonFinite("position"))
    );
    assert_eq!(
        RigidMotion::new(0.0, Pose::<DVec2>::IDENTITY, DVec2::new(f64::NAN, 0.0), 0.0),
        Err(MotionError::NonFinite("linear velocity"))
    );
    assert_eq!(
        RigidMotion::new(
            0.0,
            Pose::new(DVec2::ZERO, Rot2::from_angle(f64::NAN)),
            DVec2::ZERO,
            0.0
        ),
        Err(MotionError::NonFinite("rotation"))
    );
}
