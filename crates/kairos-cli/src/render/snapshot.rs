//! `kairos snapshot`: the scene of a trace at one time, as an SVG picture written by hand.
//!
//! The state at time `T` is rebuilt exactly as `kairos export --final` and `kairos frames` do
//! (every body moves in a straight line from its last record). Shapes are written in scene
//! coordinates inside one flipping transform, so a circle's `cx`, `cy` and `r` are the body's
//! position and radius. A rigid body of a version 3 trace (other than a ball) is drawn as its
//! outline at its pose, a closed `<path>` through [`picture::outlines`]' points: in 3D the
//! outline of its projection on the picture's plane.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use kairos::scene::Scene;
use kairos::trace::Replay;

use crate::commands::inspect::{check_time, next, open_with_scene};
use crate::output::{self, Files};
use crate::render::picture::{self, Axes, Bounds, DrawnWall, Shape};
use crate::show;

/// Colours shared with the replay page (`assets/viewer-core.js`).
pub const BACKGROUND: &str = "#ffffff";
/// Walls.
pub const WALL: &str = "#222222";
/// Bodies' fill.
pub const BODY: &str = "#3b7dd8";
/// Bodies' outline.
pub const BODY_STROKE: &str = "#1f4e8c";
/// The periodic box.
pub const PERIOD: &str = "#8a8a8a";

/// Arguments of `kairos snapshot`.
#[derive(Args)]
pub struct SnapshotArgs {
    /// Trace to read.
    pub trace: PathBuf,
    /// Simulated time of the picture, between 0 and the trace's end time.
    #[arg(long, value_name = "T")]
    pub time: f64,
    /// Picture to write; the extension chooses the format (`.svg`).
    #[arg(short, long)]
    pub output: PathBuf,
    /// The two axes shown for a 3D trace (`xy`, `xz`, `yz`, ...).
    #[arg(long, default_value = "xy")]
    pub axes: Axes,
    /// Longest side of the picture, in pixels.
    #[arg(long, default_value_t = 800)]
    pub size: u32,
}

pub fn snapshot(a: SnapshotArgs) -> Result<ExitCode> {
    let (mut reader, scene) = open_with_scene(&a.trace)?;
    Files::new()
        .input("trace", &a.trace)
        .mesh_inputs(&scene)
        .output("--output", Some(&a.output))
        .check()?;
    let ext = a
        .output
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "svg" => {}
        "png" => anyhow::bail!(
            "{}: PNG is not written (no rasteriser is built in); write an SVG and convert it, \
             for example with `resvg frame.svg frame.png` or `rsvg-convert`",
            show(&a.output)
        ),
        _ => anyhow::bail!(
            "{}: unknown picture format `.{ext}` (use `.svg`)",
            show(&a.output)
        ),
    }
    anyhow::ensure!(
        (16..=20_000).contains(&a.size),
        "--size must be between 16 and 20000 pixels, got {}",
        a.size
    );
    a.axes.check(scene.dim)?;
    check_time(&reader, a.time, "--time", &a.trace)?;
    let mut state = Replay::new(reader.header());
    while let Some(r) = next(&mut reader, &a.trace)? {
        // The remaining records are still read: the footer's hash checks the whole file.
        if r.time <= a.time {
            state.apply(&r);
        }
    }
    let svg = svg(&scene, &state, a.time, a.axes, a.size);
    output::write_text(&a.output, &svg)?;
    Ok(ExitCode::SUCCESS)
}

/// Shortest decimal that reads back to `x`.
fn num(x: f64) -> String {
    format!("{x:?}")
}

