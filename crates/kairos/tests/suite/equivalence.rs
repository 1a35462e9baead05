//! Every broad phase must produce a bit-identical event log to `all-pairs`.

use crate::common;

use common::{assert_same_log, records};
use kairos::generate::{billiard, BilliardParams};
use kairos::prelude::*;
use kairos::scene::{pad3, BodySpec, WallSpec};

fn compare(scene: &Scene, opts: &BroadPhaseOptions, what: &str) -> usize {
    let reference = records::<DVec2>(scene, BroadPhaseKind::AllPairs, opts);
    for kind in BroadPhaseKind::ALL {
        let log = records::<DVec2>(scene, kind, opts);
        assert_same_log(&reference, &log, &format!("{what}, {kind}"));
    }
    reference.len()
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn random_billiards_are_identical() {
    let mut total = 0;
    for (k, &(n, duration)) in [
        (2, 5.0),
        (3, 5.0),
        (8, 5.0),
        (32, 5.0),
        (100, 2.0),
        (256, 0.3),
        (512, 0.06),
    ]
    .iter()
    .enumerate()
    {
        for seed in 0..3u64 {
            let p = BilliardParams {
                n,
                seed: seed + 100 * k as u64,
                duration,
                radius_min: 0.2,
                packing: [0.05, 0.15, 0.3][seed as usize],
                ..Default::default()
            };
            let mut scene = billiard(&p).unwrap();
            // Varied masses and some inelasticity make the responses non-trivial.
            for (i, b) in scene.bodies.iter_mut().enumerate() {
                b.mass = 0.5 + (i % 7) as f64 * 0.75;
            }
            if seed == 2 {
                scene.restitution = 0.9;
            }
            total += compare(
                &scene,
                &BroadPhaseOptions::default(),
                &format!("n={n} seed={seed}"),
            );
        }
    }
    assert!(total > 10_000, "only {total} events compared");
}

/// The look-ahead's options change how many searches an event takes, never the event, for
/// every broad phase that has a look-ahead.
#[test]
fn look_ahead_options_do_not_change_the_log() {
    let scene = billiard(&BilliardParams {
        n: 64,
        seed: 9,
        duration: 2.0,
        ..Default::default()
    })
    .unwrap();
    let reference = records::<DVec2>(
        &scene,
        BroadPhaseKind::AllPairs,
        &BroadPhaseOptions::default(),
    );
    for (dt, grow, shrink) in [
        (1e-9, 2.0, 0.5),
        (10.0, 2.0, 0.5),
        (1e-3, 1.1, 0.9),
        (1e-3, 8.0, 0.125),
        (1e-3, 2.0, 1.0),
    ] {
        let opts = BroadPhaseOptions {
            look_ahead: LookAheadOptions {
                initial_dt: dt,
                grow,
                shrink,
            },
            ..Default::default()
        };
        for kind in [
            BroadPhaseKind::KayaBvh,
            BroadPhaseKind::Sap,
            BroadPhaseKind::Grid,
        ] {
            let log = records::<DVec2>(&scene, kind, &opts);
            assert_same_log(
                &reference,
                &log,
                &format!("{kind}: dt={dt} grow={grow} shrink={shrink}"),
            );
        }
    }
}

/// A lattice of equal balls with equal speeds: many exactly simultaneous events, so the
/// tie-breaking order decides the log.
#[test]
fn simultaneous_events_on_a_lattice() {
    let mut bodies = Vec::new();
    for i in 0..8 {
        for j in 0..8 {
            let vx = if (i + j) % 2 == 0 { 1.0 } else { -1.0 };
            bodies.push(BodySpec {
                position: pad3(&[2.0 + 3.0 * i as f64, 2.0 + 3.0 * j as f64]),
                velocity: pad3(&[vx, 0.0]),
                radius: 0.5,
                mass: 1.0,
            });
        }
    }
    let (w, h) = (25.0, 25.0);
    let walls = vec![WallSpec::Box {
        min: vec![0.0, 0.0],
        max: vec![w, h],
    }];
    let scene = Scene {
        dim: 2,
        duration: 60.0,
        restitution: 1.0,
        contact_duration: None,
        gravity: [0.0; 3],
        rest_speed: None,
        friction: 0.0,
        walls,
        bodies,
        periodic: None,
        shapes: Vec::new(),
        meshes: Default::default(),
    };
    scene.validate().unwrap();
    let n = compare(&scene, &BroadPhaseOptions::default(), "lattice");
    assert!(n > 800, "{n} events");
    // Ties really happen: many consecutive events share a time.
    let log = records::<DVec2>(
        &scene,
        BroadPhaseKind::AllPairs,
        &BroadPhaseOptions::default(),
    );
    let ties = log.windows(2).filter(|w| w[0].time == w[1].time).count();
    assert!(ties > 100, "{ties} ties");
}

/// Balls that start touching each other and the walls, and a 3D scene through the same code.
#[test]
fn touching_starts_and_3d() {
    let bodies = vec![
        BodySpec {
            position: pad3(&[1.0, 1.0]),
            velocity: pad3(&[1.0, 0.5]),
            radius: 1.0,
            mass: 1.0,
        },
        BodySpec {
            position: pad3(&[3.0, 1.0]),
            velocity: pad3(&[-1.0, 0.0]),
            radius: 1.0,
            mass: 3.0,
        },
        BodySpec {
            position: pad3(&[5.0, 1.0]),
            velocity: pad3(&[0.0, 0.0]),
            radius: 1.0,
            mass: 1.0,
        },
        BodySpec {
            position: pad3(&[8.0, 5.0]),
            velocity: pad3(&[-3.0, -1.0]),
            radius: 0.5,
            mass: 1.0,
        },
    ];
    let walls = vec![WallSpec::Box {
        min: vec![0.0, 0.0],
        max: vec![10.0, 10.0],
    }];
    let scene = Scene {
        dim: 2,
        duration: 30.0,
        restitution: 1.0,
        contact_duration: None,
        gravity: [0.0; 3],
        rest_speed: None,
        friction: 0.0,
        walls,
        bodies,
        periodic: None,
        shapes: Vec::new(),
        meshes: Default::default(),
    };
    scene.validate().unwrap();
    assert!(compare(&scene, &BroadPhaseOptions::default(), "touching") > 50);

    // A 4 x 4 x 3 lattice with spacing 1.2 and pseudo-random velocities: a burst of
    // collisions before the balls disperse.
    let mut bodies3 = Vec::new();
    for i in 0..48 {
        let f = i as f64;
        let (x, y, z) = ((i % 4) as f64, ((i / 4) % 4) as f64, (i / 16) as f64);
        bodies3.push(BodySpec {
            position: pad3(&[1.2 * x, 1.2 * y, 1.2 * z]),
            velocity: pad3(&[(f * 0.7).sin(), (f * 1.1).cos(), (f * 0.3).sin() * 2.0]),
            radius: 0.4 + 0.1 * (f * 0.5).sin().abs(),
            mass: 1.0 + f / 40.0,
        });
    }
    let scene3 = Scene {
        dim: 3,
        duration: 30.0,
        restitution: 1.0,
        contact_duration: None,
        gravity: [0.0; 3],
        rest_speed: None,
        friction: 0.0,
        walls: vec![],
        bodies: bodies3,
        periodic: None,
        shapes: Vec::new(),
        meshes: Default::default(),
    };
    scene3.validate().unwrap();
    let reference = records::<DVec3>(
        &scene3,
        BroadPhaseKind::AllPairs,
        &BroadPhaseOptions::default(),
    );
    assert!(reference.len() > 40, "{} events in 3D", reference.len());
    let log = records::<DVec3>(
        &scene3,
        BroadPhaseKind::KayaBvh,
        &BroadPhaseOptions::default(),
    );
    assert_same_log(&reference, &log, "3D");
}

/// Every example scene shipped in `scenes/` parses, runs, and gives identical logs.
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn example_scenes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let scene = Scene::from_toml_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let what = path.display().to_string();
        let n = match scene.dim {
            2 => compare(&scene, &BroadPhaseOptions::default(), &what),
            _ => {
                let a = records::<DVec3>(
                    &scene,
                    BroadPhaseKind::AllPairs,
                    &BroadPhaseOptions::default(),
                );
                let b = records::<DVec3>(
                    &scene,
                    BroadPhaseKind::KayaBvh,
                    &BroadPhaseOptions::default(),
                );
                assert_same_log(&a, &b, &what);
                a.len()
            }
        };
        assert!(n > 0, "{what}: no events");
        seen += 1;
    }
    assert!(seen >= 4);
}

