//! Dissipative collisions (restitution below 1) under the TC model: runs finish, the kinetic
//! energy only falls, nothing overlaps, and every broad phase agrees.

use crate::common;

use common::{assert_same_log, records};
use kairos::event::EventKind;
use kairos::generate::{billiard, gas, BilliardParams, GasParams};
use kairos::prelude::*;
use kairos::scene::BodySpec;

/// The billiard of the collapse reports: 300 balls at packing 0.45, 5 s.
fn table(dim: usize, restitution: f64) -> Scene {
    billiard(&BilliardParams {
        dim,
        n: 300,
        packing: 0.45,
        restitution,
        ..Default::default()
    })
    .unwrap()
}

/// Events of the elastic run of `scene` (calendar).
fn elastic_events<V: Vector>(scene: &Scene) -> u64 {
    let elastic = Scene {
        restitution: 1.0,
        ..scene.clone()
    };
    let mut sim = Simulation::new(
        elastic.world::<V>().unwrap(),
        BroadPhaseKind::Calendar.build::<V>(&BroadPhaseOptions::default()),
        elastic.duration,
    );
    sim.run(|_, _, _| {});
    sim.counts().total()
}

/// Runs `scene` to its end with at most `max_events` events, checking at every event that the
/// kinetic energy has not grown and that the event's bodies overlap no body and no wall beyond
/// round-off. Returns the number of events and the largest relative overlap seen.
fn run_checked<V: Vector>(scene: &Scene, max_events: u64) -> (u64, f64) {
    let mut sim = Simulation::new(
        scene.world::<V>().unwrap(),
        BroadPhaseKind::Calendar.build::<V>(&BroadPhaseOptions::default()),
        scene.duration,
    );
    let mut energy = sim.world().kinetic_energy();
    let mut events = 0u64;
    let mut max_overlap = 0.0f64;
    while let Some(e) = sim.step() {
        events += 1;
        assert!(
            events <= max_events,
            "restitution {}: more than {max_events} events by t = {}",
            scene.restitution,
            e.time
        );
        let w = sim.world();
        let now = w.kinetic_energy();
        assert!(
            now <= energy * (1.0 + 1e-12),
            "restitution {}: kinetic energy grew from {energy:e} to {now:e} at event {events} ({e:?})",
            scene.restitution
        );
        energy = now;
        let t = e.time - sim.origin();
        let involved: &[u32] = match e.kind {
            EventKind::BodyBody => &[e.a, e.b],
            EventKind::BodyWall | EventKind::BoxCrossing | EventKind::Resume | EventKind::State => {
                &[e.a]
            }
        };
        for &i in involved {
            let bi = &w.bodies()[i as usize];
            let pi = bi.position_at(t);
            for (j, bj) in w.bodies().iter().enumerate() {
                if j as u32 != i {
                    let sigma = bi.radius + bj.radius;
                    let d = (pi - bj.position_at(t)).length();
                    max_overlap = max_overlap.max((sigma - d) / sigma);
                }
            }
            for wall in w.walls() {
                max_overlap = max_overlap.max((bi.radius - wall.distance(pi)) / bi.radius);
            }
        }
    }
    assert!(
        max_overlap < 1e-12,
        "restitution {}: overlap {max_overlap:e}",
        scene.restitution
    );
    sim.finish();
    assert_eq!(sim.now(), scene.duration);
    (events, max_overlap)
}

fn finish_with_few_events<V: Vector>(dim: usize) {
    let elastic = elastic_events::<V>(&table(dim, 1.0));
    for restitution in [0.0, 0.3, 0.7] {
        let scene = table(dim, restitution);
        assert_eq!(
            scene.contact_duration,
            Some(scene.default_contact_duration())
        );
        let (events, overlap) = run_checked::<V>(&scene, 20 * elastic);
        println!(
            "{dim}D restitution {restitution}: {events} events (elastic {elastic}), largest \
             overlap {overlap:e}"
        );
    }
}

/// Restitution 0, 0.3 and 0.7 on the 2D billiard finish the 5 s with at most 20 times the
/// elastic run's events (inelastic collapse used to take tens of millions of events, or never
/// end).
#[test]
fn billiard_2d_finishes() {
    finish_with_few_events::<DVec2>(2);
}

/// The same in a 3D cube room.
#[test]
fn billiard_3d_finishes() {
    finish_with_few_events::<DVec3>(3);
}

