//! Large scenes keep their bodies in an extended-XYZ file beside the TOML: the same scene, the
//! same events, a fraction of the memory.

use crate::common;

use common::{json, kairos, ok, tempdir, text};

#[test]
fn generate_writes_large_scenes_with_a_bodies_file_that_runs_identically() {
    let dir = tempdir("xyz");
    let gen = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "generate",
            "gas",
            "--dim",
            "2",
            "--n",
            "12000",
            "--packing",
            "0.4",
            "--duration",
            "0.05",
            "-o",
            out,
        ];
        args.extend(extra);
        ok(&kairos(&args, &dir));
    };
    gen("big.toml", &[]);
    gen("inline.toml", &["--bodies-in", "toml"]);
    assert!(
        dir.join("big.xyz").exists(),
        "above 10,000 bodies: a bodies file"
    );
    assert!(!dir.join("inline.xyz").exists());
    let toml = std::fs::read_to_string(dir.join("big.toml")).unwrap();
    assert!(toml.contains("bodies_file = \"big.xyz\"") && !toml.contains("[[bodies]]"));
    assert!(toml.len() < 1000);
    let a = kairos::scene::Scene::load(&dir.join("big.toml")).unwrap();
    let b = kairos::scene::Scene::load(&dir.join("inline.toml")).unwrap();
    assert_eq!(a, b, "bit for bit the same scene");
    for (scene, trace) in [("big.toml", "a.ktrace"), ("inline.toml", "b.ktrace")] {
        ok(&kairos(
            &["run", scene, "-q", "-o", trace, "--summary-json", "s.json"],
            &dir,
        ));
        let s = json(&dir.join("s.json"));
        assert!(s["load_seconds"].as_f64().unwrap() >= 0.0);
        assert_eq!(s["bodies"], 12000);
    }
    ok(&kairos(&["diff", "a.ktrace", "b.ktrace"], &dir));
    // A scene from anywhere finds its bodies file beside it.
    std::fs::create_dir(dir.join("sub")).unwrap();
    ok(&kairos(
        &["run", "../big.toml", "-q", "--no-trace"],
        &dir.join("sub"),
    ));
    // Small scenes stay in TOML unless asked.
    ok(&kairos(
        &[
            "generate",
            "billiard",
            "--n",
            "30",
            "-o",
            "small.toml",
            "--bodies-in",
            "xyz",
        ],
        &dir,
    ));
    ok(&kairos(&["run", "small.toml", "-q", "--no-trace"], &dir));
}

#[test]
fn bodies_file_errors_name_the_file_line_and_body() {
    let dir = tempdir("xyz-errors");
    let scene = "dim = 2\nbodies_file = \"b.xyz\"\n[simulation]\nduration = 1.0\n[boundary]\nperiodic = [10.0, 10.0]\n";
    std::fs::write(dir.join("s.toml"), scene).unwrap();
    let o = kairos(&["run", "s.toml", "-q"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("s.toml: scene: bodies_file"),
        "{}",
        text(&o.stderr)
    );
    assert!(
        text(&o.stderr).contains("b.xyz: cannot read"),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(
        dir.join("b.xyz"),
        "2\nProperties=species:S:1:pos:R:3:radius:R:1\nA 1 1 0 0.5\nA 1.5 1 0 0.5\n",
    )
    .unwrap();
    let o = kairos(&["run", "s.toml", "-q"], &dir);
    assert!(
        text(&o.stderr).contains("body 0: overlaps body 1"),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(
        dir.join("b.xyz"),
        "2\nProperties=species:S:1:pos:R:3:radius:R:1\nA 1 1 0 0.5\nA 5 1 0 -0.5\n",
    )
    .unwrap();
    let o = kairos(&["run", "s.toml", "-q"], &dir);
    assert!(
        text(&o.stderr).contains("body 1: b.xyz, line 4: `radius` must be positive"),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(
        dir.join("b.xyz"),
        "2\nProperties=species:S:1:pos:R:3:radius:R:1\nA nan 1 0 0.5\nA 5 1 0 0.5\n",
    )
    .unwrap();
    let o = kairos(&["run", "s.toml", "-q"], &dir);
    assert!(
        text(&o.stderr).contains("body 0: b.xyz, line 3: `position` must be finite, got NaN"),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(dir.join("e.toml"), scene.replace("b.xyz", "")).unwrap();
    let o = kairos(&["run", "e.toml", "-q"], &dir);
    assert!(
        text(&o.stderr).contains("`bodies_file` is empty"),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(
        dir.join("b.xyz"),
        "2\nProperties=species:S:1:pos:R:3:radius:R:1\nA 1 1 0 0.5\nA 5 1 zero 0.5\n",
    )
    .unwrap();
    let o = kairos(&["run", "s.toml", "-q"], &dir);
    assert!(
        text(&o.stderr).contains("body 1: b.xyz, line 4: `zero` is not a number"),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(
        dir.join("s.toml"),
        format!("{scene}[[bodies]]\nposition = [1.0, 1.0]\nvelocity = [0.0, 0.0]\nradius = 0.5\n"),
    )
    .unwrap();
    let o = kairos(&["run", "s.toml", "-q"], &dir);
    assert!(text(&o.stderr).contains("not both"), "{}", text(&o.stderr));
    assert!(!dir.join("s.ktrace").exists());
}

/// A gas the process cannot hold (a limit on its address space) is refused before any of it
/// is made, saying how much memory it needs, with exit 2 and nothing written: an allocation
/// that fails part way would abort the program.
#[cfg(target_os = "linux")]
#[test]
fn a_gas_beyond_the_memory_limit_is_refused_not_aborted() {
    let dir = tempdir("memory-limit");
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1500000 && exec \"$0\" generate gas --n 30000000 --packing 0.3 -o g.toml")
        .arg(env!("CARGO_BIN_EXE_kairos"))
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("30000000 balls need about 4.1 GB of memory"),
        "{err}"
    );
    assert!(!dir.join("g.toml").exists());
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing written"
    );
}
