//! Enclosing spheres: the pivoting against Welzl's algorithm, and minimal spheres of simple
//! sets.

use super::*;
use crate::ccd::mesh::TriMesh;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

#[test]
fn pivoting_finds_welzls_sphere() {
    // Random clouds, flat and thin ones (coplanar, collinear), a grid (many ties) and
    // points on a sphere (every point on the boundary): the pivoting's radius is Welzl's
    // over all points, within round-off.
    let mut rng = Pcg64::seed_from_u64(11);
    let mut clouds: Vec<Vec<P>> = Vec::new();
    for n in [5, 6, 9, 40, 1000] {
        for squash in [
            [1.0, 1.0, 1.0],
            [1.0, 1.0, 0.0],
            [1.0, 0.0, 0.0],
            [1e3, 1e-3, 1.0],
        ] {
            clouds.push(
                (0..n)
                    .map(|_| [0, 1, 2].map(|i| squash[i] * rng.gen_range(-1.0..1.0)))
                    .collect(),
            );
        }
    }
    clouds.push(
        (0..125)
            .map(|k| [k % 5, k / 5 % 5, k / 25].map(|x| x as f64))
            .collect(),
    );
    clouds.push(TriMesh::icosphere(3.0, 3).vertices().to_vec());
    for pts in &clouds {
        let s = enclosing_sphere(pts);
        let w = grown(welzl(pts.clone()), pts);
        assert!(pts.iter().all(|&p| dist(s.centre, p) <= s.radius));
        assert!(
            (s.radius - w.radius).abs() <= 1e-9 * w.radius,
            "{} points: {} against {}",
            pts.len(),
            s.radius,
            w.radius
        );
    }
}

#[test]
fn enclosing_spheres_hold_every_point_and_are_minimal_for_simple_sets() {
    let mut rng = Pcg64::seed_from_u64(7);
    for n in [1, 2, 3, 4, 5, 20, 500] {
        let pts: Vec<P> = (0..n)
            .map(|_| [0; 3].map(|_| rng.gen_range(-1.0..1.0)))
            .collect();
        let s = enclosing_sphere(&pts);
        assert!(pts.iter().all(|&p| dist(s.centre, p) <= s.radius), "{n}");
    }
    // Two points: the diametral sphere; a regular tetrahedron: its circumsphere.
    let s = enclosing_sphere(&[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]);
    assert!((s.radius - 1.0).abs() < 1e-12 && dist(s.centre, [1.0, 0.0, 0.0]) < 1e-12);
    let tet = [
        [1.0, 1.0, 1.0],
        [1.0, -1.0, -1.0],
        [-1.0, 1.0, -1.0],
        [-1.0, -1.0, 1.0],
    ];
    let s = enclosing_sphere(&tet);
    assert!((s.radius - 3f64.sqrt()).abs() < 1e-12, "{s:?}");
    // Points on a sphere: that sphere (within rounding).
    let ico = TriMesh::icosphere(2.0, 2);
    let s = enclosing_sphere(ico.vertices());
    assert!((s.radius - 2.0).abs() < 1e-9, "{s:?}");
}
