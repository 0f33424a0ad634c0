//! From an HTTP answer to content for an LLM: decode, convert, and collect
//! usage signals from the headers and the `<head>`.

use webcanon_core::signals::{
    UsageWarning, content_usage_warnings, parse_content_usage_header, parse_meta_robots, parse_preferences,
    parse_tdm_reservation, parse_x_robots_tag, preference_warnings, robots_warnings,
};

use url::Url;

use webcanon_extract::html::{self, Comments, Extracted, HeadTag, HtmlLimits, LinkLimits, Metadata, Method, PageLinks};
use webcanon_extract::pdf::{
    ConvertedPdf, MAX_PAGE_CHARS, MAX_PAGE_CONTENT, PageCap, PdfCut, PdfInfo, PdfLimits, SkippedPage, is_pdf,
};

use crate::conversion::conversion_permit;
use crate::error::FetchError;
use crate::http::Answer;
use crate::pdf::{PdfWorker, convert_in_worker};
use crate::warning::{Warning, WarningCode, WarningSource};

/// What the client asks for when it takes no hints: HTML or Markdown,
/// then any text.
pub(crate) const ACCEPT: &str =
    "text/html, application/xhtml+xml;q=0.9, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.1";

/// What the client asks for when it looks for Markdown alternatives:
/// Markdown first, so that a server that negotiates content answers with its
/// Markdown copy directly.
pub(crate) const ACCEPT_MARKDOWN_FIRST: &str =
    "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.1";

/// Whether an answer is Markdown (or plain text that is not an HTML page):
/// what an alternative must be to replace the page.
pub(crate) fn is_markdown(answer: &Answer) -> bool {
    let essence = essence(answer.header("content-type"));
    let markdown_type = essence.as_deref().is_some_and(html::is_markdown_media_type);
    markdown_type && !webcanon_core::sniff::looks_like_html(&answer.body)
}

/// The content and what was learned from it.
#[derive(Debug)]
pub(crate) struct Page {
    pub content: String,
    pub title: Option<String>,
    pub canonical_url: Option<String>,
    /// `rel="alternate" type="text/markdown"` targets (`<link>` and `Link:`).
    pub markdown_alternates: Vec<Url>,
    /// `rel="describedby"` targets (`<link>` and `Link:`): the page's llms.txt.
    pub described_by: Vec<Url>,
    /// RSL license documents the page names (`rel="license"
    /// type="application/rsl+xml"`, `Link:` first, then `<link>`).
    pub licenses: Vec<Url>,
    pub warnings: Vec<Warning>,
    /// Whether `content` is Markdown (converted HTML, or a Markdown or
    /// plain-text answer), which the content shape applies to; JSON, XML
    /// and other text are left as served.
    pub markdown: bool,
    /// Title, author and pages, when the answer was a PDF.
    pub pdf: Option<PdfInfo>,
    /// What the page says about itself (an HTML page's `<head>` and
    /// JSON-LD, a PDF's title and author).
    pub metadata: Metadata,
    /// Whether the answer was an HTML page (what rendering applies to).
    pub html: bool,
    /// The links of an HTML page (empty for other content).
    pub links: PageLinks,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Text,
}

/// The media type of `content_type`, lower-cased, without parameters.
fn essence(content_type: Option<&str>) -> Option<String> {
    content_type.map(|t| t.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
}

fn kind_of(essence: Option<&str>, body: &[u8]) -> Option<Kind> {
    match essence {
        Some("text/html" | "application/xhtml+xml") => Some(Kind::Html),
        Some(t) if t.starts_with("text/") => Some(Kind::Text),
        Some(
            "application/json"
            | "application/xml"
            | "application/ld+json"
            | "application/rss+xml"
            | "application/atom+xml",
        ) => Some(Kind::Text),
        Some(t) if t.ends_with("+json") || t.ends_with("+xml") => Some(Kind::Text),
        Some(t) if !t.is_empty() && t != "application/octet-stream" => None,
        // No type (or a generic one): look at the bytes.
        _ => {
            let head = &body[..body.len().min(1024)];
            if memchr::memchr(0, head).is_some() {
                None
            } else if head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<') {
                Some(Kind::Html)
            } else {
                Some(Kind::Text)
            }
        }
    }
}

/// Decodes `body` by the rules of [`webcanon_extract::charset`].
pub(crate) fn decode_body(body: &[u8], content_type: Option<&str>, url: Option<&Url>) -> String {
    webcanon_extract::charset::decode(body, content_type, url).text
}

