//! A dynamic AABB tree of fattened boxes (the design of Box2D's `b2DynamicTree` and Bullet's
//! `btDbvt`; the seed article's "dynamic bounding volume trees").
//!
//! Each item is a leaf holding a **fat box**: its box grown by a margin (a fraction of its
//! size plus a constant), optionally stretched along its last displacement. A call re-inserts
//! only the items whose box left their fat box (or whose fat box became far too large), so
//! when few items move the tree barely changes.
//!
//! * **Insertion** picks the sibling that minimises the total surface area of the tree's
//!   boxes (perimeter in 2D): the cost of pairing the new leaf with node `x` is the area of
//!   `x` joined with the leaf plus the area every ancestor of `x` grows by. A branch-and-bound
//!   search (Bittner, Hapala and Havran, *Fast insertion-based optimization of bounding volume
//!   hierarchies*, 2013) visits nodes by increasing inherited cost and prunes a subtree once
//!   the leaf's own area plus that cost reaches the best complete cost found.
//! * **Balancing**: walking up after an insertion or a removal, a node whose children's
//!   heights differ by more than one is rotated (AVL style, as `b2DynamicTree::Balance`): the
//!   taller child takes its place and keeps its own taller child, the node takes the shorter
//!   one. A leaf inserted beside a tall subtree leaves an imbalance larger than two, which
//!   one rotation cannot repair (Box2D lets it be); here the demoted node is balanced in turn,
//!   so the tree stays strictly AVL-balanced: height at most about `1.44 log2 n`.
//! * **Pairs**: the tree keeps a persistent set of *candidate* pairs, a superset of the pairs
//!   whose fat boxes overlap. Each re-inserted item queries the tree with its new fat box
//!   and adds what it finds. Every call then walks the candidates once: pairs whose fat boxes
//!   no longer overlap are dropped, and the pairs whose exact (tight) boxes overlap are the
//!   answer. A pair overlapping now has overlapping fat boxes; whichever of its two items was
//!   inserted last found the other (all re-insertions happen before any query), and it was
//!   kept since, because its fat boxes never stopped overlapping. So the answer is exact.
//!
//! Cost per call: `O(n)` to check every box against its fat box, `O(m log n)` expected for
//! `m` re-inserted items (insertion, balancing, query), `O(c)` for the `c` candidates; the
//! tree and the candidates are `O(n + c)` memory.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::pairs::{key_pair, pair_key, PairSet, PairSorter};
use super::{is_empty, OverlapFinder};
use crate::math::{Aabb, Vector};

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
            displacement_factor: 2.0,
        }
    }
}

impl DbvtOptions {
    /// Checks the ranges documented on the fields.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("margin_relative", self.margin_relative),
            ("margin_absolute", self.margin_absolute),
            ("displacement_factor", self.displacement_factor),
        ] {
            if !(v >= 0.0 && v.is_finite()) {
                return Err(format!("{name} must be finite and >= 0, got {v}"));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug)]
struct Node<V: Vector> {
    /// Fat box of a leaf; union of the children's boxes otherwise.
    bbox: Aabb<V>,
    /// Parent, or the next free node while the node is free.
    parent: u32,
    child1: u32,
    /// [`NULL`] for a leaf.
    child2: u32,
    /// 0 for a leaf.
    height: u32,
    /// The item of a leaf.
    item: u32,
}

impl<V: Vector> Node<V> {
    #[inline]
    fn is_leaf(&self) -> bool {
        self.child2 == NULL
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

/// A non-negative cost as a heap key (the bits of non-negative floats order like the values;
/// NaN, only from infinite areas, counts as `+inf`).
#[inline]
fn cost_key(c: f64) -> u64 {
    if c >= 0.0 {
        c.to_bits()
    } else if c.is_nan() {
        f64::INFINITY.to_bits()
    } else {
        0
    }
}

/// Dynamic AABB tree with fat boxes, incremental re-insertion and a persistent candidate set.
#[derive(Clone, Debug)]
pub struct Dbvt<V: Vector> {
    opts: DbvtOptions,
    nodes: Vec<Node<V>>,
    free: u32,
    root: u32,
    /// Leaf of each item, [`NULL`] when absent (empty box).
    leaf: Vec<u32>,
    /// Each item's box at its last insertion (for the displacement).
    inserted: Vec<Aabb<V>>,
    moved: Vec<u32>,
    candidates: PairSet,
    stack: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
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
            inserted: Vec::new(),
            moved: Vec::new(),
            candidates: PairSet::default(),
            stack: Vec::new(),
            heap: BinaryHeap::new(),
            sorter: PairSorter::default(),
        }
    }

