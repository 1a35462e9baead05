//! Rigid bodies in the event-driven simulation: the analytic response, conservation laws, no
//! overlap and no missed contact against dense sampling, friction, and bullets that never
//! tunnel (the same logs from every broad phase and traces replayed: `rigid_logs.rs`).

use crate::common;

use common::{builder, gas2, gas3, min_gap, room2, room3, world};
use kairos::math::{DVec2, DVec3, Rot2, Rotation, Vector};
use kairos::prelude::*;
use kairos::shape::{Pose, Shape};
use kairos::wall::Plane;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// A tilted 2D box falling on a floor: its corner takes the impulse
/// `j = (1 + e) u / (1/m + (r × n)² / I)`, and the velocity and spin after follow.
#[test]
fn a_box_hitting_the_floor_matches_the_analytic_response() {
    for (angle, e, spin) in [
        (0.3, 1.0, 0.0),
        (0.7, 0.5, 0.0),
        (-0.4, 1.0, 2.0),
        (1.2, 0.0, -1.0),
    ] {
        let (hx, hy) = (1.0, 0.25);
        let shape = Shape::cuboid(DVec2::new(hx, hy)).unwrap();
        let v0 = DVec2::new(0.3, -2.0);
        let w = builder(
            &[(
                shape,
                Pose::new(DVec2::new(0.0, 3.0), Rot2::from_angle(angle)),
                v0,
                spin,
            )],
            vec![Wall::Plane(Plane::new(DVec2::ZERO, DVec2::Y).unwrap())],
        )
        .restitution(e)
        .build()
        .unwrap();
        let mut sim = Simulation::new(w, BroadPhaseKind::AllPairs.build(&Default::default()), 10.0);
        let before = sim.world().clone();
        let ev = sim.step().expect("the box hits the floor");
        let after = sim.world();
        // The analytic answer from the state at contact.
        let t = ev.time;
        let b = &before.bodies()[0];
        let r0 = &before.rigid()[0];
        let (rot, omega) = r0.at(t);
        let centre = b.pos + b.vel * t;
        let corners = [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]
            .map(|(x, y)| centre + rot.rotate(DVec2::new(x, y)));
        let low = corners
            .iter()
            .copied()
            .min_by(|p, q| p.y.total_cmp(&q.y))
            .unwrap();
        assert!(low.y > 0.0 && low.y < 1e-6, "corner at {}", low.y);
        let m = 4.0 * hx * hy;
        let inertia = m * (hx * hx + hy * hy) / 3.0;
        let r = low - centre;
        let n = DVec2::Y;
        let rxn = r.x * n.y - r.y * n.x;
        let u = -(b.vel + DVec2::new(-omega * r.y, omega * r.x)).dot(n);
        let j = (1.0 + e) * u / (1.0 / m + rxn * rxn / inertia);
        let v1 = b.vel + n * (j / m);
        let w1 = omega + rxn * j / inertia;
        let got_v = after.bodies()[0].vel;
        let got_w = after.rigid()[0].angular_velocity;
        assert!(
            (got_v - v1).length() < 1e-9 * v1.length(),
            "{angle}: v {got_v} vs {v1}"
        );
        assert!(
            (got_w - w1).abs() < 1e-9 * (1.0 + w1.abs()),
            "{angle}: ω {got_w} vs {w1}"
        );
        if e == 1.0 {
            let ke = |v: DVec2, w: f64| 0.5 * m * v.length_squared() + 0.5 * inertia * w * w;
            let k0 = ke(b.vel, omega);
            assert!((ke(got_v, got_w) - k0).abs() < 1e-12 * k0);
        }
    }
}

/// A box landing flat takes its impulse at the middle of its face: it bounces without spin.
#[test]
fn a_box_landing_flat_does_not_spin() {
    let shape = Shape::cuboid(DVec3::new(1.0, 0.5, 0.7)).unwrap();
    let w = builder(
        &[(
            shape,
            Pose::from_position(DVec3::new(0.0, 2.0, 0.0)),
            DVec3::new(0.0, -1.0, 0.0),
            DVec3::ZERO,
        )],
        vec![Wall::Plane(Plane::new(DVec3::ZERO, DVec3::Y).unwrap())],
    )
    .restitution(0.5)
    .build()
    .unwrap();
    let mut sim = Simulation::new(w, BroadPhaseKind::AllPairs.build(&Default::default()), 10.0);
    sim.step().unwrap();
    let wld = sim.world();
    assert!(wld.rigid()[0].angular_velocity.length() < 1e-12);
    assert!((wld.bodies()[0].vel - DVec3::new(0.0, 0.5, 0.0)).length() < 1e-12);
}

