//! Conservative advancement: the one loop behind every contact time of two convex shapes
//! (by GJK) without a closed form, used by [`super::time_of_impact`] (`kairos query`, the
//! mesh pieces, the benches) and by the simulation's rigid bodies (`crate::rigid`). A body
//! against a plane wall advances on the plane's exact gap instead (`rigid`'s walls), and two
//! meshes by D2M (`crate::ccd`). The proof that it never steps past a contact is in
//! [`super::toi`]'s module docs; the second-order step of sliding contacts is
//! `curved_step`'s.
//!
//! The shapes move by anything that implements [`MovingShape`]: a constant linear and angular
//! velocity ([`crate::shape::RigidMotion`], the queries'), or a body's free rotation under uniform
//! acceleration (the simulation's movers). The loop asks each for its pose, the velocity of its
//! centre and a bound on how fast its rotation moves a point; the options say how close counts
//! as contact, how many steps to take, and whether the second-order step is tried.

// `!(x > 0.0)` on purpose throughout: a NaN takes the safe branch.

use crate::math::Vector;
use crate::query::gjk::{distance, GjkCache, GjkOptions, GjkResult, GjkStatus};
use crate::shape::{Pose, Shape, SupportMap};

/// A convex shape in motion, as conservative advancement sees it. Times are absolute.
pub trait MovingShape<V: Vector> {
    /// The shape, in its own frame (placed by [`MovingShape::pose_at`]).
    fn shape(&self) -> &Shape<V>;
    /// The shape's pose at `t`.
    fn pose_at(&self, t: f64) -> Pose<V>;
    /// The velocity at `t` of the point the rotation turns about (the centre of mass).
    fn linear_velocity(&self, t: f64) -> V;
    /// `|ω| R`: a bound, for all times, on how fast the rotation moves a point of the shape
    /// relative to its centre.
    fn spin_speed(&self) -> f64;
    /// The constant acceleration of the centre (zero for constant velocities).
    fn acceleration(&self) -> V;
    /// `R (|ω|² + |ω̇|)`: a bound on the acceleration of any point of the shape relative to its
    /// centre (used by the second-order step only).
    fn acceleration_bound(&self) -> f64;
    /// The centre and the angular velocity at `t` (used by the second-order step only).
    fn centre_and_spin(&self, t: f64) -> (V, V::Angular);
}

/// The options of [`advance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdvanceOptions {
    /// The gap at which the shapes are in contact (each step keeps half of it).
    pub target: f64,
    /// The most steps (GJK queries).
    pub max_steps: u32,
    /// Whether each step also tries the second-order bound of `curved_step`, which lets
    /// sliding or spinning contacts advance by `√(2 gap / A)` instead of `gap / (|ω| R)`.
    pub curved_steps: bool,
    /// The options of each GJK query.
    pub gjk: GjkOptions,
}

/// How an advancement ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Advance {
    /// Within the target gap at this time (or GJK found them touching or intersecting).
    Contact(f64),
    /// No contact in the window.
    Clear,
    /// No certified step at this time (the margin is below rounding, or the step is below the
    /// resolution of time there), or the step limit was reached at it: no contact before it.
    Stalled(f64),
}

/// The outcome of [`advance`], with the last GJK query's answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Advancement<V> {
    /// How it ended.
    pub outcome: Advance,
    /// The time of the last GJK query (`from` when none was made).
    pub measured_at: f64,
    /// The last GJK query's answer (`None` when none was made).
    pub gjk: Option<GjkResult<V>>,
    /// Steps (GJK queries) made.
    pub steps: u32,
}

/// The advancement step that keeps `min(keep, margin / 2)` of a certified `margin` closing at
/// speed at most `mu` ([`super::toi`]'s module docs); 0 when there is no positive margin or
/// closing speed.
#[inline]
pub(crate) fn certified_step(margin: f64, mu: f64, keep: f64) -> f64 {
    if margin > 0.0 && mu > 0.0 {
        (margin - keep.min(0.5 * margin)) / mu
    } else {
        0.0
    }
}

