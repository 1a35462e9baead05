//! Tests of the SVG charts: series, axes, ticks, the legend's place, left-out values and
//! the atomic write.

use super::*;

fn chart(series: Vec<Series>) -> Chart {
    Chart {
        title: "t".into(),
        x_label: "N".into(),
        y_label: "seconds (s)".into(),
        log_x: true,
        log_y: true,
        x_ticks: Vec::new(),
        series,
    }
}

fn texts(svg: &str) -> Vec<String> {
    // Text contents sit on their own lines between <text ...> and </text>.
    let lines: Vec<&str> = svg.lines().collect();
    lines
        .windows(2)
        .filter(|w| w[0].starts_with("<text"))
        .map(|w| w[1].to_string())
        .collect()
}

#[test]
fn svg_names_every_series_and_labels_the_axes() {
    let c = chart(vec![
        Series::new(
            "all-pairs",
            SeriesStyle::Measured,
            vec![(8.0, 1e-4), (64.0, 0.04), (512.0, 64.0)],
        ),
        Series::new(
            "calendar",
            SeriesStyle::Measured,
            vec![(8.0, 1e-4), (512.0, 0.05)],
        ),
        Series::new(
            "O(n^2) <ref> & co",
            SeriesStyle::Reference,
            vec![(8.0, 1e-4), (512.0, 0.4)],
        ),
    ]);
    let svg = render_svg(&c).unwrap();
    assert!(svg.notes.is_empty(), "{:?}", svg.notes);
    assert!(svg.text.starts_with("<svg") && svg.text.trim_end().ends_with("</svg>"));
    let t = texts(&svg.text);
    for name in [
        "all-pairs",
        "calendar",
        "O(n^2) &lt;ref&gt; &amp; co",
        "N",
        "seconds (s)",
    ] {
        assert!(t.iter().any(|s| s == name), "{name} not in {t:?}");
    }
    // Decade ticks on both axes.
    for tick in ["10", "100", "0.001", "1", "10"] {
        assert!(t.iter().any(|s| s == tick), "tick {tick} not in {t:?}");
    }
}

#[test]
fn bad_values_are_left_out_with_a_note() {
    let c = chart(vec![
        Series::new(
            "m",
            SeriesStyle::Measured,
            vec![
                (0.0, 1.0),
                (1.0, -2.0),
                (f64::NAN, 1.0),
                (2.0, 3.0),
                (4.0, 5.0),
            ],
        ),
        Series::new("empty", SeriesStyle::Scatter, vec![]),
        Series::new("zeros", SeriesStyle::Scatter, vec![(0.0, 0.0)]),
    ]);
    let svg = render_svg(&c).unwrap();
    assert_eq!(svg.notes.len(), 4, "{:?}", svg.notes);
    assert!(
        svg.notes[0].contains("3 of 5 points left out"),
        "{:?}",
        svg.notes
    );
    assert!(texts(&svg.text).iter().any(|s| s == "m"));
    assert!(!texts(&svg.text).iter().any(|s| s == "zeros"));
    // Nothing drawable at all is an error, not a panic.
    assert!(render_svg(&chart(vec![])).is_err());
    let e = render_svg(&chart(vec![Series::new(
        "z",
        SeriesStyle::Measured,
        vec![(0.0, 0.0), (f64::INFINITY, 1.0)],
    )]))
    .unwrap_err();
    assert!(e.to_string().contains("nothing to plot"), "{e}");
    // One point, all points equal, or the extremes of f64, still give an axis.
    let extremes = vec![
        (f64::MIN_POSITIVE, f64::MAX),
        (f64::MAX, 5e-324),
        (-f64::MAX, 1.0),
    ];
    for pts in [vec![(3.0, 3.0)], vec![(3.0, 3.0), (3.0, 3.0)], extremes] {
        for log in [false, true] {
            let mut c = chart(vec![Series::new("one", SeriesStyle::Scatter, pts.clone())]);
            c.log_x = log;
            c.log_y = log;
            render_svg(&c).unwrap();
        }
    }
}

#[test]
fn linear_axes_and_negative_values() {
    let mut c = chart(vec![Series::new(
        "line",
        SeriesStyle::Measured,
        vec![(-3.0, -1.0), (0.0, 0.0), (7.0, 2.5)],
    )]);
    c.log_x = false;
    c.log_y = false;
    let svg = render_svg(&c).unwrap();
    assert!(svg.notes.is_empty());
    let t = texts(&svg.text);
    assert!(
        t.iter().any(|s| s == "0") && t.iter().any(|s| s == "2"),
        "{t:?}"
    );
}

