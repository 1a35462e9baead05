use super::{first_contact, Toi, ToiStatus};
use crate::body::Body;
use crate::math::Vector;

/// Next time at which a ball's centre reaches a face of the periodic box `[0, L]^d`, with the
/// face's code `2 * axis + (1 if leaving through the upper face)`. `(+inf, 0)` for a ball at
/// rest. A pure function of the stored state; ties go to the lower axis.
#[inline]
pub fn box_exit<V: Vector>(b: &Body<V>, period: V) -> (f64, u32) {
    let (pos, vel, l) = (b.pos.to_array3(), b.vel.to_array3(), period.to_array3());
    let mut best = (f64::INFINITY, 0);
    // No indexing by a runtime axis, so that the axes unroll into straight code. An axis
    // along which the ball is at rest gives no exit.
    for axis in 0..V::DIM {
        let v = vel[axis];
        let up = v > 0.0;
        let face = if up { l[axis] } else { 0.0 };
        let t = b.time + ((face - pos[axis]) / v).max(0.0);
        let t = if v == 0.0 || v.is_nan() {
            f64::INFINITY
        } else {
            t
        };
        if t < best.0 {
            best = (t, 2 * axis as u32 + up as u32);
        }
    }
    best
}

/// Half-width of an image's slab along an axis: the contact distance padded for round-off both
/// in `sigma` and in the coordinates (the unshifted relative coordinate `x`, up to `2 L` in
/// magnitude, and the box length `l`). Shared like [`slab_interval`].
#[inline(always)]
fn slab_half_width(sigma: f64, x: f64, l: f64) -> f64 {
    sigma * (1.0 + 1e-9) + 4.0 * f64::EPSILON * (x.abs() + l)
}

/// The times in `[0, span]` at which a relative coordinate `y + v t` lies within `[-slab,
/// slab]`, or `None` (also for NaN): one axis of an image's slab test. Shared by the full
/// periodic prediction and its minimum image, so that both compute the same bits.
#[inline(always)]
fn slab_interval(y: f64, v: f64, slab: f64, span: f64) -> Option<(f64, f64)> {
    let (t0, t1) = if v == 0.0 {
        if y.abs() > slab {
            return None;
        }
        (0.0, span)
    } else {
        let inv = 1.0 / v;
        let (a, b) = ((-slab - y) * inv, (slab - y) * inv);
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        (a.max(0.0), b.min(span))
    };
    // `!(t0 <= t1)` also drops NaN intervals.
    (t0 <= t1).then_some((t0, t1))
}

/// Time at which two balls in a periodic box first touch, through any periodic image, as an
/// absolute time; only contacts before either ball's next box exit are reported.
///
/// Both balls stay inside the box `[0, L]^d` until `window_end = min(exit_i, exit_j)` (the
/// simulator wraps a ball when it exits), so their relative position stays in `(-L, L)^d`.
/// Along each axis, only the image shifts `k L` (`k` in `-1..=1`) whose relative coordinate
/// comes within `sigma` during the window are kept (a slab test per axis, with `sigma` padded
/// by a relative `1e-9` so that it only prunes), and an image is solved by [`first_contact`]
/// only if its slabs' time intervals intersect. The earliest contact inside the window is
/// returned. A later contact is found again when the exiting ball is wrapped (its state
/// changes, so the pair is predicted anew). Exact up to round-off, a pure function of the two
/// stored states and the box, and symmetric.
#[inline]
pub fn ball_ball_periodic<V: Vector>(bi: &Body<V>, bj: &Body<V>, period: V) -> Toi {
    let window_end = box_exit(bi, period).0.min(box_exit(bj, period).0);
    ball_ball_periodic_until(bi, bj, period, window_end)
}

