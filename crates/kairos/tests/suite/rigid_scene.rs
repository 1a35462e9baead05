//! Scenes with rigid bodies (`shape = ...` in `[[bodies]]`): parsing, the round trip through
//! `Scene::to_toml`, mass, inertia and density, the exact overlap checks (bodies whose bounding
//! circles overlap but whose shapes are apart are accepted), each error naming the body, and a
//! short run on every broad phase.

use kairos::math::{DMat3, DVec2, DVec3};
use kairos::prelude::*;
use kairos::scene::{Item, SceneError};
use kairos::shape::Shape;

/// A 2D room `[0, 10]²` of four segments and `bodies`, TOML `[[bodies]]` items.
fn room2(bodies: &str) -> String {
    format!(
        r#"
dim = 2
[simulation]
duration = 10.0
[[walls]]
box = {{ min = [0.0, 0.0], max = [10.0, 10.0] }}
{bodies}
"#
    )
}

/// A 3D room `[0, 10]³` (one `box` item) and `bodies`.
fn room3(bodies: &str) -> String {
    format!(
        r#"
dim = 3
[simulation]
duration = 2.0
[[walls]]
box = {{ min = [0.0, 0.0, 0.0], max = [10.0, 10.0, 10.0] }}
{bodies}
"#
    )
}

fn err(text: &str) -> (Item, String) {
    match Scene::from_toml_str(text).expect_err("scene should be rejected") {
        SceneError::Invalid { item, message } => (item, message),
        e => panic!("not an item error: {e}"),
    }
}

/// Body `i`'s error message, checking that it names body `i` and contains `needle`.
fn body_err(text: &str, i: usize, needle: &str) -> String {
    let (item, message) = err(text);
    assert_eq!(item, Item::Body(i), "{message}");
    assert!(message.contains(needle), "`{needle}` not in: {message}");
    message
}

const PLANK_AND_BOX: &str = r#"
[[bodies]]
shape = "box"
half_extents = [2.0, 0.1]
position = [5.0, 5.0]
orientation = 0.3
velocity = [0.5, 0.0]
angular_velocity = 1.0

[[bodies]]
shape = "polygon"
vertices = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
position = [1.0, 1.0]
velocity = [1.0, 2.0]
density = 2.5

[[bodies]]
position = [8.0, 8.0]
velocity = [-1.0, 0.0]
radius = 0.5
mass = 2.0
"#;

#[test]
fn a_rigid_scene_parses_and_round_trips() {
    let scene = Scene::from_toml_str(&room2(PLANK_AND_BOX)).unwrap();
    assert!(scene.has_rigid_bodies());
    assert_eq!(scene.shapes.len(), 3);
    assert!(scene.is_rigid(0) && scene.is_rigid(1) && !scene.is_rigid(2));
    // The ball without `shape` is exactly as written.
    assert_eq!(scene.bodies[2].radius, 0.5);
    assert_eq!(scene.bodies[2].mass, 2.0);
    let again = Scene::from_toml_str(&scene.to_toml()).unwrap();
    assert_eq!(again, scene);
    assert_eq!(again.to_toml(), scene.to_toml());
}

#[test]
fn a_ball_scene_is_unchanged() {
    let text = room2(
        "[[bodies]]\nposition = [1.0, 1.0]\nvelocity = [1.0, 0.0]\nradius = 0.5\n\
         [[bodies]]\nposition = [5.0, 5.0]\nvelocity = [0.0, 0.0]\nradius = 0.5\n",
    );
    let scene = Scene::from_toml_str(&text).unwrap();
    assert!(scene.shapes.is_empty() && !scene.has_rigid_bodies());
    let world = scene.world::<DVec2>().unwrap();
    assert!(world.rigid().is_empty());
    assert_eq!(world.bodies()[0].radius, 0.5);
    assert!(!scene.to_toml().contains("shape"));
}

