//! Messages of refused input say what is wrong with it: collinear polygons, coordinates and
//! scales out of range, damaged STL files, a detail a shape does not take, the value that is
//! out of range (not another), numbers in exponent form, data after a trace's footer.

use kairos::ccd::mesh::TriMesh;
use kairos::generate::{billiard, polygons, BilliardParams, RigidGasParams};
use kairos::prelude::*;
use kairos::trace::{Record, TraceHeader, TraceReader, TraceWriter};

fn error(text: &str) -> String {
    match Scene::from_toml_str(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kairos-messages-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const ROOM2: &str = "dim = 2\n[simulation]\nduration = 1.0\n";
const ROOM3: &str = "dim = 3\n[simulation]\nduration = 1.0\n";

#[test]
fn a_polygon_on_a_line_is_collinear_not_crossing() {
    for vertices in [
        "[[0, 0], [1, 0], [2, 0]]",
        "[[0, 0], [2, 0], [1, 0]]",
        "[[0, 0], [1, 1], [2, 2], [3, 3]]",
    ] {
        let e = error(&format!(
            "{ROOM2}[[bodies]]\nshape = \"polygon\"\nposition = [0, 0]\nvertices = {vertices}\n"
        ));
        assert!(
            e.contains("collinear") && !e.contains("cross"),
            "{vertices}: {e}"
        );
    }
}

#[test]
fn mesh_coordinates_and_scales_beyond_the_arithmetic_are_out_of_range() {
    let dir = tempdir("obj");
    let obj = dir.join("big.obj");
    std::fs::write(
        &obj,
        "v 0 0 0\nv 1e200 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n",
    )
    .unwrap();
    let e = kairos::mesh_file::load(&obj).unwrap_err().to_string();
    assert!(
        e.contains("big.obj") && e.contains("vertex 1") && e.contains("1e200"),
        "{e}"
    );
    assert!(e.contains("out of range"), "{e}");
    let e = TriMesh::new(
        vec![[0.0; 3], [0.0, -1e101, 0.0], [1.0, 0.0, 0.0]],
        vec![[0, 1, 2]],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("vertex 1") && e.contains("out of range"), "{e}");
    for scale in ["1e90", "1e-300", "1e70", "1e-70"] {
        let e = error(&format!(
            "{ROOM3}[[bodies]]\nshape = \"mesh\"\nmesh = \"icosphere\"\nscale = {scale}\n\
             position = [0, 0, 0]\n"
        ));
        assert!(
            e.contains("scale")
                && e.contains("out of range")
                && e.contains("from 1e-50 to 1e50")
                && !e.contains("collinear"),
            "{scale}: {e}"
        );
    }
    // Within the range, the same mesh is a body.
    for scale in ["1e20", "1e-20"] {
        Scene::from_toml_str(&format!(
            "{ROOM3}[[bodies]]\nshape = \"mesh\"\nmesh = \"icosphere\"\nscale = {scale}\n\
             position = [0, 0, 0]\n"
        ))
        .unwrap_or_else(|e| panic!("{scale}: {e}"));
    }
}

#[test]
fn damaged_stl_files_say_how() {
    let dir = tempdir("stl");
    let path = dir.join("m.stl");
    let load = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        kairos::mesh_file::load(&path).unwrap_err().to_string()
    };
    let e = load(b"");
    assert!(e.contains("m.stl") && e.contains("empty"), "{e}");
    // A binary STL: 80 bytes of header, a count, 50 bytes per triangle.
    let mut good = vec![0u8; 80];
    good.extend_from_slice(&4u32.to_le_bytes());
    let tri = |a: [f32; 3], b: [f32; 3], c: [f32; 3]| {
        let mut t = vec![0u8; 12];
        for p in [a, b, c] {
            for x in p {
                t.extend_from_slice(&x.to_le_bytes());
            }
        }
        t.extend_from_slice(&[0, 0]);
        t
    };
    let (o, x, y, z) = ([0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
    for t in [tri(o, y, x), tri(o, x, z), tri(o, z, y), tri(x, y, z)] {
        good.extend_from_slice(&t);
    }
    std::fs::write(&path, &good).unwrap();
    kairos::mesh_file::load(&path).unwrap();
    let e = load(&good[..good.len() - 30]);
    assert!(
        e.contains("truncated") && e.contains("4 triangles") && e.contains("284 bytes"),
        "{e}"
    );
    let e = load(&good[..50]);
    assert!(e.contains("truncated"), "{e}");
    let random: Vec<u8> = (0..1000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let e = load(&random);
    assert!(e.contains("not an STL file"), "{e}");
    for e in [load(b""), load(&good[..50]), load(&random)] {
        assert!(!e.contains("failed to fill whole buffer"), "{e}");
    }
}

#[test]
fn a_plate_takes_no_detail() {
    let e = error(&format!(
        "{ROOM3}[[bodies]]\nshape = \"mesh\"\nmesh = \"plate\"\ndetail = [2]\n\
         position = [0, 0, 0]\n"
    ));
    assert!(e.contains("a plate takes no `detail`"), "{e}");
}

#[test]
fn the_value_out_of_range_is_the_one_reported() {
    let p = RigidGasParams {
        n: 4,
        speed: f64::INFINITY,
        ..Default::default()
    };
    let e = polygons(&p).unwrap_err().to_string();
    assert!(e.contains("speed") && e.contains("got inf"), "{e}");
    let p = RigidGasParams {
        n: 4,
        spin: -2.0,
        ..Default::default()
    };
    let e = polygons(&p).unwrap_err().to_string();
    assert!(e.contains("spin") && e.contains("got -2"), "{e}");
    // A turn beyond what a run resolves names the spin, the duration and their product; the
    // bullet scene, which has no spin option, says so in the same words.
    let p = RigidGasParams {
        n: 4,
        duration: 1e9,
        ..Default::default()
    };
    let e = polygons(&p).unwrap_err().to_string();
    assert!(
        e.contains("times duration 1000000000") && e.contains("at most 1e8"),
        "{e}"
    );
    let p = kairos::generate::BulletParams {
        duration: 3e6,
        ..Default::default()
    };
    let e = kairos::generate::bullet(&p).unwrap_err().to_string();
    assert!(e.contains("spin 40 times duration 3000000"), "{e}");
}

#[test]
fn overlaps_and_crossings_print_extreme_sizes_in_exponent_form() {
    let e = error(
        "dim = 2\n[simulation]\nduration = 1.0\n\
         [[bodies]]\nposition = [0.0, 0.0]\nvelocity = [0.0, 0.0]\nradius = 1e-100\n\
         [[bodies]]\nposition = [1e-160, 0.0]\nvelocity = [0.0, 0.0]\nradius = 1e-100\n",
    );
    assert!(
        e.contains("overlaps body 1")
            && e.contains("radii sum 2e-100")
            && e.contains("centre distance 1e-160"),
        "{e}"
    );
    // Below 1e-100 a body is refused for its size, before any overlap is measured.
    let e = error(
        "dim = 2\n[simulation]\nduration = 1.0\n\
         [[bodies]]\nposition = [0.0, 0.0]\nvelocity = [0.0, 0.0]\nradius = 1e-170\n\
         [[bodies]]\nposition = [3e-170, 0.0]\nvelocity = [-2e-170, 0.0]\nradius = 1e-170\n",
    );
    assert!(
        e.contains("body 0") && e.contains("`radius` is too small (1e-170; at least 1e-100"),
        "{e}"
    );

    let e = error(
        "dim = 2\n[simulation]\nduration = 1.0\n[[walls]]\nbox = { min = [0.0, 0.0], max = [1e99, 1e99] }\n\
         [[bodies]]\nposition = [5e97, 5e98]\nvelocity = [0.0, 0.0]\nradius = 1e98\n",
    );
    assert!(e.contains("crosses") && e.contains("radius 1e98"), "{e}");
}

#[test]
fn huge_and_tiny_numbers_are_printed_in_exponent_form() {
    let e = billiard(&BilliardParams {
        restitution: 1e300,
        ..Default::default()
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("got 1e300"), "{e}");
    let e = error(&format!(
        "{ROOM2}[[bodies]]\nposition = [1, 1]\nvelocity = [0, 0]\nradius = -1e-300\n"
    ));
    assert!(e.contains("-1e-300"), "{e}");
    for e in [
        billiard(&BilliardParams {
            radius_min: 1e300,
            radius_max: 1e299,
            ..Default::default()
        }),
        billiard(&BilliardParams {
            packing: 1e-300,
            ..Default::default()
        }),
    ]
    .map(|r| r.unwrap_err().to_string())
    {
        assert!(e.len() < 300, "{e}");
    }
}

#[test]
fn billiard_parameters_that_would_outgrow_memory_are_refused_or_cheap() {
    // A sparse or elongated table no longer makes a grid of cells one diameter wide.
    for p in [
        BilliardParams {
            packing: 1e-300,
            ..Default::default()
        },
        BilliardParams {
            radius_max: 1e300,
            ..Default::default()
        },
        BilliardParams {
            aspect: 1e300,
            ..Default::default()
        },
    ] {
        assert!(billiard(&p).is_err());
    }
    let s = billiard(&BilliardParams {
        n: 20,
        packing: 1e-9,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(s.bodies.len(), 20);
    let s = billiard(&BilliardParams {
        n: 20,
        aspect: 1e3,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(s.bodies.len(), 20);
}

#[test]
fn data_after_a_traces_footer_is_named() {
    let dir = tempdir("trace");
    let path = dir.join("t.ktrace");
    let scene = billiard(&BilliardParams {
        n: 10,
        duration: 1.0,
        ..Default::default()
    })
    .unwrap();
    let header = TraceHeader::for_scene(&scene, "all-pairs");
    let mut w = TraceWriter::create(&path, &header).unwrap();
    let mut sim = Simulation::new(
        scene.world::<DVec2>().unwrap(),
        BroadPhaseKind::AllPairs.build(&Default::default()),
        1.0,
    );
    sim.run(|e, world, dt| w.write(&Record::from_event(e, world, dt)).unwrap());
    w.finish(1.0).unwrap();
    TraceReader::open(&path).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"12345678");
    std::fs::write(&path, &bytes).unwrap();
    let e = TraceReader::open(&path).err().unwrap().to_string();
    assert!(
        e.contains("8 bytes after the footer") && !e.contains("no footer"),
        "{e}"
    );
}
