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
//!    (`g0 = 0`) and not approaching is left to separate: no contact is predicted until one of
//!    the two bodies changes.
//! 4. **No answer within [`MAX_STEPS`] steps** (two bodies turning in place near each other, or
//!    grazing for long): an event at the last safe time, which is no contact. The world finds
//!    the bodies apart there (farther than [`contact_tolerance`]), moves them to that time and
//!    changes nothing else, and the pair is predicted again from there
//!    ([`crate::event::EventKind::Resume`], not logged). Such an event can only come while the
//!    bodies' bounding spheres overlap (two bodies), or while the body's box overlaps the wall
//!    piece's (a wall, see [`crate::toi::box_windows`]): every broad phase asks for the pair then,
//!    so every broad phase processes the same events. A step below the resolution of time
//!    (`t + dt == t`) ends the advancement as a contact at that resolution.
//!
//! Two balls keep the exact quadratic of [`crate::toi::ball_ball`] (the caller dispatches);
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
//! all about the centre of mass; each piece is a [`Mover`] of its own bounding radius
//! ([`Mover::pieces`]), and the body's contact is the earliest of its pairs of pieces
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

// `!(x > 0.0)` on purpose throughout: a NaN takes the safe branch.

use crate::body::Body;
use crate::math::{Rotation, Vector};
use crate::query::advancement::certified_step_accel;
use crate::query::{
    self, contact_manifold, distance, penetration, sat::as_polytope, Advance, AdvanceOptions,
    EpaOptions, GjkCache, GjkOptions, GjkStatus, MovingShape,
};
use crate::shape::{MassProperties, Pose, Shape, SupportMap};
use crate::toi::{box_windows, first_zero_quadratic, window_accel, Toi, ToiStatus};
use crate::wall::{Plane, StaticShape, Wall};

/// The contact shell relative to the size of a pair (`R_a + R_b`, or the body's bounding radius
/// against a wall): contacts are reported when the gap is at most this times the size.
pub const SHELL: f64 = 1e-7;

/// A rigid body's [`Body::radius`] is its bounding radius about its centre of mass times
/// `1 + RADIUS_MARGIN`: the sphere also contains the contact shell (a ball's radius stays
/// exact: the shell of a pair scales with the radii of its bodies that are not balls, which
/// their margins cover).
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

/// Why a rigid body was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RigidError {
    /// The inertia tensor is not positive definite and finite.
    #[error("the inertia must be positive definite and finite")]
    Inertia,
    /// The mass is not positive and finite.
    #[error("the mass must be positive and finite, got {0}")]
    Mass(f64),
    /// The inertia tensor overflows: mass times size squared is beyond `f64` (about 1.8e308).
    #[error(
        "the inertia overflows (mass {mass:e} times size squared is beyond 1.8e308): give a smaller mass or density"
    )]
    InertiaOverflow {
        /// The body's mass.
        mass: f64,
    },
}

/// The rotational state of a rigid body (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct RigidState<V: Vector> {
    /// The body's shape: an index into [`crate::world::World::shapes`] (a compound body's
    /// first piece).
    pub shape: u32,
    /// How many shapes the body is made of, from [`RigidState::shape`] on: 1 for a convex
    /// body, more for a compound of convex pieces (all in the one local frame).
    pub pieces: u32,
    /// Where the shape's local origin lies in the body frame (minus the shape's centre of
    /// mass, in the shape's axes).
    pub offset: V,
    /// The rotation at the body's local time.
    pub rotation: V::Rotation,
    /// The angular velocity (world frame) at the body's local time.
    pub angular_velocity: V::Angular,
    /// The inertia tensor about the centre of mass, body axes.
    pub inertia: V::Inertia,
    /// Its inverse.
    pub inv_inertia: V::Inertia,
    /// The shape's bounding radius about the centre of mass.
    pub radius: f64,
    /// A mesh body's mesh: an index into [`crate::world::World::meshes`] (its pieces are then
    /// the mesh's triangles, see [`crate::rigid_mesh`]); `None` for other bodies.
    pub mesh: Option<u32>,
    spin: V::Spin,
}

