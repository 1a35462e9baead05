//! A uniform grid with spatial hashing, rebuilt on every call (Ericson, *Real-Time Collision
//! Detection*, section 7.1; Teschner et al., *Optimized spatial hashing for collision
//! detection of deformable objects*, 2003).
//!
//! * **Cell size**: a robust large box size, the 90th percentile of the boxes' largest
//!   extents, times [`GridOptions::cell_factor`] (2 by default: fewer cells per box for a few
//!   more same-cell tests, measured fastest on the benchmark scenes), so most boxes touch at
//!   most `2^d` cells whatever a few outliers do. When that is zero (points), the scene's
//!   largest extent over `n^(1/d)`.
//! * **Cells**: a box is inserted in every cell its closed box touches (cell coordinates are
//!   `floor((x - origin) / size)`, monotone in `x`, so overlapping boxes share a cell). A box
//!   touching more than [`GridOptions::max_cells`] cells, or with an infinite coordinate, is
//!   *big*: it is kept apart and tested against every other box.
//! * **Hashing**: cells are hashed into a table of about twice as many buckets as entries, and
//!   the entries (item, cell, and a copy of the box, so that a bucket is read sequentially)
//!   are grouped by bucket with a counting sort. Different cells can share a bucket, so a
//!   candidate pair must also share the cell itself.
//! * **Once per pair**: two overlapping boxes share every cell containing the point whose
//!   coordinates are the larger of their minima; the pair is reported only in that cell.
//!
//! Cost `O(n + e + t)` for `e` entries (about `2^d n` at most for boxes of similar size) and
//! `t` same-cell candidate tests, plus `O(b n)` for `b` big boxes. Cell coordinates are 32-bit
//! (saturating): scenes more than `2^31` cells across merge their far cells, which costs tests
//! but never correctness.

use super::pairs::PairSorter;
use super::{is_empty, OverlapFinder};
use crate::math::{Aabb, Vector};

/// Parameters of [`Grid`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridOptions {
    /// Cell size over the 90th percentile of the boxes' largest extents, `> 0`.
    pub cell_factor: f64,
    /// A box touching more cells than this is tested against every box instead, `>= 1`.
    pub max_cells: u64,
}

impl Default for GridOptions {
    fn default() -> Self {
        Self {
            cell_factor: 2.0,
            max_cells: 64,
        }
    }
}

/// An item in one cell, with a copy of its box so that a bucket is read sequentially.
#[derive(Clone, Copy, Debug)]
struct Entry<V: Vector> {
    bbox: Aabb<V>,
    cell: [i32; 3],
    item: u32,
}

/// Uniform grid of hashed cells, rebuilt on every call.
#[derive(Clone, Debug)]
pub struct Grid<V: Vector> {
    opts: GridOptions,
    /// Cell range of each item in `items`.
    lo: Vec<[i32; 3]>,
    hi: Vec<[i32; 3]>,
    /// Items in the grid.
    items: Vec<u32>,
    /// Big boxes.
    big: Vec<u32>,
    extents: Vec<f64>,
    starts: Vec<u32>,
    entries: Vec<Entry<V>>,
    cell_size: f64,
    sorter: PairSorter,
}

