//! The first pass of the calendar's periodic screen (`kairos::ball_toi::PairScreen` and
//! `ScreenBatch`), four candidates at a time with AVX2 where the processor has it.
//!
//! Every lane does the scalar code's IEEE operations in the scalar code's order, without fused
//! multiply-adds, so each key and each extreme is the same bits as the scalar path gives (the
//! library tests it on random states); the screen's proven bounds therefore hold unchanged.
//! The caller keeps the scalar path for processors without AVX2 ([`screen_keys`] returns
//! `None`) and for other architectures.

/// The body every candidate is screened against.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Anchor {
    /// Position at `time` (components past the dimension are ignored).
    pub pos: [f64; 3],
    /// Velocity.
    pub vel: [f64; 3],
    /// The time of the stored state.
    pub time: f64,
    /// Radius.
    pub radius: f64,
}

/// A candidate's state (the same fields as [`Anchor`]).
pub type Candidate = Anchor;

/// A batch's extremes, as `ScreenBatch::add` folds them over its pairs: the smallest, largest
/// and largest absolute reference time, the largest `sigma` and `|w|_1`, and whether every pair
/// was inside the box with neither `sigma` nor `|w|_1` NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extremes {
    /// The smallest reference time (`max` of the two states' times).
    pub t_ref_min: f64,
    /// The largest reference time.
    pub t_ref_max: f64,
    /// The largest absolute reference time.
    pub t_ref_abs: f64,
    /// The largest sum of radii.
    pub sigma: f64,
    /// The largest `|w|_1` of a relative velocity.
    pub w1: f64,
    /// Every pair inside the box, with neither `sigma` nor `|w|_1` NaN.
    pub ok: bool,
}

