//! Event calendar with a cell grid: `O(1)` to `O(log n)` work per event.
//!
//! The design of scientific event-driven molecular dynamics (Paul 2007; Smallenburg 2022,
//! "Efficient event-driven simulations of hard spheres"), made exact for Kairos's invariants:
//!
//! * **Cells** ([`cells`]). Space is cut into cubic cells at least as wide as the largest contact
//!   distance (plus a relative `1e-9`), so bodies in non-adjacent cells cannot touch. A body
//!   belongs to the cell of its centre; positions outside the grid fall in the edge cells
//!   (clamping keeps the non-adjacency guarantee). Each wall is registered in every cell within
//!   one cell width of it.
//! * **One pending entry per body** ([`entry`]). A body's entry is the earliest, in
//!   [`Event::cmp_order`], of its contacts with bodies in the `3^d` neighbouring cells, with the
//!   walls of its cell, its box crossing, and its next *cell crossing*. Crossings are the
//!   calendar's own bookkeeping: they move the body to the next cell and re-predict it, and never
//!   change its stored state, so every contact time is the same pure function of stored states as
//!   in every other broad phase ([`predict`]).
//! * **Lazy invalidation.** Each body has an event counter, incremented when an event changes its
//!   state. An entry remembers its partner's counter; when a stale entry reaches the top of the
//!   calendar, its owner is simply re-predicted.
//! * **Periodic boxes.** Cells tile the box exactly and neighbours wrap around; a body leaving
//!   the box is a core box-crossing event (shared by every broad phase), after which it is
//!   relinked to the cell of its wrapped position and re-predicted.
//! * **The calendar** ([`queue`]) keeps the entries in time buckets (Paul 2007): a small heap
//!   for the current bucket, unsorted lists for the later ones, an overflow list beyond; it is
//!   ordered by the entries' order, and memory stays `O(n)`.
//! * **Neighbour lists** ([`lists`]: `calendar-lists`, [`CalendarOptions::list_skin`]). Instead
//!   of the cells' blocks, a body's candidates are the bodies listed with it, and its bookkeeping
//!   event is a re-listing instead of a cell crossing.
//! * **Speed without changing an entry.** Gathering walks the cell lists breadth first without
//!   branching on loaded values ([`cells`]); at large N the candidates' states are prefetched
//!   before any test ([`prefetch`]); in a periodic box the candidates are screened in a batch
//!   ([`predict`]). None of this changes an entry or an event log.
//!
//! Why the first valid entry popped is exactly the global next event: for every pair, at least
//! one of its bodies holds an entry that does not come after the pair's event (the body whose
//! state changed last predicted it; a stale entry is re-predicted before anything later is
//! popped), and a valid entry is a true event.
//!
//! # What an event costs
//! A collision costs about 2.6 predictions: one for each of its two bodies, plus the
//! re-predictions of stale entries and of bookkeeping events (cell crossings, or re-listings). A
//! prediction visits the candidates of the body's `3^d` cells (about 25 in 3D at packing 0.45) or
//! its neighbour list (about 14 at the default skin). From about N = 10^5 the bodies' states do not
//! fit the cache, so the cost is dominated by loading the candidates' states, the cell lists and
//! the queue's slots: the rooms of this module either avoid work per candidate or make those cache
//! misses overlap. Measurements: `docs/benchmarks.md`.

mod cells;
mod entry;
mod lists;
mod predict;
mod prefetch;
mod queue;

use super::BroadPhase;
use crate::body::Body;
use crate::event::{Event, EventKind};
use crate::math::Vector;
use crate::world::World;
use cells::{CellGrid, Cells};
use entry::EntryKind;
use lists::{ListNode, Lists, Slab};
use predict::Batch;
use prefetch::TOUCH_ABOVE_BYTES;
use queue::Queue;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const NONE: u32 = u32::MAX;

/// Parameters of [`Calendar`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CalendarOptions {
    /// Upper bound on the number of cells per body (the grid is coarsened above it).
    pub max_cells_per_body: f64,
    /// Neighbour lists instead of the cells' `3^d` blocks (the `calendar-lists` broad phase):
    /// their skin, as a fraction of the largest contact distance. `None`: no lists.
    pub list_skin: Option<f64>,
}

