//! Lone spinning bodies of every shape, in 2D and 3D, for long runs: a prediction that gives up
//! (its step limit) is never a contact. Where a body's bounding sphere never reaches a wall no
//! contact is predicted at all; where it reaches one that the shape never touches, the
//! prediction resumes from where it gave up. Either way nothing is logged, the motion is
//! untouched, and every broad phase agrees.

use crate::common;

use common::{assert_same_log, records};
use kairos::event::EventKind;
use kairos::prelude::*;
use kairos::scene::{Item, SceneError};

/// Shapes, as TOML body keys, each with the least distance from its centre that its surface
/// ever reaches while it turns about its centre (2D: about z; 3D: about every axis).
fn shapes(dim: usize) -> Vec<(String, f64)> {
    if dim == 2 {
        vec![
            (
                "shape = \"box\"\nhalf_extents = [0.5, 0.5]".into(),
                0.5f64.hypot(0.5),
            ),
            (
                "shape = \"box\"\nhalf_extents = [1.5, 0.1]".into(),
                1.5f64.hypot(0.1),
            ),
            ("shape = \"ball\"\nradius = 0.6".into(), 0.6),
            (
                "shape = \"capsule\"\nhalf_height = 0.8\nradius = 0.2".into(),
                1.0,
            ),
            (
                "shape = \"polygon\"\nvertices = [[1.0, 0.0], [0.0, 1.0], [-1.0, -0.5]]".into(),
                // The centroid is the centre: the farthest vertex from it.
                [[1.0, 0.0], [0.0, 1.0], [-1.0, -0.5]]
                    .iter()
                    .map(|v: &[f64; 2]| (v[0] - 0.0).hypot(v[1] - 1.0 / 6.0))
                    .fold(0.0, f64::max),
            ),
            (
                // An L: a compound body of two convex pieces, its centroid at (5/6, 5/6) (the
                // position below is its centre's, see `scene`).
                "shape = \"polygon\"\nvertices = [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [1.0, 1.0], \
                 [1.0, 2.0], [0.0, 2.0]]"
                    .into(),
                (7.0f64 / 6.0).hypot(5.0 / 6.0),
            ),
        ]
    } else {
        vec![
            (
                "shape = \"box\"\nhalf_extents = [2.0, 0.1, 0.3]".into(),
                (4.0f64 + 0.01 + 0.09).sqrt(),
            ),
            ("shape = \"ball\"\nradius = 0.7".into(), 0.7),
            (
                "shape = \"cylinder\"\nhalf_height = 0.5\nradius = 0.4".into(),
                0.5f64.hypot(0.4),
            ),
            (
                "shape = \"capsule\"\nhalf_height = 0.6\nradius = 0.3".into(),
                0.9,
            ),
        ]
    }
}

fn scene(dim: usize, shape: &str, pos: &str, spin: &str, duration: f64) -> String {
    let room = if dim == 2 {
        "box = { min = [0.0, 0.0], max = [10.0, 10.0] }"
    } else {
        "box = { min = [0.0, 0.0, 0.0], max = [10.0, 10.0, 10.0] }"
    };
    format!(
        "dim = {dim}\n[simulation]\nduration = {duration:e}\n[[walls]]\n{room}\n\
         [[bodies]]\n{shape}\nposition = {pos}\nangular_velocity = {spin}\n"
    )
}

/// Runs `text` with every broad phase; returns the log and the final world of `all-pairs`.
fn run_all<V: Vector>(text: &str) -> (usize, World<V>) {
    let scene = Scene::from_toml_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let opts = BroadPhaseOptions::default();
    let reference = records::<V>(&scene, BroadPhaseKind::AllPairs, &opts);
    for kind in BroadPhaseKind::ALL {
        assert_same_log(&reference, &records::<V>(&scene, kind, &opts), text);
    }
    let mut sim = Simulation::new(
        scene.world::<V>().unwrap(),
        BroadPhaseKind::Calendar.build::<V>(&opts),
        scene.duration,
    );
    let mut resumes = 0;
    while let Some(e) = sim.process_next() {
        assert_eq!(e.kind, EventKind::Resume, "{text}: {e:?}");
        resumes += 1;
    }
    sim.finish();
    assert!(reference.is_empty(), "{text}: {:?}", reference.first());
    (resumes, sim.world().clone())
}

