//! The frontier's memory does not grow with the number of URLs: a million
//! URLs pushed through it (its own test binary, so that no other test
//! moves the peak).

use webcanon_crawl::NormalizedUrl;
use webcanon_crawl::frontier::{CACHE_BYTES, Frontier, NewUrl};

/// The ceiling this test holds the whole process to: the frontier's page
/// cache, the test's own allocations and the binary, with room to spare.
const CEILING_KIB: u64 = (CACHE_BYTES as u64 >> 10) + 48 * 1024;

fn rss_kib() -> u64 {
    webcanon_test::memory::status_kib("self", "VmRSS").expect("VmRSS in /proc/self/status")
}

#[test]
fn a_million_urls_keep_memory_flat() {
    let dir = tempfile::tempdir().unwrap();
    let mut frontier = Frontier::open(&dir.path().join("frontier.sqlite")).unwrap();
    let mut rss_at_100k = 0;
    for chunk in 0..100u32 {
        frontier
            .transaction(|batch| {
                for n in chunk * 10_000..(chunk + 1) * 10_000 {
                    let url = NormalizedUrl::parse(&format!("https://host{}.test/page/{n}?q=x", n % 1_000)).unwrap();
                    assert!(batch.push(&NewUrl { url: &url, depth: 1, parent: Some("https://host0.test/") })?);
                }
                Ok(())
            })
            .unwrap();
        // Fetch as a crawl does: a lease, then a finish, for a tenth of them.
        for _ in 0..100 {
            let lease = frontier.lease(i64::MAX).unwrap().expect("a ready host");
            frontier.transaction(|batch| batch.finish(&lease, 0, true)).unwrap();
        }
        if chunk == 9 {
            rss_at_100k = rss_kib();
        }
    }
    assert_eq!(frontier.seen_count().unwrap(), 1_000_000);
    let rss_at_1m = rss_kib();
    let peak = webcanon_test::memory::peak_kib();
    eprintln!("RSS at 100,000 URLs: {rss_at_100k} KiB; at 1,000,000: {rss_at_1m} KiB; peak {peak} KiB");
    assert!(peak < CEILING_KIB, "peak {peak} KiB over the ceiling {CEILING_KIB} KiB");
    assert!(rss_at_1m < rss_at_100k + CACHE_BYTES as u64 / 1024, "{rss_at_100k} KiB -> {rss_at_1m} KiB");
}
