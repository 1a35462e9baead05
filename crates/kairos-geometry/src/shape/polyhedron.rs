//! The convex polyhedron (3D): the convex hull of points by quickhull (C. B. Barber,
//! D. P. Dobkin, H. Huhdanpaa, *The quickhull algorithm for convex hulls*, ACM Transactions on
//! Mathematical Software 22(4), 1996), with coplanar triangles merged into polygonal faces, and
//! its mass properties by the divergence theorem over tetrahedra from an interior point.
//!
//! ```
//! use kairos_geometry::math::DVec3;
//! use kairos_geometry::shape::{ConvexPolyhedron, FeatureId, SupportMap};
//! // A 3 × 3 × 3 grid of points: its hull is the cube of the 8 corners, with 6 square faces.
//! let grid: Vec<DVec3> = (0..27)
//!     .map(|i| DVec3::new((i % 3) as f64, (i / 3 % 3) as f64, (i / 9) as f64))
//!     .collect();
//! let cube = ConvexPolyhedron::from_points(&grid).unwrap();
//! assert_eq!(cube.vertices().len(), 8);
//! assert_eq!(cube.face_count(), 6);
//! assert!(cube.faces().all(|(vertices, _normal)| vertices.len() == 4));
//! assert_eq!(cube.edges().len(), 12);
//! let (p, feature) = cube.local_support_feature(DVec3::new(1.0, 1.0, -1.0));
//! assert_eq!(p, DVec3::new(2.0, 2.0, 0.0));
//! assert!(matches!(feature, FeatureId::Vertex(_)));
//! let mp = cube.mass_properties(1.0).unwrap();
//! assert!((mp.mass - 8.0).abs() < 1e-12 && (mp.centre_of_mass - DVec3::ONE).length() < 1e-12);
//! ```
//!
//! # Quickhull
//!
//! An initial tetrahedron is spanned by the two farthest apart of the six axis-extreme points,
//! the point farthest from their line and the point farthest from the plane of those three.
//! Every other point is put in the *outside set* of one face it lies above. Then, while a face
//! has an outside set, its farthest point (the *eye*) is added: the faces the eye sees are
//! found by a walk over face adjacency from that face, they are deleted, the horizon (the
//! boundary of the seen region) is joined to the eye by new triangles, and the points of the
//! deleted faces' outside sets are handed to the new faces they lie above (or dropped: they
//! are inside). Expected cost `O(n log r)` for `n` points and `r` hull vertices; measured,
//! 10⁶ random points in a ball take 0.1–0.3 s, 10⁶ points on a sphere (all of them vertices,
//! two million faces) 2–7 s on a loaded two-core machine.
//!
//! # Tolerance
//!
//! All tests are made on the points moved by the centre of their bounding box and scaled by a
//! power of two (exact) that brings their largest half extent into `[1, 2)`, against the
//! *hull tolerance* `ε = HULL_TOLERANCE · L`, `L` the diagonal of the bounding box of the
//! points (so the result does not depend on the points' position or magnitude). A point counts as above a face only when its distance to the face's plane exceeds
//! `ε`; a face is seen by the eye only when the eye is more than `ε` above it. So points within
//! `ε` of the hull (on its faces, edges, or duplicates of its vertices) are never made
//! vertices, and every input point lies inside the result or within a few `ε` of it. The points
//! are refused when they span no volume: all within `ε` of one line or one plane.
//!
//! # Faces
//!
//! Quickhull builds triangles. Adjacent triangles whose vertices all lie within `ε` of one seed
//! triangle's plane are merged into one polygonal face (a cube's six faces are quads, however
//! many points lie on them) with the area-weighted mean normal; vertices left on fewer than
//! three faces (a point in the middle of an edge or of a face) are then dropped. Each face is
//! a counter-clockwise loop seen from outside, starting at its lowest vertex index. The result
//! is checked to be a closed 2-manifold (every edge has two faces; `V − E + F = 2`); were a
//! merge ever to break that, the triangles are kept unmerged instead.
//!
//! # Support
//!
//! For up to [`HILL_CLIMB_THRESHOLD`] vertices the support is a linear scan over the vertices;
//! above, a hill climb over the vertex adjacency from the vertex extreme along the axis nearest
//! to the direction (a local maximum of a linear function over a convex polytope is global). A climb that ends beside a vertex of equal value
//! (a tie, or `d = 0` / NaN) falls back to the scan, so ties go to the lowest index either way.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::{
    check_dim, check_finite, farthest_vertex, farthest_vertex_distance, FeatureId, MassProperties,
    ShapeError, SupportMap,
};
use crate::math::{DVec3, Vector};

