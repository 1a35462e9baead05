//! A dynamic AABB tree of fattened boxes (the design of Box2D's `b2DynamicTree` and Bullet's
//! `btDbvt`; the seed article's "dynamic bounding volume trees").
//!
//! Each item is a leaf holding a **fat box**: its box grown by a margin (a fraction of its
//! size plus a constant) and stretched ahead along its displacement since the last call
//! (times [`DbvtOptions::displacement_factor`], Box2D's `aabbMultiplier`). A call gives a new
//! fat box only to the items whose box left their fat box (or whose fat box became far too
//! large), so when few items move the tree barely changes.
//!
//! * **Insertion** picks the sibling that minimises the total surface area of the tree's
//!   boxes (perimeter in 2D): the cost of pairing the new leaf with node `x` is the area of
//!   `x` joined with the leaf plus the area every ancestor of `x` grows by. An exact
//!   branch-and-bound search (Bittner, Hapala and Havran, *Fast insertion-based optimization of
//!   bounding volume hierarchies*, 2013) prunes a subtree once the leaf's own area plus the
//!   growth of the subtree's ancestors reaches the best complete cost found. It runs depth
//!   first, the child that grows least first, rather than best first with a priority queue:
//!   the same answer, about 10% more nodes visited, and no heap (twice as fast here).
//!   Box2D v3's greedy single-path descent visits far fewer nodes but, measured here, built
//!   trees whose queries visit twice as many nodes.
//! * **Balancing**: walking up after an insertion or a removal, a node whose children's
//!   heights differ by more than one is rotated (AVL style, as `b2DynamicTree::Balance`): the
//!   taller child takes its place and keeps its own taller child, the node takes the shorter
//!   one. A leaf inserted beside a tall subtree leaves an imbalance larger than two, which
//!   one rotation cannot repair (Box2D lets it be); here the demoted node is balanced in turn,
//!   so the tree stays strictly AVL-balanced: height at most about `1.44 log2 n`.
//! * **Bulk rebuild**: when more than `1/16` of the items need a new fat box (the first call,
//!   teleports, fast motion), re-inserting them one by one costs more than rebuilding (about
//!   10 microseconds per re-insertion at 1e5 items, mostly cache misses, against half a
//!   microsecond per item), so the tree is rebuilt by median splits as in
//!   [`Bvh`](super::Bvh) (as Box2D v3's `b2DynamicTree_Rebuild` does for its static tree),
//!   and its self-traversal (thesis Algorithm 3) gives the candidates afresh.
//! * **Pairs**: a sorted list of *candidate* pairs, a superset of the pairs whose fat boxes
//!   overlap. Each re-inserted item queries the tree with its new fat box; the pairs found
//!   are sorted and merged into the list, and one pass over it drops the pairs whose fat
//!   boxes no longer overlap and reports, already sorted, those whose exact (tight) boxes
//!   overlap. A pair overlapping now has overlapping fat boxes; whichever of its two items
//!   got its fat box last found the other (all re-insertions happen before any query), and
//!   the pair was kept since, because its fat boxes never stopped overlapping. So the answer
//!   is exact.
//!
//! Cost per call: `O(n)` to check every box against its fat box, `O(m log n)` expected for
//! `m` re-inserted items (insertion, balancing, query; `O(n log n)` when rebuilding), and
//! `O(c + f log f)` for the `c` candidates and `f` new ones; the tree and the candidates are
//! `O(n + c)` memory.

use super::pairs::{centre_key, PairSorter};
use super::{is_empty, OverlapFinder};
use crate::math::{Aabb, Vector};
use crate::names::BadOption;

const NULL: u32 = u32::MAX;

/// Parameters of [`Dbvt`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DbvtOptions {
    /// Margin of a fat box as a fraction of its tight box's largest extent, `>= 0`.
    pub margin_relative: f64,
    /// Constant margin of a fat box, `>= 0`, in scene units.
    pub margin_absolute: f64,
    /// Fat boxes of re-inserted items are stretched by this many times their last
    /// displacement (Box2D's `aabbMultiplier`), unless it exceeds the box's size (a
    /// teleport); 0 for margins only (no motion prediction).
    pub displacement_factor: f64,
}

