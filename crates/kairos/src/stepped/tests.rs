use super::*;
use crate::generate::{pyramid, stack, StackParams};
use crate::math::{DVec2, DVec3};
use crate::overlap::OverlapKind;

/// Runs `scene`'s world for `seconds` and returns the largest displacement of any body from
/// where it started.
fn largest_move<V: Vector>(scene: &crate::scene::Scene, seconds: f64, options: StepOptions) -> f64 {
    let world = scene.world::<V>().unwrap();
    let mut sim = SteppedSim::new(world, options).unwrap();
    let start: Vec<V> = sim.bodies().iter().map(|b| b.position).collect();
    let steps = (seconds / options.dt).round() as usize;
    let mut worst: f64 = 0.0;
    for _ in 0..steps {
        sim.step();
        for (b, s) in sim.bodies().iter().zip(&start) {
            let d = (b.position - *s).length();
            assert!(d.is_finite(), "a body left the finite numbers");
            worst = worst.max(d);
        }
    }
    assert!(worst.is_finite());
    worst
}

/// How far the farthest body of `sim` is from where it was (`start`).
fn farthest<V: Vector>(sim: &SteppedSim<V>, start: &[V]) -> f64 {
    sim.bodies()
        .iter()
        .zip(start)
        .map(|(b, s)| (b.position - *s).length())
        .fold(0.0, f64::max)
}

/// A 2D tower of ten boxes stands for 10 s at dt = 1/60 with 4 sub-steps: no box moves by
/// 1% of its size. Without warm starting the same tower sways and falls.
#[test]
fn a_tower_of_ten_boxes_stands_for_ten_seconds_thanks_to_warm_starting() {
    let scene = stack(&StackParams::default(), 10).unwrap();
    let worst = largest_move::<DVec2>(&scene, 10.0, StepOptions::default());
    assert!(worst < 0.01, "a box moved by {worst}");
    let cold = StepOptions {
        warm_start: false,
        ..Default::default()
    };
    let worst = largest_move::<DVec2>(&scene, 10.0, cold);
    assert!(
        worst > 0.1,
        "without warm starting a box moved by only {worst}"
    );
}

/// A 2D tower of 30 boxes stands for 30 s with sleeping off, at dt = 1/60 and 1/30: its top
/// box moves sideways by less than 1% of its size (measured: not at all). Solved point by
/// point instead of in blocks, it fell at both (its top box ended 58 boxes aside at 1/60).
#[test]
fn a_tower_of_thirty_boxes_stands_awake_for_thirty_seconds() {
    let scene = stack(&StackParams::default(), 30).unwrap();
    for dt in [1.0 / 60.0, 1.0 / 30.0] {
        let options = StepOptions {
            dt,
            sleep: false,
            ..Default::default()
        };
        let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
        let start: Vec<DVec2> = sim.bodies().iter().map(|b| b.position).collect();
        for _ in 0..(30.0 / dt).round() as usize {
            sim.step();
        }
        let sideways = sim
            .bodies()
            .iter()
            .zip(&start)
            .map(|(b, s)| (b.position.x - s.x).abs())
            .fold(0.0, f64::max);
        assert!(
            sideways < 0.01,
            "dt {dt}: a box moved sideways by {sideways}"
        );
    }
}

#[test]
fn a_pyramid_of_base_twenty_stands_for_ten_seconds() {
    let scene = pyramid(&StackParams::default(), 20).unwrap();
    let worst = largest_move::<DVec2>(&scene, 10.0, StepOptions::default());
    assert!(worst < 0.01, "a box moved by {worst}");
}

/// The 3D pyramid of base 20 (2,870 boxes, 20 layers) stands for 10 s at the defaults (it
/// sleeps once it has settled; measured: a box moves by 0.65% of its size). About 30 s in the
/// test profile.
#[test]
fn a_3d_pyramid_of_base_twenty_stands_for_ten_seconds() {
    let p = StackParams {
        dim: 3,
        ..Default::default()
    };
    let scene = pyramid(&p, 20).unwrap();
    let worst = largest_move::<DVec3>(&scene, 10.0, StepOptions::default());
    assert!(worst < 0.01, "a box moved by {worst}");
}

#[test]
fn warm_starting_hits_the_cache_on_a_resting_stack() {
    let scene = stack(&StackParams::default(), 5).unwrap();
    let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), StepOptions::default()).unwrap();
    for _ in 0..60 {
        sim.step();
    }
    let s = sim.stats();
    assert!(s.contacts > 0);
    // Every point of a resting stack persists: all but the first sub-step's are hits.
    assert!(s.warm_hits as f64 > 0.95 * s.contacts as f64, "{s:?}");
}