impl<V: Vector> RigidState<V> {
    /// The state of a body of `shape` (index `shape_id`) with mass properties `props` (for
    /// the body's mass and inertia), at `rotation` spinning at `angular_velocity`.
    pub fn new(
        shape_id: u32,
        shape: &Shape<V>,
        props: &MassProperties<V>,
        rotation: V::Rotation,
        angular_velocity: V::Angular,
    ) -> Result<Self, RigidError> {
        Self::of_pieces(
            shape_id,
            std::slice::from_ref(shape),
            props,
            rotation,
            angular_velocity,
        )
    }
    /// [`RigidState::new`] for a body made of the convex `pieces` (indices `first..first +
    /// pieces.len()`), all in one local frame; `props` are the whole body's
    /// ([`MassProperties::combined`]).
    ///
    /// # Panics
    /// When `pieces` is empty.
    pub fn of_pieces(
        first: u32,
        pieces: &[Shape<V>],
        props: &MassProperties<V>,
        rotation: V::Rotation,
        angular_velocity: V::Angular,
    ) -> Result<Self, RigidError> {
        assert!(!pieces.is_empty(), "a body has at least one shape");
        if !(props.mass > 0.0 && props.mass.is_finite()) {
            return Err(RigidError::Mass(props.mass));
        }
        if !V::inertia_is_finite(props.inertia) {
            return Err(RigidError::InertiaOverflow { mass: props.mass });
        }
        let inv_inertia = V::inertia_inverse(props.inertia).ok_or(RigidError::Inertia)?;
        let radius = pieces
            .iter()
            .map(|p| p.bounding_radius_about(props.centre_of_mass))
            .fold(0.0, f64::max);
        Ok(Self {
            shape: first,
            pieces: pieces.len() as u32,
            offset: -props.centre_of_mass,
            rotation,
            angular_velocity,
            inertia: props.inertia,
            inv_inertia,
            radius,
            mesh: None,
            spin: V::spin(props.inertia, rotation, angular_velocity),
        })
    }
    /// A rigid body of `shape` (index `shape_id` in the world's shapes) with mass properties
    /// `props`, the shape's local frame placed at `pose` (so its centre of mass is at
    /// `pose.transform_point(props.centre_of_mass)`), its centre of mass moving at `velocity`
    /// and the body spinning at `angular_velocity`, at time 0: the [`Body`] (radius grown by
    /// [`RADIUS_MARGIN`]) and its [`RigidState`].
    pub fn body(
        shape_id: u32,
        shape: &Shape<V>,
        props: &MassProperties<V>,
        pose: &Pose<V>,
        velocity: V,
        angular_velocity: V::Angular,
    ) -> Result<(Body<V>, Self), RigidError> {
        Self::body_of_pieces(
            shape_id,
            std::slice::from_ref(shape),
            props,
            pose,
            velocity,
            angular_velocity,
        )
    }
    /// [`RigidState::body`] for a body made of the convex `pieces` (see
    /// [`RigidState::of_pieces`]).
    ///
    /// # Panics
    /// When `pieces` is empty.
    pub fn body_of_pieces(
        first: u32,
        pieces: &[Shape<V>],
        props: &MassProperties<V>,
        pose: &Pose<V>,
        velocity: V,
        angular_velocity: V::Angular,
    ) -> Result<(Body<V>, Self), RigidError> {
        let state = Self::of_pieces(first, pieces, props, pose.rotation, angular_velocity)?;
        let centre = pose.transform_point(props.centre_of_mass);
        // A ball's sphere is its shape: its radius stays exact, for the balls' exact predictions.
        let radius = if matches!(pieces, [Shape::Ball(_)]) {
            state.radius
        } else {
            state.radius * (1.0 + RADIUS_MARGIN)
        };
        Ok((Body::new(centre, velocity, radius, props.mass), state))
    }
    /// The rotation and angular velocity `dt` after the stored state.
    #[inline]
    pub fn at(&self, dt: f64) -> (V::Rotation, V::Angular) {
        if dt == 0.0 {
            (self.rotation, self.angular_velocity)
        } else {
            V::spin_at(&self.spin, dt)
        }
    }
    /// Moves the stored rotation `dt` ahead (the body's [`Body::advance_to`] moves the rest).
    #[inline]
    pub fn advance(&mut self, dt: f64) {
        if dt != 0.0 {
            let (r, w) = V::spin_at(&self.spin, dt);
            self.rotation = r;
            self.angular_velocity = w;
            self.spin = V::spin(self.inertia, r, w);
        }
    }
    /// Sets the angular velocity at the stored time.
    #[inline]
    pub fn set_angular_velocity(&mut self, w: V::Angular) {
        self.angular_velocity = w;
        self.spin = V::spin(self.inertia, self.rotation, w);
    }
    /// A bound on the angular speed at every time.
    #[inline]
    pub fn spin_bound(&self) -> f64 {
        V::spin_bound(&self.spin)
    }
    /// A bound on how fast the angular velocity changes (0 for a constant one).
    #[inline]
    pub fn spin_acceleration_bound(&self) -> f64 {
        V::spin_acceleration_bound(&self.spin)
    }
    /// The angular momentum about the centre of mass, world frame.
    #[inline]
    pub fn angular_momentum(&self) -> V::Angular {
        V::inertia_apply(self.rotation, self.inertia, self.angular_velocity)
    }
    /// The rotational kinetic energy `ω · L / 2`.
    #[inline]
    pub fn energy(&self) -> f64 {
        0.5 * V::angular_dot(self.angular_velocity, self.angular_momentum())
    }
    /// The pose of the shape for the body's centre at `centre` turned by `rotation`.
    #[inline]
    pub fn shape_pose(&self, centre: V, rotation: V::Rotation) -> Pose<V> {
        Pose::new(centre + rotation.rotate(self.offset), rotation)
    }
}

/// A body with its rotational state and shape, or a static shape (a wall piece).
#[derive(Clone, Copy, Debug)]
pub struct Mover<'a, V: Vector> {
    /// The shape.
    pub shape: &'a Shape<V>,
    /// The body and its rotational state; `None` for a static shape (placed at
    /// [`Mover::place`]).
    pub body: Option<(&'a Body<V>, &'a RigidState<V>)>,
    /// Where a static shape's local frame is (the identity for pieces given in world
    /// coordinates); unused for a body.
    pub place: Pose<V>,
    /// The constant acceleration of the centre of mass (uniform gravity; zero for a static
    /// shape or a sleeping body).
    pub accel: V,
    /// For a body, the bounding radius of [`Mover::shape`] about the centre of mass: the
    /// body's [`RigidState::radius`], or less for one piece of a compound body (unused for a
    /// static shape).
    pub radius: f64,
}

