//! The integration tests of `kairos`, one test binary: each file below is a module.
//! One binary links once, where a binary per file linked the library dozens of times.

mod common;
// The random shape pairs of the geometry crate's tests.
#[path = "../../../kairos-geometry/tests/suite/pairs/mod.rs"]
mod pairs;

mod bad_input;
mod compound;
mod discrete;
mod discrete_rigid;
mod dissipative;
mod ellipsoids;
mod equation_of_state;
mod equivalence;
mod fuzz_readers;
mod gravity;
mod gravity_checkpoint;
mod invariants;
mod layers;
mod lone_spinners;
mod mesh_bodies;
mod messages;
mod periodic_filter;
mod rigid;
mod rigid_checkpoint;
mod rigid_logs;
mod rigid_scene;
mod small_and_far;
mod static_shapes;
mod toi_advancement;
mod toi_properties;
mod trace_contents;