/// The hull tolerance relative to the diagonal of the points' bounding box (see the
/// [module docs](self)).
pub const HULL_TOLERANCE: f64 = 1e-11;

/// Above this many vertices the support function climbs the vertex adjacency instead of
/// scanning every vertex. Measured on hulls of random points on a sphere (one core, 10⁵
/// random directions, a shared machine, so ±30 %): the scan takes 20 ns at 32 vertices and
/// 70–160 ns at 48–64, the climb 90–130 ns there; at 100 vertices the climb takes 60 ns
/// against the scan's 180 ns, at 1 000 230 ns against 1.7 µs, at 10 000 0.9 µs against 16 µs.
pub const HILL_CLIMB_THRESHOLD: usize = 64;

/// An edge of a [`ConvexPolyhedron`]: its two vertices and the two faces it borders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PolyhedronEdge {
    /// The vertex indices `[a, b]`, with `a < b`.
    pub vertices: [u32; 2],
    /// `[left, right]`: the face whose counter-clockwise loop runs `a → b`, then the face whose
    /// loop runs `b → a`.
    pub faces: [u32; 2],
}

/// A convex polyhedron (3D only): the convex hull of points, with polygonal faces.
///
/// Built by [`ConvexPolyhedron::from_points`] (quickhull, see the [module docs](self)). It keeps
/// its vertices (a subset of the input points, in input order), its faces as
/// counter-clockwise loops of vertex indices with outward unit normals, its edges with their
/// two faces, and the vertex adjacency.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolyhedron<V> {
    vertices: Vec<V>,
    /// Face `f`'s loop is `face_loops[face_starts[f]..face_starts[f + 1]]`.
    face_starts: Vec<u32>,
    face_loops: Vec<u32>,
    normals: Vec<V>,
    edges: Vec<PolyhedronEdge>,
    /// Vertex `v`'s neighbours are `neighbours[neighbour_starts[v]..neighbour_starts[v + 1]]`.
    neighbour_starts: Vec<u32>,
    neighbours: Vec<u32>,
    /// The vertices extreme along `-x, +x, -y, +y, -z, +z`: where a climb starts.
    extremes: [u32; 6],
}

