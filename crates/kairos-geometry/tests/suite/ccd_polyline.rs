//! The 2D analogue of the mesh CCD: spinning polygons and open polylines fired at each other,
//! against dense sampling of their motion. Never a missed contact, never a time after the
//! first sampled intersection, and the polylines touching (within the tolerance's reach) at
//! the reported time.

use kairos_geometry::ccd::polyline::{polyline_contact, PlanarMotion, Polyline, PolylineFeatures};
use kairos_geometry::ccd::CcdOptions;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

type P = [f64; 2];

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1]]
}
fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}
fn cross(a: P, b: P) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

/// The distance from `p` to the segment `a b`.
fn point_segment(p: P, a: P, b: P) -> f64 {
    let ab = sub(b, a);
    let s = (dot(sub(p, a), ab) / dot(ab, ab)).clamp(0.0, 1.0);
    let q = [a[0] + s * ab[0], a[1] + s * ab[1]];
    dot(sub(p, q), sub(p, q)).sqrt()
}

/// Whether segments `a b` and `c d` cross or touch.
fn segments_meet(a: P, b: P, c: P, d: P) -> bool {
    let (d1, d2) = (cross(sub(b, a), sub(c, a)), cross(sub(b, a), sub(d, a)));
    let (d3, d4) = (cross(sub(d, c), sub(a, c)), cross(sub(d, c), sub(b, c)));
    (d1 * d2 <= 0.0 && d3 * d4 <= 0.0) && !(d1 == 0.0 && d2 == 0.0)
}

/// The polyline's points at `t`.
fn placed(line: &Polyline, m: &PlanarMotion, t: f64) -> Vec<P> {
    line.points().iter().map(|&p| m.at(p, t)).collect()
}

fn segments(line: &Polyline, pts: &[P]) -> Vec<(P, P)> {
    line.segments().map(|[i, j]| (pts[i], pts[j])).collect()
}

/// The distance of the two polylines at `t` (0 when they cross).
fn distance(a: &Polyline, ma: &PlanarMotion, b: &Polyline, mb: &PlanarMotion, t: f64) -> f64 {
    let (pa, pb) = (placed(a, ma, t), placed(b, mb, t));
    let (sa, sb) = (segments(a, &pa), segments(b, &pb));
    let mut best = f64::INFINITY;
    for &(p, q) in &sa {
        for &(r, s) in &sb {
            if segments_meet(p, q, r, s) {
                return 0.0;
            }
            best = best
                .min(point_segment(p, r, s))
                .min(point_segment(q, r, s))
                .min(point_segment(r, p, q))
                .min(point_segment(s, p, q));
        }
    }
    best
}

/// The first sampled time in `[0, until]` at which the polylines cross.
fn first_sampled_crossing(
    a: &Polyline,
    ma: &PlanarMotion,
    b: &Polyline,
    mb: &PlanarMotion,
    until: f64,
    samples: usize,
) -> Option<f64> {
    (0..=samples)
        .map(|k| until * k as f64 / samples as f64)
        .find(|&t| distance(a, ma, b, mb, t) == 0.0)
}

/// A random polygon about `centre` (3 to 7 corners, an irregular star when `star`) or an open
/// polyline of 2 to 5 points.
fn random_line(rng: &mut Pcg64, centre: P) -> Polyline {
    if rng.gen_bool(0.2) {
        let n = rng.gen_range(2..6);
        let pts = (0..n)
            .map(|k| {
                [
                    centre[0] + rng.gen_range(-0.3..0.3),
                    centre[1] - 1.0 + 2.0 * k as f64 / (n - 1) as f64,
                ]
            })
            .collect();
        return Polyline::new(pts, false).unwrap();
    }
    let n = rng.gen_range(3..8);
    let star = rng.gen_bool(0.4);
    let pts = (0..n * if star { 2 } else { 1 })
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / (n * if star { 2 } else { 1 }) as f64;
            let r = if star && k % 2 == 1 {
                rng.gen_range(0.2..0.5)
            } else {
                rng.gen_range(0.6..1.0)
            };
            [centre[0] + r * a.cos(), centre[1] + r * a.sin()]
        })
        .collect();
    Polyline::new(pts, true).unwrap()
}

