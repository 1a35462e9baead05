//! The adaptive look-ahead of swept boxes (thesis section 4.4, Algorithm 4 "Get Next Event").
//!
//! A continuous broad phase that prunes with boxes must know how far in time a box reaches.
//! The look-ahead answers with a window `[now, now + dt]`: each body is covered by the box it
//! sweeps over the window ([`swept_box`]), a discrete overlap test of those boxes chooses the
//! candidate pairs, and the narrow phase keeps only contacts no later than the window's end.
//! [`LookAhead::next_event`] runs the searches and adapts `dt`:
//!
//! * the first search of a run: `dt` = [`LookAheadOptions::initial_dt`];
//! * a search finds nothing: `dt *= grow` and search again, unless the window already reached
//!   its cap (the horizon, or an event known in advance): then there is no event;
//! * a search finds an event: `dt` is recorded as the event's look-ahead
//!   ([`LookAhead::found_dt`], written to traces), then `dt = max(dt * shrink, MIN_DT)` starts the next event's
//!   search.
//!
//! The window's end is `min(now + dt, cap)`. The thesis uses `grow = 2` and `shrink = 1/2`
//! (the defaults): `dt` follows the time to the next event, and a search grows it a number of
//! times logarithmic in how far the event lies beyond the first window. Neither the options nor the number of attempts change the
//! events found: every contact within the window is found exactly, and the window's end only
//! bounds which contacts are kept.
//!
//! Boxes are padded by [`PAD_REL`] relative to their coordinates, so that a pair whose
//! computed contact time lies within the window is never pruned by a box test rounded the
//! other way; walls (which never move) get the same padding ([`padded_wall_box`]).
//!
//! [`super::KayaBvh`] puts the swept boxes in a median-split hierarchy, [`super::SweptBoxes`]
//! hands them to a discrete [`crate::overlap::OverlapFinder`].

use crate::body::Body;
use crate::event::Event;
use crate::math::{Aabb, Vector};
use crate::names::BadOption;
use crate::wall::Wall;

/// Relative padding of every box, far above round-off, so that a pair whose computed contact
/// time lies within the look-ahead can never be pruned by a box test rounded the other way.
pub(crate) const PAD_REL: f64 = 1e-9;
/// Smallest growth factor of the look-ahead. Each search an event needs multiplies `dt` by
/// `grow`, so a factor just above 1 (`1 + 2^-52`) would need some `10^16` searches to widen a
/// window by a factor `e`: a run that never ends. At `1.01` the widest possible range, `1e-300`
/// to `1e300`, takes at most 139,000 searches.
pub const MIN_GROW: f64 = 1.01;
/// Smallest look-ahead; keeps `dt` from underflowing to zero after many simultaneous events.
pub(crate) const MIN_DT: f64 = 1e-300;

/// Parameters of the look-ahead ([`super::KayaBvh`], [`super::SweptBoxes`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LookAheadOptions {
    /// Look-ahead of the first search, `> 0`.
    pub initial_dt: f64,
    /// Factor applied to `dt` when a search finds nothing, at least [`MIN_GROW`] (thesis: 2).
    pub grow: f64,
    /// Factor applied to `dt` after an event is found, in `(0, 1]` (thesis: 1/2).
    pub shrink: f64,
}

impl Default for LookAheadOptions {
    fn default() -> Self {
        Self {
            initial_dt: 1e-3,
            grow: 2.0,
            shrink: 0.5,
        }
    }
}

impl LookAheadOptions {
    /// Checks the ranges documented on the fields.
    pub fn validate(&self) -> Result<(), BadOption> {
        let dt = self.initial_dt;
        BadOption::check(
            dt > 0.0 && dt.is_finite(),
            "initial dt",
            "positive and finite",
            dt,
        )?;
        let grow = self.grow;
        BadOption::check(
            grow >= MIN_GROW && grow.is_finite(),
            "grow",
            "at least 1.01 and finite",
            grow,
        )?;
        let shrink = self.shrink;
        BadOption::check(shrink > 0.0 && shrink <= 1.0, "shrink", "in (0, 1]", shrink)
    }
}

/// One search's window, as [`LookAhead::next_event`] hands it to the search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    /// The look-ahead: boxes are swept over `[now, now + dt]` (for a search that only needs
    /// the window's end, [`Window::end`] is the tighter bound).
    pub dt: f64,
    /// The window's end, `min(now + dt, cap)`: contacts later than this are not kept.
    pub end: f64,
    /// True for the first search of an event, false after a `grow`.
    pub first: bool,
}

