//! Closed triangle meshes as rigid bodies of the simulation (3D): contacts of two meshes
//! predicted by D2M ([`crate::ccd::tree::mesh_contact`]) and their contact sets.
//!
//! # The model
//!
//! A mesh body is a compound body ([`crate::rigid`]) whose pieces are its triangles, in the
//! shape's frame, with the mass properties of the solid the mesh bounds
//! ([`crate::ccd::solid::mass_properties`]) and a [`MeshShape`] (the mesh with its sphere tree,
//! and its convex hull) in [`crate::world::World::meshes`]. Against a ball, a convex body or
//! a static shape, its triangles are pieces like any compound's (each pair predicted exactly by
//! conservative advancement); against a plane, its hull is (a plane first meets a solid at a
//! vertex of its hull). Two meshes are predicted by D2M over their sphere trees, below.
//!
//! # Two meshes
//!
//! From the later of the two local times `t0`, within the window of their bounding spheres
//! (grown by the contact shell `shell = SHELL (R_a + R_b)`, as for every rigid pair):
//!
//! 1. Each mesh is placed at its pose at the window's start and moves by a
//!    [`ScrewMotion`]: its centre's velocity (and gravity), its angular velocity there, and a
//!    bound on the drift of the angular velocity
//!    ([`crate::rigid::RigidState::spin_acceleration_bound`]:
//!    zero for the seed's motion class, an isotropic or steadily spinning body; a tumbling
//!    body's true attitude stays within `α t² / 2` of the constant turn, and the enclosures
//!    are widened by that). So the root finder's time is never after the true first contact.
//! 2. D2M's contact ([`mesh_contact`]) is moved back by the seed's back-off to leave the meshes
//!    `shell / 2` apart, with a time tolerance of `shell / (32 μ)` (`μ` a bound on the closing
//!    speed: the relative speed of the centres plus `|ω| R` of each): the gap at the reported
//!    time is about `shell / 2`, never below 0.
//! 3. A tumbling body's boxes widen by `α R s² / 2` over a search of length `s`: each search
//!    goes no farther than where that reaches an eighth of the gap at its start (or the
//!    shell), and the next starts there, from the true poses; the widened boxes may still meet
//!    before the meshes do, and when the meshes are more than twice the shell apart at the time
//!    found, the search starts again from that time.
//! 4. A pair that touches at the start (after its own response) is in contact at once only when
//!    its features approach; otherwise, when the root finder cannot tell it from a contact, the
//!    search starts again once the gap `g` can have halved (`g / (2 μ)` later). After
//!    [`RESTARTS`] restarts of either kind the last start is reported (its response changes
//!    nothing and the pair is predicted again from there). A pair at distance 0 that does not approach
//!    is left to separate, as for convex bodies.
//!
//! Every step is a pure function of the two stored states, so every broad phase gets the same
//! bits. The search's horizon is also bounded by the time the fastest point takes to cross
//! both bodies twice, `4 (R_a + R_b) / μ` (bodies moving together while turning); with no
//! contact by then the search starts again there.
//!
//! # Contact sets
//!
//! At the event the pairs of triangles within twice the shell of the least distance
//! ([`near_triangles`], branch and bound over the trees) give a contact set each (their own
//! normal and points, [`crate::rigid::contact_set`]), for [`crate::rigid::respond`]. Meshes
//! more than twice the shell apart are not in contact (a search ended early, see above): no
//! set, no impulse, and the pair is predicted again from there.

use crate::ball_toi::{window_accel, Toi, ToiStatus};
use crate::ccd::distance::{mesh_distance, near_triangles};
use crate::ccd::rotating::ScrewMotion;
use crate::ccd::tree::{mesh_contact, MeshBody, MeshQuery};
use crate::ccd::CcdOptions;
use crate::math::{Rotation, Vector};
use crate::rigid::{
    contact_set, gap_at, nearest_sets, sphere_window, ContactSet, MovingPiece, SHELL,
};

mod wall;

