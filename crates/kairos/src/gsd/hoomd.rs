//! Frames of the HOOMD schema (version 1.4): what HOOMD-blue, freud, OVITO and MDAnalysis
//! read from a GSD file, written from a scene and the states of its bodies.
//!
//! # Chunks
//!
//! | chunk | type, size | frames | value |
//! |---|---|---|---|
//! | `configuration/step` | uint64, 1 | every | the caller's step (`kairos frames`: the frame's number `k`, at time `k DT`) |
//! | `configuration/dimensions` | uint8, 1 | 0 | 2 or 3 |
//! | `configuration/box` | float, 6 | 0, and any whose box differs | `[Lx, Ly, Lz, 0, 0, 0]`, `Lz = 0` in 2D |
//! | `particles/N` | uint32, 1 | 0 | number of bodies |
//! | `particles/types` | int8, NT × M | 0 | type names (`ball`, `box`, `box_1`, `polygon`, `mesh`, ...) |
//! | `particles/type_shapes` | int8, NT × M | 0 | one JSON shape per type (below) |
//! | `particles/typeid` | uint32, N | 0 | each body's type |
//! | `particles/diameter` | float, N | 0 | a ball's diameter; a rigid body's bounding diameter |
//! | `particles/mass` | float, N | 0 | mass |
//! | `particles/moment_inertia` | float, N × 3 | 0 (rigid bodies only) | principal moments of inertia (`[0, 0, I]` in 2D) |
//! | `particles/position` | float, N × 3 | every | centre of mass (in a periodic box, wrapped into it) |
//! | `particles/image` | int32, N × 3 | every (periodic box only) | periodic images crossed |
//! | `particles/velocity` | float, N × 3 | every | velocity of the centre of mass |
//! | `particles/orientation` | float, N × 4 | every (rigid bodies only) | unit quaternion `(w, x, y, z)` of the principal frame |
//! | `particles/angmom` | float, N × 4 | every (rigid bodies only) | angular momentum quaternion (below) |
//! | `log/kairos/time` | double, 1 | every | the frame's simulated time |
//!
//! Time-independent chunks are written in frame 0 only: the schema defines a chunk missing
//! from a frame as frame 0's (HOOMD's own writer and the `gsd` package's reader do the same).
//! Numbers the schema stores as `float` are converted from `f64`; one beyond the range of
//! `f32` is an error (never an infinity in the file).
//!
//! # Box
//!
//! HOOMD's box is centred on the origin, `[-L/2, L/2)` along each axis. A periodic scene's box
//! `[0, L)` tiles space exactly as that box does, so positions are wrapped into it without
//! moving the origin: a body at unwrapped `x` is written at `x - i L` with image `i`, and `x =
//! position + image L` gives back Kairos's unwrapped position. A scene without a periodic box
//! has no box of its own: each frame's box is the smallest one centred on the origin that
//! encloses the walls (every wall but planes, which have no extent) and every body's bounding
//! ball at that frame, grown by a relative `1e-6`, so positions are Kairos's own coordinates.
//! It is the same box in every frame while the walls hold the bodies (it is then written in
//! frame 0 only), and it grows with bodies that fly away from open scenes.
//!
//! # Types and shapes
//!
//! Bodies of identical shapes share a type; each distinct shape is a type of its own, named
//! after its kind (`ball`, then `ball_1`, `ball_2` for other diameters). The shapes
//! (`particles/type_shapes`, GSD's shape visualisation specification) are:
//!
//! * a ball (2D or 3D): `Sphere` of its diameter;
//! * 2D: a `Polygon` of a box's corners, a convex polygon's or triangle's vertices
//!   (counter-clockwise), the outline of a concave polygon (a simple polygon; the hull of its
//!   pieces if they do not make one loop), a segment's ends, or a capsule's ends with its
//!   radius as `rounding_radius`;
//! * 3D: a `ConvexPolyhedron` of a box's corners, a polyhedron's, triangle's or segment's
//!   vertices, a capsule's ends with its radius as `rounding_radius`, a cylinder as the prism
//!   and a cone as the pyramid of the 32-gon inscribed in its rim; a mesh body is a `Mesh` of
//!   its vertices and triangles (`indices`, as the mesh gives them).
//!
//! Vertices are in the body's principal frame, centred on its centre of mass. Balls of a
//! scene with more than [`MAX_BALL_TYPES`] diameters share one type, `ball`, whose `Sphere` is
//! the largest; `particles/diameter` gives each its own.
//!
//! # Rotations
//!
//! HOOMD keeps the inertia tensor diagonal in each particle's frame. A 3D body whose inertia
//! tensor is not diagonal in its own axes (to a relative `1e-12`) is written in its principal
//! axes: `particles/moment_inertia` holds its principal moments, its shape's vertices are in
//! that frame, and its orientation is its rotation composed with the rotation `p` from the
//! principal frame to its own axes (`q p`), so that the world positions of its vertices are
//! unchanged. Other bodies (every 2D body, boxes, balls, most symmetric shapes) keep their
//! axes and the trace's quaternion as it is. In 2D the orientation is the rotation by the
//! body's angle about z, `(cos θ/2, 0, 0, sin θ/2)`.
//!
//! `particles/angmom` is the quaternion `P = 2 q ⊗ (0, S)` of HOOMD's integrators (Kamberaj
//! 2005), with `q` the orientation written and `S` the body's angular momentum in that frame:
//! `S = I (qᶜ ω q)`, the principal moments `I` times the world angular velocity `ω` turned into
//! the principal frame (in 2D, `S = (0, 0, I ω)`).

