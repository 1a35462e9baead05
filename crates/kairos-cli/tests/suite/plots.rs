//! `--plot` and `--from-csv` of the `bench` commands.

use crate::common;

use common::{crate_file, kairos, listing, ok, tempdir, text};

use std::path::Path;

/// A fixture of these tests.
fn test_data(name: &str) -> String {
    crate_file("tests/data", name)
}

/// A file of the repository's `docs/`.
fn docs(name: &str) -> String {
    crate_file("../../docs", name)
}

/// The texts of a well-formed SVG document (panics if it is not one).
fn svg_texts(path: &Path) -> Vec<String> {
    let s = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&s).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

#[test]
fn thesis_plot_from_the_published_csv() {
    let dir = tempdir("thesis");
    let o = kairos(
        &[
            "bench",
            "thesis",
            "--from-csv",
            &docs("thesis-table.csv"),
            "--plot",
            "out.svg",
        ],
        &dir,
    );
    ok(&o);
    let out = text(&o.stdout);
    assert!(
        out.lines().any(
            |l| l.starts_with("| 512 | 32798.0 | 64.264341 | 2.570250 | 0.053484 |")
                && l.contains("| 25.0x | 1201.6x |")
        ),
        "{out}"
    );
    assert!(
        out.contains("| 2048 | 249558.3 | skipped | 109.827560 |"),
        "{out}"
    );
    let t = svg_texts(&dir.join("out.svg"));
    for name in [
        "all-pairs",
        "kaya-bvh",
        "calendar",
        "O(n²) reference",
        "O(n log n) reference",
        "number of balls N",
        "running time (s), median of 3 runs",
        "2048",
    ] {
        assert!(t.iter().any(|s| s == name), "{name} not in {t:?}");
    }
    // Only the plot was written.
    assert_eq!(listing(&dir), ["out.svg"]);
}

