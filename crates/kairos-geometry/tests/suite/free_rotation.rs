//! The torque-free rigid body (`FreeRotation`) against a fine Runge–Kutta integration of the
//! quaternion kinematics at constant angular momentum, against the closed forms of the symmetric
//! top and the isotropic body, and for conservation, determinism, degenerate inputs and frames.

use std::f64::consts::TAU;
use std::time::Instant;

use kairos_geometry::math::{DMat3, DQuat, DVec3, Vector};
use kairos_geometry::shape::{FreeRotation, Shape};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The rotation angle between two orientations.
fn angle_between(a: DQuat, b: DQuat) -> f64 {
    let d = a.inverse() * b;
    2.0 * DVec3::new(d.x, d.y, d.z).length().atan2(d.w.abs())
}

/// World angular velocity of orientation `q` at world angular momentum `l`.
fn omega_of(inertia_inv: DMat3, q: DQuat, l: DVec3) -> DVec3 {
    q * (inertia_inv * (q.inverse() * l))
}

/// `dq/dt = ½ ω q` with `ω = R I⁻¹ Rᵀ L`, `L` constant: classical Runge–Kutta of step `h`
/// with compensated (Kahan) summation of the increments, so that millions of steps do not
/// accumulate rounding; recorded at `checkpoints` (increasing, from 0).
fn reference(
    inertia: DMat3,
    q0: DQuat,
    omega0: DVec3,
    h: f64,
    checkpoints: &[f64],
) -> Vec<(DQuat, DVec3)> {
    let inv = inertia.inverse();
    let l = q0 * (inertia * (q0.inverse() * omega0));
    let f = |q: DQuat| {
        let q = q.normalize();
        let w = omega_of(inv, q, l);
        DQuat::from_xyzw(w.x, w.y, w.z, 0.0) * q * 0.5
    };
    let mut q = q0.to_array();
    let mut carry = [0.0; 4];
    let mut t = 0.0;
    let mut steps = 0u64;
    let mut out = Vec::new();
    for &target in checkpoints {
        loop {
            // The step count, not a running sum of steps, gives the time.
            let next = h * (steps + 1) as f64;
            let step = if next >= target { target - t } else { next - t };
            if step <= 0.0 {
                break;
            }
            let qq = DQuat::from_array(q);
            let k1 = f(qq);
            let k2 = f(qq + k1 * (0.5 * step));
            let k3 = f(qq + k2 * (0.5 * step));
            let k4 = f(qq + k3 * step);
            let dq = ((k1 + k2 * 2.0 + k3 * 2.0 + k4) * (step / 6.0)).to_array();
            for i in 0..4 {
                let y = dq[i] - carry[i];
                let s = q[i] + y;
                carry[i] = (s - q[i]) - y;
                q[i] = s;
            }
            if next >= target {
                t = target;
                break;
            }
            t = next;
            steps += 1;
        }
        let qq = DQuat::from_array(q).normalize();
        out.push((qq, omega_of(inv, qq, l)));
    }
    out
}

/// Maximum errors (rotation angle, relative ω) of `FreeRotation` against the reference over
/// `periods` rotation periods.
fn compare(inertia: DMat3, q0: DQuat, omega0: DVec3, periods: f64, label: &str) -> (f64, f64) {
    let free = FreeRotation::new(inertia, q0, omega0);
    let speed = free.max_angular_speed();
    let end = periods * TAU / omega0.length();
    let checkpoints: Vec<f64> = (1..=40).map(|i| end * f64::from(i) / 40.0).collect();
    // |ω| h = 2e-4: the Runge–Kutta truncation is below 1e-14 per radian.
    let h = 2e-4 / speed;
    let reference = reference(inertia, q0, omega0, h, &checkpoints);
    let (mut rot, mut w) = (0.0f64, 0.0f64);
    for (&t, &(q_ref, w_ref)) in checkpoints.iter().zip(&reference) {
        let (q, omega) = free.state_at(t);
        rot = rot.max(angle_between(q, q_ref));
        w = w.max((omega - w_ref).length() / w_ref.length());
    }
    println!("{label}: max rotation error {rot:.2e} rad, max relative ω error {w:.2e}");
    (rot, w)
}

