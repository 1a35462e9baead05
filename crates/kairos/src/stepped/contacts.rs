//! The stepped engine's contacts: the pairs' manifolds at the current poses, a plane's
//! points, and each point's arms, masses and biases for the solver.

use super::rows::along;
use super::*;
use crate::query::sat::SatCache;

impl<V: Vector> SteppedSim<V> {
    /// The pose of body `i`'s shape frame now.
    pub(super) fn pose(&self, i: usize) -> Pose<V> {
        let b = &self.bodies[i];
        self.world.rigid[i].shape_pose(b.position, b.rotation)
    }

    /// Body `i`'s pieces: (piece index, shape).
    pub(super) fn pieces(&self, i: usize) -> impl Iterator<Item = (u32, &Shape<V>)> {
        let r = &self.world.rigid[i];
        let first = r.shape as usize;
        self.world.shapes[first..first + r.pieces as usize]
            .iter()
            .enumerate()
            .map(|(k, s)| (k as u32, s))
    }

    /// Finds this step's contact points at the current poses, in a fixed order: the points of
    /// the pairs in slow relative motion ([`FOLLOW`]) first, followed through the step by
    /// their anchors, then those of the fast pairs, found again at each sub-step.
    #[inline(never)]
    pub(super) fn collide(&mut self, dt: f64) {
        // The slow pairs' points of the step before, which a pair that has not drifted keeps:
        // in place while the pairs come in the same order (a resting scene copies nothing).
        let keep = self.options.keep_manifolds && self.options.matching == Matching::Features;
        let mut kept = std::mem::take(&mut self.kept);
        kept.begin(
            std::mem::take(&mut self.rows),
            std::mem::take(&mut self.points),
            if keep { self.slow } else { 0 },
        );
        self.fast.clear();
        self.sat.get_mut().turn();
        let n = self.bodies.len();
        // Boxes of the bounding spheres, grown by the margin and by the step's motion: two
        // bodies whose boxes do not meet are farther apart than the margin (the continuous
        // check watches them).
        self.boxes.clear();
        for (b, body) in self.bodies.iter().zip(&self.world.bodies) {
            let r = V::splat(body.radius * (1.0 + SPECULATIVE) + b.velocity.length() * dt);
            self.boxes.push(Aabb {
                min: b.position - r,
                max: b.position + r,
            });
        }
        let mut pairs = std::mem::take(&mut self.pairs);
        self.finder.find_pairs(&self.boxes, &mut pairs);
        let (mut fast_rows, mut fast_points) = std::mem::take(&mut kept.fast);
        for &[a, b] in &pairs {
            let (sa, sb) = (self.asleep[a as usize], self.asleep[b as usize]);
            if sa && sb {
                continue;
            }
            let c = ContactPair { a, b, wall: false };
            let found = if self.is_fast(c, dt) {
                self.fast.push(c);
                let from = fast_points.len();
                self.pair_points(c, &mut fast_rows, &mut fast_points);
                fast_points.len() > from
            } else {
                self.slow_points(c, &mut kept)
            };
            if found && (sa || sb) {
                // An awake body touches a sleeping one: its island wakes, and its points
                // are solved from now on.
                self.wake(if sa { a } else { b } as usize);
            }
        }
        self.pairs = pairs;
        for a in 0..n as u32 {
            if self.asleep[a as usize] {
                continue;
            }
            for b in 0..self.world.wall_pieces.len() as u32 {
                let c = ContactPair { a, b, wall: true };
                if self.is_fast(c, dt) {
                    self.fast.push(c);
                    self.pair_points(c, &mut fast_rows, &mut fast_points);
                } else {
                    self.slow_points(c, &mut kept);
                }
            }
        }
        kept.fast = (fast_rows, fast_points);
        let (rows, points, slow) = kept.finish();
        self.kept = kept;
        self.slow = slow;
        self.stats.contacts += rows.len() as u64;
        self.rows = rows;
        self.points = points;
    }

