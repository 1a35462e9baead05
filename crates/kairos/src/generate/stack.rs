//! Stacks of boxes on a floor under gravity: [`stack`] (a tower), [`pyramid`] (a pyramid) and
//! [`pyramids`] (many small pyramids side by side), the scenes a stepped engine's contact
//! solver must hold still.

use super::common::{
    check_at_most, check_dim, check_duration, check_gravity, check_restitution, check_rigid_count,
    floats, rigid_scene,
};
use super::error::GenerateError;
use crate::scene::{Scene, WallSpec};

/// Parameters of [`stack`], [`pyramid`] and [`pyramids`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackParams {
    /// 2 or 3.
    pub dim: usize,
    /// The edge of every box (`> 0`).
    pub size: f64,
    /// The strength of gravity, `> 0` (it points along `-y` in 2D, `-z` in 3D).
    pub gravity: f64,
    /// The Coulomb friction coefficient of every contact (`>= 0`).
    pub friction: f64,
    /// Coefficient of restitution in `[0, 1]`.
    pub restitution: f64,
    /// Simulated time.
    pub duration: f64,
}

impl Default for StackParams {
    fn default() -> Self {
        Self {
            dim: 2,
            size: 1.0,
            gravity: 10.0,
            friction: 0.6,
            restitution: 0.0,
            duration: 10.0,
        }
    }
}

/// A tower of `n` boxes (cubes of edge [`StackParams::size`], density 1, at rest and not
/// turned), each resting on the one below, the lowest on a floor plane through the origin.
pub fn stack(p: &StackParams, n: usize) -> Result<Scene, GenerateError> {
    boxes_on_floor(p, n, |h, centres| {
        for k in 0..n {
            let mut c = vec![0.0; p.dim];
            c[p.dim - 1] = h + k as f64 * p.size;
            centres.push(c);
        }
    })
}

/// A pyramid of boxes whose lowest row has `base` boxes side by side (2D: rows of `base`,
/// `base - 1`, ... 1 boxes, `base (base + 1) / 2` in all; 3D: square layers of `base²`,
/// `(base - 1)²`, ... 1 boxes), each row centred on the one below, on a floor plane; the
/// boxes touch their neighbours. Base 100 in 2D is Box2D v3's large pyramid benchmark (5,050
/// boxes).
pub fn pyramid(p: &StackParams, base: usize) -> Result<Scene, GenerateError> {
    pyramids(p, base, 1)
}

/// `count` pyramids of base `base` ([`pyramid`]) on one floor, in a row along `x` (2D) or on a
/// square grid (3D), one box edge apart.
pub fn pyramids(p: &StackParams, base: usize, count: usize) -> Result<Scene, GenerateError> {
    let per = if p.dim == 2 {
        base * (base + 1) / 2
    } else {
        base * (base + 1) * (2 * base + 1) / 6
    };
    let side = if p.dim == 2 {
        count
    } else {
        (count as f64).sqrt().ceil() as usize
    };
    let pitch = (base + 1) as f64 * p.size;
    boxes_on_floor(p, per.saturating_mul(count), |h, centres| {
        for k in 0..count {
            let origin = [(k % side) as f64 * pitch, (k / side) as f64 * pitch];
            for layer in 0..base {
                let row = base - layer;
                // The row's first box sits half a box further in than the row below's.
                let first = (layer as f64 + 1.0) * h;
                let z = (layer as f64 + 0.5) * p.size;
                let along = |j: usize| first + j as f64 * p.size;
                for j in 0..row {
                    if p.dim == 2 {
                        centres.push(vec![origin[0] + along(j), z]);
                    } else {
                        for i in 0..row {
                            centres.push(vec![origin[0] + along(i), origin[1] + along(j), z]);
                        }
                    }
                }
            }
        }
    })
}

