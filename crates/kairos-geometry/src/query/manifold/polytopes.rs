//! The manifold of two polytopes: SAT's best axis picks a reference face (or an edge pair,
//! one point at the closest points of the two edges), and the incident face of the other
//! shape is clipped against it.

use super::clip::{
    clip_polygon, clip_segment, reduce, ref_face, to_contacts, Clipped, Origin, RefFace,
};
use super::{ContactId, ContactPoint, Manifold, FEATURE_BIAS};
use crate::math::{Rotation, Vector};
use crate::query::sat::{sat_all, separation_of, Polytope, SatCache, SatFeature};
use crate::shape::{FeatureId, Pose};

/// The closest points of segments `p0 p1` and `q0 q1` (non-degenerate).
fn closest_segments<V: Vector>(p0: V, p1: V, q0: V, q1: V) -> (V, V) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (b, c) = (d1.dot(d2), d1.dot(r));
    let denom = a * e - b * b;
    let mut s = if denom > 1e-14 * a * e {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (p0 + d1 * s, q0 + d2 * t)
}

/// The largest distance of a vertex from its shape's origin (the size the tolerances scale by).
pub(super) fn size_of<V: Vector, P: Polytope<V> + ?Sized>(p: &P) -> f64 {
    (0..p.vertex_count())
        .map(|i| p.vertex(i).length())
        .fold(0.0, f64::max)
}

/// The manifold of two polytopes; `None` when SAT has no axis or clipping leaves no point
/// although an axis is within the prediction (the caller then falls back to one point).
/// `slack` is the clip slack relative to the shapes' size ([`super::ManifoldOptions`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn polytope_contacts<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    prediction: f64,
    slack: f64,
    cache: Option<&mut SatCache>,
) -> Option<Manifold<V>>
where
    V: Vector,
    A: Polytope<V> + ?Sized,
    B: Polytope<V> + ?Sized,
{
    if let Some(f) = cache.as_ref().and_then(|c| c.feature()) {
        if let Some((s, _)) = separation_of(a, pose_a, b, pose_b, f) {
            if s > prediction {
                return Some(Manifold::empty());
            }
        }
    }
    let all = sat_all(a, pose_a, b, pose_b);
    let (best, _, feature) = all.best();
    if let Some(c) = cache {
        c.set(feature);
    }
    if feature == SatFeature::None {
        return None;
    }
    if best > prediction {
        return Some(Manifold::empty());
    }
    let size = size_of(a).max(size_of(b));
    let bias = FEATURE_BIAS * size;
    // Reference face: a's unless b's is better by the bias.
    let face = match (all.face_a, all.face_b) {
        (Some((i, sa, _)), Some((j, sb, _))) => Some(if sb > sa + bias {
            (false, j, sb)
        } else {
            (true, i, sa)
        }),
        (Some((i, sa, _)), None) => Some((true, i, sa)),
        (None, Some((j, sb, _))) => Some((false, j, sb)),
        (None, None) => None,
    };
    let edge_wins = match (face, all.edges) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some((_, _, sf)), Some((_, _, se, _))) => {
            let face_best = all
                .face_a
                .map_or(sf, |f| f.1)
                .max(all.face_b.map_or(sf, |f| f.1));
            se > face_best + bias
        }
    };
    if edge_wins {
        let (i, j, se, n) = all.edges?;
        let [p0, p1] = a
            .edge(i as usize)
            .map(|v| pose_a.transform_point(a.vertex(v as usize)));
        let [q0, q1] = b
            .edge(j as usize)
            .map(|v| pose_b.transform_point(b.vertex(v as usize)));
        let (pa, pb) = closest_segments(p0, p1, q0, q1);
        // Overlapping, the closest points of the lines are inside both edges and differ along
        // the axis. Apart, SAT's axis is a lower bound and the nearest points of the edges may be
        // their ends: their own direction and distance are the contact's.
        let (mut n, mut se) = (n, se);
        let d = pb - pa;
        let l = d.length();
        if se > 0.0 && l > 0.0 {
            (n, se) = (d * (1.0 / l), l);
            if se > prediction {
                return Some(Manifold::empty());
            }
        }
        return Some(Manifold::of(
            n,
            &[ContactPoint {
                point_a: pa,
                point_b: pb,
                separation: se,
                id: ContactId {
                    a: FeatureId::Edge(i),
                    b: FeatureId::Edge(j),
                },
            }],
        ));
    }
    let (ref_is_a, f, _) = face?;
    let pts = if ref_is_a {
        let rf = ref_face(a, pose_a, f as usize, slack * size);
        face_contacts(&rf, b, pose_b, true, prediction, size)
    } else {
        let rf = ref_face(b, pose_b, f as usize, slack * size);
        face_contacts(&rf, a, pose_a, false, prediction, size)
    };
    if pts.is_empty() {
        return None;
    }
    let n = if ref_is_a {
        pose_a.rotation.rotate(a.face_normal(f as usize))
    } else {
        -pose_b.rotation.rotate(b.face_normal(f as usize))
    };
    Some(Manifold::of(n, &pts))
}

