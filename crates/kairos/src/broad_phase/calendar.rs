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
//!   not fit the cache, it reads their states in a straight loop so that the cache misses
//!   overlap; in a periodic box it screens them in a batch without branching on each outcome
//!   (`test_periodic`). None of this changes an entry.
//!
//! Why the first valid entry popped is exactly the global next event: for every pair, at least
//! one of its bodies holds an entry that does not come after the pair's event (the body whose
//! state changed last predicted it; a stale entry is re-predicted before anything later is
//! popped), and a valid entry is a true event.

use super::BroadPhase;
use crate::body::Body;
use crate::event::{Event, EventKind};
use crate::math::{Aabb, Vector};
use crate::toi::{PairScreen, PeriodicScreen};
use crate::world::World;
use queue::Queue;

mod queue;

const NONE: u32 = u32::MAX;
/// Kind codes of an entry; 0 to 2 are [`EventKind`] codes.
const KIND_CROSSING: u8 = 3;
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
}

impl Default for CalendarOptions {
    fn default() -> Self {
        Self {
            max_cells_per_body: 2.0,
        }
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

    #[inline]
    fn precedes(&self, o: &Entry) -> bool {
        match self.time.total_cmp(&o.time) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => (self.a, self.kind, self.b) < (o.a, o.kind, o.b),
        }
    }
}

/// Reads every candidate's state (both of its cache lines) in a straight loop before any test,
/// so that their cache misses overlap instead of waiting on each other.
#[inline]
fn touch<V: Vector>(world: &World<V>, cand: &[u32]) {
    let mut sum = 0.0;
    for &j in cand {
        let b = &world.bodies[j as usize];
        sum += b.pos.comp(0) + b.radius;
    }
    std::hint::black_box(sum);
}

/// A breadth-first walk of the cell lists around a body: one load per list and round, all
/// independent of each other. The lists still going are kept without branching on a loaded
/// value, so only the end of the walk is a branch.
struct ListWalk {
    /// The current body of each list still going.
    cur: [u32; 27],
    live: usize,
    /// Bodies written so far.
    len: usize,
    /// The walk's own body, left out.
    skip: u32,
}

impl ListWalk {
    #[inline(always)]
    fn start<V: Vector>(cal: &Calendar<V>, i: u32) -> Self {
        let (cells, nc) = cal.neighbourhood(i);
        let mut w = ListWalk {
            cur: [NONE; 27],
            live: 0,
            len: 0,
            skip: i,
        };
        for &c in &cells[..nc] {
            let j = cal.head[c as usize];
            w.cur[w.live] = j;
            w.live += (j != NONE) as usize;
        }
        w
    }

    /// Writes the current bodies to `out` and moves every list one step.
    #[inline(always)]
    fn round(&mut self, next: &[u32], out: &mut Vec<u32>) {
        if out.len() < self.len + self.live {
            out.resize(self.len + self.live, NONE);
        }
        let mut still = 0;
        for k in 0..self.live {
            let j = self.cur[k];
            out[self.len] = j;
            self.len += (j != self.skip) as usize;
            let n = next[j as usize];
            self.cur[still] = n;
            still += (n != NONE) as usize;
        }
        self.live = still;
    }
}