/// [`ball_ball_periodic`] with the window's end given: `min` of the two balls' [`box_exit`]
/// times (for callers that cache them; any other value gives a different function).
#[inline]
pub fn ball_ball_periodic_until<V: Vector>(
    bi: &Body<V>,
    bj: &Body<V>,
    period: V,
    window_end: f64,
) -> Toi {
    let t_ref = bi.time.max(bj.time);
    let d = bi.position_at(t_ref) - bj.position_at(t_ref);
    let w = bi.vel - bj.vel;
    let sigma = bi.radius + bj.radius;
    let span = (window_end - t_ref).max(0.0);
    // Per axis: the surviving shifts and the time interval of each within the window.
    let mut shifts = [[0.0f64; 3]; 3];
    let mut intervals = [[(0.0f64, 0.0f64); 3]; 3];
    let mut counts = [1usize; 3];
    for axis in 0..V::DIM {
        let (x, v, l) = (d.comp(axis), w.comp(axis), period.comp(axis));
        let slab = slab_half_width(sigma, x, l);
        let mut n = 0;
        for k in [-1.0, 0.0, 1.0] {
            let s = k * l;
            let y = x + s;
            let Some((t0, t1)) = slab_interval(y, v, slab, span) else {
                continue;
            };
            shifts[axis][n] = s;
            intervals[axis][n] = (t0, t1);
            n += 1;
        }
        if n == 0 {
            return Toi::miss(ToiStatus::Separating);
        }
        counts[axis] = n;
    }
    let mut best = Toi::miss(ToiStatus::Separating);
    for ix in 0..counts[0] {
        for iy in 0..counts[1] {
            for iz in 0..counts[2] {
                let idx = [ix, iy, iz];
                let (mut lo, mut hi) = (0.0f64, span);
                let mut shift = V::ZERO;
                for (axis, &k) in idx.iter().enumerate().take(V::DIM) {
                    lo = lo.max(intervals[axis][k].0);
                    hi = hi.min(intervals[axis][k].1);
                    shift += V::unit(axis) * shifts[axis][k];
                }
                if !(lo <= hi) {
                    continue;
                }
                let mut toi = first_contact(d + shift, w, sigma);
                if toi.is_hit() {
                    toi.time += t_ref;
                    if toi.time <= window_end && toi.time < best.time {
                        best = toi;
                    }
                } else if !best.is_hit() && toi.status == ToiStatus::Grazing {
                    best = toi;
                }
            }
        }
    }
    best
}

/// True only when [`ball_ball_periodic_until`]`(bi, bj, period, end)` cannot report a contact at
/// a time `<= t_max`, whatever `end`: a cheap, conservative rejection for callers that only use
/// contacts no later than a known time (the calendar keeps a body's earliest event so far). A
/// `false` says nothing; the caller then evaluates the prediction itself, so results stay
/// bit-identical.
///
/// The proof works on the very numbers `first_contact` computes for each image `D = d + k L`
/// (same `t_ref`, `d`, `w`, `sigma`, same expressions, so the same bits):
///
/// * The minimum image `k` (per axis `-1`, `0` or `1`, so that `|y| <= L/2` when `|x| <= L`)
///   is the candidate; every other image `k'` of the nine (or 27) has `|y'| >= L/2` (up to a
///   relative round-off) on some axis, hence `|D'| >= L/2 (1 - 1e-9)`.
/// * Whenever `first_contact` returns a hit with `c > 0`, its time is
///   `t = c / (sqrt(disc) - b)` with `disc = fl(b b - a c) <= fl(b b)` (rounding is monotone and
///   `a c >= 0`), so the denominator is at most `2 |b| (1 + 4 eps)` and
///   `t >= c / (2 |b|) (1 - 6 eps)`. For the other images, `|b| <= |D| |w| (1 + 3 eps)` and, when
///   `|D| >= sigma (1 + 1e-6)`, `c >= (|D|^2 - sigma^2)(1 - 1e-9)` (the cancellation is at most
///   `1e6`-fold), so `t >= (|D| - sigma) / (2 |w|) (1 - 1e-8)`.
/// * With `S = max(t_max - t_ref, 0) (1 + 1e-6) + 1e-9 (|t_max| + |t_ref|) + 1e-300`, an image
///   whose relative time `t` exceeds `S` reports `fl(t + t_ref) > t_max`: `t + t_ref` exceeds
///   `t_max` by more than `1e-9 (|t_max| + |t_ref|)`, which is more than an ulp of `t_max` (and
///   positive when both are 0), and rounding is monotone.
///
/// So the rejection holds when `L/2 (1 - 1e-9) > sigma (1 + 1e-6) + 2 |w|_1 (1 + 1e-6) S` (no
/// other image can report before `t_max`) and the minimum image either separates
/// (`!(b < 0)`: `first_contact` reports no contact) or has `c > 0` and
/// `c > 2 |b| S (1 + 1e-6)` (its time exceeds `S`). Nothing else is needed: the function's
/// result is the earliest of its images' reports, and its slab tests only drop images.
#[inline]
pub fn ball_ball_periodic_cannot_hit_by<V: Vector>(
    bi: &Body<V>,
    bj: &Body<V>,
    period: V,
    t_max: f64,
) -> bool {
    matches!(
        PeriodicScreen::of(bi, bj, period, t_max),
        PeriodicScreen::Reject
    )
}

