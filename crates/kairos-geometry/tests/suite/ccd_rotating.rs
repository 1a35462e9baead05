//! Vertex–face and edge–edge contact of rotating bodies (`kairos_geometry::ccd::rotating`) against a
//! dense-sampling reference: never a missed contact, never a time after the reference's.

use kairos_geometry::ccd::rotating::{
    edge_edge, edge_edge_by, vertex_face, vertex_face_by, ScrewMotion,
};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

type P = [f64; 3];

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: P, b: P) -> P {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn random_point(rng: &mut Pcg64, r: f64) -> P {
    [0; 3].map(|_| rng.gen_range(-r..r))
}

fn motion(rng: &mut Pcg64, centre: P, toward: P, spin: f64) -> ScrewMotion {
    let speed = rng.gen_range(0.5..3.0);
    let d = sub(toward, centre);
    let len = dot(d, d).sqrt().max(1e-9);
    ScrewMotion::new(centre, d.map(|x| x / len * speed), random_point(rng, spin))
}

/// The first sampled crossing of a sign function `f` at which `inside` holds at the crossing
/// (linearly interpolated) with a margin: the sample time just after it.
fn sampled_first(
    until: f64,
    steps: usize,
    f: impl Fn(f64) -> f64,
    inside: impl Fn(f64) -> bool,
) -> Option<f64> {
    let mut prev = f(0.0);
    for k in 1..=steps {
        let t = until * k as f64 / steps as f64;
        let v = f(t);
        if (prev <= 0.0) != (v <= 0.0) {
            let t0 = until * (k - 1) as f64 / steps as f64;
            let tc = t0 + (t - t0) * prev / (prev - v);
            if inside(tc) {
                return Some(t);
            }
        }
        prev = v;
    }
    None
}

#[test]
fn rotating_vertex_face_is_never_late_and_never_misses() {
    let mut rng = Pcg64::seed_from_u64(21);
    let opts = Default::default();
    let (mut found, mut clear, mut extra) = (0, 0, 0);
    for case in 0..400 {
        let tri = [
            random_point(&mut rng, 1.0),
            random_point(&mut rng, 1.0),
            random_point(&mut rng, 1.0),
        ];
        let tc = [0, 1, 2].map(|i| (tri[0][i] + tri[1][i] + tri[2][i]) / 3.0);
        let p = random_point(&mut rng, 2.5);
        let mt = motion(&mut rng, tc, p, 3.0);
        let mp = motion(&mut rng, sub(p, [0.1, 0.0, 0.0]), tc, 3.0);
        let until = 2.0;
        let at = |t: f64| {
            let [a, b, c] = tri.map(|x| mt.at(x, t));
            (mp.at(p, t), a, b, c)
        };
        let f = |t: f64| {
            let (p, a, b, c) = at(t);
            dot(cross(sub(b, a), sub(c, a)), sub(p, a))
        };
        let inside = |t: f64| {
            let (p, a, b, c) = at(t);
            let n = cross(sub(b, a), sub(c, a));
            let nn = dot(n, n);
            let e = [
                dot(cross(sub(b, a), sub(p, a)), n),
                dot(cross(sub(c, b), sub(p, b)), n),
                dot(cross(sub(a, c), sub(p, c)), n),
            ];
            e.iter().all(|&x| x > 1e-4 * nn)
        };
        let reference = sampled_first(until, 20_000, f, inside);
        let got = vertex_face(p, &mp, tri, &mt, until, &opts);
        // Bounded by a horizon: the same bits when the contact comes by then, else none.
        let horizon = rng.gen_range(0.0..until);
        let bounded = vertex_face_by(p, &mp, tri, &mt, until, horizon, &opts);
        assert_eq!(bounded, got.filter(|&t| t <= horizon), "case {case}");
        match (reference, got) {
            (Some(r), Some(t)) => {
                assert!(
                    t <= r,
                    "case {case}: reported {t} after the sampled contact {r}"
                );
                found += 1;
            }
            (Some(r), None) => panic!("case {case}: missed the contact at {r}"),
            (None, Some(_)) => extra += 1,
            (None, None) => clear += 1,
        }
    }
    println!("{found} contacts, {clear} clear, {extra} reported beyond the sampled ones");
    assert!(found > 40 && clear > 40, "{found} {clear}");
}

#[test]
fn rotating_edge_edge_is_never_late_and_never_misses() {
    let mut rng = Pcg64::seed_from_u64(22);
    let opts = Default::default();
    let (mut found, mut clear) = (0, 0);
    for case in 0..400 {
        let (a, b) = (random_point(&mut rng, 1.0), random_point(&mut rng, 1.0));
        let (c, d) = (random_point(&mut rng, 1.5), random_point(&mut rng, 1.5));
        let mid = |x: P, y: P| [0, 1, 2].map(|i| 0.5 * (x[i] + y[i]));
        let (m1c, m2c) = (mid(a, b), mid(c, d));
        // Aimed beside each other by up to 2: some pairs pass.
        let aim = |rng: &mut Pcg64, x: P| {
            let o = random_point(rng, 2.0);
            [0, 1, 2].map(|i| x[i] + o[i])
        };
        let (t1, t2) = (aim(&mut rng, m2c), aim(&mut rng, m1c));
        let m1 = motion(&mut rng, m1c, t1, 3.0);
        let m2 = motion(&mut rng, m2c, t2, 3.0);
        let until = 2.0;
        let at = |t: f64| (m1.at(a, t), m1.at(b, t), m2.at(c, t), m2.at(d, t));
        let f = |t: f64| {
            let (a, b, c, d) = at(t);
            dot(cross(sub(b, a), sub(d, c)), sub(c, a))
        };
        let inside = |t: f64| {
            let (a, b, c, d) = at(t);
            let n = cross(sub(b, a), sub(d, c));
            let nn = dot(n, n);
            let (ac, ab, cd) = (sub(c, a), sub(b, a), sub(d, c));
            let s = dot(cross(ac, cd), n) / nn;
            let u = dot(cross(ac, ab), n) / nn;
            nn > 1e-8 && (1e-4..1.0 - 1e-4).contains(&s) && (1e-4..1.0 - 1e-4).contains(&u)
        };
        let reference = sampled_first(until, 20_000, f, inside);
        let got = edge_edge([a, b], &m1, [c, d], &m2, until, &opts);
        let horizon = rng.gen_range(0.0..until);
        let bounded = edge_edge_by([a, b], &m1, [c, d], &m2, until, horizon, &opts);
        assert_eq!(bounded, got.filter(|&t| t <= horizon), "case {case}");
        match (reference, got) {
            (Some(r), Some(t)) => {
                assert!(
                    t <= r,
                    "case {case}: reported {t} after the sampled contact {r}"
                );
                found += 1;
            }
            (Some(r), None) => panic!("case {case}: missed the contact at {r}"),
            (None, _) => clear += 1,
        }
    }
    println!("{found} contacts, {clear} without a sampled one");
    assert!(found > 40 && clear > 40, "{found} {clear}");
}