/// The links of the HTML page `text` (fetched from `url`), read on a
/// blocking thread (linear in the page, at most [`LinkLimits::max_links`]
/// kept); the text is handed back for the conversion.
async fn read_links(text: String, url: &Url) -> Result<(String, PageLinks), tokio::task::JoinError> {
    let url = url.clone();
    tokio::task::spawn_blocking(move || {
        let links = html::read_links(&text, &url, &LinkLimits::default());
        (text, links)
    })
    .await
}

/// HTML to Markdown on a blocking thread, within the limits' wall-clock cap:
/// past it, the page's text from the linear tag stripper (the converter's
/// own inputs are capped so that the abandoned thread ends soon after).
///
/// Tree conversions take a [`conversion_permit`]: at most one per core at
/// a time, process-wide.
async fn convert_html(
    text: String,
    url: &url::Url,
    limits: HtmlLimits,
    comments: Comments,
) -> Result<Extracted, tokio::task::JoinError> {
    let convert = move |page: &str, base: &Url, limits: &HtmlLimits| html::extract_with(page, base, limits, comments);
    convert_html_with(text, url, limits, convert).await
}

/// [`convert_html`] with the tree conversion given (tests give a slow one).
async fn convert_html_with(
    text: String,
    url: &url::Url,
    limits: HtmlLimits,
    convert: impl FnOnce(&str, &Url, &HtmlLimits) -> Extracted + Send + 'static,
) -> Result<Extracted, tokio::task::JoinError> {
    let text = std::sync::Arc::new(text);
    let (html, base) = (text.clone(), url.clone());
    let permit = conversion_permit().await;
    // The permit goes with the work: a conversion abandoned at its time
    // limit still counts until its thread ends.
    let full = tokio::task::spawn_blocking(move || {
        let converted = convert(&html, &base, &limits);
        drop(permit);
        converted
    });
    match tokio::time::timeout(limits.time_limit, full).await {
        Ok(converted) => converted,
        Err(_) => {
            let base = url.clone();
            tokio::task::spawn_blocking(move || html::text_only(&text, &base)).await
        }
    }
}

/// Converts an answer for `agent`, a PDF in a worker process when there is
/// one, an HTML page's comments as `comments` says.
pub(crate) async fn convert(
    answer: &Answer,
    agent: &str,
    pdf_worker: Option<&PdfWorker>,
    comments: Comments,
) -> Result<Page, FetchError> {
    let content_type = answer.header("content-type");
    let essence = essence(content_type);
    if is_pdf(essence.as_deref(), &answer.body) {
        return convert_pdf(answer, agent, pdf_worker).await;
    }
    let kind = kind_of(essence.as_deref(), &answer.body).ok_or_else(|| FetchError::UnsupportedContent {
        url: answer.url.to_string(),
        content_type: content_type.unwrap_or("binary data").to_string(),
    })?;
    let text = decode_body(&answer.body, content_type, Some(&answer.url));
    let mut warnings = header_warnings(answer, agent);
    let page = match kind {
        Kind::Text => Page {
            markdown: essence.as_deref().is_none_or(html::is_markdown_media_type),
            content: text,
            title: None,
            canonical_url: link_header(answer, "canonical", None).into_iter().next().map(String::from),
            markdown_alternates: link_header(answer, "alternate", Some("text/markdown")),
            described_by: link_header(answer, "describedby", None),
            licenses: rsl_links(answer, &[]),
            warnings,
            pdf: None,
            metadata: Metadata::default(),
            html: false,
            links: PageLinks::default(),
        },
        Kind::Html => {
            let (text, links) = read_links(text, &answer.url).await.map_err(|e| FetchError::Protocol {
                url: answer.url.to_string(),
                message: format!("reading the links failed: {e}"),
            })?;
            let converted = convert_html(text, &answer.url, HtmlLimits::default(), comments).await.map_err(|e| {
                FetchError::Protocol { url: answer.url.to_string(), message: format!("conversion failed: {e}") }
            })?;
            warnings.extend(meta_warnings(&converted.head, agent));
            if let Some(over) = converted.over_limit {
                warnings.push(Warning::new(
                    WarningCode::HtmlOverLimits,
                    WarningSource::Conversion,
                    format!(
                        "the page was read as text without structure: {} ({} elements, nested {} deep)",
                        over.describe(),
                        converted.elements,
                        converted.depth
                    ),
                ));
            }
            warnings.extend(extraction_empty(&converted));
            let mut markdown_alternates = converted.markdown_alternates;
            markdown_alternates.extend(link_header(answer, "alternate", Some("text/markdown")));
            let mut described_by = converted.described_by;
            described_by.extend(link_header(answer, "describedby", None));
            Page {
                markdown: true,
                content: converted.markdown,
                title: converted.title,
                canonical_url: converted
                    .canonical
                    .or_else(|| link_header(answer, "canonical", None).into_iter().next())
                    .map(String::from),
                markdown_alternates,
                described_by,
                licenses: rsl_links(answer, &converted.head),
                warnings,
                pdf: None,
                metadata: converted.metadata,
                html: true,
                links,
            }
        }
    };
    Ok(dedupe(page))
}

