//! The stepped engine's solver: the sweeps of sequential impulses along each point's arms,
//! warm starting from the cache, restitution, the energy guard and the split impulses.
//!
//! The sweeps work on a compact copy of the bodies' velocities ([`SteppedSim::load_velocities`])
//! whose last entry stands for the walls (zero velocity, and zero inverse mass and arms in
//! each wall's rows), so a row's two bodies are read and written without a branch. Two rows
//! that make a block ([`super::rows`]) are solved together where the sweeps meet the first.

pub(super) use super::rows::{along, kick};
use super::rows::{solve_block, solve_soft_block, Acc, Block, HEAD, SINGLE, TAIL};
use super::*;

/// The normal impulse of row `r` that brings its normal velocity (of the velocities `a` and
/// `b`) to `target`, added to the accumulated impulse `acc` and clamped so that `acc` stays
/// non-negative; returns the new accumulated impulse.
#[inline(always)]
fn normal_impulse<V: Vector>(
    r: &Row<V>,
    target: f64,
    acc: f64,
    a: &mut Vel<V>,
    b: &mut Vel<V>,
) -> f64 {
    let vn = along(r.normal, &r.arms[0], a, b);
    let total = (acc + r.mass_n * (target - vn)).max(0.0);
    kick(r.normal, &r.arms[0], r.inv_mass, total - acc, a, b);
    total
}

/// One point's normal impulse, accumulated and clamped to be non-negative, then its friction
/// impulse along each tangent, accumulated and clamped to the friction cone of the normal
/// impulse: the two bodies' velocities read once and written once.
#[inline(always)]
fn solve_row<V: Vector>(r: &mut Row<V>, vel: &mut [Vel<V>]) {
    let (ia, ib) = (r.a as usize, r.b as usize);
    let (mut a, mut b) = (vel[ia], vel[ib]);
    r.pn = normal_impulse(r, r.bias, r.pn, &mut a, &mut b);
    friction(r, &mut a, &mut b);
    vel[ia] = a;
    vel[ib] = b;
}

/// One point's friction impulse along each tangent, accumulated and clamped to the friction
/// cone of its normal impulse.
#[inline(always)]
fn friction<V: Vector>(r: &mut Row<V>, a: &mut Vel<V>, b: &mut Vel<V>) {
    let limit = r.friction * r.pn;
    let dims = if V::DIM == 3 { 2 } else { 1 };
    for t in 0..dims {
        let d = r.tangents[t];
        let vt = along(d, &r.arms[t + 1], a, b);
        let total = (r.pt[t] - r.mass_t[t] * vt).clamp(-limit, limit);
        kick(d, &r.arms[t + 1], r.inv_mass, total - r.pt[t], a, b);
        r.pt[t] = total;
    }
}

/// One point's soft solve (its normal impulse as a stiff damped spring with the coefficients
/// `soft`, moving and static, when it penetrates; rigid to its speculative bias when apart),
/// then its friction as in [`solve_row`].
#[inline(always)]
fn soft_row<V: Vector>(r: &mut Row<V>, vel: &mut [Vel<V>], soft: &[Softness; 2]) {
    let (ia, ib) = (r.a as usize, r.b as usize);
    let (mut a, mut b) = (vel[ia], vel[ib]);
    let vn = along(r.normal, &r.arms[0], &a, &b);
    let total = if r.bias < 0.0 {
        r.pn + r.mass_n * (r.bias - vn)
    } else {
        let s = &soft[(r.inv_mass[1] == 0.0) as usize];
        r.pn + s.mass_scale * r.mass_n * (r.push - vn) - s.impulse_scale * r.pn
    }
    .max(0.0);
    kick(
        r.normal,
        &r.arms[0],
        r.inv_mass,
        total - r.pn,
        &mut a,
        &mut b,
    );
    r.pn = total;
    friction(r, &mut a, &mut b);
    vel[ia] = a;
    vel[ib] = b;
}