/// Scenes that stress a cell grid: radii over two orders of magnitude, resting bodies, bodies
/// that leave the initial bounds (edge cells), and slanted walls registered in many cells.
#[test]
fn grid_stress_scenes() {
    use rand::{Rng, SeedableRng};
    for seed in 0..4u64 {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let mut bodies: Vec<BodySpec> = Vec::new();
        let n = 120;
        while bodies.len() < n {
            let r = if rng.gen_bool(0.05) {
                rng.gen_range(1.0..3.0)
            } else {
                rng.gen_range(0.03..0.3)
            };
            let p = vec![rng.gen_range(8.0..52.0), rng.gen_range(8.0..52.0)];
            if bodies.iter().any(|b| {
                let d = ((b.position[0] - p[0]).powi(2) + (b.position[1] - p[1]).powi(2)).sqrt();
                d < (b.radius + r) * 1.01
            }) {
                continue;
            }
            let v = if rng.gen_bool(0.1) {
                vec![0.0, 0.0]
            } else {
                vec![rng.gen_range(-8.0..8.0), rng.gen_range(-8.0..8.0)]
            };
            bodies.push(BodySpec {
                position: pad3(&p),
                velocity: pad3(&v),
                radius: r,
                mass: r * r,
            });
        }
        // Seeds 0 and 1: an open scene (bodies escape); seeds 2 and 3: a slanted pentagon room.
        let walls = if seed < 2 {
            Vec::new()
        } else {
            let c = [
                [30.0, -5.0],
                [66.0, 20.0],
                [55.0, 65.0],
                [5.0, 65.0],
                [-6.0, 20.0],
            ];
            (0..5)
                .map(|k| WallSpec::Segment {
                    a: c[k].to_vec(),
                    b: c[(k + 1) % 5].to_vec(),
                })
                .collect()
        };
        let scene = Scene {
            dim: 2,
            duration: 12.0,
            restitution: 1.0,
            contact_duration: None,
            gravity: [0.0; 3],
            rest_speed: None,
            friction: 0.0,
            walls,
            bodies,
            periodic: None,
            shapes: Vec::new(),
            meshes: Default::default(),
        };
        scene.validate().unwrap();
        let n = compare(
            &scene,
            &BroadPhaseOptions::default(),
            &format!("grid stress seed {seed}"),
        );
        let expected = if seed < 2 { 30 } else { 300 };
        assert!(n > expected, "seed {seed}: {n} events");
    }
}