use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

use glam::{DQuat, DVec3};

use super::shapes::{self, sphere, TypeShape};
use super::{GsdError, GsdWriter};
use crate::atomic::AtomicWriter;
use crate::scene::{Scene, SceneError};
use crate::trace::Replay;

/// The schema's name in the file header.
pub const SCHEMA: &str = "hoomd";
/// The schema version written.
pub const SCHEMA_VERSION: (u16, u16) = (1, 4);
/// The chunk of each frame's simulated time.
pub const TIME_CHUNK: &str = "log/kairos/time";
/// Beyond this many distinct ball diameters, every ball has the one type `ball`.
pub const MAX_BALL_TYPES: usize = 64;

/// The application name written in the header: `kairos` and the library's version.
#[must_use]
pub fn application() -> String {
    format!("kairos {}", env!("CARGO_PKG_VERSION"))
}

/// A rigid body's principal moments of inertia and the rotation `[w, x, y, z]` from its
/// principal frame (the frame of its type's shape) to its own body frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Principal {
    /// `(Ixx, Iyy, Izz)` in the principal frame (`(0, 0, I)` in 2D).
    pub moments: [f64; 3],
    /// Rotation from the principal frame to the body frame (the identity for most bodies).
    pub rotation: [f64; 4],
}

/// The time-independent description of a scene's bodies as HOOMD particles.
#[derive(Clone, Debug, PartialEq)]
pub struct Particles {
    /// 2 or 3.
    pub dim: usize,
    /// Type names.
    pub types: Vec<String>,
    /// One JSON shape per type.
    pub type_shapes: Vec<String>,
    /// Each body's type.
    pub typeid: Vec<u32>,
    /// Each body's diameter (a rigid body's bounding diameter).
    pub diameter: Vec<f64>,
    /// Each body's mass.
    pub mass: Vec<f64>,
    /// Rigid bodies' principal frames, by body; `None` for a scene of balls.
    pub rigid: Option<Vec<Principal>>,
    /// The periodic box lengths (zero beyond the dimension), if any.
    pub periodic: Option<[f64; 3]>,
    /// Half extents about the origin of the walls (see the [module docs](self)).
    pub wall_extent: [f64; 3],
}

/// Groups `shapes` into types: identical JSON shares a type, named after its kind.
fn types_of(shapes: &[TypeShape]) -> (Vec<String>, Vec<String>, Vec<u32>) {
    let mut index = std::collections::HashMap::<&str, u32>::new();
    let mut kinds = std::collections::HashMap::<&str, usize>::new();
    let (mut names, mut jsons, mut ids) = (Vec::new(), Vec::new(), Vec::new());
    for s in shapes {
        let id = *index.entry(&s.json).or_insert_with(|| {
            let seen = kinds.entry(s.kind).or_insert(0);
            names.push(if *seen == 0 {
                s.kind.to_string()
            } else {
                format!("{}_{seen}", s.kind)
            });
            *seen += 1;
            jsons.push(s.json.clone());
            (jsons.len() - 1) as u32
        });
        ids.push(id);
    }
    (names, jsons, ids)
}

