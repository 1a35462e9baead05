//! The simulated world: bodies, walls, predictions and the collision response.
//!
//! The [`World`] and its construction are here, with the views of its bodies (accelerations,
//! movers, meshes); its other methods are in the files by what they do: `predict.rs` (the
//! contacts of pairs and walls, the one dispatch of every prediction), `respond.rs` (the
//! response: [`World::resolve`]), `sleep.rs` (resting contact under gravity), `periodic.rs`
//! (the periodic box and its images) and `motion.rs` (moving bodies in time, energies and
//! momenta).

mod motion;
mod periodic;
mod predict;
mod respond;
mod sleep;

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
    pub bodies: Vec<Body<V>>,
    /// Walls, indexed by [`WallId`](crate::wall::WallId).
    pub walls: Vec<Wall<V>>,
    /// Coefficient of restitution in `[0, 1]` (1 = elastic).
    pub restitution: f64,
    /// Box lengths of a periodic boundary on every axis (`[0, L)^d`), if any. Bodies then
    /// stay inside the box: a body reaching a face is wrapped to the opposite one by a
    /// [`EventKind::BoxCrossing`] event, and `images` counts the wraps.
    ///
    /// [`EventKind::BoxCrossing`]: crate::event::EventKind::BoxCrossing
    pub period: Option<V>,
    /// Per body, how many box lengths its unwrapped position lies from its stored one (periodic
    /// boundary only; empty otherwise).
    pub images: Vec<[i64; 3]>,
    /// The contact duration `t_c` of the TC model (Luding and McNamara 1998): a collision of a
    /// body less than `t_c` after that body's previous collision is elastic (see
    /// [`World::resolve`]). Used only when `restitution < 1`.
    pub contact_duration: f64,
    /// Per body, the local time of its last collision (with a ball or a wall), or `-inf` when it
    /// has not collided (or not within `t_c` of the last time origin move, see
    /// [`World::rebase`]). Kept only when `restitution < 1`: empty until the first dissipative
    /// collision, and always empty for elastic worlds. Part of the state a checkpoint must save.
    pub last_collision: Vec<f64>,
    /// The Coulomb friction coefficient `μ >= 0` of collisions in a rigid world (see
    /// [`rigid`]'s response); 0, the default, is frictionless. Ignored in a world of balls
    /// (balls there carry no spin).
    pub friction: f64,
    /// The shapes of rigid bodies, shared by index ([`RigidState::shape`]); empty for a world
    /// of balls.
    pub shapes: Vec<Shape<V>>,
    /// The meshes of mesh bodies ([`RigidState::mesh`] indexes them; see
    /// [`crate::rigid_mesh`]); empty when no body is a mesh.
    pub meshes: Vec<Arc<MeshShape<V>>>,
    /// Per body, its rotational state ([`crate::rigid`]), or empty for a world of balls (the
    /// balls' own fast path). Set by [`World::with_rigid`].
    pub rigid: Vec<RigidState<V>>,
    /// Per wall, the pieces rigid bodies are predicted against (empty for a world of balls).
    /// Built by [`World::with_rigid`] from the walls.
    pub wall_pieces: Vec<WallPieces<V>>,
    /// Uniform gravity (zero: none). Set by [`World::with_gravity`]; see its documentation
    /// for the motion and for sleeping bodies.
    pub gravity: V,
    /// The speed below which a body comes to rest on a support (see [`World::with_gravity`]).
    pub rest_speed: f64,
    /// Per body, whether it sleeps (empty without gravity).
    pub asleep: Vec<bool>,
    /// Per body, the sleeping body it came to rest on ([`NO_SUPPORT`] when it rests on a wall,
    /// or is awake); empty without gravity.
    pub support: Vec<u32>,
    /// Per body, how many sleeping bodies rest on it (such a body stays asleep and static);
    /// empty without gravity.
    pub holding: Vec<u32>,
}

/// A contact holds a body up (it may come to rest there, see [`World::with_gravity`]) when its
/// normal is within 60 degrees of straight up: the cosine of that angle.
pub const SUPPORT_ANGLE_COS: f64 = 0.5;

/// [`World::support`] of a body that rests on no other body.
pub const NO_SUPPORT: u32 = u32::MAX;

impl<V: Vector> World<V> {
    /// A world with the given bodies and walls and elastic collisions.
    pub fn new(bodies: Vec<Body<V>>, walls: Vec<Wall<V>>) -> Self {
        Self {
            bodies,
            walls,
            restitution: 1.0,
            period: None,
            images: Vec::new(),
            contact_duration: 0.0,
            last_collision: Vec::new(),
            friction: 0.0,
            shapes: Vec::new(),
            meshes: Vec::new(),
            rigid: Vec::new(),
            wall_pieces: Vec::new(),
            gravity: V::ZERO,
            rest_speed: 0.0,
            asleep: Vec::new(),
            support: Vec::new(),
            holding: Vec::new(),
        }
    }