/// Periodic boxes in 2D and 3D: every broad phase gives the all-pairs log, including contacts
/// across the box faces, and momentum is conserved.
#[test]
fn periodic_gases_are_identical() {
    use kairos::generate::{gas, GasParams};
    for (dim, n, packing, poly, duration) in [
        (2, 60, 0.5, 0.2, 3.0),
        (2, 150, 0.7, 0.0, 0.5),
        (3, 32, 0.3, 0.2, 4.0),
        (3, 108, 0.45, 0.0, 0.6),
        (3, 9, 0.05, 0.0, 150.0),
    ] {
        let p = GasParams {
            dim,
            n,
            packing,
            polydispersity: poly,
            seed: n as u64,
            duration,
            ..Default::default()
        };
        let scene = gas(&p).unwrap();
        let what = format!("periodic {dim}D n={n} packing={packing}");
        let logs: Vec<_> = BroadPhaseKind::ALL
            .iter()
            .map(|&k| match dim {
                2 => records::<DVec2>(&scene, k, &BroadPhaseOptions::default()),
                _ => records::<DVec3>(&scene, k, &BroadPhaseOptions::default()),
            })
            .collect();
        for log in &logs[1..] {
            assert_same_log(&logs[0], log, &what);
        }
        assert!(logs[0].len() > 200, "{what}: {} events", logs[0].len());
    }
}