/// The warning of a conversion that found no main text: the content is
/// the page's whole text, or there is no text to give.
fn extraction_empty(converted: &Extracted) -> Option<Warning> {
    let detail = if converted.method == Method::PageText {
        "no main text was found: the content is the page's whole text, navigation, headers and footers included"
    } else if converted.over_limit.is_none() && !html::holds_text(&converted.markdown) {
        "the page shows no text without scripts (it may be built by them: render it)"
    } else {
        return None;
    };
    Some(Warning::new(WarningCode::ExtractionEmpty, WarningSource::Conversion, detail.to_string()))
}

/// A PDF answer: its text on the blocking pool within [`PdfLimits`], the
/// usage signals its headers carry (`X-Robots-Tag` is the only one a PDF
/// can), and a warning when it was cut or has no text layer.
async fn convert_pdf(answer: &Answer, agent: &str, worker: Option<&PdfWorker>) -> Result<Page, FetchError> {
    let limits = PdfLimits::default();
    let converted = match worker {
        Some(worker) => convert_in_worker(worker, &answer.body, limits).await,
        None => crate::pdf::convert(answer.body.clone(), limits).await,
    };
    let converted = converted.map_err(|e| FetchError::Pdf { url: answer.url.to_string(), message: e.to_string() })?;
    let mut warnings = header_warnings(answer, agent);
    warnings.extend(pdf_warnings(&converted, &limits));
    Ok(dedupe(Page {
        content: converted.markdown,
        title: converted.info.title.clone(),
        canonical_url: link_header(answer, "canonical", None).into_iter().next().map(String::from),
        markdown_alternates: link_header(answer, "alternate", Some("text/markdown")),
        described_by: link_header(answer, "describedby", None),
        licenses: rsl_links(answer, &[]),
        warnings,
        markdown: true,
        metadata: pdf_metadata(&converted.info),
        pdf: Some(converted.info),
        html: false,
        links: PageLinks::default(),
    }))
}

/// What a PDF's information dictionary says of it, as page metadata: its
/// title as the headline, its author.
fn pdf_metadata(info: &PdfInfo) -> Metadata {
    let text = |value: &Option<String>| value.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(String::from);
    Metadata { headline: text(&info.title), authors: text(&info.author).into_iter().collect(), ..Metadata::default() }
}

/// The warnings a conversion gives: cut (how far it got), pages left out
/// for their cost, no text layer.
fn pdf_warnings(converted: &ConvertedPdf, limits: &PdfLimits) -> Vec<Warning> {
    let info = &converted.info;
    let mut out = Vec::new();
    let detail = match converted.cut {
        Some(PdfCut::Pages) => {
            Some(format!("the PDF has {} pages; the first {} (the page limit) were read", info.pages, info.pages_read))
        }
        Some(PdfCut::Time) => Some(format!(
            "reading the PDF took longer than {} s and was cut after page {} of {}",
            limits.time_limit.as_secs_f64(),
            info.pages_read,
            info.pages
        )),
        None => None,
    };
    if let Some(detail) = detail {
        out.push(Warning::new(WarningCode::PdfTruncated, WarningSource::Conversion, detail));
    }
    if !converted.skipped.is_empty() {
        out.push(Warning::new(
            WarningCode::PdfPagesSkipped,
            WarningSource::Conversion,
            skipped_detail(&converted.skipped),
        ));
    }
    if converted.no_text_layer {
        out.push(Warning::new(
            WarningCode::PdfNoTextLayer,
            WarningSource::Conversion,
            format!(
                "the PDF's {} pages read have no text layer (scanned images?); no OCR is done, so there is no text",
                info.pages_read
            ),
        ));
    }
    out
}

