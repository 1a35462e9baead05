//! Discrete-time stepping: the method the thesis compares against (section 5.3, Table 5.2).
//!
//! Time advances by a fixed `dt` (optionally in `k` sub-steps). Each sub-step moves every body
//! by explicit Euler (thesis 2.4.1.1; with constant velocities this is `x += v h`), asks a
//! discrete broad phase ([`crate::overlap`]) for the pairs whose boxes overlap, and resolves
//! every pair that overlaps: the bodies are pushed apart along the centre line (in proportion
//! to their inverse masses) until they touch, then the impulse of the event-driven simulator
//! ([`World::resolve`]) is applied. Ball-wall pairs are resolved the same way, after the
//! ball-ball pairs, against the wall's closest point.
//!
//! With `toi_rewind` (the slides' "computing collision time"), each overlapping pair is instead
//! moved back to the time of first contact within the step, found by bisection on the overlap
//! test, resolved there, and moved forward to the end of the step with its new velocities;
//! contacts are processed in the order of these times.
//!
//! # Missed collisions
//! A sub-step from `t0` to `t1` *misses* a contact when the exact linear motion of a pair
//! (ball-ball, or ball-wall) from its state at `t0` brings it into contact while approaching at
//! some time in `[t0, t1)`, yet the overlap test at `t1` does not see it: either the pair does
//! not overlap at `t1` (it tunnelled through or grazed past within the step), or the centres
//! have passed each other (a ball-ball pair) or the ball's centre has crossed the wall (a
//! ball-wall pair) along the normal at contact, so that the overlap is resolved towards the
//! wrong side: a ball that ends a step on the far side of a wall it touched counts. The contact
//! times come from the same exact functions as the event-driven simulator ([`crate::ball_toi`]), on
//! the state at the start of the step; the counter runs alongside the simulation and never
//! changes it. The windows are half-open so that a contact on a step boundary (within the
//! round-off of the times) is counted once, by the step that starts there (the last step's
//! window is closed).
//!
//! # Rigid bodies
//! A world with rigid bodies ([`World::rigid`]) is stepped the same way with the bodies'
//! shapes: each sub-step moves and turns every body ([`World::advance_body`]), the finder gives
//! the pairs whose bounding spheres' boxes overlap, and a pair (or a body and a wall: a plane,
//! or the pieces of a segment or polygon) is a contact when the posed shapes overlap by more
//! than [`SLOP`] times the pair's size (GJK, then EPA for the depth and normal). The contact is
//! pushed apart along EPA's normal by the depth, in proportion to the inverse masses, to a gap
//! of a fraction of the contact shell ([`crate::rigid::SHELL`]), and [`World::resolve`] applies
//! the rigid response at the contact's manifold. The rewind bisects on the same overlap test.
//! Gravity is refused for now ([`DiscreteError::Gravity`]); rigid bodies in a periodic box
//! never reach the stepper, since no world holds them ([`crate::world::WorldError`]).
//!
//! A sub-step from `t0` to `t1` misses a rigid contact when the event-driven prediction from
//! the state at `t0` ([`World::predict_pair_by`], [`World::predict_wall_by`] bounded by `t1`)
//! reports a contact (the bodies within the contact shell, approaching) at some time `tc` in
//! `[t0, t1)`, yet the overlap test at `t1` does not see it: the shapes do not overlap at `t1`
//! (tunnelled through or grazed past within the step), or the push apart at `t1` would move
//! them against the normal at `tc` (GJK's, from one body to the other or to the wall's nearest
//! piece; against a plane, the side of the body's centre at `t0`), so that the overlap is
//! resolved towards the wrong side: a body that ends a step on the far side of a wall it
//! touched counts. [`Misses::body_body`] then counts the pairs of bodies, [`Misses::body_wall`]
//! the body-wall contacts.
//!
//! These windows are half-open too: a contact that the next sub-step's prediction, from the
//! states at `t1` (this sub-step's contacts resolved), reports at its start belongs to the next
//! sub-step, and is counted once. As a rigid contact is reported as soon as the pair is within
//! its contact shell, slightly before the shapes touch, this takes in a contact on the boundary
//! and one reported before it whose pair is still apart at `t1`, within its shell and
//! approaching (the last sub-step's window is closed).

