//! The first contact of two rigid bodies: the window of their bounding spheres, the gap and
//! its witnesses, the start inside the shell, and the earliest contact of two compound bodies'
//! pieces (see the [module docs](crate::rigid)).

use super::advance::advance;
use super::state::MovingPiece;
use super::SHELL;
use crate::ball_toi::{window_accel, Toi, ToiStatus};
use crate::math::Vector;
use crate::query::Advance;
use crate::query::{contact_manifold, distance, penetration, EpaOptions, GjkOptions, GjkStatus};

/// The times `s >= 0` (relative) at which `|d + w s| <= sigma`: `None` when there are none.
/// Stable roots, no NaN.
pub(crate) fn sphere_window<V: Vector>(d: V, w: V, sigma: f64) -> Option<(f64, f64)> {
    let a = w.dot(w);
    let b = d.dot(w);
    let c = d.dot(d) - sigma * sigma;
    if !(c.is_finite() && a.is_finite() && b.is_finite()) {
        return None;
    }
    if c <= 0.0 {
        if !(a > 0.0) {
            return Some((0.0, f64::INFINITY));
        }
        let root = (b * b - a * c).sqrt();
        let out = if b <= 0.0 {
            (root - b) / a
        } else {
            -c / (b + root)
        };
        return Some((0.0, if out.is_nan() { f64::INFINITY } else { out }));
    }
    if !(b < 0.0) {
        return None;
    }
    let disc = crate::ball_toi::discriminant(d, w, sigma, a, b, c);
    if !(disc > 0.0) {
        return None;
    }
    let q = disc.sqrt() - b;
    let (s_in, s_out) = (c / q, q / a);
    (s_in.is_finite() && s_out >= s_in).then_some((s_in, s_out))
}

/// The gap of `a` and `b` at `t` with the normal (from `a` to `b`) and a witness point on each:
/// GJK's when apart, EPA's (gap 0) when they overlap. A GJK that runs out of iterations (two
/// curved shapes a contact shell apart: its convergence on smooth surfaces is linear) still
/// gives a certified gap, its lower bound, when that is positive; taking it for an overlap would
/// call two turning bodies that just touched and are leaving separated for ever.
pub(crate) fn gap_at<V: Vector>(a: &MovingPiece<V>, b: &MovingPiece<V>, t: f64) -> (f64, V, V, V) {
    let (pa, pb) = (a.pose_at(t), b.pose_at(t));
    let g = distance(a.shape, &pa, b.shape, &pb, &GjkOptions::default(), None);
    if g.status == GjkStatus::Separated && g.normal != V::ZERO {
        return (g.distance, g.normal, g.point_a, g.point_b);
    }
    if g.status == GjkStatus::MaxIterations && g.lower_bound > 0.0 && g.normal != V::ZERO {
        return (g.lower_bound, g.normal, g.point_a, g.point_b);
    }
    let e = penetration(a.shape, &pa, b.shape, &pb, &EpaOptions::default());
    (0.0, e.normal, e.point_a, e.point_b)
}

/// The speed at which the witness points `p` (on `a`) and `q` (on `b`) approach along `n`
/// (from `a` to `b`) at `t`; positive when approaching.
fn approach_speed<V: Vector>(
    a: &MovingPiece<V>,
    b: &MovingPiece<V>,
    t: f64,
    n: V,
    p: V,
    q: V,
) -> f64 {
    n.dot(a.velocity_at(t, p) - b.velocity_at(t, q))
}

/// A prediction from `t0` of an advancement's `outcome`: a contact at `t0` is one the pair is
/// in already.
fn toi_of(outcome: Advance, t0: f64) -> Toi {
    match outcome {
        Advance::Contact(t) => Toi {
            time: t,
            status: if t == t0 {
                ToiStatus::Penetrating
            } else {
                ToiStatus::Approaching
            },
        },
        // A safe time before any contact: the event there re-predicts (see `Resume`).
        Advance::Stalled(t) => Toi {
            time: t,
            status: ToiStatus::Stalled,
        },
        Advance::Clear => Toi::miss(ToiStatus::Grazing),
    }
}

