//! `kairos view`: a trace as one self-contained HTML page that replays it (thesis chapter 5:
//! the simulator writes a file, a separate viewer replays it, changes the speed of time and
//! draws the broad phase's AABBs).
//!
//! The page is `assets/viewer.html` with `assets/viewer.css` and the script (`viewer-core.js`,
//! then the renderer `viewer-2d.js`) inlined and
//! the trace embedded as one JSON object whose arrays are base64 little-endian numbers: event
//! times as `f64` (exact order and time), look-aheads, positions and velocities as `f32` (far
//! below a pixel; positions in a periodic box are wrapped into it first, so they stay small),
//! ids as `u32`. The page rebuilds every body's position at any time as the CLI does: a straight
//! line from its last event. Traces above the budget (`--max-bodies`, `--max-events`) are
//! thinned, and the page says how.
//!
//! A 2D rigid trace (version 3) adds each shown body's outline in its body frame (the support
//! outline of [`picture::body_outlines_2d`], `f32`) and its angle and angular velocity at the
//! start and at each of its events (`f64`, the angle reduced to `[0, 2π)`): the page turns the
//! outline by `angle + ω (t - t_event)`, the simulation's own motion in 2D.
//!
//! A 3D rigid trace adds each shown body's points in its body frame ([`picture::body_points_3d`]:
//! a polytope's vertices, or a round shape's support points in directions spread over the
//! sphere; `f32`), its rotation (the quaternion) and angular velocity at the start and at each
//! of its events (`f32`), and which bodies tumble (anisotropic inertia). The page draws the
//! convex hull of the points turned by the body's rotation at `t` and projected on the shown
//! axes. A body of isotropic inertia turns at its constant angular velocity from its last
//! event, as the simulation does; for a tumbling one the page gets its rotation computed by the
//! simulation's own torque-free motion ([`Replay::orientation`]) at the times of a grid over
//! the replay (fine enough that a body turns by at most [`SAMPLE_TURN`] between two samples,
//! within [`MAX_SAMPLES`] numbers), and it interpolates between the nearest known rotations
//! (samples and the body's own events) by slerp.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use kairos::event::EventKind;
use kairos::scene::Scene;
use kairos::trace::Record;
use kairos::trace::Replay;
use serde_json::{json, Value};

use crate::commands::inspect::{next, open_with_scene};
use crate::output::write_text;
use crate::render::picture::{self, Axes, Bounds, Shape};
use crate::show;

/// Default largest number of bodies drawn.
pub const MAX_BODIES: usize = 10_000;
/// Default largest number of events embedded in a 2D page (about 7 MB of page).
pub const MAX_EVENTS: usize = 100_000;
/// The same for a 3D page, which also carries three.js (0.58 MB): about 9 MB of page at most.
pub const MAX_EVENTS_3D: usize = 90_000;

const TEMPLATE: &str = include_str!("../../assets/viewer.html");
const STYLE: &str = include_str!("../../assets/viewer.css");
/// The page's script for a 2D trace: the shared core (data, state at the cursor, rotations,
/// the kaya-bvh search), the projection's renderer, then the page around it (text, controls),
/// in one function scope that the core opens and the last file closes.
const SCRIPT: &str = concat!(
    include_str!("../../assets/viewer-core.js"),
    include_str!("../../assets/viewer-2d.js"),
    include_str!("../../assets/viewer-ui.js")
);
/// The page's script for a 3D trace: as [`SCRIPT`], with the 3D renderer beside the
/// projection.
const SCRIPT_3D: &str = concat!(
    include_str!("../../assets/viewer-core.js"),
    include_str!("../../assets/viewer-2d.js"),
    include_str!("../../assets/viewer-3d.js"),
    include_str!("../../assets/viewer-ui.js")
);
/// The part of three.js the 3D renderer uses (MIT licence: `assets/three.LICENSE`), built by
/// `tools/viewer3d` from pinned npm packages; in its own script element before the page's, on
/// 3D pages only.
const THREE_JS: &str = include_str!("../../assets/three.min.js");

