//! rapier in 2D.

use rapier2d_f64::prelude::*;

use super::{Config, Slab};
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
        let material =
            |c: ColliderBuilder| c.friction(setup.friction).restitution(setup.restitution);
        for wall in &setup.walls {
            let slab = Slab::new(wall, setup);
            let [x, y, _] = slab.centre;
            let angle = slab.normal[1].atan2(slab.normal[0]);
            world.insert(
                RigidBodyBuilder::fixed().pose(Pose::new(Vector::new(x, y), angle)),
                material(ColliderBuilder::cuboid(slab.half[0], slab.half[1])),
            );
        }
        let handles = setup
            .bodies
            .iter()
            .map(|b| {
                let [x, y, _] = b.position;
                let [vx, vy, _] = b.velocity;
                let body = RigidBodyBuilder::dynamic()
                    .pose(Pose::new(Vector::new(x, y), b.rotation[0]))
                    .linvel(Vector::new(vx, vy))
                    .angvel(b.angular_velocity[0])
                    .can_sleep(false)
                    .ccd_enabled(config.bullet(b.velocity));
                let collider = ColliderBuilder::cuboid(b.half[0], b.half[1]).mass(b.mass);
                world.insert(body, material(collider)).0
            })
            .collect();
        Self { world, handles }
    }
}

impl Engine for Rapier2 {
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
        let (p, v) = (b.translation(), b.linvel());
        State {
            position: [p.x, p.y, 0.0],
            velocity: [v.x, v.y, 0.0],
            rotation: [b.rotation().angle(), 0.0, 0.0, 0.0],
        }
    }
}
