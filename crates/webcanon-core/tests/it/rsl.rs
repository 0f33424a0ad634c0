//! RSL 1.0 (RSL-SPEC-1.0, Recommendation of 2025-11-06,
//! <https://rslstandard.org/rsl>): the specification's and its guides'
//! own examples, the URL matching table, the decision table, the errors
//! and documents built to be expensive.

use std::time::{Duration, Instant};

use webcanon_core::robots::Robots;
use webcanon_core::rsl::{
    self, LicenseVerdict, PaymentType, RslCode, RslDocument, RslErrorKind, RslLimits, Usage, license_links_in_header,
};

fn read(body: &str) -> RslDocument {
    rsl::parse(body.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{body}"))
}

fn codes(doc: &RslDocument) -> Vec<&'static str> {
    doc.diagnostics.iter().map(|d| d.code.code()).collect()
}

/// RSL 1.0 §3.1 and §3.5: the site-wide document that prohibits every AI
/// use, as the specification shows it:
/// `<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>
/// <prohibits type="usage">ai-all</prohibits></license></content></rsl>`.
#[test]
fn spec_example_prohibit_all_ai_use_across_a_site() {
    let doc = read(
        r#"<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/">
    <license>
      <prohibits type="usage">ai-all</prohibits>
    </license>
  </content>
</rsl>"#,
    );
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    assert_eq!(doc.namespace.as_deref(), Some(rsl::NAMESPACE));
    for purpose in [Usage::AiTrain, Usage::AiInput, Usage::AiIndex, Usage::AiAll] {
        let decision = doc.decide("https://example.com/any/page", purpose).unwrap();
        assert_eq!(decision.verdict, LicenseVerdict::Prohibited, "{purpose}");
        assert_eq!(decision.prohibited_by, Some(Usage::AiAll));
    }
    // `search` is not an AI use: the document says nothing about it.
    assert_eq!(doc.decide("https://example.com/", Usage::Search).unwrap().verdict, LicenseVerdict::NotStated);
}

/// RSL Crawler Authorization Protocol guide (rslstandard.org/guide/web-crawlers),
/// with §3.2 on `server`: "If this attribute is present, clients must
/// obtain a license for this asset, even if the license is free".
/// `<content url="/" server="https://api.rslcollective.org"><license>
/// <permits type="usage">all</permits></license></content>`.
#[test]
fn guide_example_free_license_from_a_license_server() {
    let doc = read(
        r#"<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/" server="https://api.rslcollective.org">
    <license>
      <permits type="usage">all</permits>
    </license>
  </content>
</rsl>"#,
    );
    let decision = doc.decide("https://example.com/data", Usage::AiTrain).unwrap();
    assert_eq!(decision.verdict, LicenseVerdict::Permitted);
    assert_eq!(decision.license_server(), Some("https://api.rslcollective.org"));
    assert!(decision.payment_required().is_none(), "no payment element: free of charge");
}

/// RSL and AI Preferences guide (rslstandard.org/guide/ai-preferences):
/// `<permits type="usage">train-ai</permits>` with
/// `<payment type="subscription"><custom>…</custom></payment>`. The guide
/// predates 1.0's vocabulary (§3.4.1 spells the use `ai-train`): the
/// token is reported with the 1.0 spelling, and the payment is read.
#[test]
fn guide_example_with_a_draft_usage_token_and_a_subscription() {
    let doc = read(
        r#"<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/">
    <license>
      <permits type="usage">train-ai</permits>
      <payment type="subscription">
        <custom>https://your-website.com/contact-form.html</custom>
      </payment>
    </license>
  </content>
</rsl>"#,
    );
    assert_eq!(codes(&doc), ["RSL006"]);
    assert!(doc.diagnostics[0].message.contains("`ai-train`"), "{}", doc.diagnostics[0].message);
    let decision = doc.decide("https://your-website.com/post", Usage::AiTrain).unwrap();
    // The only permits list could not be read, so the license names no use.
    assert_eq!(decision.verdict, LicenseVerdict::NotStated);
    let payment = decision.payment_required().unwrap();
    assert_eq!(payment.kind, Some(PaymentType::Subscription));
    assert_eq!(payment.custom.as_deref(), Some("https://your-website.com/contact-form.html"));
}