    /// Slow pair `c`'s points: kept from the step before when it has drifted by at most
    /// [`KEEP`] of its size since they were found (their closing speeds measured again), else
    /// found now. Whether it has any.
    fn slow_points(&mut self, c: ContactPair, kept: &mut Kept<V>) -> bool {
        let may_keep = |points: &[Point<V>]| {
            points
                .first()
                .is_some_and(|p| self.drift(c, &p.found) <= KEEP * p.size)
        };
        if let Some(range) = kept.take(c, may_keep) {
            let (rows, points) = kept.arrays_mut();
            self.refresh_kept(&rows[range.clone()], &mut points[range]);
            return true;
        }
        let (mut rows, mut points) = std::mem::take(&mut kept.scratch);
        self.pair_points(c, &mut rows, &mut points);
        kept.scratch = (rows, points);
        kept.append_scratch(c)
    }

    /// Whether pair `c` moves fast relative to itself over `dt`: by more than [`FOLLOW`] of
    /// its size, counting a turn as its angle times the radius.
    fn is_fast(&self, c: ContactPair, dt: f64) -> bool {
        let (va, sa) = self.motion(c.a as usize);
        let ra = self.world.bodies[c.a as usize].radius;
        let (dv, spin, size) = if c.wall {
            (va, sa, ra)
        } else {
            let (vb, sb) = self.motion(c.b as usize);
            let rb = self.world.bodies[c.b as usize].radius;
            (vb - va, sa + sb, 0.5 * (ra + rb))
        };
        (dv.length() + spin) * dt > FOLLOW * size
    }

    /// At a sub-step after the first: the fast pairs' points found again at the current
    /// poses, each starting from the impulses of the sub-step before under its id.
    #[inline(never)]
    pub(super) fn refresh_fast(&mut self, dt: f64) {
        // A slow pair made fast in the step (a body struck by an impact) joins the fast.
        let mut woke = Vec::new();
        let mut last = None;
        for p in &self.points[..self.slow] {
            let c = p.pair();
            if last != Some(c) {
                last = Some(c);
                if self.is_fast(c, dt) {
                    woke.push(c);
                }
            }
        }
        if woke.is_empty() && self.fast.is_empty() {
            return;
        }
        woke.sort_unstable();
        let joins = |c: ContactPair| woke.binary_search(&c).is_ok();
        // The impulses of the points found again: the fast pairs', and the joining pairs'.
        let from = if woke.is_empty() { self.slow } else { 0 };
        let mut before: Vec<(CollisionId, Cached<V>)> = self.rows[from..]
            .iter()
            .zip(&self.points[from..])
            .enumerate()
            .filter(|&(k, (_, p))| from + k >= self.slow || joins(p.pair()))
            .map(|(_, (r, p))| (p.id, cached_of(r, p)))
            .collect();
        before.sort_unstable_by_key(|x| cache_key(&x.0));
        let (mut rows, mut points) = (
            std::mem::take(&mut self.rows),
            std::mem::take(&mut self.points),
        );
        rows.truncate(self.slow);
        points.truncate(self.slow);
        if !woke.is_empty() {
            let keep: Vec<bool> = points.iter().map(|p| !joins(p.pair())).collect();
            let mut k = 0;
            rows.retain(|_| {
                k += 1;
                keep[k - 1]
            });
            points.retain(|p| !joins(p.pair()));
            self.fast.extend(woke.iter().copied());
        }
        let slow = rows.len();
        self.slow = slow;
        for k in 0..self.fast.len() {
            self.pair_points(self.fast[k], &mut rows, &mut points);
        }
        (self.rows, self.points) = (rows, points);
        self.stats.contacts += (self.rows.len() - slow) as u64;
        if self.options.warm_start {
            let mut hint = 0;
            for k in slow..self.rows.len() {
                self.warm_from(&before, k, &mut hint);
            }
        }
    }

