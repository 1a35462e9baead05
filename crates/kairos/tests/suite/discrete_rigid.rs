//! The discrete-time stepper on rigid bodies: a bullet that tunnels through a plank and is
//! counted as missed, small steps that miss nothing and keep the energy, no overlap left after
//! a step, the contact-time rewind, and runs that repeat bit for bit.

use kairos::discrete::{DiscreteOptions, DiscreteSim, SLOP};
use kairos::generate::{boxes, polygons, RigidGasParams};
use kairos::math::Vector;
use kairos::overlap::OverlapKind;
use kairos::prelude::*;
use kairos::query::{penetration, EpaOptions, EpaStatus};
use kairos::shape::SupportMap;
use kairos::wall::Wall as AnyWall;

/// A 2D room `[0, 40] x [0, 20]`, a thin plank (half extents 0.05 x 3) at rest at x = 20, and a
/// small box (half extent 0.1) at x = 5 fired at it at `speed`.
fn plank_and_bullet(speed: f64) -> Scene {
    Scene::from_toml_str(&format!(
        r#"
dim = 2
[simulation]
duration = 1.0
[[walls]]
box = {{ min = [0.0, 0.0], max = [40.0, 20.0] }}

[[bodies]]
shape = "box"
half_extents = [0.05, 3.0]
position = [20.0, 10.0]

[[bodies]]
shape = "box"
half_extents = [0.1, 0.1]
position = [5.0, 10.0]
orientation = 0.3
velocity = [{speed}, 0.0]
angular_velocity = 2.0
"#
    ))
    .unwrap()
}

fn opts(dt: f64, rewind: bool) -> DiscreteOptions {
    DiscreteOptions {
        dt,
        substeps: 1,
        toi_rewind: rewind,
        count_misses: true,
    }
}

fn run<V: Vector>(
    scene: &Scene,
    kind: OverlapKind,
    o: DiscreteOptions,
    end: f64,
) -> (DiscreteSim<V>, Vec<Event>) {
    let mut sim = DiscreteSim::new(scene.world::<V>().unwrap(), kind, o, end).unwrap();
    let mut log = Vec::new();
    sim.run(|e, _| log.push(*e));
    (sim, log)
}

#[test]
fn a_bullet_tunnels_through_a_plank_with_a_large_step_only() {
    let scene = plank_and_bullet(200.0);
    // One step of 0.1 carries the bullet from x = 5 to x = 25, through the plank.
    let (sim, log) = run::<DVec2>(&scene, OverlapKind::BruteForce, opts(0.1, false), 0.1);
    assert!(log.is_empty(), "{log:?}");
    assert_eq!(sim.misses().body_body, 1);
    assert_eq!(sim.misses().body_wall, 0);
    assert!(sim.world().bodies()[1].pos.x > 24.9);
    // The event-driven run finds the contact (at x = 20 - 0.05 - the bullet's reach) and the
    // bullet bounces back.
    let mut ev = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::AllPairs.build(&Default::default()),
        0.1,
    );
    let mut events = Vec::new();
    ev.run(|e, _, _| events.push(*e));
    assert_eq!(events[0].kind, EventKind::BodyBody);
    assert!(
        events[0].time > 0.07 && events[0].time < 0.075,
        "{events:?}"
    );
    assert!(ev.world().bodies()[1].vel.x < 0.0);
    // Steps short against the plank's thickness see the contact and miss nothing.
    let (sim, log) = run::<DVec2>(&scene, OverlapKind::BruteForce, opts(2e-4, false), 0.1);
    assert_eq!(sim.misses().total(), 0, "{:?}", sim.misses());
    assert_eq!(sim.counts().body_body, 1, "{log:?}");
    assert!(sim.world().bodies()[1].vel.x < 0.0, "the bullet bounced");
    assert!(sim.world().bodies()[0].vel.x > 0.0, "the plank was pushed");
    assert!(sim.energy_drift().abs() < 1e-12, "{}", sim.energy_drift());
}