/// Screens `keys.len()` candidates, candidate `k`'s state given by `candidate(k)`, against
/// `anchor` in the periodic box `period` of dimension `dim` (2 or 3): writes each pair's key
/// (`t_ref + c / (-2 b)` of its minimum image when approaching, `+inf` otherwise) into `keys`
/// and returns the batch's extremes; `None` (and nothing written) without AVX2, for another
/// dimension, or for no candidate. `candidate` is called once for each `k` in order (and
/// again for the last one, to fill a partial block of four).
pub fn screen_keys<F: Fn(usize) -> Candidate>(
    dim: usize,
    anchor: &Anchor,
    period: [f64; 3],
    candidate: F,
    keys: &mut [f64],
) -> Option<Extremes> {
    if keys.is_empty() || !(dim == 2 || dim == 3) {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2.
            return Some(unsafe { avx2::screen(dim, anchor, period, &candidate, keys) });
        }
    }
    let _ = (anchor, period, candidate);
    None
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Anchor, Candidate, Extremes};
    use std::arch::x86_64::*;

    /// See [`super::screen_keys`]. Safety: AVX2 is present; `dim` is 2 or 3 and `keys` not
    /// empty (else the result means nothing, but nothing unsound happens).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn screen<F: Fn(usize) -> Candidate>(
        dim: usize,
        anchor: &Anchor,
        period: [f64; 3],
        candidate: &F,
        keys: &mut [f64],
    ) -> Extremes {
        let m = keys.len();
        let ti = _mm256_set1_pd(anchor.time);
        let ri = _mm256_set1_pd(anchor.radius);
        let sign = _mm256_set1_pd(-0.0);
        let zero = _mm256_setzero_pd();
        let all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
        let (mut tmin, mut tmax, mut tabs) = (
            _mm256_set1_pd(f64::INFINITY),
            _mm256_set1_pd(f64::NEG_INFINITY),
            zero,
        );
        let (mut smax, mut wmax) = (_mm256_set1_pd(f64::NEG_INFINITY), zero);
        let mut okv = all;
        // Four candidates at a time; a last partial block repeats its last candidate in the
        // spare lanes (the same pair again changes no extreme), and stores only its own keys.
        let mut k = 0;
        while k < m {
            let c = [
                candidate(k),
                candidate((k + 1).min(m - 1)),
                candidate((k + 2).min(m - 1)),
                candidate((k + 3).min(m - 1)),
            ];
            let lanes =
                |f: fn(&Candidate) -> f64| _mm256_set_pd(f(&c[3]), f(&c[2]), f(&c[1]), f(&c[0]));
            let tj = lanes(|c| c.time);
            let rj = lanes(|c| c.radius);
            // `bi.time.max(bj.time)`: the scalar `f64::max` and `max_pd(tj, ti)` agree but for
            // NaN, where the pair is not `inside` either way.
            let t_ref = _mm256_max_pd(tj, ti);
            let dti = _mm256_sub_pd(t_ref, ti);
            let dtj = _mm256_sub_pd(t_ref, tj);
            let sigma = _mm256_add_pd(ri, rj);
            let mut inside = all;
            let (mut b, mut yy, mut w1) = (zero, zero, zero);
            for a in 0..dim {
                let pja = _mm256_set_pd(c[3].pos[a], c[2].pos[a], c[1].pos[a], c[0].pos[a]);
                let vja = _mm256_set_pd(c[3].vel[a], c[2].vel[a], c[1].vel[a], c[0].vel[a]);
                let via = _mm256_set1_pd(anchor.vel[a]);
                // `position_at`: pos + vel * (t - time) for each body, then the difference.
                let xi = _mm256_add_pd(_mm256_set1_pd(anchor.pos[a]), _mm256_mul_pd(via, dti));
                let xj = _mm256_add_pd(pja, _mm256_mul_pd(vja, dtj));
                let x = _mm256_sub_pd(xi, xj);
                let w = _mm256_sub_pd(via, vja);
                let l = _mm256_set1_pd(period[a]);
                let h = _mm256_set1_pd(0.5 * period[a]);
                let nh = _mm256_set1_pd(-(0.5 * period[a]));
                // `|x| <= l`, false for NaN.
                inside = _mm256_and_pd(
                    inside,
                    _mm256_cmp_pd::<_CMP_LE_OQ>(_mm256_andnot_pd(sign, x), l),
                );
                // The shift: -l above h, l below -h, else 0.
                let gt = _mm256_cmp_pd::<_CMP_GT_OQ>(x, h);
                let lt = _mm256_cmp_pd::<_CMP_LT_OQ>(x, nh);
                let shift =
                    _mm256_blendv_pd(_mm256_blendv_pd(zero, l, lt), _mm256_xor_pd(l, sign), gt);
                let y = _mm256_add_pd(x, shift);
                let aw = _mm256_andnot_pd(sign, w);
                w1 = if a == 0 { aw } else { _mm256_add_pd(w1, aw) };
                let yw = _mm256_mul_pd(y, w);
                let y2 = _mm256_mul_pd(y, y);
                b = if a == 0 { yw } else { _mm256_add_pd(b, yw) };
                yy = if a == 0 { y2 } else { _mm256_add_pd(yy, y2) };
            }
            let c = _mm256_sub_pd(yy, _mm256_mul_pd(sigma, sigma));
            let key = _mm256_add_pd(
                t_ref,
                _mm256_div_pd(c, _mm256_mul_pd(_mm256_set1_pd(-2.0), b)),
            );
            let approaching = _mm256_cmp_pd::<_CMP_LT_OQ>(b, zero);
            let key = _mm256_blendv_pd(_mm256_set1_pd(f64::INFINITY), key, approaching);
            let out = store4(key);
            let to = m.min(k + 4);
            keys[k..to].copy_from_slice(&out[..to - k]);
            tmin = _mm256_min_pd(tmin, t_ref);
            tmax = _mm256_max_pd(tmax, t_ref);
            tabs = _mm256_max_pd(tabs, _mm256_andnot_pd(sign, t_ref));
            smax = _mm256_max_pd(smax, sigma);
            wmax = _mm256_max_pd(wmax, w1);
            // `inside`, and neither `sigma` nor `|w|_1` NaN (ordered self-comparisons).
            let ok = _mm256_and_pd(
                inside,
                _mm256_and_pd(
                    _mm256_cmp_pd::<_CMP_ORD_Q>(sigma, sigma),
                    _mm256_cmp_pd::<_CMP_ORD_Q>(w1, w1),
                ),
            );
            okv = _mm256_and_pd(okv, ok);
            k += 4;
        }
        let fold = |a: [f64; 4], f: fn(f64, f64) -> f64| f(f(a[0], a[1]), f(a[2], a[3]));
        let (tmin, tmax, tabs) = (store4(tmin), store4(tmax), store4(tabs));
        let (smax, wmax) = (store4(smax), store4(wmax));
        Extremes {
            t_ref_min: fold(tmin, f64::min),
            t_ref_max: fold(tmax, f64::max),
            t_ref_abs: fold(tabs, f64::max),
            sigma: fold(smax, f64::max),
            w1: fold(wmax, f64::max),
            ok: _mm256_movemask_pd(okv) == 0b1111,
        }
    }

    /// The four lanes of `v`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store4(v: __m256d) -> [f64; 4] {
        let mut a = [0.0f64; 4];
        // SAFETY: `a` holds four numbers.
        unsafe { _mm256_storeu_pd(a.as_mut_ptr(), v) };
        a
    }
}
