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

use super::interval::boxes_meet;
use super::poly::PolyVec;
use super::{Interval, Poly};

/// Options of the root finder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdOptions {
    /// An interval of time no wider than this that no test excludes is reported as a contact.
    pub time_tolerance: f64,
    /// The most intervals examined by one query.
    pub max_checks: usize,
    /// How intervals are narrowed (linear motion; rotating motion always bisects).
    pub root_finder: RootFinder,
}

/// The root finders of the seed: bisection alone, or with the second-order cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RootFinder {
    /// Binary bisection on intervals (the seed's BBOI, Algorithm 1).
    Bisection,
    /// Bisection after the root-domain cut of the second-order inclusion function (the seed's
    /// HRFOI and IRD, Algorithms 2 and 3; see [`root_domain`]).
    #[default]
    Hybrid,
}

impl Default for CcdOptions {
    fn default() -> Self {
        Self {
            time_tolerance: 1e-9,
            max_checks: 100_000,
            root_finder: RootFinder::default(),
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
    if let Some([p, a, b, c]) = unit_scale([p, a, b, c]) {
        return vertex_face(&p, &a, &b, &c, opts);
    }
    if !sweeps_meet(&[p], &[a, b, c]) {
        return None;
    }
    if let Some([p, a, b, c]) = points([p, a, b, c]) {
        if triple_keeps_sign(sides(&b, &a), sides(&c, &a), sides(&p, &a)) {
            return None;
        }
    }
    let [p, a, b, c] = [p, a, b, c].map(|x| PolyVec::linear(x[0], x[1]));
    let boxes = |t: Interval| boxes_meet(&[p.eval(t)], &[a.eval(t), b.eval(t), c.eval(t)]);
    let (ab, bc, ca) = (b - a, c - b, a - c);
    let n = ab.cross(&(c - a));
    let f = n.dot(&(p - a));
    let domain = || {
        vec![
            ab.cross(&(p - a)).dot(&n),
            bc.cross(&(p - b)).dot(&n),
            ca.cross(&(p - c)).dot(&n),
        ]
    };
    earliest_root(&f, domain, boxes, opts)
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
    if let Some([a, b, c, d]) = unit_scale([a, b, c, d]) {
        return edge_edge(&a, &b, &c, &d, opts);
    }
    if !sweeps_meet(&[a, b], &[c, d]) {
        return None;
    }
    if let Some([a, b, c, d]) = points([a, b, c, d]) {
        if triple_keeps_sign(sides(&b, &a), sides(&d, &c), sides(&c, &a)) {
            return None;
        }
    }
    let [a, b, c, d] = [a, b, c, d].map(|x| PolyVec::linear(x[0], x[1]));
    let boxes = |t: Interval| boxes_meet(&[a.eval(t), b.eval(t)], &[c.eval(t), d.eval(t)]);
    let (ab, cd, ac) = (b - a, d - c, c - a);
    let n = ab.cross(&cd);
    let f = n.dot(&ac);
    let domain = || {
        let nn = n.dot(&n);
        let s = ac.cross(&cd).dot(&n);
        let u = ac.cross(&ab).dot(&n);
        vec![s, nn - s, u, nn - u]
    };
    earliest_root(&f, domain, boxes, opts)
}

/// How far from unit size a query's coordinates may be before it is rescaled: the domain
/// functions are quartics of the coordinates, so beyond `2^±128` their enclosures overflow
/// to infinity (or underflow to zero) and can exclude nothing.
const UNSCALED: f64 = 3.402823669209385e38; // 2^128

/// The four moving points times the power of two that brings their largest finite coordinate
/// into `[1, 2)`, when it lies beyond `2^±128` (`None` otherwise, and for a query with no
/// finite nonzero coordinate). A contact time is the same for the scaled points (scaling is a
/// similarity), and the scaling is exact where coordinates stay normal numbers (rounded
/// outwards where they do not), so nothing is lost; queries of ordinary size are untouched.
fn unit_scale(x: [&LinearPoint; 4]) -> Option<[LinearPoint; 4]> {
    let m = x
        .iter()
        .flat_map(|p| p.iter().flatten())
        .flat_map(|c| [c.lo().abs(), c.hi().abs()])
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    if !(m > 0.0) || (1.0 / UNSCALED..=UNSCALED).contains(&m) {
        return None;
    }
    let s = crate::math::power_of_two(-m.log2().floor());
    Some(x.map(|p| p.map(|e| e.map(|c| c.times_power_of_two(s)))))
}

/// The four moving points as floats at `t = 0` and `t = 1`, when every coordinate is a
/// point interval.
fn points(x: [&LinearPoint; 4]) -> Option<[[[f64; 3]; 2]; 4]> {
    let mut out = [[[0.0; 3]; 2]; 4];
    for (o, p) in out.iter_mut().zip(x) {
        for e in 0..2 {
            for k in 0..3 {
                let c = p[e][k];
                if c.lo() != c.hi() {
                    return None;
                }
                o[e][k] = c.lo();
            }
        }
    }
    Some(out)
}

/// `x − y` at `t = 0` and at `t = 1`, rounded.
fn sides(x: &[[f64; 3]; 2], y: &[[f64; 3]; 2]) -> [[f64; 3]; 2] {
    [0, 1].map(|e| [0, 1, 2].map(|k| x[e][k] - y[e][k]))
}

/// Whether the triple product `f(t) = (u(t) × v(t)) · w(t)` of three vectors moving linearly,
/// each given at `t = 0` and `t = 1` as the rounded difference of two floats, provably keeps
/// one sign (never vanishes) on `[0, 1]`: a floating-point filter, much cheaper than the
/// interval polynomials, that settles most queries.
///
/// `f` is a cubic whose Bernstein coefficients on `[0, 1]` are, times 3 for the middle two,
/// `D(0,0,0)`, `D(1,0,0) + D(0,1,0) + D(0,0,1)`, `D(1,1,0) + D(1,0,1) + D(0,1,1)` and
/// `D(1,1,1)`, with `D(i, j, k) = (u_i × v_j) · w_k` (the blossom of a product of linear
/// factors), and `f` lies between the least and the largest of them. Each `D` is a sum of six
/// products of three coordinate differences; computed in floats, each product passes through
/// at most eight roundings (three differences, two products, a difference in the cross
/// product, two sums in the dot product), so the computed `D` is within `γ₈ P` of the exact
/// one, `γ₈ = 8u / (1 − 8u)` with `u = 2⁻⁵³` and `P` the sum of the six products' magnitudes,
/// which is computed from the magnitudes in floats (within a few ulps). The bound used is
/// `2⁻⁴⁸ ΣP`, more than `γ₈ P` plus the two roundings of a sum of three `D`s. That count
/// holds only without underflow (an underflowed product loses its relative precision, and the
/// next product can scale the loss past any bound on `P`), so every nonzero coordinate of
/// `u`, `v` and `w` must lie in `[2⁻³⁰⁰, 2³⁰⁰]`: a product of two is then at least `2⁻⁶⁰⁰`,
/// a difference of two such products zero or at least `2⁻⁶⁵²`, and a product of three at
/// least `2⁻⁹⁵²`, all normal, and none overflows. Outside that range, or with a non-finite
/// value, the filter settles nothing (the interval path decides).
fn triple_keeps_sign(u: [[f64; 3]; 2], v: [[f64; 3]; 2], w: [[f64; 3]; 2]) -> bool {
    let cross = |a: &[f64; 3], b: &[f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let abs_cross = |a: &[f64; 3], b: &[f64; 3]| {
        let (a, b) = (a.map(f64::abs), b.map(f64::abs));
        [
            a[1] * b[2] + a[2] * b[1],
            a[2] * b[0] + a[0] * b[2],
            a[0] * b[1] + a[1] * b[0],
        ]
    };
    const TINY: f64 = 4.909093465297727e-91; // 2^-300
    const HUGE: f64 = 2.037035976334486e90; // 2^300
    let in_range = |x: &f64| *x == 0.0 || (TINY..=HUGE).contains(&x.abs());
    if ![u, v, w]
        .iter()
        .all(|e| e.iter().all(|p| p.iter().all(in_range)))
    {
        return false;
    }
    let dot = |a: &[f64; 3], b: &[f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let abs_dot =
        |a: &[f64; 3], b: &[f64; 3]| a[0] * b[0].abs() + a[1] * b[1].abs() + a[2] * b[2].abs();
    // D(i, j, k) and its P, for the eight corners.
    let mut d = [[0.0; 2]; 8];
    for i in 0..2 {
        for j in 0..2 {
            let (c, m) = (cross(&u[i], &v[j]), abs_cross(&u[i], &v[j]));
            for k in 0..2 {
                d[4 * i + 2 * j + k] = [dot(&c, &w[k]), abs_dot(&m, &w[k])];
            }
        }
    }
    let sum = |idx: &[usize]| {
        idx.iter()
            .fold([0.0, 0.0], |acc, &i| [acc[0] + d[i][0], acc[1] + d[i][1]])
    };
    let beta = [sum(&[0]), sum(&[4, 2, 1]), sum(&[6, 5, 3]), sum(&[7])];
    const ERR: f64 = 3.552713678800501e-15; // 2^-48
    let mut sign = 0.0;
    for [value, magnitude] in beta {
        if !(value.is_finite() && magnitude.is_finite()) {
            return false;
        }
        let err = ERR * magnitude;
        let s = if value > err {
            1.0
        } else if value < -err {
            -1.0
        } else {
            return false;
        };
        if sign != 0.0 && s != sign {
            return false;
        }
        sign = s;
    }
    true
}

/// Whether the boxes swept over `[0, 1]` by the points of `a` and of `b` meet: each is the
/// box of the point's ends (a straight path lies in it), so exact.
fn sweeps_meet(a: &[&LinearPoint], b: &[&LinearPoint]) -> bool {
    let hull = |pts: &[&LinearPoint], k: usize| {
        pts.iter()
            .map(|p| p[0][k].hull(p[1][k]))
            .reduce(Interval::hull)
            .unwrap_or(Interval::ZERO)
    };
    (0..3).all(|k| hull(a, k).intersect(hull(b, k)).is_some())
}

/// The start of the earliest interval of `[0, 1]`, no wider than the tolerance, that neither
/// `boxes` (false: the features' boxes are apart), `f ≠ 0` nor a domain function `< 0`
/// excludes (see the [module docs](self)). The domain functions are built by `domain` when
/// an interval first gets that far.
pub fn earliest_root(
    f: &Poly,
    domain: impl FnOnce() -> Vec<Poly>,
    boxes: impl Fn(Interval) -> bool,
    opts: &CcdOptions,
) -> Option<f64> {
    // Over the whole of [0, 1], the Bernstein coefficients are the tightest cheap test: most
    // queries end here.
    if !f.unit_sign_range().contains_zero() {
        return None;
    }
    let gs = domain();
    if gs.iter().any(|g| g.unit_sign_range().hi() < 0.0) {
        return None;
    }
    let df = f.derivative();
    let ddf = df.derivative();
    let mut domain = Some(|| gs);
    let mut dom: Vec<(Poly, Poly, Poly)> = Vec::new();
    let hybrid = opts.root_finder == RootFinder::Hybrid;
    let search = Search {
        span: Interval::UNIT,
        from: 0.0,
        horizon: 1.0,
        tolerance: opts.time_tolerance,
        lead: 0.0,
        max_checks: opts.max_checks,
        pin_start: true,
    };
    search
        .run(|t| {
            if !boxes(t) || !f.eval_with(&df, t).contains_zero() {
                return Cut::NoRoot;
            }
            if let Some(build) = domain.take() {
                dom = build()
                    .into_iter()
                    .map(|g| {
                        let dg = g.derivative();
                        let ddg = dg.derivative();
                        (g, dg, ddg)
                    })
                    .collect();
            }
            if dom.iter().any(|(g, dg, _)| g.eval_with(dg, t).hi() < 0.0) {
                return Cut::NoRoot;
            }
            if !hybrid {
                return Cut::Whole;
            }
            // Where a domain function is still negative, the vertex (or the edges' meeting
            // point) is outside: the stretch from the start that its parabola proves
            // negative is dropped too, which pins a contact that begins when the features
            // slide into each other as fast as the cut of f pins a crossing.
            let at = Interval::point(t.lo());
            let skip = dom
                .iter()
                .filter_map(|(g, dg, ddg)| {
                    negative_until(g.horner(at), dg.horner(at), ddg.horner(t) * 0.5, t)
                })
                .fold(t.lo(), f64::max);
            skip_to(root_domain(f, &df, &ddf, t), skip, t)
        })
        .time
}

/// A search for the earliest contact by bisection over intervals of time (the seed's BBOI,
/// and with a test that cuts, its HRFOI): the one loop of the linear and the rotating tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Search {
    /// The interval searched.
    pub span: Interval,
    /// Intervals ending before this are skipped (the features cannot touch then).
    pub from: f64,
    /// A contact starting after this is not reported (a caller's earlier contact).
    pub horizon: f64,
    /// An interval no wider than this that the test keeps is reported by its start.
    pub tolerance: f64,
    /// The most intervals tested; then the earliest one left is reported.
    pub max_checks: usize,
    /// How much before the start of the final interval the time is reported (not before the
    /// span's start): still never after the first contact, and no more than `lead` plus the
    /// final interval's width before it.
    pub lead: f64,
    /// Whether the start of an interval about to be halved is tested alone first (see
    /// [`Search::run`]).
    pub pin_start: bool,
}

/// What a [`Search`] found: the time (`None`: no contact, or none by the horizon) and how
/// many intervals it tested.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Found {
    pub time: Option<f64>,
    pub checks: usize,
}

impl Search {
    /// The time reported for a final interval starting at `lo` (non-decreasing in `lo`).
    fn report(&self, lo: f64) -> f64 {
        if self.lead > 0.0 {
            (lo - self.lead).max(self.span.lo())
        } else {
            lo
        }
    }
    /// Depth first, earliest interval first: an interval the test excludes (only its part
    /// from [`Search::from`] on is tested) is dropped; one it
    /// cuts is replaced by its pieces, the first one tested again when the cut took at least
    /// half the interval (a Newton-like step: near a simple root each cut leaves an interval
    /// about the square of the last one's width), else halved; one it keeps whole is halved.
    /// The stack holds disjoint intervals, earliest on top, and every interval before the
    /// one on top was excluded, so the reported start is never after the first contact.
    pub(crate) fn run(&self, mut test: impl FnMut(Interval) -> Cut) -> Found {
        let mut checks = 0;
        let none = |checks| Found { time: None, checks };
        let (lo, hi) = (self.span.lo(), self.span.hi());
        if !(lo.is_finite() && hi.is_finite()) {
            return none(checks);
        }
        // The search starts at the intervals of the halving that cover `[from, horizon]`
        // (while `from` is after the span's start): the ones before `from` would be dropped,
        // and testing the wide ones that straddle it keeps nearly all of them anyway. Down
        // the path to `from`, each later half waits on the stack; the descent stops at half
        // the width of `[from, horizon]`.
        let mut stack = Vec::new();
        let mut t = self.span;
        let target = (0.5 * (self.horizon.min(hi) - self.from)).max(self.tolerance);
        while t.lo() < self.from && t.width() > target {
            let m = t.mid();
            if !(t.lo() < m && m < t.hi()) {
                break;
            }
            if m < self.from {
                t = Interval::new(m, t.hi());
            } else {
                stack.push(Interval::new(m, t.hi()));
                t = Interval::new(t.lo(), m);
            }
        }
        stack.push(t);
        let mut pinned = f64::NAN;
        while let Some(mut t) = stack.pop() {
            if self.report(t.lo()) > self.horizon {
                // Every interval left starts later still.
                return none(checks);
            }
            if t.hi() < self.from {
                continue;
            }
            checks += 1;
            // Only the part from `from` on can hold a contact.
            let probe = if t.lo() < self.from {
                Interval::new(self.from, t.hi())
            } else {
                t
            };
            match test(probe) {
                Cut::NoRoot => continue,
                Cut::Whole => {}
                Cut::Pieces(first, later) => {
                    // The later piece waits; the first goes on, tested again if it shrank a
                    // lot, else halved.
                    if let Some(l) = later {
                        stack.push(l);
                    }
                    if first.width() <= 0.5 * t.width() && checks < self.max_checks {
                        stack.push(first);
                        continue;
                    }
                    t = first;
                }
            }
            // Before halving, the first stretch of the tolerance's width: kept, its start is
            // the time (the one halving would reach when every first half is kept), which
            // spares halving down to the tolerance when a cut has pinned the start on a contact
            // whose tests cannot shrink the interval (the vertex reaches the triangle's edge
            // or corner as it crosses the plane); excluded, it is dropped. Once per start.
            let start = t.lo().max(self.from);
            let stretch = start + self.tolerance;
            if self.pin_start && stretch < t.hi() && start != pinned {
                checks += 1;
                if test(Interval::new(start, stretch)) != Cut::NoRoot {
                    let time = Some(self.report(start)).filter(|&r| r <= self.horizon);
                    return Found { time, checks };
                }
                t = Interval::new(stretch, t.hi());
                pinned = t.lo();
            }
            let m = t.mid();
            if t.width() <= self.tolerance
                || checks >= self.max_checks
                || !(t.lo() < m && m < t.hi())
            {
                let time = Some(self.report(t.lo())).filter(|&r| r <= self.horizon);
                return Found { time, checks };
            }
            stack.push(Interval::new(m, t.hi()));
            stack.push(Interval::new(t.lo(), m));
        }
        none(checks)
    }
}

/// What the second-order inclusion function says of an interval of time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cut {
    /// Nothing can be cut.
    Whole,
    /// `f` has no root in the interval.
    NoRoot,
    /// Every root lies in the first piece or (when there is one) the later one.
    Pieces(Interval, Option<Interval>),
}

/// The smallest `x > 0` with `c + b x + a x² = 0` for `c > 0`, `None` when there is none (the
/// stable quadratic formula; a candidate, checked by the caller).
fn first_positive_root(c: f64, b: f64, a: f64) -> Option<f64> {
    if a == 0.0 {
        return (b < 0.0).then(|| c / -b);
    }
    let disc = b * b - 4.0 * a * c;
    if !(disc >= 0.0) {
        return None;
    }
    let q = -0.5 * (b + b.signum() * disc.sqrt());
    let roots = [q / a, c / q];
    roots
        .into_iter()
        .filter(|r| *r > 0.0 && r.is_finite())
        .reduce(f64::min)
}

/// The two roots `r₁ <= r₂` of `c + b x + a x²` (`None` without real roots or for `a = 0`).
fn both_roots(c: f64, b: f64, a: f64) -> Option<(f64, f64)> {
    if a == 0.0 {
        return None;
    }
    let disc = b * b - 4.0 * a * c;
    if !(disc >= 0.0) {
        return None;
    }
    let q = -0.5 * (b + b.signum() * disc.sqrt());
    let (x, y) = (q / a, c / q);
    (x.is_finite() && y.is_finite()).then(|| (x.min(y), x.max(y)))
}

/// An enclosure of `c + b x + a x²` at the point `x` (sound, whatever the rounding).
fn quad_at(c: f64, b: f64, a: f64, x: f64) -> Interval {
    let x = Interval::point(x);
    Interval::point(c) + (Interval::point(b) + Interval::point(a) * x) * x
}

/// Whether `c + b x + a x² > 0` (`sign = 1`) or `< 0` (`sign = -1`) on all of `[x0, x1]`:
/// at both ends, and at the vertex when it lies between and is the extremum on the wrong
/// side, each by an interval evaluation.
fn quad_keeps_sign(c: f64, b: f64, a: f64, x0: f64, x1: f64, sign: f64) -> bool {
    let ok = |x: f64| {
        let v = quad_at(c, b, a, x);
        if sign > 0.0 {
            v.lo() > 0.0
        } else {
            v.hi() < 0.0
        }
    };
    if !(x0 <= x1 && ok(x0) && ok(x1)) {
        return false;
    }
    // The parabola's extremum lies inside and points towards zero when a has the sign.
    if a * sign > 0.0 {
        let v = -b / (2.0 * a);
        if v > x0 && v < x1 && !ok(v) {
            return false;
        }
    }
    true
}

/// The end of the stretch from the start `t₀` of `t` on which a function `g` is provably
/// negative, from the enclosures `g ∋ g(t₀)`, `gp ∋ g'(t₀)` and `a ∋ g''(s) / 2` for every `s`
/// of `t`: `−g(t₀ + x) >= −g.hi − gp.hi x − a.hi x²` for `x >= 0`, positive from 0 to the first
/// root of that parabola (checked by interval evaluations, as in [`taylor_cut`]). `None` when
/// `g(t₀)` may be `>= 0`; the end of `t` when `g < 0` on all of it.
pub(crate) fn negative_until(g: Interval, gp: Interval, a: Interval, t: Interval) -> Option<f64> {
    if !(g.hi() < 0.0) {
        return None;
    }
    let t0 = t.lo();
    let w = (t.hi() - t0).next_up();
    if !(w.is_finite() && w > 0.0) {
        return None;
    }
    let (c0, b0, a0) = (-g.hi(), -gp.hi(), -a.hi());
    match first_positive_root(c0, b0, a0) {
        Some(l) if l < w => {
            let l = l * (1.0 - 1e-9);
            quad_keeps_sign(c0, b0, a0, 0.0, l, 1.0).then(|| (t0 + l).next_down().max(t0))
        }
        _ => quad_keeps_sign(c0, b0, a0, 0.0, w, 1.0).then_some(t.hi()),
    }
}

/// `cut` of `t` with the stretch before `skip` dropped as well.
pub(crate) fn skip_to(cut: Cut, skip: f64, t: Interval) -> Cut {
    if skip <= t.lo() {
        return cut;
    }
    let after = |i: Interval| (skip < i.hi()).then(|| Interval::new(i.lo().max(skip), i.hi()));
    match cut {
        Cut::NoRoot => Cut::NoRoot,
        Cut::Whole => after(t).map_or(Cut::NoRoot, |i| Cut::Pieces(i, None)),
        Cut::Pieces(first, later) => match (after(first), later.and_then(after)) {
            (Some(f), l) => Cut::Pieces(f, l),
            (None, Some(l)) => Cut::Pieces(l, None),
            (None, None) => Cut::NoRoot,
        },
    }
}

/// The seed's root-domain cut (IRD) on the second-order inclusion function of `f` about the
/// start `t₀` of `t`: for `x = s − t₀ ∈ [0, w]`, `f(s) = f(t₀) + f'(t₀) x + f''(ξ) x² / 2`
/// for some `ξ ∈ t`, so `f` lies between the parabolas `L(x) = g₀ + g'₀ x + a₀ x²` and
/// `U(x) = g₁ + g'₁ x + a₁ x²` built from the bounds of the enclosures `g = f(t₀)`, `g' =
/// f'(t₀)` and `a = f''(t) / 2` (`x >= 0` makes these pointwise bounds). When `g > 0`, no root
/// of `f` lies before the first root `l` of `L`, nor where `U < 0` (between its roots); for
/// `g < 0` the same with `−f`. The candidate cuts are computed in floats and each is kept only
/// when interval evaluations of the parabola at its ends (and vertex) prove its sign there, so
/// the cut is sound whatever the rounding. Unlike the seed's IRD, the part after `U`'s
/// negative stretch is kept (a first root of `f` that fails the domain test must not hide a
/// later one).
pub fn root_domain(f: &Poly, df: &Poly, ddf: &Poly, t: Interval) -> Cut {
    let at = Interval::point(t.lo());
    taylor_cut(f.horner(at), df.horner(at), ddf.horner(t) * 0.5, t)
}

/// [`root_domain`] on the enclosures `g ∋ f(t₀)`, `gp ∋ f'(t₀)` (at the start `t₀` of `t`)
/// and `a ∋ f''(s) / 2` for every `s` of `t`, of any twice differentiable `f`.
pub(crate) fn taylor_cut(g: Interval, gp: Interval, a: Interval, t: Interval) -> Cut {
    let t0 = t.lo();
    let w = (t.hi() - t0).next_up();
    let (g, gp, a) = if g.lo() > 0.0 {
        (g, gp, a)
    } else if g.hi() < 0.0 {
        (-g, -gp, -a)
    } else {
        return Cut::Whole;
    };
    if !(w.is_finite() && w > 0.0) {
        return Cut::Whole;
    }
    // L > 0 from 0 to l (shrunk a hair so that the check can pass).
    let (c0, b0, a0) = (g.lo(), gp.lo(), a.lo());
    let start = match first_positive_root(c0, b0, a0) {
        None => {
            return if quad_keeps_sign(c0, b0, a0, 0.0, w, 1.0) {
                Cut::NoRoot
            } else {
                Cut::Whole
            };
        }
        Some(l) if l >= w => {
            return if quad_keeps_sign(c0, b0, a0, 0.0, w, 1.0) {
                Cut::NoRoot
            } else {
                Cut::Whole
            };
        }
        Some(l) => {
            let l = l * (1.0 - 1e-9);
            if quad_keeps_sign(c0, b0, a0, 0.0, l, 1.0) {
                // s0 <= t0 + l: the sum rounded down.
                (t0 + l).next_down().max(t0)
            } else {
                t0
            }
        }
    };
    // U < 0 between its roots r1 < r2 (or after r1 for a concave or straight U).
    let (c1, b1, a1) = (g.hi(), gp.hi(), a.hi());
    let negative = if a1 > 0.0 {
        both_roots(c1, b1, a1)
    } else {
        first_positive_root(c1, b1, a1).map(|r1| (r1, f64::INFINITY))
    };
    let mut later = None;
    let mut end = t.hi();
    if let Some((r1, r2)) = negative {
        let (x1, x2) = (r1 * (1.0 + 1e-9), (r2 * (1.0 - 1e-9)).min(w));
        if x1 > 0.0 && x1 < x2 && quad_keeps_sign(c1, b1, a1, x1, x2, -1.0) {
            // The first piece ends at or after t0 + x1, the later starts at or before t0 + x2.
            end = (t0 + x1).next_up().min(t.hi());
            let resume = (t0 + x2).next_down();
            if resume < t.hi() && x2 < w {
                later = Some(Interval::new(resume.max(end), t.hi()));
            }
        }
    }
    if start >= end {
        return match later {
            Some(l) => Cut::Pieces(l, None),
            None => Cut::NoRoot,
        };
    }
    Cut::Pieces(Interval::new(start, end), later)
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

    /// A query scaled by any power of ten from 1e-307 to 1e308 gives the answer of the unit
    /// query: a vertex through a triangle at t = 0.5, two edges that stay apart.
    #[test]
    fn queries_of_any_size_give_the_unit_answers() {
        let opts = CcdOptions::default();
        for e in (-300..=300).step_by(10).chain([-307, 305, 308]) {
            let k = 10f64.powi(e);
            let s = |x: [f64; 3]| x.map(|v| v * k);
            let p = moving(s([0.2, 0.2, 1.0]), s([0.2, 0.2, -1.0]));
            let [a, b, c] =
                [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]].map(|x| still(s(x)));
            let t = vertex_face(&p, &a, &b, &c, &opts).expect("a contact at 0.5");
            assert!((0.5 - 1e-8..=0.5).contains(&t), "scale 1e{e}: {t}");
            assert_eq!(edge_edge(&p, &a, &b, &c, &opts), None, "scale 1e{e}");
        }
    }

