//! `batch --content` against a loopback web of several origins: one page
//! record per URL, in input order; an allowed page's record is what the
//! live client's fetch of it gives, a refused URL's says why and was never
//! requested.

use std::path::Path;
use std::time::Duration;

use webcanon_batch::origin::Shard;
use webcanon_batch::run::{self, BatchConfig, NoProgress};
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{Client, ContentHash, FetchOptions, NotFetchedReason, PageRecord};
use webcanon_core::policy::{RobotsMode, Verdict};
use webcanon_core::signals::{WarningCode, WarningSource};
use webcanon_test::pdf::PdfSpec;
use webcanon_test::{Route, TestServer};

const PAGE: &str = "<!doctype html><html><head><title>Hello</title></head><body><main><h1>Hello</h1>\
                    <p>A page about robots and the people who write them, long enough to be read as text.</p>\
                    </main></body></html>";

async fn server() -> TestServer {
    let server = TestServer::start().await;
    let pdf = PdfSpec::text(&[&["A PDF about robots.", "Its second line."]]).title("Robots PDF").build();
    server
        .route_host(
            "a.test",
            "/robots.txt",
            Route::text(200, "User-agent: *\nDisallow: /private\nAllow: /private/ok\n"),
        )
        .route_host("a.test", "/page", Route::html(200, PAGE))
        .route_host("a.test", "/private/x", Route::html(200, PAGE))
        .route_host("a.test", "/private/ok", Route::html(200, PAGE))
        .route_host("a.test", "/noai", Route::html(200, PAGE).header("X-Robots-Tag", "noai"))
        .route_host("a.test", "/usage", Route::html(200, PAGE).header("Content-Usage", "train-ai=n"))
        .route_host("a.test", "/doc.pdf", Route::bytes(200, "application/pdf", pdf))
        .route_host("a.test", "/gone", Route::text(404, "gone"))
        .route_host("b.test", "/robots.txt", Route::text(200, "User-agent: *\nDisallow: /\n"))
        .route_host("b.test", "/x", Route::html(200, PAGE))
        .route_host("c.test", "/robots.txt", Route::text(503, "down"))
        .route_host("c.test", "/x", Route::html(200, PAGE))
        .route_host("d.test", "/robots.txt", Route::text(404, "none"))
        .route_host("d.test", "/page", Route::html(200, PAGE));
    server
}

fn client(server: &TestServer) -> Client {
    let policy = SsrfPolicy::default()
        .allow_private("127.0.0.0/8".parse().unwrap())
        .resolve(format!("*.test:{}:127.0.0.1", server.port()).parse().unwrap())
        // A name that resolves to a private address outside the allowed network.
        .resolve("private.example:80:10.1.2.3".parse().unwrap());
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(5))
        .ssrf_policy(policy)
        .min_interval(Duration::ZERO)
        .build()
        .unwrap()
}

fn config(dir: &Path, urls: &[String], output: &str) -> BatchConfig {
    let input = dir.join("urls.txt");
    std::fs::write(&input, urls.join("\n") + "\n").unwrap();
    let output = dir.join(output);
    BatchConfig {
        snapshot_out: BatchConfig::default_snapshot_out(&output),
        input,
        column: "url".into(),
        output,
        agent: "TestBot".parse().unwrap(),
        mode: RobotsMode::Respect,
        shard: Shard::ALL,
        snapshot: None,
        concurrency: 4,
        batch_rows: 3,
        threads: 1,
        fetch_only: false,
        partition_bytes: webcanon_batch::PARTITION_BYTES,
        fetch_settings: String::new(),
        content: Some(FetchOptions::default()),
    }
}

/// The record with its fetch time cleared: the one field two fetches of
/// the same page do not share.
fn timeless(mut record: PageRecord) -> PageRecord {
    record.fetched_at = None;
    record
}

