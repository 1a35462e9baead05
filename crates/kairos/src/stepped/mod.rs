//! The stepped engine: fixed time steps whose contacts are solved by warm-started sequential
//! impulses, each contact point identified by the features it comes from.
//!
//! This is the engine of the seed's "caching collisions" (Trtík, *Collision detection*): a
//! discrete broad phase keeps the pairs whose boxes overlap, the narrow phase gives each pair a
//! contact manifold ([`contact_manifold`](crate::query::manifold::contact_manifold)) whose points are named by their features
//! ([`ContactId`]), the contacts are solved by projected Gauss–Seidel on impulses (Catto,
//! *Iterative Dynamics with Temporal Coherence*, GDC 2005: sequential impulses with
//! accumulated-impulse clamping), and each point's impulses are cached under its
//! [`CollisionId`] (the two bodies, their pieces and the two features) so that the next step
//! starts from them when the contact persists (*warm starting*, the seed's `lambda_0`).
//!
//! # The step
//! A step of `dt` first finds the contacts at the current poses: the pairs of bodies whose
//! bounding spheres' boxes, grown by the speculative margin and the step's motion, overlap
//! (the discrete finder of [`StepOptions::finder`]), each pair of pieces' manifold within the
//! margin (with a clip slack, [`CLIP_SLACK`], that keeps the ids of equal boxes' corners), and
//! each body against each wall (a plane by the body's vertices below the margin; a segment,
//! polygon or static shape by its pieces' manifolds). Each point starts from the impulses
//! cached under its id at the end of the step before (none for a new contact).
//!
//! A pair in slow relative motion (at most [`FOLLOW`] of its size over the step: a stack, a
//! resting contact) keeps these points through the step; they follow the bodies (the
//! separation by the approach of the two anchors along the normal, which turns with the face
//! it comes from; a smooth shape's anchor stays under its centre). A faster pair's points are
//! found again at every sub-step. Finding contacts once a step is what made the 2D pyramid of
//! base 100 go from 129 to 89 ms a step (measured with `kairos run --stepper stepped`).
//!
//! **Persistent manifolds** ([`StepOptions::keep_manifolds`], on by default): a slow pair keeps
//! its points from one step to the next, with the impulses they hold (the ones the cache has
//! under their ids), while its bodies have moved relative to each other by at most [`KEEP`]
//! of its size since the points were found; then the narrow phase finds them again. On a
//! resting stack nearly every point is kept. Each pair of pieces also starts its separating
//! axis test from its axis of the step before, which settles a pair still apart in one axis.
//! Besides the time, keeping points ended the flicker of the 3D corner ids of boxes stacked
//! on four others (a degenerate clip): the warm-start hit rate of the 3D pyramid went from 91%
//! to 99%, and its largest move at 4 sweeps from 4.4% to 0.53% of a box.
//!
//! Then the step is `substeps` sub-steps of `h = dt / substeps`. Each sub-step:
//! 1. adds gravity to the velocities of the bodies;
//! 2. sets each point's biases from its separation now; at the first sub-step also its
//!    normal, tangents, arms and masses at its anchor then, which the later sub-steps keep
//!    (Box2D's choice: a slow pair turns by at most [`FOLLOW`] in the step); both bodies push
//!    at one point (the anchor of the feature that meets a face, else the middle of the two),
//!    so momentum and angular momentum are kept;
//! 3. warm-starts: each point's impulses of the sub-step before (the cache's, for the first)
//!    are applied again;
//! 4. runs `iterations` sweeps over the contact points, in a fixed order that alternates its
//!    direction from sweep to sweep (symmetric Gauss–Seidel): the normal impulse,
//!    accumulated and clamped to be non-negative, with a bias that closes a speculative gap
//!    (a point apart by `s > 0` may approach by `s / h`); then the friction impulse along
//!    each tangent, accumulated and clamped to the friction cone (`|λ_t| ≤ μ λ_n`). The
//!    sweeps read a compact array of rows and a copy of the velocities, with the walls as
//!    one static entry, so a sweep is one pass over memory without a branch; the split
//!    impulses of step 6 are solved in the same pass (they share no state with the sweeps),
//!    so each row is read once a sweep; two points of a pair in 2D whose impulses couple
//!    strongly are solved together, as a block (see "Tiny, thin and heavily loaded bodies");
//! 5. restitution (at every sub-step for the points found again at each, at the last for
//!    the others): each point that closed faster than [`RESTITUTION_SPEED`] when it was found
//!    and took an impulse leaves at the restitution's share of its closing speed; and the
//!    change the contacts made to the velocities is scaled down if it raised the kinetic
//!    energy (it never does beyond round-off except through restitution at several points of
//!    one turning body);
//! 6. position correction ([`Correction`]): a penetration deeper than the slop is pushed
//!    out by `β / h` of it per sub-step, by split impulses on pseudo-velocities that are
//!    forgotten after the sub-step (default), or by a Baumgarte bias on the velocities; or
//!    (soft contacts) a penetrating point is a stiff damped spring, the bodies move with the
//!    velocities that push and keep those of a second, relax pass without the push;
//! 7. moves every body: positions with the velocities, rotations by the exact torque-free
//!    motion (a 3D body keeps its angular momentum), through the continuous check below.
//!
//! At the end of the step the cache is replaced by the step's impulses.
//!
//! # The continuous check
//! With [`StepOptions::ccd`] (the default) a fast pair's first contact in a sub-step is never
//! missed, dynamic against dynamic, spinning or thin, and no speed is clamped:
//! 1. The *watched* pairs are those whose relative motion since the start of the step
//!    (`(|v_a − v_b| + |ω_a| r_a + |ω_b| r_b) t`) may cover the speculative margin and that
//!    either have no contact point (a pair without a point was farther apart than the margin,
//!    so no other pair can touch) or turn by more than the margin within the sub-step (their
//!    points hold for a translation only: another corner swings in).
//! 2. The earliest conservative time of impact over the watched pairs (Kairos's rotating
//!    time of impact, [`World::predict_pair_by`] on the bodies' straight-line, torque-free
//!    motion for the sub-step: never after the true first contact) is found; every body moves
//!    to that time; the pair's contact points there are solved as a sub-step's (sweeps, then
//!    restitution) and forgotten; the rest of the sub-step follows, from step 2. A pair's time
//!    of impact is asked again only when an impact or a hold changed one of its bodies'
//!    motion, or its contact came: the other pairs keep their answers, times in the sub-step
//!    (the `drop` scene cold, `--no-warm-start`, asked 579 M times of impact in 20 s, 77 M
//!    now).
//!    Pairs whose contact points do not hold them are watched too, whatever their speed: a
//!    point whose separation plus its approach over the sub-step (after the sweeps) is a
//!    penetration deeper than the speculative margin (a light box under one 10⁶ times heavier,
//!    which the sweeps cannot hold).
//! 3. A resolved pair stays watched (a box spinning fast strikes a wall corner after corner);
//!    an impact that took no impulse, or whose points hold the pair and which its time of
//!    impact finds again at the same instant, leaves it to its points until time moves on,
//!    and time moves on only as far as its bodies' turns cannot cover the margin (a plank
//!    spinning at 10⁵ rad/s, one corner leaving the floor, swung the other through it). An
//!    impact watches again the other pairs of its two bodies and adds the pairs their new
//!    motion may reach.
//! 4. Where the check gives up, no body moves through a contact: a pair whose impact leaves
//!    its points driving it in ([`IMPACTS_PER_PAIR`] times), a pair past [`IMPACTS_PER_PAIR`]
//!    impacts in the sub-step, and after [`MAX_IMPACTS`] impacts every pair, stop their
//!    bodies where they touch (velocities to zero: the energy goes), each counted in
//!    [`StepStats::ccd_gave_up`] (the CLI warns).
//!
//! The times of impact first asked in a sub-step, on the motion at its start, are the contacts
//! the exact motion makes; one whose bodies' motion no impact changed before it, whose pair
//! did not push in that step or the next, and that left the pair interpenetrated beyond the
//! slop or on the other side, passed through: [`StepStats::tunnelled`] counts it, with the
//! check on as off (a pair that touched without a push, resting or grazing, did not), and so
//! does each body whose centre goes behind a plane wall or a side of a box room.
//! Bodies the sweeps alone did not hold (tiny inertia, tiny or thin, heavily loaded) are held
//! by the solver itself: see the next section.
//!
//! Time is never lost: every body covers the whole sub-step, some of it before an impact and
//! the rest after. Energy: each impact is a contact solve with restitution of the points in
//! contact at its time (those within [`IMPACT_GAP`] of the nearest; a turning box's next
//! corner, still apart, is an impact of its own later), so with restitution 1 an impact keeps
//! the kinetic energy and with less it loses the restitution's share; several fast bodies
//! meeting in one sub-step are resolved one impact at a time, in time order (ties to the
//! lower pair). Measured: 200 random pairs of a thin
//! spinning plank and a spinning box fired at each other at 10 to 10⁴ plank thicknesses a
//! step, the 127 that meet (by the exact event-driven engine) all touch in the step of the
//! exact contact; without the check 86 never touch. [`StepStats::tunnelled`] counts, with
//! [`StepOptions::count_tunnelled`], the pairs whose exact motion makes a contact that the
//! engine does not see.
//!
//! The order of bodies, pairs (sorted) and points (the manifold's) is fixed, so a run is a pure
//! function of its scene and options.
//!
//! # Tiny, thin and heavily loaded bodies
//! Four bodies resting on a floor sank through it, the continuous check or not, because the
//! sweeps left their points driving in (measured per sub-step: the points' separations, normal
//! impulses and effective masses):
//! - a plank of `inertia = 1e-9` on two corners: each corner's effective mass is `2.5·10⁻¹⁰`
//!   (its push only turns the plank), the sweeps gave normal impulses of `10⁻¹⁰` where `10⁻²`
//!   was needed, and the plank fell freely, turning;
//! - a box of half extent 10⁻⁸: a sub-step's fall is 6,000 times its size, so the sweeps'
//!   residual of 0.5% left one corner driving in and the two impulses 0.35% apart, which spun
//!   it at 3,000 rad/s; it tumbled through the floor;
//! - a sliver triangle of height 10⁻¹²: it rested `2.8·10⁻⁷` deep, within its slop of 10⁻⁴ of
//!   its size (5·10⁻⁵), far past its own height (its centre behind the floor);
//! - a tower under gravity 10⁶ at `dt = 0.01` (a sub-step's fall is 6 boxes): the sweeps of its
//!   first sub-step, cold, left the two boxes of a tower of two falling at 26% and 32% of the
//!   speed the sub-step gave them, 1.6 and 2 boxes over the sub-step, into the floor and each
//!   other.
//!
//! Three changes hold them:
//! - **Blocks** (2D): the two points of a pair (the same bodies and normal) are solved
//!   together, the 2×2 complementarity problem of Box2D v2.4's block solver, with its
//!   determinant and each body's turn expanded so that no large terms cancel (the plank's `K`
//!   has entries of `4·10⁹` and a determinant of `1.6·10¹⁰`); the split impulses, soft
//!   contacts and restitution solve blocks too. An impact's points (the continuous check's)
//!   are a block when they couple by more than [`BLOCK_COUPLING`] (its docs say why).
//! - **A thin body's slop**: the slop is measured against at most [`THIN`] times the thinner
//!   body's width ([`width`]), so a body sinks by at most 1% of its width.
//! - **Convergence**: when a sub-step's fall under gravity is more than [`CONVERGE_FALL`] of
//!   the least size a slop is measured against, the sweeps go on after their `iterations`
//!   (up to [`CONVERGE_SWEEPS`]) until no point is off its
//!   solution by more than its slop over the sub-step (counted in [`StepStats::sweeps`]): a
//!   tower of ten boxes under gravity 10⁶ takes 580 more sweeps in 5 s at `dt = 0.01` (636 at
//!   1/60), nearly all in its first sub-step. A scene of ordinary sizes at ordinary gravity
//!   never converges so (its traces are the same bit for bit); one of small boxes does: a 2D
//!   pyramid of base 20 of boxes of 0.01 at `g = 10` moves by 1.5% of a box in 5 s with 14
//!   times the sweeps, where before the check stopped bodies 3,084 times, it moved 9.2% and
//!   the run took 2.4 times as long.
//!
//! Measured over 5 s at `dt` 0.01 and 1/60 with the defaults: the plank, the box of 10⁻⁸ and
//! the sliver rest exactly where they started; no box of the tower goes deeper than 4.7 of its
//! slops (3.3·10⁻⁴ of a box); nothing passes through anything (tested). With
//! [`Correction::Baumgarte`] all four hold as well. A soft contact ([`Correction::Soft`]) rests
//! by its spring's give, `g / ω²` (1.7·10⁻⁵ at `g = 9.81`), whatever the body: the sliver sinks
//! through (counted), and the tower under gravity 10⁶ is held only by the check stopping its
//! boxes. Not held yet, in 3D (blocks are 2D; a face on a face has four points): a plank of
//! `inertia = [1e-9, 1e-9, 1e-9]` and a plate of thickness `2·10⁻¹²` sink through the floor,
//! and a tower of ten cubes under gravity 10⁶ passes through it (counted, and the CLI warns);
//! the 3D box of 10⁻⁸ rests.
//!
//! # Measured
//! At `dt = 1/60` with 4 sub-steps, for 10 s, at the defaults otherwise (sleeping on: a stack
//! sleeps once it has settled), the largest displacement of a box relative to its size (the
//! tests, and `cargo bench -p kairos-bench --bench stepped_pyramids` for the
//! pyramids), with 1 / 4 / 8 sweeps (2026-12-02):
//!
//! | scene | split impulses | Baumgarte | soft contacts |
//! |---|---:|---:|---:|
//! | 2D pyramid of base 10 (55 boxes) | 0.56 / 0.30 / 0.12% | 31 / 0.30 / 0.12% | 0.33 / 0.26 / 0.26% |
//! | 2D pyramid of base 20 (210 boxes) | 2.1 / 0.87 / 0.41% | 54 / 8.8 / 0.42% | 1.2 / 0.89 / 0.87% |
//! | 3D pyramid of base 10 (385 boxes) | 0.26 / 0.21 / 0.08% | 0.24 / 0.21 / 0.09% | 0.14 / 0.15 / 0.14% |
//! | 3D pyramid of base 20 (2,870 boxes) | 1.7 / 0.67 / 0.31% | 11 / 0.66 / 0.32% | 0.54 / 0.39 / 0.38% |
//!
//! 20 pyramids of base 10 side by side (`kairos generate pyramids --count 20 --base 10`) end
//! within 0.16% of a box of where they started. Towers of 10 stand within 1% in 2D and 3D
//! (tested). A 2D tower of 30 (`kairos generate stack --n 30`) stands for 30 s with sleeping
//! off at `dt = 1/60` and `1/30`, its top box not moved sideways at all (tested): it stands by
//! its blocks; solved point by point, it fell within 30 s at `dt = 1/60` (its top box ended 58
//! boxes to the side) and at `dt = 1/30` even with sleeping on, and stood only at 8 sweeps or
//! 8 sub-steps. The blocks cost 15% of the 2D pyramid of base 100's step (27.4 against 23.8 ms,
//! sleeping off, one thread; the cheapest of the three: 8 sweeps cost 30%, 8 sub-steps twice
//! the step). Split impulses are the default: at 4
//! sweeps (the default) they hold every pyramid, and they add no kinetic energy (a room of
//! boxes with restitution 1 never gains energy, tested). Soft contacts hold with one sweep but
//! sag by the spring's give under the load (`g / ω²` per layer of load, whatever the sweeps);
//! Baumgarte fails on the 2D base 20 at 4 sweeps. Without warm starting the 2D tower falls.
//! With sleeping off the 2D pyramid of base 100 (5,050 boxes) sags by 13% in 2 s at 4 sweeps,
//! 5.8% at 8.
//!
//! **Restitution** is solved by [`RESTITUTION_SWEEPS`] sweeps over the points that bounce, and
//! the energy guard scales only a bounce that would add energy, to the energy before: a box
//! landing flat on two corners at restitution 1 keeps 99.9% of its energy, a spinning box all
//! of it (tested).
//!
//! **The bullet room.** In the `bullet` scene's room (four walls, restitution 1) every body
//! stays in the room at 100, 1,000, 3,000, 10⁴ and 10⁵ units/s (bullets spun by impacts to
//! thousands of radians per second: a pair with points that turns by more than the margin
//! in a sub-step is watched, as one without), and keeps its kinetic energy: in 2 s it
//! changes by 7·10⁻¹⁶ at 100 units/s, 7·10⁻¹⁵ at 1,000 and 6·10⁻¹⁴ at 10⁴ (tested at 10³
//! and 10⁴; the bodies stay in at 10⁵ at `dt` 1/60 and 0.02, tested, and at 10⁵ and 10⁶ at
//! 0.001 under soft contacts, tested). The long plank meets a wall flat on two corners still
//! apart at the start of a sub-step, which the sweeps bounce at once (speculative contacts,
//! as in Box2D): its two corners are one block (it couples by more than [`BLOCK_COUPLING`]),
//! so both bounce at once; bounced point by point (before blocks) the room lost 1.1% in 2 s at
//! 100 units/s. Energy goes where two fast pairs come within the margin in one sub-step and
//! bounce on the sweeps' points, which the round-off of the times of impact decides: 4.2% at
//! 3,000 and 0.6% at 10⁵ (5·10⁻⁵ and 1.4·10⁻⁶ when each time of impact was asked afresh after
//! every impact), while 8 of 12 speeds from 1,500 to 2·10⁵ keep it within 10⁻⁶. At
//! `dt = 0.001` it changes by 5·10⁻⁸ in 2 s at 100, 2·10⁻⁸ at 10³, 0.08% at 10⁴ and 10⁻⁶ at
//! 10⁵, and 12% in 10 s at 100.
//!
//! # Threads
//! The stages that work row by row or body by body (each point's separation, biases and, at
//! the first sub-step, arms and masses; the check of the points that do not hold their pair;
//! the bodies' motion) split their rows or bodies among [`StepOptions::threads`] threads
//! (every core by default) once a scene has [`threads::PARALLEL_FROM`] of them: each row or
//! body is worked on alone and what a stage gathers is gathered in order, so any count of
//! threads gives the same bits (tested on 1, 2 and 3). The sweeps, the contacts' search and
//! the continuous check run on the calling thread: on 2 cores the 3D pyramid of base 20
//! (82,000 rows) steps 13% faster on 2 threads than on 1; scenes below the threshold (the 2D
//! pyramid of base 100 has 29,900 rows) run on one thread, which is as fast or faster for
//! them (starting the threads cost more than the stages took).
//!
//! Not yet part of the engine: meshes.

