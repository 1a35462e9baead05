//! Building a [`World`]: [`WorldBuilder`] checks every body, the response law and each
//! combination of features (periodic box, gravity, rigid bodies, meshes) and refuses what the
//! world cannot simulate ([`WorldError`]); it computes each body's [`BodyKind`] once, which
//! every prediction then dispatches on.

use super::{World, NO_SUPPORT};
use crate::body::Body;
use crate::math::Vector;
use crate::rigid::{RigidState, WallPieces};
use crate::rigid_mesh::MeshShape;
use crate::shape::Shape;
use crate::wall::Wall;
use std::sync::Arc;

/// What a body is, for the dispatch of its predictions and responses: computed once by
/// [`WorldBuilder::build`] ([`World::kind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// A ball (a plain [`Body`], or a rigid body whose one shape is a ball): the closed forms
    /// of [`crate::ball_toi`] against balls and walls.
    Ball,
    /// A rigid body of one convex shape other than a ball: [`crate::rigid`]'s advancement.
    Convex,
    /// A compound of convex pieces in one frame (a concave polygon): the earliest contact of
    /// its pieces.
    Compound,
    /// A triangle mesh (its pieces are its triangles, predicted by [`crate::rigid_mesh`]
    /// against another mesh, through its hull and pieces against the rest).
    Mesh,
}

