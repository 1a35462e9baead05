//! Bodies resting on a floor that the sweeps alone did not hold: a plank of tiny inertia, a box
//! of 10⁻⁸, a sliver, and a stack under gravity 10⁶. Each stays above the floor, no deeper than
//! a small multiple of its slop, and nothing passes through anything.

use super::*;
use crate::math::DVec2;
use crate::query::{penetration, EpaOptions};
use crate::scene::Scene;

/// A 2D scene of `duration` under gravity `g` (along `-y`) with a floor plane through the
/// origin and the `[[bodies]]` of `bodies`.
fn on_floor(g: f64, duration: f64, bodies: &str) -> Scene {
    Scene::from_toml_str(&format!(
        "dim = 2\n[simulation]\nduration = {duration}\ngravity = [0.0, {}]\nfriction = 0.5\n\
         [[walls]]\nplane = {{ point = [0.0, 0.0], normal = [0.0, 1.0] }}\n{bodies}",
        -g
    ))
    .unwrap()
}

/// How deep, relative to its slop, anything is in `sim` now: each body's vertices below the
/// floor, and each pair of bodies' overlap (EPA's depth).
fn deepest_now(sim: &SteppedSim<DVec2>) -> f64 {
    let n = sim.bodies().len();
    let slop_size = |i: usize| sim.world.bodies[i].radius.min(THIN * sim.widths[i]);
    let mut worst: f64 = 0.0;
    for i in 0..n {
        let pose = sim.pose(i);
        for (_, s) in sim.pieces(i) {
            for (v, _) in contacts::shape_points(s, &pose, DVec2::new(0.0, -1.0)) {
                worst = worst.max(-v.y / (SLOP * slop_size(i)));
            }
        }
        for j in i + 1..n {
            let (pj, size) = (sim.pose(j), slop_size(i).min(slop_size(j)));
            for (_, a) in sim.pieces(i) {
                for (_, b) in sim.pieces(j) {
                    let e = penetration(a, &pose, b, &pj, &EpaOptions::default());
                    worst = worst.max(e.depth / (SLOP * size));
                }
            }
        }
    }
    worst
}

/// Runs `scene` at `dt` for its duration at the default options: the deepest anything went
/// (relative to its slop, after any step), and the counts.
fn deepest(scene: &Scene, dt: f64) -> (f64, StepStats, SteppedSim<DVec2>) {
    let options = StepOptions {
        dt,
        ..Default::default()
    };
    let mut sim = SteppedSim::new(scene.world::<DVec2>().unwrap(), options).unwrap();
    let mut worst: f64 = 0.0;
    for _ in 0..(scene.duration / dt).round() as usize {
        sim.step();
        worst = worst.max(deepest_now(&sim));
    }
    (worst, sim.stats(), sim)
}

/// Runs `scene` at `dt = 0.01` and `1/60` and checks that nothing went deeper than `slops` of
/// its slop, that nothing passed through anything, and that the check never stopped a body.
fn holds(scene: &Scene, slops: f64) {
    for dt in [0.01, 1.0 / 60.0] {
        let (worst, stats, sim) = deepest(scene, dt);
        assert!(
            worst <= slops && stats.tunnelled == 0 && stats.ccd_gave_up == 0,
            "dt {dt}: {worst} slops deep, {stats:?}, {:?}",
            sim.bodies()
        );
    }
}

/// A plank of `inertia = 1e-9` on two corners: each corner's push only turned it (a normal
/// impulse of 10⁻¹⁰ where it needed 10⁻², 2.5·10⁻¹⁰ of effective mass a point) and it fell
/// through the floor; its two points are now one block and it rests exactly.
#[test]
fn a_plank_of_tiny_inertia_rests_on_the_floor() {
    let scene = on_floor(
        9.81,
        5.0,
        "[[bodies]]\nshape = \"box\"\nhalf_extents = [2.0, 0.1]\nposition = [10.0, 0.1]\n\
         inertia = 1e-9\n",
    );
    holds(&scene, 1.0);
}

/// A box of half extent 10⁻⁸ falls 6,000 of its sizes in a sub-step at `dt = 0.01`: the sweeps'
/// residual of 0.5% turned it over and through the floor (2·10⁶ rad/s); the sweeps now go on
/// until the points hold to within its slop, its two points a block.
#[test]
fn a_box_of_1e_minus_8_rests_on_the_floor() {
    let scene = on_floor(
        9.81,
        5.0,
        "[[bodies]]\nshape = \"box\"\nhalf_extents = [1e-8, 1e-8]\nposition = [10.0, 1e-8]\n",
    );
    holds(&scene, 1.0);
}

/// A sliver triangle of height 10⁻¹² sank by its slop of 10⁻⁴ of its size (5·10⁻⁵ of a floor
/// unit), its centre behind the floor; its slop is now 1% of its width ([`THIN`]).
#[test]
fn a_sliver_rests_on_the_floor() {
    let scene = on_floor(
        9.81,
        5.0,
        "[[bodies]]\nshape = \"polygon\"\nvertices = [[0.0, 0.0], [1.0, 0.0], [0.5, 1e-12]]\n\
         position = [10.0, 0.0]\n",
    );
    holds(&scene, 1.0);
}

/// A tower of ten boxes under gravity 10⁶ (6 to 17 boxes of fall a sub-step): its first sub-step
/// needs about 600 sweeps, and no box goes deeper than a few slops (measured: 4.1 at
/// `dt = 0.01`, 4.7 at `1/60`; 10⁻⁴ of the size each).
#[test]
fn a_stack_under_gravity_1e6_stands() {
    let scene = crate::generate::stack(
        &crate::generate::StackParams {
            gravity: 1e6,
            duration: 5.0,
            ..Default::default()
        },
        10,
    )
    .unwrap();
    holds(&scene, 10.0);
}
