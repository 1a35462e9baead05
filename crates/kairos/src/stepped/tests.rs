use super::*;
use crate::generate::{pyramid, stack, StackParams};
use crate::math::DVec2;

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
            worst = worst.max((b.position - *s).length());
        }
    }
    assert!(worst.is_finite());
    worst
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

#[test]
fn a_pyramid_of_base_twenty_stands_for_ten_seconds() {
    let scene = pyramid(&StackParams::default(), 20).unwrap();
    let worst = largest_move::<DVec2>(&scene, 10.0, StepOptions::default());
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
