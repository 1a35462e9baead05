//! The spheres of the sphere trees: [`Sphere`], the enclosing sphere of a node's points
//! ([`enclosing_sphere`], by Gärtner's pivoting over a small support set, Welzl's algorithm,
//! the closed-form spheres of two, three and four points; the per-vertex stamp a node lists
//! its distinct vertices with), and the test of two moving spheres over a time domain
//! (`spheres_may_meet`, and the window within which they may meet).

use super::rotating::MovingPoint;
use super::Interval;

pub(super) type P = [f64; 3];

/// The most pieces a time domain is cut into by the sphere–sphere test of Capoeira's leaves
/// and of the polylines' features (a node pair's window is cut finer, see
/// [`mesh_contact`](super::tree::mesh_contact)'s traversal).
pub const SPHERE_PIECES: u32 = 16;

pub(super) fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub(super) fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub(super) fn dist(a: P, b: P) -> f64 {
    dot(sub(a, b), sub(a, b)).sqrt()
}
pub(super) fn mid(a: P, b: P) -> P {
    [0, 1, 2].map(|i| 0.5 * (a[i] + b[i]))
}

/// A sphere (centre, radius).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// The centre.
    pub centre: P,
    /// The radius.
    pub radius: f64,
}

impl Sphere {
    fn holds(&self, p: P) -> bool {
        dist(self.centre, p) <= self.radius * (1.0 + 1e-12) + 1e-300
    }
}

/// The sphere through 2, 3 or 4 boundary points with the others inside, the smallest of the
/// candidates (pairs' diametral spheres, triples' circumscribed circles, the four's
/// circumsphere) that holds all of `pts`: the base cases of Welzl's algorithm, robust to
/// degenerate (collinear, coplanar) boundaries.
fn small_sphere(pts: &[P]) -> Sphere {
    let diametral = |a: P, b: P| Sphere {
        centre: mid(a, b),
        radius: 0.5 * dist(a, b),
    };
    match *pts {
        // Two points: their diametral sphere.
        [a, b] => return diametral(a, b),
        // Three: the longest side's diametral sphere when it holds the third point (a right
        // or obtuse triangle), else the circumscribed circle's sphere.
        [a, b, c] => {
            let d2 = |x: P, y: P| dot(sub(x, y), sub(x, y));
            let (ab, bc, ca) = (d2(a, b), d2(b, c), d2(c, a));
            let (p, q, r) = if ab >= bc && ab >= ca {
                (a, b, c)
            } else if bc >= ca {
                (b, c, a)
            } else {
                (c, a, b)
            };
            let s = diametral(p, q);
            if s.holds(r) {
                return s;
            }
            if let Some(s) = circle(a, b, c) {
                if s.radius.is_finite() && pts.iter().all(|&p| s.holds(p)) {
                    return s;
                }
            }
        }
        _ => {}
    }
    let mut best: Option<Sphere> = None;
    let mut offer = |s: Sphere| {
        if s.radius.is_finite()
            && pts.iter().all(|&p| s.holds(p))
            && best.is_none_or(|b| s.radius < b.radius)
        {
            best = Some(s);
        }
    };
    let n = pts.len();
    if n == 1 {
        offer(Sphere {
            centre: pts[0],
            radius: 0.0,
        });
    }
    for i in 0..n {
        for j in i + 1..n {
            offer(Sphere {
                centre: mid(pts[i], pts[j]),
                radius: 0.5 * dist(pts[i], pts[j]),
            });
            for k in j + 1..n {
                if let Some(s) = circle(pts[i], pts[j], pts[k]) {
                    offer(s);
                }
                for l in k + 1..n {
                    if let Some(s) = circumsphere(pts[i], pts[j], pts[k], pts[l]) {
                        offer(s);
                    }
                }
            }
        }
    }
    // All candidates degenerate: a sphere about the mean that holds every point.
    best.unwrap_or_else(|| {
        let c = pts
            .iter()
            .fold([0.0; 3], |s, p| [0, 1, 2].map(|i| s[i] + p[i] / n as f64));
        let r = pts.iter().map(|&p| dist(c, p)).fold(0.0, f64::max);
        Sphere {
            centre: c,
            radius: r,
        }
    })
}