/// The largest turn (radians) a tumbling 3D body should make between two of the page's
/// orientation samples (bounded by twice the largest angular speed recorded).
pub const SAMPLE_TURN: f64 = 0.05;
/// Most orientation samples (one quaternion of one tumbling body at one time) in a page
/// (about 5 MB of page at most).
pub const MAX_SAMPLES: usize = 250_000;

/// Arguments of `kairos view`.
#[derive(Args)]
pub struct ViewArgs {
    /// Trace to replay.
    pub trace: PathBuf,
    /// HTML page to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Open the page in the system's browser when there is one (else say where it is).
    #[arg(long)]
    pub open: bool,
    /// The two axes of a 3D trace's projection (`xy`, `xz`, `yz`, ...); the 3D view starts
    /// looking along the third, these two to the right and up.
    #[arg(long, default_value = "xy")]
    pub axes: Axes,
    /// Open a 3D trace's page on its projection on `--axes` rather than the 3D view (the
    /// page switches between the two; it shows the projection where the browser has no WebGL).
    #[arg(long)]
    pub projection: bool,
    /// Most bodies drawn; above it every k-th body is kept (and the page says so).
    #[arg(long, default_value_t = MAX_BODIES)]
    pub max_bodies: usize,
    /// Most events embedded; above it the replay stops at the last event that fits (and the
    /// page says so) [default: 100000, or 90000 for a 3D trace]
    #[arg(long)]
    pub max_events: Option<usize>,
}

pub fn view(a: ViewArgs) -> Result<ExitCode> {
    anyhow::ensure!(a.max_bodies >= 1, "--max-bodies must be at least 1");
    anyhow::ensure!(
        a.max_events.is_none_or(|m| m >= 1),
        "--max-events must be at least 1"
    );
    let (mut reader, scene) = open_with_scene(&a.trace)?;
    crate::output::Files::new()
        .input("trace", &a.trace)
        .mesh_inputs(&scene)
        .output("--output", Some(&a.output))
        .check()?;
    a.axes.check(scene.dim)?;
    let max_events = a.max_events.unwrap_or(if scene.dim == 3 {
        MAX_EVENTS_3D
    } else {
        MAX_EVENTS
    });
    let end_time = reader.end_time();
    let total_events = reader.len();
    let broad_phase = reader.header().broad_phase.clone();

    let n = scene.bodies.len();
    let stride = if n > a.max_bodies {
        n.div_ceil(a.max_bodies)
    } else {
        1
    };
    let kept = |id: u32| id as usize % stride == 0;

    // Every record is read and checked (ids, and the footer's hash at the end) even past the
    // cut, so a damaged trace never becomes a page.
    let start = Replay::new(reader.header());
    let mut events: Vec<Record> = Vec::new();
    let mut cut_at: Option<f64> = None;
    while let Some(r) = next(&mut reader, &a.trace)? {
        if cut_at.is_some() {
            continue;
        }
        let shows_b = r.kind == EventKind::BodyBody && kept(r.b);
        if !kept(r.a) && !shows_b {
            continue;
        }
        if events.len() == max_events {
            // Every event shown happens before the replay's end.
            while events.last().is_some_and(|e| e.time >= r.time) {
                events.pop();
            }
            cut_at = Some(r.time);
            continue;
        }
        events.push(r);
    }
    let shown_end = cut_at.unwrap_or(end_time);

    let data = page_data(&PageInput {
        scene: &scene,
        start: &start,
        axes: a.axes,
        title: &display_name(&a.trace),
        broad_phase: &broad_phase,
        end_time,
        shown_end,
        total_events,
        stride,
        events: &events,
        projection: a.projection,
    });
    let notices = data["notices"].as_array().cloned().unwrap_or_default();
    let page = render(&data, &display_name(&a.trace));
    write_text(&a.output, &page)?;
    let size = match page.len() {
        b if b < 1_000_000 => format!("{:.0} kB", b as f64 / 1e3),
        b => format!("{:.1} MB", b as f64 / 1e6),
    };
    outln!(
        "wrote {} ({size}: {} of {} bodies, {} of {} events)",
        show(&a.output),
        n.div_ceil(stride),
        n,
        events.len(),
        total_events
    );
    for note in notices {
        if let Some(s) = note.as_str() {
            outln!("note: {s}");
        }
    }
    if a.open {
        open_in_browser(&a.output);
    }
    Ok(ExitCode::SUCCESS)
}

