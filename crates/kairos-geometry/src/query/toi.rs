//! Time of impact of two convex shapes in linear and rotational motion, by conservative
//! advancement, started by a GJK ray cast for translating polytopes.
//!
//! # Frames and motion
//!
//! Each shape is given in the body frame of its [`RigidMotion`]: the shape's local origin is the
//! centre of mass the motion rotates about, and the shape is placed at
//! [`RigidMotion::pose_at`]`(t)` at time `t` (constant linear velocity, constant angular velocity
//! about the local origin, rotation integrated exactly).
//!
//! # Algorithm
//!
//! Conservative advancement (Mirtich, *Impulse-based dynamic simulation of rigid body
//! systems*, PhD thesis, Berkeley, 1996, §2.3), with the per-direction motion bound of
//! Zhang, Redon, Lee, Kim, *Continuous collision detection for articulated models using Taylor
//! models and temporal culling*, SIGGRAPH 2007, and *C2A* (Tang, Kim, Manocha, ICRA 2009).
//! From `t = t0`: [`distance`](crate::query::distance) (GJK, warm-started from the previous step's simplex through a
//! [`GjkCache`]) gives the distance and its direction `n` (from `a` to `b`); if the distance is
//! at most `tol`, or GJK reports them intersecting, or [`GjkStatus::Touching`](super::gjk::GjkStatus::Touching) (no certified
//! gap, also from a cold start when the warm one stalled (see [`distance`](crate::query::distance)), and no separating
//! plane along its normal wider than `tol/2`), the shapes are in contact at `t`; otherwise, with `d` a certified
//! lower bound on the separation (below), the time is advanced by `Δt = (d − tol/2) / μ`,
//! where `μ` bounds how fast the gap can close, and the loop repeats. It stops at a contact
//! ([`ToiStatus::Approaching`]), when the next step passes `t1` or the gap can never close
//! ([`ToiStatus::NotBy`]), or after [`ToiOptions::max_iterations`] steps
//! ([`ToiStatus::Stalled`]). The loop is [`super::advancement::advance`], the one the
//! simulation's rigid bodies use too.
//!
//! Two shapes that only translate (both angular velocities zero), neither with a round core
//! (not a ball or capsule, see [`CoreSupport`]), and not two 2D
//! cuboids (whose distance is a closed form, cheaper to advance on), first take the GJK ray cast
//! (van den Bergen, *Ray casting against general convex objects with application to continuous
//! collision detection*, 2004; *Collision Detection in Interactive 3D Environments*, 2003,
//! §5.7.2): contact at `t0 + λ` is the point `λ (v_b − v_a)` entering the Minkowski difference
//! `A − B` of the shapes at `t0`, found in one GJK-like loop on it. Each support point `c` along
//! the current `v` (the ray point minus the nearest point of the simplex) gives a plane
//! `{y : v·y = v·c}` that bounds `A − B`; when the ray point is beyond it by more than `tol/2`,
//! `λ` advances until that margin is `tol/2` (the plane moves with the relative translation,
//! so no contact is passed: this is the advancement step above with `μ = n·(v_a − v_b)`, on a
//! plane through a support point of the whole difference instead of GJK's last normal), and
//! when the ray does not approach the plane, or reaches it only after `t1`, there is no contact
//! ([`ToiStatus::NotBy`]). It stops when the simplex comes within `tol` of the ray point.
//! Advancement then goes on from `t0 + λ`, warm-started from the ray cast's simplex: its first
//! distance query normally finds the contact at once and gives the result (distance, normal,
//! points, features); when the ray cast did not converge (iteration limit of
//! [`GjkOptions::max_iterations`], rounding) advancement simply continues from that safe time.
//! The ray cast counts as one step of [`ToiResult::iterations`]. The answer is that of
//! advancement alone to the tolerance: same status, times within `tol` over the closing speed
//! (`tests/suite/toi_ray_cast.rs`, 6,800 pairs), with one ray loop and one distance query instead of
//! two to four distance queries ([`ToiOptions::linear_ray_cast`] turns it off).
//!
//! Two balls take the closed form instead: a ball's spin does not move its surface, so their
//! first contact is the earlier root of `|d + w t| = r_a + r_b`, computed by the simulator's
//! stable quadratic ([`crate::roots::first_contact`]): exact to round-off (separation 0, one
//! iteration), as the event-driven engine predicts it.
//!
//! # The bound and why it is conservative
//!
//! Let `R_a`, `R_b` be the bounding radii of the shapes about their local origins
//! ([`Shape::bounding_radius`]), `v_a`, `v_b` the linear and `ω_a`, `ω_b` the angular
//! velocities. A point of `a` at offset `r` from its centre moves at `v_a + ω_a × r`, so its
//! speed differs from `v_a` by at most `|ω_a| R_a`; likewise for `b`.
//!
//! The margin along GJK's normal `n` (from `a` to `b`) is measured by one support point of each
//! shape, `d = n·s_b(−n) − n·s_a(n)`: a *separating plane*, every pair of points `p ∈ a`,
//! `q ∈ b` at time `t` has `n · (q − p) ≥ d`. Hold `n` fixed. For any pair of body points,
//!
//! ```text
//! d/ds n·(q(s) − p(s)) = n·(v_b − v_a) + n·(ω_b × r_b) − n·(ω_a × r_a)
//!                      ≥ −[ n·(v_a − v_b) + |ω_a| R_a + |ω_b| R_b ] = −μ,
//! ```
//!
//! so at every `s ≥ t` every pair still has `n·(q − p) ≥ d − μ (s − t)`, and the distance,
//! which is at least the smallest such projection, is positive while `s − t < d / μ`. The step
//! `Δt = (d − tol/2)/μ` keeps at least `tol/2` of that margin: **no contact is skipped**. If
//! `μ ≤ 0` the plane separates the shapes for all later time (the velocities are constant), so
//! there is no contact at all. With pure translation (`ω = 0`) `μ = n·(v_a − v_b)` is the exact
//! closing speed of the current closest features; it still bounds the others because the plane
//! moves with the set. A second margin is GJK's own lower bound on the distance (its best
//! `v·w/|v|`, which may come from another direction than the final normal), paired with the
//! direction-free Lipschitz bound `μ = |v_a − v_b| + |ω_a| R_a + |ω_b| R_b` of the distance
//! itself; each step takes the longer of the two certified steps. When a margin is smaller
//! than `tol`, the step keeps half of it instead of `tol/2`.
//!
//! # Guarantees and tolerances
//!
//! * The contact tolerance is `tol = `[`ToiOptions::relative_tolerance`]` · (R_a + R_b) +
//!   `[`ToiOptions::absolute_tolerance`] (defaults `1e-7` and `0`: a query is scale-invariant,
//!   two balls of radius `1e-15` apart by `1e-15` are apart, not touching). Not smaller by
//!   default: the direction of GJK's normal is the difference of nearly equal points, so at a
//!   gap `g` it is uncertain by about `ε_mach · size / g` radians, and a flat face of extent
//!   `size` seen along it loses `ε_mach · size² / g` of certified margin. That loss passes half
//!   the gap below `g ≈ 2e-8 · size`, where no margin can be certified any more; `1e-7` keeps
//!   a factor of about 25. The time reported then lies before the true contact by at most about
//!   `tol` over the closing speed.
//! * [`ToiStatus::Approaching`] at `time`: the separation at `time` is at most `tol`, and there is no
//!   contact in `[t0, time)`: the reported time is never after the true first contact.
//! * [`ToiStatus::NotBy`]: the shapes do not touch anywhere in `[t0, t1]` (not reported when a
//!   contact exists).
//! * [`ToiStatus::Penetrating`]: the shapes overlap or are within `tol` at `t0`.
//! * [`ToiStatus::Stalled`]: no contact in `[t0, time]`; `time` (the last step's, where
//!   the geometry is) is a safe lower bound on the first contact. Reported after
//!   [`ToiOptions::max_iterations`] steps, and when neither margin can be certified although
//!   the distance exceeds `tol` (a tolerance set below the rounding limit above) or the step
//!   is below the resolution of time.
//! * These hold up to the rounding of the support points and dot products (about
//!   `ε_mach · size`), which the tolerance covers. No NaN: an empty or non-finite interval is
//!   [`ToiStatus::NotBy`], and every division is by a positive `μ`.
//!
//! Near a grazing contact (the gap stays small without closing) the steps become short; the
//! iteration limit bounds the work.
//!
//! ```
//! use kairos_geometry::math::DVec2;
//! use kairos_geometry::query::{time_of_impact, ToiStatus, ToiOptions};
//! use kairos_geometry::shape::{RigidMotion, Pose, Shape};
//! let bar = Shape::cuboid(DVec2::new(2.0, 0.05)).unwrap();
//! let ball = Shape::ball(0.25).unwrap();
//! // The bar spins in place; the ball sits still at distance 1 from its centre.
//! let spin = RigidMotion::new(0.0, Pose::IDENTITY, DVec2::ZERO, 40.0).unwrap();
//! let rest = RigidMotion::at_rest(0.0, Pose::from_position(DVec2::new(0.0, 1.0)));
//! let r = time_of_impact(&bar, &spin, &ball, &rest, 0.0, 1.0, &ToiOptions::default());
//! assert_eq!(r.status, ToiStatus::Approaching);
//! assert!(r.time > 0.0 && r.time < 0.05);
//! assert!(r.distance <= r.tolerance);
//! ```

