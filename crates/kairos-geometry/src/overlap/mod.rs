//! Discrete broad phases: which boxes overlap *now*?
//!
//! A discrete-time stepper moves every body by `dt` and then asks for the pairs whose bounding
//! boxes overlap; those pairs go to the exact overlap test. Every finder here returns exactly
//! the brute-force set (the tests check it on random and adversarial scenes), so they differ
//! only in speed. Persistent finders (`sap`, `dbvt`) keep state between calls and are fastest
//! when the boxes move little from one step to the next.
//!
//! | finder | idea | per call |
//! |---|---|---|
//! | [`BruteForce`] | every pair | `O(n^2)` |
//! | [`Bvh`] | median-split hierarchy rebuilt, self-traversed (thesis Algorithm 3) | `O(n log n + k)` typical |
//! | [`Sap`] | sorted endpoints on every axis, insertion sort, pair set updated by exchanges | `O(n + swaps)`, rebuilds past a budget |
//! | [`SortSweep`] | one axis (largest variance), sort warm-started, sweep | `O(n log n + s)`, `s` overlaps on the axis |
//! | [`Dbvt`] | dynamic tree of fat boxes, persistent candidate pairs | `O(n + c + m log n)` for `m` re-inserted |
//! | [`Grid`] | uniform hashed grid, cell from the 90th-percentile box size | `O(n + e + t)`, big boxes `O(n)` each |
//!
//! Measured times are in `docs/benchmarks.md` (`kairos bench overlap`).
//!
//! The contract of [`OverlapFinder::find_pairs`]:
//! * `boxes[i]` is the box of item `i`; the slice may grow or shrink between calls (items
//!   past the new length have left, new indices have entered);
//! * a box with `min > max` on some axis is empty and overlaps nothing (an item that is
//!   temporarily absent);
//! * two boxes overlap when the closed boxes share a point ([`Aabb::overlaps`]);
//! * `out` is cleared and receives every overlapping pair `[i, j]` with `i < j`, sorted
//!   ascending, each once.

// The finders' modules are public for their documentation (each explains its algorithm);
// the types are re-exported here.
pub mod brute;
pub mod bvh;
pub mod dbvt;
pub mod grid;
mod pairs;
pub mod sap;
pub mod sort_sweep;

pub use brute::BruteForce;
pub use bvh::{Bvh, LEAF_SIZE};
pub use dbvt::{Dbvt, DbvtOptions};
pub use grid::{Grid, GridOptions};
pub use sap::Sap;
pub use sort_sweep::SortSweep;

use crate::math::{Aabb, Vector};

/// A discrete broad phase: the overlapping pairs of a set of boxes.
pub trait OverlapFinder<V: Vector>: Send {
    /// The name used on the command line.
    fn name(&self) -> &'static str;
    /// Every overlapping pair of `boxes`, as `[i, j]` with `i < j`, sorted, into `out`.
    fn find_pairs(&mut self, boxes: &[Aabb<V>], out: &mut Vec<[u32; 2]>);
}

crate::names::named_kinds! {
    /// The discrete broad phases available by name.
    pub enum OverlapKind("discrete broad phase") {
        /// [`BruteForce`]: every pair (the reference).
        BruteForce => "brute-force",
        /// [`Bvh`]: a median-split hierarchy rebuilt per call, self-traversed (thesis
        /// Algorithm 3).
        Bvh => "bvh",
        /// [`Sap`]: incremental sweep and prune on every axis, by insertion sort.
        Sap => "sap",
        /// [`SortSweep`]: sort and sweep along the axis of largest variance (Ericson).
        SortSweep => "sort-sweep",
        /// [`Dbvt`]: a dynamic AABB tree of fat boxes with a persistent candidate set (Box2D).
        Dbvt => "dbvt",
        /// [`Grid`]: a uniform grid of hashed cells.
        Grid => "grid",
    }
}

impl OverlapKind {
    /// A new finder of this kind, with default options.
    pub fn build<V: Vector>(self) -> Box<dyn OverlapFinder<V>> {
        match self {
            OverlapKind::BruteForce => Box::new(BruteForce),
            OverlapKind::Bvh => Box::new(Bvh::new()),
            OverlapKind::Sap => Box::new(Sap::new()),
            OverlapKind::SortSweep => Box::new(SortSweep::new()),
            OverlapKind::Dbvt => Box::new(Dbvt::new()),
            OverlapKind::Grid => Box::new(Grid::new()),
        }
    }
}

/// True when the box is empty (some `min > max`, or NaN) and so overlaps nothing.
#[inline]
pub fn is_empty<V: Vector>(b: &Aabb<V>) -> bool {
    !b.min.all_le(b.max)
}

/// The box that overlaps nothing: the marker of an absent item.
pub fn empty_box<V: Vector>() -> Aabb<V> {
    Aabb::new(V::splat(f64::INFINITY), V::splat(f64::NEG_INFINITY))
}
