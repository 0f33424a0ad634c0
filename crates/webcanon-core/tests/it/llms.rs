//! The llms.txt parser against the real files of `shared/corpus/llms` and a
//! table with one case per diagnostic code.
//!
//! CI checks `shared/` out beside the repository, hence the path.

use std::fs;
use std::path::PathBuf;

use webcanon_core::llms::{LlmsCode, LlmsTxt, NotLlms};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/llms");

fn corpus(name: &str) -> LlmsTxt {
    let path = PathBuf::from(CORPUS).join(name);
    LlmsTxt::parse(fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn codes(file: &LlmsTxt) -> Vec<(LlmsCode, Option<u32>)> {
    file.diagnostics.iter().map(|d| (d.code, d.line)).collect()
}

fn section_shape(file: &LlmsTxt) -> Vec<(&str, usize)> {
    file.sections.iter().map(|s| (s.name.as_str(), s.links.len())).collect()
}

#[test]
fn every_corpus_file_parses() {
    let mut paths: Vec<PathBuf> = fs::read_dir(CORPUS)
        .unwrap_or_else(|e| panic!("cannot read {CORPUS}: {e} (shared/ must be checked out beside the repository)"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n != "index.tsv"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 62, "corpus has {} files", paths.len());
    for path in paths {
        let file = LlmsTxt::parse(fs::read(&path).expect("read"));
        let name = path.display();
        for d in &file.diagnostics {
            assert!(d.line.is_none_or(|l| l >= 1 && l <= file.line_count), "{name}: {d:?}");
        }
        for link in file.links() {
            assert!(link.link.line <= file.line_count && !link.link.url.is_empty(), "{name}");
        }
        if file.not_llms.is_none() && file.title.is_none() {
            assert!(codes(&file).contains(&(LlmsCode::MissingH1, None)), "{name}");
        }
    }
}

#[test]
fn llmstxt_org_example() {
    let file = corpus("llmstxt.org__llms.txt");
    assert_eq!(file.title.as_deref(), Some("llms.txt"));
    assert_eq!(file.title_line, Some(1));
    assert_eq!(
        file.summary.as_deref(),
        Some(
            "A proposal that those interested in providing LLM-friendly content add a /llms.txt file to their site. \
             This is a markdown file that provides brief background information and guidance, along with links to \
             markdown files providing more detailed information."
        )
    );
    assert_eq!(file.prose, "");
    assert_eq!(section_shape(&file), [("Docs", 3)]);
    let docs = &file.sections[0];
    assert_eq!(docs.line, 5);
    assert_eq!(docs.links[0].title, "llms.txt proposal");
    assert_eq!(docs.links[0].url, "https://llmstxt.org/index.md");
    assert_eq!(docs.links[0].notes.as_deref(), Some("The proposal for llms.txt"));
    assert_eq!(docs.links[1].url, "https://llmstxt.org/intro.html.md");
    assert_eq!(docs.links[2].line, 9);
    assert!(file.optional().is_none());
    assert_eq!(codes(&file), []);
}

#[test]
fn llmstxt_org_sample_has_optional_section() {
    let file = corpus("llmstxt.org__llms-sample.txt");
    assert_eq!(file.title.as_deref(), Some("FastHTML"));
    assert_eq!(section_shape(&file), [("Docs", 3), ("Examples", 1), ("Optional", 1)]);
    assert!(file.prose.starts_with("Remember:"));
    let optional = file.optional().expect("Optional section");
    assert!(optional.links[0].url.ends_with("/starlette-sml.md"));
    assert_eq!(file.links().filter(|l| l.optional).count(), 1);
    assert_eq!(file.links().count(), 5);
    assert_eq!(codes(&file), [(LlmsCode::LinkWithoutNotes, Some(14)), (LlmsCode::NonMarkdownLink, Some(18))]);
}

#[test]
fn robots_syntax_served_as_llms_txt() {
    let file = corpus("jan9103__llms.txt");
    assert_eq!(file.not_llms, Some(NotLlms::Robots));
    // The `# go and harass yourself` comment is not taken for a title.
    assert_eq!(file.title, None);
    assert_eq!(codes(&file), [(LlmsCode::RobotsBody, Some(1))]);
}

#[test]
fn html_trap_is_not_read() {
    let file = corpus("maurycy__llms.txt");
    assert_eq!(file.not_llms, Some(NotLlms::Html));
    assert!(file.sections.is_empty() && file.prose.is_empty());
    assert_eq!(codes(&file), [(LlmsCode::HtmlBody, Some(1))]);
}

#[test]
fn llms_ctx_is_xml() {
    assert_eq!(corpus("llmstxt.org__llms-ctx.txt").not_llms, Some(NotLlms::Xml));
    assert_eq!(corpus("fasthtml-gallery__llms-ctx.txt").not_llms, Some(NotLlms::Xml));
}

#[test]
fn empty_and_titleless_files() {
    assert_eq!(codes(&corpus("blunt__llms-full.txt")), [(LlmsCode::EmptyFile, None)]);
    let file = corpus("blunt__llms.txt");
    assert_eq!(file.prose, "Supports only TypeScript");
    assert_eq!(codes(&file), [(LlmsCode::MissingH1, None), (LlmsCode::ContentBeforeH1, Some(1))]);
}

#[test]
fn multi_line_summary_and_key_value_sections() {
    let file = corpus("osmanoz__llms.txt");
    let summary = file.summary.as_deref().expect("summary");
    assert!(
        summary.starts_with("Osman Öz'ün kişisel portfolyo ve CV sitesi. Osman Öz, Bilgisayar Mühendisliği mezunu")
    );
    assert!(summary.ends_with("makine öğrenmesi projeleri geliştirir."));
    assert_eq!(file.summary_line, Some(3));
    assert_eq!(section_shape(&file), [("Kişi", 0), ("Bağlantılar", 4), ("Sayfalar", 4)]);
    assert_eq!(file.sections[0].prose.len(), 5);
    let found = codes(&file);
    for expected in [
        (LlmsCode::EmptySection, Some(8)),
        (LlmsCode::ListItemWithoutLink, Some(10)),
        (LlmsCode::UnsupportedScheme, Some(21)),
        (LlmsCode::LinkWithoutNotes, Some(18)),
    ] {
        assert!(found.contains(&expected), "{expected:?} in {found:?}");
    }
}

#[test]
fn prose_inside_sections_is_kept() {
    let file = corpus("genaiscript__well-known__llms.txt");
    assert_eq!(file.title.as_deref(), Some("GenAIScript"));
    assert_eq!(
        section_shape(&file)[..3],
        [("Markdown Documentation", 0), ("Guidance for Code Generation", 0), ("Documentation Sets", 8)]
    );
    assert_eq!(file.sections[0].prose[0].line, 6);
    assert!(codes(&file).contains(&(LlmsCode::ProseInSection, Some(6))));
}

#[test]
fn links_before_any_section() {
    let file = corpus("litellm-docs__llms.txt");
    assert_eq!(file.title.as_deref(), Some("https://docs.litellm.ai/ llms.txt"));
    assert!(file.sections.is_empty());
    assert_eq!(file.intro_links.len(), 50);
    assert_eq!(file.links().count(), 50);
    assert!(codes(&file).contains(&(LlmsCode::LinkOutsideSection, Some(3))));
}

#[test]
fn duplicate_links_in_corpus() {
    let file = corpus("slovko-uk__llms.txt");
    let found = codes(&file);
    assert!(found.contains(&(LlmsCode::DuplicateLink, Some(8))));
    assert!(found.contains(&(LlmsCode::DuplicateLink, Some(9))));
}

#[test]
fn subheadings_stay_in_their_section() {
    let file = LlmsTxt::parse(
        "# T\n\n> S\n\n## Docs\n\n- [A](https://x.dev/a.md): a\n\n### Deep\n\n- [B](https://x.dev/b.md): b\n\nSome words.\n",
    );
    assert_eq!(section_shape(&file), [("Docs", 2)]);
    let docs = &file.sections[0];
    assert_eq!(docs.subheadings[0].text, "Deep");
    assert_eq!(docs.subheadings[0].level, 3);
    assert_eq!(docs.links[0].subheading, None);
    assert_eq!(docs.links[1].subheading, Some(0));
    assert_eq!(docs.prose[0].text, "Some words.");
    assert_eq!(codes(&file), [(LlmsCode::ProseInSection, Some(13))]);
}

#[test]
fn link_forms() {
    let file = LlmsTxt::parse(concat!(
        "# T\n> S\n## L\n",
        "- [Rust (lang)](https://en.wikipedia.org/wiki/Rust_(programming_language).md): parens\n",
        "* [Star](https://x.dev/s.md): star\n",
        "+ [Plus](<https://x.dev/p q.md>): angle\n",
        "- [Titled](https://x.dev/t.md \"Title\"): titled\n",
        "  - [Nested [b]](https://x.dev/n.md) - dash notes\n",
        "1. [Numbered](https://x.dev/1.md)\n",
    ));
    let links = &file.sections[0].links;
    let got: Vec<(&str, &str, Option<&str>)> =
        links.iter().map(|l| (l.title.as_str(), l.url.as_str(), l.notes.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("Rust (lang)", "https://en.wikipedia.org/wiki/Rust_(programming_language).md", Some("parens")),
            ("Star", "https://x.dev/s.md", Some("star")),
            ("Plus", "https://x.dev/p q.md", Some("angle")),
            ("Titled", "https://x.dev/t.md", Some("titled")),
            ("Nested [b]", "https://x.dev/n.md", Some("dash notes")),
            ("Numbered", "https://x.dev/1.md", None),
        ]
    );
}

#[test]
fn bom_crlf_and_invalid_utf8() {
    let file =
        LlmsTxt::parse(b"\xEF\xBB\xBF# Title\r\n\r\n> Sum\r\n\r\n## Docs\r\n- [A](https://x.dev/a.md): n\xFF\r\n");
    assert_eq!(file.title.as_deref(), Some("Title"));
    assert_eq!(file.sections[0].links[0].notes.as_deref(), Some("n\u{FFFD}"));
    assert_eq!(codes(&file), [(LlmsCode::InvalidUtf8, None)]);
}

#[test]
fn code_fences_hide_headings() {
    let file = LlmsTxt::parse(
        "# T\n> S\n\n```md\n# Not a title\n## Not a section\n```\n\n## Real\n- [A](https://x.dev/a.md): a\n",
    );
    assert_eq!(section_shape(&file), [("Real", 1)]);
    assert!(file.prose.contains("# Not a title"));
    assert_eq!(codes(&file), []);
}

#[test]
fn large_and_truncated_files() {
    let mut big = String::from("# T\n> S\n## Docs\n");
    while big.len() <= webcanon_core::llms::LARGE_FILE_BYTES {
        big.push_str("- [A page](https://x.dev/some/long/path/to/a/page.md): with a description\n");
    }
    let file = LlmsTxt::parse(&big);
    assert_eq!(file.diagnostics[0].code, LlmsCode::LargeFile);
    let mut huge = big.repeat(webcanon_core::llms::MAX_PARSE_BYTES / big.len() + 1);
    huge.insert(0, 'x');
    let file = LlmsTxt::parse(&huge);
    assert_eq!(file.diagnostics[0].code, LlmsCode::FileTruncated);
}

/// One case per code: (input, code, line).
const CASES: &[(&str, LlmsCode, Option<u32>)] = &[
    ("> only a quote\n", LlmsCode::MissingH1, None),
    ("# A\n> s\n# B\n", LlmsCode::MultipleH1, Some(3)),
    ("intro\n# A\n> s\n", LlmsCode::ContentBeforeH1, Some(1)),
    ("<!DOCTYPE html>\n<html><body>x</body></html>\n", LlmsCode::HtmlBody, Some(1)),
    ("\n{\"title\": \"x\"}\n", LlmsCode::JsonBody, Some(2)),
    ("# comment\nUser-agent: *\nDisallow: /\n", LlmsCode::RobotsBody, Some(2)),
    ("# A\n> s\n## D\n- [x](https://a.dev/x.md)\n", LlmsCode::LinkWithoutNotes, Some(4)),
    ("# A\n> s\n## D\n- [x](https://a.dev/x.html): n\n", LlmsCode::NonMarkdownLink, Some(4)),
    ("# A\n> s\n## D\n- [x](/docs/x.md): n\n", LlmsCode::RelativeUrl, Some(4)),
    ("# A\n> s\n## D\n\n## E\n- [x](https://a.dev/x.md): n\n", LlmsCode::EmptySection, Some(3)),
    ("# A\n> s\n## D\n- [x](https://a.dev/x.md: n\n", LlmsCode::MalformedLink, Some(4)),
    ("# A\n> s\n### Deep\n", LlmsCode::HeadingOutsideSection, Some(3)),
    ("# A\n> s\n## D\n- [x](https://a.dev/x.md): n\n- [y](https://a.dev/x.md): n\n", LlmsCode::DuplicateLink, Some(5)),
    ("# A\n\nwords\n", LlmsCode::MissingSummary, Some(1)),
    ("  \n\n", LlmsCode::EmptyFile, None),
    ("\u{0}\u{1}binary", LlmsCode::BinaryBody, None),
    ("<project title=\"x\">\n</project>\n", LlmsCode::XmlBody, Some(1)),
    ("---\ntitle: x\n---\n# A\n> s\n", LlmsCode::FrontMatter, Some(1)),
    ("# A\n> s\n## D\n- [x](https://a.dev/x.md): n\nwords\n", LlmsCode::ProseInSection, Some(5)),
    ("# A\n> s\n## D\n- [x](https://a.dev/x.md): n\n- key: value\n", LlmsCode::ListItemWithoutLink, Some(5)),
    ("# A\n> s\n## D\n- [x](mailto:a@b.c): n\n", LlmsCode::UnsupportedScheme, Some(4)),
    (
        "# A\n> s\n## D\n- [x](https://a.dev/x.md): n\n## d\n- [y](https://a.dev/y.md): n\n",
        LlmsCode::DuplicateSection,
        Some(5),
    ),
    ("# A\n> s\n##\n- [x](https://a.dev/x.md): n\n", LlmsCode::EmptyHeading, Some(3)),
    ("# A\n> s\n```\n## D\n", LlmsCode::UnclosedCodeFence, Some(3)),
    ("# A\n> s\n- [x](https://a.dev/x.md): n\n", LlmsCode::LinkOutsideSection, Some(3)),
    ("# A\n> s\n## D\n- [](https://a.dev/x.md): n\n", LlmsCode::EmptyLinkTitle, Some(4)),
];

#[test]
fn one_case_per_code() {
    for (input, code, line) in CASES {
        let file = LlmsTxt::parse(input);
        assert!(
            codes(&file).contains(&(*code, *line)),
            "{code} {:?} for {input:?}: got {:?}",
            code.name(),
            codes(&file)
        );
    }
    let covered: Vec<LlmsCode> = CASES.iter().map(|c| c.1).collect();
    for code in LlmsCode::ALL {
        let tested_elsewhere = [LlmsCode::LargeFile, LlmsCode::FileTruncated, LlmsCode::InvalidUtf8];
        assert!(covered.contains(code) || tested_elsewhere.contains(code), "no case for {code}");
    }
}

#[test]
fn codes_are_unique_and_named() {
    let mut seen = std::collections::HashSet::new();
    for code in LlmsCode::ALL {
        assert!(seen.insert(code.code()), "duplicate {code}");
        assert!(!code.name().is_empty() && code.summary().ends_with('.'));
    }
}
