//! The time of contact of two moving, rotating triangle meshes (`kairos_geometry::ccd::tree`): on
//! convex meshes against the exact convex distance (GJK) of their hulls sampled densely, never
//! after the first sampled overlap, never a missed one, and touching (not overlapping) at the
//! reported time.

use kairos_geometry::ccd::mesh::TriMesh;
use kairos_geometry::ccd::rotating::ScrewMotion;
use kairos_geometry::ccd::tree::{
    mesh_contact, mesh_contact_or_cancel, LeafCache, MeshBody, MeshContact, MeshQuery,
};
use kairos_geometry::ccd::Cancelled;
use kairos_geometry::math::DVec3;
use kairos_geometry::query::{distance, GjkOptions, GjkStatus};
use kairos_geometry::shape::{Pose, Shape};
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
#[ignore = "long: `cargo test --release --workspace -- --ignored` (run by .ci/run)"]
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
        let ma = ScrewMotion::new(
            [0.0; 3],
            [0.5, 0.0, 0.0],
            [0; 3].map(|_| rng.gen_range(-3.0..3.0)),
        );
        let mb = ScrewMotion::new(
            offset,
            [-2.0, rng.gen_range(-0.5..0.5), 0.0],
            [0; 3].map(|_| rng.gen_range(-3.0..3.0)),
        );
        let until = 2.0;
        let (ba, bb) = (MeshBody::new(a.clone()), MeshBody::new(b.clone()));
        let eps = 1e-7;
        let query = MeshQuery {
            separation: eps,
            ..Default::default()
        };
        let got = mesh_contact(&ba, &ma, &bb, &mb, until, &query, None);
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

/// Capoeira mode reports no later than full D2M, apart; the leaf cache changes nothing of the
/// result; a torus and a spiky ball (not convex) meet no later than sampling finds them.
#[test]
fn capoeira_comes_first_and_the_leaf_cache_changes_nothing() {
    let torus = TriMesh::torus(2.0, 0.5, 24, 12);
    let spiky = TriMesh::spiky_ball(0.6, 1.8, 1).translated([6.0, 0.3, 0.2]);
    let (bt, bs) = (MeshBody::new(torus.clone()), MeshBody::new(spiky.clone()));
    let mt = ScrewMotion::new([0.0; 3], [0.0; 3], [0.3, 1.0, 0.2]);
    let ms = ScrewMotion::new([6.0, 0.3, 0.2], [-3.0, 0.0, 0.0], [2.0, -1.0, 0.5]);
    let full = MeshQuery::default();
    let capoeira = MeshQuery {
        capoeira: true,
        ..full
    };
    let mut cache = LeafCache::default();
    let exact = mesh_contact(&bt, &mt, &bs, &ms, 3.0, &full, Some(&mut cache)).unwrap();
    assert!(cache.leaves.is_some());
    let again = mesh_contact(&bt, &mt, &bs, &ms, 3.0, &full, Some(&mut cache)).unwrap();
    assert_eq!(exact, again);
    let coarse = mesh_contact(&bt, &mt, &bs, &ms, 3.0, &capoeira, None).unwrap();
    assert!(coarse.time <= exact.first, "{coarse:?} {exact:?}");
    // Against sampling: no pair of triangles crosses before the reported time (every vertex
    // stays on its side of every triangle plane it could pierce is too strict for meshes; the
    // hulls of the two leaves' triangles found meeting must be apart just before).
    let steps = 3000;
    for k in 0..steps {
        let t = exact.first * k as f64 / steps as f64;
        assert!(
            !meshes_cross(&torus, &mt, &spiky, &ms, t),
            "crossing at {t}, before {exact:?}"
        );
    }
}