#[test]
fn malformed_csv_exits_2_naming_file_and_line() {
    let dir = tempdir("bad");
    let good = std::fs::read_to_string(docs("thesis-table.csv")).unwrap();
    let mut lines: Vec<String> = good.lines().map(String::from).collect();
    lines[4] = lines[4].replace("0.001108103", "fast");
    let cases = [
        (
            lines.join("\n"),
            "bad.csv:5: column `seconds_median`: cannot read `fast`",
        ),
        (
            good.replacen("16,kaya-bvh,3,", "16,kaya-bvh,", 1),
            "bad.csv:6: 6 fields, but the header has 7 columns",
        ),
        (
            good.replacen("32,calendar", "32,octree", 1),
            "bad.csv:10: column `broad_phase`: cannot read `octree`",
        ),
        (
            good.replacen("seconds_median", "seconds", 1),
            "bad.csv:1: no column `seconds_median`",
        ),
        (
            good.replacen("64,calendar,3,1883.3333333333333", "64,calendar,3,-1", 1),
            "bad.csv:13: column `collisions_mean`",
        ),
        (
            good.clone() + "8,calendar,1,1,1,1,1\n",
            &format!(
                "bad.csv:{}: a second row for calendar at N = 8",
                good.lines().count() + 1
            ),
        ),
        (String::new(), "bad.csv: empty file"),
    ];
    for (csv, needle) in cases {
        std::fs::write(dir.join("bad.csv"), csv).unwrap();
        let o = kairos(
            &[
                "bench",
                "thesis",
                "--from-csv",
                "bad.csv",
                "--plot",
                "out.svg",
                "--csv",
                "again.csv",
            ],
            &dir,
        );
        assert_eq!(o.status.code(), Some(2), "{needle}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(needle),
            "{needle}: {}",
            text(&o.stderr)
        );
        assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
        // No plot, no CSV, no temporary file.
        assert_eq!(listing(&dir), ["bad.csv"]);
    }
    let o = kairos(
        &[
            "bench",
            "scale",
            "--from-csv",
            "missing.csv",
            "--plot",
            "s.svg",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("missing.csv: cannot read"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(listing(&dir), ["bad.csv"]);
}

#[test]
fn from_csv_refuses_measurement_options() {
    let dir = tempdir("conflict");
    for extra in [["--n", "8"], ["--runs", "2"], ["--duration", "1"]] {
        let mut args = vec!["bench", "thesis", "--from-csv", "x.csv"];
        args.extend(extra);
        let o = kairos(&args, &dir);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            text(&o.stderr).contains("cannot be used with"),
            "{}",
            text(&o.stderr)
        );
    }
}

#[test]
fn thesis_measured_and_reread_agree() {
    let dir = tempdir("roundtrip");
    let measured = kairos(
        &[
            "bench",
            "thesis",
            "--n",
            "8,16",
            "--runs",
            "1",
            "--broad-phases",
            "all-pairs,calendar",
            "--csv",
            "t.csv",
            "--plot",
            "m.svg",
        ],
        &dir,
    );
    ok(&measured);
    let again = kairos(
        &[
            "bench",
            "thesis",
            "--from-csv",
            "t.csv",
            "--csv",
            "t2.csv",
            "--plot",
            "r.svg",
        ],
        &dir,
    );
    ok(&again);
    assert_eq!(text(&measured.stdout), text(&again.stdout));
    assert_eq!(
        std::fs::read_to_string(dir.join("t.csv")).unwrap(),
        std::fs::read_to_string(dir.join("t2.csv")).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("m.svg")).unwrap(),
        std::fs::read_to_string(dir.join("r.svg")).unwrap()
    );
    let t = svg_texts(&dir.join("r.svg"));
    assert!(t.iter().any(|s| s == "running time (s), one run"), "{t:?}");
}

#[test]
fn scale_plot_from_csv() {
    let dir = tempdir("scale");
    let o = kairos(
        &[
            "bench",
            "scale",
            "--from-csv",
            &test_data("scale-no-packing.csv"),
            "--plot",
            "s.svg",
            "--csv",
            "with-packing.csv",
        ],
        &dir,
    );
    ok(&o);
    let out = text(&o.stdout);
    for line in [
        "| 3 | 1000000 | 0.45 | calendar | 2000000 | 35.515 | 56314 | 189 |",
        "| 16384 | calendar | 5420001 | 11.217 | 483214 | yes | 2031.7x |",
    ] {
        assert!(out.contains(line), "{line} not in {out}");
    }
    // An older `bench scale --csv` (the first measurements): no packing column.
    assert!(
        text(&o.stderr).contains("no packing column"),
        "{}",
        text(&o.stderr)
    );
    let t = svg_texts(&dir.join("s.svg"));
    for name in [
        "2D gas, packing 0.5, calendar",
        "3D gas, packing 0.45, calendar",
        "thesis scene, all-pairs (stopped early)",
        "thesis scene, calendar",
        "collisions per second",
        "number of bodies N",
    ] {
        assert!(t.iter().any(|s| s == name), "{name} not in {t:?}");
    }
    // The rewritten CSV has the packing column and reads back to the same tables.
    let csv = std::fs::read_to_string(dir.join("with-packing.csv")).unwrap();
    assert!(
        csv.lines().next().unwrap().ends_with(",complete,packing"),
        "{csv}"
    );
    let again = kairos(
        &[
            "bench",
            "scale",
            "--from-csv",
            "with-packing.csv",
            "--packing-2d",
            "0.1",
        ],
        &dir,
    );
    ok(&again);
    assert_eq!(text(&again.stdout), out);
    assert!(again.stderr.is_empty(), "{}", text(&again.stderr));
    // --no-thesis keeps only the gases.
    let gas = kairos(
        &[
            "bench",
            "scale",
            "--from-csv",
            "with-packing.csv",
            "--no-thesis",
        ],
        &dir,
    );
    ok(&gas);
    assert!(!text(&gas.stdout).contains("Thesis scene"));
}

#[test]
fn scale_measured_and_reread_agree() {
    let dir = tempdir("scale-roundtrip");
    let measured = kairos(
        &[
            "bench",
            "scale",
            "--n",
            "300",
            "--dims",
            "2",
            "--no-thesis",
            "--collisions-per-body",
            "1",
            "--csv",
            "s.csv",
            "--plot",
            "s.svg",
        ],
        &dir,
    );
    ok(&measured);
    let again = kairos(&["bench", "scale", "--from-csv", "s.csv"], &dir);
    ok(&again);
    assert_eq!(text(&measured.stdout), text(&again.stdout));
    let t = svg_texts(&dir.join("s.svg"));
    assert!(
        t.iter().any(|s| s == "2D gas, packing 0.5, calendar"),
        "{t:?}"
    );
}
