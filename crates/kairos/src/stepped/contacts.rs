//! The stepped engine's contacts: the pairs' manifolds at the current poses, a plane's
//! points, and each point's arms, masses and biases for the solver.

use super::*;

impl<V: Vector> SteppedSim<V> {
    /// The pose of body `i`'s shape frame now.
    pub(super) fn pose(&self, i: usize) -> Pose<V> {
        let b = &self.bodies[i];
        self.world.rigid[i].shape_pose(b.position, b.rotation)
    }

    /// Body `i`'s pieces: (piece index, shape).
    pub(super) fn pieces(&self, i: usize) -> impl Iterator<Item = (u32, &Shape<V>)> {
        let r = &self.world.rigid[i];
        let first = r.shape as usize;
        self.world.shapes[first..first + r.pieces as usize]
            .iter()
            .enumerate()
            .map(|(k, s)| (k as u32, s))
    }

    /// Finds this sub-step's contact points, in a fixed order.
    pub(super) fn collide(&mut self, h: f64) {
        let mut points = std::mem::take(&mut self.points);
        points.clear();
        let n = self.bodies.len();
        // Boxes of the bounding spheres, grown by the margin and by a sub-step's motion.
        self.boxes.clear();
        for (b, body) in self.bodies.iter().zip(&self.world.bodies) {
            let reach = body.radius * (1.0 + SPECULATIVE) + b.velocity.length() * h;
            let r = V::splat(reach);
            self.boxes.push(Aabb {
                min: b.position - r,
                max: b.position + r,
            });
        }
        let mut pairs = std::mem::take(&mut self.pairs);
        self.finder.find_pairs(&self.boxes, &mut pairs);
        for &[a, b] in &pairs {
            let (sa, sb) = (self.asleep[a as usize], self.asleep[b as usize]);
            if sa && sb {
                continue;
            }
            let from = points.len();
            self.pair_points(ContactPair { a, b, wall: false }, h, &mut points);
            if points.len() > from && (sa || sb) {
                // An awake body touches a sleeping one: its island wakes, and its points
                // are solved from now on.
                self.wake(if sa { a } else { b } as usize);
            }
        }
        self.pairs = pairs;
        for a in 0..n as u32 {
            if self.asleep[a as usize] {
                continue;
            }
            for b in 0..self.world.wall_pieces.len() as u32 {
                self.pair_points(ContactPair { a, b, wall: true }, h, &mut points);
            }
        }
        self.points = points;
    }

    /// The contact points of pair `c` (two bodies, or a body and a wall) at the current poses,
    /// within the speculative margin, appended to `points` in a fixed order.
    pub(super) fn pair_points(&self, c: ContactPair, h: f64, points: &mut Vec<Point<V>>) {
        let i = c.a as usize;
        if !c.wall {
            let j = c.b as usize;
            let size = 0.5 * (self.world.bodies[i].radius + self.world.bodies[j].radius);
            let (pose_i, pose_j) = (self.pose(i), self.pose(j));
            for (ki, si) in self.pieces(i) {
                for (kj, sj) in self.pieces(j) {
                    let m = contact_manifold_with(si, &pose_i, sj, &pose_j, &manifold(size), None);
                    for p in m.points() {
                        let id = CollisionId {
                            a: c.a,
                            b: c.b,
                            wall: false,
                            pieces: [ki, kj],
                            features: p.id,
                        };
                        points.push(self.point(id, i, Some(j), m.normal, p, size, h));
                    }
                }
            }
            return;
        }
        // The wall is `a` of the manifold (its normal points from the wall to the body) and
        // the body is `b`; stored with the body first.
        let w = c.b as usize;
        let size = self.world.bodies[i].radius;
        let pose = self.pose(i);
        // (the body's piece, the wall's piece), the normal from the wall, the point.
        let mut found: Vec<([u32; 2], V, ContactPoint<V>)> = Vec::new();
        match &self.world.wall_pieces[w] {
            WallPieces::Plane(plane) => {
                // The plane's normal on the side of the body's centre.
                let nrm = plane.normal_towards(self.bodies[i].position);
                for (k, s) in self.pieces(i) {
                    for (v, f) in shape_points(s, &pose, -nrm) {
                        let sep = (v - plane.point).dot(nrm);
                        if sep <= SPECULATIVE * size {
                            let id = ContactId {
                                a: FeatureId::Face(0),
                                b: f,
                            };
                            let p = ContactPoint {
                                point_a: v - nrm * sep,
                                point_b: v,
                                separation: sep,
                                id,
                            };
                            found.push(([k, 0], nrm, p));
                        }
                    }
                }
            }
            WallPieces::Shapes(pieces) => {
                for (wk, (ws, wpose, _, _)) in pieces.iter().enumerate() {
                    for (k, s) in self.pieces(i) {
                        let m = contact_manifold_with(ws, wpose, s, &pose, &manifold(size), None);
                        for p in m.points() {
                            found.push(([k, wk as u32], m.normal, *p));
                        }
                    }
                }
            }
        }
        for (pieces, nrm, p) in found {
            // Flip to the body's frame of reference: the body is `a`, the normal points from
            // it to the wall.
            let flipped = ContactPoint {
                point_a: p.point_b,
                point_b: p.point_a,
                separation: p.separation,
                id: p.id.swapped(),
            };
            let id = CollisionId {
                a: c.a,
                b: c.b,
                wall: true,
                pieces,
                features: flipped.id,
            };
            points.push(self.point(id, i, None, -nrm, &flipped, size, h));
        }
    }