/// Which pages were left out and why: "pages 2–5 could each draw more
/// than 1,000,000 characters; page 7 has more than 64 MiB of decoded
/// content; their text is left out".
fn skipped_detail(skipped: &[SkippedPage]) -> String {
    let mut parts = Vec::new();
    for cap in [PageCap::Characters, PageCap::Content] {
        let pages: Vec<usize> = skipped.iter().filter(|s| s.over == cap).map(|s| s.page).collect();
        let one = pages.len() == 1;
        let what = match cap {
            PageCap::Characters if one => format!("could draw more than {} characters", thousands(MAX_PAGE_CHARS)),
            PageCap::Characters => format!("could each draw more than {} characters", thousands(MAX_PAGE_CHARS)),
            PageCap::Content if one => format!("has more than {} MiB of decoded content", MAX_PAGE_CONTENT >> 20),
            PageCap::Content => format!("each have more than {} MiB of decoded content", MAX_PAGE_CONTENT >> 20),
        };
        if !pages.is_empty() {
            parts.push(format!("{} {what}", page_list(&pages)));
        }
    }
    let whose = if skipped.len() == 1 { "its" } else { "their" };
    format!("{}; {whose} text is left out", parts.join("; "))
}

/// Page numbers (ascending) as runs: "page 4", "pages 2–5, 8 and 10"; past
/// twenty runs, how many more pages.
fn page_list(pages: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &page in pages {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == page => *last = page,
            _ => runs.push((page, page)),
        }
    }
    const SHOWN: usize = 20;
    let mut named: Vec<String> =
        runs.iter().take(SHOWN).map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}–{b}") }).collect();
    let hidden: usize = runs.iter().skip(SHOWN).map(|&(a, b)| b - a + 1).sum();
    if hidden > 0 {
        named.push(format!("{hidden} more"));
    }
    let label = if pages.len() == 1 { "page" } else { "pages" };
    match named.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{label} {} and {last}", rest.join(", ")),
        _ => format!("{label} {}", named.concat()),
    }
}

/// A count with thousands separated by commas.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

fn dedupe(mut page: Page) -> Page {
    let mut seen = std::collections::HashSet::new();
    page.warnings.retain(|w| seen.insert((w.code, w.source)));
    page
}

/// The targets of `Link:` headers (RFC 8288) with relation `rel` (and media
/// type `media_type`, when given), resolved against the answer's URL.
fn link_header(answer: &Answer, rel: &str, media_type: Option<&str>) -> Vec<Url> {
    answer
        .header_all("link")
        .flat_map(|v| v.split(','))
        .filter_map(|link| {
            let (target, params) = link.split_once(';')?;
            let target = target.trim().strip_prefix('<')?.strip_suffix('>')?;
            let param = |name: &str| {
                params.split(';').find_map(|p| {
                    let (k, v) = p.split_once('=')?;
                    k.trim().eq_ignore_ascii_case(name).then(|| v.trim().trim_matches('"'))
                })
            };
            let rel_matches =
                param("rel").is_some_and(|v| v.split_ascii_whitespace().any(|r| r.eq_ignore_ascii_case(rel)));
            let type_matches =
                media_type.is_none_or(|want| param("type").is_some_and(|t| t.eq_ignore_ascii_case(want)));
            (rel_matches && type_matches).then(|| answer.url.join(target).ok()).flatten()
        })
        .collect()
}

/// The RSL license documents an answer names: its `Link:` headers, then
/// the `<link>` elements of its `<head>`, resolved against its URL.
fn rsl_links(answer: &Answer, head: &[HeadTag]) -> Vec<Url> {
    let headers = answer.header_all("link").flat_map(webcanon_core::rsl::license_links_in_header);
    let elements = head
        .iter()
        .filter(|t| t.tag == "link" && webcanon_core::rsl::is_rsl_license_link(t.attr("rel"), t.attr("type")))
        .filter_map(|t| t.attr("href"));
    let mut links: Vec<Url> = Vec::new();
    for target in headers.chain(elements) {
        if let Ok(url) = answer.url.join(target.trim())
            && !links.contains(&url)
        {
            links.push(url);
        }
    }
    links
}

fn header_warnings(answer: &Answer, agent: &str) -> Vec<UsageWarning> {
    let mut out = Vec::new();
    let directives: Vec<_> = answer.header_all("x-robots-tag").flat_map(parse_x_robots_tag).collect();
    out.extend(robots_warnings(&directives, agent, WarningSource::XRobotsTag));
    for value in answer.header_all("tdm-reservation") {
        if parse_tdm_reservation(value) == Some(true) {
            out.push(tdm_warning("the tdm-reservation header"));
        }
    }
    let usage: Vec<&str> = answer.header_all("content-usage").collect();
    if !usage.is_empty() {
        let statement = parse_content_usage_header(usage.iter().copied());
        let scope = WarningSource::ContentUsageHeader.to_string();
        out.extend(content_usage_warnings(&statement, WarningSource::ContentUsageHeader, &scope));
    }
    for value in answer.header_all("content-signal") {
        out.extend(preference_warnings(
            &parse_preferences(value),
            WarningCode::ContentSignal,
            WarningSource::ContentSignalHeader,
        ));
    }
    out
}

