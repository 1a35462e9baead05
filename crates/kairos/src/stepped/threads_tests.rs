//! Any count of threads gives the same bits: the stages that run on the pool work on each row
//! or body alone and gather in order.

use super::*;
use crate::generate::{bullet, pyramid, BulletParams, StackParams};
use crate::math::{DVec2, DVec3};

/// Every body's state after `steps` steps of `scene` on `threads` threads, as bits.
fn states<V: Vector>(scene: &crate::scene::Scene, steps: usize, threads: usize) -> Vec<String> {
    let options = StepOptions {
        threads,
        sleep: false,
        ..Default::default()
    };
    let mut sim = SteppedSim::new(scene.world::<V>().unwrap(), options).unwrap();
    sim.split_stages_from(SPLIT_FROM);
    assert_eq!(sim.threads(), threads.max(1));
    for _ in 0..steps {
        sim.step();
    }
    sim.bodies().iter().map(|b| format!("{b:?}")).collect()
}

/// The threshold the tests split the stages from: below [`threads::PARALLEL_FROM`], so that
/// scenes that step in a moment split every stage.
const SPLIT_FROM: usize = 2048;

/// A 2D pyramid of base 64 (2,080 boxes, about 6,000 rows: every stage split) and a 3D
/// pyramid of base 12 (650 boxes, some 4,000 rows) step to the same bits on 1, 2 and 3
/// threads.
#[test]
fn any_count_of_threads_gives_the_same_bits() {
    let p2 = pyramid(&StackParams::default(), 64).unwrap();
    assert!(p2.bodies.len() >= SPLIT_FROM);
    let one = states::<DVec2>(&p2, 12, 1);
    for t in [2, 3] {
        assert!(one == states::<DVec2>(&p2, 12, t), "2D, {t} threads");
    }
    let p3 = pyramid(
        &StackParams {
            dim: 3,
            ..Default::default()
        },
        12,
    )
    .unwrap();
    let one = states::<DVec3>(&p3, 8, 1);
    assert!(one == states::<DVec3>(&p3, 8, 2), "3D, 2 threads");
}

/// The bullet room (fast pairs, impacts within a sub-step through the continuous check) is the
/// same on 1 and 2 threads; its stages are below the pool's threshold, so this is the
/// threshold's own check that small scenes stay on the calling thread's path.
#[test]
fn the_bullet_room_is_the_same_on_two_threads() {
    let scene = bullet(&BulletParams::default()).unwrap();
    let one = states::<DVec2>(&scene, 60, 1);
    assert!(one == states::<DVec2>(&scene, 60, 2));
}

#[test]
fn a_thread_count_beyond_the_most_is_refused() {
    let scene = pyramid(&StackParams::default(), 3).unwrap();
    let options = StepOptions {
        threads: StepOptions::MOST_THREADS + 1,
        ..Default::default()
    };
    let Err(e) = SteppedSim::<DVec2>::new(scene.world().unwrap(), options) else {
        panic!("accepted {} threads", options.threads);
    };
    assert!(e.to_string().contains("threads must be from 0"), "{e}");
}

/// The split runs cover every item once, in order, on any count of threads, at and around the
/// threshold and for counts that do not divide the items.
#[test]
fn the_stages_split_cover_every_item_in_order() {
    for count in [1, 2, 3, 7] {
        let t = threads::Threads::new(count).splitting_from(SPLIT_FROM);
        for n in [0, 1, SPLIT_FROM - 1, SPLIT_FROM, 5003] {
            let mut a = vec![usize::MAX; n];
            let b: Vec<usize> = (0..n).map(|k| 3 * k).collect();
            let sum = t.sum_zip(&mut a, &b, |k, x, y| {
                assert_eq!(*y, 3 * k);
                *x = k;
                k
            });
            assert_eq!(
                sum,
                n * n.saturating_sub(1) / 2,
                "{count} threads, {n} items"
            );
            assert!(a.iter().enumerate().all(|(k, &x)| x == k));
            t.each_mut(&mut a, |k, x| *x += k);
            assert!(a.iter().enumerate().all(|(k, &x)| x == 2 * k));
            let odd = t.filter_zip(&a, &b, |x, y| (x % 4 == 2).then_some(*y));
            let want: Vec<usize> = (0..n).filter(|k| k % 2 == 1).map(|k| 3 * k).collect();
            assert_eq!(odd, want, "{count} threads, {n} items");
        }
    }
}
