//! Checking a scene: ranges and dimensions, then its geometry at time 0: no body overlaps
//! another (rigid bodies by the exact convex queries, the bounding spheres a prefilter), crosses
//! a wall or lies outside a closed polygon of walls.

use super::{
    angular_speed, ball_parts, finite, invalid, pad3, table_spec, BodySpec, Item, RigidParts,
    Scene, SceneDim, SceneError, WallSpec, MAX_ENERGY, MIN_SIZE, OVERLAP_TOLERANCE,
};
use crate::math::{nearest_image, DVec2, DVec3, Vector};
use crate::num::Num;
use crate::query::{signed_distance, EpaOptions};
use crate::rigid::WallPieces;
use crate::shape::{Pose, Shape, SupportMap};
use crate::wall::Wall;

impl Scene {
    /// Checks every rule of the format: ranges, dimensions, and that no body overlaps another
    /// body, crosses a wall or lies outside a closed polygon of walls (2D).
    pub fn validate(&self) -> Result<(), SceneError> {
        if self.dim != 2 && self.dim != 3 {
            return Err(invalid(
                Item::Scene,
                format!("`dim` must be 2 or 3, got {}", self.dim),
            ));
        }
        if self.bodies.len() >= u32::MAX as usize || self.walls.len() >= u32::MAX as usize {
            return Err(invalid(Item::Scene, "too many bodies or walls"));
        }
        let check_vec = |v: &[f64], what: &str, item: Item| -> Result<(), SceneError> {
            if v.len() != self.dim {
                return Err(invalid(
                    item,
                    format!(
                        "`{what}` has {} components but the scene has dim = {}",
                        v.len(),
                        self.dim
                    ),
                ));
            }
            v.iter()
                .try_for_each(|x| finite(*x, what, item).map(|_| ()))
        };
        // Checked here too, not only when a file is parsed: scenes built from arrays (the Python
        // package) or by hand come through this gate alone.
        if !(self.duration > 0.0 && self.duration.is_finite()) {
            return Err(invalid(
                Item::Simulation,
                format!(
                    "`duration` must be positive and finite, got {}",
                    Num(self.duration)
                ),
            ));
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(invalid(
                Item::Simulation,
                format!(
                    "`restitution` must be in [0, 1], got {}",
                    Num(self.restitution)
                ),
            ));
        }
        if let Some(tc) = self.contact_duration {
            finite(tc, "contact_duration", Item::Simulation)?;
            if !(tc >= 0.0) {
                return Err(invalid(
                    Item::Simulation,
                    format!("`contact_duration` must be at least 0, got {}", Num(tc)),
                ));
            }
        }
        check_vec(&self.gravity[..self.dim], "gravity", Item::Simulation)?;
        if self.dim == 2 && self.gravity[2] != 0.0 {
            return Err(invalid(
                Item::Simulation,
                "`gravity` has 3 components in 2D",
            ));
        }
        if self.has_gravity() && self.periodic.is_some() {
            return Err(invalid(
                Item::Simulation,
                "`gravity` needs walls to land on: a periodic box has none (remove one of \
                 `gravity` and `[boundary] periodic`)",
            ));
        }
        if let Some(v) = self.rest_speed {
            finite(v, "rest_speed", Item::Simulation)?;
            if !(v >= 0.0) {
                return Err(invalid(
                    Item::Simulation,
                    format!("`rest_speed` must be at least 0, got {}", Num(v)),
                ));
            }
            if !self.has_gravity() {
                return Err(invalid(
                    Item::Simulation,
                    "`rest_speed` only applies under `gravity`, which this scene does not set",
                ));
            }
        }
        finite(self.friction, "friction", Item::Simulation)?;
        if !(self.friction >= 0.0) {
            return Err(invalid(
                Item::Simulation,
                format!("`friction` must be at least 0, got {}", Num(self.friction)),
            ));
        }
        if self.friction > 0.0 && !self.has_rigid_bodies() {
            return Err(invalid(
                Item::Simulation,
                if self.bodies.is_empty() {
                    "`friction` acts between rigid bodies (bodies with a `shape`), and this scene \
                     has no bodies: add `[[bodies]]` with a `shape`, or remove `friction`"
                } else {
                    "`friction` acts between rigid bodies (bodies with a `shape`), and every \
                     body here is a plain ball: give the balls that should roll \
                     `shape = \"ball\"`, or remove `friction`"
                },
            ));
        }
        for (i, w) in self.walls.iter().enumerate() {
            let item = Item::Wall(i);
            match w {
                WallSpec::Segment { a, b } => {
                    check_vec(a, "a", item)?;
                    check_vec(b, "b", item)?;
                }
                WallSpec::Plane { point, normal } => {
                    check_vec(point, "point", item)?;
                    check_vec(normal, "normal", item)?;
                }
                WallSpec::Polygon { vertices } => {
                    for v in vertices {
                        check_vec(v, "polygon", item)?;
                    }
                }
                WallSpec::Box { min, max } => {
                    check_vec(min, "min", item)?;
                    check_vec(max, "max", item)?;
                }
                WallSpec::Shape { .. } => {}
            }
            let built = if self.dim == 2 {
                w.build::<glam::DVec2>().map(|_| ())
            } else {
                w.build::<glam::DVec3>().map(|_| ())
            };
            built.map_err(|e| invalid(item, e))?;
        }
        for (i, b) in self.bodies.iter().enumerate() {
            body_values(self.dim, b, self.is_rigid(i), Item::Body(i))?;
        }
        self.check_energy_reach()?;
        if !self.shapes.is_empty() {
            if self.shapes.len() != self.bodies.len() {
                return Err(invalid(
                    Item::Scene,
                    format!(
                        "{} rigid-body tables for {} bodies (one per body, or none)",
                        self.shapes.len(),
                        self.bodies.len()
                    ),
                ));
            }
            for (i, table) in self.shapes.iter().enumerate() {
                let item = Item::Body(i);
                let Some(table) = table else {
                    // A ball without `shape` is a rigid ball of its radius and mass.
                    let b = &self.bodies[i];
                    let checked = if self.dim == 2 {
                        ball_parts::<DVec2>(b).map(|_| ())
                    } else {
                        ball_parts::<DVec3>(b).map(|_| ())
                    };
                    checked.map_err(|e| invalid(item, e))?;
                    continue;
                };
                if self.periodic.is_some() {
                    return Err(invalid(
                        item,
                        "rigid bodies (`shape = ...`) are not supported in a periodic box yet: \
                         use walls, or balls without `shape`",
                    ));
                }
                let spec =
                    table_spec(self.dim, table, &self.meshes).map_err(|e| invalid(item, e))?;
                let spin = angular_speed(table);
                if spin * self.duration > crate::rigid::MAX_TURN {
                    return Err(invalid(
                        item,
                        format!(
                            "`angular_velocity` of magnitude {spin:e} turns the body by {:e} \
                             radians over the duration {:e}: at most {:e} radians are resolved \
                             (the rotation's round-off must stay below the contact shell); \
                             lower the spin or the duration",
                            spin * self.duration,
                            self.duration,
                            crate::rigid::MAX_TURN
                        ),
                    ));
                }
                if spec != self.bodies[i] {
                    return Err(invalid(
                        item,
                        "its position, velocity, radius or mass differ from those its table \
                         gives (a rigid body's BodySpec comes from `scene::rigid_body_spec`)",
                    ));
                }
            }
        }
        if self.shapes.is_empty() && self.has_shape_walls() {
            // The world is rigid: every ball becomes a rigid ball of its radius and mass.
            for (i, b) in self.bodies.iter().enumerate() {
                let checked = if self.dim == 2 {
                    ball_parts::<DVec2>(b).map(|_| ())
                } else {
                    ball_parts::<DVec3>(b).map(|_| ())
                };
                checked.map_err(|e| invalid(Item::Body(i), e))?;
            }
        }
        if let Some(l) = &self.periodic {
            check_vec(l, "periodic", Item::Boundary)?;
            if !self.walls.is_empty() {
                return Err(invalid(
                    Item::Boundary,
                    "walls cannot be combined with a periodic boundary",
                ));
            }
            let r_max = self.bodies.iter().map(|b| b.radius).fold(0.0, f64::max);
            for &x in l {
                if !(x > 0.0) {
                    return Err(invalid(
                        Item::Boundary,
                        format!("box lengths must be positive, got {}", Num(x)),
                    ));
                }
                if !(x > 4.0 * r_max) {
                    return Err(invalid(
                        Item::Boundary,
                        format!(
                            "box length {x} is too small: it must exceed twice the largest contact distance ({})",
                            4.0 * r_max
                        ),
                    ));
                }
            }
        }
        if self.dim == 2 {
            self.check_geometry::<DVec2>()
        } else {
            self.check_geometry::<DVec3>()
        }
    }

