//! Properties of the contact-time queries: contact at the predicted time, no contact before
//! it, symmetry, and no NaN.

use kairos::ball_toi::{ball_ball, ball_segment, ToiStatus};
use kairos::prelude::*;
use proptest::prelude::*;

fn v2() -> impl Strategy<Value = DVec2> {
    (-10.0..10.0f64, -10.0..10.0f64).prop_map(|(x, y)| DVec2::new(x, y))
}
fn v3() -> impl Strategy<Value = DVec3> {
    (-10.0..10.0f64, -10.0..10.0f64, -10.0..10.0f64).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

#[allow(clippy::too_many_arguments)]
fn check_ball_ball<V: Vector>(
    pi: V,
    vi: V,
    ti: f64,
    pj: V,
    vj: V,
    tj: f64,
    ri: f64,
    rj: f64,
) -> Result<(), TestCaseError> {
    let mut bi = Body::new(pi, vi, ri, 1.0);
    bi.time = ti;
    let mut bj = Body::new(pj, vj, rj, 2.0);
    bj.time = tj;
    let t0 = ti.max(tj);
    let sigma = ri + rj;
    let gap0 = (bi.position_at(t0) - bj.position_at(t0)).length() - sigma;
    prop_assume!(gap0 > 1e-6);
    let toi = ball_ball(&bi, &bj);
    let swapped = ball_ball(&bj, &bi);
    prop_assert_eq!(toi.time.to_bits(), swapped.time.to_bits());
    prop_assert!(!toi.time.is_nan());
    let dist = |t: f64| (bi.position_at(t) - bj.position_at(t)).length();
    if toi.is_hit() {
        prop_assert!(toi.time >= t0);
        let d = dist(toi.time);
        prop_assert!(
            (d - sigma).abs() <= 1e-9 * sigma.max(dist(t0)),
            "distance {} at contact, sigma {}",
            d,
            sigma
        );
        for k in 1..64 {
            let t = t0 + (toi.time - t0) * (k as f64 / 64.0);
            prop_assert!(
                dist(t) >= sigma * (1.0 - 1e-12),
                "contact before the predicted time at {}",
                t
            );
        }
    } else {
        prop_assert!(matches!(
            toi.status,
            ToiStatus::Separating | ToiStatus::Grazing
        ));
        for k in 0..200 {
            let t = t0 + k as f64 * 0.5;
            prop_assert!(dist(t) >= sigma * (1.0 - 1e-9), "missed a contact at {}", t);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    #[test]
    fn ball_ball_2d(pi in v2(), vi in v2(), ti in 0.0..3.0f64, pj in v2(), vj in v2(), tj in 0.0..3.0f64,
                    ri in 0.05..2.0f64, rj in 0.05..2.0f64) {
        check_ball_ball(pi, vi, ti, pj, vj, tj, ri, rj)?;
    }

    #[test]
    fn ball_ball_3d(pi in v3(), vi in v3(), ti in 0.0..3.0f64, pj in v3(), vj in v3(), tj in 0.0..3.0f64,
                    ri in 0.05..2.0f64, rj in 0.05..2.0f64) {
        check_ball_ball(pi, vi, ti, pj, vj, tj, ri, rj)?;
    }

    #[test]
    fn ball_segment_2d(p in v2(), v in v2(), a in v2(), b in v2(), r in 0.05..2.0f64, t0 in 0.0..3.0f64) {
        let seg = WallSegment::new(a, b);
        prop_assume!(seg.is_some());
        let seg = seg.unwrap();
        let mut ball = Body::new(p, v, r, 1.0);
        ball.time = t0;
        prop_assume!(seg.distance(p) - r > 1e-6);
        let toi = ball_segment(&ball, &seg);
        prop_assert!(!toi.time.is_nan());
        let dist = |t: f64| seg.distance(ball.position_at(t));
        if toi.is_hit() {
            prop_assert!(toi.time >= t0);
            let d = dist(toi.time);
            prop_assert!((d - r).abs() <= 1e-9 * r.max(dist(t0)), "distance {} at contact, radius {}", d, r);
            for k in 1..64 {
                let t = t0 + (toi.time - t0) * (k as f64 / 64.0);
                prop_assert!(dist(t) >= r * (1.0 - 1e-12), "contact before the predicted time at {}", t);
            }
        } else {
            for k in 0..200 {
                let t = t0 + k as f64 * 0.5;
                prop_assert!(dist(t) >= r * (1.0 - 1e-9), "missed a contact at {}", t);
            }
        }
    }
}

#[test]
fn overlapping_approaching_pair_collides_at_once() {
    let mut bi = Body::new(DVec2::new(0.0, 0.0), DVec2::new(1.0, 0.0), 1.0, 1.0);
    bi.time = 2.0;
    let bj = Body::new(DVec2::new(1.9, 0.0), DVec2::ZERO, 1.0, 1.0);
    let toi = ball_ball(&bi, &bj);
    assert_eq!(toi.status, ToiStatus::Penetrating);
    assert_eq!(toi.time, 2.0);
    // The same overlap, separating: no contact.
    let bk = Body::new(DVec2::new(-1.9, 0.0), DVec2::ZERO, 1.0, 1.0);
    assert_eq!(ball_ball(&bi, &bk).status, ToiStatus::Separating);
}

#[test]
fn exact_graze_is_not_a_contact() {
    let bi = Body::new(DVec2::new(0.0, 2.0), DVec2::new(1.0, 0.0), 1.0, 1.0);
    let bj = Body::new(DVec2::new(10.0, 0.0), DVec2::ZERO, 1.0, 1.0);
    assert_eq!(ball_ball(&bi, &bj).status, ToiStatus::Grazing);
}

#[test]
fn extreme_values_never_give_nan() {
    let vals = [
        0.0,
        -0.0,
        1e-300,
        -1e-300,
        1e100,
        -1e100,
        1.0,
        f64::MIN_POSITIVE,
    ];
    for &x in &vals {
        for &v in &vals {
            let bi = Body::new(DVec2::new(x, 0.0), DVec2::new(v, v), 1.0, 1.0);
            let bj = Body::new(DVec2::new(0.0, x), DVec2::new(-v, 0.0), 1e-3, 1.0);
            let t = ball_ball(&bi, &bj);
            assert!(!t.time.is_nan(), "{x} {v}");
            let seg = WallSegment::new(DVec2::new(-1.0, -5.0), DVec2::new(1.0, -5.0)).unwrap();
            assert!(!ball_segment(&bi, &seg).time.is_nan());
        }
    }
}
