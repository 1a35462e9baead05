//! Rigid bodies in the event-driven simulation: the analytic response, conservation laws, no
//! overlap and no missed contact against dense sampling, bit-identical logs across broad
//! phases, and bullets that never tunnel.

use crate::common;

use common::min_gap;
use kairos::math::{DVec2, DVec3, Rot2, Rotation, Vector};
use kairos::prelude::*;
use kairos::rigid::RigidState;
use kairos::shape::{Pose, Shape};
use kairos::wall::Plane;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// A body of a rigid world: shape, pose of its local frame, velocity, angular velocity.
type Spec<V> = (Shape<V>, Pose<V>, V, <V as Vector>::Angular);

/// A world of rigid bodies of density 1 between `walls`.
pub fn builder<V: Vector>(specs: &[Spec<V>], walls: Vec<Wall<V>>) -> WorldBuilder<V> {
    let mut shapes = Vec::new();
    let mut bodies = Vec::new();
    let mut states = Vec::new();
    for (k, (shape, pose, v, w)) in specs.iter().enumerate() {
        let props = shape.mass_properties(1.0).unwrap();
        let (b, r) = RigidState::body(k as u32, shape, &props, pose, *v, *w).unwrap();
        shapes.push(shape.clone());
        bodies.push(b);
        states.push(r);
    }
    World::builder(bodies, walls).rigid(shapes, states)
}

/// [`builder`]'s world.
pub fn world<V: Vector>(specs: &[Spec<V>], walls: Vec<Wall<V>>) -> World<V> {
    builder(specs, walls).build().unwrap()
}

/// The four walls of the 2D room `[0, l]²` (planes facing in).
pub fn room2(l: f64) -> Vec<Wall<DVec2>> {
    [
        (DVec2::ZERO, DVec2::X),
        (DVec2::ZERO, DVec2::Y),
        (DVec2::splat(l), -DVec2::X),
        (DVec2::splat(l), -DVec2::Y),
    ]
    .into_iter()
    .map(|(p, n)| Wall::Plane(Plane::new(p, n).unwrap()))
    .collect()
}

/// The six walls of the 3D room `[0, l]³`.
pub fn room3(l: f64) -> Vec<Wall<DVec3>> {
    let mut w = Vec::new();
    for axis in 0..3 {
        let n = DVec3::unit(axis);
        w.push(Wall::Plane(Plane::new(DVec3::ZERO, n).unwrap()));
        w.push(Wall::Plane(Plane::new(DVec3::splat(l), -n).unwrap()));
    }
    w
}

/// A random 2D gas in the room `[0, l]²`: boxes, discs, capsules and polygons on a lattice,
/// spinning.
pub fn gas2(n: usize, l: f64, seed: u64) -> Vec<Spec<DVec2>> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let side = (n as f64).sqrt().ceil() as usize;
    let cell = l / side as f64;
    let size = 0.3 * cell;
    (0..n)
        .map(|k| {
            let shape = match k % 4 {
                0 => Shape::cuboid(DVec2::new(
                    size * rng.gen_range(0.3..1.0),
                    size * rng.gen_range(0.1..0.5),
                ))
                .unwrap(),
                1 => Shape::ball(size * rng.gen_range(0.3..1.0)).unwrap(),
                2 => Shape::capsule(
                    size * rng.gen_range(0.2..0.6),
                    size * rng.gen_range(0.1..0.4),
                )
                .unwrap(),
                _ => {
                    let m = rng.gen_range(3..7);
                    let pts: Vec<DVec2> = (0..m)
                        .map(|i| {
                            let a = std::f64::consts::TAU * (i as f64 + rng.gen_range(0.0..0.5))
                                / m as f64;
                            DVec2::new(a.cos(), a.sin()) * size * rng.gen_range(0.5..1.0)
                        })
                        .collect();
                    Shape::convex_hull(&pts).unwrap()
                }
            };
            let centre = DVec2::new(
                ((k % side) as f64 + 0.5) * cell,
                ((k / side) as f64 + 0.5) * cell,
            );
            let pose = Pose::new(centre, Rot2::from_angle(rng.gen_range(0.0..6.3)));
            let v = DVec2::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
            (shape, pose, v, rng.gen_range(-4.0..4.0))
        })
        .collect()
}

