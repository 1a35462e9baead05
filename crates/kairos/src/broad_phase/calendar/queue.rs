//! The event calendar proper: one pending entry per body, kept in time buckets (Paul 2007).
//!
//! Entries whose bucket number `floor((t - base) / width)` is at most the current bucket `cur`
//! sit in a small binary heap ordered by [`Entry::precedes`]; later buckets of the window
//! `0..buckets.len()` are unsorted doubly linked lists; later times, and infinite ones, wait in
//! an overflow list. The bucket number is monotone in the time, so every heap entry precedes
//! every bucket entry, and the heap's least entry is the least of all. When the heap runs empty
//! the next bucket is poured into it; when the window is used up, the overflow is spread over
//! a new window whose width is fitted to the density of the pending times (about
//! [`PER_BUCKET`] entries a bucket near its start).
//!
//! Why not a heap of all bodies: at a million bodies, each update of a binary or 4-ary heap
//! walks about ten levels, one dependent cache miss each. Here an update unlinks the body and
//! links it elsewhere: a few misses, independent of each other. A heap item carries a copy of
//! its owner's entry, so comparisons read the heap alone. Memory: 36 bytes a body.

use super::entry::Entry;

const NONE: u32 = u32::MAX;
/// A location code with this bit set is a position in the heap.
const IN_HEAP: u32 = 1 << 31;
/// The location code of the overflow list.
const OVERFLOW: u32 = IN_HEAP - 1;
/// Entries a bucket holds near the start of a window, on average.
const PER_BUCKET: f64 = 8.0;
/// Fraction of the pending times whose spread sets the width of a window's buckets.
const DENSITY_QUANTILE: f64 = 0.125;
/// Times sampled to fit the width.
const SAMPLES: usize = 1024;

/// A body's place in the calendar: its list neighbours and where it is.
#[derive(Clone, Copy, Debug)]
struct Node {
    next: u32,
    prev: u32,
    /// A bucket index, [`OVERFLOW`], or `IN_HEAP | position`.
    loc: u32,
}

/// An item of the heap: a copy of the owner's entry, so that comparisons read the heap alone
/// (the two bodies of a collision hold entries with equal times, which the tie-break orders).
#[derive(Clone, Copy, Debug)]
struct Item {
    entry: Entry,
    id: u32,
}

/// The calendar of pending entries, one per body.
#[derive(Clone, Debug, Default)]
pub(super) struct Queue {
    entries: Vec<Entry>,
    nodes: Vec<Node>,
    heap: Vec<Item>,
    /// Heads of the window's bucket lists.
    buckets: Vec<u32>,
    overflow: u32,
    /// Entries in the bucket lists, and finite ones in the overflow.
    in_buckets: usize,
    overflow_finite: usize,
    base: f64,
    inv_width: f64,
    /// The bucket poured into the heap last (`-1` before the first).
    cur: i64,
    /// A body of the next bucket's list, read ahead one step a call of [`Queue::first`] so that
    /// pouring that bucket finds its links in the cache (a hint: it may have moved elsewhere).
    ahead: u32,
}

impl Queue {
    /// A calendar holding `entries[i]` for every body `i`.
    pub(super) fn new(entries: Vec<Entry>) -> Self {
        let n = entries.len();
        let finite = entries.iter().filter(|e| e.time < f64::INFINITY).count();
        let mut q = Queue {
            nodes: vec![
                Node {
                    next: NONE,
                    prev: NONE,
                    loc: OVERFLOW,
                };
                n
            ],
            entries,
            heap: Vec::new(),
            buckets: vec![NONE; (n / 4).max(16).next_power_of_two()],
            overflow: NONE,
            in_buckets: 0,
            overflow_finite: finite,
            base: 0.0,
            inv_width: 1.0,
            cur: -1,
            ahead: NONE,
        };
        for i in (0..n as u32).rev() {
            q.push_list(i, OVERFLOW);
        }
        q.rewindow();
        q
    }

