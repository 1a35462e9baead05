//! Rigid bodies of any convex shape in the event-driven simulation: their rotational state,
//! the prediction of their contacts and the impulse that makes them spin.
//!
//! # The model
//!
//! A rigid body is a [`Body`] (its centre of mass, velocity, local time and inverse mass: the
//! same record as a ball, so every broad phase works on it unchanged) and a [`RigidState`]: the
//! shape (an index into [`crate::world::World::shapes`]), where the shape's local origin lies in
//! the body frame (whose origin is the centre of mass), the rotation and angular velocity at
//! the body's local time, and the inertia tensor. The body's [`Body::radius`] is the shape's
//! bounding radius about its centre of mass, grown by [`RADIUS_MARGIN`]: a sphere that does not
//! change as the body turns and that contains the shape and its contact shell, so that a broad
//! phase, which sees spheres, can only prune pairs that cannot touch. Free flight is a constant
//! linear velocity and the torque-free rotation of [`Vector::spin_at`] (constant angular
//! velocity in 2D and for isotropic bodies in 3D).
//!
//! # Predictions
//!
//! A contact is predicted from the stored states only (a pure function of them, evaluated
//! from the later of the two local times), so every broad phase computes the same bits:
//!
//! 1. **The window.** The two bounding spheres (grown by the shell) can only touch while
//!    `|d + w s| <= R_a + R_b + shell`, an interval given by the stable quadratic: before it
//!    and after it the shapes cannot touch. No interval, no contact.
//! 2. **Conservative advancement** in the window ([`crate::query::toi`] has the proof): GJK's
//!    separating plane and lower bound, each with a bound `μ` on the closing speed
//!    (`n·(v_a − v_b) + |ω_a| R_a + |ω_b| R_b`, the angular speeds bounded by
//!    [`Vector::spin_bound`]), give steps that never skip a contact. The contact is reported
//!    when the gap is at most the **contact shell** `shell = SHELL · (R_a + R_b)` (a ball
//!    counts 0 in this sum); the steps keep
//!    half the shell, so the reported gap lies in `[shell/2, shell]`: the bodies never overlap,
//!    and the time is before the true contact by at most the shell over the closing speed.
//!    Each step is also offered a **second-order** bound (see `query::advancement`): along the fixed
//!    normal the margin is at least that of the shapes moved by their velocity fields, minus
//!    `A s² / 2` for the bound `A = R (|ω|² + |ω̇|)` on the points' acceleration; that bound
//!    is concave in `s`, so a doubled step that still clears the target is certified. Two
//!    bodies **sliding** against each other (a gap of the shell's size that the spin could
//!    close at `|ω| R` but does not) then advance by `√(2 gap / A)`, not `gap / (|ω| R)`.
//! 3. **Inside the shell** at the start (after a response, the pair is still within the shell):
//!    the pair collides at once only when its closest points approach (the relative velocity
//!    of the two witness points along the normal); otherwise the next contact is the first time
//!    the gap falls to half of the present gap `g0`, so a pair that turns into a second contact
//!    (another corner) is caught, still apart. A pair that is within round-off of touching
//!    (`g0 = 0`) and not approaching: pulled together (gravity on one only), it meets again
//!    when the separation along the normal stops growing; moving by translations only, it never
//!    meets again (the gap is convex in time); turning without gravity, every point of the
//!    contact manifold is asked (one approaching is a contact now: a box turning on a face
//!    dips a corner), and otherwise the pair is looked at a contact tolerance's worth of motion
//!    later and advanced from there. **Limits:** a pair still touching then (sliding on each
//!    other as they turn, a ball spinning on a face) and touching pairs under gravity are left
//!    to separate: no contact is predicted until one of the two bodies changes.
//! 4. **No answer within [`MAX_STEPS`] steps** (two bodies turning in place near each other, or
//!    grazing for long): an event at the last safe time, which is no contact. The world finds
//!    the bodies apart there (farther than [`contact_tolerance`]), moves them to that time and
//!    changes nothing else, and the pair is predicted again from there
//!    ([`crate::event::EventKind::Resume`], not logged). Such an event can only come while the
//!    bodies' bounding spheres overlap (two bodies), or while the body's box overlaps the wall
//!    piece's (a wall, see [`crate::ball_toi::box_windows`]): every broad phase asks for the pair then,
//!    so every broad phase processes the same events. A step below the resolution of time
//!    (`t + dt == t`) ends the advancement as a stall
//!    ([`crate::ball_toi::ToiStatus::Stalled`] at that safe time).
//!
//! Two balls keep the exact quadratic of [`crate::ball_toi::ball_ball`] (the caller dispatches);
//! a ball against any other shape goes through the steps above.
//!
//! **Sustained contacts.** A body pressed against another by the motion itself (a spinning
//! body pivoting on another, or a cluster cooled by inelastic collisions) is, in an
//! event-driven model, a dense sequence of collisions: with restitution below 1 the TC model
//! ([`crate::world::World::contact_duration`]) makes the collisions within `t_c` of each other
//! elastic, so they cannot converge to an instant, but they come about `t_c` apart while the
//! contact lasts, each prediction taking many short steps. Resting contact (a body at rest on
//! another, which needs a contact force rather than impulses) is outside this model.
//!
//! Walls: a plane by its exact gap (one support point of the body, the plane's normal on the
//! body's side), segments and polygons as static shapes (a polygon as a fan of triangles), each
//! with the same window, shell and steps.
//!
//! # Compound bodies
//!
//! A body may be made of several convex pieces ([`RigidState::pieces`] consecutive shapes of the
//! world, in one local frame: a concave polygon cut by
//! [`decompose_polygon`](crate::shape::decompose_polygon)). Its [`Body::radius`] bounds them
//! all about the centre of mass; each piece is a [`MovingPiece`] of its own bounding radius
//! ([`MovingPiece::pieces`]), and the body's contact is the earliest of its pairs of pieces
//! ([`pieces_body_body`], [`pieces_body_wall`]): each pair's prediction is exact as above, so the
//! earliest is a pure function of the stored states too, and the contact shell is the whole
//! body's. At the contact every pair of pieces within twice the shell of the nearest gives a
//! contact set with its own normal ([`pieces_contact_sets`]), and [`respond`] applies impulses
//! over all of them.
//!
//! # Response
//!
//! At the event's time the contact's points come from [`contact_manifold`] (polytopes clip
//! their faces; up to 2 points in 2D, 4 in 3D) or, against a plane, from the shape's vertices
//! within the shell of it. The impulse is applied along the normal at a point with the angular
//! terms: `j = (1 + e) u / (1/m_a + 1/m_b + (I_a⁻¹ (r_a × n)) · (r_a × n) + (I_b⁻¹ (r_b × n)) ·
//! (r_b × n))` for an approach speed `u` at that point. The point is the centroid of the
//! approaching contact points weighted by their approach speeds (a box landing flat takes the
//! impulse at the middle of its face and does not start to spin), or the most approaching
//! point when the centroid does not approach; this repeats until no point approaches (at most
//! [`MAX_IMPULSES`] times). Each such impulse with `e = 1` conserves the kinetic energy
//! (linear plus rotational) exactly, and every impulse conserves the linear momentum and the
//! angular momentum about any fixed point.
//!
//! # Files
//!
//! [`RigidState`] and [`MovingPiece`] are in `state.rs`; the conservative advancement's steps in
//! `advance.rs`; the windows and the prediction of two bodies in `predict.rs`; walls (their
//! pieces and the predictions against them) in `walls.rs`; the contact sets in `contact.rs`;
//! the impulses in `response.rs`.
//!
//! [`Body`]: crate::body::Body
//! [`Body::radius`]: crate::body::Body::radius
//! [`Vector::spin_at`]: crate::math::Vector::spin_at
//! [`Vector::spin_bound`]: crate::math::Vector::spin_bound
//! [`contact_manifold`]: crate::query::contact_manifold

