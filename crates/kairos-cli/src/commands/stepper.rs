//! How the simulating commands advance time: `--stepper`, `--broad-phase` and their tuning,
//! validated into a [`Stepper`].

use anyhow::Result;
use clap::Args;
use kairos::broad_phase::{BroadPhaseKind, BroadPhaseOptions, LookAheadOptions};
use kairos::discrete::DiscreteOptions;
use kairos::overlap::OverlapKind;
use kairos::stepped::{Correction, Matching, StepOptions};

/// How time advances (`--stepper`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StepperKind {
    /// Exact, event-driven.
    Event,
    /// Fixed steps of --dt (the thesis's comparison method).
    Discrete,
    /// Fixed steps of --dt whose contacts are solved by warm-started sequential impulses
    /// (stacks, resting contact, friction).
    Stepped,
}

/// Stepper and broad-phase selection and tuning, shared by the commands that simulate.
#[derive(Args, Clone, Debug)]
pub struct BroadPhaseArgs {
    /// How time advances: `event` (exact, event-driven), `discrete` (fixed steps of --dt, the
    /// thesis's comparison method) or `stepped` (fixed steps of --dt whose contacts are solved
    /// by warm-started sequential impulses: stacks, resting contact, friction).
    #[arg(long, value_enum, default_value_t = StepperKind::Event)]
    pub stepper: StepperKind,
    /// Broad phase. Event stepper: auto (default: calendar-lists for dense periodic gases,
    /// packing >= 0.4 in 3D or 0.65 in 2D, else calendar), calendar, calendar-lists (neighbour
    /// lists: faster on dense gases, twice the memory), kaya-bvh (the thesis's), sap, grid or
    /// all-pairs (the reference); all give the same events. Discrete stepper: sap (default),
    /// bvh, sort-sweep, dbvt, grid or brute-force.
    #[arg(long, value_parser = broad_phase_names())]
    pub broad_phase: Option<String>,
    /// Discrete and stepped steppers: the time step, at most the scene's duration (the
    /// discrete stepper shortens its last step to end at the duration; the stepped engine takes
    /// whole steps, its last one ending less than a step after it).
    #[arg(long)]
    pub dt: Option<f64>,
    /// Stepped stepper: solver sweeps over the contacts per sub-step (default 4).
    #[arg(long)]
    pub iterations: Option<u32>,
    /// Stepped stepper: start every contact from zero impulses instead of the cached ones.
    #[arg(long)]
    pub no_warm_start: bool,
    /// Stepped stepper: how penetrations are pushed out: split (split impulses, no energy
    /// added; default), soft (soft contacts and a relax pass) or baumgarte.
    #[arg(long, value_parser = ["split", "soft", "baumgarte"])]
    pub correction: Option<String>,
    /// Stepped stepper: find every pair's contact points at every step (by default a pair
    /// at rest keeps its points while it drifts by less than 0.5% of its size).
    #[arg(long)]
    pub no_persistent_manifolds: bool,
    /// Stepped stepper: keep every body awake (by default islands at rest sleep until
    /// touched).
    #[arg(long)]
    pub no_sleep: bool,
    /// Stepped stepper: turn off the continuous check (fast bodies may then pass through
    /// thin ones; the summary counts the pairs that did).
    #[arg(long)]
    pub no_ccd: bool,
    /// Stepped stepper: how a contact finds its cached impulses: features (its feature ids,
    /// the default), world or body (the nearest cached point of the pair in the world or in
    /// the first body's frame; the summary counts the contacts given another's impulses).
    #[arg(long, value_parser = ["features", "world", "body"])]
    pub matching: Option<String>,
    /// Stepped stepper: threads of the stages that work contact by contact or body by body
    /// (default: every core; 1 for one thread). Any count gives the same trace.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Stepped stepper: the interval at which the trace holds the moving bodies' states
    /// (rounded to whole steps; default 1/30 s).
    #[arg(long, value_name = "SECONDS")]
    pub sample: Option<f64>,
    /// Stop (exit 2, no trace kept; a last checkpoint with --checkpoint) after this many
    /// events (collisions, and box crossings in a periodic box): a bound on runaway work such
    /// as a velocity of 1e100 in a small box. A trace takes 128 bytes a collision.
    #[arg(long, default_value_t = DEFAULT_MAX_EVENTS, value_name = "N")]
    pub max_events: u64,
    /// Discrete stepper: refuse a run of more steps (duration / dt x substeps) than this.
    #[arg(long, default_value_t = DEFAULT_MAX_STEPS, value_name = "N")]
    pub max_steps: u64,
    /// Discrete stepper: internal sub-steps per --dt (default 1); stepped: solver sub-steps
    /// per --dt (default 4).
    #[arg(long)]
    pub substeps: Option<u32>,
    /// Discrete stepper: move overlapping pairs back to their first contact within the step
    /// (bisection) before resolving them.
    #[arg(long)]
    pub toi_rewind: bool,
    /// Look-ahead dt of the first search (kaya-bvh, sap and grid).
    #[arg(long, default_value_t = LookAheadOptions::default().initial_dt)]
    pub bvh_dt: f64,
    /// Factor applied to the look-ahead when a search finds nothing (at least 1.01; kaya-bvh, sap, grid).
    #[arg(long, default_value_t = LookAheadOptions::default().grow)]
    pub bvh_grow: f64,
    /// Factor applied to the look-ahead after an event is found (in (0, 1]; kaya-bvh, sap,
    /// grid).
    #[arg(long, default_value_t = LookAheadOptions::default().shrink)]
    pub bvh_shrink: f64,
}