impl<V: Vector> ConvexPolyhedron<V> {
    /// The convex hull of `points`, by quickhull.
    ///
    /// # Errors
    ///
    /// [`ShapeError::WrongDimension`] in 2D, [`ShapeError::TooFewPoints`] for fewer than four
    /// points, [`ShapeError::NonFiniteVertex`] naming the first non-finite point,
    /// [`ShapeError::ZeroVolume`] when the points all lie within the hull tolerance of one
    /// plane (or line, or point).
    pub fn from_points(points: &[V]) -> Result<Self, ShapeError> {
        check_dim::<V>("polyhedron", 3)?;
        if points.len() < 4 {
            return Err(ShapeError::TooFewPoints {
                count: points.len(),
            });
        }
        check_finite(points)?;
        let raw: Vec<DVec3> = points
            .iter()
            .map(|p| DVec3::from_array(p.to_array3()))
            .collect();
        let (lo, hi) = raw
            .iter()
            .fold((raw[0], raw[0]), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        // Halved first, so that nothing overflows for points near the largest f64.
        let centre = lo * 0.5 + hi * 0.5;
        let half = (hi * 0.5 - lo * 0.5).max_element();
        if half == 0.0 {
            return Err(ShapeError::ZeroVolume);
        }
        // Scaled by 2^-e (exactly, in two steps so the factor itself stays finite) to bring
        // the largest half extent into [1, 2): the products below neither overflow nor lose
        // precision to underflow, whatever the points' magnitude.
        let e = half.log2().floor() as i32;
        let (f1, f2) = (2f64.powi(-e / 2), 2f64.powi(-e - (-e / 2)));
        let scale = |p: DVec3| p * f1 * f2;
        let c = scale(centre);
        let moved: Vec<DVec3> = raw.iter().map(|&p| scale(p) - c).collect();
        let (lo, hi) = (scale(lo) - c, scale(hi) - c);
        let tol = HULL_TOLERANCE * (hi - lo).length();
        let triangles = quickhull(&moved, tol)?;
        let mesh = merge_coplanar(&moved, &triangles, tol)
            .or_else(|| unmerged(&moved, &triangles))
            .ok_or(ShapeError::ZeroVolume)?;
        Ok(Self::from_mesh(points, mesh))
    }

    fn from_mesh(points: &[V], mesh: Mesh) -> Self {
        let n = mesh.vertices.len();
        let mut neighbour_lists = vec![Vec::new(); n];
        for e in &mesh.edges {
            let [a, b] = e.vertices;
            neighbour_lists[a as usize].push(b);
            neighbour_lists[b as usize].push(a);
        }
        let mut neighbour_starts = vec![0];
        let mut neighbours = Vec::with_capacity(2 * mesh.edges.len());
        for mut list in neighbour_lists {
            list.sort_unstable();
            neighbours.extend(list);
            neighbour_starts.push(neighbours.len() as u32);
        }
        let vertices: Vec<V> = mesh.vertices.iter().map(|&i| points[i as usize]).collect();
        let extremes = std::array::from_fn(|k| {
            let sign = if k % 2 == 0 { -1.0 } else { 1.0 };
            farthest_vertex(&vertices, V::unit(k / 2) * sign) as u32
        });
        Self {
            vertices,
            extremes,
            face_starts: mesh.face_starts,
            face_loops: mesh.face_loops,
            normals: mesh
                .normals
                .iter()
                .map(|n| V::from_array3(n.to_array()))
                .collect(),
            edges: mesh.edges,
            neighbour_starts,
            neighbours,
        }
    }

    /// The vertices: the input points that are corners of the hull, in input order.
    #[must_use]
    pub fn vertices(&self) -> &[V] {
        &self.vertices
    }
    /// The number of faces.
    #[must_use]
    pub fn face_count(&self) -> usize {
        self.normals.len()
    }
    /// Face `i`'s vertex indices, counter-clockwise seen from outside, lowest index first.
    ///
    /// # Panics
    ///
    /// When `i >= face_count()`.
    #[must_use]
    pub fn face_vertices(&self, i: usize) -> &[u32] {
        &self.face_loops[self.face_starts[i] as usize..self.face_starts[i + 1] as usize]
    }
    /// Face `i`'s outward unit normal.
    ///
    /// # Panics
    ///
    /// When `i >= face_count()`.
    #[must_use]
    pub fn face_normal(&self, i: usize) -> V {
        self.normals[i]
    }
    /// The faces, as `(vertex loop, outward unit normal)`, in face index order.
    pub fn faces(&self) -> impl ExactSizeIterator<Item = (&[u32], V)> + '_ {
        (0..self.face_count()).map(|i| (self.face_vertices(i), self.normals[i]))
    }
    /// The edges, each once, with their two faces.
    #[must_use]
    pub fn edges(&self) -> &[PolyhedronEdge] {
        &self.edges
    }
    /// The vertices joined to vertex `i` by an edge, in increasing order.
    ///
    /// # Panics
    ///
    /// When `i >= vertices().len()`.
    #[must_use]
    pub fn vertex_neighbours(&self, i: usize) -> &[u32] {
        &self.neighbours[self.neighbour_starts[i] as usize..self.neighbour_starts[i + 1] as usize]
    }
    /// The distance from `centre` to the farthest vertex.
    #[must_use]
    pub fn bounding_radius_about(&self, centre: V) -> f64 {
        farthest_vertex_distance(&self.vertices, centre)
    }