/// Why a [`WorldBuilder`] refused to build a world.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WorldError {
    /// A body's position, velocity or local time is not finite, its radius not positive and
    /// finite, or its mass not positive and finite.
    #[error("body {body}: {problem}")]
    Body {
        /// The body's index.
        body: usize,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// The restitution is not in `[0, 1]`.
    #[error("the restitution must be in [0, 1], got {0}")]
    Restitution(f64),
    /// The contact duration is negative or not finite.
    #[error("the contact duration must be finite and at least 0, got {0}")]
    ContactDuration(f64),
    /// The friction coefficient is negative or not finite.
    #[error("the friction coefficient must be finite and at least 0, got {0}")]
    Friction(f64),
    /// Friction in a world of balls, whose bodies carry no spin.
    #[error("friction needs rigid bodies: balls without a rigid state carry no spin")]
    FrictionWithoutRigid,
    /// The gravity is not finite, or the rest speed is negative or not finite.
    #[error("the gravity must be finite and the rest speed finite and at least 0")]
    Gravity,
    /// A box length of the periodic boundary is not positive and finite, or not more than
    /// twice the largest contact distance (four times the largest radius).
    #[error("box length {0} of the periodic boundary must be finite and exceed four times the largest radius")]
    Period(f64),
    /// A periodic box with walls, rigid bodies or gravity.
    #[error("a periodic box cannot hold {0}")]
    PeriodicWith(&'static str),
    /// Rigid states that are not one per body.
    #[error("{states} rigid states for {bodies} bodies: give one per body")]
    RigidStates {
        /// How many states were given.
        states: usize,
        /// How many bodies there are.
        bodies: usize,
    },
    /// A rigid state that names shapes the world does not have.
    #[error("body {0}: its rigid state names a shape that is not in the world's shapes")]
    MissingShape(usize),
    /// A rigid body whose sphere (its [`Body::radius`]) does not hold its shape (a ball) or its
    /// shape grown by the contact shell ([`World::rigid_radius`], any other shape).
    #[error("body {0}: its radius must hold its shape: a ball's radius, or the shape's bounding radius grown by rigid::RADIUS_MARGIN (World::rigid_radius)")]
    RigidRadius(usize),
    /// A mesh body whose mesh is missing, or whose pieces are not its mesh's triangles.
    #[error("body {0}: its rigid state names a missing mesh, or its pieces are not the mesh's triangles")]
    Mesh(usize),
    /// Meshes without rigid states.
    #[error("meshes need rigid bodies: give the rigid states that name them")]
    MeshesWithoutRigid,
}

/// The shapes and rigid states of a rigid world ([`WorldBuilder::rigid`]).
type RigidParts<V> = (Vec<Shape<V>>, Vec<RigidState<V>>);

/// Builds a [`World`] ([`World::builder`]): bodies and walls, then the optional parts, then
/// [`WorldBuilder::build`], which checks them all.
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct WorldBuilder<V: Vector> {
    bodies: Vec<Body<V>>,
    walls: Vec<Wall<V>>,
    restitution: f64,
    contact_duration: f64,
    friction: f64,
    period: Option<V>,
    gravity: Option<(V, f64)>,
    rigid: Option<RigidParts<V>>,
    meshes: Vec<MeshShape<V>>,
}

impl<V: Vector> World<V> {
    /// A builder of a world with the given bodies and walls: elastic collisions, no friction,
    /// open space, no gravity, balls, until its methods say otherwise.
    pub fn builder(bodies: Vec<Body<V>>, walls: Vec<Wall<V>>) -> WorldBuilder<V> {
        WorldBuilder {
            bodies,
            walls,
            restitution: 1.0,
            contact_duration: 0.0,
            friction: 0.0,
            period: None,
            gravity: None,
            rigid: None,
            meshes: Vec::new(),
        }
    }
}

impl<V: Vector> WorldBuilder<V> {
    /// The coefficient of restitution in `[0, 1]` (1, the default, is elastic).
    pub fn restitution(mut self, e: f64) -> Self {
        self.restitution = e;
        self
    }

    /// The contact duration `t_c` of the TC model (Luding and McNamara 1998): a collision of
    /// a body less than `t_c` after that body's previous collision is elastic (see
    /// [`World::resolve`]). Used only when the restitution is below 1; 0 by default.
    pub fn contact_duration(mut self, t_c: f64) -> Self {
        self.contact_duration = t_c;
        self
    }

    /// The Coulomb friction coefficient `μ >= 0` of collisions (rigid bodies only; 0, the
    /// default, is frictionless).
    pub fn friction(mut self, mu: f64) -> Self {
        self.friction = mu;
        self
    }

    /// A periodic boundary with box lengths `period` on every axis (`[0, L)^d`): positions
    /// are wrapped into the box and the wraps remembered, so unwrapped positions are
    /// unchanged. A body reaching a face is then wrapped to the opposite one by a
    /// [`EventKind::BoxCrossing`](crate::event::EventKind::BoxCrossing) event. Balls only,
    /// without walls or gravity.
    pub fn period(mut self, period: V) -> Self {
        self.period = Some(period);
        self
    }

    /// Uniform gravity `g`, with the speed below which a body comes to rest on a support.
    ///
    /// Between events a body's centre follows the parabola `x + v dt + g dt² / 2` (its
    /// rotation is unchanged: gravity exerts no torque about the centre of mass). Two moving
    /// bodies then have a linear relative motion, so their contacts keep the exact quadratic;
    /// a body and a wall (or a sleeping body) have a constant relative acceleration: the exact
    /// quadratic against a plane, the first root of a quartic against a segment's end or
    /// another ball ([`crate::ball_toi::first_contact_accel`]), and the advancement with an
    /// acceleration term for rigid bodies.
    ///
    /// **Resting contact.** Impulses cannot hold a body at rest on a floor (its bounces come
    /// ever faster), so a body comes to rest instead. After a contact with a *support* (a
    /// wall, or a sleeping body, whose contact normal points up), the body *sleeps* (its
    /// velocity and spin become zero and gravity stops acting on it) when every contact point
    /// leaves the support slower than `rest_speed` along the normal, for a normal within 60
    /// degrees of straight up ([`super::SUPPORT_ANGLE_COS`]), or, on a steeper support, when
    /// no point of the body moves faster than `rest_speed` (a body wedged between steep
    /// supports, whose bounces only die out). Its tangential motion stops too (resting contact
    /// here is sticky), and a box may come to rest on an edge where a real one would tip over.
    /// A sleeping body is static for bodies that touch it slower than `rest_speed` (they
    /// bounce off it, or come to rest on it), and wakes when it is hit faster, taking its
    /// share of the impulse, unless another sleeping body rests on it: a body that holds
    /// another up stays static until that one wakes and leaves, so no body is ever left asleep
    /// in mid-air.
    pub fn gravity(mut self, g: V, rest_speed: f64) -> Self {
        self.gravity = Some((g, rest_speed));
        self
    }

    /// Makes the bodies rigid bodies: `states[i]` is body `i`'s rotational state, its shape
    /// (or its pieces) among `shapes`. A body whose shape is a ball keeps the balls' exact
    /// predictions against other balls and walls. Each body's radius must hold its shape: a
    /// ball's radius, or any other shape's bounding radius about its centre of mass grown by
    /// [`crate::rigid::RADIUS_MARGIN`] ([`World::rigid_radius`]; [`RigidState::body`] makes
    /// both).
    pub fn rigid(mut self, shapes: Vec<Shape<V>>, states: Vec<RigidState<V>>) -> Self {
        self.rigid = Some((shapes, states));
        self
    }

    /// The meshes of mesh bodies, which the rigid states' [`RigidState::mesh`] name (each such
    /// body's pieces being its mesh's triangles, in order).
    pub fn meshes(mut self, meshes: Vec<MeshShape<V>>) -> Self {
        self.meshes = meshes;
        self
    }

    /// The world, or why it cannot be simulated.
    pub fn build(self) -> Result<World<V>, WorldError> {
        check_bodies(&self.bodies)?;
        let e = self.restitution;
        if !(0.0..=1.0).contains(&e) {
            return Err(WorldError::Restitution(e));
        }
        let t_c = self.contact_duration;
        if !(t_c >= 0.0 && t_c.is_finite()) {
            return Err(WorldError::ContactDuration(t_c));
        }
        let mu = self.friction;
        if !(mu >= 0.0 && mu.is_finite()) {
            return Err(WorldError::Friction(mu));
        }
        if mu > 0.0 && self.rigid.is_none() {
            return Err(WorldError::FrictionWithoutRigid);
        }
        if let Some((g, rest_speed)) = self.gravity {
            if !(g.is_finite() && rest_speed >= 0.0 && rest_speed.is_finite()) {
                return Err(WorldError::Gravity);
            }
        }
        if let Some(l) = self.period {
            let r_max = self.bodies.iter().map(|b| b.radius).fold(0.0, f64::max);
            for axis in 0..V::DIM {
                let x = l.comp(axis);
                if !(x > 4.0 * r_max && x.is_finite()) {
                    return Err(WorldError::Period(x));
                }
            }
            if !self.walls.is_empty() {
                return Err(WorldError::PeriodicWith("walls"));
            }
            if self.rigid.is_some() {
                return Err(WorldError::PeriodicWith("rigid bodies"));
            }
            if self.gravity.is_some_and(|(g, _)| g != V::ZERO) {
                return Err(WorldError::PeriodicWith(
                    "gravity: it needs walls to land on",
                ));
            }
        }
        let kinds = match &self.rigid {
            None if !self.meshes.is_empty() => return Err(WorldError::MeshesWithoutRigid),
            None => Vec::new(),
            Some((shapes, states)) => kinds_of(&self.bodies, shapes, states, &self.meshes)?,
        };

        let n = self.bodies.len();
        let mut world = World {
            bodies: self.bodies,
            walls: self.walls,
            restitution: self.restitution,
            period: None,
            images: Vec::new(),
            contact_duration: self.contact_duration,
            last_collision: Vec::new(),
            friction: self.friction,
            shapes: Vec::new(),
            meshes: Vec::new(),
            rigid: Vec::new(),
            kinds,
            wall_pieces: Vec::new(),
            gravity: V::ZERO,
            rest_speed: 0.0,
            asleep: Vec::new(),
            support: Vec::new(),
            holding: Vec::new(),
        };
        if let Some(period) = self.period {
            world.wrap_into(period);
        }
        if let Some((g, rest_speed)) = self.gravity {
            world.gravity = g;
            world.rest_speed = rest_speed;
            let n = if g == V::ZERO { 0 } else { n };
            world.asleep = vec![false; n];
            world.support = vec![NO_SUPPORT; n];
            world.holding = vec![0; n];
        }
        if let Some((shapes, states)) = self.rigid {
            world.wall_pieces = world.walls.iter().map(WallPieces::of).collect();
            world.shapes = shapes;
            world.rigid = states;
            world.meshes = self.meshes.into_iter().map(Arc::new).collect();
        }
        Ok(world)
    }
}

/// Refuses a body whose numbers no prediction can take.
fn check_bodies<V: Vector>(bodies: &[Body<V>]) -> Result<(), WorldError> {
    for (body, b) in bodies.iter().enumerate() {
        let problem = if !(b.pos.is_finite() && b.vel.is_finite() && b.time.is_finite()) {
            "its position, velocity and time must be finite"
        } else if !(b.radius > 0.0 && b.radius.is_finite()) {
            "its radius must be positive and finite"
        } else if !(b.inv_mass > 0.0 && b.inv_mass.is_finite()) {
            "its mass must be positive and finite"
        } else {
            continue;
        };
        return Err(WorldError::Body { body, problem });
    }
    Ok(())
}

/// Each body's kind, after checking that the rigid states are one per body, name shapes and
/// meshes the world has, and fit their bodies' spheres.
fn kinds_of<V: Vector>(
    bodies: &[Body<V>],
    shapes: &[Shape<V>],
    states: &[RigidState<V>],
    meshes: &[MeshShape<V>],
) -> Result<Vec<BodyKind>, WorldError> {
    if states.len() != bodies.len() {
        return Err(WorldError::RigidStates {
            states: states.len(),
            bodies: bodies.len(),
        });
    }
    let mut kinds = Vec::with_capacity(states.len());
    for (i, (r, b)) in states.iter().zip(bodies).enumerate() {
        let (first, pieces) = (r.shape as usize, r.pieces as usize);
        if pieces == 0 || first + pieces > shapes.len() {
            return Err(WorldError::MissingShape(i));
        }
        let kind = match r.mesh {
            Some(m) => {
                let mesh = meshes.get(m as usize).ok_or(WorldError::Mesh(i))?;
                if mesh.body.mesh.triangles().len() != pieces {
                    return Err(WorldError::Mesh(i));
                }
                BodyKind::Mesh
            }
            None if pieces > 1 => BodyKind::Compound,
            None => match shapes[first] {
                Shape::Ball(_) => BodyKind::Ball,
                _ => BodyKind::Convex,
            },
        };
        // A ball's sphere is its shape (its exact predictions need its radius); any other
        // shape's sphere holds the contact shell too.
        let sphere = match kind {
            BodyKind::Ball => r.radius,
            _ => World::<V>::rigid_radius(r.radius),
        };
        if !(b.radius >= sphere) {
            return Err(WorldError::RigidRadius(i));
        }
        kinds.push(kind);
    }
    Ok(kinds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::DVec2;
    use crate::wall::Plane;

    fn ball(x: f64) -> Body<DVec2> {
        Body::new(DVec2::new(x, 1.0), DVec2::new(1.0, 0.0), 0.25, 1.0)
    }

    fn floor() -> Wall<DVec2> {
        Wall::Plane(Plane::new(DVec2::ZERO, DVec2::Y).unwrap())
    }

    /// A rigid world of a box (`shape` 0) and a ball (`shape` 1), with their states.
    type Parts = (Vec<Body<DVec2>>, Vec<Shape<DVec2>>, Vec<RigidState<DVec2>>);

    fn rigid_parts() -> Parts {
        let shapes = vec![
            Shape::cuboid(DVec2::new(0.5, 0.25)).unwrap(),
            Shape::ball(0.25).unwrap(),
        ];
        let mut bodies = Vec::new();
        let mut states = Vec::new();
        for (k, x) in [(0u32, 1.0), (1, 3.0)] {
            let shape = &shapes[k as usize];
            let props = shape.mass_properties(1.0).unwrap();
            let pose = crate::shape::Pose::from_position(DVec2::new(x, 1.0));
            let (b, r) =
                RigidState::body(k, shape, &props, &pose, DVec2::ZERO, Default::default()).unwrap();
            bodies.push(b);
            states.push(r);
        }
        (bodies, shapes, states)
    }

    #[test]
    fn a_world_of_balls_has_no_kinds_and_wraps_into_its_box() {
        let w = World::builder(vec![ball(-0.5), ball(5.0)], Vec::new())
            .period(DVec2::new(4.0, 4.0))
            .build()
            .unwrap();
        assert!(w.kinds.is_empty());
        assert_eq!(w.kind(0), BodyKind::Ball);
        assert_eq!(w.bodies()[0].pos.x, 3.5);
        assert_eq!(w.images()[0], [-1, 0, 0]);
        assert_eq!(w.unwrapped_position(1), DVec2::new(5.0, 1.0));
    }

    #[test]
    fn each_body_gets_its_kind_once() {
        let (bodies, shapes, states) = rigid_parts();
        let w = World::builder(bodies, vec![floor()])
            .rigid(shapes, states)
            .friction(0.5)
            .build()
            .unwrap();
        assert_eq!(w.kind(0), BodyKind::Convex);
        assert_eq!(w.kind(1), BodyKind::Ball);
        assert!(w.is_rigid_shape(0) && !w.is_rigid_shape(1));
        assert_eq!(w.wall_pieces.len(), 1);
    }

    #[test]
    fn bad_bodies_and_laws_are_refused() {
        let build = |b: Body<DVec2>| World::builder(vec![b], Vec::new()).build();
        let mut nan = ball(0.0);
        nan.vel.x = f64::NAN;
        assert!(matches!(build(nan), Err(WorldError::Body { body: 0, .. })));
        assert!(matches!(
            build(Body::new(DVec2::ZERO, DVec2::ZERO, 0.0, 1.0)),
            Err(WorldError::Body { .. })
        ));
        assert!(matches!(
            build(Body::new(DVec2::ZERO, DVec2::ZERO, 1.0, f64::INFINITY)),
            Err(WorldError::Body { .. })
        ));
        let b = || World::builder(vec![ball(0.0)], vec![floor()]);
        assert_eq!(
            b().restitution(1.5).build().unwrap_err(),
            WorldError::Restitution(1.5)
        );
        assert!(matches!(
            b().contact_duration(-1.0).build(),
            Err(WorldError::ContactDuration(_))
        ));
        assert!(matches!(
            b().friction(f64::NAN).build(),
            Err(WorldError::Friction(_))
        ));
        assert_eq!(
            b().friction(0.5).build().unwrap_err(),
            WorldError::FrictionWithoutRigid
        );
        assert_eq!(
            b().gravity(DVec2::new(0.0, f64::INFINITY), 0.1)
                .build()
                .unwrap_err(),
            WorldError::Gravity
        );
        assert!(b().gravity(DVec2::new(0.0, -9.81), 0.1).build().is_ok());
    }

    #[test]
    fn combinations_a_world_cannot_simulate_are_refused() {
        let l = DVec2::new(4.0, 4.0);
        let refused = |r: Result<World<DVec2>, WorldError>| r.unwrap_err().to_string();
        let e = refused(
            World::builder(vec![ball(1.0)], vec![floor()])
                .period(l)
                .build(),
        );
        assert!(e.contains("walls"), "{e}");
        let e = refused(
            World::builder(vec![ball(1.0)], Vec::new())
                .period(l)
                .gravity(DVec2::new(0.0, -1.0), 0.1)
                .build(),
        );
        assert!(e.contains("gravity"), "{e}");
        let e = refused(
            World::builder(vec![ball(1.0)], Vec::new())
                .period(DVec2::new(4.0, 0.9))
                .build(),
        );
        assert!(e.contains("0.9"), "{e}");
        let (bodies, shapes, states) = rigid_parts();
        let e = refused(
            World::builder(bodies.clone(), Vec::new())
                .rigid(shapes.clone(), states.clone())
                .period(DVec2::new(10.0, 10.0))
                .build(),
        );
        assert!(e.contains("rigid bodies"), "{e}");
        // Rigid states that do not fit their bodies.
        assert!(matches!(
            World::builder(bodies.clone(), Vec::new())
                .rigid(shapes.clone(), states[..1].to_vec())
                .build(),
            Err(WorldError::RigidStates {
                states: 1,
                bodies: 2
            })
        ));
        assert_eq!(
            World::builder(bodies.clone(), Vec::new())
                .rigid(shapes[..1].to_vec(), states.clone())
                .build()
                .unwrap_err(),
            WorldError::MissingShape(1)
        );
        let mut small = bodies.clone();
        small[0].radius *= 0.5;
        assert_eq!(
            World::builder(small, Vec::new())
                .rigid(shapes.clone(), states.clone())
                .build()
                .unwrap_err(),
            WorldError::RigidRadius(0)
        );
        let mut meshed = states.clone();
        meshed[0].mesh = Some(0);
        assert_eq!(
            World::builder(bodies.clone(), Vec::new())
                .rigid(shapes, meshed)
                .build()
                .unwrap_err(),
            WorldError::Mesh(0)
        );
        assert_eq!(
            World::builder(vec![ball(1.0)], Vec::new())
                .meshes(Vec::new())
                .friction(0.0)
                .build()
                .map(|w| w.meshes().len()),
            Ok(0)
        );
    }
}
