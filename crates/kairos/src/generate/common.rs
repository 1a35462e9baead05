//! What the generators share: the checks of durations, magnitudes, spins and restitution, a
//! scene's restitution, TOML numbers, and the validated scene of rigid bodies given by their
//! tables.

use super::error::GenerateError;
use crate::scene::{Scene, SceneError, WallSpec};

/// `scene` with restitution `e`: a dissipative scene states its contact duration (the default
/// for its bodies), so that the file says which `t_c` it is simulated with.
pub(super) fn with_restitution(mut scene: Scene, e: f64) -> Scene {
    scene.restitution = e;
    if e < 1.0 {
        scene.contact_duration = Some(scene.default_contact_duration());
    }
    scene
}

/// A scene's dimension: 2 or 3.
pub(super) fn check_dim(dim: usize) -> Result<(), GenerateError> {
    if dim == 2 || dim == 3 {
        Ok(())
    } else {
        Err(GenerateError::OutOfRange {
            name: "dim",
            range: "2 or 3",
            got: dim as f64,
        })
    }
}

/// A scene of `n` rigid bodies: at least one, at most [`RigidGasParams::MAX_BODIES`].
pub(super) fn check_rigid_count(n: usize) -> Result<(), GenerateError> {
    let max = super::RigidGasParams::MAX_BODIES;
    if n == 0 || n > max {
        return Err(GenerateError::Bodies { n, max });
    }
    Ok(())
}

/// A gravity strength: positive, finite and at most what a scene file holds.
pub(super) fn check_gravity(g: f64) -> Result<(), GenerateError> {
    check_at_most("gravity", g)?;
    if !(g > 0.0 && g.is_finite()) {
        return Err(GenerateError::OutOfRange {
            name: "gravity",
            range: "positive (its strength: it points down)",
            got: g,
        });
    }
    Ok(())
}

/// A scene's duration: positive, and at most what a scene file holds
/// ([`crate::scene::MAX_MAGNITUDE`]), so that the reader takes every generated scene.
pub(super) fn check_duration(duration: f64) -> Result<(), GenerateError> {
    check_at_most("duration", duration)?;
    if !(duration > 0.0) {
        return Err(GenerateError::NotPositive { names: "duration" });
    }
    Ok(())
}

/// A round number (one significant digit) at least `x`, for advice.
pub(super) fn nice_above(x: f64) -> f64 {
    let exp = x.log10().floor() as i32;
    let digit = (x / 10f64.powi(exp)).ceil();
    // Parsed from its decimal form, so that it prints as written (`5e-297`).
    format!("{digit}e{exp}")
        .parse::<f64>()
        .ok()
        .filter(|r| r.is_finite() && *r >= x)
        .unwrap_or(x)
}

/// A parameter the scene file holds (or scales what it holds) is at most
/// [`crate::scene::MAX_MAGNITUDE`] in size.
pub(super) fn check_at_most(name: &'static str, x: f64) -> Result<(), GenerateError> {
    let max = crate::scene::MAX_MAGNITUDE;
    if x.abs() > max && !x.is_nan() {
        return Err(GenerateError::TooLarge { name, got: x, max });
    }
    Ok(())
}

/// A body spinning at up to `spin` for `duration` turns at most [`crate::rigid::MAX_TURN`]
/// radians, as scenes require.
pub(super) fn check_turn(spin: f64, duration: f64) -> Result<(), GenerateError> {
    if spin * duration > crate::rigid::MAX_TURN {
        return Err(GenerateError::TooMuchTurn { spin, duration });
    }
    Ok(())
}

pub(super) fn check_restitution(e: f64) -> Result<(), GenerateError> {
    if (0.0..=1.0).contains(&e) {
        Ok(())
    } else {
        Err(GenerateError::OutOfRange {
            name: "restitution",
            range: "in [0, 1] (1 = elastic)",
            got: e,
        })
    }
}

/// A TOML number.
pub(super) fn float(x: f64) -> toml::Value {
    toml::Value::Float(x)
}

/// A TOML array of numbers.
pub(super) fn floats(xs: &[f64]) -> toml::Value {
    toml::Value::Array(xs.iter().map(|&x| float(x)).collect())
}

/// The scene of rigid bodies given by their tables, with `walls`, validated.
pub(super) fn rigid_scene(
    dim: usize,
    walls: Vec<WallSpec>,
    tables: Vec<toml::Table>,
    duration: f64,
    restitution: f64,
) -> Result<Scene, GenerateError> {
    let bodies = tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            crate::scene::rigid_body_spec(dim, t).map_err(|message| {
                GenerateError::Invalid(SceneError::Invalid {
                    item: crate::scene::Item::Body(i),
                    message,
                })
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let scene = with_restitution(
        Scene {
            dim,
            duration,
            restitution: 1.0,
            contact_duration: None,
            gravity: [0.0; 3],
            rest_speed: None,
            friction: 0.0,
            walls,
            bodies,
            periodic: None,
            shapes: tables.into_iter().map(|t| Some(t.into())).collect(),
            meshes: Default::default(),
        },
        restitution,
    );
    scene.validate().map_err(GenerateError::Invalid)?;
    Ok(scene)
}
