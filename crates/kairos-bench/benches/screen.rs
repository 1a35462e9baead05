//! The calendar's periodic screen per candidate: the first pass of `test_periodic` (each
//! candidate's `PairScreen` key and the batch's extremes) over 1,024 candidates of one body in
//! a 3D periodic box, scalar and four at a time (`kairos_hint::screen`, AVX2 where present).
//! Divide by 1,024 for a candidate's cost. `cargo bench -p kairos-bench --bench screen`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use kairos::ball_toi::{PairScreen, ScreenBatch};
use kairos::prelude::*;
use kairos_hint::screen::{screen_keys, Anchor};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const N: usize = 1024;

fn bodies(l: DVec3) -> Vec<Body<DVec3>> {
    let mut rng = Pcg64::seed_from_u64(7);
    (0..=N)
        .map(|_| {
            let mut b = Body::new(
                DVec3::new(
                    rng.gen_range(0.0..l.x),
                    rng.gen_range(0.0..l.y),
                    rng.gen_range(0.0..l.z),
                ),
                DVec3::new(
                    rng.gen_range(-2.0..2.0),
                    rng.gen_range(-2.0..2.0),
                    rng.gen_range(-2.0..2.0),
                ),
                0.5,
                1.0,
            );
            b.time = rng.gen_range(0.0..1.0);
            b
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let l = DVec3::splat(20.0);
    let bs = bodies(l);
    let (bi, cand) = (&bs[0], &bs[1..]);
    let mut keys = vec![0.0; N];
    c.bench_function("screen 1024 candidates, scalar", |b| {
        b.iter(|| {
            let mut batch = ScreenBatch::new();
            for (slot, bj) in keys.iter_mut().zip(cand) {
                let s = PairScreen::new(black_box(bi), bj, l);
                *slot = s.key();
                batch.add(&s);
            }
            black_box(batch.key_bound(1.0))
        })
    });
    let state = |b: &Body<DVec3>| Anchor {
        pos: b.pos.to_array(),
        vel: b.vel.to_array(),
        time: b.time,
        radius: b.radius,
    };
    let simd = screen_keys(3, &state(bi), l.to_array(), |k| state(&cand[k]), &mut keys).is_some();
    let name = if simd {
        "screen 1024 candidates, four at a time (AVX2)"
    } else {
        "screen 1024 candidates, four at a time (no AVX2 here: nothing done)"
    };
    c.bench_function(name, |b| {
        b.iter(|| {
            let e = screen_keys(
                3,
                &state(black_box(bi)),
                l.to_array(),
                |k| state(&cand[k]),
                &mut keys,
            );
            black_box(e)
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