/// Every element of §3 in one document: content attributes (§3.2),
/// permits and prohibits by type (§3.4, §3.5), payment with a standard
/// rate card and an amount (§3.6 to §3.10), legal, terms, copyright and
/// schema.
#[test]
fn every_element_is_read() {
    let doc = read(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<rsl xmlns="https://rslstandard.org/rsl">
  <content url="https://example.com/news/*" server="https://license.example.com" encrypted="true" lastmod="2025-11-06T00:00:00Z">
    <schema>https://example.com/schema.jsonld</schema>
    <terms>https://example.com/terms</terms>
    <copyright type="organization" contactEmail="rights@example.com" contactUrl="https://example.com/contact">Example &amp; Co</copyright>
    <license>
      <permits type="usage">search ai-input</permits>
      <permits type="user">commercial education</permits>
      <permits type="geo">us gb</permits>
      <prohibits type="usage">ai-train</prohibits>
      <payment type="use">
        <standard>https://example.com/rates</standard>
        <amount currency="USD">0.015</amount>
      </payment>
      <legal type="warranty">ownership authority</legal>
    </license>
  </content>
</rsl>"#,
    );
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let content = &doc.contents[0];
    assert_eq!(content.line, 3);
    assert!(content.encrypted);
    assert_eq!(content.lastmod.as_deref(), Some("2025-11-06T00:00:00Z"));
    assert_eq!(content.terms.as_deref(), Some("https://example.com/terms"));
    assert_eq!(content.schema.as_deref(), Some("https://example.com/schema.jsonld"));
    let copyright = content.copyright.as_ref().unwrap();
    assert_eq!(copyright.name, "Example & Co");
    assert_eq!(copyright.contact_email.as_deref(), Some("rights@example.com"));
    let license = &content.licenses[0];
    assert_eq!(license.permits.usage.as_deref(), Some(&[Usage::Search, Usage::AiInput][..]));
    assert_eq!(license.permits.user.as_deref(), Some(&["commercial".to_string(), "education".to_string()][..]));
    assert_eq!(license.permits.geo.as_deref(), Some(&["US".to_string(), "GB".to_string()][..]));
    assert_eq!(license.prohibits.usage.as_deref(), Some(&[Usage::AiTrain][..]));
    let payment = license.payment.as_ref().unwrap();
    assert_eq!(payment.kind, Some(PaymentType::Use));
    assert_eq!(payment.standard.as_deref(), Some("https://example.com/rates"));
    assert_eq!((payment.amounts[0].currency.as_str(), payment.amounts[0].value.as_str()), ("USD", "0.015"));
    assert_eq!(license.legal[0].terms, ["ownership", "authority"]);
}

