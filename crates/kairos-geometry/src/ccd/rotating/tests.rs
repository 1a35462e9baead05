//! The rotating points' enclosures and feature tests: sin/cos over intervals, the boxes of
//! accelerated and drifting motions, a still body as the linear case, a spinning bar against
//! a triangle, and the second-order inclusion and cut against sampled values.

use super::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

#[test]
fn sin_and_cos_enclose_every_angle() {
    let mut rng = Pcg64::seed_from_u64(9);
    for _ in 0..20_000 {
        let a: f64 = rng.gen_range(-20.0..20.0);
        let b = a + rng.gen_range(0.0..4.0);
        let (s, c) = sin_cos(Interval::new(a, b));
        for k in 0..=50 {
            let x = a + (b - a) * k as f64 / 50.0;
            assert!(
                s.contains(x.sin()) && c.contains(x.cos()),
                "{x} in [{a}, {b}]"
            );
        }
    }
    let (s, c) = sin_cos(Interval::new(0.0, 7.0));
    assert_eq!((s, c), (Interval::new(-1.0, 1.0), Interval::new(-1.0, 1.0)));
}

/// A point of a body falling under gravity while its spin speeds up (about a fixed axis,
/// `|dω/dt| = α`) stays in the boxes of the motion with those bounds, and so does a vector
/// between two of its points in the boxes of [`MovingPoint::vector`].
#[test]
fn boxes_hold_accelerated_and_drifting_motion() {
    let mut rng = Pcg64::seed_from_u64(4);
    for _ in 0..200 {
        let r = |rng: &mut Pcg64| [0; 3].map(|_| rng.gen_range(-1.0..1.0));
        let (centre, velocity, axis, point) = (r(&mut rng), r(&mut rng), r(&mut rng), r(&mut rng));
        let len = dot3(axis, axis).sqrt();
        let k = axis.map(|x| x / len);
        let (w0, alpha) = (rng.gen_range(0.0..5.0), rng.gen_range(0.0..3.0));
        let mut m = ScrewMotion::new(centre, velocity, k.map(|x| x * w0));
        m.acceleration = [0.0, 0.0, -9.81];
        m.angular_acceleration = alpha;
        // The true motion: the angle is w0 t + alpha t^2 / 2 about k.
        let truth_of = |point: [f64; 3], t: f64| {
            let mut turned = ScrewMotion::new(centre, velocity, k);
            turned.acceleration = m.acceleration;
            let theta = w0 * t + 0.5 * alpha * t * t;
            // `at` with unit speed turns by `t`: move the centre's path separately.
            let x = turned.at(point, theta);
            let drift = [0, 1, 2].map(|i| {
                velocity[i] * (t - theta) + 0.5 * m.acceleration[i] * (t * t - theta * theta)
            });
            [0, 1, 2].map(|i| x[i] + drift[i])
        };
        let truth = |t: f64| truth_of(point, t);
        let other = r(&mut rng);
        let mp = MovingPoint::new(point, &m);
        // The body vector from `other` to `point` turns with the body.
        let vector = MovingPoint::vector(&MovingPoint::new(other, &m), &mp);
        let t0 = rng.gen_range(0.0..2.0);
        let span = Interval::new(t0, t0 + rng.gen_range(0.0..0.5));
        let (b, bv) = (mp.enclose(span), vector.enclose(span));
        for j in 0..=20 {
            let t = span.lo() + span.width() * j as f64 / 20.0;
            let x = truth(t);
            let y = truth_of(other, t);
            let v = [0, 1, 2].map(|i| x[i] - y[i]);
            for i in 0..3 {
                let slack = 1e-12 * (1.0 + x[i].abs());
                assert!(
                    b[i].lo() - slack <= x[i] && x[i] <= b[i].hi() + slack,
                    "{x:?} outside {b:?} at {t}"
                );
                let slack = 1e-12 * (1.0 + x[i].abs() + y[i].abs());
                assert!(
                    bv[i].lo() - slack <= v[i] && v[i] <= bv[i].hi() + slack,
                    "vector {v:?} outside {bv:?} at {t}"
                );
            }
        }
    }
}

fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[test]
fn a_still_body_is_the_linear_case() {
    let still = ScrewMotion::new([0.0; 3], [0.0; 3], [0.0; 3]);
    let falling = ScrewMotion::new([0.2, 0.2, 1.0], [0.0, 0.0, -4.0], [0.0; 3]);
    let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let t = vertex_face(
        [0.2, 0.2, 1.0],
        &falling,
        tri,
        &still,
        1.0,
        &Default::default(),
    )
    .unwrap();
    assert!(t <= 0.25 && t > 0.25 - 1e-8, "{t}");
}

/// A spinning bar's end sweeps through a triangle: found at the angle where it crosses
/// the triangle's plane, never after it.
#[test]
fn a_spinning_bar_end_meets_a_triangle_at_its_angle() {
    let still = ScrewMotion::new([0.0; 3], [0.0; 3], [0.0; 3]);
    // The point (1, 0, 0) turning about z at 2 rad/s reaches the plane x = y (through a
    // triangle there) at θ = π/4: t = π/8.
    let spin = ScrewMotion::new([0.0; 3], [0.0; 3], [0.0, 0.0, 2.0]);
    let tri = [[0.0, 0.0, -1.0], [2.0, 2.0, -1.0], [0.0, 0.0, 1.0]];
    let t = vertex_face(
        [1.0, 0.0, 0.0],
        &spin,
        tri,
        &still,
        2.0,
        &Default::default(),
    )
    .unwrap();
    let exact = std::f64::consts::PI / 8.0;
    assert!(t <= exact && t > exact - 1e-8, "{t} against {exact}");
}

/// A random motion of the seed's class with a centre's acceleration, and a random
/// feature pair on it (vertex–face or edge–edge, points within 1 of the centres).
fn random_pair(rng: &mut Pcg64, kind: Kind) -> ([[f64; 3]; 4], ScrewMotion, ScrewMotion) {
    let r = |rng: &mut Pcg64, s: f64| [0; 3].map(|_| rng.gen_range(-s..s));
    let m1 = ScrewMotion {
        acceleration: r(rng, 10.0),
        ..ScrewMotion::new(r(rng, 1.0), r(rng, 3.0), r(rng, 6.0))
    };
    let m2 = ScrewMotion {
        acceleration: r(rng, 10.0),
        ..ScrewMotion::new(r(rng, 1.0), r(rng, 3.0), r(rng, 6.0))
    };
    let split = if kind == Kind::EdgeEdge { 2 } else { 1 };
    let mut x = [0, 1, 2, 3].map(|i| {
        let c = if i < split { m1.centre } else { m2.centre };
        let o = r(rng, 1.0);
        [0, 1, 2].map(|k| c[k] + o[k])
    });
    if kind != Kind::VertexEdge {
        return (x, m1, m2);
    }
    // In the plane z = 0, turning about z; the fourth point repeats the segment's start.
    let flat = |m: ScrewMotion| ScrewMotion {
        centre: [m.centre[0], m.centre[1], 0.0],
        velocity: [m.velocity[0], m.velocity[1], 0.0],
        angular_velocity: [0.0, 0.0, m.angular_velocity[2]],
        acceleration: [m.acceleration[0], m.acceleration[1], 0.0],
        angular_acceleration: 0.0,
    };
    for p in &mut x {
        p[2] = 0.0;
    }
    x[3] = x[1];
    (x, flat(m1), flat(m2))
}

/// The coplanarity `f` of the pair at `t`, in floats from the exact motion.
fn sampled_f(kind: Kind, x: &[[f64; 3]; 4], m1: &ScrewMotion, m2: &ScrewMotion, t: f64) -> f64 {
    let split = if kind == Kind::EdgeEdge { 2 } else { 1 };
    let y = [0, 1, 2, 3].map(|i| (if i < split { m1 } else { m2 }).at(x[i], t));
    let d = |a: [f64; 3], b: [f64; 3]| [0, 1, 2].map(|k| a[k] - b[k]);
    let [e1, e2, dd] = match kind {
        Kind::VertexFace => [d(y[2], y[1]), d(y[3], y[1]), d(y[0], y[1])],
        Kind::EdgeEdge => [d(y[1], y[0]), d(y[3], y[2]), d(y[2], y[0])],
        Kind::VertexEdge => [d(y[2], y[1]), [0.0, 0.0, 1.0], d(y[0], y[1])],
    };
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    dot3(n, dd)
}

