use super::BroadPhase;
use crate::event::{EarliestEvent, Event};
use crate::math::Vector;
use crate::world::World;

/// The thesis's baseline: after every event, test every ball-ball and ball-wall pair.
///
/// `O(n^2)` narrow-phase tests per event and `O(n)` memory. It prunes nothing, which makes it
/// the reference every other broad phase is checked against.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllPairs;

impl<V: Vector> BroadPhase<V> for AllPairs {
    fn name(&self) -> &'static str {
        "all-pairs"
    }

    fn next_event(&mut self, world: &World<V>, _now: f64, horizon: f64) -> Option<Event> {
        let mut best = EarliestEvent::new();
        let n = world.bodies.len() as u32;
        for i in 0..n {
            for j in i + 1..n {
                if let Some(e) = world.pair_event(i, j) {
                    if e.time <= horizon && e.time <= best.time() {
                        best.offer(e);
                    }
                }
            }
            for w in 0..world.walls.len() as u32 {
                if let Some(e) = world.wall_event(i, w) {
                    if e.time <= horizon && e.time <= best.time() {
                        best.offer(e);
                    }
                }
            }
        }
        best.get()
    }
}