impl Particles {
    /// The bodies of `scene` (see the [module docs](self) for types, shapes and frames).
    ///
    /// # Errors
    ///
    /// The scene's error when its rigid bodies cannot be built (never for a validated scene).
    pub fn from_scene(scene: &Scene) -> Result<Self, SceneError> {
        let n = scene.bodies.len();
        let (mut shapes, rigid) = if scene.has_rigid_bodies() {
            let r = shapes::rigid_shapes(scene)?;
            if r.len() != n {
                return Err(SceneError::Invalid {
                    item: crate::scene::Item::Scene,
                    message: format!("{} rigid states built for {n} bodies", r.len()),
                });
            }
            let principal = r
                .iter()
                .map(|s| Principal {
                    moments: s.moments,
                    rotation: s.principal,
                })
                .collect();
            (r.into_iter().map(|s| s.shape).collect(), Some(principal))
        } else {
            let s: Vec<TypeShape> = scene
                .bodies
                .iter()
                .map(|b| sphere(2.0 * b.radius))
                .collect();
            (s, None)
        };
        // Too many ball diameters: one type for every ball, the largest sphere.
        let mut diameters: Vec<&str> = shapes
            .iter()
            .filter(|s| s.kind == "ball")
            .map(|s| s.json.as_str())
            .collect();
        diameters.sort_unstable();
        diameters.dedup();
        if diameters.len() > MAX_BALL_TYPES {
            let largest = scene
                .bodies
                .iter()
                .zip(&shapes)
                .filter(|(_, s)| s.kind == "ball")
                .map(|(b, _)| 2.0 * b.radius)
                .fold(0.0f64, f64::max);
            let one = sphere(largest);
            for s in shapes.iter_mut().filter(|s| s.kind == "ball") {
                *s = one.clone();
            }
        }
        let (types, type_shapes, typeid) = types_of(&shapes);
        let periodic = scene.periodic.as_ref().map(|l| {
            let mut p = [0.0; 3];
            for (pk, lk) in p.iter_mut().zip(l) {
                *pk = *lk;
            }
            p
        });
        Ok(Self {
            dim: scene.dim,
            types,
            type_shapes,
            typeid,
            diameter: scene.bodies.iter().map(|b| 2.0 * b.radius).collect(),
            mass: scene.bodies.iter().map(|b| b.mass).collect(),
            rigid,
            periodic,
            wall_extent: shapes::wall_extent(scene),
        })
    }

    /// What makes this description one the writer cannot write, if anything: arrays of
    /// different lengths, a type id without its type, a dimension other than 2 or 3.
    pub fn problem(&self) -> Option<String> {
        let n = self.typeid.len();
        if self.dim != 2 && self.dim != 3 {
            return Some(format!("dimension {} (must be 2 or 3)", self.dim));
        }
        if self.diameter.len() != n
            || self.mass.len() != n
            || self.rigid.as_ref().is_some_and(|r| r.len() != n)
        {
            return Some(format!(
                "{n} type ids, {} diameters, {} masses and {} rigid frames",
                self.diameter.len(),
                self.mass.len(),
                self.rigid.as_ref().map_or(n, Vec::len)
            ));
        }
        if self.types.len() != self.type_shapes.len() {
            return Some(format!(
                "{} types and {} type shapes",
                self.types.len(),
                self.type_shapes.len()
            ));
        }
        if let Some(t) = self
            .typeid
            .iter()
            .find(|&&t| t as usize >= self.types.len())
        {
            return Some(format!("type id {t} beyond the {} types", self.types.len()));
        }
        None
    }

    /// The number of bodies.
    pub fn len(&self) -> usize {
        self.typeid.len()
    }
    /// True without bodies.
    pub fn is_empty(&self) -> bool {
        self.typeid.is_empty()
    }
}

/// The state of every body at one frame, by id.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    /// `configuration/step`.
    pub step: u64,
    /// The simulated time (`log/kairos/time`).
    pub time: f64,
    /// Unwrapped centres of mass (z = 0 in 2D).
    pub position: &'a [[f64; 3]],
    /// Velocities.
    pub velocity: &'a [[f64; 3]],
    /// Rigid bodies: each body's rotation, a unit quaternion `[w, x, y, z]` from its body frame
    /// to the world (`None` for balls; with [`Frame::angular_velocity`]).
    pub rotation: Option<&'a [[f64; 4]]>,
    /// Rigid bodies: each body's angular velocity in the world frame (`[0, 0, ω]` in 2D).
    pub angular_velocity: Option<&'a [[f64; 3]]>,
}

/// Writes HOOMD-schema frames of one scene's bodies to a GSD file.
pub struct HoomdWriter<W: Write + Seek> {
    gsd: GsdWriter<W>,
    particles: Particles,
    path: PathBuf,
    /// Frame 0's box.
    first_box: Option<[f32; 6]>,
}

