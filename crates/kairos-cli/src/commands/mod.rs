//! The commands that simulate (`run`, `demo`, `generate`) and read traces back (`export`,
//! `frames`, `diff`), `query`, the convex queries on a pair of bodies, and `ccd`, the
//! continuous collision detection of triangle features on benchmark query files; `sweep`, a
//! grid of independent runs on all cores.

pub mod ccd;
pub mod demo;
pub mod generate;
pub mod inspect;
pub mod query;
pub mod run;
pub mod simulate;
pub mod stepped_run;
pub mod stepper;
pub mod sweep;
