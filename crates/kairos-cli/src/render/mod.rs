//! The commands that draw a trace: `view` (a replay page) and `snapshot` (an SVG picture),
//! over the projection and extent of a scene they share (`picture`).

pub mod picture;
pub mod snapshot;
pub mod view;
