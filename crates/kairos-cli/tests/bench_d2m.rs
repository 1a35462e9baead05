//! `kairos bench d2m`: the seed's experiment on procedural meshes, a row per pair, speed and
//! mode, every trial a contact at a positive distance.

mod common;

use common::{kairos, ok, tempdir, text};

#[test]
fn the_d2m_bench_reports_contacts_apart() {
    let dir = tempdir("bench-d2m");
    let o = kairos(
        &[
            "bench", "d2m", "--trials", "3", "--pairs", "2", "--speeds", "4,512",
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
    assert_eq!(rows.len(), 2 * 2 * 2, "{out}");
    for r in &rows {
        assert_eq!(r[5], "3/3", "every trial meets: {out}");
        let min: f64 = r[7].parse().unwrap();
        assert!(min > 0.0, "a contact leaves the meshes apart: {out}");
        if r[4] == "D2M" {
            let max: f64 = r[11].parse().unwrap();
            assert!(max < 1e-8, "D2M's contacts are close: {out}");
        }
    }
    let o = kairos(&["bench", "d2m", "--trials", "0"], &dir);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--trials"));
}
