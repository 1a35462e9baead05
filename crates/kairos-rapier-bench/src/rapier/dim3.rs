//! rapier in 3D.

use rapier3d_f64::prelude::*;

use super::{Config, Slab};
use crate::engine::{Engine, State};
use crate::setup::Setup;

/// A 3D scene in rapier.
pub struct Rapier3 {
    world: PhysicsWorld,
    handles: Vec<RigidBodyHandle>,
}

impl Rapier3 {
    /// The engine on `setup` (a 3D setup), set up by `config`.
    pub fn new(setup: &Setup, config: Config) -> Self {
        let mut world = PhysicsWorld::new();
        world.gravity = Vector::from_array(setup.gravity);
        world.integration_parameters.num_internal_pgs_iterations = config.pgs_iterations;
        if !config.speed_cap {
            world.integration_parameters.normalized_max_linear_velocity = f64::MAX;
        }
        let material =
            |c: ColliderBuilder| c.friction(setup.friction).restitution(setup.restitution);
        for wall in &setup.walls {
            let slab = Slab::new(wall, setup);
            let turn = Rotation::from_rotation_arc(Vector::X, Vector::from_array(slab.normal));
            let [hx, hy, hz] = slab.half;
            world.insert(
                RigidBodyBuilder::fixed()
                    .pose(Pose::from_parts(Vector::from_array(slab.centre), turn)),
                material(ColliderBuilder::cuboid(hx, hy, hz)),
            );
        }
        let handles = setup
            .bodies
            .iter()
            .map(|b| {
                let [w, x, y, z] = b.rotation;
                let pose = Pose::from_parts(
                    Vector::from_array(b.position),
                    Rotation::from_xyzw(x, y, z, w),
                );
                let body = RigidBodyBuilder::dynamic()
                    .pose(pose)
                    .linvel(Vector::from_array(b.velocity))
                    .angvel(Vector::from_array(b.angular_velocity))
                    .can_sleep(false)
                    .ccd_enabled(config.bullet(b.velocity));
                let [hx, hy, hz] = b.half;
                let collider = ColliderBuilder::cuboid(hx, hy, hz).mass(b.mass);
                world.insert(body, material(collider)).0
            })
            .collect();
        Self { world, handles }
    }
}

impl Engine for Rapier3 {
    fn step(&mut self) {
        self.world.step();
    }

    fn points(&self) -> usize {
        self.world
            .contact_pairs()
            .flat_map(|p| p.manifolds())
            .map(|m| m.data.solver_contacts.len())
            .sum()
    }

    fn len(&self) -> usize {
        self.handles.len()
    }

    fn state(&self, i: usize) -> State {
        let b = &self.world.bodies[self.handles[i]];
        let q = b.rotation();
        State {
            position: b.translation().to_array(),
            velocity: b.linvel().to_array(),
            rotation: [q.w, q.x, q.y, q.z],
        }
    }
}
