//! Sphere trees over triangle meshes and the time of contact of two moving meshes: the seed's
//! hierarchy (a binary tree split at the midpoint of the broadest dimension, a minimal
//! enclosing sphere per node by Welzl's algorithm) and Traverse-Tree-Pair (its Algorithm 6),
//! whose time domain shrinks to the earliest contact found so far.
//!
//! # The time of contact of two meshes
//!
//! Both meshes move by [`ScrewMotion`]s and are given by their positions at `t = 0`. A pair of
//! nodes is examined only when their spheres may meet within `[0, best]` (the sphere–sphere
//! test over a time domain: each centre's interval box over a piece of the domain must come
//! within the sum of the radii, the domain halved until the boxes are small beside the spheres,
//! which gives every pair its own window of time within its parents'); a pair of
//! leaves runs the feature tests of [`super::rotating`] (each vertex of one triangle against the
//! other triangle, each edge against each edge) over `[0, best]`, and a contact found becomes
//! the new `best`. The result is the earliest time any feature test reports, so it is never
//! after the first contact of the meshes' surfaces.

use super::closest::{cross, crossing, inside_triangle};
use super::linear::CcdOptions;
use super::mesh::TriMesh;
use super::rotating::{self, MovingPoint, ScrewMotion};
use super::sphere::{dist, dot, mid, sphere_window, spheres_apart, sub, Seen, P};
use super::{Cancelled, Interval};

pub(crate) use super::sphere::spheres_may_meet;
pub use super::sphere::{enclosing_sphere, Sphere, SPHERE_PIECES};

/// Moves the items of `items` for which `left` holds before the others (an unstable, in-place
/// partition, deterministic); returns how many hold.
fn partition<T>(items: &mut [T], left: impl Fn(&T) -> bool) -> usize {
    let mut split = 0;
    for k in 0..items.len() {
        if left(&items[k]) {
            items.swap(split, k);
            split += 1;
        }
    }
    split
}

/// A node of a [`SphereTree`].
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// A sphere holding the node's triangles.
    pub sphere: Sphere,
    /// The children (indices into the tree's nodes), or `None` for a leaf.
    pub children: Option<[u32; 2]>,
    /// The leaf's triangles: `order[first..first + count]` of the tree.
    pub first: u32,
    /// How many triangles the node holds.
    pub count: u32,
}

/// A binary sphere tree over a mesh's triangles (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct SphereTree {
    nodes: Vec<Node>,
    order: Vec<u32>,
}

/// Most triangles in a leaf.
pub const LEAF_SIZE: usize = 1;

/// Levels of a sphere tree whose two halves are built on two threads (up to `2^depth`).
const PARALLEL_DEPTH: u32 = 2;
/// Fewest triangles of a node whose halves are built on two threads.
const PARALLEL_TRIANGLES: usize = 1 << 15;

impl SphereTree {
    /// The tree of `mesh`.
    pub fn new(mesh: &TriMesh) -> Self {
        let mut order: Vec<u32> = (0..mesh.triangles().len() as u32).collect();
        let nodes = Self::build_split(mesh, &mut order, 0, 0);
        Self { nodes, order }
    }

    /// The subtree of `order` (its first triangle at `first` of the tree's order), nodes in
    /// preorder numbered from 0. The two halves of a large node near the root are built on two
    /// threads and joined in the same order, so the tree is the one the sequential build makes.
    fn build_split(mesh: &TriMesh, order: &mut [u32], first: usize, depth: u32) -> Vec<Node> {
        let mut seen = Seen::new(mesh.vertices().len());
        if depth >= PARALLEL_DEPTH || order.len() < PARALLEL_TRIANGLES {
            let mut nodes = Vec::new();
            Self::build(mesh, order, first, &mut nodes, &mut seen);
            return nodes;
        }
        let (node, split) = Self::node(mesh, order, first, &mut seen);
        drop(seen);
        let Some(split) = split else {
            return vec![node];
        };
        let (left, right) = order.split_at_mut(split);
        let (l, r) = std::thread::scope(|s| {
            let l = s.spawn(|| Self::build_split(mesh, left, first, depth + 1));
            let r = Self::build_split(mesh, right, first + split, depth + 1);
            (l.join().expect("the sphere tree's thread"), r)
        });
        let shift = |mut n: Node, by: u32| {
            n.children = n.children.map(|[a, b]| [a + by, b + by]);
            n
        };
        let mut nodes = Vec::with_capacity(1 + l.len() + r.len());
        let right_root = 1 + l.len() as u32;
        nodes.push(Node {
            children: Some([1, right_root]),
            ..node
        });
        nodes.extend(l.into_iter().map(|n| shift(n, 1)));
        nodes.extend(r.into_iter().map(|n| shift(n, right_root)));
        nodes
    }

