//! The stepped engine's solver: the sweeps of sequential impulses along each point's arms,
//! warm starting from the cache, restitution, the energy guard and the split impulses.

use super::*;

impl<V: Vector> SteppedSim<V> {
    /// The relative velocity of point `k` along its direction `d` (0 the normal, 1 and 2 the
    /// tangents), through its arms.
    #[inline]
    pub(super) fn along(&self, k: usize, d: usize) -> f64 {
        let p = &self.points[k];
        let dir = if d == 0 { p.normal } else { p.tangents[d - 1] };
        let arm = &p.arms[d];
        let sa = &self.bodies[p.a];
        let mut v = -sa.velocity.dot(dir) - V::angular_dot(sa.angular_velocity, arm.ja);
        if let Some(b) = p.b {
            let sb = &self.bodies[b];
            v += sb.velocity.dot(dir) + V::angular_dot(sb.angular_velocity, arm.jb);
        }
        v
    }

    /// Applies impulse `lambda` along point `k`'s direction `d` (on `b`; `-lambda` on `a`).
    #[inline]
    pub(super) fn push(&mut self, k: usize, d: usize, lambda: f64) {
        let p = &self.points[k];
        let dir = if d == 0 { p.normal } else { p.tangents[d - 1] };
        let arm = p.arms[d];
        let (a, b) = (p.a, p.b);
        let sa = &mut self.bodies[a];
        sa.velocity -= dir * (lambda * sa.inv_mass);
        sa.angular_velocity = V::angular_add_scaled(sa.angular_velocity, arm.ka, -lambda);
        if let Some(b) = b {
            let sb = &mut self.bodies[b];
            sb.velocity += dir * (lambda * sb.inv_mass);
            sb.angular_velocity = V::angular_add_scaled(sb.angular_velocity, arm.kb, lambda);
        }
    }

    /// The velocity of `b`'s point at `rb` minus that of `a`'s point at `ra`.
    pub(super) fn relative_velocity(&self, a: usize, b: Option<usize>, ra: V, rb: V) -> V {
        let at = |i: usize, r: V| {
            let s = &self.bodies[i];
            s.velocity + V::angular_cross(s.angular_velocity, r)
        };
        b.map_or(V::ZERO, |b| at(b, rb)) - at(a, ra)
    }

    /// Applies impulse `p` (on `b`; `-p` on `a`) at the point's offsets.
    pub(super) fn apply(&mut self, a: usize, b: Option<usize>, ra: V, rb: V, p: V) {
        let s = &mut self.bodies[a];
        s.velocity -= p * s.inv_mass;
        let dw = V::inertia_apply(s.rotation, s.inv_inertia, V::cross_angular(ra, p));
        s.angular_velocity = V::angular_add_scaled(s.angular_velocity, dw, -1.0);
        if let Some(b) = b {
            let s = &mut self.bodies[b];
            s.velocity += p * s.inv_mass;
            let dw = V::inertia_apply(s.rotation, s.inv_inertia, V::cross_angular(rb, p));
            s.angular_velocity = V::angular_add_scaled(s.angular_velocity, dw, 1.0);
        }
    }

    /// Point `k`'s cached impulses, by [`StepOptions::matching`] (counting the mismatches).
    pub(super) fn cached(&mut self, k: usize) -> Option<Cached<V>> {
        let p = &self.points[k];
        let key = |id: &CollisionId| (id.a, id.b, id.wall, id.pieces);
        let probe = if self.options.matching == Matching::Features {
            return self
                .sorted
                .binary_search_by_key(&p.id, |x| x.0)
                .ok()
                .map(|j| self.sorted[j].1);
        } else {
            key(&p.id)
        };
        let from = self.sorted.partition_point(|(id, _)| key(id) < probe);
        let to = self.sorted.partition_point(|(id, _)| key(id) <= probe);
        let size = if p.id.wall {
            self.world.bodies[p.a].radius
        } else {
            0.5 * (self.world.bodies[p.a].radius + self.world.bodies[p.id.b as usize].radius)
        };
        let mut best: Option<(f64, usize)> = None;
        for (j, (_, c)) in self.sorted[from..to].iter().enumerate() {
            let d = match self.options.matching {
                Matching::WorldDistance => (c.world - p.world).length(),
                _ => (c.local - p.local).length(),
            };
            if d <= MATCH_RADIUS * size && best.is_none_or(|b| d < b.0) {
                best = Some((d, from + j));
            }
        }
        let (_, j) = best?;
        let (id, c) = self.sorted[j];
        if id.features != p.id.features {
            self.stats.mismatches += 1;
        }
        Some(c)
    }