/// One point's split impulse on the pseudo-velocities, accumulated and clamped to be
/// non-negative, until the point separates at its push.
#[inline(always)]
fn split_row<V: Vector>(r: &mut Row<V>, pseudo: &mut [Vel<V>]) {
    let (ia, ib) = (r.a as usize, r.b as usize);
    let (mut a, mut b) = (pseudo[ia], pseudo[ib]);
    r.pp = normal_impulse(r, r.push, r.pp, &mut a, &mut b);
    pseudo[ia] = a;
    pseudo[ib] = b;
}

/// The block of rows `k` and `k + 1` ([`super::rows`]): each one's friction, then their normal
/// impulses together (the last word on the sweep is the normals', as in Box2D); one by one
/// when the block has no solution (round-off at a degenerate pair).
#[inline(never)]
fn solve_pair<V: Vector>(rows: &mut [Row<V>], vel: &mut [Vel<V>], blocks: &[Block]) {
    let k = 0;
    for r in &mut rows[k..k + 2] {
        let (ia, ib) = (r.a as usize, r.b as usize);
        let (mut a, mut b) = (vel[ia], vel[ib]);
        friction(r, &mut a, &mut b);
        vel[ia] = a;
        vel[ib] = b;
    }
    let target = [rows[k].bias, rows[k + 1].bias];
    let block = &blocks[rows[k].slot as usize];
    if !solve_block(rows, k, target, Acc::Normal, vel, block) {
        for r in &mut rows[k..k + 2] {
            solve_row(r, vel);
        }
    }
}

/// The split impulses of the block of rows `k` and `k + 1` when either penetrates (the other
/// held at no approach: it is the pivot the push turns the body about); one by one when the
/// block has no solution.
#[inline(never)]
fn split_pair<V: Vector>(rows: &mut [Row<V>], pseudo: &mut [Vel<V>], blocks: &[Block]) {
    let k = 0;
    let target = [rows[k].push, rows[k + 1].push];
    if !(target[0] > 0.0 || target[1] > 0.0) {
        return;
    }
    let block = &blocks[rows[k].slot as usize];
    if !solve_block(rows, k, target, Acc::Split, pseudo, block) {
        for r in &mut rows[k..k + 2] {
            if r.push > 0.0 {
                split_row(r, pseudo);
            }
        }
    }
}

/// [`solve_pair`], then [`split_pair`] (one call, so that a sweep's step over a row alone
/// calls nothing and keeps its registers).
#[inline(never)]
fn solve_and_split_pair<V: Vector>(
    rows: &mut [Row<V>],
    vel: &mut [Vel<V>],
    pseudo: &mut [Vel<V>],
    blocks: &[Block],
) {
    solve_pair(rows, vel, blocks);
    split_pair(rows, pseudo, blocks);
}

/// [`Correction::Soft`]'s solve of the block of rows `k` and `k + 1`: each one's friction, then
/// their springs together when both touch ([`solve_soft_block`]), else one by one.
#[inline(never)]
fn soft_pair<V: Vector>(
    rows: &mut [Row<V>],
    vel: &mut [Vel<V>],
    soft: &[Softness; 2],
    blocks: &[Block],
) {
    let k = 0;
    let s = &soft[(rows[k].inv_mass[1] == 0.0) as usize];
    for r in &mut rows[k..k + 2] {
        let (ia, ib) = (r.a as usize, r.b as usize);
        let (mut a, mut b) = (vel[ia], vel[ib]);
        friction(r, &mut a, &mut b);
        vel[ia] = a;
        vel[ib] = b;
    }
    let block = &blocks[rows[k].slot as usize];
    if !solve_soft_block(rows, k, s.mass_scale, s.impulse_scale, vel, block) {
        for r in &mut rows[k..k + 2] {
            soft_row(r, vel, soft);
        }
    }
}

/// `sweeps` sweeps of the sequential impulses over `rows` ([`alternating`]), each row alone
/// or with its block; with `pseudo`, each row's split impulse in the same pass.
#[inline(always)]
fn sweep_rows<V: Vector>(
    rows: &mut [Row<V>],
    sweeps: u32,
    vel: &mut [Vel<V>],
    pseudo: Option<&mut [Vel<V>]>,
    blocks: &[Block],
) {
    match pseudo {
        None => alternating(rows, sweeps, |rs| match rs {
            [r, ..] if r.block == SINGLE => solve_row(r, vel),
            [r, _, ..] if r.block == HEAD => solve_pair(rs, vel, blocks),
            _ => {}
        }),
        Some(pseudo) => alternating(rows, sweeps, |rs| match rs {
            [r, ..] if r.block == SINGLE => {
                solve_row(r, vel);
                if r.push > 0.0 {
                    split_row(r, pseudo);
                }
            }
            [r, _, ..] if r.block == HEAD => solve_and_split_pair(rs, vel, pseudo, blocks),
            _ => {}
        }),
    }
    still_walls(vel);
}