/// A random 3D gas in the room `[0, l]³`: cubes and spheres (isotropic: constant angular
/// velocity), boxes, cylinders and polyhedra (tumbling by the free rotation), spinning.
pub fn gas3(n: usize, l: f64, seed: u64) -> Vec<Spec<DVec3>> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let side = (n as f64).cbrt().ceil() as usize;
    let cell = l / side as f64;
    let size = 0.3 * cell;
    (0..n)
        .map(|k| {
            let mut r = || size * rng.gen_range(0.3..1.0);
            let shape = match k % 5 {
                0 => Shape::cuboid(DVec3::splat(r())).unwrap(),
                1 => Shape::ball(r()).unwrap(),
                2 => Shape::cuboid(DVec3::new(r(), r(), r())).unwrap(),
                3 => Shape::cylinder(r(), r()).unwrap(),
                _ => {
                    let pts: Vec<DVec3> = (0..12)
                        .map(|_| DVec3::new(r(), r(), r()) - DVec3::splat(0.6 * size))
                        .collect();
                    Shape::convex_hull(&pts).unwrap()
                }
            };
            let centre = DVec3::new(
                ((k % side) as f64 + 0.5) * cell,
                ((k / side % side) as f64 + 0.5) * cell,
                ((k / side / side) as f64 + 0.5) * cell,
            );
            let axis = DVec3::new(
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
            )
            .normalize();
            let pose = Pose::new(
                centre,
                kairos::math::DQuat::from_axis_angle(axis, rng.gen_range(0.0..6.3)),
            );
            let v = DVec3::new(
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
            );
            let w = DVec3::new(
                rng.gen_range(-4.0..4.0),
                rng.gen_range(-4.0..4.0),
                rng.gen_range(-4.0..4.0),
            );
            (shape, pose, v, w)
        })
        .collect()
}

/// One processed event with every body's full state after it, as bits.
fn snapshot<V: Vector>(e: &Event, w: &World<V>) -> Vec<u64> {
    let mut out = vec![
        e.time.to_bits(),
        e.kind.code() as u64,
        e.a as u64,
        e.b as u64,
    ];
    for i in [e.a as usize, e.b as usize] {
        if e.kind != EventKind::BodyBody && i == e.b as usize {
            continue;
        }
        let b = &w.bodies()[i];
        for x in b.pos.to_array3().into_iter().chain(b.vel.to_array3()) {
            out.push(x.to_bits());
        }
        let r = &w.rigid()[i];
        for axis in 0..V::DIM {
            let turned = r.rotation.rotate(V::unit(axis));
            let spun = V::angular_cross(r.angular_velocity, V::unit(axis));
            for x in turned.to_array3().into_iter().chain(spun.to_array3()) {
                out.push(x.to_bits());
            }
        }
    }
    out
}

fn log<V: Vector>(world: &World<V>, kind: BroadPhaseKind, duration: f64) -> Vec<Vec<u64>> {
    let mut sim = Simulation::new(
        world.clone(),
        kind.build::<V>(&BroadPhaseOptions::default()),
        duration,
    );
    let mut out = Vec::new();
    sim.run(|e, w, _| out.push(snapshot(e, w)));
    out
}

