//! Kaya's swept-AABB hierarchy (thesis chapter 4): the [look-ahead](super::look_ahead)'s
//! swept boxes in a bounding volume hierarchy.
//!
//! For every event the hierarchy is rebuilt top-down by median split (the axis cycles with the
//! level, the median is found by linear-time selection, and the tree lives in one array in
//! pre-order with no pointers); its leaves are the bodies' boxes swept over the look-ahead
//! window. The pair traversal of Algorithm 3 hands overlapping leaves to the narrow phase.
//! When the look-ahead grows its window, the hierarchy is refitted bottom-up (Update
//! Hierarchy) before searching again.
//!
//! In a periodic box, boxes are compared through the minimum image of their centres' offset,
//! and the earliest box crossing (an `O(n)` scan) competes with the contacts found.
//!
//! Walls are not leaves of the hierarchy (it is rebuilt per event and walls never move): each
//! wall's static box is queried against the hierarchy from the root, and every leaf it
//! overlaps gets a ball-wall narrow-phase test with the same window.

use super::look_ahead::{padded_wall_box, swept_box, LookAhead, LookAheadOptions, PAD_REL};
use super::{earliest_box_crossing, BroadPhase};
use crate::body::Body;
use crate::event::{EarliestEvent, Event};
use crate::math::{nearest_image, Aabb, Vector};
use crate::world::{Gravity, World};

const INTERNAL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node<V: Vector> {
    bbox: Aabb<V>,
    /// Index of the right child (the left child is the next node); unused for leaves.
    right: u32,
    /// Body of a leaf, [`INTERNAL`] otherwise.
    body: u32,
}

/// The thesis's broad phase; how it works is in the module documentation of
/// `broad_phase/kaya_bvh.rs`.
#[derive(Clone, Debug)]
pub struct KayaBvh<V: Vector> {
    look_ahead: LookAhead,
    tree: Tree<V>,
    /// The walls' padded boxes (walls never move), built on first use.
    wall_boxes: Vec<Aabb<V>>,
}

/// The hierarchy over the bodies' swept boxes.
#[derive(Clone, Debug)]
struct Tree<V: Vector> {
    nodes: Vec<Node<V>>,
    items: Vec<Item>,
}

/// A body as seen by the median split: its position at `now` (the split key) and its id.
/// Partitioning these compact values in place keeps the selection cache-friendly.
#[derive(Clone, Copy, Debug)]
struct Item {
    key: [f64; 3],
    id: u32,
}

impl<V: Vector> KayaBvh<V> {
    /// A new broad phase.
    ///
    /// # Panics
    /// When `opts` is out of range ([`LookAheadOptions::validate`]).
    pub fn new(opts: LookAheadOptions) -> Self {
        Self {
            look_ahead: LookAhead::new(opts),
            tree: Tree {
                nodes: Vec::new(),
                items: Vec::new(),
            },
            wall_boxes: Vec::new(),
        }
    }
}

impl<V: Vector> Tree<V> {
    /// Construct Hierarchy: median split, top-down, leaves covering `[now, now + dt]`.
    fn build(&mut self, bodies: &[Body<V>], grav: Gravity<'_, V>, now: f64, dt: f64) {
        let n = bodies.len();
        let dummy = Node {
            bbox: Aabb::new(V::ZERO, V::ZERO),
            right: 0,
            body: INTERNAL,
        };
        self.nodes.clear();
        self.nodes.resize(2 * n - 1, dummy);
        // The items keep the order of the previous build: bodies move little between events,
        // so the previous partition is nearly right and the selections run on nearly ordered
        // data. Only the keys are refreshed. (The tree's shape never changes the result.)
        if self.items.len() != n {
            self.items.clear();
            self.items
                .extend((0..n as u32).map(|id| Item { key: [0.0; 3], id }));
        }
        for item in &mut self.items {
            let i = item.id as usize;
            item.key = bodies[i].state_at_accel(now, grav.of(i)).0.to_array3();
        }
        build_recursive(
            &mut self.nodes,
            &mut self.items,
            bodies,
            grav,
            now,
            dt,
            0,
            0,
        );
    }

    /// Update Hierarchy: refits every box bottom-up for the current `dt`.
    fn refit(&mut self, bodies: &[Body<V>], grav: Gravity<'_, V>, now: f64, dt: f64) {
        // Children follow their parent in pre-order, so a reverse sweep visits them first.
        for idx in (0..self.nodes.len()).rev() {
            let node = self.nodes[idx];
            self.nodes[idx].bbox = if node.body != INTERNAL {
                let i = node.body as usize;
                swept_box(&bodies[i], grav.of(i), now, dt)
            } else {
                self.nodes[idx + 1]
                    .bbox
                    .union(&self.nodes[node.right as usize].bbox)
            };
        }
    }
}

/// Builds the subtree of `items` (a sub-slice) rooted at node `idx`: split at the median of
/// axis `level % DIM`, left half first (`items[..mid]`), right half holding the median.
#[allow(clippy::too_many_arguments)]
fn build_recursive<V: Vector>(
    nodes: &mut [Node<V>],
    items: &mut [Item],
    bodies: &[Body<V>],
    grav: Gravity<'_, V>,
    now: f64,
    dt: f64,
    idx: usize,
    level: usize,
) -> Aabb<V> {
    if items.len() == 1 {
        let b = items[0].id;
        let bbox = swept_box(&bodies[b as usize], grav.of(b as usize), now, dt);
        nodes[idx] = Node {
            bbox,
            right: 0,
            body: b,
        };
        return bbox;
    }
    let mid = items.len() / 2;
    let axis = level % V::DIM;
    items.select_nth_unstable_by(mid, |x, y| x.key[axis].total_cmp(&y.key[axis]));
    let right = idx + 2 * mid;
    let (left_items, right_items) = items.split_at_mut(mid);
    let l = build_recursive(nodes, left_items, bodies, grav, now, dt, idx + 1, level + 1);
    let r = build_recursive(nodes, right_items, bodies, grav, now, dt, right, level + 1);
    let bbox = l.union(&r);
    nodes[idx] = Node {
        bbox,
        right: right as u32,
        body: INTERNAL,
    };
    bbox
}