#[test]
fn the_world_is_rigid_with_one_state_per_body() {
    let scene = Scene::from_toml_str(&room2(PLANK_AND_BOX)).unwrap();
    let world = scene.world::<DVec2>().unwrap();
    assert_eq!(world.rigid().len(), 3);
    assert_eq!(world.shapes().len(), 3);
    assert!(matches!(world.shapes()[2], Shape::Ball(_)));
    assert_eq!(world.bodies()[2].mass(), 2.0);
    assert_eq!(world.rigid()[0].angular_velocity, 1.0);
    // The 64-byte bodies hold the centre of mass, its velocity, the grown bounding radius and
    // the mass: the world's bodies.
    // (A ball without `shape` keeps its radius in the scene; the world grows its sphere.)
    for (i, (b, w)) in scene.bodies.iter().zip(world.bodies()).enumerate() {
        assert_eq!(&b.position[..2], &w.pos.to_array()[..]);
        assert_eq!(&b.velocity[..2], &w.vel.to_array()[..]);
        assert!(b.radius == w.radius || !scene.is_rigid(i));
        assert!((b.mass - w.mass()).abs() <= 1e-15 * b.mass);
    }
}

#[test]
fn position_places_the_local_origin_and_the_centre_of_mass_follows() {
    // A triangle's centre of mass is its centroid, (1/3, 1/3) in its own coordinates.
    let scene = Scene::from_toml_str(&room2(
        "[[bodies]]\nshape = \"triangle\"\na = [0.0, 0.0]\nb = [3.0, 0.0]\nc = [0.0, 3.0]\n\
         position = [2.0, 2.0]\n",
    ))
    .unwrap();
    let p = scene.bodies[0].position;
    assert!(
        (p[0] - 3.0).abs() < 1e-12 && (p[1] - 3.0).abs() < 1e-12,
        "{p:?}"
    );
    // A centred box: the position is the centre of mass.
    let scene = Scene::from_toml_str(&room2(
        "[[bodies]]\nshape = \"box\"\nhalf_extents = [1.0, 0.5]\nposition = [4.0, 3.0]\n\
         orientation = 1.0\n",
    ))
    .unwrap();
    assert_eq!(scene.bodies[0].position, [4.0, 3.0, 0.0]);
    let r = scene.bodies[0].radius;
    assert!(r > 1.25f64.sqrt() && r < 1.25f64.sqrt() * (1.0 + 2e-6));
}

#[test]
fn density_mass_and_inertia() {
    let body = |extra: &str| {
        let text = room2(&format!(
            "[[bodies]]\nshape = \"box\"\nhalf_extents = [2.0, 1.0]\nposition = [5.0, 5.0]\n{extra}"
        ));
        let scene = Scene::from_toml_str(&text).unwrap();
        let world = scene.world::<DVec2>().unwrap();
        (scene.bodies[0].mass, world.rigid()[0].inertia)
    };
    // 4 x 2 at density 1: mass 8, inertia m (w² + h²) / 12.
    let (m, i) = body("");
    assert_eq!(m, 8.0);
    assert!((i - 8.0 * 20.0 / 12.0).abs() < 1e-12);
    let (m, i) = body("density = 2.0\n");
    assert_eq!(m, 16.0);
    assert!((i - 16.0 * 20.0 / 12.0).abs() < 1e-12);
    // A mass scales the shape's mass properties to it.
    let (m, i) = body("mass = 3.0\n");
    assert_eq!(m, 3.0);
    assert!((i - 3.0 * 20.0 / 12.0).abs() < 1e-12);
    // An inertia replaces the shape's.
    let (m, i) = body("mass = 3.0\ninertia = 7.0\n");
    assert_eq!((m, i), (3.0, 7.0));

    let body3 = |extra: &str| {
        let text = room3(&format!(
            "[[bodies]]\nshape = \"box\"\nhalf_extents = [1.0, 1.0, 1.0]\n\
             position = [5.0, 5.0, 5.0]\nangular_velocity = [0.0, 1.0, 0.0]\n{extra}"
        ));
        let scene = Scene::from_toml_str(&text).unwrap();
        scene.world::<DVec3>().unwrap().rigid()[0].inertia
    };
    // A cube of side 2: mass 8, inertia m (4 + 4) / 12 on each axis.
    let i = body3("");
    assert!((i - DMat3::from_diagonal(DVec3::splat(16.0 / 3.0))).abs_diff_eq(DMat3::ZERO, 1e-12));
    assert_eq!(
        body3("inertia = [1.0, 2.0, 2.5]\n"),
        DMat3::from_diagonal(DVec3::new(1.0, 2.0, 2.5))
    );
    assert_eq!(
        body3("inertia = [[2.0, 0.5, 0.0], [0.5, 2.0, 0.0], [0.0, 0.0, 3.0]]\n"),
        DMat3::from_cols_array_2d(&[[2.0, 0.5, 0.0], [0.5, 2.0, 0.0], [0.0, 0.0, 3.0]])
    );
}

