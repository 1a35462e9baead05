//! The [`Polytope`] view of a shape that SAT and the contact manifolds read (vertices, faces
//! as counter-clockwise vertex loops with outward normals, edges with their two faces), and
//! its implementations for the polytopes of this crate: cuboids, segments, triangles, convex
//! polygons and convex polyhedra (each shape gives it by [`ConvexShape::as_polytope`]).
//!
//! [`ConvexShape::as_polytope`]: super::ConvexShape::as_polytope

use super::{
    ConvexPolygon, ConvexPolyhedron, ConvexShape, CoreSupport, Cuboid, FeatureId, MassProperties,
    Outline, Segment, ShapeError, Simplex, SupportMap, Triangle,
};
use crate::math::Vector;

/// A convex polytope given by its vertices, faces and (in 3D) edges, in its local frame: what
/// the separating axis test and the contact manifolds need.
///
/// A face is a facet: in 2D a side (a loop of 2 vertices), in 3D a polygon whose vertex loop is
/// counter-clockwise seen from outside (from the side its normal points to). Normals are outward
/// unit vectors. In 2D there are no separate edges ([`Polytope::edge_count`] is 0): the sides
/// are the faces.
///
/// A 3D convex polyhedron storing its vertices, faces as vertex-index loops with outward
/// normals, and its unique edges as vertex pairs implements it by returning those; giving
/// [`Polytope::edge_faces`] (the two faces of each edge) lets SAT prune edge pairs.
pub trait Polytope<V: Vector> {
    /// Number of vertices.
    fn vertex_count(&self) -> usize;
    /// Vertex `i`, local frame.
    fn vertex(&self, i: usize) -> V;
    /// The index of a vertex farthest along `d` (the lowest index on ties).
    fn support_vertex(&self, d: V) -> usize {
        let mut best = (0, self.vertex(0).dot(d));
        for i in 1..self.vertex_count() {
            let x = self.vertex(i).dot(d);
            if x > best.1 {
                best = (i, x);
            }
        }
        best.0
    }
    /// Number of faces.
    fn face_count(&self) -> usize;
    /// The outward unit normal of face `i`.
    fn face_normal(&self, i: usize) -> V;
    /// The index of one vertex of face `i` (the first of its loop).
    fn face_vertex(&self, i: usize) -> usize;
    /// `n · v` for the normal `n` of face `i` and its vertices `v`: the shape lies in
    /// `n · x ≤ offset`.
    fn face_offset(&self, i: usize) -> f64 {
        self.face_normal(i).dot(self.vertex(self.face_vertex(i)))
    }
    /// Replaces `out` with the vertex loop of face `i` (counter-clockwise seen from outside in
    /// 3D; from the first vertex to the second with the outside on the right in 2D).
    fn face_vertices(&self, i: usize, out: &mut Vec<u32>);
    /// Number of edges (3D; 0 in 2D).
    fn edge_count(&self) -> usize;
    /// The vertices of edge `i`.
    fn edge(&self, i: usize) -> [u32; 2];
    /// The two faces that share edge `i`, when known; `None` disables the Gauss-map pruning
    /// for this edge.
    fn edge_faces(&self, _i: usize) -> Option<[u32; 2]> {
        None
    }
    /// The index of the edge between vertices `v0` and `v1` (either order), by a scan.
    fn edge_index(&self, v0: u32, v1: u32) -> Option<u32> {
        (0..self.edge_count())
            .find(|&i| {
                let [p, q] = self.edge(i);
                (p, q) == (v0, v1) || (p, q) == (v1, v0)
            })
            .map(|i| i as u32)
    }
}

/// `a × b` of 3D vectors (the third component is 0 in 2D, where it is not used).
#[inline]
pub(crate) fn cross<V: Vector>(a: V, b: V) -> V {
    let (x, y) = (a.to_array3(), b.to_array3());
    V::from_array3([
        x[1] * y[2] - x[2] * y[1],
        x[2] * y[0] - x[0] * y[2],
        x[0] * y[1] - x[1] * y[0],
    ])
}

/// The outward normal of a 2D side from `p` to `q` (the outside on the right): `(dy, −dx)`,
/// unit; zero for `p = q`.
#[inline]
fn side_normal<V: Vector>(p: V, q: V) -> V {
    let d = q - p;
    let n = V::from_array3([d.comp(1), -d.comp(0), 0.0]);
    let l = n.length();
    if l > 0.0 {
        n * (1.0 / l)
    } else {
        V::ZERO
    }
}

// ---------------------------------------------------------------------------------------------
// The shapes of this crate as polytopes

