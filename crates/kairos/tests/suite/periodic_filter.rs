//! The calendar's rejection test `ball_ball_periodic_cannot_hit_by` only rejects pairs whose
//! periodic prediction reports no contact at or before the given time, whatever the window end,
//! so the calendar's entries (and event logs) are those it computed without the test; and when
//! the screen (`PeriodicScreen`) hands a pair to its minimum image, that image alone decides
//! every contact at or before the given time exactly as the full prediction does. The batch
//! form of the screen (`PairScreen`) gives the screen's verdicts, and rejects more as its limit
//! falls; the bound over a batch of them (`ScreenBatch`) never drops a pair the screen keeps.

use kairos::ball_toi::{
    ball_ball_periodic, ball_ball_periodic_cannot_hit_by, ball_ball_periodic_until, PairScreen,
    PeriodicScreen, ScreenBatch,
};
use kairos::prelude::*;
use proptest::prelude::*;

fn up(x: f64) -> f64 {
    if x >= 0.0 {
        f64::from_bits(x.to_bits() + 1)
    } else {
        f64::from_bits(x.to_bits() - 1)
    }
}
fn down(x: f64) -> f64 {
    -up(-x)
}

/// Checks the claim for `t_max` around the prediction's own time and at the given values.
fn check<V: Vector>(bi: &Body<V>, bj: &Body<V>, l: V, extra: &[f64]) -> Result<u32, TestCaseError> {
    let full = ball_ball_periodic(bi, bj, l);
    let mut tmaxes = extra.to_vec();
    if full.is_hit() {
        let t = full.time;
        tmaxes.extend([
            t,
            up(t),
            down(t),
            down(down(t)),
            t * (1.0 - 1e-12),
            t * (1.0 - 1e-7),
        ]);
    }
    let t_ref = bi.time.max(bj.time);
    tmaxes.extend([t_ref, up(t_ref), down(t_ref), 0.0]);
    let mut rejected = 0;
    let screen = PairScreen::new(bi, bj, l);
    for &t_max in &tmaxes {
        // The batch screen's verdict is the screen's, and it only rejects more as a
        // non-negative t_max falls.
        let rejects = screen.rejects(t_max);
        prop_assert_eq!(
            rejects,
            matches!(PeriodicScreen::of(bi, bj, l, t_max), PeriodicScreen::Reject),
            "batch screen against the screen (t_max {}): {:?} {:?} {:?}",
            t_max,
            bi,
            bj,
            l
        );
        for &lower in &tmaxes {
            prop_assert!(
                !(rejects && (0.0..t_max).contains(&lower)) || screen.rejects(lower),
                "rejected for t_max {t_max} but not for {lower}: {bi:?} {bj:?} {l:?}"
            );
        }
        if let PeriodicScreen::MinImage(m) = PeriodicScreen::of(bi, bj, l, t_max) {
            for end in [
                f64::INFINITY,
                full.time,
                1e3,
                t_ref,
                t_max,
                up(t_max),
                down(t_max),
            ] {
                let r = ball_ball_periodic_until(bi, bj, l, end);
                let fast = m.contact_until(end);
                let used =
                    |t: &kairos::ball_toi::Toi| (t.is_hit() && t.time <= t_max).then_some(t.time);
                prop_assert_eq!(
                    used(&r).map(f64::to_bits),
                    used(&fast).map(f64::to_bits),
                    "minimum image {:?} against full {:?} (t_max {}, end {}): {:?} {:?} {:?}",
                    fast,
                    r,
                    t_max,
                    end,
                    bi,
                    bj,
                    l
                );
            }
        }
        if !ball_ball_periodic_cannot_hit_by(bi, bj, l, t_max) {
            continue;
        }
        rejected += 1;
        for end in [f64::INFINITY, full.time, 1e3, t_ref, t_max] {
            let r = ball_ball_periodic_until(bi, bj, l, end);
            prop_assert!(
                !(r.is_hit() && r.time <= t_max),
                "rejected for t_max {t_max} but hit at {} (end {end}): {bi:?} {bj:?} {l:?}",
                r.time
            );
        }
        prop_assert!(!(full.is_hit() && full.time <= t_max));
    }
    Ok(rejected)
}

fn v3(lo: f64, hi: f64) -> impl Strategy<Value = DVec3> {
    (lo..hi, lo..hi, lo..hi).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}
fn v2(lo: f64, hi: f64) -> impl Strategy<Value = DVec2> {
    (lo..hi, lo..hi).prop_map(|(x, y)| DVec2::new(x, y))
}

