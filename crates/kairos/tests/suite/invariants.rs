//! Physical invariants over long elastic runs: energy, momentum, no overlap; and determinism.

use crate::common;

use kairos::event::EventKind;
use kairos::generate::{billiard, BilliardParams};
use kairos::prelude::*;

#[test]
fn conservation_and_no_overlap_over_1e5_events() {
    let scene = billiard(&BilliardParams {
        n: 128,
        seed: 3,
        duration: 200.0,
        ..Default::default()
    })
    .unwrap();
    let masses: Vec<f64> = scene.bodies.iter().map(|b| b.mass).collect();
    let world = scene.world::<DVec2>().unwrap();
    let e0 = world.kinetic_energy();
    let mut sim = Simulation::new(
        world,
        BroadPhaseKind::KayaBvh.build(&BroadPhaseOptions::default()),
        scene.duration,
    );
    let mut vel: Vec<DVec2> = sim.world().bodies().iter().map(|b| b.vel).collect();
    let (mut max_overlap, mut max_momentum_err, mut max_energy_err) = (0.0f64, 0.0f64, 0.0f64);
    let mut events = 0u64;
    while events < 100_000 {
        let Some(e) = sim.step() else { break };
        events += 1;
        let w = sim.world();
        // Bodies' states are in local time, counted from the simulation's time origin.
        let t = e.time - sim.origin();
        let involved: &[u32] = match e.kind {
            EventKind::BodyBody => &[e.a, e.b],
            EventKind::BodyWall | EventKind::BoxCrossing | EventKind::Resume | EventKind::State => {
                &[e.a]
            }
        };
        // Involved bodies against every other body and every wall, at the event time.
        for &i in involved {
            let bi = &w.bodies()[i as usize];
            for (j, bj) in w.bodies().iter().enumerate() {
                if j as u32 != i {
                    let sigma = bi.radius + bj.radius;
                    let d = (bi.position_at(t) - bj.position_at(t)).length();
                    max_overlap = max_overlap.max((sigma - d) / sigma);
                }
            }
            for wall in w.walls() {
                max_overlap = max_overlap.max((bi.radius - wall.distance(bi.pos)) / bi.radius);
            }
        }
        if e.kind == EventKind::BodyBody {
            let (a, b) = (e.a as usize, e.b as usize);
            let before = vel[a] * masses[a] + vel[b] * masses[b];
            let after = w.bodies()[a].vel * masses[a] + w.bodies()[b].vel * masses[b];
            let scale = (vel[a] * masses[a]).length() + (vel[b] * masses[b]).length();
            max_momentum_err = max_momentum_err.max((after - before).length() / scale);
            let ke = |v: DVec2, m: f64| 0.5 * m * v.length_squared();
            let eb = ke(vel[a], masses[a]) + ke(vel[b], masses[b]);
            let ea = ke(w.bodies()[a].vel, masses[a]) + ke(w.bodies()[b].vel, masses[b]);
            max_energy_err = max_energy_err.max((ea - eb).abs() / eb);
        }
        for &i in involved {
            vel[i as usize] = w.bodies()[i as usize].vel;
        }
        // Every 5000 events, all pairs at the current time.
        if events % 5000 == 0 {
            for (i, bi) in w.bodies().iter().enumerate() {
                for bj in &w.bodies()[i + 1..] {
                    let sigma = bi.radius + bj.radius;
                    let d = (bi.position_at(t) - bj.position_at(t)).length();
                    max_overlap = max_overlap.max((sigma - d) / sigma);
                }
            }
        }
    }
    assert_eq!(events, 100_000);
    let drift = (sim.world().kinetic_energy() - e0) / e0;
    println!("drift {drift:e}, overlap {max_overlap:e}, momentum {max_momentum_err:e}, pair energy {max_energy_err:e}");
    assert!(drift.abs() < 1e-11, "energy drift {drift:e}");
    assert!(max_overlap < 1e-12, "overlap {max_overlap:e}");
    assert!(
        max_momentum_err < 1e-14,
        "momentum error {max_momentum_err:e}"
    );
    assert!(
        max_energy_err < 1e-14,
        "per-collision energy error {max_energy_err:e}"
    );
}

/// The event log of a fixed scene hashes to a constant (same for every broad phase); a change
/// of this constant means the simulator's results changed.
#[test]
fn determinism_hash() {
    const EXPECTED: u64 = 0x91e9_bbed_e240_bb25;
    let scene = billiard(&BilliardParams {
        n: 64,
        seed: 42,
        ..Default::default()
    })
    .unwrap();
    assert_every_broad_phase_hashes_to::<DVec2>(&scene, EXPECTED);
}

