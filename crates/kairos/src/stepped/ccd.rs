//! The stepped engine's continuous collision check: within a sub-step, the bodies move only
//! up to the earliest conservative time of impact of a fast pair, the pair is resolved there,
//! and the rest of the sub-step follows (see the module docs of [`super`], "The continuous check").

use super::contacts::biases;
use super::solve::along;
use super::tunnel::Contacted;
use super::{ContactPair, Softness, SteppedSim, SPECULATIVE};
use crate::math::Vector;
use crate::roots::{Toi, ToiStatus};
use crate::world::World;

/// Impacts resolved in one sub-step before the check gives up (counted in
/// [`super::StepStats::ccd_gave_up`]): the rest of the sub-step then stops each body at its
/// next contact instead of resolving it (`SteppedSim::hold`), so none passes through.
pub const MAX_IMPACTS: u32 = 256;

/// A pair the check watches in a sub-step.
#[derive(Clone, Copy, Debug)]
pub(super) struct Watched {
    pub(super) pair: ContactPair,
    /// Resolved at the present instant: not asked again until time moves on (or an impact of
    /// one of its bodies changes their motion). An impact whose points hold the pair leaves
    /// it touching, and a time of impact asked at once would find it there again.
    quiet: bool,
    /// Impacts of the pair in this sub-step.
    hits: u32,
    /// When (in the sub-step) its last impact was resolved with points that hold it.
    held_at: Option<f64>,
    /// Its last time of impact, while its bodies keep the motion it was asked on.
    last: Option<Asked>,
}

impl Watched {
    pub(super) fn new(pair: ContactPair) -> Self {
        Self {
            pair,
            quiet: false,
            hits: 0,
            held_at: None,
            last: None,
        }
    }
}

/// A time of impact asked in a sub-step: the motions of the pair's two bodies it was asked on
/// (each body's count of motion changes in the sub-step; 0 for a wall), and its answer as a
/// time in the sub-step (`None`: no contact within it).
#[derive(Clone, Copy, Debug)]
struct Asked {
    motions: [u32; 2],
    at: Option<(f64, ToiStatus)>,
}

impl Asked {
    /// The time of impact from `now` on, if this answer still holds: the bodies kept their
    /// motion, and a contact it found is still ahead (one reached, or a safe time of a stalled
    /// advancement reached, is asked again).
    fn reuse(&self, motions: [u32; 2], now: f64) -> Option<Toi> {
        if self.motions != motions {
            return None;
        }
        match self.at {
            None => Some(Toi::miss(ToiStatus::Separating)),
            Some((at, status)) if at > now => Some(Toi {
                time: at - now,
                status,
            }),
            Some(_) => None,
        }
    }
}

/// Impacts of one pair at one instant before it is left quiet until time moves on: after an
/// impact whose points hold, the time of impact of a pair still touching may report contact
/// again at once (its witness points approach by round-off). A pair takes any number of
/// impacts at successive instants of a sub-step (a box spinning at thousands of radians per
/// second strikes a wall corner after corner).
pub const IMPACTS_PER_PAIR: u32 = 64;

/// The points of an impact are those no farther apart than the nearest one (or than touching,
/// if it penetrates) plus this share of the pair's size: the time of impact leaves the nearest
/// point about 10⁻⁷ of the size apart, a turning box's next corner is 10⁻³ or more away.
pub const IMPACT_GAP: f64 = 1e-4;

/// Notes that pair `c`'s bodies changed their motion at `now`: the first change of each body
/// in the sub-step (`changed`, for the contacts predicted at its start), and each body's count
/// of changes (`motions`, for the times of impact asked on the old motion).
fn changes(c: ContactPair, now: f64, changed: &mut Vec<(u32, f64)>, motions: &mut [u32]) {
    for x in [Some(c.a), (!c.wall).then_some(c.b)].into_iter().flatten() {
        motions[x as usize] += 1;
        if !changed.iter().any(|y| y.0 == x) {
            changed.push((x, now));
        }
    }
}

