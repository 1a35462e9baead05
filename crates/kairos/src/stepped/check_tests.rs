//! The continuous check between impacts: a time of impact kept while the pair's bodies keep
//! their motion, and a pair left quiet at an instant asked again before it can swing into a new
//! contact.

use super::*;
use crate::math::DVec2;

/// The `drop` scene (100 balls, 100 boxes) cold (`warm_start: false`) for 4 s at `dt = 1/60`:
/// the sweeps hold few of the pile's pairs, so the check resolves some 70,000 impacts. Each
/// pair's time of impact is asked again only when an impact changed one of its bodies: about
/// 90 asked an impact, where every watched pair was asked again after every impact (935 to
/// 1,106 an impact, 57 to 60 M in all). Nothing passes through anything (two pairs did).
#[test]
fn the_check_asks_again_only_the_pairs_an_impact_changed() {
    let scene = crate::generate::drop(&crate::generate::DropParams {
        duration: 4.0,
        ..Default::default()
    })
    .unwrap()
    .with_rigid_balls()
    .unwrap();
    let options = StepOptions {
        warm_start: false,
        count_tunnelled: true,
        ..Default::default()
    };
    let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
    for _ in 0..(4.0 / options.dt).round() as usize {
        sim.step();
    }
    let s = sim.stats();
    assert!(s.ccd_impacts > 10_000, "{s:?}");
    assert!(s.ccd_queries < 300 * s.ccd_impacts, "{s:?}");
    assert_eq!(s.tunnelled, 0, "{s:?}");
}

/// The `bullet` room at 10⁵ and 10⁶ units/s at `dt = 0.001` under soft contacts, at one and four
/// sweeps: no body leaves the room, and none passes through anything. A plank spinning at
/// 10⁵ rad/s left the floor by one corner (an impact with no impulse, left quiet at its
/// instant) and, before the pair was asked again, swung its other corner through the floor
/// (out at 10⁶ with four sweeps, and at 10⁵ with one).
#[test]
fn a_pair_left_quiet_is_asked_again_before_it_can_swing_through() {
    for speed in [1e5, 1e6] {
        let scene = crate::generate::bullet(&crate::generate::BulletParams {
            speed,
            ..Default::default()
        })
        .unwrap();
        for iterations in [1, 4] {
            let options = StepOptions {
                dt: 0.001,
                correction: Correction::Soft,
                iterations,
                ..Default::default()
            };
            let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
            for step in 0..2000 {
                sim.step();
                for (i, b) in sim.bodies().iter().enumerate() {
                    let p = b.position;
                    assert!(
                        (0.0..=40.0).contains(&p.x) && (0.0..=20.0).contains(&p.y),
                        "{speed} x {iterations}: step {step}: body {i} left the room at {p}"
                    );
                }
            }
            assert_eq!(sim.stats().tunnelled, 0, "{speed} x {iterations}");
        }
    }
}
