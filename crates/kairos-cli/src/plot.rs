//! SVG charts (`--plot F.svg` of the `bench` commands and of `sweep`).
//!
//! A [`Chart`] is plain data (titles, axes, [`Series`]); [`render_svg`] draws it with the
//! `plotters` SVG backend into a string and [`write_chart`] writes that string atomically.
//!
//! Axes are plotters' linear and logarithmic coordinates. Labelled ticks on a logarithmic axis
//! are plotters' decades when at least three are in range, else 1-2-5 steps chosen here, or the
//! values the chart asks for ([`Chart::x_ticks`]); labels are plotters' float printer, or powers
//! of ten with superscripts. Points that cannot be placed (not finite, or not positive on a
//! logarithmic axis) are left out and reported in [`Svg::notes`], never a panic. The legend is
//! plotters' series labels, drawn in a column of its own to the right of the plot, so it never
//! covers data.

use std::path::Path;

use anyhow::{bail, Result};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::data::float::pretty_print_float;
use plotters::element::{DashedPathElement, Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::{BackendCoord, DrawingErrorKind};

use crate::output::write_text;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesStyle {
    /// Measurements: a line through markers, in the next palette colour.
    Measured,
    /// A reference curve such as `O(n^2)`: a thin dashed grey line without markers.
    Reference,
    /// Markers only, in the next palette colour.
    Scatter,
}

/// One named set of points.
#[derive(Clone, Debug)]
pub struct Series {
    /// The name shown in the legend.
    pub name: String,
    /// Points in data coordinates, drawn in this order.
    pub points: Vec<(f64, f64)>,
    /// How the series is drawn.
    pub style: SeriesStyle,
    /// Optional text written beside each point (index-matched with `points`; may be shorter).
    pub point_labels: Vec<String>,
    /// Optional error bar of each point, drawn from `y - e` to `y + e` (index-matched with
    /// `points`; may be shorter).
    pub y_errors: Vec<f64>,
}

impl Series {
    /// A series without point labels.
    pub fn new(name: impl Into<String>, style: SeriesStyle, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
            style,
            point_labels: Vec::new(),
            y_errors: Vec::new(),
        }
    }

    /// The same series with an error bar on each point.
    pub fn with_y_errors(mut self, errors: Vec<f64>) -> Self {
        self.y_errors = errors;
        self
    }

    /// The same series with a label beside each point.
    pub fn with_point_labels(mut self, labels: Vec<String>) -> Self {
        self.point_labels = labels;
        self
    }
}

/// A two-dimensional chart: axes and series.
#[derive(Clone, Debug, Default)]
pub struct Chart {
    /// Caption above the plot.
    pub title: String,
    /// Horizontal axis description (with units).
    pub x_label: String,
    /// Vertical axis description (with units).
    pub y_label: String,
    /// Logarithmic horizontal axis.
    pub log_x: bool,
    /// Logarithmic vertical axis.
    pub log_y: bool,
    /// Labelled ticks of the horizontal axis in data coordinates; empty for automatic ones.
    pub x_ticks: Vec<f64>,
    /// The series, drawn in this order (the legend lists them in this order too).
    pub series: Vec<Series>,
}

/// A rendered chart.
#[derive(Clone, Debug)]
pub struct Svg {
    /// The SVG document.
    pub text: String,
    /// What was left out (points that cannot be placed, series with no such point).
    pub notes: Vec<String>,
}

/// Okabe-Ito colours (distinguishable with the common colour-vision deficiencies).
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];
/// Colours of reference curves, darker first.
const REFERENCE: [RGBColor; 2] = [RGBColor(70, 70, 70), RGBColor(140, 140, 140)];

const PLOT_WIDTH: u32 = 760;
const HEIGHT: u32 = 500;
const FONT: &str = "sans-serif";
/// Width of the line and marker sample before each legend entry.
const SAMPLE: i32 = 32;

/// One axis: plotters' linear or logarithmic coordinate over the data, with labelled (`bold`)
/// and unlabelled (`light`) ticks.
///
/// One type for both scales, so that a single chart type serves every pair of axes; plotters'
/// own tick wrapper (`with_key_points`) would do, but over a linear `f64` range it loses the
/// tick labels.
struct Axis {
    coord: Coord,
    bold: Vec<f64>,
    light: Vec<f64>,
    /// Label ticks as powers of ten (`10⁵`, `2×10⁵`): a logarithmic axis with a tick outside
    /// 0.0001..100000.
    powers: bool,
}