    /// The cut never removes a root: random cubics with known roots.
    #[test]
    fn the_root_domain_cut_keeps_every_root() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(4);
        for _ in 0..20_000 {
            let roots: Vec<f64> = (0..3).map(|_| rng.gen_range(-0.5..1.5)).collect();
            let scale: f64 = rng.gen_range(-5.0..5.0);
            let lin = |r: f64| Poly::linear(Interval::point(-r), Interval::point(1.0));
            let f = lin(roots[0]) * lin(roots[1]) * lin(roots[2]) * Interval::point(scale);
            let (df, ddf) = (f.derivative(), f.derivative().derivative());
            let a: f64 = rng.gen_range(0.0..1.0);
            let t = Interval::new(a, (a + rng.gen_range(0.0..0.5)).min(1.0));
            let inside: Vec<f64> = roots.iter().copied().filter(|r| t.contains(*r)).collect();
            match root_domain(&f, &df, &ddf, t) {
                Cut::Whole => {}
                Cut::NoRoot => assert!(inside.is_empty(), "{roots:?} in {t:?}"),
                Cut::Pieces(p, q) => {
                    for r in inside {
                        assert!(
                            p.contains(r) || q.is_some_and(|q| q.contains(r)),
                            "root {r} of {roots:?} cut from {t:?}: {p:?} {q:?}"
                        );
                    }
                }
            }
        }
    }

    /// The float filter never claims a sign that the exact triple product lacks: on exactly
    /// coplanar motions (the product vanishes throughout, while the rounded one does not),
    /// and on random ones whose product takes both signs (by interval evaluations at sampled
    /// times), it settles nothing; and it settles a good share of random ones that keep a sign
    /// (about half: the Bernstein hull cannot prove every sign).
    #[test]
    fn the_float_filter_never_claims_a_false_sign() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(17);
        // 26-bit dyadic coordinates: x + y is exact, products of three are not.
        let dyadic = |rng: &mut rand_pcg::Pcg64| {
            let m: i64 = rng.gen_range(-(1 << 26)..(1 << 26));
            m as f64 * 2f64.powi(rng.gen_range(-30..-20))
        };
        for _ in 0..20_000 {
            // Four points on the plane z = x + y, moving in it.
            let pts: Vec<[[f64; 3]; 2]> = (0..4)
                .map(|_| {
                    [0, 1].map(|_| {
                        let (x, y) = (dyadic(&mut rng), dyadic(&mut rng));
                        [x, y, x + y]
                    })
                })
                .collect();
            let (u, v, w) = (
                sides(&pts[1], &pts[0]),
                sides(&pts[2], &pts[0]),
                sides(&pts[3], &pts[0]),
            );
            assert!(!triple_keeps_sign(u, v, w), "{pts:?}");
        }
        // A product that underflows loses its relative precision: a vertex that meets the
        // middle of an edge at t = 1/3 (exactly), where the rounded product of the tiny and
        // the huge coordinates would make every Bernstein coefficient positive.
        let p2 = |x: i32| 2f64.powi(x);
        let a = [[0.0, 0.0, 0.0]; 2];
        let b = [[0.75, 0.0, p2(280)]; 2];
        let c = [[0.0, f64::from_bits(1), p2(280)]; 2];
        let p = [[0.4375, 0.0, p2(279)], [0.25, 0.0, p2(279)]];
        assert!(!triple_keeps_sign(
            sides(&b, &a),
            sides(&c, &a),
            sides(&p, &a)
        ));
        let lin = |x: [[f64; 3]; 2]| x.map(|e| e.map(Interval::point));
        let t = vertex_face(&lin(p), &lin(a), &lin(b), &lin(c), &CcdOptions::default());
        assert!(t.is_some_and(|t| t <= 1.0 / 3.0), "{t:?}");
        let (mut settled, mut one_signed) = (0, 0);
        for _ in 0..20_000 {
            let scale = 2f64.powi(rng.gen_range(-20..20));
            let pts: Vec<[[f64; 3]; 2]> = (0..4)
                .map(|_| [0, 1].map(|_| [0, 1, 2].map(|_| rng.gen_range(-1.0..1.0) * scale)))
                .collect();
            let lin: Vec<LinearPoint> = pts
                .iter()
                .map(|p| p.map(|x| x.map(Interval::point)))
                .collect();
            let [a, b, c, d] = [0, 1, 2, 3].map(|i| PolyVec::linear(lin[i][0], lin[i][1]));
            let f = (b - a).cross(&(c - a)).dot(&(d - a));
            let signs: Vec<f64> = (0..=64)
                .map(|k| f.horner(Interval::point(k as f64 / 64.0)))
                .map(|y| {
                    if y.lo() > 0.0 {
                        1.0
                    } else if y.hi() < 0.0 {
                        -1.0
                    } else {
                        0.0
                    }
                })
                .collect();
            let both = signs.contains(&1.0) && signs.contains(&-1.0);
            let keeps = triple_keeps_sign(
                sides(&pts[1], &pts[0]),
                sides(&pts[2], &pts[0]),
                sides(&pts[3], &pts[0]),
            );
            assert!(!(both && keeps), "{pts:?}");
            if !both && !signs.contains(&0.0) {
                one_signed += 1;
                settled += usize::from(keeps);
            }
        }
        assert!(settled * 3 > one_signed, "{settled} of {one_signed}");
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
