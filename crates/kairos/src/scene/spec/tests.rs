//! A rigid body's table read into its shape and motion: every shape in 2D and 3D, and the
//! messages of wrong keys and values.

use super::*;
use crate::math::{DQuat, Rot2};

fn body2(text: &str) -> Result<RigidBodySpec<DVec2>, SpecError> {
    RigidBodySpec::from_table(&text.parse().unwrap(), &[])
}
fn body3(text: &str) -> Result<RigidBodySpec<DVec3>, SpecError> {
    RigidBodySpec::from_table(&text.parse().unwrap(), &[])
}
fn message2(text: &str) -> String {
    body2(text).unwrap_err().to_string()
}
fn message3(text: &str) -> String {
    body3(text).unwrap_err().to_string()
}

#[test]
fn every_shape_of_2d() {
    let cases = [
        ("shape = \"ball\"\nradius = 0.5", Shape::ball(0.5)),
        (
            "shape = \"box\"\nhalf_extents = [2, 0.1]",
            Shape::cuboid(DVec2::new(2.0, 0.1)),
        ),
        (
            "shape = \"capsule\"\nhalf_height = 1.0\nradius = 0.2",
            Shape::capsule(1.0, 0.2),
        ),
        (
            "shape = \"polygon\"\nvertices = [[0, 0], [1, 0], [0, 1]]",
            Shape::convex_polygon(vec![DVec2::ZERO, DVec2::X, DVec2::Y]),
        ),
        (
            "shape = \"segment\"\na = [0, 0]\nb = [1, 2]",
            Shape::segment(DVec2::ZERO, DVec2::new(1.0, 2.0)),
        ),
        (
            "shape = \"triangle\"\na = [0, 0]\nb = [1, 0]\nc = [0, 1]",
            Shape::triangle(DVec2::ZERO, DVec2::X, DVec2::Y),
        ),
    ];
    for (keys, shape) in cases {
        let b = body2(&format!("{keys}\nposition = [1, 2]")).unwrap();
        assert_eq!(b.shape, shape.unwrap(), "{keys}");
        assert_eq!(
            b.motion,
            RigidMotion::at_rest(0.0, Pose::from_position(DVec2::new(1.0, 2.0)))
        );
    }
}

#[test]
fn every_shape_of_3d() {
    let cases = [
        ("shape = \"ball\"\nradius = 0.5", Shape::ball(0.5)),
        (
            "shape = \"box\"\nhalf_extents = [1, 2, 3]",
            Shape::cuboid(DVec3::new(1.0, 2.0, 3.0)),
        ),
        (
            "shape = \"capsule\"\nhalf_height = 0\nradius = 0.2",
            Shape::capsule(0.0, 0.2),
        ),
        (
            "shape = \"cylinder\"\nhalf_height = 1\nradius = 0.2",
            Shape::cylinder(1.0, 0.2),
        ),
        (
            "shape = \"cone\"\nhalf_height = 1\nradius = 0.2",
            Shape::cone(1.0, 0.2),
        ),
        (
            "shape = \"segment\"\na = [0, 0, 0]\nb = [1, 2, 3]",
            Shape::segment(DVec3::ZERO, DVec3::new(1.0, 2.0, 3.0)),
        ),
        (
            "shape = \"triangle\"\na = [0, 0, 0]\nb = [1, 0, 0]\nc = [0, 1, 0]",
            Shape::triangle(DVec3::ZERO, DVec3::X, DVec3::Y),
        ),
    ];
    for (keys, shape) in cases {
        let b = body3(&format!("{keys}\nposition = [1, 2, 3]")).unwrap();
        assert_eq!(b.shape, shape.unwrap(), "{keys}");
    }
}

#[test]
fn polyhedron_is_the_hull_of_its_points() {
    let b = body3(
        "shape = \"polyhedron\"\nposition = [0, 0, 0]\n\
         points = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.1, 0.1, 0.1]]",
    )
    .unwrap();
    let pts = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    assert_eq!(b.shape, Shape::convex_hull(&pts).unwrap());
}