impl<'a, V: Vector> Mover<'a, V> {
    /// A moving body.
    pub fn body(shape: &'a Shape<V>, body: &'a Body<V>, rigid: &'a RigidState<V>) -> Self {
        Self::piece(shape, rigid.radius, body, rigid)
    }
    /// One convex piece of a moving compound body, whose bounding radius about the body's
    /// centre of mass is `radius`.
    pub fn piece(
        shape: &'a Shape<V>,
        radius: f64,
        body: &'a Body<V>,
        rigid: &'a RigidState<V>,
    ) -> Self {
        Self {
            shape,
            body: Some((body, rigid)),
            place: Pose::IDENTITY,
            accel: V::ZERO,
            radius,
        }
    }
    /// The movers of the pieces of a body (one for a convex body) made of `shapes` (the
    /// world's shapes, of which the body's are `rigid.shape..rigid.shape + rigid.pieces`),
    /// accelerated by `accel`.
    pub fn pieces(
        shapes: &'a [Shape<V>],
        body: &'a Body<V>,
        rigid: &'a RigidState<V>,
        accel: V,
    ) -> impl Iterator<Item = Mover<'a, V>> + Clone + 'a {
        let first = rigid.shape as usize;
        let own = &shapes[first..first + rigid.pieces as usize];
        let single = own.len() == 1;
        own.iter().map(move |shape| {
            // A compound's piece is bounded by its own sphere about the centre of mass.
            let radius = if single {
                rigid.radius
            } else {
                shape.bounding_radius_about(-rigid.offset)
            };
            Self::piece(shape, radius, body, rigid).with_accel(accel)
        })
    }
    /// A static shape in world coordinates.
    pub fn fixed(shape: &'a Shape<V>) -> Self {
        Self::placed(shape, Pose::IDENTITY)
    }
    /// A static shape whose local frame is placed at `pose`.
    pub fn placed(shape: &'a Shape<V>, pose: Pose<V>) -> Self {
        Self {
            shape,
            body: None,
            place: pose,
            accel: V::ZERO,
            radius: 0.0,
        }
    }
    /// The same mover with its centre of mass accelerated by `accel` (see [`Mover::accel`]).
    pub fn with_accel(self, accel: V) -> Self {
        Self { accel, ..self }
    }
    /// The centre of mass's position and velocity at `t` (zero for a static shape).
    #[inline]
    pub(crate) fn centre_at(&self, t: f64) -> (V, V) {
        match self.body {
            None => (V::ZERO, V::ZERO),
            Some((b, _)) => b.state_at_accel(t, self.accel),
        }
    }
    /// The shape's pose at `t`.
    #[inline]
    pub fn pose_at(&self, t: f64) -> Pose<V> {
        match self.body {
            None => self.place,
            Some((b, r)) => r.shape_pose(self.centre_at(t).0, r.at(t - b.time).0),
        }
    }
    /// The velocity at `t` of the body point at world position `p`.
    #[inline]
    pub fn velocity_at(&self, t: f64, p: V) -> V {
        match self.body {
            None => V::ZERO,
            Some((b, r)) => {
                let (c, v) = self.centre_at(t);
                v + V::angular_cross(r.at(t - b.time).1, p - c)
            }
        }
    }
    /// The centre of mass's velocity at `t`.
    pub(crate) fn linear_velocity(&self, t: f64) -> V {
        self.centre_at(t).1
    }
    /// `|ω| R`: how fast the rotation can move a point of the shape.
    pub(crate) fn spin_speed(&self) -> f64 {
        self.body.map_or(0.0, |(_, r)| r.spin_bound() * self.radius)
    }
    /// `R (|ω|² + |ω̇|)`: a bound on the acceleration of any point of the shape (bounds of
    /// the spin's speed and acceleration).
    fn acceleration_bound(&self) -> f64 {
        self.body.map_or(0.0, |(_, r)| {
            let w = r.spin_bound();
            self.radius * (w * w + V::spin_acceleration_bound(&r.spin))
        })
    }
    /// The size the contact shell scales with: the bounding radius, or 0 for a ball (whose
    /// sphere is exact and not grown, see [`RigidState::body`]).
    fn shell_size(&self) -> f64 {
        match (self.body, self.shape) {
            (_, Shape::Ball(_)) | (None, _) => 0.0,
            (Some((_, r)), _) => r.radius,
        }
    }
    /// The centre of mass and angular velocity at `t` (zero for a static shape).
    fn centre_and_spin(&self, t: f64) -> (V, V::Angular) {
        match self.body {
            None => (V::ZERO, V::Angular::default()),
            Some((b, r)) => (self.centre_at(t).0, r.at(t - b.time).1),
        }
    }
}

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
    let disc = crate::toi::discriminant(d, w, sigma, a, b, c);
    if !(disc > 0.0) {
        return None;
    }
    let q = disc.sqrt() - b;
    let (s_in, s_out) = (c / q, q / a);
    (s_in.is_finite() && s_out >= s_in).then_some((s_in, s_out))
}

impl<V: Vector> MovingShape<V> for Mover<'_, V> {
    #[inline]
    fn shape(&self) -> &Shape<V> {
        self.shape
    }
    #[inline]
    fn pose_at(&self, t: f64) -> Pose<V> {
        Mover::pose_at(self, t)
    }
    #[inline]
    fn linear_velocity(&self, t: f64) -> V {
        Mover::linear_velocity(self, t)
    }
    #[inline]
    fn spin_speed(&self) -> f64 {
        Mover::spin_speed(self)
    }
    #[inline]
    fn acceleration(&self) -> V {
        self.accel
    }
    fn acceleration_bound(&self) -> f64 {
        Mover::acceleration_bound(self)
    }
    fn centre_and_spin(&self, t: f64) -> (V, V::Angular) {
        Mover::centre_and_spin(self, t)
    }
}