fn body<V: Vector>(p: V, v: V, t: f64, r: f64) -> Body<V> {
    let mut b = Body::new(p, v, r, 1.0);
    b.time = t;
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Random states in a 3D box (positions inside it, local times apart).
    #[test]
    fn random_3d(
        l in v3(4.0, 12.0),
        fi in v3(0.0, 1.0), fj in v3(0.0, 1.0),
        vi in v3(-3.0, 3.0), vj in v3(-3.0, 3.0),
        ti in 0.0..2.0f64, tj in 0.0..2.0f64,
        ri in 0.1..0.95f64, rj in 0.1..0.95f64,
        extra in proptest::collection::vec(0.0..5.0f64, 4),
    ) {
        let p = |f: DVec3| f * l;
        let bi = body(p(fi), vi, ti, ri);
        let bj = body(p(fj), vj, tj, rj);
        check(&bi, &bj, l, &extra)?;
        check(&bj, &bi, l, &extra)?;
    }

    /// Near contact: j placed at distance `sigma (1 + gap)` from i, possibly across a face.
    #[test]
    fn near_contact_3d(
        l in v3(4.0, 12.0),
        fi in v3(0.0, 1.0),
        dir in v3(-1.0, 1.0),
        gap in prop_oneof![0.0..1e-12f64, 0.0..1e-6f64, 0.0..0.5f64],
        vi in v3(-3.0, 3.0), vj in v3(-3.0, 3.0),
        t in 0.0..2.0f64,
        ri in 0.1..0.95f64, rj in 0.1..0.95f64,
        extra in proptest::collection::vec(0.0..3.0f64, 4),
    ) {
        prop_assume!(dir.length() > 1e-3);
        let pi = fi * l;
        let mut pj = pi + dir.normalize() * ((ri + rj) * (1.0 + gap));
        for a in 0..3 {
            let la = l.comp(a);
            let x = pj[a] - (pj[a] / la).floor() * la;
            pj[a] = if x >= la { 0.0 } else { x };
        }
        let bi = body(pi, vi, t, ri);
        let bj = body(pj, vj, t, rj);
        check(&bi, &bj, l, &extra)?;
        check(&bj, &bi, l, &extra)?;
    }

    /// 2D, random states.
    #[test]
    fn random_2d(
        l in v2(4.0, 12.0),
        fi in v2(0.0, 1.0), fj in v2(0.0, 1.0),
        vi in v2(-3.0, 3.0), vj in v2(-3.0, 3.0),
        ti in 0.0..2.0f64, tj in 0.0..2.0f64,
        ri in 0.1..0.95f64, rj in 0.1..0.95f64,
        extra in proptest::collection::vec(0.0..5.0f64, 4),
    ) {
        let bi = body(fi * l, vi, ti, ri);
        let bj = body(fj * l, vj, tj, rj);
        check(&bi, &bj, l, &extra)?;
        check(&bj, &bi, l, &extra)?;
    }
}

/// Checks the batch bound on one body's pairs with `others` for each `t_max` (and around the
/// pairs' own contact times and keys): whenever it gives a bound, every pair the screen keeps
/// has a key not above it. Returns how many pairs the bound dropped.
fn check_batch<V: Vector>(
    bi: &Body<V>,
    others: &[Body<V>],
    l: V,
    extra: &[f64],
) -> Result<usize, TestCaseError> {
    let screens: Vec<PairScreen> = others.iter().map(|bj| PairScreen::new(bi, bj, l)).collect();
    let mut batch = ScreenBatch::new();
    for s in &screens {
        batch.add(s);
    }
    let mut tmaxes = extra.to_vec();
    for (bj, s) in others.iter().zip(&screens) {
        let full = ball_ball_periodic(bi, bj, l);
        for t in [full.time, s.key(), bi.time.max(bj.time)] {
            if t.is_finite() {
                tmaxes.extend([t, up(t), down(t), t * (1.0 + 1e-7), t * (1.0 - 1e-7)]);
            }
        }
    }
    let mut dropped = 0;
    for &t_max in &tmaxes {
        let Some(bound) = batch.key_bound(t_max) else {
            continue;
        };
        for (k, s) in screens.iter().enumerate() {
            let kept = !(s.key() > bound);
            prop_assert!(
                kept || s.rejects(t_max),
                "pair {k} dropped by the bound {bound} but kept by the screen (t_max {t_max}): \
                 {bi:?} {:?} {l:?}",
                others[k]
            );
            dropped += !kept as usize;
        }
    }
    Ok(dropped)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Batches of random neighbours, some near contact, with local times apart and a common
    /// offset that may be large (the bound's margins are relative to the times).
    #[test]
    fn batch_bound_keeps_what_the_screen_keeps(
        l in v3(4.0, 12.0),
        fi in v3(0.0, 1.0),
        vi in v3(-3.0, 3.0),
        ti in 0.0..2.0f64,
        offset in prop_oneof![Just(0.0f64), -10.0..10.0f64, 1e6..1e9f64],
        ri in 0.1..0.95f64,
        js in proptest::collection::vec(
            (v3(-1.0, 1.0), 0.0..0.6f64, v3(-3.0, 3.0), 0.0..2.0f64, 0.1..0.95f64),
            1..16,
        ),
        extra in proptest::collection::vec(0.0..3.0f64, 4),
    ) {
        let pi = fi * l;
        let bi = body(pi, vi, ti + offset, ri);
        let others: Vec<Body<DVec3>> = js
            .iter()
            .filter(|(dir, ..)| dir.length() > 1e-3)
            .map(|&(dir, gap, v, t, r)| {
                let mut pj = pi + dir.normalize() * ((ri + r) * (1.0 + gap));
                for a in 0..3 {
                    let la = l.comp(a);
                    let x = pj[a] - (pj[a] / la).floor() * la;
                    pj[a] = if x >= la { 0.0 } else { x };
                }
                body(pj, v, t + offset, r)
            })
            .collect();
        prop_assume!(!others.is_empty());
        let extra: Vec<f64> = extra.iter().map(|t| t + offset).collect();
        check_batch(&bi, &others, l, &extra)?;
    }
}

