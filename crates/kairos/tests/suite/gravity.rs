//! Uniform gravity: parabolic flight with exact contact times, bit-identical logs across broad
//! phases, energy conserved by elastic runs, no overlap and no missed contact against dense
//! sampling, and dissipative drops that end with every body asleep in bounded events.

use crate::common;

use common::{assert_same_log, min_gap, records};
use kairos::generate::{drop, DropParams};
use kairos::math::{DVec2, DVec3, Vector};
use kairos::prelude::*;
use kairos::query::{distance, GjkOptions};
use kairos::shape::SupportMap;

/// Runs `scene` on every broad phase and checks that their event logs (each event's bodies'
/// states after it, rotations and sleep included) are bit-identical; returns the events.
fn same_logs_everywhere<V: Vector>(scene: &Scene, what: &str) -> usize {
    let reference = records::<V>(scene, BroadPhaseKind::AllPairs, &Default::default());
    for kind in BroadPhaseKind::ALL {
        let other = records::<V>(scene, kind, &Default::default());
        assert_same_log(&reference, &other, &format!("{what}, {kind}"));
    }
    reference.len()
}

/// A dropped scene with only balls and no `shape`: a world of balls (not rigid).
fn plain_balls(p: &DropParams) -> Scene {
    let mut scene = drop(&DropParams { boxes: 0, ..*p }).unwrap();
    scene.shapes.clear();
    scene.validate().unwrap();
    scene
}

#[test]
fn a_dropped_ball_bounces_at_the_analytic_times() {
    // A ball of radius 1 at height 21 over the floor y = 0, g = 10, elastic: it falls 20 in
    // t = 2 and bounces every 4.
    let text = r#"
        dim = 2
        [simulation]
        duration = 19.0
        gravity = [0.0, -10.0]
        [[walls]]
        plane = { point = [0.0, 0.0], normal = [0.0, 1.0] }
        [[bodies]]
        position = [3.0, 21.0]
        velocity = [0.5, 0.0]
        radius = 1.0
    "#;
    let scene = Scene::from_toml_str(text).unwrap();
    let world = scene.world::<DVec2>().unwrap();
    assert!(!world.rigid().is_empty() || world.gravity() == DVec2::new(0.0, -10.0));
    let mut sim = Simulation::new(
        world,
        BroadPhaseKind::Calendar.build(&Default::default()),
        19.0,
    );
    let mut times = Vec::new();
    sim.run(|e, w, _| {
        times.push(e.time);
        // At each bounce the ball leaves upwards at the speed it fell with.
        let v = w.bodies()[0].vel;
        assert!((v.y - 20.0).abs() < 1e-12, "{v}");
        assert!((v.x - 0.5).abs() < 1e-15);
    });
    assert_eq!(times.len(), 5);
    for (k, t) in times.iter().enumerate() {
        let exact = 2.0 + 4.0 * k as f64;
        assert!((t - exact).abs() < 1e-12 * exact, "bounce {k} at {t}");
    }
    assert!(sim.energy_drift().abs() < 1e-14, "{}", sim.energy_drift());
    // At the end it is back where a parabola from the last bounce puts it.
    let b = sim.world().bodies()[0];
    assert!(
        (b.pos.y - (1.0 + 20.0 * 1.0 - 5.0)).abs() < 1e-11,
        "{}",
        b.pos
    );
}

