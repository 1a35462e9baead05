//! `kairos ccd DIR`: the triangle-feature CCD on the standard benchmark's sample queries
//! (`tests/data/ccd-queries/`, in the repository), never a false negative, fewer false
//! positives than Tight-Inclusion's, and bad files refused with the file and line.

use crate::common;

use common::{kairos, ok, tempdir, text};

/// The sample queries: `KAIROS_CCD_QUERIES`, or `tests/data/ccd-queries` in the repository.
fn queries() -> std::path::PathBuf {
    let dir = std::env::var_os("KAIROS_CCD_QUERIES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/ccd-queries")
        });
    assert!(
        dir.is_dir(),
        "the sample queries are not at {} (set KAIROS_CCD_QUERIES)",
        dir.display()
    );
    dir
}

#[test]
fn the_sample_queries_have_no_false_negative() {
    let dir = queries();
    let o = kairos(&["ccd", dir.to_str().unwrap(), "--json"], &dir);
    ok(&o);
    let all: Vec<serde_json::Value> = serde_json::from_str(&text(&o.stdout)).unwrap();
    // The folders' rows, then a total per kind (no folder).
    let (totals, rows): (Vec<_>, Vec<_>) = all.into_iter().partition(|r| r["folder"].is_null());
    assert_eq!(rows.len(), 22, "{rows:?}");
    assert_eq!(totals.len(), 2, "{totals:?}");
    let mut total = std::collections::BTreeMap::new();
    for r in &rows {
        assert_eq!(r["false_negatives"], 0, "{r}");
        assert!(r["seconds_per_query"].as_f64().unwrap() > 0.0, "{r}");
        let e = total
            .entry(r["kind"].as_str().unwrap().to_string())
            .or_insert((0, 0));
        e.0 += r["queries"].as_u64().unwrap();
        e.1 += r["false_positives"].as_u64().unwrap();
    }
    let (vf, ee) = (&total["vertex-face"], &total["edge-edge"]);
    assert_eq!((vf.0, ee.0), (3085, 4194));
    // Tight-Inclusion at its tolerance 1e-6: 85 and 137.
    assert!(vf.1 <= 85 && ee.1 <= 137, "false positives {vf:?} {ee:?}");
    // And no more than the filters and cuts leave now (15 and 59).
    assert!(vf.1 <= 15 && ee.1 <= 59, "false positives {vf:?} {ee:?}");
    // Repeated for warm timings: the same answers.
    let o = kairos(
        &["ccd", dir.to_str().unwrap(), "--json", "--repeat", "3"],
        &dir,
    );
    ok(&o);
    let again: Vec<serde_json::Value> = serde_json::from_str(&text(&o.stdout)).unwrap();
    let counts = |rows: &[serde_json::Value]| -> Vec<(u64, u64, u64)> {
        rows.iter()
            .map(|r| {
                let n = |k: &str| r[k].as_u64().unwrap();
                (n("queries"), n("false_negatives"), n("false_positives"))
            })
            .collect()
    };
    let before: Vec<serde_json::Value> = rows.iter().chain(&totals).cloned().collect();
    assert_eq!(counts(&before), counts(&again));
    // The table form: a row per folder and the totals.
    let o = kairos(&["ccd", dir.to_str().unwrap()], &dir);
    ok(&o);
    let table = text(&o.stdout);
    assert!(
        table.contains("| erleben-spikes/edge-edge | edge-edge | 250 | 0 |"),
        "{table}"
    );
    assert!(
        table.contains("| **all** | vertex-face | 3085 | 0 |"),
        "{table}"
    );
}

