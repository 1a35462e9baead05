//! The cell grid ([`CellGrid`]): cells at least a contact distance wide, each with a doubly linked
//! list of the bodies whose centres it holds ([`Cells`]); the walk that gathers a body's
//! candidates from the cells around it ([`ListWalk`]); and cell crossings, the calendar's
//! bookkeeping events without neighbour lists.
//!
//! Gathering is laid out for memory, not instructions: the cell lists around a body are walked
//! breadth first, one load per list and round, all independent of each other, and the lists still
//! going are compacted without branching on a loaded value; the two bodies of a collision take
//! their rounds together so that the loads of both overlap. The cells around a cell are found
//! without integer divisions. With neighbour lists, cells are half as wide as the cut-off and the
//! `5^d` around a centre cover it; the cells whose boxes lie beyond the cut-off from the centre are
//! skipped (padded for round-off; in 3D about 77 of the 125 are walked), except on a periodic axis
//! of five cells or fewer, which lists all its cells in their own order. Wall rows are built by
//! counting, and not at all without walls.

use super::entry::{Entry, EntryKind};
use super::{Calendar, NONE};
use crate::body::Body;
use crate::math::{Aabb, Vector};
use crate::wall::Wall;
use crate::world::World;

/// Relative margin of the cell width over the largest contact distance.
const CELL_MARGIN: f64 = 1e-9;

/// The `next` links of the cells' lists: the calendar's own array, or with neighbour lists the
/// bodies' [`ListNode`](super::lists::ListNode)s.
pub(super) trait NextLinks {
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

/// The cells' doubly linked lists of bodies: heads, and each body's cell and previous body (its
/// next is in a [`NextLinks`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Cells {
    pub(super) head: Vec<u32>,
    pub(super) prev: Vec<u32>,
    pub(super) cell: Vec<u32>,
}