fn tdm_warning(where_: &str) -> UsageWarning {
    Warning::new(
        WarningCode::TdmReservation,
        WarningSource::Tdmrep,
        format!("{where_} reserves text and data mining rights (TDMRep tdm-reservation: 1)"),
    )
}

fn meta_warnings(head: &[HeadTag], agent: &str) -> Vec<UsageWarning> {
    let mut out = Vec::new();
    let mut directives = Vec::new();
    for tag in head.iter().filter(|t| t.tag == "meta") {
        let (Some(name), Some(content)) = (tag.attr("name"), tag.attr("content")) else { continue };
        let lower = name.to_ascii_lowercase();
        if lower == "tdm-reservation" {
            if parse_tdm_reservation(content) == Some(true) {
                out.push(tdm_warning("a tdm-reservation meta tag"));
            }
        } else if lower == "robots" || lower.eq_ignore_ascii_case(agent) {
            directives.extend(parse_meta_robots(name, content));
        }
    }
    out.extend(robots_warnings(&directives, agent, WarningSource::MetaRobots));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_pages_are_named_in_runs_with_the_cap_they_are_over() {
        let skipped = |pages: &[(usize, PageCap)]| {
            skipped_detail(&pages.iter().map(|&(page, over)| SkippedPage { page, over }).collect::<Vec<_>>())
        };
        let chars = PageCap::Characters;
        assert_eq!(
            skipped(&[(2, chars), (3, chars), (4, chars), (5, chars)]),
            "pages 2–5 could each draw more than 1,000,000 characters; their text is left out"
        );
        assert_eq!(
            skipped(&[(2, chars), (3, chars), (7, PageCap::Content), (8, chars), (10, chars)]),
            "pages 2–3, 8 and 10 could each draw more than 1,000,000 characters; page 7 has more than 64 MiB of \
             decoded content; their text is left out"
        );
        assert_eq!(skipped(&[(1, chars)]), "page 1 could draw more than 1,000,000 characters; its text is left out");
        let every_other: Vec<usize> = (1..=100).map(|n| 2 * n).collect();
        assert!(page_list(&every_other).ends_with("36, 38, 40 and 80 more"), "{}", page_list(&every_other));
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(64_000), "64,000");
    }

    #[test]
    fn kinds() {
        assert_eq!(kind_of(Some("text/html"), b""), Some(Kind::Html));
        assert_eq!(kind_of(Some("text/markdown"), b""), Some(Kind::Text));
        assert_eq!(kind_of(Some("application/json"), b""), Some(Kind::Text));
        assert_eq!(kind_of(Some("image/png"), b""), None);
        assert_eq!(kind_of(None, b"  <html>"), Some(Kind::Html));
        assert_eq!(kind_of(Some("application/octet-stream"), b"\0\x01"), None);
    }

    /// A conversion that outlasts any limit a test sets.
    fn stuck(page: &str, base: &Url, limits: &HtmlLimits) -> Extracted {
        std::thread::sleep(std::time::Duration::from_secs(2));
        html::extract(page, base, limits)
    }

    // The stuck conversion holds its thread forty times the limit: the
    // limit decides, not the machine's load.
    #[tokio::test]
    async fn a_conversion_past_its_time_limit_returns_the_text_with_the_reason() {
        let html = "<html><head><title>T</title></head><body><main><p>Some words.</p></main></body></html>";
        let url = url::Url::parse("https://example.com/").unwrap();
        let limits = HtmlLimits { time_limit: std::time::Duration::from_millis(50), ..HtmlLimits::default() };
        let converted = convert_html_with(html.to_string(), &url, limits, stuck).await.unwrap();
        assert_eq!(converted.over_limit, Some(html::OverLimit::Time));
        assert_eq!(converted.markdown, "T\n\nSome words.");
        assert_eq!(converted.title.as_deref(), Some("T"));

        let converted = convert_html(html.to_string(), &url, HtmlLimits::default(), Comments::Auto).await.unwrap();
        assert_eq!(converted.over_limit, None);
    }
}
