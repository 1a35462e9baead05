//! Next-event search ("broad phase" in the thesis's sense).
//!
//! A broad phase answers one question: which event comes first? Every implementation only
//! *prunes* the set of pairs it hands to the narrow phase ([`crate::ball_toi`]); the contact times
//! themselves come from the same pure functions and the winner is chosen by the same total
//! order ([`Event::cmp_order`]), so all broad phases produce bit-identical event logs.

mod all_pairs;
mod calendar;
mod kaya_bvh;
mod look_ahead;
mod swept;

pub use all_pairs::AllPairs;
pub use calendar::{Calendar, CalendarOptions};
pub use kaya_bvh::KayaBvh;
pub use look_ahead::{LookAheadOptions, MIN_GROW};
pub use swept::SweptBoxes;

use crate::event::Event;
use crate::math::Vector;
use crate::overlap::OverlapKind;
use crate::world::World;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A next-event search strategy.
pub trait BroadPhase<V: Vector>: Send {
    /// The broad phase's name as used on the command line.
    fn name(&self) -> &'static str;
    /// The earliest event (in [`Event::cmp_order`]) whose time is `<= horizon`, given that the
    /// simulation has processed every event up to time `now`.
    fn next_event(&mut self, world: &World<V>, now: f64, horizon: f64) -> Option<Event>;
    /// Tells the broad phase that `event` was processed and its bodies' states changed.
    fn event_processed(&mut self, _world: &World<V>, _event: &Event) {}
    /// Every body's state was rewritten by a move of the time origin
    /// ([`crate::sim::Simulation`]): cached predictions must be dropped.
    fn rebased(&mut self, _world: &World<V>) {}
    /// A flag that stops a search in the middle of the broad phase's own work between events
    /// (cell crossings, re-listings): once it is set, [`BroadPhase::next_event`] may return
    /// `None` before the horizon, with its state whole, and a later call continues the search.
    /// The caller checks the flag to tell that from the end of the events. Broad phases whose
    /// work between events is one bounded search ignore it.
    fn set_stop(&mut self, _stop: Arc<AtomicBool>) {}
    /// The look-ahead interval with which the last event was found (0 when not applicable).
    fn lookahead(&self) -> f64 {
        0.0
    }
}

/// What [`BroadPhaseKind::auto`] chose for a scene, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoChoice {
    /// The broad phase chosen.
    pub kind: BroadPhaseKind,
    /// The rule that chose it, in words.
    pub reason: String,
}

crate::names::named_kinds! {
    /// The broad phases available by name.
    pub enum BroadPhaseKind("broad phase") {
        /// [`AllPairs`].
        AllPairs => "all-pairs",
        /// [`KayaBvh`].
        KayaBvh => "kaya-bvh",
        /// [`Calendar`] with its cell grid.
        Calendar => "calendar",
        /// [`Calendar`] with neighbour lists ([`CalendarOptions::list_skin`]): fewer candidates
        /// per prediction for more memory.
        CalendarLists => "calendar-lists",
        /// Continuous sweep and prune: [`SweptBoxes`] over the incremental sweep and prune.
        Sap => "sap",
        /// Continuous uniform grid: [`SweptBoxes`] over the spatial hash.
        Grid => "grid",
    }
}

impl BroadPhaseKind {
    /// Packing fraction from which [`BroadPhaseKind::auto`] picks `calendar-lists` for a 3D
    /// periodic gas (measured: `docs/benchmarks.md`, "Which calendar `auto` picks").
    pub const AUTO_LISTS_PACKING_3D: f64 = 0.4;
    /// The same for a 2D periodic gas.
    pub const AUTO_LISTS_PACKING_2D: f64 = 0.65;

    /// The event-driven broad phase measured fastest for a scene of dimension `dim` whose
    /// boundary is a periodic box holding bodies at packing fraction `periodic_packing` (`None`
    /// for walls, see `Scene::packing`): `calendar-lists` for a dense periodic gas (packing
    /// fraction at least [`Self::AUTO_LISTS_PACKING_3D`] in 3D, [`Self::AUTO_LISTS_PACKING_2D`]
    /// in 2D), where its neighbour lists cut the candidates of every prediction; `calendar`
    /// otherwise (sparser gases, scenes with walls), where the lists' upkeep costs more than it
    /// saves, for half the memory. Every broad phase gives the same events: the choice changes
    /// only the speed.
    pub fn auto(dim: usize, periodic_packing: Option<f64>) -> AutoChoice {
        let threshold = if dim == 3 {
            Self::AUTO_LISTS_PACKING_3D
        } else {
            Self::AUTO_LISTS_PACKING_2D
        };
        match periodic_packing {
            Some(phi) if phi >= threshold => AutoChoice {
                kind: BroadPhaseKind::CalendarLists,
                reason: format!("a dense {dim}D periodic gas (packing {phi:.3} >= {threshold})"),
            },
            Some(phi) => AutoChoice {
                kind: BroadPhaseKind::Calendar,
                reason: format!("a {dim}D periodic gas of packing {phi:.3} < {threshold}"),
            },
            None => AutoChoice {
                kind: BroadPhaseKind::Calendar,
                reason: "a scene with walls".into(),
            },
        }
    }

    /// A new broad phase of this kind.
    pub fn build<V: Vector>(self, opts: &BroadPhaseOptions) -> Box<dyn BroadPhase<V>> {
        match self {
            BroadPhaseKind::AllPairs => Box::new(AllPairs),
            BroadPhaseKind::KayaBvh => Box::new(KayaBvh::new(opts.look_ahead)),
            BroadPhaseKind::Calendar => Box::new(Calendar::new(CalendarOptions {
                list_skin: None,
                ..opts.calendar
            })),
            BroadPhaseKind::CalendarLists => Box::new(Calendar::new(CalendarOptions {
                list_skin: Some(
                    opts.calendar
                        .list_skin
                        .unwrap_or(CalendarOptions::DEFAULT_LIST_SKIN),
                ),
                ..opts.calendar
            })),
            BroadPhaseKind::Sap => {
                Box::new(SweptBoxes::new("sap", OverlapKind::Sap, opts.look_ahead))
            }
            BroadPhaseKind::Grid => {
                Box::new(SweptBoxes::new("grid", OverlapKind::Grid, opts.look_ahead))
            }
        }
    }
}

/// Options of every broad phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BroadPhaseOptions {
    /// The look-ahead of [`KayaBvh`] and [`SweptBoxes`] (`sap`, `grid`).
    pub look_ahead: LookAheadOptions,
    /// Options of [`Calendar`].
    pub calendar: CalendarOptions,
}

/// The earliest box crossing of any body (periodic boundary only), by an `O(n)` scan: the
/// broad phases that search from scratch for every event share it.
pub(crate) fn earliest_box_crossing<V: Vector>(world: &World<V>) -> Option<Event> {
    world.period?;
    let mut best: Option<Event> = None;
    for i in 0..world.bodies.len() as u32 {
        if let Some(e) = world.box_event(i) {
            if best.is_none_or(|b| e.precedes(&b)) {
                best = Some(e);
            }
        }
    }
    best
}