/// §3.2: "a full URL, or a path on the server … that follows the
/// URL-matching rules of the Robots Exclusion Protocol (RFC 9309),
/// including support for the special characters * … and $".
#[test]
fn content_url_matching_table() {
    let cases: &[(&str, &str, bool)] = &[
        // pattern, URL, matches?
        ("/", "https://example.com/", true),
        ("/", "https://example.com/a/b?c=d", true),
        ("/news/", "https://example.com/news/today", true),
        ("/news/", "https://example.com/newsroom", false),
        ("/news", "https://example.com/newsroom", true),
        ("/*.pdf$", "https://example.com/docs/a.pdf", true),
        ("/*.pdf$", "https://example.com/docs/a.pdf?x=1", false),
        ("/*.pdf", "https://example.com/docs/a.pdf?x=1", true),
        ("*", "https://example.com/anything", true),
        ("/images/*/large", "https://example.com/images/cat/large.png", true),
        ("/a%3cb", "https://example.com/a%3Cb", true),
        ("/caf%C3%A9", "https://example.com/café", true),
        ("https://example.com/news/*", "https://example.com/news/x", true),
        ("https://example.com/news/*", "https://EXAMPLE.com/news/x", true),
        ("https://example.com/news/*", "https://example.com:443/news/x", true),
        ("https://example.com/news/*", "http://example.com/news/x", false),
        ("https://example.com/news/*", "https://www.example.com/news/x", false),
        ("https://example.com/news/*", "https://example.com:8443/news/x", false),
        ("https://example.com", "https://example.com/any", true),
        ("https://example.com/a?b=1", "https://example.com/a?b=1&c=2", true),
        ("news/", "https://example.com/news/", false),
        ("ftp://example.com/", "ftp://example.com/x", false),
    ];
    for (pattern, url, want) in cases {
        let body =
            format!(r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="{pattern}"><license/></content></rsl>"#);
        let doc = read(&body);
        assert_eq!(doc.content_for(url).is_some(), *want, "{pattern} against {url}");
    }
}

/// Several entries cover one URL: the most specific (longest pattern, RFC
/// 9309 §2.2.2, which §3.2 adopts) wins; the first at a tie.
#[test]
fn the_most_specific_entry_wins() {
    let doc = read(
        r#"<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/"><license><permits type="usage">all</permits></license></content>
  <content url="/premium/"><license><prohibits type="usage">ai-all</prohibits></license></content>
  <content url="/premium/free-*"><license><permits type="usage">ai-input</permits></license></content>
  <content url="https://example.com/premium/"><license><permits type="usage">search</permits></license></content>
</rsl>"#,
    );
    let line = |url| doc.content_for(url).unwrap().line;
    assert_eq!(line("https://example.com/blog"), 2);
    assert_eq!(line("https://example.com/premium/x"), 3, "the full URL ties with /premium/: the first wins");
    assert_eq!(line("https://example.com/premium/free-sample"), 4);
}

/// The decision table: document, declared use, URL → verdict, the token
/// that prohibits, payment and licence server.
#[test]
fn decision_table() {
    const DOC: &str = r#"<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/"><license><permits type="usage">search ai-input</permits></license></content>
  <content url="/paid/">
    <license><permits type="usage">ai-all</permits><payment type="training"><amount currency="USD">10</amount></payment></license>
  </content>
  <content url="/either/">
    <license><prohibits type="usage">ai-train</prohibits></license>
    <license><permits type="usage">ai-train</permits><payment type="purchase"/></license>
  </content>
  <content url="/credit/"><license><permits type="usage">all</permits><payment type="attribution"/></license></content>
  <content url="/server/" server="https://licenses.example.com"><license/></content>
  <content url="/both/"><license><permits type="usage">all</permits><prohibits type="usage">ai-train</prohibits></license></content>
</rsl>"#;
    let doc = read(DOC);
    assert_eq!(codes(&doc), ["RSL015"], "`all` and `ai-train` overlap in /both/");
    use LicenseVerdict::*;
    use Usage::*;
    // (URL path, use, verdict, prohibited by, payment required, server)
    type Case = (&'static str, Usage, LicenseVerdict, Option<Usage>, bool, bool);
    let cases: &[Case] = &[
        ("/page", Search, Permitted, None, false, false),
        ("/page", AiInput, Permitted, None, false, false),
        ("/page", AiTrain, Prohibited, None, false, false),
        ("/page", AiAll, Prohibited, None, false, false),
        ("/paid/x", AiTrain, Permitted, None, true, false),
        ("/paid/x", AiIndex, Permitted, None, true, false),
        ("/paid/x", Search, Prohibited, None, false, false),
        ("/either/x", AiTrain, Permitted, None, true, false),
        ("/either/x", Search, NotStated, None, false, false),
        ("/either/x", AiAll, Prohibited, Some(AiTrain), false, false),
        ("/credit/x", AiTrain, Permitted, None, false, false),
        ("/server/x", AiInput, NotStated, None, false, true),
        ("/both/x", AiTrain, Prohibited, Some(AiTrain), false, false),
        ("/both/x", AiInput, Permitted, None, false, false),
    ];
    for (path, purpose, verdict, by, paid, server) in cases {
        let url = format!("https://example.com{path}");
        let decision = doc.decide(&url, *purpose).unwrap();
        assert_eq!(
            (
                decision.verdict,
                decision.prohibited_by,
                decision.payment_required().is_some(),
                decision.license_server().is_some()
            ),
            (*verdict, *by, *paid, *server),
            "{path} for {purpose}"
        );
    }
    let none = read(r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/only/"><license/></content></rsl>"#);
    assert!(none.decide("https://example.com/other", AiTrain).is_none(), "no entry covers it: RSL says nothing");
}

#[test]
fn findings_have_codes() {
    let cases: &[(&str, &[&str])] = &[
        (r#"<rsl><content url="/"><license/></content></rsl>"#, &["RSL001"]),
        (r#"<rsl xmlns="https://rslstandard.org/rsl/v2"><content url="/"><license/></content></rsl>"#, &["RSL001"]),
        (r#"<r:rsl xmlns:r="https://rslstandard.org/rsl"><r:content url="/"><r:license/></r:content></r:rsl>"#, &[]),
        (r#"<rsl xmlns="https://rslstandard.org/rsl"></rsl>"#, &["RSL002"]),
        (r#"<rsl xmlns="https://rslstandard.org/rsl"><content><license/></content></rsl>"#, &["RSL003"]),
        (r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="news"><license/></content></rsl>"#, &["RSL004"]),
        (r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"/></rsl>"#, &["RSL005"]),
        (
            r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="usage">tdm</permits></license></content></rsl>"#,
            &["RSL006"],
        ),
        (
            r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="user">robots</permits></license></content></rsl>"#,
            &["RSL007"],
        ),
        (
            r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><prohibits type="geo">USA</prohibits></license></content></rsl>"#,
            &["RSL008"],
        ),
        (
            r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="purpose">x</permits></license></content></rsl>"#,
            &["RSL009"],
        ),
        (
            r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits>search</permits></license></content></rsl>"#,
            &["RSL010"],
        ),
        (
            r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><payment type="barter"/></license></content></rsl>"#,
            &["RSL011"],
        ),
        (
            r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><payment type="use"><amount currency="dollars">ten</amount></payment></license></content></rsl>"#,
            &["RSL012"],
        ),
        (
            r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/" server="http://plain.example"><license/></content></rsl>"#,
            &["RSL013"],
        ),
        (
            r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/" encrypted="yes"><license/></content></rsl>"#,
            &["RSL014"],
        ),
    ];
    for (body, want) in cases {
        assert_eq!(codes(&read(body)), *want, "{body}");
    }
    for code in RslCode::ALL {
        assert!(
            cases.iter().any(|(_, c)| c.contains(&code.code()))
                || *code == RslCode::PermittedAndProhibited
                || *code == RslCode::TooManyDiagnostics,
            "{code} has a case"
        );
    }
}

#[test]
fn malformed_documents_are_errors_with_a_kind() {
    let cases: &[(&[u8], RslErrorKind)] = &[
        (b"", RslErrorKind::NotRsl),
        (b"<rsl xmlns=\"https://rslstandard.org/rsl\"><content url=\"/\">", RslErrorKind::NotWellFormed),
        (b"<rsl><content></rsl>", RslErrorKind::NotWellFormed),
        (b"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"/>", RslErrorKind::NotRsl),
        (b"<!doctype html><html><body>Not found</body></html>", RslErrorKind::HtmlBody),
        (b"<!DOCTYPE rsl [<!ENTITY a \"aaaa\">]><rsl>&a;</rsl>", RslErrorKind::DoctypeRefused),
        (b"<rsl>\xff\xfe</rsl>", RslErrorKind::NotUtf8),
    ];
    for (body, kind) in cases {
        let err = rsl::parse(body).unwrap_err();
        assert_eq!(err.kind, *kind, "{}: {err}", String::from_utf8_lossy(body));
    }
}

/// RSL guide "Adding RSL to robots.txt": `License: https://example.com/license.xml`
/// before `User-agent: Googlebot` / `Allow: /`; the record is global (not
/// tied to any user agent), and a file may have several.
#[test]
fn robots_txt_license_records() {
    let robots = Robots::parse(
        b"License: https://example.com/license.xml\n\nUser-agent: Googlebot\nAllow: /\nLICENSE: https://cdn.example.net/rsl.xml\n",
    );
    assert_eq!(
        robots.licenses().collect::<Vec<_>>(),
        ["https://example.com/license.xml", "https://cdn.example.net/rsl.xml"]
    );
    assert!(robots.records().filter(|r| r.key.eq_ignore_ascii_case("license")).all(|r| r.group.is_none()));
    // A `License:` line ends no group and changes no verdict.
    assert!(robots.decide("Googlebot", "https://example.com/x").is_allowed());
    assert!(robots.lint().iter().all(|d| d.code.code() != "R002"), "License is a known record");
}

/// RSL guide "Adding RSL to HTTP Headers":
/// `Link: <https://example.com/license.xml>; rel="license"; type="application/rsl+xml"`.
#[test]
fn link_header_from_the_guide() {
    let value = r#"<https://example.com/license.xml>; rel="license"; type="application/rsl+xml""#;
    assert_eq!(license_links_in_header(value), ["https://example.com/license.xml"]);
    assert!(rsl::is_rsl_license_link(Some("license"), Some("application/rsl+xml")));
    assert!(!rsl::is_rsl_license_link(Some("license"), None));
}

// Hostile inputs: each is refused or read in bounded time, with a clear
// error. The bounds are loose (debug builds on a loaded machine).

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    assert!(started.elapsed() < Duration::from_secs(5), "{what} took {:?}", started.elapsed());
    out
}

#[test]
fn hundred_thousand_entries_are_refused_at_the_element_limit() {
    let mut body = String::from(r#"<rsl xmlns="https://rslstandard.org/rsl">"#);
    for i in 0..100_000 {
        body.push_str(&format!(r#"<content url="/p{i}"><license/></content>"#));
    }
    body.push_str("</rsl>");
    // At the default size limit the body is refused unread.
    assert_eq!(timed("size check", || rsl::parse(body.as_bytes())).unwrap_err().kind, RslErrorKind::TooLarge);
    // With the size limit lifted, the element count stops it.
    let limits = RslLimits { max_bytes: usize::MAX, ..RslLimits::default() };
    let err = timed("element limit", || rsl::parse_with(body.as_bytes(), &limits)).unwrap_err();
    assert_eq!(err.kind, RslErrorKind::TooManyElements);
    assert!(err.to_string().contains("more than 20000 elements"), "{err}");
}

#[test]
fn the_largest_document_within_the_limits_is_read_and_decided_quickly() {
    let mut body = String::from(r#"<rsl xmlns="https://rslstandard.org/rsl">"#);
    let mut i = 0;
    while body.len() < (1 << 20) - 200 && i < 9_999 {
        body.push_str(&format!(r#"<content url="/p{i}/*x*y*z$"><license/></content>"#));
        i += 1;
    }
    body.push_str("</rsl>");
    let doc = timed("parse", || rsl::parse(body.as_bytes()).unwrap());
    assert_eq!(doc.contents.len(), i);
    timed("100 decisions", || {
        for n in 0..100 {
            let url = format!("https://example.com/p{n}/{}", "x".repeat(2_000));
            assert!(doc.decide(&url, Usage::AiTrain).is_none());
        }
    });
}

#[test]
fn deep_nesting_is_refused() {
    let body = format!(r#"<rsl xmlns="https://rslstandard.org/rsl">{}"#, "<a>".repeat(200_000));
    let limits = RslLimits { max_bytes: usize::MAX, ..RslLimits::default() };
    let err = timed("deep nesting", || rsl::parse_with(body.as_bytes(), &limits)).unwrap_err();
    assert_eq!(err.kind, RslErrorKind::TooDeep);
}

#[test]
fn huge_values_are_refused() {
    let huge = "x".repeat(900_000);
    let attribute = format!(r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/{huge}"/></rsl>"#);
    let text =
        format!(r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><terms>{huge}</terms></content></rsl>"#);
    let pieces = format!(
        r#"<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><terms>{}</terms></content></rsl>"#,
        "&amp;".repeat(150_000)
    );
    for (what, body) in [("attribute", attribute), ("text", text), ("references", pieces)] {
        let err = timed(what, || rsl::parse(body.as_bytes())).unwrap_err();
        assert_eq!(err.kind, RslErrorKind::ValueTooLong, "{what}: {err}");
    }
}