fn random_unit(rng: &mut Pcg64) -> DVec3 {
    loop {
        let v = DVec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        );
        let l = v.length();
        if l > 0.1 && l <= 1.0 {
            return v / l;
        }
    }
}

fn random_rotation(rng: &mut Pcg64) -> DQuat {
    DQuat::from_axis_angle(random_unit(rng), rng.gen_range(0.0..TAU))
}

/// Angular momentum and energy of the state at `dt`, world frame.
fn invariants(free: &FreeRotation, inertia: DMat3, dt: f64) -> (DVec3, f64) {
    let (q, w) = free.state_at(dt);
    let l = q * (inertia * (q.inverse() * w));
    (l, 0.5 * l.dot(w))
}

#[test]
fn random_bodies_follow_the_reference_integration() {
    let mut rng = Pcg64::seed_from_u64(7);
    let mut worst = (0.0f64, 0.0f64);
    for case in 0..6 {
        let moments = DVec3::new(
            rng.gen_range(1.0..3.0),
            rng.gen_range(1.0..3.0),
            rng.gen_range(1.0..3.0),
        );
        // Half of the bodies with a non-diagonal tensor.
        let frame = if case % 2 == 0 {
            DMat3::IDENTITY
        } else {
            DMat3::from_quat(random_rotation(&mut rng))
        };
        let inertia = frame * DMat3::from_diagonal(moments) * frame.transpose();
        let q0 = random_rotation(&mut rng);
        let omega0 = random_unit(&mut rng) * rng.gen_range(0.5..2.0);
        let (r, w) = compare(inertia, q0, omega0, 100.0, &format!("random body {case}"));
        worst = (worst.0.max(r), worst.1.max(w));
    }
    println!(
        "random bodies, 100 periods: worst rotation {:.2e} rad, ω {:.2e}",
        worst.0, worst.1
    );
    assert!(worst.0 < 1e-9 && worst.1 < 1e-9, "{worst:?}");
}

#[test]
fn near_symmetric_and_separatrix_bodies_follow_the_reference() {
    let mut rng = Pcg64::seed_from_u64(11);
    let cases = [
        (
            "near-symmetric, fast axis distinct",
            DVec3::new(1.0, 1.0 + 1e-6, 2.0),
        ),
        (
            "near-symmetric, slow axis distinct",
            DVec3::new(1.0, 2.0, 2.0 + 1e-6),
        ),
        ("near-isotropic", DVec3::new(1.0, 1.0 + 1e-7, 1.0 + 2e-7)),
    ];
    for (label, moments) in cases {
        let inertia = DMat3::from_diagonal(moments);
        let q0 = random_rotation(&mut rng);
        let omega0 = random_unit(&mut rng) * 1.5;
        let (r, w) = compare(inertia, q0, omega0, 100.0, label);
        assert!(r < 1e-9 && w < 1e-9, "{label}: {r} {w}");
    }
    // The separatrix exactly: moments (2, 3, 6), body momentum (1, y, 1), so that
    // m₃² (I₃ − I₂) / I₃ = m₁² (I₂ − I₁) / I₁ in floating point. The orbit tends to the
    // unstable rotation about the middle axis, where any rounding of the reference grows like
    // `e^{λt}`: compared over two periods only (after 150 time units the reference has left the
    // separatrix by its rounding alone).
    let inertia = DMat3::from_diagonal(DVec3::new(2.0, 3.0, 6.0));
    for (y, sign) in [(0.3, 1.0), (-0.7, 1.0), (0.0, 1.0), (0.4, -1.0)] {
        let q0 = random_rotation(&mut rng);
        let omega0 = q0 * DVec3::new(0.5 * sign, y / 3.0, 1.0 / 6.0);
        let label = format!("separatrix, m = ({sign}, {y}, 1)");
        let (r, w) = compare(inertia, q0, omega0, 2.0, &label);
        assert!(r < 1e-9 && w < 1e-9, "{label}: {r} {w}");
    }
    // Near the separatrix, on both sides. Each passage near the unstable axis amplifies a
    // perturbation of the state by about `1/k'`: for the orbits 1e-10 away, a change of one unit
    // of 1e-16 in ω moves the orientation after 20 periods by 1e-8, so those are compared over
    // 3 periods.
    for (eps, periods) in [(1e-6, 20.0), (-1e-6, 20.0), (1e-10, 3.0), (-1e-10, 3.0)] {
        let q0 = random_rotation(&mut rng);
        let omega0 = q0 * DVec3::new(0.5, 0.1, (1.0 + eps) / 6.0);
        let label = format!("separatrix {eps:+e}, {periods} periods");
        let (r, w) = compare(inertia, q0, omega0, periods, &label);
        assert!(r < 1e-9 && w < 1e-9, "{label}: {r} {w}");
    }
}