use crate::math::Vector;
use crate::query::advancement::{advance, Advance, AdvanceOptions, MovingShape};
use crate::query::gjk::{ray_cast, CoreSupport, Feature, GjkCache, GjkOptions, RayCast};
use crate::roots::first_contact;
pub use crate::roots::ToiStatus;
use crate::shape::{Pose, RigidMotion, Shape};

/// The options of [`time_of_impact`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToiOptions {
    /// Contact tolerance relative to the size `R_a + R_b` of the pair. Default `1e-7` (see the
    /// [module docs](self#guarantees-and-tolerances) for why not smaller).
    pub relative_tolerance: f64,
    /// Absolute floor added to the contact tolerance, in length units. Default `0`: the
    /// tolerance scales with the shapes, so a query at size `1e-15` answers as one at size 1.
    pub absolute_tolerance: f64,
    /// The most advancement steps (GJK queries). Default 256.
    pub max_iterations: u32,
    /// The options of each GJK query.
    pub gjk: GjkOptions,
    /// Whether a purely translating pair of shapes without a round core takes the GJK ray cast
    /// before conservative advancement (see the [module docs](self#algorithm)). Default `true`;
    /// `false` runs conservative advancement alone.
    pub linear_ray_cast: bool,
}

impl Default for ToiOptions {
    fn default() -> Self {
        Self {
            relative_tolerance: 1e-7,
            absolute_tolerance: 0.0,
            max_iterations: 256,
            gjk: GjkOptions::default(),
            linear_ray_cast: true,
        }
    }
}

