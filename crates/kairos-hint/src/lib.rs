//! The `unsafe` the `kairos` library needs, kept out of it (it forbids unsafe code in itself)
//! behind safe functions: a cache hint, and a SIMD kernel.
//!
//! [`prefetch`] asks the processor to start loading the cache line of a value that will be read
//! soon, and [`prefetch_lines`] every cache line a value spans. Unlike an ordinary load, a
//! prefetch does not hold up the instructions after it until the data arrives, so a caller can
//! start many misses and go on working. It has no effect on what a program computes.
//!
//! [`screen::screen_keys`] is the first pass of the calendar's periodic screen, four pairs at a
//! time with AVX2 (runtime-detected), giving the scalar code's bits.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod screen;

/// The cache line size assumed (x86-64).
pub const LINE: usize = 64;

/// Starts loading the cache line holding the start of `value` into all cache levels; a no-op
/// off x86-64.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    prefetch_address((value as *const T).cast::<u8>());
}

/// Starts loading every cache line that holds a byte of `value` (for a value that may straddle
/// lines, whatever the order of its fields).
#[inline(always)]
pub fn prefetch_lines<T>(value: &T) {
    let start = (value as *const T).cast::<u8>();
    let (first, count) = lines(start as usize, core::mem::size_of::<T>());
    for k in 0..count {
        // The start of line k, as an offset from the value's start (negative for the first
        // line when the value starts inside it); a prefetch of any address is harmless.
        let offset = (first + k * LINE) as isize - start as isize;
        prefetch_address(start.wrapping_offset(offset));
    }
}

/// The first cache line (its address) and the number of lines that the `size` bytes at `addr`
/// span.
#[inline(always)]
pub fn lines(addr: usize, size: usize) -> (usize, usize) {
    let first = addr & !(LINE - 1);
    if size == 0 {
        return (first, 0);
    }
    let last = (addr + size - 1) & !(LINE - 1);
    (first, (last - first) / LINE + 1)
}

#[inline(always)]
fn prefetch_address(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` never faults, whatever the address, and never changes memory or
    // registers. SSE, which it needs, is part of every x86-64 processor.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::lines;

    #[test]
    fn the_lines_a_value_spans() {
        assert_eq!(lines(0, 72), (0, 2));
        assert_eq!(lines(56, 72), (0, 2)); // bytes 56..128
        assert_eq!(lines(64, 8), (64, 1));
        assert_eq!(lines(60, 8), (0, 2)); // straddles a line boundary
        assert_eq!(lines(130, 200), (128, 4)); // bytes 130..330: lines 128, 192, 256, 320
        assert_eq!(lines(100, 0), (64, 0));
        assert_eq!(lines(63, 1), (0, 1));
    }

    #[test]
    fn every_line_of_a_body_is_covered() {
        // A 72-byte value (a 3D body) at every 8-byte alignment within a line.
        for start in (0..64).step_by(8) {
            let (first, n) = lines(start, 72);
            let covered_end = first + n * super::LINE;
            assert!(first <= start && covered_end >= start + 72 && covered_end - 64 < start + 72);
        }
    }
}
