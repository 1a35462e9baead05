//! `kairos bench d2m`: the seed's experiment (D2M) redone on procedural meshes: pairs of
//! meshes fired at each other, spinning, at a low and a high speed, with the time per query
//! and the distance the reported contact leaves between them, for full D2M, its Capoeira
//! mode, and the seed's C2A stand-in: the convex-shapes module's conservative advancement on
//! the meshes' exact convex pieces ([`pieces`]).

mod pieces;

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use kairos::ccd::distance::mesh_distance;
use kairos::ccd::mesh::TriMesh;
use kairos::ccd::rotating::ScrewMotion;
use kairos::ccd::tree::{mesh_contact, MeshBody, MeshQuery};
use kairos::num::Num;
use kairos::query::ToiOptions;
use pieces::{pieces_contact, PieceBody, Procedural};
use plotters::style::RGBColor;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Most trials per pair and speed (each keeps its motions and results: about 200 bytes).
const MAX_TRIALS: usize = 100_000;
/// Slowest and fastest speeds of approach.
const MIN_SPEED: f64 = 1e-3;
const MAX_SPEED: f64 = 1e6;

/// Arguments of `kairos bench d2m`.
#[derive(Args)]
pub struct D2mArgs {
    /// Trials per pair and speed, 1 to 100,000 (the seed's experiment: 256).
    #[arg(long, default_value_t = 32)]
    pub trials: usize,
    /// Speeds of approach, from 0.001 to 1e6 (units per unit time; the seed's: 4 and 512).
    #[arg(long, value_delimiter = ',', default_value = "4,512")]
    pub speeds: Vec<f64>,
    /// The separation the back-off leaves (the seed's epsilon_d).
    #[arg(long, default_value_t = MeshQuery::default().separation)]
    pub separation: f64,
    /// Include the tenth pair, of about a million triangles (slow to build).
    #[arg(long)]
    pub large: bool,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Only the first this many pairs (smallest first; at most the number of pairs).
    #[arg(long)]
    pub pairs: Option<usize>,
    /// Only the pairs whose name contains this text (for example "torus 1024").
    #[arg(long)]
    pub only: Option<String>,
    /// The root finder's time tolerance, relative to the query's horizon.
    #[arg(long, default_value_t = MeshQuery::default().ccd.time_tolerance)]
    pub tolerance: f64,
    /// Also draw the distance at contact and the time per query of every pair, speed and
    /// method (SVG).
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
    /// Also write every trial (CSV: pair, speed, method, trial, seconds, distance at contact,
    /// empty when no contact was reported), to find the slow or the far ones.
    #[arg(long)]
    pub per_trial: Option<std::path::PathBuf>,
}

/// The mesh pairs: name, short name (for the plot) and the two meshes' recipes (centred at
/// the origin).
fn pairs(large: bool) -> Vec<(&'static str, &'static str, Procedural, Procedural)> {
    let ico = |radius, subdivisions| Procedural::Icosphere {
        radius,
        subdivisions,
    };
    let torus = |rings, sides| Procedural::Torus {
        major: 1.5,
        minor: 0.4,
        rings,
        sides,
    };
    let spiky = |radius, spike, subdivisions| Procedural::SpikyBall {
        radius,
        spike,
        subdivisions,
    };
    let hull = |points, seed| Procedural::ConvexHull {
        points,
        radius: 1.0,
        seed,
    };
    let mut v = vec![
        (
            "icosphere 1 / torus 16x8",
            "ico 1 / torus 16",
            ico(1.0, 1),
            torus(16, 8),
        ),
        (
            "icosphere 2 / icosphere 2",
            "ico 2 / ico 2",
            ico(1.0, 2),
            ico(1.0, 2),
        ),
        (
            "torus 32x16 / spiky ball",
            "torus 32 / spiky",
            torus(32, 16),
            spiky(0.6, 1.8, 2),
        ),
        (
            "plate / icosphere 3",
            "plate / ico 3",
            Procedural::Plate {
                half_width: 1.5,
                half_thickness: 0.02,
            },
            ico(0.8, 3),
        ),
        (
            "hull 500 / hull 1000",
            "hull / hull",
            hull(500, 1),
            hull(1000, 2),
        ),
        (
            "torus 64x32 / torus 64x32",
            "torus 64 / torus 64",
            torus(64, 32),
            torus(64, 32),
        ),
        (
            "icosphere 4 / torus 128x64",
            "ico 4 / torus 128",
            ico(1.0, 4),
            torus(128, 64),
        ),
        (
            "icosphere 5 / spiky ball 4",
            "ico 5 / spiky 4",
            ico(1.0, 5),
            spiky(0.7, 1.6, 4),
        ),
        (
            "torus 256x128 / icosphere 6",
            "torus 256 / ico 6",
            torus(256, 128),
            ico(1.0, 6),
        ),
    ];
    if large {
        v.push((
            "icosphere 7 / torus 1024x320",
            "ico 7 / torus 1024",
            ico(1.0, 7),
            torus(1024, 320),
        ));
    }
    v
}

