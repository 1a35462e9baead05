//! The simplex of GJK and its reduction: the points of the Minkowski difference it holds, their
//! barycentric weights, and the signed-volumes distance subalgorithm (the point of a segment,
//! triangle or tetrahedron nearest the origin, searched only on the faces that can hold it),
//! with the affine-hull projection EPA uses.

use super::{Feature, Point, MAX_POINTS};
use crate::math::{DVec3, Vector};
use crate::query::ROUNDING;
use crate::shape::FeatureId;

/// The simplex: its points, their barycentric weights for the closest point `v`, and `v`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Simplex4<V> {
    pub(super) points: [Point<V>; MAX_POINTS],
    pub(super) lambda: [f64; MAX_POINTS],
    pub(super) len: usize,
    pub(super) v: V,
}

impl<V: Vector> Simplex4<V> {
    pub(super) fn new() -> Self {
        Self {
            points: [Point::default(); MAX_POINTS],
            lambda: [0.0; MAX_POINTS],
            len: 0,
            v: V::ZERO,
        }
    }

    pub(super) fn push(&mut self, p: Point<V>) {
        debug_assert!(self.len < MAX_POINTS);
        self.points[self.len] = p;
        self.len += 1;
    }

    /// The largest `|w|` of the simplex: its size, the scale of its rounding.
    pub(super) fn size(&self) -> f64 {
        self.points[..self.len]
            .iter()
            .map(|p| p.w.length())
            .fold(0.0, f64::max)
    }

    /// Replaces the simplex by its face nearest the origin and sets `v` to the closest point.
    pub(super) fn reduce(&mut self) {
        let (lambda, v) = self.closest_with(None);
        self.keep(lambda, v);
    }

    /// The closest point of the simplex, or of the simplex with `p` added, and its weights.
    pub(super) fn closest_with(&self, p: Option<&Point<V>>) -> ([f64; MAX_POINTS], V) {
        let mut w = [V::ZERO; MAX_POINTS];
        for (w, p) in w.iter_mut().zip(&self.points[..self.len]) {
            *w = p.w;
        }
        let mut n = self.len;
        if let Some(p) = p {
            w[n] = p.w;
            n += 1;
        }
        closest_on_simplex(&w[..n])
    }

    /// Keeps the points of positive weight and `v`.
    pub(super) fn keep(&mut self, lambda: [f64; MAX_POINTS], v: V) {
        let mut kept = 0;
        for (i, &l) in lambda.iter().enumerate().take(self.len) {
            if l > 0.0 {
                self.points[kept] = self.points[i];
                self.lambda[kept] = l;
                kept += 1;
            }
        }
        self.len = kept;
        self.v = v;
    }

    /// `Σ λ_i f(p_i)`.
    pub(super) fn combine(&self, f: impl Fn(&Point<V>) -> V) -> V {
        let mut s = V::ZERO;
        for (p, &l) in self.points[..self.len].iter().zip(&self.lambda) {
            s += f(p) * l;
        }
        s
    }

    /// The feature spanned by the distinct ids of the points (with positive weight).
    pub(super) fn feature(&self, ids: impl Fn(&Point<V>) -> FeatureId) -> Feature {
        let mut distinct = [0u32; MAX_POINTS];
        let mut n = 0;
        for p in &self.points[..self.len] {
            let FeatureId::Vertex(i) = ids(p) else {
                return Feature::Curved;
            };
            if !distinct[..n].contains(&i) {
                distinct[n] = i;
                n += 1;
            }
        }
        let d = &mut distinct[..n];
        d.sort_unstable();
        match *d {
            [i] => Feature::Vertex(i),
            [i, j] => Feature::Edge(i, j),
            [i, j, k] => Feature::Face(i, j, k),
            _ => Feature::Interior,
        }
    }
}

