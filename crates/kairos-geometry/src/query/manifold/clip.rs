//! The clipping of the contact manifolds: a reference face with its side planes, the incident
//! segment or polygon clipped against them (Sutherland–Hodgman), each clipped point named by
//! the features it lies on, the points kept as contacts below the prediction, and in 3D more
//! than 4 reduced to the 4 that span the most area.

// Comparisons are negated on purpose where a NaN must take the safe branch.

use super::{ContactId, ContactPoint, MAX_POINTS};
use crate::math::{Rotation, Vector};
use crate::query::sat::{cross, Polytope};
use crate::shape::{FeatureId, Pose};

/// A half-space `n · x ≤ offset` bounding the reference face, and the reference feature it
/// stands for (a vertex in 2D, an edge in 3D).
#[derive(Clone, Copy, Debug)]
pub(super) struct Plane<V> {
    pub(super) n: V,
    pub(super) offset: f64,
    pub(super) feature: FeatureId,
}

/// A point being clipped and its features on the reference and incident shapes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clipped<V> {
    pub(super) p: V,
    pub(super) on_ref: FeatureId,
    pub(super) on_inc: FeatureId,
}

/// What the polygon edge starting at a point lies on: an incident feature, or side plane `k`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Origin {
    Incident(FeatureId),
    Side(usize),
}

/// A reference face in the world: normal, plane offset, side planes, vertex loop.
pub(super) struct RefFace<V> {
    pub(super) face: u32,
    pub(super) n: V,
    offset: f64,
    pub(super) planes: Vec<Plane<V>>,
    lp: Vec<u32>,
}

/// The reference face `face` of `p` at `pose`, its side planes moved out by `slack`.
pub(super) fn ref_face<V: Vector, P: Polytope<V> + ?Sized>(
    p: &P,
    pose: &Pose<V>,
    face: usize,
    slack: f64,
) -> RefFace<V> {
    let n = pose.rotation.rotate(p.face_normal(face));
    let mut lp = Vec::with_capacity(4);
    p.face_vertices(face, &mut lp);
    let w: Vec<V> = lp
        .iter()
        .map(|&v| pose.transform_point(p.vertex(v as usize)))
        .collect();
    let offset = n.dot(w[0]);
    let mut planes = Vec::with_capacity(lp.len());
    if V::DIM == 2 {
        let t = w[1] - w[0];
        let t = t * (1.0 / t.length());
        planes.push(Plane {
            n: -t,
            offset: -t.dot(w[0]) + slack,
            feature: FeatureId::Vertex(lp[0]),
        });
        planes.push(Plane {
            n: t,
            offset: t.dot(w[1]) + slack,
            feature: FeatureId::Vertex(lp[1]),
        });
    } else {
        for k in 0..lp.len() {
            let k1 = (k + 1) % lp.len();
            let s = cross(w[k1] - w[k], n);
            let l = s.length();
            if !(l > 0.0) {
                continue;
            }
            let s = s * (1.0 / l);
            let feature = p
                .edge_index(lp[k], lp[k1])
                .map_or(FeatureId::Vertex(lp[k]), FeatureId::Edge);
            planes.push(Plane {
                n: s,
                offset: s.dot(w[k]) + slack,
                feature,
            });
        }
    }
    RefFace {
        face: face as u32,
        n,
        offset,
        planes,
        lp,
    }
}

/// `p + (q − p) t` where the signed distances `dp > 0 ≥ dq` or `dp ≤ 0 < dq` change sign.
#[inline]
fn crossing<V: Vector>(p: V, q: V, dp: f64, dq: f64) -> V {
    let t = dp / (dp - dq);
    p + (q - p) * t.clamp(0.0, 1.0)
}

/// Clips the segment `seg` (an incident edge or side, named `edge`) to the side planes.
pub(super) fn clip_segment<V: Vector>(
    mut seg: [Clipped<V>; 2],
    planes: &[Plane<V>],
    edge: FeatureId,
) -> Vec<Clipped<V>> {
    for pl in planes {
        let d = seg.map(|c| pl.n.dot(c.p) - pl.offset);
        if d[0] > 0.0 && d[1] > 0.0 {
            return Vec::new();
        }
        for k in 0..2 {
            if d[k] > 0.0 {
                seg[k] = Clipped {
                    p: crossing(seg[k].p, seg[1 - k].p, d[k], d[1 - k]),
                    on_ref: pl.feature,
                    on_inc: edge,
                };
            }
        }
    }
    seg.to_vec()
}