#[test]
fn motion_keys_and_defaults() {
    let b = body2(
        "shape = \"ball\"\nradius = 1\nposition = [0, 0]\norientation = 0.5\n\
         velocity = [1, -2]\nangular_velocity = 3",
    )
    .unwrap();
    assert_eq!(b.motion.pose.rotation, Rot2::from_angle(0.5));
    assert_eq!(b.motion.linear_velocity, DVec2::new(1.0, -2.0));
    assert_eq!(b.motion.angular_velocity, 3.0);
    assert_eq!(b.motion.time, 0.0);

    let b = body3(
        "shape = \"ball\"\nradius = 1\nposition = [0, 0, 0]\n\
         orientation = [2, 0, 0, 0]\nangular_velocity = [0, 0, 4]",
    )
    .unwrap();
    // A quaternion of length 2 is normalised.
    assert_eq!(b.motion.pose.rotation, DQuat::IDENTITY);
    assert_eq!(b.motion.angular_velocity, DVec3::new(0.0, 0.0, 4.0));
    assert_eq!(b.motion.linear_velocity, DVec3::ZERO);

    let b = body3("shape = \"ball\"\nradius = 1\nposition = [0, 0, 0]").unwrap();
    assert_eq!(b.motion.pose.rotation, DQuat::IDENTITY);
    assert_eq!(b.motion.angular_velocity, DVec3::ZERO);
}

#[test]
fn a_clockwise_polygon_is_reversed() {
    let b = body2("shape = \"polygon\"\nposition = [0, 0]\nvertices = [[0, 0], [0, 1], [1, 0]]")
        .unwrap();
    let ccw = Shape::convex_polygon(vec![DVec2::X, DVec2::Y, DVec2::ZERO]).unwrap();
    assert_eq!(b.shape, ccw);
    assert!(!b.is_compound() && b.body_pieces() == [ccw]);
    // A concave one is a compound body: its convex pieces, and its hull as the shape.
    let b = body2(
        "shape = \"polygon\"\nposition = [0, 0]\n\
         vertices = [[0, 0], [2, 0], [1, 0.2], [1, 2]]",
    )
    .unwrap();
    assert!(b.is_compound() && b.body_pieces().len() == 2);
    let hull = [[0.0, 0.0], [2.0, 0.0], [1.0, 2.0]].map(|[x, y]| DVec2::new(x, y));
    assert_eq!(b.shape, Shape::convex_polygon(hull.to_vec()).unwrap());
    // One whose edges cross is refused, naming them.
    let m = message2(
        "shape = \"polygon\"\nposition = [0, 0]\n\
         vertices = [[0, 0], [1, 1], [1, 0], [0, 1]]",
    );
    assert_eq!(m, "vertices: edges 0 and 2 of the polygon cross", "{m}");
}

