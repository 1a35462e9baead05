//! Rigid bodies against walls: the walls' static pieces ([`WallPieces`]), a body's first
//! contact with a plane (by its exact gap) or with static shapes, and a plain ball against any
//! wall ([`ball_against_wall`]).

use super::advance::certified_step_accel;
use super::predict::predict;
use super::state::{MovingPiece, RigidState};
use super::{MAX_STEPS, SHELL};
use crate::ball_toi::{box_windows, first_zero_quadratic, Toi, ToiStatus};
use crate::body::Body;
use crate::math::{Rotation, Vector};
use crate::shape::{Pose, Shape, SupportMap};
use crate::wall::{Plane, StaticShape, Wall};

/// [`body_wall`] for a body given by its pieces ([`MovingPiece::pieces`]): the earliest contact of
/// any piece, as [`pieces_body_body`](super::pieces_body_body).
pub fn pieces_body_wall<'a, V: Vector + 'a>(
    a: impl Iterator<Item = MovingPiece<'a, V>>,
    wall: &WallPieces<V>,
    t_max: f64,
) -> Toi {
    let mut best = Toi::miss(ToiStatus::Separating);
    for pa in a {
        let bound = if best.is_hit() { best.time } else { t_max };
        let toi = body_wall(&pa, wall, bound);
        if toi.is_hit() && !(best.is_hit() && toi.time >= best.time) {
            best = toi;
        }
    }
    best
}

/// The static pieces of a wall against which rigid bodies are predicted: the plane itself, or
/// shapes (a segment; a polygon's fan of triangles; a static shape) with their bounding
/// spheres.
#[derive(Clone, Debug)]
pub enum WallPieces<V: Vector> {
    /// A plane, by its exact gap.
    Plane(Plane<V>),
    /// Static convex shapes, each with the pose of its local frame (the identity for the
    /// pieces of segments and polygons, given in world coordinates) and its bounding sphere's
    /// centre and radius.
    Shapes(Vec<(Shape<V>, Pose<V>, V, f64)>),
}

impl<V: Vector> WallPieces<V> {
    /// The pieces of `wall`.
    pub fn of(wall: &Wall<V>) -> Self {
        let piece = |shape: Shape<V>, points: &[V]| {
            let mut lo = points[0];
            let mut hi = points[0];
            for &p in points {
                lo = lo.min(p);
                hi = hi.max(p);
            }
            let c = (lo + hi) * 0.5;
            let r = points.iter().map(|&p| (p - c).length()).fold(0.0, f64::max);
            (shape, Pose::IDENTITY, c, r)
        };
        match wall {
            Wall::Plane(p) => WallPieces::Plane(*p),
            Wall::Segment(s) => WallPieces::Shapes(
                Shape::segment(s.a, s.b)
                    .map(|sh| vec![piece(sh, &[s.a, s.b])])
                    .unwrap_or_default(),
            ),
            Wall::Polygon(pg) => {
                let v = &pg.vertices;
                let tris = (1..v.len().saturating_sub(1))
                    .filter_map(|k| {
                        Shape::triangle(v[0], v[k], v[k + 1])
                            .ok()
                            .map(|sh| piece(sh, &[v[0], v[k], v[k + 1]]))
                    })
                    .collect();
                WallPieces::Shapes(tris)
            }
            Wall::Shape(s) => {
                // The bounding sphere about the local origin, placed with the shape.
                let r = s.shape.bounding_radius();
                WallPieces::Shapes(vec![(s.shape.clone(), s.pose, s.pose.position, r)])
            }
        }
    }
}

/// The first contact of a rigid body with a wall (`t_max` as for [`body_body`](super::body_body)).
pub fn body_wall<V: Vector>(a: &MovingPiece<V>, pieces: &WallPieces<V>, t_max: f64) -> Toi {
    match pieces {
        WallPieces::Plane(plane) => {
            let Some((b, r)) = a.body else {
                return Toi::miss(ToiStatus::Separating);
            };
            body_plane(a, b, plane, SHELL * r.radius, t_max)
        }
        WallPieces::Shapes(shapes) => body_pieces(
            a,
            shapes
                .iter()
                .map(|(shape, place, c, rw)| (shape, *place, *c, *rw)),
            t_max,
        ),
    }
}

