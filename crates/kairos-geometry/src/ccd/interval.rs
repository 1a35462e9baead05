//! Closed intervals of `f64` with outward rounding: every operation returns an interval that
//! contains the exact result of the operation on any points of its operands.
//!
//! Each bound computed in round-to-nearest is at most half an ulp from the exact bound, so it
//! is moved one ulp outwards ([`f64::next_down`] for a lower bound, [`f64::next_up`] for an upper
//! one), except for a sum with `[0, 0]` or a product by it, which are exact. A NaN from an
//! undefined case (`∞ − ∞`, `0 × ∞`) makes the whole line `[−∞, +∞]`, so no NaN ever leaves
//! this module and an enclosure is never too tight.
//!
//! ```
//! use kairos_geometry::ccd::Interval;
//! let third = Interval::point(1.0) / Interval::point(3.0);
//! assert!(third.lo() < 1.0 / 3.0 + 1e-16 && third.hi() > 1.0 / 3.0 - 1e-16);
//! let x = Interval::new(-1.0, 2.0);
//! assert!((x * x).lo() <= -2.0); // the product of independent points of x
//! assert_eq!(x.square().lo(), 0.0); // x² of the same point
//! ```

use std::ops::{Add, Div, Mul, Neg, Sub};

/// A closed interval `[lo, hi]` of the extended reals (`lo <= hi`, never NaN).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    lo: f64,
    hi: f64,
}

/// The lower bound of a rounded result: one ulp down unless exact.
#[inline]
fn down(x: f64) -> f64 {
    x.next_down()
}

/// The upper bound of a rounded result: one ulp up unless exact.
#[inline]
fn up(x: f64) -> f64 {
    x.next_up()
}

impl Interval {
    /// The whole extended line.
    pub const ENTIRE: Self = Self {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };
    /// `[0, 0]`.
    pub const ZERO: Self = Self { lo: 0.0, hi: 0.0 };
    /// `[0, 1]`.
    pub const UNIT: Self = Self { lo: 0.0, hi: 1.0 };