/// The scene of `n` boxes on a floor plane, after checking the parameters: `place` gets half
/// the box edge and pushes the `n` centres.
fn boxes_on_floor(
    p: &StackParams,
    n: usize,
    place: impl FnOnce(f64, &mut Vec<Vec<f64>>),
) -> Result<Scene, GenerateError> {
    check_dim(p.dim)?;
    check_rigid_count(n)?;
    check_at_most("size", p.size)?;
    if !(p.size > 0.0 && p.size.is_finite()) {
        return Err(GenerateError::NotPositive { names: "size" });
    }
    // A box of density 1 has mass size^d and moments of inertia of about size^(d+2) / 6: both
    // normal numbers, with a margin for the solver's products (1e-70 in 2D, 1e-56 in 3D).
    let least = if p.dim == 2 { 1e-70 } else { 1e-56 };
    if p.size < least {
        return Err(GenerateError::SizeTooSmall {
            size: p.size,
            dim: p.dim,
            least,
        });
    }
    check_gravity(p.gravity)?;
    check_at_most("friction", p.friction)?;
    if !(p.friction >= 0.0) {
        return Err(GenerateError::OutOfRange {
            name: "friction",
            range: "at least 0",
            got: p.friction,
        });
    }
    check_duration(p.duration)?;
    check_restitution(p.restitution)?;
    let mut centres = Vec::with_capacity(n);
    place(0.5 * p.size, &mut centres);
    let half = floats(&vec![0.5 * p.size; p.dim]);
    let tables = centres
        .iter()
        .map(|c| {
            let mut t = toml::Table::new();
            t.insert("shape".into(), "box".into());
            t.insert("half_extents".into(), half.clone());
            t.insert("position".into(), floats(c));
            t.insert("velocity".into(), floats(&vec![0.0; p.dim]));
            t
        })
        .collect();
    let mut normal = vec![0.0; p.dim];
    normal[p.dim - 1] = 1.0;
    let floor = WallSpec::Plane {
        point: vec![0.0; p.dim],
        normal,
    };
    let mut scene = rigid_scene(p.dim, vec![floor], tables, p.duration, p.restitution)?;
    scene.gravity[p.dim - 1] = -p.gravity;
    scene.friction = p.friction;
    scene.validate().map_err(GenerateError::Invalid)?;
    Ok(scene)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tops(scene: &Scene) -> f64 {
        let d = scene.dim;
        scene
            .bodies
            .iter()
            .map(|b| b.position[d - 1])
            .fold(f64::NEG_INFINITY, f64::max)
    }

    #[test]
    fn a_tower_stands_box_on_box() {
        for dim in [2, 3] {
            let p = StackParams {
                dim,
                ..Default::default()
            };
            let s = stack(&p, 10).unwrap();
            assert_eq!(s.bodies.len(), 10);
            assert_eq!(tops(&s), 9.5);
            assert_eq!(s.gravity[dim - 1], -10.0);
            assert_eq!((s.friction, s.restitution), (0.6, 0.0));
            assert_eq!(s.walls.len(), 1);
        }
    }

    #[test]
    fn pyramids_have_their_box_counts_and_rows_centred() {
        let p = StackParams::default();
        let s = pyramid(&p, 20).unwrap();
        assert_eq!(s.bodies.len(), 210);
        assert_eq!(tops(&s), 19.5);
        // The top box sits over the middle of the base.
        let top = s.bodies.iter().find(|b| b.position[1] == 19.5).unwrap();
        let base: Vec<f64> = s
            .bodies
            .iter()
            .filter(|b| b.position[1] == 0.5)
            .map(|b| b.position[0])
            .collect();
        assert_eq!(base.len(), 20);
        let middle = 0.5 * (base[0] + base[19]);
        assert!((top.position[0] - middle).abs() < 1e-12);
        let p3 = StackParams {
            dim: 3,
            ..Default::default()
        };
        assert_eq!(pyramid(&p3, 5).unwrap().bodies.len(), 55);
        assert_eq!(pyramids(&p, 4, 3).unwrap().bodies.len(), 30);
        assert_eq!(pyramids(&p3, 2, 4).unwrap().bodies.len(), 20);
    }

    #[test]
    fn bad_parameters_are_refused() {
        let p = StackParams::default();
        assert!(stack(&p, 0).is_err());
        assert!(stack(&StackParams { size: 0.0, ..p }, 3).is_err());
        assert!(stack(&StackParams { dim: 4, ..p }, 3).is_err());
        assert!(stack(
            &StackParams {
                friction: -1.0,
                ..p
            },
            3
        )
        .is_err());
        assert!(pyramid(&p, 1000).is_err());
    }
}