    /// Mass properties at `density`, by the divergence theorem (`solid_moments`): the faces
    /// are fanned into triangles, each making a tetrahedron with the vertex mean `o` (an
    /// interior point, so that the sums are of small, positive terms).
    ///
    /// # Errors
    ///
    /// [`ShapeError::InvalidDensity`] unless `density` is positive and finite;
    /// [`ShapeError::InvalidSize`] when the polyhedron is so large (or the density so high)
    /// that its mass or inertia overflows.
    pub fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        super::check_density(density)?;
        let vertex = |i: u32| DVec3::from_array(self.vertices[i as usize].to_array3());
        let o = self
            .vertices
            .iter()
            .fold(DVec3::ZERO, |s, v| s + DVec3::from_array(v.to_array3()))
            / self.vertices.len() as f64;
        let tris = self.faces().flat_map(|(lp, _)| {
            (1..lp.len() - 1).map(move |k| [lp[0], lp[k], lp[k + 1]].map(|i| vertex(i) - o))
        });
        let (volume, centroid, c) = solid_moments(tris, density);
        let mass = density * volume;
        let trace = c[0][0] + c[1][1] + c[2][2];
        let finite = mass.is_finite()
            && centroid.is_finite()
            && trace.is_finite()
            && c.iter().flatten().all(|x| x.is_finite());
        if !finite {
            return Err(ShapeError::InvalidSize {
                what: "polyhedron's extent",
                requirement: "small enough for finite mass properties",
                value: self.bounding_radius_about(V::from_array3(o.to_array())),
            });
        }
        Ok(MassProperties {
            mass,
            centre_of_mass: V::from_array3((o + centroid).to_array()),
            inertia: V::inertia_from_second_moment_matrix(c),
        })
    }

    /// The index of a vertex maximising `d · v` by hill climbing, falling back to the linear
    /// scan on ties.
    fn climb(&self, d: V) -> usize {
        let v = &self.vertices;
        // Start at the extreme vertex of the axis nearest to `d`.
        let k = (0..3)
            .max_by(|&i, &j| d.comp(i).abs().total_cmp(&d.comp(j).abs()))
            .unwrap_or(0);
        let mut best = self.extremes[2 * k + usize::from(d.comp(k) > 0.0)] as usize;
        let mut best_dot = v[best].dot(d);
        loop {
            let mut next = best;
            let mut next_dot = best_dot;
            for &n in self.vertex_neighbours(best) {
                let x = v[n as usize].dot(d);
                if x > next_dot {
                    next = n as usize;
                    next_dot = x;
                }
            }
            if next == best {
                break;
            }
            best = next;
            best_dot = next_dot;
        }
        let tied = !best_dot.is_finite()
            || self
                .vertex_neighbours(best)
                .iter()
                .any(|&n| v[n as usize].dot(d) >= best_dot);
        if tied {
            farthest_vertex(v, d)
        } else {
            best
        }
    }
}

impl<V: Vector> SupportMap<V> for ConvexPolyhedron<V> {
    /// The vertex farthest along `d` (the lowest index on ties): a linear scan for small
    /// hulls, a hill climb over the vertex adjacency for large ones.
    #[inline]
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let i = if self.vertices.len() <= HILL_CLIMB_THRESHOLD {
            farthest_vertex(&self.vertices, d)
        } else {
            self.climb(d)
        };
        (self.vertices[i], FeatureId::Vertex(i as u32))
    }
}

// ---------------------------------------------------------------------------------------------
// Quickhull

