//! Rigid bodies' traces hash to constants: the predictions of spinning polygons and boxes, of
//! tumbling cubes, of bullets, of meshes and of a cradle are bit for bit what they were when
//! these hashes were recorded. A change that moves any contact time by one ulp fails here
//! (the balls' logs are pinned in the library's `invariants::determinism_hash`).

use crate::common;

use common::{crate_file, json, kairos, ok, tempdir};

/// Runs `scene` (a path) in `dir` and returns the summary's event count and trace hash.
fn events_and_hash(scene: &str, dir: &std::path::Path) -> (u64, String) {
    let summary = dir.join("summary.json");
    ok(&kairos(
        &[
            "run",
            scene,
            "-o",
            "t.ktrace",
            "--summary-json",
            summary.to_str().unwrap(),
        ],
        dir,
    ));
    let s = json(&summary);
    (
        s["events"].as_u64().unwrap(),
        s["trace_hash"].as_str().unwrap().to_string(),
    )
}

#[test]
fn generated_rigid_scenes_keep_their_trace_hashes() {
    let dir = tempdir("golden-generated");
    let cases: [(&[&str], u64, &str); 3] = [
        (
            &[
                "polygons",
                "--n",
                "80",
                "--seed",
                "3",
                "--concave",
                "0.3",
                "--duration",
                "40",
                "--spin",
                "3",
            ],
            778,
            "9ec78eba3ee3f994",
        ),
        (
            &[
                "boxes",
                "--n",
                "40",
                "--seed",
                "2",
                "--duration",
                "30",
                "--spin",
                "4",
            ],
            702,
            "872b6dc5faeace02",
        ),
        (&["bullet", "--duration", "10"], 168, "eaa648734b9f35e2"),
    ];
    for (args, events, hash) in cases {
        let mut generate = vec!["generate"];
        generate.extend_from_slice(args);
        generate.extend_from_slice(&["-o", "scene.toml"]);
        ok(&kairos(&generate, &dir));
        let got = events_and_hash("scene.toml", &dir);
        assert_eq!(got, (events, hash.to_string()), "{args:?}");
    }
}

#[test]
fn example_rigid_scenes_keep_their_trace_hashes() {
    let dir = tempdir("golden-examples");
    for (name, events, hash) in [
        ("spinning-plank.toml", 18, "d4427e84f8d4fe8e"),
        ("bullet-through-gap.toml", 55, "c8688e741dfbf8b7"),
        ("newtons-cradle.toml", 6, "f818a7d06dbe5c4d"),
        ("tumbling-tori.toml", 16, "001e06f2bfaf5c34"),
    ] {
        let scene = crate_file("../../scenes", name);
        let got = events_and_hash(&scene, &dir);
        assert_eq!(got, (events, hash.to_string()), "{name}");
    }
}