fn display_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| show(p))
}

/// Little-endian numbers, base64-encoded for the page.
#[derive(Default)]
struct Packed(Vec<u8>);

impl Packed {
    fn f64(&mut self, x: f64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn f32(&mut self, x: f64) {
        self.0.extend_from_slice(&(x as f32).to_le_bytes());
    }
    fn u32(&mut self, x: u32) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn u8(&mut self, x: u8) {
        self.0.push(x);
    }
    fn base64(&self) -> String {
        base64(&self.0)
    }
}

/// Standard base64 with padding (what the page's `atob` reads).
fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// What the page is made from.
struct PageInput<'a> {
    scene: &'a Scene,
    /// Every body's state at the trace's start.
    start: &'a Replay,
    axes: Axes,
    title: &'a str,
    broad_phase: &'a str,
    /// The trace's end time.
    end_time: f64,
    /// The end of the replay (earlier when events were cut).
    shown_end: f64,
    total_events: u64,
    /// Every `stride`-th body is shown.
    stride: usize,
    /// The events shown: those of shown bodies before `shown_end`.
    events: &'a [Record],
    /// The page opens on the projection (`--projection`).
    projection: bool,
}

/// Event codes in the page: the kind in the low bits, then which bodies are shown.
const SHOWS_A: u8 = 4;
const SHOWS_B: u8 = 8;
/// An event code's flag: body `a` sleeps after the event (gravity).
const SLEEPS_A: u8 = 16;
/// An event code's flag: body `b` sleeps after the event (gravity).
const SLEEPS_B: u8 = 32;