    /// Each point's biases for a sub-step of `h`, from its separation now: the separation at
    /// the start of the step plus the approach of its two anchors since then along the normal
    /// (the anchors move with their bodies); and the count of the points to push apart. With
    /// `arms` (the first sub-step of a step), the followed points' normals, tangents, arms and
    /// masses are set at the current poses too; the later sub-steps keep them, as Box2D does
    /// (a slow pair turns by at most [`FOLLOW`] in the step), and only the separation follows.
    #[inline(never)]
    pub(super) fn update_rows(&mut self, h: f64, arms: bool) {
        if arms {
            self.inv_world.clear();
            self.inv_world.extend(
                self.bodies
                    .iter()
                    .map(|b| V::inertia_to_world(b.rotation, b.inv_inertia)),
            );
        }
        let (bodies, inv_world) = (&self.bodies, &self.inv_world);
        let (slow, correction, soft) = (self.slow, self.options.correction, Softness::pair(h));
        self.pushing = self
            .threads
            .sum_zip(&mut self.rows, &self.points, |k, r, p| {
                if k >= slow {
                    // Found at the current poses.
                    biases(r, p.separation, [p.size, p.slop_size], h, correction, &soft);
                } else {
                    follow_row(r, p, bodies, inv_world, arms);
                    let sep = r.sep;
                    biases(r, sep, [p.size, p.slop_size], h, correction, &soft);
                }
                (r.push > 0.0) as usize
            });
        // The blocks: the followed points' with their arms, the points found now at every
        // sub-step; in 2D every pair of two points of one normal is a block (see the module
        // docs, "Blocks").
        if arms {
            self.blocks.clear();
            super::rows::mark_blocks(&mut self.rows[..slow], true, &mut self.blocks);
            self.slow_blocks = self.blocks.len();
        }
        self.blocks.truncate(self.slow_blocks);
        super::rows::mark_blocks(&mut self.rows[slow..], true, &mut self.blocks);
    }

    /// The contact points of pair `c` (two bodies, or a body and a wall) at the current poses,
    /// within the speculative margin, appended to `points` in a fixed order.
    pub(super) fn pair_points(
        &self,
        c: ContactPair,
        rows: &mut Vec<Row<V>>,
        points: &mut Vec<Point<V>>,
    ) {
        let i = c.a as usize;
        if !c.wall {
            let j = c.b as usize;
            let size = 0.5 * (self.world.bodies[i].radius + self.world.bodies[j].radius);
            let (pose_i, pose_j) = (self.pose(i), self.pose(j));
            for (ki, si) in self.pieces(i) {
                for (kj, sj) in self.pieces(j) {
                    // The pair's separating axis of the step before, tried first.
                    let key = [c.a, c.b, ki, kj];
                    let mut sat = self.sat.borrow().of(key);
                    let m = contact_manifold_with(
                        si,
                        &pose_i,
                        sj,
                        &pose_j,
                        &manifold(size),
                        Some(&mut sat),
                    );
                    self.sat.borrow_mut().new.push((key, sat));
                    for p in m.points() {
                        let id = CollisionId {
                            a: c.a,
                            b: c.b,
                            wall: false,
                            pieces: [ki, kj],
                            features: p.id,
                        };
                        self.point(id, i, Some(j), m.normal, p, size, rows, points);
                    }
                }
            }
            return;
        }
        // The wall is `a` of the manifold (its normal points from the wall to the body) and
        // the body is `b`; stored with the body first.
        let w = c.b as usize;
        let size = self.world.bodies[i].radius;
        let pose = self.pose(i);
        // (the body's piece, the wall's piece), the normal from the wall, the point.
        let mut found: Vec<([u32; 2], V, ContactPoint<V>)> = Vec::new();
        match &self.world.wall_pieces[w] {
            WallPieces::Plane(plane) => {
                // The plane's normal on the side of the body's centre.
                let nrm = plane.normal_towards(self.bodies[i].position);
                for (k, s) in self.pieces(i) {
                    for (v, f) in shape_points(s, &pose, -nrm) {
                        let sep = (v - plane.point).dot(nrm);
                        if sep <= SPECULATIVE * size {
                            let id = ContactId {
                                a: FeatureId::Face(0),
                                b: f,
                            };
                            let p = ContactPoint {
                                point_a: v - nrm * sep,
                                point_b: v,
                                separation: sep,
                                id,
                            };
                            found.push(([k, 0], nrm, p));
                        }
                    }
                }
            }
            WallPieces::Shapes(pieces) => {
                for (wk, (ws, wpose, _, _)) in pieces.iter().enumerate() {
                    for (k, s) in self.pieces(i) {
                        let m = contact_manifold_with(ws, wpose, s, &pose, &manifold(size), None);
                        for p in m.points() {
                            found.push(([k, wk as u32], m.normal, *p));
                        }
                    }
                }
            }
        }
        for (pieces, nrm, p) in found {
            // Flip to the body's frame of reference: the body is `a`, the normal points from
            // it to the wall.
            let flipped = ContactPoint {
                point_a: p.point_b,
                point_b: p.point_a,
                separation: p.separation,
                id: p.id.swapped(),
            };
            let id = CollisionId {
                a: c.a,
                b: c.b,
                wall: true,
                pieces,
                features: flipped.id,
            };
            self.point(id, i, None, -nrm, &flipped, size, rows, points);
        }
    }

