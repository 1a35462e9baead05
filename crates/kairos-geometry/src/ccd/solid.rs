//! Closed triangle meshes as solids: the check that a mesh bounds a volume, and the mass
//! properties of that volume at a uniform density, for meshes as rigid bodies of the
//! simulation.

use glam::DVec3;

use super::mesh::TriMesh;
use crate::math::Vector;
use crate::shape::{MassProperties, ShapeError};

/// Why a mesh does not bound a solid: the item and the problem.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SolidError {
    /// An edge is not shared by exactly two triangles (a hole, or a fin of three or more).
    #[error(
        "the mesh is not closed: edge ({0}, {1}) belongs to {2} triangle(s), a closed surface \
         has exactly 2 on every edge"
    )]
    Open(u32, u32, usize),
    /// Two triangles run along an edge in the same direction: their orientations disagree.
    #[error(
        "triangles {0} and {1} are oriented inconsistently (both run along edge {2} -> {3}); \
         list every triangle's corners in the same turning order"
    )]
    Inconsistent(usize, usize, u32, u32),
    /// The volume is zero or not finite.
    #[error("the mesh encloses no volume (volume {0})")]
    NoVolume(f64),
    /// The density, or the mass properties it gives.
    #[error(transparent)]
    Shape(#[from] ShapeError),
}

/// Checks that `mesh` is a closed, consistently oriented surface: every edge is shared by
/// exactly two triangles that run along it in opposite directions.
///
/// # Errors
///
/// [`SolidError::Open`] naming an edge with a hole or a fin, or
/// [`SolidError::Inconsistent`] naming two triangles of opposite turning order.
pub fn check_closed(mesh: &TriMesh) -> Result<(), SolidError> {
    // Every triangle's three edges as (lower vertex, upper vertex, triangle, runs upwards),
    // sorted: the triangles of one undirected edge are then adjacent, in triangle order, and
    // the edges in the order of their vertex pairs (the first problem found is the same
    // whatever the triangles' order in memory). A sort of 3 entries per triangle, where a map
    // of lists allocated per edge took seconds for a million triangles.
    let mut on: Vec<(u32, u32, u32, bool)> = Vec::with_capacity(3 * mesh.triangles().len());
    for (k, t) in mesh.triangles().iter().enumerate() {
        for (i, j) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            on.push((i.min(j), i.max(j), k as u32, i < j));
        }
    }
    on.sort_unstable();
    for edge in on.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
        let (i, j) = (edge[0].0, edge[0].1);
        if edge.len() != 2 {
            return Err(SolidError::Open(i, j, edge.len()));
        }
        let ((_, _, k0, d0), (_, _, k1, d1)) = (edge[0], edge[1]);
        if d0 == d1 {
            let (from, to) = if d0 { (i, j) } else { (j, i) };
            return Err(SolidError::Inconsistent(k0 as usize, k1 as usize, from, to));
        }
    }
    Ok(())
}

