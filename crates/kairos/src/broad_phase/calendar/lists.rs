//! Neighbour lists (`calendar-lists`), in the manner of Smallenburg (2022): each body lists the
//! bodies whose *centres* (their positions when last listed) lie within the cut-off of its own,
//! and is re-listed when it has moved [`Lists::reach`] from its centre; see [`Lists`] for why they
//! only prune.
//!
//! The skin trades re-listings against candidates: a re-listing scans the centres in the cells
//! around the body and updates its neighbours' rows, so it costs several predictions. The default
//! skin ([`super::CalendarOptions::DEFAULT_LIST_SKIN`]) is 0.6 of the largest contact distance;
//! where the cells are much wider than the cut-off (sparse or tiny bodies), the reach grows to
//! what the cells around a centre cover, and where those are all the cells no body is re-listed.
//! Outside a periodic box, centres are clamped into the grid's box ([`Slab`]), so a body that
//! flies far out is listed anew a bounded number of times, not at every reach of its flight.
//! Lists pay where the cells give many candidates (dense 3D gases); in 2D (9 cells) and where
//! bodies fly far between collisions they cost more than they save, which is what
//! `BroadPhaseKind::auto` follows.
//!
//! Layout: every list lives in one flat [`ListStore`] of rows that start on cache lines, so a
//! prediction reaches its candidates with one load that depends on nothing else, and reads them
//! in place; the store is sized from the longest list of a sample of bodies and grows (every row
//! doubling) when a row would overflow. A body's centre and its link in its cell's list share one
//! [`ListNode`], so a re-listing tests each centre in the pass (and cache line) that walks the
//! cells, and keeps the near ones with a straight compaction loop. A re-listing rewrites only the
//! rows of the neighbours that leave or join (most stay: the body has moved a fraction of the
//! cut-off), since at a million bodies each row is a cache miss of its own. The lists cost about
//! 150 bytes a body on top of the cells' mode.

use super::cells::{CellGrid, NextLinks};
use super::entry::{Entry, EntryKind};
use super::Calendar;
use crate::body::Body;
use crate::math::Vector;
use crate::world::World;

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
pub(super) struct Lists<V: Vector> {
    /// The skin as a fraction of the largest contact distance.
    pub(super) skin: f64,
    /// How far a body may move from its centre before it is re-listed (infinite where every
    /// body lists every other).
    pub(super) reach: f64,
    /// The squared cut-off of the centres' distance.
    pub(super) cut2: f64,
    /// Each body's centre (its position when it was last listed) and the next body in its
    /// cell's list: a re-listing reads both of each body in the cells around it, so they share
    /// a cache line (in this mode the calendar's own `next` is unused).
    pub(super) node: Vec<ListNode<V>>,
    /// Each body's neighbours (symmetric: `j` lists `i` when `i` lists `j`), in one store.
    pub(super) of: ListStore,
    /// The box of the cell grid outside a periodic box ([`Slab`]): centres are clamped into it.
    pub(super) slab: Option<Slab>,
    /// Re-listings so far (counted by the tests).
    #[cfg(test)]
    pub(super) relistings: u64,
}

/// The box covered by the cell grid of an open scene (no periodic box): every centre is clamped
/// into it, so a body that flies out of it is listed around the point of the box nearest to it.
///
/// Why that keeps the lists exact: clamping onto a box moves no two points further apart, so
/// bodies whose clamped positions are more than a contact distance apart do not touch, and the
/// lists' argument holds for clamped positions as for the positions themselves. Outside the box
/// a clamped coordinate stands still while the body moves away on that axis: a body that flies
/// out is re-listed a bounded number of times (about the box's size over the reach), not once
/// a reach of its flight. The cells do the same (a position outside the grid falls in an edge
/// cell).
#[derive(Clone, Copy, Debug)]
pub(super) struct Slab {
    pub(super) lo: [f64; 3],
    pub(super) hi: [f64; 3],
}

impl Slab {
    /// The box of `grid`; `None` for a periodic box, whose centres need no clamping.
    pub(super) fn of(grid: &CellGrid) -> Option<Slab> {
        (!grid.periodic).then(|| Slab {
            lo: grid.origin,
            hi: std::array::from_fn(|a| grid.origin[a] + grid.dims[a] as f64 * grid.width[a]),
        })
    }

