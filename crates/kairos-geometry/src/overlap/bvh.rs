//! A static median-split bounding-volume hierarchy, rebuilt on every call (thesis section
//! 3.2.3, Algorithm 3).
//!
//! **Build**, top down: a node holds a range of items; it is split at the median of the
//! items' centres along the longest axis of the box of those centres, found by linear-time
//! selection (`select_nth_unstable`), not a sort. Ranges of at most [`LEAF_SIZE`] items are
//! leaves. The tree lives in one array in pre-order (a node's left child is the next node,
//! the right child's index is stored), and the items' boxes are copied in leaf order, so a
//! leaf's boxes are contiguous. Median splits make the depth `ceil(log2(n / LEAF_SIZE))`
//! whatever the input, and the build costs `O(n log n)`.
//!
//! **Pairs**: the self-traversal of Algorithm 3. A node is checked against itself by checking
//! each child against itself and the two children against each other; two nodes are checked
//! against each other only when their boxes overlap, descending into both. Leaves compare
//! their items directly. Cost: `O(n + k)` node visits when few node boxes overlap beyond the
//! `k` overlapping item pairs, `O(n^2)` at worst (everything overlapping everything).
//!
//! The thesis splits on a coordinate chosen per level; splitting on the longest axis of the
//! centres' box (rather than of the node's box) keeps the halves apart even when one huge
//! box makes the node's box a poor guide.

use super::pairs::{centre_key, PairSorter};
use super::{is_empty, OverlapFinder};
use crate::math::{Aabb, Vector};

/// Largest number of items in a leaf.
pub const LEAF_SIZE: usize = 4;

#[derive(Clone, Copy, Debug)]
struct Node<V: Vector> {
    bbox: Aabb<V>,
    /// Internal node: index of the right child. Leaf: first item in the leaf order.
    index: u32,
    /// Number of items of a leaf; 0 for an internal node.
    count: u32,
}

#[derive(Clone, Copy, Debug)]
struct Item {
    id: u32,
    centre: [f64; 3],
}

/// Median-split AABB hierarchy rebuilt from scratch on every call; keeps only scratch memory.
#[derive(Clone, Debug, Default)]
pub struct Bvh<V: Vector> {
    items: Vec<Item>,
    nodes: Vec<Node<V>>,
    /// Boxes in leaf order.
    leaf_boxes: Vec<Aabb<V>>,
    /// Ids in leaf order.
    leaf_ids: Vec<u32>,
    stack: Vec<(u32, u32)>,
    sorter: PairSorter,
}

impl<V: Vector> Bvh<V> {
    /// A finder with empty scratch space.
    pub fn new() -> Self {
        Self {
            items: Vec::new(),
            nodes: Vec::new(),
            leaf_boxes: Vec::new(),
            leaf_ids: Vec::new(),
            stack: Vec::new(),
            sorter: PairSorter::default(),
        }
    }

    /// Builds the subtree of `items[lo..hi]` at the end of `nodes`; returns its index.
    fn build(&mut self, boxes: &[Aabb<V>], lo: usize, hi: usize) -> u32 {
        let node = self.nodes.len() as u32;
        self.nodes.push(Node {
            bbox: boxes[self.items[lo].id as usize],
            index: 0,
            count: 0,
        });
        if hi - lo <= LEAF_SIZE {
            let mut bbox = boxes[self.items[lo].id as usize];
            let first = self.leaf_ids.len() as u32;
            for it in &self.items[lo..hi] {
                let b = boxes[it.id as usize];
                bbox = bbox.union(&b);
                self.leaf_boxes.push(b);
                self.leaf_ids.push(it.id);
            }
            self.nodes[node as usize] = Node {
                bbox,
                index: first,
                count: (hi - lo) as u32,
            };
            return node;
        }
        let slice = &mut self.items[lo..hi];
        let mut cmin = slice[0].centre;
        let mut cmax = slice[0].centre;
        for it in slice.iter() {
            for a in 0..V::DIM {
                cmin[a] = cmin[a].min(it.centre[a]);
                cmax[a] = cmax[a].max(it.centre[a]);
            }
        }
        let mut axis = 0;
        for a in 1..V::DIM {
            if cmax[a] - cmin[a] > cmax[axis] - cmin[axis] {
                axis = a;
            }
        }
        let mid = slice.len() / 2;
        slice.select_nth_unstable_by(mid, |x, y| x.centre[axis].total_cmp(&y.centre[axis]));
        let left = self.build(boxes, lo, lo + mid);
        let right = self.build(boxes, lo + mid, hi);
        let bbox = self.nodes[left as usize]
            .bbox
            .union(&self.nodes[right as usize].bbox);
        self.nodes[node as usize] = Node {
            bbox,
            index: right,
            count: 0,
        };
        node
    }

