//! Closest points and distances of triangles and segments, the primitives of the mesh
//! distances ([`super::distance`]) and of the sphere trees' leaf tests ([`super::tree`]).
//!
//! The closest points of a point and a triangle, and of two segments, are Ericson's
//! (*Real-Time Collision Detection*, 5.1.5 and 5.1.9). Two triangles that do not intersect are
//! closest at a vertex of one and the other triangle, or at an edge of each; they intersect
//! exactly when an edge of one crosses the other (then their distance is 0).

/// A point or vector.
pub(super) type P = [f64; 3];

pub(super) fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub(super) fn add(a: P, b: P) -> P {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub(super) fn scale(a: P, s: f64) -> P {
    [a[0] * s, a[1] * s, a[2] * s]
}
pub(super) fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub(super) fn cross(a: P, b: P) -> P {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
pub(super) fn dist(a: P, b: P) -> f64 {
    dot(sub(a, b), sub(a, b)).sqrt()
}

/// The point of triangle `a b c` closest to `p`.
pub fn closest_on_triangle(p: P, a: P, b: P, c: P) -> P {
    let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
    let (d1, d2) = (dot(ab, ap), dot(ac, ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = sub(p, b);
    let (d3, d4) = (dot(ab, bp), dot(ac, bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return add(a, scale(ab, d1 / (d1 - d3)));
    }
    let cp = sub(p, c);
    let (d5, d6) = (dot(ab, cp), dot(ac, cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return add(a, scale(ac, d2 / (d2 - d6)));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return add(b, scale(sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
    }
    let denom = 1.0 / (va + vb + vc);
    add(a, add(scale(ab, vb * denom), scale(ac, vc * denom)))
}

/// The distance of segments `p1 q1` and `p2 q2`.
pub fn segment_distance(p1: P, q1: P, p2: P, q2: P) -> f64 {
    let (s, t) = segment_closest(p1, q1, p2, q2);
    dist(
        add(p1, scale(sub(q1, p1), s)),
        add(p2, scale(sub(q2, p2), t)),
    )
}

/// The parameters `(s, t)` in `[0, 1]` of the closest points `p1 + s (q1 − p1)` and
/// `p2 + t (q2 − p2)` of segments `p1 q1` and `p2 q2` (Ericson, *Real-Time Collision
/// Detection*, §5.1.9).
pub(super) fn segment_closest(p1: P, q1: P, p2: P, q2: P) -> (f64, f64) {
    let (d1, d2, r) = (sub(q1, p1), sub(q2, p2), sub(p1, p2));
    let (a, e, f) = (dot(d1, d1), dot(d2, d2), dot(d2, r));
    let (s, t);
    if a <= f64::MIN_POSITIVE && e <= f64::MIN_POSITIVE {
        return (0.0, 0.0);
    }
    if a <= f64::MIN_POSITIVE {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = dot(d1, r);
        if e <= f64::MIN_POSITIVE {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            let s0 = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    (s, t)
}

/// Whether `p`'s nearest point on triangle `q` is inside it, off its edges (by more than
/// round-off of its size).
pub(super) fn inside_triangle(p: P, q: [P; 3]) -> bool {
    let c = closest_on_triangle(p, q[0], q[1], q[2]);
    let size = dist(q[0], q[1]).max(dist(q[1], q[2])).max(dist(q[2], q[0]));
    (0..3).all(|i| segment_distance(c, c, q[i], q[(i + 1) % 3]) > 1e-9 * size)
}

/// Whether edges `a` and `b` cross in the common sense: not parallel, and their closest points
/// inside both (not at an end of either).
pub(super) fn crossing(a: [P; 2], b: [P; 2]) -> bool {
    let (da, db) = (sub(a[1], a[0]), sub(b[1], b[0]));
    let c = cross(da, db);
    let sin2 = dot(c, c) / (dot(da, da) * dot(db, db));
    let (s, u) = segment_closest(a[0], a[1], b[0], b[1]);
    let inside = |x: f64| x > 1e-6 && x < 1.0 - 1e-6;
    sin2 > 1e-12 && inside(s) && inside(u)
}

/// Whether segment `p q` crosses or touches triangle `a b c`.
fn segment_meets_triangle(p: P, q: P, a: P, b: P, c: P) -> bool {
    let n = cross(sub(b, a), sub(c, a));
    let (dp, dq) = (dot(n, sub(p, a)), dot(n, sub(q, a)));
    if (dp > 0.0 && dq > 0.0) || (dp < 0.0 && dq < 0.0) || dp == dq {
        return false;
    }
    let s = dp / (dp - dq);
    let x = add(p, scale(sub(q, p), s));
    let edge = |u: P, v: P| dot(cross(sub(v, u), sub(x, u)), n) >= 0.0;
    edge(a, b) && edge(b, c) && edge(c, a)
}

/// The distance of two triangles (0 when they intersect).
pub fn triangle_distance(t1: [P; 3], t2: [P; 3]) -> f64 {
    for i in 0..3 {
        let (p, q) = (t1[i], t1[(i + 1) % 3]);
        if segment_meets_triangle(p, q, t2[0], t2[1], t2[2]) {
            return 0.0;
        }
        let (p, q) = (t2[i], t2[(i + 1) % 3]);
        if segment_meets_triangle(p, q, t1[0], t1[1], t1[2]) {
            return 0.0;
        }
    }
    let mut best = f64::INFINITY;
    for k in 0..3 {
        best = best.min(dist(t1[k], closest_on_triangle(t1[k], t2[0], t2[1], t2[2])));
        best = best.min(dist(t2[k], closest_on_triangle(t2[k], t1[0], t1[1], t1[2])));
        for j in 0..3 {
            best = best.min(segment_distance(
                t1[k],
                t1[(k + 1) % 3],
                t2[j],
                t2[(j + 1) % 3],
            ));
        }
    }
    best
}
