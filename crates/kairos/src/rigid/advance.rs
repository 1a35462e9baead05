//! Conservative advancement of two [`MovingPiece`]s until their gap falls to a target: the
//! simulation's use of [`query::advance`] (the one loop, with its second-order steps for
//! sliding bodies), through `MovingPiece`'s [`MovingShape`] view (see the
//! [module docs](crate::rigid)).

use super::state::MovingPiece;
use super::MAX_STEPS;
use crate::math::Vector;
use crate::query::{self, Advance, AdvanceOptions, GjkCache, GjkOptions, MovingShape};
use crate::shape::{Pose, Shape};

pub(super) use crate::query::advancement::certified_step_accel;

impl<V: Vector> MovingShape<V> for MovingPiece<'_, V> {
    #[inline]
    fn shape(&self) -> &Shape<V> {
        self.shape
    }
    #[inline]
    fn pose_at(&self, t: f64) -> Pose<V> {
        MovingPiece::pose_at(self, t)
    }
    #[inline]
    fn linear_velocity(&self, t: f64) -> V {
        MovingPiece::linear_velocity(self, t)
    }
    #[inline]
    fn spin_speed(&self) -> f64 {
        MovingPiece::spin_speed(self)
    }
    #[inline]
    fn acceleration(&self) -> V {
        self.accel
    }
    fn acceleration_bound(&self) -> f64 {
        MovingPiece::acceleration_bound(self)
    }
    fn centre_and_spin(&self, t: f64) -> (V, V::Angular) {
        MovingPiece::centre_and_spin(self, t)
    }
}

/// Conservative advancement of `a` and `b` over `[from, to]` until their gap is at most
/// `target` ([`query::advance`] with its second-order steps and at most [`MAX_STEPS`] steps).
pub(super) fn advance<V: Vector>(
    a: &MovingPiece<V>,
    b: &MovingPiece<V>,
    from: f64,
    to: f64,
    target: f64,
) -> Advance {
    let options = AdvanceOptions {
        target,
        max_steps: MAX_STEPS,
        curved_steps: true,
        gjk: GjkOptions::default(),
    };
    query::advance(a, b, from, to, &options, &mut GjkCache::default()).outcome
}