    /// A contact point between body `a` and body `b` (or a wall), its normal from `a` to `b`,
    /// appended to `rows` and `points`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn point(
        &self,
        id: CollisionId,
        a: usize,
        b: Option<usize>,
        normal: V,
        c: &ContactPoint<V>,
        size: f64,
        rows: &mut Vec<Row<V>>,
        points: &mut Vec<Point<V>>,
    ) {
        let ba = &self.bodies[a];
        // Both bodies push at one point, the middle of the two: an impulse along any direction
        // then has opposite torques about the origin on the two bodies, so momentum and
        // angular momentum are kept (pushing at each body's own point, a tangential impulse
        // across a gap would turn the pair).
        let mid = (c.point_a + c.point_b) * 0.5;
        let ra = mid - ba.position;
        let rb = b.map_or(V::ZERO, |b| mid - self.bodies[b].position);
        let inv_mass = [ba.inv_mass, b.map_or(0.0, |b| self.bodies[b].inv_mass)];
        let turns = [c.id.a != FeatureId::None, c.id.b != FeatureId::None];
        let normal_of = match (c.id.a, c.id.b) {
            (FeatureId::Face(_), _) => Some(false),
            (_, FeatureId::Face(_)) if b.is_some() => Some(true),
            _ => None,
        };
        let closing = self.relative_velocity(a, b, ra, rb).dot(normal);
        let mut row = Row {
            a: a as u32,
            b: b.unwrap_or(self.bodies.len()) as u32,
            normal,
            tangents: tangents(normal),
            arms: [Arm::default(); 3],
            inv_mass,
            mass_n: 0.0,
            mass_t: [0.0; 2],
            bias: 0.0,
            push: 0.0,
            friction: self.world.friction,
            pn: 0.0,
            pt: [0.0; 2],
            pp: 0.0,
            sep: 0.0,
            margin: SPECULATIVE * size,
            block: super::rows::SINGLE,
            slot: 0,
        };
        let world = |i: usize| {
            let s = &self.bodies[i];
            V::inertia_to_world(s.rotation, s.inv_inertia)
        };
        set_arms(&mut row, ra, rb, world(a), b.map(world));
        rows.push(row);
        points.push(Point {
            id,
            world: mid,
            local: ba.rotation.inverse_rotate(ra),
            anchor_a: if turns[0] {
                ba.rotation.inverse_rotate(ra)
            } else {
                ra
            },
            anchor_b: match b {
                Some(b) if turns[1] => self.bodies[b].rotation.inverse_rotate(rb),
                Some(_) => rb,
                None => mid,
            },
            turns,
            normal_of,
            normal,
            normal_local: match (normal_of, b) {
                (Some(false), _) => ba.rotation.inverse_rotate(normal),
                (Some(true), Some(b)) => self.bodies[b].rotation.inverse_rotate(normal),
                _ => normal,
            },
            separation: c.separation,
            closing,
            size,
            slop_size: size
                .min(THIN * b.map_or(self.widths[a], |b| self.widths[a].min(self.widths[b]))),
            found: [
                (ba.position, ba.rotation),
                b.map_or((V::ZERO, V::Rotation::IDENTITY), |b| {
                    (self.bodies[b].position, self.bodies[b].rotation)
                }),
            ],
            kept: false,
        });
    }

    /// How far pair `c` (whose points were found at the poses `found`) has drifted since:
    /// the change of the offset between the two centres, plus each body's turn times its
    /// radius.
    fn drift(&self, c: ContactPair, found: &[(V, V::Rotation); 2]) -> f64 {
        let (ba, ra) = (
            &self.bodies[c.a as usize],
            self.world.bodies[c.a as usize].radius,
        );
        let mut moved = ba.position - found[0].0;
        let mut turned = turn::<V>(found[0].1, ba.rotation) * ra;
        if !c.wall {
            let bb = &self.bodies[c.b as usize];
            moved -= bb.position - found[1].0;
            turned += turn::<V>(found[1].1, bb.rotation) * self.world.bodies[c.b as usize].radius;
        }
        moved.length() + turned
    }

    /// Marks the points `points` (of `rows`) kept from the step before, and measures their
    /// closing speeds again.
    fn refresh_kept(&mut self, rows: &[Row<V>], points: &mut [Point<V>]) {
        let n = self.bodies.len();
        let vel = |i: u32| {
            if (i as usize) < n {
                let b = &self.bodies[i as usize];
                (b.velocity, b.angular_velocity)
            } else {
                (V::ZERO, V::Angular::default())
            }
        };
        for (r, p) in rows.iter().zip(points.iter_mut()) {
            p.closing = along(r.normal, &r.arms[0], &vel(r.a), &vel(r.b));
            p.kept = true;
        }
        self.stats.kept += points.len() as u64;
    }
}

