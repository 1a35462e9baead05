//! Convex decomposition of simple polygons against independent references: the shoelace
//! area, an even–odd point-in-polygon test, the Hertel–Mehlhorn piece bound, and typed errors
//! for polygons that are not simple.

use std::f64::consts::TAU;

use kairos_geometry::math::{DVec2, DVec3};
use kairos_geometry::shape::{decompose_polygon, ConvexPolygon, ShapeError};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn v(points: &[(f64, f64)]) -> Vec<DVec2> {
    points.iter().map(|&(x, y)| DVec2::new(x, y)).collect()
}

/// Twice the signed area (shoelace).
fn shoelace(p: &[DVec2]) -> f64 {
    (0..p.len())
        .map(|i| p[i].perp_dot(p[(i + 1) % p.len()]))
        .sum::<f64>()
        * 0.5
}

/// Even–odd ray casting along +x.
fn inside(p: DVec2, poly: &[DVec2]) -> bool {
    let mut odd = false;
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if x > p.x {
                odd = !odd;
            }
        }
    }
    odd
}

/// Distance from `p` to the boundary of `poly`.
fn boundary_distance(p: DVec2, poly: &[DVec2]) -> f64 {
    (0..poly.len())
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            (p - (a + (b - a) * t)).length()
        })
        .fold(f64::INFINITY, f64::min)
}

fn reflex_count(p: &[DVec2]) -> usize {
    let s = shoelace(p).signum();
    let n = p.len();
    (0..n)
        .filter(|&i| s * (p[i] - p[(i + n - 1) % n]).perp_dot(p[(i + 1) % n] - p[i]) < 0.0)
        .count()
}

/// Checks the pieces of `poly` and returns how many there are.
fn check(poly: &[DVec2], rng: &mut Pcg64) -> usize {
    let pieces = decompose_polygon(poly).unwrap_or_else(|e| panic!("{e}: {poly:?}"));
    let verts: Vec<&[DVec2]> = pieces.iter().map(ConvexPolygon::vertices).collect();
    // Strictly convex, counter-clockwise, vertices from the input.
    for p in &verts {
        let n = p.len();
        for i in 0..n {
            assert!((p[(i + 1) % n] - p[i]).perp_dot(p[(i + 2) % n] - p[(i + 1) % n]) > 0.0);
            assert!(poly.contains(&p[i]));
        }
    }
    // Areas add up.
    let want = shoelace(poly).abs();
    let got: f64 = verts.iter().map(|p| shoelace(p)).sum();
    assert!((got - want).abs() <= 1e-12 * want, "{got} {want}");
    // Hertel–Mehlhorn: at most 2r + 1 pieces, hence at most 4 × the optimum ⌈r/2⌉ + 1.
    let r = reflex_count(poly);
    assert!(
        pieces.len() <= 2 * r + 1,
        "{} pieces, {r} reflex",
        pieces.len()
    );
    if r == 0 {
        assert_eq!(pieces.len(), 1);
    }
    // Random points: inside the polygon in exactly one piece, outside in none.
    let lo = poly.iter().fold(DVec2::INFINITY, |a, &b| a.min(b));
    let hi = poly.iter().fold(DVec2::NEG_INFINITY, |a, &b| a.max(b));
    let margin = 1e-9 * (hi - lo).length();
    let mut tested = 0;
    for _ in 0..400 {
        let p = DVec2::new(rng.gen_range(lo.x..hi.x), rng.gen_range(lo.y..hi.y));
        if verts.iter().any(|q| boundary_distance(p, q) < margin)
            || boundary_distance(p, poly) < margin
        {
            continue;
        }
        tested += 1;
        let holders = verts.iter().filter(|q| inside(p, q)).count();
        assert_eq!(holders, usize::from(inside(p, poly)), "{p:?}");
    }
    assert!(tested > 300);
    pieces.len()
}

#[test]
fn an_l_gives_two_pieces_in_either_orientation() {
    let mut rng = Pcg64::seed_from_u64(1);
    let mut l = v(&[
        (0.0, 0.0),
        (2.0, 0.0),
        (2.0, 1.0),
        (1.0, 1.0),
        (1.0, 2.0),
        (0.0, 2.0),
    ]);
    assert_eq!(check(&l, &mut rng), 2);
    l.reverse();
    assert_eq!(check(&l, &mut rng), 2);
    // Straight vertices along the edges change nothing.
    let l = v(&[
        (0.0, 0.0),
        (1.0, 0.0),
        (2.0, 0.0),
        (2.0, 1.0),
        (1.5, 1.0),
        (1.0, 1.0),
        (1.0, 2.0),
        (0.0, 2.0),
        (0.0, 1.0),
    ]);
    assert_eq!(check(&l, &mut rng), 2);
}

