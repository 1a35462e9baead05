//! FNV-1a (64-bit): the checksum of traces and checkpoints, and the hash that determinism
//! tests compare. Not cryptographic: it detects damage, not tampering.

/// An FNV-1a hasher.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    /// Feeds bytes.
    #[inline]
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// The hash so far.
    pub fn value(&self) -> u64 {
        self.0
    }
    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> u64 {
        let mut h = Self::default();
        h.update(bytes);
        h.value()
    }
}

#[cfg(test)]
mod tests {
    use super::Fnv1a;

    #[test]
    fn known_values() {
        // Reference values of FNV-1a 64.
        assert_eq!(Fnv1a::of(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(Fnv1a::of(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(Fnv1a::of(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
