//! Ellipses and ellipsoids as rigid bodies (`shape = "ellipsoid"`, `half_axes = [...]`): scenes
//! parse them and name their errors; gases of them in a box room give the same event log on
//! every broad phase, keep their energy to round-off and never overlap between events
//! (sampled); the stepped engine lets one settle on a floor without sinking.

use crate::common::{assert_same_log, min_gap, records};

use kairos::math::{DVec2, DVec3, Vector};
use kairos::prelude::*;
use kairos::shape::{Pose, SupportMap};
use kairos::stepped::{StepOptions, SteppedSim};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// A gas of `n` ellipses (2D) or ellipsoids (3D) on a grid in a box room of side 10, with
/// random half axes, orientations, velocities and spins.
fn gas(dim: usize, n: usize, seed: u64) -> Scene {
    let mut rng = Pcg64::seed_from_u64(seed);
    let side = (n as f64).powf(1.0 / dim as f64).ceil() as usize;
    let pitch = 10.0 / side as f64;
    let max = if dim == 2 {
        "[10.0, 10.0]"
    } else {
        "[10.0, 10.0, 10.0]"
    };
    let min = if dim == 2 {
        "[0.0, 0.0]"
    } else {
        "[0.0, 0.0, 0.0]"
    };
    let mut text = format!(
        "dim = {dim}\n[simulation]\nduration = 10.0\n[[walls]]\nbox = {{ min = {min}, max = {max} }}\n"
    );
    let list = |v: Vec<f64>| {
        let s: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
        format!("[{}]", s.join(", "))
    };
    for k in 0..n {
        let cell = [k % side, (k / side) % side, k / (side * side)];
        let pos: Vec<f64> = (0..dim).map(|i| (cell[i] as f64 + 0.5) * pitch).collect();
        let axes: Vec<f64> = (0..dim).map(|_| rng.gen_range(0.1..0.45) * pitch).collect();
        let vel: Vec<f64> = (0..dim).map(|_| rng.gen_range(-2.0..2.0)).collect();
        let (orientation, spin) = if dim == 2 {
            (
                format!("{:?}", rng.gen_range(-3.0..3.0)),
                format!("{:?}", rng.gen_range(-4.0..4.0)),
            )
        } else {
            let q: Vec<f64> = (0..4).map(|_| rng.gen_range(-1.0..1.0)).collect();
            let w: Vec<f64> = (0..3).map(|_| rng.gen_range(-4.0..4.0)).collect();
            (list(q), list(w))
        };
        text += &format!(
            "[[bodies]]\nshape = \"ellipsoid\"\nhalf_axes = {}\nposition = {}\nvelocity = {}\n\
             orientation = {orientation}\nangular_velocity = {spin}\n",
            list(axes),
            list(pos),
            list(vel)
        );
    }
    Scene::from_toml_str(&text).unwrap()
}

fn every_broad_phase_agrees<V: Vector>(scene: &Scene) {
    let reference = records::<V>(scene, BroadPhaseKind::AllPairs, &Default::default());
    assert!(reference.len() > 50, "{}", reference.len());
    for kind in BroadPhaseKind::ALL {
        let log = records::<V>(scene, kind, &Default::default());
        assert_eq!(log.len(), reference.len(), "{kind:?}");
        assert_same_log(&reference, &log, &format!("{kind:?}"));
    }
}

#[test]
fn ellipse_and_ellipsoid_gases_give_one_log_on_every_broad_phase() {
    every_broad_phase_agrees::<DVec2>(&gas(2, 16, 1));
    every_broad_phase_agrees::<DVec3>(&gas(3, 8, 2));
}

