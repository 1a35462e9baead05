//! When a moving ball's bounding box overlaps a fixed box: the times at which a broad phase
//! that compares boxes (every one of them, for a body against a wall) can pair a body with a
//! wall. A contact, or any event, of a body with a static piece outside these times would be
//! one that some broad phase never asks for.

use crate::math::{Aabb, Vector};

/// Relative growth of the ball's radius and of the box in [`box_windows`], so that round-off
/// in the roots only widens the windows.
const GROWTH: f64 = 1e-9;

/// The intervals of relative time `s >= 0` (sorted, disjoint, at most 4) in which the box of a
/// ball of radius `r` whose centre is at `c + v s + acc s² / 2` overlaps `bx` (grown by a
/// relative `1e-9`, so that they only ever contain the exact ones). Empty when it never does;
/// the last interval may end at `+inf`. No NaN: a non-finite input gives no window.
pub fn box_windows<V: Vector>(c: V, v: V, acc: V, r: f64, bx: &Aabb<V>) -> Vec<(f64, f64)> {
    let (c, v, acc) = (c.to_array3(), v.to_array3(), acc.to_array3());
    let (lo, hi) = (bx.min.to_array3(), bx.max.to_array3());
    let mut knots = vec![0.0];
    let mut bands = [(0.0, 0.0); 3];
    for k in 0..V::DIM {
        let slack = GROWTH * (r + (hi[k] - lo[k]) + lo[k].abs().max(hi[k].abs()) + c[k].abs());
        let band = (lo[k] - r - slack, hi[k] + r + slack);
        if !(band.0.is_finite() && band.1.is_finite() && c[k].is_finite()) {
            return Vec::new();
        }
        bands[k] = band;
        for level in [band.0, band.1] {
            roots(0.5 * acc[k], v[k], c[k] - level, &mut knots);
        }
    }
    knots.retain(|s| s.is_finite() && *s >= 0.0);
    knots.sort_by(f64::total_cmp);
    knots.dedup();
    let inside = |s: f64| {
        (0..V::DIM).all(|k| {
            let x = c[k] + s * (v[k] + 0.5 * acc[k] * s);
            bands[k].0 <= x && x <= bands[k].1
        })
    };
    let mut out: Vec<(f64, f64)> = Vec::new();
    let last = *knots.last().unwrap_or(&0.0);
    // Each knot, and each stretch between two knots (at its middle), with the stretch after
    // the last knot.
    let mut push = |s0: f64, s1: f64| match out.last_mut() {
        Some(w) if w.1 >= s0 => w.1 = w.1.max(s1),
        _ => out.push((s0, s1)),
    };
    for (i, &s) in knots.iter().enumerate() {
        let next = knots.get(i + 1).copied();
        // Round-off in the knot itself: the stretches on either side decide, so a knot counts
        // with each side that is inside.
        if inside(s) {
            push(s, s);
        }
        let (mid, end) = match next {
            Some(n) => (0.5 * (s + n), n),
            None => (2.0 * last + 1.0, f64::INFINITY),
        };
        if inside(mid) {
            push(s, end);
        }
    }
    out
}

/// The real roots of `a s² + b s + c` (or of `b s + c` when `a = 0`), appended to `out`.
fn roots(a: f64, b: f64, c: f64, out: &mut Vec<f64>) {
    if a == 0.0 {
        if b != 0.0 {
            out.push(-c / b);
        }
        return;
    }
    let disc = b * b - 4.0 * a * c;
    if !(disc >= 0.0) {
        // No real root, or a double root lost to round-off: the apex, where the value is
        // nearest the level, stands in for it (a knot only splits a stretch).
        out.push(-b / (2.0 * a));
        return;
    }
    let q = -0.5 * (b + b.signum() * disc.sqrt());
    out.push(q / a);
    if q != 0.0 {
        out.push(c / q);
    }
    out.push(-b / (2.0 * a));
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec2;

    fn bx(min: [f64; 2], max: [f64; 2]) -> Aabb<DVec2> {
        Aabb {
            min: DVec2::from(min),
            max: DVec2::from(max),
        }
    }

    #[test]
    fn a_ball_at_rest_overlaps_always_or_never() {
        let wall = bx([10.0, 0.0], [10.0, 10.0]);
        let w = box_windows(DVec2::new(7.0, 5.0), DVec2::ZERO, DVec2::ZERO, 0.71, &wall);
        assert!(w.is_empty(), "{w:?}");
        let w = box_windows(DVec2::new(9.5, 5.0), DVec2::ZERO, DVec2::ZERO, 0.71, &wall);
        assert_eq!(w, vec![(0.0, f64::INFINITY)]);
    }

    #[test]
    fn a_moving_ball_enters_and_leaves() {
        let wall = bx([10.0, 0.0], [10.0, 10.0]);
        // Moving along y past the wall's end at x = 9.5: inside while y <= 10 + 1.
        let w = box_windows(
            DVec2::new(9.5, 5.0),
            DVec2::new(0.0, 1.0),
            DVec2::ZERO,
            1.0,
            &wall,
        );
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].0, 0.0);
        assert!((w[0].1 - 6.0).abs() < 1e-6, "{w:?}");
        // Thrown up through a box under gravity: in on the way up, out, in again on the way
        // down.
        let lid = bx([-1.0, 2.0], [1.0, 3.0]);
        let w = box_windows(
            DVec2::new(0.0, 0.0),
            DVec2::new(0.0, 10.0),
            DVec2::new(0.0, -10.0),
            0.5,
            &lid,
        );
        assert_eq!(w.len(), 2, "{w:?}");
        // y = 10 s - 5 s²: y = 1.5 at s = 0.1633, 3.5 at 0.4523, back at 1.5477 and 1.8367.
        for (got, want) in [w[0].0, w[0].1, w[1].0, w[1].1]
            .into_iter()
            .zip([0.16334, 0.45228, 1.54772, 1.83666])
        {
            assert!((got - want).abs() < 1e-4, "{w:?}");
        }
    }

    #[test]
    fn no_nan_leaves() {
        let wall = bx([0.0, 0.0], [1.0, 1.0]);
        let w = box_windows(
            DVec2::new(f64::NAN, 0.0),
            DVec2::ZERO,
            DVec2::ZERO,
            1.0,
            &wall,
        );
        assert!(w.is_empty());
    }
}
