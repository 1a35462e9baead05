//! The one interface the measurements drive both engines through.

/// A body's state after a step, in the world frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct State {
    /// The centre of mass (the third component 0 in 2D).
    pub position: [f64; 3],
    /// The velocity of the centre of mass.
    pub velocity: [f64; 3],
    /// The rotation: 2D `[angle, 0, 0, 0]`, 3D the quaternion `[w, x, y, z]`.
    pub rotation: [f64; 4],
}

/// A stepped rigid-body engine holding a scene's bodies in the scene's order.
pub trait Engine {
    /// Advances the bodies by one time step.
    fn step(&mut self);
    /// How many bodies it holds.
    fn len(&self) -> usize;
    /// The state of body `i` now.
    fn state(&self, i: usize) -> State;
    /// The contact points its solver took in the last step (each pair's points within its
    /// contact margin).
    fn points(&self) -> usize;
    /// What the engine itself counted of its continuous collision detection, if it counts.
    fn ccd_counts(&self) -> Option<String> {
        None
    }
}
