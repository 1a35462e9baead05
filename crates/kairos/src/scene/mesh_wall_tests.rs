//! A mesh body's contact with a wall through its sphere tree (`rigid_mesh::mesh_wall`), on
//! worlds made from scenes: here, where the scene may use the world and the meshes (a test in
//! `rigid_mesh` that read scenes would make an import circle).

use crate::ball_toi::Toi;
use crate::rigid::{pieces_body_wall, MovingPiece};
use crate::rigid_mesh::mesh_wall;
use crate::scene::Scene;
use crate::world::World;
use glam::DVec3;
use std::cell::Cell;

/// A mesh body (`mesh`, with its `detail` line) moving with `motion` (TOML lines) in a box room of side 10
/// with a slanted polygon and a static box in it, under `gravity`.
fn world(mesh: &str, detail: &str, motion: &str, gravity: f64) -> World<DVec3> {
    let text = format!(
        "dim = 3\n[simulation]\nduration = 20.0\ngravity = [0.0, 0.0, {gravity}]\n\
         [[walls]]\nbox = {{ min = [0.0, 0.0, 0.0], max = [10.0, 10.0, 10.0] }}\n\
         [[walls]]\npolygon = [[1.0, 8.0, 1.0], [4.0, 9.0, 1.0], [4.0, 9.0, 6.0], [1.0, 8.0, 6.0]]\n\
         [[walls]]\nshape = \"box\"\nhalf_extents = [0.6, 0.4, 0.5]\nposition = [8.0, 2.5, 7.0]\n\
         orientation = [0.9, 0.1, 0.3, 0.2]\n\
         [[bodies]]\nshape = \"mesh\"\nmesh = \"{mesh}\"\n{detail}\nmass = 1.0\n{motion}\n"
    );
    Scene::from_toml_str(&text).unwrap().world().unwrap()
}

/// Body 0's first contact with wall `w` by `t_max` through the tree, and how many triangles it
/// advanced.
fn through_tree(world: &World<DVec3>, w: usize, t_max: f64) -> (Toi, usize) {
    let advanced = Cell::new(0);
    let (b, r) = (&world.bodies[0], &world.rigid[0]);
    let piece = |k| {
        advanced.set(advanced.get() + 1);
        MovingPiece::nth_piece(&world.shapes, b, r, world.accel(0), k)
    };
    let mesh = &world.meshes[r.mesh.unwrap() as usize].body;
    let toi = mesh_wall(&world.mover(0), mesh, piece, &world.wall_pieces[w], t_max);
    (toi, advanced.get())
}

/// Through the sphere tree, a mesh body's contact with a polygon or a static shape is the one
/// its triangles give one by one, with the same bits (time and status), by any bound: small
/// meshes flying, spinning, tumbling and falling towards the walls of a room, a slanted
/// polygon and a static box, from several starts.
#[test]
fn through_the_tree_a_mesh_meets_a_wall_when_its_triangles_do() {
    let meshes = [
        ("torus", "detail = [16, 8]"),
        ("icosphere", "detail = [2]"),
        ("spiky_ball", "detail = [1]"),
        ("plate", ""),
    ];
    let motions = [
        ("position = [5.0, 5.0, 5.0]\nvelocity = [3.0, 1.5, 0.6]", 0.0),
        (
            "position = [5.0, 6.0, 4.0]\nvelocity = [-2.0, 3.0, -1.0]\nangular_velocity = [0.3, 2.0, 0.1]",
            0.0,
        ),
        (
            "position = [4.0, 4.0, 6.0]\nvelocity = [1.0, 2.5, 1.5]\nangular_velocity = [4.0, -1.0, 7.0]",
            -10.0,
        ),
        (
            "position = [6.0, 3.0, 5.0]\nvelocity = [2.0, -0.5, 3.0]\norientation = [0.8, 0.2, 0.5, 0.1]\nangular_velocity = [-9.0, 0.5, 1.0]",
            -3.0,
        ),
    ];
    let mut hits = 0;
    for (mesh, detail) in meshes {
        for (motion, gravity) in motions {
            let world = world(mesh, detail, motion, gravity);
            for w in 0..world.wall_pieces.len() {
                let pieces = world.pieces(0);
                let one_by_one = pieces_body_wall(pieces, &world.wall_pieces[w], f64::INFINITY);
                for t_max in [f64::INFINITY, 3.0, 1.0, 0.5] {
                    let (toi, _) = through_tree(&world, w, t_max);
                    let what = format!("{mesh}, {motion}, wall {w}, by {t_max}");
                    if one_by_one.is_hit() && one_by_one.time <= t_max {
                        assert_eq!(toi.time.to_bits(), one_by_one.time.to_bits(), "{what}");
                        assert_eq!(toi.status, one_by_one.status, "{what}");
                        hits += 1;
                    } else {
                        assert!(!(toi.is_hit() && toi.time <= t_max), "{what}: {toi:?}");
                    }
                }
            }
        }
    }
    assert!(hits >= 40, "{hits} contacts compared");
}

/// A torus of 2 x 160 x 160 = 51,200 triangles flying and spinning into the walls of a room:
/// through the tree, each contact advances some hundreds of triangles (the pieces advanced one
/// by one were all 51,200).
#[test]
fn through_the_tree_a_large_mesh_advances_few_of_its_triangles() {
    let world = world(
        "torus",
        "detail = [160, 160]",
        "position = [5.0, 5.0, 5.0]\nvelocity = [3.0, 1.5, 0.6]\nangular_velocity = [0.3, 0.2, 0.1]",
        0.0,
    );
    let triangles = world.rigid[0].pieces as usize;
    assert_eq!(triangles, 51_200);
    let mut contacts = 0;
    for w in 0..6 {
        let (toi, advanced) = through_tree(&world, w, f64::INFINITY);
        if toi.is_hit() {
            contacts += 1;
            assert!(advanced * 40 < triangles, "wall {w}: {advanced} advanced");
        }
    }
    assert_eq!(
        contacts, 1,
        "the wall ahead of it (it leaves the room through it, then misses the others' polygons)"
    );
}
