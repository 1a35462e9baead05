//! Every numeric option of every command, given huge, tiny, zero, negative, infinite and NaN
//! values: each is refused at once with a message and exit code 2, or accepted and run to the
//! end in a few seconds; never a panic, an abort or a run without end.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{kairos, ok, tempdir, text};

/// The values every option is given.
const VALUES: [&str; 8] = [
    "1000000000000",
    "1e300",
    "1e-300",
    "0",
    "-1",
    "inf",
    "-inf",
    "nan",
];

/// Longest a run with an accepted value may take (the machine may be busy).
const LIMIT: Duration = Duration::from_secs(30);

/// Each command's quick invocation and its numeric options.
fn commands() -> Vec<(Vec<&'static str>, Vec<&'static str>)> {
    let demo = ["demo", "--n", "30", "-q", "-o", "o.ktrace"];
    let run = ["run", "s.toml", "-q", "-o", "o.ktrace"];
    let stepper = [
        "max-events",
        "max-steps",
        "bvh-dt",
        "bvh-grow",
        "bvh-shrink",
    ];
    let discrete = ["--stepper", "discrete", "--dt", "0.01"];
    let cat = |a: &[&'static str], b: &[&'static str]| [a, b].concat();
    vec![
        (demo.to_vec(), cat(&["n", "seed"], &stepper)),
        (run.to_vec(), stepper.to_vec()),
        (cat(&run, &discrete), vec!["dt", "substeps"]),
        (cat(&run, &["--checkpoint", "c.ckpt"]), vec!["every"]),
        (cat(&run, &["--observables", "obs.csv"]), vec!["observe"]),
        (
            vec!["generate", "billiard", "--n", "20", "-o", "g.toml"],
            vec![
                "n",
                "seed",
                "restitution",
                "dim",
                "packing",
                "radius-min",
                "radius-max",
                "aspect",
                "duration",
            ],
        ),
        (
            vec![
                "generate",
                "gas",
                "--n",
                "20",
                "--packing",
                "0.1",
                "-o",
                "g.toml",
            ],
            vec![
                "dim",
                "n",
                "packing",
                "polydispersity",
                "mass",
                "seed",
                "duration",
                "restitution",
            ],
        ),
        (
            vec!["generate", "polygons", "--n", "5", "-o", "g.toml"],
            vec![
                "n",
                "seed",
                "packing",
                "speed",
                "spin",
                "duration",
                "concave",
                "restitution",
            ],
        ),
        (
            vec!["generate", "boxes", "--n", "5", "-o", "g.toml"],
            vec![
                "n",
                "seed",
                "packing",
                "speed",
                "spin",
                "duration",
                "restitution",
            ],
        ),
        (
            vec!["generate", "bullet", "-o", "g.toml"],
            vec!["speed", "duration", "restitution"],
        ),
        (
            vec!["generate", "drop", "-o", "g.toml"],
            vec![
                "dim",
                "balls",
                "boxes",
                "seed",
                "gravity",
                "restitution",
                "duration",
            ],
        ),
        (vec!["frames", "t.ktrace", "-o", "f.xyz"], vec!["every"]),
        (
            vec!["view", "t.ktrace", "-o", "v.html"],
            vec!["max-bodies", "max-events"],
        ),
        (
            vec!["snapshot", "t.ktrace", "--time", "1", "-o", "p.svg"],
            vec!["time", "size"],
        ),
        (vec!["ccd", "q"], vec!["tolerance", "repeat"]),
        (
            vec![
                "bench",
                "thesis",
                "--n",
                "20",
                "--runs",
                "1",
                "--budget",
                "2",
                "--duration",
                "1",
            ],
            vec![
                "n",
                "runs",
                "budget",
                "packing",
                "radius-min",
                "radius-max",
                "aspect",
                "duration",
            ],
        ),
        (
            vec![
                "bench",
                "scale",
                "--n",
                "100",
                "--dims",
                "2",
                "--thesis-n",
                "20",
                "--thesis-budget",
                "1",
                "--collisions-per-body",
                "1",
            ],
            vec![
                "n",
                "collisions-per-body",
                "thesis-n",
                "thesis-budget",
                "packing-2d",
                "packing-3d",
            ],
        ),
        (
            vec![
                "bench",
                "discrete",
                "--n",
                "20",
                "--runs",
                "1",
                "--dts",
                "0.1",
                "--budget",
                "2",
                "--duration",
                "1",
                "--rewind",
                "0.1",
                "--broad-phases",
                "calendar",
                "--substeps",
                "0.1:2",
            ],
            vec![
                "n",
                "runs",
                "dts",
                "rewind",
                "budget",
                "rigid-packing",
                "packing",
                "radius-min",
                "radius-max",
                "aspect",
                "duration",
            ],
        ),
        (
            vec![
                "bench", "overlap", "--sizes", "100", "--steps", "1", "--dims", "2",
            ],
            vec!["sizes", "steps", "brute-max", "motion", "seed"],
        ),
        (
            vec!["bench", "d2m", "--trials", "1", "--pairs", "1"],
            vec![
                "trials",
                "speeds",
                "separation",
                "seed",
                "pairs",
                "tolerance",
            ],
        ),
    ]
}

