//! Convex decomposition of simple polygons (2D): ear clipping, then Hertel–Mehlhorn.
//!
//! [`decompose_polygon`] takes any simple polygon, either orientation, and returns strictly
//! convex counter-clockwise pieces whose union is the polygon and whose insides are disjoint,
//! so that a user can give a concave outline and the convex queries can work on its pieces.
//!
//! # Algorithm
//!
//! 1. **Validation**: at least three finite vertices, no two consecutive ones equal, no two
//!    edges crossing or touching (every pair of edges is tested, `O(n²)`; a pair of adjacent
//!    edges that fold back onto each other counts as touching), and an area. A clockwise
//!    polygon is reversed. Vertices where the boundary goes straight on (collinear with their
//!    neighbours to [`DEGENERACY_TOLERANCE`]) are dropped: they change nothing of the region.
//! 2. **Triangulation by ear clipping** (D. Eberly, *Triangulation by ear clipping*,
//!    Geometric Tools, 2002–2015): a vertex is an *ear* when it is strictly convex and no
//!    reflex vertex of the remaining polygon lies in or on the triangle it makes with its two
//!    neighbours; an ear is cut off as a triangle, and only its two neighbours change status.
//!    A simple polygon always has an ear (Meisters' two-ears theorem), so this ends with
//!    `n − 2` triangles in `O(n²)` time. Vertices that become straight while clipping are
//!    neither ears nor reflex and wait until a neighbour's removal makes them convex.
//! 3. **Merging by Hertel–Mehlhorn** (S. Hertel, K. Mehlhorn, *Fast triangulation of simple
//!    polygons*, FCT 1983): every diagonal of the triangulation is visited once, in the order
//!    the triangles were cut, and removed when both its endpoints stay strictly convex in the
//!    merged piece. The diagonals left are all *essential* (removing any one would make a
//!    reflex corner), each reflex vertex of the polygon keeps at most two of them, so there
//!    are at most `2r + 1` pieces for `r` reflex vertices, and at most **four times the
//!    minimum number** of convex pieces (the minimum is at least `⌈r / 2⌉ + 1`). Each merge
//!    costs the size of the pieces, `O(n²)` in all (in practice near linear).
//!
//! Cost: `O(n²)` time, `O(n)` memory. A convex polygon comes back as one piece, itself
//! (counter-clockwise, without straight vertices). Each piece starts at its vertex of lowest
//! input index, so the result is deterministic.
//!
//! ```
//! use kairos_geometry::math::DVec2;
//! use kairos_geometry::shape::{decompose_polygon, ShapeError};
//! // An L: one reflex corner, two convex pieces of total area 3.
//! let l = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)]
//!     .map(|(x, y)| DVec2::new(x, y));
//! let pieces = decompose_polygon(&l).unwrap();
//! assert_eq!(pieces.len(), 2);
//! let area: f64 = pieces.iter().map(|p| p.mass_properties(1.0).unwrap().mass).sum();
//! assert!((area - 3.0).abs() < 1e-12);
//! // A bow tie is refused, naming its two crossing edges.
//! let bow = [(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)].map(|(x, y)| DVec2::new(x, y));
//! assert_eq!(
//!     decompose_polygon(&bow),
//!     Err(ShapeError::CrossingEdges { first: 0, second: 2 })
//! );
//! ```

use std::collections::HashMap;

use super::polygon::turns_left;
use super::{check_dim, check_finite, cross2, ConvexPolygon, ShapeError, DEGENERACY_TOLERANCE};
use crate::math::Vector;

/// Whether all `vertices` lie on the line through the first one and the one farthest from it,
/// to [`DEGENERACY_TOLERANCE`] of their distances from the first.
fn collinear<V: Vector>(vertices: &[V]) -> bool {
    let a = vertices[0];
    let far = vertices
        .iter()
        .map(|&v| v - a)
        .max_by(|u, w| u.length_squared().total_cmp(&w.length_squared()))
        .expect("at least 3 vertices");
    vertices.iter().all(|&v| {
        let u = v - a;
        cross2(far, u).abs() <= DEGENERACY_TOLERANCE * far.length() * u.length()
    })
}