    /// Refuses a scene under gravity whose energies may leave the floats over its duration: a
    /// free body speeds up to `|v| + |g| T` and falls by up to `|v| T + |g| T^2 / 2`, and
    /// the run's energy (kinetic plus the potential of gravity, summed over the bodies) must
    /// stay finite, or its drift is NaN. Every number is at most
    /// [`crate::scene::MAX_MAGNITUDE`], so only an
    /// enormous `duration` gets here. The bound is that of an open scene (walls keep bodies
    /// slower), so it refuses scenes only beyond [`MAX_ENERGY`].
    fn check_energy_reach(&self) -> Result<(), SceneError> {
        let g = self.gravity[..self.dim]
            .iter()
            .map(|x| x * x)
            .sum::<f64>()
            .sqrt();
        if !(g > 0.0) {
            // Without gravity no speed grows: every energy is at most the largest mass times
            // the largest speed squared, and their sum stays finite.
            return Ok(());
        }
        let t = self.duration;
        let reach = |b: &BodySpec| {
            let norm = |v: &[f64; 3]| v[..self.dim].iter().map(|x| x * x).sum::<f64>().sqrt();
            let speed = norm(&b.velocity) + g * t;
            let height = norm(&b.position) + norm(&b.velocity) * t + 0.5 * g * t * t;
            (speed, 0.5 * b.mass * speed * speed + b.mass * g * height)
        };
        let total: f64 = self.bodies.iter().map(|b| reach(b).1).sum();
        if total <= MAX_ENERGY {
            return Ok(());
        }
        let (i, (speed, energy)) = self
            .bodies
            .iter()
            .map(reach)
            .enumerate()
            .max_by(|x, y| x.1 .1.total_cmp(&y.1 .1))
            .expect("a total above the limit has bodies");
        Err(invalid(
            Item::Body(i),
            format!(
                "over the duration {t:e} its speed may reach {speed:e} under gravity and its \
                 energy {}, and the scene's energies are held to {MAX_ENERGY:e} (their sum and \
                 drift must stay finite floats): shorten `duration` or lower `gravity`",
                if energy.is_finite() {
                    format!("{energy:e}")
                } else {
                    "beyond the floats".to_string()
                }
            ),
        ))
    }