#[test]
fn runs_repeat_bit_for_bit_and_agree_across_finders() {
    let scene = pyramid(&StackParams::default(), 6).unwrap();
    let run = |finder| {
        let options = StepOptions {
            finder,
            ..Default::default()
        };
        let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
        for _ in 0..120 {
            sim.step();
        }
        sim.bodies()
            .iter()
            .map(|b| (b.position.x.to_bits(), b.position.y.to_bits()))
            .collect::<Vec<_>>()
    };
    let reference = run(OverlapKind::Sap);
    assert_eq!(reference, run(OverlapKind::Sap));
    for kind in OverlapKind::ALL {
        assert_eq!(reference, run(kind), "{kind:?}");
    }
}

#[test]
fn bad_options_and_worlds_are_refused() {
    let scene = stack(&StackParams::default(), 2).unwrap();
    let world = || scene.world::<DVec2>().unwrap();
    for options in [
        StepOptions {
            dt: 0.0,
            ..Default::default()
        },
        StepOptions {
            substeps: 0,
            ..Default::default()
        },
        StepOptions {
            iterations: 0,
            ..Default::default()
        },
    ] {
        assert!(matches!(
            SteppedSim::new(world(), options),
            Err(StepError::Option { .. })
        ));
    }
    let balls = crate::world::World::builder(
        vec![crate::body::Body::new(DVec2::ZERO, DVec2::ZERO, 1.0, 1.0)],
        Vec::new(),
    )
    .build()
    .unwrap();
    assert_eq!(
        SteppedSim::new(balls, StepOptions::default()).err(),
        Some(StepError::Balls)
    );
}

/// A 3D tower of ten boxes stands for 10 s (each box rests face on face on an equal one: the
/// case [`CLIP_SLACK`] is for).
#[test]
fn a_3d_tower_of_ten_boxes_stands_for_ten_seconds() {
    let p = StackParams {
        dim: 3,
        ..Default::default()
    };
    let scene = stack(&p, 10).unwrap();
    let worst = largest_move::<DVec3>(&scene, 10.0, StepOptions::default());
    assert!(worst < 0.01, "a box moved by {worst}");
}

/// A scene of one body (`body`, TOML keys) resting on a floor under gravity `g` tilted by
/// `theta` from the floor's normal: a slope of angle `theta`, the downhill direction `+x`.
fn on_slope(dim: usize, body: &str, theta: f64, friction: f64) -> crate::scene::Scene {
    let g = 10.0;
    let (gx, gn) = (g * theta.sin(), -g * theta.cos());
    let (gravity, normal) = if dim == 2 {
        (format!("[{gx:?}, {gn:?}]"), "[0.0, 1.0]")
    } else {
        (format!("[{gx:?}, 0.0, {gn:?}]"), "[0.0, 0.0, 1.0]")
    };
    let origin = if dim == 2 {
        "[0.0, 0.0]"
    } else {
        "[0.0, 0.0, 0.0]"
    };
    let text = format!(
        "dim = {dim}\n[simulation]\nduration = 10.0\nrestitution = 0.0\ngravity = {gravity}\n\
         friction = {friction:?}\n[[walls]]\nplane = {{ point = {origin}, normal = {normal} }}\n\
         [[bodies]]\n{body}\n"
    );
    crate::scene::Scene::from_toml_str(&text).unwrap()
}

/// Runs `scene` for `seconds` and returns body 0's velocity and angular velocity (as an
/// array) at the end.
fn run_one<V: Vector>(scene: &crate::scene::Scene, seconds: f64) -> (V, [f64; 3]) {
    let mut sim = SteppedSim::new(scene.world::<V>().unwrap(), StepOptions::default()).unwrap();
    for _ in 0..(seconds / sim.options.dt).round() as usize {
        sim.step();
    }
    let b = &sim.bodies()[0];
    (b.velocity, V::angular_to_array3(b.angular_velocity))
}

/// A box on a slope stays when `mu > tan(theta)`, and slides with acceleration
/// `g (sin(theta) - mu cos(theta))` otherwise, within 1%, in 2D and 3D.
#[test]
fn a_box_on_a_slope_stays_or_slides_at_the_coulomb_rate() {
    let theta = 0.5_f64.atan(); // tan = 0.5: the box tips only beyond tan = 1
    for dim in [2, 3] {
        let cube = if dim == 2 {
            "shape = \"box\"\nhalf_extents = [0.5, 0.5]\nposition = [0.0, 0.5]\nvelocity = [0.0, 0.0]"
        } else {
            "shape = \"box\"\nhalf_extents = [0.5, 0.5, 0.5]\nposition = [0.0, 0.0, 0.5]\nvelocity = [0.0, 0.0, 0.0]"
        };
        let speeds = |mu: f64| -> (f64, f64) {
            let scene = on_slope(dim, cube, theta, mu);
            if dim == 2 {
                (
                    run_one::<DVec2>(&scene, 0.5).0.x,
                    run_one::<DVec2>(&scene, 1.5).0.x,
                )
            } else {
                (
                    run_one::<DVec3>(&scene, 0.5).0.x,
                    run_one::<DVec3>(&scene, 1.5).0.x,
                )
            }
        };
        // Holds: mu = 0.6 > 0.5.
        let (v0, v1) = speeds(0.6);
        assert!(
            v0.abs() < 1e-6 && v1.abs() < 1e-6,
            "{dim}D: the box slid at {v1}"
        );
        // Slides: mu = 0.3.
        let (v0, v1) = speeds(0.3);
        let expected = 10.0 * (theta.sin() - 0.3 * theta.cos());
        let a = v1 - v0;
        assert!(
            (a / expected - 1.0).abs() < 0.01,
            "{dim}D: acceleration {a}, expected {expected}"
        );
    }
}

