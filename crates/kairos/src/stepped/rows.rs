//! The stepped engine's contact points as the solver holds them: each point's row (what the
//! sweeps read and write) and the rest of the point, the impulses cached for the next step, a
//! row's relative velocity and impulse through its arms, and the two-point blocks, whose
//! normal impulses are solved together.
//!
//! # Blocks
//! Gauss–Seidel solves a pair's two points one after the other; each point's impulse turns the
//! body, which moves the other point. When the two points' responses are nearly the same
//! motion (a long body of tiny inertia on two corners: each corner's push only turns it), a
//! sweep barely moves the pair: a plank of `inertia = 1e-9` on a floor took normal impulses of
//! 10⁻¹⁰ where it needed 10⁻², and fell through the floor. And the order of two points that
//! couple weakly still decides which side of a body takes its load first: a tower of 30 boxes
//! swayed and fell. So in 2D the two points of a row pair (the same two bodies and the same
//! normal) are a *block*: their normal impulses are the solution of the 2×2 linear
//! complementarity problem, as Box2D v2.4's block solver: both pushing, one of them, or
//! neither. The points of an impact of the continuous check are a block only when their
//! coupling `K₁₂² / (K₁₁ K₂₂)` is above [`BLOCK_COUPLING`] or the solver converges (a
//! sub-step's fall under gravity larger than the smallest bodies, [`super::CONVERGE_FALL`]):
//! a light box under one 10⁶ times heavier, whose floor pair the sweeps cannot hold, must be
//! left driving in, so that the check sees it and stops the bodies where they touch. Each
//! block's system is built once a step (the followed points') or once a sub-step (the points
//! found again), where the rows are marked.
//!
//! `K` of a body of tiny inertia is nearly singular and its entries are huge (`K₁₁ ≈ r²/I`),
//! so the solve does not form `K⁻¹` from them: with `c₀` the sum of the inverse masses, `c_a`
//! and `c_b` the inverse inertias and `j_a`, `j_b` the points' arms (`r × n`), its
//! determinant is `c₀ c_a (j_a2 − j_a1)² + c₀ c_b (j_b2 − j_b1)² + c_a c_b (j_a1 j_b2 − j_a2
//! j_b1)²` (Cauchy–Binet: a sum of non-negative terms, no cancellation), and the impulses,
//! their sum and each body's torque are expanded the same way, so that the turn a body takes,
//! `c_a` times a torque near zero, is as exact as the inputs: the plank at rest is held to
//! round-off, at `I = 10⁻⁹` as at `I = 1`.

use super::{CollisionId, ContactPair, Vel};
use crate::math::Vector;

/// The angular parts of a direction `d`'s constraint at a point: `r × d` of each body, and the
/// angular velocity a unit impulse along `d` gives each (`I⁻¹ (r × d)`, world frame).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Arm<A> {
    pub(super) ja: A,
    pub(super) jb: A,
    pub(super) ka: A,
    pub(super) kb: A,
}

/// One contact point's solver data: what the sweeps read and write, kept together so that a
/// sweep walks one compact array.
#[derive(Clone, Copy, Debug)]
pub(super) struct Row<V: Vector> {
    /// The bodies' indices into the solver's velocities; a wall is the last entry, a static
    /// body of zero velocity and zero inverse mass.
    pub(super) a: u32,
    pub(super) b: u32,
    pub(super) normal: V,
    pub(super) tangents: [V; 2],
    /// The normal's and the tangents' arms.
    pub(super) arms: [Arm<V::Angular>; 3],
    /// The inverse masses of `a` and `b` (0 for a wall).
    pub(super) inv_mass: [f64; 2],
    pub(super) mass_n: f64,
    pub(super) mass_t: [f64; 2],
    /// The normal velocity bias of the velocity solve (this sub-step's).
    pub(super) bias: f64,
    /// The separation this sub-step (negative: penetration), which the continuous check reads
    /// to find the pairs whose points do not hold them ([`super::SteppedSim::unheld_pairs`]).
    pub(super) sep: f64,
    /// The speculative margin of the point's pair ([`super::SPECULATIVE`] times its size),
    /// which that check reads without reaching for the rest of the point.
    pub(super) margin: f64,
    /// The pseudo-velocity bias of the split-impulse solve (0 without penetration).
    pub(super) push: f64,
    pub(super) friction: f64,
    /// Accumulated impulses: normal, along each tangent, and the split impulse.
    pub(super) pn: f64,
    pub(super) pt: [f64; 2],
    pub(super) pp: f64,
    /// Solved alone, or with the next or the previous row as a block (see the [module docs](self)).
    pub(super) block: u8,
    /// A block's head: where its 2×2 system is among the step's blocks ([`mark_blocks`]).
    pub(super) slot: u32,
}