    fn build(
        mesh: &TriMesh,
        order: &mut [u32],
        first: usize,
        nodes: &mut Vec<Node>,
        seen: &mut Seen,
    ) -> u32 {
        let (node, split) = Self::node(mesh, order, first, seen);
        let id = nodes.len() as u32;
        nodes.push(node);
        let Some(split) = split else {
            return id;
        };
        let (left, right) = order.split_at_mut(split);
        let l = Self::build(mesh, left, first, nodes, seen);
        let r = Self::build(mesh, right, first + split, nodes, seen);
        nodes[id as usize].children = Some([l, r]);
        id
    }

    /// The node of `order` (without children), and where its triangles split (after sorting
    /// them along the split axis) unless it is a leaf.
    fn node(
        mesh: &TriMesh,
        order: &mut [u32],
        first: usize,
        seen: &mut Seen,
    ) -> (Node, Option<usize>) {
        // The triangles' vertices, each once (a vertex is shared by some six triangles), in
        // the order the triangles name them.
        seen.next();
        let (vertices, triangles) = (mesh.vertices(), mesh.triangles());
        let points: Vec<P> = order
            .iter()
            .flat_map(|&t| triangles[t as usize])
            .filter(|&v| seen.first_visit(v))
            .map(|v| vertices[v as usize])
            .collect();
        let sphere = enclosing_sphere(&points);
        let node = Node {
            sphere,
            children: None,
            first: first as u32,
            count: order.len() as u32,
        };
        if order.len() <= LEAF_SIZE {
            return (node, None);
        }
        // Split at the midpoint of the broadest dimension of the triangles' corners, by
        // centroid; an empty side splits at the median instead.
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for p in &points {
            for i in 0..3 {
                lo[i] = lo[i].min(p[i]);
                hi[i] = hi[i].max(p[i]);
            }
        }
        let axis = (0..3)
            .max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])))
            .unwrap_or(0);
        let cut = 0.5 * (lo[axis] + hi[axis]);
        let centroid = |t: u32| {
            let c = mesh.corners(t as usize);
            (c[0][axis] + c[1][axis] + c[2][axis]) / 3.0
        };
        // Each centroid computed once; the triangles are partitioned (in a fixed way, so
        // the tree is a function of the mesh), not sorted: each child orders its own.
        let mut keyed: Vec<(f64, u32)> = order.iter().map(|&t| (centroid(t), t)).collect();
        let mut split = partition(&mut keyed, |&(c, _)| c < cut);
        if split == 0 || split == keyed.len() {
            // Every centroid on one side: the median, in the strict order (ties by index).
            split = keyed.len() / 2;
            keyed.select_nth_unstable_by(split, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        }
        for (o, &(_, t)) in order.iter_mut().zip(&keyed) {
            *o = t;
        }
        (node, Some(split))
    }

    /// The nodes, the root first.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    /// The triangles of a leaf.
    pub fn triangles(&self, node: &Node) -> &[u32] {
        &self.order[node.first as usize..(node.first + node.count) as usize]
    }
}

/// A mesh with its sphere tree: a body for [`mesh_contact`].
#[derive(Clone, Debug, PartialEq)]
pub struct MeshBody {
    /// The mesh, at its pose at `t = 0`.
    pub mesh: TriMesh,
    /// Its sphere tree.
    pub tree: SphereTree,
}

