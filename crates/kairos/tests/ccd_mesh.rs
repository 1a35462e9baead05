//! The time of contact of two moving, rotating triangle meshes (`kairos::ccd::tree`): on
//! convex meshes against the exact convex distance (GJK) of their hulls sampled densely, never
//! after the first sampled overlap, never a missed one, and touching (not overlapping) at the
//! reported time.

use kairos::ccd::mesh::TriMesh;
use kairos::ccd::rotating::ScrewMotion;
use kairos::ccd::tree::{mesh_contact, MeshBody, MeshContact};
use kairos::math::DVec3;
use kairos::query::{distance, GjkOptions, GjkStatus};
use kairos::shape::{Pose, Shape};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The signed distance of the two meshes' hulls at `t` (negative when they overlap: GJK
/// reports only that).
fn hull_gap(a: &TriMesh, ma: &ScrewMotion, b: &TriMesh, mb: &ScrewMotion, t: f64) -> f64 {
    let hull = |m: &TriMesh, motion: &ScrewMotion| {
        let pts: Vec<DVec3> = m
            .vertices()
            .iter()
            .map(|&p| DVec3::from_array(motion.at(p, t)))
            .collect();
        Shape::polyhedron(&pts).unwrap()
    };
    let (sa, sb) = (hull(a, ma), hull(b, mb));
    let g = distance(
        &sa,
        &Pose::IDENTITY,
        &sb,
        &Pose::IDENTITY,
        &GjkOptions::default(),
        None,
    );
    if g.status == GjkStatus::Intersecting {
        -1.0
    } else {
        g.distance
    }
}

#[test]
fn spinning_icospheres_meet_at_the_sampled_contact() {
    let mut rng = Pcg64::seed_from_u64(31);
    let a = TriMesh::icosphere(1.0, 1);
    let (mut hits, mut misses) = (0, 0);
    let (worst, least) = (
        std::cell::Cell::new(0.0f64),
        std::cell::Cell::new(f64::INFINITY),
    );
    for case in 0..40 {
        let offset = [4.0, rng.gen_range(-2.5..2.5), rng.gen_range(-2.5..2.5)];
        let b = TriMesh::icosphere(rng.gen_range(0.5..1.2), 1).translated(offset);
        let ma = ScrewMotion {
            centre: [0.0; 3],
            velocity: [0.5, 0.0, 0.0],
            angular_velocity: [0; 3].map(|_| rng.gen_range(-3.0..3.0)),
        };
        let mb = ScrewMotion {
            centre: offset,
            velocity: [-2.0, rng.gen_range(-0.5..0.5), 0.0],
            angular_velocity: [0; 3].map(|_| rng.gen_range(-3.0..3.0)),
        };
        let until = 2.0;
        let (ba, bb) = (MeshBody::new(a.clone()), MeshBody::new(b.clone()));
        let eps = 1e-7;
        let got = mesh_contact(&ba, &ma, &bb, &mb, until, eps, &Default::default());
        // Touching at the root finder's time; about eps apart at the reported one, and the
        // normal from a to b.
        let check = |case: usize, c: &MeshContact, eps: f64| {
            let at_first = hull_gap(&a, &ma, &b, &mb, c.first);
            assert!(
                (0.0..0.5 * eps).contains(&at_first),
                "case {case}: gap {at_first} at {c:?}"
            );
            let gap = hull_gap(&a, &ma, &b, &mb, c.time);
            assert!(
                (0.0..=2.0 * eps).contains(&gap),
                "case {case}: gap {gap} at {c:?}"
            );
            worst.set(worst.get().max(gap / eps));
            least.set(least.get().min(gap / eps));
            let ca = ma.at([0.0; 3], c.first);
            let cb = mb.at(offset, c.first);
            let towards: f64 = (0..3).map(|i| c.normal[i] * (cb[i] - ca[i])).sum();
            assert!(
                towards > 0.0 && c.approach_speed > 0.0,
                "case {case}: {c:?}"
            );
        };
        let steps = 2000;
        let first = (1..=steps)
            .map(|k| until * k as f64 / steps as f64)
            .find(|&t| hull_gap(&a, &ma, &b, &mb, t) < 0.0);
        match (first, got) {
            (Some(r), Some(c)) => {
                assert!(
                    c.first <= r,
                    "case {case}: {c:?} after the sampled overlap at {r}"
                );
                check(case, &c, eps);
                hits += 1;
            }
            (Some(r), None) => panic!("case {case}: missed the overlap at {r}"),
            (None, Some(c)) => {
                check(case, &c, eps);
                hits += 1;
            }
            (None, None) => misses += 1,
        }
    }
    println!(
        "{hits} contacts, {misses} passes; gap at the reported time {:.3}..{:.3} of the separation",
        least.get(),
        worst.get()
    );
    assert!(hits > 10 && misses > 5, "{hits} {misses}");
}
