//! The closed-form contact times of two balls, as pure root finders: the stable quadratic
//! [`first_contact`] with its cancellation-free [`discriminant`], and the [`Toi`] answer with
//! its [`ToiStatus`]. A leaf on [`crate::math`]: `ball_toi` builds the balls' and walls'
//! contact times on it, `query` its ball-ball closed form.

use crate::math::Vector;

/// Outcome of a time-of-contact query: the one vocabulary of the balls' closed forms, the
/// simulation's predictions and [`crate::query::time_of_impact`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToiStatus {
    /// The pair approaches and touches at [`Toi::time`] (a query's hit).
    Approaching,
    /// The pair touches or overlaps (by round-off) and approaches: contact now (a query's
    /// overlap at its start).
    Penetrating,
    /// The pair is not approaching (or has no relative motion): no contact.
    Separating,
    /// The pair approaches but passes without touching, or only grazes: no contact.
    Grazing,
    /// Conservative advancement stalled at [`Toi::time`] (its step limit, or a margin below
    /// rounding): no contact before it, a safe time to look again. Counted as a hit.
    Stalled,
    /// A bounded query (the calendar's periodic prediction, `ball_toi::ball_ball_periodic_by`;
    /// a time of impact over `[t0, t1]`) proved that no contact comes at or before its bound;
    /// a later contact may exist.
    NotBy,
}

/// Result of a time-of-contact query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Toi {
    /// Absolute time of contact for the `ball_toi::ball_*` queries (relative for [`first_contact`]);
    /// `+inf` when there is no contact.
    pub time: f64,
    /// What the query found.
    pub status: ToiStatus,
}

impl Toi {
    /// A miss with the given status.
    #[inline]
    pub const fn miss(status: ToiStatus) -> Self {
        Self {
            time: f64::INFINITY,
            status,
        }
    }
    /// True when the query found a contact, or a stalled advancement's safe time (where the
    /// event re-predicts, see [`ToiStatus::Stalled`]).
    #[inline]
    pub fn is_hit(&self) -> bool {
        matches!(
            self.status,
            ToiStatus::Approaching | ToiStatus::Penetrating | ToiStatus::Stalled
        )
    }
}

/// Below this fraction of `b²`, the discriminant `b² − a c` of [`first_contact`]'s quadratic
/// is taken in its cross-product form (see [`discriminant`]).
const CANCELLATION: f64 = 1.0 / (1u64 << 20) as f64;

/// The discriminant `b² − a c` of the contact quadratic `a t² + 2 b t + c` for `a = |w|²`,
/// `b = d · w`, `c = |d|² − σ²` (each as the caller computed it), without losing it to
/// cancellation.
///
/// `b² − a c` rounds with an error of a few ulps of `b²`: where `σ` is small against `|d|`, `c`
/// rounds to `|d|²` and the discriminant of a head-on pair (`σ² |w|²`, exactly) cancels to
/// nothing, so a pair whose radii are below about `1e-8` of their distance passed through each
/// other. By Lagrange's identity the discriminant is also `σ² |w|² − |d × w|²`, whose error is
/// a few ulps of `|d| |w| |d × w| + σ² |w|²`: never larger, and exact for a head-on pair. It is
/// used where the first form keeps fewer than about 32 significant bits (`b² − a c` below
/// `2⁻²⁰ b²`); elsewhere the first form's own bits are kept (the contact time's relative error
/// from the discriminant, `≈ 3 ε |b| / √disc`, is then below `2¹⁰ ε`). The result never
/// exceeds `b²` (true whenever `c >= 0`, and relied on by the proof of `ball_toi`'s periodic screen) and is
/// never NaN for finite input.
#[inline(always)]
pub fn discriminant<V: Vector>(d: V, w: V, sigma: f64, a: f64, b: f64, c: f64) -> f64 {
    let bb = b * b;
    let disc = bb - a * c;
    if !(disc <= CANCELLATION * bb) {
        return disc;
    }
    cross_discriminant(d, w, sigma, a).min(bb)
}