impl Cells {
    #[inline]
    pub(super) fn link(&mut self, next: &mut (impl NextLinks + ?Sized), i: u32, c: u32) {
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
    pub(super) fn unlink(&mut self, next: &mut (impl NextLinks + ?Sized), i: u32) {
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

/// A breadth-first walk of the cell lists around a body: one load per list and round, all
/// independent of each other. The lists still going are kept without branching on a loaded
/// value, so only the end of the walk is a branch.
pub(super) struct ListWalk<const K: usize> {
    /// The current body of each list still going.
    pub(super) cur: [u32; K],
    pub(super) live: usize,
    /// Bodies written so far.
    pub(super) len: usize,
    /// The walk's own body, left out.
    pub(super) skip: u32,
}

impl<const K: usize> ListWalk<K> {
    #[inline(always)]
    pub(super) fn start<V: Vector>(cal: &Calendar<V>, i: u32, near: Option<(V, f64)>) -> Self {
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
    pub(super) fn round(
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

/// The uniform grid.
#[derive(Clone, Debug, Default)]
pub(super) struct CellGrid {
    pub(super) origin: [f64; 3],
    /// Cell width per axis.
    pub(super) width: [f64; 3],
    pub(super) dims: [u32; 3],
    /// Neighbouring cells wrap around (periodic box).
    pub(super) periodic: bool,
    /// Cells on each side of a cell in its neighbourhood: 1, or 2 for neighbour lists (whose
    /// cells are half as wide as the cut-off).
    pub(super) span: u32,
}

impl CellGrid {
    #[inline]
    pub(super) fn coord(&self, x: f64, axis: usize) -> u32 {
        let c = ((x - self.origin[axis]) / self.width[axis]).floor();
        // NaN cannot occur (validated states); clamping keeps outside positions in edge cells.
        c.clamp(0.0, (self.dims[axis] - 1) as f64) as u32
    }
    #[inline]
    pub(super) fn coords<V: Vector>(&self, p: V) -> [u32; 3] {
        let mut c = [0u32; 3];
        for (axis, slot) in c.iter_mut().enumerate().take(V::DIM) {
            *slot = self.coord(p.comp(axis), axis);
        }
        c
    }
    #[inline]
    pub(super) fn index(&self, c: [u32; 3]) -> u32 {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }
    #[inline]
    pub(super) fn unindex(&self, i: u32) -> [u32; 3] {
        let x = i % self.dims[0];
        let yz = i / self.dims[0];
        [x, yz % self.dims[1], yz / self.dims[1]]
    }
    pub(super) fn len(&self) -> usize {
        self.dims.iter().map(|&d| d as usize).product()
    }
    /// The distinct cell coordinates within [`CellGrid::span`] of `c` along `axis` (including `c`),
    /// in `out`; returns how many.
    #[inline]
    pub(super) fn neighbours(&self, c: u32, axis: usize, out: &mut [u32; 5]) -> usize {
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

/// A grid fitted to a world by [`CellGrid::fit`].
pub(super) struct GridFit {
    pub grid: CellGrid,
    /// The round-off of cell boundaries and crossing positions far from the origin, added to
    /// every contact distance with the relative [`CELL_MARGIN`].
    round_off: f64,
    /// The largest contact distance whose padded distance a neighbourhood still covers: more
    /// than the fitted contact distance where `max_cells` made the cells wider, infinite where
    /// a neighbourhood holds every cell.
    pub widest: f64,
}

impl GridFit {
    /// The width a neighbourhood must cover for contacts up to `contact` apart: `contact` with
    /// its margin and the grid's round-off.
    pub fn padded(&self, contact: f64) -> f64 {
        contact * (1.0 + CELL_MARGIN) + self.round_off
    }
}

impl CellGrid {
    /// The grid for `world`: cells at least `contact` wide (the largest contact distance, or the
    /// neighbour lists' cut-off) plus a relative [`CELL_MARGIN`] and the round-off of
    /// coordinates far from the origin, `span` cells on each side of a cell in its
    /// neighbourhood, and about `max_cells` cells at most. With a periodic box, whole cells
    /// tile it; otherwise the grid covers the bodies and the finite extents of the walls.
    /// Returns the grid with the padding of its contact distances and the largest contact
    /// distance its neighbourhoods cover (see [`GridFit`]).
    pub(super) fn fit<V: Vector>(
        world: &World<V>,
        contact: f64,
        span: u32,
        max_cells: f64,
    ) -> GridFit {
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
        // At least one contact distance, plus the round-off of cell boundaries and crossing
        // positions far from the origin.
        let coord_scale = (0..V::DIM).fold(0.0f64, |m, a| {
            m.max(bounds.min.comp(a).abs())
                .max(bounds.max.comp(a).abs())
        });
        let round_off = 64.0 * f64::EPSILON * coord_scale;
        let min_width = contact * (1.0 + CELL_MARGIN) + round_off;
        // With lists, cells half as wide as the cut-off, and two on each side: the `5^d` cells
        // cover the cut-off as the `3^d` would, with about half their volume, and a re-listing
        // walks only those whose boxes come within the cut-off of the centre. (A wall is still
        // registered in every cell within one cell width, at least the reach plus a radius.)
        let cell_width = min_width / span as f64;
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
        let grid = CellGrid {
            origin,
            width: widths,
            dims,
            periodic: world.period.is_some(),
            span,
        };
        // The neighbourhood of a cell covers `span` cell widths on each side; on an axis of at
        // most `span + 1` cells, it covers them all (positions outside clamp to the edge
        // cells), so that axis sets no bound.
        let narrowest = (0..V::DIM)
            .filter(|&a| dims[a] > span + 1)
            .fold(f64::INFINITY, |m, a| m.min(widths[a]));
        let widest = if narrowest.is_finite() {
            ((span as f64 * narrowest - round_off) / (1.0 + CELL_MARGIN)) * (1.0 - 1e-12)
        } else {
            f64::INFINITY
        };
        GridFit {
            grid,
            round_off,
            widest: widest.max(contact),
        }
    }

    /// Every cell whose box lies within one cell width of each wall's box (every cell, with
    /// `everywhere`: neighbour lists whose bodies are never re-listed, so may fly any distance
    /// from the cell of their centre), in compressed rows: the walls near cell `c` are
    /// `walls[start[c]..start[c + 1]]`. Built by counting (no allocation per cell); no walls,
    /// no rows.
    pub(super) fn wall_rows<V: Vector>(
        &self,
        world: &World<V>,
        everywhere: bool,
    ) -> (Vec<u32>, Vec<u32>) {
        if world.walls.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let cells = self.len();
        let reach = if everywhere {
            f64::INFINITY
        } else {
            self.width
                .iter()
                .take(V::DIM)
                .fold(0.0f64, |m, &w| m.max(w))
        };
        let cells_of = |wall: &Wall<V>| {
            let bx = wall.aabb().expanded(reach * (1.0 + CELL_MARGIN));
            let (lo, hi) = (self.coords(bx.min), self.coords(bx.max));
            (lo[2]..=hi[2]).flat_map(move |z| {
                (lo[1]..=hi[1])
                    .flat_map(move |y| (lo[0]..=hi[0]).map(move |x| self.index([x, y, z])))
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
        (start, walls)
    }
}

impl<V: Vector> Calendar<V> {
    /// Links body `i` into cell `c` (a re-listing, which holds the lists out, links itself).
    #[inline]
    pub(super) fn link(&mut self, i: u32, c: u32) {
        match &mut self.lists {
            Some(lists) => self.cells.link(&mut lists.node[..], i, c),
            None => self.cells.link(&mut self.next[..], i, c),
        }
    }

    #[inline]
    pub(super) fn unlink(&mut self, i: u32) {
        match &mut self.lists {
            Some(lists) => self.cells.unlink(&mut lists.node[..], i),
            None => self.cells.unlink(&mut self.next[..], i),
        }
    }

    /// The next cell crossing of body `i`, as an entry.
    #[inline]
    pub(super) fn crossing(&self, b: &Body<V>, acc: V, now: f64, i: u32) -> Entry {
        if acc != V::ZERO {
            return self.crossing_accel(b, acc, now, i);
        }
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
                    kind: EntryKind::CellCrossing,
                    partner_counter: 0,
                };
            }
        }
        best
    }

    /// [`Cells::crossing`] along a parabola (constant acceleration `acc`): per axis, the time the
    /// body crosses its cell's upper face going up or its lower face going down, whichever
    /// comes first after `now` (each face is crossed at most once in each direction).
    fn crossing_accel(&self, b: &Body<V>, acc: V, now: f64, i: u32) -> Entry {
        let c = self.grid.unindex(self.cells.cell[i as usize]);
        let mut best = Entry::NOTHING;
        let after = now - b.time;
        for axis in 0..V::DIM {
            let (x0, v, a) = (b.pos.comp(axis), b.vel.comp(axis), acc.comp(axis));
            let lo = self.grid.origin[axis] + c[axis] as f64 * self.grid.width[axis];
            let hi = self.grid.origin[axis] + (c[axis] + 1) as f64 * self.grid.width[axis];
            let mut faces = [None, None];
            if c[axis] + 1 < self.grid.dims[axis] {
                faces[1] = crossing_time(x0 - hi, v, a, 1.0, after);
            }
            if c[axis] > 0 {
                faces[0] = crossing_time(x0 - lo, v, a, -1.0, after);
            }
            for (up, s) in faces.into_iter().enumerate() {
                let Some(s) = s else { continue };
                let t = b.time + s;
                if t < best.time {
                    best = Entry {
                        time: t,
                        a: i,
                        b: 2 * axis as u32 + up as u32,
                        kind: EntryKind::CellCrossing,
                        partner_counter: 0,
                    };
                }
            }
        }
        best
    }

    /// The cells around body `i`'s cell (distinct; `3^d`, or `5^d` with lists), and how many;
    /// `K` must hold them. With `near = (p, r2)`, only the cells whose boxes may hold a point
    /// within `sqrt(r2)` of `p` (a point of `i`'s cell), padded for round-off.
    #[inline]
    pub(super) fn neighbourhood<const K: usize>(
        &self,
        i: u32,
        near: Option<(V, f64)>,
    ) -> ([u32; K], usize) {
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
                // `CellGrid::index` of the row, then of each cell in it.
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
    pub(super) fn gather(&self, i: u32, out: &mut Vec<u32>) {
        self.walk::<27>(i, None, &self.next[..], |_| true, out);
    }

    /// The bodies of the cells around body `i`'s cell, other than `i`, that `keep` accepts,
    /// into `out`: the [`ListWalk`] along the links `next`.
    #[inline(always)]
    pub(super) fn walk<const K: usize>(
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
    pub(super) fn gather_two(&self, a: u32, b: u32, out_a: &mut Vec<u32>, out_b: &mut Vec<u32>) {
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
}

/// The time `s >= after` at which `y(s) = y0 + v s + a s² / 2` (`a != 0`) crosses zero in
/// the direction `dir` (`+1` upwards, `-1` downwards), if it does: of the quadratic's two roots
/// (stable forms), the one where `v + a s` has the sign of `dir`. A root within round-off
/// before `after` counts as at `after`.
fn crossing_time(y0: f64, v: f64, a: f64, dir: f64, after: f64) -> Option<f64> {
    let disc = v * v - 2.0 * a * y0;
    if !(disc >= 0.0) {
        return None;
    }
    let root = disc.sqrt();
    let q = -(v + if v >= 0.0 { root } else { -root });
    // Roots of (a/2) s² + v s + y0: q / a and 2 y0 / q.
    let candidates = [q / a, if q != 0.0 { 2.0 * y0 / q } else { q / a }];
    let mut best: Option<f64> = None;
    for s in candidates {
        if !s.is_finite() {
            continue;
        }
        let slope = v + a * s;
        if slope * dir > 0.0 || (slope == 0.0 && a * dir > 0.0) {
            let tol = 1e-12 * (s.abs() + after.abs());
            if s >= after - tol && best.is_none_or(|b| s < b) {
                best = Some(s.max(after));
            }
        }
    }
    best
}