use crate::math::{Aabb, Rotation, Vector};
use crate::overlap::OverlapFinder;
use crate::query::manifold::{contact_manifold_with, ContactId, ContactPoint, ManifoldOptions};
use crate::query::sat::as_polytope;
use crate::rigid::WallPieces;
use crate::shape::{FeatureId, Pose, Shape, SupportMap};
use crate::world::World;

mod ccd;
mod contacts;
mod options;
mod rows;
mod sleep;
mod solve;
pub mod threads;
mod tunnel;
pub use ccd::{IMPACTS_PER_PAIR, IMPACT_GAP, MAX_IMPACTS};
pub use options::*;
pub use rows::BLOCK_COUPLING;
use rows::{cached_of, Arm, Cached, Point, Row};
pub use sleep::{SLEEP_SPEED, TIME_TO_SLEEP};

/// The manifold options of a pair of size `size`.
fn manifold(size: f64) -> ManifoldOptions {
    ManifoldOptions {
        prediction: SPECULATIVE * size,
        clip_slack: CLIP_SLACK,
    }
}

/// What identifies a contact point from one sub-step to the next: the two bodies (`b` a wall
/// when [`CollisionId::wall`]), the pieces of compound bodies, and the features of the point
/// ([`ContactId`]): the seed's `CollisionID`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CollisionId {
    /// The first body.
    pub a: u32,
    /// The second body, or the wall.
    pub b: u32,
    /// Whether `b` is a wall.
    pub wall: bool,
    /// The pieces of `a` and `b` (0 for a convex body and for a plane).
    pub pieces: [u32; 2],
    /// The features of `a` and `b` the point lies on.
    pub features: ContactId,
}