/// The answer of [`time_of_impact`]; the geometry is at [`ToiResult::time`], world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToiResult<V> {
    /// How the query ended.
    pub status: ToiStatus,
    /// The contact time ([`ToiStatus::Approaching`]), `t0` ([`ToiStatus::Penetrating`]), `t1`
    /// ([`ToiStatus::NotBy`]) or the last time measured ([`ToiStatus::Stalled`]).
    pub time: f64,
    /// GJK's distance at `time` (0 when overlapping or for [`ToiStatus::NotBy`]).
    pub distance: f64,
    /// The unit normal from `a` to `b` at `time` (zero when overlapping; all the geometry is
    /// zero for [`ToiStatus::NotBy`]).
    pub normal: V,
    /// The closest point of `a` at `time`.
    pub point_a: V,
    /// The closest point of `b` at `time`.
    pub point_b: V,
    /// The feature of `a` that `point_a` lies on (GJK's, [`Feature::Curved`] for a ball).
    pub feature_a: Feature,
    /// The feature of `b` that `point_b` lies on.
    pub feature_b: Feature,
    /// The contact tolerance used (see the [module docs](self#guarantees-and-tolerances)).
    pub tolerance: f64,
    /// Advancement steps (GJK queries) made.
    pub iterations: u32,
}

