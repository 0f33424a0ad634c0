//! Main-text extraction pinned case by case, as rust-url pins the URL
//! standard: every snippet of the development set (`shared/corpus/
//! extraction`: a `with` snippet must appear in the text, a `without` one
//! must not), every page of the article set (`shared/corpus/
//! extraction-articles`: word 4-shingle F1 against the whole article body)
//! and a few PDFs of known text (licences printed by Chromium) against a
//! checked-in list of the cases known to fail, `tests/data/
//! extraction-known-failures.txt`, and a floor for each set's score.
//!
//! The test fails when an unlisted case starts failing (a rule broke a
//! page) and when a listed case starts passing (a rule fixed one: take it
//! off the list, so it cannot break again unseen). After a change that
//! moves cases on purpose, write the list anew and read its diff:
//!
//! ```text
//! WEBCANON_PIN_UPDATE=1 cargo test -p webcanon-extract --test extraction_pinned
//! ```
//!
//! Texts are scored as `benches/extraction/compare.py` scores them (the
//! same normalisation: link and image targets dropped, emphasis and heading
//! markers removed, white space collapsed), so the floors here and the
//! benchmark's figures speak of the same thing. The benchmark compares
//! extractors; this test keeps one from sliding back.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;
use url::Url;
use webcanon_extract::charset;
use webcanon_extract::html::{self, HtmlLimits};
use webcanon_extract::pdf::{self, PdfLimits};
use webcanon_extract::{ContentFormat, ContentShape, ImageStyle, LinkStyle};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");
const KNOWN_FAILURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/extraction-known-failures.txt");

/// The development set's snippet F1 (precision and recall over all
/// snippets) may not fall below this.
const DEV_F1_FLOOR: f64 = 0.920;
/// The article set's mean shingle F1 may not fall below this.
const ARTICLES_F1_FLOOR: f64 = 0.955;
/// Each known-text PDF's shingle F1 may not fall below this.
const PDF_F1_FLOOR: f64 = 0.98;
/// An article page passes when its shingle F1 reaches this.
const ARTICLE_PASS: f64 = 0.8;