/// A multiplicative hash for the vertex-index keys of the hull's maps (faster than the default
/// SipHash, which guards against adversarial keys these are not).
#[derive(Clone, Copy, Default)]
struct IndexHasher(u64);

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b));
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (self.0.rotate_left(26) ^ u64::from(i)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type IndexMap<K, V> = HashMap<K, V, BuildHasherDefault<IndexHasher>>;

/// A triangle of the hull under construction.
struct Face {
    /// Vertices (point indices), counter-clockwise seen from outside.
    v: [u32; 3],
    /// The face across edge `v[i] → v[i + 1]`.
    nb: [u32; 3],
    normal: DVec3,
    offset: f64,
    /// Points above this face and above no face met before it.
    outside: Vec<u32>,
    alive: bool,
    /// The walk that last marked this face seen.
    seen: u32,
}

impl Face {
    fn new(p: &[DVec3], v: [u32; 3]) -> Self {
        let [a, b, c] = v.map(|i| p[i as usize]);
        let normal = (b - a).cross(c - a).normalize_or_zero();
        Self {
            v,
            nb: [u32::MAX; 3],
            normal,
            offset: normal.dot((a + b + c) / 3.0),
            outside: Vec::new(),
            alive: true,
            seen: 0,
        }
    }
    #[inline]
    fn distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }
    /// The index `i` of the edge `v[i] → v[i + 1]` that is `a → b`.
    fn edge_index(&self, a: u32, b: u32) -> Option<usize> {
        (0..3).find(|&i| self.v[i] == a && self.v[(i + 1) % 3] == b)
    }
}

/// The hull's triangles: vertex indices and neighbours across each edge.
struct Triangles {
    v: Vec<[u32; 3]>,
    nb: Vec<[u32; 3]>,
}

/// The index of the point of `idx` maximising `f`.
fn argmax(idx: impl Iterator<Item = usize>, f: impl Fn(usize) -> f64) -> (usize, f64) {
    idx.fold((usize::MAX, f64::NEG_INFINITY), |(bi, bf), i| {
        let x = f(i);
        if x > bf {
            (i, x)
        } else {
            (bi, bf)
        }
    })
}

/// The initial tetrahedron's four point indices, or `ZeroVolume`.
fn initial_simplex(p: &[DVec3], tol: f64) -> Result<[usize; 4], ShapeError> {
    let mut extremes = Vec::with_capacity(6);
    for k in 0..3 {
        extremes.push(argmax(0..p.len(), |i| -p[i][k]).0);
        extremes.push(argmax(0..p.len(), |i| p[i][k]).0);
    }
    let mut pair = (extremes[0], extremes[1]);
    let mut far = -1.0;
    for &i in &extremes {
        for &j in &extremes {
            let d = (p[i] - p[j]).length_squared();
            if d > far {
                far = d;
                pair = (i, j);
            }
        }
    }
    let (i0, i1) = pair;
    if far.sqrt() <= tol {
        return Err(ShapeError::ZeroVolume);
    }
    let u = (p[i1] - p[i0]).normalize();
    let (i2, d2) = argmax(0..p.len(), |i| (p[i] - p[i0]).cross(u).length());
    if d2 <= tol {
        return Err(ShapeError::ZeroVolume);
    }
    let n = (p[i1] - p[i0]).cross(p[i2] - p[i0]).normalize();
    let (i3, d3) = argmax(0..p.len(), |i| n.dot(p[i] - p[i0]).abs());
    if d3 <= tol {
        return Err(ShapeError::ZeroVolume);
    }
    Ok([i0, i1, i2, i3])
}