/// The rest of a contact point: its id, where it is, and what the sub-steps need to follow its
/// separation.
#[derive(Clone, Debug)]
pub(super) struct Point<V: Vector> {
    pub(super) id: CollisionId,
    /// The point in the world, and in `a`'s body frame, at the start of the step.
    pub(super) world: V,
    pub(super) local: V,
    /// The anchors the sub-steps follow the separation by: the point's offset from `a`'s
    /// centre and from `b`'s (the point itself for a wall), in the body's frame when the
    /// body's feature there turns with it, in the world frame when it is a smooth shape's
    /// support point ([`crate::shape::FeatureId::None`]: a rolling ball's surface point under its centre
    /// does not turn with the ball).
    pub(super) anchor_a: V,
    pub(super) anchor_b: V,
    /// Whether each anchor turns with its body.
    pub(super) turns: [bool; 2],
    /// The normal, in the frame of the body whose face it comes from (`Some(false)`: `a`,
    /// `Some(true)`: `b`), which the sub-steps turn with that body; `None`: fixed in the
    /// world (a wall's face, an edge crossing, curved surfaces).
    pub(super) normal_of: Option<bool>,
    pub(super) normal_local: V,
    /// The normal at the start of the step.
    pub(super) normal: V,
    /// The separation at the start of the step (negative: penetration).
    pub(super) separation: f64,
    /// The normal velocity at the start of the step (negative: closing).
    pub(super) closing: f64,
    /// The size the point's speculative margin and tolerances are measured against.
    pub(super) size: f64,
    /// The size its slop is measured against: `size`, or less for a thin body ([`super::THIN`]).
    pub(super) slop_size: f64,
    /// The poses of `a` and `b` (the identity for a wall) when the point was found, from
    /// which the pair's drift is measured ([`super::KEEP`]).
    pub(super) found: [(V, V::Rotation); 2],
    /// Kept from the step before ([`super::KEEP`]): its row still holds its impulses, which are the
    /// ones the cache holds under its id.
    pub(super) kept: bool,
}

impl<V: Vector> Point<V> {
    /// The pair the point belongs to.
    pub(super) fn pair(&self) -> ContactPair {
        ContactPair {
            a: self.id.a,
            b: self.id.b,
            wall: self.id.wall,
        }
    }
}

/// A point's impulses and places, kept for the next sub-step.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cached<V> {
    pub(super) pn: f64,
    /// The tangential impulse as a vector (re-projected on the next sub-step's tangents).
    pub(super) pt: V,
    pub(super) world: V,
    pub(super) local: V,
}

/// Row `r`'s impulses and point `p`'s places, to be cached.
pub(super) fn cached_of<V: Vector>(r: &Row<V>, p: &Point<V>) -> Cached<V> {
    Cached {
        pn: r.pn,
        pt: r.tangents[0] * r.pt[0] + r.tangents[1] * r.pt[1],
        world: p.world,
        local: p.local,
    }
}

