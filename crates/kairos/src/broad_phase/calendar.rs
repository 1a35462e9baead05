//! Event calendar with a cell grid: `O(1)` to `O(log n)` work per event.
//!
//! The design of scientific event-driven molecular dynamics (Paul 2007; Smallenburg 2022,
//! "Efficient event-driven simulations of hard spheres"), made exact for Kairos's invariants:
//!
//! * **Cells.** Space is cut into cubic cells at least as wide as the largest contact distance
//!   (plus a relative `1e-9`), so bodies in non-adjacent cells cannot touch. A body belongs to
//!   the cell of its centre; positions outside the grid fall in the edge cells (clamping keeps
//!   the non-adjacency guarantee). Each wall is registered in every cell within one cell width
//!   of it.
//! * **One pending event per body.** A body's entry is the earliest, in [`Event::cmp_order`], of
//!   its contacts with bodies in the 3^d neighbouring cells, with the walls of its cell, and of
//!   its next *cell crossing*. Crossings are the calendar's own bookkeeping: they move the body to
//!   the next cell and re-predict it, and never change its stored state, so every contact time is
//!   the same pure function of stored states as in every other broad phase.
//! * **Lazy invalidation.** Each body has an event counter, incremented when an event changes its
//!   state. An entry remembers its partner's counter; when a stale entry reaches the top of the
//!   calendar, its owner is simply re-predicted.
//! * **Periodic boxes.** Cells tile the box exactly and neighbours wrap around; a body leaving
//!   the box is a core box-crossing event (shared by every broad phase), after which it is
//!   relinked to the cell of its wrapped position and re-predicted.
//! * **The calendar** ([`queue`]) keeps the entries in time buckets (Paul 2007): a small heap
//!   for the current bucket, unsorted lists for the later ones, an overflow list beyond; it is
//!   ordered by the event order (crossings sort as kind 3), and memory stays `O(n)`.
//! * **Branches and memory.** A prediction first gathers its candidates ([`ListWalk`]: the cell
//!   lists walked breadth first without branching on loaded values); when the bodies' states do
//!   not fit the cache, it prefetches their states and counters (and its own calendar slot)
//!   before any test so that the cache misses overlap, and a collision prefetches the states
//!   and lists of the event likely to come next; in a periodic box it screens them in a batch
//!   without branching on each outcome (`test_periodic`). None of this changes an entry.
//! * **Neighbour lists** (`calendar-lists`, [`CalendarOptions::list_skin`]). Instead of the
//!   cells' blocks, a body's candidates are the bodies listed with it, and its bookkeeping
//!   event is a re-listing instead of a cell crossing; see [`Lists`] for why they only prune.
//!
//! Why the first valid entry popped is exactly the global next event: for every pair, at least
//! one of its bodies holds an entry that does not come after the pair's event (the body whose
//! state changed last predicted it; a stale entry is re-predicted before anything later is
//! popped), and a valid entry is a true event.

use super::BroadPhase;
use crate::body::Body;
use crate::event::{Event, EventKind};
use crate::math::{Aabb, Vector};
use crate::toi::{body_body, body_body_periodic_by, box_exit, PairScreen, ScreenBatch, Toi};
use crate::world::World;
use kairos_hint::{prefetch, prefetch_lines};
use queue::Queue;

mod queue;

const NONE: u32 = u32::MAX;
/// Kind codes of an entry; 0 to 2 are [`EventKind`] codes. A crossing is a cell crossing or,
/// with neighbour lists, a re-listing.
const KIND_CROSSING: u8 = 3;
/// The `b` of a re-listing entry (a cell crossing's is its axis code, below 6).
const RELISTING: u32 = 6;
const KIND_NOTHING: u8 = 4;
/// Bodies' states above this size (bytes) are touched before a prediction's tests.
const TOUCH_ABOVE_BYTES: usize = 1 << 21;
/// Relative margin of the cell width over the largest contact distance.
const CELL_MARGIN: f64 = 1e-9;

/// Parameters of [`Calendar`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CalendarOptions {
    /// Upper bound on the number of cells per body (the grid is coarsened above it).
    pub max_cells_per_body: f64,
    /// Neighbour lists instead of the cells' `3^d` blocks (the `calendar-lists` broad phase):
    /// their skin, as a fraction of the largest contact distance. `None`: no lists.
    pub list_skin: Option<f64>,
}

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

/// Neighbour lists: each body lists the bodies whose *centres* lie within the cut-off of its
/// own, and is re-listed when it has moved [`Lists::reach`] from its centre.
///
/// Why it only prunes: the cut-off exceeds the largest contact distance plus twice the reach
/// (padded by the cells' margins for round-off), so two bodies that are not listed together
/// cannot touch while both are within reach of their centres (in a periodic box, through any
/// image: the centres' minimum image is the nearest). A body's entry is never later than its
/// re-listing, and a re-listing re-predicts the body with its new list (the new neighbours'
/// own entries need not change: the pair was just predicted by the body re-listed last).
#[derive(Clone, Debug, Default)]
struct Lists<V: Vector> {
    /// The skin as a fraction of the largest contact distance.
    skin: f64,
    /// How far a body may move from its centre before it is re-listed.
    reach: f64,
    /// The squared cut-off of the centres' distance.
    cut2: f64,
    /// Each body's centre (its position when it was last listed) and the next body in its
    /// cell's list: a re-listing reads both of each body in the cells around it, so they share
    /// a cache line (in this mode the calendar's own `next` is unused).
    node: Vec<ListNode<V>>,
    /// Each body's neighbours (symmetric: `j` lists `i` when `i` lists `j`), in one store.
    of: ListStore,
}

impl<V: Vector> Lists<V> {
    /// Whether the centre `ci` (of a body) and that of body `j` lie within the cut-off (in the
    /// box `period`, by their minimum image; centres lie in the box, so `|d| <= L` on every
    /// axis).
    #[inline(always)]
    fn near_centre(&self, ci: V, j: u32, period: Option<V>) -> bool {
        let d = (ci - self.node[j as usize].centre).to_array3();
        let mut dd = 0.0;
        match period {
            Some(l) => {
                let l = l.to_array3();
                for a in 0..V::DIM {
                    let x = d[a].abs();
                    let x = x.min(l[a] - x);
                    dd += x * x;
                }
            }
            None => {
                for &x in &d[..V::DIM] {
                    dd += x * x;
                }
            }
        }
        dd <= self.cut2
    }

