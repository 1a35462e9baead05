//! Triangle meshes for continuous collision detection: validated vertices and triangles, their
//! unique edges, and procedural meshes for tests and benchmarks.

/// The largest magnitude of a mesh's coordinates: a body's volume and inertia are fifth powers
/// of its size, and must stay finite with room for its density.
pub const MAX_COORDINATE: f64 = 1e50;

/// Why a mesh was refused: the item and the problem.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MeshError {
    /// No triangles.
    #[error("the mesh has no triangles")]
    Empty,
    /// A vertex coordinate is infinite or NaN.
    #[error("vertex {0} is not finite")]
    NonFinite(usize),
    /// A triangle names a vertex that does not exist.
    #[error("triangle {triangle} names vertex {index}, but there are {count} vertices")]
    IndexOutOfRange {
        /// The triangle.
        triangle: usize,
        /// The index it names.
        index: u32,
        /// How many vertices there are.
        count: usize,
    },
    /// A vertex coordinate is larger in magnitude than [`MAX_COORDINATE`].
    #[error(
        "vertex {vertex}: coordinate {} is out of range (at most {} in magnitude)",
        crate::num::Num(*.value),
        crate::num::Num(MAX_COORDINATE)
    )]
    OutOfRange {
        /// The vertex.
        vertex: usize,
        /// Its coordinate.
        value: f64,
    },
    /// A triangle has no area (repeated or collinear corners).
    #[error("triangle {0} is degenerate (no area)")]
    Degenerate(usize),
    /// A procedural mesh's parameter is out of range: the parameter and the problem.
    #[error("{name}: {problem}")]
    Parameter {
        /// The parameter.
        name: &'static str,
        /// What is wrong.
        problem: String,
    },
}

