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
    let mut sim = Simulation::new(scene.world::<V>(), kind.build::<V>(opts), scene.duration);
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