#[test]
fn errors_name_the_key_and_the_problem() {
    let cases2 = [
        (
            "shape = \"box\"\nhalf_extents = [1, 2, 3]\nposition = [0, 0]",
            "half_extents: expected 2 numbers, got 3",
        ),
        (
            "shape = \"box\"\nposition = [0, 0]",
            "half_extents: missing (2 numbers)",
        ),
        (
            "radius = 1\nposition = [0, 0]",
            "shape: missing (one of: ball, box, capsule, polygon, cylinder, cone, \
             polyhedron, mesh, segment, triangle, ellipsoid)",
        ),
        (
            "shape = \"sphere\"\nradius = 1\nposition = [0, 0]",
            "shape: unknown shape `sphere` (expected one of: ball, box, capsule, polygon, \
             cylinder, cone, polyhedron, mesh, segment, triangle, ellipsoid)",
        ),
        (
            "shape = 3\nposition = [0, 0]",
            "shape: expected a shape name (a string), got integer",
        ),
        (
            "shape = \"ball\"\nradius = 1",
            "position: missing (2 numbers)",
        ),
        (
            "shape = \"ball\"\nradius = nan\nposition = [0, 0]",
            "radius: must be finite, got NaN",
        ),
        (
            "shape = \"ball\"\nradius = 1\nposition = [0, inf]",
            "position: must be finite, got inf",
        ),
        (
            "shape = \"ball\"\nradius = 1\nposition = [0, 1e200]",
            "position: too large (1e200; at most 1e100)",
        ),
        (
            "shape = \"ball\"\nradius = -1\nposition = [0, 0]",
            "radius: radius must be positive and finite, got -1",
        ),
        (
            "shape = \"ball\"\nradius = \"big\"\nposition = [0, 0]",
            "radius: expected a number, got string",
        ),
        (
            "shape = \"ball\"\nradius = 1\nposition = [0, \"x\"]",
            "position: expected an array of 2 numbers, got string",
        ),
        (
            "shape = \"ball\"\nradius = 1\nposition = [0, 0]\ncolour = 1",
            "colour: unknown field (expected one of: shape, position, orientation, \
             velocity, angular_velocity, radius)",
        ),
        (
            "shape = \"box\"\nhalf_extents = [1, 1]\nradius = 1\nposition = [0, 0]",
            "radius: not a field of a box (a box takes: half_extents)",
        ),
        (
            "shape = \"cylinder\"\nhalf_height = 1\nradius = 1\nposition = [0, 0]",
            "shape: a cylinder exists only in 3D, not in 2D",
        ),
        (
            "shape = \"polyhedron\"\npoints = [[0, 0]]\nposition = [0, 0]",
            "shape: a polyhedron exists only in 3D, not in 2D",
        ),
        (
            "shape = \"ball\"\nradius = 1\nposition = [0, 0]\norientation = [1, 0]",
            "orientation: expected an angle in radians (a number), got array",
        ),
        (
            "shape = \"ball\"\nradius = 1\nposition = [0, 0]\nangular_velocity = [1, 0]",
            "angular_velocity: expected a number (radians per unit time), got array",
        ),
        (
            "shape = \"polygon\"\nposition = [0, 0]\nvertices = [[0, 0], [1, 0, 0], [0, 1]]",
            "vertices[1]: expected 2 numbers, got 3",
        ),
        (
            "shape = \"capsule\"\nposition = [0, 0]\nhalf_height = -1\nradius = 1",
            "half_height: half_height must be non-negative and finite, got -1",
        ),
        (
            "shape = \"segment\"\nposition = [0, 0]\na = [1, 1]\nb = [1, 1]",
            "a, b: vertices 0 and 1 coincide",
        ),
    ];
    for (text, want) in cases2 {
        assert_eq!(message2(text), want, "{text}");
    }
    let cases3 = [
        (
            "shape = \"polygon\"\nvertices = [[0, 0, 0]]\nposition = [0, 0, 0]",
            "shape: a polygon exists only in 2D, not in 3D",
        ),
        (
            "shape = \"ball\"\nradius = 1\nposition = [0, 0, 0]\norientation = [0, 0, 0, 0]",
            "orientation: a rotation quaternion must not be zero",
        ),
        (
            "shape = \"ball\"\nradius = 1\nposition = [0, 0, 0]\norientation = 1.0",
            "orientation: expected a quaternion [w, x, y, z] of 4 numbers, got float",
        ),
        (
            "shape = \"ball\"\nradius = 1\nposition = [0, 0, 0]\norientation = [1, 0, 0]",
            "orientation: expected 4 numbers, got 3",
        ),
        (
            "shape = \"ball\"\nradius = 1\nposition = [0, 0, 0]\nangular_velocity = 2",
            "angular_velocity: expected a vector of 3 numbers, got integer",
        ),
        (
            "shape = \"cone\"\nhalf_height = 1\nradius = 0\nposition = [0, 0, 0]",
            "radius: radius must be positive and finite, got 0",
        ),
    ];
    for (text, want) in cases3 {
        assert_eq!(message3(text), want, "{text}");
    }
}

#[test]
fn extra_keys_are_left_to_the_caller() {
    let t: Table = "shape = \"ball\"\nradius = 1\nposition = [0, 0]\nmass = 2"
        .parse()
        .unwrap();
    assert!(RigidBodySpec::<DVec2>::from_table(&t, &["mass"]).is_ok());
    let e = RigidBodySpec::<DVec2>::from_table(&t, &[]).unwrap_err();
    assert_eq!(e.key(), "mass");
    assert!(matches!(e, SpecError::UnknownKey { .. }));
}