/// The second-order inclusion holds `f` at every sampled time of random intervals, and
/// is tight: on short intervals its bound at a time is far narrower than the first-order
/// enclosure over the interval (which a wrong derivative would not give).
#[test]
fn the_second_order_inclusion_holds_every_sampled_value() {
    let mut rng = Pcg64::seed_from_u64(12);
    let (mut tighter, mut short) = (0, 0);
    for case in 0..4000 {
        let kind = [Kind::VertexFace, Kind::EdgeEdge, Kind::VertexEdge][case % 3];
        let (x, m1, m2) = random_pair(&mut rng, kind);
        let pair = FeaturePair::new(kind, x, &m1, &m2);
        let t0: f64 = rng.gen_range(0.0..2.0);
        let w = 10f64.powf(rng.gen_range(-6.0..0.0));
        let t = Interval::new(t0, t0 + w);
        let (g, gp, a) = pair.taylor(t);
        let scale = 1e-12 * (1.0 + g.lo().abs().max(g.hi().abs()));
        for j in 0..=64 {
            let s = t.lo() + t.width() * j as f64 / 64.0;
            let s = s.min(t.hi());
            let h = Interval::point(s - t0);
            let bound = g + gp * h + a * h.square();
            let v = sampled_f(kind, &x, &m1, &m2, s);
            assert!(
                bound.lo() - scale <= v && v <= bound.hi() + scale,
                "case {case}: f({s}) = {v} outside {bound:?} ({g:?} {gp:?} {a:?})"
            );
        }
        if w < 1e-3 {
            short += 1;
            // The first-order enclosure of f over t.
            let turns = pair.turns(t);
            let b = [0, 1, 2, 3].map(|i| pair.pts[i].enclose_turned(t, turns[i]));
            let [e1, e2, d] = pair.frame(t, &b, &turns);
            let first = dot(&cross(&e1, &e2), &d);
            // The second-order bound at the end of t: its width is the overestimate.
            let hw = Interval::point(w);
            let second = g + gp * hw + a * hw.square();
            if second.width() < 0.01 * first.width() {
                tighter += 1;
            }
        }
    }
    assert!(tighter * 10 > short * 9, "{tighter} of {short}");
}

/// Searches with the second-order cut find the same contacts as the first-order ones
/// (to within the first-order search's early stop: its enclosures cannot exclude the
/// intervals of the tolerance's width just before the root), in fewer tested intervals
/// when there is a contact to converge to.
#[test]
fn the_second_order_cut_needs_fewer_intervals() {
    let mut rng = Pcg64::seed_from_u64(13);
    let opts = CcdOptions {
        time_tolerance: 1e-12,
        ..CcdOptions::default()
    };
    let (mut with, mut without, mut contacts) = (0, 0, 0);
    for case in 0..400 {
        let kind = [Kind::VertexFace, Kind::EdgeEdge, Kind::VertexEdge][case % 3];
        let (x, m1, m2) = random_pair(&mut rng, kind);
        let pair = FeaturePair::new(kind, x, &m1, &m2);
        let (fast, slow) = (
            pair.search(1.0, 0.0, 1.0, &opts),
            pair.first_order_only().search(1.0, 0.0, 1.0, &opts),
        );
        match (fast.time, slow.time) {
            (Some(a), Some(b)) => {
                contacts += 1;
                assert!((a - b).abs() <= 1e-9, "case {case}: {a} against {b}");
                // The convergence to a contact is where the cut works.
                with += fast.checks;
                without += slow.checks;
            }
            (None, None) => {}
            (a, b) => panic!("case {case}: {a:?} against {b:?}"),
        }
    }
    println!("{contacts} contacts: {with} intervals with the cut, {without} without");
    assert!(contacts > 20, "{contacts}");
    assert!(with * 3 < without, "{with} against {without}");
}