use crate::shape::Shape;
pub use wall::mesh_wall;

/// A mesh body's geometry in its shape's frame: the mesh with its sphere tree, and its convex
/// hull.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshShape<V: Vector> {
    /// The mesh and its sphere tree.
    pub body: MeshBody,
    /// The convex hull of its vertices.
    pub hull: Shape<V>,
}

/// The most restarts of one prediction (see the [module docs](self)).
pub const RESTARTS: usize = 64;

/// The mesh of body `m` placed at its pose at `t`, and its motion from there (`t` becomes 0).
fn placed<V: Vector>(m: &MovingPiece<V>, mesh: &MeshBody, t: f64) -> (MeshBody, ScrewMotion) {
    let (b, r) = m.body.expect("a mesh body");
    let (c, v) = m.centre_at(t);
    let (rotation, w) = r.at(t - b.time);
    let offset = r.offset;
    let body = mesh.mapped(|p| (c + rotation.rotate(V::from_array3(p) + offset)).to_array3());
    let mut motion = ScrewMotion::new(c.to_array3(), v.to_array3(), V::angular_to_array3(w));
    motion.acceleration = m.accel.to_array3();
    motion.angular_acceleration = r.spin_acceleration_bound();
    (body, motion)
}

/// The first contact of mesh bodies `a` (of mesh `ma`) and `b` (of `mb`), by D2M (see the
/// [module docs](self)). Contacts at or before `t_max` are reported with the same bits
/// whatever `t_max`; a later one may be a miss ([`ToiStatus::NotBy`]).
pub fn mesh_mesh<V: Vector>(
    a: &MovingPiece<V>,
    ma: &MeshBody,
    b: &MovingPiece<V>,
    mb: &MeshBody,
    t_max: f64,
) -> Toi {
    let (Some((ba, _)), Some((bb, _))) = (a.body, b.body) else {
        return Toi::miss(ToiStatus::Separating);
    };
    let t0 = ba.time.max(bb.time);
    let ((pa, va), (pb, vb)) = (a.centre_at(t0), b.centre_at(t0));
    let sigma = a.radius + b.radius;
    let shell = SHELL * sigma;
    let rel = b.accel - a.accel;
    let window = if rel == V::ZERO {
        sphere_window(pb - pa, vb - va, sigma + shell)
    } else {
        window_accel(pb - pa, vb - va, rel, sigma + shell)
    };
    let Some((s_in, s_out)) = window else {
        return Toi::miss(ToiStatus::Separating);
    };
    if !(t0 + s_in <= t_max) {
        return Toi::miss(ToiStatus::NotBy);
    }
    let hit = |t: f64| {
        if !(t <= t_max) {
            Toi::miss(ToiStatus::NotBy)
        } else {
            Toi {
                time: t,
                status: if t == t0 {
                    ToiStatus::Penetrating
                } else {
                    ToiStatus::Approaching
                },
            }
        }
    };
    let end = t0 + s_out;
    let separation = 0.5 * shell;
    let mut start = t0 + s_in;
    // The gap at `start` when a restart has measured it already.
    let mut known_gap = None;
    for _ in 0..RESTARTS {
        let gap_at_start = known_gap.take();
        let until = end - start;
        if !(until > 0.0) {
            return Toi::miss(ToiStatus::Grazing);
        }
        // A bound on the closing speed of any two points over the search.
        let spin = a.spin_speed() + b.spin_speed();
        let base = (b.linear_velocity(start) - a.linear_velocity(start)).length() + spin;
        let acc = rel.length();
        let reach = if base > 0.0 {
            4.0 * sigma / base
        } else if acc > 0.0 {
            (8.0 * sigma / acc).sqrt()
        } else {
            return Toi::miss(ToiStatus::Separating);
        };
        let mut horizon = until.min(reach);
        let mu = base + acc * horizon;
        let (ga, motion_a) = placed(a, ma, start);
        let (gb, motion_b) = placed(b, mb, start);
        // A tumbling body's boxes widen by `wobble s²`: searched no farther than where that
        // is an eighth of the present gap (or the shell), they stay tight.
        let wobble = 0.5
            * (motion_a.angular_acceleration * a.radius + motion_b.angular_acceleration * b.radius);
        let gap =
            || gap_at_start.unwrap_or_else(|| mesh_distance(&ga, &motion_a, &gb, &motion_b, 0.0));
        if wobble > 0.0 {
            let g = gap();
            horizon = horizon.min(((0.125 * g).max(shell) / wobble).sqrt());
        }
        let query = MeshQuery {
            separation,
            capoeira: false,
            ccd: CcdOptions {
                time_tolerance: (separation / (32.0 * mu * horizon)).clamp(1e-15, 1e-3),
                ..CcdOptions::default()
            },
        };
        let Some(c) = mesh_contact(&ga, &motion_a, &gb, &motion_b, horizon, &query, None) else {
            if horizon < until {
                // No contact by the horizon: go on from there.
                start += horizon;
                continue;
            }
            return Toi::miss(ToiStatus::Grazing);
        };
        if c.first > 0.0 {
            // Backed off, but never to the start itself: that would repeat.
            let t = start + c.time.max(0.5 * c.first);
            let g = if wobble > 0.0 {
                mesh_gap(a, ma, b, mb, t)
            } else {
                0.0
            };
            if g > 2.0 * shell {
                // The drift's widened boxes met before the meshes do: search again from there,
                // where the drift starts from zero.
                start = t;
                known_gap = Some(g);
                continue;
            }
            return hit(t);
        }
        if c.approach_speed > 0.0 {
            return hit(start);
        }
        let g = gap();
        if !(g > 0.0) {
            return Toi::miss(ToiStatus::Separating);
        }
        start += 0.5 * g / mu;
    }
    hit(start)
}

