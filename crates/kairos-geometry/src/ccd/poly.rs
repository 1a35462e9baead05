//! Polynomials in time with interval coefficients, and vectors of them: the positions of
//! linearly moving points and the coplanarity and domain functions built from them, each
//! enclosed over a time interval.

use std::ops::{Add, Mul, Neg, Sub};

use super::Interval;

/// Most coefficients of a [`Poly`]: degree 4 (the domain functions of the linear queries).
pub const MAX_COEFFS: usize = 5;

/// The integer weights `C(k, j) L / C(n, j)` of [`Poly::unit_sign_range`], by degree `n`, row
/// `k` and column `j <= k`, with `L` the least common multiple of the `C(n, j)`.
const BERNSTEIN: [[[f64; MAX_COEFFS]; MAX_COEFFS]; MAX_COEFFS] = bernstein_weights();

const fn bernstein_weights() -> [[[f64; MAX_COEFFS]; MAX_COEFFS]; MAX_COEFFS] {
    const fn binom(n: u64, k: u64) -> u64 {
        let mut c = 1;
        let mut i = 0;
        while i < k {
            c = c * (n - i) / (i + 1);
            i += 1;
        }
        c
    }
    const fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let mut w = [[[0.0; MAX_COEFFS]; MAX_COEFFS]; MAX_COEFFS];
    let mut n = 0;
    while n < MAX_COEFFS {
        let mut lcm = 1;
        let mut j = 0;
        while j <= n {
            let b = binom(n as u64, j as u64);
            lcm = lcm / gcd(lcm, b) * b;
            j += 1;
        }
        let mut k = 0;
        while k <= n {
            let mut j = 0;
            while j <= k {
                // C(n, j) divides C(k, j) L: L is a multiple of C(n, j).
                w[n][k][j] = (binom(k as u64, j as u64) * (lcm / binom(n as u64, j as u64))) as f64;
                j += 1;
            }
            k += 1;
        }
        n += 1;
    }
    w
}

/// A polynomial `Σ c_k t^k` of degree below [`MAX_COEFFS`] whose coefficients are intervals
/// (the exact polynomial's coefficients lie in them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Poly {
    c: [Interval; MAX_COEFFS],
    len: usize,
}

impl Poly {
    /// The constant `c`.
    pub fn constant(c: Interval) -> Self {
        let mut p = Self {
            c: [Interval::ZERO; MAX_COEFFS],
            len: 1,
        };
        p.c[0] = c;
        p
    }
    /// `a + b t`.
    pub fn linear(a: Interval, b: Interval) -> Self {
        let mut p = Self::constant(a);
        p.c[1] = b;
        p.len = 2;
        p
    }
    /// The coefficients, lowest degree first.
    pub fn coefficients(&self) -> &[Interval] {
        &self.c[..self.len]
    }
    /// The derivative.
    pub fn derivative(&self) -> Self {
        let mut d = Self::constant(Interval::ZERO);
        for k in 1..self.len {
            d.c[k - 1] = self.c[k] * (k as f64);
        }
        d.len = (self.len - 1).max(1);
        d
    }
    /// An enclosure of the values at every `t` of `t` (Horner's scheme in intervals).
    pub fn horner(&self, t: Interval) -> Interval {
        let mut acc = self.c[self.len - 1];
        if t.lo() >= 0.0 {
            // Times are non-negative: each product's bounds come from two products.
            for k in (0..self.len - 1).rev() {
                acc = acc.mul_non_negative(t) + self.c[k];
            }
        } else {
            for k in (0..self.len - 1).rev() {
                acc = acc * t + self.c[k];
            }
        }
        acc
    }
    /// An enclosure of the values over `t`: Horner's scheme intersected with the mean value
    /// form `p(m) + p'(t) (t − m)` about the midpoint, which is the tighter one on short
    /// intervals (its overestimate shrinks with the square of the width).
    pub fn eval(&self, t: Interval) -> Interval {
        let direct = self.horner(t);
        if self.len <= 1 {
            return direct;
        }
        let m = Interval::point(t.mid());
        let centred = self.horner(m) + self.derivative().horner(t) * (t - m);
        direct.intersect(centred).unwrap_or(direct)
    }
    /// An enclosure of `L · p(t)` over every `t ∈ [0, 1]` for a constant `L > 0` (so its
    /// sign is the sign of `p` there): the hull of the Bernstein coefficients on `[0, 1]`, each
    /// scaled by `L`, the least common multiple of the binomial coefficients `C(n, j)` of the
    /// degree `n`, so that the weights `C(k, j) L / C(n, j)` of the conversion from the
    /// monomial coefficients are integers. A polynomial lies in the hull of its Bernstein
    /// coefficients on `[0, 1]`, which is tighter than Horner's scheme over the whole interval.
    pub fn unit_sign_range(&self) -> Interval {
        let n = self.len - 1;
        let w = &BERNSTEIN[n];
        let mut hull = self.c[0] * w[0][0];
        for (k, row) in w.iter().enumerate().take(n + 1).skip(1) {
            let mut b = Interval::ZERO;
            for (j, &x) in row.iter().enumerate().take(k + 1) {
                b = b + self.c[j] * x;
            }
            hull = hull.hull(b);
        }
        hull
    }
    /// [`Poly::eval`] with the derivative given (`d` must be this polynomial's).
    pub fn eval_with(&self, d: &Poly, t: Interval) -> Interval {
        let direct = self.horner(t);
        if self.len <= 1 {
            return direct;
        }
        let m = Interval::point(t.mid());
        let centred = self.horner(m) + d.horner(t) * (t - m);
        direct.intersect(centred).unwrap_or(direct)
    }
}

