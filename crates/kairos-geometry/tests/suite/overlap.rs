//! Every discrete broad phase returns exactly the brute-force set of overlapping pairs: on
//! random moving scenes over many calls (persistent finders must stay right), on random box
//! sets, and on adversarial cases.

use kairos_geometry::math::{Aabb, DVec2, DVec3, Vector};
use kairos_geometry::overlap::{
    empty_box, BruteForce, Bvh, Dbvt, DbvtOptions, Grid, GridOptions, OverlapFinder, OverlapKind,
    Sap, SortSweep,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Every finder by name, plus non-default option variants of the tunable ones.
fn finders<V: Vector>() -> Vec<(String, Box<dyn OverlapFinder<V>>)> {
    let mut v: Vec<(String, Box<dyn OverlapFinder<V>>)> = OverlapKind::ALL
        .iter()
        .map(|k| (k.name().to_string(), k.build::<V>()))
        .collect();
    // Default-constructed finders must work like the named ones.
    v.push(("sap(default)".into(), Box::new(Sap::<V>::default())));
    v.push(("grid(default)".into(), Box::new(Grid::<V>::default())));
    v.push(("bvh(default)".into(), Box::new(Bvh::<V>::default())));
    v.push((
        "sort-sweep(default)".into(),
        Box::new(SortSweep::<V>::default()),
    ));
    v.push((
        "dbvt(no margin, no prediction)".into(),
        Box::new(Dbvt::with_options(DbvtOptions {
            margin_relative: 0.0,
            margin_absolute: 0.0,
            displacement_factor: 0.0,
        })),
    ));
    v.push((
        "dbvt(wide margin)".into(),
        Box::new(Dbvt::with_options(DbvtOptions {
            margin_relative: 1.0,
            margin_absolute: 0.5,
            displacement_factor: 4.0,
        })),
    ));
    v.push((
        "grid(max_cells 1)".into(),
        Box::new(Grid::with_options(GridOptions {
            cell_factor: 0.5,
            max_cells: 1,
        })),
    ));
    v.push((
        "grid(coarse)".into(),
        Box::new(Grid::with_options(GridOptions {
            cell_factor: 7.0,
            max_cells: 1000,
        })),
    ));
    v
}

fn reference<V: Vector>(boxes: &[Aabb<V>]) -> Vec<[u32; 2]> {
    let mut out = Vec::new();
    BruteForce.find_pairs(boxes, &mut out);
    out
}

/// Calls every finder on `boxes` and compares with brute force; returns the pair count.
fn check_all<V: Vector>(
    fs: &mut [(String, Box<dyn OverlapFinder<V>>)],
    boxes: &[Aabb<V>],
    what: &str,
) -> usize {
    let expect = reference(boxes);
    // The reference itself: sorted, i < j, each once.
    assert!(expect.windows(2).all(|w| w[0] < w[1]));
    assert!(expect.iter().all(|p| p[0] < p[1]));
    // Stale contents of `out` must not leak into the answer.
    let mut out = vec![[7, 3]; 5];
    for (name, f) in fs.iter_mut() {
        f.find_pairs(boxes, &mut out);
        if out != expect {
            let missing: Vec<_> = expect.iter().filter(|p| !out.contains(p)).take(5).collect();
            let extra: Vec<_> = out.iter().filter(|p| !expect.contains(p)).take(5).collect();
            panic!(
                "{what}: {name} found {} pairs, brute force {} (missing e.g. {missing:?}, \
                 extra e.g. {extra:?}, n = {})",
                out.len(),
                expect.len(),
                boxes.len()
            );
        }
    }
    expect.len()
}

fn vec_from<V: Vector>(f: impl FnMut(usize) -> f64) -> V {
    let a: Vec<f64> = (0..V::DIM).map(f).collect();
    V::try_from_slice(&a).unwrap()
}

fn cube<V: Vector>(c: V, h: f64) -> Aabb<V> {
    Aabb::new(c - V::splat(h), c + V::splat(h))
}

/// Balls moving by free flight in a box `[0, side]^d`, bouncing off its faces.
struct Scene<V: Vector> {
    pos: Vec<V>,
    vel: Vec<V>,
    half: Vec<f64>,
    side: f64,
}

impl<V: Vector> Scene<V> {
    fn new(rng: &mut Pcg64, n: usize, side: f64, h: (f64, f64), speed: f64) -> Self {
        let mut s = Scene {
            pos: Vec::new(),
            vel: Vec::new(),
            half: Vec::new(),
            side,
        };
        for _ in 0..n {
            s.push(rng, h, speed);
        }
        s
    }

    fn push(&mut self, rng: &mut Pcg64, h: (f64, f64), speed: f64) {
        let side = self.side;
        self.pos.push(vec_from(|_| rng.gen_range(0.0..side)));
        self.vel.push(vec_from(|_| rng.gen_range(-speed..=speed)));
        self.half.push(if h.0 < h.1 {
            rng.gen_range(h.0..h.1)
        } else {
            h.0
        });
    }

    fn step(&mut self, dt: f64) {
        for (p, v) in self.pos.iter_mut().zip(self.vel.iter_mut()) {
            *p += *v * dt;
            let mut pa = p.to_array3();
            let mut va = v.to_array3();
            for a in 0..V::DIM {
                if pa[a] < 0.0 {
                    pa[a] = -pa[a];
                    va[a] = va[a].abs();
                } else if pa[a] > self.side {
                    pa[a] = 2.0 * self.side - pa[a];
                    va[a] = -va[a].abs();
                }
            }
            *p = V::try_from_slice(&pa[..V::DIM]).unwrap();
            *v = V::try_from_slice(&va[..V::DIM]).unwrap();
        }
    }

    fn boxes(&self) -> Vec<Aabb<V>> {
        self.pos
            .iter()
            .zip(&self.half)
            .map(|(&p, &h)| cube(p, h))
            .collect()
    }
}

/// Many steps of moving scenes of several densities and speeds; the item count changes and
/// items become empty and come back.
fn moving_scenes<V: Vector>() {
    let mut total = 0;
    // (n, side, half-extent range, speed per step)
    let configs = [
        (0usize, 10.0, (0.5, 1.0), 0.1),
        (1, 10.0, (0.5, 1.0), 0.1),
        (2, 3.0, (0.5, 1.0), 0.3),
        (40, 20.0, (0.5, 1.0), 0.05),
        (200, 30.0, (0.2, 1.5), 0.1),
        (300, 60.0, (0.5, 0.5), 0.02),
        (150, 8.0, (0.1, 2.0), 0.5),
        (400, 40.0, (0.0, 3.0), 1.0),
    ];
    for (c, &(n, side, h, speed)) in configs.iter().enumerate() {
        let mut rng = Pcg64::seed_from_u64(1000 + c as u64);
        let mut scene = Scene::<V>::new(&mut rng, n, side, h, speed);
        let mut fs = finders::<V>();
        for step in 0..40 {
            scene.step(1.0);
            let mut boxes = scene.boxes();
            // Some items absent this step (a different handful each time).
            for b in boxes.iter_mut() {
                if rng.gen_bool(0.03) {
                    *b = empty_box();
                }
            }
            // The length changes now and then: items leave from the end or enter.
            if step % 7 == 3 && !scene.pos.is_empty() {
                let keep = rng.gen_range(0..=scene.pos.len());
                scene.pos.truncate(keep);
                scene.vel.truncate(keep);
                scene.half.truncate(keep);
                boxes.truncate(keep);
            } else if step % 7 == 5 {
                for _ in 0..rng.gen_range(1..20) {
                    scene.push(&mut rng, h, speed);
                }
                boxes = scene.boxes();
            }
            total += check_all(&mut fs, &boxes, &format!("config {c}, step {step}"));
        }
    }
    assert!(total > 1000, "the scenes should overlap often ({total})");
}

#[test]
fn moving_scenes_2d() {
    moving_scenes::<DVec2>();
}

#[test]
fn moving_scenes_3d() {
    moving_scenes::<DVec3>();
}

/// Dense and sparse scenes where a random part of the boxes teleports every step.
fn teleports<V: Vector>() {
    let mut rng = Pcg64::seed_from_u64(77);
    let mut fs = finders::<V>();
    let mut scene = Scene::<V>::new(&mut rng, 500, 50.0, (0.3, 1.5), 0.05);
    for step in 0..30 {
        scene.step(1.0);
        let frac = [0.0, 0.01, 0.2, 1.0][step % 4];
        for p in scene.pos.iter_mut() {
            if rng.gen_bool(frac) {
                *p = vec_from(|_| rng.gen_range(0.0..50.0));
            }
        }
        // Once, everything far away, then back.
        let mut boxes = scene.boxes();
        if step == 10 {
            for b in boxes.iter_mut() {
                *b = Aabb::new(b.min + V::splat(1e6), b.max + V::splat(1e6));
            }
        }
        check_all(&mut fs, &boxes, &format!("teleports, step {step}"));
    }
}

#[test]
fn teleports_2d() {
    teleports::<DVec2>();
}

#[test]
fn teleports_3d() {
    teleports::<DVec3>();
}

/// Runs one sequence of box sets through fresh finders.
fn sequence<V: Vector>(frames: &[Vec<Aabb<V>>], what: &str) -> usize {
    let mut fs = finders::<V>();
    frames
        .iter()
        .enumerate()
        .map(|(k, b)| check_all(&mut fs, b, &format!("{what}, frame {k}")))
        .sum()
}

fn adversarial<V: Vector>() {
    let unit = |c: V| Aabb::new(c, c + V::splat(1.0));
    let lattice = |k: usize, step: f64| -> Vec<Aabb<V>> {
        // Unit boxes on a lattice of spacing `step`: step 1 makes every neighbour touch by a
        // face, an edge or a corner.
        let side = if V::DIM == 2 { k * k } else { k * k * k };
        (0..side)
            .map(|i| {
                unit(vec_from(|a| {
                    let d = [1, k, k * k][a];
                    ((i / d) % k) as f64 * step
                }))
            })
            .collect()
    };

    // All boxes identical: every pair.
    let same = vec![unit(V::splat(3.0)); 60];
    assert_eq!(
        sequence(&[same.clone(), same], "identical"),
        2 * 60 * 59 / 2
    );

    // Touching lattices: faces, edges and corners count.
    let touching = lattice(6, 1.0);
    let n = sequence(std::slice::from_ref(&touching), "touching lattice");
    // Per cell, neighbours within one step on every axis.
    let expect = if V::DIM == 2 {
        // horizontal + vertical + two diagonals, for a 6 x 6 lattice
        2 * 6 * 5 + 2 * 5 * 5
    } else {
        // 26-neighbourhood pairs of a 6^3 lattice: (3^3 - 1)/2 offsets
        3 * 36 * 5 + 6 * 6 * 25 + 4 * 125
    };
    assert_eq!(n, expect);
    // Apart by the smallest step: nothing.
    let apart = lattice(6, 1.0 + 1e-15 * 8.0);
    assert_eq!(sequence(&[apart], "almost touching"), 0);
    // Sliding from apart to touching to overlapping and back, persistent finders included.
    let frames: Vec<_> = [1.1, 1.0, 0.9, 1.0, 1.1, 1.0]
        .iter()
        .map(|&s| lattice(5, s))
        .collect();
    sequence(&frames, "sliding lattice");

    // Bodies aligned on one axis: same x for every box (degenerate in x), spread in y.
    for axis in 0..V::DIM {
        let aligned: Vec<_> = (0..300)
            .map(|i| {
                let y = i as f64 * 0.7;
                Aabb::<V>::new(
                    vec_from(|a| if a == axis { 5.0 } else { y }),
                    vec_from(|a| if a == axis { 5.0 } else { y + 1.0 }),
                )
            })
            .collect();
        assert_eq!(sequence(&[aligned], "aligned"), 299);
    }

    // A huge box overlapping everything, and one infinite in every direction.
    let mut rng = Pcg64::seed_from_u64(5);
    let mut small: Vec<_> = (0..200)
        .map(|_| cube(vec_from(|_| rng.gen_range(0.0..100.0)), 0.5))
        .collect();
    small.push(Aabb::new(V::splat(-1e12), V::splat(1e12)));
    let huge = small.clone();
    small.push(Aabb::new(
        V::splat(f64::NEG_INFINITY),
        V::splat(f64::INFINITY),
    ));
    small.push(Aabb::new(V::splat(f64::NEG_INFINITY), V::splat(-1e300)));
    small.push(Aabb::new(V::splat(f64::INFINITY), V::splat(f64::INFINITY)));
    small.push(Aabb::new(V::splat(f64::INFINITY), V::splat(f64::INFINITY)));
    sequence(&[huge, small.clone(), small], "huge");

    // Empty and NaN boxes overlap nothing, not even themselves or each other.
    let nan = Aabb::new(V::splat(f64::NAN), V::splat(1.0));
    let nan_max = Aabb::new(V::splat(0.0), V::splat(f64::NAN));
    let mut half_nan = unit(V::ZERO);
    half_nan.max = vec_from(|a| if a == 0 { f64::NAN } else { 1.0 });
    let inverted = Aabb::new(V::splat(1.0), V::splat(0.0));
    let mut flat_inverted = unit(V::ZERO);
    flat_inverted.min = vec_from(|a| if a == V::DIM - 1 { 1.5 } else { 0.0 });
    let mixed = vec![
        unit(V::ZERO),
        nan,
        empty_box(),
        unit(V::ZERO),
        nan_max,
        half_nan,
        inverted,
        flat_inverted,
        unit(V::splat(0.5)),
        empty_box(),
    ];
    assert_eq!(sequence(&[mixed.clone(), mixed], "empty and NaN"), 2 * 3);
    assert_eq!(sequence(&[vec![empty_box::<V>(); 10]], "all empty"), 0);

    // Zero boxes, one box, and back.
    let frames = vec![
        vec![],
        vec![unit(V::ZERO)],
        vec![],
        vec![unit(V::ZERO), unit(V::ZERO)],
        vec![unit(V::ZERO)],
    ];
    assert_eq!(sequence(&frames, "zero and one"), 1);

    // Large coordinates and tiny boxes, touching exactly at 1e9.
    let big = 1e9;
    let tiny = 1e-6;
    let mut far: Vec<_> = (0..200)
        .map(|i| {
            let c = vec_from(|a| big + ((i * (a + 3)) % 37) as f64 * 0.5 * tiny);
            Aabb::new(c, c + V::splat(tiny))
        })
        .collect();
    far.push(Aabb::new(V::splat(big - 1.0), V::splat(big)));
    far.push(Aabb::new(V::splat(-big), V::splat(-big + tiny)));
    far.push(Aabb::new(
        V::splat(-big + tiny),
        V::splat(-big + 2.0 * tiny),
    ));
    let n = sequence(&[far.clone(), far], "large coordinates");
    assert!(n > 200, "{n}");

    // Points (zero extent): equal points overlap.
    let points: Vec<_> = (0..300)
        .map(|i| {
            let c: V = vec_from(|a| ((i * (a + 1)) % 13) as f64);
            Aabb::new(c, c)
        })
        .collect();
    assert!(sequence(&[points.clone(), points], "points") > 0);

    // Every item toggling between empty and present, with the length going up and down.
    let mut rng = Pcg64::seed_from_u64(9);
    let mut frames = Vec::new();
    let mut len = 0usize;
    for k in 0..40 {
        len = match k % 5 {
            0 => len + 30,
            1 => len.saturating_sub(17),
            2 => len + 3,
            3 => len / 2,
            _ => len + 11,
        };
        frames.push(
            (0..len)
                .map(|i| {
                    if (i + k) % 3 == 0 {
                        empty_box::<V>()
                    } else {
                        cube(vec_from(|_| rng.gen_range(0.0..12.0)), 1.0)
                    }
                })
                .collect::<Vec<_>>(),
        );
    }
    assert!(sequence(&frames, "entering and leaving") > 100);
}

#[test]
fn adversarial_2d() {
    adversarial::<DVec2>();
}

#[test]
fn adversarial_3d() {
    adversarial::<DVec3>();
}

#[test]
fn names_round_trip() {
    let names: Vec<_> = OverlapKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(
        names,
        ["brute-force", "bvh", "sap", "sort-sweep", "dbvt", "grid"]
    );
    for k in OverlapKind::ALL {
        assert_eq!(k.name().parse::<OverlapKind>(), Ok(k));
        assert_eq!(k.build::<DVec2>().name(), k.name());
        assert_eq!(k.build::<DVec3>().name(), k.name());
    }
    assert!("sweep".parse::<OverlapKind>().is_err());
}

/// The dynamic tree stays a valid, balanced tree through insertions, moves and removals.
#[test]
fn dbvt_tree_stays_valid_and_balanced() {
    let mut rng = Pcg64::seed_from_u64(3);
    let mut scene = Scene::<DVec3>::new(&mut rng, 600, 40.0, (0.2, 1.0), 0.3);
    let mut tree = Dbvt::<DVec3>::new();
    let mut out = Vec::new();
    for step in 0..30 {
        scene.step(1.0);
        let mut boxes = scene.boxes();
        for b in boxes.iter_mut() {
            if rng.gen_bool(0.05) {
                *b = empty_box();
            }
        }
        if step % 5 == 4 {
            boxes.truncate(rng.gen_range(0..boxes.len()));
        }
        tree.find_pairs(&boxes, &mut out);
        assert_eq!(out, reference(&boxes));
        tree.validate().unwrap();
        let present = boxes.iter().filter(|b| b.min.all_le(b.max)).count();
        // AVL-balanced: height at most about 1.44 log2(n).
        let bound = 1.45 * (present.max(2) as f64).log2() + 2.0;
        assert!(
            (tree.height() as f64) <= bound,
            "height {} for {present} leaves",
            tree.height()
        );
    }
    // Slow motion: only a few items are re-inserted per call.
    let mut scene = Scene::<DVec3>::new(&mut rng, 1000, 60.0, (0.5, 1.0), 0.001);
    tree.find_pairs(&scene.boxes(), &mut out);
    scene.step(1.0);
    tree.find_pairs(&scene.boxes(), &mut out);
    assert!(tree.last_moved() < 50, "{} moved", tree.last_moved());
}

/// Sweep and prune updates incrementally when little moves, and rebuilds on teleports.
#[test]
fn sap_is_incremental_for_small_motion() {
    let mut rng = Pcg64::seed_from_u64(4);
    let mut scene = Scene::<DVec2>::new(&mut rng, 2000, 150.0, (0.5, 1.0), 0.01);
    let mut sap = Sap::<DVec2>::new();
    let mut out = Vec::new();
    sap.find_pairs(&scene.boxes(), &mut out);
    for _ in 0..5 {
        scene.step(1.0);
        let boxes = scene.boxes();
        sap.find_pairs(&boxes, &mut out);
        assert_eq!(out, reference(&boxes));
        assert!(!sap.last_rebuilt());
        assert!(sap.last_swaps() < 2000, "{} swaps", sap.last_swaps());
    }
    for p in scene.pos.iter_mut() {
        *p = DVec2::new(rng.gen_range(0.0..150.0), rng.gen_range(0.0..150.0));
    }
    let boxes = scene.boxes();
    sap.find_pairs(&boxes, &mut out);
    assert_eq!(out, reference(&boxes));
    assert!(sap.last_rebuilt());
}

fn arb_box<V: Vector>() -> impl Strategy<Value = Aabb<V>> {
    // Small integer coordinates make exact touching common; some boxes are empty or NaN.
    let c = proptest::collection::vec((-8i32..8, 0i32..5), V::DIM);
    (c, 0u8..20).prop_map(|(c, kind)| {
        let lo: Vec<f64> = c.iter().map(|&(x, _)| f64::from(x) * 0.5).collect();
        let hi: Vec<f64> = c
            .iter()
            .map(|&(x, e)| f64::from(x) * 0.5 + f64::from(e) * 0.5)
            .collect();
        let b = Aabb::new(
            V::try_from_slice(&lo).unwrap(),
            V::try_from_slice(&hi).unwrap(),
        );
        match kind {
            0 => empty_box(),
            1 => Aabb::new(b.max, b.min),
            2 => Aabb::new(b.min, V::splat(f64::NAN)),
            3 => Aabb::new(b.min - V::splat(100.0), b.max + V::splat(100.0)),
            _ => b,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Two unrelated box sets in a row: fresh finders, then the same finders teleported.
    #[test]
    fn random_box_sets_2d(
        a in proptest::collection::vec(arb_box::<DVec2>(), 0..80),
        b in proptest::collection::vec(arb_box::<DVec2>(), 0..80),
    ) {
        sequence(&[a.clone(), b, a], "proptest 2d");
    }

    #[test]
    fn random_box_sets_3d(
        a in proptest::collection::vec(arb_box::<DVec3>(), 0..80),
        b in proptest::collection::vec(arb_box::<DVec3>(), 0..80),
    ) {
        sequence(&[a.clone(), b, a], "proptest 3d");
    }
}