/// The points of an impact of the continuous check whose normal impulses' coupling
/// `K₁₂² / (K₁₁ K₂₂)` is above this are solved as a block (2D; a sub-step's rows are blocks
/// whatever their coupling): a light box under one 10⁶ times heavier, whose floor pair the
/// sweeps cannot hold, must be left driving in at its impact with the floor, so that the check
/// sees it and stops the bodies where they touch (solved as a block, the box was squeezed
/// through the floor). Gauss–Seidel takes off that share of a two-point error per sweep
/// at best; at 0.4 four sweeps leave 2.6% of it. Two boxes of equal size on each other couple
/// by 0.04 and a box of 2 × 0.2 on a floor by 0.25; a sliver triangle by 0.51 and a plank of
/// `inertia = 1e-9` by `1 − 10⁻⁹`.
pub const BLOCK_COUPLING: f64 = 0.4;

/// A row solved alone.
pub(super) const SINGLE: u8 = 0;
/// The first row of a block: the sweeps solve the block when they meet it.
pub(super) const HEAD: u8 = 1;
/// The second row of a block: solved with its head.
pub(super) const TAIL: u8 = 2;

/// The relative velocity along `d` of a row's point (`b`'s minus `a`'s), through the arm.
#[inline(always)]
pub(super) fn along<V: Vector>(d: V, arm: &Arm<V::Angular>, a: &Vel<V>, b: &Vel<V>) -> f64 {
    (b.0 - a.0).dot(d) + V::angular_dot(b.1, arm.jb) - V::angular_dot(a.1, arm.ja)
}

/// Applies impulse `lambda` along `d` through the arm (on `b`; `-lambda` on `a`).
#[inline(always)]
pub(super) fn kick<V: Vector>(
    d: V,
    arm: &Arm<V::Angular>,
    inv_mass: [f64; 2],
    lambda: f64,
    a: &mut Vel<V>,
    b: &mut Vel<V>,
) {
    a.0 -= d * (lambda * inv_mass[0]);
    a.1 = V::angular_add_scaled(a.1, arm.ka, -lambda);
    b.0 += d * (lambda * inv_mass[1]);
    b.1 = V::angular_add_scaled(b.1, arm.kb, lambda);
}

/// A 2D angular quantity's one number.
#[inline(always)]
fn scalar<V: Vector>(w: V::Angular) -> f64 {
    V::angular_to_array3(w)[0]
}

/// The 2×2 normal system of two rows of the same bodies and normal (2D): the sum of the
/// inverse masses, each body's inverse inertia, the arms `r × n` of each point on each body,
/// `K` and its determinant.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    c0: f64,
    ca: f64,
    cb: f64,
    ja: [f64; 2],
    jb: [f64; 2],
    /// `K₁₁`, `K₁₂`, `K₂₂`.
    k: [f64; 3],
    det: f64,
}

/// A body's inverse inertia from its arms (`k = c j` in 2D): taken from the longer arm; 0 when
/// both arms are zero (then it never enters).
fn inverse_inertia(j: [f64; 2], k: [f64; 2]) -> f64 {
    let i = if j[0].abs() >= j[1].abs() { 0 } else { 1 };
    if j[i] == 0.0 {
        0.0
    } else {
        k[i] / j[i]
    }
}