    /// `[lo, hi]`; the whole line when a bound is NaN or `lo > hi`.
    #[inline]
    pub fn new(lo: f64, hi: f64) -> Self {
        if lo <= hi {
            Self { lo, hi }
        } else {
            Self::ENTIRE
        }
    }
    /// `[x, x]` (the whole line for a NaN).
    #[inline]
    pub fn point(x: f64) -> Self {
        Self::new(x, x)
    }
    /// The interval times the power of two `s`: exact (a point stays a point) where the bounds
    /// stay normal numbers, rounded outwards where one falls below them.
    #[inline]
    pub fn times_power_of_two(self, s: f64) -> Self {
        let (lo, hi) = (self.lo * s, self.hi * s);
        let exact = |x: f64, y: f64| x == 0.0 || x.is_infinite() || y.abs() >= f64::MIN_POSITIVE;
        if exact(self.lo, lo)
            && exact(self.hi, hi)
            && lo.is_finite() == self.lo.is_finite()
            && hi.is_finite() == self.hi.is_finite()
        {
            Self { lo, hi }
        } else {
            self * Self::point(s)
        }
    }
    /// The lower bound.
    #[inline]
    pub fn lo(self) -> f64 {
        self.lo
    }
    /// The upper bound.
    #[inline]
    pub fn hi(self) -> f64 {
        self.hi
    }
    /// `hi - lo`, rounded up.
    #[inline]
    pub fn width(self) -> f64 {
        up(self.hi - self.lo)
    }
    /// The midpoint (a point of the interval; 0 for the whole line).
    #[inline]
    pub fn mid(self) -> f64 {
        let m = 0.5 * self.lo + 0.5 * self.hi;
        if m.is_finite() {
            m.clamp(self.lo, self.hi)
        } else if self.lo.is_finite() {
            self.lo
        } else if self.hi.is_finite() {
            self.hi
        } else {
            0.0
        }
    }
    /// Whether `x` lies in the interval.
    #[inline]
    pub fn contains(self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
    /// Whether 0 lies in the interval.
    #[inline]
    pub fn contains_zero(self) -> bool {
        self.contains(0.0)
    }
    /// The smallest interval holding both.
    #[inline]
    pub fn hull(self, o: Self) -> Self {
        Self {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }
    /// The common part, `None` when they do not meet.
    #[inline]
    pub fn intersect(self, o: Self) -> Option<Self> {
        let (lo, hi) = (self.lo.max(o.lo), self.hi.min(o.hi));
        (lo <= hi).then_some(Self { lo, hi })
    }
    /// `x²` for one point `x` of the interval (tighter than `x * x`).
    #[inline]
    pub fn square(self) -> Self {
        let (a, b) = (self.lo.abs(), self.hi.abs());
        let (small, large) = if a < b { (a, b) } else { (b, a) };
        let lo = if self.contains_zero() {
            0.0
        } else {
            down(small * small).max(0.0)
        };
        Self::new(lo, up(large * large))
    }
    /// The interval from an exactly known rational `num / den` (both finite, `den != 0`):
    /// the point itself when the division is exact, else the two floats around it.
    pub fn ratio(num: f64, den: f64) -> Self {
        let q = num / den;
        if !q.is_finite() {
            return Self::ENTIRE;
        }
        // Exact when q * den reproduces num with no remainder.
        if q.mul_add(den, -num) == 0.0 {
            Self::point(q)
        } else {
            Self::new(down(q), up(q))
        }
    }
    /// Rounds a result outwards; NaN bounds (undefined cases) give the whole line.
    #[inline]
    fn rounded(lo: f64, hi: f64) -> Self {
        if lo.is_nan() || hi.is_nan() {
            Self::ENTIRE
        } else {
            Self::new(down(lo), up(hi))
        }
    }
}

impl Interval {
    /// `self * t` for `t` with `t.lo() >= 0` (fewer products than the general case).
    #[inline]
    pub fn mul_non_negative(self, t: Self) -> Self {
        debug_assert!(t.lo >= 0.0);
        if self == Self::ZERO || t == Self::ZERO {
            return Self::ZERO;
        }
        let (lo, lo_factors) = if self.lo >= 0.0 {
            (self.lo * t.lo, (self.lo, t.lo))
        } else {
            (self.lo * t.hi, (self.lo, t.hi))
        };
        let (hi, hi_factors) = if self.hi >= 0.0 {
            (self.hi * t.hi, (self.hi, t.hi))
        } else {
            (self.hi * t.lo, (self.hi, t.lo))
        };
        if lo.is_nan() || hi.is_nan() {
            return Self::ENTIRE;
        }
        // A zero product of a zero factor is exact and kept (see `Mul`).
        let exact = |(a, b): (f64, f64)| a == 0.0 || b == 0.0;
        Self {
            lo: if lo == 0.0 && exact(lo_factors) {
                0.0
            } else {
                down(lo)
            },
            hi: if hi == 0.0 && exact(hi_factors) {
                0.0
            } else {
                up(hi)
            },
        }
    }
}

impl Default for Interval {
    fn default() -> Self {
        Self::ZERO
    }
}

impl From<f64> for Interval {
    fn from(x: f64) -> Self {
        Self::point(x)
    }
}

impl Neg for Interval {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Self {
            lo: -self.hi,
            hi: -self.lo,
        }
    }
}

impl Add for Interval {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        if o == Self::ZERO {
            return self;
        }
        if self == Self::ZERO {
            return o;
        }
        // A sum that is zero is exact (a sum never underflows), so a zero bound is kept: moved
        // out, it would be a subnormal, and arithmetic on subnormals is many times slower.
        let (lo, hi) = (self.lo + o.lo, self.hi + o.hi);
        if lo.is_nan() || hi.is_nan() {
            return Self::ENTIRE;
        }
        Self {
            lo: if lo == 0.0 { 0.0 } else { down(lo) },
            hi: if hi == 0.0 { 0.0 } else { up(hi) },
        }
    }
}

impl Sub for Interval {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        self + -o
    }
}