/// Quickhull on the points `p` (moved near the origin) at tolerance `tol`.
fn quickhull(p: &[DVec3], tol: f64) -> Result<Triangles, ShapeError> {
    let s = initial_simplex(p, tol)?;
    let mut faces: Vec<Face> = Vec::new();
    // The four faces, each omitting one vertex and turned away from it.
    for omit in 0..4 {
        let mut v: Vec<u32> = (0..4).filter(|&k| k != omit).map(|k| s[k] as u32).collect();
        let f = Face::new(p, [v[0], v[1], v[2]]);
        if f.distance(p[s[omit]]) > 0.0 {
            v.swap(1, 2);
        }
        faces.push(Face::new(p, [v[0], v[1], v[2]]));
    }
    for fi in 0..4 {
        for e in 0..3 {
            let (a, b) = (faces[fi].v[e], faces[fi].v[(e + 1) % 3]);
            let other = (0..4)
                .find(|&g| g != fi && faces[g].edge_index(b, a).is_some())
                .expect("a tetrahedron's faces share every edge");
            faces[fi].nb[e] = other as u32;
        }
    }
    for (i, &q) in p.iter().enumerate() {
        if s.contains(&i) {
            continue;
        }
        if let Some(f) = faces.iter_mut().find(|f| f.distance(q) > tol) {
            f.outside.push(i as u32);
        }
    }

    let mut pending: Vec<u32> = (0..4u32)
        .filter(|&f| !faces[f as usize].outside.is_empty())
        .collect();
    let mut free: Vec<u32> = Vec::new();
    let mut walk = 0u32;
    let mut visible: Vec<u32> = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    // Horizon edges `(a, b, face beyond)`, `a → b` as in the seen face.
    let mut horizon: Vec<(u32, u32, u32)> = Vec::new();
    let mut orphans: Vec<u32> = Vec::new();
    let mut new_faces: Vec<u32> = Vec::new();
    let mut by_start: IndexMap<u32, u32> = IndexMap::default();
    let mut by_end: IndexMap<u32, u32> = IndexMap::default();
    while let Some(fi) = pending.pop() {
        let f = &faces[fi as usize];
        if !f.alive || f.outside.is_empty() {
            continue;
        }
        let (k, _) = argmax(0..f.outside.len(), |k| f.distance(p[f.outside[k] as usize]));
        let eye = f.outside[k];
        let e = p[eye as usize];

        // The faces seen from the eye: a walk over adjacency from `fi`.
        walk += 1;
        visible.clear();
        horizon.clear();
        stack.clear();
        stack.push(fi);
        faces[fi as usize].seen = walk;
        while let Some(g) = stack.pop() {
            visible.push(g);
            for k in 0..3 {
                let h = faces[g as usize].nb[k];
                let hf = &faces[h as usize];
                if hf.seen == walk {
                    continue;
                }
                if hf.distance(e) > tol {
                    faces[h as usize].seen = walk;
                    stack.push(h);
                } else {
                    let gf = &faces[g as usize];
                    horizon.push((gf.v[k], gf.v[(k + 1) % 3], h));
                }
            }
        }
        // A horizon that touches a vertex twice, or is more than one loop, cannot be coned
        // (it happens only within rounding of coplanarity): then the eye is dropped.
        // The horizon must be one loop through distinct vertices.
        by_start.clear();
        let mut pinched = horizon
            .iter()
            .any(|&(a, b, _)| by_start.insert(a, b).is_some());
        if !pinched {
            let (first, mut at, mut length) = (horizon[0].0, horizon[0].1, 1);
            while at != first && length <= horizon.len() {
                match by_start.get(&at) {
                    Some(&b) => at = b,
                    None => break,
                }
                length += 1;
            }
            pinched = at != first || length != horizon.len();
        }
        if pinched {
            faces[fi as usize].outside.swap_remove(k);
            pending.push(fi);
            continue;
        }

        // Delete the seen faces, keeping their outside points.
        orphans.clear();
        for &g in &visible {
            let gf = &mut faces[g as usize];
            gf.alive = false;
            orphans.append(&mut gf.outside);
            free.push(g);
        }

        // Cone the horizon to the eye.
        new_faces.clear();
        by_end.clear();
        for &(a, b, beyond) in &horizon {
            let face = Face::new(p, [a, b, eye]);
            let id = match free.pop() {
                Some(id) => {
                    faces[id as usize] = face;
                    id
                }
                None => {
                    faces.push(face);
                    (faces.len() - 1) as u32
                }
            };
            faces[id as usize].nb[0] = beyond;
            let bf = &mut faces[beyond as usize];
            let ei = bf
                .edge_index(b, a)
                .expect("the face beyond the horizon shares its edge");
            bf.nb[ei] = id;
            by_start.insert(a, id);
            by_end.insert(b, id);
            new_faces.push(id);
        }
        for &id in &new_faces {
            let [a, b, _] = faces[id as usize].v;
            // Across `b → eye` is the new face whose horizon edge starts at `b`; across
            // `eye → a` the one whose horizon edge ends at `a`.
            faces[id as usize].nb[1] = by_start[&b];
            faces[id as usize].nb[2] = by_end[&a];
        }

        // Hand the orphans to the new faces they lie above; the others are inside.
        for &q in &orphans {
            if q == eye {
                continue;
            }
            let x = p[q as usize];
            if let Some(&g) = new_faces
                .iter()
                .find(|&&g| faces[g as usize].distance(x) > tol)
            {
                faces[g as usize].outside.push(q);
            }
        }
        pending.extend(
            new_faces
                .iter()
                .filter(|&&g| !faces[g as usize].outside.is_empty()),
        );
    }

    // Renumber the living faces.
    let mut id = vec![u32::MAX; faces.len()];
    let mut t = Triangles {
        v: Vec::new(),
        nb: Vec::new(),
    };
    for (i, f) in faces.iter().enumerate() {
        if f.alive {
            id[i] = t.v.len() as u32;
            t.v.push(f.v);
        }
    }
    for f in faces.iter().filter(|f| f.alive) {
        t.nb.push(f.nb.map(|g| id[g as usize]));
    }
    Ok(t)
}