    /// Body `i`'s entry.
    #[inline]
    pub(super) fn entry(&self, i: u32) -> Entry {
        self.entries[i as usize]
    }

    /// Starts loading body `i`'s place and entry, if it has them yet, so that an update of it
    /// soon after finds them in the cache (a performance hint only).
    #[inline]
    pub(super) fn touch(&self, i: u32) {
        if let (Some(node), Some(entry)) =
            (self.nodes.get(i as usize), self.entries.get(i as usize))
        {
            kairos_hint::prefetch(node);
            kairos_hint::prefetch(entry);
        }
    }

    /// The least entry among the top three levels of the heap whose owner is neither `a` nor `b`
    /// (likely the one to come after theirs); `None` if there is none.
    pub(super) fn next_other(&self, a: u32, b: u32) -> Option<Entry> {
        let mut best: Option<Entry> = None;
        for item in self.heap.iter().take(7) {
            if item.id != a && item.id != b && best.is_none_or(|x| item.entry.precedes(&x)) {
                best = Some(item.entry);
            }
        }
        best
    }

    /// The body holding the least entry, or `None` when every entry is infinitely far.
    pub(super) fn first(&mut self) -> Option<u32> {
        loop {
            if let Some(top) = self.heap.first() {
                // One step along the next bucket's list: the link was loaded a step before.
                if self.ahead != NONE {
                    let i = self.ahead as usize;
                    kairos_hint::prefetch(&self.entries[i]);
                    self.ahead = self.nodes[i].next;
                    if self.ahead != NONE {
                        kairos_hint::prefetch(&self.nodes[self.ahead as usize]);
                    }
                }
                return Some(top.id);
            }
            if self.in_buckets == 0 {
                if self.overflow_finite == 0 {
                    return None;
                }
                self.rewindow();
                continue;
            }
            // A bucket list is not empty, so one lies ahead of `cur` in the window.
            self.cur += 1;
            let slot = self.cur as usize;
            let mut i = std::mem::replace(&mut self.buckets[slot], NONE);
            while i != NONE {
                let next = self.nodes[i as usize].next;
                self.in_buckets -= 1;
                self.heap_push(i);
                i = next;
            }
            self.ahead = self.buckets.get(slot + 1).copied().unwrap_or(NONE);
        }
    }

    /// Replaces body `i`'s entry.
    pub(super) fn set(&mut self, i: u32, e: Entry) {
        let loc = self.nodes[i as usize].loc;
        let old = self.entries[i as usize];
        self.entries[i as usize] = e;
        let k = self.bucket_of(e.time);
        if loc & IN_HEAP != 0 {
            let pos = (loc & !IN_HEAP) as usize;
            if k <= self.cur {
                self.heap[pos] = Item { entry: e, id: i };
                if e.precedes(&old) {
                    self.sift_up(pos);
                } else {
                    self.sift_down(pos);
                }
                return;
            }
            self.heap_remove(pos);
        } else {
            self.unlink(i, loc, old.time);
        }
        self.place(i, k, e.time);
    }

    /// Bucket number of time `t` in the current window (`i64::MAX` for an infinite time); it
    /// is monotone in `t`.
    #[inline]
    fn bucket_of(&self, t: f64) -> i64 {
        if t < f64::INFINITY {
            // Saturating conversion: far times land beyond the window.
            ((t - self.base) * self.inv_width).floor() as i64
        } else {
            i64::MAX
        }
    }

    /// Puts body `i`, not held anywhere, where its bucket number `k` says.
    #[inline]
    fn place(&mut self, i: u32, k: i64, time: f64) {
        if k <= self.cur {
            self.heap_push(i);
        } else if k < self.buckets.len() as i64 {
            self.in_buckets += 1;
            self.push_list(i, k as u32);
        } else {
            self.overflow_finite += (time < f64::INFINITY) as usize;
            self.push_list(i, OVERFLOW);
        }
    }

