//! The stepped engine's options and constants: the step, the sweeps, how a penetration is
//! pushed out ([`Correction`], with the soft contacts' [`Softness`]), how a point finds its
//! cached impulses ([`Matching`]), and the tolerances of contacts, following and keeping.

#[allow(unused_imports)] // for the docs' links
use super::{CollisionId, StepStats, SteppedSim, TIME_TO_SLEEP};
use crate::overlap::OverlapKind;
#[allow(unused_imports)]
use crate::query::manifold::ManifoldOptions;

/// The speculative margin: contact points this far apart, relative to the size of the pair
/// (the mean of the two bounding radii, or the body's own against a wall), are kept, so that
/// a contact is solved before it closes.
pub const SPECULATIVE: f64 = 0.04;

/// Penetration that is left alone, relative to the size of the pair: the position correction
/// pushes out only what is deeper (a contact resting exactly at zero would flicker). Each layer
/// of a stack may sink by it, so it is small: measured on the 3D pyramid of base 20 (20
/// layers) for 10 s, a box moved by 1.08% of its size at 5e-4, 0.76% at 2e-4, 0.65% at 1e-4.
pub const SLOP: f64 = 0.0001;

/// A thin body's slop: the slop is measured against the pair's size, or against this many times
/// the width of the thinner of its bodies when that is smaller ([`width`]), so that no body
/// sinks by more than 1% of its width before it is pushed out. A sliver triangle of height
/// 10⁻¹² and width 1 on a floor sank by its slop of 5·10⁻⁵ of its size, far past its own height
/// (its centre went behind the floor); a box of 2 × 0.2 keeps the slop of its size.
pub const THIN: f64 = 100.0;

/// The width of `shape`: the least of its widths across its local axes and (a polytope) its
/// faces' normals (a polygon's least width is across an edge's normal; a polyhedron's is at
/// most the least across its faces'). Positive for every shape a body may have.
pub fn width<V: crate::math::Vector>(shape: &crate::shape::Shape<V>) -> f64 {
    use crate::math::Rotation;
    use crate::shape::{Pose, SupportMap};
    let pose = Pose::new(V::ZERO, V::Rotation::IDENTITY);
    let across = |d: V| (shape.support(&pose, d) - shape.support(&pose, d * -1.0)).dot(d);
    let mut least = (0..V::DIM)
        .map(|k| across(V::unit(k)))
        .fold(f64::INFINITY, f64::min);
    if let Some(poly) = crate::query::sat::as_polytope(shape) {
        for f in 0..poly.face_count() {
            least = least.min(across(poly.face_normal(f)));
        }
    }
    least
}

/// The slop of [`Correction::Baumgarte`]: a bias on the velocities that pushes out a
/// penetration shallower than this makes the contacts jitter (measured: the 2D pyramid of base
/// 20 falls at 1e-4 and stands at 5e-4).
pub const BAUMGARTE_SLOP: f64 = 0.0005;

/// How far, relative to the size of the shapes, a corner may lie outside the face it rests on
/// and keep its feature id ([`ManifoldOptions::clip_slack`]): equal boxes stacked face on face
/// have their corners exactly on each other's edges, and clipped exactly the ids of those
/// corners flip with every drift of rounding size, so their cached impulses are lost. Measured
/// on a 3D tower of ten boxes (10 s, `dt = 1/60`, 4 sub-steps, 8 iterations): without a slack
/// 4% of the points miss the cache and a box moves by 14% of its size; with this slack every
/// point after the first sub-step hits and no box moves by more than 0.3%.
pub const CLIP_SLACK: f64 = 1e-3;

/// A pair whose relative motion over a step (the speed of one centre relative to the other,
/// plus each turn's rate times the body's radius, times `dt`) is at most this share of its
/// size keeps the points found at the start of the step through the sub-steps: they follow
/// the bodies (the separation by the anchors' approach along the normal, turned with the
/// face it comes from; the arms from the anchors' middle). A faster pair's points are found
/// again at each sub-step. Following a point is exact for a translation along a flat face and
/// errs by about `size θ² / 2` for a turn by `θ`.
pub const FOLLOW: f64 = 0.01;

/// A pair in slow relative motion keeps its points from step to step, without a narrow phase
/// (a *persistent manifold*), while the bodies have moved relative to each other since the
/// points were found by at most this share of its size (each turn counting as its angle
/// times the body's radius). Within the step the points then follow the bodies by at most
/// [`FOLLOW`] more. A point beyond the speculative margin when the manifold was found is
/// still farther than `SPECULATIVE - KEEP - FOLLOW` (3.5%) of the size at the end of the
/// step, so no contact is missed; the next step finds the manifold again.
pub const KEEP: f64 = 0.005;