impl MeshBody {
    /// The mesh and its tree.
    pub fn new(mesh: TriMesh) -> Self {
        let tree = SphereTree::new(&mesh);
        Self { mesh, tree }
    }
    /// The same body moved by the rigid motion `place` (its tree moved with it, not rebuilt:
    /// a rigid motion keeps the spheres' radii, grown here by `1e-14` of their size for the
    /// rounding of the moved points).
    pub fn mapped(&self, place: impl Fn(P) -> P) -> Self {
        let mut tree = self.tree.clone();
        for n in &mut tree.nodes {
            let c = place(n.sphere.centre);
            let size = n.sphere.radius + c.iter().map(|x| x.abs()).sum::<f64>();
            n.sphere.centre = c;
            n.sphere.radius += 1e-14 * size;
        }
        Self {
            mesh: self.mesh.mapped(place),
            tree,
        }
    }
    /// The same body moved by `offset` (its tree moved with it, not rebuilt).
    pub fn translated(self, offset: P) -> Self {
        let mut tree = self.tree;
        for n in &mut tree.nodes {
            for i in 0..3 {
                n.sphere.centre[i] += offset[i];
            }
        }
        Self {
            mesh: self.mesh.translated(offset),
            tree,
        }
    }
}

/// The window the traversal of [`mesh_contact`] gives the pair of leaves `(i, j)`: the
/// windows down the one path of pairs that leads to it (`None` when one is empty).
fn path_window(
    ta: &SphereTree,
    tb: &SphereTree,
    i: u32,
    j: u32,
    root: Interval,
    window: &impl Fn(u32, u32, Interval) -> Option<Interval>,
) -> Option<Interval> {
    let (na, nb) = (ta.nodes(), tb.nodes());
    let (li, lj) = (na.get(i as usize)?, nb.get(j as usize)?);
    if li.children.is_some() || lj.children.is_some() {
        return None;
    }
    // The child of `node` that holds the leaf whose triangles start at `first`.
    let towards = |nodes: &[Node], [l, r]: [u32; 2], first: u32| {
        let left = &nodes[l as usize];
        if first < left.first + left.count {
            l
        } else {
            r
        }
    };
    let (mut x, mut y, mut w) = (0u32, 0u32, root);
    while (x, y) != (i, j) {
        let (nx, ny) = (&na[x as usize], &nb[y as usize]);
        (x, y) = match (nx.children, ny.children) {
            (None, None) => return None,
            (Some(c), None) => (towards(na, c, li.first), y),
            (None, Some(c)) => (x, towards(nb, c, lj.first)),
            (Some(c), Some(d)) => {
                if nx.sphere.radius >= ny.sphere.radius {
                    (towards(na, c, li.first), y)
                } else {
                    (x, towards(nb, d, lj.first))
                }
            }
        };
        w = window(x, y, w)?;
    }
    Some(w)
}

/// How [`mesh_contact`] works.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshQuery {
    /// The separation `ε_d` the back-off leaves between the meshes (0: none).
    pub separation: f64,
    /// The seed's Capoeira mode: the leaves' spheres are the geometry (no feature tests), so
    /// the contact comes earlier and farther apart, for less work.
    pub capoeira: bool,
    /// The root finders' options.
    pub ccd: CcdOptions,
}

impl Default for MeshQuery {
    /// Full D2M, a separation of `1e-10` (the seed's), and a time tolerance of `1e-12` of the
    /// horizon, fine enough for the back-off to set the distance left between the meshes.
    fn default() -> Self {
        Self {
            separation: 1e-10,
            capoeira: false,
            ccd: CcdOptions {
                time_tolerance: 1e-12,
                ..CcdOptions::default()
            },
        }
    }
}

/// The seed's leaf-pair cache of a pair of meshes: the leaves where their last contact was,
/// examined first by the next query (its result is the same, found sooner).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeafCache {
    /// The pair of leaves (node indices of the two trees), when there was a contact.
    pub leaves: Option<(u32, u32)>,
}

/// A contact of two meshes found by [`mesh_contact`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshContact {
    /// When: the root finder's time, moved earlier by the back-off.
    pub time: f64,
    /// The root finder's time (the start of its last interval): never after the first contact.
    pub first: f64,
    /// The features that meet.
    pub features: Features,
    /// The unit normal from `a` to `b` at `first` (the triangle's, or the edges' common
    /// normal, turned the way they approach; for a vertex on a triangle's rim, parallel edges
    /// or an end of one edge on the other, as where two faces meet flat, the normal of a face
    /// beside the features that they approach along fastest), zero when the features give none.
    pub normal: [f64; 3],
    /// The contact point at `first` (the vertex, or the mean of the two edges' midpoints).
    pub point: [f64; 3],
    /// How fast the two bodies' points at `point` approach along the normal at `first`.
    pub approach_speed: f64,
}

