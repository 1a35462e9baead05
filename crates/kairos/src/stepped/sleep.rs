//! Islands and sleeping: bodies that push on each other form an island; an island whose
//! bodies have all been slow for [`TIME_TO_SLEEP`] sleeps (no gravity, no contacts solved, no
//! motion) until an awake body touches one of its bodies.

use super::{ContactPair, SteppedSim};
use crate::math::Vector;

/// A body is slow when its speed plus its angular speed times its radius is at most this
/// share of its radius per unit time.
pub const SLEEP_SPEED: f64 = 0.05;

/// How long every body of an island must have been slow before the island sleeps.
pub const TIME_TO_SLEEP: f64 = 0.5;

impl<V: Vector> SteppedSim<V> {
    /// Whether body `i` sleeps.
    pub fn is_asleep(&self, i: usize) -> bool {
        self.asleep.get(i).copied().unwrap_or(false)
    }

    /// How many bodies sleep.
    pub fn asleep_count(&self) -> usize {
        self.asleep.iter().filter(|&&s| s).count()
    }

    /// Wakes the island of body `i` (nothing if it is awake).
    pub(super) fn wake(&mut self, i: usize) {
        if !self.is_asleep(i) {
            return;
        }
        let island = self.island[i];
        for k in 0..self.bodies.len() {
            if self.asleep[k] && self.island[k] == island {
                self.asleep[k] = false;
                self.slow_for[k] = 0.0;
            }
        }
        self.stats.wakes += 1;
    }

    /// After a step of `dt`: the bodies' slow times, and the islands (union–find over the
    /// pairs that pushed in the step) whose bodies have all been slow long enough go to sleep.
    #[inline(never)]
    pub(super) fn update_sleep(&mut self, dt: f64) {
        if !self.options.sleep {
            return;
        }
        let n = self.bodies.len();
        for i in 0..n {
            if self.asleep[i] {
                continue;
            }
            let r = self.world.bodies[i].radius;
            let (v, spin) = self.motion(i);
            let speed = v.length() + spin;
            if speed <= SLEEP_SPEED * r {
                self.slow_for[i] += dt;
            } else {
                self.slow_for[i] = 0.0;
            }
        }
        // Union–find with path halving; the root is the lowest id of the island.
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                parent[x as usize] = parent[parent[x as usize] as usize];
                x = parent[x as usize];
            }
            x
        }
        for &ContactPair { a, b, wall } in &self.touching {
            if wall {
                continue;
            }
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb) as usize] = ra.min(rb);
            }
        }
        // The least slow time of each island, at its root.
        let mut least = vec![f64::INFINITY; n];
        for i in 0..n {
            if self.asleep[i] {
                continue;
            }
            let r = find(&mut parent, i as u32) as usize;
            least[r] = least[r].min(self.slow_for[i]);
        }
        for i in 0..n {
            if self.asleep[i] {
                continue;
            }
            let r = find(&mut parent, i as u32);
            if least[r as usize] >= TIME_TO_SLEEP {
                self.asleep[i] = true;
                self.island[i] = r;
                let b = &mut self.bodies[i];
                b.velocity = V::ZERO;
                b.angular_velocity = V::Angular::default();
            }
        }
    }
}
