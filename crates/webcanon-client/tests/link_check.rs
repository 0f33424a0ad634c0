//! `Client::check_links` against a real loopback server: one outcome per
//! kind of answer, refused links never requested, results in input order.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use url::Url;
use webcanon_client::link_check::LinkOutcome;
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client};
use webcanon_test::{Route, TestServer};

#[tokio::test]
async fn every_kind_of_answer_gets_its_outcome() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    server.route("/ok.md", Route::bytes(200, "text/markdown", b"# Doc\n".to_vec()));
    server.route("/page", Route::html(200, "<!doctype html><html><body>x</body></html>"));
    server.route("/disguised.md", Route::text(200, "<!DOCTYPE html><html><body>x</body></html>"));
    server.route("/gone.md", Route::text(404, "not found"));
    server.route("/moved.md", Route::redirect(301, "/ok.md"));
    server.route("/to-private", Route::redirect(302, "/private/doc.md"));
    server.route("/private/doc.md", Route::text(200, "# secret"));
    server.route("/slow.md", Route::text(200, "# late").delay(Duration::from_secs(3)));

    let client = Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_millis(500))
        .cache(CacheSetting::None)
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .build()
        .unwrap();
    let rows: &[(&str, LinkOutcome, Option<u16>)] = &[
        ("/ok.md", LinkOutcome::Ok, Some(200)),
        ("/page", LinkOutcome::NotMarkdown, Some(200)),
        ("/disguised.md", LinkOutcome::NotMarkdown, Some(200)),
        ("/gone.md", LinkOutcome::Broken, Some(404)),
        ("/moved.md", LinkOutcome::Ok, Some(200)),
        ("/private/doc.md", LinkOutcome::RefusedRobots, None),
        ("/to-private", LinkOutcome::RefusedRobots, None),
        ("/slow.md", LinkOutcome::Unreachable, None),
    ];
    let mut urls: Vec<Url> = rows.iter().map(|(path, ..)| Url::parse(&server.url(path)).unwrap()).collect();
    urls.push(Url::parse("http://10.0.0.1/doc.md").unwrap());
    let done = Arc::new(AtomicUsize::new(0));
    let counted = done.clone();
    let checks = client
        .check_links(&urls, move || {
            counted.fetch_add(1, Ordering::SeqCst);
        })
        .await;

    assert_eq!(checks.len(), urls.len());
    assert_eq!(done.load(Ordering::SeqCst), urls.len());
    for ((path, outcome, status), check) in rows.iter().zip(&checks) {
        assert_eq!((check.outcome, check.status), (*outcome, *status), "{path}: {check:?}");
    }
    let moved = &checks[4];
    assert!(moved.redirected);
    assert_eq!(moved.final_url.as_deref(), Some(server.url("/ok.md").as_str()));
    let refused = &checks[6];
    assert_eq!(refused.rule.as_ref().map(|r| r.pattern.as_str()), Some("/private"));
    assert!(refused.message.as_deref().unwrap().starts_with("redirects to "), "{refused:?}");
    assert_eq!(checks[8].outcome, LinkOutcome::RefusedSsrf);
    // A refused link is never requested.
    assert_eq!(server.hits("/private/doc.md"), 0);
    // Only the 404 counts against the file.
    assert_eq!(checks.iter().filter(|c| c.outcome.fails()).count(), 1);
}