#[test]
fn angular_momentum_and_energy_are_conserved() {
    let mut rng = Pcg64::seed_from_u64(3);
    let mut worst = (0.0f64, 0.0f64);
    for case in 0..20 {
        let moments = DVec3::new(
            rng.gen_range(1.0..3.0),
            rng.gen_range(1.0..3.0),
            rng.gen_range(1.0..3.0),
        );
        let frame = DMat3::from_quat(random_rotation(&mut rng));
        let inertia = if case % 2 == 0 {
            DMat3::from_diagonal(moments)
        } else {
            frame * DMat3::from_diagonal(moments) * frame.transpose()
        };
        let free = FreeRotation::new(inertia, random_rotation(&mut rng), random_unit(&mut rng));
        let l0 = free.angular_momentum();
        let e0 = free.energy();
        for i in 0..200 {
            let dt = (f64::from(i) - 100.0) * 7.3 + rng.gen_range(-1.0..1.0) * 1e3;
            let (l, e) = invariants(&free, inertia, dt);
            worst.0 = worst.0.max((l - l0).length() / l0.length());
            worst.1 = worst.1.max((e - e0).abs() / e0);
            assert!(
                free.angular_velocity_at(dt).length() <= free.max_angular_speed(),
                "speed bound"
            );
        }
    }
    println!(
        "conservation: worst relative |ΔL| {:.2e}, |ΔE| {:.2e}",
        worst.0, worst.1
    );
    assert!(worst.0 < 1e-12 && worst.1 < 1e-12, "{worst:?}");
}

#[test]
fn symmetric_top_is_regular_precession() {
    let mut rng = Pcg64::seed_from_u64(5);
    let mut worst = 0.0f64;
    for moments in [DVec3::new(1.0, 1.0, 2.5), DVec3::new(1.5, 3.0, 3.0)] {
        // The symmetry axis: the distinct moment.
        let (axis, i_perp, i_axis) = if moments.x == moments.y {
            (DVec3::Z, moments.x, moments.z)
        } else {
            (DVec3::X, moments.y, moments.x)
        };
        let inertia = DMat3::from_diagonal(moments);
        for _ in 0..5 {
            let q0 = random_rotation(&mut rng);
            let omega0 = random_unit(&mut rng) * 1.3;
            let free = FreeRotation::new(inertia, q0, omega0);
            let l = free.angular_momentum();
            let m_axis = i_axis * axis.dot(q0.inverse() * omega0);
            let kappa = m_axis * (1.0 / i_axis - 1.0 / i_perp);
            for i in 1..50 {
                let t = f64::from(i) * 3.7 - 60.0;
                // R(t) = Rot(L, |L| t / I⊥) R₀ Rot(axis, κ t).
                let expected = DQuat::from_axis_angle(l.normalize(), l.length() * t / i_perp)
                    * q0
                    * DQuat::from_axis_angle(axis, kappa * t);
                worst = worst.max(angle_between(free.rotation_at(t), expected));
                let w = expected * (inertia.inverse() * (expected.inverse() * l));
                worst = worst.max((free.angular_velocity_at(t) - w).length() / w.length());
            }
        }
    }
    println!("symmetric top: worst error {worst:.2e}");
    assert!(worst < 1e-12, "{worst}");
}