fn same_logs_everywhere<V: Vector>(world: &World<V>, duration: f64, what: &str) -> usize {
    let reference = log(world, BroadPhaseKind::AllPairs, duration);
    for kind in BroadPhaseKind::ALL {
        let other = log(world, kind, duration);
        for (i, (x, y)) in reference.iter().zip(&other).enumerate() {
            assert_eq!(x, y, "{what}, {kind}: event {i} differs");
        }
        assert_eq!(
            reference.len(),
            other.len(),
            "{what}, {kind}: counts differ"
        );
    }
    reference.len()
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn every_broad_phase_gives_the_same_rigid_log() {
    let mut total = 0;
    for seed in 0..3 {
        let w = world(&gas2(24, 10.0, seed), room2(10.0));
        total += same_logs_everywhere(&w, 20.0, &format!("2D seed {seed}"));
        let w = world(&gas3(27, 10.0, seed), room3(10.0));
        total += same_logs_everywhere(&w, 20.0, &format!("3D seed {seed}"));
    }
    assert!(total > 1000, "only {total} events compared");
}

/// The same with static shapes as walls: the gas of `[0, 10]` in a room of 14, with a tilted
/// box, a capsule and a polygon (2D), a box, a cylinder and a cone (3D) in the free strip.
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn every_broad_phase_gives_the_same_rigid_log_with_static_shapes() {
    use kairos::math::DQuat;
    use kairos::wall::StaticShape;
    let placed2 = |shape: Shape<DVec2>, x: f64, y: f64, a: f64| {
        Wall::Shape(
            StaticShape::new(shape, Pose::new(DVec2::new(x, y), Rot2::from_angle(a))).unwrap(),
        )
    };
    let placed3 = |shape: Shape<DVec3>, p: DVec3, a: f64| {
        let q = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), a);
        Wall::Shape(StaticShape::new(shape, Pose::new(p, q)).unwrap())
    };
    let mut total = 0;
    let mut hits = 0;
    let count = |log: &[Vec<u64>], first: u64| {
        // Events on walls from `first` on (a ball-wall event's second id is the wall's).
        log.iter()
            .filter(|row| row[1] == EventKind::BodyWall.code() as u64 && row[3] >= first)
            .count()
    };
    for seed in 0..2 {
        let mut walls = room2(14.0);
        walls.push(placed2(
            Shape::cuboid(DVec2::new(1.0, 0.3)).unwrap(),
            12.0,
            3.0,
            0.4,
        ));
        walls.push(placed2(Shape::capsule(1.0, 0.4).unwrap(), 12.0, 8.0, -0.3));
        walls.push(placed2(
            Shape::convex_polygon(vec![
                DVec2::new(-1.0, -0.8),
                DVec2::new(1.0, -0.5),
                DVec2::new(0.0, 1.0),
            ])
            .unwrap(),
            5.0,
            12.0,
            0.2,
        ));
        let w = world(&gas2(24, 10.0, seed), walls);
        let reference = log(&w, BroadPhaseKind::AllPairs, 40.0);
        hits += count(&reference, 4);
        total += same_logs_everywhere(&w, 40.0, &format!("2D seed {seed}"));
        let mut walls = room3(14.0);
        walls.push(placed3(
            Shape::cuboid(DVec3::new(1.0, 0.4, 0.8)).unwrap(),
            DVec3::new(12.0, 5.0, 5.0),
            0.5,
        ));
        walls.push(placed3(
            Shape::cylinder(0.8, 0.6).unwrap(),
            DVec3::new(5.0, 12.0, 5.0),
            1.0,
        ));
        walls.push(placed3(
            Shape::cone(0.8, 0.7).unwrap(),
            DVec3::new(5.0, 5.0, 12.0),
            -0.7,
        ));
        let w = world(&gas3(27, 10.0, seed), walls);
        let reference = log(&w, BroadPhaseKind::AllPairs, 40.0);
        hits += count(&reference, 6);
        total += same_logs_everywhere(&w, 40.0, &format!("3D seed {seed}"));
    }
    assert!(total > 1000, "only {total} events compared");
    assert!(hits > 10, "only {hits} hits of static shapes");
}

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