/// A sweep takes the rows in windows of [`LANES`] runs of [`RUN`] rows each ([`alternating`]).
pub(super) const LANES: usize = 2;
/// See [`LANES`].
pub(super) const RUN: usize = 32;

/// `sweeps` passes of `f` over `items` (each call given the items from one on: the item
/// first, then those after it), alternating in direction (symmetric Gauss–Seidel; see
/// [`SteppedSim::sweeps_of`]).
///
/// A pass interleaves runs: of each window of [`LANES`] × [`RUN`] items, the first item of
/// each run, then the second of each, and so on; going back, the reverse of that order.
/// Consecutive rows are mostly one pair's points or one body's pairs, each waiting for the
/// velocities the one before wrote; rows a run apart mostly touch other bodies, so the
/// processor works on two at once. Short runs keep the order near the rows' own, which
/// carries a stack's weight down in one sweep (measured on the 2D pyramid of base 100 with 4
/// sweeps: 15% less time a step than one run; the top of a 2D pyramid of base 20 moves 0.86%
/// of a box in 10 s, 0.76% with one run, 1.1% with runs of 64 and 1.4% with 4 runs of a
/// quarter of the rows). The order is one fixed sequence all the same, whatever the run.
#[inline(always)]
fn alternating<T>(items: &mut [T], sweeps: u32, mut f: impl FnMut(&mut [T])) {
    const WINDOW: usize = LANES * RUN;
    let windows = items.len().div_ceil(WINDOW);
    for it in 0..sweeps {
        if it % 2 == 0 {
            for w in 0..windows {
                for i in 0..RUN {
                    for l in 0..LANES {
                        if let Some(x @ [_, ..]) = items.get_mut(w * WINDOW + l * RUN + i..) {
                            f(x);
                        }
                    }
                }
            }
        } else {
            for w in (0..windows).rev() {
                for i in (0..RUN).rev() {
                    for l in (0..LANES).rev() {
                        if let Some(x @ [_, ..]) = items.get_mut(w * WINDOW + l * RUN + i..) {
                            f(x);
                        }
                    }
                }
            }
        }
    }
}

/// Sets the walls' entry (the last) of solver velocities back to zero: round-off of the
/// walls' zero arms never moves a wall.
#[inline(always)]
fn still_walls<V: Vector>(vel: &mut [Vel<V>]) {
    if let Some(w) = vel.last_mut() {
        *w = (V::ZERO, V::Angular::default());
    }
}

impl<V: Vector> SteppedSim<V> {
    /// Copies the bodies' velocities into the solver's, with the walls' zero last.
    #[inline(never)]
    pub(super) fn load_velocities(&mut self) {
        self.vel.clear();
        self.vel
            .extend(self.bodies.iter().map(|b| (b.velocity, b.angular_velocity)));
        self.vel.push((V::ZERO, V::Angular::default()));
    }

    /// Copies the solver's velocities back to the bodies.
    #[inline(never)]
    pub(super) fn store_velocities(&mut self) {
        for (b, &(v, w)) in self.bodies.iter_mut().zip(&self.vel) {
            b.velocity = v;
            b.angular_velocity = w;
        }
    }

    /// The velocity of `b`'s point at `rb` minus that of `a`'s point at `ra` (the bodies'
    /// velocities; `b` `None` for a wall).
    pub(super) fn relative_velocity(&self, a: usize, b: Option<usize>, ra: V, rb: V) -> V {
        let at = |i: usize, r: V| {
            let s = &self.bodies[i];
            s.velocity + V::angular_cross(s.angular_velocity, r)
        };
        b.map_or(V::ZERO, |b| at(b, rb)) - at(a, ra)
    }

