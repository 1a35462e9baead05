//! Incremental sweep and prune on every axis (the seed slides on sweep and prune; Baraff's
//! thesis; Bullet's `btAxisSweep3`).
//!
//! Per axis, a persistent list of the boxes' endpoints (each box's minimum and maximum)
//! sorted by coordinate, and one set `W` of the overlapping pairs. Each call writes the new
//! coordinates into the lists and re-sorts them by insertion sort, which exchanges exactly the
//! pairs of endpoints whose order changed, each once. Only an exchange of a minimum with
//! another box's maximum can change whether two boxes overlap:
//!
//! * a minimum of `a` moving below a maximum of `b`: `a` and `b` now overlap on this axis;
//!   if their new boxes overlap on every axis, `{a, b}` joins `W`;
//! * a maximum of `a` moving below a minimum of `b`: they no longer overlap on this axis, so
//!   `{a, b}` leaves `W` if it was there.
//!
//! A pair whose status did not change has no such exchange, so after all axes `W` is exactly
//! the set of overlapping pairs (the argument is spelled out in `find_pairs`). Ties order a
//! minimum before a maximum, so touching boxes overlap, as closed boxes do. The exchanges are
//! recorded during the sort and applied afterwards (removals, then tested insertions): the
//! result is the same, and the independent lookups of boxes and set entries overlap their
//! cache misses instead of stalling the sort one by one.
//!
//! Items entering are appended to the lists and sorted into place like moved ones; items
//! leaving or empty get endpoints that sort after every real one, a maximum before a minimum,
//! so that each of their pairs is removed by an exchange; endpoints of items that left are
//! then dropped.
//!
//! Cost per call: `O(n d + e)` for `e` exchanges, plus the output. With small motion `e` is
//! about linear in `n` for a given density, but it grows with the density of endpoints along
//! each axis (for a fixed motion per step, as `n^(1/2)` per item in 2D and `n^(2/3)` in 3D
//! at constant packing). Large motion (teleports, the first call, many items entering) or
//! bodies aligned along an axis can make it quadratic: past a budget of exchanges (about a
//! sort's worth) the lists are rebuilt by a full sort and `W` recomputed with the [`Bvh`]
//! finder, `O(n log n + k)`; after such a call the next 1, 3, 7, then 15 calls rebuild
//! directly before the update is tried again.

use super::bvh::Bvh;
use super::pairs::{key_pair, pair_key, PairSet, PairSorter};
use super::{is_empty, OverlapFinder};
use crate::math::{Aabb, Vector};

/// Endpoint kinds, in the order they sort at equal coordinates (the low two bits of a tag).
const MIN: u32 = 0;
const MAX: u32 = 1;
/// The maximum of an empty or departed item, at `+inf`.
const GONE_MAX: u32 = 2;
/// The minimum of an empty or departed item, at `+inf` after everything else.
const GONE_MIN: u32 = 3;

/// Exchanges allowed per endpoint and axis, in units of `log2(2n) / 2`, before the lists are
/// rebuilt from scratch. Measured on the benchmark scenes at 1e5 items, an exchange costs
/// 14 to 18 ns (mostly cache misses on the boxes) and a rebuild is worth about
/// `0.5 to 0.7 log2(2n)` exchanges per endpoint and axis.
const HALF_LOGS_PER_ENDPOINT: usize = 1;
/// Longest run of calls that rebuild directly, without trying the incremental update, after
/// updates ran out of budget.
const MAX_SKIP: u32 = 16;

#[inline]
fn is_min_kind(tag: u32) -> bool {
    let k = tag & 3;
    k == MIN || k == GONE_MIN
}

/// The exchanges of minima and maxima of one call, applied after all axes are sorted.
///
/// An exchange only *proposes*: a pair whose minimum passed below the other's maximum is
/// inserted if the final boxes overlap, and a pair whose maximum passed below the other's
/// minimum is removed. Removals are unconditional and insertions test the final boxes, so
/// their order does not matter; applying them in a batch after the sort, rather than inside
/// its loop, lets the processor overlap the cache misses of independent box and set lookups
/// (the boxes of endpoints that meet are anywhere in memory).
#[derive(Clone, Debug, Default)]
struct Events {
    adds: Vec<u64>,
    removes: Vec<u64>,
}

/// The boxes' bounds on one axis, by item, and which items are present (non-empty): read
/// once in order from the boxes, so that refreshing the endpoints, which visits items in
/// sorted order, reads 8 bytes from a compact array instead of a whole box.
#[derive(Clone, Debug, Default)]
struct Bounds {
    lo: Vec<f64>,
    hi: Vec<f64>,
    present: Vec<bool>,
}