impl Default for DbvtOptions {
    fn default() -> Self {
        Self {
            margin_relative: 0.1,
            margin_absolute: 0.0,
            displacement_factor: 4.0,
        }
    }
}

impl DbvtOptions {
    /// Checks the ranges documented on the fields.
    pub fn validate(&self) -> Result<(), BadOption> {
        for (name, v) in [
            ("margin_relative", self.margin_relative),
            ("margin_absolute", self.margin_absolute),
            ("displacement_factor", self.displacement_factor),
        ] {
            BadOption::check(v >= 0.0 && v.is_finite(), name, "finite and >= 0", v)?;
        }
        Ok(())
    }
}

/// A tree node: one 64-byte cache line in 3D.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Node<V: Vector> {
    /// Fat box of a leaf; union of the children's boxes otherwise.
    bbox: Aabb<V>,
    /// Parent, or the next free node while the node is free.
    parent: u32,
    /// First child; the item of a leaf.
    child1: u32,
    /// Second child; [`NULL`] for a leaf.
    child2: u32,
    /// 0 for a leaf.
    height: u32,
}

impl<V: Vector> Node<V> {
    #[inline]
    fn is_leaf(&self) -> bool {
        self.child2 == NULL
    }

    #[inline]
    fn leaf(bbox: Aabb<V>, item: u32, parent: u32) -> Self {
        Node {
            bbox,
            parent,
            child1: item,
            child2: NULL,
            height: 0,
        }
    }
}

/// Surface area in 3D, perimeter in 2D (both up to a constant factor); `+inf` instead of NaN
/// for boxes at infinity.
#[inline]
fn area<V: Vector>(b: &Aabb<V>) -> f64 {
    let e = b.max - b.min;
    let a = if V::DIM == 2 {
        e.comp(0) + e.comp(1)
    } else {
        e.comp(0) * e.comp(1) + e.comp(1) * e.comp(2) + e.comp(2) * e.comp(0)
    };
    if a.is_nan() {
        f64::INFINITY
    } else {
        a
    }
}

/// `a` holds `b`.
#[inline]
fn contains<V: Vector>(a: &Aabb<V>, b: &Aabb<V>) -> bool {
    a.min.all_le(b.min) && b.max.all_le(a.max)
}

/// Re-insertions beyond this fraction of the items (`1 / REBUILD_FRACTION`) rebuild the whole
/// tree instead: measured at 1e5 items, one re-insertion (removal, sibling search, balancing,
/// query) costs 8 to 13 microseconds, mostly cache misses, against about half a microsecond
/// per item for a rebuild and its self-traversal. (Removals count as re-insertions.)
const REBUILD_FRACTION: usize = 16;

/// Dynamic AABB tree with fat boxes, incremental re-insertion and a persistent candidate set.
#[derive(Clone, Debug)]
pub struct Dbvt<V: Vector> {
    opts: DbvtOptions,
    nodes: Vec<Node<V>>,
    free: u32,
    root: u32,
    /// Leaf of each item, [`NULL`] when absent (empty box).
    leaf: Vec<u32>,
    /// Fat box of each present item (a copy of its leaf's box).
    fat: Vec<Aabb<V>>,
    /// Each item's box centre at the last call; NaN when it was absent.
    last: Vec<V>,
    /// Items (re-)inserted by this call.
    moved: Vec<u32>,
    /// Leaves to remove in this call (items gone or empty).
    gone: Vec<u32>,
    last_rebuilt: bool,
    /// Candidate pairs `[i, j]`, `i < j`, sorted.
    candidates: Vec<[u32; 2]>,
    /// Pairs found by this call's queries or rebuild, then the merge of both lists.
    fresh: Vec<[u32; 2]>,
    merged: Vec<[u32; 2]>,
    stack: Vec<u32>,
    /// Scratch stack of the sibling search: (inherited cost, node).
    search: Vec<(f64, u32)>,
    pair_stack: Vec<(u32, u32)>,
    build_items: Vec<(u32, [f64; 3])>,
    sorter: PairSorter,
}