    /// Point `k`'s impulses in `cache` (sorted by [`cache_key`]), by [`StepOptions::matching`], and
    /// whether they are another contact's (a distance match to other features).
    fn lookup(
        &self,
        cache: &[(CollisionId, Cached<V>)],
        k: usize,
        hint: &mut usize,
    ) -> Option<(Cached<V>, bool)> {
        let p = &self.points[k];
        let key = |id: &CollisionId| (id.wall, id.a, id.b, id.pieces);
        let probe_id = cache_key(&p.id);
        let probe = if self.options.matching == Matching::Features {
            // The points mostly come in the cache's order: first a search in the entries just
            // after the last point's, then in the whole cache.
            let near = &cache[(*hint).min(cache.len())..];
            let window = &near[..near.len().min(64)];
            let found = match window.first() {
                Some(first)
                    if cache_key(&first.0) <= probe_id
                        && window.last().is_some_and(|l| probe_id <= cache_key(&l.0)) =>
                {
                    window
                        .binary_search_by_key(&probe_id, |x| cache_key(&x.0))
                        .ok()
                        .map(|j| j + *hint)
                }
                _ => cache
                    .binary_search_by_key(&probe_id, |x| cache_key(&x.0))
                    .ok(),
            };
            if let Some(j) = found {
                *hint = j;
            }
            return found.map(|j| (cache[j].1, false));
        } else {
            key(&p.id)
        };
        let from = cache.partition_point(|(id, _)| key(id) < probe);
        let to = cache.partition_point(|(id, _)| key(id) <= probe);
        let mut best: Option<(f64, usize)> = None;
        for (j, (_, c)) in cache[from..to].iter().enumerate() {
            let d = match self.options.matching {
                Matching::WorldDistance => (c.world - p.world).length(),
                _ => (c.local - p.local).length(),
            };
            if d <= MATCH_RADIUS * p.size && best.is_none_or(|b| d < b.0) {
                best = Some((d, from + j));
            }
        }
        let (_, j) = best?;
        let (id, c) = cache[j];
        Some((c, id.features != p.id.features))
    }

    /// Row `k` starts from its impulses in `cache`, when it has some (the tangential impulse
    /// projected on the point's tangents); counts the hits and mismatches.
    pub(super) fn warm_from(
        &mut self,
        cache: &[(CollisionId, Cached<V>)],
        k: usize,
        hint: &mut usize,
    ) {
        let Some((Cached { pn, pt, .. }, other)) = self.lookup(cache, k, hint) else {
            return;
        };
        self.stats.warm_hits += 1;
        self.stats.mismatches += other as u64;
        let r = &mut self.rows[k];
        r.pn = pn;
        r.pt = [pt.dot(r.tangents[0]), pt.dot(r.tangents[1])];
    }

    /// At the start of a step: each point's impulses from the cache.
    #[inline(never)]
    pub(super) fn warm_from_cache(&mut self) {
        if !self.options.warm_start {
            return;
        }
        let cache = std::mem::take(&mut self.sorted);
        let mut hint = 0;
        for k in 0..self.rows.len() {
            if self.points[k].kept {
                // Its row holds the impulses the cache has under its id.
                self.stats.warm_hits += 1;
                continue;
            }
            self.warm_from(&cache, k, &mut hint);
        }
        self.sorted = cache;
    }

    /// At the start of a sub-step: each point's impulses of the sub-step before (from the
    /// cache for the first) applied to the velocities; without warm starting, every point
    /// starts from zero.
    #[inline(never)]
    pub(super) fn warm_start(&mut self) {
        let vel = &mut self.vel;
        for r in &mut self.rows {
            r.pp = 0.0;
            if !self.options.warm_start {
                r.pn = 0.0;
                r.pt = [0.0; 2];
                continue;
            }
            let (ia, ib) = (r.a as usize, r.b as usize);
            let (mut a, mut b) = (vel[ia], vel[ib]);
            kick(r.normal, &r.arms[0], r.inv_mass, r.pn, &mut a, &mut b);
            kick(
                r.tangents[0],
                &r.arms[1],
                r.inv_mass,
                r.pt[0],
                &mut a,
                &mut b,
            );
            if V::DIM == 3 {
                kick(
                    r.tangents[1],
                    &r.arms[2],
                    r.inv_mass,
                    r.pt[1],
                    &mut a,
                    &mut b,
                );
            }
            vel[ia] = a;
            vel[ib] = b;
        }
        // The wall's entry stays still.
        if let Some(w) = vel.last_mut() {
            *w = (V::ZERO, V::Angular::default());
        }
    }