use crate::ball_toi::ball_ball;
use crate::body::Body;
use crate::event::{Event, EventKind};
use crate::math::{Aabb, Vector};
use crate::names::BadOption;
use crate::overlap::{OverlapFinder, OverlapKind};
use crate::sim::EventCounts;
use crate::world::World;

mod rigid;
pub use rigid::SLOP;

/// Relative padding of the boxes given to the broad phases, above coordinate round-off.
const PAD_REL: f64 = 1e-9;
/// Bisection steps of the contact-time rewind (the interval shrinks by `2^-60`).
const REWIND_STEPS: usize = 60;

/// Parameters of a discrete-time run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiscreteOptions {
    /// Time step, `> 0`.
    pub dt: f64,
    /// Internal sub-steps per `dt`, `>= 1`.
    pub substeps: u32,
    /// Move overlapping pairs back to their first contact within the step.
    pub toi_rewind: bool,
    /// Count missed collisions (see the [module documentation](self)).
    pub count_misses: bool,
}

impl Default for DiscreteOptions {
    fn default() -> Self {
        Self {
            dt: 0.01,
            substeps: 1,
            toi_rewind: false,
            count_misses: true,
        }
    }
}

impl DiscreteOptions {
    /// Checks the ranges documented on the fields.
    pub fn validate(&self) -> Result<(), BadOption> {
        let dt = self.dt;
        BadOption::check(dt > 0.0 && dt.is_finite(), "dt", "positive and finite", dt)?;
        let k = self.substeps as f64;
        BadOption::check(self.substeps >= 1, "substeps", "at least 1", k)
    }
}

/// Why a discrete simulation cannot start.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum DiscreteError {
    /// An option is out of range.
    #[error(transparent)]
    Option(#[from] BadOption),
    /// A step could carry a body further than a quarter of the periodic box.
    #[error(
        "a step of {step} can move a body by up to {reach:.4}, more than a quarter of the periodic box ({shortest}); use a smaller dt or more substeps"
    )]
    StepTooLong {
        /// The step (dt / substeps).
        step: f64,
        /// The longest move a step allows.
        reach: f64,
        /// The shortest box length.
        shortest: f64,
    },
    /// A world with gravity: the fixed steps move bodies on straight lines and know nothing of
    /// sleeping bodies (see [`WorldBuilder::gravity`](crate::world::WorldBuilder::gravity)).
    #[error("gravity is not supported by the discrete stepper yet")]
    Gravity,
}

/// Missed collisions of a discrete run (see the [module documentation](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Misses {
    /// Body-body contacts missed (pairs of balls, or of rigid bodies).
    pub body_body: u64,
    /// Body-wall contacts missed (of balls, or of rigid bodies).
    pub body_wall: u64,
}

impl Misses {
    /// All missed contacts.
    pub fn total(&self) -> u64 {
        self.body_body + self.body_wall
    }
}

/// A contact found at the end of a sub-step, waiting to be resolved.
#[derive(Clone, Copy, Debug)]
struct Contact {
    time: f64,
    kind: EventKind,
    a: u32,
    b: u32,
}

/// A discrete-time simulation of a [`World`].
pub struct DiscreteSim<V: Vector> {
    world: World<V>,
    finder: Box<dyn OverlapFinder<V>>,
    miss_finder: Box<dyn OverlapFinder<V>>,
    opts: DiscreteOptions,
    end_time: f64,
    /// Sub-step length.
    h: f64,
    /// Sub-steps taken.
    steps: u64,
    now: f64,
    counts: EventCounts,
    misses: Misses,
    initial_energy: f64,
    // Scratch buffers, kept to avoid allocation per step.
    boxes: Vec<Aabb<V>>,
    /// Per box: its body and the image shift (in box lengths) of a periodic image.
    owners: Vec<(u32, [i8; 3])>,
    pairs: Vec<[u32; 2]>,
    candidates: Vec<(u32, u32, [i8; 3])>,
    contacts: Vec<Contact>,
    start: Vec<Body<V>>,
    /// Rigid contacts of the exact motion within the sub-step that its overlap test does not
    /// see, counted as misses once the sub-step is done (see `settle_misses_rigid`).
    unseen: Vec<Contact>,
}