#[test]
fn isotropic_bodies_and_principal_spins_keep_their_angular_velocity() {
    let q0 = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    let omega = DVec3::new(0.3, -1.2, 0.8);
    let iso = FreeRotation::new(DMat3::from_diagonal(DVec3::splat(2.0)), q0, omega);
    assert!(iso.is_steady());
    for t in [-5.0, 0.5, 3.0, 1e4] {
        assert_eq!(iso.rotation_at(t), DVec3::integrate_rotation(q0, omega, t));
        assert_eq!(iso.angular_velocity_at(t), omega);
    }
    // Spun about each principal axis (the middle one is an unstable equilibrium): stays put,
    // exactly when the axis is exactly principal in floating point, to rounding otherwise.
    let inertia = DMat3::from_diagonal(DVec3::new(1.0, 2.0, 3.0));
    for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
        let w0 = axis * 2.0;
        let free = FreeRotation::new(inertia, DQuat::IDENTITY, w0);
        assert!(free.is_steady(), "{axis}");
        for t in [-5.0, 0.5, 3.0, 1e4] {
            assert_eq!(
                free.rotation_at(t),
                DVec3::integrate_rotation(DQuat::IDENTITY, w0, t)
            );
            assert_eq!(free.angular_velocity_at(t), w0);
        }
        let w0 = q0 * axis * 2.0;
        let free = FreeRotation::new(inertia, q0, w0);
        for t in [-5.0, 0.5, 3.0] {
            let exact = DVec3::integrate_rotation(q0, w0, t);
            assert!(
                angle_between(free.rotation_at(t), exact) < 1e-12,
                "{axis} {t}"
            );
            assert!(
                (free.angular_velocity_at(t) - w0).length() < 1e-12,
                "{axis} {t}"
            );
        }
    }
    // In the plane of two equal moments: steady too.
    let top = DMat3::from_diagonal(DVec3::new(1.0, 1.0, 3.0));
    let w0 = DVec3::new(0.6, -0.8, 0.0);
    assert!(FreeRotation::new(top, DQuat::IDENTITY, w0).is_steady());
}

#[test]
fn dt_zero_is_the_stored_state_and_results_are_deterministic() {
    let mut rng = Pcg64::seed_from_u64(9);
    for _ in 0..20 {
        let inertia = DMat3::from_diagonal(DVec3::new(
            rng.gen_range(1.0..3.0),
            rng.gen_range(1.0..3.0),
            rng.gen_range(1.0..3.0),
        ));
        let q0 = random_rotation(&mut rng);
        let w0 = random_unit(&mut rng);
        let a = FreeRotation::new(inertia, q0, w0);
        let b = FreeRotation::new(inertia, q0, w0);
        assert_eq!(a.rotation_at(0.0), q0);
        assert_eq!(a.angular_velocity_at(0.0), w0);
        assert_eq!(a.rotation_at(-0.0), q0);
        // Continuity at 0: the closed form reproduces the stored state.
        assert!(angle_between(a.rotation_at(1e-300), q0) < 1e-14);
        assert!((a.angular_velocity_at(1e-300) - w0).length() < 1e-14);
        for t in [1e-9, 0.3, -2.0, 77.7, 1e6] {
            let (qa, wa) = a.state_at(t);
            let (qb, wb) = b.state_at(t);
            assert_eq!(
                qa.to_array().map(f64::to_bits),
                qb.to_array().map(f64::to_bits)
            );
            assert_eq!(
                wa.to_array().map(f64::to_bits),
                wb.to_array().map(f64::to_bits)
            );
            assert_eq!(a.state_at(t), a.state_at(t));
        }
    }
}

