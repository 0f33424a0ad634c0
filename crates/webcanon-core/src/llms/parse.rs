//! The line parser: one pass, Markdown block structure only as far as the
//! llms.txt proposal needs it (ATX headings, blockquote, list items, fences).

use std::borrow::Cow;
use std::collections::HashMap;

use super::codes::{Diagnostic, LlmsCode};
use super::limits::{LARGE_FILE_BYTES, MAX_PARSE_BYTES};
use super::model::{Link, LlmsTxt, NotLlms, ProseLine, Section, SubHeading};

/// Where the parser is in the file's expected order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// No H1 yet.
    BeforeTitle,
    /// Right after the H1: a blockquote here is the summary.
    AfterTitle,
    /// Inside the summary blockquote.
    Summary,
    /// Free prose before the first H2.
    Prose,
    /// Inside an H2 section.
    Section,
}

/// Per-section tallies reported once when the section closes, so that a
/// section of fifty key/value bullets yields one finding, not fifty.
#[derive(Default)]
struct SectionTally {
    prose: Option<(u32, u32)>,
    no_link: Option<(u32, u32)>,
}

struct Parser {
    out: LlmsTxt,
    diags: Vec<Diagnostic>,
    stage: Stage,
    summary: Vec<String>,
    prose: Vec<String>,
    tally: SectionTally,
    seen_urls: HashMap<String, u32>,
    section_names: HashMap<String, u32>,
    content_before_title: bool,
    intro_link_reported: bool,
}

impl LlmsTxt {
    /// Parses an llms.txt body: `&str`, `&[u8]`, `String` or `Vec<u8>`.
    ///
    /// A UTF-8 byte-order mark is skipped; invalid UTF-8 is replaced (with
    /// [`LlmsCode::InvalidUtf8`]). Parsing never fails.
    ///
    /// Format: <https://llmstxt.org/#format>.
    pub fn parse(input: impl AsRef<[u8]>) -> LlmsTxt {
        parse(input.as_ref())
    }
}

fn parse(input: &[u8]) -> LlmsTxt {
    let mut diags = Vec::new();
    let mut bytes = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    if bytes.len() > MAX_PARSE_BYTES {
        // Cut at a line boundary so the last line read is whole.
        let cut = memchr::memrchr(b'\n', &bytes[..MAX_PARSE_BYTES]).map_or(MAX_PARSE_BYTES, |i| i + 1);
        diags.push(Diagnostic::new(
            LlmsCode::FileTruncated,
            None,
            format!("the file is {} bytes; only the first {cut} were read", bytes.len()),
        ));
        bytes = &bytes[..cut];
    } else if bytes.len() > LARGE_FILE_BYTES {
        diags.push(Diagnostic::new(
            LlmsCode::LargeFile,
            None,
            format!("the file is {} KiB; keep llms.txt an index and move content to linked pages", bytes.len() / 1024),
        ));
    }
    let mut out = LlmsTxt::default();
    if is_binary(bytes) {
        diags.push(Diagnostic::new(LlmsCode::BinaryBody, None, "the body is binary data, not text".into()));
        out.not_llms = Some(NotLlms::Binary);
        out.diagnostics = diags;
        return out;
    }
    let text = String::from_utf8_lossy(bytes);
    if let Cow::Owned(_) = text {
        diags.push(Diagnostic::new(
            LlmsCode::InvalidUtf8,
            None,
            "the body is not valid UTF-8; invalid bytes were replaced with U+FFFD".into(),
        ));
    }
    out.line_count = count_lines(&text);
    if let Some((kind, line)) = classify(&text) {
        let (code, message) = match kind {
            NotLlms::Empty => (LlmsCode::EmptyFile, "the file is empty"),
            NotLlms::Html => (LlmsCode::HtmlBody, "the body is an HTML page, not Markdown; it was not read further"),
            NotLlms::Json => (LlmsCode::JsonBody, "the body is JSON, not Markdown"),
            NotLlms::Xml => (LlmsCode::XmlBody, "the body is XML (llms_txt2ctx output or similar), not llms.txt"),
            NotLlms::Robots => (LlmsCode::RobotsBody, "the body is robots.txt syntax, not Markdown"),
            NotLlms::Binary => (LlmsCode::BinaryBody, "the body is binary data"),
        };
        diags.push(Diagnostic::new(code, line, message.into()));
        out.not_llms = Some(kind);
        out.diagnostics = diags;
        return out;
    }
    let mut parser = Parser {
        out,
        diags,
        stage: Stage::BeforeTitle,
        summary: Vec::new(),
        prose: Vec::new(),
        tally: SectionTally::default(),
        seen_urls: HashMap::new(),
        section_names: HashMap::new(),
        content_before_title: false,
        intro_link_reported: false,
    };
    parser.run(&text);
    parser.finish()
}

