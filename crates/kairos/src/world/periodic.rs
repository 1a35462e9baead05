//! The periodic box: wrapping positions into it, unwrapped positions, the nearest image's
//! separation, and the box crossing events.

use super::World;
use crate::ball_toi::box_exit;
use crate::body::BodyId;
use crate::event::{Event, EventKind};
use crate::math::{nearest_image, Vector};

impl<V: Vector> World<V> {
    /// Makes the boundary periodic with box lengths `period`: positions are wrapped into
    /// `[0, L)` and the wraps remembered, so unwrapped positions are unchanged.
    pub(super) fn wrap_into(&mut self, period: V) {
        self.images = vec![[0; 3]; self.bodies.len()];
        for (b, img) in self.bodies.iter_mut().zip(&mut self.images) {
            let mut p = b.pos.to_array3();
            for axis in 0..V::DIM {
                let l = period.comp(axis);
                let k = (p[axis] / l).floor();
                p[axis] -= k * l;
                if p[axis] >= l {
                    p[axis] = 0.0;
                }
                img[axis] = k as i64;
            }
            b.pos = V::from_array3(p);
        }
        self.period = Some(period);
    }

    /// Position of body `i` at its local time, unwrapped (continuous across box crossings).
    #[inline]
    pub fn unwrapped_position(&self, i: BodyId) -> V {
        let b = &self.bodies[i as usize];
        match self.period {
            None => b.pos,
            Some(l) => {
                let img = self.images[i as usize];
                let mut p = b.pos;
                for (axis, &k) in img.iter().enumerate().take(V::DIM) {
                    p += V::unit(axis) * (k as f64 * l.comp(axis));
                }
                p
            }
        }
    }

    /// `a - b`, through the nearest periodic image when the boundary is periodic. Two touching
    /// balls are always nearest images of each other (box lengths exceed twice any contact
    /// distance), so this is the contact's centre line.
    #[inline]
    pub fn separation(&self, a: V, b: V) -> V {
        let d = a - b;
        match self.period {
            None => d,
            Some(l) => {
                let mut arr = d.to_array3();
                for (axis, x) in arr.iter_mut().enumerate().take(V::DIM) {
                    *x = nearest_image(*x, l.comp(axis));
                }
                V::from_array3(arr)
            }
        }
    }

    /// The box crossing of body `i`, if the boundary is periodic and the body moves.
    #[inline]
    pub fn box_event(&self, i: BodyId) -> Option<Event> {
        let l = self.period?;
        let (t, face) = box_exit(&self.bodies[i as usize], l);
        t.is_finite().then_some(Event {
            time: t,
            kind: EventKind::BoxCrossing,
            a: i,
            b: face,
        })
    }
}
