//! The torque-free motion of a 3D rigid body, in closed form.
//!
//! A body whose inertia is not isotropic tumbles: its angular velocity changes although no
//! torque acts, while its angular momentum `L` (world frame) and its kinetic energy `T` stay
//! constant. [`FreeRotation`] gives the orientation and the angular velocity at any time as a
//! pure function of the state at a reference time, for the event-driven simulator, which stores
//! each body's state at the body's own local time.
//!
//! # Method
//!
//! The exact solution of Euler's equations (Landau & Lifshitz, *Mechanics*, §37; the
//! construction of Celledoni, Fassò, Säfström & Zanna, *The exact computation of the free rigid
//! body motion and its use in splitting methods*, SIAM J. Sci. Comput. 30, 2008):
//!
//! * The inertia tensor is diagonalised once (cyclic Jacobi rotations, deterministic). With
//!   `D = L² / 2T` between the principal moments, the body's angular momentum `m` (body frame)
//!   circulates about the axis `c` of the largest moment when `D` is above the middle moment,
//!   about the axis of the smallest one when below. In a principal frame `(a, b, c)` chosen
//!   for that branch, `m = (m_a cn u, m_b sn u, m_c dn u)` with `u = u₀ + λ t`: Jacobi's elliptic
//!   functions, evaluated by Bulirsch's descending Landen (AGM) transformation after reducing
//!   `u` to `[−K, K]` (`K` the quarter period), so the cost does not grow with `t`. The amplitudes, `λ` and the
//!   parameter are computed from sums of non-negative terms (no cancellation but the one
//!   inherent to the distance from the separatrix, `m_c² (J_c − J_b)/J_c − m_a² (J_b − J_a)/J_a`).
//! * The attitude: `R(t) = C · Rot_z(ψ(t)) · B(m(t))`, where `B` turns `m` onto `z` by Euler
//!   angles about `c` (well defined since `m_c > 0` on the whole orbit) and `C` is fixed by the
//!   reference state. `ψ' = |L| (m_a²/J_a + m_b²/J_b) / (m_a² + m_b²)` integrates in closed form
//!   to an incomplete elliptic integral of the third kind, written with Carlson's symmetric
//!   integrals `R_J` and `R_C` (Carlson 1995) as a sum of positive terms: its value over a half
//!   period is computed once, the remainder on each call.
//! * The separatrix (`L² = 2T J_b`) takes `sn = tanh`, `cn = dn = sech` and
//!   `ψ` in elementary functions. Equilibria (`m` along a principal axis or in a plane of equal
//!   moments), isotropic bodies and a body at rest keep a constant angular velocity and are
//!   rotated by the exact exponential map ([`Vector::integrate_rotation`](crate::math::Vector)).
//!   Symmetric bodies are the general case with parameter `k = 0`: `sn = sin`, `cn = cos`,
//!   `dn = 1` and `ψ` linear, the closed form of regular precession.
//!
//! # Accuracy and what is conserved
//!
//! The result is exact up to floating-point rounding. Conserved: the angular momentum `R I Rᵀ ω`
//! and the energy `½ ω · L` of the returned state equal the stored ones to `3e-15` relative at
//! any time (the rotation maps `m(t)` onto the fixed direction of `L` by construction, so `L`
//! keeps its direction exactly and its length to the rounding of the amplitudes); `|q| = 1` to
//! rounding. Measured against a compensated Runge–Kutta integration of the kinematics
//! (`tests/suite/free_rotation.rs`), over 100 rotation periods: orientation within `1e-12` rad and
//! angular velocity within `1e-13` relative for random bodies, near-symmetric and
//! near-isotropic ones (moments split by `1e-6` or `1e-12`), and the separatrix. The phase
//! error grows like `1e-16 · |λ t|`, as for any closed form evaluated at a large `f64` time.
//!
//! Two limits are the problem's, not the method's. Near the separatrix a perturbation of the
//! state is amplified by about `1/k'` on each passage near the unstable axis (for `k'² = 1e-10`,
//! one unit of `1e-16` in ω moves the orientation by `1e-8` after 20 periods), so any
//! evaluation, this one included, is only as good as that conditioning. And a symmetric tensor
//! given in rotated axes has its equal moments split by rounding (`3e-16`): the closed form
//! follows that slightly asymmetric body, which drifts from regular precession by `k²/4` in
//! relative frequency (up to `6e-12` rad over 100 periods when `L` is nearly across the
//! symmetry axis). A state within `k'² < 1e-100` of the separatrix is treated as on it.
//!
//! Every method is a pure function of the stored state: the same inputs give the same bits, and
//! `dt = 0` (or `-0`) returns the stored orientation and angular velocity bit for bit (tiny
//! `dt` gives them to `1e-15`). No method returns NaN for finite inputs: when `dt` is so large
//! that a phase is not a finite `f64`, the stored state is returned, as
//! [`Vector::integrate_rotation`](crate::math::Vector) does. A call costs one evaluation of the
//! elliptic functions and one of `R_J`: about 0.5 µs, independent of `dt`.