#[test]
fn the_rewind_finds_the_contact_time() {
    let scene = plank_and_bullet(10.0);
    let mut ev = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::AllPairs.build(&Default::default()),
        2.0,
    );
    let mut exact = None;
    ev.run(|e, _, _| {
        if exact.is_none() {
            exact = Some(*e)
        }
    });
    let exact = exact.unwrap();
    assert_eq!(exact.kind, EventKind::BodyBody);
    let (sim, log) = run::<DVec2>(&scene, OverlapKind::BruteForce, opts(0.01, true), 2.0);
    assert_eq!(log[0].kind, EventKind::BodyBody);
    assert!(
        (log[0].time - exact.time).abs() < 1e-6,
        "rewound to {} against {}",
        log[0].time,
        exact.time
    );
    // Without the rewind, the contact is resolved at the end of its step.
    let (_, plain) = run::<DVec2>(&scene, OverlapKind::BruteForce, opts(0.01, false), 2.0);
    assert!(plain[0].time > exact.time && plain[0].time - exact.time <= 0.01 + 1e-12);
    assert!(sim.world().bodies().iter().all(|b| b.time == 2.0));
}

fn gas2(n: usize, seed: u64, duration: f64) -> Scene {
    polygons(&RigidGasParams {
        n,
        seed,
        duration,
        ..Default::default()
    })
    .unwrap()
}