impl<V: Vector> DiscreteSim<V> {
    /// A discrete simulation of `world` from time 0 to `end_time`, with the discrete broad
    /// phase `kind`. Errors when the options are out of range, or when a step could carry a
    /// body further than a quarter of a periodic box (periodic images would be ambiguous).
    pub fn new(
        world: World<V>,
        kind: OverlapKind,
        opts: DiscreteOptions,
        end_time: f64,
    ) -> Result<Self, DiscreteError> {
        opts.validate()?;
        if world.gravity != V::ZERO {
            return Err(DiscreteError::Gravity);
        }
        let h = opts.dt / opts.substeps as f64;
        let initial_energy = world.kinetic_energy();
        if let Some(l) = world.period {
            // No collision raises a body's speed above the one it would have with all the
            // energy: the step's longest move is bounded before the run.
            let min_mass = world
                .bodies
                .iter()
                .map(Body::mass)
                .fold(f64::INFINITY, f64::min);
            let vmax = (2.0 * initial_energy / min_mass).sqrt();
            let shortest = (0..V::DIM).map(|k| l.comp(k)).fold(f64::INFINITY, f64::min);
            if vmax * h > 0.25 * shortest {
                return Err(DiscreteError::StepTooLong {
                    step: h,
                    reach: vmax * h,
                    shortest,
                });
            }
        }
        Ok(Self {
            finder: kind.build(),
            miss_finder: kind.build(),
            opts,
            end_time,
            h,
            steps: 0,
            now: 0.0,
            counts: EventCounts::default(),
            misses: Misses::default(),
            initial_energy,
            boxes: Vec::new(),
            owners: Vec::new(),
            pairs: Vec::new(),
            candidates: Vec::new(),
            contacts: Vec::new(),
            start: Vec::new(),
            unseen: Vec::new(),
            world,
        })
    }

    /// Runs one sub-step, calling `on_event` after each resolved contact with the updated
    /// world (the bodies of the event hold their state at the event time). Returns `false`
    /// (doing nothing) once the end time is reached.
    pub fn step(&mut self, mut on_event: impl FnMut(&Event, &World<V>)) -> bool {
        if self.now >= self.end_time {
            return false;
        }
        let t0 = self.now;
        let t1 = ((self.steps + 1) as f64 * self.h).min(self.end_time);
        if !self.world.rigid.is_empty() {
            self.step_rigid(t0, t1, &mut on_event);
            self.steps += 1;
            self.now = t1;
            return true;
        }
        if self.opts.count_misses {
            self.start.clear();
            self.start.extend_from_slice(&self.world.bodies);
        }
        for i in 0..self.world.bodies.len() {
            self.world.bodies[i].advance_to(t1);
            self.wrap(i);
        }
        if self.opts.count_misses {
            self.count_misses(t0, t1);
        }
        self.find_contacts(t0, t1);
        let contacts = std::mem::take(&mut self.contacts);
        let mut last = t0;
        for c in &contacts {
            if let Some(e) = self.resolve(c, t0, t1, &mut last) {
                match e.kind {
                    EventKind::BodyBody => self.counts.body_body += 1,
                    _ => self.counts.body_wall += 1,
                }
                on_event(&e, &self.world);
            }
        }
        self.contacts = contacts;
        if self.opts.toi_rewind {
            // Bodies resolved at a rewound contact time move on to the end of the step.
            for i in 0..self.world.bodies.len() {
                if self.world.bodies[i].time < t1 {
                    self.world.bodies[i].advance_to(t1);
                    self.wrap(i);
                }
            }
        }
        self.steps += 1;
        self.now = t1;
        true
    }

    /// Runs to the end time, calling `on_event` after each resolved contact.
    pub fn run(&mut self, mut on_event: impl FnMut(&Event, &World<V>)) {
        while self.step(&mut on_event) {}
    }

    /// Wraps body `i` into the periodic box (keeping its unwrapped position).
    fn wrap(&mut self, i: usize) {
        let Some(l) = self.world.period else {
            return;
        };
        let b = &mut self.world.bodies[i];
        let mut p = b.pos.to_array3();
        let mut moved = false;
        for (axis, x) in p.iter_mut().enumerate().take(V::DIM) {
            let len = l.comp(axis);
            if *x < 0.0 || *x >= len {
                let k = (*x / len).floor();
                *x -= k * len;
                if *x >= len {
                    *x = 0.0;
                }
                self.world.images[i][axis] += k as i64;
                moved = true;
            }
        }
        if moved {
            b.pos = V::from_array3(p);
        }
    }

