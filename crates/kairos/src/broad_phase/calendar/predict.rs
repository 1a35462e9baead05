//! Prediction: a body's earliest entry among its candidates (through the narrow phase's entry,
//! [`crate::ball_toi`]), the walls of its cell, its box crossing and its own bookkeeping event.
//!
//! # Screening periodic pairs
//! In a periodic box about 90% of a prediction's candidates cannot report a contact before the
//! body's earliest event found so far. The narrow phase's bounded query
//! ([`crate::ball_toi::ball_ball_periodic_by`]) rejects such a pair without solving, by a proof on the
//! very numbers the solver would compute ([`crate::ball_toi::ball_ball_periodic_cannot_hit_by`]), and
//! decides a pair whose other images are proved out of reach by its minimum image alone
//! ([`crate::ball_toi::PeriodicScreen`]), with the same bits as the full prediction.
//!
//! Before that, the candidates are screened in a batch without a branch on each outcome
//! ([`Calendar::test_periodic`]): every pair's [`PairScreen`] (the screen's numbers that do not
//! depend on the time limit, the same bits in either order of the pair, so the body's own state
//! stays in registers) is computed in one loop; the pair with the earliest heuristic key is
//! predicted first, which brings the body's best time to about its final value; then one
//! comparison of each key against the batch's bound ([`ScreenBatch`], proved never to drop a pair
//! the screen keeps) picks out the pairs still to predict. A pair rejected for some best time
//! cannot report a contact by it, nor by any later, lower one, so the entry is that of predicting
//! every pair. Box exit times are recomputed rather than cached (the same bits, one miss fewer).
//!
//! Kairos wraps a body when it leaves the box (a box-crossing event) and defines a pair's contact
//! time from the two stored states alone, over every image up to the pair's next box exit; so a
//! candidate pays for the screen that proves which image decides, and for its rounding margins
//! (about 195 instructions against about 60 in a code whose contact times depend on the current
//! time). Matching that cost would take a representation in which a pair's image is fixed
//! between two bookkeeping events of its bodies (bodies wrapped only at a re-listing), which would
//! change what a periodic event log contains.

use super::entry::{Entry, EntryKind};
use super::prefetch::touch;
use super::Calendar;
use crate::ball_toi::{ball_ball, ball_ball_periodic_by, box_exit, PairScreen, ScreenBatch, Toi};
use crate::math::Vector;
use crate::world::World;

/// Buffers of the batch screen of a periodic prediction: the candidates' keys, and the
/// survivors' places among them.
#[derive(Clone, Debug, Default)]
pub(super) struct Batch {
    pub(super) keys: Vec<f64>,
    pub(super) keep: Vec<u32>,
}

impl<V: Vector> Calendar<V> {
    /// Body `i`'s earliest pending event: contacts in the neighbouring cells and with the walls
    /// of its cell, and its next cell crossing.
    pub(super) fn predict(&mut self, world: &World<V>, i: u32) -> Entry {
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
    pub(super) fn predict_two(&mut self, world: &World<V>, a: u32, b: u32) -> (Entry, Entry) {
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
    pub(super) fn candidates<'a>(&'a self, i: u32, scratch: &'a mut Vec<u32>) -> &'a [u32] {
        match &self.lists {
            Some(lists) => lists.of.get(i),
            None => {
                self.gather(i, scratch);
                scratch
            }
        }
    }

    /// Body `i`'s earliest event among its own (its re-listing with neighbour lists, its cell
    /// crossing without), its box crossing, its contacts with the bodies `cand` and with the
    /// walls of its cell.
    pub(super) fn earliest(
        &self,
        world: &World<V>,
        i: u32,
        cand: &[u32],
        batch: &mut Batch,
    ) -> Entry {
        let bi = &world.bodies[i as usize];
        let mut best = match &self.lists {
            Some(lists) => lists.relisting(bi, world.accel(i as usize), self.clock, i),
            None => self.crossing(bi, world.accel(i as usize), self.clock, i),
        };
        match world.period {
            None => self.test_candidates(world, i, cand, &mut best),
            Some(l) => {
                // The box crossing, whose time also ends the window of every periodic
                // prediction of this body.
                let exit = world.box_event(i);
                if let Some(e) = exit {
                    best.lower_to(e.time, i, e.b, EntryKind::BoxCrossing);
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
            if let Some(ev) = world.wall_event_by(i, w, best.time) {
                best.lower_to(ev.time, i, w, EntryKind::BodyWall);
            }
        }
        best
    }

    /// Lowers `best` to body `i`'s earliest contact with the bodies `cand` (no periodic box).
    #[inline]
    pub(super) fn test_candidates(&self, world: &World<V>, i: u32, cand: &[u32], best: &mut Entry) {
        if !world.rigid.is_empty() || world.gravity != V::ZERO {
            for &j in cand {
                self.offer(i, j, world.predict_pair_by(i, j, best.time), best);
            }
            return;
        }
        let bi = &world.bodies[i as usize];
        for &j in cand {
            let toi = ball_ball(bi, &world.bodies[j as usize]);
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
    /// `i`'s box exit time ([`crate::ball_toi::box_exit`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn test_periodic(
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
            let toi = ball_ball_periodic_by(lo, hi, l, best.time, end);
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
    pub(super) fn offer(&self, i: u32, j: u32, toi: Toi, best: &mut Entry) {
        if toi.is_hit() && toi.time <= best.time {
            let e = Entry {
                time: toi.time,
                a: i.min(j),
                b: i.max(j),
                kind: EntryKind::BodyBody,
                partner_counter: self.counters[j as usize],
            };
            if e.precedes(best) {
                *best = e;
            }
        }
    }

    pub(super) fn repredict(&mut self, world: &World<V>, i: u32) {
        let e = self.predict(world, i);
        self.queue.set(i, e);
    }
}