/// The point of the hull of `w` (1 to 4 points) closest to the origin, with its barycentric
/// weights (zero outside the face it lies on): the signed-volumes distance subalgorithm (see the
/// [module docs](super)). The points are embedded in 3D (`z = 0` in 2D), so one code path
/// serves both dimensions.
pub(in crate::query) fn closest_on_simplex<V: Vector>(w: &[V]) -> ([f64; MAX_POINTS], V) {
    let mut p = [DVec3::ZERO; MAX_POINTS];
    for (p, w) in p.iter_mut().zip(w) {
        *p = DVec3::from_array(w.to_array3());
    }
    let flat = V::DIM == 2;
    let (lambda, v) = match w.len() {
        1 => {
            let mut l = [0.0; MAX_POINTS];
            l[0] = 1.0;
            (l, p[0])
        }
        2 => closest_on_segment(&p, [0, 1], flat),
        3 => closest_on_triangle(&p, [0, 1, 2], flat),
        _ => closest_on_tetrahedron(&p, flat),
    };
    (lambda, V::from_array3(v.to_array()))
}

/// The closest point of the segment `p[i] p[j]`. In 2D (`flat`) the closest point inside the
/// segment is computed along the segment's normal, whose direction is exact to rounding
/// however near the origin the segment passes.
fn closest_on_segment(p: &[DVec3; MAX_POINTS], [i, j]: [usize; 2], flat: bool) -> Sub {
    let (a, b) = (p[i], p[j]);
    let e = b - a;
    let ee = e.length_squared();
    // Barycentric weights times |e|²: λ_a = b·e, λ_b = −a·e (they sum to e·e).
    let (la, lb) = (b.dot(e), -a.dot(e));
    let mut l = [0.0; MAX_POINTS];
    if !(ee > 0.0 && la > 0.0 && lb > 0.0) {
        // A vertex: b when the origin is beyond it (or the segment is a point nearer it).
        let k = if la <= 0.0 && lb > 0.0 {
            j
        } else if lb <= 0.0 && la > 0.0 {
            i
        } else if b.length_squared() < a.length_squared() {
            j
        } else {
            i
        };
        l[k] = 1.0;
        return (l, p[k]);
    }
    l[i] = la / ee;
    l[j] = lb / ee;
    let v = a * l[i] + b * l[j];
    let v = if flat {
        let n = DVec3::new(-e.y, e.x, 0.0);
        along_normal(v, n * (n.dot(a) / ee), [a, b, b])
    } else {
        v
    };
    (l, v)
}

/// The closest point of a face (an edge in 2D, a triangle in 3D) computed along its normal,
/// `along`, when it agrees to rounding with the barycentric combination `combined`; otherwise
/// `combined`. Both are the same point, but near the origin (a gap of `1e-9` between shapes of
/// size 1) the combination's rounding (`~1e-16`) turns its direction by `~1e-7`, which spoils
/// the lower bound GJK draws from it; the normal of a well-shaped face is exact to rounding.
/// On a sliver face the normal is not, and the combination stays a point of the face, as the
/// upper bound needs.
#[inline]
fn along_normal(combined: DVec3, along: DVec3, face: [DVec3; 3]) -> DVec3 {
    let size = face
        .iter()
        .map(|p| p.abs().max_element())
        .fold(0.0, f64::max);
    if (along - combined).abs().max_element() <= ROUNDING * size {
        along
    } else {
        combined
    }
}

/// The closest point of the triangle `p[i] p[j] p[k]`: the origin projected on its plane along
/// the normal `n`, if inside (its barycentric weights are `n·(b × c) / |n|²` and cyclic);
/// otherwise the nearest of the edges opposite the vertices of non-positive weight. In 2D the
/// projection is the origin itself: inside means enclosed.
fn closest_on_triangle(p: &[DVec3; MAX_POINTS], [i, j, k]: [usize; 3], flat: bool) -> Sub {
    let (a, b, c) = (p[i], p[j], p[k]);
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    // n·(b × c) written with an edge, whose rounding shrinks with the triangle.
    let w = [
        n.dot(b.cross(c - b)),
        n.dot(c.cross(a - c)),
        n.dot(a.cross(b - a)),
    ];
    let idx = [i, j, k];
    if nn > 0.0 && nn.is_finite() && w.iter().all(|&x| x > 0.0) {
        let mut l = [0.0; MAX_POINTS];
        for (&m, &x) in idx.iter().zip(&w) {
            l[m] = x / nn;
        }
        let v = if flat {
            DVec3::ZERO
        } else {
            along_normal(
                a * l[i] + b * l[j] + c * l[k],
                n * (n.dot(a) / nn),
                [a, b, c],
            )
        };
        return (l, v);
    }
    let mut best: Option<(Sub, f64)> = None;
    for drop in 0..3 {
        if nn > 0.0 && w[drop] > 0.0 {
            continue;
        }
        let edge = [idx[(drop + 1) % 3], idx[(drop + 2) % 3]];
        let (l, v) = closest_on_segment(p, edge, flat);
        let d2 = v.length_squared();
        if best.is_none_or(|(_, d)| d2 < d) {
            best = Some(((l, v), d2));
        }
    }
    best.map_or(([1.0, 0.0, 0.0, 0.0], a), |(s, _)| s)
}

