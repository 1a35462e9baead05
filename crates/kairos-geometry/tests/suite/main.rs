//! The integration tests of `kairos-geometry`, one test binary: each file below is a module.

mod pairs;

mod ccd_mesh;
mod ccd_polyline;
mod ccd_rotating;
mod decompose;
mod ellipsoid;
mod epa;
mod free_rotation;
mod gjk;
mod manifold;
mod overlap;
mod parry_reference;
mod penetration_points;
mod polyhedron;
mod sat;
mod shape_errors;
mod shapes;
mod toi_parry;
mod toi_ray_cast;
