//! The 2D analogue: the time of contact of moving, rotating polylines (open or closed), from
//! the same code as the meshes' in 3D.
//!
//! A body of the plane moves by a [`PlanarMotion`] (a constant velocity of its centre, a
//! constant angular velocity about it, optionally the centre's constant acceleration): the
//! seed's motion class with the axis of rotation along `z`. The points are those of the 3D
//! feature tests at `z = 0`, where every enclosure's `z` stays exactly 0, and two polylines
//! apart at `t = 0` first touch where a vertex of one meets a segment of the other (a vertex
//! meeting a vertex is a vertex meeting both segments at it); segments that may already meet
//! at `t = 0` are a contact at 0. The feature test, [`vertex_edge`], is the 3D
//! vertex–face test of [`super::rotating`] with the triangle's second edge replaced by the
//! constant `ẑ`: the coplanarity `f = ((b − a) × ẑ) · (p − a)` vanishes when the vertex is on
//! the segment's line, and the domain functions `(b − a) · (p − a)` and
//! `|b − a|² − (b − a) · (p − a)` are both `>= 0` when it lies between the ends. The same
//! bisection, second-order cut and tolerance apply, so the time is never after the first
//! contact.
//!
//! [`polyline_contact`] runs every vertex against every segment of the other polyline, both
//! ways, each pair first pruned by the seed's sphere–sphere test over the time domain (the
//! vertex against the segment's bounding circle, over `[0, best]` with `best` the earliest
//! contact found so far). There is no hierarchy in 2D: the pairs are `n m`, each pruned in a
//! few interval operations, which suits polylines of up to some thousands of segments.

use super::linear::CcdOptions;
use super::rotating::{FeaturePair, Kind, MovingPoint, ScrewMotion};
use super::tree::spheres_may_meet;

/// The motion of a body of the plane: its centre of mass at `t = 0`, the centre's velocity
/// and constant acceleration, and the angular velocity (radians per unit time,
/// counter-clockwise positive) about the centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarMotion {
    /// The centre at `t = 0`.
    pub centre: [f64; 2],
    /// Its velocity.
    pub velocity: [f64; 2],
    /// The angular velocity.
    pub angular_velocity: f64,
    /// The centre's constant acceleration (zero in the seed's class).
    pub acceleration: [f64; 2],
}

impl PlanarMotion {
    /// The seed's class: no acceleration.
    pub fn new(centre: [f64; 2], velocity: [f64; 2], angular_velocity: f64) -> Self {
        Self {
            centre,
            velocity,
            angular_velocity,
            acceleration: [0.0; 2],
        }
    }
    /// The same motion in 3D, in the plane `z = 0` about the `z` axis.
    pub fn screw(&self) -> ScrewMotion {
        let lift = |v: [f64; 2]| [v[0], v[1], 0.0];
        ScrewMotion {
            acceleration: lift(self.acceleration),
            ..ScrewMotion::new(
                lift(self.centre),
                lift(self.velocity),
                [0.0, 0.0, self.angular_velocity],
            )
        }
    }
    /// The position at `t` of the body point at `point` at `t = 0` (plain floats: for
    /// references and samples).
    pub fn at(&self, point: [f64; 2], t: f64) -> [f64; 2] {
        let (s, c) = (self.angular_velocity * t).sin_cos();
        let r = [point[0] - self.centre[0], point[1] - self.centre[1]];
        [0, 1].map(|i| {
            let turned = if i == 0 {
                r[0] * c - r[1] * s
            } else {
                r[0] * s + r[1] * c
            };
            self.centre[i] + self.velocity[i] * t + 0.5 * self.acceleration[i] * t * t + turned
        })
    }
}

fn lift(p: [f64; 2]) -> [f64; 3] {
    [p[0], p[1], 0.0]
}

/// The earliest time in `[0, until]` at which the vertex `p` (of a body moving by `mp`) may
/// touch the segment `a b` (of a body moving by `me`), points given at `t = 0`; `None` when
/// they never touch (see the [module docs](self)).
pub fn vertex_edge(
    p: [f64; 2],
    mp: &PlanarMotion,
    [a, b]: [[f64; 2]; 2],
    me: &PlanarMotion,
    until: f64,
    opts: &CcdOptions,
) -> Option<f64> {
    vertex_edge_by(p, mp, [a, b], me, until, until, opts)
}