fn page_data(p: &PageInput) -> Value {
    let scene = p.scene;
    let d = scene.dim;
    let n = scene.bodies.len();
    let stride = p.stride;
    let shown_ids: Vec<usize> = (0..n).step_by(stride).collect();
    let kept = |id: u32| id as usize % stride == 0;
    let (walls, hidden_walls) = picture::walls(scene, p.axes);
    let period = picture::period(scene, p.axes);
    let wrapped = |pos: &[f64; 3]| -> [f64; 3] {
        let mut q = *pos;
        if let Some(l) = &scene.periodic {
            for (x, l) in q.iter_mut().zip(l) {
                *x = picture::wrap(*x, *l);
            }
        }
        q
    };

    let mut bounds = Bounds::default();
    bounds.add_scene(&walls, period);
    let mut state0 = Packed::default();
    let mut radius = Packed::default();
    let mut mass = Packed::default();
    // 2D rigid bodies: outlines in the body frame, and angles and angular velocities.
    let outlines = picture::body_outlines_2d(scene);
    let turning = !outlines.is_empty() && p.start.is_rigid();
    let (mut outline_start, mut outline_points) = (Packed::default(), Packed::default());
    let mut spin0 = Packed::default();
    let mut spin = Packed::default();
    let mut points = 0u32;
    let angle = |q: [f64; 4]| q[0].rem_euclid(std::f64::consts::TAU);
    // 3D rigid bodies: points in the body frame, rotations and angular velocities, and which
    // bodies tumble.
    let points3 = picture::body_points_3d(scene);
    let turning3 = !points3.is_empty() && p.start.is_rigid();
    let mut tumbling = Packed::default();
    let mut tumblers: Vec<usize> = Vec::new();
    // Mesh bodies' edges: per shown body the start of its edges, then index pairs into its
    // points.
    let any_edges = points3.iter().flatten().any(|b| !b.edges.is_empty());
    let (mut edge_start, mut edges, mut edge_count) = (Packed::default(), Packed::default(), 0u32);
    // And their triangles, for the 3D view: per shown body the start, then index triples.
    let (mut tri_start, mut tris, mut tri_count) = (Packed::default(), Packed::default(), 0u32);
    let mut shown = p.start.clone();
    let t0 = p.start.start_time();
    // Under gravity, which bodies sleep at the start (a resumed run's trace may start with
    // some asleep).
    let mut asleep0 = Packed::default();
    let any_asleep = shown_ids.iter().any(|&i| p.start.is_asleep(i));
    for &i in &shown_ids {
        let b = &scene.bodies[i];
        let pos = wrapped(&p.start.position(i, t0));
        pos[..d].iter().for_each(|&x| state0.f32(x));
        // The velocity at the start (under gravity, a resumed trace's states are older).
        p.start.velocity_at(i, t0)[..d]
            .iter()
            .for_each(|&x| state0.f32(x));
        if any_asleep {
            asleep0.u8(p.start.is_asleep(i) as u8);
        }
        radius.f32(b.radius);
        mass.f32(b.mass);
        if period.is_none() {
            bounds.add(p.axes.project(&pos), b.radius);
        }
        if turning {
            outline_start.u32(points);
            for q in outlines[i].iter().flatten() {
                outline_points.f32(q[0]);
                outline_points.f32(q[1]);
                points += 1;
            }
            let (q, w) = p.start.orientation(i, t0);
            spin0.f64(angle(q));
            spin0.f64(w[0]);
        }
        if turning3 {
            outline_start.u32(points);
            let tumbles = match &points3[i] {
                Some(body) => {
                    for q in &body.points {
                        q.iter().for_each(|&x| outline_points.f32(x));
                        points += 1;
                    }
                    body.tumbling
                }
                None => false,
            };
            if any_edges {
                edge_start.u32(edge_count);
                for e in points3[i].iter().flat_map(|b| &b.edges) {
                    edges.u32(e[0]);
                    edges.u32(e[1]);
                    edge_count += 1;
                }
                tri_start.u32(tri_count);
                for t in points3[i].iter().flat_map(|b| &b.triangles) {
                    t.iter().for_each(|&k| tris.u32(k));
                    tri_count += 1;
                }
            }
            tumbling.u8(tumbles as u8);
            if tumbles {
                tumblers.push(i);
            }
            let (q, w) = p.start.orientation(i, t0);
            q.iter().chain(&w).for_each(|&x| spin0.f32(x));
        }
    }
    if turning || turning3 {
        outline_start.u32(points);
    }
    if any_edges {
        edge_start.u32(edge_count);
        tri_start.u32(tri_count);
    }
    // The times at which the tumbling bodies' rotations are sampled: a grid over the replay.
    let sample_times = sample_grid(p, &tumblers, t0);
    let wanted_samples = sample_grid_size(p, &tumblers, t0);
    let mut samples = Packed::default();
    let mut sampled = 0;
    let sample = |k: usize, shown: &Replay, samples: &mut Packed| {
        for &i in &tumblers {
            let (q, _) = shown.orientation(i, sample_times[k]);
            q.iter().for_each(|&x| samples.f32(x));
        }
    };

    let mut time = Packed::default();
    let mut dt = Packed::default();
    let mut code = Packed::default();
    let (mut ea, mut eb) = (Packed::default(), Packed::default());
    let mut state = Packed::default();
    let mut has_dt = false;
    for r in p.events {
        // Every sample before this event, from the states before it.
        while sampled < sample_times.len() && sample_times[sampled] < r.time {
            sample(sampled, &shown, &mut samples);
            sampled += 1;
        }
        shown.apply(r);
        time.f64(r.time);
        dt.f32(r.dt);
        has_dt |= r.dt != 0.0;
        let mut c = r.kind.code() as u8;
        let mut update = |pos: &[f64; 3], vel: &[f64; 3], id: u32| {
            let pos = wrapped(pos);
            pos[..d].iter().for_each(|&x| state.f32(x));
            vel[..d].iter().for_each(|&x| state.f32(x));
            if period.is_none() {
                bounds.add(p.axes.project(&pos), scene.bodies[id as usize].radius);
            }
        };
        if r.sleep & Record::A_ASLEEP != 0 {
            c |= SLEEPS_A;
        }
        if r.sleep & Record::B_ASLEEP != 0 {
            c |= SLEEPS_B;
        }
        if kept(r.a) {
            c |= SHOWS_A;
            update(&r.pos_a, &r.vel_a, r.a);
            if turning {
                spin.f64(angle(r.rot_a));
                spin.f64(r.omega_a[0]);
            }
            if turning3 {
                r.rot_a.iter().chain(&r.omega_a).for_each(|&x| spin.f32(x));
            }
        }
        if r.kind == EventKind::BodyBody && kept(r.b) {
            c |= SHOWS_B;
            update(&r.pos_b, &r.vel_b, r.b);
            if turning {
                spin.f64(angle(r.rot_b));
                spin.f64(r.omega_b[0]);
            }
            if turning3 {
                r.rot_b.iter().chain(&r.omega_b).for_each(|&x| spin.f32(x));
            }
        }
        code.u8(c);
        ea.u32(r.a);
        eb.u32(r.b);
    }
    while sampled < sample_times.len() {
        sample(sampled, &shown, &mut samples);
        sampled += 1;
    }
    if period.is_none() {
        for &i in &shown_ids {
            bounds.add(
                p.axes.project(&shown.position(i, p.shown_end)),
                scene.bodies[i].radius,
            );
        }
    }
    let bounds = bounds.finished();
    let mut sample_time = Packed::default();
    sample_times.iter().for_each(|&x| sample_time.f64(x));

    let mut notices = Vec::new();
    if p.total_events == 0 {
        notices.push("This trace holds no events: nothing to show.".to_string());
    }
    if stride > 1 {
        notices.push(format!(
            "Thinned to fit a page: every {} body is shown ({} of {n} bodies); the others and \
             their collisions are not drawn, and the whole hierarchy is not rebuilt.",
            ordinal(stride),
            shown_ids.len()
        ));
    }
    if p.shown_end < p.end_time {
        notices.push(format!(
            "Thinned to fit a page: the replay stops at t = {} of {} ({} of the trace's {} \
             events are shown).",
            p.shown_end,
            p.end_time,
            p.events.len(),
            p.total_events
        ));
    }
    let grid = sample_times.len().saturating_sub(1);
    if grid < wanted_samples {
        notices.push(format!(
            "Thinned to fit a page: the {} tumbling bodies' rotations are known at {} times \
             and interpolated between them (and their events), coarser than the {} rad \
             apart that keeps the interpolation close to their motion.",
            tumblers.len(),
            grid + 1,
            SAMPLE_TURN
        ));
    }
    if stride > 1 || p.shown_end < p.end_time {
        notices.push(
            "Raise --max-bodies or --max-events to show more, or use kairos snapshot or \
             kairos frames for the whole trace."
                .to_string(),
        );
    }

    let walls_json: Vec<Value> = walls
        .iter()
        .map(|w| match &w.shape {
            Shape::Segment(a, b) => json!({"id": w.id, "type": "segment", "a": a, "b": b}),
            Shape::Line { point, dir } => {
                json!({"id": w.id, "type": "line", "point": point, "dir": dir})
            }
            Shape::Polygon(vs) => json!({"id": w.id, "type": "polygon", "points": vs}),
        })
        .collect();

    json!({
        "format": 1,
        "title": p.title,
        "broadPhase": p.broad_phase,
        "dim": d,
        "axes": [p.axes.h, p.axes.v],
        "axisNames": p.axes.names(),
        "startTime": p.start.start_time(),
        "endTime": p.shown_end,
        "traceEndTime": p.end_time,
        "periodic": period,
        "periodFull": scene.periodic,
        "gravity": if scene.has_gravity() { Value::from(scene.gravity[..d].to_vec()) } else { Value::Null },
        "walls": walls_json,
        "walls3": walls3_json(scene),
        "projection": p.projection,
        "hiddenWalls": hidden_walls,
        "bounds": [bounds.min[0], bounds.min[1], bounds.max[0], bounds.max[1]],
        "empty": p.total_events == 0,
        "notices": notices,
        "bodies": {
            "count": shown_ids.len(),
            "total": n,
            "stride": stride,
            "radius": radius.base64(),
            "mass": mass.base64(),
            "state": state0.base64(),
            "outlineStart": if turning || turning3 { Value::from(outline_start.base64()) } else { Value::Null },
            "outline": if turning || turning3 { Value::from(outline_points.base64()) } else { Value::Null },
            "spin": if turning || turning3 { Value::from(spin0.base64()) } else { Value::Null },
            "tumbling": if turning3 { Value::from(tumbling.base64()) } else { Value::Null },
            "edgeStart": if turning3 && any_edges { Value::from(edge_start.base64()) } else { Value::Null },
            "edges": if turning3 && any_edges { Value::from(edges.base64()) } else { Value::Null },
            "triangleStart": if turning3 && any_edges { Value::from(tri_start.base64()) } else { Value::Null },
            "triangles": if turning3 && any_edges { Value::from(tris.base64()) } else { Value::Null },
            "asleep": if any_asleep { Value::from(asleep0.base64()) } else { Value::Null },
        },
        "samples": if tumblers.is_empty() {
            Value::Null
        } else {
            json!({
                "count": tumblers.len(),
                "time": sample_time.base64(),
                "rotation": samples.base64(),
            })
        },
        "events": {
            "count": p.events.len(),
            "total": p.total_events,
            "time": time.base64(),
            "dt": if has_dt { Value::from(dt.base64()) } else { Value::Null },
            "code": code.base64(),
            "a": ea.base64(),
            "b": eb.base64(),
            "state": state.base64(),
            "spin": if turning || turning3 { Value::from(spin.base64()) } else { Value::Null },
        },
    })
}

