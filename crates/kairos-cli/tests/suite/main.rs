//! The integration tests of `kairos-cli`, one test binary: each file below is a module.
//! One binary links once, where a binary per file linked the library dozens of times.

mod common;

mod bench_d2m;
mod ccd;
mod cli;
mod data_safety;
mod discrete_cli;
mod gas_and_checkpoints;
mod golden;
mod gravity;
mod gsd_frames;
mod inputs_kept;
mod large_scenes;
mod messages;
mod options;
mod plots;
mod query;
mod rigid;
mod stepped_cli;
mod sweep;
mod viewer;