/// `σ² |w|² − |d × w|²` (the cold branch of [`discriminant`]).
#[cold]
#[inline(never)]
fn cross_discriminant<V: Vector>(d: V, w: V, sigma: f64, a: f64) -> f64 {
    let (d, w) = (d.to_array3(), w.to_array3());
    let cross = [
        d[1] * w[2] - d[2] * w[1],
        d[2] * w[0] - d[0] * w[2],
        d[0] * w[1] - d[1] * w[0],
    ];
    let alt = sigma * sigma * a - (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]);
    if alt.is_nan() {
        f64::NEG_INFINITY
    } else {
        alt
    }
}

/// First time `t >= 0` at which `|d + w t| = sigma` while the distance decreases.
///
/// Exact up to round-off: with `b = d.w`, `a = w.w` and `c = d.d - sigma^2`, the earlier root
/// of `a t^2 + 2 b t + c = 0` is computed as `c / (-b + sqrt(b^2 - a c))`, where both terms of
/// the denominator are positive for an approaching pair, so nothing cancels; the discriminant
/// itself comes from [`discriminant`], so a head-on pair collides however small its radii
/// against its distance. The returned time
/// is relative (`t = 0` is the instant at which `d` is measured).
#[inline]
pub fn first_contact<V: Vector>(d: V, w: V, sigma: f64) -> Toi {
    // The products below are fourth powers of lengths: for a contact distance outside
    // [1e-60, 1e60] they would under- or overflow (two balls of radius 1e-100 would graze, of
    // 1e-170 overlap). The time is unchanged when every length is divided by the same power
    // of two, which is exact.
    if !(sigma > 1e-60 && sigma < 1e60) && sigma > 0.0 && sigma.is_finite() {
        let s = crate::math::power_of_two(sigma.log2().round());
        let inv = 1.0 / s;
        return first_contact_unscaled(d * inv, w * inv, sigma * inv, true);
    }
    first_contact_unscaled(d, w, sigma, true)
}

/// [`first_contact`] for a pair whose `b²` or `a c` over- or underflows (a distance of 1e57
/// closed at 1e98, both within the scene files' range: `b²` was infinite, the pair grazed and
/// passed through each other): every length and speed times the power of two that brings
/// `|d| |w|` near 1 (by their largest components, which are finite), which leaves the time
/// unchanged; then `|b|` and `a c <= b²` are near 1 too. What stays out of reach is a pair
/// farther apart than about 1e150 contact distances, whose contact distance squared is lost
/// beside the distance squared: a radius far below the rounding of the positions.
#[cold]
#[inline(never)]
fn first_contact_balanced<V: Vector>(d: V, w: V, sigma: f64) -> Toi {
    let (dm, wm) = (d.max_abs(), w.max_abs());
    let s = crate::math::power_of_two(-((dm.log2() + wm.log2()) / 2.0).round());
    first_contact_unscaled(d * s, w * s, sigma * s, false)
}

/// [`first_contact`] for a contact distance of ordinary size; `balance`: whether a pair whose
/// quadratic's products leave the range of floats may be rescaled once.
#[inline]
fn first_contact_unscaled<V: Vector>(d: V, w: V, sigma: f64, balance: bool) -> Toi {
    let b = d.dot(w);
    // `!(b < 0)` also rejects NaN.
    if !(b < 0.0) {
        return Toi::miss(ToiStatus::Separating);
    }
    let c = d.dot(d) - sigma * sigma;
    if c <= 0.0 {
        return Toi {
            time: 0.0,
            status: ToiStatus::Penetrating,
        };
    }
    let a = w.dot(w);
    // `a c <= b²` for a pair that can touch, so `b²` alone tells when the products leave
    // the range of floats (the same product as the discriminant's).
    if balance && !(b * b < f64::INFINITY && b * b > 1e-290) {
        return first_contact_balanced(d, w, sigma);
    }
    let disc = discriminant(d, w, sigma, a, b, c);
    if !(disc > 0.0) {
        return Toi::miss(ToiStatus::Grazing);
    }
    let t = c / (disc.sqrt() - b);
    if t.is_finite() {
        Toi {
            time: t,
            status: ToiStatus::Approaching,
        }
    } else {
        Toi::miss(ToiStatus::Grazing)
    }
}