/// The order of the cache ([`SteppedSim`]'s `sorted`): the bodies' contacts, then the walls',
/// each by id. The rows come in that order (the finder's pairs, then each body's walls), so the
/// cache is stored already sorted; by id alone every body's wall contacts would have to be
/// merged in among its other contacts at every step.
fn cache_key(id: &CollisionId) -> (bool, CollisionId) {
    (id.wall, *id)
}

/// A body's state in the stepped engine: its centre of mass, velocity, rotation and angular
/// velocity (world frame).
#[derive(Clone, Debug, PartialEq)]
pub struct StepBody<V: Vector> {
    /// The centre of mass.
    pub position: V,
    /// The velocity of the centre of mass.
    pub velocity: V,
    /// The rotation of the body frame.
    pub rotation: V::Rotation,
    /// The angular velocity, world frame.
    pub angular_velocity: V::Angular,
    inv_mass: f64,
    inertia: V::Inertia,
    inv_inertia: V::Inertia,
}

impl<V: Vector> StepBody<V> {
    /// The mass.
    pub fn mass(&self) -> f64 {
        1.0 / self.inv_mass
    }

    /// The angular momentum about the centre of mass, world frame.
    pub fn spin_momentum(&self) -> V::Angular {
        V::inertia_apply(self.rotation, self.inertia, self.angular_velocity)
    }
}

/// Counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepStats {
    /// Steps taken.
    pub steps: u64,
    /// Contact points found: each slow pair's once a step, each fast pair's at every
    /// sub-step ([`FOLLOW`]).
    pub contacts: u64,
    /// Of those, the points a slow pair kept from the step before without a narrow phase
    /// ([`KEEP`]).
    pub kept: u64,
    /// Of those, the points that started from cached impulses (the step before's, or for a
    /// fast pair's the sub-step before's).
    pub warm_hits: u64,
    /// Of the hits, those a distance match ([`Matching`]) took from a cached point of other
    /// features: the impulses of another contact.
    pub mismatches: u64,
    /// Sweeps of the solver over the contact points, summed over the sub-steps.
    pub sweeps: u64,
    /// Contacts that began between two bodies ([`SteppedSim::began`]), summed over the steps.
    pub body_body: u64,
    /// Contacts that began between a body and a wall, summed over the steps.
    pub body_wall: u64,
    /// Times of impact the continuous check computed.
    pub ccd_queries: u64,
    /// Impacts it resolved within a sub-step.
    pub ccd_impacts: u64,
    /// Times the check gave up resolving and stopped bodies where they touched: sub-steps past
    /// [`ccd::MAX_IMPACTS`] impacts, and pairs past [`ccd::IMPACTS_PER_PAIR`] or whose points
    /// did not hold them (see the module docs, "The continuous check").
    pub ccd_gave_up: u64,
    /// Pairs whose exact motion made a contact in a sub-step, and that did not push on each
    /// other in that step or the next, and that are left interpenetrated beyond the slop or on
    /// the other side: they passed through each other (counted with the check on, and off with
    /// [`StepOptions::count_tunnelled`], for the step before the last);
    /// and each body whose centre went behind a wall's inner face (a plane, or a side of a box
    /// room), check on or off.
    pub tunnelled: u64,
    /// Of those, a body and a wall.
    pub tunnelled_wall: u64,
    /// Islands woken by a touch.
    pub wakes: u64,
}