fn assert_untouched<V: Vector>(w: &World<V>, spin: f64, text: &str) {
    assert_eq!(w.bodies()[0].vel, V::ZERO, "{text}");
    let norm = V::angular_speed(w.rigid()[0].angular_velocity);
    assert!(
        (norm - spin).abs() <= 1e-9 * spin,
        "{text}: spin {norm} not {spin}"
    );
}

/// The scene: a box turning in place 1.79 from the nearest wall logged a contact at
/// t = 6780 (after the step limit) and took a velocity from it.
#[test]
fn a_box_turning_far_from_the_walls_never_touches_them() {
    for spin in [1.0, 2.0, 100.0] {
        let text = scene(
            2,
            "shape = \"box\"\nhalf_extents = [0.5, 0.5]",
            "[7.0, 5.0]",
            &format!("{spin:?}"),
            7000.0,
        );
        let (resumes, w) = run_all::<DVec2>(&text);
        assert_eq!(resumes, 0, "no prediction needs to give up: {text}");
        assert_untouched(&w, spin, &text);
    }
}

/// Every shape, turning close to a wall: its bounding sphere overlaps the wall, its surface
/// stays `gap` away. The predictions give up again and again (the body turns for ever next to
/// the wall) and resume; nothing is logged.
#[test]
fn bodies_turning_next_to_a_wall_resume_and_never_touch() {
    for dim in [2usize, 3] {
        for (shape, reach) in shapes(dim) {
            for spin in [1.0, 30.0] {
                // Centre `reach + gap` from the wall x = 10; the sphere (1e-6 larger) reaches
                // over it when the gap is below that.
                let x = 10.0 - reach * (1.0 + 5e-7);
                let (pos, omega) = if dim == 2 {
                    // The L's position is its frame's origin, 5/6 from its centroid on each axis.
                    let o = if shape.contains("[1.0, 2.0]") {
                        5.0 / 6.0
                    } else {
                        0.0
                    };
                    (format!("[{:?}, {:?}]", x - o, 5.0 - o), format!("{spin:?}"))
                } else {
                    let s = spin / 3f64.sqrt();
                    (
                        format!("[{x:?}, 5.0, 5.0]"),
                        format!("[{s:?}, {s:?}, {s:?}]"),
                    )
                };
                let duration = 200.0 / spin.max(1.0);
                let text = scene(dim, &shape, &pos, &omega, duration);
                if dim == 2 {
                    let (_, w) = run_all::<DVec2>(&text);
                    assert_untouched(&w, spin, &text);
                } else {
                    let (_, w) = run_all::<DVec3>(&text);
                    // A box tumbles (its spin changes direction, not energy): only the
                    // velocity is checked in 3D.
                    assert_eq!(w.bodies()[0].vel, DVec3::ZERO, "{text}");
                }
            }
        }
    }
}

/// A body far from every wall at the highest spin the format takes runs without any event;
/// a spin beyond it is refused with a message naming the body.
#[test]
fn the_spin_limit_is_the_arithmetic_s() {
    let limit = kairos::rigid::MAX_TURN;
    let duration = 100.0;
    let top = 0.999 * limit / duration;
    let text = scene(
        2,
        "shape = \"box\"\nhalf_extents = [0.5, 0.5]",
        "[7.0, 5.0]",
        &format!("{top:e}"),
        duration,
    );
    let (resumes, w) = run_all::<DVec2>(&text);
    assert_eq!(resumes, 0);
    assert_untouched(&w, top, &text);
    let text3 = scene(
        3,
        "shape = \"box\"\nhalf_extents = [2.0, 0.1, 0.1]",
        "[5.0, 5.0, 5.0]",
        &format!("[{0:e}, {0:e}, {0:e}]", top / 3f64.sqrt()),
        duration,
    );
    let (resumes, _) = run_all::<DVec3>(&text3);
    assert_eq!(resumes, 0);
    for spin in ["1e100", "1.01e6"] {
        let text = scene(
            2,
            "shape = \"box\"\nhalf_extents = [0.5, 0.5]",
            "[7.0, 5.0]",
            spin,
            duration,
        );
        let err = Scene::from_toml_str(&text).unwrap_err();
        assert!(
            matches!(
                err,
                SceneError::Invalid {
                    item: Item::Body(0),
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("angular_velocity"), "{err}");
    }
}