#[test]
fn bad_query_files_are_refused_with_the_file_and_line() {
    let dir = tempdir("ccd-bad");
    let vf = dir.join("vertex-face");
    std::fs::create_dir_all(&vf).unwrap();
    let row = "1,2,3,4,5,6,0\n";
    std::fs::write(
        vf.join("q.csv"),
        format!("{}1,2,x,4,5,6,0\n", row.repeat(3)),
    )
    .unwrap();
    let o = kairos(&["ccd", "."], &dir);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("q.csv: line 4: `x` is not an integer"),
        "{err}"
    );
    assert!(text(&o.stdout).is_empty(), "{}", text(&o.stdout));
    let o = kairos(&["ccd", "missing"], &dir);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("missing: cannot read the folder"));
    let o = kairos(&["ccd", ".", "--tolerance", "0"], &dir);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--tolerance"));
    let o = kairos(&["ccd", ".", "--repeat", "0"], &dir);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--repeat"));
}

/// Four identical vertex-face rows at t = 0 and t = 1: one query that never moves, whose
/// exact answer is `truth`.
fn still_query(truth: u8) -> String {
    format!("0,1,0,1,0,1,{truth}\n").repeat(8)
}

#[test]
fn a_link_back_up_the_tree_is_read_once_and_the_extension_is_any_case() {
    let dir = tempdir("ccd-links");
    let vf = dir.join("vertex-face");
    std::fs::create_dir_all(&vf).unwrap();
    std::fs::write(vf.join("a.csv"), still_query(1)).unwrap();
    std::fs::write(vf.join("b.CSV"), still_query(1)).unwrap();
    std::os::unix::fs::symlink("..", vf.join("loop")).unwrap();
    let o = kairos(&["ccd", ".", "--json"], &dir);
    ok(&o);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text(&o.stdout)).unwrap();
    let queries: u64 = rows
        .iter()
        .filter(|r| !r["folder"].is_null())
        .map(|r| r["queries"].as_u64().unwrap())
        .sum();
    assert_eq!(queries, 2, "{rows:?}");
}

#[test]
fn the_json_has_a_total_per_kind_as_the_table_has() {
    let dir = tempdir("ccd-totals");
    for (folder, kind) in [
        ("one", "vertex-face"),
        ("two", "vertex-face"),
        ("one", "edge-edge"),
    ] {
        let d = dir.join(folder).join(kind);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("q.csv"), still_query(1).repeat(2)).unwrap();
    }
    let o = kairos(&["ccd", ".", "--json"], &dir);
    ok(&o);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text(&o.stdout)).unwrap();
    let totals: Vec<(&str, u64)> = rows
        .iter()
        .filter(|r| r["folder"].is_null())
        .map(|r| (r["kind"].as_str().unwrap(), r["queries"].as_u64().unwrap()))
        .collect();
    assert_eq!(totals, [("vertex-face", 4), ("edge-edge", 2)], "{rows:?}");
    for key in ["false_negatives", "false_positives"] {
        let of = |total: bool| -> u64 {
            rows.iter()
                .filter(|r| r["folder"].is_null() == total)
                .map(|r| r[key].as_u64().unwrap())
                .sum()
        };
        assert_eq!(of(true), of(false), "{key}: {rows:?}");
    }
}

#[test]
fn integers_beyond_the_floats_are_out_of_range_and_long_ones_are_read() {
    let dir = tempdir("ccd-digits");
    let vf = dir.join("vertex-face");
    std::fs::create_dir_all(&vf).unwrap();
    // 44 digits: more than a 128-bit integer holds, still a float.
    let big = "1".repeat(44);
    let rows = format!("{big},{big},0,1,0,1,1\n").repeat(8);
    std::fs::write(vf.join("q.csv"), rows).unwrap();
    let o = kairos(&["ccd", ".", "--json"], &dir);
    ok(&o);
    let huge = "9".repeat(400);
    let rows = format!("{huge},1,0,1,0,1,1\n").repeat(8);
    std::fs::write(vf.join("q.csv"), rows).unwrap();
    let o = kairos(&["ccd", "."], &dir);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("q.csv: line 1: an integer of 400 digits is out of range"),
        "{err}"
    );
}