fn count_lines(text: &str) -> u32 {
    let n = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    let last = usize::from(!text.is_empty() && !text.ends_with('\n'));
    u32::try_from(n + last).unwrap_or(u32::MAX)
}

fn is_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return true;
    }
    let control = head.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)).count();
    control * 10 > head.len().max(1)
}

/// Recognises bodies that are not llms.txt Markdown, with the line to point at.
fn classify(text: &str) -> Option<(NotLlms, Option<u32>)> {
    let Some((index, first)) = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty()) else {
        return Some((NotLlms::Empty, None));
    };
    let line = Some(index as u32 + 1);
    let first = first.trim();
    let lower: String = first.chars().take(32).flat_map(char::to_lowercase).collect();
    if lower.starts_with("<project") {
        return Some((NotLlms::Xml, line));
    }
    // Markdown may open with an HTML block (a centered logo); it is a page
    // only when no `# ` title follows.
    let has_h1 = text.lines().any(|l| heading(l).is_some_and(|(level, _)| level == 1));
    if first.starts_with('<') && !has_h1 {
        if crate::sniff::html_start(text.as_bytes()).is_some() {
            return Some((NotLlms::Html, line));
        }
        if first[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '?' || c == '!') {
            return Some((NotLlms::Xml, line));
        }
    }
    if first.starts_with('{') || (first.starts_with('[') && is_json_array_start(text.trim_start())) {
        let end = text.trim_end();
        if end.ends_with('}') || end.ends_with(']') {
            return Some((NotLlms::Json, line));
        }
    }
    let records: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    if records.first().is_some_and(|l| robots_key(l) == Some(true)) {
        let known = records.iter().filter(|l| robots_key(l).is_some()).count();
        if known * 2 >= records.len() {
            return Some((NotLlms::Robots, line.map(|_| first_record_line(text))));
        }
    }
    None
}

fn first_record_line(text: &str) -> u32 {
    text.lines().position(|l| robots_key(l.trim()) == Some(true)).map_or(1, |i| i as u32 + 1)
}

fn is_json_array_start(s: &str) -> bool {
    s[1..].trim_start().starts_with(['{', '"', '[', ']'])
        || s[1..].trim_start().starts_with(|c: char| c.is_ascii_digit())
}

/// `Some(true)` for a `User-agent:` line, `Some(false)` for another robots
/// key, `None` for anything else.
fn robots_key(line: &str) -> Option<bool> {
    let (key, _) = line.split_once(':')?;
    let key = key.trim().to_ascii_lowercase();
    match key.as_str() {
        "user-agent" => Some(true),
        "disallow" | "allow" | "sitemap" | "crawl-delay" | "host" | "noindex" | "content-signal" => Some(false),
        _ => None,
    }
}