#[inline]
fn bucket(c: &[i32; 3], shift: u32) -> usize {
    let h = (c[0] as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (c[1] as u32 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (c[2] as u32 as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
    (h.wrapping_mul(0xFF51_AFD7_ED55_8CCD) >> shift) as usize
}

impl<V: Vector> Default for Grid<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Vector> Grid<V> {
    /// A grid with the default options.
    pub fn new() -> Self {
        Self::with_options(GridOptions::default())
    }

    /// A grid with the given options.
    ///
    /// # Panics
    /// When `cell_factor` is not positive and finite or `max_cells` is 0.
    pub fn with_options(opts: GridOptions) -> Self {
        assert!(
            opts.cell_factor > 0.0 && opts.cell_factor.is_finite() && opts.max_cells >= 1,
            "invalid grid options {opts:?}"
        );
        Self {
            opts,
            lo: Vec::new(),
            hi: Vec::new(),
            items: Vec::new(),
            big: Vec::new(),
            extents: Vec::new(),
            starts: Vec::new(),
            entries: Vec::new(),
            cell_size: 0.0,
            sorter: PairSorter::default(),
        }
    }

    /// Cell size chosen by the last call.
    pub fn cell_size(&self) -> f64 {
        self.cell_size
    }

    /// Boxes of the last call that were too big for the grid.
    pub fn big_boxes(&self) -> usize {
        self.big.len()
    }

    /// Calls `f(cell)` for every cell of the range `[lo, hi]`.
    #[inline]
    fn for_cells(lo: &[i32; 3], hi: &[i32; 3], mut f: impl FnMut([i32; 3])) {
        let (z0, z1) = if V::DIM == 3 { (lo[2], hi[2]) } else { (0, 0) };
        for z in z0..=z1 {
            for y in lo[1]..=hi[1] {
                for x in lo[0]..=hi[0] {
                    f([x, y, z]);
                }
            }
        }
    }
}

impl<V: Vector> OverlapFinder<V> for Grid<V> {
    fn name(&self) -> &'static str {
        "grid"
    }

    fn find_pairs(&mut self, boxes: &[Aabb<V>], out: &mut Vec<[u32; 2]>) {
        out.clear();
        let n = boxes.len();
        self.items.clear();
        self.big.clear();
        self.extents.clear();
        let mut origin = [f64::INFINITY; 3];
        let mut top = [f64::NEG_INFINITY; 3];
        for (i, b) in boxes.iter().enumerate() {
            if is_empty(b) {
                continue;
            }
            if !(b.min.is_finite() && b.max.is_finite()) {
                self.big.push(i as u32);
                continue;
            }
            self.items.push(i as u32);
            let mut e = 0.0f64;
            for a in 0..V::DIM {
                origin[a] = origin[a].min(b.min.comp(a));
                top[a] = top[a].max(b.max.comp(a));
                e = e.max(b.max.comp(a) - b.min.comp(a));
            }
            self.extents.push(e);
        }
        let m = self.extents.len();
        let mut size = 0.0;
        if m > 0 {
            let q = (m - 1) * 9 / 10;
            let (_, &mut e90, _) = self.extents.select_nth_unstable_by(q, f64::total_cmp);
            size = e90 * self.opts.cell_factor;
            if !(size > 0.0 && size.is_finite()) {
                let span = (0..V::DIM)
                    .map(|a| top[a] - origin[a])
                    .fold(0.0f64, f64::max);
                size = span / (m as f64).powf(1.0 / V::DIM as f64);
            }
            if !(size > 0.0 && size.is_finite() && (1.0 / size).is_finite()) {
                size = 1.0;
            }
        }
        self.cell_size = size;
        let inv = 1.0 / size;

        // Cell ranges; boxes touching too many cells join the big ones.
        self.lo.clear();
        self.hi.clear();
        let mut total = 0usize;
        let mut w = 0;
        for r in 0..self.items.len() {
            let id = self.items[r];
            let b = &boxes[id as usize];
            let mut lo = [0i32; 3];
            let mut hi = [0i32; 3];
            let mut cells = 1.0f64;
            for a in 0..V::DIM {
                // `as` saturates: monotone, which is all correctness needs.
                lo[a] = ((b.min.comp(a) - origin[a]) * inv).floor() as i32;
                hi[a] = ((b.max.comp(a) - origin[a]) * inv).floor() as i32;
                cells *= (i64::from(hi[a]) - i64::from(lo[a]) + 1) as f64;
            }
            if cells > self.opts.max_cells as f64 {
                self.big.push(id);
                continue;
            }
            total += cells as usize;
            self.items[w] = id;
            self.lo.push(lo);
            self.hi.push(hi);
            w += 1;
        }
        self.items.truncate(w);

        // Group the (cell, item) entries by bucket: count, prefix sums, fill.
        let buckets = (2 * total).next_power_of_two().max(2);
        let shift = 64 - buckets.trailing_zeros();
        self.starts.clear();
        self.starts.resize(buckets + 1, 0);
        for r in 0..self.items.len() {
            let starts = &mut self.starts;
            Self::for_cells(&self.lo[r], &self.hi[r], |c| {
                starts[bucket(&c, shift) + 1] += 1;
            });
        }
        for k in 0..buckets {
            self.starts[k + 1] += self.starts[k];
        }
        self.entries.clear();
        let blank = Entry {
            bbox: Aabb::new(V::ZERO, V::ZERO),
            cell: [0; 3],
            item: 0,
        };
        self.entries.resize(total, blank);
        for r in 0..self.items.len() {
            let (starts, entries) = (&mut self.starts, &mut self.entries);
            let item = self.items[r];
            let bbox = boxes[item as usize];
            Self::for_cells(&self.lo[r], &self.hi[r], |cell| {
                let s = &mut starts[bucket(&cell, shift)];
                entries[*s as usize] = Entry { bbox, cell, item };
                *s += 1;
            });
        }
        // The cell coordinate of `x` on axis `a`, exactly as the ranges were computed.
        let cell_of = |x: f64, a: usize| ((x - origin[a]) * inv).floor() as i32;
        // `starts[k]` is now the end of bucket k.
        let mut begin = 0usize;
        for k in 0..buckets {
            let end = self.starts[k] as usize;
            if end - begin >= 2 {
                let group = &self.entries[begin..end];
                for (x, ex) in group.iter().enumerate() {
                    for ey in &group[x + 1..] {
                        if ey.cell != ex.cell || !ex.bbox.overlaps(&ey.bbox) {
                            continue;
                        }
                        // Report in the cell of the larger minima only (cell coordinates are
                        // monotone, so that is the larger of the two boxes' first cells).
                        let first =
                            |a: usize| cell_of(ex.bbox.min.comp(a).max(ey.bbox.min.comp(a)), a);
                        if (0..V::DIM).all(|a| first(a) == ex.cell[a]) {
                            let (i, j) = (ex.item, ey.item);
                            out.push(if i < j { [i, j] } else { [j, i] });
                        }
                    }
                }
            }
            begin = end;
        }

        // Big boxes against everything: grid items, and big boxes later in the list.
        for (p, &bi) in self.big.iter().enumerate() {
            let bb = &boxes[bi as usize];
            let others = self.items.iter().chain(&self.big[p + 1..]);
            for &j in others {
                if bb.overlaps(&boxes[j as usize]) {
                    out.push(if bi < j { [bi, j] } else { [j, bi] });
                }
            }
        }
        self.sorter.sort(out, n);
    }
}
