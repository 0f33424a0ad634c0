//! Polite concurrent requests: a bound on requests in flight overall and
//! one request at a time per host.
//!
//! Used wherever one command requests many URLs of possibly many sites
//! (the links of an llms.txt, the pages of `llms full`). Each request still
//! goes through the client's own admission (SSRF guard, robots.txt, pacing);
//! this only bounds how many are open at once.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use url::Url;

/// Requests in flight at once across all hosts.
pub const MAX_IN_FLIGHT: usize = 4;

/// Runs `op` on every URL, at most `in_flight` at a time overall and one at
/// a time per host (hosts take turns in the order they first appear), and
/// returns the results in the order of `urls`. `on_done` is called once
/// per URL as its request ends (to advance a progress bar).
pub async fn run_polite<T, F, Fut, D>(urls: &[Url], in_flight: usize, on_done: D, op: F) -> Vec<T>
where
    F: Fn(Url) -> Fut + Send + Sync + 'static,
    D: Fn() + Send + Sync + 'static,
    Fut: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let mut queues: Vec<Vec<(usize, Url)>> = Vec::new();
    let mut by_host: HashMap<String, usize> = HashMap::new();
    for (index, url) in urls.iter().enumerate() {
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let queue = *by_host.entry(host).or_insert_with(|| {
            queues.push(Vec::new());
            queues.len() - 1
        });
        queues[queue].push((index, url.clone()));
    }
    let op = Arc::new(op);
    let on_done = Arc::new(on_done);
    let permits = Arc::new(Semaphore::new(in_flight.max(1)));
    let mut tasks = JoinSet::new();
    for queue in queues {
        let (op, permits, on_done) = (op.clone(), permits.clone(), on_done.clone());
        tasks.spawn(async move {
            let mut done = Vec::with_capacity(queue.len());
            for (index, url) in queue {
                // The semaphore is never closed, so acquiring cannot fail.
                let permit = permits.acquire().await.ok();
                let result = op(url).await;
                drop(permit);
                on_done();
                done.push((index, result));
            }
            done
        });
    }
    let mut slots: Vec<Option<T>> = std::iter::repeat_with(|| None).take(urls.len()).collect();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(done) => {
                for (index, result) in done {
                    slots[index] = Some(result);
                }
            }
            Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
            Err(err) => unreachable!("polite request tasks are never cancelled: {err}"),
        }
    }
    slots.into_iter().map(|slot| slot.expect("every URL's task ran to completion")).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test(flavor = "multi_thread")]
    async fn bounds_overall_and_per_host_concurrency_and_keeps_order() {
        let urls: Vec<Url> = (0..24).map(|i| Url::parse(&format!("http://host{}.test/{i}", i % 6)).unwrap()).collect();
        let in_flight = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let per_host: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let per_host_peak = Arc::new(AtomicUsize::new(0));
        let (f, p, h, hp) = (in_flight.clone(), peak.clone(), per_host.clone(), per_host_peak.clone());
        let done = Arc::new(AtomicUsize::new(0));
        let counted = done.clone();
        let on_done = move || {
            counted.fetch_add(1, Ordering::SeqCst);
        };
        let results = run_polite(&urls, 4, on_done, move |url: Url| {
            let (f, p, h, hp) = (f.clone(), p.clone(), h.clone(), hp.clone());
            async move {
                let host = url.host_str().unwrap().to_string();
                let now = f.fetch_add(1, Ordering::SeqCst) + 1;
                p.fetch_max(now, Ordering::SeqCst);
                {
                    let mut map = h.lock().unwrap();
                    let n = map.entry(host.clone()).or_default();
                    *n += 1;
                    hp.fetch_max(*n, Ordering::SeqCst);
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
                *h.lock().unwrap().get_mut(&host).unwrap() -= 1;
                f.fetch_sub(1, Ordering::SeqCst);
                url.path().to_string()
            }
        })
        .await;
        let expected: Vec<String> = (0..24).map(|i| format!("/{i}")).collect();
        assert_eq!(results, expected);
        assert!(peak.load(Ordering::SeqCst) <= 4, "peak {}", peak.load(Ordering::SeqCst));
        assert!(peak.load(Ordering::SeqCst) >= 2, "requests ran one by one");
        assert_eq!(per_host_peak.load(Ordering::SeqCst), 1);
        assert_eq!(done.load(Ordering::SeqCst), 24);
    }
}
