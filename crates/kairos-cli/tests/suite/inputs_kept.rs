//! Every file a command reads is an input that no output may replace: besides the scene, the
//! trace and the checkpoint, the mesh files a scene's bodies name and its `bodies_file`; a
//! generated scene never replaces a bodies file it was not given; generators never write
//! what the reader refuses.

use crate::common;

use std::path::Path;

use common::{kairos, listing, ok, tempdir, text};

fn fails_with(o: &std::process::Output, needle: &str) {
    assert_eq!(
        o.status.code(),
        Some(2),
        "stdout: {}\nstderr: {}",
        text(&o.stdout),
        text(&o.stderr)
    );
    let err = text(&o.stderr);
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
}

/// A closed tetrahedron, faces wound outwards.
const TETRA_OBJ: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

/// The tetrahedron as a binary STL.
fn tetra_stl() -> Vec<u8> {
    let v = [[0f32, 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]];
    let faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let mut b = vec![0u8; 80];
    b.extend_from_slice(&(faces.len() as u32).to_le_bytes());
    for f in faces {
        b.extend_from_slice(&[0u8; 12]);
        for i in f {
            for x in v[i] {
                b.extend_from_slice(&x.to_le_bytes());
            }
        }
        b.extend_from_slice(&[0u8; 2]);
    }
    b
}

fn mesh_scene(mesh: &str) -> String {
    format!(
        "dim = 3\n[simulation]\nduration = 10.0\n[[walls]]\n\
         box = {{ min = [-5.0, -5.0, -5.0], max = [5.0, 5.0, 5.0] }}\n[[bodies]]\n\
         shape = \"mesh\"\nmesh = \"{mesh}\"\nposition = [0.0, 0.0, 0.0]\n\
         velocity = [1.0, 0.5, 0.0]\n"
    )
}

/// Runs every case, each expected to be refused naming the input, and checks that nothing in
/// `dir` changed.
fn all_refused(dir: &Path, cases: &[&[&str]], input: &str) {
    let files: Vec<(String, Vec<u8>)> = listing(dir)
        .into_iter()
        .filter(|f| dir.join(f).is_file())
        .map(|f| {
            let bytes = std::fs::read(dir.join(&f)).unwrap();
            (f, bytes)
        })
        .collect();
    let before = listing(dir);
    for args in cases {
        let o = kairos(args, dir);
        fails_with(&o, "the same file as the input");
        fails_with(&o, input);
    }
    assert_eq!(listing(dir), before, "no output appeared");
    for (f, bytes) in files {
        assert_eq!(std::fs::read(dir.join(&f)).unwrap(), bytes, "{f} changed");
    }
}

#[test]
fn a_scenes_mesh_files_are_inputs_of_every_command() {
    let dir = tempdir("mesh-inputs");
    std::fs::write(dir.join("m.obj"), TETRA_OBJ).unwrap();
    std::fs::write(dir.join("m.stl"), tetra_stl()).unwrap();
    std::fs::write(dir.join("obj.toml"), mesh_scene("m.obj")).unwrap();
    std::fs::write(dir.join("stl.toml"), mesh_scene("m.stl")).unwrap();
    ok(&kairos(&["run", "obj.toml", "-q", "-o", "t.ktrace"], &dir));
    ok(&kairos(&["run", "stl.toml", "-q", "-o", "s.ktrace"], &dir));
    ok(&kairos(
        &[
            "run",
            "obj.toml",
            "-q",
            "--no-trace",
            "--checkpoint",
            "c.ck",
            "--every",
            "0.5",
        ],
        &dir,
    ));
    #[cfg(unix)]
    std::os::unix::fs::symlink("m.obj", dir.join("link.svg")).unwrap();
    std::fs::hard_link(dir.join("m.obj"), dir.join("hard.csv")).unwrap();
    let mut cases: Vec<&[&str]> = vec![
        &["run", "obj.toml", "-q", "-o", "m.obj"],
        &["run", "obj.toml", "-q", "-o", "./m.obj"],
        &[
            "run",
            "obj.toml",
            "-q",
            "--no-trace",
            "--summary-json",
            "m.obj",
        ],
        &[
            "run",
            "obj.toml",
            "-q",
            "--no-trace",
            "--checkpoint",
            "m.obj",
            "--every",
            "0.5",
        ],
        &["run", "stl.toml", "-q", "-o", "m.stl"],
        &["run", "--resume", "c.ck", "-q", "-o", "m.obj"],
        &[
            "run",
            "--resume",
            "c.ck",
            "-q",
            "--no-trace",
            "--summary-json",
            "m.obj",
        ],
        &["export", "t.ktrace", "--events", "m.obj"],
        &["export", "t.ktrace", "--final", "hard.csv"],
        &["frames", "t.ktrace", "--every", "0.5", "-o", "m.obj"],
        &["view", "t.ktrace", "-o", "m.obj"],
        &["view", "s.ktrace", "-o", "m.stl"],
        &["snapshot", "t.ktrace", "--time", "0.5", "-o", "m.obj"],
    ];
    #[cfg(unix)]
    cases.push(&["snapshot", "t.ktrace", "--time", "0.5", "-o", "link.svg"]);
    all_refused(&dir, &cases, "the mesh of body 0");
    // The scene still runs.
    ok(&kairos(&["run", "obj.toml", "-q", "--no-trace"], &dir));
}