#[test]
fn a_rotated_box_tensor_moves_like_the_diagonal_one() {
    let cuboid = Shape::<DVec3>::cuboid(DVec3::new(0.5, 1.0, 2.0)).unwrap();
    let diagonal = cuboid.mass_properties(1.0).unwrap().inertia;
    let mut rng = Pcg64::seed_from_u64(13);
    let mut worst = 0.0f64;
    for _ in 0..10 {
        // Body B's local axes are body A's turned by `turn`: x_B = turn x_A.
        let turn = random_rotation(&mut rng);
        let turned = DMat3::from_quat(turn) * diagonal * DMat3::from_quat(turn.inverse());
        let qa = random_rotation(&mut rng);
        let qb = qa * turn.inverse();
        let w = random_unit(&mut rng) * 2.0;
        let a = FreeRotation::new(diagonal, qa, w);
        let b = FreeRotation::new(turned, qb, w);
        for t in [0.1, 1.0, 10.0, -30.0, 300.0] {
            let (ra, wa) = a.state_at(t);
            let (rb, wb) = b.state_at(t);
            worst = worst.max(angle_between(ra * turn.inverse(), rb));
            worst = worst.max((wa - wb).length() / w.length());
        }
    }
    println!("rotated box tensor: worst difference {worst:.2e}");
    assert!(worst < 1e-11, "{worst}");
}

#[test]
fn a_rotated_cylinder_tensor_precesses_like_the_symmetric_top() {
    // Rotated, the two equal moments of a cylinder differ by rounding (3e-16 relative): the
    // near-degenerate path must still give regular precession. The rounded tensor is a slightly
    // asymmetric body, whose parameter k² is that split times (|L| / m_axis)²: for momentum
    // nearly across the axis (m_axis = |L| / 100 here) its body-frame period differs from the
    // top's by 2e-13 relative, 6e-12 rad after 300 time units, which is the true motion of the
    // rounded tensor, not an error of the closed form.
    let cylinder = Shape::<DVec3>::cylinder(1.5, 0.5).unwrap();
    let diagonal = cylinder.mass_properties(1.0).unwrap().inertia;
    let (i_perp, i_axis) = (diagonal.x_axis.x, diagonal.y_axis.y);
    assert_eq!(diagonal.z_axis.z, i_perp);
    let mut rng = Pcg64::seed_from_u64(19);
    let mut worst = 0.0f64;
    for _ in 0..10 {
        let turn = random_rotation(&mut rng);
        let turned = DMat3::from_quat(turn) * diagonal * DMat3::from_quat(turn.inverse());
        let q0 = random_rotation(&mut rng);
        let w0 = random_unit(&mut rng) * 2.0;
        let free = FreeRotation::new(turned, q0, w0);
        let l = free.angular_momentum();
        // The symmetry axis in body B's local frame, and its momentum component.
        let axis = turn * DVec3::Y;
        let m_axis = i_axis * axis.dot(q0.inverse() * w0);
        let kappa = m_axis * (1.0 / i_axis - 1.0 / i_perp);
        for t in [0.1, 1.0, 10.0, -30.0, 300.0] {
            let expected = DQuat::from_axis_angle(l.normalize(), l.length() * t / i_perp)
                * q0
                * DQuat::from_axis_angle(axis, kappa * t);
            worst = worst.max(angle_between(free.rotation_at(t), expected));
        }
    }
    println!("rotated cylinder tensor: worst error {worst:.2e}");
    assert!(worst < 1e-11, "{worst}");
}

#[test]
fn degenerate_inputs_never_give_nan() {
    let q0 = DQuat::from_axis_angle(DVec3::new(-1.0, 2.0, 0.5).normalize(), 2.0);
    let w0 = DVec3::new(0.4, 1.1, -0.6);
    let bodies = [
        DVec3::new(1.0, 2.0, 3.0),
        DVec3::new(1.0, 1.0 + 1e-12, 2.0),
        DVec3::new(1.0, 2.0, 2.0 + 1e-12),
        DVec3::new(1.0, 1.0 + 1e-12, 1.0 + 2e-12),
        DVec3::new(1.0, 1.0 + 1e-15, 1.0 + 1e-15),
        DVec3::new(1e-8, 1.0, 1e8),
    ];
    let times = [
        0.0,
        1e-300,
        -1e-300,
        1e-12,
        1.0,
        -1.0,
        1e8,
        1e20,
        -1e20,
        1e300,
        -1e300,
        f64::MAX,
    ];
    for moments in bodies {
        let inertia = DMat3::from_diagonal(moments);
        for omega in [w0, DVec3::ZERO, w0 * 1e-200, w0 * 1e100] {
            let free = FreeRotation::new(inertia, q0, omega);
            assert!(free.max_angular_speed().is_finite());
            for t in times {
                let (q, w) = free.state_at(t);
                assert!(q.is_finite() && w.is_finite(), "{moments} {omega} {t}");
                assert!((q.length() - 1.0).abs() < 1e-12);
            }
            // Accuracy survives near-degenerate moments: conservation at moderate times.
            if omega == w0 {
                let l0 = free.angular_momentum();
                for t in [0.5, 10.0, -100.0] {
                    let (l, _) = invariants(&free, inertia, t);
                    assert!((l - l0).length() < 1e-12 * l0.length(), "{moments} {t}");
                }
            }
        }
    }
    // Non-finite or singular inertia, non-finite state: a constant angular velocity, no NaN.
    for inertia in [
        DMat3::ZERO,
        DMat3::from_diagonal(DVec3::new(1.0, f64::NAN, 2.0)),
        DMat3::from_diagonal(DVec3::new(1.0, -1.0, 2.0)),
    ] {
        let free = FreeRotation::new(inertia, q0, w0);
        assert!(free.rotation_at(1.0).is_finite());
        assert!(free.angular_velocity_at(1.0).is_finite());
    }
}

