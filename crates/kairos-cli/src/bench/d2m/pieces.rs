//! Convex pieces of triangle meshes, and the time of contact of two moving meshes by
//! conservative advancement on their pieces: the stand-in for C2A (Tang, Kim, Manocha, ICRA
//! 2009) in the seed's experiment, built on the convex-shapes module's
//! [`kairos::query::time_of_impact`].
//!
//! # Pieces
//!
//! A mesh's pieces are convex [`Shape`]s in the mesh's frame whose union contains the mesh's
//! surface, so that a contact of the meshes is a contact of two pieces.
//!
//! * [`Procedural::pieces`] is exact for the procedural meshes (the union of the pieces is the
//!   solid the mesh bounds): a convex mesh (icosphere, plate, random convex hull) is its own
//!   hull; a torus of `R` rings is `R` slabs, the hull of two consecutive ring polygons (each
//!   ring a planar convex polygon in a plane through the axis, each quad between two rings an
//!   isosceles trapezoid, so planar); a spiky ball is its core, the hull of the vertices that
//!   are not spikes, and one pyramid per spike, the hull of the spike and its neighbours.
//! * [`tree_pieces`] takes any mesh: the hulls of the triangles of its sphere tree's nodes at
//!   a chosen depth. A **conservative over-approximation**: a hull holds the node's triangles
//!   and also space the mesh does not fill (across a concave fold), so its contacts may come
//!   earlier and farther apart than the mesh's. A node whose triangles span no volume (a flat
//!   patch) gives its triangles, one piece each.
//!
//! # Contact
//!
//! [`pieces_contact`] maps each [`ScrewMotion`] to the [`RigidMotion`] of the convex-shapes module
//! (the same motion: the centre's pose at `t = 0`, constant velocity, constant angular velocity
//! in the world frame about the centre), bounds every piece by a sphere about its vertices'
//! box centre, and keeps the pairs of pieces whose spheres can meet: the *window* of a pair is
//! found by bisecting the horizon, an interval dropped when the spheres' gap at its midpoint
//! exceeds what their centres can close over half its length (`|v_a − v_b| + |ω_a| |s_a| +
//! |ω_b| |s_b|` per unit time, `s` the sphere's centre relative to the centre of rotation).
//! Pairs run by the start of their windows, each from there to the end of its window or the
//! earliest contact found so far; the earliest time of impact over the pairs is the contact.
//! Since the pieces hold the meshes and conservative advancement never reports a time after
//! the first contact, the time is never after the meshes' first contact; the distance it
//! leaves is the pieces' tolerance (`1e-7` of their size by default) plus how far the pieces
//! stand out of the mesh there.

use kairos::ccd::mesh::{MeshError, TriMesh};
use kairos::ccd::rotating::ScrewMotion;
use kairos::math::{DQuat, DVec3};
use kairos::query::{time_of_impact, ToiOptions, ToiStatus};
use kairos::shape::{Pose, RigidMotion, Shape, ShapeError, SupportMap};

/// A procedural mesh by its recipe (the parameters of the [`TriMesh`] constructor of the same
/// name), which knows its exact convex pieces.
#[derive(Clone, Debug, PartialEq)]
pub enum Procedural {
    /// [`TriMesh::icosphere`].
    Icosphere {
        /// The radius.
        radius: f64,
        /// Subdivisions of the icosahedron.
        subdivisions: u32,
    },
    /// [`TriMesh::torus`].
    Torus {
        /// Radius of the tube's centre circle.
        major: f64,
        /// Radius of the tube.
        minor: f64,
        /// Segments around the axis.
        rings: u32,
        /// Segments around the tube.
        sides: u32,
    },
    /// [`TriMesh::spiky_ball`].
    SpikyBall {
        /// The core's radius.
        radius: f64,
        /// The spikes' length, in radii.
        spike: f64,
        /// Subdivisions of the icosahedron.
        subdivisions: u32,
    },
    /// [`TriMesh::plate`].
    Plate {
        /// Half the width.
        half_width: f64,
        /// Half the thickness.
        half_thickness: f64,
    },
    /// [`TriMesh::random_convex_hull`].
    ConvexHull {
        /// How many random points.
        points: usize,
        /// The sphere's radius.
        radius: f64,
        /// The random seed.
        seed: u64,
    },
}