/// An ATX heading: up to three spaces, 1 to 6 `#`, then a space or the end.
fn heading(line: &str) -> Option<(u8, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.len() - rest.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &rest[level..];
    if !after.is_empty() && !after.starts_with([' ', '\t']) {
        return None;
    }
    let mut text = after.trim();
    // An optional closing run of `#` preceded by a space is not part of the text.
    let closed = text.trim_end_matches('#');
    if closed.len() < text.len() && (closed.is_empty() || closed.ends_with([' ', '\t'])) {
        text = closed.trim_end();
    }
    Some((level as u8, text))
}

/// A code fence opener or closer: the fence character and run length.
fn fence(line: &str) -> Option<(char, usize)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let c = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let run = trimmed.len() - trimmed.trim_start_matches(c).len();
    (run >= 3).then_some((c, run))
}

/// The content of a list item (`- `, `* `, `+ `, `1. `), at any indentation.
fn list_item(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    let digits = trimmed.len() - trimmed.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let marker = if digits > 0 {
        if !trimmed[digits..].starts_with(['.', ')']) {
            return None;
        }
        digits + 1
    } else if trimmed.starts_with(['-', '*', '+']) {
        1
    } else {
        return None;
    };
    let rest = &trimmed[marker..];
    if rest.starts_with([' ', '\t']) { Some(rest.trim()) } else { None }
}

/// A Markdown inline link at the start of `s`: `[text](url)`, returned as
/// the text, the URL and the rest of `s` after the closing `)`. Brackets
/// nest, `\` escapes, the URL may hold balanced parentheses or sit in
/// `<…>`, and a link title (`"…"`) after the URL is dropped. The one
/// inline-link reader of the project: llms.txt link lists, and the client's
/// content shapes.
///
/// ```
/// use webcanon_core::llms::inline_link;
///
/// assert_eq!(inline_link("[Guide](https://x.test/a_(b) \"T\"): notes"), Some(("Guide", "https://x.test/a_(b)", ": notes")));
/// assert_eq!(inline_link("[open](no close"), None);
/// assert_eq!(inline_link("[:(](smile.gif \"Frown :(\")"), Some((":(", "smile.gif", "")));
/// ```
pub fn inline_link(s: &str) -> Option<(&str, &str, &str)> {
    let bytes = s.as_bytes();
    if bytes.first() != Some(&b'[') {
        return None;
    }
    let mut depth = 0usize;
    let mut i = 0;
    let title_end = loop {
        match bytes.get(i)? {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    break i;
                }
            }
            _ => {}
        }
        i += 1;
    };
    if bytes.get(title_end + 1) != Some(&b'(') {
        return None;
    }
    let start = title_end + 2;
    let (target, end) = if bytes.get(start) == Some(&b'<') {
        let close = start + 1 + s[start + 1..].find('>')?;
        let end = close + s[close..].find(')')?;
        (&s[start + 1..close], end)
    } else {
        let mut depth = 1usize;
        let mut j = start;
        // Once no quote closes a title, none later can: not looked for again.
        let mut titles_close = true;
        loop {
            match bytes.get(j)? {
                b'\\' => j += 1,
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                // A title (`"…"` after the URL) may hold parentheses of
                // its own: it ends at its closing quote.
                b'"' if titles_close && depth == 1 && matches!(bytes[j - 1], b' ' | b'\t') => {
                    match memchr::memchr(b'"', &bytes[j + 1..]) {
                        Some(close) => j += close + 1,
                        None => titles_close = false,
                    }
                }
                _ => {}
            }
            j += 1;
        }
        let inner = s[start..j].trim();
        // `(url "title")`: the URL is the first token.
        let url = inner.split([' ', '\t']).next().unwrap_or("");
        (url, j)
    };
    Some((s[1..title_end].trim(), target.trim(), &s[end + 1..]))
}

/// The notes after a link: `: notes` is the proposal's form; ` - notes` and
/// dashes are common variants and accepted.
fn notes(rest: &str) -> Option<String> {
    let rest = rest.trim();
    let rest = rest.strip_prefix(':').or_else(|| rest.strip_prefix(['-', '–', '—'])).unwrap_or(rest).trim();
    (!rest.is_empty()).then(|| rest.to_string())
}