#[test]
fn bodies_whose_bounding_circles_overlap_but_are_apart_are_accepted() {
    // Two parallel planks 0.3 apart: their bounding circles (radius about 2) overlap.
    let planks = |angle: f64| {
        room2(&format!(
            "[[bodies]]\nshape = \"box\"\nhalf_extents = [2.0, 0.1]\nposition = [5.0, 5.0]\n\
             [[bodies]]\nshape = \"box\"\nhalf_extents = [2.0, 0.1]\nposition = [5.0, 5.5]\n\
             orientation = {angle:?}\n"
        ))
    };
    let scene = Scene::from_toml_str(&planks(0.0)).unwrap();
    assert!(scene.bodies[0].radius + scene.bodies[1].radius > 0.5);
    // Turned, the second plank cuts the first.
    let message = body_err(&planks(0.5), 0, "overlaps body 1");
    assert!(message.contains("shapes intersect"), "{message}");
    // Touching is allowed.
    let touching = room2(
        "[[bodies]]\nshape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [3.0, 3.0]\n\
         [[bodies]]\nshape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [5.0, 3.0]\n",
    );
    Scene::from_toml_str(&touching).unwrap();
    // A rigid ball and a ball without shape, apart by less than the bounding margin.
    let balls = room2(
        "[[bodies]]\nshape = \"ball\"\nradius = 1.0\nposition = [3.0, 3.0]\n\
         [[bodies]]\nposition = [5.0, 3.0]\nvelocity = [0.0, 0.0]\nradius = 1.0\n",
    );
    Scene::from_toml_str(&balls).unwrap();
}

#[test]
fn walls_are_checked_against_the_shapes() {
    // A plank along a wall, 0.05 from it: its bounding circle crosses the wall, it does not.
    let near =
        room2("[[bodies]]\nshape = \"box\"\nhalf_extents = [2.0, 0.1]\nposition = [5.0, 0.15]\n");
    Scene::from_toml_str(&near).unwrap();
    // Turned, a corner goes through.
    let through = room2(
        "[[bodies]]\nshape = \"box\"\nhalf_extents = [2.0, 0.1]\nposition = [5.0, 0.15]\n\
         orientation = 0.2\n",
    );
    body_err(&through, 0, "crosses wall 2 (of item 0)");
    // Against a plane: the shape's support point.
    let plane = |y: f64| {
        format!(
            "dim = 2\n[simulation]\nduration = 1.0\n[[walls]]\n\
             plane = {{ point = [0.0, 0.0], normal = [0.0, 1.0] }}\n\
             [[bodies]]\nshape = \"box\"\nhalf_extents = [2.0, 0.1]\nposition = [0.0, {y:?}]\n\
             orientation = 0.1\n"
        )
    };
    Scene::from_toml_str(&plane(0.4)).unwrap();
    body_err(&plane(0.2), 0, "crosses wall 0");
    // 3D: a cube in a box room, turned so that a corner pokes through the floor.
    let cube = |z: f64| {
        room3(&format!(
            "[[bodies]]\nshape = \"box\"\nhalf_extents = [1.0, 1.0, 1.0]\n\
             position = [5.0, 5.0, {z:?}]\norientation = [0.9238795325112867, 0.3826834323650898, 0.0, 0.0]\n"
        ))
    };
    Scene::from_toml_str(&cube(1.5)).unwrap();
    body_err(&cube(1.2), 0, "crosses wall 4 (of item 0)");
}

