//! Vertex–face and edge–edge contact of features of bodies that translate and rotate: the
//! seed's motion class (a constant linear velocity of the centre of mass and a constant
//! angular velocity about an axis through it), by bisection over intervals of time with
//! enclosures of the moving points (the seed's BBOI on its `f` functions).
//!
//! # Enclosing a rotating point
//!
//! A body point at `r` from the centre of mass at `t = 0` is at
//! `x(t) = c + v t + r∥ + r⊥ cos θ + (k × r) sin θ` with `θ = |ω| t`, `k = ω / |ω|`,
//! `r∥ = k (k · r)` and `r⊥ = r − r∥` (Rodrigues). Over an interval of time, `θ` is an
//! interval and so are `sin θ` and `cos θ` ([`sin_cos`]: the values at the ends, and ±1 where
//! an extremum lies inside); the point lies in the box that interval arithmetic gives for this
//! formula (each of `cos θ` and `sin θ` taken on its own, which only widens it). The constant
//! vectors (`r∥`, `r⊥`, `k × r`) are enclosed once per query.
//!
//! # The tests
//!
//! The functions of [`super::linear`] on the enclosed points, by interval arithmetic instead of
//! polynomials: the boxes of the two features must overlap, then the coplanarity `f` and the
//! feature's domain functions. An interval of time
//! on which `f` excludes 0 or a domain function is negative holds no contact; the first
//! interval no wider than the tolerance that nothing excludes is reported by its start. The
//! enclosures shrink with the interval (first order), so the bisection ends, and the time is
//! never after the first contact.
//!
//! # The second-order cut
//!
//! In the seed's class (`α = 0`; the centre's acceleration only adds `g t` and `g` to the
//! points' derivatives) the points have enclosable first and second derivatives (the seed's
//! appendix A: `x' = v + g t + ω × q`, `x'' = g − |ω|² q` for the turned part `q` of `r`), so
//! `f` has them too, and on an interval `[t₀, t₁]` that passes the tests above `f(t₀ + h)`
//! lies between the two parabolas of the seed's inclusion function θ:
//! `f(t₀) + f'(t₀) h + (f''/2) h²` with `f(t₀)`, `f'(t₀)` enclosed at the point `t₀` (tight)
//! and `f''` over the interval. Where both parabolas keep one sign there is no root; the
//! root-domain cut of [`super::linear`] (the seed's IRD) keeps only the stretch between the
//! first root of the near parabola and the first of the far one, and near a simple root of
//! `f` that stretch is about the square of the interval's width: quadratic convergence where
//! plain bisection gains a bit per interval. It is tried on intervals no wider than a
//! thousandth of the search over which a body turns less than a quarter radian; motions with
//! `α > 0` keep the first-order tests alone.

use super::interval::boxes_meet;
use super::linear::{taylor_cut, CcdOptions, Cut, Found, Search};
use super::Interval;

/// An interval 3-vector.
type IVec = [Interval; 3];