#[test]
fn near_degenerate_moments_follow_the_reference() {
    let q0 = DQuat::from_axis_angle(DVec3::new(0.3, 0.2, -1.0).normalize(), 1.0);
    let w0 = DVec3::new(0.9, -0.4, 0.7);
    for moments in [
        DVec3::new(1.0, 1.0 + 1e-12, 2.0),
        DVec3::new(1.0, 2.0, 2.0 + 1e-12),
    ] {
        let (r, w) = compare(
            DMat3::from_diagonal(moments),
            q0,
            w0,
            10.0,
            &format!("moments {moments}"),
        );
        assert!(r < 1e-9 && w < 1e-9, "{moments}: {r} {w}");
    }
}

#[test]
fn time_per_call() {
    let inertia = DMat3::from_diagonal(DVec3::new(1.0, 2.0, 3.0));
    let free = FreeRotation::new(
        inertia,
        DQuat::from_rotation_x(0.4),
        DVec3::new(0.3, 1.0, -0.5),
    );
    let n = 200_000;
    let start = Instant::now();
    let mut acc = DQuat::IDENTITY;
    for i in 0..n {
        acc += free.rotation_at(f64::from(i) * 1e-3 + 0.5);
    }
    let per = start.elapsed().as_nanos() as f64 / f64::from(n);
    println!("rotation_at: {per:.0} ns per call ({acc:?})");
}

#[test]
fn restarting_from_a_later_state_and_running_backwards_agree() {
    let mut rng = Pcg64::seed_from_u64(17);
    let mut worst = 0.0f64;
    for _ in 0..10 {
        let inertia = DMat3::from_diagonal(DVec3::new(
            rng.gen_range(1.0..3.0),
            rng.gen_range(1.0..3.0),
            rng.gen_range(1.0..3.0),
        ));
        let q0 = random_rotation(&mut rng);
        let w0 = random_unit(&mut rng) * 1.2;
        let a = FreeRotation::new(inertia, q0, w0);
        // The simulator's use: the state stored at a later local time, then predicted on.
        let t1 = rng.gen_range(-50.0..50.0);
        let (q1, w1) = a.state_at(t1);
        let b = FreeRotation::new(inertia, q1, w1);
        for t2 in [-80.0, -3.0, 0.7, 12.0, 95.0] {
            let (qa, wa) = a.state_at(t2);
            let (qb, wb) = b.state_at(t2 - t1);
            worst = worst.max(angle_between(qa, qb));
            worst = worst.max((wa - wb).length() / wa.length());
        }
        // Time reversal: backwards from ω is forwards from −ω.
        let c = FreeRotation::new(inertia, q0, -w0);
        for t in [0.3, 4.0, 40.0] {
            let (qa, wa) = a.state_at(-t);
            let (qc, wc) = c.state_at(t);
            worst = worst.max(angle_between(qa, qc));
            worst = worst.max((wa + wc).length() / wa.length());
        }
    }
    println!("restart and reversal: worst difference {worst:.2e}");
    assert!(worst < 1e-11, "{worst}");
}
