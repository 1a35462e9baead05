//! A cache hint for the `kairos` library, which forbids unsafe code in itself.
//!
//! [`prefetch`] asks the processor to start loading the cache line of a value that will be read
//! soon. Unlike an ordinary load, it does not hold up the instructions after it until the data
//! arrives, so a caller can start many misses and go on working. It has no effect on what a
//! program computes.

#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

/// Starts loading the cache line holding the start of `value` into all cache levels; a no-op
/// off x86-64.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` never faults and never changes memory or registers; it is given the
    // address of a live reference. SSE, which it needs, is part of every x86-64 processor.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    #[test]
    fn prefetch_changes_nothing() {
        let v = [1u64, 2, 3];
        super::prefetch(&v[1]);
        assert_eq!(v, [1, 2, 3]);
    }
}
