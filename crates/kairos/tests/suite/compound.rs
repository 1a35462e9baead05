//! Compound bodies: a concave polygon made of convex pieces, predicted, responded to and
//! drawn as one rigid body.

use crate::common;

use common::{assert_same_log, min_gap, records};
use kairos::generate::{self, RigidGasParams};
use kairos::prelude::*;
use kairos::shape::{decompose_polygon, union_outline, Shape};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// A star polygon of `spikes` spikes (radius `outer`, notches at `inner`) as TOML.
fn star(rng: &mut Pcg64, outer: f64) -> String {
    let spikes: usize = rng.gen_range(3..6);
    let inner = outer * rng.gen_range(0.3..0.55);
    let points: Vec<String> = (0..2 * spikes)
        .map(|i| {
            let a = std::f64::consts::PI * (i as f64 + rng.gen_range(-0.2..0.2)) / spikes as f64;
            let r = if i % 2 == 0 { outer } else { inner };
            format!("[{:?}, {:?}]", r * a.cos(), r * a.sin())
        })
        .collect();
    format!("shape = \"polygon\"\nvertices = [{}]", points.join(", "))
}

/// The L of the unit squares (0,0), (1,0) and (0,1), written clockwise.
const L_SHAPE: &str = "vertices = [[0.0, 0.0], [0.0, 2.0], [1.0, 2.0], [1.0, 1.0], [2.0, 1.0], \
                       [2.0, 0.0]]";

#[test]
fn a_concave_polygon_is_a_compound_body_with_the_mass_of_its_outline() {
    let scene = Scene::from_toml_str(&format!(
        "dim = 2\n[simulation]\nduration = 1.0\n[[bodies]]\nshape = \"polygon\"\n{L_SHAPE}\n\
         position = [5.0, 5.0]\ndensity = 2.0\n"
    ))
    .unwrap();
    let w = scene.world::<DVec2>().unwrap();
    let r = &w.rigid()[0];
    assert_eq!(r.pieces, 2, "an L is two convex pieces");
    assert!(w.is_compound(0) && w.is_rigid_shape(0));
    // Independent reference: the two rectangles [0,2]x[0,1] and [0,1]x[1,2], density 2.
    let rects = [
        (2.0, 1.0, DVec2::new(1.0, 0.5)),
        (1.0, 1.0, DVec2::new(0.5, 1.5)),
    ];
    let mass: f64 = rects.iter().map(|(a, b, _)| 2.0 * a * b).sum();
    let com = rects
        .iter()
        .fold(DVec2::ZERO, |c, (a, b, p)| c + *p * (2.0 * a * b))
        / mass;
    let inertia: f64 = rects
        .iter()
        .map(|(a, b, p)| {
            let m = 2.0 * a * b;
            m * (a * a + b * b) / 12.0 + m * (*p - com).length_squared()
        })
        .sum();
    assert!((w.bodies()[0].mass() - mass).abs() < 1e-12 * mass);
    assert!(
        (-r.offset - com).length() < 1e-12,
        "centre of mass {:?}",
        -r.offset
    );
    assert!((r.inertia - inertia).abs() < 1e-12 * inertia);
    // The body's centre of mass is placed by `position` (the outline's origin) plus the centre.
    assert!((w.bodies()[0].pos - (DVec2::new(5.0, 5.0) + com)).length() < 1e-12);
    // The bounding radius: the farthest corner from the centre of mass.
    let far = [(0.0, 0.0), (0.0, 2.0), (2.0, 0.0), (1.0, 1.0)]
        .map(|(x, y)| (DVec2::new(x, y) - com).length())
        .into_iter()
        .fold(0.0, f64::max);
    assert!((r.radius - far).abs() < 1e-12);
}

#[test]
fn the_outline_of_the_pieces_is_the_polygon() {
    let l = [
        (0.0, 0.0),
        (2.0, 0.0),
        (2.0, 1.0),
        (1.0, 1.0),
        (1.0, 2.0),
        (0.0, 2.0),
    ]
    .map(|(x, y)| DVec2::new(x, y));
    let pieces = decompose_polygon(&l).unwrap();
    assert_eq!(union_outline(&pieces).unwrap(), l.to_vec());
    let mut rng = Pcg64::seed_from_u64(5);
    for _ in 0..50 {
        let n = 2 * rng.gen_range(3..8);
        let ring: Vec<DVec2> = (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * (i as f64 + rng.gen_range(-0.3..0.3)) / n as f64;
                let r = if i % 2 == 0 {
                    1.0
                } else {
                    rng.gen_range(0.2..0.9)
                };
                DVec2::new(r * a.cos(), r * a.sin())
            })
            .collect();
        let pieces = decompose_polygon(&ring).unwrap();
        let outline = union_outline(&pieces).unwrap();
        // The same ring (straight corners aside, which a star has none of), from its lowest
        // vertex.
        assert_eq!(outline.len(), ring.len());
        let start = ring.iter().position(|&p| p == outline[0]).unwrap();
        for (k, p) in outline.iter().enumerate() {
            assert_eq!(*p, ring[(start + k) % n]);
        }
    }
}

