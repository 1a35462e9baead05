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
