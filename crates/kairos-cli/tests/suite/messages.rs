//! Messages of the command line: the value out of range is the one reported, numbers in
//! exponent form, a message never repeated by its cause, data after a trace's footer named,
//! and an error of a file operation naming the file.

use crate::common;

use common::{demo_trace_and_damaged_copies, kairos, ok, tempdir, text};

/// Runs `kairos args` in `dir`, expecting exit code 2; returns standard error.
fn refused(args: &[&str], dir: &std::path::Path) -> String {
    let o = kairos(args, dir);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{args:?}: {}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stderr)
}

#[test]
fn the_value_out_of_range_is_reported_and_in_exponent_form() {
    let dir = tempdir("values");
    let e = refused(
        &[
            "generate", "polygons", "--n", "5", "--speed", "inf", "-o", "g.toml",
        ],
        &dir,
    );
    assert!(e.contains("speed") && e.contains("got inf"), "{e}");
    for (args, shown) in [
        (
            vec![
                "generate",
                "billiard",
                "--n",
                "5",
                "--restitution",
                "1e300",
                "-o",
                "g.toml",
            ],
            "1e300",
        ),
        (
            vec![
                "generate",
                "billiard",
                "--n",
                "5",
                "--radius-max",
                "1e-300",
                "-o",
                "g.toml",
            ],
            "1e-300",
        ),
        (
            vec!["bench", "d2m", "--tolerance", "1e300", "--pairs", "1"],
            "1e300",
        ),
    ] {
        let e = refused(&args, &dir);
        assert!(e.contains(shown) && e.len() < 300, "{args:?}: {e}");
    }
    demo_trace_and_damaged_copies(&dir);
    for args in [
        vec!["frames", "t.ktrace", "--every", "1e-300", "-o", "f.xyz"],
        vec!["snapshot", "t.ktrace", "--time", "1e300", "-o", "p.svg"],
    ] {
        let e = refused(&args, &dir);
        assert!(e.contains("e300") || e.contains("e-300"), "{args:?}: {e}");
        assert!(e.len() < 300, "{args:?}: {e}");
    }
}

#[test]
fn a_cause_already_in_the_message_is_not_repeated() {
    let dir = tempdir("repeated");
    std::fs::create_dir_all(dir.join("vertex-face")).unwrap();
    let bytes: Vec<u8> = (0..300u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8 | 0x80)
        .collect();
    std::fs::write(dir.join("vertex-face/q.csv"), &bytes).unwrap();
    let e = refused(&["ccd", "."], &dir);
    assert!(e.contains("q.csv") && e.contains("UTF-8"), "{e}");
    assert_eq!(
        e.matches("stream did not contain valid UTF-8").count(),
        1,
        "{e}"
    );
}

#[test]
fn data_appended_to_a_trace_is_named() {
    let dir = tempdir("appended");
    let mut bytes = demo_trace_and_damaged_copies(&dir);
    bytes.extend_from_slice(b"12345678");
    std::fs::write(dir.join("long.ktrace"), &bytes).unwrap();
    let e = refused(&["export", "long.ktrace", "--events", "e.csv"], &dir);
    assert!(
        e.contains("long.ktrace") && e.contains("8 bytes after the footer"),
        "{e}"
    );
    // A trace cut short still has no footer.
    let e = refused(&["export", "cut.ktrace", "--events", "e.csv"], &dir);
    assert!(e.contains("no footer"), "{e}");
}

/// A parse error quotes the offending line cut short: a 2 MB line with an unclosed string
/// once put 4 MB on stderr.
#[test]
fn a_long_bad_line_is_quoted_cut_short() {
    let dir = tempdir("long-line");
    std::fs::write(
        dir.join("long.toml"),
        format!("dim = 2\nx = \"{}\n", "a".repeat(2_000_000)),
    )
    .unwrap();
    let err = refused(&["run", "long.toml"], &dir);
    assert!(
        err.contains("invalid TOML") && err.contains("more bytes]"),
        "{err}"
    );
    assert!(err.len() < 2_000, "{} bytes", err.len());
}

/// Refused, exit 2, with nothing written in `dir` but what was there.
fn refused_writing_nothing(args: &[&str], dir: &std::path::Path) -> String {
    let before = common::listing(dir);
    let e = refused(args, dir);
    assert_eq!(common::listing(dir), before, "{args:?} wrote a file");
    e
}

