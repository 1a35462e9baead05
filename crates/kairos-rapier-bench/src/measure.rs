//! What is measured of a run: the wall time of each step, how far the boxes of a stack moved,
//! and whether a body passed through another body or a wall.
//!
//! Only [`Engine::step`] is timed; the checks read the states between steps.

use std::time::Instant;

use crate::engine::{Engine, State};
use crate::setup::{HalfSpace, Setup};

/// A stack stands when no box has moved by this fraction of its size or more.
pub const STANDS: f64 = 0.01;

/// Runs `engine` for `steps` steps, calling `observe` after each; the wall time of each step
/// in milliseconds.
pub fn run(
    engine: &mut dyn Engine,
    steps: usize,
    mut observe: impl FnMut(&dyn Engine),
) -> Vec<f64> {
    (0..steps)
        .map(|_| {
            let start = Instant::now();
            engine.step();
            let ms = start.elapsed().as_secs_f64() * 1e3;
            observe(engine);
            ms
        })
        .collect()
}

/// The median of `xs` (not empty).
pub fn median(xs: &[f64]) -> f64 {
    let mut xs = xs.to_vec();
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        0.5 * (xs[n / 2 - 1] + xs[n / 2])
    }
}

/// How far the bodies of a stack moved from where they started, each relative to its size
/// (its largest edge): the largest distance, and the largest sideways and vertical parts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moves {
    /// The largest distance of a body from its start.
    pub largest: f64,
    /// The largest move across gravity's axis (the last axis).
    pub sideways: f64,
    /// The largest move along gravity's axis.
    pub vertical: f64,
}

impl Moves {
    /// The moves of the bodies of `engine` from where `setup` started them.
    pub fn new(setup: &Setup, engine: &dyn Engine) -> Self {
        let up = setup.dim - 1;
        let mut moves = Self::default();
        for (i, b) in setup.bodies.iter().enumerate() {
            let size = 2.0 * b.half.iter().copied().fold(0.0, f64::max);
            let d = sub(engine.state(i).position, b.position).map(|x| x / size);
            let vertical = d[up].abs();
            let length = dot(d, d).sqrt();
            let sideways = (length * length - vertical * vertical).max(0.0).sqrt();
            moves.largest = moves.largest.max(length);
            moves.sideways = moves.sideways.max(sideways);
            moves.vertical = moves.vertical.max(vertical);
        }
        moves
    }

    /// Whether the stack stands: no body moved by [`STANDS`] of its size or more.
    pub fn stands(&self) -> bool {
        self.largest < STANDS
    }
}

/// The bodies whose centre has been inside a wall's solid side after some step: they went
/// through the floor or out of the room.
#[derive(Clone, Debug, PartialEq)]
pub struct Escapes {
    walls: Vec<HalfSpace>,
    escaped: Vec<bool>,
}

impl Escapes {
    /// No body escaped yet from the walls of `setup`.
    pub fn new(setup: &Setup) -> Self {
        Self {
            walls: setup.walls.clone(),
            escaped: vec![false; setup.bodies.len()],
        }
    }

    /// Checks the bodies of `engine` after a step.
    pub fn observe(&mut self, engine: &dyn Engine) {
        for (i, escaped) in self.escaped.iter_mut().enumerate() {
            let p = engine.state(i).position;
            *escaped |= self
                .walls
                .iter()
                .any(|w| dot(sub(p, w.point), w.normal) < 0.0);
        }
    }

    /// How many bodies escaped.
    pub fn count(&self) -> usize {
        self.escaped.iter().filter(|&&e| e).count()
    }
}

/// How the first encounter of a bullet with its target ended ([`Encounter`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not decided by the end of the run.
    NotMet,
    /// The bullet turned back before reaching the target's far side.
    Bounced,
    /// The bullet reached the far side beside the target (deflected, or around its end).
    Passed,
    /// The bullet reached the far side through the target: it tunnelled.
    Through,
    /// Not to be decided from the states after each step: the bullet closes on the target
    /// by more than twice their distance within one step, so it may reach the target, come
    /// back off a wall and be anywhere at the end of the step.
    TooFast,
}

/// The first encounter of a 2D bullet with a target it is fired at, along a direction: the
/// target's own local x axis (a plank's thin axis) or the world's x axis. The bullet starts on
/// the negative side of the target, closing on it. The encounter is decided after the first
/// step that finds the bullet moving back relative to the target on the negative side
/// ([`Outcome::Bounced`]), or on the positive side: through the target when it is then within
/// the target's reach across the direction (the target's half extent along its local y axis,
/// or its bounding radius, plus the bullet's bounding radius), beside it otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Encounter {
    too_fast: bool,
    bullet: usize,
    target: usize,
    along_target: bool,
    reach: f64,
    outcome: Outcome,
}

impl Encounter {
    /// Body `bullet` of `setup` fired at body `target` along the target's local x axis
    /// (`along_target`) or the world's x axis, observed every `dt`.
    pub fn new(setup: &Setup, bullet: usize, target: usize, along_target: bool, dt: f64) -> Self {
        let (b, t) = (&setup.bodies[bullet], &setup.bodies[target]);
        let across = if along_target { t.half[1] } else { t.radius() };
        let gap = dot(sub(t.position, b.position), sub(t.position, b.position)).sqrt();
        let closing = dot(sub(b.velocity, t.velocity), sub(b.velocity, t.velocity)).sqrt();
        Self {
            too_fast: closing * dt > 2.0 * gap,
            bullet,
            target,
            along_target,
            reach: across + setup.bodies[bullet].radius(),
            outcome: Outcome::NotMet,
        }
    }

    /// Checks the bodies of `engine` after a step.
    pub fn observe(&mut self, engine: &dyn Engine) {
        if self.outcome != Outcome::NotMet {
            return;
        }
        if self.too_fast {
            self.outcome = Outcome::TooFast;
            return;
        }
        let (b, t) = (engine.state(self.bullet), engine.state(self.target));
        let (n, across) = self.directions(&t);
        let d = sub(b.position, t.position);
        let side = dot(d, n);
        if side > 0.0 {
            self.outcome = if dot(d, across).abs() < self.reach {
                Outcome::Through
            } else {
                Outcome::Passed
            };
        } else if dot(sub(b.velocity, t.velocity), n) < 0.0 {
            self.outcome = Outcome::Bounced;
        }
    }

    /// How the encounter ended.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    /// The direction the bullet is fired along, and the one across it.
    fn directions(&self, target: &State) -> ([f64; 3], [f64; 3]) {
        let (sin, cos) = if self.along_target {
            target.rotation[0].sin_cos()
        } else {
            (0.0, 1.0)
        };
        ([cos, sin, 0.0], [-sin, cos, 0.0])
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
