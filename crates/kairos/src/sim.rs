//! The event loop: find the next event, process it, repeat.

use crate::broad_phase::BroadPhase;
pub use crate::event::EventCounts;
use crate::event::{Event, EventKind};
use crate::math::Vector;
use crate::world::World;

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
    kinetic_energy: f64,
    virial: f64,
    last_overlap: f64,
    /// Absolute time of local time 0 (see [`Simulation::rebase`]).
    origin: f64,
}

/// The simulation's own state beyond its world (for checkpoints).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimState {
    /// Local time of the last processed event.
    pub now: f64,
    /// Absolute time of local time 0.
    pub origin: f64,
    /// Absolute end time.
    pub end_time: f64,
    /// Events processed so far.
    pub counts: EventCounts,
    /// Kinetic energy at the start of the run.
    pub initial_energy: f64,
    /// Kinetic energy tracked event by event.
    pub kinetic_energy: f64,
    /// Collisional virial so far.
    pub virial: f64,
    /// Relative overlap of the last ball-ball collision.
    pub last_overlap: f64,
}

/// Local time at which the time origin moves (`Simulation::rebase`, at the first event at or
/// after it).
pub const EPOCH: f64 = 64.0;

impl<V: Vector> Simulation<V> {
    /// A simulation of `world` from time 0 to `end_time` with the given broad phase.
    pub fn new(world: World<V>, broad: Box<dyn BroadPhase<V>>, end_time: f64) -> Self {
        let initial_energy = world.energy();
        let kinetic_energy = initial_energy;
        Self {
            world,
            broad,
            now: 0.0,
            end_time,
            counts: EventCounts::default(),
            initial_energy,
            kinetic_energy,
            virial: 0.0,
            last_overlap: 0.0,
            origin: 0.0,
        }
    }

    /// Continues a simulation from a saved state: `world` must hold the bodies exactly as they
    /// were saved (see [`crate::checkpoint`]), and, when its restitution is below 1, their last
    /// collision times too ([`World::last_collision`], which the TC model's responses read). The events that follow are bit-identical to those
    /// of the uninterrupted run, whatever the broad phase.
    pub fn restore(world: World<V>, broad: Box<dyn BroadPhase<V>>, state: SimState) -> Self {
        Self {
            world,
            broad,
            now: state.now,
            end_time: state.end_time,
            counts: state.counts,
            initial_energy: state.initial_energy,
            kinetic_energy: state.kinetic_energy,
            virial: state.virial,
            last_overlap: state.last_overlap,
            origin: state.origin,
        }
    }

    /// The simulation's own state (with [`Simulation::world`], everything a checkpoint needs).
    pub fn state(&self) -> SimState {
        SimState {
            now: self.now,
            origin: self.origin,
            end_time: self.end_time,
            counts: self.counts,
            initial_energy: self.initial_energy,
            kinetic_energy: self.kinetic_energy,
            virial: self.virial,
            last_overlap: self.last_overlap,
        }
    }

    /// Processes events up to and including the next collision, which it returns; `None` when
    /// no collision remains before the end time. Box crossings of a periodic box and resumed
    /// predictions ([`EventKind::Resume`]) are processed on the way (they are events of the
    /// simulation, but not collisions): a caller that bounds
    /// its work, or checks for interruptions, uses [`Simulation::process_next`] instead, since
    /// a fast body alone in a periodic box may cross it without end.
    #[inline]
    pub fn step(&mut self) -> Option<Event> {
        loop {
            let event = self.process_next()?;
            if !matches!(event.kind, EventKind::BoxCrossing | EventKind::Resume) {
                return Some(event);
            }
        }
    }

    /// Processes the next event of any kind (a collision or a box crossing) and returns it, at
    /// its absolute time; `None` when no event remains before the end time.
    #[inline]
    pub fn process_next(&mut self) -> Option<Event> {
        self.process_next_by(self.end_time)
    }