use super::{DMat3, DQuat, DVec3, Vector};

/// A state closer than this (in `k'²`) to the separatrix is treated as on it.
const SEPARATRIX_KC2: f64 = 1e-100;
/// Below this `|u|` (elliptic units) the elliptic functions are their Taylor series.
const TAYLOR_U: f64 = 1e-3;
/// Relative safety margin of [`FreeRotation::max_angular_speed`] over the exact maximum.
const SPEED_MARGIN: f64 = 1e-12;

/// The torque-free rotation of a rigid body from a reference state: orientation and angular
/// velocity at any time before or after it, exact up to rounding.
///
/// See the [module docs](self) for the method and its accuracy.
///
/// ```
/// use kairos_geometry::math::{DMat3, DQuat, DVec3};
/// use kairos_geometry::math::FreeRotation;
/// let inertia = DMat3::from_diagonal(DVec3::new(1.0, 2.0, 3.0));
/// let free = FreeRotation::new(inertia, DQuat::IDENTITY, DVec3::new(0.1, 2.0, 0.3));
/// let q = free.rotation_at(10.0);
/// let w = free.angular_velocity_at(10.0);
/// // The angular momentum is conserved.
/// let l = q * (inertia * (q.inverse() * w));
/// assert!((l - free.angular_momentum()).length() < 1e-12);
/// assert!(w.length() <= free.max_angular_speed());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FreeRotation {
    /// Orientation (body-local to world) at the reference time.
    rotation: DQuat,
    /// Angular velocity (world) at the reference time.
    angular_velocity: DVec3,
    /// Angular momentum, world frame.
    momentum: DVec3,
    /// Kinetic energy of rotation.
    energy: f64,
    /// A bound on `|ω(t)|`.
    max_speed: f64,
    /// The closed form; `None` for a constant angular velocity.
    tumbling: Option<Tumbling>,
}

/// The constants of a tumbling motion (the general case).
#[derive(Clone, Debug, PartialEq)]
struct Tumbling {
    /// Principal moments `(J_a, J_b, J_c)` of the branch frame.
    moments: [f64; 3],
    /// Amplitudes of `m = (m_a cn u, m_b sn u, m_c dn u)`.
    amplitude: [f64; 3],
    /// `du/dt`.
    lambda: f64,
    /// `u` at the reference time.
    u0: f64,
    /// `|L|`.
    momentum_norm: f64,
    /// `1/J_a − 1/J_b`.
    inverse_difference: f64,
    /// The elliptic functions of the parameter.
    elliptic: Elliptic,
    /// `ρ = m_b² / m_a² = 1 + J_c (J_b − J_a) / (J_a (J_c − J_b))`.
    rho: f64,
    /// `G(u₀)`, the precession integral at the reference time.
    g0: f64,
    /// World from the frame where `L` is along `z`.
    world_from_l: DQuat,
    /// Body-local from principal: its inverse takes the principal frame to the body frame.
    principal_to_local_inverse: DQuat,
}

/// Jacobi's elliptic functions `sn, cn, dn` of one parameter `m = k²`, given by `k'² = 1 − m`,
/// with their quarter period `K` and the arithmetic-geometric mean sequence they need.
#[derive(Clone, Debug, PartialEq)]
struct Elliptic {
    /// `k'² = 1 − k²`.
    kc2: f64,
    /// `k'`.
    kc: f64,
    /// On the separatrix (`k = 1`): no period.
    separatrix: bool,
    /// The quarter period `K(k)` (infinite on the separatrix).
    quarter: f64,
    /// `G(K)`, the precession integral over a quarter period (periodic case).
    g_quarter: f64,
    /// The AGM's `a_i`.
    agm_a: [f64; AGM_STEPS],
    /// The AGM's `b_i`.
    agm_b: [f64; AGM_STEPS],
    /// Steps used.
    agm_len: usize,
    /// The AGM's limit.
    agm_mean: f64,
}

/// Enough AGM steps for `k'²` down to [`SEPARATRIX_KC2`].
const AGM_STEPS: usize = 24;