/// What [`PeriodicScreen::of`] found out about a pair's periodic prediction, for a caller that
/// only uses contacts no later than a time `t_max`.
#[derive(Clone, Copy, Debug)]
pub enum PeriodicScreen<V: Vector> {
    /// [`ball_ball_periodic_until`] cannot report a contact at a time `<= t_max`, whatever the
    /// window's end ([`ball_ball_periodic_cannot_hit_by`] is true).
    Reject,
    /// No image but the minimum one can report a contact at a time `<= t_max`:
    /// [`MinImage::contact_until`] decides (see there).
    MinImage(MinImage<V>),
    /// Neither: only the full [`ball_ball_periodic_until`] decides.
    Full,
}

/// The minimum image of a pair, as [`ball_ball_periodic_until`] computes it.
#[derive(Clone, Copy, Debug)]
pub struct MinImage<V: Vector> {
    t_ref: f64,
    /// Relative position at `t_ref` before the shift, and after it (the minimum image).
    d: V,
    y: V,
    w: V,
    sigma: f64,
    period: V,
}

/// The numbers of a pair's [`PeriodicScreen`] verdict that do not depend on the time limit:
/// computed once per pair, they tell whether the screen rejects the pair for any `t_max`
/// ([`PairScreen::rejects`]), so a caller may screen a batch of pairs and pick out the
/// survivors as its limit falls. Every number is the one [`PeriodicScreen::of`] computes, and
/// nothing here branches on the data.
///
/// The numbers do not depend on the pair's order (up to the signs of zeros, which no verdict
/// sees): swapping the bodies leaves `t_ref` and `sigma` alone and negates the relative
/// position and velocity exactly (`a - b = -(b - a)` in round-to-nearest), the minimum-image
/// shift with them (`x > L/2` exactly when `-x < -L/2`), so `b`, `c`, `|w|_1` and `inside` are
/// the same bits. A caller may thus screen body `i` against each candidate in one order.
#[derive(Clone, Copy, Debug)]
pub struct PairScreen {
    t_ref: f64,
    sigma: f64,
    /// `y . w` and `y . y - sigma^2` of the minimum image `y`.
    b: f64,
    c: f64,
    /// `|w|_1`.
    w1: f64,
    /// Half the shortest box side.
    half: f64,
    /// The relative position lies inside `(-L, L)` on every axis.
    inside: bool,
}

impl PairScreen {
    /// The screen's numbers for the pair `(bi, bj)` in the box `period`.
    #[inline(always)]
    pub fn new<V: Vector>(bi: &Body<V>, bj: &Body<V>, period: V) -> Self {
        Self::with_image(bi, bj, period).0
    }