    /// Every body's parts at time 0 (balls without `shape` as balls: their shape and the pose
    /// of their centre), for the exact overlap checks of a scene with rigid bodies: each
    /// rigid body's as its table keeps them.
    fn shapes_at_start<V: SceneDim>(
        &self,
    ) -> Result<Vec<std::sync::Arc<RigidParts<V>>>, SceneError> {
        (0..self.bodies.len())
            .map(|i| self.parts_of::<V>(i).map_err(|e| invalid(Item::Body(i), e)))
            .collect()
    }

    fn check_geometry<V: SceneDim>(&self) -> Result<(), SceneError> {
        let period = self.periodic.as_deref().map(pad3);
        let shapes = if self.has_rigid_bodies() {
            self.shapes_at_start::<V>()?
        } else {
            Vec::new()
        };
        // How far the shapes of bodies i and j overlap (the negative of their signed distance;
        // the deepest pair of pieces of a compound body).
        let depth = |i: usize, j: usize| {
            let ((a, pa), (b, pb)) = (
                (&shapes[i].pieces, &shapes[i].pose),
                (&shapes[j].pieces, &shapes[j].pose),
            );
            a.iter()
                .flat_map(|a| b.iter().map(move |b| (a, b)))
                .map(|(a, b)| -signed_distance(a, pa, b, pb, &EpaOptions::default()))
                .fold(f64::NEG_INFINITY, f64::max)
        };
        // A mesh's solid holding the other body's centre of mass (a body wholly inside it
        // crosses none of its triangles).
        let inside = |i: usize, j: usize| {
            shapes
                .get(i)
                .and_then(|s| s.mesh.as_ref())
                .is_some_and(|(m, _)| {
                    let centre = V::from_array3(self.bodies[j].position);
                    let local = shapes[i].pose.inverse_transform_point(centre);
                    crate::ccd::solid::contains(m, local.to_array3())
                })
        };
        // Bounding spheres that overlap are only a prefilter for rigid bodies: the shapes
        // decide.
        let overlaps = |i: usize, j: usize, sigma: f64| {
            !(self.is_rigid(i) || self.is_rigid(j))
                || depth(i, j) > OVERLAP_TOLERANCE * sigma
                || inside(i, j)
                || inside(j, i)
        };
        if let Some((i, j, dist, sigma)) = find_overlap(&self.bodies, self.dim, period, overlaps) {
            let message = if inside(i, j) || inside(j, i) {
                let (outer, inner) = if inside(i, j) { (i, j) } else { (j, i) };
                format!(
                    "overlaps body {j}: body {inner} lies inside the mesh of body {outer} at t = 0"
                )
            } else if self.is_rigid(i) || self.is_rigid(j) {
                format!(
                    "overlaps body {j}: their shapes intersect at t = 0 (by a depth of {})",
                    Num(depth(i, j))
                )
            } else {
                format!(
                    "overlaps body {j} (centre distance {}, radii sum {})",
                    Num(dist),
                    Num(sigma)
                )
            };
            return Err(invalid(Item::Body(i), message));
        }
        // Which scene item each runtime wall comes from (a box stands for several walls).
        let owner: Vec<usize> = self
            .walls
            .iter()
            .enumerate()
            .flat_map(|(i, w)| std::iter::repeat_n(i, w.wall_count(self.dim)))
            .collect();
        // The walls alone are built: no world (a second copy of every body) is made.
        let walls: Vec<Wall<V>> = self.built_walls()?;
        let pieces: Vec<WallPieces<V>> = if shapes.is_empty() {
            Vec::new()
        } else {
            walls.iter().map(WallPieces::of).collect()
        };
        for (i, b) in self.bodies.iter().enumerate() {
            let pos = V::from_array3(b.position);
            for (w, wall) in walls.iter().enumerate() {
                let dist = wall.distance(pos);
                let id = || {
                    if owner[w] == w {
                        format!("wall {w}")
                    } else {
                        format!("wall {w} (of item {})", owner[w])
                    }
                };
                if self.is_rigid(i) || matches!(wall, Wall::Shape(_)) {
                    // The bounding sphere is a prefilter; the shape decides.
                    if dist >= b.radius {
                        continue;
                    }
                    let (own, pose) = (&shapes[i].pieces, &shapes[i].pose);
                    let depth = own
                        .iter()
                        .map(|shape| wall_depth(shape, pose, &pieces[w], pos))
                        .fold(f64::NEG_INFINITY, f64::max);
                    if depth > OVERLAP_TOLERANCE * b.radius {
                        return Err(invalid(
                            Item::Body(i),
                            format!(
                                "crosses {}: its shape reaches {depth} into it at t = 0",
                                id()
                            ),
                        ));
                    }
                    continue;
                }
                if b.radius - dist > OVERLAP_TOLERANCE * b.radius {
                    let id = id();
                    return Err(invalid(
                        Item::Body(i),
                        format!(
                            "crosses {id} (centre at distance {} from it, radius {})",
                            Num(dist),
                            Num(b.radius)
                        ),
                    ));
                }
            }
            for (k, spec) in self.walls.iter().enumerate() {
                let p = &self.bodies[i].position;
                if let (WallSpec::Box { min, max }, true) = (spec, self.is_rigid(i)) {
                    // A box room is the intersection of half-spaces across the axes, so a shape
                    // lies in it exactly when its extreme points along the axes do: exact at any
                    // size, where the depth against each wall piece above loses its digits to a
                    // shape far larger than the piece.
                    let (own, pose) = (&shapes[i].pieces, &shapes[i].pose);
                    let tol = OVERLAP_TOLERANCE * b.radius;
                    for a in 0..self.dim {
                        let e = V::unit(a);
                        let hi = own
                            .iter()
                            .map(|s| s.support(pose, e).comp(a))
                            .fold(f64::NEG_INFINITY, f64::max);
                        let lo = own
                            .iter()
                            .map(|s| s.support(pose, -e).comp(a))
                            .fold(f64::INFINITY, f64::min);
                        if !(hi - max[a] <= tol && min[a] - lo <= tol) {
                            return Err(invalid(
                                Item::Body(i),
                                format!(
                                    "does not fit in the box of wall item {k}: its shape spans {} to {} along axis {a}, the box {} to {}",
                                    Num(lo), Num(hi), Num(min[a]), Num(max[a])
                                ),
                            ));
                        }
                    }
                }
                let outside = match spec {
                    WallSpec::Plane { point, normal } => {
                        (0..self.dim)
                            .map(|a| (p[a] - point[a]) * normal[a])
                            .sum::<f64>()
                            < 0.0
                    }
                    WallSpec::Box { min, max } => {
                        (0..self.dim).any(|a| p[a] < min[a] || p[a] > max[a])
                    }
                    _ => false,
                };
                if outside {
                    return Err(invalid(
                        Item::Body(i),
                        format!("lies outside the walls (the wrong side of wall item {k})"),
                    ));
                }
            }
        }
        if V::DIM == 2 && self.walls_closed() {
            for (i, b) in self.bodies.iter().enumerate() {
                if !self.inside_walls(b.position[0], b.position[1]) {
                    return Err(invalid(Item::Body(i), "lies outside the walls"));
                }
            }
        }
        Ok(())
    }