/// The mass properties of the solid bounded by the closed mesh `mesh` at `density`, in the
/// mesh's coordinates (in 3D: `V` is `DVec3`), by the divergence theorem (the moments of the tetrahedra from the
/// vertex mean). A mesh oriented inwards (clockwise seen from outside) is taken as the same
/// solid.
///
/// # Errors
///
/// [`SolidError`]: the mesh is not closed or not consistently oriented ([`check_closed`]),
/// it encloses no volume, the density is not positive and finite, or the mass properties
/// overflow.
pub fn mass_properties<V: Vector>(
    mesh: &TriMesh,
    density: f64,
) -> Result<MassProperties<V>, SolidError> {
    crate::shape::check_density(density)?;
    check_closed(mesh)?;
    let vertices: Vec<DVec3> = mesh.vertices().iter().map(|&v| DVec3::from(v)).collect();
    let o = vertices.iter().fold(DVec3::ZERO, |s, &v| s + v) / vertices.len() as f64;
    let tris = mesh
        .triangles()
        .iter()
        .map(|t| t.map(|i| vertices[i as usize] - o));
    let (volume, centroid, mut c) = crate::shape::solid_moments(tris, density);
    if !(volume.abs() > 0.0 && volume.is_finite()) {
        return Err(SolidError::NoVolume(volume));
    }
    if volume < 0.0 {
        // Inward triangles: every term changed sign, the centroid did not.
        c = c.map(|row| row.map(|x| -x));
    }
    let mass = density * volume.abs();
    let trace = c[0][0] + c[1][1] + c[2][2];
    if !(mass.is_finite() && centroid.is_finite() && trace.is_finite()) {
        return Err(ShapeError::InvalidSize {
            what: "mesh's extent",
            requirement: "small enough for finite mass properties",
            value: vertices
                .iter()
                .map(|v| (*v - o).length())
                .fold(0.0, f64::max),
        }
        .into());
    }
    Ok(MassProperties {
        mass,
        centre_of_mass: V::from_array3((o + centroid).to_array()),
        inertia: V::inertia_from_second_moment_matrix(c),
    })
}

