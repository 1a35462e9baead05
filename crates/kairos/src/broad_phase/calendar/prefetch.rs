//! Prefetching: when the bodies' states do not fit the cache, a prediction starts loading its
//! candidates' states and counters before any test, so that their cache misses overlap.
//! Hints only: nothing here changes an entry.

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
        let two = e.kind == EntryKind::BallBall;
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