/// [`vertex_edge`] reporting only a contact at or before `horizon` (the same time as the
/// unbounded query whenever that is at or before `horizon`).
pub fn vertex_edge_by(
    p: [f64; 2],
    mp: &PlanarMotion,
    [a, b]: [[f64; 2]; 2],
    me: &PlanarMotion,
    until: f64,
    horizon: f64,
    opts: &CcdOptions,
) -> Option<f64> {
    let pair = FeaturePair::new(
        Kind::VertexEdge,
        [lift(p), lift(a), lift(b), lift(a)],
        &mp.screw(),
        &me.screw(),
    );
    pair.search(until, 0.0, horizon, opts).time
}

/// Why a polyline was refused: the item and the problem.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PolylineError {
    /// Fewer than two points (three for a closed one).
    #[error("a polyline needs at least {needed} points, got {got}")]
    TooFewPoints {
        /// How many it needs.
        needed: usize,
        /// How many it has.
        got: usize,
    },
    /// A coordinate is infinite or NaN.
    #[error("point {0} is not finite")]
    NonFinite(usize),
    /// A segment's ends coincide.
    #[error("segment {0} has no length (its ends coincide)")]
    Degenerate(usize),
}

/// A validated polyline: points joined in order by segments, and the last to the first when
/// closed (a polygon's outline).
#[derive(Clone, Debug, PartialEq)]
pub struct Polyline {
    points: Vec<[f64; 2]>,
    closed: bool,
}

impl Polyline {
    /// The polyline through `points`, closed or not.
    ///
    /// # Errors
    ///
    /// [`PolylineError`]: too few points, a non-finite coordinate, a segment of no length.
    pub fn new(points: Vec<[f64; 2]>, closed: bool) -> Result<Self, PolylineError> {
        let needed = if closed { 3 } else { 2 };
        if points.len() < needed {
            return Err(PolylineError::TooFewPoints {
                needed,
                got: points.len(),
            });
        }
        if let Some(i) = points
            .iter()
            .position(|p| !(p[0].is_finite() && p[1].is_finite()))
        {
            return Err(PolylineError::NonFinite(i));
        }
        let line = Self { points, closed };
        if let Some(s) = line.segments().position(|[i, j]| {
            let (p, q) = (line.points[i], line.points[j]);
            p == q
        }) {
            return Err(PolylineError::Degenerate(s));
        }
        Ok(line)
    }
    /// The regular polygon of `n` corners on the circle of `radius` about `centre`, the first
    /// corner at angle `phase`.
    ///
    /// # Errors
    ///
    /// As [`Polyline::new`] (fewer than 3 corners, a radius that is 0 or not finite).
    pub fn regular(
        n: usize,
        radius: f64,
        centre: [f64; 2],
        phase: f64,
    ) -> Result<Self, PolylineError> {
        let points = (0..n)
            .map(|k| {
                let a = phase + std::f64::consts::TAU * k as f64 / n as f64;
                [centre[0] + radius * a.cos(), centre[1] + radius * a.sin()]
            })
            .collect();
        Self::new(points, true)
    }
    /// The points.
    pub fn points(&self) -> &[[f64; 2]] {
        &self.points
    }
    /// Whether the last point joins the first.
    pub fn closed(&self) -> bool {
        self.closed
    }
    /// The segments, as pairs of point indices, in order.
    pub fn segments(&self) -> impl Iterator<Item = [usize; 2]> + '_ {
        let n = self.points.len();
        let count = if self.closed { n } else { n - 1 };
        (0..count).map(move |i| [i, (i + 1) % n])
    }
}

/// The first contact of two polylines: its time and features.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolylineContact {
    /// The time (never after the first contact).
    pub time: f64,
    /// The features that touch.
    pub features: PolylineFeatures,
}

/// The features of a [`PolylineContact`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolylineFeatures {
    /// A vertex meets a segment of the other polyline (every first touch after `t = 0`).
    VertexSegment {
        /// Whether the vertex is the first polyline's (and the segment the second's).
        vertex_of_first: bool,
        /// The vertex's index in its polyline.
        vertex: usize,
        /// The segment's index in the other polyline (see [`Polyline::segments`]).
        segment: usize,
    },
    /// Two segments that may already meet at `t = 0` (the time is then 0).
    Segments {
        /// The first polyline's segment.
        first: usize,
        /// The second polyline's segment.
        second: usize,
    },
}