// ---------------------------------------------------------------------------------------------
// Polygonal faces

/// A closed polygonal mesh over point indices.
struct Mesh {
    /// Point index of each vertex, increasing.
    vertices: Vec<u32>,
    face_starts: Vec<u32>,
    face_loops: Vec<u32>,
    normals: Vec<DVec3>,
    edges: Vec<PolyhedronEdge>,
}

/// The triangles merged into coplanar groups, or `None` when a merge does not give a closed
/// 2-manifold.
fn merge_coplanar(p: &[DVec3], t: &Triangles, tol: f64) -> Option<Mesh> {
    let n = t.v.len();
    let normal = |i: usize| {
        let [a, b, c] = t.v[i].map(|k| p[k as usize]);
        (b - a).cross(c - a)
    };
    let mut group = vec![u32::MAX; n];
    let mut loops: Vec<Vec<u32>> = Vec::new();
    let mut normals = Vec::new();
    let mut members: Vec<usize> = Vec::new();
    let mut next: IndexMap<u32, u32> = IndexMap::default();
    let mut stack = Vec::new();
    for seed in 0..n {
        if group[seed] != u32::MAX {
            continue;
        }
        let g = loops.len() as u32;
        let unit = normal(seed).normalize_or_zero();
        let offset = unit.dot(p[t.v[seed][0] as usize]);
        members.clear();
        stack.push(seed);
        group[seed] = g;
        while let Some(i) = stack.pop() {
            members.push(i);
            for &j in &t.nb[i] {
                let j = j as usize;
                if group[j] == u32::MAX
                    && normal(j).dot(unit) > 0.0
                    && t.v[j]
                        .iter()
                        .all(|&k| (unit.dot(p[k as usize]) - offset).abs() <= tol)
                {
                    group[j] = g;
                    stack.push(j);
                }
            }
        }
        if let [i] = members[..] {
            loops.push(t.v[i].to_vec());
            normals.push(normal(i).normalize_or_zero());
            continue;
        }
        // The group's boundary: its triangles' edges whose neighbour is in another group.
        next.clear();
        let mut sum = DVec3::ZERO;
        for &i in &members {
            sum += normal(i);
            for k in 0..3 {
                if group[t.nb[i][k] as usize] != g
                    && next.insert(t.v[i][k], t.v[i][(k + 1) % 3]).is_some()
                {
                    return None;
                }
            }
        }
        let start = *next.keys().min()?;
        let mut lp = vec![start];
        let mut at = next[&start];
        while at != start {
            if lp.len() > next.len() {
                return None;
            }
            lp.push(at);
            at = *next.get(&at)?;
        }
        if lp.len() != next.len() {
            return None;
        }
        loops.push(lp);
        normals.push(sum.normalize_or_zero());
    }
    // Drop vertices on fewer than three faces: they lie on an edge's line or inside a face.
    let mut face_count = vec![0u32; p.len()];
    for lp in &loops {
        for &k in lp {
            face_count[k as usize] += 1;
        }
    }
    for lp in &mut loops {
        lp.retain(|&k| face_count[k as usize] >= 3);
        if lp.len() < 3 {
            return None;
        }
    }
    build_mesh(p.len(), loops, normals)
}