/// A ball on a slope with enough friction rolls without slipping: it accelerates at
/// `g sin(theta) / (1 + k)` (`k = 2/5` for a sphere, `1/2` for a disc) and turns at `v / r`,
/// within 1%.
#[test]
fn a_ball_on_a_slope_rolls_without_slipping_at_the_analytic_rate() {
    let theta = 0.3_f64;
    let r = 0.5;
    for dim in [2, 3] {
        let ball = if dim == 2 {
            "shape = \"ball\"\nradius = 0.5\nposition = [0.0, 0.5]\nvelocity = [0.0, 0.0]"
        } else {
            "shape = \"ball\"\nradius = 0.5\nposition = [0.0, 0.0, 0.5]\nvelocity = [0.0, 0.0, 0.0]"
        };
        let scene = on_slope(dim, ball, theta, 0.6);
        let k = if dim == 2 { 0.5 } else { 0.4 };
        let expected = 10.0 * theta.sin() / (1.0 + k);
        let (v, spin) = if dim == 2 {
            let (v0, _) = run_one::<DVec2>(&scene, 0.5);
            let (v1, w) = run_one::<DVec2>(&scene, 1.5);
            (v1.x - v0.x, (v1.x, -w[0]))
        } else {
            let (v0, _) = run_one::<DVec3>(&scene, 0.5);
            let (v1, w) = run_one::<DVec3>(&scene, 1.5);
            // Rolling along +x on a floor of normal +z turns about +y.
            (v1.x - v0.x, (v1.x, w[1]))
        };
        assert!(
            (v / expected - 1.0).abs() < 0.01,
            "{dim}D: acceleration {v}, expected {expected}"
        );
        let (speed, w) = spin;
        assert!(
            (w * r / speed - 1.0).abs() < 0.01,
            "{dim}D: slips: v = {speed}, omega r = {}",
            w * r
        );
    }
}

/// A closed room of boxes and balls, no gravity, restitution 1 and 0.5, with friction: the
/// kinetic energy never increases from step to step (beyond round-off) with split impulses.
#[test]
fn kinetic_energy_never_increases_in_a_closed_room() {
    for e in [1.0, 0.5] {
        let mut text = format!(
            "dim = 2\n[simulation]\nduration = 10.0\nrestitution = {e:?}\nfriction = 0.3\n\
             [[walls]]\nbox = {{ min = [0.0, 0.0], max = [12.0, 12.0] }}\n"
        );
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64) / ((1u64 << 53) as f64) - 0.5
        };
        for k in 0..16 {
            let (x, y) = (1.5 + 3.0 * (k % 4) as f64, 1.5 + 3.0 * (k / 4) as f64);
            let (vx, vy, w) = (20.0 * rnd(), 20.0 * rnd(), 10.0 * rnd());
            let shape = if k % 2 == 0 {
                "shape = \"box\"\nhalf_extents = [0.6, 0.4]".to_string()
            } else {
                "shape = \"ball\"\nradius = 0.5".to_string()
            };
            text += &format!(
                "[[bodies]]\n{shape}\nposition = [{x:?}, {y:?}]\nvelocity = [{vx:?}, {vy:?}]\n\
                 angular_velocity = {w:?}\n"
            );
        }
        let scene = crate::scene::Scene::from_toml_str(&text).unwrap();
        for correction in [Correction::Split, Correction::Soft] {
            let options = StepOptions {
                correction,
                ..Default::default()
            };
            let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
            let mut last = sim.kinetic_energy();
            let first = last;
            for step in 0..600 {
                sim.step();
                let now = sim.kinetic_energy();
                assert!(
                    now <= last * (1.0 + 1e-9),
                    "e = {e}, {correction:?}: step {step}: {last} -> {now}"
                );
                last = now;
            }
            assert!(sim.stats().contacts > 0);
            if e < 1.0 {
                assert!(last < 0.9 * first, "e = {e}: the collisions lost no energy");
            }
        }
    }
}