/// How many times wider than the cut-off the cells around a centre must reach before the
/// neighbour lists' reach grows to fill them. Below, the skin is kept: in dense gases the
/// cells are a little wider than the cut-off (1.04 times in 3D at packing 0.45, 1.1 in 2D at
/// 0.5), and a longer list costs more there than the re-listings it saves; the thesis's table
/// at N = 2048 (1.65 times) runs in 0.75 s instead of 1.10 with the grown reach
/// (`docs/benchmarks.md`).
const LIST_GROWTH: f64 = 1.5;

impl CalendarOptions {
    /// The skin of `calendar-lists`: the fastest measured on dense gases (see
    /// `docs/benchmarks.md`).
    pub const DEFAULT_LIST_SKIN: f64 = 0.6;
}

impl Default for CalendarOptions {
    fn default() -> Self {
        Self {
            max_cells_per_body: 2.0,
            list_skin: None,
        }
    }
}

/// The event-calendar broad phase; how it works is in the module documentation of
/// `broad_phase/calendar/mod.rs`.
#[derive(Clone, Debug)]
pub struct Calendar<V: Vector> {
    opts: CalendarOptions,
    ready: bool,
    /// The time at which predictions are being made: a body's cell crossings and re-listings
    /// under gravity are those after it (a parabola crosses a plane twice).
    clock: f64,
    grid: CellGrid,
    /// The pending entries, one per body.
    queue: Queue,
    counters: Vec<u32>,
    cells: Cells,
    /// The `next` links of the cells' lists (without neighbour lists: see [`ListNode`]).
    next: Vec<u32>,
    /// Walls near each cell, in compressed rows: `walls[wall_start[c]..wall_start[c + 1]]`.
    wall_start: Vec<u32>,
    walls: Vec<u32>,
    /// Touch the candidates' states before testing them: only worth it when the bodies do not
    /// fit the cache (a performance choice, no effect on any entry).
    touch: bool,
    /// Candidate lists of predictions (reused).
    scratch: [Vec<u32>; 2],
    /// The batch screen's buffers (reused).
    batch: Batch,
    /// Neighbour lists, in the `calendar-lists` mode.
    lists: Option<Lists<V>>,
    /// Stops a search between bookkeeping entries ([`BroadPhase::set_stop`]).
    stop: Option<Arc<AtomicBool>>,
}

/// Bookkeeping entries (cell crossings, re-listings, stale entries) between two looks at the
/// stop flag.
const STOP_EVERY: u32 = 1024;

impl<V: Vector> Calendar<V> {
    /// A new, empty calendar (it is built from the world on first use).
    pub fn new(opts: CalendarOptions) -> Self {
        Self {
            opts,
            ready: false,
            clock: 0.0,
            grid: CellGrid::default(),
            queue: Queue::default(),
            counters: Vec::new(),
            cells: Cells::default(),
            next: Vec::new(),
            wall_start: Vec::new(),
            walls: Vec::new(),
            touch: false,
            scratch: [Vec::new(), Vec::new()],
            batch: Batch::default(),
            lists: opts.list_skin.map(|skin| Lists {
                skin,
                ..Lists::default()
            }),
            stop: None,
        }
    }