/// Dense sampling between events: no pair ever overlaps (a missed contact would show as an
/// overlap at the samples after it), and the energy, the momentum exchanged between bodies and
/// the angular momentum exchanged between bodies are conserved to round-off.
fn run_checked<V: Vector>(w: World<V>, duration: f64, samples: usize) -> (usize, f64, f64) {
    run_checked_until(w, duration, samples, usize::MAX)
}

fn run_checked_until<V: Vector>(
    w: World<V>,
    duration: f64,
    samples: usize,
    max_events: usize,
) -> (usize, f64, f64) {
    let e0 = w.kinetic_energy();
    let mut sim = Simulation::new(
        w,
        BroadPhaseKind::Calendar.build(&Default::default()),
        duration,
    );
    let mut last = 0.0;
    let mut events = 0;
    let mut worst_gap = f64::INFINITY;
    let mut worst_pair_dl = 0.0f64;
    while events < max_events {
        let before = sim.world().clone();
        let Some(e) = sim.step() else { break };
        events += 1;
        let after = sim.world();
        // Samples in (last, e.time): the world before the event, moved freely.
        for k in 1..=samples {
            let t = last + (e.time - last) * k as f64 / (samples + 1) as f64;
            worst_gap = worst_gap.min(min_gap(&before, t - sim.origin()));
        }
        if e.kind == EventKind::BodyBody {
            let dl = |w: &World<V>| {
                let (a, b) = (e.a as usize, e.b as usize);
                let l = |i: usize| {
                    let body = &w.bodies()[i];
                    V::angular_add_scaled(
                        w.rigid()[i].angular_momentum(),
                        V::cross_angular(body.pos, body.vel),
                        body.mass(),
                    )
                };
                V::angular_add_scaled(l(a), l(b), 1.0)
            };
            let (l0, l1) = (dl(&before), dl(after));
            let diff = V::angular_add_scaled(l1, l0, -1.0);
            let scale = V::angular_dot(l0, l0).sqrt().max(1.0);
            worst_pair_dl = worst_pair_dl.max(V::angular_dot(diff, diff).sqrt() / scale);
            let p0 = before.bodies()[e.a as usize].vel * before.bodies()[e.a as usize].mass()
                + before.bodies()[e.b as usize].vel * before.bodies()[e.b as usize].mass();
            let p1 = after.bodies()[e.a as usize].vel * after.bodies()[e.a as usize].mass()
                + after.bodies()[e.b as usize].vel * after.bodies()[e.b as usize].mass();
            assert!(
                (p1 - p0).length() <= 1e-12 * p0.length().max(1.0),
                "momentum at {e:?}"
            );
        }
        last = e.time;
    }
    let drift = (sim.world().kinetic_energy() - e0) / e0;
    assert!(
        drift.abs() < 1e-10,
        "energy drift {drift} over {events} events"
    );
    assert!(
        worst_pair_dl < 1e-12,
        "angular momentum of a pair changed by {worst_pair_dl}"
    );
    (events, worst_gap, drift)
}

#[test]
fn no_overlap_no_missed_contact_and_conservation_2d() {
    for seed in 0..3 {
        let (events, gap, drift) = run_checked(world(&gas2(16, 8.0, seed), room2(8.0)), 15.0, 8);
        println!("2D seed {seed}: {events} events, least gap {gap:.3e}, energy drift {drift:.2e}");
        assert!(events > 50, "{events} events");
        assert!(gap >= 0.0, "overlap of {gap}");
    }
}

#[test]
fn no_overlap_no_missed_contact_and_conservation_3d() {
    for seed in 0..2 {
        let (events, gap, drift) = run_checked(world(&gas3(27, 8.0, seed), room3(8.0)), 10.0, 4);
        println!("3D seed {seed}: {events} events, least gap {gap:.3e}, energy drift {drift:.2e}");
        assert!(events > 50, "{events} events");
        assert!(gap >= 0.0, "overlap of {gap}");
    }
}