/// A resting stack keeps its contact points from step to step (persistent manifolds): after
/// it settles, nearly every point is kept, none without `keep_manifolds`, and the pyramid
/// stands either way.
#[test]
fn resting_pairs_keep_their_points_and_stacks_stand_either_way() {
    let scene = pyramid(&StackParams::default(), 10).unwrap();
    for keep_manifolds in [true, false] {
        let options = StepOptions {
            keep_manifolds,
            sleep: false,
            ..Default::default()
        };
        let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
        let start: Vec<DVec2> = sim.bodies().iter().map(|b| b.position).collect();
        for _ in 0..60 {
            sim.step();
        }
        let settled = sim.stats();
        for _ in 0..120 {
            sim.step();
        }
        let s = sim.stats();
        let (kept, contacts) = (s.kept - settled.kept, s.contacts - settled.contacts);
        if keep_manifolds {
            assert!(kept as f64 > 0.9 * contacts as f64, "{kept} of {contacts}");
        } else {
            assert_eq!(s.kept, 0);
        }
        let moved = farthest(&sim, &start);
        assert!(
            moved < 0.01,
            "keep {keep_manifolds}: a box moved by {moved}"
        );
    }
}

/// A box sliding slowly without friction on the floor drifts out of its kept points every
/// few steps (by more than [`KEEP`] of its size): they are found again, and it slides on at
/// its speed and height.
#[test]
fn a_slowly_sliding_box_finds_its_points_again_as_it_drifts() {
    let text = "dim = 2\n[simulation]\nduration = 2.0\ngravity = [0.0, -10.0]\nfriction = 0.0\n\
        restitution = 0.0\n[[walls]]\nplane = { point = [0.0, 0.0], normal = [0.0, 1.0] }\n\
        [[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.5]\nposition = [0.0, 0.5]\n\
        velocity = [0.1, 0.0]\n";
    let scene = crate::scene::Scene::from_toml_str(text).unwrap();
    let options = StepOptions {
        sleep: false,
        ..Default::default()
    };
    let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
    for _ in 0..120 {
        sim.step();
    }
    let s = sim.stats();
    assert!(s.kept > 0 && s.kept < s.contacts, "{s:?}");
    let b = &sim.bodies()[0];
    assert!((b.velocity.x - 0.1).abs() < 1e-9, "{b:?}");
    assert!((b.position.x - 0.2).abs() < 1e-6, "{b:?}");
    assert!((b.position.y - 0.5).abs() < 1e-3, "{b:?}");
}

/// Soft contacts with a relax pass, one sweep of each a sub-step, hold a small pyramid (they
/// sag by the spring's give under the load, 0.8% of a box on the pyramid of base 10, and 3%
/// on the base of 20, which is why split impulses are the default).
#[test]
fn soft_contacts_hold_a_small_pyramid_with_one_sweep() {
    let scene = pyramid(&StackParams::default(), 10).unwrap();
    let options = StepOptions {
        correction: Correction::Soft,
        iterations: 1,
        ..Default::default()
    };
    let worst = largest_move::<DVec2>(&scene, 10.0, options);
    assert!(worst < 0.01, "a box moved by {worst}");
}

/// Bodies colliding in free space (no walls, no gravity) keep their total linear and angular
/// momentum to round-off.
#[test]
fn momentum_is_conserved_in_free_space() {
    let text = "dim = 3\n[simulation]\nduration = 10.0\nrestitution = 0.5\nfriction = 0.4\n\
        [[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.3, 0.4]\nposition = [0.0, 0.0, 0.0]\n\
        velocity = [3.0, 0.2, 0.1]\nangular_velocity = [1.0, 2.0, 0.5]\n\
        [[bodies]]\nshape = \"box\"\nhalf_extents = [0.4, 0.4, 0.4]\nposition = [3.0, 0.3, 0.2]\n\
        velocity = [-2.0, 0.0, 0.0]\nangular_velocity = [0.0, -1.0, 3.0]\ndensity = 2.0\n\
        [[bodies]]\nshape = \"ball\"\nradius = 0.4\nposition = [1.5, 3.0, 0.0]\n\
        velocity = [0.0, -3.0, 0.0]\n";
    let scene = crate::scene::Scene::from_toml_str(text).unwrap();
    let mut sim = SteppedSim::new(scene.world::<DVec3>().unwrap(), StepOptions::default()).unwrap();
    let momenta = |sim: &SteppedSim<DVec3>| {
        let mut p = DVec3::ZERO;
        let mut l = DVec3::ZERO;
        for b in sim.bodies() {
            let m = 1.0 / b.inv_mass;
            p += b.velocity * m;
            l += b.position.cross(b.velocity * m);
            l += DVec3::inertia_apply(b.rotation, b.inertia, b.angular_velocity);
        }
        (p, l)
    };
    let (p0, l0) = momenta(&sim);
    for _ in 0..120 {
        sim.step();
    }
    assert!(sim.stats().contacts > 0, "no collision happened");
    let (p1, l1) = momenta(&sim);
    assert!(
        (p1 - p0).length() < 1e-12 * p0.length().max(1.0),
        "{p0} -> {p1}"
    );
    assert!(
        (l1 - l0).length() < 1e-11 * l0.length().max(1.0),
        "{l0} -> {l1}"
    );
}