impl<V: Vector> SteppedSim<V> {
    /// The pairs that may touch in a sub-step of `h` where their contact points cannot stop
    /// them: two bodies (or a body and a wall) whose boxes swept over `h` meet, whose relative
    /// motion over `elapsed` (the step so far, this sub-step included; [`Self::travel`]) may
    /// cover the speculative margin (a pair without a point was farther apart than it at the start of
    /// the step), and that either have no point or turn by more than the margin within the
    /// sub-step (another corner swings in: the points, found at the start of the sub-step,
    /// hold only for a translation).
    ///
    /// The pairs of `unheld` (sorted: those whose points do not hold them,
    /// [`Self::unheld_pairs`]) are watched whatever their motion.
    #[inline(never)]
    pub(super) fn fast_pairs(
        &mut self,
        h: f64,
        elapsed: f64,
        unheld: &[ContactPair],
    ) -> Vec<Watched> {
        let n = self.bodies.len();
        // No pair can cover the margin when twice the fastest body's motion does not cover
        // the smallest body's: then nothing is watched (a resting stack).
        let (mut farthest, mut smallest) = (0.0f64, f64::INFINITY);
        for i in 0..n {
            if !self.asleep[i] {
                let (d, turn) = self.travel(i, elapsed, h);
                farthest = farthest.max(d.length() + turn);
                smallest = smallest.min(self.world.bodies[i].radius);
            }
        }
        if 2.0 * farthest < SPECULATIVE * smallest && unheld.is_empty() {
            return Vec::new();
        }
        let fails = |c: &ContactPair| unheld.binary_search(c).is_ok();
        let swept = self.swept_pairs(h);
        let travel = |i: usize| self.travel(i, elapsed, h);
        let spin = |i: usize| self.moving_reach(i).1;
        let mut has_point: Vec<ContactPair> = self.points.iter().map(|p| p.pair()).collect();
        has_point.sort_unstable();
        has_point.dedup();
        let touching = |c: &ContactPair| has_point.binary_search(c).is_ok();
        let mut out = Vec::new();
        for &[i, j] in &swept {
            let (i, j) = (i as usize, j as usize);
            if self.asleep[i] && self.asleep[j] {
                continue;
            }
            let c = ContactPair {
                a: i as u32,
                b: j as u32,
                wall: false,
            };
            let ((di, ti), (dj, tj)) = (travel(i), travel(j));
            let size = 0.5 * (self.world.bodies[i].radius + self.world.bodies[j].radius);
            let margin = SPECULATIVE * size;
            if ((di - dj).length() + ti + tj >= margin
                && (!touching(&c) || (spin(i) + spin(j)) * h >= margin))
                || fails(&c)
            {
                out.push(Watched::new(c));
            }
        }
        for i in 0..n {
            if self.asleep[i] {
                continue;
            }
            let (d, turn) = travel(i);
            let size = self.world.bodies[i].radius;
            let fast = d.length() + turn >= SPECULATIVE * size;
            let s = spin(i);
            for w in 0..self.world.wall_pieces.len() {
                let c = ContactPair {
                    a: i as u32,
                    b: w as u32,
                    wall: true,
                };
                if (fast && (!touching(&c) || s * h >= SPECULATIVE * size)) || fails(&c) {
                    out.push(Watched::new(c));
                }
            }
        }
        out
    }

    /// The pairs of bodies whose boxes swept over `h` (bounding spheres at the start and the
    /// end of the sub-step) overlap, by the sim's finder.
    fn swept_pairs(&mut self, h: f64) -> Vec<[u32; 2]> {
        self.boxes.clear();
        for (i, (b, body)) in self.bodies.iter().zip(&self.world.bodies).enumerate() {
            let r = V::splat(body.radius);
            let end = b.position + self.moving(i).0 * h;
            self.boxes.push(crate::math::Aabb {
                min: b.position.min(end) - r,
                max: b.position.max(end) + r,
            });
        }
        let mut pairs = Vec::new();
        self.swept_finder.find_pairs(&self.boxes, &mut pairs);
        pairs
    }

    /// The CCD world's body `i` set to the sim's state at its time 0, moving as the rest of
    /// the sub-step moves it ([`Self::moving`]).
    fn sync(ccd: &mut World<V>, sim: &Self, i: usize) {
        let b = &sim.bodies[i];
        let (v, w) = sim.moving(i);
        let body = &mut ccd.bodies[i];
        body.pos = b.position;
        body.vel = v;
        body.time = 0.0;
        let r = &mut ccd.rigid[i];
        r.rotation = b.rotation;
        r.set_angular_velocity(w);
    }