fn gas3(n: usize, seed: u64, duration: f64) -> Scene {
    boxes(&RigidGasParams {
        n,
        seed,
        duration,
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn small_steps_on_a_slow_scene_miss_nothing_and_keep_the_energy() {
    for (scene, dim) in [(gas2(24, 1, 3.0), 2), (gas3(16, 2, 3.0), 3)] {
        let o = opts(1e-3, false);
        let (counts, misses, drift) = if dim == 2 {
            let (s, _) = run::<DVec2>(&scene, OverlapKind::Bvh, o, scene.duration);
            (s.counts(), s.misses(), s.energy_drift())
        } else {
            let (s, _) = run::<DVec3>(&scene, OverlapKind::Bvh, o, scene.duration);
            (s.counts(), s.misses(), s.energy_drift())
        };
        assert!(
            counts.body_body > 0 && counts.body_wall > 0,
            "{dim}D: {counts:?}"
        );
        assert_eq!(misses.total(), 0, "{dim}D: {misses:?}");
        assert!(drift.abs() < 1e-9, "{dim}D: energy drift {drift}");
    }
}

/// The deepest overlap of any two bodies, or of a body and a wall, relative to the pair's
/// size (the sum of the bounding radii, or the body's).
fn deepest_overlap<V: Vector>(w: &World<V>) -> f64 {
    let pose = |i: usize| {
        let (b, r) = (&w.bodies()[i], &w.rigid()[i]);
        (
            &w.shapes()[r.shape as usize],
            r.shape_pose(b.pos, r.rotation),
        )
    };
    let mut worst = 0.0f64;
    let n = w.bodies().len();
    for i in 0..n {
        let (si, pi) = pose(i);
        for j in i + 1..n {
            let d = (w.bodies()[i].pos - w.bodies()[j].pos).length();
            if d > w.bodies()[i].radius + w.bodies()[j].radius {
                continue;
            }
            let (sj, pj) = pose(j);
            let e = penetration(si, &pi, sj, &pj, &EpaOptions::default());
            if e.status != EpaStatus::Separated {
                worst = worst.max(e.depth / (w.bodies()[i].radius + w.bodies()[j].radius));
            }
        }
        // The room's walls are segments (2D) and quads (3D) whose normals point inside.
        for wall in w.walls() {
            let (normal, point) = match wall {
                AnyWall::Segment(s) => {
                    let t = s.b - s.a;
                    let mut n = V::from_array3([-t.comp(1), t.comp(0), 0.0]);
                    n = n * (1.0 / n.length());
                    (n, s.a)
                }
                AnyWall::Polygon(p) => (p.plane.normal, p.plane.point),
                AnyWall::Plane(p) => (p.normal, p.point),
                // The rooms of these tests hold no static shapes.
                AnyWall::Shape(_) => continue,
            };
            // The inside is the side of the room's centre: every body starts there.
            let inward = if normal.dot(w.bodies()[i].pos - point) >= 0.0 {
                normal
            } else {
                -normal
            };
            let low = si.support(&pi, -inward);
            let depth = -inward.dot(low - point);
            if depth > 0.0 && wall.distance(w.bodies()[i].pos) < w.bodies()[i].radius {
                worst = worst.max(depth / w.bodies()[i].radius);
            }
        }
    }
    worst
}

fn no_overlap_after_any_step<V: Vector>(scene: &Scene, dt: f64) -> u64 {
    let mut sim = DiscreteSim::new(
        scene.world::<V>().unwrap(),
        OverlapKind::Bvh,
        opts(dt, false),
        scene.duration,
    )
    .unwrap();
    let mut steps = 0;
    while sim.step(|_, _| {}) {
        steps += 1;
        let worst = deepest_overlap(sim.world());
        assert!(
            worst <= 2.0 * SLOP,
            "{}D, step {steps}: an overlap of {worst} of the pair's size is left",
            V::DIM
        );
    }
    sim.counts().total()
}

#[test]
fn no_overlap_is_left_after_a_step() {
    let scene = gas2(16, 7, 10.0);
    let c = no_overlap_after_any_step::<DVec2>(&scene, 0.01);
    assert!(c > 10, "2D: {c} contacts");
    let scene = gas3(12, 3, 10.0);
    let c = no_overlap_after_any_step::<DVec3>(&scene, 0.01);
    assert!(c > 10, "3D: {c} contacts");
}

#[test]
fn rigid_runs_repeat_and_agree_across_discrete_broad_phases() {
    // Fast bodies: a step carries them about half their size.
    let scene = polygons(&RigidGasParams {
        n: 40,
        seed: 5,
        speed: 25.0,
        spin: 25.0,
        duration: 0.5,
        ..Default::default()
    })
    .unwrap();
    for rewind in [false, true] {
        let mut reference: Option<(Vec<Event>, u64, u64)> = None;
        for kind in OverlapKind::ALL {
            let (sim, log) = run::<DVec2>(&scene, kind, opts(0.02, rewind), scene.duration);
            assert!(!log.is_empty());
            assert!(
                log.windows(2).all(|w| w[0].time <= w[1].time),
                "{kind}: events out of time order"
            );
            let got = (log, sim.misses().total(), sim.counts().total());
            match &reference {
                None => reference = Some(got),
                Some(r) => assert!(*r == got, "rewind {rewind}: {kind} differs"),
            }
        }
        // Large steps miss contacts, and the count repeats.
        let again = run::<DVec2>(&scene, OverlapKind::Bvh, opts(0.02, rewind), scene.duration);
        let r = reference.unwrap();
        assert!(r.1 > 0, "rewind {rewind}: steps of 0.02 miss contacts here");
        assert_eq!((again.1, again.0.misses().total()), (r.0, r.1));
    }
    let scene = gas3(30, 6, 1.0);
    let first = run::<DVec3>(&scene, OverlapKind::Sap, opts(0.05, false), 1.0);
    let second = run::<DVec3>(&scene, OverlapKind::Grid, opts(0.05, false), 1.0);
    assert_eq!(first.1, second.1);
    assert_eq!(first.0.misses(), second.0.misses());
    assert!(first.0.counts().total() > 0);
}

#[test]
fn rigid_bodies_in_a_periodic_box_are_refused() {
    // No world holds them, so neither engine sees one.
    let mut scene = gas2(4, 0, 1.0);
    scene.walls.clear();
    scene.periodic = Some(vec![100.0, 100.0]);
    let err = scene.world::<DVec2>().err().unwrap();
    assert!(err.to_string().contains("periodic"), "{err}");
}

#[test]
fn worlds_with_gravity_are_refused() {
    let mut scene = gas2(4, 0, 1.0);
    scene.gravity = [0.0, -10.0, 0.0];
    scene.rest_speed = Some(0.1);
    let world = scene.world::<DVec2>().unwrap();
    let err = DiscreteSim::new(world, OverlapKind::BruteForce, opts(0.01, false), 1.0)
        .err()
        .unwrap();
    assert!(err.to_string().contains("gravity"), "{err}");
}

/// A 2D box (half extent 0.5) at x = -1.5 moving at 8 towards a plane at x = 1 (its face
/// touches it at t = 0.25), or in 3D two cubes (half extent 0.5) at x = -2 and 2 moving at 6
/// towards each other (faces touching at t = 0.25); each passes through in a step of about 0.25.
fn head_on(dim: usize) -> Scene {
    let text = if dim == 2 {
        r#"
dim = 2
[simulation]
duration = 10.0
[[walls]]
plane = { point = [1.0, 0.0], normal = [-1.0, 0.0] }
[[bodies]]
shape = "box"
half_extents = [0.5, 0.5]
position = [-1.5, 0.0]
velocity = [8.0, 0.0]
"#
    } else {
        r#"
dim = 3
[simulation]
duration = 10.0
[[bodies]]
shape = "box"
half_extents = [0.5, 0.5, 0.5]
position = [-2.0, 0.0, 0.0]
velocity = [6.0, 0.0, 0.0]
[[bodies]]
shape = "box"
half_extents = [0.5, 0.5, 0.5]
position = [2.0, 0.0, 0.0]
velocity = [-6.0, 0.0, 0.0]
"#
    };
    Scene::from_toml_str(text).unwrap()
}

/// The misses counted by the end of each step of `dt` up to `end`, and the contacts resolved.
fn misses_by_step<V: Vector>(scene: &Scene, dt: f64, end: f64) -> (Vec<u64>, u64) {
    let world = scene.world::<V>().unwrap();
    let mut sim = DiscreteSim::new(world, OverlapKind::BruteForce, opts(dt, false), end).unwrap();
    let mut misses = Vec::new();
    while sim.step(|_, _| {}) {
        misses.push(sim.misses().total());
    }
    (misses, sim.counts().total())
}

/// `x` moved by `k` units in the last place.
fn ulps(x: f64, k: i64) -> f64 {
    f64::from_bits((x.to_bits() as i64 + k) as u64)
}

/// The half-open step windows of the missed-contact counter hold for rigid bodies: a contact
/// on a step boundary is counted once, by the step that starts there, and so is one reported
/// just before the boundary while the shapes are still apart there (a rigid contact is reported
/// once the pair is within its contact shell, before the shapes touch, and the next step's
/// prediction reports it again at once): both steps counted it before. A contact just after a
/// boundary is counted by the step after it, one well inside a step by that step, and one
/// that the step's end overlaps is seen, not missed.
#[test]
fn a_rigid_contact_on_a_step_boundary_is_counted_once() {
    for dim in [2, 3] {
        let scene = head_on(dim);
        let run = |dt: f64, end: f64| {
            if dim == 2 {
                misses_by_step::<DVec2>(&scene, dt, end)
            } else {
                misses_by_step::<DVec3>(&scene, dt, end)
            }
        };
        // The contact the prediction reports: the shapes within the contact shell, a few
        // nanoseconds before they touch.
        let tc = if dim == 2 {
            let w = scene.world::<DVec2>().unwrap();
            w.predict_wall_by(0, 0, f64::INFINITY).time
        } else {
            let w = scene.world::<DVec3>().unwrap();
            w.predict_pair_by(0, 1, f64::INFINITY).time
        };
        assert!(tc > 0.25 - 1e-7 && tc < 0.25, "{dim}D: {tc}");
        // The first step ends on the contact, within round-off of it, or after it while the
        // shapes are still apart: missed once, by the second step, where the body passes
        // through.
        for dt in [
            tc,
            ulps(tc, 1),
            ulps(tc, -1),
            ulps(tc, 40),
            tc + 1e-12,
            tc + 1e-9,
        ] {
            assert_eq!(
                run(dt, 3.0 * dt),
                (vec![0, 1, 1], 0),
                "{dim}D: step {dt} ({:e} after the contact)",
                dt - tc
            );
        }
        // Just after the boundary: the second step's.
        for dt in [tc - 1e-12, tc - 1e-9] {
            assert_eq!(run(dt, 3.0 * dt), (vec![0, 1, 1], 0), "{dim}D: step {dt}");
        }
        // Well inside the first step, which the body crosses: the first step's.
        assert_eq!(run(0.5, 1.0), (vec![1, 1], 0), "{dim}D");
        // Overlapping at the end of the first step: seen and resolved, not missed.
        let touch = 0.25 + 1e-9;
        assert_eq!(run(touch, 3.0 * touch), (vec![0, 0, 0], 1), "{dim}D");
        // The last step's window is closed: a contact at the end time is counted.
        assert_eq!(run(tc, tc), (vec![1], 0), "{dim}D");
    }
}