fn sub(a: &IVec, b: &IVec) -> IVec {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn add(a: &IVec, b: &IVec) -> IVec {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn dot(a: &IVec, b: &IVec) -> Interval {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: &IVec, b: &IVec) -> IVec {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Enclosures of `sin θ` and `cos θ` for every `θ` of `theta` (finite). `f64::sin` and
/// `f64::cos` are within an ulp of the exact values; the bounds are widened by `2⁻⁵⁰` (more
/// than 4 ulps of any value in `[−1, 1]`), and an extremum within a hair of the interval's ends
/// is taken as inside.
pub fn sin_cos(theta: Interval) -> (Interval, Interval) {
    use std::f64::consts::{FRAC_PI_2, PI, TAU};
    let (a, b) = (theta.lo(), theta.hi());
    if !(a.is_finite() && b.is_finite()) || b - a >= TAU {
        let unit = Interval::new(-1.0, 1.0);
        return (unit, unit);
    }
    let slack = 1e-12 * (1.0 + a.abs().max(b.abs()));
    // Whether `phase + 2πk` lies in [a, b] for some integer k (generously).
    let hits = |phase: f64| {
        let k = ((a - slack - phase) / TAU).ceil();
        phase + k * TAU <= b + slack
    };
    let widen = 2f64.powi(-50);
    let range = |ends: [f64; 2], max_at: f64, min_at: f64| {
        let mut lo = ends[0].min(ends[1]) - widen;
        let mut hi = ends[0].max(ends[1]) + widen;
        if hits(max_at) {
            hi = 1.0;
        }
        if hits(min_at) {
            lo = -1.0;
        }
        Interval::new(lo.max(-1.0), hi.min(1.0))
    };
    let sin = range([a.sin(), b.sin()], FRAC_PI_2, -FRAC_PI_2);
    let cos = range([a.cos(), b.cos()], 0.0, PI);
    (sin, cos)
}

/// The seed's motion class: the centre of mass at `centre` at `t = 0`, moving at `velocity`,
/// the body turning at `angular_velocity` (world frame, radians per unit time) about it.
///
/// Two terms widen the class for the simulation's bodies: a constant `acceleration` of the
/// centre (gravity: `c + v t + g t² / 2`), and `angular_acceleration`, a bound `α` on how fast
/// the true angular velocity may drift from the constant one (a tumbling body's torque-free
/// rotation). The true attitude then differs from the constant turn by an angle of at most
/// `α t² / 2` (`MovingPoint` widens its boxes by `α |r| t² / 2`), so every test stays
/// conservative; `α = 0` is the seed's exact class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScrewMotion {
    /// The centre of mass at `t = 0`.
    pub centre: [f64; 3],
    /// Its velocity.
    pub velocity: [f64; 3],
    /// The angular velocity.
    pub angular_velocity: [f64; 3],
    /// The centre's constant acceleration (zero in the seed's class).
    pub acceleration: [f64; 3],
    /// A bound on the drift rate `|dω/dt|` of the true angular velocity (zero in the seed's
    /// class).
    pub angular_acceleration: f64,
}

impl ScrewMotion {
    /// The seed's motion class: no acceleration, a constant angular velocity.
    pub fn new(centre: [f64; 3], velocity: [f64; 3], angular_velocity: [f64; 3]) -> Self {
        Self {
            centre,
            velocity,
            angular_velocity,
            acceleration: [0.0; 3],
            angular_acceleration: 0.0,
        }
    }
    /// The position at `t` of the body point at `point` at `t = 0` (plain floats: for
    /// references and samples).
    pub fn at(&self, point: [f64; 3], t: f64) -> [f64; 3] {
        let w = self.angular_velocity;
        let speed = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
        let r = [0, 1, 2].map(|i| point[i] - self.centre[i]);
        let turned = if speed > 0.0 {
            let k = w.map(|x| x / speed);
            let (s, c) = (speed * t).sin_cos();
            let kr = k[0] * r[0] + k[1] * r[1] + k[2] * r[2];
            let kxr = [
                k[1] * r[2] - k[2] * r[1],
                k[2] * r[0] - k[0] * r[2],
                k[0] * r[1] - k[1] * r[0],
            ];
            [0, 1, 2].map(|i| r[i] * c + kxr[i] * s + k[i] * kr * (1.0 - c))
        } else {
            r
        };
        [0, 1, 2].map(|i| {
            self.centre[i] + self.velocity[i] * t + 0.5 * self.acceleration[i] * t * t + turned[i]
        })
    }
}

/// A point of a moving body, enclosed once per query: the constants of the formula in the
/// [module docs](self).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MovingPoint {
    centre: IVec,
    velocity: IVec,
    /// Half the centre's acceleration.
    half_accel: IVec,
    /// `α |r| / 2`, rounded up: the radius of the ball around the constant turn that holds the
    /// true point, per `t²`.
    wobble: f64,
    /// `|ω|`.
    speed: Interval,
    parallel: IVec,
    across: IVec,
    turn: IVec,
}

impl MovingPoint {
    pub(crate) fn new(point: [f64; 3], m: &ScrewMotion) -> Self {
        let iv = |a: [f64; 3]| a.map(Interval::point);
        let centre = iv(m.centre);
        let r = sub(&iv(point), &centre);
        let half_accel = m.acceleration.map(|a| Interval::point(a) * 0.5);
        let wobble = if m.angular_acceleration > 0.0 {
            let rr = dot(&r, &r).hi().sqrt().next_up();
            (0.5 * m.angular_acceleration * rr).next_up()
        } else if m.angular_acceleration == 0.0 {
            0.0
        } else {
            // A negative or NaN bound bounds nothing: the point may be anywhere.
            f64::INFINITY
        };
        let w = iv(m.angular_velocity);
        let ww = dot(&w, &w);
        if ww.hi() == 0.0 {
            return Self {
                centre,
                velocity: iv(m.velocity),
                half_accel,
                wobble,
                speed: Interval::ZERO,
                parallel: r,
                across: [Interval::ZERO; 3],
                turn: [Interval::ZERO; 3],
            };
        }
        // |ω| by the correctly rounded square root, one ulp out each way.
        let speed = Interval::new(
            ww.lo().sqrt().next_down().max(0.0),
            ww.hi().sqrt().next_up(),
        );
        // r∥ = ω (ω · r) / |ω|², (k × r) = (ω × r) / |ω|.
        let wr = dot(&w, &r);
        let parallel = w.map(|x| x * wr / ww);
        let across = sub(&r, &parallel);
        let turn = cross(&w, &r).map(|x| x / speed);
        Self {
            centre,
            velocity: iv(m.velocity),
            half_accel,
            wobble,
            speed,
            parallel,
            across,
            turn,
        }
    }
    /// The vector from `a` to `b`, two points of one body: it turns with the body and does
    /// not move with its centre, so its enclosure is that of a point at `b − a` from a still
    /// centre (no `v t` nor `g t² / 2` in it, tighter than the difference of the two points'
    /// boxes). Its constants are the differences of the points' (the decomposition is linear
    /// in `r`), and its drift radius their sum (`|b − a| <= |r_a| + |r_b|`).
    pub(crate) fn vector(a: &Self, b: &Self) -> Self {
        let zero = [Interval::ZERO; 3];
        Self {
            centre: zero,
            velocity: zero,
            half_accel: zero,
            wobble: if a.wobble > 0.0 || b.wobble > 0.0 {
                (a.wobble + b.wobble).next_up()
            } else {
                0.0
            },
            speed: b.speed,
            parallel: sub(&b.parallel, &a.parallel),
            across: sub(&b.across, &a.across),
            turn: sub(&b.turn, &a.turn),
        }
    }
    /// A constant vector (it neither moves nor turns).
    pub(crate) fn constant(v: [f64; 3]) -> Self {
        let zero = [Interval::ZERO; 3];
        Self {
            centre: zero,
            velocity: zero,
            half_accel: zero,
            wobble: 0.0,
            speed: Interval::ZERO,
            parallel: v.map(Interval::point),
            across: zero,
            turn: zero,
        }
    }
    /// The box that holds the point at every time of `t`.
    pub(crate) fn enclose(&self, t: Interval) -> IVec {
        self.enclose_turned(t, self.turn_over(t))
    }
    /// Enclosures of `sin θ` and `cos θ` over `t` (shared by every point of one body).
    pub(crate) fn turn_over(&self, t: Interval) -> (Interval, Interval) {
        if self.speed == Interval::ZERO {
            (Interval::ZERO, Interval::point(1.0))
        } else {
            sin_cos(self.speed * t)
        }
    }
    /// Enclosures of the point's velocity and acceleration over `t`, with the body's
    /// [`MovingPoint::turn_over`] given (the seed's appendix A with the centre's
    /// acceleration `g`): the point is `x = c + v t + g t² / 2 + r∥ + q` with the turned
    /// `q = r⊥ cos θ + (k × r) sin θ`, so `x' = v + g t + ω × q` and
    /// `x'' = g + ω × (ω × q) = g − |ω|² q` (`q ⊥ ω`), where
    /// `ω × q = |ω| ((k × r) cos θ − r⊥ sin θ)`. Only for `α = 0`: the drift has no such
    /// bounds.
    pub(crate) fn rates(&self, t: Interval, (s, c): (Interval, Interval)) -> (IVec, IVec) {
        debug_assert!(self.wobble == 0.0);
        let ww = self.speed.square();
        let mut v = [Interval::ZERO; 3];
        let mut a = [Interval::ZERO; 3];
        for i in 0..3 {
            let g = self.half_accel[i] * 2.0;
            let q = self.across[i] * c + self.turn[i] * s;
            let wq = self.speed * (self.turn[i] * c - self.across[i] * s);
            v[i] = self.velocity[i] + g * t + wq;
            a[i] = g - ww * q;
        }
        (v, a)
    }
    /// [`MovingPoint::enclose`] with the body's [`MovingPoint::turn_over`] given.
    pub(crate) fn enclose_turned(&self, t: Interval, (s, c): (Interval, Interval)) -> IVec {
        let tt = t.square();
        let slack = if self.wobble == f64::INFINITY {
            Interval::ENTIRE
        } else if self.wobble > 0.0 {
            let e = (self.wobble * tt.hi()).next_up();
            Interval::new(-e, e)
        } else {
            Interval::ZERO
        };
        [0, 1, 2].map(|i| {
            self.centre[i]
                + self.velocity[i] * t
                + self.half_accel[i] * tt
                + self.parallel[i]
                + self.across[i] * c
                + self.turn[i] * s
                + slack
        })
    }
}

/// The earliest time in `[0, until]` at which the vertex `p` (of a body moving by `mp`) may
/// touch the triangle `a b c` (of a body moving by `mt`), points given at `t = 0`; `None`
/// when they never touch (see the [module docs](self)).
pub fn vertex_face(
    p: [f64; 3],
    mp: &ScrewMotion,
    tri: [[f64; 3]; 3],
    mt: &ScrewMotion,
    until: f64,
    opts: &CcdOptions,
) -> Option<f64> {
    vertex_face_by(p, mp, tri, mt, until, until, opts)
}

/// [`vertex_face`] reporting only a contact at or before `horizon`: the same time as the
/// unbounded query whenever that is at or before `horizon` (the bisection's intervals are
/// those of `[0, until]`; later ones are only dropped).
pub fn vertex_face_by(
    p: [f64; 3],
    mp: &ScrewMotion,
    [a, b, c]: [[f64; 3]; 3],
    mt: &ScrewMotion,
    until: f64,
    horizon: f64,
    opts: &CcdOptions,
) -> Option<f64> {
    vertex_face_in(p, mp, [a, b, c], mt, until, 0.0, horizon, opts)
}

/// [`vertex_face_by`] that also drops the intervals ending before `from` (a time before
/// which the features cannot touch, known to the caller).
#[allow(clippy::too_many_arguments)]
pub(crate) fn vertex_face_in(
    p: [f64; 3],
    mp: &ScrewMotion,
    [a, b, c]: [[f64; 3]; 3],
    mt: &ScrewMotion,
    until: f64,
    from: f64,
    horizon: f64,
    opts: &CcdOptions,
) -> Option<f64> {
    let pair = FeaturePair::new(Kind::VertexFace, [p, a, b, c], mp, mt);
    pair.search(until, from, horizon, opts).time
}

/// The earliest time in `[0, until]` at which the edge `a b` (of a body moving by `m1`) may
/// touch the edge `c d` (of a body moving by `m2`), points given at `t = 0`; `None` when they
/// never touch (see the [module docs](self)).
pub fn edge_edge(
    e1: [[f64; 3]; 2],
    m1: &ScrewMotion,
    e2: [[f64; 3]; 2],
    m2: &ScrewMotion,
    until: f64,
    opts: &CcdOptions,
) -> Option<f64> {
    edge_edge_by(e1, m1, e2, m2, until, until, opts)
}

/// [`edge_edge`] reporting only a contact at or before `horizon` (as [`vertex_face_by`]).
pub fn edge_edge_by(
    [a, b]: [[f64; 3]; 2],
    m1: &ScrewMotion,
    [c, d]: [[f64; 3]; 2],
    m2: &ScrewMotion,
    until: f64,
    horizon: f64,
    opts: &CcdOptions,
) -> Option<f64> {
    edge_edge_in([a, b], m1, [c, d], m2, until, 0.0, horizon, opts)
}

/// [`edge_edge_by`] that also drops the intervals ending before `from` (as
/// [`vertex_face_in`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn edge_edge_in(
    [a, b]: [[f64; 3]; 2],
    m1: &ScrewMotion,
    [c, d]: [[f64; 3]; 2],
    m2: &ScrewMotion,
    until: f64,
    from: f64,
    horizon: f64,
    opts: &CcdOptions,
) -> Option<f64> {
    let pair = FeaturePair::new(Kind::EdgeEdge, [a, b, c, d], m1, m2);
    pair.search(until, from, horizon, opts).time
}