    /// `p` clamped into the box.
    #[inline]
    pub(super) fn clamp<V: Vector>(&self, p: V) -> V {
        let mut x = p.to_array3();
        for a in 0..V::DIM {
            x[a] = x[a].clamp(self.lo[a], self.hi[a]);
        }
        V::from_array3(x)
    }

    /// Whether the box holds `p`.
    #[inline]
    pub(super) fn holds<V: Vector>(&self, p: V) -> bool {
        (0..V::DIM).all(|a| p.comp(a) >= self.lo[a] && p.comp(a) <= self.hi[a])
    }
}

impl<V: Vector> Lists<V> {
    /// Whether the centre `ci` (of a body) and that of body `j` lie within the cut-off (in the
    /// box `period`, by their minimum image; centres lie in the box, so `|d| <= L` on every
    /// axis).
    #[inline(always)]
    pub(super) fn near_centre(&self, ci: V, j: u32, period: Option<V>) -> bool {
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
    pub(super) fn relisting(&self, b: &Body<V>, acc: V, now: f64, i: u32) -> Entry {
        if self.reach == f64::INFINITY {
            // Every body is listed with every other: none is re-listed.
            return Entry::NOTHING;
        }
        if let Some(slab) = &self.slab {
            // Within the box the body's clamped position is its position: the forms below.
            // (It is within reach of its centre now, so its path's exit root is the one.)
            let p = b.state_at_accel(now, acc).0;
            if !slab.holds(p) {
                return self.relisting_outside(b, acc, now, i, slab);
            }
        }
        if acc != V::ZERO {
            return self.relisting_accel(b, acc, now, i);
        }
        let (mut d, mut v, mut reach) = (b.pos - self.node[i as usize].centre, b.vel, self.reach);
        if !(reach > 1e-60 && reach < 1e60) {
            // Squares of lengths far from 1 under- or overflow (bodies of 1e-86 were never
            // re-listed and missed their contact); every length and speed times one power of
            // two leaves the time unchanged.
            let s = crate::math::power_of_two(-reach.log2().round());
            (d, v, reach) = (d * s, v * s, reach * s);
        }
        let a = v.dot(v);
        if !(a > 0.0) {
            return Entry::NOTHING;
        }
        let bb = d.dot(v);
        let cc = d.dot(d) - reach * reach;
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
            b: 0,
            kind: EntryKind::Relisting,
            partner_counter: 0,
        }
    }

    /// [`Lists::relisting`] of a body outside the grid's box `slab` at `now`: a time no later
    /// than the one at which its clamped position can be `reach` from its centre. On an axis on
    /// which the body is at least `reach` outside the box, its clamped coordinate stands still
    /// until it comes back to the box, which takes at least the time it needs to close that
    /// gap at its speed and acceleration towards the box (if any); the other axes move it at
    /// most as fast as the body. So a body that flies out is listed anew a few times and then
    /// not at all while it flies on, and one coming back is listed anew as it reaches the box.
    fn relisting_outside(&self, b: &Body<V>, acc: V, now: f64, i: u32, slab: &Slab) -> Entry {
        let (p, v) = b.state_at_accel(now, acc);
        let (p, v, acc) = (p.to_array3(), v.to_array3(), acc.to_array3());
        let c = self.node[i as usize].centre.to_array3();
        // Lengths far from 1 in units of the reach, times one power of two (times unchanged).
        let s = if self.reach > 1e-60 && self.reach < 1e60 {
            1.0
        } else {
            crate::math::power_of_two(-self.reach.log2().round())
        };
        let reach = self.reach * s;
        let (mut dist, mut speed, mut accel) = ([0.0; 3], [0.0; 3], [0.0; 3]);
        let mut thaw = f64::INFINITY;
        for a in 0..V::DIM {
            let x = p[a];
            dist[a] = (x.clamp(slab.lo[a], slab.hi[a]) - c[a]) * s;
            // The gap to the box, and the velocity and acceleration towards it.
            let (gap, towards, pull) = if x > slab.hi[a] {
                ((x - slab.hi[a]) * s, -v[a] * s, -acc[a] * s)
            } else if x < slab.lo[a] {
                ((slab.lo[a] - x) * s, v[a] * s, acc[a] * s)
            } else {
                (0.0, 0.0, 0.0)
            };
            if gap >= reach {
                // The clamped coordinate stands still until the gap is closed: at the earliest
                // after `gap = w t + al t^2 / 2`.
                let (w, al) = (towards.max(0.0), pull.max(0.0));
                if w > 0.0 || al > 0.0 {
                    let t = 2.0 * gap / (w + (w * w + 2.0 * al * gap).sqrt());
                    thaw = thaw.min(if t >= 0.0 { t * (1.0 - 1e-9) } else { 0.0 });
                }
            } else {
                (speed[a], accel[a]) = (v[a] * s, acc[a] * s);
            }
        }
        let room = reach - norm(&dist);
        let (speed, accel) = (norm(&speed), norm(&accel));
        let moving = if !(room > 0.0) {
            0.0
        } else if speed == 0.0 && accel == 0.0 {
            f64::INFINITY
        } else {
            // The clamped position moves at most `speed t + accel t^2 / 2` from where it is.
            2.0 * room / (speed + (speed * speed + 2.0 * accel * room).sqrt())
        };
        let dt = moving.min(thaw);
        if dt == f64::INFINITY {
            return Entry::NOTHING;
        }
        Entry {
            time: now + if dt >= 0.0 { dt } else { 0.0 },
            a: i,
            b: 0,
            kind: EntryKind::Relisting,
            partner_counter: 0,
        }
    }