#[test]
fn shape_errors_name_the_body_and_the_key() {
    let one = |body: &str| room2(&format!("[[bodies]]\nposition = [5.0, 5.0]\n{body}"));
    body_err(&one("shape = \"blob\"\n"), 0, "unknown shape `blob`");
    body_err(&one("shape = \"box\"\n"), 0, "half_extents: missing");
    body_err(
        &one("shape = \"box\"\nhalf_extents = [1.0, 1.0, 1.0]\n"),
        0,
        "half_extents: expected 2 numbers, got 3",
    );
    body_err(
        &one("shape = \"box\"\nhalf_extents = [1.0, 1.0]\nradius = 1.0\n"),
        0,
        "radius: not a field of a box",
    );
    body_err(
        &one("shape = \"box\"\nhalf_extents = [1.0, 1.0]\ncolour = 1\n"),
        0,
        "colour: unknown field",
    );
    body_err(
        &one("shape = \"cone\"\nhalf_height = 1.0\nradius = 1.0\n"),
        0,
        "shape: ",
    );
    // A segment encloses no area: no mass.
    body_err(
        &one("shape = \"segment\"\na = [0.0, 0.0]\nb = [1.0, 0.0]\n"),
        0,
        "shape: ",
    );
    body_err(
        &one("shape = \"box\"\nhalf_extents = [1.0, 1.0]\ndensity = 1.0\nmass = 1.0\n"),
        0,
        "give `density` or `mass`, not both",
    );
    body_err(
        &one("shape = \"box\"\nhalf_extents = [1.0, 1.0]\ndensity = 0.0\n"),
        0,
        "`density` must be positive",
    );
    body_err(
        &one("shape = \"box\"\nhalf_extents = [1.0, 1.0]\nmass = -1.0\n"),
        0,
        "`mass` must be positive",
    );
    body_err(
        &one("shape = \"box\"\nhalf_extents = [1.0, 1.0]\ninertia = -1.0\n"),
        0,
        "inertia: ",
    );
    body_err(
        &one("shape = \"box\"\nhalf_extents = [1.0, 1.0]\ninertia = [1.0]\n"),
        0,
        "inertia: a 2D inertia is one number",
    );
    // Keys of a rigid body on a ball without `shape`.
    body_err(
        &one("velocity = [0.0, 0.0]\nradius = 1.0\norientation = 0.5\n"),
        0,
        "`orientation` is a key of a rigid body, which needs `shape",
    );
    // The second body is the one named.
    let second = room2(
        "[[bodies]]\nshape = \"ball\"\nradius = 1.0\nposition = [3.0, 3.0]\n\
         [[bodies]]\nshape = \"box\"\nhalf_extents = [1.0, 0.0]\nposition = [7.0, 7.0]\n",
    );
    body_err(&second, 1, "half_extents");

    let one3 = |body: &str| {
        room3(&format!("[[bodies]]\nposition = [5.0, 5.0, 5.0]\nshape = \"box\"\nhalf_extents = [1.0, 1.0, 1.0]\n{body}"))
    };
    body_err(
        &one3("inertia = [1.0, 2.0]\n"),
        0,
        "inertia: expected 3 numbers",
    );
    body_err(
        &one3("inertia = [[2.0, 0.5, 0.0], [0.4, 2.0, 0.0], [0.0, 0.0, 3.0]]\n"),
        0,
        "inertia: must be symmetric",
    );
    body_err(
        &one3("inertia = [1.0, -2.0, 1.0]\n"),
        0,
        "inertia: the inertia must be positive definite",
    );
    // Principal moments no mass distribution has: the largest exceeds the sum of the others,
    // given as a diagonal and as the same tensor turned by 45° about z.
    body_err(
        &one3("inertia = [1.0, 1.0, 10.0]\n"),
        0,
        "inertia: the principal moments 1, 1 and 10 are not a body's",
    );
    body_err(
        &one3("inertia = [[5.5, 4.5, 0.0], [4.5, 5.5, 0.0], [0.0, 0.0, 1.0]]\n"),
        0,
        "inertia: the principal moments 1, 1 and 10 are not a body's",
    );
    body_err(
        &one3(
            "[[bodies]]\nposition = [2.0, 2.0, 2.0]\nshape = \"ball\"\nradius = 0.5\n\
                        inertia = [3.0, 1.0, 1.5]\n",
        ),
        1,
        "inertia: the principal moments 1, 1.5 and 3 are not a body's",
    );
    // Moments that six digits would round to a body's are shown in full.
    body_err(
        &one3("inertia = [1.0, 1.0, 2.0000001]\n"),
        0,
        "inertia: the principal moments 1, 1 and 2.0000001 are not a body's",
    );
    body_err(
        &one3("orientation = [0.0, 0.0, 0.0, 0.0]\n"),
        0,
        "orientation",
    );
}

