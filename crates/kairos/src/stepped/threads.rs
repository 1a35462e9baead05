//! The stepped engine's threads ([`StepOptions::threads`]): the stages that work row by row or
//! body by body run on a pool of their own, in chunks, each row or body worked on alone and
//! what the stage gathers gathered in order, so that any count of threads gives the same bits.
//! Stages over fewer than [`PARALLEL_FROM`] items run on the calling thread (a sub-step of a
//! small scene costs less than waking the pool).

use std::sync::Arc;

use rayon::prelude::*;

#[allow(unused_imports)] // for the docs' links
use super::StepOptions;

/// The fewest items (rows, bodies) a stage hands to the pool.
pub const PARALLEL_FROM: usize = 2048;

/// The fewest items of one task of the pool.
const CHUNK: usize = 512;

/// The pool of a [`super::SteppedSim`], or none (one thread).
#[derive(Clone)]
pub(crate) struct Threads {
    pool: Option<Arc<rayon::ThreadPool>>,
    count: usize,
}

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Threads({})", self.count)
    }
}

impl Threads {
    /// `requested` threads: 0 for rayon's count of cores. A pool that cannot be built (the
    /// system refuses threads) leaves the calling thread alone.
    pub(super) fn new(requested: usize) -> Self {
        let count = if requested == 0 {
            rayon::current_num_threads()
        } else {
            requested
        };
        if count <= 1 {
            return Self {
                pool: None,
                count: 1,
            };
        }
        match rayon::ThreadPoolBuilder::new().num_threads(count).build() {
            Ok(pool) => Self {
                pool: Some(Arc::new(pool)),
                count,
            },
            Err(_) => Self {
                pool: None,
                count: 1,
            },
        }
    }

    /// The threads the stages run on.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// The pool, when `items` are worth handing to it.
    fn pool_for(&self, items: usize) -> Option<&rayon::ThreadPool> {
        self.pool.as_deref().filter(|_| items >= PARALLEL_FROM)
    }

    /// `f(k, &mut a[k], &b[k])` for every `k`, summed.
    pub(super) fn sum_zip<A: Send, B: Sync>(
        &self,
        a: &mut [A],
        b: &[B],
        f: impl Fn(usize, &mut A, &B) -> usize + Sync,
    ) -> usize {
        match self.pool_for(a.len()) {
            None => a
                .iter_mut()
                .zip(b)
                .enumerate()
                .map(|(k, (x, y))| f(k, x, y))
                .sum(),
            Some(pool) => pool.install(|| {
                a.par_iter_mut()
                    .zip(b.par_iter())
                    .enumerate()
                    .with_min_len(CHUNK)
                    .map(|(k, (x, y))| f(k, x, y))
                    .sum()
            }),
        }
    }

    /// `f(k, &mut a[k])` for every `k`.
    pub(super) fn each_mut<A: Send>(&self, a: &mut [A], f: impl Fn(usize, &mut A) + Sync) {
        match self.pool_for(a.len()) {
            None => a.iter_mut().enumerate().for_each(|(k, x)| f(k, x)),
            Some(pool) => pool.install(|| {
                a.par_iter_mut()
                    .enumerate()
                    .with_min_len(CHUNK)
                    .for_each(|(k, x)| f(k, x))
            }),
        }
    }

    /// The `Some` of `f(&a[k], &b[k])` over every `k`, in order of `k`.
    pub(super) fn filter_zip<A: Sync, B: Sync, T: Send>(
        &self,
        a: &[A],
        b: &[B],
        f: impl Fn(&A, &B) -> Option<T> + Sync,
    ) -> Vec<T> {
        match self.pool_for(a.len()) {
            None => a.iter().zip(b).filter_map(|(x, y)| f(x, y)).collect(),
            Some(pool) => pool.install(|| {
                a.par_iter()
                    .zip(b.par_iter())
                    .with_min_len(CHUNK)
                    .filter_map(|(x, y)| f(x, y))
                    .collect()
            }),
        }
    }
}