/// The triangles as faces, each its own.
fn unmerged(p: &[DVec3], t: &Triangles) -> Option<Mesh> {
    let loops = t.v.iter().map(|v| v.to_vec()).collect();
    let normals =
        t.v.iter()
            .map(|v| {
                let [a, b, c] = v.map(|k| p[k as usize]);
                (b - a).cross(c - a).normalize_or_zero()
            })
            .collect();
    build_mesh(p.len(), loops, normals)
}

/// The mesh of these face loops over `points` points: vertices renumbered in point order,
/// loops started at their lowest vertex, edges found; `None` unless it is a closed 2-manifold
/// with `V − E + F = 2`.
fn build_mesh(points: usize, mut loops: Vec<Vec<u32>>, normals: Vec<DVec3>) -> Option<Mesh> {
    let mut renumber = vec![u32::MAX; points];
    for lp in &loops {
        for &k in lp {
            renumber[k as usize] = 0;
        }
    }
    let mut vertices = Vec::new();
    for (k, r) in renumber.iter_mut().enumerate() {
        if *r == 0 {
            *r = vertices.len() as u32;
            vertices.push(k as u32);
        }
    }
    let mut directed: IndexMap<(u32, u32), u32> = IndexMap::default();
    directed.reserve(loops.iter().map(Vec::len).sum());
    for (f, lp) in loops.iter_mut().enumerate() {
        for k in lp.iter_mut() {
            *k = renumber[*k as usize];
        }
        let first = (0..lp.len()).min_by_key(|&i| lp[i])?;
        lp.rotate_left(first);
        for i in 0..lp.len() {
            let key = (lp[i], lp[(i + 1) % lp.len()]);
            if directed.insert(key, f as u32).is_some() {
                return None;
            }
        }
    }
    let mut edges = Vec::with_capacity(directed.len() / 2);
    for (f, lp) in loops.iter().enumerate() {
        for i in 0..lp.len() {
            let (a, b) = (lp[i], lp[(i + 1) % lp.len()]);
            if a < b {
                let right = *directed.get(&(b, a))?;
                edges.push(PolyhedronEdge {
                    vertices: [a, b],
                    faces: [f as u32, right],
                });
            }
        }
    }
    if 2 * edges.len() != directed.len()
        || vertices.len() + loops.len() != edges.len() + 2
        || normals.contains(&DVec3::ZERO)
    {
        return None;
    }
    edges.sort_unstable_by_key(|e| e.vertices);
    let mut face_starts = vec![0u32];
    let mut face_loops = Vec::new();
    for lp in loops {
        face_loops.extend(lp);
        face_starts.push(face_loops.len() as u32);
    }
    Some(Mesh {
        vertices,
        face_starts,
        face_loops,
        normals,
        edges,
    })
}

/// The volume, the centroid and the density-weighted second central moments `C` of the solid
/// bounded by the closed, consistently oriented `triangles` (outward counter-clockwise; an
/// inward orientation gives a negative volume), by the divergence theorem: with
/// `δ = a · (b × c)` and `s = a + b + c` per triangle, `vol = Σ δ / 6`,
/// `∫ x = Σ δ s / 24`, `∫ x xᵀ = Σ δ (a aᵀ + b bᵀ + c cᵀ + s sᵀ) / 120` (the moments of the
/// tetrahedra from the origin), moved to the centroid by the parallel axis theorem. The
/// inertia is `tr C − C`. Points centred near the origin keep the sums free of cancellation.
pub(crate) fn solid_moments(
    triangles: impl Iterator<Item = [DVec3; 3]>,
    density: f64,
) -> (f64, DVec3, [[f64; 3]; 3]) {
    let (mut six_vol, mut first, mut second) = (0.0, DVec3::ZERO, [[0.0; 3]; 3]);
    for [a, b, c] in triangles {
        let delta = a.dot(b.cross(c));
        let s = a + b + c;
        six_vol += delta;
        first += s * delta;
        for (i, row) in second.iter_mut().enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                *x += delta * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
            }
        }
    }
    let volume = six_vol / 6.0;
    let centroid = first / (4.0 * six_vol);
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = density * (second[i][j] / 120.0 - volume * centroid[i] * centroid[j]);
        }
    }
    (volume, centroid, c)
}