    /// When body `i` (state `b`) gets `reach` from its centre, as an entry. The exit root of
    /// `|d + v t| = reach` is taken in the form without cancellation; a body already at the
    /// edge and leaving (round-off) is re-listed at once.
    #[inline]
    fn relisting(&self, b: &Body<V>, i: u32) -> Entry {
        let d = b.pos - self.node[i as usize].centre;
        let a = b.vel.dot(b.vel);
        if !(a > 0.0) {
            return Entry::NOTHING;
        }
        let bb = d.dot(b.vel);
        let cc = d.dot(d) - self.reach * self.reach;
        let disc = bb * bb - a * cc;
        let dt = if (!(cc < 0.0) && !(bb < 0.0)) || !(disc >= 0.0) {
            0.0
        } else if bb >= 0.0 {
            cc / (-(bb + disc.sqrt()))
        } else {
            (disc.sqrt() - bb) / a
        };
        Entry {
            time: b.time + dt.max(0.0),
            a: i,
            b: RELISTING,
            kind: KIND_CROSSING,
            partner_counter: 0,
        }
    }
}

/// A body's centre and the next body in the list of its centre's cell.
#[derive(Clone, Copy, Debug)]
struct ListNode<V: Vector> {
    centre: V,
    next: u32,
}

/// The `next` links of the cells' lists: the calendar's own array, or with neighbour lists the
/// bodies' [`ListNode`]s.
trait NextLinks {
    fn next(&self, i: u32) -> u32;
    fn set_next(&mut self, i: u32, n: u32);
}

impl NextLinks for [u32] {
    #[inline(always)]
    fn next(&self, i: u32) -> u32 {
        self[i as usize]
    }
    #[inline(always)]
    fn set_next(&mut self, i: u32, n: u32) {
        self[i as usize] = n;
    }
}

impl<V: Vector> NextLinks for [ListNode<V>] {
    #[inline(always)]
    fn next(&self, i: u32) -> u32 {
        self[i as usize].next
    }
    #[inline(always)]
    fn set_next(&mut self, i: u32, n: u32) {
        self[i as usize].next = n;
    }
}

/// The cells' doubly linked lists of bodies: heads, and each body's cell and previous body (its
/// next is in a [`NextLinks`]).
#[derive(Clone, Debug, Default)]
struct Cells {
    head: Vec<u32>,
    prev: Vec<u32>,
    cell: Vec<u32>,
}

impl Cells {
    #[inline]
    fn link(&mut self, next: &mut (impl NextLinks + ?Sized), i: u32, c: u32) {
        let h = self.head[c as usize];
        next.set_next(i, h);
        self.prev[i as usize] = NONE;
        if h != NONE {
            self.prev[h as usize] = i;
        }
        self.head[c as usize] = i;
        self.cell[i as usize] = c;
    }

