//! Continuous-time sweep and prune and uniform grid: the thesis's future work (chapter 6).
//!
//! The thesis adapted bounding volume hierarchies to continuous time with one idea, the
//! [look-ahead](super::look_ahead): cover each body by the box it sweeps over an adaptive
//! window `[now, now + dt]`. The same idea turns *any* discrete broad phase into a continuous
//! one, and this module does exactly that: the swept boxes are handed to a discrete
//! [`OverlapFinder`], and every pair it reports goes to the exact narrow phase with the
//! window's end as time limit.
//!
//! * `sap`: the incremental sweep and prune of [`crate::overlap`]. Its sorted endpoint lists
//!   persist from one search to the next, and between two events the swept boxes change
//!   little (only the bodies of the last event jump), so insertion sort does almost no work.
//! * `grid`: the spatial hash of [`crate::overlap`], cells sized from the swept boxes.
//!
//! In a periodic box, the look-ahead's window never passes the earliest box crossing (that
//! crossing would be the next event anyway), so every swept box stays within one contact
//! distance of the box; a box that sticks out of a face gets an image shifted by the box
//! length, and pairs found through images are mapped back to their bodies. Walls are few and
//! static: each wall's box is tested against every swept box.
//!
//! Only pruning differs from `all-pairs`: contact times come from the same pure functions and
//! the earliest event is chosen by the same total order, so event logs are bit-identical.

use super::look_ahead::{padded_wall_box, swept_box, LookAhead, LookAheadOptions};
use super::{earliest_box_crossing, BroadPhase};
use crate::event::{EarliestEvent, Event};
use crate::math::{Aabb, Vector};
use crate::overlap::{OverlapFinder, OverlapKind};
use crate::world::World;

/// A continuous broad phase built from a discrete [`OverlapFinder`] over swept boxes with an
/// adaptive look-ahead; how it works is in the module documentation of `broad_phase/swept.rs`.
pub struct SweptBoxes<V: Vector> {
    name: &'static str,
    look_ahead: LookAhead,
    candidates: Candidates<V>,
}

/// The boxes of one search and the finder that pairs them.
struct Candidates<V: Vector> {
    finder: Box<dyn OverlapFinder<V>>,
    boxes: Vec<Aabb<V>>,
    /// The body of each box (bodies first, then periodic images).
    owners: Vec<u32>,
    pairs: Vec<[u32; 2]>,
    wall_boxes: Vec<Aabb<V>>,
}

impl<V: Vector> SweptBoxes<V> {
    /// A continuous broad phase over the discrete finder `kind`, with the look-ahead
    /// parameters of the thesis (`opts`: first `dt`, growth and shrink factors), named `name`.
    ///
    /// # Panics
    /// When `opts` is out of range ([`LookAheadOptions::validate`]).
    pub fn new(name: &'static str, kind: OverlapKind, opts: LookAheadOptions) -> Self {
        Self {
            name,
            look_ahead: LookAhead::new(opts),
            candidates: Candidates {
                finder: kind.build(),
                boxes: Vec::new(),
                owners: Vec::new(),
                pairs: Vec::new(),
                wall_boxes: Vec::new(),
            },
        }
    }
}

impl<V: Vector> Candidates<V> {
    /// Swept boxes of every body over `[now, now + span]`, plus periodic images.
    fn fill_boxes(&mut self, world: &World<V>, now: f64, span: f64) {
        let n = world.bodies.len();
        self.boxes.clear();
        self.boxes.extend(
            world
                .bodies
                .iter()
                .enumerate()
                .map(|(i, b)| swept_box(b, world.gravity_view().of(i), now, span)),
        );
        self.owners.clear();
        self.owners.extend(0..n as u32);
        let Some(l) = world.period else {
            return;
        };
        for i in 0..n {
            let b = self.boxes[i];
            // Per axis, the shifts that bring the parts sticking out of the box inside.
            let mut shifts = [[0.0f64; 3]; 3];
            let mut counts = [1usize; 3];
            for axis in 0..V::DIM {
                let len = l.comp(axis);
                if b.min.comp(axis) < 0.0 {
                    shifts[axis][counts[axis]] = len;
                    counts[axis] += 1;
                }
                if b.max.comp(axis) > len {
                    shifts[axis][counts[axis]] = -len;
                    counts[axis] += 1;
                }
            }
            if counts.iter().take(V::DIM).all(|&c| c == 1) {
                continue;
            }
            let (cx, cy, cz) = (
                counts[0],
                counts[1],
                if V::DIM == 3 { counts[2] } else { 1 },
            );
            for ix in 0..cx {
                for iy in 0..cy {
                    for iz in 0..cz {
                        if ix == 0 && iy == 0 && iz == 0 {
                            continue;
                        }
                        let s = [shifts[0][ix], shifts[1][iy], shifts[2][iz]];
                        let s = V::from_array3(s);
                        self.boxes.push(Aabb::new(b.min + s, b.max + s));
                        self.owners.push(i as u32);
                    }
                }
            }
        }
    }

    /// One search with the time limit `limit`: every pair and wall whose swept boxes overlap
    /// goes to the narrow phase.
    fn search(&mut self, world: &World<V>, limit: f64, best: &mut EarliestEvent) {
        let offer = |best: &mut EarliestEvent, e: Option<Event>| {
            if let Some(e) = e {
                if e.time <= limit {
                    best.offer(e);
                }
            }
        };
        self.finder.find_pairs(&self.boxes, &mut self.pairs);
        let n = world.bodies.len();
        if self.boxes.len() > n {
            // Pairs through periodic images: map to bodies, drop self pairs and duplicates.
            for p in &mut self.pairs {
                let (i, j) = (self.owners[p[0] as usize], self.owners[p[1] as usize]);
                *p = [i.min(j), i.max(j)];
            }
            self.pairs.retain(|p| p[0] != p[1]);
            self.pairs.sort_unstable();
            self.pairs.dedup();
        }
        for &[i, j] in &self.pairs {
            let bound = limit.min(best.time());
            offer(best, world.pair_event_by(i, j, bound));
        }
        for (w, wbox) in self.wall_boxes.iter().enumerate() {
            for (i, b) in self.boxes[..n].iter().enumerate() {
                if b.overlaps(wbox) {
                    let bound = limit.min(best.time());
                    offer(best, world.wall_event_by(i as u32, w as u32, bound));
                }
            }
        }
    }
}

impl<V: Vector> BroadPhase<V> for SweptBoxes<V> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn next_event(&mut self, world: &World<V>, now: f64, horizon: f64) -> Option<Event> {
        if world.bodies.is_empty() {
            return None;
        }
        let candidates = &mut self.candidates;
        if candidates.wall_boxes.len() != world.walls.len() {
            candidates.wall_boxes = world.walls.iter().map(padded_wall_box).collect();
        }
        let box_crossing = earliest_box_crossing(world);
        let cap = box_crossing.map_or(horizon, |e| e.time.min(horizon));
        self.look_ahead.next_event(now, cap, |window| {
            let limit = window.end;
            candidates.fill_boxes(world, now, limit - now);
            let mut best = EarliestEvent::new();
            candidates.search(world, limit, &mut best);
            if let Some(e) = box_crossing {
                if e.time <= limit && e.time <= horizon {
                    best.offer(e);
                }
            }
            best.get()
        })
    }

    fn lookahead(&self) -> f64 {
        self.look_ahead.found_dt()
    }
}