/// The URL's scheme, if it has one (`https`, `mailto`).
fn scheme(url: &str) -> Option<&str> {
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some(scheme)
}

/// Whether the URL's path names a Markdown or text file.
fn is_markdown_target(url: &str) -> bool {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let path = &url[..end];
    let path = match path.find("//") {
        Some(i) => path[i + 2..].find('/').map_or("", |j| &path[i + 2 + j..]),
        None => path,
    };
    let last = path.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    [".md", ".markdown", ".mdx", ".txt"].iter().any(|ext| last.ends_with(ext))
}

impl Parser {
    fn diag(&mut self, code: LlmsCode, line: u32, message: String) {
        self.diags.push(Diagnostic::new(code, Some(line), message));
    }

    fn run(&mut self, text: &str) {
        let mut lines = text.split('\n').enumerate().peekable();
        let mut fence_open: Option<(char, usize, u32)> = None;
        let mut in_comment = false;
        // YAML front matter is only recognised on the first line.
        if text.starts_with("---") && text.lines().next().is_some_and(|l| l.trim_end() == "---") {
            let close = text.lines().skip(1).position(|l| matches!(l.trim_end(), "---" | "..."));
            if let Some(close) = close {
                self.diag(LlmsCode::FrontMatter, 1, "YAML front matter is not part of llms.txt; skipped".into());
                for _ in 0..close + 2 {
                    lines.next();
                }
            }
        }
        while let Some((index, raw)) = lines.next() {
            let number = index as u32 + 1;
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            if lines.peek().is_none() && line.is_empty() {
                break;
            }
            if let Some((c, run, _)) = fence_open {
                if fence(line).is_some_and(|(fc, frun)| fc == c && frun >= run && line.trim().chars().all(|x| x == c)) {
                    fence_open = None;
                }
                self.text_line(line, number, true);
                continue;
            }
            if in_comment {
                in_comment = !line.contains("-->");
                continue;
            }
            let trimmed = line.trim();
            if trimmed.starts_with("<!--") {
                in_comment = !trimmed.contains("-->");
                continue;
            }
            if let Some((c, run)) = fence(line) {
                fence_open = Some((c, run, number));
                self.text_line(line, number, true);
                continue;
            }
            if let Some((level, text)) = heading(line) {
                self.heading(level, text, line, number);
            } else if trimmed.is_empty() {
                self.blank();
            } else {
                self.text_line(line, number, false);
            }
        }
        if let Some((_, _, open)) = fence_open {
            self.diag(LlmsCode::UnclosedCodeFence, open, "this code fence is never closed".into());
        }
    }

    fn heading(&mut self, level: u8, text: &str, raw: &str, number: u32) {
        if text.is_empty() {
            self.diag(LlmsCode::EmptyHeading, number, format!("an empty H{level}"));
        }
        match level {
            1 if self.out.title.is_none() => {
                self.out.title = Some(text.to_string());
                self.out.title_line = Some(number);
                if self.stage == Stage::BeforeTitle {
                    self.stage = Stage::AfterTitle;
                }
            }
            1 => {
                let first = self.out.title_line.unwrap_or(0);
                self.diag(LlmsCode::MultipleH1, number, format!("another H1 (the title is on line {first})"));
                self.end_summary();
                self.push_text(raw, number);
            }
            2 => {
                self.close_section();
                self.end_summary();
                if self.out.title.is_none() {
                    self.before_title(number);
                }
                let key = text.to_lowercase();
                if let Some(&first) = self.section_names.get(&key) {
                    self.diag(
                        LlmsCode::DuplicateSection,
                        number,
                        format!("section {text:?} also starts on line {first}"),
                    );
                } else {
                    self.section_names.insert(key, number);
                }
                self.out.sections.push(Section {
                    name: text.to_string(),
                    line: number,
                    links: Vec::new(),
                    subheadings: Vec::new(),
                    prose: Vec::new(),
                });
                self.stage = Stage::Section;
            }
            _ => {
                if let (Stage::Section, Some(section)) = (self.stage, self.out.sections.last_mut()) {
                    section.subheadings.push(SubHeading { level, text: text.to_string(), line: number });
                } else {
                    if self.out.title.is_some() {
                        self.diag(
                            LlmsCode::HeadingOutsideSection,
                            number,
                            format!("an H{level} before the first H2 section; use an H2 or plain prose"),
                        );
                    }
                    self.end_summary();
                    self.push_text(raw, number);
                }
            }
        }
    }