/// The first body-body event of bodies 0 and 1 in `scene` by the exact event-driven engine,
/// within the scene's duration.
fn exact_first_contact(scene: &crate::scene::Scene) -> Option<f64> {
    use crate::broad_phase::{BroadPhaseKind, BroadPhaseOptions};
    let world = scene.world::<DVec2>().unwrap();
    let broad = BroadPhaseKind::AllPairs.build::<DVec2>(&BroadPhaseOptions::default());
    let mut sim = crate::sim::Simulation::new(world, broad, scene.duration);
    while let Some(e) = sim.process_next() {
        if e.kind == crate::event::EventKind::BodyBody && (e.a, e.b) == (0, 1) {
            return Some(e.time);
        }
    }
    None
}

/// Runs `scene` stepped for its duration; the time at the end of the step in which bodies 0
/// and 1 first pushed on each other, and the stats.
fn stepped_first_contact(
    scene: &crate::scene::Scene,
    options: StepOptions,
) -> (Option<f64>, StepStats) {
    let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
    let steps = (scene.duration / options.dt).ceil() as usize;
    let mut first = None;
    for _ in 0..steps {
        sim.step();
        let pair = ContactPair {
            a: 0,
            b: 1,
            wall: false,
        };
        if first.is_none() && sim.touching().contains(&pair) {
            first = Some(sim.time());
        }
    }
    (first, sim.stats())
}

/// The `bullet` scene's box fired at the thin plank (0.2 thick) at 100, 1,000 and 10,000
/// units/s (2, 21 and 208 plank thicknesses a sub-step): with the check it hits the plank in
/// the step of the exact contact; without it, the two faster pass through (counted as
/// tunnelled; at 100 the bodies still overlap at the end of a sub-step).
#[test]
fn the_bullet_hits_the_plank_with_the_check_and_tunnels_without() {
    for speed in [100.0, 1000.0, 10000.0] {
        let mut scene = crate::generate::bullet(&crate::generate::BulletParams {
            speed,
            ..Default::default()
        })
        .unwrap();
        scene.duration = 0.6;
        let exact = exact_first_contact(&scene).expect("the bullet meets the plank");
        let options = StepOptions::default();
        let (hit, stats) = stepped_first_contact(&scene, options);
        let hit = hit.unwrap_or_else(|| panic!("speed {speed}: no contact, {stats:?}"));
        assert!(
            hit >= exact && hit - exact <= options.dt,
            "speed {speed}: contact at the end of the step {hit}, exact {exact}"
        );
        assert!(stats.ccd_impacts > 0 && stats.ccd_gave_up == 0, "{stats:?}");
        if speed < 1000.0 {
            continue;
        }
        let off = StepOptions {
            ccd: false,
            count_tunnelled: true,
            ..Default::default()
        };
        let (hit, stats) = stepped_first_contact(&scene, off);
        assert_eq!(hit, None, "speed {speed}: without the check it still hit");
        assert!(stats.tunnelled > 0, "{stats:?}");
    }
}

/// The `bullet` room at 10^4 units/s (a bullet crosses the room and back within a step), 2 s,
/// under every position correction at 1 and 4 sweeps: no body ever leaves the room. The
/// continuous check predicts the motion the sub-step makes, pseudo-velocities included (soft
/// contacts at one sweep once carried bodies through a wall on the push the check did not see).
#[test]
fn no_body_leaves_the_bullet_room_under_any_correction() {
    let scene = crate::generate::bullet(&crate::generate::BulletParams {
        speed: 1e4,
        ..Default::default()
    })
    .unwrap();
    for correction in [Correction::Split, Correction::Soft, Correction::Baumgarte] {
        for iterations in [1, 4] {
            let options = StepOptions {
                correction,
                iterations,
                ..Default::default()
            };
            let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
            for step in 0..120 {
                sim.step();
                for (i, b) in sim.bodies().iter().enumerate() {
                    let p = b.position;
                    assert!(
                        (0.0..=40.0).contains(&p.x) && (0.0..=20.0).contains(&p.y),
                        "{correction:?} x {iterations}: step {step}: body {i} left the room at {p}"
                    );
                }
            }
            assert_eq!(sim.stats().ccd_gave_up, 0, "{correction:?} x {iterations}");
        }
    }
}