/// Two bodies, or a body and a wall, in contact: `a` and `b` are body ids (`a < b`), or `a`
/// the body and `b` the wall when `wall`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContactPair {
    /// The (lower) body.
    pub a: u32,
    /// The other body, or the wall.
    pub b: u32,
    /// Whether `b` is a wall.
    pub wall: bool,
}

/// A body's velocities in the solver: linear and angular (world frame).
pub(super) type Vel<V> = (V, <V as Vector>::Angular);

/// The stepped engine (see the [module docs](self)).
pub struct SteppedSim<V: Vector> {
    world: World<V>,
    bodies: Vec<StepBody<V>>,
    options: StepOptions,
    finder: Box<dyn OverlapFinder<V>>,
    /// The impulses of the last sub-step's points: normal, and the tangential impulse as a
    /// vector (re-projected on the next sub-step's tangents).
    /// The cache: each point's impulses by id, sorted (looked up by binary search: the
    /// points come in the order of their pairs, so the searches walk the array in order,
    /// where a hash map's probes missed the memory cache on a large scene).
    sorted: Vec<(CollisionId, Cached<V>)>,
    time: f64,
    stats: StepStats,
    boxes: Vec<Aabb<V>>,
    pairs: Vec<[u32; 2]>,
    /// This step's contact points: the solver's rows, and the rest, index for index.
    rows: Vec<Row<V>>,
    points: Vec<Point<V>>,
    /// The solver's velocities: the bodies', then a wall's (zero) last.
    vel: Vec<Vel<V>>,
    /// The split impulses' pseudo-velocities, linear and angular, of the current sub-step
    /// (a wall's last).
    pseudo: Vec<Vel<V>>,
    /// Whether the rest of the sub-step moves the bodies by `pseudo` too (split impulses that
    /// pushed, or soft contacts): the continuous check must predict that motion.
    moving_split: bool,
    /// How many rows' points penetrate beyond the slop in this sub-step.
    pushing: usize,
    /// The bodies' inverse inertia tensors in the world frame, this sub-step.
    inv_world: Vec<V::Inertia>,
    /// The rows before this index are the slow pairs' (found once a step); the rest are the
    /// fast pairs' (`fast`), found again at each sub-step.
    slow: usize,
    /// The pairs of pieces' separating axes ([`contacts::SatCaches`]).
    sat: std::cell::RefCell<contacts::SatCaches>,
    /// The slow pairs' points kept from step to step, and the buffers a step reuses.
    kept: contacts::Kept<V>,
    fast: Vec<ContactPair>,
    /// The pairs that pushed on each other in the last step, sorted, and in the step before.
    touching: Vec<ContactPair>,
    touched: Vec<ContactPair>,
    /// The pairs of `touching` not in `touched`.
    began: Vec<ContactPair>,
    /// The world the continuous check predicts in: the sim's bodies copied in at each query,
    /// without gravity (within a sub-step the bodies move on straight lines).
    ccd: Option<World<V>>,
    /// A second finder for the boxes swept over a sub-step.
    swept_finder: Box<dyn OverlapFinder<V>>,
    /// Pairs whose exact motion made a contact in a sub-step of this step, and of the step
    /// before (check off, counting on).
    pending: Vec<tunnel::Contacted<V>>,
    pending_before: Vec<tunnel::Contacted<V>>,
    /// The solver's residuals summed over the sub-steps with contacts, and their count.
    residual: (f64, u64),
    /// Per body: whether it sleeps, how long it has been slow, and its island's root while
    /// it sleeps.
    asleep: Vec<bool>,
    slow_for: Vec<f64>,
    island: Vec<u32>,
    /// Asked before each sub-step with the sub-steps done so far ([`SteppedSim::set_check`]):
    /// `true` stops the run there.
    check: Option<Check>,
    /// Whether the check stopped the run.
    stopped: bool,
    /// The bodies whose centre is behind a plane wall, with the wall, sorted.
    behind: Vec<(u32, u32)>,
    /// Each body's width ([`width`]; a compound body's thinnest piece's).
    widths: Vec<f64>,
    /// The least size a slop is measured against, over the bodies ([`THIN`]).
    least_slop_size: f64,
    /// The pool of the stages that work row by row or body by body.
    threads: threads::Threads,
    /// The blocks' 2×2 systems ([`rows::mark_blocks`]): the slow rows' first (set at the
    /// first sub-step), then the fast rows' (set at each sub-step).
    blocks: Vec<rows::Block>,
    slow_blocks: usize,
}