impl Bounds {
    fn fill<V: Vector>(&mut self, boxes: &[Aabb<V>], axis: usize) {
        self.lo.clear();
        self.hi.clear();
        self.present.clear();
        for b in boxes {
            self.lo.push(b.min.comp(axis));
            self.hi.push(b.max.comp(axis));
            self.present.push(!is_empty(b));
        }
    }
}

/// The sorted endpoints of one axis, as parallel arrays (the sort touches only these).
#[derive(Clone, Debug, Default)]
struct Axis {
    value: Vec<f64>,
    /// `id << 2 | kind`.
    tag: Vec<u32>,
}

/// Incremental sweep and prune: sorted endpoint lists on every axis and the set of
/// overlapping pairs, updated by insertion sort.
#[derive(Clone, Debug)]
pub struct Sap<V: Vector> {
    axes: Vec<Axis>,
    /// Length of the last call's slice (`pairs` is exactly the overlapping pairs of its boxes).
    n: usize,
    pairs: PairSet,
    events: Events,
    bounds: Bounds,
    /// Exchanges of the last call, and whether it rebuilt.
    last_swaps: usize,
    last_rebuilt: bool,
    /// Calls left that rebuild directly, and the length of the next such run.
    skip: u32,
    skip_next: u32,
    /// Finds the pairs when rebuilding.
    rebuild: Bvh<V>,
    scratch: Vec<[u32; 2]>,
    sorter: PairSorter,
}

impl<V: Vector> Default for Sap<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Vector> Sap<V> {
    /// A finder with no items.
    pub fn new() -> Self {
        Self {
            axes: vec![Axis::default(); V::DIM],
            n: 0,
            pairs: PairSet::default(),
            events: Events::default(),
            bounds: Bounds::default(),
            last_swaps: 0,
            last_rebuilt: false,
            skip: 0,
            skip_next: 0,
            rebuild: Bvh::new(),
            scratch: Vec::new(),
            sorter: PairSorter::default(),
        }
    }

    /// Endpoint exchanges made by the last call (for diagnostics and benchmarks).
    pub fn last_swaps(&self) -> usize {
        self.last_swaps
    }

    /// Whether the last call rebuilt the lists from scratch instead of updating them.
    pub fn last_rebuilt(&self) -> bool {
        self.last_rebuilt
    }

    /// The new value and tag of the endpoint `tag` from one axis's bounds.
    #[inline]
    fn refresh(b: &Bounds, tag: u32) -> (f64, u32) {
        let id = (tag >> 2) as usize;
        let min = is_min_kind(tag);
        if b.present.get(id) == Some(&true) {
            if min {
                (b.lo[id], (tag & !3) | MIN)
            } else {
                (b.hi[id], (tag & !3) | MAX)
            }
        } else {
            (
                f64::INFINITY,
                (tag & !3) | if min { GONE_MIN } else { GONE_MAX },
            )
        }
    }

    /// Re-sorts one axis by insertion, updating `pairs` at each exchange of a minimum and a
    /// maximum. False when more than `budget` exchanges were needed (the lists and the set are
    /// then inconsistent and must be rebuilt).
    fn sort_axis(axis: &mut Axis, events: &mut Events, budget: &mut usize) -> bool {
        let (value, tag) = (&mut axis.value, &mut axis.tag);
        for i in 1..value.len() {
            let (v, t) = (value[i], tag[i]);
            let mut j = i;
            // `(value, kind)` order: lexicographic, the kind in the tag's low bits.
            while j > 0 && (value[j - 1] > v || (value[j - 1] == v && (tag[j - 1] & 3) > (t & 3))) {
                let u = tag[j - 1];
                let (a, b) = (t >> 2, u >> 2);
                if a != b {
                    match (t & 3, u & 3) {
                        // min of `a` passes below max of `b`, both present: they may start
                        // to overlap.
                        (MIN, MAX) => events.adds.push(pair_key(a, b)),
                        // max of `a` passes below min of `b`: they stop overlapping.
                        (MAX | GONE_MAX, MIN | GONE_MIN) => events.removes.push(pair_key(a, b)),
                        _ => {}
                    }
                }
                value[j] = value[j - 1];
                tag[j] = u;
                j -= 1;
            }
            if j != i {
                value[j] = v;
                tag[j] = t;
                let moved = i - j;
                if moved > *budget {
                    return false;
                }
                *budget -= moved;
            }
        }
        true
    }