fn radius(m: &TriMesh) -> f64 {
    m.vertices()
        .iter()
        .map(|v| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt())
        .fold(0.0, f64::max)
}

/// Minimum, quartiles and maximum of `v` (empty: NaN).
fn five(v: &mut [f64]) -> [f64; 5] {
    if v.is_empty() {
        return [f64::NAN; 5];
    }
    v.sort_by(f64::total_cmp);
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    [q(0.0), q(0.25), q(0.5), q(0.75), q(1.0)]
}

/// The methods, in the table's and the plot's order.
const METHODS: [&str; 3] = ["D2M", "Capoeira", "C2A"];

/// One row of the table: a pair, a speed and a method.
struct Row {
    pair: &'static str,
    short: &'static str,
    speed: f64,
    method: usize,
    micros: f64,
    /// Minimum, quartiles and maximum of the distance at contact.
    distance: [f64; 5],
}

pub fn d2m(a: D2mArgs) -> Result<ExitCode> {
    super::check_count("--trials", a.trials, MAX_TRIALS)?;
    if let Some(s) = a
        .speeds
        .iter()
        .find(|s| !(MIN_SPEED..=MAX_SPEED).contains(*s))
    {
        anyhow::bail!(
            "--speeds must be from {} to {}, got {}",
            Num(MIN_SPEED),
            Num(MAX_SPEED),
            Num(*s)
        );
    }
    anyhow::ensure!(
        a.separation >= 0.0 && a.separation.is_finite(),
        "--separation must be non-negative and finite"
    );
    anyhow::ensure!(
        a.tolerance > 0.0 && a.tolerance < 1.0,
        "--tolerance must be in (0, 1), got {}",
        Num(a.tolerance)
    );
    crate::output::Files::new()
        .output("--plot", a.plot.as_deref())
        .output("--per-trial", a.per_trial.as_deref())
        .check()?;
    let mut csv = String::from("pair,speed,method,trial,seconds,distance\n");
    outln!(
        "| pair | triangles | speed | mode | contacts | µs per query | distance at contact: min | q1 | median | q3 | max |"
    );
    outln!("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    let chosen = pairs(a.large);
    let count = a.pairs.unwrap_or(chosen.len());
    super::check_count("--pairs", count, chosen.len())?;
    let chosen: Vec<_> = chosen
        .into_iter()
        .enumerate()
        .take(count)
        .filter(|(_, p)| a.only.as_deref().is_none_or(|o| p.0.contains(o)))
        .collect();
    anyhow::ensure!(
        !chosen.is_empty(),
        "--only {:?}: no pair's name contains it (the pairs: {})",
        a.only.as_deref().unwrap_or(""),
        pairs(true)
            .iter()
            .map(|p| p.0)
            .collect::<Vec<_>>()
            .join(", ")
    );
    // A progress bar on a terminal: the large pair's rows take minutes.
    let bar = crate::output::progress_bar(
        (chosen.len() * a.speeds.len() * METHODS.len() * a.trials) as u64,
        "{spinner} [{bar:30}] {pos}/{len} queries, {msg} ({elapsed})",
    );
    let mut rows = Vec::new();
    for (index, (name, short, ra_recipe, rb_recipe)) in chosen {
        // Every pair has its own trials, the same whichever pairs run.
        let mut rng =
            Pcg64::seed_from_u64(a.seed.wrapping_mul(1_000_003).wrapping_add(index as u64));
        let (ma, mb) = (ra_recipe.mesh()?, rb_recipe.mesh()?);
        let (ra, rb) = (radius(&ma), radius(&mb));
        let triangles = ma.triangles().len() + mb.triangles().len();
        let (ba, bb0) = (MeshBody::new(ma), MeshBody::new(mb));
        // The pieces of `b` are relative to its centre, the same for every trial.
        let (pa, pb) = (
            PieceBody::new(ra_recipe.pieces()?)?,
            PieceBody::new(rb_recipe.pieces()?)?,
        );
        for &speed in &a.speeds {
            // The same trials for every method.
            let trials: Vec<(ScrewMotion, ScrewMotion, f64)> = (0..a.trials)
                .map(|_| {
                    let u = loop {
                        let u: [f64; 3] = [0; 3].map(|_| rng.gen_range(-1.0..1.0));
                        let l = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
                        if l > 0.1 && l <= 1.0 {
                            break u.map(|x| x / l);
                        }
                    };
                    let d = (ra + rb) * 1.5;
                    let aim = [0; 3].map(|_| rng.gen_range(-0.3..0.3) * ra);
                    let centre = u.map(|x| x * d);
                    let to = [0, 1, 2].map(|i| aim[i] - centre[i]);
                    let l = (to[0] * to[0] + to[1] * to[1] + to[2] * to[2]).sqrt();
                    let spin = |rng: &mut Pcg64| [0; 3].map(|_| rng.gen_range(-2.0..2.0));
                    let ma = ScrewMotion::new([0.0; 3], [0.0; 3], spin(&mut rng));
                    let mb = ScrewMotion::new(centre, to.map(|x| x / l * speed), spin(&mut rng));
                    (ma, mb, 2.0 * d / speed)
                })
                .collect();
            for (method, label) in METHODS.iter().enumerate() {
                if let Some(bar) = &bar {
                    bar.set_message(format!("{name} at speed {speed}, {label}"));
                }
                let query = MeshQuery {
                    separation: a.separation,
                    capoeira: method == 1,
                    ccd: kairos::ccd::CcdOptions {
                        time_tolerance: a.tolerance,
                        ..Default::default()
                    },
                };
                let options = ToiOptions::default();
                let mut seconds = 0.0;
                let mut distances = Vec::new();
                for (trial, (ma_m, mb_m, until)) in trials.iter().enumerate() {
                    // Placed per trial (not kept for all: the large pair's copies would take
                    // about 13 GB for 256 trials); the placing is not timed.
                    let b = &bb0.clone().translated(mb_m.centre);
                    let start = Instant::now();
                    let time = if method == 2 {
                        pieces_contact(&pa, ma_m, &pb, mb_m, *until, &options)?.map(|c| c.time)
                    } else {
                        mesh_contact(&ba, ma_m, b, mb_m, *until, &query, None).map(|c| c.time)
                    };
                    let elapsed = start.elapsed().as_secs_f64();
                    seconds += elapsed;
                    let distance = time.map(|t| mesh_distance(&ba, ma_m, b, mb_m, t));
                    distances.extend(distance);
                    csv += &format!(
                        "{name},{speed},{label},{trial},{elapsed:.6e},{}\n",
                        distance.map_or(String::new(), |d| format!("{d:.6e}"))
                    );
                    if let Some(bar) = &bar {
                        bar.inc(1);
                    }
                }
                let f = five(&mut distances);
                let micros = 1e6 * seconds / trials.len() as f64;
                outln!(
                    "| {name} | {triangles} | {speed} | {label} | {}/{} | {micros:.1} | {:.2e} | {:.2e} | {:.2e} | {:.2e} | {:.2e} |",
                    distances.len(),
                    trials.len(),
                    f[0],
                    f[1],
                    f[2],
                    f[3],
                    f[4]
                );
                rows.push(Row {
                    pair: name,
                    short,
                    speed,
                    method,
                    micros,
                    distance: f,
                });
            }
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(p) = &a.plot {
        let svg = plot(&rows)?;
        crate::output::write_text(p, &svg)?;
    }
    if let Some(p) = &a.per_trial {
        crate::output::write_text(p, &csv)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Okabe-Ito colours, one per method (those of the other benchmarks' plots).
const COLOURS: [RGBColor; 3] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
];
const FONT: &str = "sans-serif";

/// The plot: for every pair and speed (a group along x) and method (side by side in the
/// group), the distance at contact (log scale: the range from the least to the greatest, a
/// dot at the median) above, and the time per query (log scale) below.
fn plot(rows: &[Row]) -> Result<String> {
    use plotters::prelude::*;
    // The groups: (pair, short name, speed) in the rows' order.
    let mut groups: Vec<(&str, &str, f64)> = Vec::new();
    for r in rows {
        if groups.last() != Some(&(r.pair, r.short, r.speed)) {
            groups.push((r.pair, r.short, r.speed));
        }
    }
    let group = |r: &Row| {
        groups
            .iter()
            .position(|g| *g == (r.pair, r.short, r.speed))
            .unwrap_or(0)
    };
    let x = |r: &Row| group(r) as f64 + 0.25 * (r.method as f64 - 1.0);
    // A log range over the positive finite values, a little wider.
    let range = |values: Vec<f64>| {
        let v: Vec<f64> = values
            .into_iter()
            .filter(|v| *v > 0.0 && v.is_finite())
            .collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(0.0, f64::max);
        if v.is_empty() {
            (1e-12, 1.0)
        } else {
            (lo / 3.0, hi * 3.0)
        }
    };
    let placeable = |v: f64| v > 0.0 && v.is_finite();
    let (dlo, dhi) = range(rows.iter().flat_map(|r| r.distance).collect());
    let (tlo, thi) = range(rows.iter().map(|r| r.micros).collect());
    let width = 160 + 90 * groups.len() as u32;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (width, 800)).into_drawing_area();
        root.fill(&WHITE)?;
        let (head, rest) = root.split_vertically(70);
        let (top, bottom) = rest.split_vertically(390);
        head.draw(&Text::new(
            "The D2M experiment: distance at contact and time per query",
            (12, 10),
            (FONT, 18),
        ))?;
        for (k, m) in METHODS.iter().enumerate() {
            let (px, py) = (24 + 170 * k as i32, 48);
            head.draw(&Circle::new((px, py), 5, COLOURS[k].filled()))?;
            head.draw(&Text::new(
                format!("{m}{}", if k == 2 { " (convex pieces)" } else { "" }),
                (px + 12, py - 8),
                (FONT, 14),
            ))?;
        }
        let mut upper = panel(
            &top,
            &groups,
            dlo,
            dhi,
            "distance at contact (min, median, max)",
            0,
        )?;
        for r in rows {
            let (xr, [min, _, med, _, max]) = (x(r), r.distance);
            let colour = COLOURS[r.method];
            if placeable(min) && placeable(max) {
                upper.draw_series(std::iter::once(PathElement::new(
                    vec![(xr, min), (xr, max)],
                    colour.stroke_width(3),
                )))?;
                for end in [min, max] {
                    upper.draw_series(std::iter::once(PathElement::new(
                        vec![(xr - 0.07, end), (xr + 0.07, end)],
                        colour.stroke_width(2),
                    )))?;
                }
            }
            if placeable(med) {
                upper.draw_series(std::iter::once(Circle::new((xr, med), 5, colour.filled())))?;
            }
        }
        let mut lower = panel(&bottom, &groups, tlo, thi, "µs per query", 64)?;
        for r in rows.iter().filter(|r| placeable(r.micros)) {
            lower.draw_series(std::iter::once(Circle::new(
                (x(r), r.micros),
                5,
                COLOURS[r.method].filled(),
            )))?;
        }
        // Labels under the groups: the speed under each, the pair under its speeds.
        let centred = |size| {
            TextStyle::from((FONT, size).into_font()).pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Top,
            ))
        };
        let (_, y0) = lower.backend_coord(&(0.0, tlo));
        for (g, (_, _, speed)) in groups.iter().enumerate() {
            let (px, _) = lower.backend_coord(&(g as f64, tlo));
            root.draw(&Text::new(
                format!("v = {speed}"),
                (px, y0 + 10),
                centred(13),
            ))?;
        }
        let mut g = 0;
        while g < groups.len() {
            let end = (g..groups.len())
                .take_while(|&k| groups[k].0 == groups[g].0)
                .last()
                .unwrap_or(g);
            let (p0, _) = lower.backend_coord(&(g as f64, tlo));
            let (p1, _) = lower.backend_coord(&(end as f64, tlo));
            root.draw(&Text::new(
                groups[g].1.to_string(),
                ((p0 + p1) / 2, y0 + 34),
                centred(13),
            ))?;
            g = end + 1;
        }
        root.present()?;
    }
    Ok(text)
}

type Cartesian = plotters::prelude::Cartesian2d<
    plotters::coord::types::RangedCoordf64,
    plotters::prelude::LogCoord<f64>,
>;

/// One panel of the plot: the groups along x, a log scale over `[lo, hi]` along y, lines
/// between the pairs; `x_area` pixels below for the groups' labels.
fn panel<'a, 'b>(
    area: &'a plotters::prelude::DrawingArea<
        plotters::prelude::SVGBackend<'b>,
        plotters::coord::Shift,
    >,
    groups: &[(&str, &str, f64)],
    lo: f64,
    hi: f64,
    desc: &str,
    x_area: u32,
) -> Result<plotters::prelude::ChartContext<'a, plotters::prelude::SVGBackend<'b>, Cartesian>> {
    use plotters::prelude::*;
    let mut ctx = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(x_area)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5..groups.len() as f64 - 0.5, (lo..hi).log_scale())?;
    ctx.configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(desc)
        .y_label_formatter(&|v: &f64| format!("{v:.0e}"))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .bold_line_style(BLACK.mix(0.15))
        .light_line_style(BLACK.mix(0.05))
        .draw()?;
    // Lines between the pairs.
    for (g, w) in groups.windows(2).enumerate() {
        if w[0].0 != w[1].0 {
            let at = g as f64 + 0.5;
            ctx.draw_series(std::iter::once(PathElement::new(
                vec![(at, lo), (at, hi)],
                BLACK.mix(0.3),
            )))?;
        }
    }
    Ok(ctx)
}