enum Coord {
    Linear(RangedCoordf64),
    Log(LogCoord<f64>),
}

impl Axis {
    /// The axis over the data values `vals` (non-empty, placeable), with `ticks` in data
    /// coordinates when at least two of them are in range.
    fn new(log: bool, vals: &[f64], ticks: &[f64]) -> Axis {
        let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // A margin of 5% of the range on either side, in the axis' own scale; a single value
        // gets a range around it. The range stays finite and at most 300 decades wide (plotters
        // loops for ever over an infinite one); what lies beyond is drawn at the edge.
        let (lo, hi) = if log {
            let f = if max > min {
                10f64.powf(0.05 * (max.log10() - min.log10()))
            } else {
                3.0
            };
            let hi = (max * f).min(f64::MAX);
            ((min / f).max(hi / 1e300).max(f64::from_bits(1)), hi)
        } else {
            let (min, max) = (min.max(-1e300), max.min(1e300));
            let w = if max > min {
                0.05 * (max - min)
            } else {
                (min.abs() * 0.1).max(1.0)
            };
            (min - w, max + w)
        };
        let given: Vec<f64> = ticks
            .iter()
            .copied()
            .filter(|t| (lo..=hi).contains(t))
            .collect();
        let (bold, light) = if given.len() >= 2 {
            (given, Vec::new())
        } else if log && hi > 1e12 * lo {
            // Light lines would crowd: plotters draws none over as many decades either.
            (log_ticks(lo, hi), Vec::new())
        } else if log {
            let bold = log_ticks(lo, hi);
            let light = mantissa_ticks(lo, hi, &[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
                .into_iter()
                .filter(|m| !bold.iter().any(|b| (b / m - 1.0).abs() < 1e-9))
                .collect();
            (bold, light)
        } else {
            (RangedCoordf64::from(lo..hi).key_points(6), Vec::new())
        };
        let powers = log && bold.iter().any(|t| !(1e-4..1e5).contains(&(t * 1.000001)));
        let coord = if log {
            Coord::Log((lo..hi).log_scale().into())
        } else {
            Coord::Linear((lo..hi).into())
        };
        Axis {
            coord,
            bold,
            light,
            powers,
        }
    }

    /// The labels of the ticks: plain decimals (plotters' float printer), or powers of ten.
    fn labeller(&self) -> impl Fn(&f64) -> String {
        let (powers, log) = (self.powers, matches!(self.coord, Coord::Log(_)));
        move |&t| {
            if powers {
                power_of_ten(t)
            } else {
                pretty_print_float(t, !log)
            }
        }
    }
}

impl Ranged for Axis {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        match &self.coord {
            Coord::Linear(c) => c.map(value, limit),
            Coord::Log(c) => c.map(value, limit),
        }
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        match &self.coord {
            Coord::Linear(c) => c.range(),
            Coord::Log(c) => c.range(),
        }
    }
}

/// Labelled ticks of a logarithmic axis over `[lo, hi]`: plotters' decades when there are at
/// least three, else 1-2-5 steps, else every integer mantissa, else plotters' linear ticks.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    // Under two decades plotters adds intermediate values from the first whole decade only.
    if hi >= 100.0 * lo {
        let decades = LogCoord::from((lo..hi).log_scale()).key_points(11);
        if decades.len() >= 3 {
            return decades;
        }
    }
    for mantissas in [
        &[1.0, 2.0, 5.0][..],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ] {
        let ticks = mantissa_ticks(lo, hi, mantissas);
        if ticks.len() >= 2 {
            return ticks;
        }
    }
    RangedCoordf64::from(lo..hi).key_points(6)
}

/// The values `m × 10^k` in `[lo, hi]` (positive) for `m` in `mantissas`, ascending.
fn mantissa_ticks(lo: f64, hi: f64, mantissas: &[f64]) -> Vec<f64> {
    let decades = (lo.log10().floor() as i32)..=(hi.log10().ceil() as i32);
    decades
        .flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k)))
        .filter(|t| (lo..=hi).contains(t))
        .collect()
}

