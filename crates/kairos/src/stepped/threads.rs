//! The stepped engine's threads ([`StepOptions::threads`]): the stages that work row by row or
//! body by body split their items into one run of consecutive items a thread, the calling
//! thread taking the first, each row or body worked on alone and what the stage gathers
//! gathered in order, so that any count of threads gives the same bits. Stages over fewer than
//! [`PARALLEL_FROM`] items run on the calling thread alone (a sub-step of a small scene costs
//! less than starting a thread).
//!
//! Scoped threads, not a pool that sleeps between stages: measured on the 2D pyramid of base
//! 100 on 2 cores, a rayon pool's second worker woke too late to take any of a stage's work
//! (2% of the samples), and the step was 11% slower than on one thread.

#[allow(unused_imports)] // for the docs' links
use super::StepOptions;

/// The fewest items (rows, bodies) a stage splits among threads. Measured on 2 cores at
/// dt = 1/60 (`kairos-rapier-bench --threads 1|2`), at 2,048: 20 pyramids of base 10 (5,800
/// rows) took 4.78 ms a step on 2 threads against 3.22 on one (starting the threads cost more
/// than the stages), the 3D pyramid of base 10 (9,900 rows) 11.4 against 10.2 ms, the 2D
/// pyramid of base 100 (29,900 rows) 26.9 against 26.8 ms; the 3D pyramid of base 20 (82,000
/// rows) 114.5 against 129.0 ms.
pub const PARALLEL_FROM: usize = 32_768;

/// The threads of a [`super::SteppedSim`]'s stages.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Threads {
    count: usize,
    /// The fewest items a stage splits ([`PARALLEL_FROM`]; less in tests).
    from: usize,
}

impl Threads {
    /// `requested` threads: 0 for the machine's count of cores.
    pub(super) fn new(requested: usize) -> Self {
        let count = if requested == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            requested
        };
        Self {
            count: count.max(1),
            from: PARALLEL_FROM,
        }
    }

    /// The same threads, splitting stages from `from` items on (tests: a scene small enough to
    /// step quickly that still splits its stages).
    #[cfg(test)]
    pub(super) fn splitting_from(self, from: usize) -> Self {
        Self { from, ..self }
    }

    /// The threads the stages run on.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// How many threads a stage over `items` runs on.
    fn parts(&self, items: usize) -> usize {
        if items >= self.from {
            self.count.min(items)
        } else {
            1
        }
    }

    /// `run(from, items)` over runs of consecutive items of `a` (`from` the index of the
    /// first), one a thread, the calling thread taking the first: the results in order.
    fn runs_mut<A: Send, R: Send>(
        &self,
        a: &mut [A],
        run: impl Fn(usize, &mut [A]) -> R + Sync,
    ) -> Vec<R> {
        let parts = self.parts(a.len());
        if parts == 1 {
            return vec![run(0, a)];
        }
        let size = a.len().div_ceil(parts);
        std::thread::scope(|s| {
            let mut chunks = a.chunks_mut(size).enumerate();
            let first = chunks.next().map(|(_, c)| c);
            let run = &run;
            let handles: Vec<_> = chunks
                .map(|(k, c)| s.spawn(move || run(k * size, c)))
                .collect();
            let mut out = Vec::with_capacity(parts);
            out.extend(first.map(|c| run(0, c)));
            out.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a stage's thread panicked")),
            );
            out
        })
    }

    /// [`Self::runs_mut`] over a slice read only (its runs are those of a slice of as many
    /// units, which takes no memory).
    fn runs<A: Sync, R: Send>(&self, a: &[A], run: impl Fn(usize, &[A]) -> R + Sync) -> Vec<R> {
        self.runs_mut(&mut vec![(); a.len()], |from, units| {
            run(from, &a[from..from + units.len()])
        })
    }

    /// `f(k, &mut a[k], &b[k])` for every `k`, summed.
    pub(super) fn sum_zip<A: Send, B: Sync>(
        &self,
        a: &mut [A],
        b: &[B],
        f: impl Fn(usize, &mut A, &B) -> usize + Sync,
    ) -> usize {
        self.runs_mut(a, |from, a| {
            a.iter_mut()
                .zip(&b[from..])
                .enumerate()
                .map(|(k, (x, y))| f(from + k, x, y))
                .sum::<usize>()
        })
        .into_iter()
        .sum()
    }

    /// `f(k, &mut a[k])` for every `k`.
    pub(super) fn each_mut<A: Send>(&self, a: &mut [A], f: impl Fn(usize, &mut A) + Sync) {
        self.runs_mut(a, |from, a| {
            a.iter_mut().enumerate().for_each(|(k, x)| f(from + k, x))
        });
    }

    /// The `Some` of `f(&a[k], &b[k])` over every `k`, in order of `k`.
    pub(super) fn filter_zip<A: Sync, B: Sync, T: Send>(
        &self,
        a: &[A],
        b: &[B],
        f: impl Fn(&A, &B) -> Option<T> + Sync,
    ) -> Vec<T> {
        self.runs(a, |from, a| {
            a.iter()
                .zip(&b[from..])
                .filter_map(|(x, y)| f(x, y))
                .collect::<Vec<T>>()
        })
        .into_iter()
        .flatten()
        .collect()
    }
}
