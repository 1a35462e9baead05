//! Static convex shapes as walls.

use kairos::prelude::*;

#[test]
fn debug_scene() {
    let scene = Scene::from_toml_str(&std::fs::read_to_string("/tmp/sw/s2.toml").unwrap()).unwrap();
    let w = scene.world::<DVec2>();
    let mut sim = Simulation::new(w, BroadPhaseKind::AllPairs.build(&Default::default()), 5.0);
    for _ in 0..12 {
        let Some(e) = sim.step() else { break };
        let b = &sim.world().bodies[e.a as usize];
        println!(
            "{e:?} pos {:?} vel {:?} w {:?}",
            b.pos,
            b.vel,
            sim.world().rigid[e.a as usize].angular_velocity
        );
    }
}
