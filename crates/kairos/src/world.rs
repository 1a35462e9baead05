//! The simulated world: bodies, walls, predictions and the collision response.

use crate::body::{Body, BodyId};
use crate::event::{Event, EventKind};
use crate::math::{nearest_image, Rotation, Vector};
use crate::rigid::{self, Mover, RigidState, Side, WallPieces};
use crate::rigid_mesh::{self, MeshShape};
use crate::shape::Shape;
use crate::toi::{
    ball_ball_accel, body_body, body_body_contact, body_body_periodic, body_body_periodic_by,
    body_wall_contact, box_exit, Contact, Toi, ToiStatus,
};
use crate::wall::{Wall, WallId};
use std::sync::Arc;

/// What [`World::resolve`] did to the first body of an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Response<V: Vector> {
    /// Impulse applied to body `a` (`None` when nothing was applied).
    pub impulse: Option<V>,
    /// Centre line at contact: body `a` minus body `b` (nearest image), or body `a` minus the
    /// wall's closest point; zero for a box crossing.
    pub separation: V,
    /// The contact's unit normal (from `b`, or the wall, towards `a`), when it is defined;
    /// `None` for a box crossing.
    pub normal: Option<V>,
    /// The event was no contact: a prediction that gave up ([`rigid::MAX_STEPS`] steps, or a
    /// mesh search that ended early) at a time when the bodies are still apart. Its bodies were
    /// moved to the event's time, nothing else changed, and their contacts are predicted again
    /// from there (see [`crate::event::EventKind::Resume`]).
    pub resumed: bool,
}

