//! The stepped engine's continuous collision check: within a sub-step, the bodies move only
//! up to the earliest conservative time of impact of a fast pair, the pair is resolved there,
//! and the rest of the sub-step follows (see the module docs of [`super`], "The continuous check").

use super::contacts::biases;
use super::{ContactPair, Softness, SteppedSim, SPECULATIVE};
use crate::math::Vector;
use crate::roots::ToiStatus;
use crate::world::World;

/// Impacts resolved in one sub-step before the check gives up (counted in
/// [`super::StepStats::ccd_gave_up`]): the rest of the sub-step then moves without it.
pub const MAX_IMPACTS: u32 = 256;

/// A pair the check watches in a sub-step.
#[derive(Clone, Copy, Debug)]
pub(super) struct Watched {
    pub(super) pair: ContactPair,
    /// No longer watched in this sub-step: its last impact took no impulse (the pair was
    /// already separating where it touched), or it took [`IMPACTS_PER_PAIR`] impacts; its
    /// later contacts are left to the next sub-step's points.
    done: bool,
    /// Impacts of the pair in this sub-step.
    hits: u32,
}

/// Impacts of one pair in one sub-step before the pair is left to the next sub-step's points: a box
/// spinning at thousands of radians per second strikes a wall corner after corner.
pub const IMPACTS_PER_PAIR: u32 = 16;

/// The points of an impact are those no farther apart than the nearest one (or than touching,
/// if it penetrates) plus this share of the pair's size: the time of impact leaves the nearest
/// point about 10⁻⁷ of the size apart, a turning box's next corner is 10⁻³ or more away.
pub const IMPACT_GAP: f64 = 1e-4;

impl<V: Vector> SteppedSim<V> {
    /// The pairs that may touch in a sub-step of `h` where their contact points cannot stop
    /// them: two bodies (or a body and a wall) whose boxes swept over `h` meet, whose relative
    /// motion over `elapsed` (the step so far, this sub-step included; [`Self::travel`]) may
    /// cover the speculative margin (a pair without a point was farther apart than it at the start of
    /// the step), and that either have no point or turn by more than the margin within the
    /// sub-step (another corner swings in: the points, found at the start of the sub-step,
    /// hold only for a translation).
    #[inline(never)]
    pub(super) fn fast_pairs(&mut self, h: f64, elapsed: f64) -> Vec<Watched> {
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
        if 2.0 * farthest < SPECULATIVE * smallest {
            return Vec::new();
        }
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
            if (di - dj).length() + ti + tj >= margin
                && (!touching(&c) || (spin(i) + spin(j)) * h >= margin)
            {
                out.push(Watched {
                    pair: c,
                    done: false,
                    hits: 0,
                });
            }
        }
        for i in 0..n {
            if self.asleep[i] {
                continue;
            }
            let (d, turn) = travel(i);
            let size = self.world.bodies[i].radius;
            if d.length() + turn < SPECULATIVE * size {
                continue;
            }
            let s = spin(i);
            for w in 0..self.world.wall_pieces.len() {
                let c = ContactPair {
                    a: i as u32,
                    b: w as u32,
                    wall: true,
                };
                if !touching(&c) || s * h >= SPECULATIVE * size {
                    out.push(Watched {
                        pair: c,
                        done: false,
                        hits: 0,
                    });
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

    /// Moves the bodies through a sub-step of `h`, stopping at each impact of a watched pair
    /// to resolve it.
    pub(super) fn advance_with_ccd(&mut self, h: f64, split: bool, mut watched: Vec<Watched>) {
        let mut ccd = self
            .ccd
            .take()
            .expect("the CCD world exists while the check is on");
        let mut left = h;
        let mut impacts = 0;
        loop {
            if watched.iter().all(|w| w.done) {
                break;
            }
            if impacts == MAX_IMPACTS {
                self.stats.ccd_gave_up += 1;
                break;
            }
            // The earliest impact over the watched pairs, ties to the first (pairs sorted).
            let mut first: Option<(f64, usize, ToiStatus)> = None;
            for (k, w) in watched.iter().enumerate() {
                if w.done {
                    continue;
                }
                let toi = Self::toi_of(&mut ccd, self, w.pair, left);
                self.stats.ccd_queries += 1;
                if toi.is_hit() && toi.time <= left && first.is_none_or(|f| toi.time < f.0) {
                    first = Some((toi.time.max(0.0), k, toi.status));
                }
            }
            let Some((t, k, status)) = first else {
                break;
            };
            self.move_bodies(t, split);
            left -= t;
            if status == ToiStatus::Stalled {
                // A safe time before any contact: measured again from there.
                continue;
            }
            impacts += 1;
            let c = watched[k].pair;
            let pushed = self.impact(c, left.max(f64::MIN_POSITIVE));
            watched[k].hits += 1;
            watched[k].done = !pushed || watched[k].hits >= IMPACTS_PER_PAIR;

            // The impact changed the two bodies' motion: their pairs that may now meet in the
            // rest of the sub-step are watched too (a slow body knocked fast).
            self.watch_after_impact(c, left, &mut watched);
        }
        self.ccd = Some(ccd);
        self.move_bodies(left, split);
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
            if shares && p != c && w.hits < IMPACTS_PER_PAIR {
                w.done = false;
            }
        }
        let add = |pair: ContactPair, watched: &mut Vec<Watched>| {
            if !watched.iter().any(|w| w.pair == pair) {
                watched.push(Watched {
                    pair,
                    done: false,
                    hits: 0,
                });
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
    /// was left to a later impact (either way the pair stays watched).
    fn impact(&mut self, c: ContactPair, h: f64) -> bool {
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
            return false;
        }
        self.stats.ccd_impacts += 1;
        let soft = Softness::pair(h);
        for k in from..to {
            let p = &self.points[k];
            let (sep, size) = (p.separation, p.size);
            biases(
                &mut self.rows[k],
                sep,
                size,
                h,
                self.options.correction,
                &soft,
            );
        }
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
        self.rows.truncate(from);
        self.points.truncate(from);
        pushed || left_apart
    }
}