/// The widest turn (radians) of either body over an interval on which the second-order cut
/// is tried.
const MAX_CUT_TURN: f64 = 0.25;

/// The widest interval, relative to the searched span, on which the second-order cut is
/// tried (measured on `kairos bench d2m`: wider ones cost more than the cut saves).
const MAX_CUT_WIDTH: f64 = 1e-3;

/// The two feature tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The vertex `p` (first body) against the triangle `a b c` (second body).
    VertexFace,
    /// The edge `a b` (first body) against the edge `c d` (second body).
    EdgeEdge,
    /// In the plane `z = 0`: the vertex `p` (first body) against the segment `a b` (second
    /// body); the fourth point repeats `a`. The frame's second vector is the constant `ẑ`, so
    /// `f = ((b − a) × ẑ) · (p − a)` (zero when `p` is on the line of `a b`), and the domain
    /// functions are `s = (b − a) · (p − a)` and `|b − a|² − s`.
    VertexEdge,
}

/// A feature pair on four moving points (the first body's first, see [`Kind`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FeaturePair {
    kind: Kind,
    pts: [MovingPoint; 4],
    /// The body vectors `e₁`, `e₂` of the frame (see [`FeaturePair::frame`]) and, for a
    /// vertex–face pair, the triangle's `c − b` (edge–edge: `e₂` again, unused).
    edges: [MovingPoint; 3],
    /// Whether the motions are in the seed's class (`α = 0`), where the points have bounded
    /// second derivatives and the second-order cut applies.
    second_order: bool,
}

