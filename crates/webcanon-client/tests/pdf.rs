//! PDFs: the conversion's defined outcomes (text, code, metadata, pages cut,
//! time cut, encrypted, truncated, no pages, no text layer, a page tree
//! that lies, pages left out for their cost), PDFs fetched from a loopback
//! server through the same policy path as pages (robots.txt, redirects,
//! `X-Robots-Tag`), and the memory a conversion takes, measured in a child
//! process.

use std::process::Command;
use std::time::{Duration, Instant};

use webcanon_client::error::{Error, FetchError};
use webcanon_client::markdown::{ContentFormat, ContentShape};
use webcanon_client::pdf::{
    MAX_PAGE_CHARS, PageCap, PdfCut, PdfError, PdfLimits, PdfWorker, ReaderDeath, SkippedPage, convert,
    convert_in_worker, pdf_to_markdown,
};
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client, FetchOptions};
use webcanon_test::memory::peak_kib;
use webcanon_test::pdf::{PdfSpec, bombs, characters};
use webcanon_test::{Route, TestServer};

fn report() -> Vec<u8> {
    PdfSpec::text(&[
        &[
            "Quarterly report on the state of the robots.txt files seen by",
            "the crawler, with a word that is hyphen-",
            "ated across two lines.",
        ],
        &["The second page has its own text and a *star*."],
    ])
    .title("Quarterly Report")
    .author("Ada Lovelace")
    .build()
}

fn client() -> Client {
    Client::builder()
        .agent("TestBot")
        .timeout(Duration::from_secs(10))
        .cache(CacheSetting::None)
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap()))
        .build()
        .unwrap()
}

#[test]
fn text_title_author_and_pages_come_out() {
    let converted = pdf_to_markdown(&report(), &PdfLimits::default()).unwrap();
    assert_eq!(converted.info.title.as_deref(), Some("Quarterly Report"));
    assert_eq!(converted.info.author.as_deref(), Some("Ada Lovelace"));
    assert_eq!((converted.info.pages, converted.info.pages_read), (2, 2));
    assert_eq!(converted.cut, None);
    assert!(!converted.no_text_layer);
    let md = &converted.markdown;
    assert!(md.starts_with("Quarterly report on the state"), "{md}");
    assert!(md.contains("seen by the crawler, with a word that is hyphenated across two lines."), "{md}");
    assert!(md.contains("\n\n--- page 2 ---\n\nThe second page has its own text and a \\*star\\*."), "{md}");
}

#[test]
fn code_set_in_a_monospaced_font_is_fenced_line_for_line() {
    let code =
        ["fn main() {", "    let answer = 42;", "    if answer > 0 {", "        println!(\"{answer}\");", "    }", "}"];
    let pdf = PdfSpec::text(&[&["Build it with the program below."]]).code_page(&code).build();
    let md = pdf_to_markdown(&pdf, &PdfLimits::default()).unwrap().markdown;
    let listing = code.join("\n");
    assert_eq!(md, format!("Build it with the program below.\n\n--- page 2 ---\n\n```\n{listing}\n```"));
    // As text: the same lines, no fence.
    let text = ContentShape { format: ContentFormat::Text, ..ContentShape::default() }.apply(&md);
    assert_eq!(text, format!("Build it with the program below.\n\n--- page 2 ---\n\n{listing}"));
}

#[test]
fn more_pages_than_the_limit_are_cut_at_the_limit() {
    let pdf = PdfSpec::numbered(12).build();
    let limits = PdfLimits { max_pages: 5, ..PdfLimits::default() };
    let converted = pdf_to_markdown(&pdf, &limits).unwrap();
    assert_eq!(converted.cut, Some(PdfCut::Pages));
    assert_eq!((converted.info.pages, converted.info.pages_read), (12, 5));
    assert!(converted.markdown.contains("Page 5 of the long document."));
    assert!(!converted.markdown.contains("Page 6 of"));
}

#[test]
fn a_page_tree_claiming_a_billion_pages_costs_what_it_holds() {
    let pdf = PdfSpec::numbered(3).claiming_pages(1_000_000_000).build();
    let started = Instant::now();
    let outcome = pdf_to_markdown(&pdf, &PdfLimits::default());
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    // Either the reader counts the pages it finds, or it believes the
    // claim and the page limit cuts it: never a billion pages of work.
    let converted = outcome.unwrap();
    assert!(converted.info.pages_read <= PdfLimits::default().max_pages);
    assert!(converted.markdown.contains("Page 3 of the long document."), "{}", converted.markdown);
}