/// A small body spinning fast, fired at a thin spinning plank, and two such bodies fired at
/// each other: they collide every time, up to speeds of 10⁴ plank thicknesses per unit time.
#[test]
fn bullets_never_tunnel_2d() {
    let thickness = 0.01;
    let mut rng = Pcg64::seed_from_u64(3);
    let mut hits = 0;
    for k in 0..200 {
        let speed = thickness * 10f64.powf(rng.gen_range(1.0..4.0));
        let plank = Shape::cuboid(DVec2::new(1.0, 0.5 * thickness)).unwrap();
        let bullet = Shape::cuboid(DVec2::new(0.02, 0.005)).unwrap();
        let start = 3.0;
        let arrive = start / speed;
        let plank_spin = rng.gen_range(-20.0..20.0);
        // Nearly upright when the bullet arrives.
        let angle = std::f64::consts::FRAC_PI_2 + rng.gen_range(-0.3..0.3) - plank_spin * arrive;
        let y = rng.gen_range(-0.6..0.6);
        let specs = [
            (
                plank,
                Pose::new(DVec2::ZERO, Rot2::from_angle(angle)),
                DVec2::ZERO,
                plank_spin,
            ),
            (
                bullet.clone(),
                Pose::new(
                    DVec2::new(-start, y),
                    Rot2::from_angle(rng.gen_range(0.0..6.3)),
                ),
                DVec2::new(speed, 0.0),
                rng.gen_range(-500.0..500.0),
            ),
        ];
        let w = world(&specs, vec![]);
        let mut sim = Simulation::new(
            w,
            BroadPhaseKind::AllPairs.build(&Default::default()),
            2.0 * start / speed,
        );
        let w0 = sim.world().clone();
        let Some(e) = sim.step() else {
            let n = 20000;
            let deepest = (0..=n)
                .map(|s| min_gap(&w0, 2.0 * start / speed * s as f64 / n as f64))
                .fold(f64::INFINITY, f64::min);
            panic!("case {k}: the bullet at {speed} passed through the plank (deepest sampled gap {deepest})");
        };
        assert!(e.time < (start + 1.0) / speed, "case {k}: late");
        assert!(min_gap(sim.world(), e.time) >= 0.0);
        hits += 1;
        // Two bullets head on.
        let specs = [
            (
                bullet.clone(),
                Pose::new(
                    DVec2::new(-start, 0.0),
                    Rot2::from_angle(rng.gen_range(0.0..6.3)),
                ),
                DVec2::new(speed, 0.0),
                rng.gen_range(-500.0..500.0),
            ),
            (
                bullet,
                Pose::new(
                    DVec2::new(start, rng.gen_range(-0.004..0.004)),
                    Rot2::from_angle(rng.gen_range(0.0..6.3)),
                ),
                DVec2::new(-speed, 0.0),
                rng.gen_range(-500.0..500.0),
            ),
        ];
        let w = world(&specs, vec![]);
        let mut sim = Simulation::new(
            w,
            BroadPhaseKind::AllPairs.build(&Default::default()),
            2.0 * start / speed,
        );
        let e = sim.step().unwrap_or_else(|| {
            panic!("case {k}: the bullets at {speed} passed through each other")
        });
        assert!(min_gap(sim.world(), e.time) >= 0.0);
        hits += 1;
    }
    assert_eq!(hits, 400);
}

/// 10⁵ elastic events of spinning bodies in a room: energy (linear and rotational) conserved
/// to round-off, and every collision of two bodies conserves their momentum and angular
/// momentum.
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn long_elastic_runs_conserve_energy_and_momenta() {
    let (events, _, drift) =
        run_checked_until(world(&gas2(100, 25.0, 7), room2(25.0)), 1e9, 0, 100_000);
    println!("2D: {events} events, energy drift {drift:.2e}");
    assert_eq!(events, 100_000);
    let (events, _, drift) =
        run_checked_until(world(&gas3(125, 12.0, 7), room3(12.0)), 1e9, 0, 30_000);
    println!("3D: {events} events, energy drift {drift:.2e}");
    assert_eq!(events, 30_000);
}