/// Every broad phase gives the same event log on dissipative scenes: walls in 2D and 3D, and a
/// periodic gas long enough for several time origin moves (the last collision times move too).
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn every_broad_phase_agrees() {
    fn compare<V: Vector>(scene: &Scene, what: &str) -> usize {
        let opts = BroadPhaseOptions::default();
        let reference = records::<V>(scene, BroadPhaseKind::AllPairs, &opts);
        for kind in BroadPhaseKind::ALL {
            let log = records::<V>(scene, kind, &opts);
            assert_same_log(&reference, &log, &format!("{what}, {kind}"));
        }
        reference.len()
    }
    let mut total = 0;
    for (dim, restitution) in [(2, 0.0), (2, 0.5), (3, 0.0), (3, 0.5)] {
        let scene = billiard(&BilliardParams {
            dim,
            n: 60,
            packing: 0.4,
            seed: 11,
            restitution,
            ..Default::default()
        })
        .unwrap();
        let what = format!("{dim}D billiard, restitution {restitution}");
        total += match dim {
            2 => compare::<DVec2>(&scene, &what),
            _ => compare::<DVec3>(&scene, &what),
        };
    }
    for dim in [2, 3] {
        let scene = gas(&GasParams {
            dim,
            n: 64,
            packing: 0.3,
            seed: 3,
            duration: 150.0,
            restitution: 0.6,
            ..Default::default()
        })
        .unwrap();
        let what = format!("{dim}D periodic gas");
        total += match dim {
            2 => compare::<DVec2>(&scene, &what),
            _ => compare::<DVec3>(&scene, &what),
        };
    }
    println!("{total} events compared");
    assert!(total > 10_000, "only {total} events compared");
}

/// The TC rule itself, on a row of three equal balls: A hits B, which touches C. The first
/// collision dissipates (A keeps 1/4 of the speed, B takes 3/4); B then pushes C at the same
/// instant, less than `t_c` after its previous collision, so elastically (B stops, C takes 3/4);
/// and A, still approaching B, hits it at once, elastically too (A stops, B takes 1/4). Without
/// the model (`t_c = 0`) the second and third collisions dissipate.
#[test]
fn collisions_within_contact_duration_are_elastic() {
    let ball = |x: f64, v: f64| BodySpec {
        position: [x, 0.0, 0.0],
        velocity: [v, 0.0, 0.0],
        radius: 0.5,
        mass: 1.0,
    };
    let row = |tc: f64| Scene {
        dim: 2,
        duration: 2.0,
        restitution: 0.5,
        contact_duration: Some(tc),
        gravity: [0.0; 3],
        rest_speed: None,
        friction: 0.0,
        walls: Vec::new(),
        bodies: vec![ball(0.0, 1.0), ball(2.0, 0.0), ball(3.0, 0.0)],
        periodic: None,
        shapes: Vec::new(),
        meshes: Default::default(),
    };
    let final_velocities = |scene: &Scene| {
        scene.validate().unwrap();
        let mut sim = Simulation::new(
            scene.world::<DVec2>().unwrap(),
            BroadPhaseKind::AllPairs.build::<DVec2>(&BroadPhaseOptions::default()),
            scene.duration,
        );
        let mut events = Vec::new();
        sim.run(|e, _, _| events.push((e.time, e.a, e.b)));
        let v: Vec<f64> = sim.world().bodies().iter().map(|b| b.vel.x).collect();
        (events, v)
    };
    let (events, v) = final_velocities(&row(1e-3));
    assert_eq!(events, vec![(1.0, 0, 1), (1.0, 1, 2), (1.0, 0, 1)]);
    assert_eq!(v, vec![0.0, 0.25, 0.75]);
    // The last collision times are kept (local times), and only because restitution < 1.
    let mut world = row(1e-3).world::<DVec2>().unwrap();
    assert!(world.last_collision().is_empty());
    world.resolve(&Event {
        time: 1.0,
        kind: EventKind::BodyBody,
        a: 0,
        b: 1,
    });
    assert_eq!(world.last_collision(), vec![1.0, 1.0, f64::NEG_INFINITY]);
    let mut elastic = Scene {
        restitution: 1.0,
        ..row(1e-3)
    }
    .world::<DVec2>()
    .unwrap();
    elastic.resolve(&Event {
        time: 1.0,
        kind: EventKind::BodyBody,
        a: 0,
        b: 1,
    });
    assert!(elastic.last_collision().is_empty());

    // Plain inelastic hard spheres: every collision dissipates.
    let (_, v) = final_velocities(&row(0.0));
    assert!(v[0] > 0.0 && v[2] < 0.75, "{v:?}");
    let e0 = 0.5;
    let e1: f64 = v.iter().map(|x| 0.5 * x * x).sum();
    assert!(e1 < 0.5 * e0, "{v:?}");
}