/// Every name `--broad-phase` takes, for `--help` and for the first check: `auto`, then the
/// event-driven broad phases, then the discrete ones not already named. Which of them applies
/// depends on `--stepper`, known only once every option is read: [`BroadPhaseArgs::stepper`]
/// turns the name into a kind, or says that the name is not one of that stepper's.
fn broad_phase_names() -> clap::builder::PossibleValuesParser {
    let mut names = vec!["auto"];
    let kinds = BroadPhaseKind::ALL.iter().map(|k| k.name());
    for name in kinds.chain(OverlapKind::ALL.iter().map(|k| k.name())) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    clap::builder::PossibleValuesParser::new(names)
}

/// Default of `--max-events`: 10^8 events (at most a 12.8 GB trace; at a million bodies, about
/// a hundred collisions each).
pub const DEFAULT_MAX_EVENTS: u64 = 100_000_000;
/// Default of `--max-steps`: 10^7 fixed steps.
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

/// What advances time in a run.
#[derive(Clone, Copy, Debug)]
pub enum Stepper {
    /// Exact, event-driven, with the broad phase measured fastest for the scene
    /// ([`BroadPhaseKind::auto`]).
    Auto,
    /// Exact, event-driven, with this broad phase.
    Event(BroadPhaseKind),
    /// Fixed time steps with this discrete broad phase.
    Discrete(OverlapKind, DiscreteOptions),
    /// Fixed time steps solved by sequential impulses; the trace samples the states every
    /// this many steps.
    Stepped(StepOptions, u64),
}

impl BroadPhaseArgs {
    /// The validated options.
    pub fn options(&self) -> Result<BroadPhaseOptions> {
        let look_ahead = LookAheadOptions {
            initial_dt: self.bvh_dt,
            grow: self.bvh_grow,
            shrink: self.bvh_shrink,
        };
        look_ahead.validate().map_err(anyhow::Error::msg)?;
        Ok(BroadPhaseOptions {
            look_ahead,
            ..Default::default()
        })
    }

