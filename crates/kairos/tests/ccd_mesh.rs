//! The time of contact of two moving, rotating triangle meshes (`kairos::ccd::tree`): on
//! convex meshes against the exact convex distance (GJK) of their hulls sampled densely, never
//! after the first sampled overlap, never a missed one, and touching (not overlapping) at the
//! reported time.

use kairos::ccd::mesh::TriMesh;
use kairos::ccd::rotating::ScrewMotion;
use kairos::ccd::tree::{mesh_contact, MeshBody};
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
        let got = mesh_contact(&ba, &ma, &bb, &mb, until, &Default::default());
        let steps = 2000;
        let first = (1..=steps)
            .map(|k| until * k as f64 / steps as f64)
            .find(|&t| hull_gap(&a, &ma, &b, &mb, t) < 0.0);
        match (first, got) {
            (Some(r), Some(t)) => {
                assert!(t <= r, "case {case}: {t} after the sampled overlap at {r}");
                let gap = hull_gap(&a, &ma, &b, &mb, t);
                assert!((0.0..1e-6).contains(&gap), "case {case}: gap {gap} at {t}");
                hits += 1;
            }
            (Some(r), None) => panic!("case {case}: missed the overlap at {r}"),
            (None, Some(t)) => {
                let gap = hull_gap(&a, &ma, &b, &mb, t);
                assert!((0.0..1e-6).contains(&gap), "case {case}: gap {gap} at {t}");
                hits += 1;
            }
            (None, None) => misses += 1,
        }
    }
    println!("{hits} contacts, {misses} passes");
    assert!(hits > 10 && misses > 5, "{hits} {misses}");
}