impl<V: Vector> Default for Dbvt<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Vector> Dbvt<V> {
    /// An empty tree with the default options.
    pub fn new() -> Self {
        Self::with_options(DbvtOptions::default())
    }

    /// An empty tree.
    ///
    /// # Panics
    /// When the options are out of range ([`DbvtOptions::validate`]).
    pub fn with_options(opts: DbvtOptions) -> Self {
        if let Err(e) = opts.validate() {
            panic!("invalid dbvt options: {e}");
        }
        Self {
            opts,
            nodes: Vec::new(),
            free: NULL,
            root: NULL,
            leaf: Vec::new(),
            fat: Vec::new(),
            last: Vec::new(),
            moved: Vec::new(),
            gone: Vec::new(),
            last_rebuilt: false,
            candidates: Vec::new(),
            fresh: Vec::new(),
            merged: Vec::new(),
            stack: Vec::new(),
            search: Vec::new(),
            pair_stack: Vec::new(),
            build_items: Vec::new(),
            sorter: PairSorter::default(),
        }
    }

    /// Items given a new fat box by the last call (entering, moved out of their fat box, or
    /// with a fat box far too large).
    pub fn last_moved(&self) -> usize {
        self.moved.len()
    }

    /// Whether the last call rebuilt the tree instead of re-inserting items one by one.
    pub fn last_rebuilt(&self) -> bool {
        self.last_rebuilt
    }

    /// Candidate pairs (pairs of overlapping fat boxes, and a few stale ones) after the last
    /// call.
    pub fn candidates(&self) -> usize {
        self.candidates.len()
    }

    /// Height of the tree (0 for a single leaf or an empty tree).
    pub fn height(&self) -> u32 {
        if self.root == NULL {
            0
        } else {
            self.nodes[self.root as usize].height
        }
    }

    /// Margin of the fat box of `b`: finite and `>= 0` (0 for boxes of infinite extent,
    /// which no margin can grow).
    fn margin(&self, b: &Aabb<V>) -> f64 {
        let e = (b.max - b.min).max_abs();
        let m = self.opts.margin_relative * e + self.opts.margin_absolute;
        if m.is_finite() {
            m
        } else {
            0.0
        }
    }

    /// The fat box of `b`, which moved by `d` since the last call (NaN when unknown).
    fn fatten(&self, b: &Aabb<V>, d: V) -> Aabb<V> {
        let mut fat = b.expanded(self.margin(b));
        // A jump longer than the box itself is a teleport, not motion to predict.
        let size = (b.max - b.min).max_abs();
        if self.opts.displacement_factor > 0.0 && d.is_finite() && d.max_abs() <= size {
            let d = d * self.opts.displacement_factor;
            let ahead = Aabb::new(fat.min + d, fat.max + d);
            fat = fat.union(&ahead);
        }
        fat
    }

    /// True when the fat box is far larger than a fresh one would be (the box shrank, or
    /// stopped moving after a large displacement).
    fn too_fat(&self, fat: &Aabb<V>, b: &Aabb<V>) -> bool {
        let m = self.margin(b);
        let fresh = area(&b.expanded(m));
        let current = area(fat);
        // Four times a fresh box's area in 2D, 16 in 3D: a few displacements' worth.
        let factor = if V::DIM == 2 { 4.0 } else { 16.0 };
        current > factor * fresh && fresh.is_finite()
    }

