//! The simulated world: bodies, walls, predictions and the collision response.
//!
//! The [`World`] and its construction are here, with the views of its bodies (accelerations,
//! movers, meshes); its other methods are in the files by what they do: `predict.rs` (the
//! contacts of pairs and walls, the one dispatch of every prediction), `respond.rs` (the
//! response: [`World::resolve`]), `sleep.rs` (resting contact under gravity), `periodic.rs`
//! (the periodic box and its images) and `motion.rs` (moving bodies in time, energies and
//! momenta).

mod build;
mod motion;
mod periodic;
mod predict;
mod respond;
mod sleep;

pub use build::{BodyKind, WorldBuilder, WorldError};
pub use respond::Response;

use crate::body::Body;
use crate::math::Vector;
use crate::rigid::{self, MovingPiece, RigidState, WallPieces};
use crate::rigid_mesh::{self, MeshShape};
use crate::shape::Shape;
use crate::wall::Wall;
use std::sync::Arc;

/// Which acceleration each body has: the world's gravity, or none for a sleeping body (or
/// without gravity). A borrowed view of [`World::gravity`] and [`World::asleep`] for code that
/// walks the bodies.
#[derive(Clone, Copy, Debug)]
pub struct Gravity<'a, V: Vector> {
    /// The gravity (zero: none).
    pub g: V,
    /// Per body, whether it sleeps (may be empty).
    pub asleep: &'a [bool],
}

impl<V: Vector> Gravity<'_, V> {
    /// Body `i`'s acceleration.
    #[inline]
    pub fn of(&self, i: usize) -> V {
        if self.g == V::ZERO || self.asleep.get(i).copied().unwrap_or(false) {
            V::ZERO
        } else {
            self.g
        }
    }
}

/// Bodies and static walls, with the response law.
#[derive(Clone, Debug)]
pub struct World<V: Vector> {
    /// Bodies, indexed by [`BodyId`](crate::body::BodyId).
    pub(crate) bodies: Vec<Body<V>>,
    /// Walls, indexed by [`WallId`](crate::wall::WallId).
    pub(crate) walls: Vec<Wall<V>>,
    /// Coefficient of restitution in `[0, 1]` (1 = elastic).
    pub(crate) restitution: f64,
    /// Box lengths of a periodic boundary on every axis (`[0, L)^d`), if any. Bodies then
    /// stay inside the box: a body reaching a face is wrapped to the opposite one by a
    /// [`EventKind::BoxCrossing`] event, and `images` counts the wraps.
    ///
    /// [`EventKind::BoxCrossing`]: crate::event::EventKind::BoxCrossing
    pub(crate) period: Option<V>,
    /// Per body, how many box lengths its unwrapped position lies from its stored one (periodic
    /// boundary only; empty otherwise).
    pub(crate) images: Vec<[i64; 3]>,
    /// The contact duration `t_c` of the TC model (Luding and McNamara 1998): a collision of a
    /// body less than `t_c` after that body's previous collision is elastic (see
    /// [`World::resolve`]). Used only when `restitution < 1`.
    pub(crate) contact_duration: f64,
    /// Per body, the local time of its last collision (with a ball or a wall), or `-inf` when it
    /// has not collided (or not within `t_c` of the last time origin move, see
    /// [`World::rebase`]). Kept only when `restitution < 1`: empty until the first dissipative
    /// collision, and always empty for elastic worlds. Part of the state a checkpoint must save.
    pub(crate) last_collision: Vec<f64>,
    /// The Coulomb friction coefficient `μ >= 0` of collisions in a rigid world (see
    /// [`rigid`]'s response); 0, the default, is frictionless. Ignored in a world of balls
    /// (balls there carry no spin).
    pub(crate) friction: f64,
    /// The shapes of rigid bodies, shared by index ([`RigidState::shape`]); empty for a world
    /// of balls.
    pub(crate) shapes: Vec<Shape<V>>,
    /// The meshes of mesh bodies ([`RigidState::mesh`] indexes them; see
    /// [`crate::rigid_mesh`]); empty when no body is a mesh.
    pub(crate) meshes: Vec<Arc<MeshShape<V>>>,
    /// Per body, its rotational state ([`crate::rigid`]), or empty for a world of balls (the
    /// balls' own fast path). Set by [`WorldBuilder::rigid`](crate::world::WorldBuilder::rigid).
    pub(crate) rigid: Vec<RigidState<V>>,
    /// Per body, its kind (empty for a world of balls), computed once by
    /// [`WorldBuilder::build`].
    pub(crate) kinds: Vec<BodyKind>,
    /// Per wall, the pieces rigid bodies are predicted against (empty for a world of balls).
    /// Built from the walls by [`WorldBuilder::build`] for a rigid world.
    pub(crate) wall_pieces: Vec<WallPieces<V>>,
    /// Uniform gravity (zero: none). Set by [`WorldBuilder::gravity`](crate::world::WorldBuilder::gravity); see its documentation
    /// for the motion and for sleeping bodies.
    pub(crate) gravity: V,
    /// The speed below which a body comes to rest on a support (see [`WorldBuilder::gravity`](crate::world::WorldBuilder::gravity)).
    pub(crate) rest_speed: f64,
    /// Per body, whether it sleeps (empty without gravity).
    pub(crate) asleep: Vec<bool>,
    /// Per body, the sleeping body it came to rest on ([`NO_SUPPORT`] when it rests on a wall,
    /// or is awake); empty without gravity.
    pub(crate) support: Vec<u32>,
    /// Per body, how many sleeping bodies rest on it (such a body stays asleep and static);
    /// empty without gravity.
    pub(crate) holding: Vec<u32>,
}