/// `certified_step` when the closing speed may also grow at `acc` (a relative acceleration of
/// the centres): the longest `s` with `mu s + acc s² / 2` at most the margin less what must be
/// kept, by the stable root. Equal to `certified_step` when `acc = 0`.
pub fn certified_step_accel(margin: f64, mu: f64, acc: f64, keep: f64) -> f64 {
    if !(acc > 0.0) {
        return certified_step(margin, mu, keep);
    }
    if !(margin > 0.0) {
        return 0.0;
    }
    let room = margin - keep.min(0.5 * margin);
    let s = 2.0 * room / (mu + (mu * mu + 2.0 * acc * room).sqrt());
    if s.is_finite() && s > 0.0 {
        s
    } else {
        0.0
    }
}

/// The gradient `g` of the linear map `r ↦ n · (ω × r)`: `g = n × ω` in 3D.
fn spin_gradient<V: Vector>(omega: V::Angular, n: V) -> V {
    let mut g = [0.0; 3];
    for (k, x) in g.iter_mut().enumerate().take(V::DIM) {
        *x = n.dot(V::angular_cross(omega, V::unit(k)));
    }
    V::from_array3(g)
}

/// The longest step the second-order bound certifies, at least `first` (a step already
/// certified); at least `room` when the bound certifies all of it.
///
/// Along a fixed normal `n` (from `a` to `b`), the margin `m(s) = min_b n·x − max_a n·x` of the
/// shapes `s` after `t` is at least `m_lin(s) − A s² / 2`, where `m_lin` is the margin of the
/// shapes moved by their velocity fields at `t` (each point `x` to `x + s (v + ω × r)`) and `A`
/// bounds the acceleration of any of their points (`R (|ω|² + |ω̇|)` each): every point's
/// distance along `n` is within `A s² / 2` of its linear extrapolation. The shape moved by its
/// velocity field has the support of the shape at `t` in the direction `n + s (n × ω)`, so
/// `m_lin` takes one support point of each shape, and it is concave in `s` (an affine function
/// minus two support functions, convex in their direction); so is the bound. A concave function
/// that exceeds `keep` at `0` and at `s` exceeds it on all of `[0, s]`: each doubling of the
/// step that still exceeds `keep` is certified. This is what lets two bodies that slide against
/// each other (a gap of the shell's size that does not close, and a spin that the first-order
/// bound must assume could close it at `|ω| R`) advance by `√(2 gap / A)` instead of
/// `gap / (|ω| R)`.
#[allow(clippy::too_many_arguments)]
fn curved_step<V: Vector, A: MovingShape<V>, B: MovingShape<V>>(
    a: &A,
    b: &B,
    t: f64,
    pa: &Pose<V>,
    pb: &Pose<V>,
    n: V,
    plane: f64,
    keep: f64,
    first: f64,
    room: f64,
) -> f64 {
    let acc = a.acceleration_bound()
        + b.acceleration_bound()
        + (a.acceleration() - b.acceleration()).length();
    if !(plane > keep && acc.is_finite()) {
        return first;
    }
    let (ca, wa) = a.centre_and_spin(t);
    let (cb, wb) = b.centre_and_spin(t);
    let (ga, gb) = (spin_gradient::<V>(wa, n), spin_gradient::<V>(wb, n));
    let closing = n.dot(b.linear_velocity(t) - a.linear_velocity(t));
    let base = n.dot(cb - ca);
    let bound = |s: f64| {
        let da = n + ga * s;
        let db = -(n + gb * s);
        let ha = da.dot(a.shape().support(pa, da) - ca);
        let hb = db.dot(b.shape().support(pb, db) - cb);
        base + closing * s - ha - hb - 0.5 * acc * s * s
    };
    // The trials depend on the state at `t` only, never on `room` (which only stops the
    // growth): a prediction bounded by a broad phase's `t_max` takes the same steps as an
    // unbounded one up to `t_max`, so both report the same contacts by then.
    let mut ok = first;
    let start = if acc > 0.0 {
        (2.0 * (plane - keep) / acc).sqrt()
    } else {
        2.0 * first
    }
    .max(2.0 * first);
    if bound(start) > keep {
        ok = start;
        for _ in 0..64 {
            if ok >= room {
                break;
            }
            let s = 2.0 * ok;
            if !(bound(s) > keep) {
                break;
            }
            ok = s;
        }
    }
    ok
}