impl FreeRotation {
    /// The torque-free motion through the state `rotation` (body-local to world) and
    /// `angular_velocity` (world) at the reference time, for a body whose inertia tensor about its
    /// centre of mass in its local axes is `inertia` (symmetric positive definite, as
    /// [`Shape::mass_properties`](crate::shape::Shape::mass_properties) returns it; it need not be
    /// diagonal).
    ///
    /// A non-finite or non-positive-definite inertia, or a non-finite state, is not a rigid body:
    /// it gets the constant angular velocity of [`Vector::integrate_rotation`] (no NaN is
    /// produced; a NaN given is returned, and the momentum and energy are those of the tensor as
    /// given). `rotation` is used as given (it should be a unit quaternion; the predicted ones
    /// are normalised).
    #[must_use]
    pub fn new(inertia: DMat3, rotation: DQuat, angular_velocity: DVec3) -> Self {
        // The motion depends on the tensor only up to a factor (Euler's equations are
        // homogeneous in it), so it is computed for the tensor scaled by a power of four near
        // its largest entry: exact for ordinary tensors, and the products of moments and
        // momenta neither underflow for a body of size 1e-22 nor overflow for a huge one.
        // The momentum and energy are scaled back.
        let big = inertia.x_axis.x.max(inertia.y_axis.y).max(inertia.z_axis.z);
        if !(big > 0.0 && big.is_finite()) {
            return Self::new_unit(inertia, rotation, angular_velocity);
        }
        let s = super::power_of_two(2.0 * (big.log2() * 0.5).round().clamp(-511.0, 511.0));
        let mut r = Self::new_unit(inertia * (1.0 / s), rotation, angular_velocity);
        r.momentum *= s;
        r.energy *= s;
        r
    }

