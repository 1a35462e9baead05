//! [`Turns`]: a value that Python threads take one at a time, in the order they asked for it,
//! waiting with the GIL released.
//!
//! A simulation is run by one thread while others read its state. A plain mutex is unfair
//! here: a thread calling `run` in a loop takes the GIL back at the end of every run and the
//! simulation again at the start of the next one, before a waiting reader, which needs the GIL
//! to take the simulation, gets either. With turns, a reader waits for the run under way at
//! most; the runner's next run waits for the reader.

use std::ops::{Deref, DerefMut};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// Whose turn it is.
#[derive(Default)]
struct Queue {
    /// The next ticket to hand out.
    next: u64,
    /// The ticket whose holder may take the value now.
    serving: u64,
    /// The thread holding the value, if any.
    holder: Option<ThreadId>,
}

/// A value taken in turns ([`Turns::take`]).
pub struct Turns<T> {
    value: Mutex<T>,
    queue: Mutex<Queue>,
    changed: Condvar,
}

/// The value, held until dropped; the next thread's turn starts then.
pub struct Turn<'a, T> {
    guard: MutexGuard<'a, T>,
    // Dropped after `guard` (fields drop in order): the next turn starts once the value is free.
    _ticket: Ticket<'a>,
}

/// A turn being served: dropping it serves the next.
struct Ticket<'a> {
    queue: &'a Mutex<Queue>,
    changed: &'a Condvar,
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        let mut q = lock(self.queue);
        q.holder = None;
        q.serving += 1;
        drop(q);
        self.changed.notify_all();
    }
}

/// The queue, whatever happened to another thread holding it (it holds plain numbers).
fn lock(queue: &Mutex<Queue>) -> MutexGuard<'_, Queue> {
    queue.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<T> Turns<T> {
    /// `value`, no turn taken.
    pub fn new(value: T) -> Self {
        Self {
            value: Mutex::new(value),
            queue: Mutex::new(Queue::default()),
            changed: Condvar::new(),
        }
    }

    /// The value, after every thread that asked for it before this one has had its turn; the
    /// wait lets the GIL go (the thread holding the value may need it to finish). The thread
    /// holding the value already (a signal handler called from its run) is refused rather than
    /// left waiting for itself.
    pub fn take(&self) -> PyResult<Turn<'_, T>> {
        let me = std::thread::current().id();
        let ticket = {
            let mut q = lock(&self.queue);
            if q.holder == Some(me) {
                return Err(PyRuntimeError::new_err(
                    "the simulation is being run by this thread (a signal handler called during \
                     run?): read it once run() has returned",
                ));
            }
            q.next += 1;
            q.next - 1
        };
        let (queue, changed) = (&self.queue, &self.changed);
        let wait = || {
            let mut q = lock(queue);
            while q.serving != ticket {
                q = changed.wait(q).unwrap_or_else(PoisonError::into_inner);
            }
            q.holder = Some(me);
        };
        let mine = lock(queue).serving == ticket;
        if mine {
            wait();
        } else {
            Python::with_gil(|py| py.allow_threads(wait));
        }
        let ticket = Ticket {
            queue: &self.queue,
            changed: &self.changed,
        };
        match self.value.lock() {
            Ok(guard) => Ok(Turn {
                guard,
                _ticket: ticket,
            }),
            Err(_) => Err(PyRuntimeError::new_err(
                "the simulation was left inconsistent by a crash",
            )),
        }
    }
}

impl<T> Deref for Turn<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for Turn<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}