/// The Baumgarte factor: the share of a penetration beyond the slop that a sub-step removes.
pub const BAUMGARTE: f64 = 0.2;

/// Contacts closing slower than this (in units of the pair's size per unit time, times
/// gravity's scale: an absolute speed) bounce without restitution: a resting contact must not
/// jitter.
pub const RESTITUTION_SPEED: f64 = 1.0;

/// Sweeps of the restitution pass over the points that bounce (alternating in direction, as
/// the solver's): a body that lands on several points at once bounces off all of them.
pub const RESTITUTION_SWEEPS: u32 = 8;

/// A sub-step whose fall under gravity (`|g| h²`) is more than this share of the least size a
/// slop is measured against ([`THIN`]) sweeps on past its `iterations` while a point is driven
/// deeper than its slop ([`SteppedSim`]'s convergence, see the module docs): a resting box of
/// 10⁻⁸ falls 6,000 of its sizes in a sub-step at `dt = 0.01`, so a residual of 0.5% of the
/// sweeps turned it over and through the floor. A pyramid of unit boxes at `g = 10`,
/// `dt = 1/60` falls 0.02% of a box a sub-step: never.
pub const CONVERGE_FALL: f64 = 0.01;

/// The most sweeps a sub-step adds to converge ([`CONVERGE_FALL`]).
pub const CONVERGE_SWEEPS: u32 = 1024;

/// The options of a [`SteppedSim`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepOptions {
    /// The time step (`> 0`).
    pub dt: f64,
    /// Sub-steps per step (`>= 1`).
    pub substeps: u32,
    /// Sweeps of the solver over the contacts per sub-step (`>= 1`).
    pub iterations: u32,
    /// Whether each contact starts from its cached impulses.
    pub warm_start: bool,
    /// The discrete broad phase that gives the candidate pairs.
    pub finder: OverlapKind,
    /// How penetrations are pushed out.
    pub correction: Correction,
    /// How a contact point finds its cached impulses.
    pub matching: Matching,
    /// Islands of bodies at rest sleep (see [`TIME_TO_SLEEP`]).
    pub sleep: bool,
    /// The continuous check: bodies move only up to the earliest impact of a fast pair in a
    /// sub-step, so none passes through another (see the module docs, "The continuous check").
    pub ccd: bool,
    /// Count the contacts the exact motion makes that the engine does not see
    /// ([`StepStats::tunnelled`]); costs a time of impact per fast pair and sub-step when
    /// the check is off.
    pub count_tunnelled: bool,
    /// Slow pairs keep their contact points from step to step while they drift by at most
    /// [`KEEP`] of their size (with [`Matching::Features`] only: the distance matchings
    /// compare the points where they are found at each step).
    pub keep_manifolds: bool,
    /// Threads of the stages that work row by row or body by body (the rows' preparation, the
    /// check of the points that hold their pairs, the bodies' motion): `0` for every core
    /// (the machine's count), `1` for the calling thread alone. Any count gives the same bits: each
    /// row and body is worked on alone, and what the stages gather is gathered in order.
    pub threads: usize,
}

/// How a contact point finds its impulses of the previous sub-step (the seed's comparison).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matching {
    /// By its [`CollisionId`]: the same bodies, pieces and features (the default).
    Features,
    /// The cached point of the same pair (and pieces) nearest in the world, within
    /// [`MATCH_RADIUS`] of the pair's size.
    WorldDistance,
    /// The cached point of the same pair nearest in the first body's frame, within
    /// [`MATCH_RADIUS`].
    BodyDistance,
}

/// How far, relative to the size of a pair, a distance-matched point may be from the cached
/// point it takes its impulses from.
pub const MATCH_RADIUS: f64 = 0.05;

/// How the stepped engine pushes out a penetration deeper than the slop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Correction {
    /// Split impulses: a second solve on pseudo-velocities that move the bodies apart in the
    /// sub-step and are then forgotten, so the push adds no kinetic energy (the default).
    Split,
    /// Baumgarte: the push is a velocity bias of the contact itself, kept by the bodies after
    /// the sub-step (kinetic energy grows by the push).
    Baumgarte,
    /// Soft contacts and a relax pass (Box2D v3's soft step): a penetrating contact is a
    /// stiff damped spring ([`SOFT_HERTZ`], [`SOFT_DAMPING`]) solved with a mass and an
    /// impulse scale, the bodies move with the velocities that push, and a second pass without
    /// the push (the *relax*) gives the velocities they keep, so the push adds no kinetic
    /// energy. `iterations` is the count of each pass: one of each is the intended use.
    Soft,
}