/// Conservative advancement of `a` and `b` over `[from, to]` until their gap is at most
/// `target` ([`query::advance`] with its second-order steps and at most [`MAX_STEPS`] steps).
fn advance<V: Vector>(a: &Mover<V>, b: &Mover<V>, from: f64, to: f64, target: f64) -> Advance {
    let options = AdvanceOptions {
        target,
        max_steps: MAX_STEPS,
        curved_steps: true,
        gjk: GjkOptions::default(),
    };
    query::advance(a, b, from, to, &options, &mut GjkCache::default()).outcome
}

/// The gap of `a` and `b` at `t` with the normal (from `a` to `b`) and a witness point on each:
/// GJK's when apart, EPA's (gap 0) when they overlap.
pub(crate) fn gap_at<V: Vector>(a: &Mover<V>, b: &Mover<V>, t: f64) -> (f64, V, V, V) {
    let (pa, pb) = (a.pose_at(t), b.pose_at(t));
    let g = distance(a.shape, &pa, b.shape, &pb, &GjkOptions::default(), None);
    if g.status == GjkStatus::Separated && g.normal != V::ZERO {
        return (g.distance, g.normal, g.point_a, g.point_b);
    }
    let e = penetration(a.shape, &pa, b.shape, &pb, &EpaOptions::default());
    (0.0, e.normal, e.point_a, e.point_b)
}

/// The speed at which the witness points `p` (on `a`) and `q` (on `b`) approach along `n`
/// (from `a` to `b`) at `t`; positive when approaching.
fn approach_speed<V: Vector>(a: &Mover<V>, b: &Mover<V>, t: f64, n: V, p: V, q: V) -> f64 {
    n.dot(a.velocity_at(t, p) - b.velocity_at(t, q))
}

/// The first contact of two movers (a pure function of their stored states) from `t0`, when
/// their bounding spheres (centres `d` apart at `t0` (from `a` to `b`), moving apart at `w`,
/// radii summing to `sigma`) allow one; `shell` is the contact shell. Contacts at or before
/// `t_max` are reported with the same bits whatever `t_max`; a later one may be reported as a
/// miss ([`ToiStatus::NotBy`]).
#[allow(clippy::too_many_arguments)]
fn predict<V: Vector>(
    a: &Mover<V>,
    b: &Mover<V>,
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
    let hit = |outcome: Advance| match outcome {
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
    };
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
    Toi::miss(ToiStatus::Separating)
}