/// Every mass distribution's principal moments satisfy the triangle inequality
/// (`I_x + I_y − I_z = 2 ∫ z² dm ≥ 0`): the library refuses a tensor that breaks it and accepts
/// the flat limit (a plate: `I_z = I_x + I_y`). A 2D body's one moment is any positive number.
#[test]
fn the_library_refuses_principal_moments_no_body_has() {
    use kairos::math::{DQuat, Vector};
    use kairos::rigid::{RigidError, RigidState};
    use kairos::shape::MassProperties;
    let cube = [Shape::<DVec3>::cuboid(DVec3::ONE).unwrap()];
    let state = |inertia: DMat3| {
        let props = MassProperties {
            mass: 1.0,
            centre_of_mass: DVec3::ZERO,
            inertia,
        };
        RigidState::of_pieces(0, &cube, &props, DQuat::IDENTITY, DVec3::ZERO)
    };
    let turned = |d: DVec3| {
        let r = DMat3::from_quat(DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1));
        r * DMat3::from_diagonal(d) * r.transpose()
    };
    for d in [
        DVec3::new(1.0, 1.0, 10.0),
        DVec3::new(1.0, 2.0, 3.1),
        DVec3::new(5.0, 1.0, 1.0),
    ] {
        assert_eq!(
            state(DMat3::from_diagonal(d)).unwrap_err(),
            RigidError::Inertia,
            "{d}"
        );
        assert_eq!(state(turned(d)).unwrap_err(), RigidError::Inertia, "{d}");
        assert!(DVec3::inertia_inverse(turned(d)).is_none(), "{d}");
    }
    for d in [
        DVec3::new(1.0, 1.0, 2.0),
        DVec3::new(1.0, 2.0, 3.0),
        DVec3::new(2.0, 3.0, 4.0),
    ] {
        assert!(state(DMat3::from_diagonal(d)).is_ok(), "{d}");
        assert!(state(turned(d)).is_ok(), "{d}");
    }
    assert!(DVec2::inertia_inverse(1e-3).is_some() && DVec2::inertia_inverse(1e3).is_some());
}

#[test]
fn a_periodic_box_refuses_rigid_bodies() {
    let text = "dim = 2\n[simulation]\nduration = 1.0\n[boundary]\nperiodic = [20.0, 20.0]\n\
                [[bodies]]\nshape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [5.0, 5.0]\n";
    body_err(text, 0, "not supported in a periodic box yet");
}

#[test]
fn a_bodies_file_scene_refuses_rigid_bodies() {
    let text = "dim = 2\nbodies_file = \"gas.xyz\"\n[simulation]\nduration = 1.0\n\
                [[bodies]]\nposition = [1.0, 1.0]\nvelocity = [0.0, 0.0]\nradius = 0.5\n\
                [[bodies]]\nshape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [5.0, 5.0]\n";
    let message = body_err(text, 1, "not supported in a scene with a `bodies_file`");
    assert!(message.contains("gas.xyz"), "{message}");
    // Writing one is refused too.
    let scene = Scene::from_toml_str(&room2(PLANK_AND_BOX)).unwrap();
    let e = kairos::scene::xyz::write_bodies(&scene, &mut Vec::new()).unwrap_err();
    assert!(
        e.to_string().contains("cannot be written to a bodies file"),
        "{e}"
    );
}

#[test]
fn a_body_spec_that_disagrees_with_its_table_is_refused() {
    let mut scene = Scene::from_toml_str(&room2(PLANK_AND_BOX)).unwrap();
    scene.bodies[0].position[0] += 1.0;
    match scene.validate().unwrap_err() {
        SceneError::Invalid { item, message } => {
            assert_eq!(item, Item::Body(0));
            assert!(
                message.contains("differ from those its table gives"),
                "{message}"
            );
        }
        e => panic!("{e}"),
    }
}

#[test]
fn a_rigid_scene_runs_on_every_broad_phase() {
    let scene = Scene::from_toml_str(&room2(PLANK_AND_BOX)).unwrap();
    let mut counts = Vec::new();
    for kind in BroadPhaseKind::ALL {
        let mut sim = Simulation::new(
            scene.world::<DVec2>().unwrap(),
            kind.build::<DVec2>(&BroadPhaseOptions::default()),
            scene.duration,
        );
        sim.run(|_, _, _| {});
        assert!(sim.counts().total() > 0, "{kind:?}");
        assert!(
            sim.energy_drift().abs() < 1e-9,
            "{kind:?}: {}",
            sim.energy_drift()
        );
        counts.push(sim.counts().total());
    }
    assert!(counts.windows(2).all(|w| w[0] == w[1]), "{counts:?}");
}

/// Runs `scene` to `until` on the calendar and returns the world at the end.
fn run2(scene: &Scene, until: f64) -> (World<DVec2>, f64, u64) {
    let mut sim = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::Calendar.build::<DVec2>(&BroadPhaseOptions::default()),
        until,
    );
    sim.run(|_, _, _| {});
    sim.finish();
    (
        sim.world().clone(),
        sim.energy_drift(),
        sim.counts().total(),
    )
}