    /// Every overlapping pair of items of leaf `a` (against itself when `a == b`) and leaf `b`.
    #[inline]
    fn leaf_pairs(&self, a: &Node<V>, b: &Node<V>, same: bool, out: &mut Vec<[u32; 2]>) {
        let (sa, na) = (a.index as usize, a.count as usize);
        let (sb, nb) = (b.index as usize, b.count as usize);
        for x in sa..sa + na {
            let bx = &self.leaf_boxes[x];
            let from = if same { x + 1 } else { sb };
            for y in from..sb + nb {
                if bx.overlaps(&self.leaf_boxes[y]) {
                    let (i, j) = (self.leaf_ids[x], self.leaf_ids[y]);
                    out.push(if i < j { [i, j] } else { [j, i] });
                }
            }
        }
    }

    /// Algorithm 3 from the root, without recursion.
    fn traverse(&mut self, out: &mut Vec<[u32; 2]>) {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push((0, 0));
        while let Some((a, b)) = stack.pop() {
            let na = self.nodes[a as usize];
            if a == b {
                if na.count > 0 {
                    self.leaf_pairs(&na, &na, true, out);
                } else {
                    let (l, r) = (a + 1, na.index);
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
            match (na.count > 0, nb.count > 0) {
                (true, true) => self.leaf_pairs(&na, &nb, false, out),
                (true, false) => {
                    for c in [b + 1, nb.index] {
                        if na.bbox.overlaps(&self.nodes[c as usize].bbox) {
                            stack.push((a, c));
                        }
                    }
                }
                (false, true) => {
                    for c in [a + 1, na.index] {
                        if nb.bbox.overlaps(&self.nodes[c as usize].bbox) {
                            stack.push((c, b));
                        }
                    }
                }
                (false, false) => {
                    for c in [a + 1, na.index] {
                        let bc = self.nodes[c as usize].bbox;
                        for d in [b + 1, nb.index] {
                            if bc.overlaps(&self.nodes[d as usize].bbox) {
                                stack.push((c, d));
                            }
                        }
                    }
                }
            }
        }
        self.stack = stack;
    }
}

impl<V: Vector> OverlapFinder<V> for Bvh<V> {
    fn name(&self) -> &'static str {
        "bvh"
    }

    fn find_pairs(&mut self, boxes: &[Aabb<V>], out: &mut Vec<[u32; 2]>) {
        out.clear();
        self.items.clear();
        for (i, b) in boxes.iter().enumerate() {
            if !is_empty(b) {
                let mut centre = [0.0; 3];
                for (a, c) in centre.iter_mut().enumerate().take(V::DIM) {
                    *c = centre_key(b, a);
                }
                self.items.push(Item {
                    id: i as u32,
                    centre,
                });
            }
        }
        if self.items.len() < 2 {
            return;
        }
        self.nodes.clear();
        self.leaf_boxes.clear();
        self.leaf_ids.clear();
        let n = self.items.len();
        self.build(boxes, 0, n);
        self.traverse(out);
        self.sorter.sort(out, boxes.len());
    }
}