/// The earliest contact in `[0, until]` of the surfaces of meshes `a` (moving by `ma`) and `b`
/// (by `mb`), given at `t = 0`; `None` when they do not touch by then (see the
/// [module docs](self)). The reported [`MeshContact::time`] is moved back from the root
/// finder's by the seed's back-off `ΔTOC = separation / v_n` (`v_n` the approach speed along
/// the normal; clamped at 0), so that the meshes are left about `separation` apart.
pub fn mesh_contact(
    a: &MeshBody,
    ma: &ScrewMotion,
    b: &MeshBody,
    mb: &ScrewMotion,
    until: f64,
    query: &MeshQuery,
    cache: Option<&mut LeafCache>,
) -> Option<MeshContact> {
    mesh_contact_or_cancel(a, ma, b, mb, until, query, cache, None).unwrap_or(None)
}

/// [`mesh_contact`], asking `cancel` every 64 pairs of nodes whether to stop (a long query on
/// large meshes, stopped by a user): [`Cancelled`] once it says so, `cache` left as it was.
#[allow(clippy::too_many_arguments)]
pub fn mesh_contact_or_cancel(
    a: &MeshBody,
    ma: &ScrewMotion,
    b: &MeshBody,
    mb: &ScrewMotion,
    until: f64,
    query: &MeshQuery,
    cache: Option<&mut LeafCache>,
    cancel: Option<&dyn Fn() -> bool>,
) -> Result<Option<MeshContact>, Cancelled> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let opts = &query.ccd;
    let (na, nb) = (a.tree.nodes(), b.tree.nodes());
    if na.is_empty() || nb.is_empty() || !(until >= 0.0 && until.is_finite()) {
        return Ok(None);
    }
    // The nodes' moving centres, made when needed (a query visits a small part of large
    // trees).
    let centre_a = |i: u32| MovingPoint::new(na[i as usize].sphere.centre, ma);
    let centre_b = |j: u32| MovingPoint::new(nb[j as usize].sphere.centre, mb);
    // The window of a pair of nodes: within its parents' window (never clipped by the
    // horizon, so it depends on the pair alone), where their spheres may meet.
    let window = |i: u32, j: u32, within: Interval| {
        sphere_window(
            &centre_a(i),
            na[i as usize].sphere.radius,
            &centre_b(j),
            nb[j as usize].sphere.radius,
            within,
        )
    };
    let mut best: Option<(f64, Features)> = None;
    let mut best_leaves = None;
    // A pair of leaves: its earliest contact from the start of its window.
    let mut leaves = |i: u32, j: u32, w: Interval, best: &mut Option<(f64, Features)>| {
        let horizon = best.map_or(until, |b| b.0);
        let (x, y) = (&na[i as usize], &nb[j as usize]);
        if query.capoeira {
            // The leaves' spheres are the geometry: the first time they may meet.
            let (ca, cb) = (&centre_a(i), &centre_b(j));
            let (ra, rb) = (x.sphere.radius, y.sphere.radius);
            let t = rotating::earliest(until, w.lo(), horizon, opts, |t| {
                spheres_may_meet(ca, ra, cb, rb, t)
            });
            if let Some(t) = t {
                let f = Features::Spheres {
                    leaf_a: i,
                    leaf_b: j,
                };
                if earlier((t, f), *best) {
                    *best = Some((t, f));
                    best_leaves = Some((i, j));
                }
            }
            return;
        }
        for &ta in a.tree.triangles(x) {
            for &tb in b.tree.triangles(y) {
                // The leaves' triangles lie in spheres that are apart outside the window, so
                // no contact of theirs starts after its end.
                let horizon = best.map_or(until, |b| b.0).min(w.hi());
                let found = triangle_pair(
                    &a.mesh,
                    ta,
                    ma,
                    &b.mesh,
                    tb,
                    mb,
                    until,
                    w.lo(),
                    horizon,
                    opts,
                );
                if let Some(found) = found {
                    if earlier(found, *best) {
                        *best = Some(found);
                        best_leaves = Some((i, j));
                    }
                }
            }
        }
    };
    let Some(root) = window(0, 0, Interval::new(0.0, until)) else {
        return Ok(None);
    };
    // The leaves that met last time first, with the window the traversal gives them: a contact
    // there shrinks the horizon at once, and the result is the same as without the cache.
    if let Some((i, j)) = cache.as_ref().and_then(|c| c.leaves) {
        if let Some(w) = path_window(&a.tree, &b.tree, i, j, root, &window) {
            leaves(i, j, w, &mut best);
        }
    }
    // Best first: the pair whose window starts earliest (times are >= 0, so their bits
    // order them); every pair left starts after the horizon once the first does.
    let key = |w: Interval| w.lo().max(0.0).to_bits();
    let mut heap = BinaryHeap::new();
    heap.push(Reverse((key(root), 0u32, 0u32, root.hi().to_bits())));
    let mut examined = 0u64;
    while let Some(Reverse((lo, i, j, hi))) = heap.pop() {
        examined += 1;
        if examined % 64 == 0 && cancel.is_some_and(|c| c()) {
            return Err(Cancelled);
        }
        let w = Interval::new(f64::from_bits(lo), f64::from_bits(hi));
        let horizon = best.map_or(until, |b| b.0);
        if w.lo() > horizon {
            break;
        }
        let (x, y) = (&na[i as usize], &nb[j as usize]);
        let children: [(u32, u32); 2] = match (x.children, y.children) {
            (None, None) => {
                leaves(i, j, w, &mut best);
                continue;
            }
            // Descend the larger sphere (or the one that can be descended).
            (Some([l, r]), None) => [(l, j), (r, j)],
            (None, Some([l, r])) => [(i, l), (i, r)],
            (Some([l, r]), Some([p, q])) => {
                if x.sphere.radius >= y.sphere.radius {
                    [(l, j), (r, j)]
                } else {
                    [(i, p), (i, q)]
                }
            }
        };
        for (ci, cj) in children {
            if let Some(cw) = window(ci, cj, w) {
                if cw.lo() <= horizon {
                    heap.push(Reverse((key(cw), ci, cj, cw.hi().to_bits())));
                }
            }
        }
    }
    if let Some(c) = cache {
        c.leaves = best_leaves.or(c.leaves);
    }
    let Some((first, features)) = best else {
        return Ok(None);
    };
    let (normal, point, approach_speed) = contact_frame(a, ma, b, mb, first, &features);
    let separation = query.separation;
    let time = if approach_speed > 0.0 && separation > 0.0 {
        back_off(a, ma, b, mb, first, &features, approach_speed, separation)
    } else {
        first
    };
    Ok(Some(MeshContact {
        time,
        first,
        features,
        normal,
        point,
        approach_speed,
    }))
}

