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

use super::linear::CcdOptions;
use super::Interval;

/// An interval 3-vector.
type IVec = [Interval; 3];

fn sub(a: &IVec, b: &IVec) -> IVec {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
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

/// Whether the boxes around the points of `a` and of `b` overlap on every axis: a contact
/// point lies on both features, so in both boxes (this also excludes parallel edges and
/// degenerate triangles far apart, which the coplanarity test cannot).
pub(crate) fn boxes_meet(a: &[IVec], b: &[IVec]) -> bool {
    (0..3).all(|i| {
        let hull = |pts: &[IVec]| {
            pts.iter()
                .map(|p| p[i])
                .reduce(Interval::hull)
                .unwrap_or(Interval::ZERO)
        };
        hull(a).intersect(hull(b)).is_some()
    })
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
/// `α t² / 2` ([`MovingPoint`] widens its boxes by `α |r| t² / 2`), so every test stays
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
        } else {
            0.0
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
    /// [`MovingPoint::enclose`] with the body's [`MovingPoint::turn_over`] given.
    pub(crate) fn enclose_turned(&self, t: Interval, (s, c): (Interval, Interval)) -> IVec {
        let tt = t.square();
        let slack = if self.wobble > 0.0 {
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
    let pts = [
        MovingPoint::new(p, mp),
        MovingPoint::new(a, mt),
        MovingPoint::new(b, mt),
        MovingPoint::new(c, mt),
    ];
    earliest(until, from, horizon, opts, |t| {
        let (tp, tt) = (pts[0].turn_over(t), pts[1].turn_over(t));
        let [p, a, b, c] = [
            pts[0].enclose_turned(t, tp),
            pts[1].enclose_turned(t, tt),
            pts[2].enclose_turned(t, tt),
            pts[3].enclose_turned(t, tt),
        ];
        if !boxes_meet(&[p], &[a, b, c]) {
            return false;
        }
        let (ab, ac) = (sub(&b, &a), sub(&c, &a));
        let n = cross(&ab, &ac);
        if !dot(&n, &sub(&p, &a)).contains_zero() {
            return false;
        }
        let domain = [
            dot(&cross(&ab, &sub(&p, &a)), &n),
            dot(&cross(&sub(&c, &b), &sub(&p, &b)), &n),
            dot(&cross(&sub(&a, &c), &sub(&p, &c)), &n),
        ];
        domain.iter().all(|g| g.hi() >= 0.0)
    })
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
    let pts = [
        MovingPoint::new(a, m1),
        MovingPoint::new(b, m1),
        MovingPoint::new(c, m2),
        MovingPoint::new(d, m2),
    ];
    earliest(until, from, horizon, opts, |t| {
        let (t1, t2) = (pts[0].turn_over(t), pts[2].turn_over(t));
        let [a, b, c, d] = [
            pts[0].enclose_turned(t, t1),
            pts[1].enclose_turned(t, t1),
            pts[2].enclose_turned(t, t2),
            pts[3].enclose_turned(t, t2),
        ];
        if !boxes_meet(&[a, b], &[c, d]) {
            return false;
        }
        let (ab, cd, ac) = (sub(&b, &a), sub(&d, &c), sub(&c, &a));
        let n = cross(&ab, &cd);
        if !dot(&n, &ac).contains_zero() {
            return false;
        }
        let nn = dot(&n, &n);
        let s = dot(&cross(&ac, &cd), &n);
        let u = dot(&cross(&ac, &ab), &n);
        [s, nn - s, u, nn - u].iter().all(|g| g.hi() >= 0.0)
    })
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
    let mut stack = vec![Interval::new(0.0, until)];
    let tolerance = opts.time_tolerance * until.max(f64::MIN_POSITIVE);
    let mut checks = 0;
    while let Some(t) = stack.pop() {
        if t.lo() > horizon {
            // Every interval left starts later still.
            return None;
        }
        if t.hi() < from {
            continue;
        }
        checks += 1;
        if !may_touch(t) {
            continue;
        }
        let m = t.mid();
        if t.width() <= tolerance || checks >= opts.max_checks || !(t.lo() < m && m < t.hi()) {
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
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    #[test]
    fn sin_and_cos_enclose_every_angle() {
        let mut rng = Pcg64::seed_from_u64(9);
        for _ in 0..20_000 {
            let a: f64 = rng.gen_range(-20.0..20.0);
            let b = a + rng.gen_range(0.0..4.0);
            let (s, c) = sin_cos(Interval::new(a, b));
            for k in 0..=50 {
                let x = a + (b - a) * k as f64 / 50.0;
                assert!(
                    s.contains(x.sin()) && c.contains(x.cos()),
                    "{x} in [{a}, {b}]"
                );
            }
        }
        let (s, c) = sin_cos(Interval::new(0.0, 7.0));
        assert_eq!((s, c), (Interval::new(-1.0, 1.0), Interval::new(-1.0, 1.0)));
    }

    /// A point of a body falling under gravity while its spin speeds up (about a fixed axis,
    /// `|dω/dt| = α`) stays in the boxes of the motion with those bounds.
    #[test]
    fn boxes_hold_accelerated_and_drifting_motion() {
        let mut rng = Pcg64::seed_from_u64(4);
        for _ in 0..200 {
            let r = |rng: &mut Pcg64| [0; 3].map(|_| rng.gen_range(-1.0..1.0));
            let (centre, velocity, axis, point) =
                (r(&mut rng), r(&mut rng), r(&mut rng), r(&mut rng));
            let len = dot3(axis, axis).sqrt();
            let k = axis.map(|x| x / len);
            let (w0, alpha) = (rng.gen_range(0.0..5.0), rng.gen_range(0.0..3.0));
            let mut m = ScrewMotion::new(centre, velocity, k.map(|x| x * w0));
            m.acceleration = [0.0, 0.0, -9.81];
            m.angular_acceleration = alpha;
            // The true motion: the angle is w0 t + alpha t^2 / 2 about k.
            let truth = |t: f64| {
                let mut turned = ScrewMotion::new(centre, velocity, k);
                turned.acceleration = m.acceleration;
                let theta = w0 * t + 0.5 * alpha * t * t;
                // `at` with unit speed turns by `t`: move the centre's path separately.
                let x = turned.at(point, theta);
                let drift = [0, 1, 2].map(|i| {
                    velocity[i] * (t - theta) + 0.5 * m.acceleration[i] * (t * t - theta * theta)
                });
                [0, 1, 2].map(|i| x[i] + drift[i])
            };
            let mp = MovingPoint::new(point, &m);
            let t0 = rng.gen_range(0.0..2.0);
            let span = Interval::new(t0, t0 + rng.gen_range(0.0..0.5));
            let b = mp.enclose(span);
            for j in 0..=20 {
                let t = span.lo() + span.width() * j as f64 / 20.0;
                let x = truth(t);
                for i in 0..3 {
                    let slack = 1e-12 * (1.0 + x[i].abs());
                    assert!(
                        b[i].lo() - slack <= x[i] && x[i] <= b[i].hi() + slack,
                        "{x:?} outside {b:?} at {t}"
                    );
                }
            }
        }
    }

    fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    #[test]
    fn a_still_body_is_the_linear_case() {
        let still = ScrewMotion::new([0.0; 3], [0.0; 3], [0.0; 3]);
        let falling = ScrewMotion::new([0.2, 0.2, 1.0], [0.0, 0.0, -4.0], [0.0; 3]);
        let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let t = vertex_face(
            [0.2, 0.2, 1.0],
            &falling,
            tri,
            &still,
            1.0,
            &Default::default(),
        )
        .unwrap();
        assert!(t <= 0.25 && t > 0.25 - 1e-8, "{t}");
    }

    /// A spinning bar's end sweeps through a triangle: found at the angle where it crosses
    /// the triangle's plane, never after it.
    #[test]
    fn a_spinning_bar_end_meets_a_triangle_at_its_angle() {
        let still = ScrewMotion::new([0.0; 3], [0.0; 3], [0.0; 3]);
        // The point (1, 0, 0) turning about z at 2 rad/s reaches the plane x = y (through a
        // triangle there) at θ = π/4: t = π/8.
        let spin = ScrewMotion::new([0.0; 3], [0.0; 3], [0.0, 0.0, 2.0]);
        let tri = [[0.0, 0.0, -1.0], [2.0, 2.0, -1.0], [0.0, 0.0, 1.0]];
        let t = vertex_face(
            [1.0, 0.0, 0.0],
            &spin,
            tri,
            &still,
            2.0,
            &Default::default(),
        )
        .unwrap();
        let exact = std::f64::consts::PI / 8.0;
        assert!(t <= exact && t > exact - 1e-8, "{t} against {exact}");
    }
}