fn conserves_and_never_overlaps<V: Vector>(scene: &Scene) {
    let mut sim = Simulation::new(
        scene.world::<V>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let (mut last, mut events, mut worst) = (0.0, 0, f64::INFINITY);
    loop {
        let before = sim.world().clone();
        let Some(e) = sim.step() else { break };
        events += 1;
        for k in 1..=4 {
            let t = last + (e.time - last) * k as f64 / 5.0;
            worst = worst.min(min_gap(&before, t - sim.origin()));
        }
        last = e.time;
    }
    assert!(events > 50, "{events}");
    // The contact tolerance of the predictions is relative 1e-7 of the pair's size.
    assert!(worst > -1e-6, "overlap {worst}");
    assert!(sim.energy_drift().abs() < 1e-9, "{}", sim.energy_drift());
}

#[test]
fn ellipsoid_gases_keep_their_energy_and_never_overlap() {
    conserves_and_never_overlaps::<DVec2>(&gas(2, 16, 3));
    conserves_and_never_overlaps::<DVec3>(&gas(3, 8, 4));
}

/// An ellipsoid dropped on a plane floor under gravity, `orientation` a quaternion.
fn drop_on_floor(orientation: &str, spin: &str) -> SteppedSim<DVec3> {
    let text = format!(
        r#"
dim = 3
[simulation]
duration = 3.0
gravity = [0.0, -9.81, 0.0]
restitution = 0.0
[[walls]]
plane = {{ point = [0.0, 0.0, 0.0], normal = [0.0, 1.0, 0.0] }}
[[bodies]]
shape = "ellipsoid"
half_axes = [1.0, 0.25, 0.6]
position = [0.0, 1.0, 0.0]
orientation = {orientation}
angular_velocity = {spin}
"#
    );
    let scene = Scene::from_toml_str(&text).unwrap();
    SteppedSim::new(scene.world::<DVec3>().unwrap(), StepOptions::default()).unwrap()
}

/// Flat, it settles on its flattest side (the y half axis); tilted and spinning, it rocks and
/// turns (rolling on a curved surface dissipates nothing) but never sinks into the floor, and
/// never gains energy.
#[test]
fn an_ellipsoid_on_the_floor_of_the_stepped_engine_never_sinks() {
    let dt = StepOptions::default().dt;
    let mut flat = drop_on_floor("[1.0, 0.0, 0.0, 0.0]", "[0.0, 0.0, 0.0]");
    for _ in 0..(3.0 / dt) as usize {
        flat.step();
    }
    let y = flat.bodies()[0].position.y;
    assert!((y - 0.25).abs() < 0.005, "rests at height {y}");

    let mut tilted = drop_on_floor("[0.96, 0.2, 0.1, 0.15]", "[0.0, 2.0, 0.0]");
    // The lowest point of the ellipsoid (its centre of mass is its centre).
    let low = |sim: &SteppedSim<DVec3>| {
        let b = &sim.bodies()[0];
        let pose = Pose::new(b.position, b.rotation);
        sim.world().shapes()[0].support(&pose, -DVec3::Y).y
    };
    let start = tilted.energy();
    let (mut lowest, mut most) = (f64::INFINITY, start);
    for _ in 0..(3.0 / dt) as usize {
        tilted.step();
        lowest = lowest.min(low(&tilted));
        most = most.max(tilted.energy());
    }
    assert!(lowest > -0.01, "sank {lowest}");
    assert!(
        most <= start + 0.01 * start.abs(),
        "energy {start} grew to {most}"
    );
    let s = tilted.stats();
    assert_eq!(s.tunnelled + s.tunnelled_wall, 0);
}

#[test]
fn bad_half_axes_name_the_body_and_the_key() {
    for (axes, needle) in [
        ("[1.0, 2.0, 3.0]", "half_axes: expected 2 numbers, got 3"),
        (
            "[1.0, -2.0]",
            "half_axes: half axis must be positive and finite, got -2",
        ),
    ] {
        let text = format!(
            "dim = 2\n[simulation]\nduration = 1.0\n[[walls]]\nbox = {{ min = [0.0, 0.0], max = [10.0, 10.0] }}\n\
             [[bodies]]\nshape = \"ellipsoid\"\nhalf_axes = {axes}\nposition = [5.0, 5.0]\n"
        );
        let e = Scene::from_toml_str(&text).unwrap_err().to_string();
        assert!(e.contains("body 0") && e.contains(needle), "{e}");
    }
    let text = "dim = 2\n[simulation]\nduration = 1.0\n[[bodies]]\nshape = \"ellipsoid\"\nposition = [5.0, 5.0]\n";
    let e = Scene::from_toml_str(text).unwrap_err().to_string();
    assert!(e.contains("half_axes: missing"), "{e}");
    let _ = DVec2::ZERO;
}

#[test]
fn generated_ellipsoid_gases_run_and_bad_parameters_are_refused() {
    use kairos::generate::{ellipsoids, RigidGasParams};
    let p = RigidGasParams {
        n: 27,
        speed: 4.0,
        spin: 4.0,
        duration: 10.0,
        ..Default::default()
    };
    for (dim, aspect) in [(2, 3.0), (3, 2.0), (3, 0.25)] {
        let scene = ellipsoids(&p, dim, aspect).unwrap();
        let again = Scene::from_toml_str(&scene.to_toml()).unwrap();
        assert_eq!(again.to_toml(), scene.to_toml(), "the round trip");
        if dim == 2 {
            conserves_and_never_overlaps::<DVec2>(&scene);
        } else {
            conserves_and_never_overlaps::<DVec3>(&scene);
        }
    }
    for (dim, aspect, needle) in [
        (4, 2.0, "dim must be 2 or 3"),
        (3, 0.0, "aspect must be in [0.01, 100]"),
        (3, f64::NAN, "aspect must be in [0.01, 100]"),
        (3, 1e3, "aspect must be in [0.01, 100]"),
    ] {
        let e = ellipsoids(&p, dim, aspect).unwrap_err().to_string();
        assert!(e.contains(needle), "{e}");
    }
    let concave = RigidGasParams { concave: 0.5, ..p };
    let e = ellipsoids(&concave, 2, 2.0).unwrap_err().to_string();
    assert!(e.contains("concave"), "{e}");
}