/// The bound is not vacuous: on dense-gas-like neighbourhoods it drops most pairs for a near
/// limit.
#[test]
fn batch_bound_drops_most_pairs() {
    use rand::SeedableRng;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
    let l = DVec3::splat(10.0);
    let (mut dropped, mut pairs) = (0, 0);
    for _ in 0..500 {
        let mut g = |s: f64| random_v3(&mut rng, s);
        let pi = g(10.0);
        let bi = body(pi, g(2.0) - DVec3::splat(1.0), 0.0, 0.5);
        let others: Vec<Body<DVec3>> = (0..12)
            .map(|_| {
                let dir = (g(2.0) - DVec3::splat(1.0)).normalize();
                let pj = (pi + dir * (1.0 + 0.6 * g(1.0).x)).rem_euclid(l);
                body(pj, g(2.0) - DVec3::splat(1.0), 0.0, 0.5)
            })
            .collect();
        let mut batch = ScreenBatch::new();
        for bj in &others {
            batch.add(&PairScreen::new(&bi, bj, l));
        }
        let bound = batch.key_bound(0.05).expect("a near limit gives a bound");
        for bj in &others {
            pairs += 1;
            dropped += (PairScreen::new(&bi, bj, l).key() > bound) as usize;
        }
        check_batch(&bi, &others, l, &[0.05]).expect("the bound only prunes");
    }
    assert!(dropped * 10 > pairs * 6, "{dropped} of {pairs}");
}

/// A vector with components uniform in `[0, s)`.
fn random_v3(rng: &mut impl rand::Rng, s: f64) -> DVec3 {
    DVec3::new(
        rng.gen::<f64>() * s,
        rng.gen::<f64>() * s,
        rng.gen::<f64>() * s,
    )
}

/// The test is not vacuous: on random dense-gas-like states it rejects most pairs.
#[test]
fn rejects_most_far_pairs() {
    use rand::SeedableRng;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
    let l = DVec3::splat(10.0);
    let mut rejected = 0;
    for _ in 0..10_000 {
        let mut g = |s: f64| random_v3(&mut rng, s);
        let pi = g(10.0);
        let pj = g(10.0);
        let vi = g(2.0) - DVec3::splat(1.0);
        let vj = g(2.0) - DVec3::splat(1.0);
        let bi = body(pi, vi, 0.0, 0.5);
        let bj = body(pj, vj, 0.0, 0.5);
        if ball_ball_periodic_cannot_hit_by(&bi, &bj, l, 0.1) {
            rejected += 1;
            let r = ball_ball_periodic(&bi, &bj, l);
            assert!(!(r.is_hit() && r.time <= 0.1));
        }
    }
    assert!(rejected > 9_000, "{rejected}");
}

/// The minimum-image decision is not vacuous: on approaching pairs near contact, the screen
/// at the pair's own contact time hands most of them to the minimum image, which reports that
/// very time.
#[test]
fn minimum_image_decides_most_near_pairs() {
    use rand::SeedableRng;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(9);
    let l = DVec3::splat(10.0);
    let (mut hits, mut decided) = (0, 0);
    for _ in 0..10_000 {
        let mut g = |s: f64| random_v3(&mut rng, s);
        let pi = g(10.0);
        let dir = g(2.0) - DVec3::splat(1.0);
        let pj = (pi + dir.normalize() * 1.05).rem_euclid(l);
        let bi = body(pi, g(2.0) - DVec3::splat(1.0), 0.0, 0.5);
        let bj = body(pj, g(2.0) - DVec3::splat(1.0), 0.0, 0.5);
        let full = ball_ball_periodic(&bi, &bj, l);
        if !full.is_hit() {
            continue;
        }
        hits += 1;
        if let PeriodicScreen::MinImage(m) = PeriodicScreen::of(&bi, &bj, l, full.time) {
            let end = kairos::ball_toi::box_exit(&bi, l)
                .0
                .min(kairos::ball_toi::box_exit(&bj, l).0);
            assert_eq!(m.contact_until(end).time.to_bits(), full.time.to_bits());
            decided += 1;
        }
    }
    assert!(
        hits > 1_000 && decided * 10 > hits * 9,
        "{decided} of {hits}"
    );
}