/// The contact's features placed at `t`.
enum Placed {
    /// A vertex and a triangle; `vertex_of_a` as in [`Features::VertexFace`].
    VertexFace {
        vertex: P,
        triangle: [P; 3],
        vertex_of_a: bool,
    },
    /// An edge of `a` and an edge of `b`.
    EdgeEdge { a: [P; 2], b: [P; 2] },
    /// Capoeira's two leaf spheres: their centres and the radius of `a`'s.
    Spheres { a: P, b: P, radius_a: f64 },
}

/// The contact's `features` at `t`, the meshes moving by `ma` and `mb`.
fn placed(
    a: &MeshBody,
    ma: &ScrewMotion,
    b: &MeshBody,
    mb: &ScrewMotion,
    t: f64,
    features: &Features,
) -> Placed {
    let va = |i: u32| ma.at(a.mesh.vertices()[i as usize], t);
    let vb = |i: u32| mb.at(b.mesh.vertices()[i as usize], t);
    match *features {
        Features::VertexFace {
            vertex_of_a,
            vertex,
            triangle,
        } => {
            let (vertex, triangle) = if vertex_of_a {
                (va(vertex), triangle.map(vb))
            } else {
                (vb(vertex), triangle.map(va))
            };
            Placed::VertexFace {
                vertex,
                triangle,
                vertex_of_a,
            }
        }
        Features::EdgeEdge { edge_a, edge_b } => Placed::EdgeEdge {
            a: edge_a.map(va),
            b: edge_b.map(vb),
        },
        Features::Spheres { leaf_a, leaf_b } => {
            let (sa, sb) = (
                a.tree.nodes()[leaf_a as usize].sphere,
                b.tree.nodes()[leaf_b as usize].sphere,
            );
            Placed::Spheres {
                a: ma.at(sa.centre, t),
                b: mb.at(sb.centre, t),
                radius_a: sa.radius,
            }
        }
    }
}

