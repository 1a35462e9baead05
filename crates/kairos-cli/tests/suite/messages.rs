//! Messages of the command line: the value out of range is the one reported, numbers in
//! exponent form, a message never repeated by its cause, data after a trace's footer named,
//! and an error of a file operation naming the file.

use crate::common;

use common::{demo_trace_and_damaged_copies, kairos, tempdir, text};

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