#[test]
fn a_ball_thrown_past_a_segment_end_meets_its_cap_at_the_quartic_root() {
    // A ball thrown up and sideways, falling past the left end of a horizontal segment: the
    // cap contact is the first root of a quartic; compare with fine sampling of the path.
    let seg = Wall::Segment(
        kairos::wall::WallSegment::new(DVec2::new(2.0, 5.0), DVec2::new(8.0, 5.0)).unwrap(),
    );
    let body = Body::new(DVec2::new(0.0, 8.0), DVec2::new(1.6, 2.0), 0.5, 1.0);
    let g = DVec2::new(0.0, -10.0);
    let toi =
        kairos::ball_toi::ball_wall_accel(&body, g, &seg).expect("a segment has a closed form");
    assert!(toi.is_hit());
    let at = |t: f64| body.pos + body.vel * t + g * (0.5 * t * t);
    let gap = |t: f64| (at(t) - DVec2::new(2.0, 5.0)).length() - 0.5;
    // The reference: the first sample at which the ball touches the segment.
    let n = 2_000_000;
    let first = (0..n)
        .map(|k| 3.0 * k as f64 / n as f64)
        .find(|&t| {
            let p = at(t);
            let s = (p.x - 2.0).clamp(0.0, 6.0);
            (p - DVec2::new(2.0 + s, 5.0)).length() <= 0.5
        })
        .unwrap();
    assert!(
        toi.time <= first && toi.time > first - 3.0 / n as f64,
        "{} vs {first}",
        toi.time
    );
    assert!(
        gap(toi.time) >= 0.0 && gap(toi.time) < 1e-12,
        "{}",
        gap(toi.time)
    );
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn every_broad_phase_gives_the_same_log_under_gravity() {
    let p = DropParams {
        balls: 24,
        boxes: 0,
        duration: 2.5,
        seed: 3,
        ..Default::default()
    };
    let n = same_logs_everywhere::<DVec2>(&plain_balls(&p), "2D balls");
    assert!(n > 300, "{n}");
    let p3 = DropParams { dim: 3, ..p };
    let n = same_logs_everywhere::<DVec3>(&plain_balls(&p3), "3D balls");
    assert!(n > 300, "{n}");
    let p = DropParams {
        balls: 12,
        boxes: 12,
        duration: 3.0,
        seed: 4,
        ..Default::default()
    };
    let n = same_logs_everywhere::<DVec2>(&drop(&p).unwrap(), "2D rigid");
    assert!(n > 60, "{n}");
    let p3 = DropParams {
        dim: 3,
        balls: 6,
        boxes: 6,
        duration: 2.5,
        ..p
    };
    let n = same_logs_everywhere::<DVec3>(&drop(&p3).unwrap(), "3D rigid");
    assert!(n > 30, "{n}");
}

/// Runs `world` with dense sampling between events; returns the events, the least gap seen and
/// the energy drift.
fn run_sampled<V: Vector>(world: World<V>, duration: f64, samples: usize) -> (usize, f64, f64) {
    let mut sim = Simulation::new(
        world,
        BroadPhaseKind::Calendar.build(&Default::default()),
        duration,
    );
    let mut last = 0.0;
    let mut events = 0;
    let mut worst = f64::INFINITY;
    loop {
        let before = sim.world().clone();
        let Some(e) = sim.step() else { break };
        events += 1;
        for k in 1..=samples {
            let t = last + (e.time - last) * k as f64 / (samples + 1) as f64;
            worst = worst.min(min_gap(&before, t - sim.origin()));
        }
        last = e.time;
    }
    (events, worst, sim.energy_drift())
}

#[test]
fn elastic_runs_under_gravity_conserve_energy_and_never_overlap() {
    // No resting: every bounce is elastic, the bodies keep bouncing.
    let elastic = |mut s: Scene| {
        s.rest_speed = Some(0.0);
        s.world::<DVec2>().unwrap()
    };
    let p = DropParams {
        balls: 10,
        boxes: 10,
        restitution: 1.0,
        duration: 3.0,
        seed: 8,
        ..Default::default()
    };
    let (events, gap, drift) = run_sampled(elastic(drop(&p).unwrap()), p.duration, 4);
    assert!(events > 150, "{events}");
    assert!(gap >= 0.0, "overlap {gap}");
    assert!(
        drift.abs() < 1e-11,
        "energy drift {drift} over {events} events"
    );
    let p3 = DropParams {
        dim: 3,
        balls: 5,
        boxes: 5,
        duration: 4.0,
        ..p
    };
    let mut s3 = drop(&p3).unwrap();
    s3.rest_speed = Some(0.0);
    let w3 = s3.world::<DVec3>().unwrap();
    let (events, gap, drift) = run_sampled(w3, p3.duration, 4);
    assert!(events > 40, "{events}");
    assert!(gap >= 0.0, "overlap {gap}");
    assert!(
        drift.abs() < 1e-11,
        "energy drift {drift} over {events} events"
    );
    // A longer run of balls only.
    let p = DropParams {
        balls: 60,
        boxes: 0,
        restitution: 1.0,
        duration: 40.0,
        ..Default::default()
    };
    let mut s = plain_balls(&p);
    s.rest_speed = Some(0.0);
    let w = s.world::<DVec2>().unwrap();
    let mut sim = Simulation::new(
        w,
        BroadPhaseKind::Calendar.build(&Default::default()),
        p.duration,
    );
    let mut events = 0;
    sim.run(|_, _, _| events += 1);
    assert!(events > 10_000, "{events}");
    assert!(
        sim.energy_drift().abs() < 1e-11,
        "{} over {events}",
        sim.energy_drift()
    );
}

/// A drop run to its end: every body asleep, at rest, inside the room and apart from the
/// others, after a bounded number of events.
fn drop_ends_at_rest<V: Vector>(p: &DropParams, max_events: usize) -> usize {
    let scene = drop(p).unwrap();
    let world = scene.world::<V>().unwrap();
    let mut sim = Simulation::new(
        world,
        BroadPhaseKind::Calendar.build(&Default::default()),
        p.duration,
    );
    let mut events = 0;
    while sim.step().is_some() {
        events += 1;
        assert!(
            events <= max_events,
            "still running after {events} events at {}",
            sim.now()
        );
    }
    sim.finish();
    let w = sim.world();
    assert!(w.asleep().iter().all(|&s| s), "not every body sleeps");
    for (i, b) in w.bodies().iter().enumerate() {
        assert_eq!(b.vel, V::ZERO, "body {i} moves");
        assert!(w.rigid()[i].spin_bound() == 0.0, "body {i} spins");
    }
    let gap = min_gap(w, w.bodies()[0].time);
    assert!(gap >= -1e-9, "overlap {gap}");
    // Resting: every body lies on the floor, or on other bodies (a pile), within its contact
    // shell.
    let floor = w.walls().iter().find_map(|wall| match wall {
        Wall::Plane(pl) if pl.normal.dot(w.gravity()) < 0.0 => Some(*pl),
        _ => None,
    });
    let floor = floor.unwrap();
    let pose = |i: usize| {
        let r = &w.rigid()[i];
        r.shape_pose(w.bodies()[i].pos, r.rotation)
    };
    let shape = |i: usize| &w.shapes()[w.rigid()[i].shape as usize];
    let mut on_floor = 0;
    for i in 0..w.bodies().len() {
        let tol = 1e-6 * w.bodies()[i].radius;
        let low = SupportMap::support(shape(i), &pose(i), -floor.normal);
        let h = floor.signed_distance(low);
        assert!(h >= -1e-9, "body {i} below the floor by {h}");
        if h < tol {
            on_floor += 1;
            continue;
        }
        let held = (0..w.bodies().len()).any(|j| {
            j != i
                && distance(
                    shape(i),
                    &pose(i),
                    shape(j),
                    &pose(j),
                    &GjkOptions::default(),
                    None,
                )
                .distance
                    < tol + 1e-6 * w.bodies()[j].radius
        });
        assert!(held, "body {i} rests on nothing, {h} above the floor");
    }
    assert!(on_floor > 0);
    events
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn a_hundred_balls_and_a_hundred_boxes_dropped_come_to_rest_2d() {
    let p = DropParams {
        balls: 100,
        boxes: 100,
        restitution: 0.5,
        duration: 30.0,
        ..Default::default()
    };
    let events = drop_ends_at_rest::<DVec2>(&p, 400_000);
    assert!(events > 10_000, "{events}");
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn dropped_balls_and_boxes_come_to_rest_3d() {
    let p = DropParams {
        dim: 3,
        balls: 27,
        boxes: 27,
        restitution: 0.5,
        duration: 30.0,
        seed: 2,
        ..Default::default()
    };
    drop_ends_at_rest::<DVec3>(&p, 400_000);
}

#[test]
fn a_gentle_touch_leaves_a_sleeper_asleep_and_a_hard_hit_wakes_it() {
    let text = |height: f64| {
        format!(
            r#"
        dim = 2
        [simulation]
        duration = 2.0
        gravity = [0.0, -10.0]
        restitution = 0.5
        rest_speed = 0.1
        [[walls]]
        plane = {{ point = [0.0, 0.0], normal = [0.0, 1.0] }}
        [[bodies]]
        position = [0.0, 1.0]
        velocity = [0.0, 0.0]
        radius = 1.0
        [[bodies]]
        position = [0.0, {}]
        velocity = [0.0, 0.0]
        radius = 1.0
        "#,
            3.0 + height
        )
    };
    // Body 0 rests on the floor (its fall of zero height puts it to sleep at once); body 1 is
    // dropped on it from 2e-4 (landing at 0.063, below the rest speed) or from 1 (at 4.5).
    for (height, wakes) in [(2e-4, false), (1.0, true)] {
        let scene = Scene::from_toml_str(&text(height)).unwrap();
        let mut sim = Simulation::new(
            scene.world::<DVec2>().unwrap(),
            BroadPhaseKind::AllPairs.build(&Default::default()),
            2.0,
        );
        let mut woke = false;
        sim.run(|e, w, _| {
            if e.kind == EventKind::BodyBody && w.bodies()[0].vel != DVec2::ZERO {
                woke = true;
            }
        });
        assert_eq!(woke, wakes, "height {height}");
        let w = sim.world();
        assert!(
            w.asleep().iter().all(|&s| s),
            "height {height}: {:?}",
            w.asleep()
        );
        assert!(w.bodies()[0].pos.y >= 1.0 - 1e-12);
        assert!((w.bodies()[1].pos - w.bodies()[0].pos).length() >= 2.0 - 1e-12);
    }
}
