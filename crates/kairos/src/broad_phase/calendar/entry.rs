//! A body's pending entry in the calendar, and its kind.

use super::NONE;
use crate::event::EventKind;

/// What an entry is: an event of the simulation, or the calendar's own bookkeeping. The order of
/// the variants is the entries' tie-break order at equal times and first ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(super) enum EntryKind {
    /// A contact of two bodies ([`EventKind::BodyBody`]).
    BodyBody,
    /// A contact with a wall ([`EventKind::BodyWall`]).
    BodyWall,
    /// A crossing of the periodic box's face ([`EventKind::BoxCrossing`]).
    BoxCrossing,
    /// The body enters the next cell; `b` is the face's axis code `2 * axis + (1 if upwards)`.
    CellCrossing,
    /// The body has moved its reach from its centre and is listed anew (neighbour lists).
    Relisting,
    /// No pending event (infinite time).
    Nothing,
}

impl EntryKind {
    /// The event of the simulation this entry is, if any.
    #[inline]
    pub(super) fn event_kind(self) -> Option<EventKind> {
        match self {
            EntryKind::BodyBody => Some(EventKind::BodyBody),
            EntryKind::BodyWall => Some(EventKind::BodyWall),
            EntryKind::BoxCrossing => Some(EventKind::BoxCrossing),
            EntryKind::CellCrossing | EntryKind::Relisting | EntryKind::Nothing => None,
        }
    }
}

/// A body's pending event.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub(super) time: f64,
    /// Ordering ids: the event's `a` and `b`, or (owner, axis code) for a cell crossing, or
    /// (owner, 0) for a re-listing.
    pub(super) a: u32,
    pub(super) b: u32,
    pub(super) kind: EntryKind,
    /// Counter of the partner body when the entry was predicted (ball-ball only).
    pub(super) partner_counter: u32,
}

impl Entry {
    pub(super) const NOTHING: Entry = Entry {
        time: f64::INFINITY,
        a: NONE,
        b: NONE,
        kind: EntryKind::Nothing,
        partner_counter: 0,
    };

    /// Becomes the one-body entry `(time, a, b, kind)` if that precedes it.
    #[inline]
    pub(super) fn lower_to(&mut self, time: f64, a: u32, b: u32, kind: EntryKind) {
        let e = Entry {
            time,
            a,
            b,
            kind,
            partner_counter: 0,
        };
        if e.precedes(self) {
            *self = e;
        }
    }

    #[inline]
    pub(super) fn precedes(&self, o: &Entry) -> bool {
        match self.time.total_cmp(&o.time) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => (self.a, self.kind, self.b) < (o.a, o.kind, o.b),
        }
    }
}