/// The picture of `state` at time `t`.
pub fn svg(scene: &Scene, state: &Replay, t: f64, axes: Axes, size: u32) -> String {
    let (walls, _) = picture::walls(scene, axes);
    let period = picture::period(scene, axes);
    let radii: Vec<f64> = scene.bodies.iter().map(|b| b.radius).collect();
    let mut bodies: Vec<(usize, [f64; 3])> = (0..radii.len())
        .map(|i| {
            let mut p = state.position(i, t);
            if let Some(l) = &scene.periodic {
                for (x, l) in p.iter_mut().zip(l) {
                    *x = picture::wrap(*x, *l);
                }
            }
            (i, p)
        })
        .collect();
    if scene.dim == 3 {
        // Nearest (largest coordinate along the dropped axis) drawn last.
        let d = axes.depth();
        bodies.sort_by(|x, y| x.1[d].total_cmp(&y.1[d]).then(x.0.cmp(&y.0)));
    }
    let mut bounds = Bounds::default();
    bounds.add_scene(&walls, period);
    if period.is_none() {
        for (i, p) in &bodies {
            bounds.add(axes.project(p), radii[*i]);
        }
    }
    let b = bounds.finished();
    let (bw, bh) = (b.max[0] - b.min[0], b.max[1] - b.min[1]);
    let margin = 10.0;
    let inner = f64::from(size) - 2.0 * margin;
    let scale = inner / bw.max(bh);
    let (w, h) = (bw * scale + 2.0 * margin, bh * scale + 2.0 * margin);
    let px = |p: f64| num(p / scale);

    let mut s = String::new();
    let _ = writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}">"#
    );
    let _ = writeln!(s, "<title>Kairos scene at t = {}</title>", num(t));
    let _ = writeln!(
        s,
        r#"<rect width="100%" height="100%" fill="{BACKGROUND}"/>"#
    );
    // Scene coordinates: x to the right, y up.
    let _ = writeln!(
        s,
        r#"<g transform="matrix({} 0 0 {} {} {})">"#,
        num(scale),
        num(-scale),
        num(margin - b.min[0] * scale),
        num(margin + b.max[1] * scale)
    );
    if let Some(l) = period {
        let _ = writeln!(
            s,
            r#"<rect class="period" x="0" y="0" width="{}" height="{}" fill="none" stroke="{PERIOD}" stroke-width="{}" stroke-dasharray="{} {}"/>"#,
            num(l[0]),
            num(l[1]),
            px(1.0),
            px(6.0),
            px(4.0)
        );
    }
    write_walls(&mut s, &walls, &b, px(2.0));
    let _ = writeln!(
        s,
        r#"<g class="bodies" fill="{BODY}" stroke="{BODY_STROKE}" stroke-width="{}">"#,
        px(1.0)
    );
    let mut images = String::new();
    let outlines = picture::outlines(scene, state, t, axes);
    let wireframes = picture::wireframes(scene, state, t, axes);
    for (i, p) in &bodies {
        let [x, y] = axes.project(p);
        let r = radii[*i];
        if let Some(Some(points)) = outlines.get(*i) {
            let d: Vec<String> = points
                .iter()
                .map(|q| format!("{} {}", num(q[0]), num(q[1])))
                .collect();
            let _ = writeln!(s, r#"<path d="M {} Z"/>"#, d.join(" L "));
            // A mesh: its edges over its outline.
            if let Some(edges) = wireframes.get(*i).filter(|e| !e.is_empty()) {
                let d: Vec<String> = edges
                    .iter()
                    .map(|[a, b]| {
                        format!(
                            "M {} {} L {} {}",
                            num(a[0]),
                            num(a[1]),
                            num(b[0]),
                            num(b[1])
                        )
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    r#"<path class="wireframe" d="{}" fill="none" stroke-width="{}" stroke-opacity="0.6"/>"#,
                    d.join(" "),
                    px(0.5)
                );
            }
            continue;
        }
        let _ = writeln!(
            s,
            r#"<circle cx="{}" cy="{}" r="{}"/>"#,
            num(x),
            num(y),
            num(r)
        );
        // A disc across a face of a periodic box shows on the opposite side too.
        if let Some(l) = period {
            let shifts = |c: f64, l: f64| -> Vec<f64> {
                let mut v = vec![0.0];
                if c - r < 0.0 {
                    v.push(l);
                }
                if c + r > l {
                    v.push(-l);
                }
                v
            };
            for dx in shifts(x, l[0]) {
                for dy in shifts(y, l[1]) {
                    if dx != 0.0 || dy != 0.0 {
                        let _ = writeln!(
                            images,
                            r#"<circle cx="{}" cy="{}" r="{}"/>"#,
                            num(x + dx),
                            num(y + dy),
                            num(r)
                        );
                    }
                }
            }
        }
    }
    let _ = writeln!(s, "</g>");
    if let (Some(l), false) = (period, images.is_empty()) {
        let _ = writeln!(
            s,
            r#"<clipPath id="box"><rect x="0" y="0" width="{}" height="{}"/></clipPath>"#,
            num(l[0]),
            num(l[1])
        );
        let _ = writeln!(
            s,
            r#"<g class="images" clip-path="url(#box)" fill="{BODY}" stroke="{BODY_STROKE}" stroke-width="{}">"#,
            px(1.0)
        );
        s.push_str(&images);
        let _ = writeln!(s, "</g>");
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, "</svg>");
    s
}

fn write_walls(s: &mut String, walls: &[DrawnWall], b: &Bounds, width: String) {
    if walls.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        r#"<g class="walls" fill="none" stroke="{WALL}" stroke-width="{width}" stroke-linecap="round" stroke-linejoin="round">"#
    );
    let line = |s: &mut String, a: [f64; 2], c: [f64; 2]| {
        let _ = writeln!(
            s,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#,
            num(a[0]),
            num(a[1]),
            num(c[0]),
            num(c[1])
        );
    };
    for w in walls {
        match &w.shape {
            Shape::Segment(a, c) => line(s, *a, *c),
            Shape::Polygon(vs) => {
                let pts: Vec<String> = vs
                    .iter()
                    .map(|v| format!("{},{}", num(v[0]), num(v[1])))
                    .collect();
                let _ = writeln!(s, r#"<polygon points="{}"/>"#, pts.join(" "));
            }
            Shape::Line { point, dir } => {
                // Long enough to cross the whole picture from any point.
                let c = [0.5 * (b.min[0] + b.max[0]), 0.5 * (b.min[1] + b.max[1])];
                let reach = (b.max[0] - b.min[0]).hypot(b.max[1] - b.min[1])
                    + (point[0] - c[0]).hypot(point[1] - c[1]);
                let a = [point[0] - dir[0] * reach, point[1] - dir[1] * reach];
                let e = [point[0] + dir[0] * reach, point[1] + dir[1] * reach];
                line(s, a, e);
            }
        }
    }
    let _ = writeln!(s, "</g>");
}
