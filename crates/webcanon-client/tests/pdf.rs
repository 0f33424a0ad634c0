//! PDFs through the client: fetched from a loopback server through the
//! same policy path as pages (robots.txt, redirects, `X-Robots-Tag`), read
//! on the blocking pool within the time limit, and read in worker
//! processes that die, misbehave or stall. The conversion's own outcomes
//! are webcanon-extract's tests (`crates/webcanon-extract/tests/pdf.rs`).

use std::time::{Duration, Instant};

use webcanon_client::error::{Error, FetchError};
use webcanon_client::markdown::{ContentFormat, ContentShape};
use webcanon_client::pdf::{PdfCut, PdfError, PdfLimits, PdfWorker, ReaderDeath, convert, convert_in_worker};
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client, FetchOptions};
use webcanon_test::pdf::PdfSpec;
use webcanon_test::pdf::samples::{bombed, report};
use webcanon_test::{Route, TestServer};

fn client() -> Client {
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(10))
        .cache(CacheSetting::None)
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_blocking_conversion_stops_waiting_at_its_time_limit() {
    let pdf = PdfSpec::numbered(400).build();
    let limits = PdfLimits { time_limit: Duration::from_millis(1), ..PdfLimits::default() };
    let started = Instant::now();
    let converted = convert(pdf, limits).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(converted.cut, Some(PdfCut::Time));
    assert!(converted.info.pages_read < 400);
}

async fn server_with_pdfs() -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private/\n"));
    server.route("/report.pdf", Route::bytes(200, "application/pdf", report()));
    server.route("/old.pdf", Route::redirect(301, "/report.pdf"));
    server.route("/private/secret.pdf", Route::bytes(200, "application/pdf", report()));
    server.route("/noai.pdf", Route::bytes(200, "application/pdf", report()).header("X-Robots-Tag", "noai, noindex"));
    server.route("/scan.pdf", Route::bytes(200, "application/octet-stream", PdfSpec::image_only(1).build()));
    server.route("/locked.pdf", Route::bytes(200, "application/pdf", PdfSpec::text(&[&["x"]]).encrypted().build()));
    server
}

#[tokio::test]
async fn a_pdf_is_fetched_as_markdown_with_its_metadata() {
    let server = server_with_pdfs().await;
    let result = client().fetch(&server.url("/old.pdf")).await.unwrap();
    assert_eq!(result.final_url, server.url("/report.pdf"));
    assert_eq!(result.redirects.len(), 1);
    assert_eq!(result.title.as_deref(), Some("Quarterly Report"));
    let pdf = result.pdf.expect("PDF metadata");
    assert_eq!((pdf.author.as_deref(), pdf.pages, pdf.pages_read), (Some("Ada Lovelace"), 2, 2));
    assert_eq!(result.metadata.headline.as_deref(), Some("Quarterly Report"));
    assert_eq!(result.metadata.authors, ["Ada Lovelace"]);
    assert!(result.content.contains("hyphenated across two lines."), "{}", result.content);
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);

    let client = client();
    let text = FetchOptions {
        shape: ContentShape { format: ContentFormat::Text, ..ContentShape::default() },
        ..*client.fetch_options()
    };
    let result = client.fetch_with(&server.url("/report.pdf"), &text).await.unwrap();
    assert!(result.content.starts_with("Quarterly report on"), "{}", result.content);
    assert!(
        result.content.ends_with("\n\n--- page 2 ---\n\nThe second page has its own text and a *star*."),
        "{}",
        result.content
    );
}

#[tokio::test]
async fn a_pdf_disallowed_by_robots_txt_is_never_requested() {
    let server = server_with_pdfs().await;
    let err = client().fetch(&server.url("/private/secret.pdf")).await.unwrap_err();
    assert!(err.is_policy(), "{err:?}");
    assert_eq!(server.hits("/private/secret.pdf"), 0);
}

#[tokio::test]
async fn x_robots_tag_on_a_pdf_becomes_warnings() {
    let server = server_with_pdfs().await;
    let result = client().fetch(&server.url("/noai.pdf")).await.unwrap();
    let codes: Vec<&str> = result.warnings.iter().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, ["noai", "noindex"], "{:?}", result.warnings);
}

