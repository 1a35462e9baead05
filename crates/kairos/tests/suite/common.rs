//! Helpers shared by the integration tests.
#![allow(dead_code)]

use kairos::prelude::*;
use kairos::trace::Record;

/// Runs `scene` with `kind` and returns every event record.
pub fn records<V: Vector>(
    scene: &Scene,
    kind: BroadPhaseKind,
    opts: &BroadPhaseOptions,
) -> Vec<Record> {
    let mut sim = Simulation::new(
        scene.world::<V>().unwrap(),
        kind.build::<V>(opts),
        scene.duration,
    );
    let mut out = Vec::new();
    sim.run(|e, w, dt| out.push(Record::from_event(e, w, dt)));
    out
}

/// Asserts that two event logs are bit-identical (ignoring the broad phase's look-ahead).
pub fn assert_same_log(a: &[Record], b: &[Record], what: &str) {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            x.same_event(y),
            "{what}: event {i} differs:\n  {x:?}\n  {y:?}"
        );
    }
    assert_eq!(a.len(), b.len(), "{what}: different event counts");
}

/// FNV-1a hash of an event log with the broad phase's look-ahead zeroed, so that every broad
/// phase hashes its log to the same value.
pub fn log_hash(log: &[Record]) -> u64 {
    let mut h = kairos::trace::Fnv1a::default();
    for r in log {
        let mut bytes = r.to_bytes();
        bytes[8..16].fill(0);
        h.update(&bytes);
    }
    h.value()
}

/// The signed gap of two placed shapes (negative: the penetration depth).
pub fn shape_gap<V: Vector>(
    a: &kairos::shape::Shape<V>,
    pa: &kairos::shape::Pose<V>,
    b: &kairos::shape::Shape<V>,
    pb: &kairos::shape::Pose<V>,
) -> f64 {
    use kairos::query::{distance, penetration, EpaOptions, GjkOptions, GjkStatus};
    let g = distance(a, pa, b, pb, &GjkOptions::default(), None);
    if g.status == GjkStatus::Intersecting {
        -penetration(a, pa, b, pb, &EpaOptions::default()).depth
    } else {
        g.distance
    }
}

/// The least gap of a rigid world at `t` (negative: the depth of the deepest overlap) over
/// every pair of bodies whose bounding spheres meet, and every body against every plane and
/// static shape wall; each body moved to `t` by its own free motion (under gravity when it
/// acts on it).
pub fn min_gap<V: Vector>(w: &World<V>, t: f64) -> f64 {
    use kairos::shape::{Pose, SupportMap};
    let centre = |i: usize| w.body_state_at(i, t).0;
    let poses: Vec<Pose<V>> = (0..w.bodies().len())
        .map(|i| {
            let r = &w.rigid()[i];
            r.shape_pose(centre(i), r.at(t - w.bodies()[i].time).0)
        })
        .collect();
    // A body's shapes: one, or a compound body's pieces.
    let shapes = |i: usize| {
        let r = &w.rigid()[i];
        &w.shapes()[r.shape as usize..(r.shape + r.pieces) as usize]
    };
    let mut least = f64::INFINITY;
    for i in 0..poses.len() {
        for j in i + 1..poses.len() {
            if (centre(i) - centre(j)).length() <= w.bodies()[i].radius + w.bodies()[j].radius {
                // Two meshes: the distance of their surfaces, over their trees.
                if let Some(d) = w.mesh_distance(i, j, t) {
                    least = least.min(d);
                    continue;
                }
                for a in shapes(i) {
                    for b in shapes(j) {
                        least = least.min(shape_gap(a, &poses[i], b, &poses[j]));
                    }
                }
            }
        }
        for wall in w.walls() {
            for a in shapes(i) {
                match wall {
                    Wall::Plane(p) => {
                        let low = SupportMap::support(a, &poses[i], -p.normal);
                        least = least.min(p.signed_distance(low));
                    }
                    Wall::Shape(s) => {
                        least = least.min(shape_gap(a, &poses[i], &s.shape, &s.pose));
                    }
                    _ => {}
                }
            }
        }
    }
    least
}
