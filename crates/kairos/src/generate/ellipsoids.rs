//! A gas of hard ellipses (2D) or ellipsoids of revolution (3D) of one aspect ratio in a box
//! room: the shapes colloid and granular scientists simulate after spheres.

use rand::SeedableRng;
use rand_pcg::Pcg64;

use super::common::{floats, rigid_scene};
use super::error::GenerateError;
use super::rigid_gas::{check_rigid_gas, random_motion_2d, random_motion_3d, RigidGasParams};
use crate::scene::{Scene, WallSpec};

/// The most a generated ellipsoid's aspect ratio may differ from 1, either way.
pub const MAX_ASPECT: f64 = 100.0;

/// A gas of `p.n` ellipses (`dim = 2`) or spheroids (`dim = 3`) of aspect ratio `aspect`
/// (the long half axis over the short ones: `aspect > 1` prolate, half axes `[1, 1/a, 1/a]`;
/// `aspect < 1` oblate, `[a, 1, 1]`; 1 a ball as an ellipsoid), each of longest half axis 1 on
/// a site of a square or cubic lattice whose cells are sized to the packing of the bounding
/// discs or balls (as [`polygons`](super::polygons) and [`boxes`](super::boxes)), in a
/// uniformly random orientation, with the motions of those gases (`p.concave` must be 0).
///
/// # Errors
///
/// [`GenerateError`] naming the parameter out of its range: those of the rigid gases, a
/// dimension other than 2 or 3, or an aspect ratio outside `[1/100, 100]`.
pub fn ellipsoids(p: &RigidGasParams, dim: usize, aspect: f64) -> Result<Scene, GenerateError> {
    use std::f64::consts::PI;
    if dim != 2 && dim != 3 {
        return Err(GenerateError::OutOfRange {
            name: "dim",
            range: "2 or 3",
            got: dim as f64,
        });
    }
    if !(1.0 / MAX_ASPECT..=MAX_ASPECT).contains(&aspect) {
        return Err(GenerateError::OutOfRange {
            name: "aspect",
            range: "in [0.01, 100] (the long half axis over the short ones)",
            got: aspect,
        });
    }
    let max_packing = if dim == 2 {
        RigidGasParams::MAX_PACKING_2D
    } else {
        RigidGasParams::MAX_PACKING_3D
    };
    check_rigid_gas(&RigidGasParams { concave: 0.0, ..*p }, max_packing)?;
    if p.concave != 0.0 {
        return Err(GenerateError::OutOfRange {
            name: "concave",
            range: "0 for ellipsoids",
            got: p.concave,
        });
    }
    let half_axes: Vec<f64> = if aspect >= 1.0 {
        (0..dim)
            .map(|i| if i == 0 { 1.0 } else { 1.0 / aspect })
            .collect()
    } else {
        (0..dim)
            .map(|i| if i == 0 { aspect } else { 1.0 })
            .collect()
    };
    let mut rng = Pcg64::seed_from_u64(p.seed);
    let side = (p.n as f64).powf(1.0 / dim as f64).ceil() as usize;
    let cell = if dim == 2 {
        (PI / p.packing).sqrt()
    } else {
        (4.0 / 3.0 * PI / p.packing).cbrt()
    };
    let tables = (0..p.n)
        .map(|k| {
            let mut t = toml::Table::new();
            t.insert("shape".into(), "ellipsoid".into());
            t.insert("half_axes".into(), floats(&half_axes));
            let cell_of = [k % side, k / side % side, k / side / side];
            let site: Vec<f64> = (0..dim).map(|i| (cell_of[i] as f64 + 0.5) * cell).collect();
            t.insert("position".into(), floats(&site));
            if dim == 2 {
                random_motion_2d(&mut t, &mut rng, p);
            } else {
                random_motion_3d(&mut t, &mut rng, p);
            }
            t
        })
        .collect();
    // Whole rows (2D) or layers (3D) of the lattice; the last may be partly empty.
    let last = if dim == 2 {
        p.n.div_ceil(side)
    } else {
        p.n.div_ceil(side * side)
    };
    let mut max = vec![side as f64 * cell; dim];
    max[dim - 1] = last as f64 * cell;
    let walls = vec![WallSpec::Box {
        min: vec![0.0; dim],
        max,
    }];
    rigid_scene(dim, walls, tables, p.duration, p.restitution)
}