/// [`body_wall`] against static pieces: each shape with its pose and bounding sphere.
fn body_pieces<'s, V: Vector + 's>(
    a: &MovingPiece<V>,
    pieces: impl Iterator<Item = (&'s Shape<V>, Pose<V>, V, f64)>,
    t_max: f64,
) -> Toi {
    let Some((b, r)) = a.body else {
        return Toi::miss(ToiStatus::Separating);
    };
    let t0 = b.time;
    let shell = SHELL * r.radius;
    let mut best = Toi::miss(ToiStatus::Separating);
    for (shape, place, c, rw) in pieces {
        let fixed = MovingPiece::placed(shape, place);
        // Only while the body's box overlaps the piece's can any broad phase pair them, and
        // only then can the shapes touch (the box holds the bounding sphere, which holds the
        // shape and its shell): a prediction outside these spans would be an event that a
        // broad phase which compares boxes never asks for.
        let spans = box_windows(b.pos, b.vel, a.accel, a.radius, &shape.aabb(&place));
        for span in spans {
            let bound = if best.is_hit() { best.time } else { t_max };
            if !(t0 + span.0 <= bound) {
                break;
            }
            let toi = predict(
                a,
                &fixed,
                t0,
                c - b.pos,
                -b.vel,
                a.radius + rw,
                shell,
                span,
                bound,
            );
            if toi.is_hit() {
                if !(toi.time >= best.time && best.is_hit()) {
                    best = toi;
                }
                break;
            }
        }
    }
    best
}

/// The first contact of a ball without a rigid state (a plain [`Body`], its centre
/// accelerated by `accel` in a world with gravity, `None` without) with any wall: the closed
/// forms of [`crate::ball_toi::ball_wall`] and [`crate::ball_toi::ball_wall_accel`] for segments, planes
/// and polygons, [`ball_static_shape`] for a static shape. The one dispatch of a ball against
/// a wall, for the event-driven world and the discrete stepper's miss count alike.
pub fn ball_against_wall<V: Vector>(b: &Body<V>, accel: Option<V>, wall: &Wall<V>) -> Toi {
    let closed_form = match accel {
        None => crate::ball_toi::ball_wall(b, wall),
        Some(a) => crate::ball_toi::ball_wall_accel(b, a, wall),
    };
    match (wall, closed_form) {
        (_, Some(toi)) => toi,
        (Wall::Shape(s), None) => ball_static_shape(b, accel.unwrap_or(V::ZERO), s),
        (_, None) => unreachable!("every wall but a static shape has a closed form"),
    }
}

/// The first contact of a ball without a rigid state (a plain [`Body`], its centre
/// accelerated by `accel`) with a static shape: [`body_wall`] for a ball of the body's radius
/// that does not spin. A miss when the body's radius and mass make no rigid ball (not finite).
pub fn ball_static_shape<V: Vector>(b: &Body<V>, accel: V, wall: &StaticShape<V>) -> Toi {
    let Ok(ball) = Shape::ball(b.radius) else {
        return Toi::miss(ToiStatus::Separating);
    };
    let Ok(props) = ball.mass_properties(1.0) else {
        return Toi::miss(ToiStatus::Separating);
    };
    let Ok(state) = RigidState::new(
        0,
        &ball,
        &props,
        V::Rotation::IDENTITY,
        V::Angular::default(),
    ) else {
        return Toi::miss(ToiStatus::Separating);
    };
    let mover = MovingPiece::body(&ball, b, &state).with_accel(accel);
    // The piece `WallPieces::of` makes of the wall, without copying its shape.
    let piece = (
        &wall.shape,
        wall.pose,
        wall.pose.position,
        wall.shape.bounding_radius(),
    );
    body_pieces(&mover, std::iter::once(piece), f64::INFINITY)
}

/// [`body_wall`] against a plane: conservative advancement on the exact gap (the body's support
/// point along the plane's normal), which needs no GJK.
fn body_plane<V: Vector>(
    a: &MovingPiece<V>,
    b: &Body<V>,
    plane: &Plane<V>,
    shell: f64,
    t_max: f64,
) -> Toi {
    let t0 = b.time;
    let n = plane.normal_towards(b.pos);
    let centre_gap = n.dot(b.pos - plane.point);
    let vn = n.dot(b.vel);
    // The centre's normal acceleration (gravity), and how fast it can close the gap.
    let an = n.dot(a.accel);
    let closing_acc = (-an).max(0.0);
    let spin = a.spin_speed();
    let gap_at = |t: f64| {
        let pose = a.pose_at(t);
        n.dot(a.shape.support(&pose, -n) - plane.point)
    };
    // The window: the bounding sphere (grown by the shell) must reach the plane, and a body
    // moving towards it touches it before its centre crosses it.
    let reach = a.radius + shell;
    let from = if centre_gap > reach {
        let enter = first_zero_quadratic(centre_gap - reach, vn, an);
        if !enter.is_hit() {
            return Toi::miss(ToiStatus::Separating);
        }
        t0 + enter.time
    } else {
        t0
    };
    if !(from <= t_max) {
        return Toi::miss(ToiStatus::NotBy);
    }
    let to = if an == 0.0 {
        if vn < 0.0 {
            t0 + centre_gap.max(0.0) / -vn
        } else if vn > 0.0 {
            t0 + (reach - centre_gap).max(0.0) / vn
        } else {
            f64::INFINITY
        }
    } else {
        // The centre reaches the plane, or (pushed away) leaves the band for good.
        let cross = first_zero_quadratic(centre_gap.max(0.0), vn, an);
        if cross.is_hit() {
            t0 + cross.time
        } else if an > 0.0 {
            let (h, d) = (0.5 * an, vn * vn - 2.0 * an * (centre_gap - reach));
            let root = d.max(0.0).sqrt();
            t0 + ((root - vn) / (2.0 * h)).max(0.0)
        } else {
            f64::INFINITY
        }
    }
    .min(t_max);
    let contact = |t: f64| Toi {
        time: t,
        status: if t == t0 {
            ToiStatus::Penetrating
        } else {
            ToiStatus::Approaching
        },
    };
    // No certified step (rounding, the step limit, or a step below the resolution of time):
    // a safe time before any contact, where the event re-predicts.
    let stalled = |t: f64| Toi {
        time: t,
        status: ToiStatus::Stalled,
    };
    let mut target = shell;
    if from == t0 {
        let g0 = gap_at(t0);
        if g0 <= shell {
            let p = a.shape.support(&a.pose_at(t0), -n);
            if -n.dot(a.velocity_at(t0, p)) > 0.0 {
                return contact(t0);
            }
            if !(g0 > 0.0) {
                // Touching (round-off) and not approaching: left to separate, or, pulled back
                // by gravity, met again when its centre stops leaving.
                if closing_acc == 0.0 {
                    return Toi::miss(ToiStatus::Separating);
                }
                if !(vn > 0.0) {
                    return contact(t0);
                }
                let apex = t0 + vn / closing_acc;
                return if apex <= t_max {
                    contact(apex)
                } else {
                    Toi::miss(ToiStatus::NotBy)
                };
            }
            target = 0.5 * g0;
        }
    }
    let mut t = from;
    for _ in 0..MAX_STEPS {
        let g = gap_at(t);
        if !(g > target) {
            return contact(t);
        }
        let mu = -(vn + an * (t - t0)) + spin;
        if !(mu > 0.0) && closing_acc == 0.0 {
            return Toi::miss(ToiStatus::Separating);
        }
        let dt = certified_step_accel(g, mu, closing_acc, 0.5 * target);
        if !(dt > 0.0) {
            return stalled(t);
        }
        if !(t + dt <= to) {
            return Toi::miss(ToiStatus::Grazing);
        }
        if t + dt == t {
            // Below the resolution of time.
            return stalled(t);
        }
        t += dt;
    }
    stalled(t)
}
