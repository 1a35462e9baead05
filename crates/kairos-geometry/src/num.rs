//! Numbers in messages: a user's value printed as written for moderate magnitudes, and in
//! exponent form otherwise (`1e300`, not three hundred digits).

use std::fmt;

/// A number for a message: `{}` formatting between `1e-4` and `1e16` in magnitude (and for
/// zero, infinities and NaN), `{:e}` formatting outside. Either way the shortest text that
/// reads back as the same `f64`.
///
/// ```
/// use kairos_geometry::num::Num;
/// assert_eq!(Num(0.25).to_string(), "0.25");
/// assert_eq!(Num(1e300).to_string(), "1e300");
/// assert_eq!(Num(-2.5e-300).to_string(), "-2.5e-300");
/// assert_eq!(Num(1e12).to_string(), "1000000000000");
/// assert_eq!(Num(f64::INFINITY).to_string(), "inf");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Num(pub f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || !a.is_finite() || (1e-4..1e16).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moderate_numbers_as_written_others_in_exponent_form() {
        for (x, s) in [
            (1.0, "1"),
            (-0.5, "-0.5"),
            (1e-4, "0.0001"),
            (9.5e15, "9500000000000000"),
            (1e16, "1e16"),
            (1.5e-5, "1.5e-5"),
            (0.0, "0"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(Num(x).to_string(), s);
            if x.is_finite() {
                assert_eq!(s.parse::<f64>().unwrap(), x);
            }
        }
    }
}