/// A [`SteppedSim`]'s check between sub-steps: given the sub-steps done so far, whether to stop.
pub type Check = Box<dyn FnMut(u64) -> bool + Send>;

impl<V: Vector> SteppedSim<V> {
    /// The engine on `world` (its bodies at their stored states, which must all be at time
    /// 0), or why it cannot run it.
    pub fn new(world: World<V>, options: StepOptions) -> Result<Self, StepError> {
        options.validate()?;
        if world.rigid.is_empty() && !world.bodies.is_empty() {
            return Err(StepError::Balls);
        }
        if !world.meshes.is_empty() {
            return Err(StepError::Meshes);
        }
        let bodies: Vec<StepBody<V>> = world
            .bodies
            .iter()
            .zip(&world.rigid)
            .map(|(b, r)| StepBody {
                position: b.pos,
                velocity: b.vel,
                rotation: r.rotation,
                angular_velocity: r.angular_velocity,
                inv_mass: b.inv_mass,
                inertia: r.inertia,
                inv_inertia: r.inv_inertia,
            })
            .collect();
        let n = bodies.len();
        let widths: Vec<f64> = world
            .rigid
            .iter()
            .map(|r| {
                let first = r.shape as usize;
                world.shapes[first..first + r.pieces as usize]
                    .iter()
                    .map(width)
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        let least_slop_size = world
            .bodies
            .iter()
            .zip(&widths)
            .map(|(b, w)| b.radius.min(THIN * w))
            .fold(f64::INFINITY, f64::min);
        let ccd = (options.ccd || options.count_tunnelled).then(|| {
            let mut w = world.clone();
            w.gravity = V::ZERO;
            w.asleep.iter_mut().for_each(|s| *s = false);
            w
        });
        Ok(Self {
            finder: options.finder.build(),
            world,
            bodies,
            options,
            sorted: Vec::new(),
            time: 0.0,
            stats: StepStats::default(),
            boxes: Vec::new(),
            pairs: Vec::new(),
            rows: Vec::new(),
            points: Vec::new(),
            vel: Vec::new(),
            pseudo: Vec::new(),
            moving_split: false,
            pushing: 0,
            inv_world: Vec::new(),
            slow: 0,
            sat: Default::default(),
            kept: Default::default(),
            fast: Vec::new(),
            touching: Vec::new(),
            touched: Vec::new(),
            began: Vec::new(),
            ccd,
            swept_finder: options.finder.build(),
            pending: Vec::new(),
            pending_before: Vec::new(),
            residual: (0.0, 0),
            asleep: vec![false; n],
            slow_for: vec![0.0; n],
            island: vec![0; n],
            check: None,
            stopped: false,
            behind: Vec::new(),
            widths,
            least_slop_size,
            threads: threads::Threads::new(options.threads),
            blocks: Vec::new(),
            slow_blocks: 0,
        })
    }

    /// Splits the stages among the threads from `from` items on instead of
    /// [`threads::PARALLEL_FROM`] (tests).
    #[cfg(test)]
    pub(crate) fn split_stages_from(&mut self, from: usize) {
        self.threads = self.threads.splitting_from(from);
    }

    /// The threads the stages that work row by row or body by body run on
    /// ([`StepOptions::threads`], 0 counted as the cores).
    pub fn threads(&self) -> usize {
        self.threads.count()
    }

    /// The bodies' states now.
    pub fn bodies(&self) -> &[StepBody<V>] {
        &self.bodies
    }

    /// The simulated time.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The counts so far.
    pub fn stats(&self) -> StepStats {
        self.stats
    }

    /// The world the engine was made from (its bodies as they were at time 0).
    pub fn world(&self) -> &World<V> {
        &self.world
    }

    /// The kinetic energy (linear and rotational) of the bodies now.
    pub fn kinetic_energy(&self) -> f64 {
        self.bodies
            .iter()
            .map(|b| {
                let linear = 0.5 * b.velocity.length_squared() / b.inv_mass;
                let w = b.angular_velocity;
                let l = V::inertia_apply(b.rotation, b.inertia, w);
                linear + 0.5 * V::angular_dot(w, l)
            })
            .sum()
    }

    /// Body `i`'s motion: its velocity, and its angular speed times its bounding radius (the
    /// fastest any of its points turns about its centre).
    pub(super) fn motion(&self, i: usize) -> (V, f64) {
        let b = &self.bodies[i];
        let spin = V::angular_speed(b.angular_velocity) * self.world.bodies[i].radius;
        (b.velocity, spin)
    }

    /// Body `i`'s velocities in the rest of the sub-step as [`Self::move_bodies`] moves it:
    /// its own, plus its pseudo-velocities when the sub-step moves by them.
    pub(super) fn moving(&self, i: usize) -> Vel<V> {
        let b = &self.bodies[i];
        if self.moving_split {
            let (pv, pw) = self.pseudo[i];
            (
                b.velocity + pv,
                V::angular_add_scaled(b.angular_velocity, pw, 1.0),
            )
        } else {
            (b.velocity, b.angular_velocity)
        }
    }

    /// [`Self::moving`]'s reach: the linear velocity, and the angular speed times the body's
    /// bounding radius.
    pub(super) fn moving_reach(&self, i: usize) -> (V, f64) {
        let (v, w) = self.moving(i);
        (v, V::angular_speed(w) * self.world.bodies[i].radius)
    }

    /// How far body `i` may have gone since the start of the step, `elapsed` ago, at its
    /// velocities now, with its pseudo-velocities over the sub-step `h` alone (they act in
    /// it only): the displacement, and how far any of its points turns about the centre.
    pub(super) fn travel(&self, i: usize, elapsed: f64, h: f64) -> (V, f64) {
        let (v, s) = self.motion(i);
        let (mut d, mut turn) = (v * elapsed, s * elapsed);
        if self.moving_split {
            let (pv, pw) = self.pseudo[i];
            d += pv * h;
            turn += V::angular_speed(pw) * self.world.bodies[i].radius * h;
        }
        (d, turn)
    }

    /// The options.
    pub fn options(&self) -> &StepOptions {
        &self.options
    }

    /// The contacts that began in the last step, sorted: the pairs that pushed on each other
    /// (a positive normal impulse at some point, in some sub-step) in this step and not in the
    /// step before.
    pub fn began(&self) -> &[ContactPair] {
        &self.began
    }

    /// The pairs that pushed on each other in the last step, sorted.
    pub fn touching(&self) -> &[ContactPair] {
        &self.touching
    }

    /// The energy now: kinetic, plus the potential of gravity (`-m g · x`).
    pub fn energy(&self) -> f64 {
        let g = self.world.gravity;
        self.kinetic_energy()
            - self
                .bodies
                .iter()
                .map(|b| b.mass() * g.dot(b.position))
                .sum::<f64>()
    }

    /// Sets the check asked before each sub-step with the count of sub-steps done so far: when
    /// it returns `true` the run stops there, within the step ([`Self::stopped`]). A step of
    /// many sub-steps on a large scene takes minutes; a caller that must stop at once (an
    /// interrupt) or report progress within a step does it here.
    pub fn set_check(&mut self, check: impl FnMut(u64) -> bool + Send + 'static) {
        self.check = Some(Box::new(check));
    }

    /// Whether the check ([`Self::set_check`]) stopped the run. The bodies are then left where
    /// the last sub-step done put them, within a step: the run is over ([`Self::step`] does
    /// nothing more), and its state is not that of a whole step.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// One step of [`StepOptions::dt`] (nothing once the run is [`Self::stopped`]).
    pub fn step(&mut self) {
        if self.stopped {
            return;
        }
        let substeps = self.options.substeps;
        let h = self.options.dt / substeps as f64;
        std::mem::swap(&mut self.touching, &mut self.touched);
        self.touching.clear();
        self.collide(self.options.dt);
        self.warm_from_cache();
        for s in 0..substeps {
            if let Some(check) = self.check.as_mut() {
                if check(self.stats.steps * substeps as u64 + s as u64) {
                    self.stopped = true;
                    return;
                }
            }
            self.substep(h, s, s + 1 == substeps);
        }
        self.store_cache();
        // Runs of sorted pairs: a stable sort merges them.
        self.touching.sort();
        self.touching.dedup();
        self.update_sleep(self.options.dt);
        self.began.clear();
        let mut before = self.touched.iter().peekable();
        for &c in &self.touching {
            while before.next_if(|&&x| x < c).is_some() {}
            if before.peek() != Some(&&c) {
                self.began.push(c);
                if c.wall {
                    self.stats.body_wall += 1;
                } else {
                    self.stats.body_body += 1;
                }
            }
        }
        // A contact the exact motion made in the step before, with no push between the pair
        // in that step or this one, that left it interpenetrated or on the other side.
        self.count_behind_walls();
        let made = std::mem::take(&mut self.pending_before);
        self.count_passes(made);
        self.pending.sort_by_key(|m| m.pair);
        self.pending.dedup_by_key(|m| m.pair);
        std::mem::swap(&mut self.pending, &mut self.pending_before);
        self.stats.steps += 1;
        self.stats.sweeps += self.options.iterations as u64 * substeps as u64;
        self.time = self.stats.steps as f64 * self.options.dt;
    }

    /// Sub-step `s` of the step, of length `h`.
    fn substep(&mut self, h: f64, s: u32, last: bool) {
        let g = self.world.gravity;
        if g != V::ZERO {
            for (b, &asleep) in self.bodies.iter_mut().zip(&self.asleep) {
                if !asleep {
                    b.velocity += g * h;
                }
            }
        }
        if s > 0 {
            self.refresh_fast(self.options.dt);
        }
        self.load_velocities();
        self.update_rows(h, s == 0);
        let before = self.solver_velocities(0..self.bodies.len());
        self.warm_start();
        let split = match self.options.correction {
            Correction::Split => self.pushing > 0,
            Correction::Soft => {
                self.soft_sweeps(h);
                true
            }
            Correction::Baumgarte => false,
        };
        self.sweeps(split && self.options.correction == Correction::Split);
        self.converge(h, split && self.options.correction == Correction::Split);
        if last {
            self.measure_residual();
        }
        // Without restitution there is no bounce to tell from the sweeps.
        let swept =
            (self.world.restitution > 0.0).then(|| self.solver_velocities(0..self.bodies.len()));
        self.restitution(last);
        self.never_gain_energy(&before, swept.as_deref());
        if self.options.correction == Correction::Soft {
            // The bodies move with the velocities that pushed, and keep the relaxed ones.
            for (p, v) in self.pseudo.iter_mut().zip(&self.vel) {
                p.0 -= v.0;
                p.1 = V::angular_add_scaled(p.1, v.1, -1.0);
            }
        }
        self.store_velocities();
        // The pairs that pushed, each once (a pair's points are consecutive).
        let mut last = None;
        for (r, p) in self.rows.iter().zip(&self.points) {
            if r.pn > 0.0 && last != Some(p.pair()) {
                last = Some(p.pair());
                self.touching.push(p.pair());
            }
        }
        // The pairs without a point at the start of the step that may touch by the end of
        // this sub-step are watched, on the motion the bodies will make.
        self.moving_split = split;
        let watched = if self.options.ccd || self.options.count_tunnelled {
            let unheld = self.unheld_pairs(h, split);
            self.fast_pairs(h, h * (s + 1) as f64, &unheld)
        } else {
            Vec::new()
        };
        if self.options.ccd && !watched.is_empty() {
            self.advance_with_ccd(h, split, watched);
        } else {
            if !watched.is_empty() {
                self.watch_for_tunnelling(h, &watched);
            }
            self.move_bodies(h, split);
        }
    }

    /// Replaces the cache by this step's impulses; the contacts of sleeping bodies keep
    /// theirs for when they wake.
    #[inline(never)]
    fn store_cache(&mut self) {
        let asleep = &self.asleep;
        let sleeping =
            |id: &CollisionId| asleep[id.a as usize] && (id.wall || asleep[id.b as usize]);
        self.sorted.retain(|(id, _)| sleeping(id));
        let from = self.sorted.len();
        for (r, p) in self.rows.iter().zip(&self.points) {
            self.sorted.push((p.id, cached_of(r, p)));
        }
        // A pair's points are together, in the order its manifold gave them, and the pairs
        // in order ([`cache_key`]): each pair's points sorted first, the whole is then sorted
        // but where pairs came and went, which the stable sort finds in a pass.
        let mut k = from;
        while k < self.sorted.len() {
            let pair = |x: &(CollisionId, Cached<V>)| (x.0.a, x.0.b, x.0.wall);
            let end = k + self.sorted[k..]
                .iter()
                .take_while(|x| pair(x) == pair(&self.sorted[k]))
                .count();
            self.sorted[k..end].sort_by_key(|x| x.0);
            k = end;
        }
        self.sorted.sort_by_key(|x| cache_key(&x.0));
        self.sorted.dedup_by_key(|x| x.0);
    }

    /// Moves every body by `dt` with its velocities (and the split impulses' pseudo-velocities
    /// when `split`): positions on straight lines, rotations by the exact torque-free motion.
    #[inline(never)]
    fn move_bodies(&mut self, dt: f64, split: bool) {
        if dt == 0.0 {
            return;
        }
        let (asleep, pseudo) = (&self.asleep, &self.pseudo);
        self.threads.each_mut(&mut self.bodies, |i, b| {
            if asleep[i] {
                return;
            }
            let (v, pw) = if split {
                let (pv, pw) = pseudo[i];
                (b.velocity + pv, pw)
            } else {
                (b.velocity, V::Angular::default())
            };
            b.position += v * dt;
            let spin = V::spin(b.inertia, b.rotation, b.angular_velocity);
            if pw == V::Angular::default() {
                (b.rotation, b.angular_velocity) = V::spin_at(&spin, dt);
            } else {
                // Turned by the sum, the body keeps its own torque-free angular velocity.
                let w = V::angular_add_scaled(b.angular_velocity, pw, 1.0);
                let turned = V::spin(b.inertia, b.rotation, w);
                b.angular_velocity = V::spin_at(&spin, dt).1;
                b.rotation = V::spin_at(&turned, dt).0;
            }
        });
    }

    /// Without the check: the watched pairs whose exact motion over `h` makes a contact, to
    /// be counted as tunnelled if they do not push on each other in this step or the next.
    fn watch_for_tunnelling(&mut self, h: f64, watched: &[ccd::Watched]) {
        let mut ccd = self
            .ccd
            .take()
            .expect("the CCD world exists while counting");
        for w in watched {
            let toi = Self::toi_of(&mut ccd, self, w.pair, h);
            if toi.is_hit() && toi.time <= h {
                let made = self.contacted(w.pair, toi.time.max(0.0));
                self.pending.push(made);
            }
        }
        self.ccd = Some(ccd);
    }
}

#[cfg(test)]
mod check_tests;
#[cfg(test)]
mod held_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod threads_tests;