    #[inline]
    fn head(&mut self, loc: u32) -> &mut u32 {
        if loc == OVERFLOW {
            &mut self.overflow
        } else {
            &mut self.buckets[loc as usize]
        }
    }

    #[inline]
    fn push_list(&mut self, i: u32, loc: u32) {
        let h = *self.head(loc);
        self.nodes[i as usize] = Node {
            next: h,
            prev: NONE,
            loc,
        };
        if h != NONE {
            self.nodes[h as usize].prev = i;
        }
        *self.head(loc) = i;
    }

    /// Takes body `i` out of the list `loc`; `time` is the entry it was listed with.
    #[inline]
    fn unlink(&mut self, i: u32, loc: u32, time: f64) {
        let Node { next, prev, .. } = self.nodes[i as usize];
        if prev != NONE {
            self.nodes[prev as usize].next = next;
        } else {
            *self.head(loc) = next;
        }
        if next != NONE {
            self.nodes[next as usize].prev = prev;
        }
        if loc == OVERFLOW {
            self.overflow_finite -= (time < f64::INFINITY) as usize;
        } else {
            self.in_buckets -= 1;
        }
    }

    /// Starts a new window at the earliest finite entry, all of them being in the overflow
    /// list, with a bucket width fitted to the density of their times, and spreads them out.
    fn rewindow(&mut self) {
        debug_assert!(self.heap.is_empty() && self.in_buckets == 0);
        // A strided sample of the finite times.
        let mut ids = Vec::with_capacity(self.overflow_finite);
        let mut i = self.overflow;
        while i != NONE {
            ids.push(i);
            i = self.nodes[i as usize].next;
        }
        let stride = (ids.len() / SAMPLES).max(1);
        let mut sample: Vec<f64> = ids
            .iter()
            .step_by(stride)
            .map(|&i| self.entries[i as usize].time)
            .filter(|t| t.is_finite())
            .collect();
        let base = ids
            .iter()
            .map(|&i| self.entries[i as usize].time)
            .fold(f64::INFINITY, f64::min);
        sample.sort_by(f64::total_cmp);
        let width = if sample.is_empty() {
            1.0
        } else {
            let q = ((sample.len() as f64 * DENSITY_QUANTILE) as usize).min(sample.len() - 1);
            let mut spread = sample[q] - base;
            if spread <= 0.0 {
                spread = sample[sample.len() - 1] - base;
            }
            // Entries per unit of time near the start, scaled from the sample.
            let within = (q + 1) as f64 / sample.len() as f64 * self.overflow_finite as f64;
            let w = PER_BUCKET * spread / within;
            if w > 0.0 && w.is_finite() {
                w
            } else {
                1.0
            }
        };
        self.base = if base.is_finite() { base } else { 0.0 };
        self.inv_width = 1.0 / width;
        self.cur = -1;
        self.overflow = NONE;
        self.overflow_finite = 0;
        // In reverse, so that each list keeps the order of the overflow list.
        for &i in ids.iter().rev() {
            let t = self.entries[i as usize].time;
            let k = self.bucket_of(t);
            self.place(i, k, t);
        }
    }

    #[inline]
    fn less(&self, x: Item, y: Item) -> bool {
        x.entry.precedes(&y.entry)
    }

    #[inline]
    fn heap_set(&mut self, pos: usize, item: Item) {
        self.heap[pos] = item;
        self.nodes[item.id as usize].loc = IN_HEAP | pos as u32;
    }

    fn heap_push(&mut self, i: u32) {
        let pos = self.heap.len();
        self.heap.push(Item {
            entry: self.entries[i as usize],
            id: i,
        });
        self.nodes[i as usize].loc = IN_HEAP | pos as u32;
        self.sift_up(pos);
    }

