//! The discrete-time stepper and its missed-collision counter, against hand-computed cases and
//! the event-driven simulator.

use kairos::discrete::{DiscreteOptions, DiscreteSim};
use kairos::generate::{billiard, gas, BilliardParams, GasParams};
use kairos::overlap::OverlapKind;
use kairos::prelude::*;
use kairos::wall::WallSegment;

fn ball(x: f64, y: f64, vx: f64, vy: f64, r: f64) -> Body<DVec2> {
    Body::new(DVec2::new(x, y), DVec2::new(vx, vy), r, 1.0)
}

fn vertical_wall(x: f64) -> Wall<DVec2> {
    Wall::Segment(WallSegment::new(DVec2::new(x, -1.0), DVec2::new(x, 1.0)).unwrap())
}

fn discrete(world: World<DVec2>, dt: f64, rewind: bool, end: f64) -> DiscreteSim<DVec2> {
    let opts = DiscreteOptions {
        dt,
        substeps: 1,
        toi_rewind: rewind,
        count_misses: true,
    };
    let mut sim = DiscreteSim::new(world, OverlapKind::BruteForce, opts, end).unwrap();
    sim.run(|_, _| {});
    sim
}

#[test]
fn a_bullet_tunnels_through_a_wall_in_discrete_time_only() {
    let world = World::builder(
        vec![ball(0.0, 0.0, 100.0, 0.0, 0.1)],
        vec![vertical_wall(1.0)],
    )
    .build()
    .unwrap();
    // Discrete: one step of 0.1 carries the ball from x = 0 to x = 10, through the wall.
    let sim = discrete(world.clone(), 0.1, false, 0.1);
    assert_eq!(
        sim.counts().total(),
        0,
        "the overlap test never sees the wall"
    );
    assert_eq!(sim.misses().body_wall, 1);
    assert_eq!(sim.misses().body_body, 0);
    assert!(sim.world().bodies()[0].pos.x > 9.9);
    // Event-driven: the contact at t = 0.9 / 100 is found and the ball bounces back.
    let mut ev = Simulation::new(
        world,
        BroadPhaseKind::AllPairs.build(&Default::default()),
        0.1,
    );
    let mut events = Vec::new();
    ev.run(|e, _, _| events.push(*e));
    assert_eq!(events.len(), 1);
    assert!((events[0].time - 0.009).abs() < 1e-15);
    assert!(ev.world().bodies()[0].pos.x < 1.0);
}

#[test]
fn an_overlap_at_the_end_of_the_step_is_seen_and_pushed_apart() {
    // Gap 0.5 at speed 1: contact at t = 0.5; the step ends at 0.6 with an overlap of 0.1.
    let world = World::builder(
        vec![ball(0.0, 0.0, 1.0, 0.0, 0.5), ball(1.5, 0.0, 0.0, 0.0, 0.5)],
        vec![],
    )
    .build()
    .unwrap();
    let sim = discrete(world.clone(), 0.6, false, 0.6);
    assert_eq!(sim.misses().total(), 0);
    assert_eq!(sim.counts().body_body, 1);
    let b = &sim.world().bodies();
    // Pushed apart by 0.05 each, then equal masses exchange velocities.
    assert!((b[0].pos.x - 0.55).abs() < 1e-12, "{:?}", b[0]);
    assert!((b[1].pos.x - 1.55).abs() < 1e-12, "{:?}", b[1]);
    assert!(b[0].vel.x.abs() < 1e-12 && (b[1].vel.x - 1.0).abs() < 1e-12);
    // With the rewind, the contact is resolved at t = 0.5 and B moves on to 1.6.
    let mut times = Vec::new();
    let opts = DiscreteOptions {
        dt: 0.6,
        substeps: 1,
        toi_rewind: true,
        count_misses: true,
    };
    let mut sim = DiscreteSim::new(world, OverlapKind::BruteForce, opts, 0.6).unwrap();
    sim.run(|e, _| times.push(e.time));
    assert_eq!(times.len(), 1);
    assert!((times[0] - 0.5).abs() < 1e-12, "{times:?}");
    let b = &sim.world().bodies();
    assert!((b[0].pos.x - 0.5).abs() < 1e-9 && (b[1].pos.x - 1.6).abs() < 1e-9);
}