/// Clips the incident feature of `inc` (of its faces around its deepest vertex, the one most
/// anti-parallel to the reference normal; its edge 0 when it has no face) to the reference
/// face.
fn face_contacts<V, P>(
    rf: &RefFace<V>,
    inc: &P,
    pose: &Pose<V>,
    ref_is_a: bool,
    prediction: f64,
    size: f64,
) -> Vec<ContactPoint<V>>
where
    V: Vector,
    P: Polytope<V> + ?Sized,
{
    let world = |v: u32| pose.transform_point(inc.vertex(v as usize));
    let on_ref = FeatureId::Face(rf.face);
    let clipped = if inc.face_count() == 0 {
        let [v0, v1] = inc.edge(0);
        let seg = [v0, v1].map(|v| Clipped {
            p: world(v),
            on_ref,
            on_inc: FeatureId::Vertex(v),
        });
        clip_segment(seg, &rf.planes, FeatureId::Edge(0))
    } else {
        let local = pose.rotation.inverse_rotate(rf.n);
        // The most anti-parallel of the faces around the deepest vertex: that vertex's normal
        // cone holds `-n`, so one of its faces reaches deepest. (On a box every face qualifies
        // through the nearest normal; on a general polyhedron the face whose normal is globally
        // nearest `-n` can lie away from the deepest vertex.)
        let deepest = inc.support_vertex(-local) as u32;
        let mut lp = Vec::with_capacity(8);
        let mut best = (usize::MAX, f64::INFINITY);
        for j in 0..inc.face_count() {
            let c = inc.face_normal(j).dot(local);
            if c < best.1 {
                inc.face_vertices(j, &mut lp);
                if lp.contains(&deepest) {
                    best = (j, c);
                }
            }
        }
        let j = if best.0 == usize::MAX {
            (0..inc.face_count())
                .map(|j| (j, inc.face_normal(j).dot(local)))
                .fold((0, f64::INFINITY), |b, x| if x.1 < b.1 { x } else { b })
                .0
        } else {
            best.0
        };
        inc.face_vertices(j, &mut lp);
        let inc_face = FeatureId::Face(j as u32);
        if lp.len() == 2 {
            let seg = [lp[0], lp[1]].map(|v| Clipped {
                p: world(v),
                on_ref,
                on_inc: FeatureId::Vertex(v),
            });
            clip_segment(seg, &rf.planes, inc_face)
        } else {
            let m = lp.len();
            let poly = (0..m)
                .map(|k| {
                    let edge = inc
                        .edge_index(lp[k], lp[(k + 1) % m])
                        .map_or(inc_face, FeatureId::Edge);
                    (
                        Clipped {
                            p: world(lp[k]),
                            on_ref,
                            on_inc: FeatureId::Vertex(lp[k]),
                        },
                        Origin::Incident(edge),
                    )
                })
                .collect();
            clip_polygon(poly, rf, inc_face)
        }
    };
    let mut pts = to_contacts(&clipped, rf, ref_is_a, prediction, size);
    if V::DIM == 3 {
        reduce(&mut pts, rf.n);
    }
    pts
}
