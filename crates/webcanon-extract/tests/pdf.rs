//! PDFs: the conversion's defined outcomes (text, code, metadata, pages cut,
//! time cut, encrypted, truncated, no pages, no text layer, a page tree
//! that lies, pages left out for their cost), and the memory a conversion
//! takes, measured in a child process.

use std::process::Command;
use std::time::{Duration, Instant};

use webcanon_extract::pdf::{
    self, MAX_PAGE_CHARS, PageCap, PageSink, PdfCut, PdfError, PdfInfo, PdfLimits, Progress, SkippedPage,
};
use webcanon_extract::{ContentFormat, ContentShape};
use webcanon_test::memory::peak_kib;
use webcanon_test::pdf::samples::{bombed, report};
use webcanon_test::pdf::{PdfSpec, bombs, characters};

#[test]
fn text_title_author_and_pages_come_out() {
    let converted = pdf::extract(&report(), &PdfLimits::default()).unwrap();
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
    let md = pdf::extract(&pdf, &PdfLimits::default()).unwrap().markdown;
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
    let converted = pdf::extract(&pdf, &limits).unwrap();
    assert_eq!(converted.cut, Some(PdfCut::Pages));
    assert_eq!((converted.info.pages, converted.info.pages_read), (12, 5));
    assert!(converted.markdown.contains("Page 5 of the long document."));
    assert!(!converted.markdown.contains("Page 6 of"));
}

#[test]
fn a_page_tree_claiming_a_billion_pages_costs_what_it_holds() {
    let pdf = PdfSpec::numbered(3).claiming_pages(1_000_000_000).build();
    let started = Instant::now();
    let outcome = pdf::extract(&pdf, &PdfLimits::default());
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
    let converted = pdf::extract(&pdf, &limits).unwrap();
    assert_eq!(converted.cut, Some(PdfCut::Time));
    assert_eq!((converted.info.pages, converted.info.pages_read), (3, 0));
}

#[test]
fn an_encrypted_pdf_says_so() {
    let pdf = PdfSpec::text(&[&["Secret text."]]).encrypted().build();
    let err = pdf::extract(&pdf, &PdfLimits::default()).unwrap_err();
    assert_eq!(err, PdfError::Encrypted);
}

#[test]
fn a_truncated_pdf_is_an_error_or_its_readable_part_never_a_panic() {
    let pdf = report();
    for cut in [10, pdf.len() / 3, pdf.len() / 2, pdf.len() - 40] {
        match pdf::extract(&pdf[..cut], &PdfLimits::default()) {
            Ok(converted) => assert!(converted.info.pages_read <= 2),
            Err(err) => assert!(matches!(err, PdfError::Broken(_) | PdfError::NoPages), "{cut}: {err:?}"),
        }
    }
    assert!(matches!(pdf::extract(b"%PDF-1.4\n", &PdfLimits::default()), Err(PdfError::Broken(_))));
}

#[test]
fn a_pdf_without_pages_is_an_error() {
    let pdf = PdfSpec::text(&[]).build();
    assert_eq!(pdf::extract(&pdf, &PdfLimits::default()).unwrap_err(), PdfError::NoPages);
}

#[test]
fn a_scan_without_a_text_layer_has_no_text_and_says_so() {
    let pdf = PdfSpec::image_only(2).title("Scanned").build();
    let converted = pdf::extract(&pdf, &PdfLimits::default()).unwrap();
    assert!(converted.no_text_layer);
    assert_eq!(converted.markdown, "");
    assert_eq!(converted.info.pages_read, 2);
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
        let outcome = pdf::extract(&bytes, &PdfLimits::default());
        assert!(started.elapsed() < Duration::from_secs(5), "round {round}: {:?}", started.elapsed());
        if let Ok(converted) = outcome {
            assert!(converted.info.pages_read <= converted.info.pages, "round {round}");
        }
    }
}

#[test]
fn pages_that_could_draw_millions_of_characters_are_left_out_and_the_others_read() {
    let pdf = bombed();
    assert!(pdf.len() < 256 << 10, "{} bytes", pdf.len());
    let started = Instant::now();
    let converted = pdf::extract(&pdf, &PdfLimits::default()).unwrap();
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
        let converted = pdf::extract(&pdf, &PdfLimits::default()).unwrap();
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
    let converted = pdf::extract(&pdf, &PdfLimits::default()).unwrap();
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
    let converted = pdf::extract(&pdf, &PdfLimits::default()).unwrap();
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
    let converted = pdf::extract(&pdf, &PdfLimits::default()).unwrap();
    assert_eq!(converted.info.pages_skipped, [2]);
    assert!(converted.markdown.contains("xxxxxxxx"), "{}", converted.markdown);
    const { assert!(126_000 * 8 > MAX_PAGE_CHARS && 124_000 * 8 < MAX_PAGE_CHARS) };
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
    let converted = pdf::extract(&pdf, &PdfLimits { time_limit: Duration::from_secs(600), ..PdfLimits::default() });
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
    let graph = pdf::extract(&bombs::page_graph(30), &PdfLimits::default());
    assert_eq!(graph.unwrap_err(), PdfError::Broken("its page tree lists object 5 more than once".into()));
    let deep = pdf::extract(&bombs::nested_page_tree(1_000), &PdfLimits::default());
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
        let converted = pdf::extract(&pdf, &PdfLimits::default()).unwrap();
        assert_eq!(converted.skipped, left_out, "{name}");
        assert!(started.elapsed() < Duration::from_secs(8), "{name}: {:?}", started.elapsed());
    }
    // Within the cap: read.
    let converted = pdf::extract(&bombs::shared_to_unicode(2, 1), &PdfLimits::default()).unwrap();
    assert_eq!(converted.skipped, []);
    let converted = pdf::extract(&bombs::bfrange_expansion(50), &PdfLimits::default()).unwrap();
    assert_eq!(converted.skipped, []);
}

/// A sink that collects pages and stops waiting once it holds `after`.
struct StopAfter {
    pages: Progress,
    after: usize,
}

impl PageSink for StopAfter {
    fn info(&self, info: PdfInfo) {
        self.pages.info(info);
    }

    fn page(&self, text: String) {
        self.pages.page(text);
    }

    fn skipped(&self, page: SkippedPage) {
        self.pages.skipped(page);
    }

    fn stopped(&self) -> bool {
        self.pages.pages_so_far().len() >= self.after
    }
}

#[test]
fn a_sink_that_stops_waiting_cuts_the_reading_before_the_next_page() {
    let sink = StopAfter { pages: Progress::default(), after: 2 };
    let cut = pdf::extract_into(PdfSpec::numbered(5).build(), &PdfLimits::default(), &sink).unwrap();
    assert_eq!(cut, Some(PdfCut::Time));
    let converted = sink.pages.finish(cut);
    assert_eq!((converted.info.pages, converted.info.pages_read), (5, 2));
    assert!(converted.markdown.ends_with("Page 2 of the long document."), "{}", converted.markdown);
}

/// A sink that fails on the first page it is given.
struct Failing;

impl PageSink for Failing {
    fn info(&self, _: PdfInfo) {}

    fn page(&self, _: String) {
        panic!("a sink that fails");
    }

    fn skipped(&self, _: SkippedPage) {}

    fn stopped(&self) -> bool {
        false
    }
}

#[test]
fn a_panic_while_reading_is_an_outcome_not_an_unwind() {
    let outcome = pdf::extract_into(report(), &PdfLimits::default(), &Failing);
    assert_eq!(outcome, Err(PdfError::ReaderFailed));
}