/// A 3D scene's walls for the 3D view, by id (none for a 2D scene): planes (point and
/// outward normal), polygons (vertices) and static shapes (points of their hull).
fn walls3_json(scene: &Scene) -> Value {
    use picture::Wall3;
    let walls: Vec<Value> = picture::walls_3d(scene)
        .into_iter()
        .enumerate()
        .map(|(id, w)| match w {
            Wall3::Plane { point, normal } => {
                json!({"id": id, "type": "plane", "point": point, "normal": normal})
            }
            Wall3::Polygon(points) => json!({"id": id, "type": "polygon", "points": points}),
            Wall3::Hull(points) => json!({"id": id, "type": "hull", "points": points}),
        })
        .collect();
    Value::from(walls)
}

/// How many intervals the sample grid of the tumbling bodies would need for a turn of at most
/// [`SAMPLE_TURN`] per interval: the replay's span times twice the largest angular speed
/// recorded for them (the torque-free motion's speed varies, by less than that) over the turn.
fn sample_grid_size(p: &PageInput, tumblers: &[usize], t0: f64) -> usize {
    if tumblers.is_empty() {
        return 0;
    }
    let norm = |w: &[f64; 3]| w.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut rate = tumblers
        .iter()
        .map(|&i| norm(&p.start.orientation(i, t0).1))
        .fold(0.0, f64::max);
    for r in p.events {
        rate = rate.max(norm(&r.omega_a));
        if r.kind == EventKind::BodyBody {
            rate = rate.max(norm(&r.omega_b));
        }
    }
    let want = ((p.shown_end - t0) * 2.0 * rate / SAMPLE_TURN).ceil();
    if want.is_finite() && want >= 1.0 {
        want.min(1e9) as usize
    } else {
        1
    }
}