/// Buffers of the batch screen of a periodic prediction: the candidates' screens, and the
/// survivors' places among them.
#[derive(Clone, Debug, Default)]
struct Batch {
    screens: Vec<PairScreen>,
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
    /// The distinct cell coordinates next to `c` along `axis` (including `c`), in `out`;
    /// returns how many.
    #[inline]
    fn neighbours(&self, c: u32, axis: usize, out: &mut [u32; 3]) -> usize {
        let d = self.dims[axis];
        if self.periodic {
            if d <= 3 {
                for (k, slot) in out.iter_mut().enumerate().take(d as usize) {
                    *slot = k as u32;
                }
                return d as usize;
            }
            let below = if c == 0 { d - 1 } else { c - 1 };
            let above = if c + 1 == d { 0 } else { c + 1 };
            *out = [below, c, above];
            return 3;
        }
        let lo = c.saturating_sub(1);
        let hi = (c + 1).min(d - 1);
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
    cell: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    head: Vec<u32>,
    /// Walls near each cell, in compressed rows: `walls[wall_start[c]..wall_start[c + 1]]`.
    wall_start: Vec<u32>,
    walls: Vec<u32>,
    /// Walk the cell lists breadth first and touch candidates before testing them: only worth
    /// it when the bodies do not fit the cache (a performance choice, no effect on any entry).
    touch: bool,
    /// Candidate lists of predictions (reused).
    scratch: [Vec<u32>; 2],
    /// The batch screen's buffers (reused).
    batch: Batch,
    _dim: std::marker::PhantomData<V>,
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
            cell: Vec::new(),
            next: Vec::new(),
            prev: Vec::new(),
            head: Vec::new(),
            wall_start: Vec::new(),
            walls: Vec::new(),
            touch: false,
            scratch: [Vec::new(), Vec::new()],
            batch: Batch::default(),
            _dim: std::marker::PhantomData,
        }
    }

    /// Number of cells in the grid (0 before the first use).
    pub fn cell_count(&self) -> usize {
        if self.ready {
            self.grid.len()
        } else {
            0
        }
    }

    /// Bytes of memory held per body (excluding the world's own bodies).
    pub fn bytes_per_body(&self) -> f64 {
        let n = self.counters.len().max(1) as f64;
        let per_body = 4 * std::mem::size_of::<u32>();
        let other = 4 * (self.head.capacity() + self.wall_start.capacity() + self.walls.capacity());
        self.queue.bytes_per_body()
            + (per_body as f64 * self.counters.capacity() as f64 + other as f64) / n
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
        let v = |x: [f64; 3]| V::try_from_slice(&x[..V::DIM]).expect("dimension");
        let bounds = Aabb::new(v(lo), v(hi));
        let r_max = bodies.iter().map(|b| b.radius).fold(0.0, f64::max);
        // At least one contact distance, plus the round-off of cell boundaries and crossing
        // positions far from the origin.
        let coord_scale = (0..V::DIM).fold(0.0f64, |m, a| {
            m.max(bounds.min.comp(a).abs())
                .max(bounds.max.comp(a).abs())
        });
        let min_width = 2.0 * r_max * (1.0 + CELL_MARGIN) + 64.0 * f64::EPSILON * coord_scale;
        let max_cells = (self.opts.max_cells_per_body * n as f64).max(1.0);
        let (origin, extent): ([f64; 3], [f64; 3]) = match world.period {
            Some(l) => ([0.0; 3], l.to_array3()),
            None => (
                bounds.min.to_array3(),
                (bounds.max - bounds.min).to_array3(),
            ),
        };
        // Cubic target width: at least one contact distance, coarse enough for max_cells.
        let volume: f64 = (0..V::DIM).map(|a| extent[a].max(min_width)).product();
        let mut width = min_width.max((volume / max_cells).powf(1.0 / V::DIM as f64));
        if !(width > 0.0) || !width.is_finite() {
            width = 1.0;
        }
        let mut dims = [1u32; 3];
        let mut widths = [width; 3];
        for a in 0..V::DIM {
            if world.period.is_some() {
                // Whole cells tile the box: widths divide L exactly and stay >= min_width.
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
        };
        let cells = self.grid.len();

        self.head = vec![NONE; cells];
        self.next = vec![NONE; n];
        self.prev = vec![NONE; n];
        self.cell = vec![0; n];
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
        self.counters = vec![0; n];
        let entries = (0..n as u32).map(|i| self.predict(world, i)).collect();
        self.queue = Queue::new(entries);
        self.ready = true;
    }

    #[inline]
    fn link(&mut self, i: u32, c: u32) {
        let h = self.head[c as usize];
        self.next[i as usize] = h;
        self.prev[i as usize] = NONE;
        if h != NONE {
            self.prev[h as usize] = i;
        }
        self.head[c as usize] = i;
        self.cell[i as usize] = c;
    }

    #[inline]
    fn unlink(&mut self, i: u32) {
        let (p, n) = (self.prev[i as usize], self.next[i as usize]);
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            self.head[self.cell[i as usize] as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }

    /// The next cell crossing of body `i`, as an entry.
    #[inline]
    fn crossing(&self, b: &Body<V>, i: u32) -> Entry {
        let c = self.grid.unindex(self.cell[i as usize]);
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
        let mut cand = std::mem::take(&mut self.scratch[0]);
        let mut batch = std::mem::take(&mut self.batch);
        self.gather(i, &mut cand);
        if self.touch {
            touch(world, &cand);
        }
        let e = self.earliest(world, i, &cand, &mut batch);
        self.scratch[0] = cand;
        self.batch = batch;
        e
    }

    /// [`Calendar::predict`] of two bodies; at large N their candidates are gathered and
    /// touched together so that all their cache misses overlap (the entries are those of two
    /// predictions: a prediction reads no entry).
    fn predict_two(&mut self, world: &World<V>, a: u32, b: u32) -> (Entry, Entry) {
        let [mut ca, mut cb] = std::mem::take(&mut self.scratch);
        let mut batch = std::mem::take(&mut self.batch);
        self.gather_two(a, b, &mut ca, &mut cb);
        if self.touch {
            touch(world, &ca);
            touch(world, &cb);
        }
        let ea = self.earliest(world, a, &ca, &mut batch);
        let eb = self.earliest(world, b, &cb, &mut batch);
        self.scratch = [ca, cb];
        self.batch = batch;
        (ea, eb)
    }

    /// The `3^d` cells around body `i`'s cell (distinct), and how many.
    #[inline]
    fn neighbourhood(&self, i: u32) -> ([u32; 27], usize) {
        let c = self.grid.unindex(self.cell[i as usize]);
        let (mut xs, mut ys, mut zs) = ([0u32; 3], [0u32; 3], [0u32; 3]);
        let nx = self.grid.neighbours(c[0], 0, &mut xs);
        let ny = self.grid.neighbours(c[1], 1, &mut ys);
        let nz = if V::DIM == 3 {
            self.grid.neighbours(c[2], 2, &mut zs)
        } else {
            1
        };
        let mut cells = [NONE; 27];
        let mut nc = 0;
        let (dx, dy) = (self.grid.dims[0], self.grid.dims[1]);
        for &z in &zs[..nz] {
            for &y in &ys[..ny] {
                // `Grid::index` of the row, then of each cell in it.
                let row = (z * dy + y) * dx;
                for &x in &xs[..nx] {
                    cells[nc] = row + x;
                    nc += 1;
                }
            }
        }
        (cells, nc)
    }

    /// The bodies in the `3^d` cells around body `i`'s cell, other than `i`, into `out`, walked
    /// as [`ListWalk`] describes.
    fn gather(&self, i: u32, out: &mut Vec<u32>) {
        let mut w = ListWalk::start(self, i);
        while w.live > 0 {
            w.round(&self.next, out);
        }
        out.truncate(w.len);
    }

    /// [`Calendar::gather`] of two bodies, whose walks take their rounds together so that the
    /// loads of both overlap.
    fn gather_two(&self, a: u32, b: u32, out_a: &mut Vec<u32>, out_b: &mut Vec<u32>) {
        let (mut wa, mut wb) = (ListWalk::start(self, a), ListWalk::start(self, b));
        while wa.live + wb.live > 0 {
            wa.round(&self.next, out_a);
            wb.round(&self.next, out_b);
        }
        out_a.truncate(wa.len);
        out_b.truncate(wb.len);
    }

    /// Body `i`'s earliest event among its cell crossing, its box crossing, its contacts with
    /// the bodies `cand` and with the walls of its cell.
    fn earliest(&self, world: &World<V>, i: u32, cand: &[u32], batch: &mut Batch) -> Entry {
        let bi = &world.bodies[i as usize];
        let mut best = self.crossing(bi, i);
        if let Some(e) = world.box_event(i) {
            let e = Entry {
                time: e.time,
                a: i,
                b: e.b,
                kind: EventKind::BoxCrossing as u8,
                partner_counter: 0,
            };
            if e.precedes(&best) {
                best = e;
            }
        }
        match world.period {
            None => self.test_candidates(world, i, cand, &mut best),
            Some(l) => self.test_periodic(world, i, cand, l, batch, &mut best),
        }
        let cell = self.cell[i as usize] as usize;
        let near_walls = if self.wall_start.is_empty() {
            &[][..]
        } else {
            &self.walls[self.wall_start[cell] as usize..self.wall_start[cell + 1] as usize]
        };
        for &w in near_walls {
            if let Some(ev) = world.wall_event(i, w) {
                let e = Entry {
                    time: ev.time,
                    a: i,
                    b: w,
                    kind: EventKind::BallWall as u8,
                    partner_counter: 0,
                };
                if e.precedes(&best) {
                    best = e;
                }
            }
        }
        best
    }

    /// Lowers `best` to body `i`'s earliest contact with the bodies `cand` (no periodic box).
    #[inline]
    fn test_candidates(&self, world: &World<V>, i: u32, cand: &[u32], best: &mut Entry) {
        let bi = &world.bodies[i as usize];
        for &j in cand {
            let toi = crate::toi::ball_ball(bi, &world.bodies[j as usize]);
            self.offer(i, j, toi, best);
        }
    }

    /// Lowers `best` to body `i`'s earliest contact with the bodies `cand` in the periodic box
    /// `l`, screening them in a batch: every pair's [`PairScreen`] first (no branch on the
    /// data), then the pair with the earliest [`PairScreen::key`] is predicted, which usually
    /// brings `best` down to about its final value; the pairs the screen cannot reject by then
    /// are picked out without branching and predicted. Only contacts no later than `best` are
    /// used, and a pair the screen rejects cannot report one by that time, nor by any later,
    /// lower `best`; so the result is that of predicting every pair, in any order.
    fn test_periodic(
        &self,
        world: &World<V>,
        i: u32,
        cand: &[u32],
        l: V,
        batch: &mut Batch,
        best: &mut Entry,
    ) {
        let Batch { screens, keep } = batch;
        let bodies = &world.bodies;
        let bi = &bodies[i as usize];
        screens.clear();
        let (mut first, mut first_key) = (usize::MAX, f64::INFINITY);
        for (k, &j) in cand.iter().enumerate() {
            let bj = &bodies[j as usize];
            // The pair in id order: the prediction is symmetric, this makes it so in bits.
            let (lo, hi) = if i < j { (bi, bj) } else { (bj, bi) };
            let screen = PairScreen::new(lo, hi, l);
            let key = screen.key();
            if key < first_key {
                (first, first_key) = (k, key);
            }
            screens.push(screen);
        }
        // The window of a periodic prediction ends at the earlier box exit (recomputed for the
        // few pairs predicted: the same bits as a cached value, and no cache miss).
        let exit_i = crate::toi::box_exit(bi, l).0;
        // The pair's screen is computed again (the same bits) for its verdict and image.
        let predict = |k: usize, best: &mut Entry| {
            let j = cand[k];
            let bj = &bodies[j as usize];
            let (lo, hi) = if i < j { (bi, bj) } else { (bj, bi) };
            let end = || exit_i.min(crate::toi::box_exit(bj, l).0);
            let toi = match PeriodicScreen::of(lo, hi, l, best.time) {
                PeriodicScreen::Reject => return,
                PeriodicScreen::MinImage(m) => m.contact_until(end()),
                PeriodicScreen::Full => crate::toi::ball_ball_periodic_until(lo, hi, l, end()),
            };
            self.offer(i, j, toi, best);
        };
        if first != usize::MAX {
            predict(first, best);
        }
        keep.clear();
        keep.resize(cand.len(), 0);
        let mut n = 0;
        for (k, screen) in screens.iter().enumerate() {
            keep[n] = k as u32;
            n += (!screen.rejects(best.time) & (k != first)) as usize;
        }
        for &k in &keep[..n] {
            predict(k as usize, best);
        }
    }

    /// Lowers `best` to the contact `toi` of bodies `i` and `j`, if it is one and not later.
    #[inline(always)]
    fn offer(&self, i: u32, j: u32, toi: crate::toi::Toi, best: &mut Entry) {
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
        "calendar"
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
                KIND_CROSSING => {
                    let axis = (e.b / 2) as usize;
                    let mut c = self.grid.unindex(self.cell[owner as usize]);
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
            // The body was wrapped to the opposite face: it changes cell.
            let c = self
                .grid
                .index(self.grid.coords(world.bodies[event.a as usize].pos));
            self.unlink(event.a);
            self.link(event.a, c);
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