/// The `bullet` room (restitution 1, no friction) keeps its kinetic energy at high speed, where
/// the continuous check resolves hundreds of impacts: each impact takes only the points in
/// contact at its time (a turning box's next corner, still apart, is its own impact later).
/// When the impacts also bounced the points still apart, the room lost 10% of its energy in
/// 2 s at 10^3 units/s and 59% at 10^4.
#[test]
fn the_bullet_room_keeps_its_energy_at_high_speed() {
    for speed in [1e3, 1e4] {
        let scene = crate::generate::bullet(&crate::generate::BulletParams {
            speed,
            ..Default::default()
        })
        .unwrap();
        let mut sim =
            SteppedSim::new(scene.world::<DVec2>().unwrap(), StepOptions::default()).unwrap();
        let e0 = sim.energy();
        for _ in 0..120 {
            sim.step();
        }
        let drift = (sim.energy() - e0).abs() / e0;
        let s = sim.stats();
        assert!(s.ccd_impacts > 300 && s.ccd_gave_up == 0, "{s:?}");
        assert!(drift < 1e-3, "speed {speed}: energy drift {drift:e}, {s:?}");
    }
}

/// 200 random pairs of a thin spinning plank (0.02 thick, 2 long) and a small spinning box,
/// both moving, fired at each other at up to 10^4 plank thicknesses a step (12,000 units/s
/// at dt = 1/60): every contact the exact event-driven engine finds, the stepped engine
/// makes, in the step of the exact time; without the check most pass through.
#[test]
fn fast_spinning_pairs_never_tunnel_with_the_check() {
    let mut seed = 0x9e3779b97f4a7c15u64;
    let mut rnd = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 11) as f64) / ((1u64 << 53) as f64)
    };
    let dt = 1.0 / 60.0;
    let (mut hits, mut tunnelled_off, mut missed_off) = (0, 0u64, 0);
    for k in 0..200 {
        // Per step, the bullet covers 10^(1 + 3u) plank thicknesses (10 to 10^4).
        let per_step = 10f64.powf(1.0 + 3.0 * rnd()) * 0.02;
        let speed = per_step / dt;
        let angle = std::f64::consts::PI * (rnd() - 0.5);
        let dir = [angle.cos(), angle.sin()];
        // The bullet starts 3 steps of its motion (at least 3 units) from a point of the plank.
        let aim = [0.0, 1.6 * (rnd() - 0.5)];
        let back = (3.0 * per_step).max(3.0);
        let start = [aim[0] - dir[0] * back, aim[1] - dir[1] * back];
        let text = format!(
            "dim = 2\n[simulation]\nduration = {:?}\nrestitution = 0.5\nfriction = 0.3\n\
             [[bodies]]\nshape = \"box\"\nhalf_extents = [0.01, 1.0]\nposition = [0.0, 0.0]\n\
             orientation = {:?}\nvelocity = [{:?}, {:?}]\nangular_velocity = {:?}\n\
             [[bodies]]\nshape = \"box\"\nhalf_extents = [0.05, 0.05]\n\
             position = [{:?}, {:?}]\nvelocity = [{:?}, {:?}]\nangular_velocity = {:?}\n",
            8.0 * dt,
            0.3 * (rnd() - 0.5),
            -dir[0] * 0.1 * speed * rnd(),
            -dir[1] * 0.1 * speed * rnd(),
            20.0 * (rnd() - 0.5),
            start[0],
            start[1],
            dir[0] * speed,
            dir[1] * speed,
            400.0 * (rnd() - 0.5),
        );
        let scene = crate::scene::Scene::from_toml_str(&text).unwrap();
        let Some(exact) = exact_first_contact(&scene) else {
            continue;
        };
        hits += 1;
        let (hit, stats) = stepped_first_contact(&scene, StepOptions::default());
        let hit = hit.unwrap_or_else(|| panic!("pair {k}: no contact, exact {exact}; {stats:?}"));
        assert!(
            hit >= exact && hit - exact <= dt,
            "pair {k}: contact at the end of the step {hit}, exact {exact}"
        );
        // With the check on the exact contacts are counted too: none passed through.
        assert_eq!(stats.tunnelled, 0, "pair {k}: {stats:?}");
        let off = StepOptions {
            ccd: false,
            count_tunnelled: true,
            ..Default::default()
        };
        let (hit, stats) = stepped_first_contact(&scene, off);
        tunnelled_off += stats.tunnelled;
        missed_off += hit.is_none() as u32;
    }
    assert!(hits > 100, "only {hits} pairs met");
    eprintln!(
        "{hits} pairs met; without the check {missed_off} never touched, {tunnelled_off} tunnelled"
    );
    assert!(missed_off > hits / 2, "{missed_off} of {hits}");
}