/// The first contact of two movers (a pure function of their stored states) from `t0`, when
/// their bounding spheres (centres `d` apart at `t0` (from `a` to `b`), moving apart at `w`,
/// radii summing to `sigma`) allow one; `shell` is the contact shell. Contacts at or before
/// `t_max` are reported with the same bits whatever `t_max`; a later one may be reported as a
/// miss ([`ToiStatus::NotBy`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn predict<V: Vector>(
    a: &MovingPiece<V>,
    b: &MovingPiece<V>,
    t0: f64,
    d: V,
    w: V,
    sigma: f64,
    shell: f64,
    span: (f64, f64),
    t_max: f64,
) -> Toi {
    let rel = b.accel - a.accel;
    let window = if rel == V::ZERO {
        sphere_window(d, w, sigma + shell)
    } else {
        window_accel(d, w, rel, sigma + shell)
    };
    let Some((s_in, s_out)) = window else {
        return Toi::miss(ToiStatus::Separating);
    };
    let (s_in, s_out) = (s_in.max(span.0), s_out.min(span.1));
    if !(s_in <= s_out) {
        return Toi::miss(ToiStatus::Separating);
    }
    if !(t0 + s_in <= t_max) {
        return Toi::miss(ToiStatus::NotBy);
    }
    let to = (t0 + s_out).min(t_max);
    let hit = |outcome: Advance| toi_of(outcome, t0);
    if s_in > 0.0 {
        return hit(advance(a, b, t0 + s_in, to, shell));
    }
    let (g0, n, p, q) = gap_at(a, b, t0);
    if g0 > shell {
        return hit(advance(a, b, t0, to, shell));
    }
    if n != V::ZERO && approach_speed(a, b, t0, n, p, q) > 0.0 {
        return Toi {
            time: t0,
            status: ToiStatus::Penetrating,
        };
    }
    if g0 > 0.0 {
        return hit(advance(a, b, t0, to, 0.5 * g0));
    }
    if rel != V::ZERO {
        // Touching (round-off) and not approaching, but pulled together: met again when the
        // separation along the normal stops growing.
        let leaving = if n != V::ZERO {
            -approach_speed(a, b, t0, n, p, q)
        } else {
            0.0
        };
        let apex = t0 + (leaving / rel.length()).max(0.0);
        return if apex <= t_max {
            Toi {
                time: apex,
                status: if apex == t0 {
                    ToiStatus::Penetrating
                } else {
                    ToiStatus::Approaching
                },
            }
        } else {
            Toi::miss(ToiStatus::NotBy)
        };
    }
    if a.accel != V::ZERO || !(a.spin_speed() + b.spin_speed() > 0.0) {
        // Touching (round-off), not approaching and moving apart by a translation only: the
        // gap of two convex shapes is convex in time under a constant relative velocity, so
        // from a slope of at least zero it never falls again. Under gravity (both bodies
        // falling alike), touching pairs are the resting contacts of the settling machinery
        // (see the module docs), which a turn of round-off must not wake: left as before.
        return Toi::miss(ToiStatus::Separating);
    }
    turning_contact(a, b, t0, shell, (to, t_max))
}

