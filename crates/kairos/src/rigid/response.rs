//! The impulse response at a contact: each [`Side`]'s velocities and masses, the normal
//! impulses with their angular terms over the contact sets, and Coulomb friction (see the
//! [module docs](crate::rigid#response)).

use super::contact::ContactSet;
use super::MAX_IMPULSES;
use crate::math::Vector;

/// The velocities of one side of a contact: linear, angular, centre, inverse mass and inverse
/// inertia (world application through the rotation); a wall has an infinite mass.
#[derive(Clone, Copy, Debug)]
pub struct Side<V: Vector> {
    /// Velocity of the centre of mass.
    pub vel: V,
    /// Angular velocity, world frame.
    pub omega: V::Angular,
    /// The centre of mass.
    pub centre: V,
    /// Inverse mass (0 for a wall).
    pub inv_mass: f64,
    /// The rotation (for the inertia in the world frame).
    pub rotation: V::Rotation,
    /// Inverse inertia, body axes (ignored when `inv_mass` is 0).
    pub inv_inertia: V::Inertia,
}

impl<V: Vector> Side<V> {
    fn point_velocity(&self, p: V) -> V {
        self.vel + V::angular_cross(self.omega, p - self.centre)
    }
    /// `(I⁻¹ (r × n)) · (r × n)`, the angular part of the effective inverse mass at `p`.
    fn angular_term(&self, p: V, n: V) -> f64 {
        if self.inv_mass == 0.0 {
            return 0.0;
        }
        let rn = V::cross_angular(p - self.centre, n);
        V::angular_dot(V::inertia_apply(self.rotation, self.inv_inertia, rn), rn)
    }
    /// Applies the impulse `j` at `p` (on this side).
    fn apply(&mut self, p: V, j: V) {
        if self.inv_mass == 0.0 {
            return;
        }
        self.vel += j * self.inv_mass;
        let dl = V::cross_angular(p - self.centre, j);
        self.omega = V::angular_add_scaled(
            self.omega,
            V::inertia_apply(self.rotation, self.inv_inertia, dl),
            1.0,
        );
    }
}

/// Applies the collision impulses of `contacts` (one set for two convex bodies; a compound
/// body may touch at several places, each set with its normal) between `a` and `b` with
/// restitution `e` and Coulomb friction coefficient `friction` (see the
/// [module docs](crate::rigid#response)); returns the total impulse on `a` (zero when none was
/// applied). Each impulse goes to the set whose chosen point approaches fastest.
pub fn respond<V: Vector>(
    a: &mut Side<V>,
    b: &mut Side<V>,
    contacts: &[ContactSet<V>],
    e: f64,
    friction: f64,
) -> V {
    let mut total = V::ZERO;
    let approach =
        |a: &Side<V>, b: &Side<V>, p: V, n: V| n.dot(a.point_velocity(p) - b.point_velocity(p));
    for _ in 0..MAX_IMPULSES {
        // The set, the approach speed and the point of the next impulse.
        let mut next: Option<(V, f64, V)> = None;
        for contact in contacts {
            let n = contact.normal;
            if n == V::ZERO || contact.points.is_empty() {
                continue;
            }
            let mut weight = 0.0;
            let mut centroid = V::ZERO;
            let mut worst = (0.0, V::ZERO);
            for &p in &contact.points {
                let u = approach(a, b, p, n);
                if u > 0.0 {
                    weight += u;
                    centroid += p * u;
                    if u > worst.0 {
                        worst = (u, p);
                    }
                }
            }
            if !(weight > 0.0) {
                continue;
            }
            let c = centroid * (1.0 / weight);
            let (u, p) = match approach(a, b, c, n) {
                u if u > 0.0 => (u, c),
                _ => worst,
            };
            if next.is_none_or(|(_, best, _)| u > best) {
                next = Some((n, u, p));
            }
        }
        let Some((n, u, p)) = next else {
            break;
        };
        let k = a.inv_mass + b.inv_mass + a.angular_term(p, n) + b.angular_term(p, n);
        if !(k > 0.0 && k.is_finite()) {
            break;
        }
        let jn = (1.0 + e) * u / k;
        let j = n * jn;
        a.apply(p, -j);
        b.apply(p, j);
        total -= j;
        if friction > 0.0 {
            total -= friction_impulse(a, b, p, n, friction * jn);
        }
    }
    total
}

/// The friction impulse at `p` after a normal impulse of size `jn_max / μ` (see the
/// [module docs](crate::rigid#friction)): the impulse along the tangential slip that stops it
/// (sticking), or of size `jn_max = μ j_n` against it when that is not enough (sliding).
/// Applied to both sides; returns the impulse on `b` (the one on `a` is its opposite).
fn friction_impulse<V: Vector>(a: &mut Side<V>, b: &mut Side<V>, p: V, n: V, jn_max: f64) -> V {
    let slip = a.point_velocity(p) - b.point_velocity(p);
    let tangential = slip - n * n.dot(slip);
    let speed = tangential.length();
    if !(speed > 0.0 && speed.is_finite() && jn_max > 0.0) {
        return V::ZERO;
    }
    let t = tangential * (1.0 / speed);
    let k = a.inv_mass + b.inv_mass + a.angular_term(p, t) + b.angular_term(p, t);
    if !(k > 0.0 && k.is_finite()) {
        return V::ZERO;
    }
    let jt = t * (speed / k).min(jn_max);
    a.apply(p, -jt);
    b.apply(p, jt);
    jt
}