    /// Items re-inserted by the last call (entering, moved out of their fat box, or with a
    /// fat box far too large).
    pub fn last_moved(&self) -> usize {
        self.moved.len()
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

    /// The fat box of `b`, given its box `prev` at the last insertion (if any).
    fn fatten(&self, b: &Aabb<V>, prev: Option<&Aabb<V>>) -> Aabb<V> {
        let mut fat = b.expanded(self.margin(b));
        if let Some(p) = prev {
            if self.opts.displacement_factor > 0.0 {
                let d = b.center() - p.center();
                // A jump longer than the box itself is a teleport, not motion to predict.
                let size = (b.max - b.min).max_abs();
                if d.is_finite() && d.max_abs() <= size {
                    let d = d * self.opts.displacement_factor;
                    let ahead = Aabb::new(fat.min + d, fat.max + d);
                    fat = fat.union(&ahead);
                }
            }
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

    /// The node that, as the new leaf's sibling, adds the least total area (branch and bound).
    fn best_sibling(&mut self, b: &Aabb<V>) -> u32 {
        let leaf_area = area(b);
        let mut best = self.root;
        let mut best_cost = area(&self.nodes[self.root as usize].bbox.union(b));
        self.heap.clear();
        self.heap.push(Reverse((0, self.root)));
        while let Some(Reverse((inherited_key, i))) = self.heap.pop() {
            let inherited = f64::from_bits(inherited_key);
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
            // Every node below pays at least this much: its ancestors' growth plus the leaf.
            let child_inherited = inherited + (direct - area(&node.bbox));
            if leaf_area + child_inherited < best_cost {
                let k = cost_key(child_inherited);
                self.heap.push(Reverse((k, node.child1)));
                self.heap.push(Reverse((k, node.child2)));
            }
        }
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
            item: NULL,
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

    /// Adds to the candidates every leaf whose fat box overlaps `item`'s.
    fn query(&mut self, item: u32) {
        let q = self.nodes[self.leaf[item as usize] as usize].bbox;
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
                if n.item != item {
                    self.candidates.insert(pair_key(item, n.item));
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
                    if n.height != 0 || self.leaf.get(n.item as usize) != Some(&i) {
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
        // Departed items.
        for id in n..self.leaf.len() {
            let l = self.leaf[id];
            if l != NULL {
                self.remove_leaf(l);
                self.release(l);
            }
        }
        self.leaf.resize(n, NULL);
        self.inserted.resize(n, Aabb::new(V::ZERO, V::ZERO));
        for (i, b) in boxes.iter().enumerate() {
            let l = self.leaf[i];
            if is_empty(b) {
                if l != NULL {
                    self.remove_leaf(l);
                    self.release(l);
                    self.leaf[i] = NULL;
                }
                continue;
            }
            if l == NULL {
                let fat = self.fatten(b, None);
                let l = self.alloc(Node {
                    bbox: fat,
                    parent: NULL,
                    child1: NULL,
                    child2: NULL,
                    height: 0,
                    item: i as u32,
                });
                self.leaf[i] = l;
                self.inserted[i] = *b;
                self.insert_leaf(l);
                self.moved.push(i as u32);
                continue;
            }
            let fat = self.nodes[l as usize].bbox;
            if contains(&fat, b) && !self.too_fat(&fat, b) {
                continue;
            }
            self.remove_leaf(l);
            let prev = self.inserted[i];
            self.nodes[l as usize].bbox = self.fatten(b, Some(&prev));
            self.inserted[i] = *b;
            self.insert_leaf(l);
            self.moved.push(i as u32);
        }
        for k in 0..self.moved.len() {
            self.query(self.moved[k]);
        }
        let (nodes, leaf) = (&self.nodes, &self.leaf);
        self.candidates.retain(|&k| {
            let [i, j] = key_pair(k);
            let (li, lj) = match (leaf.get(i as usize), leaf.get(j as usize)) {
                (Some(&li), Some(&lj)) if li != NULL && lj != NULL => (li, lj),
                _ => return false,
            };
            if !nodes[li as usize].bbox.overlaps(&nodes[lj as usize].bbox) {
                return false;
            }
            if boxes[i as usize].overlaps(&boxes[j as usize]) {
                out.push([i, j]);
            }
            true
        });
        self.sorter.sort(out, n);
    }
}