    /// True when the walls form closed polygons: every endpoint is shared by an even number of
    /// wall ends. Only then does "inside" mean something.
    fn walls_closed(&self) -> bool {
        // Static shapes are solids of their own: they close nothing and open nothing.
        let segments: Option<Vec<(&Vec<f64>, &Vec<f64>)>> = self
            .walls
            .iter()
            .filter(|w| !matches!(w, WallSpec::Shape { .. }))
            .map(|w| match w {
                WallSpec::Segment { a, b } => Some((a, b)),
                _ => None,
            })
            .collect();
        let Some(segments) = segments.filter(|s| !s.is_empty()) else {
            return false;
        };
        let mut ends: Vec<[u64; 2]> = segments
            .iter()
            .flat_map(|(a, b)| [*a, *b])
            .map(|p| [p[0].to_bits(), p[1].to_bits()])
            .collect();
        ends.sort_unstable();
        ends.chunk_by(|x, y| x == y).all(|run| run.len() % 2 == 0)
    }

    /// Even-odd rule against the wall segments (2D).
    fn inside_walls(&self, x: f64, y: f64) -> bool {
        let mut inside = false;
        for w in &self.walls {
            let WallSpec::Segment { a, b } = w else {
                continue;
            };
            let (ax, ay, bx, by) = (a[0], a[1], b[0], b[1]);
            if (ay > y) != (by > y) {
                let xi = ax + (y - ay) / (by - ay) * (bx - ax);
                if xi > x {
                    inside = !inside;
                }
            }
        }
        inside
    }
}