/// The sphere whose great circle passes through `a`, `b`, `c` (`None` when collinear).
fn circle(a: P, b: P, c: P) -> Option<Sphere> {
    let (u, v) = (sub(b, a), sub(c, a));
    let w = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let ww = dot(w, w);
    if !(ww > 1e-30 * dot(u, u) * dot(v, v)) {
        return None;
    }
    // centre = a + (|u|² (v × w) + |v|² (w × u)) / (2 |w|²)
    let cross = |x: P, y: P| {
        [
            x[1] * y[2] - x[2] * y[1],
            x[2] * y[0] - x[0] * y[2],
            x[0] * y[1] - x[1] * y[0],
        ]
    };
    let (vw, wu) = (cross(v, w), cross(w, u));
    let (uu, vv) = (dot(u, u), dot(v, v));
    let off = [0, 1, 2].map(|i| (uu * vw[i] + vv * wu[i]) / (2.0 * ww));
    let centre = [0, 1, 2].map(|i| a[i] + off[i]);
    Some(Sphere {
        centre,
        radius: dot(off, off).sqrt(),
    })
}

/// The sphere through four points (`None` when coplanar).
fn circumsphere(a: P, b: P, c: P, d: P) -> Option<Sphere> {
    let (u, v, w) = (sub(b, a), sub(c, a), sub(d, a));
    let det = u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
        + u[2] * (v[0] * w[1] - v[1] * w[0]);
    let scale = dot(u, u).sqrt() * dot(v, v).sqrt() * dot(w, w).sqrt();
    if !(det.abs() > 1e-12 * scale) {
        return None;
    }
    // Solve [u; v; w] x = (|u|², |v|², |w|²) / 2 by Cramer's rule.
    let r = [dot(u, u) / 2.0, dot(v, v) / 2.0, dot(w, w) / 2.0];
    let rows = [u, v, w];
    let det3 = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let x = [0, 1, 2].map(|col| {
        let mut m = rows;
        for (k, row) in m.iter_mut().enumerate() {
            row[col] = r[k];
        }
        det3(m) / det
    });
    Some(Sphere {
        centre: [0, 1, 2].map(|i| a[i] + x[i]),
        radius: dot(x, x).sqrt(),
    })
}

/// The minimal enclosing sphere of `points`, its radius then grown to the farthest point's
/// distance from the centre as computed, so that it holds every point whatever the rounding.
///
/// Gärtner's pivoting: the minimal sphere of a small support set (at most a few points, by
/// `welzl`) is taken, the point farthest outside it is added to the set, the set is cut
/// back to the points on the new sphere, until no point lies outside. Each round is one
/// pass over the points and the radius grows at every round, so a few rounds do; should
/// round-off keep it going, Welzl's algorithm over every point decides.
pub fn enclosing_sphere(points: &[P]) -> Sphere {
    if points.len() <= 4 {
        // A leaf's triangle (or two triangles' four corners): the base case itself.
        return grown(small_sphere(points), points);
    }
    const ROUNDS: usize = 64;
    let mut support: Vec<P> = vec![points[0]];
    let mut s = small_sphere(&support);
    for _ in 0..ROUNDS {
        let mut far: Option<(f64, P)> = None;
        for &p in points {
            if !s.holds(p) {
                let d = sub(p, s.centre);
                let d2 = dot(d, d);
                if far.is_none_or(|(f, _)| d2 > f) {
                    far = Some((d2, p));
                }
            }
        }
        let Some((_, p)) = far else {
            return grown(s, points);
        };
        support.push(p);
        s = welzl(support.clone());
        // The points on the new sphere carry it; the others are dropped.
        let on = |q: &P| dist(s.centre, *q) >= s.radius * (1.0 - 1e-9);
        let kept: Vec<P> = support.iter().copied().filter(on).collect();
        if !kept.is_empty() && kept.len() < support.len() {
            support = kept;
        }
    }
    grown(welzl(points.to_vec()), points)
}