/// `v` is `want` up to rounding.
fn near(v: &[f64], want: &[f64]) -> bool {
    v.len() == want.len() && v.iter().zip(want).all(|(a, b)| (a / b - 1.0).abs() < 1e-9)
}

#[test]
fn ticks() {
    // Decades when at least three are in range, light lines at the other mantissas.
    let a = Axis::new(true, &[10.0, 1000.0], &[]);
    assert!(near(&a.bold, &[10.0, 100.0, 1000.0]), "{:?}", a.bold);
    assert_eq!(a.light.len(), 18, "{:?}", a.light); // 8 and 9, then 2..9 in two decades
                                                    // Many decades: plotters keeps the labels apart.
    let a = Axis::new(true, &[1e-10, 1e10], &[]);
    assert!((3..=12).contains(&a.bold.len()), "{:?}", a.bold);
    // Two decades are too few labels: 1-2-5 steps.
    let want = [2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0];
    assert!(
        near(&log_ticks(1.58, 251.0), &want),
        "{:?}",
        log_ticks(1.58, 251.0)
    );
    assert!(near(&log_ticks(1.26, 7.9), &[2.0, 5.0]));
    assert!(near(&log_ticks(3.5, 9.5), &[4.0, 5.0, 6.0, 7.0, 8.0, 9.0]));
    // Less than a ninth of a decade: evenly spaced ticks, still inside the range.
    let t = log_ticks(1.01, 1.02);
    assert!(
        t.len() >= 2 && t.iter().all(|v| (1.01..=1.02).contains(v)),
        "{t:?}"
    );
    let a = Axis::new(false, &[0.0, 10.0], &[]);
    assert!(a.bold.len() >= 4 && a.bold.contains(&0.0) && a.bold.contains(&10.0));
    // Labels: plain decimals within 0.0001..100000 on a logarithmic axis...
    let label = Axis::new(true, &[1e-4, 1e4], &[]).labeller();
    for (v, s) in [
        (1000.0, "1000"),
        (1e-4, "0.0001"),
        (0.0125, "0.0125"),
        (1e4, "10000"),
    ] {
        assert_eq!(label(&v), s);
    }
    // ...else powers of ten...
    let label = Axis::new(true, &[1.0, 1e6], &[]).labeller();
    assert_eq!(label(&1e5), "10⁵");
    assert_eq!(label(&10f64.powf(6.0)), "10⁶");
    assert_eq!(label(&1.0), "10⁰");
    assert_eq!(power_of_ten(2e-3), "2×10⁻³");
    assert_eq!(power_of_ten(9.9999999999e4), "10⁵");
    assert_eq!(power_of_ten(2.5e12), "2.5×10¹²");
    // ...and short decimals on a linear axis.
    let label = Axis::new(false, &[0.0, 1.0], &[]).labeller();
    for (v, s) in [
        (1e6, "1e6"),
        (2.5e-5, "2.5e-5"),
        (-20.0, "-20"),
        (0.30000000000000004, "0.3"),
    ] {
        assert_eq!(label(&v), s);
    }
    // In the drawing: powers of ten on an axis over more decades.
    let t = texts(
        &render_svg(&chart(vec![Series::new(
            "s",
            SeriesStyle::Measured,
            vec![(1e3, 1e6), (1e6, 30.0)],
        )]))
        .unwrap()
        .text,
    );
    for tick in ["10³", "10⁶", "10²", "10⁵"] {
        assert!(t.iter().any(|s| s == tick), "tick {tick} not in {t:?}");
    }
}

