//! Continuous collision detection of a vertex and a triangle, and of two edges, whose points
//! move on straight lines over `t ∈ [0, 1]` (the motion of the seed with zero rotation, and of
//! the standard CCD benchmark queries): interval root finding on the coplanarity function with
//! the feature's domain test, never a missed contact.
//!
//! # The functions
//!
//! Every position is `x(t) = x₀ + (x₁ − x₀) t` with interval coefficients (the inputs may be
//! intervals themselves), so every function below is a polynomial in `t` with interval
//! coefficients ([`Poly`]) whose enclosure over a time interval is sound.
//!
//! * **Vertex–triangle** (`p` against `a b c`): the coplanarity `f = n · (p − a)` with
//!   `n = (b − a) × (c − a)` (a cubic), and the domain test of the seed's `Γ_PT`: `p` lies in
//!   the triangle when coplanar exactly when the three edge functions
//!   `((b − a) × (p − a)) · n`, `((c − b) × (p − b)) · n`, `((a − c) × (p − c)) · n` are all
//!   `≥ 0` (quartics).
//! * **Edge–edge** (`a b` against `c d`): `f = n · (c − a)` with `n = (b − a) × (d − c)`, and
//!   the domain test of `Γ_EE`: when coplanar, the lines meet at `a + s (b − a) = c + u (d − c)`
//!   with `s |n|² = ((c − a) × (d − c)) · n` and `u |n|² = ((c − a) × (b − a)) · n`, and the edges
//!   meet when both lie in `[0, 1]`: four quartics `s |n|²`, `|n|² − s |n|²`, `u |n|²`,
//!   `|n|² − u |n|²` that must all be `≥ 0`. (Parallel edges make all four vanish: never pruned.)
//!
//! A contact at `t` puts the contact point in both features, so their boxes overlap, and makes
//! `f(t) = 0` and every domain function `≥ 0`; an interval of time on which the features'
//! boxes are apart, an enclosure of `f` excludes 0, or an enclosure of a domain function is
//! below 0, holds no contact. (The boxes also exclude parallel edges and degenerate triangles
//! far apart, where `f` and the domain functions vanish.)
//!
//! # The root finder
//!
//! Bisection over intervals (the seed's BBOI, Algorithm 1), depth first and earliest half
//! first: an interval that no test excludes is halved until it is no wider than the time
//! tolerance, and its start is reported. Every interval before it was excluded, so the
//! reported time is never after the first contact: **no false negative**, and a **false
//! positive** only when the enclosures cannot exclude an interval of the tolerance's width
//! (a near miss closer than the enclosures' overestimate, or a degenerate triangle or edge).
//! After [`CcdOptions::max_checks`] intervals the earliest one left is reported, which keeps
//! that guarantee.

use super::poly::PolyVec;
use super::rotating::boxes_meet;
use super::{Interval, Poly};

/// Options of the root finder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdOptions {
    /// An interval of time no wider than this that no test excludes is reported as a contact.
    pub time_tolerance: f64,
    /// The most intervals examined by one query.
    pub max_checks: usize,
}

impl Default for CcdOptions {
    fn default() -> Self {
        Self {
            time_tolerance: 1e-9,
            max_checks: 100_000,
        }
    }
}

/// A point moving on a straight line: its position at `t = 0` and at `t = 1`, each coordinate
/// an interval.
pub type LinearPoint = [[Interval; 3]; 2];

/// The earliest time in `[0, 1]` at which the vertex `p` may touch the triangle `a b c` (see
/// the [module docs](self)), or `None` when they never touch.
pub fn vertex_face(
    p: &LinearPoint,
    a: &LinearPoint,
    b: &LinearPoint,
    c: &LinearPoint,
    opts: &CcdOptions,
) -> Option<f64> {
    let [p, a, b, c] = [p, a, b, c].map(|x| PolyVec::linear(x[0], x[1]));
    let boxes = |t: Interval| boxes_meet(&[p.eval(t)], &[a.eval(t), b.eval(t), c.eval(t)]);
    let (ab, bc, ca) = (b - a, c - b, a - c);
    let n = ab.cross(&(c - a));
    let f = n.dot(&(p - a));
    let domain = [
        ab.cross(&(p - a)).dot(&n),
        bc.cross(&(p - b)).dot(&n),
        ca.cross(&(p - c)).dot(&n),
    ];
    earliest_root(&f, &domain, boxes, opts)
}

