//! SVG charts of benchmark results (`--plot F.svg` of the `bench` commands).
//!
//! A [`Chart`] is plain data (titles, axes, [`Series`]); [`render_svg`] draws it with the
//! `plotters` SVG backend into a string and [`write_chart`] writes that string atomically.
//!
//! Logarithmic axes are drawn as linear axes over `log10` of the values, with ticks chosen
//! here: decades, or 1-2-5 steps when fewer than three decades are in range, or the values the
//! chart asks for ([`Chart::x_ticks`]). Points that cannot be placed (not finite, or not
//! positive on a logarithmic axis) are left out and reported in [`Svg::notes`], never a panic.
//! The legend is drawn in a column of its own to the right of the plot, so it never covers data.

use std::path::Path;

use anyhow::{bail, Result};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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
}

impl Series {
    /// A series without point labels.
    pub fn new(name: impl Into<String>, style: SeriesStyle, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
            style,
            point_labels: Vec::new(),
        }
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

/// One axis in drawing coordinates (`log10` of the data on a logarithmic axis), with its own
/// ticks: bold mesh lines and labels at `major`, light mesh lines at `minor`.
#[derive(Clone)]
struct Axis {
    log: bool,
    /// Label ticks as powers of ten (`10⁵`, `2×10⁵`): a logarithmic axis with a tick that
    /// [`format_number`] would not write in plain decimals.
    powers: bool,
    lo: f64,
    hi: f64,
    major: Vec<f64>,
    minor: Vec<f64>,
}

impl Axis {
    /// The axis over the drawing-space values `vals` (non-empty, finite), with `ticks` in data
    /// coordinates when given.
    fn new(log: bool, vals: &[f64], ticks: &[f64]) -> Axis {
        let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (min, max) = if max > min {
            (min, max)
        } else if log {
            (min - 0.5, max + 0.5)
        } else {
            let w = (min.abs() * 0.1).max(1.0);
            (min - w, max + w)
        };
        let pad = 0.05 * (max - min);
        let (lo, hi) = (min - pad, max + pad);
        let inside = |t: &f64| *t >= lo && *t <= hi;
        let given: Vec<f64> = ticks
            .iter()
            .filter_map(|&v| to_drawing(log, v))
            .filter(inside)
            .collect();
        let (major, minor) = if given.len() >= 2 {
            (given, Vec::new())
        } else if log {
            log_ticks(lo, hi)
        } else {
            (linear_ticks(lo, hi), Vec::new())
        };
        let powers = log && major.iter().any(|t| !(-4.0..5.0).contains(&t.floor()));
        Axis {
            log,
            powers,
            lo,
            hi,
            major,
            minor,
        }
    }