#[test]
fn spinning_and_falling_polylines_never_miss_a_sampled_contact() {
    let mut rng = Pcg64::seed_from_u64(23);
    let opts = CcdOptions::default();
    let until = 2.0;
    let (mut contacts, mut misses_by_sampling) = (0, 0);
    for case in 0..150 {
        let (ca, cb) = (
            [-1.5, rng.gen_range(-0.8..0.8)],
            [1.5, rng.gen_range(-0.8..0.8)],
        );
        let (a, b) = (random_line(&mut rng, ca), random_line(&mut rng, cb));
        let speed = rng.gen_range(0.5..2.5);
        let ma = PlanarMotion::new(
            ca,
            [speed, rng.gen_range(-0.3..0.3)],
            rng.gen_range(-6.0..6.0),
        );
        let mut mb = PlanarMotion::new(
            cb,
            [-speed, rng.gen_range(-0.3..0.3)],
            rng.gen_range(-6.0..6.0),
        );
        if case % 2 == 1 {
            // Falling under gravity while the other does not.
            mb.acceleration = [0.0, -rng.gen_range(0.5..3.0)];
        }
        if distance(&a, &ma, &b, &mb, 0.0) < 0.05 {
            continue;
        }
        let found = polyline_contact(&a, &ma, &b, &mb, until, &opts);
        let sampled = first_sampled_crossing(&a, &ma, &b, &mb, until, 4000);
        match (found, sampled) {
            (None, Some(t)) => panic!("case {case}: the contact sampled at {t} was missed"),
            (Some(c), Some(t)) => {
                assert!(c.time <= t, "case {case}: {} after the sampled {t}", c.time);
            }
            (Some(_), None) => misses_by_sampling += 1,
            (None, None) => {}
        }
        if let Some(c) = found {
            contacts += 1;
            // The polylines touch at the reported time (to within how far they move over
            // the tolerance), and are apart just before it.
            let d = distance(&a, &ma, &b, &mb, c.time);
            assert!(d <= 1e-7, "case {case}: {d} apart at {}", c.time);
            let before = distance(&a, &ma, &b, &mb, (c.time - 1e-3).max(0.0));
            assert!(c.time < 1e-3 || before > 0.0, "case {case}");
        }
    }
    println!("{contacts} contacts, {misses_by_sampling} between samples");
    assert!(contacts > 60, "{contacts}");
}

/// A polygon spinning in place, its corner sweeping through a fixed open polyline: the time
/// its corner's circle reaches the polyline's segment.
#[test]
fn a_spinning_square_corner_hits_a_wall_at_its_angle() {
    let opts = CcdOptions::default();
    // The square's corners at distance √2 from its centre; the wall x = 1.2.
    let square =
        Polyline::regular(4, 2f64.sqrt(), [0.0, 0.0], std::f64::consts::FRAC_PI_4).unwrap();
    let wall = Polyline::new(vec![[1.2, -3.0], [1.2, 0.0], [1.2, 3.0]], false).unwrap();
    let spin = PlanarMotion::new([0.0, 0.0], [0.0, 0.0], 2.0);
    let still = PlanarMotion::new([1.2, 0.0], [0.0, 0.0], 0.0);
    let c = polyline_contact(&square, &spin, &wall, &still, 1.0, &opts).unwrap();
    // The corner at angle -π/4 (x = 1 at t = 0) turns towards angle 0 (x = √2) and reaches
    // x = 1.2 at the angle -acos(1.2 / √2).
    let exact = (-(1.2 / 2f64.sqrt()).acos() + std::f64::consts::FRAC_PI_4) / 2.0;
    let vertex = |c: &kairos_geometry::ccd::polyline::PolylineContact| match c.features {
        PolylineFeatures::VertexSegment {
            vertex_of_first,
            vertex,
            ..
        } => Some((vertex_of_first, vertex)),
        PolylineFeatures::Segments { .. } => None,
    };
    assert_eq!(vertex(&c), Some((true, 3)), "{c:?}");
    assert!(
        c.time <= exact && c.time > exact - 1e-8,
        "{} against {exact}",
        c.time
    );
    // Reversed order: the same time, the vertex now the second polyline's.
    let r = polyline_contact(&wall, &still, &square, &spin, 1.0, &opts).unwrap();
    assert_eq!(r.time, c.time);
    assert_eq!(vertex(&r), Some((false, 3)), "{r:?}");
}