/// The earliest time in `[0, 1]` at which the edges `a b` and `c d` may touch (see the
/// [module docs](self)), or `None` when they never touch.
pub fn edge_edge(
    a: &LinearPoint,
    b: &LinearPoint,
    c: &LinearPoint,
    d: &LinearPoint,
    opts: &CcdOptions,
) -> Option<f64> {
    let [a, b, c, d] = [a, b, c, d].map(|x| PolyVec::linear(x[0], x[1]));
    let boxes = |t: Interval| boxes_meet(&[a.eval(t), b.eval(t)], &[c.eval(t), d.eval(t)]);
    let (ab, cd, ac) = (b - a, d - c, c - a);
    let n = ab.cross(&cd);
    let f = n.dot(&ac);
    let nn = n.dot(&n);
    let s = ac.cross(&cd).dot(&n);
    let u = ac.cross(&ab).dot(&n);
    let domain = [s, nn - s, u, nn - u];
    earliest_root(&f, &domain, boxes, opts)
}

/// The start of the earliest interval of `[0, 1]`, no wider than the tolerance, that neither
/// `boxes` (false: the features' boxes are apart), `f ≠ 0` nor a domain function `< 0`
/// excludes (see the [module docs](self)).
pub fn earliest_root(
    f: &Poly,
    domain: &[Poly],
    boxes: impl Fn(Interval) -> bool,
    opts: &CcdOptions,
) -> Option<f64> {
    let df = f.derivative();
    let dd: Vec<Poly> = domain.iter().map(Poly::derivative).collect();
    let mut stack = vec![Interval::UNIT];
    let mut checks = 0;
    while let Some(t) = stack.pop() {
        checks += 1;
        if !boxes(t) || !f.eval_with(&df, t).contains_zero() {
            continue;
        }
        if domain
            .iter()
            .zip(&dd)
            .any(|(g, dg)| g.eval_with(dg, t).hi() < 0.0)
        {
            continue;
        }
        let m = t.mid();
        if t.width() <= opts.time_tolerance
            || checks >= opts.max_checks
            || !(t.lo() < m && m < t.hi())
        {
            return Some(t.lo());
        }
        stack.push(Interval::new(m, t.hi()));
        stack.push(Interval::new(t.lo(), m));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn still(x: [f64; 3]) -> LinearPoint {
        let p = x.map(Interval::point);
        [p, p]
    }

    fn moving(x0: [f64; 3], x1: [f64; 3]) -> LinearPoint {
        [x0.map(Interval::point), x1.map(Interval::point)]
    }

    #[test]
    fn a_vertex_through_a_triangle_is_found_at_its_time() {
        let (a, b, c) = (
            still([0.0, 0.0, 0.0]),
            still([1.0, 0.0, 0.0]),
            still([0.0, 1.0, 0.0]),
        );
        let opts = CcdOptions::default();
        // From z = 1 to z = -3: through the plane at t = 0.25, inside the triangle.
        let p = moving([0.2, 0.2, 1.0], [0.2, 0.2, -3.0]);
        let t = vertex_face(&p, &a, &b, &c, &opts).unwrap();
        assert!(t <= 0.25 && t > 0.25 - 2e-9, "{t}");
        // Beside the triangle: no contact.
        let p = moving([0.8, 0.8, 1.0], [0.8, 0.8, -3.0]);
        assert_eq!(vertex_face(&p, &a, &b, &c, &opts), None);
        // Never reaching the plane.
        let p = moving([0.2, 0.2, 1.0], [0.2, 0.2, 0.5]);
        assert_eq!(vertex_face(&p, &a, &b, &c, &opts), None);
    }

    #[test]
    fn crossing_edges_are_found_and_parallel_ones_apart_are_not() {
        let opts = CcdOptions::default();
        let (a, b) = (still([-1.0, 0.0, 0.0]), still([1.0, 0.0, 0.0]));
        // An edge along y falling through the x axis at t = 0.5.
        let c = moving([0.0, -1.0, 1.0], [0.0, -1.0, -1.0]);
        let d = moving([0.0, 1.0, 1.0], [0.0, 1.0, -1.0]);
        let t = edge_edge(&a, &b, &c, &d, &opts).unwrap();
        assert!(t <= 0.5 && t > 0.5 - 2e-9, "{t}");
        // The same edge passing beyond the end of a b.
        let c = moving([3.0, -1.0, 1.0], [3.0, -1.0, -1.0]);
        let d = moving([3.0, 1.0, 1.0], [3.0, 1.0, -1.0]);
        assert_eq!(edge_edge(&a, &b, &c, &d, &opts), None);
    }
}