    fn alloc(&mut self, node: Node<V>) -> u32 {
        if self.free != NULL {
            let i = self.free;
            self.free = self.nodes[i as usize].parent;
            self.nodes[i as usize] = node;
            i
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    fn release(&mut self, i: u32) {
        self.nodes[i as usize].parent = self.free;
        self.nodes[i as usize].height = u32::MAX;
        self.free = i;
    }

    /// The node that, as the new leaf's sibling, adds the least total area: an exact branch
    /// and bound, depth first with the child that grows least tried first, pruning a subtree
    /// once the leaf's area plus the growth of its ancestors reaches the best cost found.
    fn best_sibling(&mut self, b: &Aabb<V>) -> u32 {
        let leaf_area = area(b);
        let mut best = self.root;
        let mut best_cost = area(&self.nodes[self.root as usize].bbox.union(b));
        let mut stack = std::mem::take(&mut self.search);
        stack.clear();
        stack.push((0.0f64, self.root));
        while let Some((inherited, i)) = stack.pop() {
            if !(leaf_area + inherited < best_cost) {
                continue;
            }
            let node = self.nodes[i as usize];
            let direct = area(&node.bbox.union(b));
            let cost = direct + inherited;
            if cost < best_cost {
                best = i;
                best_cost = cost;
            }
            if node.is_leaf() {
                continue;
            }
            let child_inherited = inherited + (direct - area(&node.bbox));
            if leaf_area + child_inherited < best_cost {
                let (c1, c2) = (
                    &self.nodes[node.child1 as usize],
                    &self.nodes[node.child2 as usize],
                );
                let (d1, d2) = (
                    area(&c1.bbox.union(b)) - area(&c1.bbox),
                    area(&c2.bbox.union(b)) - area(&c2.bbox),
                );
                if d1 <= d2 {
                    stack.push((child_inherited, node.child2));
                    stack.push((child_inherited, node.child1));
                } else {
                    stack.push((child_inherited, node.child1));
                    stack.push((child_inherited, node.child2));
                }
            }
        }
        self.search = stack;
        best
    }

    fn insert_leaf(&mut self, leaf: u32) {
        if self.root == NULL {
            self.root = leaf;
            self.nodes[leaf as usize].parent = NULL;
            return;
        }
        let b = self.nodes[leaf as usize].bbox;
        let sibling = self.best_sibling(&b);
        let old_parent = self.nodes[sibling as usize].parent;
        let s = self.nodes[sibling as usize];
        let new_parent = self.alloc(Node {
            bbox: s.bbox.union(&b),
            parent: old_parent,
            child1: sibling,
            child2: leaf,
            height: s.height + 1,
        });
        if old_parent == NULL {
            self.root = new_parent;
        } else {
            let p = &mut self.nodes[old_parent as usize];
            if p.child1 == sibling {
                p.child1 = new_parent;
            } else {
                p.child2 = new_parent;
            }
        }
        self.nodes[sibling as usize].parent = new_parent;
        self.nodes[leaf as usize].parent = new_parent;
        self.fix_upwards(new_parent);
    }

    fn remove_leaf(&mut self, leaf: u32) {
        if leaf == self.root {
            self.root = NULL;
            return;
        }
        let parent = self.nodes[leaf as usize].parent;
        let p = self.nodes[parent as usize];
        let grand = p.parent;
        let sibling = if p.child1 == leaf { p.child2 } else { p.child1 };
        self.release(parent);
        self.nodes[sibling as usize].parent = grand;
        if grand == NULL {
            self.root = sibling;
        } else {
            let g = &mut self.nodes[grand as usize];
            if g.child1 == parent {
                g.child1 = sibling;
            } else {
                g.child2 = sibling;
            }
            self.fix_upwards(grand);
        }
    }

    /// Rebalances and refits every node from `i` up to the root.
    fn fix_upwards(&mut self, mut i: u32) {
        while i != NULL {
            self.refit(i);
            i = self.balance(i);
            i = self.nodes[i as usize].parent;
        }
    }

    /// One AVL rotation at internal node `a` if its children's heights differ by more than
    /// one; returns the node now at `a`'s place.
    fn balance(&mut self, a: u32) -> u32 {
        let na = self.nodes[a as usize];
        if na.is_leaf() || na.height < 2 {
            return a;
        }
        let (h1, h2) = (
            self.nodes[na.child1 as usize].height,
            self.nodes[na.child2 as usize].height,
        );
        if h2 > h1 + 1 {
            self.rotate_up(a, na.child2, false)
        } else if h1 > h2 + 1 {
            self.rotate_up(a, na.child1, true)
        } else {
            a
        }
    }

    /// Lifts child `c` of `a` into `a`'s place; `a` keeps its other child and takes the
    /// shorter of `c`'s children, `c` keeps the taller one. `c_is_first`: `c` is `child1`.
    fn rotate_up(&mut self, a: u32, c: u32, c_is_first: bool) -> u32 {
        let nc = self.nodes[c as usize];
        let (f, g) = (nc.child1, nc.child2);
        let (hf, hg) = (self.nodes[f as usize].height, self.nodes[g as usize].height);
        let (tall, short) = if hf > hg { (f, g) } else { (g, f) };
        let a_parent = self.nodes[a as usize].parent;

        // `c` takes `a`'s place.
        self.nodes[c as usize].parent = a_parent;
        if a_parent == NULL {
            self.root = c;
        } else {
            let p = &mut self.nodes[a_parent as usize];
            if p.child1 == a {
                p.child1 = c;
            } else {
                p.child2 = c;
            }
        }
        // `a` becomes a child of `c`, with `short` where `c` was.
        {
            let na = &mut self.nodes[a as usize];
            na.parent = c;
            if c_is_first {
                na.child1 = short;
            } else {
                na.child2 = short;
            }
        }
        self.nodes[short as usize].parent = a;
        {
            let nc = &mut self.nodes[c as usize];
            nc.child1 = a;
            nc.child2 = tall;
        }
        // Refit `a`; it can still be unbalanced when the imbalance was more than two (a leaf
        // inserted next to a tall subtree), so balance it in turn, then refit `c`.
        self.refit(a);
        let a = self.balance(a);
        let (na, nt) = (self.nodes[a as usize], self.nodes[tall as usize]);
        self.nodes[c as usize].bbox = na.bbox.union(&nt.bbox);
        self.nodes[c as usize].height = 1 + na.height.max(nt.height);
        c
    }

    /// Box and height of internal node `i` from its children.
    #[inline]
    fn refit(&mut self, i: u32) {
        let n = self.nodes[i as usize];
        let (x, y) = (self.nodes[n.child1 as usize], self.nodes[n.child2 as usize]);
        let node = &mut self.nodes[i as usize];
        node.bbox = x.bbox.union(&y.bbox);
        node.height = 1 + x.height.max(y.height);
    }

    /// Rebuilds the tree from every present item's fat box by median splits (as
    /// [`Bvh`](super::Bvh) does; perfectly balanced), then sets the candidates to exactly the
    /// pairs of overlapping fat boxes by a self-traversal (thesis Algorithm 3).
    fn rebuild(&mut self, boxes: &[Aabb<V>]) {
        self.nodes.clear();
        self.free = NULL;
        self.root = NULL;
        self.candidates.clear();
        let mut items = std::mem::take(&mut self.build_items);
        items.clear();
        for (i, b) in boxes.iter().enumerate() {
            if !is_empty(b) {
                let f = &self.fat[i];
                let mut c = [0.0; 3];
                for (a, x) in c.iter_mut().enumerate().take(V::DIM) {
                    *x = centre_key(f, a);
                }
                items.push((i as u32, c));
            }
        }
        if !items.is_empty() {
            let m = items.len();
            self.root = self.build_range(&mut items, 0, m, NULL);
        }
        self.build_items = items;
        if self.root == NULL || self.nodes[self.root as usize].is_leaf() {
            return;
        }
        let mut stack = std::mem::take(&mut self.pair_stack);
        stack.clear();
        stack.push((self.root, self.root));
        while let Some((a, b)) = stack.pop() {
            let na = self.nodes[a as usize];
            if a == b {
                if !na.is_leaf() {
                    let (l, r) = (na.child1, na.child2);
                    stack.push((l, l));
                    stack.push((r, r));
                    if self.nodes[l as usize]
                        .bbox
                        .overlaps(&self.nodes[r as usize].bbox)
                    {
                        stack.push((l, r));
                    }
                }
                continue;
            }
            let nb = self.nodes[b as usize];
            match (na.is_leaf(), nb.is_leaf()) {
                (true, true) => {
                    let (i, j) = (na.child1, nb.child1);
                    self.fresh.push(if i < j { [i, j] } else { [j, i] });
                }
                (true, false) => {
                    for c in [nb.child1, nb.child2] {
                        if na.bbox.overlaps(&self.nodes[c as usize].bbox) {
                            stack.push((a, c));
                        }
                    }
                }
                (false, true) => {
                    for c in [na.child1, na.child2] {
                        if nb.bbox.overlaps(&self.nodes[c as usize].bbox) {
                            stack.push((c, b));
                        }
                    }
                }
                (false, false) => {
                    for c in [na.child1, na.child2] {
                        let bc = self.nodes[c as usize].bbox;
                        for d in [nb.child1, nb.child2] {
                            if bc.overlaps(&self.nodes[d as usize].bbox) {
                                stack.push((c, d));
                            }
                        }
                    }
                }
            }
        }
        self.pair_stack = stack;
    }

    /// The balanced subtree of `items[lo..hi]` (pre-order in `nodes`); returns its root.
    fn build_range(
        &mut self,
        items: &mut [(u32, [f64; 3])],
        lo: usize,
        hi: usize,
        parent: u32,
    ) -> u32 {
        if hi - lo == 1 {
            let id = items[lo].0;
            let l = self.alloc(Node::leaf(self.fat[id as usize], id, parent));
            self.leaf[id as usize] = l;
            return l;
        }
        let slice = &mut items[lo..hi];
        let mut cmin = slice[0].1;
        let mut cmax = slice[0].1;
        for it in slice.iter() {
            for a in 0..V::DIM {
                cmin[a] = cmin[a].min(it.1[a]);
                cmax[a] = cmax[a].max(it.1[a]);
            }
        }
        let mut axis = 0;
        for a in 1..V::DIM {
            if cmax[a] - cmin[a] > cmax[axis] - cmin[axis] {
                axis = a;
            }
        }
        let mid = slice.len() / 2;
        slice.select_nth_unstable_by(mid, |x, y| x.1[axis].total_cmp(&y.1[axis]));
        let node = self.alloc(Node::leaf(self.fat[items[lo].0 as usize], NULL, parent));
        let c1 = self.build_range(items, lo, lo + mid, node);
        let c2 = self.build_range(items, lo + mid, hi, node);
        let (n1, n2) = (self.nodes[c1 as usize], self.nodes[c2 as usize]);
        self.nodes[node as usize] = Node {
            bbox: n1.bbox.union(&n2.bbox),
            parent,
            child1: c1,
            child2: c2,
            height: 1 + n1.height.max(n2.height),
        };
        node
    }

    /// Adds to the candidates every leaf whose fat box overlaps `item`'s.
    fn query(&mut self, item: u32) {
        let q = self.fat[item as usize];
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        if self.root != NULL {
            stack.push(self.root);
        }
        while let Some(i) = stack.pop() {
            let n = &self.nodes[i as usize];
            if !n.bbox.overlaps(&q) {
                continue;
            }
            if n.is_leaf() {
                let j = n.child1;
                if j != item {
                    self.fresh
                        .push(if item < j { [item, j] } else { [j, item] });
                }
            } else {
                stack.push(n.child1);
                stack.push(n.child2);
            }
        }
        self.stack = stack;
    }

    /// Checks the tree's structure: parent links, heights, boxes holding their children,
    /// balance, and one leaf per present item. For tests.
    pub fn validate(&self) -> Result<(), String> {
        let mut leaves = 0usize;
        if self.root != NULL {
            if self.nodes[self.root as usize].parent != NULL {
                return Err("root has a parent".into());
            }
            let mut stack = vec![self.root];
            while let Some(i) = stack.pop() {
                let n = self.nodes[i as usize];
                if n.is_leaf() {
                    leaves += 1;
                    let item = n.child1 as usize;
                    if n.height != 0
                        || self.leaf.get(item) != Some(&i)
                        || self.fat.get(item) != Some(&n.bbox)
                    {
                        return Err(format!("leaf {i} is inconsistent"));
                    }
                    continue;
                }
                let (a, b) = (self.nodes[n.child1 as usize], self.nodes[n.child2 as usize]);
                if a.parent != i || b.parent != i {
                    return Err(format!("node {i}: child with the wrong parent"));
                }
                if n.height != 1 + a.height.max(b.height) {
                    return Err(format!("node {i}: wrong height"));
                }
                if a.height.abs_diff(b.height) > 1 {
                    return Err(format!("node {i}: unbalanced"));
                }
                if !contains(&n.bbox, &a.bbox) || !contains(&n.bbox, &b.bbox) {
                    return Err(format!("node {i}: box does not hold its children"));
                }
                stack.push(n.child1);
                stack.push(n.child2);
            }
        }
        let present = self.leaf.iter().filter(|&&l| l != NULL).count();
        if present != leaves {
            return Err(format!("{present} items present but {leaves} leaves"));
        }
        Ok(())
    }
}

impl<V: Vector> OverlapFinder<V> for Dbvt<V> {
    fn name(&self) -> &'static str {
        "dbvt"
    }

    fn find_pairs(&mut self, boxes: &[Aabb<V>], out: &mut Vec<[u32; 2]>) {
        out.clear();
        let n = boxes.len();
        self.moved.clear();
        self.gone.clear();
        // Departed items.
        for id in n..self.leaf.len() {
            if self.leaf[id] != NULL {
                self.gone.push(self.leaf[id]);
            }
        }
        self.leaf.resize(n, NULL);
        self.fat.resize(n, Aabb::new(V::ZERO, V::ZERO));
        self.last.resize(n, V::splat(f64::NAN));
        // Which items need a new fat box; the new fat boxes.
        for (i, b) in boxes.iter().enumerate() {
            let l = self.leaf[i];
            if is_empty(b) {
                if l != NULL {
                    self.gone.push(l);
                    self.leaf[i] = NULL;
                }
                self.last[i] = V::splat(f64::NAN);
                continue;
            }
            let c = b.center();
            let d = c - self.last[i];
            self.last[i] = c;
            if l == NULL || !contains(&self.fat[i], b) || self.too_fat(&self.fat[i], b) {
                self.fat[i] = self.fatten(b, d);
                self.moved.push(i as u32);
            }
        }
        self.last_rebuilt =
            (self.moved.len() + self.gone.len()) * REBUILD_FRACTION > n.max(64 * REBUILD_FRACTION);
        if self.last_rebuilt {
            self.rebuild(boxes);
        } else {
            for k in 0..self.gone.len() {
                let l = self.gone[k];
                self.remove_leaf(l);
                self.release(l);
            }
            for k in 0..self.moved.len() {
                let i = self.moved[k];
                let l = self.leaf[i as usize];
                let l = if l == NULL {
                    let l = self.alloc(Node::leaf(self.fat[i as usize], i, NULL));
                    self.leaf[i as usize] = l;
                    l
                } else {
                    self.remove_leaf(l);
                    self.nodes[l as usize].bbox = self.fat[i as usize];
                    l
                };
                self.insert_leaf(l);
            }
            for k in 0..self.moved.len() {
                self.query(self.moved[k]);
            }
        }
        // Merge the new pairs into the sorted candidates, dropping duplicates.
        self.sorter.sort(&mut self.fresh, n);
        self.fresh.dedup();
        self.merged.clear();
        let (old, new) = (&self.candidates, &self.fresh);
        let (mut a, mut b) = (0, 0);
        while a < old.len() || b < new.len() {
            let next = if b == new.len() || (a < old.len() && old[a] < new[b]) {
                a += 1;
                old[a - 1]
            } else {
                if a < old.len() && old[a] == new[b] {
                    a += 1;
                }
                b += 1;
                new[b - 1]
            };
            self.merged.push(next);
        }
        // One pass: keep pairs whose fat boxes overlap, report those whose boxes overlap.
        self.candidates.clear();
        self.fresh.clear();
        let (fat, leaf) = (&self.fat, &self.leaf);
        for &[i, j] in &self.merged {
            let (iu, ju) = (i as usize, j as usize);
            if ju >= n || leaf[iu] == NULL || leaf[ju] == NULL || !fat[iu].overlaps(&fat[ju]) {
                continue;
            }
            self.candidates.push([i, j]);
            if boxes[iu].overlaps(&boxes[ju]) {
                out.push([i, j]);
            }
        }
    }
}