#[test]
fn a_convex_polygon_is_one_piece_itself() {
    let mut rng = Pcg64::seed_from_u64(2);
    let hexagon: Vec<DVec2> = (0..6)
        .map(|i| DVec2::from_angle(i as f64 * TAU / 6.0) * 2.0 + DVec2::new(5.0, -3.0))
        .collect();
    assert_eq!(check(&hexagon, &mut rng), 1);
    let pieces = decompose_polygon(&hexagon).unwrap();
    assert_eq!(pieces[0].vertices(), &hexagon[..]);
    // Clockwise: the same hexagon, counter-clockwise, from vertex 0.
    let mut cw = hexagon.clone();
    cw.reverse();
    cw.rotate_right(1);
    let pieces = decompose_polygon(&cw).unwrap();
    assert_eq!(pieces[0].vertices(), &hexagon[..]);
}

/// A comb, counter-clockwise from the origin: a base of height 1 and `k` teeth of width 1
/// and height 3, gaps of width 1.
fn comb(k: usize) -> Vec<DVec2> {
    let w = (2 * k - 1) as f64;
    let mut p = vec![DVec2::ZERO, DVec2::new(w, 0.0)];
    for t in (0..k).rev() {
        let x = 2.0 * t as f64;
        p.push(DVec2::new(x + 1.0, 4.0));
        p.push(DVec2::new(x, 4.0));
        if t > 0 {
            p.push(DVec2::new(x, 1.0));
            p.push(DVec2::new(x - 1.0, 1.0));
        }
    }
    p
}

#[test]
fn a_comb_of_k_teeth_gives_at_most_4_k_plus_1_pieces() {
    let mut rng = Pcg64::seed_from_u64(3);
    for k in 1..12 {
        let c = comb(k);
        assert!(shoelace(&c) > 0.0);
        assert_eq!(shoelace(&c), (2 * k - 1) as f64 + 3.0 * k as f64);
        let pieces = check(&c, &mut rng);
        println!("comb of {k} teeth: {pieces} pieces");
        assert!(pieces <= 4 * (k + 1));
    }
}

/// A random star-shaped polygon about the origin: one vertex in each of `n` equal angular
/// sectors (so every gap is below π), at a random radius.
fn star(rng: &mut Pcg64, n: usize) -> Vec<DVec2> {
    (0..n)
        .map(|i| {
            let a = (i as f64 + rng.gen_range(0.0..0.9)) * TAU / n as f64;
            DVec2::from_angle(a) * rng.gen_range(0.2..2.0)
        })
        .collect()
}

