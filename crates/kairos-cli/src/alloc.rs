//! The program's allocator: the system's, asking Linux to back large blocks with 2 MiB pages.
//!
//! An event-driven run reads bodies' states, cell lists and calendar entries at random places,
//! one or two per candidate. At a million bodies those arrays span hundreds of MiB, and with
//! 4 KiB pages nearly every such read misses the TLB as well as the cache. Transparent huge
//! pages (in the `madvise` mode most distributions default to) back a region with 2 MiB pages
//! when it is advised before its first touch, which a fresh large block is. The advice changes
//! how the kernel maps the memory, never its contents, and is best effort: where it is refused
//! or the system is not Linux, the memory is simply the system's.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks at least this large are advised.
const ADVISE_FROM: usize = 4 << 20;
const HUGE_PAGE: usize = 2 << 20;

pub struct HugePageAlloc;

impl HugePageAlloc {
    /// Advises the whole huge pages inside the block `[ptr, ptr + size)`.
    #[inline]
    fn advise(ptr: *mut u8, size: usize) {
        #[cfg(target_os = "linux")]
        if size >= ADVISE_FROM && !ptr.is_null() {
            let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
            let end = (ptr as usize + size) / HUGE_PAGE * HUGE_PAGE;
            if end > start {
                // SAFETY: `[start, end)` lies inside a block this allocator just handed out, so
                // it is mapped and ours; MADV_HUGEPAGE leaves its contents as they are.
                unsafe {
                    libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (ptr, size);
    }
}

// SAFETY: every call is passed to `System` unchanged; `advise` only adds a hint on the result.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        Self::advise(p, layout.size());
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        Self::advise(p, layout.size());
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        Self::advise(p, new_size);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The allocator hands out working memory (zeroed when asked, kept by `realloc`), and on
    /// Linux with transparent huge pages available a large block is backed by huge pages once
    /// touched: the advice is what the allocator is for.
    #[test]
    fn large_blocks_work_and_get_huge_pages() {
        let size = 64 << 20;
        let layout = Layout::from_size_align(size, 16).unwrap();
        // SAFETY: a non-zero layout; the block is written within its size, then freed with the
        // layout it was reallocated to.
        unsafe {
            let p = HugePageAlloc.alloc_zeroed(layout);
            assert!(!p.is_null());
            let block = std::slice::from_raw_parts_mut(p, size);
            // Written before any read: a read would map the shared zero page in small pages.
            for (k, b) in block.iter_mut().enumerate().step_by(4096) {
                *b = (k / 4096) as u8;
            }
            assert!(block.iter().skip(1).step_by(4096).all(|&b| b == 0));
            #[cfg(target_os = "linux")]
            if thp_available() {
                let huge = anon_huge_kib(p as usize, size);
                assert!(huge >= 2048, "no huge page backs the block ({huge} KiB)");
            }
            let q = HugePageAlloc.realloc(p, layout, 2 * size);
            assert!(!q.is_null());
            let block = std::slice::from_raw_parts(q, size);
            for (k, &b) in block.iter().enumerate().step_by(4096) {
                assert_eq!(b, (k / 4096) as u8);
            }
            HugePageAlloc.dealloc(q, Layout::from_size_align(2 * size, 16).unwrap());
        }
    }

    /// Transparent huge pages can be had by advice (`always` or `madvise` mode).
    #[cfg(target_os = "linux")]
    fn thp_available() -> bool {
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .is_ok_and(|s| s.contains("[always]") || s.contains("[madvise]"))
    }

    /// `AnonHugePages` of the mappings overlapping `[addr, addr + size)`, from
    /// `/proc/self/smaps` (the advice splits a block's mapping at the huge pages' bounds).
    #[cfg(target_os = "linux")]
    fn anon_huge_kib(addr: usize, size: usize) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        let mut total = 0;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((lo, hi)) = first.split_once('-') {
                if let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                {
                    inside = lo < addr + size && addr < hi;
                    continue;
                }
            }
            if inside {
                if let Some(rest) = line.strip_prefix("AnonHugePages:") {
                    total += rest
                        .trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse()
                        .unwrap_or(0);
                }
            }
        }
        total
    }
}