/// The minimal enclosing sphere of `pts` by Welzl's algorithm (iterative, in a fixed
/// pseudo-random order so the result is deterministic; expected linear time).
fn welzl(mut pts: Vec<P>) -> Sphere {
    // A fixed shuffle (Fisher–Yates with a small LCG).
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..pts.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = (state >> 33) as usize % (i + 1);
        pts.swap(i, j);
    }
    if pts.is_empty() {
        return Sphere {
            centre: [0.0; 3],
            radius: 0.0,
        };
    }
    let mut s = small_sphere(&pts[..1]);
    for i in 1..pts.len() {
        if s.holds(pts[i]) {
            continue;
        }
        s = small_sphere(&[pts[i]]);
        for j in 0..i {
            if s.holds(pts[j]) {
                continue;
            }
            s = small_sphere(&[pts[i], pts[j]]);
            for k in 0..j {
                if s.holds(pts[k]) {
                    continue;
                }
                s = small_sphere(&[pts[i], pts[j], pts[k]]);
                for l in 0..k {
                    if !s.holds(pts[l]) {
                        s = small_sphere(&[pts[i], pts[j], pts[k], pts[l]]);
                    }
                }
            }
        }
    }
    s
}

/// `s` with its radius grown to the farthest of `pts` from its centre as computed, so that
/// it holds every point whatever the rounding.
fn grown(s: Sphere, pts: &[P]) -> Sphere {
    let r = pts.iter().map(|&p| dist(s.centre, p)).fold(0.0, f64::max);
    Sphere {
        centre: s.centre,
        radius: r * (1.0 + 4.0 * f64::EPSILON),
    }
}

/// Which vertices a node has already listed: a stamp per vertex, the node's number when
/// listed, so that no node clears it.
pub(super) struct Seen {
    stamps: Vec<u32>,
    now: u32,
}

impl Seen {
    pub(super) fn new(vertices: usize) -> Self {
        Self {
            stamps: vec![0; vertices],
            now: 0,
        }
    }

    /// Starts a new node.
    pub(super) fn next(&mut self) {
        self.now = self.now.wrapping_add(1);
        if self.now == 0 {
            self.stamps.fill(0);
            self.now = 1;
        }
    }

    /// Whether vertex `v` is listed for the first time by this node.
    pub(super) fn first_visit(&mut self, v: u32) -> bool {
        let stamp = &mut self.stamps[v as usize];
        let first = *stamp != self.now;
        *stamp = self.now;
        first
    }
}

/// Whether the boxes of the centres of spheres `a` and `b` over `t` are farther apart than
/// the sum of their radii (the gap rounded down before the comparison).
pub(super) fn spheres_apart(
    a: &MovingPoint,
    ra: f64,
    b: &MovingPoint,
    rb: f64,
    t: Interval,
) -> bool {
    boxes_apart(&a.enclose(t), ra, &b.enclose(t), rb)
}

/// Whether boxes `ba` and `bb` are farther apart than `ra + rb` (the gap rounded down before
/// the comparison).
fn boxes_apart(ba: &[Interval; 3], ra: f64, bb: &[Interval; 3], rb: f64) -> bool {
    let gap2: f64 = (0..3)
        .map(|i| {
            let g = (ba[i].lo() - bb[i].hi())
                .max(bb[i].lo() - ba[i].hi())
                .max(0.0);
            g * g
        })
        .sum();
    gap2.sqrt() * (1.0 - 4.0 * f64::EPSILON) > ra + rb
}

