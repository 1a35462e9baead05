//! What both engines are given: the boxes, walls and materials of a Kairos scene, read from
//! the scene and from Kairos's own initial state, so that the two engines start from the same
//! bodies bit for bit.

use kairos::math::{Rotation, Vector};
use kairos::scene::{pad3, Scene, WallSpec};
use kairos::stepped::StepBody;

/// A box body at time 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxBody {
    /// Half extents (the third 0 in 2D).
    pub half: [f64; 3],
    /// The mass.
    pub mass: f64,
    /// The centre of mass.
    pub position: [f64; 3],
    /// The rotation: 2D `[angle, 0, 0, 0]`, 3D the quaternion `[w, x, y, z]`.
    pub rotation: [f64; 4],
    /// The velocity of the centre of mass.
    pub velocity: [f64; 3],
    /// The angular velocity (2D: its first component).
    pub angular_velocity: [f64; 3],
}

/// A fixed half-space: the side of the plane through `point` that `normal` points away from
/// is solid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfSpace {
    /// A point of the boundary.
    pub point: [f64; 3],
    /// The unit normal, pointing out of the solid (into the free side).
    pub normal: [f64; 3],
}

/// A scene as both engines are given it.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// 2 or 3.
    pub dim: usize,
    /// Uniform gravity (the third component 0 in 2D).
    pub gravity: [f64; 3],
    /// The Coulomb friction coefficient of every contact.
    pub friction: f64,
    /// The coefficient of restitution of every contact.
    pub restitution: f64,
    /// The bodies, in the scene's order.
    pub bodies: Vec<BoxBody>,
    /// The walls, each an infinite half-space.
    pub walls: Vec<HalfSpace>,
}

impl BoxBody {
    /// The radius of the body's bounding disc or ball.
    pub fn radius(&self) -> f64 {
        self.half.iter().map(|h| h * h).sum::<f64>().sqrt()
    }
}

impl Setup {
    /// The setup of `scene`, whose bodies Kairos holds as `bodies` at time 0.
    ///
    /// # Errors
    /// A body that is not a box, or a wall that is neither a plane nor an axis-aligned room.
    pub fn new<V: Vector>(scene: &Scene, bodies: &[StepBody<V>]) -> Result<Self, String> {
        let bodies = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| {
                Ok(BoxBody {
                    half: half_extents(scene, i)?,
                    mass: b.mass(),
                    position: b.position.to_array3(),
                    rotation: b.rotation.to_array4(),
                    velocity: b.velocity.to_array3(),
                    angular_velocity: V::angular_to_array3(b.angular_velocity),
                })
            })
            .collect::<Result<_, String>>()?;
        let mut walls = Vec::new();
        for (i, wall) in scene.walls.iter().enumerate() {
            match wall {
                WallSpec::Plane { point, normal } => walls.push(HalfSpace {
                    point: pad3(point),
                    normal: unit(pad3(normal)),
                }),
                WallSpec::Box { min, max } => {
                    for axis in 0..scene.dim {
                        let mut normal = [0.0; 3];
                        normal[axis] = 1.0;
                        walls.push(HalfSpace {
                            point: pad3(min),
                            normal,
                        });
                        normal[axis] = -1.0;
                        walls.push(HalfSpace {
                            point: pad3(max),
                            normal,
                        });
                    }
                }
                _ => return Err(format!("wall {i}: only planes and rooms are compared")),
            }
        }
        Ok(Self {
            dim: scene.dim,
            gravity: scene.gravity,
            friction: scene.friction,
            restitution: scene.restitution,
            bodies,
            walls,
        })
    }

    /// A length no body or wall point reaches from the origin along any axis at time 0.
    pub fn extent(&self) -> f64 {
        let bodies = self
            .bodies
            .iter()
            .flat_map(|b| b.position.map(|x| x.abs() + b.radius()));
        let walls = self.walls.iter().flat_map(|w| w.point.map(f64::abs));
        bodies.chain(walls).fold(1.0, f64::max)
    }
}

/// The half extents of body `i`, a box, from its table.
fn half_extents(scene: &Scene, i: usize) -> Result<[f64; 3], String> {
    let table = scene
        .shapes
        .get(i)
        .and_then(Option::as_ref)
        .map(kairos::scene::BodyTable::table);
    let table = table.ok_or_else(|| format!("body {i} is not a rigid body"))?;
    if table.get("shape").and_then(toml::Value::as_str) != Some("box") {
        return Err(format!("body {i} is not a box"));
    }
    let half = table
        .get("half_extents")
        .and_then(toml::Value::as_array)
        .ok_or_else(|| format!("body {i} has no half extents"))?
        .iter()
        .map(|x| x.as_float().or_else(|| x.as_integer().map(|n| n as f64)))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| format!("body {i}: half extents are not numbers"))?;
    Ok(pad3(&half))
}

fn unit(v: [f64; 3]) -> [f64; 3] {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.map(|x| x / n)
}