    /// Builds the calendar from the world: the cell grid, the bodies in their cells, the walls
    /// near each cell, the neighbour lists (in that mode), and every body's first entry.
    fn init(&mut self, world: &World<V>) {
        let n = world.bodies.len();
        let bodies = &world.bodies;
        let r_max = bodies.iter().map(|b| b.radius).fold(0.0, f64::max);
        // With lists, cells index the centres, and the cells around a centre's hold every centre
        // within the cut-off.
        let mut reach = self.lists.as_ref().map_or(0.0, |l| l.skin * r_max);
        // With lists, cells half as wide as the cut-off, and two on each side: the `5^d` cells
        // cover the cut-off as the `3^d` would, with about half their volume, and a re-listing
        // walks only those whose boxes come within the cut-off of the centre. (A wall is still
        // registered in every cell within one cell width, at least the reach plus a radius.)
        let span = if self.lists.is_some() { 2 } else { 1 };
        let max_cells = (self.opts.max_cells_per_body * n as f64).max(1.0);
        let fit = CellGrid::fit(world, 2.0 * r_max + 2.0 * reach, span, max_cells);
        let mut cut = fit.padded(2.0 * r_max + 2.0 * reach);
        let widest = fit.widest;
        if self.lists.is_some() && widest > LIST_GROWTH * (2.0 * r_max + 2.0 * reach) {
            // Cells much wider than the cut-off asks (sparse or tiny bodies: the cells are as
            // many as `max_cells_per_body` allows): the reach grows to what the cells around a
            // centre cover, so a body moves that far before it is re-listed, not a fraction of its
            // own size (a body of 1e-8 flying 4 would be re-listed some 1e9 times). Where the
            // cells around any centre are all the cells, every body lists every other and none
            // is ever re-listed (an infinite reach).
            if widest.is_finite() {
                reach = 0.5 * (widest - 2.0 * r_max);
                cut = fit.padded(2.0 * r_max + 2.0 * reach);
            } else {
                (reach, cut) = (f64::INFINITY, f64::INFINITY);
            }
        }
        self.grid = fit.grid;
        let cells = self.grid.len();

        self.cells = Cells {
            head: vec![NONE; cells],
            prev: vec![NONE; n],
            cell: vec![0; n],
        };
        // With lists, cells index the centres, at the bodies' stored positions.
        match &mut self.lists {
            Some(lists) => {
                lists.slab = Slab::of(&self.grid);
                lists.node = bodies
                    .iter()
                    .map(|b| ListNode {
                        centre: lists.slab.map_or(b.pos, |slab| slab.clamp(b.pos)),
                        next: NONE,
                    })
                    .collect();
                self.next = Vec::new();
            }
            None => self.next = vec![NONE; n],
        }
        for (i, b) in bodies.iter().enumerate() {
            // A body on a parabola is put in the cell it is in at the clock: its crossings are
            // only sought after the clock, so one between its stored state and the clock (a
            // world restored from a checkpoint, whose bodies have older states) would be lost,
            // and the body left in a cell it has left. (On a straight line, a crossing before
            // the clock is taken at once.) Centres of lists stay the stored positions (clamped
            // into the grid's box): a body that has left its centre's reach is re-listed at once.
            let p = if self.lists.is_none() && b.time < self.clock && world.accel(i) != V::ZERO {
                world.body_state_at(i, self.clock).0
            } else {
                b.pos
            };
            let c = self.grid.index(self.grid.coords(p));
            self.link(i as u32, c);
        }
        (self.wall_start, self.walls) = self.grid.wall_rows(world, reach == f64::INFINITY);
        self.touch = n * std::mem::size_of::<Body<V>>() > TOUCH_ABOVE_BYTES;
        self.build_lists(world, reach, cut);
        self.counters = vec![0; n];
        let entries = (0..n as u32).map(|i| self.predict(world, i)).collect();
        self.queue = Queue::new(entries);
        self.ready = true;
    }
}