/// The closest point of the tetrahedron `p[0..4]`: the origin itself if inside (all weights,
/// ratios of signed volumes, of the sign of the whole volume), otherwise the nearest of the
/// faces opposite the vertices whose weight has the wrong sign.
fn closest_on_tetrahedron(p: &[DVec3; MAX_POINTS], flat: bool) -> Sub {
    let [a, b, c, d] = *p;
    let (ab, ac, ad) = (b - a, c - a, d - a);
    let vol = ab.dot(ac.cross(ad));
    // The volume with the origin in place of each vertex, through the opposite face's edges
    // (whose rounding shrinks with the face: GJK's last faces are often slivers).
    let w = [
        b.dot((c - b).cross(d - b)),
        -a.dot(ac.cross(ad)),
        a.dot(ab.cross(ad)),
        -a.dot(ab.cross(ac)),
    ];
    let same = |x: f64| (vol > 0.0 && x > 0.0) || (vol < 0.0 && x < 0.0);
    if vol.is_finite() && w.iter().all(|&x| same(x)) {
        return (w.map(|x| x / vol), DVec3::ZERO);
    }
    let mut best: Option<(Sub, f64)> = None;
    for (drop, &x) in w.iter().enumerate() {
        if same(x) {
            continue;
        }
        let mut face = [0; 3];
        for (slot, m) in face.iter_mut().zip((0..4).filter(|&m| m != drop)) {
            *slot = m;
        }
        let (l, v) = closest_on_triangle(p, face, flat);
        let d2 = v.length_squared();
        if best.is_none_or(|(_, d)| d2 < d) {
            best = Some(((l, v), d2));
        }
    }
    best.map_or(([1.0, 0.0, 0.0, 0.0], a), |(s, _)| s)
}

/// Barycentric weights over the simplex's points and the closest point they give.
type Sub = ([f64; MAX_POINTS], DVec3);

/// The weights `μ` of the point `p_0 + Σ μ_j (p_j − p_0)` of the affine hull of the points
/// `w[idx]` closest to the origin, from the Gram system `Σ_j (e_i·e_j) μ_j = −e_i·p_0` with
/// `e_j = p_j − p_0`; `None` when the points are affinely dependent (to rounding).
pub(in crate::query) fn affine_closest<V: Vector>(w: &[V], idx: &[usize]) -> Option<[f64; 3]> {
    let k = idx.len() - 1;
    let mut mu = [0.0; 3];
    if k == 0 {
        return Some(mu);
    }
    if k > V::DIM {
        return None;
    }
    let p0 = w[idx[0]];
    let mut e = [V::ZERO; 3];
    for j in 0..k {
        e[j] = w[idx[j + 1]] - p0;
    }
    // Augmented matrix [G | r].
    let mut m = [[0.0; 4]; 3];
    let mut scale: f64 = 0.0;
    for i in 0..k {
        for j in 0..k {
            m[i][j] = e[i].dot(e[j]);
        }
        m[i][3] = -e[i].dot(p0);
        scale = scale.max(m[i][i]);
    }
    if scale <= 0.0 || !scale.is_finite() {
        return None;
    }
    // Gaussian elimination with partial pivoting.
    for c in 0..k {
        let pivot = (c..k)
            .max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))
            .unwrap_or(c);
        m.swap(c, pivot);
        if m[c][c].abs() <= 1e-13 * scale {
            return None;
        }
        let row = m[c];
        for below in m[c + 1..k].iter_mut() {
            let f = below[c] / row[c];
            for (x, &p) in below[c..].iter_mut().zip(&row[c..]) {
                *x -= f * p;
            }
        }
    }
    for c in (0..k).rev() {
        let mut s = m[c][3];
        for j in c + 1..k {
            s -= m[c][j] * mu[j];
        }
        mu[c] = s / m[c][c];
    }
    mu.iter().all(|x| x.is_finite()).then_some(mu)
}