/// Clips the closed incident polygon to the side planes (Sutherland–Hodgman), naming the new
/// points by the features they lie on.
pub(super) fn clip_polygon<V: Vector>(
    mut poly: Vec<(Clipped<V>, Origin)>,
    rf: &RefFace<V>,
    inc_face: FeatureId,
) -> Vec<Clipped<V>> {
    let m = rf.lp.len();
    let planes = &rf.planes;
    for (k, pl) in planes.iter().enumerate() {
        if poly.is_empty() {
            break;
        }
        let name = |o: Origin| -> (FeatureId, FeatureId) {
            match o {
                Origin::Incident(f) => (pl.feature, f),
                Origin::Side(j) => {
                    // Two side planes meet at the reference vertex they share.
                    let v = if planes.len() == m && j == (k + 1) % m {
                        FeatureId::Vertex(rf.lp[(k + 1) % m])
                    } else if planes.len() == m && k == (j + 1) % m {
                        FeatureId::Vertex(rf.lp[k])
                    } else {
                        pl.feature
                    };
                    (v, inc_face)
                }
            }
        };
        let mut out = Vec::with_capacity(poly.len() + 1);
        let len = poly.len();
        for i in 0..len {
            let (cur, cur_o) = poly[i];
            let (prev, prev_o) = poly[(i + len - 1) % len];
            let (dc, dp) = (pl.n.dot(cur.p) - pl.offset, pl.n.dot(prev.p) - pl.offset);
            if dc <= 0.0 {
                if dp > 0.0 {
                    let (on_ref, on_inc) = name(prev_o);
                    let p = crossing(prev.p, cur.p, dp, dc);
                    out.push((Clipped { p, on_ref, on_inc }, prev_o));
                }
                out.push((cur, cur_o));
            } else if dp <= 0.0 {
                let (on_ref, on_inc) = name(prev_o);
                let p = crossing(prev.p, cur.p, dp, dc);
                out.push((Clipped { p, on_ref, on_inc }, Origin::Side(k)));
            }
        }
        poly = out;
    }
    poly.into_iter().map(|(c, _)| c).collect()
}

/// The clipped points below `prediction` as contact points: `point_inc` the clipped point on
/// the incident shape, `point_ref` its projection on the reference plane. `ref_is_a` says
/// which shape the reference face belongs to.
pub(super) fn to_contacts<V: Vector>(
    clipped: &[Clipped<V>],
    rf: &RefFace<V>,
    ref_is_a: bool,
    prediction: f64,
    size: f64,
) -> Vec<ContactPoint<V>> {
    let mut out: Vec<ContactPoint<V>> = Vec::with_capacity(clipped.len());
    for c in clipped {
        let s = rf.n.dot(c.p) - rf.offset;
        if !(s <= prediction) {
            continue;
        }
        // Clipping can repeat a point (an incident vertex on a side plane).
        let incident = |q: &ContactPoint<V>| if ref_is_a { q.point_b } else { q.point_a };
        if out
            .iter()
            .any(|q| (incident(q) - c.p).length() <= 1e-12 * size)
        {
            continue;
        }
        let on_plane = c.p - rf.n * s;
        let (point_a, point_b, id) = if ref_is_a {
            (
                on_plane,
                c.p,
                ContactId {
                    a: c.on_ref,
                    b: c.on_inc,
                },
            )
        } else {
            (
                c.p,
                on_plane,
                ContactId {
                    a: c.on_inc,
                    b: c.on_ref,
                },
            )
        };
        out.push(ContactPoint {
            point_a,
            point_b,
            separation: s,
            id,
        });
    }
    out
}

/// At most 4 of the points: the deepest, the farthest from it, the one spanning the largest
/// triangle with them, and the one adding the most area to that triangle.
pub(super) fn reduce<V: Vector>(pts: &mut Vec<ContactPoint<V>>, n: V) {
    if pts.len() <= MAX_POINTS {
        return;
    }
    let p = |c: &ContactPoint<V>| c.point_b;
    let i0 = (0..pts.len())
        .min_by(|&i, &j| pts[i].separation.total_cmp(&pts[j].separation))
        .unwrap_or(0);
    let p0 = p(&pts[i0]);
    let argmax = |f: &dyn Fn(V) -> f64, skip: &[usize]| -> Option<(usize, f64)> {
        (0..pts.len())
            .filter(|i| !skip.contains(i))
            .map(|i| (i, f(p(&pts[i]))))
            .fold(None, |b: Option<(usize, f64)>, x| match b {
                Some(b) if b.1 >= x.1 => Some(b),
                _ => Some(x),
            })
    };
    let Some((i1, _)) = argmax(&|q| (q - p0).length_squared(), &[i0]) else {
        return;
    };
    let p1 = p(&pts[i1]);
    let area = |u: V, v: V, q: V| cross(v - u, q - u).dot(n);
    let Some((i2, _)) = argmax(&|q| area(p0, p1, q).abs(), &[i0, i1]) else {
        return;
    };
    let p2 = p(&pts[i2]);
    // The triangle counter-clockwise about n.
    let tri = if area(p0, p1, p2) >= 0.0 {
        [p0, p1, p2]
    } else {
        [p0, p2, p1]
    };
    let added = |q: V| {
        (0..3)
            .map(|k| -area(tri[k], tri[(k + 1) % 3], q))
            .fold(0.0, f64::max)
    };
    let mut keep = vec![i0, i1, i2];
    if let Some((i3, a)) = argmax(&added, &[i0, i1, i2]) {
        if a > 0.0 {
            keep.push(i3);
        }
    }
    let kept: Vec<ContactPoint<V>> = keep.iter().map(|&i| pts[i]).collect();
    *pts = kept;
}
