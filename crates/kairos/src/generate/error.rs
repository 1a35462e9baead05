//! [`GenerateError`], why a scene could not be generated, and [`Advice`], the gas parameters
//! that would pass.

use crate::num::Num;
use crate::scene::SceneError;

/// Why a scene could not be generated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GenerateError {
    /// No balls were asked for.
    #[error("the number of balls must be at least 1")]
    NoBalls,
    /// More balls than the generator handles.
    #[error("{n} balls would not fit in memory here (at most {max})")]
    TooManyBalls {
        /// Balls asked for.
        n: usize,
        /// The generator's limit.
        max: usize,
    },
    /// The memory the balls need cannot be allocated here (a limit on the address space, or
    /// more than the machine has).
    #[error(
        "{n} {} need about {:.1} GB of memory while being made, more than can be allocated \
         here: use fewer balls (or raise the memory limit)",
        balls(*.n),
        *.bytes as f64 / 1e9
    )]
    OutOfMemory {
        /// Balls asked for.
        n: usize,
        /// The memory needed at once, in bytes.
        bytes: usize,
    },
    /// A parameter is outside its range.
    #[error("{name} must be {range}, got {}", Num(*.got))]
    OutOfRange {
        /// The parameter.
        name: &'static str,
        /// Its range, in words.
        range: &'static str,
        /// The value given.
        got: f64,
    },
    /// The bodies' spin over the duration turns them further than a run resolves
    /// ([`crate::rigid::MAX_TURN`] radians).
    #[error(
        "the bodies would turn up to {} radians (spin {} times duration {}); a run resolves at \
         most 1e8: give a shorter duration (or a lower spin)",
        Num(*.spin * *.duration), Num(*.spin), Num(*.duration)
    )]
    TooMuchTurn {
        /// The largest spin, radians per unit time.
        spin: f64,
        /// The duration.
        duration: f64,
    },
    /// Parameters that must be positive and finite are not.
    #[error("{names} must be positive and finite")]
    NotPositive {
        /// The parameters, in words.
        names: &'static str,
    },
    /// A parameter is larger than a scene file may hold.
    #[error("{name} is too large ({got:e}; a scene holds numbers of at most {max:e})")]
    TooLarge {
        /// The parameter.
        name: &'static str,
        /// The value given.
        got: f64,
        /// The largest a scene reads.
        max: f64,
    },
    /// The radii's bounds are out of order or not positive.
    #[error("radii must satisfy 0 < min <= max, got [{}, {}]", Num(*.min), Num(*.max))]
    Radii {
        /// Smallest radius.
        min: f64,
        /// Largest radius.
        max: f64,
    },
    /// A dimension other than 2 or 3.
    #[error("dimension must be 2 or 3, got {0}")]
    Dimension(usize),
    /// Parameters of one dimension for a world of another.
    #[error("dimension {requested} requested for a {world}D world")]
    WorldDimension {
        /// The parameters' dimension.
        requested: usize,
        /// The world's.
        world: usize,
    },
    /// Random placement and pushing apart could not place every ball in the room.
    #[error(
        "could not place {n} balls without overlap at packing {packing} in {dim}D: the walls \
         leave few balls too little room; lower the packing or use more balls (packing 0.5 \
         needs about 100 balls in 3D)"
    )]
    Jammed {
        /// Balls asked for.
        n: usize,
        /// Packing asked for.
        packing: f64,
        /// Dimension.
        dim: usize,
    },
    /// The gas's starting lattice has sites closer than a largest diameter.
    #[error(
        "packing {packing} cannot be reached from a {lattice} lattice of {sites} sites for {n} \
         {} with polydispersity {polydispersity} (nearest sites {nearest:.4} apart, largest \
         diameter {largest_diameter:.4}); {advice}",
        balls(*.n)
    )]
    LatticeTooDense {
        /// Packing asked for.
        packing: f64,
        /// The lattice's name.
        lattice: &'static str,
        /// Its sites.
        sites: usize,
        /// Balls asked for.
        n: usize,
        /// Polydispersity asked for.
        polydispersity: f64,
        /// Distance of the nearest sites.
        nearest: f64,
        /// The largest diameter.
        largest_diameter: f64,
        /// What would pass.
        advice: Advice,
    },
    /// The periodic box would be too short for the balls' images.
    #[error(
        "a periodic box for {n} {} at packing {packing} would be {length:.4} long, but its \
         lengths must exceed twice the largest contact distance ({needed:.4}, two largest \
         diameters), so that a ball meets at most one image of another; {advice}",
        balls(*.n)
    )]
    BoxTooSmall {
        /// Balls asked for.
        n: usize,
        /// Packing asked for.
        packing: f64,
        /// The box's shortest length.
        length: f64,
        /// The least length allowed.
        needed: f64,
        /// What would pass.
        advice: Advice,
    },
    /// The generated scene failed validation (a bug of the generator if it ever happens).
    #[error("generated scene is invalid: {0}")]
    Invalid(SceneError),
    /// The billiard room the parameters ask for is longer than a scene's coordinates may be.
    #[error(
        "a table for {n} {} at packing {} would be {} long, beyond the largest coordinate of a \
         scene ({}): use larger packing or smaller radii",
        balls(*.n),
        Num(*.packing),
        Num(*.length),
        Num(crate::scene::MAX_MAGNITUDE)
    )]
    RoomTooLarge {
        /// Balls asked for.
        n: usize,
        /// Packing asked for.
        packing: f64,
        /// The room's longest side (infinite when it overflows).
        length: f64,
    },
    /// The gas's periodic box at this packing is longer than a scene's coordinates may be.
    #[error(
        "packing {} is too low: a periodic box for {n} {} would be {:.2e} long, beyond the \
         largest coordinate of a scene ({}); use a packing of at least {}",
        Num(*.packing),
        balls(*.n),
        *.length,
        Num(crate::scene::MAX_MAGNITUDE),
        Num(*.least)
    )]
    GasBoxTooLarge {
        /// Balls asked for.
        n: usize,
        /// Packing asked for.
        packing: f64,
        /// The box's longest length (infinite when it overflows).
        length: f64,
        /// The least packing whose box fits.
        least: f64,
    },
    /// Boxes of density 1 so small that their mass or moment of inertia is no number.
    #[error(
        "size {} is too small: a box of density 1 and that edge has a mass (edge^{dim}) or a \
         moment of inertia that rounds to 0; use a size of at least {}",
        Num(*.size),
        Num(*.least)
    )]
    SizeTooSmall {
        /// The edge asked for.
        size: f64,
        /// The dimension.
        dim: usize,
        /// The least edge allowed.
        least: f64,
    },
    /// A rigid-body generator was asked for no bodies, or for more than it writes.
    #[error("the number of bodies must be in [1, {max}], got {n}")]
    Bodies {
        /// Bodies asked for.
        n: usize,
        /// The generator's limit.
        max: usize,
    },
}

/// What gas parameters would pass the lattice's and the box's checks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Advice {
    /// The packing below which the same balls fit.
    pub packing_below: f64,
    /// The least number of balls that fit at the packing asked for, if one was found.
    pub balls: Option<usize>,
}

impl std::fmt::Display for Advice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "use a packing below {:.4}", self.packing_below)?;
        match self.balls {
            Some(k) => write!(f, ", or {k} balls or more"),
            None => Ok(()),
        }
    }
}

/// "ball" or "balls".
fn balls(n: usize) -> &'static str {
    if n == 1 {
        "ball"
    } else {
        "balls"
    }
}