    fn blank(&mut self) {
        match self.stage {
            Stage::Summary => self.end_summary(),
            Stage::Prose | Stage::BeforeTitle => self.prose.push(String::new()),
            Stage::AfterTitle | Stage::Section => {}
        }
    }

    fn before_title(&mut self, number: u32) {
        if !self.content_before_title {
            self.content_before_title = true;
            self.diag(LlmsCode::ContentBeforeH1, number, "content before the H1 title".into());
        }
    }

    fn end_summary(&mut self) {
        if self.stage == Stage::Summary {
            self.stage = Stage::Prose;
        }
    }

    /// Appends a non-heading line to the prose or to the current section.
    fn push_text(&mut self, raw: &str, number: u32) {
        match self.stage {
            Stage::Section => {
                if let Some(section) = self.out.sections.last_mut() {
                    section.prose.push(ProseLine { text: raw.to_string(), line: number });
                }
            }
            Stage::BeforeTitle => {
                self.before_title(number);
                self.prose.push(raw.to_string());
            }
            _ => {
                self.stage = Stage::Prose;
                self.prose.push(raw.to_string());
            }
        }
    }

    fn text_line(&mut self, line: &str, number: u32, code: bool) {
        let trimmed = line.trim_start();
        if !code && let Some(quoted) = trimmed.strip_prefix('>') {
            if matches!(self.stage, Stage::AfterTitle | Stage::Summary) {
                if self.stage == Stage::AfterTitle {
                    self.out.summary_line = Some(number);
                }
                self.stage = Stage::Summary;
                self.summary.push(quoted.strip_prefix(' ').unwrap_or(quoted).trim_end().to_string());
                return;
            }
        } else if self.stage == Stage::Summary {
            // Markdown's lazy continuation: a plain line right after a
            // blockquote line still belongs to it.
            if !code && list_item(line).is_none() {
                self.summary.push(line.trim().to_string());
                return;
            }
            self.end_summary();
        }
        let item = if code { None } else { list_item(line) };
        let Some(content) = item else {
            if self.stage == Stage::Section {
                let tally = self.tally.prose.get_or_insert((number, 0));
                tally.1 += 1;
            }
            self.push_text(line, number);
            return;
        };
        match inline_link(content) {
            Some((title, url, rest)) if !url.is_empty() => {
                let link = Link {
                    title: title.to_string(),
                    url: url.to_string(),
                    notes: notes(rest),
                    line: number,
                    subheading: None,
                };
                self.check_link(&link);
                match self.stage {
                    Stage::Section => {
                        if let Some(section) = self.out.sections.last_mut() {
                            let subheading = section.subheadings.len().checked_sub(1);
                            section.links.push(Link { subheading, ..link });
                        }
                    }
                    _ => {
                        if self.stage == Stage::BeforeTitle {
                            self.before_title(number);
                        }
                        if !self.intro_link_reported {
                            self.intro_link_reported = true;
                            self.diag(
                                LlmsCode::LinkOutsideSection,
                                number,
                                "links before the first H2 section; readers that only read sections miss them".into(),
                            );
                        }
                        self.out.intro_links.push(link);
                        self.push_text(line, number);
                    }
                }
            }
            _ if content.starts_with('[') => {
                self.diag(LlmsCode::MalformedLink, number, "a list item that is not a `[title](url)` link".into());
                self.push_text(line, number);
            }
            _ => {
                if self.stage == Stage::Section {
                    let tally = self.tally.no_link.get_or_insert((number, 0));
                    tally.1 += 1;
                }
                self.push_text(line, number);
            }
        }
    }