#[test]
fn generated_rigid_scenes_validate_round_trip_and_run() {
    use kairos::generate::{boxes, bullet, polygons, BulletParams, RigidGasParams};
    let gas = RigidGasParams {
        n: 40,
        seed: 3,
        packing: 0.4,
        speed: 2.0,
        spin: 3.0,
        duration: 3.0,
        restitution: 1.0,
        concave: 0.0,
    };
    let two = polygons(&gas).unwrap();
    let three = boxes(&RigidGasParams {
        packing: 0.3,
        n: 30,
        ..gas
    })
    .unwrap();
    let shot = bullet(&BulletParams::default()).unwrap();
    for scene in [&two, &three, &shot] {
        assert!(scene.has_rigid_bodies());
        assert_eq!(&Scene::from_toml_str(&scene.to_toml()).unwrap(), scene);
    }
    // Boxes and polygons in 2D, cubes in 3D.
    let names: Vec<&str> = two
        .shapes
        .iter()
        .map(|t| t.as_ref().unwrap()["shape"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"box") && names.contains(&"polygon"));
    let (_, drift, events) = run2(&two, two.duration);
    assert!(
        events > 10 && drift.abs() < 1e-9,
        "{events} events, drift {drift}"
    );
    let mut sim = Simulation::new(
        three.world::<DVec3>().unwrap(),
        BroadPhaseKind::KayaBvh.build::<DVec3>(&BroadPhaseOptions::default()),
        three.duration,
    );
    sim.run(|_, _, _| {});
    assert!(sim.counts().total() > 10 && sim.energy_drift().abs() < 1e-9);
    // The bullet does not go through the plank: at t = 0.5 (it reaches the plank near
    // t = 0.27 at speed 100) it is back on its own side, and the two boxes have met.
    let (world, drift, _) = run2(&shot, 0.5);
    assert!(
        world.bodies()[1].pos.x < 30.0,
        "{:?}",
        world.bodies()[1].pos
    );
    assert!(world.bodies()[2].pos.x < world.bodies()[3].pos.x);
    assert!(drift.abs() < 1e-9);
    // The same seed gives the same scene; another seed another.
    assert_eq!(polygons(&gas).unwrap(), two);
    assert_ne!(polygons(&RigidGasParams { seed: 4, ..gas }).unwrap(), two);
}

#[test]
fn rigid_generators_refuse_bad_parameters() {
    use kairos::generate::{boxes, bullet, polygons, BulletParams, RigidGasParams};
    let p = RigidGasParams::default();
    let msg = |r: Result<Scene, kairos::generate::GenerateError>| r.unwrap_err().to_string();
    assert!(msg(polygons(&RigidGasParams { n: 0, ..p })).contains("number of bodies"));
    assert!(msg(polygons(&RigidGasParams { packing: 0.7, ..p })).contains("packing"));
    assert!(msg(boxes(&RigidGasParams { packing: 0.5, ..p })).contains("packing"));
    assert!(msg(boxes(&RigidGasParams { speed: -1.0, ..p })).contains("speed"));
    assert!(msg(bullet(&BulletParams {
        speed: 0.0,
        ..Default::default()
    }))
    .contains("speed"));
}

#[test]
fn extreme_numbers_give_errors_never_panics() {
    // A ball without `shape` whose density would overflow, in a scene with rigid bodies.
    body_err(
        "dim = 3\n[simulation]\nduration = 1.0\n\
         [[bodies]]\nshape = \"box\"\nhalf_extents = [1.0, 1.0, 1.0]\nposition = [3.0, 3.0, 3.0]\n\
         [[bodies]]\nposition = [7.0, 7.0, 7.0]\nvelocity = [0.0, 0.0, 0.0]\nradius = 1e-100\n\
         mass = 1e100\n",
        1,
        "no finite density or inertia",
    );
    // Smaller still, a ball is refused for its size.
    body_err(
        &room2(
            "[[bodies]]\nshape = \"box\"\nhalf_extents = [1.0, 1.0]\nposition = [3.0, 3.0]\n\
             [[bodies]]\nposition = [7.0, 7.0]\nvelocity = [0.0, 0.0]\nradius = 1e-200\n\
             mass = 1e100\n",
        ),
        1,
        "`radius` is too small",
    );
    // Every number of the scene replaced, one at a time, by extreme values: each text either
    // parses into a scene whose world builds, or is refused with an error.
    let text = room2(PLANK_AND_BOX);
    let numbers: Vec<(usize, usize)> = {
        let bytes = text.as_bytes();
        let mut spans = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii_digit() {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                    i += 1;
                }
                spans.push((start, i));
            }
            i += 1;
        }
        spans
    };
    for &(a, b) in &numbers {
        for value in ["0.0", "1e-300", "1e100", "1e300", "3"] {
            let mutated = format!("{}{value}{}", &text[..a], &text[b..]);
            if let Ok(scene) = Scene::from_toml_str(&mutated) {
                let world = scene.world::<DVec2>().unwrap();
                assert_eq!(world.rigid().len(), 3);
            }
        }
    }
}

