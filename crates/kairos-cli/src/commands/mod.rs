//! The commands that simulate (`run`, `demo`, `generate`) and read traces back (`export`,
//! `frames`, `diff`), and `query`, the convex queries on a pair of bodies.

pub mod inspect;
pub mod query;
pub mod run;
pub mod stepper;
