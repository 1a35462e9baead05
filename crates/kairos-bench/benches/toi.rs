//! Micro-benchmarks of the contact-time functions (the narrow phase).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use kairos::ball_toi::{ball_ball, ball_segment, first_contact};
use kairos::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn bodies(n: usize) -> Vec<Body<DVec2>> {
    let mut rng = Pcg64::seed_from_u64(1);
    (0..n)
        .map(|_| {
            let mut b = Body::new(
                DVec2::new(rng.gen_range(-50.0..50.0), rng.gen_range(-50.0..50.0)),
                DVec2::new(rng.gen_range(-5.0..5.0), rng.gen_range(-5.0..5.0)),
                rng.gen_range(0.5..1.0),
                1.0,
            );
            b.time = rng.gen_range(0.0..1.0);
            b
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let bs = bodies(1024);
    c.bench_function("first_contact approaching", |b| {
        b.iter(|| {
            first_contact(
                black_box(DVec2::new(10.0, 0.5)),
                black_box(DVec2::new(-2.0, 0.1)),
                black_box(2.0),
            )
        })
    });
    c.bench_function("ball_ball 1024 random pairs", |b| {
        b.iter(|| {
            let mut hits = 0u32;
            for k in 0..1024 {
                hits += ball_ball(&bs[k], &bs[(k * 7 + 1) % 1024]).is_hit() as u32;
            }
            hits
        })
    });
    let seg = WallSegment::new(DVec2::new(-60.0, -60.0), DVec2::new(60.0, -60.0)).unwrap();
    c.bench_function("ball_segment 1024 balls", |b| {
        b.iter(|| {
            let mut hits = 0u32;
            for body in &bs {
                hits += ball_segment(body, black_box(&seg)).is_hit() as u32;
            }
            hits
        })
    });
    let bs3: Vec<Body<DVec3>> = bs
        .iter()
        .map(|b| Body {
            pos: b.pos.extend(b.pos.x * 0.5),
            vel: b.vel.extend(-b.vel.y),
            ..Body::new(DVec3::ZERO, DVec3::ZERO, b.radius, 1.0)
        })
        .collect();
    c.bench_function("ball_ball 3D 1024 random pairs", |b| {
        b.iter(|| {
            let mut hits = 0u32;
            for k in 0..1024 {
                hits += ball_ball(&bs3[k], &bs3[(k * 7 + 1) % 1024]).is_hit() as u32;
            }
            hits
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