    /// The conservative time of impact by `t_max` of pair `c` on the bodies' straight-line,
    /// torque-free motion from their states now, as the rest of the sub-step moves them,
    /// asked of the CCD world `ccd`.
    pub(super) fn toi_of(
        ccd: &mut World<V>,
        sim: &Self,
        c: ContactPair,
        t_max: f64,
    ) -> crate::roots::Toi {
        Self::sync(ccd, sim, c.a as usize);
        if c.wall {
            ccd.predict_wall_by(c.a, c.b, t_max)
        } else {
            Self::sync(ccd, sim, c.b as usize);
            ccd.predict_pair_by(c.a, c.b, t_max)
        }
    }

    /// The pairs, sorted, whose contact points do not hold them in the sub-step of `h`: a
    /// point whose separation now plus its approach over the sub-step (at the velocities the
    /// sweeps left, and the pseudo-velocities when `split`) is a penetration deeper than the
    /// speculative margin. The sweeps did not stop the pair (a body between a much heavier one
    /// and the floor, a body of tiny inertia pushed at two corners): the continuous check
    /// watches it, whatever its speed, and resolves it as an impact.
    #[inline(never)]
    pub(super) fn unheld_pairs(&self, h: f64, split: bool) -> Vec<ContactPair> {
        let (vel, pseudo) = (&self.vel, &self.pseudo);
        let mut out = self.threads.filter_zip(&self.rows, &self.points, |r, p| {
            let (a, b) = (r.a as usize, r.b as usize);
            let mut vn = along(r.normal, &r.arms[0], &vel[a], &vel[b]);
            if split && !pseudo.is_empty() {
                vn += along(r.normal, &r.arms[0], &pseudo[a], &pseudo[b]);
            }
            (r.sep + h * vn < -r.margin).then(|| p.pair())
        });
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Moves the bodies through a sub-step of `h`, stopping at each impact of a watched pair
    /// to resolve it. A pair whose impact leaves its points still driving it in (the sweeps
    /// cannot stop it), and after [`MAX_IMPACTS`] every pair that would touch, is held
    /// ([`Self::hold`]) instead: counted in [`super::StepStats::ccd_gave_up`]. The first
    /// times of impact asked, on the motion at the start of the sub-step, give the contacts
    /// the exact motion makes ([`super::StepStats::tunnelled`] counts those not made).
    pub(super) fn advance_with_ccd(&mut self, h: f64, split: bool, mut watched: Vec<Watched>) {
        let mut ccd = self
            .ccd
            .take()
            .expect("the CCD world exists while the check is on");
        let (mut left, mut now) = (h, 0.0);
        let mut impacts = 0;
        let mut gave_up = false;
        // The contacts the motion at the start of the sub-step makes, and when each body's
        // motion first changed (an impact): a prediction holds until then.
        let mut predicted: Option<Vec<(Contacted<V>, f64)>> = None;
        let mut changed: Vec<(u32, f64)> = Vec::new();
        // Each body's count of motion changes in the sub-step (impacts, holds): a time of
        // impact asked holds while both its bodies' counts stay.
        let mut motions = vec![0u32; self.bodies.len()];
        loop {
            // The earliest impact over the watched pairs, ties to the first (pairs sorted).
            let mut first: Option<(f64, usize, ToiStatus)> = None;
            let mut scan = Vec::new();
            for (k, w) in watched.iter_mut().enumerate() {
                if w.quiet {
                    continue;
                }
                let toi = self.ask(&mut ccd, w, &motions, now, left);
                if toi.is_hit() && toi.time <= left {
                    if predicted.is_none() && toi.status != ToiStatus::Stalled {
                        let t = toi.time.max(0.0);
                        scan.push((self.contacted(w.pair, t), t));
                    }
                    if first.is_none_or(|f| toi.time < f.0) {
                        first = Some((toi.time.max(0.0), k, toi.status));
                    }
                }
            }
            predicted.get_or_insert(scan);
            // A quiet pair touches now without an impact; time moves on only as far as it
            // cannot reach a new contact (a corner swinging in) before it is asked again.
            let pause = self.quiet_reach(&watched);
            let (t, next) = match first {
                Some((t, k, status)) if t <= pause => (t, Some((k, status))),
                _ if pause < left => (pause, None),
                _ => break,
            };
            // Every pass counts, a stalled advancement too: the loop ends.
            impacts += 1;
            if impacts > MAX_IMPACTS {
                gave_up = true;
                break;
            }
            self.move_bodies(t, split);
            left -= t;
            now += t;
            if t > 0.0 {
                for w in watched.iter_mut().filter(|w| w.held_at.is_some()) {
                    w.quiet = false;
                }
            }
            let Some((k, status)) = next else {
                continue;
            };
            if status == ToiStatus::Stalled {
                // A safe time before any contact: measured again from there.
                watched[k].last = None;
                continue;
            }
            let c = watched[k].pair;
            if t == 0.0 && watched[k].held_at == Some(now) {
                // Resolved at this instant with points that hold it: still touching, not
                // approaching at its points (its time of impact's witnesses approach by
                // round-off). Left to its points until time moves on.
                watched[k].quiet = true;
                continue;
            }
            if watched[k].hits >= IMPACTS_PER_PAIR {
                // The pair took its most impacts in this sub-step: its bodies stop here.
                watched[k].quiet = true;
                self.hold(c);
                changes(c, now, &mut changed, &mut motions);
                self.watch_after_impact(c, left, &mut watched);
                continue;
            }
            let (pushed, holds) = self.impact(c, left.max(f64::MIN_POSITIVE));
            changes(c, now, &mut changed, &mut motions);
            // An impact whose points hold the pair (or that took no impulse) leaves it quiet
            // at this instant; one whose points do not (a bounce at one corner drove the other
            // in) is resolved again, and after IMPACTS_PER_PAIR tries its bodies are held.
            let w = &mut watched[k];
            w.hits += 1;
            w.quiet = !pushed;
            w.held_at = holds.then_some(now);
            if !holds && w.hits >= IMPACTS_PER_PAIR {
                w.quiet = true;
                self.hold(c);
            }
            // The impact changed the two bodies' motion: their pairs that may now meet in the
            // rest of the sub-step are watched too (a slow body knocked fast).
            self.watch_after_impact(c, left, &mut watched);
        }
        if gave_up {
            // Past the most impacts: each body stops at its next contact in the sub-step.
            self.stats.ccd_gave_up += 1;
            for _ in 0..=self.bodies.len() {
                let mut first: Option<(f64, ContactPair)> = None;
                for w in &mut watched {
                    let toi = self.ask(&mut ccd, w, &motions, now, left);
                    if toi.is_hit() && toi.time <= left && first.is_none_or(|f| toi.time < f.0) {
                        first = Some((toi.time.max(0.0), w.pair));
                    }
                }
                let Some((t, c)) = first else {
                    break;
                };
                self.move_bodies(t, split);
                left -= t;
                now += t;
                self.hold_quietly(c);
                changes(c, now, &mut changed, &mut motions);
            }
        }
        // A predicted contact whose bodies kept their motion up to it was made: the pair must
        // push in this step or the next, or it passed through.
        for (made, t) in predicted.unwrap_or_default() {
            let c = made.pair;
            let since = |x: u32| {
                changed
                    .iter()
                    .find(|y| y.0 == x)
                    .map_or(f64::INFINITY, |y| y.1)
            };
            let before = since(c.a).min(if c.wall { f64::INFINITY } else { since(c.b) });
            if t < before {
                self.pending.push(made);
            }
        }
        self.ccd = Some(ccd);
        self.move_bodies(left, split);
    }

    /// How long time may move on before a pair of `watched` left quiet at this instant (its
    /// impact took no impulse, or its points hold it; asked again once time moves on) can make
    /// a new contact: the time its bodies' turns (and, with a compound body, their relative
    /// motion) take to cover the speculative margin. Convex bodies touching without
    /// approaching do not come into each other by a translation (the signed distance to a
    /// convex set is convex along a line), but a turn swings other corners in: a plank spinning
    /// at 10⁵ rad/s that left the floor by one corner brought the other through it before the
    /// pair was asked again (a body out of the `bullet` room at 10⁶ units/s, `dt = 0.001`, soft
    /// contacts).
    fn quiet_reach(&self, watched: &[Watched]) -> f64 {
        let mut reach = f64::INFINITY;
        for w in watched.iter().filter(|w| w.quiet && w.held_at.is_some()) {
            let c = w.pair;
            let compound = |i: u32| self.world.rigid[i as usize].pieces > 1;
            let (va, ta) = self.moving_reach(c.a as usize);
            let ra = self.world.bodies[c.a as usize].radius;
            let (speed, size) = if c.wall {
                (ta + if compound(c.a) { va.length() } else { 0.0 }, ra)
            } else {
                let (vb, tb) = self.moving_reach(c.b as usize);
                let rb = self.world.bodies[c.b as usize].radius;
                let slide = compound(c.a) || compound(c.b);
                (
                    ta + tb + if slide { (va - vb).length() } else { 0.0 },
                    0.5 * (ra + rb),
                )
            };
            if speed > 0.0 {
                reach = reach.min(SPECULATIVE * size / speed);
            }
        }
        reach
    }

    /// The time of impact of watched pair `w` from `now` on (within `left`), asked of the CCD
    /// world only when no earlier answer holds ([`Asked::reuse`]): the bodies' motions are
    /// straight lines and torque-free turns, so an answer asked on them holds until an impact
    /// or a hold changes one of them (`motions`, each body's count of changes), and the other
    /// pairs keep theirs while the sub-step's impacts are resolved one by one.
    fn ask(
        &mut self,
        ccd: &mut World<V>,
        w: &mut Watched,
        motions: &[u32],
        now: f64,
        left: f64,
    ) -> Toi {
        let c = w.pair;
        let of = [
            motions[c.a as usize],
            if c.wall { 0 } else { motions[c.b as usize] },
        ];
        if let Some(toi) = w.last.and_then(|x| x.reuse(of, now)) {
            return toi;
        }
        let toi = Self::toi_of(ccd, self, c, left);
        self.stats.ccd_queries += 1;
        let hit = toi.is_hit() && toi.time <= left;
        w.last = Some(Asked {
            motions: of,
            at: hit.then_some((now + toi.time.max(0.0), toi.status)),
        });
        toi
    }

    /// Stops the bodies of pair `c` where they are for the rest of the sub-step (their
    /// velocities and pseudo-velocities to zero): the sweeps could not keep the pair from
    /// passing through each other, so the check gives up on resolving it (counted in
    /// [`super::StepStats::ccd_gave_up`]).
    pub(super) fn hold(&mut self, c: ContactPair) {
        self.stats.ccd_gave_up += 1;
        self.hold_quietly(c);
    }

    /// [`Self::hold`] without the count.
    fn hold_quietly(&mut self, c: ContactPair) {
        for x in [Some(c.a), (!c.wall).then_some(c.b)].into_iter().flatten() {
            let x = x as usize;
            if self.bodies[x].inv_mass == 0.0 {
                continue;
            }
            let b = &mut self.bodies[x];
            b.velocity = V::ZERO;
            b.angular_velocity = V::Angular::default();
            if self.moving_split {
                self.pseudo[x] = (V::ZERO, V::Angular::default());
            }
        }
    }

    /// Watches again the pairs of the bodies of pair `c` resolved earlier in the sub-step, and
    /// adds the pairs of those bodies (with every wall, and with every body whose sphere swept
    /// over `left` meets theirs) that `watched` does not hold yet.
    fn watch_after_impact(&self, c: ContactPair, left: f64, watched: &mut Vec<Watched>) {
        let mut bodies = vec![c.a];
        if !c.wall {
            bodies.push(c.b);
        }
        let swept = |i: usize| {
            let (v, spin) = self.moving_reach(i);
            let r = self.world.bodies[i].radius;
            (self.bodies[i].position, r + (v.length() + spin) * left)
        };
        // A pair of these bodies resolved earlier in the sub-step is watched again: the
        // impact changed their motion (a body bounced off the floor and then struck from above
        // is driven back at it).
        for w in watched.iter_mut() {
            let p = w.pair;
            let shares = bodies.contains(&p.a) || (!p.wall && bodies.contains(&p.b));
            if shares && p != c {
                w.quiet = false;
            }
        }
        let add = |pair: ContactPair, watched: &mut Vec<Watched>| {
            if !watched.iter().any(|w| w.pair == pair) {
                watched.push(Watched::new(pair));
            }
        };
        for &x in &bodies {
            for w in 0..self.world.wall_pieces.len() as u32 {
                add(
                    ContactPair {
                        a: x,
                        b: w,
                        wall: true,
                    },
                    watched,
                );
            }
            let (cx, rx) = swept(x as usize);
            for y in 0..self.bodies.len() as u32 {
                if y == x {
                    continue;
                }
                let (cy, ry) = swept(y as usize);
                if (cx - cy).length() <= rx + ry {
                    add(
                        ContactPair {
                            a: x.min(y),
                            b: x.max(y),
                            wall: false,
                        },
                        watched,
                    );
                }
            }
        }
    }

    /// Resolves the impact of pair `c` now: its contact points in contact (within
    /// [`IMPACT_GAP`] of the nearest) are solved as in a sub-step of `h` (the rest of this one),
    /// with restitution, and forgotten. Whether a point took an impulse or a point still apart
    /// was left to a later impact (either way the pair stays watched), and whether the points
    /// hold the pair: none is left driven deeper than the speculative margin in `h`.
    fn impact(&mut self, c: ContactPair, h: f64) -> (bool, bool) {
        self.wake(c.a as usize);
        if !c.wall {
            self.wake(c.b as usize);
        }
        let from = self.rows.len();
        let (mut rows, mut points) = (
            std::mem::take(&mut self.rows),
            std::mem::take(&mut self.points),
        );
        self.pair_points(c, &mut rows, &mut points);
        (self.rows, self.points) = (rows, points);
        // Only the points in contact at the impact take part in it. A point of the manifold
        // still apart (another corner of a turning box, within the speculative margin) would
        // bounce as if it touched now: an impact at two points at once, which loses energy
        // (the bullet room lost 10% in 2 s at 10^3 units/s). It is the pair's next impact if
        // it comes within the sub-step: the pair stays watched.
        let nearest = self.points[from..]
            .iter()
            .map(|p| p.separation)
            .fold(f64::INFINITY, f64::min);
        let (mut k, mut left_apart) = (from, false);
        while k < self.points.len() {
            let p = &self.points[k];
            if p.separation > nearest.max(0.0) + IMPACT_GAP * p.size {
                self.rows.remove(k);
                self.points.remove(k);
                left_apart = true;
            } else {
                k += 1;
            }
        }
        let to = self.rows.len();
        if to == from {
            return (false, true);
        }
        self.stats.ccd_impacts += 1;
        let soft = Softness::pair(h);
        for k in from..to {
            let p = &self.points[k];
            let (sep, size) = (p.separation, [p.size, p.slop_size]);
            biases(
                &mut self.rows[k],
                sep,
                size,
                h,
                self.options.correction,
                &soft,
            );
        }
        let every = self.converging(h);
        super::rows::mark_blocks(&mut self.rows[from..to], every, &mut self.blocks);
        // The solver's velocities of the two bodies (the rest are not read), the walls' last.
        let n = self.bodies.len();
        self.vel.resize(n + 1, (V::ZERO, V::Angular::default()));
        self.vel[n] = (V::ZERO, V::Angular::default());
        let mut before = vec![c.a as usize];
        if !c.wall {
            before.push(c.b as usize);
        }
        let before: Vec<(usize, V, V::Angular)> = before
            .into_iter()
            .map(|i| {
                let b = &self.bodies[i];
                self.vel[i] = (b.velocity, b.angular_velocity);
                (i, b.velocity, b.angular_velocity)
            })
            .collect();
        self.sweeps_of(from..to);
        let swept = (self.world.restitution > 0.0)
            .then(|| self.solver_velocities(before.iter().map(|x| x.0)));
        self.restitution_of(from..to);
        self.never_gain_energy(&before, swept.as_deref());
        for &(i, _, _) in &before {
            let b = &mut self.bodies[i];
            (b.velocity, b.angular_velocity) = self.vel[i];
            // The impact's bodies leave it with the velocities it gave them alone: a
            // pseudo-velocity (a push out of penetration, or a soft contact's push) that drove
            // them into it would drive them on through.
            if self.moving_split {
                self.pseudo[i] = (V::ZERO, V::Angular::default());
            }
        }
        let pushed = self.rows[from..to].iter().any(|r| r.pn > 0.0);
        if pushed {
            self.touching.push(c);
        }
        let holds = self.rows[from..to]
            .iter()
            .zip(&self.points[from..to])
            .all(|(r, p)| {
                let vn = along(
                    r.normal,
                    &r.arms[0],
                    &self.vel[r.a as usize],
                    &self.vel[r.b as usize],
                );
                p.separation + h * vn >= -SPECULATIVE * p.size
            });
        self.rows.truncate(from);
        self.points.truncate(from);
        (pushed || left_apart, holds)
    }
}
