//! The sphere tree's build: threaded as sequential, every triangle in one leaf inside every
//! sphere above it.

use super::*;

#[test]
fn the_threaded_build_is_the_sequential_one() {
    // 2 * 256 * 160 = 81,920 triangles: the root's and its children's halves are threaded.
    let mesh = TriMesh::torus(1.0, 0.35, 256, 160);
    assert!(mesh.triangles().len() >= 2 * PARALLEL_TRIANGLES);
    let tree = SphereTree::new(&mesh);
    let mut order: Vec<u32> = (0..mesh.triangles().len() as u32).collect();
    let mut nodes = Vec::new();
    let mut seen = Seen::new(mesh.vertices().len());
    SphereTree::build(&mesh, &mut order, 0, &mut nodes, &mut seen);
    assert_eq!(tree, SphereTree { nodes, order });
}

#[test]
fn every_triangle_is_in_one_leaf_inside_every_sphere_above_it() {
    let mesh = TriMesh::torus(2.0, 0.5, 24, 12);
    let tree = SphereTree::new(&mesh);
    let mut seen = vec![0; mesh.triangles().len()];
    fn walk(tree: &SphereTree, mesh: &TriMesh, id: u32, above: &mut Vec<Sphere>, seen: &mut [u32]) {
        let node = &tree.nodes()[id as usize];
        above.push(node.sphere);
        match node.children {
            Some([l, r]) => {
                walk(tree, mesh, l, above, seen);
                walk(tree, mesh, r, above, seen);
            }
            None => {
                for &t in tree.triangles(node) {
                    seen[t as usize] += 1;
                    for c in mesh.corners(t as usize) {
                        assert!(above.iter().all(|s| dist(s.centre, c) <= s.radius));
                    }
                }
            }
        }
        above.pop();
    }
    walk(&tree, &mesh, 0, &mut Vec::new(), &mut seen);
    assert!(seen.iter().all(|&k| k == 1));
}