#[test]
fn scenes_check_compound_bodies_by_their_pieces() {
    let u = "shape = \"polygon\"\nvertices = [[-2.0, -1.0], [2.0, -1.0], [2.0, 2.0], \
             [1.0, 2.0], [1.0, 0.0], [-1.0, 0.0], [-1.0, 2.0], [-2.0, 2.0]]\n";
    let cup = |ball: &str| {
        format!(
            "dim = 2\n[simulation]\nduration = 1.0\n[[bodies]]\n{u}position = [0.0, 0.0]\n\
             [[bodies]]\n{ball}"
        )
    };
    // A ball in the notch of a U lies inside its hull but apart from it: accepted.
    Scene::from_toml_str(&cup(
        "position = [0.0, 1.0]\nvelocity = [0.0, 0.0]\nradius = 0.5\n",
    ))
    .unwrap();
    // Touching a piece is an overlap, named with its body.
    let err = Scene::from_toml_str(&cup(
        "position = [0.0, 0.2]\nvelocity = [0.0, 0.0]\nradius = 0.5\n",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("body 0") && err.contains("overlaps body 1"),
        "{err}"
    );
    // A polygon whose edges cross is refused, naming them.
    let bow = "dim = 2\n[simulation]\nduration = 1.0\n[[bodies]]\nshape = \"polygon\"\n\
               vertices = [[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]\nposition = [0.0, 0.0]\n";
    let err = Scene::from_toml_str(bow).unwrap_err().to_string();
    assert!(
        err.contains("body 0") && err.contains("edges 0 and 2"),
        "{err}"
    );
    // A static shape must be convex.
    let wall = format!(
        "dim = 2\n[simulation]\nduration = 1.0\n[[walls]]\n{u}position = [0.0, 0.0]\n\
         [[bodies]]\nposition = [5.0, 5.0]\nvelocity = [0.0, 0.0]\nradius = 0.5\n"
    );
    let err = Scene::from_toml_str(&wall).unwrap_err().to_string();
    assert!(err.contains("static shape must be convex"), "{err}");
}

/// A ball dropped straight into the notch of a U meets the notch's floor, not the U's hull:
/// at the analytic time, never after it and within the contact shell before it.
#[test]
fn a_ball_falls_into_the_notch_of_a_u() {
    let scene = Scene::from_toml_str(
        "dim = 2\n[simulation]\nduration = 10.0\n[[bodies]]\nshape = \"polygon\"\n\
         vertices = [[-2.0, -1.0], [2.0, -1.0], [2.0, 2.0], [1.0, 2.0], [1.0, 0.0], \
         [-1.0, 0.0], [-1.0, 2.0], [-2.0, 2.0]]\nposition = [0.0, 0.0]\nmass = 1e6\n\
         [[bodies]]\nposition = [0.0, 5.0]\nvelocity = [0.0, -2.0]\nradius = 0.5\n",
    )
    .unwrap();
    let w = scene.world::<DVec2>().unwrap();
    let toi = w.predict_pair(0, 1);
    assert!(toi.is_hit());
    // The ball's bottom at 4.5 meets the notch's floor at 0: 2.25 time units. The hull's top
    // (at 2) would be met at 1.25.
    let exact = 2.25;
    let shell = kairos::rigid::SHELL * (w.rigid()[0].radius + 0.5) / 2.0;
    assert!(
        toi.time <= exact && toi.time >= exact - 2.0 * shell,
        "{}",
        toi.time
    );
    // The run: the ball bounces back up out of the notch.
    let mut sim = Simulation::new(
        w,
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let e = sim.step().unwrap();
    assert!((e.time - toi.time).abs() == 0.0);
    assert!(
        sim.world().bodies()[1].vel.y > 1.99,
        "{:?}",
        sim.world().bodies()[1].vel
    );
}

/// Random pairs of a spinning star and a convex body (box, polygon, ball, capsule): the
/// prediction is never after the first overlap that dense sampling finds, never misses one,
/// and leaves the pair apart within the contact shell at the reported time.
#[test]
fn compound_predictions_are_never_late_and_never_miss() {
    let mut rng = Pcg64::seed_from_u64(11);
    let (mut hits, mut misses) = (0, 0);
    for case in 0..120 {
        let a = star(&mut rng, 1.0);
        let b = match case % 4 {
            0 => "shape = \"box\"\nhalf_extents = [0.6, 0.2]".to_string(),
            1 => star(&mut rng, 0.8),
            2 => "radius = 0.4".to_string(),
            _ => "shape = \"capsule\"\nhalf_height = 0.5\nradius = 0.2".to_string(),
        };
        let angle: f64 = rng.gen_range(0.0..std::f64::consts::TAU);
        let d = rng.gen_range(2.5..4.0);
        let aim = rng.gen_range(-0.8..0.8);
        let speed = rng.gen_range(0.5..3.0);
        let (s, c) = angle.sin_cos();
        let toml = format!(
            "dim = 2\n[simulation]\nduration = 10.0\n[[bodies]]\n{a}\nposition = [0.0, 0.0]\n\
             angular_velocity = {:?}\n[[bodies]]\n{b}\nposition = [{:?}, {:?}]\n\
             velocity = [{:?}, {:?}]\n{}",
            rng.gen_range(-4.0..4.0),
            d * c,
            d * s,
            -speed * c - aim * s,
            -speed * s + aim * c,
            if b.starts_with("radius") {
                String::new()
            } else {
                format!("angular_velocity = {:?}\n", rng.gen_range(-4.0..4.0))
            }
        );
        let scene = Scene::from_toml_str(&toml).unwrap();
        let w = scene.world::<DVec2>().unwrap();
        let toi = w.predict_pair(0, 1);
        let horizon = 4.0;
        let steps = 8000;
        let first_overlap = (1..=steps)
            .map(|k| horizon * k as f64 / steps as f64)
            .find(|&t| min_gap(&w, t) < 0.0);
        let size = w.bodies()[0].radius + w.bodies()[1].radius;
        match first_overlap {
            Some(t) => {
                assert!(toi.is_hit(), "case {case}: missed the overlap at {t}");
                assert!(
                    toi.time <= t,
                    "case {case}: {} after the overlap at {t}",
                    toi.time
                );
                hits += 1;
            }
            None => misses += 1,
        }
        if toi.is_hit() && toi.time <= horizon {
            let gap = min_gap(&w, toi.time);
            assert!(
                gap >= 0.0,
                "case {case}: overlap {gap} at the reported contact"
            );
            assert!(
                gap <= 1e-5 * size,
                "case {case}: gap {gap} at the reported contact"
            );
        }
    }
    println!("{hits} contacts, {misses} pairs that do not meet");
    assert!(hits > 40 && misses > 5, "{hits} contacts, {misses} misses");
}

fn concave_gas(n: usize, seed: u64, concave: f64) -> Scene {
    generate::polygons(&RigidGasParams {
        n,
        seed,
        packing: 0.35,
        speed: 2.0,
        spin: 3.0,
        duration: 30.0,
        restitution: 1.0,
        concave,
    })
    .unwrap()
}

#[test]
fn every_broad_phase_gives_the_same_log_with_compound_bodies() {
    let scene = concave_gas(30, 3, 0.5);
    let w = scene.world::<DVec2>().unwrap();
    assert!((0..30).filter(|&i| w.is_compound(i)).count() > 8);
    let reference = records::<DVec2>(&scene, BroadPhaseKind::AllPairs, &Default::default());
    assert!(reference.len() > 200, "{} events", reference.len());
    for kind in BroadPhaseKind::ALL {
        let log = records::<DVec2>(&scene, kind, &Default::default());
        assert_same_log(&reference, &log, &format!("{kind:?}"));
    }
}

/// Elastic gases of stars: energy conserved to round-off, every collision conserves the
/// pair's momentum and angular momentum, and dense sampling between events finds no overlap.
#[test]
fn compound_gases_conserve_and_never_overlap() {
    for (seed, concave) in [(1, 1.0), (2, 0.5)] {
        let scene = concave_gas(25, seed, concave);
        let w = scene.world::<DVec2>().unwrap();
        let e0 = w.kinetic_energy();
        let mut sim = Simulation::new(
            w,
            BroadPhaseKind::Calendar.build(&Default::default()),
            scene.duration,
        );
        let (mut last, mut events, mut worst_gap, mut worst_dl) = (0.0, 0, f64::INFINITY, 0.0f64);
        loop {
            let before = sim.world().clone();
            let Some(e) = sim.step() else { break };
            events += 1;
            for k in 1..=6 {
                let t = last + (e.time - last) * k as f64 / 7.0;
                worst_gap = worst_gap.min(min_gap(&before, t - sim.origin()));
            }
            if e.kind == EventKind::BodyBody {
                let after = sim.world();
                let (a, b) = (e.a as usize, e.b as usize);
                let l = |w: &World<DVec2>, i: usize| {
                    w.rigid()[i].angular_momentum()
                        + w.bodies()[i].mass() * w.bodies()[i].pos.perp_dot(w.bodies()[i].vel)
                };
                let p = |w: &World<DVec2>| {
                    w.bodies()[a].vel * w.bodies()[a].mass()
                        + w.bodies()[b].vel * w.bodies()[b].mass()
                };
                let (l0, l1) = (l(&before, a) + l(&before, b), l(after, a) + l(after, b));
                worst_dl = worst_dl.max((l1 - l0).abs() / l0.abs().max(1.0));
                let (p0, p1) = (p(&before), p(after));
                assert!((p1 - p0).length() <= 1e-12 * p0.length().max(1.0), "{e:?}");
            }
            last = e.time;
        }
        let drift = (sim.world().kinetic_energy() - e0) / e0;
        println!(
            "seed {seed}: {events} events, energy drift {drift:.2e}, least gap {worst_gap:.2e}, \
             pair angular momentum {worst_dl:.2e}"
        );
        assert!(events > 300, "{events} events");
        assert!(drift.abs() < 1e-11, "energy drift {drift}");
        assert!(worst_dl < 1e-12, "angular momentum {worst_dl}");
        assert!(worst_gap >= 0.0, "overlap {worst_gap}");
    }
}

/// Stars dropped on a floor with restitution 0.5 come to rest, every one asleep, apart.
#[test]
fn dropped_stars_come_to_rest() {
    let mut rng = Pcg64::seed_from_u64(4);
    let mut toml = String::from(
        "dim = 2\n[simulation]\nduration = 200.0\nrestitution = 0.5\ngravity = [0.0, -10.0]\n\
         [[walls]]\nplane = { point = [0.0, 0.0], normal = [0.0, 1.0] }\n\
         [[walls]]\nplane = { point = [0.0, 0.0], normal = [1.0, 0.0] }\n\
         [[walls]]\nplane = { point = [12.5, 0.0], normal = [-1.0, 0.0] }\n",
    );
    for k in 0..20 {
        let (x, y) = (1.25 + 2.5 * (k % 5) as f64, 5.0 + 2.5 * (k / 5) as f64);
        toml.push_str(&format!(
            "[[bodies]]\n{}\nposition = [{x:?}, {y:?}]\nvelocity = [{:?}, 0.0]\n\
             orientation = {:?}\n",
            star(&mut rng, 1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(0.0..6.0)
        ));
    }
    let scene = Scene::from_toml_str(&toml).unwrap();
    let mut sim = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let mut events = 0;
    while sim.step().is_some() {
        events += 1;
        assert!(events <= 400_000, "still running at {}", sim.now());
    }
    sim.finish();
    let w = sim.world();
    println!("{events} events");
    assert!(w.asleep().iter().all(|&s| s), "not every star sleeps");
    let gap = min_gap(w, w.bodies()[0].time);
    assert!(gap >= -1e-9, "overlap {gap}");
}

/// The discrete stepper steps compound bodies too: it pushes overlapping pieces apart and
/// counts the contacts it misses.
#[test]
fn the_discrete_stepper_steps_compound_bodies() {
    use kairos::discrete::{DiscreteOptions, DiscreteSim};
    let scene = concave_gas(20, 5, 1.0);
    let mut sim = DiscreteSim::new(
        scene.world::<DVec2>().unwrap(),
        kairos::overlap::OverlapKind::Sap,
        DiscreteOptions {
            dt: 0.05,
            count_misses: true,
            ..Default::default()
        },
        scene.duration,
    )
    .unwrap();
    let mut events = 0;
    sim.run(|_, _| events += 1);
    assert!(events > 20, "{events}");
    let w = sim.world();
    let shapes = |i: usize| {
        let r = &w.rigid()[i];
        &w.shapes()[r.shape as usize..(r.shape + r.pieces) as usize]
    };
    assert!(shapes(0).len() > 1 && matches!(shapes(0)[0], Shape::ConvexPolygon(_)));
}