    /// A contact point between body `a` and body `b` (or a wall), its normal from `a` to `b`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn point(
        &self,
        id: CollisionId,
        a: usize,
        b: Option<usize>,
        normal: V,
        c: &ContactPoint<V>,
        size: f64,
        h: f64,
    ) -> Point<V> {
        let ba = &self.bodies[a];
        // Both bodies push at one point, the middle of the two: an impulse along any direction
        // then has opposite torques about the origin on the two bodies, so momentum and
        // angular momentum are kept (pushing at each body's own point, a tangential impulse
        // across a gap would turn the pair).
        let mid = (c.point_a + c.point_b) * 0.5;
        let ra = mid - ba.position;
        let rb = b.map_or(V::ZERO, |b| mid - self.bodies[b].position);
        let local = ba.rotation.inverse_rotate(ra);
        let tangents = tangents(normal);
        let arm = |d: V| {
            let ja = V::cross_angular(ra, d);
            let ka = V::inertia_apply(ba.rotation, ba.inv_inertia, ja);
            let (jb, kb) = match b {
                Some(b) => {
                    let bb = &self.bodies[b];
                    let jb = V::cross_angular(rb, d);
                    (jb, V::inertia_apply(bb.rotation, bb.inv_inertia, jb))
                }
                None => (V::Angular::default(), V::Angular::default()),
            };
            Arm { ja, jb, ka, kb }
        };
        let arms = [arm(normal), arm(tangents[0]), arm(tangents[1])];
        let mass = |m: &Arm<V::Angular>| {
            let k = ba.inv_mass
                + b.map_or(0.0, |b| self.bodies[b].inv_mass)
                + V::angular_dot(m.ja, m.ka)
                + V::angular_dot(m.jb, m.kb);
            if k > 0.0 {
                1.0 / k
            } else {
                0.0
            }
        };
        let mass_t = [
            mass(&arms[1]),
            if V::DIM == 3 { mass(&arms[2]) } else { 0.0 },
        ];
        let sep = c.separation;
        let deep = (-sep - SLOP * size).max(0.0);
        // Speculative: a gap may close in this sub-step, no further.
        let mut bias = if sep > 0.0 { -sep / h } else { 0.0 };
        let mut push = 0.0;
        match self.options.correction {
            Correction::Baumgarte => bias += BAUMGARTE / h * deep,
            Correction::Split => push = BAUMGARTE / h * deep,
        }
        let closing = self.relative_velocity(a, b, ra, rb).dot(normal);
        Point {
            id,
            a,
            b,
            normal,
            ra,
            rb,
            world: mid,
            local,
            mass_n: mass(&arms[0]),
            arms,
            tangents,
            mass_t,
            bias,
            push,
            closing,
            friction: self.world.friction,
            pn: 0.0,
            pt: [0.0; 2],
            pp: 0.0,
        }
    }
}

/// The points of `shape` at `pose` a plane below it may touch: every vertex of a polytope
/// (named by its index), else the support point along `down`.
pub(super) fn shape_points<V: Vector>(
    shape: &Shape<V>,
    pose: &Pose<V>,
    down: V,
) -> Vec<(V, FeatureId)> {
    match as_polytope(shape) {
        Some(poly) => (0..poly.vertex_count())
            .map(|k| {
                (
                    pose.transform_point(poly.vertex(k)),
                    FeatureId::Vertex(k as u32),
                )
            })
            .collect(),
        None => vec![(shape.support(pose, down), FeatureId::None)],
    }
}

/// Unit tangents of the unit normal `n`: one in 2D (the second zero), two in 3D.
pub(super) fn tangents<V: Vector>(n: V) -> [V; 2] {
    // The axis least aligned with `n`, made orthogonal to it.
    let axis = (0..V::DIM)
        .min_by(|&x, &y| n.comp(x).abs().total_cmp(&n.comp(y).abs()))
        .unwrap_or(0);
    let e = V::unit(axis);
    let t1 = e - n * n.dot(e);
    let t1 = t1 * (1.0 / t1.length());
    if V::DIM == 2 {
        return [t1, V::ZERO];
    }
    // n × t1: unit, as both are unit and orthogonal.
    let (a, b) = (n.to_array3(), t1.to_array3());
    let t2 = V::from_array3([
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]);
    [t1, t2]
}