/// The first contact in `[t0, t1]` of shape `a` moving by `motion_a` and `b` by `motion_b`,
/// each shape given in its motion's body frame (see the [module docs](self)).
#[must_use]
pub fn time_of_impact<V: Vector>(
    a: &Shape<V>,
    motion_a: &RigidMotion<V>,
    b: &Shape<V>,
    motion_b: &RigidMotion<V>,
    t0: f64,
    t1: f64,
    options: &ToiOptions,
) -> ToiResult<V> {
    let (ra, rb) = (a.bounding_radius(), b.bounding_radius());
    let tol = options.relative_tolerance.max(0.0) * (ra + rb) + options.absolute_tolerance.max(0.0);
    let mut out = ToiResult {
        status: ToiStatus::NotBy,
        time: if t0.is_finite() { t0 } else { 0.0 },
        distance: 0.0,
        normal: V::ZERO,
        point_a: V::ZERO,
        point_b: V::ZERO,
        feature_a: Feature::Curved,
        feature_b: Feature::Curved,
        tolerance: tol,
        iterations: 0,
    };
    if !(t0.is_finite() && t1.is_finite() && t0 <= t1) {
        return out;
    }
    if let (Shape::Ball(ba), Shape::Ball(bb)) = (a, b) {
        return ball_ball(ba.radius(), motion_a, bb.radius(), motion_b, t0, t1, out);
    }
    let v_rel = motion_a.linear_velocity - motion_b.linear_velocity;
    let spin = motion_a.angular_speed() * ra + motion_b.angular_speed() * rb;
    // Without spin the rotations are the same at every time (`RigidMotion::pose_at` integrates a zero
    // rotation to the same value, bit for bit): computed once.
    let (rot_a, rot_b) = (motion_a.pose_at(t0).rotation, motion_b.pose_at(t0).rotation);
    let pose_at = |m: &RigidMotion<V>, rot: V::Rotation, t: f64| {
        if spin == 0.0 {
            Pose::new(m.pose.position + m.linear_velocity * (t - m.time), rot)
        } else {
            m.pose_at(t)
        }
    };
    let mut cache = GjkCache::default();
    let mut t = t0;
    if options.linear_ray_cast
        && spin == 0.0
        && a.core_radius() == 0.0
        && b.core_radius() == 0.0
        && v_rel != V::ZERO
        && v_rel.is_finite()
        // Two 2D boxes: their distance is a closed form, and advancement on it is cheaper.
        && !(V::DIM == 2 && matches!((a, b), (Shape::Cuboid(_), Shape::Cuboid(_))))
    {
        let (pa, pb) = (pose_at(motion_a, rot_a, t0), pose_at(motion_b, rot_b, t0));
        let max_it = options.gjk.max_iterations.max(2);
        out.iterations = 1;
        match ray_cast(a, &pa, b, &pb, -v_rel, t1 - t0, tol, max_it, &mut cache) {
            RayCast::Miss => return none(out, t1),
            // Within tol/2 at the hit (or not converged): conservative advancement decides
            // and measures from there, warm-started from the ray cast's simplex.
            RayCast::Hit(lambda) | RayCast::Stalled(lambda) => t = (t0 + lambda).min(t1),
        }
    }
    // Without spin the rotations are the same at every time: computed once.
    let fixed = |rot| (spin == 0.0).then_some(rot);
    let (moved_a, moved_b) = (
        Moved {
            shape: a,
            motion: motion_a,
            radius: ra,
            rotation: fixed(rot_a),
        },
        Moved {
            shape: b,
            motion: motion_b,
            radius: rb,
            rotation: fixed(rot_b),
        },
    );
    let adv = advance(
        &moved_a,
        &moved_b,
        t,
        t1,
        &AdvanceOptions {
            target: tol,
            max_steps: options.max_iterations.saturating_sub(out.iterations),
            curved_steps: false,
            gjk: options.gjk,
        },
        &mut cache,
    );
    out.iterations += adv.steps;
    if let Some(g) = adv.gjk {
        out.time = adv.measured_at;
        out.distance = g.distance;
        out.normal = g.normal;
        out.point_a = g.point_a;
        out.point_b = g.point_b;
        out.feature_a = g.feature_a;
        out.feature_b = g.feature_b;
    }
    match adv.outcome {
        Advance::Contact(t) => {
            out.status = if t == t0 {
                ToiStatus::Penetrating
            } else {
                ToiStatus::Approaching
            };
            out
        }
        Advance::Clear => none(out, t1),
        Advance::Stalled(_) => {
            out.status = ToiStatus::Stalled;
            out
        }
    }
}