/// Runs `scene` to its end, writing its trace (version 3) to a temporary file, and checks
/// after every recorded event that the trace's replay gives every body's position and
/// orientation as the simulation holds them, bit for bit; then reads the file back and checks
/// that its records and replay are the same. Returns the number of records.
fn trace_round_trip<V: Vector>(scene: &Scene, name: &str) -> usize {
    use kairos::math::Rotation as _;
    use kairos::trace::{Record, Replay, TraceHeader, TraceReader, TraceWriter};
    let path = std::env::temp_dir().join(format!("kairos-{name}-{}.ktrace", std::process::id()));
    let header = TraceHeader::for_scene(scene, "calendar");
    assert!(header.rigid && header.version() == 3);
    let mut writer = TraceWriter::create_for_scene(&path, scene, "calendar").unwrap();
    let world: World<V> = scene.world().unwrap();
    let mut sim = Simulation::new(
        world,
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let mut replay = Replay::new(&header);
    assert!(replay.is_rigid());
    let mut records = Vec::new();
    while let Some(e) = sim.step() {
        if e.kind == EventKind::BoxCrossing {
            continue;
        }
        let r = Record::from_event(&e, sim.world(), sim.lookahead());
        writer.write(&r).unwrap();
        replay.apply(&r);
        records.push(r);
        let w = sim.world();
        assert!(
            e.time < 64.0,
            "the test compares local times with absolute ones"
        );
        for i in 0..w.bodies().len() {
            let b = &w.bodies()[i];
            let (rot, omega) = w.rigid()[i].at(e.time - b.time);
            let pos = b.position_at(e.time).to_array3();
            let (rrot, romega) = replay.orientation(i, e.time);
            let rpos = replay.position(i, e.time);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&rrot),
                bits(&rot.to_array4()),
                "body {i} at {}",
                e.time
            );
            assert_eq!(
                bits(&romega),
                bits(&V::angular_to_array3(omega)),
                "body {i}"
            );
            assert_eq!(bits(&rpos), bits(&pos), "body {i} at {}", e.time);
        }
    }
    writer.finish(scene.duration).unwrap();
    let reader = TraceReader::open(&path).unwrap();
    assert_eq!(reader.version(), 3);
    assert_eq!(reader.header(), &header);
    let (read_header, read) = reader.read_all().unwrap();
    assert_eq!(read.len(), records.len());
    for (a, b) in read.iter().zip(&records) {
        assert!(a.same_event(b) && a.dt.to_bits() == b.dt.to_bits());
    }
    assert_eq!(read_header.scene().unwrap().to_toml(), scene.to_toml());
    let mut again = Replay::try_new(&read_header).unwrap();
    for r in &read {
        again.apply(r);
    }
    for i in 0..replay.len() {
        let t = scene.duration;
        assert_eq!(again.orientation(i, t), replay.orientation(i, t));
        assert_eq!(again.position(i, t), replay.position(i, t));
    }
    std::fs::remove_file(&path).unwrap();
    records.len()
}

#[test]
fn rigid_traces_round_trip_and_replay_the_simulation_bit_for_bit() {
    let p = generate::RigidGasParams {
        n: 24,
        duration: 6.0,
        ..Default::default()
    };
    let mut plank = Scene::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenes/spinning-plank.toml"
    )))
    .unwrap();
    plank.duration = 6.0;
    assert!(trace_round_trip::<DVec2>(&plank, "plank") > 5);
    let polygons = generate::polygons(&p).unwrap();
    assert!(trace_round_trip::<DVec2>(&polygons, "polygons") > 20);
    let boxes = generate::boxes(&p).unwrap();
    assert!(trace_round_trip::<DVec3>(&boxes, "boxes") > 20);
    // Bodies of anisotropic inertia: between events they follow the closed-form free
    // rotation, which the replay must compute as the simulation does.
    let tumbling = Scene::from_toml_str(
        r#"
dim = 3
[simulation]
duration = 30.0
[[walls]]
box = { min = [0.0, 0.0, 0.0], max = [6.0, 6.0, 6.0] }
[[bodies]]
shape = "box"
half_extents = [1.0, 0.5, 0.25]
position = [2.0, 2.0, 2.0]
orientation = [0.9, 0.1, 0.3, 0.2]
velocity = [1.5, 0.7, -0.4]
angular_velocity = [0.3, 2.0, 0.1]
[[bodies]]
shape = "box"
half_extents = [0.6, 0.3, 0.2]
position = [4.5, 4.0, 4.0]
velocity = [-1.0, -0.6, 0.9]
angular_velocity = [1.0, 0.2, 1.5]
"#,
    )
    .unwrap();
    let n = trace_round_trip::<DVec3>(&tumbling, "tumbling");
    assert!(n > 10, "{n} events");
}
