//! A scene's [`World`]: balls, or rigid bodies with their shapes, states and meshes, built from
//! the parts their tables keep.

use super::{ball_parts, Scene, SceneDim};
use crate::body::Body;
use crate::ccd::tree::MeshBody;
use crate::math::{DVec2, DVec3, Vector};
use crate::rigid::RigidState;
use crate::rigid_mesh::MeshShape;
use crate::shape::Shape;
use crate::wall::Wall;
use crate::world::World;

impl Scene {
    /// The world of this scene in dimension `V`.
    ///
    /// # Panics
    /// When `V::DIM` differs from the scene's `dim`.
    pub fn world<V: Vector>(&self) -> World<V> {
        assert_eq!(V::DIM, self.dim, "scene dimension mismatch");
        self.world_unchecked()
    }

    fn world_unchecked<V: Vector>(&self) -> World<V> {
        if self.has_rigid_bodies() {
            return self.rigid_world::<V>();
        }
        let v = |s: &[f64]| V::try_from_slice(s).expect("validated dimension");
        let bodies = self
            .bodies
            .iter()
            .map(|b| {
                Body::new(
                    v(&b.position[..V::DIM]),
                    v(&b.velocity[..V::DIM]),
                    b.radius,
                    b.mass,
                )
            })
            .collect();
        let walls = self.built_walls::<V>();
        let world = World {
            restitution: self.restitution,
            contact_duration: self.contact_duration(),
            ..World::new(bodies, walls)
        };
        let world = match &self.periodic {
            Some(l) => world.with_period(v(l)),
            None => world,
        };
        self.with_gravity_of(world)
    }

    /// The walls of a validated scene (a box is `2 dim` walls), in item order.
    pub(super) fn built_walls<V: Vector>(&self) -> Vec<Wall<V>> {
        self.walls
            .iter()
            .flat_map(|w| w.build::<V>().expect("validated wall"))
            .collect()
    }

    /// The rigid world of a scene with rigid bodies (every body gets a rigid state; balls
    /// without `shape` are balls of their mass). [`Scene::world`] is generic over [`Vector`],
    /// the bodies' tables are read in a [`BodyDim`]: the two dimensions are built by their
    /// types and the one asked for is taken back.
    fn rigid_world<V: Vector>(&self) -> World<V> {
        let (bodies, shapes, states, meshes) = self.rigid_parts_of::<V>(true);
        let walls = self.built_walls::<V>();
        let world = World {
            restitution: self.restitution,
            contact_duration: self.contact_duration(),
            friction: self.friction,
            ..World::new(bodies, walls)
        }
        .with_rigid(shapes, states)
        .with_meshes(meshes);
        self.with_gravity_of(world)
    }

    /// [`Scene::rigid_parts_in`] in the dimension of `V`: the two dimensions are built by
    /// their types and the one asked for is taken back.
    fn rigid_parts_of<V: Vector>(&self, full: bool) -> RigidWorldParts<V> {
        let parts: Box<dyn std::any::Any> = if V::DIM == 2 {
            Box::new(self.rigid_parts_in::<DVec2>(full))
        } else {
            Box::new(self.rigid_parts_in::<DVec3>(full))
        };
        *parts
            .downcast::<RigidWorldParts<V>>()
            .expect("the vector types are DVec2 and DVec3")
    }

    /// The rigid states of a scene with rigid bodies at time 0, as its world holds them
    /// (without building the world: no mesh's sphere tree).
    pub fn rigid_states<V: Vector>(&self) -> Vec<RigidState<V>> {
        self.rigid_parts_of::<V>(false).2
    }

    /// `world` with this scene's gravity and rest speed, when it sets gravity.
    fn with_gravity_of<V: Vector>(&self, world: World<V>) -> World<V> {
        if !self.has_gravity() {
            return world;
        }
        let g = V::try_from_slice(&self.gravity[..V::DIM]).expect("validated gravity");
        world.with_gravity(g, self.rest_speed())
    }

    /// The bodies, shapes (one per body, or a compound body's pieces) and rigid states of a
    /// rigid world. With `full` false, the shapes and the meshes (and their sphere trees) are
    /// left out: the states still number the shapes and the mesh bodies.
    fn rigid_parts_in<V: SceneDim>(&self, full: bool) -> RigidWorldParts<V> {
        let mut bodies = Vec::with_capacity(self.bodies.len());
        let mut shapes = Vec::with_capacity(self.bodies.len());
        let mut states = Vec::with_capacity(self.bodies.len());
        let mut meshes = Vec::new();
        let mut mesh_count = 0;
        let mut shape_count = 0;
        for (i, b) in self.bodies.iter().enumerate() {
            let p = match self.shapes.get(i) {
                Some(Some(t)) => t.parts::<V>(&self.meshes).expect("validated rigid body"),
                _ => std::sync::Arc::new(ball_parts::<V>(b).expect("validated ball")),
            };
            let (body, state) = RigidState::body_of_pieces(
                shape_count,
                &p.pieces,
                &p.props,
                &p.pose,
                p.velocity,
                p.angular_velocity,
            )
            .expect("validated mass properties");
            let mut state = state;
            if let Some((mesh, hull)) = &p.mesh {
                state.mesh = Some(mesh_count);
                mesh_count += 1;
                if full {
                    meshes.push(MeshShape {
                        body: MeshBody::new((**mesh).clone()),
                        hull: hull.clone(),
                    });
                }
            }
            bodies.push(body);
            shape_count += p.pieces.len() as u32;
            if full {
                shapes.extend(p.pieces.iter().cloned());
            }
            states.push(state);
        }
        (bodies, shapes, states, meshes)
    }
}

/// A rigid world's bodies, shapes, rigid states and meshes.
type RigidWorldParts<V> = (
    Vec<Body<V>>,
    Vec<Shape<V>>,
    Vec<RigidState<V>>,
    Vec<MeshShape<V>>,
);