#[test]
fn the_legend_is_beside_the_plot() {
    // Data in every corner, where a legend inside the plot would go.
    let corners = vec![(1.0, 1.0), (1.0, 1e3), (1e3, 1.0), (1e3, 1e3)];
    let c = chart(vec![
        Series::new("legend-a", SeriesStyle::Scatter, corners.clone()),
        Series::new("legend-b", SeriesStyle::Measured, corners.clone()),
        Series::new("legend-c", SeriesStyle::Reference, corners),
    ]);
    let svg = render_svg(&c).unwrap().text;
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let num = |n: &roxmltree::Node, a: &str| n.attribute(a).unwrap().parse::<f64>().unwrap();
    let nodes: Vec<roxmltree::Node> = doc.descendants().collect();
    let first = nodes
        .iter()
        .position(|n| n.has_tag_name("text") && n.text().map(str::trim) == Some("legend-a"))
        .expect("legend entry");
    let legend_x: Vec<f64> = nodes[first..]
        .iter()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| num(n, "x"))
        .collect();
    assert_eq!(legend_x.len(), 3, "{svg}");
    // Everything drawn before the legend (mesh, markers, lines) ends left of it.
    let mut plot_right: f64 = 0.0;
    for n in &nodes[..first] {
        if n.has_tag_name("circle") {
            plot_right = plot_right.max(num(n, "cx") + num(n, "r"));
        } else if n.has_tag_name("polyline") {
            for p in n.attribute("points").unwrap().split_whitespace() {
                let x = p.split(',').next().unwrap().parse::<f64>().unwrap();
                plot_right = plot_right.max(x);
            }
        }
    }
    assert!(plot_right > 600.0, "{plot_right}");
    for x in legend_x {
        assert!(
            x > plot_right + SAMPLE as f64,
            "legend at {x}, plot to {plot_right}"
        );
    }
}

#[test]
fn explicit_ticks_replace_the_decades() {
    let mut c = chart(vec![Series::new(
        "s",
        SeriesStyle::Measured,
        vec![(8.0, 1.0), (2048.0, 100.0)],
    )]);
    c.x_ticks = vec![8.0, 64.0, 512.0, 2048.0, 1e6];
    let t = texts(&render_svg(&c).unwrap().text);
    for tick in ["8", "64", "512", "2048"] {
        assert!(t.iter().any(|s| s == tick), "{tick} not in {t:?}");
    }
    assert!(!t.iter().any(|s| s == "1e6"));
}

#[test]
fn write_chart_is_atomic() {
    let dir = std::env::temp_dir().join(format!("kairos-plot-unit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("c.svg");
    let good = chart(vec![Series::new(
        "s",
        SeriesStyle::Measured,
        vec![(1.0, 1.0), (10.0, 10.0)],
    )]);
    write_chart(&path, &good).unwrap();
    let first = std::fs::read_to_string(&path).unwrap();
    assert!(first.contains("</svg>"));
    // A chart that cannot be drawn leaves the previous file untouched and no temporary.
    let bad = chart(vec![Series::new(
        "s",
        SeriesStyle::Measured,
        vec![(0.0, 0.0)],
    )]);
    let e = write_chart(&path, &bad).unwrap_err();
    assert!(format!("{e:#}").contains("c.svg"), "{e:#}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), first);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // An unwritable destination is an error naming it.
    let e = write_chart(&dir.join("missing").join("c.svg"), &good).unwrap_err();
    assert!(format!("{e:#}").contains("missing"), "{e:#}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn discrete_chart_of_table_5_2() {
    // Thesis Table 5.2 (N = 1024).
    let mut rows = vec![DiscreteRow {
        label: "kaya-bvh (continuous)".into(),
        seconds: 46.34,
        missed: 0.0,
        dt: None,
    }];
    for (dt, s, m) in [
        (0.001, 236.73, 0.17),
        (0.005, 57.51, 1.93),
        (1.0, 1.893, 87281.33),
        (0.01, 29.53, 32.87),
        (0.03, 13.83, 156.06),
        (0.1, 5.48, 3416.14),
    ] {
        rows.push(DiscreteRow {
            label: format!("dt = {dt}"),
            seconds: s,
            missed: m,
            dt: Some(dt),
        });
    }
    let c = discrete_chart(&rows);
    assert!(c.log_x && c.log_y && c.x_label.contains("+ 1"));
    assert_eq!(c.series.len(), 2);
    assert_eq!(c.series[0].points, vec![(1.0, 46.34)]);
    let steps = &c.series[1];
    assert_eq!(steps.points.len(), 6);
    assert_eq!(steps.point_labels[0], "dt = 0.001");
    assert_eq!(steps.point_labels[5], "dt = 1");
    assert_eq!(steps.points[5], (87282.33, 1.893));
    let svg = render_svg(&c).unwrap();
    assert!(svg.notes.is_empty());
    let t = texts(&svg.text);
    for s in ["kaya-bvh (continuous)", "fixed time step", "dt = 0.03"] {
        assert!(t.iter().any(|x| x == s), "{s} not in {t:?}");
    }
    // No rows: an empty chart that render_svg refuses.
    assert!(render_svg(&discrete_chart(&[])).is_err());
}