    fn check_link(&mut self, link: &Link) {
        let n = link.line;
        if link.title.is_empty() {
            self.diag(LlmsCode::EmptyLinkTitle, n, "a link with an empty title".into());
        }
        if link.notes.is_none() {
            self.diag(LlmsCode::LinkWithoutNotes, n, format!("link {:?} has no `: notes` description", link.title));
        }
        match scheme(&link.url) {
            Some(s) if s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https") => {
                if !is_markdown_target(&link.url) {
                    self.diag(LlmsCode::NonMarkdownLink, n, "the target is not a .md, .html.md or .txt file".into());
                }
            }
            Some(s) => {
                self.diag(LlmsCode::UnsupportedScheme, n, format!("a {s}: link; agents fetch only http and https"));
            }
            None => {
                self.diag(LlmsCode::RelativeUrl, n, "a relative URL; the proposal uses full URLs".into());
                if !is_markdown_target(&link.url) {
                    self.diag(LlmsCode::NonMarkdownLink, n, "the target is not a .md, .html.md or .txt file".into());
                }
            }
        }
        if let Some(&first) = self.seen_urls.get(&link.url) {
            self.diag(LlmsCode::DuplicateLink, n, format!("this URL is already listed on line {first}"));
        } else {
            self.seen_urls.insert(link.url.clone(), n);
        }
    }

    fn close_section(&mut self) {
        let tally = std::mem::take(&mut self.tally);
        let Some(section) = self.out.sections.last() else { return };
        let (line, name, empty) = (section.line, section.name.clone(), section.links.is_empty());
        if empty {
            self.diag(LlmsCode::EmptySection, line, format!("section {name:?} has no links"));
        }
        if let Some((first, count)) = tally.prose {
            self.diag(
                LlmsCode::ProseInSection,
                first,
                format!("section {name:?} holds {count} line(s) of prose; sections should hold link lists"),
            );
        }
        if let Some((first, count)) = tally.no_link {
            self.diag(
                LlmsCode::ListItemWithoutLink,
                first,
                format!("section {name:?} has {count} list item(s) without a link"),
            );
        }
    }

    fn finish(mut self) -> LlmsTxt {
        self.close_section();
        if self.out.title.is_none() {
            self.diags.push(Diagnostic::new(LlmsCode::MissingH1, None, "the file has no `# Title` line".into()));
        } else if self.summary.is_empty() {
            let line = self.out.title_line;
            self.diags.push(Diagnostic::new(
                LlmsCode::MissingSummary,
                line,
                "no `> summary` blockquote after the title".into(),
            ));
        }
        if !self.summary.is_empty() {
            let mut summary = String::new();
            for part in &self.summary {
                if part.is_empty() {
                    if !summary.is_empty() && !summary.ends_with("\n\n") {
                        summary.push_str("\n\n");
                    }
                } else {
                    if !summary.is_empty() && !summary.ends_with('\n') {
                        summary.push(' ');
                    }
                    summary.push_str(part);
                }
            }
            self.out.summary = Some(summary.trim_end().to_string());
        }
        let start = self.prose.iter().position(|l| !l.trim().is_empty()).unwrap_or(self.prose.len());
        let end = self.prose.iter().rposition(|l| !l.trim().is_empty()).map_or(start, |i| i + 1);
        self.out.prose = self.prose[start..end].join("\n");
        self.diags.sort_by_key(|d| d.line);
        self.out.diagnostics = self.diags;
        self.out
    }
}