/// Whether `p` lies inside the solid bounded by the closed mesh `mesh` (either orientation):
/// its generalised winding number, the sum of the solid angles of the triangles seen from `p`
/// over `4π` (Van Oosterom and Strackee's formula), is ±1 inside and 0 outside; it is compared
/// with ½. A point on the surface may go either way.
pub fn contains(mesh: &TriMesh, p: [f64; 3]) -> bool {
    let p = DVec3::from(p);
    let mut total = 0.0;
    for t in mesh.triangles() {
        let [a, b, c] = t.map(|i| DVec3::from(mesh.vertices()[i as usize]) - p);
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let num = a.dot(b.cross(c));
        let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
        total += 2.0 * num.atan2(den);
    }
    (total / (4.0 * std::f64::consts::PI)).abs() > 0.5
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Shape;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * (1.0 + b.abs())
    }

    /// A box mesh (12 triangles) has the box's analytic mass properties; its hull as a
    /// polyhedron agrees.
    #[test]
    fn a_box_mesh_has_the_box_inertia() {
        let h = [1.0, 0.5, 0.25];
        let c = [3.0, -1.0, 2.0];
        let v: Vec<[f64; 3]> = (0..8)
            .map(|k| [0, 1, 2].map(|i| c[i] + if k >> i & 1 == 1 { h[i] } else { -h[i] }))
            .collect();
        // Outward faces of the cube of corners `k` (bit i set: +h_i).
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let tris: Vec<[u32; 3]> = quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
            .collect();
        let mesh = TriMesh::new(v.clone(), tris.clone()).unwrap();
        let p = mass_properties::<DVec3>(&mesh, 2.0).unwrap();
        let m = 2.0 * 8.0 * h[0] * h[1] * h[2];
        assert!(close(p.mass, m, 1e-14));
        assert!((p.centre_of_mass - DVec3::from(c)).length() < 1e-14);
        let (a, b, cc) = (2.0 * h[0], 2.0 * h[1], 2.0 * h[2]);
        let diag = [b * b + cc * cc, a * a + cc * cc, a * a + b * b].map(|x| m * x / 12.0);
        for i in 0..3 {
            for j in 0..3 {
                let want = if i == j { diag[i] } else { 0.0 };
                assert!(close(p.inertia.col(j)[i], want, 1e-13), "{i}{j}");
            }
        }
        // Turned inside out: the same solid.
        let inward: Vec<[u32; 3]> = tris.iter().map(|t| [t[0], t[2], t[1]]).collect();
        let q = mass_properties::<DVec3>(&TriMesh::new(v.clone(), inward).unwrap(), 2.0).unwrap();
        assert!(close(q.mass, m, 1e-14) && close(q.inertia.col(0)[0], diag[0], 1e-13));
        let pts: Vec<DVec3> = v.iter().map(|&x| DVec3::from(x)).collect();
        let hull = Shape::polyhedron(&pts)
            .unwrap()
            .mass_properties(2.0)
            .unwrap();
        assert!(close(hull.mass, m, 1e-14));
        assert!((hull.inertia - p.inertia)
            .abs()
            .to_cols_array()
            .iter()
            .all(|x| *x < 1e-13));
    }

    /// A fine icosphere approaches the ball's `2/5 m r²`; a torus its analytic inertia.
    #[test]
    fn procedural_meshes_approach_their_smooth_solids() {
        let ball = mass_properties::<DVec3>(&TriMesh::icosphere(1.0, 5), 1.0).unwrap();
        let want = 4.0 / 3.0 * std::f64::consts::PI;
        assert!(close(ball.mass, want, 2e-3), "{}", ball.mass);
        assert!(close(ball.inertia.col(0)[0], 0.4 * ball.mass, 2e-3));
        assert!(ball.centre_of_mass.length() < 1e-12);
        let (big, small) = (1.5, 0.4);
        let torus = mass_properties::<DVec3>(&TriMesh::torus(big, small, 256, 128), 1.0).unwrap();
        let m = 2.0 * std::f64::consts::PI.powi(2) * big * small * small;
        assert!(close(torus.mass, m, 1e-3), "{} vs {m}", torus.mass);
        // Axis of symmetry: m (R² + 3 r² / 4); across: m (R² / 2 + 5 r² / 8).
        let axial = m * (big * big + 0.75 * small * small);
        let across = m * (0.5 * big * big + 0.625 * small * small);
        let d = [0, 1, 2].map(|i| torus.inertia.col(i)[i]);
        let (mut sorted, mut want) = (d, [across, across, axial]);
        sorted.sort_by(f64::total_cmp);
        want.sort_by(f64::total_cmp);
        for i in 0..3 {
            assert!(close(sorted[i], want[i], 2e-3), "{sorted:?} vs {want:?}");
        }
    }

    #[test]
    fn open_and_inconsistent_meshes_are_refused_by_name() {
        let v = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let closed = vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]];
        assert!(
            mass_properties::<DVec3>(&TriMesh::new(v.clone(), closed.clone()).unwrap(), 1.0)
                .is_ok()
        );
        let open = TriMesh::new(v.clone(), closed[..3].to_vec()).unwrap();
        let e = check_closed(&open).unwrap_err();
        assert!(matches!(e, SolidError::Open(_, _, 1)), "{e}");
        let mut flipped = closed.clone();
        flipped[3] = [0, 2, 3];
        let e = check_closed(&TriMesh::new(v.clone(), flipped).unwrap()).unwrap_err();
        assert!(matches!(e, SolidError::Inconsistent(..)), "{e}");
        assert!(e.to_string().contains("oriented inconsistently"));
        let plate = TriMesh::plate(1.0, 0.1);
        assert!(mass_properties::<DVec3>(&plate, 1.0).is_ok());
        assert!(matches!(
            mass_properties::<DVec3>(&plate, -1.0),
            Err(SolidError::Shape(_))
        ));
    }

    #[test]
    fn points_inside_a_torus_are_told_from_points_in_its_hole() {
        let torus = TriMesh::torus(1.0, 0.3, 24, 12);
        assert!(contains(&torus, [1.0, 0.0, 0.0]));
        assert!(contains(&torus, [0.0, -1.1, 0.1]));
        assert!(!contains(&torus, [0.0, 0.0, 0.0]), "the hole");
        assert!(!contains(&torus, [2.0, 0.0, 0.0]));
        assert!(!contains(&torus, [1.0, 0.0, 0.5]));
        let inward: Vec<[u32; 3]> = torus
            .triangles()
            .iter()
            .map(|t| [t[0], t[2], t[1]])
            .collect();
        let flipped = TriMesh::new(torus.vertices().to_vec(), inward).unwrap();
        assert!(contains(&flipped, [1.0, 0.0, 0.0]) && !contains(&flipped, [0.0, 0.0, 0.0]));
    }
}