impl Placed {
    /// The distance of the features (a vertex and a triangle, or two edges); `None` for
    /// Capoeira's spheres.
    fn gap(&self) -> Option<f64> {
        use super::closest::{closest_on_triangle, segment_distance};
        match *self {
            Placed::VertexFace {
                vertex: p,
                triangle: [q0, q1, q2],
                ..
            } => Some(dist(p, closest_on_triangle(p, q0, q1, q2))),
            Placed::EdgeEdge {
                a: [p0, p1],
                b: [q0, q1],
            } => Some(segment_distance(p0, p1, q0, q1)),
            Placed::Spheres { .. } => None,
        }
    }
}

/// The seed's back-off from the root finder's time `first`, `ΔTOC = ε_d / v_n`, corrected by
/// the features' measured distance: from `first`, step back by `(ε_d − gap) / v_n` while their
/// distance is below `ε_d` (at most four steps, each a secant step on the distance, which the
/// turns make not quite linear in time), so that the features are left `ε_d` apart also when
/// the root finder's time is a little early (its conservative report) or the turn bends the
/// approach. Only ever earlier than `first`, so never after the first contact; never before 0.
/// Capoeira's spheres, and features already `ε_d` apart at `first` (reported within the root
/// finder's tolerance, as parallel edges in one plane where faces meet flat), take the seed's
/// step as it is.
#[allow(clippy::too_many_arguments)]
fn back_off(
    a: &MeshBody,
    ma: &ScrewMotion,
    b: &MeshBody,
    mb: &ScrewMotion,
    first: f64,
    features: &Features,
    approach_speed: f64,
    separation: f64,
) -> f64 {
    let gap_at = |t: f64| placed(a, ma, b, mb, t, features).gap();
    let seed_step = (first - separation / approach_speed).max(0.0);
    let Some(mut gap) = gap_at(first) else {
        return seed_step;
    };
    if !(gap < separation) {
        // Features reported within the root finder's tolerance though apart (parallel edges
        // in one plane, where faces meet flat): their distance says nothing of the meshes',
        // so the seed's step, as it is.
        return seed_step;
    }
    let mut t = first;
    for _ in 0..4 {
        // `!(gap < separation)` also ends on a NaN.
        if !(gap < separation) || t <= 0.0 {
            break;
        }
        t = (t - (separation - gap) / approach_speed).max(0.0);
        gap = gap_at(t).unwrap_or(f64::INFINITY);
    }
    t
}