    fn heap_remove(&mut self, pos: usize) {
        let last = self.heap.pop().expect("heap item");
        if pos < self.heap.len() {
            self.heap_set(pos, last);
            self.sift_up(pos);
            let pos = (self.nodes[last.id as usize].loc & !IN_HEAP) as usize;
            self.sift_down(pos);
        }
    }

    fn sift_up(&mut self, mut k: usize) {
        let item = self.heap[k];
        while k > 0 {
            let parent = (k - 1) / 2;
            if !self.less(item, self.heap[parent]) {
                break;
            }
            self.heap_set(k, self.heap[parent]);
            k = parent;
        }
        self.heap_set(k, item);
    }

    fn sift_down(&mut self, mut k: usize) {
        let n = self.heap.len();
        let item = self.heap[k];
        loop {
            let mut child = 2 * k + 1;
            if child >= n {
                break;
            }
            if child + 1 < n && self.less(self.heap[child + 1], self.heap[child]) {
                child += 1;
            }
            if !self.less(self.heap[child], item) {
                break;
            }
            self.heap_set(k, self.heap[child]);
            k = child;
        }
        self.heap_set(k, item);
    }
}

#[cfg(test)]
mod tests {
    use super::super::entry::EntryKind;
    use super::*;

    fn entry(time: f64, a: u32) -> Entry {
        Entry {
            time,
            a,
            b: a + 1,
            kind: EntryKind::BodyBody,
            partner_counter: 0,
        }
    }

    /// Pops every entry in order (by setting the least to infinity) and checks the order
    /// against a sort.
    fn drain(q: &mut Queue) -> Vec<(f64, u32)> {
        let mut out = Vec::new();
        while let Some(i) = q.first() {
            let e = q.entry(i);
            out.push((e.time, e.a));
            q.set(i, entry(f64::INFINITY, e.a));
        }
        out
    }

    fn sorted(es: &[Entry]) -> Vec<(f64, u32)> {
        let mut s = es.to_vec();
        s.sort_by(|x, y| {
            if x.precedes(y) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }
        });
        s.iter()
            .filter(|e| e.time.is_finite())
            .map(|e| (e.time, e.a))
            .collect()
    }

    #[test]
    fn pops_in_entry_order_with_ties_far_times_and_infinities() {
        let mut es = Vec::new();
        let mut x = 12345u64;
        for i in 0..5000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            let t = match i % 10 {
                0 => f64::INFINITY,
                1 => 1e9 * u,
                2 => 0.5,
                _ => -(1.0 - u).ln(),
            };
            es.push(entry(t, i));
        }
        let mut q = Queue::new(es.clone());
        assert_eq!(drain(&mut q), sorted(&es));
    }

    #[test]
    fn updates_keep_the_order() {
        // Entries move later as they are popped, and arbitrary bodies change theirs.
        let n = 1000u32;
        let mut es: Vec<Entry> = (0..n).map(|i| entry(i as f64 * 1e-3, i)).collect();
        let mut q = Queue::new(es.clone());
        let mut x = 99u64;
        let mut now = 0.0;
        for _ in 0..20_000 {
            let i = q.first().expect("finite entries");
            let e = q.entry(i);
            assert!(e.time >= now);
            // The least of all, by the reference order.
            assert!(es.iter().all(|o| !o.precedes(&e) || o.a == e.a));
            now = e.time;
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            let later = entry(now + 3.0 * u, i);
            es[i as usize] = later;
            q.set(i, later);
            // Another body's entry moves anywhere after now.
            let j = ((x >> 20) % n as u64) as u32;
            let other = entry(now + 10.0 * u * u, j);
            es[j as usize] = other;
            q.set(j, other);
        }
    }

    #[test]
    fn empty_and_all_infinite() {
        assert_eq!(Queue::new(Vec::new()).first(), None);
        let mut q = Queue::new(vec![entry(f64::INFINITY, 0), entry(f64::INFINITY, 1)]);
        assert_eq!(q.first(), None);
        q.set(1, entry(2.0, 1));
        assert_eq!(q.first(), Some(1));
    }
}
