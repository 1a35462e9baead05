//! Kaya's adaptive-time-step swept-AABB hierarchy (thesis chapter 4, Algorithm 4).
//!
//! For every event the hierarchy is rebuilt top-down by median split (the axis cycles with the
//! level, the median is found by linear-time selection, and the tree lives in one array in
//! pre-order with no pointers). Each leaf box covers its ball from `now` to `now + dt`. The
//! pair traversal of Algorithm 3 hands overlapping leaves to the narrow phase, which keeps only
//! contacts no later than `now + dt`. When nothing is found, `dt` is multiplied by `grow` and
//! the hierarchy is refitted bottom-up (Update Hierarchy) before searching again; after an
//! event is found `dt` is multiplied by `shrink`.
//!
//! In a periodic box, boxes are compared through the minimum image of their centres' offset,
//! and the earliest box crossing (an `O(n)` scan) competes with the contacts found.
//!
//! Walls are not leaves of the hierarchy (it is rebuilt per event and walls never move): each
//! wall's static box is queried against the hierarchy from the root, and every leaf it
//! overlaps gets a ball-wall narrow-phase test with the same `now + dt` limit.

use super::{earliest_box_crossing, BroadPhase};
use crate::body::Body;
use crate::event::{EarliestEvent, Event};
use crate::math::{Aabb, Vector};
use crate::names::BadOption;
use crate::world::World;

/// Relative padding of every box, far above round-off, so that a pair whose computed contact
/// time lies within the look-ahead can never be pruned by a box test rounded the other way.
pub(crate) const PAD_REL: f64 = 1e-9;
/// Smallest look-ahead; keeps `dt` from underflowing to zero after many simultaneous events.
pub(crate) const MIN_DT: f64 = 1e-300;

/// Parameters of [`KayaBvh`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KayaBvhOptions {
    /// Look-ahead of the first search, `> 0`.
    pub initial_dt: f64,
    /// Factor applied to `dt` when a search finds nothing, `> 1` (thesis: 2).
    pub grow: f64,
    /// Factor applied to `dt` after an event is found, in `(0, 1]` (thesis: 1/2).
    pub shrink: f64,
}

impl Default for KayaBvhOptions {
    fn default() -> Self {
        Self {
            initial_dt: 1e-3,
            grow: 2.0,
            shrink: 0.5,
        }
    }
}

impl KayaBvhOptions {
    /// Checks the ranges documented on the fields.
    pub fn validate(&self) -> Result<(), BadOption> {
        let dt = self.initial_dt;
        BadOption::check(
            dt > 0.0 && dt.is_finite(),
            "initial dt",
            "positive and finite",
            dt,
        )?;
        let grow = self.grow;
        BadOption::check(
            grow > 1.0 && grow.is_finite(),
            "grow",
            "greater than 1",
            grow,
        )?;
        let shrink = self.shrink;
        BadOption::check(shrink > 0.0 && shrink <= 1.0, "shrink", "in (0, 1]", shrink)
    }
}

const INTERNAL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node<V: Vector> {
    bbox: Aabb<V>,
    /// Index of the right child (the left child is the next node); unused for leaves.
    right: u32,
    /// Body of a leaf, [`INTERNAL`] otherwise.
    body: u32,
}

/// The thesis's broad phase; see the [module documentation](self).
#[derive(Clone, Debug)]
pub struct KayaBvh<V: Vector> {
    opts: KayaBvhOptions,
    dt: f64,
    found_dt: f64,
    nodes: Vec<Node<V>>,
    items: Vec<Item>,
    /// The walls' padded boxes (walls never move), built on first use.
    wall_boxes: Vec<Aabb<V>>,
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
    /// When `opts` is out of range ([`KayaBvhOptions::validate`]).
    pub fn new(opts: KayaBvhOptions) -> Self {
        if let Err(e) = opts.validate() {
            panic!("invalid KayaBvhOptions: {e}");
        }
        Self {
            opts,
            dt: opts.initial_dt,
            found_dt: 0.0,
            nodes: Vec::new(),
            items: Vec::new(),
            wall_boxes: Vec::new(),
        }
    }