    /// [`FreeRotation::new`] without the scaling.
    fn new_unit(inertia: DMat3, rotation: DQuat, angular_velocity: DVec3) -> Self {
        let constant = |momentum: DVec3, energy: f64| Self {
            rotation,
            angular_velocity,
            momentum,
            energy,
            max_speed: angular_velocity.length() * (1.0 + SPEED_MARGIN),
            tumbling: None,
        };
        let (moments, axes) = symmetric_eigen(inertia);
        let usable = moments.iter().all(|&j| j > 0.0 && j.is_finite())
            && axes.is_finite()
            && rotation.is_finite()
            && angular_velocity.is_finite();
        if !usable {
            let l = rotation * (inertia * (rotation.inverse() * angular_velocity));
            return constant(l, 0.5 * l.dot(angular_velocity));
        }
        let omega_local = rotation.inverse() * angular_velocity;
        let e = [axes.x_axis, axes.y_axis, axes.z_axis];
        // Principal components of m (ascending moments I1 <= I2 <= I3).
        let m: [f64; 3] = std::array::from_fn(|i| moments[i] * e[i].dot(omega_local));
        let local_momentum = e[0] * m[0] + e[1] * m[1] + e[2] * m[2];
        let momentum = rotation * local_momentum;
        let energy = 0.5 * (0..3).map(|i| m[i] * m[i] / moments[i]).sum::<f64>();
        // The branch: D above the middle moment (N >= 0) circulates about the largest axis.
        let [i1, i2, i3] = moments;
        let n3 = m[2] * m[2] * (i3 - i2) / i3 - m[0] * m[0] * (i2 - i1) / i1;
        // Frame (a, b, c), right-handed, as body-local axes, with the components of m in it.
        let (mut axes_abc, mut m_abc, j) = if n3 >= 0.0 {
            ([e[0], e[1], e[2]], [m[0], m[1], m[2]], [i1, i2, i3])
        } else {
            ([e[2], -e[1], e[0]], [m[2], -m[1], m[0]], [i3, i2, i1])
        };
        // Turn by π about b so that m_c >= 0, then by π about c so that m_a >= 0.
        if m_abc[2] < 0.0 {
            axes_abc = [-axes_abc[0], axes_abc[1], -axes_abc[2]];
            m_abc = [-m_abc[0], m_abc[1], -m_abc[2]];
        }
        if m_abc[0] < 0.0 {
            axes_abc = [-axes_abc[0], -axes_abc[1], axes_abc[2]];
            m_abc = [-m_abc[0], -m_abc[1], m_abc[2]];
        }
        let [ja, jb, jc] = j;
        let da = (jb - ja).abs();
        let dc = (jc - jb).abs();
        let dac = (jc - ja).abs();
        let p: f64 = (0..3)
            .map(|i| m_abc[i] * m_abc[i] * (jc - j[i]).abs() / j[i])
            .sum();
        let q: f64 = (0..3)
            .map(|i| m_abc[i] * m_abc[i] * (j[i] - ja).abs() / j[i])
            .sum();
        // P = 0: m along c or in a plane of equal moments with c; Q = 0: likewise with a;
        // both for an isotropic body or one at rest. The angular velocity is constant.
        if !(p > 0.0 && q > 0.0 && dc > 0.0 && dac > 0.0) {
            return constant(momentum, energy);
        }
        let n_abs = (m_abc[2] * m_abc[2] * dc / jc - m_abc[0] * m_abc[0] * da / ja).abs();
        let kc2 = (dac * n_abs / (dc * q)).min(1.0);
        let amplitude = [
            (p * ja / dac).sqrt(),
            (p * jb / dc).sqrt(),
            (q * jc / dac).sqrt(),
        ];
        let lambda = (jc - ja).signum() * (q * dc / (ja * jb * jc)).sqrt();
        let rho = 1.0 + jc * da / (ja * dc);
        let elliptic = Elliptic::new(kc2, rho);
        // u0 from (cn, sn) = (m_a / amplitude_a, m_b / amplitude_b).
        let x = m_abc[0] / amplitude[0];
        let y = m_abc[1] / amplitude[1];
        let u0 = if elliptic.separatrix {
            // cn = dn = sech u, sn = tanh u: sinh u = y / x. m_a = 0 on the separatrix is the
            // unstable equilibrium along b.
            if x.is_nan() || x <= 0.0 || y.abs() >= 1.0 {
                return constant(momentum, energy);
            }
            (y / x).asinh()
        } else {
            elliptic.inverse(x, y)
        };
        let momentum_norm = (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]).sqrt();
        let principal_to_local =
            DQuat::from_mat3(&DMat3::from_cols(axes_abc[0], axes_abc[1], axes_abc[2])).normalize();
        let mut tumbling = Tumbling {
            moments: j,
            amplitude,
            lambda,
            u0,
            momentum_norm,
            inverse_difference: (jb - ja) / (ja * jb),
            elliptic,
            rho,
            g0: 0.0,
            world_from_l: DQuat::IDENTITY,
            principal_to_local_inverse: principal_to_local.inverse(),
        };
        let (g0, m0) = tumbling.precession_and_momentum(u0);
        tumbling.g0 = g0;
        // C = R_p(0) B(0)^{-1}, so that ψ(0) = 0.
        let principal_to_world = rotation * principal_to_local;
        tumbling.world_from_l = (principal_to_world * align_with_z(m0).inverse()).normalize();
        let [aa, ab, ac] = amplitude;
        // |ω|² is affine in sn²: its maximum is at sn² = 0 or 1.
        let w2_at_0 = (aa / ja).powi(2) + (ac / jc).powi(2);
        let w2_at_1 = (ab / jb).powi(2) + kc2 * (ac / jc).powi(2);
        let max_speed = w2_at_0.max(w2_at_1).sqrt() * (1.0 + SPEED_MARGIN);
        Self {
            rotation,
            angular_velocity,
            momentum,
            energy,
            max_speed,
            tumbling: Some(tumbling),
        }
    }

    /// The orientation (body-local to world) `dt` after the reference time (`dt` may be
    /// negative). `dt = 0` gives the stored orientation bit for bit.
    #[must_use]
    pub fn rotation_at(&self, dt: f64) -> DQuat {
        self.state_at(dt).0
    }

    /// The angular velocity (world frame) `dt` after the reference time. `dt = 0` gives the
    /// stored angular velocity bit for bit.
    #[must_use]
    pub fn angular_velocity_at(&self, dt: f64) -> DVec3 {
        self.state_at(dt).1
    }

    /// The orientation and the angular velocity `dt` after the reference time, in one
    /// evaluation: [`FreeRotation::rotation_at`] and [`FreeRotation::angular_velocity_at`].
    #[must_use]
    pub fn state_at(&self, dt: f64) -> (DQuat, DVec3) {
        if dt == 0.0 {
            return (self.rotation, self.angular_velocity);
        }
        match &self.tumbling {
            None => (
                DVec3::integrate_rotation(self.rotation, self.angular_velocity, dt),
                self.angular_velocity,
            ),
            Some(t) => t
                .state_at(dt)
                .unwrap_or((self.rotation, self.angular_velocity)),
        }
    }

    /// A bound on the angular speed `|ω(t)|` at every time: the exact maximum over the orbit
    /// with a relative margin of `1e-12` for rounding. Finite.
    #[must_use]
    pub fn max_angular_speed(&self) -> f64 {
        self.max_speed
    }

    /// The angular momentum `R I Rᵀ ω`, world frame (constant).
    #[must_use]
    pub fn angular_momentum(&self) -> DVec3 {
        self.momentum
    }

    /// The kinetic energy of rotation `½ ω · L` (constant).
    #[must_use]
    pub fn energy(&self) -> f64 {
        self.energy
    }

    /// True when the angular velocity is constant (a body at rest, isotropic, or spinning
    /// about a principal axis or in a plane of equal moments): the motion is the exponential
    /// map.
    #[must_use]
    pub fn is_steady(&self) -> bool {
        self.tumbling.is_none()
    }
}