impl Block {
    /// The block of rows `r1` and `r2`, if they may be one: 2D, the same two bodies, the same
    /// normal, a positive determinant, all finite.
    pub(super) fn of<V: Vector>(r1: &Row<V>, r2: &Row<V>) -> Option<Self> {
        if V::DIM != 2 || r1.a != r2.a || r1.b != r2.b || r1.normal != r2.normal {
            return None;
        }
        let (x, y) = (&r1.arms[0], &r2.arms[0]);
        let ja = [scalar::<V>(x.ja), scalar::<V>(y.ja)];
        let jb = [scalar::<V>(x.jb), scalar::<V>(y.jb)];
        let ca = inverse_inertia(ja, [scalar::<V>(x.ka), scalar::<V>(y.ka)]);
        let cb = inverse_inertia(jb, [scalar::<V>(x.kb), scalar::<V>(y.kb)]);
        let c0 = r1.inv_mass[0] + r1.inv_mass[1];
        let k = [
            c0 + ca * ja[0] * ja[0] + cb * jb[0] * jb[0],
            c0 + ca * ja[0] * ja[1] + cb * jb[0] * jb[1],
            c0 + ca * ja[1] * ja[1] + cb * jb[1] * jb[1],
        ];
        let cross = ja[0] * jb[1] - ja[1] * jb[0];
        let det = c0 * ca * (ja[1] - ja[0]).powi(2)
            + c0 * cb * (jb[1] - jb[0]).powi(2)
            + ca * cb * cross * cross;
        let all = [c0, ca, cb, det, k[0], k[1], k[2]];
        (det > 0.0 && all.iter().all(|x| x.is_finite())).then_some(Self {
            c0,
            ca,
            cb,
            ja,
            jb,
            k,
            det,
        })
    }

    /// Whether the two rows couple enough to be solved together ([`BLOCK_COUPLING`]).
    pub(super) fn coupled(&self) -> bool {
        self.k[1] * self.k[1] > BLOCK_COUPLING * self.k[0] * self.k[2]
    }

    /// The impulses `d = K⁻¹ t`, with the velocity change they make: the sum of the two
    /// impulses and each body's torque `Σ j_i d_i`, each expanded so that no large terms
    /// cancel (see the module docs).
    fn solve(&self, t: [f64; 2]) -> Impulses {
        let (c0, ca, cb, ja, jb, det) = (self.c0, self.ca, self.cb, self.ja, self.jb, self.det);
        let dt = t[0] - t[1];
        let wa = ja[1] * t[0] - ja[0] * t[1];
        let wb = jb[1] * t[0] - jb[0] * t[1];
        let cross = ja[0] * jb[1] - ja[1] * jb[0];
        Impulses {
            d: [
                (c0 * dt + ca * ja[1] * wa + cb * jb[1] * wb) / det,
                (-c0 * dt - ca * ja[0] * wa - cb * jb[0] * wb) / det,
            ],
            sum: (ca * (ja[1] - ja[0]) * wa + cb * (jb[1] - jb[0]) * wb) / det,
            torque: [
                (c0 * dt * (ja[0] - ja[1]) + cb * cross * wb) / det,
                (c0 * dt * (jb[0] - jb[1]) - ca * cross * wa) / det,
            ],
        }
    }

    /// The impulses `d` with their sum and torques, directly.
    fn direct(&self, d: [f64; 2]) -> Impulses {
        Impulses {
            d,
            sum: d[0] + d[1],
            torque: [
                self.ja[0] * d[0] + self.ja[1] * d[1],
                self.jb[0] * d[0] + self.jb[1] * d[1],
            ],
        }
    }

    /// The change of the two points' normal velocities that impulses `d` make: `K d`.
    fn response(&self, d: [f64; 2]) -> [f64; 2] {
        [
            self.k[0] * d[0] + self.k[1] * d[1],
            self.k[1] * d[0] + self.k[2] * d[1],
        ]
    }

