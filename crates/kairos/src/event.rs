//! Collision events and their deterministic total order.

use std::cmp::Ordering;

use crate::body::BodyId;

/// What collides in an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    /// Two bodies (balls, convex, compound or mesh bodies) touch; `a < b` are body ids.
    /// Named `ball-ball` before bodies other than balls existed; the trace code is unchanged.
    BodyBody = 0,
    /// A body touches a wall; `a` is the body id, `b` the wall id. Formerly `ball-wall`.
    BodyWall = 1,
    /// A body's centre reaches a face of the periodic box and is wrapped to the opposite face;
    /// `a` is the body id, `b` the face code `2 * axis + (1 for the upper face)`. Not a
    /// collision: it changes no velocity and is not written to traces.
    BoxCrossing = 2,
    /// A rigid body's prediction that gave up before finding a contact (its step limit, or a
    /// mesh search that ended early), processed when the bodies are still apart: they are
    /// moved to its time, nothing else changes, and their contacts are predicted again from
    /// there. Broad phases find it as a [`EventKind::BodyBody`] or [`EventKind::BodyWall`]
    /// event; the simulation returns it with this kind. Not a collision: it changes no
    /// velocity, is not counted and is not written to traces.
    Resume = 3,
    /// The state of body `a`, sampled (`b` is 0): a stepped run's trace holds every moving
    /// body's state at a fixed interval, beside its contacts. Not a collision; the replay
    /// takes the body's state from it as from an event.
    State = 4,
}

impl EventKind {
    /// The name used in CSV exports and summaries.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::BodyBody => "body-body",
            EventKind::BodyWall => "body-wall",
            EventKind::BoxCrossing => "box-crossing",
            EventKind::Resume => "resume",
            EventKind::State => "state",
        }
    }
    /// The code stored in traces.
    pub fn code(self) -> u32 {
        self as u32
    }
    /// The kind for a name of [`EventKind::name`], or one of the names used before bodies
    /// other than balls existed (`ball-ball`, `ball-wall`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "body-body" | "ball-ball" => Some(EventKind::BodyBody),
            "body-wall" | "ball-wall" => Some(EventKind::BodyWall),
            "box-crossing" => Some(EventKind::BoxCrossing),
            "resume" => Some(EventKind::Resume),
            "state" => Some(EventKind::State),
            _ => None,
        }
    }
    /// The kind for a trace code.
    pub fn from_code(code: u32) -> Option<Self> {
        match code {
            0 => Some(EventKind::BodyBody),
            1 => Some(EventKind::BodyWall),
            2 => Some(EventKind::BoxCrossing),
            4 => Some(EventKind::State),
            _ => None,
        }
    }
}

/// A predicted or processed collision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event {
    /// Absolute time of contact.
    pub time: f64,
    /// Body-body, body-wall, box crossing or resume.
    pub kind: EventKind,
    /// The (lower) body id.
    pub a: BodyId,
    /// The other body id (`> a`), the wall id, or the face code of a box crossing.
    pub b: u32,
}

impl Event {
    /// The total order in which events are processed: by time, then by the first body id, then
    /// by kind (body-body, body-wall, box crossing), then by the second id. Every broad phase uses it, so
    /// simultaneous events are processed in the same order whichever found them.
    #[inline]
    pub fn cmp_order(&self, other: &Self) -> Ordering {
        self.time
            .total_cmp(&other.time)
            .then(self.a.cmp(&other.a))
            .then(self.kind.cmp(&other.kind))
            .then(self.b.cmp(&other.b))
    }
    /// True when `self` comes strictly before `other` in [`Event::cmp_order`].
    #[inline]
    pub fn precedes(&self, other: &Self) -> bool {
        self.cmp_order(other) == Ordering::Less
    }
}

/// Keeps the earliest of a stream of candidate events.
#[derive(Clone, Copy, Debug, Default)]
pub struct EarliestEvent {
    best: Option<Event>,
}

impl EarliestEvent {
    /// An empty selection.
    #[inline]
    pub fn new() -> Self {
        Self { best: None }
    }
    /// Time of the current best, `+inf` when empty.
    #[inline]
    pub fn time(&self) -> f64 {
        self.best.map_or(f64::INFINITY, |e| e.time)
    }
    /// Offers a candidate; keeps it when it precedes the current best.
    #[inline]
    pub fn offer(&mut self, e: Event) {
        match &self.best {
            Some(b) if !e.precedes(b) => {}
            _ => self.best = Some(e),
        }
    }
    /// The earliest event offered, if any.
    #[inline]
    pub fn get(self) -> Option<Event> {
        self.best
    }
}

/// Event counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventCounts {
    /// Collisions of two bodies.
    pub body_body: u64,
    /// Collisions of a body and a wall.
    pub body_wall: u64,
    /// Box crossings in a periodic box (not collisions).
    pub box_crossings: u64,
}

impl EventCounts {
    /// All collisions (box crossings are not counted).
    pub fn total(&self) -> u64 {
        self.body_body + self.body_wall
    }
}

#[cfg(test)]
mod tests {
    use super::EventKind;

    #[test]
    fn names_and_codes_round_trip_and_the_old_names_still_read() {
        for kind in [
            EventKind::BodyBody,
            EventKind::BodyWall,
            EventKind::BoxCrossing,
            EventKind::Resume,
            EventKind::State,
        ] {
            assert_eq!(EventKind::from_name(kind.name()), Some(kind));
        }
        for kind in [
            EventKind::BodyBody,
            EventKind::BodyWall,
            EventKind::BoxCrossing,
            EventKind::State,
        ] {
            assert_eq!(EventKind::from_code(kind.code()), Some(kind));
        }
        assert_eq!(EventKind::from_name("ball-ball"), Some(EventKind::BodyBody));
        assert_eq!(EventKind::from_name("ball-wall"), Some(EventKind::BodyWall));
        assert_eq!(EventKind::from_code(3), None, "a resume is never stored");
        assert_eq!(EventKind::from_name("ball"), None);
    }
}