impl FeaturePair {
    pub(crate) fn new(kind: Kind, x: [[f64; 3]; 4], m1: &ScrewMotion, m2: &ScrewMotion) -> Self {
        let first = match kind {
            Kind::VertexFace | Kind::VertexEdge => 1,
            Kind::EdgeEdge => 2,
        };
        let pts = [0, 1, 2, 3].map(|i| MovingPoint::new(x[i], if i < first { m1 } else { m2 }));
        Self::of_points(kind, pts)
    }
    /// [`FeaturePair::new`] of points already made (shared by the feature pairs of two
    /// triangles).
    pub(crate) fn of_points(kind: Kind, pts: [MovingPoint; 4]) -> Self {
        // The seed's class (`α = 0`) is where no point drifts off its constant turn.
        let second_order = pts.iter().all(|p| p.wobble == 0.0);
        let v = |i: usize, j: usize| MovingPoint::vector(&pts[i], &pts[j]);
        let edges = match kind {
            Kind::VertexFace => [v(1, 2), v(1, 3), v(2, 3)],
            Kind::EdgeEdge => [v(0, 1), v(2, 3), v(2, 3)],
            Kind::VertexEdge => [v(1, 2), MovingPoint::constant([0.0, 0.0, 1.0]), v(1, 2)],
        };
        Self {
            kind,
            pts,
            edges,
            second_order,
        }
    }
    /// The turn of the body of `edges[i]`, from the points' `turns`.
    fn edge_turn(&self, i: usize, turns: &[(Interval, Interval); 4]) -> (Interval, Interval) {
        if self.kind == Kind::EdgeEdge && i == 0 {
            turns[0]
        } else {
            turns[3]
        }
    }
    /// The frame of [`super::linear`]'s functions over `t` (points' boxes `x` and turns
    /// given): `(e₁, e₂, d)` with the coplanarity `f = (e₁ × e₂) · d`. Vertex–face
    /// (`p a b c`): `(b − a, c − a, p − a)`; edge–edge (`a b c d`): `(b − a, d − c, c − a)`.
    /// The body vectors `e₁`, `e₂` are enclosed as such ([`MovingPoint::vector`]), `d` as
    /// the difference of two boxes.
    fn frame(&self, t: Interval, x: &[IVec; 4], turns: &[(Interval, Interval); 4]) -> [IVec; 3] {
        let e = |i: usize| self.edges[i].enclose_turned(t, self.edge_turn(i, turns));
        let d = match self.kind {
            Kind::VertexFace | Kind::VertexEdge => sub(&x[0], &x[1]),
            Kind::EdgeEdge => sub(&x[2], &x[0]),
        };
        [e(0), e(1), d]
    }
    /// The first and second time derivatives of the frame over `t`
    /// ([`MovingPoint::rates`] of its vectors and points).
    fn frame_rates(&self, t: Interval, turns: &[(Interval, Interval); 4]) -> [[IVec; 3]; 2] {
        let e = |i: usize| self.edges[i].rates(t, self.edge_turn(i, turns));
        let (i, j) = match self.kind {
            Kind::VertexFace | Kind::VertexEdge => (0, 1),
            Kind::EdgeEdge => (2, 0),
        };
        let (pi, pj) = (
            self.pts[i].rates(t, turns[i]),
            self.pts[j].rates(t, turns[j]),
        );
        let ([e1, e2], d) = ([e(0), e(1)], (sub(&pi.0, &pj.0), sub(&pi.1, &pj.1)));
        [[e1.0, e2.0, d.0], [e1.1, e2.1, d.1]]
    }
    /// Without the second-order cut: the first-order tests alone (for comparisons).
    #[cfg(test)]
    pub(crate) fn first_order_only(mut self) -> Self {
        self.second_order = false;
        self
    }
    /// The index of the second body's first point.
    fn split(&self) -> usize {
        match self.kind {
            Kind::VertexFace | Kind::VertexEdge => 1,
            Kind::EdgeEdge => 2,
        }
    }
    /// The bodies' turns over `t` (one `sin`, `cos` per body).
    fn turns(&self, t: Interval) -> [(Interval, Interval); 4] {
        let k = self.split();
        let (t1, t2) = (self.pts[0].turn_over(t), self.pts[k].turn_over(t));
        [0, 1, 2, 3].map(|i| if i < k { t1 } else { t2 })
    }
    /// The search of `[0, until]` (see [`super::linear::Search`]).
    pub(crate) fn search(&self, until: f64, from: f64, horizon: f64, opts: &CcdOptions) -> Found {
        if !(until >= 0.0 && until.is_finite()) {
            return Found {
                time: None,
                checks: 0,
            };
        }
        // The cut pins the final interval's start to within rounding of a contact, where the
        // features touch within rounding; reported a tolerance earlier, they are apart by about
        // the tolerance times their approach speed (the accuracy asked for), which keeps the
        // caller's distances (its back-off, a check of the gap) on the apart side.
        let tolerance = opts.time_tolerance * until.max(f64::MIN_POSITIVE);
        let search = Search {
            span: Interval::new(0.0, until),
            from,
            horizon,
            tolerance,
            max_checks: opts.max_checks,
            lead: tolerance,
            pin_start: false,
        };
        search.run(|t| self.test(t, MAX_CUT_WIDTH * until))
    }
    /// The tests on one interval of time: the first-order ones (the boxes meet, `f` may
    /// vanish, no domain function is negative), then in the seed's class the second-order
    /// root-domain cut of `f` ([`super::linear::taylor_cut`] on [`FeaturePair::taylor`]),
    /// which also excludes the interval when the parabolas bounding `f` keep its sign: that
    /// enclosure is used with the first-order one, each excluding on its own.
    pub(crate) fn test(&self, t: Interval, cut_below: f64) -> Cut {
        let turns = self.turns(t);
        let x: [IVec; 4] = [0, 1, 2, 3].map(|i| self.pts[i].enclose_turned(t, turns[i]));
        let k = self.split();
        if !boxes_meet(&x[..k], &x[k..]) {
            return Cut::NoRoot;
        }
        let [e1, e2, d] = self.frame(t, &x, &turns);
        let n = cross(&e1, &e2);
        if !dot(&n, &d).contains_zero() {
            return Cut::NoRoot;
        }
        let domain_ok = match self.kind {
            Kind::VertexFace => {
                let [p, _, b, c] = &x;
                let bc = self.edges[2].enclose_turned(t, turns[3]);
                let ca = e2.map(|x| -x);
                [
                    dot(&cross(&e1, &d), &n),
                    dot(&cross(&bc, &sub(p, b)), &n),
                    dot(&cross(&ca, &sub(p, c)), &n),
                ]
                .iter()
                .all(|g| g.hi() >= 0.0)
            }
            Kind::EdgeEdge => {
                let nn = dot(&n, &n);
                let s = dot(&cross(&d, &e2), &n);
                let u = dot(&cross(&d, &e1), &n);
                [s, nn - s, u, nn - u].iter().all(|g| g.hi() >= 0.0)
            }
            Kind::VertexEdge => {
                let s = dot(&e1, &d);
                [s, dot(&e1, &e1) - s].iter().all(|g| g.hi() >= 0.0)
            }
        };
        if !domain_ok {
            return Cut::NoRoot;
        }
        // The cut pays only on short intervals over which the bodies turn little: on longer
        // ones f'' is so loose that the parabolas cut next to nothing, and the first-order
        // tests drop most of them at a fraction of the cost (a heuristic: every cut is sound).
        let spin = self.pts[0]
            .speed
            .hi()
            .max(self.pts[self.split()].speed.hi());
        if !self.second_order || t.width() * spin > MAX_CUT_TURN || t.width() > cut_below {
            return Cut::Whole;
        }
        let (g, gp, a) = self.taylor_with(t, &x, &turns);
        taylor_cut(g, gp, a, t)
    }
    /// The second-order inclusion of `f` over `t` (the seed's θ): enclosures of `f(t₀)` and
    /// `f'(t₀)` at the start `t₀` of `t` and of `f''(s) / 2` for every `s` of `t`, so that
    /// `f(t₀ + h) ∈ f(t₀) + f'(t₀) h + (f''/2) h²` for `h ∈ [0, |t|]` (Taylor's theorem with the
    /// Lagrange remainder). Only in the seed's class (`α = 0`).
    ///
    /// With `n = e₁ × e₂` and `f = n · d` (see [`FeaturePair::frame`]): `n' = e₁' × e₂ + e₁ × e₂'`,
    /// `n'' = e₁'' × e₂ + 2 e₁' × e₂' + e₁ × e₂''`, `f' = n' · d + n · d'` and
    /// `f'' = n'' · d + 2 n' · d' + n · d''` (the seed's appendices C and D), the frame's
    /// derivatives from the points' ([`MovingPoint::rates`], appendix A).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn taylor(&self, t: Interval) -> (Interval, Interval, Interval) {
        let turns = self.turns(t);
        let x = [0, 1, 2, 3].map(|i| self.pts[i].enclose_turned(t, turns[i]));
        self.taylor_with(t, &x, &turns)
    }
    /// [`FeaturePair::taylor`] with the points' boxes `x` over `t` and the turns given.
    fn taylor_with(
        &self,
        t: Interval,
        x: &[IVec; 4],
        turns: &[(Interval, Interval); 4],
    ) -> (Interval, Interval, Interval) {
        debug_assert!(self.second_order);
        // At t0: positions and velocities.
        let t0 = Interval::point(t.lo());
        let turns0 = self.turns(t0);
        // Only the two points of d are needed at t0 (the frame's vectors are its own).
        let mut x0 = [[Interval::ZERO; 3]; 4];
        let ends = match self.kind {
            Kind::VertexFace | Kind::VertexEdge => [0, 1],
            Kind::EdgeEdge => [0, 2],
        };
        for i in ends {
            x0[i] = self.pts[i].enclose_turned(t0, turns0[i]);
        }
        let [e1, e2, d] = self.frame(t0, &x0, &turns0);
        let [[de1, de2, dd], _] = self.frame_rates(t0, &turns0);
        let n = cross(&e1, &e2);
        let dn = add(&cross(&de1, &e2), &cross(&e1, &de2));
        let g = dot(&n, &d);
        let gp = dot(&dn, &d) + dot(&n, &dd);
        // Over t: positions, velocities and accelerations.
        let [e1, e2, d] = self.frame(t, x, turns);
        let [[de1, de2, dd], [dde1, dde2, ddd]] = self.frame_rates(t, turns);
        let n = cross(&e1, &e2);
        let dn = add(&cross(&de1, &e2), &cross(&e1, &de2));
        let ddn = add(
            &add(&cross(&dde1, &e2), &cross(&e1, &dde2)),
            &cross(&de1, &de2).map(|c| c * 2.0),
        );
        let ddf = dot(&ddn, &d) + dot(&dn, &dd) * 2.0 + dot(&n, &ddd);
        (g, gp, ddf * 0.5)
    }
}

/// The start of the earliest interval of `[0, until]` no wider than the tolerance (relative
/// to `until`) on which `may_touch` holds, bisecting depth first, earliest half first,
/// skipping the intervals that end before `from`; `None` when there is none or it starts
/// after `horizon`.
pub(crate) fn earliest(
    until: f64,
    from: f64,
    horizon: f64,
    opts: &CcdOptions,
    may_touch: impl Fn(Interval) -> bool,
) -> Option<f64> {
    if !(until >= 0.0 && until.is_finite()) {
        return None;
    }
    let search = Search {
        span: Interval::new(0.0, until),
        from,
        horizon,
        tolerance: opts.time_tolerance * until.max(f64::MIN_POSITIVE),
        max_checks: opts.max_checks,
        lead: 0.0,
        pin_start: false,
    };
    search
        .run(|t| {
            if may_touch(t) {
                Cut::Whole
            } else {
                Cut::NoRoot
            }
        })
        .time
}

#[cfg(test)]
mod tests;