    /// The sweeps over the rows `range`, in an order that alternates its direction from sweep
    /// to sweep (symmetric Gauss–Seidel): a sweep always in one direction solves the left
    /// point of each contact before the right one, and that bias makes a tower sway
    /// (measured: the top of a tower of ten 2D boxes moves 6% of a box in 10 s one way, 0.1%
    /// alternating).
    #[inline(never)]
    pub(super) fn sweeps_of(&mut self, range: std::ops::Range<usize>) {
        sweep_rows(
            &mut self.rows[range],
            self.options.iterations,
            &mut self.vel,
            None,
            &self.blocks,
        );
    }

    /// [`Correction::Soft`]'s pushing sweeps over every row, then the velocities they leave
    /// copied to the pseudo-velocities (the bodies move with them; the relax sweeps that
    /// follow give the velocities the bodies keep).
    #[inline(never)]
    pub(super) fn soft_sweeps(&mut self, h: f64) {
        let soft = Softness::pair(h);
        let (rows, vel, blocks) = (&mut self.rows, &mut self.vel, &self.blocks);
        alternating(rows, self.options.iterations, |rs| match rs {
            [r, ..] if r.block == SINGLE => soft_row(r, vel, &soft),
            [r, _, ..] if r.block == HEAD => soft_pair(rs, vel, &soft, blocks),
            _ => {}
        });
        still_walls(vel);
        self.pseudo.clear();
        self.pseudo.extend_from_slice(vel);
    }

    /// The sweeps over every row; with `split`, each sweep also solves the split impulses of
    /// the rows that penetrate, on pseudo-velocities that start at zero. The two solves share
    /// no state (the split impulses read only the rows' arms, masses and pushes, which the
    /// sweeps do not change), so doing both in one pass over the rows gives the same numbers
    /// as two passes, reading each row once.
    #[inline(never)]
    pub(super) fn sweeps(&mut self, split: bool) {
        if !split {
            self.sweeps_of(0..self.rows.len());
            return;
        }
        self.pseudo.clear();
        self.pseudo
            .resize(self.bodies.len() + 1, (V::ZERO, V::Angular::default()));
        sweep_rows(
            &mut self.rows,
            self.options.iterations,
            &mut self.vel,
            Some(&mut self.pseudo),
            &self.blocks,
        );
        still_walls(&mut self.pseudo);
    }

    /// Whether a sub-step of `h` falls under gravity by more than [`CONVERGE_FALL`] of the least
    /// size a slop is measured against (a box of 10⁻⁸, a sliver, gravity 10⁶ at `dt = 0.01`):
    /// then the sweeps' residual, a share of the sub-step's fall, may be more than a body, and
    /// the solver converges ([`Self::converge`]) and solves every two-point pair as a block.
    pub(super) fn converging(&self, h: f64) -> bool {
        self.world.gravity.length() * h * h > CONVERGE_FALL * self.least_slop_size
    }

    /// When [`Self::converging`]: more sweeps after the sweeps (two at a time, up to
    /// [`CONVERGE_SWEEPS`]) while a point's normal velocity is off its solution by more than
    /// its slop over the sub-step (a point that pushes closes at its bias, one that does not
    /// closes no faster). With `split` the split impulses are solved on in the same sweeps.
    /// Not with [`Correction::Soft`], whose bodies move by its springs' sweeps.
    #[inline(never)]
    pub(super) fn converge(&mut self, h: f64, split: bool) {
        if !self.converging(h) || self.options.correction == Correction::Soft {
            return;
        }
        let slop = self.options.correction.slop();
        let mut done = 0;
        while done < CONVERGE_SWEEPS {
            let (rows, points, vel) = (&self.rows, &self.points, &self.vel);
            let off = rows.iter().zip(points).any(|(r, p)| {
                let vn = along(r.normal, &r.arms[0], &vel[r.a as usize], &vel[r.b as usize]);
                let gap = vn - r.bias;
                let err = if r.pn > 0.0 {
                    gap.abs()
                } else {
                    (-gap).max(0.0)
                };
                h * err > slop * p.slop_size
            });
            if !off {
                break;
            }
            let pseudo = split.then_some(&mut self.pseudo[..]);
            sweep_rows(&mut self.rows, 2, &mut self.vel, pseudo, &self.blocks);
            if split {
                still_walls(&mut self.pseudo);
            }
            done += 2;
        }
        self.stats.sweeps += done as u64;
    }