    /// The new accumulated impulses of the block: the solution of the linear complementarity
    /// problem `x ≥ 0`, `v(x) ≥ target`, `x · (v(x) − target) = 0` from the accumulated
    /// impulses `acc` and the normal velocities `vn` now (Box2D v2.4's four cases: both
    /// points push, the first alone, the second alone, neither), with the impulses that take
    /// `acc` there; `None` when no case holds (round-off at a degenerate block).
    fn lcp(&self, target: [f64; 2], acc: [f64; 2], vn: [f64; 2]) -> Option<Impulses> {
        let t = [target[0] - vn[0], target[1] - vn[1]];
        let full = self.solve(t);
        if acc[0] + full.d[0] >= 0.0 && acc[1] + full.d[1] >= 0.0 {
            return Some(full);
        }
        let k = self.k;
        // One point pushes, the other lets go.
        for (i, j) in [(0, 1), (1, 0)] {
            let mut d = [0.0; 2];
            d[j] = -acc[j];
            let kij = k[1];
            let kii = if i == 0 { k[0] } else { k[2] };
            d[i] = (t[i] - kij * d[j]) / kii;
            let dv = self.response(d);
            if acc[i] + d[i] >= 0.0 && dv[j] >= t[j] && kii > 0.0 {
                return Some(self.direct(d));
            }
        }
        let d = [-acc[0], -acc[1]];
        let dv = self.response(d);
        (dv[0] >= t[0] && dv[1] >= t[1]).then(|| self.direct(d))
    }
}

/// Two impulses and the velocity change they make: their sum along the normal and the torque
/// `Σ j_i d_i` on each body.
#[derive(Clone, Copy, Debug)]
struct Impulses {
    d: [f64; 2],
    sum: f64,
    torque: [f64; 2],
}

impl Impulses {
    /// Applies the impulses along `normal` to the velocities of `a` and `b`.
    fn apply<V: Vector>(
        &self,
        block: &Block,
        normal: V,
        inv_mass: [f64; 2],
        a: &mut Vel<V>,
        b: &mut Vel<V>,
    ) {
        a.0 -= normal * (self.sum * inv_mass[0]);
        a.1 = V::angular_add_scaled(
            a.1,
            V::angular_from_array3([block.ca * self.torque[0], 0.0, 0.0]),
            -1.0,
        );
        b.0 += normal * (self.sum * inv_mass[1]);
        b.1 = V::angular_add_scaled(
            b.1,
            V::angular_from_array3([block.cb * self.torque[1], 0.0, 0.0]),
            1.0,
        );
    }
}

/// Which accumulated impulse of the rows a block solve works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Acc {
    /// The normal impulse, on the velocities.
    Normal,
    /// The split impulse, on the pseudo-velocities.
    Split,
}

/// Solves the block of rows `k` and `k + 1` of `rows` to the normal velocities `target` on the
/// velocities `vel` (the normal impulses, or with [`Acc::Split`] the split impulses on
/// pseudo-velocities); whether it was solved (`false`: no case of its complementarity problem
/// holds, or the rows are no block; the caller solves them one by one).
#[inline(never)]
pub(super) fn solve_block<V: Vector>(
    rows: &mut [Row<V>],
    k: usize,
    target: [f64; 2],
    which: Acc,
    vel: &mut [Vel<V>],
    block: &Block,
) -> bool {
    let (r1, r2) = (&rows[k], &rows[k + 1]);
    let (ia, ib) = (r1.a as usize, r1.b as usize);
    let (mut a, mut b) = (vel[ia], vel[ib]);
    let vn = [
        along(r1.normal, &r1.arms[0], &a, &b),
        along(r2.normal, &r2.arms[0], &a, &b),
    ];
    let acc = match which {
        Acc::Normal => [r1.pn, r2.pn],
        Acc::Split => [r1.pp, r2.pp],
    };
    let Some(imp) = block.lcp(target, acc, vn) else {
        return false;
    };
    imp.apply(block, r1.normal, r1.inv_mass, &mut a, &mut b);
    vel[ia] = a;
    vel[ib] = b;
    let new = [(acc[0] + imp.d[0]).max(0.0), (acc[1] + imp.d[1]).max(0.0)];
    let (head, tail) = rows.split_at_mut(k + 1);
    let (r1, r2) = (&mut head[k], &mut tail[0]);
    match which {
        Acc::Normal => (r1.pn, r2.pn) = (new[0], new[1]),
        Acc::Split => (r1.pp, r2.pp) = (new[0], new[1]),
    }
    true
}