/// A shape moving by a [`RigidMotion`], for [`advance`]; `rotation` is the rotation at every time
/// when the pair does not spin (`RigidMotion::pose_at` would integrate a zero rotation to the same
/// value, bit for bit).
struct Moved<'a, V: Vector> {
    shape: &'a Shape<V>,
    motion: &'a RigidMotion<V>,
    radius: f64,
    rotation: Option<V::Rotation>,
}

impl<V: Vector> MovingShape<V> for Moved<'_, V> {
    fn shape(&self) -> &Shape<V> {
        self.shape
    }
    #[inline]
    fn pose_at(&self, t: f64) -> Pose<V> {
        let m = self.motion;
        match self.rotation {
            Some(rot) => Pose::new(m.pose.position + m.linear_velocity * (t - m.time), rot),
            None => m.pose_at(t),
        }
    }
    #[inline]
    fn linear_velocity(&self, _t: f64) -> V {
        self.motion.linear_velocity
    }
    fn spin_speed(&self) -> f64 {
        self.motion.angular_speed() * self.radius
    }
    fn acceleration(&self) -> V {
        V::ZERO
    }
    fn acceleration_bound(&self) -> f64 {
        let w = self.motion.angular_speed();
        self.radius * w * w
    }
    fn centre_and_spin(&self, t: f64) -> (V, V::Angular) {
        (self.pose_at(t).position, self.motion.angular_velocity)
    }
}

/// Two balls: the exact first contact of the simulator's solver ([`first_contact`], a stable
/// quadratic root), whatever their spin, since a ball's rotation does not move its surface.
fn ball_ball<V: Vector>(
    ra: f64,
    motion_a: &RigidMotion<V>,
    rb: f64,
    motion_b: &RigidMotion<V>,
    t0: f64,
    t1: f64,
    mut out: ToiResult<V>,
) -> ToiResult<V> {
    let (xa, xb) = (motion_a.pose_at(t0).position, motion_b.pose_at(t0).position);
    let w = motion_b.linear_velocity - motion_a.linear_velocity;
    out.iterations = 1;
    let dt = if (xb - xa).length() <= ra + rb + out.tolerance {
        0.0
    } else {
        let toi = first_contact(xb - xa, w, ra + rb);
        if !(toi.is_hit() && toi.time <= t1 - t0) {
            return none(out, t1);
        }
        toi.time
    };
    let t = t0 + dt;
    let (ca, cb) = (
        xa + motion_a.linear_velocity * dt,
        xb + motion_b.linear_velocity * dt,
    );
    let d = cb - ca;
    let len = d.length();
    out.status = if dt == 0.0 {
        ToiStatus::Penetrating
    } else {
        ToiStatus::Approaching
    };
    out.time = t;
    out.distance = (len - ra - rb).max(0.0);
    if len > 0.0 {
        out.normal = d * (1.0 / len);
        out.point_a = ca + out.normal * ra;
        out.point_b = cb - out.normal * rb;
    } else {
        out.point_a = ca;
        out.point_b = cb;
    }
    out
}

/// No contact up to `t1`.
fn none<V: Vector>(out: ToiResult<V>, t1: f64) -> ToiResult<V> {
    ToiResult {
        status: ToiStatus::NotBy,
        time: t1,
        distance: 0.0,
        normal: V::ZERO,
        point_a: V::ZERO,
        point_b: V::ZERO,
        ..out
    }
}
