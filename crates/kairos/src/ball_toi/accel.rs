//! Contacts under a constant relative acceleration (uniform gravity with a body at rest, or a
//! body and a wall): the first `s >= 0` at which `|d + w s + a s² / 2| = sigma`.
//!
//! The squared distance `f(s) = |p(s)|² - sigma²` is a quartic. Its monotone pieces are found
//! from the roots of its derivative (a cubic, whose own monotone pieces come from the closed-form
//! roots of a quadratic), each root isolated by bisection down to adjacent floating-point
//! numbers, and the contact is the first decreasing piece that reaches `f <= 0`: bisection
//! there returns the last time at which the pair is still apart, so the reported contact is
//! never after the true one (by more than the evaluation's round-off). Beyond
//! [`escape_time`] the pair is apart for ever, which bounds the search.
//!
//! The policy of [`super::first_contact`] carries over: a pair that touches or overlaps (by
//! round-off) while approaching collides at once; a pair whose distance only touches `sigma`
//! at a minimum collides there (it is approaching until then); no NaN leaves a function.

use super::{first_contact, Toi, ToiStatus};
use crate::body::Body;
use crate::math::Vector;
use crate::wall::{Plane, Polygon, Wall, WallSegment};

/// Bisection steps that always reach adjacent floating-point numbers on `[0, T]` (the binary
/// exponent range of `f64` plus its mantissa).
const MAX_BISECTIONS: usize = 2200;

/// The time after which `|d + w s + a s² / 2| > sigma` for every `s` (`a != 0`): the positive
/// root of `|a| s² / 2 - |w| s - (|d| + sigma) = 0`, grown by a few ulps. `+inf` when `a = 0`.
pub fn escape_time<V: Vector>(d: V, w: V, a: V, sigma: f64) -> f64 {
    let (la, lw, reach) = (a.length(), w.length(), d.length() + sigma);
    if !(la > 0.0) {
        return f64::INFINITY;
    }
    // Stable: the root is (|w| + sqrt(|w|² + 2 |a| reach)) / |a|.
    let t = (lw + (lw * lw + 2.0 * la * reach).sqrt()) / la;
    let t = t * (1.0 + 8.0 * f64::EPSILON);
    if t.is_finite() {
        t
    } else {
        f64::INFINITY
    }
}

/// `|d + w s + a s² / 2|² - sigma²`.
#[inline]
fn gap2<V: Vector>(d: V, w: V, a: V, sigma: f64, s: f64) -> f64 {
    let p = d + w * s + a * (0.5 * s * s);
    p.dot(p) - sigma * sigma
}