#[tokio::test]
async fn a_scan_is_known_by_its_bytes_and_warns_of_no_text_layer() {
    let server = server_with_pdfs().await;
    let result = client().fetch(&server.url("/scan.pdf")).await.unwrap();
    let codes: Vec<&str> = result.warnings.iter().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, ["pdf_no_text_layer"]);
    assert_eq!(result.content, "");
}

#[tokio::test]
async fn an_encrypted_pdf_fails_with_the_pdf_error_reason() {
    let server = server_with_pdfs().await;
    let err = client().fetch(&server.url("/locked.pdf")).await.unwrap_err();
    match err {
        Error::Fetch(fetch @ FetchError::Pdf { .. }) => {
            assert_eq!(fetch.reason(), "pdf_error");
            assert!(fetch.to_string().contains("encrypted"), "{fetch}");
        }
        other => panic!("expected a PDF error, got {other:?}"),
    }
}

#[tokio::test]
async fn pages_left_out_for_their_cost_are_named_in_a_warning() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private/\n"));
    server.route("/bombed.pdf", Route::bytes(200, "application/pdf", bombed()));
    let result = client().fetch(&server.url("/bombed.pdf")).await.unwrap();
    let codes: Vec<&str> = result.warnings.iter().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, ["pdf_pages_skipped"]);
    assert_eq!(
        result.warnings[0].detail,
        "pages 2–5 could each draw more than 1,000,000 characters; their text is left out"
    );
    assert_eq!(result.pdf.expect("PDF metadata").pages_skipped, [2, 3, 4, 5]);
    assert!(result.content.contains("The last page is ordinary too."), "{}", result.content);
}

/// A worker played by the shell, running `script`.
fn shell_worker(script: &str) -> PdfWorker {
    PdfWorker::new("/bin/sh").arg("-c").arg(script)
}

/// Issue 30: whatever a worker does (dies by a signal, runs out of
/// memory, writes garbage, stalls, is not there), the conversion ends in
/// an outcome by its time limit; a worker that stalls is killed at the
/// limit and the pages it sent come back.
#[tokio::test]
async fn issue_30_workers_that_die_misbehave_or_stall_are_outcomes() {
    let pdf = report();
    let limits = PdfLimits { time_limit: Duration::from_secs(2), ..PdfLimits::default() };
    let died = |death| PdfError::ReaderDied(death);
    let cases = [
        ("printf Zgarbage", died(ReaderDeath::BadAnswer("a frame of kind 90 where it cannot be".into()))),
        ("kill -SEGV $$", died(ReaderDeath::Crashed("signal 11".into()))),
        ("echo 'memory allocation of 1073741824 bytes failed' >&2; kill -ABRT $$", died(ReaderDeath::OutOfMemory)),
        (
            "echo \"thread 'pdf-worker' has overflowed its stack\" >&2; kill -ABRT $$",
            died(ReaderDeath::Crashed("a stack overflow".into())),
        ),
        ("exit 0", died(ReaderDeath::Crashed("exit status 0".into()))),
        ("kill -XCPU $$", died(ReaderDeath::OutOfTime)),
        ("exec sleep 30", died(ReaderDeath::OutOfTime)),
    ];
    for (script, expected) in cases {
        let started = Instant::now();
        let outcome = convert_in_worker(&shell_worker(script), &pdf, limits).await;
        assert_eq!(outcome.unwrap_err(), expected, "{script}");
        assert!(started.elapsed() < Duration::from_secs(4), "{script}: {:?}", started.elapsed());
    }
    let missing = convert_in_worker(&PdfWorker::new("/nonexistent/pdf-worker"), &pdf, limits).await;
    assert!(matches!(missing, Err(PdfError::WorkerUnavailable(_))), "{missing:?}");
    // The metadata and one page of three, then a stall.
    let stalls = r#"printf 'I&\000\000\000{"title":null,"author":null,"pages":3}P\003\000\000\000one'; exec sleep 30"#;
    let started = Instant::now();
    let converted = convert_in_worker(&shell_worker(stalls), &pdf, limits).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
    assert_eq!(converted.cut, Some(PdfCut::Time));
    assert_eq!((converted.info.pages, converted.info.pages_read, converted.markdown.as_str()), (3, 1, "one"));
}