    /// The root mean square, over the points, of how far each is from its solution after the
    /// sweeps (a velocity): a point that pushes should close at exactly its bias, a point that
    /// does not should not close faster than it.
    #[inline(never)]
    pub(super) fn measure_residual(&mut self) {
        if self.rows.is_empty() {
            return;
        }
        let mut sq = 0.0;
        for r in &self.rows {
            let (a, b) = (&self.vel[r.a as usize], &self.vel[r.b as usize]);
            let gap = along(r.normal, &r.arms[0], a, b) - r.bias;
            let err = if r.pn > 0.0 { gap } else { gap.min(0.0) };
            sq += err * err;
        }
        self.residual.0 += (sq / self.rows.len() as f64).sqrt();
        self.residual.1 += 1;
    }

    /// The mean over the steps with contacts of the solver's residual after the sweeps of
    /// their last sub-step: the root mean square over the points of how far each point's normal velocity is from
    /// its solution (0 when the sweeps converged).
    pub fn mean_residual(&self) -> f64 {
        if self.residual.1 == 0 {
            0.0
        } else {
            self.residual.0 / self.residual.1 as f64
        }
    }

    /// Restitution, after the sweeps (of every sub-step for the fast pairs' points, found
    /// again at each, of the `last` for the others): each point that closed faster than
    /// [`RESTITUTION_SPEED`] when it was found and took a normal impulse leaves with the
    /// restitution's share of that speed (Box2D v3's order: the sweeps first stop the
    /// contact, so a resting contact never bounces).
    pub(super) fn restitution(&mut self, last: bool) {
        let from = if last { 0 } else { self.slow };
        self.restitution_of(from..self.rows.len());
    }

    /// [`SteppedSim::restitution`] of the rows in `range`.
    #[inline(never)]
    pub(super) fn restitution_of(&mut self, range: std::ops::Range<usize>) {
        let e = self.world.restitution;
        if !(e > 0.0) {
            return;
        }
        let bouncing: Vec<usize> = range
            .filter(|&k| self.points[k].closing < -RESTITUTION_SPEED && self.rows[k].pn > 0.0)
            .collect();
        // Sweeps, alternating, over the bouncing points: one pass would leave a box landing
        // flat on two corners spinning, the second corner's bounce undoing part of the
        // first's (measured: a box landing flat at restitution 1 left with 55% of its energy).
        let sweeps = if bouncing.len() < 2 {
            1
        } else {
            RESTITUTION_SWEEPS
        };
        let (rows, points, vel, blocks) =
            (&mut self.rows, &self.points, &mut self.vel, &self.blocks);
        // A block whose two points bounce bounces as one; its tail is left out.
        let bounces = |k: usize| bouncing.binary_search(&k).is_ok();
        let mut units: Vec<(usize, bool)> = bouncing
            .iter()
            .filter(|&&k| !(rows[k].block == TAIL && bounces(k - 1)))
            .map(|&k| (k, rows[k].block == HEAD && bounces(k + 1)))
            .collect();
        alternating(&mut units, sweeps, |us| {
            let (k, pair) = us[0];
            if pair {
                let target = [-e * points[k].closing, -e * points[k + 1].closing];
                let block = &blocks[rows[k].slot as usize];
                if solve_block(rows, k, target, Acc::Normal, vel, block) {
                    return;
                }
            }
            for k in k..=k + pair as usize {
                let r = &mut rows[k];
                let (ia, ib) = (r.a as usize, r.b as usize);
                let (mut a, mut b) = (vel[ia], vel[ib]);
                r.pn = normal_impulse(r, -e * points[k].closing, r.pn, &mut a, &mut b);
                vel[ia] = a;
                vel[ib] = b;
            }
        });
        still_walls(vel);
    }