/// The normal (from `a` to `b`), point and approach speed of `features` at `t`.
fn contact_frame(
    a: &MeshBody,
    ma: &ScrewMotion,
    b: &MeshBody,
    mb: &ScrewMotion,
    t: f64,
    features: &Features,
) -> (P, P, f64) {
    let unit = |n: P| {
        let l = dot(n, n).sqrt();
        if l > 0.0 && l.is_finite() {
            n.map(|x| x / l)
        } else {
            [0.0; 3]
        }
    };
    let (normal, point) = match placed(a, ma, b, mb, t, features) {
        Placed::VertexFace {
            vertex: p,
            triangle: [q0, q1, q2],
            vertex_of_a,
        } => {
            // The triangle's outward normal: from a to b it points into b's triangle.
            let out = unit(cross(sub(q1, q0), sub(q2, q0)));
            let n = if vertex_of_a { out.map(|x| -x) } else { out };
            (n, p)
        }
        Placed::EdgeEdge {
            a: [p0, p1],
            b: [q0, q1],
        } => {
            let n = unit(cross(sub(p1, p0), sub(q1, q0)));
            (n, mid(mid(p0, p1), mid(q0, q1)))
        }
        Placed::Spheres {
            a: ca,
            b: cb,
            radius_a,
        } => {
            let n = unit(sub(cb, ca));
            let point = [0, 1, 2].map(|i| ca[i] + n[i] * radius_a);
            (n, point)
        }
    };
    // The velocity of a body's point at `p`: the centre's plus the spin's.
    let velocity = |m: &ScrewMotion, p: P| {
        let c = [0, 1, 2].map(|i| m.centre[i] + m.velocity[i] * t);
        let wr = cross(m.angular_velocity, sub(p, c));
        [0, 1, 2].map(|i| m.velocity[i] + wr[i])
    };
    let rel = sub(velocity(ma, point), velocity(mb, point));
    let (mut n, mut speed) = (normal, dot(rel, normal));
    if matches!(features, Features::EdgeEdge { .. }) && speed < 0.0 {
        // The edges' normal has no side of its own: it points the way they approach.
        n = n.map(|x| -x);
        speed = -speed;
    }
    // Faces that meet flat (a corner on the other's rim, parallel edges, an end of one edge on
    // the other): the features' normal may lie across the approach; it is then that of a face
    // beside them (sharing `shared` of the vertices `near`) that they approach along fastest.
    type Beside<'m> = (&'m MeshBody, &'m ScrewMotion, [u32; 3], usize, f64);
    let beside: Option<[Beside; 2]> = match (*features, placed(a, ma, b, mb, t, features)) {
        (
            Features::VertexFace {
                vertex_of_a,
                vertex,
                triangle,
            },
            Placed::VertexFace {
                vertex: p,
                triangle: q,
                ..
            },
        ) if !inside_triangle(p, q) => {
            let (s, (tm, tmo), (vm, vmo)) = if vertex_of_a {
                (-1.0, (b, mb), (a, ma))
            } else {
                (1.0, (a, ma), (b, mb))
            };
            Some([(tm, tmo, triangle, 2, s), (vm, vmo, [vertex; 3], 1, -s)])
        }
        (
            Features::EdgeEdge {
                edge_a: x,
                edge_b: y,
            },
            Placed::EdgeEdge { a: ea, b: eb },
        ) if !crossing(ea, eb) => Some([
            (a, ma, [x[0], x[1], x[1]], 2, 1.0),
            (b, mb, [y[0], y[1], y[1]], 2, -1.0),
        ]),
        _ => None,
    };
    for (m, motion, near, shared, sign) in beside.into_iter().flatten() {
        let v = m.mesh.vertices();
        for tri in m.mesh.triangles() {
            if tri.iter().filter(|i| near.contains(i)).count() < shared {
                continue;
            }
            let [q0, q1, q2] = tri.map(|i| motion.at(v[i as usize], t));
            let f = unit(cross(sub(q1, q0), sub(q2, q0))).map(|x| sign * x);
            let s = dot(rel, f);
            if s > speed {
                (n, speed) = (f, s);
            }
        }
    }
    (n, point, speed)
}

/// Whether `found` comes before `best`: earlier, or at the same time with smaller features (so
/// that the result does not depend on the order the pairs are examined in).
fn earlier(found: (f64, Features), best: Option<(f64, Features)>) -> bool {
    best.is_none_or(|b| found.0 < b.0 || (found.0 == b.0 && found.1 < b.1))
}

/// The features of a contact of two meshes `a` and `b` (vertex indices into their meshes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Features {
    /// A vertex of one mesh against a triangle of the other.
    VertexFace {
        /// Whether the vertex is of `a` (the triangle of `b`), or of `b`.
        vertex_of_a: bool,
        /// The vertex.
        vertex: u32,
        /// The triangle's vertices (counter-clockwise, seen from outside its mesh).
        triangle: [u32; 3],
    },
    /// An edge of `a` against an edge of `b`.
    EdgeEdge {
        /// The edge of `a`.
        edge_a: [u32; 2],
        /// The edge of `b`.
        edge_b: [u32; 2],
    },
    /// Capoeira mode: two leaves' spheres (node indices).
    Spheres {
        /// The leaf of `a`'s tree.
        leaf_a: u32,
        /// The leaf of `b`'s tree.
        leaf_b: u32,
    },
}