/// The first contact of two rigid bodies (at least one not a ball; two balls take
/// [`crate::toi::ball_ball`]). Contacts at or before `t_max` are reported with the same bits
/// whatever `t_max` (`+inf` for every contact); a later one may be a miss
/// ([`ToiStatus::NotBy`]), which spares the advancement past the time a broad phase cares
/// about.
pub fn body_body<V: Vector>(a: &Mover<V>, b: &Mover<V>, t_max: f64) -> Toi {
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

/// The first contact of two bodies given by their pieces ([`Mover::pieces`]; a compound body
/// has several): the earliest contact of their pairs of pieces by [`body_body`], so a pure
/// function of the two stored states like it, with the same `t_max` rule. Pairs after a hit
/// are bounded by the earliest contact so far, which changes no reported bits.
pub fn pieces_body_body<'a, V: Vector + 'a>(
    a: impl Iterator<Item = Mover<'a, V>>,
    b: impl Iterator<Item = Mover<'a, V>> + Clone,
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

/// [`body_wall`] for a body given by its pieces ([`Mover::pieces`]): the earliest contact of
/// any piece, as [`pieces_body_body`].
pub fn pieces_body_wall<'a, V: Vector + 'a>(
    a: impl Iterator<Item = Mover<'a, V>>,
    wall: &WallPieces<V>,
    t_max: f64,
) -> Toi {
    let mut best = Toi::miss(ToiStatus::Separating);
    for pa in a {
        let bound = if best.is_hit() { best.time } else { t_max };
        let toi = body_wall(&pa, wall, bound);
        if toi.is_hit() && !(best.is_hit() && toi.time >= best.time) {
            best = toi;
        }
    }
    best
}

/// The static pieces of a wall against which rigid bodies are predicted: the plane itself, or
/// shapes (a segment; a polygon's fan of triangles; a static shape) with their bounding
/// spheres.
#[derive(Clone, Debug)]
pub enum WallPieces<V: Vector> {
    /// A plane, by its exact gap.
    Plane(Plane<V>),
    /// Static convex shapes, each with the pose of its local frame (the identity for the
    /// pieces of segments and polygons, given in world coordinates) and its bounding sphere's
    /// centre and radius.
    Shapes(Vec<(Shape<V>, Pose<V>, V, f64)>),
}

impl<V: Vector> WallPieces<V> {
    /// The pieces of `wall`.
    pub fn of(wall: &Wall<V>) -> Self {
        let piece = |shape: Shape<V>, points: &[V]| {
            let mut lo = points[0];
            let mut hi = points[0];
            for &p in points {
                lo = lo.min(p);
                hi = hi.max(p);
            }
            let c = (lo + hi) * 0.5;
            let r = points.iter().map(|&p| (p - c).length()).fold(0.0, f64::max);
            (shape, Pose::IDENTITY, c, r)
        };
        match wall {
            Wall::Plane(p) => WallPieces::Plane(*p),
            Wall::Segment(s) => WallPieces::Shapes(
                Shape::segment(s.a, s.b)
                    .map(|sh| vec![piece(sh, &[s.a, s.b])])
                    .unwrap_or_default(),
            ),
            Wall::Polygon(pg) => {
                let v = &pg.vertices;
                let tris = (1..v.len().saturating_sub(1))
                    .filter_map(|k| {
                        Shape::triangle(v[0], v[k], v[k + 1])
                            .ok()
                            .map(|sh| piece(sh, &[v[0], v[k], v[k + 1]]))
                    })
                    .collect();
                WallPieces::Shapes(tris)
            }
            Wall::Shape(s) => {
                // The bounding sphere about the local origin, placed with the shape.
                let r = s.shape.bounding_radius();
                WallPieces::Shapes(vec![(s.shape.clone(), s.pose, s.pose.position, r)])
            }
        }
    }
}

/// The side of `plane` the body's centre is on, as the plane's normal pointing to that side.
fn plane_side<V: Vector>(plane: &Plane<V>, centre: V) -> V {
    if plane.signed_distance(centre) >= 0.0 {
        plane.normal
    } else {
        -plane.normal
    }
}

/// The first contact of a rigid body with a wall (`t_max` as for [`body_body`]).
pub fn body_wall<V: Vector>(a: &Mover<V>, pieces: &WallPieces<V>, t_max: f64) -> Toi {
    match pieces {
        WallPieces::Plane(plane) => {
            let Some((b, r)) = a.body else {
                return Toi::miss(ToiStatus::Separating);
            };
            body_plane(a, b, plane, SHELL * r.radius, t_max)
        }
        WallPieces::Shapes(shapes) => body_pieces(
            a,
            shapes
                .iter()
                .map(|(shape, place, c, rw)| (shape, *place, *c, *rw)),
            t_max,
        ),
    }
}

/// [`body_wall`] against static pieces: each shape with its pose and bounding sphere.
fn body_pieces<'s, V: Vector + 's>(
    a: &Mover<V>,
    pieces: impl Iterator<Item = (&'s Shape<V>, Pose<V>, V, f64)>,
    t_max: f64,
) -> Toi {
    let Some((b, r)) = a.body else {
        return Toi::miss(ToiStatus::Separating);
    };
    let t0 = b.time;
    let shell = SHELL * r.radius;
    let mut best = Toi::miss(ToiStatus::Separating);
    for (shape, place, c, rw) in pieces {
        let fixed = Mover::placed(shape, place);
        // Only while the body's box overlaps the piece's can any broad phase pair them, and
        // only then can the shapes touch (the box holds the bounding sphere, which holds the
        // shape and its shell): a prediction outside these spans would be an event that a
        // broad phase which compares boxes never asks for.
        let spans = box_windows(b.pos, b.vel, a.accel, a.radius, &shape.aabb(&place));
        for span in spans {
            let bound = if best.is_hit() { best.time } else { t_max };
            if !(t0 + span.0 <= bound) {
                break;
            }
            let toi = predict(
                a,
                &fixed,
                t0,
                c - b.pos,
                -b.vel,
                a.radius + rw,
                shell,
                span,
                bound,
            );
            if toi.is_hit() {
                if !(toi.time >= best.time && best.is_hit()) {
                    best = toi;
                }
                break;
            }
        }
    }
    best
}

/// The first contact of a ball without a rigid state (a plain [`Body`], its centre
/// accelerated by `accel` in a world with gravity, `None` without) with any wall: the closed
/// forms of [`crate::toi::body_wall`] and [`crate::toi::body_wall_accel`] for segments, planes
/// and polygons, [`ball_static_shape`] for a static shape. The one dispatch of a ball against
/// a wall, for the event-driven world and the discrete stepper's miss count alike.
pub fn ball_wall<V: Vector>(b: &Body<V>, accel: Option<V>, wall: &Wall<V>) -> Toi {
    let closed_form = match accel {
        None => crate::toi::body_wall(b, wall),
        Some(a) => crate::toi::body_wall_accel(b, a, wall),
    };
    match (wall, closed_form) {
        (_, Some(toi)) => toi,
        (Wall::Shape(s), None) => ball_static_shape(b, accel.unwrap_or(V::ZERO), s),
        (_, None) => unreachable!("every wall but a static shape has a closed form"),
    }
}

/// The first contact of a ball without a rigid state (a plain [`Body`], its centre
/// accelerated by `accel`) with a static shape: [`body_wall`] for a ball of the body's radius
/// that does not spin. A miss when the body's radius and mass make no rigid ball (not finite).
pub fn ball_static_shape<V: Vector>(b: &Body<V>, accel: V, wall: &StaticShape<V>) -> Toi {
    let Ok(ball) = Shape::ball(b.radius) else {
        return Toi::miss(ToiStatus::Separating);
    };
    let Ok(props) = ball.mass_properties(1.0) else {
        return Toi::miss(ToiStatus::Separating);
    };
    let Ok(state) = RigidState::new(
        0,
        &ball,
        &props,
        V::Rotation::IDENTITY,
        V::Angular::default(),
    ) else {
        return Toi::miss(ToiStatus::Separating);
    };
    let mover = Mover::body(&ball, b, &state).with_accel(accel);
    // The piece `WallPieces::of` makes of the wall, without copying its shape.
    let piece = (
        &wall.shape,
        wall.pose,
        wall.pose.position,
        wall.shape.bounding_radius(),
    );
    body_pieces(&mover, std::iter::once(piece), f64::INFINITY)
}

/// [`body_wall`] against a plane: conservative advancement on the exact gap (the body's support
/// point along the plane's normal), which needs no GJK.
fn body_plane<V: Vector>(
    a: &Mover<V>,
    b: &Body<V>,
    plane: &Plane<V>,
    shell: f64,
    t_max: f64,
) -> Toi {
    let t0 = b.time;
    let n = plane_side(plane, b.pos);
    let centre_gap = n.dot(b.pos - plane.point);
    let vn = n.dot(b.vel);
    // The centre's normal acceleration (gravity), and how fast it can close the gap.
    let an = n.dot(a.accel);
    let closing_acc = (-an).max(0.0);
    let spin = a.spin_speed();
    let gap_at = |t: f64| {
        let pose = a.pose_at(t);
        n.dot(a.shape.support(&pose, -n) - plane.point)
    };
    // The window: the bounding sphere (grown by the shell) must reach the plane, and a body
    // moving towards it touches it before its centre crosses it.
    let reach = a.radius + shell;
    let from = if centre_gap > reach {
        let enter = first_zero_quadratic(centre_gap - reach, vn, an);
        if !enter.is_hit() {
            return Toi::miss(ToiStatus::Separating);
        }
        t0 + enter.time
    } else {
        t0
    };
    if !(from <= t_max) {
        return Toi::miss(ToiStatus::NotBy);
    }
    let to = if an == 0.0 {
        if vn < 0.0 {
            t0 + centre_gap.max(0.0) / -vn
        } else if vn > 0.0 {
            t0 + (reach - centre_gap).max(0.0) / vn
        } else {
            f64::INFINITY
        }
    } else {
        // The centre reaches the plane, or (pushed away) leaves the band for good.
        let cross = first_zero_quadratic(centre_gap.max(0.0), vn, an);
        if cross.is_hit() {
            t0 + cross.time
        } else if an > 0.0 {
            let (h, d) = (0.5 * an, vn * vn - 2.0 * an * (centre_gap - reach));
            let root = d.max(0.0).sqrt();
            t0 + ((root - vn) / (2.0 * h)).max(0.0)
        } else {
            f64::INFINITY
        }
    }
    .min(t_max);
    let contact = |t: f64| Toi {
        time: t,
        status: if t == t0 {
            ToiStatus::Penetrating
        } else {
            ToiStatus::Approaching
        },
    };
    let mut target = shell;
    if from == t0 {
        let g0 = gap_at(t0);
        if g0 <= shell {
            let p = a.shape.support(&a.pose_at(t0), -n);
            if -n.dot(a.velocity_at(t0, p)) > 0.0 {
                return contact(t0);
            }
            if !(g0 > 0.0) {
                // Touching (round-off) and not approaching: left to separate, or, pulled back
                // by gravity, met again when its centre stops leaving.
                if closing_acc == 0.0 {
                    return Toi::miss(ToiStatus::Separating);
                }
                if !(vn > 0.0) {
                    return contact(t0);
                }
                let apex = t0 + vn / closing_acc;
                return if apex <= t_max {
                    contact(apex)
                } else {
                    Toi::miss(ToiStatus::NotBy)
                };
            }
            target = 0.5 * g0;
        }
    }
    let mut t = from;
    for _ in 0..MAX_STEPS {
        let g = gap_at(t);
        if !(g > target) {
            return contact(t);
        }
        let mu = -(vn + an * (t - t0)) + spin;
        if !(mu > 0.0) && closing_acc == 0.0 {
            return Toi::miss(ToiStatus::Separating);
        }
        let dt = certified_step_accel(g, mu, closing_acc, 0.5 * target);
        if !(dt > 0.0) {
            return contact(t);
        }
        if !(t + dt <= to) {
            return Toi::miss(ToiStatus::Grazing);
        }
        if t + dt == t {
            // Below the resolution of time: a contact at that resolution.
            return contact(t);
        }
        t += dt;
    }
    contact(t)
}

/// A contact of the response: the normal from `a` to `b` and the points (midpoints of the
/// two shapes' points).
#[derive(Clone, Debug, Default)]
pub struct ContactSet<V> {
    /// Unit normal from `a` to `b` (zero when undefined).
    pub normal: V,
    /// The contact points, world frame.
    pub points: Vec<V>,
    /// The gap between the two shapes at the contact's time (0 where it was not measured).
    pub gap: f64,
}

/// The contact points of `a` and `b` at `t` (see the [module docs](self#response)).
pub fn contact_set<V: Vector>(a: &Mover<V>, b: &Mover<V>, t: f64) -> ContactSet<V> {
    let (pa, pb) = (a.pose_at(t), b.pose_at(t));
    let (g, n, p, q) = gap_at(a, b, t);
    let prediction = 2.0 * SHELL * (shape_size(a) + shape_size(b)) + g;
    let m = contact_manifold(a.shape, &pa, b.shape, &pb, prediction, None);
    if !m.is_empty() && m.normal != V::ZERO {
        let least = m
            .points()
            .iter()
            .map(|c| c.separation)
            .fold(f64::INFINITY, f64::min);
        let slack = SHELL * (shape_size(a) + shape_size(b));
        return ContactSet {
            gap: g,
            normal: m.normal,
            points: m
                .points()
                .iter()
                .filter(|c| c.separation <= least + slack)
                .map(|c| (c.point_a + c.point_b) * 0.5)
                .collect(),
        };
    }
    ContactSet {
        normal: n,
        points: vec![(p + q) * 0.5],
        gap: g,
    }
}

/// The contacts of two bodies given by their pieces ([`Mover::pieces`]) at `t`: a
/// [`contact_set`] for every pair of pieces whose gap is within twice the contact shell of the
/// least gap, the nearest pair first (one set for two convex bodies in contact). A compound
/// body may touch another at several places at once, with a normal each; [`respond`] takes
/// them all.
pub fn pieces_contact_sets<'a, V: Vector + 'a>(
    a: impl Iterator<Item = Mover<'a, V>>,
    b: impl Iterator<Item = Mover<'a, V>> + Clone,
    t: f64,
) -> Vec<ContactSet<V>> {
    let mut near: Vec<(f64, Mover<'a, V>, Mover<'a, V>)> = Vec::new();
    let mut reach = f64::INFINITY;
    for pa in a {
        for pb in b.clone() {
            // Bounding spheres (about the centres of mass) farther apart than a nearer pair's
            // reach: the pair's gap exceeds it.
            let apart = (pb.centre_at(t).0 - pa.centre_at(t).0).length();
            if apart - pa.radius - pb.radius > reach {
                continue;
            }
            let gap = gap_at(&pa, &pb, t).0;
            reach = reach.min(gap + 2.0 * SHELL * (shape_size(&pa) + shape_size(&pb)));
            near.push((gap, pa, pb));
        }
    }
    nearest_sets(near, |pa, pb| contact_set(pa, pb, t))
}

/// The pieces within twice the contact shell of the least gap, nearest first, as contact sets.
pub(crate) fn nearest_sets<'a, V: Vector + 'a>(
    mut near: Vec<(f64, Mover<'a, V>, Mover<'a, V>)>,
    set: impl Fn(&Mover<'a, V>, &Mover<'a, V>) -> ContactSet<V>,
) -> Vec<ContactSet<V>> {
    // Stable: equal gaps keep the order of the pieces.
    near.sort_by(|x, y| x.0.total_cmp(&y.0));
    let Some(&(least, ref pa, ref pb)) = near.first() else {
        return Vec::new();
    };
    let slack = 2.0 * SHELL * (shape_size(pa) + shape_size(pb));
    near.iter()
        .filter(|(gap, _, _)| !(*gap > least + slack))
        .map(|(_, pa, pb)| set(pa, pb))
        .filter(|c| c.normal != V::ZERO && !c.points.is_empty())
        .collect()
}

/// The contacts of a body given by its pieces with a wall at `t`, as
/// [`pieces_contact_sets`]: against a plane one set (the points of every piece within the
/// shell of the lowest, [`plane_contact_set`]); against static shapes a set for each pair of
/// a body piece and a wall piece within twice the shell of the least gap.
pub fn pieces_wall_contact_sets<'a, V: Vector + 'a>(
    a: impl Iterator<Item = Mover<'a, V>> + Clone,
    wall: &'a WallPieces<V>,
    t: f64,
) -> Vec<ContactSet<V>> {
    match wall {
        WallPieces::Plane(plane) => {
            let c = plane_contact_set_of(a, plane, t);
            if c.normal == V::ZERO {
                Vec::new()
            } else {
                vec![c]
            }
        }
        WallPieces::Shapes(shapes) => {
            let mut near = Vec::new();
            for pa in a {
                let centre = pa.centre_at(t).0;
                for (shape, place, c, rw) in shapes {
                    let slack = 2.0 * SHELL * shape_size(&pa);
                    if (*c - centre).length() > pa.radius + rw + slack {
                        continue;
                    }
                    let fixed = Mover::placed(shape, *place);
                    near.push((gap_at(&pa, &fixed, t).0, pa, fixed));
                }
            }
            nearest_sets(near, |pa, pb| contact_set(pa, pb, t))
        }
    }
}

pub(crate) fn shape_size<V: Vector>(m: &Mover<V>) -> f64 {
    m.body.map_or(0.0, |(_, r)| r.radius)
}

/// The contact points of a body with a plane at `t`: the normal from the body to the plane,
/// and the shape's vertices within the shell of its lowest point (its support point for a
/// shape with no vertices).
pub fn plane_contact_set<V: Vector>(a: &Mover<V>, plane: &Plane<V>, t: f64) -> ContactSet<V> {
    plane_contact_set_of(std::iter::once(*a), plane, t)
}

/// [`plane_contact_set`] of a body given by its pieces: the vertices of every piece within the
/// shell of the lowest point of them all.
fn plane_contact_set_of<'a, V: Vector + 'a>(
    pieces: impl Iterator<Item = Mover<'a, V>> + Clone,
    plane: &Plane<V>,
    t: f64,
) -> ContactSet<V> {
    let Some(first) = pieces.clone().next() else {
        return ContactSet::default();
    };
    let centre = match first.body {
        Some((b, _)) => b.position_at(t),
        None => first.pose_at(t).position,
    };
    let up = plane_side(plane, centre);
    let mut lowest: Option<(V, f64)> = None;
    for m in pieces.clone() {
        let low = m.shape.support(&m.pose_at(t), -up);
        let gap = up.dot(low - plane.point);
        if lowest.is_none_or(|(_, g)| gap < g) {
            lowest = Some((low, gap));
        }
    }
    let (low, low_gap) = lowest.expect("a piece");
    let slack = SHELL * shape_size(&first).max(f64::MIN_POSITIVE);
    let mut points = Vec::new();
    for m in pieces {
        if let Some(poly) = as_polytope(m.shape) {
            let pose = m.pose_at(t);
            for i in 0..poly.vertex_count() {
                let v = pose.transform_point(poly.vertex(i));
                if up.dot(v - plane.point) <= low_gap + slack {
                    points.push(v - up * up.dot(v - plane.point));
                }
            }
        }
    }
    if points.is_empty() {
        points.push(low - up * low_gap);
    }
    ContactSet {
        normal: -up,
        points,
        gap: low_gap.max(0.0),
    }
}

/// The velocities of one side of a contact: linear, angular, centre, inverse mass and inverse
/// inertia (world application through the rotation); a wall has an infinite mass.
#[derive(Clone, Copy, Debug)]
pub struct Side<V: Vector> {
    /// Velocity of the centre of mass.
    pub vel: V,
    /// Angular velocity, world frame.
    pub omega: V::Angular,
    /// The centre of mass.
    pub centre: V,
    /// Inverse mass (0 for a wall).
    pub inv_mass: f64,
    /// The rotation (for the inertia in the world frame).
    pub rotation: V::Rotation,
    /// Inverse inertia, body axes (ignored when `inv_mass` is 0).
    pub inv_inertia: V::Inertia,
}

impl<V: Vector> Side<V> {
    fn point_velocity(&self, p: V) -> V {
        self.vel + V::angular_cross(self.omega, p - self.centre)
    }
    /// `(I⁻¹ (r × n)) · (r × n)`, the angular part of the effective inverse mass at `p`.
    fn angular_term(&self, p: V, n: V) -> f64 {
        if self.inv_mass == 0.0 {
            return 0.0;
        }
        let rn = V::cross_angular(p - self.centre, n);
        V::angular_dot(V::inertia_apply(self.rotation, self.inv_inertia, rn), rn)
    }
    /// Applies the impulse `j` at `p` (on this side).
    fn apply(&mut self, p: V, j: V) {
        if self.inv_mass == 0.0 {
            return;
        }
        self.vel += j * self.inv_mass;
        let dl = V::cross_angular(p - self.centre, j);
        self.omega = V::angular_add_scaled(
            self.omega,
            V::inertia_apply(self.rotation, self.inv_inertia, dl),
            1.0,
        );
    }
}

/// Applies the collision impulses of `contacts` (one set for two convex bodies; a compound
/// body may touch at several places, each set with its normal) between `a` and `b` with
/// restitution `e` and Coulomb friction coefficient `friction` (see the
/// [module docs](self#response)); returns the total impulse on `a` (zero when none was
/// applied). Each impulse goes to the set whose chosen point approaches fastest.
pub fn respond<V: Vector>(
    a: &mut Side<V>,
    b: &mut Side<V>,
    contacts: &[ContactSet<V>],
    e: f64,
    friction: f64,
) -> V {
    let mut total = V::ZERO;
    let approach =
        |a: &Side<V>, b: &Side<V>, p: V, n: V| n.dot(a.point_velocity(p) - b.point_velocity(p));
    for _ in 0..MAX_IMPULSES {
        // The set, the approach speed and the point of the next impulse.
        let mut next: Option<(V, f64, V)> = None;
        for contact in contacts {
            let n = contact.normal;
            if n == V::ZERO || contact.points.is_empty() {
                continue;
            }
            let mut weight = 0.0;
            let mut centroid = V::ZERO;
            let mut worst = (0.0, V::ZERO);
            for &p in &contact.points {
                let u = approach(a, b, p, n);
                if u > 0.0 {
                    weight += u;
                    centroid += p * u;
                    if u > worst.0 {
                        worst = (u, p);
                    }
                }
            }
            if !(weight > 0.0) {
                continue;
            }
            let c = centroid * (1.0 / weight);
            let (u, p) = match approach(a, b, c, n) {
                u if u > 0.0 => (u, c),
                _ => worst,
            };
            if next.is_none_or(|(_, best, _)| u > best) {
                next = Some((n, u, p));
            }
        }
        let Some((n, u, p)) = next else {
            break;
        };
        let k = a.inv_mass + b.inv_mass + a.angular_term(p, n) + b.angular_term(p, n);
        if !(k > 0.0 && k.is_finite()) {
            break;
        }
        let jn = (1.0 + e) * u / k;
        let j = n * jn;
        a.apply(p, -j);
        b.apply(p, j);
        total -= j;
        if friction > 0.0 {
            total -= friction_impulse(a, b, p, n, friction * jn);
        }
    }
    total
}

/// The friction impulse at `p` after a normal impulse of size `jn_max / μ` (see the
/// [module docs](self#friction)): the impulse along the tangential slip that stops it
/// (sticking), or of size `jn_max = μ j_n` against it when that is not enough (sliding).
/// Applied to both sides; returns the impulse on `b` (the one on `a` is its opposite).
fn friction_impulse<V: Vector>(a: &mut Side<V>, b: &mut Side<V>, p: V, n: V, jn_max: f64) -> V {
    let slip = a.point_velocity(p) - b.point_velocity(p);
    let tangential = slip - n * n.dot(slip);
    let speed = tangential.length();
    if !(speed > 0.0 && speed.is_finite() && jn_max > 0.0) {
        return V::ZERO;
    }
    let t = tangential * (1.0 / speed);
    let k = a.inv_mass + b.inv_mass + a.angular_term(p, t) + b.angular_term(p, t);
    if !(k > 0.0 && k.is_finite()) {
        return V::ZERO;
    }
    let jt = t * (speed / k).min(jn_max);
    a.apply(p, -jt);
    b.apply(p, jt);
    jt
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::DVec2;

    #[test]
    fn sphere_window_enters_and_leaves() {
        let (s_in, s_out) =
            sphere_window(DVec2::new(10.0, 0.0), DVec2::new(-1.0, 0.0), 2.0).unwrap();
        assert_eq!((s_in, s_out), (8.0, 12.0));
        let (s_in, s_out) = sphere_window(DVec2::new(1.0, 0.0), DVec2::new(1.0, 0.0), 2.0).unwrap();
        assert_eq!((s_in, s_out), (0.0, 1.0));
        assert!(sphere_window(DVec2::new(10.0, 0.0), DVec2::new(1.0, 0.0), 2.0).is_none());
        assert!(sphere_window(DVec2::new(10.0, 5.0), DVec2::new(-1.0, 0.0), 2.0).is_none());
        assert_eq!(
            sphere_window(DVec2::new(1.0, 0.0), DVec2::ZERO, 2.0),
            Some((0.0, f64::INFINITY))
        );
        assert!(sphere_window(DVec2::new(f64::NAN, 0.0), DVec2::ZERO, 2.0).is_none());
    }
}