impl Correction {
    /// The penetration this correction leaves alone, relative to a point's size for the slop:
    /// [`SLOP`], or [`BAUMGARTE_SLOP`] for Baumgarte.
    pub fn slop(self) -> f64 {
        match self {
            Correction::Split | Correction::Soft => SLOP,
            Correction::Baumgarte => BAUMGARTE_SLOP,
        }
    }
}

/// The stiffness of a soft contact ([`Correction::Soft`]) between two moving bodies, in
/// cycles per unit time; at most a quarter of the sub-step rate. A contact with a static body
/// or a wall is twice as stiff.
pub const SOFT_HERTZ: f64 = 60.0;

/// The damping ratio of a soft contact (heavily over-damped: a push, never a bounce).
pub const SOFT_DAMPING: f64 = 10.0;

/// The fastest a soft contact pushes a penetration out, in sizes of the pair per unit time.
pub const SOFT_MAX_PUSH: f64 = 3.0;

/// A soft constraint's coefficients for a sub-step of `h` (Catto, *Solver2D*, 2024): the
/// velocity bias per unit of penetration, the share of the rigid mass, and the share of the
/// accumulated impulse taken off at each solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Softness {
    pub bias_rate: f64,
    pub mass_scale: f64,
    pub impulse_scale: f64,
}

impl Softness {
    /// The coefficients of a spring of `hertz` and damping ratio `zeta` over a sub-step `h`.
    pub fn new(hertz: f64, zeta: f64, h: f64) -> Self {
        let omega = 2.0 * std::f64::consts::PI * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Self {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }

    /// The softness of moving and of static contacts for a sub-step `h`.
    pub fn pair(h: f64) -> [Self; 2] {
        let hertz = SOFT_HERTZ.min(0.25 / h);
        [
            Self::new(hertz, SOFT_DAMPING, h),
            Self::new(2.0 * hertz, SOFT_DAMPING, h),
        ]
    }
}

impl StepOptions {
    /// The most sub-steps a step, and sweeps a sub-step, [`StepOptions::validate`] accepts
    /// (a step of more would take hours on any scene worth stepping).
    pub const MOST_PER_STEP: u32 = 10_000;
    /// The most threads ([`StepOptions::threads`]).
    pub const MOST_THREADS: usize = 1024;

    /// Checks the options: `dt` positive and finite, 1 to [`StepOptions::MOST_PER_STEP`]
    /// sub-steps and sweeps.
    pub fn validate(&self) -> Result<(), StepError> {
        if !(self.dt > 0.0 && self.dt.is_finite()) {
            return Err(StepError::Option {
                name: "dt",
                range: "positive and finite",
                got: self.dt,
            });
        }
        for (name, x) in [("substeps", self.substeps), ("iterations", self.iterations)] {
            if !(1..=Self::MOST_PER_STEP).contains(&x) {
                return Err(StepError::Option {
                    name,
                    range: "from 1 to 10,000",
                    got: x as f64,
                });
            }
        }
        if self.threads > Self::MOST_THREADS {
            return Err(StepError::Option {
                name: "threads",
                range: "from 0 (every core) to 1,024",
                got: self.threads as f64,
            });
        }
        Ok(())
    }
}

impl Default for StepOptions {
    fn default() -> Self {
        Self {
            dt: 1.0 / 60.0,
            substeps: 4,
            iterations: 4,
            warm_start: true,
            finder: OverlapKind::Sap,
            correction: Correction::Split,
            ccd: true,
            count_tunnelled: false,
            matching: Matching::Features,
            sleep: true,
            keep_manifolds: true,
            threads: 0,
        }
    }
}

/// Why a [`SteppedSim`] was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StepError {
    /// An option out of range.
    #[error("{name} must be {range}, got {got}")]
    Option {
        /// The option.
        name: &'static str,
        /// What it must be.
        range: &'static str,
        /// What it is.
        got: f64,
    },
    /// A world without rigid states.
    #[error(
        "the stepped engine needs rigid bodies: give the balls `shape = \"ball\"` \
         (`Scene::with_rigid_balls` does)"
    )]
    Balls,
    /// A world with mesh bodies.
    #[error("the stepped engine does not take mesh bodies yet")]
    Meshes,
}