/// Warm starting converges faster: on a 2D pyramid of base 20, the solver's residual after 4
/// sweeps with the cache is well below the residual without it, and the pyramid stands with
/// 4 sweeps warm but not cold.
#[test]
fn warm_starting_leaves_a_smaller_residual_and_needs_fewer_sweeps() {
    let scene = pyramid(&StackParams::default(), 20).unwrap();
    let residual = |warm_start: bool, iterations: u32| {
        let options = StepOptions {
            warm_start,
            iterations,
            ..Default::default()
        };
        let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
        let start: Vec<DVec2> = sim.bodies().iter().map(|b| b.position).collect();
        for _ in 0..120 {
            sim.step();
        }
        let moved = farthest(&sim, &start);
        (sim.mean_residual(), moved)
    };
    let (warm, warm_moved) = residual(true, 4);
    let (cold, cold_moved) = residual(false, 4);
    let (cold16, _) = residual(false, 16);
    eprintln!(
        "residual after 4 sweeps: warm {warm:.3e}, cold {cold:.3e} (cold with 16: {cold16:.3e}); \
         moved in 2 s: warm {warm_moved:.4}, cold {cold_moved:.4}"
    );
    assert!(warm < 0.2 * cold, "warm {warm}, cold {cold}");
    assert!(warm_moved < 0.01, "warm: a box moved by {warm_moved}");
    assert!(cold_moved > 0.05, "cold: a box moved by only {cold_moved}");
}

/// The seed's argument for feature ids, with numbers: on a box sliding across a box and off
/// its end, and a hexagon rolling on the floor, matching by features hits the cache for nearly
/// every point that persists and never takes another contact's impulses; matching by distance
/// (in the world, or in the first body's frame, within [`MATCH_RADIUS`]) hits as often here
/// and takes another contact's impulses where the sliding box's corner passes the edge.
#[test]
fn feature_ids_match_persisting_contacts_and_distances_mismatch_some() {
    let sliding = "dim = 2\n[simulation]\nduration = 1.0\ngravity = [0.0, -10.0]\nfriction = 0.2\n\
        restitution = 0.0\n[[walls]]\nplane = { point = [0.0, 0.0], normal = [0.0, 1.0] }\n\
        [[bodies]]\nshape = \"box\"\nhalf_extents = [2.0, 0.5]\nposition = [0.0, 0.5]\n\
        velocity = [0.0, 0.0]\n[[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.5]\n\
        position = [-1.5, 1.5]\nvelocity = [5.0, 0.0]\n";
    let r = 0.5_f64;
    let hexagon: Vec<String> = (0..6)
        .map(|k| {
            let a = std::f64::consts::PI / 3.0 * k as f64;
            format!("[{:?}, {:?}]", r * a.cos(), r * a.sin())
        })
        .collect();
    let rolling = format!(
        "dim = 2\n[simulation]\nduration = 1.0\ngravity = [0.0, -10.0]\nfriction = 0.8\n\
         restitution = 0.0\n[[walls]]\nplane = {{ point = [0.0, 0.0], normal = [0.0, 1.0] }}\n\
         [[bodies]]\nshape = \"polygon\"\nvertices = [{}]\nposition = [0.0, {:?}]\n\
         velocity = [3.0, 0.0]\nangular_velocity = -6.0\n",
        hexagon.join(", "),
        r * (std::f64::consts::PI / 3.0).sin()
    );
    let mut report = String::new();
    for (name, text) in [("sliding", sliding.to_string()), ("rolling", rolling)] {
        let scene = crate::scene::Scene::from_toml_str(&text).unwrap();
        let mut mismatched = 0;
        for matching in [
            Matching::Features,
            Matching::WorldDistance,
            Matching::BodyDistance,
        ] {
            let options = StepOptions {
                matching,
                ..Default::default()
            };
            let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
            for _ in 0..60 {
                sim.step();
            }
            let s = sim.stats();
            report += &format!(
                "{name} {matching:?}: {} points, {} hits ({:.2}%), {} mismatched\n",
                s.contacts,
                s.warm_hits,
                100.0 * s.warm_hits as f64 / s.contacts as f64,
                s.mismatches
            );
            if matching == Matching::Features {
                assert_eq!(s.mismatches, 0);
                assert!(
                    s.warm_hits as f64 > 0.97 * s.contacts as f64,
                    "{name}: {s:?}"
                );
            } else {
                mismatched += s.mismatches;
            }
        }
        if name == "sliding" {
            // Where the sliding box's corner passes the end of the box below, the clipped
            // point changes features in place: a distance match takes the old features'
            // impulses (measured: 1 of 600 points each, world and body frame).
            assert!(mismatched > 0, "{report}");
        }
    }
    eprintln!("{report}");
}

