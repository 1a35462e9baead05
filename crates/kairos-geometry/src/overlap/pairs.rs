//! Helpers shared by the finders: pair keys and their hash set, the sorted output, and a
//! finite sort key for box centres.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use crate::math::{Aabb, Vector};

/// The pair `{i, j}` as one integer, `min << 32 | max`; keys order like the pairs `[min, max]`.
#[inline]
pub(crate) fn pair_key(i: u32, j: u32) -> u64 {
    let (a, b) = if i < j { (i, j) } else { (j, i) };
    (u64::from(a) << 32) | u64::from(b)
}

/// The pair `[i, j]`, `i < j`, of a key made by [`pair_key`].
#[inline]
pub(crate) fn key_pair(k: u64) -> [u32; 2] {
    [(k >> 32) as u32, k as u32]
}

/// A hasher for `u64` pair keys: the murmur3 finaliser, which mixes every input bit into the
/// low bits (the table index) and the high bits (the tag) alike. Pair keys put the first item
/// in the high half, so a plain multiplicative hash would index by the second item alone.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PairHasher(u64);

impl Hasher for PairHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        let mut h = x ^ self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^= h >> 33;
        self.0 = h;
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
}

/// A set of pair keys.
pub(crate) type PairSet = HashSet<u64, BuildHasherDefault<PairHasher>>;

/// Sorts pairs `[i, j]` (all `i < n`) ascending.
///
/// Many pairs against few items: a counting sort on the first item (`O(n + p)`), then each
/// row, usually a handful of pairs, by insertion sort. Otherwise a comparison sort of the
/// packed keys.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairSorter {
    starts: Vec<u32>,
    tmp: Vec<[u32; 2]>,
}

impl PairSorter {
    /// Sorts `pairs` in place; `n` bounds the first items.
    pub(crate) fn sort(&mut self, pairs: &mut Vec<[u32; 2]>, n: usize) {
        let p = pairs.len();
        if p < 64 || p.saturating_mul(8) < n {
            pairs.sort_unstable_by_key(|&[i, j]| (u64::from(i) << 32) | u64::from(j));
            return;
        }
        self.starts.clear();
        self.starts.resize(n + 1, 0);
        for &[i, _] in pairs.iter() {
            self.starts[i as usize + 1] += 1;
        }
        for k in 0..n {
            self.starts[k + 1] += self.starts[k];
        }
        self.tmp.clear();
        self.tmp.resize(p, [0, 0]);
        // `starts[i]` runs through row i while filling; afterwards `starts[i]` is row i's end.
        for &pair in pairs.iter() {
            let s = &mut self.starts[pair[0] as usize];
            self.tmp[*s as usize] = pair;
            *s += 1;
        }
        let mut begin = 0usize;
        for k in 0..n {
            let end = self.starts[k] as usize;
            let row = &mut self.tmp[begin..end];
            if row.len() > 24 {
                row.sort_unstable_by_key(|pair| pair[1]);
            } else {
                for a in 1..row.len() {
                    let x = row[a];
                    let mut b = a;
                    while b > 0 && row[b - 1][1] > x[1] {
                        row[b] = row[b - 1];
                        b -= 1;
                    }
                    row[b] = x;
                }
            }
            begin = end;
        }
        std::mem::swap(pairs, &mut self.tmp);
    }
}

/// A finite stand-in for the centre of a non-empty box on `axis`, monotone in both bounds:
/// `min/2 + max/2` (no overflow near `f64::MAX`), the finite bound when the other is
/// infinite, and 0 for a box infinite both ways.
#[inline]
pub(crate) fn centre_key<V: Vector>(b: &Aabb<V>, axis: usize) -> f64 {
    let (lo, hi) = (b.min.comp(axis), b.max.comp(axis));
    match (lo.is_finite(), hi.is_finite()) {
        (true, true) => 0.5 * lo + 0.5 * hi,
        (true, false) => lo,
        (false, true) => hi,
        (false, false) => 0.0,
    }
}

/// The axis along which the centres of the non-empty `boxes` spread most (largest variance),
/// Ericson's choice of sweep axis. Centres are shifted by the first one before summing, so
/// large coordinates do not cancel.
pub(crate) fn axis_of_largest_variance<V: Vector>(boxes: &[Aabb<V>]) -> usize {
    let mut shift = [0.0f64; 3];
    let mut sum = [0.0f64; 3];
    let mut sum2 = [0.0f64; 3];
    let mut count = 0usize;
    for b in boxes {
        if super::is_empty(b) {
            continue;
        }
        if count == 0 {
            for (a, s) in shift.iter_mut().enumerate().take(V::DIM) {
                *s = centre_key(b, a);
            }
        }
        count += 1;
        for a in 0..V::DIM {
            let c = centre_key(b, a) - shift[a];
            sum[a] += c;
            sum2[a] += c * c;
        }
    }
    let mut best = 0;
    let mut best_var = f64::NEG_INFINITY;
    if count == 0 {
        return 0;
    }
    let inv = 1.0 / count as f64;
    for a in 0..V::DIM {
        let mean = sum[a] * inv;
        let var = sum2[a] * inv - mean * mean;
        // NaN (overflowed sums) never wins over a real variance.
        if var > best_var {
            best = a;
            best_var = var;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_order() {
        assert_eq!(key_pair(pair_key(7, 3)), [3, 7]);
        assert!(pair_key(1, 9) < pair_key(2, 3));
    }

    #[test]
    fn sorter_sorts_both_ways() {
        let mut s = PairSorter::default();
        for &(n, p) in &[(10usize, 5usize), (50, 400), (1000, 20_000)] {
            let mut x = 12345u64;
            let mut pairs: Vec<[u32; 2]> = (0..p)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let i = ((x >> 33) % n as u64) as u32;
                    let j = ((x >> 13) % n as u64) as u32;
                    [i.min(j), i.max(j)]
                })
                .collect();
            let mut expect = pairs.clone();
            expect.sort_unstable();
            s.sort(&mut pairs, n);
            assert_eq!(pairs, expect);
        }
    }
}