/// The first overlapping pair (lower id first) with its centre distance and contact distance,
/// found with a uniform grid of cells one largest diameter wide (`O(n)` for bounded density);
/// minimum-image distances in a periodic box of lengths `period`. Works on the scene's bodies
/// directly, with `O(n)` extra memory of 12 bytes a body (a cell index and a link): a scene is
/// validated before any world exists, so the calendar's grid is not there to ask, and the
/// discrete finders' [`crate::overlap::Grid`] would hold a box (48 bytes in 3D) and about three
/// cell entries of 64 bytes for each body, several hundred megabytes at load for a million.
///
/// `overlaps(i, j, sigma)` decides a pair whose spheres overlap (true for balls; the shapes'
/// exact test for rigid bodies, whose spheres bound them).
fn find_overlap(
    bodies: &[BodySpec],
    dim: usize,
    period: Option<[f64; 3]>,
    overlaps: impl Fn(usize, usize, f64) -> bool,
) -> Option<(usize, usize, f64, f64)> {
    let n = bodies.len();
    if n < 2 {
        return None;
    }
    let r_max = bodies.iter().map(|b| b.radius).fold(0.0, f64::max);
    // Coordinates inside the box when periodic.
    let coord = |b: &BodySpec, a: usize| match period {
        Some(l) => b.position[a] - l[a] * (b.position[a] / l[a]).floor(),
        None => b.position[a],
    };
    let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
    match period {
        Some(l) => hi[..dim].copy_from_slice(&l[..dim]),
        None => {
            lo = [f64::INFINITY; 3];
            hi = [f64::NEG_INFINITY; 3];
            for b in bodies {
                for a in 0..dim {
                    lo[a] = lo[a].min(b.position[a]);
                    hi[a] = hi[a].max(b.position[a]);
                }
            }
        }
    }
    // Cells at least one largest diameter wide, at most about 2n of them.
    let mut width = 2.0 * r_max;
    let volume: f64 = (0..dim).map(|a| (hi[a] - lo[a]).max(width)).product();
    width = width.max((volume / (2.0 * n as f64)).powf(1.0 / dim as f64));
    let mut dims = [1usize; 3];
    for a in 0..dim {
        dims[a] = (((hi[a] - lo[a]) / width).floor() as usize).clamp(1, 1 << 20);
    }
    let cell_of = |b: &BodySpec| -> [usize; 3] {
        let mut c = [0usize; 3];
        for (a, slot) in c.iter_mut().enumerate().take(dim) {
            *slot = (((coord(b, a) - lo[a]) / width).floor().max(0.0) as usize).min(dims[a] - 1);
        }
        c
    };
    let index = |c: [usize; 3]| ((c[2] * dims[1] + c[1]) * dims[0] + c[0]) as u32;
    // Bodies sorted by cell (a counting sort): `start[k]..start[k + 1]` are cell k's.
    let cells = dims.iter().product::<usize>();
    let mut start = vec![0u32; cells + 1];
    let cell: Vec<u32> = bodies.iter().map(|b| index(cell_of(b))).collect();
    for &k in &cell {
        start[k as usize + 1] += 1;
    }
    for k in 0..cells {
        start[k + 1] += start[k];
    }
    let mut order = vec![0u32; n];
    {
        let mut fill = start.clone();
        for (i, &k) in cell.iter().enumerate() {
            order[fill[k as usize] as usize] = i as u32;
            fill[k as usize] += 1;
        }
    }
    drop(cell);
    let mut found: Option<(usize, usize, f64, f64)> = None;
    for (i, bi) in bodies.iter().enumerate() {
        let c = cell_of(bi);
        let mut ranges = [[0usize; 3]; 3];
        let mut counts = [1usize; 3];
        for a in 0..dim {
            let mut list = Vec::with_capacity(3);
            for delta in [-1i64, 0, 1] {
                let x = c[a] as i64 + delta;
                let x = if period.is_some() {
                    x.rem_euclid(dims[a] as i64)
                } else if x < 0 || x >= dims[a] as i64 {
                    continue;
                } else {
                    x
                } as usize;
                if !list.contains(&x) {
                    list.push(x);
                }
            }
            counts[a] = list.len();
            ranges[a][..list.len()].copy_from_slice(&list);
        }
        for z in 0..counts[2] {
            for y in 0..counts[1] {
                for x in 0..counts[0] {
                    let k = index([ranges[0][x], ranges[1][y], ranges[2][z]]) as usize;
                    for &j in &order[start[k] as usize..start[k + 1] as usize] {
                        let j = j as usize;
                        if j <= i {
                            continue;
                        }
                        let bj = &bodies[j];
                        let mut d2 = 0.0;
                        let mut ds = [0.0; 3];
                        for a in 0..dim {
                            let mut d = bi.position[a] - bj.position[a];
                            if let Some(l) = period {
                                d = nearest_image(d, l[a]);
                            }
                            ds[a] = d;
                            d2 += d * d;
                        }
                        let sigma = bi.radius + bj.radius;
                        // Squares of distances below 1e-154 underflow: those are scaled first.
                        let dist = if d2 > 1e-290 {
                            d2.sqrt()
                        } else {
                            let big = ds.iter().fold(0.0f64, |m, d| m.max(d.abs()));
                            if big > 0.0 {
                                big * ds.iter().map(|d| (d / big) * (d / big)).sum::<f64>().sqrt()
                            } else {
                                0.0
                            }
                        };
                        if sigma - dist > OVERLAP_TOLERANCE * sigma
                            && found.is_none_or(|(fi, fj, _, _)| (i, j) < (fi, fj))
                            && overlaps(i, j, sigma)
                        {
                            found = Some((i, j, dist, sigma));
                        }
                    }
                }
            }
        }
        if found.is_some_and(|(fi, _, _, _)| fi <= i) {
            break;
        }
    }
    found
}