/// Automatic inertia at the extremes of scale: the tensor is tested and inverted at unit scale,
/// and the torque-free motion computed for the tensor scaled by a power of four, so a ball of
/// radius 1e-21 and a box of half-extent 1e-22 (moments near 1e-105, determinants below the
/// smallest `f64`) are bodies, and a tumbling box conserves energy and angular momentum at
/// any size. A 2D box whose inertia overflows is refused with the reason.
#[test]
fn automatic_inertia_works_at_every_scale() {
    for s in [1.0, 1e-22, 1e-40, 1e25] {
        let text = format!(
            "dim = 3\n[simulation]\nduration = 3.0\n\
             [[bodies]]\nshape = \"ball\"\nradius = {r:e}\nposition = [{x:e}, {y:e}, 0.0]\nvelocity = [{v:e}, 0.0, 0.0]\n\
             [[bodies]]\nshape = \"box\"\nhalf_extents = [{s:e}, {s2:e}, {s3:e}]\nposition = [{s:e}, 0.0, 0.0]\n\
             angular_velocity = [1.0, 2.0, 3.0]\n",
            r = s,
            x = -3.0 * s,
            y = 0.3 * s,
            v = 2.0 * s,
            s2 = 2.0 * s,
            s3 = 3.0 * s,
        );
        let scene = Scene::from_toml_str(&text).unwrap_or_else(|e| panic!("{s:e}: {e}"));
        let mut sim = Simulation::new(
            scene.world::<DVec3>().unwrap(),
            BroadPhaseKind::Calendar.build::<DVec3>(&BroadPhaseOptions::default()),
            scene.duration,
        );
        let l0 = sim.world().angular_momentum();
        sim.run(|_, _, _| {});
        assert_eq!(sim.counts().body_body, 1, "{s:e}");
        assert!(
            sim.energy_drift().abs() < 1e-12,
            "{s:e}: {}",
            sim.energy_drift()
        );
        let l1 = sim.world().angular_momentum();
        assert!(
            (l1 - l0).length() <= 1e-12 * l0.length(),
            "{s:e}: {l0} {l1}"
        );
    }
    let big = "dim = 2\n[simulation]\nduration = 1.0\n[[bodies]]\nshape = \"box\"\n\
               half_extents = [1e80, 1e80]\nposition = [0.0, 0.0]\n";
    let message = body_err(big, 0, "inertia overflows");
    assert!(message.contains("give a smaller mass"), "{message}");
}

/// A rigid body must fit in its box room along every axis, at any size: a plank of
/// half-length 2e11 in a room of 10 passed the depth test against each wall piece (whose digits
/// it loses) and its run never ended; one that fits exactly, touching two walls, is kept.
#[test]
fn a_rigid_body_larger_than_its_box_room_is_refused() {
    for (half, fits) in [
        (1e12, false),
        (2e11, false),
        (6.0, false),
        (5.0, true),
        (4.9, true),
    ] {
        let text = room2(&format!(
            "[[bodies]]\nshape = \"box\"\nhalf_extents = [{half:?}, 0.3]\nposition = [5.0, 5.0]\n\
             velocity = [0.0, 1.0]\n"
        ));
        match Scene::from_toml_str(&text) {
            Ok(_) => assert!(fits, "{half}: accepted"),
            Err(e) => {
                assert!(!fits, "{half}: {e}");
                let e = e.to_string();
                assert!(
                    e.contains("does not fit in the box") || e.contains("crosses wall"),
                    "{half}: {e}"
                );
            }
        }
    }
}