/// The slow pairs' points of the step before, and this step's as they are made: while the
/// slow pairs that have points come in the order of the step before and keep them, the old
/// arrays serve as the new ones in place; at the first that does not, the rest of the old
/// points moves aside (kept from there by a search) and the new ones are appended.
pub(super) struct Kept<V: Vector> {
    rows: Vec<Row<V>>,
    points: Vec<Point<V>>,
    /// The old pairs in their order: pair, and the range of its points.
    groups: Vec<(ContactPair, u32, u32)>,
    /// The same, sorted by pair.
    sorted: Vec<(ContactPair, u32, u32)>,
    /// While in place: the next old pair to meet.
    next: usize,
    /// Once moved aside: where the old points were cut, and those after the cut.
    cut: Option<usize>,
    tail_rows: Vec<Row<V>>,
    tail_points: Vec<Point<V>>,
    /// A pair's points found now, before they are known to exist.
    scratch: (Vec<Row<V>>, Vec<Point<V>>),
    /// The fast pairs' points, found again at each sub-step.
    fast: (Vec<Row<V>>, Vec<Point<V>>),
}

impl<V: Vector> Default for Kept<V> {
    fn default() -> Self {
        Self {
            rows: Vec::new(),
            points: Vec::new(),
            groups: Vec::new(),
            sorted: Vec::new(),
            next: 0,
            cut: None,
            tail_rows: Vec::new(),
            tail_points: Vec::new(),
            scratch: (Vec::new(), Vec::new()),
            fast: (Vec::new(), Vec::new()),
        }
    }
}

impl<V: Vector> Kept<V> {
    /// Starts a step from the old rows and points, of which the first `slow` are slow pairs'
    /// that may be kept (the buffers of the step before reused).
    fn begin(&mut self, rows: Vec<Row<V>>, points: Vec<Point<V>>, slow: usize) {
        let slow = slow.min(points.len());
        self.groups.clear();
        for (k, p) in points[..slow].iter().enumerate() {
            match self.groups.last_mut() {
                Some(last) if last.0 == p.pair() => last.2 = k as u32 + 1,
                _ => self.groups.push((p.pair(), k as u32, k as u32 + 1)),
            }
        }
        self.sorted.clear();
        self.sorted.extend_from_slice(&self.groups);
        self.sorted.sort_unstable_by_key(|x| x.0);
        self.rows = rows;
        self.points = points;
        self.next = 0;
        self.cut = None;
        self.tail_rows.clear();
        self.tail_points.clear();
        self.scratch.0.clear();
        self.scratch.1.clear();
        self.fast.0.clear();
        self.fast.1.clear();
    }

    /// While in place, where the new points end: the start of the next old pair's.
    fn end_in_place(&self) -> usize {
        self.groups.get(self.next).map_or_else(
            || self.groups.last().map_or(0, |g| g.2 as usize),
            |g| g.1 as usize,
        )
    }

