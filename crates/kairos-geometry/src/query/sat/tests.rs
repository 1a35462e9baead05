//! Unit tests of SAT: the crate's shapes are consistent polytopes, and the Gauss-map arc test.

use super::*;
use crate::math::{DVec2, DVec3};
use crate::shape::{ConvexPolygon, Cuboid, Simplex};

/// Every face's loop lies on its plane, turns counter-clockwise about its normal, and the
/// shape is behind the plane; every edge with faces is on both.
fn check<V: Vector, P: Polytope<V>>(p: &P) {
    let mut lp = Vec::new();
    for i in 0..p.face_count() {
        let n = p.face_normal(i);
        let off = p.face_offset(i);
        assert!((n.length() - 1.0).abs() < 1e-12);
        for k in 0..p.vertex_count() {
            assert!(n.dot(p.vertex(k)) <= off + 1e-12, "face {i} vertex {k}");
        }
        p.face_vertices(i, &mut lp);
        for &v in &lp {
            assert!((n.dot(p.vertex(v as usize)) - off).abs() < 1e-12);
        }
        if V::DIM == 3 {
            let (a, b, c) = (
                p.vertex(lp[0] as usize),
                p.vertex(lp[1] as usize),
                p.vertex(lp[2] as usize),
            );
            assert!(cross(b - a, c - b).dot(n) > 0.0, "face {i} turns clockwise");
        } else {
            let d = p.vertex(lp[1] as usize) - p.vertex(lp[0] as usize);
            // outside on the right: n = (dy, -dx)
            assert!(n.comp(0) * d.comp(1) - n.comp(1) * d.comp(0) > 0.0);
        }
    }
    for e in 0..p.edge_count() {
        let [v0, v1] = p.edge(e);
        assert_eq!(p.edge_index(v0, v1), Some(e as u32));
        assert_eq!(p.edge_index(v1, v0), Some(e as u32));
        if let Some(fs) = p.edge_faces(e) {
            for f in fs {
                p.face_vertices(f as usize, &mut lp);
                assert!(lp.contains(&v0) && lp.contains(&v1), "edge {e} face {f}");
            }
        }
    }
}

#[test]
fn the_shapes_are_consistent_polytopes() {
    check(&Cuboid::new(DVec2::new(1.0, 2.0)).unwrap());
    check(&Cuboid::new(DVec3::new(1.0, 2.0, 3.0)).unwrap());
    let t = |a, b, c| Simplex::<DVec2, 3>::new(a, b, c).unwrap();
    check(&t(DVec2::ZERO, DVec2::X, DVec2::Y));
    check(&t(DVec2::ZERO, DVec2::Y, DVec2::X));
    check(&Simplex::<DVec3, 3>::new(DVec3::ZERO, DVec3::X, DVec3::Y).unwrap());
    check(&Simplex::<DVec2, 2>::new(DVec2::ZERO, DVec2::X).unwrap());
    check(&Simplex::<DVec3, 2>::new(DVec3::ZERO, DVec3::X).unwrap());
    let sq = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)];
    check(&ConvexPolygon::new(sq.iter().map(|&(x, y)| DVec2::new(x, y)).collect()).unwrap());
    // The support vertex of a cuboid is the one its support function names.
    let c = Cuboid::new(DVec3::new(1.0, 2.0, 3.0)).unwrap();
    let d = DVec3::new(0.3, -0.2, 0.9);
    assert_eq!(
        Polytope::<DVec3>::vertex(&c, Polytope::<DVec3>::support_vertex(&c, d)),
        crate::shape::SupportMap::local_support(&c, d)
    );
}

#[test]
fn arcs_cross_of_crossing_and_disjoint_arcs() {
    let (x, y, z) = (DVec3::X, DVec3::Y, DVec3::Z);
    // The arc from x to y, and arcs across its great circle at (x + y)/√2.
    let m = (x + y).normalize();
    let arc = |a: DVec3, b: DVec3| proper_arc(a.normalize(), b.normalize()).unwrap();
    assert!(arcs_cross(&arc(x, y), &arc(m + z, m - z)));
    // The antipodal crossing does not count.
    assert!(!arcs_cross(&arc(x, y), &arc(-m + z, -m - z)));
    // Both ends on one side.
    assert!(!arcs_cross(&arc(x, y), &arc(m + z, z)));
}
