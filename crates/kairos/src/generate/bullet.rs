//! [`bullet`]: small fast spinning boxes fired at a thin rotating plank and at each other.

use super::common::{check_duration, check_restitution, check_turn, float, floats, rigid_scene};
use super::error::GenerateError;
use crate::scene::{Scene, WallSpec};

/// Parameters of [`bullet`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BulletParams {
    /// Speed of the bullets.
    pub speed: f64,
    /// Simulated time.
    pub duration: f64,
    /// Coefficient of restitution in `[0, 1]`, as in [`BilliardParams`](super::BilliardParams).
    pub restitution: f64,
}

impl Default for BulletParams {
    fn default() -> Self {
        Self {
            speed: 100.0,
            duration: 2.0,
            restitution: 1.0,
        }
    }
}

/// Bullets, in a 2D room `[0, 40] x [0, 20]` of four walls: in the lower half a small box
/// (half extents 0.2) spinning at 40 rad/s fired at `speed` along x at a thin plank (0.1 x 4
/// half extents) turning at 1 rad/s 27 units away; in the upper half two boxes (half extents
/// 0.3 and 0.25) spinning at 25 and -35 rad/s fired at each other at `speed`. At the default
/// speed a bullet crosses its own size in a few thousandths of a time unit: a prediction that
/// stepped by time instead of by distance would let it pass through the plank.
pub fn bullet(p: &BulletParams) -> Result<Scene, GenerateError> {
    if !(p.speed > 0.0 && p.speed.is_finite() && p.speed <= 1e6) {
        return Err(GenerateError::OutOfRange {
            name: "speed",
            range: "in (0, 1e6]",
            got: p.speed,
        });
    }
    check_duration(p.duration)?;
    // The fastest spin below (the small box's).
    check_turn(40.0, p.duration)?;
    check_restitution(p.restitution)?;
    let body = |half: [f64; 2], at: [f64; 2], angle: f64, v: f64, w: f64| {
        let mut t = toml::Table::new();
        t.insert("shape".into(), "box".into());
        t.insert("half_extents".into(), floats(&half));
        t.insert("position".into(), floats(&at));
        t.insert("orientation".into(), float(angle));
        t.insert("velocity".into(), floats(&[v, 0.0]));
        t.insert("angular_velocity".into(), float(w));
        t
    };
    let tables = vec![
        body([0.1, 4.0], [30.0, 5.0], 0.2, 0.0, 1.0),
        body([0.2, 0.2], [3.0, 5.0], 0.0, p.speed, 40.0),
        body([0.3, 0.3], [5.0, 15.0], 0.3, p.speed, 25.0),
        body([0.25, 0.25], [35.0, 15.0], 0.0, -p.speed, -35.0),
    ];
    let walls = vec![WallSpec::Box {
        min: vec![0.0, 0.0],
        max: vec![40.0, 20.0],
    }];
    rigid_scene(2, walls, tables, p.duration, p.restitution)
}
