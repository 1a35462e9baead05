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
//! The first loop runs four pairs at a time where the processor has AVX2
//! (`kairos_hint::screen::screen_keys`, runtime-detected; the library keeps its `unsafe` in that
//! crate): each lane does the scalar [`PairScreen::new`], [`PairScreen::key`] and
//! [`ScreenBatch::add`]'s IEEE operations in the same order, without fused multiply-adds, so
//! every key and the batch's bound are the same bits as the scalar loop's (a test compares them
//! on random states, 2D and 3D) and the screen's proofs hold unchanged. Elsewhere, and in 2D
//! (whose few candidates of two axes cost less one at a time), the scalar loop runs. (3D gas,
//! N = 32,000, packing 0.45, `calendar-lists`: 13,865 -> 12,719 instructions an event.)
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
use crate::body::Body;
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
        // Four pairs at a time where the processor can (the same bits: `kairos_hint::screen`);
        // else, and in 2D (whose few candidates of two axes cost less one at a time: 6,435
        // instructions an event scalar, 6,877 four at a time, discs at packing 0.7), one at a
        // time.
        let simd = V::DIM == 3 && simd_pass(bi, bodies, cand, l, keys, &mut bound);
        if simd {
            for (k, &key) in keys.iter().enumerate() {
                if key < first_key {
                    (first, first_key) = (k, key);
                }
            }
        } else {
            for (k, (&j, slot)) in cand.iter().zip(keys.iter_mut()).enumerate() {
                // The screen's numbers do not depend on the pair's order (see `PairScreen`),
                // so body `i`'s state stays in registers.
                let screen = PairScreen::new(bi, &bodies[j as usize], l);
                let key = screen.key();
                if key < first_key {
                    (first, first_key) = (k, key);
                }
                bound.add(&screen);
                *slot = key;
            }
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

/// The first pass of [`Calendar::test_periodic`] by `kairos_hint::screen::screen_keys`: every
/// candidate's [`PairScreen::key`] into `keys` and the batch's extremes into `bound`, the same
/// bits as the scalar pass. False (and nothing done) where the kernel does not run.
fn simd_pass<V: Vector>(
    bi: &Body<V>,
    bodies: &[Body<V>],
    cand: &[u32],
    l: V,
    keys: &mut [f64],
    bound: &mut ScreenBatch,
) -> bool {
    use kairos_hint::screen::{screen_keys, Anchor};
    let state = |b: &Body<V>| Anchor {
        pos: b.pos.to_array3(),
        vel: b.vel.to_array3(),
        time: b.time,
        radius: b.radius,
    };
    let candidate = |k: usize| state(&bodies[cand[k] as usize]);
    match screen_keys(V::DIM, &state(bi), l.to_array3(), candidate, keys) {
        Some(e) => {
            bound.merge(&e, l);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DVec2, DVec3};

    /// The SIMD first pass (the kernel in both dimensions, though the calendar uses it in 3D
    /// only) gives the scalar pass's keys and batch bound bit for bit, on random
    /// states in 2D and 3D: local times apart (the state of one body older than the other's),
    /// pairs across faces and far outside the box, batches of 1 to 29 candidates (partial
    /// blocks of four). On x86-64 with AVX2 (every machine the project measures on) the kernel
    /// must run.
    #[test]
    fn the_simd_first_pass_gives_the_scalar_bits() {
        fn check<V: Vector>(l: V, rounds: usize) -> usize {
            let mut x = 0x1234_5678_9abc_def1u64;
            let mut u = || {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 11) as f64 / (1u64 << 53) as f64
            };
            let l3 = l.to_array3();
            let mut ran = 0;
            for round in 0..rounds {
                let n = 2 + (round % 29);
                let bodies: Vec<Body<V>> = (0..n)
                    .map(|_| {
                        // Now and then a state outside the box (unwrapped), or a NaN.
                        let far = if u() < 0.05 { 3.0 } else { 1.0 };
                        let mut p = [0.0; 3];
                        let mut v = [0.0; 3];
                        for a in 0..V::DIM {
                            p[a] = far * u() * l3[a];
                            v[a] = 4.0 * u() - 2.0;
                        }
                        let mut b = Body::new(V::from_array3(p), V::from_array3(v), 0.1 + u(), 1.0);
                        b.time = if u() < 0.3 { 2.0 } else { 3.0 * u() };
                        if u() < 0.01 {
                            b.time = f64::NAN;
                        }
                        b
                    })
                    .collect();
                let cand: Vec<u32> = (1..n as u32).collect();
                let mut keys = vec![0.0; cand.len()];
                let mut simd = ScreenBatch::new();
                if !simd_pass(&bodies[0], &bodies, &cand, l, &mut keys, &mut simd) {
                    continue;
                }
                ran += 1;
                let mut scalar = ScreenBatch::new();
                for (k, &j) in cand.iter().enumerate() {
                    let s = PairScreen::new(&bodies[0], &bodies[j as usize], l);
                    scalar.add(&s);
                    assert_eq!(
                        s.key().to_bits(),
                        keys[k].to_bits(),
                        "round {round}, pair {k}"
                    );
                }
                for t in [0.0, 1.0, 2.5, 3.0, 10.0, f64::INFINITY] {
                    assert_eq!(
                        simd.key_bound(t).map(f64::to_bits),
                        scalar.key_bound(t).map(f64::to_bits),
                        "round {round}, t_max {t}"
                    );
                }
            }
            ran
        }
        let ran3 = check(DVec3::new(7.0, 9.0, 8.0), 3000);
        let ran2 = check(DVec2::new(7.0, 9.0), 3000);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            assert_eq!((ran3, ran2), (3000, 3000), "the kernel did not run");
        }
        eprintln!("SIMD first pass compared on {ran3} 3D and {ran2} 2D batches");
    }
}