    /// Moves the old points from the next old pair on aside.
    fn move_aside(&mut self) {
        if self.cut.is_some() {
            return;
        }
        let cut = self.end_in_place();
        self.cut = Some(cut);
        // Copied into the buffers of the steps before: a fresh allocation of a large scene's
        // rows at every step costs its page faults.
        self.tail_rows.clear();
        self.tail_rows.extend_from_slice(&self.rows[cut..]);
        self.rows.truncate(cut);
        self.tail_points.clear();
        self.tail_points.extend_from_slice(&self.points[cut..]);
        self.points.truncate(cut);
    }

    /// Pair `c`'s old points if it has some and `may_keep` allows, as the range of the new
    /// arrays they now take.
    fn take(
        &mut self,
        c: ContactPair,
        may_keep: impl Fn(&[Point<V>]) -> bool,
    ) -> Option<std::ops::Range<usize>> {
        // In place, the pair is mostly the next old one: no search.
        let next = self
            .groups
            .get(self.next)
            .filter(|g| self.cut.is_none() && g.0 == c);
        let (_, a, b) = match next {
            Some(&g) => g,
            None => self.sorted[self.sorted.binary_search_by_key(&c, |x| x.0).ok()?],
        };
        let old = a as usize..b as usize;
        // Where its old points are now: in place, or moved aside past the cut.
        let tail = match self.cut {
            None => None,
            Some(cut) if old.start >= cut => Some(old.start - cut..old.end - cut),
            Some(_) => return None,
        };
        let points = match &tail {
            None => &self.points[old.clone()],
            Some(t) => &self.tail_points[t.clone()],
        };
        if !may_keep(points) {
            return None;
        }
        let tail = match tail {
            Some(t) => t,
            None if self.groups.get(self.next).is_some_and(|g| g.0 == c) => {
                self.next += 1;
                return Some(old);
            }
            // Out of order: the old points move aside from the next pair's on.
            None => {
                self.move_aside();
                let cut = self.cut.expect("moved aside");
                old.start - cut..old.end - cut
            }
        };
        let from = self.points.len();
        self.rows.extend_from_slice(&self.tail_rows[tail.clone()]);
        self.points.extend_from_slice(&self.tail_points[tail]);
        Some(from..self.points.len())
    }

    /// The new arrays.
    fn arrays_mut(&mut self) -> (&mut Vec<Row<V>>, &mut Vec<Point<V>>) {
        (&mut self.rows, &mut self.points)
    }

    /// Appends the points of the scratch arrays (moving the old ones aside first); whether
    /// there were any.
    fn append_scratch(&mut self, c: ContactPair) -> bool {
        if self.scratch.1.is_empty() {
            return false;
        }
        // Found again as many points as it had, in place and in order: they take the old
        // ones' places (a resting scene whose pairs drift one by one copies nothing else).
        if let (None, Some(&(pair, from, to))) = (self.cut, self.groups.get(self.next)) {
            let old = from as usize..to as usize;
            if pair == c && old.len() == self.scratch.1.len() {
                self.rows[old.clone()].clone_from_slice(&self.scratch.0);
                self.points[old].clone_from_slice(&self.scratch.1);
                self.scratch.0.clear();
                self.scratch.1.clear();
                self.next += 1;
                return true;
            }
        }
        self.move_aside();
        self.rows.append(&mut self.scratch.0);
        self.points.append(&mut self.scratch.1);
        true
    }

    /// This step's points: the slow pairs' then the fast pairs', and how many are slow.
    fn finish(&mut self) -> (Vec<Row<V>>, Vec<Point<V>>, usize) {
        if self.cut.is_none() {
            let end = self.end_in_place();
            self.rows.truncate(end);
            self.points.truncate(end);
        }
        let slow = self.rows.len();
        self.rows.append(&mut self.fast.0);
        self.points.append(&mut self.fast.1);
        (
            std::mem::take(&mut self.rows),
            std::mem::take(&mut self.points),
            slow,
        )
    }
}

/// The separating axes of the pairs of pieces, by `[a, b, piece of a, piece of b]`: those of
/// the step before (sorted), and this step's as they are found. An axis only speeds up the
/// test of a pair still apart ([`SatCache`]); the manifold is the same with or without it.
#[derive(Debug, Default)]
pub(super) struct SatCaches {
    old: Vec<([u32; 4], SatCache)>,
    new: Vec<([u32; 4], SatCache)>,
}