// `!(x > 0.0)` on purpose throughout: a NaN takes the safe branch.

mod advance;
mod contact;
mod predict;
mod response;
mod state;
mod walls;

pub(crate) use contact::nearest_sets;
pub use contact::{
    contact_set, pieces_contact_sets, pieces_wall_contact_sets, plane_contact_set, ContactSet,
};
pub use predict::{body_body, pieces_body_body};
pub(crate) use predict::{gap_at, sphere_window};
pub use response::{respond, Side};
pub use state::{MovingPiece, RigidError, RigidState};
pub use walls::{ball_against_wall, ball_static_shape, body_wall, pieces_body_wall, WallPieces};

/// The contact shell relative to the size of a pair (`R_a + R_b`, or the body's bounding radius
/// against a wall): contacts are reported when the gap is at most this times the size.
pub const SHELL: f64 = 1e-7;

/// A rigid body's [`Body::radius`] is its bounding radius about its centre of mass times
/// `1 + RADIUS_MARGIN`: the sphere also contains the contact shell (a ball's radius stays
/// exact: the shell of a pair scales with the radii of its bodies that are not balls, which
/// their margins cover).
///
/// [`Body::radius`]: crate::body::Body::radius
pub const RADIUS_MARGIN: f64 = 1e-6;

/// The most advancement steps of one prediction (see the [module docs](self)).
pub const MAX_STEPS: u32 = 2048;

/// The most a rigid body may turn over a run, in radians (`|ω|` times the duration): a
/// rotation composed over `θ` radians carries a round-off of about `θ ε`, which must stay well
/// below the contact shell ([`SHELL`] of the body's size) for contacts to be found before the
/// bodies overlap. Scenes beyond it are refused.
pub const MAX_TURN: f64 = 1e8;

/// The gap below which a processed rigid event is a contact, and above which it is a
/// prediction that gave up (see [`crate::event::EventKind::Resume`]): twice the largest contact
/// shell of a pair whose bounding radii sum to `reach` (every contact is reported within its
/// shell), or what the resolution of positions (`size`, the magnitudes of the centres) and of
/// time (at local time `t`, for points moving at up to `speed`) can tell apart, when larger.
pub fn contact_tolerance(reach: f64, size: f64, t: f64, speed: f64) -> f64 {
    let tol = 4.0 * SHELL * reach
        + 16.0 * f64::EPSILON * (size + reach)
        + 8.0 * f64::EPSILON * (t.abs() + 1.0) * speed;
    if tol.is_nan() {
        f64::INFINITY
    } else {
        tol
    }
}

/// The most impulses of one response.
pub const MAX_IMPULSES: usize = 16;
