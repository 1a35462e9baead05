//! The integration tests of `kairos`, one test binary: each file below is a module.
//! One binary links once, where a binary per file linked the library dozens of times.

mod common;
mod pairs;

mod bad_input;
mod ccd_mesh;
mod ccd_polyline;
mod ccd_rotating;
mod compound;
mod decompose;
mod discrete;
mod discrete_rigid;
mod dissipative;
mod epa;
mod equation_of_state;
mod equivalence;
mod free_rotation;
mod fuzz_readers;
mod gjk;
mod gravity;
mod gravity_checkpoint;
mod invariants;
mod layers;
mod lone_spinners;
mod manifold;
mod mesh_bodies;
mod messages;
mod overlap;
mod parry_reference;
mod penetration_points;
mod periodic_filter;
mod polyhedron;
mod rigid;
mod rigid_checkpoint;
mod rigid_scene;
mod sat;
mod shapes;
mod small_and_far;
mod static_shapes;
mod toi_advancement;
mod toi_parry;
mod toi_properties;
mod toi_ray_cast;
mod trace_contents;