impl HoomdWriter<AtomicWriter> {
    /// Starts the GSD file `path` (it appears only on [`HoomdWriter::commit`]).
    ///
    /// # Errors
    ///
    /// [`GsdError::Io`] when the file cannot be created; [`GsdError::Invalid`] for
    /// `particles` with a [`Particles::problem`].
    pub fn create(path: &Path, particles: Particles) -> Result<Self, GsdError> {
        let gsd = GsdWriter::create(path, &application(), SCHEMA, SCHEMA_VERSION)?;
        Self::with_writer(gsd, path, particles)
    }

    /// Moves the finished file into place.
    ///
    /// # Errors
    ///
    /// [`GsdError::Io`] when the last writes fail; the file is then not created.
    pub fn commit(self) -> Result<(), GsdError> {
        self.gsd.commit()
    }
}

impl<W: Write + Seek> HoomdWriter<W> {
    /// Starts a GSD file of the HOOMD schema in `out`, named `path` in messages.
    ///
    /// # Errors
    ///
    /// [`GsdError::Io`] when writing fails; [`GsdError::Invalid`] for `particles` with a
    /// [`Particles::problem`].
    pub fn new(out: W, path: &Path, particles: Particles) -> Result<Self, GsdError> {
        let gsd = GsdWriter::new(out, path, &application(), SCHEMA, SCHEMA_VERSION)?;
        Self::with_writer(gsd, path, particles)
    }

    fn with_writer(gsd: GsdWriter<W>, path: &Path, particles: Particles) -> Result<Self, GsdError> {
        if let Some(problem) = particles.problem() {
            return Err(GsdError::Invalid {
                path: path.to_path_buf(),
                reason: format!("inconsistent particles: {problem}"),
            });
        }
        Ok(Self {
            gsd,
            particles,
            path: path.to_path_buf(),
            first_box: None,
        })
    }

    /// The frames written so far.
    pub fn frame_count(&self) -> u64 {
        self.gsd.frame_count()
    }

    /// Ends the file and returns the output.
    ///
    /// # Errors
    ///
    /// [`GsdError::Io`] when the last writes fail.
    pub fn finish(self) -> Result<W, GsdError> {
        self.gsd.finish()
    }

    fn invalid(&self, reason: String) -> GsdError {
        GsdError::Invalid {
            path: self.path.clone(),
            reason,
        }
    }

    /// `x` as the `float` the schema stores; an error naming `what` when beyond its range.
    fn f32_of(&self, x: f64, what: impl FnOnce() -> String) -> Result<f32, GsdError> {
        let y = x as f32;
        if y.is_finite() {
            Ok(y)
        } else {
            Err(self.invalid(format!(
                "{} = {x:e} is beyond the range of the 32-bit floats the HOOMD schema stores",
                what()
            )))
        }
    }

    /// Writes the state of every body at `t` from a trace's replay (records applied up to
    /// `t`), as frame `step`.
    ///
    /// # Errors
    ///
    /// As [`HoomdWriter::write_frame`].
    pub fn write_replay(&mut self, step: u64, t: f64, replay: &Replay) -> Result<(), GsdError> {
        let n = replay.len();
        let position: Vec<[f64; 3]> = (0..n).map(|i| replay.position(i, t)).collect();
        let velocity: Vec<[f64; 3]> = (0..n).map(|i| replay.velocity_at(i, t)).collect();
        let (mut rotation, mut omega) = (Vec::new(), Vec::new());
        if replay.is_rigid() {
            for i in 0..n {
                let (q, w) = replay.orientation(i, t);
                if replay.dim() == 3 {
                    rotation.push(q);
                    omega.push(w);
                } else {
                    let (s, c) = (0.5 * q[0]).sin_cos();
                    rotation.push([c, 0.0, 0.0, s]);
                    omega.push([0.0, 0.0, w[0]]);
                }
            }
        }
        self.write_frame(&Frame {
            step,
            time: t,
            position: &position,
            velocity: &velocity,
            rotation: replay.is_rigid().then_some(&rotation[..]),
            angular_velocity: replay.is_rigid().then_some(&omega[..]),
        })
    }