/// [`super::Correction::Soft`]'s solve of the block of rows `k` and `k + 1` when both touch or
/// penetrate (their biases are not a speculative gap's): the springs' impulses of the two
/// points together, `Δx = s K⁻¹ (push − v) − i x` with the softness's mass scale `s` and
/// impulse scale `i`; whether both impulses stay non-negative (`false`: the caller solves the
/// rows one by one).
#[inline(never)]
pub(super) fn solve_soft_block<V: Vector>(
    rows: &mut [Row<V>],
    k: usize,
    mass_scale: f64,
    impulse_scale: f64,
    vel: &mut [Vel<V>],
    block: &Block,
) -> bool {
    let (r1, r2) = (&rows[k], &rows[k + 1]);
    if r1.bias < 0.0 || r2.bias < 0.0 {
        return false;
    }
    let (ia, ib) = (r1.a as usize, r1.b as usize);
    let (mut a, mut b) = (vel[ia], vel[ib]);
    let t = [
        r1.push - along(r1.normal, &r1.arms[0], &a, &b),
        r2.push - along(r2.normal, &r2.arms[0], &a, &b),
    ];
    let acc = [r1.pn, r2.pn];
    let (full, kept) = (block.solve(t), block.direct(acc));
    let d = [
        mass_scale * full.d[0] - impulse_scale * acc[0],
        mass_scale * full.d[1] - impulse_scale * acc[1],
    ];
    if !(acc[0] + d[0] >= 0.0 && acc[1] + d[1] >= 0.0) {
        return false;
    }
    let imp = Impulses {
        d,
        sum: mass_scale * full.sum - impulse_scale * kept.sum,
        torque: [
            mass_scale * full.torque[0] - impulse_scale * kept.torque[0],
            mass_scale * full.torque[1] - impulse_scale * kept.torque[1],
        ],
    };
    imp.apply(block, r1.normal, r1.inv_mass, &mut a, &mut b);
    vel[ia] = a;
    vel[ib] = b;
    rows[k].pn = acc[0] + d[0];
    rows[k + 1].pn = acc[1] + d[1];
    true
}

/// Marks the blocks among `rows`: each row and the next that make a block ([`Block::of`]) and
/// couple ([`Block::coupled`]), or that make one at all with `every`, a row in one block at
/// most; every other row alone. Each block's system is appended to `blocks`, where its head
/// row's `slot` finds it.
pub(super) fn mark_blocks<V: Vector>(rows: &mut [Row<V>], every: bool, blocks: &mut Vec<Block>) {
    if V::DIM != 2 {
        return;
    }
    // Coupled, from the rows' own masses first (most pairs are not: no block to build).
    let may = |r1: &Row<V>, r2: &Row<V>| {
        if r1.a != r2.a || r1.b != r2.b || r1.normal != r2.normal {
            return false;
        }
        if every {
            return true;
        }
        let (x, y) = (&r1.arms[0], &r2.arms[0]);
        let k12 = r1.inv_mass[0]
            + r1.inv_mass[1]
            + V::angular_dot(x.ja, y.ka)
            + V::angular_dot(x.jb, y.kb);
        k12 * k12 * r1.mass_n * r2.mass_n > BLOCK_COUPLING
    };
    let mut k = 0;
    while k < rows.len() {
        rows[k].block = SINGLE;
        let block = (k + 1 < rows.len() && may(&rows[k], &rows[k + 1]))
            .then(|| Block::of(&rows[k], &rows[k + 1]))
            .flatten()
            .filter(|b| every || b.coupled());
        if let Some(b) = block {
            rows[k].block = HEAD;
            rows[k].slot = blocks.len() as u32;
            blocks.push(b);
            rows[k + 1].block = TAIL;
            k += 2;
        } else {
            k += 1;
        }
    }
}
