//! The commands that simulate (`run`, `demo`, `generate`) and read traces back (`export`,
//! `frames`, `diff`).

pub mod inspect;
pub mod run;
pub mod stepper;
