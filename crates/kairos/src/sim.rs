//! The event loop: find the next event, process it, repeat.

use crate::broad_phase::BroadPhase;
use crate::event::{Event, EventKind};
use crate::math::Vector;
use crate::world::World;

/// Event counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventCounts {
    /// Ball-ball collisions.
    pub ball_ball: u64,
    /// Ball-wall collisions.
    pub ball_wall: u64,
    /// Box crossings in a periodic box (not collisions).
    pub box_crossings: u64,
}

impl EventCounts {
    /// All collisions (box crossings are not counted).
    pub fn total(&self) -> u64 {
        self.ball_ball + self.ball_wall
    }
}

/// An event-driven simulation of a [`World`] up to an end time.
///
/// Each [`Simulation::step`] asks the broad phase for the earliest event no later than the end
/// time, moves the bodies involved to the event time, applies the collision response and tells
/// the broad phase. Bodies not involved are untouched (their state is stored lazily).
pub struct Simulation<V: Vector> {
    world: World<V>,
    broad: Box<dyn BroadPhase<V>>,
    now: f64,
    end_time: f64,
    counts: EventCounts,
    initial_energy: f64,
}

impl<V: Vector> Simulation<V> {
    /// A simulation of `world` from time 0 to `end_time` with the given broad phase.
    pub fn new(world: World<V>, broad: Box<dyn BroadPhase<V>>, end_time: f64) -> Self {
        let initial_energy = world.kinetic_energy();
        Self {
            world,
            broad,
            now: 0.0,
            end_time,
            counts: EventCounts::default(),
            initial_energy,
        }
    }

    /// Processes events up to and including the next collision, which it returns; `None` when
    /// no collision remains before the end time. Box crossings of a periodic box are processed
    /// on the way (they are events of the simulation, but not collisions).
    pub fn step(&mut self) -> Option<Event> {
        loop {
            let event = self
                .broad
                .next_event(&self.world, self.now, self.end_time)?;
            debug_assert!(
                event.time >= self.now,
                "event {event:?} before now {}",
                self.now
            );
            self.now = event.time;
            self.world.resolve(&event);
            self.broad.event_processed(&self.world, &event);
            match event.kind {
                EventKind::BallBall => self.counts.ball_ball += 1,
                EventKind::BallWall => self.counts.ball_wall += 1,
                EventKind::BoxCrossing => {
                    self.counts.box_crossings += 1;
                    continue;
                }
            }
            return Some(event);
        }
    }

    /// Runs to the end time, calling `on_event` after each event with the updated world, then
    /// moves every body to the end time.
    pub fn run(&mut self, mut on_event: impl FnMut(&Event, &World<V>, f64)) {
        while let Some(e) = self.step() {
            on_event(&e, &self.world, self.broad.lookahead());
        }
        self.finish();
    }

    /// Moves every body's state to the end time (no event may be processed afterwards).
    pub fn finish(&mut self) {
        self.world.advance_all_to(self.end_time);
        self.now = self.end_time;
    }

    /// The world in its current state.
    pub fn world(&self) -> &World<V> {
        &self.world
    }
    /// Time of the last processed event (or the end time after [`Simulation::finish`]).
    pub fn now(&self) -> f64 {
        self.now
    }
    /// The end time.
    pub fn end_time(&self) -> f64 {
        self.end_time
    }
    /// Events processed so far.
    pub fn counts(&self) -> EventCounts {
        self.counts
    }
    /// The broad phase's look-ahead for the last event.
    pub fn lookahead(&self) -> f64 {
        self.broad.lookahead()
    }
    /// Relative kinetic energy change since the start, `(E - E0) / E0` (0 when `E0 = 0`).
    pub fn energy_drift(&self) -> f64 {
        if self.initial_energy > 0.0 {
            (self.world.kinetic_energy() - self.initial_energy) / self.initial_energy
        } else {
            0.0
        }
    }
}