/// Inelastic collisions of spinning bodies (restitution 0.5 and 0.2) never pile up at
/// one instant: the run reaches its end, no pair overlaps, and the energy only decreases.
/// (Long dissipative runs without gravity end in sustained contacts, a body pivoting on
/// another, that the event model resolves as a dense sequence of collisions: see the module
/// docs of `kairos::rigid`.)
#[test]
fn inelastic_runs_end_without_overlap() {
    for e in [0.5, 0.2] {
        let w = builder(&gas2(16, 8.0, 11), room2(8.0))
            .restitution(e)
            .contact_duration(1e-4)
            .build()
            .unwrap();
        let e0 = w.kinetic_energy();
        let mut sim = Simulation::new(w, BroadPhaseKind::Calendar.build(&Default::default()), 8.0);
        let mut events = 0;
        let mut worst = f64::INFINITY;
        let mut last_e = e0;
        while let Some(ev) = sim.step() {
            events += 1;
            assert!(
                events < 20_000,
                "e = {e}: events pile up at t = {}",
                ev.time
            );
            if events % 50 == 0 {
                worst = worst.min(min_gap(sim.world(), ev.time - sim.origin()));
            }
            let k = sim.world().kinetic_energy();
            assert!(
                k <= last_e * (1.0 + 1e-12),
                "e = {e}: energy grew at {ev:?}"
            );
            last_e = k;
        }
        println!("e = {e}: {events} events, least gap {worst:.2e}, energy {e0:.3} -> {last_e:.3e}");
        // No overlap beyond round-off (of the room's size, 8).
        assert!(worst >= -8.0 * f64::EPSILON, "least gap {worst:e}");
    }
}

/// Friction at an oblique impact of a sphere on a floor: with a large coefficient the contact
/// point sticks and the sphere leaves rolling, at 5/7 of its tangential speed (the impulse
/// `2 m v_t / 7`); with a small one it slides, the tangential impulse `μ` times the normal
/// one. Energy never increases.
#[test]
fn friction_sticks_and_slides_as_coulomb_says() {
    let r = 0.5;
    let floor = || vec![Wall::Plane(Plane::new(DVec3::ZERO, DVec3::Y).unwrap())];
    for (mu, e) in [(10.0, 1.0), (10.0, 0.5), (0.05, 1.0), (0.05, 0.0)] {
        let v = DVec3::new(1.5, -2.0, 0.0);
        let w = builder(
            &[(
                Shape::ball(r).unwrap(),
                Pose::from_position(DVec3::new(0.0, 2.0, 0.0)),
                v,
                DVec3::ZERO,
            )],
            floor(),
        )
        .restitution(e)
        .friction(mu)
        .build()
        .unwrap();
        let m = w.bodies()[0].mass();
        let e0 = w.kinetic_energy();
        let mut sim = Simulation::new(w, BroadPhaseKind::AllPairs.build(&Default::default()), 10.0);
        sim.step().unwrap();
        let after = sim.world();
        let (v1, w1) = (after.bodies()[0].vel, after.rigid()[0].angular_velocity);
        assert!((v1.y - e * 2.0).abs() < 1e-9, "μ {mu}: normal {}", v1.y);
        let jn = m * (1.0 + e) * 2.0;
        let jt = if mu * jn >= 2.0 * m * 1.5 / 7.0 {
            2.0 * m * 1.5 / 7.0
        } else {
            mu * jn
        };
        assert!(
            (v1.x - (1.5 - jt / m)).abs() < 1e-9,
            "μ {mu}: tangential {}",
            v1.x
        );
        // The spin the tangential impulse gives about the contact arm (0, -r, 0).
        let inertia = 0.4 * m * r * r;
        let expect_w = DVec3::new(0.0, 0.0, -r * jt / inertia);
        assert!(
            (w1 - expect_w).length() < 1e-9,
            "μ {mu}: spin {w1} vs {expect_w}"
        );
        if mu == 10.0 {
            // Rolling: the contact point is at rest.
            let contact_speed = v1.x + w1.z * r;
            assert!(contact_speed.abs() < 1e-9);
        }
        assert!(after.kinetic_energy() <= e0 * (1.0 + 1e-14));
    }
}

