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

/// The fewest items (rows, bodies) a stage splits among threads.
pub const PARALLEL_FROM: usize = 2048;

/// The threads of a [`super::SteppedSim`]'s stages.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Threads {
    count: usize,
}

/// `len` items in `parts` runs of consecutive items, the first runs one longer when they do
/// not divide: the end of each run.
fn run_ends(len: usize, parts: usize) -> impl Iterator<Item = usize> {
    let (each, more) = (len / parts, len % parts);
    (1..=parts).map(move |k| k * each + k.min(more))
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
        }
    }

    /// The threads the stages run on.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// How many threads a stage over `items` runs on.
    fn parts(&self, items: usize) -> usize {
        if items >= PARALLEL_FROM {
            self.count.min(items)
        } else {
            1
        }
    }

    /// `f(k, &mut a[k], &b[k])` for every `k`, summed.
    pub(super) fn sum_zip<A: Send, B: Sync>(
        &self,
        a: &mut [A],
        b: &[B],
        f: impl Fn(usize, &mut A, &B) -> usize + Sync,
    ) -> usize {
        let run = |from: usize, a: &mut [A], b: &[B]| -> usize {
            a.iter_mut()
                .zip(b)
                .enumerate()
                .map(|(k, (x, y))| f(from + k, x, y))
                .sum()
        };
        let parts = self.parts(a.len());
        if parts == 1 {
            return run(0, a, b);
        }
        let b = &b[..a.len()];
        std::thread::scope(|s| {
            let (mut a, mut from) = (a, 0);
            let mut handles = Vec::with_capacity(parts - 1);
            let mut first = None;
            for end in run_ends(a.len(), parts) {
                let (head, tail) = std::mem::take(&mut a).split_at_mut(end - from);
                let (bs, start) = (&b[from..end], from);
                a = tail;
                from = end;
                if first.is_none() {
                    first = Some((head, bs, start));
                } else {
                    let run = &run;
                    handles.push(s.spawn(move || run(start, head, bs)));
                }
            }
            let (head, bs, start) = first.expect("at least one run");
            let mine = run(start, head, bs);
            mine + handles
                .into_iter()
                .map(|h| h.join().expect("a stage's thread panicked"))
                .sum::<usize>()
        })
    }

    /// `f(k, &mut a[k])` for every `k`.
    pub(super) fn each_mut<A: Send>(&self, a: &mut [A], f: impl Fn(usize, &mut A) + Sync) {
        let parts = self.parts(a.len());
        if parts == 1 {
            a.iter_mut().enumerate().for_each(|(k, x)| f(k, x));
            return;
        }
        std::thread::scope(|s| {
            let (mut a, mut from) = (a, 0);
            let mut first = None;
            for end in run_ends(a.len(), parts) {
                let (head, tail) = std::mem::take(&mut a).split_at_mut(end - from);
                let start = from;
                a = tail;
                from = end;
                let f = &f;
                let run = move || {
                    head.iter_mut()
                        .enumerate()
                        .for_each(|(k, x)| f(start + k, x))
                };
                if first.is_none() {
                    first = Some(run);
                } else {
                    s.spawn(run);
                }
            }
            (first.expect("at least one run"))();
        });
    }

    /// The `Some` of `f(&a[k], &b[k])` over every `k`, in order of `k`.
    pub(super) fn filter_zip<A: Sync, B: Sync, T: Send>(
        &self,
        a: &[A],
        b: &[B],
        f: impl Fn(&A, &B) -> Option<T> + Sync,
    ) -> Vec<T> {
        let run =
            |a: &[A], b: &[B]| -> Vec<T> { a.iter().zip(b).filter_map(|(x, y)| f(x, y)).collect() };
        let parts = self.parts(a.len());
        if parts == 1 {
            return run(a, b);
        }
        let b = &b[..a.len()];
        std::thread::scope(|s| {
            let mut from = 0;
            let mut handles = Vec::with_capacity(parts - 1);
            let mut first = None;
            for end in run_ends(a.len(), parts) {
                let (xs, ys) = (&a[from..end], &b[from..end]);
                from = end;
                if first.is_none() {
                    first = Some((xs, ys));
                } else {
                    let run = &run;
                    handles.push(s.spawn(move || run(xs, ys)));
                }
            }
            let (xs, ys) = first.expect("at least one run");
            let mut out = run(xs, ys);
            for h in handles {
                out.extend(h.join().expect("a stage's thread panicked"));
            }
            out
        })
    }
}