    /// [`Lists::relisting`] under the constant acceleration `acc`: a time no later than the one
    /// at which the body, from its position at `now`, can be `reach` from its centre (its
    /// distance grows at most by `|v| s + |a| s² / 2`). Early re-listing only costs work.
    fn relisting_accel(&self, b: &Body<V>, acc: V, now: f64, i: u32) -> Entry {
        let (p, v) = b.state_at_accel(now, acc);
        let room = self.reach - (p - self.node[i as usize].centre).length();
        let (speed, a) = (v.length(), acc.length());
        let s = if room > 0.0 {
            2.0 * room / (speed + (speed * speed + 2.0 * a * room).sqrt())
        } else {
            0.0
        };
        Entry {
            time: now + if s.is_finite() { s } else { 0.0 },
            a: i,
            b: 0,
            kind: EntryKind::Relisting,
            partner_counter: 0,
        }
    }
}

/// The Euclidean length of `x`, without over- or underflow in its squares.
fn norm(x: &[f64; 3]) -> f64 {
    let m = x.iter().fold(0.0f64, |m, &c| m.max(c.abs()));
    if !(m > 0.0) || m == f64::INFINITY {
        return m;
    }
    m * x.iter().map(|&c| (c / m) * (c / m)).sum::<f64>().sqrt()
}

/// A body's centre and the next body in the list of its centre's cell.
#[derive(Clone, Copy, Debug)]
pub(super) struct ListNode<V: Vector> {
    pub(super) centre: V,
    pub(super) next: u32,
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

/// Every body's neighbour list in one flat store: body `i`'s row is `stride` slots from
/// `start + i * stride`, its length first and its neighbours after it. A prediction reaches a
/// body's list with one load that depends on nothing else (a vector of vectors needs two: the
/// header, then the list), and rows start on cache lines, so a list of up to 15 neighbours is
/// one line. A row that would overflow makes the whole store grow (rare: the stride starts
/// with room over the longest list of a sample). Alignment is only a matter of speed (a clone
/// keeps the offsets of its original).
#[derive(Clone, Debug, Default)]
pub(super) struct ListStore {
    pub(super) slots: Vec<u32>,
    /// Slots per row, a multiple of 16 (one 64-byte line).
    pub(super) stride: usize,
    /// Index of row 0's first slot (the first slot on a cache line).
    pub(super) start: usize,
    pub(super) rows: usize,
}

impl ListStore {
    /// Slots in a cache line.
    const LINE: usize = 16;

    /// `rows` empty rows with room for `longest` neighbours each and some more.
    pub(super) fn new(rows: usize, longest: usize) -> Self {
        let mut store = ListStore::default();
        store.reshape(rows, longest + longest / 2 + 4);
        store
    }

