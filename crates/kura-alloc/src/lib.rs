//! The kura binary's allocator (ADR 0036), and giving freed memory back when it goes idle.
//!
//! mimalloc (the README's build; built without transparent huge pages, the workspace's
//! `no_thp`) returns freed pages to the system a second after they empty, but only when a
//! thread next allocates: a server that goes quiet after a burst keeps them for as long as
//! it stays quiet. Purging at once instead cost up to a fifth of BatchWriteItem's
//! throughput; so the engine calls [`give_back`] once writes stop, and requests pay nothing
//! (docs/costs.md). jemalloc (`jemalloc`, the shipped static binary's) purges on a
//! background thread after a second (`.cargo/config.toml`), so there it does nothing.

#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[cfg(all(not(feature = "jemalloc"), not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(all(not(feature = "jemalloc"), not(target_env = "msvc")))]
#[allow(unsafe_code)]
mod ffi {
    // mimalloc's C API; the `mimalloc` crate links the library but does not wrap it.
    unsafe extern "C" {
        fn mi_collect(force: bool);
    }

    pub(super) fn collect() {
        // SAFETY: takes a flag and may be called from any thread at any time.
        unsafe { mi_collect(true) }
    }
}

/// Gives the memory freed since the last call back to the system, program wide (what
/// mimalloc would purge after its delay, now). For an idle server: it walks the calling
/// thread's pages and every arena.
pub fn give_back() {
    #[cfg(all(not(feature = "jemalloc"), not(target_env = "msvc")))]
    ffi::collect();
}

#[cfg(all(test, not(feature = "jemalloc"), not(target_env = "msvc")))]
mod tests {
    #[test]
    fn memory_freed_in_another_thread_is_given_back() {
        let resident = || {
            std::fs::read_to_string("/proc/self/statm")
                .ok()
                .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
                .map(|pages| pages * 4096)
        };
        // 64 MB touched and freed by a thread that then ends: mimalloc keeps its pages
        // until a purge (without give_back the test fails: nothing moves).
        std::thread::spawn(|| {
            let blocks: Vec<Vec<u8>> = (0..64).map(|_| vec![1u8; 1 << 20]).collect();
            std::hint::black_box(&blocks);
        })
        .join()
        .expect("thread");
        let Some(before) = resident() else {
            return; // no /proc: nothing to measure
        };
        super::give_back();
        let after = resident().expect("statm");
        assert!(
            after + (32 << 20) < before,
            "resident {before} bytes before give_back, {after} after"
        );
    }
}