/// A 2D pyramid of base 10 goes to sleep once it has stood still for [`TIME_TO_SLEEP`]; a ball
/// dropped on it wakes it; it sleeps again where it stands.
#[test]
fn a_pyramid_sleeps_wakes_when_hit_and_sleeps_again() {
    let mut scene = pyramid(&StackParams::default(), 10).unwrap();
    // A ball (a body without a shape table) of the top box's bounding radius, 20 above the
    // top box's centre, landing at about t = 2.
    let mut dropped = scene.bodies[scene.bodies.len() - 1];
    dropped.position[1] += 20.0;
    scene.bodies.push(dropped);
    let n = scene.bodies.len();
    let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), StepOptions::default()).unwrap();
    let start: Vec<DVec2> = sim.bodies().iter().map(|b| b.position).collect();
    let run = |sim: &mut SteppedSim<DVec2>, until: f64| {
        while sim.time() < until - 1e-9 {
            sim.step();
        }
    };
    run(&mut sim, 1.5);
    assert_eq!(sim.asleep_count(), n - 1, "all but the falling box sleep");
    run(&mut sim, 2.5);
    assert!(sim.stats().wakes > 0, "the landing woke the pyramid");
    run(&mut sim, 8.0);
    assert_eq!(sim.asleep_count(), n, "all sleep again");
    let moved = sim.bodies()[..n - 1]
        .iter()
        .zip(&start)
        .map(|(b, s)| (b.position - *s).length())
        .fold(0.0, f64::max);
    assert!(moved < 0.05, "a pyramid box moved by {moved}");
}

/// A scene of plain balls (no `shape`) is refused as it is and runs once its balls are made
/// rigid balls ([`crate::scene::Scene::with_rigid_balls`]): a ball dropped on a ball resting on
/// the floor comes to rest on it, both within 1% of their radius of where they stack.
#[test]
fn plain_balls_made_rigid_balls_stack() {
    let text = "dim = 2\n[simulation]\nduration = 5.0\ngravity = [0.0, -10.0]\n\
        restitution = 0.0\n[[walls]]\nplane = { point = [0.0, 0.0], normal = [0.0, 1.0] }\n\
        [[bodies]]\nposition = [0.0, 0.5]\nvelocity = [0.0, 0.0]\nradius = 0.5\n\
        [[bodies]]\nposition = [0.0, 3.0]\nvelocity = [0.0, 0.0]\nradius = 0.5\nmass = 2.0\n";
    let scene = crate::scene::Scene::from_toml_str(text).unwrap();
    let refused = SteppedSim::new(scene.world::<DVec2>().unwrap(), StepOptions::default());
    assert!(matches!(refused, Err(StepError::Balls)));
    let rigid = scene.with_rigid_balls().unwrap();
    assert!(rigid.shapes.iter().all(|s| s.is_some()));
    assert_eq!(rigid.bodies[1].mass, 2.0);
    let mut sim = SteppedSim::new(rigid.world::<DVec2>().unwrap(), StepOptions::default()).unwrap();
    for _ in 0..180 {
        sim.step();
    }
    let (low, high) = (sim.bodies()[0].position, sim.bodies()[1].position);
    assert!((low - DVec2::new(0.0, 0.5)).length() < 0.005, "{low}");
    assert!((high - DVec2::new(0.0, 1.5)).length() < 0.005, "{high}");
}

/// An elastic impact keeps its energy: boxes spinning into a frictionless floor at
/// restitution 1, without gravity, leave with the kinetic energy they came with (the energy
/// guard scales down only a bounce that would add energy, to exactly the energy before).
#[test]
fn a_spinning_box_bounces_off_the_floor_with_its_energy() {
    for (w, vy) in [(0.0, -5.0), (20.0, -5.0), (-60.0, -3.0), (200.0, -8.0)] {
        let text = format!(
            "dim = 2\n[simulation]\nduration = 1.0\nrestitution = 1.0\n\
             [[walls]]\nplane = {{ point = [0.0, 0.0], normal = [0.0, 1.0] }}\n\
             [[bodies]]\nshape = \"box\"\nhalf_extents = [0.5, 0.25]\nposition = [0.0, 2.0]\n\
             velocity = [1.0, {vy:?}]\nangular_velocity = {w:?}\n"
        );
        let scene = crate::scene::Scene::from_toml_str(&text).unwrap();
        let mut sim =
            SteppedSim::new(scene.world::<DVec2>().unwrap(), StepOptions::default()).unwrap();
        let e0 = sim.kinetic_energy();
        for _ in 0..60 {
            sim.step();
        }
        let e1 = sim.kinetic_energy();
        eprintln!("w {w}: {e0} -> {e1} ({:.3e})", e1 / e0 - 1.0);
        assert!(sim.stats().body_wall > 0, "w {w}: never hit");
        assert!(e1 <= e0 * (1.0 + 1e-9), "w {w}: gained {e0} -> {e1}");
        assert!(e1 >= 0.99 * e0, "w {w}: lost {e0} -> {e1}");
    }
}