    /// Adds to `boxes` (one per body) the images of those sticking out of a periodic box's
    /// faces, then fills `candidates` with the overlapping pairs (bodies `i < j` and the image
    /// shift of `j` relative to `i`), without duplicates.
    fn find_candidates(&mut self, use_miss_finder: bool) {
        let n = self.world.bodies.len();
        self.owners.clear();
        self.owners.extend((0..n as u32).map(|i| (i, [0i8; 3])));
        if let Some(l) = self.world.period {
            for i in 0..n {
                let b = self.boxes[i];
                let mut opts = [[0i8; 3]; 3];
                let mut counts = [1usize; 3];
                for axis in 0..V::DIM {
                    if b.min.comp(axis) < 0.0 {
                        opts[axis][counts[axis]] = 1;
                        counts[axis] += 1;
                    }
                    if b.max.comp(axis) > l.comp(axis) {
                        opts[axis][counts[axis]] = -1;
                        counts[axis] += 1;
                    }
                }
                let cz = if V::DIM == 3 { counts[2] } else { 1 };
                for ix in 0..counts[0] {
                    for iy in 0..counts[1] {
                        for iz in 0..cz {
                            if ix + iy + iz == 0 {
                                continue;
                            }
                            let k = [opts[0][ix], opts[1][iy], opts[2][iz]];
                            let s = shift_vector(k, l);
                            self.boxes.push(Aabb::new(b.min + s, b.max + s));
                            self.owners.push((i as u32, k));
                        }
                    }
                }
            }
        }
        let finder = if use_miss_finder {
            &mut self.miss_finder
        } else {
            &mut self.finder
        };
        finder.find_pairs(&self.boxes, &mut self.pairs);
        self.candidates.clear();
        for &[p, q] in &self.pairs {
            let (i, si) = self.owners[p as usize];
            let (j, sj) = self.owners[q as usize];
            if i == j {
                continue;
            }
            // Shift of the higher body's image relative to the lower one's.
            let rel = |a: [i8; 3], b: [i8; 3]| [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            self.candidates.push(if i < j {
                (i, j, rel(si, sj))
            } else {
                (j, i, rel(sj, si))
            });
        }
        if self.boxes.len() > n {
            self.candidates.sort_unstable();
            self.candidates.dedup();
        }
    }

    /// The overlapping ball-ball and ball-wall pairs at `t1`, in processing order.
    fn find_contacts(&mut self, t0: f64, t1: f64) {
        self.boxes.clear();
        self.boxes.extend(self.world.bodies.iter().map(|b| {
            let pad = b.radius + PAD_REL * (b.radius + b.pos.max_abs());
            Aabb::new(b.pos, b.pos).expanded(pad)
        }));
        self.find_candidates(false);
        self.contacts.clear();
        let period = self.world.period;
        for &(i, j, k) in &self.candidates {
            let (bi, bj) = (
                &self.world.bodies[i as usize],
                &self.world.bodies[j as usize],
            );
            let shift = period.map_or(V::ZERO, |l| shift_vector(k, l));
            let d = bi.pos - (bj.pos + shift);
            let sigma = bi.radius + bj.radius;
            if d.length_squared() < sigma * sigma {
                self.contacts.push(Contact {
                    time: t1,
                    kind: EventKind::BodyBody,
                    a: i,
                    b: j,
                });
            }
        }
        for (w, wall) in self.world.walls.iter().enumerate() {
            for (i, b) in self.world.bodies.iter().enumerate() {
                if wall.distance(b.pos) < b.radius {
                    self.contacts.push(Contact {
                        time: t1,
                        kind: EventKind::BodyWall,
                        a: i as u32,
                        b: w as u32,
                    });
                }
            }
        }
        self.order_contacts(t0, t1);
    }

    /// Puts the contacts found at `t1` in processing order: by their rewound times with the
    /// contact-time rewind, else the pairs of bodies in id order, then the walls.
    fn order_contacts(&mut self, t0: f64, t1: f64) {
        if self.opts.toi_rewind {
            for k in 0..self.contacts.len() {
                let c = self.contacts[k];
                self.contacts[k].time = self.rewind_time(&c, t0, t1);
            }
            self.contacts.sort_by(|x, y| {
                x.time
                    .total_cmp(&y.time)
                    .then(x.a.cmp(&y.a))
                    .then(x.kind.cmp(&y.kind))
                    .then(x.b.cmp(&y.b))
            });
        } else {
            // Ball-ball pairs in id order, then the walls (which get the last word).
            self.contacts
                .sort_by(|x, y| x.kind.cmp(&y.kind).then(x.a.cmp(&y.a)).then(x.b.cmp(&y.b)));
        }
    }

    /// Penetration depth of a contact with the bodies' current motions taken to time `t`
    /// (positive when overlapping) and the unit normal pointing from `b` (or the wall) to `a`.
    fn penetration_at(&self, c: &Contact, t: f64) -> (f64, V) {
        let ba = &self.world.bodies[c.a as usize];
        let pa = ba.position_at(t);
        let d = match c.kind {
            EventKind::BodyBody => {
                let bb = &self.world.bodies[c.b as usize];
                self.world.separation(pa, bb.position_at(t))
            }
            _ => pa - self.world.walls[c.b as usize].closest_point(pa),
        };
        let sigma = match c.kind {
            EventKind::BodyBody => ba.radius + self.world.bodies[c.b as usize].radius,
            _ => ba.radius,
        };
        let dist = d.length();
        let n = if dist > 0.0 {
            d * (1.0 / dist)
        } else {
            V::unit(0)
        };
        (sigma - dist, n)
    }

    /// Whether the contact's bodies, their current motions taken to time `t`, overlap: the
    /// balls' spheres, or the rigid bodies' shapes (by more than [`SLOP`]).
    fn overlaps_at(&self, c: &Contact, t: f64) -> bool {
        if self.world.rigid.is_empty() {
            self.penetration_at(c, t).0 > 0.0
        } else {
            self.rigid_overlaps_at(c, t)
        }
    }

    /// The first time in `[t0, t1]` at which the contact's bodies, moving back along their
    /// current velocities from their states at `t1`, overlap (bisection).
    fn rewind_time(&self, c: &Contact, t0: f64, t1: f64) -> f64 {
        if self.overlaps_at(c, t0) {
            return t0;
        }
        let (mut lo, mut hi) = (t0, t1);
        for _ in 0..REWIND_STEPS {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if self.overlaps_at(c, mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        lo
    }

    /// Resolves one contact if its bodies still overlap: push apart, then the impulse.
    fn resolve(&mut self, c: &Contact, t0: f64, t1: f64, last: &mut f64) -> Option<Event> {
        let (pen, _) = self.penetration_at(c, t1);
        if !(pen > 0.0) {
            return None;
        }
        let ids: &[u32] = match c.kind {
            EventKind::BodyBody => &[c.a, c.b],
            _ => &[c.a],
        };
        // The contact time: the end of the step, or the rewound first contact (recomputed, as
        // an earlier contact of the step may have changed a velocity), never before the
        // previous contact of the step, so the trace stays in time order.
        let time = if self.opts.toi_rewind {
            self.rewind_time(c, t0.max(*last), t1)
        } else {
            t1
        };
        *last = time;
        for &i in ids {
            self.world.bodies[i as usize].advance_to(time);
        }
        let (pen, n) = self.penetration_at(c, time);
        if pen > 0.0 {
            match c.kind {
                EventKind::BodyBody => {
                    let (ia, ib) = (c.a as usize, c.b as usize);
                    let (wa, wb) = (
                        self.world.bodies[ia].inv_mass,
                        self.world.bodies[ib].inv_mass,
                    );
                    let w = wa + wb;
                    self.world.bodies[ia].pos += n * (pen * wa / w);
                    self.world.bodies[ib].pos -= n * (pen * wb / w);
                }
                _ => self.world.bodies[c.a as usize].pos += n * pen,
            }
        }
        let event = Event {
            time,
            kind: c.kind,
            a: c.a,
            b: c.b,
        };
        self.world.resolve(&event);
        for &i in ids {
            self.wrap(i as usize);
        }
        Some(event)
    }

    /// Counts the contacts of the exact motion over `[t0, t1)` (see [`Self::in_window`]) that
    /// the overlap test at `t1` does not see. `start` holds the bodies at `t0`.
    fn count_misses(&mut self, t0: f64, t1: f64) {
        let h = t1 - t0;
        self.boxes.clear();
        self.boxes.extend(self.start.iter().map(|b| {
            let p1 = b.pos + b.vel * h;
            let pad = b.radius + PAD_REL * (b.radius + b.pos.max_abs() + p1.max_abs());
            Aabb::from_points(b.pos, p1).expanded(pad)
        }));
        self.find_candidates(true);
        let period = self.world.period;
        for &(i, j, k) in &self.candidates {
            let shift = period.map_or(V::ZERO, |l| shift_vector(k, l));
            let bi = self.start[i as usize];
            let mut bj = self.start[j as usize];
            bj.pos += shift;
            let toi = ball_ball(&bi, &bj);
            let next_finds = |tol: f64| {
                let (mut ai, mut aj) = (bi, bj);
                ai.advance_to(t1);
                aj.advance_to(t1);
                let next = ball_ball(&ai, &aj);
                next.is_hit() && next.time - t1 <= tol
            };
            if !(toi.is_hit() && self.in_window(toi.time, t1, next_finds)) {
                continue;
            }
            let n = bi.position_at(toi.time) - bj.position_at(toi.time);
            let d = bi.position_at(t1) - bj.position_at(t1);
            let sigma = bi.radius + bj.radius;
            let seen = d.length_squared() < sigma * sigma && d.dot(n) > 0.0;
            if !seen {
                self.misses.body_body += 1;
            }
        }
        for wall in &self.world.walls {
            for b in &self.start {
                let toi = crate::rigid::ball_against_wall(b, None, wall);
                let next_finds = |tol: f64| {
                    let mut a = *b;
                    a.advance_to(t1);
                    let next = crate::rigid::ball_against_wall(&a, None, wall);
                    next.is_hit() && next.time - t1 <= tol
                };
                if !(toi.is_hit() && self.in_window(toi.time, t1, next_finds)) {
                    continue;
                }
                let pc = b.position_at(toi.time);
                let n = pc - wall.closest_point(pc);
                let p1 = b.position_at(t1);
                let d = p1 - wall.closest_point(p1);
                let seen = d.length_squared() < b.radius * b.radius && d.dot(n) > 0.0;
                if !seen {
                    self.misses.body_wall += 1;
                }
            }
        }
    }

    /// Whether a contact of the exact motion at `tc` (at or after the sub-step's start) is
    /// counted by the sub-step ending at `t1`. The windows are half-open, `[t0, t1)`, so that
    /// a contact on a step boundary is counted once: one at `t1`, or before it by no more than
    /// the round-off of the times ([`boundary_round_off`]), belongs to the next sub-step, whose
    /// prediction from the states at `t1` (`next_finds`) finds it at its start, touching and
    /// approaching. Such a contact stays in this window when that prediction does not find it
    /// within the round-off (the pair no longer approaches at `t1`), and in the last sub-step,
    /// which has no next one.
    fn in_window(&self, tc: f64, t1: f64, next_finds: impl FnOnce(f64) -> bool) -> bool {
        if tc > t1 {
            return false;
        }
        let tol = boundary_round_off(t1, self.h);
        if t1 - tc > tol || t1 >= self.end_time {
            return true;
        }
        !next_finds(tol)
    }

    /// The world in its current state.
    pub fn world(&self) -> &World<V> {
        &self.world
    }
    /// Time reached so far.
    pub fn now(&self) -> f64 {
        self.now
    }
    /// The end time.
    pub fn end_time(&self) -> f64 {
        self.end_time
    }
    /// Sub-steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// Contacts resolved so far.
    pub fn counts(&self) -> EventCounts {
        self.counts
    }
    /// Missed collisions so far (zero when not counted).
    pub fn misses(&self) -> Misses {
        self.misses
    }
    /// The options of the run.
    pub fn options(&self) -> DiscreteOptions {
        self.opts
    }
    /// Relative kinetic energy change since the start.
    pub fn energy_drift(&self) -> f64 {
        if self.initial_energy > 0.0 {
            (self.world.kinetic_energy() - self.initial_energy) / self.initial_energy
        } else {
            0.0
        }
    }
}

/// The round-off of a contact time near the step boundary `t1` of sub-steps of `h`: a few units
/// in the last place of the times and of the step.
fn boundary_round_off(t1: f64, h: f64) -> f64 {
    16.0 * f64::EPSILON * t1.abs().max(h)
}

/// The shift of a periodic image: `k` box lengths along each axis.
#[inline]
fn shift_vector<V: Vector>(k: [i8; 3], l: V) -> V {
    let s = [
        k[0] as f64 * l.comp(0),
        k[1] as f64 * l.comp(1),
        if V::DIM == 3 {
            k[2] as f64 * l.comp(2)
        } else {
            0.0
        },
    ];
    V::from_array3(s)
}
