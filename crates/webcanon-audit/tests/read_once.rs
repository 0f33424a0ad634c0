//! Every resource is requested once per audit: a whole audit of a 100-page
//! loopback site (the benchmark's site, `support/site.rs`) asks the server
//! for each path on each host exactly once, whatever the number of checks
//! that look at it, and a second audit with a fresh client does the same.

#[path = "support/site.rs"]
mod site;

use std::collections::BTreeMap;

use site::{AGENT, HOST, LoopbackSite, count_by_resource, repeated};
use webcanon_audit::{Report, Site, audit};
use webcanon_test::Logged;

/// Runs one audit with a fresh client; returns the report and the requests
/// the server saw during it.
async fn audit_once(site: &LoopbackSite) -> (Report, Vec<Logged>) {
    let before = site.server.requests().len();
    let report = audit(Site::origin(site.origin.clone(), site.client()), AGENT).await.unwrap();
    let requests = site.server.requests().split_off(before);
    (report, requests)
}

fn assert_read_once(report: &Report, requests: &[Logged]) {
    let twice = repeated(requests);
    assert!(twice.is_empty(), "resources requested more than once in one audit:\n{}", twice.join("\n"));
    assert_eq!(
        report.resources_read,
        requests.len(),
        "the report's resources_read counts every request the server saw"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_resource_is_requested_once_per_audit() {
    let site = LoopbackSite::start(100).await;
    let (report, first) = audit_once(&site).await;
    assert_read_once(&report, &first);

    // The audit did read the site: both hosts' robots.txt, the sitemap,
    // llms.txt and each Markdown copy it links.
    let port = site.server.port();
    let counts = count_by_resource(&first);
    let host = format!("{HOST}:{port}");
    let mut expected: Vec<(String, String)> =
        ["/robots.txt", "/sitemap.xml", "/llms.txt"].iter().map(|path| (host.clone(), path.to_string())).collect();
    expected.push((format!("www.{host}"), "/robots.txt".to_string()));
    for n in (5..=site.pages).step_by(5) {
        expected.push((host.clone(), format!("/docs/page-{n:03}.md")));
    }
    assert_eq!(expected.len(), 4 + site.linked);
    for key in &expected {
        assert_eq!(counts.get(key), Some(&1), "{} {} was requested once; requests: {counts:#?}", key.0, key.1);
    }

    // A second audit, with its own client and robots.txt cache, reads the
    // same resources, once each again.
    let (report, second) = audit_once(&site).await;
    assert_read_once(&report, &second);
    let keys = |counts: BTreeMap<(String, String), usize>| counts.into_keys().collect::<Vec<_>>();
    assert_eq!(keys(count_by_resource(&second)), keys(counts), "both audits read the same resources");
}

#[test]
fn repeats_are_told_apart_by_host_and_path() {
    let logged = |host: &str, path: &str| Logged {
        path_and_query: path.to_string(),
        host: Some(host.to_string()),
        user_agent: None,
        accept: None,
    };
    let requests = [
        logged("a.test", "/robots.txt"),
        logged("www.a.test", "/robots.txt"),
        logged("a.test", "/llms.txt"),
        logged("a.test", "/llms.txt?x=1"),
    ];
    assert!(repeated(&requests).is_empty());
    let mut again = requests.to_vec();
    again.push(logged("a.test", "/llms.txt"));
    assert_eq!(repeated(&again), vec!["2× a.test /llms.txt".to_string()]);
}