    /// The kinetic energy of the bodies `of` at the velocities `vel` (indices of `of` into
    /// both), and the linear and quadratic terms `A`, `B` of `E(α)` along the change from
    /// `of`'s velocities to the solver's: `E(α) = E + αA + α²B`.
    fn energy_along(&self, of: &[(usize, V, V::Angular)]) -> (f64, f64, f64) {
        let (mut e, mut lin, mut quad) = (0.0, 0.0, 0.0);
        for &(i, v, w) in of {
            let b = &self.bodies[i];
            let (nv, nw) = self.vel[i];
            let m = 1.0 / b.inv_mass;
            let (dv, dw) = (nv - v, V::angular_add_scaled(nw, w, -1.0));
            let iw = V::inertia_apply(b.rotation, b.inertia, w);
            let idw = V::inertia_apply(b.rotation, b.inertia, dw);
            e += 0.5 * (m * v.length_squared() + V::angular_dot(w, iw));
            lin += m * v.dot(dv) + V::angular_dot(dw, iw);
            quad += 0.5 * (m * dv.length_squared() + V::angular_dot(dw, idw));
        }
        (e, lin, quad)
    }

    /// Moves the solver's velocities of the bodies `of` back to `α` of the way from `of`'s.
    fn scale_change(&mut self, of: &[(usize, V, V::Angular)], alpha: f64) {
        for &(i, v, w) in of {
            let (nv, nw) = &mut self.vel[i];
            let dv = *nv - v;
            let dw = V::angular_add_scaled(*nw, w, -1.0);
            *nv = v + dv * alpha;
            *nw = V::angular_add_scaled(w, dw, alpha);
        }
    }

    /// Contacts never create kinetic energy. The sweeps stop the contacts (they dissipate),
    /// then restitution makes them bounce: Newton's law applied point by point can ask more
    /// of a body touching at several points than the impact gave (a box spinning into a
    /// wall; measured: +0.1% in a room of boxes with restitution 1). So when the sub-step or
    /// impact (the bodies' velocities `before` it, and `swept` after its sweeps, before
    /// restitution) leaves more kinetic energy than it started with, only the bounce is
    /// scaled down, to the largest share `α ≤ 1` that leaves the energy it started with (a
    /// quadratic in `α`): a lone elastic impact keeps its energy. If the sweeps themselves
    /// gained energy (a warm start undone by the clamp leaves a round-off's worth), the
    /// whole change of the sub-step is scaled so, instead.
    #[inline(never)]
    pub(super) fn never_gain_energy(
        &mut self,
        before: &[(usize, V, V::Angular)],
        swept: Option<&[(usize, V, V::Angular)]>,
    ) {
        let (e0, lin0, quad0) = self.energy_along(before);
        if !(lin0 + quad0 > 0.0) || !(quad0 > 0.0) {
            return;
        }
        if let Some(swept) = swept {
            let (es, lin, quad) = self.energy_along(swept);
            if es <= e0 && quad > 0.0 {
                // E(α) = es + αA + α²B = e0: the root in [0, 1] (c = es - e0 <= 0).
                let c = es - e0;
                let root = (lin * lin - 4.0 * quad * c).max(0.0).sqrt();
                let alpha = if lin >= 0.0 {
                    -2.0 * c / (lin + root)
                } else {
                    (root - lin) / (2.0 * quad)
                };
                if alpha.is_finite() {
                    self.scale_change(swept, alpha.clamp(0.0, 1.0));
                    return;
                }
            }
        }
        // E(1) - E(0) = A + B > 0 from `before`: the positive root of αA + α²B = 0, below 1.
        self.scale_change(before, (-lin0 / quad0).clamp(0.0, 1.0));
    }

    /// The solver's velocities of `bodies`, with their indices (what the energy guard
    /// compares with).
    pub(super) fn solver_velocities(
        &self,
        bodies: impl IntoIterator<Item = usize>,
    ) -> Vec<(usize, V, V::Angular)> {
        bodies
            .into_iter()
            .map(|i| (i, self.vel[i].0, self.vel[i].1))
            .collect()
    }
}