impl Tumbling {
    /// The precession integral `G(u) = ∫₀ᵘ cn² / (cn² + ρ sn²)` and the body-frame momentum
    /// `m(u)`.
    fn precession_and_momentum(&self, u: f64) -> (f64, DVec3) {
        let [aa, ab, ac] = self.amplitude;
        let el = &self.elliptic;
        if el.separatrix {
            let t = u.tanh();
            let sech = 1.0 / u.cosh();
            let e = self.rho - 1.0;
            let g = if e > 0.0 {
                let s = e.sqrt();
                (s * t).atan() / s
            } else {
                t
            };
            return (g, DVec3::new(aa * sech, ab * t, ac * sech));
        }
        // u = K + 2K j + v with v in [-K, K].
        let k = el.quarter;
        let w = u - k;
        let jf = (w / (2.0 * k)).round();
        let v = w - 2.0 * k * jf;
        let (s, c, d) = el.sncndn(v);
        // G over [K, K + v]: ∫ k'² sn² / (k'² sn² + ρ cn²), Carlson form, positive terms.
        let qr = el.kc2 / self.rho;
        let gs = qr * s * s * s / 3.0 * carlson_rj(c * c, d * d, 1.0, c * c + qr * s * s);
        let g = (2.0 * jf + 1.0) * el.g_quarter + gs;
        // sn(v + K) = cn v / dn v, cn(v + K) = −k' sn v / dn v, dn(v + K) = k' / dn v; the shift
        // by 2K j flips sn and cn when j is odd.
        let sign = if (jf * 0.5).fract() == 0.0 { 1.0 } else { -1.0 };
        let sn = sign * c / d;
        let cn = -sign * el.kc * s / d;
        let dn = el.kc / d;
        (g, DVec3::new(aa * cn, ab * sn, ac * dn))
    }

    /// Orientation and world angular velocity at `dt`; `None` when a phase is not finite.
    fn state_at(&self, dt: f64) -> Option<(DQuat, DVec3)> {
        let u = self.u0 + self.lambda * dt;
        let (g, m) = self.precession_and_momentum(u);
        let l = self.momentum_norm;
        let [_, jb, _] = self.moments;
        let psi = l * dt / jb + (l / self.lambda) * self.inverse_difference * (g - self.g0);
        if !(u.is_finite() && psi.is_finite() && m.is_finite()) {
            return None;
        }
        let principal_to_world = self.world_from_l * DQuat::from_rotation_z(psi) * align_with_z(m);
        let rotation = (principal_to_world * self.principal_to_local_inverse).normalize();
        let omega = m / DVec3::from_array(self.moments);
        let w = principal_to_world * omega;
        (rotation.is_finite() && w.is_finite()).then_some((rotation, w))
    }
}

/// The rotation `B = Rot_x(θ) Rot_z(φ)` taking `m` (with `m_z > 0`) onto the positive z axis,
/// where `m ∝ (sin θ sin φ, sin θ cos φ, cos θ)`.
fn align_with_z(m: DVec3) -> DQuat {
    let h = m.x.hypot(m.y);
    let r = h.hypot(m.z);
    let cos_t = m.z / r;
    let sin_t = h / r;
    let ch = (0.5 * (1.0 + cos_t)).sqrt();
    let sh = sin_t / (2.0 * ch);
    let (sp, cp) = (0.5 * m.x.atan2(m.y)).sin_cos();
    DQuat::from_xyzw(sh, 0.0, 0.0, ch) * DQuat::from_xyzw(0.0, 0.0, sp, cp)
}