/// `Ok` when every `(name, value)` is positive and finite.
fn positive(values: &[(&'static str, f64)]) -> Result<(), MeshError> {
    match values.iter().find(|(_, v)| !(*v > 0.0 && v.is_finite())) {
        Some(&(name, v)) => Err(MeshError::Parameter {
            name,
            problem: format!("must be positive and finite, got {v}"),
        }),
        None => Ok(()),
    }
}

/// The hull of `points` as a shape (they come from a valid procedural mesh, so a failure is a
/// bug of this module, reported as the hull's error).
fn hull(points: impl IntoIterator<Item = [f64; 3]>) -> Result<Shape<DVec3>, ShapeError> {
    let p: Vec<DVec3> = points.into_iter().map(DVec3::from_array).collect();
    Shape::polyhedron(&p)
}

impl Procedural {
    /// The mesh.
    ///
    /// # Errors
    ///
    /// [`MeshError::Parameter`] for a size that is not positive and finite, a spike shorter
    /// than the core (`spike < 1`), a torus whose tube is not thinner than its circle
    /// (`minor >= major`), more than 12 subdivisions, and those of
    /// [`TriMesh::random_convex_hull`].
    pub fn mesh(&self) -> Result<TriMesh, MeshError> {
        let subdivisions = |s: u32| {
            if s > 12 {
                Err(MeshError::Parameter {
                    name: "subdivisions",
                    problem: format!("at most 12 (4^12 times 20 triangles), got {s}"),
                })
            } else {
                Ok(())
            }
        };
        match *self {
            Procedural::Icosphere {
                radius,
                subdivisions: s,
            } => {
                positive(&[("radius", radius)])?;
                subdivisions(s)?;
                Ok(TriMesh::icosphere(radius, s))
            }
            Procedural::Torus {
                major,
                minor,
                rings,
                sides,
            } => {
                positive(&[("major", major), ("minor", minor)])?;
                if minor >= major {
                    return Err(MeshError::Parameter {
                        name: "minor",
                        problem: format!(
                            "must be below the major radius {}, got {}",
                            kairos::num::Num(major),
                            kairos::num::Num(minor)
                        ),
                    });
                }
                Ok(TriMesh::torus(major, minor, rings, sides))
            }
            Procedural::SpikyBall {
                radius,
                spike,
                subdivisions: s,
            } => {
                positive(&[("radius", radius), ("spike", spike)])?;
                if spike < 1.0 {
                    return Err(MeshError::Parameter {
                        name: "spike",
                        problem: format!(
                            "a spike is at least 1 radius long, got {}",
                            kairos::num::Num(spike)
                        ),
                    });
                }
                subdivisions(s)?;
                Ok(TriMesh::spiky_ball(radius, spike, s))
            }
            Procedural::Plate {
                half_width,
                half_thickness,
            } => {
                positive(&[
                    ("half_width", half_width),
                    ("half_thickness", half_thickness),
                ])?;
                Ok(TriMesh::plate(half_width, half_thickness))
            }
            Procedural::ConvexHull {
                points,
                radius,
                seed,
            } => TriMesh::random_convex_hull(points, radius, seed),
        }
    }

    /// The mesh's exact convex pieces, in its frame (see the [module docs](self)).
    ///
    /// # Errors
    ///
    /// Those of [`Procedural::mesh`], as [`PiecesError::Mesh`]; [`PiecesError::Shape`] should
    /// a hull fail (it does not for valid parameters).
    pub fn pieces(&self) -> Result<Vec<Shape<DVec3>>, PiecesError> {
        let m = self.mesh()?;
        let v = m.vertices();
        let pieces = match *self {
            Procedural::Torus { rings, sides, .. } => {
                // The torus's vertices are ring by ring, `sides` each (both at least 3).
                let (rings, sides) = (rings.max(3) as usize, sides.max(3) as usize);
                (0..rings)
                    .map(|i| {
                        let next = (i + 1) % rings;
                        hull(
                            v[i * sides..(i + 1) * sides]
                                .iter()
                                .chain(&v[next * sides..(next + 1) * sides])
                                .copied(),
                        )
                    })
                    .collect::<Result<_, _>>()?
            }
            Procedural::SpikyBall { subdivisions, .. } if subdivisions > 0 => {
                // The first 12 vertices (the icosahedron's) are the spikes; after one
                // subdivision no two are neighbours.
                let mut around = vec![Vec::new(); 12];
                for &[i, j] in m.edges() {
                    for (s, o) in [(i, j), (j, i)] {
                        if s < 12 {
                            around[s as usize].push(v[o as usize]);
                        }
                    }
                }
                let mut pieces = vec![hull(v[12..].iter().copied())?];
                for (k, ring) in around.into_iter().enumerate() {
                    pieces.push(hull(std::iter::once(v[k]).chain(ring))?);
                }
                pieces
            }
            // Convex: an icosphere, a plate, a hull, and a spiky ball without subdivision (a
            // scaled icosahedron).
            _ => vec![hull(v.iter().copied())?],
        };
        Ok(pieces)
    }
}

/// Why pieces or a contact could not be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PiecesError {
    /// The mesh's parameters are refused.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// A piece's hull failed.
    #[error("a convex piece failed: {0}")]
    Shape(#[from] ShapeError),
    /// A motion is outside the convex-shapes module's class.
    #[error("the convex time of impact takes constant velocities only: {0}")]
    Motion(&'static str),
    /// No pieces.
    #[error("a body has no convex pieces")]
    Empty,
}

/// The hulls of the triangles of the nodes of `body`'s sphere tree at `depth` (the root is at
/// depth 0; a leaf above that depth is taken as it is), in the mesh's frame: a conservative
/// over-approximation of any mesh (see the [module docs](self)).
///
/// # Errors
///
/// [`PiecesError::Shape`] when a triangle of a flat node is refused as a shape (a sliver that
/// the mesh's looser test let through).
#[cfg(test)] // The bench's meshes are procedural; any other mesh's pieces are tested here.
pub fn tree_pieces(
    body: &kairos::ccd::tree::MeshBody,
    depth: u32,
) -> Result<Vec<Shape<DVec3>>, PiecesError> {
    let nodes = body.tree.nodes();
    let mut out = Vec::new();
    let mut stack = vec![(0usize, 0u32)];
    while let Some((i, d)) = stack.pop() {
        let node = &nodes[i];
        if let (Some([l, r]), true) = (node.children, d < depth) {
            stack.extend([(r as usize, d + 1), (l as usize, d + 1)]);
            continue;
        }
        let triangles = body.tree.triangles(node);
        let corners = || {
            triangles
                .iter()
                .flat_map(|&t| body.mesh.corners(t as usize))
                .map(DVec3::from_array)
        };
        let points: Vec<DVec3> = corners().collect();
        match Shape::polyhedron(&points) {
            Ok(s) => out.push(s),
            // A flat patch (or a single triangle): its triangles, each a piece.
            Err(ShapeError::ZeroVolume | ShapeError::TooFewPoints { .. }) => {
                for &t in triangles {
                    let [a, b, c] = body.mesh.corners(t as usize).map(DVec3::from_array);
                    out.push(Shape::triangle(a, b, c)?);
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(out)
}

/// The convex-shapes module's [`RigidMotion`] of a [`ScrewMotion`] of the seed's class: the pose at
/// `t = 0` at the centre (no rotation yet), the same velocity and angular velocity, so that a
/// body point at offset `r` from the centre is at the same place at every time.
///
/// # Errors
///
/// [`PiecesError::Motion`] for a motion with an acceleration or an angular drift (outside the
/// module's class) or a non-finite value.
pub fn screw_to_motion(m: &ScrewMotion) -> Result<RigidMotion<DVec3>, PiecesError> {
    if m.acceleration != [0.0; 3] || m.angular_acceleration != 0.0 {
        return Err(PiecesError::Motion(
            "the screw motion has an acceleration or an angular drift",
        ));
    }
    RigidMotion::new(
        0.0,
        Pose::new(DVec3::from_array(m.centre), DQuat::IDENTITY),
        DVec3::from_array(m.velocity),
        DVec3::from_array(m.angular_velocity),
    )
    .map_err(|_| PiecesError::Motion("a value of the screw motion is not finite"))
}

/// A body for [`pieces_contact`]: convex pieces relative to the centre of its motion, each with
/// a bounding sphere.
#[derive(Clone, Debug)]
pub struct PieceBody {
    pieces: Vec<Shape<DVec3>>,
    /// The centre (the middle of the piece's box) and radius of each piece's sphere.
    spheres: Vec<(DVec3, f64)>,
}

impl PieceBody {
    /// A body of `pieces`, given relative to the centre its motion turns about (the mesh's
    /// frame, for a mesh built about that centre).
    ///
    /// # Errors
    ///
    /// [`PiecesError::Empty`] without pieces.
    pub fn new(pieces: Vec<Shape<DVec3>>) -> Result<Self, PiecesError> {
        if pieces.is_empty() {
            return Err(PiecesError::Empty);
        }
        let spheres = pieces
            .iter()
            .map(|p| {
                let b = p.aabb(&Pose::IDENTITY);
                let c = (b.min + b.max) * 0.5;
                (c, p.bounding_radius_about(c))
            })
            .collect();
        Ok(Self { pieces, spheres })
    }
    /// The pieces.
    #[cfg(test)]
    pub fn pieces(&self) -> &[Shape<DVec3>] {
        &self.pieces
    }
}

/// The first contact found by [`pieces_contact`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PiecesContact {
    /// The time: the earliest time of impact over the pairs of pieces.
    pub time: f64,
    /// The pieces that meet (indices into each body's pieces).
    pub pieces: [usize; 2],
    /// Pairs of pieces whose windows overlapped the horizon.
    pub pairs: usize,
    /// Conservative advancement steps (GJK queries) over all pairs.
    pub iterations: u64,
}

/// Bisections of the horizon for a pair's window: `2^-16` of it at the finest.
const WINDOW_DEPTH: u32 = 16;

/// The window `[lo, hi]` within `[0, until]` outside which the spheres `(sa, ra)` of `a` and
/// `(sb, rb)` of `b` (relative to their motions' centres) are certainly apart, or `None`.
fn window(
    (sa, ra): (DVec3, f64),
    ma: &RigidMotion<DVec3>,
    (sb, rb): (DVec3, f64),
    mb: &RigidMotion<DVec3>,
    until: f64,
) -> Option<(f64, f64)> {
    let speed = (ma.linear_velocity - mb.linear_velocity).length()
        + ma.angular_speed() * sa.length()
        + mb.angular_speed() * sb.length();
    // Whether the spheres may meet in [t0, t1]: the gap at the midpoint, less what the
    // centres can close in half the interval, with a margin for the rounding of the poses.
    let may_meet = |t0: f64, t1: f64| {
        let t = 0.5 * (t0 + t1);
        let (pa, pb) = (
            ma.pose_at(t).transform_point(sa),
            mb.pose_at(t).transform_point(sb),
        );
        let scale = pa.length() + pb.length() + ra + rb;
        (pa - pb).length() - ra - rb - 1e-12 * scale <= speed * 0.5 * (t1 - t0)
    };
    // The first (or last, `rev`) finest interval where they may meet, depth first.
    let search = |rev: bool| {
        let mut stack = vec![(0.0, until, 0u32)];
        while let Some((t0, t1, d)) = stack.pop() {
            if !may_meet(t0, t1) {
                continue;
            }
            if d == WINDOW_DEPTH {
                return Some(if rev { t1 } else { t0 });
            }
            let m = 0.5 * (t0 + t1);
            if rev {
                stack.extend([(t0, m, d + 1), (m, t1, d + 1)]);
            } else {
                stack.extend([(m, t1, d + 1), (t0, m, d + 1)]);
            }
        }
        None
    };
    Some((search(false)?, search(true)?))
}

/// The time of first contact in `[0, until]` of bodies `a` and `b` moving by `ma` and `mb`:
/// conservative advancement ([`time_of_impact`] with `options`) on every pair of pieces whose
/// spheres' window is open, the earliest over the pairs (see the [module docs](self)).
/// `None` when no pair meets. A pair that stops at the step limit goes on from where it
/// stopped; one that can make no step at all (no certified gap, the rounding limit) counts as
/// meeting there.
///
/// # Errors
///
/// [`PiecesError::Motion`] for motions outside the convex module's class (see
/// [`screw_to_motion`]).
pub fn pieces_contact(
    a: &PieceBody,
    ma: &ScrewMotion,
    b: &PieceBody,
    mb: &ScrewMotion,
    until: f64,
    options: &ToiOptions,
) -> Result<Option<PiecesContact>, PiecesError> {
    let (ma, mb) = (screw_to_motion(ma)?, screw_to_motion(mb)?);
    if !(until >= 0.0 && until.is_finite()) {
        return Ok(None);
    }
    let mut pairs = Vec::new();
    for (i, &sa) in a.spheres.iter().enumerate() {
        for (j, &sb) in b.spheres.iter().enumerate() {
            if let Some((lo, hi)) = window(sa, &ma, sb, &mb, until) {
                pairs.push((lo, hi, i, j));
            }
        }
    }
    pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut best: Option<PiecesContact> = None;
    let mut iterations = 0u64;
    for &(lo, hi, i, j) in &pairs {
        // Sorted by the windows' starts: no later pair can meet before the best contact.
        if best.is_some_and(|c| lo >= c.time) {
            break;
        }
        let end = best.map_or(hi, |c| c.time.min(hi));
        let mut t = lo;
        let hit = loop {
            let r = time_of_impact(&a.pieces[i], &ma, &b.pieces[j], &mb, t, end, options);
            iterations += u64::from(r.iterations);
            match r.status {
                ToiStatus::Approaching | ToiStatus::Penetrating => break Some(r.time),
                ToiStatus::NotBy | ToiStatus::Separating | ToiStatus::Grazing => break None,
                ToiStatus::Stalled if r.time > t => t = r.time,
                ToiStatus::Stalled => break Some(r.time),
            }
        };
        if let Some(time) = hit {
            if best.is_none_or(|c| time < c.time) {
                best = Some(PiecesContact {
                    time,
                    pieces: [i, j],
                    pairs: 0,
                    iterations: 0,
                });
            }
        }
    }
    Ok(best.map(|c| PiecesContact {
        pairs: pairs.len(),
        iterations,
        ..c
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos::ccd::distance::mesh_distance;
    use kairos::ccd::tree::MeshBody;
    use kairos::ccd::tree::{mesh_contact, MeshQuery};
    use kairos::query::{distance, GjkOptions, GjkStatus};

    /// Whether `p` lies in one of `pieces`, within `tol`.
    fn covered(pieces: &[Shape<DVec3>], p: [f64; 3], tol: f64) -> bool {
        let dot = Shape::ball(1e-300).unwrap();
        let at = Pose::from_position(DVec3::from_array(p));
        pieces.iter().any(|s| {
            let g = distance(s, &Pose::IDENTITY, &dot, &at, &GjkOptions::default(), None);
            g.status == GjkStatus::Intersecting || g.distance <= tol
        })
    }

    fn recipes() -> Vec<Procedural> {
        vec![
            Procedural::Icosphere {
                radius: 1.0,
                subdivisions: 2,
            },
            Procedural::Torus {
                major: 1.5,
                minor: 0.4,
                rings: 32,
                sides: 16,
            },
            Procedural::Torus {
                major: 1.0,
                minor: 0.3,
                rings: 5,
                sides: 3,
            },
            Procedural::SpikyBall {
                radius: 0.6,
                spike: 1.8,
                subdivisions: 2,
            },
            Procedural::SpikyBall {
                radius: 1.0,
                spike: 1.5,
                subdivisions: 0,
            },
            Procedural::Plate {
                half_width: 1.5,
                half_thickness: 0.02,
            },
            Procedural::ConvexHull {
                points: 40,
                radius: 1.0,
                seed: 7,
            },
        ]
    }

    #[test]
    fn every_vertex_lies_in_a_piece() {
        for r in recipes() {
            let m = r.mesh().unwrap();
            let pieces = r.pieces().unwrap();
            for &v in m.vertices() {
                assert!(covered(&pieces, v, 1e-9), "{r:?}: {v:?}");
            }
            // The triangles' centroids too: the pieces hold the surface, not only its corners.
            for k in 0..m.triangles().len() {
                let c = m.corners(k);
                let g = [0, 1, 2].map(|i| (c[0][i] + c[1][i] + c[2][i]) / 3.0);
                assert!(covered(&pieces, g, 1e-9), "{r:?}: triangle {k}");
            }
            let body = MeshBody::new(m.clone());
            for depth in [0, 3, 30] {
                let pieces = tree_pieces(&body, depth).unwrap();
                assert!(pieces.len() <= m.triangles().len());
                for &v in m.vertices() {
                    assert!(covered(&pieces, v, 1e-9), "{r:?} at depth {depth}: {v:?}");
                }
            }
        }
    }

    #[test]
    fn exact_pieces_are_tight() {
        // A torus's slabs: the ring quads are planar, so every slab has the two ring
        // polygons and `sides` quads as faces, and the hole stays open.
        let (rings, sides) = (32, 16);
        let torus = Procedural::Torus {
            major: 1.5,
            minor: 0.4,
            rings,
            sides,
        };
        let pieces = torus.pieces().unwrap();
        assert_eq!(pieces.len(), rings as usize);
        for p in &pieces {
            let Shape::Polyhedron(h) = p else {
                panic!("a slab is a polyhedron")
            };
            assert_eq!(h.vertices().len(), 2 * sides as usize);
            assert_eq!(h.face_count(), 2 + sides as usize);
        }
        assert!(!covered(&pieces, [0.0; 3], 1e-9));
        assert!(!covered(&pieces, [1.0, 0.0, 0.0], 1e-9));
        assert!(covered(&pieces, [1.5, 0.0, 0.0], 1e-9));
        // A spiky ball's core and pyramids: a point between two spikes, outside the core's
        // sphere, is in no piece.
        let ball = Procedural::SpikyBall {
            radius: 0.6,
            spike: 1.8,
            subdivisions: 2,
        };
        let pieces = ball.pieces().unwrap();
        assert_eq!(pieces.len(), 13);
        let m = ball.mesh().unwrap();
        let [a, b] = [m.vertices()[0], m.vertices()[1]];
        let between = [0, 1, 2].map(|i| 0.5 * (a[i] + b[i]));
        let l = between.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!(!covered(&pieces, between.map(|x| x * 0.7 / l), 1e-9));
        assert!(covered(&pieces, between.map(|x| x * 0.5 / l), 1e-9));
    }

    #[test]
    fn bad_recipes_and_motions_are_refused() {
        let bad = [
            Procedural::Icosphere {
                radius: -1.0,
                subdivisions: 1,
            },
            Procedural::Torus {
                major: 1.0,
                minor: 1.0,
                rings: 8,
                sides: 8,
            },
            Procedural::SpikyBall {
                radius: 1.0,
                spike: 0.5,
                subdivisions: 1,
            },
            Procedural::Plate {
                half_width: f64::INFINITY,
                half_thickness: 0.1,
            },
            Procedural::ConvexHull {
                points: 2,
                radius: 1.0,
                seed: 1,
            },
        ];
        for r in bad {
            assert!(matches!(
                r.pieces(),
                Err(PiecesError::Mesh(MeshError::Parameter { .. }))
            ));
        }
        let mut m = ScrewMotion::new([0.0; 3], [1.0, 0.0, 0.0], [0.0; 3]);
        m.acceleration = [0.0, 0.0, -9.8];
        assert!(matches!(screw_to_motion(&m), Err(PiecesError::Motion(_))));
        assert_eq!(PieceBody::new(Vec::new()).unwrap_err(), PiecesError::Empty);
    }

    fn body(r: &Procedural) -> (MeshBody, PieceBody) {
        (
            MeshBody::new(r.mesh().unwrap()),
            PieceBody::new(r.pieces().unwrap()).unwrap(),
        )
    }

    #[test]
    fn the_pieces_contact_is_never_after_the_meshes() {
        let (ma, pa) = body(&Procedural::Torus {
            major: 1.5,
            minor: 0.4,
            rings: 24,
            sides: 12,
        });
        let (mb, pb) = body(&Procedural::SpikyBall {
            radius: 0.5,
            spike: 1.8,
            subdivisions: 1,
        });
        let options = ToiOptions::default();
        let query = MeshQuery::default();
        let mut met = 0;
        for k in 0..6 {
            let f = k as f64;
            let centre = [4.0, 0.3 * f - 0.6, 0.2 * f];
            let wa = [0.3 * f, -1.0, 0.5];
            let wb = [1.0, 0.2 * f, -0.7];
            let sa = ScrewMotion::new([0.0; 3], [0.0; 3], wa);
            let sb = ScrewMotion::new(centre, [-4.0, 0.0, -0.1 * f], wb);
            let placed = mb.clone().translated(centre);
            let d2m = mesh_contact(&ma, &sa, &placed, &sb, 2.0, &query, None);
            let c2a = pieces_contact(&pa, &sa, &pb, &sb, 2.0, &options).unwrap();
            let Some(d) = d2m else { continue };
            let c = c2a.expect("the pieces meet when the meshes do");
            met += 1;
            assert!(
                c.time <= d.time + 1e-9,
                "trial {k}: {} > {}",
                c.time,
                d.time
            );
            // Exact pieces: the meshes are within the pieces' tolerance then.
            let gap = mesh_distance(&ma, &sa, &placed, &sb, c.time);
            assert!(gap > 0.0 && gap < 1e-6, "trial {k}: {gap}");
        }
        assert!(met >= 4, "{met} of 6 trials meet");
    }

    #[test]
    fn windows_hold_every_time_the_spheres_meet() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
        let v = |rng: &mut rand_pcg::Pcg64, s: f64| {
            DVec3::new(
                rng.gen_range(-s..s),
                rng.gen_range(-s..s),
                rng.gen_range(-s..s),
            )
        };
        let mut open = 0;
        for _ in 0..200 {
            let ma =
                RigidMotion::new(0.0, Pose::IDENTITY, v(&mut rng, 0.5), v(&mut rng, 3.0)).unwrap();
            // Aimed near `a`, to meet in about half the trials.
            let start = v(&mut rng, 3.0);
            let aim = (v(&mut rng, 1.5) - start) * rng.gen_range(0.3..1.5);
            let mb =
                RigidMotion::new(0.0, Pose::from_position(start), aim, v(&mut rng, 3.0)).unwrap();
            let (sa, sb) = ((v(&mut rng, 1.5), 0.3), (v(&mut rng, 1.5), 0.4));
            let w = window(sa, &ma, sb, &mb, 2.0);
            open += usize::from(w.is_some());
            for k in 0..=4000 {
                let t = 2.0 * k as f64 / 4000.0;
                let (pa, pb) = (
                    ma.pose_at(t).transform_point(sa.0),
                    mb.pose_at(t).transform_point(sb.0),
                );
                if (pa - pb).length() <= sa.1 + sb.1 {
                    let (lo, hi) = w.expect("the spheres meet: a window");
                    assert!(lo <= t && t <= hi, "{t} outside [{lo}, {hi}]");
                }
            }
        }
        assert!(open > 20 && open < 180, "{open} of 200 windows open");
    }

    #[test]
    fn tree_pieces_meet_no_later_than_the_mesh() {
        let (ma, _) = body(&Procedural::Torus {
            major: 1.5,
            minor: 0.4,
            rings: 24,
            sides: 12,
        });
        let (mb, pb) = body(&Procedural::Icosphere {
            radius: 0.6,
            subdivisions: 2,
        });
        let pa = PieceBody::new(tree_pieces(&ma, 5).unwrap()).unwrap();
        assert!(pa.pieces().len() > 16);
        let sa = ScrewMotion::new([0.0; 3], [0.0; 3], [0.4, -1.0, 0.7]);
        let centre = [0.3, 3.0, 0.2];
        let sb = ScrewMotion::new(centre, [0.0, -4.0, 0.0], [1.0, 0.5, 0.0]);
        let placed = mb.clone().translated(centre);
        let query = MeshQuery::default();
        let d = mesh_contact(&ma, &sa, &placed, &sb, 2.0, &query, None).expect("they meet");
        let c = pieces_contact(&pa, &sa, &pb, &sb, 2.0, &ToiOptions::default())
            .unwrap()
            .expect("the pieces meet when the meshes do");
        assert!(c.time <= d.time + 1e-9, "{} > {}", c.time, d.time);
        // An over-approximation: the gap at its contact may exceed the tolerance, but not what
        // the meshes can close until their own contact, at most `|v| + |ω_a| R_a + |ω_b| R_b`
        // (4 + 1.29 · 1.9 + 1.12 · 0.6 < 7.2) per unit time.
        let gap = mesh_distance(&ma, &sa, &placed, &sb, c.time);
        assert!(gap > 0.0 && gap <= 7.2 * (d.time - c.time) + 1e-9, "{gap}");
    }

    #[test]
    fn a_ball_through_the_hole_meets_no_slab() {
        let (_, torus) = body(&Procedural::Torus {
            major: 1.5,
            minor: 0.4,
            rings: 32,
            sides: 16,
        });
        let options = ToiOptions::default();
        let still = ScrewMotion::new([0.0; 3], [0.0; 3], [0.0, 0.0, 3.0]);
        let fall = ScrewMotion::new([0.0, 0.0, 3.0], [0.0, 0.0, -3.0], [1.0, 2.0, 0.0]);
        // The hole's inner rim is at 1.1 · cos(π/32) ≥ 1.094 from the axis.
        let (_, small) = body(&Procedural::Icosphere {
            radius: 1.0,
            subdivisions: 2,
        });
        assert_eq!(
            pieces_contact(&torus, &still, &small, &fall, 2.0, &options).unwrap(),
            None
        );
        let (_, large) = body(&Procedural::Icosphere {
            radius: 1.2,
            subdivisions: 2,
        });
        let c = pieces_contact(&torus, &still, &large, &fall, 2.0, &options)
            .unwrap()
            .expect("a ball wider than the hole meets the torus");
        assert!(c.time > 0.0 && c.time < 1.0, "{c:?}");
    }
}