/// A gas with friction: energy never increases, event by event, and bodies never overlap.
#[test]
fn friction_never_adds_energy() {
    for e in [1.0, 0.7] {
        let w = builder(&gas2(16, 8.0, 5), room2(8.0))
            .friction(0.4)
            .restitution(e)
            .contact_duration(1e-4)
            .build()
            .unwrap();
        let mut sim = Simulation::new(w, BroadPhaseKind::Calendar.build(&Default::default()), 8.0);
        let mut last = sim.world().kinetic_energy();
        let mut events = 0;
        while let Some(ev) = sim.step() {
            events += 1;
            assert!(events < 50_000, "events pile up at {}", ev.time);
            let k = sim.world().kinetic_energy();
            assert!(
                k <= last * (1.0 + 1e-12),
                "energy grew at {ev:?}: {last} -> {k}"
            );
            last = k;
        }
        let latest = sim
            .world()
            .bodies()
            .iter()
            .map(|b| b.time)
            .fold(0.0, f64::max);
        let gap = min_gap(sim.world(), latest);
        assert!(gap >= 0.0, "e = {e}: overlap {gap}");
        println!("e = {e}, μ = 0.4: {events} events");
    }
}

/// The 3D bullets: a small tumbling box fired at a thin square plank turning about its upright
/// axis, and two such boxes fired at each other; every case collides.
#[test]
fn bullets_never_tunnel_3d() {
    use kairos::math::DQuat;
    let thickness = 0.01;
    let mut rng = Pcg64::seed_from_u64(4);
    for k in 0..150 {
        let speed = thickness * 10f64.powf(rng.gen_range(1.0..4.0));
        let plank = Shape::cuboid(DVec3::new(1.0, 1.0, 0.5 * thickness)).unwrap();
        let bullet = Shape::cuboid(DVec3::new(0.02, 0.01, 0.005)).unwrap();
        let start = 3.0;
        let spin_y = rng.gen_range(-20.0..20.0);
        // The plank's normal (local z) faces the bullet, within 0.3 rad, when it arrives.
        let angle = std::f64::consts::FRAC_PI_2 + rng.gen_range(-0.3..0.3) - spin_y * start / speed;
        let mut tumble = || {
            DVec3::new(
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
            ) * 300.0
        };
        let (wa, wb) = (tumble(), tumble());
        let aim = DVec3::new(-start, rng.gen_range(-0.6..0.6), rng.gen_range(-0.6..0.6));
        let specs = [
            (
                plank,
                Pose::new(DVec3::ZERO, DQuat::from_rotation_y(angle)),
                DVec3::ZERO,
                DVec3::Y * spin_y,
            ),
            (
                bullet.clone(),
                Pose::new(aim, DQuat::from_rotation_x(1.0)),
                DVec3::X * speed,
                wa,
            ),
        ];
        let w = world(&specs, vec![]);
        let mut sim = Simulation::new(
            w,
            BroadPhaseKind::AllPairs.build(&Default::default()),
            2.0 * start / speed,
        );
        let e = sim
            .step()
            .unwrap_or_else(|| panic!("case {k}: the bullet at {speed} passed through the plank"));
        assert!(min_gap(sim.world(), e.time) >= 0.0);
        let specs = [
            (
                bullet.clone(),
                Pose::new(DVec3::new(-start, 0.0, 0.0), DQuat::from_rotation_z(0.3)),
                DVec3::X * speed,
                wa,
            ),
            (
                bullet,
                Pose::new(
                    DVec3::new(start, 0.002, -0.002),
                    DQuat::from_rotation_y(0.7),
                ),
                -DVec3::X * speed,
                wb,
            ),
        ];
        let w = world(&specs, vec![]);
        let mut sim = Simulation::new(
            w,
            BroadPhaseKind::AllPairs.build(&Default::default()),
            2.0 * start / speed,
        );
        let e = sim.step().unwrap_or_else(|| {
            panic!("case {k}: the bullets at {speed} passed through each other")
        });
        assert!(min_gap(sim.world(), e.time) >= 0.0);
    }
}