/// Faces of a rectangle: `+x, −x, +y, −y`, vertex `i` with bit `k` set on the `+` side of axis `k`.
const CUBOID_FACES_2D: [[u32; 2]; 4] = [[1, 3], [2, 0], [3, 2], [0, 1]];
/// Faces of a box: `+x, −x, +y, −y, +z, −z`, counter-clockwise seen from outside.
const CUBOID_FACES_3D: [[u32; 4]; 6] = [
    [1, 3, 7, 5],
    [0, 4, 6, 2],
    [2, 6, 7, 3],
    [0, 1, 5, 4],
    [4, 5, 7, 6],
    [0, 2, 3, 1],
];

/// Face `2k` of a cuboid is the `+` side of axis `k`, face `2k + 1` the `−` side; vertex `i` has
/// bit `k` set on the `+` side of axis `k` (as its support feature); in 3D edge `4k + m` is
/// along axis `k`, its other two coordinates' sides given by the bits of `m`.
impl<V: Vector> Polytope<V> for Cuboid<V> {
    fn vertex_count(&self) -> usize {
        1 << V::DIM
    }
    fn vertex(&self, i: usize) -> V {
        let h = self.half_extents();
        let mut p = [0.0; 3];
        for (k, p) in p.iter_mut().enumerate().take(V::DIM) {
            *p = if i >> k & 1 == 1 {
                h.comp(k)
            } else {
                -h.comp(k)
            };
        }
        V::from_array3(p)
    }
    #[inline]
    fn support_vertex(&self, d: V) -> usize {
        (0..V::DIM).fold(0, |bits, k| bits | (usize::from(d.comp(k) >= 0.0) << k))
    }
    fn face_count(&self) -> usize {
        2 * V::DIM
    }
    #[inline]
    fn face_normal(&self, i: usize) -> V {
        V::unit(i / 2) * if i % 2 == 0 { 1.0 } else { -1.0 }
    }
    fn face_vertex(&self, i: usize) -> usize {
        if V::DIM == 2 {
            CUBOID_FACES_2D[i][0] as usize
        } else {
            CUBOID_FACES_3D[i][0] as usize
        }
    }
    #[inline]
    fn face_offset(&self, i: usize) -> f64 {
        self.half_extents().comp(i / 2)
    }
    fn face_vertices(&self, i: usize, out: &mut Vec<u32>) {
        out.clear();
        if V::DIM == 2 {
            out.extend_from_slice(&CUBOID_FACES_2D[i]);
        } else {
            out.extend_from_slice(&CUBOID_FACES_3D[i]);
        }
    }
    fn edge_count(&self) -> usize {
        if V::DIM == 3 {
            12
        } else {
            0
        }
    }
    fn edge(&self, i: usize) -> [u32; 2] {
        let (k, m) = (i / 4, i as u32 % 4);
        let (b, c) = ((k + 1) % 3, (k + 2) % 3);
        let v0 = (m & 1) << b | (m >> 1 & 1) << c;
        [v0, v0 | 1 << k]
    }
    fn edge_faces(&self, i: usize) -> Option<[u32; 2]> {
        let (k, m) = (i / 4, i as u32 % 4);
        let (b, c) = ((k + 1) % 3, (k + 2) % 3);
        let face = |axis: usize, plus: u32| 2 * axis as u32 + (1 - plus);
        Some([face(b, m & 1), face(c, m >> 1 & 1)])
    }
    fn edge_index(&self, v0: u32, v1: u32) -> Option<u32> {
        let x = v0 ^ v1;
        if V::DIM != 3 || !x.is_power_of_two() || x >= 8 {
            return None;
        }
        let k = x.trailing_zeros() as usize;
        let (b, c) = ((k + 1) % 3, (k + 2) % 3);
        Some(4 * k as u32 + (v0 >> b & 1) + 2 * (v0 >> c & 1))
    }
}

/// The loop of side `i` of a 2D polygon of `n` vertices, counter-clockwise or not.
#[inline]
fn polygon_side(i: usize, n: usize, ccw: bool) -> [u32; 2] {
    let j = (i + 1) % n;
    if ccw {
        [i as u32, j as u32]
    } else {
        [j as u32, i as u32]
    }
}