/// Two bodies touching within round-off at `t0`, not approaching at the gap's witness points,
/// with no pull between them, and turning: another point of the touching features may be
/// coming in (a box turning on a face dips one corner while the other lifts), or the turn may
/// bring one in later. Each point of the contact manifold at `t0` is asked; one approaching is
/// a contact at `t0`. Otherwise the pair is looked at again a contact tolerance's worth of
/// motion later ([`super::contact_tolerance`] over the bound on the speed of any point): apart
/// by then, conservative advancement takes over from there. Still touching (sliding on each
/// other as they turn), the pair is taken as apart: a contact that a turn brings in while two
/// bodies slide on each other is not predicted (a limit, in the module docs).
fn turning_contact<V: Vector>(
    a: &MovingPiece<V>,
    b: &MovingPiece<V>,
    t0: f64,
    shell: f64,
    (to, t_max): (f64, f64),
) -> Toi {
    let (pa, pb) = (a.pose_at(t0), b.pose_at(t0));
    let m = contact_manifold(a.shape, &pa, b.shape, &pb, shell, None);
    let n = m.normal;
    let approaching = n != V::ZERO
        && m.points().iter().any(|c| {
            let at = (c.point_a + c.point_b) * 0.5;
            approach_speed(a, b, t0, n, at, at) > 0.0
        });
    if approaching {
        return Toi {
            time: t0,
            status: ToiStatus::Penetrating,
        };
    }
    let speed =
        (a.linear_velocity(t0) - b.linear_velocity(t0)).length() + a.spin_speed() + b.spin_speed();
    let size = pa.position.length() + pb.position.length();
    let tolerance = super::contact_tolerance(a.radius + b.radius, size, t0, speed);
    // At least an ulp ahead, so that time moves on.
    let t1 = (t0 + tolerance / speed).max(t0.next_up());
    if t1.is_nan() {
        return Toi::miss(ToiStatus::Separating);
    }
    if t1 > to {
        // The bounding spheres part (or the caller's horizon passes) first.
        return Toi::miss(if to < t_max {
            ToiStatus::Separating
        } else {
            ToiStatus::NotBy
        });
    }
    let (g1, ..) = gap_at(a, b, t1);
    if g1 > 0.0 {
        return toi_of(advance(a, b, t1, to, 0.5 * g1), t0);
    }
    // Still touching: sliding on each other as they turn (a ball spinning on a face), where
    // asking again a tolerance later would never end. Left as apart, as a pair that does not
    // turn is: see the module docs' limits.
    Toi::miss(ToiStatus::Separating)
}

/// The first contact of two rigid bodies (at least one not a ball; two balls take
/// [`crate::ball_toi::ball_ball`]). Contacts at or before `t_max` are reported with the same bits
/// whatever `t_max` (`+inf` for every contact); a later one may be a miss
/// ([`ToiStatus::NotBy`]), which spares the advancement past the time a broad phase cares
/// about.
pub fn body_body<V: Vector>(a: &MovingPiece<V>, b: &MovingPiece<V>, t_max: f64) -> Toi {
    let (Some((ba, _)), Some((bb, _))) = (a.body, b.body) else {
        return Toi::miss(ToiStatus::Separating);
    };
    let t0 = ba.time.max(bb.time);
    let ((pa, va), (pb, vb)) = (a.centre_at(t0), b.centre_at(t0));
    let sigma = a.radius + b.radius;
    let shell = SHELL * (a.shell_size() + b.shell_size());
    predict(
        a,
        b,
        t0,
        pb - pa,
        vb - va,
        sigma,
        shell,
        (0.0, f64::INFINITY),
        t_max,
    )
}

/// The first contact of two bodies given by their pieces ([`MovingPiece::pieces`]; a compound body
/// has several): the earliest contact of their pairs of pieces by [`body_body`], so a pure
/// function of the two stored states like it, with the same `t_max` rule. Pairs after a hit
/// are bounded by the earliest contact so far, which changes no reported bits.
pub fn pieces_body_body<'a, V: Vector + 'a>(
    a: impl Iterator<Item = MovingPiece<'a, V>>,
    b: impl Iterator<Item = MovingPiece<'a, V>> + Clone,
    t_max: f64,
) -> Toi {
    let mut best = Toi::miss(ToiStatus::Separating);
    for pa in a {
        for pb in b.clone() {
            let bound = if best.is_hit() { best.time } else { t_max };
            let toi = body_body(&pa, &pb, bound);
            if toi.is_hit() && !(best.is_hit() && toi.time >= best.time) {
                best = toi;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests;