impl Add for Poly {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        let mut r = Self::constant(Interval::ZERO);
        r.len = self.len.max(o.len);
        for k in 0..r.len {
            r.c[k] = self.c[k] + o.c[k];
        }
        r
    }
}

impl Neg for Poly {
    type Output = Self;
    fn neg(mut self) -> Self {
        for k in 0..self.len {
            self.c[k] = -self.c[k];
        }
        self
    }
}

impl Sub for Poly {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        self + -o
    }
}

impl Mul<Interval> for Poly {
    type Output = Self;
    fn mul(mut self, x: Interval) -> Self {
        for k in 0..self.len {
            self.c[k] = self.c[k] * x;
        }
        self
    }
}

impl Mul for Poly {
    type Output = Self;
    /// # Panics
    /// When the product's degree is [`MAX_COEFFS`] or more (a programming error: the callers'
    /// degrees are fixed).
    fn mul(self, o: Self) -> Self {
        let len = self.len + o.len - 1;
        assert!(len <= MAX_COEFFS, "polynomial degree too high");
        let mut r = Self::constant(Interval::ZERO);
        r.len = len;
        for i in 0..self.len {
            for j in 0..o.len {
                r.c[i + j] = r.c[i + j] + self.c[i] * o.c[j];
            }
        }
        r
    }
}

/// A 3-vector of polynomials: a point moving in time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolyVec(pub [Poly; 3]);

impl PolyVec {
    /// The point moving on a straight line from `p0` at `t = 0` to `p1` at `t = 1`: each
    /// coordinate `p0 + (p1 − p0) t`, the difference enclosed.
    pub fn linear(p0: [Interval; 3], p1: [Interval; 3]) -> Self {
        Self([0, 1, 2].map(|k| Poly::linear(p0[k], p1[k] - p0[k])))
    }
    /// The dot product.
    pub fn dot(&self, o: &Self) -> Poly {
        self.0[0] * o.0[0] + self.0[1] * o.0[1] + self.0[2] * o.0[2]
    }
    /// The box that holds the point at every time of `t`.
    pub fn eval(&self, t: Interval) -> [Interval; 3] {
        [0, 1, 2].map(|k| self.0[k].horner(t))
    }
    /// The cross product.
    pub fn cross(&self, o: &Self) -> Self {
        let (a, b) = (&self.0, &o.0);
        Self([
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ])
    }
}

