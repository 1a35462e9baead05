//! Closed triangle meshes as rigid bodies: read from scenes, predicted by D2M against each
//! other, responded to with angular terms, never overlapping, conserving what they must.

use crate::common;

use common::{assert_same_log, min_gap, records};
use kairos::ccd::mesh::TriMesh;
use kairos::prelude::*;
use kairos::rigid::SHELL;

/// The demo scene of the README: two tori, a spiky ball and an icosphere in a box.
const TORI: &str = include_str!("../../../../scenes/tumbling-tori.toml");

fn scene(text: &str) -> Scene {
    Scene::from_toml_str(text).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> String {
    match Scene::from_toml_str(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

const ROOM: &str = "dim = 3\n[simulation]\nduration = 2.0\n";

#[test]
fn a_mesh_body_has_its_triangles_as_pieces_and_the_mass_of_its_solid() {
    let s = scene(&format!(
        "{ROOM}[[bodies]]\nshape = \"mesh\"\nmesh = \"torus\"\nsize = [1.5, 0.4]\n\
         detail = [32, 16]\nposition = [0.0, 0.0, 0.0]\ndensity = 3.0\n"
    ));
    let w = s.world::<DVec3>().unwrap();
    let r = &w.rigid()[0];
    assert_eq!(r.pieces, 2 * 32 * 16);
    assert_eq!(r.mesh, Some(0));
    assert!(w.is_compound(0));
    // The faceted torus's volume is a little below the smooth one's, 2 π² R r².
    let smooth = 3.0 * 2.0 * std::f64::consts::PI.powi(2) * 1.5 * 0.4 * 0.4;
    let m = w.bodies()[0].mass();
    assert!(m < smooth && m > 0.95 * smooth, "{m} vs {smooth}");
    // Its axis of symmetry is z: the largest moment, the other two equal.
    let i = r.inertia;
    assert!(i.z_axis.z > i.x_axis.x && (i.x_axis.x - i.y_axis.y).abs() < 1e-9 * i.x_axis.x);
    assert!(r.radius > 1.9 - 1e-12 && r.radius <= 1.9 + 1e-12);
}

#[test]
fn bad_meshes_are_refused_naming_the_key_and_the_problem() {
    let body = |keys: &str| {
        format!("{ROOM}[[bodies]]\nshape = \"mesh\"\nposition = [0.0, 0.0, 0.0]\n{keys}\n")
    };
    let e = error(&body("mesh = \"teapot\""));
    assert!(
        e.contains("body 0") && e.contains("unknown mesh `teapot`"),
        "{e}"
    );
    let e = error(&body("mesh = \"torus\"\nsize = [0.5, 0.6]"));
    assert!(e.contains("size") && e.contains("minor radius"), "{e}");
    let e = error(&body("mesh = \"icosphere\"\ndetail = [9]"));
    assert!(e.contains("detail") && e.contains("from 0 to 6"), "{e}");
    let e = error(&body("mesh = \"icosphere\"\nsize = [-1.0]"));
    assert!(e.contains("size") && e.contains("positive"), "{e}");
    let e = error(&body("mesh = \"nowhere/missing.obj\""));
    assert!(e.contains("missing.obj"), "{e}");
    // An open mesh: a tetrahedron without its base.
    let dir = std::env::temp_dir().join(format!("kairos-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let open = dir.join("open.obj");
    std::fs::write(
        &open,
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 4\nf 2 3 4\nf 3 1 4\n",
    )
    .unwrap();
    let e = error(&body(&format!("mesh = {:?}", open.to_str().unwrap())));
    assert!(e.contains("not closed") && e.contains("edge"), "{e}");
    let e = error(
        "dim = 2\n[simulation]\nduration = 1.0\n[[bodies]]\nshape = \"mesh\"\n\
         mesh = \"torus\"\nposition = [0.0, 0.0]\n",
    );
    assert!(e.contains("3D"), "{e}");
    let e = error(&format!(
        "{ROOM}[[walls]]\nshape = \"mesh\"\nmesh = \"torus\"\nposition = [0.0, 0.0, 0.0]\n"
    ));
    assert!(e.contains("a mesh is not one"), "{e}");
    // A small ball wholly inside the tube crosses no triangle, and is refused; one in the hole
    // is accepted.
    let torus = body("mesh = \"torus\"\nsize = [1.0, 0.3]");
    let e = error(&format!(
        "{torus}[[bodies]]\nposition = [1.0, 0.0, 0.0]\nvelocity = [0.0, 0.0, 0.0]\n\
         radius = 0.1\nmass = 1.0\n"
    ));
    assert!(e.contains("body 1 lies inside the mesh of body 0"), "{e}");
    scene(&format!(
        "{torus}[[bodies]]\nposition = [0.0, 0.0, 0.0]\nvelocity = [0.0, 0.0, 0.0]\n\
         radius = 0.3\nmass = 1.0\n"
    ));
    std::fs::remove_dir_all(&dir).ok();
}

/// Two plates (thin boxes as meshes) approach face to face without turning: D2M reports the
/// analytic time less the back-off, leaving them about half the contact shell apart.
#[test]
fn two_plates_meet_face_to_face_at_the_analytic_time() {
    let s = scene(&format!(
        "{ROOM}[[bodies]]\nshape = \"mesh\"\nmesh = \"plate\"\nsize = [1.0, 0.1]\n\
         position = [0.0, 0.0, 0.0]\nvelocity = [0.0, 0.0, 1.0]\n\
         [[bodies]]\nshape = \"mesh\"\nmesh = \"plate\"\nsize = [0.7, 0.1]\n\
         position = [0.1, 0.2, 1.7]\nvelocity = [0.0, 0.0, -2.0]\n"
    ));
    let w = s.world::<DVec3>().unwrap();
    let shell = SHELL * (w.rigid()[0].radius + w.rigid()[1].radius);
    let mut sim = Simulation::new(w, BroadPhaseKind::AllPairs.build(&Default::default()), 2.0);
    let e = sim.step().expect("a contact");
    assert_eq!((e.kind, e.a, e.b), (EventKind::BodyBody, 0, 1));
    // Faces 1.5 apart closing at 3.
    let exact = 1.5 / 3.0;
    assert!(
        e.time <= exact && e.time >= exact - shell / 3.0,
        "{} vs {exact}",
        e.time
    );
    let gap = sim.world().mesh_distance(0, 1, e.time).unwrap();
    assert!(gap > 0.0 && gap <= shell, "gap {gap}, shell {shell}");
    // Equal and opposite: the plates bounce straight back (momentum exchanged along z).
    let v: Vec<f64> = sim.world().bodies().iter().map(|b| b.vel.z).collect();
    let m: Vec<f64> = sim.world().bodies().iter().map(|b| b.mass()).collect();
    assert!((m[0] * v[0] + m[1] * v[1] - (m[0] - 2.0 * m[1])).abs() < 1e-12 * m[0]);
    assert!(v[0] < 0.0 && v[1] > 0.0);
}

/// The demo scene and a denser one: energy conserved to round-off, each collision of two
/// bodies conserves their momentum and angular momentum, and dense sampling between events
/// finds the surfaces apart (tumbling tori: the drifting-spin enclosures).
#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn tumbling_meshes_conserve_and_never_overlap() {
    for text in [
        TORI.to_string(),
        TORI.replace("duration = 4.0", "duration = 8.0"),
    ] {
        let s = scene(&text);
        let w = s.world::<DVec3>().unwrap();
        let e0 = w.kinetic_energy();
        let mut sim = Simulation::new(
            w,
            BroadPhaseKind::Calendar.build(&Default::default()),
            s.duration,
        );
        let (mut last, mut events, mut meshes, mut worst_gap) = (0.0, 0, 0, f64::INFINITY);
        loop {
            let before = sim.world().clone();
            let Some(e) = sim.step() else { break };
            events += 1;
            for k in 1..=5 {
                let t = last + (e.time - last) * k as f64 / 6.0;
                worst_gap = worst_gap.min(min_gap(&before, t));
            }
            if e.kind == EventKind::BodyBody {
                let (a, b) = (e.a as usize, e.b as usize);
                let after = sim.world();
                if let Some(gap) = after.mesh_distance(a, b, e.time) {
                    // A tumbling body's enclosures may end a search early, where the pair is
                    // predicted again (no impulse); an impulse comes at the contact's gap.
                    assert!(gap > 0.0, "{e:?}: gap {gap}");
                    if after.bodies()[a].vel != before.bodies()[a].vel {
                        meshes += 1;
                        let shell = SHELL * (after.rigid()[a].radius + after.rigid()[b].radius);
                        assert!(gap <= 2.0 * shell, "{e:?}: gap {gap}");
                    }
                }
                let p = |w: &World<DVec3>| {
                    w.bodies()[a].vel * w.bodies()[a].mass()
                        + w.bodies()[b].vel * w.bodies()[b].mass()
                };
                let l = |w: &World<DVec3>| {
                    [a, b]
                        .map(|i| {
                            w.rigid()[i].angular_momentum()
                                + w.bodies()[i].pos.cross(w.bodies()[i].vel) * w.bodies()[i].mass()
                        })
                        .into_iter()
                        .sum::<DVec3>()
                };
                let (p0, p1) = (p(&before), p(after));
                assert!((p1 - p0).length() <= 1e-12 * p0.length().max(1.0), "{e:?}");
                // `before` holds the states at the bodies' own times: move them to the event.
                let mut moved = before.clone();
                moved.advance_body(a, e.time);
                moved.advance_body(b, e.time);
                let (l0, l1) = (l(&moved), l(after));
                assert!((l1 - l0).length() <= 1e-12 * l0.length().max(1.0), "{e:?}");
            }
            last = e.time;
        }
        let drift = (sim.world().kinetic_energy() - e0) / e0;
        println!(
            "{events} events ({meshes} of two meshes), drift {drift:.2e}, gap {worst_gap:.2e}"
        );
        assert!(meshes >= 3, "{meshes} contacts of two meshes");
        assert!(drift.abs() < 1e-12, "energy drift {drift}");
        assert!(worst_gap > 0.0, "overlap: least gap {worst_gap}");
    }
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn every_broad_phase_gives_the_same_log_with_meshes() {
    let mut text = String::from(
        "dim = 3\n[simulation]\nduration = 1.5\n[[walls]]\n\
         box = { min = [0.0, 0.0, 0.0], max = [6.0, 6.0, 6.0] }\n",
    );
    let meshes = ["icosphere", "torus", "spiky_ball", "plate"];
    for i in 0..8 {
        let (x, y, z) = (1.0 + 1.3 * (i % 4) as f64, 1.5 + 3.0 * (i / 4) as f64, 3.0);
        let size = match meshes[i % 4] {
            "icosphere" => "[0.45]",
            "torus" => "[0.45, 0.15]",
            "spiky_ball" => "[0.25, 1.8]",
            _ => "[0.4, 0.05]",
        };
        text += &format!(
            "[[bodies]]\nshape = \"mesh\"\nmesh = \"{}\"\nsize = {size}\n\
             position = [{x}, {y}, {z}]\nvelocity = [{}, {}, {}]\n\
             angular_velocity = [{}, {}, {}]\n",
            meshes[i % 4],
            (i as f64 * 0.7).sin() * 2.0,
            (i as f64 * 1.3).cos() * 2.0,
            (i as f64 * 0.4).sin(),
            (i as f64).cos() * 2.0,
            1.0,
            -(i as f64 * 0.5).sin() * 3.0,
        );
    }
    let s = scene(&text);
    let reference = records::<DVec3>(&s, BroadPhaseKind::AllPairs, &Default::default());
    assert!(reference.len() > 10, "{} events", reference.len());
    for kind in BroadPhaseKind::ALL {
        let log = records::<DVec3>(&s, kind, &Default::default());
        assert_same_log(&reference, &log, &format!("{kind:?}"));
    }
}

/// A procedural mesh written as an OBJ file and read back is the same body.
#[test]
fn a_mesh_file_makes_the_same_body_as_its_procedural_mesh() {
    let mesh = TriMesh::spiky_ball(0.5, 1.5, 1);
    let mut obj = String::new();
    for v in mesh.vertices() {
        obj += &format!("v {:?} {:?} {:?}\n", v[0], v[1], v[2]);
    }
    for t in mesh.triangles() {
        obj += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    let dir = std::env::temp_dir().join(format!("kairos-mesh-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("spiky.obj");
    std::fs::write(&path, obj).unwrap();
    let body = |mesh: &str| {
        scene(&format!(
            "{ROOM}[[bodies]]\nshape = \"mesh\"\n{mesh}\nposition = [1.0, 2.0, 3.0]\n"
        ))
        .world::<DVec3>()
        .unwrap()
    };
    let a = body(&format!("mesh = {:?}\nscale = 2.0", path.to_str().unwrap()));
    let b = body("mesh = \"spiky_ball\"\nsize = [1.0, 1.5]\ndetail = [1]");
    assert!((a.bodies()[0].mass() - b.bodies()[0].mass()).abs() < 1e-12 * b.bodies()[0].mass());
    assert!((a.bodies()[0].pos - b.bodies()[0].pos).length() < 1e-12);
    assert_eq!(a.rigid()[0].pieces, b.rigid()[0].pieces);
    std::fs::remove_dir_all(&dir).ok();
}

/// A ball through a torus's hole passes (its hull would stop it); a ball dropped on the top
/// of the tube hits the top vertex at the analytic time, less at most the contact shell.
#[test]
fn a_ball_passes_through_the_hole_and_hits_the_tube_on_time() {
    let s = scene(&format!(
        "{ROOM}[[bodies]]\nshape = \"mesh\"\nmesh = \"torus\"\nsize = [1.0, 0.3]\n\
         detail = [24, 12]\nposition = [0.0, 0.0, 0.0]\n\
         [[bodies]]\nposition = [0.0, 0.0, 2.0]\nvelocity = [0.0, 0.0, -1.0]\n\
         radius = 0.5\nmass = 1.0\n\
         [[bodies]]\nposition = [1.0, 0.0, -4.0]\nvelocity = [0.0, 0.0, 1.0]\n\
         radius = 0.1\nmass = 1.0\n"
    ));
    let w = s.world::<DVec3>().unwrap();
    let shell = SHELL * w.rigid()[0].radius;
    let mut sim = Simulation::new(w, BroadPhaseKind::AllPairs.build(&Default::default()), 5.0);
    let mut events = Vec::new();
    while let Some(e) = sim.step() {
        events.push(e);
    }
    // Ball 1 (radius 0.5) goes through the hole (inner radius 0.7, less the facets' sagitta).
    assert!(events.iter().all(|e| e.b != 1 && e.a != 1), "{events:?}");
    // Ball 2 rises, once ball 1 is through, under the bottom vertex of the tube at
    // (1, 0, -0.3): t = 3.6.
    let hit = events.iter().find(|e| e.b == 2 || e.a == 2).expect("a hit");
    assert!(hit.time <= 3.6 && hit.time >= 3.6 - 2.0 * shell, "{hit:?}");
    assert_eq!(events.len(), 1, "{events:?}");
}

/// Under gravity a tumbling torus and an icosphere dropped on it bounce (restitution 0.5),
/// come to rest on the floor, asleep, and never overlap.
#[test]
fn dropped_meshes_come_to_rest_apart() {
    let s = scene(
        "dim = 3\n[simulation]\nduration = 6.0\nrestitution = 0.5\n\
         gravity = [0.0, 0.0, -9.81]\n[[walls]]\n\
         box = { min = [0.0, 0.0, 0.0], max = [6.0, 6.0, 6.0] }\n\
         [[bodies]]\nshape = \"mesh\"\nmesh = \"torus\"\nsize = [1.0, 0.3]\n\
         position = [3.0, 3.0, 2.0]\norientation = [0.9, 0.3, 0.2, 0.1]\n\
         angular_velocity = [0.5, 2.0, -1.0]\n\
         [[bodies]]\nshape = \"mesh\"\nmesh = \"icosphere\"\nsize = [0.4]\n\
         position = [3.9, 3.1, 4.5]\n",
    );
    let w = s.world::<DVec3>().unwrap();
    let mut sim = Simulation::new(w, BroadPhaseKind::Calendar.build(&Default::default()), 6.0);
    let (mut meshes, mut least, mut last) = (0, f64::INFINITY, 0.0);
    loop {
        let before = sim.world().clone();
        let Some(e) = sim.step() else { break };
        for k in 1..=8 {
            least = least.min(min_gap(&before, last + (e.time - last) * k as f64 / 9.0));
        }
        let hit = before.bodies()[1].vel != sim.world().bodies()[1].vel;
        meshes += usize::from(e.kind == EventKind::BodyBody && hit);
        last = e.time;
    }
    assert!(meshes >= 2, "{meshes} contacts of the two meshes");
    assert!(least > 0.0, "overlap {least}");
    let w = sim.world();
    assert!(w.asleep().iter().all(|&a| a), "{:?}", w.asleep());
    // Each lies on the floor: the torus on its tube (not on its edge, 1.3 high), the icosphere
    // on a vertex or face.
    assert!(
        w.bodies()[0].pos.z < 1.0 && w.bodies()[1].pos.z < 0.45,
        "{:?}",
        w.bodies()
    );
}

/// A torus among a spinning box, a ball and a static box wall: its triangles are the pieces of
/// a compound body against them; energy is conserved, nothing overlaps, and the torus meets a
/// plane, the static box and a body.
#[test]
fn a_mesh_collides_with_convex_bodies_and_static_shapes() {
    let s = scene(
        "dim = 3\n[simulation]\nduration = 6.0\n[[walls]]\n\
         box = { min = [0.0, 0.0, 0.0], max = [6.0, 6.0, 6.0] }\n\
         [[walls]]\nshape = \"box\"\nhalf_extents = [0.3, 2.0, 0.3]\nposition = [3.0, 3.0, 1.0]\n\
         [[bodies]]\nshape = \"mesh\"\nmesh = \"torus\"\nsize = [0.8, 0.25]\n\
         position = [3.0, 3.0, 3.5]\nvelocity = [0.3, -0.2, -1.0]\n\
         angular_velocity = [1.0, 0.5, 2.0]\n\
         [[bodies]]\nshape = \"box\"\nhalf_extents = [0.3, 0.2, 0.1]\n\
         position = [1.0, 1.0, 3.5]\nvelocity = [1.2, 1.1, 0.1]\nangular_velocity = [3.0, 0.0, 1.0]\n\
         [[bodies]]\nposition = [5.0, 4.5, 3.4]\nvelocity = [-1.5, -0.8, 0.0]\n\
         radius = 0.3\nmass = 1.0\n",
    );
    let w = s.world::<DVec3>().unwrap();
    let e0 = w.kinetic_energy();
    let mut sim = Simulation::new(w, BroadPhaseKind::Calendar.build(&Default::default()), 6.0);
    let (mut last, mut least) = (0.0, f64::INFINITY);
    let mut kinds = std::collections::BTreeSet::new();
    loop {
        let before = sim.world().clone();
        let Some(e) = sim.step() else { break };
        for k in 1..=6 {
            least = least.min(min_gap(&before, last + (e.time - last) * k as f64 / 7.0));
        }
        if e.a == 0 || (e.kind == EventKind::BodyBody && e.b == 0) {
            kinds.insert((e.kind == EventKind::BodyBody, e.b));
        }
        last = e.time;
    }
    let drift = (sim.world().kinetic_energy() - e0) / e0;
    println!("torus contacts {kinds:?}, least gap {least:.2e}, drift {drift:.2e}");
    assert!(least > 0.0, "overlap {least}");
    assert!(drift.abs() < 1e-12, "energy drift {drift}");
    // The static box is wall 6 (after the room's six planes).
    assert!(kinds.contains(&(false, 6)), "{kinds:?}");
    assert!(kinds.iter().any(|&(pair, _)| pair), "{kinds:?}");
}

/// A trace and a checkpoint of a scene whose mesh is a file hold the mesh: a file changed (by
/// 1e-7 or more) or removed after the run changes neither what they replay nor what they
/// resume.
#[test]
fn traces_and_checkpoints_hold_their_mesh_files() {
    use kairos::checkpoint;
    use kairos::trace::{Record, Replay, TraceReader, TraceWriter};
    let dir = std::env::temp_dir().join(format!("kairos-mesh-held-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obj = dir.join("ball.obj");
    let write_obj = |shift: f64| {
        let mesh = TriMesh::icosphere(1.0, 1);
        let mut text = String::new();
        for (i, v) in mesh.vertices().iter().enumerate() {
            let x = if i == 0 { v[0] + shift } else { v[0] };
            text += &format!("v {x:?} {:?} {:?}\n", v[1], v[2]);
        }
        for t in mesh.triangles() {
            text += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
        }
        std::fs::write(&obj, text).unwrap();
    };
    write_obj(0.0);
    let scene = scene(&format!(
        "dim = 3\n[simulation]\nduration = 20.0\n[[walls]]\n\
         box = {{ min = [-3.0, -3.0, -3.0], max = [3.0, 3.0, 3.0] }}\n[[bodies]]\n\
         shape = \"mesh\"\nmesh = {:?}\nposition = [0.0, 0.0, 0.0]\n\
         velocity = [1.0, 0.5, 0.25]\nangular_velocity = [0.3, 0.2, 0.1]\n",
        obj.to_str().unwrap()
    ));
    let mut sim = Simulation::new(
        scene.world::<DVec3>().unwrap(),
        BroadPhaseKind::Calendar.build(&Default::default()),
        scene.duration,
    );
    let trace = dir.join("run.ktrace");
    let mut writer = TraceWriter::create_for_scene(&trace, &scene, "calendar").unwrap();
    let mut replay = Replay::for_scene(&scene);
    for _ in 0..3 {
        let e = sim.step().expect("the ball meets a wall");
        let r = Record::from_event(&e, sim.world(), sim.lookahead());
        writer.write(&r).unwrap();
        replay.apply(&r);
    }
    writer.finish(sim.now()).unwrap();
    let ck = dir.join("run.ckpt");
    checkpoint::write(&ck, &scene, &sim, &replay).unwrap();
    let end = sim.now();
    let expected = Replay::new(TraceReader::open(&trace).unwrap().header());
    let held = |what: &str| {
        let reader = TraceReader::open(&trace).unwrap_or_else(|e| panic!("{what}: {e}"));
        let embedded = reader.header().scene().unwrap();
        assert_eq!(embedded.bodies, scene.bodies, "{what}");
        assert_eq!(embedded.meshes, scene.meshes, "{what}");
        let (_, records) = reader.read_all().unwrap();
        let mut r = Replay::try_new(TraceReader::open(&trace).unwrap().header()).unwrap();
        let mut e = expected.clone();
        for rec in &records {
            r.apply(rec);
            e.apply(rec);
        }
        assert_eq!(r.orientation(0, end), e.orientation(0, end), "{what}");
        let resumed = checkpoint::read(&ck).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(resumed.scene.bodies, scene.bodies, "{what}");
        assert_eq!(resumed.scene.meshes, scene.meshes, "{what}");
    };
    held("as written");
    write_obj(1e-7);
    held("after a change of 1e-7 to one coordinate");
    write_obj(0.05);
    held("after a change of 0.05");
    std::fs::remove_file(&obj).unwrap();
    held("without the file");
    std::fs::remove_dir_all(&dir).ok();
}

/// A scene's `[meshes]` tables give meshes by name, checked as mesh files are; the scene
/// writes them back, and a scene of a mesh file writes that file's mesh.
#[test]
fn meshes_given_in_the_scene_are_checked_and_written_back() {
    let body = "[[bodies]]\nshape = \"mesh\"\nmesh = \"tetra\"\nposition = [0.0, 0.0, 0.0]\n";
    let tetra = "[meshes.tetra]\nvertices = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]\n";
    let s = scene(&format!(
        "{ROOM}{body}{tetra}triangles = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]\n"
    ));
    assert_eq!(s.meshes["tetra"].triangles().len(), 4);
    assert!((s.bodies[0].mass - 1.0 / 6.0).abs() < 1e-12);
    assert_eq!(scene(&s.to_toml()), s);
    for (tables, needle) in [
        (
            format!("{tetra}triangles = [[0, 2, 1], [0, 1, 9], [0, 3, 2], [1, 2, 3]]\n"),
            "[meshes] \"tetra\": triangle 1 names vertex 9, but there are 4 vertices",
        ),
        (
            format!("{tetra}triangles = [[0, 2, 1], [0, 1, 3], [0, 3, 2]]\n"),
            "the mesh is not closed",
        ),
        (
            format!("{tetra}triangles = [[0, 2], [0, 1, 3]]\n"),
            "[meshes] \"tetra\": triangle 0 must be 3 vertex indices",
        ),
        (tetra.to_string(), "[meshes] \"tetra\": missing `triangles`"),
        (
            "[meshes.torus]\nvertices = []\ntriangles = []\n".into(),
            "[meshes] \"torus\": is the name of a procedural mesh",
        ),
    ] {
        let e = error(&format!("{ROOM}{body}{tables}"));
        assert!(e.contains(needle), "{e}");
    }
}