/// Whether some edge of one mesh pierces some triangle of the other at `t` (brute force).
fn meshes_cross(a: &TriMesh, ma: &ScrewMotion, b: &TriMesh, mb: &ScrewMotion, t: f64) -> bool {
    let pa: Vec<[f64; 3]> = a.vertices().iter().map(|&p| ma.at(p, t)).collect();
    let pb: Vec<[f64; 3]> = b.vertices().iter().map(|&p| mb.at(p, t)).collect();
    let pierces = |e: [[f64; 3]; 2], tri: [[f64; 3]; 3]| {
        let sub = |x: [f64; 3], y: [f64; 3]| [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
        let cross = |x: [f64; 3], y: [f64; 3]| {
            [
                x[1] * y[2] - x[2] * y[1],
                x[2] * y[0] - x[0] * y[2],
                x[0] * y[1] - x[1] * y[0],
            ]
        };
        let dot = |x: [f64; 3], y: [f64; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
        let n = cross(sub(tri[1], tri[0]), sub(tri[2], tri[0]));
        let (d0, d1) = (dot(n, sub(e[0], tri[0])), dot(n, sub(e[1], tri[0])));
        if (d0 > 0.0) == (d1 > 0.0) {
            return false;
        }
        let s = d0 / (d0 - d1);
        let p = [0, 1, 2].map(|i| e[0][i] + (e[1][i] - e[0][i]) * s);
        (0..3).all(|k| dot(cross(sub(tri[(k + 1) % 3], tri[k]), sub(p, tri[k])), n) >= 0.0)
    };
    let box_of = |pts: &[[f64; 3]]| {
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for p in pts {
            for i in 0..3 {
                lo[i] = lo[i].min(p[i]);
                hi[i] = hi[i].max(p[i]);
            }
        }
        (lo, hi)
    };
    let (la, ha) = box_of(&pa);
    let (lb, hb) = box_of(&pb);
    if (0..3).any(|i| la[i] > hb[i] || lb[i] > ha[i]) {
        return false;
    }
    let tris = |m: &TriMesh, p: &[[f64; 3]]| -> Vec<[[f64; 3]; 3]> {
        m.triangles()
            .iter()
            .map(|t| t.map(|i| p[i as usize]))
            .collect()
    };
    let edges = |m: &TriMesh, p: &[[f64; 3]]| -> Vec<[[f64; 3]; 2]> {
        m.edges().iter().map(|e| e.map(|i| p[i as usize])).collect()
    };
    let (ta, tb) = (tris(a, &pa), tris(b, &pb));
    edges(a, &pa)
        .iter()
        .any(|&e| tb.iter().any(|&tri| pierces(e, tri)))
        || edges(b, &pb)
            .iter()
            .any(|&e| ta.iter().any(|&tri| pierces(e, tri)))
}

/// A box mesh of half extents `h` centred at `c` (12 triangles, counter-clockwise outside).
fn box_mesh(c: [f64; 3], h: [f64; 3]) -> TriMesh {
    let v: Vec<[f64; 3]> = (0..8)
        .map(|i| {
            let s = |bit: usize, k: usize| if i >> bit & 1 == 1 { h[k] } else { -h[k] };
            [c[0] + s(0, 0), c[1] + s(1, 1), c[2] + s(2, 2)]
        })
        .collect();
    let quads = [
        [0, 2, 3, 1], // -z
        [4, 5, 7, 6], // +z
        [0, 1, 5, 4], // -y
        [2, 6, 7, 3], // +y
        [0, 4, 6, 2], // -x
        [1, 3, 7, 5], // +x
    ];
    let t: Vec<[u32; 3]> = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    TriMesh::new(v, t).unwrap()
}

/// Two boxes meeting face to face (a small one falling flat onto a large one, turned a little
/// or not at all about the vertical): many features touch at once, and an edge of one's side
/// ending on the other's face was taken with the edges' common normal, across the approach,
/// which left no approach speed and so no back-off. The normal is the faces' (+z from `a` to
/// `b`), the approach speed the fall's, and the boxes are left apart.
#[test]
fn boxes_meeting_face_to_face_get_the_faces_normal() {
    let a = box_mesh([0.0; 3], [1.0, 1.0, 1.0]);
    for (k, offset) in [[0.2, 0.1], [0.0, 0.0], [0.5, -0.5], [0.3, 0.7]]
        .iter()
        .enumerate()
    {
        let c = [offset[0], offset[1], 3.0];
        let b = box_mesh(c, [0.5, 0.5, 0.5]);
        let ma = ScrewMotion::new([0.0; 3], [0.0; 3], [0.0; 3]);
        let mb = ScrewMotion::new(c, [0.0, 0.0, -1.0], [0.0; 3]);
        let (ba, bb) = (MeshBody::new(a.clone()), MeshBody::new(b.clone()));
        let query = MeshQuery {
            separation: 1e-7,
            ..Default::default()
        };
        let got = mesh_contact(&ba, &ma, &bb, &mb, 4.0, &query, None).expect("they meet");
        assert!((got.first - 1.5).abs() < 1e-6, "case {k}: {got:?}");
        assert!(got.first <= 1.5, "case {k}: after the contact: {got:?}");
        assert!(got.normal[2] > 0.999, "case {k}: normal {got:?}");
        assert!((got.approach_speed - 1.0).abs() < 1e-6, "case {k}: {got:?}");
        assert!(got.time < got.first, "case {k}: no back-off: {got:?}");
        let gap = hull_gap(&a, &ma, &b, &mb, got.time);
        assert!(gap > 0.5e-7, "case {k}: gap {gap} at {got:?}");
    }
}

/// The cancel hook of a mesh contact query: asked every 64 pairs of nodes; a hook that never
/// stops it changes nothing of the result, one that says stop ends it at once with `Cancelled`
/// and leaves the leaf cache as it was.
#[test]
fn a_mesh_contact_query_stops_when_its_hook_says_so() {
    let torus = MeshBody::new(TriMesh::torus(2.0, 0.5, 48, 24));
    let spiky = MeshBody::new(TriMesh::spiky_ball(0.6, 1.8, 2).translated([6.0, 0.3, 0.2]));
    let mt = ScrewMotion::new([0.0; 3], [0.0; 3], [0.3, 1.0, 0.2]);
    let ms = ScrewMotion::new([6.0, 0.3, 0.2], [-3.0, 0.0, 0.0], [2.0, -1.0, 0.5]);
    let query = MeshQuery::default();
    let exact = mesh_contact(&torus, &mt, &spiky, &ms, 3.0, &query, None).unwrap();
    let asked = std::cell::Cell::new(0u32);
    let never = || {
        asked.set(asked.get() + 1);
        false
    };
    let run = |hook: &dyn Fn() -> bool, cache: Option<&mut LeafCache>| {
        mesh_contact_or_cancel(&torus, &mt, &spiky, &ms, 3.0, &query, cache, Some(hook))
    };
    assert_eq!(run(&never, None), Ok(Some(exact)));
    let total = asked.get();
    assert!(total > 3, "asked {total} times");
    let ask_until = |stop: u32| {
        let asked = std::cell::Cell::new(0u32);
        let mut cache = LeafCache::default();
        let got = run(
            &|| {
                asked.set(asked.get() + 1);
                asked.get() >= stop
            },
            Some(&mut cache),
        );
        (got, asked.get(), cache)
    };
    for stop in [1, total / 2, total] {
        let (got, asked, cache) = ask_until(stop);
        assert_eq!((got, asked), (Err(Cancelled), stop), "stop at {stop}");
        assert_eq!(cache, LeafCache::default(), "stop at {stop}");
    }
    // Stopping nothing: once more than it asks, the query ends as without a hook.
    assert_eq!(ask_until(total + 1).0, Ok(Some(exact)));
}