/// The vertices `[a, b]` of a segment, `[a, b, c]` of a triangle. A segment has in 2D two
/// sides (face 0 from `a` to `b`, face 1 back) and no face in 3D, where it is edge 0. A
/// triangle has three sides in 2D (face `i` from vertex `i` to `i + 1`, reversed when the
/// vertices turn clockwise) and in 3D two faces, both sides of its plane (face 0 with the
/// normal `(b − a) × (c − a)`, loop `a b c`; face 1 opposite, loop `a c b`), and edges
/// `a b`, `b c`, `c a`.
impl<V: Vector, const N: usize> Polytope<V> for Simplex<V, N> {
    fn vertex_count(&self) -> usize {
        N
    }
    #[inline]
    fn vertex(&self, i: usize) -> V {
        self.vertices()[i]
    }
    fn face_count(&self) -> usize {
        if V::DIM == 2 {
            N
        } else if N == 3 {
            2
        } else {
            0
        }
    }
    fn face_normal(&self, i: usize) -> V {
        let v = self.vertices();
        if V::DIM == 2 {
            let [p, q] = self.side(i);
            side_normal(v[p as usize], v[q as usize])
        } else {
            let n = cross(v[1] - v[0], v[2] - v[0]);
            let n = n * (1.0 / n.length());
            if i == 0 {
                n
            } else {
                -n
            }
        }
    }
    fn face_vertex(&self, i: usize) -> usize {
        if V::DIM == 2 {
            self.side(i)[0] as usize
        } else {
            0
        }
    }
    fn face_vertices(&self, i: usize, out: &mut Vec<u32>) {
        out.clear();
        if V::DIM == 2 {
            out.extend_from_slice(&self.side(i));
        } else if i == 0 {
            out.extend_from_slice(&[0, 1, 2]);
        } else {
            out.extend_from_slice(&[0, 2, 1]);
        }
    }
    fn edge_count(&self) -> usize {
        match (V::DIM, N) {
            (2, _) => 0,
            (_, 2) => 1,
            _ => 3,
        }
    }
    fn edge(&self, i: usize) -> [u32; 2] {
        [i as u32, ((i + 1) % N) as u32]
    }
}

impl<V: Vector, const N: usize> Simplex<V, N> {
    /// The loop of 2D side `i`.
    fn side(&self, i: usize) -> [u32; 2] {
        let v = self.vertices();
        let ccw = N == 2 || {
            let (u, w) = (v[1] - v[0], v[2] - v[0]);
            u.comp(0) * w.comp(1) - u.comp(1) * w.comp(0) > 0.0
        };
        polygon_side(i, N, ccw)
    }
}

/// Side `i` of a convex polygon runs from vertex `i` to vertex `i + 1`.
impl<V: Vector> Polytope<V> for ConvexPolygon<V> {
    fn vertex_count(&self) -> usize {
        self.vertices().len()
    }
    #[inline]
    fn vertex(&self, i: usize) -> V {
        self.vertices()[i]
    }
    fn face_count(&self) -> usize {
        self.vertices().len()
    }
    fn face_normal(&self, i: usize) -> V {
        let v = self.vertices();
        side_normal(v[i], v[(i + 1) % v.len()])
    }
    fn face_vertex(&self, i: usize) -> usize {
        i
    }
    fn face_vertices(&self, i: usize, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(&polygon_side(i, self.vertices().len(), true));
    }
    fn edge_count(&self) -> usize {
        0
    }
    fn edge(&self, i: usize) -> [u32; 2] {
        polygon_side(i, self.vertices().len(), true)
    }
}

impl<V: Vector> Polytope<V> for ConvexPolyhedron<V> {
    fn vertex_count(&self) -> usize {
        self.vertices().len()
    }
    #[inline]
    fn vertex(&self, i: usize) -> V {
        self.vertices()[i]
    }
    fn support_vertex(&self, d: V) -> usize {
        // The shape's own support: a hill climb on large hulls, the lowest index on ties.
        match self.local_support_feature(d).1 {
            FeatureId::Vertex(i) => i as usize,
            _ => 0,
        }
    }
    fn face_count(&self) -> usize {
        ConvexPolyhedron::face_count(self)
    }
    fn face_normal(&self, i: usize) -> V {
        ConvexPolyhedron::face_normal(self, i)
    }
    fn face_vertex(&self, i: usize) -> usize {
        ConvexPolyhedron::face_vertices(self, i)[0] as usize
    }
    fn face_vertices(&self, i: usize, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(ConvexPolyhedron::face_vertices(self, i));
    }
    fn edge_count(&self) -> usize {
        self.edges().len()
    }
    fn edge(&self, i: usize) -> [u32; 2] {
        self.edges()[i].vertices
    }
    fn edge_faces(&self, i: usize) -> Option<[u32; 2]> {
        Some(self.edges()[i].faces)
    }
}

// ---------------------------------------------------------------------------------------------
// What the polytopes answer for themselves

impl<V: Vector> CoreSupport<V> for Cuboid<V> {}

