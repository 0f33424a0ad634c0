//! A failure of this machine (out of descriptors, buffers or ports) is no
//! fact about a site: it is tried again with back-off, then reported as a
//! `local` error, and nothing is stored or cached for the site.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use webcanon_client::error::{Error, FetchError};
use webcanon_client::ssrf::{NameLookup, SsrfPolicy};
use webcanon_client::{CacheSetting, Client};
use webcanon_core::policy::Verdict;
use webcanon_test::{Route, TestServer};

/// Resolves every name to 127.0.0.1, or fails as a process out of
/// descriptors does (EMFILE) while `exhausted` is set.
#[derive(Debug, Default)]
struct Exhaustible {
    exhausted: AtomicBool,
    calls: AtomicUsize,
}

impl NameLookup for Exhaustible {
    fn lookup<'a>(&'a self, _host: &'a str) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'a>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let answer = if self.exhausted.load(Ordering::SeqCst) {
            Err(std::io::Error::from_raw_os_error(24))
        } else {
            Ok(vec!["127.0.0.1".parse().unwrap()])
        };
        Box::pin(async move { answer })
    }
}

#[tokio::test]
async fn running_out_of_descriptors_is_never_the_sites_answer() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    let lookup = Arc::new(Exhaustible::default());
    let dir = std::env::temp_dir().join(format!("webcanon-local-failures-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let client = Client::builder()
        .cache(CacheSetting::Dir(dir.clone()))
        .timeout(Duration::from_secs(5))
        .name_lookup(lookup.clone())
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .build()
        .unwrap();
    let url = format!("http://site.test:{}/private/x", server.port());

    lookup.exhausted.store(true, Ordering::SeqCst);
    let started = std::time::Instant::now();
    let err = client.check(&url).await.unwrap_err();
    match &err {
        Error::Fetch(fetch @ FetchError::Local { .. }) => assert_eq!(fetch.reason(), "local"),
        other => panic!("expected a local failure, got {other:?}"),
    }
    assert!(err.to_string().contains("this machine could not make the request"), "{err}");
    assert!(started.elapsed() >= Duration::from_secs(2), "tried again with back-off: {:?}", started.elapsed());
    assert!(lookup.calls.load(Ordering::SeqCst) >= 4, "tried four times");
    assert!(matches!(client.robots_txt(&url).await, Err(Error::Fetch(FetchError::Local { .. }))));
    assert!(server.requests().is_empty());

    // The machine recovers: nothing was kept, so robots.txt is fetched now
    // and the site's own rules decide.
    lookup.exhausted.store(false, Ordering::SeqCst);
    let evidence = client.check(&url).await.unwrap().robots;
    assert_eq!(evidence.verdict, Verdict::DisallowedExplicit);
    assert_eq!(server.hits("/robots.txt"), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