impl Mul for Interval {
    type Output = Self;
    #[inline]
    fn mul(self, o: Self) -> Self {
        if self == Self::ZERO || o == Self::ZERO {
            return Self::ZERO;
        }
        let p = [
            self.lo * o.lo,
            self.lo * o.hi,
            self.hi * o.lo,
            self.hi * o.hi,
        ];
        // A NaN product (0 × ∞) makes the sum NaN (as does ∞ − ∞ among the products, which
        // only widens a result that has an infinite bound anyway).
        if (p[0] + p[1] + p[2] + p[3]).is_nan() {
            return Self::ENTIRE;
        }
        let lo = p[0].min(p[1]).min(p[2].min(p[3]));
        let hi = p[0].max(p[1]).max(p[2].max(p[3]));
        if lo != 0.0 && hi != 0.0 {
            return Self {
                lo: down(lo),
                hi: up(hi),
            };
        }
        // A zero product is exact when a factor is zero, and kept (as for a sum); another
        // one underflowed.
        let f = [
            (self.lo, o.lo),
            (self.lo, o.hi),
            (self.hi, o.lo),
            (self.hi, o.hi),
        ];
        let exact = p
            .iter()
            .zip(f)
            .all(|(&x, (a, b))| x != 0.0 || a == 0.0 || b == 0.0);
        Self {
            lo: if lo == 0.0 && exact { 0.0 } else { down(lo) },
            hi: if hi == 0.0 && exact { 0.0 } else { up(hi) },
        }
    }
}

impl Div for Interval {
    type Output = Self;
    /// The whole line when the divisor holds 0.
    #[inline]
    fn div(self, o: Self) -> Self {
        if o.contains_zero() {
            return Self::ENTIRE;
        }
        let q = [
            self.lo / o.lo,
            self.lo / o.hi,
            self.hi / o.lo,
            self.hi / o.hi,
        ];
        if q.iter().any(|x| x.is_nan()) {
            return Self::ENTIRE;
        }
        let lo = q.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = q.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Self::rounded(lo, hi)
    }
}

impl Mul<f64> for Interval {
    type Output = Self;
    #[inline]
    fn mul(self, x: f64) -> Self {
        self * Self::point(x)
    }
}

