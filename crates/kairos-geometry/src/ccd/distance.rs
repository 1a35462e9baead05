//! Distances between posed triangle meshes (branch and bound over their sphere trees): the
//! measure of how far apart a reported contact leaves two meshes. The triangle primitives are
//! [`super::closest`]'s.

use super::closest::dist;
pub use super::closest::{closest_on_triangle, segment_distance, triangle_distance};
use super::rotating::ScrewMotion;
use super::tree::{MeshBody, Node};

/// Pushes the children of the pair of nodes `x` (index `i`) and `y` (`j`), not both leaves:
/// the larger sphere's (or the one that has children).
fn descend(stack: &mut Vec<(usize, usize)>, x: &Node, y: &Node, i: usize, j: usize) {
    match (x.children, y.children) {
        (Some([l, r]), Some(_)) if x.sphere.radius >= y.sphere.radius => {
            stack.extend([(l as usize, j), (r as usize, j)]);
        }
        (Some([l, r]), None) => stack.extend([(l as usize, j), (r as usize, j)]),
        (_, Some([p, q])) => stack.extend([(i, p as usize), (i, q as usize)]),
        (None, None) => {}
    }
}

/// The distance at time `t` of the surfaces of meshes `a` and `b` moving by `ma` and `mb`
/// (0 when they intersect): the least of [`near_triangles`] on the meshes moved to `t`.
pub fn mesh_distance(
    a: &MeshBody,
    ma: &ScrewMotion,
    b: &MeshBody,
    mb: &ScrewMotion,
    t: f64,
) -> f64 {
    let (a, b) = (a.mapped(|p| ma.at(p, t)), b.mapped(|p| mb.at(p, t)));
    near_triangles(&a, &b, 0.0)
        .first()
        .map_or(f64::INFINITY, |n| n.0)
}

/// The pairs of triangles (indices into `a`'s and `b`'s triangles) of the posed meshes `a` and
/// `b` whose distance is within `slack` of the least distance of the meshes, with their
/// distances, nearest first (ties by index): branch and bound over the sphere trees, each pair
/// of nodes opened only while its spheres' gap is within `slack` of the least distance found.
pub fn near_triangles(a: &MeshBody, b: &MeshBody, slack: f64) -> Vec<(f64, u32, u32)> {
    let (na, nb) = (a.tree.nodes(), b.tree.nodes());
    if na.is_empty() || nb.is_empty() {
        return Vec::new();
    }
    let (pa, pb) = (a.mesh.vertices(), b.mesh.vertices());
    let gap = |i: usize, j: usize| {
        dist(na[i].sphere.centre, nb[j].sphere.centre) - na[i].sphere.radius - nb[j].sphere.radius
    };
    let mut best = f64::INFINITY;
    let mut found = Vec::new();
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, j)) = stack.pop() {
        if gap(i, j) > best + slack {
            continue;
        }
        let (x, y) = (&na[i], &nb[j]);
        match (x.children, y.children) {
            (None, None) => {
                for &ta in a.tree.triangles(x) {
                    for &tb in b.tree.triangles(y) {
                        let t1 = a.mesh.triangles()[ta as usize].map(|k| pa[k as usize]);
                        let t2 = b.mesh.triangles()[tb as usize].map(|k| pb[k as usize]);
                        let d = triangle_distance(t1, t2);
                        best = best.min(d);
                        if d <= best + slack {
                            found.push((d, ta, tb));
                        }
                    }
                }
            }
            _ => descend(&mut stack, x, y, i, j),
        }
    }
    found.retain(|&(d, _, _)| d <= best + slack);
    found.sort_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ccd::closest::{add, scale, sub, P};
    use crate::ccd::mesh::TriMesh;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// Triangle distances against sampling both triangles densely: never more than the
    /// sampled least distance, and within the sampling's resolution of it.
    #[test]
    fn triangle_distances_match_sampling() {
        let mut rng = Pcg64::seed_from_u64(12);
        let tri = |rng: &mut Pcg64, off: f64| -> [P; 3] {
            [0; 3].map(|_| [0; 3].map(|_| rng.gen_range(-1.0..1.0) + off))
        };
        let sample = |t: [P; 3], n: usize| -> Vec<P> {
            let mut v = Vec::new();
            for i in 0..=n {
                for j in 0..=n - i {
                    let (u, w) = (i as f64 / n as f64, j as f64 / n as f64);
                    let p = add(
                        t[0],
                        add(scale(sub(t[1], t[0]), u), scale(sub(t[2], t[0]), w)),
                    );
                    v.push(p);
                }
            }
            v
        };
        for _ in 0..200 {
            let off = rng.gen_range(0.0..2.0);
            let (t1, t2) = (tri(&mut rng, 0.0), tri(&mut rng, off));
            let d = triangle_distance(t1, t2);
            let (s1, s2) = (sample(t1, 30), sample(t2, 30));
            let sampled = s1
                .iter()
                .flat_map(|&p| s2.iter().map(move |&q| dist(p, q)))
                .fold(f64::INFINITY, f64::min);
            assert!(d <= sampled + 1e-12, "{d} > {sampled}");
            assert!(sampled - d < 0.15, "{d} far below {sampled}");
        }
    }

    #[test]
    fn mesh_distance_is_that_of_the_spheres_for_icospheres() {
        let a = MeshBody::new(TriMesh::icosphere(1.0, 3));
        let b = MeshBody::new(TriMesh::icosphere(1.0, 3).translated([3.0, 0.0, 0.0]));
        let still = |c: P| ScrewMotion::new(c, [0.0; 3], [0.0; 3]);
        let d = mesh_distance(&a, &still([0.0; 3]), &b, &still([3.0, 0.0, 0.0]), 0.0);
        // Vertices at (±1, 0, 0)? The icosphere's nearest points lie within its chords' sag.
        assert!((1.0..1.02).contains(&d), "{d}");
        let c = MeshBody::new(TriMesh::icosphere(1.0, 3).translated([1.5, 0.0, 0.0]));
        assert_eq!(
            mesh_distance(&a, &still([0.0; 3]), &c, &still([1.5, 0.0, 0.0]), 0.0),
            0.0
        );
    }

    /// The near pairs hold the least distance (as [`mesh_distance`] finds it) and every pair
    /// within the slack of it, by brute force.
    #[test]
    fn near_triangles_are_all_the_pairs_within_the_slack() {
        use crate::ccd::tree::MeshBody;
        let a = MeshBody::new(TriMesh::icosphere(1.0, 2));
        let b = MeshBody::new(TriMesh::torus(1.0, 0.3, 16, 8)).translated([2.31, 0.2, 0.1]);
        let still = |c: P| ScrewMotion::new(c, [0.0; 3], [0.0; 3]);
        let least = mesh_distance(&a, &still([0.0; 3]), &b, &still([2.31, 0.2, 0.1]), 0.0);
        for slack in [0.0, 0.05, 0.3] {
            let near = near_triangles(&a, &b, slack);
            assert_eq!(near[0].0, least);
            let mut brute = Vec::new();
            for ta in 0..a.mesh.triangles().len() {
                for tb in 0..b.mesh.triangles().len() {
                    let d = triangle_distance(a.mesh.corners(ta), b.mesh.corners(tb));
                    if d <= least + slack {
                        brute.push((d, ta as u32, tb as u32));
                    }
                }
            }
            brute.sort_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))));
            assert_eq!(near, brute, "slack {slack}");
        }
    }
}