/// True when the closed segments cross or touch (an independent test: parametric).
fn meet(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> bool {
    let (r, s) = (b - a, d - c);
    let den = r.perp_dot(s);
    if den == 0.0 {
        return false; // random points: parallel edges do not happen
    }
    let t = (c - a).perp_dot(s) / den;
    let u = (c - a).perp_dot(r) / den;
    (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u)
}

/// A random simple polygon: random points in random order, untangled by 2-opt moves (each
/// reverses the path between two crossing edges, which shortens the tour, so it ends).
fn untangled(rng: &mut Pcg64, n: usize) -> Vec<DVec2> {
    let mut p: Vec<DVec2> = (0..n)
        .map(|_| DVec2::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
        .collect();
    'outer: loop {
        for i in 0..n {
            for j in i + 2..n {
                if i == 0 && j == n - 1 {
                    continue;
                }
                if meet(p[i], p[i + 1], p[j], p[(j + 1) % n]) {
                    p[i + 1..=j].reverse();
                    continue 'outer;
                }
            }
        }
        return p;
    }
}

#[test]
fn random_star_shaped_polygons() {
    let mut rng = Pcg64::seed_from_u64(4);
    let mut total = (0, 0);
    for trial in 0..300 {
        let p = star(&mut rng, [5, 10, 30, 100][trial % 4]);
        total.0 += check(&p, &mut rng);
        total.1 += reflex_count(&p);
    }
    println!("{} pieces for {} reflex vertices", total.0, total.1);
}

#[test]
fn random_simple_polygons() {
    let mut rng = Pcg64::seed_from_u64(5);
    let mut total = (0, 0);
    for trial in 0..200 {
        let mut p = untangled(&mut rng, [4, 8, 20, 50][trial % 4]);
        if trial % 2 == 0 {
            p.reverse();
        }
        total.0 += check(&p, &mut rng);
        total.1 += reflex_count(&p);
    }
    println!("{} pieces for {} reflex vertices", total.0, total.1);
}

#[test]
fn a_large_polygon() {
    let mut rng = Pcg64::seed_from_u64(6);
    let p = star(&mut rng, 3000);
    let pieces = check(&p, &mut rng);
    println!(
        "{} vertices, {} reflex, {pieces} pieces",
        p.len(),
        reflex_count(&p)
    );
}

#[test]
fn polygons_that_are_not_simple_are_refused() {
    let bow = v(&[(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]);
    assert_eq!(
        decompose_polygon(&bow),
        Err(ShapeError::CrossingEdges {
            first: 0,
            second: 2
        })
    );
    assert_eq!(
        decompose_polygon(&bow).unwrap_err().to_string(),
        "edges 0 and 2 of the polygon cross"
    );
    // Two squares touching at a corner (a vertex visited twice).
    let touch = v(&[
        (0.0, 0.0),
        (1.0, 0.0),
        (1.0, 1.0),
        (2.0, 1.0),
        (2.0, 2.0),
        (1.0, 2.0),
        (1.0, 1.0),
        (0.0, 1.0),
    ]);
    assert!(matches!(
        decompose_polygon(&touch),
        Err(ShapeError::CrossingEdges { .. })
    ));
    // A vertex touching an edge.
    let t = v(&[(0.0, 0.0), (4.0, 0.0), (4.0, 2.0), (2.0, 0.0), (0.0, 2.0)]);
    assert!(matches!(
        decompose_polygon(&t),
        Err(ShapeError::CrossingEdges { .. })
    ));
    // A spike folding back along its edge.
    let spike = v(&[(0.0, 0.0), (2.0, 0.0), (1.0, 0.0), (1.0, 1.0)]);
    assert_eq!(
        decompose_polygon(&spike),
        Err(ShapeError::CrossingEdges {
            first: 0,
            second: 1
        })
    );
    // Collinear.
    let line = v(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]);
    assert!(matches!(
        decompose_polygon(&line),
        Err(ShapeError::CrossingEdges { .. } | ShapeError::ZeroArea)
    ));
    assert_eq!(
        decompose_polygon(&v(&[(0.0, 0.0), (1.0, 0.0)])),
        Err(ShapeError::TooFewVertices { count: 2 })
    );
    assert_eq!(
        decompose_polygon(&v(&[(0.0, 0.0), (1.0, 0.0), (1.0, f64::NAN)])),
        Err(ShapeError::NonFiniteVertex { index: 2 })
    );
    assert_eq!(
        decompose_polygon(&v(&[(0.0, 0.0), (1.0, 0.0), (1.0, 0.0), (0.0, 1.0)])),
        Err(ShapeError::CoincidentVertices {
            first: 1,
            second: 2
        })
    );
    assert_eq!(
        decompose_polygon(&[DVec3::ZERO, DVec3::X, DVec3::Y]),
        Err(ShapeError::WrongDimension {
            shape: "polygon decomposition",
            only: 2,
            dim: 3
        })
    );
}

#[test]
fn random_polygons_are_decomposed_exactly_when_simple() {
    let mut rng = Pcg64::seed_from_u64(7);
    let (mut simple, mut crossing) = (0, 0);
    for trial in 0..2000 {
        let n = 3 + trial % 6;
        let p: Vec<DVec2> = (0..n)
            .map(|_| DVec2::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)))
            .collect();
        // Independent: some two non-adjacent edges meet.
        let crosses = (0..n).any(|i| {
            (i + 2..n).any(|j| {
                !(i == 0 && j == n - 1) && meet(p[i], p[(i + 1) % n], p[j], p[(j + 1) % n])
            })
        });
        match decompose_polygon(&p) {
            Ok(_) => {
                assert!(!crosses, "{p:?}");
                check(&p, &mut rng);
                simple += 1;
            }
            Err(ShapeError::CrossingEdges { first, second }) => {
                assert!(crosses, "{p:?}");
                assert!(first < second && second < n);
                assert!(meet(
                    p[first],
                    p[(first + 1) % n],
                    p[second],
                    p[(second + 1) % n]
                ));
                crossing += 1;
            }
            Err(e) => panic!("{e}: {p:?}"),
        }
    }
    println!("{simple} simple, {crossing} crossing");
    assert!(simple > 500 && crossing > 500);
}