    /// [`PairScreen::new`] and the pair's minimum image.
    #[inline(always)]
    fn with_image<V: Vector>(bi: &Body<V>, bj: &Body<V>, period: V) -> (Self, MinImage<V>) {
        let t_ref = bi.time.max(bj.time);
        let d = bi.position_at(t_ref) - bj.position_at(t_ref);
        let w = bi.vel - bj.vel;
        let sigma = bi.radius + bj.radius;
        let (d3, l3, w3) = (d.to_array3(), period.to_array3(), w.to_array3());
        let mut y3 = [0.0f64; 3];
        let mut inside = true;
        let mut half = f64::INFINITY;
        // `|w|_1 >= |w|`: a cheaper, larger reach (it only rejects less).
        let mut w1 = 0.0f64;
        for axis in 0..V::DIM {
            let (x, l) = (d3[axis], l3[axis]);
            // `!(<=)` also refuses NaN.
            inside &= x.abs() <= l;
            let h = 0.5 * l;
            // The shift `k L` of `ball_ball_periodic_until` for `k = -1, 1, 0` (same bits).
            let shift = if x > h {
                -l
            } else if x < -h {
                l
            } else {
                0.0
            };
            y3[axis] = x + shift;
            half = half.min(h);
            w1 += w3[axis].abs();
        }
        let y = V::from_array3(y3);
        let screen = Self {
            t_ref,
            sigma,
            b: y.dot(w),
            c: y.dot(y) - sigma * sigma,
            w1,
            half,
            inside,
        };
        let image = MinImage {
            t_ref,
            d,
            y,
            w,
            sigma,
            period,
        };
        (screen, image)
    }

    /// A heuristic ordering of pairs by how soon their minimum images might touch (an earlier
    /// `key` is likelier to be an early contact): `t_ref + c / (-2 b)` for an approaching pair,
    /// `+inf` otherwise. It decides nothing, so it carries no round-off argument.
    #[inline(always)]
    pub fn key(&self) -> f64 {
        let k = self.t_ref + self.c / (-2.0 * self.b);
        if self.b < 0.0 {
            k
        } else {
            f64::INFINITY
        }
    }

    /// Whether the screen hands the pair to the full prediction, and whether it rejects it, for
    /// contacts no later than `t_max` (never both).
    #[inline(always)]
    fn verdicts(&self, t_max: f64) -> (bool, bool) {
        // Meaningless for an infinite `t_max`, which is refused below.
        let s = screen_span(t_max, self.t_ref, self.t_ref.abs());
        let full =
            !(t_max.is_finite() & self.inside & only_min_image(self.half, self.sigma, self.w1, s));
        let (b, c) = (self.b, self.c);
        // `!(b < 0)` also takes NaN.
        let reject = !(b < 0.0) | ((c > 0.0) & (c > 2.0 * (-b) * s * (1.0 + 1e-6)));
        (full, !full & reject)
    }

    /// True when [`PeriodicScreen::of`] for `t_max` is [`PeriodicScreen::Reject`]; computed
    /// without branches. Every step is monotone in a non-negative `t_max` (times are never
    /// negative in a simulation), so a pair rejected for some `t_max >= 0` is rejected for
    /// every smaller `t_max >= 0`.
    #[inline(always)]
    pub fn rejects(&self, t_max: f64) -> bool {
        self.verdicts(t_max).1
    }
}

/// The screen's padded time span `S` for contacts no later than `t_max` of a pair predicted
/// from `t_ref` (`t_ref_abs` is `|t_ref|`, or a bound on it); see
/// [`ball_ball_periodic_cannot_hit_by`].
#[inline(always)]
fn screen_span(t_max: f64, t_ref: f64, t_ref_abs: f64) -> f64 {
    (t_max - t_ref).max(0.0) * (1.0 + 1e-6) + 1e-9 * (t_max.abs() + t_ref_abs) + 1e-300
}

/// Whether no image but the minimum one can come within `sigma` over the span `s` at the
/// relative speed bound `w1`, in a box whose shortest half side is `half` (false for NaN).
#[inline(always)]
fn only_min_image(half: f64, sigma: f64, w1: f64, s: f64) -> bool {
    let reach = sigma * (1.0 + 1e-6) + 2.0 * w1 * (1.0 + 1e-6) * s;
    half * (1.0 - 1e-9) > reach
}