    /// Construct Hierarchy: median split, top-down, leaves covering `[now, now + dt]`.
    fn build(&mut self, bodies: &[Body<V>], now: f64) {
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
            item.key = bodies[item.id as usize].position_at(now).to_array3();
        }
        build_recursive(&mut self.nodes, &mut self.items, bodies, now, self.dt, 0, 0);
    }

    /// Update Hierarchy: refits every box bottom-up for the current `dt`.
    fn refit(&mut self, bodies: &[Body<V>], now: f64) {
        // Children follow their parent in pre-order, so a reverse sweep visits them first.
        for idx in (0..self.nodes.len()).rev() {
            let node = self.nodes[idx];
            self.nodes[idx].bbox = if node.body != INTERNAL {
                leaf_box(&bodies[node.body as usize], now, self.dt)
            } else {
                self.nodes[idx + 1]
                    .bbox
                    .union(&self.nodes[node.right as usize].bbox)
            };
        }
    }
}

/// The box of a ball swept from `now` to `now + dt`, padded against round-off.
#[inline]
pub(crate) fn leaf_box<V: Vector>(b: &Body<V>, now: f64, dt: f64) -> Aabb<V> {
    let p0 = b.position_at(now);
    let p1 = p0 + b.vel * dt;
    if !p1.is_finite() {
        return Aabb::new(V::splat(f64::NEG_INFINITY), V::splat(f64::INFINITY));
    }
    let pad = b.radius + PAD_REL * (b.radius + p0.max_abs() + p1.max_abs());
    Aabb::from_points(p0, p1).expanded(pad)
}

/// A wall's static box, padded against round-off like the leaves. Planes have infinite
/// boxes: the padding comes from the finite coordinates only.
pub(crate) fn padded_wall_box<V: Vector>(w: &crate::wall::Wall<V>) -> Aabb<V> {
    let b = w.aabb();
    let (lo, hi) = (b.min.to_array3(), b.max.to_array3());
    let scale = lo
        .iter()
        .chain(&hi)
        .filter(|x| x.is_finite())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    b.expanded(PAD_REL * scale)
}

/// Builds the subtree of `items` (a sub-slice) rooted at node `idx`: split at the median of
/// axis `level % DIM`, left half first (`items[..mid]`), right half holding the median.
fn build_recursive<V: Vector>(
    nodes: &mut [Node<V>],
    items: &mut [Item],
    bodies: &[Body<V>],
    now: f64,
    dt: f64,
    idx: usize,
    level: usize,
) -> Aabb<V> {
    if items.len() == 1 {
        let b = items[0].id;
        let bbox = leaf_box(&bodies[b as usize], now, dt);
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
    let l = build_recursive(nodes, left_items, bodies, now, dt, idx + 1, level + 1);
    let r = build_recursive(nodes, right_items, bodies, now, dt, right, level + 1);
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
        let m = c - len * (c / len).round();
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
            (true, true) => self.offer(self.world.pair_event(nx.body, ny.body)),
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
            self.offer(self.world.wall_event(node.body, w));
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
        self.build(&world.bodies, now);
        if self.wall_boxes.len() != world.walls.len() {
            self.wall_boxes = world.walls.iter().map(padded_wall_box).collect();
        }
        let wall_boxes = std::mem::take(&mut self.wall_boxes);
        // Box crossings (periodic boundary) are per body: the earliest one, found in O(n).
        let box_crossing = earliest_box_crossing(world);
        let found = loop {
            let limit = (now + self.dt).min(horizon);
            let mut search = Search {
                nodes: &self.nodes,
                world,
                limit,
                best: EarliestEvent::new(),
            };
            search.check(0);
            for (w, wbox) in wall_boxes.iter().enumerate() {
                search.check_wall(0, w as u32, wbox);
            }
            search.offer(box_crossing);
            if let Some(e) = search.best.get() {
                self.found_dt = self.dt;
                self.dt = (self.dt * self.opts.shrink).max(MIN_DT);
                break Some(e);
            }
            if now + self.dt >= horizon {
                break None;
            }
            self.dt *= self.opts.grow;
            self.refit(&world.bodies, now);
        };
        self.wall_boxes = wall_boxes;
        found
    }

    fn lookahead(&self) -> f64 {
        self.found_dt
    }
}