/// The earliest time in `[0, until]` at which polylines `a` (moving by `ma`) and `b` (by `mb`),
/// given at `t = 0`, may touch, with the features; `None` when they never do (see the
/// [module docs](self)). Polylines that may already meet at `t = 0` (a pair of segments whose
/// orientation tests, in interval arithmetic, do not prove them apart) touch at 0. Ties go to
/// the first polyline's vertices, then to the lower indices.
pub fn polyline_contact(
    a: &Polyline,
    ma: &PlanarMotion,
    b: &Polyline,
    mb: &PlanarMotion,
    until: f64,
    opts: &CcdOptions,
) -> Option<PolylineContact> {
    if !(until >= 0.0 && until.is_finite()) {
        return None;
    }
    // Crossing segments need no vertex on a segment: only at the start can they meet so.
    for (first, [i, j]) in a.segments().enumerate() {
        for (second, [k, l]) in b.segments().enumerate() {
            let (p, q, r, s) = (a.points[i], a.points[j], b.points[k], b.points[l]);
            if segments_may_meet(p, q, r, s) {
                return Some(PolylineContact {
                    time: 0.0,
                    features: PolylineFeatures::Segments { first, second },
                });
            }
        }
    }
    let mut best: Option<PolylineContact> = None;
    for (vertex_of_first, (v, mv), (s, ms)) in [(true, (a, ma), (b, mb)), (false, (b, mb), (a, ma))]
    {
        let (sv, ss) = (mv.screw(), ms.screw());
        let vertices: Vec<MovingPoint> = v
            .points
            .iter()
            .map(|&p| MovingPoint::new(lift(p), &sv))
            .collect();
        // Each segment's bounding circle: its midpoint and half its length, rounded up.
        let circles: Vec<(MovingPoint, f64)> = s
            .segments()
            .map(|[i, j]| {
                let (p, q) = (s.points[i], s.points[j]);
                let mid = [0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1])];
                let half = ((p[0] - mid[0]).hypot(p[1] - mid[1]))
                    .max((q[0] - mid[0]).hypot(q[1] - mid[1]));
                (
                    MovingPoint::new(lift(mid), &ss),
                    half * (1.0 + 1e-12) + f64::MIN_POSITIVE,
                )
            })
            .collect();
        for (k, &p) in v.points.iter().enumerate() {
            for (segment, [i, j]) in s.segments().enumerate() {
                let horizon = best.map_or(until, |c| c.time);
                let window = super::Interval::new(0.0, horizon);
                let (centre, radius) = &circles[segment];
                if !spheres_may_meet(&vertices[k], 0.0, centre, *radius, window) {
                    continue;
                }
                let found =
                    vertex_edge_by(p, mv, [s.points[i], s.points[j]], ms, until, horizon, opts);
                if let Some(time) = found {
                    if best.is_none_or(|c| time < c.time) {
                        best = Some(PolylineContact {
                            time,
                            features: PolylineFeatures::VertexSegment {
                                vertex_of_first,
                                vertex: k,
                                segment,
                            },
                        });
                    }
                }
            }
        }
    }
    best
}