/// A root of the continuous `g` on `[lo, hi]` where `g(lo)` and `g(hi)` differ in sign (`lo_neg`
/// says which), bisected to adjacent floats: the returned pair brackets it.
fn bisect(mut lo: f64, mut hi: f64, lo_pos: bool, g: impl Fn(f64) -> f64) -> (f64, f64) {
    for _ in 0..MAX_BISECTIONS {
        let mid = 0.5 * (lo + hi);
        if !(mid > lo && mid < hi) {
            break;
        }
        if (g(mid) > 0.0) == lo_pos {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, hi)
}

/// The points of `(0, end)` where the cubic `c0 + c1 s + c2 s² + c3 s³` (`c3 > 0`) changes
/// sign, in increasing order (at most three).
fn cubic_sign_changes(c: [f64; 4], end: f64) -> Vec<f64> {
    let g = |s: f64| c[0] + s * (c[1] + s * (c[2] + s * c[3]));
    // The cubic's turning points: roots of c1 + 2 c2 s + 3 c3 s², stably.
    let (qa, qb, qc) = (3.0 * c[3], 2.0 * c[2], c[1]);
    let mut knots = vec![0.0];
    let disc = qb * qb - 4.0 * qa * qc;
    if disc > 0.0 {
        let q = -0.5 * (qb + qb.signum() * disc.sqrt());
        let mut r = [q / qa, if q != 0.0 { qc / q } else { 0.0 }];
        r.sort_by(f64::total_cmp);
        knots.extend(r.into_iter().filter(|&x| x > 0.0 && x < end));
    }
    knots.push(end);
    let mut out = Vec::new();
    for k in knots.windows(2) {
        let (g0, g1) = (g(k[0]), g(k[1]));
        if (g0 > 0.0) != (g1 > 0.0) {
            out.push(bisect(k[0], k[1], g0 > 0.0, g).1);
        }
    }
    out
}

/// First time `s >= 0` (relative) at which `|d + w s + a s² / 2| = sigma` while the distance
/// decreases (see the module docs in `ball_toi/accel.rs`). With `a = 0` this is
/// [`first_contact`], bit for bit.
pub fn first_contact_accel<V: Vector>(d: V, w: V, a: V, sigma: f64) -> Toi {
    if a == V::ZERO {
        return first_contact(d, w, sigma);
    }
    let end = escape_time(d, w, a, sigma);
    if !(end.is_finite() && d.is_finite() && w.is_finite() && a.is_finite()) {
        return Toi::miss(ToiStatus::Separating);
    }
    let f = |s: f64| gap2(d, w, a, sigma, s);
    // f'(s) / 2 = p(s) · p'(s).
    let cubic = [
        d.dot(w),
        w.dot(w) + d.dot(a),
        1.5 * w.dot(a),
        0.5 * a.dot(a),
    ];
    let mut knots = vec![0.0];
    knots.extend(cubic_sign_changes(cubic, end));
    knots.push(end);
    let slope = |s: f64| cubic[0] + s * (cubic[1] + s * (cubic[2] + s * cubic[3]));
    let mut receding = false;
    for k in knots.windows(2) {
        let (s0, s1) = (k[0], k[1]);
        if !(s1 > s0) {
            continue;
        }
        let decreasing = slope(0.5 * (s0 + s1)) < 0.0;
        if !decreasing {
            receding = true;
            continue;
        }
        let (f0, f1) = (f(s0), f(s1));
        if f0 <= 0.0 {
            // Touching or overlapping (round-off) while approaching: contact at once.
            return Toi {
                time: s0,
                status: if s0 == 0.0 {
                    ToiStatus::Penetrating
                } else {
                    ToiStatus::Approaching
                },
            };
        }
        if f1 <= 0.0 {
            let (lo, _) = bisect(s0, s1, true, f);
            return Toi {
                time: lo,
                status: ToiStatus::Approaching,
            };
        }
    }
    Toi::miss(if receding {
        ToiStatus::Separating
    } else {
        ToiStatus::Grazing
    })
}

/// The first time `s >= 0` at which `|d + w s + a s² / 2| <= sigma` (0 when it holds at once),
/// and a time after which it never holds again; `None` when it never holds. With `a = 0` the
/// exit is the time the distance leaves `sigma` for good.
pub fn window_accel<V: Vector>(d: V, w: V, a: V, sigma: f64) -> Option<(f64, f64)> {
    let end = escape_time(d, w, a, sigma);
    if !(end.is_finite()) {
        return None;
    }
    let f = |s: f64| gap2(d, w, a, sigma, s);
    if f(0.0) <= 0.0 {
        return Some((0.0, end));
    }
    let cubic = [
        d.dot(w),
        w.dot(w) + d.dot(a),
        1.5 * w.dot(a),
        0.5 * a.dot(a),
    ];
    let mut knots = vec![0.0];
    knots.extend(cubic_sign_changes(cubic, end));
    knots.push(end);
    for k in knots.windows(2) {
        if f(k[1]) <= 0.0 {
            let (lo, _) = bisect(k[0], k[1], true, f);
            return Some((lo, end));
        }
    }
    None
}

/// First time `s >= 0` at which the gap `g0 + v s + a s² / 2` along a line reaches 0 while
/// decreasing: the ball-plane contact under a constant acceleration, from the stable roots of
/// the quadratic. `g0 <= 0` with the gap decreasing (or at rest and pushed in) is a contact at
/// once.
pub fn first_zero_quadratic(g0: f64, v: f64, a: f64) -> Toi {
    if !(g0.is_finite() && v.is_finite() && a.is_finite()) {
        return Toi::miss(ToiStatus::Separating);
    }
    if g0 <= 0.0 {
        if v < 0.0 || (v == 0.0 && a < 0.0) {
            return Toi {
                time: 0.0,
                status: ToiStatus::Penetrating,
            };
        }
        // Leaving the overlap now: the next approach, if any, comes back through zero.
        if !(a < 0.0) {
            return Toi::miss(ToiStatus::Separating);
        }
        // g(s) = 0 again at the larger root; the decreasing crossing.
        let disc = v * v - 2.0 * a * g0;
        let root = disc.max(0.0).sqrt();
        let s = (v + root) / -a;
        return Toi {
            time: s.max(0.0),
            status: ToiStatus::Approaching,
        };
    }
    // Roots of (a / 2) s² + v s + g0 = 0 with g0 > 0.
    let half = 0.5 * a;
    if half == 0.0 {
        return if v < 0.0 {
            Toi {
                time: g0 / -v,
                status: ToiStatus::Approaching,
            }
        } else {
            Toi::miss(ToiStatus::Separating)
        };
    }
    let disc = v * v - 4.0 * half * g0;
    if !(disc >= 0.0) {
        return Toi::miss(ToiStatus::Separating);
    }
    let q = -0.5 * (v + v.signum() * disc.sqrt());
    // The two roots are q / half and g0 / q; the contact is the smallest positive one.
    let roots = [q / half, if q != 0.0 { g0 / q } else { f64::INFINITY }];
    let s = roots
        .into_iter()
        .filter(|r| *r > 0.0 && r.is_finite())
        .fold(f64::INFINITY, f64::min);
    if s.is_finite() {
        Toi {
            time: s,
            status: ToiStatus::Approaching,
        }
    } else {
        Toi::miss(ToiStatus::Separating)
    }
}

/// [`super::ball_ball`] for balls with constant accelerations `ai` and `aj` (uniform gravity,
/// or none for a sleeping body). Both are moved to the later of their local times and the
/// relative motion solved from there: a pure function of the two stored states. When the
/// accelerations are equal the relative motion is linear and [`first_contact`] solves it.
#[inline]
pub fn ball_ball_accel<V: Vector>(bi: &Body<V>, ai: V, bj: &Body<V>, aj: V) -> Toi {
    let t_ref = bi.time.max(bj.time);
    let (pi, vi) = bi.state_at_accel(t_ref, ai);
    let (pj, vj) = bj.state_at_accel(t_ref, aj);
    let mut toi = first_contact_accel(pi - pj, vi - vj, ai - aj, bi.radius + bj.radius);
    toi.time += t_ref;
    toi
}

/// [`super::ball_plane`] under the constant acceleration `a`: the exact quadratic.
#[inline]
pub fn ball_plane_accel<V: Vector>(ball: &Body<V>, a: V, plane: &Plane<V>) -> Toi {
    let d = plane.signed_distance(ball.pos);
    let side = if d >= 0.0 { 1.0 } else { -1.0 };
    let (w, acc) = (ball.vel.dot(plane.normal), a.dot(plane.normal));
    let mut toi = first_zero_quadratic(d.abs() - ball.radius, side * w, side * acc);
    toi.time += ball.time;
    toi
}

/// [`super::ball_segment`] under the constant acceleration `a`: the side (a quadratic in 2D,
/// the cylinder's quartic in 3D) and the endpoint caps, each by [`first_contact_accel`].
pub fn ball_segment_accel<V: Vector>(ball: &Body<V>, a: V, seg: &WallSegment<V>) -> Toi {
    let d = ball.pos - seg.a;
    let perp = |x: V| x - seg.dir * x.dot(seg.dir);
    let mut best = first_contact_accel(perp(d), perp(ball.vel), perp(a), ball.radius);
    if best.is_hit() {
        let s = best.time;
        let along = (d + ball.vel * s + a * (0.5 * s * s)).dot(seg.dir);
        if !(0.0..=seg.len).contains(&along) {
            best = Toi::miss(ToiStatus::Grazing);
        }
    }
    for cap in [d, ball.pos - seg.b] {
        let c = first_contact_accel(cap, ball.vel, a, ball.radius);
        if c.is_hit() && c.time < best.time {
            best = c;
        }
    }
    best.time += ball.time;
    best
}

/// [`super::ball_polygon`] under the constant acceleration `a`.
pub fn ball_polygon_accel<V: Vector>(ball: &Body<V>, a: V, poly: &Polygon<V>) -> Toi {
    let mut best = ball_plane_accel(ball, a, &poly.plane);
    if best.is_hit() && !poly.contains_projection(ball.state_at_accel(best.time, a).0) {
        best = Toi::miss(ToiStatus::Grazing);
    }
    for e in &poly.edges {
        let t = ball_segment_accel(ball, a, e);
        if t.is_hit() && t.time < best.time {
            best = t;
        }
    }
    best
}

/// [`super::ball_wall`] under the constant acceleration `a` (`None` for a static shape wall).
#[inline]
pub fn ball_wall_accel<V: Vector>(b: &Body<V>, a: V, wall: &Wall<V>) -> Option<Toi> {
    match wall {
        Wall::Segment(s) => Some(ball_segment_accel(b, a, s)),
        Wall::Plane(p) => Some(ball_plane_accel(b, a, p)),
        Wall::Polygon(p) => Some(ball_polygon_accel(b, a, p)),
        Wall::Shape(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DVec2, DVec3};

    /// The first sample where the pair touches, on a fine grid: a reference.
    fn sampled(d: DVec3, w: DVec3, a: DVec3, sigma: f64, end: f64) -> Option<f64> {
        let n = 200_000;
        (0..=n)
            .map(|k| end * k as f64 / n as f64)
            .find(|&s| gap2(d, w, a, sigma, s) <= 0.0)
    }

    #[test]
    fn zero_acceleration_is_first_contact() {
        let (d, w) = (DVec2::new(10.0, 1.0), DVec2::new(-2.0, 0.1));
        assert_eq!(
            first_contact_accel(d, w, DVec2::ZERO, 2.0),
            first_contact(d, w, 2.0)
        );
    }

    #[test]
    fn a_thrown_ball_lands_on_a_resting_one() {
        // Dropped from rest 10 above a resting ball, radii summing to 2: contact after falling
        // 8, at s = 4 under g = 1.
        let t = first_contact_accel(
            DVec2::new(0.0, 10.0),
            DVec2::ZERO,
            DVec2::new(0.0, -1.0),
            2.0,
        );
        assert_eq!(t.status, ToiStatus::Approaching);
        assert!((t.time - 4.0).abs() < 1e-14, "{}", t.time);
        assert!(
            gap2(
                DVec2::new(0.0, 10.0),
                DVec2::ZERO,
                DVec2::new(0.0, -1.0),
                2.0,
                t.time
            ) > 0.0
        );
        // Thrown up past it: no contact while rising, contact on the way down.
        let t = first_contact_accel(
            DVec2::new(3.0, -5.0),
            DVec2::new(0.0, 6.0),
            DVec2::new(0.0, -1.0),
            1.0,
        );
        assert!(!t.is_hit());
        let t = first_contact_accel(
            DVec2::new(0.5, -5.0),
            DVec2::new(0.0, 8.0),
            DVec2::new(0.0, -1.0),
            1.0,
        );
        assert!(t.is_hit());
    }

    #[test]
    fn agrees_with_dense_sampling() {
        let mut seed = 7u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut hits = 0;
        for _ in 0..1000 {
            let d = DVec3::new(rnd(), rnd(), rnd()) * 6.0;
            let w = DVec3::new(rnd(), rnd(), rnd());
            // Mostly pulled towards each other, so that many pairs touch.
            let a = DVec3::new(rnd(), rnd(), rnd()) - d.normalize() * (1.0 + rnd());
            let sigma = 1.0 + 2.0 * rnd().abs();
            if gap2(d, w, a, sigma, 0.0) <= 0.0 {
                continue;
            }
            let end = escape_time(d, w, a, sigma);
            let t = first_contact_accel(d, w, a, sigma);
            let reference = sampled(d, w, a, sigma, end);
            match reference {
                Some(r) => {
                    hits += 1;
                    assert!(t.is_hit(), "missed {d} {w} {a} {sigma}: ref {r}");
                    let step = end / 200_000.0;
                    assert!(t.time <= r && t.time >= r - step, "{} vs {r}", t.time);
                    assert!(gap2(d, w, a, sigma, t.time) >= -1e-9);
                }
                None => assert!(
                    !t.is_hit() || gap2(d, w, a, sigma, t.time).abs() < 1e-6,
                    "{t:?}"
                ),
            }
            // The window starts at the contact when there is one.
            if let Some((s_in, s_out)) = window_accel(d, w, a, sigma) {
                assert!(s_in <= s_out && s_out == end);
                assert!(s_in <= t.time);
            } else {
                assert!(!t.is_hit());
            }
        }
        assert!(hits > 120, "{hits}");
    }

    #[test]
    fn quadratic_gap_roots() {
        // Falling onto a floor 8 below under g = 1 from rest: s = 4.
        assert_eq!(first_zero_quadratic(8.0, 0.0, -1.0).time, 4.0);
        // Thrown up at 3 from 4 above the floor: up, then down: s = 3 + sqrt(9 + 8) .
        let t = first_zero_quadratic(4.0, 3.0, -1.0).time;
        assert!((t - (3.0 + 17f64.sqrt())).abs() < 1e-14);
        // Moving down at 2, decelerated by an upward acceleration 1 over a gap 1: s = 2 - sqrt2.
        let t = first_zero_quadratic(1.0, -2.0, 1.0).time;
        assert!((t - (2.0 - 2f64.sqrt())).abs() < 1e-15);
        // Decelerated before reaching: miss.
        assert!(!first_zero_quadratic(3.0, -2.0, 1.0).is_hit());
        // Tiny gap, large speed: no cancellation.
        let t = first_zero_quadratic(1e-12, -1e6, -1.0).time;
        assert!((t - 1e-18).abs() < 1e-30);
        // Overlapping by round-off, leaving upwards: the landing.
        let t = first_zero_quadratic(-1e-18, 2.0, -1.0);
        assert!((t.time - 4.0).abs() < 1e-12 && t.is_hit());
        assert_eq!(
            first_zero_quadratic(-1e-18, -1.0, 0.0).status,
            ToiStatus::Penetrating
        );
        assert!(!first_zero_quadratic(f64::NAN, 1.0, 1.0).is_hit());
    }
}