/// Runs `kairos args` in `dir`, killed after [`LIMIT`]: exit code (None when killed by a
/// signal or the limit), seconds, standard error.
fn run_limited(args: &[String], dir: &Path) -> (Option<i32>, f64, String) {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kairos");
    let stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut { stderr }, &mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if start.elapsed() > LIMIT {
            child.kill().unwrap();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let err = reader.join().unwrap();
    (
        status.and_then(|s| s.code()),
        start.elapsed().as_secs_f64(),
        err,
    )
}

#[test]
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
fn every_numeric_option_is_bounded_with_a_message() {
    let dir = tempdir("options");
    ok(&kairos(
        &["generate", "billiard", "--n", "20", "-o", "s.toml"],
        &dir,
    ));
    ok(&kairos(
        &["demo", "--n", "30", "-q", "-o", "t.ktrace"],
        &dir,
    ));
    std::fs::create_dir_all(dir.join("q/vertex-face")).unwrap();
    std::fs::write(dir.join("q/vertex-face/a.csv"), "0,1,0,1,0,1,1\n".repeat(8)).unwrap();
    let mut failures = Vec::new();
    for (base, options) in commands() {
        for option in options {
            for value in VALUES {
                let flag = format!("--{option}");
                // The option replaces its value in the quick invocation, if it has one there.
                let mut args: Vec<String> = Vec::new();
                let mut skip = false;
                for a in &base {
                    if std::mem::take(&mut skip) {
                        continue;
                    }
                    if *a == flag {
                        skip = true;
                        continue;
                    }
                    args.push(a.to_string());
                }
                args.push(format!("{flag}={value}"));
                let (code, seconds, err) = run_limited(&args, &dir);
                let line = format!("kairos {} ({seconds:.1} s)", args.join(" "));
                let longest_number = err
                    .split(|c: char| !c.is_ascii_digit())
                    .map(str::len)
                    .max()
                    .unwrap_or(0);
                if longest_number > 20 {
                    failures.push(format!(
                        "{line}: a number of {longest_number} digits: {err}"
                    ));
                }
                match code {
                    Some(0) => {}
                    Some(2) if err.starts_with("error: ") && !err.contains("panicked") => {}
                    None if seconds >= LIMIT.as_secs_f64() => {
                        failures.push(format!("{line}: still running, killed"))
                    }
                    _ => failures.push(format!("{line}: exit {code:?}: {}", err.trim())),
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The messages name the option and its range.
    let o = kairos(
        &["bench", "d2m", "--trials", "1000000000000", "--pairs", "1"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--trials"), "{}", text(&o.stderr));
}