/// The convex pieces of the simple polygon `vertices` (2D only, either orientation): ear
/// clipping, then Hertel–Mehlhorn merging (see the [module docs](self)).
///
/// # Errors
///
/// [`ShapeError::WrongDimension`] in 3D; [`ShapeError::TooFewVertices`],
/// [`ShapeError::NonFiniteVertex`], [`ShapeError::CoincidentVertices`] (consecutive),
/// [`ShapeError::CrossingEdges`] naming two edges that cross or touch (edge `i` runs from
/// vertex `i` to vertex `i + 1`), [`ShapeError::ZeroArea`] when all vertices are collinear
/// (or, for slivers thinner than rounding, when no ear passes the strict convexity test), and
/// [`ShapeError::NotConvex`] should a piece fail [`ConvexPolygon::new`] by rounding.
pub fn decompose_polygon<V: Vector>(vertices: &[V]) -> Result<Vec<ConvexPolygon<V>>, ShapeError> {
    check_dim::<V>("polygon decomposition", 2)?;
    let n = vertices.len();
    if n < 3 {
        return Err(ShapeError::TooFewVertices { count: n });
    }
    check_finite(vertices)?;
    for i in 0..n {
        if vertices[i] == vertices[(i + 1) % n] {
            return Err(ShapeError::CoincidentVertices {
                first: i,
                second: (i + 1) % n,
            });
        }
    }
    // Vertices on one line enclose nothing: their edges overlap, but the problem to name is
    // the missing area, not the overlap.
    if collinear(vertices) {
        return Err(ShapeError::ZeroArea);
    }
    if let Some((first, second)) = crossing_edges(vertices) {
        return Err(ShapeError::CrossingEdges { first, second });
    }
    // Counter-clockwise order of the input indices.
    let mut ring: Vec<usize> = (0..n).collect();
    let twice_area: f64 = (0..n)
        .map(|i| cross2(vertices[i], vertices[(i + 1) % n]))
        .sum();
    if twice_area < 0.0 {
        ring.reverse();
    }
    // Drop the vertices where the boundary goes straight on.
    loop {
        let m = ring.len();
        if m < 3 {
            return Err(ShapeError::ZeroArea);
        }
        let straight = (0..m).find(|&k| {
            let (a, b, c) = (
                vertices[ring[(k + m - 1) % m]],
                vertices[ring[k]],
                vertices[ring[(k + 1) % m]],
            );
            let (u, w) = (b - a, c - b);
            cross2(u, w).abs() <= DEGENERACY_TOLERANCE * u.length() * w.length()
        });
        match straight {
            Some(k) => {
                ring.remove(k);
            }
            None => break,
        }
    }
    let triangles = ear_clip(vertices, &ring).ok_or(ShapeError::ZeroArea)?;
    let pieces = hertel_mehlhorn(vertices, triangles);
    pieces
        .into_iter()
        .map(|piece| ConvexPolygon::new(piece.iter().map(|&k| vertices[k]).collect()))
        .collect()
}

/// The boundary of the union of convex `pieces` that meet along whole shared edges (as
/// [`decompose_polygon`] makes them): the edges that no other piece runs along backwards,
/// chained counter-clockwise from the lowest vertex (by `x`, then `y`). `None` when those
/// edges do not make one closed loop (pieces that do not meet that way).
pub fn union_outline<V: Vector>(pieces: &[ConvexPolygon<V>]) -> Option<Vec<V>> {
    let key = |p: V| {
        let a = p.to_array3();
        [a[0].to_bits(), a[1].to_bits(), a[2].to_bits()]
    };
    let mut edges: HashMap<([u64; 3], [u64; 3]), (V, V)> = HashMap::new();
    for piece in pieces {
        let v = piece.vertices();
        for k in 0..v.len() {
            let (a, b) = (v[k], v[(k + 1) % v.len()]);
            if edges.remove(&(key(b), key(a))).is_none() {
                edges.insert((key(a), key(b)), (a, b));
            }
        }
    }
    let mut next: HashMap<[u64; 3], V> = HashMap::new();
    for (a, b) in edges.values() {
        if next.insert(key(*a), *b).is_some() {
            // Two boundary edges leave one vertex: not one simple loop.
            return None;
        }
    }
    let start = edges.values().map(|e| e.0).min_by(|p, q| {
        let (p, q) = (p.to_array3(), q.to_array3());
        p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1]))
    })?;
    let mut outline = vec![start];
    let mut at = *next.get(&key(start))?;
    while key(at) != key(start) {
        if outline.len() >= edges.len() {
            return None;
        }
        outline.push(at);
        at = *next.get(&key(at))?;
    }
    (outline.len() == edges.len()).then_some(outline)
}