    /// Starts each point from its cached impulses, when it has some.
    pub(super) fn warm_start(&mut self) {
        if !self.options.warm_start {
            return;
        }
        for k in 0..self.points.len() {
            let Some(Cached { pn, pt, .. }) = self.cached(k) else {
                continue;
            };
            self.stats.warm_hits += 1;
            let p = &mut self.points[k];
            p.pn = pn;
            p.pt = [pt.dot(p.tangents[0]), pt.dot(p.tangents[1])];
            let (pt0, pt1) = (p.pt[0], p.pt[1]);
            self.push(k, 0, pn);
            self.push(k, 1, pt0);
            if V::DIM == 3 {
                self.push(k, 2, pt1);
            }
        }
    }

    /// The normal impulse at point `k`, accumulated and clamped to be non-negative.
    pub(super) fn solve_normal(&mut self, k: usize) {
        let vn = self.along(k, 0);
        let p = &mut self.points[k];
        let lambda = p.mass_n * (p.bias - vn);
        let total = (p.pn + lambda).max(0.0);
        let dn = total - p.pn;
        p.pn = total;
        self.push(k, 0, dn);
    }

    /// The root mean square, over the points, of how far each is from its solution after the
    /// sweeps (a velocity): a point that pushes should close at exactly its bias, a point that
    /// does not should not close faster than it.
    pub(super) fn measure_residual(&mut self) {
        if self.points.is_empty() {
            return;
        }
        let mut sq = 0.0;
        for p in &self.points {
            let gap = self.relative_velocity(p.a, p.b, p.ra, p.rb).dot(p.normal) - p.bias;
            let err = if p.pn > 0.0 { gap } else { gap.min(0.0) };
            sq += err * err;
        }
        self.residual.0 += (sq / self.points.len() as f64).sqrt();
        self.residual.1 += 1;
    }

    /// The mean over the sub-steps with contacts of the solver's residual after its sweeps:
    /// the root mean square over the points of how far each point's normal velocity is from
    /// its solution (0 when the sweeps converged).
    pub fn mean_residual(&self) -> f64 {
        if self.residual.1 == 0 {
            0.0
        } else {
            self.residual.0 / self.residual.1 as f64
        }
    }

    /// Restitution, after the sweeps: each point that closed faster than
    /// [`RESTITUTION_SPEED`] at the start of the sub-step and took a normal impulse leaves with
    /// the restitution's share of that speed (Box2D v3's order: the sweeps first stop the
    /// contact, so a resting contact never bounces).
    pub(super) fn restitution(&mut self) {
        self.restitution_of(0..self.points.len());
    }

    /// [`SteppedSim::restitution`] of the points in `range`.
    pub(super) fn restitution_of(&mut self, range: std::ops::Range<usize>) {
        let e = self.world.restitution;
        if !(e > 0.0) {
            return;
        }
        for k in range {
            let p = &self.points[k];
            if !(p.closing < -RESTITUTION_SPEED && p.pn > 0.0) {
                continue;
            }
            let (a, b, ra, rb, n) = (p.a, p.b, p.ra, p.rb, p.normal);
            let vn = self.relative_velocity(a, b, ra, rb).dot(n);
            let p = &mut self.points[k];
            let lambda = -p.mass_n * (vn + e * p.closing);
            let total = (p.pn + lambda).max(0.0);
            let dn = total - p.pn;
            p.pn = total;
            self.apply(a, b, ra, rb, n * dn);
        }
    }