impl SatCaches {
    /// The axis of the step before of the pieces `key`, if any.
    fn of(&self, key: [u32; 4]) -> SatCache {
        self.old
            .binary_search_by_key(&key, |x| x.0)
            .map_or_else(|_| SatCache::default(), |k| self.old[k].1)
    }

    /// At the start of a step: this step's axes become the old ones.
    fn turn(&mut self) {
        std::mem::swap(&mut self.old, &mut self.new);
        self.new.clear();
        // Runs of sorted keys, a pair found again later in the step last: the latest kept.
        self.old.sort_by_key(|x| x.0);
        self.old.reverse();
        self.old.dedup_by_key(|x| x.0);
        self.old.reverse();
    }
}

/// A followed point's row at the bodies' poses now (see [`SteppedSim::update_rows`]): its
/// separation (left in `r.sep` for the biases), the start of the step's plus the approach of
/// its two anchors since then along the normal; with `arms`, its normal, tangents, arms and
/// masses too.
fn follow_row<V: Vector>(
    r: &mut Row<V>,
    p: &Point<V>,
    bodies: &[super::StepBody<V>],
    inv_world: &[V::Inertia],
    arms: bool,
) {
    let n = bodies.len();
    let ba = &bodies[r.a as usize];
    let pb = ((r.b as usize) < n).then(|| bodies[r.b as usize].position);
    // The normal turns with the body whose face it is (a box sliding on a turning box).
    let normal = match (p.normal_of, pb) {
        (Some(false), _) => ba.rotation.rotate(p.normal_local),
        (Some(true), Some(_)) => bodies[r.b as usize].rotation.rotate(p.normal_local),
        _ => r.normal,
    };
    // A smooth shape's support point stays under its centre along the normal.
    let n0 = p.normal;
    let smooth = |v: V| v + (normal - n0) * v.dot(n0);
    let at_a = ba.position
        + if p.turns[0] {
            ba.rotation.rotate(p.anchor_a)
        } else {
            smooth(p.anchor_a)
        };
    let at_b = match pb {
        Some(pb) if p.turns[1] => pb + bodies[r.b as usize].rotation.rotate(p.anchor_b),
        Some(pb) => pb + smooth(p.anchor_b),
        None => p.anchor_b,
    };
    // Both anchors start at the point's middle, so their gap starts at zero.
    r.sep = p.separation + (at_b - at_a).dot(normal);
    if !arms {
        return;
    }
    if normal != r.normal {
        // The solver pushes along the turned normal; the tangential impulse keeps its
        // direction as far as the new tangents allow.
        let pt = r.tangents[0] * r.pt[0] + r.tangents[1] * r.pt[1];
        r.normal = normal;
        r.tangents = tangents(normal);
        r.pt = [pt.dot(r.tangents[0]), pt.dot(r.tangents[1])];
    }
    // Both bodies push at one point (so angular momentum is kept): the anchor of the
    // feature that meets a face (where the contact is as it slides along the face),
    // else the anchors' middle.
    let mid = match p.normal_of {
        Some(false) => at_b,
        Some(true) => at_a,
        None => (at_a + at_b) * 0.5,
    };
    let ib = pb.map(|_| inv_world[r.b as usize]);
    set_arms(
        r,
        mid - ba.position,
        pb.map_or(V::ZERO, |pb| mid - pb),
        inv_world[r.a as usize],
        ib,
    );
}

/// The angle between rotations `q0` and `q1` (radians, at least 0).
fn turn<V: Vector>(q0: V::Rotation, q1: V::Rotation) -> f64 {
    let (a, b) = (q0.to_array4(), q1.to_array4());
    if V::DIM == 2 {
        return (b[0] - a[0]).abs();
    }
    // Unit quaternions: |q1 - q0| = 2 sin(θ / 4) on the nearer of ±q0.
    let dot: f64 = (0..4).map(|k| a[k] * b[k]).sum();
    let s = if dot < 0.0 { -1.0 } else { 1.0 };
    let d = (0..4)
        .map(|k| (b[k] - s * a[k]).powi(2))
        .sum::<f64>()
        .sqrt();
    4.0 * (0.5 * d).min(1.0).asin()
}