#[test]
fn extraction_is_pinned_case_by_case() {
    let dev = dev_set();
    let articles = article_set();
    let pdfs = known_text_pdfs();

    let mut failing: BTreeSet<String> = BTreeSet::new();
    failing.extend(dev.failing.iter().cloned());
    failing.extend(articles.failing.iter().cloned());
    if let Some(pdfs) = &pdfs {
        failing.extend(pdfs.failing.iter().cloned());
    }
    eprintln!(
        "development set: snippet F1 {:.4} ({} of {} cases failing); article set: shingle F1 {:.4} ({} of {} pages under {ARTICLE_PASS})",
        dev.f1,
        dev.failing.len(),
        dev.cases,
        articles.f1,
        articles.failing.len(),
        articles.cases
    );
    if let Some(pdfs) = &pdfs {
        eprintln!("known-text PDFs: shingle F1 {}", pdfs.summary);
    }

    if std::env::var_os("WEBCANON_PIN_UPDATE").is_some() {
        write_known_failures(&failing, pdfs.is_some());
        eprintln!("wrote {KNOWN_FAILURES}");
        return;
    }

    let known = read_known_failures();
    // Without a browser the PDFs are not printed; their listed cases are
    // then neither checked nor reported as passing.
    let known: BTreeSet<String> =
        known.into_iter().filter(|case| pdfs.is_some() || !case.starts_with("pdf ")).collect();
    let failing_names: BTreeSet<String> = failing.iter().map(|line| case_name(line).to_string()).collect();
    let broke: Vec<&String> = failing.iter().filter(|line| !known.contains(case_name(line))).collect();
    let fixed: Vec<&String> = known.difference(&failing_names).collect();
    let mut problems = Vec::new();
    if !broke.is_empty() {
        problems.push(format!(
            "{} case(s) now fail that passed (a rule broke them):\n  {}",
            broke.len(),
            broke.iter().map(|c| c.as_str()).collect::<Vec<_>>().join("\n  ")
        ));
    }
    if !fixed.is_empty() {
        problems.push(format!(
            "{} listed case(s) now pass (take them off the list):\n  {}",
            fixed.len(),
            fixed.iter().map(|c| c.as_str()).collect::<Vec<_>>().join("\n  ")
        ));
    }
    for (set, outcome) in [("development", &dev), ("article", &articles)] {
        if !outcome.leaks.is_empty() {
            problems.push(format!(
                "{} page(s) of the {set} set keep link or image syntax with links and images dropped:\n  {}",
                outcome.leaks.len(),
                outcome.leaks.join("\n  ")
            ));
        }
    }
    if dev.f1 < DEV_F1_FLOOR {
        problems.push(format!("development set F1 {:.4} is under its floor {DEV_F1_FLOOR}", dev.f1));
    }
    if articles.f1 < ARTICLES_F1_FLOOR {
        problems.push(format!("article set F1 {:.4} is under its floor {ARTICLES_F1_FLOOR}", articles.f1));
    }
    if let Some(pdfs) = &pdfs {
        for (name, f1) in &pdfs.scores {
            if *f1 < PDF_F1_FLOOR {
                problems.push(format!("known-text PDF {name}: F1 {f1:.4} is under its floor {PDF_F1_FLOOR}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n\nIf the change is meant, write the list anew (WEBCANON_PIN_UPDATE=1) and read its diff.",
        problems.join("\n\n")
    );
}

/// One set's outcome: the failing cases by name, how many cases, its F1,
/// and the pages whose text shape leaks Markdown.
struct SetOutcome {
    failing: Vec<String>,
    cases: usize,
    f1: f64,
    leaks: Vec<String>,
}

/// A set's pages (`KEY` → `FOLDER/KEY.html.gz`, with the page's URL)
/// converted: each page's text in the default content shape, and the pages
/// whose shapes leak Markdown ([`shape_leaks`]).
fn convert_set<'a>(
    pages: impl Iterator<Item = (&'a String, &'a PathBuf, Option<String>)>,
) -> (HashMap<String, String>, Vec<String>) {
    let pages: Vec<(String, PathBuf, Option<String>)> =
        pages.map(|(key, folder, url)| (key.clone(), folder.join(format!("{key}.html.gz")), url)).collect();
    let converted = convert_all(&pages);
    let leaks = shape_leaks(&converted);
    let texts = converted.into_iter().map(|(key, markdown)| (key, ContentShape::default().apply(&markdown))).collect();
    (texts, leaks)
}

/// The pages whose shape without links and images still holds link or
/// image syntax (`](`, `![`) outside code: the text shape, and the
/// Markdown shape (whose fences tell a page's code blocks apart, which the
/// text shape keeps without them).
fn shape_leaks(converted: &HashMap<String, String>) -> Vec<String> {
    let text = ContentShape { format: ContentFormat::Text, links: LinkStyle::Drop, images: ImageStyle::Drop };
    let markdown = ContentShape { format: ContentFormat::Markdown, links: LinkStyle::Drop, images: ImageStyle::Drop };
    let leaked = |shaped: &str| {
        let prose = without_code(shaped);
        prose.contains("](") || prose.contains("![")
    };
    let mut leaks: Vec<String> = converted
        .iter()
        .filter(|(_, page)| {
            let has_blocks =
                page.lines().any(|l| l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~"));
            leaked(&markdown.apply(page)) || (!has_blocks && leaked(&text.apply(page)))
        })
        .map(|(key, _)| key.clone())
        .collect();
    leaks.sort();
    leaks
}

/// Markdown without its fenced blocks and inline code spans.
fn without_code(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut fence: Option<String> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        let run = trimmed.chars().take_while(|&c| c == '`' || c == '~').collect::<String>();
        match &fence {
            Some(open) => {
                if trimmed.trim_end() == open.as_str()
                    || (run.starts_with(open.as_str()) && run.len() == trimmed.trim_end().len())
                {
                    fence = None;
                }
                continue;
            }
            None if run.len() >= 3 => {
                fence = Some(run);
                continue;
            }
            None => {}
        }
        let mut rest = line;
        while let Some(start) = rest.find('`') {
            out.push_str(&rest[..start]);
            let ticks = rest[start..].bytes().take_while(|&b| b == b'`').count();
            let after = &rest[start + ticks..];
            match after.find(&rest[start..start + ticks]) {
                Some(end) => rest = &after[end + ticks..],
                None => {
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

fn dev_set() -> SetOutcome {
    let folder = Path::new(CORPUS).join("extraction");
    let snippets: BTreeMap<String, DevPage> =
        serde_json::from_slice(&std::fs::read(folder.join("snippets.json")).expect("snippets.json")).expect("snippets");
    let pages = folder.join("pages");
    let (texts, leaks) = convert_set(snippets.iter().map(|(key, page)| (key, &pages, page.url.clone())));
    let (mut tp, mut fn_, mut fp) = (0usize, 0usize, 0usize);
    let mut failing = Vec::new();
    let mut cases = 0;
    for (key, page) in &snippets {
        let text = normalise(&texts[key]);
        for (index, snippet) in page.with.iter().enumerate() {
            cases += 1;
            if text.contains(&normalise(snippet)) {
                tp += 1;
            } else {
                fn_ += 1;
                failing.push(format!("dev {key} with {index}: {}", preview(snippet)));
            }
        }
        for (index, snippet) in page.without.iter().enumerate() {
            cases += 1;
            if text.contains(&normalise(snippet)) {
                fp += 1;
                failing.push(format!("dev {key} without {index}: {}", preview(snippet)));
            }
        }
    }
    let precision = tp as f64 / (tp + fp).max(1) as f64;
    let recall = tp as f64 / (tp + fn_).max(1) as f64;
    SetOutcome { failing, cases, f1: harmonic(precision, recall), leaks }
}

#[derive(serde::Deserialize)]
struct DevPage {
    url: Option<String>,
    #[serde(default)]
    with: Vec<String>,
    #[serde(default)]
    without: Vec<String>,
}

#[derive(serde::Deserialize)]
struct Article {
    #[serde(rename = "articleBody", default)]
    body: String,
    url: Option<String>,
}

fn article_set() -> SetOutcome {
    let folder = Path::new(CORPUS).join("extraction-articles");
    let truth: BTreeMap<String, Article> =
        serde_json::from_slice(&std::fs::read(folder.join("ground-truth.json")).expect("ground-truth.json"))
            .expect("ground truth");
    let pages = folder.join("html");
    let (texts, leaks) = convert_set(truth.iter().map(|(key, article)| (key, &pages, article.url.clone())));
    let (mut precisions, mut recalls) = (Vec::new(), Vec::new());
    let mut failing = Vec::new();
    for (key, article) in &truth {
        let Some(score) = shingle_score(&article.body, &normalise(&texts[key])) else { continue };
        precisions.extend(score.precision);
        recalls.extend(score.recall);
        let f1 = harmonic(score.precision.unwrap_or(0.0), score.recall.unwrap_or(0.0));
        if f1 < ARTICLE_PASS {
            failing.push(format!("article {key}: under {ARTICLE_PASS}"));
        }
    }
    let f1 = harmonic(mean(&precisions), mean(&recalls));
    SetOutcome { failing, cases: truth.len(), f1, leaks }
}

/// The known-text PDFs' outcome.
struct PdfOutcome {
    failing: Vec<String>,
    scores: Vec<(String, f64)>,
    summary: String,
}

/// Licences from `/usr/share/common-licenses` printed by headless Chromium
/// in one column and in two (which a reader must take one after the
/// other), converted and scored against their paragraphs. `None` without
/// a browser or the licences (the browser's absence fails the run where
/// `WEBCANON_REQUIRE_CHROMIUM` is set).
fn known_text_pdfs() -> Option<PdfOutcome> {
    const LICENCES: &[(&str, &str)] =
        &[("Apache-2.0", ""), ("MPL-2.0", "body{columns:2;column-gap:2.5em;font-size:11pt}"), ("LGPL-2.1", "")];
    let chromium = webcanon_test::chromium()?;
    let folder = tempfile_dir();
    let mut failing = Vec::new();
    let mut scores = Vec::new();
    for (name, style) in LICENCES {
        let Ok(text) = std::fs::read_to_string(Path::new("/usr/share/common-licenses").join(name)) else {
            eprintln!("note: /usr/share/common-licenses/{name} is absent; known-text PDFs skipped");
            return None;
        };
        let paragraphs: Vec<String> = text
            .split("\n\n")
            .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|p| !p.is_empty())
            .collect();
        let body: String = paragraphs.iter().map(|p| format!("<p>{}</p>\n", escape_html(p))).collect();
        let source = folder.join(format!("{name}.html"));
        let pdf = folder.join(format!("{name}.pdf"));
        std::fs::write(
            &source,
            format!(
                "<!doctype html><meta charset=utf-8><title>{name}</title><style>{style}</style><body>{body}</body>"
            ),
        )
        .expect("write the page");
        let status = std::process::Command::new(&chromium)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer", "--no-first-run"])
            .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
            .arg(format!("--user-data-dir={}", folder.join("profile").display()))
            .arg(format!("--print-to-pdf={}", pdf.display()))
            .arg(Url::from_file_path(&source).expect("an absolute path").as_str())
            .output()
            .expect("run Chromium");
        assert!(status.status.success() && pdf.is_file(), "Chromium did not print {name}: {status:?}");
        let limits = PdfLimits { time_limit: Duration::from_secs(120), ..PdfLimits::default() };
        let converted = pdf::extract(&std::fs::read(&pdf).expect("the PDF"), &limits).expect("a readable PDF");
        let truth = paragraphs.join("\n\n");
        let score = shingle_score(&truth, &normalise(&converted.markdown)).expect("text on both sides");
        let f1 = harmonic(score.precision.unwrap_or(0.0), score.recall.unwrap_or(0.0));
        let case = if style.is_empty() { name.to_string() } else { format!("{name} in two columns") };
        if f1 < PDF_F1_FLOOR {
            failing.push(format!("pdf {case}: under {PDF_F1_FLOOR}"));
        }
        scores.push((case, f1));
    }
    let _ = std::fs::remove_dir_all(&folder);
    let summary = scores.iter().map(|(name, f1)| format!("{name} {f1:.4}")).collect::<Vec<_>>().join(", ");
    Some(PdfOutcome { failing, scores, summary })
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webcanon-pinned-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Each page converted as `webcanon fetch` converts it (charset decoding,
/// HTML to Markdown; the Markdown as converted), on every core. The
/// conversion's wall-clock cap is raised: this is an unoptimised build on
/// a shared machine, and a page cut by the clock would be scored on what a
/// release build never returns.
fn convert_all(pages: &[(String, PathBuf, Option<String>)]) -> HashMap<String, String> {
    let limits = HtmlLimits { time_limit: Duration::from_secs(120), ..HtmlLimits::default() };
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = pages.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = pages
            .chunks(chunk)
            .map(|part| {
                let limits = &limits;
                scope.spawn(move || {
                    part.iter()
                        .map(|(key, path, url)| {
                            let body = read_gzip(path);
                            let url = url.as_deref().and_then(|u| Url::parse(u).ok());
                            let base = url.clone().unwrap_or_else(|| Url::parse("https://example.invalid/").unwrap());
                            let text = charset::decode(&body, Some("text/html"), url.as_ref()).text;
                            let converted = html::extract(&text, &base, limits);
                            (key.clone(), converted.markdown)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a conversion thread")).collect()
    })
}

fn read_gzip(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut body = Vec::new();
    flate2::read::GzDecoder::new(file).read_to_end(&mut body).expect("a gzip page");
    body
}

// --- scoring, as benches/extraction/compare.py scores ----------------------

static IMAGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"!\[([^\]]*)\]\((?:<[^>]*>|[^)\s]*)(?:\s+"[^"]*")?\)"#).unwrap());
static LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\[([^\]]*)\]\((?:<[^>]*>|[^)\s]*)(?:\s+"[^"]*")?\)"#).unwrap());
static REF_LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[([^\]]+)\]\[\d+\]").unwrap());
static REF_DEF: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?m)^\s*\[\d+\]:\s+\S+.*$").unwrap());
static HEADING: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?m)^\s{0,3}#{1,6}\s+").unwrap());

/// Link and image targets dropped (their text kept), reference
/// definitions, heading and emphasis markers removed, white space
/// collapsed.
fn normalise(text: &str) -> String {
    let text = IMAGE.replace_all(text, "$1");
    let text = LINK.replace_all(&text, "$1");
    let text = REF_LINK.replace_all(&text, "$1");
    let text = REF_DEF.replace_all(&text, "");
    let text = HEADING.replace_all(&text, "");
    let text = strip_emphasis(&text);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `**`, `__`, `*`, `~~` and backticks removed, and `_` where a word
/// character is not on both sides of it.
fn strip_emphasis(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '*' if next == Some('*') => i += 2,
            '_' if next == Some('_') => i += 2,
            '~' if next == Some('~') => i += 2,
            '*' | '`' => i += 1,
            '_' => {
                let before = i.checked_sub(1).map(|j| chars[j]).is_some_and(is_word);
                let after = next.is_some_and(is_word);
                if !(before && after) {
                    i += 1;
                } else {
                    out.push(c);
                    i += 1;
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Word 4-shingles, counted.
fn shingles(text: &str) -> HashMap<Vec<&str>, usize> {
    let tokens: Vec<&str> = text.split(|c: char| !is_word(c)).filter(|t| !t.is_empty()).collect();
    let mut counts = HashMap::new();
    if tokens.is_empty() {
        return counts;
    }
    for i in 0..tokens.len().saturating_sub(3).max(1) {
        let end = (i + 4).min(tokens.len());
        *counts.entry(tokens[i..end].to_vec()).or_insert(0) += 1;
    }
    counts
}

/// A page's shingle precision and recall, each absent where the
/// benchmark leaves it out of its mean.
struct ShingleScore {
    precision: Option<f64>,
    recall: Option<f64>,
}

fn shingle_score(truth: &str, predicted: &str) -> Option<ShingleScore> {
    let truth = shingles(truth);
    let predicted = shingles(predicted);
    let tp: usize = truth.iter().map(|(k, c)| (*c).min(predicted.get(k).copied().unwrap_or(0))).sum();
    let fp = predicted.values().sum::<usize>() - tp;
    let fn_ = truth.values().sum::<usize>() - tp;
    if tp + fp + fn_ == 0 {
        return None;
    }
    let precision = (tp + fp > 0).then(|| if fp == 0 && fn_ == 0 { 1.0 } else { tp as f64 / (tp + fp) as f64 });
    let recall = (tp + fn_ > 0).then(|| tp as f64 / (tp + fn_) as f64);
    Some(ShingleScore { precision, recall })
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() { 0.0 } else { values.iter().sum::<f64>() / values.len() as f64 }
}

fn harmonic(precision: f64, recall: f64) -> f64 {
    if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) }
}

/// The first words of a snippet, to make a listed case readable.
fn preview(snippet: &str) -> String {
    let flat: String = snippet.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut cut: String = flat.chars().take(60).collect();
    if cut.len() < flat.len() {
        cut.push('…');
    }
    cut
}

// --- the list --------------------------------------------------------------

/// A case's name: the list's line up to the first `:` (the rest is a
/// preview for people).
fn case_name(line: &str) -> &str {
    line.split_once(':').map_or(line, |(name, _)| name).trim()
}

fn read_known_failures() -> BTreeSet<String> {
    let text = std::fs::read_to_string(KNOWN_FAILURES).unwrap_or_default();
    text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(|l| case_name(l).to_string()).collect()
}

fn write_known_failures(failing: &BTreeSet<String>, with_pdfs: bool) {
    // Listed PDF cases are kept when no browser printed them this time.
    let mut lines: Vec<String> = failing.iter().cloned().collect();
    if !with_pdfs {
        let old = std::fs::read_to_string(KNOWN_FAILURES).unwrap_or_default();
        lines.retain(|l| !l.starts_with("pdf "));
        lines.extend(old.lines().filter(|l| l.starts_with("pdf ")).map(str::to_string));
    }
    lines.sort();
    let header = "# Extraction cases known to fail, read by tests/extraction_pinned.rs.\n\
                  # A case's name is the text before its first colon; the rest is a preview.\n\
                  # Written by: WEBCANON_PIN_UPDATE=1 cargo test -p webcanon-extract --test extraction_pinned\n";
    std::fs::write(KNOWN_FAILURES, format!("{header}{}\n", lines.join("\n"))).expect("write the list");
}

/// The comparison uses names only: the list's previews may differ.
#[test]
fn a_case_is_named_by_the_text_before_its_colon() {
    assert_eq!(case_name("dev 00358e7b04dad0fd with 2: mit knapper Mehrheit"), "dev 00358e7b04dad0fd with 2");
    assert_eq!(case_name("article abc: under 0.8"), "article abc");
    assert_eq!(normalise("## A [link](https://x/) and **bold** snake_case _it_"), "A link and bold snake_case it");
}