/// The sign of the turn `a → b → c`: `> 0` left, `< 0` right, `0` straight (unrounded
/// apart from the products).
#[inline]
fn orient<V: Vector>(a: V, b: V, c: V) -> f64 {
    cross2(b - a, c - a)
}

/// True when `p`, known collinear with segment `ab`, lies on it.
#[inline]
fn on_segment<V: Vector>(a: V, b: V, p: V) -> bool {
    (0..2).all(|k| a.comp(k).min(b.comp(k)) <= p.comp(k) && p.comp(k) <= a.comp(k).max(b.comp(k)))
}

/// True when the closed segments `ab` and `cd` share a point.
fn segments_meet<V: Vector>(a: V, b: V, c: V, d: V) -> bool {
    let (d1, d2) = (orient(a, b, c), orient(a, b, d));
    let (d3, d4) = (orient(c, d, a), orient(c, d, b));
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    (d1 == 0.0 && on_segment(a, b, c))
        || (d2 == 0.0 && on_segment(a, b, d))
        || (d3 == 0.0 && on_segment(c, d, a))
        || (d4 == 0.0 && on_segment(c, d, b))
}

/// The first pair of edges `(i, j)`, `i < j`, that cross or touch other than at the vertex
/// two adjacent edges share; adjacent edges meet wrongly when they fold back onto each other.
fn crossing_edges<V: Vector>(v: &[V]) -> Option<(usize, usize)> {
    let n = v.len();
    let edge = |i: usize| (v[i], v[(i + 1) % n]);
    let boxes: Vec<[f64; 4]> = (0..n)
        .map(|i| {
            let (a, b) = edge(i);
            [
                a.comp(0).min(b.comp(0)),
                a.comp(0).max(b.comp(0)),
                a.comp(1).min(b.comp(1)),
                a.comp(1).max(b.comp(1)),
            ]
        })
        .collect();
    for i in 0..n {
        for j in i + 1..n {
            let adjacent = j == i + 1 || (i == 0 && j == n - 1);
            if adjacent {
                // The shared vertex, and the other ends of the two edges.
                let (s, p, q) = if j == i + 1 {
                    (v[j], v[i], v[(j + 1) % n])
                } else {
                    (v[0], v[1], v[n - 1])
                };
                if orient(p, s, q) == 0.0 && (p - s).dot(q - s) > 0.0 {
                    return Some((i, j));
                }
                continue;
            }
            let (bi, bj) = (boxes[i], boxes[j]);
            if bi[1] < bj[0] || bj[1] < bi[0] || bi[3] < bj[2] || bj[3] < bi[2] {
                continue;
            }
            let ((a, b), (c, d)) = (edge(i), edge(j));
            if segments_meet(a, b, c, d) {
                return Some((i, j));
            }
        }
    }
    None
}