impl Elliptic {
    /// The elliptic functions of parameter `1 − kc2`; `rho` enters the precession integral over
    /// a quarter period.
    fn new(kc2: f64, rho: f64) -> Self {
        let mut el = Self {
            kc2,
            kc: kc2.sqrt(),
            separatrix: kc2 < SEPARATRIX_KC2,
            quarter: f64::INFINITY,
            g_quarter: 0.0,
            agm_a: [0.0; AGM_STEPS],
            agm_b: [0.0; AGM_STEPS],
            agm_len: 0,
            agm_mean: 0.0,
        };
        if el.separatrix {
            return el;
        }
        // Bulirsch's AGM (Numerical Recipes `sncndn`): a_i, b_i = sqrt of the running products.
        let mut a = 1.0;
        let mut emc = kc2;
        let mut mean = 1.0;
        for i in 0..AGM_STEPS {
            el.agm_len = i + 1;
            el.agm_a[i] = a;
            emc = emc.sqrt();
            el.agm_b[i] = emc;
            mean = 0.5 * (a + emc);
            if (a - emc).abs() <= 1e-9 * a {
                break;
            }
            emc *= a;
            a = mean;
        }
        el.agm_mean = mean;
        el.quarter = std::f64::consts::FRAC_PI_2 / mean;
        // G(K) = ∫₀ᴷ cn² / (cn² + ρ sn²) = (k'² / 3ρ) R_J(0, k'², 1, k'² / ρ).
        let qr = kc2 / rho;
        el.g_quarter = qr / 3.0 * carlson_rj(0.0, kc2, 1.0, qr);
        el
    }

    /// `(sn v, cn v, dn v)` for `|v| <= K` (Bulirsch's algorithm; Taylor series near 0).
    fn sncndn(&self, v: f64) -> (f64, f64, f64) {
        let m = 1.0 - self.kc2;
        if v.abs() < TAYLOR_U {
            let v2 = v * v;
            let sn = v * (1.0 - (1.0 + m) * v2 / 6.0 + (1.0 + m * (14.0 + m)) * v2 * v2 / 120.0);
            let cn = 1.0 - v2 / 2.0 + (1.0 + 4.0 * m) * v2 * v2 / 24.0;
            let dn = 1.0 - m * v2 / 2.0 + m * (4.0 + m) * v2 * v2 / 24.0;
            return (sn, cn, dn);
        }
        let x = v * self.agm_mean;
        let (sn0, cn0) = x.sin_cos();
        let mut a = cn0 / sn0;
        let mut c = self.agm_mean * a;
        let mut dn = 1.0;
        for i in (0..self.agm_len).rev() {
            let b = self.agm_a[i];
            a *= c;
            c *= dn;
            dn = (self.agm_b[i] + a) / (b + a);
            a = c / b;
        }
        let r = 1.0 / (c * c + 1.0).sqrt();
        let sn = if sn0 >= 0.0 { r } else { -r };
        (sn, c * sn, dn)
    }

    /// The `u` with `cn u : sn u = x : y` (`u ∈ [−2K, 2K]`): the incomplete integral of the
    /// first kind `F(φ)` of the amplitude `φ = atan2(y, x)`, by Carlson's `R_F`.
    fn inverse(&self, x: f64, y: f64) -> f64 {
        let r = x.hypot(y);
        let (c, s) = (x / r, y / r);
        let f = s * carlson_rf(c * c, c * c + self.kc2 * s * s, 1.0);
        if c >= 0.0 {
            f
        } else {
            let sign = if s >= 0.0 { 1.0 } else { -1.0 };
            sign * 2.0 * self.quarter - f
        }
    }
}

/// Carlson's `R_F(x, y, z)` (at most one argument zero), by duplication (Carlson 1995; the
/// form of Numerical Recipes, 3rd ed., §6.12).
fn carlson_rf(x: f64, y: f64, z: f64) -> f64 {
    const TOL: f64 = 1e-3;
    let (mut x, mut y, mut z) = (x, y, z);
    let mut ave;
    let (mut dx, mut dy, mut dz);
    let mut steps = 0;
    loop {
        let (sx, sy, sz) = (x.sqrt(), y.sqrt(), z.sqrt());
        let lam = sx * (sy + sz) + sy * sz;
        x = 0.25 * (x + lam);
        y = 0.25 * (y + lam);
        z = 0.25 * (z + lam);
        ave = (x + y + z) / 3.0;
        dx = (ave - x) / ave;
        dy = (ave - y) / ave;
        dz = (ave - z) / ave;
        steps += 1;
        if dx.abs().max(dy.abs()).max(dz.abs()) <= TOL || steps >= 200 {
            break;
        }
    }
    let e2 = dx * dy - dz * dz;
    let e3 = dx * dy * dz;
    (1.0 + (e2 / 24.0 - 0.1 - 3.0 / 44.0 * e3) * e2 + e3 / 14.0) / ave.sqrt()
}

