//! `kairos bench d2m`: the seed's experiment on procedural meshes, a row per pair, speed and
//! method (D2M, Capoeira, the C2A stand-in on convex pieces), every trial a contact at a
//! positive distance, and the plot of the rows.

use crate::common;

use common::{kairos, ok, tempdir, text};

#[test]
fn the_d2m_bench_reports_contacts_apart() {
    let dir = tempdir("bench-d2m");
    let o = kairos(
        &[
            "bench",
            "d2m",
            "--trials",
            "2",
            "--pairs",
            "2",
            "--speeds",
            "4,512",
            "--plot",
            "d2m.svg",
            "--per-trial",
            "trials.csv",
        ],
        &dir,
    );
    ok(&o);
    let out = text(&o.stdout);
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(2)
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), 2 * 2 * 3, "{out}");
    let modes: Vec<&str> = rows.iter().map(|r| r[4]).collect();
    assert_eq!(&modes[..3], ["D2M", "Capoeira", "C2A"], "{out}");
    for r in &rows {
        assert_eq!(r[5], "2/2", "every trial meets: {out}");
        let min: f64 = r[7].parse().unwrap();
        let max: f64 = r[11].parse().unwrap();
        assert!(min > 0.0, "a contact leaves the meshes apart: {out}");
        match r[4] {
            "D2M" => assert!(max < 1e-8, "D2M's contacts are close: {out}"),
            // Exact pieces: within conservative advancement's tolerance, 1e-7 of the size.
            "C2A" => assert!(max < 1e-6, "C2A's contacts are close: {out}"),
            _ => {}
        }
    }
    // The plot: an SVG with a range and a median dot per row, a dot per row for the time, and
    // every method and pair named.
    let svg = std::fs::read_to_string(dir.join("d2m.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let circles = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert_eq!(circles, 3 + 2 * rows.len(), "legend, medians and times");
    let words: String = doc
        .descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect();
    for name in [
        "D2M",
        "Capoeira",
        "C2A",
        "ico 1 / torus 16",
        "ico 2 / ico 2",
        "v = 512",
    ] {
        assert!(words.contains(name), "{name} in the plot: {words}");
    }
    // Every trial, one line each, with its distance as in the table.
    let csv = std::fs::read_to_string(dir.join("trials.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "pair,speed,method,trial,seconds,distance");
    assert_eq!(lines.len(), 1 + 2 * rows.len(), "{csv}");
    for l in &lines[1..] {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 6, "{l}");
        assert!(f[4].parse::<f64>().unwrap() >= 0.0, "{l}");
        assert!(f[5].parse::<f64>().unwrap() > 0.0, "{l}");
    }
    // One pair by name: the same trials as in the run of several pairs.
    let o = kairos(
        &[
            "bench",
            "d2m",
            "--trials",
            "2",
            "--only",
            "icosphere 2",
            "--speeds",
            "4,512",
        ],
        &dir,
    );
    ok(&o);
    let only = text(&o.stdout);
    let distances = |out: &str, pair: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.contains(pair))
            .map(|l| l.split('|').nth(7).unwrap().trim().to_string())
            .collect()
    };
    assert_eq!(only.lines().count(), 2 + 2 * 3, "{only}");
    assert_eq!(
        distances(&only, "icosphere 2 / icosphere 2"),
        distances(&out, "icosphere 2 / icosphere 2")
    );
    let o = kairos(&["bench", "d2m", "--only", "no such pair"], &dir);
    assert!(!o.status.success());
    let e = text(&o.stderr);
    assert!(
        e.contains("no such pair") && e.contains("icosphere 2"),
        "{e}"
    );
    let o = kairos(&["bench", "d2m", "--trials", "0"], &dir);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--trials"));
}