/// 3D rooms: the billiard cube (a `box` item: six polygons), and a room with an infinite
/// slanted plane and free-standing triangle and hexagon obstacles (faces, edges and vertices).
#[test]
fn walls_in_3d_are_identical() {
    for (n, seed) in [(20, 1), (120, 2)] {
        let scene = billiard(&BilliardParams {
            dim: 3,
            n,
            seed,
            duration: 3.0,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(scene.world::<DVec3>().unwrap().walls().len(), 6);
        let n_events = compare3(&scene, &format!("3D billiard n={n}"));
        assert!(n_events > 100, "{n_events}");
    }
    let hexagon: Vec<Vec<f64>> = (0..6)
        .map(|k| {
            let a = k as f64 * std::f64::consts::PI / 3.0;
            vec![10.0 + 2.5 * a.cos(), 6.0, 10.0 + 2.5 * a.sin()]
        })
        .collect();
    let walls = vec![
        WallSpec::Box {
            min: vec![0.0; 3],
            max: vec![20.0; 3],
        },
        WallSpec::Plane {
            point: vec![0.0, 0.0, 17.0],
            normal: vec![0.2, -0.3, -1.0],
        },
        WallSpec::Polygon {
            vertices: vec![
                vec![4.0, 4.0, 8.0],
                vec![12.0, 5.0, 8.5],
                vec![6.0, 13.0, 9.0],
            ],
        },
        WallSpec::Polygon { vertices: hexagon },
    ];
    let mut bodies = Vec::new();
    for i in 0..60 {
        let f = i as f64;
        bodies.push(BodySpec {
            position: pad3(&[
                2.0 + (f * 3.7) % 16.0,
                2.0 + (f * 5.3) % 16.0,
                1.5 + (f * 0.9) % 5.0,
            ]),
            velocity: pad3(&[
                (f * 0.7).sin() * 6.0,
                (f * 1.3).cos() * 6.0,
                4.0 + (f * 0.3).sin() * 4.0,
            ]),
            radius: 0.3 + 0.2 * (f * 0.37).sin().abs(),
            mass: 1.0,
        });
    }
    let scene = Scene {
        dim: 3,
        duration: 6.0,
        restitution: 1.0,
        contact_duration: None,
        gravity: [0.0; 3],
        rest_speed: None,
        friction: 0.0,
        walls,
        bodies,
        periodic: None,
        shapes: Vec::new(),
        meshes: Default::default(),
    };
    scene.validate().unwrap();
    let log = records::<DVec3>(
        &scene,
        BroadPhaseKind::AllPairs,
        &BroadPhaseOptions::default(),
    );
    let walls_hit: std::collections::BTreeSet<u32> = log
        .iter()
        .filter(|r| r.kind == kairos::event::EventKind::BodyWall)
        .map(|r| r.b)
        .collect();
    assert!(
        walls_hit.contains(&6) && walls_hit.contains(&7) && walls_hit.contains(&8),
        "{walls_hit:?}"
    );
    compare3(&scene, "3D obstacles");
}

fn compare3(scene: &Scene, what: &str) -> usize {
    let reference = records::<DVec3>(
        scene,
        BroadPhaseKind::AllPairs,
        &BroadPhaseOptions::default(),
    );
    for kind in BroadPhaseKind::ALL {
        let log = records::<DVec3>(scene, kind, &BroadPhaseOptions::default());
        assert_same_log(&reference, &log, &format!("{what}, {kind}"));
    }
    reference.len()
}

/// Restitution 0 leaves touching pairs with a relative normal velocity of a few ulps; the
/// response must never let a pair collide again at the same instant (that loops forever), and
/// every broad phase must still agree. A slanted plane makes wall normals inexact.
#[test]
fn restitution_zero_terminates_and_agrees() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(77);
    let mut bodies: Vec<BodySpec> = Vec::new();
    while bodies.len() < 60 {
        let p = vec![rng.gen_range(1.0..19.0), rng.gen_range(6.0..19.0)];
        if p[0] * 0.6 + p[1] * 0.8 < 5.0
            || bodies.iter().any(|b| {
                ((b.position[0] - p[0]).powi(2) + (b.position[1] - p[1]).powi(2)).sqrt() < 1.3
            })
        {
            continue;
        }
        let v = vec![rng.gen_range(-6.0..6.0), rng.gen_range(-6.0..6.0)];
        bodies.push(BodySpec {
            position: pad3(&p),
            velocity: pad3(&v),
            radius: 0.6,
            mass: rng.gen_range(0.5..2.0),
        });
    }
    let walls = vec![
        WallSpec::Box {
            min: vec![0.0, 0.0],
            max: vec![20.0, 20.0],
        },
        WallSpec::Plane {
            point: vec![0.0, 5.0 / 0.8],
            normal: vec![0.6, 0.8],
        },
    ];
    for restitution in [0.0, 1e-3] {
        let scene = Scene {
            dim: 2,
            duration: 4.0,
            restitution,
            contact_duration: None,
            gravity: [0.0; 3],
            rest_speed: None,
            friction: 0.0,
            walls: walls.clone(),
            bodies: bodies.clone(),
            periodic: None,
            shapes: Vec::new(),
            meshes: Default::default(),
        };
        scene.validate().unwrap();
        let n = compare(
            &scene,
            &BroadPhaseOptions::default(),
            &format!("restitution {restitution}"),
        );
        assert!(n > 200, "{n} events");
        // No pair collides twice at the same instant.
        let log = records::<DVec2>(
            &scene,
            BroadPhaseKind::Calendar,
            &BroadPhaseOptions::default(),
        );
        for w in log.windows(2) {
            assert!(
                !(w[0].time == w[1].time
                    && w[0].kind == w[1].kind
                    && w[0].a == w[1].a
                    && w[0].b == w[1].b),
                "{:?}",
                w[0]
            );
        }
    }
}

/// Periodic gases large enough for the calendar's grid to have more than three cells per axis
/// (neighbouring cells are then distinct images), against the continuous grid: the calendar's
/// rejection of pairs that cannot collide before its current best event changes nothing, and
/// neither do neighbour lists (long enough for most bodies to be re-listed, some several
/// times, and to cross the box's faces).
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn larger_periodic_gases_are_identical() {
    use kairos::generate::{gas, GasParams};
    for (dim, n, packing, poly, duration) in [(2, 3000, 0.5, 0.1, 1.5), (3, 2000, 0.45, 0.1, 0.4)] {
        let p = GasParams {
            dim,
            n,
            packing,
            polydispersity: poly,
            seed: 7,
            duration,
            ..Default::default()
        };
        let scene = gas(&p).unwrap();
        let what = format!("periodic {dim}D n={n} packing={packing}");
        let logs: Vec<_> = [
            BroadPhaseKind::Calendar,
            BroadPhaseKind::Grid,
            BroadPhaseKind::CalendarLists,
        ]
        .iter()
        .map(|&k| match dim {
            2 => records::<DVec2>(&scene, k, &BroadPhaseOptions::default()),
            _ => records::<DVec3>(&scene, k, &BroadPhaseOptions::default()),
        })
        .collect();
        assert_same_log(&logs[0], &logs[1], &what);
        assert_same_log(&logs[0], &logs[2], &what);
        assert!(logs[0].len() > 4000, "{what}: {} events", logs[0].len());
    }
}

/// Open scenes whose bodies fly far out of the cell grid's box: the neighbour lists clamp
/// centres into the box (a body flying out is listed anew a bounded number of times), and every
/// broad phase still gives the all-pairs log: a crowd with bodies that leave it at 10^4 and catch
/// up with each other some 10^5 out (head on, at an angle, and grazing), and a crowd bouncing on
/// a floor under gravity into which a body thrown up out of the box at 10^3 falls back.
#[test]
fn bodies_flying_far_out_of_open_scenes() {
    let ball = |p: [f64; 3], v: [f64; 3]| BodySpec {
        position: p,
        velocity: v,
        radius: 0.4,
        mass: 1.0,
    };
    let crowd = |side: usize, spacing: f64, speed: f64| {
        (0..side * side * side)
            .map(|k| {
                let f = k as f64;
                let p = [k % side, k / side % side, k / side / side].map(|c| c as f64 * spacing);
                let v = [(f * 0.7).sin(), (f * 1.3).cos(), (f * 2.1).sin()].map(|c| c * speed);
                ball(p, v)
            })
            .collect::<Vec<_>>()
    };
    let scene = |bodies, walls, gravity, duration| Scene {
        dim: 3,
        duration,
        restitution: 1.0,
        contact_duration: None,
        gravity,
        rest_speed: None,
        friction: 0.0,
        walls,
        bodies,
        periodic: None,
        shapes: Vec::new(),
        meshes: Default::default(),
    };
    let mut bodies = crowd(6, 1.0, 0.5);
    bodies.extend([
        ball([-3.0, 20.0, 0.5], [-1e4, 0.0, 0.0]),
        ball([9.0, 20.0, 0.5], [-1e4 - 1.0, 0.0, 0.0]),
        ball([-3.0, -9.0, 2.0], [-1e4, -2e3, 0.0]),
        ball([8.0, -9.0, 2.0], [-1e4 - 0.5, -2e3 - 0.01, 0.005]),
        ball([12.0, 12.0, -10.0], [1.0, 1.0, -1e4]),
        ball([12.5, 12.0, 12.0], [1.0, 1.0, -1e4 - 1.1]),
    ]);
    let open = scene(bodies, Vec::new(), [0.0; 3], 40.0);
    open.validate().unwrap();
    let log = records::<DVec3>(
        &open,
        BroadPhaseKind::AllPairs,
        &BroadPhaseOptions::default(),
    );
    let far = log
        .iter()
        .filter(|r| r.a >= 216 && r.pos_a.iter().any(|x| x.abs() > 1e4))
        .count();
    assert!(far >= 3, "{far} contacts far out");
    compare3(&open, "bodies flying out");

    let mut bodies = crowd(4, 1.5, 2.0);
    for b in &mut bodies {
        b.position[2] += 1.0;
    }
    bodies.push(ball([2.2, 2.3, 8.0], [0.0, 0.0, 1e3]));
    let floor = vec![WallSpec::Plane {
        point: vec![0.0; 3],
        normal: vec![0.0, 0.0, 1.0],
    }];
    let thrown = scene(bodies, floor, [0.0, 0.0, -10.0], 205.0);
    thrown.validate().unwrap();
    let n = compare3(&thrown, "a body thrown up out of the box");
    assert!(n > 1000, "{n} events");
}
