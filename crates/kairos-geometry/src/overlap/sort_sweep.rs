//! Single-axis sort and sweep on the axis of largest variance (Ericson, *Real-Time Collision
//! Detection*, section 7.5.2, as summarised in the seed article on broad phases).
//!
//! Every call:
//! 1. choose the axis along which the boxes' centres have the largest variance (the axis
//!    that separates them best);
//! 2. sort the non-empty boxes by their minimum on that axis. The order of the previous call
//!    is the starting point: when the axis is unchanged and the boxes moved little it is
//!    nearly sorted, and an insertion sort finishes in `O(n + swaps)`; past a budget of swaps
//!    (or when the axis changed) a full `O(n log n)` sort takes over;
//! 3. sweep: each box is tested against the boxes after it in the order until one starts past
//!    its maximum on the axis (the active range), with the full box test.
//!
//! Cost `O(n log n + s)` (`O(n + swaps + s)` warm), where `s` is the number of pairs that
//! overlap on the sweep axis; bodies aligned on that axis make `s` quadratic, which the
//! variance choice avoids unless they are aligned on every axis.

use super::pairs::{axis_of_largest_variance, PairSorter};
use super::{is_empty, OverlapFinder};
use crate::math::{Aabb, Vector};

/// Swaps allowed to the warm-start insertion sort per item before falling back to a full
/// sort.
const SWAPS_PER_ITEM: usize = 8;

/// Sort and sweep along the axis of largest variance, warm-started from the last order.
#[derive(Clone, Debug, Default)]
pub struct SortSweep<V: Vector> {
    /// Every id below `n` of the last call: the non-empty ones in sweep order, then the rest.
    order: Vec<u32>,
    /// Length of the last call's slice.
    n: usize,
    /// Sweep axis of the last call.
    axis: usize,
    /// `(min on the axis, id)` of the non-empty boxes, sorted.
    keys: Vec<(f64, u32)>,
    empties: Vec<u32>,
    /// Maximum on the sweep axis, in `keys` order.
    hi: Vec<f64>,
    /// Bounds on the other axes, `[lo, hi, lo, hi]`, in `keys` order (the second pair is
    /// `[-inf, inf]` in 2D).
    others: Vec<[f64; 4]>,
    _dim: std::marker::PhantomData<V>,
    sorter: PairSorter,
}

impl<V: Vector> SortSweep<V> {
    /// A finder with no history.
    pub fn new() -> Self {
        Self {
            order: Vec::new(),
            n: 0,
            axis: 0,
            keys: Vec::new(),
            empties: Vec::new(),
            hi: Vec::new(),
            others: Vec::new(),
            _dim: std::marker::PhantomData,
            sorter: PairSorter::default(),
        }
    }

    /// The sweep axis chosen by the last call.
    pub fn axis(&self) -> usize {
        self.axis
    }

    /// Sorts `keys` by insertion within the swap budget; false when the budget ran out
    /// (`keys` is then a permutation of its input, partly sorted).
    fn insertion_sort(keys: &mut [(f64, u32)], budget: usize) -> bool {
        let mut swaps = 0usize;
        for i in 1..keys.len() {
            let cur = keys[i];
            let mut j = i;
            while j > 0 && keys[j - 1].0 > cur.0 {
                keys[j] = keys[j - 1];
                j -= 1;
            }
            keys[j] = cur;
            swaps += i - j;
            if swaps > budget {
                return false;
            }
        }
        true
    }
}

impl<V: Vector> OverlapFinder<V> for SortSweep<V> {
    fn name(&self) -> &'static str {
        "sort-sweep"
    }

    fn find_pairs(&mut self, boxes: &[Aabb<V>], out: &mut Vec<[u32; 2]>) {
        out.clear();
        let n = boxes.len();
        let axis = axis_of_largest_variance(boxes);
        let warm = axis == self.axis;
        self.axis = axis;
        if n < self.n {
            self.order.retain(|&id| (id as usize) < n);
        }
        self.order.extend(self.n as u32..n as u32);
        self.n = n;

        self.keys.clear();
        self.empties.clear();
        for &id in &self.order {
            let b = &boxes[id as usize];
            if is_empty(b) {
                self.empties.push(id);
            } else {
                self.keys.push((b.min.comp(axis), id));
            }
        }
        let budget = SWAPS_PER_ITEM * self.keys.len() + 64;
        if !(warm && Self::insertion_sort(&mut self.keys, budget)) {
            self.keys.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        }
        self.order.clear();
        self.order.extend(self.keys.iter().map(|k| k.1));
        self.order.extend_from_slice(&self.empties);

        // Structure of arrays for the sweep: the minima (in `keys`), the maxima on the axis,
        // and the other axes' bounds in one 32-byte record per box.
        let (a1, a2) = ((axis + 1) % V::DIM, (axis + 2) % V::DIM);
        self.hi.clear();
        self.others.clear();
        for &(_, id) in &self.keys {
            let b = &boxes[id as usize];
            self.hi.push(b.max.comp(axis));
            self.others.push(if V::DIM == 3 {
                [
                    b.min.comp(a1),
                    b.max.comp(a1),
                    b.min.comp(a2),
                    b.max.comp(a2),
                ]
            } else {
                [
                    b.min.comp(a1),
                    b.max.comp(a1),
                    f64::NEG_INFINITY,
                    f64::INFINITY,
                ]
            });
        }
        let (keys, his, others) = (&self.keys, &self.hi, &self.others);
        for (i, (&hi, o)) in his.iter().zip(others).enumerate() {
            let id = keys[i].1;
            for (k, p) in keys[i + 1..].iter().zip(&others[i + 1..]) {
                if k.0 > hi {
                    break;
                }
                // On the axis they overlap: k.0 is between this box's minimum and maximum.
                if (p[0] <= o[1]) & (o[0] <= p[1]) & (p[2] <= o[3]) & (o[2] <= p[3]) {
                    let jd = k.1;
                    out.push(if id < jd { [id, jd] } else { [jd, id] });
                }
            }
        }
        self.sorter.sort(out, n);
    }
}