/// Whether spheres `a` (moving by `ma`) and `b` (by `mb`) may meet at some time of `t`: each
/// centre's box over a piece of `t` (the domain cut in up to [`SPHERE_PIECES`] pieces as long
/// as a piece is not excluded) must come within the sum of the radii (the seed's TSP).
pub(crate) fn spheres_may_meet(
    a: &MovingPoint,
    ra: f64,
    b: &MovingPoint,
    rb: f64,
    t: Interval,
) -> bool {
    let apart = |t: Interval| spheres_apart(a, ra, b, rb, t);
    if apart(t) {
        return false;
    }
    let mut pieces = 2;
    while pieces <= SPHERE_PIECES {
        let w = (t.hi() - t.lo()) / pieces as f64;
        let all_apart = (0..pieces).all(|k| {
            let lo = t.lo() + w * k as f64;
            let hi = if k + 1 == pieces {
                t.hi()
            } else {
                t.lo() + w * (k + 1) as f64
            };
            apart(Interval::new(lo, hi.max(lo)))
        });
        if all_apart {
            return false;
        }
        pieces *= 2;
    }
    true
}

/// The deepest halving of a node pair's window by [`sphere_window`].
const WINDOW_DEPTH: u32 = 24;

/// The most sphere tests [`sphere_window`] spends on each end of a window.
const WINDOW_TESTS: u32 = 64;

/// Where, within `t`, spheres `a` and `b` may meet (`None` when nowhere): from the start of the
/// earliest to the end of the latest piece of `t` over which their centres' boxes are not
/// apart. The pieces come from halving `t`, earliest half first for the start (latest first
/// for the end), until the boxes over a piece are small beside the spheres (their widths add
/// up to at most an eighth of the sum of the radii), at most [`WINDOW_DEPTH`] halvings deep and
/// [`WINDOW_TESTS`] tests per end. Every stretch cut off was proven apart, so the window holds
/// every time the spheres may meet, and it depends on the pair and `t` alone. Cutting to the
/// spheres' own scale matters for the pairs that stay close for long (a sphere grazing a
/// torus's hole): a start only a sixteenth of the parent's window fine left most pairs of
/// leaves a start long before they can meet.
pub(super) fn sphere_window(
    a: &MovingPoint,
    ra: f64,
    b: &MovingPoint,
    rb: f64,
    t: Interval,
) -> Option<Interval> {
    let lo = window_end(a, ra, b, rb, t, true)?;
    let hi = window_end(a, ra, b, rb, Interval::new(lo, t.hi()), false).unwrap_or(t.hi());
    Some(Interval::new(lo, hi.max(lo)))
}

/// The start (`earliest`) or the end of [`sphere_window`] within `t`.
fn window_end(
    a: &MovingPoint,
    ra: f64,
    b: &MovingPoint,
    rb: f64,
    t: Interval,
    earliest: bool,
) -> Option<f64> {
    let small = 0.125 * (ra + rb);
    let end = |p: Interval| if earliest { p.lo() } else { p.hi() };
    // Depth first, the pieces on the stack in the order they are to be tested.
    let mut stack = [(t, 0u32); WINDOW_DEPTH as usize + 1];
    let mut len = 1;
    let mut tests = 0;
    while len > 0 {
        len -= 1;
        let (p, depth) = stack[len];
        let (ba, bb) = (a.enclose(p), b.enclose(p));
        tests += 1;
        if boxes_apart(&ba, ra, &bb, rb) {
            continue;
        }
        let width = |x: &[Interval; 3]| x.iter().map(|c| c.width()).fold(0.0, f64::max);
        let mid = p.lo() + 0.5 * (p.hi() - p.lo());
        if width(&ba) + width(&bb) <= small
            || depth == WINDOW_DEPTH
            || tests >= WINDOW_TESTS
            || !(mid > p.lo() && mid < p.hi())
        {
            return Some(end(p));
        }
        let (left, right) = (Interval::new(p.lo(), mid), Interval::new(mid, p.hi()));
        let (first, second) = if earliest {
            (left, right)
        } else {
            (right, left)
        };
        stack[len] = (second, depth + 1);
        stack[len + 1] = (first, depth + 1);
        len += 2;
    }
    None
}

#[cfg(test)]
mod tests;
