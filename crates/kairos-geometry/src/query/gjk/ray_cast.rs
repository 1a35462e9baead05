//! The GJK ray cast on the Minkowski difference: how far `b` may translate before it comes
//! within a tolerance of `a` (the start of the time of impact of translating polytopes).

use super::simplex::{closest_on_simplex, Simplex4};
use super::support::{support_in_a, CoreSupport, Relative};
use super::{GjkCache, MAX_POINTS};
use crate::math::{Rotation, Vector};
use crate::shape::Pose;

/// How [`ray_cast`] ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::query) enum RayCast {
    /// At `λ` the cores are within `tol` (to rounding); the cache holds the final simplex.
    Hit(f64),
    /// The ray misses the Minkowski difference up to `λ_max`: a separating plane the ray
    /// leaves (or never reaches before `λ_max`).
    Miss,
    /// Not converged (iteration limit, rounding): no contact before `λ`, a safe time to go on
    /// from.
    Stalled(f64),
}

/// The GJK ray cast (van den Bergen, *Ray casting against general convex objects with
/// application to continuous collision detection*, 2004; *Collision Detection in Interactive
/// 3D Environments*, 2003, §5.7.2): a `λ ∈ [0, λ_max]` at which `b`, translated by `λ u`
/// (world frame, `u` the velocity of `b` relative to `a`), is within `tol` of `a` (cores, no
/// radii) and before which it never came within `tol/2`, in one GJK-like loop on the Minkowski difference `C = A − B` with the
/// origin moved to the ray point `x = λ u'` (`u'` = `u` in `a`'s frame): contact at `λ` is
/// `x ∈ C`.
///
/// The simplex holds support points `c` of `C`; `v` is the point of `conv{x − c}` nearest the
/// origin, so `|v|` bounds the distance of `x` to `C` from above. Each iteration takes
/// `c = s_C(v)` and `w = x − c`: when `v·w > (tol/2)|v|`, the plane `{y : v·y = v·c}` separates
/// `x` from `C` by more than `tol/2`, and `x` is moved forward until that margin is `tol/2`,
/// `λ += (v·w − |v| tol/2) / (−v·u')` (no point of `C` lies beyond the plane, so no contact is
/// skipped), or, when the ray does not approach the plane (`v·u' ≥ 0`), it never meets `C`.
/// The loop stops when `|v| ≤ tol`. Every `λ` it reaches is before the first contact (to
/// rounding), as conservative advancement's steps are.
#[allow(clippy::too_many_arguments)]
pub(in crate::query) fn ray_cast<V, A, B>(
    a: &A,
    pose_a: &Pose<V>,
    b: &B,
    pose_b: &Pose<V>,
    u: V,
    lambda_max: f64,
    tol: f64,
    max_iterations: u32,
    cache: &mut GjkCache<V>,
) -> RayCast
where
    V: Vector,
    A: CoreSupport<V> + ?Sized,
    B: CoreSupport<V> + ?Sized,
{
    let rel = Relative::new(pose_a, pose_b);
    let u = pose_a.rotation.inverse_rotate(u);
    let half = 0.5 * tol;
    let mut s = Simplex4::new();
    let d = rel.offset;
    let d = if d.length_squared() > 0.0 && d.is_finite() {
        -d
    } else {
        V::unit(0)
    };
    // Here `points[i].w` is the support point `c_i` of C itself, not `x − c_i`.
    s.push(support_in_a(a, b, &rel, d));
    s.lambda[0] = 1.0;
    let mut lambda = 0.0f64;
    let mut x = V::ZERO;
    let mut v = x - s.points[0].w;
    let mut iterations = 1u32;
    let outcome = loop {
        let v2 = v.length_squared();
        if !v2.is_finite() {
            break RayCast::Stalled(lambda);
        }
        if v2 <= tol * tol || s.len == V::DIM + 1 {
            break RayCast::Hit(lambda);
        }
        if iterations >= max_iterations {
            break RayCast::Stalled(lambda);
        }
        let p = support_in_a(a, b, &rel, v);
        iterations += 1;
        let vw = v.dot(x - p.w);
        let vlen = v2.sqrt();
        let mut moved = false;
        if vw > half * vlen {
            let vu = v.dot(u);
            if !(vu < 0.0) {
                break RayCast::Miss;
            }
            let next = lambda - (vw - half * vlen) / vu;
            if !(next <= lambda_max) {
                break RayCast::Miss;
            }
            if next > lambda {
                lambda = next;
                x = u * lambda;
                moved = true;
            }
        }
        let fresh = !s.points[..s.len].iter().any(|q| q.w == p.w);
        if !moved && !fresh {
            // Nothing new: rounding stops the progress.
            break RayCast::Stalled(lambda);
        }
        let mut w = [V::ZERO; MAX_POINTS];
        for (w, q) in w.iter_mut().zip(&s.points[..s.len]) {
            *w = x - q.w;
        }
        let mut n = s.len;
        if fresh {
            w[n] = x - p.w;
            n += 1;
        }
        let (l, vn) = closest_on_simplex(&w[..n]);
        if !moved && vn.length_squared() >= v2 {
            break RayCast::Stalled(lambda);
        }
        if fresh {
            s.push(p);
        }
        s.keep(l, vn);
        v = vn;
    };
    cache.len = s.len;
    for i in 0..s.len {
        cache.local_a[i] = s.points[i].local_a;
        cache.local_b[i] = s.points[i].local_b;
        cache.id_a[i] = s.points[i].id_a;
        cache.id_b[i] = s.points[i].id_b;
    }
    outcome
}