/// Carlson's `R_C(x, y)` for `y > 0` (the degenerate `R_F(x, y, y)`).
fn carlson_rc(x: f64, y: f64) -> f64 {
    const TOL: f64 = 1e-3;
    let (mut x, mut y) = (x, y);
    let mut ave;
    let mut s;
    let mut steps = 0;
    loop {
        let lam = 2.0 * x.sqrt() * y.sqrt() + y;
        x = 0.25 * (x + lam);
        y = 0.25 * (y + lam);
        ave = (x + y + y) / 3.0;
        s = (y - ave) / ave;
        steps += 1;
        if s.abs() <= TOL || steps >= 200 {
            break;
        }
    }
    (1.0 + s * s * (0.3 + s * (1.0 / 7.0 + s * (0.375 + s * 9.0 / 22.0)))) / ave.sqrt()
}

/// Carlson's `R_J(x, y, z, p)` for `p > 0` (at most one of `x, y, z` zero), by duplication.
fn carlson_rj(x: f64, y: f64, z: f64, p: f64) -> f64 {
    const TOL: f64 = 1e-3;
    const C1: f64 = 3.0 / 14.0;
    const C2: f64 = 1.0 / 3.0;
    const C3: f64 = 3.0 / 22.0;
    const C4: f64 = 3.0 / 26.0;
    const C5: f64 = 0.75 * C3;
    const C6: f64 = 1.5 * C4;
    const C7: f64 = 0.5 * C2;
    const C8: f64 = C3 + C3;
    let (mut x, mut y, mut z, mut p) = (x, y, z, p);
    let mut sum = 0.0;
    let mut fac = 1.0;
    let mut ave;
    let (mut dx, mut dy, mut dz, mut dp);
    let mut steps = 0;
    loop {
        let (sx, sy, sz) = (x.sqrt(), y.sqrt(), z.sqrt());
        let lam = sx * (sy + sz) + sy * sz;
        let alpha = (p * (sx + sy + sz) + sx * sy * sz).powi(2);
        let beta = p * (p + lam).powi(2);
        sum += fac * carlson_rc(alpha, beta);
        fac *= 0.25;
        x = 0.25 * (x + lam);
        y = 0.25 * (y + lam);
        z = 0.25 * (z + lam);
        p = 0.25 * (p + lam);
        ave = 0.2 * (x + y + z + p + p);
        dx = (ave - x) / ave;
        dy = (ave - y) / ave;
        dz = (ave - z) / ave;
        dp = (ave - p) / ave;
        steps += 1;
        if dx.abs().max(dy.abs()).max(dz.abs()).max(dp.abs()) <= TOL || steps >= 200 {
            break;
        }
    }
    let ea = dx * (dy + dz) + dy * dz;
    let eb = dx * dy * dz;
    let ec = dp * dp;
    let ed = ea - 3.0 * ec;
    let ee = eb + 2.0 * dp * (ea - ec);
    3.0 * sum
        + fac
            * (1.0
                + ed * (-C1 + C5 * ed - C6 * ee)
                + eb * (C7 + dp * (-C8 + dp * C4))
                + dp * ea * (C2 - dp * C3)
                - C2 * dp * ec)
            / (ave * ave.sqrt())
}