#[test]
fn hand_computed_misses() {
    // A pair that passes right through each other within one step.
    let w = World::builder(
        vec![
            ball(0.0, 0.0, 10.0, 0.0, 0.5),
            ball(3.0, 0.0, 0.0, 0.0, 0.5),
        ],
        vec![],
    )
    .build()
    .unwrap();
    let s = discrete(w, 1.0, false, 1.0);
    assert_eq!((s.misses().body_body, s.counts().total()), (1, 0));

    // Overlapping at the end, but the centres have passed: seen, yet resolved the wrong way.
    let w = World::builder(
        vec![ball(0.0, 0.0, 2.6, 0.0, 0.5), ball(2.0, 0.0, 0.0, 0.0, 0.5)],
        vec![],
    )
    .build()
    .unwrap();
    let s = discrete(w, 1.0, false, 1.0);
    assert_eq!((s.misses().body_body, s.counts().body_body), (1, 1));

    // A graze within the step: contact at t = 0.782, apart again at the end.
    let w = World::builder(
        vec![ball(0.0, 0.0, 2.0, 0.0, 0.5), ball(2.0, 0.9, 0.0, 0.0, 0.5)],
        vec![],
    )
    .build()
    .unwrap();
    let s = discrete(w, 2.0, false, 2.0);
    assert_eq!((s.misses().body_body, s.counts().total()), (1, 0));
    // The same motion in small steps sees the contact: no miss.
    let w = World::builder(
        vec![ball(0.0, 0.0, 2.0, 0.0, 0.5), ball(2.0, 0.9, 0.0, 0.0, 0.5)],
        vec![],
    )
    .build()
    .unwrap();
    let s = discrete(w, 0.01, false, 2.0);
    assert_eq!(s.misses().total(), 0);
    assert_eq!(s.counts().body_body, 1);

    // A ball whose centre crosses a wall within the step: overlap seen from the far side.
    let w = World::builder(
        vec![ball(0.0, 0.0, 1.2, 0.0, 0.5)],
        vec![vertical_wall(1.0)],
    )
    .build()
    .unwrap();
    let s = discrete(w, 1.0, false, 1.0);
    assert_eq!((s.misses().body_wall, s.counts().body_wall), (1, 1));
    assert!(
        s.world().bodies()[0].pos.x > 1.0,
        "pushed out on the far side"
    );

    // Separating pairs and pairs that never meet: nothing.
    let w = World::builder(
        vec![
            ball(0.0, 0.0, -1.0, 0.0, 0.5),
            ball(2.0, 0.0, 1.0, 0.0, 0.5),
        ],
        vec![vertical_wall(10.0)],
    )
    .build()
    .unwrap();
    let s = discrete(w, 0.5, false, 3.0);
    assert_eq!((s.misses().total(), s.counts().total()), (0, 0));
}