/// A dense 3D periodic gas: total momentum and energy stay at round-off and no pair overlaps
/// (minimum-image distances) over 1e5 collisions.
#[test]
fn periodic_gas_conservation() {
    use kairos::generate::{gas_bodies, GasParams};
    let p = GasParams {
        dim: 3,
        n: 500,
        packing: 0.45,
        polydispersity: 0.1,
        seed: 11,
        ..Default::default()
    };
    let (l, bodies) = gas_bodies::<DVec3>(&p).unwrap();
    let world = World::builder(bodies, Vec::new())
        .period(l)
        .build()
        .unwrap();
    let e0 = world.kinetic_energy();
    let p0 = world.momentum();
    let scale: f64 = world
        .bodies()
        .iter()
        .map(|b| b.vel.length() * b.mass())
        .sum();
    let mut sim = Simulation::new(
        world,
        BroadPhaseKind::Calendar.build(&BroadPhaseOptions::default()),
        1e6,
    );
    let mut max_overlap = 0.0f64;
    for k in 1..=100_000u64 {
        let e = sim.step().expect("a dense gas keeps colliding");
        if k % 20_000 == 0 {
            let w = sim.world();
            for (i, bi) in w.bodies().iter().enumerate() {
                for bj in &w.bodies()[i + 1..] {
                    let d = w
                        .separation(bi.position_at(e.time), bj.position_at(e.time))
                        .length();
                    let sigma = bi.radius + bj.radius;
                    max_overlap = max_overlap.max((sigma - d) / sigma);
                }
            }
        }
    }
    let w = sim.world();
    let drift = (w.kinetic_energy() - e0) / e0;
    let dp = (w.momentum() - p0).length() / scale;
    println!(
        "periodic: drift {drift:e}, momentum {dp:e}, overlap {max_overlap:e}, crossings {}",
        sim.counts().box_crossings
    );
    assert!(drift.abs() < 1e-11, "energy drift {drift:e}");
    assert!(dp < 1e-12, "momentum drift {dp:e}");
    assert!(max_overlap < 1e-12, "overlap {max_overlap:e}");
    assert!(sim.counts().box_crossings > 100);
}

/// The 3D counterpart of `determinism_hash`: a cube billiard's log hashes to a constant for
/// every broad phase.
#[test]
fn determinism_hash_3d() {
    const EXPECTED: u64 = 0xf8fe_9342_ead0_206e;
    let scene = billiard(&BilliardParams {
        dim: 3,
        n: 64,
        seed: 42,
        duration: 2.0,
        ..Default::default()
    })
    .unwrap();
    assert_every_broad_phase_hashes_to::<DVec3>(&scene, EXPECTED);
}

fn assert_every_broad_phase_hashes_to<V: Vector>(scene: &Scene, expected: u64) {
    for kind in BroadPhaseKind::ALL {
        let log = common::records::<V>(scene, kind, &BroadPhaseOptions::default());
        let h = common::log_hash(&log);
        assert_eq!(h, expected, "{kind}: {} events, hash {h:#018x}", log.len());
    }
}

/// Long runs: the time origin moves every `EPOCH` of simulated time, so contact overlaps and
/// energy stay at round-off long after absolute times would have eaten the digits.
#[test]
fn long_run_keeps_round_off_accuracy() {
    use kairos::generate::{gas_bodies, GasParams};
    let p = GasParams {
        dim: 2,
        n: 100,
        packing: 0.3,
        seed: 4,
        ..Default::default()
    };
    let (l, bodies) = gas_bodies::<DVec2>(&p).unwrap();
    let world = World::builder(bodies, Vec::new())
        .period(l)
        .build()
        .unwrap();
    let e0 = world.kinetic_energy();
    let end = 20_000.0;
    let mut sim = Simulation::new(
        world,
        BroadPhaseKind::Calendar.build(&BroadPhaseOptions::default()),
        end,
    );
    let (mut max_overlap, mut last_time, mut n) = (0.0f64, 0.0f64, 0u64);
    while let Some(e) = sim.step() {
        assert!(
            e.time >= last_time,
            "time went back: {} after {last_time}",
            e.time
        );
        last_time = e.time;
        max_overlap = max_overlap.max(sim.last_overlap());
        n += 1;
    }
    sim.finish();
    let drift = (sim.world().kinetic_energy() - e0) / e0;
    println!("long run: {n} collisions to t = {last_time}, origin {}, overlap {max_overlap:e}, drift {drift:e}", sim.origin());
    assert!(last_time > 0.99 * end && sim.origin() > 0.99 * end - kairos::sim::EPOCH);
    assert!(n > 1_000_000, "{n}");
    assert!(max_overlap < 1e-12, "overlap {max_overlap:e}");
    // Round-off accumulates at most linearly: one unit of 1e-16 per collision.
    assert!(
        drift.abs() < 1e-16 * n as f64,
        "energy drift {drift:e} over {n} collisions"
    );
}

/// Moves of the time origin happen at the same events whatever the broad phase.
#[test]
fn origin_moves_keep_logs_identical() {
    use kairos::generate::{gas, GasParams};
    let scene = gas(&GasParams {
        dim: 2,
        n: 40,
        packing: 0.3,
        seed: 8,
        duration: 300.0,
        ..Default::default()
    })
    .unwrap();
    let reference = common::records::<DVec2>(
        &scene,
        BroadPhaseKind::AllPairs,
        &BroadPhaseOptions::default(),
    );
    assert!(reference.last().unwrap().time > 4.0 * kairos::sim::EPOCH);
    for kind in BroadPhaseKind::ALL {
        let log = common::records::<DVec2>(&scene, kind, &BroadPhaseOptions::default());
        common::assert_same_log(&reference, &log, kind.name());
    }
}