/// The look-ahead's state: the `dt` of the next search and the one the last event was found
/// with; see the [module documentation](self).
#[derive(Clone, Debug)]
pub(crate) struct LookAhead {
    opts: LookAheadOptions,
    dt: f64,
    found_dt: f64,
}

impl LookAhead {
    /// A look-ahead starting at `opts.initial_dt`.
    ///
    /// # Panics
    /// When `opts` is out of range ([`LookAheadOptions::validate`]).
    pub fn new(opts: LookAheadOptions) -> Self {
        if let Err(e) = opts.validate() {
            panic!("invalid look-ahead options: {e}");
        }
        Self {
            opts,
            dt: opts.initial_dt,
            found_dt: 0.0,
        }
    }

    /// The earliest event after `now` and no later than `cap`: calls `search` with growing
    /// windows until it returns an event (then shrinks `dt` for the next call) or a window
    /// reaching `cap` finds nothing. `search` returns the earliest event no later than the
    /// window's end.
    #[inline]
    pub fn next_event(
        &mut self,
        now: f64,
        cap: f64,
        mut search: impl FnMut(Window) -> Option<Event>,
    ) -> Option<Event> {
        let mut first = true;
        loop {
            let window = Window {
                dt: self.dt,
                end: (now + self.dt).min(cap),
                first,
            };
            if let Some(e) = search(window) {
                self.found_dt = self.dt;
                self.dt = (self.dt * self.opts.shrink).max(MIN_DT);
                return Some(e);
            }
            if now + self.dt >= cap {
                return None;
            }
            self.dt *= self.opts.grow;
            first = false;
        }
    }

    /// The look-ahead with which the last event was found (0 before the first).
    #[inline]
    pub fn found_dt(&self) -> f64 {
        self.found_dt
    }
}

/// The box of a ball swept from `now` to `now + dt` under the constant acceleration `acc`
/// (zero without gravity), padded against round-off.
#[inline]
pub(crate) fn swept_box<V: Vector>(b: &Body<V>, acc: V, now: f64, dt: f64) -> Aabb<V> {
    if acc != V::ZERO {
        return swept_parabola(b, acc, now, dt);
    }
    let p0 = b.position_at(now);
    let p1 = p0 + b.vel * dt;
    if !p1.is_finite() {
        return Aabb::new(V::splat(f64::NEG_INFINITY), V::splat(f64::INFINITY));
    }
    let pad = b.radius + PAD_REL * (b.radius + p0.max_abs() + p1.max_abs());
    Aabb::from_points(p0, p1).expanded(pad)
}

/// [`swept_box`] along a parabola: the ends and, per axis, the turning point when it falls
/// within the window.
fn swept_parabola<V: Vector>(b: &Body<V>, acc: V, now: f64, dt: f64) -> Aabb<V> {
    let (p0, v0) = b.state_at_accel(now, acc);
    let at = |s: f64| p0 + v0 * s + acc * (0.5 * s * s);
    let p1 = at(dt);
    if !p1.is_finite() {
        return Aabb::new(V::splat(f64::NEG_INFINITY), V::splat(f64::INFINITY));
    }
    let mut bx = Aabb::from_points(p0, p1);
    let mut extent = p0.max_abs().max(p1.max_abs());
    for axis in 0..V::DIM {
        let a = acc.comp(axis);
        if a != 0.0 {
            let s = -v0.comp(axis) / a;
            if s > 0.0 && s < dt {
                let p = at(s);
                bx = bx.union(&Aabb::from_points(p, p));
                extent = extent.max(p.max_abs());
            }
        }
    }
    bx.expanded(b.radius + PAD_REL * (b.radius + 2.0 * extent))
}

/// A wall's static box, padded against round-off like the swept boxes. Planes have infinite
/// boxes: the padding comes from the finite coordinates only.
pub(crate) fn padded_wall_box<V: Vector>(w: &Wall<V>) -> Aabb<V> {
    let b = w.aabb();
    let (lo, hi) = (b.min.to_array3(), b.max.to_array3());
    let scale = lo
        .iter()
        .chain(&hi)
        .filter(|x| x.is_finite())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    b.expanded(PAD_REL * scale)
}