/// The distance at `t` of the surfaces of mesh bodies `a` (of mesh `ma`) and `b` (of `mb`),
/// each moved by its own free motion (0 when they intersect).
pub fn mesh_gap<V: Vector>(
    a: &MovingPiece<V>,
    ma: &MeshBody,
    b: &MovingPiece<V>,
    mb: &MeshBody,
    t: f64,
) -> f64 {
    let (ga, motion_a) = placed(a, ma, t);
    let (gb, motion_b) = placed(b, mb, t);
    mesh_distance(&ga, &motion_a, &gb, &motion_b, 0.0)
}

/// The contact sets of mesh bodies `a` and `b` at `t`: a [`contact_set`] of every pair of
/// triangles within twice the contact shell of the least distance, nearest first. `pieces_a`
/// and `pieces_b` are the bodies' triangles as pieces ([`MovingPiece::pieces`]), in the order of
/// their meshes' triangles.
pub fn mesh_contact_sets<'a, V: Vector + 'a>(
    a: &MovingPiece<'a, V>,
    ma: &MeshBody,
    pieces_a: &[MovingPiece<'a, V>],
    b: &MovingPiece<'a, V>,
    mb: &MeshBody,
    pieces_b: &[MovingPiece<'a, V>],
    t: f64,
) -> Vec<ContactSet<V>> {
    let (ga, _) = placed(a, ma, t);
    let (gb, _) = placed(b, mb, t);
    let slack = 2.0 * SHELL * (a.radius + b.radius);
    let near = near_triangles(&ga, &gb, 2.0 * slack);
    // Farther apart than the shell's reach: the search ended early (a tumbling body's wide
    // enclosures, or its horizon), no contact yet.
    if near.first().is_none_or(|n| n.0 > slack) {
        return Vec::new();
    }
    let near = near
        .into_iter()
        .map(|(_, i, j)| {
            let (pa, pb) = (pieces_a[i as usize], pieces_b[j as usize]);
            (gap_at(&pa, &pb, t).0, pa, pb)
        })
        .collect();
    nearest_sets(near, |pa, pb| contact_set(pa, pb, t))
}