impl<V: Vector> ConvexShape<V> for Cuboid<V> {
    fn name(&self) -> &'static str {
        "box"
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        Cuboid::bounding_radius_about(self, centre)
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        Cuboid::mass_properties(self, density)
    }
    #[inline]
    fn as_polytope(&self) -> Option<&dyn Polytope<V>> {
        Some(self)
    }
    /// The rectangle's corners from `(−x, −y)`, counter-clockwise (2D).
    #[inline]
    fn polygon_vertices(&self, out: &mut [V]) -> Option<usize> {
        if V::DIM != 2 || out.len() < 4 {
            return None;
        }
        let h = self.half_extents();
        let (hx, hy) = (h.comp(0), h.comp(1));
        for (k, (x, y)) in [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
            .into_iter()
            .enumerate()
        {
            out[k] = V::from_array3([x, y, 0.0]);
        }
        Some(4)
    }
    /// The corners: counter-clockwise from `(−x, −y)` in 2D; in 3D by `x`, then `y`, then `z`
    /// from `−` to `+`.
    fn outline(&self) -> Outline<V> {
        let h = self.half_extents().to_array3();
        let vertices = if V::DIM == 2 {
            [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                .map(|(sx, sy)| V::from_array3([sx * h[0], sy * h[1], 0.0]))
                .to_vec()
        } else {
            let mut corners = Vec::with_capacity(8);
            for sx in [-1.0, 1.0] {
                for sy in [-1.0, 1.0] {
                    for sz in [-1.0, 1.0] {
                        corners.push(V::from_array3([sx * h[0], sy * h[1], sz * h[2]]));
                    }
                }
            }
            corners
        };
        Outline::Polytope {
            vertices,
            rounding: 0.0,
        }
    }
}

impl<V: Vector, const N: usize> CoreSupport<V> for Simplex<V, N> {}

impl<V: Vector> ConvexShape<V> for Segment<V> {
    fn name(&self) -> &'static str {
        "segment"
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        Simplex::bounding_radius_about(self, centre)
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        Segment::mass_properties(self, density)
    }
    #[inline]
    fn as_polytope(&self) -> Option<&dyn Polytope<V>> {
        Some(self)
    }
    fn outline(&self) -> Outline<V> {
        Outline::Polytope {
            vertices: self.vertices().to_vec(),
            rounding: 0.0,
        }
    }
}

impl<V: Vector> ConvexShape<V> for Triangle<V> {
    fn name(&self) -> &'static str {
        "triangle"
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        Simplex::bounding_radius_about(self, centre)
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        Triangle::mass_properties(self, density)
    }
    #[inline]
    fn as_polytope(&self) -> Option<&dyn Polytope<V>> {
        Some(self)
    }
    /// The vertices; counter-clockwise in 2D.
    fn outline(&self) -> Outline<V> {
        let [a, b, c] = self.vertices();
        let clockwise = V::DIM == 2 && super::cross2(b - a, c - a) < 0.0;
        let vertices = if clockwise {
            vec![a, c, b]
        } else {
            vec![a, b, c]
        };
        Outline::Polytope {
            vertices,
            rounding: 0.0,
        }
    }
}

impl<V: Vector> CoreSupport<V> for ConvexPolygon<V> {}

impl<V: Vector> ConvexShape<V> for ConvexPolygon<V> {
    fn name(&self) -> &'static str {
        "polygon"
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        ConvexPolygon::bounding_radius_about(self, centre)
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        ConvexPolygon::mass_properties(self, density)
    }
    #[inline]
    fn as_polytope(&self) -> Option<&dyn Polytope<V>> {
        Some(self)
    }
    #[inline]
    fn polygon_vertices(&self, out: &mut [V]) -> Option<usize> {
        let src = self.vertices();
        let to = out.get_mut(..src.len())?;
        to.copy_from_slice(src);
        Some(src.len())
    }
    fn outline(&self) -> Outline<V> {
        Outline::Polytope {
            vertices: self.vertices().to_vec(),
            rounding: 0.0,
        }
    }
}

impl<V: Vector> CoreSupport<V> for ConvexPolyhedron<V> {}

impl<V: Vector> ConvexShape<V> for ConvexPolyhedron<V> {
    fn name(&self) -> &'static str {
        "polyhedron"
    }
    fn bounding_radius_about(&self, centre: V) -> f64 {
        ConvexPolyhedron::bounding_radius_about(self, centre)
    }
    fn mass_properties(&self, density: f64) -> Result<MassProperties<V>, ShapeError> {
        ConvexPolyhedron::mass_properties(self, density)
    }
    #[inline]
    fn as_polytope(&self) -> Option<&dyn Polytope<V>> {
        Some(self)
    }
    fn outline(&self) -> Outline<V> {
        Outline::Polytope {
            vertices: self.vertices().to_vec(),
            rounding: 0.0,
        }
    }
}