/// Positive `v` as a power of ten with Unicode superscripts: `10⁵`, `2×10⁻³`, `2.5×10⁶`.
fn power_of_ten(v: f64) -> String {
    // The tolerance keeps a decade computed as 9.999…e4 in its own decade.
    let e = (v.log10() + 1e-9).floor() as i32;
    let sup: String = e
        .to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            d => ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'][d as usize - '0' as usize],
        })
        .collect();
    match pretty_print_float(v / 10f64.powi(e), false) {
        m if m == "1" => format!("10{sup}"),
        m => format!("{m}×10{sup}"),
    }
}

/// Marker shape of the `i`-th coloured series.
#[derive(Clone, Copy)]
enum Marker {
    Circle,
    Triangle,
    Square,
    Cross,
}

const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Cross,
];

/// How a series looks: style, colour, marker, dashes.
#[derive(Clone, Copy)]
struct Look {
    style: SeriesStyle,
    color: RGBColor,
    marker: Marker,
    dash: Option<(u32, u32)>,
}

/// A series ready to draw: placeable points and look.
struct Drawn<'a> {
    series: &'a Series,
    points: Vec<(f64, f64, Option<&'a str>, f64)>,
    look: Look,
}

/// The marker of a series at one point (data coordinates), or its legend sample with its left
/// end at one point (pixels): a stretch of its line, solid or dashed, and its marker.
///
/// A legend entry must be a single element type. plotters has a type for each marker shape, and
/// its dynamic element cannot be composed with a line here (that needs a `'static` backend), so
/// this element picks the shapes and draws them with plotters' elements.
struct Mark<C> {
    at: C,
    look: Look,
    legend: bool,
}

impl<'a, C> PointCollection<'a, C> for &'a Mark<C> {
    type Point = &'a C;
    type IntoIter = std::iter::Once<&'a C>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.at)
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for Mark<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut pos: I,
        backend: &mut DB,
        dim: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some((x, y)) = pos.next() else {
            return Ok(());
        };
        let Look {
            style,
            color,
            marker,
            dash,
        } = self.look;
        let stroke = color.stroke_width(2);
        let mut c = (x, y);
        if self.legend {
            let line = [(x, y), (x + SAMPLE, y)];
            match (style, dash) {
                (SeriesStyle::Reference, Some((on, off))) => DashedPathElement::new(
                    line, on, off, stroke,
                )
                .draw(line.into_iter(), backend, dim)?,
                (SeriesStyle::Measured, _) => {
                    PathElement::new(line, stroke).draw(line.into_iter(), backend, dim)?
                }
                _ => {}
            }
            c = (x + SAMPLE / 2, y);
        }
        if style == SeriesStyle::Reference {
            return Ok(());
        }
        let (fill, at) = (color.filled(), std::iter::once(c));
        match marker {
            Marker::Circle => Circle::new(c, 4, fill).draw(at, backend, dim),
            Marker::Triangle => TriangleMarker::new(c, 5, fill).draw(at, backend, dim),
            Marker::Square => {
                let corners = [(c.0 - 4, c.1 - 4), (c.0 + 4, c.1 + 4)];
                Rectangle::new(corners, fill).draw(corners.into_iter(), backend, dim)
            }
            Marker::Cross => Cross::new(c, 4, stroke).draw(at, backend, dim),
        }
    }
}

/// Whether data value `v` can be placed on an axis.
fn placeable(log: bool, v: f64) -> bool {
    v.is_finite() && (!log || v > 0.0)
}