impl Sub for PolyVec {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self([0, 1, 2].map(|k| self.0[k] - o.0[k]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// The enclosures hold the values of the exact polynomial at sampled points.
    #[test]
    fn enclosures_hold_sampled_values() {
        let mut rng = Pcg64::seed_from_u64(3);
        for _ in 0..2000 {
            let coeffs: Vec<f64> = (0..4).map(|_| rng.gen_range(-10.0..10.0)).collect();
            let mut p = Poly::linear(Interval::point(coeffs[0]), Interval::point(coeffs[1]));
            let q = Poly::linear(Interval::point(coeffs[2]), Interval::point(coeffs[3]));
            p = p * q * q; // a cubic
            let a: f64 = rng.gen_range(0.0..1.0);
            let b = (a + rng.gen_range(0.0..0.3)).min(1.0);
            let t = Interval::new(a, b);
            let range = p.eval(t);
            for k in 0..=20 {
                let x = a + (b - a) * k as f64 / 20.0;
                let lin = |c0: f64, c1: f64| c0 + c1 * x;
                let exact = lin(coeffs[0], coeffs[1]) * lin(coeffs[2], coeffs[3]).powi(2);
                // The sampled value has its own rounding: compare with a relative margin.
                let slack = 1e-12 * (1.0 + exact.abs());
                assert!(
                    range.lo() <= exact + slack && exact - slack <= range.hi(),
                    "{exact} not in {range:?} at {x}"
                );
            }
        }
    }

    /// The Bernstein hull holds `L p(t)` for the right `L` at sampled `t` of `[0, 1]`, and
    /// proves a sign that Horner's scheme over `[0, 1]` cannot.
    #[test]
    fn the_bernstein_hull_holds_the_values_on_the_unit_interval() {
        let mut rng = Pcg64::seed_from_u64(9);
        let lcm = [1.0, 1.0, 2.0, 3.0, 12.0, 10.0, 60.0];
        for _ in 0..2000 {
            let deg = rng.gen_range(0..MAX_COEFFS);
            let coeffs: Vec<f64> = (0..=deg).map(|_| rng.gen_range(-10.0..10.0)).collect();
            let mut p = Poly::constant(Interval::point(coeffs[0]));
            p.len = deg + 1;
            for (k, c) in coeffs.iter().enumerate() {
                p.c[k] = Interval::point(*c);
            }
            let range = p.unit_sign_range();
            for k in 0..=20 {
                let x = k as f64 / 20.0;
                let exact = lcm[deg] * coeffs.iter().rev().fold(0.0, |acc, c| acc * x + c);
                let slack = 1e-9 * (1.0 + exact.abs());
                assert!(
                    range.lo() <= exact + slack && exact - slack <= range.hi(),
                    "{exact} not in {range:?} at {x} for {coeffs:?}"
                );
            }
        }
        // 1 - t + t²/2 > 0 on [0, 1] (Bernstein coefficients 1, 1/2, 1/2): Horner over
        // [0, 1] gives [0, 1].
        let mut q = Poly::linear(Interval::point(1.0), Interval::point(-1.0));
        q.len = 3;
        q.c[2] = Interval::point(0.5);
        assert!(q.horner(Interval::UNIT).contains_zero());
        assert!(
            !q.unit_sign_range().contains_zero(),
            "{:?}",
            q.unit_sign_range()
        );
    }

    #[test]
    fn the_mean_value_form_is_tight_on_short_intervals() {
        // (t - 0.5)^2 on [0.49, 0.51]: the range is [0, 1e-4].
        let p = Poly::linear(Interval::point(-0.5), Interval::point(1.0));
        let sq = p * p;
        let r = sq.eval(Interval::new(0.49, 0.51));
        assert!(r.hi() < 2.1e-4 && r.lo() > -2.1e-4, "{r:?}");
    }
}