    /// Writes one frame (the time-independent chunks too, in frame 0).
    ///
    /// # Errors
    ///
    /// [`GsdError::Invalid`] for arrays of another length than the bodies', rotations without
    /// angular velocities (or the reverse), a time that is not finite, a number beyond the
    /// range of `f32`, or a body that crossed a periodic box more than `2³¹` times;
    /// [`GsdError::Io`] when writing fails.
    pub fn write_frame(&mut self, f: &Frame) -> Result<(), GsdError> {
        let n = self.particles.len();
        let lengths_ok = f.position.len() == n
            && f.velocity.len() == n
            && f.rotation.is_none_or(|q| q.len() == n)
            && f.angular_velocity.is_none_or(|w| w.len() == n);
        if !lengths_ok {
            return Err(self.invalid(format!(
                "frame {}: the state of {} bodies given for a scene of {n}",
                f.step,
                f.position.len()
            )));
        }
        if f.rotation.is_some() != f.angular_velocity.is_some() {
            return Err(self.invalid(format!(
                "frame {}: rotations and angular velocities go together",
                f.step
            )));
        }
        if !f.time.is_finite() {
            return Err(self.invalid(format!("frame {}: time {} is not finite", f.step, f.time)));
        }
        let first = self.gsd.frame_count() == 0;
        // Every number is converted before any chunk is written: a refused frame leaves the
        // file as it was.
        let (pos, image, boxed) = self.positions(f)?;
        let mut vel = Vec::with_capacity(3 * n);
        for (i, v) in f.velocity.iter().enumerate() {
            for &x in v {
                vel.push(self.f32_of(x, || format!("body {i}'s velocity"))?);
            }
        }
        let spins = match (f.rotation, f.angular_velocity, &self.particles.rigid) {
            (Some(rot), Some(omega), Some(principal)) => Some(self.spins(rot, omega, principal)?),
            _ => None,
        };
        let statics = if first { Some(self.statics()?) } else { None };

        if let Some(s) = statics {
            self.write_static(s)?;
        }
        self.gsd.write("configuration/step", 1, 1, &[f.step])?;
        if first || self.first_box.is_some_and(|b| b != boxed) {
            self.gsd.write("configuration/box", 6, 1, &boxed)?;
        }
        if first {
            self.first_box = Some(boxed);
        }
        if n > 0 {
            let n = n as u64;
            self.gsd.write("particles/position", n, 3, &pos)?;
            if !image.is_empty() {
                self.gsd.write("particles/image", n, 3, &image)?;
            }
            self.gsd.write("particles/velocity", n, 3, &vel)?;
            if let Some((q, p)) = spins {
                self.gsd.write("particles/orientation", n, 4, &q)?;
                self.gsd.write("particles/angmom", n, 4, &p)?;
            }
        }
        self.gsd.write(TIME_CHUNK, 1, 1, &[f.time])?;
        self.gsd.end_frame()
    }

    /// The positions as written (wrapped into a periodic box), the images (periodic box
    /// only) and the box.
    #[allow(clippy::type_complexity)]
    fn positions(&self, f: &Frame) -> Result<(Vec<f32>, Vec<i32>, [f32; 6]), GsdError> {
        let dim = self.particles.dim;
        let mut pos = Vec::with_capacity(3 * f.position.len());
        let mut image = Vec::new();
        let lengths: [f64; 3];
        if let Some(period) = self.particles.periodic {
            lengths = period;
            image.reserve(3 * f.position.len());
            for (i, p) in f.position.iter().enumerate() {
                for k in 0..3 {
                    let (x, img) = if k < dim && period[k] > 0.0 {
                        self.wrap(p[k], period[k], i, f.time)?
                    } else {
                        (self.f32_of(p[k], || format!("body {i}'s position"))?, 0)
                    };
                    pos.push(x);
                    image.push(img);
                }
            }
        } else {
            let mut h = self.particles.wall_extent;
            for (i, p) in f.position.iter().enumerate() {
                let r = 0.5 * self.particles.diameter[i];
                for k in 0..dim {
                    h[k] = h[k].max(p[k].abs() + r);
                }
                for &x in p {
                    pos.push(self.f32_of(x, || format!("body {i}'s position at time {}", f.time))?);
                }
            }
            let mut l = [0.0; 3];
            for k in 0..dim {
                l[k] = if h[k] > 0.0 {
                    2.0 * h[k] * (1.0 + 1e-6)
                } else {
                    1.0
                };
            }
            lengths = l;
        }
        let mut boxed = [0f32; 6];
        for k in 0..dim {
            boxed[k] = self.f32_of(lengths[k], || "the box".into())?;
        }
        Ok((pos, image, boxed))
    }