    /// Contacts never create kinetic energy: when the solve of a sub-step or an impact (the
    /// bodies' indices and velocities `before`) leaves more than it started with, its change is scaled down until it
    /// does not. Newton's law of restitution applied point by point can ask more of a
    /// rotating body touching at several points than the impact gave (measured: +0.1% in a
    /// room of boxes with restitution 1), and a warm start undone by the clamp leaves a
    /// round-off's worth; the kinetic energy is a quadratic `E(α) = E₀ + αA + α²B` in the share
    /// `α` of the change kept, and `α` is the largest in `[0, 1]` with `E(α) ≤ E₀`.
    pub(super) fn never_gain_energy(&mut self, before: &[(usize, V, V::Angular)]) {
        let (mut lin, mut quad) = (0.0, 0.0);
        for &(i, v, w) in before {
            let b = &self.bodies[i];
            let m = 1.0 / b.inv_mass;
            let (dv, dw) = (
                b.velocity - v,
                V::angular_add_scaled(b.angular_velocity, w, -1.0),
            );
            let iw = V::inertia_apply(b.rotation, b.inertia, w);
            let idw = V::inertia_apply(b.rotation, b.inertia, dw);
            lin += m * v.dot(dv) + V::angular_dot(dw, iw);
            quad += 0.5 * (m * dv.length_squared() + V::angular_dot(dw, idw));
        }
        // E(1) - E(0) = A + B.
        if !(lin + quad > 0.0) || !(quad > 0.0) {
            return;
        }
        // The positive root of αA + α²B = 0, below 1 since A + B > 0; A < 0 there.
        let alpha = (-lin / quad).clamp(0.0, 1.0);
        for &(i, v, w) in before {
            let b = &mut self.bodies[i];
            let dv = b.velocity - v;
            let dw = V::angular_add_scaled(b.angular_velocity, w, -1.0);
            b.velocity = v + dv * alpha;
            b.angular_velocity = V::angular_add_scaled(w, dw, alpha);
        }
    }

    /// The split impulse at point `k`: on the pseudo-velocities, accumulated and clamped to be
    /// non-negative, until the point separates at its push.
    pub(super) fn solve_split(&mut self, k: usize) {
        let p = &self.points[k];
        let (a, b, ra, rb, n) = (p.a, p.b, p.ra, p.rb, p.normal);
        let at = |i: usize, r: V| {
            let (v, w) = self.pseudo[i];
            v + V::angular_cross(w, r)
        };
        let dv = b.map_or(V::ZERO, |b| at(b, rb)) - at(a, ra);
        let p = &mut self.points[k];
        let lambda = p.mass_n * (p.push - dv.dot(n));
        let total = (p.pp + lambda).max(0.0);
        let d = n * (total - p.pp);
        p.pp = total;
        let bodies = &self.bodies;
        let mut kick = |i: usize, r: V, sign: f64| {
            let s = &bodies[i];
            let (v, w) = &mut self.pseudo[i];
            *v += d * (sign * s.inv_mass);
            let dw = V::inertia_apply(s.rotation, s.inv_inertia, V::cross_angular(r, d));
            *w = V::angular_add_scaled(*w, dw, sign);
        };
        kick(a, ra, -1.0);
        if let Some(b) = b {
            kick(b, rb, 1.0);
        }
    }

    /// The friction impulse at point `k` along each tangent, accumulated and clamped to the
    /// friction cone of the point's normal impulse.
    pub(super) fn solve_friction(&mut self, k: usize) {
        let dims = if V::DIM == 3 { 2 } else { 1 };
        for t in 0..dims {
            let vt = self.along(k, t + 1);
            let p = &mut self.points[k];
            let limit = p.friction * p.pn;
            let lambda = -p.mass_t[t] * vt;
            let total = (p.pt[t] + lambda).clamp(-limit, limit);
            let dt = total - p.pt[t];
            p.pt[t] = total;
            self.push(k, t + 1, dt);
        }
    }
}