fn read_jsonl(path: &Path) -> Vec<PageRecord> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_url_gets_one_exact_record_in_input_order() {
    let server = server().await;
    let u = |host: &str, path: &str| format!("http://{host}:{}{path}", server.port());
    let urls = vec![
        u("a.test", "/page"),
        u("a.test", "/private/x"),
        u("a.test", "/private/ok"),
        u("a.test", "/noai"),
        u("a.test", "/usage"),
        u("a.test", "/doc.pdf"),
        u("a.test", "/gone"),
        u("b.test", "/x"),
        u("c.test", "/x"),
        "not a url".to_string(),
        "http://private.example/x".to_string(),
        u("d.test", "/page"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &urls, "pages.jsonl");
    let batch_client = client(&server);
    let summary = {
        let config = config.clone();
        tokio::task::spawn_blocking(move || run::run(&config, Some(batch_client), &NoProgress)).await.unwrap().unwrap()
    };
    assert_eq!((summary.rows, summary.allowed, summary.pages, summary.invalid), (12, 7, 6, 1));
    let records = read_jsonl(&config.output);
    assert_eq!(records.iter().map(|r| r.requested_url.as_str()).collect::<Vec<_>>(), urls);

    // Nothing refused was requested.
    assert_eq!(server.requests().iter().filter(|r| r.path_and_query == "/private/x").count(), 0);
    let requested_hosts: Vec<String> = server.requests().iter().filter_map(|r| r.host.clone()).collect();
    for host in ["b.test", "c.test"] {
        let pages = server
            .requests()
            .iter()
            .filter(|r| r.host.as_deref().is_some_and(|h| h.starts_with(host)) && r.path_and_query != "/robots.txt")
            .count();
        assert_eq!(pages, 0, "{host}: only its robots.txt is requested ({requested_hosts:?})");
    }
    // Each allowed page once.
    for path in ["/page", "/private/ok", "/noai", "/usage", "/doc.pdf", "/gone"] {
        let hits = server
            .requests()
            .iter()
            .filter(|r| r.path_and_query == path && r.host.as_deref().is_some_and(|h| h.starts_with("a.test")))
            .count();
        assert_eq!(hits, 1, "{path}");
    }

    // An allowed page's record is what a live fetch of it gives.
    let live = client(&server);
    for i in [0, 2, 3, 4, 5, 11] {
        let result = live.fetch(urls[i].as_str()).await.unwrap();
        assert_eq!(timeless(records[i].clone()), timeless(PageRecord::from_result(result)), "{}", urls[i]);
        assert!(records[i].fetched_at.is_some());
        let content = records[i].content.as_deref().unwrap();
        assert_eq!(records[i].content_hash, Some(ContentHash::of(content)));
    }
    assert_eq!(records[0].title.as_deref(), Some("Hello"));
    assert!(records[0].metadata.is_some() && records[1].metadata.is_none());
    assert!(records[0].content.as_deref().unwrap().contains("A page about robots"));
    assert_eq!(records[0].bytes, Some(PAGE.len() as u64));
    assert_eq!(records[0].verdict, Some(Verdict::AllowedImplicit));
    assert_eq!(records[2].verdict, Some(Verdict::AllowedExplicit));
    assert_eq!(records[2].rule.as_ref().map(|r| (r.line, r.pattern.as_str())), Some((3, "/private/ok")));
    let signals = |i: usize| records[i].warnings.iter().map(|w| (w.code, w.source)).collect::<Vec<_>>();
    assert!(signals(3).contains(&(WarningCode::Noai, WarningSource::XRobotsTag)), "{:?}", signals(3));
    assert!(signals(4).contains(&(WarningCode::ContentUsage, WarningSource::ContentUsageHeader)), "{:?}", signals(4));
    assert!(signals(0).is_empty(), "{:?}", signals(0));
    assert!(records[5].content.as_deref().unwrap().contains("A PDF about robots."));
    assert_eq!(records[5].content_type.as_deref(), Some("application/pdf"));

    // The refused and the failed.
    let reasons: Vec<Option<NotFetchedReason>> = records.iter().map(|r| r.not_fetched).collect();
    assert_eq!(
        reasons,
        [
            None,
            Some(NotFetchedReason::Disallowed),
            None,
            None,
            None,
            None,
            Some(NotFetchedReason::HttpStatus),
            Some(NotFetchedReason::Disallowed),
            Some(NotFetchedReason::RobotsUnreachable),
            Some(NotFetchedReason::InvalidUrl),
            Some(NotFetchedReason::SsrfRefused),
            None,
        ]
    );
    let disallowed = &records[1];
    assert_eq!(disallowed.verdict, Some(Verdict::DisallowedExplicit));
    assert_eq!(disallowed.rule.as_ref().map(|r| (r.line, r.pattern.as_str())), Some((2, "/private")));
    assert!(disallowed.fetched_at.is_none() && disallowed.content.is_none() && disallowed.status.is_none());
    assert_eq!(records[6].status, Some(404));
    assert!(records[6].fetched_at.is_some() && records[6].content.is_none());
    assert_eq!(records[8].verdict, Some(Verdict::UnknownUnreachable));
    assert!(records[9].error.is_some() && records[9].verdict.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_parquet_output_holds_the_same_records() {
    let server = server().await;
    let u = |host: &str, path: &str| format!("http://{host}:{}{path}", server.port());
    let urls = vec![u("a.test", "/noai"), u("a.test", "/private/x"), u("d.test", "/page")];
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &urls, "pages.parquet");
    let batch_client = client(&server);
    let summary = {
        let config = config.clone();
        tokio::task::spawn_blocking(move || run::run(&config, Some(batch_client), &NoProgress)).await.unwrap().unwrap()
    };
    assert_eq!(summary.rows, 3);
    let file = std::fs::File::open(&config.output).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
    let batches = reader.collect::<Result<Vec<_>, _>>().unwrap();
    let batch = arrow::compute::concat_batches(&webcanon_batch::page_records::schema(), &batches).unwrap();
    use arrow::array::AsArray;
    let reasons = batch.column_by_name("not_fetched").unwrap().as_string::<i32>();
    assert_eq!(reasons.iter().collect::<Vec<_>>(), [None, Some("disallowed"), None]);
    let warnings = batch.column_by_name("warnings").unwrap().as_list::<i32>();
    let first = warnings.value(0);
    let codes = first.as_struct().column_by_name("code").unwrap().as_string::<i32>();
    assert!(codes.iter().any(|c| c == Some("noai")));
    let content = batch.column_by_name("content").unwrap().as_string::<i64>();
    assert!(content.value(2).contains("A page about robots"));
}