/// Ear clipping of the counter-clockwise `ring` (indices into `v`, no straight vertices):
/// `n − 2` counter-clockwise triangles, or `None` if rounding leaves no ear.
fn ear_clip<V: Vector>(v: &[V], ring: &[usize]) -> Option<Vec<[usize; 3]>> {
    let m = ring.len();
    let mut prev: Vec<usize> = (0..m).map(|k| (k + m - 1) % m).collect();
    let mut next: Vec<usize> = (0..m).map(|k| (k + 1) % m).collect();
    let p = |k: usize| v[ring[k]];
    // Reflex or straight: the vertices that can lie in an ear's triangle when another does.
    let reflex =
        |k: usize, prev: &[usize], next: &[usize]| orient(p(prev[k]), p(k), p(next[k])) <= 0.0;
    let mut alive = vec![true; m];
    let is_ear = |k: usize, prev: &[usize], next: &[usize], alive: &[bool]| {
        let (a, b, c) = (p(prev[k]), p(k), p(next[k]));
        if !(turns_left(a, b, c) && turns_left(b, c, a) && turns_left(c, a, b)) {
            return false;
        }
        // No reflex (or straight) vertex of the rest in or on the triangle.
        let mut j = next[next[k]];
        while j != prev[k] {
            if alive[j] && reflex(j, prev, next) {
                let q = p(j);
                if orient(a, b, q) >= 0.0 && orient(b, c, q) >= 0.0 && orient(c, a, q) >= 0.0 {
                    return false;
                }
            }
            j = next[j];
        }
        true
    };
    let mut ear: Vec<bool> = (0..m).map(|k| is_ear(k, &prev, &next, &alive)).collect();
    let mut triangles = Vec::with_capacity(m - 2);
    let mut left = m;
    let mut at = 0;
    while left > 3 {
        // The next ear at or after `at`, going round once.
        let mut k = at;
        let mut steps = 0;
        while !ear[k] {
            k = next[k];
            steps += 1;
            if steps > left {
                return None;
            }
        }
        let (a, c) = (prev[k], next[k]);
        triangles.push([ring[a], ring[k], ring[c]]);
        alive[k] = false;
        next[a] = c;
        prev[c] = a;
        left -= 1;
        ear[k] = false;
        ear[a] = left > 3 && is_ear(a, &prev, &next, &alive) || left == 3;
        ear[c] = left > 3 && is_ear(c, &prev, &next, &alive) || left == 3;
        at = c;
    }
    let a = (0..m).find(|&k| alive[k])?;
    let (b, c) = (next[a], next[next[a]]);
    triangles.push([ring[a], ring[b], ring[c]]);
    Some(triangles)
}

/// Hertel–Mehlhorn: the triangles merged across every diagonal whose removal leaves both its
/// ends strictly convex, visited in triangle order. Each piece starts at its lowest index.
fn hertel_mehlhorn<V: Vector>(v: &[V], triangles: Vec<[usize; 3]>) -> Vec<Vec<usize>> {
    let mut pieces: Vec<Vec<usize>> = triangles.iter().map(|t| t.to_vec()).collect();
    let mut alive = vec![true; pieces.len()];
    // Directed edge → the piece whose loop runs along it.
    let mut owner: HashMap<(usize, usize), usize> = HashMap::new();
    let mut diagonals = Vec::new();
    for (f, t) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            owner.insert((a, b), f);
            if owner.contains_key(&(b, a)) {
                diagonals.push((b, a));
            }
        }
    }
    // Diagonals in the order their first triangle was cut.
    diagonals.sort_by_key(|&(a, b)| owner[&(a, b)].min(owner[&(b, a)]));
    for (a, b) in diagonals {
        let (pf, qf) = (owner[&(a, b)], owner[&(b, a)]);
        let (pl, ql) = (&pieces[pf], &pieces[qf]);
        // `pl` runs a → b, `ql` runs b → a; the merged loop is `pl` from b round to a, then
        // `ql` from after a round to before b.
        let ia = pl
            .iter()
            .position(|&x| x == a)
            .expect("the piece has the edge");
        let ja = ql
            .iter()
            .position(|&x| x == a)
            .expect("the piece has the edge");
        let (np, nq) = (pl.len(), ql.len());
        let before_a = pl[(ia + np - 1) % np];
        let after_b = pl[(ia + 2) % np];
        let after_a = ql[(ja + 1) % nq];
        let before_b = ql[(ja + nq - 2) % nq];
        if !(turns_left(v[before_a], v[a], v[after_a]) && turns_left(v[before_b], v[b], v[after_b]))
        {
            continue;
        }
        let mut merged = Vec::with_capacity(np + nq - 2);
        // From b round `pl` to a.
        for k in 0..np {
            merged.push(pl[(ia + 1 + k) % np]);
        }
        // From after a round `ql` to before b.
        for k in 1..nq - 1 {
            merged.push(ql[(ja + k) % nq]);
        }
        for k in 0..merged.len() {
            owner.insert((merged[k], merged[(k + 1) % merged.len()]), pf);
        }
        owner.remove(&(a, b));
        owner.remove(&(b, a));
        pieces[pf] = merged;
        pieces[qf].clear();
        alive[qf] = false;
    }
    pieces
        .into_iter()
        .zip(alive)
        .filter(|(_, alive)| *alive)
        .map(|(mut piece, _)| {
            let first = (0..piece.len()).min_by_key(|&k| piece[k]).unwrap_or(0);
            piece.rotate_left(first);
            piece
        })
        .collect()
}