/// Conservative advancement of `a` and `b` over `[from, to]` until their gap is at most
/// `options.target`: never past the first contact (see [`super::toi`]'s module docs), a pure
/// function of the two motions and the window. `cache` warm-starts the first GJK query (and
/// holds the last one's simplex after).
pub fn advance<V: Vector, A: MovingShape<V>, B: MovingShape<V>>(
    a: &A,
    b: &B,
    from: f64,
    to: f64,
    options: &AdvanceOptions,
    cache: &mut GjkCache<V>,
) -> Advancement<V> {
    let spin = a.spin_speed() + b.spin_speed();
    // A relative acceleration of the centres (gravity against a sleeping body or a wall) makes
    // the closing speed grow: the steps then bound the closing distance by `μ s + A s² / 2`.
    let acc = (a.acceleration() - b.acceleration()).length();
    let target = options.target;
    let mut out = Advancement {
        outcome: Advance::Stalled(from),
        measured_at: from,
        gjk: None,
        steps: 0,
    };
    let mut t = from;
    while out.steps < options.max_steps {
        let v_rel = a.linear_velocity(t) - b.linear_velocity(t);
        let lipschitz = v_rel.length() + spin;
        let (pa, pb) = (a.pose_at(t), b.pose_at(t));
        let g = distance(a.shape(), &pa, b.shape(), &pb, &options.gjk, Some(cache));
        out.steps += 1;
        out.measured_at = t;
        out.gjk = Some(g);
        // The separating plane along GJK's normal, measured by one support point of each
        // shape: a certified margin whenever it is positive, whatever GJK's status.
        let n = g.normal;
        let plane =
            if matches!(g.status, GjkStatus::Separated | GjkStatus::Touching) && n != V::ZERO {
                n.dot(b.shape().support(&pb, -n)) - n.dot(a.shape().support(&pa, n))
            } else {
                f64::NEG_INFINITY
            };
        // Touching: GJK could not certify a gap; unless the plane does, this is a contact,
        // never a separation.
        let touching = g.status == GjkStatus::Touching && !(plane > 0.5 * target);
        if g.status == GjkStatus::Intersecting || touching || g.distance <= target {
            out.outcome = Advance::Contact(t);
            return out;
        }
        // Two certified margins, each with its closing-speed bound: the plane above, and
        // GJK's lower bound with the direction-free bound.
        let mu_plane = v_rel.dot(n) + spin;
        if plane > 0.0 && !(mu_plane > 0.0) && acc == 0.0 {
            // The plane separates the shapes for all later time.
            out.outcome = Advance::Clear;
            return out;
        }
        let keep = 0.5 * target;
        let first = certified_step_accel(plane, mu_plane, acc, keep).max(certified_step_accel(
            g.lower_bound,
            lipschitz,
            acc,
            keep,
        ));
        let room = to - t;
        let dt = if options.curved_steps {
            curved_step(a, b, t, &pa, &pb, n, plane, keep, first, room)
        } else {
            first
        };
        if !(dt > 0.0) {
            // No certified margin (GJK's rounding): stop at this safe time.
            out.outcome = Advance::Stalled(t);
            return out;
        }
        if !(t + dt <= to) || dt >= room {
            out.outcome = Advance::Clear;
            return out;
        }
        if t + dt == t {
            // The step is below the resolution of time here: a stall at a safe time (the
            // simulation then decides by the gap whether the event is a contact).
            out.outcome = Advance::Stalled(t);
            return out;
        }
        t += dt;
    }
    out.outcome = Advance::Stalled(t);
    out
}
