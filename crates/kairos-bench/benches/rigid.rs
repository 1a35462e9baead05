//! Rigid bodies in the event loop: events per second against the number of bodies, per broad
//! phase, for a 2D gas of spinning polygons and boxes and a 3D gas of spinning cubes
//! (`generate::polygons`, `generate::boxes`), and the cost of one rotating prediction beside a
//! ball prediction on the same pairs. Results: docs/benchmarks.md.
//!
//! `RIGID_SIZES` (comma-separated body counts, default `100,1000,10000`) bounds the run. The
//! broad phase's construction (the first event) is not timed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use kairos::generate::{boxes, polygons, RigidGasParams};
use kairos::prelude::*;

/// Events per timed iteration.
const EVENTS: u64 = 200;

fn sizes() -> Vec<usize> {
    std::env::var("RIGID_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100, 1000, 10_000])
}

fn scene(dim: usize, n: usize) -> Scene {
    let p = RigidGasParams {
        n,
        seed: 1,
        packing: if dim == 2 { 0.3 } else { 0.15 },
        duration: 1e9,
        ..Default::default()
    };
    if dim == 2 { polygons(&p) } else { boxes(&p) }.expect("valid generator parameters")
}

/// Times `EVENTS` events per iteration of a simulation that goes on across iterations.
fn events<V: Vector>(c: &mut Criterion, dim: usize) {
    let mut group = c.benchmark_group(format!("rigid events {dim}D"));
    group.throughput(Throughput::Elements(EVENTS));
    group.sample_size(10);
    for n in sizes() {
        let scene = scene(dim, n);
        let world = scene.world::<V>().unwrap();
        for kind in [
            BroadPhaseKind::Calendar,
            BroadPhaseKind::KayaBvh,
            BroadPhaseKind::Sap,
            BroadPhaseKind::Grid,
            BroadPhaseKind::AllPairs,
        ] {
            if (kind == BroadPhaseKind::AllPairs && n > 100)
                || (kind == BroadPhaseKind::KayaBvh && n > 1000)
            {
                continue;
            }
            let fresh = || {
                Simulation::new(
                    world.clone(),
                    kind.build(&BroadPhaseOptions::default()),
                    1e9,
                )
            };
            group.bench_function(BenchmarkId::new(kind.to_string(), n), |b| {
                // The first event builds the broad phase (every body predicted once): not timed.
                let mut sim = fresh();
                sim.step();
                b.iter_custom(|iters| {
                    let mut spent = Duration::ZERO;
                    for _ in 0..iters {
                        let start = Instant::now();
                        for _ in 0..EVENTS {
                            if sim.step().is_none() {
                                break;
                            }
                        }
                        spent += start.elapsed();
                    }
                    spent
                })
            });
        }
    }
    group.finish();
}

/// One prediction of each neighbouring pair (centres within four bounding radii) of a 1,000-body
/// gas: the rigid bodies as they are, and the same bodies as balls of their bounding radius.
fn predictions<V: Vector>(c: &mut Criterion, dim: usize) {
    let scene = scene(dim, 1000);
    let rigid = scene.world::<V>().unwrap();
    let mut balls_scene = scene.clone();
    balls_scene.shapes.clear();
    let balls = balls_scene.world::<V>().unwrap();
    let mut pairs = Vec::new();
    for i in 0..rigid.bodies().len() {
        for j in i + 1..rigid.bodies().len() {
            let (a, b) = (&rigid.bodies()[i], &rigid.bodies()[j]);
            if (a.pos - b.pos).length() < 2.0 * (a.radius + b.radius) {
                pairs.push((i as u32, j as u32));
            }
        }
    }
    let mut group = c.benchmark_group(format!("rigid prediction {dim}D"));
    group.throughput(Throughput::Elements(pairs.len() as u64));
    group.bench_function("rotating shapes", |b| {
        b.iter(|| {
            let mut hits = 0u32;
            for &(i, j) in &pairs {
                hits += rigid.predict_pair(black_box(i), j).is_hit() as u32;
            }
            hits
        })
    });
    group.bench_function("balls", |b| {
        b.iter(|| {
            let mut hits = 0u32;
            for &(i, j) in &pairs {
                hits += balls.predict_pair(black_box(i), j).is_hit() as u32;
            }
            hits
        })
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    predictions::<DVec2>(c, 2);
    predictions::<DVec3>(c, 3);
    events::<DVec2>(c, 2);
    events::<DVec3>(c, 3);
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