/// The earliest contact of triangle `ta` of `a` and `tb` of `b` in `[0, until]`: each vertex
/// of one against the other triangle, each edge against each edge.
#[allow(clippy::too_many_arguments)]
fn triangle_pair(
    a: &TriMesh,
    ta: u32,
    ma: &ScrewMotion,
    b: &TriMesh,
    tb: u32,
    mb: &ScrewMotion,
    until: f64,
    from: f64,
    horizon: f64,
    opts: &CcdOptions,
) -> Option<(f64, Features)> {
    let (ia, ib) = (a.triangles()[ta as usize], b.triangles()[tb as usize]);
    let (ca, cb) = (a.corners(ta as usize), b.corners(tb as usize));
    let mut best: Option<(f64, Features)> = None;
    let take = |t: Option<f64>, f: Features, best: &mut Option<(f64, Features)>| {
        if let Some(t) = t {
            if earlier((t, f), *best) {
                *best = Some((t, f));
            }
        }
    };
    let horizon = |best: &Option<(f64, Features)>| best.map_or(horizon, |b| b.0);
    // Each feature's bounding sphere (a vertex: radius 0; an edge: its midpoint and half its
    // length; a triangle: its own enclosing sphere), and a feature pair whose spheres are
    // apart over the whole of `[from, horizon]` is not searched (one box test each, against
    // a search's first tests over the whole window).
    let sphere = |pts: &[P], m: &ScrewMotion| {
        let s = enclosing_sphere(pts);
        (MovingPoint::new(s.centre, m), s.radius)
    };
    // The corners' moving points, shared by the spheres' tests and the feature pairs.
    let (pa, pb) = (
        ca.map(|p| MovingPoint::new(p, ma)),
        cb.map(|p| MovingPoint::new(p, mb)),
    );
    let search = |kind, pts, best: &Option<(f64, Features)>| {
        rotating::FeaturePair::of_points(kind, pts)
            .search(until, from, horizon(best), opts)
            .time
    };
    let (va, vb) = (pa.map(|p| (p, 0.0)), pb.map(|p| (p, 0.0)));
    let (sa, sb) = (sphere(&ca, ma), sphere(&cb, mb));
    let (ea, eb) = (
        [0, 1, 2].map(|i| sphere(&[ca[i], ca[(i + 1) % 3]], ma)),
        [0, 1, 2].map(|i| sphere(&[cb[i], cb[(i + 1) % 3]], mb)),
    );
    let apart = |x: &(MovingPoint, f64), y: &(MovingPoint, f64), h: f64| {
        from <= h && spheres_apart(&x.0, x.1, &y.0, y.1, Interval::new(from, h))
    };
    for k in 0..3 {
        if apart(&va[k], &sb, horizon(&best)) {
            continue;
        }
        let f = Features::VertexFace {
            vertex_of_a: true,
            vertex: ia[k],
            triangle: ib,
        };
        let t = search(
            rotating::Kind::VertexFace,
            [pa[k], pb[0], pb[1], pb[2]],
            &best,
        );
        take(t, f, &mut best);
    }
    for k in 0..3 {
        if apart(&vb[k], &sa, horizon(&best)) {
            continue;
        }
        let f = Features::VertexFace {
            vertex_of_a: false,
            vertex: ib[k],
            triangle: ia,
        };
        let t = search(
            rotating::Kind::VertexFace,
            [pb[k], pa[0], pa[1], pa[2]],
            &best,
        );
        take(t, f, &mut best);
    }
    for i in 0..3 {
        for j in 0..3 {
            if apart(&ea[i], &eb[j], horizon(&best)) {
                continue;
            }
            let f = Features::EdgeEdge {
                edge_a: [ia[i], ia[(i + 1) % 3]],
                edge_b: [ib[j], ib[(j + 1) % 3]],
            };
            let t = search(
                rotating::Kind::EdgeEdge,
                [pa[i], pa[(i + 1) % 3], pb[j], pb[(j + 1) % 3]],
                &best,
            );
            take(t, f, &mut best);
        }
    }
    best
}

#[cfg(test)]
mod tests;
