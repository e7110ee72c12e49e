//! The kura binary's allocator: jemalloc, in the README's build and the shipped one alike
//! (ADR 0036).
//!
//! Chosen by measurement: the two shipped builds side by side in one run held 33–37 MB
//! ten seconds after a 100,000-item load with jemalloc against 43–50 MB with mimalloc,
//! and served the same or more (docs/figures.md). jemalloc returns freed pages from a
//! background thread a second after they empty (`.cargo/config.toml`), whichever thread
//! freed them, so an idle server needs no call to give memory back.

#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[cfg(all(test, not(target_env = "msvc")))]
mod tests {
    fn resident() -> Option<u64> {
        std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map(|pages| pages * 4096)
    }

    #[test]
    fn memory_freed_in_another_thread_goes_back_by_itself() {
        // 64 MB touched and freed by a thread that then ends; nothing is called after.
        let peak = std::thread::spawn(|| {
            let blocks: Vec<Vec<u8>> = (0..65536).map(|_| vec![1u8; 1024]).collect();
            std::hint::black_box(&blocks);
            resident()
        })
        .join()
        .expect("thread");
        let Some(peak) = peak else {
            return; // no /proc: nothing to measure
        };
        let started = std::time::Instant::now();
        let mut now = resident().expect("statm");
        while now + (32 << 20) > peak && started.elapsed() < std::time::Duration::from_secs(10) {
            std::thread::sleep(std::time::Duration::from_millis(100));
            now = resident().expect("statm");
        }
        assert!(
            now + (32 << 20) <= peak,
            "resident {peak} bytes with the blocks, still {now} after {:?}",
            started.elapsed()
        );
    }
}