fn thesis_scene(n: usize, duration: f64) -> Scene {
    billiard(&BilliardParams {
        n,
        seed: 3,
        duration,
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn misses_fall_with_the_step_and_energy_is_kept() {
    let scene = thesis_scene(128, 1.0);
    let mut ev = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    ev.run(|_, _, _| {});
    let events = ev.counts().total();
    let mut misses = Vec::new();
    for dt in [0.1, 0.01, 0.001] {
        let opts = DiscreteOptions {
            dt,
            ..Default::default()
        };
        let mut sim = DiscreteSim::new(
            scene.world::<DVec2>().unwrap(),
            OverlapKind::BruteForce,
            opts,
            1.0,
        )
        .unwrap();
        sim.run(|_, _| {});
        assert!(
            sim.energy_drift().abs() < 1e-12,
            "dt = {dt}: elastic pushes and impulses keep the energy, drift {}",
            sim.energy_drift()
        );
        assert!((sim.now() - 1.0).abs() < 1e-12);
        misses.push(sim.misses().total());
        if dt == 0.001 {
            let resolved = sim.counts().total() as f64;
            assert!(
                (resolved - events as f64).abs() < 0.2 * events as f64,
                "{resolved} contacts vs {events} events"
            );
        }
    }
    assert!(
        misses[0] > misses[1] && misses[1] > misses[2],
        "misses should fall with dt: {misses:?}"
    );
    assert!(misses[0] > 100, "{misses:?}");
}

#[test]
fn every_discrete_broad_phase_gives_the_same_run() {
    for (scene, what) in [
        (thesis_scene(200, 0.5), "billiard"),
        (
            gas(&GasParams {
                dim: 2,
                n: 150,
                packing: 0.4,
                duration: 0.5,
                ..Default::default()
            })
            .unwrap(),
            "periodic gas",
        ),
    ] {
        for rewind in [false, true] {
            let mut reference: Option<(Vec<Event>, u64)> = None;
            for kind in OverlapKind::ALL {
                let opts = DiscreteOptions {
                    dt: 0.005,
                    substeps: 2,
                    toi_rewind: rewind,
                    count_misses: true,
                };
                let mut sim =
                    DiscreteSim::new(scene.world::<DVec2>().unwrap(), kind, opts, scene.duration)
                        .unwrap();
                let mut log = Vec::new();
                sim.run(|e, _| log.push(*e));
                assert!(!log.is_empty());
                assert!(sim.energy_drift().abs() < 1e-12, "{what}, {kind}");
                assert!(
                    log.windows(2).all(|w| w[0].time <= w[1].time),
                    "{what}, {kind}: events out of time order"
                );
                let got = (log, sim.misses().total());
                match &reference {
                    None => reference = Some(got),
                    Some(r) => assert!(*r == got, "{what}, rewind {rewind}: {kind} differs"),
                }
            }
        }
    }
}

#[test]
fn periodic_and_3d_discrete_runs() {
    let scene = gas(&GasParams {
        dim: 3,
        n: 256,
        packing: 0.3,
        duration: 0.5,
        ..Default::default()
    })
    .unwrap();
    let opts = DiscreteOptions {
        dt: 0.002,
        ..Default::default()
    };
    let mut sim = DiscreteSim::new(
        scene.world::<DVec3>().unwrap(),
        OverlapKind::BruteForce,
        opts,
        0.5,
    )
    .unwrap();
    sim.run(|_, _| {});
    assert!(sim.counts().body_body > 100);
    assert!(sim.energy_drift().abs() < 1e-12);
    let l = scene.periodic.clone().unwrap();
    for b in sim.world().bodies() {
        for k in 0..3 {
            assert!(b.pos[k] >= 0.0 && b.pos[k] < l[k], "{b:?} outside the box");
        }
    }
    // A step that could jump a quarter of the box is refused.
    let opts = DiscreteOptions {
        dt: 10.0,
        ..Default::default()
    };
    let err = DiscreteSim::new(
        scene.world::<DVec3>().unwrap(),
        OverlapKind::BruteForce,
        opts,
        1.0,
    )
    .err()
    .unwrap();
    assert!(
        matches!(err, kairos::discrete::DiscreteError::StepTooLong { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("periodic box"), "{err}");
    // Bad options.
    for (dt, k) in [(0.0, 1), (f64::NAN, 1), (0.1, 0)] {
        let opts = DiscreteOptions {
            dt,
            substeps: k,
            ..Default::default()
        };
        assert!(DiscreteSim::new(
            scene.world::<DVec3>().unwrap(),
            OverlapKind::BruteForce,
            opts,
            1.0
        )
        .is_err());
    }
}

#[test]
fn discrete_runs_in_a_3d_room_agree_across_broad_phases() {
    let scene = billiard(&BilliardParams {
        dim: 3,
        n: 120,
        seed: 5,
        duration: 0.5,
        ..Default::default()
    })
    .unwrap();
    let mut reference: Option<(Vec<Event>, u64)> = None;
    for kind in OverlapKind::ALL {
        let opts = DiscreteOptions {
            dt: 0.02,
            ..Default::default()
        };
        let mut sim =
            DiscreteSim::new(scene.world::<DVec3>().unwrap(), kind, opts, scene.duration).unwrap();
        let mut log = Vec::new();
        sim.run(|e, _| log.push(*e));
        assert!(sim.counts().body_wall > 0 && sim.counts().body_body > 0);
        assert!(sim.energy_drift().abs() < 1e-12, "{kind}");
        let got = (log, sim.misses().total());
        match &reference {
            None => {
                assert!(got.1 > 0, "a step of 0.02 misses contacts here");
                reference = Some(got)
            }
            Some(r) => assert!(*r == got, "{kind} differs"),
        }
    }
}

/// A contact on a step boundary is counted once: the windows of the missed-collision counter
/// are half-open, so the contact at `t1` of one step (touching there, not overlapping, so
/// unseen) belongs to the next, which starts at it. Both steps counted it before.
#[test]
fn a_contact_on_a_step_boundary_is_counted_once() {
    // Exactly: a ball touches a wall at t = 0.25, the end of the first step of 0.25 (x = 0.5),
    // and is through it by the end of the next (x = 2.5).
    let w = World::builder(
        vec![ball(-1.5, 0.0, 8.0, 0.0, 0.5)],
        vec![vertical_wall(1.0)],
    )
    .build()
    .unwrap();
    let s = discrete(w, 0.25, false, 1.0);
    assert_eq!((s.misses().body_wall, s.counts().total()), (1, 0));
    // Two balls touching at t = 0.25, the end of the second step of 0.125; their centres meet
    // at the end of the third.
    let w = World::builder(
        vec![
            ball(-1.5, 0.0, 4.0, 0.0, 0.5),
            ball(1.5, 0.0, -4.0, 0.0, 0.5),
        ],
        vec![],
    )
    .build()
    .unwrap();
    let s = discrete(w, 0.125, false, 1.0);
    assert_eq!(s.misses().body_body, 1);
    // Within round-off: the contact at k * 0.1 (neither is exact in binary) of a ball crossing
    // a wall in one step, for many k: one contact, seen (the ball overlaps the wall by
    // round-off at the step's end) or missed once.
    for k in 1..200 {
        let speed = 30.0;
        let x0 = 0.5 - speed * (k as f64 * 0.1);
        let w = World::builder(
            vec![ball(x0, 0.0, speed, 0.0, 0.5)],
            vec![vertical_wall(1.0)],
        )
        .build()
        .unwrap();
        let end = (k + 3) as f64 * 0.1;
        let s = discrete(w, 0.1, false, end);
        let (missed, seen) = (s.misses().body_wall, s.counts().body_wall);
        assert!(
            missed + seen == 1,
            "contact at step {k}: {missed} missed, {seen} seen"
        );
    }
    // The last step's window is closed: a contact at the end time is counted.
    let w = World::builder(
        vec![ball(-1.5, 0.0, 8.0, 0.0, 0.5)],
        vec![vertical_wall(1.0)],
    )
    .build()
    .unwrap();
    let s = discrete(w, 0.25, false, 0.25);
    assert_eq!(s.misses().body_wall, 1);
}