/// A packing fraction whose box is beyond a scene's coordinates is refused as a packing too
/// low, with the least packing that works (300 zeros and a body's position were printed),
/// and a box of 1e-300 as a size too small (it said the mass was 0).
#[test]
fn a_packing_or_a_size_out_of_reach_says_what_would_work() {
    let dir = tempdir("reach");
    let e = refused_writing_nothing(
        &[
            "sweep",
            "--packing",
            "1e-300",
            "--n",
            "16",
            "--duration",
            "5",
            "-o",
            "s.csv",
        ],
        &dir,
    );
    assert!(
        e.contains("--packing")
            && e.contains("packing 1e-300 is too low")
            && e.contains("at least 5e-297"),
        "{e}"
    );
    assert!(!e.contains("0000000000") && e.len() < 400, "{e}");
    for (dim, least) in [("2", "1e-70"), ("3", "1e-56")] {
        let e = refused_writing_nothing(
            &[
                "generate", "stack", "--dim", dim, "--size", "1e-300", "-o", "s.toml",
            ],
            &dir,
        );
        assert!(
            e.contains("size 1e-300 is too small") && e.contains(&format!("at least {least}")),
            "{e}"
        );
        // The least size is taken.
        ok(&kairos(
            &[
                "generate", "stack", "--dim", dim, "--size", least, "-o", "s.toml",
            ],
            &dir,
        ));
        std::fs::remove_file(dir.join("s.toml")).unwrap();
    }
}

/// `friction` in a scene without bodies says what friction needs and what to do (it said every
/// body was a plain ball).
#[test]
fn friction_without_bodies_says_what_it_needs() {
    let dir = tempdir("friction");
    std::fs::write(
        dir.join("f.toml"),
        "dim = 2\n[simulation]\nduration = 1.0\nfriction = 0.5\n\
         [[walls]]\nbox = { min = [0, 0], max = [10, 10] }\n",
    )
    .unwrap();
    let e = refused_writing_nothing(&["run", "f.toml"], &dir);
    assert!(
        e.contains("f.toml")
            && e.contains("no bodies")
            && e.contains("rigid bodies")
            && e.contains("remove `friction`"),
        "{e}"
    );
    assert!(!e.contains("plain ball"), "{e}");
}

/// A duration that is not a positive number names --duration (NaN gave "NaN windows a run").
#[test]
fn a_sweep_duration_that_is_no_time_is_named() {
    let dir = tempdir("duration");
    for d in ["nan", "0", "-1", "inf"] {
        let e = refused_writing_nothing(
            &[
                "sweep",
                "--duration",
                d,
                "--n",
                "16",
                "--packing",
                "0.1",
                "-o",
                "s.csv",
            ],
            &dir,
        );
        assert!(e.contains("--duration must be a positive time"), "{d}: {e}");
        assert!(!e.contains("windows"), "{d}: {e}");
    }
}

/// A directory or a device given as a trace is named as such, not as a corrupted trace; a
/// header length damaged by one flipped bit is damage, not an incomplete file.
#[test]
fn a_path_that_is_no_trace_and_a_damaged_header_are_named() {
    let dir = tempdir("no-trace");
    let bytes = demo_trace_and_damaged_copies(&dir);
    std::fs::create_dir_all(dir.join("d.gsd")).unwrap();
    for (path, says) in [
        ("d.gsd", "is a directory"),
        ("/dev/null", "not a regular file"),
    ] {
        for args in [
            vec!["frames", path, "--every", "0.1", "-o", "f.xyz"],
            vec!["export", path, "--events", "e.csv"],
        ] {
            let e = refused_writing_nothing(&args, &dir);
            assert!(e.contains(path) && e.contains(says), "{args:?}: {e}");
            assert!(!e.contains("corrupted"), "{args:?}: {e}");
        }
    }
    let mut flipped = bytes.clone();
    flipped[20] ^= 1;
    std::fs::write(dir.join("flip.ktrace"), &flipped).unwrap();
    let e = refused_writing_nothing(
        &["frames", "flip.ktrace", "--every", "0.1", "-o", "f.xyz"],
        &dir,
    );
    assert!(
        e.contains("flip.ktrace") && e.contains("damaged") && !e.contains("incomplete"),
        "{e}"
    );
}

/// Negative numbers parse as values and are refused by the option's rule (clap's tip to write
/// `-- -1` was wrong for an option's value).
#[test]
fn negative_numbers_are_values_refused_by_their_rule() {
    let dir = tempdir("negative");
    ok(&kairos(
        &["generate", "billiard", "--n", "5", "-o", "b.toml"],
        &dir,
    ));
    for (args, says) in [
        (
            vec!["run", "b.toml", "--stepper", "discrete", "--dt", "-1"],
            "--dt must be positive",
        ),
        (
            vec!["run", "b.toml", "--stepper", "stepped", "--dt", "-1"],
            "--dt must be positive",
        ),
        (
            vec!["demo", "--stepper", "stepped", "--dt", "-0.5"],
            "--dt must be positive",
        ),
        (
            vec!["generate", "stack", "--gravity", "-10", "-o", "s.toml"],
            "gravity must be positive",
        ),
        (
            vec!["generate", "drop", "--gravity", "-1e3", "-o", "s.toml"],
            "gravity must be positive",
        ),
    ] {
        let e = refused_writing_nothing(&args, &dir);
        assert!(e.contains(says) && !e.contains("'-- "), "{args:?}: {e}");
    }
}