/// Row `r`'s arms and masses for a point at offsets `ra` and `rb` from its bodies' centres of
/// mass, with their inverse inertia tensors in the world frame (`b` `None`: a wall).
#[inline]
fn set_arms<V: Vector>(r: &mut Row<V>, ra: V, rb: V, ia: V::Inertia, ib: Option<V::Inertia>) {
    let k0 = r.inv_mass[0] + r.inv_mass[1];
    let mut masses = [0.0; 3];
    let dirs = if V::DIM == 3 { 3 } else { 2 };
    for d in 0..dirs {
        let dir = if d == 0 { r.normal } else { r.tangents[d - 1] };
        let ja = V::cross_angular(ra, dir);
        let ka = V::inertia_mul(ia, ja);
        let (jb, kb) = match ib {
            Some(ib) => {
                let jb = V::cross_angular(rb, dir);
                (jb, V::inertia_mul(ib, jb))
            }
            None => (V::Angular::default(), V::Angular::default()),
        };
        let k = k0 + V::angular_dot(ja, ka) + V::angular_dot(jb, kb);
        masses[d] = if k > 0.0 { 1.0 / k } else { 0.0 };
        r.arms[d] = Arm { ja, jb, ka, kb };
    }
    r.mass_n = masses[0];
    r.mass_t = [masses[1], masses[2]];
}

/// Row `r`'s biases for a sub-step of `h` at separation `sep`, for a point of `size` and of
/// size for the slop `size[1]`: a gap may close in the
/// sub-step, no further; a penetration deeper than the slop is pushed out by `β / h` of it,
/// by the split impulses or by the velocities ([`Correction`]), or by a soft contact's spring
/// (`soft`: [`Softness::pair`] of `h`).
pub(super) fn biases<V: Vector>(
    r: &mut Row<V>,
    sep: f64,
    size: [f64; 2],
    h: f64,
    c: Correction,
    soft: &[Softness; 2],
) {
    let [size, slop_size] = size;
    let deep = (-sep - c.slop() * slop_size).max(0.0);
    r.sep = sep;
    r.bias = if sep > 0.0 { -sep / h } else { 0.0 };
    r.push = 0.0;
    match c {
        Correction::Baumgarte => r.bias += BAUMGARTE / h * deep,
        Correction::Split => r.push = BAUMGARTE / h * deep,
        // The spring's push, at most the fastest (stiffer against a static body).
        Correction::Soft => {
            let rate = soft[(r.inv_mass[1] == 0.0) as usize].bias_rate;
            r.push = (rate * deep).min(SOFT_MAX_PUSH * size);
        }
    }
}

/// The points of `shape` at `pose` a plane below it may touch: every vertex of a polytope
/// (named by its index), else the support point along `down`.
pub(super) fn shape_points<V: Vector>(
    shape: &Shape<V>,
    pose: &Pose<V>,
    down: V,
) -> Vec<(V, FeatureId)> {
    match as_polytope(shape) {
        Some(poly) => (0..poly.vertex_count())
            .map(|k| {
                (
                    pose.transform_point(poly.vertex(k)),
                    FeatureId::Vertex(k as u32),
                )
            })
            .collect(),
        None => vec![(shape.support(pose, down), FeatureId::None)],
    }
}

/// Unit tangents of the unit normal `n`: one in 2D (the second zero), two in 3D.
pub(super) fn tangents<V: Vector>(n: V) -> [V; 2] {
    // The axis least aligned with `n`, made orthogonal to it.
    let axis = (0..V::DIM)
        .min_by(|&x, &y| n.comp(x).abs().total_cmp(&n.comp(y).abs()))
        .unwrap_or(0);
    let e = V::unit(axis);
    let t1 = e - n * n.dot(e);
    let t1 = t1 * (1.0 / t1.length());
    if V::DIM == 2 {
        return [t1, V::ZERO];
    }
    // n × t1: unit, as both are unit and orthogonal.
    let (a, b) = (n.to_array3(), t1.to_array3());
    let t2 = V::from_array3([
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]);
    [t1, t2]
}