/// Draws `chart` as an SVG document.
///
/// Fails when the chart has no series or no series has a point that can be placed.
pub fn render_svg(chart: &Chart) -> Result<Svg> {
    if chart.series.is_empty() {
        bail!("nothing to plot: the chart has no series");
    }
    let mut notes = Vec::new();
    let mut drawn = Vec::new();
    let (mut colored, mut references) = (0, 0);
    for s in &chart.series {
        let points: Vec<(f64, f64, Option<&str>, f64)> = s
            .points
            .iter()
            .enumerate()
            .filter(|(_, &(x, y))| placeable(chart.log_x, x) && placeable(chart.log_y, y))
            .map(|(i, &(x, y))| {
                let e = s
                    .y_errors
                    .get(i)
                    .copied()
                    .filter(|e| e.is_finite() && *e > 0.0);
                (
                    x,
                    y,
                    s.point_labels.get(i).map(String::as_str),
                    e.unwrap_or(0.0),
                )
            })
            .collect();
        let left_out = s.points.len() - points.len();
        if left_out > 0 {
            notes.push(format!(
                "series `{}`: {left_out} of {} points left out (not finite{})",
                s.name,
                s.points.len(),
                if chart.log_x || chart.log_y {
                    ", or not positive on a logarithmic axis"
                } else {
                    ""
                }
            ));
        }
        if points.is_empty() {
            notes.push(format!(
                "series `{}` has no point to draw; not shown",
                s.name
            ));
            continue;
        }
        let (color, marker, dash) = match s.style {
            SeriesStyle::Reference => {
                references += 1;
                let k = references - 1;
                (
                    REFERENCE[k % REFERENCE.len()],
                    Marker::Circle,
                    Some(if k % 2 == 0 { (8, 5) } else { (3, 4) }),
                )
            }
            SeriesStyle::Measured | SeriesStyle::Scatter => {
                colored += 1;
                let k = colored - 1;
                (PALETTE[k % PALETTE.len()], MARKERS[k % MARKERS.len()], None)
            }
        };
        drawn.push(Drawn {
            series: s,
            points,
            look: Look {
                style: s.style,
                color,
                marker,
                dash,
            },
        });
    }
    if drawn.is_empty() {
        bail!("nothing to plot: no series has a point that can be drawn");
    }
    let xs: Vec<f64> = drawn
        .iter()
        .flat_map(|d| d.points.iter().map(|p| p.0))
        .collect();
    let ys: Vec<f64> = drawn
        .iter()
        .flat_map(|d| d.points.iter().map(|p| p.1))
        .collect();
    let x = Axis::new(chart.log_x, &xs, &chart.x_ticks);
    let y = Axis::new(chart.log_y, &ys, &[]);

    // The legend's column: plotters' estimate of the longest name (about a tenth narrow for
    // sans-serif), the sample and some space.
    let longest = drawn
        .iter()
        .map(|d| d.series.name.as_str())
        .max_by_key(|n| n.chars().count())
        .unwrap_or("");
    let mut text = String::new();
    let (w, _) = SVGBackend::with_string(&mut text, (PLOT_WIDTH, HEIGHT))
        .into_drawing_area()
        .estimate_text_size(longest, &TextStyle::from((FONT, 14).into_font()))?;
    let legend_width = w * 11 / 10 + SAMPLE as u32 + 40;
    text.clear();
    {
        let root = SVGBackend::with_string(&mut text, (PLOT_WIDTH + legend_width, HEIGHT))
            .into_drawing_area();
        root.fill(&WHITE)?;
        let (plot, legend) = root.split_horizontally(PLOT_WIDTH);
        let top = draw_plot(&plot, chart, &drawn, x, y)?;
        draw_legend(&legend, &drawn, top)?;
        root.present()?;
    }
    Ok(Svg { text, notes })
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Draws the axes and series; returns the top of the plotting area in pixels.
fn draw_plot(area: &Area<'_>, chart: &Chart, drawn: &[Drawn<'_>], x: Axis, y: Axis) -> Result<i32> {
    let (x_labels, y_labels) = (x.labeller(), y.labeller());
    let mut ctx = ChartBuilder::on(area)
        .caption(&chart.title, (FONT, 18))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x, y)?;
    ctx.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&x_labels)
        .y_label_formatter(&y_labels)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .bold_line_style(BLACK.mix(0.15))
        .light_line_style(BLACK.mix(0.05))
        .draw()?;
    let label_color = BLACK.mix(0.8);
    let label_style = TextStyle::from((FONT, 12).into_font()).color(&label_color);
    for d in drawn {
        let look = d.look;
        let xy = d.points.iter().map(|&(x, y, _, _)| (x, y));
        // Error bars first, under the markers (not on a logarithmic axis, where y - e may not
        // be placeable).
        if !chart.log_y {
            let bar = look.color.stroke_width(1);
            ctx.draw_series(
                d.points
                    .iter()
                    .filter(|p| p.3 > 0.0)
                    .map(|&(x, y, _, e)| PathElement::new(vec![(x, y - e), (x, y + e)], bar)),
            )?;
        }
        let stroke = look.color.stroke_width(2);
        if look.style == SeriesStyle::Measured {
            ctx.draw_series(LineSeries::new(xy.clone(), stroke))?;
        }
        match (look.style, look.dash) {
            (SeriesStyle::Reference, Some((on, off))) => {
                ctx.draw_series(DashedLineSeries::new(xy, on, off, stroke))?;
            }
            _ => {
                ctx.draw_series(xy.map(|at| Mark {
                    at,
                    look,
                    legend: false,
                }))?;
            }
        }
        ctx.draw_series(d.points.iter().filter_map(|&(x, y, label, _)| {
            let label = label.filter(|l| !l.is_empty())?;
            Some(
                EmptyElement::at((x, y))
                    + Text::new(label.to_string(), (7, -16), label_style.clone()),
            )
        }))?;
    }
    Ok(ctx.plotting_area().get_base_pixel().1)
}

