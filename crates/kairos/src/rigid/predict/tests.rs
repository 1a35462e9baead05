//! Tests of the bounding spheres' window.

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