#[test]
fn past_the_time_limit_the_pages_read_so_far_are_kept() {
    let pdf = PdfSpec::numbered(3).build();
    let limits = PdfLimits { time_limit: Duration::ZERO, ..PdfLimits::default() };
    let converted = pdf_to_markdown(&pdf, &limits).unwrap();
    assert_eq!(converted.cut, Some(PdfCut::Time));
    assert_eq!((converted.info.pages, converted.info.pages_read), (3, 0));
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

#[test]
fn an_encrypted_pdf_says_so() {
    let pdf = PdfSpec::text(&[&["Secret text."]]).encrypted().build();
    let err = pdf_to_markdown(&pdf, &PdfLimits::default()).unwrap_err();
    assert_eq!(err, PdfError::Encrypted);
}

#[test]
fn a_truncated_pdf_is_an_error_or_its_readable_part_never_a_panic() {
    let pdf = report();
    for cut in [10, pdf.len() / 3, pdf.len() / 2, pdf.len() - 40] {
        match pdf_to_markdown(&pdf[..cut], &PdfLimits::default()) {
            Ok(converted) => assert!(converted.info.pages_read <= 2),
            Err(err) => assert!(matches!(err, PdfError::Broken(_) | PdfError::NoPages), "{cut}: {err:?}"),
        }
    }
    assert!(matches!(pdf_to_markdown(b"%PDF-1.4\n", &PdfLimits::default()), Err(PdfError::Broken(_))));
}

#[test]
fn a_pdf_without_pages_is_an_error() {
    let pdf = PdfSpec::text(&[]).build();
    assert_eq!(pdf_to_markdown(&pdf, &PdfLimits::default()).unwrap_err(), PdfError::NoPages);
}

#[test]
fn a_scan_without_a_text_layer_has_no_text_and_says_so() {
    let pdf = PdfSpec::image_only(2).title("Scanned").build();
    let converted = pdf_to_markdown(&pdf, &PdfLimits::default()).unwrap();
    assert!(converted.no_text_layer);
    assert_eq!(converted.markdown, "");
    assert_eq!(converted.info.pages_read, 2);
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

/// Bytes flipped, cut and repeated in a real PDF: every outcome is a
/// result (a panic of the reader included, caught), each in bounded time.
/// The fuzz target `pdf_convert` does the same with coverage guidance.
#[test]
fn mangled_pdfs_end_in_an_outcome_in_bounded_time() {
    let pdf = report();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..300 {
        let mut bytes = pdf.clone();
        for _ in 0..1 + next() % 8 {
            let at = (next() as usize) % bytes.len();
            match next() % 3 {
                0 => bytes[at] = next() as u8,
                1 => bytes.truncate(at.max(1)),
                _ => {
                    let end = (at + 64).min(bytes.len());
                    let chunk = bytes[at..end].to_vec();
                    bytes.splice(at..at, chunk);
                }
            }
        }
        let started = Instant::now();
        let outcome = pdf_to_markdown(&bytes, &PdfLimits::default());
        assert!(started.elapsed() < Duration::from_secs(5), "round {round}: {:?}", started.elapsed());
        if let Ok(converted) = outcome {
            assert!(converted.info.pages_read <= converted.info.pages, "round {round}");
        }
    }
}

/// Pages 1 and 6 of text around four that could each draw millions of
/// characters: three from compressed content streams of a few kilobytes,
/// one by drawing a form of 2,000 characters a thousand times.
fn bombed() -> Vec<u8> {
    let draws: String = (0..1_000).map(|i| format!("q 1 0 0 1 0 {i} cm /Fm1 Do Q\n")).collect();
    let bomb = characters(2_000_000);
    PdfSpec::text(&[&["The first page is an ordinary one."]])
        .form(&characters(2_000))
        .drawn_page(&bomb)
        .drawn_page(&bomb)
        .drawn_page(&bomb)
        .drawn_page(draws.as_bytes())
        .lines_page(&["The last page is ordinary too."])
        .build()
}

#[test]
fn pages_that_could_draw_millions_of_characters_are_left_out_and_the_others_read() {
    let pdf = bombed();
    assert!(pdf.len() < 256 << 10, "{} bytes", pdf.len());
    let started = Instant::now();
    let converted = pdf_to_markdown(&pdf, &PdfLimits::default()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    let skipped: Vec<(usize, PageCap)> = converted.skipped.iter().map(|s| (s.page, s.over)).collect();
    assert_eq!(skipped, [2, 3, 4, 5].map(|page| (page, PageCap::Characters)));
    assert_eq!(converted.info.pages_skipped, [2, 3, 4, 5]);
    assert_eq!((converted.info.pages, converted.info.pages_read), (6, 6));
    assert_eq!(converted.cut, None);
    assert!(!converted.no_text_layer);
    let md = &converted.markdown;
    assert!(md.starts_with("The first page is an ordinary one."), "{md}");
    assert!(md.ends_with("--- page 6 ---\n\nThe last page is ordinary too."), "{md}");
    assert!(!md.contains("xx"), "{md}");
}

#[test]
fn in_an_encrypted_pdf_pages_are_bounded_after_decryption() {
    use pdf_oxide::editor::{DocumentEditor, EncryptionAlgorithm, EncryptionConfig, Permissions, SaveOptions};
    for algorithm in [EncryptionAlgorithm::Rc4_128, EncryptionAlgorithm::Aes128, EncryptionAlgorithm::Aes256] {
        let config = EncryptionConfig {
            user_password: String::new(),
            owner_password: "owner".to_string(),
            algorithm,
            permissions: Permissions::all(),
        };
        let mut editor = DocumentEditor::from_bytes(bombed()).unwrap();
        let pdf = editor.save_to_bytes_with_options(SaveOptions::with_encryption(config)).unwrap();
        assert!(pdf.windows(8).any(|w| w == b"/Encrypt"), "{algorithm:?}: not encrypted");
        let started = Instant::now();
        let converted = pdf_to_markdown(&pdf, &PdfLimits::default()).unwrap();
        assert!(started.elapsed() < Duration::from_secs(5), "{algorithm:?}: {:?}", started.elapsed());
        assert_eq!(converted.info.pages_skipped, [2, 3, 4, 5], "{algorithm:?}");
        assert!(
            converted.markdown.ends_with("The last page is ordinary too."),
            "{algorithm:?}: {}",
            converted.markdown
        );
    }
}

#[test]
fn a_pdf_whose_every_page_is_left_out_is_a_result_not_a_scan() {
    let pdf = PdfSpec::text(&[]).drawn_page(&characters(2_000_000)).build();
    let converted = pdf_to_markdown(&pdf, &PdfLimits::default()).unwrap();
    assert_eq!(converted.info.pages_skipped, [1]);
    assert_eq!(converted.markdown, "");
    assert!(!converted.no_text_layer);
}

#[test]
fn a_large_lzw_compressed_page_is_read_not_left_out() {
    // Tens of kilobytes of LZW: its largest expansion alone would pass the
    // content cap, so the page is measured by decoding it.
    let words: Vec<String> =
        (0..4_000u32).map(|i| format!("w{:x}q{}", i.wrapping_mul(2_654_435_761), i % 97)).collect();
    let mut content = String::from("BT /F1 1 Tf 1.5 TL 72 720 Td\n");
    for line in words.chunks(10) {
        content.push_str(&format!("({}) Tj T*\n", line.join(" ")));
    }
    content.push_str("ET");
    let pdf = PdfSpec::text(&[]).lzw_page(content.as_bytes()).build();
    assert!(pdf.len() > 20_000, "{}", pdf.len());
    let converted = pdf_to_markdown(&pdf, &PdfLimits::default()).unwrap();
    assert_eq!(converted.info.pages_skipped, Vec::<usize>::new());
    for word in [&words[0], &words[1_999], &words[3_999]] {
        assert!(converted.markdown.contains(word.as_str()), "{word} in {}", &converted.markdown[..200]);
    }
}

#[test]
fn a_page_just_within_the_caps_is_read() {
    // Each code can make eight characters: 124,000 codes are within the
    // cap, 126,000 are not.
    let pdf = PdfSpec::text(&[]).drawn_page(&characters(124_000)).drawn_page(&characters(126_000)).build();
    let converted = pdf_to_markdown(&pdf, &PdfLimits::default()).unwrap();
    assert_eq!(converted.info.pages_skipped, [2]);
    assert!(converted.markdown.contains("xxxxxxxx"), "{}", converted.markdown);
    const { assert!(126_000 * 8 > MAX_PAGE_CHARS && 124_000 * 8 < MAX_PAGE_CHARS) };
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

/// A page within the caps that costs the most they allow with a plain
/// font: a `TJ` array of 990,000 offsets, each a space, and paths to
/// nearly 64 MiB of content.
fn dense() -> Vec<u8> {
    let mut content = b"BT /F1 1 Tf 10 10 Td [".to_vec();
    content.extend_from_slice(&b"-2000 ".repeat(990_000));
    content.extend_from_slice(b"] TJ ET\n");
    content.extend_from_slice(&b"0 0 m 1 1 l S\n".repeat(4_300_000));
    PdfSpec::text(&[&["A page of text."]]).drawn_page(&content).build()
}

/// The child side of the memory test: converts one named PDF and prints
/// its peak resident size.
#[test]
fn memory_child() {
    let Ok(name) = std::env::var("WEBCANON_PDF_CASE") else { return };
    let pdf = match name.as_str() {
        "bombed" => bombed(),
        "dense" => dense(),
        other => panic!("unknown case {other}"),
    };
    // The peak so far includes building the PDF; reset it where the kernel
    // allows, so that the conversion's own peak is what is measured.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = peak_kib();
    let converted = pdf_to_markdown(&pdf, &PdfLimits { time_limit: Duration::from_secs(600), ..PdfLimits::default() });
    std::hint::black_box(&converted);
    println!("PEAK {before} {} {}", peak_kib(), pdf.len());
}

/// A conversion's peak grows by at most 320 MiB plus twice the file for a
/// page at both caps (README.md states 512 MiB for any PDF: this, and the
/// reader's object and form caches, capped by the reader, which these
/// PDFs do not fill). A PDF whose pages could draw millions of characters
/// took 1.27 GB before such pages were left out.
#[test]
fn pdf_conversions_stay_within_the_stated_memory_ceiling() {
    let exe = std::env::current_exe().unwrap();
    for case in ["bombed", "dense"] {
        let out = Command::new(&exe)
            .args(["--exact", "memory_child", "--nocapture", "--test-threads", "1"])
            .env("WEBCANON_PDF_CASE", case)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout.split("PEAK ").nth(1).unwrap_or_else(|| panic!("{case}: {stdout}"));
        let numbers: Vec<usize> = line.split_whitespace().take(3).map(|n| n.parse().unwrap()).collect();
        let (before, after, size) = (numbers[0], numbers[1], numbers[2]);
        let grown = after.saturating_sub(before) * 1024;
        eprintln!("{case}: peak grew by {} KiB for a {} KiB PDF", grown >> 10, size >> 10);
        assert!(grown <= (320 << 20) + 2 * size, "{case}: peak grew by {} MiB", grown >> 20);
    }
}

/// Issue 30: page trees the reader would walk without end (a graph of
/// 2^30 leaves in 3 KB took 25 minutes) or by deep recursion are refused
/// before it walks them.
#[test]
fn issue_30_page_trees_that_are_graphs_or_too_deep_are_refused_unwalked() {
    let started = Instant::now();
    let graph = pdf_to_markdown(&bombs::page_graph(30), &PdfLimits::default());
    assert_eq!(graph.unwrap_err(), PdfError::Broken("its page tree lists object 5 more than once".into()));
    let deep = pdf_to_markdown(&bombs::nested_page_tree(1_000), &PdfLimits::default());
    assert_eq!(deep.unwrap_err(), PdfError::Broken("its page tree is nested deeper than 64".into()));
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

/// Issue 30: fonts that share one ToUnicode stream inflating to 255 MiB
/// (each font decoded it again: gigabytes for eight), and `bfrange` lines
/// of 10,001 codes each (1.8 GB and 20 s for 15 KB), count against the
/// page's content cap: the page is left out, unread.
#[test]
fn issue_30_fonts_whose_cmaps_cost_more_than_the_page_cap_are_left_out() {
    let left_out = [SkippedPage { page: 1, over: PageCap::Content }];
    for (name, pdf) in [
        ("eight fonts", bombs::shared_to_unicode(8, 255)),
        ("two hundred fonts", bombs::shared_to_unicode(200, 255)),
        ("bfrange", bombs::bfrange_expansion(13_000)),
        ("bfrange, 700 lines", bombs::bfrange_expansion(700)),
    ] {
        let started = Instant::now();
        let converted = pdf_to_markdown(&pdf, &PdfLimits::default()).unwrap();
        assert_eq!(converted.skipped, left_out, "{name}");
        assert!(started.elapsed() < Duration::from_secs(8), "{name}: {:?}", started.elapsed());
    }
    // Within the cap: read.
    let converted = pdf_to_markdown(&bombs::shared_to_unicode(2, 1), &PdfLimits::default()).unwrap();
    assert_eq!(converted.skipped, []);
    let converted = pdf_to_markdown(&bombs::bfrange_expansion(50), &PdfLimits::default()).unwrap();
    assert_eq!(converted.skipped, []);
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
