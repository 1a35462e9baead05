//! rapier in 2D.

use rapier2d_f64::prelude::*;

use super::Config;
use crate::engine::{Engine, State};
use crate::setup::Setup;

/// A 2D scene in rapier.
pub struct Rapier2 {
    world: PhysicsWorld,
    handles: Vec<RigidBodyHandle>,
}

impl Rapier2 {
    /// The engine on `setup` (a 2D setup), set up by `config`.
    pub fn new(setup: &Setup, config: Config) -> Self {
        let mut world = PhysicsWorld::new();
        world.gravity = Vector::new(setup.gravity[0], setup.gravity[1]);
        world.integration_parameters.num_internal_pgs_iterations = config.pgs_iterations;
        if !config.speed_cap {
            world.integration_parameters.normalized_max_linear_velocity = f64::MAX;
        }
        let material = |c: ColliderBuilder| c.friction(setup.friction).restitution(setup.restitution);
        for wall in &setup.walls {
            let [x, y, _] = wall.point;
            let [nx, ny, _] = wall.normal;
            world.insert(
                RigidBodyBuilder::fixed().translation(Vector::new(x, y)),
                material(ColliderBuilder::new(SharedShape::halfspace(Vector::new(nx, ny)))),
            );
        }
        let handles = setup
            .bodies
            .iter()
            .map(|b| {
                let body = RigidBodyBuilder::dynamic()
                    .pose(Pose::new(Vector::new(b.position[0], b.position[1]), b.rotation[0]))
                    .linvel(Vector::new(b.velocity[0], b.velocity[1]))
                    .angvel(b.angular_velocity[0])
                    .can_sleep(false)
                    .ccd_enabled(config.ccd);
                let collider = material(ColliderBuilder::cuboid(b.half[0], b.half[1])).mass(b.mass);
                world.insert(body, collider).0
            })
            .collect();
        Self { world, handles }
    }
}

impl Engine for Rapier2 {
    fn step(&mut self) {
        self.world.step();
    }

    fn len(&self) -> usize {
        self.handles.len()
    }

    fn state(&self, i: usize) -> State {
        let b = &self.world.bodies[self.handles[i]];
        let (p, v) = (b.translation(), b.linvel());
        State {
            position: [p.x, p.y, 0.0],
            velocity: [v.x, v.y, 0.0],
            rotation: [b.rotation().angle(), 0.0, 0.0, 0.0],
        }
    }
}
