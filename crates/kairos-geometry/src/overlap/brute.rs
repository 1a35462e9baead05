//! The reference: every pair tested.

use super::{is_empty, OverlapFinder};
use crate::math::{Aabb, Vector};

/// Tests every pair of boxes: O(n^2), the reference the other finders are checked against.
#[derive(Clone, Copy, Debug, Default)]
pub struct BruteForce;

impl<V: Vector> OverlapFinder<V> for BruteForce {
    fn name(&self) -> &'static str {
        "brute-force"
    }

    fn find_pairs(&mut self, boxes: &[Aabb<V>], out: &mut Vec<[u32; 2]>) {
        out.clear();
        for (i, a) in boxes.iter().enumerate() {
            if is_empty(a) {
                continue;
            }
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                if !is_empty(b) && a.overlaps(b) {
                    out.push([i as u32, j as u32]);
                }
            }
        }
    }
}