    /// `x` wrapped into `[-L/2, L/2)` as an `f32`, and the image it came from.
    fn wrap(&self, x: f64, l: f64, i: usize, t: f64) -> Result<(f32, i32), GsdError> {
        let img = ((x + 0.5 * l) / l).floor();
        let too_far = || {
            self.invalid(format!(
                "body {i} at time {t} has crossed the periodic box more than 2^31 times, \
                 beyond the 32-bit images the HOOMD schema stores"
            ))
        };
        if !(img.abs() < 2_147_483_000.0) {
            return Err(too_far());
        }
        let mut img = img as i32;
        let (l32, half) = (l as f32, (0.5 * l) as f32);
        let mut w = (x - f64::from(img) * l) as f32;
        // Round-off at the box's faces.
        if w >= half {
            w -= l32;
            img += 1;
        } else if w < -half {
            w += l32;
            img -= 1;
        }
        Ok((w, img))
    }

    /// The orientations (the principal frames') and angular momentum quaternions.
    fn spins(
        &self,
        rot: &[[f64; 4]],
        omega: &[[f64; 3]],
        principal: &[Principal],
    ) -> Result<(Vec<f32>, Vec<f32>), GsdError> {
        let n = rot.len();
        let (mut qs, mut ps) = (Vec::with_capacity(4 * n), Vec::with_capacity(4 * n));
        for (i, ((r, w), pr)) in rot.iter().zip(omega).zip(principal).enumerate() {
            let body = DQuat::from_xyzw(r[1], r[2], r[3], r[0]);
            let q = if pr.rotation == [1.0, 0.0, 0.0, 0.0] {
                body
            } else {
                let p = pr.rotation;
                body * DQuat::from_xyzw(p[1], p[2], p[3], p[0])
            };
            let local = q.conjugate() * DVec3::from_array(*w);
            let s = DVec3::from_array(pr.moments) * local;
            let m = q * DQuat::from_xyzw(s.x, s.y, s.z, 0.0);
            for x in [q.w, q.x, q.y, q.z] {
                qs.push(self.f32_of(x, || format!("body {i}'s orientation"))?);
            }
            for x in [m.w, m.x, m.y, m.z] {
                ps.push(self.f32_of(2.0 * x, || format!("body {i}'s angular momentum"))?);
            }
        }
        Ok((qs, ps))
    }

    /// The chunks of frame 0 that no later frame repeats, converted.
    fn statics(&self) -> Result<Statics, GsdError> {
        let p = &self.particles;
        let count = u32::try_from(p.len()).map_err(|_| {
            self.invalid(format!(
                "{} bodies: HOOMD counts particles in 32 bits",
                p.len()
            ))
        })?;
        let mut diameter = Vec::with_capacity(p.len());
        let mut mass = Vec::with_capacity(p.len());
        for i in 0..p.len() {
            diameter.push(self.f32_of(p.diameter[i], || format!("body {i}'s diameter"))?);
            mass.push(self.f32_of(p.mass[i], || format!("body {i}'s mass"))?);
        }
        let mut inertia = Vec::new();
        if let Some(rigid) = &p.rigid {
            for (i, pr) in rigid.iter().enumerate() {
                for &x in &pr.moments {
                    inertia.push(self.f32_of(x, || format!("body {i}'s moment of inertia"))?);
                }
            }
        }
        Ok(Statics {
            count,
            diameter,
            mass,
            inertia,
        })
    }

    fn write_static(&mut self, s: Statics) -> Result<(), GsdError> {
        let n = u64::from(s.count);
        self.gsd.write(
            "configuration/dimensions",
            1,
            1,
            &[self.particles.dim as u8],
        )?;
        self.gsd.write("particles/N", 1, 1, &[s.count])?;
        if n > 0 {
            let p = &self.particles;
            self.gsd.write_strings("particles/types", &p.types)?;
            self.gsd
                .write_strings("particles/type_shapes", &p.type_shapes)?;
            self.gsd.write("particles/typeid", n, 1, &p.typeid)?;
            self.gsd.write("particles/diameter", n, 1, &s.diameter)?;
            self.gsd.write("particles/mass", n, 1, &s.mass)?;
            if !s.inertia.is_empty() {
                self.gsd
                    .write("particles/moment_inertia", n, 3, &s.inertia)?;
            }
        }
        Ok(())
    }
}

/// Frame 0's time-independent chunks, converted to the schema's types.
struct Statics {
    count: u32,
    diameter: Vec<f32>,
    mass: Vec<f32>,
    inertia: Vec<f32>,
}