/// The sample times of the tumbling bodies' rotations: `k + 1` evenly spaced times from the
/// replay's start to its end, `k` the grid's size within [`MAX_SAMPLES`]; none without
/// tumbling bodies.
fn sample_grid(p: &PageInput, tumblers: &[usize], t0: f64) -> Vec<f64> {
    if tumblers.is_empty() {
        return Vec::new();
    }
    let most = (MAX_SAMPLES / tumblers.len()).saturating_sub(1).max(1);
    let k = sample_grid_size(p, tumblers, t0).clamp(1, most);
    let span = p.shown_end - t0;
    (0..=k)
        .map(|j| {
            if j == k {
                p.shown_end
            } else {
                t0 + span * (j as f64 / k as f64)
            }
        })
        .collect()
}

/// `1st`, `2nd`, `3rd`, `4th`, ..., `11th`, ..., `21st`, ...
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page: the template with the style, the script and the data put in.
fn render(data: &Value, title: &str) -> String {
    // `<` only occurs inside JSON strings, where `\u003c` means the same: the data can never
    // close its script element.
    let json = data.to_string().replace('<', "\\u003c");
    let three = data["dim"] == 3;
    let (script, lib) = if three {
        (SCRIPT_3D, THREE_JS)
    } else {
        (SCRIPT, "")
    };
    let mut page = String::with_capacity(
        TEMPLATE.len() + STYLE.len() + script.len() + lib.len() + 20 + json.len(),
    );
    for (k, part) in TEMPLATE.split("@@").enumerate() {
        if k % 2 == 0 {
            page.push_str(part);
            continue;
        }
        match part {
            "STYLE" => page.push_str(STYLE),
            "SCRIPT" => page.push_str(script),
            "THREE" if three => {
                page.push_str("<script>\n");
                page.push_str(THREE_JS);
                page.push_str("\n</script>");
            }
            "THREE" => {}
            "DATA" => page.push_str(&json),
            "TITLE" => page.push_str(&escape_html(title)),
            other => unreachable!("unknown slot @@{other}@@ in viewer.html"),
        }
    }
    page
}

