use super::BroadPhase;
use crate::ball_toi::{ball_ball, ball_ball_periodic, Toi};
use crate::body::Body;
use crate::event::{EarliestEvent, Event, EventKind};
use crate::math::Vector;
use crate::world::World;

/// The thesis's baseline: after every event, test every ball-ball and ball-wall pair (and every
/// body's box crossing in a periodic box).
///
/// `O(n^2)` narrow-phase tests per event and `O(n)` memory. It prunes nothing, which makes it
/// the reference every other broad phase is checked against.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllPairs;

/// The scan, monomorphised for one of the narrow phase's pair predictions (the one
/// [`World::predict_pair`] would choose) so that the inner loop carries no dispatch.
#[inline(always)]
fn scan<V: Vector>(
    world: &World<V>,
    horizon: f64,
    pair: impl Fn(u32, &Body<V>, u32, &Body<V>, f64) -> Toi,
) -> Option<Event> {
    let mut best = EarliestEvent::new();
    let bodies = &world.bodies;
    for (i, bi) in bodies.iter().enumerate() {
        for (j, bj) in bodies.iter().enumerate().skip(i + 1) {
            let t = pair(i as u32, bi, j as u32, bj, horizon.min(best.time()));
            if t.is_hit() && t.time <= horizon && t.time <= best.time() {
                best.offer(Event {
                    time: t.time,
                    kind: EventKind::BodyBody,
                    a: i as u32,
                    b: j as u32,
                });
            }
        }
        if let Some(e) = world.box_event(i as u32) {
            if e.time <= horizon && e.time <= best.time() {
                best.offer(e);
            }
        }
        for w in 0..world.walls.len() as u32 {
            if let Some(e) = world.wall_event_by(i as u32, w, horizon.min(best.time())) {
                if e.time <= horizon && e.time <= best.time() {
                    best.offer(e);
                }
            }
        }
    }
    best.get()
}

impl<V: Vector> BroadPhase<V> for AllPairs {
    fn name(&self) -> &'static str {
        "all-pairs"
    }

    fn next_event(&mut self, world: &World<V>, _now: f64, horizon: f64) -> Option<Event> {
        match world.period {
            None if !world.rigid.is_empty() || world.gravity != V::ZERO => {
                scan(world, horizon, |i, _, j, _, by| {
                    world.predict_pair_by(i, j, by)
                })
            }
            None => scan(world, horizon, |_, bi, _, bj, _| ball_ball(bi, bj)),
            Some(l) => scan(world, horizon, |_, bi, _, bj, _| {
                ball_ball_periodic(bi, bj, l)
            }),
        }
    }
}