/// One search of the hierarchy with a fixed time limit.
struct Search<'a, V: Vector> {
    nodes: &'a [Node<V>],
    world: &'a World<V>,
    limit: f64,
    best: EarliestEvent,
}

/// True when two boxes overlap in a periodic box of lengths `l`: along every axis, the
/// minimum image of the offset between their centres is within their half-lengths' sum.
#[inline]
fn overlaps_periodic<V: Vector>(a: &Aabb<V>, b: &Aabb<V>, l: V) -> bool {
    (0..V::DIM).all(|axis| {
        let (la, ha) = (a.min.comp(axis), a.max.comp(axis));
        let (lb, hb) = (b.min.comp(axis), b.max.comp(axis));
        let len = l.comp(axis);
        let c = 0.5 * ((la + ha) - (lb + hb));
        let m = nearest_image(c, len);
        m.abs() <= 0.5 * ((ha - la) + (hb - lb)) + PAD_REL * len
    })
}

impl<V: Vector> Search<'_, V> {
    #[inline]
    fn overlaps(&self, a: &Aabb<V>, b: &Aabb<V>) -> bool {
        match self.world.period {
            None => a.overlaps(b),
            Some(l) => overlaps_periodic(a, b, l),
        }
    }

    #[inline]
    fn offer(&mut self, e: Option<Event>) {
        if let Some(e) = e {
            if e.time <= self.limit && e.time <= self.best.time() {
                self.best.offer(e);
            }
        }
    }

    /// BVH Collision Check (Algorithm 3).
    fn check(&mut self, idx: usize) {
        let node = self.nodes[idx];
        if node.body != INTERNAL {
            return;
        }
        let (l, r) = (idx + 1, node.right as usize);
        self.check_pair(l, r);
        self.check(l);
        self.check(r);
    }

    /// BVH Collision Check Pair (Algorithm 3).
    fn check_pair(&mut self, x: usize, y: usize) {
        let (nx, ny) = (self.nodes[x], self.nodes[y]);
        if !self.overlaps(&nx.bbox, &ny.bbox) {
            return;
        }
        match (nx.body != INTERNAL, ny.body != INTERNAL) {
            (true, true) => {
                let bound = self.limit.min(self.best.time());
                self.offer(self.world.pair_event_by(nx.body, ny.body, bound))
            }
            (true, false) => {
                self.check_pair(x, y + 1);
                self.check_pair(x, ny.right as usize);
            }
            (false, true) => {
                self.check_pair(x + 1, y);
                self.check_pair(nx.right as usize, y);
            }
            (false, false) => {
                let (xl, xr, yl, yr) = (x + 1, nx.right as usize, y + 1, ny.right as usize);
                self.check_pair(xl, yl);
                self.check_pair(xl, yr);
                self.check_pair(xr, yl);
                self.check_pair(xr, yr);
            }
        }
    }

    /// Tests wall `w` (with box `wbox`) against every leaf of the subtree `idx` it overlaps.
    fn check_wall(&mut self, idx: usize, w: u32, wbox: &Aabb<V>) {
        let node = self.nodes[idx];
        if !self.overlaps(&node.bbox, wbox) {
            return;
        }
        if node.body != INTERNAL {
            let bound = self.limit.min(self.best.time());
            self.offer(self.world.wall_event_by(node.body, w, bound));
        } else {
            self.check_wall(idx + 1, w, wbox);
            self.check_wall(node.right as usize, w, wbox);
        }
    }
}

impl<V: Vector> BroadPhase<V> for KayaBvh<V> {
    fn name(&self) -> &'static str {
        "kaya-bvh"
    }

    fn next_event(&mut self, world: &World<V>, now: f64, horizon: f64) -> Option<Event> {
        if world.bodies.is_empty() {
            return None;
        }
        if self.wall_boxes.len() != world.walls.len() {
            self.wall_boxes = world.walls.iter().map(padded_wall_box).collect();
        }
        // Box crossings (periodic boundary) are per body: the earliest one, found in O(n).
        let box_crossing = earliest_box_crossing(world);
        let (tree, wall_boxes) = (&mut self.tree, &self.wall_boxes);
        self.look_ahead.next_event(now, horizon, |window| {
            if window.first {
                tree.build(&world.bodies, world.gravity_view(), now, window.dt);
            } else {
                tree.refit(&world.bodies, world.gravity_view(), now, window.dt);
            }
            let mut search = Search {
                nodes: &tree.nodes,
                world,
                limit: window.end,
                best: EarliestEvent::new(),
            };
            search.check(0);
            for (w, wbox) in wall_boxes.iter().enumerate() {
                search.check_wall(0, w as u32, wbox);
            }
            search.offer(box_crossing);
            search.best.get()
        })
    }

    fn lookahead(&self) -> f64 {
        self.look_ahead.found_dt()
    }
}