/// Whether the boxes around the points of `a` and of `b` overlap on every axis: a contact
/// point lies on both features, so in both boxes (this also excludes parallel edges and
/// degenerate triangles far apart, which the coplanarity test cannot).
pub(crate) fn boxes_meet(a: &[[Interval; 3]], b: &[[Interval; 3]]) -> bool {
    (0..3).all(|i| {
        let hull = |pts: &[[Interval; 3]]| {
            pts.iter()
                .map(|p| p[i])
                .reduce(Interval::hull)
                .unwrap_or(Interval::ZERO)
        };
        hull(a).intersect(hull(b)).is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// Zero bounds that are exact stay zero (no subnormal), one from an underflow does not.
    #[test]
    fn exact_zeros_stay_and_underflows_are_rounded() {
        let x = Interval::point(0.3);
        assert_eq!(x - x, Interval::ZERO);
        let p = Interval::new(0.0, 2.0) * Interval::new(3.0, 4.0);
        assert_eq!(p.lo(), 0.0);
        assert!(p.hi() >= 8.0);
        let q = Interval::new(0.0, 1e-200) * Interval::new(-1e-200, 1.0);
        assert!(q.lo() < 0.0, "{q:?}");
        let r = Interval::new(1e-200, 1e-200) * Interval::new(-1e-200, -1e-200);
        assert!(r.lo() < 0.0 && r.hi() >= 0.0, "{r:?}");
        let s = Interval::new(-2.0, 1.0).mul_non_negative(Interval::new(0.0, 0.5));
        assert!(s.lo() <= -1.0 && s.hi() >= 0.5);
        let u = Interval::new(1e-200, 1.0).mul_non_negative(Interval::new(1e-200, 1.0));
        assert!(u.lo() <= 0.0, "{u:?}"); // the exact 1e-400 underflowed
        let v = Interval::new(-1e-200, 1.0).mul_non_negative(Interval::new(1e-200, 1.0));
        assert!(v.lo() < 0.0, "{v:?}");
    }

    /// `x` lies in `i`, `x` given exactly as the unevaluated sum `s + e` (`|e|` at most half an
    /// ulp of `s`): an error-free transformation's result.
    fn holds(i: Interval, s: f64, e: f64) -> bool {
        // lo <= s + e  <=>  lo - s <= e, and lo - s is exact (lo and s within a few ulps).
        (i.lo - s <= e) && (e <= i.hi - s)
    }

    fn random(rng: &mut Pcg64) -> f64 {
        let m: f64 = rng.gen_range(-1.0..1.0);
        m * 2f64.powi(rng.gen_range(-30..30))
    }

    /// Sums and products of random points hold the exact results (TwoSum and the fused
    /// multiply-add give them as unevaluated sums).
    #[test]
    fn sums_and_products_hold_the_exact_result() {
        let mut rng = Pcg64::seed_from_u64(1);
        for _ in 0..100_000 {
            let (a, b) = (random(&mut rng), random(&mut rng));
            let s = a + b;
            let bb = s - a;
            let e = (a - (s - bb)) + (b - bb);
            assert!(
                holds(Interval::point(a) + Interval::point(b), s, e),
                "{a} + {b}"
            );
            let p = a * b;
            let e = a.mul_add(b, -p);
            assert!(
                holds(Interval::point(a) * Interval::point(b), p, e),
                "{a} * {b}"
            );
            let q = Interval::point(a) / Interval::point(b);
            // a = q b exactly for some q in the interval: a - lo b and hi b - a have the sign of b.
            let (lo, hi) = (q.lo, q.hi);
            let r_lo = lo.mul_add(-b, a);
            let r_hi = hi.mul_add(-b, a);
            if b > 0.0 {
                assert!(r_lo >= 0.0 && r_hi <= 0.0, "{a} / {b}");
            } else {
                assert!(r_lo <= 0.0 && r_hi >= 0.0, "{a} / {b}");
            }
        }
    }

    /// Intervals of random points: every combination of points lies in the result.
    #[test]
    fn operations_enclose_every_point() {
        let mut rng = Pcg64::seed_from_u64(2);
        for _ in 0..20_000 {
            let (a, b, c, d) = (
                random(&mut rng),
                random(&mut rng),
                random(&mut rng),
                random(&mut rng),
            );
            let x = Interval::new(a.min(b), a.max(b));
            let y = Interval::new(c.min(d), c.max(d));
            // Half the time a non-negative y, for `mul_non_negative`.
            let y = if rng.gen_bool(0.5) {
                Interval::new(y.lo.abs().min(y.hi.abs()), y.lo.abs().max(y.hi.abs()))
            } else {
                y
            };
            for _ in 0..8 {
                let u = rng.gen_range(x.lo..=x.hi);
                let v = rng.gen_range(y.lo..=y.hi);
                let sum = x + y;
                let s = u + v;
                let e = {
                    let bb = s - u;
                    (u - (s - bb)) + (v - bb)
                };
                assert!(holds(sum, s, e));
                let p = u * v;
                assert!(holds(x * y, p, u.mul_add(v, -p)));
                assert!(holds(x.square(), u * u, u.mul_add(u, -(u * u))));
                if y.lo >= 0.0 {
                    assert!(holds(x.mul_non_negative(y), p, u.mul_add(v, -p)));
                }
                assert!(holds(x - y, u - v, {
                    let s = u - v;
                    let bb = s - u;
                    (u - (s - bb)) + (-v - bb)
                }));
            }
        }
    }

    #[test]
    fn undefined_cases_give_the_whole_line() {
        let inf = Interval::new(f64::INFINITY, f64::INFINITY);
        assert_eq!(inf + -inf, Interval::ENTIRE);
        assert_eq!(Interval::new(0.0, 1.0) * Interval::ENTIRE, Interval::ENTIRE);
        assert_eq!(Interval::point(1.0) / Interval::UNIT, Interval::ENTIRE);
        assert_eq!(Interval::point(f64::NAN), Interval::ENTIRE);
        assert_eq!(Interval::new(2.0, 1.0), Interval::ENTIRE);
    }

    #[test]
    fn ratios_are_exact_when_they_can_be() {
        assert_eq!(
            Interval::ratio(6004799503160661.0, 36028797018963968.0),
            Interval::point(6004799503160661.0 / 36028797018963968.0)
        );
        let third = Interval::ratio(1.0, 3.0);
        assert!(third.lo < third.hi && third.contains(1.0 / 3.0));
        assert!(third.lo.mul_add(3.0, -1.0) < 0.0 && third.hi.mul_add(3.0, -1.0) > 0.0);
    }
}