/// Whether segments `p q` and `r s` may meet: their boxes overlap and neither lies strictly
/// on one side of the other's line (orientations in interval arithmetic, so a meeting is
/// never missed; collinear segments whose boxes overlap count as meeting).
fn segments_may_meet(p: [f64; 2], q: [f64; 2], r: [f64; 2], s: [f64; 2]) -> bool {
    use super::Interval;
    let boxes =
        (0..2).all(|k| p[k].min(q[k]) <= r[k].max(s[k]) && r[k].min(s[k]) <= p[k].max(q[k]));
    if !boxes {
        return false;
    }
    let iv = |x: [f64; 2]| x.map(Interval::point);
    let orient = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| {
        let (a, b, c) = (iv(a), iv(b), iv(c));
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    };
    let one_side =
        |x: Interval, y: Interval| (x.lo() > 0.0 && y.lo() > 0.0) || (x.hi() < 0.0 && y.hi() < 0.0);
    !one_side(orient(p, q, r), orient(p, q, s)) && !one_side(orient(r, s, p), orient(r, s, q))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_polylines_are_refused() {
        assert_eq!(
            Polyline::new(vec![[0.0, 0.0]], false),
            Err(PolylineError::TooFewPoints { needed: 2, got: 1 })
        );
        assert_eq!(
            Polyline::new(vec![[0.0, 0.0], [1.0, 0.0]], true),
            Err(PolylineError::TooFewPoints { needed: 3, got: 2 })
        );
        assert_eq!(
            Polyline::new(vec![[0.0, 0.0], [f64::NAN, 0.0]], false),
            Err(PolylineError::NonFinite(1))
        );
        assert_eq!(
            Polyline::new(vec![[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]], true),
            Err(PolylineError::Degenerate(2))
        );
        let e = Polyline::new(vec![[0.0, 0.0], [0.0, 0.0]], false).unwrap_err();
        assert_eq!(e.to_string(), "segment 0 has no length (its ends coincide)");
        assert!(Polyline::regular(2, 1.0, [0.0, 0.0], 0.0).is_err());
    }

    /// The README's example: a square sliding and spinning into a wall. Its corner at `(1, 0)`
    /// turns away before it reaches the wall (as it would at 0.2 without spinning); the corner
    /// that follows, turning into the wall, meets it at `t + sin 2t = 1.2`.
    #[test]
    fn the_readme_square_meets_the_wall() {
        let square = Polyline::regular(4, 1.0, [0.0, 0.0], 0.0).unwrap();
        let wall = Polyline::new(vec![[1.2, -3.0], [1.2, 3.0]], false).unwrap();
        let moving = PlanarMotion::new([0.0, 0.0], [1.0, 0.0], 2.0);
        let still = PlanarMotion::new([1.2, 0.0], [0.0, 0.0], 0.0);
        let c =
            polyline_contact(&square, &moving, &wall, &still, 1.0, &CcdOptions::default()).unwrap();
        let PolylineFeatures::VertexSegment {
            vertex_of_first: true,
            vertex: 3,
            segment: 0,
        } = c.features
        else {
            panic!("{c:?}")
        };
        let p = moving.at(square.points()[3], c.time);
        assert!((p[0] - 1.2).abs() < 1e-8, "{c:?} {p:?}");
        assert!((c.time + (2.0 * c.time).sin() - 1.2).abs() < 1e-8, "{c:?}");
    }

    /// A bar spinning about its centre sweeps its end through a segment at the angle where
    /// they meet.
    #[test]
    fn a_spinning_bar_end_meets_a_segment_at_its_angle() {
        let opts = CcdOptions::default();
        let bar = PlanarMotion::new([0.0, 0.0], [0.0, 0.0], 1.0);
        let still = PlanarMotion::new([5.0, 0.0], [0.0, 0.0], 0.0);
        // The bar's end at (2, 0) turns counter-clockwise; the segment x = 1, y in [0, 3]
        // meets the circle of radius 2 at angle acos(1/2) = π/3.
        let t = vertex_edge(
            [2.0, 0.0],
            &bar,
            [[1.0, 0.0], [1.0, 3.0]],
            &still,
            2.0,
            &opts,
        )
        .unwrap();
        let exact = std::f64::consts::FRAC_PI_3;
        assert!(t <= exact && t > exact - 1e-8, "{t} against {exact}");
        // A segment beyond the bar's reach is never met.
        let far = vertex_edge(
            [2.0, 0.0],
            &bar,
            [[2.5, -1.0], [2.5, 1.0]],
            &still,
            7.0,
            &opts,
        );
        assert_eq!(far, None);
    }

    /// Segments that already cross at the start touch at 0 (no vertex is on a segment);
    /// segments apart, or collinear and apart, do not.
    #[test]
    fn crossing_at_the_start_is_a_contact_at_zero() {
        let opts = CcdOptions::default();
        let still = PlanarMotion::new([0.0, 0.0], [0.0, 0.0], 0.0);
        let away = PlanarMotion::new([0.0, 0.0], [0.0, 5.0], 0.0);
        let h = Polyline::new(vec![[-1.0, 0.0], [1.0, 0.0]], false).unwrap();
        let v = Polyline::new(vec![[0.0, -1.0], [0.0, 1.0]], false).unwrap();
        let c = polyline_contact(&h, &still, &v, &away, 1.0, &opts).unwrap();
        assert_eq!(c.time, 0.0);
        assert_eq!(
            c.features,
            PolylineFeatures::Segments {
                first: 0,
                second: 0
            }
        );
        let beside = Polyline::new(vec![[2.0, 0.0], [3.0, 0.0]], false).unwrap();
        assert_eq!(
            polyline_contact(&h, &still, &beside, &still, 1.0, &opts),
            None
        );
        let above = Polyline::new(vec![[-1.0, 0.5], [1.0, 0.5]], false).unwrap();
        assert_eq!(
            polyline_contact(&h, &still, &above, &still, 1.0, &opts),
            None
        );
    }
}