#[test]
fn a_scenes_bodies_file_is_an_input() {
    let dir = tempdir("bodies-file-input");
    ok(&kairos(
        &[
            "generate",
            "billiard",
            "--n",
            "30",
            "--duration",
            "1",
            "--bodies-in",
            "xyz",
            "-o",
            "b.toml",
        ],
        &dir,
    ));
    assert!(dir.join("b.xyz").exists());
    let cases: &[&[&str]] = &[
        &["run", "b.toml", "-q", "-o", "b.xyz"],
        &[
            "run",
            "b.toml",
            "-q",
            "--no-trace",
            "--summary-json",
            "b.xyz",
        ],
        &[
            "run",
            "b.toml",
            "-q",
            "--no-trace",
            "--checkpoint",
            "b.xyz",
            "--every",
            "0.5",
        ],
    ];
    all_refused(&dir, cases, "the scene's bodies_file");
    ok(&kairos(&["run", "b.toml", "-q", "--no-trace"], &dir));
}

#[test]
fn generate_keeps_a_bodies_file_it_was_not_given() {
    let dir = tempdir("companion");
    std::fs::write(dir.join("g.xyz"), "precious\n").unwrap();
    let generate = |extra: &[&str]| {
        let mut args = vec![
            "generate",
            "gas",
            "--n",
            "20",
            "--packing",
            "0.1",
            "--bodies-in",
            "xyz",
            "-o",
            "g.toml",
        ];
        args.extend_from_slice(extra);
        kairos(&args, &dir)
    };
    let o = generate(&[]);
    fails_with(&o, "g.xyz: exists and is not the bodies file of g.toml");
    fails_with(&o, "--force");
    assert_eq!(std::fs::read(dir.join("g.xyz")).unwrap(), b"precious\n");
    assert_eq!(listing(&dir), ["g.xyz"]);
    // With --force it is replaced; then it is the scene's own, replaced with it again.
    ok(&generate(&["--force"]));
    ok(&kairos(&["run", "g.toml", "-q", "--no-trace"], &dir));
    ok(&generate(&["--seed", "2"]));
    ok(&kairos(&["run", "g.toml", "-q", "--no-trace"], &dir));
    // Another scene's bodies file is not this output's.
    std::fs::rename(dir.join("g.xyz"), dir.join("h.xyz")).unwrap();
    let toml = std::fs::read_to_string(dir.join("g.toml")).unwrap();
    std::fs::write(dir.join("g.toml"), toml.replace("g.xyz", "h.xyz")).unwrap();
    std::fs::write(dir.join("g.xyz"), "another\n").unwrap();
    fails_with(&generate(&[]), "is not the bodies file of g.toml");
    assert_eq!(std::fs::read(dir.join("g.xyz")).unwrap(), b"another\n");
}

#[test]
fn resuming_into_the_same_checkpoint_keeps_it_whole() {
    let dir = tempdir("rolling");
    ok(&kairos(
        &[
            "generate",
            "billiard",
            "--n",
            "40",
            "--seed",
            "3",
            "--duration",
            "2",
            "-o",
            "s.toml",
        ],
        &dir,
    ));
    ok(&kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "-o",
            "full.ktrace",
            "--checkpoint",
            "c.ck",
            "--every",
            "0.5",
        ],
        &dir,
    ));
    // A checkpoint at 1.0 to resume from, rolled forward into itself.
    ok(&kairos(
        &[
            "run",
            "s.toml",
            "-q",
            "--no-trace",
            "--checkpoint",
            "c.ck",
            "--every",
            "1.0",
        ],
        &dir,
    ));
    let before = std::fs::read(dir.join("c.ck")).unwrap();
    // An output that cannot be written stops the run before the checkpoint is touched.
    let o = kairos(
        &[
            "run",
            "--resume",
            "c.ck",
            "-q",
            "-o",
            "nodir/r.ktrace",
            "--checkpoint",
            "c.ck",
            "--every",
            "0.25",
        ],
        &dir,
    );
    fails_with(&o, "nodir/r.ktrace");
    assert_eq!(std::fs::read(dir.join("c.ck")).unwrap(), before);
    ok(&kairos(
        &[
            "run",
            "--resume",
            "c.ck",
            "-q",
            "-o",
            "r.ktrace",
            "--checkpoint",
            "c.ck",
            "--every",
            "0.25",
        ],
        &dir,
    ));
    assert!(kairos::checkpoint::read(&dir.join("c.ck")).is_ok());
    assert_ne!(
        std::fs::read(dir.join("c.ck")).unwrap(),
        before,
        "the checkpoint rolled forward"
    );
    assert!(listing(&dir).iter().all(|f| !f.contains("partial")));
    // The resumed events are the uninterrupted run's after the checkpoint.
    let o = kairos(&["export", "r.ktrace", "--final", "r.csv"], &dir);
    ok(&o);
    ok(&kairos(
        &["export", "full.ktrace", "--final", "f.csv"],
        &dir,
    ));
    assert_eq!(
        std::fs::read(dir.join("r.csv")).unwrap(),
        std::fs::read(dir.join("f.csv")).unwrap()
    );
}