    /// Rows of at least `room` neighbours each, the old rows' contents copied over (new rows
    /// are empty).
    pub(super) fn reshape(&mut self, rows: usize, room: usize) {
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
    pub(super) fn at(&self, i: u32) -> usize {
        self.start + i as usize * self.stride
    }

    /// The first slot of body `i`'s row (its length), without reading it.
    #[inline]
    pub(super) fn first_slot(&self, i: u32) -> &u32 {
        &self.slots[self.at(i)]
    }

    /// Row `i`: its length, then its neighbours.
    #[inline(always)]
    pub(super) fn row(&self, i: u32) -> &[u32] {
        let at = self.at(i);
        let n = self.slots[at] as usize;
        &self.slots[at..at + 1 + n]
    }

    /// Body `i`'s neighbours.
    #[inline(always)]
    pub(super) fn get(&self, i: u32) -> &[u32] {
        &self.row(i)[1..]
    }

    /// Adds `j` to body `i`'s neighbours.
    #[inline]
    pub(super) fn push(&mut self, i: u32, j: u32) {
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
    pub(super) fn remove(&mut self, i: u32, j: u32) {
        let at = self.at(i);
        let n = self.slots[at] as usize;
        let row = &mut self.slots[at + 1..at + 1 + n];
        if let Some(k) = row.iter().position(|&x| x == j) {
            row[k] = row[n - 1];
            self.slots[at] = n as u32 - 1;
        }
    }

    /// Makes `list` body `i`'s neighbours.
    pub(super) fn set(&mut self, i: u32, list: &[u32]) {
        if list.len() + 1 > self.stride {
            self.reshape(self.rows, 2 * list.len());
        }
        let at = self.at(i);
        self.slots[at] = list.len() as u32;
        self.slots[at + 1..at + 1 + list.len()].copy_from_slice(list);
    }
}

impl<V: Vector> Calendar<V> {
    /// Builds the neighbour lists (the lists mode only) once the bodies are linked into the
    /// cells of their centres: `reach` is how far a body may move before it is re-listed, `cut`
    /// the cut-off of the centres' distance.
    pub(super) fn build_lists(&mut self, world: &World<V>, reach: f64, cut: f64) {
        let n = world.bodies.len();
        if let Some(mut lists) = self.lists.take() {
            lists.reach = reach;
            lists.cut2 = cut * cut;

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
    }

    /// Re-lists body `i` at time `t` (neighbour lists only): its centre moves to its position
    /// then, its cell follows, and its list is built again from the centres in the
    /// neighbouring cells (the neighbours' lists are updated to match).
    pub(super) fn relist(&mut self, world: &World<V>, i: u32, t: f64) {
        let Some(mut lists) = self.lists.take() else {
            return;
        };
        let [mut old, mut new] = std::mem::take(&mut self.scratch);
        old.clear();
        old.extend_from_slice(lists.of.get(i));
        let c = world.body_state_at(i as usize, t).0;
        let c = lists.slab.map_or(c, |slab| slab.clamp(c));
        #[cfg(test)]
        {
            lists.relistings += 1;
        }
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
    pub(super) fn gather_listed(
        &self,
        lists: &Lists<V>,
        i: u32,
        period: Option<V>,
        out: &mut Vec<u32>,
    ) {
        let ci = lists.node[i as usize].centre;
        self.walk::<125>(
            i,
            Some((ci, lists.cut2)),
            &lists.node[..],
            |j| lists.near_centre(ci, j, period),
            out,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::CalendarOptions;
    use super::*;
    use crate::broad_phase::BroadPhase;
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

    /// Bodies of any size are re-listed in time: two balls of radius `s / 100` a distance `s`
    /// apart, one closing at `s` per unit time, meet at t = 0.98 with lists as with every other
    /// broad phase (below about 1e-80 the squares of the re-listing's lengths underflowed and
    /// the contact was missed).
    #[test]
    fn tiny_and_huge_bodies_are_listed_in_time() {
        use glam::DVec2;
        for s in [1.0, 1e-81, 1e-90, 1e-98, 1e80, 1e98] {
            let bodies = vec![
                Body::new(DVec2::ZERO, DVec2::new(s, 0.0), s / 100.0, 1.0),
                Body::new(DVec2::new(s, 0.0), DVec2::ZERO, s / 100.0, 1.0),
            ];
            let world = World::builder(bodies, Vec::new()).build().unwrap();
            let mut cal = Calendar::<DVec2>::new(CalendarOptions {
                list_skin: Some(CalendarOptions::DEFAULT_LIST_SKIN),
                ..Default::default()
            });
            let e = cal.next_event(&world, 0.0, 2.0).expect("the pair meets");
            assert_eq!((e.a, e.b), (0, 1), "scale {s}");
            assert!((e.time - 0.98).abs() < 1e-12, "scale {s}: {}", e.time);
        }
    }

    /// A body that flies far out of an open scene is listed anew a bounded number of times,
    /// not once a reach of its flight (it was re-listed some 10^5 times a unit of time here,
    /// without end): a lattice of resting balls and one leaving it at 10^4, alone, then with a
    /// second that it catches up with far out, and one thrown up and pulled back by gravity.
    #[test]
    fn a_body_that_flies_out_is_listed_anew_a_bounded_number_of_times() {
        let ball = |p: [f64; 3], v: [f64; 3]| Body::new(DVec3::from(p), DVec3::from(v), 0.4, 1.0);
        let lattice = || {
            let mut bodies = Vec::new();
            for k in 0..1000 {
                let p = [(k % 10) as f64, (k / 10 % 10) as f64, (k / 100) as f64];
                bodies.push(ball(p, [0.0; 3]));
            }
            bodies
        };
        let lists_of = |cal: &Calendar<DVec3>| cal.lists.as_ref().unwrap().relistings;
        let new = || {
            Calendar::<DVec3>::new(CalendarOptions {
                list_skin: Some(CalendarOptions::DEFAULT_LIST_SKIN),
                ..Default::default()
            })
        };
        // Alone: no event, at any horizon.
        let mut bodies = lattice();
        bodies.push(ball([-3.0, 0.5, 0.5], [-1e4, 0.3, 0.2]));
        let world = World::builder(bodies, Vec::new()).build().unwrap();
        let mut cal = new();
        assert!(cal.next_event(&world, 0.0, 10.0).is_none());
        let after_ten = lists_of(&cal);
        assert!(after_ten <= 20, "{after_ten} re-listings by t = 10");
        // Then while it drifts out of the box's other axes (at 0.3 and 0.2), and no more.
        assert!(cal.next_event(&world, 0.0, 1e300).is_none());
        assert!(lists_of(&cal) <= 100, "{} re-listings", lists_of(&cal));
        // Two flying out, the second catching up with the first at t = 11.2, x = -1.1e5.
        let mut bodies = lattice();
        bodies.push(ball([-3.0, 20.0, 0.5], [-1e4, 0.0, 0.0]));
        bodies.push(ball([9.0, 20.0, 0.5], [-1e4 - 1.0, 0.0, 0.0]));
        let world = World::builder(bodies, Vec::new()).build().unwrap();
        let mut cal = new();
        let e = cal.next_event(&world, 0.0, 1e300).expect("they meet");
        assert_eq!((e.a, e.b), (1000, 1001));
        assert!((e.time - 11.2).abs() < 1e-6, "{}", e.time);
        assert!(lists_of(&cal) <= 40, "{} re-listings", lists_of(&cal));
        // Under gravity every body falls out of the box, and one thrown up at 10^3 out of its
        // top falls back through it some 200 later: each is listed anew while it crosses the
        // box (about 20 times), not on and on as it falls.
        let mut bodies: Vec<_> = (0..125)
            .map(|k| {
                ball(
                    [(k % 5) as f64, (k / 5 % 5) as f64, (k / 25) as f64],
                    [0.0; 3],
                )
            })
            .collect();
        bodies.push(ball([2.5, 2.5, 5.0], [0.0, 0.0, 1e3]));
        let world = World::builder(bodies, Vec::new())
            .gravity(DVec3::new(0.0, 0.0, -10.0), 0.0)
            .build()
            .unwrap();
        let mut cal = new();
        assert!(cal.next_event(&world, 0.0, 100.0).is_none());
        assert!(lists_of(&cal) <= 126 * 40, "{} re-listings", lists_of(&cal));
        assert!(cal.next_event(&world, 0.0, 1e300).is_none());
        assert!(lists_of(&cal) <= 126 * 40, "{} re-listings", lists_of(&cal));
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
        let (l, bodies) = gas_bodies::<DVec3>(&p).unwrap();
        let mut world = World::builder(bodies, Vec::new())
            .period(l)
            .build()
            .unwrap();
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