    /// Processes the next event of any kind if it happens at or before absolute time `t`
    /// (capped at the end time) and returns it; `None`, with nothing processed, when none does.
    /// The events are the same as [`Simulation::process_next`]'s, however a run is cut into
    /// pieces by `t`: a broad phase that finds no event by `t` keeps looking past it on the
    /// next call.
    #[inline]
    pub fn process_next_by(&mut self, t: f64) -> Option<Event> {
        {
            let horizon = t.min(self.end_time) - self.origin;
            let mut event = self.broad.next_event(&self.world, self.now, horizon)?;
            // An event predicted before now comes only from bodies that overlap in a state the
            // simulation never made (a damaged or hand-edited checkpoint): it is processed now,
            // so that time never runs backwards.
            debug_assert!(!event.time.is_nan(), "event {event:?} at no time");
            if !(event.time >= self.now) {
                event.time = self.now;
            }
            self.now = event.time;
            let ids = [event.a, event.b];
            let involved = if event.kind == EventKind::BodyBody {
                &ids[..]
            } else {
                &ids[..1]
            };
            let ke = |w: &World<V>| {
                involved
                    .iter()
                    .map(|&i| w.body_energy(i as usize))
                    .sum::<f64>()
            };
            let before = if event.kind == EventKind::BoxCrossing {
                0.0
            } else {
                ke(&self.world)
            };
            let response = self.world.resolve(&event);
            if event.kind != EventKind::BoxCrossing {
                self.kinetic_energy += ke(&self.world) - before;
            }
            if event.kind == EventKind::BodyBody && !response.resumed {
                if let Some(j) = response.impulse {
                    self.virial += response.separation.dot(j);
                }
                let sigma = self.world.bodies[event.a as usize].radius
                    + self.world.bodies[event.b as usize].radius;
                self.last_overlap = (sigma - response.separation.length()) / sigma;
            }
            self.broad.event_processed(&self.world, &event);
            let absolute = Event {
                time: self.origin + event.time,
                kind: if response.resumed {
                    EventKind::Resume
                } else {
                    event.kind
                },
                ..event
            };
            if self.now >= EPOCH {
                self.rebase();
            }
            match absolute.kind {
                EventKind::BodyBody => self.counts.body_body += 1,
                EventKind::BodyWall => self.counts.body_wall += 1,
                EventKind::BoxCrossing => self.counts.box_crossings += 1,
                EventKind::Resume | EventKind::State => {}
            }
            Some(absolute)
        }
    }

    /// Moves the time origin to the current time: every body is advanced to it and its local
    /// time set to 0, and the last-collision times of the TC model move with them
    /// ([`World::rebase`]). A core mechanism, at the same deterministic moments (the first event at
    /// or after local time [`EPOCH`]) whatever the broad phase, so event logs stay identical;
    /// it keeps every time the predictions work with below `EPOCH`, where the spacing of `f64`
    /// values is about `1.4e-14`, however long the run.
    fn rebase(&mut self) {
        let t = self.now;
        self.world.rebase(t);
        self.origin += t;
        self.now = 0.0;
        self.broad.rebased(&self.world);
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
        let end_local = self.end_time - self.origin;
        self.world.advance_all_to(end_local);
        self.now = end_local;
    }

    /// The world in its current state.
    pub fn world(&self) -> &World<V> {
        &self.world
    }
    /// Absolute time of the last processed event (or the end time after
    /// [`Simulation::finish`]).
    pub fn now(&self) -> f64 {
        self.origin + self.now
    }
    /// Absolute time of the current time origin (bodies' local times count from it).
    pub fn origin(&self) -> f64 {
        self.origin
    }
    /// The end time.
    pub fn end_time(&self) -> f64 {
        self.end_time
    }
    /// Events processed so far.
    pub fn counts(&self) -> EventCounts {
        self.counts
    }
    /// Lets `stop` end a search in the middle of the broad phase's work between events
    /// ([`BroadPhase::set_stop`]): once it is set, [`Simulation::process_next`] may return
    /// `None` before the end time, with nothing processed and the simulation whole (a checkpoint
    /// of it resumes to the same events); the caller tells that from the end of the run by
    /// the flag.
    pub fn set_stop(&mut self, stop: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.broad.set_stop(stop);
    }
    /// The broad phase's look-ahead for the last event.
    pub fn lookahead(&self) -> f64 {
        self.broad.lookahead()
    }
    /// Kinetic energy, tracked event by event (`O(1)` per event; equal to
    /// `World::kinetic_energy` up to round-off).
    pub fn kinetic_energy(&self) -> f64 {
        self.kinetic_energy
    }
    /// Sum over the ball-ball collisions processed so far of `r_ab . J_a` (centre line at
    /// contact dotted with the impulse on `a`): the collisional virial, from which the pressure
    /// follows (see [`crate::observe`]).
    pub fn virial(&self) -> f64 {
        self.virial
    }
    /// Relative overlap `(sigma - distance) / sigma` of the last ball-ball collision at contact
    /// (round-off level; negative means a gap).
    pub fn last_overlap(&self) -> f64 {
        self.last_overlap
    }
    /// Relative energy change since the start, `(E - E0) / |E0|` (0 when `E0 = 0`): kinetic
    /// energy, plus the potential energy under gravity ([`World::energy`], measured from the
    /// origin of coordinates).
    pub fn energy_drift(&self) -> f64 {
        if self.initial_energy != 0.0 && self.initial_energy.is_finite() {
            (self.world.energy() - self.initial_energy) / self.initial_energy.abs()
        } else {
            0.0
        }
    }
}