    /// Sorted lists and the exact pair set from scratch.
    fn rebuild_all(&mut self, boxes: &[Aabb<V>]) {
        let n = boxes.len();
        for (a, axis) in self.axes.iter_mut().enumerate() {
            self.bounds.fill(boxes, a);
            let mut ends: Vec<(f64, u32)> = Vec::with_capacity(2 * n);
            for id in 0..n as u32 {
                ends.push(Self::refresh(&self.bounds, id << 2 | MIN));
                ends.push(Self::refresh(&self.bounds, id << 2 | MAX));
            }
            ends.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then((x.1 & 3).cmp(&(y.1 & 3))));
            axis.value.clear();
            axis.tag.clear();
            axis.value.extend(ends.iter().map(|e| e.0));
            axis.tag.extend(ends.iter().map(|e| e.1));
        }
        self.rebuild.find_pairs(boxes, &mut self.scratch);
        self.pairs.clear();
        self.pairs
            .extend(self.scratch.iter().map(|&[i, j]| pair_key(i, j)));
    }
}

impl<V: Vector> OverlapFinder<V> for Sap<V> {
    fn name(&self) -> &'static str {
        "sap"
    }

    /// Invariant between calls: the lists are sorted for the last call's boxes, and `pairs` is
    /// exactly the set of their overlapping pairs; so a pair is in `pairs` iff on every axis each of its
    /// minima sorts before the other's maximum. Each exchange flips one such relation, and
    /// insertion sort flips a relation only if the final order differs, once. A pair
    /// overlapping at the end has all relations true at the end: either it was in `pairs`
    /// and none flipped (no removal), or some relation flipped to true and the insertion test
    /// on the new boxes succeeded. A pair not overlapping at the end has some relation false
    /// at the end: either one flipped from true (removed; no insertion test can succeed on
    /// the new boxes afterwards) or it was false from the start (not in `pairs`, insertion
    /// tests fail). Appended endpoints of entering items start after everything, so their
    /// relations start false, consistent with their absence from `pairs`.
    fn find_pairs(&mut self, boxes: &[Aabb<V>], out: &mut Vec<[u32; 2]>) {
        out.clear();
        let n = boxes.len();
        let old_n = self.n;
        let entering = n.saturating_sub(old_n);
        self.last_swaps = 0;
        // Many items entering at once (the first call): a fresh sort is cheaper.
        self.last_rebuilt = entering > 64 && entering * 4 > n;
        if self.skip > 0 {
            // The last updates ran out of budget: this one most likely would too.
            self.skip -= 1;
            self.last_rebuilt = true;
        }
        if !self.last_rebuilt {
            let ends = 2 * n.max(old_n);
            let log = (usize::BITS - ends.leading_zeros()) as usize;
            let mut budget = HALF_LOGS_PER_ENDPOINT * log * ends * V::DIM / 2 + 1024;
            let start = budget;
            for (a, axis) in self.axes.iter_mut().enumerate() {
                self.bounds.fill(boxes, a);
                for t in axis.tag.iter_mut().zip(axis.value.iter_mut()) {
                    (*t.1, *t.0) = Self::refresh(&self.bounds, *t.0);
                }
                for id in old_n as u32..n as u32 {
                    for kind in [MIN, MAX] {
                        let (v, t) = Self::refresh(&self.bounds, id << 2 | kind);
                        axis.value.push(v);
                        axis.tag.push(t);
                    }
                }
                if !Self::sort_axis(axis, &mut self.events, &mut budget) {
                    self.last_rebuilt = true;
                    self.skip_next = (2 * self.skip_next + 1).min(MAX_SKIP);
                    self.skip = self.skip_next;
                    break;
                }
                if n < old_n {
                    // Departed items now sort last (among the empty ones); drop them.
                    let mut w = 0;
                    for r in 0..axis.tag.len() {
                        if ((axis.tag[r] >> 2) as usize) < n {
                            axis.tag[w] = axis.tag[r];
                            axis.value[w] = axis.value[r];
                            w += 1;
                        }
                    }
                    axis.tag.truncate(w);
                    axis.value.truncate(w);
                }
            }
            self.last_swaps = start - budget;
            if !self.last_rebuilt {
                self.skip_next = 0;
                for k in &self.events.removes {
                    self.pairs.remove(k);
                }
                for &k in &self.events.adds {
                    let [a, b] = key_pair(k);
                    if boxes[a as usize].overlaps(&boxes[b as usize]) {
                        self.pairs.insert(k);
                    }
                }
            }
            self.events.adds.clear();
            self.events.removes.clear();
        }
        if self.last_rebuilt {
            self.rebuild_all(boxes);
        }
        self.n = n;
        out.extend(self.pairs.iter().map(|&k| key_pair(k)));
        self.sorter.sort(out, n);
    }
}
