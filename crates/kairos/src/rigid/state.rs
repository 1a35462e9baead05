//! The state of a rigid body ([`RigidState`]: its shape, rotation, spin and inertia) and
//! [`MovingPiece`], a body's piece or a static shape as the predictions and contacts see it: its pose
//! and velocities at any time and the bounds on its motion.

use super::RADIUS_MARGIN;
use crate::body::Body;
use crate::math::{Rotation, Vector};
use crate::shape::{MassProperties, Pose, Shape};

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

/// The rotational state of a rigid body (see the [module docs](crate::rigid)).
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
pub struct MovingPiece<'a, V: Vector> {
    /// The shape.
    pub shape: &'a Shape<V>,
    /// The body and its rotational state; `None` for a static shape (placed at
    /// [`MovingPiece::place`]).
    pub body: Option<(&'a Body<V>, &'a RigidState<V>)>,
    /// Where a static shape's local frame is (the identity for pieces given in world
    /// coordinates); unused for a body.
    pub place: Pose<V>,
    /// The constant acceleration of the centre of mass (uniform gravity; zero for a static
    /// shape or a sleeping body).
    pub accel: V,
    /// For a body, the bounding radius of [`MovingPiece::shape`] about the centre of mass: the
    /// body's [`RigidState::radius`], or less for one piece of a compound body (unused for a
    /// static shape).
    pub radius: f64,
}

impl<'a, V: Vector> MovingPiece<'a, V> {
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
    ) -> impl Iterator<Item = MovingPiece<'a, V>> + Clone + 'a {
        (0..rigid.pieces as usize).map(move |k| Self::nth_piece(shapes, body, rigid, accel, k))
    }
    /// Piece `k` of [`MovingPiece::pieces`].
    #[inline]
    pub fn nth_piece(
        shapes: &'a [Shape<V>],
        body: &'a Body<V>,
        rigid: &'a RigidState<V>,
        accel: V,
        k: usize,
    ) -> Self {
        debug_assert!(k < rigid.pieces as usize, "piece {k} of {}", rigid.pieces);
        let shape = &shapes[rigid.shape as usize + k];
        // A compound's piece is bounded by its own sphere about the centre of mass.
        let radius = if rigid.pieces == 1 {
            rigid.radius
        } else {
            shape.bounding_radius_about(-rigid.offset)
        };
        Self::piece(shape, radius, body, rigid).with_accel(accel)
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
    /// The same mover with its centre of mass accelerated by `accel` (see [`MovingPiece::accel`]).
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
    pub(super) fn acceleration_bound(&self) -> f64 {
        self.body.map_or(0.0, |(_, r)| {
            let w = r.spin_bound();
            self.radius * (w * w + V::spin_acceleration_bound(&r.spin))
        })
    }
    /// The size the contact shell scales with: the bounding radius, or 0 for a ball (whose
    /// sphere is exact and not grown, see [`RigidState::body`]).
    pub(super) fn shell_size(&self) -> f64 {
        match (self.body, self.shape) {
            (_, Shape::Ball(_)) | (None, _) => 0.0,
            (Some((_, r)), _) => r.radius,
        }
    }
    /// The centre of mass and angular velocity at `t` (zero for a static shape).
    pub(super) fn centre_and_spin(&self, t: f64) -> (V, V::Angular) {
        match self.body {
            None => (V::ZERO, V::Angular::default()),
            Some((b, r)) => (self.centre_at(t).0, r.at(t - b.time).1),
        }
    }
}
