//! Prefetching: hints that make a prediction's cache misses overlap instead of waiting on each
//! other. Nothing here changes an entry.
//!
//! When the bodies' states do not fit the cache ([`TOUCH_ABOVE_BYTES`]), a prediction prefetches
//! every candidate's state (every cache line of its [`crate::body::Body`], whatever the order of
//! its fields: [`kairos_hint::prefetch_lines`]) and event counter (which a contact found with it
//! records), and its own calendar slot and list centre, before any test. Scenes that fit the cache
//! keep the plain walk fused with the tests. At a collision, the least entry near the top of the
//! queue's heap owned by neither body (usually the next event) has its bodies' states and list
//! rows prefetched ([`Calendar::read_ahead`]); and each popped event walks one link of the next
//! bucket's list, so that pouring it finds its links cached.
//!
//! The library forbids unsafe code: the prefetch instruction comes from the small `kairos-hint`
//! crate, behind a safe signature (a prefetch never faults). Plain loads summed into a black box
//! were tried instead and are slower: their sum holds up retirement until every miss has arrived.

use super::entry::EntryKind;
use super::Calendar;
use crate::math::Vector;
use crate::world::World;
use kairos_hint::{prefetch, prefetch_lines};

/// Bodies' states above this size (bytes) are touched before a prediction's tests.
pub(super) const TOUCH_ABOVE_BYTES: usize = 1 << 21;

/// Starts loading every candidate's state (both of its cache lines) and event counter (which
/// a contact found with it records) before any test, so that their cache misses overlap
/// instead of waiting on each other.
#[inline]
pub(super) fn touch<V: Vector>(world: &World<V>, counters: &[u32], cand: &[u32]) {
    for &j in cand {
        let b = &world.bodies[j as usize];
        prefetch_lines(b);
        prefetch(&counters[j as usize]);
    }
}

impl<V: Vector> Calendar<V> {
    /// Starts loading the states and candidate lists of the bodies of the event likely to come
    /// after the collision of `a` and `b` (the least entry near the top of the calendar's heap
    /// owned by neither), so that its predictions find them cached. A hint only.
    pub(super) fn read_ahead(&self, world: &World<V>, a: u32, b: u32) {
        let Some(e) = self.queue.next_other(a, b) else {
            return;
        };
        // The second body of an entry that is not a contact is a code, not a body.
        let two = e.kind == EntryKind::BodyBody;
        for i in [e.a, e.b].into_iter().take(1 + two as usize) {
            let Some(body) = world.bodies.get(i as usize) else {
                continue;
            };
            prefetch_lines(body);
            if let Some(lists) = &self.lists {
                prefetch(lists.of.first_slot(i));
            }
        }
    }

    /// Starts loading what a prediction of body `i` reads of its own besides its state: its
    /// place in the calendar and, with lists, its centre.
    #[inline]
    pub(super) fn touch_own(&self, i: u32) {
        self.queue.touch(i);
        if let Some(lists) = &self.lists {
            prefetch(&lists.node[i as usize]);
        }
    }
}