/// The eigenvalues (ascending) and unit eigenvectors (the columns, a proper rotation) of a
/// symmetric 3×3 matrix, by cyclic Jacobi rotations (deterministic; a diagonal matrix is
/// returned as is with the identity, reordered).
pub fn symmetric_eigen(m: DMat3) -> ([f64; 3], DMat3) {
    // Symmetrise (the tensor is symmetric up to rounding).
    let mut a = [[0.0f64; 3]; 3];
    for (r, row) in a.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = 0.5 * (m.col(c)[r] + m.col(r)[c]);
        }
    }
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _sweep in 0..64 {
        let mut rotated = false;
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            let apq = a[p][q];
            if apq == 0.0 || apq.abs() <= 1e-18 * (a[p][p].abs() + a[q][q].abs()) {
                a[p][q] = 0.0;
                a[q][p] = 0.0;
                continue;
            }
            rotated = true;
            let theta = (a[q][q] - a[p][p]) / (2.0 * apq);
            let t = if theta.abs() > 1e150 {
                0.5 / theta
            } else {
                theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt())
            };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A ← Jᵀ A J, V ← V J with J = I except J_pp = J_qq = c, J_pq = s, J_qp = −s.
            for row in a.iter_mut() {
                let (x, y) = (row[p], row[q]);
                row[p] = c * x - s * y;
                row[q] = s * x + c * y;
            }
            let (rp, rq) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * rp[k] - s * rq[k]);
            a[q] = std::array::from_fn(|k| s * rp[k] + c * rq[k]);
            a[p][q] = 0.0;
            a[q][p] = 0.0;
            for row in v.iter_mut() {
                let (x, y) = (row[p], row[q]);
                row[p] = c * x - s * y;
                row[q] = s * x + c * y;
            }
        }
        if !rotated {
            break;
        }
    }
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &k| a[i][i].total_cmp(&a[k][k]));
    let values = order.map(|i| a[i][i]);
    let col = |i: usize| DVec3::new(v[0][i], v[1][i], v[2][i]);
    let (x, y) = (col(order[0]), col(order[1]));
    let mut z = col(order[2]);
    if x.cross(y).dot(z) < 0.0 {
        z = -z;
    }
    (values, DMat3::from_cols(x, y, z))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carlson_integrals_match_carlsons_test_values() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-14 * b.abs();
        assert!(close(carlson_rf(1.0, 2.0, 0.0), 1.311_028_777_146_059_9));
        assert!(close(carlson_rf(2.0, 3.0, 4.0), 0.584_082_841_677_151_9));
        assert!(close(
            carlson_rj(0.0, 1.0, 2.0, 3.0),
            0.776_886_237_785_817_8
        ));
        assert!(close(
            carlson_rj(2.0, 3.0, 4.0, 5.0),
            0.142_975_796_671_567_6
        ));
        assert!(close(carlson_rc(0.0, 0.25), std::f64::consts::PI));
        assert!(close(carlson_rc(2.25, 2.0), std::f64::consts::LN_2));
        // R_D(0, y, y) = R_J(0, y, y, y) = 3π / (4 y^{3/2}).
        assert!(close(
            carlson_rj(0.0, 1.0, 1.0, 1.0),
            0.75 * std::f64::consts::PI
        ));
    }

    #[test]
    fn elliptic_functions_satisfy_their_identities_and_known_values() {
        for kc2 in [1.0, 0.75, 0.5, 0.1, 1e-3, 1e-8, 1e-14, 1e-40] {
            let el = Elliptic::new(kc2, 1.0);
            let m = 1.0 - kc2;
            for i in -50..=50 {
                let v = el.quarter * f64::from(i) / 50.0;
                let (s, c, d) = el.sncndn(v);
                assert!((s * s + c * c - 1.0).abs() < 1e-14, "{kc2} {v}");
                assert!((d * d + m * s * s - 1.0).abs() < 1e-14, "{kc2} {v}");
            }
            let (s, c, d) = el.sncndn(el.quarter);
            assert!((s - 1.0).abs() < 1e-14 && c.abs() < 1e-7 && (d - el.kc).abs() < 1e-7);
            // The inverse of sn, cn.
            for u in [-1.9, -1.0, -0.3, 0.0, 0.2, 0.9, 1.7] {
                let u = u * el.quarter;
                let w = u - el.quarter;
                let (s, c, d) = el.sncndn(w);
                let (sn, cn) = (c / d, -el.kc * s / d);
                assert!(
                    (el.inverse(cn, sn) - u).abs() < 1e-12 * el.quarter,
                    "{kc2} {u}"
                );
            }
        }
        // sn(0.5 | m = 0.5) (Abramowitz & Stegun, by series).
        let el = Elliptic::new(0.5, 1.0);
        let (s, c, d) = el.sncndn(0.5);
        assert!((s - 0.470_750_473_655_657).abs() < 1e-14, "{s}");
        assert!((c - 0.882_266_394_890_439).abs() < 1e-14, "{c}");
        assert!((d - 0.942_972_425_777_386).abs() < 1e-14, "{d}");
        // K(m = 1/2) = 1.854074677301372.
        assert!((el.quarter - 1.854_074_677_301_372).abs() < 1e-14);
    }

    #[test]
    fn jacobi_diagonalises_a_rotated_tensor() {
        let r = DMat3::from_quat(DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0));
        let d = DMat3::from_diagonal(DVec3::new(3.0, 1.0, 2.0));
        let t = r * d * r.transpose();
        let (values, v) = symmetric_eigen(t);
        assert!((values[0] - 1.0).abs() < 1e-14);
        assert!((values[1] - 2.0).abs() < 1e-14);
        assert!((values[2] - 3.0).abs() < 1e-14);
        assert!((v.determinant() - 1.0).abs() < 1e-14);
        let back = v.transpose() * t * v;
        for (i, &value) in values.iter().enumerate() {
            assert!((back.col(i)[i] - value).abs() < 1e-14);
        }
        let (values, v) = symmetric_eigen(d);
        assert_eq!(values, [1.0, 2.0, 3.0]);
        assert_eq!(v.determinant(), 1.0);
    }
}