impl<V: Vector> BroadPhase<V> for Calendar<V> {
    fn name(&self) -> &'static str {
        if self.lists.is_some() {
            "calendar-lists"
        } else {
            "calendar"
        }
    }

    fn next_event(&mut self, world: &World<V>, now: f64, horizon: f64) -> Option<Event> {
        self.clock = now;
        if !self.ready || self.counters.len() != world.bodies.len() {
            self.init(world);
        }
        let mut work = 0u32;
        loop {
            work = work.wrapping_add(1);
            if work % STOP_EVERY == 0
                && self
                    .stop
                    .as_ref()
                    .is_some_and(|s| s.load(Ordering::Relaxed))
            {
                return None;
            }
            let owner = self.queue.first()?;
            let e = self.queue.entry(owner);
            if !(e.time <= horizon) {
                return None;
            }
            self.clock = e.time;
            match e.kind {
                EntryKind::Relisting => {
                    self.relist(world, owner, e.time);
                    self.repredict(world, owner);
                }
                EntryKind::CellCrossing => {
                    let axis = (e.b / 2) as usize;
                    let mut c = self.grid.unindex(self.cells.cell[owner as usize]);
                    if e.b % 2 == 1 {
                        c[axis] += 1;
                    } else {
                        c[axis] -= 1;
                    }
                    self.unlink(owner);
                    let idx = self.grid.index(c);
                    self.link(owner, idx);
                    self.repredict(world, owner);
                }
                EntryKind::BodyBody => {
                    let partner = if e.a == owner { e.b } else { e.a };
                    if self.counters[partner as usize] != e.partner_counter {
                        self.repredict(world, owner);
                        continue;
                    }
                    if self.touch {
                        self.read_ahead(world, e.a, e.b);
                    }
                    return Some(Event {
                        time: e.time,
                        kind: EventKind::BodyBody,
                        a: e.a,
                        b: e.b,
                    });
                }
                EntryKind::BodyWall | EntryKind::BoxCrossing => {
                    return Some(Event {
                        time: e.time,
                        kind: e.kind.event_kind()?,
                        a: e.a,
                        b: e.b,
                    });
                }
                // A finite time is never `Nothing`'s.
                EntryKind::Nothing => return None,
            }
        }
    }

    fn rebased(&mut self, _world: &World<V>) {
        self.ready = false;
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    fn event_processed(&mut self, world: &World<V>, event: &Event) {
        if !self.ready {
            return;
        }
        self.clock = event.time;
        self.counters[event.a as usize] = self.counters[event.a as usize].wrapping_add(1);
        if event.kind == EventKind::BoxCrossing {
            // The body was wrapped to the opposite face: it changes cell (and, with lists, is
            // listed anew around its new position).
            if self.lists.is_some() {
                self.relist(world, event.a, event.time);
            } else {
                let c = self
                    .grid
                    .index(self.grid.coords(world.bodies[event.a as usize].pos));
                self.unlink(event.a);
                self.link(event.a, c);
            }
        }
        if event.kind == EventKind::BodyBody {
            self.counters[event.b as usize] = self.counters[event.b as usize].wrapping_add(1);
            let (ea, eb) = self.predict_two(world, event.a, event.b);
            self.queue.set(event.a, ea);
            self.queue.set(event.b, eb);
        } else {
            self.repredict(world, event.a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec2;

    /// The stop flag ends a search among the calendar's own entries: a ball flying past a row
    /// of 10,000 resting ones crosses some 8,000 cells (or is listed anew some thousands of
    /// times) before its first contact; with the flag set the search returns nothing, and
    /// once the flag is cleared it goes on to the contact a calendar never stopped finds.
    #[test]
    fn the_stop_flag_ends_a_search_between_bookkeeping_entries() {
        let mut bodies: Vec<Body<DVec2>> = (0..10_000)
            .map(|k| Body::new(DVec2::new(k as f64, 0.0), DVec2::ZERO, 0.4, 1.0))
            .collect();
        bodies.push(Body::new(DVec2::new(-1.0, 3.0), DVec2::X, 0.4, 1.0));
        bodies.push(Body::new(DVec2::new(10_001.0, 3.0), DVec2::ZERO, 0.4, 1.0));
        let world = World::builder(bodies, Vec::new()).build().unwrap();
        for list_skin in [None, Some(CalendarOptions::DEFAULT_LIST_SKIN)] {
            let opts = CalendarOptions {
                list_skin,
                ..Default::default()
            };
            let expected = Calendar::new(opts)
                .next_event(&world, 0.0, f64::INFINITY)
                .expect("the flyer meets the last ball");
            assert_eq!((expected.a, expected.b), (10_000, 10_001));
            let stop = Arc::new(AtomicBool::new(true));
            let mut cal = Calendar::new(opts);
            cal.set_stop(stop.clone());
            assert_eq!(cal.next_event(&world, 0.0, f64::INFINITY), None);
            stop.store(false, Ordering::Relaxed);
            assert_eq!(cal.next_event(&world, 0.0, f64::INFINITY), Some(expected));
        }
    }
}