/// How far `shape` at `pose` (a body whose centre of mass is at `centre`) reaches into a wall
/// (negative when apart): against a plane, its support point's depth on the far side from the
/// centre of mass; against segments and polygons (their triangles), the exact penetration
/// depth.
fn wall_depth<V: Vector>(shape: &Shape<V>, pose: &Pose<V>, wall: &WallPieces<V>, centre: V) -> f64 {
    match wall {
        WallPieces::Plane(plane) => {
            let side = if plane.signed_distance(centre) >= 0.0 {
                1.0
            } else {
                -1.0
            };
            let deepest = shape.support(pose, plane.normal * -side);
            -side * plane.signed_distance(deepest)
        }
        WallPieces::Shapes(pieces) => pieces
            .iter()
            .map(|(piece, place, _, _)| {
                -signed_distance(shape, pose, piece, place, &EpaOptions::default())
            })
            .fold(f64::NEG_INFINITY, f64::max),
    }
}

/// The rules of one body's own values (finite, within range, positive radius and mass, z = 0
/// in 2D), shared by the scene's check and the reader of a `bodies_file` (which adds the file
/// and line to the message). `rigid`: the radius is a shape's bounding radius.
pub(super) fn body_values(
    dim: usize,
    b: &BodySpec,
    rigid: bool,
    item: Item,
) -> Result<(), SceneError> {
    for (v, what) in [(&b.position, "position"), (&b.velocity, "velocity")] {
        v[..dim]
            .iter()
            .try_for_each(|x| finite(*x, what, item).map(|_| ()))?;
    }
    if dim == 2 && (b.position[2] != 0.0 || b.velocity[2] != 0.0) {
        return Err(invalid(item, "a body of a 2D scene must have z = 0"));
    }
    finite(b.radius, "radius", item)?;
    finite(b.mass, "mass", item)?;
    if !(b.radius > 0.0) {
        return Err(invalid(
            item,
            format!("`radius` must be positive, got {}", Num(b.radius)),
        ));
    }
    if b.radius < MIN_SIZE {
        let what = if rigid {
            "its shape's size (bounding radius)"
        } else {
            "`radius`"
        };
        return Err(invalid(
            item,
            format!(
                "{what} is too small ({}; at least {MIN_SIZE:e}: the squared distances \
                 of smaller bodies underflow)",
                Num(b.radius)
            ),
        ));
    }
    if !(b.mass > 0.0) {
        return Err(invalid(
            item,
            format!("`mass` must be positive, got {}", Num(b.mass)),
        ));
    }
    Ok(())
}