    /// The validated stepper.
    pub fn stepper(&self) -> Result<Stepper> {
        let finder = || -> Result<OverlapKind> {
            self.broad_phase
                .as_deref()
                .unwrap_or("sap")
                .parse()
                .map_err(|e| anyhow::anyhow!("--broad-phase: {e}"))
        };
        let stepped_only = self.iterations.is_some()
            || self.no_warm_start
            || self.no_ccd
            || self.no_sleep
            || self.no_persistent_manifolds
            || self.matching.is_some()
            || self.correction.is_some()
            || self.threads.is_some()
            || self.sample.is_some();
        match self.stepper {
            StepperKind::Stepped => {
                anyhow::ensure!(
                    self.max_events == DEFAULT_MAX_EVENTS,
                    "--max-events needs --stepper event or discrete (the stepped engine runs \
                     to the scene's duration)"
                );
                let dt = self
                    .dt
                    .ok_or_else(|| anyhow::anyhow!("--stepper stepped needs --dt"))?;
                anyhow::ensure!(!self.toi_rewind, "--toi-rewind needs --stepper discrete");
                anyhow::ensure!(
                    self.threads
                        .is_none_or(|t| (1..=StepOptions::MOST_THREADS).contains(&t)),
                    "--threads must be from 1 to {}, got {} (leave it out for every core)",
                    StepOptions::MOST_THREADS,
                    self.threads.unwrap_or(0)
                );
                let options = StepOptions {
                    dt,
                    substeps: self.substeps.unwrap_or(4),
                    iterations: self.iterations.unwrap_or(StepOptions::default().iterations),
                    warm_start: !self.no_warm_start,
                    finder: finder()?,
                    correction: match self.correction.as_deref() {
                        Some("baumgarte") => Correction::Baumgarte,
                        Some("soft") => Correction::Soft,
                        _ => Correction::Split,
                    },
                    ccd: !self.no_ccd,
                    sleep: !self.no_sleep,
                    keep_manifolds: !self.no_persistent_manifolds,
                    count_tunnelled: true,
                    threads: self.threads.unwrap_or(0),
                    matching: match self.matching.as_deref() {
                        Some("world") => Matching::WorldDistance,
                        Some("body") => Matching::BodyDistance,
                        _ => Matching::Features,
                    },
                };
                options.validate().map_err(|e| anyhow::anyhow!("--{e}"))?;
                let sample = self.sample.unwrap_or(1.0 / 30.0);
                anyhow::ensure!(
                    sample > 0.0 && sample.is_finite(),
                    "--sample must be a positive interval, got {}",
                    kairos::num::Num(sample)
                );
                let every = (sample / dt).round().clamp(1.0, 1e15) as u64;
                Ok(Stepper::Stepped(options, every))
            }
            StepperKind::Discrete => {
                anyhow::ensure!(
                    !stepped_only,
                    "--iterations, --no-warm-start, --no-ccd, --no-sleep, --no-persistent-manifolds, --matching, \
                     --correction, \
                     --threads and --sample need --stepper stepped"
                );
                let dt = self
                    .dt
                    .ok_or_else(|| anyhow::anyhow!("--stepper discrete needs --dt"))?;
                let opts = DiscreteOptions {
                    dt,
                    substeps: self.substeps.unwrap_or(1),
                    toi_rewind: self.toi_rewind,
                    count_misses: true,
                };
                opts.validate().map_err(|e| anyhow::anyhow!("--{e}"))?;
                Ok(Stepper::Discrete(finder()?, opts))
            }
            StepperKind::Event => {
                anyhow::ensure!(
                    self.dt.is_none() && self.substeps.is_none() && !self.toi_rewind,
                    "--dt, --substeps and --toi-rewind need --stepper discrete or stepped"
                );
                anyhow::ensure!(
                    !stepped_only,
                    "--iterations, --no-warm-start, --no-ccd, --no-sleep, --no-persistent-manifolds, --matching, \
                     --correction, \
                     --threads and --sample need --stepper stepped"
                );
                match self.broad_phase.as_deref().unwrap_or("auto") {
                    "auto" => Ok(Stepper::Auto),
                    name => {
                        let kind: BroadPhaseKind = name.parse().map_err(|e| {
                            anyhow::anyhow!("--broad-phase: {e}, or auto (the default)")
                        })?;
                        Ok(Stepper::Event(kind))
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::builder::TypedValueParser;
    use clap::ValueEnum;

    /// The command line spells every kind as the library names it.
    #[test]
    fn value_enums_use_the_library_names() {
        for k in BroadPhaseKind::ALL {
            assert_eq!(BroadPhaseKind::from_str(k.name(), false), Ok(k));
        }
        for k in OverlapKind::ALL {
            assert_eq!(OverlapKind::from_str(k.name(), false), Ok(k));
        }
        let names: Vec<String> = broad_phase_names()
            .possible_values()
            .expect("a list of names")
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "auto",
                "all-pairs",
                "kaya-bvh",
                "calendar",
                "calendar-lists",
                "sap",
                "grid",
                "brute-force",
                "bvh",
                "sort-sweep",
                "dbvt"
            ]
        );
    }
}