/// A contact holds a body up (it may come to rest there, see [`WorldBuilder::gravity`](crate::world::WorldBuilder::gravity)) when its
/// normal is within 60 degrees of straight up: the cosine of that angle.
pub const SUPPORT_ANGLE_COS: f64 = 0.5;

/// [`World::support`] of a body that rests on no other body.
pub const NO_SUPPORT: u32 = u32::MAX;

impl<V: Vector> World<V> {
    /// The bodies, indexed by [`BodyId`](crate::body::BodyId), each stored at its own local
    /// time.
    #[inline]
    pub fn bodies(&self) -> &[Body<V>] {
        &self.bodies
    }

    /// The walls, indexed by [`WallId`](crate::wall::WallId).
    #[inline]
    pub fn walls(&self) -> &[Wall<V>] {
        &self.walls
    }

    /// The coefficient of restitution in `[0, 1]`.
    #[inline]
    pub fn restitution(&self) -> f64 {
        self.restitution
    }

    /// The contact duration `t_c` of the TC model.
    #[inline]
    pub fn contact_duration(&self) -> f64 {
        self.contact_duration
    }

    /// The Coulomb friction coefficient.
    #[inline]
    pub fn friction(&self) -> f64 {
        self.friction
    }

    /// The box lengths of the periodic boundary, if any.
    #[inline]
    pub fn period(&self) -> Option<V> {
        self.period
    }

    /// Per body, its periodic wraps (empty without a periodic boundary).
    #[inline]
    pub fn images(&self) -> &[[i64; 3]] {
        &self.images
    }

    /// Per body, the local time of its last collision, or `-inf` when it has not collided
    /// (or not within `t_c` of the last time origin move, see [`World::rebase`]). Kept only
    /// when the restitution is below 1: empty until the first dissipative collision, and
    /// always empty for elastic worlds.
    #[inline]
    pub fn last_collision(&self) -> &[f64] {
        &self.last_collision
    }

    /// The rigid bodies' shapes (empty for a world of balls).
    #[inline]
    pub fn shapes(&self) -> &[Shape<V>] {
        &self.shapes
    }

    /// The mesh bodies' meshes (empty without mesh bodies).
    #[inline]
    pub fn meshes(&self) -> &[Arc<MeshShape<V>>] {
        &self.meshes
    }

    /// Per body, its rotational state (empty for a world of balls).
    #[inline]
    pub fn rigid(&self) -> &[RigidState<V>] {
        &self.rigid
    }

    /// The uniform gravity (zero: none).
    #[inline]
    pub fn gravity(&self) -> V {
        self.gravity
    }

    /// The speed below which a body comes to rest on a support.
    #[inline]
    pub fn rest_speed(&self) -> f64 {
        self.rest_speed
    }

    /// Per body, whether it sleeps (empty without gravity).
    #[inline]
    pub fn asleep(&self) -> &[bool] {
        &self.asleep
    }

    /// Per body, the sleeping body it rests on ([`NO_SUPPORT`]: a wall, or awake; empty
    /// without gravity).
    #[inline]
    pub fn support(&self) -> &[u32] {
        &self.support
    }

    /// Per body, how many sleeping bodies rest on it (empty without gravity).
    #[inline]
    pub fn holding(&self) -> &[u32] {
        &self.holding
    }