    #[inline]
    fn unlink(&mut self, next: &mut (impl NextLinks + ?Sized), i: u32) {
        let (p, n) = (self.prev[i as usize], next.next(i));
        if p != NONE {
            next.set_next(p, n);
        } else {
            self.head[self.cell[i as usize] as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }
}

/// Every body's neighbour list in one flat store: body `i`'s row is `stride` slots from
/// `start + i * stride`, its length first and its neighbours after it. A prediction reaches a
/// body's list with one load that depends on nothing else (a vector of vectors needs two: the
/// header, then the list), and rows start on cache lines, so a list of up to 15 neighbours is
/// one line. A row that would overflow makes the whole store grow (rare: the stride starts
/// with room over the longest list of a sample). Alignment is only a matter of speed (a clone
/// keeps the offsets of its original).
#[derive(Clone, Debug, Default)]
struct ListStore {
    slots: Vec<u32>,
    /// Slots per row, a multiple of 16 (one 64-byte line).
    stride: usize,
    /// Index of row 0's first slot (the first slot on a cache line).
    start: usize,
    rows: usize,
}

impl ListStore {
    /// Slots in a cache line.
    const LINE: usize = 16;

    /// `rows` empty rows with room for `longest` neighbours each and some more.
    fn new(rows: usize, longest: usize) -> Self {
        let mut store = ListStore::default();
        store.reshape(rows, longest + longest / 2 + 4);
        store
    }

    /// Rows of at least `room` neighbours each, the old rows' contents copied over (new rows
    /// are empty).
    fn reshape(&mut self, rows: usize, room: usize) {
        let stride = (room + 1).div_ceil(Self::LINE) * Self::LINE;
        let mut slots = vec![0u32; rows * stride + Self::LINE];
        // Rows on cache lines: the allocation itself is only aligned to 4 bytes.
        let misalign = (slots.as_ptr() as usize / 4) % Self::LINE;
        let start = (Self::LINE - misalign) % Self::LINE;
        for r in 0..self.rows.min(rows) {
            let old = self.row(r as u32);
            slots[start + r * stride..][..old.len()].copy_from_slice(old);
        }
        *self = ListStore {
            slots,
            stride,
            start,
            rows,
        };
    }

    /// The slot of row `i`'s length.
    #[inline(always)]
    fn at(&self, i: u32) -> usize {
        self.start + i as usize * self.stride
    }

    /// The first slot of body `i`'s row (its length), without reading it.
    #[inline]
    fn first_slot(&self, i: u32) -> &u32 {
        &self.slots[self.at(i)]
    }

    /// Row `i`: its length, then its neighbours.
    #[inline(always)]
    fn row(&self, i: u32) -> &[u32] {
        let at = self.at(i);
        let n = self.slots[at] as usize;
        &self.slots[at..at + 1 + n]
    }

    /// Body `i`'s neighbours.
    #[inline(always)]
    fn get(&self, i: u32) -> &[u32] {
        &self.row(i)[1..]
    }

    /// Adds `j` to body `i`'s neighbours.
    #[inline]
    fn push(&mut self, i: u32, j: u32) {
        let at = self.at(i);
        let n = self.slots[at] as usize;
        if n + 1 == self.stride {
            self.reshape(self.rows, 2 * self.stride);
            return self.push(i, j);
        }
        self.slots[at + 1 + n] = j;
        self.slots[at] = n as u32 + 1;
    }

    /// Removes `j` from body `i`'s neighbours (the last one takes its place), if listed.
    #[inline]
    fn remove(&mut self, i: u32, j: u32) {
        let at = self.at(i);
        let n = self.slots[at] as usize;
        let row = &mut self.slots[at + 1..at + 1 + n];
        if let Some(k) = row.iter().position(|&x| x == j) {
            row[k] = row[n - 1];
            self.slots[at] = n as u32 - 1;
        }
    }

    /// Makes `list` body `i`'s neighbours.
    fn set(&mut self, i: u32, list: &[u32]) {
        if list.len() + 1 > self.stride {
            self.reshape(self.rows, 2 * list.len());
        }
        let at = self.at(i);
        self.slots[at] = list.len() as u32;
        self.slots[at + 1..at + 1 + list.len()].copy_from_slice(list);
    }
}

/// A body's pending event.
#[derive(Clone, Copy, Debug)]
struct Entry {
    time: f64,
    /// Ordering ids: the event's `a` and `b`, or (owner, axis code) for a crossing.
    a: u32,
    b: u32,
    kind: u8,
    /// Counter of the partner body when the entry was predicted (ball-ball only).
    partner_counter: u32,
}

impl Entry {
    const NOTHING: Entry = Entry {
        time: f64::INFINITY,
        a: NONE,
        b: NONE,
        kind: KIND_NOTHING,
        partner_counter: 0,
    };

    /// Becomes the one-body entry `(time, a, b, kind)` if that precedes it.
    #[inline]
    fn lower_to(&mut self, time: f64, a: u32, b: u32, kind: u8) {
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
    fn precedes(&self, o: &Entry) -> bool {
        match self.time.total_cmp(&o.time) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => (self.a, self.kind, self.b) < (o.a, o.kind, o.b),
        }
    }
}

/// Starts loading every candidate's state (both of its cache lines) and event counter (which
/// a contact found with it records) before any test, so that their cache misses overlap
/// instead of waiting on each other.
#[inline]
fn touch<V: Vector>(world: &World<V>, counters: &[u32], cand: &[u32]) {
    for &j in cand {
        let b = &world.bodies[j as usize];
        prefetch_lines(b);
        prefetch(&counters[j as usize]);
    }
}

/// A breadth-first walk of the cell lists around a body: one load per list and round, all
/// independent of each other. The lists still going are kept without branching on a loaded
/// value, so only the end of the walk is a branch.
struct ListWalk<const K: usize> {
    /// The current body of each list still going.
    cur: [u32; K],
    live: usize,
    /// Bodies written so far.
    len: usize,
    /// The walk's own body, left out.
    skip: u32,
}

impl<const K: usize> ListWalk<K> {
    #[inline(always)]
    fn start<V: Vector>(cal: &Calendar<V>, i: u32, near: Option<(V, f64)>) -> Self {
        let (cells, nc) = cal.neighbourhood::<K>(i, near);
        let mut w = ListWalk {
            cur: [NONE; K],
            live: 0,
            len: 0,
            skip: i,
        };
        for &c in &cells[..nc] {
            let j = cal.cells.head[c as usize];
            w.cur[w.live] = j;
            w.live += (j != NONE) as usize;
        }
        w
    }

    /// Writes the current bodies that `keep` accepts to `out` and moves every list one step.
    #[inline(always)]
    fn round(
        &mut self,
        next: &(impl NextLinks + ?Sized),
        keep: impl Fn(u32) -> bool,
        out: &mut Vec<u32>,
    ) {
        if out.len() < self.len + self.live {
            out.resize(self.len + self.live, NONE);
        }
        let mut still = 0;
        for k in 0..self.live {
            let j = self.cur[k];
            out[self.len] = j;
            self.len += ((j != self.skip) & keep(j)) as usize;
            let n = next.next(j);
            self.cur[still] = n;
            still += (n != NONE) as usize;
        }
        self.live = still;
    }
}

/// Buffers of the batch screen of a periodic prediction: the candidates' keys, and the
/// survivors' places among them.
#[derive(Clone, Debug, Default)]
struct Batch {
    keys: Vec<f64>,
    keep: Vec<u32>,
}

/// The uniform grid.
#[derive(Clone, Debug, Default)]
struct Grid {
    origin: [f64; 3],
    /// Cell width per axis.
    width: [f64; 3],
    dims: [u32; 3],
    /// Neighbouring cells wrap around (periodic box).
    periodic: bool,
    /// Cells on each side of a cell in its neighbourhood: 1, or 2 for neighbour lists (whose
    /// cells are half as wide as the cut-off).
    span: u32,
}

impl Grid {
    #[inline]
    fn coord(&self, x: f64, axis: usize) -> u32 {
        let c = ((x - self.origin[axis]) / self.width[axis]).floor();
        // NaN cannot occur (validated states); clamping keeps outside positions in edge cells.
        c.clamp(0.0, (self.dims[axis] - 1) as f64) as u32
    }
    #[inline]
    fn coords<V: Vector>(&self, p: V) -> [u32; 3] {
        let mut c = [0u32; 3];
        for (axis, slot) in c.iter_mut().enumerate().take(V::DIM) {
            *slot = self.coord(p.comp(axis), axis);
        }
        c
    }
    #[inline]
    fn index(&self, c: [u32; 3]) -> u32 {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }
    #[inline]
    fn unindex(&self, i: u32) -> [u32; 3] {
        let x = i % self.dims[0];
        let yz = i / self.dims[0];
        [x, yz % self.dims[1], yz / self.dims[1]]
    }
    fn len(&self) -> usize {
        self.dims.iter().map(|&d| d as usize).product()
    }
    /// The distinct cell coordinates within [`Grid::span`] of `c` along `axis` (including `c`),
    /// in `out`; returns how many.
    #[inline]
    fn neighbours(&self, c: u32, axis: usize, out: &mut [u32; 5]) -> usize {
        let (d, s) = (self.dims[axis], self.span);
        if self.periodic {
            if d <= 2 * s + 1 {
                for (k, slot) in out.iter_mut().enumerate().take(d as usize) {
                    *slot = k as u32;
                }
                return d as usize;
            }
            // `c - s ..= c + s`, wrapped.
            for (k, slot) in out.iter_mut().enumerate().take((2 * s + 1) as usize) {
                // In `d - s .. 2 d + s`: at most two subtractions of `d` bring it into range.
                let x = c + d + k as u32 - s;
                let x = if x >= d { x - d } else { x };
                *slot = if x >= d { x - d } else { x };
            }
            return (2 * s + 1) as usize;
        }
        let lo = c.saturating_sub(s);
        let hi = (c + s).min(d - 1);
        for (k, slot) in out.iter_mut().enumerate().take((hi - lo + 1) as usize) {
            *slot = lo + k as u32;
        }
        (hi - lo + 1) as usize
    }
}

/// The event-calendar broad phase; see the [module documentation](self).
#[derive(Clone, Debug)]
pub struct Calendar<V: Vector> {
    opts: CalendarOptions,
    ready: bool,
    grid: Grid,
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
}

impl<V: Vector> Calendar<V> {
    /// A new, empty calendar (it is built from the world on first use).
    pub fn new(opts: CalendarOptions) -> Self {
        Self {
            opts,
            ready: false,
            grid: Grid::default(),
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
        }
    }

    fn init(&mut self, world: &World<V>) {
        let n = world.bodies.len();
        let bodies = &world.bodies;
        // Bounds of the bodies (at their local times) and of the finite extents of the walls
        // (a plane's box is infinite along its length; the clamped edge cells cover that).
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for b in bodies {
            for a in 0..V::DIM {
                lo[a] = lo[a].min(b.pos.comp(a));
                hi[a] = hi[a].max(b.pos.comp(a));
            }
        }
        for w in &world.walls {
            let bx = w.aabb();
            for a in 0..V::DIM {
                for x in [bx.min.comp(a), bx.max.comp(a)] {
                    if x.is_finite() {
                        lo[a] = lo[a].min(x);
                        hi[a] = hi[a].max(x);
                    }
                }
            }
        }
        for a in 0..V::DIM {
            if !(lo[a] <= hi[a]) {
                (lo[a], hi[a]) = (0.0, 0.0);
            }
        }
        let v = |x: [f64; 3]| V::from_array3(x);
        let bounds = Aabb::new(v(lo), v(hi));
        let r_max = bodies.iter().map(|b| b.radius).fold(0.0, f64::max);
        // At least one contact distance, plus the round-off of cell boundaries and crossing
        // positions far from the origin.
        let coord_scale = (0..V::DIM).fold(0.0f64, |m, a| {
            m.max(bounds.min.comp(a).abs())
                .max(bounds.max.comp(a).abs())
        });
        // With lists, cells index the centres, and the cells around a centre's hold every centre
        // within the cut-off.
        let reach = self.lists.as_ref().map_or(0.0, |l| l.skin * r_max);
        let min_width =
            (2.0 * r_max + 2.0 * reach) * (1.0 + CELL_MARGIN) + 64.0 * f64::EPSILON * coord_scale;
        // With lists, cells half as wide as the cut-off, and two on each side: the `5^d` cells
        // cover the cut-off as the `3^d` would, with about half their volume, and a re-listing
        // walks only those whose boxes come within the cut-off of the centre. (A wall is still
        // registered in every cell within one cell width, at least the reach plus a radius.)
        let span = if self.lists.is_some() { 2 } else { 1 };
        let cell_width = min_width / span as f64;
        let max_cells = (self.opts.max_cells_per_body * n as f64).max(1.0);
        let (origin, extent): ([f64; 3], [f64; 3]) = match world.period {
            Some(l) => ([0.0; 3], l.to_array3()),
            None => (
                bounds.min.to_array3(),
                (bounds.max - bounds.min).to_array3(),
            ),
        };
        // Cubic target width: at least one contact distance, coarse enough for max_cells.
        let volume: f64 = (0..V::DIM).map(|a| extent[a].max(cell_width)).product();
        let mut width = cell_width.max((volume / max_cells).powf(1.0 / V::DIM as f64));
        if !(width > 0.0) || !width.is_finite() {
            width = 1.0;
        }
        let mut dims = [1u32; 3];
        let mut widths = [width; 3];
        for a in 0..V::DIM {
            if world.period.is_some() {
                // Whole cells tile the box: widths divide L exactly and stay >= cell_width.
                dims[a] = ((extent[a] / width).floor() as u64).clamp(1, 1 << 20) as u32;
                widths[a] = extent[a] / dims[a] as f64;
            } else {
                dims[a] = ((extent[a] / width).floor().min((1u64 << 20) as f64) as u64 + 1) as u32;
            }
        }
        // Keep the total well inside u32 whatever the shape.
        while dims.iter().map(|&d| d as u64).product::<u64>() > (max_cells as u64 + 1) * 8 {
            for a in 0..V::DIM {
                dims[a] = dims[a].div_ceil(2).max(1);
                widths[a] = if world.period.is_some() {
                    extent[a] / dims[a] as f64
                } else {
                    widths[a] * 2.0
                };
            }
        }
        self.grid = Grid {
            origin,
            width: widths,
            dims,
            periodic: world.period.is_some(),
            span,
        };
        let cells = self.grid.len();

        self.cells = Cells {
            head: vec![NONE; cells],
            prev: vec![NONE; n],
            cell: vec![0; n],
        };
        // With lists, cells index the centres, at the bodies' stored positions.
        match &mut self.lists {
            Some(lists) => {
                lists.node = bodies
                    .iter()
                    .map(|b| ListNode {
                        centre: b.pos,
                        next: NONE,
                    })
                    .collect();
                self.next = Vec::new();
            }
            None => self.next = vec![NONE; n],
        }
        for (i, b) in bodies.iter().enumerate() {
            let c = self.grid.index(self.grid.coords(b.pos));
            self.link(i as u32, c);
        }

        // Walls: every cell whose box lies within one cell width of the wall's box, in
        // compressed rows built by counting (no allocation per cell). No walls, no rows.
        self.wall_start.clear();
        self.walls.clear();
        if !world.walls.is_empty() {
            let reach = widths.iter().take(V::DIM).fold(0.0f64, |m, &w| m.max(w));
            let grid = &self.grid;
            let cells_of = |wall: &crate::wall::Wall<V>| {
                let bx = wall.aabb().expanded(reach * (1.0 + CELL_MARGIN));
                let (lo, hi) = (grid.coords(bx.min), grid.coords(bx.max));
                (lo[2]..=hi[2]).flat_map(move |z| {
                    (lo[1]..=hi[1])
                        .flat_map(move |y| (lo[0]..=hi[0]).map(move |x| grid.index([x, y, z])))
                })
            };
            // Row lengths, then starts, then the rows (filled from their ends).
            let mut start = vec![0u32; cells + 1];
            for wall in &world.walls {
                for c in cells_of(wall) {
                    start[c as usize + 1] += 1;
                }
            }
            for c in 0..cells {
                start[c + 1] += start[c];
            }
            let mut fill = start.clone();
            let mut walls = vec![0u32; start[cells] as usize];
            for (w, wall) in world.walls.iter().enumerate() {
                for c in cells_of(wall) {
                    walls[fill[c as usize] as usize] = w as u32;
                    fill[c as usize] += 1;
                }
            }
            self.wall_start = start;
            self.walls = walls;
        }

        self.touch = n * std::mem::size_of::<Body<V>>() > TOUCH_ABOVE_BYTES;
        if let Some(mut lists) = self.lists.take() {
            lists.reach = reach;
            lists.cut2 = min_width * min_width;
            // The store is sized by the longest list of a sample of bodies (it grows if a list
            // outgrows it), then filled.
            let mut cand = Vec::new();
            let mut longest = 0;
            for i in (0..n as u32).step_by((n / 1024).max(1)) {
                self.gather_listed(&lists, i, world.period, &mut cand);
                longest = longest.max(cand.len());
            }
            lists.of = ListStore::new(n, longest);
            for i in 0..n as u32 {
                self.gather_listed(&lists, i, world.period, &mut cand);
                lists.of.set(i, &cand);
            }
            self.lists = Some(lists);
        }
        self.counters = vec![0; n];
        let entries = (0..n as u32).map(|i| self.predict(world, i)).collect();
        self.queue = Queue::new(entries);
        self.ready = true;
    }

    /// Links body `i` into cell `c` (a re-listing, which holds the lists out, links itself).
    #[inline]
    fn link(&mut self, i: u32, c: u32) {
        match &mut self.lists {
            Some(lists) => self.cells.link(&mut lists.node[..], i, c),
            None => self.cells.link(&mut self.next[..], i, c),
        }
    }

    #[inline]
    fn unlink(&mut self, i: u32) {
        match &mut self.lists {
            Some(lists) => self.cells.unlink(&mut lists.node[..], i),
            None => self.cells.unlink(&mut self.next[..], i),
        }
    }

    /// Re-lists body `i` at time `t` (neighbour lists only): its centre moves to its position
    /// then, its cell follows, and its list is built again from the centres in the
    /// neighbouring cells (the neighbours' lists are updated to match).
    fn relist(&mut self, world: &World<V>, i: u32, t: f64) {
        let Some(mut lists) = self.lists.take() else {
            return;
        };
        let [mut old, mut new] = std::mem::take(&mut self.scratch);
        old.clear();
        old.extend_from_slice(lists.of.get(i));
        let c = world.bodies[i as usize].position_at(t);
        self.cells.unlink(&mut lists.node[..], i);
        lists.node[i as usize].centre = c;
        let cell = self.grid.index(self.grid.coords(c));
        self.cells.link(&mut lists.node[..], i, cell);
        self.gather_listed(&lists, i, world.period, &mut new);
        lists.of.set(i, &new);
        // Only the neighbours that leave or join the list have their own rows changed (most
        // stay: a body re-listed has moved a fraction of the cut-off).
        for &j in &old {
            if !new.contains(&j) {
                lists.of.remove(j, i);
            }
        }
        for &j in &new {
            if !old.contains(&j) {
                lists.of.push(j, i);
            }
        }
        self.scratch = [old, new];
        self.lists = Some(lists);
    }

    /// The bodies whose centres lie within the cut-off of body `i`'s (whose cell must be that
    /// of its centre), into `out`. The cells within the cut-off are walked as in
    /// [`Calendar::gather`], each body's centre tested as its next link is read (the same cache
    /// line), and kept without branching on the outcome (half or more are dropped).
    fn gather_listed(&self, lists: &Lists<V>, i: u32, period: Option<V>, out: &mut Vec<u32>) {
        let ci = lists.node[i as usize].centre;
        self.walk::<125>(
            i,
            Some((ci, lists.cut2)),
            &lists.node[..],
            |j| lists.near_centre(ci, j, period),
            out,
        );
    }

    /// The next cell crossing of body `i`, as an entry.
    #[inline]
    fn crossing(&self, b: &Body<V>, i: u32) -> Entry {
        let c = self.grid.unindex(self.cells.cell[i as usize]);
        let mut best = Entry::NOTHING;
        for axis in 0..V::DIM {
            let v = b.vel.comp(axis);
            let boundary = if v > 0.0 && c[axis] + 1 < self.grid.dims[axis] {
                c[axis] + 1
            } else if v < 0.0 && c[axis] > 0 {
                c[axis]
            } else {
                continue;
            };
            let x = self.grid.origin[axis] + boundary as f64 * self.grid.width[axis];
            let dt = ((x - b.pos.comp(axis)) / v).max(0.0);
            let t = b.time + dt;
            if t < best.time {
                let code = 2 * axis as u32 + (v > 0.0) as u32;
                best = Entry {
                    time: t,
                    a: i,
                    b: code,
                    kind: KIND_CROSSING,
                    partner_counter: 0,
                };
            }
        }
        best
    }

    /// Body `i`'s earliest pending event: contacts in the neighbouring cells and with the walls
    /// of its cell, and its next cell crossing.
    fn predict(&mut self, world: &World<V>, i: u32) -> Entry {
        let mut scratch = std::mem::take(&mut self.scratch[0]);
        let mut batch = std::mem::take(&mut self.batch);
        let cand = self.candidates(i, &mut scratch);
        if self.touch {
            self.touch_own(i);
            touch(world, &self.counters, cand);
        }
        let e = self.earliest(world, i, cand, &mut batch);
        self.scratch[0] = scratch;
        self.batch = batch;
        e
    }

    /// [`Calendar::predict`] of two bodies; at large N their candidates are gathered and
    /// touched together so that all their cache misses overlap (the entries are those of two
    /// predictions: a prediction reads no entry).
    fn predict_two(&mut self, world: &World<V>, a: u32, b: u32) -> (Entry, Entry) {
        let [mut sa, mut sb] = std::mem::take(&mut self.scratch);
        let mut batch = std::mem::take(&mut self.batch);
        let (ca, cb): (&[u32], &[u32]) = match &self.lists {
            Some(lists) => (lists.of.get(a), lists.of.get(b)),
            None => {
                self.gather_two(a, b, &mut sa, &mut sb);
                (&sa, &sb)
            }
        };
        if self.touch {
            self.touch_own(a);
            self.touch_own(b);
            touch(world, &self.counters, ca);
            touch(world, &self.counters, cb);
        }
        let ea = self.earliest(world, a, ca, &mut batch);
        let eb = self.earliest(world, b, cb, &mut batch);
        self.scratch = [sa, sb];
        self.batch = batch;
        (ea, eb)
    }

    /// Body `i`'s candidates: its list itself, or the bodies of the cells around it gathered
    /// into `scratch`.
    #[inline]
    fn candidates<'a>(&'a self, i: u32, scratch: &'a mut Vec<u32>) -> &'a [u32] {
        match &self.lists {
            Some(lists) => lists.of.get(i),
            None => {
                self.gather(i, scratch);
                scratch
            }
        }
    }

    /// The cells around body `i`'s cell (distinct; `3^d`, or `5^d` with lists), and how many;
    /// `K` must hold them. With `near = (p, r2)`, only the cells whose boxes may hold a point
    /// within `sqrt(r2)` of `p` (a point of `i`'s cell), padded for round-off.
    #[inline]
    fn neighbourhood<const K: usize>(&self, i: u32, near: Option<(V, f64)>) -> ([u32; K], usize) {
        let c = self.grid.unindex(self.cells.cell[i as usize]);
        let mut axes = [[0u32; 5]; 3];
        let mut counts = [1usize; 3];
        // Per axis and cell, the squared gap between `p` and the cell's slab (0: no culling).
        let mut gaps = [[0.0f64; 5]; 3];
        for a in 0..V::DIM {
            counts[a] = self.grid.neighbours(c[a], a, &mut axes[a]);
            let Some((p, _)) = near else { continue };
            let (w, x) = (self.grid.width[a], p.comp(a));
            let lo = self.grid.origin[a] + c[a] as f64 * w;
            let tol = 1e-9 * (w + x.abs() + lo.abs());
            let (below, above) = (x - lo, lo + w - x);
            // A short periodic axis lists all its cells in their own order: none is culled.
            let wraps = self.grid.periodic && self.grid.dims[a] <= 2 * self.grid.span + 1;
            for k in 0..counts[a] {
                // The cell's offset from `c` along the axis.
                let o = if self.grid.periodic {
                    k as i64 - self.grid.span as i64
                } else {
                    axes[a][k] as i64 - c[a] as i64
                };
                let gap = match o {
                    0 => 0.0,
                    o if o < 0 => below + (-o - 1) as f64 * w,
                    o => above + (o - 1) as f64 * w,
                };
                let gap = if wraps { 0.0 } else { (gap - tol).max(0.0) };
                gaps[a][k] = gap * gap;
            }
        }
        let r2 = near.map_or(f64::INFINITY, |(_, r2)| r2);
        let mut cells = [NONE; K];
        let mut nc = 0;
        let (dx, dy) = (self.grid.dims[0], self.grid.dims[1]);
        for (&z, &gz) in axes[2][..counts[2]].iter().zip(&gaps[2]) {
            for (&y, &gy) in axes[1][..counts[1]].iter().zip(&gaps[1]) {
                // `Grid::index` of the row, then of each cell in it.
                let row = (z * dy + y) * dx;
                for (&x, &gx) in axes[0][..counts[0]].iter().zip(&gaps[0]) {
                    cells[nc] = row + x;
                    nc += (gz + gy + gx <= r2) as usize;
                }
            }
        }
        (cells, nc)
    }

    /// The bodies in the `3^d` cells around body `i`'s cell, other than `i`, into `out`, walked
    /// as [`ListWalk`] describes.
    fn gather(&self, i: u32, out: &mut Vec<u32>) {
        self.walk::<27>(i, None, &self.next[..], |_| true, out);
    }

    /// The bodies of the cells around body `i`'s cell, other than `i`, that `keep` accepts,
    /// into `out`: the [`ListWalk`] along the links `next`.
    #[inline(always)]
    fn walk<const K: usize>(
        &self,
        i: u32,
        near: Option<(V, f64)>,
        next: &(impl NextLinks + ?Sized),
        keep: impl Fn(u32) -> bool,
        out: &mut Vec<u32>,
    ) {
        let mut w = ListWalk::<K>::start(self, i, near);
        while w.live > 0 {
            w.round(next, &keep, out);
        }
        out.truncate(w.len);
    }

    /// [`Calendar::gather`] of two bodies, whose walks take their rounds together so that the
    /// loads of both overlap.
    fn gather_two(&self, a: u32, b: u32, out_a: &mut Vec<u32>, out_b: &mut Vec<u32>) {
        let (mut wa, mut wb) = (
            ListWalk::<27>::start(self, a, None),
            ListWalk::<27>::start(self, b, None),
        );
        while wa.live + wb.live > 0 {
            wa.round(&self.next[..], |_| true, out_a);
            wb.round(&self.next[..], |_| true, out_b);
        }
        out_a.truncate(wa.len);
        out_b.truncate(wb.len);
    }

    /// Starts loading the states and candidate lists of the bodies of the event likely to come
    /// after the collision of `a` and `b` (the least entry near the top of the calendar's heap
    /// owned by neither), so that its predictions find them cached. A hint only.
    fn read_ahead(&self, world: &World<V>, a: u32, b: u32) {
        let Some(e) = self.queue.next_other(a, b) else {
            return;
        };
        // The second body of an entry that is not a contact is a code, not a body.
        let two = e.kind == EventKind::BallBall as u8;
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
    fn touch_own(&self, i: u32) {
        self.queue.touch(i);
        if let Some(lists) = &self.lists {
            prefetch(&lists.node[i as usize]);
        }
    }

    /// Body `i`'s earliest event among its own (its re-listing with neighbour lists, its cell
    /// crossing without), its box crossing, its contacts with the bodies `cand` and with the
    /// walls of its cell.
    fn earliest(&self, world: &World<V>, i: u32, cand: &[u32], batch: &mut Batch) -> Entry {
        let bi = &world.bodies[i as usize];
        let mut best = match &self.lists {
            Some(lists) => lists.relisting(bi, i),
            None => self.crossing(bi, i),
        };
        match world.period {
            None => self.test_candidates(world, i, cand, &mut best),
            Some(l) => {
                // The box crossing, whose time also ends the window of every periodic
                // prediction of this body.
                let exit = world.box_event(i);
                if let Some(e) = exit {
                    best.lower_to(e.time, i, e.b, EventKind::BoxCrossing as u8);
                }
                let exit_i = exit.map_or(f64::INFINITY, |e| e.time);
                self.test_periodic(world, i, cand, l, exit_i, batch, &mut best);
            }
        }
        let cell = self.cells.cell[i as usize] as usize;
        let near_walls = if self.wall_start.is_empty() {
            &[][..]
        } else {
            &self.walls[self.wall_start[cell] as usize..self.wall_start[cell + 1] as usize]
        };
        for &w in near_walls {
            if let Some(ev) = world.wall_event(i, w) {
                best.lower_to(ev.time, i, w, EventKind::BallWall as u8);
            }
        }
        best
    }

    /// Lowers `best` to body `i`'s earliest contact with the bodies `cand` (no periodic box).
    #[inline]
    fn test_candidates(&self, world: &World<V>, i: u32, cand: &[u32], best: &mut Entry) {
        let bi = &world.bodies[i as usize];
        for &j in cand {
            let toi = body_body(bi, &world.bodies[j as usize]);
            self.offer(i, j, toi, best);
        }
    }

    /// Lowers `best` to body `i`'s earliest contact with the bodies `cand` in the periodic box
    /// `l`, screening them in a batch: every pair's [`PairScreen`] first (no branch on the
    /// data), keeping its [`PairScreen::key`] and the batch's [`ScreenBatch`]; then the pair
    /// with the earliest key is predicted, which usually brings `best` down to about its final
    /// value; the pairs whose key is not above the batch's bound for `best` (a superset of
    /// those the screen cannot reject by then) are picked out without branching and
    /// predicted, each screened exactly first. Only contacts no later than `best` are used,
    /// and a pair the screen rejects cannot report one by that time, nor by any later, lower
    /// `best`; so the result is that of predicting every pair, in any order. `exit_i` is body
    /// `i`'s box exit time ([`crate::toi::box_exit`]).
    #[allow(clippy::too_many_arguments)]
    fn test_periodic(
        &self,
        world: &World<V>,
        i: u32,
        cand: &[u32],
        l: V,
        exit_i: f64,
        batch: &mut Batch,
        best: &mut Entry,
    ) {
        let Batch { keys, keep } = batch;
        let bodies = &world.bodies;
        let bi = &bodies[i as usize];
        keys.clear();
        keys.resize(cand.len(), 0.0);
        let mut bound = ScreenBatch::new();
        let (mut first, mut first_key) = (usize::MAX, f64::INFINITY);
        for (k, (&j, slot)) in cand.iter().zip(keys.iter_mut()).enumerate() {
            // The screen's numbers do not depend on the pair's order (see `PairScreen`), so
            // body `i`'s state stays in registers.
            let screen = PairScreen::new(bi, &bodies[j as usize], l);
            let key = screen.key();
            if key < first_key {
                (first, first_key) = (k, key);
            }
            bound.add(&screen);
            *slot = key;
        }
        // The window of a periodic prediction ends at the earlier box exit: `exit_i`, and the
        // partner's, recomputed for the few pairs predicted (the same bits as a cached value,
        // and no cache miss). The pair's screen is computed again (the same bits) for its
        // verdict and image.
        let predict = |k: usize, best: &mut Entry| {
            let j = cand[k];
            let bj = &bodies[j as usize];
            let (lo, hi) = if i < j { (bi, bj) } else { (bj, bi) };
            let end = || exit_i.min(box_exit(bj, l).0);
            let toi = body_body_periodic_by(lo, hi, l, best.time, end);
            self.offer(i, j, toi, best);
        };
        if first != usize::MAX {
            predict(first, best);
        }
        keep.clear();
        keep.resize(cand.len(), 0);
        let mut n = 0;
        match bound.key_bound(best.time) {
            Some(t) => {
                for (k, &key) in keys.iter().enumerate() {
                    keep[n] = k as u32;
                    n += (!(key > t) & (k != first)) as usize;
                }
            }
            // Some pair may need the full prediction: the exact screen of each (in one order,
            // as in the first pass).
            None => {
                for (k, &j) in cand.iter().enumerate() {
                    let screen = PairScreen::new(bi, &bodies[j as usize], l);
                    keep[n] = k as u32;
                    n += (!screen.rejects(best.time) & (k != first)) as usize;
                }
            }
        }
        for &k in &keep[..n] {
            predict(k as usize, best);
        }
    }

    /// Lowers `best` to the contact `toi` of bodies `i` and `j`, if it is one and not later.
    #[inline(always)]
    fn offer(&self, i: u32, j: u32, toi: Toi, best: &mut Entry) {
        if toi.is_hit() && toi.time <= best.time {
            let e = Entry {
                time: toi.time,
                a: i.min(j),
                b: i.max(j),
                kind: EventKind::BallBall as u8,
                partner_counter: self.counters[j as usize],
            };
            if e.precedes(best) {
                *best = e;
            }
        }
    }

    fn repredict(&mut self, world: &World<V>, i: u32) {
        let e = self.predict(world, i);
        self.queue.set(i, e);
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

    fn next_event(&mut self, world: &World<V>, _now: f64, horizon: f64) -> Option<Event> {
        if !self.ready || self.counters.len() != world.bodies.len() {
            self.init(world);
        }
        loop {
            let owner = self.queue.first()?;
            let e = self.queue.entry(owner);
            if !(e.time <= horizon) {
                return None;
            }
            match e.kind {
                KIND_CROSSING if e.b == RELISTING => {
                    self.relist(world, owner, e.time);
                    self.repredict(world, owner);
                }
                KIND_CROSSING => {
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
                k if k == EventKind::BallBall as u8 => {
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
                        kind: EventKind::BallBall,
                        a: e.a,
                        b: e.b,
                    });
                }
                k => {
                    let kind = EventKind::from_code(k as u32).expect("entry kind");
                    return Some(Event {
                        time: e.time,
                        kind,
                        a: e.a,
                        b: e.b,
                    });
                }
            }
        }
    }

    fn rebased(&mut self, _world: &World<V>) {
        self.ready = false;
    }

    fn event_processed(&mut self, world: &World<V>, event: &Event) {
        if !self.ready {
            return;
        }
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
        if event.kind == EventKind::BallBall {
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
    use crate::generate::{gas_bodies, GasParams};
    use glam::DVec3;

    /// The list store against a vector of vectors, through the same operations, starting small
    /// so that rows overflow and the store grows several times (contents kept, rows aligned).
    #[test]
    fn list_store_matches_vectors_and_grows() {
        let rows = 50u32;
        let mut store = ListStore::new(rows as usize, 0);
        let first_stride = store.stride;
        let mut model: Vec<Vec<u32>> = vec![Vec::new(); rows as usize];
        let mut state = 12345u64;
        let mut next = |m: u32| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % m as u64) as u32
        };
        for step in 0..20_000 {
            let i = next(rows);
            match next(8) {
                0..=3 => {
                    let j = next(1000);
                    store.push(i, j);
                    model[i as usize].push(j);
                }
                4..=6 => {
                    let j = match model[i as usize].len() {
                        0 => 7,
                        n => model[i as usize][next(n as u32) as usize],
                    };
                    store.remove(i, j);
                    if let Some(k) = model[i as usize].iter().position(|&x| x == j) {
                        model[i as usize].swap_remove(k);
                    }
                }
                _ => {
                    let list: Vec<u32> = (0..next(4 + step / 400)).map(|_| next(1000)).collect();
                    store.set(i, &list);
                    model[i as usize] = list;
                }
            }
            assert_eq!(store.get(i), &model[i as usize][..], "step {step}");
        }
        for i in 0..rows {
            assert_eq!(store.get(i), &model[i as usize][..]);
            let at = store.start + i as usize * store.stride;
            assert_eq!((store.slots[at..].as_ptr() as usize) % 64, 0);
        }
        assert!(
            store.stride >= 4 * first_stride,
            "{} {first_stride}",
            store.stride
        );
    }

    /// Neighbour lists stay symmetric and complete while bodies are re-listed: after every
    /// stretch of events, `j` lists `i` exactly when `i` lists `j`, and exactly when their
    /// centres lie within the cut-off. Boxes of many cells a side (the walk's cells culled by
    /// their distance) and of five (every cell of an axis walked).
    #[test]
    fn lists_stay_symmetric_and_complete() {
        for (n, packing) in [(600, 0.35), (100, 0.3)] {
            lists_stay_symmetric_and_complete_in(n, packing);
        }
    }

    fn lists_stay_symmetric_and_complete_in(n: usize, packing: f64) {
        let p = GasParams {
            dim: 3,
            n,
            packing,
            polydispersity: 0.05,
            seed: 5,
            ..Default::default()
        };
        let (l, bodies) = gas_bodies::<DVec3>(&p).map_err(|e| e.0).unwrap();
        let mut world = World::new(bodies, Vec::new()).with_period(l);
        let start: Vec<DVec3> = world.bodies.iter().map(|b| b.pos).collect();
        let mut cal = Calendar::<DVec3>::new(CalendarOptions {
            list_skin: Some(CalendarOptions::DEFAULT_LIST_SKIN),
            ..Default::default()
        });
        let n = world.bodies.len() as u32;
        for _round in 0..6 {
            for _ in 0..2000 {
                let e = cal.next_event(&world, 0.0, f64::INFINITY).unwrap();
                world.resolve(&e);
                cal.event_processed(&world, &e);
            }
            let lists = cal.lists.as_ref().unwrap();
            for i in 0..n {
                for j in 0..n {
                    if i == j {
                        continue;
                    }
                    let listed = lists.of.get(i).contains(&j);
                    assert_eq!(listed, lists.of.get(j).contains(&i), "{i} {j}");
                    assert_eq!(
                        listed,
                        lists.near_centre(lists.node[i as usize].centre, j, world.period),
                        "{i} {j}"
                    );
                }
            }
        }
        let lists = cal.lists.as_ref().unwrap();
        let moved = (0..n as usize)
            .filter(|&i| lists.node[i].centre != start[i])
            .count();
        assert!(moved > n as usize / 2, "{moved} bodies re-listed");
    }
}