#[test]
fn generators_never_write_what_run_refuses() {
    let dir = tempdir("generated-readable");
    let huge = ["1e300", "1e200", "1e101"];
    let mut cases: Vec<Vec<&str>> = Vec::new();
    for v in huge {
        cases.push(vec!["billiard", "--n", "5", "--duration", v]);
        cases.push(vec![
            "billiard",
            "--n",
            "5",
            "--dim",
            "3",
            "--radius-max",
            v,
        ]);
        cases.push(vec!["billiard", "--n", "5", "--aspect", v]);
        cases.push(vec!["gas", "--n", "5", "--packing", "0.1", "--duration", v]);
        cases.push(vec!["gas", "--n", "5", "--packing", "0.1", "--mass", v]);
        cases.push(vec!["polygons", "--n", "5", "--duration", v]);
        cases.push(vec!["polygons", "--n", "5", "--speed", v]);
        cases.push(vec!["boxes", "--n", "5", "--spin", v]);
        cases.push(vec!["bullet", "--duration", v]);
        cases.push(vec![
            "drop",
            "--balls",
            "2",
            "--boxes",
            "2",
            "--duration",
            v,
        ]);
        cases.push(vec!["drop", "--balls", "2", "--boxes", "2", "--gravity", v]);
    }
    for tiny in ["1e-20", "1e-300", "5e-324"] {
        cases.push(vec!["billiard", "--n", "5", "--packing", tiny]);
        cases.push(vec![
            "billiard",
            "--n",
            "5",
            "--dim",
            "3",
            "--packing",
            tiny,
        ]);
        cases.push(vec!["billiard", "--n", "5", "--radius-min", tiny]);
        cases.push(vec!["gas", "--n", "5", "--packing", "0.1", "--mass", tiny]);
    }
    for case in cases {
        let _ = std::fs::remove_file(dir.join("g.toml"));
        let mut args = vec!["generate"];
        args.extend_from_slice(&case);
        args.extend_from_slice(&["-o", "g.toml"]);
        let o = kairos(&args, &dir);
        match o.status.code() {
            Some(0) => {
                let r = kairos(
                    &["run", "g.toml", "-q", "--no-trace", "--max-events", "10"],
                    &dir,
                );
                let err = text(&r.stderr);
                assert!(
                    r.status.success() || err.contains("--max-events"),
                    "{case:?}: generated, then refused by run: {err}"
                );
            }
            Some(2) => {
                let err = text(&o.stderr);
                assert!(!err.contains("panicked"), "{case:?}: {err}");
                assert!(
                    !dir.join("g.toml").exists(),
                    "{case:?}: written and refused"
                );
            }
            c => panic!("{case:?}: exit {c:?}: {}", text(&o.stderr)),
        }
    }
    let o = kairos(
        &[
            "generate",
            "polygons",
            "--n",
            "5",
            "--duration",
            "1e300",
            "-o",
            "g.toml",
        ],
        &dir,
    );
    fails_with(&o, "duration is too large (1e300");
}

/// A scene is read once, so it can come through a pipe; a device that streams for ever is
/// refused before anything is read (a scene, a mesh, a query file), not read until the memory
/// is full.
#[cfg(unix)]
#[test]
fn inputs_come_through_pipes_and_devices_are_refused() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = tempdir("inputs-pipes");
    ok(&kairos(
        &[
            "generate",
            "billiard",
            "--n",
            "5",
            "--duration",
            "1",
            "-o",
            "b.toml",
        ],
        &dir,
    ));
    let scene = std::fs::read(dir.join("b.toml")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(["run", "/dev/stdin", "--no-trace", "-q"])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&scene).unwrap();
    ok(&child.wait_with_output().unwrap());
    fails_with(
        &kairos(&["run", "/dev/zero", "--no-trace"], &dir),
        "not a regular file or a pipe",
    );
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.obj")).unwrap();
    std::fs::write(dir.join("m.toml"), mesh_scene("zero.obj")).unwrap();
    fails_with(
        &kairos(&["run", "m.toml", "--no-trace"], &dir),
        "not a regular file or a pipe",
    );
    fails_with(
        &kairos(&["query", "/dev/zero"], &dir),
        "not a regular file or a pipe",
    );
}