    /// The bodies' accelerations, as a view.
    #[inline]
    pub fn gravity_view(&self) -> Gravity<'_, V> {
        Gravity {
            g: self.gravity,
            asleep: &self.asleep,
        }
    }

    /// Whether body `i` sleeps (see [`WorldBuilder::gravity`](crate::world::WorldBuilder::gravity)).
    #[inline]
    pub fn is_asleep(&self, i: usize) -> bool {
        self.asleep.get(i).copied().unwrap_or(false)
    }

    /// The acceleration of body `i`'s centre: gravity, or zero when it sleeps.
    #[inline]
    pub fn accel(&self, i: usize) -> V {
        self.gravity_view().of(i)
    }

    /// Body `i`'s position and velocity at time `t` (with gravity when it acts).
    #[inline]
    pub fn body_state_at(&self, i: usize, t: f64) -> (V, V) {
        self.bodies[i].state_at_accel(t, self.accel(i))
    }

    /// The [`Body::radius`] of a rigid body whose shape's bounding radius about its centre of
    /// mass is `radius`: grown by [`rigid::RADIUS_MARGIN`] so that the sphere holds the
    /// contact shell too.
    pub fn rigid_radius(radius: f64) -> f64 {
        radius * (1.0 + rigid::RADIUS_MARGIN)
    }

    /// Body `i`'s kind ([`BodyKind::Ball`] in a world of balls), computed once when the world
    /// was built.
    #[inline]
    pub fn kind(&self, i: usize) -> BodyKind {
        self.kinds.get(i).copied().unwrap_or(BodyKind::Ball)
    }

    /// Whether body `i` is a rigid body of another shape than a ball (false in a world of
    /// balls).
    #[inline]
    pub fn is_rigid_shape(&self, i: usize) -> bool {
        self.kind(i) != BodyKind::Ball
    }

    /// Whether body `i` is predicted by its pieces: a compound of convex pieces, or a mesh
    /// (false in a world of balls).
    #[inline]
    pub fn is_compound(&self, i: usize) -> bool {
        matches!(self.kind(i), BodyKind::Compound | BodyKind::Mesh)
    }

    /// Body `i` as a [`MovingPiece`] (a rigid world only).
    #[inline]
    pub(crate) fn mover(&self, i: usize) -> MovingPiece<'_, V> {
        let r = &self.rigid[i];
        MovingPiece::body(&self.shapes[r.shape as usize], &self.bodies[i], r)
            .with_accel(self.accel(i))
    }

    /// Body `i`'s pieces as [`MovingPiece`]s (one for a convex body; a rigid world only).
    #[inline]
    pub(crate) fn pieces(&self, i: usize) -> impl Iterator<Item = MovingPiece<'_, V>> + Clone {
        MovingPiece::pieces(&self.shapes, &self.bodies[i], &self.rigid[i], self.accel(i))
    }

    /// Mesh body `i`'s mesh (a body of kind [`BodyKind::Mesh`], whose mesh the builder
    /// checked).
    #[inline]
    fn mesh_body(&self, i: usize) -> &MeshShape<V> {
        let m = self.rigid[i].mesh.expect("a mesh body names its mesh");
        &self.meshes[m as usize]
    }

    /// Body `i`'s mesh, when it is a mesh body.
    #[inline]
    fn mesh_of(&self, i: usize) -> Option<&MeshShape<V>> {
        self.rigid
            .get(i)
            .and_then(|r| r.mesh)
            .map(|m| &*self.meshes[m as usize])
    }

    /// The distance at `t` of the surfaces of mesh bodies `i` and `j` (0 when they
    /// intersect), each moved to `t` by its own free motion; `None` unless both are mesh
    /// bodies.
    pub fn mesh_distance(&self, i: usize, j: usize, t: f64) -> Option<f64> {
        let (x, y) = (self.mesh_of(i)?, self.mesh_of(j)?);
        Some(rigid_mesh::mesh_gap(
            &self.mover(i),
            &x.body,
            &self.mover(j),
            &y.body,
            t,
        ))
    }

    /// Mesh body `i` as the [`MovingPiece`] of its convex hull.
    fn hull_mover<'s>(&'s self, i: usize, mesh: &'s MeshShape<V>) -> MovingPiece<'s, V> {
        MovingPiece::body(&mesh.hull, &self.bodies[i], &self.rigid[i]).with_accel(self.accel(i))
    }
}
