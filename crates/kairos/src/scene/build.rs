//! A scene's [`World`]: balls, or rigid bodies with their shapes, states and meshes, built from
//! the parts their tables keep.

use super::{ball_parts, invalid, Item, RigidParts, Scene, SceneDim, SceneError};
use crate::body::Body;
use crate::ccd::tree::MeshBody;
use crate::math::{DVec2, DVec3, Vector};
use crate::rigid::RigidState;
use crate::rigid_mesh::MeshShape;
use crate::shape::Shape;
use crate::wall::Wall;
use crate::world::{World, WorldError};
use std::sync::Arc;

impl Scene {
    /// The world of this scene in dimension `V`, built by [`World::builder`]. A scene read by
    /// [`Scene::load`] or [`Scene::from_toml_str`] has been validated and builds; a scene
    /// made or changed in code may not, and the error names the item.
    pub fn world<V: Vector>(&self) -> Result<World<V>, SceneError> {
        if V::DIM != self.dim {
            return Err(invalid(
                Item::Scene,
                format!("a {}D scene asked for a {}D world", self.dim, V::DIM),
            ));
        }
        let walls = self.built_walls::<V>()?;
        let builder = if self.has_rigid_bodies() {
            let (bodies, shapes, states, meshes) = self.rigid_parts_of::<V>(true)?;
            World::builder(bodies, walls)
                .friction(self.friction)
                .rigid(shapes, states)
                .meshes(meshes)
        } else {
            let bodies = self
                .bodies
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let v = |s: &[f64]| vector::<V>(s, Item::Body(i));
                    let (pos, vel) = (v(&b.position)?, v(&b.velocity)?);
                    Ok(Body::new(pos, vel, b.radius, b.mass))
                })
                .collect::<Result<Vec<_>, SceneError>>()?;
            World::builder(bodies, walls).friction(self.friction)
        };
        let builder = match &self.periodic {
            Some(l) => builder.period(vector::<V>(l, Item::Boundary)?),
            None => builder,
        };
        let builder = builder
            .restitution(self.restitution)
            .contact_duration(self.contact_duration());
        let builder = if self.has_gravity() {
            let g = vector::<V>(&self.gravity, Item::Simulation)?;
            builder.gravity(g, self.rest_speed())
        } else {
            builder
        };
        builder.build().map_err(|e| {
            let item = match e {
                WorldError::Body { body, .. }
                | WorldError::MissingShape(body)
                | WorldError::RigidRadius(body)
                | WorldError::Mesh(body) => Item::Body(body),
                WorldError::Period(_) | WorldError::PeriodicWith(_) => Item::Boundary,
                _ => Item::Simulation,
            };
            invalid(item, e.to_string())
        })
    }

    /// The walls of the scene (a box is `2 dim` walls), in item order.
    pub fn built_walls<V: Vector>(&self) -> Result<Vec<Wall<V>>, SceneError> {
        let mut walls = Vec::with_capacity(self.walls.len());
        for (i, w) in self.walls.iter().enumerate() {
            walls.extend(w.build::<V>().map_err(|e| invalid(Item::Wall(i), e))?);
        }
        Ok(walls)
    }

    /// [`Scene::rigid_parts_in`] in the dimension of `V`: the two dimensions are built by
    /// their types and the one asked for is taken back.
    fn rigid_parts_of<V: Vector>(&self, full: bool) -> Result<RigidWorldParts<V>, SceneError> {
        let parts: Box<dyn std::any::Any> = if V::DIM == 2 {
            Box::new(self.rigid_parts_in::<DVec2>(full))
        } else {
            Box::new(self.rigid_parts_in::<DVec3>(full))
        };
        match parts.downcast::<Result<RigidWorldParts<V>, SceneError>>() {
            Ok(parts) => *parts,
            Err(_) => Err(invalid(
                Item::Scene,
                format!("a {}D scene asked for a {}D world", self.dim, V::DIM),
            )),
        }
    }

    /// The rigid states of a scene with rigid bodies at time 0, as its world holds them
    /// (without building the world: no mesh's sphere tree).
    pub fn rigid_states<V: Vector>(&self) -> Result<Vec<RigidState<V>>, SceneError> {
        Ok(self.rigid_parts_of::<V>(false)?.2)
    }

    /// The bodies, shapes (one per body, or a compound body's pieces) and rigid states of a
    /// rigid world. With `full` false, the shapes and the meshes (and their sphere trees) are
    /// left out: the states still number the shapes and the mesh bodies.
    fn rigid_parts_in<V: SceneDim>(&self, full: bool) -> Result<RigidWorldParts<V>, SceneError> {
        let mut bodies = Vec::with_capacity(self.bodies.len());
        let mut shapes = Vec::with_capacity(self.bodies.len());
        let mut states = Vec::with_capacity(self.bodies.len());
        let mut meshes = Vec::new();
        let mut mesh_count = 0;
        let mut shape_count = 0;
        for i in 0..self.bodies.len() {
            let p = self
                .parts_of::<V>(i)
                .map_err(|e| invalid(Item::Body(i), e))?;
            let (body, state) = RigidState::body_of_pieces(
                shape_count,
                &p.pieces,
                &p.props,
                &p.pose,
                p.velocity,
                p.angular_velocity,
            )
            .map_err(|e| invalid(Item::Body(i), e.to_string()))?;
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
        Ok((bodies, shapes, states, meshes))
    }

    /// Body `i`'s parts: its table's, or a ball's for a ball without `shape`.
    pub(super) fn parts_of<V: SceneDim>(&self, i: usize) -> Result<Arc<RigidParts<V>>, String> {
        match self.shapes.get(i) {
            Some(Some(t)) => t.parts::<V>(&self.meshes),
            _ => ball_parts::<V>(&self.bodies[i]).map(Arc::new),
        }
    }
}

/// The vector of a scene's numbers (padded to 3, or as many as the dimension), or an error
/// naming `item`.
fn vector<V: Vector>(s: &[f64], item: Item) -> Result<V, SceneError> {
    s.get(..V::DIM)
        .and_then(V::try_from_slice)
        .ok_or_else(|| invalid(item, format!("expected {} components", V::DIM)))
}

/// A rigid world's bodies, shapes, rigid states and meshes.
type RigidWorldParts<V> = (
    Vec<Body<V>>,
    Vec<Shape<V>>,
    Vec<RigidState<V>>,
    Vec<MeshShape<V>>,
);