    /// The tick label of drawing-space value `t`.
    fn label(&self, t: f64) -> String {
        if self.powers {
            power_of_ten(10f64.powf(t))
        } else if self.log {
            format_number(10f64.powf(t))
        } else {
            format_number(t)
        }
    }
}

impl Ranged for Axis {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        RangedCoordf64::from(self.lo..self.hi).map(value, limit)
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.minor.clone()
        } else {
            self.major.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// Drawing-space coordinate of data value `v`, if it can be placed.
fn to_drawing(log: bool, v: f64) -> Option<f64> {
    if !v.is_finite() {
        None
    } else if log {
        (v > 0.0).then(|| v.log10())
    } else {
        Some(v)
    }
}

/// Major and minor ticks of a logarithmic axis over `[lo, hi]` (in `log10`).
fn log_ticks(lo: f64, hi: f64) -> (Vec<f64>, Vec<f64>) {
    let decades: Vec<i32> = ((lo.floor() as i32)..=(hi.ceil() as i32)).collect();
    let at = |mantissas: &[f64]| -> Vec<f64> {
        decades
            .iter()
            .flat_map(|&k| mantissas.iter().map(move |&m| m.log10() + k as f64))
            .filter(|t| *t >= lo && *t <= hi)
            .collect()
    };
    let all: Vec<f64> = (1..=9).map(f64::from).collect();
    // Decades when there are at least three, else 1-2-5, else every integer mantissa.
    for (major, enough) in [(vec![1.0], 3), (vec![1.0, 2.0, 5.0], 2), (all.clone(), 2)] {
        let ticks = at(&major);
        if ticks.len() >= enough {
            let minor_m: Vec<f64> = all.iter().copied().filter(|m| !major.contains(m)).collect();
            return (ticks, at(&minor_m));
        }
    }
    // Less than one ninth of a decade: fall back to evenly spaced ticks.
    (linear_ticks(lo, hi), Vec::new())
}

/// About five ticks at multiples of 1, 2 or 5 times a power of ten in `[lo, hi]`.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let raw = (hi - lo) / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A short decimal form: plain between 0.0001 and 99999, `2e6`-style outside, trailing zeros
/// dropped, at most four significant digits.
pub fn format_number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let e = v.abs().log10().floor() as i32;
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if (-4..=4).contains(&e) {
        trim(format!("{:.*}", (3 - e).max(0) as usize, v))
    } else {
        let m = v / 10f64.powi(e);
        // Rounding the mantissa can carry into the next power (9.9996e5 -> 10e5).
        let (m, e) = if (m.abs() * 1000.0).round() >= 10_000.0 {
            (m / 10.0, e + 1)
        } else {
            (m, e)
        };
        format!("{}e{e}", trim(format!("{m:.3}")))
    }
}

/// `v` as a power of ten with Unicode superscripts: `10⁵`, `2×10⁻³`, `2.5×10⁶`.
fn power_of_ten(v: f64) -> String {
    if v <= 0.0 || !v.is_finite() {
        return format_number(v);
    }
    let mut e = v.log10().floor() as i32;
    let mut m = (v / 10f64.powi(e) * 1000.0).round() / 1000.0;
    if m >= 10.0 {
        m /= 10.0;
        e += 1;
    }
    let sup: String = e
        .to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            d => ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'][d as usize - '0' as usize],
        })
        .collect();
    if m == 1.0 {
        format!("10{sup}")
    } else {
        format!("{}×10{sup}", format_number(m))
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

/// A series ready to draw: drawing-space points, colour, marker.
struct Drawn<'a> {
    series: &'a Series,
    points: Vec<(f64, f64, Option<&'a str>)>,
    color: RGBColor,
    marker: Marker,
    dash: Option<(u32, u32)>,
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
        let points: Vec<(f64, f64, Option<&str>)> = s
            .points
            .iter()
            .enumerate()
            .filter_map(|(i, &(x, y))| {
                Some((
                    to_drawing(chart.log_x, x)?,
                    to_drawing(chart.log_y, y)?,
                    s.point_labels.get(i).map(String::as_str),
                ))
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
            color,
            marker,
            dash,
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
    let x_axis = Axis::new(chart.log_x, &xs, &chart.x_ticks);
    let y_axis = Axis::new(chart.log_y, &ys, &[]);

    let longest = drawn
        .iter()
        .map(|d| d.series.name.chars().count())
        .max()
        .unwrap_or(0) as u32;
    // About 6.5 pixels per character of 14-pixel sans-serif, after the 48-pixel sample.
    let legend_width = (60 + longest * 13 / 2).clamp(120, 400);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (PLOT_WIDTH + legend_width, HEIGHT))
            .into_drawing_area();
        root.fill(&WHITE)?;
        let (plot_area, legend_area) = root.split_horizontally(PLOT_WIDTH);
        draw_plot(&plot_area, chart, &x_axis, &y_axis, &drawn)?;
        draw_legend(&legend_area, &drawn)?;
        root.present()?;
    }
    Ok(Svg { text, notes })
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw_plot(
    area: &Area<'_>,
    chart: &Chart,
    x_axis: &Axis,
    y_axis: &Axis,
    drawn: &[Drawn<'_>],
) -> Result<()> {
    let mut ctx = ChartBuilder::on(area)
        .caption(&chart.title, (FONT, 18))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
    let x_fmt = |t: &f64| x_axis.label(*t);
    let y_fmt = |t: &f64| y_axis.label(*t);
    ctx.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .bold_line_style(BLACK.mix(0.15))
        .light_line_style(BLACK.mix(0.05))
        .draw()?;
    let label_color = BLACK.mix(0.8);
    let label_style = TextStyle::from((FONT, 12).into_font()).color(&label_color);
    for d in drawn {
        let xy: Vec<(f64, f64)> = d.points.iter().map(|p| (p.0, p.1)).collect();
        match (d.series.style, d.dash) {
            (SeriesStyle::Reference, Some((on, off))) => {
                ctx.draw_series(DashedLineSeries::new(
                    xy.clone(),
                    on,
                    off,
                    d.color.stroke_width(2),
                ))?;
            }
            (SeriesStyle::Measured, _) => {
                ctx.draw_series(LineSeries::new(xy.clone(), d.color.stroke_width(2)))?;
            }
            _ => {}
        }
        if d.series.style != SeriesStyle::Reference {
            let style = d.color.filled();
            match d.marker {
                Marker::Circle => {
                    ctx.draw_series(xy.iter().map(|&p| Circle::new(p, 4, style)))?;
                }
                Marker::Triangle => {
                    ctx.draw_series(xy.iter().map(|&p| TriangleMarker::new(p, 5, style)))?;
                }
                Marker::Square => {
                    ctx.draw_series(xy.iter().map(|&p| {
                        EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], style)
                    }))?;
                }
                Marker::Cross => {
                    ctx.draw_series(
                        xy.iter()
                            .map(|&p| Cross::new(p, 4, d.color.stroke_width(2))),
                    )?;
                }
            }
        }
        ctx.draw_series(d.points.iter().filter_map(|&(x, y, label)| {
            let label = label.filter(|l| !l.is_empty())?;
            Some(
                EmptyElement::at((x, y))
                    + Text::new(label.to_string(), (7, -16), label_style.clone()),
            )
        }))?;
    }
    Ok(())
}

fn draw_legend(area: &Area<'_>, drawn: &[Drawn<'_>]) -> Result<()> {
    let text_style =
        TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    // Aligned with the top of the plotting area (caption and margin above it).
    let top = 56;
    for (i, d) in drawn.iter().enumerate() {
        let y = top + 24 * i as i32;
        let (x0, x1) = (8, 40);
        match d.dash {
            Some((on, off)) => area.draw(&DashedPathElement::new(
                vec![(x0, y), (x1, y)],
                on,
                off,
                d.color.stroke_width(2),
            ))?,
            None if d.series.style == SeriesStyle::Measured => {
                area.draw(&PathElement::new(
                    vec![(x0, y), (x1, y)],
                    d.color.stroke_width(2),
                ))?;
            }
            None => {}
        }
        if d.series.style != SeriesStyle::Reference {
            let c = (24, y);
            let style = d.color.filled();
            match d.marker {
                Marker::Circle => area.draw(&Circle::new(c, 4, style))?,
                Marker::Triangle => area.draw(&TriangleMarker::new(c, 5, style))?,
                Marker::Square => area.draw(&Rectangle::new([(20, y - 4), (28, y + 4)], style))?,
                Marker::Cross => area.draw(&Cross::new(c, 4, d.color.stroke_width(2)))?,
            }
        }
        area.draw(&Text::new(d.series.name.clone(), (48, y), &text_style))?;
    }
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
                    .map(|r| format!("dt = {}", format_number(r.dt.unwrap_or(0.0))))
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
mod tests {
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
        // One point, or all points equal, still gives an axis.
        for pts in [vec![(3.0, 3.0)], vec![(3.0, 3.0), (3.0, 3.0)]] {
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

    #[test]
    fn ticks() {
        assert_eq!(format_number(1000.0), "1000");
        assert_eq!(format_number(10f64.powf(3.0)), "1000");
        assert_eq!(format_number(1e6), "1e6");
        assert_eq!(format_number(2.5e-5), "2.5e-5");
        assert_eq!(format_number(1e-4), "0.0001");
        assert_eq!(format_number(0.001), "0.001");
        assert_eq!(format_number(0.0125), "0.0125");
        assert_eq!(format_number(999_999.0), "1e6");
        assert_eq!(format_number(-20.0), "-20");
        let (major, minor) = log_ticks(0.9, 3.1);
        assert_eq!(major, vec![1.0, 2.0, 3.0]);
        assert_eq!(minor.len(), 18); // 8 and 9, then 2..9 in two decades
        assert_eq!(power_of_ten(1e5), "10⁵");
        assert_eq!(power_of_ten(10f64.powf(6.0)), "10⁶");
        assert_eq!(power_of_ten(2e-3), "2×10⁻³");
        assert_eq!(power_of_ten(9.9999e4), "10⁵");
        assert_eq!(power_of_ten(2.5e12), "2.5×10¹²");
        let (major, _) = log_ticks(0.2, 2.4); // two decades are too few labels
        let want = [2.0f64, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0];
        assert_eq!(major, want.map(f64::log10));
        let (major, _) = log_ticks(0.1, 0.9);
        assert_eq!(major.len(), 2); // 2 and 5
        assert_eq!(linear_ticks(0.0, 10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
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
}
