//! `kairos sweep`: a grid of gases on all cores, one table whatever the threads.

use crate::common;

use common::{kairos, listing, ok, tempdir, text};

/// The CSV's rows without the wall-clock columns (the only ones that depend on the machine).
fn without_times(csv: &str) -> Vec<String> {
    csv.lines()
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            cells[..cells.len() - 2].join(",")
        })
        .collect()
}

#[test]
fn a_sweep_writes_the_same_table_on_one_thread_and_on_several() {
    let dir = tempdir("sweep");
    let args = |threads: &'static str, out: &'static str| {
        vec![
            "sweep",
            "--n",
            "200",
            "--packing",
            "0.1,0.3",
            "--seeds",
            "2",
            "--duration",
            "3",
            "--observe",
            "0.5",
            "--threads",
            threads,
            "-o",
            out,
        ]
    };
    let one = kairos(&args("1", "one.csv"), &dir);
    ok(&one);
    ok(&kairos(&args("3", "three.csv"), &dir));
    let a = std::fs::read_to_string(dir.join("one.csv")).unwrap();
    let b = std::fs::read_to_string(dir.join("three.csv")).unwrap();
    assert_eq!(without_times(&a), without_times(&b));
    let lines: Vec<&str> = a.lines().collect();
    assert_eq!(lines.len(), 5);
    assert!(lines[0].starts_with("dim,n,packing,seed,duration,broad_phase,body_body"));
    assert!(
        lines[1].starts_with("3,200,0.1,0,3.0,calendar,"),
        "{}",
        lines[1]
    );
    // The equation of state against Carnahan-Starling, on standard output.
    let out = text(&one.stdout);
    assert!(out.contains("| 0.3 | "), "{out}");
    assert!(out.contains("Carnahan-Starling"), "{out}");
}

#[test]
fn a_sweep_draws_its_equation_of_state_and_writes_json() {
    let dir = tempdir("sweep-plot");
    let o = kairos(
        &[
            "sweep",
            "--dim",
            "2",
            "--n",
            "200",
            "--packing",
            "0.2:0.4:0.2",
            "--seeds",
            "2",
            "--duration",
            "2",
            "-o",
            "runs.json",
            "--plot",
            "eos.svg",
        ],
        &dir,
    );
    ok(&o);
    assert!(text(&o.stdout).contains("Henderson"));
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("runs.json")).unwrap()).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[2]["packing"], 0.4);
    assert!(rows[0]["compressibility"].as_f64().unwrap() > 1.0);
    let svg = std::fs::read_to_string(dir.join("eos.svg")).unwrap();
    roxmltree::Document::parse(&svg).unwrap();
    assert!(svg.contains("Henderson") && svg.contains("200 discs"));
}

#[test]
fn bad_sweeps_are_refused_before_any_run_and_leave_no_file() {
    let dir = tempdir("sweep-bad");
    for (args, message) in [
        (vec!["--packing", "0.1:0.5"], "--packing 0.1:0.5"),
        (vec!["--packing", "1.5"], "not a fraction"),
        (
            vec!["--packing", "0.2", "--duration", "1"],
            "--duration 1 must hold",
        ),
        (
            vec!["--packing", "0.2", "--dim", "4"],
            "--dim must be 2 or 3",
        ),
        (
            vec!["--packing", "0.95"],
            "--packing (seed 0): packing 0.95 cannot be reached",
        ),
        // 1e20 values once wrapped to none: an empty table and exit 0.
        (
            vec!["--packing", "0.1:0.2:1e-21"],
            "more than 1000 packing fractions",
        ),
        (
            vec!["--packing", "0.2", "--observe", "1e-300"],
            "windows a run",
        ),
        (
            vec!["--packing", "0.2", "--observe", "0"],
            "--observe must be a positive interval",
        ),
        (
            vec!["--packing", "0.2", "--seeds", "4294967295"],
            "--seeds must be from 1 to 10,000",
        ),
        (
            vec!["--packing", "0.2", "--threads", "10000"],
            "--threads must be from 1 to 1024",
        ),
        (
            vec!["--packing", "0.2", "--plot", "eos.png"],
            "--plot writes an SVG chart",
        ),
        (
            vec!["--packing", "0.2", "--plot", "-"],
            "--plot -: give a file name",
        ),
    ] {
        let mut all = vec!["sweep", "--n", "100", "-o", "t.csv"];
        all.extend(args);
        let o = kairos(&all, &dir);
        assert!(!o.status.success());
        let err = text(&o.stderr);
        assert!(err.contains(message), "{all:?}: {err}");
    }
    assert!(listing(&dir).is_empty(), "{:?}", listing(&dir));
}

/// With two seeds the standard error is itself a guess: the deviations are given as
/// differences, not as hundreds of sigmas from a standard error printed as 0.0000; three seeds
/// give sigmas.
#[test]
fn a_sweep_of_two_seeds_gives_differences_not_sigmas() {
    let dir = tempdir("sweep-sigmas");
    let run = |seeds: &str| {
        let o = kairos(
            &[
                "sweep",
                "--n",
                "64",
                "--packing",
                "0.2",
                "--seeds",
                seeds,
                "--duration",
                "3",
                "--observe",
                "0.5",
                "-o",
                "s.csv",
            ],
            &dir,
        );
        ok(&o);
        text(&o.stdout)
    };
    let two = run("2");
    assert!(!two.contains('σ'), "{two}");
    assert!(two.contains("too few seeds"), "{two}");
    assert!(!two.contains("± 0.0000 "), "{two}");
    let three = run("3");
    assert!(three.contains('σ'), "{three}");
}