/// A bound over a batch of [`PairScreen`]s (one body's candidates), so that the pairs its
/// screen may keep for a limit `t_max` are picked out by one comparison each:
/// [`ScreenBatch::key_bound`] gives a time `T` such that every pair of the batch whose
/// [`PairScreen::key`] exceeds `T` is rejected by [`PairScreen::rejects`]`(t_max)`. It only
/// prunes: a pair it keeps is screened exactly again.
///
/// Why: the bound is only given when no pair of the batch is handed to the full prediction.
/// Every step of that verdict is monotone in the pair's `sigma`, `|w|_1`, `|t_ref|` and in
/// `t_max - t_ref` (sums and products of non-negative numbers, and rounding is monotone), so
/// the same expressions evaluated with the batch's largest `sigma`, `|w|_1`, `|t_ref|` and
/// smallest `t_ref` bound every pair's; NaN states fail `inside` (or are caught explicitly),
/// and then no bound is given. A pair that is not handed on is kept only when `b < 0` and
/// `c <= 0` (its key is then at most `t_ref <= U`, with `U = max(t_max, t_ref_max)`) or when
/// `c <= fl(fl(2 (-b) s) (1 + 1e-6))`, so `fl(c / (-2 b)) <= s (1 + 1e-6) (1 + eps)^3` with
/// the pair's `s <= ((t_max - t_ref)^+ (1 + 1e-6) + 1e-9 (|t_max| + |t_ref|) + 1e-300)
/// (1 + eps)^4`. Its key, `fl(t_ref + fl(c / (-2 b)))`, is then at most
/// `U + 2.0001e-6 R + 1.000003e-9 A + 1.01e-300` with `R = U - t_ref_min` and
/// `A = |t_max| + max |t_ref|` (the last rounding adds at most `eps 2 A`).
/// `T = U + 3e-6 R + 2e-9 A + 1e-299`, evaluated in floating point, exceeds that: its own
/// roundings lose less than `1e-15 A`, and `R` and `A` are rounded by at most one part in
/// `2^53`. A NaN key is never above `T`, so it is kept.
#[derive(Clone, Copy, Debug)]
pub struct ScreenBatch {
    t_ref_min: f64,
    t_ref_max: f64,
    t_ref_abs: f64,
    sigma: f64,
    w1: f64,
    half: f64,
    /// Every pair so far lies `inside` and has a non-NaN `sigma` and `|w|_1`.
    ok: bool,
}

impl Default for ScreenBatch {
    fn default() -> Self {
        Self::new()
    }
}

impl ScreenBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self {
            t_ref_min: f64::INFINITY,
            t_ref_max: f64::NEG_INFINITY,
            t_ref_abs: 0.0,
            sigma: f64::NEG_INFINITY,
            w1: 0.0,
            half: f64::INFINITY,
            ok: true,
        }
    }

    /// Adds a pair's screen; no branch on the data. The extremes are plain selects (a NaN
    /// would be skipped by them, but it clears `ok`: a NaN `t_ref` makes the relative position
    /// NaN, so the pair is not `inside`).
    #[inline(always)]
    pub fn add(&mut self, s: &PairScreen) {
        let pick = |keep: bool, a: f64, b: f64| if keep { a } else { b };
        self.t_ref_min = pick(self.t_ref_min < s.t_ref, self.t_ref_min, s.t_ref);
        self.t_ref_max = pick(self.t_ref_max > s.t_ref, self.t_ref_max, s.t_ref);
        let abs = s.t_ref.abs();
        self.t_ref_abs = pick(self.t_ref_abs > abs, self.t_ref_abs, abs);
        self.sigma = pick(self.sigma > s.sigma, self.sigma, s.sigma);
        self.w1 = pick(self.w1 > s.w1, self.w1, s.w1);
        // The same for every pair of a box.
        self.half = s.half;
        self.ok &= s.inside & !s.sigma.is_nan() & !s.w1.is_nan();
    }

    /// Folds in the extremes of pairs screened by `kairos_hint::screen` in the box `period`
    /// (what [`ScreenBatch::add`] folds for each of them).
    pub fn merge<V: Vector>(&mut self, e: &kairos_hint::screen::Extremes, period: V) {
        let pick = |keep: bool, a: f64, b: f64| if keep { a } else { b };
        self.t_ref_min = pick(self.t_ref_min < e.t_ref_min, self.t_ref_min, e.t_ref_min);
        self.t_ref_max = pick(self.t_ref_max > e.t_ref_max, self.t_ref_max, e.t_ref_max);
        self.t_ref_abs = pick(self.t_ref_abs > e.t_ref_abs, self.t_ref_abs, e.t_ref_abs);
        self.sigma = pick(self.sigma > e.sigma, self.sigma, e.sigma);
        self.w1 = pick(self.w1 > e.w1, self.w1, e.w1);
        let l = period.to_array3();
        self.half = (0..V::DIM).fold(f64::INFINITY, |h, a| h.min(0.5 * l[a]));
        self.ok &= e.ok;
    }

    /// `Some(T)`: every pair of the batch with [`PairScreen::key`] `> T` is rejected by
    /// [`PairScreen::rejects`]`(t_max)` (see the type's documentation). `None` when some pair
    /// may be handed to the full prediction (a far or infinite `t_max`, or a batch with a state
    /// outside the box), or the batch is empty.
    #[inline]
    pub fn key_bound(&self, t_max: f64) -> Option<f64> {
        if !(self.ok & (self.t_ref_min <= self.t_ref_max) & t_max.is_finite()) {
            return None;
        }
        // The screen's own expressions, at the batch's extremes.
        let s = screen_span(t_max, self.t_ref_min, self.t_ref_abs);
        if !only_min_image(self.half, self.sigma, self.w1, s) {
            return None;
        }
        let u = t_max.max(self.t_ref_max);
        let r = (u - self.t_ref_min).max(0.0);
        let a = t_max.abs() + self.t_ref_abs;
        Some(u + 3e-6 * r + 2e-9 * a + 1e-299)
    }
}