/// A triangle mesh: vertices and counter-clockwise triangles (by vertex index), with its
/// unique undirected edges.
#[derive(Clone, Debug, PartialEq)]
pub struct TriMesh {
    vertices: Vec<[f64; 3]>,
    triangles: Vec<[u32; 3]>,
    edges: Vec<[u32; 2]>,
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

impl TriMesh {
    /// A mesh of `vertices` and `triangles`.
    ///
    /// # Errors
    ///
    /// [`MeshError`] naming the first bad item: no triangles, a non-finite vertex, a coordinate
    /// beyond [`MAX_COORDINATE`], an index out of range, a triangle without area (its cross product below `1e-14` of its longest edge
    /// squared).
    pub fn new(vertices: Vec<[f64; 3]>, triangles: Vec<[u32; 3]>) -> Result<Self, MeshError> {
        if triangles.is_empty() {
            return Err(MeshError::Empty);
        }
        if let Some(i) = vertices
            .iter()
            .position(|v| !v.iter().all(|x| x.is_finite()))
        {
            return Err(MeshError::NonFinite(i));
        }
        for (vertex, v) in vertices.iter().enumerate() {
            if let Some(&value) = v.iter().find(|x| x.abs() > MAX_COORDINATE) {
                return Err(MeshError::OutOfRange { vertex, value });
            }
        }
        let mut edges = Vec::with_capacity(3 * triangles.len());
        for (k, t) in triangles.iter().enumerate() {
            for &index in t {
                if index as usize >= vertices.len() {
                    return Err(MeshError::IndexOutOfRange {
                        triangle: k,
                        index,
                        count: vertices.len(),
                    });
                }
            }
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            let longest = [sub(b, a), sub(c, b), sub(a, c)]
                .map(norm)
                .into_iter()
                .fold(0.0, f64::max);
            if !(norm(cross(sub(b, a), sub(c, a))) > 1e-14 * longest * longest) {
                return Err(MeshError::Degenerate(k));
            }
            for (i, j) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                edges.push([i.min(j), i.max(j)]);
            }
        }
        // Sorted and unique, as a set would give them, without a node per edge.
        edges.sort_unstable();
        edges.dedup();
        Ok(Self {
            vertices,
            triangles,
            edges,
        })
    }
    /// The vertices.
    pub fn vertices(&self) -> &[[f64; 3]] {
        &self.vertices
    }
    /// The triangles (vertex indices, counter-clockwise seen from outside).
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }
    /// The unique undirected edges (lower index first, sorted).
    pub fn edges(&self) -> &[[u32; 2]] {
        &self.edges
    }
    /// The corners of triangle `k`.
    pub fn corners(&self, k: usize) -> [[f64; 3]; 3] {
        self.triangles[k].map(|i| self.vertices[i as usize])
    }
    /// The same triangles on the vertices moved by `place` (a rigid motion, for which the
    /// mesh stays valid: it is not checked again).
    pub fn mapped(&self, place: impl Fn([f64; 3]) -> [f64; 3]) -> Self {
        Self {
            vertices: self.vertices.iter().map(|&v| place(v)).collect(),
            triangles: self.triangles.clone(),
            edges: self.edges.clone(),
        }
    }
    /// The same mesh moved by `offset`.
    pub fn translated(mut self, offset: [f64; 3]) -> Self {
        for v in &mut self.vertices {
            for i in 0..3 {
                v[i] += offset[i];
            }
        }
        self
    }

    /// An icosphere: the icosahedron's faces split into four `subdivisions` times, every vertex
    /// pushed onto the sphere of `radius` about the origin (`20 · 4^s` triangles).
    pub fn icosphere(radius: f64, subdivisions: u32) -> Self {
        let g = (1.0 + 5f64.sqrt()) / 2.0;
        let mut vertices: Vec<[f64; 3]> = vec![
            [-1.0, g, 0.0],
            [1.0, g, 0.0],
            [-1.0, -g, 0.0],
            [1.0, -g, 0.0],
            [0.0, -1.0, g],
            [0.0, 1.0, g],
            [0.0, -1.0, -g],
            [0.0, 1.0, -g],
            [g, 0.0, -1.0],
            [g, 0.0, 1.0],
            [-g, 0.0, -1.0],
            [-g, 0.0, 1.0],
        ];
        let mut triangles: Vec<[u32; 3]> = vec![
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ];
        for _ in 0..subdivisions {
            let mut middle = std::collections::HashMap::new();
            let mut split = |i: u32, j: u32, vertices: &mut Vec<[f64; 3]>| {
                *middle.entry((i.min(j), i.max(j))).or_insert_with(|| {
                    let (a, b) = (vertices[i as usize], vertices[j as usize]);
                    vertices.push([0, 1, 2].map(|k| 0.5 * (a[k] + b[k])));
                    (vertices.len() - 1) as u32
                })
            };
            let mut next = Vec::with_capacity(4 * triangles.len());
            for [a, b, c] in triangles {
                let ab = split(a, b, &mut vertices);
                let bc = split(b, c, &mut vertices);
                let ca = split(c, a, &mut vertices);
                next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
            }
            triangles = next;
        }
        for v in &mut vertices {
            let n = norm(*v);
            *v = v.map(|x| x * radius / n);
        }
        Self::new(vertices, triangles).expect("an icosphere is a valid mesh")
    }

    /// A torus about the z axis: tube radius `minor` around the circle of radius `major`,
    /// `rings` segments around the axis and `sides` around the tube (`2 · rings · sides`
    /// triangles).
    pub fn torus(major: f64, minor: f64, rings: u32, sides: u32) -> Self {
        use std::f64::consts::TAU;
        let (rings, sides) = (rings.max(3), sides.max(3));
        let mut vertices = Vec::new();
        for i in 0..rings {
            let u = TAU * i as f64 / rings as f64;
            for j in 0..sides {
                let v = TAU * j as f64 / sides as f64;
                let r = major + minor * v.cos();
                vertices.push([r * u.cos(), r * u.sin(), minor * v.sin()]);
            }
        }
        let at = |i: u32, j: u32| (i % rings) * sides + (j % sides);
        let mut triangles = Vec::new();
        for i in 0..rings {
            for j in 0..sides {
                let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                triangles.extend([[a, b, c], [a, c, d]]);
            }
        }
        Self::new(vertices, triangles).expect("a torus is a valid mesh")
    }

    /// A spiky ball: an icosphere of `radius` with each original icosahedron vertex pulled out
    /// to `spike` times the radius (12 spikes).
    pub fn spiky_ball(radius: f64, spike: f64, subdivisions: u32) -> Self {
        let mut m = Self::icosphere(radius, subdivisions);
        for v in m.vertices.iter_mut().take(12) {
            *v = v.map(|x| x * spike);
        }
        m
    }

    /// The convex hull of `points` random points on the sphere of `radius` about the origin
    /// (uniform on the sphere, drawn from `seed`: the same seed gives the same mesh), by the
    /// crate's quickhull ([`crate::shape::ConvexPolyhedron`]); its polygonal faces (coplanar
    /// hull triangles merged, rare for random points) are fanned into triangles from their
    /// first vertex, counter-clockwise seen from outside. Every point within the hull
    /// tolerance of the others' hull is dropped, so the mesh has at most `points` vertices.
    ///
    /// # Errors
    ///
    /// [`MeshError::Parameter`] for fewer than 4 points or a radius not positive and finite;
    /// [`MeshError::Degenerate`] should a fanned face have a sliver (never seen).
    pub fn random_convex_hull(points: usize, radius: f64, seed: u64) -> Result<Self, MeshError> {
        use crate::math::DVec3;
        use rand::{Rng, SeedableRng};
        if points < 4 {
            return Err(MeshError::Parameter {
                name: "points",
                problem: format!("a convex hull needs at least 4 points, got {points}"),
            });
        }
        if !(radius > 0.0 && radius.is_finite()) {
            return Err(MeshError::Parameter {
                name: "radius",
                problem: format!(
                    "must be positive and finite, got {}",
                    crate::num::Num(radius)
                ),
            });
        }
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        // Uniform in the unit ball (rejection from the cube), then pushed onto the sphere.
        let cloud: Vec<DVec3> = (0..points)
            .map(|_| loop {
                let p = DVec3::new(
                    rng.gen_range(-1.0..1.0),
                    rng.gen_range(-1.0..1.0),
                    rng.gen_range(-1.0..1.0),
                );
                let l = p.length();
                if l > 1e-3 && l <= 1.0 {
                    break p * (radius / l);
                }
            })
            .collect();
        let hull = crate::shape::ConvexPolyhedron::from_points(&cloud).map_err(|e| {
            MeshError::Parameter {
                name: "points",
                problem: format!("their convex hull failed: {e}"),
            }
        })?;
        let vertices = hull.vertices().iter().map(|v| v.to_array()).collect();
        let mut triangles = Vec::new();
        for (face, _) in hull.faces() {
            for k in 1..face.len() - 1 {
                triangles.push([face[0], face[k], face[k + 1]]);
            }
        }
        Self::new(vertices, triangles)
    }

    /// A thin plate: the box `[-w, w] × [-w, w] × [-h, h]` as 12 triangles.
    pub fn plate(half_width: f64, half_thickness: f64) -> Self {
        let (w, h) = (half_width, half_thickness);
        let vertices = (0..8)
            .map(|k| {
                [
                    if k & 1 == 0 { -w } else { w },
                    if k & 2 == 0 { -w } else { w },
                    if k & 4 == 0 { -h } else { h },
                ]
            })
            .collect();
        let triangles = vec![
            [0, 2, 3],
            [0, 3, 1],
            [4, 5, 7],
            [4, 7, 6],
            [0, 1, 5],
            [0, 5, 4],
            [2, 6, 7],
            [2, 7, 3],
            [0, 4, 6],
            [0, 6, 2],
            [1, 3, 7],
            [1, 7, 5],
        ];
        Self::new(vertices, triangles).expect("a plate is a valid mesh")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed mesh: every edge has two triangles, so `V − E + F` is its Euler characteristic.
    fn euler(m: &TriMesh) -> i64 {
        m.vertices().len() as i64 - m.edges().len() as i64 + m.triangles().len() as i64
    }

    #[test]
    fn procedural_meshes_are_closed_surfaces() {
        let s = TriMesh::icosphere(2.0, 2);
        assert_eq!(s.triangles().len(), 320);
        assert_eq!(euler(&s), 2);
        assert!(s.vertices().iter().all(|v| (norm(*v) - 2.0).abs() < 1e-12));
        assert_eq!(euler(&TriMesh::torus(2.0, 0.5, 16, 8)), 0);
        assert_eq!(euler(&TriMesh::plate(1.0, 0.01)), 2);
        assert_eq!(euler(&TriMesh::spiky_ball(1.0, 2.0, 1)), 2);
    }

    /// Whether every vertex lies on the inner side of every triangle's plane, up to `tol`.
    fn convex(m: &TriMesh, tol: f64) -> bool {
        (0..m.triangles().len()).all(|k| {
            let [a, b, c] = m.corners(k);
            let n = cross(sub(b, a), sub(c, a));
            let l = norm(n);
            m.vertices().iter().all(|&v| {
                let d = sub(v, a);
                (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]) / l <= tol
            })
        })
    }

    #[test]
    fn random_convex_hulls_are_closed_convex_and_seeded() {
        for (n, seed) in [(4, 1), (10, 2), (64, 3), (500, 4)] {
            let m = TriMesh::random_convex_hull(n, 1.5, seed).unwrap();
            assert_eq!(euler(&m), 2, "closed: {n} points");
            assert_eq!(2 * m.edges().len(), 3 * m.triangles().len(), "{n} points");
            assert!(convex(&m, 1e-12), "{n} points");
            assert!(m.vertices().len() <= n && m.vertices().len() >= 4);
            assert!(m.vertices().iter().all(|v| (norm(*v) - 1.5).abs() < 1e-12));
            assert_eq!(m, TriMesh::random_convex_hull(n, 1.5, seed).unwrap());
            assert_ne!(m, TriMesh::random_convex_hull(n, 1.5, seed + 10).unwrap());
        }
        // The test sees a concave mesh: a spiky ball.
        assert!(!convex(&TriMesh::spiky_ball(1.0, 2.0, 1), 1e-12));
        for (n, r, needle) in [
            (3, 1.0, "points"),
            (10, 0.0, "radius"),
            (10, f64::NAN, "radius"),
        ] {
            let e = TriMesh::random_convex_hull(n, r, 1).unwrap_err();
            assert!(
                matches!(e, MeshError::Parameter { name, .. } if name == needle),
                "{e}"
            );
        }
    }

    #[test]
    fn bad_meshes_are_refused_naming_the_item() {
        let v = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        assert_eq!(TriMesh::new(v.clone(), vec![]), Err(MeshError::Empty));
        assert_eq!(
            TriMesh::new(v.clone(), vec![[0, 1, 3]]),
            Err(MeshError::IndexOutOfRange {
                triangle: 0,
                index: 3,
                count: 3
            })
        );
        assert_eq!(
            TriMesh::new(v.clone(), vec![[0, 1, 2], [0, 1, 1]]),
            Err(MeshError::Degenerate(1))
        );
        let mut bad = v;
        bad[1][2] = f64::NAN;
        assert_eq!(
            TriMesh::new(bad, vec![[0, 1, 2]]),
            Err(MeshError::NonFinite(1))
        );
    }
}
