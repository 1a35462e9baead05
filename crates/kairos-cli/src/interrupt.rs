//! SIGINT, SIGTERM, SIGHUP and SIGQUIT: an interrupted command leaves no partial file behind
//! and exits with 128 + the signal's number (130, 143, 129 and 131).
//!
//! A thread waits for the signals. Commands whose loops can stop cleanly (`run` and `demo`)
//! call [`polling`] and check [`requested`] as they go: they stop at the next event, write a
//! last checkpoint when one was asked for, remove their partial outputs and say where they
//! stopped. Any other command, or a second signal, is ended by the thread itself after it
//! removes the partial outputs of every open writer ([`kairos::atomic::remove_partials`]).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;

/// The signal received, or 0.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// True while the running command checks [`requested`] itself.
static POLLING: AtomicBool = AtomicBool::new(false);
/// Set with [`SIGNAL`]: the flag a simulation's broad phase looks at in its own work between
/// events ([`stop_flag`]).
static STOP: std::sync::LazyLock<Arc<AtomicBool>> =
    std::sync::LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// Starts listening for SIGINT, SIGTERM, SIGHUP (a closed terminal) and SIGQUIT (once, at
/// start-up).
#[cfg(unix)]
pub fn install() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGQUIT])
    else {
        return; // The default handlers stay: the process is killed as before.
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            let first = SIGNAL.swap(sig, Ordering::SeqCst) == 0;
            STOP.store(true, Ordering::SeqCst);
            if first && POLLING.load(Ordering::SeqCst) {
                continue;
            }
            kairos::atomic::remove_partials();
            eprintln!("interrupted ({}): no output written", name(sig));
            std::process::exit(128 + sig);
        }
    });
}

#[cfg(not(unix))]
pub fn install() {}

/// The running command checks [`requested`] from now on.
pub fn polling() {
    POLLING.store(true, Ordering::SeqCst);
}

/// A flag set when a signal arrives, for [`kairos::sim::Simulation::set_stop`]: a run stuck in
/// its broad phase's work between two events stops too.
pub fn stop_flag() -> Arc<AtomicBool> {
    STOP.clone()
}

/// The signal received, if any.
#[inline]
pub fn requested() -> Option<i32> {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

/// The signal's name.
pub fn name(sig: i32) -> &'static str {
    match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

/// The error a command returns when it stopped at a signal: `main` exits with
/// 128 + `signal`.
#[derive(Debug)]
pub struct Interrupted {
    /// The signal's number.
    pub signal: i32,
    /// Where the command stopped, and what it kept.
    pub message: String,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted ({}): {}", name(self.signal), self.message)
    }
}

impl std::error::Error for Interrupted {}