/// Draws the legend with plotters' series labels, level with the top of the plot at `top`.
///
/// plotters draws the legend inside a chart's plotting area, where it could cover data; so the
/// legend gets a chart of its own in a column beside the plot, without axes or data.
fn draw_legend(area: &Area<'_>, drawn: &[Drawn<'_>], top: i32) -> Result<()> {
    let mut ctx = ChartBuilder::on(area).build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
    for d in drawn {
        let look = d.look;
        ctx.draw_series(std::iter::empty::<Mark<(f64, f64)>>())?
            .label(d.series.name.as_str())
            .legend(move |at| Mark {
                at,
                look,
                legend: true,
            });
    }
    ctx.configure_series_labels()
        .position(SeriesLabelPosition::Coordinate(0, top))
        .legend_area_size(SAMPLE + 8)
        .label_font((FONT, 14))
        .draw()?;
    Ok(())
}

/// Draws `chart` and writes it to `path` atomically (nothing is left at `path` on failure);
/// what was left out of the chart is reported on stderr.
pub fn write_chart(path: &Path, chart: &Chart) -> Result<()> {
    let svg = render_svg(chart).map_err(|e| e.context(format!("{}", path.display())))?;
    for note in &svg.notes {
        eprintln!("note: {}: {note}", path.display());
    }
    write_text(path, &svg.text)
}

/// One row of a comparison of continuous-time simulation with fixed steps (thesis Table 5.2).
#[derive(Clone, Debug)]
pub struct DiscreteRow {
    /// What ran (`calendar`, `discrete dt = 0.01`, ...).
    pub label: String,
    /// Running time in seconds.
    pub seconds: f64,
    /// Missed collisions (mean over runs; 0 for continuous time; see `kairos::discrete`).
    pub missed: f64,
    /// The fixed step of a plain fixed-step row, joined into one line with the others; `None`
    /// for a row drawn as a marker of its own (continuous time, sub-steps, rewind).
    pub dt: Option<f64>,
}

/// Running time against missed collisions (thesis Table 5.2 as a picture).
///
/// Both axes are logarithmic, so the horizontal axis is missed collisions plus one (an exact
/// run sits at 1) and says so. Fixed-step rows form one series, joined in order of `dt` and
/// each point labelled with its `dt`; every other row (continuous time, sub-steps, rewind) is a
/// series of its own.
pub fn discrete_chart(rows: &[DiscreteRow]) -> Chart {
    let mut steps: Vec<&DiscreteRow> = rows.iter().filter(|r| r.dt.is_some()).collect();
    steps.sort_by(|a, b| a.dt.unwrap_or(0.0).total_cmp(&b.dt.unwrap_or(0.0)));
    let mut series: Vec<Series> = rows
        .iter()
        .filter(|r| r.dt.is_none())
        .map(|r| {
            Series::new(
                r.label.clone(),
                SeriesStyle::Scatter,
                vec![(r.missed + 1.0, r.seconds)],
            )
        })
        .collect();
    if !steps.is_empty() {
        series.push(
            Series::new(
                "fixed time step",
                SeriesStyle::Measured,
                steps.iter().map(|r| (r.missed + 1.0, r.seconds)).collect(),
            )
            .with_point_labels(
                steps
                    .iter()
                    .map(|r| format!("dt = {}", pretty_print_float(r.dt.unwrap_or(0.0), true)))
                    .collect(),
            ),
        );
    }
    Chart {
        title: "Running time against missed collisions".into(),
        x_label: "missed collisions + 1 (log scale; 1 = none missed)".into(),
        y_label: "running time (s)".into(),
        log_x: true,
        log_y: true,
        x_ticks: Vec::new(),
        series,
    }
}

#[cfg(test)]
mod tests;