/// Opens `path` in the system's browser when there is one; otherwise says where the page is.
/// Never fails: a missing browser is not an error of the command.
///
/// `opener` runs `$BROWSER` when it is set (the page's path as its one argument), else the
/// platform's opener. Without `$BROWSER` on a machine with no display (a server, a test) there
/// is no browser to start, and the freedesktop opener would fall back to a text browser in the
/// background: it is not run.
fn open_in_browser(path: &Path) {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let no_display = !cfg!(any(target_os = "macos", windows))
        && ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .all(|v| std::env::var_os(v).is_none());
    let result = if std::env::var_os("BROWSER").is_none() && no_display {
        Err("no browser found (no $BROWSER and no display)".to_string())
    } else {
        opener::open_browser(&abs).map_err(|e| format!("no browser could be started ({e})"))
    };
    match result {
        Ok(()) => outln!("opened {} in the browser", abs.display()),
        Err(why) => outln!("{why}: open {} in a browser", abs.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xff, 0xfe, 0x00, 0x01]), "//4AAQ==");
    }

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 102, 111]
            .map(ordinal)
            .into();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "102nd",
                "111th"
            ]
        );
    }

    #[test]
    fn template_slots_are_known() {
        let slots: Vec<&str> = TEMPLATE.split("@@").skip(1).step_by(2).collect();
        assert_eq!(slots, ["TITLE", "STYLE", "DATA", "THREE", "SCRIPT"]);
        for part in [STYLE, SCRIPT, SCRIPT_3D, THREE_JS] {
            assert!(!part.contains("@@") && !part.contains("</script"));
        }
    }
}