impl<V: Vector> PeriodicScreen<V> {
    /// Screens the pair `(bi, bj)` for contacts no later than `t_max`; the proof of each answer
    /// is in the documentation of [`ball_ball_periodic_cannot_hit_by`] and
    /// [`MinImage::contact_until`]. `Reject` and `MinImage` are only given when the two balls'
    /// relative position lies inside `(-L, L)` on every axis (as it does for balls inside the
    /// box) and no image other than the minimum one can come within reach by `t_max`.
    #[inline(always)]
    pub fn of(bi: &Body<V>, bj: &Body<V>, period: V, t_max: f64) -> Self {
        let (screen, image) = PairScreen::with_image(bi, bj, period);
        match screen.verdicts(t_max) {
            (true, _) => PeriodicScreen::Full,
            (false, true) => PeriodicScreen::Reject,
            (false, false) => PeriodicScreen::MinImage(image),
        }
    }
}

impl<V: Vector> MinImage<V> {
    /// The minimum image's own report within the window, exactly as
    /// [`ball_ball_periodic_until`]`(bi, bj, period, window_end)` evaluates that image: its slab
    /// test, [`first_contact`], the shift to absolute time and the window's end.
    ///
    /// When the screen gave `MinImage` for `t_max`, this decides the full prediction for a
    /// caller that only uses contacts `<= t_max`: no other image can report a contact
    /// `<= t_max` (first part of the proof of [`ball_ball_periodic_cannot_hit_by`]), so the full
    /// prediction reports a contact at `t <= t_max` exactly when this one does, at the same
    /// time (it returns the earliest report of its images, and every other report is later
    /// than `t_max`).
    #[inline]
    pub fn contact_until(&self, window_end: f64) -> Toi {
        let span = (window_end - self.t_ref).max(0.0);
        let (mut lo, mut hi) = (0.0f64, span);
        for axis in 0..V::DIM {
            let (x, v, l) = (self.d.comp(axis), self.w.comp(axis), self.period.comp(axis));
            let slab = slab_half_width(self.sigma, x, l);
            let Some((t0, t1)) = slab_interval(self.y.comp(axis), v, slab, span) else {
                return Toi::miss(ToiStatus::Separating);
            };
            lo = lo.max(t0);
            hi = hi.min(t1);
        }
        if !(lo <= hi) {
            return Toi::miss(ToiStatus::Separating);
        }
        let mut toi = first_contact(self.y, self.w, self.sigma);
        if toi.is_hit() {
            toi.time += self.t_ref;
            if toi.time <= window_end {
                return toi;
            }
            return Toi::miss(ToiStatus::Separating);
        }
        toi
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec2;

    #[test]
    fn contact_through_the_image_that_is_not_the_nearest() {
        // L = 10: i at x = 1 moving right, j at rest at x = 8. The nearest image of j is at
        // x = -2 (behind i); the contact is with j itself when i reaches x = 7, at t = 6.
        let l = DVec2::new(10.0, 10.0);
        let bi = Body::new(DVec2::new(1.0, 5.0), DVec2::new(1.0, 0.0), 0.5, 1.0);
        let bj = Body::new(DVec2::new(8.0, 5.0), DVec2::ZERO, 0.5, 1.0);
        let t = ball_ball_periodic(&bi, &bj, l);
        assert!(t.is_hit());
        assert!((t.time - 6.0).abs() < 1e-12, "{}", t.time);
        assert_eq!(ball_ball_periodic(&bj, &bi, l).time, t.time);
    }

    #[test]
    fn contact_across_the_boundary() {
        // i at x = 8 moving right, j at rest at x = 0.5, whose image sits at x = 10.5: contact
        // when i reaches x = 9.5 (t = 1.5), before i exits the box at t = 2.
        let l = DVec2::new(10.0, 10.0);
        let bi = Body::new(DVec2::new(8.0, 5.0), DVec2::new(1.0, 0.0), 0.5, 1.0);
        let bj = Body::new(DVec2::new(0.5, 5.0), DVec2::ZERO, 0.5, 1.0);
        let t = ball_ball_periodic(&bi, &bj, l);
        assert!((t.time - 1.5).abs() < 1e-12, "{}", t.time);
        // Beyond the window: j's image at 10.5 is reached only after i exits, so it is not
        // reported now (it is predicted again after the wrap).
        let bk = Body::new(DVec2::new(2.5, 5.0), DVec2::ZERO, 0.5, 1.0);
        assert!(!ball_ball_periodic(&bi, &bk, l).is_hit());
    }

    /// The screen's numbers are the same for a pair in either order (random states, with
    /// local times apart and pairs across the box's faces).
    #[test]
    fn pair_screen_does_not_depend_on_the_order() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut u = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let l = DVec2::new(7.0, 9.0);
        for _ in 0..20_000 {
            let b = |u: &mut dyn FnMut() -> f64| {
                let mut body = Body::new(
                    DVec2::new(u() * l.x, u() * l.y),
                    DVec2::new(4.0 * u() - 2.0, 4.0 * u() - 2.0),
                    0.1 + u(),
                    1.0,
                );
                body.time = 3.0 * u();
                body
            };
            let (bi, bj) = (b(&mut u), b(&mut u));
            let (s, r) = (PairScreen::new(&bi, &bj, l), PairScreen::new(&bj, &bi, l));
            let fields = |p: &PairScreen| [p.t_ref, p.sigma, p.b, p.c, p.w1, p.half];
            assert_eq!(fields(&s), fields(&r), "{bi:?} {bj:?}");
            assert_eq!(s.inside, r.inside);
            assert_eq!(s.key().to_bits(), r.key().to_bits());
        }
    }

    #[test]
    fn box_exit_time() {
        let l = DVec2::new(10.0, 4.0);
        let b = Body::new(DVec2::new(5.0, 1.0), DVec2::new(1.0, -2.0), 0.5, 1.0);
        assert_eq!(box_exit(&b, l), (0.5, 2));
        let rest = Body::new(DVec2::new(5.0, 1.0), DVec2::ZERO, 0.5, 1.0);
        assert!(box_exit(&rest, l).0.is_infinite());
        // At rest along one axis: only the other one counts.
        let along_x = Body::new(DVec2::new(5.0, 2.0), DVec2::new(1.0, 0.0), 0.5, 1.0);
        assert_eq!(box_exit(&along_x, l), (5.0, 1));
        let down_y = Body::new(DVec2::new(5.0, 2.0), DVec2::new(0.0, -0.5), 0.5, 1.0);
        assert_eq!(box_exit(&down_y, l), (4.0, 2));
        // A tie goes to the lower axis.
        let tie = Body::new(DVec2::new(5.0, 1.5), DVec2::new(1.0, 0.5), 0.5, 1.0);
        assert_eq!(box_exit(&tie, l), (5.0, 1));
    }
}