impl<V: Vector> Response<V> {
    /// No impulse and no contact (a box crossing).
    fn nothing() -> Self {
        Self {
            impulse: None,
            separation: V::ZERO,
            normal: None,
            resumed: false,
        }
    }
}

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
    /// Bodies, indexed by [`BodyId`].
    pub bodies: Vec<Body<V>>,
    /// Walls, indexed by [`WallId`].
    pub walls: Vec<Wall<V>>,
    /// Coefficient of restitution in `[0, 1]` (1 = elastic).
    pub restitution: f64,
    /// Box lengths of a periodic boundary on every axis (`[0, L)^d`), if any. Bodies then
    /// stay inside the box: a body reaching a face is wrapped to the opposite one by a
    /// [`EventKind::BoxCrossing`] event, and `images` counts the wraps.
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
    /// against a segment's end or another ball ([`crate::toi::first_contact_accel`]), and the
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

    /// Body `i` as a [`Mover`] (a rigid world only).
    #[inline]
    fn mover(&self, i: usize) -> Mover<'_, V> {
        let r = &self.rigid[i];
        Mover::body(&self.shapes[r.shape as usize], &self.bodies[i], r).with_accel(self.accel(i))
    }

    /// Body `i`'s pieces as [`Mover`]s (one for a convex body; a rigid world only).
    #[inline]
    pub(crate) fn pieces(&self, i: usize) -> impl Iterator<Item = Mover<'_, V>> + Clone {
        Mover::pieces(&self.shapes, &self.bodies[i], &self.rigid[i], self.accel(i))
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

    /// Mesh body `i` as the [`Mover`] of its convex hull.
    fn hull_mover<'s>(&'s self, i: usize, mesh: &'s MeshShape<V>) -> Mover<'s, V> {
        Mover::body(&mesh.hull, &self.bodies[i], &self.rigid[i]).with_accel(self.accel(i))
    }

    /// The first contact of rigid bodies `lo` and `hi` (at least one not a ball).
    #[inline]
    fn predict_rigid_pair(&self, lo: usize, hi: usize, t_max: f64) -> Toi {
        if let (Some(x), Some(y)) = (self.mesh_of(lo), self.mesh_of(hi)) {
            let (a, b) = (self.mover(lo), self.mover(hi));
            return rigid_mesh::mesh_mesh(&a, &x.body, &b, &y.body, t_max);
        }
        if self.is_compound(lo) || self.is_compound(hi) {
            // A mesh against a convex body: no piece of the mesh can touch the body before
            // the mesh's hull, which holds them all, does (see `predict_rigid_wall`).
            let hull_clear = |m: usize, other: usize| {
                self.mesh_of(m).is_some_and(|mesh| {
                    let hull = std::iter::once(self.hull_mover(m, mesh));
                    clean_miss(rigid::pieces_body_body(hull, self.pieces(other), t_max))
                })
            };
            if hull_clear(lo, hi) || hull_clear(hi, lo) {
                return Toi::miss(ToiStatus::Separating);
            }
            rigid::pieces_body_body(self.pieces(lo), self.pieces(hi), t_max)
        } else {
            rigid::body_body(&self.mover(lo), &self.mover(hi), t_max)
        }
    }

    /// The first contact of rigid body `i` (not a ball) with wall `w`.
    #[inline]
    fn predict_rigid_wall(&self, i: usize, w: usize, t_max: f64) -> Toi {
        if let (Some(mesh), WallPieces::Plane(_)) = (self.mesh_of(i), &self.wall_pieces[w]) {
            // A plane first meets the solid at a vertex of its hull.
            return rigid::body_wall(&self.hull_mover(i, mesh), &self.wall_pieces[w], t_max);
        }
        if self.is_compound(i) {
            // A mesh against a segment, a polygon or a static shape: the hull is tried first.
            // The solid lies inside its hull, so a hull that meets no piece of the wall by
            // `t_max` (a clean miss, not an advancement that gave up) proves that no triangle
            // piece does, and the many pieces are not visited; otherwise the pieces give the
            // answer, as without the hull. The result is the pieces' either way, a pure
            // function of the stored state.
            if let Some(mesh) = self.mesh_of(i) {
                let hull = rigid::body_wall(&self.hull_mover(i, mesh), &self.wall_pieces[w], t_max);
                if clean_miss(hull) {
                    return Toi::miss(ToiStatus::Separating);
                }
            }
            rigid::pieces_body_wall(self.pieces(i), &self.wall_pieces[w], t_max)
        } else {
            rigid::body_wall(&self.mover(i), &self.wall_pieces[w], t_max)
        }
    }

    /// Moves body `i`'s stored state (position and, for a rigid body, rotation) to time `t`.
    #[inline]
    pub fn advance_body(&mut self, i: usize, t: f64) {
        if let Some(r) = self.rigid.get_mut(i) {
            r.advance(t - self.bodies[i].time);
        }
        if self.gravity == V::ZERO {
            self.bodies[i].advance_to(t);
        } else {
            let a = self.accel(i);
            self.bodies[i].advance_accel(t, a);
        }
    }

    /// Body `i`'s mechanical energy: kinetic (linear, plus rotational for a rigid body), plus
    /// the potential energy `-m g · x` under gravity (constant in free flight, so taken at the
    /// body's local time).
    #[inline]
    pub fn body_energy(&self, i: usize) -> f64 {
        let b = &self.bodies[i];
        let kinetic = b.kinetic_energy() + self.rigid.get(i).map_or(0.0, RigidState::energy);
        if self.gravity == V::ZERO {
            kinetic
        } else {
            kinetic - b.mass() * self.gravity.dot(b.pos)
        }
    }

    /// The total angular momentum about the origin: `Σ m x × v` (constant in free flight, so
    /// each body's term may be taken at its own local time) plus each rigid body's spin
    /// angular momentum. In a periodic box the positions are the stored (wrapped) ones.
    pub fn angular_momentum(&self) -> V::Angular {
        let mut l = V::Angular::default();
        for (i, b) in self.bodies.iter().enumerate() {
            l = V::angular_add_scaled(l, V::cross_angular(b.pos, b.vel), b.mass());
            if let Some(r) = self.rigid.get(i) {
                l = V::angular_add_scaled(l, r.angular_momentum(), 1.0);
            }
        }
        l
    }

    /// Makes the boundary periodic with box lengths `period`: positions are wrapped into
    /// `[0, L)` and the wraps remembered, so unwrapped positions are unchanged.
    pub fn with_period(mut self, period: V) -> Self {
        self.images = vec![[0; 3]; self.bodies.len()];
        for (b, img) in self.bodies.iter_mut().zip(&mut self.images) {
            let mut p = b.pos.to_array3();
            for axis in 0..V::DIM {
                let l = period.comp(axis);
                let k = (p[axis] / l).floor();
                p[axis] -= k * l;
                if p[axis] >= l {
                    p[axis] = 0.0;
                }
                img[axis] = k as i64;
            }
            b.pos = V::from_array3(p);
        }
        self.period = Some(period);
        self
    }

    /// Position of body `i` at its local time, unwrapped (continuous across box crossings).
    #[inline]
    pub fn unwrapped_position(&self, i: BodyId) -> V {
        let b = &self.bodies[i as usize];
        match self.period {
            None => b.pos,
            Some(l) => {
                let img = self.images[i as usize];
                let mut p = b.pos;
                for (axis, &k) in img.iter().enumerate().take(V::DIM) {
                    p += V::unit(axis) * (k as f64 * l.comp(axis));
                }
                p
            }
        }
    }

    /// `a - b`, through the nearest periodic image when the boundary is periodic. Two touching
    /// balls are always nearest images of each other (box lengths exceed twice any contact
    /// distance), so this is the contact's centre line.
    #[inline]
    pub fn separation(&self, a: V, b: V) -> V {
        let d = a - b;
        match self.period {
            None => d,
            Some(l) => {
                let mut arr = d.to_array3();
                for (axis, x) in arr.iter_mut().enumerate().take(V::DIM) {
                    *x = nearest_image(*x, l.comp(axis));
                }
                V::from_array3(arr)
            }
        }
    }

    /// The box crossing of body `i`, if the boundary is periodic and the body moves.
    #[inline]
    pub fn box_event(&self, i: BodyId) -> Option<Event> {
        let l = self.period?;
        let (t, face) = box_exit(&self.bodies[i as usize], l);
        t.is_finite().then_some(Event {
            time: t,
            kind: EventKind::BoxCrossing,
            a: i,
            b: face,
        })
    }

    /// Contact time of bodies `i` and `j` (the narrow phase's [`body_body`], or
    /// [`body_body_periodic`] in a periodic box).
    #[inline]
    pub fn predict_pair(&self, i: BodyId, j: BodyId) -> Toi {
        let (lo, hi) = if i < j { (i, j) } else { (j, i) };
        if self.is_asleep(lo as usize) && self.is_asleep(hi as usize) {
            // Both at rest: they never meet (even touching, or overlapping by round-off).
            return Toi::miss(ToiStatus::Separating);
        }
        if self.gravity != V::ZERO
            && !self.is_rigid_shape(lo as usize)
            && !self.is_rigid_shape(hi as usize)
        {
            let (l, h) = (lo as usize, hi as usize);
            return ball_ball_accel(
                &self.bodies[l],
                self.accel(l),
                &self.bodies[h],
                self.accel(h),
            );
        }
        if self.is_rigid_shape(lo as usize) || self.is_rigid_shape(hi as usize) {
            return self.predict_rigid_pair(lo as usize, hi as usize, f64::INFINITY);
        }
        let (bi, bj) = (&self.bodies[lo as usize], &self.bodies[hi as usize]);
        match self.period {
            None => body_body(bi, bj),
            Some(l) => body_body_periodic(bi, bj, l),
        }
    }

    /// [`World::predict_pair`] for a caller that uses only contacts at or before `t_max`: the
    /// same report for those, and in a periodic box a miss without solving for a pair that
    /// cannot touch by then ([`body_body_periodic_by`]).
    #[inline]
    pub fn predict_pair_by(&self, i: BodyId, j: BodyId, t_max: f64) -> Toi {
        let Some(l) = self.period else {
            let (lo, hi) = if i < j { (i, j) } else { (j, i) };
            if self.is_asleep(lo as usize) && self.is_asleep(hi as usize) {
                return Toi::miss(ToiStatus::Separating);
            }
            if self.is_rigid_shape(lo as usize) || self.is_rigid_shape(hi as usize) {
                return self.predict_rigid_pair(lo as usize, hi as usize, t_max);
            }
            return self.predict_pair(i, j);
        };
        let (lo, hi) = if i < j { (i, j) } else { (j, i) };
        let (bi, bj) = (&self.bodies[lo as usize], &self.bodies[hi as usize]);
        body_body_periodic_by(bi, bj, l, t_max, || {
            box_exit(bi, l).0.min(box_exit(bj, l).0)
        })
    }

    /// Contact time of body `i` with wall `w` (the narrow phase's [`body_wall`]).
    #[inline]
    pub fn predict_wall(&self, i: BodyId, w: WallId) -> Toi {
        if self.is_asleep(i as usize) {
            return Toi::miss(ToiStatus::Separating);
        }
        if self.is_rigid_shape(i as usize) {
            return self.predict_rigid_wall(i as usize, w as usize, f64::INFINITY);
        }
        let accel = (self.gravity != V::ZERO).then(|| self.accel(i as usize));
        rigid::ball_wall(&self.bodies[i as usize], accel, &self.walls[w as usize])
    }

    /// The contact of `event` (a collision), from its bodies' stored states: call it once they
    /// are advanced to the event's time.
    #[inline]
    pub fn contact(&self, event: &Event) -> Contact<V> {
        let a = &self.bodies[event.a as usize];
        match event.kind {
            EventKind::BodyBody => {
                let b = &self.bodies[event.b as usize];
                body_body_contact(a, b, self.separation(a.pos, b.pos))
            }
            _ => body_wall_contact(a, &self.walls[event.b as usize]),
        }
    }

    /// [`World::predict_wall`] for a caller that uses only contacts at or before `t_max`: the
    /// same report for those; a rigid body's advancement stops at `t_max`.
    #[inline]
    pub fn predict_wall_by(&self, i: BodyId, w: WallId, t_max: f64) -> Toi {
        if self.is_asleep(i as usize) {
            return Toi::miss(ToiStatus::Separating);
        }
        if self.is_rigid_shape(i as usize) {
            return self.predict_rigid_wall(i as usize, w as usize, t_max);
        }
        self.predict_wall(i, w)
    }

    /// [`World::pair_event`] for a caller that uses only events at or before `t_max`.
    #[inline]
    pub fn pair_event_by(&self, i: BodyId, j: BodyId, t_max: f64) -> Option<Event> {
        let t = self.predict_pair_by(i, j, t_max);
        t.is_hit().then(|| Event {
            time: t.time,
            kind: EventKind::BodyBody,
            a: i.min(j),
            b: i.max(j),
        })
    }

    /// [`World::wall_event`] for a caller that uses only events at or before `t_max`.
    #[inline]
    pub fn wall_event_by(&self, i: BodyId, w: WallId, t_max: f64) -> Option<Event> {
        let t = self.predict_wall_by(i, w, t_max);
        t.is_hit().then_some(Event {
            time: t.time,
            kind: EventKind::BodyWall,
            a: i,
            b: w,
        })
    }

    /// The ball-ball event of `i` and `j`, if they collide.
    #[inline]
    pub fn pair_event(&self, i: BodyId, j: BodyId) -> Option<Event> {
        let t = self.predict_pair(i, j);
        t.is_hit().then(|| Event {
            time: t.time,
            kind: EventKind::BodyBody,
            a: i.min(j),
            b: i.max(j),
        })
    }

    /// The ball-wall event of `i` and `w`, if they collide.
    #[inline]
    pub fn wall_event(&self, i: BodyId, w: WallId) -> Option<Event> {
        let t = self.predict_wall(i, w);
        t.is_hit().then_some(Event {
            time: t.time,
            kind: EventKind::BodyWall,
            a: i,
            b: w,
        })
    }

    /// Processes `event`: moves its bodies to the event time and applies the impulse along the
    /// contact normal with the world's restitution (elastic within [`World::contact_duration`]
    /// of either body's previous collision, the TC model, which ends inelastic collapse; a box
    /// crossing wraps the body instead).
    /// The impulse is not applied when the bodies were not approaching along the normal at
    /// contact (round-off at a graze); the velocities are then left unchanged.
    pub fn resolve(&mut self, event: &Event) -> Response<V> {
        let mut response = self.respond(event);
        if event.kind != EventKind::BoxCrossing {
            self.ensure_separating(event, &mut response);
        }
        response
    }

    /// After a collision, the pair must not be predicted to collide again at once. With
    /// restitution below 1 (or at a graze), round-off can leave a touching pair approaching by a
    /// few ulps, and the same event would repeat forever. This asks the prediction itself (the
    /// very predicate every broad phase uses) and, while it still says "contact now", adds a
    /// tiny outward normal velocity, doubling it each time: a correction at round-off level.
    fn ensure_separating(&mut self, event: &Event, response: &mut Response<V>) {
        let Some(n) = response.normal else {
            return;
        };
        let (ia, ib) = (event.a as usize, event.b as usize);
        let mut nudge = 4.0 * f64::EPSILON;
        for _ in 0..64 {
            // In a periodic box the bounded prediction usually answers without solving (after a
            // collision the pair separates).
            let again = match event.kind {
                EventKind::BodyBody => self.predict_pair_by(event.a, event.b, event.time),
                _ => self.predict_wall_by(event.a, event.b, event.time),
            };
            if !(again.is_hit() && again.time <= event.time) {
                return;
            }
            let scale = match event.kind {
                EventKind::BodyBody => self.bodies[ia].vel.length() + self.bodies[ib].vel.length(),
                _ => self.bodies[ia].vel.length(),
            };
            let dv = nudge * scale.max(f64::MIN_POSITIVE);
            match event.kind {
                EventKind::BodyBody => {
                    // A sleeping body stays at rest: the other one takes the whole nudge.
                    let awake = |w: &Self, i: usize| if w.is_asleep(i) { 0.0 } else { 1.0 };
                    let (ima, imb) = (
                        awake(self, ia) * self.bodies[ia].inv_mass,
                        awake(self, ib) * self.bodies[ib].inv_mass,
                    );
                    let w = ima + imb;
                    if !(w > 0.0) {
                        return;
                    }
                    self.bodies[ia].vel += n * (dv * ima / w);
                    self.bodies[ib].vel -= n * (dv * imb / w);
                    let j = n * (dv / w);
                    response.impulse = Some(response.impulse.map_or(j, |i| i + j));
                }
                _ => {
                    if self.is_asleep(ia) {
                        return;
                    }
                    let m = self.bodies[ia].mass();
                    self.bodies[ia].vel += n * dv;
                    response.impulse =
                        Some(response.impulse.map_or(n * (dv * m), |i| i + n * (dv * m)));
                }
            }
            nudge *= 2.0;
        }
    }

    /// The restitution of a collision at local time `t` of body `ia` with body `ib` (or with a
    /// wall, `ib = None`), under the TC model (Luding and McNamara 1998): the world's
    /// restitution, except that the collision is elastic when either body collided less than
    /// [`World::contact_duration`] before. Records `t` as both bodies' last collision. Elastic
    /// worlds return at once and keep no times.
    ///
    /// This ends inelastic collapse: in a cluster colliding ever faster, the collisions come
    /// closer together than `t_c` and stop dissipating, so their sequence cannot converge to
    /// an instant.
    #[inline]
    fn collision_restitution(&mut self, t: f64, ia: usize, ib: Option<usize>) -> f64 {
        if !(self.restitution < 1.0) {
            return self.restitution;
        }
        if self.last_collision.len() != self.bodies.len() {
            self.last_collision = vec![f64::NEG_INFINITY; self.bodies.len()];
        }
        let tc = self.contact_duration;
        let mut elastic = t - self.last_collision[ia] < tc;
        self.last_collision[ia] = t;
        if let Some(ib) = ib {
            elastic |= t - self.last_collision[ib] < tc;
            self.last_collision[ib] = t;
        }
        if elastic {
            1.0
        } else {
            self.restitution
        }
    }

    /// The factor (1 or 0) of body `i`'s inverse mass in a collision approaching at `speed`: 0
    /// for a sleeping body hit slower than [`World::rest_speed`] (it stays asleep and static),
    /// 1 otherwise, waking a sleeping body.
    #[inline]
    fn moving_or_woken(&mut self, i: usize, speed: f64) -> f64 {
        if !self.is_asleep(i) {
            return 1.0;
        }
        if speed < self.rest_speed || self.holding[i] > 0 {
            return 0.0;
        }
        self.asleep[i] = false;
        let s = std::mem::replace(&mut self.support[i], NO_SUPPORT);
        if s != NO_SUPPORT {
            self.holding[s as usize] -= 1;
        }
        1.0
    }

    /// How a contact normal `n` (pointing towards the body) holds the body against gravity:
    /// `Some(true)` within [`SUPPORT_ANGLE_COS`] of straight up, `Some(false)` for a steeper
    /// contact that still points up, `None` otherwise.
    #[inline]
    fn supports(&self, n: V) -> Option<bool> {
        let up = -n.dot(self.gravity);
        (up > 0.0).then(|| up >= SUPPORT_ANGLE_COS * self.gravity.length())
    }

    /// Puts body `i` to sleep on `support` (a sleeping body, or `None` for a wall): at rest, out
    /// of gravity's reach (see [`World::with_gravity`]).
    fn fall_asleep(&mut self, i: usize, support: Option<usize>) {
        self.bodies[i].vel = V::ZERO;
        if let Some(r) = self.rigid.get_mut(i) {
            r.set_angular_velocity(V::Angular::default());
        }
        self.asleep[i] = true;
        if let Some(s) = support {
            self.support[i] = s as u32;
            self.holding[s] += 1;
        }
    }

    /// After ball `i`'s collision with a support (a wall, or a sleeping body) along `n`
    /// (pointing towards the ball): it sleeps when the support holds it against gravity and it
    /// leaves slower than [`World::rest_speed`].
    fn settle_ball(&mut self, i: usize, n: V, support: Option<usize>) {
        let v = self.bodies[i].vel;
        let rest = match self.supports(n) {
            Some(true) => v.dot(n) < self.rest_speed,
            Some(false) => v.length() < self.rest_speed,
            None => false,
        };
        if rest {
            self.fall_asleep(i, support);
        }
    }

    /// After rigid body `i`'s contact with a support along `n` (pointing towards the body) at
    /// `points`: it sleeps when the support holds it against gravity and every contact point
    /// leaves slower than [`World::rest_speed`].
    fn settle_rigid(&mut self, i: usize, n: V, points: &[V], support: Option<usize>) {
        let Some(flat) = self.supports(n) else {
            return;
        };
        if points.is_empty() {
            return;
        }
        let (b, r) = (&self.bodies[i], &self.rigid[i]);
        let slow = if flat {
            points.iter().all(|&p| {
                n.dot(b.vel + V::angular_cross(r.angular_velocity, p - b.pos)) < self.rest_speed
            })
        } else {
            b.vel.length() + r.spin_bound() * r.radius < self.rest_speed
        };
        if slow {
            self.fall_asleep(i, support);
        }
    }

    /// [`World::settle`] for each of the contact sets of a rigid response (normals from `a` to
    /// `b`), nearest first, until the body sleeps.
    fn settle_all(&mut self, event: &Event, contacts: &[rigid::ContactSet<V>]) {
        let (ia, ib) = (event.a as usize, event.b as usize);
        let before = (self.is_asleep(ia), self.is_asleep(ib));
        for c in contacts {
            self.settle(event, -c.normal, &c.points);
            if (self.is_asleep(ia), self.is_asleep(ib)) != before {
                break;
            }
        }
    }

    /// After a contact of `event`'s bodies along `n` (from `b`, or the wall, towards `a`) at
    /// `points` (empty for balls): a moving body on a support may come to rest (see
    /// [`World::with_gravity`]).
    fn settle(&mut self, event: &Event, n: V, points: &[V]) {
        let (ia, ib) = (event.a as usize, event.b as usize);
        let pair = event.kind == EventKind::BodyBody;
        let (on, body, normal, support) = if !pair {
            (true, ia, n, None)
        } else if self.is_asleep(ib) {
            (true, ia, n, Some(ib))
        } else if self.is_asleep(ia) {
            (true, ib, -n, Some(ia))
        } else {
            (false, ia, n, None)
        };
        if !on || self.is_asleep(body) {
            return;
        }
        if self.rigid.is_empty() || points.is_empty() {
            self.settle_ball(body, normal, support);
        } else {
            self.settle_rigid(body, normal, points, support);
        }
    }

    /// The response to a collision of a rigid body of another shape than a ball (see
    /// [`rigid`]): impulses with their angular terms at the contact's points.
    fn respond_rigid(&mut self, event: &Event) -> Response<V> {
        let ia = event.a as usize;
        let pair = event.kind == EventKind::BodyBody;
        let ib = event.b as usize;
        self.advance_body(ia, event.time);
        if pair {
            self.advance_body(ib, event.time);
        }
        let t = event.time;
        let contacts = match (self.mesh_of(ia), pair.then(|| self.mesh_of(ib)).flatten()) {
            (Some(x), Some(y)) => {
                let (pa, pb): (Vec<_>, Vec<_>) =
                    (self.pieces(ia).collect(), self.pieces(ib).collect());
                rigid_mesh::mesh_contact_sets(
                    &self.mover(ia),
                    &x.body,
                    &pa,
                    &self.mover(ib),
                    &y.body,
                    &pb,
                    t,
                )
            }
            (Some(x), None) if !pair && matches!(self.wall_pieces[ib], WallPieces::Plane(_)) => {
                let hull = std::iter::once(self.hull_mover(ia, x));
                rigid::pieces_wall_contact_sets(hull, &self.wall_pieces[ib], t)
            }
            _ if pair => rigid::pieces_contact_sets(self.pieces(ia), self.pieces(ib), t),
            _ => rigid::pieces_wall_contact_sets(self.pieces(ia), &self.wall_pieces[ib], t),
        };
        // A prediction that gave up before a contact (its step limit, or a mesh search that
        // ended early) is no contact: the bodies, moved to its time, are predicted again from
        // there ([`rigid::contact_tolerance`]).
        let involved = if pair { &[ia, ib][..] } else { &[ia][..] };
        let (mut reach, mut size, mut speed) = (0.0, 0.0, 0.0);
        for &i in involved {
            let (b, r) = (&self.bodies[i], &self.rigid[i]);
            reach += b.radius;
            size += b.pos.length();
            speed += b.vel.length() + r.spin_bound() * b.radius;
        }
        let tolerance = rigid::contact_tolerance(reach, size, t, speed);
        if contacts.first().is_none_or(|c| c.gap > tolerance) {
            return Response {
                resumed: true,
                ..Response::nothing()
            };
        }
        // The nearest set names the contact (its normal and place).
        let contact = contacts.first().cloned().unwrap_or_default();
        let side = |w: &Self, i: usize| {
            let (b, r) = (&w.bodies[i], &w.rigid[i]);
            Side {
                vel: b.vel,
                omega: r.angular_velocity,
                centre: b.pos,
                inv_mass: b.inv_mass,
                rotation: r.rotation,
                inv_inertia: r.inv_inertia,
            }
        };
        let mut a = side(self, ia);
        let mut b = if pair {
            side(self, ib)
        } else {
            Side {
                vel: V::ZERO,
                omega: V::Angular::default(),
                centre: V::ZERO,
                inv_mass: 0.0,
                rotation: V::Rotation::IDENTITY,
                inv_inertia: self.rigid[ia].inv_inertia,
            }
        };
        let separation = if pair {
            self.separation(a.centre, b.centre)
        } else {
            contact.points.first().map_or(V::ZERO, |&p| a.centre - p)
        };
        let normal = (contact.normal != V::ZERO).then_some(-contact.normal);
        let approach = contacts
            .iter()
            .flat_map(|c| c.points.iter().map(move |&p| (c.normal, p)))
            .fold(f64::NEG_INFINITY, |m, (n, p)| {
                let vb = if pair {
                    b.vel + V::angular_cross(b.omega, p - b.centre)
                } else {
                    V::ZERO
                };
                m.max(n.dot(a.vel + V::angular_cross(a.omega, p - a.centre) - vb))
            });
        let none = Response {
            impulse: None,
            separation,
            normal,
            resumed: false,
        };
        if normal.is_none() {
            return none;
        }
        if !(approach > 0.0) {
            // A contact that does not close: under gravity, a body pressed on its support by
            // gravity alone may come to rest here.
            if self.gravity != V::ZERO {
                self.settle_all(event, &contacts);
            }
            return none;
        }
        if self.gravity != V::ZERO {
            a.inv_mass *= self.moving_or_woken(ia, approach);
            if pair {
                b.inv_mass *= self.moving_or_woken(ib, approach);
            }
            if !(a.inv_mass + b.inv_mass > 0.0) {
                return none;
            }
        }
        let e = self.collision_restitution(t, ia, pair.then_some(ib));
        let j = rigid::respond(&mut a, &mut b, &contacts, e, self.friction);
        self.bodies[ia].vel = a.vel;
        self.rigid[ia].set_angular_velocity(a.omega);
        if pair {
            self.bodies[ib].vel = b.vel;
            self.rigid[ib].set_angular_velocity(b.omega);
        }
        if self.gravity != V::ZERO {
            self.settle_all(event, &contacts);
        }
        Response {
            impulse: Some(j),
            separation,
            normal,
            resumed: false,
        }
    }

    fn respond(&mut self, event: &Event) -> Response<V> {
        if event.kind != EventKind::BoxCrossing
            && (self.is_rigid_shape(event.a as usize)
                || (event.kind == EventKind::BodyBody && self.is_rigid_shape(event.b as usize))
                || (self.friction > 0.0 && !self.rigid.is_empty()))
        {
            return self.respond_rigid(event);
        }
        let none = |contact: Contact<V>| Response {
            impulse: None,
            separation: contact.separation,
            normal: contact.normal,
            resumed: false,
        };
        match event.kind {
            EventKind::BodyBody => {
                let (ia, ib) = (event.a as usize, event.b as usize);
                self.advance_body(ia, event.time);
                self.advance_body(ib, event.time);
                let contact = self.contact(event);
                let Some(n) = contact.normal else {
                    return none(contact);
                };
                let (ba, bb) = (&self.bodies[ia], &self.bodies[ib]);
                let vn = (ba.vel - bb.vel).dot(n);
                if !(vn < 0.0) {
                    if self.gravity != V::ZERO {
                        self.settle(event, n, &[]);
                    }
                    return none(contact);
                }
                let (ima, imb) = (ba.inv_mass, bb.inv_mass);
                let (ima, imb) = if self.gravity == V::ZERO {
                    (ima, imb)
                } else {
                    (
                        self.moving_or_woken(ia, -vn) * ima,
                        self.moving_or_woken(ib, -vn) * imb,
                    )
                };
                if !(ima + imb > 0.0) {
                    return none(contact);
                }
                let e = self.collision_restitution(event.time, ia, Some(ib));
                let j = -(1.0 + e) * vn / (ima + imb);
                self.bodies[ia].vel += n * (j * ima);
                self.bodies[ib].vel -= n * (j * imb);
                if self.gravity != V::ZERO {
                    self.settle(event, n, &[]);
                }
                Response {
                    impulse: Some(n * j),
                    separation: contact.separation,
                    normal: contact.normal,
                    resumed: false,
                }
            }
            EventKind::BodyWall => {
                let ia = event.a as usize;
                self.advance_body(ia, event.time);
                let contact = self.contact(event);
                let Some(n) = contact.normal else {
                    return none(contact);
                };
                let b = &self.bodies[ia];
                let vn = b.vel.dot(n);
                if !(vn < 0.0) {
                    if self.gravity != V::ZERO {
                        self.settle(event, n, &[]);
                    }
                    return none(contact);
                }
                let m = b.mass();
                let e = self.collision_restitution(event.time, ia, None);
                self.bodies[ia].vel -= n * ((1.0 + e) * vn);
                if self.gravity != V::ZERO {
                    self.settle(event, n, &[]);
                }
                Response {
                    impulse: Some(n * (-(1.0 + e) * vn * m)),
                    separation: contact.separation,
                    normal: contact.normal,
                    resumed: false,
                }
            }
            // Broad phases never predict one: it is what the simulation calls a processed
            // event that turned out to be none.
            EventKind::Resume => Response::nothing(),
            EventKind::BoxCrossing => {
                let Some(l) = self.period else {
                    return Response::nothing();
                };
                let ia = event.a as usize;
                let axis = (event.b / 2) as usize;
                let upper = event.b % 2 == 1;
                self.advance_body(ia, event.time);
                let b = &mut self.bodies[ia];
                // The body is placed exactly on the opposite face.
                let mut p = b.pos.to_array3();
                p[axis] = if upper { 0.0 } else { l.comp(axis) };
                b.pos = V::from_array3(p);
                self.images[ia][axis] += if upper { 1 } else { -1 };
                Response::nothing()
            }
        }
    }

    /// Total kinetic energy (linear, plus rotational for rigid bodies).
    pub fn kinetic_energy(&self) -> f64 {
        if self.rigid.is_empty() {
            self.bodies.iter().map(Body::kinetic_energy).sum()
        } else {
            self.bodies
                .iter()
                .zip(&self.rigid)
                .map(|(b, r)| b.kinetic_energy() + r.energy())
                .sum()
        }
    }

    /// Total mechanical energy: [`World::kinetic_energy`], plus the potential energy under
    /// gravity (see [`World::body_energy`]). Conserved by elastic collisions.
    pub fn energy(&self) -> f64 {
        if self.rigid.is_empty() && self.gravity == V::ZERO {
            return self.kinetic_energy();
        }
        (0..self.bodies.len()).map(|i| self.body_energy(i)).sum()
    }

    /// Total linear momentum.
    pub fn momentum(&self) -> V {
        self.bodies
            .iter()
            .fold(V::ZERO, |acc, b| acc + b.vel * b.mass())
    }

    /// Moves the time origin to local time `t`: every body is advanced to `t` and its local time
    /// becomes 0, and the last-collision times are shifted by `-t` (see
    /// [`crate::sim::Simulation`]). A last collision at least `t_c` before `t` can no longer
    /// make any collision elastic and becomes `-inf`; the others lie within `t_c` of `t`, so
    /// for `t_c <= t / 2` their shift is exact (Sterbenz).
    pub fn rebase(&mut self, t: f64) {
        self.advance_all_to(t);
        for b in &mut self.bodies {
            b.time = 0.0;
        }
        let tc = self.contact_duration;
        for last in &mut self.last_collision {
            *last = if t - *last < tc {
                *last - t
            } else {
                f64::NEG_INFINITY
            };
        }
    }

    /// Moves every body's stored state to time `t` (used at the end of a run). In a periodic
    /// box, positions may lie up to one crossing outside the box afterwards.
    pub fn advance_all_to(&mut self, t: f64) {
        for i in 0..self.bodies.len() {
            self.advance_body(i, t);
        }
    }
}

/// Whether a prediction proves that no contact comes by its bound: a miss, not a contact nor
/// an advancement that gave up (which is reported at its last safe time, as a hit).
#[inline]
fn clean_miss(toi: Toi) -> bool {
    !toi.is_hit()
}