    /// Adds uniform gravity `g`: between events a body's centre follows the parabola
    /// `x + v dt + g dt² / 2` (its rotation is unchanged: gravity exerts no torque about the
    /// centre of mass). Two moving bodies then have a linear relative motion, so their contacts
    /// keep the exact quadratic; a body and a wall (or a sleeping body) have a constant
    /// relative acceleration: the exact quadratic against a plane, the first root of a quartic
    /// against a segment's end or another ball ([`crate::ball_toi::first_contact_accel`]), and the
    /// advancement with an acceleration term for rigid bodies.
    ///
    /// **Resting contact.** Impulses cannot hold a body at rest on a floor (its bounces come
    /// ever faster), so a body comes to rest instead. After a contact with a *support* (a wall,
    /// or a sleeping body, whose contact normal points up), the body *sleeps* (its velocity and
    /// spin become zero and gravity stops acting on it) when every contact point leaves the
    /// support slower than `rest_speed` along the normal, for a normal within 60 degrees of
    /// straight up ([`SUPPORT_ANGLE_COS`]), or, on a steeper support, when no point of the body
    /// moves faster than `rest_speed` (a body wedged between steep supports, whose bounces
    /// only die out). Its tangential motion stops too (resting contact here is sticky), and a
    /// box may come to rest on an edge where a real one would tip over. A sleeping body is static
    /// for bodies that touch it slower than `rest_speed` (they bounce off it, or come to rest on
    /// it), and wakes when it is hit faster, taking its share of the impulse, unless another
    /// sleeping body rests on it: a body that holds another up stays static until that one
    /// wakes and leaves, so no body is ever left asleep in mid-air.
    pub fn with_gravity(mut self, g: V, rest_speed: f64) -> Self {
        self.gravity = g;
        self.rest_speed = rest_speed;
        let n = if g == V::ZERO { 0 } else { self.bodies.len() };
        self.asleep = vec![false; n];
        self.support = vec![NO_SUPPORT; n];
        self.holding = vec![0; n];
        self
    }

    /// The bodies' accelerations, as a view.
    #[inline]
    pub fn gravity_view(&self) -> Gravity<'_, V> {
        Gravity {
            g: self.gravity,
            asleep: &self.asleep,
        }
    }

    /// Whether body `i` sleeps (see [`World::with_gravity`]).
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

    /// Makes the bodies rigid bodies: `rigid[i]` is body `i`'s rotational state, its shape one
    /// of `shapes` (a body whose shape is a ball keeps the balls' exact predictions against
    /// other balls and walls). Each body's radius must be its shape's bounding radius about its
    /// centre of mass grown by [`rigid::RADIUS_MARGIN`] (see [`World::rigid_radius`]).
    ///
    /// # Panics
    /// When `rigid` does not have one state per body or names a shape that is not in `shapes`
    /// (a programming error: scenes check their bodies).
    pub fn with_rigid(mut self, shapes: Vec<Shape<V>>, rigid: Vec<RigidState<V>>) -> Self {
        assert_eq!(rigid.len(), self.bodies.len(), "one rigid state per body");
        assert!(
            rigid
                .iter()
                .all(|r| r.pieces >= 1 && (r.shape as usize + r.pieces as usize) <= shapes.len()),
            "a rigid state names a missing shape"
        );
        self.wall_pieces = self.walls.iter().map(WallPieces::of).collect();
        self.shapes = shapes;
        self.rigid = rigid;
        self
    }

    /// Gives the rigid world its `meshes`, which the rigid states' [`RigidState::mesh`] name
    /// (each such body's pieces being its mesh's triangles, in order).
    ///
    /// # Panics
    /// When a rigid state names a mesh that is not in `meshes`, or a body's pieces are not
    /// its mesh's triangles (a programming error: scenes build them together).
    pub fn with_meshes(mut self, meshes: Vec<MeshShape<V>>) -> Self {
        for r in &self.rigid {
            if let Some(m) = r.mesh {
                let mesh = &meshes
                    .get(m as usize)
                    .expect("a rigid state names a missing mesh");
                assert_eq!(
                    mesh.body.mesh.triangles().len(),
                    r.pieces as usize,
                    "a mesh body's pieces are its triangles"
                );
            }
        }
        self.meshes = meshes.into_iter().map(Arc::new).collect();
        self
    }

    /// The [`Body::radius`] of a rigid body whose shape's bounding radius about its centre of
    /// mass is `radius`: grown by [`rigid::RADIUS_MARGIN`] so that the sphere holds the
    /// contact shell too.
    pub fn rigid_radius(radius: f64) -> f64 {
        radius * (1.0 + rigid::RADIUS_MARGIN)
    }

    /// Whether body `i` is a rigid body of another shape than a ball (false in a world of
    /// balls).
    #[inline]
    pub fn is_rigid_shape(&self, i: usize) -> bool {
        !self.rigid.is_empty()
            && (self.rigid[i].pieces > 1
                || !matches!(self.shapes[self.rigid[i].shape as usize], Shape::Ball(_)))
    }

    /// Whether body `i` is a compound of convex pieces (false in a world of balls).
    #[inline]
    pub fn is_compound(&self, i: usize) -> bool {
        self.rigid.get(i).is_some_and(|r| r.pieces > 1)
    }

    /// Body `i` as a [`MovingPiece`] (a rigid world only).
    #[inline]
    fn mover(&self, i: usize) -> MovingPiece<'_, V> {
        let r = &self.rigid[i];
        MovingPiece::body(&self.shapes[r.shape as usize], &self.bodies[i], r)
            .with_accel(self.accel(i))
    }

    /// Body `i`'s pieces as [`MovingPiece`]s (one for a convex body; a rigid world only).
    #[inline]
    pub(crate) fn pieces(&self, i: usize) -> impl Iterator<Item = MovingPiece<'_, V>> + Clone {
        MovingPiece::pieces(&self.shapes, &self.bodies[i], &self.rigid[i], self.accel(i))
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
