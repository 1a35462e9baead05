//! The manifolds of capsules through their core segments: a capsule against a polytope (the
//! core clipped against the face GJK's normal points to, or the cores' polytope manifold grown
//! by the radius when the core enters), and two parallel capsules (one core clipped to the
//! ends of the other).

use super::clip::{clip_segment, ref_face, to_contacts, Clipped, Plane};
use super::polytopes::{polytope_contacts, size_of};
use super::{ContactId, ContactPoint, Manifold};
use crate::math::{Rotation, Vector};
use crate::query::gjk::{distance, GjkOptions, GjkStatus};
use crate::query::sat::Polytope;
use crate::shape::{FeatureId, Pose, Segment};

/// A capsule (core `seg`, radius `r`, at `pose_c`) against polytope `p` at `pose_p`, with the
/// capsule as shape `a`. `None` falls back to one point.
pub(super) fn capsule_polytope<V: Vector>(
    seg: &Segment<V>,
    r: f64,
    pose_c: &Pose<V>,
    p: &dyn Polytope<V>,
    pose_p: &Pose<V>,
    prediction: f64,
    slack: f64,
) -> Option<Manifold<V>> {
    let g = distance(
        seg,
        pose_c,
        &PolyShape(p),
        pose_p,
        &GjkOptions::default(),
        None,
    );
    if g.status != GjkStatus::Separated {
        // The core enters the polytope: the cores' manifold, grown by the radius.
        let m = polytope_contacts(seg, pose_c, p, pose_p, prediction + r, slack, None)?;
        return Some(m.grown(r, 0.0));
    }
    if g.distance - r > prediction {
        return Some(Manifold::empty());
    }
    let n = g.normal;
    if p.face_count() == 0 {
        return None;
    }
    // The polytope's face facing the capsule; two points when GJK's normal is its normal.
    let local = pose_p.rotation.inverse_rotate(-n);
    let (j, align) = (0..p.face_count())
        .map(|j| (j, p.face_normal(j).dot(local)))
        .fold((0, f64::NEG_INFINITY), |b, x| if x.1 > b.1 { x } else { b });
    if align < 1.0 - 1e-9 {
        return None;
    }
    let size = size_of(p).max(size_of(seg)) + r;
    let rf = ref_face(p, pose_p, j, slack * size);
    let world = |v: usize| pose_c.transform_point(seg.vertices()[v]);
    let on_ref = FeatureId::Face(j as u32);
    let pts = [0, 1].map(|v| Clipped {
        p: world(v),
        on_ref,
        on_inc: FeatureId::Vertex(v as u32),
    });
    let clipped = clip_segment(pts, &rf.planes, FeatureId::Edge(0));
    let pts = to_contacts(&clipped, &rf, false, prediction + r, size);
    if pts.is_empty() {
        return None;
    }
    Some(Manifold::of(-rf.n, &pts).grown(r, 0.0))
}

/// A polytope seen as a support map, for GJK.
struct PolyShape<'a, V: Vector>(&'a dyn Polytope<V>);

impl<V: Vector> crate::shape::SupportMap<V> for PolyShape<'_, V> {
    fn local_support_feature(&self, d: V) -> (V, FeatureId) {
        let i = self.0.support_vertex(d);
        (self.0.vertex(i), FeatureId::Vertex(i as u32))
    }
}
impl<V: Vector> crate::query::CoreSupport<V> for PolyShape<'_, V> {}

/// Two capsules: two points when their cores are parallel (the second core clipped to the
/// ends of the first), else `None` (one point).
pub(super) fn capsule_capsule<V: Vector>(
    sa: &Segment<V>,
    ra: f64,
    pose_a: &Pose<V>,
    sb: &Segment<V>,
    rb: f64,
    pose_b: &Pose<V>,
    prediction: f64,
) -> Option<Manifold<V>> {
    let g = distance(sa, pose_a, sb, pose_b, &GjkOptions::default(), None);
    if g.status != GjkStatus::Separated {
        return None;
    }
    let r = ra + rb;
    if g.distance - r > prediction {
        return Some(Manifold::empty());
    }
    let [a0, a1] = sa.vertices().map(|v| pose_a.transform_point(v));
    let [b0, b1] = sb.vertices().map(|v| pose_b.transform_point(v));
    let (ua, ub) = (a1 - a0, b1 - b0);
    let (la, lb) = (ua.length(), ub.length());
    let (ua, ub) = (ua * (1.0 / la), ub * (1.0 / lb));
    if ua.dot(ub).abs() < 1.0 - 1e-9 {
        return None;
    }
    let planes = [
        Plane {
            n: -ua,
            offset: -ua.dot(a0),
            feature: FeatureId::Vertex(0),
        },
        Plane {
            n: ua,
            offset: ua.dot(a1),
            feature: FeatureId::Vertex(1),
        },
    ];
    let seg = [(b0, 0), (b1, 1)].map(|(p, v)| Clipped {
        p,
        on_ref: FeatureId::Edge(0),
        on_inc: FeatureId::Vertex(v),
    });
    let n = g.normal;
    let mut pts = Vec::with_capacity(2);
    for c in clip_segment(seg, &planes, FeatureId::Edge(0)) {
        // The point of a's core line nearest the clipped point of b's core.
        let pa = a0 + ua * ua.dot(c.p - a0);
        let s = n.dot(c.p - pa) - r;
        if s <= prediction {
            pts.push(ContactPoint {
                point_a: pa + n * ra,
                point_b: c.p - n * rb,
                separation: s,
                id: ContactId {
                    a: c.on_ref,
                    b: c.on_inc,
                },
            });
        }
    }
    if pts.len() == 2 && (pts[0].point_b - pts[1].point_b).length() <= 1e-12 * (la + lb + r) {
        pts.pop();
    }
    if pts.is_empty() {
        return None;
    }
    Some(Manifold::of(n, &pts))
}
