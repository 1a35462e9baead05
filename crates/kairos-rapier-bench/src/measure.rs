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
pub fn run(engine: &mut dyn Engine, steps: usize, mut observe: impl FnMut(&dyn Engine)) -> Vec<f64> {
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

/// The largest distance a body of `engine` lies from where `setup` started it, relative to
/// that body's size (its largest edge).
pub fn largest_move(setup: &Setup, engine: &dyn Engine) -> f64 {
    setup
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let size = 2.0 * b.half.iter().copied().fold(0.0, f64::max);
            distance(engine.state(i).position, b.position) / size
        })
        .fold(0.0, f64::max)
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

/// The first encounter of a bullet with a target it is fired at, along a direction: the
/// target's own local x axis (a 2D plank's thin axis) or the world's x axis. The bullet starts
/// on the negative side of the target, closing. The encounter is decided after the first step
/// that finds the bullet on the positive side (it passed through: tunnelled) or moving back
/// relative to the target while still on the negative side (it bounced).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Encounter {
    bullet: usize,
    target: usize,
    along_target: bool,
    tunnelled: Option<bool>,
}

impl Encounter {
    /// `bullet` fired at `target` along the target's local x axis (`along_target`) or the
    /// world's x axis.
    pub fn new(bullet: usize, target: usize, along_target: bool) -> Self {
        Self {
            bullet,
            target,
            along_target,
            tunnelled: None,
        }
    }

    /// Checks the bodies of `engine` after a step.
    pub fn observe(&mut self, engine: &dyn Engine) {
        if self.tunnelled.is_some() {
            return;
        }
        let (b, t) = (engine.state(self.bullet), engine.state(self.target));
        let n = self.direction(&t);
        let side = dot(sub(b.position, t.position), n);
        let closing = dot(sub(b.velocity, t.velocity), n);
        if side > 0.0 || closing < 0.0 {
            self.tunnelled = Some(side > 0.0);
        }
    }

    /// Whether the bullet passed through; `None` while they have not met.
    pub fn tunnelled(&self) -> Option<bool> {
        self.tunnelled
    }

    fn direction(&self, target: &State) -> [f64; 3] {
        if self.along_target {
            let (sin, cos) = target.rotation[0].sin_cos();
            [cos, sin, 0.0]
        } else {
            [1.0, 0.0, 0.0]
        }
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = sub(a, b);
    dot(d, d).sqrt()
}
